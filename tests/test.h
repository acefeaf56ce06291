/*
 * test.h - the test framework: tests register themselves with GR_TEST,
 * tests/runner.c forks each one with a timeout and prints TAP.
 *
 * A test is a function named for a behaviour; a failed CHECK prints both
 * operands with file:line and ends the test process with status 1.
 */
#ifndef GR_TEST_H
#define GR_TEST_H

#include "graphrt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The runner is C; a C++ test file (test-hostcpp.cpp) includes this too. */
#ifdef __cplusplus
extern "C" {
#endif

typedef void (*gr_test_fn)(void);
void gr_test_register(const char *name, const char *file, gr_test_fn fn, int timeout_s);

/* GR_TEST(name) { body }: a test with the default 30 s timeout. */
#define GR_TEST(name) GR_TEST_T(name, 30)
/* GR_TEST_T(name, seconds): a test with its own timeout. */
#define GR_TEST_T(name, secs)                                      \
    static void test_##name(void);                                 \
    __attribute__((constructor)) static void register_##name(void) \
    {                                                              \
        gr_test_register(#name, __FILE__, test_##name, (secs));    \
    }                                                              \
    static void test_##name(void)

/* Ends the test as skipped, with the reason (printf format) that the TAP
 * line and the count of skips show: for a test that cannot run on this
 * machine (no GPU), never for one that fails. */
void gr_test_skip(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
#define GR_TEST_SKIP(...) gr_test_skip(__VA_ARGS__)

/* For a test run once on the CPU and once on a GPU: makes device 0 (gpu
 * 0) or the first GPU (gpu 1) current and returns it; the GPU half is
 * skipped, saying why, where there is none. */
int gr_test_device_or_skip(int gpu);

/* True when devices 1..N are the suite's fake device (tests/fakedev),
 * which stands in for GPUs where there is none. */
int gr_test_fake_device(void);

/* Skips a test that needs a real GPU, saying why: one that checks what
 * the fake device cannot model (CUDA's own error names, a GPU's faults,
 * memory the CPU cannot reach). */
void gr_test_real_gpu_or_skip(void);

#ifdef __cplusplus
}
#endif

#define GR_TEST_FAIL_(...)                                \
    do {                                                  \
        fprintf(stderr, "  %s:%d: ", __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                     \
        fprintf(stderr, "\n");                            \
        fflush(stderr);                                   \
        exit(1);                                          \
    } while (0)

#define CHECK(cond)                                   \
    do {                                              \
        if (!(cond))                                  \
            GR_TEST_FAIL_("CHECK(%s) failed", #cond); \
    } while (0)

#define CHECK_EQ(a, b)                                                                \
    do {                                                                              \
        long long va_ = (long long)(a), vb_ = (long long)(b);                         \
        if (va_ != vb_)                                                               \
            GR_TEST_FAIL_("CHECK_EQ(%s, %s) failed: %lld != %lld", #a, #b, va_, vb_); \
    } while (0)

#define CHECK_PTR_EQ(a, b)                                                            \
    do {                                                                              \
        const void *pa_ = (const void *)(a), *pb_ = (const void *)(b);                \
        if (pa_ != pb_)                                                               \
            GR_TEST_FAIL_("CHECK_PTR_EQ(%s, %s) failed: %p != %p", #a, #b, pa_, pb_); \
    } while (0)

/* Checks a graphrt call's result, printing both names and the detail. */
#define CHECK_GR(expected, call)                                                                 \
    do {                                                                                         \
        grError_t e_ = (call);                                                                   \
        if (e_ != (expected))                                                                    \
            GR_TEST_FAIL_("%s returned %s, expected %s (detail: %s)", #call, grGetErrorName(e_), \
                          grGetErrorName(expected), grGetLastErrorDetail());                     \
    } while (0)

#define CHECK_OK(call) CHECK_GR(grSuccess, call)

/* Checks that the last error detail contains a substring. */
#define CHECK_DETAIL_HAS(sub)                                       \
    do {                                                            \
        const char *d_ = grGetLastErrorDetail();                    \
        if (!strstr(d_, (sub)))                                     \
            GR_TEST_FAIL_("detail \"%s\" lacks \"%s\"", d_, (sub)); \
    } while (0)

/* CHECK_REFUSED(err, fn, args...): fn(args...) must fail with err, and
 * the detail must name fn. */
#define CHECK_REFUSED(err, fn, ...)       \
    do {                                  \
        CHECK_GR((err), fn(__VA_ARGS__)); \
        CHECK_DETAIL_HAS(#fn);            \
    } while (0)

#endif /* GR_TEST_H */
