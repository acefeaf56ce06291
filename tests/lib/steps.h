/*
 * steps.h - host functions that log their order, for tests of stream and
 * event ordering: a step waits (at most 5 s) for its gate, if it has one,
 * then appends its id to the log. A test holds work back behind a gate,
 * checks what ran, opens the gate and checks the order; every wait is
 * bounded, so an ordering bug fails the test instead of hanging it.
 */
#ifndef GR_TEST_STEPS_H
#define GR_TEST_STEPS_H

#include <stdatomic.h>
#include <unistd.h>

#define LOG_MAX 64

static atomic_int log_n;
static atomic_int log_ids[LOG_MAX];
static atomic_int gate_timeouts;

static atomic_flag log_lock = ATOMIC_FLAG_INIT;

/* The id is stored before the count that makes it visible, under a lock
 * so that two steps logging at once keep the count and the ids in step. */
static inline void log_id(int id)
{
    while (atomic_flag_test_and_set(&log_lock))
        ;
    int i = atomic_load(&log_n);
    if (i < LOG_MAX)
        atomic_store(&log_ids[i], id);
    atomic_store(&log_n, i + 1);
    atomic_flag_clear(&log_lock);
}

/* A host function's argument: wait for 'gate' (if any), then log 'id'. */
typedef struct step {
    atomic_int *gate;
    int id;
} step;

static inline void gated_step(void *p)
{
    step *st = p;
    if (st->gate) {
        int waited = 0;
        while (!atomic_load(st->gate)) {
            if (++waited > 5000) {
                atomic_fetch_add(&gate_timeouts, 1);
                break;
            }
            usleep(1000);
        }
    }
    log_id(st->id);
}

/* Polls (without helping to run work) until n ids are logged; 0 on
 * timeout. */
static inline int wait_logged(int n, int ms)
{
    for (int i = 0; i < ms; i++) {
        if (atomic_load(&log_n) >= n)
            return 1;
        usleep(1000);
    }
    return atomic_load(&log_n) >= n;
}

static inline int logged(int i)
{
    return atomic_load(&log_ids[i]);
}

/* Opens 'gate', waits (at most 5 s) until n ids are logged and checks
 * that the first n are ids[0..n), in that order. */
static inline void open_gate_expect_log(atomic_int *gate, int n, const int *ids)
{
    atomic_store(gate, 1);
    if (!wait_logged(n, 5000))
        GR_TEST_FAIL_("%d of %d steps logged after the gate opened", atomic_load(&log_n), n);
    for (int i = 0; i < n; i++)
        if (logged(i) != ids[i])
            GR_TEST_FAIL_("step %d logged id %d, expected %d", i, logged(i), ids[i]);
}

#endif /* GR_TEST_STEPS_H */
