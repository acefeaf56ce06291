/*
 * test-invariants.c - white-box tests of the invariant checkers (graph,
 * plan, executable writes, pool, stream queue): each takes a structure
 * that keeps its invariants, breaks one field by hand, checks that the
 * checker reports it, and restores the field. GR_DEBUG=3 builds run the
 * same checkers after every change of structure (gr_assert_expensive);
 * here they are called directly, so the tests run in every build.
 */
#include "testlib.h"

#include "../../src/backend/cpu/stream_int.h"
#include "../../src/backend/plan.h"
#include "../../src/graph/graph.h"
#include "../../src/memory/pool_int.h"

GR_TEST(graph_checker_reports_counts_mirrors_owners_and_cycles)
{
    grGraphNode_t n[4];
    grGraph_t g, other;
    tl_diamond(&g, n, NULL);
    CHECK(gr__graph_is_valid(g));

    g->nedges++;
    CHECK(!gr__graph_is_valid(g));
    g->nedges--;

    /* d's dependencies no longer mirror b's and c's successors. */
    struct grGraphNode_st *saved = n[3]->deps[1];
    n[3]->deps[1] = n[0];
    CHECK(!gr__graph_is_valid(g));
    n[3]->deps[1] = saved;

    CHECK_EQ(grGraphCreate(&other, 0), grSuccess);
    n[2]->graph = other;
    CHECK(!gr__graph_is_valid(g));
    n[2]->graph = g;

    /* d -> a, stored on both sides, closes a cycle. */
    CHECK_EQ(grGraphAddDependencies(g, &n[3], &n[0], NULL, 1), grErrorInvalidValue);
    CHECK(n[3]->capsuccs >= 1 && n[0]->capdeps >= 1);
    n[3]->succs[n[3]->nsuccs++] = n[0];
    n[0]->deps[n[0]->ndeps++] = n[3];
    g->nedges++;
    CHECK(!gr__graph_is_valid(g));
    n[3]->nsuccs--;
    n[0]->ndeps--;
    g->nedges--;

    CHECK(gr__graph_is_valid(g));
    CHECK_EQ(grGraphDestroy(other), grSuccess);
    CHECK_EQ(grGraphDestroy(g), grSuccess);
}

/* An executable of tl_diamond's graph, made into *g. */
static grGraphExec_t diamond_exec(grGraph_t *g)
{
    grGraphNode_t n[4];
    tl_diamond(g, n, NULL);
    return tl_instantiate(*g);
}

GR_TEST(plan_checker_reports_counts_order_and_a_missing_exit_edge)
{
    grGraph_t g;
    grGraphExec_t e = diamond_exec(&g);
    gr_plan *p = &e->plan;
    CHECK(gr__plan_is_valid(p));

    uint32_t exit_node = p->nnodes - 1;
    p->count[exit_node].npred++;
    CHECK(!gr__plan_is_valid(p)); /* the planted bug of build_csr: EXIT never ready */
    p->count[exit_node].npred--;

    /* A successor that is not later in the order. */
    uint32_t s0 = p->succ[p->nodes[0].succ_begin];
    p->succ[p->nodes[0].succ_begin] = 0;
    CHECK(!gr__plan_is_valid(p));
    p->succ[p->nodes[0].succ_begin] = s0;

    /* A countdown left from a launch that did not re-arm it. */
    uint32_t last = exit_node - 1;
    int32_t pending = gr_load_relaxed(&p->count[last].pending);
    gr_store_relaxed(&p->count[last].pending, pending + 1);
    CHECK(!gr__plan_is_valid(p));
    gr_store_relaxed(&p->count[last].pending, pending);

    CHECK(gr__plan_is_valid(p));
    tl_run(e);
    CHECK(gr__plan_is_valid(p));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(launch_counts_checker_reports_a_countdown_not_rearmed)
{
    grGraphNode_t n[4];
    grGraph_t g;
    tl_diamond(&g, n, NULL);
    grGraphExec_t e;
    CHECK_EQ(grGraphInstantiate(&e, g, 0), grSuccess);
    gr_plan *p = &e->plan;
    CHECK(gr__plan_counts_armed(p));
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(grGraphLaunch(e, NULL), grSuccess);
        CHECK_EQ(grStreamSynchronize(NULL), grSuccess);
        CHECK(gr__plan_counts_armed(p));
    }

    /* The diamond's join counts down: the planted bug of count_down
     * re-armed it one short. */
    uint32_t join = UINT32_MAX;
    for (uint32_t i = 0; i < p->nnodes; i++)
        if (p->count[i].npred == 2)
            join = i;
    CHECK(join != UINT32_MAX);
    int32_t pending = gr_load_relaxed(&p->count[join].pending);
    gr_store_relaxed(&p->count[join].pending, pending - 1);
    CHECK(!gr__plan_counts_armed(p));
    gr_store_relaxed(&p->count[join].pending, pending);
    CHECK(gr__plan_counts_armed(p));

    CHECK_EQ(grGraphExecDestroy(e), grSuccess);
    CHECK_EQ(grGraphDestroy(g), grSuccess);
}

GR_TEST(exec_write_checker_holds_only_inside_a_write)
{
    grGraph_t g;
    grGraphExec_t e = diamond_exec(&g);
    CHECK(!gr__exec_write_is_valid(e)); /* no write begun: no lock held */
    gr__exec_write_begin(e);
    CHECK(gr__exec_write_is_valid(e));
    gr__exec_write_end(e);
    CHECK_EQ(grGraphExecDestroy(e), grSuccess);
    CHECK_EQ(grGraphDestroy(g), grSuccess);
}

GR_TEST(pool_checker_reports_counters_that_do_not_fit_reserved)
{
    grMemPoolProps props;
    props = tl_pool_props(0);
    grMemPool_t pool;
    grStream_t s;
    CHECK_EQ(grMemPoolCreate(&pool, &props), grSuccess);
    CHECK_EQ(grStreamCreate(&s), grSuccess);
    void *a = NULL, *b = NULL;
    CHECK_EQ(grMallocFromPoolAsync(&a, 1 << 20, pool, s), grSuccess);
    CHECK_EQ(grMallocFromPoolAsync(&b, 1 << 20, pool, s), grSuccess);
    CHECK_EQ(grFreeAsync(a, s), grSuccess);
    CHECK_EQ(grStreamSynchronize(s), grSuccess);
    CHECK(gr__pool_is_valid(pool));

    /* More bytes in use than the pool reserved. */
    uint64_t used = pool->used;
    pool->used = gr_load_relaxed(&pool->reserved) + 1;
    CHECK(!gr__pool_is_valid(pool));
    pool->used = used;
    CHECK(gr__pool_is_valid(pool));

    CHECK_EQ(grFreeAsync(b, s), grSuccess);
    CHECK_EQ(grStreamSynchronize(s), grSuccess);
    CHECK_EQ(grStreamDestroy(s), grSuccess);
    CHECK_EQ(grMemPoolDestroy(pool), grSuccess);
}

GR_TEST(stream_queue_checker_reports_a_tail_outside_its_segment)
{
    grStream_t h;
    CHECK_EQ(grStreamCreate(&h), grSuccess);
    CHECK_EQ(grStreamSynchronize(h), grSuccess);
    gr_stream *s = (gr_stream *)h;
    CHECK(gr__stream_queue_is_valid(s));
    gr__cpu_stream(s)->tail_base += GR_SEG_SLOTS;
    CHECK(!gr__stream_queue_is_valid(s));
    gr__cpu_stream(s)->tail_base -= GR_SEG_SLOTS;
    CHECK(gr__stream_queue_is_valid(s));
    CHECK_EQ(grStreamDestroy(h), grSuccess);
}
