/*
 * test-graph-file-cond.c - conditional nodes in graph files: IF/ELSE,
 * WHILE, SWITCH and nested conditional nodes round-trip through a file
 * and run as before, and malformed conditional nodes are refused, naming
 * the line.
 */
#include "testlib.h"

#include <string.h>
#include <unistd.h>

static int cond_tally, cond_steps;

/* mark(v): the tally grows by v. */
static void cond_mark_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    cond_tally += *(int *)args[0];
}

/* step(counter, handle, limit): a WHILE body's iteration, ending the loop
 * once counter reaches limit. */
static void cond_step_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    int *counter = *(int **)args[0];
    cond_steps++;
    if (++*counter >= *(int *)args[2])
        CHECK_OK(grGraphSetConditional(*(grGraphConditionalHandle *)args[1], 0));
}

typedef struct cond_kernels {
    grKernel_t mark, setv, step;
} cond_kernels;

static grGraphNode_t cond_kernel(grGraph_t g, const grGraphNode_t *deps, size_t nd, grKernel_t k, void **args)
{
    grGraphNode_t n;
    grKernelNodeParams p = {k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphAddKernelNode(&n, g, deps, nd, &p));
    return n;
}

static grGraphNode_t cond_mark(grGraph_t g, cond_kernels *k, int v)
{
    void *args[] = {&v};
    return cond_kernel(g, NULL, 0, k->mark, args);
}

/* Runs g once; returns the tally and the WHILE iterations it made. */
static void cond_run(grGraph_t g, int *tally, int *steps)
{
    grGraphExec_t e;
    cond_tally = cond_steps = 0;
    e = tl_instantiate(g);
    CHECK_OK(grGraphLaunch(e, 0));
    CHECK_OK(grStreamSynchronize(0));
    CHECK_OK(grGraphExecDestroy(e));
    *tally = cond_tally;
    *steps = cond_steps;
}

GR_TEST(graph_file_round_trips_if_else_while_switch_and_nested_conditional_nodes)
{
    static const size_t mark_sz[] = {sizeof(int)}, setv_sz[] = {8, sizeof(unsigned)},
                        step_sz[] = {sizeof(int *), 8, sizeof(int)};
    cond_kernels k;
    CHECK_OK(grKernelCreate(&k.mark, cond_mark_fn, "cond mark", 1, mark_sz));
    CHECK_OK(grKernelCreate(&k.setv, tl_cond_setv_fn, "cond setv", 2, setv_sz));
    CHECK_OK(grKernelCreate(&k.step, cond_step_fn, "cond step", 3, step_sz));
    int *counter;
    CHECK_OK(grMalloc((void **)&counter, sizeof *counter));
    grGraph_t g, *ifb, *wb, *swb, *inner;
    grGraphConditionalHandle hif, hw, hsw, hin;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&hif, g, 1, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&hw, g, 1, grGraphCondAssignDefault));
    CHECK_OK(grGraphConditionalHandleCreate(&hsw, g, 0, 0));
    /* IF/ELSE: a kernel sets the value 0, so the ELSE body runs. */
    unsigned zero = 0, two = 2;
    void *set_if[] = {&hif, &zero};
    grGraphNode_t s = cond_kernel(g, NULL, 0, k.setv, set_if);
    grGraphNode_t n_if = tl_add_cond(g, &s, 1, hif, grGraphCondTypeIf, 2, &ifb);
    cond_mark(ifb[0], &k, 1);
    cond_mark(ifb[1], &k, 2);
    /* WHILE: the counter is zeroed each launch, the body's kernel ends the
     * loop after 5 iterations through the handle it gets as an argument;
     * an IF nested in the body, its handle made for the body, runs each. */
    grGraphNode_t z;
    grMemsetParams mp = {counter, 0, 0, 4, 1, 1};
    CHECK_OK(grGraphAddMemsetNode(&z, g, &n_if, 1, &mp));
    grGraphNode_t n_w = tl_add_cond(g, &z, 1, hw, grGraphCondTypeWhile, 1, &wb);
    int limit = 5;
    void *step_args[] = {&counter, &hw, &limit};
    grGraphNode_t st = cond_kernel(wb[0], NULL, 0, k.step, step_args);
    CHECK_OK(grGraphConditionalHandleCreate(&hin, wb[0], 1, grGraphCondAssignDefault));
    tl_add_cond(wb[0], &st, 1, hin, grGraphCondTypeIf, 1, &inner);
    cond_mark(inner[0], &k, 1000);
    /* SWITCH: the value 2 picks the third body; a child graph in a body. */
    void *set_sw[] = {&hsw, &two};
    grGraphNode_t s2 = cond_kernel(g, &n_w, 1, k.setv, set_sw);
    tl_add_cond(g, &s2, 1, hsw, grGraphCondTypeSwitch, 3, &swb);
    cond_mark(swb[0], &k, 100);
    cond_mark(swb[1], &k, 200);
    grGraph_t child;
    grGraphNode_t cn;
    CHECK_OK(grGraphCreate(&child, 0));
    cond_mark(child, &k, 400);
    CHECK_OK(grGraphAddChildGraphNode(&cn, swb[2], NULL, 0, child));
    CHECK_OK(grGraphDestroy(child));

    char p1[128], p2[128];
    tl_tmp_path(p1, sizeof p1, "test", "cond1", ".graph");
    tl_tmp_path(p2, sizeof p2, "test", "cond2", ".graph");
    CHECK_OK(grGraphSaveToFile(g, p1, 0));
    char *a = tl_slurp(p1, NULL);
    if (!strstr(a, "cond c0 default=1 flags=0\n") || !strstr(a, "cond c1 default=1 flags=1\n") ||
        !strstr(a, " cond c0 type=if size=2 after=n0 {\n") || !strstr(a, " cond c1 type=while size=1 ") ||
        !strstr(a, " cond c3 type=switch size=3 ") || !strstr(a, "args=c0,x00000000") ||
        !strstr(a, "args=b0+0,c1,x05000000") || !strstr(a, "} {\n"))
        GR_TEST_FAIL_("unexpected file:\n%s", a);
    grGraph_t l;
    CHECK_OK(grGraphLoadFromFile(&l, p1, 0));
    CHECK_OK(grGraphSaveToFile(l, p2, 0));
    char *b = tl_slurp(p2, NULL);
    if (strcmp(a, b) != 0)
        GR_TEST_FAIL_("the loaded graph saves differently:\n%s\n---\n%s", a, b);
    free(a);
    free(b);

    int tally, steps, ltally, lsteps;
    cond_run(g, &tally, &steps);
    CHECK_EQ(steps, 5);
    CHECK_EQ(tally, 2 + 5 * 1000 + 400);
    cond_run(l, &ltally, &lsteps);
    CHECK_EQ(lsteps, steps);
    CHECK_EQ(ltally, tally);
    CHECK_EQ(*counter, 5); /* the loaded graph counts in its own buffer */

    CHECK_OK(grGraphDestroy(l));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(counter));
    CHECK_OK(grKernelDestroy(k.mark));
    CHECK_OK(grKernelDestroy(k.setv));
    CHECK_OK(grKernelDestroy(k.step));
    unlink(p1);
    unlink(p2);
}

GR_TEST(graph_file_refuses_malformed_conditional_nodes_naming_the_line)
{
    grKernel_t k;
    static const size_t sz[] = {8, 4};
    CHECK_OK(grKernelCreate(&k, tl_kernel_nop, "scale", 2, sz));
    tl_load_refused(
        "graphrt-graph 1\ncond c0 default=0 flags=0\ngraph {\nn0 cond c0 type=until size=1 {\n}\n}\n", "4",
        "not a conditional node type");
    tl_load_refused("graphrt-graph 1\ncond c0 default=0 flags=0\ngraph {\nn0 cond c0 type=while size=2 {\n} "
                    "{\n}\n}\n",
                    "4", "a WHILE node has 1 body");
    tl_load_refused(
        "graphrt-graph 1\ncond c0 default=0 flags=0\ngraph {\nn0 cond c0 type=if size=2 {\n}\n}\n", "5",
        "closes after fewer bodies");
    tl_load_refused(
        "graphrt-graph 1\ncond c0 default=0 flags=0\ngraph {\nn0 cond c0 type=if size=1 {\n} {\n}\n}\n", "5",
        "opens more bodies");
    tl_load_refused(
        "graphrt-graph 1\ncond c0 default=0 flags=0\ngraph {\nn0 cond c1 type=if size=1 {\n}\n}\n", "4",
        "no declared conditional handle");
    tl_load_refused("graphrt-graph 1\ncond c0 default=0 flags=0\ncond c0 default=1 flags=0\ngraph {\n}\n",
                    "3", "declared twice");
    tl_load_refused("graphrt-graph 1\ncond c0 default=0 flags=4\ngraph {\n}\n", "2", "flags");
    tl_load_refused("graphrt-graph 1\ncond c0 default=0 flags=0\ngraph {\nn0 cond c0 type=if size=1\n}\n",
                    "4", "ends with '{'");
    tl_load_refused("graphrt-graph 1\ngraph {\nn0 graph {\n} {\n}\n}\n", "4", "bodies of a cond node only");
    tl_load_refused(
        "graphrt-graph 1\ncond c0 default=0 flags=0\ngraph {\nn0 cond c0 type=if size=1 {\n}\nn1 cond c0 "
        "type=if size=1 {\n}\n}\n",
        "6", "handle of");
    tl_load_refused("graphrt-graph 1\nkernel k0 \"scale\" 8 4\ngraph {\nn0 kernel k0 grid=1,1,1 block=1,1,1 "
                    "shmem=0 args=c0,x00000000\n}\n",
                    "4", "no declared conditional handle");
    tl_load_refused(
        "graphrt-graph 1\ncond c0 default=0 flags=0\nkernel k0 \"scale\" 8 4\ngraph {\nn0 kernel k0 "
        "grid=1,1,1 block=1,1,1 shmem=0 args=x0000000000000000,c0\n}\n",
        "5", "a conditional handle is 8");
    CHECK_OK(grKernelDestroy(k));
}
