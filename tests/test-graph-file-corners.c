/*
 * test-graph-file-corners.c - graph files at the edges of what the format
 * and the file system allow: paths that are not regular files, graphs
 * with nothing to declare, nodes that touch no bytes, lines with more
 * fields than any node type has. Each either round-trips or is refused
 * with grErrorInvalidValue and a detail; none crashes or reads past what
 * it owns. (test-graph-file.c holds the format's main round trips.)
 */
#include "testlib.h"

#include <stdbool.h>
#include <unistd.h>

/* Saves g, loads the file, saves the loaded graph: both files must hold
 * the same bytes. Returns the loaded graph. */
static grGraph_t round_trip(grGraph_t g, const char *tag)
{
    char p1[160], p2[160], t2[40];
    grGraph_t l = NULL;
    tl_tmp_path(p1, sizeof p1, "corner", tag, ".graph");
    snprintf(t2, sizeof t2, "%s-again", tag);
    tl_tmp_path(p2, sizeof p2, "corner", t2, ".graph");
    CHECK_OK(grGraphSaveToFile(g, p1, 0));
    CHECK_OK(grGraphLoadFromFile(&l, p1, 0));
    CHECK_OK(grGraphSaveToFile(l, p2, 0));
    char *a = tl_slurp(p1, NULL), *b = tl_slurp(p2, NULL);
    if (strcmp(a, b) != 0)
        GR_TEST_FAIL_("the loaded graph saves other bytes:\n%s\n--- against ---\n%s", a, b);
    free(a);
    free(b);
    unlink(p1);
    unlink(p2);
    return l;
}

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

/* A memset of width 0 and copies of 0 bytes touch no memory, but name
 * some: memory graphrt did not allocate is saved as a host buffer of 1
 * byte (the least a buffer has; a node's add refuses NULL), so the file
 * loads, runs, and saves to the same bytes again. */
GR_TEST(graph_file_round_trips_nodes_of_zero_bytes_on_plain_memory)
{
    static unsigned char plain[64], other[64];
    void *dev;
    grGraph_t g, l;
    grGraphNode_t n[3];
    grGraphExec_t e;
    grStream_t s;
    grMemsetParams mp = {plain, 0, 7, 1, 0, 1};
    CHECK_OK(grMalloc(&dev, 64));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemsetNode(&n[0], g, NULL, 0, &mp));
    CHECK_OK(grGraphAddMemcpyNode1D(&n[1], g, &n[0], 1, plain + 8, other, 0, grMemcpyHostToHost));
    CHECK_OK(grGraphAddMemcpyNode1D(&n[2], g, &n[1], 1, dev, other + 8, 0, grMemcpyHostToDevice));
    l = round_trip(g, "zero-bytes");
    CHECK_OK(grGraphInstantiate(&e, l, 0));
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(l));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(dev));
}

/* A graph with nothing to declare (no kernel, buffer, event or handle)
 * leaves the saver's declaration texts empty: the file is written without
 * handing fwrite a NULL buffer (undefined even for 0 bytes; gcc's UBSan
 * aborts on it) and loads back. So does an empty graph. */
GR_TEST(graph_file_saves_graphs_with_nothing_to_declare)
{
    char path[128];
    grGraph_t g, l = NULL;
    grGraphNode_t a, b;
    tl_tmp_path(path, sizeof path, "corner", "no-decls", ".graph");
    CHECK_OK(grGraphCreate(&g, 0));
    l = round_trip(g, "empty");
    CHECK_OK(grGraphDestroy(l));
    CHECK_OK(grGraphAddEmptyNode(&a, g, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&b, g, &a, 1));
    CHECK_OK(grGraphSaveToFile(g, path, 0));
    char *text = tl_slurp(path, NULL);
    CHECK(strstr(text, "\ngraph {\n  n0 empty\n  n1 empty after=n0\n}\n") != NULL);
    free(text);
    unlink(path);
    l = round_trip(g, "no-decls");
    size_t n = 0;
    CHECK_OK(grGraphGetNodes(l, NULL, &n));
    CHECK_EQ(n, 2);
    CHECK_OK(grGraphDestroy(l));
    CHECK_OK(grGraphDestroy(g));
}

/* Writes a file whose only node line is "n0 TYPE" and nfields key=value
 * fields k0=0 k1=1 ..., and loads it: refused, the detail returned. */
static void load_fields(const char *type, int nfields, char *detail, size_t cap)
{
    char path[128];
    grGraph_t g = NULL;
    tl_tmp_path(path, sizeof path, "corner", "fields", ".graph");
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fprintf(f, "graphrt-graph 1\ngraph {\n  n0 %s", type);
    for (int i = 0; i < nfields; i++)
        fprintf(f, " k%d=%d", i, i);
    fprintf(f, "\n}\n");
    fclose(f);
    CHECK_GR(grErrorInvalidValue, grGraphLoadFromFile(&g, path, 0));
    CHECK_PTR_EQ(g, NULL);
    snprintf(detail, cap, "%s", grGetLastErrorDetail());
    unlink(path);
}

/* A node line holds at most 16 key=value fields: 17 and 18 (which the
 * line's tokens have room for, with no positional field or '{') are
 * refused as too many, not stored past the field table. 16 unknown
 * fields are refused naming the first. */
GR_TEST(graph_file_refuses_node_lines_of_more_than_16_fields)
{
    char d[512];
    for (int n = 17; n <= 24; n++) {
        load_fields("empty", n, d, sizeof d);
        if (!strstr(d, ":3: the line has more than 16 fields"))
            GR_TEST_FAIL_("%d fields: %s", n, d);
    }
    load_fields("memset", 17, d, sizeof d);
    CHECK(strstr(d, ":3: the line has more than 16 fields") != NULL);
    load_fields("empty", 16, d, sizeof d);
    if (!strstr(d, "'k0'"))
        GR_TEST_FAIL_("16 unknown fields: %s", d);
}

/* A node's type is one of the words of GR_GRAPH_NODE_TYPE_LIST: another
 * word (the tool's former "conditional" included) is refused naming it,
 * and only the kinds that hold graphs, graph and cond, open a block. */
GR_TEST(graph_file_refuses_words_that_name_no_node_kind)
{
    static const struct {
        const char *type;
        int nfields;
        const char *detail;
    } cases[] = {
        {"conditional", 0, "'conditional' is not a node type"},
        {"kernels", 1, "'kernels' is not a node type"},
        {"graph", 0, "a graph or cond node's line ends with '{'"},
        {"empty {", 0, "only a graph or cond node opens a block with '{'"},
    };
    char d[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        load_fields(cases[i].type, cases[i].nfields, d, sizeof d);
        if (!strstr(d, cases[i].detail))
            GR_TEST_FAIL_("'%s' with %d fields: %s", cases[i].type, cases[i].nfields, d);
    }
}
