/*
 * graphs.c - graph builders of the tests: counts, a host node, a chain, a
 * fan, the diamond, a seeded random DAG, and a collective node's parameters.
 */
#include "testlib.h"

size_t tl_node_count(grGraph_t g)
{
    size_t n = 0;
    CHECK_OK(grGraphGetNodes(g, NULL, &n));
    return n;
}

size_t tl_edge_count(grGraph_t g)
{
    size_t n = 0;
    CHECK_OK(grGraphGetEdges(g, NULL, NULL, NULL, &n));
    return n;
}

void tl_get_nodes(grGraph_t g, grGraphNode_t *nodes, size_t n)
{
    size_t m = n;
    CHECK_OK(grGraphGetNodes(g, nodes, &m));
    CHECK_EQ(m, n);
}

grCollectiveNodeParams tl_coll(grCollectiveOp op, const void *send, void *recv, size_t count,
                               grCommDataType t, grCommRedOp r, int root, grComm_t comm)
{
    grCollectiveNodeParams p;
    memset(&p, 0, sizeof p);
    p.op = op;
    p.sendbuff = send;
    p.recvbuff = recv;
    p.count = count;
    p.datatype = t;
    p.redop = r;
    p.root = root;
    p.comm = comm;
    return p;
}

bool tl_has_edge(grGraphNode_t a, grGraphNode_t b)
{
    grGraphNode_t succ[64];
    size_t n = 64;
    CHECK_OK(grGraphNodeGetDependentNodes(a, succ, NULL, &n));
    CHECK(n <= 64);
    for (size_t i = 0; i < n; i++)
        if (succ[i] == b)
            return true;
    return false;
}

grGraphNode_t tl_add_kernel(grGraph_t g, const grGraphNode_t *deps, size_t n, grKernel_t k, void **args,
                            unsigned blocks)
{
    grGraphNode_t node;
    grKernelNodeParams p = {k, GR_DIM3(blocks, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphAddKernelNode(&node, g, deps, n, &p));
    return node;
}

grKernelNodeParams tl_set_i32_params(int **dst, int *v)
{
    static void *args[8][2];
    static unsigned next;
    void **a = args[next++ & 7u];
    a[0] = dst;
    a[1] = v;
    grKernelNodeParams p = {tl_kernel_set_i32(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, a, NULL};
    return p;
}

grGraphNode_t tl_add_set_i32(grGraph_t g, const grGraphNode_t *deps, size_t n, int *dst, int v)
{
    grGraphNode_t node;
    int *d = dst;
    grKernelNodeParams p = tl_set_i32_params(&d, &v);
    CHECK_OK(grGraphAddKernelNode(&node, g, deps, n, &p));
    return node;
}

void tl_write_slot(void *p)
{
    tl_slot_write *w = p;
    *w->slot = w->value;
}

grGraphNode_t tl_add_slot_write(grGraph_t g, const grGraphNode_t *deps, size_t n, tl_slot_write *w)
{
    return tl_add_host(g, deps, n, tl_write_slot, w);
}

grGraphNode_t tl_add_host(grGraph_t g, const grGraphNode_t *deps, size_t n, grHostFn_t fn, void *ud)
{
    grGraphNode_t node;
    grHostNodeParams hp = {fn, ud};
    CHECK_OK(grGraphAddHostNode(&node, g, deps, n, &hp));
    return node;
}

/* A host node running fn(ud), or an empty node where fn is NULL. */
static grGraphNode_t add_node(grGraph_t g, const grGraphNode_t *deps, size_t n, grHostFn_t fn, void *ud)
{
    grGraphNode_t node;
    if (fn)
        return tl_add_host(g, deps, n, fn, ud);
    CHECK_OK(grGraphAddEmptyNode(&node, g, deps, n));
    return node;
}

void tl_chain(grGraph_t g, size_t n, grHostFn_t fn, void *ud, grGraphNode_t *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = add_node(g, i ? &out[i - 1] : NULL, i ? 1 : 0, fn, ud);
}

void tl_fan(grGraph_t g, size_t n, grHostFn_t fn, void *ud, grGraphNode_t *out)
{
    out[0] = add_node(g, NULL, 0, NULL, NULL);
    for (size_t i = 1; i <= n; i++)
        out[i] = add_node(g, &out[0], 1, fn, ud);
    out[n + 1] = add_node(g, &out[1], n, NULL, NULL);
}

void tl_diamond(grGraph_t *g, grGraphNode_t n[4], grHostFn_t b_fn)
{
    grGraphNode_t bc[2];
    CHECK_OK(grGraphCreate(g, 0));
    n[0] = add_node(*g, NULL, 0, NULL, NULL);
    n[1] = add_node(*g, &n[0], 1, b_fn, NULL);
    n[2] = add_node(*g, &n[0], 1, NULL, NULL);
    bc[0] = n[1];
    bc[1] = n[2];
    n[3] = add_node(*g, bc, 2, NULL, NULL);
}

/* The one place that builds a conditional node's parameters. */
static grError_t add_cond(grGraphNode_t *n, grGraph_t g, const grGraphNode_t *deps, size_t nd,
                          grGraphConditionalHandle h, grGraphConditionalNodeType type, unsigned size,
                          grGraph_t **bodies)
{
    grGraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = grGraphNodeTypeConditional;
    p.conditional.handle = h;
    p.conditional.type = type;
    p.conditional.size = size;
    *n = NULL;
    grError_t err = grGraphAddNode(n, g, deps, NULL, nd, &p);
    if (err != grSuccess)
        CHECK_PTR_EQ(*n, NULL);
    else if (bodies)
        *bodies = p.conditional.phGraph_out;
    return err;
}

grError_t tl_try_add_cond(grGraph_t g, const grGraphNode_t *deps, size_t nd, grGraphConditionalHandle h,
                          grGraphConditionalNodeType type, unsigned size, grGraph_t **bodies)
{
    grGraphNode_t n;
    return add_cond(&n, g, deps, nd, h, type, size, bodies);
}

grGraphNode_t tl_add_cond(grGraph_t g, const grGraphNode_t *deps, size_t nd, grGraphConditionalHandle h,
                          grGraphConditionalNodeType type, unsigned size, grGraph_t **bodies)
{
    grGraphNode_t n;
    grGraph_t *b = NULL;
    CHECK_OK(add_cond(&n, g, deps, nd, h, type, size, &b));
    CHECK(b != NULL);
    if (bodies)
        *bodies = b;
    return n;
}

uint64_t tl_xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

void tl_random_dag(grGraph_t g, uint64_t *seed, int maxn, grHostFn_t fn, void *ud, size_t ud_stride,
                   tl_dag *out)
{
    grGraphNode_t from[TL_DAG_MAX_EDGES], to[TL_DAG_MAX_EDGES];
    int perm[TL_DAG_MAX];
    CHECK(maxn >= 1 && maxn <= TL_DAG_MAX);
    int n = 1 + (int)(tl_xorshift(seed) % (uint64_t)maxn);
    unsigned density = (unsigned)(tl_xorshift(seed) % 4); /* 0: sparse .. 3: dense */
    /* Creation order apart from index order, so that nothing may lean on
     * nodes being created in a topological order. */
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(tl_xorshift(seed) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    out->n = n;
    out->ne = 0;
    for (int k = 0; k < n; k++) {
        int i = perm[k];
        out->node[i] = add_node(g, NULL, 0, fn, fn ? (char *)ud + (size_t)i * ud_stride : NULL);
    }
    for (int u = 0; u < n; u++)
        for (int v = u + 1; v < n; v++)
            if (tl_xorshift(seed) % 16 < (uint64_t)(1u << density)) {
                out->from[out->ne] = u;
                out->to[out->ne] = v;
                from[out->ne] = out->node[u];
                to[out->ne] = out->node[v];
                out->ne++;
            }
    if (out->ne)
        CHECK_OK(grGraphAddDependencies(g, from, to, NULL, out->ne));
}
