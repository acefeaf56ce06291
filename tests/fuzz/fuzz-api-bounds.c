/*
 * fuzz-api-bounds.c - the API fuzzer at the bounds the API sets, where
 * the rest of the model does not go: a batch memory operation's paramArray
 * that is no array (misaligned, unmapped, running into an unreadable
 * page), SWITCH nodes of sizes around and far past GR_COND_SWITCH_MAX, a
 * conditional body refused by each instantiate variant, and
 * grGraphNodeFindInClone after the original's memory went to a new graph.
 *
 * Each step works on objects of its own (a graph, an executable) that the
 * model does not follow, created and destroyed within the step, or makes
 * a call that must be refused before it touches a model object (checked
 * with fa_graph_verify). A graph or executable destroyed here becomes the
 * model's kept dead handle, as graph_destroy's do, so that the handle the
 * destroyed-handles class passes is always among the last 64 destroyed.
 */
#include "fuzz-api.h"

#include <limits.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

/* -------------------------------------------------- paramArray pointers */

/* Two pages, the second unreadable; the first ends with one valid
 * operation (a barrier), so that an array of two starting there runs
 * into the unreadable page. Made once per process, never written after. */
static struct {
    pthread_once_t once;
    char *base;
    size_t page;
} guard = {PTHREAD_ONCE_INIT, NULL, 0};

static void guard_init(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return;
    grStreamBatchMemOpParams *last = (grStreamBatchMemOpParams *)(void *)(p + page - sizeof *last);
    memset(last, 0, sizeof *last);
    last->memoryBarrier.operation = grStreamMemOpBarrier;
    last->memoryBarrier.flags = grStreamMemoryBarrierTypeSys;
    if (mprotect(p + page, page, PROT_NONE) != 0)
        return;
    guard.page = page;
    guard.base = p;
}

/* A paramArray that is not count readable, aligned operations. */
static grStreamBatchMemOpParams *bogus_array(fa *f, unsigned *count)
{
    pthread_once(&guard.once, guard_init);
    *count = 1 + fa_rand(f, 4);
    switch (guard.base ? fa_rand(f, 5) : fa_rand(f, 2)) {
    case 0: /* misaligned, in readable memory */
        snprintf(f->why, sizeof f->why, "paramArray misaligned");
        return (grStreamBatchMemOpParams *)(void *)(f->fake + 1 + fa_rand(f, 7));
    case 1: /* the first page, never mapped; a small integer */
        snprintf(f->why, sizeof f->why, "paramArray a small integer");
        return (grStreamBatchMemOpParams *)(uintptr_t)(8u * (1 + fa_rand(f, 400)));
    case 2: /* unreadable */
        snprintf(f->why, sizeof f->why, "paramArray unreadable");
        return (grStreamBatchMemOpParams *)(void *)(guard.base + guard.page +
                                                    8 * fa_rand(f, (uint32_t)guard.page / 16));
    default: /* readable first element, the rest past the page */
        snprintf(f->why, sizeof f->why, "paramArray runs into an unreadable page");
        *count = 2 + fa_rand(f, 3);
        return (grStreamBatchMemOpParams *)(void *)(guard.base + guard.page -
                                                    sizeof(grStreamBatchMemOpParams));
    }
}

/* The generic setters hand a type's member to the type's own setter,
 * whose name a refusal's detail carries (graphrt.h): the call noted for
 * the detail check is that setter's. */
#define FA_CALL_AS(f, name, expr) (fz_note((f)->c, name "(through " #expr ")"), (expr))

/* A private graph destroyed: the model's kept dead graph handle. */
static void private_graph_destroy(fa *f, grGraph_t g)
{
    fa_ok(f, FA_CALL(f, grGraphDestroy(g)));
    f->dead_graph = g;
}

/* grStreamBatchMemOp, the model graphs' adds, and a private node's and
 * executable's setters, each given a paramArray that is no array. */
static void memop_bogus_array(fa *f)
{
    unsigned count;
    grStreamBatchMemOpParams *ops = bogus_array(f, &count);
    grBatchMemOpNodeParams bp = {NULL, count, ops, 0};
    grGraphNodeParams gp;
    grGraphNode_t n = NULL;
    memset(&gp, 0, sizeof gp);
    gp.type = grGraphNodeTypeBatchMemOp;
    gp.memOp = bp;
    switch (fa_rand(f, 3)) {
    case 0: {
        int sid = fa_pick_stream(f, false);
        fa_bad(f, FA_CALL(f, grStreamBatchMemOp(fa_stream_handle(f, sid), count, ops, 0)),
               grErrorInvalidValue);
        return;
    }
    case 1: {
        fa_graph *g = fa_pick_graph(f, false, true);
        if (!g)
            return;
        if (fa_pct(f, 50))
            fa_bad(f, FA_CALL(f, grGraphAddBatchMemOpNode(&n, g->h, NULL, 0, &bp)), grErrorInvalidValue);
        else
            fa_bad(f, FA_CALL(f, grGraphAddNode(&n, g->h, NULL, NULL, 0, &gp)), grErrorInvalidValue);
        if (n != NULL)
            fa_fail(f, "a refused add of a batch memory operation node set *pGraphNode");
        fa_graph_verify(f, g);
        return;
    }
    default:
        break;
    }
    /* A private graph of one barrier node, its setters refused. */
    grStreamBatchMemOpParams barrier;
    memset(&barrier, 0, sizeof barrier);
    barrier.memoryBarrier.operation = grStreamMemOpBarrier;
    grBatchMemOpNodeParams good = {NULL, 1, &barrier, 0};
    grGraph_t g;
    grGraphExec_t x;
    fa_ok(f, FA_CALL(f, grGraphCreate(&g, 0)));
    fa_ok(f, FA_CALL(f, grGraphAddBatchMemOpNode(&n, g, NULL, 0, &good)));
    snprintf(f->why, sizeof f->why, "paramArray %p of %u operations", (void *)ops, count);
    if (fa_pct(f, 50))
        fa_bad(f, FA_CALL(f, grGraphBatchMemOpNodeSetParams(n, &bp)), grErrorInvalidValue);
    else
        fa_bad(f, FA_CALL_AS(f, "grGraphBatchMemOpNodeSetParams", grGraphNodeSetParams(n, &gp)),
               grErrorInvalidValue);
    /* A GPU device refuses the node at instantiate. */
    if (fa_either(f, FA_CALL(f, grGraphInstantiate(&x, g, 0)))) {
        /* The executable's node keeps its count: 1, so an array whose
         * first element is readable starts one further, unreadable. */
        bp.count = gp.memOp.count = 1;
        if (guard.base && (char *)ops == guard.base + guard.page - sizeof *ops)
            bp.paramArray = gp.memOp.paramArray = ops = ops + 1;
        snprintf(f->why, sizeof f->why, "paramArray %p", (void *)ops);
        if (fa_pct(f, 50))
            fa_bad(f, FA_CALL(f, grGraphExecBatchMemOpNodeSetParams(x, n, &bp)), grErrorInvalidValue);
        else
            fa_bad(f,
                   FA_CALL_AS(f, "grGraphExecBatchMemOpNodeSetParams", grGraphExecNodeSetParams(x, n, &gp)),
                   grErrorInvalidValue);
        fa_ok(f, FA_CALL(f, grGraphExecDestroy(x)));
        f->dead_exec = x;
    }
    grBatchMemOpNodeParams got;
    fa_ok(f, FA_CALL(f, grGraphBatchMemOpNodeGetParams(n, &got)));
    if (got.count != 1 || got.paramArray[0].operation != grStreamMemOpBarrier)
        fa_fail(f, "a refused batch memory operation setter changed the node");
    private_graph_destroy(f, g);
}

/* ----------------------------------------------------------- conditionals */

/* A SWITCH node of a size near or far past GR_COND_SWITCH_MAX: refused
 * with a detail above it, accepted (with that many bodies) up to it. */
static void switch_size(fa *f)
{
    grGraph_t g;
    grGraphConditionalHandle h;
    grGraphNode_t n = NULL;
    grGraphNodeParams p;
    unsigned size;
    switch (fa_rand(f, 8)) {
    case 0:
        size = UINT_MAX - fa_rand(f, 4);
        break;
    case 1:
        size = GR_COND_SWITCH_MAX + 1u + fa_rand(f, 4);
        break;
    case 2:
        size = (1u << (17 + fa_rand(f, 14))) + fa_rand(f, 1000);
        break;
    case 3:
        size = 0;
        break;
    case 4:
        /* The limit itself now and then: 65,536 graphs made and freed. */
        size = fa_pct(f, 5) ? GR_COND_SWITCH_MAX : 1 + fa_rand(f, 2000);
        break;
    default:
        size = 1 + fa_rand(f, 64);
        break;
    }
    fa_ok(f, FA_CALL(f, grGraphCreate(&g, 0)));
    fa_ok(f, FA_CALL(f, grGraphConditionalHandleCreate(&h, g, fa_rand(f, 8), 0)));
    memset(&p, 0, sizeof p);
    p.type = grGraphNodeTypeConditional;
    p.conditional.handle = h;
    p.conditional.type = grGraphCondTypeSwitch;
    p.conditional.size = size;
    grError_t err = FA_CALL(f, grGraphAddNode(&n, g, NULL, NULL, 0, &p));
    if (size == 0 || size > GR_COND_SWITCH_MAX) {
        snprintf(f->why, sizeof f->why, "SWITCH of %u bodies", size);
        fa_bad(f, err, grErrorInvalidValue);
        if (n != NULL || p.conditional.phGraph_out != NULL)
            fa_fail(f, "a refused SWITCH of %u bodies set its outputs", size);
        size_t nn = 1;
        fa_ok(f, FA_CALL(f, grGraphGetNodes(g, NULL, &nn)));
        if (nn != 0)
            fa_fail(f, "a refused SWITCH of %u bodies left %zu nodes", size, nn);
    } else {
        fa_ok(f, err);
        grGraph_t first = p.conditional.phGraph_out[0], last = p.conditional.phGraph_out[size - 1];
        size_t nn = 1;
        fa_ok(f, FA_CALL(f, grGraphGetNodes(last, NULL, &nn)));
        if (first == NULL || last == NULL || nn != 0)
            fa_fail(f, "a SWITCH of %u bodies has no empty body graphs", size);
    }
    private_graph_destroy(f, g);
}

/* A host node in an IF body: every instantiate variant refuses the graph
 * with a detail naming the variant called (fa_bad checks it). */
static void body_refusal(fa *f)
{
    grGraph_t g;
    grGraphConditionalHandle h;
    grGraphNode_t n, hn;
    grGraphExec_t x = NULL;
    grGraphNodeParams p;
    grHostNodeParams hp = {fa_host_other, NULL};
    fa_ok(f, FA_CALL(f, grGraphCreate(&g, 0)));
    fa_ok(f, FA_CALL(f, grGraphConditionalHandleCreate(&h, g, 1, grGraphCondAssignDefault)));
    memset(&p, 0, sizeof p);
    p.type = grGraphNodeTypeConditional;
    p.conditional.handle = h;
    p.conditional.type = grGraphCondTypeIf;
    p.conditional.size = 1 + fa_rand(f, 2);
    fa_ok(f, FA_CALL(f, grGraphAddNode(&n, g, NULL, NULL, 0, &p)));
    fa_ok(f, FA_CALL(f, grGraphAddHostNode(&hn, p.conditional.phGraph_out[fa_rand(f, p.conditional.size)],
                                           NULL, 0, &hp)));
    snprintf(f->why, sizeof f->why, "a host node in a conditional body");
    switch (fa_rand(f, 3)) {
    case 0:
        fa_bad(f, FA_CALL(f, grGraphInstantiate(&x, g, 0)), grErrorInvalidValue);
        break;
    case 1:
        fa_bad(f, FA_CALL(f, grGraphInstantiateWithFlags(&x, g, 0)), grErrorInvalidValue);
        break;
    default: {
        grGraphInstantiateParams ip = {0, NULL, NULL, grGraphInstantiateSuccess};
        fa_bad(f, FA_CALL(f, grGraphInstantiateWithParams(&x, g, &ip)), grErrorInvalidValue);
        if (ip.result_out != grGraphInstantiateNodeOperationNotSupported || ip.errNode_out != hn)
            fa_fail(f, "grGraphInstantiateWithParams reported result %d and node %p, not the host node %p",
                    (int)ip.result_out, (void *)ip.errNode_out, (void *)hn);
        break;
    }
    }
    if (x != NULL)
        fa_fail(f, "a refused instantiation set *pGraphExec");
    private_graph_destroy(f, g);
}

/* --------------------------------------------------------------- clones */

/* A clone outlives its original, and graphs are made until one gets the
 * original's memory back (64 more destroyed): that graph's node, of the
 * same creation number as the original's, is not found in the clone. */
static void clone_after_reuse(fa *f)
{
    grGraph_t a, c, b = NULL;
    grGraphNode_t na, nb, out = NULL;
    fa_ok(f, FA_CALL(f, grGraphCreate(&a, 0)));
    fa_ok(f, FA_CALL(f, grGraphAddEmptyNode(&na, a, NULL, 0)));
    fa_ok(f, FA_CALL(f, grGraphClone(&c, a)));
    fa_ok(f, FA_CALL(f, grGraphDestroy(a)));
    /* Other threads' graphs may take it first: a bounded search. */
    for (int i = 0; i < 200 && b == NULL; i++) {
        grGraph_t t;
        fa_ok(f, FA_CALL(f, grGraphCreate(&t, 0)));
        if (t == a)
            b = t;
        else
            fa_ok(f, FA_CALL(f, grGraphDestroy(t)));
        atomic_fetch_add_explicit(&f->c->progress, 1, memory_order_relaxed);
    }
    if (b != NULL) {
        fa_ok(f, FA_CALL(f, grGraphAddEmptyNode(&nb, b, NULL, 0)));
        snprintf(f->why, sizeof f->why, "a node of a graph at the clone's destroyed original's address");
        fa_bad(f, FA_CALL(f, grGraphNodeFindInClone(&out, nb, c)), grErrorInvalidValue);
        if (out != NULL)
            fa_fail(f, "a refused grGraphNodeFindInClone set *pNode");
        fa_ok(f, FA_CALL(f, grGraphDestroy(b)));
    }
    private_graph_destroy(f, c);
}

void fa_bounds_step(fa *f)
{
    uint32_t k = fa_rand(f, 100);
    if (k < 45)
        memop_bogus_array(f);
    else if (k < 75)
        switch_size(f);
    else if (k < 90)
        body_refusal(f);
    else
        clone_after_reuse(f);
}
