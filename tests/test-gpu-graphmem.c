/*
 * test-gpu-graphmem.c - graph memory on a GPU: allocation nodes of a GPU
 * whose ranges an executable maps onto the device's memory, captured
 * grMallocAsync / grFreeAsync on a GPU stream, allocations that outlive
 * their launch, the launch rule, the device's counters, and executables
 * refusing allocations of another device. Each test needs a GPU device
 * and is skipped, saying why, where there is none (CI has none).
 *
 * The kernels exist twice: a CPU function per block (tl_ptx_kernel,
 * tests/lib) and the GPU entry of the same name in gpu-ptx.h (from
 * gpu-kernels.cu).
 */
#include "testlib.h"

#include <stdbool.h>

enum {
    N = 1000,
    BLOCK = 128,
    BYTES = N * sizeof(unsigned)
};

/* The parameters of an allocation of 'bytes' on 'device'; with 'access',
 * one access descriptor naming access_dev. */
static grMemAllocNodeParams alloc_params_access(int device, size_t bytes, grMemAccessDesc *access,
                                                int access_dev)
{
    grMemAllocNodeParams ap;
    ap = tl_alloc_params(device, bytes);
    if (access) {
        memset(access, 0, sizeof *access);
        access->location.type = grMemLocationTypeDevice;
        access->location.id = access_dev;
        access->flags = grMemAccessFlagsProtReadWrite;
        ap.accessDescs = access;
        ap.accessDescCount = 1;
    }
    return ap;
}

/* Sets h's BYTES to 'fill', launches e on s, waits, and checks that the
 * launch wrote want into all N words of h. */
static void run_check(grGraphExec_t e, grStream_t s, unsigned *h, int fill, unsigned want)
{
    memset(h, fill, BYTES);
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    tl_check_all_u32(h, N, want);
}

static void exec_graph_stream_done(grGraphExec_t e, grGraph_t g, grStream_t s)
{
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

/* The end of a GPU test: its pinned host buffer and its kernels (add
 * where not NULL) go, and the CPU is the current device again. */
static void gpu_test_done(unsigned *h, grKernel_t fill, grKernel_t add)
{
    CHECK_OK(grFreeHost(h));
    CHECK_OK(grKernelDestroy(fill));
    if (add)
        CHECK_OK(grKernelDestroy(add));
    CHECK_OK(grSetDevice(0));
}

/* Adds to g, after deps[0..nd): an allocation of ap, fill(*v) over *n
 * words of it, a copy of them to dst and the free; the allocation's
 * address into *d. Returns the free node. */
static grGraphNode_t add_fill_copy_free(grGraph_t g, const grGraphNode_t *deps, size_t nd, grKernel_t fill,
                                        grMemAllocNodeParams *ap, unsigned **d, unsigned *v, unsigned *n,
                                        unsigned *dst)
{
    grGraphNode_t a, k, copy, f;
    CHECK_OK(grGraphAddMemAllocNode(&a, g, deps, nd, ap));
    *d = ap->dptr;
    void *fa[] = {d, v, n};
    grKernelNodeParams p = tl_params_1d(fill, fa, N, BLOCK);
    CHECK_OK(grGraphAddKernelNode(&k, g, &a, 1, &p));
    CHECK_OK(grGraphAddMemcpyNode1D(&copy, g, &k, 1, dst, *d, BYTES, grMemcpyDeviceToHost));
    CHECK_OK(grGraphAddMemFreeNode(&f, g, &copy, 1, *d));
    return f;
}

GR_TEST(gpu_graphmem_alloc_kernel_copy_free_runs_on_the_gpu_launch_after_launch)
{
    int gpu = tl_set_first_gpu();
    grKernel_t fill = tl_ptx_kernel("gr_test_fill"), add = tl_ptx_kernel("gr_test_add");
    unsigned *h, *d, v = 5, w = 2, n = N;
    CHECK_OK(grMallocHost((void **)&h, BYTES));
    grGraph_t g;
    grGraphNode_t a, k1, k2, copy, f;
    grMemAccessDesc access;
    grMemAllocNodeParams ap = alloc_params_access(gpu, BYTES, &access, gpu);
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemAllocNode(&a, g, NULL, 0, &ap));
    d = ap.dptr;
    CHECK(d != NULL);
    void *fa[] = {&d, &v, &n}, *aa[] = {&d, &w, &n};
    grKernelNodeParams p1 = tl_params_1d(fill, fa, N, BLOCK), p2 = tl_params_1d(add, aa, N, BLOCK);
    CHECK_OK(grGraphAddKernelNode(&k1, g, &a, 1, &p1));
    CHECK_OK(grGraphAddKernelNode(&k2, g, &k1, 1, &p2));
    CHECK_OK(grGraphAddMemcpyNode1D(&copy, g, &k2, 1, h, d, BYTES, grMemcpyDeviceToHost));
    CHECK_OK(grGraphAddMemFreeNode(&f, g, &copy, 1, d));
    /* The node keeps its device and access descriptor. */
    grMemAllocNodeParams got;
    CHECK_OK(grGraphMemAllocNodeGetParams(a, &got));
    CHECK_PTR_EQ(got.dptr, d);
    CHECK_EQ(got.poolProps.location.id, gpu);
    CHECK_EQ(got.accessDescCount, 1);
    CHECK_EQ(got.accessDescs[0].location.id, gpu);
    uint64_t before = tl_graph_mem_attr(gpu, grGraphMemAttrUsedMemCurrent);
    grGraphExec_t e;
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    /* The executable maps the allocation on the GPU: the device counts it. */
    CHECK(tl_graph_mem_attr(gpu, grGraphMemAttrUsedMemCurrent) >= before + BYTES);
    CHECK(tl_graph_mem_attr(gpu, grGraphMemAttrReservedMemHigh) >= before + BYTES);
    for (int i = 0; i < 5; i++) {
        run_check(e, s, h, 0xff, 7);
    }
    /* A new instantiation maps the same address again. */
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grDeviceGraphMemTrim(gpu)); /* in case a stream held it on */
    CHECK_EQ(tl_graph_mem_attr(gpu, grGraphMemAttrUsedMemCurrent), before);
    CHECK_EQ(tl_graph_mem_attr(gpu, grGraphMemAttrReservedMemCurrent), before);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    run_check(e, s, h, 0, 7);
    exec_graph_stream_done(e, g, s);
    gpu_test_done(h, fill, add);
}

/* alloc -> fill(v) -> copy to h -> free on 'gpu' (the allocation with
 * an access descriptor for the GPU where 'access'); *d gets the
 * allocation. */
static grGraph_t fill_copy_graph(int gpu, grKernel_t fill, unsigned **d, unsigned *v, unsigned *n,
                                 unsigned *h, bool access)
{
    grGraph_t g;
    grMemAccessDesc desc;
    grMemAllocNodeParams ap = alloc_params_access(gpu, BYTES, access ? &desc : NULL, access ? gpu : 0);
    CHECK_OK(grGraphCreate(&g, 0));
    add_fill_copy_free(g, NULL, 0, fill, &ap, d, v, n, h);
    return g;
}

/* CUDA 13 updates executables with memory nodes (tests/probes/memory.cu):
 * on a GPU the executable then maps the new graph's allocation. */
GR_TEST(gpu_graphmem_exec_update_moves_to_the_new_graphs_allocation)
{
    int gpu = tl_set_first_gpu();
    grKernel_t fill = tl_ptx_kernel("gr_test_fill");
    unsigned *h, *d1, *d2, v1 = 11, v2 = 22, n = N;
    CHECK_OK(grMallocHost((void **)&h, BYTES));
    grGraph_t g1 = fill_copy_graph(gpu, fill, &d1, &v1, &n, h, true);
    grGraph_t g2 = fill_copy_graph(gpu, fill, &d2, &v2, &n, h, true);
    CHECK(d1 != d2);
    grGraphExec_t e, e1;
    grGraphExecUpdateResultInfo info;
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphInstantiate(&e, g1, 0));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    tl_check_all_u32(h, N, 11);
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    CHECK_EQ(info.result, grGraphExecUpdateSuccess);
    run_check(e, s, h, 0, 22);
    /* g1's allocation is free for another executable. */
    CHECK_OK(grGraphInstantiate(&e1, g1, 0));
    run_check(e1, s, h, 0, 11);
    CHECK_OK(grGraphExecDestroy(e1));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grGraphDestroy(g1));
    CHECK_OK(grGraphDestroy(g2));
    gpu_test_done(h, fill, NULL);
}

GR_TEST(gpu_graphmem_sequential_allocations_share_the_devices_memory)
{
    int gpu = tl_set_first_gpu();
    grKernel_t fill = tl_ptx_kernel("gr_test_fill");
    unsigned *h, *d1, *d2, v1 = 3, v2 = 4, n = N;
    CHECK_OK(grMallocHost((void **)&h, 2 * BYTES));
    grGraph_t g;
    grMemAllocNodeParams ap1 = alloc_params_access(gpu, BYTES, NULL, 0),
                         ap2 = alloc_params_access(gpu, BYTES, NULL, 0);
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t f1 = add_fill_copy_free(g, NULL, 0, fill, &ap1, &d1, &v1, &n, h);
    /* After the first one's free: the two may share physical memory. */
    add_fill_copy_free(g, &f1, 1, fill, &ap2, &d2, &v2, &n, h + N);
    CHECK(d2 != d1);
    /* The footprint of one allocation of BYTES (rounded to the device's
     * granularity), from a graph of that allocation alone. */
    grGraph_t lone;
    grGraphNode_t la;
    grGraphExec_t e;
    grMemAllocNodeParams lap = alloc_params_access(gpu, BYTES, NULL, 0);
    CHECK_OK(grGraphCreate(&lone, 0));
    CHECK_OK(grGraphAddMemAllocNode(&la, lone, NULL, 0, &lap));
    uint64_t before = tl_graph_mem_attr(gpu, grGraphMemAttrUsedMemCurrent);
    CHECK_OK(grGraphInstantiate(&e, lone, 0));
    uint64_t span = tl_graph_mem_attr(gpu, grGraphMemAttrUsedMemCurrent) - before;
    CHECK(span >= BYTES);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(lone));
    CHECK_OK(grDeviceGraphMemTrim(gpu));
    CHECK_EQ(tl_graph_mem_attr(gpu, grGraphMemAttrUsedMemCurrent), before);
    /* The two allocations of g share one slot. */
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_EQ(tl_graph_mem_attr(gpu, grGraphMemAttrUsedMemCurrent) - before, span);
    for (int i = 0; i < 3; i++) {
        memset(h, 0, 2 * BYTES);
        CHECK_OK(grGraphLaunch(e, s));
        CHECK_OK(grStreamSynchronize(s));
        tl_check_all_u32(h, N, 3);
        tl_check_all_u32(h + N, N, 4);
    }
    exec_graph_stream_done(e, g, s);
    gpu_test_done(h, fill, NULL);
}

GR_TEST(gpu_graphmem_captured_malloc_async_free_async_replays_on_the_gpu)
{
    int gpu = tl_set_first_gpu();
    grKernel_t fill = tl_ptx_kernel("gr_test_fill"), add = tl_ptx_kernel("gr_test_add");
    unsigned *h, *d = NULL, v = 10, w = 1, n = N;
    CHECK_OK(grMallocHost((void **)&h, BYTES));
    grGraph_t g;
    grStream_t s = tl_stream(0);
    grDim3 grid = GR_DIM3((N + BLOCK - 1) / BLOCK, 1, 1), block = GR_DIM3(BLOCK, 1, 1);
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grMallocAsync((void **)&d, BYTES, s));
    CHECK(d != NULL);
    void *fa[] = {&d, &v, &n}, *aa[] = {&d, &w, &n};
    CHECK_OK(grLaunchKernel(fill, grid, block, fa, 0, s));
    CHECK_OK(grLaunchKernel(add, grid, block, aa, 0, s));
    CHECK_OK(grMemcpyAsync(h, d, BYTES, grMemcpyDeviceToHost, s));
    CHECK_OK(grFreeAsync(d, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    grGraphNode_t nodes[8];
    size_t count = 8;
    grGraphNodeType t;
    CHECK_OK(grGraphGetNodes(g, nodes, &count));
    CHECK_EQ(count, 5);
    CHECK_OK(grGraphNodeGetType(nodes[0], &t));
    CHECK_EQ(t, grGraphNodeTypeMemAlloc);
    CHECK_OK(grGraphNodeGetType(nodes[4], &t));
    CHECK_EQ(t, grGraphNodeTypeMemFree);
    /* The allocation is the capturing stream's device's. */
    grMemAllocNodeParams ap;
    CHECK_OK(grGraphMemAllocNodeGetParams(nodes[0], &ap));
    CHECK_PTR_EQ(ap.dptr, d);
    CHECK_EQ(ap.poolProps.location.id, gpu);
    grGraphExec_t e;
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    for (int i = 0; i < 4; i++) {
        run_check(e, s, h, 0, 11);
    }
    exec_graph_stream_done(e, g, s);
    gpu_test_done(h, fill, add);
}

GR_TEST(gpu_graphmem_unfreed_allocation_outlives_its_launch_until_grFreeAsync)
{
    int gpu = tl_set_first_gpu();
    grKernel_t fill = tl_ptx_kernel("gr_test_fill");
    unsigned *h, *d, v = 42, n = N;
    CHECK_OK(grMallocHost((void **)&h, BYTES));
    grGraph_t g;
    grGraphNode_t a, k;
    grMemAllocNodeParams ap = alloc_params_access(gpu, BYTES, NULL, 0);
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemAllocNode(&a, g, NULL, 0, &ap));
    d = ap.dptr;
    void *fa[] = {&d, &v, &n};
    grKernelNodeParams p = tl_params_1d(fill, fa, N, BLOCK);
    CHECK_OK(grGraphAddKernelNode(&k, g, &a, 1, &p));
    grGraphExec_t e;
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    /* Not launched yet: nothing to free. */
    CHECK_GR(grErrorInvalidValue, grFreeAsync(d, s));
    CHECK_DETAIL_HAS("not allocated now");
    CHECK_OK(grGraphLaunch(e, s));
    /* The allocation outlives the launch: read it back afterwards. */
    memset(h, 0, BYTES);
    CHECK_OK(grMemcpyAsync(h, d, BYTES, grMemcpyDeviceToHost, s));
    CHECK_OK(grStreamSynchronize(s));
    tl_check_all_u32(h, N, 42);
    /* CUDA's rule: the previous launch's allocation is still live. */
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(e, s));
    CHECK_DETAIL_HAS("still allocated");
    CHECK_OK(grFreeAsync(d, s));
    CHECK_GR(grErrorInvalidValue, grFreeAsync(d, s));
    CHECK_DETAIL_HAS("not allocated now");
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grFree(d));
    CHECK_GR(grErrorInvalidValue, grFree(d));
    CHECK_OK(grGraphExecDestroy(e));
    /* With auto-free, a launch frees what the previous one left. */
    CHECK_OK(grGraphInstantiate(&e, g, grGraphInstantiateFlagAutoFreeOnLaunch));
    for (int i = 0; i < 3; i++)
        CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grFreeAsync(d, s));
    CHECK_OK(grStreamSynchronize(s));
    exec_graph_stream_done(e, g, s);
    gpu_test_done(h, fill, NULL);
}

GR_TEST(gpu_graphmem_executable_refuses_allocations_of_another_device)
{
    int gpu = tl_first_gpu();
    grGraph_t g;
    grGraphNode_t a;
    grGraphExec_t e = NULL;
    grMemAccessDesc access;
    /* An allocation of the GPU in a CPU executable. */
    grMemAllocNodeParams ap = alloc_params_access(gpu, 4096, NULL, 0);
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemAllocNode(&a, g, NULL, 0, &ap));
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&e, g, 0));
    CHECK_DETAIL_HAS("instantiated for device 0");
    CHECK(e == NULL);
    /* ... which the GPU instantiates. */
    CHECK_OK(grSetDevice(gpu));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    /* An allocation of the CPU in a GPU executable. */
    e = NULL;
    ap = alloc_params_access(0, 4096, NULL, 0);
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemAllocNode(&a, g, NULL, 0, &ap));
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&e, g, 0));
    CHECK_DETAIL_HAS("memory of device 0");
    CHECK(e == NULL);
    CHECK_OK(grGraphDestroy(g));
    /* An access descriptor naming another device than the allocation's. */
    CHECK_OK(grGraphCreate(&g, 0));
    ap = alloc_params_access(gpu, 4096, &access, 0);
    CHECK_GR(grErrorInvalidValue, grGraphAddMemAllocNode(&a, g, NULL, 0, &ap));
    CHECK_DETAIL_HAS("accessDescs[0]");
    size_t count = 1;
    CHECK_OK(grGraphGetNodes(g, NULL, &count));
    CHECK_EQ(count, 0);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grSetDevice(0));
}

GR_TEST(gpu_graphmem_device_reset_leaves_graph_allocations_to_their_graph)
{
    int gpu = tl_set_first_gpu();
    grKernel_t fill = tl_ptx_kernel("gr_test_fill");
    unsigned *h, *d, v = 6, n = N;
    CHECK_OK(grMallocHost((void **)&h, BYTES));
    grGraph_t g = fill_copy_graph(gpu, fill, &d, &v, &n, h, false);
    /* The reset frees the GPU's grMalloc memory, not the graph's. */
    CHECK_OK(grDeviceReset());
    grGraphExec_t e;
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    run_check(e, s, h, 0, 6);
    /* Still tracked: a copy past its end is refused. */
    CHECK_GR(grErrorInvalidValue, grMemcpyAsync(h, d, BYTES + 1, grMemcpyDeviceToHost, s));
    CHECK_DETAIL_HAS("past its end");
    exec_graph_stream_done(e, g, s);
    gpu_test_done(h, fill, NULL);
}
