/*
 * shell.c - shelves of dead shells: where the objects behind public
 * handles get their memory and give it back (see gr_shelf in core.h).
 *
 * Invariants: a shell on a shelf has GR_MAGIC_DEAD in its first word and
 * the shelf's link in bytes 8..15; shells are reused oldest first, and
 * only while more than GR_SHELL_QUARANTINE are dead. Shelves are static
 * and live as long as the process, so the memory they hold is reachable
 * and no leak checker reports it.
 */
#include "core.h"

#include <string.h>

/* The bytes a dead shell keeps readable: its magic word and the link. */
#define SHELL_HEAD 16u

static void **link_of(void *shell)
{
    return (void **)(void *)((unsigned char *)shell + 8);
}

void *gr__shell_alloc(gr_shelf *sh)
{
    void *p = NULL;
    gr__spin_lock(&sh->lock);
    if (sh->ndead > GR_SHELL_QUARANTINE) {
        p = sh->oldest;
        sh->oldest = *link_of(p);
        if (!sh->oldest)
            sh->newest = NULL;
        sh->ndead--;
    }
    gr__spin_unlock(&sh->lock);
    if (p) {
        GR_UNPOISON((unsigned char *)p + SHELL_HEAD, sh->size - SHELL_HEAD);
        return p;
    }
    return gr__aligned_alloc(GR_CACHELINE, sh->size);
}

void gr__shell_retire(gr_shelf *sh, void *p)
{
    gr_assert(*(const uint32_t *)p == GR_MAGIC_DEAD);
    gr_assert(sh->size >= SHELL_HEAD);
    *link_of(p) = NULL;
    GR_POISON((unsigned char *)p + SHELL_HEAD, sh->size - SHELL_HEAD);
    gr__spin_lock(&sh->lock);
    if (sh->newest)
        *link_of(sh->newest) = p;
    else
        sh->oldest = p;
    sh->newest = p;
    sh->ndead++;
    gr__spin_unlock(&sh->lock);
}
