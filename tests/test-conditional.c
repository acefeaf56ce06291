/*
 * test-conditional.c - conditional nodes (docs/conditional.md): IF with
 * and without ELSE, WHILE loops ended by a kernel of the body, SWITCH,
 * nesting, bodies filled by capture, the handle's value per launch, and
 * CUDA's refusals, each leaving the graph as it was. Conditional nodes
 * under exec update and the node setters are in test-conditional-exec.c.
 */
#include "testlib.h"
#include "graphrt_kernel.h"

#include <unistd.h>

/* A kernel written once for the CPU and nvcc: thread 0 counts an
 * iteration down and ends the loop at zero with gr_set_conditional. */
GR_KERNEL(cond_countdown, (int *, left), (grGraphConditionalHandle, h))
{
    if (gr_global_idx_x() == 0 && --*left == 0)
        gr_set_conditional(h, 0);
}

/* A graph of one conditional node over one body: a WHILE body's step
 * (which ends the loop once the cell reaches 'value'), or an IF body that
 * stores 'value' into the cell. Each launch may first set the handle from
 * the host (set >= 0) and reset the cell (reset >= 0); after it the cell
 * must hold 'want'. */
typedef struct cond_launch {
    int set, reset, want;
} cond_launch;

typedef struct cond_case {
    grGraphConditionalNodeType type;
    unsigned dflt, flags;
    int value;
    cond_launch launch[5];
} cond_case;

static void run_cond_case(const cond_case *c)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g, *body;
    grGraphConditionalHandle h;
    int cell = 0;
    tl_cond_graph(&g, &h, c->dflt, c->flags, c->type, 1, &body);
    if (c->type == grGraphCondTypeWhile)
        tl_cond_add_step(body[0], &k, &cell, h, c->value);
    else
        tl_cond_add_put(body[0], NULL, 0, &k, &cell, c->value);
    grGraphExec_t e = tl_instantiate(g);
    for (int i = 0; i < 5 && c->launch[i].want >= 0; i++) {
        const cond_launch *l = &c->launch[i];
        if (l->set >= 0)
            CHECK_OK(grGraphSetConditional(h, (unsigned)l->set));
        if (l->reset >= 0)
            cell = l->reset;
        tl_run(e);
        if (cell != l->want)
            GR_TEST_FAIL_("launch %d: the cell holds %d, expected %d", i, cell, l->want);
    }
    tl_cond_done(e, g, &k);
}

enum {
    NO = -1 /* a launch that neither sets the handle nor resets the cell */
};
#define COND_END   \
    {              \
        NO, NO, -1 \
    }

GR_TEST(cond_while_runs_body_until_kernel_clears_handle)
{
    /* The default (1) is assigned again at the next launch: the loop runs
     * until the counter reaches the limit once more (one iteration). */
    run_cond_case(&(cond_case){
        grGraphCondTypeWhile, 1, grGraphCondAssignDefault, 7, {{NO, NO, 7}, {NO, 3, 7}, COND_END}});
}

GR_TEST(cond_while_with_zero_default_never_runs_body)
{
    run_cond_case(
        &(cond_case){grGraphCondTypeWhile, 0, grGraphCondAssignDefault, 100, {{NO, NO, 0}, COND_END}});
}

GR_TEST(cond_value_persists_between_launches_without_assign_default)
{
    /* Without grGraphCondAssignDefault the default is not applied: the
     * executable starts from 0 (probe: CUDA 13 on an H200); the host sets
     * 1, the body leaves 0 and the next launch skips the loop, until the
     * host sets the value again. */
    run_cond_case(&(cond_case){
        grGraphCondTypeWhile, 1, 0, 5, {{NO, NO, 0}, {1, NO, 5}, {NO, NO, 5}, {1, 0, 5}, COND_END}});
}

GR_TEST(cond_if_else_follows_value_set_by_kernel_before_it)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g, *body;
    grGraphConditionalHandle h;
    int out = 0;
    unsigned v = 1;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&h, g, 0, grGraphCondAssignDefault));
    void *args[2] = {&h, &v};
    grGraphNode_t set = tl_add_kernel(g, NULL, 0, k.setv, args, 1);
    tl_add_cond(g, &set, 1, h, grGraphCondTypeIf, 2, &body);
    tl_cond_add_put(body[0], NULL, 0, &k, &out, 10);
    tl_cond_add_put(body[1], NULL, 0, &k, &out, 20);
    grGraphExec_t e = tl_instantiate(g);
    tl_run(e);
    CHECK_EQ(out, 10);
    v = 0;
    grKernelNodeParams p = {k.setv, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphExecKernelNodeSetParams(e, set, &p));
    tl_run(e);
    CHECK_EQ(out, 20);
    tl_cond_done(e, g, &k);
}

GR_TEST(cond_if_without_else_skips_on_zero)
{
    run_cond_case(&(cond_case){grGraphCondTypeIf, 0, 0, 5, {{NO, NO, 0}, {42, NO, 5}, COND_END}});
}

GR_TEST(cond_switch_runs_the_body_of_the_value)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g, *body;
    grGraphConditionalHandle h;
    int out = -1;
    tl_cond_graph(&g, &h, 0, 0, grGraphCondTypeSwitch, 3, &body);
    for (int b = 0; b < 3; b++)
        tl_cond_add_put(body[b], NULL, 0, &k, &out, 100 + b);
    grGraphExec_t e = tl_instantiate(g);
    for (unsigned v = 0; v < 3; v++) {
        CHECK_OK(grGraphSetConditional(h, v));
        tl_run(e);
        CHECK_EQ(out, 100 + (int)v);
    }
    /* A value past the last body runs none. */
    out = -1;
    CHECK_OK(grGraphSetConditional(h, 3));
    tl_run(e);
    CHECK_EQ(out, -1);
    tl_cond_done(e, g, &k);
}

/* WHILE (outer) of: step(counter), then IF (inner, its handle set by a
 * kernel of the body) that counts the odd iterations. The node after the
 * loop sees every iteration done. */
GR_TEST(cond_nested_if_inside_while)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g, *outer, *inner;
    grGraphConditionalHandle hw, hi;
    int counter = 0, odd = 0, after = 0, one = 1;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&hw, g, 1, grGraphCondAssignDefault));
    CHECK_OK(grGraphConditionalHandleCreate(&hi, g, 0, grGraphCondAssignDefault));
    grGraphNode_t loop = tl_add_cond(g, NULL, 0, hw, grGraphCondTypeWhile, 1, &outer);
    tl_cond_add_put(g, &loop, 1, &k, &after, 1);
    grGraphNode_t s = tl_cond_add_step(outer[0], &k, &counter, hw, 6);
    /* setv(hi, counter is odd) cannot read memory: flip hi by kernel
     * arguments instead, alternating 1 and 0 through two kernels. */
    unsigned v1 = 1, v0 = 0;
    void *a1[2] = {&hi, &v1}, *a0[2] = {&hi, &v0};
    grGraphNode_t set1 = tl_add_kernel(outer[0], &s, 1, k.setv, a1, 1);
    grGraphNode_t cif = tl_add_cond(outer[0], &set1, 1, hi, grGraphCondTypeIf, 1, &inner);
    int *oddp = &odd;
    void *aa[2] = {&oddp, &one};
    tl_add_kernel(inner[0], NULL, 0, k.add, aa, 1);
    tl_add_kernel(outer[0], &cif, 1, k.setv, a0, 1);
    grGraphExec_t e = tl_instantiate(g);
    tl_run(e);
    CHECK_EQ(counter, 6);
    CHECK_EQ(odd, 6);
    CHECK_EQ(after, 1);
    tl_cond_done(e, g, &k);
}

/* A body holding parallel branches and a many-block kernel, in a graph
 * wide enough to be run shared by several workers: every iteration runs
 * every node of the body once. */
GR_TEST(cond_while_body_with_branches_and_many_blocks)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g, *body;
    grGraphConditionalHandle h;
    int counter = 0, sum = 0, side = 0, one = 1;
    int *sump = &sum, *sidep = &side;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&h, g, 1, grGraphCondAssignDefault));
    void *as[2] = {&sidep, &one};
    for (int i = 0; i < 8; i++)
        tl_add_kernel(g, NULL, 0, k.add, as, 1);
    tl_add_cond(g, NULL, 0, h, grGraphCondTypeWhile, 1, &body);
    void *ab[2] = {&sump, &one};
    grGraphNode_t a = tl_add_kernel(body[0], NULL, 0, k.add, ab, 64);
    grGraphNode_t b = tl_add_kernel(body[0], NULL, 0, k.add, ab, 1);
    grGraphNode_t deps[2] = {a, b};
    int limit = 10;
    int *cp = &counter;
    void *astep[3] = {&cp, &h, &limit};
    tl_add_kernel(body[0], deps, 2, k.step, astep, 1);
    grGraphExec_t e = tl_instantiate(g);
    for (int launch = 1; launch <= 20; launch++) {
        counter = 0;
        tl_run(e);
        CHECK_EQ(counter, 10);
        CHECK_EQ(sum, launch * 10 * 65);
        CHECK_EQ(side, launch * 8);
    }
    tl_cond_done(e, g, &k);
}

GR_TEST(cond_body_filled_by_stream_capture)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g, *body, got = NULL;
    grGraphConditionalHandle h;
    int counter = 0, out = 0, seven = 7;
    grStream_t s = tl_stream(0);
    grGraphNode_t loop = tl_cond_graph(&g, &h, 1, grGraphCondAssignDefault, grGraphCondTypeWhile, 1, &body);
    grGraphConditionalHandle h2;
    CHECK_OK(grGraphConditionalHandleCreate(&h2, g, 0, 0));
    grGraphNode_t cond = tl_add_cond(g, NULL, 0, h2, grGraphCondTypeIf, 1, NULL);
    CHECK_OK(grStreamBeginCaptureToGraph(s, body[0], NULL, NULL, 0, grStreamCaptureModeThreadLocal));
    /* The graph that holds the body cannot go while the capture builds. */
    CHECK_GR(grErrorIllegalState, grGraphDestroy(g));
    CHECK_GR(grErrorIllegalState, grGraphDestroyNode(loop));
    CHECK_OK(grGraphDestroyNode(cond));
    int limit = 4, *cp = &counter, *op = &out;
    void *astep[3] = {&cp, &h, &limit};
    void *aput[2] = {&op, &seven};
    CHECK_OK(grLaunchKernel(k.put, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), aput, 0, s));
    CHECK_OK(grLaunchKernel(k.step, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), astep, 0, s));
    CHECK_OK(grStreamEndCapture(s, &got));
    CHECK_PTR_EQ(got, body[0]);
    CHECK_EQ(tl_node_count(body[0]), 2);
    /* The handle of the destroyed node is free for another node. */
    tl_add_cond(g, NULL, 0, h2, grGraphCondTypeIf, 1, NULL);
    grGraphExec_t e = tl_instantiate(g);
    tl_run(e);
    CHECK_EQ(counter, 4);
    CHECK_EQ(out, 7);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    tl_cond_kernels_free(&k);
}

GR_TEST(cond_host_function_captured_into_body_is_refused_at_instantiate)
{
    grGraph_t g, *body, got = NULL;
    grGraphConditionalHandle h;
    grGraphExec_t e = NULL;
    grStream_t s = tl_stream(0);
    tl_cond_graph(&g, &h, 0, 0, grGraphCondTypeIf, 1, &body);
    /* CUDA records it (probe), and refuses the graph at instantiate. */
    CHECK_OK(grStreamBeginCaptureToGraph(s, body[0], NULL, NULL, 0, grStreamCaptureModeThreadLocal));
    CHECK_OK(grLaunchHostFunc(s, tl_noop, NULL));
    CHECK_OK(grStreamEndCapture(s, &got));
    CHECK_EQ(tl_node_count(body[0]), 1);
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&e, g, 0));
    CHECK_DETAIL_HAS("host node");
    CHECK(e == NULL);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(cond_handle_create_refusals)
{
    grGraph_t g;
    grGraphConditionalHandle h = 0;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_GR(grErrorInvalidValue, grGraphConditionalHandleCreate(NULL, g, 0, 0));
    CHECK_GR(grErrorInvalidValue, grGraphConditionalHandleCreate(&h, NULL, 0, 0));
    CHECK_GR(grErrorInvalidValue, grGraphConditionalHandleCreate(&h, g, 0, 2));
    CHECK_DETAIL_HAS("grGraphCondAssignDefault");
    CHECK_EQ(h, 0);
    CHECK_GR(grErrorInvalidValue, grGraphSetConditional(0, 1));
    CHECK_GR(grErrorInvalidValue, grGraphSetConditional(12345, 1));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(cond_add_node_refusals_change_nothing)
{
    grGraph_t g, other;
    grGraphConditionalHandle h, ho;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphCreate(&other, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&h, g, 0, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&ho, other, 0, 0));
    CHECK_GR(grErrorInvalidValue, tl_try_add_cond(g, NULL, 0, 0, grGraphCondTypeIf, 1, NULL));
    CHECK_DETAIL_HAS("not a live conditional handle");
    CHECK_GR(grErrorInvalidValue, tl_try_add_cond(g, NULL, 0, 0xdead0000ull, grGraphCondTypeIf, 1, NULL));
    CHECK_GR(grErrorInvalidValue, tl_try_add_cond(g, NULL, 0, (grGraphConditionalHandle)(uintptr_t)&other,
                                                  grGraphCondTypeIf, 1, NULL));
    CHECK_GR(grErrorInvalidValue, tl_try_add_cond(g, NULL, 0, ho, grGraphCondTypeIf, 1, NULL));
    CHECK_DETAIL_HAS("was made for graph");
    CHECK_GR(grErrorInvalidValue, tl_try_add_cond(g, NULL, 0, h, grGraphCondTypeIf, 0, NULL));
    CHECK_GR(grErrorInvalidValue, tl_try_add_cond(g, NULL, 0, h, grGraphCondTypeIf, 3, NULL));
    CHECK_GR(grErrorInvalidValue, tl_try_add_cond(g, NULL, 0, h, grGraphCondTypeWhile, 2, NULL));
    CHECK_GR(grErrorInvalidValue, tl_try_add_cond(g, NULL, 0, h, grGraphCondTypeSwitch, 0, NULL));
    CHECK_GR(grErrorInvalidValue, tl_try_add_cond(g, NULL, 0, h, (grGraphConditionalNodeType)7, 1, NULL));
    CHECK_DETAIL_HAS("grGraphConditionalNodeType");
    CHECK_EQ(tl_node_count(g), 0);
    CHECK_OK(tl_try_add_cond(g, NULL, 0, h, grGraphCondTypeSwitch, 4, NULL));
    CHECK_EQ(tl_node_count(g), 1);
    /* A handle serves one node (probe). */
    CHECK_GR(grErrorInvalidValue, tl_try_add_cond(g, NULL, 0, h, grGraphCondTypeIf, 1, NULL));
    CHECK_DETAIL_HAS("serves one conditional node");
    CHECK_EQ(tl_node_count(g), 1);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(other));
}

/* Instantiates g, which must fail on node 'bad' of a body. */
static void check_body_refused(grGraph_t g, const char *what)
{
    grGraphExec_t e = NULL;
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&e, g, 0));
    CHECK_DETAIL_HAS(what);
    CHECK_DETAIL_HAS("body 0 of conditional node");
    CHECK(e == NULL);
}

GR_TEST(cond_body_node_types_cuda_refuses_fail_instantiate)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g, *body, child;
    grGraphConditionalHandle h;
    grGraphNode_t n = NULL;
    grEvent_t ev;
    CHECK_OK(grEventCreate(&ev));
    tl_cond_graph(&g, &h, 0, 0, grGraphCondTypeIf, 1, &body);
    /* Added (as CUDA adds them: probe), refused when instantiated. */
    grHostNodeParams hp = {tl_noop, NULL};
    CHECK_OK(grGraphAddHostNode(&n, body[0], NULL, 0, &hp));
    check_body_refused(g, "host node");
    CHECK_OK(grGraphDestroyNode(n));
    CHECK_OK(grGraphAddEventRecordNode(&n, body[0], NULL, 0, ev));
    check_body_refused(g, "event record node");
    CHECK_OK(grGraphDestroyNode(n));
    CHECK_OK(grGraphAddEventWaitNode(&n, body[0], NULL, 0, ev));
    check_body_refused(g, "event wait node");
    CHECK_OK(grGraphDestroyNode(n));
    /* A child graph holding a host node: the host node is named. */
    CHECK_OK(grGraphCreate(&child, 0));
    CHECK_OK(grGraphAddHostNode(&n, child, NULL, 0, &hp));
    CHECK_OK(grGraphAddChildGraphNode(&n, body[0], NULL, 0, child));
    check_body_refused(g, "host node");
    CHECK_OK(grGraphDestroyNode(n));
    /* Memory nodes are refused when added (graphrt's: see the docs). */
    grMemAllocNodeParams ap;
    ap = tl_alloc_params(0, 64);
    CHECK_GR(grErrorNotSupported, grGraphAddMemAllocNode(&n, body[0], NULL, 0, &ap));
    CHECK_DETAIL_HAS("no memory allocation or free node");
    CHECK_EQ(tl_node_count(body[0]), 0);
    /* Allowed: kernel, empty, child graph of those. */
    int x = 0, *xp = &x, one = 1;
    void *args[2] = {&xp, &one};
    tl_add_kernel(body[0], NULL, 0, k.put, args, 1);
    CHECK_OK(grGraphAddEmptyNode(&n, body[0], NULL, 0));
    grGraph_t empty;
    CHECK_OK(grGraphCreate(&empty, 0));
    CHECK_OK(grGraphAddChildGraphNode(&n, body[0], NULL, 0, empty));
    CHECK_EQ(tl_node_count(body[0]), 3);
    grGraphExec_t e = tl_instantiate(g);
    CHECK_OK(grGraphSetConditional(h, 1));
    tl_run(e);
    CHECK_EQ(x, 1);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(child));
    CHECK_OK(grGraphDestroy(empty));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(ev));
    tl_cond_kernels_free(&k);
}

GR_TEST(cond_body_is_owned_by_its_node)
{
    grGraph_t g, *body, clone = NULL, parent;
    grGraphConditionalHandle h;
    grGraphNode_t n = NULL, outer;
    grGraphExec_t e = NULL;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&h, g, 0, 0));
    CHECK_OK(grGraphAddEmptyNode(&outer, g, NULL, 0));
    tl_add_cond(g, NULL, 0, h, grGraphCondTypeIf, 1, &body);
    CHECK_GR(grErrorInvalidValue, grGraphDestroy(body[0]));
    CHECK_GR(grErrorNotSupported, grGraphClone(&clone, body[0]));
    CHECK(clone == NULL);
    CHECK_OK(grGraphCreate(&parent, 0));
    CHECK_GR(grErrorNotSupported, grGraphAddChildGraphNode(&n, parent, NULL, 0, body[0]));
    CHECK_EQ(tl_node_count(parent), 0);
    CHECK_GR(grErrorNotSupported, grGraphInstantiate(&e, body[0], 0));
    CHECK(e == NULL);
    /* No edge joins a body's node and a node outside it. */
    CHECK_GR(grErrorInvalidValue, grGraphAddEmptyNode(&n, body[0], &outer, 1));
    CHECK_EQ(tl_node_count(body[0]), 0);
    CHECK_OK(grGraphDestroy(parent));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(cond_unused_handle_fails_instantiate)
{
    grGraph_t g, *body;
    grGraphConditionalHandle h, unused, in_body;
    grGraphExec_t e = NULL;
    grGraphNode_t n;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&n, g, NULL, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&unused, g, 0, 0));
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&e, g, 0));
    CHECK_DETAIL_HAS("used by no conditional node");
    CHECK(e == NULL);
    CHECK_OK(tl_try_add_cond(g, NULL, 0, unused, grGraphCondTypeIf, 1, NULL));
    e = tl_instantiate(g);
    CHECK_OK(grGraphExecDestroy(e));
    /* A body's unused handle counts too; a body's handle may serve a node
     * of the graph that holds the body (probe). */
    CHECK_OK(grGraphConditionalHandleCreate(&h, g, 0, 0));
    tl_add_cond(g, NULL, 0, h, grGraphCondTypeWhile, 1, &body);
    CHECK_OK(grGraphConditionalHandleCreate(&in_body, body[0], 0, 0));
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&e, g, 0));
    CHECK_OK(tl_try_add_cond(g, NULL, 0, in_body, grGraphCondTypeSwitch, 2, NULL));
    e = tl_instantiate(g);
    tl_run(e);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(cond_graph_cannot_be_cloned_or_embedded)
{
    grGraph_t g, clone = NULL, parent, child;
    grGraphConditionalHandle h, hp;
    grGraphNode_t n = NULL;
    tl_cond_graph(&g, &h, 0, 0, grGraphCondTypeIf, 1, NULL);
    CHECK_GR(grErrorNotSupported, grGraphClone(&clone, g));
    CHECK(clone == NULL);
    CHECK_OK(grGraphCreate(&parent, 0));
    CHECK_GR(grErrorNotSupported, grGraphAddChildGraphNode(&n, parent, NULL, 0, g));
    CHECK_DETAIL_HAS("conditional");
    CHECK_EQ(tl_node_count(parent), 0);
    /* Nor may a child graph get one. */
    grGraph_t empty;
    CHECK_OK(grGraphCreate(&empty, 0));
    CHECK_OK(grGraphAddChildGraphNode(&n, parent, NULL, 0, empty));
    CHECK_OK(grGraphChildGraphNodeGetGraph(n, &child));
    CHECK_OK(grGraphConditionalHandleCreate(&hp, parent, 0, 0));
    CHECK_GR(grErrorNotSupported, tl_try_add_cond(child, NULL, 0, hp, grGraphCondTypeIf, 1, NULL));
    CHECK_EQ(tl_node_count(child), 0);
    CHECK_OK(grGraphDestroy(empty));
    CHECK_OK(grGraphDestroy(parent));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(cond_graph_has_one_executable_at_a_time)
{
    grGraph_t g;
    grGraphConditionalHandle h;
    grGraphExec_t e, e2 = NULL;
    tl_cond_graph(&g, &h, 0, 0, grGraphCondTypeIf, 1, NULL);
    e = tl_instantiate(g);
    CHECK_GR(grErrorNotSupported, grGraphInstantiate(&e2, g, 0));
    CHECK_DETAIL_HAS("one executable at a time");
    CHECK(e2 == NULL);
    tl_run(e);
    CHECK_OK(grGraphExecDestroy(e));
    e2 = tl_instantiate(g);
    tl_run(e2);
    CHECK_OK(grGraphExecDestroy(e2));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(cond_executable_outlives_its_graph_and_handle)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g, *body;
    grGraphConditionalHandle h;
    int counter = 0;
    tl_cond_graph(&g, &h, 1, grGraphCondAssignDefault, grGraphCondTypeWhile, 1, &body);
    tl_cond_add_step(body[0], &k, &counter, h, 3);
    grGraphExec_t e = tl_instantiate(g);
    CHECK_OK(grGraphDestroy(g));
    tl_run(e);
    CHECK_EQ(counter, 3);
    CHECK_OK(grGraphSetConditional(h, 1));
    CHECK_OK(grGraphExecDestroy(e));
    /* Its graph and executable are gone: so is the handle. */
    CHECK_GR(grErrorInvalidValue, grGraphSetConditional(h, 1));
    tl_cond_kernels_free(&k);
}

GR_TEST(cond_dot_shows_bodies_as_clusters)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g, *body;
    grGraphConditionalHandle h;
    int out = 0;
    char path[] = "/tmp/graphrt-cond-dot-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    tl_cond_graph(&g, &h, 0, 0, grGraphCondTypeSwitch, 2, &body);
    tl_cond_add_put(body[0], NULL, 0, &k, &out, 1);
    tl_cond_add_put(body[1], NULL, 0, &k, &out, 2);
    CHECK_OK(grGraphDebugDotPrint(g, path, 0));
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    unlink(path);
    CHECK(strstr(buf, "SWITCH node #0") != NULL);
    CHECK(strstr(buf, "body case 0") != NULL);
    CHECK(strstr(buf, "body case 1") != NULL);
    CHECK(strstr(buf, "cond_put") != NULL);
    CHECK(strstr(buf, "style=dotted") != NULL);
    CHECK_OK(grGraphDestroy(g));
    tl_cond_kernels_free(&k);
}

GR_TEST(cond_baked_values_include_body_nodes)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t g, *body;
    grGraphConditionalHandle h;
    int *buf = tl_malloc(64);
    grGraphNode_t cond = tl_cond_graph(&g, &h, 0, 0, grGraphCondTypeWhile, 1, &body);
    tl_cond_add_put(body[0], NULL, 0, &k, buf + 2, 1);
    grGraphExec_t e = tl_instantiate(g);
    grBakedValue v[8];
    size_t n = 8;
    CHECK_OK(grGraphExecGetBakedValues(e, v, &n));
    size_t found = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].value == (uintptr_t)(buf + 2)) {
            found++;
            CHECK_EQ(v[i].kind, grBakedAllocation);
            CHECK_PTR_EQ(v[i].graphNode, cond);
            CHECK_EQ(v[i].nodeType, grGraphNodeTypeKernel);
            CHECK_EQ(v[i].allocOffset, 2 * sizeof(int));
        }
    CHECK_EQ(found, 1);
    CHECK_OK(grFree(buf));
    n = 8;
    CHECK_OK(grGraphExecGetBakedValues(e, v, &n));
    found = 0;
    for (size_t i = 0; i < n; i++)
        found += v[i].value == (uintptr_t)(buf + 2) && v[i].kind == grBakedFreedAllocation;
    CHECK_EQ(found, 1);
    tl_cond_done(e, g, &k);
}

GR_TEST(cond_kernel_source_helper_ends_a_loop)
{
    grKernel_t k;
    grGraph_t g, *body;
    grGraphConditionalHandle h;
    grGraphNode_t n;
    int left = 9, *lp = &left;
    CHECK_OK(GR_KERNEL_CREATE(&k, cond_countdown));
    tl_cond_graph(&g, &h, 1, grGraphCondAssignDefault, grGraphCondTypeWhile, 1, &body);
    void *args[2] = {&lp, &h};
    grKernelNodeParams p = {k, GR_DIM3(2, 1, 1), GR_DIM3(32, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphAddKernelNode(&n, body[0], NULL, 0, &p));
    grGraphExec_t e = tl_instantiate(g);
    tl_run(e);
    CHECK_EQ(left, 0);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(cond_node_cannot_be_disabled)
{
    grGraph_t g;
    grGraphConditionalHandle h;
    grGraphNode_t n = tl_cond_graph(&g, &h, 0, 0, grGraphCondTypeIf, 1, NULL);
    grGraphExec_t e = tl_instantiate(g);
    CHECK_GR(grErrorInvalidValue, grGraphNodeSetEnabled(e, n, 0)); /* probe */
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

/* A conditional node added to the graph a stream captures, then made the
 * capture's dependency (probe: CUDA accepts it). */
GR_TEST(cond_node_added_to_a_capture_in_progress)
{
    tl_cond_kernels k = tl_cond_kernels_make();
    grGraph_t cg = NULL, got = NULL, *body;
    grGraphConditionalHandle h;
    grStream_t s;
    grStreamCaptureStatus st;
    const grGraphNode_t *deps = NULL;
    size_t ndeps = 0;
    int a = 0, b = 0, c = 0;
    s = tl_capturing_stream(0, grStreamCaptureModeThreadLocal);
    int *ap = &a, one = 1;
    void *args[2] = {&ap, &one};
    CHECK_OK(grLaunchKernel(k.put, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_OK(grStreamGetCaptureInfo(s, &st, NULL, &cg, &deps, NULL, &ndeps));
    CHECK_EQ(st, grStreamCaptureStatusActive);
    CHECK_OK(grGraphConditionalHandleCreate(&h, cg, 1, grGraphCondAssignDefault));
    grGraphNode_t cond = tl_add_cond(cg, deps, ndeps, h, grGraphCondTypeIf, 1, &body);
    tl_cond_add_put(body[0], NULL, 0, &k, &b, 2);
    CHECK_OK(grStreamUpdateCaptureDependencies(s, &cond, NULL, 1, grStreamSetCaptureDependencies));
    int *cp = &c, three = 3;
    void *args3[2] = {&cp, &three};
    CHECK_OK(grLaunchKernel(k.put, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args3, 0, s));
    CHECK_OK(grStreamEndCapture(s, &got));
    CHECK_PTR_EQ(got, cg);
    CHECK_EQ(tl_node_count(got), 3);
    grGraphExec_t e = tl_instantiate(got);
    tl_run(e);
    CHECK_EQ(a, 1);
    CHECK_EQ(b, 2);
    CHECK_EQ(c, 3);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(got));
    CHECK_OK(grStreamDestroy(s));
    tl_cond_kernels_free(&k);
}

/* grGraphInstantiateWithParams reports CUDA 13's results for the two
 * conditional-node failures (probed on an H200): an unused handle gives
 * ConditionalHandleUnused with no node, a body node of a kind a body may
 * not hold gives NodeOperationNotSupported naming that node. */
GR_TEST(conditional_instantiate_with_params_reports_cudas_results)
{
    grGraph_t g;
    grGraph_t *bodies;
    grGraphConditionalHandle used, unused;
    grGraphNode_t host;
    grGraphExec_t e = NULL;
    grHostNodeParams hp = {NULL, NULL};
    grGraphInstantiateParams ip;

    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&used, g, 1, grGraphCondAssignDefault));
    CHECK_OK(grGraphConditionalHandleCreate(&unused, g, 0, 0));
    tl_add_cond(g, NULL, 0, used, grGraphCondTypeIf, 1, &bodies);
    memset(&ip, 0, sizeof ip);
    ip.errNode_out = (grGraphNode_t)(uintptr_t)1;
    CHECK_GR(grErrorInvalidValue, grGraphInstantiateWithParams(&e, g, &ip));
    CHECK_EQ(ip.result_out, grGraphInstantiateConditionalHandleUnused);
    CHECK(ip.errNode_out == NULL);
    CHECK(e == NULL);
    CHECK_OK(grGraphDestroy(g));

    tl_cond_graph(&g, &used, 1, grGraphCondAssignDefault, grGraphCondTypeIf, 1, &bodies);
    hp.fn = tl_noop;
    CHECK_OK(grGraphAddHostNode(&host, bodies[0], NULL, 0, &hp));
    memset(&ip, 0, sizeof ip);
    CHECK_GR(grErrorInvalidValue, grGraphInstantiateWithParams(&e, g, &ip));
    CHECK_EQ(ip.result_out, grGraphInstantiateNodeOperationNotSupported);
    CHECK(ip.errNode_out == host);
    CHECK(e == NULL);
    CHECK_OK(grGraphDestroy(g));
}

static int body_object_runs;
static void body_object_destroy(void *p)
{
    (void)p;
    body_object_runs++;
}

/* A user object a body graph holds is taken by the executable, as one a
 * child graph holds (CUDA: instantiate takes the whole graph's). */
GR_TEST(conditional_body_user_objects_are_held_by_the_executable)
{
    grGraph_t g;
    grGraph_t *bodies;
    grGraphConditionalHandle h;
    grUserObject_t o;
    body_object_runs = 0;
    tl_cond_graph(&g, &h, 0, grGraphCondAssignDefault, grGraphCondTypeIf, 1, &bodies);
    CHECK_OK(grUserObjectCreate(&o, NULL, body_object_destroy, 1, grUserObjectNoDestructorSync));
    CHECK_OK(grGraphRetainUserObject(bodies[0], o, 1, grGraphUserObjectMove));
    grGraphExec_t e = tl_instantiate(g);
    CHECK_OK(grGraphDestroy(g));
    CHECK_EQ(body_object_runs, 0);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_EQ(body_object_runs, 1);
}
