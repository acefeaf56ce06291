/*
 * conditional_loop.c - a loop inside a graph, on the CPU or a GPU: a
 * WHILE node whose body kernel ends the loop itself after a number of
 * steps, with no return to the host between steps; on a GPU the node is
 * CUDA's conditional node and the kernel sets it on the device. The
 * device is the one GRAPHRT_DEVICE names (cuda:0 for the first GPU).
 *
 *   ./build/examples/conditional_loop
 *   GRAPHRT_DEVICE=cuda:0 ./build/examples/conditional_loop
 */
#include "graphrt.h"
#include "graphrt_kernel.h"

#include <stdio.h>

GR_KERNEL_DECLARE(halve_step);

#define TRY(call)                                                                                        \
    do {                                                                                                 \
        grError_t e_ = (call);                                                                           \
        if (e_ != grSuccess) {                                                                           \
            fprintf(stderr, "%s failed: %s\n  %s\n", #call, grGetErrorName(e_), grGetLastErrorDetail()); \
            return 1;                                                                                    \
        }                                                                                                \
    } while (0)

int main(void)
{
    enum {
        N = 1 << 16,
        STEPS = 10,
        LAUNCHES = 2
    };
    unsigned n = N, steps = STEPS, *done = NULL;
    float *x = NULL, *hx = NULL;
    int device = 0;
    grKernel_t k;
    grGraph_t g, body;
    grGraphNode_t reset, loop, step;
    grGraphConditionalHandle h;
    grGraphExec_t exec;

    TRY(grGetDevice(&device));
    TRY(GR_KERNEL_CREATE(&k, halve_step));
    TRY(grMalloc((void **)&x, N * sizeof(float)));
    TRY(grMalloc((void **)&done, sizeof(unsigned)));
    TRY(grMallocHost((void **)&hx, N * sizeof(float)));
    TRY(grMemset(x, 0, N * sizeof(float)));

    /* reset (*done = 0) -> WHILE h { halve_step }, h = 1 at each launch. */
    TRY(grGraphCreate(&g, 0));
    TRY(grGraphConditionalHandleCreate(&h, g, 1, grGraphCondAssignDefault));
    grMemsetParams ms = {.dst = done, .value = 0, .elementSize = 4, .width = 1, .height = 1};
    TRY(grGraphAddMemsetNode(&reset, g, NULL, 0, &ms));
    grGraphNodeParams p = {0};
    p.type = grGraphNodeTypeConditional;
    p.conditional.handle = h;
    p.conditional.type = grGraphCondTypeWhile;
    p.conditional.size = 1;
    TRY(grGraphAddNode(&loop, g, &reset, NULL, 1, &p));
    body = p.conditional.phGraph_out[0];
    void *args[] = {&x, &n, &done, &steps, &h}; /* h: the handle itself, as an argument */
    grKernelNodeParams kp = {k, GR_DIM3((N + 255) / 256, 1, 1), GR_DIM3(256, 1, 1), 0, args, NULL};
    TRY(grGraphAddKernelNode(&step, body, NULL, 0, &kp));

    TRY(grGraphInstantiate(&exec, g, 0));
    for (int i = 0; i < LAUNCHES; i++)
        TRY(grGraphLaunch(exec, NULL));
    TRY(grStreamSynchronize(NULL));
    TRY(grMemcpy(hx, x, N * sizeof(float), grMemcpyDeviceToHost));

    float want = 0.0f;
    for (int i = 0; i < STEPS * LAUNCHES; i++)
        want = want * 0.5f + 1.0f;
    unsigned wrong = 0;
    for (unsigned i = 0; i < N; i++)
        wrong += hx[i] != want;
    printf("device %d: %d launches of a loop of %d steps over %u floats: x = %.9g, %s\n", device, LAUNCHES,
           STEPS, n, (double)hx[0], wrong ? "WRONG" : "correct");
    TRY(grGraphExecDestroy(exec));
    TRY(grGraphDestroy(g));
    TRY(grFree(x));
    TRY(grFree(done));
    TRY(grFreeHost(hx));
    TRY(grKernelDestroy(k));
    return wrong ? 1 : 0;
}
