/*
 * graphrt.c - the graphrt command-line tool: looks at graph files
 * (docs/graph-files.md) without the program that saved them. This file
 * holds main, what the subcommands share, and 'info' and 'dot'; 'replay',
 * 'diff' and 'analyze' live in replay.c, diff.c and analyze.c.
 * docs/tool.md is the manual.
 *
 * Every subcommand loads its files with grGraphLoadStandIns, so kernels
 * and host functions are built-in stand-ins: any file loads.
 */
#define _POSIX_C_SOURCE 200809L
#include "tool.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_main[] =
    "usage: graphrt COMMAND [OPTIONS] FILE...\n"
    "\n"
    "Looks at graphrt graph files (saved by grGraphSaveToFile).\n"
    "\n"
    "commands:\n"
    "  info FILE          node counts by type, edges, roots, depth, width\n"
    "  dot FILE           the graph as Graphviz DOT (as grGraphDebugDotPrint)\n"
    "  replay FILE        instantiate and replay with stand-in kernels, timed\n"
    "  diff A B           differences, paired as grGraphExecUpdate pairs nodes\n"
    "  analyze FILE       grGraphAnalyze's report: critical path, width, findings\n"
    "  record -- PROGRAM  record the CUDA graphs an unmodified CUDA program builds\n"
    "\n"
    "'graphrt COMMAND --help' describes a command. Exit status: 0 success,\n"
    "1 failure, 2 usage error. --json prints one JSON object for scripts.\n";

void tool_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "graphrt %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

bool tool_parse_num(const char *s, unsigned long long max, unsigned long long *out)
{
    unsigned long long v = 0;
    if (!s || !*s)
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned d = (unsigned)(*s - '0');
        if (v > (max - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

char *tool_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap + 1);
    while (s) {
        n += fread(s + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *ns = realloc(s, 2 * cap + 1);
        if (!ns)
            free(s);
        s = ns;
        cap *= 2;
    }
    fclose(f);
    if (s)
        s[n] = '\0';
    if (len)
        *len = n;
    return s;
}

bool tool_load(const char *path, grGraph_t *g, bool json)
{
    grError_t err = grGraphLoadFromFile(g, path, grGraphLoadStandIns);
    if (err != grSuccess) {
        const char *detail = grGetLastErrorDetail();
        fprintf(stderr, "graphrt: %s\n", detail);
        if (json) {
            printf("{\"file\": ");
            tool_json_str(stdout, path);
            printf(", \"error\": \"%s\", \"detail\": ", grGetErrorName(err));
            tool_json_str(stdout, detail);
            printf("}\n");
        }
        return false;
    }
    return true;
}

void tool_json_str(FILE *f, const char *s)
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

/* ------------------------------------------------------------ top level */

/* A node's address and its index, sorted by address. */
struct tool_idx {
    uintptr_t p;
    size_t i;
};

static int cmp_idx(const void *a, const void *b)
{
    const struct tool_idx *x = a, *y = b;
    return x->p < y->p ? -1 : x->p > y->p;
}

size_t tool_node_index(const tool_graph *t, grGraphNode_t x)
{
    const struct tool_idx *s = t->sorted;
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].p < (uintptr_t)x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->n && s[lo].p == (uintptr_t)x ? s[lo].i : (size_t)-1;
}

bool tool_graph_read(tool_graph *t, grGraph_t g)
{
    size_t n = 0, ne = 0;
    memset(t, 0, sizeof *t);
    t->g = g;
    if (grGraphGetNodes(g, NULL, &n) || grGraphGetEdges(g, NULL, NULL, NULL, &ne))
        return false;
    t->n = n;
    t->nodes = calloc(n + 1, sizeof *t->nodes);
    t->dep_begin = calloc(n + 1, sizeof *t->dep_begin);
    t->deps = calloc(ne + 1, sizeof *t->deps);
    t->nsuccs = calloc(n + 1, sizeof *t->nsuccs);
    t->sorted = calloc(n + 1, sizeof *t->sorted);
    if (!t->nodes || !t->dep_begin || !t->deps || !t->nsuccs || !t->sorted ||
        grGraphGetNodes(g, t->nodes, &n)) {
        tool_graph_free(t);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        t->sorted[i] = (struct tool_idx){(uintptr_t)t->nodes[i], i};
    qsort(t->sorted, n, sizeof *t->sorted, cmp_idx);
    /* Dependencies in edge order: each node's list, as the graph has it. */
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        size_t nd = 0;
        t->dep_begin[i] = w;
        grGraphNodeGetDependencies(t->nodes[i], NULL, NULL, &nd);
        grGraphNode_t *d = calloc(nd + 1, sizeof *d);
        if (!d) {
            tool_graph_free(t);
            return false;
        }
        grGraphNodeGetDependencies(t->nodes[i], d, NULL, &nd);
        for (size_t k = 0; k < nd; k++) {
            size_t j = tool_node_index(t, d[k]);
            t->deps[w++] = j;
            t->nsuccs[j]++;
        }
        free(d);
    }
    t->dep_begin[n] = w;
    return true;
}

void tool_graph_free(tool_graph *t)
{
    free(t->nodes);
    free(t->dep_begin);
    free(t->deps);
    free(t->nsuccs);
    free(t->sorted);
    memset(t, 0, sizeof *t);
}

/* ----------------------------------------------------------------- info */

static const char usage_info[] = "usage: graphrt info [--baked] [--json] FILE\n"
                                 "\n"
                                 "Prints what the graph holds: nodes by type (child graphs' nodes\n"
                                 "included), edges, and for the top level its roots, sinks, depth (the\n"
                                 "nodes on its longest path) and width (the most nodes at one depth,\n"
                                 "where a node's depth is the longest path from a root to it).\n"
                                 "--baked also instantiates the graph and lists the values baked into\n"
                                 "the executable (grGraphExecGetBakedValues): kernel arguments, copy and\n"
                                 "memset addresses, host functions and data, against the loaded buffers.\n";

typedef struct counts {
    size_t by_type[grGraphNodeTypeCount];
    size_t nodes, edges, graphs;
} counts;

static bool count_graph(grGraph_t g, counts *c, unsigned depth)
{
    size_t n = 0, ne = 0;
    if (depth > 64 || grGraphGetNodes(g, NULL, &n) || grGraphGetEdges(g, NULL, NULL, NULL, &ne))
        return false;
    grGraphNode_t *nodes = calloc(n + 1, sizeof *nodes);
    if (!nodes || grGraphGetNodes(g, nodes, &n)) {
        free(nodes);
        return false;
    }
    c->nodes += n;
    c->edges += ne;
    c->graphs++;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        grGraphNodeType t;
        grGraph_t child;
        ok = grGraphNodeGetType(nodes[i], &t) == grSuccess && (unsigned)t < grGraphNodeTypeCount;
        if (ok)
            c->by_type[t]++;
        if (ok && t == grGraphNodeTypeGraph)
            ok = grGraphChildGraphNodeGetGraph(nodes[i], &child) == grSuccess &&
                 count_graph(child, c, depth + 1);
    }
    free(nodes);
    return ok;
}

/* Depth and width of the top level: levels assigned in a topological
 * order (Kahn's, over successor lists built from the dependencies). */
static void shape(const tool_graph *t, size_t *roots, size_t *sinks, size_t *depth, size_t *width)
{
    size_t n = t->n, ne = t->dep_begin[n];
    size_t *level = calloc(n + 1, sizeof *level), *per = calloc(n + 2, sizeof *per);
    size_t *sb = calloc(n + 2, sizeof *sb), *succ = calloc(ne + 1, sizeof *succ);
    size_t *left = calloc(n + 1, sizeof *left), *queue = calloc(n + 1, sizeof *queue);
    *roots = *sinks = *depth = *width = 0;
    if (level && per && sb && succ && left && queue) {
        for (size_t k = 0; k < ne; k++)
            sb[t->deps[k] + 2]++;
        for (size_t i = 0; i < n; i++)
            sb[i + 2] += sb[i + 1];
        for (size_t v = 0; v < n; v++)
            for (size_t k = t->dep_begin[v]; k < t->dep_begin[v + 1]; k++)
                succ[sb[t->deps[k] + 1]++] = v;
        size_t head = 0, tail = 0;
        for (size_t i = 0; i < n; i++) {
            left[i] = t->dep_begin[i + 1] - t->dep_begin[i];
            if (left[i] == 0) {
                queue[tail++] = i;
                level[i] = 1;
                (*roots)++;
            }
            *sinks += t->nsuccs[i] == 0;
        }
        while (head < tail) {
            size_t u = queue[head++];
            if (level[u] > *depth)
                *depth = level[u];
            if (++per[level[u]] > *width)
                *width = per[level[u]];
            for (size_t k = sb[u]; k < sb[u + 1]; k++) {
                size_t v = succ[k];
                if (level[u] + 1 > level[v])
                    level[v] = level[u] + 1;
                if (--left[v] == 0)
                    queue[tail++] = v;
            }
        }
    }
    free(level);
    free(per);
    free(sb);
    free(succ);
    free(left);
    free(queue);
}

static const char *baked_field(grBakedField f)
{
    switch (f) {
    case grBakedKernelArg:
        return "kernel_arg";
    case grBakedCopyDst:
        return "copy_dst";
    case grBakedCopySrc:
        return "copy_src";
    case grBakedMemsetDst:
        return "memset_dst";
    case grBakedHostFn:
        return "host_fn";
    case grBakedHostUserData:
        return "host_data";
    case grBakedMemOpAddress:
        return "memop_address";
    }
    return "unknown";
}

static const char *baked_kind(grBakedKind k)
{
    switch (k) {
    case grBakedPlain:
        return "plain";
    case grBakedAllocation:
        return "allocation";
    case grBakedFreedAllocation:
        return "freed_allocation";
    }
    return "unknown";
}

/* The values baked into an executable of g (grGraphExecGetBakedValues):
 * as the library prints them, or as a JSON member. */
static bool print_baked(grGraph_t g, const tool_graph *t, bool json)
{
    grGraphExec_t e;
    size_t n = 0;
    grBakedValue *v = NULL;
    bool ok = grGraphInstantiate(&e, g, 0) == grSuccess;
    if (!ok) {
        fprintf(stderr, "graphrt: %s\n", grGetLastErrorDetail());
        return false;
    }
    if (!json) {
        printf("baked values\n");
        fflush(stdout);
        ok = grGraphExecPrintBakedValues(e, stdout) == grSuccess;
    } else {
        ok = grGraphExecGetBakedValues(e, NULL, &n) == grSuccess && (v = calloc(n + 1, sizeof *v)) != NULL &&
             grGraphExecGetBakedValues(e, v, &n) == grSuccess;
        printf(", \"baked\": [");
        for (size_t i = 0; ok && i < n; i++) {
            size_t top = tool_node_index(t, v[i].graphNode);
            printf("%s{\"node\": %u, \"top_node\": ", i ? ", " : "", v[i].node);
            if (top == (size_t)-1)
                printf("null");
            else
                printf("\"n%zu\"", top);
            printf(", \"type\": \"%s\", \"kernel\": ", grGraphNodeTypeWord_(v[i].nodeType));
            if (v[i].kernel)
                tool_json_str(stdout, v[i].kernel);
            else
                printf("null");
            printf(", \"field\": \"%s\", \"param\": %d, \"offset\": %u, \"size\": %u, \"kind\": \"%s\", "
                   "\"alloc_size\": %zu, \"alloc_offset\": %zu, \"extent\": %zu}",
                   baked_field(v[i].field), v[i].param, v[i].offset, v[i].size, baked_kind(v[i].kind),
                   v[i].allocSize, v[i].allocOffset, v[i].extent);
        }
        printf("]");
        free(v);
    }
    if (!ok)
        fprintf(stderr, "graphrt: %s\n", grGetLastErrorDetail());
    grGraphExecDestroy(e);
    return ok;
}

static int cmd_info(int argc, char **argv)
{
    const char *path = NULL;
    bool json = false, baked = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0) {
            fputs(usage_info, stdout);
            return TOOL_OK;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--baked") == 0) {
            baked = true;
        } else if (argv[i][0] != '-' && !path) {
            path = argv[i];
        } else {
            tool_error("info", "unexpected argument '%s'", argv[i]);
            fputs(usage_info, stderr);
            return TOOL_USAGE;
        }
    }
    if (!path) {
        fputs(usage_info, stderr);
        return TOOL_USAGE;
    }
    grGraph_t g;
    if (!tool_load(path, &g, json))
        return TOOL_FAIL;
    counts c;
    tool_graph t;
    memset(&c, 0, sizeof c);
    if (!count_graph(g, &c, 0) || !tool_graph_read(&t, g)) {
        tool_error("info", "out of memory reading %s", path);
        grGraphDestroy(g);
        return TOOL_FAIL;
    }
    size_t roots, sinks, depth, width, top_edges = t.dep_begin[t.n];
    int rc = TOOL_OK;
    shape(&t, &roots, &sinks, &depth, &width);
    if (json) {
        printf("{\"file\": ");
        tool_json_str(stdout, path);
        printf(", \"nodes\": %zu, \"top_nodes\": %zu, \"types\": {", c.nodes, t.n);
        bool first = true;
        for (int k = 0; k < grGraphNodeTypeCount; k++)
            if (c.by_type[k]) {
                printf("%s\"%s\": %zu", first ? "" : ", ", grGraphNodeTypeWord_((grGraphNodeType)k),
                       c.by_type[k]);
                first = false;
            }
        printf(
            "}, \"edges\": %zu, \"top_edges\": %zu, \"child_graphs\": %zu, \"roots\": %zu, \"sinks\": %zu, "
            "\"depth\": %zu, \"width\": %zu",
            c.edges, top_edges, c.graphs - 1, roots, sinks, depth, width);
        if (baked && !print_baked(g, &t, true))
            rc = TOOL_FAIL;
        printf("}\n");
    } else {
        printf("file          %s\n", path);
        printf("nodes         %zu (top level %zu, in %zu child graphs %zu)\n", c.nodes, t.n, c.graphs - 1,
               c.nodes - t.n);
        for (int k = 0; k < grGraphNodeTypeCount; k++)
            if (c.by_type[k])
                printf("  %-11s %zu\n", grGraphNodeTypeWord_((grGraphNodeType)k), c.by_type[k]);
        printf("edges         %zu (top level %zu)\n", c.edges, top_edges);
        printf("roots         %zu\n", roots);
        printf("sinks         %zu\n", sinks);
        printf("depth         %zu (nodes on the longest path of the top level)\n", depth);
        printf("width         %zu (most top-level nodes at one depth)\n", width);
        if (baked && !print_baked(g, &t, false))
            rc = TOOL_FAIL;
    }
    tool_graph_free(&t);
    grGraphDestroy(g);
    return rc;
}

/* ------------------------------------------------------------------ dot */

static const char usage_dot[] = "usage: graphrt dot [--verbose] [-o OUT] FILE\n"
                                "\n"
                                "Writes the graph as Graphviz DOT to OUT (default: standard output),\n"
                                "exactly as grGraphDebugDotPrint writes it (--verbose:\n"
                                "grGraphDebugDotFlagsVerbose). Render with: dot -Tsvg OUT -o graph.svg\n";

/* grGraphDebugDotPrint writes to a path, and reopening standard output by
 * a path (/dev/stdout) would truncate a file the shell opened for '>>',
 * or rewind one it opened for '>' after earlier output: without -o, the
 * DOT goes to a temporary file, then onto the stdout stream itself. */
static bool dot_to_stdout(grGraph_t g, unsigned flags)
{
    const char *dir = getenv("TMPDIR");
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/graphrt-dot-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmp);
    if (fd < 0) {
        tool_error("dot", "cannot make a temporary file in %s", dir && *dir ? dir : "/tmp");
        return false;
    }
    bool ok = grGraphDebugDotPrint(g, tmp, flags) == grSuccess;
    if (!ok)
        fprintf(stderr, "graphrt: %s\n", grGetLastErrorDetail());
    FILE *f = ok ? fdopen(fd, "rb") : NULL;
    if (f) {
        char buf[8192];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0)
            if (fwrite(buf, 1, n, stdout) != n)
                break;
        ok = !ferror(f) && fflush(stdout) == 0 && !ferror(stdout);
        if (!ok)
            tool_error("dot", "writing to standard output failed");
        fclose(f);
    } else {
        if (ok)
            tool_error("dot", "cannot read back %s", tmp);
        ok = false;
        close(fd);
    }
    unlink(tmp);
    return ok;
}

static int cmd_dot(int argc, char **argv)
{
    const char *path = NULL, *out = NULL;
    unsigned flags = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0) {
            fputs(usage_dot, stdout);
            return TOOL_OK;
        } else if (strcmp(argv[i], "--verbose") == 0) {
            flags |= grGraphDebugDotFlagsVerbose;
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (argv[i][0] != '-' && !path) {
            path = argv[i];
        } else {
            tool_error("dot", "unexpected argument '%s'", argv[i]);
            fputs(usage_dot, stderr);
            return TOOL_USAGE;
        }
    }
    if (!path) {
        fputs(usage_dot, stderr);
        return TOOL_USAGE;
    }
    grGraph_t g;
    if (!tool_load(path, &g, false))
        return TOOL_FAIL;
    int rc = TOOL_OK;
    if (!out) {
        if (!dot_to_stdout(g, flags))
            rc = TOOL_FAIL;
    } else if (grGraphDebugDotPrint(g, out, flags) != grSuccess) {
        fprintf(stderr, "graphrt: %s\n", grGetLastErrorDetail());
        rc = TOOL_FAIL;
    }
    grGraphDestroy(g);
    return rc;
}

/* ----------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_main, stderr);
        return TOOL_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage_main, stdout);
        return TOOL_OK;
    }
    if (strcmp(cmd, "info") == 0)
        return cmd_info(argc - 1, argv + 1);
    if (strcmp(cmd, "dot") == 0)
        return cmd_dot(argc - 1, argv + 1);
    if (strcmp(cmd, "replay") == 0)
        return tool_replay(argc - 1, argv + 1);
    if (strcmp(cmd, "diff") == 0)
        return tool_diff(argc - 1, argv + 1);
    if (strcmp(cmd, "analyze") == 0)
        return tool_analyze(argc - 1, argv + 1);
    if (strcmp(cmd, "record") == 0)
        return tool_record(argc - 1, argv + 1);
    tool_error(cmd, "no such command");
    fputs(usage_main, stderr);
    return TOOL_USAGE;
}
