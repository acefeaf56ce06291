/*
 * record_report.c - the conversion of 'graphrt record': from the callback
 * stream of each process (callbacks-PID.log) to one graph file per
 * distinct walk of each recorded graph, a session.json for scripts and a
 * report.txt for people (docs/record.md says what each section means).
 *
 * The report reads the log in order, which is the order of the events:
 * an executable's graph at a launch is the walk made when it was
 * instantiated or last updated with success before that launch; an
 * allocation is freed at a launch if its last event before the launch is
 * a free. Findings that rest on graphrt's own code (the analysis, update
 * pairing) load the written files, so they are what 'graphrt analyze' and
 * 'graphrt diff' print for the same files.
 */
#define _POSIX_C_SOURCE 200809L
#include "record.h"
#include "tool.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct conv {
    rec_log *log;
    const char *dir, *prefix;
    const rec_options *opt;
    FILE *rep, *js;
    bool first_graph;
    char **texts; /* per walk, its file's text (to share files between equal walks) */
} conv;

static const char *cuda_error_name(long rc)
{
    switch (rc) {
    case 0:
        return "CUDA_SUCCESS";
    case 1:
        return "CUDA_ERROR_INVALID_VALUE";
    case 400:
        return "CUDA_ERROR_INVALID_HANDLE";
    case 401:
        return "CUDA_ERROR_ILLEGAL_STATE";
    case 900:
        return "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED";
    case 901:
        return "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED";
    case 902:
        return "CUDA_ERROR_STREAM_CAPTURE_MERGE";
    case 903:
        return "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED";
    case 904:
        return "CUDA_ERROR_STREAM_CAPTURE_UNJOINED";
    case 905:
        return "CUDA_ERROR_STREAM_CAPTURE_ISOLATION";
    case 906:
        return "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT";
    case 907:
        return "CUDA_ERROR_CAPTURED_EVENT";
    case 908:
        return "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD";
    case 910:
        return "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE";
    default:
        return "an error";
    }
}

static const char *update_result_name(long r)
{
    static const char *const names[] = {"CU_GRAPH_EXEC_UPDATE_SUCCESS",
                                        "CU_GRAPH_EXEC_UPDATE_ERROR",
                                        "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED",
                                        "CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED",
                                        "CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED",
                                        "CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED",
                                        "CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED",
                                        "CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE",
                                        "CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED"};
    return r >= 0 && r < (long)(sizeof names / sizeof *names) ? names[r] : "unknown";
}

static long getl(const rec_line *l, const char *k)
{
    const char *v = rec_get(l, k);
    return v ? strtol(v, NULL, 0) : 0;
}

static const char *gets_(const rec_line *l, const char *k)
{
    const char *v = rec_get(l, k);
    return v ? v : "?";
}

/* A name as the log quotes it ("a\x20b"), unquoted into out. */
static const char *unquote(const char *q, char *out, size_t cap)
{
    size_t n = 0;
    if (*q == '"')
        q++;
    for (; *q && *q != '"' && n + 1 < cap; q++) {
        if (*q == '\\' && q[1] == 'x' && q[2] && q[3]) {
            char hex[3] = {q[2], q[3], 0};
            out[n++] = (char)strtol(hex, NULL, 16);
            q += 3;
        } else if (*q == '\\' && q[1]) {
            out[n++] = *++q;
        } else {
            out[n++] = *q;
        }
    }
    out[n] = '\0';
    return out;
}

static bool is(const rec_line *l, const char *kind)
{
    return strcmp(l->kind, kind) == 0;
}

/* ------------------------------------------------------------- files */

static bool write_files(conv *c)
{
    rec_log *log = c->log;
    c->texts = rec_alloc(&log->arena, (log->nwalks + 1) * sizeof *c->texts);
    if (!c->texts)
        return false;
    for (size_t i = 0; i < log->nwalks; i++) {
        rec_walk *wk = &log->walks[i];
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        if (!m)
            return false;
        bool ok = rec_write_graph(m, wk);
        fclose(m);
        if (!ok) {
            free(text);
            wk->problem = "could not be written (out of memory)";
            continue;
        }
        /* The text less its comment line naming the walk. */
        const char *body = strchr(text, '\n');
        body = body ? strchr(body + 1, '\n') : NULL;
        body = body ? body : text;
        size_t version = 0;
        for (size_t j = 0; j < i; j++)
            if (log->walks[j].g == wk->g && log->walks[j].file) {
                if (log->walks[j].version > version)
                    version = log->walks[j].version;
                if (c->texts[j] && strcmp(c->texts[j], body) == 0) {
                    wk->file = log->walks[j].file;
                    wk->version = log->walks[j].version;
                    wk->problem = log->walks[j].problem;
                }
            }
        if (wk->file) {
            free(text);
            continue;
        }
        c->texts[i] = rec_strdup(&log->arena, body, strlen(body));
        wk->version = version + 1;
        char name[512], path[4096];
        if (wk->version == 1)
            snprintf(name, sizeof name, "%sgraph-%u.graph", c->prefix, wk->g);
        else
            snprintf(name, sizeof name, "%sgraph-%u-v%zu.graph", c->prefix, wk->g, wk->version);
        snprintf(path, sizeof path, "%s/%s", c->dir, name);
        wk->file = rec_strdup(&log->arena, name, strlen(name));
        FILE *f = fopen(path, "w");
        if (!f || fwrite(text, 1, len, f) != len) {
            wk->problem = "could not be written";
        }
        if (f)
            fclose(f);
        free(text);
        grGraph_t g;
        if (!wk->problem) {
            if (grGraphLoadFromFile(&g, path, grGraphLoadStandIns) == grSuccess) {
                grGraphDestroy(g);
            } else {
                const char *d = grGetLastErrorDetail();
                wk->problem = rec_strdup(&log->arena, d, strlen(d));
            }
        }
    }
    return true;
}

static void path_of(const conv *c, const char *file, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", c->dir, file);
}

/* ---------------------------------------------------------- lookups */

static const rec_line *find_line(const rec_log *log, const char *kind, const char *key, unsigned long long v)
{
    for (size_t i = 0; i < log->nlines; i++)
        if (is(&log->lines[i], kind) && rec_get(&log->lines[i], key) && rec_getu(&log->lines[i], key) == v)
            return &log->lines[i];
    return NULL;
}

/* The last walk of graph g. */
static const rec_walk *last_walk(const rec_log *log, unsigned g)
{
    const rec_walk *w = NULL;
    for (size_t i = 0; i < log->nwalks; i++)
        if (log->walks[i].g == g)
            w = &log->walks[i];
    return w;
}

/* Whether the update that queued walk wk succeeded. */
static bool update_ok(const rec_log *log, const rec_walk *wk)
{
    const rec_line *u = NULL;
    for (size_t i = 0; i < log->nlines && log->lines[i].no < wk->queued_line; i++)
        if (is(&log->lines[i], "update") && rec_getu(&log->lines[i], "x") == wk->x)
            u = &log->lines[i];
    return u && getl(u, "rc") == 0;
}

/* Executable x's graph as of log line 'at': its instantiation's walk or
 * that of its last successful update. */
static const rec_walk *exec_walk(const rec_log *log, unsigned x, size_t at)
{
    const rec_walk *cur = NULL;
    for (size_t i = 0; i < log->nwalks; i++) {
        const rec_walk *wk = &log->walks[i];
        if (wk->x != x || !wk->queued_line || wk->queued_line > at)
            continue;
        if (strcmp(wk->why, "instantiate") == 0 || (strcmp(wk->why, "update") == 0 && update_ok(log, wk)))
            if (!cur || wk->queued_line > cur->queued_line)
                cur = wk;
    }
    return cur;
}

/* The node-create line of CUDA node id. */
static const rec_line *node_origin(const rec_log *log, unsigned long long id)
{
    return find_line(log, "node-create", "n", id);
}

/* ------------------------------------------------------------ graphs */

typedef struct tcount {
    const char *type;
    size_t n;
} tcount;

static void count_types(const rec_graph *g, tcount *tc, size_t *ntc, size_t *edges)
{
    for (size_t i = 0; i < g->n; i++) {
        const char *t = g->v[i].f.kind;
        size_t k = 0;
        while (k < *ntc && strcmp(tc[k].type, t) != 0)
            k++;
        if (k == *ntc && *ntc < 32)
            tc[(*ntc)++] = (tcount){t, 0};
        if (k < *ntc)
            tc[k].n++;
        *edges += g->v[i].ndeps;
    }
}

/* The event that made the cross-stream edge into node 'to' from the
 * stream of 'from', when both were captured: the last wait of to's stream
 * before to was created, on an event last recorded on from's stream. */
static void explain_link(conv *c, const rec_walk *wk, size_t from, size_t to)
{
    const rec_log *log = c->log;
    const rec_line *a = node_origin(log, wk->top.v[from].id), *b = node_origin(log, wk->top.v[to].id);
    if (!a || !b || !rec_get(a, "s") || !rec_get(b, "s")) {
        fprintf(c->rep, "    (the log does not say which streams made n%zu and n%zu)\n", from, to);
        return;
    }
    const char *sa = rec_get(a, "s"), *sb = rec_get(b, "s");
    fprintf(c->rep, "    n%zu was captured on stream %s (thread %s, %s), n%zu on stream %s (thread %s, %s)\n",
            from, sa, gets_(a, "t"), gets_(a, "call"), to, sb, gets_(b, "t"), gets_(b, "call"));
    if (strcmp(sa, sb) == 0)
        return;
    for (size_t i = 0; i < log->nlines && log->lines[i].no < b->no; i++)
        ;
    const rec_line *wait = NULL, *rec = NULL;
    for (size_t i = 0; i < log->nlines && log->lines[i].no < b->no; i++) {
        const rec_line *l = &log->lines[i];
        if (is(l, "event-wait") && strcmp(gets_(l, "s"), sb) == 0)
            wait = l;
    }
    for (size_t i = 0; wait && i < log->nlines && log->lines[i].no < wait->no; i++) {
        const rec_line *l = &log->lines[i];
        if (is(l, "event-record") && strcmp(gets_(l, "e"), gets_(wait, "e")) == 0)
            rec = l;
    }
    if (!wait || !rec) {
        fprintf(c->rep, "    no event record/wait pair between the two streams precedes n%zu\n", to);
        return;
    }
    fprintf(c->rep,
            "    the edge n%zu -> n%zu was made by event %s: recorded on stream %s (%s, thread %s, log line "
            "%zu),\n"
            "    then waited on by stream %s (%s, thread %s, log line %zu)\n",
            from, to, gets_(rec, "e"), gets_(rec, "s"), gets_(rec, "call"), gets_(rec, "t"), rec->no,
            gets_(wait, "s"), gets_(wait, "call"), gets_(wait, "t"), wait->no);
}

static void analyse(conv *c, const rec_walk *wk)
{
    char path[4096];
    path_of(c, wk->file, path, sizeof path);
    grGraph_t g;
    if (grGraphLoadFromFile(&g, path, grGraphLoadStandIns) != grSuccess) {
        fprintf(c->rep, "  analysis: the file does not load: %s\n", grGetLastErrorDetail());
        return;
    }
    grGraphAnalysis r;
    if (grGraphAnalyze(g, &r, 0) != grSuccess) {
        fprintf(c->rep, "  analysis: %s\n", grGetLastErrorDetail());
        grGraphDestroy(g);
        return;
    }
    fprintf(c->rep, "  analysis (as 'graphrt analyze %s'; node #I is nI of the file):\n", wk->file);
    /* The library's report, indented, less the graph's address (which
     * means nothing outside this conversion). */
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m) {
        grGraphAnalysisPrint(&r, m, 0);
        fclose(m);
        for (char *line = text; line && *line;) {
            char *nl = strchr(line, '\n');
            if (nl)
                *nl = '\0';
            const char *shown = line;
            if (strncmp(line, "graph 0x", 8) == 0 && strstr(line, ": "))
                shown = strstr(line, ": ") + 2;
            fprintf(c->rep, "    %s\n", shown);
            line = nl ? nl + 1 : NULL;
        }
        free(text);
    }
    tool_graph t;
    if (r.numSerialisedJoins && tool_graph_read(&t, g)) {
        for (size_t i = 0; i < r.numSerialisedJoins; i++) {
            size_t from = tool_node_index(&t, r.serialisedJoins[i].link.from);
            size_t to = tool_node_index(&t, r.serialisedJoins[i].link.to);
            fprintf(c->rep, "  serialised fork-join %zu: the branches are chained by n%zu -> n%zu\n", i + 1,
                    from, to);
            if (from < wk->top.n && to < wk->top.n)
                explain_link(c, wk, from, to);
        }
        tool_graph_free(&t);
    }
    fprintf(
        c->js,
        ", \"critical_path\": %zu, \"max_width\": %zu, \"redundant_edges\": %zu, \"serialised_joins\": %zu",
        r.numCriticalPath, r.maxWidth, r.numRedundantEdges, r.numSerialisedJoins);
    grGraphAnalysisDestroy(&r);
    grGraphDestroy(g);
}

static void origin(conv *c, unsigned g)
{
    const rec_log *log = c->log;
    const rec_line *cr = find_line(log, "graph-create", "g", g);
    const rec_line *cl = find_line(log, "graph-clone", "g", g);
    const rec_line *end = find_line(log, "capture-end", "g", g);
    if (end) {
        const rec_line *beg = NULL;
        for (size_t i = 0; i < log->nlines && log->lines[i].no < end->no; i++)
            if (is(&log->lines[i], "capture-begin") &&
                strcmp(gets_(&log->lines[i], "s"), gets_(end, "s")) == 0)
                beg = &log->lines[i];
        fprintf(c->rep, "  origin: captured from stream %s", gets_(end, "s"));
        if (beg)
            fprintf(c->rep, " (%s, mode %s, thread %s, log line %zu)", gets_(beg, "call"), gets_(beg, "mode"),
                    gets_(beg, "t"), beg->no);
        fprintf(c->rep, ", ended by %s on thread %s\n", gets_(end, "call"), gets_(end, "t"));
        fprintf(c->js, ", \"origin\": \"capture\", \"stream\": \"%s\", \"mode\": \"%s\"", gets_(end, "s"),
                beg ? gets_(beg, "mode") : "?");
    } else if (cl) {
        fprintf(c->rep, "  origin: cloned from graph %s (%s)\n", gets_(cl, "from"), gets_(cl, "call"));
        fprintf(c->js, ", \"origin\": \"clone\", \"from\": %s", gets_(cl, "from"));
    } else if (cr) {
        /* cuGraphCreate is not subscribed to (it would cost a callback per
         * call for nothing else): its call is often '-'. */
        const char *call = gets_(cr, "call");
        fprintf(c->rep, "  origin: built with the graph API on thread %s%s%s\n", gets_(cr, "t"),
                strcmp(call, "-") != 0 ? ", by " : "", strcmp(call, "-") != 0 ? call : "");
        fprintf(c->js, ", \"origin\": \"api\"");
    } else {
        fprintf(c->rep, "  origin: not in the log (created before the recorder started?)\n");
        fprintf(c->js, ", \"origin\": \"unknown\"");
    }
}

static void execs(conv *c, unsigned g)
{
    const rec_log *log = c->log;
    fprintf(c->js, ", \"execs\": [");
    bool first = true;
    for (size_t i = 0; i < log->nlines; i++) {
        const rec_line *e = &log->lines[i];
        if (!is(e, "exec-create") || rec_getu(e, "g") != g)
            continue;
        unsigned long long x = rec_getu(e, "x"), total = 0;
        fprintf(c->rep, "  executable %llu: instantiated by %s on thread %s (log line %zu)\n", x,
                gets_(e, "call"), gets_(e, "t"), e->no);
        for (size_t j = 0; j < log->nlines; j++) {
            const rec_line *l = &log->lines[j];
            if (is(l, "launch") && rec_getu(l, "x") == x)
                total += rec_getu(l, "count");
        }
        /* Per stream. */
        for (size_t j = 0; j < log->nlines; j++) {
            const rec_line *l = &log->lines[j];
            if (!is(l, "launch") || rec_getu(l, "x") != x)
                continue;
            bool seen = false;
            for (size_t k = 0; k < j && !seen; k++)
                seen = is(&log->lines[k], "launch") && rec_getu(&log->lines[k], "x") == x &&
                       strcmp(gets_(&log->lines[k], "s"), gets_(l, "s")) == 0;
            if (seen)
                continue;
            unsigned long long n = 0;
            for (size_t k = j; k < log->nlines; k++)
                if (is(&log->lines[k], "launch") && rec_getu(&log->lines[k], "x") == x &&
                    strcmp(gets_(&log->lines[k], "s"), gets_(l, "s")) == 0)
                    n += rec_getu(&log->lines[k], "count");
            fprintf(c->rep, "    launches on stream %s: %llu\n", gets_(l, "s"), n);
        }
        fprintf(c->rep, "    launches in all: %llu\n", total);
        const rec_line *inst = find_line(log, "instantiate", "x", x);
        if (inst && rec_getu(inst, "flags"))
            fprintf(c->rep, "    instantiation flags: %llu\n", rec_getu(inst, "flags"));
        size_t sets = 0, failed = 0;
        for (size_t j = 0; j < log->nlines; j++) {
            const rec_line *l = &log->lines[j];
            if (!is(l, "set") || rec_getu(l, "x") != x)
                continue;
            sets++;
            if (getl(l, "rc") != 0) {
                failed++;
                fprintf(c->rep, "    %s on node %s returned %s (%ld), log line %zu\n", gets_(l, "call"),
                        gets_(l, "n"), cuda_error_name(getl(l, "rc")), getl(l, "rc"), l->no);
            }
        }
        if (sets)
            fprintf(c->rep, "    exec setters: %zu (%zu failed)\n", sets, failed);
        fprintf(c->js, "%s{\"id\": %llu, \"launches\": %llu}", first ? "" : ", ", x, total);
        first = false;
    }
    fprintf(c->js, "]");
}

static void timing(conv *c, const rec_walk *wk)
{
    const rec_log *log = c->log;
    bool any = false;
    for (size_t i = 0; i < log->nlines; i++) {
        const rec_line *l = &log->lines[i];
        size_t idx;
        if (!is(l, "time"))
            continue;
        const rec_node *n = rec_walk_node(wk, rec_getu(l, "n"), &idx);
        if (!n || n != &wk->top.v[idx])
            continue;
        if (!any)
            fprintf(c->rep, "  GPU time per node (CUPTI activity records, --timing):\n");
        any = true;
        unsigned long long cnt = rec_getu(l, "count");
        fprintf(c->rep, "    n%zu %-8s runs %llu  mean %.2f us  min %.2f us  max %.2f us\n", idx, n->f.kind,
                cnt, cnt ? (double)rec_getu(l, "total_ns") / (double)cnt / 1e3 : 0.0,
                (double)rec_getu(l, "min_ns") / 1e3, (double)rec_getu(l, "max_ns") / 1e3);
    }
}

static void report_graph(conv *c, unsigned g)
{
    const rec_log *log = c->log;
    const rec_walk *wk = last_walk(log, g);
    tcount tc[32];
    size_t ntc = 0, edges = 0, walks = 0, versions = 0;
    count_types(&wk->top, tc, &ntc, &edges);
    for (size_t i = 0; i < log->nwalks; i++)
        if (log->walks[i].g == g) {
            walks++;
            if (log->walks[i].version > versions)
                versions = log->walks[i].version;
        }
    fprintf(c->rep, "\ngraph %u: %s\n", g, wk->file ? wk->file : "(no file)");
    fprintf(c->js, "%s\n  {\"id\": %u, \"file\": ", c->first_graph ? "" : ",", g);
    c->first_graph = false;
    tool_json_str(c->js, wk->file ? wk->file : "");
    origin(c, g);
    fprintf(c->rep, "  walks: %zu (", walks);
    for (size_t i = 0, k = 0; i < log->nwalks; i++)
        if (log->walks[i].g == g)
            fprintf(c->rep, "%s%s%s", k++ ? ", " : "", log->walks[i].why,
                    log->walks[i].version > 1 ? "*" : "");
    fprintf(c->rep, "); distinct contents: %zu%s\n", versions,
            versions > 1 ? " (* a later version, in -vN files)" : "");
    fprintf(c->rep, "  nodes: %zu (", wk->top.n);
    fprintf(c->js, ", \"nodes\": %zu, \"edges\": %zu, \"types\": {", wk->top.n, edges);
    for (size_t i = 0; i < ntc; i++) {
        fprintf(c->rep, "%s%s %zu", i ? ", " : "", tc[i].type, tc[i].n);
        fprintf(c->js, "%s\"%s\": %zu", i ? ", " : "", tc[i].type, tc[i].n);
    }
    fprintf(c->rep, "), edges: %zu\n", edges);
    /* Which streams and threads captured the nodes (node-create lines). */
    const char *streams[16];
    size_t per[16], ns = 0, unknown = 0;
    for (size_t i = 0; i < wk->top.n; i++) {
        const rec_line *o = node_origin(log, wk->top.v[i].id);
        const char *st = o ? rec_get(o, "s") : NULL;
        if (!st) {
            unknown++;
            continue;
        }
        size_t k = 0;
        while (k < ns && strcmp(streams[k], st) != 0)
            k++;
        if (k == ns && ns < 16) {
            streams[ns] = st;
            per[ns++] = 0;
        }
        if (k < ns)
            per[k]++;
    }
    if (ns) {
        fprintf(c->rep, "  captured from %zu stream%s:", ns, ns == 1 ? "" : "s");
        for (size_t k = 0; k < ns; k++)
            fprintf(c->rep, " %s (%zu node%s)", streams[k], per[k], per[k] == 1 ? "" : "s");
        if (unknown)
            fprintf(c->rep, "; %zu node%s without a stream", unknown, unknown == 1 ? "" : "s");
        fprintf(c->rep, "\n");
    }
    fprintf(c->js, "}, \"kernels\": [");
    size_t nk = 0;
    for (size_t i = 0; i < wk->top.n; i++)
        if (strcmp(wk->top.v[i].f.kind, "kernel") == 0 && wk->top.v[i].f.ntok) {
            char name[1024];
            fprintf(c->js, "%s", nk++ ? ", " : "");
            tool_json_str(c->js, unquote(wk->top.v[i].f.tok[0], name, sizeof name));
        }
    fprintf(c->js, "]");
    if (wk->problem) {
        fprintf(c->rep, "  problem: the file %s\n", wk->problem);
        fprintf(c->js, ", \"problem\": ");
        tool_json_str(c->js, wk->problem);
    } else {
        analyse(c, wk);
    }
    execs(c, g);
    timing(c, wk);
    fprintf(c->js, "}");
}

/* ----------------------------------------------------------- updates */

static void report_updates(conv *c)
{
    const rec_log *log = c->log;
    size_t n = 0, failed = 0;
    fprintf(c->js, "],\n \"updates\": [");
    for (size_t i = 0; i < log->nlines; i++) {
        const rec_line *u = &log->lines[i];
        if (!is(u, "update"))
            continue;
        unsigned x = (unsigned)rec_getu(u, "x");
        long rc = getl(u, "rc"), res = getl(u, "result");
        const rec_walk *old = exec_walk(log, x, u->no), *nw = NULL;
        for (size_t k = 0; k < log->nwalks && !nw; k++)
            if (log->walks[k].x == x && strcmp(log->walks[k].why, "update") == 0 &&
                log->walks[k].queued_line > u->no)
                nw = &log->walks[k];
        fprintf(c->js, "%s{\"exec\": %u, \"graph\": %llu, \"rc\": %ld, \"result\": \"%s\"", n++ ? ", " : "",
                x, rec_getu(u, "g"), rc, update_result_name(res));
        if (rc == 0) {
            fprintf(c->js, "}");
            continue;
        }
        failed++;
        if (failed == 1)
            fprintf(c->rep, "\nfailed exec updates\n");
        fprintf(c->rep,
                "\nupdate of executable %u from graph %llu (thread %s, log line %zu) failed: %s (%ld), %s\n",
                x, rec_getu(u, "g"), gets_(u, "t"), u->no, cuda_error_name(rc), rc, update_result_name(res));
        size_t idx;
        if (nw && rec_getu(u, "errnode") && rec_walk_node(nw, rec_getu(u, "errnode"), &idx))
            fprintf(c->rep, "  CUDA's error node: n%zu of %s\n", idx, nw->file ? nw->file : "?");
        if (nw && old && rec_getu(u, "errfrom") && rec_walk_node(old, rec_getu(u, "errfrom"), &idx))
            fprintf(c->rep, "  CUDA's error-from node: n%zu of %s\n", idx, old->file ? old->file : "?");
        if (!old || !nw || !old->file || !nw->file || old->problem || nw->problem) {
            fprintf(c->rep, "  (the log lacks a walk of %s, so the differences cannot be listed)\n",
                    !old ? "the executable's graph" : "the new graph");
            fprintf(c->js, "}");
            continue;
        }
        char pa[4096], pb[4096];
        path_of(c, old->file, pa, sizeof pa);
        path_of(c, nw->file, pb, sizeof pb);
        fprintf(c->rep, "  every difference (as 'graphrt diff %s %s'):\n", old->file, nw->file);
        fflush(c->rep);
        tool_diff_files(c->rep, pa, pb, false);
        fprintf(c->js, ", \"exec_graph\": ");
        tool_json_str(c->js, old->file);
        fprintf(c->js, ", \"new_graph\": ");
        tool_json_str(c->js, nw->file);
        fprintf(c->js, "}");
    }
    fprintf(c->js, "]");
    if (!failed)
        fprintf(c->rep, "\nfailed exec updates: none (%zu update%s)\n", n, n == 1 ? "" : "s");
}

/* ---------------------------------------------------------- captures */

static void report_captures(conv *c)
{
    const rec_log *log = c->log;
    size_t n = 0, failed = 0;
    fprintf(c->js, ",\n \"captures\": [");
    for (size_t i = 0; i < log->nlines; i++) {
        const rec_line *b = &log->lines[i];
        if (!is(b, "capture-begin") || getl(b, "rc") != 0)
            continue;
        const rec_line *e = NULL, *inval = NULL, *inval_rt = NULL, *rep = NULL, *rep_rt = NULL;
        size_t j = i + 1;
        for (; j < log->nlines && !e; j++) {
            const rec_line *l = &log->lines[j];
            if (is(l, "capture-end") && strcmp(gets_(l, "s"), gets_(b, "s")) == 0)
                e = l;
            else if (is(l, "capture-error")) {
                long rc = getl(l, "rc");
                if (rc != 901 && !inval)
                    inval = l;
                else if (rc != 901 && inval && !inval_rt && rec_get(l, "runtime") &&
                         strcmp(gets_(l, "t"), gets_(inval, "t")) == 0)
                    inval_rt = l;
                else if (rc == 901 && !rep && !rec_get(l, "runtime"))
                    rep = l;
                else if (rc == 901 && rep && !rep_rt && rec_get(l, "runtime") &&
                         strcmp(gets_(l, "t"), gets_(rep, "t")) == 0)
                    rep_rt = l;
            }
        }
        long rc = e ? getl(e, "rc") : -1;
        fprintf(c->js, "%s{\"stream\": \"%s\", \"mode\": \"%s\", \"thread\": %s, \"rc\": %ld",
                n++ ? ", " : "", gets_(b, "s"), gets_(b, "mode"), gets_(b, "t"), rc);
        if (rc == 0) {
            fprintf(c->js, ", \"graph\": %llu}", rec_getu(e, "g"));
            continue;
        }
        failed++;
        if (failed == 1)
            fprintf(c->rep, "\nfailed captures\n");
        fprintf(c->rep, "\ncapture on stream %s (%s, mode %s, thread %s, log line %zu) ", gets_(b, "s"),
                gets_(b, "call"), gets_(b, "mode"), gets_(b, "t"), b->no);
        if (e)
            fprintf(c->rep, "failed: %s returned %s (%ld) on thread %s (log line %zu)\n", gets_(e, "call"),
                    cuda_error_name(rc), rc, gets_(e, "t"), e->no);
        else
            fprintf(c->rep, "never ended\n");
        if (inval) {
            fprintf(c->rep, "  invalidated by: %s",
                    inval_rt ? gets_(inval_rt, "call") : gets_(inval, "call"));
            if (inval_rt)
                fprintf(c->rep, " (driver call %s)", gets_(inval, "call"));
            fprintf(c->rep, ", which returned %s (%ld), on thread %s (its capture mode %s), log line %zu%s\n",
                    cuda_error_name(getl(inval, "rc")), getl(inval, "rc"), gets_(inval, "t"),
                    gets_(inval, "mode"), inval->no,
                    strcmp(gets_(inval, "t"), gets_(b, "t")) != 0 ? " - another thread than the capture's"
                                                                  : "");
            fprintf(c->js, ", \"invalidated_by\": {\"call\": \"%s\", \"thread\": %s, \"rc\": %ld}",
                    inval_rt ? gets_(inval_rt, "call") : gets_(inval, "call"), gets_(inval, "t"),
                    getl(inval, "rc"));
        } else if (rc == 901) {
            /* Invalidated, and no call the recorder sees returned the error
             * that did it: the call was one it does not subscribe to
             * (docs/record.md). Name what the log has: the last node the
             * capture took before the first call it refused. */
            size_t until = rep ? rep->no : e ? e->no : (size_t)-1;
            const rec_line *last = NULL;
            unsigned long long cg = rec_get(b, "g") ? rec_getu(b, "g") : 0;
            for (size_t k = i + 1; cg && k < log->nlines && log->lines[k].no < until; k++)
                if (is(&log->lines[k], "node-create") && rec_getu(&log->lines[k], "g") == cg)
                    last = &log->lines[k];
            fprintf(c->rep,
                    "  invalidated by: a call the recorder does not subscribe to (no callback, so not "
                    "named; docs/record.md lists the calls it sees)");
            if (last)
                fprintf(c->rep, ", after the capture's last node, made by %s on thread %s (log line %zu)",
                        gets_(last, "call"), gets_(last, "t"), last->no);
            fprintf(c->rep, "%s\n", rep ? ", and before the first call it refused (below)" : "");
            fprintf(c->js, ", \"invalidated_by\": {\"call\": null, \"subscribed\": false}");
        } else {
            fprintf(c->rep,
                    "  no call returned a capture error before the end: the capture itself was refused\n");
        }
        if (rep && rep_rt)
            fprintf(
                c->rep,
                "  first reported to: %s (driver call %s) on thread %s (log line %zu), which returned %s\n",
                gets_(rep_rt, "call"), gets_(rep, "call"), gets_(rep, "t"), rep->no,
                cuda_error_name(getl(rep, "rc")));
        else if (rep)
            fprintf(c->rep, "  first reported to: %s on thread %s (log line %zu), which returned %s\n",
                    gets_(rep, "call"), gets_(rep, "t"), rep->no, cuda_error_name(getl(rep, "rc")));
        else if (e)
            fprintf(c->rep, "  first reported to: %s (log line %zu)\n", gets_(e, "call"), e->no);
        fprintf(c->js, "}");
    }
    fprintf(c->js, "]");
    if (!failed)
        fprintf(c->rep, "\nfailed captures: none (%zu capture%s)\n", n, n == 1 ? "" : "s");
}

/* ------------------------------------------------------------- stale */

typedef struct aref {
    size_t node;
    const char *what;
    size_t arg;
    uint64_t addr;
} aref;

static bool ref_addr(const char *tok, uint64_t *addr)
{
    if (strncmp(tok, "p:", 2) != 0)
        return false;
    const char *c = strchr(tok + 2, ':');
    if (!c)
        return false;
    *addr = strtoull(c + 1, NULL, 0);
    return true;
}

/* The addresses walk wk's top-level nodes use: kernel arguments, copy and
 * memset ends. */
static size_t collect_refs(const rec_walk *wk, aref *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < wk->top.n; i++) {
        const rec_node *nd = &wk->top.v[i];
        const char *args = rec_get(&nd->f, "args");
        if (strcmp(nd->f.kind, "kernel") == 0 && args) {
            size_t a = 0;
            for (const char *p = args; p && *p; a++) {
                uint64_t v;
                if (ref_addr(p, &v) && n < cap)
                    out[n++] = (aref){i, "argument", a, v};
                p = strchr(p, ',');
                p = p ? p + 1 : NULL;
            }
        }
        static const char *const keys[] = {"dst", "src"};
        for (size_t k = 0; k < 2; k++) {
            const char *v = rec_get(&nd->f, keys[k]);
            uint64_t addr;
            if (v && ref_addr(v, &addr) && n < cap)
                out[n++] = (aref){i, keys[k], 0, addr};
        }
    }
    return n;
}

static void report_stale(conv *c)
{
    const rec_log *log = c->log;
    size_t found = 0;
    fprintf(c->js, ",\n \"stale\": [");
    fprintf(c->rep, "\nstale pointers (--stale)\n");
    typedef struct seen {
        unsigned x;
        size_t node, arg;
        const char *what;
    } seen;
    seen *done = rec_alloc(&c->log->arena, (log->nlines + 1) * sizeof *done);
    size_t ndone = 0;
    for (size_t i = 0; done && i < log->nlines; i++) {
        const rec_line *l = &log->lines[i];
        if (!is(l, "launch"))
            continue;
        unsigned x = (unsigned)rec_getu(l, "x");
        const rec_walk *wk = exec_walk(log, x, l->no);
        if (!wk)
            continue;
        aref refs[1024];
        size_t nr = collect_refs(wk, refs, 1024);
        for (size_t r = 0; r < nr; r++) {
            /* The allocation that held the address when the executable
             * got this graph (its walk was asked for), and whether it was
             * freed before this launch. */
            const rec_line *alloc = NULL, *freed = NULL, *again = NULL;
            size_t at = wk->queued_line ? wk->queued_line : wk->line;
            for (size_t j = i; j-- > 0 && !alloc;) {
                const rec_line *a = &log->lines[j];
                if (!is(a, "alloc") || a->no > at)
                    continue;
                uint64_t p = rec_getu(a, "p"), s = rec_getu(a, "size");
                if (refs[r].addr >= p && refs[r].addr < p + (s ? s : 1))
                    alloc = a;
            }
            if (!alloc)
                continue;
            uint64_t p = rec_getu(alloc, "p");
            size_t j = (size_t)(alloc - log->lines) + 1;
            for (; j < i && !freed; j++)
                if (is(&log->lines[j], "free") && rec_getu(&log->lines[j], "p") == p)
                    freed = &log->lines[j];
            if (!freed)
                continue;
            for (; j < i && !again; j++) {
                const rec_line *a = &log->lines[j];
                uint64_t q = rec_getu(a, "p"), s = rec_getu(a, "size");
                if (is(a, "alloc") && refs[r].addr >= q && refs[r].addr < q + (s ? s : 1))
                    again = a;
            }
            bool dup = false;
            for (size_t k = 0; k < ndone && !dup; k++)
                dup = done[k].x == x && done[k].node == refs[r].node && done[k].arg == refs[r].arg &&
                      done[k].what == refs[r].what;
            if (dup)
                continue;
            done[ndone++] = (seen){x, refs[r].node, refs[r].arg, refs[r].what};
            const rec_node *nd = &wk->top.v[refs[r].node];
            fprintf(c->rep, "stale: graph %u (%s) n%zu %s%s%s", wk->g, wk->file ? wk->file : "?",
                    refs[r].node, nd->f.kind, strcmp(nd->f.kind, "kernel") == 0 && nd->f.ntok ? " " : "",
                    strcmp(nd->f.kind, "kernel") == 0 && nd->f.ntok ? nd->f.tok[0] : "");
            if (strcmp(refs[r].what, "argument") == 0)
                fprintf(c->rep, " argument %zu", refs[r].arg);
            else
                fprintf(c->rep, " %s", refs[r].what);
            fprintf(
                c->rep,
                " = 0x%" PRIx64 "\n  points into the allocation 0x%" PRIx64
                " (%s, log line %zu), freed by %s on "
                "thread %s (log line %zu)\n  before executable %u was launched on stream %s (log line %zu)\n",
                refs[r].addr, p, gets_(alloc, "call"), alloc->no, gets_(freed, "call"), gets_(freed, "t"),
                freed->no, x, gets_(l, "s"), l->no);
            if (again)
                fprintf(c->rep,
                        "  the address lies in a later allocation (%s, log line %zu): the node uses memory "
                        "that is "
                        "no longer what it was given\n",
                        gets_(again, "call"), again->no);
            fprintf(
                c->js,
                "%s{\"graph\": %u, \"node\": %zu, \"what\": \"%s\", \"arg\": %zu, \"address\": \"0x%" PRIx64
                "\", \"freed_by\": \"%s\", \"free_line\": %zu, \"launch_line\": %zu}",
                found ? ", " : "", wk->g, refs[r].node, refs[r].what, refs[r].arg, refs[r].addr,
                gets_(freed, "call"), freed->no, l->no);
            found++;
        }
    }
    fprintf(c->js, "]");
    if (!found)
        fprintf(c->rep, "none: no launch used an address freed before it\n");
}

/* ------------------------------------------------------------- entry */

static int convert_log(const char *dir, const char *path, const char *prefix, const rec_options *opt,
                       FILE *rep, FILE *js, bool first)
{
    rec_log log;
    char err[1024];
    if (!rec_log_read(&log, path, err, sizeof err)) {
        fprintf(stderr, "graphrt record: %s\n", err);
        rec_log_free(&log);
        return 1;
    }
    conv c = {&log, dir, prefix, opt, rep, js, true, NULL};
    if (!write_files(&c)) {
        fprintf(stderr, "graphrt record: out of memory converting %s\n", path);
        rec_log_free(&log);
        return 1;
    }
    const rec_line *proc = log.nlines ? &log.lines[0] : NULL;
    fprintf(rep, "graphrt record report: %s\n", path);
    if (proc && is(proc, "process"))
        fprintf(rep, "process %s, %s\n", gets_(proc, "pid"), gets_(proc, "argv"));
    if (!log.ended)
        fprintf(rep,
                "note: the log has no 'end' line: the program did not exit through exit() (crash, kill or "
                "_exit), so the last launches and the GPU times may be missing\n");
    fprintf(js, "%s{\"log\": ", first ? "" : ",\n");
    tool_json_str(js, path);
    fprintf(js, ", \"pid\": %s, \"complete\": %s, \"graphs\": [", proc ? gets_(proc, "pid") : "0",
            log.ended ? "true" : "false");
    unsigned *gs = rec_alloc(&log.arena, (log.nwalks + 1) * sizeof *gs);
    size_t ng = 0;
    for (size_t i = 0; gs && i < log.nwalks; i++) {
        bool seen = false;
        for (size_t k = 0; k < ng && !seen; k++)
            seen = gs[k] == log.walks[i].g;
        if (!seen)
            gs[ng++] = log.walks[i].g;
    }
    fprintf(rep, "graphs recorded: %zu (walks: %zu)\n", ng, log.nwalks);
    for (size_t i = 0; i < ng; i++)
        report_graph(&c, gs[i]);
    size_t bad_inst = 0;
    for (size_t i = 0; i < log.nlines; i++)
        if (is(&log.lines[i], "instantiate") && getl(&log.lines[i], "rc") != 0) {
            if (!bad_inst++)
                fprintf(rep, "\nfailed instantiations\n");
            fprintf(rep, "  graph %s: %s returned %s (%ld) on thread %s, log line %zu\n",
                    gets_(&log.lines[i], "g"), gets_(&log.lines[i], "call"),
                    cuda_error_name(getl(&log.lines[i], "rc")), getl(&log.lines[i], "rc"),
                    gets_(&log.lines[i], "t"), log.lines[i].no);
        }
    report_updates(&c);
    report_captures(&c);
    if (opt->stale)
        report_stale(&c);
    fprintf(js, "}");
    rec_log_free(&log);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int rec_convert_dir(const char *dir, const rec_options *opt)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "graphrt record: cannot open '%s'\n", dir);
        return 1;
    }
    char **logs = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "callbacks-", 10) != 0 || len < 14 || strcmp(e->d_name + len - 4, ".log") != 0)
            continue;
        char **nl = realloc(logs, (n + 1) * sizeof *nl);
        if (!nl)
            break;
        logs = nl;
        logs[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n == 0) {
        fprintf(stderr, "graphrt record: no callbacks-*.log in '%s' (did the program initialise CUDA?)\n",
                dir);
        free(logs);
        return 1;
    }
    qsort(logs, n, sizeof *logs, by_name);
    char path[4096];
    snprintf(path, sizeof path, "%s/report.txt", dir);
    FILE *rep = fopen(path, "w");
    snprintf(path, sizeof path, "%s/session.json", dir);
    FILE *js = fopen(path, "w");
    int rc = 0;
    if (!rep || !js) {
        fprintf(stderr, "graphrt record: cannot write the report into '%s'\n", dir);
        rc = 1;
    }
    if (js)
        fprintf(js, "{\"format\": \"graphrt-record-session 1\", \"stale_checked\": %s, \"processes\": [\n",
                opt->stale ? "true" : "false");
    for (size_t i = 0; i < n && !rc; i++) {
        char prefix[64] = "";
        if (n > 1) {
            /* callbacks-PID.log: files of process PID start 'pPID-'. */
            snprintf(prefix, sizeof prefix, "p%.*s-", (int)(strlen(logs[i]) - 14), logs[i] + 10);
        }
        snprintf(path, sizeof path, "%s/%s", dir, logs[i]);
        if (i)
            fprintf(rep, "\n");
        rc = convert_log(dir, path, prefix, opt, rep, js, i == 0);
    }
    if (js)
        fprintf(js, "\n]}\n");
    if (rep)
        fclose(rep);
    if (js)
        fclose(js);
    for (size_t i = 0; i < n; i++)
        free(logs[i]);
    free(logs);
    if (!rc && !opt->quiet) {
        snprintf(path, sizeof path, "%s/report.txt", dir);
        FILE *f = fopen(path, "r");
        char buf[4096];
        size_t k;
        while (f && (k = fread(buf, 1, sizeof buf, f)) > 0)
            fwrite(buf, 1, k, stdout);
        if (f)
            fclose(f);
    }
    return rc;
}
