/*
 * misuse-kernel-params.c - the classic kernelParams mistake: passing the
 * values (d_x, (void *)n) where their addresses (&d_x, &n) belong. Every
 * call that takes an argument array refuses it with grErrorInvalidValue
 * and a detail naming the index, instead of faulting while it copies the
 * values; valid arrays whose values live anywhere in host memory pass.
 */
#include "testlib.h"

#include <sys/mman.h>
#include <unistd.h>

static void two_args(const grKernelCtx *c, void **a)
{
    (void)c;
    (void)a;
}

static grKernel_t two_args_kernel(const char *name)
{
    grKernel_t k;
    size_t sz[2] = {sizeof(void *), sizeof(size_t)};
    CHECK_OK(grKernelCreate(&k, two_args, name, 2, sz));
    return k;
}

/* An address that maps nothing: a page mapped, then unmapped. */
static void *unmapped_address(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    void *p = mmap(NULL, (size_t)pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    CHECK_EQ(munmap(p, (size_t)pg), 0);
    return p;
}

static void check_mistake_detail(int index)
{
    char idx[32];
    snprintf(idx, sizeof idx, "args[%d]", index);
    CHECK_DETAIL_HAS(idx);
    CHECK_DETAIL_HAS("pass the address of the value");
}

GR_TEST(launch_refuses_a_device_pointer_passed_as_its_own_address)
{
    grKernel_t k = two_args_kernel("kp_launch_dptr");
    float *d_x;
    size_t n = 64;
    CHECK_OK(grMalloc((void **)&d_x, 256));
    void *wrong[2] = {d_x, &n};
    CHECK_REFUSED(grErrorInvalidValue, grLaunchKernel, k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), wrong, 0, NULL);
    CHECK_DETAIL_HAS("device memory");
    check_mistake_detail(0);
    void *right[2] = {&d_x, &n};
    CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), right, 0, NULL));
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grFree(d_x));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(launch_refuses_a_count_passed_as_a_pointer)
{
    grKernel_t k = two_args_kernel("kp_launch_count");
    float *d_x;
    CHECK_OK(grMalloc((void **)&d_x, 256));
    void *wrong[2] = {&d_x, (void *)(uintptr_t)64};
    CHECK_GR(grErrorInvalidValue, grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), wrong, 0, NULL));
    CHECK_DETAIL_HAS("readable");
    check_mistake_detail(1);
    /* A large value lands on an address nothing is mapped at. */
    wrong[1] = unmapped_address();
    CHECK_GR(grErrorInvalidValue, grLaunchKernel(k, GR_DIM3(4, 1, 1), GR_DIM3(1, 1, 1), wrong, 0, NULL));
    check_mistake_detail(1);
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grFree(d_x));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(launch_refuses_an_argument_in_an_unreadable_page)
{
    grKernel_t k = two_args_kernel("kp_launch_protnone");
    long pg = sysconf(_SC_PAGESIZE);
    void *guard = mmap(NULL, (size_t)pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(guard != MAP_FAILED);
    size_t n = 1;
    void *wrong[2] = {guard, &n};
    CHECK_GR(grErrorInvalidValue, grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), wrong, 0, NULL));
    check_mistake_detail(0);
    CHECK_EQ(munmap(guard, (size_t)pg), 0);
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(launch_accepts_values_held_in_heap_static_and_pinned_memory)
{
    grKernel_t k = two_args_kernel("kp_launch_heap");
    static size_t static_n = 3;
    void **heap_p = malloc(sizeof *heap_p);
    size_t *pinned_n;
    CHECK(heap_p != NULL);
    CHECK_OK(grMallocHost((void **)&pinned_n, sizeof *pinned_n));
    *pinned_n = 5;
    *heap_p = NULL;
    void *args[2] = {heap_p, &static_n};
    for (int i = 0; i < 3; i++) /* the second time from the table of probed pages */
        CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, NULL));
    args[1] = pinned_n;
    CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, NULL));
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grFreeHost(pinned_n));
    free(heap_p);
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(device_pointer_is_refused_even_in_a_page_probed_before)
{
    /* A page probed readable is remembered only while no allocation
     * appears: a grMalloc block made since in a remembered page is still
     * told apart from host memory. */
    grKernel_t k = two_args_kernel("kp_probe_cache");
    size_t n = 1;
    void **holder = malloc(sizeof *holder);
    CHECK(holder != NULL);
    *holder = NULL;
    void *args[2] = {holder, &n};
    CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, NULL));
    float *d_x;
    CHECK_OK(grMalloc((void **)&d_x, 64));
    args[0] = d_x;
    CHECK_GR(grErrorInvalidValue, grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, NULL));
    check_mistake_detail(0);
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grFree(d_x));
    free(holder);
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(graph_kernel_node_calls_refuse_values_for_addresses)
{
    grKernel_t k = two_args_kernel("kp_nodes");
    float *d_x;
    size_t n = 64;
    grGraph_t g;
    grGraphNode_t node;
    grGraphExec_t x;
    CHECK_OK(grMalloc((void **)&d_x, 256));
    CHECK_OK(grGraphCreate(&g, 0));
    void *right[2] = {&d_x, &n};
    void *wrong[2] = {d_x, &n};
    void *wrong_n[2] = {&d_x, (void *)(uintptr_t)n};
    grKernelNodeParams kp = {k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, wrong, NULL};
    CHECK_REFUSED(grErrorInvalidValue, grGraphAddKernelNode, &node, g, NULL, 0, &kp);
    check_mistake_detail(0);
    size_t count = 99;
    CHECK_OK(grGraphGetNodes(g, NULL, &count));
    CHECK_EQ(count, 0);
    kp.kernelParams = right;
    CHECK_OK(grGraphAddKernelNode(&node, g, NULL, 0, &kp));
    kp.kernelParams = wrong_n;
    CHECK_REFUSED(grErrorInvalidValue, grGraphKernelNodeSetParams, node, &kp);
    check_mistake_detail(1);
    kp.kernelParams = right;
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    kp.kernelParams = wrong;
    CHECK_REFUSED(grErrorInvalidValue, grGraphExecKernelNodeSetParams, x, node, &kp);
    check_mistake_detail(0);
    CHECK_OK(grGraphLaunch(x, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(d_x));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(captured_launch_refuses_values_for_addresses)
{
    grKernel_t k = two_args_kernel("kp_capture");
    grStream_t s;
    grGraph_t g = NULL;
    size_t n = 8;
    s = tl_capturing_stream(0, grStreamCaptureModeGlobal);
    void *wrong[2] = {&n, (void *)(uintptr_t)n};
    CHECK_GR(grErrorInvalidValue, grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), wrong, 0, s));
    check_mistake_detail(1);
    grError_t end = grStreamEndCapture(s, &g);
    if (end == grSuccess)
        CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grKernelDestroy(k));
}
