/*
 * cuda_graph.h - executables on a GPU, as the exec layer sees them
 * (graph.c): a plan lowered to a CUgraph and instantiated for one GPU,
 * launched with cuGraphLaunch, and changed in place through the driver's
 * exec setters after the exec layer has checked and paired the change.
 *
 * An executable is for the device that was current on the instantiating
 * thread (grGraphExec_st.gpu is NULL for the CPU); it launches only on
 * streams of that device. Every call fails with a detail naming 'call'.
 */
#ifndef GR_CUDA_GRAPH_H
#define GR_CUDA_GRAPH_H

#include "../plan.h"

struct gr_dev_exec;

/* Lowers plan p to a CUgraph of GPU 'device' and instantiates it (the
 * grGraphInstantiateFlag* 'flags' mapped to the driver's; graph memory's
 * nodes become empty nodes, their memory being the exec layer's;
 * conditional nodes the driver's, with their bodies, and a kernel
 * argument holding one of their graphrt handles the driver's handle).
 * Fails with grErrorInvalidValue for an event of another device,
 * grErrorInvalidDeviceFunction for a kernel without a GPU image,
 * grErrorNotSupported for conditional nodes on a driver without them,
 * grErrorCallRequiresNewerDriver for batch memory operation nodes on a
 * driver without them (before CUDA 11.7), or the driver's error. */
grError_t gr__cuda_exec_lower(const char *call, const gr_plan *p, int device, unsigned long long flags,
                              struct gr_dev_exec **out);

/* Destroys the driver's executable and graph (NULL: nothing). */
void gr__cuda_exec_free(struct gr_dev_exec *gx);

/* The GPU (1..N) the executable runs on. */
int gr__cuda_exec_device(const struct gr_dev_exec *gx);

/* cuGraphLaunch (or, with 'upload', cuGraphUpload) on GPU stream s, which
 * is of gx's device. */
grError_t gr__cuda_exec_launch(const char *call, struct gr_dev_exec *gx, gr_stream *s, bool upload);

/* Queues fn(arg) behind the latest launch of gx, which ends after every
 * earlier one: true if queued (fn runs on the driver's callback thread,
 * where it may make no CUDA call), false where gx was never launched or
 * the driver refused (the caller then does the work itself). */
bool gr__cuda_exec_defer(struct gr_dev_exec *gx, void (*fn)(void *), void *arg);

/* The exec setters' driver side for plan node i: called after the exec
 * layer's checks and before it writes the plan, so that a refusal by the
 * driver changes nothing. */
grError_t gr__cuda_exec_set_kernel(const char *call, struct gr_dev_exec *gx, uint32_t i, grKernel_t k,
                                   const grDim3 *grid, const grDim3 *block, uint32_t shmem, void **args);
/* shape: the layout of a pitched copy from dst and src, NULL for count
 * contiguous bytes. */
grError_t gr__cuda_exec_set_memcpy(const char *call, struct gr_dev_exec *gx, uint32_t i, void *dst,
                                   const void *src, size_t count, const gr_copy_shape *shape);
grError_t gr__cuda_exec_set_memset(const char *call, struct gr_dev_exec *gx, uint32_t i,
                                   const grMemsetParams *p);
grError_t gr__cuda_exec_set_host(const char *call, struct gr_dev_exec *gx, uint32_t i,
                                 const grHostNodeParams *p);
grError_t gr__cuda_exec_set_event(const char *call, struct gr_dev_exec *gx, uint32_t i, bool record,
                                  grEvent_t ev);
grError_t gr__cuda_exec_set_enabled(const char *call, struct gr_dev_exec *gx, uint32_t i, bool enabled);
/* cuGraphExecBatchMemOpNodeSetParams with count checked operations (the
 * node's count and types); grErrorCallRequiresNewerDriver on a driver
 * without batch memory operation nodes. */
grError_t gr__cuda_exec_set_memop(const char *call, struct gr_dev_exec *gx, uint32_t i, unsigned count,
                                  const grStreamBatchMemOpParams *ops);

/* What lowering refuses of a kernel (no image for gx's device) and of an
 * event (another device's): checked by grGraphExecUpdate for the new
 * parameters before it changes anything. */
grError_t gr__cuda_exec_check_kernel(const char *call, struct gr_dev_exec *gx, grKernel_t k);
grError_t gr__cuda_exec_check_event(const char *call, struct gr_dev_exec *gx, grEvent_t ev);

/* Applies plan nodes [from, to) of p to the driver's executable; with
 * 'only', just the nodes i for which only[i] is nonzero (those an update
 * changed); a conditional node's bodies are applied whole, and the
 * handles p's conditional nodes hold now are those kernel arguments are
 * matched against. Few changes go node by node (the exec setters); many
 * are written into the driver's graph and applied in one
 * cuGraphExecUpdate. */
grError_t gr__cuda_exec_sync_range(const char *call, struct gr_dev_exec *gx, const gr_plan *p, uint32_t from,
                                   uint32_t to, const uint8_t *only);

/* The driver's devNode of device-updatable kernel node i (top level) of
 * gx's executable (cuGraphKernelNodeGetAttribute of the lowered node
 * once instantiated), or NULL where the driver gives none. */
void *gr__cuda_exec_devnode(struct gr_dev_exec *gx, uint32_t i);
/* Kernel node i of gx's top-level plan p gets launch attributes
 * attrs[0..n) in place of those it was lowered with (an update changed
 * them): written into the driver's graph node, which the next sync
 * applies with a whole-graph cuGraphExecUpdate; a view gets a driver
 * executable of its own, lowered with them. An executable whose updates
 * keep to the exec setters (a node disabled once, collectives,
 * conditional nodes) keeps its attributes. */
grError_t gr__cuda_exec_set_kattrs(const char *call, struct gr_dev_exec *gx, const gr_plan *p, uint32_t i,
                                   const grLaunchAttribute *attrs, unsigned n);

#endif /* GR_CUDA_GRAPH_H */
