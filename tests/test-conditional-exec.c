/*
 * test-conditional-exec.c - conditional nodes in an executable: exec
 * update applies the bodies' parameters and refuses another conditional
 * type, takes the handle of the graph it updates from, and the node
 * setters reach body nodes (IF, WHILE, nested), refuse foreign ones and
 * race safely with updates.
 */
#include "testlib.h"

#include <pthread.h>

/* *g: an IF node on a new handle *h (default 1, assigned at each launch)
 * whose body (*body) has one node (*put), which puts 1 into *out;
 * returns its executable, run once (*out must then be 1). */
static grGraphExec_t if_put_ran(tl_cond_kernels *k, grGraph_t *g, grGraphConditionalHandle *h,
                                grGraph_t **body, int *out, grGraphNode_t *put)
{
    tl_cond_graph(g, h, 1, grGraphCondAssignDefault, grGraphCondTypeIf, 1, body);
    *put = tl_cond_add_put((*body)[0], NULL, 0, k, out, 1);
    grGraphExec_t e = tl_instantiate(*g);
    tl_run(e);
    CHECK_EQ(*out, 1);
    return e;
}

GR_TEST(cond_exec_update_applies_body_parameters)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g, *body;
    grGraphConditionalHandle h;
    grGraphExecUpdateResultInfo info;
    int out = 0;
    grGraphNode_t put;
    grGraphExec_t e = if_put_ran(&k, &g, &h, &body, &out, &put);
    int *op = &out, two = 2;
    void *args[2] = {&op, &two};
    grKernelNodeParams p = {k.put, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphKernelNodeSetParams(put, &p));
    CHECK_OK(grGraphExecUpdate(e, g, &info));
    CHECK_EQ(info.result, grGraphExecUpdateSuccess);
    tl_run(e);
    CHECK_EQ(out, 2);
    /* A body whose topology changed is refused, and the executable keeps
     * what it ran. */
    grGraphNode_t extra;
    CHECK_OK(grGraphAddEmptyNode(&extra, body[0], NULL, 0));
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, g, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorTopologyChanged);
    CHECK(info.errorNode == NULL); /* as CUDA reports it (probe) */
    out = 0;
    tl_run(e);
    CHECK_EQ(out, 2);
    tl_cond_done(e, g, &k);
}

/* An update changes parameters only: a body's node disabled with
 * grGraphNodeSetEnabled stays disabled, as a top-level node does, and the
 * body's other nodes stay enabled. */
GR_TEST(cond_exec_update_keeps_a_disabled_body_node_disabled)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g, g2, *body;
    grGraphConditionalHandle h, h2;
    grGraphExecUpdateResultInfo info;
    int out[2] = {0, 0};
    unsigned en = 9;
    tl_cond_graph(&g, &h, 1, grGraphCondAssignDefault, grGraphCondTypeIf, 1, &body);
    grGraphNode_t off = tl_cond_add_put(body[0], NULL, 0, &k, &out[0], 1);
    grGraphNode_t on = tl_cond_add_put(body[0], NULL, 0, &k, &out[1], 1);
    grGraphExec_t e = tl_instantiate(g);
    CHECK_OK(grGraphNodeSetEnabled(e, off, 0));
    tl_run(e);
    CHECK_EQ(out[0], 0);
    CHECK_EQ(out[1], 1);
    tl_cond_graph(&g2, &h2, 1, grGraphCondAssignDefault, grGraphCondTypeIf, 1, &body);
    tl_cond_add_put(body[0], NULL, 0, &k, &out[0], 2);
    tl_cond_add_put(body[0], NULL, 0, &k, &out[1], 2);
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    CHECK_EQ(info.result, grGraphExecUpdateSuccess);
    CHECK_OK(grGraphNodeGetEnabled(e, off, &en));
    CHECK_EQ(en, 0);
    CHECK_OK(grGraphNodeGetEnabled(e, on, &en));
    CHECK_EQ(en, 1);
    tl_run(e);
    CHECK_EQ(out[0], 0);
    CHECK_EQ(out[1], 2);
    /* Enabled again, it runs the parameters the update brought. */
    CHECK_OK(grGraphNodeSetEnabled(e, off, 1));
    tl_run(e);
    CHECK_EQ(out[0], 2);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(g2));
    tl_cond_kernels_free(&k);
}

GR_TEST(cond_exec_update_refuses_another_conditional_type)
{
    grGraph_t g, g2;
    grGraphConditionalHandle h, h2;
    grGraphExecUpdateResultInfo info;
    tl_cond_graph(&g, &h, 0, 0, grGraphCondTypeIf, 1, NULL);
    grGraphExec_t e = tl_instantiate(g);
    grGraphNode_t w = tl_cond_graph(&g2, &h2, 0, 0, grGraphCondTypeWhile, 1, NULL);
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, g2, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorNotSupported);
    CHECK_PTR_EQ(info.errorNode, w);
    CHECK_DETAIL_HAS("cannot change");
    tl_run(e);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(g2));
}

/* Another graph of the same shape whose handle has another default:
 * the update takes its handle (probe: CUDA applies the new default from
 * the next launch), and the first graph may have an executable again. */
GR_TEST(cond_exec_update_from_another_graph_takes_its_handle)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g1, g2, *b1, *b2;
    grGraphConditionalHandle h1, h2;
    grGraphExec_t e, e1;
    grGraphExecUpdateResultInfo info;
    int out = 0;
    tl_cond_graph(&g1, &h1, 1, grGraphCondAssignDefault, grGraphCondTypeIf, 1, &b1);
    tl_cond_add_put(b1[0], NULL, 0, &k, &out, 1);
    tl_cond_graph(&g2, &h2, 0, grGraphCondAssignDefault, grGraphCondTypeIf, 1, &b2);
    tl_cond_add_put(b2[0], NULL, 0, &k, &out, 2);
    e = tl_instantiate(g1);
    tl_run(e);
    CHECK_EQ(out, 1);
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    CHECK_EQ(info.result, grGraphExecUpdateSuccess);
    out = 0;
    tl_run(e); /* default 0: the body does not run */
    CHECK_EQ(out, 0);
    /* g2's handle is the executable's now; g1's is free again. */
    grGraphExec_t e2 = NULL;
    CHECK_GR(grErrorNotSupported, grGraphInstantiate(&e2, g2, 0));
    e1 = tl_instantiate(g1);
    tl_run(e1);
    CHECK_EQ(out, 1);
    CHECK_OK(grGraphExecDestroy(e1));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g1));
    CHECK_OK(grGraphDestroy(g2));
    tl_cond_kernels_free(&k);
}

/* Kernel parameters for put(dst, v) (the args point at the caller's
 * variables, which must outlive the call). */
static grKernelNodeParams put_params(tl_cond_kernels *k, void **args, int **dst, int *v)
{
    args[0] = dst;
    args[1] = v;
    grKernelNodeParams p = {k->put, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    return p;
}

/* CUDA 13 accepts the executable's setters on a node of a body and uses
 * the new parameters from the next launch on (probe); the graph's node
 * keeps its own. */
GR_TEST(cond_exec_kernel_set_params_reaches_if_body)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g, *body;
    grGraphConditionalHandle h;
    int out = 0, other = 0;
    grGraphNode_t put;
    grGraphExec_t e = if_put_ran(&k, &g, &h, &body, &out, &put);
    int *dst = &other, v = 7;
    void *args[2];
    grKernelNodeParams p = put_params(&k, args, &dst, &v);
    CHECK_OK(grGraphExecKernelNodeSetParams(e, put, &p));
    out = 0;
    tl_run(e);
    CHECK_EQ(out, 0);
    CHECK_EQ(other, 7);
    /* The generic setter takes the same path. */
    grGraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = grGraphNodeTypeKernel;
    dst = &out;
    v = 9;
    np.kernel = p;
    CHECK_OK(grGraphExecNodeSetParams(e, put, &np));
    tl_run(e);
    CHECK_EQ(out, 9);
    /* The graph's node still holds what it was given. */
    grKernelNodeParams got;
    CHECK_OK(grGraphKernelNodeGetParams(put, &got));
    CHECK(*(int **)got.kernelParams[0] == &out);
    CHECK_EQ(*(int *)got.kernelParams[1], 1);
    tl_cond_done(e, g, &k);
}

/* A WHILE body's loop test changed through the executable, and a kernel
 * of an IF nested in that body. */
GR_TEST(cond_exec_kernel_set_params_reaches_while_and_nested_bodies)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g, *body, *inner;
    grGraphConditionalHandle h, hi;
    int counter = 0, sum = 0;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&h, g, 1, grGraphCondAssignDefault));
    CHECK_OK(grGraphConditionalHandleCreate(&hi, g, 1, grGraphCondAssignDefault));
    tl_add_cond(g, NULL, 0, h, grGraphCondTypeWhile, 1, &body);
    grGraphNode_t step = tl_cond_add_step(body[0], &k, &counter, h, 3);
    tl_add_cond(body[0], &step, 1, hi, grGraphCondTypeIf, 1, &inner);
    int *sp = &sum, one = 1;
    void *add_args[2] = {&sp, &one};
    grGraphNode_t add = tl_add_kernel(inner[0], NULL, 0, k.add, add_args, 1);
    grGraphExec_t e = tl_instantiate(g);
    tl_run(e);
    CHECK_EQ(counter, 3);
    CHECK_EQ(sum, 3);
    int *cp = &counter, limit = 5;
    void *step_args[3] = {&cp, &h, &limit};
    grKernelNodeParams sp5 = {k.step, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, step_args, NULL};
    CHECK_OK(grGraphExecKernelNodeSetParams(e, step, &sp5));
    int ten = 10;
    void *add10[2] = {&sp, &ten};
    grKernelNodeParams ap = {k.add, GR_DIM3(2, 1, 1), GR_DIM3(1, 1, 1), 0, add10, NULL};
    CHECK_OK(grGraphExecKernelNodeSetParams(e, add, &ap));
    counter = 0;
    sum = 0;
    tl_run(e);
    CHECK_EQ(counter, 5);
    CHECK_EQ(sum, 5 * 2 * 10); /* five iterations of two blocks adding 10 */
    tl_cond_done(e, g, &k);
}

GR_TEST(cond_exec_memset_set_params_reaches_body)
{
    grGraph_t g, *body;
    grGraphConditionalHandle h;
    unsigned char a[8] = {0}, b[8] = {0};
    tl_cond_graph(&g, &h, 1, grGraphCondAssignDefault, grGraphCondTypeIf, 1, &body);
    grGraphNode_t m;
    grMemsetParams mp = {a, 0, 0x11, 1, 4, 1};
    CHECK_OK(grGraphAddMemsetNode(&m, body[0], NULL, 0, &mp));
    grGraphExec_t e = tl_instantiate(g);
    tl_run(e);
    CHECK_EQ(a[3], 0x11);
    CHECK_EQ(a[4], 0);
    grMemsetParams moved = {b, 0, 0x22, 1, 4, 1};
    CHECK_OK(grGraphExecMemsetNodeSetParams(e, m, &moved));
    /* Its checks are those of a top-level node: a 1D memset stays 1D. */
    grMemsetParams tall = {b, 4, 0x33, 1, 4, 2};
    CHECK_GR(grErrorInvalidValue, grGraphExecMemsetNodeSetParams(e, m, &tall));
    CHECK_DETAIL_HAS("1D one cannot become 2D");
    memset(a, 0, sizeof a);
    tl_run(e);
    CHECK_EQ(a[0], 0);
    CHECK_EQ(b[0], 0x22);
    CHECK_EQ(b[3], 0x22);
    CHECK_EQ(b[4], 0);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

/* Probe: SetEnabled on a body's node succeeds and GetEnabled then reads
 * 0; the node is skipped; the conditional node itself cannot be
 * disabled. */
GR_TEST(cond_disabling_a_body_node_skips_it)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g, *body;
    grGraphConditionalHandle h;
    int out = 0, after = 0;
    grGraphNode_t c = tl_cond_graph(&g, &h, 1, grGraphCondAssignDefault, grGraphCondTypeIf, 1, &body);
    grGraphNode_t put = tl_cond_add_put(body[0], NULL, 0, &k, &out, 4);
    tl_cond_add_put(body[0], &put, 1, &k, &after, 6);
    grGraphExec_t e = tl_instantiate(g);
    unsigned en = 2;
    CHECK_OK(grGraphNodeGetEnabled(e, put, &en));
    CHECK_EQ(en, 1u);
    CHECK_OK(grGraphNodeSetEnabled(e, put, 0));
    CHECK_OK(grGraphNodeGetEnabled(e, put, &en));
    CHECK_EQ(en, 0u);
    tl_run(e);
    CHECK_EQ(out, 0);
    CHECK_EQ(after, 6); /* its successor still runs */
    CHECK_OK(grGraphNodeSetEnabled(e, put, 1));
    tl_run(e);
    CHECK_EQ(out, 4);
    CHECK_GR(grErrorInvalidValue, grGraphNodeSetEnabled(e, c, 0));
    CHECK_GR(grErrorInvalidValue, grGraphNodeGetEnabled(e, c, &en));
    tl_cond_done(e, g, &k);
}

/* Nodes the executable was not built from, and setters of another type,
 * are refused on body nodes as on top-level ones, and change nothing. */
GR_TEST(cond_exec_setters_refuse_foreign_body_nodes_and_change_nothing)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g, g2, *body, *body2;
    grGraphConditionalHandle h, h2;
    int out = 0, other = 0;
    tl_cond_graph(&g, &h, 1, grGraphCondAssignDefault, grGraphCondTypeIf, 1, &body);
    grGraphNode_t put = tl_cond_add_put(body[0], NULL, 0, &k, &out, 1);
    tl_cond_graph(&g2, &h2, 1, grGraphCondAssignDefault, grGraphCondTypeIf, 1, &body2);
    grGraphNode_t put2 = tl_cond_add_put(body2[0], NULL, 0, &k, &out, 1);
    grGraphExec_t e = tl_instantiate(g);
    /* A node added to the body after instantiation is not the
     * executable's either. */
    grGraphNode_t late = tl_cond_add_put(body[0], NULL, 0, &k, &other, 3);
    int *dst = &other, v = 8;
    void *args[2];
    grKernelNodeParams p = put_params(&k, args, &dst, &v);
    CHECK_GR(grErrorInvalidValue, grGraphExecKernelNodeSetParams(e, put2, &p));
    CHECK_DETAIL_HAS("is not a node of the graph executable");
    CHECK_GR(grErrorInvalidValue, grGraphExecKernelNodeSetParams(e, late, &p));
    CHECK_GR(grErrorInvalidValue, grGraphNodeSetEnabled(e, put2, 0));
    grGraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = grGraphNodeTypeKernel;
    np.kernel = p;
    CHECK_GR(grErrorInvalidValue, grGraphExecNodeSetParams(e, put2, &np));
    grMemsetParams mp = {&other, 0, 1, 1, 1, 1};
    CHECK_GR(grErrorInvalidValue, grGraphExecMemsetNodeSetParams(e, put, &mp));
    CHECK_DETAIL_HAS("is a kernel node, not a memset node");
    np.type = grGraphNodeTypeMemset;
    np.memset = mp;
    CHECK_GR(grErrorInvalidValue, grGraphExecNodeSetParams(e, put, &np));
    grKernelNodeParams bad = p;
    bad.func = NULL;
    CHECK_GR(grErrorInvalidDeviceFunction, grGraphExecKernelNodeSetParams(e, put, &bad));
    tl_run(e);
    CHECK_EQ(out, 1);
    CHECK_EQ(other, 0);
    unsigned en = 0;
    CHECK_OK(grGraphNodeGetEnabled(e, put, &en));
    CHECK_EQ(en, 1u);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g2));
    CHECK_OK(grGraphDestroy(g));
    tl_cond_kernels_free(&k);
}

/* After an update from another graph the setters still name the body
 * nodes of the graph the executable was instantiated from, as they do
 * top-level nodes. */
GR_TEST(cond_exec_setters_name_original_body_nodes_after_update)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g1, g2, *b1, *b2;
    grGraphConditionalHandle h1, h2;
    grGraphExec_t e;
    grGraphExecUpdateResultInfo info;
    int out = 0;
    tl_cond_graph(&g1, &h1, 1, grGraphCondAssignDefault, grGraphCondTypeIf, 1, &b1);
    grGraphNode_t put1 = tl_cond_add_put(b1[0], NULL, 0, &k, &out, 1);
    tl_cond_graph(&g2, &h2, 1, grGraphCondAssignDefault, grGraphCondTypeIf, 1, &b2);
    grGraphNode_t put2 = tl_cond_add_put(b2[0], NULL, 0, &k, &out, 2);
    e = tl_instantiate(g1);
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    CHECK_EQ(info.result, grGraphExecUpdateSuccess);
    tl_run(e);
    CHECK_EQ(out, 2);
    int *dst = &out, v = 5;
    void *args[2];
    grKernelNodeParams p = put_params(&k, args, &dst, &v);
    CHECK_GR(grErrorInvalidValue, grGraphExecKernelNodeSetParams(e, put2, &p));
    CHECK_OK(grGraphExecKernelNodeSetParams(e, put1, &p));
    tl_run(e);
    CHECK_EQ(out, 5);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g1));
    CHECK_OK(grGraphDestroy(g2));
    tl_cond_kernels_free(&k);
}

typedef struct updater {
    grGraphExec_t e;
    grGraph_t g;
    int rounds;
} updater;

static void *update_repeatedly(void *arg)
{
    updater *u = arg;
    grGraphExecUpdateResultInfo info;
    for (int i = 0; i < u->rounds; i++)
        CHECK_OK(grGraphExecUpdate(u->e, u->g, &info));
    return NULL;
}

/* Each update replaces the bodies' plans: a setter on a body node racing
 * with updates on another thread writes the plan that is current. */
GR_TEST(cond_body_setters_race_with_updates)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g, *body;
    grGraphConditionalHandle h;
    int out = 0;
    tl_cond_graph(&g, &h, 1, grGraphCondAssignDefault, grGraphCondTypeIf, 1, &body);
    grGraphNode_t put = tl_cond_add_put(body[0], NULL, 0, &k, &out, 1);
    grGraphExec_t e = tl_instantiate(g);
    updater u = {e, g, 2000};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, update_repeatedly, &u) == 0);
    int *dst = &out, v = 0;
    void *args[2];
    grKernelNodeParams p = put_params(&k, args, &dst, &v);
    for (int i = 0; i < 2000; i++) {
        unsigned en = 0;
        CHECK_OK(grGraphExecKernelNodeSetParams(e, put, &p));
        CHECK_OK(grGraphNodeSetEnabled(e, put, 1));
        CHECK_OK(grGraphNodeGetEnabled(e, put, &en));
        CHECK_EQ(en, 1u);
    }
    CHECK(pthread_join(t, NULL) == 0);
    /* The last update brought the graph's parameters back; the setter
     * applies again after it. */
    v = 12;
    CHECK_OK(grGraphExecKernelNodeSetParams(e, put, &p));
    tl_run(e);
    CHECK_EQ(out, 12);
    tl_cond_done(e, g, &k);
}

/* grGraphNodeSetParams on a child-graph node refuses what
 * grGraphAddChildGraphNode refuses: a graph with conditional nodes, or a
 * body (it used to accept them, embedding a graph CUDA never embeds). */
GR_TEST(cond_node_set_params_refuses_to_embed_conditional_graphs_as_add_does)
{
    grGraph_t g, inner, withcond;
    grGraph_t *bodies;
    grGraphConditionalHandle h;
    grGraphNode_t child, e;
    grGraphNodeParams p;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphCreate(&inner, 0));
    CHECK_OK(grGraphAddEmptyNode(&e, inner, NULL, 0));
    CHECK_OK(grGraphAddChildGraphNode(&child, g, NULL, 0, inner));
    tl_cond_graph(&withcond, &h, 0, 0, grGraphCondTypeIf, 1, &bodies);

    memset(&p, 0, sizeof p);
    p.type = grGraphNodeTypeGraph;
    p.graph.graph = withcond;
    CHECK_GR(grErrorNotSupported, grGraphNodeSetParams(child, &p));
    CHECK_DETAIL_HAS("conditional nodes");
    p.graph.graph = bodies[0];
    CHECK_GR(grErrorNotSupported, grGraphNodeSetParams(child, &p));
    CHECK_DETAIL_HAS("is a body of");
    /* The node kept its graph: one empty node. */
    grGraph_t now = NULL;
    size_t n = 0;
    CHECK_OK(grGraphChildGraphNodeGetGraph(child, &now));
    CHECK_OK(grGraphGetNodes(now, NULL, &n));
    CHECK_EQ(n, 1);
    CHECK_OK(grGraphDestroy(withcond));
    CHECK_OK(grGraphDestroy(inner));
    CHECK_OK(grGraphDestroy(g));
}
