/*
 * test-exec-launch.c - the executor: instantiate compiles a plan that runs
 * nodes in edge order (never insertion order), independent nodes run at the
 * same time, the executable outlives its graph, launches of one executable
 * never overlap, child graphs run inlined, and large grids and long chains
 * run every piece exactly once. The setters' tests are in
 * test-exec-setters.c, the choice of the way a plan runs in
 * test-exec-policy.c.
 */
#include "testlib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

/* The gate that tl_wait_gate holds a stream behind. */
static atomic_int gate;

/* ------------------------------------------------------ order of nodes */

typedef struct order_log {
    atomic_int next;
    int at[64];
} order_log;

typedef struct order_node {
    order_log *log;
    int index;
} order_node;

static void record_order(void *p)
{
    order_node *n = p;
    n->log->at[n->index] = atomic_fetch_add(&n->log->next, 1);
}

GR_TEST(exec_launch_follows_edges_not_insertion_order)
{
    /* Node i is created after node i+1, and runs before it. */
    enum {
        N = 10
    };
    static order_log log;
    static order_node ud[N];
    grGraphNode_t nodes[N];
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    for (int i = N - 1; i >= 0; i--) {
        ud[i] = (order_node){&log, i};
        nodes[i] = tl_add_host(g, NULL, 0, record_order, &ud[i]);
    }
    for (int i = N - 2; i >= 0; i--)
        CHECK_OK(grGraphAddDependencies(g, &nodes[i], &nodes[i + 1], NULL, 1));
    grGraphExec_t e = tl_instantiate(g);
    for (int rep = 0; rep < 3; rep++) {
        atomic_store(&log.next, 0);
        tl_run(e);
        for (int i = 0; i < N; i++)
            CHECK_EQ(log.at[i], i);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(exec_launch_runs_every_root_of_the_graph)
{
    static order_log log;
    static order_node ud[3];
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    for (int i = 0; i < 3; i++) {
        ud[i] = (order_node){&log, i};
        tl_add_host(g, NULL, 0, record_order, &ud[i]);
    }
    grGraphExec_t e = tl_instantiate(g);
    tl_run(e);
    CHECK_EQ(atomic_load(&log.next), 3);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

/* Two nodes that each wait (at most 5 s) for the other to arrive. */
typedef struct meeting {
    atomic_int arrived;
    int met[2];
} meeting;
typedef struct meeting_node {
    meeting *m;
    int index;
} meeting_node;

static void meet_partner(void *p)
{
    meeting_node *n = p;
    atomic_fetch_add(&n->m->arrived, 1);
    for (int i = 0; i < 5000 && atomic_load(&n->m->arrived) < 2; i++)
        tl_sleep_ms(1);
    n->m->met[n->index] = atomic_load(&n->m->arrived) >= 2;
}

GR_TEST(exec_launch_runs_independent_nodes_at_the_same_time)
{
    static meeting m;
    static meeting_node ud[2] = {{&m, 0}, {&m, 1}};
    grGraph_t g;
    grGraphNode_t root;
    setenv("GRAPHRT_WORKERS", "2", 1); /* before the runtime starts */
    CHECK_OK(grGraphCreate(&g, 0));
    root = tl_add_host(g, NULL, 0, tl_noop, NULL);
    tl_add_host(g, &root, 1, meet_partner, &ud[0]);
    tl_add_host(g, &root, 1, meet_partner, &ud[1]);
    grGraphExec_t e = tl_instantiate(g);
    tl_run(e);
    CHECK_EQ(atomic_load(&m.arrived), 2);
    CHECK_EQ(m.met[0], 1);
    CHECK_EQ(m.met[1], 1);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

/* ------------------------------------------------- graph lifetime */

GR_TEST(exec_launch_runs_after_its_graph_is_destroyed)
{
    int cell = 0, v = 42, *pc = &cell;
    char src[8] = "abcdefg", dst[8] = {0};
    void *args[2] = {&pc, &v};
    grGraph_t g;
    grGraphNode_t k, c;
    grKernel_t kern = tl_kernel_store_i32_create();
    grKernelNodeParams kp = {kern, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddKernelNode(&k, g, NULL, 0, &kp));
    CHECK_OK(grGraphAddMemcpyNode1D(&c, g, &k, 1, dst, src, sizeof src, grMemcpyHostToHost));
    grGraphExec_t e = tl_instantiate(g);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grKernelDestroy(kern));
    v = 0; /* argument values were copied when the node was added */
    tl_run(e);
    tl_run(e);
    CHECK_EQ(cell, 42);
    CHECK(strcmp(dst, "abcdefg") == 0);
    CHECK_OK(grGraphExecDestroy(e));
}

/* -------------------------------------------------------- random DAGs */

typedef struct dag_node {
    atomic_int *clock;
    int stamp, runs;
} dag_node;

static void dag_record(void *p)
{
    dag_node *d = p;
    d->stamp = atomic_fetch_add(d->clock, 1);
    d->runs++;
}

/* Builds 'count' random DAGs of 1..40 nodes (tl_random_dag: nodes
 * created in a shuffled order, edges from lower to higher index); each
 * runs in an order that respects every edge, each node exactly once per
 * launch. */
static void random_dags(uint64_t seed, int count)
{
    static dag_node ud[TL_DAG_MAX];
    static atomic_int clock;
    static tl_dag d;
    for (int iter = 0; iter < count; iter++) {
        grGraph_t g;
        for (int i = 0; i < TL_DAG_MAX; i++)
            ud[i] = (dag_node){&clock, -1, 0};
        CHECK_OK(grGraphCreate(&g, 0));
        tl_random_dag(g, &seed, TL_DAG_MAX, dag_record, ud, sizeof ud[0], &d);
        grGraphExec_t e = tl_instantiate(g);
        int launches = 1 + (iter & 1);
        for (int l = 0; l < launches; l++) {
            atomic_store(&clock, 0);
            tl_run(e);
            for (size_t k = 0; k < d.ne; k++)
                if (!(ud[d.from[k]].stamp < ud[d.to[k]].stamp))
                    GR_TEST_FAIL_("dag %d (%d nodes): edge %d -> %d ran out of order (%d, %d)", iter, d.n,
                                  d.from[k], d.to[k], ud[d.from[k]].stamp, ud[d.to[k]].stamp);
        }
        for (int i = 0; i < d.n; i++)
            CHECK_EQ(ud[i].runs, launches);
        CHECK_OK(grGraphExecDestroy(e));
        CHECK_OK(grGraphDestroy(g));
    }
}

GR_TEST_T(exec_launch_random_dags_respect_every_edge_one_worker, 120)
{
    setenv("GRAPHRT_WORKERS", "1", 1);
    random_dags(0x9e3779b97f4a7c15ull, 10000);
}

GR_TEST_T(exec_launch_random_dags_respect_every_edge_two_workers, 120)
{
    setenv("GRAPHRT_WORKERS", "2", 1);
    random_dags(0xd1b54a32d192ed03ull, 10000);
}

/* ------------------------------------------------- concurrent launches */

typedef struct overlap {
    atomic_int inside, max_inside;
    atomic_int runs[6];
} overlap;

typedef struct overlap_node {
    overlap *o;
    int index;
} overlap_node;

static void overlap_enter(void *p)
{
    overlap_node *n = p;
    int now = atomic_fetch_add(&n->o->inside, 1) + 1;
    int seen = atomic_load(&n->o->max_inside);
    while (now > seen && !atomic_compare_exchange_weak(&n->o->max_inside, &seen, now))
        ;
    atomic_fetch_add(&n->o->runs[n->index], 1);
}

static void overlap_count(void *p)
{
    overlap_node *n = p;
    atomic_fetch_add(&n->o->runs[n->index], 1);
}

static void overlap_leave(void *p)
{
    overlap_node *n = p;
    atomic_fetch_add(&n->o->runs[n->index], 1);
    atomic_fetch_sub(&n->o->inside, 1);
}

typedef struct launcher {
    grGraphExec_t e;
    grStream_t s;
    int failures;
} launcher;

static void *launch_many(void *p)
{
    launcher *l = p;
    for (int i = 0; i < 200; i++)
        if (grGraphLaunch(l->e, l->s) != grSuccess)
            l->failures++;
    return NULL;
}

GR_TEST_T(exec_launches_from_many_threads_never_overlap, 120)
{
    static overlap o;
    static overlap_node ud[6];
    grGraphNode_t start, mid[4], end;
    grGraph_t g;
    launcher l[4];
    pthread_t th[4];
    for (int i = 0; i < 6; i++)
        ud[i] = (overlap_node){&o, i};
    CHECK_OK(grGraphCreate(&g, 0));
    start = tl_add_host(g, NULL, 0, overlap_enter, &ud[0]);
    for (int i = 0; i < 4; i++)
        mid[i] = tl_add_host(g, &start, 1, overlap_count, &ud[1 + i]);
    end = tl_add_host(g, mid, 4, overlap_leave, &ud[5]);
    (void)end;
    grGraphExec_t e = tl_instantiate(g);
    for (int i = 0; i < 4; i++) {
        l[i] = (launcher){e, NULL, 0};
        CHECK_OK(grStreamCreateWithFlags(&l[i].s, grStreamNonBlocking));
    }
    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&th[i], NULL, launch_many, &l[i]) == 0);
    for (int i = 0; i < 4; i++)
        CHECK(pthread_join(th[i], NULL) == 0);
    CHECK_OK(grDeviceSynchronize());
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(l[i].failures, 0);
        CHECK_OK(grStreamDestroy(l[i].s));
    }
    for (int i = 0; i < 6; i++)
        CHECK_EQ(atomic_load(&o.runs[i]), 800);
    CHECK_EQ(atomic_load(&o.max_inside), 1);
    CHECK_EQ(atomic_load(&o.inside), 0);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

/* ------------------------------------------------------- child graphs */

/* Level d: before_d -> child(level d-1) -> after_d; level 0: one node. */
static grGraph_t nested_levels(int depth, order_node *ud)
{
    grGraph_t g;
    grGraphNode_t b, c;
    CHECK_OK(grGraphCreate(&g, 0));
    if (depth == 0) {
        tl_add_host(g, NULL, 0, record_order, &ud[0]);
        return g;
    }
    grGraph_t inner = nested_levels(depth - 1, ud);
    b = tl_add_host(g, NULL, 0, record_order, &ud[2 * depth - 1]);
    CHECK_OK(grGraphAddChildGraphNode(&c, g, &b, 1, inner));
    tl_add_host(g, &c, 1, record_order, &ud[2 * depth]);
    CHECK_OK(grGraphDestroy(inner)); /* the node holds its own copy */
    return g;
}

GR_TEST(exec_launch_runs_child_graphs_nested_three_deep_inline)
{
    static order_log log;
    static order_node ud[7];
    for (int i = 0; i < 7; i++)
        ud[i] = (order_node){&log, i};
    grGraph_t g = nested_levels(3, ud);
    grGraphExec_t e = tl_instantiate(g);
    for (int rep = 0; rep < 2; rep++) {
        atomic_store(&log.next, 0);
        tl_run(e);
        CHECK_EQ(atomic_load(&log.next), 7);
        /* before_3, before_2, before_1, inner, after_1, after_2, after_3 */
        CHECK_EQ(log.at[5], 0);
        CHECK_EQ(log.at[3], 1);
        CHECK_EQ(log.at[1], 2);
        CHECK_EQ(log.at[0], 3);
        CHECK_EQ(log.at[2], 4);
        CHECK_EQ(log.at[4], 5);
        CHECK_EQ(log.at[6], 6);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

/* ------------------------------------------------------ large kernels */

enum {
    GX = 37,
    GY = 5,
    GZ = 3
};
static atomic_int block_runs[GX * GY * GZ];
static atomic_int bad_geometry;

static void count_block(const grKernelCtx *ctx, void **args)
{
    (void)args;
    if (ctx->gridDim.x != GX || ctx->gridDim.y != GY || ctx->gridDim.z != GZ || ctx->blockDim.x != 8 ||
        ctx->blockIdx.x >= GX || ctx->blockIdx.y >= GY || ctx->blockIdx.z >= GZ) {
        atomic_fetch_add(&bad_geometry, 1);
        return;
    }
    atomic_fetch_add(&block_runs[ctx->blockIdx.x + GX * (ctx->blockIdx.y + GY * ctx->blockIdx.z)], 1);
}

GR_TEST(exec_launch_runs_every_block_of_a_large_grid_once)
{
    grKernel_t k;
    grGraph_t g;
    grGraphNode_t n;
    CHECK_OK(grKernelCreate(&k, count_block, "launch_count_block", 0, NULL));
    grKernelNodeParams kp = {k, GR_DIM3(GX, GY, GZ), GR_DIM3(8, 1, 1), 64, NULL, NULL};
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddKernelNode(&n, g, NULL, 0, &kp));
    grGraphExec_t e = tl_instantiate(g);
    for (int rep = 1; rep <= 3; rep++) {
        tl_run(e);
        for (int i = 0; i < GX * GY * GZ; i++)
            CHECK_EQ(atomic_load(&block_runs[i]), rep);
    }
    CHECK_EQ(atomic_load(&bad_geometry), 0);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grKernelDestroy(k));
}

/* ----------------------------------------------------------- refusals */

GR_TEST(exec_instantiate_refuses_device_launch_and_unknown_flags)
{
    grGraph_t g;
    grGraphNode_t n;
    grGraphExec_t e = NULL;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&n, g, NULL, 0));
    CHECK_GR(grErrorNotSupported, grGraphInstantiate(&e, g, grGraphInstantiateFlagDeviceLaunch));
    CHECK_DETAIL_HAS("DeviceLaunch");
    CHECK_PTR_EQ(e, NULL);
    CHECK_GR(grErrorInvalidValue, grGraphInstantiateWithFlags(&e, g, 1ull << 40));
    CHECK_DETAIL_HAS("unknown");
    CHECK_PTR_EQ(e, NULL);
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(NULL, g, 0));
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&e, NULL, 0));
    /* CUDA 13 (tests/probes/nodeapi.cu, memory.cu): the upload flag only
     * through WithParams; AutoFreeOnLaunch with DeviceLaunch is invalid,
     * which comes before device launch being unsupported here. */
    CHECK_GR(grErrorInvalidValue, grGraphInstantiateWithFlags(&e, g, grGraphInstantiateFlagUpload));
    CHECK_DETAIL_HAS("WithParams");
    CHECK_PTR_EQ(e, NULL);
    CHECK_GR(grErrorInvalidValue,
             grGraphInstantiate(&e, g, grGraphInstantiateFlagUpload | grGraphInstantiateFlagUseNodePriority));
    CHECK_PTR_EQ(e, NULL);
    CHECK_GR(grErrorInvalidValue,
             grGraphInstantiate(&e, g,
                                grGraphInstantiateFlagAutoFreeOnLaunch | grGraphInstantiateFlagDeviceLaunch));
    CHECK_DETAIL_HAS("AutoFreeOnLaunch");
    CHECK_PTR_EQ(e, NULL);
    CHECK_OK(grGraphInstantiate(
        &e, g, grGraphInstantiateFlagAutoFreeOnLaunch | grGraphInstantiateFlagUseNodePriority));
    tl_run(e);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(exec_launch_refuses_a_destroyed_executable)
{
    /* A queued launch keeps the executable's memory alive after destroy,
     * so the destroyed handle can be passed again safely. */
    grGraph_t g;
    static int cell;
    CHECK_OK(grGraphCreate(&g, 0));
    tl_add_host(g, NULL, 0, tl_noop, &cell);
    grGraphExec_t e = tl_instantiate(g);
    grStream_t s = tl_stream(0);
    atomic_store(&gate, 0);
    CHECK_OK(grLaunchHostFunc(s, tl_wait_gate, &gate));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(e, s));
    CHECK_DETAIL_HAS("grGraphLaunch: ");
    CHECK_GR(grErrorInvalidValue, grGraphExecDestroy(e));
    /* Opened from this thread: the checks above happen before the free. */
    atomic_store(&gate, 1);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(NULL, s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grGraphDestroy(g));
}

/* --------------------------------------------------------- long chain */

typedef struct chain_state {
    int next, errors;
} chain_state;
typedef struct chain_node {
    chain_state *st;
    int index;
} chain_node;

static void chain_step(void *p)
{
    chain_node *c = p;
    if (c->st->next % 100000 != c->index)
        c->st->errors++;
    c->st->next++;
}

GR_TEST_T(exec_launch_replays_a_100000_node_chain, 120)
{
    enum {
        N = 100000
    };
    static chain_state st;
    chain_node *ud = malloc(N * sizeof *ud);
    grGraph_t g;
    grGraphNode_t prev = NULL;
    CHECK(ud != NULL);
    CHECK_OK(grGraphCreate(&g, 0));
    for (int i = 0; i < N; i++) {
        ud[i] = (chain_node){&st, i};
        prev = tl_add_host(g, prev ? &prev : NULL, prev ? 1 : 0, chain_step, &ud[i]);
    }
    grGraphExec_t e = tl_instantiate(g);
    CHECK_OK(grGraphDestroy(g));
    tl_run(e);
    tl_run(e);
    CHECK_EQ(st.next, 2 * N);
    CHECK_EQ(st.errors, 0);
    CHECK_OK(grGraphExecDestroy(e));
    free(ud);
}
