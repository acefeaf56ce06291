/*
 * fakedev.h - the test suite's fake device (fakedev.c): a device kind that
 * implements the device table (src/backend/device.h) by recording each
 * call and running the work on the CPU, so that the GPU paths of the
 * layers above the backend run in every test run. Never installed; linked
 * only into graphrt_tests.
 *
 * It stands for devices 1..N where the CUDA kind has none (no driver, no
 * GPU, or GRAPHRT_CUDA=0), and not at all with GRAPHRT_FAKEDEV=0; N is
 * GRAPHRT_FAKEDEV's number (1 when unset or not a number).
 *
 * A kernel's attributes and occupancy on a fake device follow the CPU
 * device's rules with the fake device's own 4 multiprocessors (its
 * grDevAttrMultiProcessorCount): blocks of up to 1024 threads and 48 KiB
 * of dynamic shared memory, one active at a time on a multiprocessor,
 * no registers or cluster hardware; a kernel without an image is
 * refused as its launch is.
 *
 * Its managed memory is host memory whose advice and last prefetch it
 * keeps per allocation (a prefetch in stream order) and answers as range
 * attributes; its limits (CUDA's defaults until set; the stack size
 * rounded up to 16 bytes, as drivers round it) and flags are stored per
 * device; registering host memory pins nothing.
 *
 * Knobs, for one test's process (each test runs in a child of its own):
 * an operation that fails, and an asynchronous error that the next
 * synchronisations report.
 */
#ifndef GR_FAKEDEV_H
#define GR_FAKEDEV_H

#include "graphrt.h"

#include <stdbool.h>

/* True when the fake device is the kind of devices 1..N here. */
bool gr_fakedev_active(void);

/* Makes the operation named 'op' (a member of gr_device_ops: "mem_alloc",
 * "exec_lower", "exec_set_kernel", "exec_sync_range", ...) fail with err
 * from its (skip + 1)-th call on, every time, until gr_fakedev_clear; the
 * failure's detail says it was injected. */
void gr_fakedev_fail(const char *op, grError_t err, unsigned skip);

/* An asynchronous error of the device's work: every later stream, event
 * and device synchronisation and query of a fake device returns err, as
 * CUDA's sticky errors do, until gr_fakedev_clear. */
void gr_fakedev_async_error(grError_t err);

/* Takes back the knobs. */
void gr_fakedev_clear(void);

/* What the device was given. The attributes of the latest launch on a
 * fake device (none for grLaunchKernel's), as the launch passed them:
 * their number, and the first 'max' of them (up to 32) copied into out. */
unsigned gr_fakedev_launch_attrs(grLaunchAttribute *out, unsigned max);

/* The latest value of function attribute attr (MaxDynamicSharedMemorySize
 * or PreferredSharedMemoryCarveout) that grFuncSetAttribute gave the fake
 * device for kernel k, which has an image; false when none was given. */
bool gr_fakedev_func_attr(grKernel_t k, grFuncAttribute attr, int *value);

/* A kernel node's launch attribute as the latest instantiation on a fake
 * device found it for the device (where the CUDA kind gives it to
 * cuGraphKernelNodeSetAttribute): the node's place (cond 0: the
 * executable's top level, child graphs inlined; else 1 + its conditional
 * node's position, depth first in plan order, and the body), the node's
 * kernel (NULL if the place held no kernel node: a bug) and the
 * attribute. */
typedef struct gr_fakedev_kattr {
    unsigned cond, body;
    grKernel_t kernel;
    grLaunchAttribute attr;
} gr_fakedev_kattr;

/* Their number, and the first 'max' of them (up to 64), in no particular
 * order, copied into out. */
unsigned gr_fakedev_lowered_attrs(gr_fakedev_kattr *out, unsigned max);

/* An edge with data between kernel nodes (a programmatic edge) as the
 * latest instantiation on a fake device found it for the device (where
 * the CUDA kind adds it with cuGraphAddDependencies and its data): its
 * place (as gr_fakedev_kattr's), the kernels of its ends (NULL where the
 * plan node is not a kernel node: a bug) and its data. */
typedef struct gr_fakedev_kedge {
    unsigned cond, body;
    grKernel_t from, to;
    grGraphEdgeData data;
} gr_fakedev_kedge;

/* Their number, and the first 'max' of them (up to 64), in no particular
 * order, copied into out. */
unsigned gr_fakedev_lowered_edges(gr_fakedev_kedge *out, unsigned max);

/* How many times the operation named 'op' was called (refused calls
 * included) since the process started or gr_fakedev_reset_calls. */
unsigned gr_fakedev_calls(const char *op);
void gr_fakedev_reset_calls(void);

#endif /* GR_FAKEDEV_H */
