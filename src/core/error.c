/*
 * error.c - error names and strings (expanded from GR_ERROR_LIST), the
 * thread's last error, and the last-error detail sentence.
 *
 * Invariant: the last error and the detail are thread-local and written
 * only by gr__fail_at / gr__fail_again; grGetLastError resets the code but
 * keeps the sentence, so a caller can still explain an error it took.
 */
#include "core.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GR_DETAIL_MAX 1024

static _Thread_local grError_t tls_last_error = grSuccess;
static _Thread_local char tls_detail[GR_DETAIL_MAX];

GR_API const char *grGetErrorName(grError_t error)
{
    switch (error) {
#define GR_ERROR_NAME_(name, text) \
    case name:                     \
        return #name;
        GR_ERROR_LIST(GR_ERROR_NAME_)
#undef GR_ERROR_NAME_
    }
    return "unrecognized error code";
}

GR_API const char *grGetErrorString(grError_t error)
{
    switch (error) {
#define GR_ERROR_TEXT_(name, text) \
    case name:                     \
        return text;
        GR_ERROR_LIST(GR_ERROR_TEXT_)
#undef GR_ERROR_TEXT_
    }
    return "unrecognized error code";
}

GR_API grError_t grGetLastError(void)
{
    grError_t e = tls_last_error;
    tls_last_error = grSuccess;
    return e;
}

GR_API grError_t grPeekAtLastError(void)
{
    return tls_last_error;
}

GR_API const char *grGetLastErrorDetail(void)
{
    return tls_detail;
}

grError_t gr__fail_at(grError_t err, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    tls_last_error = err;
    va_start(ap, fmt);
    int n = vsnprintf(tls_detail, sizeof tls_detail, fmt, ap);
    va_end(ap);
#if GR_DEBUG
    if (n >= 0 && (size_t)n < sizeof tls_detail)
        snprintf(tls_detail + n, sizeof tls_detail - (size_t)n, " [%s:%d]", file, line);
#else
    (void)n;
    (void)file;
    (void)line;
#endif
    return err;
}

grError_t gr__fail_again(grError_t err)
{
    tls_last_error = err;
    return err;
}

#if GR_DEBUG
static struct {
    pthread_once_t once;
    char site[64];
    unsigned long us;
} pause_knob = {PTHREAD_ONCE_INIT, "", 0};

static void pause_knob_read(void)
{
    const char *v = getenv("GRAPHRT_DEBUG_PAUSE");
    const char *colon = v ? strchr(v, ':') : NULL;
    if (!colon || (size_t)(colon - v) >= sizeof pause_knob.site)
        return;
    memcpy(pause_knob.site, v, (size_t)(colon - v));
    pause_knob.site[colon - v] = '\0';
    pause_knob.us = strtoul(colon + 1, NULL, 10);
}

void gr__debug_pause(const char *site)
{
    pthread_once(&pause_knob.once, pause_knob_read);
    if (pause_knob.us && strcmp(site, pause_knob.site) == 0) {
        struct timespec ts = {(time_t)(pause_knob.us / 1000000), (long)(pause_knob.us % 1000000) * 1000};
        nanosleep(&ts, NULL);
    }
}
#endif

void gr__assert_fail(const char *expr, const char *file, int line)
{
    fprintf(stderr, "graphrt: internal assertion failed: %s (%s:%d)\n", expr, file, line);
    abort();
}

uint64_t gr__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void *gr__malloc(size_t size)
{
    return malloc(size ? size : 1);
}

void *gr__calloc(size_t n, size_t size)
{
    return calloc(n ? n : 1, size ? size : 1);
}

void *gr__realloc(void *p, size_t size)
{
    return realloc(p, size ? size : 1);
}

void *gr__aligned_alloc(size_t align, size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, align, size ? size : 1) != 0)
        return NULL;
    return p;
}

void gr__free(void *p)
{
    free(p);
}
