/*
 * symbol.c - symbols: C objects registered under their address
 * (grRegisterSymbol), and the calls that CUDA offers for __device__
 * globals: grGetSymbolAddress, grGetSymbolSize, grMemcpyToSymbol(Async),
 * grMemcpyFromSymbol(Async) and the memcpy node variants.
 *
 * The registry is a sorted array of disjoint ranges under one mutex; a
 * lookup is a binary search for the exact start address, as CUDA finds a
 * symbol by its exact address. A symbol call resolves the symbol, checks
 * kind and offset + count against the symbol's size, then is the 1D copy
 * of symbol + offset (api/memory.c, or the memcpy node calls).
 *
 * Invariants:
 *   - registered ranges never overlap, so one address names one symbol;
 *   - a refused call changes nothing (the registry is changed only after
 *     every check and allocation succeeded).
 */
#include "api.h"

#include <pthread.h>
#include <string.h>

typedef struct gr_symbol {
    const char *base;
    size_t size;
    char *name; /* NULL: none */
} gr_symbol;

static pthread_mutex_t symbols_lock = PTHREAD_MUTEX_INITIALIZER;
static gr_symbol *symbols; /* sorted by base */
static size_t nsymbols, symbols_cap;

/* The index of the first symbol whose base is >= p. Lock held. */
static size_t lower_bound(const char *p)
{
    size_t lo = 0, hi = nsymbols;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (symbols[mid].base < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

GR_API grError_t grRegisterSymbol(const void *symbol, size_t size, const char *name)
{
    static const char call[] = "grRegisterSymbol";
    const char *p = symbol;
    if (symbol == NULL)
        return gr__fail(grErrorInvalidValue, "%s: symbol is NULL; pass the address of the object", call);
    if (size == 0 || (uintptr_t)p + size < (uintptr_t)p)
        return gr__fail(grErrorInvalidValue, "%s: size %zu is %s; pass the object's size (sizeof)", call,
                        size, size == 0 ? "0" : "past the end of the address space");
    char *copy = NULL;
    if (name && (copy = gr__malloc(strlen(name) + 1)) == NULL)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory copying the name", call);
    if (copy)
        memcpy(copy, name, strlen(name) + 1);
    pthread_mutex_lock(&symbols_lock);
    size_t i = lower_bound(p);
    const gr_symbol *clash = NULL;
    if (i < nsymbols && symbols[i].base < p + size)
        clash = &symbols[i];
    else if (i > 0 && symbols[i - 1].base + symbols[i - 1].size > p)
        clash = &symbols[i - 1];
    if (clash) {
        grError_t err = gr__fail(grErrorInvalidValue,
                                 "%s: the %zu bytes at %p overlap the symbol '%s' (%zu bytes at %p); a "
                                 "symbol is registered once (grUnregisterSymbol first)",
                                 call, size, symbol, clash->name ? clash->name : "(unnamed)", clash->size,
                                 (const void *)clash->base);
        pthread_mutex_unlock(&symbols_lock);
        gr__free(copy);
        return err;
    }
    if (nsymbols == symbols_cap) {
        size_t cap = symbols_cap ? 2 * symbols_cap : 16;
        gr_symbol *grown = gr__realloc(symbols, cap * sizeof *grown);
        if (grown == NULL) {
            pthread_mutex_unlock(&symbols_lock);
            gr__free(copy);
            return gr__fail(grErrorMemoryAllocation, "%s: out of memory growing the symbol table", call);
        }
        symbols = grown;
        symbols_cap = cap;
    }
    memmove(&symbols[i + 1], &symbols[i], (nsymbols - i) * sizeof *symbols);
    symbols[i] = (gr_symbol){p, size, copy};
    nsymbols++;
    pthread_mutex_unlock(&symbols_lock);
    return grSuccess;
}

static grError_t unregistered(const char *call, const void *symbol)
{
    return gr__fail(grErrorInvalidSymbol,
                    "%s: %p is not a registered symbol (register the object with grRegisterSymbol; a "
                    "symbol is named by its start address)",
                    call, symbol);
}

GR_API grError_t grUnregisterSymbol(const void *symbol)
{
    pthread_mutex_lock(&symbols_lock);
    size_t i = lower_bound(symbol);
    if (symbol == NULL || i == nsymbols || symbols[i].base != symbol) {
        pthread_mutex_unlock(&symbols_lock);
        return unregistered("grUnregisterSymbol", symbol);
    }
    char *name = symbols[i].name;
    memmove(&symbols[i], &symbols[i + 1], (nsymbols - i - 1) * sizeof *symbols);
    if (--nsymbols == 0) {
        gr__free(symbols);
        symbols = NULL;
        symbols_cap = 0;
    }
    pthread_mutex_unlock(&symbols_lock);
    gr__free(name);
    return grSuccess;
}

/* The size of registered symbol 'symbol', or grErrorInvalidSymbol. */
static grError_t lookup(const char *call, const void *symbol, size_t *size)
{
    pthread_mutex_lock(&symbols_lock);
    size_t i = lower_bound(symbol);
    bool found = symbol != NULL && i < nsymbols && symbols[i].base == symbol;
    if (found)
        *size = symbols[i].size;
    pthread_mutex_unlock(&symbols_lock);
    return found ? grSuccess : unregistered(call, symbol);
}

GR_API grError_t grGetSymbolAddress(void **devPtr, const void *symbol)
{
    size_t size;
    if (devPtr == NULL)
        return gr__fail(grErrorInvalidValue,
                        "grGetSymbolAddress: devPtr is NULL; pass where to store the address");
    grError_t err = lookup("grGetSymbolAddress", symbol, &size);
    if (err == grSuccess)
        *devPtr = (void *)(uintptr_t)symbol;
    return err;
}

GR_API grError_t grGetSymbolSize(size_t *size, const void *symbol)
{
    size_t n;
    if (size == NULL)
        return gr__fail(grErrorInvalidValue, "grGetSymbolSize: size is NULL; pass where to store the size");
    grError_t err = lookup("grGetSymbolSize", symbol, &n);
    if (err == grSuccess)
        *size = n;
    return err;
}

/* The address of count bytes at symbol + offset, checked: the symbol is
 * registered, the kind one CUDA accepts for the direction ('to': into the
 * symbol), the bytes inside the symbol. */
static grError_t resolve(const char *call, const void *symbol, size_t count, size_t offset, grMemcpyKind kind,
                         bool to, char **out)
{
    size_t size, end;
    grError_t err = lookup(call, symbol, &size);
    if (err != grSuccess)
        return err;
    grMemcpyKind other = to ? grMemcpyHostToDevice : grMemcpyDeviceToHost;
    if (kind != other && kind != grMemcpyDeviceToDevice && kind != grMemcpyDefault)
        return gr__fail(grErrorInvalidMemcpyDirection,
                        "%s: kind %d is not a copy %s a symbol; pass %s, grMemcpyDeviceToDevice or "
                        "grMemcpyDefault",
                        call, (int)kind, to ? "to" : "from",
                        to ? "grMemcpyHostToDevice" : "grMemcpyDeviceToHost");
    /* CUDA 13 (probed on an H200) accepts 0 bytes at any offset. */
    if (count > 0 && (__builtin_add_overflow(offset, count, &end) || end > size))
        return gr__fail(grErrorInvalidValue,
                        "%s: offset %zu + count %zu runs past the end of the %zu-byte symbol at %p", call,
                        offset, count, size, symbol);
    *out = (char *)(uintptr_t)symbol + offset;
    return grSuccess;
}

static grError_t to_symbol(const char *call, const void *symbol, const void *src, size_t count, size_t offset,
                           grMemcpyKind kind, grStream_t stream, bool sync)
{
    char *dst;
    gr_stream *s;
    grError_t err = resolve(call, symbol, count, offset, kind, true, &dst);
    if (err == grSuccess)
        err = gr__api_copy_enqueue(call, dst, src, count, kind, stream, sync, &s);
    return err == grSuccess && sync && count > 0 ? gr__api_wait_legacy(call, s) : err;
}

static grError_t from_symbol(const char *call, void *dst, const void *symbol, size_t count, size_t offset,
                             grMemcpyKind kind, grStream_t stream, bool sync)
{
    char *src;
    gr_stream *s;
    grError_t err = resolve(call, symbol, count, offset, kind, false, &src);
    if (err == grSuccess)
        err = gr__api_copy_enqueue(call, dst, src, count, kind, stream, sync, &s);
    return err == grSuccess && sync && count > 0 ? gr__api_wait_legacy(call, s) : err;
}

GR_API grError_t grMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                                  grMemcpyKind kind)
{
    return to_symbol("grMemcpyToSymbol", symbol, src, count, offset, kind, NULL, true);
}

GR_API grError_t grMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                    grMemcpyKind kind)
{
    return from_symbol("grMemcpyFromSymbol", dst, symbol, count, offset, kind, NULL, true);
}

GR_API grError_t grMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                       grMemcpyKind kind, grStream_t stream)
{
    return to_symbol("grMemcpyToSymbolAsync", symbol, src, count, offset, kind, stream, false);
}

GR_API grError_t grMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                         grMemcpyKind kind, grStream_t stream)
{
    return from_symbol("grMemcpyFromSymbolAsync", dst, symbol, count, offset, kind, stream, false);
}

/* ---------------------------------------------------------- memcpy nodes */

GR_API grError_t grGraphAddMemcpyNodeToSymbol(grGraphNode_t *pGraphNode, grGraph_t graph,
                                              const grGraphNode_t *pDependencies, size_t numDependencies,
                                              const void *symbol, const void *src, size_t count,
                                              size_t offset, grMemcpyKind kind)
{
    char *dst;
    grError_t err = resolve("grGraphAddMemcpyNodeToSymbol", symbol, count, offset, kind, true, &dst);
    if (err != grSuccess)
        return err;
    return grGraphAddMemcpyNode1D(pGraphNode, graph, pDependencies, numDependencies, dst, src, count, kind);
}

GR_API grError_t grGraphAddMemcpyNodeFromSymbol(grGraphNode_t *pGraphNode, grGraph_t graph,
                                                const grGraphNode_t *pDependencies, size_t numDependencies,
                                                void *dst, const void *symbol, size_t count, size_t offset,
                                                grMemcpyKind kind)
{
    char *src;
    grError_t err = resolve("grGraphAddMemcpyNodeFromSymbol", symbol, count, offset, kind, false, &src);
    if (err != grSuccess)
        return err;
    return grGraphAddMemcpyNode1D(pGraphNode, graph, pDependencies, numDependencies, dst, src, count, kind);
}

GR_API grError_t grGraphMemcpyNodeSetParamsToSymbol(grGraphNode_t node, const void *symbol, const void *src,
                                                    size_t count, size_t offset, grMemcpyKind kind)
{
    char *dst;
    grError_t err = resolve("grGraphMemcpyNodeSetParamsToSymbol", symbol, count, offset, kind, true, &dst);
    if (err != grSuccess)
        return err;
    return grGraphMemcpyNodeSetParams1D(node, dst, src, count, kind);
}

GR_API grError_t grGraphMemcpyNodeSetParamsFromSymbol(grGraphNode_t node, void *dst, const void *symbol,
                                                      size_t count, size_t offset, grMemcpyKind kind)
{
    char *src;
    grError_t err = resolve("grGraphMemcpyNodeSetParamsFromSymbol", symbol, count, offset, kind, false, &src);
    if (err != grSuccess)
        return err;
    return grGraphMemcpyNodeSetParams1D(node, dst, src, count, kind);
}

GR_API grError_t grGraphExecMemcpyNodeSetParamsToSymbol(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                        const void *symbol, const void *src, size_t count,
                                                        size_t offset, grMemcpyKind kind)
{
    char *dst;
    grError_t err =
        resolve("grGraphExecMemcpyNodeSetParamsToSymbol", symbol, count, offset, kind, true, &dst);
    if (err != grSuccess)
        return err;
    return grGraphExecMemcpyNodeSetParams1D(hGraphExec, node, dst, src, count, kind);
}

GR_API grError_t grGraphExecMemcpyNodeSetParamsFromSymbol(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                          void *dst, const void *symbol, size_t count,
                                                          size_t offset, grMemcpyKind kind)
{
    char *src;
    grError_t err =
        resolve("grGraphExecMemcpyNodeSetParamsFromSymbol", symbol, count, offset, kind, false, &src);
    if (err != grSuccess)
        return err;
    return grGraphExecMemcpyNodeSetParams1D(hGraphExec, node, dst, src, count, kind);
}
