/*
 * exec.c - the executable object's references and its writers' lock (the
 * protocol of plan.h, "Pairing"): every change of an executable, of any
 * device, takes it, and it excludes the CPU's launches of the plan
 * (cpu/launch_queue.c, which queues them under the stream's lock and tests the
 * executable's lock and bias).
 */
#include "cpu/stream_int.h"
#include "device.h"
#include "plan.h"

GR_NOINLINE void gr__exec_quiesce_slow(grGraphExec_t e)
{
    gr_stream *s;
    uint64_t seq;
    bool busy = false;
    gr__spin_lock(&e->lock);
    /* Under e's lock last_stream stays put; last_seq may still grow with
     * launches on that stream issued meanwhile, which this call does not
     * promise to wait for. */
    s = gr_load_relaxed(&e->last_stream);
    if (s) {
        seq = gr_load_relaxed(&e->last_seq);
        /* It may have ended since the counts were read: then no
         * reference is needed. */
        busy = !gr__cpu_stream_reached(s, seq);
        if (busy)
            gr__stream_retain(s);
    }
    gr__spin_unlock(&e->lock);
    if (busy) {
        gr__stream_wait_for(s, seq);
        gr__stream_release(s);
    }
}

__attribute__((tls_model("initial-exec"))) _Thread_local char gr__tls_self;

/* Clears another thread's bias on e: the owner either sees it gone before
 * its next change without the lock, or is busy in one now and is waited
 * for (the heavy side of the pairing in gr__exec_write_begin). Two steps:
 * while the owner may still be in a change, 'owner' holds
 * GR_EXEC_REVOKING, a tag no thread has, so every other thread still
 * finds e biased elsewhere and comes here, to wait for the owner too; 0
 * is stored only once that change is over. Storing 0 at once let a third
 * thread find e unowned and launch it on its stream's lock alone (the
 * owner's change holds no lock) while the owner was still writing the
 * plan. Racing revokers may store GR_EXEC_REVOKING again after another
 * stored 0: the owner stays out either way, and each stores 0 in the end. */
static GR_NOINLINE void revoke_bias(grGraphExec_t e)
{
    gr_store_seq_cst(&e->bias_revoked, true);
    gr_store_seq_cst(&e->owner, GR_EXEC_REVOKING);
    gr_barrier_heavy();
    /* Acquire (seq_cst): pairs with the owner's release of owner_busy,
     * so that its change is seen from here on. */
    while (gr_load_seq_cst(&e->owner_busy))
        gr__cpu_relax();
    /* Release (seq_cst): a thread that reads 0 sees the owner's change. */
    gr_store_seq_cst(&e->owner, (uintptr_t)0);
}

void gr__exec_lock_unbiased(grGraphExec_t e)
{
    for (;;) {
        if (gr__exec_biased_elsewhere(e))
            revoke_bias(e);
        gr__spin_lock_seq_cst(&e->lock);
        /* A claim takes the lock: none can happen from here on. */
        if (GR_LIKELY(!gr__exec_biased_elsewhere(e)))
            return;
        gr__spin_unlock(&e->lock);
    }
}

/* gr__exec_write_begin_locked when a launch is being queued or has not run
 * yet: waits for it, e's lock held on return. */
static GR_NOINLINE void write_begin_slow(grGraphExec_t e)
{
    for (;;) {
        /* e's lock is held: last_stream stays put. A launch that locked
         * it before our exchange either saw the lock and backs off, or is
         * being queued: wait for its unlock, which publishes its count. */
        gr_stream *s = gr_load_relaxed(&e->last_stream);
        if (s) /* pairs with grGraphLaunch's lock and test, as in gr__exec_write_begin */
            while (gr_load_seq_cst(&gr__cpu_stream(s)->lockw) & GR_STREAM_LOCKED)
                gr__cpu_relax();
        if (gr_load_acquire(&e->launches_done) >= gr_load_relaxed(&e->launches))
            return;
        /* A launch is queued or running: let it run (it needs no lock of
         * ours), then look again. */
        gr__spin_unlock(&e->lock);
        gr__exec_quiesce_slow(e);
        gr__exec_lock_unbiased(e);
    }
}

void gr__exec_write_begin_locked(grGraphExec_t e)
{
    /* Pairing: see plan.h. The common case (nothing queued, the stream
     * not locked) is one exchange and a few loads. */
    gr__exec_lock_unbiased(e);
    /* The first change of an executable nobody owns claims it for this
     * thread, where the heavy barrier exists (without it the owner would
     * fence anyway). Before the stream's lock word is read: a launch that
     * tests the owner after locking its stream either sees the claim, or
     * is seen here and waited for. The owner is read with acquire: a 0
     * stored by revoke_bias comes after its store of bias_revoked. */
    if (GR_UNLIKELY(gr_load_acquire(&e->owner) == 0) && !gr_load_relaxed(&e->bias_revoked) &&
        gr__barrier_asym())
        gr_store_seq_cst(&e->owner, gr__self_tag());
    gr_stream *s = gr_load_relaxed(&e->last_stream);
    if (GR_LIKELY(!s || !(gr_load_seq_cst(&gr__cpu_stream(s)->lockw) & GR_STREAM_LOCKED)) &&
        GR_LIKELY(gr_load_acquire(&e->launches_done) >= gr_load_relaxed(&e->launches)))
        return;
    write_begin_slow(e);
}

void gr__exec_retain(grGraphExec_t e)
{
    gr_fetch_add_relaxed(&e->refs, 1);
}

void gr__exec_release(grGraphExec_t e)
{
    /* What the executable owns above the plan is the exec layer's: its
     * instantiation registered the function that frees it all. */
    if (gr_fetch_sub_acq_rel(&e->refs, 1) == 1) {
        gr_stream *last = gr_load_relaxed(&e->last_stream);
        if (last)
            gr__stream_release(last);
        e->free_hook(e);
    }
}

/* Out of line, so that the CPU's path keeps no frame of its own and jumps
 * straight to gr__exec_launch. */
static GR_NOINLINE grError_t exec_launch_device(const char *call, grGraphExec_t e, gr_stream *s, bool upload)
{
    return gr__devkind()->exec_launch(call, e->gpu, s, upload);
}

grError_t gr__exec_launch_dev(const char *call, grGraphExec_t e, gr_stream *s, bool upload)
{
    if (GR_UNLIKELY(s->device != 0 || e->gpu != NULL))
        return exec_launch_device(call, e, s, upload);
    /* The CPU's executable is its plan, in host memory: nothing to upload. */
    if (upload)
        return grSuccess;
    return gr__exec_launch(e, s);
}
