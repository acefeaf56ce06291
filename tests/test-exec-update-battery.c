/*
 * test-exec-update-battery.c - grGraphExecUpdate answers as CUDA 13 does on
 * the 2,021 cases of tests/data/update-pairing-cuda-13.0-h100.txt: the
 * return, result, errorNode and errorFromNode, and after a success which
 * node of the executable each node of the new graph took the place of.
 * Also the order in which graphrt lists the two graphs' nodes and their
 * dependencies after each graph's edits.
 *
 * Every node is a kernel node K(flags, tag) (flags[tag] += 1) whose tag is
 * its label; a pair is found as the battery found it on CUDA: with one
 * executable node disabled, the label that does not run is that of the
 * new graph's node which took its place.
 */
#include "test.h"

#include <errno.h>
#include <stdbool.h>

#ifndef GR_SOURCE_DIR
#error "GR_SOURCE_DIR must name the source tree (CMakeLists.txt sets it)"
#endif

#define BATTERY_FILE GR_SOURCE_DIR "/tests/data/update-pairing-cuda-13.0-h100.txt"
#define MAX_LABELS 32

static void k_tag_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    int *flags = *(int **)args[0];
    flags[*(int *)args[1]] += 1;
}

static grKernel_t k_tag;
static int flags[MAX_LABELS];

/* One graph as a case builds it: label -> node, and its nodes in the
 * order grGraphGetNodes lists them. */
typedef struct built {
    grGraph_t g;
    grGraphNode_t by_label[MAX_LABELS];
    grGraphNode_t nodes[MAX_LABELS];
    size_t n;
} built;

/* One case's line, split into its fields (pointers into the line). */
typedef struct case_line {
    const char *id, *ops1, *ops2, *g1, *g2, *ret, *result, *err, *from, *pair;
} case_line;

static int parse_label(const char **s)
{
    char *end;
    long v = strtol(*s, &end, 10);
    if (end == *s || v < 0 || v >= MAX_LABELS)
        GR_TEST_FAIL_("bad label at \"%.20s\"", *s);
    *s = end;
    return (int)v;
}

/* Builds a graph from its operations ("N3:0.1;E0>3;U0>3;D3"); false (with
 * a message) if a call fails, which no line of the battery expects. */
static bool build_battery(built *b, const char *ops, const char *which, const char *id)
{
    memset(b, 0, sizeof *b);
    CHECK_OK(grGraphCreate(&b->g, 0));
    for (const char *s = ops; *s;) {
        char op = *s++;
        grError_t e = grSuccess;
        if (op == 'N') {
            int label = parse_label(&s);
            grGraphNode_t deps[MAX_LABELS];
            size_t ndeps = 0;
            if (*s == ':') {
                do {
                    s++;
                    deps[ndeps++] = b->by_label[parse_label(&s)];
                } while (*s == '.');
            }
            int *fp = flags, tag = label;
            void *args[2] = {&fp, &tag};
            grKernelNodeParams p = {k_tag, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
            e = grGraphAddKernelNode(&b->by_label[label], b->g, deps, ndeps, &p);
        } else if (op == 'E' || op == 'U') {
            int from = parse_label(&s);
            CHECK(*s == '>');
            s++;
            int to = parse_label(&s);
            if (op == 'E')
                e = grGraphAddDependencies(b->g, &b->by_label[from], &b->by_label[to], NULL, 1);
            else
                e = grGraphRemoveDependencies(b->g, &b->by_label[from], &b->by_label[to], NULL, 1);
        } else if (op == 'D') {
            int label = parse_label(&s);
            e = grGraphDestroyNode(b->by_label[label]);
            b->by_label[label] = NULL;
        } else {
            GR_TEST_FAIL_("case %s: unknown operation '%c' in %s", id, op, ops);
        }
        if (e != grSuccess) {
            fprintf(stderr, "  case %s: building graph %s failed at '%c': %s (%s)\n", id, which, op,
                    grGetErrorName(e), grGetLastErrorDetail());
            return false;
        }
        if (*s == ';')
            s++;
    }
    b->n = MAX_LABELS;
    CHECK_OK(grGraphGetNodes(b->g, b->nodes, &b->n));
    return true;
}

static int built_index(const built *b, grGraphNode_t n)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->nodes[i] == n)
            return (int)i;
    return -1;
}

static int label_of(const built *b, grGraphNode_t n)
{
    for (int l = 0; l < MAX_LABELS; l++)
        if (b->by_label[l] == n)
            return l;
    return -1;
}

/* The graph's listing in the battery's form ("-|0|0.1"). */
static void listing(const built *b, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < b->n; i++) {
        grGraphNode_t deps[MAX_LABELS];
        size_t nd = MAX_LABELS;
        CHECK_OK(grGraphNodeGetDependencies(b->nodes[i], deps, NULL, &nd));
        len += (size_t)snprintf(out + len, cap - len, "%s", i ? "|" : "");
        if (nd == 0)
            len += (size_t)snprintf(out + len, cap - len, "-");
        for (size_t k = 0; k < nd; k++)
            len += (size_t)snprintf(out + len, cap - len, "%s%d", k ? "." : "", built_index(b, deps[k]));
        CHECK(len < cap);
    }
}

/* A node named by an update in the battery's form: its index in graph 2,
 * "o<i>" for a node of graph 1, -1 for NULL. */
static void node_name(const built *b1, const built *b2, grGraphNode_t n, char *out, size_t cap)
{
    if (!n)
        snprintf(out, cap, "-1");
    else if (built_index(b2, n) >= 0)
        snprintf(out, cap, "%d", built_index(b2, n));
    else if (built_index(b1, n) >= 0)
        snprintf(out, cap, "o%d", built_index(b1, n));
    else
        snprintf(out, cap, "?%p", (void *)n);
}

static void run_exec(grGraphExec_t e)
{
    memset(flags, 0, sizeof flags);
    CHECK_OK(grGraphLaunch(e, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
}

/* After a successful update: for each node of graph 2 in index order, the
 * index of the graph-1 node whose place it took ("1.0.2"). */
static void pairs(grGraphExec_t e, const built *b1, const built *b2, char *out, size_t cap)
{
    int pair[MAX_LABELS];
    for (size_t j = 0; j < b2->n; j++)
        pair[j] = -1;
    for (size_t i = 0; i < b1->n; i++) {
        CHECK_OK(grGraphNodeSetEnabled(e, b1->nodes[i], 0));
        run_exec(e);
        CHECK_OK(grGraphNodeSetEnabled(e, b1->nodes[i], 1));
        for (size_t j = 0; j < b2->n; j++)
            if (flags[label_of(b2, b2->nodes[j])] == 0)
                pair[j] = (int)i;
    }
    size_t len = 0;
    for (size_t j = 0; j < b2->n; j++) {
        len += (size_t)snprintf(out + len, cap - len, "%s%d", j ? "." : "", pair[j]);
        CHECK(len < cap);
    }
}

/* Splits a line into its fields; false for a comment or a blank line. */
static bool split(char *line, case_line *c)
{
    if (line[0] == '#' || line[0] == '\n' || line[0] == '\0')
        return false;
    memset(c, 0, sizeof *c);
    for (char *tok = strtok(line, " \n"); tok; tok = strtok(NULL, " \n")) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = '\0';
        const char *v = eq + 1;
        if (!strcmp(tok, "case"))
            c->id = v;
        else if (!strcmp(tok, "ops1"))
            c->ops1 = v;
        else if (!strcmp(tok, "ops2"))
            c->ops2 = v;
        else if (!strcmp(tok, "g1"))
            c->g1 = v;
        else if (!strcmp(tok, "g2"))
            c->g2 = v;
        else if (!strcmp(tok, "ret"))
            c->ret = v;
        else if (!strcmp(tok, "result"))
            c->result = v;
        else if (!strcmp(tok, "err"))
            c->err = v;
        else if (!strcmp(tok, "from"))
            c->from = v;
        else if (!strcmp(tok, "pair"))
            c->pair = v;
    }
    if (!c->id || !c->ops1 || !c->ops2 || !c->g1 || !c->g2 || !c->ret || !c->result || !c->err || !c->from ||
        !c->pair)
        GR_TEST_FAIL_("a line of %s lacks a field", BATTERY_FILE);
    return true;
}

/* Replays one case; returns the number of differences it printed. */
static int replay_battery(const case_line *c)
{
    built b1, b2;
    char got_g1[512], got_g2[512], err[32], from[32], pair[64] = "-", ret[64];
    int diffs = 0;
    if (!build_battery(&b1, c->ops1, "1", c->id) || !build_battery(&b2, c->ops2, "2", c->id))
        return 1;
    listing(&b1, got_g1, sizeof got_g1);
    listing(&b2, got_g2, sizeof got_g2);
    if (strcmp(got_g1, c->g1) || strcmp(got_g2, c->g2)) {
        fprintf(stderr, "  case %s: listed g1=%s g2=%s, CUDA g1=%s g2=%s\n", c->id, got_g1, got_g2, c->g1,
                c->g2);
        diffs++;
    }
    grGraphExec_t e;
    CHECK_OK(grGraphInstantiate(&e, b1.g, 0));
    grGraphExecUpdateResultInfo info;
    grError_t r = grGraphExecUpdate(e, b2.g, &info);
    /* The battery writes the return without its 'cuda' prefix. */
    snprintf(ret, sizeof ret, "%s", grGetErrorName(r) + 2);
    node_name(&b1, &b2, info.errorNode, err, sizeof err);
    node_name(&b1, &b2, info.errorFromNode, from, sizeof from);
    if (r == grSuccess)
        pairs(e, &b1, &b2, pair, sizeof pair);
    if (strcmp(ret, c->ret) || atoi(c->result) != (int)info.result || strcmp(err, c->err) ||
        strcmp(from, c->from) || strcmp(pair, c->pair)) {
        fprintf(stderr,
                "  case %s: ops1=%s ops2=%s\n    graphrt: ret=%s result=%d err=%s from=%s pair=%s\n"
                "    CUDA:    ret=%s result=%s err=%s from=%s pair=%s\n",
                c->id, c->ops1, c->ops2, ret, (int)info.result, err, from, pair, c->ret, c->result, c->err,
                c->from, c->pair);
        if (r != grSuccess)
            fprintf(stderr, "    detail: %s\n", grGetLastErrorDetail());
        diffs++;
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(b1.g));
    CHECK_OK(grGraphDestroy(b2.g));
    return diffs;
}

GR_TEST_T(exec_update_answers_as_cuda_13_on_the_pairing_battery, 120)
{
    size_t sz[2] = {sizeof(int *), sizeof(int)};
    CHECK_OK(grKernelCreate(&k_tag, k_tag_fn, "battery_tag", 2, sz));
    FILE *f = fopen(BATTERY_FILE, "r");
    if (!f)
        GR_TEST_FAIL_("cannot open %s: %s", BATTERY_FILE, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int cases = 0, differ = 0;
    while (getline(&line, &cap, f) > 0) {
        case_line c;
        if (!split(line, &c))
            continue;
        cases++;
        differ += replay_battery(&c) != 0;
    }
    free(line);
    fclose(f);
    CHECK_OK(grKernelDestroy(k_tag));
    fprintf(stderr, "  %d cases, %d differ from CUDA 13\n", cases, differ);
    CHECK_EQ(cases, 2021);
    CHECK_EQ(differ, 0);
}
