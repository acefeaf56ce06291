/*
 * graphrt/graph_file.h - graph files, graphrt's own: saving and loading graphs.
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_GRAPH_FILE_H
#define GRAPHRT_MODULE_GRAPH_FILE_H

#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================== */
/* Graph files (graphrt's own; docs/graph-files.md)                       */
/* ====================================================================== */

/*
 * A graph file is a versioned, line-oriented text form of a graph: every
 * node with its parameters, the edges in order, child graphs nested.
 * Kernels and host functions appear by name (the names of grKernelCreate
 * and grHostFnRegister), memory as symbolic buffers with sizes and
 * offsets, events as symbolic events. The same graph saved twice gives the
 * same bytes. The format is specified in docs/graph-files.md.
 */

/* Registers host function fn under 'name' (copied; 1..256 bytes, unique
 * among registered host functions; a function has one name), so that
 * graph files can name it: a host node of fn is saved as "host NAME" and
 * loaded back as fn. userData is the userData a loaded host node gets
 * where the saved node had that same pointer (saved as the word
 * 'registered'). Errors: grErrorInvalidValue (fn NULL, name NULL, empty
 * or too long, the name or the function registered already),
 * grErrorMemoryAllocation. Thread safety: any thread. graphrt's own (CUDA
 * has no names for host functions). */
GR_API grError_t grHostFnRegister(grHostFn_t fn, const char *name, void *userData);

/* Takes fn off the registry of host functions; graphs already loaded keep
 * it. Errors: grErrorInvalidValue (fn not registered). Thread safety: any
 * thread. graphrt's own. */
GR_API grError_t grHostFnUnregister(grHostFn_t fn);

/* Writes graph as a graph file to 'path' (created or truncated); the
 * same graph always gives the same bytes. flags must be 0. Pointers in
 * kernel arguments, copies, memsets and host userData that point into
 * graphrt allocations (grMalloc, grMallocHost, pools) are saved as buffers
 * with offsets, pointers into the memory of the graph's allocation nodes
 * as offsets from those nodes; other kernel argument bytes by value; the
 * memory of a copy or memset that graphrt did not allocate as a host
 * buffer of its own; a host userData that is none of these and not the
 * function's registered userData by value (meaningful only in this
 * process). Conditional nodes are saved with their bodies, their handles
 * as declarations (default value, flags), and a kernel argument equal to
 * a live handle of the graph's nest as that handle's name. Errors: grErrorInvalidValue (graph NULL or not live, path
 * NULL, flags not 0, a host node whose function is not registered with
 * grHostFnRegister, the file cannot be written: the detail gives the node
 * or the system's reason), grErrorNotSupported (a free node of another
 * graph's allocation), grErrorMemoryAllocation. Thread safety: not with
 * other calls on the same graph. graphrt's own. */
GR_API grError_t grGraphSaveToFile(grGraph_t graph, const char *path, unsigned int flags);

/* Flags of grGraphLoadFromFile. */
/* Resolves every kernel and host function to a built-in stand-in instead
 * of the registered ones: kernels of the saved parameter layout whose
 * blocks do nothing (or spin, see grGraphSetStandInWork), host functions
 * that do the same, so that any graph file can be instantiated and
 * replayed without the program that made it. */
#define grGraphLoadStandIns (1u << 0)

/* Reads a graph file into a new graph (*graph). Kernels resolve to the
 * live kernels of those names (of the saved parameter sizes) and host
 * functions to the registered ones, unless grGraphLoadStandIns is given.
 * Buffers are allocated (grMalloc or grMallocHost as saved, contents
 * zero), events created and conditional handles made for the new graph
 * (kernel arguments naming one get its value); the loaded graph owns
 * them, with its clones and the executables instantiated from them: they
 * are freed when the last of those is destroyed (destroy them before grDeviceReset, which
 * frees all memory). Errors: grErrorInvalidValue (graph or path NULL,
 * flags unknown, the file cannot be opened or read (a directory: "cannot
 * read 'PATH': Is a directory"), a malformed or truncated file,
 * an unknown version, a kernel or host function name that is not
 * registered, a kernel whose parameter sizes differ from the saved ones:
 * the detail reads "PATH:LINE: what is wrong"), grErrorMemoryAllocation.
 * On failure *graph is untouched and nothing is left allocated. Thread
 * safety: any thread. graphrt's own. */
GR_API grError_t grGraphLoadFromFile(grGraph_t *graph, const char *path, unsigned int flags);

/* Sets how long the node of a stand-in runs from now on: every stand-in
 * kernel node spins nsPerNode nanoseconds spread over its blocks, every
 * stand-in host node nsPerNode (0, the default: they return at once).
 * Process-wide. Errors: none (grSuccess). Thread safety: any thread
 * (atomic). graphrt's own. */
GR_API grError_t grGraphSetStandInWork(unsigned long long nsPerNode);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_GRAPH_FILE_H */
