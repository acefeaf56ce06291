/*
 * test-stream-handoff.c - work that an application thread launches on an
 * idle stream runs whoever ends up running it: the launching thread when
 * it synchronises, another thread that synchronises, or a worker when
 * nobody does (docs/runtime.md, "Claiming a stream is cheap").
 */
#include "test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

static void raise_flag(void *p)
{
    atomic_store((atomic_int *)p, 1);
}

static void do_nothing(void *p)
{
    (void)p;
}

/* Waits up to ten seconds for *flag, calling nothing of graphrt. */
static bool flag_rises(atomic_int *flag)
{
    for (int i = 0; i < 10000; i++) {
        if (atomic_load(flag))
            return true;
        usleep(1000);
    }
    return false;
}

/* Synchronising on work makes the calling thread keep an external slot,
 * whose mailbox its later launches use. */
static void keep_a_slot(grStream_t s)
{
    CHECK_OK(grLaunchHostFunc(s, do_nothing, NULL));
    CHECK_OK(grStreamSynchronize(s));
}

static void launcher_never_synchronises(void)
{
    static atomic_int flag;
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    keep_a_slot(s);
    for (int round = 0; round < 3; round++) {
        atomic_store(&flag, 0);
        usleep(100000); /* long enough for every worker to park */
        CHECK_OK(grLaunchHostFunc(s, raise_flag, &flag));
        CHECK(flag_rises(&flag));
    }
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(stream_work_runs_when_its_launcher_never_synchronises)
{
    launcher_never_synchronises();
}

/* The same with a fence where the workers would use membarrier. */
GR_TEST(stream_work_runs_when_its_launcher_never_synchronises_without_membarrier)
{
    setenv("GRAPHRT_MEMBARRIER", "0", 1);
    CHECK_OK(grDeviceReset()); /* the next call starts a runtime that reads it */
    launcher_never_synchronises();
}

struct sync_job {
    grStream_t s;
    atomic_int *flag;
    int seen;
    grError_t err;
};

static void *synchronise(void *p)
{
    struct sync_job *j = p;
    j->err = grStreamSynchronize(j->s);
    j->seen = atomic_load(j->flag);
    return NULL;
}

GR_TEST(stream_synchronize_on_another_thread_waits_for_the_launchers_work)
{
    static atomic_int flag;
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    keep_a_slot(s);
    for (int round = 0; round < 200; round++) {
        struct sync_job j = {s, &flag, -1, grErrorUnknown};
        pthread_t t;
        atomic_store(&flag, 0);
        CHECK_OK(grLaunchHostFunc(s, raise_flag, &flag));
        CHECK_EQ(pthread_create(&t, NULL, synchronise, &j), 0);
        CHECK_EQ(pthread_join(t, NULL), 0);
        CHECK_EQ(j.err, grSuccess);
        CHECK_EQ(j.seen, 1);
    }
    CHECK_OK(grStreamDestroy(s));
}

static atomic_int exit_flag;

static void *launch_and_exit(void *p)
{
    grStream_t s = p;
    keep_a_slot(s);
    CHECK_OK(grLaunchHostFunc(s, raise_flag, &exit_flag));
    return NULL;
}

GR_TEST(stream_work_of_a_thread_that_exited_still_runs)
{
    grStream_t s;
    pthread_t t;
    CHECK_OK(grStreamCreate(&s));
    CHECK_EQ(pthread_create(&t, NULL, launch_and_exit, s), 0);
    CHECK_EQ(pthread_join(t, NULL), 0);
    CHECK(flag_rises(&exit_flag));
    CHECK_OK(grStreamSynchronize(s));
    /* and a stream destroyed with its work waiting for a claim */
    atomic_store(&exit_flag, 0);
    CHECK_EQ(pthread_create(&t, NULL, launch_and_exit, s), 0);
    CHECK_EQ(pthread_join(t, NULL), 0);
    CHECK_OK(grStreamDestroy(s));
    CHECK(flag_rises(&exit_flag));
}
