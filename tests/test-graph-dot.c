/*
 * test-graph-dot.c - grGraphDebugDotPrint writes valid Graphviz: one
 * digraph, one labelled box per node with unique ids, every edge, child
 * graphs as clusters, labels escaped; checked structurally and, when the
 * 'dot' tool is installed, by rendering it.
 */
#include "testlib.h"

#include <stdlib.h>
#include <unistd.h>

static size_t count_of(const char *s, const char *sub)
{
    size_t n = 0;
    const char *p = s;
    while ((p = strstr(p, sub)) != NULL) {
        n++;
        p += strlen(sub);
    }
    return n;
}

/* Braces balance outside quoted strings, quotes close, and the text is
 * one digraph. */
static void check_structure(const char *s)
{
    int depth = 0, in_str = 0;
    const char *p;
    CHECK(strncmp(s, "digraph ", 8) == 0);
    for (p = s; *p; p++) {
        if (in_str) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                in_str = 0;
            continue;
        }
        if (*p == '"')
            in_str = 1;
        else if (*p == '{')
            depth++;
        else if (*p == '}') {
            depth--;
            CHECK(depth >= 0);
        }
    }
    CHECK_EQ(in_str, 0);
    CHECK_EQ(depth, 0);
}

static int have_dot(void)
{
    return system("command -v dot >/dev/null 2>&1") == 0;
}

/* Graphviz's dot must render the file at path (where dot is installed);
 * the file is removed. */
static void check_dot_renders_and_unlink(const char *path)
{
    if (have_dot()) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "dot -Tsvg '%s' -o /dev/null", path);
        CHECK_EQ(system(cmd), 0);
    }
    unlink(path);
}

/* A graph with one node of most types, a child graph and a kernel. */
static grGraph_t build_dot_graph(grKernel_t *kout)
{
    grGraph_t g, child;
    grGraphNode_t a, b, c, d, e, f, cn, pair[2];
    grHostNodeParams hp = {tl_noop, NULL};
    grMemsetParams mp;
    grKernelNodeParams kp;
    grKernel_t k;
    size_t sizes[1] = {sizeof(int)};
    int iv = 0x2a;
    void *args[1] = {&iv};
    static char buf[256];
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grKernelCreate(&k, tl_kernel_nop, "dot \"quoted\" kernel", 1, sizes));
    kp = tl_params_1d(k, args, 16 * 128, 128);
    mp = tl_memset_params(buf, 0xab, 1, 100, 1, 0);
    CHECK_OK(grGraphAddEmptyNode(&a, g, NULL, 0));
    CHECK_OK(grGraphAddKernelNode(&b, g, &a, 1, &kp));
    CHECK_OK(grGraphAddMemcpyNode1D(&c, g, &a, 1, buf, buf + 128, 77, grMemcpyHostToHost));
    CHECK_OK(grGraphAddMemsetNode(&d, g, &a, 1, &mp));
    pair[0] = b;
    pair[1] = c;
    CHECK_OK(grGraphAddHostNode(&e, g, pair, 2, &hp));
    CHECK_OK(grGraphCreate(&child, 0));
    CHECK_OK(grGraphAddEmptyNode(&cn, child, NULL, 0));
    CHECK_OK(grGraphAddHostNode(&cn, child, &cn, 1, &hp));
    CHECK_OK(grGraphAddEmptyNode(&cn, child, NULL, 0));
    CHECK_OK(grGraphAddChildGraphNode(&f, g, &e, 1, child));
    CHECK_OK(grGraphDestroy(child));
    *kout = k;
    return g;
}

GR_TEST(graph_dot_output_is_structurally_valid)
{
    grGraph_t g;
    grKernel_t k;
    char path[128];
    char *s;
    g = build_dot_graph(&k);
    tl_tmp_path(path, sizeof path, "test", "plain", ".dot");
    CHECK_OK(grGraphDebugDotPrint(g, path, 0));
    s = tl_slurp(path, NULL);
    check_structure(s);
    /* Six boxes in the graph and three in the child, unique ids. */
    CHECK_EQ(count_of(s, "[label="), 9);
    CHECK(strstr(s, "g0_n0 [") && strstr(s, "g0_n5 ["));
    CHECK(strstr(s, "g1_n0 [") && strstr(s, "g1_n2 ["));
    /* Key parameters in the labels; quotes in names escaped. */
    CHECK(strstr(s, "dot \\\"quoted\\\" kernel") != NULL);
    CHECK(strstr(s, "grid (16,1,1) block (128,1,1)") != NULL);
    CHECK(strstr(s, "77 bytes") != NULL);
    CHECK(strstr(s, "= 0xab") != NULL);
    CHECK(strstr(s, "fn 0x") != NULL || strstr(s, "fn (nil)") != NULL);
    /* Edges: 6 in the graph, 1 in the child, 2 dashed to the child's
     * roots, and a cluster for the child graph node. */
    CHECK_EQ(count_of(s, " -> "), 9);
    CHECK(strstr(s, "g0_n0 -> g0_n1;") != NULL);
    CHECK(strstr(s, "g0_n4 -> g0_n5;") != NULL);
    CHECK(strstr(s, "g1_n0 -> g1_n1;") != NULL);
    CHECK(strstr(s, "g0_n5 -> g1_n0 [style=dashed]") != NULL);
    CHECK(strstr(s, "g0_n5 -> g1_n2 [style=dashed]") != NULL);
    CHECK_EQ(count_of(s, "subgraph cluster_"), 1);
    /* Not verbose: no addresses of copies, no argument bytes. */
    CHECK(strstr(s, "args ") == NULL);
    CHECK(strstr(s, "userData") == NULL);
    free(s);
    check_dot_renders_and_unlink(path);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(graph_dot_verbose_adds_every_parameter)
{
    grGraph_t g;
    grKernel_t k;
    char path[128];
    char *s;
    g = build_dot_graph(&k);
    tl_tmp_path(path, sizeof path, "test", "verbose", ".dot");
    CHECK_OK(grGraphDebugDotPrint(g, path, grGraphDebugDotFlagsVerbose));
    s = tl_slurp(path, NULL);
    check_structure(s);
    CHECK(strstr(s, "bytes: 2a000000") != NULL);
    CHECK(strstr(s, "sharedMem 0") != NULL);
    CHECK(strstr(s, "userData") != NULL);
    CHECK(strstr(s, "pitch") != NULL);
    CHECK(strstr(s, "src 0x") != NULL);
    free(s);
    check_dot_renders_and_unlink(path);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(graph_dot_nested_children_get_distinct_ids)
{
    grGraph_t inner, outer, top;
    grGraphNode_t n;
    char path[128];
    char *s;
    CHECK_OK(grGraphCreate(&inner, 0));
    CHECK_OK(grGraphAddEmptyNode(&n, inner, NULL, 0));
    CHECK_OK(grGraphCreate(&outer, 0));
    CHECK_OK(grGraphAddChildGraphNode(&n, outer, NULL, 0, inner));
    CHECK_OK(grGraphAddChildGraphNode(&n, outer, &n, 1, inner));
    CHECK_OK(grGraphCreate(&top, 0));
    CHECK_OK(grGraphAddChildGraphNode(&n, top, NULL, 0, outer));
    tl_tmp_path(path, sizeof path, "test", "nested", ".dot");
    CHECK_OK(grGraphDebugDotPrint(top, path, 0));
    s = tl_slurp(path, NULL);
    check_structure(s);
    /* top (g0) > outer (g1) > two copies of inner (g2, g3). */
    CHECK_EQ(count_of(s, "subgraph cluster_"), 3);
    CHECK(strstr(s, "g2_n0 [") != NULL);
    CHECK(strstr(s, "g3_n0 [") != NULL);
    CHECK(strstr(s, "g1_n0 -> g1_n1;") != NULL);
    free(s);
    check_dot_renders_and_unlink(path);
    CHECK_OK(grGraphDestroy(top));
    CHECK_OK(grGraphDestroy(outer));
    CHECK_OK(grGraphDestroy(inner));
}

GR_TEST(graph_dot_empty_graph_is_valid)
{
    grGraph_t g;
    char path[128];
    char *s;
    CHECK_OK(grGraphCreate(&g, 0));
    tl_tmp_path(path, sizeof path, "test", "empty", ".dot");
    CHECK_OK(grGraphDebugDotPrint(g, path, 0));
    s = tl_slurp(path, NULL);
    check_structure(s);
    CHECK_EQ(count_of(s, "[label="), 0);
    free(s);
    unlink(path);
    CHECK_OK(grGraphDestroy(g));
}
