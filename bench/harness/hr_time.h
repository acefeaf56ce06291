/*
 * hr_time.h - the benchmark harness's clock and statistics: a monotonic
 * nanosecond clock, process CPU time, the median / minimum / 90th
 * percentile of a set of timings, and the two repetition policies every
 * bench uses.
 *
 * Part of the one harness under bench/harness/ (graphrt's bench_*.c, the
 * grain programs and the peer runtimes of bench/peers all include it), so
 * that a "median replay" means the same thing in every table. Valid C and
 * C++; everything is static, for one inclusion per program.
 *
 * Invariants: a summary is taken over reps >= 1 timings sorted ascending:
 * med = t[reps / 2], min = t[0], p90 = t[reps * 9 / 10] (the same indices
 * the figures in docs/benchmarks.md were measured with).
 */
#ifndef HR_TIME_H
#define HR_TIME_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>

#define HR_CAST(T, x) ((T)(x)) /* valid in C and C++ */

#if defined(__GNUC__)
#define HR_UNUSED __attribute__((unused))
#define HR_NOINLINE __attribute__((noinline, unused))
#else
#define HR_UNUSED
#define HR_NOINLINE
#endif

static inline uint64_t hr_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* User + system CPU time of the whole process (every thread), in ns. */
static inline uint64_t hr_cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
           ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
}

static HR_UNUSED int hr_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *HR_CAST(const uint64_t *, a), y = *HR_CAST(const uint64_t *, b);
    return x < y ? -1 : x > y;
}

static HR_UNUSED int hr_cmp_double(const void *a, const void *b)
{
    double x = *HR_CAST(const double *, a), y = *HR_CAST(const double *, b);
    return x < y ? -1 : x > y;
}

/* Median of v[0..n-1] (the mean of the middle two when n is even); sorts v. */
static HR_UNUSED double hr_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), hr_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* What a table prints of reps timings. */
typedef struct hr_stats {
    uint64_t med, min, p90, mean;
    int reps;
} hr_stats;

/* Sorts t[0..reps-1] and summarises it. */
static HR_UNUSED hr_stats hr_summarise(uint64_t *t, int reps)
{
    hr_stats s;
    uint64_t sum = 0;
    int i;
    for (i = 0; i < reps; i++)
        sum += t[i];
    qsort(t, (size_t)reps, sizeof(uint64_t), hr_cmp_u64);
    s.med = t[reps / 2];
    s.min = t[0];
    s.p90 = t[(reps * 9) / 10];
    s.mean = sum / (uint64_t)reps;
    s.reps = reps;
    return s;
}

/* Repetitions for a measurement over 'work' units: about a million units in
 * all, never fewer than lo nor more than hi. The overhead tables use it with
 * (50, 2000): 1,000,000 / tasks replays. */
static inline int hr_reps(long work, int lo, int hi)
{
    long r = work > 0 ? 1000000 / work : hi;
    if (r < lo)
        r = lo;
    if (r > hi)
        r = hi;
    return (int)r;
}

/* The grain tables' policy, from one pilot replay of pilot_ns: as many
 * timed replays as fit in budget_ms (at least 11, at most 1000) after
 * 150 ms of warm-up (at least 3 replays, at most 48). */
static HR_UNUSED void hr_plan_reps(uint64_t pilot_ns, double budget_ms, int *nwarm, int *reps)
{
    double est = (double)(pilot_ns ? pilot_ns : 1);
    *reps = (int)(budget_ms * 1e6 / est);
    if (*reps < 11)
        *reps = 11;
    if (*reps > 1000)
        *reps = 1000;
    *nwarm = (int)(150e6 / est);
    if (*nwarm > 48)
        *nwarm = 48;
    if (*nwarm < 3)
        *nwarm = 3;
}

#endif /* HR_TIME_H */
