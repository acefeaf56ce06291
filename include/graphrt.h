/*
 * graphrt.h - the CUDA Graph programming model as a C11 runtime.
 *
 * Every function is the CUDA runtime function of the same name with the
 * prefix 'cuda' replaced by 'gr', with the same parameters in the same order
 * and the same meaning (CUDA 12.x signatures), unless its comment says
 * otherwise. Types 'cudaX' are 'grX', enumerators 'cudaX' are 'grX'; numeric
 * values of enumerators need not match CUDA's. Every function returns
 * grError_t (grSuccess is 0), except the four that return strings
 * (grGetErrorName, grGetErrorString, grGetLastErrorDetail,
 * grGraphNodeTypeName).
 *
 * Errors: a failing call returns its code, records it as the thread's last
 * error (grGetLastError) and sets a sentence for grGetLastErrorDetail() that
 * names the call, the object and the rule broken. A refused call changes
 * nothing, except where its comment says that it invalidates a capture. A
 * successful call leaves the last error alone, as in CUDA. The two queries
 * (grStreamQuery, grEventQuery) return grErrorNotReady without recording
 * it, as in CUDA. Each function's comment lists after "Errors:" every code
 * it can return, each with its conditions. Three families shared by many
 * functions are described once and named in those lists: "the stream
 * errors" (section Streams, graphrt/stream.h), "the capture errors of
 * work" and "the mode errors" (section Stream capture, graphrt/capture.h).
 *
 * Device 0 is the CPU of the host. Kernels are C functions called once per
 * thread block (see grKernelCreate); everything else keeps CUDA's meaning.
 *
 * Thread safety: streams, events, kernels, memory, memory pools, graph
 * memory, captures and executable graphs are internally synchronised: their
 * functions may be called from any thread at any time, unless a comment
 * says otherwise. Executables go beyond CUDA: launches, setters and
 * grGraphExecUpdate of one executable may run on several threads at once
 * (a change waits for the launches queued before it; see section Executable
 * graphs, graphrt/exec.h), where CUDA asks the application to serialise them. Graphs are
 * not internally synchronised, as in CUDA: a graph (a grGraph_t, its nodes,
 * and the child graphs its child-graph nodes own) must not be used by two
 * calls at the same time, even calls that only read it (queries,
 * grGraphClone, grGraphInstantiate, grGraphExecUpdate, grGraphDebugDotPrint:
 * some of them keep per-node scratch state in the graph): the application
 * serialises the calls that use one graph. Calls on different graphs may
 * run at the same time. The comment of each function that uses
 * a graph says so in a sentence "Thread safety: not with other calls on the
 * same graph". An executable keeps no reference to the graph it was
 * instantiated from, so calls on the two may run concurrently. Per-thread
 * state: the last error and its detail, the device (grSetDevice), the
 * capture mode (grThreadExchangeStreamCaptureMode) and the per-thread
 * default stream (grStreamPerThread). An object passed to a call must not
 * be destroyed concurrently with that call, and grDeviceReset must not run
 * concurrently with any other call.
 *
 * Destroyed handles: a stream, event, kernel, graph, executable or memory
 * pool handle used after its destruction is refused with the error its
 * function documents for a handle that is not live, never read after
 * free: the object's memory is kept for objects of the same kind. It is
 * reused once 64 more objects of that kind have been destroyed, so a
 * handle kept long after its destruction may then name a newer object,
 * as a CUDA handle may. A destroyed node handle is refused while its
 * graph lives (its memory stays in the graph); the node handles of a
 * destroyed graph must not be passed anywhere except, as keys, to the
 * setters of an executable instantiated from that graph (which never
 * dereference them), as in CUDA.
 *
 * Layout: this header only includes the module headers of include/graphrt/,
 * in the order of CUDA's runtime API reference, then graphrt's own
 * extensions. Each module header includes the modules it needs and may be
 * included alone, but <graphrt.h> is the one include a program needs.
 */
#ifndef GRAPHRT_H
#define GRAPHRT_H

#define GRAPHRT_VERSION_MAJOR 0
#define GRAPHRT_VERSION_MINOR 1
#define GRAPHRT_VERSION_PATCH 0

/* CUDA's runtime API, in the order of its reference. */
#include "graphrt/errors.h"  /* error codes, names, the last error; GR_API */
#include "graphrt/types.h"   /* dim3, handles, copy kinds, launch attributes */
#include "graphrt/device.h"  /* devices */
#include "graphrt/stream.h"  /* streams */
#include "graphrt/event.h"   /* events */
#include "graphrt/kernel.h"  /* kernels and their launch */
#include "graphrt/memory.h"  /* allocation, copies, memsets, host memory */
#include "graphrt/managed.h" /* managed memory: hints, prefetches, ranges */
#include "graphrt/symbols.h" /* symbols (__device__ globals) */
#include "graphrt/pools.h"   /* stream-ordered memory pools, graph memory */
#include "graphrt/peer.h"    /* peer access and peer copies */
#include "graphrt/graph.h"   /* graphs, node kinds, edges, queries, DOT */
#include "graphrt/nodes.h"   /* every node adder and node parameters */
#include "graphrt/capture.h" /* stream capture */
#include "graphrt/exec.h"    /* executable graphs: instantiate, launch, update */

/* graphrt's own extensions. */
#include "graphrt/memops.h"     /* stream memory operations */
#include "graphrt/comm.h"       /* communicators, collective nodes */
#include "graphrt/graph_file.h" /* graph files */
#include "graphrt/analysis.h"   /* graph analysis */
#include "graphrt/debug.h"      /* debug modes, baked values */
#include "graphrt/trace.h"      /* traces */

#endif /* GRAPHRT_H */
