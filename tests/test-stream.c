/* test-stream.c - stream order, synchronisation, queries, host functions. */
#include "test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

static void append(void *p)
{
    int *log = p;
    log[1 + log[0]] = log[0];
    log[0]++;
}

GR_TEST(stream_runs_host_functions_in_issue_order)
{
    static int log[1 + 5000];
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    for (int i = 0; i < 5000; i++)
        CHECK_OK(grLaunchHostFunc(s, append, log));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(log[0], 5000);
    for (int i = 0; i < 5000; i++)
        CHECK_EQ(log[1 + i], i);
    CHECK_OK(grStreamDestroy(s));
}

typedef struct seqlog {
    atomic_int next;
    int order[8][4000];
    int count[8];
} seqlog;
typedef struct op_arg {
    seqlog *l;
    int stream, index;
} op_arg;

static void record_op(void *p)
{
    op_arg *a = p;
    a->l->order[a->stream][a->l->count[a->stream]++] = a->index;
}

GR_TEST(stream_fifo_order_holds_under_load_on_several_streams)
{
    static seqlog l;
    static op_arg args[8][4000];
    grStream_t s[8];
    for (int k = 0; k < 8; k++)
        CHECK_OK(grStreamCreateWithFlags(&s[k], k % 2 ? grStreamNonBlocking : grStreamDefault));
    for (int i = 0; i < 4000; i++)
        for (int k = 0; k < 8; k++) {
            args[k][i] = (op_arg){&l, k, i};
            CHECK_OK(grLaunchHostFunc(s[k], record_op, &args[k][i]));
        }
    CHECK_OK(grDeviceSynchronize());
    for (int k = 0; k < 8; k++) {
        CHECK_EQ(l.count[k], 4000);
        for (int i = 0; i < 4000; i++)
            CHECK_EQ(l.order[k][i], i);
        CHECK_OK(grStreamDestroy(s[k]));
    }
}

static atomic_int gate;
static void wait_gate(void *p)
{
    (void)p;
    while (!atomic_load(&gate))
        usleep(100);
}

GR_TEST(stream_query_reports_not_ready_then_success)
{
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grStreamQuery(s));
    atomic_store(&gate, 0);
    CHECK_OK(grLaunchHostFunc(s, wait_gate, NULL));
    CHECK_GR(grErrorNotReady, grStreamQuery(s));
    /* NotReady is not an error: the last error stays clean. */
    CHECK_EQ(grGetLastError(), grSuccess);
    atomic_store(&gate, 1);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamQuery(s));
    CHECK_OK(grStreamDestroy(s));
}

static void set_flag(void *p)
{
    usleep(20000);
    atomic_store((atomic_int *)p, 1);
}

GR_TEST(stream_destroy_with_work_in_flight_completes_the_work)
{
    static atomic_int flag;
    grStream_t s;
    grEvent_t e;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grEventCreate(&e));
    CHECK_OK(grLaunchHostFunc(s, set_flag, &flag));
    CHECK_OK(grEventRecord(e, s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_GR(grErrorInvalidResourceHandle, grStreamSynchronize(s));
    CHECK_OK(grEventSynchronize(e));
    CHECK_EQ(atomic_load(&flag), 1);
    CHECK_OK(grEventDestroy(e));
}

static atomic_int cross_flag;
static int cross_seen = -1;
static void copy_flag(void *p)
{
    (void)p;
    cross_seen = atomic_load(&cross_flag);
}

GR_TEST(event_orders_work_across_streams)
{
    grStream_t a, b;
    grEvent_t e;
    CHECK_OK(grStreamCreateWithFlags(&a, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&b, grStreamNonBlocking));
    CHECK_OK(grEventCreateWithFlags(&e, grEventDisableTiming));
    CHECK_OK(grLaunchHostFunc(a, set_flag, &cross_flag));
    CHECK_OK(grEventRecord(e, a));
    CHECK_OK(grStreamWaitEvent(b, e, 0));
    CHECK_OK(grLaunchHostFunc(b, copy_flag, NULL));
    CHECK_OK(grStreamSynchronize(b));
    CHECK_EQ(cross_seen, 1);
    CHECK_OK(grStreamDestroy(a));
    CHECK_OK(grStreamDestroy(b));
    CHECK_OK(grEventDestroy(e));
}
