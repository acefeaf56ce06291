/*
 * testlib.h - what the suite's tests share beside the assertions of
 * test.h: host functions and kernels written once, graph builders, and
 * helpers that run an executable, make a stream, skip a test that needs a
 * GPU, or wait for a flag with a deadline instead of sleeping.
 *
 * Every helper checks the graphrt calls it makes with CHECK_OK, so a
 * failure inside one ends the test with the file and line of the helper;
 * a test file then holds its behaviours, not its scaffolding.
 */
#ifndef GR_TESTLIB_H
#define GR_TESTLIB_H

#include "test.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* GR_TEST_CPU_AND_GPU(name, gpu) { body }: one body run as two tests,
 * name_on_the_cpu (gpu 0) and name_on_a_gpu (gpu 1); the body makes its
 * device current with gr_test_device_or_skip(gpu). */
#define GR_TEST_CPU_AND_GPU(name, gpu) \
    static void name(int gpu);         \
    GR_TEST(name##_on_the_cpu)         \
    {                                  \
        name(0);                       \
    }                                  \
    GR_TEST(name##_on_a_gpu)           \
    {                                  \
        name(1);                       \
    }                                  \
    static void name(int gpu)

/* ------------------------------------------------------ host functions */

/* Does nothing: a host node or host function that only takes a place. */
void tl_noop(void *p);
/* ++*(int *)p, for a counter only one thread writes at a time. */
void tl_bump(void *p);
/* Adds 1 to the atomic_int at p, for a counter several threads bump. */
void tl_bump_atomic(void *p);
/* Stores 1 into the atomic_int at p. */
void tl_set_flag(void *p);
/* Sleeps 30 ms, then stores 1 into the atomic_int at p: a host function
 * still running when the test makes its next calls. */
void tl_set_flag_late(void *p);
/* Holds its stream or graph until the atomic_int at p is non-zero, or
 * TL_GATE_MS have passed (so that a failing test ends instead of hanging
 * its worker), counting the latter in tl_gate_timeouts; a test that opens
 * the gate checks what ran meanwhile. */
void tl_wait_gate(void *p);
/* How many tl_wait_gate calls of this test gave up waiting. */
extern atomic_int tl_gate_timeouts;

enum {
    TL_GATE_MS = 5000
};

/* A thread's function: sleeps 50 ms, then stores 1 into the atomic_int at
 * p, opening a gate that a test queued work behind; calls the test makes
 * meanwhile find that work still queued. */
void *tl_open_gate_later(void *p);

/* ------------------------------------------------------------- kernels */

/* A per-block CPU function that does nothing, for kernels that only take a
 * place; the test names the kernel (grKernelCreate(&k, tl_kernel_nop,
 * "name", n, sizes)) with any parameters. */
void tl_kernel_nop(const grKernelCtx *ctx, void **args);

/* The per-block CPU functions of the canonical kernels of
 * tests/lib/kernels.c (written with graphrt_kernel.h), for a test that
 * registers one under its own name or pairs it with its own image. Each
 * takes (unsigned *p, unsigned v, unsigned n): fill stores p[i] = v, add
 * does p[i] += v, for every global x index i below n. */
void tl_fill_u32_fn(const grKernelCtx *ctx, void **args);
void tl_add_u32_fn(const grKernelCtx *ctx, void **args);
/* tl_store_i32's: takes (int *cell, int v) and stores v into *cell. */
void tl_store_i32_fn(const grKernelCtx *ctx, void **args);

/* The canonical kernels themselves, registered under their own names
 * (tl_nop, tl_fill_u32, tl_add_u32, tl_store_i32) with their GPU image
 * where the build embedded one: one of each per test (kernel names are
 * unique among live kernels). tl_store_i32 takes (int *cell, int v) and
 * stores v into *cell. */
grKernel_t tl_kernel_nop_create(void);
grKernel_t tl_kernel_fill_u32_create(void);
grKernel_t tl_kernel_add_u32_create(void);
grKernel_t tl_kernel_store_i32_create(void);
/* tl_nop registered on first use and kept for the rest of the test, for
 * a file that takes a kernel node's place many times (not beside
 * tl_kernel_nop_create, which registers the same name). */
grKernel_t tl_kernel_nop_kept(void);
grKernel_t tl_kernel_store_i32_kept(void);

/* The kernel gr_test_fill or gr_test_add (the name says which) of the
 * tests' PTX image, with tl_fill_u32_fn or tl_add_u32_fn for the CPU:
 * the same (p, v, n) parameters. */
grKernel_t tl_ptx_kernel(const char *name);
/* Memset node parameters: height rows of width elements of elementSize
 * bytes set to value, rows pitch bytes apart, at dst. */
grMemsetParams tl_memset_params(void *dst, unsigned value, unsigned elementSize, size_t width, size_t height,
                                size_t pitch);
/* Kernel node parameters of k over n threads in blocks of 'block'. */
grKernelNodeParams tl_params_1d(grKernel_t k, void **args, unsigned n, unsigned block);
/* Sets the n bytes of device memory d to v on s, copies them back into h,
 * frees d on s and synchronizes s; the first and the last byte of h must
 * hold v. */
void tl_memset_check_free_async(void *d, unsigned char *h, size_t n, int v, grStream_t s);
/* Fails the test, naming the first wrong element, unless h[0..n) all
 * hold want. */
void tl_check_all_u32(const unsigned *h, unsigned n, unsigned want);

/* The canonical kernel tl_add_i32_block (int *p, int v): p[block] += v,
 * once per block; created on first use and kept for the rest of the test.
 * tl_launch_add_i32 launches it on s as one block of one thread (*p +=
 * v), which a stream capture records as a kernel node. */
grKernel_t tl_kernel_add_i32(void);
void tl_launch_add_i32(grStream_t s, int *p, int v);
/* Likewise kept for the test: tl_set_i32_block (int *p, int v) sets
 * p[block] = v, tl_sum_i32_block (int *p, int a, long long b) sets
 * p[block] = a + b, once per block. */
grKernel_t tl_kernel_set_i32(void);
grKernel_t tl_kernel_sum_i32(void);

/* ------------------------------------------------------- graph builders */

/* The number of nodes and of edges of g. */
size_t tl_node_count(grGraph_t g);
size_t tl_edge_count(grGraph_t g);

/* The n nodes of g in creation order into nodes[0..n); the test fails
 * unless g has exactly n. */
void tl_get_nodes(grGraph_t g, grGraphNode_t *nodes, size_t n);
/* Whether b is among a's dependent nodes (a -> b). */
bool tl_has_edge(grGraphNode_t a, grGraphNode_t b);

/* A collective node's parameters, every other field 0. */
grCollectiveNodeParams tl_coll(grCollectiveOp op, const void *send, void *recv, size_t count,
                               grCommDataType t, grCommRedOp r, int root, grComm_t comm);

/* Adds a kernel node of k after deps[0..n): 'blocks' blocks of one
 * thread, with these arguments. */
grGraphNode_t tl_add_kernel(grGraph_t g, const grGraphNode_t *deps, size_t n, grKernel_t k, void **args,
                            unsigned blocks);

/* One-block parameters of tl_kernel_set_i32 with these argument
 * pointers (held in one of 8 rotating arrays, so that a test may keep a
 * few sets of parameters at once), and a node of it after deps[0..n)
 * that sets *dst = v. */
grKernelNodeParams tl_set_i32_params(int **dst, int *v);
grGraphNode_t tl_add_set_i32(grGraph_t g, const grGraphNode_t *deps, size_t n, int *dst, int v);

/* A host node's argument: the node writes 'value' to *slot. */
typedef struct tl_slot_write {
    int *slot;
    int value;
} tl_slot_write;
void tl_write_slot(void *p);
grGraphNode_t tl_add_slot_write(grGraph_t g, const grGraphNode_t *deps, size_t n, tl_slot_write *w);

/* Adds a host node running fn(ud) after deps[0..n). */
grGraphNode_t tl_add_host(grGraph_t g, const grGraphNode_t *deps, size_t n, grHostFn_t fn, void *ud);

/* Adds n nodes to g, each after the one before (the first after nothing),
 * into out[0..n): host nodes running fn(ud), empty nodes where fn is
 * NULL. */
void tl_chain(grGraph_t g, size_t n, grHostFn_t fn, void *ud, grGraphNode_t *out);

/* Adds an empty root, n nodes after it (host nodes running fn(ud), empty
 * where fn is NULL) and an empty join after all of them: out[0] is the
 * root, out[1..n] the middle, out[n + 1] the join. */
void tl_fan(grGraph_t g, size_t n, grHostFn_t fn, void *ud, grGraphNode_t *out);

/* Creates *g as the diamond a -> b, a -> c, {b, c} -> d, each added with
 * its dependencies: n = {a, b, c, d}, all empty nodes except b, a host
 * node running b_fn(NULL) where b_fn is not NULL. */
void tl_diamond(grGraph_t *g, grGraphNode_t n[4], grHostFn_t b_fn);

/* Adds a conditional node of this type and size on handle h after
 * deps[0..nd) through grGraphAddNode; its bodies (owned by the node)
 * through *bodies where bodies is not NULL. The try form returns the
 * result, checking that a refused call left no node; the other fails the
 * test unless the node was added with its bodies. */
grError_t tl_try_add_cond(grGraph_t g, const grGraphNode_t *deps, size_t nd, grGraphConditionalHandle h,
                          grGraphConditionalNodeType type, unsigned size, grGraph_t **bodies);
grGraphNode_t tl_add_cond(grGraph_t g, const grGraphNode_t *deps, size_t nd, grGraphConditionalHandle h,
                          grGraphConditionalNodeType type, unsigned size, grGraph_t **bodies);

/* The conditional tests' kernels (tests/lib/cond.c), one set per test:
 * step(int *counter, handle, int limit) counts a WHILE body's iteration
 * and sets the handle to 0 once counter reaches limit; setv(handle,
 * unsigned v) sets the handle; put(int *dst, int v) stores v from block
 * 0; add(int *dst, int v) adds v atomically once per block. */
typedef struct tl_cond_kernels {
    grKernel_t step, setv, put, add;
} tl_cond_kernels;
tl_cond_kernels tl_cond_kernels_make(void);
void tl_cond_kernels_free(tl_cond_kernels *k);
/* Creates *g with a new handle *h (default dflt, grGraphConditionalHandle
 * flags) and one conditional node of this type and size on it, which it
 * returns (bodies as tl_add_cond gives them). */
grGraphNode_t tl_cond_graph(grGraph_t *g, grGraphConditionalHandle *h, unsigned dflt, unsigned flags,
                            grGraphConditionalNodeType type, unsigned size, grGraph_t **bodies);
/* Destroys a conditional test's executable, graph and kernels. */
void tl_cond_done(grGraphExec_t e, grGraph_t g, tl_cond_kernels *k);
/* step's and setv's CPU functions, for a test that names its own. */
void tl_cond_step_fn(const grKernelCtx *ctx, void **args);
void tl_cond_setv_fn(const grKernelCtx *ctx, void **args);
/* A step node (one block) as the first node of g; a put node of one block
 * after deps[0..ndeps). */
grGraphNode_t tl_cond_add_step(grGraph_t g, tl_cond_kernels *k, int *counter, grGraphConditionalHandle h,
                               int limit);
grGraphNode_t tl_cond_add_put(grGraph_t g, const grGraphNode_t *deps, size_t ndeps, tl_cond_kernels *k,
                              int *dst, int v);

enum {
    TL_DAG_MAX = 40,
    TL_DAG_MAX_EDGES = TL_DAG_MAX * (TL_DAG_MAX - 1) / 2
};

/* A random DAG that tl_random_dag added: node[i] is node i, edge k runs
 * from node from[k] to node to[k] (always from < to). */
typedef struct tl_dag {
    int n;
    size_t ne;
    grGraphNode_t node[TL_DAG_MAX];
    int from[TL_DAG_MAX_EDGES], to[TL_DAG_MAX_EDGES];
} tl_dag;

/* Adds to g a random DAG drawn from *seed (xorshift64, advanced): 1 to
 * maxn (at most TL_DAG_MAX) nodes, created in a shuffled order, with an
 * edge from a lower to a higher index at a random density (from sparse to
 * dense), all edges added in one grGraphAddDependencies. Node i is a host
 * node running fn((char *)ud + i * ud_stride), or an empty node where fn
 * is NULL. The same seed gives the same graph. */
void tl_random_dag(grGraph_t g, uint64_t *seed, int maxn, grHostFn_t fn, void *ud, size_t ud_stride,
                   tl_dag *out);

/* xorshift64: the next value of the generator at *s (non-zero). */
uint64_t tl_xorshift(uint64_t *s);

/* ---------------------------------------------------------- run helpers */

/* grGraphExecUpdate(e, g) must be refused with result r naming node
 * (and errorFromNode from), or must succeed naming no node. */
void tl_expect_update_refused(grGraphExec_t e, grGraph_t g, grGraphExecUpdateResult r, grGraphNode_t node,
                              grGraphNode_t from);
void tl_expect_updated(grGraphExec_t e, grGraph_t g);

/* grGraphInstantiate(&e, g, 0), checked. */
grGraphExec_t tl_instantiate(grGraph_t g);
/* Destroys the graphs gs[0..n) (a test's several versions of a graph):
 * tl_destroy_graphs((grGraph_t[]){g1, g2}, 2). */
void tl_destroy_graphs(const grGraph_t *gs, size_t n);
/* Launches e on the legacy stream and waits for it. */
void tl_run(grGraphExec_t e);
/* Launches e on s and waits for s. */
void tl_run_on(grGraphExec_t e, grStream_t s);
/* Instantiates g, runs it once on the legacy stream and destroys the
 * executable. */
void tl_run_graph(grGraph_t g);
/* Instantiates g, runs it once on s, waits for s and destroys the
 * executable. */
void tl_run_graph_on(grGraph_t g, grStream_t s);
/* A new stream (grStreamCreateWithFlags flags) capturing in this mode. */
grStream_t tl_capturing_stream(unsigned flags, grStreamCaptureMode mode);
/* Ends the capture of s, which must be refused as invalidated, and
 * destroys s. */
void tl_end_invalidated(grStream_t s);
/* The capture of s must still be active (not invalidated) and, ended,
 * give a graph of no nodes, which is destroyed. */
void tl_end_capture_empty(grStream_t s);
/* grStreamIsCapturing's answer for s. */
grStreamCaptureStatus tl_capture_status(grStream_t s);
/* A new stream with these grStreamCreateWithFlags flags. */
grStream_t tl_stream(unsigned flags);

/* The first GPU's device number (1); skips the test where
 * grGetDeviceCount counts the CPU only. The current device is left as
 * it is. */
int tl_first_gpu(void);
/* tl_first_gpu, made current (checked); the caller sets device 0 back. */
int tl_set_first_gpu(void);
/* Makes device 1 current; skips the test, with grSetDevice's detail,
 * where there is none. */
int tl_use_gpu_or_skip(void);

/* With the environment variable var set to 1 (unset again after), the
 * runtime, started by this call, must report exactly the debug flags
 * 'flag'. */
void tl_check_env_debug_flag(const char *var, unsigned flag);

/* Waits until the atomic_int at flag holds want or more, or deadline_ms
 * have passed, polling every 100 us; true when it got there. A test
 * asserts on the result, never on how long it took. TL_WAIT_MS, the
 * deadline for what must happen eventually, is past the runner's default
 * timeout (30 s): a hung test ends as before, and only a run the
 * sanitizers slow down (whose timeouts are longer) can reach it. */
bool tl_wait_until(atomic_int *flag, int want, long deadline_ms);

enum {
    TL_WAIT_MS = 60000
};
/* True when grStreamQuery(s) answers grErrorNotReady 100 times running:
 * the stream is held (by a wait that is not met). */
bool tl_still_waiting(grStream_t s);
/* Milliseconds on the monotonic clock. */
long long tl_now_ms(void);
/* Sleeps ms milliseconds, resuming after signals. */
void tl_sleep_ms(long ms);

/* ------------------------------------------------------------- memory */

/* Pinned memory of device 'device' (0: the CPU): the pool properties, and
 * the parameters of an allocation node of 'bytes' from such a pool (the
 * other fields zero). */
grMemPoolProps tl_pool_props(int device);
grMemAllocNodeParams tl_alloc_params(int device, size_t bytes);
/* grMalloc'd memory of the current device, checked non-NULL; the
 * calloc form zeroes it from the host (a device the CPU reaches). */
void *tl_malloc(size_t bytes);
void *tl_calloc(size_t bytes);
/* An allocation node of 'bytes' from device's pinned memory after
 * deps[0..n); its address (checked non-NULL) into *out. */
grGraphNode_t tl_add_alloc(grGraph_t g, const grGraphNode_t *deps, size_t n, int device, size_t bytes,
                           void **out);
/* grDeviceGetGraphMemAttribute's answer for device. */
uint64_t tl_graph_mem_attr(int device, grGraphMemAttributeType a);
/* A new pool of tl_pool_props(device). */
grMemPool_t tl_pool(int device);
/* A pool attribute of 64 bits, read; one of int, set. */
uint64_t tl_pool_u64(grMemPool_t pool, grMemPoolAttr a);
void tl_pool_set_int(grMemPool_t pool, grMemPoolAttr a, int v);

/* For tests of a range freed after it was added to a node: tl_map_hole
 * maps len bytes of plain host memory; tl_unmap_and_reuse unmaps them and
 * grMallocs blocks of len / 4 bytes into blocks[*nb..64) until one lands
 * inside the old range, and returns it (the test fails where 64 blocks do
 * not reach it). The caller grFrees blocks[0..*nb). */
char *tl_map_hole(size_t len);
void *tl_unmap_and_reuse(char *r, size_t len, void *blocks[64], int *nb);

/* p[i] = i * 7 + seed * 13 + 1 (mod 256) for i below n: bytes that tell
 * each position and each source apart. */
void tl_fill_pattern(unsigned char *p, size_t n, unsigned seed);

/* What the 3D copy c does, done by memcpy into want (a copy of the
 * destination whose first byte stands for base) from 'from' (a copy of
 * the source whose first byte stands for from_base): the reference a test
 * compares the copy's result with. The on_host form copies between c's
 * own pointers, which the CPU reaches. */
void tl_copy3d_reference(unsigned char *want, const void *base, const grMemcpy3DParms *c,
                         const unsigned char *from, const void *from_base);
void tl_copy3d_on_host(const grMemcpy3DParms *c);

/* Copy parameters from a pitched source to a pitched destination (pitch
 * and rows per slice each) of extent e, every position zero. */
grMemcpy3DParms tl_copy3d_params(void *dst, size_t dpitch, size_t dysize, const void *src, size_t spitch,
                                 size_t sysize, grExtent e, grMemcpyKind kind);

/* ----------------------------------------------------------------- files */

/* Reads a whole file into a NUL-terminated heap buffer (the caller
 * frees it), its length into *len where len is not NULL; the test fails
 * where the file cannot be read. */
char *tl_slurp(const char *path, size_t *len);
/* A path in /dev/shm (or /tmp where /dev/shm is not writable) unique to
 * this process and tag: <dir>/graphrt-<prefix>-<pid>-<tag><ext>. */
void tl_tmp_path(char *buf, size_t cap, const char *prefix, const char *tag, const char *ext);

/* Writes n bytes of data to path, replacing the file. */
void tl_spit(const char *path, const void *data, size_t n);
/* Loads 'text' as a graph file from a temporary path: the load must be
 * refused with grErrorInvalidValue, leave the graph pointer as it was,
 * and name "<path>:<where>:" and 'what' in the detail. */
void tl_load_refused(const char *text, const char *where, const char *what);

#endif /* GR_TESTLIB_H */
