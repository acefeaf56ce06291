/*
 * barrier.c - the asymmetric Dekker barrier (barrier.h has the argument).
 *
 * Invariant: gr__barrier_is_asym is written once, under pthread_once,
 * before any user's first barrier (each user calls gr__barrier_setup at
 * its own start), and only ever set when the process is registered for
 * MEMBARRIER_CMD_PRIVATE_EXPEDITED, so gr_barrier_heavy cannot fail.
 */
#include "barrier.h"
#include "core.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

bool gr__barrier_is_asym;

static pthread_once_t barrier_once = PTHREAD_ONCE_INIT;

static void barrier_choose(void)
{
    const char *env = getenv("GRAPHRT_MEMBARRIER");
    if (env && strcmp(env, "0") == 0)
        return;
    gr__barrier_is_asym = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

void gr__barrier_setup(void)
{
    pthread_once(&barrier_once, barrier_choose);
}

void gr_barrier_heavy(void)
{
    if (gr__barrier_is_asym) {
        long rc = syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
        gr_assert(rc == 0);
        (void)rc;
    }
    gr_fence_seq_cst();
}
