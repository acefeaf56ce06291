/*
 * conditional_v2.c - grGraphConditionalHandleCreate_v2, CUDA 13's form of
 * grGraphConditionalHandleCreate with an execution context. graphrt has
 * one context per device and no handle for it, so the only context it
 * takes is NULL ("the current one"), and the call is then the first form.
 *
 * Invariant: ctx is checked before the first form runs, so a refused call
 * creates no handle.
 */
#include "graph.h"

GR_API grError_t grGraphConditionalHandleCreate_v2(grGraphConditionalHandle *pHandle_out, grGraph_t graph,
                                                   grExecutionContext_t ctx, unsigned int defaultLaunchValue,
                                                   unsigned int flags)
{
    if (ctx != NULL)
        return gr__fail(grErrorNotSupported,
                        "grGraphConditionalHandleCreate_v2: ctx is %p; graphrt has no execution context "
                        "handles (one context per device, the current one): pass NULL",
                        (void *)ctx);
    return grGraphConditionalHandleCreate(pHandle_out, graph, defaultLaunchValue, flags);
}
