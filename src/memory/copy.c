/*
 * copy.c - the stream operations that copy and set bytes (what
 * grMemcpyAsync and grMemsetAsync queue, api/memory.c).
 */
#include "memory.h"

#include <string.h>

void gr__mem_copy_op(void *data)
{
    gr_mem_copy_args a;
    memcpy(&a, data, sizeof a);
    /* CUDA leaves overlapping copies undefined; memmove makes them safe. */
    memmove(a.dst, a.src, a.count);
}

void gr__mem_set_op(void *data)
{
    gr_mem_set_args a;
    memcpy(&a, data, sizeof a);
    memset(a.dst, a.value, a.count);
}
