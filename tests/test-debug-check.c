/* test-debug-check.c - the values baked into an executable's nodes
 * (grGraphExecGetBakedValues, grGraphExecPrintBakedValues) and the launch
 * check of grDebugCheckLaunches: the stale address baked in at capture. */
#include "testlib.h"

#include <unistd.h>

/* p[i] = v for every i < n. */
static void fill_sized_fn(const grKernelCtx *ctx, void **args)
{
    int *p = *(int **)args[0];
    int v = *(int *)args[1];
    size_t n = *(size_t *)args[2];
    (void)ctx;
    for (size_t i = 0; i < n; i++)
        p[i] = v;
}

static grKernel_t check_fill_kernel(void)
{
    static grKernel_t k;
    if (!k) {
        size_t sizes[3] = {sizeof(int *), sizeof(int), sizeof(size_t)};
        CHECK_OK(grKernelCreate(&k, fill_sized_fn, "check_fill", 3, sizes));
    }
    return k;
}

/* Captures fill(buf, 7, n), a copy buf -> out and a host node. */
static grGraphExec_t capture_fill(grStream_t s, int *buf, int *out, size_t n)
{
    int v = 7;
    void *args[3] = {&buf, &v, &n};
    grGraph_t g;
    grGraphExec_t e;
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grLaunchKernel(check_fill_kernel(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_OK(grMemcpyAsync(out, buf, n * sizeof *buf, grMemcpyDeviceToHost, s));
    CHECK_OK(grLaunchHostFunc(s, tl_noop, out));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphDestroy(g));
    return e;
}

GR_TEST(baked_values_name_each_argument_copy_and_host_field)
{
    grStream_t s;
    int *buf;
    static int out[64];
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMalloc((void **)&buf, 64 * sizeof *buf));
    grGraphExec_t e = capture_fill(s, buf + 4, out, 16);
    size_t n = 0;
    CHECK_OK(grGraphExecGetBakedValues(e, NULL, &n));
    /* 3 kernel arguments, copy dst and src, host fn and userData. */
    CHECK_EQ(n, (size_t)7);
    grBakedValue v[8];
    size_t m = 8;
    CHECK_OK(grGraphExecGetBakedValues(e, v, &m));
    CHECK_EQ(m, (size_t)7);
    CHECK_EQ(v[0].nodeType, grGraphNodeTypeKernel);
    CHECK(strcmp(v[0].kernel, "check_fill") == 0);
    CHECK_EQ(v[0].field, grBakedKernelArg);
    CHECK_EQ(v[0].param, 0);
    CHECK_EQ(v[0].kind, grBakedAllocation);
    CHECK_PTR_EQ(v[0].allocBase, (void *)buf);
    CHECK_EQ(v[0].allocSize, 64 * sizeof *buf);
    CHECK_EQ(v[0].allocOffset, 4 * sizeof *buf);
    CHECK(v[0].graphNode != NULL);
    CHECK_EQ(v[1].param, 1);
    CHECK_EQ(v[1].size, 4u);
    CHECK_EQ(v[1].value, 7ull);
    CHECK_EQ(v[1].kind, grBakedPlain);
    CHECK_EQ(v[2].value, 16ull);
    CHECK_EQ(v[3].field, grBakedCopyDst);
    CHECK_EQ(v[3].kind, grBakedPlain);
    CHECK_EQ(v[3].extent, 16 * sizeof *buf);
    CHECK_EQ(v[4].field, grBakedCopySrc);
    CHECK_EQ(v[4].kind, grBakedAllocation);
    CHECK_EQ(v[5].field, grBakedHostFn);
    CHECK_EQ(v[6].field, grBakedHostUserData);
    CHECK_EQ(v[6].value, (unsigned long long)(uintptr_t)out);
    CHECK(v[3].node > v[0].node && v[5].node > v[3].node);
    /* A short array gets what fits. */
    m = 2;
    CHECK_OK(grGraphExecGetBakedValues(e, v, &m));
    CHECK_EQ(m, (size_t)2);
    /* Freed, the buffer's addresses read as stale. */
    CHECK_OK(grFree(buf));
    m = 8;
    CHECK_OK(grGraphExecGetBakedValues(e, v, &m));
    CHECK_EQ(v[0].kind, grBakedFreedAllocation);
    CHECK(strcmp(v[0].freedBy, "grFree") == 0);
    CHECK_EQ(v[4].kind, grBakedFreedAllocation);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(baked_values_print_one_line_per_value_and_mark_stale_ones)
{
    grStream_t s;
    int *buf;
    static int out[16];
    char text[4096];
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMalloc((void **)&buf, 16 * sizeof *buf));
    grGraphExec_t e = capture_fill(s, buf, out, 16);
    CHECK_OK(grFree(buf));
    FILE *f = tmpfile();
    CHECK(f != NULL);
    CHECK_OK(grGraphExecPrintBakedValues(e, f));
    rewind(f);
    size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    fclose(f);
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    CHECK_EQ(lines, (size_t)7);
    CHECK(strstr(text, "'check_fill' args[0]+0") != NULL);
    CHECK(strstr(text, "STALE") != NULL);
    CHECK(strstr(text, "freed by grFree") != NULL);
    CHECK_GR(grErrorInvalidValue, grGraphExecPrintBakedValues(e, NULL));
    CHECK_GR(grErrorInvalidValue, grGraphExecGetBakedValues(e, NULL, NULL));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_GR(grErrorInvalidValue, grGraphExecGetBakedValues(e, NULL, &len));
    CHECK_OK(grStreamDestroy(s));
}

/* The stale address baked in at capture: captured with buffer A, A freed,
 * the launch is refused under the check, naming the node and A. */
GR_TEST(check_mode_refuses_a_launch_whose_kernel_argument_was_freed)
{
    grStream_t s;
    int *a;
    static int out[256];
    char expect[128];
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMalloc((void **)&a, 1024 * sizeof *a));
    grGraphExec_t e = capture_fill(s, a, out, 4);
    CHECK_OK(grSetDebugFlags(grDebugCheckLaunches));
    unsigned flags = 0;
    CHECK_OK(grGetDebugFlags(&flags));
    CHECK_EQ(flags, grDebugCheckLaunches);
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(out[3], 7);
    CHECK_OK(grFree(a));
    CHECK_GR(grErrorIllegalAddress, grGraphLaunch(e, s));
    CHECK_DETAIL_HAS("kernel node 0 ('check_fill') argument 0");
    snprintf(expect, sizeof expect, "4096-byte allocation at %p freed by grFree", (void *)a);
    CHECK_DETAIL_HAS(expect);
    /* The refused launch queued nothing. */
    CHECK_OK(grStreamQuery(s));
    CHECK_OK(grSetDebugFlags(0));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(check_mode_off_does_not_refuse_a_stale_launch)
{
    grStream_t s;
    int *a;
    int v = 7;
    size_t n = 0; /* the kernel writes nothing: the stale launch is harmless */
    void *args[3] = {&a, &v, &n};
    grGraph_t g;
    grGraphExec_t e;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMalloc((void **)&a, 256));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grLaunchKernel(check_fill_kernel(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grFree(a));
    CHECK_OK(grSetDebugFlags(0));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grSetDebugFlags(grDebugCheckLaunches));
    CHECK_GR(grErrorIllegalAddress, grGraphLaunch(e, s));
    CHECK_OK(grSetDebugFlags(0));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(check_mode_passes_over_a_disabled_node)
{
    grStream_t s;
    int *a;
    int v = 7;
    size_t n = 0;
    void *args[3] = {&a, &v, &n};
    grGraph_t g;
    grGraphNode_t node;
    grGraphExec_t e;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMalloc((void **)&a, 256));
    CHECK_OK(grGraphCreate(&g, 0));
    grKernelNodeParams kp = {check_fill_kernel(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphAddKernelNode(&node, g, NULL, 0, &kp));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grFree(a));
    CHECK_OK(grSetDebugFlags(grDebugCheckLaunches));
    CHECK_GR(grErrorIllegalAddress, grGraphLaunch(e, s));
    CHECK_OK(grGraphNodeSetEnabled(e, node, 0));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grGraphNodeSetEnabled(e, node, 1));
    CHECK_GR(grErrorIllegalAddress, grGraphLaunch(e, s));
    CHECK_OK(grSetDebugFlags(0));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(check_mode_refuses_a_copy_from_freed_memory_and_names_the_node)
{
    grStream_t s;
    int *src, *dst;
    grGraph_t g;
    grGraphExec_t e;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMallocHost((void **)&src, 512));
    CHECK_OK(grMalloc((void **)&dst, 512));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grMemcpyAsync(dst, src, 512, grMemcpyHostToDevice, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grFreeHost(src));
    CHECK_OK(grSetDebugFlags(grDebugCheckLaunches));
    CHECK_GR(grErrorIllegalAddress, grGraphLaunch(e, s));
    CHECK_DETAIL_HAS("memcpy node 0 src");
    CHECK_DETAIL_HAS("freed by grFreeHost");
    CHECK_OK(grSetDebugFlags(0));
    CHECK_OK(grFree(dst));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(debug_flags_refuse_unknown_bits_and_null_output)
{
    CHECK_REFUSED(grErrorInvalidValue, grSetDebugFlags, 1u << 7);
    CHECK_GR(grErrorInvalidValue, grGetDebugFlags(NULL));
}

GR_TEST(GRAPHRT_CHECK_turns_the_check_on_when_the_runtime_starts)
{
    tl_check_env_debug_flag("GRAPHRT_CHECK", grDebugCheckLaunches);
}

GR_TEST(check_mode_refuses_a_pool_allocation_freed_since)
{
    grStream_t s;
    int *a;
    static int out[4];
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMallocAsync((void **)&a, 256, s));
    CHECK_OK(grStreamSynchronize(s));
    grGraphExec_t e = capture_fill(s, a, out, 4);
    CHECK_OK(grSetDebugFlags(grDebugCheckLaunches));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    /* Freed in stream order, before the launch is queued: the launch
     * would run after the free. */
    CHECK_OK(grFreeAsync(a, s));
    CHECK_GR(grErrorIllegalAddress, grGraphLaunch(e, s));
    CHECK_DETAIL_HAS("kernel node 0 ('check_fill') argument 0");
    CHECK_DETAIL_HAS("freed by");
    CHECK_OK(grStreamSynchronize(s));
    CHECK_GR(grErrorIllegalAddress, grGraphLaunch(e, s));
    CHECK_OK(grSetDebugFlags(0));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(s));
}

/* The value of kernel argument 0 of e's only node, classified. */
static grBakedKind arg0_kind(grGraphExec_t e)
{
    grBakedValue v[8];
    size_t n = 8;
    CHECK_OK(grGraphExecGetBakedValues(e, v, &n));
    for (size_t i = 0; i < n; i++)
        if (v[i].field == grBakedKernelArg && v[i].param == 0)
            return v[i].kind;
    GR_TEST_FAIL_("no value for kernel argument 0");
}

/* Only a free after the address was baked makes it stale: a range freed
 * before the graph was made may hold other memory by then (a malloc of
 * the program), which a node may name. The kernel takes n = 0: it
 * touches nothing. */
GR_TEST(check_mode_ignores_a_range_freed_before_the_graph_was_made)
{
    grStream_t s;
    void *a;
    size_t zero = 0;
    int v = 1;
    void *args[3] = {&a, &v, &zero};
    grKernelNodeParams kp = {check_fill_kernel(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    grGraph_t before, after;
    grGraphNode_t n;
    grGraphExec_t eb, ea;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMalloc(&a, 4096));
    CHECK_OK(grGraphCreate(&before, 0));
    CHECK_OK(grGraphAddKernelNode(&n, before, NULL, 0, &kp));
    CHECK_OK(grFree(a));
    CHECK_OK(grGraphCreate(&after, 0));
    CHECK_OK(grGraphAddKernelNode(&n, after, NULL, 0, &kp));
    CHECK_OK(grGraphInstantiate(&eb, before, 0));
    CHECK_OK(grGraphInstantiate(&ea, after, 0));
    CHECK_EQ(arg0_kind(eb), grBakedFreedAllocation);
    CHECK_EQ(arg0_kind(ea), grBakedPlain);
    CHECK_OK(grSetDebugFlags(grDebugCheckLaunches));
    CHECK_GR(grErrorIllegalAddress, grGraphLaunch(eb, s));
    CHECK_OK(grGraphLaunch(ea, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grSetDebugFlags(0));
    /* A clone's values are its original's: as old as they are. */
    grGraph_t c;
    grGraphExec_t ec;
    CHECK_OK(grGraphClone(&c, before));
    CHECK_OK(grGraphInstantiate(&ec, c, 0));
    CHECK_EQ(arg0_kind(ec), grBakedFreedAllocation);
    CHECK_OK(grGraphExecDestroy(ec));
    CHECK_OK(grGraphDestroy(c));
    CHECK_OK(grGraphExecDestroy(eb));
    CHECK_OK(grGraphExecDestroy(ea));
    CHECK_OK(grGraphDestroy(before));
    CHECK_OK(grGraphDestroy(after));
    CHECK_OK(grStreamDestroy(s));
}
