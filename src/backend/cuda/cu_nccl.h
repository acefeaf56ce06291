/*
 * cu_nccl.h - the part of NCCL's nccl.h that graphrt calls, declared here
 * because no nccl.h is needed to build graphrt: NCCL is loaded at run time
 * (nccl.c: dlopen("libnccl.so.2"), each function by dlsym), as the driver
 * is. The types and values are NCCL's (stable since NCCL 2.0; the data
 * types and reductions are graphrt's grCommDataType and grCommRedOp,
 * value for value). Private to the CUDA backend.
 */
#ifndef GR_CU_NCCL_H
#define GR_CU_NCCL_H

#include "cu_driver.h"

typedef struct ncclComm *ncclComm_t;

#define GR_NCCL_UNIQUE_ID_BYTES 128
typedef struct {
    char internal[GR_NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

typedef enum {
    ncclSuccess = 0,
    ncclUnhandledCudaError = 1,
    ncclSystemError = 2,
    ncclInternalError = 3,
    ncclInvalidArgument = 4,
    ncclInvalidUsage = 5,
    ncclRemoteError = 6,
    ncclInProgress = 7
} ncclResult_t;

/* grCommDataType's values (ncclInt8 = 0 ... ncclBfloat16 = 9). */
typedef int ncclDataType_t;
/* grCommRedOp's values (ncclSum = 0 ... ncclAvg = 4). */
typedef int ncclRedOp_t;

/* Every function graphrt resolves: its name and parameters, NCCL's. */
#define GR_NCCL_FUNCTIONS(X)                                                                                 \
    X(ncclGetVersion, (int *version))                                                                        \
    X(ncclGetUniqueId, (ncclUniqueId * uniqueId))                                                            \
    X(ncclCommInitRank, (ncclComm_t * comm, int nranks, ncclUniqueId commId, int rank))                      \
    X(ncclCommInitAll, (ncclComm_t * comm, int ndev, const int *devlist))                                    \
    X(ncclCommDestroy, (ncclComm_t comm))                                                                    \
    X(ncclCommCount, (const ncclComm_t comm, int *count))                                                    \
    X(ncclCommUserRank, (const ncclComm_t comm, int *rank))                                                  \
    X(ncclAllReduce, (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,           \
                      ncclRedOp_t op, ncclComm_t comm, CUstream stream))                                     \
    X(ncclBroadcast, (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root, \
                      ncclComm_t comm, CUstream stream))                                                     \
    X(ncclReduce, (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,              \
                   ncclRedOp_t op, int root, ncclComm_t comm, CUstream stream))                              \
    X(ncclAllGather, (const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype,       \
                      ncclComm_t comm, CUstream stream))                                                     \
    X(ncclReduceScatter, (const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t datatype,   \
                          ncclRedOp_t op, ncclComm_t comm, CUstream stream))                                 \
    X(ncclSend, (const void *sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,     \
                 CUstream stream))                                                                           \
    X(ncclRecv,                                                                                              \
      (void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm, CUstream stream))   \
    X(ncclGroupStart, (void))                                                                                \
    X(ncclGroupEnd, (void))

typedef struct gr_nccl_table {
/* NOLINTNEXTLINE(bugprone-macro-parentheses): a declarator, not an expression */
#define GR_NCCL_MEMBER(name, params) ncclResult_t(*name) params;
    GR_NCCL_FUNCTIONS(GR_NCCL_MEMBER)
#undef GR_NCCL_MEMBER
    const char *(*ncclGetErrorString)(ncclResult_t result);
} gr_nccl_table;

#endif /* GR_CU_NCCL_H */
