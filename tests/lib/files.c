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
