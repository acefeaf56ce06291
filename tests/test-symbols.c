/*
 * test-symbols.c - registered symbols: lookup, copies to and from them
 * (eager, queued, captured, as nodes and through the exec setters), and
 * every refusal with its code and nothing changed.
 */
#include "test.h"

#include <string.h>

static int table[16];
static double scale;

static void reset_table(void)
{
    for (int i = 0; i < 16; i++)
        table[i] = -1;
}

GR_TEST(symbol_address_and_size_come_from_the_registration)
{
    void *p = NULL;
    size_t n = 0;
    CHECK_GR(grErrorInvalidSymbol, grGetSymbolAddress(&p, table));
    CHECK_OK(grRegisterSymbol(table, sizeof table, "table"));
    CHECK_OK(grGetSymbolAddress(&p, table));
    CHECK_PTR_EQ(p, (void *)table);
    CHECK_OK(grGetSymbolSize(&n, table));
    CHECK_EQ(n, sizeof table);
    /* A symbol is named by its start: an address inside it is not one. */
    CHECK_GR(grErrorInvalidSymbol, grGetSymbolSize(&n, &table[1]));
    CHECK_EQ(n, sizeof table);
    CHECK_GR(grErrorInvalidValue, grGetSymbolSize(NULL, table));
    CHECK_GR(grErrorInvalidValue, grGetSymbolAddress(NULL, table));
    CHECK_OK(grUnregisterSymbol(table));
    CHECK_GR(grErrorInvalidSymbol, grGetSymbolSize(&n, table));
    CHECK_GR(grErrorInvalidSymbol, grUnregisterSymbol(table));
}

GR_TEST(register_symbol_refuses_bad_ranges_and_overlaps)
{
    CHECK_GR(grErrorInvalidValue, grRegisterSymbol(NULL, 4, "x"));
    CHECK_GR(grErrorInvalidValue, grRegisterSymbol(table, 0, "x"));
    CHECK_GR(grErrorInvalidValue, grRegisterSymbol(table, SIZE_MAX, "x"));
    CHECK_OK(grRegisterSymbol(table, sizeof table, "table"));
    CHECK_GR(grErrorInvalidValue, grRegisterSymbol(&table[4], 8, "inner"));
    CHECK_DETAIL_HAS("'table'");
    CHECK_GR(grErrorInvalidValue, grRegisterSymbol(table, sizeof table, NULL));
    CHECK_OK(grRegisterSymbol(&scale, sizeof scale, NULL));
    size_t n = 0;
    CHECK_OK(grGetSymbolSize(&n, table)); /* the refused ones changed nothing */
    CHECK_EQ(n, sizeof table);
    CHECK_GR(grErrorInvalidSymbol, grGetSymbolSize(&n, &table[4]));
    CHECK_OK(grUnregisterSymbol(&scale));
    CHECK_OK(grUnregisterSymbol(table));
}

GR_TEST(memcpy_to_and_from_symbol_copies_at_the_offset)
{
    int src[4] = {10, 11, 12, 13}, dst[4] = {0, 0, 0, 0};
    reset_table();
    CHECK_OK(grRegisterSymbol(table, sizeof table, "table"));
    CHECK_OK(grMemcpyToSymbol(table, src, sizeof src, 3 * sizeof(int), grMemcpyHostToDevice));
    for (int i = 0; i < 16; i++)
        CHECK_EQ(table[i], i >= 3 && i < 7 ? 10 + i - 3 : -1);
    CHECK_OK(grMemcpyFromSymbol(dst, table, sizeof dst, 4 * sizeof(int), grMemcpyDeviceToHost));
    CHECK_EQ(dst[0], 11);
    CHECK_EQ(dst[2], 13);
    CHECK_EQ(dst[3], -1);
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMemcpyToSymbolAsync(table, src, sizeof(int), 0, grMemcpyDefault, s));
    CHECK_OK(grMemcpyFromSymbolAsync(dst, table, sizeof(int), 0, grMemcpyDefault, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(dst[0], 10);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grUnregisterSymbol(table));
}

GR_TEST(symbol_copies_refuse_bad_symbols_kinds_and_ranges_and_change_nothing)
{
    int src[4] = {1, 2, 3, 4};
    reset_table();
    CHECK_GR(grErrorInvalidSymbol, grMemcpyToSymbol(table, src, sizeof src, 0, grMemcpyHostToDevice));
    CHECK_OK(grRegisterSymbol(table, sizeof table, "table"));
    CHECK_GR(grErrorInvalidValue,
             grMemcpyToSymbol(table, src, sizeof src, sizeof table - 8, grMemcpyHostToDevice));
    CHECK_DETAIL_HAS("past the end");
    CHECK_GR(grErrorInvalidValue, grMemcpyFromSymbol(src, table, 4, SIZE_MAX, grMemcpyDeviceToHost));
    /* 0 bytes at any offset, past the end too, as CUDA 13 accepts them. */
    CHECK_OK(grMemcpyToSymbol(table, src, 0, sizeof table + 1, grMemcpyHostToDevice));
    CHECK_GR(grErrorInvalidMemcpyDirection,
             grMemcpyToSymbol(table, src, sizeof src, 0, grMemcpyDeviceToHost));
    CHECK_GR(grErrorInvalidMemcpyDirection, grMemcpyToSymbol(table, src, sizeof src, 0, grMemcpyHostToHost));
    CHECK_GR(grErrorInvalidMemcpyDirection,
             grMemcpyFromSymbol(src, table, sizeof src, 0, grMemcpyHostToDevice));
    CHECK_GR(grErrorInvalidSymbol, grMemcpyToSymbolAsync(&table[1], src, 4, 0, grMemcpyHostToDevice, NULL));
    for (int i = 0; i < 16; i++)
        CHECK_EQ(table[i], -1);
    CHECK_EQ(src[0], 1);
    CHECK_OK(grUnregisterSymbol(table));
}

static void capture_symbol_copy(int *src, int *dst, grGraph_t *g)
{
    grStream_t s;
    *g = NULL;
    if (grStreamCreate(&s) != grSuccess)
        return;
    if (grStreamBeginCapture(s, grStreamCaptureModeGlobal) == grSuccess) {
        grMemcpyToSymbolAsync(table, src, 2 * sizeof(int), 8 * sizeof(int), grMemcpyHostToDevice, s);
        grMemcpyFromSymbolAsync(dst, table, 2 * sizeof(int), 8 * sizeof(int), grMemcpyDeviceToHost, s);
        grStreamEndCapture(s, g);
    }
    grStreamDestroy(s);
}

GR_TEST(captured_symbol_copies_are_memcpy_nodes_with_the_eager_result)
{
    int src[2] = {7, 8}, dst[2] = {0, 0};
    grGraph_t g;
    grGraphExec_t e;
    reset_table();
    CHECK_OK(grRegisterSymbol(table, sizeof table, "table"));
    capture_symbol_copy(src, dst, &g);
    CHECK(g != NULL);
    size_t count = 0;
    CHECK_OK(grGraphGetNodes(g, NULL, &count));
    CHECK_EQ(count, (size_t)2);
    CHECK_EQ(table[8], -1); /* captured, not run */
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphLaunch(e, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_EQ(table[8], 7);
    CHECK_EQ(table[9], 8);
    CHECK_EQ(dst[0], 7);
    CHECK_EQ(dst[1], 8);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grUnregisterSymbol(table));
}

GR_TEST(symbol_memcpy_nodes_and_their_setters_resolve_the_symbol)
{
    int src[4] = {20, 21, 22, 23}, dst[4] = {0, 0, 0, 0};
    grGraph_t g;
    grGraphNode_t to, from;
    grGraphExec_t e;
    reset_table();
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_GR(grErrorInvalidSymbol,
             grGraphAddMemcpyNodeToSymbol(&to, g, NULL, 0, table, src, 4, 0, grMemcpyHostToDevice));
    CHECK_OK(grRegisterSymbol(table, sizeof table, "table"));
    CHECK_GR(grErrorInvalidValue, grGraphAddMemcpyNodeToSymbol(&to, g, NULL, 0, table, src, sizeof table, 4,
                                                               grMemcpyHostToDevice));
    size_t count = 0;
    CHECK_OK(grGraphGetNodes(g, NULL, &count));
    CHECK_EQ(count, (size_t)0);
    CHECK_OK(grGraphAddMemcpyNodeToSymbol(&to, g, NULL, 0, table, src, sizeof src, 0, grMemcpyHostToDevice));
    CHECK_OK(
        grGraphAddMemcpyNodeFromSymbol(&from, g, &to, 1, dst, table, sizeof dst, 0, grMemcpyDeviceToHost));
    grMemcpy3DParms p;
    CHECK_OK(grGraphMemcpyNodeGetParams(to, &p));
    CHECK_PTR_EQ(p.dstPtr.ptr, (void *)table);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphLaunch(e, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK(memcmp(dst, src, sizeof src) == 0);
    /* Exec setters: write at offset 8 ints, read back from there. */
    CHECK_GR(grErrorInvalidValue, grGraphExecMemcpyNodeSetParamsToSymbol(
                                      e, to, table, src, sizeof src, 14 * sizeof(int), grMemcpyHostToDevice));
    CHECK_OK(grGraphExecMemcpyNodeSetParamsToSymbol(e, to, table, src, sizeof src, 8 * sizeof(int),
                                                    grMemcpyHostToDevice));
    CHECK_OK(grGraphExecMemcpyNodeSetParamsFromSymbol(e, from, dst, table, sizeof dst, 6 * sizeof(int),
                                                      grMemcpyDeviceToHost));
    CHECK_OK(grGraphLaunch(e, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    /* dst = table[6..9]: two untouched ints, then the first two written. */
    CHECK_EQ(dst[0], -1);
    CHECK_EQ(dst[1], -1);
    CHECK_EQ(dst[2], 20);
    CHECK_EQ(dst[3], 21);
    CHECK_OK(grGraphExecDestroy(e));
    /* Graph setters. */
    CHECK_OK(
        grGraphMemcpyNodeSetParamsToSymbol(to, table, src, sizeof(int), 15 * sizeof(int), grMemcpyDefault));
    CHECK_OK(grGraphMemcpyNodeSetParamsFromSymbol(from, dst, table, sizeof(int), 15 * sizeof(int),
                                                  grMemcpyDefault));
    CHECK_GR(grErrorInvalidMemcpyDirection,
             grGraphMemcpyNodeSetParamsFromSymbol(from, dst, table, sizeof(int), 0, grMemcpyHostToDevice));
    CHECK_OK(grGraphMemcpyNodeGetParams(from, &p));
    CHECK_PTR_EQ(p.srcPtr.ptr, (void *)&table[15]);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grUnregisterSymbol(table));
}
