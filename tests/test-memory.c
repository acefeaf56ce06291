/*
 * test-memory.c - grMalloc / grFree / grMallocHost / grFreeHost and the
 * copies and memsets: results, bounds checks against graphrt allocations,
 * refused frees, stream order and implicit synchronisation, concurrency.
 */
#include "testlib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

static const grMemcpyKind all_kinds[] = {grMemcpyHostToHost, grMemcpyHostToDevice, grMemcpyDeviceToHost,
                                         grMemcpyDeviceToDevice, grMemcpyDefault};

/* A copy round's buffers: src[0..n) a pattern of this seed, dst zeroed,
 * so that a copy that moves nothing is seen. */
static void fill_pattern(unsigned char *src, unsigned char *dst, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        src[i] = (unsigned char)(i * 31u + seed);
    memset(dst, 0, n);
}

static int all_bytes_are(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

/* ------------------------------------------------------------- results */

GR_TEST(memcpy_copies_bytes_for_every_kind)
{
    enum {
        N = 1000
    };
    unsigned char host_src[N], host_dst[N];
    unsigned char *a = tl_malloc(N), *b = tl_malloc(N);
    for (size_t k = 0; k < sizeof all_kinds / sizeof all_kinds[0]; k++) {
        fill_pattern(host_src, host_dst, N, (unsigned)k);
        CHECK_OK(grMemcpy(a, host_src, N, all_kinds[k])); /* to "device" */
        CHECK_OK(grMemcpy(b, a, N, all_kinds[k]));        /* within */
        CHECK_OK(grMemcpy(host_dst, b, N, all_kinds[k])); /* back */
        CHECK(memcmp(host_src, host_dst, N) == 0);
    }
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
}

GR_TEST(memcpy_async_copies_bytes_for_every_kind)
{
    enum {
        N = 777
    };
    unsigned char host_src[N], host_dst[N];
    unsigned char *a = tl_malloc(N);
    grStream_t s = tl_stream(0);
    for (size_t k = 0; k < sizeof all_kinds / sizeof all_kinds[0]; k++) {
        fill_pattern(host_src, host_dst, N, 7u + (unsigned)k);
        CHECK_OK(grMemcpyAsync(a, host_src, N, all_kinds[k], s));
        CHECK_OK(grMemcpyAsync(host_dst, a, N, all_kinds[k], s));
        CHECK_OK(grStreamSynchronize(s));
        CHECK(memcmp(host_src, host_dst, N) == 0);
    }
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(a));
}

GR_TEST(memset_sets_every_byte_to_the_low_byte_of_value)
{
    enum {
        N = 4096
    };
    unsigned char *a = tl_malloc(N + 64);
    memset(a, 0x11, N + 64);
    CHECK_OK(grMemset(a, 0x1ab, N));
    CHECK(all_bytes_are(a, N, 0xab));
    CHECK(all_bytes_are(a + N, 64, 0x11));
    CHECK_OK(grFree(a));
}

GR_TEST(memset_async_sets_bytes_in_stream_order)
{
    enum {
        N = 300
    };
    unsigned char *a = tl_malloc(N);
    grStream_t s = tl_stream(0);
    CHECK_OK(grMemsetAsync(a, 1, N, s));
    CHECK_OK(grMemsetAsync(a + 100, 2, 100, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK(all_bytes_are(a, 100, 1));
    CHECK(all_bytes_are(a + 100, 100, 2));
    CHECK(all_bytes_are(a + 200, 100, 1));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(a));
}

GR_TEST(memcpy_between_plain_host_buffers_is_accepted)
{
    char src[64], dst[64] = {0};
    char *heap = malloc(64);
    CHECK(heap != NULL);
    memset(src, 'x', sizeof src);
    CHECK_OK(grMemcpy(heap, src, 64, grMemcpyHostToHost));
    CHECK_OK(grMemcpy(dst, heap, 64, grMemcpyDefault));
    CHECK(memcmp(dst, src, 64) == 0);
    CHECK_OK(grMemset(heap, 0, 64));
    CHECK(heap[63] == 0);
    free(heap);
}

GR_TEST(memcpy_of_overlapping_ranges_behaves_like_memmove)
{
    unsigned char *a = tl_malloc(64);
    for (int i = 0; i < 64; i++)
        a[i] = (unsigned char)i;
    CHECK_OK(grMemcpy(a + 8, a, 32, grMemcpyDeviceToDevice));
    for (int i = 0; i < 32; i++)
        CHECK_EQ(a[8 + i], i);
    CHECK_OK(grFree(a));
}

GR_TEST(copy_and_memset_of_zero_bytes_succeed_even_with_null_pointers)
{
    CHECK_OK(grMemcpy(NULL, NULL, 0, grMemcpyDefault));
    CHECK_OK(grMemcpyAsync(NULL, NULL, 0, grMemcpyDefault, NULL));
    CHECK_OK(grMemset(NULL, 5, 0));
    CHECK_OK(grMemsetAsync(NULL, 5, 0, NULL));
}

/* -------------------------------------------------------- refused calls */

GR_TEST(memcpy_refuses_a_kind_outside_the_enum)
{
    char a[8] = {1}, b[8] = {0};
    CHECK_REFUSED(grErrorInvalidMemcpyDirection, grMemcpy, b, a, 8, (grMemcpyKind)5);
    CHECK_REFUSED(grErrorInvalidMemcpyDirection, grMemcpyAsync, b, a, 8, (grMemcpyKind)-1, NULL);
    CHECK_GR(grErrorInvalidMemcpyDirection, grMemcpyAsync(b, a, 0, (grMemcpyKind)99, NULL));
    CHECK_EQ(b[0], 0);
}

GR_TEST(memcpy_and_memset_refuse_null_pointers_with_nonzero_count)
{
    char a[8] = {0};
    CHECK_GR(grErrorInvalidValue, grMemcpy(NULL, a, 8, grMemcpyDefault));
    CHECK_DETAIL_HAS("destination");
    CHECK_GR(grErrorInvalidValue, grMemcpy(a, NULL, 8, grMemcpyDefault));
    CHECK_DETAIL_HAS("source");
    CHECK_REFUSED(grErrorInvalidValue, grMemsetAsync, NULL, 0, 1, NULL);
}

GR_TEST(memcpy_past_the_end_of_a_destination_allocation_is_refused_and_changes_nothing)
{
    unsigned char *a = tl_malloc(256);
    unsigned char src[300];
    memset(a, 0x5a, 256);
    memset(src, 0xee, sizeof src);
    CHECK_REFUSED(grErrorInvalidValue, grMemcpy, a + 16, src, 248, grMemcpyHostToDevice);
    CHECK_DETAIL_HAS("destination");
    CHECK_DETAIL_HAS("runs 8 bytes past its end");
    CHECK_DETAIL_HAS("of 256 bytes");
    CHECK(all_bytes_are(a, 256, 0x5a));
    CHECK_OK(grFree(a));
}

GR_TEST(memcpy_reading_past_the_end_of_a_source_allocation_is_refused)
{
    unsigned char *a = tl_malloc(100);
    unsigned char dst[128];
    memset(dst, 0x33, sizeof dst);
    CHECK_GR(grErrorInvalidValue, grMemcpy(dst, a, 101, grMemcpyDeviceToHost));
    CHECK_DETAIL_HAS("source");
    CHECK_DETAIL_HAS("runs 1 bytes past its end");
    CHECK(all_bytes_are(dst, sizeof dst, 0x33));
    CHECK_OK(grFree(a));
}

GR_TEST(memcpy_async_overrun_is_refused_before_anything_is_queued)
{
    unsigned char *a = tl_malloc(64), *b = tl_malloc(64);
    memset(a, 1, 64);
    memset(b, 2, 64);
    grStream_t s = tl_stream(0);
    CHECK_REFUSED(grErrorInvalidValue, grMemcpyAsync, b, a, 65, grMemcpyDeviceToDevice, s);
    CHECK_OK(grStreamSynchronize(s));
    CHECK(all_bytes_are(b, 64, 2));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
}

GR_TEST(memset_past_the_end_of_an_allocation_is_refused_and_changes_nothing)
{
    unsigned char *a = tl_malloc(1000);
    memset(a, 9, 1000);
    CHECK_REFUSED(grErrorInvalidValue, grMemset, a + 999, 0, 2);
    CHECK_DETAIL_HAS("starts 999 bytes into");
    CHECK_GR(grErrorInvalidValue, grMemsetAsync(a, 0, 1001, NULL));
    CHECK_OK(grDeviceSynchronize());
    CHECK(all_bytes_are(a, 1000, 9));
    CHECK_OK(grFree(a));
}

GR_TEST(copy_that_exactly_fills_an_allocation_is_accepted)
{
    unsigned char *a = tl_malloc(333);
    CHECK_OK(grMemset(a, 4, 333));
    CHECK_OK(grMemset(a + 332, 5, 1));
    CHECK_EQ(a[332], 5);
    CHECK_EQ(a[331], 4);
    CHECK_OK(grFree(a));
}

GR_TEST(range_that_wraps_the_address_space_is_refused)
{
    unsigned char *a = tl_malloc(64);
    CHECK_GR(grErrorInvalidValue, grMemset(a + 32, 0, SIZE_MAX - 8));
    CHECK_DETAIL_HAS("wraps");
    CHECK_OK(grFree(a));
}

/* ------------------------------------------------------ alloc and free */

GR_TEST(malloc_returns_256_byte_aligned_usable_memory)
{
    void *p[16];
    for (int i = 0; i < 16; i++) {
        CHECK_OK(grMalloc(&p[i], (size_t)(1 + i * 37)));
        CHECK_EQ((uintptr_t)p[i] % 256, 0);
        memset(p[i], i, (size_t)(1 + i * 37));
    }
    for (int i = 0; i < 16; i++)
        CHECK_OK(grFree(p[i]));
}

GR_TEST(malloc_of_zero_bytes_gives_null_and_succeeds)
{
    void *p = (void *)0x1234;
    CHECK_OK(grMalloc(&p, 0));
    CHECK(p == NULL);
    p = (void *)0x1234;
    CHECK_OK(grMallocHost(&p, 0));
    CHECK(p == NULL);
}

GR_TEST(malloc_with_null_out_pointer_is_refused)
{
    CHECK_REFUSED(grErrorInvalidValue, grMalloc, NULL, 16);
    CHECK_REFUSED(grErrorInvalidValue, grMallocHost, NULL, 16);
}

GR_TEST(malloc_of_an_impossible_size_fails_with_memory_allocation)
{
    void *p = (void *)0x1234;
    CHECK_GR(grErrorMemoryAllocation, grMalloc(&p, SIZE_MAX));
    CHECK(p == (void *)0x1234);
    CHECK_REFUSED(grErrorMemoryAllocation, grMalloc, &p, SIZE_MAX / 2);
    CHECK_GR(grErrorMemoryAllocation, grMallocHost(&p, (size_t)1 << 62));
    CHECK(p == (void *)0x1234);
}

GR_TEST(free_of_null_is_a_successful_no_op)
{
    CHECK_OK(grFree(NULL));
    CHECK_OK(grFreeHost(NULL));
    CHECK_GR(grSuccess, grPeekAtLastError());
}

GR_TEST(free_of_a_pointer_graphrt_did_not_allocate_is_refused)
{
    int local = 0;
    void *heap = malloc(32);
    CHECK(heap != NULL);
    CHECK_REFUSED(grErrorInvalidValue, grFree, &local);
    CHECK_DETAIL_HAS("was not returned by grMalloc");
    CHECK_GR(grErrorInvalidValue, grFree(heap));
    CHECK_REFUSED(grErrorInvalidValue, grFreeHost, heap);
    free(heap); /* still ours: graphrt freed nothing */
}

GR_TEST(double_free_is_refused)
{
    void *p;
    CHECK_OK(grMalloc(&p, 100));
    CHECK_OK(grFree(p));
    CHECK_GR(grErrorInvalidValue, grFree(p));
    CHECK_DETAIL_HAS("freed already");
    CHECK_OK(grMallocHost(&p, 100));
    CHECK_OK(grFreeHost(p));
    CHECK_GR(grErrorInvalidValue, grFreeHost(p));
}

GR_TEST(free_of_an_interior_pointer_is_refused_and_frees_nothing)
{
    unsigned char *a = tl_malloc(512);
    CHECK_GR(grErrorInvalidValue, grFree(a + 100));
    CHECK_DETAIL_HAS("100 bytes inside the allocation");
    CHECK_DETAIL_HAS("of 512 bytes");
    /* Still tracked: bounds checks still apply and the base frees. */
    CHECK_GR(grErrorInvalidValue, grMemset(a, 0, 513));
    CHECK_OK(grMemset(a, 0, 512));
    CHECK_OK(grFree(a));
}

GR_TEST(free_and_free_host_refuse_each_others_memory)
{
    void *d, *h;
    CHECK_OK(grMalloc(&d, 64));
    CHECK_OK(grMallocHost(&h, 64));
    CHECK_GR(grErrorInvalidValue, grFreeHost(d));
    CHECK_DETAIL_HAS("free it with grFree");
    CHECK_GR(grErrorInvalidValue, grFree(h));
    CHECK_DETAIL_HAS("free it with grFreeHost");
    CHECK_OK(grFree(d));
    CHECK_OK(grFreeHost(h));
}

GR_TEST(host_allocations_are_bounds_checked_like_device_ones)
{
    unsigned char *h;
    CHECK_OK(grMallocHost((void **)&h, 40));
    CHECK_EQ((uintptr_t)h % 256, 0);
    memset(h, 3, 40);
    CHECK_GR(grErrorInvalidValue, grMemset(h, 0, 41));
    CHECK(all_bytes_are(h, 40, 3));
    CHECK_OK(grFreeHost(h));
}

GR_TEST(successful_calls_leave_the_last_error_alone)
{
    void *p;
    CHECK_GR(grErrorInvalidValue, grFree((void *)&p));
    CHECK_OK(grMalloc(&p, 8));
    CHECK_OK(grMemset(p, 0, 8));
    CHECK_OK(grFree(p));
    CHECK_GR(grErrorInvalidValue, grGetLastError());
}

/* ------------------------------------------------- order and sync points */

static void set_flag_after_sleep(void *arg)
{
    tl_sleep_ms(50);
    atomic_store((atomic_int *)arg, 1);
}

GR_TEST(sync_memcpy_waits_for_earlier_work_on_the_legacy_stream)
{
    atomic_int flag = 0;
    char src[16] = "abc", dst[16] = {0};
    CHECK_OK(grLaunchHostFunc(NULL, set_flag_after_sleep, &flag));
    CHECK_OK(grMemcpy(dst, src, sizeof src, grMemcpyHostToHost));
    CHECK_EQ(atomic_load(&flag), 1);
    CHECK(strcmp(dst, "abc") == 0);
}

GR_TEST(sync_memset_waits_for_earlier_work_on_the_legacy_stream)
{
    atomic_int flag = 0;
    unsigned char *a = tl_malloc(32);
    CHECK_OK(grLaunchHostFunc(grStreamLegacy, set_flag_after_sleep, &flag));
    CHECK_OK(grMemset(a, 1, 32));
    CHECK_EQ(atomic_load(&flag), 1);
    CHECK(all_bytes_are(a, 32, 1));
    CHECK_OK(grFree(a));
}

typedef struct order_probe {
    unsigned char *src, *dst;
    unsigned char seen_before, seen_after;
} order_probe;

static void write_src_late(void *arg)
{
    order_probe *o = arg;
    tl_sleep_ms(30);
    o->src[0] = 42;
}

static void read_dst(void *arg)
{
    order_probe *o = arg;
    o->seen_after = o->dst[0];
}

static void read_dst_before(void *arg)
{
    order_probe *o = arg;
    o->seen_before = o->dst[0];
}

GR_TEST(async_memcpy_runs_in_stream_order_with_host_functions)
{
    order_probe o = {tl_malloc(16), tl_malloc(16), 0xff, 0xff};
    memset(o.src, 0, 16);
    memset(o.dst, 7, 16);
    grStream_t s = tl_stream(0);
    CHECK_OK(grLaunchHostFunc(s, write_src_late, &o));
    CHECK_OK(grLaunchHostFunc(s, read_dst_before, &o));
    CHECK_OK(grMemcpyAsync(o.dst, o.src, 16, grMemcpyDeviceToDevice, s));
    CHECK_OK(grLaunchHostFunc(s, read_dst, &o));
    CHECK_OK(grMemsetAsync(o.dst, 9, 16, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(o.seen_before, 7);
    CHECK_EQ(o.seen_after, 42);
    CHECK(all_bytes_are(o.dst, 16, 9));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(o.src));
    CHECK_OK(grFree(o.dst));
}

static void sleep_then_flag(void *arg)
{
    tl_sleep_ms(50);
    atomic_store((atomic_int *)arg, 1);
}

GR_TEST(free_with_work_in_flight_waits_for_that_work)
{
    atomic_int flag = 0;
    enum {
        N = 1 << 16
    };
    unsigned char *a = tl_malloc(N);
    grStream_t s = tl_stream(grStreamNonBlocking);
    CHECK_OK(grLaunchHostFunc(s, sleep_then_flag, &flag));
    CHECK_OK(grMemsetAsync(a, 3, N, s)); /* would touch freed memory if run late */
    CHECK_OK(grFree(a));
    CHECK_EQ(atomic_load(&flag), 1);
    CHECK_OK(grStreamQuery(s));
    CHECK_OK(grStreamDestroy(s));
}

/* ------------------------------------------------------------ threads */

#define ALLOC_THREADS 8
#define ALLOC_ROUNDS 400
#define ALLOC_LIVE 8

static void *alloc_free_worker(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg * 2654435761u + 1u;
    unsigned char *live[ALLOC_LIVE] = {0};
    size_t sizes[ALLOC_LIVE] = {0};
    int failures = 0;
    for (int r = 0; r < ALLOC_ROUNDS; r++) {
        seed = seed * 1103515245u + 12345u;
        int slot = (int)((seed >> 16) % ALLOC_LIVE);
        if (live[slot]) {
            /* Our bytes are intact: no other thread got an overlapping block. */
            for (size_t i = 0; i < sizes[slot]; i++)
                failures += live[slot][i] != (unsigned char)slot + (unsigned char)(uintptr_t)arg;
            failures += grMemsetAsync(live[slot], 0, sizes[slot] + 1, NULL) != grErrorInvalidValue;
            failures += grFree(live[slot]) != grSuccess;
            failures += grFree(live[slot] + 1) != grErrorInvalidValue;
            live[slot] = NULL;
        } else {
            sizes[slot] = 1 + (seed >> 8) % 3000;
            void *p = NULL;
            failures += grMalloc(&p, sizes[slot]) != grSuccess;
            live[slot] = p;
            if (p)
                memset(p, (unsigned char)slot + (unsigned char)(uintptr_t)arg, sizes[slot]);
        }
    }
    for (int i = 0; i < ALLOC_LIVE; i++)
        if (live[i])
            failures += grFree(live[i]) != grSuccess;
    return (void *)(uintptr_t)failures;
}

GR_TEST_T(many_threads_allocate_and_free_concurrently, 120)
{
    pthread_t t[ALLOC_THREADS];
    for (uintptr_t i = 0; i < ALLOC_THREADS; i++)
        CHECK_EQ(pthread_create(&t[i], NULL, alloc_free_worker, (void *)(i + 1)), 0);
    uintptr_t failures = 0;
    for (int i = 0; i < ALLOC_THREADS; i++) {
        void *ret;
        CHECK_EQ(pthread_join(t[i], &ret), 0);
        failures += (uintptr_t)ret;
    }
    CHECK_EQ(failures, 0);
}

#define TREE_N 2000

GR_TEST(bounds_checks_find_the_right_allocation_among_thousands)
{
    static unsigned char *p[TREE_N];
    for (int i = 0; i < TREE_N; i++)
        p[i] = tl_malloc((size_t)(16 + i % 97));
    /* Free every third one to exercise removal, then check all survivors. */
    for (int i = 0; i < TREE_N; i += 3) {
        CHECK_OK(grFree(p[i]));
        p[i] = NULL;
    }
    for (int i = 0; i < TREE_N; i++) {
        if (!p[i])
            continue;
        size_t n = (size_t)(16 + i % 97);
        CHECK_OK(grMemset(p[i], 1, n));
        CHECK_GR(grErrorInvalidValue, grMemset(p[i] + 1, 1, n));
        CHECK_GR(grErrorInvalidValue, grFree(p[i] + n - 1));
    }
    for (int i = 0; i < TREE_N; i++)
        if (p[i])
            CHECK_OK(grFree(p[i]));
}
