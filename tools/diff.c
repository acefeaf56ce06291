/*
 * diff.c - 'graphrt diff A B': the differences between two graph files,
 * with the top-level nodes paired as grGraphExecUpdate pairs them (CUDA's
 * rule: the sinks latest sink first, which in a loaded graph is the
 * reverse of creation order, then breadth first each pair's dependencies
 * in edge order, towards the roots), and the verdict of a real update: A is
 * instantiated and updated from B, so the answer is the library's own.
 *
 * Parameters are compared as the files write them (the node lines, a
 * kernel or host function named by its declared name, a child graph by
 * its block), so a difference reads as the file does. A collective
 * node's 'rank=' (the rank that saved it) is left out: the files of the
 * ranks of one job differ there by design, and comparing them is how a
 * mismatch between the ranks' collectives is found (docs/collectives.md).
 */
#define _POSIX_C_SOURCE 200809L
#include "tool.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char usage_diff[] = "usage: graphrt diff [--json] A B\n"
                                 "\n"
                                 "Pairs the top-level nodes of graph files A and B as grGraphExecUpdate\n"
                                 "does (sinks latest first, then each pair's dependencies in edge\n"
                                 "order), prints the topology, type and parameter differences, and whether\n"
                                 "an executable of A could be updated from B (it tries: the reason and\n"
                                 "node are the library's). Exit status: 0 the update would succeed, 1 it\n"
                                 "would fail (or a file cannot be read), 2 usage error.\n";

/* ------------------------------------------------------- node texts */

/* What the file says of each top-level node: its line without the name
 * and edges (ids of kernels and host functions replaced by their
 * declared names), and a child graph's block. */
typedef struct ftext {
    char **line, **body;
    size_t n;
} ftext;

typedef struct names {
    char **k, **h;
    size_t nk, nh;
} names;

static void push(char ***arr, size_t *n, char *s)
{
    char **na = realloc(*arr, (*n + 1) * sizeof *na);
    if (!na) {
        free(s);
        return;
    }
    *arr = na;
    (*arr)[(*n)++] = s;
}

/* The node line s (name dropped, edges dropped, ids named). */
static char *node_text(const char *s, const names *nm)
{
    size_t cap = strlen(s) + 1;
    for (size_t i = 0; i < nm->nk; i++)
        cap += strlen(nm->k[i]);
    for (size_t i = 0; i < nm->nh; i++)
        cap += strlen(nm->h[i]);
    char *out = malloc(cap), *w = out;
    if (!out)
        return NULL;
    int field = 0;
    for (const char *p = s; *p; field++) {
        while (*p == ' ')
            p++;
        const char *e = strchr(p, ' ');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        bool skip = field == 0 || (len == 1 && *p == '{') || strncmp(p, "after=", 6) == 0 ||
                    strncmp(p, "succ=", 5) == 0 || strncmp(p, "rank=", 5) == 0;
        if (!skip) {
            const char *sub = NULL;
            unsigned long long id;
            char tmp[32];
            if (field == 2 && len < sizeof tmp && (*p == 'k' || *p == 'h')) {
                memcpy(tmp, p + 1, len - 1);
                tmp[len - 1] = '\0';
                if (tool_parse_num(tmp, SIZE_MAX, &id))
                    sub = *p == 'k' ? (id < nm->nk ? nm->k[id] : NULL) : (id < nm->nh ? nm->h[id] : NULL);
            }
            if (w != out)
                *w++ = ' ';
            if (sub) {
                strcpy(w, sub);
                w += strlen(sub);
            } else {
                memcpy(w, p, len);
                w += len;
            }
        }
        p += len;
    }
    *w = '\0';
    return out;
}

static void read_texts(const char *path, ftext *t)
{
    names nm = {0};
    char *text = tool_read_file(path, NULL);
    memset(t, 0, sizeof *t);
    if (!text)
        return;
    int depth = 0;
    char *body = NULL;
    size_t blen = 0;
    for (char *l = text, *nl; l && *l; l = nl ? nl + 1 : NULL) {
        nl = strchr(l, '\n');
        if (nl)
            *nl = '\0';
        while (*l == ' ')
            l++;
        size_t len = strlen(l);
        bool opens = len >= 1 && l[len - 1] == '{';
        if (*l == '\0' || *l == '#')
            continue;
        if (depth == 0) {
            char *q = strchr(l, '"');
            if (strncmp(l, "kernel ", 7) == 0 && q)
                push(&nm.k, &nm.nk, strdup(q));
            else if (strncmp(l, "hostfn ", 7) == 0 && q)
                push(&nm.h, &nm.nh, strdup(q));
            depth += opens;
            continue;
        }
        if (strcmp(l, "}") == 0) {
            if (--depth == 1 && t->n) {
                free(t->body[t->n - 1]);
                t->body[t->n - 1] = body;
                body = NULL;
                blen = 0;
            }
            if (depth == 0)
                break;
            if (depth == 1)
                continue;
        }
        if (depth == 1) {
            push(&t->line, &t->n, node_text(l, &nm));
            size_t dummy = t->n - 1;
            push(&t->body, &dummy, NULL);
        } else {
            char *nb = realloc(body, blen + len + 2);
            if (nb) {
                body = nb;
                memcpy(body + blen, l, len);
                blen += len;
                body[blen++] = '\n';
                body[blen] = '\0';
            }
        }
        depth += opens;
    }
    free(body);
    for (size_t i = 0; i < nm.nk; i++)
        free(nm.k[i]);
    for (size_t i = 0; i < nm.nh; i++)
        free(nm.h[i]);
    free(nm.k);
    free(nm.h);
    free(text);
}

static void free_texts(ftext *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->line[i]);
        free(t->body[i]);
    }
    free(t->line);
    free(t->body);
}

/* ----------------------------------------------------------- findings */

typedef struct finding {
    const char *kind; /* "topology", "type", "parameters" */
    size_t a, b;      /* node indices, or SIZE_MAX */
    char *detail;
} finding;

typedef struct report {
    finding *f;
    size_t n;
} report;

__attribute__((format(printf, 5, 6))) static void note(report *r, const char *kind, size_t a, size_t b,
                                                       const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    finding *nf = realloc(r->f, (r->n + 1) * sizeof *nf);
    if (!nf)
        return;
    r->f = nf;
    r->f[r->n++] = (finding){kind, a, b, strdup(buf)};
}

/* The fields of two node texts that differ, as "key: A -> B; ...". */
static void field_changes(const char *x, const char *y, char *out, size_t cap)
{
    size_t w = 0;
    out[0] = '\0';
    char *a = strdup(x), *b = strdup(y);
    if (!a || !b) {
        free(a);
        free(b);
        return;
    }
    char *ta[64], *tb[64];
    size_t na = 0, nb = 0;
    for (char *s = strtok(a, " "); s && na < 64; s = strtok(NULL, " "))
        ta[na++] = s;
    for (char *s = strtok(b, " "); s && nb < 64; s = strtok(NULL, " "))
        tb[nb++] = s;
    for (size_t i = 0; i < na || i < nb; i++) {
        const char *u = i < na ? ta[i] : "(none)", *v = i < nb ? tb[i] : "(none)";
        if (strcmp(u, v) != 0 && w + 8 < cap)
            w += (size_t)snprintf(out + w, cap - w, "%s%s -> %s", w ? "; " : "", u, v);
        if (w >= cap)
            w = cap - 1;
    }
    free(a);
    free(b);
}

/* ------------------------------------------------------------ pairing */

static size_t nsinks(const tool_graph *t)
{
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++)
        k += t->nsuccs[i] == 0;
    return k;
}

/* CUDA's pairing, as exec/update.c: sinks latest sink first (a loaded
 * graph's sinks became sinks in creation order, so the last created
 * first), then breadth first each pair's dependencies in edge order.
 * pa[i] / pb[j]: the partner or SIZE_MAX. */
static void pair(const tool_graph *ta, const tool_graph *tb, size_t *pa, size_t *pb, report *r)
{
    size_t *queue = calloc(ta->n + 1, sizeof *queue), head = 0, tail = 0;
    for (size_t i = 0; i < ta->n; i++)
        pa[i] = SIZE_MAX;
    for (size_t j = 0; j < tb->n; j++)
        pb[j] = SIZE_MAX;
    if (!queue)
        return;
    size_t sa = nsinks(ta), sb = nsinks(tb);
    if (sa != sb)
        note(r, "topology", SIZE_MAX, SIZE_MAX, "A has %zu sink nodes, B has %zu", sa, sb);
    for (size_t i = ta->n, j = tb->n; i-- > 0;) {
        if (ta->nsuccs[i] != 0)
            continue;
        while (j > 0 && tb->nsuccs[j - 1] != 0)
            j--;
        if (j == 0)
            break;
        pa[i] = --j;
        pb[j] = i;
        queue[tail++] = i;
    }
    while (head < tail) {
        size_t i = queue[head++], j = pa[i];
        size_t da = ta->dep_begin[i + 1] - ta->dep_begin[i], db = tb->dep_begin[j + 1] - tb->dep_begin[j];
        if (da != db) {
            note(r, "topology", i, j, "n%zu of A has %zu dependencies, its partner n%zu of B has %zu", i, da,
                 j, db);
            continue;
        }
        for (size_t k = 0; k < da; k++) {
            size_t x = ta->deps[ta->dep_begin[i] + k], y = tb->deps[tb->dep_begin[j] + k];
            if (pa[x] == SIZE_MAX && pb[y] == SIZE_MAX) {
                pa[x] = y;
                pb[y] = x;
                queue[tail++] = x;
            } else if (pa[x] != y) {
                note(r, "topology", i, j,
                     "dependency %zu of n%zu (A) is n%zu, of its partner n%zu (B) is n%zu, which pairs with "
                     "another node",
                     k, i, x, j, y);
            }
        }
    }
    free(queue);
    for (size_t i = 0; i < ta->n; i++)
        if (pa[i] == SIZE_MAX)
            note(r, "topology", i, SIZE_MAX, "n%zu of A has no partner in B", i);
    for (size_t j = 0; j < tb->n; j++)
        if (pb[j] == SIZE_MAX)
            note(r, "topology", SIZE_MAX, j, "n%zu of B has no partner in A", j);
}

static const char *result_name(grGraphExecUpdateResult r)
{
    switch (r) {
    case grGraphExecUpdateSuccess:
        return "grGraphExecUpdateSuccess";
    case grGraphExecUpdateError:
        return "grGraphExecUpdateError";
    case grGraphExecUpdateErrorTopologyChanged:
        return "grGraphExecUpdateErrorTopologyChanged";
    case grGraphExecUpdateErrorNodeTypeChanged:
        return "grGraphExecUpdateErrorNodeTypeChanged";
    case grGraphExecUpdateErrorFunctionChanged:
        return "grGraphExecUpdateErrorFunctionChanged";
    case grGraphExecUpdateErrorParametersChanged:
        return "grGraphExecUpdateErrorParametersChanged";
    case grGraphExecUpdateErrorNotSupported:
        return "grGraphExecUpdateErrorNotSupported";
    case grGraphExecUpdateErrorUnsupportedFunctionChange:
        return "grGraphExecUpdateErrorUnsupportedFunctionChange";
    case grGraphExecUpdateErrorAttributesChanged:
        return "grGraphExecUpdateErrorAttributesChanged";
    }
    return "unknown";
}

static void put_node_json(FILE *out, size_t i)
{
    if (i == SIZE_MAX)
        fprintf(out, "null");
    else
        fprintf(out, "\"n%zu\"", i);
}

int tool_diff(int argc, char **argv)
{
    const char *pa_path = NULL, *pb_path = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0) {
            fputs(usage_diff, stdout);
            return TOOL_OK;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (argv[i][0] != '-' && !pa_path) {
            pa_path = argv[i];
        } else if (argv[i][0] != '-' && !pb_path) {
            pb_path = argv[i];
        } else {
            tool_error("diff", "unexpected argument '%s'", argv[i]);
            fputs(usage_diff, stderr);
            return TOOL_USAGE;
        }
    }
    if (!pb_path) {
        fputs(usage_diff, stderr);
        return TOOL_USAGE;
    }
    return tool_diff_files(stdout, pa_path, pb_path, json);
}

int tool_diff_files(FILE *out, const char *pa_path, const char *pb_path, bool json)
{
    grGraph_t ga, gb;
    if (!tool_load(pa_path, &ga, json))
        return TOOL_FAIL;
    if (!tool_load(pb_path, &gb, json)) {
        grGraphDestroy(ga);
        return TOOL_FAIL;
    }
    tool_graph ta, tb;
    ftext xa, xb;
    report r = {0};
    if (!tool_graph_read(&ta, ga) || !tool_graph_read(&tb, gb)) {
        tool_error("diff", "out of memory");
        return TOOL_FAIL;
    }
    read_texts(pa_path, &xa);
    read_texts(pb_path, &xb);
    size_t *pa = calloc(ta.n + 1, sizeof *pa), *pb = calloc(tb.n + 1, sizeof *pb);
    if (!pa || !pb) {
        tool_error("diff", "out of memory");
        return TOOL_FAIL;
    }
    if (ta.n != tb.n)
        note(&r, "topology", SIZE_MAX, SIZE_MAX, "A has %zu top-level nodes, B has %zu", ta.n, tb.n);
    pair(&ta, &tb, pa, pb, &r);
    for (size_t i = 0; i < ta.n; i++) {
        size_t j = pa[i];
        if (j == SIZE_MAX)
            continue;
        grGraphNodeType tx, ty;
        grGraphNodeGetType(ta.nodes[i], &tx);
        grGraphNodeGetType(tb.nodes[j], &ty);
        if (tx != ty) {
            note(&r, "type", i, j, "n%zu of A is of type %s, its partner n%zu of B of type %s", i,
                 grGraphNodeTypeWord_(tx), j, grGraphNodeTypeWord_(ty));
            continue;
        }
        const char *la = i < xa.n ? xa.line[i] : NULL, *lb = j < xb.n ? xb.line[j] : NULL;
        if (la && lb && strcmp(la, lb) != 0) {
            char ch[768];
            field_changes(la, lb, ch, sizeof ch);
            note(&r, "parameters", i, j, "n%zu -> n%zu: %s", i, j, ch);
        }
        const char *ba = i < xa.n ? xa.body[i] : NULL, *bb = j < xb.n ? xb.body[j] : NULL;
        if ((ba || bb) && (!ba || !bb || strcmp(ba, bb) != 0))
            note(&r, "parameters", i, j, "n%zu -> n%zu: the child graphs differ", i, j);
    }
    /* The library's verdict. */
    grGraphExec_t e;
    grGraphExecUpdateResultInfo info = {grGraphExecUpdateError, NULL, NULL};
    char detail[1024] = "";
    grError_t err = grGraphInstantiate(&e, ga, 0);
    if (err == grSuccess) {
        err = grGraphExecUpdate(e, gb, &info);
        grGraphExecDestroy(e);
    }
    if (err != grSuccess)
        snprintf(detail, sizeof detail, "%s", grGetLastErrorDetail());
    size_t enode = info.errorNode ? tool_node_index(&tb, info.errorNode) : SIZE_MAX;
    bool ok = err == grSuccess;
    if (json) {
        fprintf(out, "{\"a\": ");
        tool_json_str(out, pa_path);
        fprintf(out, ", \"b\": ");
        tool_json_str(out, pb_path);
        fprintf(out, ", \"nodes_a\": %zu, \"nodes_b\": %zu, \"differences\": [", ta.n, tb.n);
        for (size_t k = 0; k < r.n; k++) {
            fprintf(out, "%s{\"kind\": \"%s\", \"a\": ", k ? ", " : "", r.f[k].kind);
            put_node_json(out, r.f[k].a);
            fprintf(out, ", \"b\": ");
            put_node_json(out, r.f[k].b);
            fprintf(out, ", \"detail\": ");
            tool_json_str(out, r.f[k].detail ? r.f[k].detail : "");
            fprintf(out, "}");
        }
        fprintf(out, "], \"update\": {\"ok\": %s, \"result\": \"%s\", \"node\": ", ok ? "true" : "false",
                ok ? "grGraphExecUpdateSuccess" : result_name(info.result));
        put_node_json(out, enode);
        fprintf(out, ", \"detail\": ");
        tool_json_str(out, detail);
        fprintf(out, "}}\n");
    } else {
        fprintf(out, "A           %s (%zu top-level nodes)\n", pa_path, ta.n);
        fprintf(out, "B           %s (%zu top-level nodes)\n", pb_path, tb.n);
        fprintf(out, "differences %zu (nodes paired as grGraphExecUpdate pairs them)\n", r.n);
        for (size_t k = 0; k < r.n; k++)
            fprintf(out, "  %-11s %s\n", r.f[k].kind, r.f[k].detail ? r.f[k].detail : "");
        if (ok) {
            fprintf(out, "update      an executable of A can be updated from B\n");
        } else {
            fprintf(out, "update      would fail: %s", result_name(info.result));
            if (enode != SIZE_MAX)
                fprintf(out, " at n%zu of B", enode);
            else if (info.errorNode)
                fprintf(out, " at a node inside a child graph of B");
            fprintf(out, "\n            %s\n", detail);
        }
    }
    for (size_t k = 0; k < r.n; k++)
        free(r.f[k].detail);
    free(r.f);
    free(pa);
    free(pb);
    free_texts(&xa);
    free_texts(&xb);
    tool_graph_free(&ta);
    tool_graph_free(&tb);
    grGraphDestroy(ga);
    grGraphDestroy(gb);
    return ok ? TOOL_OK : TOOL_FAIL;
}
