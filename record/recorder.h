/*
 * recorder.h - what the files of the CUPTI recorder share: the log every
 * callback appends to, the helper thread that walks graphs, and the
 * per-thread notion of "the CUDA call in progress" that gives a node or an
 * error its provenance.
 *
 * Invariants:
 * - No CUDA call is made inside a CUPTI callback (CUPTI's rule): callbacks
 *   copy what they carry into the log or into a walk request; only the
 *   helper thread (walk.c) calls the driver's query API.
 * - The log is one file, written under rec_lock; a line is whole when the
 *   lock is dropped, and the launch counters (each thread's own, counted
 *   without the lock) are flushed before any other line, so the order of
 *   lines is the order of the events.
 * - A graph's destruction waits for the walks of that graph queued or in
 *   progress (rec_walk_wait_graph), so a walk never reads a freed graph.
 *
 * The log format is described in docs/record.md ("The callback stream").
 */
#ifndef GR_RECORDER_H
#define GR_RECORDER_H

#include <cuda.h>
#include <cupti.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

/* The log (recorder.c). rec_log_begin takes rec_lock and flushes pending
 * launch counts; rec_log_end drops it. Between them write with fprintf to
 * rec_out. */
extern FILE *rec_out;
void rec_log_begin(void);
void rec_log_end(void);
void rec_logf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The self-profile (recorder.c): a cheap clock (the CPU's counter where
 * there is one) and its rate, measured since the recorder started. */
uint64_t rec_ticks(void);
double rec_ticks_per_ns(void);

/* This thread's small id (1, 2, ... in order of first callback). */
unsigned rec_tid(void);

/* Graph and node ids as CUPTI numbers them (cuptiGetGraphId,
 * cuptiGetGraphNodeId): the ids the log uses throughout. 0 if unknown. */
uint32_t rec_graph_id(CUgraph g);
uint64_t rec_node_id(CUgraphNode n);
uint32_t rec_exec_id(CUgraphExec x);

/* Conditional handles seen created (defaultLaunchValue and flags are not
 * queryable later). */
void rec_cond_note(CUgraphConditionalHandle h, unsigned dflt, unsigned flags);
int rec_cond_find(CUgraphConditionalHandle h, unsigned *dflt, unsigned *flags);

/* Conditional nodes as created (cuGraphAddNode): CUDA 13.0 has no getter
 * for their handle, type and bodies. rec_condnode_find copies up to
 * REC_COND_BODIES bodies and returns the node's size, or 0 if unknown. */
#define REC_COND_BODIES 64
typedef struct rec_condnode {
    CUgraphConditionalHandle handle;
    CUgraphConditionalNodeType type;
    unsigned size;
    CUgraph body[REC_COND_BODIES];
} rec_condnode;
void rec_condnode_note(CUgraphNode n, const CUDA_CONDITIONAL_NODE_PARAMS *p);
unsigned rec_condnode_find(CUgraphNode n, rec_condnode *out);

/* The calls subscribed to (calls.c): rec_calls_enable enables their
 * callbacks, once; rec_drv_kind says, per driver callback id, whether the
 * recorder always acts on it (REC_CALL_ALWAYS; REC_CALL_LAUNCH for the
 * graph launches, which take a path of their own) or only while a capture
 * is open (REC_CALL_CAPTURE); every runtime callback is of the second
 * kind.
 * 'leave_out' (GRAPHRT_RECORD_LEAVE_OUT, NULL for none) names groups
 * of callbacks not to enable, comma-separated: 'launches' (graph
 * launches: no launch counts), 'nodes' (nodes created: captured nodes
 * lose their call and stream), 'capture' (the driver calls of captures),
 * 'runtime' (the runtime's); what each costs a program is measured so.
 * rec_call_stream and rec_rt_call_stream give the stream a driver or
 * runtime call names, if it names one. */
#define REC_CALL_ALWAYS 1
#define REC_CALL_CAPTURE 2
#define REC_CALL_LAUNCH 3
extern unsigned char rec_drv_kind[CUPTI_DRIVER_TRACE_CBID_SIZE];
void rec_calls_enable(CUpti_SubscriberHandle sub, const char *leave_out);
int rec_call_stream(CUpti_CallbackId id, const void *params, CUstream *s);
int rec_rt_call_stream(CUpti_CallbackId id, const void *params, CUstream *s);

/* Walks (walk.c). rec_walk_request queues a walk of g, named why
 * ("capture", "instantiate", "update", "clone") and exec id x (0 if none);
 * called from callbacks, makes no CUDA call. */
int rec_walk_start(int sync);
/* With sync walks (GRAPHRT_RECORD_SYNC_WALKS), runs this thread's
 * requested walks now; the driver-API exit callback calls it. */
void rec_walk_flush(void);
void rec_walk_request(CUgraph g, CUcontext ctx, const char *why, uint32_t x);
void rec_walk_wait_graph(CUgraph g);
/* Waits until no walk is queued or in progress (the selftest's way to
 * order a walk before what it plays next). */
void rec_walk_drain(void);
/* Nonzero on a thread while it walks: the driver calls of a walk only
 * read graphs, so a callback of one (none is subscribed to) would return
 * at once. */
extern _Thread_local int rec_walking;

/* Called for every change to any graph's nodes, edges or node parameters
 * (recorder.c): a walk asked for when nothing changed since the last walk
 * of the same graph is logged as 'walk-same', not walked again (the
 * capture-then-instantiate case would otherwise walk every graph twice). */
void rec_walk_mutated(void);
/* The program's allocations as the callbacks see them (recorder.c): the
 * walks classify an address inside one without asking the driver
 * (cuPointerGetAttributes). rec_walk_freed forgets the allocation at base
 * (and what the driver said about addresses in it); a free of an address
 * not known, or memory unmapped or trimmed from a pool
 * (rec_walk_memory_freed), forgets every answer the driver gave. A module
 * unloaded forgets the kernels' names and parameter layouts. */
void rec_walk_alloc(CUdeviceptr base, size_t size, const char *cls);
void rec_walk_freed(CUdeviceptr base);
void rec_walk_memory_freed(void);
void rec_walk_module_unloaded(void);
void rec_walk_stop(void);
/* The walks' part of the 'profile' line (docs/record.md), ticks_per_ns
 * from rec_ticks_per_ns; after rec_walk_stop. */
void rec_walk_profile(FILE *f, double ticks_per_ns);

#endif /* GR_RECORDER_H */
