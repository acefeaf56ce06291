/*
 * analyze.c - 'graphrt analyze': the report of grGraphAnalyze for a graph
 * file (docs/analysis.md explains each figure and finding), as the
 * library prints it, or as JSON with nodes named as the file names them.
 * Given the files of several ranks, it also compares their collective
 * nodes (docs/collectives.md): the sequence each rank would start, in the
 * order instantiate runs them (topological, ties broken by creation
 * order, as the library's plan), and names the first that differs.
 */
#include "tool.h"

#include <stdlib.h>
#include <string.h>

static const char usage_analyze[] = "usage: graphrt analyze [--json] FILE\n"
                                    "       graphrt analyze FILE FILE...\n"
                                    "\n"
                                    "Prints grGraphAnalyze's report of the graph's top level: levels and\n"
                                    "width, a critical path, roots, sinks, components, and the findings:\n"
                                    "redundant edges, detached nodes, serialised fork-joins\n"
                                    "(docs/analysis.md). Nodes are named n<index> as in the file.\n"
                                    "Given the files of several ranks, also compares the sequences of\n"
                                    "collective nodes each rank would start (top level, in plan order)\n"
                                    "and names the first that differs; exit status 1 when they differ.\n";

/* ------------------------------------------------ collectives across ranks */

static const char *const coll_ops[] = {"all-reduce",     "broadcast", "reduce", "all-gather",
                                       "reduce-scatter", "send",      "recv"};
static const char *const coll_types[] = {"int8",   "uint8",   "int32",   "uint32",  "int64",
                                         "uint64", "float16", "float32", "float64", "bfloat16"};
static const char *const coll_redops[] = {"sum", "prod", "max", "min", "avg"};

static const char *word_of(const char *const *w, size_t n, unsigned i)
{
    return i < n ? w[i] : "unknown";
}

/* One collective of a file: its node's index in the file and what the
 * ranks must agree on (sends and receives as point-to-point of a count:
 * their peers differ by rank, as instantiate compares them). */
typedef struct coll_sig {
    size_t node;
    grCollectiveNodeParams p;
} coll_sig;

static bool sig_same(const grCollectiveNodeParams *a, const grCollectiveNodeParams *b)
{
    bool pa = a->op == grCollSend || a->op == grCollRecv, pb = b->op == grCollSend || b->op == grCollRecv;
    if (pa || pb)
        return pa && pb && a->datatype == b->datatype && a->count == b->count;
    return a->op == b->op && a->datatype == b->datatype && a->redop == b->redop && a->root == b->root &&
           a->count == b->count;
}

static void sig_print(const coll_sig *s)
{
    const grCollectiveNodeParams *p = &s->p;
    bool red = p->op == grCollAllReduce || p->op == grCollReduce || p->op == grCollReduceScatter;
    printf("n%zu %s", s->node, word_of(coll_ops, 7, (unsigned)p->op));
    if (red)
        printf(" %s", word_of(coll_redops, 5, (unsigned)p->redop));
    printf(" of %zu %s", p->count, word_of(coll_types, 10, (unsigned)p->datatype));
    if (p->op == grCollBroadcast || p->op == grCollReduce)
        printf(" (root %d)", p->root);
    else if (p->op == grCollSend || p->op == grCollRecv)
        printf(" (peer %d)", p->root);
}

/* The top level's collective nodes of g in plan order: Kahn's walk, the
 * ready nodes first in, first out, starting from the roots in creation
 * order and adding each node's dependents in edge order. *n receives the
 * count; NULL with *n 0 when there are none; false when out of memory. */
static bool collect(const tool_graph *t, coll_sig **out, size_t *n)
{
    size_t nn = t->n, head = 0, tail = 0, k = 0;
    size_t *pending = calloc(nn ? nn : 1, sizeof *pending), *queue = malloc((nn ? nn : 1) * sizeof *queue);
    coll_sig *sig = malloc((nn ? nn : 1) * sizeof *sig);
    bool ok = pending && queue && sig;
    for (size_t i = 0; ok && i < nn; i++) {
        size_t d = 0;
        ok = grGraphNodeGetDependencies(t->nodes[i], NULL, NULL, &d) == grSuccess;
        pending[i] = d;
        if (d == 0)
            queue[tail++] = i;
    }
    while (ok && head < tail) {
        size_t i = queue[head++];
        grGraphNodeType type;
        if (grGraphNodeGetType(t->nodes[i], &type) == grSuccess && type == grGraphNodeTypeCollective &&
            grGraphCollectiveNodeGetParams(t->nodes[i], &sig[k].p) == grSuccess)
            sig[k++].node = i;
        size_t nd = 0;
        ok = grGraphNodeGetDependentNodes(t->nodes[i], NULL, NULL, &nd) == grSuccess;
        grGraphNode_t *dn = ok ? malloc((nd ? nd : 1) * sizeof *dn) : NULL;
        grGraphEdgeData *ed = ok ? malloc((nd ? nd : 1) * sizeof *ed) : NULL;
        ok = dn && ed && grGraphNodeGetDependentNodes(t->nodes[i], dn, ed, &nd) == grSuccess;
        for (size_t j = 0; ok && j < nd; j++) {
            size_t x = tool_node_index(t, dn[j]);
            if (x != (size_t)-1 && --pending[x] == 0)
                queue[tail++] = x;
        }
        free(dn);
        free(ed);
    }
    free(pending);
    free(queue);
    if (!ok) {
        free(sig);
        return false;
    }
    *out = sig;
    *n = k;
    return true;
}

/* Compares the collectives of files[0..nfiles): TOOL_OK when every file
 * holds the same sequence, TOOL_FAIL (1) when they differ or a file
 * cannot be read. */
static int compare_ranks(char **files, int nfiles)
{
    coll_sig **sig = calloc((size_t)nfiles, sizeof *sig);
    size_t *n = calloc((size_t)nfiles, sizeof *n), most = 0;
    int rc = sig && n ? TOOL_OK : TOOL_FAIL;
    for (int f = 0; rc == TOOL_OK && f < nfiles; f++) {
        grGraph_t g;
        tool_graph t;
        if (!tool_load(files[f], &g, false))
            rc = TOOL_FAIL;
        else if (!tool_graph_read(&t, g)) {
            rc = TOOL_FAIL;
            grGraphDestroy(g);
        } else {
            if (!collect(&t, &sig[f], &n[f]))
                rc = TOOL_FAIL;
            tool_graph_free(&t);
            grGraphDestroy(g);
        }
        if (rc == TOOL_OK && n[f] > most)
            most = n[f];
    }
    if (rc != TOOL_OK) {
        tool_error("analyze", "cannot compare the files' collectives");
    } else {
        size_t at = 0;
        int other = 0;
        for (; at < most; at++) {
            for (other = 1; other < nfiles; other++) {
                bool a = at < n[0], b = at < n[other];
                if (a != b || (a && !sig_same(&sig[0][at].p, &sig[other][at].p)))
                    break;
            }
            if (other < nfiles)
                break;
        }
        if (at == most) {
            printf("collectives: the %d files agree (%zu collective%s each)\n", nfiles, most,
                   most == 1 ? "" : "s");
        } else {
            printf("collectives: the files differ at collective %zu (launching them would hang):\n", at + 1);
            int pair[2] = {0, other};
            for (int k = 0; k < 2; k++) {
                printf("  %s: ", files[pair[k]]);
                if (at < n[pair[k]])
                    sig_print(&sig[pair[k]][at]);
                else
                    printf("no collective (it holds %zu)", n[pair[k]]);
                printf("\n");
            }
            rc = TOOL_FAIL;
        }
    }
    for (int f = 0; sig && f < nfiles; f++)
        free(sig[f]);
    free(sig);
    free(n);
    return rc;
}

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
    int nfiles = 0;
    char **files = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0) {
            fputs(usage_analyze, stdout);
            return TOOL_OK;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (argv[i][0] != '-') {
            if (!path) {
                path = argv[i];
                files = &argv[i];
            }
            nfiles++;
        } else {
            tool_error("analyze", "unexpected argument '%s'", argv[i]);
            fputs(usage_analyze, stderr);
            return TOOL_USAGE;
        }
    }
    if (!path || (nfiles > 1 && json)) {
        if (path)
            tool_error("analyze", "--json takes one file");
        fputs(usage_analyze, stderr);
        return TOOL_USAGE;
    }
    if (nfiles > 1) {
        /* The files are argv's consecutive arguments from 'files' on
         * (options before them). */
        for (int i = 0; i < nfiles; i++)
            if (files[i][0] == '-') {
                tool_error("analyze", "options come before the files");
                return TOOL_USAGE;
            }
        int rc = TOOL_OK;
        for (int i = 0; i < nfiles && rc == TOOL_OK; i++) {
            char *one[] = {argv[0], files[i]};
            rc = tool_analyze(2, one);
        }
        return rc == TOOL_OK ? compare_ranks(files, nfiles) : rc;
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
