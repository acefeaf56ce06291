/*
 * test-kernel-lang-cpp.cpp - kernels written with graphrt_kernel.h in C
 * (tests/kernels/lang_kernels.c), declared, created and launched from
 * C++: GR_KERNEL_DECLARE gives the registration function C linkage, and
 * the headers compile as C++. Built where CMake finds a C++ compiler.
 */
extern "C" {
#include "test.h"
}

#include "graphrt_kernel.h"

GR_KERNEL_DECLARE(lang_reverse);
GR_KERNEL_DECLARE(lang_zero_sync);

extern "C" unsigned lang_zero_hits;

GR_TEST(kernel_lang_kernels_declared_and_created_from_cpp_run)
{
    grKernel_t k, z;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_reverse));
    CHECK_OK(GR_KERNEL_CREATE(&z, lang_zero_sync));
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributeCpuStackSize, 32 * 1024));
    const unsigned T = 64;
    int *x = nullptr;
    CHECK_OK(grMalloc(reinterpret_cast<void **>(&x), T * sizeof(int)));
    for (unsigned i = 0; i < T; i++)
        x[i] = static_cast<int>(i);
    void *args[] = {&x};
    CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(T, 1, 1), args, T * sizeof(int), nullptr));
    lang_zero_hits = 0;
    CHECK_OK(grLaunchKernel(z, GR_DIM3(1, 1, 1), GR_DIM3(3, 1, 1), nullptr, 0, nullptr));
    CHECK_OK(grDeviceSynchronize());
    for (unsigned i = 0; i < T; i++)
        CHECK_EQ(x[i], T - 1 - i);
    CHECK_EQ(lang_zero_hits, 300);
    CHECK_OK(grFree(x));
    CHECK_OK(grKernelDestroy(k));
    CHECK_OK(grKernelDestroy(z));
}
