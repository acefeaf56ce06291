/*
 * stream_attrs.c - what a stream tells about itself and the settings it
 * keeps: its priority and the device's priority range, its id and
 * device, and its launch attributes (grStreamGetAttribute, SetAttribute,
 * CopyAttributes).
 *
 * The attributes are stored under the stream's 'alock' and read back; the
 * priority is also what a capture gives the kernel nodes it records from
 * the stream. None of them changes how the CPU runs a stream's work
 * (docs/launch-attributes.md).
 */
#include "../backend/device.h"
#include "../capture/capture.h"

#include <string.h>

GR_API grError_t grDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    int device = gr__device_current();
    int least = GR_CPU_PRIORITY_LEAST, greatest = GR_CPU_PRIORITY_GREATEST;
    if (device != 0) {
        grError_t err =
            gr__devkind()->stream_priority_range("grDeviceGetStreamPriorityRange", device, &least, &greatest);
        if (err)
            return err;
    }
    if (leastPriority)
        *leastPriority = least;
    if (greatestPriority)
        *greatestPriority = greatest;
    return grSuccess;
}

/* The stream behind a handle, with an output pointer checked first. */
static grError_t stream_out(const char *call, grStream_t stream, const void *out, const char *arg,
                            gr_stream **s)
{
    if (!out)
        return gr__fail(grErrorInvalidValue, "%s: '%s' (the output pointer) is NULL", call, arg);
    return gr__stream_from_handle(call, stream, s);
}

GR_API grError_t grStreamGetPriority(grStream_t hStream, int *priority)
{
    gr_stream *s = NULL;
    grError_t err = stream_out("grStreamGetPriority", hStream, priority, "priority", &s);
    if (err)
        return err;
    gr__spin_lock(&s->alock);
    *priority = s->priority;
    gr__spin_unlock(&s->alock);
    return grSuccess;
}

GR_API grError_t grStreamGetId(grStream_t hStream, unsigned long long *streamId)
{
    gr_stream *s = NULL;
    grError_t err = stream_out("grStreamGetId", hStream, streamId, "streamId", &s);
    if (err)
        return err;
    if (gr__stream_capturing(s))
        return gr__fail(grErrorStreamCaptureUnsupported,
                        "grStreamGetId: %s is capturing; CUDA 13 refuses the id of a capturing stream (the "
                        "capture is not invalidated)",
                        GR_STREAM_NAME(s));
    *streamId = s->serial;
    return grSuccess;
}

GR_API grError_t grStreamGetDevice(grStream_t hStream, int *device)
{
    gr_stream *s = NULL;
    grError_t err = stream_out("grStreamGetDevice", hStream, device, "device", &s);
    if (err)
        return err;
    *device = s->device;
    return grSuccess;
}

/* Reads attribute 'attr' of s (under its lock). */
static void attr_read(gr_stream *s, grStreamAttrID attr, grStreamAttrValue *v)
{
    memset(v, 0, sizeof *v);
    switch (attr) {
    case grLaunchAttributeAccessPolicyWindow:
        v->accessPolicyWindow = s->apw;
        return;
    case grLaunchAttributeSynchronizationPolicy:
        v->syncPolicy = s->sync_policy ? s->sync_policy : grSyncPolicyAuto;
        return;
    case grLaunchAttributePriority:
        v->priority = s->priority;
        return;
    case grLaunchAttributeMemSyncDomainMap:
        *v = gr__launch_attr_default(attr);
        if (s->domain_map_set)
            v->memSyncDomainMap = s->domain_map;
        return;
    case grLaunchAttributeMemSyncDomain:
        v->memSyncDomain = s->domain;
        return;
    case grLaunchAttributeNvlinkUtilCentricScheduling:
        v->nvlinkUtilCentricScheduling = s->nvlink_sched;
        return;
    default:
        return;
    }
}

/* Writes attribute 'attr' of s (checked; under its lock). */
static void attr_write(gr_stream *s, grStreamAttrID attr, const grStreamAttrValue *v)
{
    switch (attr) {
    case grLaunchAttributeAccessPolicyWindow:
        s->apw = v->accessPolicyWindow;
        return;
    case grLaunchAttributeSynchronizationPolicy:
        s->sync_policy = v->syncPolicy;
        return;
    case grLaunchAttributePriority:
        /* A GPU stream keeps the value it was created with in the driver;
         * graphrt clamps to the CPU's range, which CUDA's GPUs share. The
         * legacy stream accepts and ignores it, as CUDA 13 does. */
        if (!(s->flags & GR_STREAM_LEGACY))
            s->priority = gr__cpu_stream_priority_clamp(v->priority);
        return;
    case grLaunchAttributeMemSyncDomainMap:
        s->domain_map = v->memSyncDomainMap;
        s->domain_map_set = true;
        return;
    case grLaunchAttributeMemSyncDomain:
        s->domain = v->memSyncDomain;
        return;
    case grLaunchAttributeNvlinkUtilCentricScheduling:
        s->nvlink_sched = v->nvlinkUtilCentricScheduling;
        return;
    default:
        return;
    }
}

GR_API grError_t grStreamGetAttribute(grStream_t hStream, grStreamAttrID attr, grStreamAttrValue *value_out)
{
    static const char call[] = "grStreamGetAttribute";
    gr_stream *s = NULL;
    grError_t err = stream_out(call, hStream, value_out, "value_out", &s);
    if (err)
        return err;
    grStreamAttrValue any;
    memset(&any, 0, sizeof any);
    any.syncPolicy = grSyncPolicyAuto; /* a value every stream ID accepts */
    if (attr == grLaunchAttributeIgnore ||
        (err = gr__launch_attr_check(call, "attr", attr, &any, GR_ATTR_STREAM)) != grSuccess)
        return err ? err
                   : gr__fail(grErrorInvalidValue, "%s: attr 0 (Ignore) is not a stream attribute", call);
    gr__spin_lock(&s->alock);
    attr_read(s, attr, value_out);
    gr__spin_unlock(&s->alock);
    return grSuccess;
}

GR_API grError_t grStreamSetAttribute(grStream_t hStream, grStreamAttrID attr, const grStreamAttrValue *value)
{
    static const char call[] = "grStreamSetAttribute";
    gr_stream *s = NULL;
    grError_t err;
    if (!value)
        return gr__fail(grErrorInvalidValue, "%s: 'value' is NULL; pass the attribute's value", call);
    if ((err = gr__stream_from_handle(call, hStream, &s)))
        return err;
    if ((err = gr__launch_attr_check(call, "attr", attr, value, GR_ATTR_STREAM)))
        return err;
    gr__spin_lock(&s->alock);
    attr_write(s, attr, value);
    gr__spin_unlock(&s->alock);
    return grSuccess;
}

GR_API grError_t grStreamCopyAttributes(grStream_t dst, grStream_t src)
{
    static const char call[] = "grStreamCopyAttributes";
    static const grStreamAttrID ids[] = {
        grLaunchAttributeAccessPolicyWindow, grLaunchAttributeSynchronizationPolicy,
        grLaunchAttributePriority,           grLaunchAttributeMemSyncDomainMap,
        grLaunchAttributeMemSyncDomain,      grLaunchAttributeNvlinkUtilCentricScheduling};
    gr_stream *d = NULL, *s = NULL;
    grStreamAttrValue v[sizeof ids / sizeof ids[0]];
    grError_t err;
    if ((err = gr__stream_from_handle(call, dst, &d)) || (err = gr__stream_from_handle(call, src, &s)))
        return err;
    if (d->device != s->device)
        return gr__fail(grErrorInvalidValue,
                        "%s: the streams are of devices %d and %d; attributes are copied between streams "
                        "of one device, as in CUDA",
                        call, d->device, s->device);
    /* Read, then write: the two locks are never held together. */
    gr__spin_lock(&s->alock);
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        attr_read(s, ids[i], &v[i]);
    gr__spin_unlock(&s->alock);
    gr__spin_lock(&d->alock);
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        attr_write(d, ids[i], &v[i]);
    gr__spin_unlock(&d->alock);
    return grSuccess;
}
