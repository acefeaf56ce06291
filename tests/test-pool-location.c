/*
 * test-pool-location.c - grMemGetDefaultMemPool, grMemGetMemPool and
 * grMemSetMemPool: a device location with pinned memory acts as the
 * device forms do; what CUDA refuses is grErrorInvalidValue, what graphrt
 * lacks (managed and host pools) grErrorNotSupported, and a refused call
 * changes nothing.
 */
#include "testlib.h"

static grMemLocation device_loc(int d)
{
    grMemLocation l = {grMemLocationTypeDevice, d};
    return l;
}

GR_TEST(mem_pool_location_forms_match_the_device_forms)
{
    grMemLocation cpu = device_loc(0);
    grMemPool_t dflt = NULL, dflt2 = NULL, cur = NULL;
    CHECK_OK(grDeviceGetDefaultMemPool(&dflt, 0));
    CHECK_OK(grMemGetDefaultMemPool(&dflt2, &cpu, grMemAllocationTypePinned));
    CHECK_PTR_EQ(dflt2, dflt);
    CHECK_OK(grMemGetMemPool(&cur, &cpu, grMemAllocationTypePinned));
    CHECK_PTR_EQ(cur, dflt);
}

GR_TEST(mem_set_mem_pool_makes_the_pool_current_for_malloc_async)
{
    grMemLocation cpu = device_loc(0);
    grMemPool_t pool = tl_pool(0), cur = NULL, dflt = NULL;
    grStream_t s;
    void *p = NULL;
    uint64_t used = 0;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMemSetMemPool(&cpu, grMemAllocationTypePinned, pool));
    CHECK_OK(grMemGetMemPool(&cur, &cpu, grMemAllocationTypePinned));
    CHECK_PTR_EQ(cur, pool);
    cur = NULL;
    CHECK_OK(grDeviceGetMemPool(&cur, 0));
    CHECK_PTR_EQ(cur, pool);
    /* grMallocAsync now takes from it. */
    CHECK_OK(grMallocAsync(&p, 1000, s));
    CHECK_OK(grMemPoolGetAttribute(pool, grMemPoolAttrUsedMemCurrent, &used));
    CHECK(used >= 1000);
    CHECK_OK(grFreeAsync(p, s));
    CHECK_OK(grStreamSynchronize(s));
    /* Back to the default pool, by location too. */
    CHECK_OK(grMemGetDefaultMemPool(&dflt, &cpu, grMemAllocationTypePinned));
    CHECK_OK(grMemSetMemPool(&cpu, grMemAllocationTypePinned, dflt));
    CHECK_OK(grMemGetMemPool(&cur, &cpu, grMemAllocationTypePinned));
    CHECK_PTR_EQ(cur, dflt);
    CHECK_OK(grMemPoolDestroy(pool));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(mem_pool_location_forms_refuse_what_cuda_refuses_with_invalid_value)
{
    grMemLocation cpu = device_loc(0);
    grMemLocation none = {grMemLocationTypeNone, 0};
    grMemLocation numa_current = {grMemLocationTypeHostNumaCurrent, 0};
    grMemLocation bogus = {(grMemLocationType)77, 0};
    grMemPool_t out = (grMemPool_t)(uintptr_t)1;
    CHECK_REFUSED(grErrorInvalidValue, grMemGetDefaultMemPool, NULL, &cpu, grMemAllocationTypePinned);
    CHECK_GR(grErrorInvalidValue, grMemGetDefaultMemPool(&out, NULL, grMemAllocationTypePinned));
    CHECK_REFUSED(grErrorInvalidValue, grMemGetMemPool, &out, &cpu, grMemAllocationTypeInvalid);
    CHECK_GR(grErrorInvalidValue, grMemGetMemPool(&out, &cpu, (grMemAllocationType)9));
    CHECK_GR(grErrorInvalidValue, grMemGetMemPool(&out, &none, grMemAllocationTypePinned));
    CHECK_DETAIL_HAS("does not name a device");
    CHECK_GR(grErrorInvalidValue, grMemGetMemPool(&out, &numa_current, grMemAllocationTypePinned));
    CHECK_GR(grErrorInvalidValue, grMemGetDefaultMemPool(&out, &bogus, grMemAllocationTypePinned));
    CHECK_GR(grErrorInvalidValue, grMemGetDefaultMemPool(&out, &numa_current, grMemAllocationTypeManaged));
    CHECK_DETAIL_HAS("managed");
    CHECK_PTR_EQ(out, (grMemPool_t)(uintptr_t)1);
}

GR_TEST(mem_pool_location_forms_answer_managed_and_host_pools_not_supported)
{
    grMemLocation cpu = device_loc(0);
    grMemLocation none = {grMemLocationTypeNone, 0};
    grMemLocation host = {grMemLocationTypeHost, 0};
    grMemLocation numa = {grMemLocationTypeHostNuma, 0};
    grMemPool_t out = (grMemPool_t)(uintptr_t)1, dflt = NULL;
    CHECK_GR(grErrorNotSupported, grMemGetDefaultMemPool(&out, &cpu, grMemAllocationTypeManaged));
    CHECK_DETAIL_HAS("no managed memory");
    CHECK_GR(grErrorNotSupported, grMemGetMemPool(&out, &none, grMemAllocationTypeManaged));
    CHECK_GR(grErrorNotSupported, grMemGetMemPool(&out, &host, grMemAllocationTypePinned));
    CHECK_DETAIL_HAS("no host pools");
    CHECK_GR(grErrorNotSupported, grMemGetDefaultMemPool(&out, &numa, grMemAllocationTypePinned));
    CHECK_OK(grDeviceGetDefaultMemPool(&dflt, 0));
    CHECK_GR(grErrorNotSupported, grMemSetMemPool(&host, grMemAllocationTypePinned, dflt));
    CHECK_PTR_EQ(out, (grMemPool_t)(uintptr_t)1);
}

GR_TEST(mem_set_mem_pool_refuses_a_foreign_location_or_a_dead_pool_and_changes_nothing)
{
    grMemLocation cpu = device_loc(0);
    grMemLocation missing = device_loc(1000);
    grMemPool_t pool = tl_pool(0), dead = tl_pool(0), cur = NULL, dflt = NULL;
    CHECK_OK(grDeviceGetDefaultMemPool(&dflt, 0));
    /* CUDA 13: grErrorInvalidValue (tests/probes/memory.cu, memsetmempool-device99). */
    CHECK_GR(grErrorInvalidValue, grMemSetMemPool(&missing, grMemAllocationTypePinned, pool));
    CHECK_DETAIL_HAS("does not exist");
    CHECK_GR(grErrorInvalidValue, grMemGetMemPool(&cur, &missing, grMemAllocationTypePinned));
    CHECK_GR(grErrorInvalidValue, grMemSetMemPool(&cpu, grMemAllocationTypePinned, NULL));
    CHECK_OK(grMemPoolDestroy(dead));
    CHECK_GR(grErrorInvalidValue, grMemSetMemPool(&cpu, grMemAllocationTypePinned, dead));
    CHECK_DETAIL_HAS("not live");
    CHECK_GR(grErrorInvalidValue, grMemSetMemPool(&cpu, grMemAllocationTypeManaged + 1, pool));
    CHECK_OK(grMemGetMemPool(&cur, &cpu, grMemAllocationTypePinned));
    CHECK_PTR_EQ(cur, dflt);
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(gpu_mem_pool_location_forms_name_a_gpu_by_its_graphrt_number)
{
    grMemLocation gpu = device_loc(1), cpu = device_loc(0);
    grMemPool_t dflt = NULL, dflt2 = NULL, cur = NULL, cpu_dflt = NULL;
    if (grSetDevice(1) != grSuccess)
        GR_TEST_SKIP("no GPU device: %s", grGetLastErrorDetail());
    CHECK_OK(grDeviceGetDefaultMemPool(&dflt, 1));
    CHECK_OK(grMemGetDefaultMemPool(&dflt2, &gpu, grMemAllocationTypePinned));
    CHECK_PTR_EQ(dflt2, dflt);
    CHECK_OK(grMemGetMemPool(&cur, &gpu, grMemAllocationTypePinned));
    CHECK_PTR_EQ(cur, dflt);
    /* A GPU's pool is not the CPU's, nor the reverse. */
    CHECK_OK(grDeviceGetDefaultMemPool(&cpu_dflt, 0));
    CHECK(cpu_dflt != dflt);
    CHECK_GR(grErrorInvalidValue, grMemSetMemPool(&cpu, grMemAllocationTypePinned, dflt));
    CHECK_GR(grErrorInvalidValue, grMemSetMemPool(&gpu, grMemAllocationTypePinned, cpu_dflt));
    CHECK_OK(grMemSetMemPool(&gpu, grMemAllocationTypePinned, dflt));
}
