/*
 * test-exec-update.c - grGraphExecUpdate and
 * grGraphExecChildGraphNodeSetParams: changed parameters reach the next
 * launch, nodes pair as CUDA pairs them, every refusal names its reason and
 * node and leaves the executable exactly as it was.
 */
#include "testlib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

/* The end of an update test: the executable, then the graph it was made
 * from and the graph it was updated from. */
static void update_done(grGraphExec_t e, grGraph_t g1, grGraph_t g2)
{
    CHECK_OK(grGraphExecDestroy(e));
    tl_destroy_graphs((grGraph_t[]){g1, g2}, 2);
}

/* Runs e; slots[0..n) must then hold want[0..n). */
static void run_expect_slots(grGraphExec_t e, const int *slots, const int *want, int n)
{
    tl_run(e);
    for (int i = 0; i < n; i++)
        CHECK_EQ(slots[i], want[i]);
}

/* Creates *g with one empty node, its root, which it returns. */
static grGraphNode_t graph_with_root(grGraph_t *g)
{
    grGraphNode_t r;
    CHECK_OK(grGraphCreate(g, 0));
    CHECK_OK(grGraphAddEmptyNode(&r, *g, NULL, 0));
    return r;
}

/* graph_with_root(g), then two slot writes after the root, writing *w0
 * and *w1, into two[0] and two[1]; returns the root. */
static grGraphNode_t root_and_two(grGraph_t *g, tl_slot_write *w0, tl_slot_write *w1, grGraphNode_t two[2])
{
    grGraphNode_t r = graph_with_root(g);
    two[0] = tl_add_slot_write(*g, &r, 1, w0);
    two[1] = tl_add_slot_write(*g, &r, 1, w1);
    return r;
}

/* ------------------------------------------------------------ success */

GR_TEST(exec_update_applies_changed_kernel_arguments)
{
    int buf[2] = {0, 0};
    grGraph_t g1, g2;
    CHECK_OK(grGraphCreate(&g1, 0));
    grGraphNode_t a = tl_add_set_i32(g1, NULL, 0, &buf[0], 1);
    tl_add_set_i32(g1, &a, 1, &buf[1], 2);
    grGraphExec_t e = tl_instantiate(g1);
    tl_run(e);
    CHECK_EQ(buf[0], 1);
    CHECK_EQ(buf[1], 2);

    CHECK_OK(grGraphCreate(&g2, 0));
    a = tl_add_set_i32(g2, NULL, 0, &buf[0], 10);
    tl_add_set_i32(g2, &a, 1, &buf[1], 20);
    tl_expect_updated(e, g2);
    tl_run(e);
    CHECK_EQ(buf[0], 10);
    CHECK_EQ(buf[1], 20);
    update_done(e, g1, g2);
}

GR_TEST(exec_update_applies_kernel_function_and_geometry_changes)
{
    int buf[4] = {0, 0, 0, 0};
    int *dst = buf;
    int a = 5;
    long long b = 100;
    void *args3[3] = {&dst, &a, &b};
    grGraph_t g1, g2;
    grGraphNode_t n;
    CHECK_OK(grGraphCreate(&g1, 0));
    tl_add_set_i32(g1, NULL, 0, buf, 1);
    grGraphExec_t e = tl_instantiate(g1);
    tl_run(e);
    CHECK_EQ(buf[0], 1);
    CHECK_EQ(buf[1], 0);

    /* Another function with another parameter layout, over 4 blocks. */
    CHECK_OK(grGraphCreate(&g2, 0));
    grKernelNodeParams p = {tl_kernel_sum_i32(), GR_DIM3(4, 1, 1), GR_DIM3(1, 1, 1), 0, args3, NULL};
    CHECK_OK(grGraphAddKernelNode(&n, g2, NULL, 0, &p));
    tl_expect_updated(e, g2);
    tl_run(e);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(buf[i], 105);

    /* And back to the first function: the layout changes again. */
    CHECK_OK(grGraphDestroy(g2));
    CHECK_OK(grGraphCreate(&g2, 0));
    tl_add_set_i32(g2, NULL, 0, buf, 7);
    tl_expect_updated(e, g2);
    memset(buf, 0, sizeof buf);
    tl_run(e);
    CHECK_EQ(buf[0], 7);
    CHECK_EQ(buf[1], 0);
    update_done(e, g1, g2);
}

static void mark_event_stream(void *p)
{
    atomic_fetch_add((atomic_int *)p, 1);
}

GR_TEST(exec_update_applies_host_memcpy_memset_and_event_changes)
{
    char src1[16] = "first", src2[16] = "second", dst1[16] = {0}, dst2[16] = {0};
    unsigned char ms1[8], ms2[8];
    int slot = 0;
    tl_slot_write w1 = {&slot, 1}, w2 = {&slot, 2};
    grEvent_t ev1, ev2;
    grGraph_t g1, g2;
    grGraphNode_t h, c, m, r;
    atomic_int hits = 0;
    CHECK_OK(grEventCreate(&ev1));
    CHECK_OK(grEventCreate(&ev2));
    grMemsetParams mp1 = {ms1, 0, 0x11, 1, sizeof ms1, 1};
    grMemsetParams mp2 = {ms2, 0, 0x22, 1, 4, 1};

    CHECK_OK(grGraphCreate(&g1, 0));
    h = tl_add_slot_write(g1, NULL, 0, &w1);
    CHECK_OK(grGraphAddMemcpyNode1D(&c, g1, &h, 1, dst1, src1, sizeof src1, grMemcpyHostToHost));
    CHECK_OK(grGraphAddMemsetNode(&m, g1, &c, 1, &mp1));
    CHECK_OK(grGraphAddEventRecordNode(&r, g1, &m, 1, ev1));
    grGraphExec_t e = tl_instantiate(g1);

    CHECK_OK(grGraphCreate(&g2, 0));
    h = tl_add_slot_write(g2, NULL, 0, &w2);
    CHECK_OK(grGraphAddMemcpyNode1D(&c, g2, &h, 1, dst2, src2, sizeof src2, grMemcpyHostToHost));
    CHECK_OK(grGraphAddMemsetNode(&m, g2, &c, 1, &mp2));
    CHECK_OK(grGraphAddEventRecordNode(&r, g2, &m, 1, ev2));
    tl_expect_updated(e, g2);
    memset(ms1, 0, sizeof ms1);
    memset(ms2, 0, sizeof ms2);
    tl_run(e);
    CHECK_EQ(slot, 2);
    CHECK(strcmp(dst2, "second") == 0);
    CHECK_EQ(dst1[0], 0);
    CHECK_EQ(ms2[0], 0x22);
    CHECK_EQ(ms2[3], 0x22);
    CHECK_EQ(ms2[4], 0); /* the 1D memset's width changed to 4 */
    CHECK_EQ(ms1[0], 0);
    CHECK_OK(grEventQuery(ev2));

    /* The record node now records ev2: a wait on it follows the launch. */
    grStream_t s2 = tl_stream(0);
    CHECK_OK(grGraphLaunch(e, NULL));
    CHECK_OK(grStreamWaitEvent(s2, ev2, 0));
    CHECK_OK(grLaunchHostFunc(s2, mark_event_stream, &hits));
    CHECK_OK(grStreamSynchronize(s2));
    CHECK_EQ(atomic_load(&hits), 1);
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_OK(grStreamDestroy(s2));
    update_done(e, g1, g2);
    CHECK_OK(grEventDestroy(ev1));
    CHECK_OK(grEventDestroy(ev2));
}

GR_TEST(exec_update_with_the_same_graph_after_editing_it)
{
    int buf[1] = {0};
    int *dst = buf, v = 3;
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t n = tl_add_set_i32(g, NULL, 0, buf, 1);
    grGraphExec_t e = tl_instantiate(g);
    grKernelNodeParams p = tl_set_i32_params(&dst, &v);
    CHECK_OK(grGraphKernelNodeSetParams(n, &p));
    tl_run(e);
    CHECK_EQ(buf[0], 1); /* editing the graph does not touch the executable */
    tl_expect_updated(e, g);
    tl_run(e);
    CHECK_EQ(buf[0], 3);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(exec_update_pairs_dependencies_by_edge_order_not_creation_order)
{
    int slots[2] = {0, 0};
    tl_slot_write o0 = {&slots[0], 1}, o1 = {&slots[1], 1};
    tl_slot_write n0 = {&slots[0], 2}, n1 = {&slots[1], 3}, set0 = {&slots[0], 9};
    grGraph_t g1, g2;
    grGraphNode_t d[2], two[2], a, b;
    root_and_two(&g1, &o0, &o1, d);
    CHECK_OK(grGraphAddEmptyNode(&a, g1, d, 2));
    grGraphNode_t orig_a = d[0];
    grGraphExec_t e = tl_instantiate(g1);

    /* Same shape, the middle nodes created in the other order: they pair
     * by their position in the sink's dependency list. */
    root_and_two(&g2, &n1, &n0, two);
    b = two[0];
    a = two[1];
    d[0] = a;
    d[1] = b;
    grGraphNode_t j;
    CHECK_OK(grGraphAddEmptyNode(&j, g2, d, 2));
    tl_expect_updated(e, g2);
    run_expect_slots(e, slots, (const int[]){2, 3}, 2);

    /* Setters still name nodes of the graph the executable was built
     * from, and orig_a is the node that took n0's parameters. */
    grHostNodeParams hp = {tl_write_slot, &set0};
    CHECK_OK(grGraphExecHostNodeSetParams(e, orig_a, &hp));
    CHECK_GR(grErrorInvalidValue, grGraphExecHostNodeSetParams(e, a, &hp));
    slots[0] = slots[1] = 0;
    run_expect_slots(e, slots, (const int[]){9, 3}, 2);
    update_done(e, g1, g2);
}

/* Destroyed nodes leave gaps in the creation order that instantiate and
 * update rank nodes by: pairing, parameters and setters still work. */
GR_TEST(exec_update_pairs_nodes_of_graphs_with_destroyed_nodes)
{
    int slots[3] = {0, 0, 0};
    tl_slot_write oa = {&slots[0], 1}, ob = {&slots[1], 1}, ox = {&slots[2], 7};
    tl_slot_write na = {&slots[0], 2}, nb = {&slots[1], 3}, set0 = {&slots[0], 9};
    grGraph_t g1, g2;
    grGraphNode_t r, x, a, b, d[2], j, z, two[2];
    r = root_and_two(&g1, &ox, &oa, two);
    x = two[0];
    a = two[1];
    b = tl_add_slot_write(g1, &r, 1, &ob);
    CHECK_OK(grGraphDestroyNode(x));
    d[0] = a;
    d[1] = b;
    CHECK_OK(grGraphAddEmptyNode(&j, g1, d, 2));
    grGraphExec_t e = tl_instantiate(g1);
    run_expect_slots(e, slots, (const int[]){1, 1, 0}, 3);

    /* The same topology with gaps elsewhere: a node destroyed before the
     * first one that pairs, and one between the two middle nodes. */
    CHECK_OK(grGraphCreate(&g2, 0));
    CHECK_OK(grGraphAddEmptyNode(&z, g2, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&r, g2, NULL, 0));
    CHECK_OK(grGraphDestroyNode(z));
    d[0] = tl_add_slot_write(g2, &r, 1, &na);
    CHECK_OK(grGraphAddEmptyNode(&z, g2, NULL, 0));
    CHECK_OK(grGraphDestroyNode(z));
    d[1] = tl_add_slot_write(g2, &r, 1, &nb);
    CHECK_OK(grGraphAddEmptyNode(&j, g2, d, 2));
    tl_expect_updated(e, g2);
    run_expect_slots(e, slots, (const int[]){2, 3, 0}, 3);

    grHostNodeParams hp = {tl_write_slot, &set0};
    CHECK_OK(grGraphExecHostNodeSetParams(e, a, &hp));
    run_expect_slots(e, slots, (const int[]){9, 3}, 2);
    update_done(e, g1, g2);
}

GR_TEST(exec_update_pairs_the_sinks_of_graphs_built_alike)
{
    int slots[2] = {0, 0};
    tl_slot_write o0 = {&slots[0], 1}, o1 = {&slots[1], 1};
    tl_slot_write n0 = {&slots[0], 4}, n1 = {&slots[1], 5}, set1 = {&slots[1], 8};
    grGraph_t g1, g2;
    grGraphNode_t r;
    r = graph_with_root(&g1);
    tl_add_slot_write(g1, &r, 1, &o0);
    grGraphNode_t orig_second = tl_add_slot_write(g1, &r, 1, &o1);
    grGraphExec_t e = tl_instantiate(g1);
    r = graph_with_root(&g2);
    tl_add_slot_write(g2, &r, 1, &n0);
    tl_add_slot_write(g2, &r, 1, &n1);
    tl_expect_updated(e, g2);
    grHostNodeParams hp = {tl_write_slot, &set1};
    CHECK_OK(grGraphExecHostNodeSetParams(e, orig_second, &hp));
    run_expect_slots(e, slots, (const int[]){4, 8}, 2);
    update_done(e, g1, g2);
}

/* Sinks pair in the order each last became a sink, latest first: a node
 * made a sink by an edge removal pairs before the sinks created earlier
 * (CUDA 13, tests/data/update-pairing-cuda-13.0-h100.txt). */
GR_TEST(exec_update_pairs_a_sink_made_by_an_edge_removal_first)
{
    int slots[3] = {0, 0, 0};
    tl_slot_write o = {&slots[2], 1}, n0 = {&slots[0], 10}, n1 = {&slots[1], 11}, set = {&slots[2], 99};
    grGraph_t g1, g2;
    grGraphNode_t a, b, a2, b2;
    CHECK_OK(grGraphCreate(&g1, 0));
    a = tl_add_slot_write(g1, NULL, 0, &o);
    b = tl_add_slot_write(g1, NULL, 0, &o);
    (void)a;
    grGraphExec_t e = tl_instantiate(g1);
    /* a2 -> b2, then the edge removed: a2 became a sink after b2. */
    CHECK_OK(grGraphCreate(&g2, 0));
    a2 = tl_add_slot_write(g2, NULL, 0, &n0);
    b2 = tl_add_slot_write(g2, &a2, 1, &n1);
    CHECK_OK(grGraphRemoveDependencies(g2, &a2, &b2, NULL, 1));
    tl_expect_updated(e, g2);
    run_expect_slots(e, slots, (const int[]){10, 11, 0}, 3);
    /* b, the latest sink of g1, took the place of a2, the latest of g2. */
    grHostNodeParams hp = {tl_write_slot, &set};
    CHECK_OK(grGraphExecHostNodeSetParams(e, b, &hp));
    slots[0] = slots[1] = 0;
    run_expect_slots(e, slots, (const int[]){0, 11, 99}, 3);
    update_done(e, g1, g2);
}

GR_TEST(exec_update_works_after_the_original_graph_is_destroyed)
{
    int buf[1] = {0};
    grGraph_t g1, g2;
    CHECK_OK(grGraphCreate(&g1, 0));
    grGraphNode_t a = tl_add_set_i32(g1, NULL, 0, buf, 1);
    tl_add_set_i32(g1, &a, 1, buf, 2);
    grGraphExec_t e = tl_instantiate(g1);
    CHECK_OK(grGraphDestroy(g1));
    CHECK_OK(grGraphCreate(&g2, 0));
    a = tl_add_set_i32(g2, NULL, 0, buf, 3);
    tl_add_set_i32(g2, &a, 1, buf, 4);
    tl_expect_updated(e, g2);
    tl_run(e);
    CHECK_EQ(buf[0], 4);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g2));
}

/* ------------------------------------------------------------ refusals */

/* g: a -> b -> c with a writing 1, b writing 2, c writing 3 to slots. */
typedef struct chain3 {
    int slots[3];
    tl_slot_write w[3];
    grGraph_t g;
    grGraphNode_t n[3];
    grGraphExec_t e;
    /* What the nodes of an update's graph write (7 into 'other'): a
     * refused update must leave it 0. */
    int other;
    tl_slot_write ow;
} chain3;

static void chain3_make(chain3 *c)
{
    for (int i = 0; i < 3; i++)
        c->w[i] = (tl_slot_write){&c->slots[i], i + 1};
    CHECK_OK(grGraphCreate(&c->g, 0));
    c->n[0] = tl_add_slot_write(c->g, NULL, 0, &c->w[0]);
    c->n[1] = tl_add_slot_write(c->g, &c->n[0], 1, &c->w[1]);
    c->n[2] = tl_add_slot_write(c->g, &c->n[1], 1, &c->w[2]);
    c->e = tl_instantiate(c->g);
    c->other = 0;
    c->ow = (tl_slot_write){&c->other, 7};
}

/* The executable still runs its old parameters. */
static void chain3_check_unchanged(chain3 *c)
{
    memset(c->slots, 0, sizeof c->slots);
    tl_run(c->e);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(c->slots[i], i + 1);
}

static void chain3_free(chain3 *c)
{
    CHECK_OK(grGraphExecDestroy(c->e));
    CHECK_OK(grGraphDestroy(c->g));
}

/* After a refused update from g2: the executable runs its old
 * parameters, g2's writes went nowhere (other still 0); g2 and the chain
 * go. */
static void chain3_done_unchanged(chain3 *c, grGraph_t g2)
{
    chain3_check_unchanged(c);
    CHECK_EQ(c->other, 0);
    CHECK_OK(grGraphDestroy(g2));
    chain3_free(c);
}

/* Creates *g2, a graph to update c's executable from, with a first node
 * writing c->ow, which it returns. */
static grGraphNode_t chain3_update_graph(chain3 *c, grGraph_t *g2)
{
    CHECK_OK(grGraphCreate(g2, 0));
    return tl_add_slot_write(*g2, NULL, 0, &c->ow);
}

/* Creates *g as a chain of n slot writes, n[0] -> n[1] -> ..., each
 * writing w. */
static void slot_chain(grGraph_t *g, grGraphNode_t *n, int count, tl_slot_write *w)
{
    CHECK_OK(grGraphCreate(g, 0));
    for (int i = 0; i < count; i++)
        n[i] = tl_add_slot_write(*g, i ? &n[i - 1] : NULL, i ? 1 : 0, w);
}

GR_TEST(exec_update_rejects_an_extra_node)
{
    chain3 c;
    grGraph_t g2;
    grGraphNode_t n[4];
    chain3_make(&c);
    slot_chain(&g2, n, 4, &c.ow);
    tl_expect_update_refused(c.e, g2, grGraphExecUpdateErrorTopologyChanged, NULL, NULL);
    CHECK_DETAIL_HAS("4 nodes");
    chain3_done_unchanged(&c, g2);
}

GR_TEST(exec_update_rejects_a_missing_edge)
{
    /* a -> b -> c plus a -> c, updated with a graph that lacks a -> c. */
    int slots[3] = {0, 0, 0};
    tl_slot_write w[3] = {{&slots[0], 1}, {&slots[1], 2}, {&slots[2], 3}};
    tl_slot_write x = {&slots[0], 9};
    grGraph_t g1, g2;
    grGraphNode_t n[3], d[2];
    CHECK_OK(grGraphCreate(&g1, 0));
    n[0] = tl_add_slot_write(g1, NULL, 0, &w[0]);
    n[1] = tl_add_slot_write(g1, &n[0], 1, &w[1]);
    d[0] = n[1];
    d[1] = n[0];
    n[2] = tl_add_slot_write(g1, d, 2, &w[2]);
    grGraphExec_t e = tl_instantiate(g1);
    slot_chain(&g2, n, 3, &x);
    tl_expect_update_refused(e, g2, grGraphExecUpdateErrorTopologyChanged, n[2], NULL);
    run_expect_slots(e, slots, (const int[]){1, 2, 3}, 3);
    update_done(e, g1, g2);
}

GR_TEST(exec_update_rejects_a_different_edge_naming_both_ends)
{
    /* r -> a, b; c after a and b; d after a. The update has d after b. */
    int slots[4] = {0, 0, 0, 0};
    tl_slot_write w[4] = {{&slots[0], 1}, {&slots[1], 2}, {&slots[2], 3}, {&slots[3], 4}};
    tl_slot_write x = {&slots[0], 9};
    grGraph_t g1, g2;
    grGraphNode_t a, b, c, d, ab[2];
    root_and_two(&g1, &w[0], &w[1], ab);
    a = ab[0];
    b = ab[1];
    c = tl_add_slot_write(g1, ab, 2, &w[2]);
    d = tl_add_slot_write(g1, &a, 1, &w[3]);
    grGraphExec_t e = tl_instantiate(g1);
    root_and_two(&g2, &x, &x, ab);
    a = ab[0];
    b = ab[1];
    c = tl_add_slot_write(g2, ab, 2, &x);
    d = tl_add_slot_write(g2, &b, 1, &x);
    (void)d;
    /* As CUDA 13 (tests/data/update-pairing-cuda-13.0-h100.txt, case 0):
     * the sinks pair latest first, so d pairs first and its dependency b
     * takes the old a; c's first dependency, a, then meets an a already
     * taken, and c and a are named. */
    tl_expect_update_refused(e, g2, grGraphExecUpdateErrorTopologyChanged, c, a);
    tl_run(e);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(slots[i], i + 1);
    update_done(e, g1, g2);
}

GR_TEST(exec_update_rejects_more_sink_nodes)
{
    chain3 c;
    grGraph_t g2;
    grGraphNode_t n[3];
    chain3_make(&c);
    n[0] = chain3_update_graph(&c, &g2);
    n[1] = tl_add_slot_write(g2, &n[0], 1, &c.ow);
    n[2] = tl_add_slot_write(g2, &n[0], 1, &c.ow); /* two sinks where the chain has one */
    /* As CUDA 13 (tests/data/update-pairing-cuda-13.0-h100.txt, case 1;
     * tests/probes/memory.cu, update-fewer-dependencies): sinks counted
     * first, latest sink first; n[2] has the chain's sink as counterpart,
     * n[1], the first sink beyond, is named. */
    tl_expect_update_refused(c.e, g2, grGraphExecUpdateErrorTopologyChanged, n[1], NULL);
    CHECK_DETAIL_HAS("has 2 sink nodes");
    CHECK_DETAIL_HAS("had 1");
    chain3_done_unchanged(&c, g2);
}

GR_TEST(exec_update_rejects_a_node_type_change)
{
    chain3 c;
    grGraph_t g2;
    grGraphNode_t n[3];
    chain3_make(&c);
    n[0] = chain3_update_graph(&c, &g2);
    CHECK_OK(grGraphAddEmptyNode(&n[1], g2, &n[0], 1));
    n[2] = tl_add_slot_write(g2, &n[1], 1, &c.ow);
    tl_expect_update_refused(c.e, g2, grGraphExecUpdateErrorNodeTypeChanged, n[1], NULL);
    CHECK_DETAIL_HAS("host");
    chain3_done_unchanged(&c, g2);
}

GR_TEST(exec_update_refused_late_applies_none_of_the_earlier_changes)
{
    /* The first node's kernel changes function and layout (an allocation
     * while checking), the last node's type changes: nothing applies. */
    int buf[2] = {0, 0};
    int *dst = buf, a = 1;
    long long b = 1;
    void *args3[3] = {&dst, &a, &b};
    grGraph_t g1, g2;
    grGraphNode_t n[2];
    CHECK_OK(grGraphCreate(&g1, 0));
    n[0] = tl_add_set_i32(g1, NULL, 0, &buf[0], 1);
    n[1] = tl_add_set_i32(g1, &n[0], 1, &buf[1], 2);
    grGraphExec_t e = tl_instantiate(g1);
    CHECK_OK(grGraphCreate(&g2, 0));
    grKernelNodeParams p = {tl_kernel_sum_i32(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args3, NULL};
    CHECK_OK(grGraphAddKernelNode(&n[0], g2, NULL, 0, &p));
    CHECK_OK(grGraphAddEmptyNode(&n[1], g2, &n[0], 1));
    tl_expect_update_refused(e, g2, grGraphExecUpdateErrorNodeTypeChanged, n[1], NULL);
    tl_run(e);
    CHECK_EQ(buf[0], 1);
    CHECK_EQ(buf[1], 2);
    update_done(e, g1, g2);
}

GR_TEST(exec_update_rejects_a_copy_to_memory_of_another_type)
{
    char host_src[32] = "payload", host_dst[32] = {0};
    grGraph_t g1, g2;
    grGraphNode_t n;
    void *dev = tl_malloc(32);
    CHECK_OK(grMemset(dev, 0, 32));
    CHECK_OK(grGraphCreate(&g1, 0));
    CHECK_OK(grGraphAddMemcpyNode1D(&n, g1, NULL, 0, dev, host_src, 32, grMemcpyHostToDevice));
    grGraphExec_t e = tl_instantiate(g1);
    CHECK_OK(grGraphCreate(&g2, 0));
    CHECK_OK(grGraphAddMemcpyNode1D(&n, g2, NULL, 0, host_dst, host_src, 32, grMemcpyHostToHost));
    tl_expect_update_refused(e, g2, grGraphExecUpdateErrorParametersChanged, n, NULL);
    CHECK_DETAIL_HAS("memory type");
    tl_run(e);
    CHECK(strcmp((char *)dev, "payload") == 0);
    CHECK_EQ(host_dst[0], 0);
    update_done(e, g1, g2);
    CHECK_OK(grFree(dev));
}

GR_TEST(exec_update_rejects_a_2d_memset_geometry_change)
{
    unsigned char a[64], b[64];
    grGraph_t g1, g2;
    grGraphNode_t n;
    grMemsetParams m1 = {a, 16, 0x33, 1, 8, 4};
    grMemsetParams m2 = {b, 16, 0x44, 1, 8, 3}; /* one row fewer */
    grMemsetParams m3 = {b, 16, 0x44, 1, 8, 4}; /* address and value only */
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    CHECK_OK(grGraphCreate(&g1, 0));
    CHECK_OK(grGraphAddMemsetNode(&n, g1, NULL, 0, &m1));
    grGraphExec_t e = tl_instantiate(g1);
    CHECK_OK(grGraphCreate(&g2, 0));
    CHECK_OK(grGraphAddMemsetNode(&n, g2, NULL, 0, &m2));
    tl_expect_update_refused(e, g2, grGraphExecUpdateErrorParametersChanged, n, NULL);
    tl_run(e);
    CHECK_EQ(a[3 * 16 + 7], 0x33);
    CHECK_EQ(b[0], 0);
    CHECK_OK(grGraphDestroy(g2));
    CHECK_OK(grGraphCreate(&g2, 0));
    CHECK_OK(grGraphAddMemsetNode(&n, g2, NULL, 0, &m3));
    tl_expect_updated(e, g2);
    tl_run(e);
    CHECK_EQ(b[3 * 16 + 7], 0x44);
    CHECK_EQ(b[3 * 16 + 8], 0);
    update_done(e, g1, g2);
}

GR_TEST(exec_update_rejects_bad_arguments)
{
    chain3 c;
    grGraphExecUpdateResultInfo info;
    chain3_make(&c);
    CHECK_GR(grErrorInvalidValue, grGraphExecUpdate(c.e, c.g, NULL));
    CHECK_DETAIL_HAS("resultInfo");
    memset(&info, 0x5a, sizeof info);
    CHECK_GR(grErrorInvalidValue, grGraphExecUpdate(c.e, NULL, &info));
    CHECK_EQ(info.result, grGraphExecUpdateError);
    CHECK_PTR_EQ(info.errorNode, NULL);
    CHECK_GR(grErrorInvalidValue, grGraphExecUpdate(NULL, c.g, &info));
    chain3_check_unchanged(&c);
    chain3_free(&c);
}

/* -------------------------------------------------------- child graphs */

/* top: host(slot0) -> child{ set(buf0) -> set(buf1) } -> host(slot1) */
typedef struct with_child {
    grGraph_t g, child;
    grGraphNode_t head, node, tail;
    grGraphExec_t e;
} with_child;

static void with_child_make(with_child *w, int *buf, int v0, int v1, tl_slot_write *hw)
{
    grGraphNode_t a;
    CHECK_OK(grGraphCreate(&w->child, 0));
    a = tl_add_set_i32(w->child, NULL, 0, &buf[0], v0);
    tl_add_set_i32(w->child, &a, 1, &buf[1], v1);
    CHECK_OK(grGraphCreate(&w->g, 0));
    w->head = tl_add_slot_write(w->g, NULL, 0, &hw[0]);
    CHECK_OK(grGraphAddChildGraphNode(&w->node, w->g, &w->head, 1, w->child));
    w->tail = tl_add_slot_write(w->g, &w->node, 1, &hw[1]);
    w->e = NULL;
}

static void with_child_free(with_child *w)
{
    if (w->e)
        CHECK_OK(grGraphExecDestroy(w->e));
    CHECK_OK(grGraphDestroy(w->g));
    CHECK_OK(grGraphDestroy(w->child));
}

/* A with_child graph over buf (its child sets 10 and 11), its host nodes
 * writing 1 into slots, and its executable. */
typedef struct child_rig {
    int buf[2], slots[2];
    tl_slot_write hw[2];
    with_child w;
} child_rig;

static void child_rig_make(child_rig *r)
{
    memset(r, 0, sizeof *r);
    r->hw[0] = (tl_slot_write){&r->slots[0], 1};
    r->hw[1] = (tl_slot_write){&r->slots[1], 1};
    with_child_make(&r->w, r->buf, 10, 11, r->hw);
    r->w.e = tl_instantiate(r->w.g);
}

/* Creates *child, a child graph for the rig's node, with a first node
 * setting buf[0] to v, which it returns. */
static grGraphNode_t new_child_setting(child_rig *r, grGraph_t *child, int v)
{
    CHECK_OK(grGraphCreate(child, 0));
    return tl_add_set_i32(*child, NULL, 0, &r->buf[0], v);
}

/* Runs the rig's executable: its child must set buf to b0 and b1. */
static void child_rig_run_expect(child_rig *r, int b0, int b1)
{
    tl_run(r->w.e);
    CHECK_EQ(r->buf[0], b0);
    CHECK_EQ(r->buf[1], b1);
}

/* Destroys the test's own graph (a child given to the executable), then
 * the rig. */
static void child_rig_free(child_rig *r, grGraph_t own)
{
    CHECK_OK(grGraphDestroy(own));
    with_child_free(&r->w);
}

GR_TEST(exec_update_applies_changes_inside_child_graphs)
{
    int buf[2] = {0, 0}, slots[2] = {0, 0};
    tl_slot_write hw1[2] = {{&slots[0], 1}, {&slots[1], 1}}, hw2[2] = {{&slots[0], 2}, {&slots[1], 2}};
    with_child w1, w2;
    with_child_make(&w1, buf, 10, 11, hw1);
    w1.e = tl_instantiate(w1.g);
    tl_run(w1.e);
    CHECK_EQ(buf[0], 10);
    CHECK_EQ(buf[1], 11);
    with_child_make(&w2, buf, 20, 21, hw2);
    tl_expect_updated(w1.e, w2.g);
    tl_run(w1.e);
    CHECK_EQ(buf[0], 20);
    CHECK_EQ(buf[1], 21);
    CHECK_EQ(slots[0], 2);
    CHECK_EQ(slots[1], 2);
    with_child_free(&w1);
    with_child_free(&w2);
}

/* A graph of 'depth' nested child graphs, the innermost holding a set
 * kernel writing v; each level also has a host node before its child. */
static grGraph_t nested(int depth, int *buf, int v, tl_slot_write *hw)
{
    grGraph_t g;
    grGraphNode_t h, c;
    CHECK_OK(grGraphCreate(&g, 0));
    if (depth == 0) {
        tl_add_set_i32(g, NULL, 0, buf, v);
        return g;
    }
    grGraph_t inner = nested(depth - 1, buf, v, hw);
    h = tl_add_slot_write(g, NULL, 0, &hw[depth - 1]);
    CHECK_OK(grGraphAddChildGraphNode(&c, g, &h, 1, inner));
    CHECK_OK(grGraphDestroy(inner));
    return g;
}

GR_TEST(exec_update_applies_changes_in_nested_child_graphs)
{
    int buf[1] = {0}, slots[3] = {0, 0, 0};
    tl_slot_write hw1[3] = {{&slots[0], 1}, {&slots[1], 1}, {&slots[2], 1}};
    tl_slot_write hw2[3] = {{&slots[0], 2}, {&slots[1], 3}, {&slots[2], 4}};
    grGraph_t g1 = nested(3, buf, 5, hw1);
    grGraphExec_t e = tl_instantiate(g1);
    tl_run(e);
    CHECK_EQ(buf[0], 5);
    grGraph_t g2 = nested(3, buf, 6, hw2);
    tl_expect_updated(e, g2);
    tl_run(e);
    CHECK_EQ(buf[0], 6);
    CHECK_EQ(slots[0], 2);
    CHECK_EQ(slots[1], 3);
    CHECK_EQ(slots[2], 4);
    /* One level less deep: the inlined nodes do not match. */
    grGraph_t g3 = nested(2, buf, 7, hw2);
    grGraphExecUpdateResultInfo info;
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, g3, &info));
    CHECK(info.result == grGraphExecUpdateErrorTopologyChanged ||
          info.result == grGraphExecUpdateErrorNodeTypeChanged);
    tl_run(e);
    CHECK_EQ(buf[0], 6);
    update_done(e, g1, g2);
    CHECK_OK(grGraphDestroy(g3));
}

GR_TEST(exec_update_rejects_a_topology_change_inside_a_child_graph)
{
    child_rig r;
    child_rig_make(&r);
    grGraph_t child2, g2;
    grGraphNode_t a, b, head, node;
    /* The child's two kernels run side by side instead of in a chain. */
    a = new_child_setting(&r, &child2, 30);
    b = tl_add_set_i32(child2, NULL, 0, &r.buf[1], 31);
    (void)a;
    CHECK_OK(grGraphCreate(&g2, 0));
    head = tl_add_slot_write(g2, NULL, 0, &r.hw[0]);
    CHECK_OK(grGraphAddChildGraphNode(&node, g2, &head, 1, child2));
    tl_add_slot_write(g2, &node, 1, &r.hw[1]);
    grGraphExecUpdateResultInfo info;
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(r.w.e, g2, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorTopologyChanged);
    /* CUDA 13 names no node for a child graph's topology
     * (tests/probes/memory.cu, update-child-topology); the detail does. */
    CHECK_PTR_EQ(info.errorNode, NULL);
    CHECK_PTR_EQ(info.errorFromNode, NULL);
    CHECK_DETAIL_HAS("child graph");
    (void)b;
    child_rig_run_expect(&r, 10, 11);
    CHECK_OK(grGraphDestroy(g2));
    child_rig_free(&r, child2);
}

GR_TEST(exec_child_graph_node_set_params_updates_the_inlined_nodes)
{
    child_rig r;
    child_rig_make(&r);
    grGraph_t child2;
    grGraphNode_t a;
    a = new_child_setting(&r, &child2, 40);
    tl_add_set_i32(child2, &a, 1, &r.buf[1], 41);
    CHECK_OK(grGraphExecChildGraphNodeSetParams(r.w.e, r.w.node, child2));
    child_rig_run_expect(&r, 40, 41);
    CHECK_EQ(r.slots[0], 1);
    child_rig_free(&r, child2);
}

GR_TEST(exec_child_graph_node_set_params_refuses_other_topologies_and_nodes)
{
    child_rig r;
    child_rig_make(&r);
    grGraph_t child2;
    grGraphNode_t a;
    /* One node more than the child graph has. */
    a = new_child_setting(&r, &child2, 50);
    a = tl_add_set_i32(child2, &a, 1, &r.buf[1], 51);
    tl_add_set_i32(child2, &a, 1, &r.buf[1], 52);
    /* CUDA 13: grErrorGraphExecUpdateFailure (tests/probes/memory.cu). */
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecChildGraphNodeSetParams(r.w.e, r.w.node, child2));
    CHECK_DETAIL_HAS("grGraphExecChildGraphNodeSetParams: ");
    CHECK_DETAIL_HAS("more nodes");
    CHECK_OK(grGraphDestroy(child2));
    /* A host node where the child has a kernel. */
    a = new_child_setting(&r, &child2, 50);
    tl_add_slot_write(child2, &a, 1, &r.hw[0]);
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecChildGraphNodeSetParams(r.w.e, r.w.node, child2));
    /* A node that is not a child graph node; a NULL graph. */
    CHECK_GR(grErrorInvalidValue, grGraphExecChildGraphNodeSetParams(r.w.e, r.w.head, child2));
    CHECK_DETAIL_HAS("not a child graph node");
    CHECK_GR(grErrorInvalidValue, grGraphExecChildGraphNodeSetParams(r.w.e, r.w.node, NULL));
    CHECK_GR(grErrorInvalidValue, grGraphExecChildGraphNodeSetParams(r.w.e, a, child2));
    child_rig_run_expect(&r, 10, 11);
    child_rig_free(&r, child2);
}

/* ------------------------------------------------- next launch only */

static atomic_int gate;

typedef struct value_log {
    int values[4];
    int n;
} value_log;

static void log_value(const grKernelCtx *ctx, void **args)
{
    value_log *l = *(value_log **)args[0];
    (void)ctx;
    l->values[l->n++] = *(int *)args[1];
}

GR_TEST(exec_update_affects_only_launches_issued_after_it)
{
    static value_log log;
    value_log *lp = &log;
    int v = 1;
    size_t sizes[2] = {sizeof(value_log *), sizeof(int)};
    void *args[2] = {&lp, &v};
    grKernel_t k;
    grGraph_t g1, g2;
    grGraphNode_t n;
    pthread_t opener;
    CHECK_OK(grKernelCreate(&k, log_value, "update_log_value", 2, sizes));
    grKernelNodeParams p = {k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphCreate(&g1, 0));
    CHECK_OK(grGraphAddKernelNode(&n, g1, NULL, 0, &p));
    grGraphExec_t e = tl_instantiate(g1);
    v = 2;
    CHECK_OK(grGraphCreate(&g2, 0));
    CHECK_OK(grGraphAddKernelNode(&n, g2, NULL, 0, &p));

    grStream_t s = tl_stream(0);
    atomic_store(&gate, 0);
    CHECK_OK(grLaunchHostFunc(s, tl_wait_gate, &gate));
    CHECK_OK(grGraphLaunch(e, s)); /* queued behind the closed gate */
    CHECK(pthread_create(&opener, NULL, tl_open_gate_later, &gate) == 0);
    tl_expect_updated(e, g2);
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK(pthread_join(opener, NULL) == 0);
    CHECK_EQ(log.n, 2);
    CHECK_EQ(log.values[0], 1);
    CHECK_EQ(log.values[1], 2);
    CHECK_OK(grStreamDestroy(s));
    update_done(e, g1, g2);
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(exec_update_pairs_empty_child_graphs_and_refuses_filling_them)
{
    int slots[2] = {0, 0};
    tl_slot_write hw[2] = {{&slots[0], 1}, {&slots[1], 2}}, hw2[2] = {{&slots[0], 3}, {&slots[1], 4}};
    grGraph_t empty, full, g1, g2, g3;
    grGraphNode_t h, c;
    CHECK_OK(grGraphCreate(&empty, 0));
    CHECK_OK(grGraphCreate(&full, 0));
    tl_add_slot_write(full, NULL, 0, &hw2[0]);
    CHECK_OK(grGraphCreate(&g1, 0));
    h = tl_add_slot_write(g1, NULL, 0, &hw[0]);
    CHECK_OK(grGraphAddChildGraphNode(&c, g1, &h, 1, empty));
    tl_add_slot_write(g1, &c, 1, &hw[1]);
    grGraphExec_t e = tl_instantiate(g1);
    CHECK_OK(grGraphCreate(&g2, 0));
    h = tl_add_slot_write(g2, NULL, 0, &hw2[0]);
    CHECK_OK(grGraphAddChildGraphNode(&c, g2, &h, 1, empty));
    tl_add_slot_write(g2, &c, 1, &hw2[1]);
    tl_expect_updated(e, g2);
    run_expect_slots(e, slots, (const int[]){3, 4}, 2);
    CHECK_OK(grGraphCreate(&g3, 0));
    h = tl_add_slot_write(g3, NULL, 0, &hw[0]);
    CHECK_OK(grGraphAddChildGraphNode(&c, g3, &h, 1, full));
    tl_add_slot_write(g3, &c, 1, &hw[1]);
    grGraphExecUpdateResultInfo info;
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, g3, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorTopologyChanged);
    slots[0] = slots[1] = 0;
    run_expect_slots(e, slots, (const int[]){3, 4}, 2);
    update_done(e, g1, g2);
    CHECK_OK(grGraphDestroy(g3));
    CHECK_OK(grGraphDestroy(empty));
    CHECK_OK(grGraphDestroy(full));
}

GR_TEST(exec_update_changes_a_kernel_layout_inside_a_child_graph)
{
    child_rig r;
    child_rig_make(&r);
    int *dst = &r.buf[1], a = 20;
    long long b = 2;
    void *args3[3] = {&dst, &a, &b};
    grGraph_t child2;
    grGraphNode_t n0, n1;
    n0 = new_child_setting(&r, &child2, 12);
    grKernelNodeParams p = {tl_kernel_sum_i32(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args3, NULL};
    CHECK_OK(grGraphAddKernelNode(&n1, child2, &n0, 1, &p));
    CHECK_OK(grGraphExecChildGraphNodeSetParams(r.w.e, r.w.node, child2));
    child_rig_run_expect(&r, 12, 22);
    child_rig_free(&r, child2);
}
