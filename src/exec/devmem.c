/*
 * devmem.c - the memory an executable's nodes name must be reachable from
 * the device it runs on. A CPU executable whose copy, memset or kernel
 * argument points into a GPU's memory would have a CPU thread dereference
 * a GPU address (a crash, not an error), and a GPU executable's kernel
 * argument pointing into the CPU device's memory (malloc'ed, which no GPU
 * can reach) faults on the GPU, where the error surfaces much later and
 * names nothing. Both are refused with a detail at instantiation and by
 * the setters that change addresses.
 *
 * Only graphrt's own allocations are known (the memory layer's tracker);
 * the checks run only once a GPU context exists, since no GPU memory can
 * exist before, so CPU-only programs pay one load per call.
 */
#include "exec.h"
#include "../backend/cuda/cuda.h"
#include "../backend/cuda/cuda_graph.h"

#include <stdio.h>
#include <string.h>

static const char *device_name(int device)
{
    return device ? "a GPU" : "the CPU";
}

/* p, named 'what' in the detail, is reachable from 'device'. */
static grError_t check_ptr(const char *call, const char *label, const char *what, const void *p, int device,
                           bool kernel)
{
    int owner = GR_OWNER_CPU;
    if (!p || !gr__mem_owner(p, &owner) || owner == GR_OWNER_PINNED || owner == device)
        return grSuccess;
    /* Copies by a GPU's driver reach the CPU's (pageable) memory; its
     * kernels and the CPU's threads cannot reach what is not theirs. */
    if (device != 0 && owner == GR_OWNER_CPU && !kernel)
        return grSuccess;
    return gr__fail(grErrorInvalidValue,
                    "%s: %s: %s %p is memory of device %d (%s), but the executable runs on device %d (%s), "
                    "which cannot reach it; use memory of device %d (grMalloc with it current), pinned host "
                    "memory (grMallocHost), or instantiate with device %d current",
                    call, label, what, p, owner, device_name(owner), device, device_name(device), device,
                    owner);
}

int gr__exec_device(const struct grGraphExec_st *e)
{
    return e->gpu ? gr__cuda_exec_device(e->gpu) : 0;
}

grError_t gr__exec_check_kernel_devmem(const char *call, const char *label, grKernel_t k, void *const *argv,
                                       int device)
{
    if (GR_LIKELY(!gr__cuda_active()))
        return grSuccess;
    for (int i = 0; i < k->nparams; i++) {
        if (k->sizes[i] != sizeof(void *))
            continue;
        void *v;
        memcpy(&v, argv[i], sizeof v);
        char what[32];
        snprintf(what, sizeof what, "argument %d", i);
        grError_t err = check_ptr(call, label, what, v, device, true);
        if (err)
            return err;
    }
    return grSuccess;
}

grError_t gr__exec_check_copy_devmem(const char *call, const char *label, const void *dst, const void *src,
                                     int device)
{
    grError_t err;
    if (GR_LIKELY(!gr__cuda_active()))
        return grSuccess;
    if ((err = check_ptr(call, label, "the destination", dst, device, false)))
        return err;
    return src ? check_ptr(call, label, "the source", src, device, false) : grSuccess;
}

grError_t gr__exec_check_plan_devmem(const char *call, const gr_plan *p, int device)
{
    if (GR_LIKELY(!gr__cuda_active()))
        return grSuccess;
    for (uint32_t i = 0; i + 1 < p->nnodes; i++) {
        const gr_pnode *pn = &p->nodes[i];
        char label[48];
        grError_t err = grSuccess;
        switch (pn->type) {
        case grGraphNodeTypeKernel:
            snprintf(label, sizeof label, "kernel node '%s' (plan node %u)", pn->u.kern.k->name, i);
            err = gr__exec_check_kernel_devmem(call, label, pn->u.kern.k, pn->u.kern.argv, device);
            break;
        case grGraphNodeTypeMemcpy:
            snprintf(label, sizeof label, "memcpy node (plan node %u)", i);
            err = gr__exec_check_copy_devmem(call, label, pn->u.copy.p.dst, pn->u.copy.p.src, device);
            break;
        case grGraphNodeTypeMemset:
            snprintf(label, sizeof label, "memset node (plan node %u)", i);
            err = gr__exec_check_copy_devmem(call, label, pn->u.memset.dst, NULL, device);
            break;
        default:
            break;
        }
        if (err) {
            gr__inst_fault.pindex = i;
            return err;
        }
    }
    return grSuccess;
}
