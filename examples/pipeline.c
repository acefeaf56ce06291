/*
 * pipeline.c - a video post-processing pipeline, the CUDA Graphs story made
 * real on the CPU device.
 *
 * Every frame of float RGB goes through the same short steps: a copy in,
 * ten small image kernels (white balance, gamma, 3x3 blur, unsharp mask,
 * vignette, colour matrix, quantise to 8 bits, a luminance histogram in
 * two kernels, a 1/8 thumbnail) and a copy out. The frames are processed
 * three ways:
 *
 *   (a) eager:    12 grLaunchKernel / grMemcpyAsync calls per frame on a
 *                 stream, then grStreamSynchronize;
 *   (b) chain:    the same 12 steps as an explicitly built graph, one node
 *                 after the other, instantiated once; per frame only the
 *                 parameters that change (input and output pointers, the
 *                 white-balance gains) are set in place, then one
 *                 grGraphLaunch;
 *   (c) parallel: the same graph with the histogram and thumbnail on
 *                 branches of their own beside the colour branch, joined
 *                 at the end.
 *
 * The three must produce byte-identical frames, histograms and thumbnails;
 * the program exits 1 if they do not. It prints a table of wall time and
 * CPU submission time per frame, and writes graph (c) as pipeline.dot.
 *
 * Usage: pipeline [WIDTHxHEIGHT [FRAMES [REPS]]]. Without arguments it runs
 * 8 frames of 1920x1080 (5 timed passes), then the same pipeline on smaller
 * frames (25 passes each), where the kernels are small enough for the cost
 * of issuing and scheduling each step to show.
 */
#define _POSIX_C_SOURCE 200809L

#include "graphrt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>

/* Every graphrt call is checked; a failure prints the call, the error and
 * graphrt's sentence about what went wrong, then ends the program. */
#define CHECK(call)                                                                    \
    do {                                                                               \
        grError_t check_err_ = (call);                                                 \
        if (check_err_ != grSuccess) {                                                 \
            fprintf(stderr, "%s:%d: %s failed: %s\n  %s\n", __FILE__, __LINE__, #call, \
                    grGetErrorName(check_err_), grGetLastErrorDetail());               \
            exit(2);                                                                   \
        }                                                                              \
    } while (0)

/* The value of kernel parameter i, as CUDA's kernelParams hold it. */
#define ARG(type, i) (*(type *)args[i])

#define BLOCK 16      /* image kernels run 16x16 thread blocks */
#define HIST_BINS 256 /* histogram bins; also the histogram block size */
#define HIST_ROWS 16  /* image rows per histogram block */
#define THUMB_SCALE 8 /* the thumbnail is 1/8 of the frame each way */
#define MAX_ARGS 8
#define NUM_MODES 3
#define SMALL_REPS 25 /* passes of each smaller size in the default demo */

typedef struct ColourMatrix {
    float m[9]; /* row-major 3x3, out = m * in */
} ColourMatrix;

/* ---------------------------------------------------------------- kernels */

/* The pixel (x, y) of thread (tx, ty), or 'continue' when it is outside
 * the w x h image (the grid is rounded up to whole blocks). */
#define PIXEL_OR_SKIP(x, y, w, h)                                    \
    const size_t x = GR_GLOBAL_X(ctx, tx), y = GR_GLOBAL_Y(ctx, ty); \
    if (x >= (size_t)(w) || y >= (size_t)(h))                        \
    continue

/* dst = src * gain, per channel. */
static void k_white_balance(const grKernelCtx *ctx, void **args)
{
    const float *src = ARG(const float *, 0);
    float *dst = ARG(float *, 1);
    const int w = ARG(int, 2), h = ARG(int, 3);
    const float gr = ARG(float, 4), gg = ARG(float, 5), gb = ARG(float, 6);
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        PIXEL_OR_SKIP(x, y, w, h);
        const size_t i = (y * (size_t)w + x) * 3;
        dst[i + 0] = src[i + 0] * gr;
        dst[i + 1] = src[i + 1] * gg;
        dst[i + 2] = src[i + 2] * gb;
    }
}

/* In place: gamma 2.0 encoding, v = sqrt(v). */
static void k_gamma(const grKernelCtx *ctx, void **args)
{
    float *img = ARG(float *, 0);
    const int w = ARG(int, 1), h = ARG(int, 2);
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        PIXEL_OR_SKIP(x, y, w, h);
        float *p = img + (y * (size_t)w + x) * 3;
        for (int c = 0; c < 3; ++c)
            p[c] = sqrtf(p[c] > 0.0f ? p[c] : 0.0f);
    }
}

/* dst = 3x3 binomial blur of src (weights 1 2 1 / 2 4 2 / 1 2 1, edges
 * clamped). */
static void k_blur(const grKernelCtx *ctx, void **args)
{
    const float *src = ARG(const float *, 0);
    float *dst = ARG(float *, 1);
    const int w = ARG(int, 2), h = ARG(int, 3);
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        PIXEL_OR_SKIP(x, y, w, h);
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
}

/* Unsharp mask: dst = img + amount * (img - blurred). */
static void k_sharpen(const grKernelCtx *ctx, void **args)
{
    const float *img = ARG(const float *, 0);
    const float *blurred = ARG(const float *, 1);
    float *dst = ARG(float *, 2);
    const int w = ARG(int, 3), h = ARG(int, 4);
    const float amount = ARG(float, 5);
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        PIXEL_OR_SKIP(x, y, w, h);
        const size_t i = (y * (size_t)w + x) * 3;
        for (size_t c = 0; c < 3; ++c)
            dst[i + c] = img[i + c] + amount * (img[i + c] - blurred[i + c]);
    }
}

/* In place: darkens towards the corners by up to 'strength'. */
static void k_vignette(const grKernelCtx *ctx, void **args)
{
    float *img = ARG(float *, 0);
    const int w = ARG(int, 1), h = ARG(int, 2);
    const float strength = ARG(float, 3);
    const float cx = (float)(w - 1) * 0.5f, cy = (float)(h - 1) * 0.5f;
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        PIXEL_OR_SKIP(x, y, w, h);
        const float dx = ((float)x - cx) / cx, dy = ((float)y - cy) / cy;
        const float f = 1.0f - strength * 0.5f * (dx * dx + dy * dy);
        float *p = img + (y * (size_t)w + x) * 3;
        p[0] *= f;
        p[1] *= f;
        p[2] *= f;
    }
}

/* In place: rgb = matrix * rgb (a struct passed by value). */
static void k_colour(const grKernelCtx *ctx, void **args)
{
    float *img = ARG(float *, 0);
    const int w = ARG(int, 1), h = ARG(int, 2);
    const ColourMatrix cm = ARG(ColourMatrix, 3);
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        PIXEL_OR_SKIP(x, y, w, h);
        float *p = img + (y * (size_t)w + x) * 3;
        const float r = p[0], g = p[1], b = p[2];
        p[0] = cm.m[0] * r + cm.m[1] * g + cm.m[2] * b;
        p[1] = cm.m[3] * r + cm.m[4] * g + cm.m[5] * b;
        p[2] = cm.m[6] * r + cm.m[7] * g + cm.m[8] * b;
    }
}

/* dst (8-bit RGB) = src clamped to [0, 1], rounded to 0..255. */
static void k_quantise(const grKernelCtx *ctx, void **args)
{
    const float *src = ARG(const float *, 0);
    uint8_t *dst = ARG(uint8_t *, 1);
    const int w = ARG(int, 2), h = ARG(int, 3);
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        PIXEL_OR_SKIP(x, y, w, h);
        const size_t i = (y * (size_t)w + x) * 3;
        for (size_t c = 0; c < 3; ++c) {
            float v = src[i + c];
            v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
            dst[i + c] = (uint8_t)(v * 255.0f + 0.5f);
        }
    }
}

static unsigned luma_bin(const float *p)
{
    const float l = 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2];
    return l <= 0.0f ? 0u : l >= 1.0f ? HIST_BINS - 1 : (unsigned)(l * (float)HIST_BINS);
}

/* Block b counts the luminance of rows [b*HIST_ROWS, (b+1)*HIST_ROWS) into
 * a histogram in its shared memory and writes it to partial[b]. The threads
 * of a block run one after the other, so the shared bins need no atomics
 * (a GPU kernel would use shared-memory atomics here). */
static void k_hist_partial(const grKernelCtx *ctx, void **args)
{
    const float *img = ARG(const float *, 0);
    uint32_t *partial = ARG(uint32_t *, 1);
    const int w = ARG(int, 2), h = ARG(int, 3);
    uint32_t *bins = ctx->sharedMem;
    memset(bins, 0, HIST_BINS * sizeof *bins);
    const size_t y0 = (size_t)ctx->blockIdx.x * HIST_ROWS;
    const size_t y1 = y0 + HIST_ROWS < (size_t)h ? y0 + HIST_ROWS : (size_t)h;
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        for (size_t y = y0; y < y1; ++y)
            for (size_t x = tx; x < (size_t)w; x += ctx->blockDim.x)
                bins[luma_bin(img + (y * (size_t)w + x) * 3)]++;
    }
    memcpy(partial + (size_t)ctx->blockIdx.x * HIST_BINS, bins, HIST_BINS * sizeof *bins);
}

/* One block of HIST_BINS threads: hist[bin] = sum of the partial
 * histograms' counts for that bin. */
static void k_hist_reduce(const grKernelCtx *ctx, void **args)
{
    const uint32_t *partial = ARG(const uint32_t *, 0);
    uint32_t *hist = ARG(uint32_t *, 1);
    const int parts = ARG(int, 2);
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        uint32_t sum = 0;
        for (size_t p = 0; p < (size_t)parts; ++p)
            sum += partial[p * HIST_BINS + tx];
        hist[tx] = sum;
    }
}

/* thumb (tw x th float RGB) = box average of THUMB_SCALE^2 pixels of img. */
static void k_thumbnail(const grKernelCtx *ctx, void **args)
{
    const float *img = ARG(const float *, 0);
    float *thumb = ARG(float *, 1);
    const int w = ARG(int, 2), tw = ARG(int, 3), th = ARG(int, 4);
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        PIXEL_OR_SKIP(x, y, tw, th);
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
}

/* ------------------------------------------------------- the pipeline */

/* The steps of one frame, in the order the eager run and the chain graph
 * issue them. */
enum {
    OP_COPY_IN,
    OP_WHITE_BALANCE,
    OP_GAMMA,
    OP_HIST_PARTIAL,
    OP_HIST_REDUCE,
    OP_THUMBNAIL,
    OP_BLUR,
    OP_SHARPEN,
    OP_VIGNETTE,
    OP_COLOUR,
    OP_QUANTISE,
    OP_COPY_OUT,
    NUM_OPS
};

/* What the parallel graph (c) makes each step wait for (-1: nothing). The
 * chain graph (b) makes each step wait for the one before it instead. */
static const int parallel_dep[NUM_OPS] = {
    [OP_COPY_IN] = -1,
    [OP_WHITE_BALANCE] = OP_COPY_IN,
    [OP_GAMMA] = OP_WHITE_BALANCE,
    [OP_HIST_PARTIAL] = OP_GAMMA,
    [OP_HIST_REDUCE] = OP_HIST_PARTIAL,
    [OP_THUMBNAIL] = OP_GAMMA,
    [OP_BLUR] = OP_GAMMA,
    [OP_SHARPEN] = OP_BLUR,
    [OP_VIGNETTE] = OP_SHARPEN,
    [OP_COLOUR] = OP_VIGNETTE,
    [OP_QUANTISE] = OP_COLOUR,
    [OP_COPY_OUT] = OP_QUANTISE,
};

/* One argument value; ARG reads it back at the parameter's type. */
typedef union ArgVal {
    const void *p;
    int i;
    float f;
    ColourMatrix cm;
} ArgVal;

/* One step of a frame: a kernel launch or a copy. */
typedef struct Op {
    const char *name;
    int is_copy;
    int per_frame; /* its parameters change from frame to frame */
    grKernel_t kernel;
    grDim3 grid, block;
    unsigned shared;
    int nargs;
    ArgVal val[MAX_ARGS];
    void *argv[MAX_ARGS]; /* argv[i] = &val[i], CUDA's kernelParams */
    void *dst;
    const void *src;
    size_t bytes;
    grMemcpyKind kind;
} Op;

typedef struct Kernels {
    grKernel_t white_balance, gamma, blur, sharpen, vignette, colour, quantise;
    grKernel_t hist_partial, hist_reduce, thumbnail;
} Kernels;

typedef struct Pipeline {
    int w, h, tw, th, frames;
    size_t frame_bytes, out_bytes, thumb_elems;
    int hist_parts;
    Kernels k;
    grStream_t stream;
    float *host_in;                /* frames x w x h x 3, grMallocHost */
    uint8_t *host_out[NUM_MODES];  /* frames x w x h x 3 per mode */
    uint32_t *hist_out[NUM_MODES]; /* frames x HIST_BINS per mode */
    float *thumb_out[NUM_MODES];   /* frames x thumb_elems per mode */
    float *d_in, *d_a, *d_b, *d_c; /* working frames, grMalloc */
    uint8_t *d_out;
    uint32_t *d_partial, *d_hist; /* d_hist: one histogram per frame */
    float *d_thumb;               /* one thumbnail per frame */
    Op ops[NUM_OPS];
} Pipeline;

static grDim3 grid_for(int w, int h)
{
    return GR_DIM3((unsigned)(w + BLOCK - 1) / BLOCK, (unsigned)(h + BLOCK - 1) / BLOCK, 1);
}

static Op *op_kernel(Pipeline *p, int id, const char *name, grKernel_t k, grDim3 grid, grDim3 block,
                     unsigned shared)
{
    Op *op = &p->ops[id];
    memset(op, 0, sizeof *op);
    op->name = name;
    op->kernel = k;
    op->grid = grid;
    op->block = block;
    op->shared = shared;
    return op;
}

static ArgVal *arg_next(Op *op)
{
    op->argv[op->nargs] = &op->val[op->nargs];
    return &op->val[op->nargs++];
}
static void arg_ptr(Op *op, const void *v)
{
    arg_next(op)->p = v;
}
static void arg_int(Op *op, int v)
{
    arg_next(op)->i = v;
}
static void arg_float(Op *op, float v)
{
    arg_next(op)->f = v;
}

static void op_copy(Pipeline *p, int id, const char *name, void *dst, const void *src, size_t bytes,
                    grMemcpyKind kind)
{
    Op *op = &p->ops[id];
    memset(op, 0, sizeof *op);
    op->name = name;
    op->is_copy = 1;
    op->per_frame = 1;
    op->dst = dst;
    op->src = src;
    op->bytes = bytes;
    op->kind = kind;
}

/* Fills p->ops with the steps of frame f of mode 'mode' (which picks the
 * host buffers its results go to). Only the copies, the white-balance
 * gains and the histogram and thumbnail destinations depend on f. */
static void build_frame_ops(Pipeline *p, int mode, int f)
{
    const int w = p->w, h = p->h;
    const grDim3 img = grid_for(w, h), blk = GR_DIM3(BLOCK, BLOCK, 1);
    Op *op;

    op_copy(p, OP_COPY_IN, "copy_in", p->d_in, p->host_in + (size_t)f * p->frame_bytes / sizeof(float),
            p->frame_bytes, grMemcpyHostToDevice);

    /* Per-frame gains, as a camera's auto white balance would report. */
    op = op_kernel(p, OP_WHITE_BALANCE, "white_balance", p->k.white_balance, img, blk, 0);
    op->per_frame = 1;
    arg_ptr(op, p->d_in);
    arg_ptr(op, p->d_a);
    arg_int(op, w);
    arg_int(op, h);
    arg_float(op, 1.05f + 0.01f * (float)f);
    arg_float(op, 1.0f);
    arg_float(op, 0.92f - 0.01f * (float)f);

    op = op_kernel(p, OP_GAMMA, "gamma", p->k.gamma, img, blk, 0);
    arg_ptr(op, p->d_a);
    arg_int(op, w);
    arg_int(op, h);

    op = op_kernel(p, OP_HIST_PARTIAL, "hist_partial", p->k.hist_partial,
                   GR_DIM3((unsigned)p->hist_parts, 1, 1), GR_DIM3(HIST_BINS, 1, 1),
                   HIST_BINS * sizeof(uint32_t));
    arg_ptr(op, p->d_a);
    arg_ptr(op, p->d_partial);
    arg_int(op, w);
    arg_int(op, h);

    op = op_kernel(p, OP_HIST_REDUCE, "hist_reduce", p->k.hist_reduce, GR_DIM3(1, 1, 1),
                   GR_DIM3(HIST_BINS, 1, 1), 0);
    op->per_frame = 1;
    arg_ptr(op, p->d_partial);
    arg_ptr(op, p->d_hist + (size_t)f * HIST_BINS);
    arg_int(op, p->hist_parts);

    op = op_kernel(p, OP_THUMBNAIL, "thumbnail", p->k.thumbnail, grid_for(p->tw, p->th), blk, 0);
    op->per_frame = 1;
    arg_ptr(op, p->d_a);
    arg_ptr(op, p->d_thumb + (size_t)f * p->thumb_elems);
    arg_int(op, w);
    arg_int(op, p->tw);
    arg_int(op, p->th);

    op = op_kernel(p, OP_BLUR, "blur", p->k.blur, img, blk, 0);
    arg_ptr(op, p->d_a);
    arg_ptr(op, p->d_b);
    arg_int(op, w);
    arg_int(op, h);

    op = op_kernel(p, OP_SHARPEN, "sharpen", p->k.sharpen, img, blk, 0);
    arg_ptr(op, p->d_a);
    arg_ptr(op, p->d_b);
    arg_ptr(op, p->d_c);
    arg_int(op, w);
    arg_int(op, h);
    arg_float(op, 0.6f);

    op = op_kernel(p, OP_VIGNETTE, "vignette", p->k.vignette, img, blk, 0);
    arg_ptr(op, p->d_c);
    arg_int(op, w);
    arg_int(op, h);
    arg_float(op, 0.35f);

    /* A mild warm grade; each row sums to 1 so greys stay grey. */
    op = op_kernel(p, OP_COLOUR, "colour_matrix", p->k.colour, img, blk, 0);
    arg_ptr(op, p->d_c);
    arg_int(op, w);
    arg_int(op, h);
    arg_next(op)->cm = (ColourMatrix){{1.10f, -0.05f, -0.05f, -0.02f, 1.04f, -0.02f, -0.04f, -0.06f, 1.10f}};

    op = op_kernel(p, OP_QUANTISE, "quantise", p->k.quantise, img, blk, 0);
    arg_ptr(op, p->d_c);
    arg_ptr(op, p->d_out);
    arg_int(op, w);
    arg_int(op, h);

    op_copy(p, OP_COPY_OUT, "copy_out", p->host_out[mode] + (size_t)f * p->out_bytes, p->d_out, p->out_bytes,
            grMemcpyDeviceToHost);
}

static grKernelNodeParams kernel_params(const Op *op)
{
    grKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = op->kernel;
    kp.gridDim = op->grid;
    kp.blockDim = op->block;
    kp.sharedMemBytes = op->shared;
    kp.kernelParams = (void **)op->argv;
    kp.extra = NULL;
    return kp;
}

/* ---------------------------------------------------------------- setup */

static void make_kernels(Kernels *k)
{
    const size_t P = sizeof(void *), I = sizeof(int), F = sizeof(float);
    const size_t wb[] = {P, P, I, I, F, F, F}, gamma[] = {P, I, I}, blur[] = {P, P, I, I};
    const size_t sharpen[] = {P, P, P, I, I, F}, vignette[] = {P, I, I, F};
    const size_t colour[] = {P, I, I, sizeof(ColourMatrix)}, quantise[] = {P, P, I, I};
    const size_t hist_partial[] = {P, P, I, I}, hist_reduce[] = {P, P, I}, thumbnail[] = {P, P, I, I, I};
    CHECK(grKernelCreate(&k->white_balance, k_white_balance, "white_balance", 7, wb));
    CHECK(grKernelCreate(&k->gamma, k_gamma, "gamma", 3, gamma));
    CHECK(grKernelCreate(&k->blur, k_blur, "blur", 4, blur));
    CHECK(grKernelCreate(&k->sharpen, k_sharpen, "sharpen", 6, sharpen));
    CHECK(grKernelCreate(&k->vignette, k_vignette, "vignette", 4, vignette));
    CHECK(grKernelCreate(&k->colour, k_colour, "colour_matrix", 4, colour));
    CHECK(grKernelCreate(&k->quantise, k_quantise, "quantise", 4, quantise));
    CHECK(grKernelCreate(&k->hist_partial, k_hist_partial, "hist_partial", 4, hist_partial));
    CHECK(grKernelCreate(&k->hist_reduce, k_hist_reduce, "hist_reduce", 3, hist_reduce));
    CHECK(grKernelCreate(&k->thumbnail, k_thumbnail, "thumbnail", 5, thumbnail));
}

static void destroy_kernels(Kernels *k)
{
    grKernel_t all[] = {k->white_balance, k->gamma,        k->blur,        k->sharpen,   k->vignette,
                        k->colour,        k->hist_partial, k->hist_reduce, k->thumbnail, k->quantise};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        CHECK(grKernelDestroy(all[i]));
}

static uint32_t hash3(uint32_t x, uint32_t y, uint32_t z)
{
    uint32_t v = x * 0x8da6b343u ^ y * 0xd8163841u ^ z * 0xcb1ab31fu;
    v ^= v >> 15;
    v *= 0x2c1b3c6du;
    v ^= v >> 12;
    return v;
}

/* Frame f: colour gradients, a checkerboard that scrolls, a bright disc
 * that moves, and a little noise. Deterministic. */
static void generate_frame(float *px, int w, int h, int f)
{
    const int cx = w / 4 + f * w / 16, cy = h / 2, r = h / 5;
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            float *p = px + ((size_t)y * (size_t)w + (size_t)x) * 3;
            const float check = (((x + 8 * f) / 64 + y / 64) & 1) ? 0.15f : 0.0f;
            const float noise =
                (float)(hash3((uint32_t)x, (uint32_t)y, (uint32_t)f) & 1023u) * (0.04f / 1023.0f);
            const int dx = x - cx, dy = y - cy;
            const float disc = dx * dx + dy * dy < r * r ? 0.35f : 0.0f;
            p[0] = 0.15f + 0.6f * (float)x / (float)w + check + disc + noise;
            p[1] = 0.10f + 0.5f * (float)y / (float)h + check + disc + noise;
            p[2] = 0.55f - 0.4f * (float)x / (float)w + disc + noise;
        }
    }
}

static void pipeline_init(Pipeline *p, int w, int h, int frames)
{
    memset(p, 0, sizeof *p);
    p->w = w;
    p->h = h;
    p->tw = w / THUMB_SCALE;
    p->th = h / THUMB_SCALE;
    p->frames = frames;
    p->frame_bytes = (size_t)w * (size_t)h * 3 * sizeof(float);
    p->out_bytes = (size_t)w * (size_t)h * 3;
    p->thumb_elems = (size_t)p->tw * (size_t)p->th * 3;
    p->hist_parts = (h + HIST_ROWS - 1) / HIST_ROWS;

    make_kernels(&p->k);
    CHECK(grStreamCreateWithFlags(&p->stream, grStreamNonBlocking));

    CHECK(grMallocHost((void **)&p->host_in, p->frame_bytes * (size_t)frames));
    for (int m = 0; m < NUM_MODES; ++m) {
        CHECK(grMallocHost((void **)&p->host_out[m], p->out_bytes * (size_t)frames));
        CHECK(grMallocHost((void **)&p->hist_out[m], HIST_BINS * sizeof(uint32_t) * (size_t)frames));
        CHECK(grMallocHost((void **)&p->thumb_out[m], p->thumb_elems * sizeof(float) * (size_t)frames));
    }
    CHECK(grMalloc((void **)&p->d_in, p->frame_bytes));
    CHECK(grMalloc((void **)&p->d_a, p->frame_bytes));
    CHECK(grMalloc((void **)&p->d_b, p->frame_bytes));
    CHECK(grMalloc((void **)&p->d_c, p->frame_bytes));
    CHECK(grMalloc((void **)&p->d_out, p->out_bytes));
    CHECK(grMalloc((void **)&p->d_partial, (size_t)p->hist_parts * HIST_BINS * sizeof(uint32_t)));
    CHECK(grMalloc((void **)&p->d_hist, (size_t)frames * HIST_BINS * sizeof(uint32_t)));
    CHECK(grMalloc((void **)&p->d_thumb, (size_t)frames * p->thumb_elems * sizeof(float)));

    for (int f = 0; f < frames; ++f)
        generate_frame(p->host_in + (size_t)f * p->frame_bytes / sizeof(float), w, h, f);
}

static void pipeline_free(Pipeline *p)
{
    CHECK(grStreamSynchronize(p->stream));
    CHECK(grStreamDestroy(p->stream));
    CHECK(grFreeHost(p->host_in));
    for (int m = 0; m < NUM_MODES; ++m) {
        CHECK(grFreeHost(p->host_out[m]));
        CHECK(grFreeHost(p->hist_out[m]));
        CHECK(grFreeHost(p->thumb_out[m]));
    }
    void *dev[] = {p->d_in, p->d_a, p->d_b, p->d_c, p->d_out, p->d_partial, p->d_hist, p->d_thumb};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; ++i)
        CHECK(grFree(dev[i]));
    destroy_kernels(&p->k);
}

/* ---------------------------------------------------------------- graphs */

typedef struct Graph {
    grGraph_t graph;
    grGraphExec_t exec;
    grGraphNode_t node[NUM_OPS];
    double build_us, instantiate_us;
    size_t nodes, edges;
} Graph;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* Builds the graph of one frame by hand from the ops of frame 0 of 'mode':
 * a chain, or (parallel) the branches of parallel_dep joined by an empty
 * node, then instantiates it. */
static void graph_build(Graph *g, Pipeline *p, int mode, int parallel)
{
    build_frame_ops(p, mode, 0);
    const double t0 = now_us();
    CHECK(grGraphCreate(&g->graph, 0));
    for (int i = 0; i < NUM_OPS; ++i) {
        const Op *op = &p->ops[i];
        const int dep = parallel ? parallel_dep[i] : i - 1;
        const grGraphNode_t *deps = dep >= 0 ? &g->node[dep] : NULL;
        const size_t ndeps = dep >= 0 ? 1 : 0;
        if (op->is_copy) {
            CHECK(grGraphAddMemcpyNode1D(&g->node[i], g->graph, deps, ndeps, op->dst, op->src, op->bytes,
                                         op->kind));
        } else {
            const grKernelNodeParams kp = kernel_params(op);
            CHECK(grGraphAddKernelNode(&g->node[i], g->graph, deps, ndeps, &kp));
        }
    }
    if (parallel) {
        /* The frame is done when all three branches are. */
        const grGraphNode_t ends[] = {g->node[OP_COPY_OUT], g->node[OP_HIST_REDUCE], g->node[OP_THUMBNAIL]};
        grGraphNode_t join;
        CHECK(grGraphAddEmptyNode(&join, g->graph, ends, 3));
    }
    const double t1 = now_us();
    CHECK(grGraphInstantiate(&g->exec, g->graph, 0));
    const double t2 = now_us();
    g->build_us = t1 - t0;
    g->instantiate_us = t2 - t1;
    CHECK(grGraphGetNodes(g->graph, NULL, &g->nodes));
    CHECK(grGraphGetEdges(g->graph, NULL, NULL, &g->edges));
}

static void graph_destroy(Graph *g)
{
    CHECK(grGraphExecDestroy(g->exec));
    CHECK(grGraphDestroy(g->graph));
}

/* ---------------------------------------------------------------- runs */

typedef struct Timing {
    double wall_us, submit_us; /* per frame */
} Timing;

/* Queues frame f eagerly: one call per step. */
static void submit_eager(Pipeline *p)
{
    for (int i = 0; i < NUM_OPS; ++i) {
        const Op *op = &p->ops[i];
        if (op->is_copy)
            CHECK(grMemcpyAsync(op->dst, op->src, op->bytes, op->kind, p->stream));
        else
            CHECK(grLaunchKernel(op->kernel, op->grid, op->block, (void **)op->argv, op->shared, p->stream));
    }
}

/* Points the executable at frame f (only the steps whose parameters change)
 * and launches it. */
static void submit_graph(Pipeline *p, const Graph *g)
{
    for (int i = 0; i < NUM_OPS; ++i) {
        const Op *op = &p->ops[i];
        if (!op->per_frame)
            continue;
        if (op->is_copy) {
            CHECK(
                grGraphExecMemcpyNodeSetParams1D(g->exec, g->node[i], op->dst, op->src, op->bytes, op->kind));
        } else {
            const grKernelNodeParams kp = kernel_params(op);
            CHECK(grGraphExecKernelNodeSetParams(g->exec, g->node[i], &kp));
        }
    }
    CHECK(grGraphLaunch(g->exec, p->stream));
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Processes all frames 'reps' times (after one untimed warm-up pass) with
 * the eager calls (g NULL) or the graph g; each frame is synchronised before
 * the next is submitted, as a player delivering frames would. Returns the
 * median pass, per frame. Results land in the mode's host buffers. */
static Timing run_mode(Pipeline *p, int mode, const Graph *g, int reps)
{
    double wall[64], submit[64];
    if (reps > 64)
        reps = 64;
    for (int r = -1; r < reps; ++r) {
        double w = 0.0, s = 0.0;
        for (int f = 0; f < p->frames; ++f) {
            build_frame_ops(p, mode, f);
            const double t0 = now_us();
            if (g)
                submit_graph(p, g);
            else
                submit_eager(p);
            const double t1 = now_us();
            CHECK(grStreamSynchronize(p->stream));
            const double t2 = now_us();
            s += t1 - t0;
            w += t2 - t0;
        }
        if (r >= 0) {
            wall[r] = w / p->frames;
            submit[r] = s / p->frames;
        }
    }
    /* Keep the per-frame histograms and thumbnails of this mode, then
     * clear them so that the next mode must write its own. */
    CHECK(grMemcpy(p->hist_out[mode], p->d_hist, (size_t)p->frames * HIST_BINS * sizeof(uint32_t),
                   grMemcpyDeviceToHost));
    CHECK(grMemcpy(p->thumb_out[mode], p->d_thumb, (size_t)p->frames * p->thumb_elems * sizeof(float),
                   grMemcpyDeviceToHost));
    CHECK(grMemset(p->d_hist, 0, (size_t)p->frames * HIST_BINS * sizeof(uint32_t)));
    CHECK(grMemset(p->d_thumb, 0, (size_t)p->frames * p->thumb_elems * sizeof(float)));
    qsort(wall, (size_t)reps, sizeof wall[0], cmp_double);
    qsort(submit, (size_t)reps, sizeof submit[0], cmp_double);
    return (Timing){wall[reps / 2], submit[reps / 2]};
}

/* Compares mode m's results with mode 0's; prints the first difference. */
static int same_results(const Pipeline *p, int m, const char *label)
{
    const struct {
        const char *what;
        const void *a, *b;
        size_t per_frame;
    } sets[] = {
        {"frame", p->host_out[0], p->host_out[m], p->out_bytes},
        {"histogram", p->hist_out[0], p->hist_out[m], HIST_BINS * sizeof(uint32_t)},
        {"thumbnail", p->thumb_out[0], p->thumb_out[m], p->thumb_elems * sizeof(float)},
    };
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; ++s) {
        for (int f = 0; f < p->frames; ++f) {
            const unsigned char *a = (const unsigned char *)sets[s].a + (size_t)f * sets[s].per_frame;
            const unsigned char *b = (const unsigned char *)sets[s].b + (size_t)f * sets[s].per_frame;
            if (memcmp(a, b, sets[s].per_frame) == 0)
                continue;
            size_t i = 0;
            while (a[i] == b[i])
                ++i;
            fprintf(stderr, "MISMATCH: %s %d of %s differs from (a) eager at byte %zu (%u vs %u)\n",
                    sets[s].what, f, label, i, b[i], a[i]);
            return 0;
        }
    }
    return 1;
}

static uint64_t fnv1a(const void *data, size_t n, uint64_t h)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; ++i)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* Sanity of mode 0's statistics: every histogram counts each pixel once. */
static int histograms_complete(const Pipeline *p)
{
    for (int f = 0; f < p->frames; ++f) {
        uint64_t total = 0;
        for (int b = 0; b < HIST_BINS; ++b)
            total += p->hist_out[0][(size_t)f * HIST_BINS + (size_t)b];
        if (total != (uint64_t)p->w * (uint64_t)p->h) {
            fprintf(stderr, "MISMATCH: histogram of frame %d counts %llu pixels, expected %d\n", f,
                    (unsigned long long)total, p->w * p->h);
            return 0;
        }
    }
    return 1;
}

/* Runs the three modes over 'frames' frames of w x h and fills t. With
 * 'table', prints the full table and writes graph (c) to dot_path (if set).
 * Returns 1 if the three modes agree byte for byte. */
static int run_config(int w, int h, int frames, int reps, int table, const char *dot_path, Timing *t)
{
    static const char *const names[NUM_MODES] = {"(a) eager stream", "(b) graph, chain",
                                                 "(c) graph, parallel"};

    Pipeline *p = malloc(sizeof *p);
    if (!p) {
        fprintf(stderr, "pipeline: out of memory\n");
        exit(2);
    }
    pipeline_init(p, w, h, frames);

    Graph graphs[NUM_MODES];
    t[0] = run_mode(p, 0, NULL, reps);
    for (int m = 1; m < NUM_MODES; ++m) {
        graph_build(&graphs[m], p, m, m == 2);
        t[m] = run_mode(p, m, &graphs[m], reps);
    }

    int ok = histograms_complete(p);
    for (int m = 1; m < NUM_MODES; ++m)
        ok &= same_results(p, m, names[m]);

    if (table) {
        printf("\n%d frames of %dx%d float RGB, %d steps per frame (10 kernels, 2 copies)\n", frames, w, h,
               NUM_OPS);
        int calls[NUM_MODES] = {NUM_OPS, 1, 1};
        for (int i = 0; i < NUM_OPS; ++i)
            calls[1] += p->ops[i].per_frame;
        calls[2] = calls[1];

        printf("%-21s %11s %14s %14s %9s\n", "mode", "calls/frame", "wall/frame", "submit/frame", "speedup");
        for (int m = 0; m < NUM_MODES; ++m)
            printf("%-21s %11d %11.3f ms %11.1f us %8.2fx\n", names[m], calls[m], t[m].wall_us / 1000.0,
                   t[m].submit_us, t[0].wall_us / t[m].wall_us);
        printf(
            "(median of %d passes over the frames; submit = time inside the enqueue, set-params and launch "
            "calls)\n",
            reps);
        for (int m = 1; m < NUM_MODES; ++m)
            printf("%s: %zu nodes, %zu edges, built in %.1f us, instantiated in %.1f us (once)\n", names[m],
                   graphs[m].nodes, graphs[m].edges, graphs[m].build_us, graphs[m].instantiate_us);
        uint64_t sum = 0xcbf29ce484222325ull;
        sum = fnv1a(p->host_out[0], p->out_bytes * (size_t)frames, sum);
        sum = fnv1a(p->hist_out[0], HIST_BINS * sizeof(uint32_t) * (size_t)frames, sum);
        sum = fnv1a(p->thumb_out[0], p->thumb_elems * sizeof(float) * (size_t)frames, sum);
        if (ok)
            printf("outputs: frames, histograms and thumbnails byte-identical across (a), (b), (c) "
                   "(FNV-1a %016llx)\n",
                   (unsigned long long)sum);
        if (dot_path) {
            CHECK(grGraphDebugDotPrint(graphs[2].graph, dot_path, 0));
            printf("wrote %s (graph (c)); render it with: dot -Tsvg %s -o pipeline.svg\n", dot_path,
                   dot_path);
        }
    }
    if (!ok)
        printf("outputs of %dx%d: DIFFER between modes\n", w, h);

    for (int m = 1; m < NUM_MODES; ++m)
        graph_destroy(&graphs[m]);
    pipeline_free(p);
    free(p);
    return ok;
}

int main(int argc, char **argv)
{
    int w = 1920, h = 1080, frames = 8, reps = 5;
    if (argc > 1 && sscanf(argv[1], "%dx%d", &w, &h) != 2) {
        fprintf(stderr, "usage: %s [WIDTHxHEIGHT [FRAMES [REPS]]]\n", argv[0]);
        return 2;
    }
    if (argc > 2)
        frames = atoi(argv[2]);
    if (argc > 3)
        reps = atoi(argv[3]);
    if (w < 2 * THUMB_SCALE || h < 2 * THUMB_SCALE || w > 16384 || h > 16384 || frames < 1 || frames > 1000 ||
        reps < 1 || reps > 64) {
        fprintf(stderr, "pipeline: need 16x16 to 16384x16384, 1..1000 frames, 1..64 reps\n");
        return 2;
    }

    int workers = 0;
    CHECK(grDeviceGetAttribute(&workers, grDevAttrMultiProcessorCount, 0));
    printf("graphrt video pipeline\n");
    printf("workers: %d (grDevAttrMultiProcessorCount; set GRAPHRT_WORKERS to change)\n", workers);

    Timing t[NUM_MODES];
    int ok = run_config(w, h, frames, reps, 1, "pipeline.dot", t);
    if (argc == 1) {
        /* The same pipeline on smaller frames: as the kernels shrink, the
         * cost of issuing and scheduling each step becomes a larger share
         * of the frame, which is where graphs pay off. */
        static const int sizes[][2] = {{640, 360}, {320, 180}, {160, 90}, {64, 36}};
        printf("\nsmaller frames, same pipeline (%d frames, median of %d passes), wall time per frame:\n",
               frames, SMALL_REPS);
        printf("%-10s %12s %12s %8s %12s %8s\n", "size", "(a) eager", "(b) chain", "speedup", "(c) parallel",
               "speedup");
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
            char size[32];
            ok &= run_config(sizes[i][0], sizes[i][1], frames, SMALL_REPS, 0, NULL, t);
            snprintf(size, sizeof size, "%dx%d", sizes[i][0], sizes[i][1]);
            printf("%-10s %9.1f us %9.1f us %7.2fx %9.1f us %7.2fx\n", size, t[0].wall_us, t[1].wall_us,
                   t[0].wall_us / t[1].wall_us, t[2].wall_us, t[0].wall_us / t[2].wall_us);
        }
        if (ok)
            printf("outputs: byte-identical across (a), (b), (c) at every size\n");
    }
    return ok ? 0 : 1;
}
