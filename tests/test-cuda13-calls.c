/*
 * test-cuda13-calls.c - the CUDA 13.x calls that extend existing
 * families: grLaunchHostFunc_v2 (eager and captured),
 * grGraphConditionalHandleCreate_v2, the read-only pool properties
 * (grMemPoolAttrMaxPoolSize and the others), the DOT flag bits of
 * grGraphDebugDotPrint, and grErrorCallRequiresNewerDriver's name.
 */
#include "testlib.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

GR_TEST(host_func_v2_runs_in_stream_order_in_both_modes)
{
    grStream_t s;
    int n = 0;
    int *dev = NULL;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMalloc((void **)&dev, sizeof(int)));
    CHECK_OK(grLaunchHostFunc_v2(s, tl_bump, &n, grHostTaskBlocking));
    CHECK_OK(grLaunchHostFunc_v2(s, tl_bump, &n, grHostTaskSpinWait));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(n, 2);
    CHECK_OK(grLaunchHostFunc_v2(NULL, tl_bump, &n, grHostTaskSpinWait));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_EQ(n, 3);
    CHECK_OK(grFree(dev));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(host_func_v2_refusals_queue_nothing)
{
    grStream_t s, dead;
    int n = 0;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grStreamCreate(&dead));
    CHECK_OK(grStreamDestroy(dead));
    CHECK_GR(grErrorInvalidValue, grLaunchHostFunc_v2(s, tl_bump, &n, 2));
    CHECK_DETAIL_HAS("syncMode 2");
    CHECK_GR(grErrorInvalidValue, grLaunchHostFunc_v2(s, NULL, &n, grHostTaskBlocking));
    CHECK_GR(grErrorInvalidResourceHandle, grLaunchHostFunc_v2(dead, tl_bump, &n, grHostTaskBlocking));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(n, 0);
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(host_func_v2_captured_becomes_a_host_node)
{
    grStream_t s;
    grGraph_t g = NULL;
    grGraphExec_t x;
    grGraphNode_t node;
    size_t nn = 1;
    int n = 0;
    s = tl_capturing_stream(0, grStreamCaptureModeGlobal);
    CHECK_OK(grLaunchHostFunc_v2(s, tl_bump, &n, grHostTaskSpinWait));
    CHECK_GR(grErrorInvalidValue, grLaunchHostFunc_v2(s, tl_bump, &n, 7));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphGetNodes(g, &node, &nn));
    CHECK_EQ(nn, 1);
    grHostNodeParams hp;
    CHECK_OK(grGraphHostNodeGetParams(node, &hp));
    CHECK(hp.fn == tl_bump);
    CHECK_PTR_EQ(hp.userData, &n);
    CHECK_EQ(n, 0);
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    CHECK_OK(grGraphLaunch(x, s));
    CHECK_OK(grGraphLaunch(x, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(n, 2);
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(cond_handle_v2_with_null_ctx_is_the_first_form)
{
    grGraph_t g;
    grGraphConditionalHandle h = 0, keep = 77;
    grGraph_t *bodies;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphConditionalHandleCreate_v2(&h, g, NULL, 1, grGraphCondAssignDefault));
    CHECK(h != 0);
    (void)tl_add_cond(g, NULL, 0, h, grGraphCondTypeIf, 1, &bodies); /* checks bodies != NULL */
    /* A context handle is refused and creates nothing; the first form's
     * errors come through. */
    CHECK_GR(grErrorNotSupported,
             grGraphConditionalHandleCreate_v2(&keep, g, (grExecutionContext_t)(uintptr_t)0x10, 0, 0));
    CHECK_DETAIL_HAS("execution context");
    CHECK_EQ(keep, 77);
    CHECK_GR(grErrorInvalidValue, grGraphConditionalHandleCreate_v2(&keep, g, NULL, 0, 2));
    CHECK_GR(grErrorInvalidValue, grGraphConditionalHandleCreate_v2(NULL, g, NULL, 0, 0));
    CHECK_EQ(keep, 77);
    /* Every handle made is used: the graph instantiates. */
    grGraphExec_t x;
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(pool_props_read_back_and_are_read_only)
{
    grMemPool_t pool, def;
    grMemPoolProps props;
    props = tl_pool_props(0);
    props.maxSize = 1 << 20;
    CHECK_OK(grMemPoolCreate(&pool, &props));
    uint64_t v = 9;
    int i = 9;
    grMemAllocationType at = grMemAllocationTypeInvalid;
    grMemAllocationHandleType ht = (grMemAllocationHandleType)9;
    grMemLocationType lt = grMemLocationTypeInvalid;
    CHECK_OK(grMemPoolGetAttribute(pool, grMemPoolAttrMaxPoolSize, &v));
    CHECK_EQ(v, 1 << 20);
    CHECK_OK(grMemPoolGetAttribute(pool, grMemPoolAttrAllocationType, &at));
    CHECK_EQ(at, grMemAllocationTypePinned);
    CHECK_OK(grMemPoolGetAttribute(pool, grMemPoolAttrExportHandleTypes, &ht));
    CHECK_EQ(ht, grMemHandleTypeNone);
    CHECK_OK(grMemPoolGetAttribute(pool, grMemPoolAttrLocationId, &i));
    CHECK_EQ(i, 0);
    CHECK_OK(grMemPoolGetAttribute(pool, grMemPoolAttrLocationType, &lt));
    CHECK_EQ(lt, grMemLocationTypeDevice);
    i = 9;
    CHECK_OK(grMemPoolGetAttribute(pool, grMemPoolAttrHwDecompressEnabled, &i));
    CHECK_EQ(i, 0);
    /* The default pool has no limit. */
    CHECK_OK(grDeviceGetDefaultMemPool(&def, 0));
    CHECK_OK(grMemPoolGetAttribute(def, grMemPoolAttrMaxPoolSize, &v));
    CHECK_EQ(v, 0);
    /* Read only: refused, and the limit still holds. */
    v = 1 << 30;
    CHECK_GR(grErrorInvalidValue, grMemPoolSetAttribute(pool, grMemPoolAttrMaxPoolSize, &v));
    CHECK_DETAIL_HAS("read-only");
    CHECK_GR(grErrorInvalidValue, grMemPoolSetAttribute(pool, grMemPoolAttrLocationId, &i));
    CHECK_GR(grErrorInvalidValue, grMemPoolSetAttribute(pool, grMemPoolAttrHwDecompressEnabled, &i));
    CHECK_GR(grErrorInvalidValue, grMemPoolGetAttribute(pool, (grMemPoolAttr)15, &v));
    CHECK_OK(grMemPoolGetAttribute(pool, grMemPoolAttrMaxPoolSize, &v));
    CHECK_EQ(v, 1 << 20);
    void *p = NULL;
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    CHECK_GR(grErrorMemoryAllocation, grMallocFromPoolAsync(&p, 2 << 20, pool, s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(dot_flags_per_type_show_that_types_parameters)
{
    grGraph_t g;
    grGraphNode_t hn, mn;
    static char a[16], b[16];
    int n = 0;
    char path[] = "/tmp/graphrt-dotflags-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK_OK(grGraphCreate(&g, 0));
    grHostNodeParams hp = {tl_bump, &n};
    CHECK_OK(grGraphAddHostNode(&hn, g, NULL, 0, &hp));
    CHECK_OK(grGraphAddMemcpyNode1D(&mn, g, &hn, 1, a, b, 16, grMemcpyHostToHost));
    CHECK_OK(grGraphDebugDotPrint(g, path, 0));
    char *plain = tl_slurp(path, NULL);
    CHECK(plain != NULL);
    CHECK(strstr(plain, "userData") == NULL);
    CHECK_OK(grGraphDebugDotPrint(g, path, grGraphDebugDotFlagsHostNodeParams));
    char *host = tl_slurp(path, NULL);
    CHECK(strstr(host, "userData") != NULL);
    CHECK(strlen(host) > strlen(plain));
    CHECK_OK(grGraphDebugDotPrint(g, path, grGraphDebugDotFlagsHandles));
    char buf[64];
    snprintf(buf, sizeof buf, "handle %p", (void *)hn);
    char *handles = tl_slurp(path, NULL);
    CHECK(strstr(handles, buf) != NULL);
    /* Every CUDA bit is accepted; others are refused and write nothing. */
    CHECK_OK(grGraphDebugDotPrint(g, path, 0x87fdu));
    CHECK_GR(grErrorInvalidValue, grGraphDebugDotPrint(g, path, 1u << 1));
    CHECK_GR(grErrorInvalidValue, grGraphDebugDotPrint(g, path, 1u << 11));
    CHECK_DETAIL_HAS("0x87fd");
    free(plain);
    free(host);
    free(handles);
    unlink(path);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(new_error_codes_have_cuda_names_and_strings)
{
    CHECK(strcmp(grGetErrorName(grErrorCallRequiresNewerDriver), "grErrorCallRequiresNewerDriver") == 0);
    CHECK(strcmp(grGetErrorName(grErrorHostMemoryAlreadyRegistered), "grErrorHostMemoryAlreadyRegistered") ==
          0);
    CHECK(strcmp(grGetErrorName(grErrorHostMemoryNotRegistered), "grErrorHostMemoryNotRegistered") == 0);
    CHECK(strcmp(grGetErrorName(grErrorUnsupportedLimit), "grErrorUnsupportedLimit") == 0);
    CHECK(strstr(grGetErrorString(grErrorUnsupportedLimit), "limit") != NULL);
}
