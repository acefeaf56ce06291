/*
 * test-graphmem.c - graph memory: allocation and free nodes, their fixed
 * addresses, lifetimes in graph order, allocations that outlive their
 * launch, CUDA's relaunch rule, liveness-shared physical memory, the
 * device's graph memory attributes, capture of grMallocAsync/grFreeAsync,
 * and what graphs with memory nodes refuse.
 */
#include "testlib.h"

#define TMP_INTS 16384 /* 64 KiB temporaries: whole pages, no rounding */

/* fill(int *p, int v, int n): p[0..n) = v. */
static void fill_ints_fn(const grKernelCtx *ctx, void **args)
{
    int *p = *(int **)args[0];
    int v = *(int *)args[1], n = *(int *)args[2];
    (void)ctx;
    for (int i = 0; i < n; i++)
        p[i] = v;
}

/* step(const int *src, int *dst, int n): dst[i] = src ? src[i] + 1 : 0. */
static void step_fn(const grKernelCtx *ctx, void **args)
{
    const int *src = *(const int **)args[0];
    int *dst = *(int **)args[1], n = *(int *)args[2];
    (void)ctx;
    for (int i = 0; i < n; i++)
        dst[i] = src ? src[i] + 1 : 0;
}

/* seen(int *p, void **where, int *sum): *where = p; *sum += p[0]. */
static void seen_fn(const grKernelCtx *ctx, void **args)
{
    int *p = *(int **)args[0];
    void **where = *(void ***)args[1];
    int *sum = *(int **)args[2];
    (void)ctx;
    *where = p;
    *sum += p[0];
}

static grKernel_t kernel3(grKernelFn fn, const char *name, size_t s0, size_t s1, size_t s2)
{
    grKernel_t k = NULL;
    size_t sizes[3] = {s0, s1, s2};
    CHECK_OK(grKernelCreate(&k, fn, name, 3, sizes));
    return k;
}

static grGraphNode_t add_kernel3(grGraph_t g, const grGraphNode_t *deps, size_t ndeps, grKernel_t k, void *a0,
                                 void *a1, void *a2)
{
    void *args[3] = {a0, a1, a2};
    return tl_add_kernel(g, deps, ndeps, k, args, 1);
}

static grGraphNode_t add_free(grGraph_t g, const grGraphNode_t *deps, size_t ndeps, void *p)
{
    grGraphNode_t n = NULL;
    CHECK_OK(grGraphAddMemFreeNode(&n, g, deps, ndeps, p));
    return n;
}

GR_TEST(graphmem_alloc_address_fixed_across_launches_and_instantiations)
{
    grStream_t s;
    grGraph_t g;
    grGraphExec_t e;
    grKernel_t kfill = kernel3(fill_ints_fn, "gm_fill", sizeof(int *), sizeof(int), sizeof(int));
    grKernel_t kseen = kernel3(seen_fn, "gm_seen", sizeof(int *), sizeof(void **), sizeof(int *));
    void *p, *where = NULL;
    int seven = 7, one = 1, sum = 0;
    int *sump = &sum;
    void **wherep = &where;
    grMemAllocNodeParams got;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t a = tl_add_alloc(g, NULL, 0, 0, 4096, &p);
    grGraphNode_t k1 = add_kernel3(g, &a, 1, kfill, &p, &seven, &one);
    grGraphNode_t k2 = add_kernel3(g, &k1, 1, kseen, &p, &wherep, &sump);
    add_free(g, &k2, 1, p);
    CHECK_OK(grGraphMemAllocNodeGetParams(a, &got));
    CHECK_PTR_EQ(got.dptr, p);
    CHECK_EQ(got.bytesize, 4096);
    for (int round = 0; round < 2; round++) {
        CHECK_OK(grGraphInstantiate(&e, g, 0));
        for (int i = 0; i < 5; i++) {
            where = NULL;
            CHECK_OK(grGraphLaunch(e, s));
            CHECK_OK(grStreamSynchronize(s));
            CHECK_PTR_EQ(where, p);
        }
        CHECK_OK(grGraphExecDestroy(e));
    }
    CHECK_EQ(sum, 70);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grKernelDestroy(kfill));
    CHECK_OK(grKernelDestroy(kseen));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(graphmem_free_node_must_follow_its_alloc_and_free_once)
{
    grGraph_t g;
    grGraphNode_t out = NULL, other, a, f;
    void *p, *dev;
    int local;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&other, g, NULL, 0));
    a = tl_add_alloc(g, NULL, 0, 0, 1000, &p);
    CHECK_GR(grErrorInvalidValue, grGraphAddMemFreeNode(&out, g, NULL, 0, p));
    CHECK_DETAIL_HAS("must depend");
    CHECK_GR(grErrorInvalidValue, grGraphAddMemFreeNode(&out, g, &other, 1, p));
    CHECK_DETAIL_HAS("must depend");
    CHECK_EQ(tl_node_count(g), 2);
    f = add_free(g, &a, 1, p);
    CHECK_GR(grErrorInvalidValue, grGraphAddMemFreeNode(&out, g, &f, 1, p));
    CHECK_DETAIL_HAS("freed already in this graph");
    /* Not graph allocations: grMalloc memory, host memory, inside one. */
    CHECK_OK(grMalloc(&dev, 256));
    CHECK_GR(grErrorInvalidValue, grGraphAddMemFreeNode(&out, g, &a, 1, dev));
    CHECK_DETAIL_HAS("not returned by a graph allocation node");
    CHECK_GR(grErrorInvalidValue, grGraphAddMemFreeNode(&out, g, &a, 1, &local));
    CHECK_GR(grErrorInvalidValue, grGraphAddMemFreeNode(&out, g, &a, 1, (char *)p + 16));
    CHECK_GR(grErrorInvalidValue, grGraphAddMemFreeNode(&out, g, &a, 1, NULL));
    CHECK_PTR_EQ(out, NULL);
    CHECK_EQ(tl_node_count(g), 3);
    /* Indirect order is enough. */
    void *q;
    grGraphNode_t a2 = tl_add_alloc(g, NULL, 0, 0, 64, &q);
    grGraphNode_t mid;
    CHECK_OK(grGraphAddEmptyNode(&mid, g, &a2, 1));
    add_free(g, &mid, 1, q);
    CHECK_OK(grFree(dev));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graphmem_free_node_refuses_allocation_its_own_graph_frees)
{
    grGraph_t ga, gb;
    grGraphNode_t a, out = NULL;
    void *p, *q;
    CHECK_OK(grGraphCreate(&ga, 0));
    CHECK_OK(grGraphCreate(&gb, 0));
    a = tl_add_alloc(ga, NULL, 0, 0, 128, &p);
    add_free(ga, &a, 1, p);
    CHECK_GR(grErrorInvalidValue, grGraphAddMemFreeNode(&out, gb, NULL, 0, p));
    CHECK_DETAIL_HAS("frees it itself");
    CHECK_EQ(tl_node_count(gb), 0);
    /* An allocation its graph does not free may be freed by another. */
    tl_add_alloc(ga, NULL, 0, 0, 128, &q);
    add_free(gb, NULL, 0, q);
    CHECK_OK(grGraphDestroy(gb));
    CHECK_OK(grGraphDestroy(ga));
}

/* A failed capture into a graph removes the free node it recorded; the
 * allocation is then freed in its own graph no more, and another graph
 * may free it. */
GR_TEST(graphmem_capture_rollback_forgets_its_free_node)
{
    grGraph_t g, h, out = NULL;
    grGraphNode_t a, f = NULL;
    grStream_t s;
    void *p;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphCreate(&h, 0));
    a = tl_add_alloc(g, NULL, 0, 0, 128, &p);
    CHECK_OK(grStreamBeginCaptureToGraph(s, g, &a, NULL, 1, grStreamCaptureModeGlobal));
    CHECK_OK(grFreeAsync(p, s));
    CHECK_GR(grErrorInvalidValue, grGraphAddMemFreeNode(&f, h, NULL, 0, p)); /* g frees it now */
    CHECK_GR(grErrorStreamCaptureUnsupported, grStreamSynchronize(s));
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &out));
    CHECK_EQ(tl_node_count(g), 1);
    CHECK_OK(grGraphAddMemFreeNode(&f, h, NULL, 0, p));
    CHECK_OK(grGraphDestroy(h));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(graphmem_unfreed_allocation_stays_valid_until_grFreeAsync_or_grFree)
{
    grStream_t s;
    grGraph_t g;
    grGraphExec_t e;
    grKernel_t kfill = kernel3(fill_ints_fn, "gm_fill", sizeof(int *), sizeof(int), sizeof(int));
    void *p;
    int v = 42, n = 1024;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t a = tl_add_alloc(g, NULL, 0, 0, 4096, &p);
    add_kernel3(g, &a, 1, kfill, &p, &v, &n);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    /* Not launched yet: nothing to free. */
    CHECK_GR(grErrorInvalidValue, grFreeAsync(p, s));
    CHECK_DETAIL_HAS("not allocated now");
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(((int *)p)[0], 42);
    CHECK_EQ(((int *)p)[1023], 42);
    /* CUDA's rule: the previous launch's allocation is still live. */
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(e, s));
    CHECK_DETAIL_HAS("still allocated");
    CHECK_EQ(((int *)p)[0], 42);
    CHECK_OK(grFreeAsync(p, s));
    CHECK_GR(grErrorInvalidValue, grFreeAsync(p, s));
    CHECK_DETAIL_HAS("not allocated now");
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grFree(p));
    CHECK_GR(grErrorInvalidValue, grFree(p));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grKernelDestroy(kfill));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(graphmem_relaunch_with_live_allocation_accepted_with_auto_free)
{
    grStream_t s;
    grGraph_t g;
    grGraphExec_t e;
    grKernel_t kfill = kernel3(fill_ints_fn, "gm_fill", sizeof(int *), sizeof(int), sizeof(int));
    void *p;
    int v = 5, n = 16;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t a = tl_add_alloc(g, NULL, 0, 0, 256, &p);
    add_kernel3(g, &a, 1, kfill, &p, &v, &n);
    CHECK_OK(grGraphInstantiateWithFlags(&e, g, grGraphInstantiateFlagAutoFreeOnLaunch));
    for (int i = 0; i < 4; i++)
        CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(((int *)p)[15], 5);
    CHECK_OK(grFreeAsync(p, s));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grKernelDestroy(kfill));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(graphmem_another_graphs_free_node_frees_an_unfreed_allocation)
{
    grStream_t s;
    grGraph_t ga, gb;
    grGraphExec_t ea, eb;
    void *p;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grGraphCreate(&ga, 0));
    CHECK_OK(grGraphCreate(&gb, 0));
    tl_add_alloc(ga, NULL, 0, 0, 512, &p);
    add_free(gb, NULL, 0, p);
    CHECK_OK(grGraphInstantiate(&ea, ga, 0));
    CHECK_OK(grGraphInstantiate(&eb, gb, 0));
    /* Freeing before the allocating graph ran: refused, nothing changed. */
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(eb, s));
    CHECK_DETAIL_HAS("not allocated now");
    for (int i = 0; i < 3; i++) {
        CHECK_OK(grGraphLaunch(ea, s));
        CHECK_OK(grGraphLaunch(eb, s));
    }
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(eb, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grGraphExecDestroy(eb));
    CHECK_OK(grGraphExecDestroy(ea));
    CHECK_OK(grGraphDestroy(gb));
    CHECK_OK(grGraphDestroy(ga));
    CHECK_OK(grStreamDestroy(s));
}

/* 100 temporaries in a chain, each written from the one before; the free
 * of temporary i - 3 follows the kernel writing temporary i, so at most 4
 * are live at once. */
GR_TEST(graphmem_footprint_is_the_peak_live_set)
{
    enum {
        N = 100,
        BYTES = TMP_INTS * (int)sizeof(int)
    };
    grStream_t s;
    grGraph_t g;
    grGraphExec_t e;
    grKernel_t kstep = kernel3(step_fn, "gm_step", sizeof(int *), sizeof(int *), sizeof(int));
    void *tmp[N], *none = NULL;
    int n = TMP_INTS, *out;
    grGraphNode_t last = NULL;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMalloc((void **)&out, BYTES));
    CHECK_OK(grGraphCreate(&g, 0));
    for (int i = 0; i < N; i++) {
        grGraphNode_t a = tl_add_alloc(g, last ? &last : NULL, last ? 1 : 0, 0, BYTES, &tmp[i]);
        last = add_kernel3(g, &a, 1, kstep, i ? &tmp[i - 1] : &none, &tmp[i], &n);
        if (i >= 3)
            last = add_free(g, &last, 1, tmp[i - 3]);
    }
    last = add_kernel3(g, &last, 1, kstep, &tmp[N - 1], &out, &n);
    for (int i = N - 3; i < N; i++)
        last = add_free(g, &last, 1, tmp[i]);
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrReservedMemCurrent), 0);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    uint64_t reserved = tl_graph_mem_attr(0, grGraphMemAttrReservedMemCurrent);
    uint64_t used = tl_graph_mem_attr(0, grGraphMemAttrUsedMemCurrent);
    fprintf(stderr, "  # %d temporaries of %d bytes: %llu bytes reserved\n", N, BYTES,
            (unsigned long long)reserved);
    CHECK(reserved >= 4ull * BYTES);
    CHECK(reserved <= 4ull * BYTES + 4 * 4096);
    CHECK(used <= reserved);
    for (int round = 0; round < 3; round++) {
        memset(out, 0, BYTES);
        CHECK_OK(grGraphLaunch(e, s));
        CHECK_OK(grStreamSynchronize(s));
        CHECK_EQ(out[0], N);
        CHECK_EQ(out[TMP_INTS - 1], N);
    }
    CHECK_OK(grGraphExecDestroy(e));
    /* The stream may still hold the destroyed executable; trimming takes
     * its memory back. */
    CHECK_OK(grDeviceGraphMemTrim(0));
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrReservedMemCurrent), 0);
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrUsedMemCurrent), 0);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(out));
    CHECK_OK(grKernelDestroy(kstep));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(graphmem_parallel_allocations_never_share_memory)
{
    grGraph_t g;
    grGraphExec_t e;
    void *p, *q;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t a = tl_add_alloc(g, NULL, 0, 0, 8192, &p);
    grGraphNode_t b = tl_add_alloc(g, NULL, 0, 0, 8192, &q);
    add_free(g, &a, 1, p);
    add_free(g, &b, 1, q);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrReservedMemCurrent), 16384);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graphmem_attributes_high_marks_reset_and_trim)
{
    grGraph_t g;
    grGraphExec_t e;
    void *p;
    uint64_t zero = 0, one = 1;
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrUsedMemCurrent), 0);
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrUsedMemHigh), 0);
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrReservedMemCurrent), 0);
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrReservedMemHigh), 0);
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t a = tl_add_alloc(g, NULL, 0, 0, 3 * 4096, &p);
    add_free(g, &a, 1, p);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrReservedMemCurrent), 3 * 4096);
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrUsedMemCurrent), 3 * 4096);
    CHECK_OK(grDeviceGraphMemTrim(0)); /* the executable still needs it */
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrReservedMemCurrent), 3 * 4096);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grDeviceGraphMemTrim(0));
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrReservedMemCurrent), 0);
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrUsedMemCurrent), 0);
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrReservedMemHigh), 3 * 4096);
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrUsedMemHigh), 3 * 4096);
    CHECK_OK(grDeviceSetGraphMemAttribute(0, grGraphMemAttrUsedMemHigh, &zero));
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrUsedMemHigh), 0);
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrReservedMemHigh), 3 * 4096);
    CHECK_OK(grDeviceSetGraphMemAttribute(0, grGraphMemAttrReservedMemHigh, &zero));
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrReservedMemHigh), 0);
    /* Refused: current values, non-zero marks, other devices, NULL. */
    CHECK_GR(grErrorInvalidValue, grDeviceSetGraphMemAttribute(0, grGraphMemAttrUsedMemCurrent, &zero));
    CHECK_DETAIL_HAS("cannot be set");
    CHECK_GR(grErrorInvalidValue, grDeviceSetGraphMemAttribute(0, grGraphMemAttrUsedMemHigh, &one));
    CHECK_DETAIL_HAS("only be reset");
    CHECK_GR(grErrorInvalidDevice, grDeviceSetGraphMemAttribute(64, grGraphMemAttrUsedMemHigh, &zero));
    CHECK_GR(grErrorInvalidValue, grDeviceGetGraphMemAttribute(0, grGraphMemAttrUsedMemHigh, NULL));
    CHECK_GR(grErrorInvalidValue, grDeviceGetGraphMemAttribute(0, (grGraphMemAttributeType)9, &one));
    CHECK_GR(grErrorInvalidDevice, grDeviceGraphMemTrim(64)); /* no such device */
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graphmem_alloc_node_refuses_a_location_or_access_naming_no_device)
{
    grGraph_t g;
    grGraphNode_t n = NULL;
    grMemAccessDesc access;
    int ndev = 0;
    uint64_t v = 0;
    CHECK_OK(grGetDeviceCount(&ndev));
    CHECK_OK(grGraphCreate(&g, 0));
    /* Devices are 0..ndev-1: ndev, 64 and -1 name none. */
    int bad[] = {ndev, 64, -1};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        grMemAllocNodeParams ap = tl_alloc_params(0, 4096);
        ap.poolProps.location.id = bad[i];
        CHECK_GR(grErrorInvalidValue, grGraphAddMemAllocNode(&n, g, NULL, 0, &ap));
        CHECK_DETAIL_HAS("poolProps.location");
        CHECK_DETAIL_HAS("existing device");
        CHECK(ap.dptr == NULL);
        CHECK_GR(grErrorInvalidDevice,
                 grDeviceGetGraphMemAttribute(bad[i], grGraphMemAttrUsedMemCurrent, &v));
        CHECK_DETAIL_HAS("does not exist");
        CHECK_GR(grErrorInvalidDevice, grDeviceGraphMemTrim(bad[i]));
    }
    /* The access descriptor must name the allocation's own device. */
    grMemAllocNodeParams ap = tl_alloc_params(0, 4096);
    memset(&access, 0, sizeof access);
    access.location.type = grMemLocationTypeDevice;
    access.location.id = 1;
    access.flags = grMemAccessFlagsProtReadWrite;
    ap.accessDescs = &access;
    ap.accessDescCount = 1;
    CHECK_GR(grErrorInvalidValue, grGraphAddMemAllocNode(&n, g, NULL, 0, &ap));
    CHECK_DETAIL_HAS("must give device 0");
    /* Nothing was added, nothing is reserved. */
    CHECK_EQ(tl_node_count(g), 0);
    access.location.id = 0;
    CHECK_OK(grGraphAddMemAllocNode(&n, g, NULL, 0, &ap));
    CHECK_EQ(tl_node_count(g), 1);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graphmem_capture_of_malloc_async_kernel_free_async_gives_alloc_kernel_free)
{
    grStream_t s;
    grGraph_t g;
    grGraphExec_t e;
    grKernel_t kfill = kernel3(fill_ints_fn, "gm_fill", sizeof(int *), sizeof(int), sizeof(int));
    grKernel_t kstep = kernel3(step_fn, "gm_step", sizeof(int *), sizeof(int *), sizeof(int));
    void *p = NULL, *dev;
    int v = 9, n = 256, *out;
    grGraphNode_t nodes[8];
    size_t count = 8;
    grGraphNodeType t;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMalloc((void **)&out, 1024));
    CHECK_OK(grMalloc(&dev, 64));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grMallocAsync(&p, 1024, s));
    CHECK(p != NULL);
    void *args1[3] = {&p, &v, &n};
    CHECK_OK(grLaunchKernel(kfill, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args1, 0, s));
    void *args2[3] = {&p, &out, &n};
    CHECK_OK(grLaunchKernel(kstep, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args2, 0, s));
    /* A free of memory that is no graph allocation is refused; the
     * capture goes on. */
    CHECK_GR(grErrorInvalidValue, grFreeAsync(dev, s));
    CHECK_DETAIL_HAS("not returned by a graph allocation node");
    CHECK_OK(grFreeAsync(p, s));
    CHECK_GR(grErrorInvalidValue, grFreeAsync(p, s));
    CHECK_DETAIL_HAS("freed already");
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphGetNodes(g, nodes, &count));
    CHECK_EQ(count, 4);
    CHECK_OK(grGraphNodeGetType(nodes[0], &t));
    CHECK_EQ(t, grGraphNodeTypeMemAlloc);
    CHECK_OK(grGraphNodeGetType(nodes[1], &t));
    CHECK_EQ(t, grGraphNodeTypeKernel);
    CHECK_OK(grGraphNodeGetType(nodes[2], &t));
    CHECK_EQ(t, grGraphNodeTypeKernel);
    CHECK_OK(grGraphNodeGetType(nodes[3], &t));
    CHECK_EQ(t, grGraphNodeTypeMemFree);
    grMemAllocNodeParams ap;
    void *freed = NULL;
    CHECK_OK(grGraphMemAllocNodeGetParams(nodes[0], &ap));
    CHECK_PTR_EQ(ap.dptr, p);
    CHECK_EQ(ap.bytesize, 1024);
    CHECK_OK(grGraphMemFreeNodeGetParams(nodes[3], &freed));
    CHECK_PTR_EQ(freed, p);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    for (int i = 0; i < 3; i++) {
        memset(out, 0, 1024);
        CHECK_OK(grGraphLaunch(e, s));
        CHECK_OK(grStreamSynchronize(s));
        CHECK_EQ(out[0], 10);
        CHECK_EQ(out[255], 10);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(dev));
    CHECK_OK(grFree(out));
    CHECK_OK(grKernelDestroy(kfill));
    CHECK_OK(grKernelDestroy(kstep));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(graphmem_graph_with_memory_nodes_refuses_clone_embedding_deletion_and_second_exec)
{
    grGraph_t g, parent, child, clone = NULL;
    grGraphExec_t e, e2 = NULL;
    grGraphNode_t k, out = NULL, cn;
    void *p;
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t a = tl_add_alloc(g, NULL, 0, 0, 256, &p);
    CHECK_OK(grGraphAddEmptyNode(&k, g, &a, 1));
    grGraphNode_t f = add_free(g, &k, 1, p);
    CHECK_GR(grErrorNotSupported, grGraphClone(&clone, g));
    CHECK_DETAIL_HAS("cannot be cloned");
    CHECK_PTR_EQ(clone, NULL);
    CHECK_OK(grGraphCreate(&parent, 0));
    CHECK_GR(grErrorNotSupported, grGraphAddChildGraphNode(&out, parent, NULL, 0, g));
    CHECK_DETAIL_HAS("cannot be embedded");
    CHECK_GR(grErrorNotSupported, grGraphDestroyNode(k));
    CHECK_DETAIL_HAS("cannot be deleted");
    CHECK_GR(grErrorNotSupported, grGraphRemoveDependencies(g, &a, &k, NULL, 1));
    CHECK_DETAIL_HAS("cannot be");
    CHECK_EQ(tl_node_count(g), 3);
    /* Adding edges stays allowed. */
    CHECK_OK(grGraphAddDependencies(g, &a, &f, NULL, 1));
    /* A child graph cannot receive memory nodes either. */
    CHECK_OK(grGraphCreate(&child, 0));
    CHECK_OK(grGraphAddChildGraphNode(&cn, parent, NULL, 0, child));
    CHECK_OK(grGraphDestroy(child));
    CHECK_OK(grGraphChildGraphNodeGetGraph(cn, &child));
    grMemAllocNodeParams ap = tl_alloc_params(0, 64);
    CHECK_GR(grErrorNotSupported, grGraphAddMemAllocNode(&out, child, NULL, 0, &ap));
    CHECK_DETAIL_HAS("child graph");
    CHECK_PTR_EQ(ap.dptr, NULL);
    /* One executable at a time. */
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_GR(grErrorNotSupported, grGraphInstantiate(&e2, g, 0)); /* CUDA 13: tests/probes/memory.cu */
    CHECK_DETAIL_HAS("only one instantiation");
    /* An update from the same graph keeps its memory (CUDA 13 accepts it,
     * tests/probes/memory.cu); the second executable is still refused. */
    memset(&info, 0, sizeof info);
    CHECK_OK(grGraphExecUpdate(e, g, &info));
    CHECK_EQ(info.result, grGraphExecUpdateSuccess);
    CHECK_GR(grErrorNotSupported, grGraphInstantiate(&e2, g, 0));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphInstantiate(&e2, g, 0));
    CHECK_OK(grGraphExecDestroy(e2));
    CHECK_OK(grGraphDestroy(parent));
    CHECK_OK(grGraphDestroy(g));
}

/* alloc(bytes) -> fill(v) -> seen -> free: the graph of the update tests. */
static grGraph_t update_graph(size_t bytes, int *v, void **p, grKernel_t kfill, grKernel_t kseen,
                              void ***wherep, int **sump)
{
    static int one = 1;
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t a = tl_add_alloc(g, NULL, 0, 0, bytes, p);
    grGraphNode_t k1 = add_kernel3(g, &a, 1, kfill, p, v, &one);
    grGraphNode_t k2 = add_kernel3(g, &k1, 1, kseen, p, wherep, sump);
    add_free(g, &k2, 1, *p);
    return g;
}

/* CUDA 13 updates executables with memory nodes, another size included
 * (tests/probes/memory.cu, update-mem-*): the executable then maps the new
 * graph's allocations and gives the old graph's back. */
GR_TEST(graphmem_exec_update_moves_the_executable_to_the_new_graphs_allocations)
{
    grStream_t s;
    grGraphExec_t e, e1, e2 = NULL, e3;
    grKernel_t kfill = kernel3(fill_ints_fn, "gm_ufill", sizeof(int *), sizeof(int), sizeof(int));
    grKernel_t kseen = kernel3(seen_fn, "gm_useen", sizeof(int *), sizeof(void **), sizeof(int *));
    void *p1, *p2, *p3, *where = NULL;
    void **wherep = &where;
    int sum = 0, *sump = &sum, v1 = 3, v2 = 40, v3 = 500;
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grStreamCreate(&s));
    grGraph_t g1 = update_graph(4096, &v1, &p1, kfill, kseen, &wherep, &sump);
    grGraph_t g2 = update_graph(3 * 4096, &v2, &p2, kfill, kseen, &wherep, &sump);
    grGraph_t g3 = update_graph(4096, &v3, &p3, kfill, kseen, &wherep, &sump);
    CHECK_OK(grGraphInstantiate(&e, g1, 0));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_PTR_EQ(where, p1);
    CHECK_EQ(sum, 3);
    /* g3's allocation is mapped by another executable: refused, nothing
     * changes. */
    CHECK_OK(grGraphInstantiate(&e3, g3, 0));
    uint64_t reserved1 = tl_graph_mem_attr(0, grGraphMemAttrReservedMemCurrent);
    memset(&info, 0, sizeof info);
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, g3, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorNotSupported);
    CHECK_DETAIL_HAS("an executable of it exists already");
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_PTR_EQ(where, p1);
    CHECK_EQ(sum, 6);
    /* Another size: accepted; the launch runs on g2's allocation. */
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    CHECK_EQ(info.result, grGraphExecUpdateSuccess);
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_PTR_EQ(where, p2);
    CHECK_EQ(sum, 46);
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrReservedMemCurrent), reserved1 + 2 * 4096);
    /* g1 gave its memory back: it can be instantiated again; g2 cannot. */
    CHECK_OK(grGraphInstantiate(&e1, g1, 0));
    CHECK_GR(grErrorNotSupported, grGraphInstantiate(&e2, g2, 0));
    CHECK_PTR_EQ(e2, NULL);
    CHECK_OK(grGraphLaunch(e1, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_PTR_EQ(where, p1);
    CHECK_EQ(sum, 49);
    CHECK_OK(grGraphExecDestroy(e1));
    CHECK_OK(grGraphExecDestroy(e3));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grGraphDestroy(g1));
    CHECK_OK(grGraphDestroy(g2));
    CHECK_OK(grGraphDestroy(g3));
    CHECK_OK(grKernelDestroy(kfill));
    CHECK_OK(grKernelDestroy(kseen));
}

GR_TEST(graphmem_generic_add_node_makes_alloc_and_free_nodes)
{
    grGraph_t g;
    grGraphNode_t a, f;
    grGraphNodeParams np;
    grMemAccessDesc acc = {{grMemLocationTypeDevice, 0}, grMemAccessFlagsProtReadWrite};
    grMemAllocNodeParams got;
    void *freed = NULL;
    CHECK_OK(grGraphCreate(&g, 0));
    memset(&np, 0, sizeof np);
    np.type = grGraphNodeTypeMemAlloc;
    np.alloc = tl_alloc_params(0, 5000);
    np.alloc.accessDescs = &acc;
    np.alloc.accessDescCount = 1;
    CHECK_OK(grGraphAddNode(&a, g, NULL, NULL, 0, &np));
    CHECK(np.alloc.dptr != NULL);
    CHECK_OK(grGraphMemAllocNodeGetParams(a, &got));
    CHECK_PTR_EQ(got.dptr, np.alloc.dptr);
    CHECK_EQ(got.bytesize, 5000);
    CHECK_EQ(got.accessDescCount, 1);
    CHECK_EQ(got.accessDescs[0].flags, grMemAccessFlagsProtReadWrite);
    void *p = np.alloc.dptr;
    /* Two access descriptors: the CPU device has one device. */
    np.alloc.accessDescCount = 2;
    np.alloc.dptr = NULL;
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&f, g, NULL, NULL, 0, &np));
    CHECK_DETAIL_HAS("accessDescCount");
    CHECK_PTR_EQ(np.alloc.dptr, NULL);
    memset(&np, 0, sizeof np);
    np.type = grGraphNodeTypeMemFree;
    np.free.dptr = p;
    CHECK_OK(grGraphAddNode(&f, g, &a, NULL, 1, &np));
    CHECK_OK(grGraphMemFreeNodeGetParams(f, &freed));
    CHECK_PTR_EQ(freed, p);
    CHECK_GR(grErrorInvalidValue, grGraphMemFreeNodeGetParams(a, &freed));
    CHECK_EQ(tl_node_count(g), 2);
    CHECK_OK(grGraphDestroy(g));
}

/* Destroying an executable ends its allocations still allocated, even
 * while the stream it was launched on keeps the executable: a free of
 * one afterwards (another graph's free node, grFreeAsync) is refused. */
GR_TEST(destroying_an_exec_ends_its_allocations_while_a_stream_holds_it)
{
    grGraph_t a, b;
    grGraphNode_t nb;
    grGraphExec_t xa, xb;
    grStream_t s;
    void *p = NULL;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grGraphCreate(&a, 0));
    CHECK_OK(grGraphCreate(&b, 0));
    tl_add_alloc(a, NULL, 0, 0, 4096, &p);
    CHECK_OK(grGraphAddMemFreeNode(&nb, b, NULL, 0, p));
    CHECK_OK(grGraphInstantiate(&xa, a, 0));
    CHECK_OK(grGraphInstantiate(&xb, b, 0));
    CHECK_OK(grGraphLaunch(xa, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grGraphExecDestroy(xa));
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(xb, s));
    CHECK_DETAIL_HAS("not allocated now");
    CHECK_GR(grErrorInvalidValue, grFreeAsync(p, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grGraphExecDestroy(xb));
    CHECK_OK(grGraphDestroy(a));
    CHECK_OK(grGraphDestroy(b));
    CHECK_OK(grStreamDestroy(s));
}

/* The pages of a graph allocation are backed only while an executable
 * maps them; an eager copy or memset of them before instantiation or
 * after the executable is gone crashed a stream's thread. */
GR_TEST(eager_copy_of_graph_memory_no_executable_maps_is_refused)
{
    grGraph_t g = NULL;
    grGraphExec_t e = NULL;
    void *p = NULL;
    int host[4] = {1, 2, 3, 4};
    CHECK_OK(grGraphCreate(&g, 0));
    tl_add_alloc(g, NULL, 0, 0, TMP_INTS * sizeof(int), &p);

    CHECK_EQ(grMemcpy(host, p, sizeof host, grMemcpyDeviceToHost), grErrorInvalidValue);
    CHECK_DETAIL_HAS("no executable maps");
    CHECK_EQ(grMemcpy(p, host, sizeof host, grMemcpyHostToDevice), grErrorInvalidValue);
    CHECK_EQ(grMemset(p, 0, sizeof host), grErrorInvalidValue);
    CHECK_EQ(host[3], 4); /* the refused calls changed nothing */

    /* Mapped while the executable lives. */
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grMemset(p, 7, sizeof host));
    CHECK_OK(grMemcpy(host, p, sizeof host, grMemcpyDeviceToHost));
    CHECK_EQ(host[0], 0x07070707);
    CHECK_OK(grGraphExecDestroy(e));

    CHECK_EQ(grMemcpy(host, p, sizeof host, grMemcpyDeviceToHost), grErrorInvalidValue);
    CHECK_OK(grGraphDestroy(g));
}
