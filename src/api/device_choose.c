/*
 * device_choose.c - choosing a device by properties (grChooseDevice) or
 * from a priority list (grSetValidDevices).
 *
 * CUDA documents grChooseDevice's rule only as "the device which has
 * properties that best match": graphrt's rule is the compute capability,
 * the property CUDA programs set before the call. A device of at least
 * the asked capability wins over one below it; among those, the closest
 * capability, then the lowest number. The CPU device's capability is 0.0,
 * so a program asking for a GPU's capability gets a GPU where one exists
 * and the CPU device otherwise, and a zeroed grDeviceProp gets device 0.
 */
#include "../backend/device.h"
#include "api.h"

/* major.minor as one number. */
static long capability(int major, int minor)
{
    return (long)major * 1000 + minor;
}

GR_API grError_t grChooseDevice(int *device, const grDeviceProp *prop)
{
    static const char call[] = "grChooseDevice";
    if (!device || !prop)
        return gr__fail(grErrorInvalidValue, "%s: '%s' is NULL", call, !device ? "device" : "prop");
    long want = capability(prop->major, prop->minor);
    int best = -1;
    long best_dist = 0;
    bool best_above = false;
    for (int d = 0; d <= gr__gpu_count(); d++) {
        grDeviceProp p;
        grError_t err = grGetDeviceProperties(&p, d);
        if (err)
            return err;
        long have = capability(p.major, p.minor);
        bool above = have >= want;
        long dist = above ? have - want : want - have;
        if (best < 0 || (above && !best_above) || (above == best_above && dist < best_dist)) {
            best = d;
            best_dist = dist;
            best_above = above;
        }
    }
    *device = best;
    return grSuccess;
}

GR_API grError_t grSetValidDevices(int *device_arr, int len)
{
    static const char call[] = "grSetValidDevices";
    int count = 1 + gr__gpu_count();
    if (len < 0)
        return gr__fail(grErrorInvalidValue, "%s: len is %d; a list has 0 or more devices", call, len);
    if (len != 0 && !device_arr)
        return gr__fail(grErrorInvalidValue, "%s: device_arr is NULL with len %d", call, len);
    if (len > count)
        return gr__fail(grErrorInvalidValue, "%s: len %d exceeds the number of devices (%d)", call, len,
                        count);
    for (int i = 0; i < len; i++)
        if (!gr__device_exists(device_arr[i]))
            return gr__fail(grErrorInvalidDevice,
                            "%s: device_arr[%d] is %d, which names no device; the devices are 0..%d", call, i,
                            device_arr[i], count - 1);
    /* Every existing device works, so the first of the list is the one
     * CUDA's sequential try settles on. */
    gr__device_set_first(len ? device_arr[0] : -1);
    return grSuccess;
}
