/*
 * analyze.c - 'graphrt analyze': the report of grGraphAnalyze for a graph
 * file (docs/analysis.md explains each figure and finding), as the
 * library prints it, or as JSON with nodes named as the file names them.
 */
#include "tool.h"

#include <stdlib.h>
#include <string.h>

static const char usage_analyze[] = "usage: graphrt analyze [--json] FILE\n"
                                    "\n"
                                    "Prints grGraphAnalyze's report of the graph's top level: levels and\n"
                                    "width, a critical path, roots, sinks, components, and the findings:\n"
                                    "redundant edges, detached nodes, serialised fork-joins\n"
                                    "(docs/analysis.md). Nodes are named n<index> as in the file.\n";

static void put_node(const tool_graph *t, grGraphNode_t n)
{
    size_t i = tool_node_index(t, n);
    if (i == (size_t)-1)
        printf("null");
    else
        printf("\"n%zu\"", i);
}

static void put_nodes(const tool_graph *t, grGraphNode_t *v, size_t n)
{
    printf("[");
    for (size_t i = 0; i < n; i++) {
        printf("%s", i ? ", " : "");
        put_node(t, v[i]);
    }
    printf("]");
}

static void put_edge(const tool_graph *t, grGraphAnalysisEdge e)
{
    printf("[");
    put_node(t, e.from);
    printf(", ");
    put_node(t, e.to);
    printf("]");
}

static void print_json(const char *path, const tool_graph *t, const grGraphAnalysis *r)
{
    printf("{\"file\": ");
    tool_json_str(stdout, path);
    printf(", \"nodes\": %zu, \"edges\": %zu, \"roots\": %zu, \"sinks\": %zu, \"depth\": %zu, \"max_width\": "
           "%zu, "
           "\"average_width\": %.4g, \"components\": %zu, \"level_widths\": [",
           r->numNodes, r->numEdges, r->numRoots, r->numSinks, r->depth, r->maxWidth, r->averageWidth,
           r->numComponents);
    for (size_t i = 0; i < r->numLevels; i++)
        printf("%s%zu", i ? ", " : "", r->levelWidths[i]);
    printf("], \"critical_path\": ");
    put_nodes(t, r->criticalPath, r->numCriticalPath);
    printf(", \"redundant_edges\": [");
    for (size_t i = 0; i < r->numRedundantEdges; i++) {
        printf("%s", i ? ", " : "");
        put_edge(t, r->redundantEdges[i]);
    }
    printf("], \"redundant_stream_edges\": %zu, \"detached_nodes\": ", r->numRedundantStreamEdges);
    put_nodes(t, r->detachedNodes, r->numDetachedNodes);
    printf(", \"serialised_joins\": [");
    for (size_t i = 0; i < r->numSerialisedJoins; i++) {
        const grGraphSerialisedJoin *j = &r->serialisedJoins[i];
        printf("%s{\"join\": ", i ? ", " : "");
        put_node(t, j->join);
        printf(", \"first_branch\": ");
        put_nodes(t, j->firstBranch, j->numFirstBranch);
        printf(", \"second_branch\": ");
        put_nodes(t, j->secondBranch, j->numSecondBranch);
        printf(", \"link\": ");
        put_edge(t, j->link);
        printf("}");
    }
    printf("]}\n");
}

int tool_analyze(int argc, char **argv)
{
    const char *path = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0) {
            fputs(usage_analyze, stdout);
            return TOOL_OK;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (argv[i][0] != '-' && !path) {
            path = argv[i];
        } else {
            tool_error("analyze", "unexpected argument '%s'", argv[i]);
            fputs(usage_analyze, stderr);
            return TOOL_USAGE;
        }
    }
    if (!path) {
        fputs(usage_analyze, stderr);
        return TOOL_USAGE;
    }
    grGraph_t g;
    if (!tool_load(path, &g, json))
        return TOOL_FAIL;
    grGraphAnalysis r;
    tool_graph t;
    int rc = TOOL_OK;
    if (grGraphAnalyze(g, &r, 0) != grSuccess) {
        fprintf(stderr, "graphrt: %s\n", grGetLastErrorDetail());
        grGraphDestroy(g);
        return TOOL_FAIL;
    }
    if (json) {
        if (tool_graph_read(&t, g)) {
            print_json(path, &t, &r);
            tool_graph_free(&t);
        } else {
            tool_error("analyze", "out of memory");
            rc = TOOL_FAIL;
        }
    } else {
        printf("file: %s\n", path);
        fflush(stdout);
        if (grGraphAnalysisPrint(&r, stdout, 0) != grSuccess) {
            fprintf(stderr, "graphrt: %s\n", grGetLastErrorDetail());
            rc = TOOL_FAIL;
        }
    }
    grGraphAnalysisDestroy(&r);
    grGraphDestroy(g);
    return rc;
}
