/*
 * stress-exec-setters.c - setters, updates and enable toggles of an
 * executable on one thread while other threads launch it, on streams of
 * their own: the plan is never written while a launch reads it (the
 * ThreadSanitizer build reports any such race), and every launch runs one
 * whole set of parameters, never a mix of two. Not a benchmark.
 */
#include "test.h"

#include <pthread.h>
#include <stdatomic.h>

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

GR_TEST_T(exec_setters_exclude_launches_from_other_threads, 120)
{
    grKernel_t k;
    size_t sz[2] = {sizeof(long), sizeof(long)};
    grGraphNode_t nodes[2];
    grGraphExec_t exec;
    CHECK_OK(grKernelCreate(&k, pair_kernel, "setter_pair_kernel", 2, sz));
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
    size_t sz[2] = {sizeof(long), sizeof(long)};
    grGraphNode_t nodes[2];
    grStream_t s;
    int rounds = 200, steps = 40;
#ifdef SETTERS_TSAN
    rounds = 40;
#endif
    CHECK_OK(grKernelCreate(&k, pair_kernel, "bias_pair_kernel", 2, sz));
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
