/*
 * fuzz-file.c - the graph file loader under mutation: a case saves a
 * random graph (every node type, child graphs, memory nodes, IF and
 * SWITCH conditional nodes whose bodies' kernels take the handle, edges
 * against creation order), mutates the file (truncations, byte flips,
 * digits changed, numbers set to bounds, lines dropped, swapped or
 * repeated, fields appended, tokens cut) and loads it with stand-ins;
 * now and then it loads a directory or a device instead.
 *
 * What must hold: a load fails with grErrorInvalidValue or
 * grErrorMemoryAllocation and a detail naming the file and line, or
 * succeeds; a graph that loads saves, loads again and saves to the same
 * bytes, and instantiates and replays when it instantiates (not under
 * TSan: random graphs race on their buffers); the sanitizers see no leak,
 * overflow, race or undefined behaviour.
 */
#include "fuzz-common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static fz_opts g_o;

static void fk(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    (void)args;
}

static void fh(void *p)
{
    (void)p;
}

typedef struct fworld {
    grKernel_t k[2];
    void *buf[2];
    grEvent_t ev;
    /* Memory graphrt did not allocate: saved as host buffers of its own
     * (of 1 byte where a node touches 0 bytes of it). Never run: only the
     * loaded graph, whose buffers stand for it, replays. */
    unsigned char plain[256];
} fworld;

static void file_add_node(fz_ctx *c, fz_rng *r, fworld *w, grGraph_t g, grGraphNode_t *deps, size_t nd,
                          int depth, grGraphNode_t *out)
{
    switch (fz_below(r, depth < 2 ? 9 : 8)) {
    case 0: {
        void *p = (char *)w->buf[fz_below(r, 2)] + fz_below(r, 64);
        int v = (int)fz_below(r, 1000);
        void *args[] = {&p, &v};
        grKernelNodeParams kp = {
            w->k[0], GR_DIM3(1 + fz_below(r, 3), 1, 1), GR_DIM3(1 + fz_below(r, 64), 1, 1), 0, args, NULL};
        fz_ok(c, FZ(c, grGraphAddKernelNode(out, g, deps, nd, &kp)), "kernel");
        break;
    }
    case 1: {
        /* Now and then a side in plain memory, or a copy of 0 bytes. */
        void *dst = fz_chance(r, 20) ? (void *)(w->plain + fz_below(r, 128)) : w->buf[0];
        void *src =
            fz_chance(r, 20) ? (void *)(w->plain + fz_below(r, 128)) : (char *)w->buf[1] + fz_below(r, 64);
        size_t count = fz_chance(r, 15) ? 0 : fz_below(r, 64);
        fz_ok(c, FZ(c, grGraphAddMemcpyNode1D(out, g, deps, nd, dst, src, count, grMemcpyDefault)), "memcpy");
        break;
    }
    case 2: {
        /* Width 0 (a memset of nothing) on plain memory too: the file
         * must load back. */
        void *dst = fz_chance(r, 25) ? (void *)(w->plain + fz_below(r, 128)) : w->buf[1];
        size_t width = fz_chance(r, 15) ? 0 : 1 + fz_below(r, 100);
        grMemsetParams mp = {dst, 0, fz_below(r, 256), 1, width, 1};
        fz_ok(c, FZ(c, grGraphAddMemsetNode(out, g, deps, nd, &mp)), "memset");
        break;
    }
    case 3: {
        grHostNodeParams hp = {fh, fz_chance(r, 50) ? NULL : w->buf[0]};
        fz_ok(c, FZ(c, grGraphAddHostNode(out, g, deps, nd, &hp)), "host");
        break;
    }
    case 4:
        fz_ok(c, FZ(c, grGraphAddEmptyNode(out, g, deps, nd)), "empty");
        break;
    case 5:
        fz_ok(c, FZ(c, grGraphAddEventRecordNode(out, g, deps, nd, w->ev)), "record");
        break;
    case 6:
        fz_ok(c, FZ(c, grGraphAddEventWaitNode(out, g, deps, nd, w->ev)), "wait");
        break;
    case 7: { /* a batch memory operation node: writes, a barrier, a wait */
        grStreamBatchMemOpParams ops[3];
        unsigned n = 1 + fz_below(r, 3);
        memset(ops, 0, sizeof ops);
        for (unsigned i = 0; i < n; i++) {
            uint32_t *word = (uint32_t *)w->buf[0] + 2 * fz_below(r, 8);
            switch (fz_below(r, 4)) {
            case 0:
                ops[i].waitValue.operation = grStreamMemOpWaitValue32;
                ops[i].waitValue.flags = fz_below(r, 4);
                break;
            case 1:
                ops[i].memoryBarrier.operation = grStreamMemOpBarrier;
                continue;
            case 2:
                ops[i].writeValue.operation = grStreamMemOpWriteValue64;
                break;
            default:
                ops[i].writeValue.operation = grStreamMemOpWriteValue32;
                break;
            }
            ops[i].waitValue.address = word;
            ops[i].waitValue.value64 = ops[i].operation == grStreamMemOpWriteValue64
                                           ? (uint64_t)fz_below(r, 1u << 30) << 20
                                           : fz_below(r, 1000);
        }
        grBatchMemOpNodeParams mp = {NULL, n, ops, 0};
        fz_ok(c, FZ(c, grGraphAddBatchMemOpNode(out, g, deps, nd, &mp)), "memop");
        break;
    }
    default: {
        grGraph_t ch;
        grGraphNode_t cn[3];
        fz_ok(c, FZ(c, grGraphCreate(&ch, 0)), "child");
        unsigned n = 1 + fz_below(r, 3);
        for (unsigned i = 0; i < n; i++)
            file_add_node(c, r, w, ch, i ? &cn[fz_below(r, i)] : NULL, i ? 1 : 0, depth + 1, &cn[i]);
        fz_ok(c, FZ(c, grGraphAddChildGraphNode(out, g, deps, nd, ch)), "child");
        fz_ok(c, FZ(c, grGraphDestroy(ch)), "child");
        break;
    }
    }
}

/* An IF or SWITCH node (not WHILE: stand-in bodies never end a loop)
 * whose bodies hold a few nodes, a kernel among them taking the handle as
 * its pointer-sized argument (saved as the handle's name). */
static void file_add_cond(fz_ctx *c, fz_rng *r, fworld *w, grGraph_t g, grGraphNode_t dep)
{
    grGraphConditionalHandle h;
    grGraphNodeParams p;
    grGraphNode_t n;
    unsigned flags = fz_chance(r, 50) ? (unsigned)grGraphCondAssignDefault : 0u;
    fz_ok(c, FZ(c, grGraphConditionalHandleCreate(&h, g, fz_below(r, 4), flags)), "cond handle");
    memset(&p, 0, sizeof p);
    p.type = grGraphNodeTypeConditional;
    p.conditional.handle = h;
    p.conditional.type = fz_chance(r, 50) ? grGraphCondTypeIf : grGraphCondTypeSwitch;
    p.conditional.size = 1 + fz_below(r, p.conditional.type == grGraphCondTypeIf ? 2 : 3);
    fz_ok(c, FZ(c, grGraphAddNode(&n, g, &dep, NULL, dep ? 1 : 0, &p)), "cond");
    for (unsigned b = 0; b < p.conditional.size; b++) {
        grGraph_t body = p.conditional.phGraph_out[b];
        grGraphNode_t k, e;
        int v = (int)fz_below(r, 1000);
        void *args[] = {&h, &v};
        grKernelNodeParams kp = {w->k[0], GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
        fz_ok(c, FZ(c, grGraphAddKernelNode(&k, body, NULL, 0, &kp)), "cond body");
        if (fz_chance(r, 50))
            fz_ok(c, FZ(c, grGraphAddEmptyNode(&e, body, &k, 1)), "cond body");
    }
}

static grGraph_t make_graph(fz_ctx *c, fz_rng *r, fworld *w)
{
    grGraph_t g;
    grGraphNode_t nodes[16];
    unsigned n = 1 + fz_below(r, 12);
    fz_ok(c, FZ(c, grGraphCreate(&g, 0)), "graph");
    for (unsigned i = 0; i < n; i++) {
        grGraphNode_t deps[2];
        size_t nd = 0;
        if (i && fz_chance(r, 70))
            deps[nd++] = nodes[fz_below(r, i)];
        if (i > 1 && fz_chance(r, 30) && nodes[i - 1] != deps[0])
            deps[nd++] = nodes[i - 1];
        file_add_node(c, r, w, g, deps, nd, 0, &nodes[i]);
    }
    grGraphNode_t a = nodes[fz_below(r, n)], b = nodes[fz_below(r, n)];
    if (a != b)
        (void)grGraphAddDependencies(g, &b, &a, NULL, 1); /* may close a cycle: refused */
    if (fz_chance(r, 30))
        file_add_cond(c, r, w, g, fz_chance(r, 50) ? nodes[fz_below(r, n)] : NULL);
    if (fz_chance(r, 25)) {
        grMemAllocNodeParams ap;
        grGraphNode_t an, fn;
        memset(&ap, 0, sizeof ap);
        ap.poolProps.allocType = grMemAllocationTypePinned;
        ap.poolProps.location = (grMemLocation){grMemLocationTypeDevice, 0};
        ap.bytesize = 512;
        fz_ok(c, FZ(c, grGraphAddMemAllocNode(&an, g, NULL, 0, &ap)), "alloc");
        fz_ok(c, FZ(c, grGraphAddMemsetNode(&fn, g, &an, 1, &(grMemsetParams){ap.dptr, 0, 1, 1, 64, 1})),
              "alloc");
        fz_ok(c, FZ(c, grGraphAddMemFreeNode(&fn, g, &fn, 1, ap.dptr)), "free");
    }
    return g;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)(n > 0 ? n : 0) + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return s;
}

static void spit(const char *path, const char *s, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(s, 1, n, f);
        fclose(f);
    }
}

/* Start offsets of the lines of s[0..n). */
static size_t lines_of(const char *s, size_t n, size_t *starts, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < max; i++)
        if (i == 0 || s[i - 1] == '\n')
            starts[k++] = i;
    return k;
}

/* One mutation of buf (len bytes, room for cap) in place. */
static size_t mutate(fz_rng *r, char *buf, size_t len, size_t cap)
{
    static const char interesting[] = " \n{}=,+@#\"\\x0123456789nbkhe-";
    size_t starts[4096], nl = lines_of(buf, len, starts, 4096);
    switch (fz_below(r, 9)) {
    case 7: { /* append key=value fields to a line (more than a node line holds) */
        if (nl < 1)
            return len;
        size_t i = fz_below(r, (uint32_t)nl), e = i + 1 < nl ? starts[i + 1] - 1 : len;
        char add[512];
        size_t n = 0;
        for (unsigned k = 0, nf = 1 + fz_below(r, 24); k < nf && n + 24 < sizeof add; k++)
            n += (size_t)snprintf(add + n, sizeof add - n, " %c%u=%u", "kxabn"[fz_below(r, 5)], k,
                                  fz_below(r, 99));
        if (len + n > cap)
            return len;
        memmove(buf + e + n, buf + e, len - e);
        memcpy(buf + e, add, n);
        return len + n;
    }
    case 8: { /* a number replaced by one at a bound (sizes, counts, ids) */
        static const char *const bounds[] = {"0",
                                             "1",
                                             "255",
                                             "256",
                                             "65535",
                                             "65536",
                                             "65537",
                                             "2147483648",
                                             "4294967295",
                                             "4294967296",
                                             "18446744073709551615"};
        if (!len)
            return len;
        size_t at = fz_below(r, (uint32_t)len), e;
        while (at < len && (buf[at] < '0' || buf[at] > '9'))
            at++;
        for (e = at; e < len && buf[e] >= '0' && buf[e] <= '9'; e++)
            ;
        if (at == len)
            return len;
        /* A buffer line's size is allocated and zeroed: gigabytes there
         * would make a case take seconds, and find nothing the small
         * bounds do not. */
        size_t ls = at;
        while (ls > 0 && buf[ls - 1] != '\n')
            ls--;
        bool sized = len - ls >= 7 && memcmp(buf + ls, "buffer ", 7) == 0;
        const char *v = bounds[fz_below(r, sized ? 7 : sizeof bounds / sizeof bounds[0])];
        size_t vn = strlen(v);
        if (len - (e - at) + vn > cap)
            return len;
        memmove(buf + at + vn, buf + e, len - e);
        memcpy(buf + at, v, vn);
        return len - (e - at) + vn;
    }
    case 0: /* truncate */
        return len ? fz_below(r, (uint32_t)len) : 0;
    case 1: /* flip a byte */
        if (len)
            buf[fz_below(r, (uint32_t)len)] ^= (char)(1u << fz_below(r, 8));
        return len;
    case 2: /* replace a byte with one that means something here */
        if (len)
            buf[fz_below(r, (uint32_t)len)] = interesting[fz_below(r, sizeof interesting - 1)];
        return len;
    case 3: { /* drop a line */
        if (nl < 2)
            return len;
        size_t i = fz_below(r, (uint32_t)nl), b = starts[i], e = i + 1 < nl ? starts[i + 1] : len;
        memmove(buf + b, buf + e, len - e);
        return len - (e - b);
    }
    case 4: { /* swap two adjacent lines */
        if (nl < 3)
            return len;
        size_t i = fz_below(r, (uint32_t)nl - 2), a = starts[i], m = starts[i + 1], e = starts[i + 2];
        char *tmp = malloc(m - a);
        if (!tmp)
            return len;
        memcpy(tmp, buf + a, m - a);
        memmove(buf + a, buf + m, e - m);
        memcpy(buf + a + (e - m), tmp, m - a);
        free(tmp);
        return len;
    }
    case 5: { /* repeat a line */
        if (nl < 1)
            return len;
        size_t i = fz_below(r, (uint32_t)nl), b = starts[i], e = i + 1 < nl ? starts[i + 1] : len;
        if (len + (e - b) > cap)
            return len;
        memmove(buf + e + (e - b), buf + e, len - e);
        memcpy(buf + e, buf + b, e - b);
        return len + (e - b);
    }
    default: { /* insert a digit (numbers grow, ids go past the end) */
        if (len + 1 > cap || !len)
            return len;
        size_t at = fz_below(r, (uint32_t)len);
        memmove(buf + at + 1, buf + at, len - at);
        buf[at] = (char)('0' + fz_below(r, 10));
        return len + 1;
    }
    }
}

/* True if g or a child graph of it holds an event wait node. A graph
 * that waits on an event it records itself, the two unordered, never
 * finishes its first launch (the wait waits for the same launch's
 * record, docs/graph-files.md), so such graphs are loaded, not run; so
 * are graphs with batch memory operation nodes, whose waits a mutation
 * may make unmeetable. */
static bool has_wait(grGraph_t g, int depth)
{
    size_t n = 0;
    bool found = false;
    if (depth > 64 || grGraphGetNodes(g, NULL, &n) != grSuccess)
        return true;
    grGraphNode_t *nodes = calloc(n + 1, sizeof *nodes);
    if (!nodes || grGraphGetNodes(g, nodes, &n) != grSuccess) {
        free(nodes);
        return true;
    }
    for (size_t i = 0; i < n && !found; i++) {
        grGraphNodeType t;
        grGraph_t c;
        grGraphNodeGetType(nodes[i], &t);
        if (t == grGraphNodeTypeWaitEvent || t == grGraphNodeTypeBatchMemOp)
            found = true;
        else if (t == grGraphNodeTypeGraph && grGraphChildGraphNodeGetGraph(nodes[i], &c) == grSuccess)
            found = has_wait(c, depth + 1);
    }
    free(nodes);
    return found;
}

/* One case: save, mutate, load, and what a loaded graph must do. */
static void file_run_case(fz_ctx *c, uint64_t seed, fworld *w, const char *orig, const char *mut,
                          const char *again)
{
    fz_rng r;
    fz_rng_seed(&r, seed);
    atomic_store(&c->seed, seed);
    atomic_store(&c->step, 0);
    grGraph_t g = make_graph(c, &r, w), l, l2;
    /* Now and then a path that is no graph file: a directory (its ftell
     * is LONG_MAX on ext4; once sized the loader's buffer), or a
     * character device. */
    if (fz_chance(&r, 3)) {
        const char *path = fz_chance(&r, 50) ? "/dev/null" : fz_chance(&r, 50) ? "." : "/tmp";
        l = NULL;
        grError_t e = FZ(c, grGraphLoadFromFile(&l, path, grGraphLoadStandIns));
        if (e != grErrorInvalidValue || l != NULL)
            fz_fail(c, "loading '%s' gave %s (detail: %s)", path, grGetErrorName(e), grGetLastErrorDetail());
        fz_check_detail(c, e);
    }
    fz_ok(c, FZ(c, grGraphSaveToFile(g, orig, 0)), "save");
    fz_ok(c, FZ(c, grGraphDestroy(g)), "destroy");
    /* A file graphrt wrote loads back (with its own kernels and host
     * function, which stand-ins would replace with other data), and the
     * loaded graph saves to the same bytes. */
    fz_ok(c, FZ(c, grGraphLoadFromFile(&l, orig, 0)), "load what was saved");
    fz_ok(c, FZ(c, grGraphSaveToFile(l, again, 0)), "save the loaded graph");
    fz_ok(c, FZ(c, grGraphDestroy(l)), "destroy");
    {
        size_t n1, n2;
        char *a = slurp(orig, &n1), *b = slurp(again, &n2);
        if (!a || !b || n1 != n2 || memcmp(a, b, n1) != 0)
            fz_fail(c, "a saved graph, loaded, does not save to the same bytes");
        free(a);
        free(b);
    }
    size_t len;
    char *text = slurp(orig, &len);
    if (!text)
        fz_fail(c, "cannot read back %s", orig);
    size_t cap = len * 2 + 64;
    char *buf = malloc(cap);
    if (!buf)
        fz_fail(c, "out of memory");
    memcpy(buf, text, len);
    unsigned nmut = 1 + fz_below(&r, 4);
    for (unsigned i = 0; i < nmut; i++)
        len = mutate(&r, buf, len, cap);
    spit(mut, buf, len);
    atomic_store(&c->step, 1);
    atomic_fetch_add(&c->progress, 1);
    grError_t err = FZ(c, grGraphLoadFromFile(&l, mut, grGraphLoadStandIns));
    if (err != grSuccess) {
        if (err != grErrorInvalidValue && err != grErrorMemoryAllocation)
            fz_fail(c, "a mutated file was refused with %s (detail: %s)", grGetErrorName(err),
                    grGetLastErrorDetail());
        char want[300];
        snprintf(want, sizeof want, "grGraphLoadFromFile: %s", mut);
        if (!strstr(grGetLastErrorDetail(), want) && !strstr(grGetLastErrorDetail(), "out of memory"))
            fz_fail(c, "a refusal's detail does not name the file: %s", grGetLastErrorDetail());
    } else {
        /* It loads: it saves, loads back and saves to the same bytes. */
        atomic_store(&c->step, 2);
        fz_ok(c, FZ(c, grGraphSaveToFile(l, orig, 0)), "save loaded");
        fz_ok(c, FZ(c, grGraphLoadFromFile(&l2, orig, grGraphLoadStandIns)), "load saved");
        fz_ok(c, FZ(c, grGraphSaveToFile(l2, again, 0)), "save again");
        size_t n1, n2;
        char *a = slurp(orig, &n1), *b = slurp(again, &n2);
        if (!a || !b || n1 != n2 || memcmp(a, b, n1) != 0)
            fz_fail(c, "a loaded graph does not save to the same bytes after a round trip");
        /* A mutation that makes a WHILE node loops forever on stand-ins. */
        bool loops = false;
        for (size_t i = 0; a && i + 10 <= n1 && !loops; i++)
            loops = memcmp(a + i, "type=while", 10) == 0;
        free(a);
        free(b);
        grGraphExec_t e;
        /* Unordered copies of a random graph may write the same bytes:
         * a race of the graph itself, which TSan rightly reports, so it
         * replays only under other builds. */
        if (!fz_tsan() && !loops && !has_wait(l, 0) && FZ(c, grGraphInstantiate(&e, l, 0)) == grSuccess) {
            fz_ok(c, FZ(c, grGraphLaunch(e, NULL)), "launch");
            fz_ok(c, FZ(c, grStreamSynchronize(NULL)), "sync");
            fz_ok(c, FZ(c, grGraphExecDestroy(e)), "exec destroy");
        }
        fz_ok(c, FZ(c, grGraphDestroy(l2)), "destroy");
        fz_ok(c, FZ(c, grGraphDestroy(l)), "destroy");
    }
    free(buf);
    free(text);
}

int fz_file_main(int argc, char **argv);

int fz_file_main(int argc, char **argv)
{
    int rc = fz_parse_args(&g_o, "fuzz-file", argc, argv);
    if (rc)
        return rc == 2 ? 0 : 2;
    static fz_ctx ctx[1];
    fworld w;
    char orig[256], mut[256], again[256];
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(orig, sizeof orig, "%s/graphrt-fuzz-file-%ld.graph", dir, (long)getpid());
    snprintf(mut, sizeof mut, "%s/graphrt-fuzz-file-%ld-mutated.graph", dir, (long)getpid());
    snprintf(again, sizeof again, "%s/graphrt-fuzz-file-%ld-again.graph", dir, (long)getpid());
    if (!g_o.quiet)
        printf("fuzz-file: seed 0x%016" PRIx64 "\n", g_o.seed);
    fflush(stdout);
    memset(ctx, 0, sizeof ctx);
    atomic_store(&ctx[0].seed, g_o.seed);
    fz_ctx_register(&g_o, ctx, 1);
    fz_thread_start();
    fz_watchdog_start(&g_o);
    fz_ctx *c = &ctx[0];
    static const size_t s0[] = {sizeof(void *), 4};
    fz_ok(c, FZ(c, grKernelCreate(&w.k[0], fk, "fuzz file kernel", 2, s0)), "setup");
    fz_ok(c, FZ(c, grKernelCreate(&w.k[1], fk, "fuzz_file_other", 0, NULL)), "setup");
    fz_ok(c, FZ(c, grHostFnRegister(fh, "fuzz_file_host", NULL)), "setup");
    fz_ok(c, FZ(c, grMalloc(&w.buf[0], 256)), "setup");
    fz_ok(c, FZ(c, grMallocHost(&w.buf[1], 256)), "setup");
    fz_ok(c, FZ(c, grEventCreate(&w.ev)), "setup");
    double t0 = fz_now();
    uint64_t cases = 0;
    atomic_store(&c->active, true);
    for (uint64_t i = 0;; i++) {
        if (g_o.iterations && i >= g_o.iterations)
            break;
        if (!g_o.iterations && g_o.seconds > 0 && fz_now() - t0 >= g_o.seconds)
            break;
        file_run_case(c, g_o.seed + i, &w, orig, mut, again);
        cases++;
    }
    atomic_store(&c->active, false);
    fz_watchdog_stop();
    fz_ok(c, FZ(c, grKernelDestroy(w.k[0])), "teardown");
    fz_ok(c, FZ(c, grKernelDestroy(w.k[1])), "teardown");
    fz_ok(c, FZ(c, grHostFnUnregister(fh)), "teardown");
    fz_ok(c, FZ(c, grFree(w.buf[0])), "teardown");
    fz_ok(c, FZ(c, grFreeHost(w.buf[1])), "teardown");
    fz_ok(c, FZ(c, grEventDestroy(w.ev)), "teardown");
    unlink(orig);
    unlink(mut);
    unlink(again);
    double secs = fz_now() - t0;
    printf("fuzz-file: %" PRIu64 " mutated files loaded in %.1f s, no failure\n", cases, secs);
    return 0;
}
