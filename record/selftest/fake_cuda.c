/*
 * fake_cuda.c - a stand-in for the CUDA driver and CUPTI, just enough for
 * the recorder's own code to run without a GPU: the selftest (selftest.c)
 * links the recorder's sources against these functions, plays a sequence
 * of CUPTI callbacks into it as the driver would, and lets it write its
 * log, which tests/test-record.c then converts. The graph it serves is
 * the seed capture: foo(a, n) -> copy a to b -> bar(b, n) (the bench
 * repeats that chain to a graph of its size). Callbacks reach the
 * recorder only where it enabled them, as in CUPTI (fake_dispatch).
 *
 * Nothing here is CUDA's behaviour beyond the shapes of the calls; what
 * CUDA really answers is for tools/record-check.sh on a GPU.
 */
#include "fake_cuda.h"

#include <string.h>

CUpti_CallbackFunc fake_callback;
void *fake_userdata;
unsigned long fake_delivered, fake_not_delivered;
unsigned fake_domain_switches;

/* What the subscriber enabled, per domain and callback id. */
static unsigned char on_driver[CUPTI_DRIVER_TRACE_CBID_SIZE], on_runtime[CUPTI_RUNTIME_TRACE_CBID_SIZE],
    on_resource[CUPTI_CBID_RESOURCE_SIZE];

static unsigned char *enable_table(CUpti_CallbackDomain d, size_t *n)
{
    switch (d) {
    case CUPTI_CB_DOMAIN_DRIVER_API:
        *n = sizeof on_driver;
        return on_driver;
    case CUPTI_CB_DOMAIN_RUNTIME_API:
        *n = sizeof on_runtime;
        return on_runtime;
    case CUPTI_CB_DOMAIN_RESOURCE:
        *n = sizeof on_resource;
        return on_resource;
    default:
        *n = 0;
        return NULL;
    }
}

int fake_enabled(CUpti_CallbackDomain dom, CUpti_CallbackId id)
{
    size_t n;
    const unsigned char *t = enable_table(dom, &n);
    return t && id < n && t[id];
}

void fake_dispatch(CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
    if (!fake_callback || !fake_enabled(dom, id)) {
        fake_not_delivered++;
        return;
    }
    fake_delivered++;
    fake_callback(fake_userdata, dom, id, data);
}

/* The graph: handles are the addresses of these words. */
int fake_nodes = 3;
int fake_node[FAKE_NODES_MAX], fake_graph_word, fake_exec_word, fake_func_word[2];
CUdeviceptr fake_a = 0x7f0000000000ull, fake_b = 0x7f0000100000ull;
static int n_arg = 1024;
uint32_t fake_graph_id = 1, fake_exec_id = 1;
unsigned fake_pointer_queries;

CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb, void *ud)
{
    *s = (CUpti_SubscriberHandle)&fake_callback;
    fake_callback = cb;
    fake_userdata = ud;
    return CUPTI_SUCCESS;
}
CUptiResult cuptiEnableDomain(uint32_t e, CUpti_SubscriberHandle s, CUpti_CallbackDomain d)
{
    (void)s;
    size_t n;
    unsigned char *t = enable_table(d, &n);
    if (!t)
        return CUPTI_ERROR_INVALID_PARAMETER;
    memset(t, e ? 1 : 0, n);
    if (fake_delivered && d != CUPTI_CB_DOMAIN_RESOURCE)
        fake_domain_switches++;
    return CUPTI_SUCCESS;
}
CUptiResult cuptiEnableCallback(uint32_t e, CUpti_SubscriberHandle s, CUpti_CallbackDomain d,
                                CUpti_CallbackId c)
{
    (void)s;
    size_t n;
    unsigned char *t = enable_table(d, &n);
    if (!t || c >= n)
        return CUPTI_ERROR_INVALID_PARAMETER;
    t[c] = e ? 1 : 0;
    return CUPTI_SUCCESS;
}
CUptiResult cuptiGetGraphId(CUgraph g, uint32_t *id)
{
    *id = g == (CUgraph)&fake_graph_word ? fake_graph_id : 0;
    return CUPTI_SUCCESS;
}
static int idx(CUgraphNode n)
{
    if ((const int *)n >= fake_node && (const int *)n < fake_node + fake_nodes)
        return (int)((const int *)n - fake_node);
    return -1;
}
CUptiResult cuptiGetGraphNodeId(CUgraphNode n, uint64_t *id)
{
    int i = idx(n);
    if (i >= 0)
        *id = (uint64_t)(11 + i);
    return CUPTI_SUCCESS;
}
CUptiResult cuptiGetGraphExecId(CUgraphExec x, uint32_t *id)
{
    *id = x == (CUgraphExec)&fake_exec_word ? fake_exec_id : 0;
    return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc r,
                                           CUpti_BuffersCallbackCompleteFunc c)
{
    (void)r, (void)c;
    return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityEnable(CUpti_ActivityKind k)
{
    (void)k;
    return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityFlushAll(uint32_t f)
{
    (void)f;
    return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityGetNextRecord(uint8_t *b, size_t v, CUpti_Activity **r)
{
    (void)b, (void)v, (void)r;
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
}

CUresult cuCtxSetCurrent(CUcontext c)
{
    (void)c;
    return CUDA_SUCCESS;
}
CUresult cuGraphGetNodes(CUgraph g, CUgraphNode *nodes, size_t *n)
{
    if (g != (CUgraph)&fake_graph_word)
        return CUDA_ERROR_INVALID_VALUE;
    if (nodes)
        for (int i = 0; i < fake_nodes && (size_t)i < *n; i++)
            nodes[i] = (CUgraphNode)&fake_node[i];
    *n = (size_t)fake_nodes;
    return CUDA_SUCCESS;
}
CUresult cuGraphNodeGetType(CUgraphNode n, CUgraphNodeType *t)
{
    *t = idx(n) % 3 == 1 ? CU_GRAPH_NODE_TYPE_MEMCPY : CU_GRAPH_NODE_TYPE_KERNEL;
    return CUDA_SUCCESS;
}
CUresult cuGraphNodeGetDependencies(CUgraphNode n, CUgraphNode *deps, CUgraphEdgeData *ed, size_t *count)
{
    int i = idx(n);
    if (i <= 0) {
        *count = 0;
        return CUDA_SUCCESS;
    }
    /* As CUDA does: with room for more, the rest is NULL and the count is
     * what was written; with no room, only the count. */
    if (deps && *count >= 1) {
        deps[0] = (CUgraphNode)&fake_node[i - 1];
        for (size_t k = 1; k < *count; k++)
            deps[k] = NULL;
        if (ed)
            memset(ed, 0, *count * sizeof *ed);
    }
    *count = 1;
    return CUDA_SUCCESS;
}
CUresult cuGraphKernelNodeGetParams(CUgraphNode n, CUDA_KERNEL_NODE_PARAMS *p)
{
    static CUdeviceptr a, b;
    static void *pa[2], *pb[2];
    a = fake_a;
    b = fake_b;
    pa[0] = &a, pa[1] = &n_arg;
    pb[0] = &b, pb[1] = &n_arg;
    memset(p, 0, sizeof *p);
    int i = idx(n);
    p->func = (CUfunction)&fake_func_word[i % 3 == 0 ? 0 : 1];
    p->gridDimX = 4, p->gridDimY = 1, p->gridDimZ = 1;
    p->blockDimX = 256, p->blockDimY = 1, p->blockDimZ = 1;
    p->kernelParams = i % 3 == 0 ? pa : pb;
    return CUDA_SUCCESS;
}
CUresult cuFuncGetName(const char **name, CUfunction f)
{
    *name = f == (CUfunction)&fake_func_word[0] ? "_Z3fooPfi" : "_Z3barPfi";
    return CUDA_SUCCESS;
}
CUresult cuKernelGetName(const char **name, CUkernel k)
{
    (void)k;
    *name = "?";
    return CUDA_SUCCESS;
}
CUresult cuFuncGetParamInfo(CUfunction f, size_t i, size_t *off, size_t *size)
{
    (void)f;
    if (i > 1)
        return CUDA_ERROR_INVALID_VALUE;
    *off = i * 8;
    *size = i == 0 ? 8 : 4;
    return CUDA_SUCCESS;
}
CUresult cuKernelGetParamInfo(CUkernel k, size_t i, size_t *off, size_t *size)
{
    (void)k, (void)i, (void)off, (void)size;
    return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuPointerGetAttributes(unsigned int n, CUpointer_attribute *at, void **data, CUdeviceptr p)
{
    fake_pointer_queries++;
    CUdeviceptr base = p >= fake_a && p < fake_a + 4096   ? fake_a
                       : p >= fake_b && p < fake_b + 4096 ? fake_b
                                                          : 0;
    for (unsigned i = 0; i < n; i++) {
        switch (at[i]) {
        case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
            *(unsigned *)data[i] = base ? CU_MEMORYTYPE_DEVICE : 0;
            break;
        case CU_POINTER_ATTRIBUTE_IS_MANAGED:
            *(unsigned *)data[i] = 0;
            break;
        case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
            *(CUdeviceptr *)data[i] = base;
            break;
        case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
            *(size_t *)data[i] = base ? 4096 : 0;
            break;
        case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
            *(CUmemoryPool *)data[i] = NULL;
            break;
        default:
            break;
        }
    }
    return CUDA_SUCCESS;
}
CUresult cuGraphMemcpyNodeGetParams(CUgraphNode n, CUDA_MEMCPY3D *m)
{
    (void)n;
    memset(m, 0, sizeof *m);
    m->srcMemoryType = CU_MEMORYTYPE_DEVICE;
    m->srcDevice = fake_a;
    m->dstMemoryType = CU_MEMORYTYPE_DEVICE;
    m->dstDevice = fake_b;
    m->WidthInBytes = 4096;
    m->Height = 1;
    m->Depth = 1;
    return CUDA_SUCCESS;
}
CUresult cuGraphMemsetNodeGetParams(CUgraphNode n, CUDA_MEMSET_NODE_PARAMS *p)
{
    (void)n, (void)p;
    return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuGraphHostNodeGetParams(CUgraphNode n, CUDA_HOST_NODE_PARAMS *p)
{
    (void)n, (void)p;
    return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode n, CUevent *e)
{
    (void)n, (void)e;
    return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode n, CUevent *e)
{
    (void)n, (void)e;
    return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuGraphMemAllocNodeGetParams(CUgraphNode n, CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
    (void)n, (void)p;
    return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuGraphMemFreeNodeGetParams(CUgraphNode n, CUdeviceptr *p)
{
    (void)n, (void)p;
    return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode n, CUgraph *g)
{
    (void)n, (void)g;
    return CUDA_ERROR_INVALID_VALUE;
}
