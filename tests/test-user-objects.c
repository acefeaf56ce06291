/*
 * test-user-objects.c - user objects: the destructor runs exactly once,
 * when the last reference goes, whoever holds them (the application,
 * graphs, clones, child graphs, executables, launches in flight, exec
 * updates), on graphrt's destructor thread; misuse is refused with an
 * error and changes nothing.
 *
 * As in CUDA (measured by a CUDA 13 probe), a destructor runs before the
 * call returns when the count reaches zero in grUserObjectRelease,
 * grGraphReleaseUserObject, grGraphDestroy, grGraphDestroyNode or the
 * destroy of an idle executable; when the last reference goes elsewhere
 * (after a launch in flight), it runs on graphrt's destructor thread,
 * one at a time in queue order, so flush() (a sentinel object released
 * from a launch, waited for) tells that every destructor queued before
 * it ran.
 */
#include "testlib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

typedef struct counted {
    atomic_int runs;
    pthread_t thread; /* where the destructor ran */
} counted;

static void count_destroy_thread(void *p)
{
    counted *c = p;
    c->thread = pthread_self();
    atomic_fetch_add(&c->runs, 1);
}

/* Waits (at most TL_WAIT_MS) until c's destructor ran. */
static void wait_run(counted *c)
{
    CHECK(tl_wait_until(&c->runs, 1, TL_WAIT_MS));
}

/* Holds flush()'s launch until the executable is destroyed. */
static atomic_int flush_gate;

/* Returns once every destructor queued for the destructor thread before
 * the call has run: a sentinel whose last reference an executable drops
 * behind its launch (held until the executable is destroyed) goes to
 * that queue too. */
static void flush(void)
{
    counted c = {0};
    grUserObject_t o;
    grGraph_t g;
    grGraphNode_t n;
    grGraphExec_t e;
    grStream_t s;
    grHostNodeParams hp = {tl_wait_gate, &flush_gate};
    atomic_store(&flush_gate, 0);
    CHECK_OK(grUserObjectCreate(&o, &c, count_destroy_thread, 1, grUserObjectNoDestructorSync));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddHostNode(&n, g, NULL, 0, &hp));
    CHECK_OK(grGraphRetainUserObject(g, o, 1, grGraphUserObjectMove));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphDestroy(g));
    /* A stream of its own: the legacy stream would wait for the tests'
     * gated streams. */
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_EQ(atomic_load(&c.runs), 0);
    atomic_store(&flush_gate, 1);
    CHECK_OK(grStreamSynchronize(s));
    wait_run(&c);
    CHECK(!pthread_equal(c.thread, pthread_self()));
    CHECK_OK(grStreamDestroy(s));
}

static grUserObject_t make(counted *c, unsigned refs)
{
    grUserObject_t o;
    CHECK_OK(grUserObjectCreate(&o, c, count_destroy_thread, refs, grUserObjectNoDestructorSync));
    return o;
}

static grGraph_t graph_with_host(void)
{
    grGraph_t g;
    grGraphNode_t n;
    grHostNodeParams hp = {tl_noop, NULL};
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddHostNode(&n, g, NULL, 0, &hp));
    return g;
}

GR_TEST(user_object_destructor_runs_once_at_last_release)
{
    counted c = {0};
    grUserObject_t o = make(&c, 2);
    CHECK_OK(grUserObjectRetain(o, 3));
    CHECK_OK(grUserObjectRelease(o, 4));
    flush();
    CHECK_EQ(atomic_load(&c.runs), 0);
    CHECK_OK(grUserObjectRelease(o, 1));
    /* Before the release returned, on the releasing thread (CUDA's way). */
    CHECK_EQ(atomic_load(&c.runs), 1);
    CHECK(pthread_equal(c.thread, pthread_self()));
    flush();
    CHECK_EQ(atomic_load(&c.runs), 1);
    /* The handle is dead now. */
    CHECK_GR(grErrorInvalidValue, grUserObjectRetain(o, 1));
    CHECK_GR(grErrorInvalidValue, grUserObjectRelease(o, 1));
}

GR_TEST(user_object_misuse_is_refused_and_changes_nothing)
{
    counted c = {0};
    grUserObject_t o;
    grGraph_t g;
    CHECK_GR(grErrorInvalidValue,
             grUserObjectCreate(NULL, &c, count_destroy_thread, 1, grUserObjectNoDestructorSync));
    CHECK_GR(grErrorInvalidValue, grUserObjectCreate(&o, &c, NULL, 1, grUserObjectNoDestructorSync));
    CHECK_GR(grErrorInvalidValue,
             grUserObjectCreate(&o, &c, count_destroy_thread, 0, grUserObjectNoDestructorSync));
    CHECK_GR(grErrorInvalidValue, grUserObjectCreate(&o, &c, count_destroy_thread, 1, 0));
    CHECK_DETAIL_HAS("grUserObjectNoDestructorSync");
    CHECK_GR(grErrorInvalidValue, grUserObjectCreate(&o, &c, count_destroy_thread, 1, 3));
    o = make(&c, 2);
    CHECK_GR(grErrorInvalidValue, grUserObjectRetain(NULL, 1));
    CHECK_GR(grErrorInvalidValue, grUserObjectRelease(NULL, 1));
    CHECK_GR(grErrorInvalidValue, grUserObjectRetain(o, 0));
    CHECK_GR(grErrorInvalidValue, grUserObjectRelease(o, 0));
    /* Below zero: refused, nothing released. */
    CHECK_GR(grErrorInvalidValue, grUserObjectRelease(o, 3));
    CHECK_DETAIL_HAS("2 references left");
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_GR(grErrorInvalidValue, grGraphRetainUserObject(g, o, 1, 2));
    CHECK_GR(grErrorInvalidValue, grGraphRetainUserObject(g, o, 0, 0));
    CHECK_GR(grErrorInvalidValue, grGraphRetainUserObject(NULL, o, 1, 0));
    CHECK_GR(grErrorInvalidValue, grGraphRetainUserObject(g, NULL, 1, 0));
    CHECK_GR(grErrorInvalidValue, grGraphRetainUserObject(g, o, 3, grGraphUserObjectMove));
    CHECK_GR(grErrorInvalidValue, grGraphReleaseUserObject(g, o, 1));
    CHECK_DETAIL_HAS("holds no reference");
    CHECK_OK(grGraphRetainUserObject(g, o, 1, 0));
    CHECK_GR(grErrorInvalidValue, grGraphReleaseUserObject(g, o, 2));
    CHECK_GR(grErrorInvalidValue, grGraphReleaseUserObject(g, o, 0));
    flush();
    CHECK_EQ(atomic_load(&c.runs), 0);
    /* Everything refused left the counts alone: 2 + 1 references. */
    CHECK_OK(grGraphReleaseUserObject(g, o, 1));
    CHECK_OK(grUserObjectRelease(o, 1));
    flush();
    CHECK_EQ(atomic_load(&c.runs), 0);
    CHECK_OK(grUserObjectRelease(o, 1));
    CHECK_EQ(atomic_load(&c.runs), 1);
    CHECK_OK(grGraphDestroy(g));
    CHECK_GR(grErrorInvalidValue, grGraphRetainUserObject(g, o, 1, 0));
}

GR_TEST(user_object_graph_references_and_move)
{
    counted a = {0}, b = {0};
    grGraph_t g;
    grUserObject_t oa = make(&a, 1), ob = make(&b, 1);
    CHECK_OK(grGraphCreate(&g, 0));
    /* A copy: the application still holds its reference. */
    CHECK_OK(grGraphRetainUserObject(g, oa, 2, 0));
    /* A move: the application's reference becomes the graph's. */
    CHECK_OK(grGraphRetainUserObject(g, ob, 1, grGraphUserObjectMove));
    CHECK_OK(grUserObjectRelease(oa, 1));
    CHECK_OK(grGraphReleaseUserObject(g, oa, 1));
    flush();
    CHECK_EQ(atomic_load(&a.runs), 0);
    CHECK_EQ(atomic_load(&b.runs), 0);
    CHECK_OK(grGraphDestroy(g));
    CHECK_EQ(atomic_load(&a.runs), 1);
    CHECK_EQ(atomic_load(&b.runs), 1);
    CHECK(pthread_equal(a.thread, pthread_self()));
}

GR_TEST(user_object_clone_and_child_graph_copy_references)
{
    counted c = {0};
    grGraph_t g, clone, parent, inner;
    grGraphNode_t child;
    grUserObject_t o = make(&c, 1);
    g = graph_with_host();
    CHECK_OK(grGraphRetainUserObject(g, o, 1, grGraphUserObjectMove));
    CHECK_OK(grGraphClone(&clone, g));
    CHECK_OK(grGraphCreate(&parent, 0));
    CHECK_OK(grGraphAddChildGraphNode(&child, parent, NULL, 0, g));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(clone));
    flush();
    CHECK_EQ(atomic_load(&c.runs), 0); /* the child graph's copy holds one */
    /* The child graph's references are its own: released there. */
    CHECK_OK(grGraphChildGraphNodeGetGraph(child, &inner));
    CHECK_GR(grErrorInvalidValue, grGraphReleaseUserObject(parent, o, 1));
    CHECK_OK(grGraphReleaseUserObject(inner, o, 1));
    CHECK_EQ(atomic_load(&c.runs), 1);
    CHECK_OK(grGraphDestroy(parent));
}

GR_TEST(user_object_child_graph_node_destroy_releases)
{
    counted c = {0};
    grGraph_t g = graph_with_host(), parent;
    grGraphNode_t child;
    grUserObject_t o = make(&c, 1);
    CHECK_OK(grGraphRetainUserObject(g, o, 1, grGraphUserObjectMove));
    CHECK_OK(grGraphCreate(&parent, 0));
    CHECK_OK(grGraphAddChildGraphNode(&child, parent, NULL, 0, g));
    CHECK_OK(grGraphDestroy(g));
    flush();
    CHECK_EQ(atomic_load(&c.runs), 0);
    CHECK_OK(grGraphDestroyNode(child));
    CHECK_EQ(atomic_load(&c.runs), 1);
    CHECK_OK(grGraphDestroy(parent));
}

GR_TEST(user_object_executable_holds_references_until_destroyed)
{
    counted own = {0}, nested = {0};
    grGraph_t g = graph_with_host(), sub = graph_with_host();
    grGraphNode_t child;
    grGraphExec_t e;
    grStream_t s;
    grUserObject_t o1 = make(&own, 1), o2 = make(&nested, 1);
    CHECK_OK(grGraphRetainUserObject(g, o1, 1, grGraphUserObjectMove));
    CHECK_OK(grGraphRetainUserObject(sub, o2, 1, grGraphUserObjectMove));
    CHECK_OK(grGraphAddChildGraphNode(&child, g, NULL, 0, sub));
    CHECK_OK(grGraphDestroy(sub));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    flush();
    CHECK_EQ(atomic_load(&own.runs), 0);
    CHECK_EQ(atomic_load(&nested.runs), 0);
    CHECK_OK(grGraphExecDestroy(e));
    /* Nothing in flight: destroyed by the destroy, although the stream
     * still caches the executable. */
    CHECK_EQ(atomic_load(&own.runs), 1);
    CHECK_EQ(atomic_load(&nested.runs), 1);
    CHECK_OK(grStreamDestroy(s));
}

/* A host node that waits until the test lets it go. */
static atomic_int gate_open, gate_reached;

static void gate_host(void *p)
{
    (void)p;
    atomic_store(&gate_reached, 1);
    tl_wait_gate(&gate_open);
}

GR_TEST(user_object_launch_in_flight_keeps_references_after_exec_destroy)
{
    counted c = {0};
    grGraph_t g;
    grGraphNode_t n;
    grGraphExec_t e;
    grStream_t s;
    grHostNodeParams hp = {gate_host, NULL};
    grUserObject_t o = make(&c, 1);
    atomic_store(&gate_open, 0);
    atomic_store(&gate_reached, 0);
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddHostNode(&n, g, NULL, 0, &hp));
    CHECK_OK(grGraphRetainUserObject(g, o, 1, grGraphUserObjectMove));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK(tl_wait_until(&gate_reached, 1, TL_WAIT_MS));
    CHECK_OK(grGraphExecDestroy(e));
    flush();
    CHECK_EQ(atomic_load(&c.runs), 0); /* two launches still to finish */
    atomic_store(&gate_open, 1);
    CHECK_OK(grStreamSynchronize(s));
    wait_run(&c);
    flush();
    CHECK_EQ(atomic_load(&c.runs), 1);
    /* The last reference went behind the launch: the destructor thread. */
    CHECK(!pthread_equal(c.thread, pthread_self()));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(user_object_exec_update_replaces_references)
{
    counted a = {0}, b = {0};
    grGraph_t ga = graph_with_host(), gb = graph_with_host();
    grGraphExec_t e;
    grGraphExecUpdateResultInfo info;
    grUserObject_t oa = make(&a, 1), ob = make(&b, 1);
    CHECK_OK(grGraphRetainUserObject(ga, oa, 1, grGraphUserObjectMove));
    CHECK_OK(grGraphRetainUserObject(gb, ob, 1, grGraphUserObjectMove));
    CHECK_OK(grGraphInstantiate(&e, ga, 0));
    CHECK_OK(grGraphDestroy(ga));
    flush();
    CHECK_EQ(atomic_load(&a.runs), 0);
    CHECK_OK(grGraphExecUpdate(e, gb, &info));
    CHECK_EQ(atomic_load(&a.runs), 1); /* the executable gave up ga's references */
    CHECK_OK(grGraphDestroy(gb));
    flush();
    CHECK_EQ(atomic_load(&b.runs), 0); /* and holds gb's */
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_EQ(atomic_load(&b.runs), 1);
}

GR_TEST(user_object_exec_child_set_params_replaces_that_childs_references)
{
    counted top = {0}, old_child = {0}, new_child = {0};
    grGraph_t g = graph_with_host(), c1 = graph_with_host(), c2 = graph_with_host();
    grGraphNode_t child;
    grGraphExec_t e;
    grUserObject_t ot = make(&top, 1), o1 = make(&old_child, 1), o2 = make(&new_child, 1);
    CHECK_OK(grGraphRetainUserObject(g, ot, 1, grGraphUserObjectMove));
    CHECK_OK(grGraphRetainUserObject(c1, o1, 1, grGraphUserObjectMove));
    CHECK_OK(grGraphRetainUserObject(c2, o2, 1, grGraphUserObjectMove));
    CHECK_OK(grGraphAddChildGraphNode(&child, g, NULL, 0, c1));
    CHECK_OK(grGraphDestroy(c1));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphExecChildGraphNodeSetParams(e, child, c2));
    CHECK_EQ(atomic_load(&old_child.runs), 1);
    CHECK_OK(grGraphDestroy(c2));
    flush();
    CHECK_EQ(atomic_load(&top.runs), 0);
    CHECK_EQ(atomic_load(&new_child.runs), 0);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_EQ(atomic_load(&top.runs), 1);
    CHECK_EQ(atomic_load(&new_child.runs), 1);
    CHECK_EQ(atomic_load(&old_child.runs), 1);
}

/* A destructor that calls graphrt: frees memory and waits for a stream
 * (CUDA forbids CUDA calls in destructors; graphrt runs them on a thread
 * that holds no lock, so these cannot deadlock). */
typedef struct res {
    void *mem;
    grStream_t s;
    atomic_int done;
    grError_t free_err, sync_err;
} res;

static void res_destroy(void *p)
{
    res *r = p;
    r->sync_err = grStreamSynchronize(r->s);
    r->free_err = grFree(r->mem);
    atomic_store(&r->done, 1);
}

GR_TEST(user_object_destructor_may_call_graphrt)
{
    res r = {0};
    grUserObject_t o;
    grGraph_t g = graph_with_host();
    grGraphExec_t e;
    CHECK_OK(grMalloc(&r.mem, 4096));
    CHECK_OK(grStreamCreate(&r.s));
    CHECK_OK(grUserObjectCreate(&o, &r, res_destroy, 1, grUserObjectNoDestructorSync));
    CHECK_OK(grGraphRetainUserObject(g, o, 1, grGraphUserObjectMove));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphLaunch(e, r.s));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK(tl_wait_until(&r.done, 1, TL_WAIT_MS));
    CHECK_EQ(r.sync_err, grSuccess);
    CHECK_EQ(r.free_err, grSuccess);
    CHECK_OK(grStreamDestroy(r.s));
}

/* The last reference released by a host function, on a worker: the
 * destructor runs before that release returns, on the same thread. */
typedef struct released {
    grUserObject_t o;
    counted *c;
    int runs_after;
    pthread_t thread;
} released;

static void release_host(void *p)
{
    released *r = p;
    r->thread = pthread_self();
    if (grUserObjectRelease(r->o, 1) == grSuccess)
        r->runs_after = atomic_load(&r->c->runs);
}

GR_TEST(user_object_released_by_a_host_function_runs_there)
{
    counted c = {0};
    released r = {make(&c, 1), &c, -1, pthread_self()};
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grLaunchHostFunc(s, release_host, &r));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(r.runs_after, 1);
    CHECK(pthread_equal(c.thread, r.thread));
    CHECK_OK(grStreamDestroy(s));
}

#define UOBJ_THREADS 4
#define UOBJ_ROUNDS 200

typedef struct hammer {
    grUserObject_t o;
    atomic_int failures;
} hammer;

static void *hammer_main(void *p)
{
    hammer *h = p;
    for (int i = 0; i < UOBJ_ROUNDS; i++) {
        grGraph_t g, clone;
        grGraphExec_t e;
        if (grUserObjectRetain(h->o, 2) != grSuccess || grGraphCreate(&g, 0) != grSuccess ||
            grGraphRetainUserObject(g, h->o, 1, grGraphUserObjectMove) != grSuccess ||
            grGraphClone(&clone, g) != grSuccess || grGraphInstantiate(&e, clone, 0) != grSuccess ||
            grGraphDestroy(g) != grSuccess || grGraphDestroy(clone) != grSuccess ||
            grGraphExecDestroy(e) != grSuccess || grUserObjectRelease(h->o, 1) != grSuccess)
            atomic_fetch_add(&h->failures, 1);
    }
    return NULL;
}

GR_TEST(user_object_references_from_many_threads)
{
    counted c = {0};
    hammer h = {make(&c, 1), 0};
    pthread_t t[UOBJ_THREADS];
    for (int i = 0; i < UOBJ_THREADS; i++)
        CHECK_EQ(pthread_create(&t[i], NULL, hammer_main, &h), 0);
    for (int i = 0; i < UOBJ_THREADS; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ(atomic_load(&h.failures), 0);
    flush();
    CHECK_EQ(atomic_load(&c.runs), 0);
    CHECK_OK(grUserObjectRelease(h.o, 1));
    wait_run(&c);
    flush();
    CHECK_EQ(atomic_load(&c.runs), 1);
}

/* A destructor that releases the last reference of another object: the
 * nested release runs that destructor too, before the outer call returns. */
typedef struct chain_link {
    grUserObject_t next;
    counted *c;
} chain_link;

static void chain_destroy(void *p)
{
    chain_link *l = p;
    atomic_fetch_add(&l->c->runs, 1);
    if (l->next)
        (void)grUserObjectRelease(l->next, 1);
}

GR_TEST(user_object_destructor_releasing_another_runs_both)
{
    counted a = {0}, b = {0};
    chain_link lb = {NULL, &b};
    grUserObject_t ob, oa;
    CHECK_OK(grUserObjectCreate(&ob, &lb, chain_destroy, 1, grUserObjectNoDestructorSync));
    chain_link la = {ob, &a};
    CHECK_OK(grUserObjectCreate(&oa, &la, chain_destroy, 1, grUserObjectNoDestructorSync));
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphRetainUserObject(g, oa, 1, grGraphUserObjectMove));
    CHECK_OK(grGraphDestroy(g));
    CHECK_EQ(atomic_load(&a.runs), 1);
    CHECK_EQ(atomic_load(&b.runs), 1);
}

#define UOBJ_OBJECTS 64

typedef struct last_refs {
    grUserObject_t o[UOBJ_OBJECTS];
    grGraphExec_t e[UOBJ_OBJECTS];
    int first;
} last_refs;

static void *drop_last_refs(void *p)
{
    last_refs *l = p;
    for (int i = l->first; i < UOBJ_OBJECTS; i += 2) {
        /* Half through an executable destroyed after a launch, half
         * directly: destructors run inline and on the destructor thread
         * at the same time. */
        if (i % 4 < 2) {
            (void)grGraphExecDestroy(l->e[i]);
        } else {
            (void)grGraphExecDestroy(l->e[i]);
            (void)grUserObjectRelease(l->o[i], 1);
        }
    }
    return NULL;
}

GR_TEST(user_object_last_references_dropped_from_two_threads)
{
    static counted c[UOBJ_OBJECTS];
    last_refs l0, l1;
    pthread_t t;
    grStream_t s;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    for (int i = 0; i < UOBJ_OBJECTS; i++) {
        atomic_store(&c[i].runs, 0);
        grGraph_t g = graph_with_host();
        l0.o[i] = make(&c[i], 1);
        CHECK_OK(grUserObjectRetain(l0.o[i], 1));
        CHECK_OK(grGraphRetainUserObject(g, l0.o[i], 1, grGraphUserObjectMove));
        CHECK_OK(grGraphInstantiate(&l0.e[i], g, 0));
        CHECK_OK(grGraphDestroy(g));
        if (i % 4 < 2) /* these hold only the executable's reference */
            CHECK_OK(grUserObjectRelease(l0.o[i], 1));
        CHECK_OK(grGraphLaunch(l0.e[i], s));
    }
    l1 = l0;
    l0.first = 0;
    l1.first = 1;
    CHECK_EQ(pthread_create(&t, NULL, drop_last_refs, &l1), 0);
    drop_last_refs(&l0);
    pthread_join(t, NULL);
    CHECK_OK(grStreamSynchronize(s));
    for (int i = 0; i < UOBJ_OBJECTS; i++)
        wait_run(&c[i]);
    flush();
    for (int i = 0; i < UOBJ_OBJECTS; i++)
        CHECK_EQ(atomic_load(&c[i].runs), 1);
    CHECK_OK(grStreamDestroy(s));
}

typedef struct updater {
    grGraphExec_t e;
    grGraph_t g;
    atomic_int *failures;
} updater;

static void *update_loop(void *p)
{
    updater *u = p;
    for (int i = 0; i < 200; i++) {
        grGraphExecUpdateResultInfo info;
        if (grGraphExecUpdate(u->e, u->g, &info) != grSuccess)
            atomic_fetch_add(u->failures, 1);
    }
    return NULL;
}

/* Two threads updating one executable from graphs that hold user objects:
 * the executable's table of references was swapped after the update's
 * write section, so two updates wrote it at once (TSan saw the race in
 * the multithreaded API fuzzer). */
GR_TEST(user_object_concurrent_updates_of_one_executable_swap_references_in_turn)
{
    counted c1 = {0}, c2 = {0};
    grGraph_t g1 = graph_with_host(), g2 = graph_with_host();
    grGraphExec_t e;
    atomic_int failures = 0;
    grUserObject_t o1 = make(&c1, 1), o2 = make(&c2, 1);
    CHECK_OK(grGraphRetainUserObject(g1, o1, 1, grGraphUserObjectMove));
    CHECK_OK(grGraphRetainUserObject(g2, o2, 1, grGraphUserObjectMove));
    CHECK_OK(grGraphInstantiate(&e, g1, 0));
    updater u1 = {e, g1, &failures}, u2 = {e, g2, &failures};
    pthread_t t1, t2;
    CHECK(pthread_create(&t1, NULL, update_loop, &u1) == 0);
    CHECK(pthread_create(&t2, NULL, update_loop, &u2) == 0);
    CHECK(pthread_join(t1, NULL) == 0);
    CHECK(pthread_join(t2, NULL) == 0);
    CHECK_EQ(atomic_load(&failures), 0);
    CHECK_OK(grGraphDestroy(g1));
    CHECK_OK(grGraphDestroy(g2));
    CHECK_OK(grGraphExecDestroy(e));
    flush();
    CHECK_EQ(atomic_load(&c1.runs), 1);
    CHECK_EQ(atomic_load(&c2.runs), 1);
}
