/*
 * graphrt/types.h - the basic types: dim3, the opaque handles, copy kinds, host
 * functions, and the launch attributes of streams, kernels and kernel nodes,
 * the memory location and pool property types (CUDA's "Data types").
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_TYPES_H
#define GRAPHRT_MODULE_TYPES_H

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================== */
/* Basic types                                                            */
/* ====================================================================== */

typedef struct grDim3 {
    unsigned int x, y, z;
} grDim3;
typedef struct grDim3 dim3_gr; /* spelling without the struct keyword */

/* A grDim3 literal: GR_DIM3(64, 1, 1). */
#define GR_DIM3(X, Y, Z) ((grDim3){(X), (Y), (Z)})

typedef struct grStream_st *grStream_t;
typedef struct grEvent_st *grEvent_t;
typedef struct grKernel_st *grKernel_t;
typedef struct grGraph_st *grGraph_t;
typedef struct grGraphNode_st *grGraphNode_t;
typedef struct grGraphExec_st *grGraphExec_t;
typedef struct grMemPool_st *grMemPool_t;

/* The legacy default stream (same as passing NULL) and the per-thread
 * default stream, as in CUDA. */
#define grStreamLegacy ((grStream_t)0x1)
#define grStreamPerThread ((grStream_t)0x2)

typedef enum grMemcpyKind {
    grMemcpyHostToHost = 0,
    grMemcpyHostToDevice = 1,
    grMemcpyDeviceToHost = 2,
    grMemcpyDeviceToDevice = 3,
    grMemcpyDefault = 4
} grMemcpyKind;

/* Host function called in stream or graph order (grLaunchHostFunc, host
 * nodes). It must not call graphrt functions that enqueue or synchronise,
 * as in CUDA. */
typedef void (*grHostFn_t)(void *userData);

/* ====================================================================== */
/* Launch attributes                                                      */
/* ====================================================================== */

/*
 * Launch attributes: the settings of grLaunchKernelExC, of kernel nodes
 * (grGraphKernelNode*Attribute) and of streams (grStream*Attribute). IDs,
 * values and the union's layout mirror cudaLaunchAttributeID,
 * cudaLaunchAttributeValue and cudaLaunchAttribute of CUDA 13. graphrt
 * stores every attribute that CUDA accepts at a place and reads it back;
 * on the CPU grLaunchAttributePriority (the order of ready nodes of an
 * executable instantiated with grGraphInstantiateFlagUseNodePriority) and
 * grLaunchAttributeCooperative (every block of the grid co-resident:
 * grLaunchCooperativeKernel) have an effect; the others steer GPU
 * hardware (caches, clusters, synchronisation domains) and are kept for
 * reading back and for grGraphExecUpdate's comparisons. On a GPU a
 * launch's are given to the driver (docs/launch-attributes.md).
 */
typedef enum grAccessProperty {
    grAccessPropertyNormal = 0,
    grAccessPropertyStreaming = 1,
    grAccessPropertyPersisting = 2
} grAccessProperty;

typedef struct grAccessPolicyWindow {
    void *base_ptr;
    size_t num_bytes;
    float hitRatio;
    grAccessProperty hitProp;
    grAccessProperty missProp;
} grAccessPolicyWindow;

typedef enum grSynchronizationPolicy {
    grSyncPolicyAuto = 1,
    grSyncPolicySpin = 2,
    grSyncPolicyYield = 3,
    grSyncPolicyBlockingSync = 4
} grSynchronizationPolicy;

typedef enum grClusterSchedulingPolicy {
    grClusterSchedulingPolicyDefault = 0,
    grClusterSchedulingPolicySpread = 1,
    grClusterSchedulingPolicyLoadBalancing = 2
} grClusterSchedulingPolicy;

typedef enum grLaunchMemSyncDomain {
    grLaunchMemSyncDomainDefault = 0,
    grLaunchMemSyncDomainRemote = 1
} grLaunchMemSyncDomain;

typedef struct grLaunchMemSyncDomainMap {
    unsigned char default_;
    unsigned char remote;
} grLaunchMemSyncDomainMap;

/* A device-updatable kernel node of an executable, as a kernel names it
 * to grGraphKernelNodeSetParam and the other device-side update calls
 * (docs/exec.md, "Device-updatable kernel nodes"). Mirrors
 * cudaGraphDeviceNode_t. */
typedef struct grGraphDeviceUpdatableNode_st *grGraphDeviceNode_t;

/* Which field of a device-updatable kernel node a grGraphKernelNodeUpdate
 * changes. Mirrors cudaGraphKernelNodeField. */
typedef enum grGraphKernelNodeField {
    grGraphKernelNodeFieldInvalid = 0,
    grGraphKernelNodeFieldGridDim = 1,
    grGraphKernelNodeFieldParam = 2,
    grGraphKernelNodeFieldEnabled = 3
} grGraphKernelNodeField;

/* One update of grGraphKernelNodeUpdatesApply. Mirrors
 * cudaGraphKernelNodeUpdate. */
typedef struct grGraphKernelNodeUpdate {
    grGraphDeviceNode_t node;
    grGraphKernelNodeField field;
    union {
        grDim3 gridDim;
        struct {
            const void *pValue;
            size_t offset;
            size_t size;
        } param;
        unsigned int isEnabled;
    } updateData;
} grGraphKernelNodeUpdate;

/* Where each may be set: S streams, N kernel nodes, L launches
 * (grLaunchKernelExC; a captured launch gives its kernel node the N ones). */
typedef enum grLaunchAttributeID {
    grLaunchAttributeIgnore = 0,                            /* S N L: skipped */
    grLaunchAttributeAccessPolicyWindow = 1,                /* S N L */
    grLaunchAttributeCooperative = 2,                       /* N L */
    grLaunchAttributeSynchronizationPolicy = 3,             /* S */
    grLaunchAttributeClusterDimension = 4,                  /* N L */
    grLaunchAttributeClusterSchedulingPolicyPreference = 5, /* N L */
    grLaunchAttributeProgrammaticStreamSerialization = 6,   /* L */
    grLaunchAttributeProgrammaticEvent = 7,                 /* L */
    grLaunchAttributePriority = 8,                          /* S N L */
    grLaunchAttributeMemSyncDomainMap = 9,                  /* S N L */
    grLaunchAttributeMemSyncDomain = 10,                    /* S N L */
    grLaunchAttributePreferredClusterDimension = 11,        /* N L */
    grLaunchAttributeLaunchCompletionEvent = 12,            /* L */
    grLaunchAttributeDeviceUpdatableKernelNode = 13,        /* N L */
    grLaunchAttributePreferredSharedMemoryCarveout = 14,    /* N L */
    grLaunchAttributeNvlinkUtilCentricScheduling = 16       /* S N L */
} grLaunchAttributeID;

typedef union grLaunchAttributeValue {
    char pad[64];
    grAccessPolicyWindow accessPolicyWindow;
    int cooperative;
    grSynchronizationPolicy syncPolicy;
    struct {
        unsigned int x, y, z;
    } clusterDim;
    grClusterSchedulingPolicy clusterSchedulingPolicyPreference;
    int programmaticStreamSerializationAllowed;
    struct {
        grEvent_t event;
        int flags;
        int triggerAtBlockStart;
    } programmaticEvent;
    int priority;
    grLaunchMemSyncDomainMap memSyncDomainMap;
    grLaunchMemSyncDomain memSyncDomain;
    struct {
        unsigned int x, y, z;
    } preferredClusterDim;
    struct {
        grEvent_t event;
        int flags;
    } launchCompletionEvent;
    struct {
        int deviceUpdatable;
        /* Out: the node's device handle in its live executable (CPU
         * device), read back by grGraphKernelNodeGetAttribute; NULL before
         * instantiation and once that executable is destroyed. */
        grGraphDeviceNode_t devNode;
    } deviceUpdatableKernelNode;
    unsigned int sharedMemCarveout;
    unsigned int nvlinkUtilCentricScheduling;
} grLaunchAttributeValue;

typedef struct grLaunchAttribute {
    grLaunchAttributeID id;
    char pad[8 - sizeof(grLaunchAttributeID)];
    grLaunchAttributeValue val;
} grLaunchAttribute;

/* The launch of grLaunchKernelExC. Mirrors cudaLaunchConfig_t. */
typedef struct grLaunchConfig_t {
    grDim3 gridDim;
    grDim3 blockDim;
    size_t dynamicSmemBytes;
    grStream_t stream;
    grLaunchAttribute *attrs; /* numAttrs entries; may be NULL when 0 */
    unsigned int numAttrs;
} grLaunchConfig_t;

/* Names CUDA gives the same IDs for streams and kernel nodes. */
typedef grLaunchAttributeID grStreamAttrID;
typedef grLaunchAttributeValue grStreamAttrValue;
typedef grLaunchAttributeID grKernelNodeAttrID;
typedef grLaunchAttributeValue grKernelNodeAttrValue;
#define grStreamAttributeAccessPolicyWindow grLaunchAttributeAccessPolicyWindow
#define grStreamAttributeSynchronizationPolicy grLaunchAttributeSynchronizationPolicy
#define grStreamAttributeMemSyncDomainMap grLaunchAttributeMemSyncDomainMap
#define grStreamAttributeMemSyncDomain grLaunchAttributeMemSyncDomain
#define grStreamAttributePriority grLaunchAttributePriority
#define grKernelNodeAttributeAccessPolicyWindow grLaunchAttributeAccessPolicyWindow
#define grKernelNodeAttributeCooperative grLaunchAttributeCooperative
#define grKernelNodeAttributePriority grLaunchAttributePriority
#define grKernelNodeAttributeClusterDimension grLaunchAttributeClusterDimension
#define grKernelNodeAttributeClusterSchedulingPolicyPreference \
    grLaunchAttributeClusterSchedulingPolicyPreference
#define grKernelNodeAttributeMemSyncDomainMap grLaunchAttributeMemSyncDomainMap
#define grKernelNodeAttributeMemSyncDomain grLaunchAttributeMemSyncDomain

/* ====================================================================== */
/* Stream-ordered memory pools                                            */
/* ====================================================================== */

/* Managed is named so that the location-based pool functions can answer
 * it (grErrorNotSupported: graphrt has no managed memory). */
typedef enum grMemAllocationType {
    grMemAllocationTypeInvalid = 0,
    grMemAllocationTypePinned = 1,
    grMemAllocationTypeManaged = 2
} grMemAllocationType;

typedef enum grMemAllocationHandleType {
    grMemHandleTypeNone = 0
} grMemAllocationHandleType;

/* A location is a device: {grMemLocationTypeDevice, d} with graphrt's
 * numbering (0 the CPU, 1..N the GPUs). CUDA's host locations are named
 * (with CUDA's values) so that the functions taking a location can answer
 * them: graphrt has no host pools (the CPU's pool is device 0's). */
typedef enum grMemLocationType {
    grMemLocationTypeInvalid = 0,
    grMemLocationTypeNone = 0,
    grMemLocationTypeDevice = 1,
    grMemLocationTypeHost = 2,
    grMemLocationTypeHostNuma = 3,
    grMemLocationTypeHostNumaCurrent = 4
} grMemLocationType;

typedef struct grMemLocation {
    grMemLocationType type;
    int id;
} grMemLocation;

typedef enum grMemAccessFlags {
    grMemAccessFlagsProtNone = 0,
    grMemAccessFlagsProtRead = 1,
    grMemAccessFlagsProtReadWrite = 3
} grMemAccessFlags;

typedef struct grMemAccessDesc {
    grMemLocation location;
    grMemAccessFlags flags;
} grMemAccessDesc;

typedef struct grMemPoolProps {
    grMemAllocationType allocType;         /* grMemAllocationTypePinned */
    grMemAllocationHandleType handleTypes; /* grMemHandleTypeNone */
    grMemLocation location;                /* {Device, 0} */
    void *win32SecurityAttributes;         /* unused, must be NULL */
    size_t maxSize;                        /* 0: no limit */
    unsigned short usage;
    unsigned char reserved[54];
} grMemPoolProps;

typedef enum grMemPoolAttr {
    grMemPoolReuseFollowEventDependencies = 1, /* int */
    grMemPoolReuseAllowOpportunistic,          /* int */
    grMemPoolReuseAllowInternalDependencies,   /* int */
    grMemPoolAttrReleaseThreshold,             /* uint64_t */
    grMemPoolAttrReservedMemCurrent,           /* uint64_t, read only */
    grMemPoolAttrReservedMemHigh,              /* uint64_t, set to 0 resets */
    grMemPoolAttrUsedMemCurrent,               /* uint64_t, read only */
    grMemPoolAttrUsedMemHigh,                  /* uint64_t, set to 0 resets */
    /* Properties of the pool, read only (CUDA 13's values): */
    grMemPoolAttrAllocationType = 9,      /* grMemAllocationType */
    grMemPoolAttrExportHandleTypes = 10,  /* grMemAllocationHandleType */
    grMemPoolAttrLocationId = 11,         /* int: the device */
    grMemPoolAttrLocationType = 12,       /* grMemLocationType */
    grMemPoolAttrMaxPoolSize = 13,        /* uint64_t: maxSize, 0 for no limit */
    grMemPoolAttrHwDecompressEnabled = 14 /* int: 0 (no decompression engine) */
} grMemPoolAttr;

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_TYPES_H */
