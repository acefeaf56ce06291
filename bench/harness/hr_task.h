/*
 * hr_task.h - the task every benchmark graph runs, its calibrated grain and
 * the checks that a replay ran every task once, in an order that respects
 * every edge.
 *
 * bench_task(i) is a noinline function: it increments task i's counter
 * (volatile, not atomic: one writer per replay, replays are ordered). In
 * the grain tables (g_task_mode has HR_TASK_GRAIN) it first runs grain_work(), g_iters steps
 * of a 64-bit LCG, x = x * a + c: a serial chain of a multiply and an add
 * that the compiler cannot shorten (an empty asm keeps x in a register),
 * touching no memory, its result stored in a per-task slot; then it counts
 * the task on the calling thread's tally. g_iters = grain in microseconds x
 * LCG steps per microsecond, measured once by hr_calibrate() (best of 9
 * runs of 2^22 steps on one thread, after 200 ms of warm-up) or taken from
 * GRAIN_IPUS, so that every program of one run does the same work a task.
 *
 * Validation (untimed): one replay records the global order in which the
 * tasks ran and checks every edge u -> v ran u first; after timing, every
 * counter must equal the replays run. A failure exits with status 2: a
 * figure of a runtime that skipped or reordered tasks is not a figure.
 *
 * Invariants: g_count, g_seq (and g_sink in the grain tables) have one slot
 * per task of the current graph (hr_task_begin .. hr_task_end);
 * HR_TASK_VALIDATE is set only around the validation replay. Valid C and C++.
 */
#ifndef HR_TASK_H
#define HR_TASK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hr_shapes.h"
#include "hr_time.h"

/* ----------------------------------------------------------------- grain */

static HR_UNUSED inline uint64_t grain_work(uint64_t x, uint64_t iters)
{
    uint64_t k;
    for (k = 0; k < iters; k++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        __asm__ volatile("" : "+r"(x));
    }
    return x;
}

static double g_ipus;    /* LCG steps per microsecond */
static uint64_t g_iters; /* steps per task at the current grain */

/* What bench_task does beyond counting: one word, so that the overhead
 * tables' task tests one flag, as it always has. */
#define HR_TASK_VALIDATE 1 /* record the order (the validation replay) */
#define HR_TASK_GRAIN 2    /* run the grain's work and count the thread */
static int g_task_mode;

/* Measures LCG steps per microsecond on the calling thread. */
static HR_UNUSED double hr_calibrate(void)
{
    const uint64_t iters = 1ull << 22;
    uint64_t t0 = hr_now_ns(), best = ~0ull, sink = 1;
    int r;
    while (hr_now_ns() - t0 < 200000000ull) /* let the clock come up */
        sink = grain_work(sink, 100000);
    for (r = 0; r < 9; r++) {
        uint64_t a = hr_now_ns(), b;
        sink = grain_work(sink, iters);
        b = hr_now_ns();
        if (b - a < best)
            best = b - a;
    }
    if (sink == 42)
        fprintf(stderr, "#\n"); /* keeps sink alive */
    return (double)iters * 1000.0 / (double)best;
}

/* GRAIN_IPUS when set (a run hands every program the same value), else
 * measured here. */
static HR_UNUSED void hr_grain_setup(void)
{
    const char *s = getenv("GRAIN_IPUS");
    if (s && *s)
        g_ipus = atof(s);
    if (!(g_ipus > 0))
        g_ipus = hr_calibrate();
    __atomic_fetch_or(&g_task_mode, HR_TASK_GRAIN, __ATOMIC_SEQ_CST);
}

static HR_UNUSED uint64_t hr_iters_for(double grain_us)
{
    return (uint64_t)(grain_us * g_ipus + 0.5);
}

/* ------------------------------------------------------------- the task */

static volatile unsigned *g_count; /* per-task run counter */
static uint64_t *g_sink;           /* per-task result of the work */
static unsigned *g_seq;            /* validation: global order of execution */
static unsigned g_seq_next;

/* Per-thread tally of tasks run (one cache line each). */
#define HR_TALLY_MAX 256
typedef struct hr_tally {
    volatile uint64_t n;
    char pad[56];
} hr_tally;
static hr_tally g_tally[HR_TALLY_MAX];
static int g_ntally;
static __thread int t_tally = -1;

static inline void hr_grain_task(int i)
{
    int id;
    if (g_iters)
        g_sink[i] = grain_work((uint64_t)i + 1u, g_iters);
    id = t_tally;
    if (__builtin_expect(id < 0, 0))
        id = t_tally = __atomic_fetch_add(&g_ntally, 1, __ATOMIC_RELAXED) % HR_TALLY_MAX;
    g_tally[id].n = g_tally[id].n + 1u;
}

static HR_NOINLINE void bench_task(int i)
{
    int mode = g_task_mode;
    if (__builtin_expect(mode, 0)) {
        if (mode & HR_TASK_VALIDATE)
            g_seq[i] = __atomic_fetch_add(&g_seq_next, 1u, __ATOMIC_SEQ_CST);
        if (mode & HR_TASK_GRAIN)
            hr_grain_task(i);
    }
    g_count[i] = g_count[i] + 1u;
}

static HR_UNUSED void hr_tally_reset(void)
{
    int i;
    for (i = 0; i < HR_TALLY_MAX; i++)
        g_tally[i].n = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* (sum of tasks per thread)^2 / sum of squares: the number of threads that
 * ran the tasks, weighted by their share (1: one thread ran everything). */
static HR_UNUSED double hr_tally_eff(void)
{
    double s = 0, q = 0;
    int i;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (i = 0; i < HR_TALLY_MAX; i++) {
        double v = (double)g_tally[i].n;
        s += v;
        q += v * v;
    }
    return q > 0 ? s * s / q : 0;
}

/* -------------------------------------------------------- the validation */

/* Fresh counters (and work slots) for the n tasks of the next graph. */
static HR_UNUSED void hr_task_begin(int n)
{
    g_count = HR_CAST(volatile unsigned *, calloc((size_t)n, sizeof(unsigned)));
    g_seq = HR_CAST(unsigned *, calloc((size_t)n, sizeof(unsigned)));
    g_sink = HR_CAST(uint64_t *, calloc((size_t)n, sizeof(uint64_t)));
    if (!g_count || !g_seq || !g_sink)
        exit(1);
}

static HR_UNUSED void hr_task_end(void)
{
    free(HR_CAST(void *, HR_CAST(uintptr_t, g_count))); /* drop volatile */
    free(g_seq);
    free(g_sink);
    g_count = NULL;
    g_seq = NULL;
    g_sink = NULL;
}

static void validate_begin(const graph_t *g)
{
    int i;
    for (i = 0; i < g->n; i++)
        g_seq[i] = 0xffffffffu;
    g_seq_next = 0;
    __atomic_fetch_or(&g_task_mode, HR_TASK_VALIDATE, __ATOMIC_SEQ_CST);
}

static void validate_end(const graph_t *g, const char *rt)
{
    int i, k;
    __atomic_fetch_and(&g_task_mode, ~HR_TASK_VALIDATE, __ATOMIC_SEQ_CST);
    if (g_seq_next != (unsigned)g->n) {
        fprintf(stderr, "%s %s/%d: validation ran %u tasks, expected %d\n", rt, g->shape, g->param,
                g_seq_next, g->n);
        exit(2);
    }
    for (i = 0; i < g->n; i++)
        for (k = g->pred_off[i]; k < g->pred_off[i + 1]; k++)
            if (g_seq[g->pred[k]] >= g_seq[i]) {
                fprintf(stderr, "%s %s/%d: edge %d->%d violated\n", rt, g->shape, g->param, g->pred[k], i);
                exit(2);
            }
}

/* Every task ran exactly 'runs' times. */
static HR_UNUSED void hr_check_counts(const graph_t *g, const char *rt, int runs)
{
    int i;
    for (i = 0; i < g->n; i++)
        if (g_count[i] != (unsigned)runs) {
            fprintf(stderr, "%s %s/%d: task %d ran %u times, expected %d\n", rt, g->shape, g->param, i,
                    g_count[i], runs);
            exit(2);
        }
}

#endif /* HR_TASK_H */
