/*
 * bench_mempool.c - the cost of stream-ordered allocation: a grMallocAsync
 * + grFreeAsync pair on one stream, against glibc malloc + free and
 * grMalloc + grFree of the same size. Phases are timed apart; the first
 * pair (which takes memory from the OS) is excluded.
 */
#include "graphrt.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

#define CHECK(x)                                                                                         \
    do {                                                                                                 \
        if ((x) != grSuccess) {                                                                          \
            fprintf(stderr, "%s failed: %s\n", #x, grGetLastErrorDetail());                            \
            exit(1);                                                                                     \
        }                                                                                                \
    } while (0)

int main(void)
{
    static const size_t sizes[] = {64, 1024, 65536, 1 << 20};
    grStream_t s;
    grMemPool_t pool;
    uint64_t keep = UINT64_MAX;
    CHECK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK(grDeviceGetDefaultMemPool(&pool, 0));
    CHECK(grMemPoolSetAttribute(pool, grMemPoolAttrReleaseThreshold, &keep));
    printf("%-10s %14s %14s %14s\n", "bytes", "pool pair ns", "malloc ns", "grMalloc ns");
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        int iters = n >= 65536 ? 20000 : 2000000, gr_iters = 2000;
        void *p = NULL;
        volatile uintptr_t sink = 0;
        CHECK(grMallocAsync(&p, n, s));
        CHECK(grFreeAsync(p, s));
        double t0 = now_ns();
        for (int k = 0; k < iters; k++) {
            CHECK(grMallocAsync(&p, n, s));
            sink += (uintptr_t)p;
            CHECK(grFreeAsync(p, s));
        }
        double pool_ns = (now_ns() - t0) / iters;
        t0 = now_ns();
        for (int k = 0; k < iters; k++) {
            p = malloc(n);
            sink += (uintptr_t)p;
            free(p);
        }
        double malloc_ns = (now_ns() - t0) / iters;
        t0 = now_ns();
        for (int k = 0; k < gr_iters; k++) {
            CHECK(grMalloc(&p, n));
            sink += (uintptr_t)p;
            CHECK(grFree(p));
        }
        double grmalloc_ns = (now_ns() - t0) / gr_iters;
        printf("%-10zu %14.1f %14.1f %14.1f\n", n, pool_ns, malloc_ns, grmalloc_ns);
        (void)sink;
    }
    CHECK(grStreamSynchronize(s));
    CHECK(grStreamDestroy(s));
    return 0;
}
