/*
 * test-current-exec.c - on the CPU device, gr_get_current_graph_exec()
 * (CUDA's cudaGetCurrentGraphExec) answers NULL, as CUDA does for every
 * graph launched from the host, and the kernel context's 'exec'
 * (grKernelCtx.exec, graphrt's own) names the executable whose launch runs
 * the kernel, in every block and thread, whether its node is top-level, in
 * a child graph, in a conditional body, captured or cooperative; two
 * executables of one graph see their own; a kernel launched on a stream
 * sees NULL in both.
 */
#include "test.h"
#include "testlib.h"

#include "graphrt_kernel.h"

#include <string.h>

#define CE_BLOCKS 3
#define CE_THREADS 4
#define CE_SLOTS (CE_BLOCKS * CE_THREADS)

/* Every thread stores what it sees in its own slot. */
GR_KERNEL(curexec_record, (grGraphExec_t *, seen))
{
    seen[gr_block_idx_x() * gr_block_dim_x() + gr_thread_idx_x()] = gr_get_current_graph_exec();
}

/* The same with each thread on a fiber, across a barrier. */
GR_KERNEL_SYNC(curexec_record_sync, (grGraphExec_t *, seen))
{
    gr_sync_threads();
    seen[gr_block_idx_x() * gr_block_dim_x() + gr_thread_idx_x()] = gr_get_current_graph_exec();
}

/* The context's field, read by a plain kernel. */
static void record_plain(const grKernelCtx *ctx, void **args)
{
    grGraphExec_t *seen = *(grGraphExec_t **)args[0];
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        (void)ty;
        (void)tz;
        seen[ctx->blockIdx.x * ctx->blockDim.x + tx] = ctx->exec;
    }
}

/* The kernels of a test: CUDA's call (which answers NULL on the CPU) and
 * the context's field (which names the executable). */
enum {
    CE_CUDA,
    CE_CTX,
    CE_KINDS
};

static void create_kernels(grKernel_t k[CE_KINDS])
{
    static const size_t sz[1] = {sizeof(grGraphExec_t *)};
    CHECK_OK(GR_KERNEL_CREATE(&k[CE_CUDA], curexec_record));
    CHECK_OK(grKernelCreate(&k[CE_CTX], record_plain, "curexec_record_plain", 1, sz));
}

static void destroy_kernels(grKernel_t k[CE_KINDS])
{
    for (int i = 0; i < CE_KINDS; i++)
        CHECK_OK(grKernelDestroy(k[i]));
}

/* What kernel kind 'kind' sees in a launch of e. */
static grGraphExec_t want(int kind, grGraphExec_t e)
{
    return kind == CE_CTX ? e : NULL;
}

/* A value no executable has, so that a slot left unwritten shows. */
#define CE_UNSET ((grGraphExec_t)(uintptr_t)1)

static void fill_unset(grGraphExec_t *seen)
{
    for (unsigned i = 0; i < CE_SLOTS; i++)
        seen[i] = CE_UNSET;
}

/* The first 'blocks' x CE_THREADS slots hold want, the others are unset. */
static void check_seen(grGraphExec_t *seen, unsigned blocks, grGraphExec_t want)
{
    for (unsigned i = 0; i < CE_SLOTS; i++)
        CHECK_PTR_EQ(seen[i], i < blocks * CE_THREADS ? want : CE_UNSET);
}

static grGraphNode_t add_record(grGraph_t g, const grGraphNode_t *deps, size_t ndeps, grKernel_t k,
                                void **args, unsigned blocks)
{
    grGraphNode_t n;
    grKernelNodeParams p = {k, GR_DIM3(blocks, 1, 1), GR_DIM3(CE_THREADS, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphAddKernelNode(&n, g, deps, ndeps, &p));
    return n;
}

/* Launches e and waits for it. */
static void run(grGraphExec_t e, grStream_t s)
{
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
}

GR_TEST(current_exec_graph_launch_sees_its_exec)
{
    grKernel_t k[CE_KINDS], ks;
    grStream_t s;
    CHECK_OK(GR_KERNEL_CREATE(&ks, curexec_record_sync));
    create_kernels(k);
    CHECK_OK(grStreamCreate(&s));
    for (int kind = 0; kind < CE_KINDS; kind++) {
        grGraph_t g;
        grGraphExec_t e;
        static grGraphExec_t one[CE_SLOTS], many[CE_SLOTS], fib[CE_SLOTS];
        grGraphExec_t *p1 = one, *pm = many, *pf = fib;
        void *a1[1] = {&p1}, *am[1] = {&pm}, *af[1] = {&pf};
        CHECK_OK(grGraphCreate(&g, 0));
        /* One block (the node runner's direct call), several blocks
         * (spread over the workers), fibers (CUDA's call only: a plain
         * kernel has no fibers); the last two side by side. */
        grGraphNode_t first = add_record(g, NULL, 0, k[kind], a1, 1);
        add_record(g, &first, 1, k[kind], am, CE_BLOCKS);
        add_record(g, &first, 1, ks, af, CE_BLOCKS);
        CHECK_OK(grGraphInstantiate(&e, g, 0));
        /* The first launches are spread over the workers, later ones run
         * in order on one: each way sees the same. */
        for (int i = 0; i < 5; i++) {
            fill_unset(one);
            fill_unset(many);
            fill_unset(fib);
            run(e, s);
            check_seen(one, 1, want(kind, e));
            check_seen(many, CE_BLOCKS, want(kind, e));
            check_seen(fib, CE_BLOCKS, NULL);
        }
        CHECK_OK(grGraphExecDestroy(e));
        CHECK_OK(grGraphDestroy(g));
    }
    CHECK_OK(grStreamDestroy(s));
    destroy_kernels(k);
    CHECK_OK(grKernelDestroy(ks));
}

GR_TEST(current_exec_two_execs_of_one_graph_see_their_own)
{
    grKernel_t k[CE_KINDS];
    grStream_t s;
    create_kernels(k);
    CHECK_OK(grStreamCreate(&s));
    for (int kind = 0; kind < CE_KINDS; kind++) {
        grGraph_t g;
        grGraphExec_t e1, e2;
        static grGraphExec_t seen[CE_SLOTS];
        grGraphExec_t *p = seen;
        void *args[1] = {&p};
        CHECK_OK(grGraphCreate(&g, 0));
        add_record(g, NULL, 0, k[kind], args, CE_BLOCKS);
        CHECK_OK(grGraphInstantiate(&e1, g, 0));
        CHECK_OK(grGraphInstantiate(&e2, g, 0));
        CHECK(e1 != e2);
        for (int i = 0; i < 3; i++) {
            fill_unset(seen);
            run(e1, s);
            check_seen(seen, CE_BLOCKS, want(kind, e1));
            fill_unset(seen);
            run(e2, s);
            check_seen(seen, CE_BLOCKS, want(kind, e2));
        }
        CHECK_OK(grGraphExecDestroy(e1));
        CHECK_OK(grGraphExecDestroy(e2));
        CHECK_OK(grGraphDestroy(g));
    }
    CHECK_OK(grStreamDestroy(s));
    destroy_kernels(k);
}

GR_TEST(current_exec_stream_launch_sees_null)
{
    grKernel_t k[CE_KINDS], ks;
    grStream_t s;
    static grGraphExec_t seen[CE_SLOTS];
    grGraphExec_t *p = seen;
    void *args[1] = {&p};
    create_kernels(k);
    CHECK_OK(GR_KERNEL_CREATE(&ks, curexec_record_sync));
    CHECK_OK(grStreamCreate(&s));
    /* Before and after a graph launch on the same stream, on a worker
     * that just ran the graph's node (whose context named e). */
    grGraph_t g;
    grGraphExec_t e;
    static grGraphExec_t other[CE_SLOTS];
    grGraphExec_t *po = other;
    void *oargs[1] = {&po};
    CHECK_OK(grGraphCreate(&g, 0));
    add_record(g, NULL, 0, k[CE_CTX], oargs, 1);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    grKernel_t each[3] = {k[CE_CUDA], ks, k[CE_CTX]};
    for (int i = 0; i < 3; i++) {
        fill_unset(seen);
        CHECK_OK(grLaunchKernel(each[i], GR_DIM3(1, 1, 1), GR_DIM3(CE_THREADS, 1, 1), args, 0, s));
        CHECK_OK(grStreamSynchronize(s));
        check_seen(seen, 1, NULL);
        fill_unset(seen);
        CHECK_OK(grGraphLaunch(e, s));
        CHECK_OK(grLaunchKernel(each[i], GR_DIM3(CE_BLOCKS, 1, 1), GR_DIM3(CE_THREADS, 1, 1), args, 0, s));
        CHECK_OK(grStreamSynchronize(s));
        check_seen(seen, CE_BLOCKS, NULL);
        CHECK_PTR_EQ(other[0], e);
    }
    /* The legacy default stream too. */
    for (int kind = 0; kind < CE_KINDS; kind++) {
        fill_unset(seen);
        CHECK_OK(grLaunchKernel(k[kind], GR_DIM3(CE_BLOCKS, 1, 1), GR_DIM3(CE_THREADS, 1, 1), args, 0, NULL));
        CHECK_OK(grDeviceSynchronize());
        check_seen(seen, CE_BLOCKS, NULL);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    destroy_kernels(k);
    CHECK_OK(grKernelDestroy(ks));
}

GR_TEST(current_exec_child_and_conditional_body_see_the_top_exec)
{
    grKernel_t k[CE_KINDS];
    grStream_t s;
    create_kernels(k);
    CHECK_OK(grStreamCreate(&s));
    for (int kind = 0; kind < CE_KINDS; kind++) {
        grGraph_t g, child, *body;
        grGraphExec_t e;
        grGraphConditionalHandle h;
        static grGraphExec_t in_child[CE_SLOTS], in_body[CE_SLOTS], in_body_child[CE_SLOTS];
        grGraphExec_t *pc = in_child, *pb = in_body, *pbc = in_body_child;
        void *ac[1] = {&pc}, *ab[1] = {&pb}, *abc[1] = {&pbc};
        CHECK_OK(grGraphCreate(&g, 0));
        /* A child graph node of one kernel node. */
        CHECK_OK(grGraphCreate(&child, 0));
        add_record(child, NULL, 0, k[kind], ac, CE_BLOCKS);
        grGraphNode_t cn;
        CHECK_OK(grGraphAddChildGraphNode(&cn, g, NULL, 0, child));
        /* An IF node whose body holds a kernel and a child graph of one. */
        CHECK_OK(grGraphConditionalHandleCreate(&h, g, 1, grGraphCondAssignDefault));
        tl_add_cond(g, &cn, 1, h, grGraphCondTypeIf, 1, &body);
        add_record(body[0], NULL, 0, k[kind], ab, 1);
        grGraph_t bchild;
        CHECK_OK(grGraphCreate(&bchild, 0));
        add_record(bchild, NULL, 0, k[kind], abc, CE_BLOCKS);
        grGraphNode_t bcn;
        CHECK_OK(grGraphAddChildGraphNode(&bcn, body[0], NULL, 0, bchild));
        CHECK_OK(grGraphInstantiate(&e, g, 0));
        for (int i = 0; i < 4; i++) {
            fill_unset(in_child);
            fill_unset(in_body);
            fill_unset(in_body_child);
            run(e, s);
            check_seen(in_child, CE_BLOCKS, want(kind, e));
            check_seen(in_body, 1, want(kind, e));
            check_seen(in_body_child, CE_BLOCKS, want(kind, e));
        }
        CHECK_OK(grGraphExecDestroy(e));
        CHECK_OK(grGraphDestroy(g));
        CHECK_OK(grGraphDestroy(child));
        CHECK_OK(grGraphDestroy(bchild));
    }
    CHECK_OK(grStreamDestroy(s));
    destroy_kernels(k);
}

GR_TEST(current_exec_captured_graph_sees_its_exec)
{
    grKernel_t k[CE_KINDS];
    grStream_t s;
    create_kernels(k);
    CHECK_OK(grStreamCreate(&s));
    for (int kind = 0; kind < CE_KINDS; kind++) {
        grGraph_t g;
        grGraphExec_t e;
        static grGraphExec_t seen[CE_SLOTS];
        grGraphExec_t *p = seen;
        void *args[1] = {&p};
        fill_unset(seen);
        CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
        CHECK_OK(grLaunchKernel(k[kind], GR_DIM3(CE_BLOCKS, 1, 1), GR_DIM3(CE_THREADS, 1, 1), args, 0, s));
        CHECK_OK(grStreamEndCapture(s, &g));
        check_seen(seen, 0, NULL); /* captured, not run */
        CHECK_OK(grGraphInstantiate(&e, g, 0));
        for (int i = 0; i < 3; i++) {
            fill_unset(seen);
            run(e, s);
            check_seen(seen, CE_BLOCKS, want(kind, e));
        }
        CHECK_OK(grGraphExecDestroy(e));
        CHECK_OK(grGraphDestroy(g));
    }
    CHECK_OK(grStreamDestroy(s));
    destroy_kernels(k);
}

GR_TEST(current_exec_cooperative_node_and_plain_kernel_see_the_exec)
{
    grKernel_t k;
    grStream_t s;
    grGraph_t g;
    grGraphExec_t e;
    static const size_t sz[1] = {sizeof(grGraphExec_t *)};
    static grGraphExec_t seen[CE_SLOTS];
    grGraphExec_t *p = seen;
    void *args[1] = {&p};
    /* Enough workers to keep the grid co-resident (read as the runtime
     * starts, in this test's own process). */
    setenv("GRAPHRT_WORKERS", "4", 1);
    CHECK_OK(grKernelCreate(&k, record_plain, "curexec_record_plain", 1, sz));
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t n = add_record(g, NULL, 0, k, args, CE_BLOCKS);
    grKernelNodeAttrValue v;
    memset(&v, 0, sizeof v);
    v.cooperative = 1;
    CHECK_OK(grGraphKernelNodeSetAttribute(n, grKernelNodeAttributeCooperative, &v));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    for (int i = 0; i < 3; i++) {
        fill_unset(seen);
        run(e, s);
        check_seen(seen, CE_BLOCKS, e);
    }
    fill_unset(seen);
    CHECK_OK(grLaunchCooperativeKernel(k, GR_DIM3(CE_BLOCKS, 1, 1), GR_DIM3(CE_THREADS, 1, 1), args, 0, s));
    CHECK_OK(grStreamSynchronize(s));
    check_seen(seen, CE_BLOCKS, NULL);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grKernelDestroy(k));
}
