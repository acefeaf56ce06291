/*
 * launch.c - how a launch runs a plan on the CPU (the launch policy): when
 * the stream reaches a launch (queued by launch_queue.c), the thread
 * draining the stream becomes the launch's owner and runs the plan; each
 * node's body is node_run.h's.
 *
 * A launch runs the plan one of two ways (gr_way), whichever measures
 * faster for that plan (see GR_SAMPLE_EVERY). In order: the owner runs the
 * plan front to back; its order is topological, so no countdown is needed.
 * Shared: the owner counts down and keeps ready nodes on a private stack
 * (no atomics, no fences), runs the first ready successor of each node
 * inline and exposes the others to other threads (pushed on its stealable
 * deque, one for each other worker). Until another thread joins, the
 * countdown of a node with several predecessors is a plain load and store;
 * the first exposure switches the launch to "shared": every countdown is
 * then an atomic decrement. With a single worker a launch always runs in
 * order.
 *
 * Invariants:
 *   - a node becomes ready exactly once per launch: its countdown reaches
 *     zero once, and whoever sees zero writes npred back for the next
 *     launch;
 *   - the thread that makes EXIT ready ends the launch and then touches
 *     nothing of the plan; thieves are counted in 'thieves' and the owner
 *     waits for them to leave before it ends the GRAPH op, so the plan
 *     outlives every access;
 *   - a thread only pops the part of its private stack it pushed during
 *     the current call (nested runs keep outer items);
 *   - only a launch's owner writes the plan's way, timings and run count,
 *     one launch at a time (launches of an executable never overlap).
 */
#include "../plan.h"
#include "launch_hook.h"
#include "node_run.h"
#include "stream_int.h"

/* Which way is faster depends on what the nodes cost, the graph's width
 * and the machine, so each plan measures: it keeps the faster way (its
 * time sampled every GR_SAMPLE_EVERY launches) and tries the other again
 * after a gap of launches that doubles each time a try loses, and is at
 * least GR_PROBE_COST_INV times the factor it lost by, so that trying
 * costs a few percent at most however much slower the other way is (a
 * way that lost by little starts from a shorter gap: GR_PROBE_GAP_NEAR). */
#define GR_SAMPLE_EVERY 16u
#define GR_PROBE_GAP_MIN 16u
#define GR_PROBE_GAP_MAX 65536u
#define GR_PROBE_COST_INV 32u
/* A way that lost by less than an eighth is tried again after this gap
 * instead (doubling as above): such a try costs an eighth of a launch at
 * most, and one slow sample of the shared way (a helper late to wake on
 * the first timed launch) no longer keeps a wide plan in order for 32
 * launches, which a benchmark of 11 replays of 100-200 ms never ends. */
#define GR_PROBE_GAP_NEAR 2u
/* Nodes this long on average make an application thread that owns a
 * launch ask for a CPU where the workers fill them (see owner_wants_cpu):
 * one worker fewer measured as fast or faster from 5 us nodes up, slower
 * at 1 us (fan 1024: 375 us against 326). */
#define GR_LEND_NODE_US 4u
/* How long a helper out of nodes waits for the launch to expose another
 * before it leaves it (take_more), and the pauses between its looks, from
 * the first to the longest (they double): each look reads every deque's
 * line, which busy threads write. */
#define GR_HELPER_LINGER_US 2u
#define GR_HELPER_POLL_TICKS_MIN 100u
#define GR_HELPER_POLL_TICKS_MAX 800u
/* A helper waits so only on a plan whose nodes take less than this on
 * average (its in-order time per node; a plan not timed that way yet
 * counts as short). The owner exposes a node at most once per node it
 * runs, so on longer nodes a wait would rarely end with one, and the
 * wake-up a hit saves is small beside such a node: there a helper out of
 * nodes leaves at once. */
#define GR_HELPER_LINGER_NODE_US 8u

/* The test seam (launch_hook.h). */
static _Atomic(gr_launch_hook_fn) launch_hook;
static void *launch_hook_ctx;
static _Atomic uint32_t helper_linger_us = GR_HELPER_LINGER_US;

void gr__launch_hook_set(gr_launch_hook_fn fn, void *ctx)
{
    launch_hook_ctx = ctx;
    gr_store_release(&launch_hook, fn);
}

void gr__exec_helper_linger_set(uint32_t us)
{
    gr_store_relaxed(&helper_linger_us, us ? us : GR_HELPER_LINGER_US);
}

static inline bool local_push(gr_worker *w, gr_pnode *n)
{
    if (GR_UNLIKELY(w->nlocal == w->caplocal)) {
        size_t ncap = w->caplocal ? w->caplocal * 2 : 1024;
        gr_item *nl = gr__realloc(w->local, ncap * sizeof *nl);
        if (!nl)
            return false;
        w->local = nl;
        w->caplocal = ncap;
    }
    w->local[w->nlocal++] = (gr_item)n;
    return true;
}

/* Counts down node v, which has several predecessors; true when it is
 * ready. Touches only the compact count array, not v itself. */
static inline bool count_down(gr_plan *p, uint32_t v, bool shared)
{
    gr_count *c = &p->count[v];
    if (!shared) {
        int32_t left = gr_load_relaxed(&c->pending) - 1;
        gr_store_relaxed(&c->pending, left ? left : (int32_t)c->npred);
        return left == 0;
    }
    if (gr_fetch_sub_acq_rel(&c->pending, 1) == 1) {
        gr_store_relaxed(&c->pending, (int32_t)c->npred);
        return true;
    }
    return false;
}

/* The owner of a shared launch that found nothing to run for a while
 * sleeps (wait_for_others) until the launch ends or a thread exposes
 * nodes (expose_some). Without the second wake-up a launch lost its owner
 * for good at the first lull: on two CPUs, where the owner is one of the
 * launch's two threads, a random DAG of 100 us nodes then ran on one
 * thread from there on (200 ms a launch instead of 100). */
enum gr_owner_state {
    GR_OWNER_AWAKE,
    GR_OWNER_ASLEEP, /* in futex_wait, or about to be */
    GR_OWNER_WOKEN,  /* a wake-up is sent: the owner does not sleep on it */
};

/* Wakes the launch's owner if it sleeps; only the thread whose CAS moves
 * it from ASLEEP issues the system call. The owner waits while the word
 * reads ASLEEP, so a wake-up sent before it is in futex_wait is not lost. */
static void wake_owner(gr_plan *p)
{
    uint32_t asleep = GR_OWNER_ASLEEP;
    if (gr_cas_strong_seq_cst(&p->owner_sleeping, &asleep, GR_OWNER_WOKEN))
        gr__futex_wake(&p->owner_sleeping, 1);
}

static void finish_launch(gr_plan *p)
{
    /* Every node has run and counted down its successors: a countdown
     * not re-armed would hold a node back (or let it run early) in the
     * next launch. */
    gr_assert_expensive(gr__plan_counts_armed(p));
    /* Only the thread that makes EXIT ready writes it: no RMW needed. A
     * launch nobody joined was run to the end by its owner, which is not
     * waiting: nothing to publish or wake. */
    uint32_t next = gr_load_relaxed(&p->finished) + 1u;
    if (!gr_load_relaxed(&p->shared)) {
        gr_store_relaxed(&p->finished, next);
        return;
    }
    /* Dekker with wait_for_others (store owner_sleeping, load finished):
     * either it sees this launch finished or this sees it asleep. */
    gr_store_seq_cst(&p->finished, next);
    if (gr_load_seq_cst(&p->owner_sleeping) == GR_OWNER_ASLEEP)
        wake_owner(p);
}

/* How many more helpers launch p may have: see launch_helpers_max. */
static inline int helper_room(gr_plan *p)
{
    return p->helpers_max - gr_load_relaxed(&p->thieves);
}

bool gr__exec_node_wants_helpers(const void *node)
{
    /* The caller holds a node of the launch, not run yet: the launch
     * cannot end, and the plan stays. */
    return helper_room(gr__pnode_plan(node)) > 1;
}

/* Hands private items to other threads: one for each thread besides this
 * one that the launch may have at once (launch_helpers_max: the owner's
 * helpers; for a helper, the owner and the other helpers, as many), less
 * those handed out and not taken yet. Busy workers take them when they
 * look for work; as many parked workers are woken as the launch has room
 * for helpers. Counting workers instead starved a helper where an
 * application thread owns the launch: with 2 workers, the owner handed
 * out one node per node it ran, so a fan ran on two threads of three. */
static void expose_some(gr_runtime *rt, gr_worker *w, gr_plan *p, size_t base)
{
    int64_t waiting = gr_load_relaxed(&w->dq.bottom) - gr_load_relaxed(&w->dq.top);
    int64_t room = (int64_t)p->helpers_max - waiting;
    if (room <= 0)
        return;
    if (!gr_load_relaxed(&p->shared))
        gr_store_relaxed(&p->shared, true);
    unsigned pushed = 0;
    for (; room > 0 && w->nlocal > base; room--) {
        gr_item it = w->local[--w->nlocal];
        if (!gr__deque_push(&w->dq, gr__item_make((void *)it, GR_ITEM_NODE))) {
            w->nlocal++;
            break;
        }
        pushed++;
    }
    if (!pushed)
        return;
    /* A sleeping owner takes one; it is woken whatever helper_room says,
     * as it is not one of the helpers. The load is relaxed: an owner
     * falling asleep just now is woken by the next exposure, or runs
     * nothing more of this launch. */
    if (gr_load_relaxed(&p->owner_sleeping) == GR_OWNER_ASLEEP) {
        wake_owner(p);
        pushed--;
    }
    int wake = helper_room(p);
    wake = wake < (int)pushed ? wake : (int)pushed;
    if (wake == 1)
        gr__sched_wake_one(rt);
    else if (wake > 1)
        gr__sched_wake_some(rt, (unsigned)wake);
}

/* Runs n and every node that becomes ready through it on this thread,
 * until nothing is left on the private stack above 'base' (the stack's
 * height when the caller began this plan). Returns true if it ran EXIT
 * (the launch is over: touch nothing of the plan). */
static bool run_from(gr_worker *w, gr_plan *p, gr_pnode *n, size_t base, bool trace)
{
    gr_runtime *rt = gr_load_relaxed(&gr__rt);
    gr_pnode *nodes = p->nodes;
    const uint32_t *succ = p->succ;
    grKernelCtx ctx;
    gr__node_ctx_init(&ctx, w, gr__plan_exec(p));
    uint64_t clock = trace ? gr__trace_clock() : 0;
    for (;;) {
        if (GR_UNLIKELY(n->type == GR_PN_EXIT)) {
            finish_launch(p);
            return true;
        }
        /* Offer waiting work before running n, which may take long. */
        if (w->nlocal > base)
            expose_some(rt, w, p, base);
        if (GR_UNLIKELY(trace))
            gr__node_run_traced(n, &ctx, p, &clock);
        else
            gr__node_run(n, &ctx);
        gr_pnode *next = NULL;
        bool shared = gr_load_relaxed(&p->shared);
        for (uint32_t i = n->succ_begin; i < n->succ_end; i++) {
            if (i >= n->succ_mid && !count_down(p, succ[i], shared))
                continue;
            gr_pnode *v = &nodes[succ[i]];
            if (!next) {
                next = v;
            } else if (GR_UNLIKELY(!local_push(w, v))) {
                /* Out of memory for the stack: run it right here. */
                if (run_from(w, p, v, w->nlocal, trace))
                    return true;
            }
        }
        if (next) {
            n = next;
            continue;
        }
        if (w->nlocal == base)
            return false;
        n = (gr_pnode *)w->local[--w->nlocal];
    }
}

/* An exposed node of p: from the launch's owner first (it exposes the
 * most), then from any deque; NULL if none is visible. */
static gr_pnode *take_exposed(gr_runtime *rt, gr_plan *p)
{
    const gr_pnode *lo = p->nodes, *hi = p->nodes + p->nnodes;
    gr_worker *owner = p->run_owner;
    for (unsigned i = 0; i <= rt->nslots; i++) {
        gr_worker *v = i == 0 ? owner : &rt->workers[i - 1];
        if ((i > 0 && v == owner) || !gr__deque_maybe_nonempty(&v->dq))
            continue;
        gr_item it = gr__deque_steal_in(&v->dq, lo, hi);
        if (it)
            return gr__item_ptr(it);
    }
    return NULL;
}

/* How long a helper out of nodes of p waits for another (take_more), in
 * ticks: 0 on a plan of long nodes (GR_HELPER_LINGER_NODE_US), and 0 where
 * the launch may have more than one helper. The wait is for two CPUs,
 * where the launch has one and a worker woken in its place is a third busy
 * thread; with more, a worker woken costs a wake-up but finds a CPU, while
 * up to 15 helpers looking at every deque for 2 us measured slower (16
 * threads, 1 us nodes, sessions of the 16-core host: fan 64 slower than
 * without the wait in 5 of 6 by 1-8%, fan 1024 in 4 of 6 by 4-16%). */
static uint64_t linger_ticks(gr_runtime *rt, const gr_plan *p)
{
    uint64_t tpu = gr__ticks_per_us(rt);
    if (p->helpers_max > 1 ||
        p->way_ticks[GR_WAY_IN_ORDER] >= (uint64_t)(p->nnodes - 1) * GR_HELPER_LINGER_NODE_US * tpu)
        return 0;
    return gr_load_relaxed(&helper_linger_us) * tpu;
}

/* The helper's next node of p, waiting up to 'linger' ticks for one
 * to be exposed while launch number 'launch' runs; NULL if none came. A
 * helper that left between two nodes (the owner was still running its
 * own, about to expose the next) made that exposure find room for a
 * helper and wake a parked worker: on two CPUs a third busy thread (a fan
 * of 1,024 nodes of 1 us: 1-3 futex wake-ups a launch, up to 9 in some
 * processes, which ran up to 30% slower). Staying counted as a helper
 * while it waits, it takes that node instead. */
static gr_pnode *take_more(gr_runtime *rt, gr_plan *p, uint32_t launch, uint64_t linger)
{
    uint64_t t0 = 0, gap = GR_HELPER_POLL_TICKS_MIN;
    for (;;) {
        gr_pnode *n = take_exposed(rt, p);
        if (n || gr_load_acquire(&p->finished) != launch)
            return n;
        uint64_t now = gr__ticks();
        if (!t0)
            t0 = now;
        else if (now - t0 > linger)
            return NULL;
        gr__pause_ticks(gap);
        if (gap < GR_HELPER_POLL_TICKS_MAX)
            gap *= 2;
    }
}

void gr__exec_node_item(gr_worker *w, void *node)
{
    gr_pnode *n = node;
    gr_plan *p = gr__pnode_plan(n);
    /* The owner taking back a node it exposed is no helper: counted, it
     * took the place of one, and with one helper allowed (two CPUs) no
     * worker was woken while it ran the rest of the launch from there (a
     * random DAG of 100 us nodes ran on one thread). It does not need the
     * count either: it is the thread that waits for the others to leave. */
    if (w == p->run_owner) {
        run_from(w, p, n, w->nlocal, gr__tracing());
        return;
    }
    gr_runtime *rt = gr_load_relaxed(&gr__rt);
    /* The launch cannot end before n has run: this is its number. Its
     * owner wrote way_ticks and helpers_max before it exposed n. */
    uint32_t launch = gr_load_acquire(&p->finished);
    uint64_t linger = linger_ticks(rt, p);
    gr_fetch_add_acquire(&p->thieves, 1);
    bool trace = gr__tracing();
    while (!run_from(w, p, n, w->nlocal, trace) && linger && (n = take_more(rt, p, launch, linger)) != NULL)
        ;
    gr_fetch_sub_release(&p->thieves, 1);
}

/* An application thread owning a launch takes nodes of its own plan from
 * the workers' deques (and nothing else: see gr__sched_help_once). True
 * if it ran one; *ended is set if it ran EXIT. */
static bool steal_own(gr_runtime *rt, gr_worker *w, gr_plan *p, bool trace, bool *ended)
{
    const gr_pnode *lo = p->nodes, *hi = p->nodes + p->nnodes;
    for (unsigned i = 0; i < rt->nworkers; i++) {
        gr_deque *dq = &rt->workers[i].dq;
        if (!gr__deque_maybe_nonempty(dq))
            continue;
        gr_item it = gr__deque_steal_in(dq, lo, hi);
        if (it) {
            *ended = run_from(w, p, gr__item_ptr(it), w->nlocal, trace);
            return true;
        }
    }
    return false;
}

/* The owner of a shared launch, out of work of its own: runs the nodes
 * it finds until the launch is over (sleeping when there are none for a
 * while). An application thread is one of the launch's threads (see
 * launch_helpers_max), so it takes its plan's nodes from the workers'
 * deques too: a worker that holds ready nodes it has not got to does not
 * make the owner wait. */
static void wait_for_others(gr_runtime *rt, gr_worker *w, gr_plan *p, uint32_t target, bool trace)
{
    unsigned idle = 0;
    while (gr_load_acquire(&p->finished) != target) {
        bool ended = false;
        if (gr__sched_help_once(rt, w) || (w->external && steal_own(rt, w, p, trace, &ended))) {
            if (ended)
                break;
            idle = 0;
            continue;
        }
        if (++idle < 4096) {
            gr__cpu_relax();
            continue;
        }
        /* Dekker with finish_launch (store finished, load owner_sleeping). */
        gr_store_seq_cst(&p->owner_sleeping, GR_OWNER_ASLEEP);
        if (gr_load_seq_cst(&p->finished) != target)
            gr__futex_wait(&p->owner_sleeping, GR_OWNER_ASLEEP);
        gr_store_seq_cst(&p->owner_sleeping, GR_OWNER_AWAKE);
        idle = 0;
    }
}

static inline unsigned other_way(unsigned way)
{
    return way == GR_WAY_IN_ORDER ? GR_WAY_SHARED : GR_WAY_IN_ORDER;
}

/* Records a launch run way 'way' in t ticks ('probe': a try of a way that
 * was slower) and picks the way of the launches to come. */
static void note_launch_time(gr_plan *p, unsigned way, uint64_t t, bool probe)
{
    uint64_t *avg = &p->way_ticks[way];
    t = t ? t : 1;
    /* A probe's way was last timed long ago: its sample replaces that. */
    *avg = *avg && !probe ? (*avg * 3 + t) / 4 : t;
    uint64_t serial = p->way_ticks[GR_WAY_IN_ORDER], shared = p->way_ticks[GR_WAY_SHARED];
    if (!serial || !shared)
        return; /* not both timed yet */
    unsigned best = shared < serial ? GR_WAY_SHARED : GR_WAY_IN_ORDER;
    uint64_t won = p->way_ticks[best], lost = p->way_ticks[other_way(best)];
    bool near = lost * 8 < won * 9;
    uint64_t gap;
    if (best != p->way || !p->probe_gap) {
        p->way = (uint8_t)best;
        gap = near ? GR_PROBE_GAP_NEAR : GR_PROBE_GAP_MIN;
    } else if (probe) {
        gap = (uint64_t)p->probe_gap * 2;
    } else {
        return;
    }
    /* The other way lost by lost_by. */
    uint64_t lost_by = lost / won;
    if (!near && gap < lost_by * GR_PROBE_COST_INV)
        gap = lost_by * GR_PROBE_COST_INV;
    p->probe_gap = (uint32_t)(gap < GR_PROBE_GAP_MAX ? gap : GR_PROBE_GAP_MAX);
    p->probe_at = p->runs + p->probe_gap;
}

/* How many helpers a shared launch owned by w may have. When a worker owns
 * it, the owner and its helpers make the 'nworkers' threads the user asked
 * for. An application thread owning it runs nodes as well (see
 * wait_for_others), on top of the workers; on two CPUs or fewer that
 * thread takes the place of a helper: there the owner and two workers
 * were three busy threads on two cores (a random DAG of 10,000 nodes of
 * 1 us: 7080 us without the limit against 6122 with it, on two CPUs of the
 * 16-core host). On more CPUs the owner often waits with
 * nothing to run, and one helper fewer measured slower (16 threads, fan
 * 1024 of 1 us nodes: 437 us against 378). */
static int launch_helpers_max(const gr_runtime *rt, const gr_worker *w)
{
    if (!w->external)
        return (int)rt->nworkers - 1;
    if (rt->ncpu <= 2 && rt->nworkers >= rt->ncpu)
        return (int)rt->ncpu - 1;
    return (int)rt->nworkers;
}

/* Whether the owner of a shared launch borrows a CPU
 * (gr__sched_borrow_cpu): an application thread, where the workers alone
 * fill every CPU, on a plan whose nodes take GR_LEND_NODE_US or more on
 * average (its in-order time per node). Running nodes beside every
 * worker, the owner made one thread more than CPUs: a node whose thread
 * shared a CPU took twice as long or waited out another's time slice,
 * and the nodes behind it waited too (16 workers on 16 CPUs, a 20x64
 * layered DAG of 100 us nodes: 9073 us, 8227 with one worker fewer,
 * where the ideal is 8000). On two CPUs or fewer the owner runs nodes in
 * a helper's place instead (launch_helpers_max). */
static bool owner_wants_cpu(gr_runtime *rt, const gr_worker *w, const gr_plan *p)
{
    if (!w->external || rt->ncpu <= 2 || rt->nworkers < rt->ncpu || p->nnodes < 2)
        return false;
    uint64_t serial = p->way_ticks[GR_WAY_IN_ORDER];
    return serial >= (uint64_t)(p->nnodes - 1) * GR_LEND_NODE_US * gr__ticks_per_us(rt);
}

/* Runs the launch the shared way; true if this thread ran EXIT. */
static bool run_shared(gr_worker *w, gr_plan *p, bool trace)
{
    /* Roots go on the private stack, where run_from finds them. */
    size_t base = w->nlocal;
    bool ended = false;
    for (uint32_t i = 1; i < p->nroots; i++)
        if (!local_push(w, &p->nodes[p->roots[i]]))
            ended |= run_from(w, p, &p->nodes[p->roots[i]], w->nlocal, trace);
    return ended | run_from(w, p, &p->nodes[p->roots[0]], base, trace);
}

/* The in-order way: nobody else takes part. The plan's order is
 * topological, so running it front to back honours every edge, with no
 * countdown and no stack (on a random DAG those cost several times what
 * the nodes do: mispredicted branches). EXIT is the last node. A function
 * of its own at a 64-byte boundary, so that edits to gr__exec_run do not
 * move this loop of a few nanoseconds per node across fetch windows. */
static GR_NOINLINE __attribute__((aligned(64))) void run_in_order(gr_worker *w, gr_plan *p)
{
    gr_pnode *nodes = p->nodes;
    grKernelCtx ctx;
    gr__node_ctx_init(&ctx, w, gr__plan_exec(p));
    for (uint32_t i = 0; i + 1 < p->nnodes; i++)
        gr__node_run(&nodes[i], &ctx);
}

/* The in-order way while tracing (see gr__exec_run). */
static GR_NOINLINE void run_in_order_traced(gr_worker *w, gr_plan *p, uint64_t clock)
{
    grKernelCtx ctx;
    gr__node_ctx_init(&ctx, w, gr__plan_exec(p));
    for (uint32_t i = 0; i + 1 < p->nnodes; i++)
        gr__node_run_traced(&p->nodes[i], &ctx, p, &clock);
}

void gr__exec_run(gr_worker *w, struct grGraphExec_st *e, gr_stream *s, uint64_t done)
{
    gr_plan *p = &e->plan;
    p->run_stream = s;
    p->run_done = done;
    p->run_owner = w;
    gr_runtime *rt = gr_load_relaxed(&gr__rt);
    uint32_t target = gr_load_relaxed(&p->finished) + 1;
    /* The first two launches are shared (the first untimed: it pays for
     * cold caches and parked workers), the third in order; then the
     * faster way, and the other when a probe is due (see GR_SAMPLE_EVERY).
     * With one worker nothing is measured. Times are in ticks, a third of
     * the cost of a clock read on a VM. A plan whose nodes wait for memory
     * words always runs in order: its order puts each wait after the
     * nodes that may write the word (exec/plan_build.c), and a waiting
     * owner keeps no ready node from the others. */
    unsigned way = GR_WAY_IN_ORDER;
    bool measure = false, probe = false, lent = false;
    if (rt->nworkers > 1 && !p->memop_waits) {
        if (!p->way_ticks[GR_WAY_SHARED]) {
            way = GR_WAY_SHARED;
            measure = p->runs > 0;
        } else if (!p->way_ticks[GR_WAY_IN_ORDER]) {
            measure = true;
        } else if (p->runs == p->probe_at) {
            way = other_way(p->way);
            measure = probe = true;
        } else {
            way = p->way;
            measure = (p->runs % GR_SAMPLE_EVERY) == 0;
        }
    }
    uint64_t t0 = measure ? gr__ticks() : 0;
    /* Read once per launch: without tracing, a launch pays this branch
     * and run_from one more per node, on a value in a register. */
    bool trace = gr__tracing();
    uint64_t trace_t0 = trace ? gr__trace_clock() : 0;
    gr_store_relaxed(&p->shared, false);
    if (GR_UNLIKELY(p->ncond_slots))
        gr__plan_reset_conditionals(p);
    if (GR_UNLIKELY(e->devupd_apply != NULL))
        e->devupd_apply(e);
    if (GR_UNLIKELY(trace) && way == GR_WAY_IN_ORDER) {
        run_in_order_traced(w, p, trace_t0);
        finish_launch(p);
    } else if (way == GR_WAY_IN_ORDER) {
        run_in_order(w, p);
        finish_launch(p);
    } else {
        p->helpers_max = launch_helpers_max(rt, w);
        lent = owner_wants_cpu(rt, w, p);
        if (lent)
            gr__sched_borrow_cpu(rt);
        if (!run_shared(w, p, trace))
            wait_for_others(rt, w, p, target, trace);
    }
    /* Thieves may still be leaving run_from; the plan must outlive them. */
    while (gr_load_acquire(&p->thieves) != 0)
        gr__cpu_relax();
    if (lent)
        gr__sched_end_borrow(rt);
    uint64_t ticks = measure ? gr__ticks() - t0 : 0;
    if (rt->nworkers > 1) {
        gr_launch_hook_fn hook = gr_load_acquire(&launch_hook);
        if (GR_UNLIKELY(hook != NULL))
            ticks = hook(launch_hook_ctx, way, measure, ticks);
    }
    if (measure)
        note_launch_time(p, way, ticks, probe);
    if (GR_UNLIKELY(trace))
        gr__trace_emit(GR_TR_LAUNCH, "graph launch", trace_t0, gr__trace_clock(), (uintptr_t)e, p->runs,
                       p->nnodes - 1, w->index);
    p->runs++;
    /* The launch is over: setters may write the plan from here on (see
     * gr__exec_quiesce). Only launches' owners write it, one at a time. */
    gr_store_release(&e->launches_done, gr_load_relaxed(&e->launches_done) + 1);
}
