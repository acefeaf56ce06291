/*
 * graphrt.hpp - CUDA's C++ conveniences on top of graphrt.h, so that the
 * host code of a C++ CUDA program ports by renaming: 'cuda' becomes 'gr'
 * and '#include <cuda_runtime.h>' becomes '#include <graphrt.hpp>'.
 *
 * CUDA's runtime header, compiled as C++, adds to the C API: default
 * arguments (cudaEventRecord(e), cudaMemcpyAsync without a stream,
 * cudaGraphConditionalHandleCreate(&h, graph), ...), templates that take
 * any T ** (cudaMalloc(&floatPtr, n) without a cast), overloads
 * (cudaGraphInstantiate with an error node and a log buffer,
 * cudaMallocAsync from a pool, cudaEventCreate with flags,
 * cudaGraphExecUpdate with CUDA 11's out-parameters), symbols passed as
 * the variable itself rather than its address, and the type dim3 with
 * constructors. This header gives the same for graphrt's functions, with
 * CUDA 13.0's defaults and overloads, as cuda_runtime.h and
 * cuda_runtime_api.h declare them: the CUDA call of each entry is named in
 * its comment, and the C function it calls (graphrt.h) documents the
 * behaviour and the errors. CUDA declares some of them only where nvcc
 * compiles the file (__CUDACC__: the symbol templates, the CUDA 11
 * cudaGraphExecUpdate, the C++ cudaUserObjectCreate); graphrt has no such
 * split, as a .cu file's host code is what gets ported.
 *
 * What this header adds is C++ only: default arguments are added by
 * redeclaring graphrt.h's functions (they keep C linkage and the same
 * symbol); overloads and templates are inline C++ functions that call
 * the C API, so nothing here is exported by the library and a program
 * needs no C++ runtime from graphrt.
 *
 * Not here: CUDA's overloads of calls graphrt does not have
 * (cudaHostAlloc, and so cudaMallocHost with flags; cudaMallocManaged,
 * cudaMallocPitch, the occupancy and function-attribute templates), and
 * the templates that take a __global__ function (cudaLaunchKernel,
 * cudaLaunchKernelEx with typed arguments): a graphrt kernel is a
 * grKernel_t (graphrt.h, graphrt_kernel.h), launched with grLaunchKernel,
 * whose sharedMem and stream default to 0 here as in cudaLaunchKernel.
 */
#ifndef GRAPHRT_HPP
#define GRAPHRT_HPP

#ifndef __cplusplus
#error "graphrt.hpp is the C++ face of graphrt; C programs include graphrt.h"
#endif

#include "graphrt.h"

#include <cstring>

/* CUDA's calling-convention marker of host callbacks (void CUDART_CB
 * fn(void *)); renaming 'cuda' leaves it as it is, and it means nothing
 * on the platforms graphrt runs on. */
#ifndef CUDART_CB
#define CUDART_CB
#endif

/* ---------------------------------------------------------------- dim3 */

/*
 * CUDA's dim3, which renaming leaves as it is: grid and block sizes with
 * constructors, dim3 grid(64) being {64, 1, 1}. It is a grDim3 (derived,
 * with no member of its own), so it passes wherever a grDim3 goes
 * (grLaunchKernel, grKernelNodeParams.gridDim) and a grDim3 converts
 * back. grDim3 itself stays a C aggregate, as graphrt.h defines it: CUDA
 * gives its C-and-C++ dim3 constructors, which makes the default
 * constructor of cudaGraphNodeParams (a union holding dim3s) deleted in
 * C++; grGraphNodeParams keeps its default constructor. As CUDA's, a
 * default dim3 is {1, 1, 1}.
 */
struct dim3 : grDim3 {
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : grDim3{vx, vy, vz}
    {
    }
    constexpr dim3(const grDim3 &v) : grDim3(v)
    {
    }
};

/* ---------------------------------------------------- default arguments */

/*
 * The defaults of cuda_runtime_api.h under C++, and of the templates of
 * cuda_runtime.h that give a graphrt function defaults, on the same
 * parameters. A stream defaulting to 0 is the legacy default stream.
 */
extern "C" {
/* cudaStreamWaitEvent */
grError_t grStreamWaitEvent(grStream_t stream, grEvent_t event, unsigned int flags = 0);
/* cudaStreamAttachMemAsync */
grError_t grStreamAttachMemAsync(grStream_t stream, void *devPtr, size_t length = 0,
                                 unsigned int flags = grMemAttachSingle);
/* cudaStreamGetCaptureInfo (CUDA 13 form) */
grError_t grStreamGetCaptureInfo(grStream_t stream, grStreamCaptureStatus *captureStatus_out,
                                 unsigned long long *id_out = nullptr, grGraph_t *graph_out = nullptr,
                                 const grGraphNode_t **dependencies_out = nullptr,
                                 const grGraphEdgeData **edgeData_out = nullptr,
                                 size_t *numDependencies_out = nullptr);
/* cudaStreamUpdateCaptureDependencies (CUDA 13 form) */
grError_t grStreamUpdateCaptureDependencies(grStream_t stream, grGraphNode_t *dependencies,
                                            const grGraphEdgeData *dependencyData, size_t numDependencies,
                                            unsigned int flags = 0);
/* cudaEventRecord, cudaEventRecordWithFlags */
grError_t grEventRecord(grEvent_t event, grStream_t stream = nullptr);
grError_t grEventRecordWithFlags(grEvent_t event, grStream_t stream = nullptr, unsigned int flags = 0);
/* cudaLaunchKernel (the template of cuda_runtime.h) */
grError_t grLaunchKernel(grKernel_t kernel, grDim3 gridDim, grDim3 blockDim, void **args,
                         size_t sharedMem = 0, grStream_t stream = nullptr);
/* cudaMemcpyAsync, cudaMemsetAsync */
grError_t grMemcpyAsync(void *dst, const void *src, size_t count, grMemcpyKind kind,
                        grStream_t stream = nullptr);
grError_t grMemsetAsync(void *devPtr, int value, size_t count, grStream_t stream = nullptr);
/* cudaMemcpy2DAsync, cudaMemcpy3DAsync, cudaMemset2DAsync, cudaMemset3DAsync */
grError_t grMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                          size_t height, grMemcpyKind kind, grStream_t stream = nullptr);
grError_t grMemcpy3DAsync(const grMemcpy3DParms *p, grStream_t stream = nullptr);
grError_t grMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                          grStream_t stream = nullptr);
grError_t grMemset3DAsync(grPitchedPtr pitchedDevPtr, int value, grExtent extent,
                          grStream_t stream = nullptr);
/* cudaMemcpyToSymbol, cudaMemcpyFromSymbol and their Async forms, called
 * with an address (the templates below take the variable) */
grError_t grMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset = 0,
                           grMemcpyKind kind = grMemcpyHostToDevice);
grError_t grMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset = 0,
                             grMemcpyKind kind = grMemcpyDeviceToHost);
grError_t grMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                grMemcpyKind kind, grStream_t stream = nullptr);
grError_t grMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                  grMemcpyKind kind, grStream_t stream = nullptr);
/* cudaGraphInstantiate, cudaGraphInstantiateWithFlags */
grError_t grGraphInstantiate(grGraphExec_t *pGraphExec, grGraph_t graph, unsigned long long flags = 0);
grError_t grGraphInstantiateWithFlags(grGraphExec_t *pGraphExec, grGraph_t graph,
                                      unsigned long long flags = 0);
/* cudaGraphConditionalHandleCreate */
grError_t grGraphConditionalHandleCreate(grGraphConditionalHandle *pHandle_out, grGraph_t graph,
                                         unsigned int defaultLaunchValue = 0, unsigned int flags = 0);
/* cudaUserObjectRetain, cudaUserObjectRelease, cudaGraphRetainUserObject,
 * cudaGraphReleaseUserObject */
grError_t grUserObjectRetain(grUserObject_t object, unsigned int count = 1);
grError_t grUserObjectRelease(grUserObject_t object, unsigned int count = 1);
grError_t grGraphRetainUserObject(grGraph_t graph, grUserObject_t object, unsigned int count = 1,
                                  unsigned int flags = 0);
grError_t grGraphReleaseUserObject(grGraph_t graph, grUserObject_t object, unsigned int count = 1);
}

namespace graphrt_detail {
/* The address of a symbol, whatever its qualifiers, as the C calls take
 * it (CUDA's templates write (const void *)&symbol). */
template <class T> inline const void *address_of(const T &symbol)
{
    return const_cast<const void *>(static_cast<const volatile void *>(&symbol));
}
} // namespace graphrt_detail

/* ------------------------------------------------ allocation templates */

/* cudaMalloc(T **, size): grMalloc without the cast to void **. */
template <class T> inline grError_t grMalloc(T **devPtr, size_t size)
{
    return ::grMalloc(reinterpret_cast<void **>(devPtr), size);
}

/* cudaMallocHost(T **, size): grMallocHost without the cast. CUDA's
 * third parameter (flags, passed to cudaHostAlloc) is absent: graphrt
 * has no grHostAlloc. */
template <class T> inline grError_t grMallocHost(T **ptr, size_t size)
{
    return ::grMallocHost(reinterpret_cast<void **>(ptr), size);
}

/* cudaMallocAsync(void **, size, pool, stream): CUDA's other spelling of
 * grMallocFromPoolAsync. */
inline grError_t grMallocAsync(void **ptr, size_t size, grMemPool_t memPool, grStream_t stream)
{
    return ::grMallocFromPoolAsync(ptr, size, memPool, stream);
}

/* cudaMallocAsync(T **, size, pool, stream), from a pool. */
template <class T>
inline grError_t grMallocAsync(T **ptr, size_t size, grMemPool_t memPool, grStream_t stream)
{
    return ::grMallocFromPoolAsync(reinterpret_cast<void **>(ptr), size, memPool, stream);
}

/* cudaMallocAsync(T **, size, stream), from the device's current pool. */
template <class T> inline grError_t grMallocAsync(T **ptr, size_t size, grStream_t stream)
{
    return ::grMallocAsync(reinterpret_cast<void **>(ptr), size, stream);
}

/* cudaMallocFromPoolAsync(T **, size, pool, stream). */
template <class T>
inline grError_t grMallocFromPoolAsync(T **ptr, size_t size, grMemPool_t memPool, grStream_t stream)
{
    return ::grMallocFromPoolAsync(reinterpret_cast<void **>(ptr), size, memPool, stream);
}

/* cudaStreamAttachMemAsync(stream, T *, length, flags). */
template <class T>
inline grError_t grStreamAttachMemAsync(grStream_t stream, T *devPtr, size_t length = 0,
                                        unsigned int flags = grMemAttachSingle)
{
    return ::grStreamAttachMemAsync(stream, const_cast<void *>(static_cast<const volatile void *>(devPtr)),
                                    length, flags);
}

/* ----------------------------------------------------------- overloads */

/* cudaEventCreate(event, flags): grEventCreateWithFlags. */
inline grError_t grEventCreate(grEvent_t *event, unsigned int flags)
{
    return ::grEventCreateWithFlags(event, flags);
}

/*
 * cudaGraphInstantiate(pGraphExec, graph, pErrorNode, pLogBuffer,
 * bufferSize), the CUDA 11 form that CUDA 13's C++ header still accepts:
 * grGraphInstantiate with flags 0. CUDA's header ignores the last three;
 * graphrt writes grGetLastErrorDetail()'s sentence into pLogBuffer when
 * the instantiation fails, and "" when it succeeds (pLogBuffer NULL or
 * bufferSize 0: nothing). As CUDA documents it, the text is
 * NUL-terminated unless it does not fit: it is then cut to bufferSize
 * bytes, the last one not NUL. *pErrorNode is never written (graphrt's
 * detail names the node).
 */
inline grError_t grGraphInstantiate(grGraphExec_t *pGraphExec, grGraph_t graph, grGraphNode_t *pErrorNode,
                                    char *pLogBuffer, size_t bufferSize)
{
    (void)pErrorNode;
    grError_t err = ::grGraphInstantiate(pGraphExec, graph, 0ULL);
    if (pLogBuffer && bufferSize > 0) {
        const char *log = err == grSuccess ? "" : grGetLastErrorDetail();
        size_t n = std::strlen(log);
        if (n < bufferSize)
            std::memcpy(pLogBuffer, log, n + 1);
        else
            std::memcpy(pLogBuffer, log, bufferSize);
    }
    return err;
}

/*
 * cudaGraphExecUpdate(exec, graph, hErrorNode_out, updateResult_out), the
 * CUDA 11 form that CUDA 13's C++ header keeps "to avoid source breakage":
 * grGraphExecUpdate, with the result info's errorNode and result written
 * to whichever of the two pointers is not NULL.
 */
inline grError_t grGraphExecUpdate(grGraphExec_t hGraphExec, grGraph_t hGraph, grGraphNode_t *hErrorNode_out,
                                   grGraphExecUpdateResult *updateResult_out)
{
    grGraphExecUpdateResultInfo info;
    std::memset(&info, 0, sizeof info);
    grError_t err = ::grGraphExecUpdate(hGraphExec, hGraph, &info);
    if (hErrorNode_out)
        *hErrorNode_out = info.errorNode;
    if (updateResult_out)
        *updateResult_out = info.result;
    return err;
}

/*
 * cudaUserObjectCreate(object_out, T *objectToWrap, initialRefcount,
 * flags): a user object whose destructor is 'delete objectToWrap'.
 */
template <class T>
inline grError_t grUserObjectCreate(grUserObject_t *object_out, T *objectToWrap, unsigned int initialRefcount,
                                    unsigned int flags)
{
    struct deleter {
        static void destroy(void *p)
        {
            delete static_cast<T *>(p);
        }
    };
    return ::grUserObjectCreate(object_out, objectToWrap, &deleter::destroy, initialRefcount, flags);
}

template <class T>
inline grError_t grUserObjectCreate(grUserObject_t *object_out, T *objectToWrap, unsigned int initialRefcount,
                                    grUserObjectFlags flags)
{
    return grUserObjectCreate(object_out, objectToWrap, initialRefcount, static_cast<unsigned int>(flags));
}

/* ------------------------------------------------------------- symbols */

/*
 * CUDA's symbol templates take the variable itself (a const T &) and pass
 * its address to the C call, as graphrt's symbol calls want it (a
 * registered address; graphrt.h, section Symbols). As in CUDA, an address
 * passed where these templates apply (grMemcpyToSymbol(&var, ...) with
 * three arguments) binds T to the pointer type and names a temporary,
 * which no symbol matches: grErrorInvalidSymbol.
 */

/* cudaMemcpyToSymbol(symbol, src, count, offset, kind) */
template <class T>
inline grError_t grMemcpyToSymbol(const T &symbol, const void *src, size_t count, size_t offset = 0,
                                  grMemcpyKind kind = grMemcpyHostToDevice)
{
    return ::grMemcpyToSymbol(graphrt_detail::address_of(symbol), src, count, offset, kind);
}

/* cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, stream) */
template <class T>
inline grError_t grMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count, size_t offset = 0,
                                       grMemcpyKind kind = grMemcpyHostToDevice, grStream_t stream = nullptr)
{
    return ::grMemcpyToSymbolAsync(graphrt_detail::address_of(symbol), src, count, offset, kind, stream);
}

/* cudaMemcpyFromSymbol(dst, symbol, count, offset, kind) */
template <class T>
inline grError_t grMemcpyFromSymbol(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                    grMemcpyKind kind = grMemcpyDeviceToHost)
{
    return ::grMemcpyFromSymbol(dst, graphrt_detail::address_of(symbol), count, offset, kind);
}

/* cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, stream) */
template <class T>
inline grError_t grMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                         grMemcpyKind kind = grMemcpyDeviceToHost,
                                         grStream_t stream = nullptr)
{
    return ::grMemcpyFromSymbolAsync(dst, graphrt_detail::address_of(symbol), count, offset, kind, stream);
}

/* cudaGetSymbolAddress(devPtr, symbol), cudaGetSymbolSize(size, symbol) */
template <class T> inline grError_t grGetSymbolAddress(void **devPtr, const T &symbol)
{
    return ::grGetSymbolAddress(devPtr, graphrt_detail::address_of(symbol));
}

template <class T> inline grError_t grGetSymbolSize(size_t *size, const T &symbol)
{
    return ::grGetSymbolSize(size, graphrt_detail::address_of(symbol));
}

/* cudaGraphAddMemcpyNodeToSymbol, cudaGraphAddMemcpyNodeFromSymbol */
template <class T>
inline grError_t grGraphAddMemcpyNodeToSymbol(grGraphNode_t *pGraphNode, grGraph_t graph,
                                              const grGraphNode_t *pDependencies, size_t numDependencies,
                                              const T &symbol, const void *src, size_t count, size_t offset,
                                              grMemcpyKind kind)
{
    return ::grGraphAddMemcpyNodeToSymbol(pGraphNode, graph, pDependencies, numDependencies,
                                          graphrt_detail::address_of(symbol), src, count, offset, kind);
}

template <class T>
inline grError_t grGraphAddMemcpyNodeFromSymbol(grGraphNode_t *pGraphNode, grGraph_t graph,
                                                const grGraphNode_t *pDependencies, size_t numDependencies,
                                                void *dst, const T &symbol, size_t count, size_t offset,
                                                grMemcpyKind kind)
{
    return ::grGraphAddMemcpyNodeFromSymbol(pGraphNode, graph, pDependencies, numDependencies, dst,
                                            graphrt_detail::address_of(symbol), count, offset, kind);
}

/* cudaGraphMemcpyNodeSetParamsToSymbol, ...FromSymbol */
template <class T>
inline grError_t grGraphMemcpyNodeSetParamsToSymbol(grGraphNode_t node, const T &symbol, const void *src,
                                                    size_t count, size_t offset, grMemcpyKind kind)
{
    return ::grGraphMemcpyNodeSetParamsToSymbol(node, graphrt_detail::address_of(symbol), src, count, offset,
                                                kind);
}

template <class T>
inline grError_t grGraphMemcpyNodeSetParamsFromSymbol(grGraphNode_t node, void *dst, const T &symbol,
                                                      size_t count, size_t offset, grMemcpyKind kind)
{
    return ::grGraphMemcpyNodeSetParamsFromSymbol(node, dst, graphrt_detail::address_of(symbol), count,
                                                  offset, kind);
}

/* cudaGraphExecMemcpyNodeSetParamsToSymbol, ...FromSymbol */
template <class T>
inline grError_t grGraphExecMemcpyNodeSetParamsToSymbol(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                        const T &symbol, const void *src, size_t count,
                                                        size_t offset, grMemcpyKind kind)
{
    return ::grGraphExecMemcpyNodeSetParamsToSymbol(hGraphExec, node, graphrt_detail::address_of(symbol), src,
                                                    count, offset, kind);
}

template <class T>
inline grError_t grGraphExecMemcpyNodeSetParamsFromSymbol(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                          void *dst, const T &symbol, size_t count,
                                                          size_t offset, grMemcpyKind kind)
{
    return ::grGraphExecMemcpyNodeSetParamsFromSymbol(
        hGraphExec, node, dst, graphrt_detail::address_of(symbol), count, offset, kind);
}

#endif /* GRAPHRT_HPP */
