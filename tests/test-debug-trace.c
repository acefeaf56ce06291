/* test-debug-trace.c - traces (grTraceStart, grTraceStop): the file is
 * valid JSON, in Chrome's trace-event form, and holds every node of every
 * launch with its kernel's name and the worker that ran it, the eager
 * operations, synchronisation waits and capture begin and end; and
 * grDebugLaunchBlocking, which makes every launch wait for its work. */
#include "testlib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------- a small JSON reader */

/* A parsed JSON value: objects and arrays keep their members in order. */
typedef struct jv {
    char type; /* 'o'bject, 'a'rray, 's'tring, 'n'umber, 'b'oolean, 'z' null */
    char *str; /* string value, or the member's key inside an object */
    double num;
    struct jv **items;
    size_t nitems;
    char *key;
} jv;

typedef struct jp {
    const char *s;
    bool bad;
} jp;

static void skip_ws(jp *p)
{
    while (*p->s == ' ' || *p->s == '\n' || *p->s == '\t' || *p->s == '\r')
        p->s++;
}

static jv *jnew(char type)
{
    jv *v = calloc(1, sizeof *v);
    CHECK(v != NULL);
    v->type = type;
    return v;
}

static void jpush(jv *v, jv *item)
{
    v->items = realloc(v->items, (v->nitems + 1) * sizeof *v->items);
    CHECK(v->items != NULL);
    v->items[v->nitems++] = item;
}

static char *jstring(jp *p)
{
    size_t cap = 16, n = 0;
    char *out = malloc(cap);
    CHECK(out != NULL);
    if (*p->s != '"') {
        p->bad = true;
        return out;
    }
    p->s++;
    while (*p->s && *p->s != '"') {
        char c = *p->s++;
        if ((unsigned char)c < 0x20)
            p->bad = true;
        if (c == '\\') {
            c = *p->s++;
            if (c == 'u') {
                for (int i = 0; i < 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", *p->s++) || !p->s[-1])
                        p->bad = true;
                c = '?';
            } else if (!strchr("\"\\/bfnrt", c) || !c) {
                p->bad = true;
                break;
            }
        }
        if (n + 2 > cap)
            out = realloc(out, cap *= 2);
        out[n++] = c;
    }
    out[n] = '\0';
    if (*p->s != '"')
        p->bad = true;
    else
        p->s++;
    return out;
}

static jv *jvalue(jp *p, int depth)
{
    skip_ws(p);
    if (depth > 32) {
        p->bad = true;
        return jnew('z');
    }
    if (*p->s == '{' || *p->s == '[') {
        char close = *p->s == '{' ? '}' : ']';
        jv *v = jnew(*p->s == '{' ? 'o' : 'a');
        p->s++;
        skip_ws(p);
        if (*p->s == close) {
            p->s++;
            return v;
        }
        while (!p->bad) {
            char *key = NULL;
            skip_ws(p);
            if (v->type == 'o') {
                key = jstring(p);
                skip_ws(p);
                if (*p->s++ != ':')
                    p->bad = true;
            }
            jv *item = jvalue(p, depth + 1);
            item->key = key;
            jpush(v, item);
            skip_ws(p);
            if (*p->s == ',') {
                p->s++;
                continue;
            }
            if (*p->s++ != close)
                p->bad = true;
            break;
        }
        return v;
    }
    if (*p->s == '"') {
        jv *v = jnew('s');
        v->str = jstring(p);
        return v;
    }
    if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "null", 4) || !strncmp(p->s, "false", 5)) {
        jv *v = jnew(*p->s == 'n' ? 'z' : 'b');
        v->num = *p->s == 't';
        p->s += *p->s == 'f' ? 5 : 4;
        return v;
    }
    char *end;
    jv *v = jnew('n');
    v->num = strtod(p->s, &end);
    if (end == p->s)
        p->bad = true;
    p->s = end;
    return v;
}

static jv *jparse(const char *text)
{
    jp p = {text, false};
    jv *v = jvalue(&p, 0);
    skip_ws(&p);
    if (p.bad || *p.s != '\0')
        GR_TEST_FAIL_("the trace is not valid JSON near offset %ld", (long)(p.s - text));
    return v;
}

static jv *jget(const jv *o, const char *key)
{
    for (size_t i = 0; o && o->type == 'o' && i < o->nitems; i++)
        if (!strcmp(o->items[i]->key, key))
            return o->items[i];
    return NULL;
}

static const char *jstr(const jv *o, const char *key)
{
    const jv *v = jget(o, key);
    return v && v->type == 's' ? v->str : "";
}

static void jfree(jv *v)
{
    for (size_t i = 0; i < v->nitems; i++)
        jfree(v->items[i]);
    free(v->items);
    free(v->str);
    free(v->key);
    free(v);
}

static void temp_path(char *path, size_t n)
{
    snprintf(path, n, "/tmp/graphrt-trace-%d.json", (int)getpid());
}

/* Reads and parses the trace; checks its shape. */
static jv *read_trace(const char *path)
{
    char *text = tl_slurp(path, NULL);
    jv *root = jparse(text);
    free(text);
    CHECK(root->type == 'o');
    jv *events = jget(root, "traceEvents");
    CHECK(events != NULL && events->type == 'a');
    CHECK(jget(jget(root, "otherData"), "droppedEvents") != NULL);
    return root;
}

/* ------------------------------------------------------------ tests */

static void touch_fn(const grKernelCtx *ctx, void **args)
{
    int *p = *(int **)args[0];
    (void)ctx;
    (*p)++;
}

static grKernel_t touch_kernel(const char *name)
{
    grKernel_t k;
    size_t size = sizeof(int *);
    CHECK_OK(grKernelCreate(&k, touch_fn, name, 1, &size));
    return k;
}

static void add_kernel_node(grGraph_t g, grGraphNode_t *n, grGraphNode_t *dep, grKernel_t k, int **p)
{
    void *args[1] = {p};
    grKernelNodeParams kp = {k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphAddKernelNode(n, g, dep, dep ? 1 : 0, &kp));
}

GR_TEST(trace_holds_every_node_with_its_kernel_and_worker_and_is_valid_json)
{
    char path[128];
    static int x[8];
    int *px[4] = {&x[0], &x[1], &x[2], &x[3]};
    grGraph_t g, captured;
    grGraphNode_t n[5];
    grGraphExec_t e;
    temp_path(path, sizeof path);
    grKernel_t ka = touch_kernel("trace_alpha"), kb = touch_kernel("trace_beta_with_a_longer_name");
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphCreate(&g, 0));
    /* A diamond of kernels, then an empty node. */
    add_kernel_node(g, &n[0], NULL, ka, &px[0]);
    add_kernel_node(g, &n[1], &n[0], kb, &px[1]);
    add_kernel_node(g, &n[2], &n[0], ka, &px[2]);
    grGraphNode_t join[2] = {n[1], n[2]};
    add_kernel_node(g, &n[3], NULL, kb, &px[3]);
    CHECK_OK(grGraphAddDependencies(g, join, (grGraphNode_t[]){n[3], n[3]}, NULL, 2));
    CHECK_OK(grGraphAddEmptyNode(&n[4], g, &n[3], 1));
    CHECK_OK(grGraphInstantiate(&e, g, 0));

    CHECK_OK(grTraceStart(path, 0));
    const int launches = 3;
    for (int i = 0; i < launches; i++)
        CHECK_OK(grGraphLaunch(e, s));
    void *args[1] = {&px[0]};
    CHECK_OK(grLaunchKernel(ka, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_OK(grMemsetAsync(&x[4], 0, sizeof x[4], s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grLaunchKernel(ka, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_OK(grStreamEndCapture(s, &captured));
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grTraceStop());
    CHECK_EQ(x[0], launches + 1);

    jv *root = read_trace(path);
    jv *events = jget(root, "traceEvents");
    /* seen[launch][node]: each of the 5 plan nodes of each launch, once,
     * with its kernel's name (cut to 27 bytes) and a worker. */
    int seen[3][5] = {{0}};
    int graph_launches = 0, eager_kernels = 0, syncs = 0, capture_marks = 0, named_threads = 0;
    /* Plan order is a topological order, not creation order: count the
     * names per launch. */
    const char *names[3] = {"trace_alpha", "trace_beta_with_a_longer_na", "empty"};
    int by_name[3][3] = {{0}};
    for (size_t i = 0; i < events->nitems; i++) {
        const jv *ev = events->items[i];
        const char *cat = jstr(ev, "cat"), *name = jstr(ev, "name");
        CHECK(jget(ev, "ph") != NULL && jget(ev, "pid") != NULL && jget(ev, "tid") != NULL);
        if (!strcmp(jstr(ev, "ph"), "M")) {
            named_threads += !strcmp(name, "thread_name");
            continue;
        }
        CHECK(jget(ev, "ts") != NULL);
        const jv *a = jget(ev, "args");
        CHECK(jget(a, "worker") != NULL && jget(a, "worker")->type == 'n');
        if (!strcmp(cat, "node")) {
            int node = (int)jget(a, "node")->num, launch = (int)jget(a, "launch")->num;
            CHECK(node >= 0 && node < 5 && launch >= 0 && launch < launches);
            int which = 0;
            while (which < 3 && strcmp(name, names[which]))
                which++;
            CHECK(which < 3);
            by_name[launch][which]++;
            CHECK(!strcmp(jstr(ev, "ph"), "X"));
            seen[launch][node]++;
        } else if (!strcmp(cat, "graph launch")) {
            graph_launches++;
            CHECK_EQ((int)jget(a, "nodes")->num, 5);
        } else if (!strcmp(cat, "stream op")) {
            eager_kernels += !strcmp(name, "trace_alpha");
        } else if (!strcmp(cat, "sync")) {
            syncs += !strcmp(name, "grStreamSynchronize") || !strcmp(name, "grDeviceSynchronize");
        } else if (!strcmp(cat, "capture")) {
            capture_marks++;
        }
    }
    for (int l = 0; l < launches; l++) {
        for (int k = 0; k < 5; k++)
            CHECK_EQ(seen[l][k], 1);
        CHECK_EQ(by_name[l][0], 2);
        CHECK_EQ(by_name[l][1], 2);
        CHECK_EQ(by_name[l][2], 1);
    }
    CHECK_EQ(graph_launches, launches);
    CHECK_EQ(eager_kernels, 1); /* the captured launch does not run */
    CHECK_EQ(syncs, 2);
    CHECK_EQ(capture_marks, 2);
    CHECK(named_threads >= 1);
    CHECK_EQ((int)jget(jget(root, "otherData"), "droppedEvents")->num, 0);
    jfree(root);
    unlink(path);
    CHECK_OK(grGraphDestroy(captured));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(trace_rings_drop_the_oldest_events_and_count_them)
{
    char path[128];
    static int x;
    int *px = &x;
    void *args[1] = {&px};
    temp_path(path, sizeof path);
    setenv("GRAPHRT_TRACE_EVENTS", "16", 1);
    grKernel_t k = touch_kernel("trace_ring");
    grStream_t s = tl_stream(0);
    CHECK_OK(grTraceStart(path, 0));
    for (int i = 0; i < 200; i++) {
        CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
        CHECK_OK(grStreamSynchronize(s));
    }
    CHECK_OK(grTraceStop());
    unsetenv("GRAPHRT_TRACE_EVENTS");
    jv *root = read_trace(path);
    size_t n = jget(root, "traceEvents")->nitems;
    double dropped = jget(jget(root, "otherData"), "droppedEvents")->num;
    /* 400 events (200 kernels, 200 waits) into rings of 16: most dropped,
     * the rest written. */
    CHECK(dropped >= 400 - 16 * 4);
    CHECK(n <= 1 + 4 * (1 + 16));
    jfree(root);
    unlink(path);
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(trace_start_and_stop_refuse_misuse)
{
    char path[128];
    temp_path(path, sizeof path);
    CHECK_GR(grErrorIllegalState, grTraceStop());
    CHECK_DETAIL_HAS("not tracing");
    CHECK_GR(grErrorInvalidValue, grTraceStart(NULL, 0));
    CHECK_GR(grErrorInvalidValue, grTraceStart("", 0));
    CHECK_GR(grErrorInvalidValue, grTraceStart(path, 1));
    CHECK_GR(grErrorInvalidValue, grTraceStart("/nonexistent-dir/x/trace.json", 0));
    CHECK_DETAIL_HAS("cannot open");
    CHECK_OK(grTraceStart(path, 0));
    CHECK_GR(grErrorIllegalState, grTraceStart(path, 0));
    CHECK_OK(grTraceStop());
    /* A second session writes a file of its own. */
    CHECK_OK(grTraceStart(path, 0));
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grTraceStop());
    jv *root = read_trace(path);
    jfree(root);
    unlink(path);
}

typedef struct span {
    unsigned tid;
    long long ts, end; /* ns */
} span;

static int span_order(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

/* "ts" and "dur" are microseconds with 3 decimals: whole nanoseconds. */
static long long us_to_ns(const jv *v)
{
    CHECK(v != NULL && v->type == 'n' && v->num >= 0);
    return (long long)(v->num * 1000.0 + 0.5);
}

/* A thread's node spans follow one another without overlap: a node's span
 * ends where the thread's next one begins, and start and end are rounded
 * from the same clock, so that viewers that need spans to nest (Perfetto)
 * accept the file. */
GR_TEST(trace_node_spans_of_one_thread_never_overlap)
{
    char path[128];
    static int x;
    int *px = &x;
    const int nodes = 500, launches = 4;
    grGraph_t g;
    grGraphExec_t e;
    grGraphNode_t prev = NULL, n;
    temp_path(path, sizeof path);
    grKernel_t k = touch_kernel("trace_short");
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphCreate(&g, 0));
    for (int i = 0; i < nodes; i++) {
        add_kernel_node(g, &n, prev ? &prev : NULL, k, &px);
        prev = n;
    }
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grTraceStart(path, 0));
    for (int i = 0; i < launches; i++)
        CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grTraceStop());
    CHECK_EQ(x, nodes * launches);

    jv *root = read_trace(path);
    jv *events = jget(root, "traceEvents");
    span *sp = calloc(events->nitems + 1, sizeof *sp);
    CHECK(sp != NULL);
    size_t ns = 0;
    for (size_t i = 0; i < events->nitems; i++) {
        const jv *ev = events->items[i];
        if (strcmp(jstr(ev, "cat"), "node") != 0)
            continue;
        CHECK(!strcmp(jstr(ev, "ph"), "X"));
        sp[ns].tid = (unsigned)jget(ev, "tid")->num;
        sp[ns].ts = us_to_ns(jget(ev, "ts"));
        sp[ns].end = sp[ns].ts + us_to_ns(jget(ev, "dur"));
        ns++;
    }
    CHECK_EQ(ns, (size_t)(nodes * launches));
    qsort(sp, ns, sizeof *sp, span_order);
    size_t pairs = 0;
    for (size_t i = 1; i < ns; i++) {
        if (sp[i].tid != sp[i - 1].tid)
            continue;
        pairs++;
        if (sp[i - 1].end > sp[i].ts)
            GR_TEST_FAIL_("thread %u: a span ends at %lld ns, after the next begins at %lld ns", sp[i].tid,
                          sp[i - 1].end, sp[i].ts);
    }
    /* The chain's nodes run mostly one after another on one thread. */
    CHECK(pairs >= (size_t)(nodes * launches) / 2);
    free(sp);
    jfree(root);
    unlink(path);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grKernelDestroy(k));
}

typedef struct busy_args {
    grGraphExec_t e;
    grStream_t s;
    _Atomic int stop;
} busy_args;

static void *launch_until_stopped(void *p)
{
    busy_args *b = p;
    while (!atomic_load(&b->stop)) {
        CHECK_OK(grGraphLaunch(b->e, b->s));
        CHECK_OK(grStreamSynchronize(b->s));
    }
    return NULL;
}

/* Stopping while other threads run traced work: each event is in the
 * file whole or not at all, and the file stays valid. */
GR_TEST(trace_stopped_while_work_runs_writes_a_valid_file)
{
    char path[128];
    static int x[4];
    int *px[4] = {&x[0], &x[1], &x[2], &x[3]};
    grGraph_t g;
    grGraphNode_t n[4];
    grGraphExec_t e;
    pthread_t t;
    temp_path(path, sizeof path);
    grKernel_t k = touch_kernel("trace_busy");
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphCreate(&g, 0));
    add_kernel_node(g, &n[0], NULL, k, &px[0]);
    for (int i = 1; i < 4; i++)
        add_kernel_node(g, &n[i], &n[0], k, &px[i]);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    busy_args b = {e, s, 0};
    CHECK_EQ(pthread_create(&t, NULL, launch_until_stopped, &b), 0);
    for (int round = 0; round < 5; round++) {
        CHECK_OK(grTraceStart(path, 0));
        usleep(2000);
        CHECK_OK(grTraceStop());
        jv *root = read_trace(path);
        jfree(root);
    }
    atomic_store(&b.stop, 1);
    CHECK_EQ(pthread_join(t, NULL), 0);
    unlink(path);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

/* --------------------------------------------------- launch blocking */

static void host_touch(void *p)
{
    (*(int *)p)++;
}

GR_TEST(launch_blocking_finishes_every_launch_before_it_returns)
{
    static int x[4];
    int *px = &x[0];
    void *args[1] = {&px};
    grGraph_t g;
    grGraphNode_t node;
    grGraphExec_t e;
    grKernel_t k = touch_kernel("blocking_touch");
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphCreate(&g, 0));
    grHostNodeParams hp = {host_touch, &x[1]};
    CHECK_OK(grGraphAddHostNode(&node, g, NULL, 0, &hp));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grSetDebugFlags(grDebugLaunchBlocking));
    /* A host function holds the stream back: without blocking, the work
     * queued behind it could not have run when the launch returns. */
    for (int i = 1; i <= 20; i++) {
        CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
        CHECK_EQ(x[0], i);
        CHECK_OK(grGraphLaunch(e, s));
        CHECK_EQ(x[1], i);
        CHECK_OK(grLaunchHostFunc(s, host_touch, &x[2]));
        CHECK_EQ(x[2], i);
        CHECK_OK(grMemsetAsync(&x[3], i, 1, s));
        CHECK_EQ(x[3], i);
    }
    CHECK_OK(grSetDebugFlags(0));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(GRAPHRT_LAUNCH_BLOCKING_turns_blocking_on_when_the_runtime_starts)
{
    tl_check_env_debug_flag("GRAPHRT_LAUNCH_BLOCKING", grDebugLaunchBlocking);
}

GR_TEST(GRAPHRT_TRACE_writes_the_trace_at_exit)
{
    char path[128];
    temp_path(path, sizeof path);
    unlink(path);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        setenv("GRAPHRT_TRACE", path, 1);
        grStream_t s;
        if (grStreamCreate(&s) != grSuccess || grStreamSynchronize(s) != grSuccess)
            _exit(2);
        exit(0); /* atexit writes the trace */
    }
    int status = 0;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    jv *root = read_trace(path);
    int syncs = 0;
    jv *events = jget(root, "traceEvents");
    for (size_t i = 0; i < events->nitems; i++)
        syncs += !strcmp(jstr(events->items[i], "name"), "grStreamSynchronize");
    CHECK_EQ(syncs, 1);
    jfree(root);
    unlink(path);
}
