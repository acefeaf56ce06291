/*
 * test-exec-setters.c - the executable's node setters: each changes the
 * next launch only (a launch already queued runs with what it had), keeps
 * what the node was made with (memory types, a 2D shape), and refuses
 * other node types, foreign nodes and what an executable cannot change.
 */
#include "testlib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

/* The gate that tl_wait_gate holds a stream behind. */
static atomic_int gate;

/* Queues a launch of e on s behind the closed gate and starts a thread that
 * opens it a little later: a call made meanwhile that waits for the launch
 * (a setter) finds it still queued. */
static void gated_launch(grGraphExec_t e, grStream_t s, pthread_t *opener)
{
    atomic_store(&gate, 0);
    CHECK_OK(grLaunchHostFunc(s, tl_wait_gate, &gate));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK(pthread_create(opener, NULL, tl_open_gate_later, &gate) == 0);
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
    r->kern = tl_kernel_store_i32_create();
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

/* Runs the rig around 'set' (rig_around checks the first launch): the
 * second launch must see exactly 'want', the change 'set' made and
 * nothing else. */
static void check_second_launch(void (*set)(rig *), snap want)
{
    static rig r;
    static snapper sn;
    rig_make(&r, &sn);
    rig_around(&r, set);
    CHECK_EQ(r.log[1].cell, want.cell);
    CHECK_EQ(r.log[1].dst, want.dst);
    CHECK_EQ(r.log[1].byte, want.byte);
    CHECK_EQ(r.log[1].tag, want.tag);
    rig_free(&r);
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
    check_second_launch(set_kernel, (snap){2, 100, 0x11, 1});
}

static void set_memcpy(rig *r)
{
    CHECK_OK(
        grGraphExecMemcpyNodeSetParams1D(r->e, r->m, &r->dst, &r->src_b, sizeof(int), grMemcpyHostToHost));
}

GR_TEST(exec_memcpy_node_set_params_affects_the_next_launch_only)
{
    check_second_launch(set_memcpy, (snap){1, 200, 0x11, 1});
}

static void set_memset(rig *r)
{
    grMemsetParams mp = {r->bytes, 0, 0x22, 1, sizeof r->bytes, 1};
    CHECK_OK(grGraphExecMemsetNodeSetParams(r->e, r->s, &mp));
}

GR_TEST(exec_memset_node_set_params_affects_the_next_launch_only)
{
    check_second_launch(set_memset, (snap){1, 100, 0x22, 1});
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
    check_second_launch(set_host, (snap){1, 100, 0x11, 2});
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
    pthread_t opener;
    static atomic_int gate2;
    CHECK_OK(grEventCreate(&ev1));
    CHECK_OK(grEventCreate(&ev2));
    grStream_t s = tl_stream(0);
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
