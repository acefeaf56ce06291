/*
 * test-generic-node.c - the generic node API and the instantiate
 * variants: grGraphNodeSetParams and grGraphExecNodeSetParams apply each
 * node type's member as the type's own setter does and refuse a type
 * that does not match, and memory nodes, as CUDA does;
 * grGraphInstantiateWithParams reports the outcome and the node at fault,
 * and uploads; grGraphExecGetFlags returns the instantiation's flags.
 */
#include "testlib.h"

#include <stdatomic.h>

static grGraphNodeParams kernel_params(int **dst, int *v)
{
    static void *args[2];
    grGraphNodeParams p;
    memset(&p, 0, sizeof p);
    args[0] = dst;
    args[1] = v;
    p.type = grGraphNodeTypeKernel;
    p.kernel.func = tl_kernel_store_i32_kept();
    p.kernel.gridDim = GR_DIM3(1, 1, 1);
    p.kernel.blockDim = GR_DIM3(1, 1, 1);
    p.kernel.kernelParams = args;
    return p;
}

static grGraphNodeParams memcpy_params(void *dst, const void *src, size_t n)
{
    grGraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = grGraphNodeTypeMemcpy;
    p.memcpy.copyParams.dstPtr.ptr = dst;
    p.memcpy.copyParams.srcPtr.ptr = (void *)(uintptr_t)src;
    p.memcpy.copyParams.extent = (grExtent){n, 1, 1};
    p.memcpy.copyParams.kind = grMemcpyDefault;
    return p;
}

static grGraphNodeParams memset_params(void *dst, unsigned value, size_t n)
{
    grGraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = grGraphNodeTypeMemset;
    p.memset = (grMemsetParams){dst, 0, value, 1, n, 1};
    return p;
}

static atomic_int host_hits[2];

static void host_a(void *p)
{
    (void)p;
    atomic_fetch_add(&host_hits[0], 1);
}

static void host_b(void *p)
{
    (void)p;
    atomic_fetch_add(&host_hits[1], 1);
}

static grGraphNodeParams host_params(grHostFn_t fn)
{
    grGraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = grGraphNodeTypeHost;
    p.host.fn = fn;
    return p;
}

static grGraphNodeParams type_only(grGraphNodeType t)
{
    grGraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = t;
    return p;
}

/* A graph of one node of each settable type, added through grGraphAddNode. */
typedef struct every {
    grGraph_t g, child;
    grGraphNode_t kern, copy, set, host, empty, rec, wait, sub;
    int out, v;
    int *outp;
    char src[16], dst[16], fill[16];
    grEvent_t ev1, ev2;
} every;

static void build_every(every *x)
{
    grGraphNodeParams p;
    memset(x, 0, sizeof *x);
    x->outp = &x->out;
    x->v = 1;
    memcpy(x->src, "abcdefghijklmno", 16);
    CHECK_OK(grEventCreate(&x->ev1));
    CHECK_OK(grEventCreate(&x->ev2));
    CHECK_OK(grGraphCreate(&x->g, 0));
    p = kernel_params(&x->outp, &x->v);
    CHECK_OK(grGraphAddNode(&x->kern, x->g, NULL, NULL, 0, &p));
    p = memcpy_params(x->dst, x->src, 8);
    CHECK_OK(grGraphAddNode(&x->copy, x->g, NULL, NULL, 0, &p));
    p = memset_params(x->fill, 1, 4);
    CHECK_OK(grGraphAddNode(&x->set, x->g, NULL, NULL, 0, &p));
    p = host_params(host_a);
    CHECK_OK(grGraphAddNode(&x->host, x->g, NULL, NULL, 0, &p));
    p = type_only(grGraphNodeTypeEmpty);
    CHECK_OK(grGraphAddNode(&x->empty, x->g, NULL, NULL, 0, &p));
    p = type_only(grGraphNodeTypeEventRecord);
    p.eventRecord.event = x->ev1;
    CHECK_OK(grGraphAddNode(&x->rec, x->g, NULL, NULL, 0, &p));
    p = type_only(grGraphNodeTypeWaitEvent);
    p.eventWait.event = x->ev1;
    CHECK_OK(grGraphAddNode(&x->wait, x->g, &x->rec, NULL, 1, &p));
    CHECK_OK(grGraphCreate(&x->child, 0));
    p = host_params(host_a);
    grGraphNode_t inner;
    CHECK_OK(grGraphAddNode(&inner, x->child, NULL, NULL, 0, &p));
    p = type_only(grGraphNodeTypeGraph);
    p.graph.graph = x->child;
    CHECK_OK(grGraphAddNode(&x->sub, x->g, NULL, NULL, 0, &p));
}

static void free_every(every *x)
{
    CHECK_OK(grGraphDestroy(x->g));
    CHECK_OK(grGraphDestroy(x->child));
    CHECK_OK(grEventDestroy(x->ev1));
    CHECK_OK(grEventDestroy(x->ev2));
}

/* What a launch of the 'every' graph must leave after the setters: the
 * kernel's output, the copy's offset (and length), the byte the memset
 * wrote at fill_at, and how often host_b ran (host_a never). */
typedef struct every_want {
    int out, copied_from, fill_at, fill, host_b_hits;
} every_want;

static void run_every(every *x, grGraphExec_t e, every_want w)
{
    atomic_store(&host_hits[0], 0);
    atomic_store(&host_hits[1], 0);
    tl_run(e);
    CHECK_EQ(x->out, w.out);
    CHECK(memcmp(x->dst + w.copied_from, x->src + w.copied_from, (size_t)w.copied_from) == 0);
    CHECK_EQ(x->dst[0], 0);
    CHECK_EQ(x->fill[w.fill_at], w.fill);
    CHECK_EQ(x->fill[0], 0);
    CHECK_EQ(atomic_load(&host_hits[0]), 0);
    CHECK_EQ(atomic_load(&host_hits[1]), w.host_b_hits);
}

GR_TEST(graph_node_set_params_applies_every_type)
{
    every x;
    grGraphNodeParams p;
    int v2 = 7;
    grGraph_t g2, got_child;
    grGraphNode_t n;
    size_t count = 0;
    build_every(&x);
    p = kernel_params(&x.outp, &v2);
    CHECK_OK(grGraphNodeSetParams(x.kern, &p));
    p = memcpy_params(x.dst + 8, x.src + 8, 8);
    CHECK_OK(grGraphNodeSetParams(x.copy, &p));
    grMemcpy3DParms cp;
    CHECK_OK(grGraphMemcpyNodeGetParams(x.copy, &cp));
    CHECK_EQ(cp.extent.width, 8);
    p = memset_params(x.fill + 4, 2, 4);
    CHECK_OK(grGraphNodeSetParams(x.set, &p));
    p = host_params(host_b);
    CHECK_OK(grGraphNodeSetParams(x.host, &p));
    p = type_only(grGraphNodeTypeEmpty);
    CHECK_OK(grGraphNodeSetParams(x.empty, &p));
    p = type_only(grGraphNodeTypeEventRecord);
    p.eventRecord.event = x.ev2;
    CHECK_OK(grGraphNodeSetParams(x.rec, &p));
    p = type_only(grGraphNodeTypeWaitEvent);
    p.eventWait.event = x.ev2;
    CHECK_OK(grGraphNodeSetParams(x.wait, &p));
    grEvent_t ev;
    CHECK_OK(grGraphEventRecordNodeGetEvent(x.rec, &ev));
    CHECK_PTR_EQ(ev, x.ev2);
    CHECK_OK(grGraphEventWaitNodeGetEvent(x.wait, &ev));
    CHECK_PTR_EQ(ev, x.ev2);
    /* A child-graph node takes a copy of the new graph (two host nodes). */
    CHECK_OK(grGraphCreate(&g2, 0));
    grGraphNodeParams hp = host_params(host_b);
    CHECK_OK(grGraphAddNode(&n, g2, NULL, NULL, 0, &hp));
    CHECK_OK(grGraphAddNode(&n, g2, NULL, NULL, 0, &hp));
    p = type_only(grGraphNodeTypeGraph);
    p.graph.graph = g2;
    CHECK_OK(grGraphNodeSetParams(x.sub, &p));
    CHECK_OK(grGraphDestroy(g2));
    CHECK_OK(grGraphChildGraphNodeGetGraph(x.sub, &got_child));
    CHECK_OK(grGraphGetNodes(got_child, NULL, &count));
    CHECK_EQ(count, 2);
    /* The node's own graph, passed back, is copied before the old goes. */
    p.graph.graph = got_child;
    CHECK_OK(grGraphNodeSetParams(x.sub, &p));
    CHECK_OK(grGraphChildGraphNodeGetGraph(x.sub, &got_child));
    CHECK_OK(grGraphGetNodes(got_child, NULL, &count));
    CHECK_EQ(count, 2);

    grGraphExec_t e = tl_instantiate(x.g);
    run_every(&x, e, (every_want){7, 8, 4, 2, 3});
    CHECK_OK(grGraphExecDestroy(e));
    free_every(&x);
}

GR_TEST(graph_node_set_params_refuses_mismatch_and_memory_nodes)
{
    every x;
    grGraphNodeParams p;
    grGraph_t mg;
    grGraphNode_t an, fn;
    build_every(&x);
    CHECK_GR(grErrorInvalidValue, grGraphNodeSetParams(x.kern, NULL));
    p = host_params(host_b);
    CHECK_GR(grErrorInvalidValue, grGraphNodeSetParams(x.kern, &p));
    CHECK_DETAIL_HAS("must match");
    p = type_only((grGraphNodeType)99);
    CHECK_GR(grErrorInvalidValue, grGraphNodeSetParams(x.host, &p));
    /* Reserved fields must be zero (CUDA 13 probe). */
    p = host_params(host_b);
    p.reserved0[1] = 1;
    CHECK_GR(grErrorInvalidValue, grGraphNodeSetParams(x.host, &p));
    p = host_params(host_b);
    p.reserved2 = 1;
    CHECK_GR(grErrorInvalidValue, grGraphNodeSetParams(x.host, &p));
    /* The type's own rule refuses, its setter named; nothing changed. */
    p = host_params(NULL);
    CHECK_GR(grErrorInvalidValue, grGraphNodeSetParams(x.host, &p));
    CHECK_DETAIL_HAS("grGraphHostNodeSetParams");
    grHostNodeParams hp;
    CHECK_OK(grGraphHostNodeGetParams(x.host, &hp));
    CHECK(hp.fn == host_a);
    p = memcpy_params(x.dst, x.src, 8);
    p.memcpy.copyParams.extent.height = 2; /* two rows, pitch 0: CUDA's pitch code */
    CHECK_GR(grErrorInvalidPitchValue, grGraphNodeSetParams(x.copy, &p));
    /* A graph cannot embed a graph that contains it. */
    p = type_only(grGraphNodeTypeGraph);
    p.graph.graph = x.g;
    CHECK_GR(grErrorInvalidValue, grGraphNodeSetParams(x.sub, &p));
    p.graph.graph = NULL;
    CHECK_GR(grErrorInvalidValue, grGraphNodeSetParams(x.sub, &p));
    /* Memory nodes: CUDA does not let their parameters change. */
    CHECK_OK(grGraphCreate(&mg, 0));
    grMemAllocNodeParams ap;
    ap = tl_alloc_params(0, 256);
    CHECK_OK(grGraphAddMemAllocNode(&an, mg, NULL, 0, &ap));
    CHECK_OK(grGraphAddMemFreeNode(&fn, mg, &an, 1, ap.dptr));
    p = type_only(grGraphNodeTypeMemAlloc);
    p.alloc = ap;
    CHECK_GR(grErrorNotSupported, grGraphNodeSetParams(an, &p));
    p = type_only(grGraphNodeTypeMemFree);
    p.free.dptr = ap.dptr;
    CHECK_GR(grErrorNotSupported, grGraphNodeSetParams(fn, &p));
    /* Set on a child graph with memory nodes is refused as embedding is. */
    p = type_only(grGraphNodeTypeGraph);
    p.graph.graph = mg;
    CHECK_GR(grErrorNotSupported, grGraphNodeSetParams(x.sub, &p));
    grGraphExec_t me;
    CHECK_OK(grGraphInstantiate(&me, mg, 0));
    p = type_only(grGraphNodeTypeMemAlloc);
    CHECK_GR(grErrorNotSupported, grGraphExecNodeSetParams(me, an, &p));
    CHECK_OK(grGraphExecDestroy(me));
    CHECK_OK(grGraphDestroy(mg));
    CHECK_OK(grGraphDestroyNode(x.empty));
    p = type_only(grGraphNodeTypeEmpty);
    CHECK_GR(grErrorInvalidValue, grGraphNodeSetParams(x.empty, &p));
    free_every(&x);
}

GR_TEST(exec_node_set_params_applies_every_type)
{
    every x;
    grGraphNodeParams p;
    grGraphExec_t e;
    int v2 = 9;
    build_every(&x);
    CHECK_OK(grGraphInstantiate(&e, x.g, 0));
    p = kernel_params(&x.outp, &v2);
    CHECK_OK(grGraphExecNodeSetParams(e, x.kern, &p));
    p = memcpy_params(x.dst + 4, x.src + 4, 4);
    CHECK_OK(grGraphExecNodeSetParams(e, x.copy, &p));
    p = memset_params(x.fill + 8, 3, 2);
    CHECK_OK(grGraphExecNodeSetParams(e, x.set, &p));
    p = host_params(host_b);
    CHECK_OK(grGraphExecNodeSetParams(e, x.host, &p));
    p = type_only(grGraphNodeTypeEmpty);
    CHECK_OK(grGraphExecNodeSetParams(e, x.empty, &p));
    p = type_only(grGraphNodeTypeEventRecord);
    p.eventRecord.event = x.ev2;
    CHECK_OK(grGraphExecNodeSetParams(e, x.rec, &p));
    p = type_only(grGraphNodeTypeWaitEvent);
    p.eventWait.event = x.ev2;
    CHECK_OK(grGraphExecNodeSetParams(e, x.wait, &p));
    /* A child graph of the same shape, with host_b. */
    grGraph_t c2;
    grGraphNode_t n;
    grGraphNodeParams hp = host_params(host_b);
    CHECK_OK(grGraphCreate(&c2, 0));
    CHECK_OK(grGraphAddNode(&n, c2, NULL, NULL, 0, &hp));
    p = type_only(grGraphNodeTypeGraph);
    p.graph.graph = c2;
    CHECK_OK(grGraphExecNodeSetParams(e, x.sub, &p));
    run_every(&x, e, (every_want){9, 4, 8, 3, 2});
    /* The graph itself did not change. */
    grHostNodeParams got;
    CHECK_OK(grGraphHostNodeGetParams(x.host, &got));
    CHECK(got.fn == host_a);
    /* Refusals: the type, NULL, a node of another graph, the setter's rule. */
    p = host_params(host_b);
    CHECK_GR(grErrorInvalidValue, grGraphExecNodeSetParams(e, x.kern, &p));
    CHECK_DETAIL_HAS("must match");
    CHECK_GR(grErrorInvalidValue, grGraphExecNodeSetParams(e, x.kern, NULL));
    CHECK_GR(grErrorInvalidValue, grGraphExecNodeSetParams(e, n, &p));
    CHECK_GR(grErrorInvalidValue, grGraphExecNodeSetParams(NULL, x.kern, &p));
    p = host_params(NULL);
    CHECK_GR(grErrorInvalidValue, grGraphExecNodeSetParams(e, x.host, &p));
    CHECK_DETAIL_HAS("grGraphExecHostNodeSetParams");
    /* A child graph of another shape is refused as the type's setter does. */
    CHECK_OK(grGraphAddNode(&n, c2, NULL, NULL, 0, &hp));
    p = type_only(grGraphNodeTypeGraph);
    p.graph.graph = c2;
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecNodeSetParams(e, x.sub, &p));
    p.graph.graph = NULL;
    CHECK_GR(grErrorInvalidValue, grGraphExecNodeSetParams(e, x.sub, &p));
    CHECK_OK(grGraphDestroy(c2));
    /* The executable remembers nodes destroyed in the graph since. */
    CHECK_OK(grGraphDestroyNode(x.empty));
    p = type_only(grGraphNodeTypeEmpty);
    CHECK_OK(grGraphExecNodeSetParams(e, x.empty, &p));
    CHECK_OK(grGraphExecDestroy(e));
    free_every(&x);
}

GR_TEST(instantiate_with_params_reports_success_flags_and_upload)
{
    grGraph_t g;
    grGraphNode_t n;
    grGraphExec_t e;
    grStream_t s;
    grGraphNodeParams hp = host_params(host_a);
    grGraphInstantiateParams ip;
    unsigned long long flags = 0;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddNode(&n, g, NULL, NULL, 0, &hp));
    CHECK_OK(grStreamCreate(&s));
    memset(&ip, 0xff, sizeof ip);
    ip.flags = grGraphInstantiateFlagUpload | grGraphInstantiateFlagUseNodePriority;
    ip.uploadStream = s;
    CHECK_OK(grGraphInstantiateWithParams(&e, g, &ip));
    CHECK_EQ(ip.result_out, grGraphInstantiateSuccess);
    CHECK_PTR_EQ(ip.errNode_out, NULL);
    /* Accepted, but read back as 0, as CUDA 13 does (probe). */
    CHECK_OK(grGraphExecGetFlags(e, &flags));
    CHECK_EQ(flags, 0);
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_GR(grErrorInvalidValue, grGraphExecGetFlags(e, &flags));
    /* Without the upload flag the stream is not looked at. */
    ip.flags = grGraphInstantiateFlagAutoFreeOnLaunch;
    ip.uploadStream = (grStream_t)(uintptr_t)0x10;
    CHECK_OK(grGraphInstantiateWithParams(&e, g, &ip));
    CHECK_OK(grGraphExecGetFlags(e, &flags));
    CHECK_EQ(flags, grGraphInstantiateFlagAutoFreeOnLaunch);
    CHECK_GR(grErrorInvalidValue, grGraphExecGetFlags(e, NULL));
    CHECK_OK(grGraphExecDestroy(e));
    /* With it, a stream that is not live is refused and nothing made. */
    ip.flags = grGraphInstantiateFlagUpload;
    CHECK_OK(grStreamDestroy(s));
    ip.uploadStream = s;
    CHECK(grGraphInstantiateWithParams(&e, g, &ip) != grSuccess);
    CHECK_EQ(ip.result_out, grGraphInstantiateError);
    /* grGraphInstantiate's flags read back the same way. */
    CHECK_OK(grGraphInstantiate(
        &e, g, grGraphInstantiateFlagUseNodePriority | grGraphInstantiateFlagAutoFreeOnLaunch));
    CHECK_OK(grGraphExecGetFlags(e, &flags));
    CHECK_EQ(flags, grGraphInstantiateFlagAutoFreeOnLaunch);
    CHECK_OK(grGraphExecDestroy(e));
    /* Bad arguments. */
    CHECK_GR(grErrorInvalidValue, grGraphInstantiateWithParams(&e, g, NULL));
    ip.flags = 0;
    CHECK_GR(grErrorInvalidValue, grGraphInstantiateWithParams(NULL, g, &ip));
    CHECK_GR(grErrorInvalidValue, grGraphInstantiateWithParams(&e, NULL, &ip));
    CHECK_EQ(ip.result_out, grGraphInstantiateError);
    ip.flags = 1ull << 40;
    CHECK_GR(grErrorInvalidValue, grGraphInstantiateWithParams(&e, g, &ip));
    ip.flags = grGraphInstantiateFlagDeviceLaunch;
    CHECK_GR(grErrorNotSupported, grGraphInstantiateWithParams(&e, g, &ip));
    CHECK_EQ(ip.result_out, grGraphInstantiateError);
    CHECK_PTR_EQ(ip.errNode_out, NULL);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(instantiate_with_params_names_the_allocation_node_of_a_second_executable)
{
    grGraph_t g;
    grGraphNode_t an, fn;
    grGraphExec_t e, e2 = NULL;
    grGraphInstantiateParams ip;
    void *dptr;
    CHECK_OK(grGraphCreate(&g, 0));
    an = tl_add_alloc(g, NULL, 0, 0, 256, &dptr);
    CHECK_OK(grGraphAddMemFreeNode(&fn, g, &an, 1, dptr));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    memset(&ip, 0, sizeof ip);
    CHECK_GR(grErrorNotSupported, grGraphInstantiateWithParams(&e2, g, &ip));
    CHECK_EQ(ip.result_out, grGraphInstantiateError);
    /* CUDA 13 leaves errNode_out NULL here (probe); the detail names it. */
    CHECK_PTR_EQ(ip.errNode_out, NULL);
    CHECK_DETAIL_HAS("the node at fault: mem alloc node #0");
    CHECK_PTR_EQ(e2, NULL);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphInstantiateWithParams(&e2, g, &ip));
    CHECK_EQ(ip.result_out, grGraphInstantiateSuccess);
    CHECK_PTR_EQ(ip.errNode_out, NULL);
    CHECK_OK(grGraphExecDestroy(e2));
    CHECK_OK(grGraphDestroy(g));
}

/* A failure found while building a conditional node's bodies names the
 * call that was made, as every other refusal of the three variants does. */
GR_TEST(instantiate_variants_name_themselves_in_a_body_refusal)
{
    grGraph_t g;
    grGraphConditionalHandle h;
    grGraphNode_t cn, hn;
    grGraphExec_t e = NULL;
    grGraphInstantiateParams ip;
    grGraphNodeParams p = type_only(grGraphNodeTypeConditional);
    grGraphNodeParams hp = host_params(host_a);
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&h, g, 1, grGraphCondAssignDefault));
    p.conditional.handle = h;
    p.conditional.type = grGraphCondTypeIf;
    p.conditional.size = 1;
    CHECK_OK(grGraphAddNode(&cn, g, NULL, NULL, 0, &p));
    CHECK_OK(grGraphAddNode(&hn, p.conditional.phGraph_out[0], NULL, NULL, 0, &hp));
    memset(&ip, 0, sizeof ip);
    CHECK_GR(grErrorInvalidValue, grGraphInstantiateWithParams(&e, g, &ip));
    CHECK_EQ(ip.result_out, grGraphInstantiateNodeOperationNotSupported);
    CHECK_PTR_EQ(ip.errNode_out, hn);
    CHECK_EQ(strncmp(grGetLastErrorDetail(), "grGraphInstantiateWithParams: ", 30), 0);
    CHECK_GR(grErrorInvalidValue, grGraphInstantiateWithFlags(&e, g, 0));
    CHECK_EQ(strncmp(grGetLastErrorDetail(), "grGraphInstantiateWithFlags: ", 29), 0);
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&e, g, 0));
    CHECK_EQ(strncmp(grGetLastErrorDetail(), "grGraphInstantiate: ", 20), 0);
    CHECK_PTR_EQ(e, NULL);
    CHECK_OK(grGraphDestroy(g));
}

/* An update whose conditional body is refused names grGraphExecUpdate. */
GR_TEST(update_names_itself_in_a_body_refusal)
{
    grGraph_t g[2];
    grGraphConditionalHandle h;
    grGraphNode_t cn, hn;
    grGraphExec_t e = NULL;
    grGraphExecUpdateResultInfo info;
    for (int i = 0; i < 2; i++) {
        grGraphNodeParams p = type_only(grGraphNodeTypeConditional);
        grGraphNodeParams hp = host_params(host_a);
        CHECK_OK(grGraphCreate(&g[i], 0));
        CHECK_OK(grGraphConditionalHandleCreate(&h, g[i], 1, grGraphCondAssignDefault));
        p.conditional.handle = h;
        p.conditional.type = grGraphCondTypeIf;
        p.conditional.size = 1;
        CHECK_OK(grGraphAddNode(&cn, g[i], NULL, NULL, 0, &p));
        if (i == 1)
            CHECK_OK(grGraphAddNode(&hn, p.conditional.phGraph_out[0], NULL, NULL, 0, &hp));
    }
    CHECK_OK(grGraphInstantiate(&e, g[0], 0));
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, g[1], &info));
    CHECK_EQ(strncmp(grGetLastErrorDetail(), "grGraphExecUpdate: ", 19), 0);
    CHECK(strstr(grGetLastErrorDetail(), "grGraphInstantiate") == NULL);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g[0]));
    CHECK_OK(grGraphDestroy(g[1]));
}

GR_TEST(instantiate_with_params_names_the_node_whose_range_overruns)
{
    size_t big = 4u << 20;
    grGraph_t g, child;
    grGraphNode_t n, sub, empty;
    grGraphInstantiateParams ip;
    /* A memset over plain host memory, inside a child graph; the memory
     * is unmapped and a graphrt allocation smaller than the range lands
     * in the hole, so that the range now overruns it. */
    char *r = tl_map_hole(big);
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphCreate(&child, 0));
    grMemsetParams mp = {r, 0, 1, 1, big, 1};
    CHECK_OK(grGraphAddMemsetNode(&n, child, NULL, 0, &mp));
    CHECK_OK(grGraphAddEmptyNode(&empty, g, NULL, 0));
    CHECK_OK(grGraphAddChildGraphNode(&sub, g, &empty, 1, child));
    void *blocks[64];
    int nb = 0;
    void *block = tl_unmap_and_reuse(r, big, blocks, &nb);
    memset(&ip, 0, sizeof ip);
    grGraphExec_t e;
    CHECK_GR(grErrorInvalidValue, grGraphInstantiateWithParams(&e, g, &ip));
    CHECK_EQ(ip.result_out, grGraphInstantiateError);
    CHECK_PTR_EQ(ip.errNode_out, sub); /* the top-level node holding it */
    CHECK_DETAIL_HAS("memset node");
    CHECK_DETAIL_HAS("the node at fault: child graph node #1");
    /* Fixed: instantiates. */
    mp.dst = block;
    mp.width = big / 4;
    grGraphNode_t inner;
    grGraph_t got;
    CHECK_OK(grGraphChildGraphNodeGetGraph(sub, &got));
    size_t one = 1;
    CHECK_OK(grGraphGetNodes(got, &inner, &one));
    CHECK_OK(grGraphMemsetNodeSetParams(inner, &mp));
    CHECK_OK(grGraphInstantiateWithParams(&e, g, &ip));
    CHECK_EQ(ip.result_out, grGraphInstantiateSuccess);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(child));
    for (int i = 0; i < nb; i++)
        CHECK_OK(grFree(blocks[i]));
}

GR_TEST(instantiate_with_params_refuses_an_upload_into_a_capture)
{
    grGraph_t g, captured = NULL;
    grGraphNode_t n;
    grGraphExec_t e = NULL;
    grStream_t s;
    grGraphNodeParams hp = host_params(host_a);
    grGraphInstantiateParams ip;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddNode(&n, g, NULL, NULL, 0, &hp));
    s = tl_capturing_stream(0, grStreamCaptureModeGlobal);
    memset(&ip, 0, sizeof ip);
    ip.flags = grGraphInstantiateFlagUpload;
    ip.uploadStream = s;
    CHECK_GR(grErrorStreamCaptureUnsupported, grGraphInstantiateWithParams(&e, g, &ip));
    CHECK_EQ(ip.result_out, grGraphInstantiateError);
    CHECK_PTR_EQ(e, NULL);
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &captured));
    CHECK_PTR_EQ(captured, NULL);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grGraphDestroy(g));
}
