/*
 * stress-exec-setters.c - setters, updates and enable toggles of an
 * executable on one thread while other threads launch it, on streams of
 * their own: the plan is never written while a launch reads it (the
 * ThreadSanitizer build reports any such race), and every launch runs one
 * whole set of parameters, never a mix of two. Not a benchmark.
 */
#include "../test.h"

#include "../../src/backend/plan.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SETTERS_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define SETTERS_TSAN 1
#endif
#ifdef SETTERS_TSAN
#define LAUNCHES 1500
#else
#define LAUNCHES 20000
#endif
#define LAUNCHERS 2

static atomic_long calls, torn;
static atomic_int launchers_done;

/* Two parameters that every setter gives the same value. */
static void pair_kernel(const grKernelCtx *c, void **a)
{
    (void)c;
    long x = *(long *)a[0], y = *(long *)a[1];
    if (x != y)
        atomic_fetch_add(&torn, 1);
    atomic_fetch_add(&calls, 1);
}

typedef struct launcher_arg {
    grGraphExec_t exec;
    long launches;
} launcher_arg;

static void *launcher(void *p)
{
    launcher_arg *la = p;
    grStream_t s;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    for (long i = 0; i < la->launches; i++) {
        CHECK_OK(grGraphLaunch(la->exec, s));
        if (i % 8 == 0)
            CHECK_OK(grStreamSynchronize(s));
    }
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
    atomic_fetch_add(&launchers_done, 1);
    return NULL;
}

/* A graph of two kernel nodes (2 blocks each, so that they spread over
 * the workers) with parameters (v, v). */
static grGraph_t pair_graph(grKernel_t k, long v, grGraphNode_t nodes[2])
{
    grGraph_t g;
    void *args[2] = {&v, &v};
    grKernelNodeParams kp = {k, GR_DIM3(2, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddKernelNode(&nodes[0], g, NULL, 0, &kp));
    CHECK_OK(grGraphAddKernelNode(&nodes[1], g, &nodes[0], 1, &kp));
    return g;
}

/* A kernel of fn taking two longs, registered under name. */
static grKernel_t two_long_kernel(grKernelFn fn, const char *name)
{
    size_t sz[2] = {sizeof(long), sizeof(long)};
    grKernel_t k;
    CHECK_OK(grKernelCreate(&k, fn, name, 2, sz));
    return k;
}

GR_TEST_T(exec_setters_exclude_launches_from_other_threads, 120)
{
    grKernel_t k;
    grGraphNode_t nodes[2];
    grGraphExec_t exec;
    k = two_long_kernel(pair_kernel, "setter_pair_kernel");
    grGraph_t g = pair_graph(k, 0, nodes);
    CHECK_OK(grGraphInstantiate(&exec, g, 0));

    pthread_t t[LAUNCHERS];
    launcher_arg la = {exec, LAUNCHES};
    for (int i = 0; i < LAUNCHERS; i++)
        CHECK(pthread_create(&t[i], NULL, launcher, &la) == 0);
    long v = 1, sets = 0;
    while (atomic_load(&launchers_done) < LAUNCHERS) {
        void *args[2] = {&v, &v};
        grKernelNodeParams kp = {k, GR_DIM3(2, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
        switch (sets % 4) {
        case 0:
        case 1:
            CHECK_OK(grGraphExecKernelNodeSetParams(exec, nodes[sets % 2], &kp));
            break;
        case 2: {
            grGraphNode_t un[2];
            grGraph_t u = pair_graph(k, v, un);
            grGraphExecUpdateResultInfo info;
            CHECK_OK(grGraphExecUpdate(exec, u, &info));
            CHECK_OK(grGraphDestroy(u));
            break;
        }
        default: {
            unsigned en = 2;
            CHECK_OK(grGraphNodeSetEnabled(exec, nodes[1], (unsigned)(v & 1)));
            CHECK_OK(grGraphNodeGetEnabled(exec, nodes[1], &en));
            CHECK_EQ(en, (unsigned)(v & 1));
            CHECK_OK(grGraphNodeSetEnabled(exec, nodes[1], 1));
            break;
        }
        }
        v++;
        sets++;
    }
    for (int i = 0; i < LAUNCHERS; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(atomic_load(&torn), 0);
    /* Every launch ran its first node's 2 blocks, and the second node's
     * unless a toggle had it disabled. */
    long c = atomic_load(&calls);
    CHECK(c >= 2L * LAUNCHERS * LAUNCHES && c <= 4L * LAUNCHERS * LAUNCHES);
    CHECK(sets > 0);
    CHECK_OK(grGraphExecDestroy(exec));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grKernelDestroy(k));
}

/* The bias changing hands: the thread that claimed an executable with its
 * first change keeps changing and launching it while a second thread
 * starts doing the same, which takes the bias away in the middle of the
 * owner's changes. Fresh executables each round, so every round has a
 * claim and a revocation. */
typedef struct rival_arg {
    grGraphExec_t exec;
    grKernel_t k;
    grGraphNode_t node;
    int steps;
} rival_arg;

static void set_and_launch(grGraphExec_t exec, grKernel_t k, grGraphNode_t node, long v, grStream_t s)
{
    void *args[2] = {&v, &v};
    grKernelNodeParams kp = {k, GR_DIM3(2, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphExecKernelNodeSetParams(exec, node, &kp));
    CHECK_OK(grGraphLaunch(exec, s));
}

static void *rival(void *p)
{
    rival_arg *ra = p;
    grStream_t s;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    for (int i = 0; i < ra->steps; i++)
        set_and_launch(ra->exec, ra->k, ra->node, 1000 + i, s);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
    return NULL;
}

GR_TEST_T(exec_bias_taken_away_while_its_owner_changes_the_plan, 120)
{
    grKernel_t k;
    grGraphNode_t nodes[2];
    grStream_t s;
    int rounds = 200, steps = 40;
#ifdef SETTERS_TSAN
    rounds = 40;
#endif
    k = two_long_kernel(pair_kernel, "bias_pair_kernel");
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    grGraph_t g = pair_graph(k, 0, nodes);
    long before = atomic_load(&calls);
    for (int r = 0; r < rounds; r++) {
        grGraphExec_t exec;
        pthread_t t;
        CHECK_OK(grGraphInstantiate(&exec, g, 0));
        for (int i = 0; i < 4; i++) /* claims the bias, then changes under it */
            set_and_launch(exec, k, nodes[0], i, s);
        rival_arg ra = {exec, k, nodes[1], steps};
        CHECK(pthread_create(&t, NULL, rival, &ra) == 0);
        for (int i = 0; i < steps; i++)
            set_and_launch(exec, k, nodes[i % 2], 100 + i, s);
        CHECK(pthread_join(t, NULL) == 0);
        CHECK_OK(grStreamSynchronize(s));
        CHECK_OK(grGraphExecDestroy(exec));
    }
    CHECK_EQ(atomic_load(&torn), 0);
    /* Two nodes of two blocks per launch, every launch ran. */
    CHECK_EQ(atomic_load(&calls) - before, 4L * rounds * (4 + 2 * steps));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grKernelDestroy(k));
}

/* A revocation in progress: the owner of an executable is in the middle
 * of a long change made under its bias (an update of every node), a
 * second thread begins a change of its own, which revokes the bias and
 * waits for the owner, and a third launches the executable on the stream
 * of its last launch while that wait lasts. The launch must wait for the
 * owner's change too: each of its launches runs one whole set of
 * parameters (every node the same value), and the ThreadSanitizer build
 * reports the plan read unordered with the owner's writes. The third
 * thread launches only once the owner's tag is gone from the executable
 * (read from plan.h), so that it finds the revocation begun. */

enum {
    REVOKE_NODES = 10000
};

static long revoke_seen[REVOKE_NODES];

static void note_value(const grKernelCtx *c, void **a)
{
    (void)c;
    revoke_seen[*(long *)a[0]] = *(long *)a[1];
}

/* REVOKE_NODES independent kernel nodes, node i with arguments (i, v). */
static grGraph_t value_graph(grKernel_t k, long v, grGraphNode_t *first)
{
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    for (long i = 0; i < REVOKE_NODES; i++) {
        void *args[2] = {&i, &v};
        grKernelNodeParams kp = {k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
        grGraphNode_t n;
        CHECK_OK(grGraphAddKernelNode(&n, g, NULL, 0, &kp));
        if (i == 0)
            *first = n;
    }
    return g;
}

/* The threads order themselves with relaxed atomics alone, which give
 * ThreadSanitizer no happens-before edge: what orders the launches after
 * the owner's writes must be the executable's own protocol. */
typedef struct revoke_round {
    grGraphExec_t exec;
    grGraphNode_t node;
    grStream_t last;   /* the stream of the executable's last launch */
    uintptr_t tag;     /* the owner's, while it holds the bias */
    atomic_int ready;  /* threads waiting for 'go' */
    atomic_int go;     /* the owner is about to change the plan */
    atomic_int done;   /* the owner's change is over */
    long old_v, new_v; /* the values before and after it */
    long launches, mixed;
} revoke_round;

/* Waits a little, leaving the CPU to the owner (a machine may have two). */
static void nap(void)
{
    struct timespec ts = {0, 10000};
    nanosleep(&ts, NULL);
}

static void *revoker(void *p)
{
    revoke_round *r = p;
    atomic_fetch_add_explicit(&r->ready, 1, memory_order_relaxed);
    while (!atomic_load_explicit(&r->go, memory_order_relaxed))
        nap();
    /* Changes nothing, but begins a change: revokes the owner's bias. */
    CHECK_OK(grGraphNodeSetEnabled(r->exec, r->node, 1));
    return NULL;
}

static void *late_launcher(void *p)
{
    revoke_round *r = p;
    atomic_fetch_add_explicit(&r->ready, 1, memory_order_relaxed);
    while (r->tag && atomic_load_explicit(&r->exec->owner, memory_order_relaxed) == r->tag)
        nap();
    do {
        CHECK_OK(grGraphLaunch(r->exec, r->last));
        CHECK_OK(grStreamSynchronize(r->last));
        long v = revoke_seen[0];
        CHECK(v == r->old_v || v == r->new_v);
        for (int i = 1; i < REVOKE_NODES; i++)
            if (revoke_seen[i] != v) {
                r->mixed++;
                break;
            }
        r->launches++;
    } while (!atomic_load_explicit(&r->done, memory_order_relaxed));
    return NULL;
}

GR_TEST_T(exec_launch_during_bias_revocation_waits_for_the_owners_change, 120)
{
    grKernel_t k;
    grGraphNode_t node, unode;
    grStream_t s;
    int rounds = 40;
#ifdef SETTERS_TSAN
    rounds = 10;
#endif
    k = two_long_kernel(note_value, "revoke_value_kernel");
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    grGraph_t g = value_graph(k, 1, &node), u = value_graph(k, 2, &unode);
    long mixed = 0;
    for (int round = 0; round < rounds; round++) {
        revoke_round r = {.node = node, .last = s, .old_v = 1, .new_v = 2};
        CHECK_OK(grGraphInstantiate(&r.exec, g, 0));
        /* Launched on s before anyone owns it: the last launch is on s. */
        CHECK_OK(grGraphLaunch(r.exec, s));
        CHECK_OK(grStreamSynchronize(s));
        /* This thread's first change claims the bias, where the asymmetric
         * barrier exists (elsewhere there is no bias: tag stays 0). */
        long i0 = 0, v = 1;
        void *args[2] = {&i0, &v};
        grKernelNodeParams kp = {k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
        CHECK_OK(grGraphExecKernelNodeSetParams(r.exec, node, &kp));
        r.tag = atomic_load_explicit(&r.exec->owner, memory_order_relaxed);
        pthread_t t[2];
        CHECK(pthread_create(&t[0], NULL, revoker, &r) == 0);
        CHECK(pthread_create(&t[1], NULL, late_launcher, &r) == 0);
        while (atomic_load_explicit(&r.ready, memory_order_relaxed) < 2)
            nap();
        atomic_store_explicit(&r.go, 1, memory_order_relaxed);
        grGraphExecUpdateResultInfo info;
        CHECK_OK(grGraphExecUpdate(r.exec, u, &info)); /* under the bias */
        atomic_store_explicit(&r.done, 1, memory_order_relaxed);
        CHECK(pthread_join(t[0], NULL) == 0);
        CHECK(pthread_join(t[1], NULL) == 0);
        CHECK(r.launches > 0);
        mixed += r.mixed;
        CHECK_OK(grGraphExecDestroy(r.exec));
    }
    CHECK_EQ(mixed, 0);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(u));
    CHECK_OK(grKernelDestroy(k));
}
