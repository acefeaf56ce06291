/*
 * memops.c - stream memory operations: grStreamWaitValue32/64 and
 * grStreamWriteValue32/64, the driver's cuStreamWaitValue* and
 * cuStreamWriteValue* on CPU streams.
 *
 * Both are small stream operations. A wait checks its word, spins for a
 * bounded number of checks, then sleeps on one process-wide condition
 * variable with a timeout that grows from 50 microseconds to 1
 * millisecond: graphrt's own writes (write_op) broadcast it, so they wake
 * the waits at once; a store by any other means (another thread's atomic
 * store) is seen at the next timeout. A wait therefore never burns a core
 * for long, and a wait never satisfied costs about a thousand wake-ups a
 * second.
 *
 * Invariants:
 *   - no lost wake-up: a sleeper counts itself (seq_cst) before it reads
 *     the word (seq_cst) under memops_lock; a writer stores the word
 *     (seq_cst) before it reads the count, and
 *     broadcasts under the lock. Dekker: either the sleeper reads the new
 *     value, or the writer sees the sleeper and its broadcast comes after
 *     the sleeper waits;
 *   - every argument is checked before anything is queued, so a refused
 *     call leaves the stream as it was.
 */
#include "api.h"
#include "../capture/capture.h"
#include "../memory/memory.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

/* Checks a waiting thread makes before it sleeps (each a pause). */
#define GR_MEMOP_SPINS 2000u
/* The sleep's timeout: from the first to the last, doubling. */
#define GR_MEMOP_POLL_MIN_NS 50000L
#define GR_MEMOP_POLL_MAX_NS 1000000L

typedef struct gr_memop_args {
    void *addr;
    uint64_t value;
    unsigned flags;
    bool wide; /* 64-bit word */
} gr_memop_args;

static pthread_mutex_t memops_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t memops_cond;
static pthread_once_t memops_once = PTHREAD_ONCE_INIT;
static _Atomic unsigned memops_sleepers;

/* The condition variable times out on the monotonic clock. */
static void memops_init(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&memops_cond, &a);
    pthread_condattr_destroy(&a);
}

/* The word is the program's plain memory, not an _Atomic object: the
 * compiler's __atomic builtins access it atomically all the same. */
static bool satisfied(const gr_memop_args *a)
{
    uint64_t v = a->wide ? __atomic_load_n((uint64_t *)a->addr, __ATOMIC_SEQ_CST)
                         : __atomic_load_n((uint32_t *)a->addr, __ATOMIC_SEQ_CST);
    switch (a->flags) {
    case grStreamWaitValueGeq:
        return a->wide ? (int64_t)(v - a->value) >= 0 : (int32_t)(uint32_t)(v - a->value) >= 0;
    case grStreamWaitValueEq:
        return v == a->value;
    case grStreamWaitValueAnd:
        return (v & a->value) != 0;
    default: /* grStreamWaitValueNor, the flags having been checked */
        return a->wide ? ~(v | a->value) != 0 : (uint32_t) ~(v | a->value) != 0;
    }
}

static void wait_op(void *data)
{
    gr_memop_args a;
    memcpy(&a, data, sizeof a);
    for (unsigned i = 0; i < GR_MEMOP_SPINS; i++) {
        if (satisfied(&a))
            return;
        gr__cpu_relax();
    }
    pthread_once(&memops_once, memops_init);
    long poll = GR_MEMOP_POLL_MIN_NS;
    pthread_mutex_lock(&memops_lock);
    gr_fetch_add_seq_cst(&memops_sleepers, 1);
    while (!satisfied(&a)) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        t.tv_nsec += poll;
        if (t.tv_nsec >= 1000000000L) {
            t.tv_sec++;
            t.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&memops_cond, &memops_lock, &t);
        poll = poll * 2 > GR_MEMOP_POLL_MAX_NS ? GR_MEMOP_POLL_MAX_NS : poll * 2;
    }
    gr_fetch_sub_relaxed(&memops_sleepers, 1);
    pthread_mutex_unlock(&memops_lock);
}

static void write_op(void *data)
{
    gr_memop_args a;
    memcpy(&a, data, sizeof a);
    if (a.wide)
        __atomic_store_n((uint64_t *)a.addr, a.value, __ATOMIC_SEQ_CST);
    else
        __atomic_store_n((uint32_t *)a.addr, (uint32_t)a.value, __ATOMIC_SEQ_CST);
    if (gr_load_seq_cst(&memops_sleepers) > 0) {
        pthread_once(&memops_once, memops_init);
        pthread_mutex_lock(&memops_lock);
        pthread_cond_broadcast(&memops_cond);
        pthread_mutex_unlock(&memops_lock);
    }
}

static grError_t memop(const char *call, grStream_t stream, void *addr, uint64_t value, unsigned flags,
                       bool wide, bool wait)
{
    size_t size = wide ? 8 : 4;
    gr_stream *s;
    if (addr == NULL)
        return gr__fail(grErrorInvalidValue, "%s: addr is NULL; pass the word to %s", call,
                        wait ? "wait on" : "write");
    if ((uintptr_t)addr % size != 0)
        return gr__fail(grErrorInvalidValue, "%s: addr %p is not aligned to %zu bytes", call, addr, size);
    /* The codes of CUDA 13's driver, probed on an H200: it refuses
     * NoMemoryBarrier (InvalidValue) and Flush (NotSupported: the device
     * cannot flush remote writes); graphrt's CPU device answers the same. */
    if (wait ? (flags & ~grStreamWaitValueFlush) > grStreamWaitValueNor : flags != grStreamWriteValueDefault)
        return gr__fail(grErrorInvalidValue,
                        wait ? "%s: flags 0x%x is not grStreamWaitValueGeq, Eq, And or Nor"
                             : "%s: flags 0x%x is not grStreamWriteValueDefault (NoMemoryBarrier is refused, "
                               "as CUDA 13 refuses it on an H200)",
                        call, flags);
    if (wait && (flags & grStreamWaitValueFlush))
        return gr__fail(grErrorNotSupported,
                        "%s: grStreamWaitValueFlush is not supported: the device cannot flush remote writes "
                        "(as an H200 answers under CUDA 13)",
                        call);
    grError_t err = gr__mem_check_range(call, addr, size, "word");
    if (err != grSuccess || (err = gr__stream_from_handle(call, stream, &s)) != grSuccess)
        return err;
    if (GR_UNLIKELY(gr__stream_capturing(s)))
        return gr__fail(grErrorNotSupported,
                        "%s: a stream memory operation cannot be captured: graphrt has no batch memory "
                        "operation node yet (the capture goes on without it)",
                        call);
    if ((err = gr__capture_check_implicit(call, s)) != grSuccess)
        return err;
    if (s->device != 0 || gr__api_gpu_of(addr, NULL) != 0)
        return gr__fail(grErrorNotSupported,
                        "%s: stream memory operations run on CPU streams over host memory; this one uses %s",
                        call, s->device != 0 ? "a GPU stream" : "a GPU's memory");
    gr_memop_args a = {addr, value, flags, wide};
    if (wait) /* not a launch: grDebugLaunchBlocking must not block the caller on an unmet wait */
        return gr__stream_enqueue_call(call, s, wait_op, &a, sizeof a);
    return gr__launched(s, gr__stream_enqueue_call(call, s, write_op, &a, sizeof a));
}

GR_API grError_t grStreamWaitValue32(grStream_t stream, void *addr, uint32_t value, unsigned int flags)
{
    return memop("grStreamWaitValue32", stream, addr, value, flags, false, true);
}

GR_API grError_t grStreamWaitValue64(grStream_t stream, void *addr, uint64_t value, unsigned int flags)
{
    return memop("grStreamWaitValue64", stream, addr, value, flags, true, true);
}

GR_API grError_t grStreamWriteValue32(grStream_t stream, void *addr, uint32_t value, unsigned int flags)
{
    return memop("grStreamWriteValue32", stream, addr, value, flags, false, false);
}

GR_API grError_t grStreamWriteValue64(grStream_t stream, void *addr, uint64_t value, unsigned int flags)
{
    return memop("grStreamWriteValue64", stream, addr, value, flags, true, false);
}
