/*
 * analyze_forkjoin.c - serialised fork-joins: a join J whose dependencies
 * end branches meant to run side by side, where one branch depends on the
 * other, so that they run one after the other.
 *
 * They are found from the redundant edges: p -> J is redundant exactly
 * when p reaches another dependency q of J, i.e. when the branch ending at
 * q runs after the branch ending at p. A breadth-first search from p over
 * the nodes numbered below J finds the nearest such q and a path p ~> q.
 * In a captured graph the nodes know their streams: the finding is a
 * serialised fork-join when that path crosses from one stream to another
 * (the link is the first edge that does, and the wait noted for it names
 * the event and the calls); a path within one stream is a plain redundant
 * edge. A graph built by hand (or a clone, or a graph read back from a
 * file) does not say which branches were meant to run side by side: there
 * the finding is a p that reaches some but not all of the join's other
 * dependencies (one that reaches all is where they all start, such as the
 * fork itself), with the path's first edge as the link.
 */
#include "analyze_int.h"

#include <string.h>

/* The most searches one analysis makes for serialised fork-joins: room
 * for every detailed finding many times over, in captured graphs whose
 * redundant edges are mostly not findings. */
#define FJ_SEARCH_BUDGET (16 * (size_t)GR_GRAPH_ANALYSIS_MAX_JOINS)

typedef struct fj_ctx {
    const gr_shape *s;
    uint32_t *seen, *isdep; /* stamps: seen by this search, a dependency of this join */
    uint32_t seen_stamp, dep_stamp;
    size_t *parent, *queue; /* per node: where the search came from; the search's queue */
    struct grGraphNode_st **path;
} fj_ctx;

static bool edge_redundant(const gr_shape *s, size_t p, size_t j)
{
    for (size_t e = s->succ_off[p]; e < s->succ_off[p + 1]; e++)
        if (s->succ[e] == j)
            return s->redundant[e] == GR_EDGE_REDUNDANT;
    return false;
}

/* The nearest other dependency of join j reachable from p (SIZE_MAX if
 * none), with x->parent leading back to p. With 'count', the search goes
 * on and *reached is how many of j's other dependencies p reaches. */
static size_t nearest_dep(fj_ctx *x, size_t p, size_t j, bool count, size_t *reached)
{
    const gr_shape *s = x->s;
    size_t head = 0, tail = 0, first = SIZE_MAX, others = s->order[j]->ndeps - 1;
    *reached = 0;
    x->seen_stamp++;
    x->seen[p] = x->seen_stamp;
    x->queue[tail++] = p;
    while (head < tail) {
        size_t u = x->queue[head++];
        for (size_t e = s->succ_off[u]; e < s->succ_off[u + 1]; e++) {
            size_t v = s->succ[e];
            if (v >= j || x->seen[v] == x->seen_stamp)
                continue;
            x->seen[v] = x->seen_stamp;
            x->parent[v] = u;
            if (x->isdep[v] == x->dep_stamp) {
                if (first == SIZE_MAX)
                    first = v;
                if (++*reached == others || !count)
                    return first;
            }
            x->queue[tail++] = v;
        }
    }
    return first;
}

/* The first branch: p and the nodes before it on its stream (back to the
 * node where the stream joined other work), or for a node without a
 * stream, the chain of single edges ending at p. In order, into 'out'
 * (room for the graph's nodes); returns the count. */
static size_t first_branch(const fj_ctx *x, struct grGraphNode_st *p, struct grGraphNode_st **out)
{
    size_t n = x->s->n, len = 0;
    struct grGraphNode_st *cur = p;
    out[n - ++len] = cur;
    while (len < n) {
        struct grGraphNode_st *d = NULL;
        if (cur->lane != 0) {
            if (cur->ndeps != 1 || cur->deps[0]->lane != cur->lane)
                break;
            d = cur->deps[0];
        } else {
            if (cur->ndeps != 1 || cur->deps[0]->nsuccs != 1)
                break;
            d = cur->deps[0];
        }
        out[n - ++len] = d;
        cur = d;
    }
    memmove(out, out + (n - len), len * sizeof *out);
    return len;
}

static grGraphNode_t *copy_nodes(struct grGraphNode_st *const *v, size_t len)
{
    grGraphNode_t *a = gr__malloc(len * sizeof *a);
    if (a)
        memcpy(a, v, len * sizeof *a);
    return a;
}

/* Fills f for join j reached through its dependency p; *is_smell false
 * when the path stays on one stream (a plain redundant edge). */
static bool describe(fj_ctx *x, size_t p, size_t j, grGraphSerialisedJoin *f, bool *is_smell)
{
    const gr_shape *s = x->s;
    grGraph_t g = s->g;
    /* Without streams, a dependency that reaches every other one is
     * where they all start (the fork itself, or an earlier node of a
     * chain): its edge to the join is a plain shortcut. */
    bool lanes = s->order[p]->lane != 0;
    size_t reached;
    size_t q = nearest_dep(x, p, j, !lanes, &reached);
    *is_smell = false;
    if (!GR_ALWAYS(q != SIZE_MAX))
        return true;
    if (!lanes && reached == s->order[j]->ndeps - 1)
        return true;
    /* The path p ~> q, p first. */
    size_t len = 0;
    for (size_t v = q; v != p; v = x->parent[v])
        len++;
    len++;
    for (size_t v = q, k = len; k-- > 0; v = x->parent[v])
        x->path[k] = s->order[v];
    size_t link = 0; /* the link is path[link] -> path[link + 1] */
    lanes = lanes && x->path[len - 1]->lane != 0;
    if (lanes) {
        while (link + 1 < len && x->path[link]->lane == x->path[link + 1]->lane)
            link++;
        if (link + 1 == len)
            return true;
    }
    *is_smell = true;
    memset(f, 0, sizeof *f);
    f->join = s->order[j];
    f->link = (grGraphAnalysisEdge){x->path[link], x->path[link + 1]};
    f->numSecondBranch = len - link - 1;
    f->secondBranch = copy_nodes(x->path + link + 1, f->numSecondBranch);
    f->numFirstBranch = first_branch(x, s->order[p], x->path);
    f->firstBranch = copy_nodes(x->path, f->numFirstBranch);
    if (!f->secondBranch || !f->firstBranch) {
        gr__analyze_forkjoin_free(f);
        return false;
    }
    f->firstStream = (grStream_t)(uintptr_t)gr__prov_node_stream(g, s->order[p]);
    f->secondStream = (grStream_t)(uintptr_t)gr__prov_node_stream(g, s->order[q]);
    const gr_wait_note *w = gr__prov_edge_cause(g, f->link.from, f->link.to);
    if (w) {
        f->hasCause = 1;
        f->cause.captureId = w->capture_id;
        f->cause.event = (grEvent_t)(uintptr_t)w->event;
        f->cause.recordStream = (grStream_t)(uintptr_t)w->record_stream;
        f->cause.recordCall = w->record_call;
        f->cause.waitStream = (grStream_t)(uintptr_t)w->wait_stream;
        f->cause.waitCall = w->wait_call;
    }
    return true;
}

void gr__analyze_forkjoin_free(grGraphSerialisedJoin *j)
{
    gr__free(j->firstBranch);
    gr__free(j->secondBranch);
    j->firstBranch = j->secondBranch = NULL;
}

bool gr__analyze_forkjoins(const gr_shape *s, grGraphAnalysis *r)
{
    if (r->numRedundantEdges == 0)
        return true;
    fj_ctx x = {.s = s};
    size_t searches = 0;
    x.seen = gr__calloc(s->n, sizeof *x.seen);
    x.isdep = gr__calloc(s->n, sizeof *x.isdep);
    x.parent = gr__malloc(s->n * sizeof *x.parent);
    x.queue = gr__malloc(s->n * sizeof *x.queue);
    x.path = gr__malloc(s->n * sizeof *x.path);
    r->serialisedJoins = gr__calloc(GR_GRAPH_ANALYSIS_MAX_JOINS, sizeof *r->serialisedJoins);
    bool ok = x.seen && x.isdep && x.parent && x.queue && x.path && r->serialisedJoins;
    struct grGraphNode_st *jn;
    if (ok) {
        GR_GRAPH_FOR_EACH_NODE (s->g, jn) {
            size_t j = gr__shape_index(jn);
            if (jn->ndeps < 2 || !ok)
                continue;
            x.dep_stamp++;
            for (size_t k = 0; k < jn->ndeps; k++)
                x.isdep[gr__shape_index(jn->deps[k])] = x.dep_stamp;
            for (size_t k = 0; k < jn->ndeps && ok; k++) {
                size_t p = gr__shape_index(jn->deps[k]);
                if (!edge_redundant(s, p, j))
                    continue;
                /* Without streams, a redundant p of a two-dependency join
                 * reaches the other one: a shortcut (see describe), known
                 * without a search. */
                if (jn->deps[k]->lane == 0 && jn->ndeps == 2)
                    continue;
                /* Details stop at the array's room, and the searches
                 * (a walk of the graph each, at worst) at a budget; the
                 * redundant edges list every candidate. */
                if (r->numSerialisedJoins == GR_GRAPH_ANALYSIS_MAX_JOINS || searches == FJ_SEARCH_BUDGET)
                    break;
                searches++;
                bool smell;
                ok = describe(&x, p, j, &r->serialisedJoins[r->numSerialisedJoins], &smell);
                if (ok && smell)
                    r->numSerialisedJoins++;
            }
        }
    }
    if (ok && r->numSerialisedJoins == 0) {
        gr__free(r->serialisedJoins);
        r->serialisedJoins = NULL;
    }
    gr__free(x.seen);
    gr__free(x.isdep);
    gr__free(x.parent);
    gr__free(x.queue);
    gr__free(x.path);
    return ok;
}
