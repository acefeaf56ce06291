/*
 * debug.c - the debug modes' flags word (core.h: gr__dbg) and its public
 * switch, grSetDebugFlags, and the environment variables that set the
 * modes and tracing once per process: GRAPHRT_LAUNCH_BLOCKING=1,
 * GRAPHRT_CHECK=1, GRAPHRT_TRACE=path.json.
 *
 * Invariant: gr__dbg is written only with atomic read-modify-writes, so
 * that tracing (trace.c) and the modes change their bits independently.
 */
#include "core.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

_Atomic unsigned gr__dbg;

/* The bits grSetDebugFlags may change, and their public values. */
#define GR_DBG_MODES (GR_DBG_BLOCKING | GR_DBG_CHECK)

static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static bool env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

static void read_env(void)
{
    unsigned modes = (env_on("GRAPHRT_LAUNCH_BLOCKING") ? GR_DBG_BLOCKING : 0u) |
                     (env_on("GRAPHRT_CHECK") ? GR_DBG_CHECK : 0u);
    if (modes)
        gr_fetch_or_relaxed(&gr__dbg, modes);
    const char *path = getenv("GRAPHRT_TRACE");
    if (path && *path)
        gr__trace_start_env(path);
}

void gr__dbg_setup(void)
{
    pthread_once(&env_once, read_env);
}

static unsigned to_internal(unsigned flags)
{
    return ((flags & grDebugLaunchBlocking) ? GR_DBG_BLOCKING : 0u) |
           ((flags & grDebugCheckLaunches) ? GR_DBG_CHECK : 0u);
}

GR_API grError_t grSetDebugFlags(unsigned int flags)
{
    if (flags & ~(grDebugLaunchBlocking | grDebugCheckLaunches))
        return gr__fail(grErrorInvalidValue,
                        "grSetDebugFlags: flags 0x%x has bits other than grDebugLaunchBlocking (1) and "
                        "grDebugCheckLaunches (2)",
                        flags);
    /* The environment is read first, so that it cannot undo this call
     * when the runtime starts later. */
    gr__dbg_setup();
    unsigned want = to_internal(flags);
    gr_fetch_and_relaxed(&gr__dbg, ~(unsigned)GR_DBG_MODES | want);
    gr_fetch_or_relaxed(&gr__dbg, want);
    return grSuccess;
}

GR_API grError_t grGetDebugFlags(unsigned int *flags)
{
    if (!flags)
        return gr__fail(grErrorInvalidValue, "grGetDebugFlags: 'flags' (the output pointer) is NULL");
    gr__dbg_setup();
    unsigned d = gr__dbg_flags();
    *flags = ((d & GR_DBG_BLOCKING) ? grDebugLaunchBlocking : 0u) |
             ((d & GR_DBG_CHECK) ? grDebugCheckLaunches : 0u);
    return grSuccess;
}
