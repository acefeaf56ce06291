/*
 * bench_util.h - the report half of the harness for graphrt's own
 * benchmarks (bench/bench_*.c): error checks that stop the benchmark on the
 * first failed call, memory readings, the options every benchmark takes
 * ([workers] --quick --csv --json FILE), the machine and parameter lines,
 * and the figures: printed as a table (what, shape, parameter, figure, unit)
 * as they are measured, or as CSV lines with --csv, and written as JSON
 * (--json FILE). The clock and statistics are hr_time.h's, the machine line
 * hr_machine.h's: the same as the peers' and the grain programs'.
 *
 * Everything is static inline so that each benchmark includes it once and
 * uses what it needs. Benchmarks include only graphrt.h from the library.
 */
#ifndef GR_BENCH_UTIL_H
#define GR_BENCH_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graphrt.h"
#include "hr_machine.h"
#include "hr_time.h"

/* ------------------------------------------------------------ error checks */

static inline void bu_die_gr(const char *what, grError_t e, const char *file, int line)
{
    fprintf(stderr, "%s:%d: %s failed: %s (%s)\n  detail: %s\n", file, line, what, grGetErrorName(e),
            grGetErrorString(e), grGetLastErrorDetail());
    exit(3);
}

/* Stops the benchmark on the first failed graphrt call: a figure measured
 * after a failure would be meaningless. */
#define BU_CHECK(call)                                   \
    do {                                                 \
        grError_t bu_e_ = (call);                        \
        if (bu_e_ != grSuccess)                          \
            bu_die_gr(#call, bu_e_, __FILE__, __LINE__); \
    } while (0)

static inline void *bu_xmalloc(size_t sz)
{
    void *p = malloc(sz ? sz : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", sz);
        exit(1);
    }
    return p;
}

/* ------------------------------------------------------------------ timing */

/* The harness's clock and statistics (hr_time.h) under this file's names. */
#define bu_now_ns hr_now_ns
#define bu_cmp_double hr_cmp_double
#define bu_median hr_median
#define bu_reps hr_reps

/* ------------------------------------------------------------------ memory */

/* Resident set size in bytes (/proc/self/statm), 0 where unavailable. */
static inline uint64_t bu_rss_bytes(void)
{
    unsigned long size = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    if (fscanf(f, "%lu %lu", &size, &resident) != 2)
        resident = 0;
    fclose(f);
    return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* ----------------------------------------------------------------- machine */

/* The machine line of hr_machine.h. */
typedef hr_machine bu_machine;
#define bu_machine_read hr_machine_read

/* ----------------------------------------------------------------- options */

typedef struct bu_opts {
    const char *workers; /* the worker count asked for; NULL: the runtime's default */
    const char *json;    /* --json FILE or --json=FILE: where the JSON goes */
    int quick;           /* --quick: fewer repetitions, smaller sizes */
    int csv;             /* --csv: the raw lines scripts read instead of tables */
} bu_opts;

#define BU_USAGE "[workers] [--quick] [--csv] [--json FILE]"

/* Takes an option every benchmark shares from argv[*a] (and its value,
 * advancing *a); returns 0 when argv[*a] is not one of them. */
static inline int bu_opt(bu_opts *o, int argc, char **argv, int *a)
{
    const char *s = argv[*a];
    if (strcmp(s, "--json") == 0 && *a + 1 < argc)
        o->json = argv[++*a];
    else if (strncmp(s, "--json=", 7) == 0 && s[7])
        o->json = s + 7;
    else if (strcmp(s, "--quick") == 0)
        o->quick = 1;
    else if (strcmp(s, "--csv") == 0)
        o->csv = 1;
    else if (s[0] != '-' && !o->workers)
        o->workers = s;
    else
        return 0;
    return 1;
}

/* The lines at the top of every run: the benchmark, the machine (cores,
 * CPU model, kernel, compiler, graphrt's commit) and the parameters. With
 * --csv they are '# ' comment lines. */
static inline void bu_header(const char *bench, const char *what, const bu_machine *m, int workers,
                             const bu_opts *o)
{
    const char *c = o->csv ? "# " : "";
    printf("%s%s: %s\n", c, bench, what);
    hr_machine_print(stdout, c, m);
    printf("%sparameters: %d worker%s (GRAPHRT_WORKERS; the synchronising thread also runs work), %s run\n",
           c, workers, workers == 1 ? "" : "s", o->quick ? "quick" : "full");
    fflush(stdout);
}

/* ----------------------------------------------------------------- figures */

/* One measured figure, e.g. instantiate cost per element of a
 * 100,000-node chain: a stable name for scripts, a sentence for people.
 * Printed as a table row (what, shape, parameter, figure, unit) or, with
 * --csv, as
 *   fig,<workers>,<name>,<shape>,<param>,<value>,<unit>
 * and written to the JSON "figures" array. A figure that does not exist
 * (NAN, e.g. a break-even that never comes) prints as "-" and is null in
 * JSON. */
typedef struct bu_figure {
    char name[48];
    char what[80];
    char shape[16];
    long param;
    double value;
    char unit[16];
} bu_figure;

typedef struct bu_figures {
    bu_figure *v;
    int n, cap;
    int workers;
    int csv; /* print CSV lines instead of table rows */
} bu_figures;

/* Formats a figure's value: whole numbers from 1000 up, 4 significant
 * digits below, "-" for one that does not exist. */
static inline const char *bu_value_str(double v, char *buf, size_t size)
{
    if (!isfinite(v))
        snprintf(buf, size, "-");
    else if (v >= 1000.0 || v <= -1000.0)
        snprintf(buf, size, "%.0f", v);
    else
        snprintf(buf, size, "%.4g", v);
    return buf;
}

/* What is good in every table of figures, by unit. */
#define BU_GOOD \
    "lower is better, except GB/s and ideal/actual; a ratio 'A / B' (x) above 1: B takes less time"

/* Starts a table of figures: a heading line, what is good, and the column
 * names (table mode only: a CSV line carries its own name). */
static inline void bu_section(const bu_figures *fs, const char *heading)
{
    if (fs->csv)
        return;
    printf("\n%s\n  (%s)\n  %-56s %-7s %9s %12s  %s\n", heading, BU_GOOD, "what", "shape", "param", "figure",
           "unit");
    fflush(stdout);
}

static inline void bu_fig(bu_figures *fs, const char *name, const char *what, const char *shape, long param,
                          double value, const char *unit)
{
    char buf[32];
    bu_figure *f;
    if (fs->n == fs->cap) {
        fs->cap = fs->cap ? 2 * fs->cap : 64;
        fs->v = (bu_figure *)realloc(fs->v, sizeof(bu_figure) * (size_t)fs->cap);
        if (!fs->v) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    f = &fs->v[fs->n++];
    snprintf(f->name, sizeof f->name, "%s", name);
    snprintf(f->what, sizeof f->what, "%s", what);
    snprintf(f->shape, sizeof f->shape, "%s", shape);
    f->param = param;
    f->value = value;
    snprintf(f->unit, sizeof f->unit, "%s", unit);
    bu_value_str(value, buf, sizeof buf);
    if (fs->csv)
        printf("fig,%d,%s,%s,%ld,%s,%s\n", fs->workers, name, shape, param, buf, unit);
    else
        printf("  %-56s %-7s %9ld %12s  %s\n", what, shape, param, buf, unit);
    fflush(stdout);
}

/* Writes s as a JSON string (the texts here are plain ASCII; quotes,
 * backslashes and control characters are escaped anyway). */
static inline void bu_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static inline void bu_json_machine(FILE *f, const bu_machine *m)
{
    fprintf(f, "\"machine\": {\"cpu\": ");
    bu_json_str(f, m->cpu);
    fprintf(f, ", \"cores\": %ld, \"affinity_cores\": %ld, \"kernel\": ", m->cores, m->affinity);
    bu_json_str(f, m->kernel);
    fprintf(f, ", \"compiler\": ");
    bu_json_str(f, m->compiler);
    fprintf(f, ", \"commit\": ");
    bu_json_str(f, GR_BENCH_COMMIT);
    fprintf(f, "}");
}

/* Opens the JSON file and writes its head, up to the open "params" object
 * (the caller writes its parameters, then closes it). */
static inline FILE *bu_json_begin(const char *path, const char *bench, const bu_machine *m, int workers,
                                  const bu_opts *o)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fprintf(f, "{\"bench\": \"%s\",\n", bench);
    bu_json_machine(f, m);
    fprintf(f, ",\n\"params\": {\"workers\": %d, \"quick\": %d", workers, o->quick);
    return f;
}

static inline void bu_json_figures(FILE *f, const bu_figures *fs)
{
    int i;
    fprintf(f, "\"figures\": [");
    for (i = 0; i < fs->n; i++) {
        const bu_figure *x = &fs->v[i];
        fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
        bu_json_str(f, x->name);
        fprintf(f, ", \"what\": ");
        bu_json_str(f, x->what);
        fprintf(f, ", \"shape\": ");
        bu_json_str(f, x->shape);
        if (isfinite(x->value))
            fprintf(f, ", \"param\": %ld, \"value\": %.10g, \"unit\": ", x->param, x->value);
        else
            fprintf(f, ", \"param\": %ld, \"value\": null, \"unit\": ", x->param);
        bu_json_str(f, x->unit);
        fprintf(f, "}");
    }
    fprintf(f, "\n]");
}

/* ---------------------------------------------------------------- workers */

/* Applies a worker count from the command line before the runtime starts
 * (the runtime reads GRAPHRT_WORKERS once, on its first call), then
 * returns the count the runtime actually runs with. */
static inline int bu_workers(const char *requested)
{
    int w = 0;
    if (requested && *requested)
        setenv("GRAPHRT_WORKERS", requested, 1);
    BU_CHECK(grDeviceGetAttribute(&w, grDevAttrMultiProcessorCount, 0));
    if (requested && *requested && atoi(requested) != w)
        fprintf(stderr, "warning: asked for %s workers, the runtime runs %d\n", requested, w);
    return w;
}

#endif /* GR_BENCH_UTIL_H */
