/*
 * hostfn_v2.c - grLaunchHostFunc_v2: grLaunchHostFunc with CUDA 13.2's
 * sync mode, which says how the waiting side waits for the function
 * (block or spin), never when it runs. On the CPU the function runs on a
 * worker and the stream's next work starts when it returns, whatever the
 * mode; a GPU stream hands it to the driver's cuLaunchHostFunc, and a
 * capture records a host node (whose parameters have no mode).
 *
 * Invariants: the arguments and the stream are checked before anything
 * is queued or recorded: a refused call queues nothing.
 */
#include "api.h"
#include "../backend/device.h"
#include "../backend/enqueue.h"
#include "../capture/capture.h"

#include <string.h>

GR_API grError_t grLaunchHostFunc_v2(grStream_t stream, grHostFn_t fn, void *userData, unsigned int syncMode)
{
    static const char call[] = "grLaunchHostFunc_v2";
    gr_stream *s = NULL;
    grError_t e;
    if (!fn)
        return gr__fail(grErrorInvalidValue, "%s: 'fn' is NULL; pass the host function to run", call);
    if (syncMode != grHostTaskBlocking && syncMode != grHostTaskSpinWait)
        return gr__fail(grErrorInvalidValue,
                        "%s: syncMode %u is not a grHostTaskSyncMode (grHostTaskBlocking 0, "
                        "grHostTaskSpinWait 1)",
                        call, syncMode);
    if ((e = gr__stream_from_handle(call, stream, &s)) != grSuccess)
        return e;
    if (GR_UNLIKELY(gr__stream_capturing(s))) {
        grGraphNodeParams d;
        memset(&d, 0, sizeof d);
        d.type = grGraphNodeTypeHost;
        d.host = (grHostNodeParams){fn, userData};
        return gr__capture_record(call, s, &d);
    }
    if ((e = gr__capture_check_implicit(call, s)) != grSuccess)
        return e;
    if (GR_UNLIKELY(s->device != 0))
        return gr__launched(s, gr__devkind()->host_func(call, s, fn, userData));
    return gr__launched(s, gr__stream_enqueue_host(call, s, fn, userData));
}
