/*
 * span.c - executables of graphs that span devices (docs/devices.md,
 * "Graphs that span devices"): a graph whose nodes name two devices or
 * more is partitioned at instantiation into one part per device, each an
 * executable of its own (the CPU's a plan its workers run, a GPU's a CUDA
 * graph), joined by flag words in pinned host memory that batch memory
 * operation nodes write and wait for.
 *
 * The parts. Part 0 is the CPU's (always, even without a CPU node: it
 * leads the launch); parts 1.. are the GPUs', in device order. A kernel
 * node goes to the part of the device it names (graph.h, 'dev1'), a memset
 * or memcpy node to that of the GPU whose memory it touches (node_device),
 * host and empty nodes, and copies and memsets of host memory, to the
 * CPU's; a memory allocation or free node to that of its allocation's
 * device, as an empty node: the spanning executable itself maps the
 * graph's allocations and applies their launch rules (exec/graphmem.c).
 * A conditional node goes whole, with its bodies, into the part of the
 * device its bodies' nodes name (as a child graph does), copied with the
 * graph's handle: the value it tests is that part's (the CPU part's plan
 * reads the handle's cell, a GPU part's CUDA graph a driver handle it
 * made for it and gives its own kernels in the handle's place), so a
 * kernel of another part that takes the handle is refused (check_handles;
 * the kernel setter too), and the executable's setters reach the bodies'
 * nodes through pairs of their own. A collective node goes to the part
 * of its communicator's device (an MPI one's: the CPU's), whose
 * instantiation makes its request and compares the ranks' sequences.
 * An edge between parts becomes one word
 * per producer node and consuming part: the producer's part writes it 1
 * after the producer (a signal node), the consuming part waits for it (>=
 * 1) before the consumers (a wait node) and writes it back to 0: batch
 * memory operation nodes, which a GPU's CUDA graph holds as such and the
 * CPU runs itself.
 *
 * A launch on CPU stream s launches the CPU part there. Its first node (a
 * host node) launches every GPU part on graphrt's own stream of its
 * device, so no GPU work starts before s's earlier work is done, and its
 * last nodes wait for each GPU part's DONE word, which that part's sinks
 * write, so s's later work waits for every part.
 *
 * A launch on GPU stream s queues on s a host function, then a wait for
 * the END word of s's slot (one of NSLOTS, kept per stream, numbered by
 * its launches: s's n-th waits for END >= n). The host function runs
 * once s's earlier work is done and only queues: the CPU part (as above)
 * on graphrt's own CPU stream of the executable, then a write of END = n
 * there. So the parts start after s's earlier work and s's later work
 * waits for every part, and no CPU thread is held meanwhile: nothing
 * waits on the CPU stream, so no wait elsewhere that runs other work can
 * find one there that waits for what its own caller does after it. A
 * slot's values only grow (s's launches are queued and run in order, and
 * its host functions write its END in that order); a slot whose launches
 * are all over (END equals their count) serves another stream.
 *
 * Why every part's waits run alone (plan.h, 'waits_alone'): a wait on the
 * CPU, a word's or an event wait node's, would otherwise run other ready
 * work while it waits (backend/cpu/memop.c, gr__stream_wait_for), and
 * work run so, on the waiting thread's stack,
 * could be another part (the fake device runs GPU parts on the CPU
 * workers) that waits for what the first part does after its wait:
 * neither would end. Parts with waits run their nodes in order (the
 * plan's rule for memory operation waits), so no ready node of theirs is
 * left for another thread's wait to take either.
 *
 * Invariants:
 *   - every word is 0 between launches: each is reset by its one
 *     consumer, inside the consuming part; every part of launch n ends
 *     before the CPU part of launch n ends (DONE), and the GPU parts of
 *     launch n + 1 are launched by the CPU part of n + 1, which starts
 *     after that: so no write of one launch meets a reset of another;
 *   - a part that runs its nodes one after another cannot deadlock on a
 *     wait: the nodes of every part are added in one topological order of
 *     the whole graph, and a wait node follows every signal node its part
 *     has before it in that order;
 *   - a GPU part whose launch fails (in the CPU part's first node) makes
 *     every word 1, so that the parts already started run to their end,
 *     and marks the executable broken: its later launches are refused
 *     with that error.
 */
#include "exec.h"
#include "../backend/comm.h"
#include "../backend/device.h"
#include "../memory/graphmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The END words of launches on GPU streams, past the edges' (file head):
 * as many streams with launches in flight at once. */
enum {
    NSLOTS = 8
};

typedef struct span_part {
    int device;
    grGraph_t g;       /* the part's graph, alive as long as the part */
    grGraphExec_t e;   /* its executable, for 'device' */
    gr_stream *stream; /* GPU parts: graphrt's own non-blocking stream of the device */
    uint32_t done;     /* GPU parts: the word their sinks write */
} span_part;

/* A node of the source graph and its copy in a part, sorted by 'orig'. */
typedef struct span_pair {
    const struct grGraphNode_st *orig; /* identity only */
    grGraphNode_t clone;
    uint32_t part;
    grGraphNodeType type;
} span_pair;

/* A conditional handle of the graph and the part its node runs in. */
typedef struct span_handle {
    const gr_cond_slot *slot; /* identity only */
    uint32_t part;
} span_handle;

struct gr_span {
    uint32_t nparts;
    span_part parts[GR_MAX_GPUS + 1];
    uint32_t *words; /* pinned host memory, 0 between launches */
    uint32_t nwords;
    size_t words_size;
    span_pair *pairs; /* top-level nodes, and the nodes of conditional nodes' bodies */
    uint32_t npairs;
    /* The handles of the conditional nodes at any depth, each with its
     * node's part: a kernel of another part may not take one (cond.c
     * below); an update's new graph brings its own. */
    span_handle *handles;
    uint32_t nhandles;
    /* A GPU part's launch failed (0: none): the error, then the launch is
     * refused (written by the CPU part's first node). */
    _Atomic grError_t broken;
    /* Launches on GPU streams (file head): graphrt's CPU stream that runs
     * the CPU part for them (made at instantiation, immutable); the slots,
     * whose END words are words[nwords + slot], and the GPUs whose streams
     * launched the executable, guarded by slot_lock. */
    gr_stream *cpu;
    gr_spinlock slot_lock;
    struct {
        uint64_t serial; /* the stream's (gr_stream), 0: never used */
        uint32_t queued; /* its launches so far */
    } slots[NSLOTS];
    uint64_t launched_on;
    char devices[96]; /* "the CPU and device 1", for details */
};

/* ----------------------------------------------------------- detection */

static uint64_t devices_named(grGraph_t g)
{
    uint64_t seen = 0;
    for (const struct grGraphNode_st *n = g->first; n != NULL; n = n->next)
        if (n->dev1)
            seen |= 1ull << (n->dev1 - 1 < 63 ? n->dev1 - 1 : 63);
    return seen;
}

bool gr__exec_spans(grGraph_t g)
{
    uint64_t m = g->dev_mask;
    if (GR_LIKELY((m & (m - 1)) == 0))
        return false;
    m = devices_named(g);
    return (m & (m - 1)) != 0;
}

/* ------------------------------------------------------------ building */

typedef struct builder {
    const char *call;
    struct gr_span *sp;
    uint32_t n, np;
    struct grGraphNode_st **ord; /* top-level nodes, topological */
    uint32_t *part;              /* per position in ord */
    uint32_t *word;              /* n * np: the word of (producer, consuming part), or NONE */
    grGraphNode_t *clone;        /* per position */
    grGraphNode_t *waitn;        /* n * np: the wait node in the consuming part */
    grGraphNode_t *sigs;         /* signal nodes so far, in order */
    uint32_t *sig_part, nsigs;
    grGraphNode_t start;   /* the CPU part's first node: it launches the GPU parts */
    struct gr_span *owner; /* the span the first node launches (sp, or the one updated) */
    grGraphNode_t *deps;   /* scratch: room for any node's dependencies */
    /* The bodies' nodes and their copies (instantiation only: 'record'),
     * and the conditional handles with their parts. */
    bool record;
    span_pair *body_pairs;
    uint32_t nbody_pairs, cap_body_pairs;
    span_handle *handles;
    const struct grGraphNode_st **hnodes; /* each handle's conditional node */
    uint32_t nhandles, cap_handles;
} builder;

#define NONE UINT32_MAX

/* A builder of sp's parts for n top-level nodes, launching 'owner';
 * false if its arrays could not be allocated (builder_free still
 * applies). */
static bool builder_init(builder *b, const char *call, struct gr_span *sp, struct gr_span *owner, uint32_t n)
{
    memset(b, 0, sizeof *b);
    b->call = call;
    b->sp = sp;
    b->owner = owner;
    b->n = n;
    b->np = owner->nparts;
    size_t cells = (size_t)(n ? n : 1) * b->np;
    b->ord = gr__calloc(n ? n : 1, sizeof *b->ord);
    b->part = gr__calloc(n ? n : 1, sizeof *b->part);
    b->clone = gr__calloc(n ? n : 1, sizeof *b->clone);
    b->word = gr__calloc(cells, sizeof *b->word);
    b->waitn = gr__calloc(cells, sizeof *b->waitn);
    return b->ord && b->part && b->clone && b->word && b->waitn;
}

static void builder_free(builder *b)
{
    gr__free(b->ord);
    gr__free(b->part);
    gr__free(b->clone);
    gr__free(b->word);
    gr__free(b->waitn);
    gr__free(b->deps);
    gr__free(b->sigs);
    gr__free(b->sig_part);
    gr__free(b->body_pairs);
    gr__free(b->handles);
    gr__free(b->hnodes);
}

static grError_t refuse_node(const char *call, const struct grGraphNode_st *n, const char *devices,
                             const char *why)
{
    gr__inst_fault.node = n;
    gr__inst_fault.named = true;
    return gr__fail(grErrorNotSupported,
                    "%s: %s %s; a graph whose nodes name two devices (here %s) holds kernel, memset, memcpy, "
                    "host, empty, event record, event wait, batch memory operation, memory allocation, "
                    "memory free, child graph, conditional and collective nodes only so far "
                    "(docs/devices.md, \"Graphs that span devices\")",
                    call, gr__node_label(n), why, devices);
}

static void name_devices(struct gr_span *sp, uint64_t seen)
{
    size_t at = 0;
    for (int d = 0; d < 64 && at < sizeof sp->devices; d++) {
        if (!(seen >> d & 1))
            continue;
        uint64_t later = d < 63 ? seen >> (d + 1) : 0;
        const char *sep = at == 0 ? "" : later ? ", " : " and ";
        int w = d == 0 ? snprintf(sp->devices + at, sizeof sp->devices - at, "%sthe CPU", sep)
                       : snprintf(sp->devices + at, sizeof sp->devices - at, "%sdevice %d", sep, d);
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

/* The CPU part's first node: launches the GPU parts. A failure makes
 * every wait pass (the parts started run to their end) and breaks the
 * executable. */
static void span_start(void *arg)
{
    struct gr_span *sp = arg;
    for (uint32_t p = 1; p < sp->nparts; p++) {
        grError_t err = gr__exec_launch_dev("grGraphLaunch", sp->parts[p].e, sp->parts[p].stream, false);
        if (GR_UNLIKELY(err)) {
            for (uint32_t w = 0; w < sp->nwords; w++)
                __atomic_store_n(&sp->words[w], 1u, __ATOMIC_SEQ_CST);
            gr_store_release(&sp->broken, err);
            return;
        }
    }
}

static grError_t add_memop(builder *b, uint32_t p, grGraphNode_t *out, const grGraphNode_t *deps,
                           size_t ndeps, grStreamBatchMemOpType op, const uint32_t *words, uint32_t count,
                           uint32_t value)
{
    grStreamBatchMemOpParams ops[GR_MAX_GPUS];
    memset(ops, 0, sizeof ops);
    for (uint32_t i = 0; i < count; i++) {
        ops[i].operation = op;
        if (op == grStreamMemOpWaitValue32) {
            ops[i].waitValue.address = &b->sp->words[words[i]];
            ops[i].waitValue.value = value;
            ops[i].waitValue.flags = grStreamWaitValueGeq;
        } else {
            ops[i].writeValue.address = &b->sp->words[words[i]];
            ops[i].writeValue.value = value;
        }
    }
    grBatchMemOpNodeParams np = {NULL, count, ops, 0};
    return gr__graph_add_memop(b->call, out, b->sp->parts[p].g, deps, ndeps, &np);
}

static grError_t cond_copy_in(builder *b, uint32_t p, grGraph_t g, const grGraphNode_t *deps, size_t ndeps,
                              const struct grGraphNode_st *src, grGraphNode_t *out);

/* Notes that 'orig', a node of a body, is 'clone' in part p: the
 * executable's setters reach it there (instantiation only). */
static grError_t note_body_pair(builder *b, const struct grGraphNode_st *orig, grGraphNode_t clone,
                                uint32_t p)
{
    if (!b->record)
        return grSuccess;
    if (b->nbody_pairs == b->cap_body_pairs) {
        uint32_t cap = b->cap_body_pairs ? 2 * b->cap_body_pairs : 16;
        span_pair *at = gr__realloc(b->body_pairs, cap * sizeof *at);
        if (!at)
            return gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
        b->body_pairs = at;
        b->cap_body_pairs = cap;
    }
    b->body_pairs[b->nbody_pairs++] = (span_pair){orig, clone, p, orig->type};
    return grSuccess;
}

/* Copies node sv of a body (not a conditional node) into graph dst after
 * deps (as many as sv's). */
static grError_t node_copy(builder *b, grGraph_t dst, const grGraphNode_t *deps,
                           const struct grGraphNode_st *sv, grGraphNode_t *out)
{
    gr_node_params np;
    grError_t err = gr__node_params_copy(sv->type, &np, &sv->p);
    if (err)
        return err;
    if ((err = gr__graph_insert_node(b->call, dst, deps, sv->ndeps, sv->type, &np, out))) {
        gr__node_params_free(sv->type, &np);
        return err;
    }
    (*out)->dev1 = sv->dev1;
    if (sv->kattrs && !gr__node_attrs_copy(*out, sv))
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory copying %s's attributes", b->call,
                        gr__node_label(sv));
    return grSuccess;
}

/* Copies body 'src' into the empty graph 'dst' of part p: its nodes in a
 * topological order, each after the copies of its dependencies (a
 * conditional node's with its bodies, cond_copy). The body's nodes lend
 * their scratch for the copies' positions and get it back. */
static grError_t body_copy(builder *b, uint32_t p, grGraph_t dst, grGraph_t src)
{
    size_t n = src->nnodes;
    struct grGraphNode_st **ord = gr__calloc(n ? n : 1, sizeof *ord);
    grGraphNode_t *copy = gr__calloc(n ? n : 1, sizeof *copy);
    uint64_t *saved = gr__calloc(n ? n : 1, sizeof *saved);
    grGraphNode_t *deps = NULL;
    grError_t err = grSuccess;
    size_t k = 0, maxdeps = 1;
    struct grGraphNode_st *v;
    if (!ord || !copy || !saved) {
        err = gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
        goto out;
    }
    GR_GRAPH_FOR_EACH_NODE (src, v) {
        if (k < n)
            saved[k++] = v->scratch;
        maxdeps = v->ndeps > maxdeps ? v->ndeps : maxdeps;
    }
    if (GR_NEVER(k != n) || !gr__graph_topo_sort(src, ord)) {
        err = gr__fail(grErrorInvalidValue, "%s: a conditional node's body has a cycle", b->call);
        goto restore;
    }
    if (!(deps = gr__calloc(maxdeps, sizeof *deps))) {
        err = gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
        goto restore;
    }
    for (size_t i = 0; i < n; i++)
        ord[i]->scratch = i;
    for (size_t i = 0; i < n && !err; i++) {
        const struct grGraphNode_st *sv = ord[i];
        for (size_t d = 0; d < sv->ndeps; d++)
            deps[d] = copy[sv->deps[d]->scratch];
        err = sv->type == grGraphNodeTypeConditional ? cond_copy_in(b, p, dst, deps, sv->ndeps, sv, &copy[i])
                                                     : node_copy(b, dst, deps, sv, &copy[i]);
        if (!err)
            err = note_body_pair(b, sv, copy[i], p);
    }
restore:
    k = 0;
    GR_GRAPH_FOR_EACH_NODE (src, v) {
        if (k < n)
            v->scratch = saved[k++];
    }
out:
    gr__free(deps);
    gr__free(saved);
    gr__free(copy);
    gr__free(ord);
    return err;
}

/* Copies conditional node src into graph g of part p after deps, bodies
 * included. The copy shares src's handle: its value is the one the
 * part's executable holds (a CPU part's plan reads the handle's own
 * cell, a GPU part's CUDA graph a driver handle made for it), and the
 * handle's node stays src (gr_cond_params 'copy'). */
static grError_t cond_copy_in(builder *b, uint32_t p, grGraph_t g, const grGraphNode_t *deps, size_t ndeps,
                              const struct grGraphNode_st *src, grGraphNode_t *out)
{
    const gr_cond_params *sc = &src->p.cond;
    gr_node_params np;
    memset(&np, 0, sizeof np);
    np.cond.bodies = gr__calloc(sc->nbodies, sizeof *np.cond.bodies);
    if (!np.cond.bodies)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
    for (unsigned k = 0; k < sc->nbodies; k++) {
        if ((np.cond.bodies[k] = gr__graph_new()) != NULL)
            continue;
        while (k > 0)
            gr__graph_free(np.cond.bodies[--k]);
        gr__free(np.cond.bodies);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
    }
    gr__cond_slot_retain(sc->slot);
    np.cond.slot = sc->slot;
    np.cond.type = sc->type;
    np.cond.nbodies = sc->nbodies;
    np.cond.copy = true;
    grError_t err = gr__graph_insert_node(b->call, g, deps, ndeps, grGraphNodeTypeConditional, &np, out);
    if (err) {
        gr__node_params_free(grGraphNodeTypeConditional, &np);
        return err;
    }
    for (unsigned k = 0; k < sc->nbodies && !err; k++)
        err = body_copy(b, p, (*out)->p.cond.bodies[k], sc->bodies[k]);
    return err;
}

/* Copies node ord[i] into its part after deps. A memory node's copy is
 * an empty node in the part of its allocation's device: the spanning
 * executable maps the graph's allocations itself, as a one-device
 * executable does (gr__graphmem_instantiate), and applies the launch rules
 * at its launch; in a plan or a CUDA graph graphrt lowers, a memory node
 * only orders its neighbours. */
static grError_t add_clone(builder *b, uint32_t i, const grGraphNode_t *deps, size_t ndeps)
{
    const struct grGraphNode_st *src = b->ord[i];
    gr_node_params p;
    grGraphNode_t out = NULL;
    grGraphNodeType type = src->type;
    grError_t err;
    if (type == grGraphNodeTypeConditional) {
        if ((err = cond_copy_in(b, b->part[i], b->sp->parts[b->part[i]].g, deps, ndeps, src, &out)))
            return err;
        b->clone[i] = out;
        return grSuccess;
    }
    if (type == grGraphNodeTypeMemAlloc || type == grGraphNodeTypeMemFree) {
        type = grGraphNodeTypeEmpty;
        memset(&p, 0, sizeof p);
    } else if ((err = gr__node_params_copy(type, &p, &src->p))) {
        return err;
    }
    err = gr__graph_insert_node(b->call, b->sp->parts[b->part[i]].g, deps, ndeps, type, &p, &out);
    if (err) {
        gr__node_params_free(type, &p);
        return err;
    }
    if (src->kattrs && !gr__node_attrs_copy(out, src))
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory copying %s's attributes", b->call,
                        gr__node_label(src));
    out->dev1 = src->dev1;
    b->clone[i] = out;
    return grSuccess;
}

/* The wait node of part p for producer j's word (made on first use):
 * after the CPU part's first node (p 0) and every signal node p has so
 * far; the word's reset follows it. */
static grError_t wait_node(builder *b, uint32_t j, uint32_t p, grGraphNode_t *out)
{
    grGraphNode_t *slot = &b->waitn[(size_t)j * b->np + p];
    if (*slot) {
        *out = *slot;
        return grSuccess;
    }
    size_t nd = 0;
    if (p == 0)
        b->deps[nd++] = b->start;
    for (uint32_t s = 0; s < b->nsigs; s++)
        if (b->sig_part[s] == p)
            b->deps[nd++] = b->sigs[s];
    uint32_t w = b->word[(size_t)j * b->np + p];
    grGraphNode_t reset;
    grError_t err = add_memop(b, p, slot, b->deps, nd, grStreamMemOpWaitValue32, &w, 1, 1);
    if (!err)
        err = add_memop(b, p, &reset, slot, 1, grStreamMemOpWriteValue32, &w, 1, 0);
    *out = *slot;
    return err;
}

static grError_t add_node(builder *b, uint32_t i)
{
    const struct grGraphNode_st *n = b->ord[i];
    uint32_t p = b->part[i];
    size_t nd;
    grError_t err;
    /* The wait nodes first: wait_node borrows b->deps. */
    for (size_t k = 0; k < n->ndeps; k++) {
        uint32_t j = (uint32_t)n->deps[k]->scratch;
        grGraphNode_t w;
        if (b->part[j] != p && (err = wait_node(b, j, p, &w)))
            return err;
    }
    nd = 0;
    for (size_t k = 0; k < n->ndeps; k++) {
        uint32_t j = (uint32_t)n->deps[k]->scratch;
        if (b->part[j] == p)
            b->deps[nd++] = b->clone[j];
        else /* each producer has one word per part: its wait, listed once */
            b->deps[nd++] = b->waitn[(size_t)j * b->np + p];
    }
    if ((err = add_clone(b, i, b->deps, nd)))
        return err;
    /* Its signals, one per consuming part. */
    for (uint32_t q = 0; q < b->np; q++) {
        uint32_t w = b->word[(size_t)i * b->np + q];
        if (w == NONE)
            continue;
        grGraphNode_t s;
        if ((err = add_memop(b, p, &s, &b->clone[i], 1, grStreamMemOpWriteValue32, &w, 1, 1)))
            return err;
        b->sigs[b->nsigs] = s;
        b->sig_part[b->nsigs++] = p;
    }
    return grSuccess;
}

/* After the nodes: each GPU part's DONE write after its sinks, and the
 * CPU part's DONE waits after its first node and every CPU signal. */
static grError_t add_tails(builder *b)
{
    struct gr_span *sp = b->sp;
    grError_t err;
    for (uint32_t p = 1; p < b->np; p++) {
        size_t nd = 0;
        for (struct grGraphNode_st *n = sp->parts[p].g->first; n != NULL; n = n->next)
            if (n->nsuccs == 0)
                b->deps[nd++] = n;
        grGraphNode_t done;
        if ((err = add_memop(b, p, &done, b->deps, nd, grStreamMemOpWriteValue32, &sp->parts[p].done, 1, 1)))
            return err;
    }
    for (uint32_t p = 1; p < b->np; p++) {
        size_t nd = 0;
        b->deps[nd++] = b->start;
        for (uint32_t s = 0; s < b->nsigs; s++)
            if (b->sig_part[s] == 0)
                b->deps[nd++] = b->sigs[s];
        grGraphNode_t wait, reset;
        if ((err = add_memop(b, 0, &wait, b->deps, nd, grStreamMemOpWaitValue32, &sp->parts[p].done, 1, 1)) ||
            (err = add_memop(b, 0, &reset, &wait, 1, grStreamMemOpWriteValue32, &sp->parts[p].done, 1, 0)))
            return err;
    }
    return grSuccess;
}

/* The words: pinned host memory, which every GPU's memory operations and
 * the CPU reach. */
static grError_t words_alloc(const char *call, struct gr_span *sp)
{
    void *p = NULL;
    sp->words_size = ((size_t)sp->nwords + NSLOTS) * sizeof(uint32_t);
    grError_t err = gr__devkind()->host_alloc(call, sp->words_size, &p);
    if (err)
        return err;
    if (!gr__mem_track_owned(p, sp->words_size, GR_MEM_HOST, GR_OWNER_PINNED)) {
        (void)gr__devkind()->host_free(call, p);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    }
    memset(p, 0, sp->words_size);
    sp->words = p;
    return grSuccess;
}

static int cmp_pair(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const span_pair *)a)->orig, y = (uintptr_t)((const span_pair *)b)->orig;
    return x < y ? -1 : x > y;
}

static int cmp_pindex(const void *a, const void *b)
{
    uint32_t x = (*(const gr_orig *const *)a)->pindex, y = (*(const gr_orig *const *)b)->pindex;
    return x < y ? -1 : x > y;
}

/* The GPU whose memory p is (1..N), or 0: host memory of any kind, or
 * memory graphrt does not know. */
static int memory_device(const void *p)
{
    int owner = GR_OWNER_CPU;
    if (gr__mem_owner(p, &owner))
        return owner > 0 ? owner : 0;
    return gr__devkind()->pointer_device(p);
}

/* Whether host memory p is pageable: the CPU device's (grMalloc, its
 * pools, its graph allocations) or memory neither graphrt nor the driver
 * knows (malloc'ed), as opposed to pinned, registered or managed memory. */
static bool pageable(const void *p)
{
    int owner = GR_OWNER_CPU;
    if (gr__mem_owner(p, &owner))
        return owner == GR_OWNER_CPU;
    if (gr__hostreg_find(p, GR_HOSTREG_REGISTERED, NULL, NULL, NULL) ||
        gr__hostreg_find(p, GR_HOSTREG_MANAGED, NULL, NULL, NULL))
        return false;
    gr_dev_pointer info;
    return !gr__devkind()->pointer_info(p, &info) || info.type == grMemoryTypeUnregistered;
}

/* The device whose part runs a copy dst <- src (src NULL: a memset of
 * dst): the GPU whose memory the destination is, else the source's, else
 * the CPU. A copy between a GPU and pageable host memory is refused (why:
 * its text, for the detail): the driver stages pageable memory through
 * buffers of its own, and on an H100 (driver 580) such a copy in a GPU
 * part read its source before the CPU part's wait let it, and wrote its
 * destination after the word that tells the CPU part it had, so it is
 * not ordered by the waits between parts. Pinned and registered memory
 * are copied by the GPU itself, in its part's order. */
static int copy_device(const void *dst, const void *src, const char **why)
{
    int dev = memory_device(dst);
    if (dev == 0 && src != NULL)
        dev = memory_device(src);
    *why = NULL;
    if (dev != 0 && src != NULL && (pageable(dst) || pageable(src)))
        *why = "copies between a GPU's memory and pageable host memory (the CPU device's grMalloc, pool or "
               "graph memory, or malloc'ed): the driver's copy of pageable memory is not ordered by the "
               "waits between the parts of such a graph; copy from or to pinned (grMallocHost) or "
               "registered (grHostRegister) memory instead";
    return dev;
}

/* "the CPU" or "device d", for details. */
static const char *dev_name(char buf[24], int d)
{
    snprintf(buf, 24, d ? "device %d" : "the CPU", d);
    return buf;
}

static grError_t node_device(const char *call, const struct gr_span *sp, const struct grGraphNode_st *n,
                             int *dev);

/* The device a graph allocation is memory of (its node's location): an
 * allocation node's, and its free nodes', part. The allocation's record
 * lives as long as a node names it. */
static int allocation_device(const void *dptr)
{
    gr__gmem_lock();
    const gr_gmem *m = gr__gmem_find_locked(dptr);
    int dev = m != NULL ? m->device : 0;
    gr__gmem_unlock();
    return dev;
}

/* The device the nodes of graph g name, nested child graphs' and
 * conditional bodies' included, into *named (-1: none so far; host and
 * empty nodes name none). Nodes naming two devices are refused: a child
 * graph, or a conditional node with its bodies, goes whole into one part.
 * 'top' is the node instantiate names (NULL: a setter's new child graph);
 * the nest is bounded (GR_GRAPH_MAX_NEST). */
static grError_t nest_device(const char *call, const struct gr_span *sp, const struct grGraphNode_st *top,
                             grGraph_t g, int *named)
{
    for (const struct grGraphNode_st *v = g->first; v != NULL; v = v->next) {
        int d = 0;
        grError_t err;
        if (v->type == grGraphNodeTypeHost || v->type == grGraphNodeTypeEmpty)
            continue;
        if (v->type == grGraphNodeTypeGraph || v->type == grGraphNodeTypeConditional) {
            unsigned nb = v->type == grGraphNodeTypeGraph ? 1 : v->p.cond.nbodies;
            for (unsigned k = 0; k < nb; k++)
                if ((err = nest_device(call, sp, top,
                                       v->type == grGraphNodeTypeGraph ? v->p.child : v->p.cond.bodies[k],
                                       named)))
                    return err;
            continue;
        }
        if ((err = node_device(call, sp, v, &d))) {
            /* The detail names the node inside; errNode_out the graph's. */
            gr__inst_fault.node = top;
            return err;
        }
        if (*named != -1 && d != *named) {
            char a[24], b[24], why[300];
            if (top != NULL && top->type == grGraphNodeTypeConditional)
                snprintf(why, sizeof why,
                         "holds nodes of %s and of %s in its bodies (%s); a conditional node goes whole, "
                         "with its bodies, into one device's part: keep its bodies' work on one device",
                         dev_name(a, *named), dev_name(b, d), gr__node_label(v));
            else
                snprintf(why, sizeof why,
                         "holds nodes of %s and of %s (%s); a child graph goes whole into one device's "
                         "part: move its nodes into the parent graph",
                         dev_name(a, *named), dev_name(b, d), gr__node_label(v));
            if (top == NULL) /* a setter's new child graph */
                return gr__fail(grErrorInvalidValue, "%s: the child graph %s", call, why);
            return refuse_node(call, top, sp->devices, why);
        }
        *named = d;
    }
    return grSuccess;
}

/* The device a child graph node's part is: the one its nodes name
 * (nest_device; -1: none, the CPU's part). */
static grError_t child_device(const char *call, const struct gr_span *sp, const struct grGraphNode_st *top,
                              grGraph_t child, int *dev)
{
    *dev = -1;
    return nest_device(call, sp, top, child, dev);
}

/* The device of a batch memory operation node's words: a GPU's memory
 * goes to that GPU's part, host memory (pinned, registered or not) to the
 * CPU's, which reaches every kind; only barriers: the CPU's. Words of two
 * devices are refused (n NULL: a setter's new operations). */
static grError_t memop_device(const char *call, const struct gr_span *sp, const struct grGraphNode_st *n,
                              const grStreamBatchMemOpParams *ops, unsigned count, int *dev)
{
    int named = -1;
    for (unsigned i = 0; i < count; i++) {
        if (ops[i].operation == grStreamMemOpBarrier)
            continue;
        int d = memory_device(ops[i].waitValue.address);
        if (named != -1 && d != named) {
            char a[24], b[24], why[256];
            snprintf(why, sizeof why,
                     "operates on memory of %s and of %s (operation %u); a node runs in one device's part: "
                     "split it into one node per device",
                     dev_name(a, named), dev_name(b, d), i);
            if (n == NULL)
                return gr__fail(grErrorInvalidValue, "%s: the new operations %s", call, why);
            return refuse_node(call, n, sp->devices, why);
        }
        named = d;
    }
    *dev = named == -1 ? 0 : named;
    return grSuccess;
}

/* The device whose part runs n in a graph that spans devices: a kernel
 * node's own, a memset's destination's, a copy's device memory's (the
 * destination's, else the source's), an event node's event's, a child
 * graph's nodes' (child_device), a conditional node's bodies' nodes'
 * (nest_device), a collective node's communicator's, a batch memory
 * operation node's words'
 * (memop_device), the CPU for host and empty nodes and for copies and
 * memsets of host memory; other kinds are refused. */
static grError_t node_device(const char *call, const struct gr_span *sp, const struct grGraphNode_st *n,
                             int *dev)
{
    switch (n->type) {
    case grGraphNodeTypeEventRecord:
    case grGraphNodeTypeWaitEvent:
        *dev = n->p.event->device;
        return grSuccess;
    case grGraphNodeTypeGraph: {
        /* A part gets a copy of the child graph, and a graph with memory
         * nodes is not copied (docs/memory-pools.md). */
        if (gr__graphmem_has_nodes(n->p.child))
            return refuse_node(call, n, sp->devices,
                               "holds memory nodes (its child graph was moved in); in a graph that spans "
                               "devices they go into the parent graph");
        grError_t err = child_device(call, sp, n, n->p.child, dev);
        if (!err && *dev == -1)
            *dev = 0;
        return err;
    }
    case grGraphNodeTypeConditional: {
        /* Like a child graph: whole, with its bodies, in one part. */
        int named = -1;
        for (unsigned k = 0; k < n->p.cond.nbodies; k++) {
            grError_t err = nest_device(call, sp, n, n->p.cond.bodies[k], &named);
            if (err)
                return err;
        }
        *dev = named == -1 ? 0 : named;
        return grSuccess;
    }
    case grGraphNodeTypeKernel:
        if (gr__node_devupd(n))
            return refuse_node(call, n, sp->devices, "is device-updatable");
        *dev = n->dev1 ? (int)n->dev1 - 1 : 0;
        return grSuccess;
    case grGraphNodeTypeMemset:
        *dev = memory_device(n->p.memset.dst);
        return grSuccess;
    case grGraphNodeTypeMemcpy: {
        const char *why;
        *dev = copy_device(n->p.memcpy.dst, n->p.memcpy.src, &why);
        if (!why)
            return grSuccess;
        gr__inst_fault.node = n;
        gr__inst_fault.named = true;
        return gr__fail(grErrorNotSupported, "%s: %s, in a graph that spans %s, %s", call, gr__node_label(n),
                        sp->devices, why);
    }
    case grGraphNodeTypeHost:
    case grGraphNodeTypeEmpty:
        *dev = 0;
        return grSuccess;
    case grGraphNodeTypeBatchMemOp:
        return memop_device(call, sp, n, n->p.memop.ops, n->p.memop.count, dev);
    case grGraphNodeTypeCollective: {
        /* Its communicator's device: an MPI (or one-rank CPU)
         * communicator's is the CPU, an NCCL one's its GPU. A dead one
         * is the part's instantiation to refuse, in the CPU's part. */
        grComm_t c = n->p.coll.comm;
        *dev = gr__comm_check_live(call, c) == grSuccess ? c->device : 0;
        return grSuccess;
    }
    case grGraphNodeTypeMemAlloc:
        *dev = allocation_device(n->p.alloc.dptr);
        return grSuccess;
    case grGraphNodeTypeMemFree:
        *dev = allocation_device(n->p.free.dptr);
        return grSuccess;
    default:
        return refuse_node(call, n, sp->devices,
                           "is not a kernel, memset, memcpy, host, empty, event record, event wait, batch "
                           "memory operation, memory allocation, memory free, child graph, conditional or "
                           "collective node");
    }
}

/* ------------------------------------------------ conditional handles */

/* Notes the handle of conditional node cn, which runs in part p, and
 * those of the conditional nodes in its bodies. */
static grError_t note_handles(builder *b, const struct grGraphNode_st *cn, uint32_t p)
{
    if (b->nhandles == b->cap_handles) {
        uint32_t cap = b->cap_handles ? 2 * b->cap_handles : 8;
        span_handle *h = gr__realloc(b->handles, cap * sizeof *h);
        if (h)
            b->handles = h;
        const struct grGraphNode_st **hn = gr__realloc(b->hnodes, cap * sizeof *hn);
        if (hn)
            b->hnodes = hn;
        if (!h || !hn)
            return gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
        b->cap_handles = cap;
    }
    b->handles[b->nhandles] = (span_handle){cn->p.cond.slot, p};
    b->hnodes[b->nhandles++] = cn;
    for (unsigned k = 0; k < cn->p.cond.nbodies; k++)
        for (const struct grGraphNode_st *v = cn->p.cond.bodies[k]->first; v != NULL; v = v->next) {
            grError_t err;
            if (v->type == grGraphNodeTypeConditional && (err = note_handles(b, v, p)))
                return err;
        }
    return grSuccess;
}

/* The handle among hs[0..n) that an argument of kernel node k's
 * parameters equals (a parameter of 8 bytes, as the GPU lowering
 * replaces, backend/cuda/graph.c), in another part than p: its index,
 * *arg the parameter; -1 if none. */
static int foreign_handle(const span_handle *hs, uint32_t n, grKernel_t kern, void *const *argv, uint32_t p,
                          int *arg)
{
    for (int j = 0; argv != NULL && j < kern->nparams; j++) {
        unsigned long long v;
        if (kern->sizes[j] != sizeof v || argv[j] == NULL)
            continue;
        memcpy(&v, argv[j], sizeof v);
        for (uint32_t h = 0; h < n; h++)
            if (v == (unsigned long long)(uintptr_t)hs[h].slot && hs[h].part != p) {
                *arg = j;
                return (int)h;
            }
    }
    return -1;
}

/* Refuses a kernel node of part p, at any depth under top-level node
 * 'top', that takes the handle of a conditional node of another part: a
 * GPU part's CUDA graph gives its kernels the driver's handle in
 * graphrt's place, and the value a part's conditional node tests is its
 * own part's (the CPU part's, the handle's cell; a GPU part's, its
 * driver handle), which a kernel of another part cannot set. */
static grError_t check_kernels(builder *b, const struct grGraphNode_st *top, const struct grGraphNode_st *v,
                               uint32_t p)
{
    grError_t err = grSuccess;
    if (v->type == grGraphNodeTypeKernel) {
        int arg = 0,
            h = foreign_handle(b->handles, b->nhandles, v->p.kernel.kernel, v->p.kernel.argv, p, &arg);
        if (h < 0)
            return grSuccess;
        char kl[160], cl[160], kd[24], cd[24], why[700];
        snprintf(kl, sizeof kl, "%s", gr__node_label(v));
        snprintf(cl, sizeof cl, "%s", gr__node_label(b->hnodes[h]));
        snprintf(why, sizeof why,
                 "%s%s%sruns in the part of %s and takes as argument %d the handle of %s, which runs in the "
                 "part of %s; a kernel sets a conditional node's handle in that node's part only (a GPU's "
                 "CUDA graph gives its own kernels the driver's handle in graphrt's place): put the kernel "
                 "on the device of the conditional node's bodies",
                 v == top ? "" : "holds ", v == top ? "" : kl, v == top ? "" : ", which ",
                 dev_name(kd, b->owner->parts[p].device), arg, cl,
                 dev_name(cd, b->owner->parts[b->handles[h].part].device));
        return refuse_node(b->call, top, b->sp->devices, why);
    }
    unsigned nb = v->type == grGraphNodeTypeGraph         ? 1
                  : v->type == grGraphNodeTypeConditional ? v->p.cond.nbodies
                                                          : 0;
    for (unsigned k = 0; k < nb && !err; k++) {
        grGraph_t g = v->type == grGraphNodeTypeGraph ? v->p.child : v->p.cond.bodies[k];
        for (const struct grGraphNode_st *w = g->first; w != NULL && !err; w = w->next)
            err = check_kernels(b, top, w, p);
    }
    return err;
}

/* The handles of the conditional nodes of b->ord with their parts, then
 * every kernel's arguments against them (check_kernels). */
static grError_t check_handles(builder *b)
{
    grError_t err = grSuccess;
    for (uint32_t i = 0; i < b->n && !err; i++)
        if (b->ord[i]->type == grGraphNodeTypeConditional)
            err = note_handles(b, b->ord[i], b->part[i]);
    for (uint32_t i = 0; i < b->n && !err && b->nhandles; i++)
        err = check_kernels(b, b->ord[i], b->ord[i], b->part[i]);
    return err;
}

static grError_t assign(builder *b, int *part_of_dev, uint32_t *ncross)
{
    for (uint32_t i = 0; i < b->n; i++) {
        int dev = 0;
        grError_t err = node_device(b->call, b->sp, b->ord[i], &dev);
        if (err)
            return err;
        b->part[i] = (uint32_t)part_of_dev[dev];
    }
    *ncross = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        const struct grGraphNode_st *n = b->ord[i];
        for (size_t k = 0; k < n->ndeps; k++) {
            uint32_t j = (uint32_t)n->deps[k]->scratch;
            uint32_t *w = &b->word[(size_t)j * b->np + b->part[i]];
            if (b->part[j] != b->part[i] && *w == NONE)
                *w = (*ncross)++;
        }
    }
    return grSuccess;
}

static grError_t instantiate_parts(builder *b, unsigned long long flags)
{
    struct gr_span *sp = b->sp;
    int cur = gr__device_current();
    grError_t err = grSuccess;
    grGraphInstantiateParams ip;
    memset(&ip, 0, sizeof ip);
    ip.flags = flags & ~(unsigned long long)grGraphInstantiateFlagUpload;
    for (uint32_t p = 0; p < sp->nparts && !err; p++) {
        gr__device_select(sp->parts[p].device);
        err = grGraphInstantiateWithParams(&sp->parts[p].e, sp->parts[p].g, &ip);
        if (!err)
            err = gr__stream_create_dev(b->call, sp->parts[p].device, grStreamNonBlocking, 0,
                                        p > 0 ? &sp->parts[p].stream : &sp->cpu);
    }
    gr__device_select(cur);
    if (err) {
        /* The part's culprit is a copy: name the original. */
        gr__inst_fault = (gr_inst_fault){NULL, UINT32_MAX, false, false, false, 0};
        for (uint32_t i = 0; ip.errNode_out != NULL && i < b->n; i++)
            if (b->clone[i] == ip.errNode_out)
                gr__inst_fault.node = b->ord[i];
    }
    return err;
}

/* Puts the top-level nodes in b->ord in plan order (a topological one),
 * each node's position in its scratch; *maxdeps: the most dependencies of
 * one node. */
static grError_t order_nodes(builder *b, const struct grGraphExec_st *e, size_t *maxdeps)
{
    const gr_orig **byp = gr__calloc(b->n ? b->n : 1, sizeof *byp);
    if (!byp)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
    for (uint32_t i = 0; i < b->n; i++)
        byp[i] = &e->orig[i];
    qsort(byp, b->n, sizeof *byp, cmp_pindex);
    *maxdeps = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        b->ord[i] = (struct grGraphNode_st *)(uintptr_t)byp[i]->node;
        b->ord[i]->scratch = i;
        *maxdeps = b->ord[i]->ndeps > *maxdeps ? b->ord[i]->ndeps : *maxdeps;
    }
    gr__free(byp);
    return grSuccess;
}

/* The parts' graphs: the first node, every node with its waits and
 * signals, the tails. */
static grError_t build_parts(builder *b)
{
    struct gr_span *sp = b->sp;
    grError_t err;
    for (uint32_t p = 0; p < b->np; p++)
        if ((err = grGraphCreate(&sp->parts[p].g, 0)))
            return err;
    grHostNodeParams hp = {span_start, b->owner};
    if ((err = grGraphAddHostNode(&b->start, sp->parts[0].g, NULL, 0, &hp)))
        return err;
    for (uint32_t i = 0; i < b->n; i++)
        if ((err = add_node(b, i)))
            return err;
    return add_tails(b);
}

static grError_t build(builder *b, struct grGraphExec_st *e, unsigned long long flags, int *part_of_dev)
{
    struct gr_span *sp = b->sp;
    size_t maxdeps = 0;
    grError_t err = order_nodes(b, e, &maxdeps);
    if (err)
        return err;
    for (size_t i = 0; i < (size_t)b->n * b->np; i++)
        b->word[i] = NONE;
    uint32_t ncross = 0;
    if ((err = assign(b, part_of_dev, &ncross)) || (err = check_handles(b)))
        return err;
    sp->nwords = (b->np - 1) + ncross;
    for (uint32_t p = 1; p < b->np; p++)
        sp->parts[p].done = ncross + p - 1;
    /* Room for any node's list: its dependencies, or the first node and
     * signals, or a part's sinks. */
    size_t room = maxdeps + ncross + b->n + 2 * (size_t)b->np + 1;
    b->deps = gr__calloc(room, sizeof *b->deps);
    b->sigs = gr__calloc(ncross + 1, sizeof *b->sigs);
    b->sig_part = gr__calloc(ncross + 1, sizeof *b->sig_part);
    if (!b->deps || !b->sigs || !b->sig_part)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
    if ((err = words_alloc(b->call, sp)) || (err = build_parts(b)) || (err = instantiate_parts(b, flags)))
        return err;
    /* See the file's head. */
    for (uint32_t p = 0; p < sp->nparts; p++)
        sp->parts[p].e->plan.waits_alone = true;
    sp->pairs = gr__calloc((size_t)b->n + b->nbody_pairs + 1, sizeof *sp->pairs);
    if (!sp->pairs)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
    for (uint32_t i = 0; i < b->n; i++)
        sp->pairs[i] = (span_pair){b->ord[i], b->clone[i], b->part[i], b->ord[i]->type};
    for (uint32_t i = 0; i < b->nbody_pairs; i++)
        sp->pairs[b->n + i] = b->body_pairs[i];
    sp->npairs = b->n + b->nbody_pairs;
    sp->handles = b->handles;
    sp->nhandles = b->nhandles;
    b->handles = NULL;
    qsort(sp->pairs, sp->npairs, sizeof *sp->pairs, cmp_pair);
    return grSuccess;
}

grError_t gr__exec_span_build(const char *call, struct grGraphExec_st *e, grGraph_t g,
                              unsigned long long flags)
{
    struct gr_span *sp = gr__calloc(1, sizeof *sp);
    if (!sp)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    e->span = sp;
    name_devices(sp, devices_named(g));
    /* The devices the parts are for: the kernels' and the memory of the
     * copies and memsets; the CPU's part leads, always. */
    uint64_t seen = 1u;
    for (const struct grGraphNode_st *n = g->first; n != NULL; n = n->next) {
        int dev = 0;
        grError_t err = node_device(call, sp, n, &dev);
        if (err)
            return err;
        seen |= 1ull << (dev < 63 ? dev : 63);
    }
    /* What compile_plan checks of a graph with conditional handles (an
     * unused one): the parts' graphs hold none of their own. */
    if (g->cond_slots != NULL || gr__graph_has_conditional(g)) {
        grError_t err = gr__exec_cond_check_graph(call, g);
        if (err)
            return err;
    }
    int part_of_dev[64];
    for (int d = 0; d < 64; d++) {
        part_of_dev[d] = -1;
        if (seen >> d & 1) {
            if (d > gr__gpu_count())
                return gr__fail(grErrorInvalidDevice,
                                "%s: the graph's nodes name %s, but device %d does not exist (%d GPUs)", call,
                                sp->devices, d, gr__gpu_count());
            part_of_dev[d] = (int)sp->nparts;
            sp->parts[sp->nparts++].device = d;
        }
    }
    /* The node map stays empty: every setter's lookup misses and takes
     * the slow path, which refuses or forwards (gr__exec_span_refuse). */
    gr_node_map *m = gr__calloc(1, sizeof *m + 16 * sizeof m->slots[0]);
    if (!m)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    m->mask = 15;
    gr_store_release(&e->map, m);
    /* The graph's memory, mapped before the parts are lowered (the
     * driver takes memory it does not know for host memory) and before
     * the builder takes the nodes' scratch. */
    grError_t gerr = gr__graphmem_instantiate(call, e, g, GR_GRAPHMEM_ANY_DEVICE);
    if (gerr)
        return gerr;

    builder b;
    bool made = builder_init(&b, call, sp, sp, e->norig);
    b.record = true;
    grError_t err = made ? build(&b, e, flags, part_of_dev)
                         : gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    builder_free(&b);
    return err;
}

/* ------------------------------------------------------------ updating */

/* An update's new part graphs, built from the new graph by the calls
 * that built the parts (so each pairs with its part node for node). */
struct gr_span_upd {
    grGraph_t g[GR_MAX_GPUS + 1];
    uint32_t nparts;
    span_handle *handles; /* the new graph's conditional handles */
    uint32_t nhandles;
};

static void upd_free(struct gr_span_upd *su)
{
    gr__free(su->handles);
    for (uint32_t p = 0; p < su->nparts; p++)
        if (su->g[p])
            (void)grGraphDestroy(su->g[p]);
    gr__free(su);
}

/* The new graph's node for each position of the parts' order: pairs
 * (by orig index) put in pindex order, as order_nodes put the originals. */
static grError_t upd_order(builder *b, const struct grGraphExec_st *e, struct grGraphNode_st *const *pairs,
                           size_t *maxdeps)
{
    uint32_t *byp = gr__calloc(b->n ? b->n : 1, sizeof *byp);
    if (!byp)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
    /* pindex is unique per top-level node: a counting placement. */
    uint32_t maxp = 0;
    for (uint32_t i = 0; i < b->n; i++)
        maxp = e->orig[i].pindex > maxp ? e->orig[i].pindex : maxp;
    uint32_t *slot = gr__calloc((size_t)maxp + 1, sizeof *slot);
    if (!slot) {
        gr__free(byp);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
    }
    for (uint32_t i = 0; i < b->n; i++)
        slot[e->orig[i].pindex] = i + 1;
    uint32_t k = 0;
    for (uint32_t q = 0; q <= maxp; q++)
        if (slot[q])
            byp[k++] = slot[q] - 1;
    *maxdeps = 0;
    grError_t err = grSuccess;
    for (uint32_t i = 0; i < k && !err; i++) {
        b->ord[i] = pairs[byp[i]];
        b->ord[i]->scratch = i;
        *maxdeps = b->ord[i]->ndeps > *maxdeps ? b->ord[i]->ndeps : *maxdeps;
        /* The part of the original it pairs with. */
        span_pair key = {e->orig[byp[i]].node, NULL, 0, grGraphNodeTypeEmpty};
        const span_pair *was = bsearch(&key, b->owner->pairs, b->owner->npairs, sizeof key, cmp_pair);
        if (GR_NEVER(was == NULL))
            err = gr__fail(grErrorGraphExecUpdateFailure, "%s: a node the executable holds has no part",
                           b->call);
        else
            b->part[i] = was->part;
    }
    gr__free(slot);
    gr__free(byp);
    return err;
}

/* Each new node in the part of its original (else refused), then the
 * part graphs built as at instantiation, the words and the first node's
 * span the executable's own. */
static grError_t upd_build(builder *b, struct grGraphExec_st *e, struct grGraphNode_st *const *pairs,
                           grGraphExecUpdateResultInfo *info)
{
    struct gr_span *sp = e->span, *tmp = b->sp;
    size_t maxdeps = 0;
    grError_t err = upd_order(b, e, pairs, &maxdeps);
    if (err)
        return err;
    for (uint32_t i = 0; i < b->n; i++) {
        struct grGraphNode_st *n = b->ord[i];
        int dev = 0, was = sp->parts[b->part[i]].device;
        if (node_device(b->call, sp, n, &dev) != grSuccess) {
            info->result = grGraphExecUpdateErrorNotSupported;
            info->errorNode = n;
            return gr__fail_again(grErrorGraphExecUpdateFailure);
        }
        if (dev != was) {
            char now[24], old[24];
            info->result = grGraphExecUpdateErrorParametersChanged;
            info->errorNode = n;
            return gr__fail(grErrorGraphExecUpdateFailure,
                            "%s: %s names %s (%s), where the node it pairs with runs in the part of %s of "
                            "executable %p (a graph that spans %s); an update keeps every node in its "
                            "device's part, as CUDA's update refuses to change a node's context or the "
                            "device of its memory: instantiate the changed graph again",
                            b->call, gr__node_label(n), dev_name(now, dev),
                            n->type == grGraphNodeTypeKernel ? "the device current when it was added"
                                                             : "the device of its memory",
                            dev_name(old, was), GR_PTR(e), sp->devices);
        }
    }
    if (check_handles(b) != grSuccess) {
        info->result = grGraphExecUpdateErrorNotSupported;
        info->errorNode = (grGraphNode_t)(uintptr_t)gr__inst_fault.node;
        return gr__fail_again(grErrorGraphExecUpdateFailure);
    }
    for (size_t i = 0; i < (size_t)b->n * b->np; i++)
        b->word[i] = NONE;
    uint32_t ncross = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        const struct grGraphNode_st *n = b->ord[i];
        for (size_t k = 0; k < n->ndeps; k++) {
            uint32_t j = (uint32_t)n->deps[k]->scratch;
            uint32_t *w = &b->word[(size_t)j * b->np + b->part[i]];
            if (b->part[j] != b->part[i] && *w == NONE)
                *w = ncross++;
        }
    }
    /* Same parts, same topology: the same words (checked, not assumed). */
    if (GR_NEVER(ncross + (b->np - 1) != sp->nwords))
        return gr__fail(grErrorGraphExecUpdateFailure, "%s: the parts' edges differ", b->call);
    tmp->words = sp->words;
    tmp->nwords = sp->nwords;
    for (uint32_t p = 0; p < b->np; p++) {
        tmp->parts[p].device = sp->parts[p].device;
        tmp->parts[p].done = sp->parts[p].done;
    }
    size_t room = maxdeps + ncross + b->n + 2 * (size_t)b->np + 1;
    b->deps = gr__calloc(room, sizeof *b->deps);
    b->sigs = gr__calloc(ncross + 1, sizeof *b->sigs);
    b->sig_part = gr__calloc(ncross + 1, sizeof *b->sig_part);
    if (!b->deps || !b->sigs || !b->sig_part)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
    return build_parts(b);
}

grError_t gr__exec_span_update_prepare(const char *call, struct grGraphExec_st *e,
                                       struct grGraphNode_st *const *pairs, grGraphExecUpdateResultInfo *info,
                                       struct gr_span_upd **out)
{
    struct gr_span *sp = e->span;
    struct gr_span tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.nparts = sp->nparts;
    memcpy(tmp.devices, sp->devices, sizeof tmp.devices);
    struct gr_span_upd *su = gr__calloc(1, sizeof *su);
    if (!su)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    /* The new nodes' scratch holds their orig index (plus one) for the
     * rest of the update: kept aside while the builder uses it. */
    uint32_t n = e->norig;
    uint64_t *saved = gr__calloc(n ? n : 1, sizeof *saved);
    builder b;
    bool made = builder_init(&b, call, &tmp, sp, n);
    grError_t err;
    if (!saved || !made) {
        err = gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    } else {
        for (uint32_t i = 0; i < n; i++)
            saved[i] = pairs[i]->scratch;
        err = upd_build(&b, e, pairs, info);
        for (uint32_t i = 0; i < n; i++)
            pairs[i]->scratch = saved[i];
    }
    /* A handle of the new graph is the executable's already, or no
     * live executable's (one at a time, as in CUDA). */
    for (uint32_t h = 0; h < b.nhandles && !err; h++) {
        bool held = false;
        for (uint32_t k = 0; k < sp->nhandles && !held; k++)
            held = sp->handles[k].slot == b.handles[h].slot;
        if (!held && gr_load_acquire(&b.handles[h].slot->execs) != 0) {
            info->result = grGraphExecUpdateErrorNotSupported;
            info->errorNode = (grGraphNode_t)(uintptr_t)b.hnodes[h];
            err = gr__fail(grErrorGraphExecUpdateFailure,
                           "%s: %s: a conditional handle of its graph is used by another executable (one at "
                           "a time, as in CUDA)",
                           call, gr__node_label(b.hnodes[h]));
        }
    }
    /* What a part's device refuses (a GPU kernel without an image, memory
     * the device cannot reach), for every part before any changes: the
     * parts' own updates then refuse nothing but for lack of memory. */
    for (uint32_t i = 0; i < n && !err; i++)
        err = gr__exec_update_device_check(call, sp->parts[b.part[i]].e, b.ord[i]);
    for (uint32_t p = 0; p < tmp.nparts; p++)
        su->g[p] = tmp.parts[p].g;
    su->nparts = tmp.nparts;
    su->handles = b.handles;
    su->nhandles = b.nhandles;
    b.handles = NULL;
    gr__free(saved);
    builder_free(&b);
    if (err) {
        upd_free(su);
        return err;
    }
    *out = su;
    return grSuccess;
}

/* One part's update from its new graph; a refusal (lack of memory: the
 * checks passed) names the part. */
static grError_t upd_part(const char *call, struct gr_span *sp, uint32_t p, grGraph_t g)
{
    grGraphExecUpdateResultInfo info;
    grError_t err = grGraphExecUpdate(sp->parts[p].e, g, &info);
    if (!err)
        return grSuccess;
    char why[256], dev[24];
    snprintf(why, sizeof why, "%s", grGetLastErrorDetail());
    return gr__fail(err,
                    "%s: the part of %s of a graph that spans %s could not take the update (%s); parts "
                    "updated before it keep the new parameters: instantiate the graph again",
                    call, dev_name(dev, sp->parts[p].device), sp->devices, why);
}

grError_t gr__exec_span_update_apply(const char *call, struct grGraphExec_st *e, struct gr_span_upd *su)
{
    struct gr_span *sp = e->span;
    grError_t err = grSuccess;
    /* The GPU parts inside the CPU part's write section (exec.h,
     * gr_span_node), then the CPU part, which takes its own. */
    if (sp->nparts > 1) {
        gr__exec_write_begin(sp->parts[0].e);
        for (uint32_t p = 1; p < sp->nparts && !err; p++)
            err = upd_part(call, sp, p, su->g[p]);
        gr__exec_write_end(sp->parts[0].e);
    }
    if (!err)
        err = upd_part(call, sp, 0, su->g[0]);
    if (!err) {
        /* The parts now hold the new graph's handles (an update takes
         * them, docs/conditional.md): the setters check against those. */
        span_handle *old = sp->handles;
        sp->handles = su->handles;
        sp->nhandles = su->nhandles;
        su->handles = old;
    }
    upd_free(su);
    return err;
}

void gr__exec_span_update_discard(struct gr_span_upd *su)
{
    if (su)
        upd_free(su);
}

/* ----------------------------------------------------- using and freeing */

grError_t gr__exec_span_refuse_at(const char *call, const struct grGraphExec_st *e)
{
    return gr__fail(grErrorNotSupported,
                    "%s: executable %p is of a graph that spans devices (%s), which this call does not "
                    "change in place so far: instantiate the changed graph again (docs/devices.md, \"Graphs "
                    "that span devices\")",
                    call, GR_PTR(e), e->span->devices);
}

grError_t gr__exec_span_node(const char *call, const struct grGraphExec_st *e, grGraphNode_t node,
                             gr_span_node *out)
{
    const struct gr_span *sp = e->span;
    span_pair key = {node, NULL, 0, grGraphNodeTypeEmpty};
    const span_pair *found = node ? bsearch(&key, sp->pairs, sp->npairs, sizeof key, cmp_pair) : NULL;
    if (!found)
        return gr__fail(grErrorInvalidValue,
                        "%s: node %p is not a node of the graph executable %p was instantiated from", call,
                        GR_PTR(node), GR_PTR(e));
    out->exec = sp->parts[found->part].e;
    out->clone = found->clone;
    out->hold = found->part != 0 ? sp->parts[0].e : NULL;
    out->type = found->type;
    out->device = sp->parts[found->part].device;
    return grSuccess;
}

grError_t gr__exec_span_node_typed(const char *call, const struct grGraphExec_st *e, grGraphNode_t node,
                                   grGraphNodeType type, const char *kind, gr_span_node *out)
{
    grError_t err = gr__exec_span_node(call, e, node, out);
    if (!err && out->type != type)
        err = gr__fail(grErrorInvalidValue, "%s: node %p is a %s node, not a %s node", call, GR_PTR(node),
                       gr__node_type_name(out->type), kind);
    return err;
}

grError_t gr__exec_span_check_device(const char *call, const struct grGraphExec_st *e, const gr_span_node *sn,
                                     grGraphNode_t node, int dev, const char *what)
{
    if (dev == sn->device)
        return grSuccess;
    char now[24], was[24];
    return gr__fail(grErrorInvalidValue,
                    "%s: the new %s belongs to %s, and node %p runs in the part of %s of executable %p (a "
                    "graph "
                    "that spans %s): the device it named chose that part at instantiation, and a node does "
                    "not move to another device's part, as CUDA refuses a setter that changes the device "
                    "of a node's memory, event or child graph; instantiate the changed graph again",
                    call, what, dev_name(now, dev), GR_PTR(node), dev_name(was, sn->device), GR_PTR(e),
                    e->span->devices);
}

grError_t gr__exec_span_check_memory(const char *call, const struct grGraphExec_st *e, const gr_span_node *sn,
                                     grGraphNode_t node, const void *dst, const void *src)
{
    const char *why;
    int dev = copy_device(dst, src, &why);
    if (why)
        return gr__fail(grErrorInvalidValue,
                        "%s: the new copy %p -> %p of node %p in executable %p (a graph that "
                        "spans %s) %s",
                        call, GR_PTR(src), GR_PTR(dst), GR_PTR(node), GR_PTR(e), e->span->devices, why);
    char what[64];
    if (src != NULL)
        snprintf(what, sizeof what, "copy %p -> %p", GR_PTR(src), GR_PTR(dst));
    else
        snprintf(what, sizeof what, "destination %p", GR_PTR(dst));
    return gr__exec_span_check_device(call, e, sn, node, dev, what);
}

grError_t gr__exec_span_memop(const char *call, struct grGraphExec_st *e, grGraphNode_t node,
                              const grBatchMemOpNodeParams *np)
{
    gr_span_node sn;
    grError_t err =
        gr__exec_span_node_typed(call, e, node, grGraphNodeTypeBatchMemOp, "batch memory operation", &sn);
    if (err)
        return err;
    int dev = 0;
    if (np != NULL) { /* NULL: the part's setter refuses it */
        if ((err = memop_device(call, e->span, NULL, np->paramArray, np->count, &dev)))
            return err;
        char what[64];
        snprintf(what, sizeof what, "operations' memory (%s)",
                 np->count ? "their words" : "no words: the CPU's");
        if ((err = gr__exec_span_check_device(call, e, &sn, node, dev, what)))
            return err;
    }
    if (sn.hold)
        gr__exec_write_begin(sn.hold);
    err = grGraphExecBatchMemOpNodeSetParams(sn.exec, sn.clone, np);
    if (sn.hold)
        gr__exec_write_end(sn.hold);
    return err;
}

grError_t gr__exec_span_child(const char *call, struct grGraphExec_st *e, grGraphNode_t node, grGraph_t child)
{
    gr_span_node sn;
    grError_t err = gr__exec_span_node_typed(call, e, node, grGraphNodeTypeGraph, "child graph", &sn);
    if (err)
        return err;
    int dev = 0;
    if (child_device(call, e->span, NULL, child, &dev) != grSuccess) {
        char why[400];
        snprintf(why, sizeof why, "%s", grGetLastErrorDetail());
        return gr__fail(grErrorInvalidValue, "%s (childGraph %p)", why, GR_PTR(child));
    }
    char what[64];
    snprintf(what, sizeof what, "child graph %p", GR_PTR(child));
    if ((err = gr__exec_span_check_device(call, e, &sn, node, dev == -1 ? 0 : dev, what)))
        return err;
    if (sn.hold)
        gr__exec_write_begin(sn.hold);
    err = grGraphExecChildGraphNodeSetParams(sn.exec, sn.clone, child);
    if (sn.hold)
        gr__exec_write_end(sn.hold);
    return err;
}

grError_t gr__exec_span_check_kernel(const char *call, const struct grGraphExec_st *e, const gr_span_node *sn,
                                     grGraphNode_t node, const grKernelNodeParams *p)
{
    const struct gr_span *sp = e->span;
    if (p == NULL || !gr__kernel_valid(p->func))
        return grSuccess; /* the part's setter refuses what is wrong */
    uint32_t part = 0;
    for (uint32_t q = 0; q < sp->nparts; q++)
        if (sp->parts[q].device == sn->device)
            part = q;
    /* An update swaps the handles inside e's write section. */
    grGraphExec_t w = (grGraphExec_t)(uintptr_t)e;
    gr__exec_write_begin(w);
    int arg = 0, h = foreign_handle(sp->handles, sp->nhandles, p->func, p->kernelParams, part, &arg);
    uint32_t hpart = h < 0 ? 0 : sp->handles[h].part;
    gr__exec_write_end(w);
    if (h < 0)
        return grSuccess;
    char kd[24], cd[24];
    return gr__fail(grErrorInvalidValue,
                    "%s: argument %d of the new parameters of node %p, which runs in the part of %s of "
                    "executable %p (a graph that spans %s), is the handle of a conditional node that runs "
                    "in the part of %s; a kernel sets a conditional node's handle in that node's part only "
                    "(a GPU's CUDA graph gives its own kernels the driver's handle in graphrt's place)",
                    call, arg, GR_PTR(node), dev_name(kd, sn->device), GR_PTR(e), sp->devices,
                    dev_name(cd, sp->parts[hpart].device));
}

typedef struct gpu_start {
    struct gr_span *sp;
    uint32_t slot, n;
} gpu_start;

/* The host function of a launch on a GPU stream (file head): queues the
 * CPU part and the write of its slot's END on graphrt's CPU stream. A
 * failure (out of memory) breaks the executable, and END is written all
 * the same: the stream's later work is never held for good. */
static void span_gpu_start(void *data)
{
    gpu_start a;
    memcpy(&a, data, sizeof a);
    struct gr_span *sp = a.sp;
    grStreamBatchMemOpParams end;
    memset(&end, 0, sizeof end);
    end.operation = grStreamMemOpWriteValue32;
    end.writeValue.address = &sp->words[sp->nwords + a.slot];
    end.writeValue.value = a.n;
    grError_t err = gr__exec_launch_dev("grGraphLaunch", sp->parts[0].e, sp->cpu, false);
    if (GR_UNLIKELY(err))
        gr_store_release(&sp->broken, err);
    if (GR_UNLIKELY(gr__stream_memops_dev("grGraphLaunch", sp->cpu, 1, &end))) {
        (void)gr__stream_sync_dev("grGraphLaunch", sp->cpu);
        __atomic_store_n(&sp->words[sp->nwords + a.slot], a.n, __ATOMIC_SEQ_CST);
    }
}

/* s's slot: its own, else one whose launches are all over; -1 if all
 * NSLOTS hold launches in flight. Under slot_lock. */
static int find_slot(struct gr_span *sp, const gr_stream *s)
{
    int free_slot = -1;
    for (int i = 0; i < NSLOTS; i++) {
        if (sp->slots[i].serial == s->serial)
            return i;
        uint32_t end = __atomic_load_n(&sp->words[sp->nwords + (uint32_t)i], __ATOMIC_ACQUIRE);
        if (free_slot < 0 && end == sp->slots[i].queued)
            free_slot = i;
    }
    if (free_slot >= 0)
        sp->slots[free_slot].serial = s->serial;
    return free_slot;
}

/* A launch on GPU stream s (file head). Where NSLOTS other streams hold
 * launches in flight, the call waits for one to end. */
static grError_t launch_on_gpu_stream(const char *call, struct gr_span *sp, gr_stream *s)
{
    int slot;
    for (;;) {
        gr__spin_lock(&sp->slot_lock);
        if ((slot = find_slot(sp, s)) >= 0)
            break;
        gr__spin_unlock(&sp->slot_lock);
        struct timespec ts = {0, 50 * 1000};
        nanosleep(&ts, NULL);
    }
    /* Held while queuing on s: s's launches take their numbers in the
     * order they are queued there. */
    uint32_t n = sp->slots[slot].queued + 1;
    gpu_start a = {sp, (uint32_t)slot, n};
    grStreamBatchMemOpParams wait;
    memset(&wait, 0, sizeof wait);
    wait.operation = grStreamMemOpWaitValue32;
    wait.waitValue.address = &sp->words[sp->nwords + (uint32_t)slot];
    wait.waitValue.value = n;
    wait.waitValue.flags = grStreamWaitValueGeq;
    grError_t err = gr__stream_call_dev(call, s, span_gpu_start, &a, sizeof a);
    if (!err) {
        sp->slots[slot].queued = n;
        sp->launched_on |= 1ull << (s->device < 63 ? s->device : 63);
        err = gr__stream_memops_dev(call, s, 1, &wait);
    }
    gr__spin_unlock(&sp->slot_lock);
    return err;
}

grError_t gr__exec_span_launch(const char *call, struct grGraphExec_st *e, grStream_t h, gr_stream *s,
                               bool upload)
{
    struct gr_span *sp = e->span;
    grError_t err;
    (void)h;
    grError_t broken = gr_load_acquire(&sp->broken);
    if (broken)
        return gr__fail(broken,
                        "%s: executable %p (a graph that spans %s) could not launch a GPU part in an earlier "
                        "launch (%s); it launches no more: instantiate the graph again",
                        call, GR_PTR(e), sp->devices, grGetErrorName(broken));
    /* The copies' and memsets' ranges, as grGraphLaunch checks them. */
    for (uint32_t p = 0; p < sp->nparts; p++)
        if ((err = gr__exec_ranges_current(call, sp->parts[p].e)))
            return err;
    if (upload) {
        for (uint32_t p = 1; p < sp->nparts; p++)
            if ((err = gr__exec_launch_dev(call, sp->parts[p].e, sp->parts[p].stream, true)))
                return err;
        return grSuccess;
    }
    /* Graph memory's launch rule, on the whole graph's allocations before
     * any part starts (the parts' launches have none to apply). */
    if ((e->flags & GR_EXEC_GRAPHMEM) && (err = gr__graphmem_launch(e)))
        return err;
    if (s->device != 0)
        return launch_on_gpu_stream(call, sp, s);
    return gr__exec_launch_dev(call, sp->parts[0].e, s, false);
}

void gr__exec_span_quiesce(struct grGraphExec_st *e)
{
    struct gr_span *sp = e->span;
    /* Launches on GPU streams first: their host functions and waits use
     * the executable and its words, and graphrt does not keep their
     * streams, so their devices' work is waited for (as an executable
     * holding user objects waits, user-objects.md); then the CPU stream
     * their host functions queued on. */
    gr__spin_lock(&sp->slot_lock);
    uint64_t devs = sp->launched_on;
    gr__spin_unlock(&sp->slot_lock);
    for (int d = 1; d < 64; d++)
        if (devs >> d & 1)
            (void)gr__devkind()->device_sync("grGraphExecDestroy", d);
    if (sp->cpu)
        (void)gr__stream_sync_dev("grGraphExecDestroy", sp->cpu);
    if (sp->parts[0].e)
        gr__exec_quiesce(sp->parts[0].e);
    for (uint32_t p = 1; p < sp->nparts; p++)
        if (sp->parts[p].stream)
            (void)gr__stream_sync_dev("grGraphExecDestroy", sp->parts[p].stream);
}

void gr__exec_span_free(struct grGraphExec_st *e)
{
    struct gr_span *sp = e->span;
    if (!sp)
        return;
    /* The words go last: a part still running reads them. */
    gr__exec_span_quiesce(e);
    if (sp->cpu)
        gr__stream_destroy(sp->cpu);
    for (uint32_t p = 0; p < sp->nparts; p++) {
        if (sp->parts[p].e)
            (void)grGraphExecDestroy(sp->parts[p].e);
        if (sp->parts[p].stream)
            gr__stream_destroy(sp->parts[p].stream);
        if (sp->parts[p].g)
            (void)grGraphDestroy(sp->parts[p].g);
    }
    if (sp->words) {
        gr__mem_untrack(sp->words, GR_MEM_HOST);
        (void)gr__devkind()->host_free("grGraphExecDestroy", sp->words);
    }
    gr__free(sp->pairs);
    gr__free(sp->handles);
    gr__free(sp);
    e->span = NULL;
}
