/*
 * test-stream-memops.c - grStreamWaitValue32/64 and
 * grStreamWriteValue32/64: each condition, stream order, wake-ups by
 * graphrt's writes and by another thread's store, streams that are
 * destroyed while they wait, and every refusal with nothing queued.
 */
#include "testlib.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

GR_TEST(wait_value_32_holds_later_work_until_a_write_value_meets_it)
{
    static uint32_t flag;
    static uint32_t out;
    grStream_t waiter, writer;
    __atomic_store_n(&flag, 0, __ATOMIC_SEQ_CST);
    out = 0;
    CHECK_OK(grStreamCreate(&waiter));
    CHECK_OK(grStreamCreate(&writer));
    CHECK_OK(grStreamWaitValue32(waiter, &flag, 5, grStreamWaitValueGeq));
    CHECK_OK(grStreamWriteValue32(waiter, &out, 1, grStreamWriteValueDefault));
    CHECK(tl_still_waiting(waiter));
    CHECK_EQ(__atomic_load_n(&out, __ATOMIC_SEQ_CST), 0u);
    /* 4 is not >= 5: still waiting. */
    CHECK_OK(grStreamWriteValue32(writer, &flag, 4, grStreamWriteValueDefault));
    CHECK_OK(grStreamSynchronize(writer));
    CHECK(tl_still_waiting(waiter));
    CHECK_OK(grStreamWriteValue32(writer, &flag, 5, grStreamWriteValueDefault));
    CHECK_OK(grStreamSynchronize(writer));
    CHECK_OK(grStreamSynchronize(waiter));
    CHECK_EQ(__atomic_load_n(&out, __ATOMIC_SEQ_CST), 1u);
    CHECK_OK(grStreamDestroy(waiter));
    CHECK_OK(grStreamDestroy(writer));
}

/* Each condition, on a word that already holds its answer. */
GR_TEST(wait_value_conditions_follow_the_driver)
{
    static uint32_t w32;
    static uint64_t w64;
    static uint32_t done;
    grStream_t s = tl_stream(0);
    struct {
        uint32_t word, value;
        unsigned flags;
    } met32[] = {
        {7, 7, grStreamWaitValueEq},
        {8, 7, grStreamWaitValueGeq},
        {1, 0xfffffff0u, grStreamWaitValueGeq}, /* cyclic: 1 - 0xfffffff0 = 17 >= 0 */
        {0x6, 0x2, grStreamWaitValueAnd},
        {0x0f, 0xf0, grStreamWaitValueNor}, /* ~0xff != 0 */
    };
    for (size_t i = 0; i < sizeof met32 / sizeof met32[0]; i++) {
        __atomic_store_n(&w32, met32[i].word, __ATOMIC_SEQ_CST);
        done = 0;
        CHECK_OK(grStreamWaitValue32(s, &w32, met32[i].value, met32[i].flags));
        CHECK_OK(grStreamWriteValue32(s, &done, 1, 0));
        CHECK_OK(grStreamSynchronize(s));
        CHECK_EQ(done, 1u);
    }
    /* Not met: 0xfffffff0 is "before" 1 cyclically; released by the host. */
    __atomic_store_n(&w32, 0xfffffff0u, __ATOMIC_SEQ_CST);
    done = 0;
    CHECK_OK(grStreamWaitValue32(s, &w32, 1, grStreamWaitValueGeq));
    CHECK_OK(grStreamWriteValue32(s, &done, 1, 0));
    CHECK(tl_still_waiting(s));
    __atomic_store_n(&w32, 1u, __ATOMIC_SEQ_CST);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(done, 1u);
    /* 64 bits: the comparison uses the whole word. */
    __atomic_store_n(&w64, 0x100000000ull, __ATOMIC_SEQ_CST);
    done = 0;
    CHECK_OK(grStreamWaitValue64(s, &w64, 0x100000000ull, grStreamWaitValueEq));
    CHECK_OK(grStreamWriteValue64(s, &w64, 0x200000000ull, 0));
    CHECK_OK(grStreamWaitValue64(s, &w64, 0x1ffffffffull, grStreamWaitValueGeq));
    CHECK_OK(grStreamWriteValue32(s, &done, 1, 0));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(done, 1u);
    CHECK_EQ(__atomic_load_n(&w64, __ATOMIC_SEQ_CST), 0x200000000ull);
    CHECK_OK(grStreamDestroy(s));
}

typedef struct {
    uint32_t *word;
    uint32_t value;
} store_args;

static void *store_later(void *p)
{
    store_args *a = p;
    for (int i = 0; i < 1000; i++)
        __atomic_load_n(a->word, __ATOMIC_RELAXED); /* a little later */
    __atomic_store_n(a->word, a->value, __ATOMIC_SEQ_CST);
    return NULL;
}

GR_TEST(wait_value_sees_another_threads_store)
{
    static uint32_t word;
    pthread_t t;
    __atomic_store_n(&word, 0, __ATOMIC_SEQ_CST);
    grStream_t s = tl_stream(0);
    CHECK_OK(grStreamWaitValue32(s, &word, 3, grStreamWaitValueEq));
    store_args a = {&word, 3};
    CHECK(pthread_create(&t, NULL, store_later, &a) == 0);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(__atomic_load_n(&word, __ATOMIC_SEQ_CST), 3u);
    pthread_join(t, NULL);
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(stream_destroy_returns_while_its_wait_is_unmet)
{
    static uint32_t word;
    static uint32_t after;
    __atomic_store_n(&word, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&after, 0, __ATOMIC_SEQ_CST);
    grStream_t s = tl_stream(0);
    CHECK_OK(grStreamWaitValue32(s, &word, 1, grStreamWaitValueEq));
    CHECK_OK(grStreamWriteValue32(s, &after, 9, 0));
    CHECK_OK(grStreamDestroy(s)); /* returns; the work stays queued */
    CHECK_EQ(__atomic_load_n(&after, __ATOMIC_SEQ_CST), 0u);
    __atomic_store_n(&word, 1, __ATOMIC_SEQ_CST);
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(__atomic_load_n(&after, __ATOMIC_SEQ_CST), 9u);
}

GR_TEST(stream_memops_refuse_bad_words_and_flags_and_queue_or_capture_nothing)
{
    static uint64_t words[2];
    uint32_t *w = (uint32_t *)words;
    memset(words, 0, sizeof words);
    grStream_t s = tl_stream(0);
    CHECK_GR(grErrorInvalidValue, grStreamWaitValue32(s, NULL, 1, 0));
    CHECK_GR(grErrorInvalidValue, grStreamWaitValue32(s, (char *)w + 2, 1, 0));
    CHECK_GR(grErrorInvalidValue, grStreamWaitValue64(s, w + 1, 1, 0)); /* 4-aligned, not 8 */
    CHECK_GR(grErrorInvalidValue, grStreamWaitValue32(s, w, 1, 4));
    CHECK_DETAIL_HAS("flags 0x4");
    CHECK_GR(grErrorInvalidValue, grStreamWriteValue32(s, w, 1, 2));
    /* As CUDA 13's driver answers on an H200. */
    CHECK_GR(grErrorInvalidValue, grStreamWriteValue32(s, w, 1, grStreamWriteValueNoMemoryBarrier));
    CHECK_GR(grErrorNotSupported, grStreamWaitValue32(s, w, 0, grStreamWaitValueEq | grStreamWaitValueFlush));
    CHECK_GR(grErrorInvalidValue, grStreamWriteValue64(s, w + 1, 1, 0));
    void *small = tl_malloc(6);
    CHECK_GR(grErrorInvalidValue, grStreamWriteValue64(s, small, 1, 0)); /* 8 bytes past a 6-byte block */
    /* Refused while capturing: the capture records nothing and goes on. */
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_GR(grErrorInvalidValue, grStreamWriteValue32(s, w, 1, grStreamWriteValueNoMemoryBarrier));
    CHECK_GR(grErrorNotSupported, grStreamWaitValue32(s, w, 1, grStreamWaitValueFlush));
    CHECK_GR(grErrorInvalidValue, grStreamWaitValue64(s, w + 1, 1, 0));
    tl_end_capture_empty(s);
    /* Nothing was queued: the stream is idle and the words untouched. */
    CHECK_OK(grStreamQuery(s));
    CHECK_EQ(words[0], 0ull);
    CHECK_EQ(words[1], 0ull);
    CHECK_OK(grFree(small));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(launch_blocking_does_not_block_the_caller_of_an_unmet_wait)
{
    static uint32_t word;
    static uint32_t after;
    unsigned int old = 0;
    __atomic_store_n(&word, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&after, 0, __ATOMIC_SEQ_CST);
    grStream_t s = tl_stream(0);
    CHECK_OK(grGetDebugFlags(&old));
    CHECK_OK(grSetDebugFlags(old | grDebugLaunchBlocking));
    CHECK_OK(grStreamWaitValue32(s, &word, 1, grStreamWaitValueEq)); /* returns at once */
    CHECK_OK(grSetDebugFlags(old));
    CHECK_OK(grStreamWriteValue32(s, &after, 2, 0));
    CHECK(tl_still_waiting(s));
    __atomic_store_n(&word, 1, __ATOMIC_SEQ_CST);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(__atomic_load_n(&after, __ATOMIC_SEQ_CST), 2u);
    CHECK_OK(grStreamDestroy(s));
}
