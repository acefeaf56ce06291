/*
 * fiber.h - the context switch under the CPU's fibers (fiber_switch.c),
 * for fiber.c only.
 *
 * Contract: a context is its saved stack pointer. gr__fiber_prepare lays
 * out a new stack so that the first gr__fiber_switch to what it returns
 * calls entry(arg) on that stack; entry must never return (it switches
 * away for good instead). gr__fiber_switch(&save, to) stores the running
 * context in *save and resumes 'to'; it returns when something switches
 * back to *save. Both run on the calling thread only.
 */
#ifndef GR_FIBER_H
#define GR_FIBER_H

#include <stddef.h>

void *gr__fiber_prepare(char *stack, size_t size, void (*entry)(void *), void *arg);
void gr__fiber_switch(void **save, void *to);

#endif
