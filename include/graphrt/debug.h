/*
 * graphrt/debug.h - debugging, graphrt's own: debug modes and the values baked
 * into an executable.
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_DEBUG_H
#define GRAPHRT_MODULE_DEBUG_H

#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Debug modes (grSetDebugFlags). */
/* Every launch (kernels, graphs, async copies and memsets, host
 * functions) waits for the work of its stream before returning, and
 * returns the stream's sticky error: an error surfaces at the call that
 * caused it, and a kernel that crashes usually does so on the launching
 * thread, inside the launching call. Also GRAPHRT_LAUNCH_BLOCKING=1. */
#define grDebugLaunchBlocking (1u << 0)
/* Every grGraphLaunch checks the addresses baked into the executable:
 * each 8-byte word of a kernel node's arguments, each copy's and memset's
 * range and each host node's user data that points into graphrt memory
 * freed since (grFree, grFreeHost, grFreeAsync) makes the
 * launch fail with grErrorIllegalAddress and a detail naming the node and
 * the freed allocation; so does a copy or memset range that no longer
 * fits its allocation. Nodes disabled with grGraphNodeSetEnabled are not
 * looked at. Also GRAPHRT_CHECK=1. */
#define grDebugCheckLaunches (1u << 1)

/* graphrt's own. Sets the debug modes (the grDebug* bits; 0 turns them
 * off), replacing what GRAPHRT_LAUNCH_BLOCKING and GRAPHRT_CHECK set.
 * Errors: grErrorInvalidValue (unknown bits). Thread safety: any thread;
 * launches issued concurrently may or may not see the change. */
GR_API grError_t grSetDebugFlags(unsigned int flags);

/* graphrt's own. The debug modes on now. Errors: grErrorInvalidValue
 * (flags NULL). Thread safety: any thread. */
GR_API grError_t grGetDebugFlags(unsigned int *flags);

/* What a value baked into an executable's node is. */
typedef enum grBakedKind {
    grBakedPlain = 0,      /* not in graphrt memory: a scalar, or a host address outside its allocations */
    grBakedAllocation = 1, /* points into a live graphrt allocation (allocBase, allocSize, allocOffset) */
    grBakedFreedAllocation = 2 /* points into a graphrt allocation freed since: stale */
} grBakedKind;

/* Which field of the node holds the value. */
typedef enum grBakedField {
    grBakedKernelArg = 0,    /* a kernel argument (param, offset) */
    grBakedCopyDst = 1,      /* a memcpy node's destination (extent: the bytes it spans) */
    grBakedCopySrc = 2,      /* a memcpy node's source (extent: the bytes it spans) */
    grBakedMemsetDst = 3,    /* a memset node's destination (extent: the bytes it spans) */
    grBakedHostFn = 4,       /* a host node's function */
    grBakedHostUserData = 5, /* a host node's user data */
    grBakedMemOpAddress = 6  /* a batch memory operation's word (param: the operation's index; extent: 4
                              * or 8) */
} grBakedField;

/* One value baked into a node of an executable. */
typedef struct grBakedValue {
    unsigned int node;        /* the plan node: its position in the executable's topological order (child
                               * graphs inlined), as launch check details and traces name nodes */
    grGraphNodeType nodeType; /* grGraphNodeTypeKernel, Memcpy, Memset, Host or BatchMemOp */
    grGraphNode_t graphNode;  /* the top-level node of the instantiated graph that is, or contains, this
                               * node: a key only (it may be destroyed) */
    const char *kernel; /* kernel nodes: the kernel's name (valid while the executable lives), else NULL */
    grBakedField field;
    int param;           /* grBakedKernelArg: the parameter's index; grBakedMemOpAddress: the
                          * operation's; else -1 */
    unsigned int offset; /* grBakedKernelArg: the value's byte offset in the parameter (a multiple of 8) */
    unsigned int size;   /* bytes of the value: 8, or the parameter's size when smaller */
    unsigned long long value; /* the bytes, little-endian, zero-extended (an address: the address) */
    size_t extent; /* copies, memsets and memory operations: the bytes accessed from 'value'; else 0 */
    grBakedKind kind;
    void *allocBase;     /* grBakedAllocation, grBakedFreedAllocation: the allocation; else NULL */
    size_t allocSize;    /* its size in bytes */
    size_t allocOffset;  /* value - allocBase */
    const char *freedBy; /* grBakedFreedAllocation: "grFree", "grFreeHost", "grFreeAsync" (a block
                          * its pool keeps) or "its memory pool" (given back to the system) */
} grBakedValue;

/* graphrt's own. Lists the values baked into the executable's kernel,
 * memcpy, memset, host and batch memory operation nodes: each kernel
 * argument, 8 bytes at a time (a parameter of fewer bytes as one value),
 * each copy's destination and source, each memset's destination, each
 * host node's function and user data, each memory operation's word, in
 * plan order, classified against graphrt's allocations now; the
 * values of a conditional node's bodies are listed with the conditional
 * node (its plan position and graph node), body after body.
 * With values NULL, *count receives the number of values; otherwise up
 * to *count are written and *count receives the number written. Pointers
 * into allocations freed long ago (more than 1024 frees back) read as
 * grBakedPlain, and into a freed allocation whose address was handed out
 * again as grBakedAllocation. Errors: grErrorInvalidValue (exec not live, count NULL),
 * grErrorMemoryAllocation. Thread safety: any thread; it reads the plan
 * under the executable's lock, between changes of other threads, and
 * never waits for launches. */
GR_API grError_t grGraphExecGetBakedValues(grGraphExec_t exec, grBakedValue *values, size_t *count);

/* graphrt's own. Prints grGraphExecGetBakedValues' list to 'out', one
 * line per value ("node 3 kernel 'blur' args[2]+0 = 0x7f.. -> 16 bytes
 * into the allocation at 0x7f.. of 4096 bytes"), stale values marked
 * "STALE". Errors: grErrorInvalidValue (exec not live, out NULL),
 * grErrorMemoryAllocation, grErrorUnknown (a write failed). Thread
 * safety: as grGraphExecGetBakedValues. */
GR_API grError_t grGraphExecPrintBakedValues(grGraphExec_t exec, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_DEBUG_H */
