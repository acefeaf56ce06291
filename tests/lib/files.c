/*
 * files.c - file helpers of the tests: reading a whole file, naming a
 * temporary one.
 */
#include "testlib.h"

#include <unistd.h>

char *tl_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (!f)
        GR_TEST_FAIL_("cannot open %s", path);
    CHECK(fseek(f, 0, SEEK_END) == 0);
    n = ftell(f);
    CHECK(n >= 0);
    rewind(f);
    buf = malloc((size_t)n + 1);
    CHECK(buf != NULL);
    CHECK_EQ(fread(buf, 1, (size_t)n, f), n);
    buf[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return buf;
}

void tl_tmp_path(char *buf, size_t cap, const char *prefix, const char *tag, const char *ext)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(buf, cap, "%s/graphrt-%s-%ld-%s%s", dir, prefix, (long)getpid(), tag, ext);
}

void tl_spit(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        GR_TEST_FAIL_("cannot create %s", path);
    CHECK_EQ(fwrite(data, 1, n, f), n);
    CHECK_EQ(fclose(f), 0);
}

void tl_load_refused(const char *text, const char *where, const char *what)
{
    char path[128], want[160];
    grGraph_t g = (grGraph_t)(uintptr_t)0x1;
    tl_tmp_path(path, sizeof path, "test", "bad", ".graph");
    tl_spit(path, text, strlen(text));
    CHECK_GR(grErrorInvalidValue, grGraphLoadFromFile(&g, path, 0));
    CHECK_PTR_EQ(g, (grGraph_t)(uintptr_t)0x1);
    snprintf(want, sizeof want, "%s:%s:", path, where);
    CHECK_DETAIL_HAS(want);
    CHECK_DETAIL_HAS(what);
    unlink(path);
}
