/*
 * hostfn.c - grHostFnRegister and grHostFnUnregister: host functions
 * known by name, so that graph files can name a host node's function
 * (backend/names.c keeps the registry).
 */
#include "../backend/backend.h"

#include <string.h>

/* Longest registered name: names go on one line of a graph file. */
#define GR_HOSTFN_NAME_MAX 256u

GR_API grError_t grHostFnRegister(grHostFn_t fn, const char *name, void *userData)
{
    static const char call[] = "grHostFnRegister";
    if (!fn)
        return gr__fail(grErrorInvalidValue, "%s: 'fn' is NULL; pass the host function to register", call);
    if (!name || !*name)
        return gr__fail(grErrorInvalidValue, "%s: 'name' is NULL or empty; every host function needs a name",
                        call);
    if (strlen(name) > GR_HOSTFN_NAME_MAX)
        return gr__fail(grErrorInvalidValue, "%s: name '%.40s...' is longer than %u bytes", call, name,
                        GR_HOSTFN_NAME_MAX);
    switch (gr__hostfn_register(fn, name, userData)) {
    case GR_NAME_OK:
        return grSuccess;
    case GR_NAME_TAKEN:
        return gr__fail(grErrorInvalidValue,
                        "%s: a host function is already registered as '%s'; names must be unique (unregister "
                        "it first)",
                        call, name);
    case GR_NAME_FN_TAKEN:
        return gr__fail(grErrorInvalidValue,
                        "%s: function %p is already registered under another name; a function has one name "
                        "(unregister it first)",
                        call, GR_PTR(fn));
    case GR_NAME_NOMEM:
        break;
    }
    return gr__fail(grErrorMemoryAllocation, "%s: out of memory registering '%s'", call, name);
}

GR_API grError_t grHostFnUnregister(grHostFn_t fn)
{
    if (!gr__hostfn_unregister(fn))
        return gr__fail(grErrorInvalidValue,
                        "grHostFnUnregister: function %p is not registered (never, or unregistered already)",
                        GR_PTR(fn));
    return grSuccess;
}
