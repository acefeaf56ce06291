/*
 * test-gpu-conditional.c - conditional nodes on a GPU: IF, IF/ELSE,
 * WHILE and SWITCH lowered to CUDA's conditional nodes, nested, with
 * kernels that set the condition on the device through the handle they
 * take as an argument, the default applied at each launch, and the
 * executable's setters and updates. Each test needs a GPU device and is
 * skipped, saying why, where there is none (CI has none).
 *
 * The kernels exist twice: a CPU function per block (below) and the GPU
 * entry of the same name in gpu-cond-ptx.h (from gpu-cond-kernels.cu).
 */
#include "testlib.h"
#include "gpu-cond-ptx.h"

static void set_cpu(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    (void)grGraphSetConditional(*(grGraphConditionalHandle *)args[0], *(unsigned *)args[1]);
}

static void add_cpu(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    **(unsigned **)args[0] += *(unsigned *)args[1];
}

static void countdown_cpu(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    unsigned *left = *(unsigned **)args[0];
    if (--*left == 0)
        (void)grGraphSetConditional(*(grGraphConditionalHandle *)args[1], 0);
}

/* The three kernels of the test image, and the device memory they use:
 * cell[0..3], read back with read_cell. */
typedef struct fixture {
    grKernel_t set, add, countdown;
    unsigned *cell;
    grGraph_t g;
    grGraphExec_t e;
} fixture;

static void fixture_init(fixture *f)
{
    static const size_t set_sizes[] = {sizeof(grGraphConditionalHandle), sizeof(unsigned)};
    static const size_t add_sizes[] = {sizeof(unsigned *), sizeof(unsigned)};
    static const size_t countdown_sizes[] = {sizeof(unsigned *), sizeof(grGraphConditionalHandle)};
    memset(f, 0, sizeof *f);
    tl_set_first_gpu();
    CHECK_OK(grKernelCreate(&f->set, set_cpu, "gr_test_cond_set", 2, set_sizes));
    CHECK_OK(grKernelSetImage(f->set, gr_test_cond_ptx, "gr_test_cond_set"));
    CHECK_OK(grKernelCreate(&f->add, add_cpu, "gr_test_cond_add", 2, add_sizes));
    CHECK_OK(grKernelSetImage(f->add, gr_test_cond_ptx, "gr_test_cond_add"));
    CHECK_OK(grKernelCreate(&f->countdown, countdown_cpu, "gr_test_cond_countdown", 2, countdown_sizes));
    CHECK_OK(grKernelSetImage(f->countdown, gr_test_cond_ptx, "gr_test_cond_countdown"));
    CHECK_OK(grMalloc((void **)&f->cell, 4 * sizeof(unsigned)));
    CHECK_OK(grMemset(f->cell, 0, 4 * sizeof(unsigned)));
    CHECK_OK(grGraphCreate(&f->g, 0));
}

static void fixture_free(fixture *f)
{
    if (f->e)
        CHECK_OK(grGraphExecDestroy(f->e));
    CHECK_OK(grGraphDestroy(f->g));
    CHECK_OK(grFree(f->cell));
    CHECK_OK(grKernelDestroy(f->set));
    CHECK_OK(grKernelDestroy(f->add));
    CHECK_OK(grKernelDestroy(f->countdown));
}

static unsigned read_cell(const fixture *f, int i)
{
    unsigned v = 0;
    CHECK_OK(grMemcpy(&v, f->cell + i, sizeof v, grMemcpyDeviceToHost));
    return v;
}

static void write_cell(const fixture *f, int i, unsigned v)
{
    CHECK_OK(grMemcpy(f->cell + i, &v, sizeof v, grMemcpyHostToDevice));
}

/* A one-thread launch of k with 'args' into graph g after 'dep'. */
static grGraphNode_t add_kernel_after(grGraph_t g, grGraphNode_t dep, grKernel_t k, void **args)
{
    return tl_add_kernel(g, dep ? &dep : NULL, dep ? 1 : 0, k, args, 1);
}

/* A conditional node on handle h in g after 'dep'; its bodies in bodies[]. */
static grGraphNode_t add_cond_bodies(grGraph_t g, grGraphNode_t dep, grGraphConditionalHandle h,
                                     grGraphConditionalNodeType type, unsigned size, grGraph_t *bodies)
{
    grGraph_t *b;
    grGraphNode_t n = tl_add_cond(g, dep ? &dep : NULL, dep ? 1 : 0, h, type, size, &b);
    for (unsigned i = 0; i < size; i++)
        bodies[i] = b[i];
    return n;
}

/* Changes the value top-level 'set' node s gives handle h. */
static void set_handle_value(const fixture *f, grGraphNode_t s, grGraphConditionalHandle h, unsigned v)
{
    void *args[] = {&h, &v};
    grKernelNodeParams p = {f->set, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphExecKernelNodeSetParams(f->e, s, &p));
}

GR_TEST(gpu_conditional_if_else_runs_the_branch_a_kernel_chose)
{
    fixture f;
    fixture_init(&f);
    grGraphConditionalHandle h;
    grGraph_t body[2];
    unsigned one = 1, v = 1, hundred = 100;
    unsigned *then_cell = f.cell, *else_cell = f.cell + 1;
    CHECK_OK(grGraphConditionalHandleCreate(&h, f.g, 0, 0));
    void *sargs[] = {&h, &v};
    grGraphNode_t s = add_kernel_after(f.g, NULL, f.set, sargs);
    add_cond_bodies(f.g, s, h, grGraphCondTypeIf, 2, body);
    void *a1[] = {&then_cell, &one}, *a2[] = {&else_cell, &hundred};
    add_kernel_after(body[0], NULL, f.add, a1);
    add_kernel_after(body[1], NULL, f.add, a2);
    CHECK_OK(grGraphInstantiate(&f.e, f.g, 0));
    tl_run(f.e); /* v = 1: then */
    CHECK_EQ(read_cell(&f, 0), 1);
    CHECK_EQ(read_cell(&f, 1), 0);
    set_handle_value(&f, s, h, 0); /* else */
    tl_run(f.e);
    CHECK_EQ(read_cell(&f, 0), 1);
    CHECK_EQ(read_cell(&f, 1), 100);
    set_handle_value(&f, s, h, 7); /* any value but 0: then */
    tl_run(f.e);
    CHECK_EQ(read_cell(&f, 0), 2);
    CHECK_EQ(read_cell(&f, 1), 100);
    fixture_free(&f);
}

GR_TEST(gpu_conditional_if_without_else_runs_nothing_for_zero)
{
    fixture f;
    fixture_init(&f);
    grGraphConditionalHandle h;
    grGraph_t body[1];
    unsigned five = 5, v = 0;
    CHECK_OK(grGraphConditionalHandleCreate(&h, f.g, 0, 0));
    void *sargs[] = {&h, &v};
    grGraphNode_t s = add_kernel_after(f.g, NULL, f.set, sargs);
    add_cond_bodies(f.g, s, h, grGraphCondTypeIf, 1, body);
    void *a[] = {&f.cell, &five};
    add_kernel_after(body[0], NULL, f.add, a);
    CHECK_OK(grGraphInstantiate(&f.e, f.g, 0));
    tl_run(f.e);
    CHECK_EQ(read_cell(&f, 0), 0);
    set_handle_value(&f, s, h, 1);
    tl_run(f.e);
    CHECK_EQ(read_cell(&f, 0), 5);
    fixture_free(&f);
}

/* WHILE (default 1, assigned at each launch): countdown, then count. */
GR_TEST(gpu_conditional_while_loops_until_a_kernel_ends_it_each_launch)
{
    enum {
        ITERATIONS = 37
    };
    fixture f;
    fixture_init(&f);
    grGraphConditionalHandle h;
    grGraph_t body[1];
    unsigned one = 1, *left = f.cell, *count = f.cell + 1;
    CHECK_OK(grGraphConditionalHandleCreate(&h, f.g, 1, grGraphCondAssignDefault));
    add_cond_bodies(f.g, NULL, h, grGraphCondTypeWhile, 1, body);
    void *cargs[] = {&left, &h}, *aargs[] = {&count, &one};
    grGraphNode_t step = add_kernel_after(body[0], NULL, f.countdown, cargs);
    add_kernel_after(body[0], step, f.add, aargs);
    CHECK_OK(grGraphInstantiate(&f.e, f.g, 0));
    for (unsigned launchno = 1; launchno <= 3; launchno++) {
        write_cell(&f, 0, ITERATIONS);
        /* The last launch ended with the value 0: only the default's
         * assignment at the start lets the loop run again. */
        tl_run(f.e);
        CHECK_EQ(read_cell(&f, 0), 0);
        CHECK_EQ(read_cell(&f, 1), launchno * ITERATIONS);
    }
    fixture_free(&f);
}

/* Without grGraphCondAssignDefault the default (1) is not applied: the
 * loop runs as the kernel before it sets the value, and not at all once
 * that kernel sets 0. */
GR_TEST(gpu_conditional_while_starts_from_the_value_a_kernel_set)
{
    fixture f;
    fixture_init(&f);
    grGraphConditionalHandle h;
    grGraph_t body[1];
    unsigned one = 1, v = 1, *left = f.cell, *count = f.cell + 1;
    CHECK_OK(grGraphConditionalHandleCreate(&h, f.g, 1, 0));
    void *sargs[] = {&h, &v};
    grGraphNode_t s = add_kernel_after(f.g, NULL, f.set, sargs);
    add_cond_bodies(f.g, s, h, grGraphCondTypeWhile, 1, body);
    void *cargs[] = {&left, &h}, *aargs[] = {&count, &one};
    grGraphNode_t step = add_kernel_after(body[0], NULL, f.countdown, cargs);
    add_kernel_after(body[0], step, f.add, aargs);
    CHECK_OK(grGraphInstantiate(&f.e, f.g, 0));
    write_cell(&f, 0, 4);
    tl_run(f.e); /* the set node starts the loop */
    CHECK_EQ(read_cell(&f, 1), 4);
    set_handle_value(&f, s, h, 0); /* the default would start it */
    write_cell(&f, 0, 4);
    tl_run(f.e);
    CHECK_EQ(read_cell(&f, 0), 4);
    CHECK_EQ(read_cell(&f, 1), 4);
    fixture_free(&f);
}

GR_TEST(gpu_conditional_switch_runs_the_body_of_the_value)
{
    static const unsigned adds[3] = {1, 10, 100};
    fixture f;
    fixture_init(&f);
    grGraphConditionalHandle h;
    grGraph_t body[3];
    unsigned v = 0;
    CHECK_OK(grGraphConditionalHandleCreate(&h, f.g, 0, 0));
    void *sargs[] = {&h, &v};
    grGraphNode_t s = add_kernel_after(f.g, NULL, f.set, sargs);
    add_cond_bodies(f.g, s, h, grGraphCondTypeSwitch, 3, body);
    for (int b = 0; b < 3; b++) {
        void *a[] = {&f.cell, (void *)&adds[b]};
        add_kernel_after(body[b], NULL, f.add, a);
    }
    CHECK_OK(grGraphInstantiate(&f.e, f.g, 0));
    unsigned want = 0;
    for (unsigned value = 0; value < 5; value++) { /* 3 and 4: no body */
        set_handle_value(&f, s, h, value);
        tl_run(f.e);
        want += value < 3 ? adds[value] : 0;
        CHECK_EQ(read_cell(&f, 0), want);
    }
    fixture_free(&f);
}

/* WHILE over a body that sets a second top-level handle and branches on
 * it: a conditional node nested in another, on a handle of the outer
 * graph, set by a kernel of the body. */
GR_TEST(gpu_conditional_nested_if_in_a_while_body)
{
    enum {
        ITERATIONS = 6
    };
    fixture f;
    fixture_init(&f);
    grGraphConditionalHandle loop, branch;
    grGraph_t wbody[1], ibody[1];
    unsigned one = 1, ten = 10, *left = f.cell, *count = f.cell + 1, *inner = f.cell + 2;
    CHECK_OK(grGraphConditionalHandleCreate(&loop, f.g, 1, grGraphCondAssignDefault));
    CHECK_OK(grGraphConditionalHandleCreate(&branch, f.g, 0, grGraphCondAssignDefault));
    add_cond_bodies(f.g, NULL, loop, grGraphCondTypeWhile, 1, wbody);
    void *cargs[] = {&left, &loop}, *sargs[] = {&branch, &one}, *aargs[] = {&count, &one},
         *iargs[] = {&inner, &ten};
    grGraphNode_t step = add_kernel_after(wbody[0], NULL, f.countdown, cargs);
    grGraphNode_t s = add_kernel_after(wbody[0], step, f.set, sargs);
    grGraphNode_t c = add_kernel_after(wbody[0], s, f.add, aargs);
    add_cond_bodies(wbody[0], c, branch, grGraphCondTypeIf, 1, ibody);
    add_kernel_after(ibody[0], NULL, f.add, iargs);
    CHECK_OK(grGraphInstantiate(&f.e, f.g, 0));
    write_cell(&f, 0, ITERATIONS);
    tl_run(f.e);
    CHECK_EQ(read_cell(&f, 0), 0);
    CHECK_EQ(read_cell(&f, 1), ITERATIONS);
    CHECK_EQ(read_cell(&f, 2), 10 * ITERATIONS);
    fixture_free(&f);
}

/* A body kernel's argument changed in the graph reaches the executable
 * through grGraphExecUpdate; its setters refuse body nodes on a GPU. */
GR_TEST(gpu_conditional_update_changes_a_body_kernel_argument)
{
    fixture f;
    fixture_init(&f);
    grGraphConditionalHandle h;
    grGraph_t body[1];
    unsigned v = 1, add = 2;
    CHECK_OK(grGraphConditionalHandleCreate(&h, f.g, 0, 0));
    void *sargs[] = {&h, &v}, *aargs[] = {&f.cell, &add};
    grGraphNode_t s = add_kernel_after(f.g, NULL, f.set, sargs);
    add_cond_bodies(f.g, s, h, grGraphCondTypeIf, 1, body);
    grGraphNode_t inner = add_kernel_after(body[0], NULL, f.add, aargs);
    CHECK_OK(grGraphInstantiate(&f.e, f.g, 0));
    tl_run(f.e);
    CHECK_EQ(read_cell(&f, 0), 2);
    add = 40;
    grKernelNodeParams p = {f.add, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, aargs, NULL};
    CHECK_GR(grErrorNotSupported, grGraphExecKernelNodeSetParams(f.e, inner, &p));
    CHECK_GR(grErrorNotSupported, grGraphNodeSetEnabled(f.e, inner, 0));
    tl_run(f.e); /* nothing changed */
    CHECK_EQ(read_cell(&f, 0), 4);
    CHECK_OK(grGraphKernelNodeSetParams(inner, &p));
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(f.e, f.g, &info));
    tl_run(f.e);
    CHECK_EQ(read_cell(&f, 0), 44);
    fixture_free(&f);
}

/* Launches f's executable and waits: cell 0 must then hold want. */
static void run_expect(fixture *f, unsigned want)
{
    tl_run(f->e);
    CHECK_EQ(read_cell(f, 0), want);
}

/* Updates f's executable from g (accepted), then run_expect. */
static void update_run_expect(fixture *f, grGraph_t g, unsigned want)
{
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(f->e, g, &info));
    CHECK_EQ(info.result, grGraphExecUpdateSuccess);
    run_expect(f, want);
}

/* An update from another graph of the same shape takes its handles: the
 * kernels' arguments hold those now, and still reach the driver's, also
 * after an update to a handle of another default. */
GR_TEST(gpu_conditional_update_from_another_graph_takes_its_handles)
{
    fixture f;
    fixture_init(&f);
    grGraph_t g2, g3;
    grGraphConditionalHandle h, h2, h3;
    grGraph_t body[1];
    unsigned v = 1, add = 3;
    void *aargs[] = {&f.cell, &add};
    grGraphConditionalHandle *hs[3] = {&h, &h2, &h3};
    grGraph_t *gs[3] = {&f.g, &g2, &g3};
    CHECK_OK(grGraphCreate(&g2, 0));
    CHECK_OK(grGraphCreate(&g3, 0));
    for (int i = 0; i < 3; i++) {
        CHECK_OK(grGraphConditionalHandleCreate(hs[i], *gs[i], i == 2 ? 5 : 0, 0));
        void *sargs[] = {hs[i], &v};
        grGraphNode_t s = add_kernel_after(*gs[i], NULL, f.set, sargs);
        add_cond_bodies(*gs[i], s, *hs[i], grGraphCondTypeIf, 1, body);
        add_kernel_after(body[0], NULL, f.add, aargs);
    }
    CHECK_OK(grGraphInstantiate(&f.e, f.g, 0));
    run_expect(&f, 3);
    /* The set node of g2 sets h2, which the node now tests. */
    update_run_expect(&f, g2, 6);
    /* The set node of g3 sets h3 to 1, over its default 5. */
    update_run_expect(&f, g3, 9);
    CHECK_OK(grGraphExecDestroy(f.e));
    f.e = NULL;
    CHECK_OK(grGraphDestroy(g2));
    CHECK_OK(grGraphDestroy(g3));
    fixture_free(&f);
}

/* An update from a graph whose handle has another default changes the
 * default the executable applies at each launch, as CUDA's update does,
 * and an update back restores it. */
GR_TEST(gpu_conditional_update_changes_a_handles_default)
{
    fixture f;
    fixture_init(&f);
    grGraph_t g2, body[1];
    grGraphConditionalHandle h, h2;
    unsigned add = 1;
    void *aargs[] = {&f.cell, &add};
    CHECK_OK(grGraphCreate(&g2, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&h, f.g, 1, grGraphCondAssignDefault));
    add_cond_bodies(f.g, NULL, h, grGraphCondTypeIf, 1, body);
    add_kernel_after(body[0], NULL, f.add, aargs);
    CHECK_OK(grGraphConditionalHandleCreate(&h2, g2, 0, grGraphCondAssignDefault));
    add_cond_bodies(g2, NULL, h2, grGraphCondTypeIf, 1, body);
    add_kernel_after(body[0], NULL, f.add, aargs);
    CHECK_OK(grGraphInstantiate(&f.e, f.g, 0));
    run_expect(&f, 1);
    update_run_expect(&f, g2, 1); /* default 0: the body does not run */
    update_run_expect(&f, f.g, 2);
    CHECK_OK(grGraphExecDestroy(f.e));
    f.e = NULL;
    CHECK_OK(grGraphDestroy(g2));
    fixture_free(&f);
}
