/*
 * cond.c - the kernels of the conditional-node tests: a WHILE body's step,
 * a kernel that sets a handle before the node that tests it, a store and
 * an atomic add, and the nodes that run them.
 */
#include "testlib.h"

/* step(counter, handle, limit): counter += 1; the handle is set to 0 once
 * counter reaches limit (a WHILE body's loop test). */
void tl_cond_step_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    int *counter = *(int **)args[0];
    grGraphConditionalHandle h = *(grGraphConditionalHandle *)args[1];
    int limit = *(int *)args[2];
    if (++*counter >= limit)
        CHECK_OK(grGraphSetConditional(h, 0));
}

/* setv(handle, value): sets the handle (a kernel before the node). */
void tl_cond_setv_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    CHECK_OK(grGraphSetConditional(*(grGraphConditionalHandle *)args[0], *(unsigned *)args[1]));
}

/* put(dst, value): *dst = value. */
static void put_fn(const grKernelCtx *ctx, void **args)
{
    if (ctx->blockIdx.x == 0)
        **(int **)args[0] = *(int *)args[1];
}

/* add(dst, value): *dst += value, once per block (atomically). */
static void cond_add_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    __atomic_fetch_add(*(int **)args[0], *(int *)args[1], __ATOMIC_RELAXED);
}

tl_cond_kernels tl_cond_kernels_make(void)
{
    tl_cond_kernels k;
    static const size_t step_sz[3] = {sizeof(int *), sizeof(grGraphConditionalHandle), sizeof(int)};
    static const size_t setv_sz[2] = {sizeof(grGraphConditionalHandle), sizeof(unsigned)};
    static const size_t put_sz[2] = {sizeof(int *), sizeof(int)};
    CHECK_OK(grKernelCreate(&k.step, tl_cond_step_fn, "cond_step", 3, step_sz));
    CHECK_OK(grKernelCreate(&k.setv, tl_cond_setv_fn, "cond_setv", 2, setv_sz));
    CHECK_OK(grKernelCreate(&k.put, put_fn, "cond_put", 2, put_sz));
    CHECK_OK(grKernelCreate(&k.add, cond_add_fn, "cond_add", 2, put_sz));
    return k;
}

void tl_cond_kernels_free(tl_cond_kernels *k)
{
    CHECK_OK(grKernelDestroy(k->step));
    CHECK_OK(grKernelDestroy(k->setv));
    CHECK_OK(grKernelDestroy(k->put));
    CHECK_OK(grKernelDestroy(k->add));
}

grGraphNode_t tl_cond_add_step(grGraph_t g, tl_cond_kernels *k, int *counter, grGraphConditionalHandle h,
                               int limit)
{
    void *args[3] = {&counter, &h, &limit};
    return tl_add_kernel(g, NULL, 0, k->step, args, 1);
}

grGraphNode_t tl_cond_add_put(grGraph_t g, const grGraphNode_t *deps, size_t ndeps, tl_cond_kernels *k,
                              int *dst, int v)
{
    void *args[2] = {&dst, &v};
    return tl_add_kernel(g, deps, ndeps, k->put, args, 1);
}

grGraphNode_t tl_cond_graph(grGraph_t *g, grGraphConditionalHandle *h, unsigned dflt, unsigned flags,
                            grGraphConditionalNodeType type, unsigned size, grGraph_t **bodies)
{
    CHECK_OK(grGraphCreate(g, 0));
    CHECK_OK(grGraphConditionalHandleCreate(h, *g, dflt, flags));
    return tl_add_cond(*g, NULL, 0, *h, type, size, bodies);
}

void tl_cond_done(grGraphExec_t e, grGraph_t g, tl_cond_kernels *k)
{
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    tl_cond_kernels_free(k);
}
