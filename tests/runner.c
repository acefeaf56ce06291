/*
 * runner.c - runs the registered tests, each in a forked child with a
 * timeout, and prints TAP plus a closing "N passed, N failed, N skipped"
 * line. A test that cannot run here (GR_TEST_SKIP: no GPU, say) is
 * reported as TAP's "ok N - name # SKIP reason" and counted apart: a skip
 * is not a pass.
 *
 * Usage: graphrt_tests [--list] [NAME ...]   (names match exactly or as a
 * prefix; no name runs them all). GRAPHRT_TEST_TIMEOUT_SCALE multiplies
 * every timeout (sanitizer builds are slower).
 */
#include "test.h"

#include "fakedev/fakedev.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct test_entry {
    const char *name, *file;
    gr_test_fn fn;
    int timeout_s;
} test_entry;

/* The exit status of a child that skipped its test, as automake's. */
#define SKIP_STATUS 77

/* The write end of the pipe a child tells its skip reason through. */
static int g_skip_fd = -1;

void gr_test_skip(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n > 0 && g_skip_fd >= 0 && write(g_skip_fd, msg, strlen(msg)) < 0)
        perror("write");
    fflush(stdout);
    fflush(stderr);
    _exit(SKIP_STATUS);
}

int gr_test_device_or_skip(int gpu)
{
    int n = 0;
    if (grGetDeviceCount(&n) != grSuccess)
        GR_TEST_FAIL_("grGetDeviceCount failed: %s", grGetLastErrorDetail());
    if (gpu && n < 2)
        GR_TEST_SKIP("no GPU device: grGetDeviceCount gives %d (the CPU only)", n);
    if (grSetDevice(gpu ? 1 : 0) != grSuccess)
        GR_TEST_FAIL_("grSetDevice(%d) failed: %s", gpu ? 1 : 0, grGetLastErrorDetail());
    return gpu ? 1 : 0;
}

int gr_test_fake_device(void)
{
    return gr_fakedev_active();
}

void gr_test_real_gpu_or_skip(void)
{
    if (gr_fakedev_active())
        GR_TEST_SKIP("needs a real GPU: devices 1..N are the fake device here (tests/fakedev)");
}

static test_entry *g_tests;
static size_t g_ntests, g_cap;

void gr_test_register(const char *name, const char *file, gr_test_fn fn, int timeout_s)
{
    if (g_ntests == g_cap) {
        g_cap = g_cap ? g_cap * 2 : 64;
        g_tests = realloc(g_tests, g_cap * sizeof *g_tests);
        if (!g_tests)
            abort();
    }
    g_tests[g_ntests++] = (test_entry){name, file, fn, timeout_s};
}

static int cmp_test(const void *a, const void *b)
{
    const test_entry *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    return c ? c : strcmp(x->name, y->name);
}

static int selected(const test_entry *t, int argc, char **argv)
{
    int i;
    if (argc <= 1)
        return 1;
    for (i = 1; i < argc; i++)
        if (argv[i][0] != '-' && strncmp(t->name, argv[i], strlen(argv[i])) == 0)
            return 1;
    return 0;
}

#if defined(__SANITIZE_ADDRESS__)
#define RUNNER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RUNNER_ASAN 1
#endif
#endif
#ifdef RUNNER_ASAN
#include <sanitizer/lsan_interface.h>
static void leak_check(void)
{
    /* Exits with LeakSanitizer's status when it finds a leak (and when
     * ASAN_OPTIONS turns leak detection off, finds none). */
    __lsan_do_leak_check();
}
#else
static void leak_check(void)
{
}
#endif

/* Reads a skipped child's reason (at most n - 1 bytes) from fd. */
static void read_reason(int fd, char *reason, size_t n)
{
    size_t got = 0;
    ssize_t r;
    while (got + 1 < n && (r = read(fd, reason + got, n - 1 - got)) > 0)
        got += (size_t)r;
    reason[got] = '\0';
    for (size_t i = 0; i < got; i++)
        if (reason[i] == '\n')
            reason[i] = ' ';
}

/* Runs one test in a child; returns 0 on pass, 1 on failure, 2 on a skip
 * (its reason in 'reason', n bytes). */
static int run_one(const test_entry *t, double scale, double *secs, char *reason, size_t n)
{
    struct timespec t0, t1;
    int status = 0, fds[2];
    long waited_ms = 0, limit_ms = (long)(t->timeout_s * 1000.0 * scale);
    pid_t pid;
    fflush(stdout);
    fflush(stderr);
    if (pipe(fds) != 0) {
        perror("pipe");
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid = fork();
    if (pid < 0) {
        perror("fork");
        close(fds[0]);
        close(fds[1]);
        return 1;
    }
    if (pid == 0) {
        close(fds[0]);
        g_skip_fd = fds[1];
        alarm((unsigned)(limit_ms / 1000 + 5)); /* backstop if the parent dies */
        t->fn();
        fflush(stdout);
        fflush(stderr);
        /* _exit skips LeakSanitizer's check at exit: run it here, so that
         * what a test leaves unreachable fails the test. */
        leak_check();
        _exit(0);
    }
    close(fds[1]);
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR) {
            perror("waitpid");
            close(fds[0]);
            return 1;
        }
        if (waited_ms >= limit_ms) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            fprintf(stderr, "  timed out after %d s\n", (int)(limit_ms / 1000));
            clock_gettime(CLOCK_MONOTONIC, &t1);
            *secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
            close(fds[0]);
            return 1;
        }
        usleep(waited_ms < 100 ? 1000 : 10000);
        waited_ms += waited_ms < 100 ? 1 : 10;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "  killed by signal %d\n", WTERMSIG(status));
        close(fds[0]);
        return 1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == SKIP_STATUS) {
        read_reason(fds[0], reason, n);
        close(fds[0]);
        /* A skip says why; an exit with 77 and no reason is a failure. */
        return reason[0] ? 2 : 1;
    }
    close(fds[0]);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    size_t i, n = 0, k = 0;
    int passed = 0, failed = 0, skipped = 0;
    double scale = 1.0;
    const char *sc = getenv("GRAPHRT_TEST_TIMEOUT_SCALE");
    if (sc && atof(sc) > 0)
        scale = atof(sc);
    qsort(g_tests, g_ntests, sizeof *g_tests, cmp_test);
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        for (i = 0; i < g_ntests; i++)
            printf("%s\n", g_tests[i].name);
        return 0;
    }
    for (i = 0; i < g_ntests; i++)
        n += (size_t)selected(&g_tests[i], argc, argv);
    printf("TAP version 13\n1..%zu\n", n);
    for (i = 0; i < g_ntests; i++) {
        double secs = 0;
        if (!selected(&g_tests[i], argc, argv))
            continue;
        k++;
        char reason[512] = "";
        int r = run_one(&g_tests[i], scale, &secs, reason, sizeof reason);
        if (r == 0) {
            passed++;
            printf("ok %zu - %s (%.3f s)\n", k, g_tests[i].name, secs);
        } else if (r == 2) {
            skipped++;
            printf("ok %zu - %s # SKIP %s\n", k, g_tests[i].name, reason);
        } else {
            failed++;
            printf("not ok %zu - %s (%s)\n", k, g_tests[i].name, g_tests[i].file);
        }
        fflush(stdout);
    }
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
