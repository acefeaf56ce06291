/*
 * test-graph-topo.c - the topological order instantiation uses
 * (gr__graph_topo_sort, internal): dependencies first, deterministic, and a
 * cycle refused with a detail naming it.
 */
#include "testlib.h"

#include "../../src/graph/graph.h"

GR_TEST(graph_topo_sort_orders_dependencies_first_and_deterministically)
{
    grGraph_t g;
    grGraphNode_t n[6], order[6], from[2], to[2];
    size_t i, j;
    CHECK_OK(grGraphCreate(&g, 0));
    /* Created in reverse of their dependency order. */
    for (i = 0; i < 6; i++)
        CHECK_OK(grGraphAddEmptyNode(&n[i], g, NULL, 0));
    for (i = 0; i + 1 < 4; i++) {
        from[0] = n[i + 1];
        to[0] = n[i];
        CHECK_OK(grGraphAddDependencies(g, from, to, NULL, 1));
    }
    from[0] = n[5];
    to[0] = n[4];
    from[1] = n[3];
    to[1] = n[5];
    CHECK_OK(grGraphAddDependencies(g, from, to, NULL, 2));
    CHECK(gr__graph_topo_sort(g, order));
    /* Every edge goes forward in the order. */
    for (i = 0; i < 6; i++) {
        grGraphNode_t deps[6];
        size_t nd = 6, k;
        CHECK_OK(grGraphNodeGetDependencies(order[i], deps, NULL, &nd));
        for (k = 0; k < nd; k++) {
            for (j = 0; j < i; j++)
                if (order[j] == deps[k])
                    break;
            CHECK(j < i);
        }
    }
    /* Roots in creation order first: n3 is the only root. */
    CHECK_PTR_EQ(order[0], n[3]);
    /* n3 releases n2 then n5 (edge order). */
    CHECK_PTR_EQ(order[1], n[2]);
    CHECK_PTR_EQ(order[2], n[5]);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_topo_sort_names_a_cycle_if_one_exists)
{
    grGraph_t g;
    grGraphNode_t a, b, c, d, order[4];
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&a, g, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&b, g, &a, 1));
    CHECK_OK(grGraphAddEmptyNode(&c, g, &b, 1));
    CHECK_OK(grGraphAddEmptyNode(&d, g, &c, 1));
    /* The public API refuses cycles, so close c -> b by hand. */
    CHECK(gr__node_reserve_edges(c, 0, 1) && gr__node_reserve_edges(b, 1, 0));
    c->succs[c->nsuccs++] = b;
    b->deps[b->ndeps++] = c;
    g->nedges++;
    CHECK(!gr__graph_topo_sort(g, order));
    CHECK_DETAIL_HAS("has a cycle");
    CHECK_DETAIL_HAS("empty node #1 -> empty node #2 -> empty node #1");
    CHECK_OK(grGraphDestroy(g));
}
