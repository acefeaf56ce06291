/*
 * hostcpp-strict.cpp - every template, overload and default argument of
 * graphrt.hpp instantiated once, compiled (never run) with the warnings a
 * strict C++ project turns on (-Wold-style-cast,
 * -Wzero-as-null-pointer-constant, -Wsign-conversion, ...; CMakeLists.txt),
 * so that the header stays quiet in such a project. The calls' results
 * are summed only to use them; test-hostcpp.cpp checks what they do.
 */
#include "graphrt.hpp"

int graphrt_hostcpp_strict(void);

namespace {

struct Obj {
    int v;
};

const volatile int cvSymbol = 0;
float arraySymbol[4];

} // namespace

int graphrt_hostcpp_strict(void)
{
    float *f = nullptr;
    double *d = nullptr;
    char *c = nullptr;
    int *i = nullptr;
    void *v = nullptr;
    size_t size = 0;
    grStream_t s = nullptr;
    grMemPool_t pool = nullptr;
    grGraph_t g = nullptr;
    grGraphNode_t n = nullptr;
    grGraphExec_t e = nullptr;
    grEvent_t ev = nullptr;
    grUserObject_t uo = nullptr;
    grKernel_t k = nullptr;
    grGraphConditionalHandle h = 0;
    grGraphExecUpdateResult result = grGraphExecUpdateSuccess;
    grStreamCaptureStatus status = grStreamCaptureStatusNone;
    grMemcpy3DParms p3 = {};
    void **args = nullptr;
    const float *cf = f;
    int r = 0;

    r += grMalloc(&f, 4);
    r += grMallocHost(&d, 8);
    r += grMallocAsync(&c, 1, s);
    r += grMallocAsync(&i, 4, pool, s);
    r += grMallocAsync(&v, 4, pool, s);
    r += grMallocFromPoolAsync(&f, 4, pool, s);
    r += grStreamAttachMemAsync(s, cf);
    r += grStreamAttachMemAsync(s, f, 4, grMemAttachGlobal);
    r += grEventCreate(&ev, grEventDisableTiming);
    r += grGraphInstantiate(&e, g, &n, nullptr, 0);
    r += grGraphInstantiate(&e, g);
    r += grGraphInstantiateWithFlags(&e, g);
    r += grGraphExecUpdate(e, g, &n, &result);
    r += grUserObjectCreate(&uo, new Obj{1}, 1u, 1u);
    r += grUserObjectCreate(&uo, new Obj{1}, 1u, grUserObjectNoDestructorSync);
    r += grMemcpyToSymbol(arraySymbol, f, 4);
    r += grMemcpyToSymbol(static_cast<const void *>(arraySymbol), f, 4);
    r += grMemcpyToSymbolAsync(arraySymbol, f, 4);
    r += grMemcpyFromSymbol(f, cvSymbol, 4);
    r += grMemcpyFromSymbolAsync(f, arraySymbol, 4, 0, grMemcpyDeviceToHost, s);
    r += grGetSymbolAddress(&v, arraySymbol);
    r += grGetSymbolSize(&size, cvSymbol);
    r += grGraphAddMemcpyNodeToSymbol(&n, g, nullptr, 0, arraySymbol, f, 4, 0, grMemcpyHostToDevice);
    r += grGraphAddMemcpyNodeFromSymbol(&n, g, nullptr, 0, f, arraySymbol, 4, 0, grMemcpyDeviceToHost);
    r += grGraphMemcpyNodeSetParamsToSymbol(n, arraySymbol, f, 4, 0, grMemcpyHostToDevice);
    r += grGraphMemcpyNodeSetParamsFromSymbol(n, f, arraySymbol, 4, 0, grMemcpyDeviceToHost);
    r += grGraphExecMemcpyNodeSetParamsToSymbol(e, n, arraySymbol, f, 4, 0, grMemcpyHostToDevice);
    r += grGraphExecMemcpyNodeSetParamsFromSymbol(e, n, f, arraySymbol, 4, 0, grMemcpyDeviceToHost);
    r += grEventRecord(ev);
    r += grEventRecordWithFlags(ev);
    r += grStreamWaitEvent(s, ev);
    r += grStreamGetCaptureInfo(s, &status);
    r += grStreamUpdateCaptureDependencies(s, &n, nullptr, 1);
    r += grMemcpyAsync(f, f, 4, grMemcpyDefault);
    r += grMemsetAsync(f, 0, 4);
    r += grMemcpy2DAsync(f, 4, f, 4, 4, 1, grMemcpyDefault);
    r += grMemset2DAsync(f, 4, 0, 4, 1);
    r += grMemcpy3DAsync(&p3);
    r += grMemset3DAsync(make_grPitchedPtr(f, 4, 4, 1), 0, make_grExtent(4, 1, 1));
    r += grGraphConditionalHandleCreate(&h, g);
    r += grGraphConditionalHandleCreate(&h, g, 1);
    r += grUserObjectRetain(uo);
    r += grUserObjectRelease(uo);
    r += grGraphRetainUserObject(g, uo);
    r += grGraphReleaseUserObject(g, uo);
    r += grLaunchKernel(k, dim3(1), dim3(2, 2), args);
    r += grLaunchKernel(k, dim3(), dim3(), args, 16);
    constexpr dim3 grid(4, 2);
    static_assert(grid.z == 1, "dim3's constexpr constructor");
    return r + static_cast<int>(status);
}
