/*
 * graphrt/analysis.h - graph analysis, graphrt's own.
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_ANALYSIS_H
#define GRAPHRT_MODULE_ANALYSIS_H

#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================== */
/* Graph analysis (graphrt's own)                                         */
/* ====================================================================== */

/*
 * grGraphAnalyze reads a graph's shape and reports what makes a legal graph
 * slow or wrong: its critical path and width, edges that change nothing,
 * nodes cut off from the rest, and joins whose "parallel" branches are
 * chained to each other (the serialised fork-join). docs/analysis.md
 * explains each figure and finding. A graph captured from streams also
 * remembers which grStreamWaitEvent made each edge between streams, so a
 * serialised join names the event and the two calls that chained its
 * branches. The analysis covers the graph's own nodes: a child-graph node
 * counts as one node. The report names nodes by handle, so print it
 * (grGraphAnalysisPrint) while its graph lives.
 */

/* An edge from -> to. */
typedef struct grGraphAnalysisEdge {
    grGraphNode_t from, to;
} grGraphAnalysisEdge;

/* The capture calls behind an edge between two streams of a capture:
 * grEventRecord(event, recordStream) then grStreamWaitEvent(waitStream,
 * event). Calls are numbered from 1 in the order the capture saw its
 * calls (operations, records and waits on all its streams). The handles are
 * the values they had then; they may have been destroyed since. */
typedef struct grGraphCaptureCause {
    unsigned long long captureId; /* as grStreamGetCaptureInfo reported it */
    grEvent_t event;
    grStream_t recordStream;
    unsigned long long recordCall;
    grStream_t waitStream;
    unsigned long long waitCall;
} grGraphCaptureCause;

/* A serialised fork-join: 'join' depends on the last nodes of two branches
 * that were meant to run side by side, but the second branch depends on
 * the first through the edge 'link', so they run one after the other (and
 * the edge from the first branch's last node to 'join' is redundant).
 * Each branch lists its nodes in order: for a captured graph, the nodes
 * its stream captured; otherwise the chain of single-edge nodes ending at
 * the join's dependency. In a captured graph a redundant edge into a join
 * is a serialised fork-join when the path that implies it crosses from
 * one stream to another; a graph built by hand does not say which
 * branches were meant to run side by side, so there a redundant edge
 * p -> join is one when p reaches some but not all of the join's other
 * dependencies (one that reaches all is where they start: a shortcut). */
typedef struct grGraphSerialisedJoin {
    grGraphNode_t join;
    grGraphNode_t *firstBranch; /* numFirstBranch nodes, the last one a dependency of join */
    size_t numFirstBranch;
    grGraphNode_t *secondBranch; /* numSecondBranch nodes, the last one a dependency of join */
    size_t numSecondBranch;
    grStream_t firstStream, secondStream; /* the streams that captured them, or NULL */
    grGraphAnalysisEdge link;             /* link.to is secondBranch[0] */
    int hasCause;                         /* nonzero: 'cause' made 'link' */
    grGraphCaptureCause cause;
} grGraphSerialisedJoin;

/* The report of grGraphAnalyze. Arrays are owned by the report and freed
 * by grGraphAnalysisDestroy; NULL when empty. */
typedef struct grGraphAnalysis {
    grGraph_t graph; /* the graph analysed */
    size_t numNodes, numEdges, numRoots, numSinks;
    /* Levels: a node's level is the number of nodes on the longest path
     * from a root to it, less one; 'depth' is the number of levels, i.e.
     * the nodes on a critical path. levelWidths[i] is the number of nodes
     * on level i (numLevels == depth). */
    size_t depth;
    size_t *levelWidths;
    size_t numLevels;
    size_t maxWidth;     /* the widest level's width */
    double averageWidth; /* numNodes / depth (0 for an empty graph) */
    /* A critical path, root to sink: the longest in nodes, or with costs
     * (grGraphAnalyzeWithCosts) the costliest, whose cost is
     * criticalPathCost (0 without costs). */
    grGraphNode_t *criticalPath;
    size_t numCriticalPath;
    double criticalPathCost;
    /* Weakly connected components (0 for an empty graph). */
    size_t numComponents;
    /* Findings. Redundant edges: u -> v where v is also reachable from u
     * by another path, in u's creation order then edge order; except the
     * edges along one captured stream's order (u and v recorded by the
     * same stream), which capture makes whenever a stream joins branches
     * it forked without work of its own in between: those are only
     * counted, in numRedundantStreamEdges. */
    grGraphAnalysisEdge *redundantEdges;
    size_t numRedundantEdges;
    size_t numRedundantStreamEdges;
    /* Nodes outside the largest component: no root of the rest of the
     * graph reaches them and they lead to none of its sinks. Creation
     * order. */
    grGraphNode_t *detachedNodes;
    size_t numDetachedNodes;
    /* Serialised fork-joins, joins in creation order: at most
     * GR_GRAPH_ANALYSIS_MAX_JOINS, found by at most 16 times as many
     * searches of the graph (each shows among the redundant edges too,
     * which are all listed). */
    grGraphSerialisedJoin *serialisedJoins;
    size_t numSerialisedJoins;
    int fromCapture; /* nonzero: some nodes were captured and carry where they came from */
    /* Room for later figures; zero. */
    uint64_t reserved[8];
} grGraphAnalysis;

/* The most serialised fork-joins a report details. */
#define GR_GRAPH_ANALYSIS_MAX_JOINS 64u

/* Analyses 'graph' into *report (overwritten: it owns nothing before the
 * call; release it with grGraphAnalysisDestroy). Runs in O(V * E / 64)
 * word operations for the redundant edges, within 64 MiB of reachability
 * sets, and O(V + E) for the rest; the graph is not changed. Errors:
 * grErrorInvalidValue (graph NULL or not live, report NULL, flags not 0;
 * *report untouched), grErrorMemoryAllocation (*report zeroed). Thread
 * safety: not with other calls on the same graph. graphrt's own. */
GR_API grError_t grGraphAnalyze(grGraph_t graph, grGraphAnalysis *report, unsigned int flags);

/* grGraphAnalyze with a cost per node (e.g. measured times): nodeCosts[i]
 * is the cost of the i-th node in the order grGraphGetNodes lists them
 * (creation order), numNodeCosts the graph's node count. The critical path
 * is then the costliest path, and criticalPathCost its cost. Errors: those
 * of grGraphAnalyze, and grErrorInvalidValue (nodeCosts NULL, numNodeCosts
 * not the node count, a cost negative or not finite). Thread safety: as
 * grGraphAnalyze. graphrt's own. */
GR_API grError_t grGraphAnalyzeWithCosts(grGraph_t graph, grGraphAnalysis *report, unsigned int flags,
                                         const double *nodeCosts, size_t numNodeCosts);

/* Frees the arrays of a report of grGraphAnalyze and zeroes it (a zeroed
 * report may be destroyed again). Errors: grErrorInvalidValue (report
 * NULL). Thread safety: not with other calls on the same report.
 * graphrt's own. */
GR_API grError_t grGraphAnalysisDestroy(grGraphAnalysis *report);

/* Flags of grGraphAnalysisPrint. */
#define grGraphAnalysisPrintFindingsOnly (1u << 0) /* only the findings, nothing if none */

/* Writes a report as text to 'stream': the figures, then each
 * finding on lines of its own, nodes named as "kernel node #3 'blur'"
 * (type, creation number, kernel name); with
 * grGraphAnalysisPrintFindingsOnly only the findings, each line starting
 * "graphrt: analysis: ". The report's graph must still live. Errors:
 * grErrorInvalidValue (report or stream NULL, flags other than
 * grGraphAnalysisPrintFindingsOnly, a write failed). Thread safety: not
 * with other calls on the report's graph. graphrt's own. */
GR_API grError_t grGraphAnalysisPrint(const grGraphAnalysis *report, FILE *stream, unsigned int flags);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_ANALYSIS_H */
