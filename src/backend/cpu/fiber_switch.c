/*
 * fiber_switch.c - the context switch of the CPU's fibers (fiber.c): one
 * function, gr__fiber_switch(&save, to), that saves the callee-saved
 * registers on the running stack, stores its stack pointer in *save,
 * loads 'to' and pops the registers saved there. A new fiber's stack is
 * laid out by gr__fiber_prepare so that the first switch to it "returns"
 * into a few instructions (gr__fiber_start_x86 / _a64) that call
 * entry(arg), which must never return.
 *
 * x86-64 (System V) and aarch64 (AAPCS64) have their switch here in
 * assembly: 7 and 13 stores and loads, a few ns. Elsewhere, and when
 * GR_FIBER_UCONTEXT is defined (CMake's GR_FIBER_PORTABLE), ucontext
 * starts a trampoline once per stack and _setjmp/_longjmp switch: no
 * system call per switch or per fiber.
 *
 * Invariant: the floating-point control words (MXCSR, x87 CW, FPCR) are
 * not switched; a kernel that changes them changes them for its block.
 */
#include "fiber.h"

#include <stdint.h>

#if defined(__x86_64__) && !defined(GR_FIBER_UCONTEXT)

#if defined(__APPLE__)
#define GR__ASM_SYM(s) "_" #s
#define GR__ASM_TYPE(s)
#define GR__ASM_SIZE(s)
#else
#define GR__ASM_SYM(s) #s
#define GR__ASM_TYPE(s) ".type " #s ",@function\n"
#define GR__ASM_SIZE(s) ".size " #s ",.-" #s "\n"
#endif

/* rdi: void **save, rsi: void *to. */
/* clang-format off */
__asm__(".text\n"
        ".p2align 4\n"
        ".globl " GR__ASM_SYM(gr__fiber_switch) "\n"
#if !defined(__APPLE__)
        ".hidden gr__fiber_switch\n"
#endif
        GR__ASM_TYPE(gr__fiber_switch)
        GR__ASM_SYM(gr__fiber_switch) ":\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        GR__ASM_SIZE(gr__fiber_switch)
        /* Entered by the 'ret' above with r12 = arg, r13 = entry and the
         * stack 16-aligned: a call leaves it as the ABI wants. */
        ".p2align 4\n"
        GR__ASM_SYM(gr__fiber_start_x86) ":\n"
        "    movq %r12, %rdi\n"
        "    callq *%r13\n"
        "    ud2\n");
/* clang-format on */

void gr__fiber_start_x86(void);

void *gr__fiber_prepare(char *stack, size_t size, void (*entry)(void *), void *arg)
{
    uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
    /* 6 registers and the return address: after the pops and the 'ret'
     * the stack pointer is top - 16, 16-aligned; the word above it is a
     * zero return address for debuggers. */
    uint64_t *sp = (uint64_t *)(top - 72);
    sp[0] = 0;                          /* r15 */
    sp[1] = 0;                          /* r14 */
    sp[2] = (uint64_t)(uintptr_t)entry; /* r13 */
    sp[3] = (uint64_t)(uintptr_t)arg;   /* r12 */
    sp[4] = 0;                          /* rbx */
    sp[5] = 0;                          /* rbp */
    sp[6] = (uint64_t)(uintptr_t)gr__fiber_start_x86;
    sp[7] = 0;
    sp[8] = 0;
    return sp;
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

void *gr__fiber_prepare(char *stack, size_t size, void (*entry)(void *), void *arg)
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

void *gr__fiber_prepare(char *stack, size_t size, void (*entry)(void *), void *arg)
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
