/*
 * test-pool-access.c - grMemPoolSetAccess and grMemPoolGetAccess: the
 * pool's own device always has read-write access, other devices' flags
 * are stored and reported, descriptors apply in order, and a refused
 * call (any bad descriptor) changes nothing.
 */
#include "testlib.h"

static grMemAccessFlags access_of(grMemPool_t pool, int device)
{
    grMemLocation l = {grMemLocationTypeDevice, device};
    grMemAccessFlags f = (grMemAccessFlags)-1;
    CHECK_OK(grMemPoolGetAccess(&f, pool, &l));
    return f;
}

static grMemAccessDesc desc(grMemLocationType type, int id, grMemAccessFlags flags)
{
    grMemAccessDesc d;
    d.location.type = type;
    d.location.id = id;
    d.flags = flags;
    return d;
}

GR_TEST(pool_access_owner_device_has_read_write_and_keeps_it)
{
    grMemPool_t pool = tl_pool(0), dflt = NULL;
    grMemAccessDesc rw = desc(grMemLocationTypeDevice, 0, grMemAccessFlagsProtReadWrite);
    grMemAccessDesc none = desc(grMemLocationTypeDevice, 0, grMemAccessFlagsProtNone);
    grMemAccessDesc ro = desc(grMemLocationTypeDevice, 0, grMemAccessFlagsProtRead);
    CHECK_EQ(access_of(pool, 0), grMemAccessFlagsProtReadWrite);
    CHECK_OK(grMemPoolSetAccess(pool, &rw, 1));
    CHECK_EQ(access_of(pool, 0), grMemAccessFlagsProtReadWrite);
    /* CUDA 13's codes (tests/probes/memory.cu, setaccess-own-*). */
    CHECK_GR(grErrorInvalidDevice, grMemPoolSetAccess(pool, &none, 1));
    CHECK_DETAIL_HAS("cannot be revoked");
    CHECK_GR(grErrorNotSupported, grMemPoolSetAccess(pool, &ro, 1));
    CHECK_DETAIL_HAS("read-only");
    CHECK_EQ(access_of(pool, 0), grMemAccessFlagsProtReadWrite);
    /* The default pool too. */
    CHECK_OK(grDeviceGetDefaultMemPool(&dflt, 0));
    CHECK_EQ(access_of(dflt, 0), grMemAccessFlagsProtReadWrite);
    CHECK_GR(grErrorInvalidDevice, grMemPoolSetAccess(dflt, &none, 1));
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(pool_access_count_zero_does_nothing)
{
    grMemPool_t pool = tl_pool(0);
    CHECK_OK(grMemPoolSetAccess(pool, NULL, 0));
    CHECK_EQ(access_of(pool, 0), grMemAccessFlagsProtReadWrite);
    CHECK_GR(grErrorInvalidValue, grMemPoolSetAccess(pool, NULL, 1));
    CHECK_DETAIL_HAS("descList is NULL");
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(pool_access_refuses_bad_descriptors_and_applies_none_of_the_list)
{
    grMemPool_t pool = tl_pool(0);
    grMemAccessDesc list[2];
    /* A valid first descriptor, a bad second: nothing applies. A list
     * naming only the CPU is valid on every machine, so the tests use
     * the owner; the bad ones differ in one field each. */
    list[0] = desc(grMemLocationTypeDevice, 0, grMemAccessFlagsProtReadWrite);
    list[1] = desc(grMemLocationTypeDevice, 0, (grMemAccessFlags)2);
    CHECK_GR(grErrorInvalidValue, grMemPoolSetAccess(pool, list, 2));
    CHECK_DETAIL_HAS("descList[1].flags");
    list[1] = desc(grMemLocationTypeHost, 0, grMemAccessFlagsProtReadWrite);
    CHECK_GR(grErrorNotSupported, grMemPoolSetAccess(pool, list, 2));
    CHECK_DETAIL_HAS("descList[1].location");
    list[1] = desc(grMemLocationTypeInvalid, 0, grMemAccessFlagsProtReadWrite);
    CHECK_GR(grErrorInvalidValue, grMemPoolSetAccess(pool, list, 2));
    list[1] = desc(grMemLocationTypeDevice, 1000, grMemAccessFlagsProtReadWrite);
    CHECK_GR(grErrorInvalidDevice, grMemPoolSetAccess(pool, list, 2));
    CHECK_DETAIL_HAS("device 1000");
    list[1] = desc(grMemLocationTypeDevice, -1, grMemAccessFlagsProtNone);
    CHECK_GR(grErrorInvalidDevice, grMemPoolSetAccess(pool, list, 2));
    CHECK_EQ(access_of(pool, 0), grMemAccessFlagsProtReadWrite);
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(pool_access_refuses_bad_arguments_of_get_access)
{
    grMemPool_t pool = tl_pool(0), dead = tl_pool(0);
    grMemLocation cpu = {grMemLocationTypeDevice, 0};
    grMemLocation host = {grMemLocationTypeHost, 0};
    grMemLocation none = {grMemLocationTypeNone, 0};
    grMemLocation missing = {grMemLocationTypeDevice, 1000};
    grMemAccessFlags f = (grMemAccessFlags)-1;
    CHECK_REFUSED(grErrorInvalidValue, grMemPoolGetAccess, NULL, pool, &cpu);
    CHECK_GR(grErrorInvalidValue, grMemPoolGetAccess(&f, pool, NULL));
    CHECK_GR(grErrorInvalidValue, grMemPoolGetAccess(&f, NULL, &cpu));
    CHECK_GR(grErrorInvalidValue, grMemPoolGetAccess(&f, pool, &none));
    /* CUDA 13 (tests/probes/memory.cu, getaccess-*): a host location is
     * answered (a CPU pool is host memory), a missing device is invalid. */
    CHECK_OK(grMemPoolGetAccess(&f, pool, &host));
    CHECK_EQ(f, grMemAccessFlagsProtReadWrite);
    f = (grMemAccessFlags)-1;
    CHECK_GR(grErrorInvalidValue, grMemPoolGetAccess(&f, pool, &missing));
    CHECK_OK(grMemPoolDestroy(dead));
    CHECK_GR(grErrorInvalidValue, grMemPoolGetAccess(&f, dead, &cpu));
    CHECK_DETAIL_HAS("not live");
    grMemAccessDesc rw = {cpu, grMemAccessFlagsProtReadWrite};
    CHECK_GR(grErrorInvalidValue, grMemPoolSetAccess(dead, &rw, 1));
    CHECK_EQ(f, (grMemAccessFlags)-1);
    CHECK_OK(grMemPoolDestroy(pool));
}

/* With a GPU, the CPU's pool stores the GPU's flags, in order. */
GR_TEST(gpu_pool_access_of_a_cpu_pool_stores_a_gpus_flags)
{
    grMemPool_t pool = tl_pool(0);
    grMemAccessDesc list[3];
    int n = 0;
    if (grGetDeviceCount(&n) != grSuccess || n < 2)
        GR_TEST_SKIP("no GPU device");
    CHECK_EQ(access_of(pool, 1), grMemAccessFlagsProtNone);
    list[0] = desc(grMemLocationTypeDevice, 1, grMemAccessFlagsProtRead);
    CHECK_OK(grMemPoolSetAccess(pool, list, 1));
    CHECK_EQ(access_of(pool, 1), grMemAccessFlagsProtRead);
    /* Later descriptors win; a refused list leaves the flags. */
    list[0] = desc(grMemLocationTypeDevice, 1, grMemAccessFlagsProtNone);
    list[1] = desc(grMemLocationTypeDevice, 1, grMemAccessFlagsProtReadWrite);
    CHECK_OK(grMemPoolSetAccess(pool, list, 2));
    CHECK_EQ(access_of(pool, 1), grMemAccessFlagsProtReadWrite);
    list[0] = desc(grMemLocationTypeDevice, 1, grMemAccessFlagsProtNone);
    list[1] = desc(grMemLocationTypeDevice, 0, grMemAccessFlagsProtNone);
    CHECK_GR(grErrorInvalidDevice, grMemPoolSetAccess(pool, list, 2)); /* CUDA 13's code */
    CHECK_EQ(access_of(pool, 1), grMemAccessFlagsProtReadWrite);
    CHECK_OK(grMemPoolDestroy(pool));
}

/* A GPU's pool: its own GPU read-write, the CPU's flags stored. */
GR_TEST(gpu_pool_access_of_a_gpu_pool_keeps_its_gpu_and_stores_the_cpu)
{
    grMemPool_t pool = NULL;
    grMemPoolProps props;
    int n = 0;
    if (grGetDeviceCount(&n) != grSuccess || n < 2)
        GR_TEST_SKIP("no GPU device");
    props = tl_pool_props(1);
    CHECK_OK(grMemPoolCreate(&pool, &props));
    CHECK_EQ(access_of(pool, 1), grMemAccessFlagsProtReadWrite);
    CHECK_EQ(access_of(pool, 0), grMemAccessFlagsProtNone);
    grMemAccessDesc d = desc(grMemLocationTypeDevice, 0, grMemAccessFlagsProtReadWrite);
    CHECK_OK(grMemPoolSetAccess(pool, &d, 1));
    CHECK_EQ(access_of(pool, 0), grMemAccessFlagsProtReadWrite);
    d = desc(grMemLocationTypeDevice, 1, grMemAccessFlagsProtNone);
    CHECK_GR(grErrorInvalidDevice, grMemPoolSetAccess(pool, &d, 1)); /* CUDA 13's code */
    CHECK_EQ(access_of(pool, 1), grMemAccessFlagsProtReadWrite);
    CHECK_OK(grMemPoolDestroy(pool));
}
