/*
 * test-wakeup.c - parked workers are woken for all the work that needs
 * them, also when it arrives faster than a woken worker gets a core
 * (publishers then leave waking the next worker to the one they woke:
 * src/runtime/sched.c, park).
 *
 * Each case starts with every worker parked and gives as many workers
 * as there are items, each item waiting (up to ten seconds) until all of
 * them have started: they only finish if every worker was woken. The
 * launching thread never synchronises before they are done, so it runs
 * none of them itself.
 */
#include "testlib.h"

#include "../../src/backend/cpu/launch_hook.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static atomic_int gate_open;

/* Holds its stream until the test opens the gate (ten seconds at most). */
static void gate(void *p)
{
    (void)p;
    for (int i = 0; i < 10000 && !atomic_load(&gate_open); i++)
        usleep(1000);
}

#define NITEMS 3

static atomic_int arrived, met, finished;

/* Arrives at the meeting point and waits there for the others. */
static void meet_everyone(void *p)
{
    (void)p;
    atomic_fetch_add(&arrived, 1);
    for (int i = 0; i < 10000 && atomic_load(&arrived) < NITEMS; i++)
        usleep(1000);
    if (atomic_load(&arrived) >= NITEMS)
        atomic_fetch_add(&met, 1);
    atomic_fetch_add(&finished, 1);
}

static void start_round(void)
{
    atomic_store(&arrived, 0);
    atomic_store(&met, 0);
    atomic_store(&finished, 0);
    usleep(100000); /* long enough for every worker to park */
}

/* Waits (up to 20 s, calling nothing of graphrt) for every item to end;
 * true if they all met. */
static bool all_met(void)
{
    for (int i = 0; i < 20000 && atomic_load(&finished) < NITEMS; i++)
        usleep(1000);
    return atomic_load(&met) == NITEMS;
}

static void use_workers(const char *n)
{
    setenv("GRAPHRT_WORKERS", n, 1);
    CHECK_OK(grDeviceReset()); /* the next call starts a runtime that reads it */
}

GR_TEST(parked_workers_all_wake_for_host_functions_on_separate_streams)
{
    grStream_t s[NITEMS];
    use_workers("3");
    for (int i = 0; i < NITEMS; i++)
        CHECK_OK(grStreamCreateWithFlags(&s[i], grStreamNonBlocking));
    for (int round = 0; round < 5; round++) {
        start_round();
        for (int i = 0; i < NITEMS; i++)
            CHECK_OK(grLaunchHostFunc(s[i], meet_everyone, NULL));
        CHECK(all_met());
    }
    for (int i = 0; i < NITEMS; i++) {
        CHECK_OK(grStreamSynchronize(s[i]));
        CHECK_OK(grStreamDestroy(s[i]));
    }
}

GR_TEST(parked_workers_all_wake_for_independent_graph_nodes)
{
    grGraph_t g;
    grGraphExec_t e;
    grStream_t s;
    grHostNodeParams hp = {meet_everyone, NULL};
    use_workers("3");
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grGraphCreate(&g, 0));
    for (int i = 0; i < NITEMS; i++) {
        grGraphNode_t n;
        CHECK_OK(grGraphAddHostNode(&n, g, NULL, 0, &hp));
    }
    /* A fresh executable each round: the first launch of a plan shares
     * its nodes with the workers; later ones may run them in order on one
     * thread when that measures faster (backend/cpu/launch.c). */
    for (int round = 0; round < 5; round++) {
        CHECK_OK(grGraphInstantiate(&e, g, 0));
        start_round();
        CHECK_OK(grGraphLaunch(e, s));
        CHECK(all_met());
        CHECK_OK(grStreamSynchronize(s));
        CHECK_OK(grGraphExecDestroy(e));
    }
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

/* Streams waiting for one event are queued again together, by the worker
 * that completes it, on its own deque, one wake-up each. The first wakes
 * a parked worker; the others find that wake-up pending, and only the
 * woken worker, which steals one stream and sees the rest, wakes the
 * next one. */
GR_TEST(parked_workers_all_wake_for_streams_released_by_one_event)
{
    grStream_t src, s[NITEMS];
    grEvent_t ev;
    use_workers("3");
    CHECK_OK(grStreamCreateWithFlags(&src, grStreamNonBlocking));
    CHECK_OK(grEventCreateWithFlags(&ev, grEventDisableTiming));
    for (int i = 0; i < NITEMS; i++)
        CHECK_OK(grStreamCreateWithFlags(&s[i], grStreamNonBlocking));
    for (int round = 0; round < 5; round++) {
        atomic_store(&gate_open, 0);
        CHECK_OK(grLaunchHostFunc(src, gate, NULL));
        CHECK_OK(grEventRecord(ev, src));
        for (int i = 0; i < NITEMS; i++) {
            CHECK_OK(grStreamWaitEvent(s[i], ev, 0));
            CHECK_OK(grLaunchHostFunc(s[i], meet_everyone, NULL));
        }
        start_round(); /* the waits suspend, and the idle workers park */
        atomic_store(&gate_open, 1);
        CHECK(all_met());
    }
    for (int i = 0; i < NITEMS; i++) {
        CHECK_OK(grStreamSynchronize(s[i]));
        CHECK_OK(grStreamDestroy(s[i]));
    }
    CHECK_OK(grStreamSynchronize(src));
    CHECK_OK(grStreamDestroy(src));
    CHECK_OK(grEventDestroy(ev));
}

/* An idle worker that spins gives its CPU to a thread that wants it, and
 * parks once a yield shows that the CPU is wanted: a spinner that only
 * paused took a third of the time of the busy threads it shared cores
 * with (src/backend/cpu/sched.c, yield_cpu). The process runs on one CPU
 * with one worker, which spins for up to a second after the launch
 * (GRAPHRT_SPIN_US); this thread then keeps the CPU busy without calling
 * graphrt. The worker must park well before its spin window ends. */
GR_TEST(idle_worker_parks_when_its_cpu_is_wanted)
{
    cpu_set_t one;
    int cpu = sched_getcpu();
    CPU_ZERO(&one);
    CPU_SET(cpu >= 0 ? cpu : 0, &one);
    /* The workers inherit the mask: the runtime starts after this. */
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
    setenv("GRAPHRT_SPIN_US", "1000000", 1);
    use_workers("1");
    grStream_t s;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grLaunchHostFunc(s, tl_noop, NULL));
    CHECK_OK(grStreamSynchronize(s));
    /* The launch woke the worker; it spins from when it gets the CPU. */
    long long start = tl_now_ms();
    while (tl_now_ms() - start < 20)
        ;
    bool parked = false;
    while (!parked && tl_now_ms() - start < 400)
        parked = gr__sched_parked_workers() == 1;
    CHECK(parked);
    CHECK_OK(grStreamDestroy(s));
}

static atomic_int go, held, started;

/* Holds its stream until 'go' is set (ten seconds at most). */
static void hold_until_go(void *p)
{
    (void)p;
    atomic_store(&held, 1);
    for (int i = 0; i < 10000 && !atomic_load(&go); i++)
        usleep(1000);
}

/* Counts itself as started, then holds its stream until the gate opens. */
static void start_then_gate(void *p)
{
    atomic_fetch_add(&started, 1);
    gate(p);
}

/* The last spinner, counted as spinning while publishers queue work, has
 * been counted on to take it, and nobody else was woken: if it stops
 * spinning without taking it (its window ran out, or a yield showed the
 * CPUs wanted), then finds the work at once instead of parking and takes
 * one item, it must wake a sleeper for the rest, or the rest waits until
 * it is done. Here an event releases two streams, each running a host
 * function that blocks until the gate opens, onto the deque of the
 * worker that completed it, which then blocks too; the spinner steals
 * one: the third worker must be woken, or the other never starts.
 *
 * GRAPHRT_DEBUG_PAUSE holds a spinner whose window ran out, still
 * counted, while the event completes; two CPUs make one spinner the
 * limit. Without debug sites the spinner is not held and the case only
 * checks the order. */
GR_TEST(last_spinner_leaving_with_work_wakes_a_sleeper_for_the_rest)
{
    grStream_t src, kick, s[2];
    grEvent_t ev;
    setenv("GRAPHRT_DEBUG_PAUSE", "spin-end:100000", 1);
    gr__sched_cpus_set(2);
    use_workers("3");
    CHECK_OK(grStreamCreateWithFlags(&src, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&kick, grStreamNonBlocking));
    CHECK_OK(grEventCreateWithFlags(&ev, grEventDisableTiming));
    for (int i = 0; i < 2; i++)
        CHECK_OK(grStreamCreateWithFlags(&s[i], grStreamNonBlocking));
    CHECK_OK(grLaunchHostFunc(src, hold_until_go, NULL));
    CHECK_OK(grEventRecord(ev, src));
    CHECK_OK(grLaunchHostFunc(src, gate, NULL));
    for (int i = 0; i < 2; i++) {
        CHECK_OK(grStreamWaitEvent(s[i], ev, 0));
        CHECK_OK(grLaunchHostFunc(s[i], start_then_gate, NULL));
    }
    /* One worker holds src; the other two park for good once the waits
     * have suspended their streams. Both may be parked a while before:
     * beside a spinner held at the pause site, with the tokens of src and
     * the waiting streams still queued; hence 'held', and a calm spell. */
    for (int i = 0, calm = 0; i < 5000 && calm < 20; i++) {
        calm = atomic_load(&held) && gr__sched_parked_workers() == 2 ? calm + 1 : 0;
        usleep(1000);
    }
    /* A launch wakes one of them, which wakes the other to spin in its
     * place and parks again once the launch has run; the spinner is held
     * once its window has run out (in a few hundred microseconds). */
    CHECK_OK(grLaunchHostFunc(kick, tl_noop, NULL));
    usleep(20000);
    atomic_store(&go, 1);
    for (int i = 0; i < 5000 && atomic_load(&started) < 2; i++)
        usleep(1000);
    CHECK_EQ(atomic_load(&started), 2);
    atomic_store(&gate_open, 1);
    for (int i = 0; i < 2; i++) {
        CHECK_OK(grStreamSynchronize(s[i]));
        CHECK_OK(grStreamDestroy(s[i]));
    }
    CHECK_OK(grStreamSynchronize(src));
    CHECK_OK(grStreamDestroy(src));
    CHECK_OK(grStreamSynchronize(kick));
    CHECK_OK(grStreamDestroy(kick));
    CHECK_OK(grEventDestroy(ev));
    gr__sched_cpus_set(0);
}
