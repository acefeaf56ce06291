/*
 * test-graph-file.c - graph files: a saved graph loads back as the same
 * graph (types, parameters, edges in order; every query answers the same,
 * pointers into the loaded buffers at the same offsets), saving is
 * deterministic, and every malformed or truncated file is refused with a
 * detail naming its line, leaking nothing. Conditional nodes in files are
 * in test-graph-file-cond.c.
 */
#include "testlib.h"

#include <stdbool.h>
#include <unistd.h>

static int host_calls;
static void hfn(void *p)
{
    (void)p;
    host_calls++;
}

/* -------------------------------------------------------- the fixture */

/* The program's objects that random graphs use. */
typedef struct world {
    grKernel_t k[3];
    void *buf[3];
    size_t bufsize[3];
    grEvent_t ev[2];
    int regdata;
} world;

static void world_make(world *w)
{
    static const size_t s0[] = {8, 4}, s1[] = {8, 8, 2, 16};
    CHECK_OK(grKernelCreate(&w->k[0], tl_kernel_nop, "scale", 2, s0));
    CHECK_OK(grKernelCreate(&w->k[1], tl_kernel_nop, "mix two", 4, s1));
    CHECK_OK(grKernelCreate(&w->k[2], tl_kernel_nop, "noargs", 0, NULL));
    for (int i = 0; i < 3; i++) {
        w->bufsize[i] = 256u << i;
        if (i == 2)
            CHECK_OK(grMallocHost(&w->buf[i], w->bufsize[i]));
        else
            CHECK_OK(grMalloc(&w->buf[i], w->bufsize[i]));
    }
    CHECK_OK(grEventCreate(&w->ev[0]));
    CHECK_OK(grEventCreateWithFlags(&w->ev[1], grEventDisableTiming));
    CHECK_OK(grHostFnRegister(hfn, "count host calls", &w->regdata));
}

static void world_free(world *w)
{
    for (int i = 0; i < 3; i++)
        CHECK_OK(grKernelDestroy(w->k[i]));
    CHECK_OK(grFree(w->buf[0]));
    CHECK_OK(grFree(w->buf[1]));
    CHECK_OK(grFreeHost(w->buf[2]));
    CHECK_OK(grEventDestroy(w->ev[0]));
    CHECK_OK(grEventDestroy(w->ev[1]));
    CHECK_OK(grHostFnUnregister(hfn));
}

static uint64_t file_rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static size_t rng_below(uint64_t *s, size_t n)
{
    return (size_t)(file_rng_next(s) % n);
}

/* A pointer into one of the world's buffers. */
static char *rnd_ptr(world *w, uint64_t *s, size_t room, int *which)
{
    int b = (int)rng_below(s, 3);
    size_t off = rng_below(s, w->bufsize[b] - room + 1);
    if (which)
        *which = b;
    return (char *)w->buf[b] + off;
}

/* Adds one random node (not a memory node) to g after deps. */
static void add_random_node(world *w, uint64_t *s, grGraph_t g, grGraphNode_t *deps, size_t nd, int depth,
                            grGraphNode_t *out)
{
    switch (rng_below(s, depth < 2 ? 8 : 7)) {
    case 0: {
        int which = (int)rng_below(s, 3);
        grKernel_t k = w->k[which];
        void *p0 = rnd_ptr(w, s, 1, NULL), *p1 = rnd_ptr(w, s, 1, NULL);
        uint64_t v64 = file_rng_next(s);
        int v32 = (int)rng_below(s, 1000);
        short v16 = (short)rng_below(s, 300);
        unsigned char v128[16];
        for (int i = 0; i < 16; i++)
            v128[i] = (unsigned char)rng_below(s, 256);
        void *a0[] = {&p0, &v32};
        void *a1[] = {&p1, rng_below(s, 2) ? (void *)&p0 : (void *)&v64, &v16, v128};
        grKernelNodeParams kp = {k,
                                 GR_DIM3((unsigned)rng_below(s, 4) + 1, 1, (unsigned)rng_below(s, 2) + 1),
                                 GR_DIM3((unsigned)rng_below(s, 64) + 1, 1, 1),
                                 (unsigned)rng_below(s, 3) * 128,
                                 which == 0   ? a0
                                 : which == 1 ? a1
                                              : NULL,
                                 NULL};
        CHECK_OK(grGraphAddKernelNode(out, g, deps, nd, &kp));
        break;
    }
    case 1: {
        size_t count = rng_below(s, 64);
        static const grMemcpyKind kinds[] = {grMemcpyHostToHost, grMemcpyHostToDevice, grMemcpyDeviceToHost,
                                             grMemcpyDeviceToDevice, grMemcpyDefault};
        if (rng_below(s, 3) == 0) {
            /* A 2D or 3D copy (positions 0: a file keeps each side's
             * first byte), at most 3 * 24 + 24 * 5 + 16 bytes a side. */
            grMemcpy3DParms c;
            memset(&c, 0, sizeof c);
            c.extent = make_grExtent(1 + rng_below(s, 16), 1 + rng_below(s, 4), 1 + rng_below(s, 2));
            size_t dp = c.extent.width + rng_below(s, 25 - c.extent.width),
                   sp = c.extent.width + rng_below(s, 9);
            size_t dy = c.extent.height + (c.extent.depth > 1 ? rng_below(s, 2) : 0);
            size_t sy = c.extent.height + (c.extent.depth > 1 ? rng_below(s, 2) : 0);
            c.dstPtr = make_grPitchedPtr(rnd_ptr(w, s, 208, NULL), dp, c.extent.width, dy);
            c.srcPtr = make_grPitchedPtr(rnd_ptr(w, s, 208, NULL), sp, c.extent.width, sy);
            c.kind = kinds[rng_below(s, 5)];
            CHECK_OK(grGraphAddMemcpyNode(out, g, deps, nd, &c));
            break;
        }
        CHECK_OK(grGraphAddMemcpyNode1D(out, g, deps, nd, rnd_ptr(w, s, 64, NULL), rnd_ptr(w, s, 64, NULL),
                                        count, kinds[rng_below(s, 5)]));
        break;
    }
    case 2: {
        int b = (int)rng_below(s, 3);
        grMemsetParams mp = {w->buf[b],          32, (unsigned)rng_below(s, 256), 1u << rng_below(s, 3), 4,
                             1 + rng_below(s, 3)};
        mp.dst = (char *)w->buf[b] + 4 * rng_below(s, 4);
        CHECK_OK(grGraphAddMemsetNode(out, g, deps, nd, &mp));
        break;
    }
    case 3: {
        void *datas[] = {NULL, &w->regdata, rnd_ptr(w, s, 1, NULL)};
        grHostNodeParams hp = {hfn, datas[rng_below(s, 3)]};
        CHECK_OK(grGraphAddHostNode(out, g, deps, nd, &hp));
        break;
    }
    case 4:
        CHECK_OK(grGraphAddEmptyNode(out, g, deps, nd));
        break;
    /* Records of one event, waits on the other: a graph that waits for
     * its own record does not finish (docs/graph-files.md). */
    case 5:
        CHECK_OK(grGraphAddEventRecordNode(out, g, deps, nd, w->ev[0]));
        break;
    case 6:
        CHECK_OK(grGraphAddEventWaitNode(out, g, deps, nd, w->ev[1]));
        break;
    default: {
        grGraph_t c;
        grGraphNode_t cn[4];
        CHECK_OK(grGraphCreate(&c, 0));
        size_t n = 1 + rng_below(s, 4);
        for (size_t i = 0; i < n; i++) {
            size_t k = i ? rng_below(s, i + 1) : 0;
            add_random_node(w, s, c, k ? &cn[rng_below(s, i)] : NULL, k ? 1 : 0, depth + 1, &cn[i]);
        }
        CHECK_OK(grGraphAddChildGraphNode(out, g, deps, nd, c));
        CHECK_OK(grGraphDestroy(c));
        break;
    }
    }
}

/* A random graph of every node type: edges at add time, edges added
 * later (also from later nodes to earlier ones), and memory nodes. */
static grGraph_t random_graph_of(world *w, uint64_t *s, bool allow_mem)
{
    grGraph_t g;
    grGraphNode_t nodes[24], deps[4];
    size_t n = 1 + rng_below(s, 12), k = 0;
    bool mem = rng_below(s, 4) == 0 && allow_mem;
    CHECK_OK(grGraphCreate(&g, 0));
    for (size_t i = 0; i < n; i++) {
        size_t nd = 0;
        for (size_t j = 0; j < i && nd < 4; j++)
            if (rng_below(s, 4) == 0)
                deps[nd++] = nodes[rng_below(s, i) == j ? j : j];
        add_random_node(w, s, g, deps, nd, 0, &nodes[k++]);
    }
    /* Edges added after the nodes, some against creation order. */
    for (int t = 0; t < 3; t++) {
        grGraphNode_t a = nodes[rng_below(s, k)], b = nodes[rng_below(s, k)];
        if (a != b)
            (void)grGraphAddDependencies(g, &a, &b, NULL, 1); /* may close a cycle: refused */
    }
    if (mem) {
        grMemAllocNodeParams ap;
        memset(&ap, 0, sizeof ap);
        ap.poolProps.allocType = grMemAllocationTypePinned;
        ap.poolProps.location = (grMemLocation){grMemLocationTypeDevice, 0};
        ap.poolProps.maxSize = rng_below(s, 2) * 4096;
        grMemAccessDesc d = {{grMemLocationTypeDevice, 0}, grMemAccessFlagsProtReadWrite};
        if (rng_below(s, 2)) {
            ap.accessDescs = &d;
            ap.accessDescCount = 1;
        }
        ap.bytesize = 1024;
        grGraphNode_t an, un, fn;
        CHECK_OK(grGraphAddMemAllocNode(&an, g, &nodes[rng_below(s, k)], 1, &ap));
        void *p = (char *)ap.dptr + 8 * rng_below(s, 8);
        int v = 3;
        void *args[] = {&p, &v};
        grKernelNodeParams kp = {w->k[0], GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
        CHECK_OK(grGraphAddKernelNode(&un, g, &an, 1, &kp));
        CHECK_OK(grGraphAddMemcpyNode1D(&un, g, &un, 1, w->buf[0], p, 16, grMemcpyDeviceToDevice));
        CHECK_OK(grGraphAddMemFreeNode(&fn, g, &un, 1, ap.dptr));
    }
    return g;
}

static grGraph_t random_graph(world *w, uint64_t *s)
{
    return random_graph_of(w, s, true);
}

/* ------------------------------------------------------ the comparison */

/* Pointers of the original map to pointers of the loaded graph by a
 * consistent shift per buffer (the loaded graph has its own buffers). */
typedef struct ptrmap {
    const world *w;
    intptr_t shift[3];
    bool known[3];
    /* allocation nodes: original dptr -> loaded dptr */
    void *alloc_o[4], *alloc_l[4];
    size_t nalloc;
} ptrmap;

static void check_ptr(ptrmap *m, const void *po, const void *pl)
{
    if (!po) {
        CHECK(pl == NULL);
        return;
    }
    for (int b = 0; b < 3; b++) {
        uintptr_t base = (uintptr_t)m->w->buf[b];
        if ((uintptr_t)po - base < m->w->bufsize[b]) {
            intptr_t sh = (intptr_t)((uintptr_t)pl - (uintptr_t)po);
            if (!m->known[b]) {
                m->known[b] = true;
                m->shift[b] = sh;
            }
            CHECK_EQ(sh, m->shift[b]);
            return;
        }
    }
    for (size_t i = 0; i < m->nalloc; i++)
        if ((uintptr_t)po - (uintptr_t)m->alloc_o[i] < 1024) {
            CHECK_EQ((uintptr_t)pl - (uintptr_t)m->alloc_l[i], (uintptr_t)po - (uintptr_t)m->alloc_o[i]);
            return;
        }
    /* Any other pointer is kept as it was. */
    CHECK_PTR_EQ(po, pl);
}

static size_t node_index(grGraphNode_t *list, size_t n, grGraphNode_t x)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == x)
            return i;
    GR_TEST_FAIL_("node %p not in its graph", (void *)x);
}

static void compare_graphs(ptrmap *m, grGraph_t a, grGraph_t b);

static void compare_node(ptrmap *m, grGraphNode_t x, grGraphNode_t y)
{
    grGraphNodeType tx, ty;
    CHECK_OK(grGraphNodeGetType(x, &tx));
    CHECK_OK(grGraphNodeGetType(y, &ty));
    CHECK_EQ(tx, ty);
    switch (tx) {
    case grGraphNodeTypeKernel: {
        grKernelNodeParams p, q;
        CHECK_OK(grGraphKernelNodeGetParams(x, &p));
        CHECK_OK(grGraphKernelNodeGetParams(y, &q));
        CHECK_PTR_EQ(p.func, q.func);
        CHECK_EQ(p.gridDim.x, q.gridDim.x);
        CHECK_EQ(p.gridDim.z, q.gridDim.z);
        CHECK_EQ(p.blockDim.x, q.blockDim.x);
        CHECK_EQ(p.sharedMemBytes, q.sharedMemBytes);
        int np = p.func == m->w->k[0] ? 2 : p.func == m->w->k[1] ? 4 : 0;
        static const size_t sz[2][4] = {{8, 4}, {8, 8, 2, 16}};
        for (int i = 0; i < np; i++) {
            size_t n = sz[p.func == m->w->k[1]][i];
            if (n == 8) {
                void *vo, *vl;
                memcpy(&vo, p.kernelParams[i], 8);
                memcpy(&vl, q.kernelParams[i], 8);
                check_ptr(m, vo, vl);
            } else {
                CHECK(memcmp(p.kernelParams[i], q.kernelParams[i], n) == 0);
            }
        }
        break;
    }
    case grGraphNodeTypeMemcpy: {
        grMemcpy3DParms p, q;
        CHECK_OK(grGraphMemcpyNodeGetParams(x, &p));
        CHECK_OK(grGraphMemcpyNodeGetParams(y, &q));
        CHECK_EQ(p.extent.width, q.extent.width);
        CHECK_EQ(p.extent.height, q.extent.height);
        CHECK_EQ(p.extent.depth, q.extent.depth);
        CHECK_EQ(p.kind, q.kind);
        if (p.extent.height > 1 || p.extent.depth > 1) { /* a 2D or 3D copy */
            CHECK_EQ(p.dstPtr.pitch, q.dstPtr.pitch);
            CHECK_EQ(p.srcPtr.pitch, q.srcPtr.pitch);
        }
        if (p.extent.depth > 1) {
            CHECK_EQ(p.dstPtr.ysize, q.dstPtr.ysize);
            CHECK_EQ(p.srcPtr.ysize, q.srcPtr.ysize);
        }
        if (p.extent.width) {
            check_ptr(m, p.dstPtr.ptr, q.dstPtr.ptr);
            check_ptr(m, p.srcPtr.ptr, q.srcPtr.ptr);
        }
        break;
    }
    case grGraphNodeTypeMemset: {
        grMemsetParams p, q;
        CHECK_OK(grGraphMemsetNodeGetParams(x, &p));
        CHECK_OK(grGraphMemsetNodeGetParams(y, &q));
        check_ptr(m, p.dst, q.dst);
        CHECK_EQ(p.pitch, q.pitch);
        CHECK_EQ(p.value, q.value);
        CHECK_EQ(p.elementSize, q.elementSize);
        CHECK_EQ(p.width, q.width);
        CHECK_EQ(p.height, q.height);
        break;
    }
    case grGraphNodeTypeHost: {
        grHostNodeParams p, q;
        CHECK_OK(grGraphHostNodeGetParams(x, &p));
        CHECK_OK(grGraphHostNodeGetParams(y, &q));
        CHECK(p.fn == q.fn);
        check_ptr(m, p.userData, q.userData);
        break;
    }
    case grGraphNodeTypeGraph: {
        grGraph_t cx, cy;
        CHECK_OK(grGraphChildGraphNodeGetGraph(x, &cx));
        CHECK_OK(grGraphChildGraphNodeGetGraph(y, &cy));
        compare_graphs(m, cx, cy);
        break;
    }
    case grGraphNodeTypeWaitEvent:
    case grGraphNodeTypeEventRecord: {
        grEvent_t ex, ey;
        if (tx == grGraphNodeTypeWaitEvent) {
            CHECK_OK(grGraphEventWaitNodeGetEvent(x, &ex));
            CHECK_OK(grGraphEventWaitNodeGetEvent(y, &ey));
        } else {
            CHECK_OK(grGraphEventRecordNodeGetEvent(x, &ex));
            CHECK_OK(grGraphEventRecordNodeGetEvent(y, &ey));
        }
        /* The loader's own events, one per event of the original. */
        CHECK(ex != ey && ey != NULL);
        break;
    }
    case grGraphNodeTypeMemAlloc: {
        grMemAllocNodeParams p, q;
        CHECK_OK(grGraphMemAllocNodeGetParams(x, &p));
        CHECK_OK(grGraphMemAllocNodeGetParams(y, &q));
        CHECK_EQ(p.bytesize, q.bytesize);
        CHECK_EQ(p.accessDescCount, q.accessDescCount);
        CHECK_EQ(p.poolProps.maxSize, q.poolProps.maxSize);
        CHECK_EQ(p.poolProps.allocType, q.poolProps.allocType);
        CHECK(m->nalloc < 4);
        m->alloc_o[m->nalloc] = p.dptr;
        m->alloc_l[m->nalloc++] = q.dptr;
        break;
    }
    case grGraphNodeTypeMemFree: {
        void *p, *q;
        CHECK_OK(grGraphMemFreeNodeGetParams(x, &p));
        CHECK_OK(grGraphMemFreeNodeGetParams(y, &q));
        check_ptr(m, p, q);
        break;
    }
    case grGraphNodeTypeBatchMemOp: {
        grBatchMemOpNodeParams p, q;
        CHECK_OK(grGraphBatchMemOpNodeGetParams(x, &p));
        CHECK_OK(grGraphBatchMemOpNodeGetParams(y, &q));
        CHECK_EQ(p.count, q.count);
        for (unsigned i = 0; i < p.count; i++) {
            CHECK_EQ(p.paramArray[i].operation, q.paramArray[i].operation);
            CHECK_EQ(p.paramArray[i].waitValue.value64, q.paramArray[i].waitValue.value64);
            CHECK_EQ(p.paramArray[i].waitValue.flags, q.paramArray[i].waitValue.flags);
            check_ptr(m, p.paramArray[i].waitValue.address, q.paramArray[i].waitValue.address);
        }
        break;
    }
    case grGraphNodeTypeEmpty:
    case grGraphNodeTypeConditional: /* graph files refuse them */
    case grGraphNodeTypeCollective:  /* graph files hold none */
    case grGraphNodeTypeCount:
        break;
    }
}

static void compare_lists(grGraphNode_t *la, size_t na, grGraphNode_t *lb, grGraphNode_t *xs, size_t nx,
                          grGraphNode_t *ys, size_t ny)
{
    CHECK_EQ(nx, ny);
    for (size_t i = 0; i < nx; i++)
        CHECK_EQ(node_index(la, na, xs[i]), node_index(lb, na, ys[i]));
}

/* Same nodes, types, parameters, edges, roots, dependencies and
 * dependents in the same orders. */
static void compare_graphs(ptrmap *m, grGraph_t a, grGraph_t b)
{
    size_t na = 0, nb = 0, ea = 0, eb = 0;
    CHECK_OK(grGraphGetNodes(a, NULL, &na));
    CHECK_OK(grGraphGetNodes(b, NULL, &nb));
    CHECK_EQ(na, nb);
    grGraphNode_t *la = calloc(na + 1, sizeof *la), *lb = calloc(na + 1, sizeof *lb);
    CHECK_OK(grGraphGetNodes(a, la, &na));
    CHECK_OK(grGraphGetNodes(b, lb, &nb));
    for (size_t i = 0; i < na; i++)
        compare_node(m, la[i], lb[i]);
    CHECK_OK(grGraphGetEdges(a, NULL, NULL, NULL, &ea));
    CHECK_OK(grGraphGetEdges(b, NULL, NULL, NULL, &eb));
    CHECK_EQ(ea, eb);
    size_t room = (ea > na ? ea : na) + 1;
    grGraphNode_t *fa = calloc(room, sizeof *fa), *ta = calloc(room, sizeof *ta);
    grGraphNode_t *fb = calloc(room, sizeof *fb), *tb = calloc(room, sizeof *tb);
    CHECK_OK(grGraphGetEdges(a, fa, ta, NULL, &ea));
    CHECK_OK(grGraphGetEdges(b, fb, tb, NULL, &eb));
    compare_lists(la, na, lb, fa, ea, fb, eb);
    compare_lists(la, na, lb, ta, ea, tb, eb);
    size_t ra = na, rb = na;
    CHECK_OK(grGraphGetRootNodes(a, fa, &ra));
    CHECK_OK(grGraphGetRootNodes(b, fb, &rb));
    compare_lists(la, na, lb, fa, ra, fb, rb);
    grGraphNode_t xa[32], xb[32];
    for (size_t i = 0; i < na; i++) {
        size_t ca = 32, cb = 32;
        CHECK_OK(grGraphNodeGetDependencies(la[i], xa, NULL, &ca));
        CHECK_OK(grGraphNodeGetDependencies(lb[i], xb, NULL, &cb));
        compare_lists(la, na, lb, xa, ca, xb, cb);
        ca = cb = 32;
        CHECK_OK(grGraphNodeGetDependentNodes(la[i], xa, NULL, &ca));
        CHECK_OK(grGraphNodeGetDependentNodes(lb[i], xb, NULL, &cb));
        compare_lists(la, na, lb, xa, ca, xb, cb);
    }
    free(la);
    free(lb);
    free(fa);
    free(ta);
    free(fb);
    free(tb);
}

GR_TEST_T(graph_file_round_trips_ten_thousand_random_graphs_of_every_node_type, 240)
{
    world w;
    char p1[128], p2[128];
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    tl_tmp_path(p1, sizeof p1, "test", "rt1", ".graph");
    tl_tmp_path(p2, sizeof p2, "test", "rt2", ".graph");
    world_make(&w);
    for (int it = 0; it < 10000; it++) {
        grGraph_t g = random_graph(&w, &seed), l;
        CHECK_OK(grGraphSaveToFile(g, p1, 0));
        CHECK_OK(grGraphLoadFromFile(&l, p1, 0));
        ptrmap m;
        memset(&m, 0, sizeof m);
        m.w = &w;
        compare_graphs(&m, g, l);
        /* The loaded graph saves to the same bytes, and so does the
         * original a second time. */
        CHECK_OK(grGraphSaveToFile(l, p2, 0));
        size_t n1, n2;
        char *a = tl_slurp(p1, &n1), *b = tl_slurp(p2, &n2);
        if (n1 != n2 || memcmp(a, b, n1) != 0)
            GR_TEST_FAIL_("graph %d saves differently after a round trip:\n%s\n---\n%s", it, a, b);
        free(b);
        CHECK_OK(grGraphSaveToFile(g, p2, 0));
        b = tl_slurp(p2, &n2);
        CHECK(n1 == n2 && memcmp(a, b, n1) == 0);
        free(a);
        free(b);
        CHECK_OK(grGraphDestroy(g));
        CHECK_OK(grGraphDestroy(l));
    }
    unlink(p1);
    unlink(p2);
    world_free(&w);
}

GR_TEST(graph_file_loaded_graph_runs_and_its_buffers_outlive_it_in_executables)
{
    world w;
    char path[128];
    grGraph_t g, l;
    grGraphNode_t n[3];
    grGraphExec_t e;
    tl_tmp_path(path, sizeof path, "test", "run", ".graph");
    world_make(&w);
    CHECK_OK(grGraphCreate(&g, 0));
    grMemsetParams mp = {w.buf[0], 0, 7, 1, 64, 1};
    CHECK_OK(grGraphAddMemsetNode(&n[0], g, NULL, 0, &mp));
    CHECK_OK(grGraphAddMemcpyNode1D(&n[1], g, &n[0], 1, w.buf[2], w.buf[0], 64, grMemcpyDeviceToHost));
    grHostNodeParams hp = {hfn, &w.regdata};
    CHECK_OK(grGraphAddHostNode(&n[2], g, &n[1], 1, &hp));
    CHECK_OK(grGraphSaveToFile(g, path, 0));
    CHECK_OK(grGraphLoadFromFile(&l, path, 0));
    grMemcpy3DParms cp;
    CHECK_OK(grGraphMemcpyNodeGetParams(n[1], &cp));
    grGraphNode_t ln[3];
    size_t count = 3;
    CHECK_OK(grGraphGetNodes(l, ln, &count));
    CHECK_OK(grGraphMemcpyNodeGetParams(ln[1], &cp));
    unsigned char *host = cp.dstPtr.ptr;
    CHECK(host != w.buf[2]);
    grHostNodeParams lh;
    CHECK_OK(grGraphHostNodeGetParams(ln[2], &lh));
    CHECK_PTR_EQ(lh.userData, &w.regdata); /* data=registered */
    CHECK_OK(grGraphInstantiate(&e, l, 0));
    /* The executable keeps the loaded buffers alive. */
    CHECK_OK(grGraphDestroy(l));
    host_calls = 0;
    CHECK_OK(grGraphLaunch(e, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_EQ(host_calls, 1);
    for (int i = 0; i < 64; i++)
        CHECK_EQ(host[i], 7);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    unlink(path);
    world_free(&w);
}

/* -------------------------------------------------------- refusals */

GR_TEST(graph_file_refuses_malformed_files_naming_the_line)
{
    grKernel_t k;
    static const size_t sz[] = {8, 4};
    CHECK_OK(grKernelCreate(&k, tl_kernel_nop, "scale", 2, sz));
    tl_load_refused("hello\n", "1", "not a graphrt graph file");
    tl_load_refused("graphrt-graph 2\ngraph {\n}\n", "1", "version 2 is not supported");
    tl_load_refused("graphrt-graph 1\ngraph {\nn0 empty\n", "3", "truncated");
    tl_load_refused("graphrt-graph 1\ngraph {\nn0 empty\n}", "4", "truncated");
    tl_load_refused("graphrt-graph 1\n# c\n\ngraph {\n  n0 empty\n  n1 bogus\n}\n", "6", "not a node type");
    tl_load_refused("graphrt-graph 1\ngraph {\nn0 empty\nn2 empty\n}\n", "4", "expected node n1");
    tl_load_refused("graphrt-graph 1\ngraph {\nn0 empty after=n5\n}\n", "3", "node list");
    tl_load_refused("graphrt-graph 1\ngraph {\nn0 empty after=n0\n}\n", "3", "self");
    tl_load_refused("graphrt-graph 1\ngraph {\nn0 empty\nn1 empty after=n0,n0\n}\n", "4", "once");
    tl_load_refused("graphrt-graph 1\ngraph {\nn0 empty colour=red\n}\n", "3", "colour");
    tl_load_refused("graphrt-graph 1\nkernel k0 \"nope\" 8\ngraph {\n}\n", "2",
                    "kernel 'nope' is not registered: create it with grKernelCreate");
    tl_load_refused("graphrt-graph 1\nkernel k0 \"scale\" 8 8\ngraph {\n}\n", "2", "other sizes");
    tl_load_refused("graphrt-graph 1\nhostfn h0 \"who\"\ngraph {\n}\n", "2",
                    "host function 'who' is not registered: register it with grHostFnRegister");
    tl_load_refused("graphrt-graph 1\nkernel k0 \"scale\" 8 4\ngraph {\nn0 kernel k0 grid=1,1,1 block=1,1,1 "
                    "shmem=0 args=x0000000000000000\n}\n",
                    "4", "'args=' lists 1");
    tl_load_refused("graphrt-graph 1\nkernel k0 \"scale\" 8 4\ngraph {\nn0 kernel k0 grid=0,1,1 block=1,1,1 "
                    "shmem=0 args=x0000000000000000,x00000000\n}\n",
                    "4", "grid");
    tl_load_refused(
        "graphrt-graph 1\nbuffer b0 device 64\ngraph {\nn0 memset dst=b0+0 pitch=0 value=1 elem=1 "
        "width=65 height=1\n}\n",
        "4", "past its end");
    tl_load_refused(
        "graphrt-graph 1\nbuffer b0 device 64\ngraph {\nn0 memset dst=b1+0 pitch=0 value=1 elem=1 "
        "width=6 height=1\n}\n",
        "4", "not declared");
    tl_load_refused("graphrt-graph 1\ngraph {\nn0 graph {\nn0 empty\n}\n", "5", "truncated");
    tl_load_refused("graphrt-graph 1\ngraph {\n}\nn0 empty\n", "4", "after the '}'");
    tl_load_refused("graphrt-graph 1\ngraph {\nn0 empty\nn1 empty\nn0 empty succ=n1,n1\n}\n", "5",
                    "expected node n2");
    tl_load_refused("graphrt-graph 1\ngraph {\nn0 empty\nn1 empty after=n0\nn2 empty after=n0 succ=n1\n}\n",
                    "5", "succ= of n2");
    CHECK_OK(grKernelDestroy(k));
}

/* Every proper prefix of a saved file is refused (a truncated file), and
 * nothing leaks (the sanitizer builds check). */
GR_TEST_T(graph_file_refuses_every_truncation, 120)
{
    world w;
    char path[128], cut[128];
    uint64_t seed = 7;
    tl_tmp_path(path, sizeof path, "test", "full", ".graph");
    tl_tmp_path(cut, sizeof cut, "test", "cut", ".graph");
    world_make(&w);
    grGraph_t g = random_graph(&w, &seed), l;
    for (int i = 0; i < 5; i++) {
        grGraph_t h = random_graph_of(&w, &seed, false); /* embeddable: no memory nodes */
        grGraphNode_t c;
        CHECK_OK(grGraphAddChildGraphNode(&c, g, NULL, 0, h));
        CHECK_OK(grGraphDestroy(h));
    }
    CHECK_OK(grGraphSaveToFile(g, path, 0));
    size_t n;
    char *text = tl_slurp(path, &n);
    for (size_t len = 0; len < n; len++) {
        tl_spit(cut, text, len);
        CHECK_GR(grErrorInvalidValue, grGraphLoadFromFile(&l, cut, 0));
        CHECK_DETAIL_HAS(cut);
    }
    CHECK_OK(grGraphLoadFromFile(&l, path, 0));
    CHECK_OK(grGraphDestroy(l));
    free(text);
    unlink(path);
    unlink(cut);
    CHECK_OK(grGraphDestroy(g));
    world_free(&w);
}

/* The kernel and host function declarations of a file, in order. */
static void declarations(const char *text, char *out, size_t cap)
{
    size_t w = 0;
    for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
        size_t len = (size_t)(strchr(l, '\n') - l);
        if ((strncmp(l, "kernel ", 7) == 0 || strncmp(l, "hostfn ", 7) == 0) && w + len + 1 < cap) {
            memcpy(out + w, l, len + 1);
            w += len + 1;
        }
    }
    out[w] = '\0';
}

GR_TEST(graph_file_stand_ins_replay_a_graph_without_its_kernels)
{
    world w;
    char path[128];
    grGraph_t g, l, c;
    grGraphNode_t n[5];
    grGraphExec_t e;
    tl_tmp_path(path, sizeof path, "test", "standin", ".graph");
    world_make(&w);
    /* Every kind of node whose work is a function, and a child graph;
     * the stand-ins touch no memory, so the replay races on nothing. */
    void *p = w.buf[0];
    int v = 5;
    void *args[] = {&p, &v};
    grKernelNodeParams kp = {w.k[0], GR_DIM3(4, 1, 1), GR_DIM3(32, 1, 1), 0, args, NULL};
    grKernelNodeParams kq = {w.k[2], GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, NULL, NULL};
    grHostNodeParams hp = {hfn, &w.regdata};
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphCreate(&c, 0));
    CHECK_OK(grGraphAddKernelNode(&n[0], c, NULL, 0, &kq));
    CHECK_OK(grGraphAddKernelNode(&n[0], g, NULL, 0, &kp));
    CHECK_OK(grGraphAddKernelNode(&n[1], g, &n[0], 1, &kq));
    CHECK_OK(grGraphAddHostNode(&n[2], g, &n[0], 1, &hp));
    CHECK_OK(grGraphAddChildGraphNode(&n[3], g, &n[1], 2, c));
    CHECK_OK(grGraphAddEventRecordNode(&n[4], g, &n[3], 1, w.ev[0]));
    CHECK_OK(grGraphDestroy(c));
    CHECK_OK(grGraphSaveToFile(g, path, 0));
    CHECK_OK(grGraphDestroy(g));
    world_free(&w); /* the kernels and the host function are gone */
    CHECK_GR(grErrorInvalidValue, grGraphLoadFromFile(&l, path, 0));
    CHECK_DETAIL_HAS("is not registered");
    CHECK_OK(grGraphLoadFromFile(&l, path, grGraphLoadStandIns));
    CHECK_OK(grGraphSetStandInWork(1000));
    CHECK_OK(grGraphInstantiate(&e, l, 0));
    CHECK_OK(grGraphLaunch(e, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_OK(grGraphSetStandInWork(0));
    /* A stand-in kernel belongs to the graph: it has no handle to destroy. */
    size_t count = 0;
    CHECK_OK(grGraphGetNodes(l, NULL, &count));
    grGraphNode_t *nodes = calloc(count, sizeof *nodes);
    CHECK_OK(grGraphGetNodes(l, nodes, &count));
    for (size_t i = 0; i < count; i++) {
        grGraphNodeType t;
        CHECK_OK(grGraphNodeGetType(nodes[i], &t));
        if (t == grGraphNodeTypeKernel) {
            grKernelNodeParams got;
            CHECK_OK(grGraphKernelNodeGetParams(nodes[i], &got));
            CHECK_GR(grErrorInvalidDeviceFunction, grKernelDestroy(got.func));
        }
    }
    free(nodes);
    /* A stand-in graph saves back with the names it was loaded with. */
    char again[128];
    tl_tmp_path(again, sizeof again, "test", "standin2", ".graph");
    CHECK_OK(grGraphSaveToFile(l, again, 0));
    char *a = tl_slurp(path, NULL), *b = tl_slurp(again, NULL);
    char da[4096], db[4096];
    declarations(a, da, sizeof da);
    declarations(b, db, sizeof db);
    CHECK(strcmp(da, db) == 0);
    free(a);
    free(b);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(l));
    unlink(path);
    unlink(again);
}

GR_TEST(graph_file_save_refuses_unnamed_host_functions)
{
    grGraph_t g;
    grGraphNode_t n;
    char path[128];
    tl_tmp_path(path, sizeof path, "test", "unnamed", ".graph");
    CHECK_OK(grGraphCreate(&g, 0));
    grHostNodeParams hp = {hfn, NULL};
    CHECK_OK(grGraphAddHostNode(&n, g, NULL, 0, &hp));
    CHECK_GR(grErrorInvalidValue, grGraphSaveToFile(g, path, 0));
    CHECK_DETAIL_HAS("grHostFnRegister");
    CHECK_GR(grErrorInvalidValue, grGraphSaveToFile(g, path, 1));
    CHECK_GR(grErrorInvalidValue, grGraphSaveToFile(NULL, path, 0));
    CHECK_GR(grErrorInvalidValue, grGraphLoadFromFile(&g, path, 2));
    CHECK_GR(grErrorInvalidValue, grGraphLoadFromFile(&g, "/nonexistent/dir/x.graph", 0));
    CHECK_DETAIL_HAS("cannot open");
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(host_fn_register_refuses_duplicates_and_unknown_functions)
{
    int d;
    CHECK_OK(grHostFnRegister(hfn, "a", &d));
    CHECK_GR(grErrorInvalidValue, grHostFnRegister(hfn, "b", NULL));
    CHECK_DETAIL_HAS("already registered under another name");
    CHECK_GR(grErrorInvalidValue, grHostFnRegister(host_calls ? hfn : (grHostFn_t)hfn, "a", NULL));
    CHECK_GR(grErrorInvalidValue, grHostFnRegister(NULL, "c", NULL));
    CHECK_GR(grErrorInvalidValue, grHostFnRegister(hfn, "", NULL));
    CHECK_OK(grHostFnUnregister(hfn));
    CHECK_GR(grErrorInvalidValue, grHostFnUnregister(hfn));
    CHECK_OK(grHostFnRegister(hfn, "b", NULL));
    CHECK_OK(grHostFnUnregister(hfn));
}

/* A graph of 100,000 nodes saves and loads back whole (the bench times
 * it: bench/bench_graph_file.c). */
GR_TEST_T(graph_file_round_trips_a_graph_of_100000_nodes, 120)
{
    grKernel_t k;
    static const size_t sz[] = {8, 4};
    void *buf;
    char path[128];
    grGraph_t g, l;
    enum {
        N = 100000,
        W = 100
    };
    static grGraphNode_t nodes[N];
    tl_tmp_path(path, sizeof path, "test", "big", ".graph");
    CHECK_OK(grKernelCreate(&k, tl_kernel_nop, "step", 2, sz));
    CHECK_OK(grMalloc(&buf, 4096));
    CHECK_OK(grGraphCreate(&g, 0));
    /* Layers of W nodes, each depending on two of the layer before. */
    for (int i = 0; i < N; i++) {
        void *p = (char *)buf + 4 * (i % 1024);
        int v = i;
        void *args[] = {&p, &v};
        grKernelNodeParams kp = {k, GR_DIM3(1, 1, 1), GR_DIM3(32, 1, 1), 0, args, NULL};
        grGraphNode_t deps[2];
        size_t nd = 0;
        if (i >= W) {
            deps[nd++] = nodes[i - W];
            if ((i % W) + 1 < W)
                deps[nd++] = nodes[i - W + 1];
        }
        CHECK_OK(grGraphAddKernelNode(&nodes[i], g, deps, nd, &kp));
    }
    CHECK_OK(grGraphSaveToFile(g, path, 0));
    CHECK_OK(grGraphLoadFromFile(&l, path, 0));
    size_t na = 0, nb = 0, ea = 0, eb = 0;
    CHECK_OK(grGraphGetNodes(l, NULL, &nb));
    CHECK_OK(grGraphGetNodes(g, NULL, &na));
    CHECK_EQ(na, nb);
    CHECK_OK(grGraphGetEdges(g, NULL, NULL, NULL, &ea));
    CHECK_OK(grGraphGetEdges(l, NULL, NULL, NULL, &eb));
    CHECK_EQ(ea, eb);
    grGraphNode_t *ln = calloc(N, sizeof *ln);
    CHECK_OK(grGraphGetNodes(l, ln, &nb));
    grKernelNodeParams q;
    CHECK_OK(grGraphKernelNodeGetParams(ln[N - 1], &q));
    CHECK_EQ(*(int *)q.kernelParams[1], N - 1);
    free(ln);
    CHECK_OK(grGraphDestroy(l));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(buf));
    CHECK_OK(grKernelDestroy(k));
    unlink(path);
}

/* Copies of memory graphrt did not allocate load as copies of buffers of
 * their own; a host node's userData that is no graphrt memory and not
 * its registered data keeps its value (meaningful in this process). */
GR_TEST(graph_file_saves_untracked_memory_as_buffers_and_other_user_data_by_value)
{
    static unsigned char plain[64];
    static int other;
    void *dev;
    grGraph_t g, l;
    grGraphNode_t n[2], ln[2];
    char path[128];
    tl_tmp_path(path, sizeof path, "test", "untracked", ".graph");
    CHECK_OK(grHostFnRegister(hfn, "count host calls", NULL));
    CHECK_OK(grMalloc(&dev, 64));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemcpyNode1D(&n[0], g, NULL, 0, dev, plain + 8, 32, grMemcpyHostToDevice));
    grHostNodeParams hp = {hfn, &other};
    CHECK_OK(grGraphAddHostNode(&n[1], g, &n[0], 1, &hp));
    CHECK_OK(grGraphSaveToFile(g, path, 0));
    char *text = tl_slurp(path, NULL);
    CHECK(strstr(text, "buffer b1 host 32\n") != NULL);
    CHECK(strstr(text, "data=0x") != NULL);
    free(text);
    CHECK_OK(grGraphLoadFromFile(&l, path, 0));
    size_t count = 2;
    CHECK_OK(grGraphGetNodes(l, ln, &count));
    grMemcpy3DParms cp;
    CHECK_OK(grGraphMemcpyNodeGetParams(ln[0], &cp));
    CHECK(cp.srcPtr.ptr != plain + 8 && cp.srcPtr.ptr != NULL);
    CHECK(cp.dstPtr.ptr != dev);
    grHostNodeParams lh;
    CHECK_OK(grGraphHostNodeGetParams(ln[1], &lh));
    CHECK_PTR_EQ(lh.userData, &other);
    CHECK_OK(grGraphDestroy(l));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(dev));
    CHECK_OK(grHostFnUnregister(hfn));
    unlink(path);
}

GR_TEST(func_get_name_names_registered_and_stand_in_kernels)
{
    grKernel_t k;
    const char *name = NULL;
    CHECK_OK(grKernelCreate(&k, tl_kernel_nop, "named kernel", 0, NULL));
    CHECK_OK(grFuncGetName(&name, k));
    CHECK(strcmp(name, "named kernel") == 0);
    CHECK_GR(grErrorInvalidValue, grFuncGetName(NULL, k));
    CHECK_GR(grErrorInvalidDeviceFunction, grFuncGetName(&name, NULL));
    /* A stand-in of a loaded file has the saved name. */
    grGraph_t g, l;
    grGraphNode_t n;
    char path[128];
    tl_tmp_path(path, sizeof path, "test", "name", ".graph");
    grKernelNodeParams kp = {k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, NULL, NULL};
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddKernelNode(&n, g, NULL, 0, &kp));
    CHECK_OK(grGraphSaveToFile(g, path, 0));
    CHECK_OK(grGraphLoadFromFile(&l, path, grGraphLoadStandIns));
    size_t count = 1;
    CHECK_OK(grGraphGetNodes(l, &n, &count));
    CHECK_OK(grGraphKernelNodeGetParams(n, &kp));
    CHECK(kp.func != k);
    CHECK_OK(grFuncGetName(&name, kp.func));
    CHECK(strcmp(name, "named kernel") == 0);
    CHECK_OK(grGraphDestroy(l));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grKernelDestroy(k));
    CHECK_GR(grErrorInvalidDeviceFunction, grFuncGetName(&name, k));
    unlink(path);
}
