/*
 * analyze_print.c - grGraphAnalysisPrint: a report of grGraphAnalyze as
 * text, one formatting for every reader (the graphrt tool, the warnings of
 * GRAPHRT_ANALYZE=1, programs). Nodes are named as in detail sentences
 * (gr__node_label), which reads the report's nodes: their graph must live.
 */
#include "../graph.h"

#include <stdarg.h>
#include <stdio.h>

/* The most nodes a list prints before "... (N more)". */
#define PRINT_LIST_MAX 16

typedef struct out {
    FILE *f;
    const char *prefix; /* before every line */
    bool failed;
} out;

GR_PRINTF(2, 3) static void line(out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (fputs(o->prefix, o->f) < 0 || vfprintf(o->f, fmt, ap) < 0 || fputc('\n', o->f) == EOF)
        o->failed = true;
    va_end(ap);
}

/* "kernel node #1 'a', kernel node #2 'b'" as one line after 'head'. */
static void node_list(out *o, const char *head, grGraphNode_t const *v, size_t len)
{
    char buf[2048];
    size_t used = 0;
    for (size_t i = 0; i < len && i < PRINT_LIST_MAX && used < sizeof buf; i++) {
        int r = snprintf(buf + used, sizeof buf - used, "%s%s", i ? ", " : "", gr__node_label(v[i]));
        used += r > 0 ? (size_t)r : 0;
    }
    if (len > PRINT_LIST_MAX && used < sizeof buf)
        snprintf(buf + used, sizeof buf - used, ", ... (%zu more)", len - PRINT_LIST_MAX);
    line(o, "%s%s", head, len ? buf : "(none)");
}

static void print_figures(out *o, const grGraphAnalysis *r)
{
    line(o, "graph %p: %zu nodes, %zu edges, %zu roots, %zu sinks, %zu components%s", GR_PTR(r->graph),
         r->numNodes, r->numEdges, r->numRoots, r->numSinks, r->numComponents,
         r->fromCapture ? " (captured)" : "");
    line(o, "levels: %zu (a critical path of %zu nodes); width: at most %zu, %.2f on average", r->depth,
         r->depth, r->maxWidth, r->averageWidth);
    char buf[1024];
    size_t used = 0;
    for (size_t i = 0; i < r->numLevels && i < 64 && used < sizeof buf; i++) {
        int k = snprintf(buf + used, sizeof buf - used, "%s%zu", i ? " " : "", r->levelWidths[i]);
        used += k > 0 ? (size_t)k : 0;
    }
    if (r->numLevels > 64 && used < sizeof buf)
        snprintf(buf + used, sizeof buf - used, " ...");
    if (r->numLevels)
        line(o, "width per level: %s", buf);
    if (r->criticalPathCost > 0)
        line(o, "critical path (cost %g):", r->criticalPathCost);
    else
        line(o, "critical path:");
    node_list(o, "  ", r->criticalPath, r->numCriticalPath);
}

static void print_join(out *o, const grGraphSerialisedJoin *j)
{
    line(o, "serialised fork-join: %s joins two branches that run one after the other:",
         gr__node_label(j->join));
    char head[128];
    if (j->firstStream)
        snprintf(head, sizeof head, "  first branch (stream %p): ", GR_PTR(j->firstStream));
    else
        snprintf(head, sizeof head, "  first branch: ");
    node_list(o, head, j->firstBranch, j->numFirstBranch);
    if (j->secondStream)
        snprintf(head, sizeof head, "  second branch (stream %p): ", GR_PTR(j->secondStream));
    else
        snprintf(head, sizeof head, "  second branch: ");
    node_list(o, head, j->secondBranch, j->numSecondBranch);
    line(o, "  chained by the edge %s -> %s", gr__node_label(j->link.from), gr__node_label(j->link.to));
    if (j->hasCause) {
        const grGraphCaptureCause *c = &j->cause;
        line(o,
             "  made in capture #%llu by call %llu, grStreamWaitEvent(stream %p, event %p), on the event "
             "recorded by call %llu, grEventRecord(event %p, stream %p)",
             c->captureId, c->waitCall, GR_PTR(c->waitStream), GR_PTR(c->event), c->recordCall,
             GR_PTR(c->event), GR_PTR(c->recordStream));
    }
    /* The remedy in the terms the graph was built in. */
    const char *fix = j->secondStream ? "make the second stream wait on an event recorded before the first "
                                        "branch's work"
                                      : "make the second branch depend on what the first one depends on, "
                                        "not on the first one";
    line(o, "  the edge %s -> %s is redundant; to run the branches side by side, %s",
         gr__node_label(j->firstBranch[j->numFirstBranch - 1]), gr__node_label(j->join), fix);
}

static void print_findings(out *o, const grGraphAnalysis *r, bool all)
{
    if (all)
        line(o, "redundant edges: %zu (and %zu along a captured stream's order, as capture joins make them)",
             r->numRedundantEdges, r->numRedundantStreamEdges);
    else if (r->numRedundantEdges)
        line(o, "redundant edges: %zu", r->numRedundantEdges);
    for (size_t i = 0; i < r->numRedundantEdges && i < PRINT_LIST_MAX; i++)
        line(o, "  %s -> %s (its target is reached through another path)",
             gr__node_label(r->redundantEdges[i].from), gr__node_label(r->redundantEdges[i].to));
    if (r->numRedundantEdges > PRINT_LIST_MAX)
        line(o, "  ... (%zu more)", r->numRedundantEdges - PRINT_LIST_MAX);
    if (all || r->numDetachedNodes) {
        line(o, "detached nodes (outside the largest component): %zu", r->numDetachedNodes);
        if (r->numDetachedNodes)
            node_list(o, "  ", r->detachedNodes, r->numDetachedNodes);
    }
    if (all || r->numSerialisedJoins)
        line(o, "serialised fork-joins: %zu%s", r->numSerialisedJoins,
             r->numSerialisedJoins == GR_GRAPH_ANALYSIS_MAX_JOINS ? " (or more)" : "");
    for (size_t i = 0; i < r->numSerialisedJoins; i++)
        print_join(o, &r->serialisedJoins[i]);
}

GR_API grError_t grGraphAnalysisPrint(const grGraphAnalysis *report, FILE *stream, unsigned int flags)
{
    if (report == NULL)
        return gr__fail(grErrorInvalidValue, "grGraphAnalysisPrint: report is NULL");
    if (stream == NULL)
        return gr__fail(grErrorInvalidValue, "grGraphAnalysisPrint: stream is NULL");
    if (flags & ~grGraphAnalysisPrintFindingsOnly)
        return gr__fail(
            grErrorInvalidValue,
            "grGraphAnalysisPrint: flags %#x has bits other than grGraphAnalysisPrintFindingsOnly", flags);
    bool findings_only = (flags & grGraphAnalysisPrintFindingsOnly) != 0;
    out o = {stream, findings_only ? "graphrt: analysis: " : "", false};
    if (findings_only) {
        bool any = report->numRedundantEdges || report->numDetachedNodes || report->numSerialisedJoins;
        if (any)
            line(&o, "graph %p (%zu nodes, %zu edges):", GR_PTR(report->graph), report->numNodes,
                 report->numEdges);
    } else {
        print_figures(&o, report);
    }
    print_findings(&o, report, !findings_only);
    if (o.failed || fflush(stream) == EOF)
        return gr__fail(grErrorInvalidValue, "grGraphAnalysisPrint: writing the report failed");
    return grSuccess;
}
