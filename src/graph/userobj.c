/*
 * userobj.c - user objects (grUserObjectCreate, Retain, Release), the
 * references graphs hold of them (grGraphRetainUserObject,
 * grGraphReleaseUserObject, copied by clones, released with the graph),
 * and the destructor thread.
 *
 * Invariants:
 *   - an object's count is the sum of the references the application,
 *     graphs and executables hold; it only falls to zero once, by the
 *     release that drops the last reference, which kills the handle and
 *     queues the destructor: a count of zero is never raised again (a
 *     retain reads it with a CAS and refuses zero);
 *   - a destructor runs with no graphrt lock held: at the end of the
 *     entry point whose inline scope saw the count reach zero (as CUDA
 *     does), or else on the destructor thread, one at a time in queue
 *     order (the queue's lock is dropped around each call); the object's
 *     shell is retired after its destructor returned;
 *   - a graph's table holds at most one entry per object (tag 0).
 * Lock order: the queue's lock is a leaf (nothing is taken under it).
 */
#include "graph.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

/* Counts above this are refused: far beyond any real use, and it keeps
 * the sum of a retain below overflow. */
#define GR_UOBJ_MAX_REFS (1ull << 62)

static gr_shelf uobj_shelf = GR_SHELF_INIT(sizeof(struct grUserObject_st));

/* Set by the first grUserObjectCreate; a relaxed flag, since a graph
 * holding a reference was given it after the create, by the same thread
 * or through the application's own synchronisation. */
static atomic_bool uobj_created;

bool gr__uobj_any(void)
{
    return gr_load_relaxed(&uobj_created);
}

/* ------------------------------------------------- the destructor thread */

static pthread_mutex_t reap_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reap_cond = PTHREAD_COND_INITIALIZER;
/* The queue of objects whose destructor is due, oldest first, and the
 * process that started the thread (a fork's child starts its own): all
 * guarded by reap_lock. */
static struct grUserObject_st *reap_head, *reap_tail;
static pid_t reaper_pid;

static void *reaper_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&reap_lock);
    for (;;) {
        while (reap_head == NULL)
            pthread_cond_wait(&reap_cond, &reap_lock);
        struct grUserObject_st *o = reap_head;
        reap_head = o->next_dead;
        if (reap_head == NULL)
            reap_tail = NULL;
        pthread_mutex_unlock(&reap_lock);
        /* User code, with no graphrt lock held: it may call graphrt. */
        o->destroy(o->ptr);
        gr__shell_retire(&uobj_shelf, o);
        pthread_mutex_lock(&reap_lock);
    }
    return NULL;
}

/* Starts the destructor thread of this process if none runs yet. */
static bool reaper_ensure(void)
{
    bool ok = true;
    pid_t me = getpid();
    pthread_mutex_lock(&reap_lock);
    if (reaper_pid != me) {
        pthread_t t;
        pthread_attr_t attr;
        ok = pthread_attr_init(&attr) == 0;
        if (ok) {
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            ok = pthread_create(&t, &attr, reaper_main, NULL) == 0;
            pthread_attr_destroy(&attr);
        }
        if (ok) {
            reaper_pid = me;
            /* A fork's child inherits no thread: what the parent had
             * queued is the parent's to run. */
            reap_head = reap_tail = NULL;
        }
    }
    pthread_mutex_unlock(&reap_lock);
    return ok;
}

static void reaper_queue(struct grUserObject_st *o)
{
    o->next_dead = NULL;
    pthread_mutex_lock(&reap_lock);
    if (reap_tail)
        reap_tail->next_dead = o;
    else
        reap_head = o;
    reap_tail = o;
    pthread_cond_signal(&reap_cond);
    pthread_mutex_unlock(&reap_lock);
}

/* --------------------------------------------- destructors run inline
 *
 * CUDA runs a destructor on the calling thread, before the call returns,
 * when the count reaches zero in grUserObjectRelease,
 * grGraphReleaseUserObject, grGraphDestroy or the destroy of an idle
 * executable (a probe of CUDA 13 measured it). Those entry points open an
 * inline scope: a count reaching zero inside it puts the object on the
 * thread's due list, and the scope's end, where the entry point holds no
 * graphrt lock any more, runs the list. A count reaching zero anywhere
 * else (a worker, a stream operation, a lock held) goes to the
 * destructor thread.
 */
static _Thread_local unsigned tls_inline;
static _Thread_local struct grUserObject_st *tls_due_head, *tls_due_tail;

void gr__uobj_inline_begin(void)
{
    tls_inline++;
}

void gr__uobj_inline_end(void)
{
    if (--tls_inline != 0)
        return;
    /* Depth 0 while destructors run: one that calls graphrt runs what
     * its own calls make due at their end. */
    while (tls_due_head != NULL) {
        struct grUserObject_st *o = tls_due_head;
        tls_due_head = o->next_dead;
        if (tls_due_head == NULL)
            tls_due_tail = NULL;
        o->destroy(o->ptr);
        gr__shell_retire(&uobj_shelf, o);
    }
}

/* The count of o reached zero: its handle dies and its destructor is due. */
static void uobj_due(struct grUserObject_st *o)
{
    o->magic = GR_MAGIC_DEAD;
    if (tls_inline == 0) {
        reaper_queue(o);
        return;
    }
    o->next_dead = NULL;
    if (tls_due_tail)
        tls_due_tail->next_dead = o;
    else
        tls_due_head = o;
    tls_due_tail = o;
}

/* ------------------------------------------------------------ objects */

grError_t gr__uobj_check(const char *call, grUserObject_t o)
{
    if (o == NULL)
        return gr__fail(grErrorInvalidValue,
                        "%s: the user object is NULL; pass one made by grUserObjectCreate", call);
    if (o->magic != GR_MAGIC_USEROBJ)
        return gr__fail(grErrorInvalidValue,
                        "%s: %p is not a live user object (its last reference was released, or it is not "
                        "a grUserObject_t); pass one made by grUserObjectCreate that still has references",
                        call, GR_PTR(o));
    return grSuccess;
}

void gr__uobj_retain_n(struct grUserObject_st *o, uint64_t n)
{
    gr_fetch_add_relaxed(&o->refs, n);
}

void gr__uobj_release_n(struct grUserObject_st *o, uint64_t n)
{
    /* Release order publishes the holder's use of the resource to the
     * destructor; the acquire of the last drop pairs with it. */
    if (gr_fetch_sub_acq_rel(&o->refs, n) == n)
        uobj_due(o);
}

/* Retains count references of o unless its count reached zero meanwhile
 * (then the handle is dead): a CAS, so that zero is never raised. */
static grError_t uobj_retain_live(const char *call, struct grUserObject_st *o, uint64_t count)
{
    uint64_t r = gr_load_relaxed(&o->refs);
    do {
        if (r == 0)
            return gr__fail(grErrorInvalidValue,
                            "%s: user object %p has no references left (its destructor is queued or ran)",
                            call, GR_PTR(o));
        if (r + count > GR_UOBJ_MAX_REFS)
            return gr__fail(grErrorInvalidValue,
                            "%s: user object %p has %llu references; %llu more would pass graphrt's limit "
                            "of 2^62",
                            call, GR_PTR(o), (unsigned long long)r, (unsigned long long)count);
    } while (!gr_cas_weak_relaxed(&o->refs, &r, r + count));
    return grSuccess;
}

GR_API grError_t grUserObjectCreate(grUserObject_t *object_out, void *ptr, grHostFn_t destroy,
                                    unsigned int initialRefcount, unsigned int flags)
{
    static const char call[] = "grUserObjectCreate";
    struct grUserObject_st *o;
    if (object_out == NULL)
        return gr__fail(grErrorInvalidValue, "%s: object_out is NULL; pass where to store the user object",
                        call);
    if (destroy == NULL)
        return gr__fail(grErrorInvalidValue, "%s: destroy is NULL; pass the function that frees the resource",
                        call);
    if (initialRefcount == 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: initialRefcount is 0; an object is created with at least one reference", call);
    if (flags != grUserObjectNoDestructorSync)
        return gr__fail(grErrorInvalidValue,
                        "%s: flags is 0x%x; pass grUserObjectNoDestructorSync, which CUDA requires too", call,
                        flags);
    if (!reaper_ensure())
        return gr__fail(grErrorMemoryAllocation, "%s: the destructor thread could not be started", call);
    o = gr__shell_alloc(&uobj_shelf);
    if (o == NULL)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory allocating a user object", call);
    memset(o, 0, sizeof *o);
    atomic_init(&o->refs, initialRefcount);
    o->ptr = ptr;
    o->destroy = destroy;
    o->magic = GR_MAGIC_USEROBJ;
    gr_store_relaxed(&uobj_created, true);
    *object_out = o;
    return grSuccess;
}

GR_API grError_t grUserObjectRetain(grUserObject_t object, unsigned int count)
{
    static const char call[] = "grUserObjectRetain";
    grError_t err;
    if ((err = gr__uobj_check(call, object)) != grSuccess)
        return err;
    if (count == 0)
        return gr__fail(grErrorInvalidValue, "%s: count is 0; retain at least one reference", call);
    return uobj_retain_live(call, object, count);
}

GR_API grError_t grUserObjectRelease(grUserObject_t object, unsigned int count)
{
    static const char call[] = "grUserObjectRelease";
    grError_t err;
    if ((err = gr__uobj_check(call, object)) != grSuccess)
        return err;
    if (count == 0)
        return gr__fail(grErrorInvalidValue, "%s: count is 0; release at least one reference", call);
    /* Refused, not wrapped, when more than is left: a CAS, so that the
     * check and the drop are one step against other releases. */
    uint64_t r = gr_load_relaxed(&object->refs);
    do {
        if (count > r)
            return gr__fail(grErrorInvalidValue,
                            "%s: count is %u but user object %p has %llu references left (the application's, "
                            "graphs' and executables' together); release only references you hold",
                            call, count, GR_PTR(object), (unsigned long long)r);
    } while (!gr_cas_weak_release(&object->refs, &r, r - count));
    if (r == count) {
        gr_fence_acquire(); /* pairs with the other holders' release drops */
        gr__uobj_inline_begin();
        uobj_due(object);
        gr__uobj_inline_end();
    }
    return grSuccess;
}

/* ---------------------------------------------------- reference tables */

bool gr__urefs_add(struct gr_urefs *r, struct grUserObject_st *o, uint64_t count, uint32_t tag)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].obj == o && r->v[i].tag == tag) {
            r->v[i].count += count;
            return true;
        }
    if (r->n == r->cap) {
        size_t ncap = r->cap ? r->cap * 2 : 4;
        gr_uref *nv = gr__realloc(r->v, ncap * sizeof *nv);
        if (nv == NULL)
            return false;
        r->v = nv;
        r->cap = ncap;
    }
    r->v[r->n++] = (gr_uref){o, count, tag};
    return true;
}

bool gr__urefs_append(struct gr_urefs *dst, const struct gr_urefs *src, uint32_t tag)
{
    for (size_t i = 0; i < src->n; i++) {
        if (!gr__urefs_add(dst, src->v[i].obj, src->v[i].count, tag))
            return false;
        gr__uobj_retain_n(src->v[i].obj, src->v[i].count);
    }
    return true;
}

bool gr__urefs_collect(struct gr_urefs *dst, grGraph_t g, uint32_t tag)
{
    struct grGraphNode_st *n;
    bool ok = gr__urefs_append(dst, &g->urefs, tag);
    GR_GRAPH_FOR_EACH_NODE (g, n) {
        if (ok && n->type == grGraphNodeTypeGraph)
            ok = gr__urefs_collect(dst, n->p.child, tag);
        for (uint32_t b = 0; ok && n->type == grGraphNodeTypeConditional && b < n->p.cond.nbodies; b++)
            ok = gr__urefs_collect(dst, n->p.cond.bodies[b], tag);
    }
    return ok;
}

void gr__urefs_release_all(struct gr_urefs *r)
{
    for (size_t i = 0; i < r->n; i++)
        gr__uobj_release_n(r->v[i].obj, r->v[i].count);
    gr__free(r->v);
    memset(r, 0, sizeof *r);
}

bool gr__urefs_take_tag(struct gr_urefs *r, uint32_t tag, struct gr_urefs *out)
{
    size_t kept = 0;
    if (out) {
        size_t want = out->n;
        for (size_t i = 0; i < r->n; i++)
            want += r->v[i].tag == tag;
        if (want > out->cap) {
            gr_uref *nv = gr__realloc(out->v, want * sizeof *nv);
            if (nv == NULL)
                return false;
            out->v = nv;
            out->cap = want;
        }
    }
    for (size_t i = 0; i < r->n; i++) {
        if (r->v[i].tag != tag)
            r->v[kept++] = r->v[i];
        else if (out)
            out->v[out->n++] = r->v[i];
        else
            gr__uobj_release_n(r->v[i].obj, r->v[i].count);
    }
    r->n = kept;
    return true;
}

/* ------------------------------------------------------ graphs' references */

GR_API grError_t grGraphRetainUserObject(grGraph_t graph, grUserObject_t object, unsigned int count,
                                         unsigned int flags)
{
    static const char call[] = "grGraphRetainUserObject";
    grError_t err;
    if ((err = gr__graph_check(call, graph)) != grSuccess ||
        (err = gr__uobj_check(call, object)) != grSuccess)
        return err;
    if (count == 0)
        return gr__fail(grErrorInvalidValue, "%s: count is 0; retain at least one reference", call);
    if (flags & ~(unsigned int)grGraphUserObjectMove)
        return gr__fail(grErrorInvalidValue, "%s: flags is 0x%x; pass 0 or grGraphUserObjectMove", call,
                        flags);
    /* A move of more references than the object has cannot be the
     * caller's (CUDA does not check; its count would wrap here). */
    if ((flags & grGraphUserObjectMove) && gr_load_relaxed(&object->refs) < count)
        return gr__fail(grErrorInvalidValue,
                        "%s: moving %u references of user object %p, which has %llu; move only references "
                        "you hold",
                        call, count, GR_PTR(object), (unsigned long long)gr_load_relaxed(&object->refs));
    /* The entry first, so that a refusal below leaves nothing to undo but
     * the count just added. */
    if (!gr__urefs_add(&graph->urefs, object, count, 0))
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory recording the reference in graph %p",
                        call, GR_PTR(graph));
    if (!(flags & grGraphUserObjectMove) && (err = uobj_retain_live(call, object, count)) != grSuccess) {
        for (size_t i = 0; i < graph->urefs.n; i++)
            if (graph->urefs.v[i].obj == object) {
                graph->urefs.v[i].count -= count;
                if (graph->urefs.v[i].count == 0)
                    graph->urefs.v[i] = graph->urefs.v[--graph->urefs.n];
                break;
            }
        return err;
    }
    return grSuccess;
}

GR_API grError_t grGraphReleaseUserObject(grGraph_t graph, grUserObject_t object, unsigned int count)
{
    static const char call[] = "grGraphReleaseUserObject";
    grError_t err;
    if ((err = gr__graph_check(call, graph)) != grSuccess ||
        (err = gr__uobj_check(call, object)) != grSuccess)
        return err;
    if (count == 0)
        return gr__fail(grErrorInvalidValue, "%s: count is 0; release at least one reference", call);
    for (size_t i = 0; i < graph->urefs.n; i++) {
        gr_uref *u = &graph->urefs.v[i];
        if (u->obj != object)
            continue;
        if (count > u->count)
            return gr__fail(grErrorInvalidValue,
                            "%s: count is %u but graph %p holds %llu references of user object %p", call,
                            count, GR_PTR(graph), (unsigned long long)u->count, GR_PTR(object));
        u->count -= count;
        if (u->count == 0)
            *u = graph->urefs.v[--graph->urefs.n];
        gr__uobj_inline_begin();
        gr__uobj_release_n(object, count);
        gr__uobj_inline_end();
        return grSuccess;
    }
    return gr__fail(grErrorInvalidValue,
                    "%s: graph %p holds no reference of user object %p (references held by a child graph "
                    "are that graph's: release them there)",
                    call, GR_PTR(graph), GR_PTR(object));
}
