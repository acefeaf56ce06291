/*
 * cross_device.c - what happens when work meets two devices: the CPU
 * (device 0) and an accelerator (1..N), or two accelerators. The rules,
 * as docs/devices.md ("Across the CPU and a GPU") states them:
 *
 *   | meeting                          | rule                                    | where        |
 *   |----------------------------------|-----------------------------------------|--------------|
 *   | copy or memset on a CPU stream   | runs at the call, once the stream's     | here         |
 *   | touching a device's memory       | earlier work has run (the call waits)   |              |
 *   | wait of a device stream on a CPU | the calling thread waits for the event  | here         |
 *   | event, or of a CPU stream on a   | at the call                             |              |
 *   | device event                     |                                         |              |
 *   | wait of a device stream on a     | the driver's wait (any two devices of   | here         |
 *   | device event                     | the kind)                               |              |
 *   | event record on a stream of      | refused, grErrorInvalidResourceHandle   | here         |
 *   | another device                   | (as in CUDA)                            |              |
 *   | allocation from, or current pool | refused, grErrorInvalidValue, naming    | memory/pool.c|
 *   | of, another device's pool        | both devices                            |              |
 *   | pool access of a pool's own      | refused (a pool's device always has     | memory/      |
 *   | device                           | read-write access)                      | pool_access.c|
 *
 * The pools' rules stay with the pools (the memory layer, above the
 * backend); every other rule is a function here, which the entry points
 * call once they have found that the objects are of two devices.
 */
#include "device.h"

grError_t gr__cross_copy_now(const char *call, gr_stream *s, int device, void *dst, const void *src,
                             int value, size_t count)
{
    grError_t err = gr__stream_sync_dev(call, s);
    if (err)
        return gr__fail_again(err);
    err = src ? gr__devkind()->copy_now(device, dst, src, count)
              : gr__devkind()->fill_now(device, dst, value, count);
    if (err)
        return gr__fail(err, "%s: the %s of %zu bytes touching device %d's memory failed (%s)", call,
                        src ? "copy" : "memset", count, device, grGetErrorName(err));
    return grSuccess;
}

grError_t gr__cross_wait_event(const char *call, gr_stream *s, grEvent_t e)
{
    if (s->device != 0 && e->device != 0)
        return gr__devkind()->stream_wait_event(call, s, e);
    return gr__event_sync_dev(call, e);
}

grError_t gr__cross_record_refusal(const char *call, grEvent_t e, gr_stream *s, const void *stream)
{
    return gr__fail(grErrorInvalidResourceHandle,
                    "%s: event %p was created on device %d and stream %p is of device %d; an "
                    "event is recorded on streams of its own device (as in CUDA): create it while that "
                    "device is current",
                    call, GR_PTR(e), e->device, GR_PTR(stream), s->device);
}

grError_t gr__stream_wait_event_dev(const char *call, gr_stream *s, grEvent_t e)
{
    if (GR_UNLIKELY(s->device != 0 || e->device != 0))
        return gr__cross_wait_event(call, s, e);
    return gr__stream_wait_event(call, s, e);
}
