/*
 * pipeline_kernels.c - the ten image kernels of the pipeline demo, written
 * once with graphrt_kernel.h: the C compiler makes their per-block CPU
 * functions, nvcc (through graphrt_add_cuda_kernels, where CMake finds it)
 * their GPU image, embedded into the program.
 *
 * Each body is one thread's work. The CPU and a GPU compute the same
 * bytes: every step is IEEE single-precision +, -, *, / and sqrtf, with
 * no fused multiply-add on either side (examples/CMakeLists.txt builds
 * this file with -ffp-contract=off and its GPU image with --fmad=false),
 * so the 8-bit frames and the histograms of the two can be compared byte
 * for byte.
 */
#include "pipeline_kernels.h"

#include <math.h>

#ifdef __CUDACC__
#define DEVICE_FN __device__
/* A block's threads run at once on a GPU: its counts are atomic. */
#define COUNT(p) gr_atomic_add_u32((p), 1u)
#else
#define DEVICE_FN
/* On the CPU a block's threads run one after another on one worker, and
 * no two blocks share a partial histogram: a plain add suffices. */
#define COUNT(p) (++*(p))
#endif

/* The pixel (x, y) of the calling thread; the thread ends when it is
 * outside the w x h image (the grid is rounded up to whole blocks). */
#define PIXEL_OR_RETURN(x, y, w, h)                            \
    const size_t x = gr_global_idx_x(), y = gr_global_idx_y(); \
    if (x >= (size_t)(w) || y >= (size_t)(h))                  \
    return

/* dst = src * gain, per channel. */
GR_KERNEL(white_balance, (const float *, src), (float *, dst), (int, w), (int, h), (float, gr), (float, gg),
          (float, gb))
{
    PIXEL_OR_RETURN(x, y, w, h);
    const size_t i = (y * (size_t)w + x) * 3;
    dst[i + 0] = src[i + 0] * gr;
    dst[i + 1] = src[i + 1] * gg;
    dst[i + 2] = src[i + 2] * gb;
}

/* In place: gamma 2.0 encoding, v = sqrt(v). */
GR_KERNEL(gamma_encode, (float *, img), (int, w), (int, h))
{
    PIXEL_OR_RETURN(x, y, w, h);
    float *p = img + (y * (size_t)w + x) * 3;
    for (int c = 0; c < 3; ++c)
        p[c] = sqrtf(p[c] > 0.0f ? p[c] : 0.0f);
}

/* dst = 3x3 binomial blur of src (weights 1 2 1 / 2 4 2 / 1 2 1, edges
 * clamped). */
GR_KERNEL(blur, (const float *, src), (float *, dst), (int, w), (int, h))
{
    PIXEL_OR_RETURN(x, y, w, h);
    const size_t xl = x > 0 ? x - 1 : 0, xr = x + 1 < (size_t)w ? x + 1 : x;
    const size_t yu = y > 0 ? y - 1 : 0, yd = y + 1 < (size_t)h ? y + 1 : y;
    const float *r0 = src + yu * (size_t)w * 3, *r1 = src + y * (size_t)w * 3;
    const float *r2 = src + yd * (size_t)w * 3;
    for (size_t c = 0; c < 3; ++c) {
        const float top = r0[xl * 3 + c] + 2.0f * r0[x * 3 + c] + r0[xr * 3 + c];
        const float mid = r1[xl * 3 + c] + 2.0f * r1[x * 3 + c] + r1[xr * 3 + c];
        const float bot = r2[xl * 3 + c] + 2.0f * r2[x * 3 + c] + r2[xr * 3 + c];
        dst[(y * (size_t)w + x) * 3 + c] = (top + 2.0f * mid + bot) * 0.0625f;
    }
}

/* Unsharp mask: dst = img + amount * (img - blurred). */
GR_KERNEL(sharpen, (const float *, img), (const float *, blurred), (float *, dst), (int, w), (int, h),
          (float, amount))
{
    PIXEL_OR_RETURN(x, y, w, h);
    const size_t i = (y * (size_t)w + x) * 3;
    for (size_t c = 0; c < 3; ++c)
        dst[i + c] = img[i + c] + amount * (img[i + c] - blurred[i + c]);
}

/* In place: darkens towards the corners by up to 'strength'. */
GR_KERNEL(vignette, (float *, img), (int, w), (int, h), (float, strength))
{
    PIXEL_OR_RETURN(x, y, w, h);
    const float cx = (float)(w - 1) * 0.5f, cy = (float)(h - 1) * 0.5f;
    const float dx = ((float)x - cx) / cx, dy = ((float)y - cy) / cy;
    const float f = 1.0f - strength * 0.5f * (dx * dx + dy * dy);
    float *p = img + (y * (size_t)w + x) * 3;
    p[0] *= f;
    p[1] *= f;
    p[2] *= f;
}

/* In place: rgb = matrix * rgb (a struct passed by value). */
GR_KERNEL(colour_matrix, (float *, img), (int, w), (int, h), (ColourMatrix, cm))
{
    PIXEL_OR_RETURN(x, y, w, h);
    float *p = img + (y * (size_t)w + x) * 3;
    const float r = p[0], g = p[1], b = p[2];
    p[0] = cm.m[0] * r + cm.m[1] * g + cm.m[2] * b;
    p[1] = cm.m[3] * r + cm.m[4] * g + cm.m[5] * b;
    p[2] = cm.m[6] * r + cm.m[7] * g + cm.m[8] * b;
}

/* dst (8-bit RGB) = src clamped to [0, 1], rounded to 0..255. */
GR_KERNEL(quantise, (const float *, src), (uint8_t *, dst), (int, w), (int, h))
{
    PIXEL_OR_RETURN(x, y, w, h);
    const size_t i = (y * (size_t)w + x) * 3;
    for (size_t c = 0; c < 3; ++c) {
        float v = src[i + c];
        v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
        dst[i + c] = (uint8_t)(v * 255.0f + 0.5f);
    }
}

static DEVICE_FN unsigned luma_bin(const float *p)
{
    const float l = 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2];
    return l <= 0.0f ? 0u : l >= 1.0f ? HIST_BINS - 1 : (unsigned)(l * (float)HIST_BINS);
}

/* Block b counts the luminance of rows [b*HIST_ROWS, (b+1)*HIST_ROWS) into
 * partial[b]; thread t takes the columns t, t + blockDim, ... A block
 * barrier would let the block count into shared memory and then write it
 * out; without one (the CPU has none) the threads count straight into the
 * partial histogram, which must therefore start at zero: the pipeline
 * clears the partials once, and hist_reduce clears each bin it has read,
 * ready for the next frame. */
GR_KERNEL(hist_partial, (const float *, img), (uint32_t *, partial), (int, w), (int, h))
{
    uint32_t *bins = partial + (size_t)gr_block_idx_x() * HIST_BINS;
    const size_t y0 = (size_t)gr_block_idx_x() * HIST_ROWS;
    const size_t y1 = y0 + HIST_ROWS < (size_t)h ? y0 + HIST_ROWS : (size_t)h;
    for (size_t y = y0; y < y1; ++y)
        for (size_t x = gr_thread_idx_x(); x < (size_t)w; x += gr_block_dim_x())
            COUNT(&bins[luma_bin(img + (y * (size_t)w + x) * 3)]);
}

/* One block of HIST_BINS threads, one per bin: hist[bin] = the sum of the
 * partial histograms' counts for that bin, which it then clears. */
GR_KERNEL(hist_reduce, (uint32_t *, partial), (uint32_t *, hist), (int, parts))
{
    const size_t bin = gr_thread_idx_x();
    uint32_t sum = 0;
    for (size_t p = 0; p < (size_t)parts; ++p) {
        sum += partial[p * HIST_BINS + bin];
        partial[p * HIST_BINS + bin] = 0;
    }
    hist[bin] = sum;
}

/* thumb (tw x th float RGB) = box average of THUMB_SCALE^2 pixels of img. */
GR_KERNEL(thumbnail, (const float *, img), (float *, thumb), (int, w), (int, tw), (int, th))
{
    PIXEL_OR_RETURN(x, y, tw, th);
    float sum[3] = {0.0f, 0.0f, 0.0f};
    for (size_t j = 0; j < THUMB_SCALE; ++j) {
        const float *row = img + ((y * THUMB_SCALE + j) * (size_t)w + x * THUMB_SCALE) * 3;
        for (size_t i = 0; i < THUMB_SCALE * 3; i += 3) {
            sum[0] += row[i + 0];
            sum[1] += row[i + 1];
            sum[2] += row[i + 2];
        }
    }
    for (size_t c = 0; c < 3; ++c)
        thumb[(y * (size_t)tw + x) * 3 + c] = sum[c] * (1.0f / (THUMB_SCALE * THUMB_SCALE));
}

#ifndef __CUDACC__
int pipeline_kernels_have_image(void)
{
    return GR_KERNEL_HAS_IMAGE;
}
#endif
