/*
 * pipeline.c - a video post-processing pipeline, the CUDA Graphs story made
 * real on the CPU device and, where there is one, on an NVIDIA GPU.
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
 * CPU submission time per frame, with how far apart the timed passes were,
 * writes graph (c) as pipeline.dot, and ends the CPU part with a one-line
 * conclusion, and a warning when the passes disagree by more than their
 * own noise (a busy machine, whose figures are not trustworthy).
 *
 * Then the GPU part (below) runs the same frames on the first GPU, with
 * (b) captured from the stream instead of built by hand, and adds the GPU
 * time per frame and the GPU's idle time between kernels; without a GPU
 * it says why it was skipped. The kernels are in pipeline_kernels.c,
 * written once for both.
 *
 * Usage: pipeline [WIDTHxHEIGHT [FRAMES [REPS]]]. Without arguments it runs
 * 8 frames of 1920x1080 (5 timed passes), then the same pipeline on smaller
 * frames (25 passes each), where the kernels are small enough for the cost
 * of issuing and scheduling each step to show, then the GPU part at its
 * own sizes. With arguments, both parts run the size asked for.
 */
#define _POSIX_C_SOURCE 200809L

#include "graphrt.h"
#include "pipeline_kernels.h" /* the kernels, for the CPU and a GPU */

#include <stdatomic.h>
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

#define MAX_ARGS 8
#define NUM_MODES 3
#define SMALL_REPS 25 /* passes of each smaller size in the default demo */

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
                   GR_DIM3((unsigned)p->hist_parts, 1, 1), GR_DIM3(HIST_BINS, 1, 1), 0);
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
    /* grKernelCreate with the CPU function, + grKernelSetImage where the
     * build embedded the GPU image. */
    CHECK(GR_KERNEL_CREATE(&k->white_balance, white_balance));
    CHECK(GR_KERNEL_CREATE(&k->gamma, gamma_encode));
    CHECK(GR_KERNEL_CREATE(&k->blur, blur));
    CHECK(GR_KERNEL_CREATE(&k->sharpen, sharpen));
    CHECK(GR_KERNEL_CREATE(&k->vignette, vignette));
    CHECK(GR_KERNEL_CREATE(&k->colour, colour_matrix));
    CHECK(GR_KERNEL_CREATE(&k->quantise, quantise));
    CHECK(GR_KERNEL_CREATE(&k->hist_partial, hist_partial));
    CHECK(GR_KERNEL_CREATE(&k->hist_reduce, hist_reduce));
    CHECK(GR_KERNEL_CREATE(&k->thumbnail, thumbnail));
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
    /* hist_partial counts into zeroed partials; hist_reduce zeroes them
     * again after each frame. */
    CHECK(grMemset(p->d_partial, 0, (size_t)p->hist_parts * HIST_BINS * sizeof(uint32_t)));

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
    CHECK(grGraphGetEdges(g->graph, NULL, NULL, NULL, &g->edges));
}

static void graph_destroy(Graph *g)
{
    CHECK(grGraphExecDestroy(g->exec));
    CHECK(grGraphDestroy(g->graph));
}

/* ---------------------------------------------------------------- runs */

typedef struct Timing {
    double wall_us, submit_us; /* per frame, of the median pass */
    double spread; /* (slowest - fastest pass) / median pass, the outer tenths of passes left out */
    double noise;  /* a pass's own noise: its frames' relative standard error (median) */
    double tstat;  /* the mean of log((a) / this mode) over the rounds, in standard errors */
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

/* Points the executable at frame f: sets in place the parameters of the
 * steps whose parameters change from frame to frame. */
static void graph_set_frame(Pipeline *p, const Graph *g)
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
}

/* Points the executable at frame f and launches it. */
static void submit_graph(Pipeline *p, const Graph *g)
{
    graph_set_frame(p, g);
    CHECK(grGraphLaunch(g->exec, p->stream));
}

/* Keeps the per-frame histograms and thumbnails of mode 'mode', then clears
 * them so that the next mode must write its own. */
static void keep_results(Pipeline *p, int mode)
{
    CHECK(grMemcpy(p->hist_out[mode], p->d_hist, (size_t)p->frames * HIST_BINS * sizeof(uint32_t),
                   grMemcpyDeviceToHost));
    CHECK(grMemcpy(p->thumb_out[mode], p->d_thumb, (size_t)p->frames * p->thumb_elems * sizeof(float),
                   grMemcpyDeviceToHost));
    CHECK(grMemset(p->d_hist, 0, (size_t)p->frames * HIST_BINS * sizeof(uint32_t)));
    CHECK(grMemset(p->d_thumb, 0, (size_t)p->frames * p->thumb_elems * sizeof(float)));
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One pass over all frames with the eager calls (g NULL) or the graph g;
 * each frame is synchronised before the next is submitted, as a player
 * delivering frames would. Sets the wall and submit times per frame, and
 * the relative standard error of the wall time its frames give (how much
 * the pass's own average can be trusted). Results land in the mode's host
 * buffers. */
static void run_pass(Pipeline *p, int mode, const Graph *g, double *wall, double *submit, double *se)
{
    double w = 0.0, w2 = 0.0, s = 0.0;
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
        w2 += (t2 - t0) * (t2 - t0);
    }
    const double n = p->frames, mean = w / n, var = n > 1 ? (w2 - w * mean) / (n - 1) : 0.0;
    *wall = mean;
    *submit = s / n;
    *se = mean > 0.0 && var > 0.0 ? sqrt(var / n) / mean : 0.0;
    keep_results(p, mode);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Processes all frames 'reps' times in each mode, after one untimed
 * warm-up pass of each. Round r runs one pass of every mode, in an order
 * that rotates from round to round, so that a change in the machine's
 * load falls on the three alike and each round compares them under the
 * same conditions. Fills t with each mode's median pass, the spread of its
 * passes, their own noise and how well the rounds agree on its speedup. */
static void run_modes(Pipeline *p, const Graph *graphs, int reps, Timing *t)
{
    double wall[NUM_MODES][64], submit[NUM_MODES][64], se[NUM_MODES][64];
    if (reps > 64)
        reps = 64;
    for (int r = -1; r < reps; ++r) {
        for (int k = 0; k < NUM_MODES; ++k) {
            const int m = (r + 1 + k) % NUM_MODES;
            double w, s, e;
            run_pass(p, m, m ? &graphs[m] : NULL, &w, &s, &e);
            if (r >= 0) {
                wall[m][r] = w;
                submit[m][r] = s;
                se[m][r] = e;
            }
        }
    }
    for (int m = 0; m < NUM_MODES; ++m) {
        double sum = 0.0, sum2 = 0.0;
        for (int r = 0; r < reps; ++r) {
            const double x = log(wall[0][r] / wall[m][r]);
            sum += x;
            sum2 += x * x;
        }
        const double mean = sum / reps, var = reps > 1 ? (sum2 - sum * mean) / (reps - 1) : 0.0;
        t[m].tstat = 0.0;
        if (reps > 1 && var > 0.0)
            t[m].tstat = mean / sqrt(var / reps);
    }
    for (int m = 0; m < NUM_MODES; ++m) {
        t[m].wall_us = median(wall[m], reps);
        /* A tenth of the passes at each end left out: one pass that other
         * work delayed does not make a run of 25 look unsettled. */
        const int cut = reps / 10;
        t[m].spread = (wall[m][reps - 1 - cut] - wall[m][cut]) / t[m].wall_us;
        t[m].submit_us = median(submit[m], reps);
        t[m].noise = median(se[m], reps);
    }
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
    for (int m = 1; m < NUM_MODES; ++m)
        graph_build(&graphs[m], p, m, m == 2);
    run_modes(p, graphs, reps, t);

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

        printf("%-21s %11s %14s %14s %9s %8s\n", "mode", "calls/frame", "wall/frame", "submit/frame",
               "speedup", "spread");
        for (int m = 0; m < NUM_MODES; ++m)
            printf("%-21s %11d %11.3f ms %11.1f us %8.2fx %7.0f%%\n", names[m], calls[m],
                   t[m].wall_us / 1000.0, t[m].submit_us, t[0].wall_us / t[m].wall_us, 100.0 * t[m].spread);
        printf("(median of %d passes over the frames, the three ways taking turns; submit = time inside the "
               "enqueue,\n set-params and launch calls; spread = slowest pass - fastest, over the median, "
               "a tenth of the passes\n at each end left out)\n",
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

/* One size of the CPU part: its three ways' timings. */
typedef struct CpuRow {
    int w, h, reps;
    Timing t[NUM_MODES];
} CpuRow;

/* A graph's speedup counts as real when the rounds, each of which ran the
 * three ways back to back, agree on it: the mean of the per-round
 * log(eager / graph) is at least MIN_T standard errors from zero, and the
 * speedup is at least MIN_GAIN away from 1. Smaller differences are the
 * machine's noise. */
#define MIN_T 3.0
#define MIN_GAIN 0.03

static int beyond_noise(const CpuRow *r, int m)
{
    const double s = r->t[0].wall_us / r->t[m].wall_us;
    return fabs(r->t[m].tstat) >= MIN_T && fabs(s - 1.0) >= MIN_GAIN;
}

/* How far apart the passes of one way can be when only the frames' own
 * noise moves them: a pass's average has a relative standard error
 * 'noise' (from its frames), and the spread the table shows covers about
 * 2.5 such errors (the range of 5 normal samples, or the middle 80% of
 * 25). Beyond BUSY_FACTOR times that, and beyond QUIET_SPREAD (what a
 * quiet machine shows), something else ran on the machine between the
 * passes. */
#define BUSY_FACTOR 3.0
#define QUIET_SPREAD 0.25

static double allowed_spread(const Timing *t)
{
    const double e = BUSY_FACTOR * 2.5 * t->noise;
    return e > QUIET_SPREAD ? e : QUIET_SPREAD;
}

/* Appends to out (cap bytes) the sizes and graphs whose speedup is beyond
 * the noise and on the side 'faster' says, as "640x360 (b) 1.04x, (c)
 * 1.04x; 64x36 (c) 1.52x". */
static void list_speedups(char *out, size_t cap, const CpuRow *rows, size_t n, int faster)
{
    static const char *const short_names[NUM_MODES] = {"(a)", "(b)", "(c)"};
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; ++i) {
        int first = 1;
        for (int m = 1; m < NUM_MODES; ++m) {
            const double sp = rows[i].t[0].wall_us / rows[i].t[m].wall_us;
            if (!beyond_noise(&rows[i], m) || (sp > 1.0) != faster)
                continue;
            int k = first ? snprintf(out + len, cap - len, "%s%dx%d %s %.2fx", len ? "; " : "", rows[i].w,
                                     rows[i].h, short_names[m], sp)
                          : snprintf(out + len, cap - len, ", %s %.2fx", short_names[m], sp);
            if (k < 0 || len + (size_t)k >= cap)
                return;
            len += (size_t)k;
            first = 0;
        }
    }
}

/* The CPU part's conclusion, one line, and a warning when the passes
 * disagree by more than their noise. */
static void print_cpu_conclusion(const CpuRow *rows, size_t n)
{
    static const char *const short_names[NUM_MODES] = {"(a)", "(b)", "(c)"};
    char faster[256], slower[256];
    list_speedups(faster, sizeof faster, rows, n, 1);
    list_speedups(slower, sizeof slower, rows, n, 0);
    /* Submitting a frame is the same twelve or six calls at every size:
     * the median over the sizes is the least disturbed figure. */
    double submit[NUM_MODES];
    for (int m = 0; m < NUM_MODES; ++m) {
        double v[8];
        int k = 0;
        for (size_t i = 0; i < n && k < 8; ++i)
            v[k++] = rows[i].t[m].submit_us;
        submit[m] = median(v, k);
    }
    printf(
        "\nconclusion (CPU): submitting a frame takes %.1f us eagerly, %.1f us as the chain and %.1f us as "
        "the parallel graph; ",
        submit[0], submit[1], submit[2]);
    if (!faster[0] && !slower[0])
        printf("wall time: no difference between the three ways beyond the rounds' noise, the kernels' own "
               "time\n");
    else
        printf("wall time, beyond the rounds' noise: %s%s%s%s%s\n", faster[0] ? "faster than eager at " : "",
               faster, faster[0] && slower[0] ? "; " : "", slower[0] ? "slower at " : "", slower);

    /* The way and size whose passes disagree most, against their noise. */
    double ratio = 0.0;
    size_t wi = 0;
    int wm = 0;
    for (size_t i = 0; i < n; ++i)
        for (int m = 0; m < NUM_MODES; ++m) {
            const double r = rows[i].t[m].spread / allowed_spread(&rows[i].t[m]);
            if (r > ratio) {
                ratio = r;
                wi = i;
                wm = m;
            }
        }
    if (ratio > 1.0)
        printf("warning: the machine was busy: the passes of %s at %dx%d differ by %.0f%%, more than the "
               "%.0f%% their frames'\n noise allows; the wall times and speedups above are not trustworthy "
               "on a loaded machine: run again on a quiet one\n",
               short_names[wm], rows[wi].w, rows[wi].h, 100.0 * rows[wi].t[wm].spread,
               100.0 * allowed_spread(&rows[wi].t[wm]));
}

/* ------------------------------------------------------------ the GPU part */

/* The GPU part runs the same frames on the first GPU (graphrt device 1):
 *
 *   (a) eager stream:      the 12 calls per frame on a stream of the GPU;
 *   (b) graph, captured:   one frame's 12 calls captured from that stream
 *                          into a graph (grStreamBeginCapture), instantiated
 *                          once; per frame the five steps whose parameters
 *                          change are set in place in the executable, as in
 *                          the CPU part, then one grGraphLaunch;
 *   (c) graph, parallel:   the explicit parallel graph of the CPU part.
 *
 * Per mode and frame it measures the wall time, the CPU time inside the
 * submitting calls and, with two events around the frame's work, the GPU
 * time. The GPU's busy time per frame is measured once per size with the
 * GPU fed ahead: a host function holds the stream while BUSY_FRAMES
 * frames' steps are queued behind it, so that they then run back to back
 * with no wait for the CPU. What a mode's frame takes on the GPU beyond
 * that busy time is the GPU idling between kernels, waiting for the CPU to
 * submit the next one: the launch overhead graphs remove. */

#define GPU_REPS 9      /* timed passes per mode and size (the median is shown) */
#define GPU_FRAMES 200  /* frames per pass at the small sizes */
#define BUSY_FRAMES 20  /* frames queued behind the gate to time the busy GPU */
#define BUSY_REPS 5     /* busy-time measurements per size (the median is used) */
#define GATE_LIMIT_S 10 /* the gate opens by itself after this, whatever happens */

static const char *const gpu_names[NUM_MODES] = {"(a) eager stream", "(b) graph, captured",
                                                 "(c) graph, parallel"};

typedef struct GpuTiming {
    double wall_us, submit_us, launch_us, gpu_us; /* per frame */
} GpuTiming;

typedef struct GpuRow {
    int w, h, frames, calls[NUM_MODES];
    double busy_us;
    GpuTiming t[NUM_MODES];
} GpuRow;

/* The CPU's outputs of the same frames, the reference for the GPU's. */
typedef struct Reference {
    uint8_t *frames;
    uint32_t *hist;
    float *thumb;
} Reference;

/* A host function that holds its stream until *open is set (or
 * GATE_LIMIT_S has passed, so that a failing program cannot hang in it). */
static void gate_wait(void *arg)
{
    const atomic_int *open = arg;
    const double give_up = now_us() + GATE_LIMIT_S * 1e6;
    const struct timespec pause = {0, 20000};
    while (!atomic_load(open) && now_us() < give_up)
        nanosleep(&pause, NULL);
}

/* The GPU's busy time per frame (us): the frame's steps queued
 * BUSY_FRAMES times behind a gate, timed by events once the gate opens. */
static double gpu_busy_us(Pipeline *p, grEvent_t ev[2])
{
    double us[BUSY_REPS];
    build_frame_ops(p, 0, 0);
    for (int r = 0; r < BUSY_REPS; ++r) {
        atomic_int open = 0;
        CHECK(grLaunchHostFunc(p->stream, gate_wait, &open));
        CHECK(grEventRecord(ev[0], p->stream));
        for (int f = 0; f < BUSY_FRAMES; ++f)
            submit_eager(p);
        CHECK(grEventRecord(ev[1], p->stream));
        atomic_store(&open, 1);
        CHECK(grStreamSynchronize(p->stream));
        float ms = 0.0f;
        CHECK(grEventElapsedTime(&ms, ev[0], ev[1]));
        us[r] = (double)ms * 1000.0 / BUSY_FRAMES;
    }
    qsort(us, BUSY_REPS, sizeof us[0], cmp_double);
    return us[BUSY_REPS / 2];
}

/* Processes all frames 'reps' times (after an untimed warm-up pass) in one
 * mode: eagerly (g NULL) or through the executable g; each frame is
 * synchronised before the next is submitted. Returns the median pass, per
 * frame; the results land in the mode's host buffers. */
static GpuTiming run_gpu_mode(Pipeline *p, int mode, const Graph *g, grEvent_t ev[2], int reps)
{
    double wall[64], submit[64], launch[64], gpu[64];
    for (int r = -1; r < reps; ++r) {
        double w = 0.0, s = 0.0, l = 0.0, k = 0.0;
        for (int f = 0; f < p->frames; ++f) {
            build_frame_ops(p, mode, f);
            CHECK(grEventRecord(ev[0], p->stream));
            const double t0 = now_us();
            double t1 = t0;
            if (g) {
                graph_set_frame(p, g);
                t1 = now_us();
                CHECK(grGraphLaunch(g->exec, p->stream));
            } else {
                submit_eager(p);
            }
            const double t2 = now_us();
            CHECK(grEventRecord(ev[1], p->stream));
            CHECK(grStreamSynchronize(p->stream));
            const double t3 = now_us();
            float ms = 0.0f;
            CHECK(grEventElapsedTime(&ms, ev[0], ev[1]));
            w += t3 - t0;
            s += t2 - t0;
            l += t2 - t1;
            k += (double)ms * 1000.0;
        }
        if (r >= 0) {
            wall[r] = w / p->frames;
            submit[r] = s / p->frames;
            launch[r] = l / p->frames;
            gpu[r] = k / p->frames;
        }
    }
    keep_results(p, mode);
    qsort(wall, (size_t)reps, sizeof wall[0], cmp_double);
    qsort(submit, (size_t)reps, sizeof submit[0], cmp_double);
    qsort(launch, (size_t)reps, sizeof launch[0], cmp_double);
    qsort(gpu, (size_t)reps, sizeof gpu[0], cmp_double);
    return (GpuTiming){wall[reps / 2], submit[reps / 2], launch[reps / 2], gpu[reps / 2]};
}

/* Captures one frame's eager calls from the pipeline's stream into a graph
 * and instantiates it. The capture of a single stream is a chain in issue
 * order: walking it from its root gives each step its node, for the
 * per-frame updates. */
static void graph_capture(Graph *g, Pipeline *p, int mode)
{
    build_frame_ops(p, mode, 0);
    const double t0 = now_us();
    CHECK(grStreamBeginCapture(p->stream, grStreamCaptureModeGlobal));
    submit_eager(p);
    CHECK(grStreamEndCapture(p->stream, &g->graph));
    const double t1 = now_us();
    CHECK(grGraphInstantiate(&g->exec, g->graph, 0));
    const double t2 = now_us();
    g->build_us = t1 - t0;
    g->instantiate_us = t2 - t1;
    CHECK(grGraphGetNodes(g->graph, NULL, &g->nodes));
    CHECK(grGraphGetEdges(g->graph, NULL, NULL, NULL, &g->edges));

    size_t n = 0;
    CHECK(grGraphGetRootNodes(g->graph, NULL, &n));
    for (int i = 0; i < NUM_OPS && n == 1; ++i) {
        if (i == 0)
            CHECK(grGraphGetRootNodes(g->graph, &g->node[0], &n));
        grGraphNodeType type;
        CHECK(grGraphNodeGetType(g->node[i], &type));
        if (type != (p->ops[i].is_copy ? grGraphNodeTypeMemcpy : grGraphNodeTypeKernel))
            n = 0;
        else if (i + 1 < NUM_OPS && grGraphNodeGetDependentNodes(g->node[i], NULL, NULL, &n) == grSuccess &&
                 n == 1)
            CHECK(grGraphNodeGetDependentNodes(g->node[i], &g->node[i + 1], NULL, &n));
    }
    if (g->nodes != NUM_OPS || n != 1) {
        fprintf(stderr, "pipeline: the captured graph is not the chain of %d steps issued (%zu nodes)\n",
                NUM_OPS, g->nodes);
        exit(2);
    }
}

/* Runs the frames once eagerly on the CPU (device 0) and keeps the outputs. */
static void cpu_reference(Reference *ref, int w, int h, int frames)
{
    CHECK(grSetDevice(0));
    Pipeline *p = malloc(sizeof *p);
    if (!p) {
        fprintf(stderr, "pipeline: out of memory\n");
        exit(2);
    }
    pipeline_init(p, w, h, frames);
    double wall, submit, se;
    run_pass(p, 0, NULL, &wall, &submit, &se);
    const size_t fb = p->out_bytes * (size_t)frames, hb = HIST_BINS * sizeof(uint32_t) * (size_t)frames;
    const size_t tb = p->thumb_elems * sizeof(float) * (size_t)frames;
    ref->frames = malloc(fb);
    ref->hist = malloc(hb);
    ref->thumb = malloc(tb);
    if (!ref->frames || !ref->hist || !ref->thumb) {
        fprintf(stderr, "pipeline: out of memory\n");
        exit(2);
    }
    memcpy(ref->frames, p->host_out[0], fb);
    memcpy(ref->hist, p->hist_out[0], hb);
    memcpy(ref->thumb, p->thumb_out[0], tb);
    pipeline_free(p);
    free(p);
}

/* Compares the GPU's (a) outputs with the CPU's: the 8-bit frames and the
 * histograms byte for byte; the float thumbnails to a relative 1e-5 (the
 * kernels round alike on both, but a float result is not the claim here).
 * Sets *thumb_diff to the largest thumbnail difference seen. */
static int same_as_cpu(const Pipeline *p, const Reference *ref, double *thumb_diff)
{
    const size_t frames = (size_t)p->frames;
    const struct {
        const char *what;
        const void *cpu, *gpu;
        size_t per_frame;
    } sets[] = {
        {"frame", ref->frames, p->host_out[0], p->out_bytes},
        {"histogram", ref->hist, p->hist_out[0], HIST_BINS * sizeof(uint32_t)},
    };
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; ++s) {
        const unsigned char *a = sets[s].cpu, *b = sets[s].gpu;
        const size_t n = sets[s].per_frame * frames;
        if (memcmp(a, b, n) == 0)
            continue;
        size_t i = 0;
        while (a[i] == b[i])
            ++i;
        fprintf(stderr, "MISMATCH: %s %zu on the GPU differs from the CPU's at byte %zu (%u vs %u)\n",
                sets[s].what, i / sets[s].per_frame, i % sets[s].per_frame, b[i], a[i]);
        return 0;
    }
    *thumb_diff = 0.0;
    for (size_t i = 0; i < p->thumb_elems * frames; ++i) {
        const double c = ref->thumb[i], g = p->thumb_out[0][i], d = fabs(c - g);
        if (d > *thumb_diff)
            *thumb_diff = d;
        if (d > 1e-5 * fabs(c) + 1e-7) {
            fprintf(stderr, "MISMATCH: thumbnail element %zu on the GPU is %.9g, the CPU's %.9g\n", i, g, c);
            return 0;
        }
    }
    return 1;
}

/* Runs the three modes on the GPU over 'frames' frames of w x h. Returns 1
 * if they agree with each other byte for byte and with the CPU's outputs
 * (same_as_cpu). */
static int run_gpu_config(int gpu, int w, int h, int frames, int reps, GpuRow *row, double *thumb_diff)
{
    Reference ref;
    cpu_reference(&ref, w, h, frames);

    CHECK(grSetDevice(gpu));
    Pipeline *p = malloc(sizeof *p);
    if (!p) {
        fprintf(stderr, "pipeline: out of memory\n");
        exit(2);
    }
    pipeline_init(p, w, h, frames); /* stream, memory: the GPU's */
    grEvent_t ev[2];
    CHECK(grEventCreate(&ev[0]));
    CHECK(grEventCreate(&ev[1]));

    Graph graphs[NUM_MODES];
    row->w = w;
    row->h = h;
    row->frames = frames;
    row->t[0] = run_gpu_mode(p, 0, NULL, ev, reps); /* also loads the kernels on the GPU */
    graph_capture(&graphs[1], p, 1);
    row->t[1] = run_gpu_mode(p, 1, &graphs[1], ev, reps);
    graph_build(&graphs[2], p, 2, 1);
    row->t[2] = run_gpu_mode(p, 2, &graphs[2], ev, reps);
    row->busy_us = gpu_busy_us(p, ev);
    row->calls[0] = NUM_OPS;
    row->calls[1] = 1;
    for (int i = 0; i < NUM_OPS; ++i)
        row->calls[1] += p->ops[i].per_frame;
    row->calls[2] = row->calls[1];

    int ok = histograms_complete(p);
    for (int m = 1; m < NUM_MODES; ++m)
        ok &= same_results(p, m, gpu_names[m]);
    ok = ok && same_as_cpu(p, &ref, thumb_diff);
    if (!ok)
        printf("outputs of %dx%d on the GPU: DIFFER (see above)\n", w, h);

    for (int m = 1; m < NUM_MODES; ++m)
        graph_destroy(&graphs[m]);
    CHECK(grEventDestroy(ev[0]));
    CHECK(grEventDestroy(ev[1]));
    pipeline_free(p);
    free(p);
    free(ref.frames);
    free(ref.hist);
    free(ref.thumb);
    CHECK(grSetDevice(0));
    return ok;
}

/* What a mode's frame took on the GPU beyond the busy time: the GPU idle,
 * waiting for work (never below zero: the parallel graph's branches may
 * overlap and take less than the busy time). */
static double gpu_idle_us(const GpuRow *r, int m)
{
    return r->t[m].gpu_us > r->busy_us ? r->t[m].gpu_us - r->busy_us : 0.0;
}

/* The share of (a)'s submission time per frame that 'us' saves, in %. */
static double removed_pct(const GpuRow *r, double us)
{
    return 100.0 * (1.0 - us / r->t[0].submit_us);
}

static void print_gpu_row(const GpuRow *r)
{
    char size[32];
    snprintf(size, sizeof size, "%dx%d", r->w, r->h);
    for (int m = 0; m < NUM_MODES; ++m) {
        const GpuTiming *t = &r->t[m];
        char launch[16] = "-", removed[16] = "-";
        if (m > 0) {
            snprintf(launch, sizeof launch, "%.1f", t->launch_us);
            snprintf(removed, sizeof removed, "%.1f%%", removed_pct(r, t->submit_us));
        }
        printf("%-10s %-20s %5d %10.1f %10.1f %9s %10.1f %9.1f %8s %7.2fx\n", m == 0 ? size : "",
               gpu_names[m], r->calls[m], t->wall_us, t->submit_us, launch, t->gpu_us, gpu_idle_us(r, m),
               removed, r->t[0].wall_us / t->wall_us);
    }
}

/* "lo-hi%", or "v%" when they round alike. */
static void pct_range(char *out, size_t n, double lo, double hi)
{
    if ((int)(lo + 0.5) == (int)(hi + 0.5))
        snprintf(out, n, "%.0f%%", lo);
    else
        snprintf(out, n, "%.0f-%.0f%%", lo, hi);
}

/* The one-line conclusion: what the graphs removed of the eager submission
 * time per frame over the sizes, and the GPU's idle share at the first. */
static void print_conclusion(const char *gpu_name, const GpuRow *rows, size_t n)
{
    double lo[NUM_MODES + 1], hi[NUM_MODES + 1]; /* [NUM_MODES]: (b)'s launch alone */
    for (int m = 0; m <= NUM_MODES; ++m) {
        lo[m] = 1e9;
        hi[m] = -1e9;
    }
    for (size_t i = 0; i < n; ++i)
        for (int m = 1; m <= NUM_MODES; ++m) {
            const double v =
                removed_pct(&rows[i], m < NUM_MODES ? rows[i].t[m].submit_us : rows[i].t[1].launch_us);
            lo[m] = v < lo[m] ? v : lo[m];
            hi[m] = v > hi[m] ? v : hi[m];
        }
    char captured[32], parallel[32], launch[32];
    pct_range(captured, sizeof captured, lo[1], hi[1]);
    pct_range(parallel, sizeof parallel, lo[2], hi[2]);
    pct_range(launch, sizeof launch, lo[NUM_MODES], hi[NUM_MODES]);
    const GpuRow *s = &rows[0];
    printf("conclusion: on %s the captured graph removed %s of eager mode's CPU submission time per frame "
           "(the parallel graph %s; the captured graph's grGraphLaunch alone is %s below eager, the rest of "
           "its submission is the %d per-frame parameter updates), and at %dx%d the GPU idled %.0f%% of an "
           "eager frame vs %.0f%% of a captured one\n",
           gpu_name, captured, parallel, launch, s->calls[1] - 1, s->w, s->h,
           100.0 * gpu_idle_us(s, 0) / s->t[0].gpu_us, 100.0 * gpu_idle_us(s, 1) / s->t[1].gpu_us);
}

/* Whether the GPU part can run; if not, prints why and returns 0. */
static int gpu_available(void)
{
    int n = 0;
    CHECK(grGetDeviceCount(&n));
    if (n < 2) {
        /* graphrt's sentence for device 1 says why there is none (no driver,
         * no device, GRAPHRT_CUDA=0); the refused call changes nothing. */
        const grError_t err = grSetDevice(1);
        printf("\nGPU part skipped: no GPU device (%s)\n",
               err != grSuccess ? grGetLastErrorDetail() : "grGetDeviceCount counts the CPU only");
        if (err == grSuccess)
            CHECK(grSetDevice(0));
        return 0;
    }
    if (!pipeline_kernels_have_image()) {
        printf("\nGPU part skipped: %d GPU(s) present, but this build has no GPU image of the kernels (CMake "
               "found no CUDA compiler; put nvcc on PATH or pass -DCMAKE_CUDA_COMPILER=/path/to/nvcc, then "
               "rebuild)\n",
               n - 1);
        return 0;
    }
    return 1;
}

/* The GPU part: every size in sizes[] (w, h, frames, reps). Returns 1 if
 * all outputs agree. */
static int gpu_part(const int (*sizes)[4], size_t nsizes)
{
    if (!gpu_available())
        return 1;
    const int gpu = 1;
    grDeviceProp prop;
    CHECK(grGetDeviceProperties(&prop, gpu));
    printf("\nGPU part: %s (graphrt device %d = CUDA device 0), %d SMs, compute capability %d.%d\n",
           prop.name, gpu, prop.multiProcessorCount, prop.major, prop.minor);
    printf("the same pipeline on the GPU; each frame synchronised before the next; times per frame in us,\n"
           "median of the passes; busy = the frame's GPU time when queued back to back (GPU never waits)\n");
    printf("%-10s %-20s %5s %10s %10s %9s %10s %9s %8s %8s\n", "size", "mode", "calls", "wall", "submit",
           "(launch)", "GPU", "GPU idle", "removed", "speedup");

    GpuRow rows[8];
    int ok = 1;
    double thumb_diff = 0.0, worst_thumb = 0.0;
    for (size_t i = 0; i < nsizes && i < 8; ++i) {
        ok &= run_gpu_config(gpu, sizes[i][0], sizes[i][1], sizes[i][2], sizes[i][3], &rows[i], &thumb_diff);
        if (thumb_diff > worst_thumb)
            worst_thumb = thumb_diff;
        print_gpu_row(&rows[i]);
        printf("%-10s busy %.1f us/frame over %d frames x %d passes\n", "", rows[i].busy_us, rows[i].frames,
               sizes[i][3]);
    }
    printf("(submit: time inside the frame's submitting calls; (launch): the grGraphLaunch part of it;\n"
           " GPU: events around the frame's work; GPU idle: GPU - busy; removed: submit saved vs (a))\n");
    if (!ok)
        return 0;
    printf("outputs: (a), (b), (c) byte-identical on the GPU; frames and histograms byte-identical to the "
           "CPU's, thumbnails within %.2g\n",
           worst_thumb);

    print_conclusion(prop.name, rows, nsizes < 8 ? nsizes : 8);
    return 1;
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

    CpuRow rows[5];
    memset(rows, 0, sizeof rows);
    rows[0].w = w;
    rows[0].h = h;
    rows[0].reps = reps;
    size_t nrows = 1;
    int ok = run_config(w, h, frames, reps, 1, "pipeline.dot", rows[0].t);
    if (argc == 1) {
        /* The same pipeline on smaller frames: as the kernels shrink, the
         * cost of issuing and scheduling each step becomes a larger share
         * of the frame, which is where graphs pay off. */
        static const int sizes[][2] = {{640, 360}, {320, 180}, {160, 90}, {64, 36}};
        printf("\nsmaller frames, same pipeline (%d frames, median of %d passes), wall time per frame:\n",
               frames, SMALL_REPS);
        printf("%-10s %12s %12s %8s %12s %8s %7s\n", "size", "(a) eager", "(b) chain", "speedup",
               "(c) parallel", "speedup", "spread");
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
            char size[32];
            CpuRow *r = &rows[nrows++];
            const Timing *t = r->t;
            r->w = sizes[i][0];
            r->h = sizes[i][1];
            r->reps = SMALL_REPS;
            ok &= run_config(sizes[i][0], sizes[i][1], frames, SMALL_REPS, 0, NULL, r->t);
            double spread = t[0].spread > t[1].spread ? t[0].spread : t[1].spread;
            spread = t[2].spread > spread ? t[2].spread : spread;
            snprintf(size, sizeof size, "%dx%d", sizes[i][0], sizes[i][1]);
            printf("%-10s %9.1f us %9.1f us %7.2fx %9.1f us %7.2fx %6.0f%%\n", size, t[0].wall_us,
                   t[1].wall_us, t[0].wall_us / t[1].wall_us, t[2].wall_us, t[0].wall_us / t[2].wall_us,
                   100.0 * spread);
        }
        if (ok)
            printf("outputs: byte-identical across (a), (b), (c) at every size\n");
    }
    print_cpu_conclusion(rows, nrows);

    /* On a GPU: small frames, where launch overhead is most of a frame,
     * and one large, where the kernels are; or the size asked for. */
    static const int gpu_sizes[][4] = {
        {64, 36, GPU_FRAMES, GPU_REPS},
        {160, 90, GPU_FRAMES, GPU_REPS},
        {320, 180, GPU_FRAMES, GPU_REPS},
        {1920, 1080, 8, 5},
    };
    const int asked[1][4] = {{w, h, frames, reps}};
    if (argc == 1)
        ok &= gpu_part(gpu_sizes, sizeof gpu_sizes / sizeof gpu_sizes[0]);
    else
        ok &= gpu_part(asked, 1);
    return ok ? 0 : 1;
}
