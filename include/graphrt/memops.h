/*
 * graphrt/memops.h - stream memory operations, graphrt's own (mirroring the
 * driver's cuStreamWaitValue32 family; their graph nodes are in nodes.h).
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_MEMOPS_H
#define GRAPHRT_MODULE_MEMOPS_H

#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================== */
/* Stream memory operations (graphrt's own; docs/stream-memops.md)        */
/* ====================================================================== */

/* Conditions of grStreamWaitValue32/64 (the driver's
 * CU_STREAM_WAIT_VALUE_*, same values): Geq waits until
 * (int32_t)(*addr - value) >= 0 (int64_t for 64 bits: a cyclic comparison),
 * Eq until *addr == value, And until (*addr & value) != 0, Nor until
 * ~(*addr | value) != 0. Flush (or'ed in) is refused with
 * grErrorNotSupported, as CUDA 13 refuses it on an H200 (a device that
 * cannot flush remote writes). */
#define grStreamWaitValueGeq 0x0u
#define grStreamWaitValueEq 0x1u
#define grStreamWaitValueAnd 0x2u
#define grStreamWaitValueNor 0x3u
#define grStreamWaitValueFlush (1u << 30)

/* Flags of grStreamWriteValue32/64 (CU_STREAM_WRITE_VALUE_*): Default
 * writes with a full barrier (earlier work's writes are visible first).
 * NoMemoryBarrier is refused with grErrorInvalidValue, as CUDA 13's driver
 * refuses it on an H200. */
#define grStreamWriteValueDefault 0x0u
#define grStreamWriteValueNoMemoryBarrier 0x1u

/* Queues a wait: the stream's later work runs once the 32-bit (64-bit)
 * word at addr meets the condition in flags. The word is read atomically;
 * other threads should store it atomically too (C11 atomics or
 * __atomic_store_n). The stream's thread spins briefly, then runs other
 * work while it waits (a worker runs other streams' work and graph nodes
 * it can take), then sleeps: a grStreamWriteValue32/64 wakes it at once,
 * a store by other means is noticed within about a millisecond (polled).
 * So a write queued on another stream runs even when the waiting thread
 * is the only worker; a write queued behind the wait on its own stream
 * never does. A wait never satisfied blocks the stream
 * for good, as in CUDA: grStreamSynchronize on it does not return;
 * grStreamDestroy does. Errors: grErrorInvalidValue (addr NULL, not
 * aligned to 4 (8) bytes, or refused as grMemcpy refuses a range; flags
 * not a condition), grErrorNotSupported (Flush; a GPU's memory on a CPU
 * stream), grErrorMemoryAllocation; plus the stream errors, and on a GPU
 * stream the driver's (cuStreamBatchMemOp runs it there, and refuses a
 * word the GPU cannot reach). On a capturing stream
 * the call adds a batch memory operation node holding the one operation
 * (grGraphNodeTypeBatchMemOp, as CUDA 13 captures it). Thread safety:
 * any thread. graphrt's own, mirroring the driver's cuStreamWaitValue32 /
 * cuStreamWaitValue64. */
GR_API grError_t grStreamWaitValue32(grStream_t stream, void *addr, uint32_t value, unsigned int flags);
GR_API grError_t grStreamWaitValue64(grStream_t stream, void *addr, uint64_t value, unsigned int flags);

/* Queues an atomic write of value to the 32-bit (64-bit) word at addr, in
 * stream order, waking the grStreamWaitValue32/64 waits that sleep.
 * Errors: grErrorInvalidValue (addr as grStreamWaitValue32 checks it;
 * flags other than Default), grErrorNotSupported and
 * the others as grStreamWaitValue32. Thread safety: any thread. graphrt's
 * own, mirroring cuStreamWriteValue32 / cuStreamWriteValue64. */
GR_API grError_t grStreamWriteValue32(grStream_t stream, void *addr, uint32_t value, unsigned int flags);
GR_API grError_t grStreamWriteValue64(grStream_t stream, void *addr, uint64_t value, unsigned int flags);

/* Queues count operations of paramArray (grStreamBatchMemOpParams) on
 * the stream, in array order, each as grStreamWaitValue32/64 or
 * grStreamWriteValue32/64 queues it (a grStreamMemOpBarrier: a full
 * memory fence). All operations are checked before any is queued. On a
 * capturing stream the batch becomes one batch memory operation node
 * holding a copy of the array (count 0 records nothing).
 * Errors: grErrorInvalidValue (flags not 0; count above
 * GR_BATCH_MEM_OP_MAX; paramArray NULL with count > 0, or not aligned to
 * an array of grStreamBatchMemOpParams, or not count readable elements,
 * which graphrt asks the kernel without reading them; an operation code
 * unknown; an operation's address or flags refused as the single calls
 * refuse them; a barrier's flags not a grStreamMemoryBarrierType*),
 * grErrorNotSupported (grStreamMemOpFlushRemoteWrites or
 * grStreamWaitValueFlush, as an H200 answers; a GPU's memory on a CPU
 * stream), plus the stream and capture errors, and on a GPU stream the
 * driver's (the batch is one cuStreamBatchMemOp there). count 0 succeeds and queues nothing, as in CUDA 13.
 * Thread safety: any thread. graphrt's own, mirroring the driver's
 * cuStreamBatchMemOp. */
GR_API grError_t grStreamBatchMemOp(grStream_t stream, unsigned int count,
                                    grStreamBatchMemOpParams *paramArray, unsigned int flags);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_MEMOPS_H */
