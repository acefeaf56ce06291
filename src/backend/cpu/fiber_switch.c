/*
 * fiber_switch.c - the context switch of the CPU's fibers (fiber.c),
 * under fiber.h's contract. On x86-64 the switch itself is inline
 * (fiber.h); here are only the few instructions (gr__fiber_start_x86)
 * that a new context's first resume jumps to, which call entry(arg).
 * Elsewhere a context is a saved stack pointer: gr__fiber_switch(&save,
 * to) saves the callee-saved registers on the running stack, stores its
 * stack pointer in *save, loads 'to' and pops the registers saved there,
 * and a new fiber's stack is laid out so that the first switch to it
 * "returns" into gr__fiber_start_a64 (or the portable trampoline).
 *
 * aarch64 (AAPCS64) has its switch here in assembly: 13 stores and
 * loads, a few ns. Elsewhere, and when GR_FIBER_UCONTEXT is defined
 * (CMake's GR_FIBER_PORTABLE), ucontext starts a trampoline once per
 * stack and _setjmp/_longjmp switch: no system call per switch or per
 * fiber.
 *
 * Invariant: the floating-point control words (MXCSR, x87 CW, FPCR) are
 * not switched; a kernel that changes them changes them for its block.
 */
#include "fiber.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && !defined(GR_FIBER_UCONTEXT)

#if defined(__APPLE__)
#define GR__ASM_SYM(s) "_" #s
#else
#define GR__ASM_SYM(s) #s
#endif

/* Entered by gr__fctx_switch's jump with r12 = arg, r13 = entry and the
 * stack 16-aligned: a call leaves it as the ABI wants. */
/* clang-format off */
__asm__(".text\n"
        ".p2align 4\n"
        GR__ASM_SYM(gr__fiber_start_x86) ":\n"
#if defined(__CET__)
        "    endbr64\n"
#endif
        "    movq %r12, %rdi\n"
        "    callq *%r13\n"
        "    ud2\n");
/* clang-format on */

void gr__fiber_start_x86(void);

void gr__fctx_prepare(gr_fctx *c, char *stack, size_t size, void (*entry)(void *), void *arg)
{
    uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
    /* Two zero words at the top: a zero return address for debuggers
     * above the entry's frame. */
    uint64_t *sp = (uint64_t *)(top - 16);
    sp[0] = 0;
    sp[1] = 0;
    memset(c, 0, sizeof *c);
    c->sp = sp;
    c->ip = (void *)(uintptr_t)gr__fiber_start_x86;
    c->r12 = arg;
    c->r13 = (void *)(uintptr_t)entry;
}

#elif defined(__aarch64__) && !defined(GR_FIBER_UCONTEXT)

#if defined(__APPLE__)
#define GR__ASM_SYM(s) "_" #s
#else
#define GR__ASM_SYM(s) #s
#endif

/* x0: void **save, x1: void *to. Saves x19-x30 and d8-d15 (AAPCS64's
 * callee-saved registers) in 176 bytes. */
/* clang-format off */
__asm__(".text\n"
        ".p2align 4\n"
        ".globl " GR__ASM_SYM(gr__fiber_switch) "\n"
#if !defined(__APPLE__)
        ".hidden gr__fiber_switch\n"
#endif
        GR__ASM_SYM(gr__fiber_switch) ":\n"
        "    sub sp, sp, #176\n"
        "    stp x19, x20, [sp, #0]\n"
        "    stp x21, x22, [sp, #16]\n"
        "    stp x23, x24, [sp, #32]\n"
        "    stp x25, x26, [sp, #48]\n"
        "    stp x27, x28, [sp, #64]\n"
        "    stp x29, x30, [sp, #80]\n"
        "    stp d8, d9, [sp, #96]\n"
        "    stp d10, d11, [sp, #112]\n"
        "    stp d12, d13, [sp, #128]\n"
        "    stp d14, d15, [sp, #144]\n"
        "    mov x2, sp\n"
        "    str x2, [x0]\n"
        "    mov sp, x1\n"
        "    ldp x19, x20, [sp, #0]\n"
        "    ldp x21, x22, [sp, #16]\n"
        "    ldp x23, x24, [sp, #32]\n"
        "    ldp x25, x26, [sp, #48]\n"
        "    ldp x27, x28, [sp, #64]\n"
        "    ldp x29, x30, [sp, #80]\n"
        "    ldp d8, d9, [sp, #96]\n"
        "    ldp d10, d11, [sp, #112]\n"
        "    ldp d12, d13, [sp, #128]\n"
        "    ldp d14, d15, [sp, #144]\n"
        "    add sp, sp, #176\n"
        "    ret\n"
        /* Entered by the 'ret' above (x30) with x19 = arg, x20 = entry. */
        ".p2align 4\n"
        GR__ASM_SYM(gr__fiber_start_a64) ":\n"
        "    mov x0, x19\n"
        "    blr x20\n"
        "    brk #0\n");
/* clang-format on */

void gr__fiber_start_a64(void);

static void *fiber_prepare(char *stack, size_t size, void (*entry)(void *), void *arg)
{
    uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
    uint64_t *sp = (uint64_t *)(top - 176 - 16);
    for (int i = 0; i < 22; i++)
        sp[i] = 0;
    sp[0] = (uint64_t)(uintptr_t)arg;                  /* x19 */
    sp[1] = (uint64_t)(uintptr_t)entry;                /* x20 */
    sp[11] = (uint64_t)(uintptr_t)gr__fiber_start_a64; /* x30 */
    return sp;
}

#else

/* The portable form: _setjmp/_longjmp switch (no signal mask saved, so no
 * system call), and ucontext only starts, once per stack, a trampoline
 * at its top that waits in a _setjmp: a fiber prepared on that stack
 * later is entered by a _longjmp there, and the trampoline calls its
 * entry. The trampoline's frame stays intact below the stack's gr_pctx
 * (a fiber's frames lie under it, and entry never returns), so one start
 * serves every block that uses the stack. A context is a gr_pctx: the one
 * at the top of a stack ('fresh': entered through the trampoline), or one
 * in the frame of the gr__fiber_switch call that switched away from a
 * running context. _FORTIFY_SOURCE's longjmp check would take a jump to
 * another stack for a jump into a dead frame, hence its removal here. */
#undef _FORTIFY_SOURCE
#include <setjmp.h>
#include <ucontext.h>

typedef struct gr_pctx {
    jmp_buf jb; /* where a switched-out context resumes */
    int fresh;
    /* A stack's top only: */
    struct gr_pctx *self; /* == this once the trampoline waits in 'start' */
    jmp_buf start;
    ucontext_t *back; /* the preparing context, while the trampoline starts */
    void (*entry)(void *);
    void *arg;
} gr_pctx;

static void pctx_trampoline(unsigned hi, unsigned lo)
{
    gr_pctx *volatile p = (gr_pctx *)(((uintptr_t)hi << 16 << 16) | (uintptr_t)lo);
    if (_setjmp(p->start) == 0) {
        p->self = p;
        setcontext(p->back);
    }
    p->entry(p->arg); /* never returns */
}

static void *fiber_prepare(char *stack, size_t size, void (*entry)(void *), void *arg)
{
    uintptr_t top = ((uintptr_t)stack + size - sizeof(gr_pctx)) & ~(uintptr_t)63;
    gr_pctx *p = (gr_pctx *)top;
    if (p->self != p) {
        ucontext_t uc, back;
        getcontext(&uc);
        uc.uc_stack.ss_sp = stack;
        uc.uc_stack.ss_size = (size_t)(top - (uintptr_t)stack);
        uc.uc_link = NULL;
        p->back = &back;
        uintptr_t a = (uintptr_t)p;
        makecontext(&uc, (void (*)(void))pctx_trampoline, 2, (unsigned)(a >> 16 >> 16), (unsigned)a);
        swapcontext(&back, &uc);
    }
    p->fresh = 1;
    p->entry = entry;
    p->arg = arg;
    return p;
}

void gr__fiber_switch(void **save, void *to)
{
    gr_pctx self;
    gr_pctx *t = to;
    self.fresh = 0;
    *save = &self;
    if (_setjmp(self.jb) != 0)
        return; /* switched back to */
    if (t->fresh) {
        t->fresh = 0;
        _longjmp(t->start, 1);
    }
    _longjmp(t->jb, 1);
}

#endif

#if !defined(GR_FCTX_INLINE)
void gr__fctx_prepare(gr_fctx *c, char *stack, size_t size, void (*entry)(void *), void *arg)
{
    c->sp = fiber_prepare(stack, size, entry, arg);
    c->arg = NULL;
}
#endif
