/*
 * test-cuda-attrs.c - the CUDA kind's conversion of launch attributes
 * into the driver's (gr__cuda_launch_attrs), which eager launches and the
 * lowering of kernel nodes share: a pure function, so it runs in every
 * test run, GPU or not. One entry per ID, the last of an ID deciding; the
 * events graphrt records itself and the ignored entry left out; values
 * copied bit for bit, the device-updatable node's devNode where the
 * driver writes it.
 */
#include "testlib.h"

#include "../../src/backend/cuda/cuda_int.h"

#include <stddef.h>
#include <string.h>

static grLaunchAttribute attr(grLaunchAttributeID id)
{
    grLaunchAttribute a;
    memset(&a, 0, sizeof a);
    a.id = id;
    return a;
}

/* The entry of out[0..n) with this ID, or NULL. */
static const CUlaunchAttribute *find(const CUlaunchAttribute *out, unsigned n, int id)
{
    for (unsigned i = 0; i < n; i++)
        if (out[i].id == id)
            return &out[i];
    return NULL;
}

GR_TEST(cuda_launch_attrs_keep_one_entry_per_id_the_last_deciding)
{
    grLaunchAttribute in[4];
    in[0] = attr(grLaunchAttributePriority);
    in[0].val.priority = -1;
    in[1] = attr(grLaunchAttributeClusterDimension);
    in[1].val.clusterDim.x = 2;
    in[1].val.clusterDim.y = 1;
    in[1].val.clusterDim.z = 1;
    in[2] = attr(grLaunchAttributePriority);
    in[2].val.priority = -3;
    in[3] = attr(grLaunchAttributePreferredSharedMemoryCarveout);
    in[3].val.sharedMemCarveout = 75;
    CUlaunchAttribute out[GR_CU_LAUNCH_ATTRS];
    unsigned n = gr__cuda_launch_attrs(in, 4, out);
    CHECK_EQ(n, 3);
    const CUlaunchAttribute *p = find(out, n, CU_LAUNCH_ATTRIBUTE_PRIORITY);
    CHECK(p != NULL);
    CHECK(memcmp(&p->value, &in[2].val, sizeof p->value) == 0);
    p = find(out, n, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
    CHECK(p != NULL);
    CHECK(memcmp(&p->value, &in[1].val, sizeof p->value) == 0);
    p = find(out, n, CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
    CHECK(p != NULL);
    CHECK(memcmp(&p->value, &in[3].val, sizeof p->value) == 0);
}

GR_TEST(cuda_launch_attrs_leave_out_the_events_and_the_ignored_entry)
{
    grEvent_t ev;
    CHECK_OK(grEventCreate(&ev));
    grLaunchAttribute in[4];
    in[0] = attr(grLaunchAttributeIgnore);
    in[1] = attr(grLaunchAttributeProgrammaticEvent);
    in[1].val.programmaticEvent.event = ev;
    in[2] = attr(grLaunchAttributeLaunchCompletionEvent);
    in[2].val.launchCompletionEvent.event = ev;
    in[3] = attr(grLaunchAttributeCooperative);
    in[3].val.cooperative = 1;
    CUlaunchAttribute out[GR_CU_LAUNCH_ATTRS];
    unsigned n = gr__cuda_launch_attrs(in, 4, out);
    CHECK_EQ(n, 1);
    CHECK_EQ(out[0].id, CU_LAUNCH_ATTRIBUTE_COOPERATIVE);
    CHECK_EQ(out[0].value.cooperative, 1);
    CHECK_EQ(gr__cuda_launch_attrs(in, 3, out), 0);
    CHECK_OK(grEventDestroy(ev));
}

GR_TEST(cuda_launch_attrs_give_every_node_id_and_the_devnode_where_the_driver_writes_it)
{
    static const grLaunchAttributeID ids[] = {
        grLaunchAttributeAccessPolicyWindow,
        grLaunchAttributeCooperative,
        grLaunchAttributeClusterDimension,
        grLaunchAttributeClusterSchedulingPolicyPreference,
        grLaunchAttributePriority,
        grLaunchAttributeMemSyncDomainMap,
        grLaunchAttributeMemSyncDomain,
        grLaunchAttributeDeviceUpdatableKernelNode,
        grLaunchAttributePreferredSharedMemoryCarveout,
        grLaunchAttributeNvlinkUtilCentricScheduling,
    };
    enum {
        NIDS = sizeof ids / sizeof ids[0]
    };
    grLaunchAttribute in[NIDS];
    for (unsigned i = 0; i < NIDS; i++) {
        in[i] = attr(ids[i]);
        memset(in[i].val.pad, (int)(i + 1), sizeof in[i].val.pad);
    }
    CUlaunchAttribute out[GR_CU_LAUNCH_ATTRS];
    CHECK_EQ(gr__cuda_launch_attrs(in, NIDS, out), NIDS);
    for (unsigned i = 0; i < NIDS; i++) {
        const CUlaunchAttribute *p = find(out, NIDS, (int)ids[i]);
        CHECK(p != NULL);
        CHECK(memcmp(&p->value, &in[i].val, sizeof p->value) == 0);
    }
    /* The driver answers a devNode in the member graphrt reads back. */
    CHECK_EQ(offsetof(CUlaunchAttributeValue, deviceUpdatableKernelNode.devNode),
             offsetof(grLaunchAttributeValue, deviceUpdatableKernelNode.devNode));
    CHECK_EQ(sizeof(CUlaunchAttribute), sizeof(grLaunchAttribute));
}
