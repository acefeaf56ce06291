/*
 * test-exec-policy.c - which way a plan runs (in order on the launching
 * thread or shared with the workers) and how the owner and the helpers of
 * a launch share its nodes: white-box checks through the seam of
 * src/backend/cpu/launch_hook.h, which supplies the times each way takes
 * so that the choice is checked whatever the machine's speed and load.
 */
#include "testlib.h"

#include "../../src/backend/cpu/launch_hook.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

static void sleep_us(long us)
{
    struct timespec ts = {0, us * 1000L};
    nanosleep(&ts, NULL);
}

/* --------------------------------------------- which way a launch runs */

/* Each plan times its launches both ways, in order on one thread and
 * shared with the workers, and keeps the faster (backend/cpu/launch.c).
 * Through the seam of launch_hook.h these cases supply the times, so that
 * they check the choice whatever the machine's speed and load, and they
 * see which way each launch ran. */

typedef struct way_log {
    uint64_t ticks[2]; /* the time each way takes, as supplied */
    int ran[2];        /* launches run each way, from launch 'from' on */
    int launches, from;
    unsigned last; /* the way of the last launch */
} way_log;

static uint64_t supply_ticks(void *ctx, unsigned way, bool timed, uint64_t ticks)
{
    way_log *l = ctx;
    (void)timed;
    (void)ticks;
    if (l->launches++ >= l->from)
        l->ran[way]++;
    l->last = way;
    return l->ticks[way];
}

/* Two sleeping nodes beside a long chain of empty nodes, timed as they
 * would run: shared, the sleepers overlap and the chain runs beside them,
 * twice as fast as in order (8 ms against 4). Timed as the launch's wall
 * time over its node count, the nodes cost a fifth of a microsecond each,
 * which once kept every launch after the first in order. Launches 0-2 try
 * both ways; after that only rare tries of in order remain. */
GR_TEST(exec_launch_shares_a_graph_that_runs_faster_shared)
{
    enum {
        CHAIN = 20000,
        LAUNCHES = 100
    };
    grGraph_t g;
    grGraphNode_t root, prev, ends[3];
    setenv("GRAPHRT_WORKERS", "3", 1);
    CHECK_OK(grDeviceReset()); /* the next call starts a runtime that reads it */
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&root, g, NULL, 0));
    ends[0] = tl_add_host(g, &root, 1, tl_noop, NULL);
    ends[1] = tl_add_host(g, &root, 1, tl_noop, NULL);
    prev = root;
    for (int i = 0; i < CHAIN; i++)
        CHECK_OK(grGraphAddEmptyNode(&prev, g, &prev, 1));
    ends[2] = prev;
    CHECK_OK(grGraphAddEmptyNode(&prev, g, ends, 3));
    grGraphExec_t e = tl_instantiate(g);
    /* In ticks at about 2.5 GHz; only their ratio and size matter. */
    way_log log = {.ticks = {20000000, 10000000}, .from = 3};
    gr__launch_hook_set(supply_ticks, &log);
    for (int i = 0; i < LAUNCHES; i++)
        tl_run(e);
    gr__launch_hook_set(NULL, NULL);
    CHECK_EQ(log.launches, LAUNCHES);
    CHECK(log.ran[1] >= LAUNCHES - 3 - 3);
    CHECK_EQ(log.last, 1u);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

static void k_note_worker(const grKernelCtx *ctx, void **args)
{
    **(unsigned **)args[0] = ctx->worker;
}

/* A fan of cheap kernels that runs three times faster in order than
 * handed over node by node: after the first launches each launch runs
 * every node on one thread, but for rare tries of the other way, of which
 * there is at least one (the machine may have changed). */
GR_TEST(exec_launch_runs_cheap_nodes_in_order)
{
    enum {
        FAN = 1000,
        LAUNCHES = 200
    };
    static unsigned ran_on[FAN];
    unsigned *slot[FAN];
    grKernel_t k;
    grGraph_t g;
    grGraphNode_t root, n;
    size_t size = sizeof(unsigned *);
    setenv("GRAPHRT_WORKERS", "2", 1);
    CHECK_OK(grDeviceReset());
    CHECK_OK(grKernelCreate(&k, k_note_worker, "launch_note_worker", 1, &size));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&root, g, NULL, 0));
    for (int i = 0; i < FAN; i++) {
        slot[i] = &ran_on[i];
        void *args[1] = {&slot[i]};
        grKernelNodeParams kp = {k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
        CHECK_OK(grGraphAddKernelNode(&n, g, &root, 1, &kp));
    }
    grGraphExec_t e = tl_instantiate(g);
    way_log log = {.ticks = {20000, 60000}, .from = 3};
    gr__launch_hook_set(supply_ticks, &log);
    int split = 0; /* in-order launches whose nodes ran on several threads */
    for (int i = 0; i < LAUNCHES; i++) {
        tl_run(e);
        bool same = true;
        for (int j = 1; j < FAN; j++)
            same &= ran_on[j] == ran_on[0];
        if (log.last == 0 && !same)
            split++;
    }
    gr__launch_hook_set(NULL, NULL);
    CHECK_EQ(log.launches, LAUNCHES);
    CHECK_EQ(split, 0);
    CHECK(log.ran[0] >= LAUNCHES - 3 - 5);
    CHECK(log.ran[1] >= 1);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grKernelDestroy(k));
}

/* A root and 8 empty nodes after it, with 2 workers (a fresh runtime). */
static grGraph_t fan_of_eight_on_two_workers(void)
{
    grGraph_t g;
    grGraphNode_t root, n;
    setenv("GRAPHRT_WORKERS", "2", 1);
    CHECK_OK(grDeviceReset());
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&root, g, NULL, 0));
    for (int i = 0; i < 8; i++)
        CHECK_OK(grGraphAddEmptyNode(&n, g, &root, 1));
    return g;
}

/* Supplies the ways' times as l->ticks, but the shared way's first timed
 * launch as slow as in order: a helper late to wake. */
static bool shared_timed;

static uint64_t slow_first_shared(void *ctx, unsigned way, bool timed, uint64_t ticks)
{
    way_log *l = ctx;
    bool first = way == 1 && timed && !shared_timed;
    shared_timed |= first;
    uint64_t t = supply_ticks(ctx, way, timed, ticks);
    return first ? l->ticks[0] : t;
}

/* One slow sample of the shared way, as slow as in order, made a wide
 * plan run in order until its next try 32 launches later: a benchmark of
 * 11 replays ran at one thread's speed in some processes. A way that lost
 * by less than an eighth is tried again two launches later. */
GR_TEST(exec_launch_tries_again_soon_a_way_that_lost_by_little)
{
    enum {
        LAUNCHES = 11
    };
    grGraph_t g = fan_of_eight_on_two_workers();
    grGraphExec_t e = tl_instantiate(g);
    /* Launch 0 is shared and untimed, 1 shared (slow), 2 in order. */
    way_log log = {.ticks = {200000, 100000}, .from = 0};
    shared_timed = false;
    gr__launch_hook_set(slow_first_shared, &log);
    for (int i = 0; i < LAUNCHES; i++)
        tl_run(e);
    gr__launch_hook_set(NULL, NULL);
    CHECK_EQ(log.launches, LAUNCHES);
    CHECK_EQ(log.last, 1u);
    CHECK(log.ran[0] <= 3);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

/* When the times turn (the nodes' work changed, or the machine's load),
 * the choice follows within a few sampling periods. */
GR_TEST(exec_launch_changes_way_when_the_other_becomes_faster)
{
    enum {
        LAUNCHES = 300
    };
    grGraph_t g = fan_of_eight_on_two_workers();
    grGraphExec_t e = tl_instantiate(g);
    way_log log = {.ticks = {50000, 10000}, .from = LAUNCHES / 2 + 100};
    gr__launch_hook_set(supply_ticks, &log);
    for (int i = 0; i < LAUNCHES / 2; i++)
        tl_run(e);
    CHECK_EQ(log.last, 1u); /* shared, five times faster */
    log.ticks[0] = 10000;
    log.ticks[1] = 50000;
    for (int i = LAUNCHES / 2; i < LAUNCHES; i++)
        tl_run(e);
    gr__launch_hook_set(NULL, NULL);
    /* From 100 launches after the turn on, in order but for tries. */
    CHECK(log.ran[0] >= LAUNCHES / 2 - 100 - 3);
    CHECK_EQ(log.last, 0u);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

/* The thread that synchronises on a shared launch runs that launch's
 * nodes (its own, and those it takes back from the workers' deques while
 * it waits), never another launch's, as CUDA never runs other work on a
 * synchronising thread: here the nodes of a second executable, launched
 * on another stream and run by the workers at the same time, never run on
 * the test's thread. */
static pthread_t test_thread;
static atomic_int others_on_test_thread, others_ran;

static void note_other(void *p)
{
    (void)p;
    if (pthread_equal(pthread_self(), test_thread))
        atomic_fetch_add(&others_on_test_thread, 1);
    atomic_fetch_add(&others_ran, 1);
    sleep_us(20);
}

/* The times of a shared way five times faster, for launches of any
 * executable on any thread (no state). */
static uint64_t shared_faster(void *ctx, unsigned way, bool timed, uint64_t ticks)
{
    (void)ctx;
    (void)timed;
    (void)ticks;
    return way == 1 ? 10000 : 50000;
}

static void spin_own(void *p)
{
    (void)p;
    sleep_us(5);
}

GR_TEST(exec_launch_owner_runs_no_other_launch_nodes)
{
    enum {
        FAN = 64,
        LAUNCHES = 60
    };
    grGraph_t mine, other;
    grGraphNode_t root;
    grStream_t s1, s2;
    setenv("GRAPHRT_WORKERS", "2", 1);
    CHECK_OK(grDeviceReset());
    test_thread = pthread_self();
    atomic_store(&others_on_test_thread, 0);
    atomic_store(&others_ran, 0);
    CHECK_OK(grStreamCreateWithFlags(&s1, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&s2, grStreamNonBlocking));
    CHECK_OK(grGraphCreate(&mine, 0));
    CHECK_OK(grGraphCreate(&other, 0));
    CHECK_OK(grGraphAddEmptyNode(&root, mine, NULL, 0));
    for (int i = 0; i < FAN; i++)
        tl_add_host(mine, &root, 1, spin_own, NULL);
    CHECK_OK(grGraphAddEmptyNode(&root, other, NULL, 0));
    for (int i = 0; i < FAN; i++)
        tl_add_host(other, &root, 1, note_other, NULL);
    grGraphExec_t em = tl_instantiate(mine), eo = tl_instantiate(other);
    gr__launch_hook_set(shared_faster, NULL);
    for (int i = 0; i < LAUNCHES; i++) {
        CHECK_OK(grGraphLaunch(eo, s2));
        CHECK_OK(grGraphLaunch(em, s1));
        CHECK_OK(grStreamSynchronize(s1));
    }
    /* The workers finish the other launches; synchronising on s2 would
     * let this thread run them, rightly. Ten seconds at most. */
    for (int i = 0; i < 10000 && atomic_load(&others_ran) < FAN * LAUNCHES; i++)
        tl_sleep_ms(1);
    CHECK_EQ(atomic_load(&others_ran), FAN * LAUNCHES);
    CHECK_EQ(atomic_load(&others_on_test_thread), 0);
    CHECK_OK(grStreamSynchronize(s2));
    gr__launch_hook_set(NULL, NULL);
    CHECK_OK(grGraphExecDestroy(em));
    CHECK_OK(grGraphExecDestroy(eo));
    CHECK_OK(grGraphDestroy(mine));
    CHECK_OK(grGraphDestroy(other));
    CHECK_OK(grStreamDestroy(s1));
    CHECK_OK(grStreamDestroy(s2));
}

/* How many threads a shared launch runs at once: its owner and every
 * helper it may have (launch_helpers_max in backend/cpu/launch.c). An
 * application thread that owns a launch runs nodes beside the
 * GRAPHRT_WORKERS workers on a machine of more than two CPUs, so with 2
 * workers a fan of 3 runs on 3 threads at once; a worker that owns it has
 * the other worker as its one helper. The root notes which thread owns
 * the launch (the owner runs the roots) and how many must meet; each node
 * of the fan waits (5 s at most) for that many to arrive. The owner once
 * handed out one node per node it ran, counting workers instead of the
 * launch's helpers, and the third node waited for the owner's. */
typedef struct crowd {
    int fan; /* the nodes behind the root, set before the launch */
    atomic_int need, arrived, met, owner_was_app;
} crowd;

/* All of the fan must meet when this thread owns the launch (it and its
 * helpers), one fewer when a worker does. */
static void crowd_root(void *p)
{
    crowd *c = p;
    bool app = pthread_equal(pthread_self(), test_thread);
    atomic_store(&c->owner_was_app, app);
    atomic_store(&c->need, app ? c->fan : c->fan - 1);
}

static void crowd_meet(void *p)
{
    crowd *c = p;
    int need = atomic_load(&c->need);
    atomic_fetch_add(&c->arrived, 1);
    for (int i = 0; i < 5000 && atomic_load(&c->arrived) < need; i++)
        tl_sleep_ms(1);
    if (atomic_load(&c->arrived) >= need)
        atomic_fetch_add(&c->met, 1);
}

GR_TEST(exec_launch_owner_and_every_helper_run_nodes_at_once)
{
    enum {
        FAN = 3,
        TRIES = 50,
        APP_OWNED = 3
    };
    static crowd c;
    grGraph_t g;
    grGraphNode_t root;
    test_thread = pthread_self();
    gr__sched_cpus_set(8); /* the rule of more than two CPUs, on any machine */
    setenv("GRAPHRT_WORKERS", "2", 1);
    CHECK_OK(grDeviceReset());
    c.fan = FAN;
    CHECK_OK(grGraphCreate(&g, 0));
    root = tl_add_host(g, NULL, 0, crowd_root, &c);
    for (int i = 0; i < FAN; i++)
        tl_add_host(g, &root, 1, crowd_meet, &c);
    /* The synchronising thread usually owns the launch it waits for; a
     * worker takes it if that thread is slow to synchronise (on a loaded
     * machine), and then the rule for a worker owner is what is checked. */
    int app_owned = 0;
    for (int t = 0; t < TRIES && app_owned < APP_OWNED; t++) {
        /* A new executable's first launch is shared (docs/exec.md). */
        grGraphExec_t e = tl_instantiate(g);
        atomic_store(&c.arrived, 0);
        atomic_store(&c.met, 0);
        tl_run(e);
        CHECK_EQ(atomic_load(&c.arrived), FAN);
        CHECK_EQ(atomic_load(&c.met), FAN);
        app_owned += atomic_load(&c.owner_was_app);
        CHECK_OK(grGraphExecDestroy(e));
    }
    CHECK_OK(grGraphDestroy(g));
    gr__sched_cpus_set(0);
    CHECK_OK(grDeviceReset());
}

/* A worker that has just run a graph node polls for the next one for
 * GRAPHRT_SPIN_US, or twice as long as the node took where that is
 * longer, up to a millisecond, before it parks: the next nodes of a
 * launch of 100 us nodes come when other 100 us nodes end. */
GR_TEST(exec_launch_workers_poll_twice_a_long_node_before_parking)
{
    CHECK_EQ(gr__sched_spin_window_us(50, 0), 50u);
    CHECK_EQ(gr__sched_spin_window_us(50, 20), 50u);
    CHECK_EQ(gr__sched_spin_window_us(50, 100), 200u);
    CHECK_EQ(gr__sched_spin_window_us(50, 400), 800u);
    CHECK_EQ(gr__sched_spin_window_us(50, 100000), 1000u);
    /* A longer GRAPHRT_SPIN_US is never shortened. */
    CHECK_EQ(gr__sched_spin_window_us(5000, 3000), 5000u);
}

/* Submissions at a steady pace: the first spinner's window stretches to
 * twice the gap between the last two submissions the workers saw, up to
 * a millisecond, so that a program launching every 300 us finds a worker
 * spinning instead of paying a wake-up; a gap over a millisecond is no
 * pace to follow. (Whether the spinner then stays up on a machine depends
 * on what else wants its CPUs; no test asserts on that.) */
GR_TEST(exec_launch_spinner_follows_a_steady_pace_of_submissions)
{
    CHECK_EQ(gr__sched_cadence_span_us(100, 0), 100u);    /* no pace seen */
    CHECK_EQ(gr__sched_cadence_span_us(100, 30), 100u);   /* the window covers it */
    CHECK_EQ(gr__sched_cadence_span_us(100, 300), 600u);  /* twice the gap */
    CHECK_EQ(gr__sched_cadence_span_us(100, 700), 1000u); /* up to a millisecond */
    CHECK_EQ(gr__sched_cadence_span_us(100, 1500), 100u); /* too slow to follow */
    CHECK_EQ(gr__sched_cadence_span_us(0, 300), 0u);      /* no spinning asked for */
}

/* Where the workers alone fill the CPUs, an application thread that owns a
 * shared launch of long nodes (4 us or more each, from the plan's
 * in-order time) runs nodes with one worker fewer: it borrows a CPU, the
 * next worker to look for work sits out, and comes back once no launch
 * has used the loan for a millisecond (a seventeenth thread on 16 CPUs
 * made the nodes behind a descheduled one wait). The times come through
 * the launch hook: in order 1.5 ms or 1.5 us a node, shared a fifth of
 * that. The nodes of a fan sleep 2 ms and note whether a CPU is lent
 * while the launch's owner (which runs the root) is this thread. */
enum {
    LOAN_FAN = 5
};
static atomic_int loan_out_seen, loan_nodes;
static atomic_bool loan_app_owned;

/* The root: the launch's owner runs it. */
static void note_owner(void *p)
{
    (void)p;
    atomic_store(&loan_app_owned, pthread_equal(pthread_self(), test_thread));
}

static void note_loan(void *p)
{
    (void)p;
    tl_sleep_ms(2);
    if (atomic_load(&loan_app_owned) && gr__sched_cpu_loan_out())
        atomic_fetch_add(&loan_out_seen, 1);
    atomic_fetch_add(&loan_nodes, 1);
}

/* Waits (5 s at most) until the CPU loan, if any, is over. */
static void wait_for_loan_end(void)
{
    for (int i = 0; i < 5000 && gr__sched_cpu_loan_out(); i++)
        tl_sleep_ms(1);
    CHECK(!gr__sched_cpu_loan_out());
}

/* What run_noting_loans saw. */
typedef struct loan_log {
    int launches, app_owned; /* shared launches, those this thread owned */
    uint64_t sat_out;        /* times a worker sat out meanwhile */
} loan_log;

/* Runs 3 launches that time both ways, then shared ones until this thread
 * has owned 3 of them (a worker owns a launch when this thread is slow to
 * synchronise; 200 launches at most). */
static loan_log run_noting_loans(grGraphExec_t e, way_log *log)
{
    loan_log r = {0, 0, 0};
    for (int i = 0; i < 3; i++)
        tl_run(e);
    wait_for_loan_end();
    atomic_store(&loan_out_seen, 0);
    atomic_store(&loan_nodes, 0);
    uint64_t taken = gr__sched_cpu_loans_taken();
    while (r.app_owned < 3 && r.launches < 200) {
        tl_run(e);
        r.launches++;
        r.app_owned += atomic_load(&loan_app_owned);
    }
    CHECK_EQ(atomic_load(&loan_nodes), r.launches * LOAN_FAN);
    CHECK_EQ(log->ran[1], r.launches);
    CHECK_EQ(r.app_owned, 3);
    r.sat_out = gr__sched_cpu_loans_taken() - taken;
    wait_for_loan_end();
    return r;
}

GR_TEST(exec_launch_owner_of_long_nodes_borrows_a_cpu_where_workers_fill_them)
{
    grGraph_t g, crowd_g;
    grGraphNode_t root;
    test_thread = pthread_self();
    gr__sched_cpus_set(4); /* more than two CPUs, as many as workers */
    setenv("GRAPHRT_WORKERS", "4", 1);
    CHECK_OK(grDeviceReset());
    uint64_t tpu = gr__sched_ticks_per_us();
    CHECK(tpu > 0);
    CHECK_OK(grGraphCreate(&g, 0));
    root = tl_add_host(g, NULL, 0, note_owner, NULL);
    for (int i = 0; i < LOAN_FAN; i++)
        tl_add_host(g, &root, 1, note_loan, NULL);

    way_log log;
    memset(&log, 0, sizeof log);
    log.from = 3;
    log.ticks[0] = LOAN_FAN * 1500 * tpu;
    log.ticks[1] = log.ticks[0] / 5;
    grGraphExec_t e = tl_instantiate(g);
    gr__launch_hook_set(supply_ticks, &log);
    loan_log r = run_noting_loans(e, &log);
    CHECK(r.sat_out >= 1);
    CHECK_EQ(atomic_load(&loan_out_seen), r.app_owned * LOAN_FAN);
    CHECK_OK(grGraphExecDestroy(e));

    /* 1.5 us a node: no loan. */
    memset(&log, 0, sizeof log);
    log.from = 3;
    log.ticks[0] = LOAN_FAN * 3 * tpu / 2;
    log.ticks[1] = log.ticks[0] / 5;
    e = tl_instantiate(g);
    gr__launch_hook_set(supply_ticks, &log);
    r = run_noting_loans(e, &log);
    CHECK_EQ(r.sat_out, 0u);
    CHECK_EQ(atomic_load(&loan_out_seen), 0);
    gr__launch_hook_set(NULL, NULL);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));

    /* The worker that sat out is back: a fan that needs every worker at
     * once (and this thread, when it owns the launch) meets. A new
     * executable's first launch is shared. */
    static crowd c;
    c.fan = LOAN_FAN;
    CHECK_OK(grGraphCreate(&crowd_g, 0));
    root = tl_add_host(crowd_g, NULL, 0, crowd_root, &c);
    for (int i = 0; i < LOAN_FAN; i++)
        tl_add_host(crowd_g, &root, 1, crowd_meet, &c);
    e = tl_instantiate(crowd_g);
    tl_run(e);
    CHECK_EQ(atomic_load(&c.arrived), LOAN_FAN);
    CHECK(atomic_load(&c.met) >= LOAN_FAN - 1);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(crowd_g));
    gr__sched_cpus_set(0);
    CHECK_OK(grDeviceReset());
}

/* ------------------------------------- two threads on two CPUs, kept */

/* On two CPUs a shared launch that an application thread owns has one
 * helper; both must stay in it through its lulls. The tests hold workers
 * in host functions of other streams (each notes that it started and
 * waits, 10 s at most, to be let go), so that which thread can run what
 * is known, and end on a pair of nodes that must run at once
 * (crowd_meet, 5 s at most). */
typedef struct held {
    atomic_int started, go;
} held;

static void hold_worker(void *p)
{
    held *h = p;
    atomic_store(&h->started, 1);
    for (int i = 0; i < 10000 && !atomic_load(&h->go); i++)
        tl_sleep_ms(1);
}

/* Holds a worker with a host function on a new stream, once it runs. The
 * stream does not block the legacy stream, where the launches go. */
static grStream_t hold_a_worker(held *h)
{
    grStream_t s;
    atomic_store(&h->started, 0);
    atomic_store(&h->go, 0);
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grLaunchHostFunc(s, hold_worker, h));
    for (int i = 0; i < 10000 && !atomic_load(&h->started); i++)
        tl_sleep_ms(1);
    CHECK(atomic_load(&h->started));
    return s;
}

static void let_go(held *h, grStream_t s)
{
    atomic_store(&h->go, 1);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
}

/* A fresh runtime of n workers on n CPUs (as the runtime counts them),
 * launched from this thread. */
static void cpus_and_workers(unsigned n)
{
    char v[16];
    snprintf(v, sizeof v, "%u", n);
    test_thread = pthread_self();
    gr__sched_cpus_set(n);
    setenv("GRAPHRT_WORKERS", v, 1);
    CHECK_OK(grDeviceReset());
}

static void nothing(void *p)
{
    (void)p;
}

/* On two CPUs and two workers (a fresh runtime): a root that notes the
 * owner, then 'beside' and 'before' after it, then a pair that must meet
 * after 'before'. The first of the root's successors, 'beside', is the
 * one its owner runs next; 'before' is handed out. */
static grGraph_t pair_meets_after(crowd *c, grHostFn_t beside, void *beside_ud, grHostFn_t before)
{
    grGraph_t g;
    cpus_and_workers(2);
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t root = tl_add_host(g, NULL, 0, crowd_root, c);
    c->fan = 2;
    tl_add_host(g, &root, 1, beside, beside_ud);
    grGraphNode_t b = tl_add_host(g, &root, 1, before, NULL);
    tl_add_host(g, &b, 1, crowd_meet, c);
    tl_add_host(g, &b, 1, crowd_meet, c);
    return g;
}

/* Lets the first worker go, then waits for it to park before its
 * successors (the meeting pair) become ready. */
static held first_held;

static void let_first_go_and_wait(void *p)
{
    (void)p;
    atomic_store(&first_held.go, 1);
    tl_sleep_ms(50);
}

/* The owner ran a node it had exposed and nobody took (both workers
 * held), and that node's successors: it then counted as a helper, the
 * launch's only one on two CPUs, so no worker was woken for what it
 * exposed from there on, and the rest of the launch ran on one thread. */
GR_TEST(exec_launch_owner_running_a_node_it_exposed_still_wakes_a_helper)
{
    static crowd c;
    static held second;
    grGraph_t g = pair_meets_after(&c, nothing, NULL, let_first_go_and_wait);
    grGraphExec_t e = tl_instantiate(g);
    grStream_t s1 = hold_a_worker(&first_held), s2 = hold_a_worker(&second);
    /* No worker is free to take the launch: this thread owns it. A new
     * executable's first launch is shared. */
    tl_run(e);
    CHECK(atomic_load(&c.owner_was_app));
    CHECK_EQ(atomic_load(&c.arrived), 2);
    CHECK_EQ(atomic_load(&c.met), 2);
    let_go(&first_held, s1);
    let_go(&second, s2);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    gr__sched_cpus_set(0);
    CHECK_OK(grDeviceReset());
}

/* The first node of the fan waits until the second one has started on
 * the free worker (when this thread owns the launch); the second waits
 * long enough for the owner, with nothing to run, to fall asleep. */
static atomic_int second_started;

static void wait_for_second(void *p)
{
    crowd *c = p;
    if (!atomic_load(&c->owner_was_app))
        return;
    for (int i = 0; i < 5000 && !atomic_load(&second_started); i++)
        tl_sleep_ms(1);
}

static void second_then_lull(void *p)
{
    (void)p;
    atomic_store(&second_started, 1);
    tl_sleep_ms(50);
}

/* An owner with nothing to run sleeps until the launch ends; it slept
 * through the rest of it when a helper exposed nodes later, and on two
 * CPUs the launch ran on one thread from there on. */
GR_TEST(exec_launch_sleeping_owner_is_woken_for_nodes_a_helper_exposes)
{
    enum {
        TRIES = 20
    };
    static crowd c;
    static held second;
    grGraph_t g = pair_meets_after(&c, wait_for_second, &c, second_then_lull);
    grStream_t s2 = hold_a_worker(&second);
    /* The synchronising thread usually owns the launch; when the free
     * worker takes it instead, nothing is checked and it is tried again. */
    bool app_owned = false;
    for (int t = 0; t < TRIES && !app_owned; t++) {
        grGraphExec_t e = tl_instantiate(g);
        atomic_store(&c.arrived, 0);
        atomic_store(&c.met, 0);
        atomic_store(&second_started, 0);
        tl_run(e);
        app_owned = atomic_load(&c.owner_was_app);
        if (app_owned)
            CHECK_EQ(atomic_load(&c.met), 2);
        CHECK_OK(grGraphExecDestroy(e));
    }
    CHECK(app_owned);
    let_go(&second, s2);
    CHECK_OK(grGraphDestroy(g));
    gr__sched_cpus_set(0);
    CHECK_OK(grDeviceReset());
}

/* The helper's wait for the owner's next node (take_more in
 * backend/cpu/launch.c), where it applies and where it does not. Each
 * test makes a root that notes who owns the launch and a fan of leaves,
 * lets the workers park as soon as they are idle (GRAPHRT_SPIN_US=0) and
 * lengthens the wait to 10 s (the seam), far longer than any node. Each
 * leaf the test thread runs waits until the helpers have run the leaves
 * exposed before it and then looks, for 20 ms, whether all 'workers' are
 * parked. */
typedef struct lingering {
    int workers, exposed;
    atomic_int armed, helper_ran, owner_ran, all_parked, owner_was_app;
} lingering;

static void linger_root(void *p)
{
    lingering *l = p;
    atomic_store(&l->owner_was_app, pthread_equal(pthread_self(), test_thread));
}

static void linger_leaf(void *p)
{
    lingering *l = p;
    if (!atomic_load(&l->armed))
        return;
    if (!pthread_equal(pthread_self(), test_thread)) {
        atomic_fetch_add(&l->helper_ran, 1);
        return;
    }
    /* The owner exposed nodes before this one ('exposed' before its
     * first, at least one before each later one): the helpers run them. */
    int mine = atomic_fetch_add(&l->owner_ran, 1);
    for (int i = 0; i < 2000 && atomic_load(&l->helper_ran) < l->exposed + mine; i++)
        tl_sleep_ms(1);
    for (int i = 0; i < 20; i++) {
        if (gr__sched_parked_workers() == (unsigned)l->workers)
            atomic_store(&l->all_parked, 1);
        tl_sleep_ms(1);
    }
}

/* Launches the fan on new executables of g, 'warmups' launches unarmed
 * then one armed, until the test thread owns the armed one (20 tries:
 * when a worker owns it, nothing is checked); then checks that every
 * leaf ran once, that the helpers ran leaves, and whether all workers
 * were seen parked. */
static void linger_check(grGraph_t g, lingering *l, int fan, int warmups, bool parked)
{
    bool app_owned = false;
    for (int t = 0; t < 20 && !app_owned; t++) {
        grGraphExec_t e = tl_instantiate(g);
        atomic_store(&l->armed, 0);
        for (int i = 0; i < warmups; i++)
            tl_run(e);
        atomic_store(&l->helper_ran, 0);
        atomic_store(&l->owner_ran, 0);
        atomic_store(&l->all_parked, 0);
        atomic_store(&l->armed, 1);
        tl_run(e);
        app_owned = atomic_load(&l->owner_was_app);
        if (app_owned) {
            CHECK_EQ(atomic_load(&l->helper_ran) + atomic_load(&l->owner_ran), fan);
            CHECK(atomic_load(&l->helper_ran) >= l->exposed);
            CHECK_EQ(atomic_load(&l->all_parked), parked);
        }
        CHECK_OK(grGraphExecDestroy(e));
    }
    CHECK(app_owned);
}

/* A fan of 'fan' leaves on a fresh runtime of 'workers' workers on as
 * many CPUs (as the runtime counts them), with the wait of the seam. */
static grGraph_t linger_fan(lingering *l, int workers, int fan)
{
    setenv("GRAPHRT_SPIN_US", "0", 1);
    cpus_and_workers((unsigned)workers);
    gr__exec_helper_linger_set(10000000);
    l->workers = workers;
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t root = tl_add_host(g, NULL, 0, linger_root, l);
    for (int i = 0; i < fan; i++)
        tl_add_host(g, &root, 1, linger_leaf, l);
    return g;
}

static void linger_done(grGraph_t g)
{
    gr__launch_hook_set(NULL, NULL);
    gr__exec_helper_linger_set(0);
    CHECK_OK(grGraphDestroy(g));
    gr__sched_cpus_set(0);
    CHECK_OK(grDeviceReset());
}

/* A helper that has run out of nodes waits a moment for the owner to
 * expose the next instead of leaving the launch. Leaving, it made the
 * owner's next exposure find room for a helper and wake a parked worker:
 * on two CPUs a third busy thread. Two workers on two CPUs: while the
 * owner runs each of its nodes, after the helper has run the one exposed
 * before it, the helper waits for the next and stays out of park. */
GR_TEST(exec_launch_helper_waits_for_the_owner_next_node)
{
    static lingering l = {.exposed = 1};
    grGraph_t g = linger_fan(&l, 2, 8);
    linger_check(g, &l, 8, 0, false);
    CHECK(atomic_load(&l.owner_ran) >= 2);
    linger_done(g);
}

/* The times of a plan of long nodes in order (its in-order time per node)
 * whose shared way is the faster: launches run shared from the fourth. */
static uint64_t long_nodes_shared_faster(void *ctx, unsigned way, bool measured, uint64_t ticks)
{
    (void)ctx;
    (void)measured;
    (void)ticks;
    return way == 1 ? UINT64_C(1) << 40 : UINT64_C(1) << 42;
}

/* On a plan of long nodes the helper leaves at once, as the owner exposes
 * nodes too seldom for a wait to find one: it parks while the owner runs
 * its nodes. The first three launches (shared untimed, shared, in order)
 * time both ways. */
GR_TEST(exec_launch_helper_of_long_nodes_leaves_at_once)
{
    static lingering l = {.exposed = 1};
    grGraph_t g = linger_fan(&l, 2, 8);
    gr__launch_hook_set(long_nodes_shared_faster, NULL);
    linger_check(g, &l, 8, 3, true);
    linger_done(g);
}

/* Where a launch may have more than one helper, a helper out of nodes
 * leaves at once too: a worker woken in its place finds a CPU there, and
 * the wait only added helpers looking at every deque. Four workers on
 * four CPUs: once the helpers have run the four leaves the owner exposed
 * before its first, every worker must park. */
GR_TEST(exec_launch_helper_of_a_crowded_launch_leaves_at_once)
{
    static lingering l = {.exposed = 4};
    grGraph_t g = linger_fan(&l, 4, 8);
    linger_check(g, &l, 8, 0, true);
    linger_done(g);
}
