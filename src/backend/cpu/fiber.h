/*
 * fiber.h - the context switch under the CPU's fibers (fiber_switch.c),
 * for fiber.c only.
 *
 * Contract: a context is a gr_fctx. gr__fctx_prepare lays out a new
 * stack so that the first gr__fctx_switch to the context it fills calls
 * entry(arg) on that stack; entry must never return (it switches away
 * for good instead). gr__fctx_switch(from, to, arg) stores the running
 * context in *from and resumes *to, handing it 'arg'; it returns, once
 * something switches back to *from, the 'arg' that that switch handed
 * over (a resumed fiber learns who it is without keeping it in a
 * register or on its stack across the switch). Both run on the calling
 * thread only.
 *
 * x86-64 (System V) switches inline: the callee-saved registers, the
 * stack pointer and the resume address go into the 64 bytes of the
 * context itself, not onto the stack, and there is no call around the
 * switch. Elsewhere a context is its saved stack pointer and the switch
 * is a function (aarch64 in assembly; the portable form _setjmp/
 * _longjmp), which saves the registers on the running stack.
 */
#ifndef GR_FIBER_H
#define GR_FIBER_H

#include <stddef.h>

#if defined(__x86_64__) && !defined(GR_FIBER_UCONTEXT)

#define GR_FCTX_INLINE 1

typedef struct gr_fctx {
    void *sp, *ip;                           /* where it resumes */
    void *rbx, *rbp, *r12, *r13, *r14, *r15; /* System V's callee-saved */
} gr_fctx;

#if defined(__CET__)
#define GR__FCTX_ENDBR "endbr64\n\t" /* the resume address is an indirect jump's target */
#else
#define GR__FCTX_ENDBR
#endif

/* The switch leaves the caller-saved registers to the compiler: they are
 * clobbers, so a caller saves only what it keeps live across the switch
 * (fiber.c keeps nothing live in the barrier and warp paths), where a
 * call-and-ret switch pushed all six callee-saved registers and a return
 * address onto the stack. A resume is an indirect jump, the same target
 * at every switch of a barrier loop. The x87 stack, empty at every call
 * under the ABI, holds nothing here: fiber.c does not use long double.
 * rdi: from, rsi: to, rdx: arg, which the resumed context finds in rdx. */
static inline void *gr__fctx_switch(gr_fctx *from, gr_fctx *to, void *arg)
{
    /* clang-format off */
    __asm__ __volatile__(
        "leaq 1f(%%rip), %%rax\n\t"
        "movq %%rsp, 0(%%rdi)\n\t"
        "movq %%rax, 8(%%rdi)\n\t"
        "movq %%rbx, 16(%%rdi)\n\t"
        "movq %%rbp, 24(%%rdi)\n\t"
        "movq %%r12, 32(%%rdi)\n\t"
        "movq %%r13, 40(%%rdi)\n\t"
        "movq %%r14, 48(%%rdi)\n\t"
        "movq %%r15, 56(%%rdi)\n\t"
        "movq 0(%%rsi), %%rsp\n\t"
        "movq 16(%%rsi), %%rbx\n\t"
        "movq 24(%%rsi), %%rbp\n\t"
        "movq 32(%%rsi), %%r12\n\t"
        "movq 40(%%rsi), %%r13\n\t"
        "movq 48(%%rsi), %%r14\n\t"
        "movq 56(%%rsi), %%r15\n\t"
        "jmpq *8(%%rsi)\n"
        "1:\n\t"
        GR__FCTX_ENDBR
        : "+D"(from), "+S"(to), "+d"(arg)
        :
        : "rax", "rcx", "r8", "r9", "r10", "r11", "cc", "memory",
          "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
          "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"
#if defined(__AVX512F__)
          , "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23",
          "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31",
          "k1", "k2", "k3", "k4", "k5", "k6", "k7"
#endif
    );
    /* clang-format on */
    return arg;
}

#else

typedef struct gr_fctx {
    void *sp;  /* the saved stack pointer */
    void *arg; /* handed over by the switch that resumes it */
} gr_fctx;

void gr__fiber_switch(void **save, void *to);

static inline void *gr__fctx_switch(gr_fctx *from, gr_fctx *to, void *arg)
{
    to->arg = arg;
    gr__fiber_switch(&from->sp, to->sp);
    return from->arg;
}

#endif

void gr__fctx_prepare(gr_fctx *c, char *stack, size_t size, void (*entry)(void *), void *arg);

#endif
