/*
 * replay.c - 'graphrt replay': a graph file instantiated with stand-in
 * kernels and host functions and replayed, each replay timed (launch to
 * the end of the stream's synchronisation), then each top-level node
 * replayed alone in a graph of its own for a per-node profile.
 */
#define _POSIX_C_SOURCE 200809L
#include "tool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char usage_replay[] =
    "usage: graphrt replay [-n N] [--workers W] [--work-ns NS] [--no-profile] [--json] FILE\n"
    "\n"
    "Loads FILE with stand-in kernels and host functions (they do nothing, or\n"
    "spin NS nanoseconds per node with --work-ns), instantiates it and replays\n"
    "it N times (default 100) after one warm-up replay, timing each from launch\n"
    "to the end of grStreamSynchronize. Then, unless --no-profile, replays each\n"
    "top-level node alone (a one-node graph of the same parameters; memory\n"
    "nodes are skipped) and prints the slowest. --workers sets GRAPHRT_WORKERS.\n";

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Replays e reps times into t[]; false (detail printed) on failure. */
static bool time_replays(grGraphExec_t e, size_t reps, uint64_t *t)
{
    for (size_t i = 0; i < reps; i++) {
        uint64_t t0 = now_ns();
        if (grGraphLaunch(e, NULL) || grStreamSynchronize(NULL)) {
            fprintf(stderr, "graphrt: %s\n", grGetLastErrorDetail());
            return false;
        }
        t[i] = now_ns() - t0;
    }
    return true;
}

/* A one-node graph with node x's parameters; false for nodes that cannot
 * run alone (memory nodes) or on failure. */
static bool lone_graph(grGraphNode_t x, grGraph_t *out)
{
    grGraphNodeType t;
    grGraph_t g;
    grGraphNode_t n;
    grError_t err = grErrorInvalidValue;
    if (grGraphNodeGetType(x, &t) || grGraphCreate(&g, 0))
        return false;
    switch (t) {
    case grGraphNodeTypeKernel: {
        grKernelNodeParams p;
        if (!(err = grGraphKernelNodeGetParams(x, &p)))
            err = grGraphAddKernelNode(&n, g, NULL, 0, &p);
        break;
    }
    case grGraphNodeTypeMemcpy: {
        grMemcpy3DParms p;
        /* 3D parameters as given (a copy of 0 bytes only as a 1D node). */
        if (!(err = grGraphMemcpyNodeGetParams(x, &p)))
            err = p.extent.width
                      ? grGraphAddMemcpyNode(&n, g, NULL, 0, &p)
                      : grGraphAddMemcpyNode1D(&n, g, NULL, 0, p.dstPtr.ptr, p.srcPtr.ptr, 0, p.kind);
        break;
    }
    case grGraphNodeTypeMemset: {
        grMemsetParams p;
        if (!(err = grGraphMemsetNodeGetParams(x, &p)))
            err = grGraphAddMemsetNode(&n, g, NULL, 0, &p);
        break;
    }
    case grGraphNodeTypeHost: {
        grHostNodeParams p;
        if (!(err = grGraphHostNodeGetParams(x, &p)))
            err = grGraphAddHostNode(&n, g, NULL, 0, &p);
        break;
    }
    case grGraphNodeTypeGraph: {
        grGraph_t c;
        if (!(err = grGraphChildGraphNodeGetGraph(x, &c)))
            err = grGraphAddChildGraphNode(&n, g, NULL, 0, c);
        break;
    }
    case grGraphNodeTypeEmpty:
        err = grGraphAddEmptyNode(&n, g, NULL, 0);
        break;
    case grGraphNodeTypeEventRecord: {
        grEvent_t ev;
        if (!(err = grGraphEventRecordNodeGetEvent(x, &ev)))
            err = grGraphAddEventRecordNode(&n, g, NULL, 0, ev);
        break;
    }
    case grGraphNodeTypeWaitEvent: {
        grEvent_t ev;
        if (!(err = grGraphEventWaitNodeGetEvent(x, &ev)))
            err = grGraphAddEventWaitNode(&n, g, NULL, 0, ev);
        break;
    }
    case grGraphNodeTypeMemAlloc:
    case grGraphNodeTypeMemFree:
    case grGraphNodeTypeConditional:
    case grGraphNodeTypeBatchMemOp: /* a wait alone may wait for good */
    case grGraphNodeTypeCollective: /* needs every rank (graph files hold none) */
    case grGraphNodeTypeCount:
        break;
    }
    if (err) {
        grGraphDestroy(g);
        return false;
    }
    *out = g;
    return true;
}

typedef struct prof {
    size_t index;
    grGraphNodeType type;
    uint64_t median_ns;
} prof;

static int cmp_prof(const void *a, const void *b)
{
    const prof *x = a, *y = b;
    if (x->median_ns != y->median_ns)
        return x->median_ns > y->median_ns ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static const char *node_name(grGraphNode_t x, grGraphNodeType t)
{
    const char *name = "";
    grKernelNodeParams p;
    if (t == grGraphNodeTypeKernel && grGraphKernelNodeGetParams(x, &p) == grSuccess)
        grFuncGetName(&name, p.func);
    return name;
}

/* Profiles each top-level node alone: median of reps replays. */
static size_t profile(const tool_graph *t, size_t reps, prof *out, uint64_t *tmp)
{
    size_t np = 0;
    for (size_t i = 0; i < t->n; i++) {
        grGraph_t g;
        grGraphExec_t e;
        if (!lone_graph(t->nodes[i], &g))
            continue;
        if (grGraphInstantiate(&e, g, 0) == grSuccess) {
            if (time_replays(e, 1, tmp) && time_replays(e, reps, tmp)) {
                qsort(tmp, reps, sizeof *tmp, cmp_u64);
                grGraphNodeGetType(t->nodes[i], &out[np].type);
                out[np].index = i;
                out[np++].median_ns = tmp[reps / 2];
            }
            grGraphExecDestroy(e);
        }
        grGraphDestroy(g);
    }
    qsort(out, np, sizeof *out, cmp_prof);
    return np;
}

int tool_replay(int argc, char **argv)
{
    const char *path = NULL, *workers = NULL;
    unsigned long long reps = 100, work = 0;
    bool json = false, prof_on = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long long w;
        if (strcmp(a, "--help") == 0) {
            fputs(usage_replay, stdout);
            return TOOL_OK;
        } else if (strcmp(a, "--json") == 0) {
            json = true;
        } else if (strcmp(a, "--no-profile") == 0) {
            prof_on = false;
        } else if (strcmp(a, "-n") == 0 && tool_parse_num(v, 100000000, &reps) && reps > 0) {
            i++;
        } else if (strcmp(a, "--workers") == 0 && tool_parse_num(v, 4096, &w) && w > 0) {
            workers = v;
            i++;
        } else if (strcmp(a, "--work-ns") == 0 && tool_parse_num(v, 60000000000ull, &work)) {
            i++;
        } else if (a[0] != '-' && !path) {
            path = a;
        } else {
            tool_error("replay", "unexpected or invalid argument '%s'", a);
            fputs(usage_replay, stderr);
            return TOOL_USAGE;
        }
    }
    if (!path) {
        fputs(usage_replay, stderr);
        return TOOL_USAGE;
    }
    /* Read when the runtime starts, which the load below does. */
    if (workers)
        setenv("GRAPHRT_WORKERS", workers, 1);
    grGraph_t g;
    if (!tool_load(path, &g, json))
        return TOOL_FAIL;
    grGraphSetStandInWork(work);
    int nworkers = 0, rc = TOOL_FAIL;
    grDeviceGetAttribute(&nworkers, grDevAttrMultiProcessorCount, 0);
    grGraphExec_t e = NULL;
    tool_graph t;
    size_t preps = reps < 20 ? (size_t)reps : 20, np = 0;
    uint64_t *times = calloc((size_t)reps, sizeof *times);
    prof *pr = NULL;
    if (!times || !tool_graph_read(&t, g)) {
        tool_error("replay", "out of memory");
        free(times);
        grGraphDestroy(g);
        return TOOL_FAIL;
    }
    if (grGraphInstantiate(&e, g, 0) != grSuccess) {
        fprintf(stderr, "graphrt: %s\n", grGetLastErrorDetail());
        goto out;
    }
    /* The executable lives on through the profile: it maps the graph's
     * allocations, which the lone copies and memsets of its nodes use. */
    if (!(time_replays(e, 1, times) && time_replays(e, (size_t)reps, times)))
        goto out;
    uint64_t sum = 0;
    for (size_t i = 0; i < reps; i++)
        sum += times[i];
    qsort(times, (size_t)reps, sizeof *times, cmp_u64);
    uint64_t tmin = times[0], tmed = times[reps / 2], tmax = times[reps - 1], tmean = sum / reps;
    uint64_t tmp[20];
    if (prof_on && (pr = calloc(t.n + 1, sizeof *pr)) != NULL)
        np = profile(&t, preps, pr, tmp);
    if (json) {
        printf("{\"file\": ");
        tool_json_str(stdout, path);
        printf(", \"nodes\": %zu, \"workers\": %d, \"work_ns\": %llu, \"replays\": %llu, "
               "\"replay_ns\": {\"min\": %llu, \"median\": %llu, \"mean\": %llu, \"max\": %llu}, "
               "\"profile\": [",
               t.n, nworkers, work, reps, (unsigned long long)tmin, (unsigned long long)tmed,
               (unsigned long long)tmean, (unsigned long long)tmax);
        for (size_t i = 0; i < np; i++) {
            printf("%s{\"node\": \"n%zu\", \"type\": \"%s\", \"name\": ", i ? ", " : "", pr[i].index,
                   grGraphNodeTypeWord_(pr[i].type));
            tool_json_str(stdout, node_name(t.nodes[pr[i].index], pr[i].type));
            printf(", \"median_ns\": %llu}", (unsigned long long)pr[i].median_ns);
        }
        printf("]}\n");
    } else {
        printf("file        %s\n", path);
        printf("graph       %zu top-level nodes; stand-ins spin %llu ns per node; %d workers\n", t.n, work,
               nworkers);
        printf("replays     %llu (after 1 warm-up), launch to end of synchronize\n", reps);
        printf("  min       %10.3f us\n  median    %10.3f us\n  mean      %10.3f us\n  max       %10.3f us\n",
               (double)tmin / 1e3, (double)tmed / 1e3, (double)tmean / 1e3, (double)tmax / 1e3);
        if (prof_on) {
            printf("per node    each top-level node replayed alone, median of %zu (slowest first)\n", preps);
            for (size_t i = 0; i < np && i < 20; i++) {
                const char *nm = node_name(t.nodes[pr[i].index], pr[i].type);
                printf("  n%-8zu %-7s %10.3f us%s%s\n", pr[i].index, grGraphNodeTypeWord_(pr[i].type),
                       (double)pr[i].median_ns / 1e3, *nm ? "  " : "", nm);
            }
            if (np > 20)
                printf("  ... %zu more (--json lists all)\n", np - 20);
        }
    }
    rc = TOOL_OK;
out:
    if (e)
        grGraphExecDestroy(e);
    free(times);
    free(pr);
    tool_graph_free(&t);
    grGraphDestroy(g);
    return rc;
}
