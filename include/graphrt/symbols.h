/*
 * graphrt/symbols.h - symbols (CUDA's "Memory Management", the
 * symbol part): graphrt's form of __device__ globals and the copies to and
 * from them.
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_SYMBOLS_H
#define GRAPHRT_MODULE_SYMBOLS_H

#include "memory.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================== */
/* Symbols (graphrt's form of __device__ globals; docs/memory.md)         */
/* ====================================================================== */

/*
 * A symbol is a C object the program registers under its address: the
 * address is what CUDA's symbol argument is (the __device__ variable), and
 * every symbol call looks the address up among the registered ones (its
 * start, exactly). A symbol lives in host memory; on a GPU the program
 * would use a module global, which graphrt does not load.
 */

/* Registers the 'size' bytes at 'symbol' (a global, or any memory that
 * outlives its registration) under an optional name (copied; NULL: none),
 * which details quote. Errors: grErrorInvalidValue (symbol NULL, size 0, a
 * range that wraps, a range overlapping a registered symbol),
 * grErrorMemoryAllocation. Thread safety: any thread. graphrt's own (CUDA
 * registers symbols through the compiler's generated code). */
GR_API grError_t grRegisterSymbol(const void *symbol, size_t size, const char *name);

/* Forgets a registered symbol; copies already queued or captured keep its
 * address. Errors: grErrorInvalidSymbol (not registered). Thread safety:
 * any thread. graphrt's own. */
GR_API grError_t grUnregisterSymbol(const void *symbol);

/* The address (the symbol itself) and size of a registered symbol.
 * Errors: grErrorInvalidValue (devPtr or size NULL), grErrorInvalidSymbol
 * (symbol not registered). Thread safety: any thread. Mirror
 * cudaGetSymbolAddress / cudaGetSymbolSize. */
GR_API grError_t grGetSymbolAddress(void **devPtr, const void *symbol);
GR_API grError_t grGetSymbolSize(size_t *size, const void *symbol);

/* Copies count bytes from src to symbol + offset, synchronously as
 * grMemcpy. kind: grMemcpyHostToDevice (CUDA's default),
 * grMemcpyDeviceToDevice or grMemcpyDefault. Errors: grErrorInvalidSymbol
 * (symbol not registered), grErrorInvalidValue (count > 0 and offset + count beyond the
 * symbol's size; src NULL with count > 0; a source range refused as
 * grMemcpy refuses one), grErrorInvalidMemcpyDirection (another kind);
 * plus grMemcpy's errors. Thread safety: any thread. Mirrors
 * cudaMemcpyToSymbol. */
GR_API grError_t grMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                                  grMemcpyKind kind);

/* Copies count bytes from symbol + offset to dst, synchronously as
 * grMemcpy. kind: grMemcpyDeviceToHost (CUDA's default),
 * grMemcpyDeviceToDevice or grMemcpyDefault. Errors: as grMemcpyToSymbol
 * with dst for src.
 * Thread safety: any thread. Mirrors cudaMemcpyFromSymbol. */
GR_API grError_t grMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                    grMemcpyKind kind);

/* grMemcpyToSymbol / grMemcpyFromSymbol queued on a stream (a memcpy node
 * on a capturing stream). Errors: as the synchronous forms plus
 * grMemcpyAsync's capture and stream errors.
 * Thread safety: any thread. Mirror
 * cudaMemcpyToSymbolAsync / cudaMemcpyFromSymbolAsync. */
GR_API grError_t grMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                       grMemcpyKind kind, grStream_t stream);
GR_API grError_t grMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                         grMemcpyKind kind, grStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_SYMBOLS_H */
