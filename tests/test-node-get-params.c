/*
 * test-node-get-params.c - grGraphNodeGetParams (CUDA 13.2): the generic
 * form of every node type's parameters, and a round trip through
 * grGraphNodeSetParams.
 */
#include "testlib.h"

GR_TEST(node_get_params_gives_each_types_parameters)
{
    grGraph_t g, child;
    grGraphNode_t kn, cn, mn, hn, gn, en, rn, wn, con;
    grKernel_t k;
    grEvent_t ev;
    size_t sizes[1] = {sizeof(int)};
    int v = 42;
    void *args[1] = {&v};
    static char src[64], dst[64];
    grGraphNodeParams p;
    CHECK_OK(grKernelCreate(&k, tl_kernel_nop, "get_params_k", 1, sizes));
    CHECK_OK(grEventCreate(&ev));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphCreate(&child, 0));
    CHECK_OK(grGraphAddEmptyNode(&en, child, NULL, 0));
    grKernelNodeParams kp = {k, GR_DIM3(2, 1, 1), GR_DIM3(8, 1, 1), 16, args, NULL};
    CHECK_OK(grGraphAddKernelNode(&kn, g, NULL, 0, &kp));
    CHECK_OK(grGraphAddMemcpyNode1D(&cn, g, NULL, 0, dst, src, 64, grMemcpyHostToHost));
    grMemsetParams mp = {dst, 0, 7, 1, 32, 1};
    CHECK_OK(grGraphAddMemsetNode(&mn, g, NULL, 0, &mp));
    grHostNodeParams hp = {tl_noop, &v};
    CHECK_OK(grGraphAddHostNode(&hn, g, NULL, 0, &hp));
    CHECK_OK(grGraphAddChildGraphNode(&gn, g, NULL, 0, child));
    CHECK_OK(grGraphAddEventRecordNode(&rn, g, NULL, 0, ev));
    CHECK_OK(grGraphAddEventWaitNode(&wn, g, NULL, 0, ev));

    CHECK_OK(grGraphNodeGetParams(kn, &p));
    CHECK_EQ(p.type, grGraphNodeTypeKernel);
    CHECK_PTR_EQ(p.kernel.func, k);
    CHECK_EQ(p.kernel.gridDim.x, 2);
    CHECK_EQ(p.kernel.blockDim.x, 8);
    CHECK_EQ(p.kernel.sharedMemBytes, 16);
    CHECK_EQ(*(int *)p.kernel.kernelParams[0], 42);
    /* The generic form goes back in as it came out. */
    v = 7;
    p.kernel.kernelParams = args;
    CHECK_OK(grGraphNodeSetParams(kn, &p));
    CHECK_OK(grGraphNodeGetParams(kn, &p));
    CHECK_EQ(*(int *)p.kernel.kernelParams[0], 7);

    CHECK_OK(grGraphNodeGetParams(cn, &p));
    CHECK_EQ(p.type, grGraphNodeTypeMemcpy);
    CHECK_PTR_EQ(p.memcpy.copyParams.dstPtr.ptr, dst);
    CHECK_PTR_EQ(p.memcpy.copyParams.srcPtr.ptr, src);
    CHECK_EQ(p.memcpy.copyParams.extent.width, 64);

    CHECK_OK(grGraphNodeGetParams(mn, &p));
    CHECK_EQ(p.type, grGraphNodeTypeMemset);
    CHECK_PTR_EQ(p.memset.dst, dst);
    CHECK_EQ(p.memset.value, 7);
    CHECK_EQ(p.memset.width, 32);

    CHECK_OK(grGraphNodeGetParams(hn, &p));
    CHECK(p.host.fn == tl_noop);
    CHECK_PTR_EQ(p.host.userData, &v);

    CHECK_OK(grGraphNodeGetParams(gn, &p));
    CHECK_EQ(p.type, grGraphNodeTypeGraph);
    size_t n = 0;
    CHECK_OK(grGraphGetNodes(p.graph.graph, NULL, &n));
    CHECK_EQ(n, 1);

    CHECK_OK(grGraphNodeGetParams(rn, &p));
    CHECK_PTR_EQ(p.eventRecord.event, ev);
    CHECK_OK(grGraphNodeGetParams(wn, &p));
    CHECK_EQ(p.type, grGraphNodeTypeWaitEvent);
    CHECK_PTR_EQ(p.eventWait.event, ev);

    /* A conditional node: handle, type, size and its bodies. */
    grGraphConditionalHandle h;
    grGraphNodeParams cp;
    memset(&cp, 0, sizeof cp);
    CHECK_OK(grGraphConditionalHandleCreate(&h, g, 0, 0));
    cp.type = grGraphNodeTypeConditional;
    cp.conditional.handle = h;
    cp.conditional.type = grGraphCondTypeSwitch;
    cp.conditional.size = 3;
    CHECK_OK(grGraphAddNode(&con, g, NULL, NULL, 0, &cp));
    CHECK_OK(grGraphNodeGetParams(con, &p));
    CHECK_EQ(p.type, grGraphNodeTypeConditional);
    CHECK_EQ(p.conditional.handle, h);
    CHECK_EQ(p.conditional.type, grGraphCondTypeSwitch);
    CHECK_EQ(p.conditional.size, 3);
    for (int b = 0; b < 3; b++)
        CHECK_PTR_EQ(p.conditional.phGraph_out[b], cp.conditional.phGraph_out[b]);

    /* Refusals change nothing. */
    memset(&p, 0xab, sizeof p);
    CHECK_GR(grErrorInvalidValue, grGraphNodeGetParams(kn, NULL));
    CHECK_GR(grErrorInvalidValue, grGraphNodeGetParams(NULL, &p));
    CHECK_EQ(((unsigned char *)&p)[0], 0xab);

    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(child));
    CHECK_OK(grEventDestroy(ev));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(func_get_param_count_gives_the_kernels_count)
{
    grKernel_t k;
    size_t sizes[3] = {sizeof(int), sizeof(void *), sizeof(double)}, n = 99;
    CHECK_OK(grKernelCreate(&k, tl_kernel_nop, "param_count_k", 3, sizes));
    CHECK_OK(grFuncGetParamCount(k, &n));
    CHECK_EQ(n, 3);
    CHECK_GR(grErrorInvalidValue, grFuncGetParamCount(k, NULL));
    CHECK_OK(grKernelDestroy(k));
    CHECK_GR(grErrorInvalidDeviceFunction, grFuncGetParamCount(k, &n));
    CHECK_EQ(n, 3);
}

GR_TEST(node_get_params_gives_memory_nodes)
{
    grGraph_t g;
    grGraphNode_t an, fn;
    grGraphNodeParams p;
    void *dptr;
    CHECK_OK(grGraphCreate(&g, 0));
    an = tl_add_alloc(g, NULL, 0, 0, 4096, &dptr);
    CHECK_OK(grGraphAddMemFreeNode(&fn, g, &an, 1, dptr));
    CHECK_OK(grGraphNodeGetParams(an, &p));
    CHECK_EQ(p.type, grGraphNodeTypeMemAlloc);
    CHECK_PTR_EQ(p.alloc.dptr, dptr);
    CHECK_EQ(p.alloc.bytesize, 4096);
    CHECK_OK(grGraphNodeGetParams(fn, &p));
    CHECK_EQ(p.type, grGraphNodeTypeMemFree);
    CHECK_PTR_EQ(p.free.dptr, dptr);
    CHECK_OK(grGraphDestroy(g));
}
