/*
 * test-testlib.c - the shared helpers of tests/lib build what they say:
 * the graph builders' shapes, the random DAG's determinism, the canonical
 * kernels' results, and the waits' deadlines.
 */
#include "testlib.h"

GR_TEST(testlib_chain_links_each_node_to_the_next_and_runs_each_once)
{
    grGraph_t g;
    grGraphNode_t n[5];
    int runs = 0;
    CHECK_OK(grGraphCreate(&g, 0));
    tl_chain(g, 5, tl_bump, &runs, n);
    CHECK_EQ(tl_node_count(g), 5);
    CHECK_EQ(tl_edge_count(g), 4);
    for (int i = 0; i < 4; i++)
        CHECK(tl_has_edge(n[i], n[i + 1]));
    tl_run_graph(g);
    CHECK_EQ(runs, 5);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(testlib_fan_joins_every_branch_of_its_root)
{
    grGraph_t g;
    grGraphNode_t n[6];
    grGraphNodeType t;
    atomic_int runs = 0;
    CHECK_OK(grGraphCreate(&g, 0));
    tl_fan(g, 4, tl_bump_atomic, &runs, n);
    CHECK_EQ(tl_node_count(g), 6);
    CHECK_EQ(tl_edge_count(g), 8);
    for (int i = 1; i <= 4; i++) {
        CHECK(tl_has_edge(n[0], n[i]));
        CHECK(tl_has_edge(n[i], n[5]));
        CHECK_OK(grGraphNodeGetType(n[i], &t));
        CHECK_EQ(t, grGraphNodeTypeHost);
    }
    tl_run_graph(g);
    CHECK_EQ(atomic_load(&runs), 4);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(testlib_diamond_has_four_edges_and_a_host_node_only_where_asked)
{
    grGraph_t g;
    grGraphNode_t n[4];
    grGraphNodeType t;
    tl_diamond(&g, n, tl_noop);
    CHECK_EQ(tl_node_count(g), 4);
    CHECK_EQ(tl_edge_count(g), 4);
    CHECK(tl_has_edge(n[0], n[1]) && tl_has_edge(n[0], n[2]));
    CHECK(tl_has_edge(n[1], n[3]) && tl_has_edge(n[2], n[3]));
    CHECK_OK(grGraphNodeGetType(n[1], &t));
    CHECK_EQ(t, grGraphNodeTypeHost);
    CHECK_OK(grGraphDestroy(g));
    tl_diamond(&g, n, NULL);
    CHECK_OK(grGraphNodeGetType(n[1], &t));
    CHECK_EQ(t, grGraphNodeTypeEmpty);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(testlib_random_dag_is_the_same_for_the_same_seed)
{
    static tl_dag a, b;
    for (uint64_t s = 1; s < 50; s++) {
        uint64_t sa = s * 0x9e3779b97f4a7c15ull, sb = sa;
        grGraph_t ga, gb;
        CHECK_OK(grGraphCreate(&ga, 0));
        CHECK_OK(grGraphCreate(&gb, 0));
        tl_random_dag(ga, &sa, TL_DAG_MAX, NULL, NULL, 0, &a);
        tl_random_dag(gb, &sb, TL_DAG_MAX, NULL, NULL, 0, &b);
        CHECK_EQ(sa, sb);
        CHECK_EQ(a.n, b.n);
        CHECK(a.n >= 1 && a.n <= TL_DAG_MAX);
        CHECK_EQ(a.ne, b.ne);
        CHECK_EQ(tl_node_count(ga), (size_t)a.n);
        CHECK_EQ(tl_edge_count(ga), a.ne);
        for (size_t k = 0; k < a.ne; k++) {
            CHECK_EQ(a.from[k], b.from[k]);
            CHECK_EQ(a.to[k], b.to[k]);
            CHECK(a.from[k] < a.to[k]);
            CHECK(tl_has_edge(a.node[a.from[k]], a.node[a.to[k]]));
        }
        CHECK_OK(grGraphDestroy(ga));
        CHECK_OK(grGraphDestroy(gb));
    }
}

GR_TEST(testlib_canonical_kernels_fill_and_add)
{
    enum {
        N = 300
    };
    static unsigned p[N];
    unsigned *pp = p, v = 7, w = 5, n = N;
    void *fill_args[] = {&pp, &v, &n}, *add_args[] = {&pp, &w, &n};
    grKernel_t fill = tl_kernel_fill_u32_create(), add = tl_kernel_add_u32_create();
    grKernel_t nop = tl_kernel_nop_create();
    CHECK_OK(grLaunchKernel(fill, GR_DIM3(3, 1, 1), GR_DIM3(128, 1, 1), fill_args, 0, NULL));
    CHECK_OK(grLaunchKernel(add, GR_DIM3(3, 1, 1), GR_DIM3(128, 1, 1), add_args, 0, NULL));
    CHECK_OK(grLaunchKernel(nop, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), NULL, 0, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    for (unsigned i = 0; i < N; i++)
        CHECK_EQ(p[i], 12);
    CHECK_OK(grKernelDestroy(fill));
    CHECK_OK(grKernelDestroy(add));
    CHECK_OK(grKernelDestroy(nop));
}

GR_TEST(testlib_wait_until_sees_the_flag_and_gives_up_at_its_deadline)
{
    atomic_int flag = 0;
    CHECK(!tl_wait_until(&flag, 1, 10));
    tl_set_flag(&flag);
    CHECK(tl_wait_until(&flag, 1, 10));
    tl_wait_gate(&flag); /* open: returns at once */
}
