/*
 * common.h - what the recorder's client programs share: a check that
 * names the failing call, and CUDA's own DOT of a graph
 * (cudaGraphDebugDotPrint, verbose) written into $GRAPHRT_DOT_DIR as
 * NAME.dot: the ground truth tools/record-check.sh compares the recorded
 * graph files with.
 *
 * These programs are ordinary CUDA programs: nothing in them knows about
 * the recorder.
 */
#ifndef RECORD_CLIENTS_COMMON_H
#define RECORD_CLIENTS_COMMON_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(call)                                                                                       \
    do {                                                                                               \
        cudaError_t e_ = (call);                                                                       \
        if (e_ != cudaSuccess) {                                                                       \
            fprintf(stderr, "%s:%d: %s: %s (%d)\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_), \
                    (int)e_);                                                                          \
            exit(1);                                                                                   \
        }                                                                                              \
    } while (0)

static inline void dump_dot(cudaGraph_t g, const char *name)
{
    const char *dir = getenv("GRAPHRT_DOT_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.dot", dir && *dir ? dir : ".", name);
    CK(cudaGraphDebugDotPrint(g, path, cudaGraphDebugDotFlagsVerbose));
}

#endif
