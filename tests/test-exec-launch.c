/*
 * test-exec-launch.c - the executor: instantiate compiles a plan that runs
 * nodes in edge order (never insertion order), independent nodes run at the
 * same time, the executable outlives its graph, setters change the next
 * launch only, launches of one executable never overlap, child graphs run
 * inlined, large grids and long chains run every piece exactly once, and
 * each plan runs the way that measures faster (shared or in order).
 */
#include "testlib.h"

#include "../src/backend/cpu/launch_hook.h"

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

/* ----------------------------------------------------------- the gate */

/* The gate that tl_wait_gate holds a stream behind. */
static atomic_int gate;

static void *open_gate_later(void *p)
{
    tl_sleep_ms(50);
    atomic_store((atomic_int *)p, 1);
    return NULL;
}

/* Queues a launch of e on s behind the closed gate and starts a thread that
 * opens it a little later: a call made meanwhile that waits for the launch
 * (a setter) finds it still queued. */
static void gated_launch(grGraphExec_t e, grStream_t s, pthread_t *opener)
{
    atomic_store(&gate, 0);
    CHECK_OK(grLaunchHostFunc(s, tl_wait_gate, &gate));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK(pthread_create(opener, NULL, open_gate_later, &gate) == 0);
}

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

static void meet(void *p)
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
    tl_add_host(g, &root, 1, meet, &ud[0]);
    tl_add_host(g, &root, 1, meet, &ud[1]);
    grGraphExec_t e = tl_instantiate(g);
    tl_run(e);
    CHECK_EQ(atomic_load(&m.arrived), 2);
    CHECK_EQ(m.met[0], 1);
    CHECK_EQ(m.met[1], 1);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

/* ------------------------------------------------- graph lifetime */

static void k_store_fn(const grKernelCtx *ctx, void **args)
{
    int *cell = *(int **)args[0];
    (void)ctx;
    *cell = *(int *)args[1];
}

static grKernel_t make_store_kernel(void)
{
    grKernel_t k;
    size_t sizes[2] = {sizeof(int *), sizeof(int)};
    CHECK_OK(grKernelCreate(&k, k_store_fn, "launch_store", 2, sizes));
    return k;
}

GR_TEST(exec_launch_runs_after_its_graph_is_destroyed)
{
    int cell = 0, v = 42, *pc = &cell;
    char src[8] = "abcdefg", dst[8] = {0};
    void *args[2] = {&pc, &v};
    grGraph_t g;
    grGraphNode_t k, c;
    grKernel_t kern = make_store_kernel();
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

/* ------------------------------------------------------------ setters */

/* The setter rig: kernel K stores a value in 'cell', M copies *src to
 * 'dst', S sets 'bytes', H snapshots all three into the log and clears
 * them. A launch queued before a setter must log the old parameters, the
 * launch after it the new ones. */
typedef struct snap {
    int cell, dst, byte, tag;
} snap;

typedef struct rig {
    int cell, src_a, src_b, dst;
    unsigned char bytes[4];
    snap log[4];
    int n;
    grKernel_t kern;
    grGraph_t g;
    grGraphNode_t k, m, s, h;
    grGraphExec_t e;
    grStream_t stream;
} rig;

typedef struct snapper {
    rig *r;
    int tag;
} snapper;

static void take_snap(void *p)
{
    snapper *sn = p;
    rig *r = sn->r;
    r->log[r->n++] = (snap){r->cell, r->dst, r->bytes[0], sn->tag};
    r->cell = r->dst = 0;
    memset(r->bytes, 0, sizeof r->bytes);
}

static void rig_make(rig *r, snapper *sn)
{
    int *pc = &r->cell, v = 1;
    void *args[2] = {&pc, &v};
    memset(r, 0, sizeof *r);
    r->src_a = 100;
    r->src_b = 200;
    r->kern = make_store_kernel();
    grKernelNodeParams kp = {r->kern, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    grMemsetParams mp = {r->bytes, 0, 0x11, 1, sizeof r->bytes, 1};
    sn->r = r;
    sn->tag = 1;
    CHECK_OK(grGraphCreate(&r->g, 0));
    CHECK_OK(grGraphAddKernelNode(&r->k, r->g, NULL, 0, &kp));
    CHECK_OK(
        grGraphAddMemcpyNode1D(&r->m, r->g, &r->k, 1, &r->dst, &r->src_a, sizeof(int), grMemcpyHostToHost));
    CHECK_OK(grGraphAddMemsetNode(&r->s, r->g, &r->m, 1, &mp));
    r->h = tl_add_host(r->g, &r->s, 1, take_snap, sn);
    r->e = tl_instantiate(r->g);
    CHECK_OK(grStreamCreate(&r->stream));
}

static void rig_free(rig *r)
{
    CHECK_OK(grStreamDestroy(r->stream));
    CHECK_OK(grGraphExecDestroy(r->e));
    CHECK_OK(grGraphDestroy(r->g));
    CHECK_OK(grKernelDestroy(r->kern));
}

/* Launches behind the gate, calls 'set' while that launch is queued, then
 * launches again; returns after both have run. */
static void rig_around(rig *r, void (*set)(rig *))
{
    pthread_t opener;
    gated_launch(r->e, r->stream, &opener);
    set(r);
    CHECK_OK(grGraphLaunch(r->e, r->stream));
    CHECK_OK(grStreamSynchronize(r->stream));
    CHECK(pthread_join(opener, NULL) == 0);
    CHECK_EQ(r->n, 2);
    CHECK_EQ(r->log[0].cell, 1);
    CHECK_EQ(r->log[0].dst, 100);
    CHECK_EQ(r->log[0].byte, 0x11);
    CHECK_EQ(r->log[0].tag, 1);
}

static void set_kernel(rig *r)
{
    int *pc = &r->cell, v = 2;
    void *args[2] = {&pc, &v};
    grKernelNodeParams kp = {r->kern, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphExecKernelNodeSetParams(r->e, r->k, &kp));
}

GR_TEST(exec_kernel_node_set_params_affects_the_next_launch_only)
{
    static rig r;
    static snapper sn;
    rig_make(&r, &sn);
    rig_around(&r, set_kernel);
    CHECK_EQ(r.log[1].cell, 2);
    CHECK_EQ(r.log[1].dst, 100);
    rig_free(&r);
}

static void set_memcpy(rig *r)
{
    CHECK_OK(
        grGraphExecMemcpyNodeSetParams1D(r->e, r->m, &r->dst, &r->src_b, sizeof(int), grMemcpyHostToHost));
}

GR_TEST(exec_memcpy_node_set_params_affects_the_next_launch_only)
{
    static rig r;
    static snapper sn;
    rig_make(&r, &sn);
    rig_around(&r, set_memcpy);
    CHECK_EQ(r.log[1].dst, 200);
    CHECK_EQ(r.log[1].cell, 1);
    rig_free(&r);
}

static void set_memset(rig *r)
{
    grMemsetParams mp = {r->bytes, 0, 0x22, 1, sizeof r->bytes, 1};
    CHECK_OK(grGraphExecMemsetNodeSetParams(r->e, r->s, &mp));
}

GR_TEST(exec_memset_node_set_params_affects_the_next_launch_only)
{
    static rig r;
    static snapper sn;
    rig_make(&r, &sn);
    rig_around(&r, set_memset);
    CHECK_EQ(r.log[1].byte, 0x22);
    rig_free(&r);
}

static snapper other_snapper;

static void set_host(rig *r)
{
    other_snapper = (snapper){r, 2};
    grHostNodeParams hp = {take_snap, &other_snapper};
    CHECK_OK(grGraphExecHostNodeSetParams(r->e, r->h, &hp));
}

GR_TEST(exec_host_node_set_params_affects_the_next_launch_only)
{
    static rig r;
    static snapper sn;
    rig_make(&r, &sn);
    rig_around(&r, set_host);
    CHECK_EQ(r.log[1].tag, 2);
    rig_free(&r);
}

static void disable_all(rig *r)
{
    unsigned en = 7;
    CHECK_OK(grGraphNodeSetEnabled(r->e, r->k, 0));
    CHECK_OK(grGraphNodeSetEnabled(r->e, r->m, 0));
    CHECK_OK(grGraphNodeSetEnabled(r->e, r->s, 0));
    CHECK_OK(grGraphNodeGetEnabled(r->e, r->m, &en));
    CHECK_EQ(en, 0);
}

GR_TEST(exec_node_set_enabled_affects_the_next_launch_only)
{
    static rig r;
    static snapper sn;
    unsigned en = 7;
    rig_make(&r, &sn);
    CHECK_OK(grGraphNodeGetEnabled(r.e, r.k, &en));
    CHECK_EQ(en, 1);
    rig_around(&r, disable_all);
    CHECK_EQ(r.log[1].cell, 0);
    CHECK_EQ(r.log[1].dst, 0);
    CHECK_EQ(r.log[1].byte, 0);
    /* Re-enabled nodes run with the parameters they had. */
    CHECK_OK(grGraphNodeSetEnabled(r.e, r.k, 1));
    CHECK_OK(grGraphNodeSetEnabled(r.e, r.m, 5));
    CHECK_OK(grGraphNodeSetEnabled(r.e, r.s, 1));
    CHECK_OK(grGraphLaunch(r.e, r.stream));
    CHECK_OK(grStreamSynchronize(r.stream));
    CHECK_EQ(r.n, 3);
    CHECK_EQ(r.log[2].cell, 1);
    CHECK_EQ(r.log[2].dst, 100);
    CHECK_EQ(r.log[2].byte, 0x11);
    rig_free(&r);
}

GR_TEST(exec_node_set_enabled_refuses_other_node_types)
{
    static rig r;
    static snapper sn;
    grGraphNode_t ev_node, empty;
    grEvent_t ev;
    grGraph_t g;
    unsigned en = 7;
    rig_make(&r, &sn);
    CHECK_GR(grErrorInvalidValue, grGraphNodeSetEnabled(r.e, r.h, 0));
    CHECK_DETAIL_HAS("grGraphNodeSetEnabled: ");
    CHECK_GR(grErrorInvalidValue, grGraphNodeGetEnabled(r.e, r.h, &en));
    CHECK_EQ(en, 7);
    CHECK_GR(grErrorInvalidValue, grGraphNodeGetEnabled(r.e, r.k, NULL));
    CHECK_OK(grEventCreate(&ev));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&empty, g, NULL, 0));
    CHECK_OK(grGraphAddEventRecordNode(&ev_node, g, &empty, 1, ev));
    grGraphExec_t e = tl_instantiate(g);
    CHECK_GR(grErrorInvalidValue, grGraphNodeSetEnabled(e, empty, 0));
    CHECK_GR(grErrorInvalidValue, grGraphNodeSetEnabled(e, ev_node, 0));
    /* A node of another graph. */
    CHECK_GR(grErrorInvalidValue, grGraphNodeSetEnabled(e, r.k, 0));
    tl_run(r.e);
    CHECK_EQ(r.log[0].cell, 1); /* the refusals changed nothing */
    CHECK_EQ(r.log[0].dst, 100);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(ev));
    rig_free(&r);
}

GR_TEST(exec_setters_refuse_wrong_types_and_foreign_nodes)
{
    static rig r;
    static snapper sn;
    grHostNodeParams hp = {take_snap, &sn};
    grMemsetParams mp = {r.bytes, 0, 0x33, 1, 4, 1};
    rig_make(&r, &sn);
    CHECK_GR(grErrorInvalidValue, grGraphExecHostNodeSetParams(r.e, r.k, &hp));
    CHECK_DETAIL_HAS("not a host node");
    CHECK_GR(grErrorInvalidValue, grGraphExecMemsetNodeSetParams(r.e, r.m, &mp));
    CHECK_GR(grErrorInvalidValue, grGraphExecHostNodeSetParams(r.e, NULL, &hp));
    CHECK_GR(grErrorInvalidValue, grGraphExecHostNodeSetParams(NULL, r.h, &hp));
    tl_run(r.e);
    CHECK_EQ(r.log[0].byte, 0x11);
    CHECK_EQ(r.log[0].tag, 1);
    rig_free(&r);
}

/* The setters check parameters with the rules of the graph API (those of
 * grGraphAdd*Node) plus CUDA's limits on what an executable may change;
 * every refusal leaves the executable as it was. */
GR_TEST(exec_setters_refuse_what_an_executable_cannot_change)
{
    static rig r;
    static snapper sn;
    static unsigned char grid2d[4][8];
    rig_make(&r, &sn);
    /* Zero-length operations, as CUDA documents for both setters. */
    CHECK_GR(grErrorInvalidValue,
             grGraphExecMemcpyNodeSetParams1D(r.e, r.m, &r.dst, &r.src_b, 0, grMemcpyHostToHost));
    CHECK_DETAIL_HAS("count is 0");
    grMemsetParams empty = {r.bytes, 0, 0x44, 1, 0, 1};
    CHECK_GR(grErrorInvalidValue, grGraphExecMemsetNodeSetParams(r.e, r.s, &empty));
    CHECK_DETAIL_HAS("width is 0");
    /* A 1D memset cannot become 2D. */
    grMemsetParams two_d = {grid2d, sizeof grid2d[0], 0x44, 1, 4, 4};
    CHECK_GR(grErrorInvalidValue, grGraphExecMemsetNodeSetParams(r.e, r.s, &two_d));
    CHECK_DETAIL_HAS("cannot become 2D");
    /* The graph API's rules: a destination not aligned to its elements. */
    grMemsetParams misaligned = {r.bytes + 1, 0, 0x44, 2, 1, 1};
    CHECK_GR(grErrorInvalidValue, grGraphExecMemsetNodeSetParams(r.e, r.s, &misaligned));
    CHECK_DETAIL_HAS("not aligned");
    CHECK_GR(grErrorInvalidValue, grGraphExecHostNodeSetParams(r.e, r.h, NULL));
    tl_run(r.e);
    CHECK_EQ(r.n, 1);
    CHECK_EQ(r.log[0].dst, 100);   /* the copy still reads src_a */
    CHECK_EQ(r.log[0].byte, 0x11); /* the memset still sets 0x11 */
    CHECK_EQ(r.log[0].tag, 1);
    rig_free(&r);
}

/* A copy that reads device memory cannot be set to read host memory. */
GR_TEST(exec_memcpy_node_set_params_keeps_the_memory_types)
{
    int *dev = NULL, host = 5, out = 0, out2 = 0;
    grGraph_t g;
    grGraphNode_t m;
    CHECK_OK(grMalloc((void **)&dev, sizeof(int)));
    CHECK_OK(grMemcpy(dev, &host, sizeof(int), grMemcpyHostToDevice));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemcpyNode1D(&m, g, NULL, 0, &out, dev, sizeof(int), grMemcpyDeviceToHost));
    grGraphExec_t e = tl_instantiate(g);
    CHECK_GR(grErrorInvalidValue,
             grGraphExecMemcpyNodeSetParams1D(e, m, &out, &host, sizeof(int), grMemcpyHostToHost));
    CHECK_DETAIL_HAS("memory of another type");
    CHECK_OK(grGraphExecMemcpyNodeSetParams1D(e, m, &out2, dev, sizeof(int), grMemcpyDeviceToHost));
    tl_run(e);
    CHECK_EQ(out, 0);
    CHECK_EQ(out2, 5);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(dev));
}

/* A 2D memset may change its address and value, not its shape. */
GR_TEST(exec_memset_node_set_params_keeps_a_2d_shape)
{
    static unsigned char a[4][8], b[4][8];
    grGraph_t g;
    grGraphNode_t m;
    grMemsetParams mp = {a, sizeof a[0], 0x11, 1, 4, 3};
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemsetNode(&m, g, NULL, 0, &mp));
    grGraphExec_t e = tl_instantiate(g);
    grMemsetParams wider = {b, sizeof b[0], 0x22, 1, 5, 3};
    CHECK_GR(grErrorInvalidValue, grGraphExecMemsetNodeSetParams(e, m, &wider));
    CHECK_DETAIL_HAS("may change only its address and value");
    grMemsetParams moved = {b, sizeof b[0], 0x22, 1, 4, 3};
    CHECK_OK(grGraphExecMemsetNodeSetParams(e, m, &moved));
    tl_run(e);
    CHECK_EQ(a[0][0], 0);
    CHECK_EQ(b[2][3], 0x22);
    CHECK_EQ(b[2][4], 0); /* width 4: the fifth byte is untouched */
    CHECK_EQ(b[3][0], 0); /* height 3 */
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(exec_event_record_node_set_event_affects_the_next_launch_only)
{
    grEvent_t ev1, ev2;
    grGraph_t g;
    grGraphNode_t h, rec;
    grStream_t s;
    pthread_t opener;
    static atomic_int gate2;
    CHECK_OK(grEventCreate(&ev1));
    CHECK_OK(grEventCreate(&ev2));
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grGraphCreate(&g, 0));
    h = tl_add_host(g, NULL, 0, tl_noop, NULL);
    CHECK_OK(grGraphAddEventRecordNode(&rec, g, &h, 1, ev1));
    grGraphExec_t e = tl_instantiate(g);

    gated_launch(e, s, &opener);
    CHECK_GR(grErrorNotReady, grEventQuery(ev1)); /* recorded by the queued launch */
    CHECK_OK(grGraphExecEventRecordNodeSetEvent(e, rec, ev2));
    /* The queued launch still records ev1. Synchronize, not query: the
     * setter waits for that launch's nodes, but a timed event completes
     * with the stamp queued after the launch, a step later. */
    CHECK_OK(grEventSynchronize(ev1));
    atomic_store(&gate2, 0);
    CHECK_OK(grLaunchHostFunc(s, tl_wait_gate, &gate2));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grEventQuery(ev1)); /* not recorded again */
    CHECK_GR(grErrorNotReady, grEventQuery(ev2));
    atomic_store(&gate2, 1);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grEventQuery(ev2));
    CHECK(pthread_join(opener, NULL) == 0);
    CHECK_GR(grErrorInvalidValue, grGraphExecEventRecordNodeSetEvent(e, h, ev1));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(ev1));
    CHECK_OK(grEventDestroy(ev2));
}

typedef struct wait_rig {
    atomic_int passed; /* set by the host function ev_b follows */
    int seen[4];
    int n;
    atomic_int gate_b;
} wait_rig;

static void pass_gate_b(void *p)
{
    wait_rig *w = p;
    tl_wait_gate(&w->gate_b);
    atomic_store(&w->passed, 1);
}

static void see_passed(void *p)
{
    wait_rig *w = p;
    w->seen[w->n++] = atomic_load(&w->passed);
}

GR_TEST(exec_event_wait_node_set_event_affects_the_next_launch_only)
{
    static wait_rig w;
    grEvent_t ev_a, ev_b;
    grGraph_t g;
    grGraphNode_t wn;
    grStream_t s, t;
    pthread_t opener;
    CHECK_OK(grEventCreate(&ev_a)); /* never recorded: a wait on it passes */
    CHECK_OK(grEventCreate(&ev_b));
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grStreamCreate(&t));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEventWaitNode(&wn, g, NULL, 0, ev_a));
    tl_add_host(g, &wn, 1, see_passed, &w);
    grGraphExec_t e = tl_instantiate(g);

    gated_launch(e, s, &opener);
    CHECK_OK(grGraphExecEventWaitNodeSetEvent(e, wn, ev_b));
    CHECK_EQ(w.n, 1); /* the setter waited for the queued launch */
    CHECK_EQ(w.seen[0], 0);
    CHECK_OK(grLaunchHostFunc(t, pass_gate_b, &w));
    CHECK_OK(grEventRecord(ev_b, t));
    CHECK_OK(grGraphLaunch(e, s));
    atomic_store(&w.gate_b, 1);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(w.n, 2);
    CHECK_EQ(w.seen[1], 1); /* the second launch waited for ev_b */
    CHECK(pthread_join(opener, NULL) == 0);
    CHECK_OK(grStreamSynchronize(t));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grStreamDestroy(t));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(ev_a));
    CHECK_OK(grEventDestroy(ev_b));
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
    grStream_t s;
    static int cell;
    CHECK_OK(grGraphCreate(&g, 0));
    tl_add_host(g, NULL, 0, tl_noop, &cell);
    grGraphExec_t e = tl_instantiate(g);
    CHECK_OK(grStreamCreate(&s));
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
