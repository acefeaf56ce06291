/*
 * gpu_kernels.c - the kernels of the tests written once with
 * graphrt_kernel.h: a C build gives their CPU functions, nvcc (through
 * graphrt_add_cuda_kernels) their GPU image.
 */
#include "graphrt_kernel.h"
#include "test_kernels.h"

GR_KERNEL(gr_test_saxpy, (float, a), (const float *, x), (float *, y), (unsigned, n))
{
    size_t i = gr_global_idx_x();
    if (i < n)
        y[i] = a * x[i] + y[i];
}

GR_KERNEL(gr_test_count, (unsigned *, counter), (float *, sum), (unsigned, n))
{
    if (gr_global_idx_x() < n) {
        gr_atomic_add_u32(counter, 1u);
        gr_atomic_add_f32(sum, 0.5f);
    }
}

/* For each (x, y, z) of a w x h x d volume: out = (unsigned)(in * t.scale
 * + t.offset) + t.bias + z, as a byte. Threads outside the volume return
 * at once. Float parameters beside float loads, byte stores (which may
 * alias anything) and a struct by value: what the CPU function's
 * once-per-block unpacking of the parameters must get right. */
GR_KERNEL(gr_test_affine_bytes, (const float *, in), (unsigned char *, out), (gr_test_affine, t),
          (unsigned, w), (unsigned, h), (unsigned, d))
{
    const size_t x = gr_global_idx_x(), y = gr_global_idx_y(), z = gr_global_idx_z();
    if (x >= w || y >= h || z >= d)
        return;
    const size_t i = (z * h + y) * w + x;
    out[i] = (unsigned char)((unsigned)(in[i] * t.scale + t.offset) + t.bias + (unsigned)z);
}

/* A device-updatable node's kernel: adds v to *out once per launch. */
GR_KERNEL(gr_test_devupd_target, (unsigned *, out), (unsigned, v))
{
    if (gr_global_idx_x() == 0)
        gr_atomic_add_u32(out, v);
}

/* Its updater: sets the target's v (after its one pointer) to v, through
 * the node's handle (CUDA's cudaGraphKernelNodeSetParam on a GPU). */
GR_KERNEL(gr_test_devupd_setter, (grGraphDeviceNode_t, node), (unsigned, v))
{
    if (gr_global_idx_x() == 0)
        gr_graph_kernel_node_set_param(node, sizeof(unsigned *), &v, sizeof v);
}

#ifndef __CUDACC__
/* Whether this build embedded the GPU image (a CUDA compiler was found). */
int gr_test_kernels_have_image(void);
int gr_test_kernels_have_image(void)
{
    return GR_KERNEL_HAS_IMAGE;
}
#endif
