/*
 * hr_peer.h - the driver every runtime's program shares: graphrt's
 * bench_graph and grain programs and the peers of bench/peers (oneTBB,
 * Taskflow, OpenMP, a pthread pool, the sequential floor) fill in a
 * bench_ops table and get the same shapes, task, validation, timing loop
 * and CSV rows.
 *
 *   init(threads)       -> runtime context (thread pool, executor, ...)
 *   build(ctx, graph)   -> the runtime's graph                (timed: build)
 *   replay(handle)      -> run the whole graph once, blocking (timed: replay)
 *   destroy(handle), fini(ctx)
 *   loop (optional)     replaces the timing loop: if validate, one
 *                       validation replay between hook(0) and hook(1); then
 *                       nwarm replays, hr_loop_start(), n timed replays
 *                       filling times[n], hr_loop_stop() (OpenMP keeps one
 *                       parallel region open around them all).
 *
 * Two tables, one program per runtime:
 *   overhead (default): the shapes of hr_overhead_shape(), empty tasks;
 *     per graph one validation replay, max(5, reps/10) warm-up replays and
 *     reps = clamp(1,000,000 / tasks, 50, 2000) timed ones. Row:
 *       rt,threads,shape,param,tasks,build_ns,replay_med_ns,replay_min_ns,replay_p90_ns,reps
 *   grain (-g GRAINS, -s SHAPES or --grain): the shapes of hr_grain_shape(),
 *     tasks of GRAINS microseconds of work (default 0,1,5,20,100); per cell
 *     a validation replay and a timed pilot, then hr_plan_reps() with
 *     GRAIN_BUDGET_MS (default 250). Row:
 *       rt,threads,shape,param,grain_us,tasks,build_ns,replay_med_ns,replay_min_ns,
 *       replay_p90_ns,replay_mean_ns,reps,cpu_ns_per_replay,eff_threads
 *     cpu_ns_per_replay: process CPU time over the timed replays, per replay
 *     (spinning idle workers count); eff_threads: hr_tally_eff().
 * A build_ns of "-0" means the runtime has no separate build (OpenMP).
 * Usage of every program: PROG [variant] [-g GRAINS] [-s SHAPES] [threads...]
 * (threads default 1 2); the machine line goes to stderr, the rows to stdout.
 */
#ifndef HR_PEER_H
#define HR_PEER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hr_machine.h"
#include "hr_shapes.h"
#include "hr_task.h"
#include "hr_time.h"

typedef struct bench_ops {
    const char *name;
    int has_build; /* 0: no separate build (OpenMP re-creates its tasks every replay) */
    void *(*init)(int threads);
    void *(*build)(void *ctx, const graph_t *g);
    void (*replay)(void *h);
    void (*destroy)(void *h);
    void (*fini)(void *ctx);
    void (*loop)(void *h, int validate, int nwarm, int n, uint64_t *times, void (*hook)(int phase));
} bench_ops;

/* Where a row goes besides the CSV line: bench_graph prints its rows as a
 * table and writes them to JSON (hr_row_csv = 0 drops the CSV line). */
static void (*hr_row_hook)(const char *rt, int threads, const graph_t *g, uint64_t build_ns,
                           const hr_stats *s);
static int hr_row_csv = 1;

static const graph_t *g_cur_graph;
static const char *g_cur_rt;
static uint64_t g_cpu[2];

static void hr_validate_hook(int phase)
{
    if (phase == 0)
        validate_begin(g_cur_graph);
    else
        validate_end(g_cur_graph, g_cur_rt);
}

/* Around the timed replays of a custom loop. */
static HR_UNUSED void hr_loop_start(void)
{
    hr_tally_reset();
    g_cpu[0] = hr_cpu_ns();
}
static HR_UNUSED void hr_loop_stop(void)
{
    g_cpu[1] = hr_cpu_ns();
}

static void hr_loop(const bench_ops *ops, void *h, int validate, int nwarm, int n, uint64_t *t)
{
    int i;
    if (ops->loop) {
        ops->loop(h, validate, nwarm, n, t, hr_validate_hook);
        return;
    }
    if (validate) {
        validate_begin(g_cur_graph);
        ops->replay(h);
        validate_end(g_cur_graph, ops->name);
    }
    for (i = 0; i < nwarm; i++)
        ops->replay(h);
    hr_loop_start();
    for (i = 0; i < n; i++) {
        uint64_t t0 = hr_now_ns();
        ops->replay(h);
        t[i] = hr_now_ns() - t0;
    }
    hr_loop_stop();
}

static void *hr_build(const bench_ops *ops, void *ctx, graph_t *g, uint64_t *build_ns)
{
    uint64_t t0;
    void *h;
    g_cur_graph = g;
    g_cur_rt = ops->name;
    t0 = hr_now_ns();
    h = ops->build(ctx, g);
    *build_ns = ops->has_build ? hr_now_ns() - t0 : 0;
    return h;
}

/* One row of the overhead table. */
static HR_UNUSED void hr_run_overhead(const bench_ops *ops, void *ctx, int threads, graph_t *g)
{
    int reps = hr_reps(g->n, 50, 2000), nwarm = reps / 10 < 5 ? 5 : reps / 10;
    uint64_t *t = HR_CAST(uint64_t *, hr_xmalloc(sizeof(uint64_t) * (size_t)reps));
    uint64_t build_ns;
    hr_stats s;
    void *h;
    hr_task_begin(g->n);
    h = hr_build(ops, ctx, g, &build_ns);
    hr_loop(ops, h, 1, nwarm, reps, t);
    hr_check_counts(g, ops->name, 1 + nwarm + reps);
    ops->destroy(h);
    s = hr_summarise(t, reps);
    if (hr_row_hook)
        hr_row_hook(ops->name, threads, g, build_ns, &s);
    if (hr_row_csv)
        printf("%s,%d,%s,%d,%d,%s%llu,%llu,%llu,%llu,%d\n", ops->name, threads, g->shape, g->param, g->n,
               ops->has_build ? "" : "-", (unsigned long long)build_ns, (unsigned long long)s.med,
               (unsigned long long)s.min, (unsigned long long)s.p90, reps);
    fflush(stdout);
    free(t);
    hr_task_end();
}

static void hr_grain_row(const char *rt, int threads, const char *shape, int param, double grain_us,
                         int tasks, int has_build, uint64_t build_ns, const hr_stats *s, uint64_t cpu,
                         double eff)
{
    printf("%s,%d,%s,%d,%g,%d,%s%llu,%llu,%llu,%llu,%llu,%d,%llu,%.2f\n", rt, threads, shape, param, grain_us,
           tasks, has_build ? "" : "-", (unsigned long long)build_ns, (unsigned long long)s->med,
           (unsigned long long)s->min, (unsigned long long)s->p90, (unsigned long long)s->mean, s->reps,
           (unsigned long long)cpu, eff);
    fflush(stdout);
}

/* One row of the grain table. */
static HR_UNUSED void hr_run_grain(const bench_ops *ops, void *ctx, int threads, graph_t *g, double grain_us)
{
    const char *b = getenv("GRAIN_BUDGET_MS");
    uint64_t pilot, build_ns, *t;
    int reps, nwarm;
    hr_stats s;
    void *h;
    g_iters = hr_iters_for(grain_us);
    hr_task_begin(g->n);
    h = hr_build(ops, ctx, g, &build_ns);
    hr_loop(ops, h, 1, 0, 1, &pilot); /* validation + pilot */
    hr_plan_reps(pilot, b && *b ? atof(b) : 250, &nwarm, &reps);
    t = HR_CAST(uint64_t *, hr_xmalloc(sizeof(uint64_t) * (size_t)reps));
    hr_loop(ops, h, 0, nwarm, reps, t);
    hr_check_counts(g, ops->name, 2 + nwarm + reps);
    ops->destroy(h);
    s = hr_summarise(t, reps);
    hr_grain_row(ops->name, threads, g->shape, g->param, grain_us, g->n, ops->has_build, build_ns, &s,
                 (g_cpu[1] - g_cpu[0]) / (uint64_t)reps, hr_tally_eff());
    fflush(stdout);
    free(t);
    hr_task_end();
}

/* One row of the wide-kernel table: fn(nblocks) runs nblocks blocks of the
 * current grain's work (one kernel, or a parallel for); timed as a grain
 * cell, shape "wide", param and tasks nblocks, no build, CPU time or tally. */
static HR_UNUSED void hr_run_wide(const char *rt, int threads, unsigned nblocks, double grain_us,
                                  void (*fn)(unsigned nblocks))
{
    const char *b = getenv("GRAIN_BUDGET_MS");
    uint64_t t0 = hr_now_ns(), *t;
    int nwarm, reps, i;
    hr_stats s;
    fn(nblocks);
    hr_plan_reps(hr_now_ns() - t0, b && *b ? atof(b) : 250, &nwarm, &reps);
    for (i = 0; i < nwarm; i++)
        fn(nblocks);
    t = HR_CAST(uint64_t *, hr_xmalloc((size_t)reps * sizeof *t));
    for (i = 0; i < reps; i++) {
        uint64_t a = hr_now_ns();
        fn(nblocks);
        t[i] = hr_now_ns() - a;
    }
    s = hr_summarise(t, reps);
    hr_grain_row(rt, threads, "wide", (int)nblocks, grain_us, (int)nblocks, 0, 0, &s, 0, 0.0);
    free(t);
}

/* ----------------------------------------------------------- command line */

#define HR_MAX_LIST 16
static HR_UNUSED int hr_parse_list(const char *s, double *out)
{
    int n = 0;
    while (*s && n < HR_MAX_LIST) {
        char *end;
        out[n++] = strtod(s, &end);
        if (*end != ',')
            break;
        s = end + 1;
    }
    return n;
}

/* Whether name is one of the comma-separated list (NULL: all are). */
static HR_UNUSED int hr_in_list(const char *list, const char *name)
{
    size_t l = strlen(name);
    const char *p = list;
    if (!list)
        return 1;
    while ((p = strstr(p, name)) != NULL) {
        if ((p == list || p[-1] == ',') && (p[l] == ',' || p[l] == 0))
            return 1;
        p += l;
    }
    return 0;
}

/* Runs the table argv asks for (see the top of this file) over every
 * thread count; argv[0] is the program and no variant is left in it. */
static HR_UNUSED int bench_main(int argc, char **argv, const bench_ops *ops)
{
    double grains[HR_MAX_LIST] = {0, 1, 5, 20, 100};
    int ng = 5, tlist[HR_MAX_LIST], nt = 0, a, s, gi, grain = 0;
    static const char *const names[] = {"chain", "fan64", "fan1024", "rand", "layered"};
    const char *shapes = NULL;
    hr_machine m;
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-g") && a + 1 < argc)
            ng = hr_parse_list(argv[++a], grains), grain = 1;
        else if (!strcmp(argv[a], "-s") && a + 1 < argc)
            shapes = argv[++a], grain = 1;
        else if (!strcmp(argv[a], "--grain"))
            grain = 1;
        else if (nt < HR_MAX_LIST)
            tlist[nt++] = atoi(argv[a]);
    }
    if (nt == 0) {
        tlist[0] = 1;
        tlist[1] = 2;
        nt = 2;
    }
    hr_machine_read(&m);
    hr_machine_print(stderr, "# ", &m);
    if (grain) {
        hr_grain_setup();
        fprintf(stderr, "# %s: ipus %.2f\n", ops->name, g_ipus);
    }
    for (a = 0; a < nt; a++) {
        int threads = tlist[a];
        void *ctx = ops->init(threads);
        if (!grain) {
            for (s = 0; s < HR_OVERHEAD_SHAPES; s++) {
                graph_t *g = hr_overhead_shape(s);
                hr_run_overhead(ops, ctx, threads, g);
                graph_free(g);
            }
        }
        for (gi = 0; grain && gi < ng; gi++) {
            for (s = 0; s < (int)(sizeof names / sizeof names[0]); s++) {
                graph_t *g;
                if (!hr_in_list(shapes, names[s]))
                    continue;
                g = hr_grain_shape(names[s], grains[gi]);
                hr_run_grain(ops, ctx, threads, g, grains[gi]);
                graph_free(g);
            }
        }
        ops->fini(ctx);
    }
    return 0;
}

#endif /* HR_PEER_H */
