/*
 * probe.c - telling whether user memory can be read without reading it:
 * the calling thread's stack bounds, and a probe through the kernel.
 *
 * Used to refuse the classic kernelParams mistake (a value passed where
 * its address belongs) before the argument values are copied, which
 * would otherwise fault inside graphrt.
 *
 * Invariant: nothing here dereferences a user pointer; the kernel copies
 * the probed bytes (process_vm_readv on the process itself), or, where
 * that call is not allowed (seccomp, ptrace restrictions), writes them
 * into a pipe; either answers EFAULT for memory that cannot be read.
 */
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/uio.h>
#include <unistd.h>

__attribute__((tls_model("initial-exec"))) _Thread_local uintptr_t gr__tls_stack_top;

uintptr_t gr__stack_top_slow(void)
{
    pthread_attr_t attr;
    void *addr = NULL;
    size_t size = 0;
    uintptr_t top = 1;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        if (pthread_attr_getstack(&attr, &addr, &size) == 0)
            top = (uintptr_t)addr + size;
        pthread_attr_destroy(&attr);
    }
    gr__tls_stack_top = top;
    return top;
}

/* The fallback probe: a pipe of this process, written and drained under
 * 'lock' so that it never fills. */
static struct {
    pthread_mutex_t lock;
    pthread_once_t once;
    int fd[2];
    bool ok;
} fallback = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_ONCE_INIT, {-1, -1}, false};

static void fallback_init(void)
{
    if (pipe(fallback.fd) != 0)
        return;
    for (int i = 0; i < 2; i++) {
        fcntl(fallback.fd[i], F_SETFD, FD_CLOEXEC);
        fcntl(fallback.fd[i], F_SETFL, O_NONBLOCK);
    }
    fallback.ok = true;
}

static bool pipe_probe(const void *p)
{
    pthread_once(&fallback.once, fallback_init);
    if (!fallback.ok)
        return true; /* no way to ask: assume readable, as before */
    char c;
    pthread_mutex_lock(&fallback.lock);
    ssize_t w = write(fallback.fd[1], p, 1);
    int err = errno;
    if (w == 1)
        while (read(fallback.fd[0], &c, 1) < 0 && errno == EINTR)
            ;
    pthread_mutex_unlock(&fallback.lock);
    return w == 1 || err != EFAULT;
}

/* Bytes probed per system call: the first byte of the range, one in each
 * page after the first, and the last. */
#if GR_KNOBS_SMALL
#define PROBE_IOVS 1 /* a system call per byte probed */
#else
#define PROBE_IOVS 8
#endif
#define PROBE_PAGE ((uintptr_t)4096)

bool gr__probe_readable(const void *p, size_t n)
{
    uintptr_t first = (uintptr_t)p, last = first + (n ? n - 1 : 0);
    if (last < first)
        return false; /* the range wraps around the address space */
    char buf[PROBE_IOVS];
    struct iovec local[PROBE_IOVS], remote[PROBE_IOVS];
    uintptr_t at = first;
    bool done = false;
    while (!done) {
        int k = 0;
        for (; k < PROBE_IOVS && !done; k++) {
            local[k] = (struct iovec){&buf[k], 1};
            remote[k] = (struct iovec){(void *)at, 1};
            uintptr_t next = (at | (PROBE_PAGE - 1)) + 1; /* the next page */
            if (at == last)
                done = true;
            else
                at = next <= last && next > at ? next : last;
        }
        ssize_t r = process_vm_readv(getpid(), local, (unsigned long)k, remote, (unsigned long)k, 0);
        if (r == k)
            continue;
        if (r >= 0 || errno == EFAULT)
            return false;
        for (int i = 0; i < k; i++)
            if (!pipe_probe(remote[i].iov_base))
                return false;
    }
    return true;
}
