/*
 * pipeline_kernels.h - what the pipeline demo (pipeline.c) and its kernels
 * (pipeline_kernels.c) share: the geometry constants, the colour-matrix
 * parameter type and, for the C side, the kernels' registration functions.
 */
#ifndef PIPELINE_KERNELS_H
#define PIPELINE_KERNELS_H

#include "graphrt_kernel.h"

#include <stdint.h>

#define BLOCK 16      /* image kernels run 16x16 thread blocks */
#define HIST_BINS 256 /* histogram bins; also the histogram block size */
#define HIST_ROWS 16  /* image rows per histogram block */
#define THUMB_SCALE 8 /* the thumbnail is 1/8 of the frame each way */

typedef struct ColourMatrix {
    float m[9]; /* row-major 3x3, out = m * in */
} ColourMatrix;

#ifndef __CUDACC__
GR_KERNEL_DECLARE(white_balance);
GR_KERNEL_DECLARE(gamma_encode);
GR_KERNEL_DECLARE(blur);
GR_KERNEL_DECLARE(sharpen);
GR_KERNEL_DECLARE(vignette);
GR_KERNEL_DECLARE(colour_matrix);
GR_KERNEL_DECLARE(quantise);
GR_KERNEL_DECLARE(hist_partial);
GR_KERNEL_DECLARE(hist_reduce);
GR_KERNEL_DECLARE(thumbnail);

/* 1 if the build embedded the kernels' GPU image (CMake found a CUDA
 * compiler), else 0: without it the kernels run on the CPU only. */
int pipeline_kernels_have_image(void);
#endif

#endif /* PIPELINE_KERNELS_H */
