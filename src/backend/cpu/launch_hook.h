/*
 * launch_hook.h - a seam for tests of how a launch is run
 * (backend/cpu/launch.c): which way each launch ran, and the times the
 * choice between the ways is made from. A test sets a hook that reports
 * launches and supplies the times, so that it checks the decision without
 * depending on how fast the machine is.
 */
#ifndef GR_LAUNCH_HOOK_H
#define GR_LAUNCH_HOOK_H

#include <stdbool.h>
#include <stdint.h>

/* Called by the owner of every launch of a plan with more than one worker,
 * after the launch ran: 'way' is 0 in order, 1 shared (gr_way), 'timed'
 * whether this launch's time counts towards the choice, 'ticks' its time
 * as measured (0 if not timed). Returns the time to count instead. */
typedef uint64_t (*gr_launch_hook_fn)(void *ctx, unsigned way, bool timed, uint64_t ticks);

/* Sets the hook (NULL: none, times as measured); not while launches run. */
void gr__launch_hook_set(gr_launch_hook_fn fn, void *ctx);

/* How long (us) a helper of a shared launch that has run out of nodes
 * waits for the launch to expose another before it leaves the launch (0:
 * the default, GR_HELPER_LINGER_US in backend/cpu/launch.c), so that a
 * test sees a helper stay where it would otherwise leave. */
void gr__exec_helper_linger_set(uint32_t us);

/* Makes the next runtime start (the first call, or the first after
 * grDeviceReset) count n CPUs instead of those of the affinity mask (0:
 * the mask's again): how many threads a launch may have depends on it
 * (two CPUs or fewer, or more), and a test checks either rule on any
 * machine. */
void gr__sched_cpus_set(unsigned n);

/* How long (us) a worker that has just run a graph node of item_us keeps
 * polling for the next before it parks, where GRAPHRT_SPIN_US is spin_us
 * (backend/cpu/sched.c, spin_window). */
uint64_t gr__sched_spin_window_us(uint64_t spin_us, uint64_t item_us);

/* The first spinner's window (us) where it was span_us and the last two
 * submissions the workers saw came gap_us apart (0: none seen), the
 * stretch that lets a spinner follow a steady pace of launches
 * (backend/cpu/sched.c, cadence_span). */
uint64_t gr__sched_cadence_span_us(uint64_t span_us, uint64_t gap_us);

/* How many of the launch times' ticks make a microsecond on this machine
 * (starts the runtime; 0 if it cannot start), for times a hook supplies. */
uint64_t gr__sched_ticks_per_us(void);

/* Whether a CPU is lent to an application thread now (asked for or taken:
 * sched.h, gr__sched_borrow_cpu), and how many times a worker has sat out
 * for one since the runtime started. */
bool gr__sched_cpu_loan_out(void);
uint64_t gr__sched_cpu_loans_taken(void);

/* How many workers are parked (or about to be) now; 0 if the runtime
 * cannot start. */
unsigned gr__sched_parked_workers(void);

#endif /* GR_LAUNCH_HOOK_H */
