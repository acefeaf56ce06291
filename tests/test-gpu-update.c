/*
 * test-gpu-update.c - grGraphExecUpdate on a GPU when it changes many
 * nodes: the changes reach the driver's executable in one whole-graph
 * update, which must keep what the exec setters wrote since the
 * instantiation and the nodes disabled; and executables of one shape,
 * which share a driver executable, each run their own parameters. Each
 * test needs a GPU device and
 * is skipped, saying why, where there is none (CI has none).
 *
 * The kernel exists twice: a CPU function per block (below) and the GPU
 * entry of the same name in gpu-ptx.h (from gpu-kernels.cu).
 */
#include "testlib.h"
#include "gpu-ptx.h"

enum {
    N = 1000,
    BLOCK = 128,
    K = 32 /* kernel nodes of the chain: enough for a whole-graph update */
};

/* memset(d, 0) -> add(v[0]) -> ... -> add(v[K-1]) -> copy to host. */
typedef struct chain {
    grGraph_t g;
    grGraphNode_t add[K], copy;
    unsigned v[K];
} chain;

typedef struct setup {
    grKernel_t add;
    unsigned *d, *h, n;
    grStream_t s;
} setup;

static void chain_build(chain *c, setup *st, unsigned first, unsigned rest)
{
    grGraphNode_t set;
    CHECK_OK(grGraphCreate(&c->g, 0));
    grMemsetParams ms = {.dst = st->d, .value = 0, .elementSize = 4, .width = N, .height = 1};
    CHECK_OK(grGraphAddMemsetNode(&set, c->g, NULL, 0, &ms));
    grGraphNode_t prev = set;
    for (int i = 0; i < K; i++) {
        c->v[i] = i == 0 ? first : rest;
        void *args[] = {&st->d, &c->v[i], &st->n};
        grKernelNodeParams kp = {.func = st->add,
                                 .gridDim = GR_DIM3((N + BLOCK - 1) / BLOCK, 1, 1),
                                 .blockDim = GR_DIM3(BLOCK, 1, 1),
                                 .kernelParams = args};
        CHECK_OK(grGraphAddKernelNode(&c->add[i], c->g, &prev, 1, &kp));
        prev = c->add[i];
    }
    CHECK_OK(grGraphAddMemcpyNode1D(&c->copy, c->g, &prev, 1, st->h, st->d, N * sizeof(unsigned),
                                    grMemcpyDeviceToHost));
}

static void setup_make(setup *st)
{
    size_t sizes[] = {sizeof(unsigned *), sizeof(unsigned), sizeof(unsigned)};
    CHECK_OK(grKernelCreate(&st->add, tl_add_u32_fn, "gr_test_add", 3, sizes));
    CHECK_OK(grKernelSetImage(st->add, gr_test_ptx, "gr_test_add"));
    CHECK_OK(grMalloc((void **)&st->d, N * sizeof(unsigned)));
    CHECK_OK(grMallocHost((void **)&st->h, N * sizeof(unsigned)));
    CHECK_OK(grStreamCreate(&st->s));
    st->n = N;
}

static void setup_free(setup *st)
{
    CHECK_OK(grStreamDestroy(st->s));
    CHECK_OK(grFree(st->d));
    CHECK_OK(grFreeHost(st->h));
    CHECK_OK(grKernelDestroy(st->add));
}

/* Launches e and checks that every element came out as 'want'. */
static void run_expect(setup *st, grGraphExec_t e, unsigned want)
{
    memset(st->h, 0xff, N * sizeof(unsigned));
    CHECK_OK(grGraphLaunch(e, st->s));
    CHECK_OK(grStreamSynchronize(st->s));
    for (unsigned i = 0; i < N; i++)
        if (st->h[i] != want)
            GR_TEST_FAIL_("element %u is %u, expected %u", i, st->h[i], want);
}

/* Sets add node i of e (paired with c's) to add v. */
static void set_add(setup *st, grGraphExec_t e, const chain *c, int i, unsigned v)
{
    void *args[] = {&st->d, &v, &st->n};
    grKernelNodeParams kp = {.func = st->add,
                             .gridDim = GR_DIM3((N + BLOCK - 1) / BLOCK, 1, 1),
                             .blockDim = GR_DIM3(BLOCK, 1, 1),
                             .kernelParams = args};
    CHECK_OK(grGraphExecKernelNodeSetParams(e, c->add[i], &kp));
}

/* The three tests' rig: on the first GPU, a chain adding 1 per node and
 * one adding 2 (100 at the first node), and an executable of the first. */
typedef struct rig {
    setup st;
    chain ones, twos;
    grGraphExec_t e;
    grGraphExecUpdateResultInfo info;
} rig;

static void update_rig_make(rig *r)
{
    tl_set_first_gpu();
    setup_make(&r->st);
    chain_build(&r->ones, &r->st, 1, 1);
    chain_build(&r->twos, &r->st, 100, 2);
    CHECK_OK(grGraphInstantiate(&r->e, r->ones.g, 0));
}

static void update_rig_free(rig *r)
{
    CHECK_OK(grGraphExecDestroy(r->e));
    CHECK_OK(grGraphDestroy(r->ones.g));
    CHECK_OK(grGraphDestroy(r->twos.g));
    setup_free(&r->st);
    CHECK_OK(grSetDevice(0));
}

GR_TEST(gpu_update_of_many_nodes_keeps_what_set_params_wrote)
{
    rig r;
    update_rig_make(&r);
    run_expect(&r.st, r.e, K);
    /* Node 0 set in place to what the update will give it: the update
     * does not change it, and must not undo it either. */
    set_add(&r.st, r.e, &r.ones, 0, 100);
    run_expect(&r.st, r.e, 100 + (K - 1));
    CHECK_OK(grGraphExecUpdate(r.e, r.twos.g, &r.info));
    CHECK_EQ(r.info.result, grGraphExecUpdateSuccess);
    run_expect(&r.st, r.e, 100 + 2 * (K - 1));
    /* A node set in place, then changed by an update. */
    set_add(&r.st, r.e, &r.ones, 5, 50);
    run_expect(&r.st, r.e, 100 + 2 * (K - 2) + 50);
    CHECK_OK(grGraphExecUpdate(r.e, r.ones.g, &r.info));
    run_expect(&r.st, r.e, K);
    CHECK_OK(grGraphExecUpdate(r.e, r.twos.g, &r.info));
    run_expect(&r.st, r.e, 100 + 2 * (K - 1));
    /* A few nodes changed in place between updates, and back. */
    for (int i = 1; i < K; i += 2)
        set_add(&r.st, r.e, &r.ones, i, 3);
    run_expect(&r.st, r.e, 100 + 2 * (K / 2 - 1) + 3 * (K / 2));
    CHECK_OK(grGraphExecUpdate(r.e, r.twos.g, &r.info));
    run_expect(&r.st, r.e, 100 + 2 * (K - 1));
    update_rig_free(&r);
}

GR_TEST(gpu_update_of_many_nodes_keeps_disabled_nodes_disabled)
{
    rig r;
    update_rig_make(&r);
    CHECK_OK(grGraphNodeSetEnabled(r.e, r.ones.add[3], 0));
    run_expect(&r.st, r.e, K - 1);
    CHECK_OK(grGraphExecUpdate(r.e, r.twos.g, &r.info));
    run_expect(&r.st, r.e, 100 + 2 * (K - 2));
    /* Enabled again: it runs with the parameters of the update. */
    CHECK_OK(grGraphNodeSetEnabled(r.e, r.ones.add[3], 1));
    run_expect(&r.st, r.e, 100 + 2 * (K - 1));
    CHECK_OK(grGraphExecUpdate(r.e, r.ones.g, &r.info));
    run_expect(&r.st, r.e, K);
    update_rig_free(&r);
}

GR_TEST(gpu_update_after_many_set_params_calls_runs_the_updated_graph)
{
    rig r;
    update_rig_make(&r);
    /* Every node set in place, several times (as the benchmark does). */
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < K; i++)
            set_add(&r.st, r.e, &r.ones, i, (unsigned)(round + 4));
    run_expect(&r.st, r.e, 6 * K);
    CHECK_OK(grGraphExecUpdate(r.e, r.twos.g, &r.info));
    run_expect(&r.st, r.e, 100 + 2 * (K - 1));
    CHECK_OK(grGraphExecUpdate(r.e, r.ones.g, &r.info));
    run_expect(&r.st, r.e, K);
    update_rig_free(&r);
}

/* ------------------------------------- executables of one shape (share.c) */

/* Executables of one graph shape with other parameters share a driver
 * executable on a GPU: each must run its own parameters, whatever ran
 * before it, through exec setters and updates, in any order. */
GR_TEST(gpu_executables_of_one_shape_each_run_their_own_parameters)
{
    rig r;
    update_rig_make(&r);
    grGraphExec_t e2, e3;
    CHECK_OK(grGraphInstantiate(&e2, r.twos.g, 0));
    CHECK_OK(grGraphInstantiate(&e3, r.ones.g, 0));
    for (int round = 0; round < 3; round++) {
        run_expect(&r.st, r.e, K);
        run_expect(&r.st, e2, 100 + 2 * (K - 1));
        run_expect(&r.st, e3, K);
    }
    /* A setter on one executable while another's parameters are the
     * driver's, and on the one whose are. */
    set_add(&r.st, e3, &r.ones, 0, 7);
    run_expect(&r.st, r.e, K);
    run_expect(&r.st, e3, 7 + (K - 1));
    set_add(&r.st, e3, &r.ones, 1, 9);
    run_expect(&r.st, e3, 7 + 9 + (K - 2));
    /* Whole updates, of the executable that ran last and of another. */
    CHECK_OK(grGraphExecUpdate(r.e, r.twos.g, &r.info));
    CHECK_EQ(r.info.result, grGraphExecUpdateSuccess);
    CHECK_OK(grGraphExecUpdate(e2, r.ones.g, &r.info));
    CHECK_EQ(r.info.result, grGraphExecUpdateSuccess);
    run_expect(&r.st, r.e, 100 + 2 * (K - 1));
    run_expect(&r.st, e2, K);
    run_expect(&r.st, e3, 7 + 9 + (K - 2));
    /* An upload, then its launch. */
    CHECK_OK(grGraphUpload(e2, r.st.s));
    run_expect(&r.st, e2, K);
    CHECK_OK(grGraphExecDestroy(e2));
    CHECK_OK(grGraphExecDestroy(e3));
    update_rig_free(&r);
}

/* A node disabled in one executable of a shape stays enabled in the
 * others. */
GR_TEST(gpu_node_disabled_in_one_executable_of_a_shape_runs_in_the_others)
{
    rig r;
    update_rig_make(&r);
    grGraphExec_t e2;
    CHECK_OK(grGraphInstantiate(&e2, r.twos.g, 0));
    run_expect(&r.st, r.e, K);
    CHECK_OK(grGraphNodeSetEnabled(e2, r.twos.add[3], 0));
    run_expect(&r.st, e2, 100 + 2 * (K - 2));
    run_expect(&r.st, r.e, K);
    CHECK_OK(grGraphNodeSetEnabled(r.e, r.ones.add[0], 0));
    run_expect(&r.st, r.e, K - 1);
    run_expect(&r.st, e2, 100 + 2 * (K - 2));
    CHECK_OK(grGraphExecDestroy(e2));
    update_rig_free(&r);
}

/* An executable instantiated after another of its shape was destroyed
 * (whose driver executable graphrt keeps for it) runs its own parameters;
 * so does each of many shapes made and destroyed in turn. */
GR_TEST(gpu_executable_of_a_destroyed_shape_runs_its_own_parameters)
{
    rig r;
    update_rig_make(&r);
    run_expect(&r.st, r.e, K);
    for (int round = 0; round < 3; round++) {
        CHECK_OK(grGraphExecDestroy(r.e));
        CHECK_OK(grGraphInstantiate(&r.e, (round & 1) ? r.ones.g : r.twos.g, 0));
        run_expect(&r.st, r.e, (round & 1) ? K : 100 + 2 * (K - 1));
    }
    /* More shapes than are kept: the chain with i + 1 empty nodes after
     * its copy (a shape each), each instantiated twice and destroyed. */
    for (int i = 0; i < 12; i++) {
        grGraph_t g;
        grGraphExec_t e;
        grGraphNode_t prev, empty;
        CHECK_OK(grGraphClone(&g, r.twos.g));
        CHECK_OK(grGraphNodeFindInClone(&prev, r.twos.copy, g));
        for (int j = 0; j <= i; j++, prev = empty)
            CHECK_OK(grGraphAddEmptyNode(&empty, g, &prev, 1));
        for (int twice = 0; twice < 2; twice++) {
            CHECK_OK(grGraphInstantiate(&e, g, 0));
            run_expect(&r.st, e, 100 + 2 * (K - 1));
            CHECK_OK(grGraphExecDestroy(e));
        }
        CHECK_OK(grGraphDestroy(g));
    }
    CHECK_OK(grGraphExecDestroy(r.e));
    CHECK_OK(grGraphInstantiate(&r.e, r.ones.g, 0));
    run_expect(&r.st, r.e, K);
    update_rig_free(&r);
}
