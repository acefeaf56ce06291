/*
 * test-graph-file-corners.c - graph files at the edges of what the format
 * and the file system allow: paths that are not regular files, graphs
 * with nothing to declare, nodes that touch no bytes, lines with more
 * fields than any node type has. Each either round-trips or is refused
 * with grErrorInvalidValue and a detail; none crashes or reads past what
 * it owns. (test-graph-file.c holds the format's main round trips.)
 */
#include "test.h"

#include <stdbool.h>
#include <unistd.h>

/* A directory opens for reading on Linux, but its length (ftell after
 * seeking to its end: LONG_MAX on ext4) is no file length: loading it is
 * refused as unreadable, allocating nothing. */
GR_TEST(graph_file_load_refuses_a_directory_as_unreadable)
{
    char dir[] = "/tmp/graphrt-corner-dir-XXXXXX";
    grGraph_t g = (grGraph_t)(uintptr_t)0x1;
    CHECK(mkdtemp(dir) != NULL);
    CHECK_GR(grErrorInvalidValue, grGraphLoadFromFile(&g, dir, 0));
    CHECK_DETAIL_HAS("grGraphLoadFromFile: cannot read '");
    CHECK_DETAIL_HAS(dir);
    CHECK_PTR_EQ(g, (grGraph_t)(uintptr_t)0x1);
    CHECK_GR(grErrorInvalidValue, grGraphLoadFromFile(&g, ".", grGraphLoadStandIns));
    CHECK_DETAIL_HAS("cannot read '.'");
    /* A character device has no length either; it is read to its end. */
    CHECK_GR(grErrorInvalidValue, grGraphLoadFromFile(&g, "/dev/null", 0));
    CHECK_DETAIL_HAS("/dev/null:1: not a graphrt graph file");
    CHECK_EQ(rmdir(dir), 0);
}
