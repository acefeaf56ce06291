/*
 * file_load.c - grGraphLoadFromFile: a graph file (docs/graph-files.md)
 * read back into a new graph.
 *
 * The file is read whole, then line by line: the header, the
 * declarations (kernels and host functions resolved by name, buffers
 * allocated, events created), then the nodes, each added by the graph
 * layer's own grGraphAdd*Node, so that a loaded node passes every check a
 * program's node does. Edges to later nodes and edge orders the adds
 * cannot produce are set once the graph they belong to is complete.
 *
 * Invariants:
 *   - every refusal names the file and line ("PATH:LINE: ...") and leaves
 *     nothing behind: the graphs built so far are destroyed, the kernels
 *     the loader holds released, and the resource record (buffers,
 *     events) dies with its last reference;
 *   - the loader never reads outside the file's bytes: lines are cut in
 *     place, every number is range-checked before use, child graphs nest
 *     at most GR_GRAPH_MAX_NEST deep.
 */
#include "file_int.h"

#include "../../backend/device.h"
#include "../../backend/comm.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Fields of a node line beyond its name and type. */
#define MAX_FIELDS 16

typedef struct kdecl {
    grKernel_t k; /* one reference held by the loader */
} kdecl;

typedef struct hdecl {
    grHostFn_t fn;
    void *data; /* the registered userData, or the stand-in's name */
} hdecl;

/* The nodes of one graph being read, by index ("n<index>"). */
typedef struct scope {
    grGraphNode_t *nodes;
    size_t n, cap;
    bool late; /* some node depends on a later one */
    /* Nodes whose edges are set when the graph is complete: (index, line,
     * list text) of an 'after' naming a later node or of a 'succ'. */
    struct fixup {
        size_t index, line;
        const char *after, *succ;
    } * fix;
    size_t nfix, capfix;
} scope;

typedef struct loader {
    const char *call, *path;
    unsigned flags;
    char *text;
    size_t len, pos, line;
    kdecl *kernels;
    size_t nkernels, capkernels;
    hdecl *hostfns;
    size_t nhostfns, caphostfns;
    struct gr_file_res *res;
    /* The 'cond' declarations (default value, flags); their handles are
     * made for the top graph once it exists. */
    struct cdecl {
        unsigned defval, flags;
        grGraphConditionalHandle h;
    } * conds;
    size_t nconds, capconds;
    scope *top; /* the top graph's nodes: '@n<i>' names them */
    /* The communicators collective nodes name (by rank and size), one
     * each, so that the nodes of one communicator share it; the loader's
     * references, given back once the nodes hold theirs. */
    grComm_t *comms;
    size_t ncomms;
} loader;

GR_PRINTF(3, 4)
static grError_t lfail(loader *ld, grError_t err, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gr__fail(err, "%s: %s:%zu: %s", ld->call, ld->path, ld->line, msg);
}

static grError_t lfail_oom(loader *ld)
{
    return lfail(ld, grErrorMemoryAllocation, "out of memory");
}

/* A graph call refused what the line describes: its detail, placed. */
static grError_t lfail_call(loader *ld, grError_t err)
{
    char detail[400];
    snprintf(detail, sizeof detail, "%s", grGetLastErrorDetail());
    return lfail(ld, err == grErrorMemoryAllocation ? err : grErrorInvalidValue, "%s", detail);
}

/* Makes room for one more element. */
static bool grow(void **arr, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return true;
    size_t ncap = *cap ? 2 * *cap : 16;
    void *na = gr__realloc(*arr, ncap * size);
    if (!na)
        return false;
    *arr = na;
    *cap = ncap;
    return true;
}

/* ---------------------------------------------------------------- lines */

/*
 * The next line that is not blank or a comment, its leading spaces
 * skipped and its newline cut: *out is NULL at the end of the file.
 * Fails on a last line without its newline (a truncated file) and on NUL
 * bytes.
 */
static grError_t next_line(loader *ld, char **out)
{
    for (;;) {
        *out = NULL;
        if (ld->pos >= ld->len)
            return grSuccess;
        ld->line++;
        char *s = ld->text + ld->pos;
        char *nl = memchr(s, '\n', ld->len - ld->pos);
        if (!nl)
            return lfail(ld, grErrorInvalidValue,
                         "the last line has no newline: the file is truncated (every line of a graph file "
                         "ends with '\\n')");
        *nl = '\0';
        ld->pos = (size_t)(nl - ld->text) + 1;
        if (strlen(s) != (size_t)(nl - s))
            return lfail(ld, grErrorInvalidValue, "the line holds a NUL byte; a graph file is text");
        while (*s == ' ')
            s++;
        if (*s == '\0' || *s == '#')
            continue;
        *out = s;
        return grSuccess;
    }
}

/* Splits s at spaces into at most max tokens; false if there are more. */
static bool split(char *s, char **tok, size_t max, size_t *n)
{
    *n = 0;
    while (*s) {
        while (*s == ' ')
            *s++ = '\0';
        if (!*s)
            break;
        if (*n == max)
            return false;
        tok[(*n)++] = s;
        while (*s && *s != ' ')
            s++;
    }
    return true;
}

/* --------------------------------------------------------------- values */

/* A decimal number of at most 'max', all of str. */
static bool parse_u64(const char *str, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (!*str)
        return false;
    for (; *str; str++) {
        if (*str < '0' || *str > '9')
            return false;
        unsigned d = (unsigned)(*str - '0');
        if (v > (max - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Exactly 2n lowercase hex digits into n bytes. */
static bool parse_hex(const char *str, size_t len, unsigned char *out, size_t n)
{
    if (len != 2 * n)
        return false;
    for (size_t i = 0; i < n; i++) {
        int hi = hex_digit(str[2 * i]), lo = hex_digit(str[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return true;
}

/* "<letter><index>" with index < limit. */
static bool parse_id(const char *str, char letter, size_t limit, size_t *out)
{
    uint64_t v;
    if (str[0] != letter || !parse_u64(str + 1, UINT32_MAX, &v) || v >= limit)
        return false;
    *out = (size_t)v;
    return true;
}

/* A quoted name (the saver's escapes undone) into a new string. */
static grError_t parse_quoted(loader *ld, const char *str, char **out)
{
    size_t len = strlen(str);
    if (len < 2 || str[0] != '"' || str[len - 1] != '"')
        return lfail(ld, grErrorInvalidValue, "expected a name in double quotes, found '%.60s'", str);
    char *name = gr__malloc(len);
    if (!name)
        return lfail_oom(ld);
    size_t w = 0;
    for (size_t i = 1; i + 1 < len; i++) {
        char c = str[i];
        if (c == '"')
            goto bad;
        if (c == '\\') {
            if (i + 2 < len && (str[i + 1] == '"' || str[i + 1] == '\\')) {
                name[w++] = str[++i];
                continue;
            }
            unsigned char b;
            if (i + 4 < len && str[i + 1] == 'x' && parse_hex(str + i + 2, 2, &b, 1) && b != 0) {
                name[w++] = (char)b;
                i += 3;
                continue;
            }
            goto bad;
        }
        name[w++] = c;
    }
    if (w == 0)
        goto bad;
    name[w] = '\0';
    *out = name;
    return grSuccess;
bad:
    gr__free(name);
    return lfail(ld, grErrorInvalidValue,
                 "the name %.60s is empty or badly escaped (only \\\", \\\\ and \\xHH)", str);
}

/* ------------------------------------------------------------- header */

static grError_t read_header(loader *ld)
{
    char *s;
    /* The first line, exactly: no comment may come before it. */
    ld->line = 1;
    char *nl = memchr(ld->text, '\n', ld->len);
    size_t mlen = sizeof GR_FILE_MAGIC - 1;
    if (ld->len < mlen + 1 || memcmp(ld->text, GR_FILE_MAGIC " ", mlen + 1) != 0)
        return lfail(ld, grErrorInvalidValue,
                     "not a graphrt graph file: the first line must be '" GR_FILE_MAGIC " %d'",
                     GR_FILE_VERSION);
    if (!nl)
        return lfail(ld, grErrorInvalidValue, "the first line has no newline: the file is truncated");
    *nl = '\0';
    s = ld->text + mlen + 1;
    uint64_t v;
    if (!parse_u64(s, UINT32_MAX, &v))
        return lfail(ld, grErrorInvalidValue, "the version '%.20s' is not a number", s);
    if (v != GR_FILE_VERSION)
        return lfail(ld, grErrorInvalidValue,
                     "version %llu is not supported: this graphrt reads version %d (save the graph again "
                     "with a graphrt that writes it, or load it with the graphrt that wrote it)",
                     (unsigned long long)v, GR_FILE_VERSION);
    ld->pos = (size_t)(nl - ld->text) + 1;
    return grSuccess;
}

/* ------------------------------------------------------- declarations */

static grError_t decl_kernel(loader *ld, char **tok, size_t ntok)
{
    size_t id, sizes[64];
    char *name = NULL;
    grError_t err;
    if (ntok < 3 || !parse_id(tok[1], 'k', ld->nkernels + 1, &id) || id != ld->nkernels)
        return lfail(ld, grErrorInvalidValue, "expected 'kernel k%zu \"NAME\" SIZES...'", ld->nkernels);
    if (ntok - 3 > 64)
        return lfail(ld, grErrorInvalidValue, "kernel k%zu has %zu parameters; a kernel takes at most 64", id,
                     ntok - 3);
    for (size_t i = 3; i < ntok; i++) {
        uint64_t v;
        if (!parse_u64(tok[i], 4096, &v) || v == 0)
            return lfail(ld, grErrorInvalidValue,
                         "parameter %zu of kernel k%zu has size '%.20s'; sizes are 1..4096 bytes", i - 3, id,
                         tok[i]);
        sizes[i - 3] = (size_t)v;
    }
    int np = (int)(ntok - 3);
    if ((err = parse_quoted(ld, tok[2], &name)))
        return err;
    if (!grow((void **)&ld->kernels, ld->nkernels, &ld->capkernels, sizeof *ld->kernels)) {
        gr__free(name);
        return lfail_oom(ld);
    }
    grKernel_t k;
    if (ld->flags & grGraphLoadStandIns) {
        k = gr__kernel_new(gr__standin_kernel, name, np, sizes);
        if (!k)
            err = lfail_oom(ld);
    } else if (!(k = gr__kernel_find(name))) {
        err =
            lfail(ld, grErrorInvalidValue,
                  "kernel '%s' is not registered: create it with grKernelCreate(&k, fn, \"%s\", ...) before "
                  "loading, or load with grGraphLoadStandIns",
                  name, name);
    } else {
        bool same = k->nparams == np;
        for (int i = 0; same && i < np; i++)
            same = k->sizes[i] == sizes[i];
        if (!same) {
            err = lfail(ld, grErrorInvalidValue,
                        "kernel '%s' is registered with %d parameters of other sizes than the file's %d; "
                        "register it as the program that saved the file did",
                        name, k->nparams, np);
            gr__kernel_release(k);
        }
    }
    gr__free(name);
    if (err)
        return err;
    ld->kernels[ld->nkernels++].k = k;
    return grSuccess;
}

static grError_t decl_hostfn(loader *ld, char **tok, size_t ntok)
{
    size_t id;
    char *name = NULL;
    grError_t err;
    if (ntok != 3 || !parse_id(tok[1], 'h', ld->nhostfns + 1, &id) || id != ld->nhostfns)
        return lfail(ld, grErrorInvalidValue, "expected 'hostfn h%zu \"NAME\"'", ld->nhostfns);
    if ((err = parse_quoted(ld, tok[2], &name)))
        return err;
    if (!grow((void **)&ld->hostfns, ld->nhostfns, &ld->caphostfns, sizeof *ld->hostfns)) {
        gr__free(name);
        return lfail_oom(ld);
    }
    hdecl *h = &ld->hostfns[ld->nhostfns];
    err = grSuccess;
    if (ld->flags & grGraphLoadStandIns) {
        /* The record owns the name: the stand-in's userData. */
        if (!gr__file_res_add_name(ld->res, name)) {
            gr__free(name);
            return lfail_oom(ld);
        }
        h->fn = gr__standin_host;
        h->data = name;
    } else {
        bool found = gr__hostfn_find(name, &h->fn, &h->data);
        if (!found)
            err = lfail(ld, grErrorInvalidValue,
                        "host function '%s' is not registered: register it with grHostFnRegister(fn, \"%s\", "
                        "userData) before loading, or load with grGraphLoadStandIns",
                        name, name);
        gr__free(name);
        if (err)
            return err;
    }
    ld->nhostfns++;
    return grSuccess;
}

static grError_t decl_buffer(loader *ld, char **tok, size_t ntok)
{
    size_t id;
    uint64_t size;
    gr_mem_kind kind;
    void *p;
    grError_t err;
    size_t next = ld->res->nbufs;
    if (ntok != 4 || !parse_id(tok[1], 'b', next + 1, &id) || id != next)
        return lfail(ld, grErrorInvalidValue, "expected 'buffer b%zu device|host SIZE'", next);
    if (strcmp(tok[2], GR_FILE_WORD_DEVICE) == 0)
        kind = GR_MEM_DEVICE;
    else if (strcmp(tok[2], GR_FILE_WORD_HOST) == 0)
        kind = GR_MEM_HOST;
    else
        return lfail(ld, grErrorInvalidValue, "buffer b%zu has kind '%.20s'; kinds are 'device' and 'host'",
                     id, tok[2]);
    if (!parse_u64(tok[3], SIZE_MAX, &size) || size == 0)
        return lfail(ld, grErrorInvalidValue, "buffer b%zu has size '%.24s'; a size is a number above 0", id,
                     tok[3]);
    if ((err = gr__mem_alloc(ld->call, (size_t)size, kind, &p)))
        return lfail_call(ld, err);
    if (!gr__file_res_add_buf(ld->res, p, (size_t)size, kind)) {
        gr__mem_free_block(p, kind);
        return lfail_oom(ld);
    }
    /* Replays start from known contents. */
    memset(p, 0, (size_t)size);
    return grSuccess;
}

static grError_t decl_event(loader *ld, char **tok, size_t ntok)
{
    size_t id, next = ld->res->nevents;
    uint64_t flags;
    if (ntok != 3 || !parse_id(tok[1], 'e', next + 1, &id) || id != next)
        return lfail(ld, grErrorInvalidValue, "expected 'event e%zu FLAGS'", next);
    if (!parse_u64(tok[2], UINT32_MAX, &flags) ||
        (flags & ~(uint64_t)(grEventBlockingSync | grEventDisableTiming)))
        return lfail(ld, grErrorInvalidValue,
                     "event e%zu has flags '%.20s'; flags are a sum of grEventBlockingSync (%u) and "
                     "grEventDisableTiming (%u)",
                     id, tok[2], (unsigned)grEventBlockingSync, (unsigned)grEventDisableTiming);
    if (gr__device_start_dev("grGraphLoadFromFile", 0) != grSuccess)
        return lfail(ld, grErrorInitializationError, "the graphrt runtime could not start");
    grEvent_t e = gr__event_create((unsigned)flags);
    if (!e || !gr__file_res_add_event(ld->res, e)) {
        if (e)
            gr__event_destroy(e);
        return lfail_oom(ld);
    }
    return grSuccess;
}

static grError_t decl_cond(loader *ld, char **tok, size_t ntok)
{
    size_t id, next = ld->nconds;
    uint64_t defval, flags;
    if (ntok == 4 && parse_id(tok[1], 'c', next, &id))
        return lfail(ld, grErrorInvalidValue, "conditional handle c%zu is declared twice", id);
    if (ntok != 4 || !parse_id(tok[1], 'c', next + 1, &id) || id != next ||
        strncmp(tok[2], GR_FILE_KEY_DEFAULT "=", sizeof GR_FILE_KEY_DEFAULT) != 0 ||
        strncmp(tok[3], GR_FILE_KEY_FLAGS "=", sizeof GR_FILE_KEY_FLAGS) != 0)
        return lfail(ld, grErrorInvalidValue, "expected 'cond c%zu default=VALUE flags=FLAGS'", next);
    if (!parse_u64(tok[2] + sizeof GR_FILE_KEY_DEFAULT, UINT32_MAX, &defval))
        return lfail(ld, grErrorInvalidValue,
                     "conditional handle c%zu has default '%.20s'; it is a number of at most %u", id,
                     tok[2] + sizeof GR_FILE_KEY_DEFAULT, UINT32_MAX);
    if (!parse_u64(tok[3] + sizeof GR_FILE_KEY_FLAGS, UINT32_MAX, &flags) ||
        (flags & ~(uint64_t)grGraphCondAssignDefault))
        return lfail(
            ld, grErrorInvalidValue,
            "conditional handle c%zu has flags '%.20s'; flags are 0 or grGraphCondAssignDefault (%u)", id,
            tok[3] + sizeof GR_FILE_KEY_FLAGS, (unsigned)grGraphCondAssignDefault);
    if (!grow((void **)&ld->conds, ld->nconds, &ld->capconds, sizeof *ld->conds))
        return lfail_oom(ld);
    ld->conds[ld->nconds++] = (struct cdecl){(unsigned)defval, (unsigned)flags, 0};
    return grSuccess;
}

/* ----------------------------------------------------------- node lines */

typedef struct fields {
    const char *key[MAX_FIELDS];
    const char *val[MAX_FIELDS];
    bool used[MAX_FIELDS];
    size_t n;
    const char *pos; /* the one positional field (k0, h0, e0), or NULL */
    bool brace;      /* the line ends with '{' */
} fields;

/* The value of field 'key', NULL if absent (refused later if required). */
static const char *field(fields *f, const char *key)
{
    /* The first byte first: most keys differ there (a node line has a
     * handful of fields, and a large file millions of lookups). */
    for (size_t i = 0; i < f->n; i++)
        if (f->key[i][0] == key[0] && strcmp(f->key[i], key) == 0) {
            f->used[i] = true;
            return f->val[i];
        }
    return NULL;
}

static grError_t need(loader *ld, fields *f, const char *key, const char *type, const char **out)
{
    if (!(*out = field(f, key)))
        return lfail(ld, grErrorInvalidValue, "the %s node has no '%s=' field", type, key);
    return grSuccess;
}

static grError_t need_u64(loader *ld, fields *f, const char *key, const char *type, uint64_t max,
                          uint64_t *out)
{
    const char *v;
    grError_t err = need(ld, f, key, type, &v);
    if (err)
        return err;
    if (!parse_u64(v, max, out))
        return lfail(ld, grErrorInvalidValue, "field %s=%.24s is not a number of at most %llu", key, v,
                     (unsigned long long)max);
    return grSuccess;
}

static grError_t need_dim(loader *ld, fields *f, const char *key, grDim3 *d)
{
    const char *v;
    char buf[40];
    char *parts[3];
    size_t n = 0;
    uint64_t x[3];
    grError_t err = need(ld, f, key, "kernel", &v);
    if (err)
        return err;
    if (strlen(v) >= sizeof buf)
        return lfail(ld, grErrorInvalidValue, "field %s=%.40s is not X,Y,Z", key, v);
    strcpy(buf, v);
    for (char *s = buf, *c; n < 3; s = c + 1) {
        parts[n++] = s;
        if (!(c = strchr(s, ',')))
            break;
        *c = '\0';
    }
    for (size_t i = 0; i < n; i++)
        if (!parse_u64(parts[i], UINT32_MAX, &x[i]))
            n = 0;
    if (n != 3)
        return lfail(ld, grErrorInvalidValue, "field %s=%.40s is not X,Y,Z (three numbers)", key, v);
    *d = GR_DIM3((unsigned)x[0], (unsigned)x[1], (unsigned)x[2]);
    return grSuccess;
}

/*
 * A reference "null", "b<k>+<off>" (a buffer) or "@n<i>+<off>" (the
 * memory of allocation node i of the top graph, which must come before
 * this line), of len bytes of text, into a pointer.
 */
static grError_t parse_ref(loader *ld, const char *v, size_t len, void **out)
{
    char buf[48];
    uint64_t id, off;
    /* NULL on failure too: the analyser cannot see that lfail never
     * returns grSuccess, and takes a failed ref for an unset one. */
    *out = NULL;
    if (len == sizeof GR_FILE_WORD_NULL - 1 && memcmp(v, GR_FILE_WORD_NULL, len) == 0)
        return grSuccess;
    if (len >= sizeof buf)
        goto bad;
    memcpy(buf, v, len);
    buf[len] = '\0';
    char *plus = strchr(buf, '+');
    if (!plus)
        goto bad;
    *plus = '\0';
    if (!parse_u64(plus + 1, SIZE_MAX, &off))
        goto bad;
    if (buf[0] == 'b' && parse_u64(buf + 1, UINT32_MAX, &id)) {
        if (id >= ld->res->nbufs)
            return lfail(ld, grErrorInvalidValue, "%.47s names buffer b%llu, which is not declared", buf,
                         (unsigned long long)id);
        const gr_file_buf *b = &ld->res->bufs[id];
        if (off >= b->size)
            return lfail(ld, grErrorInvalidValue, "offset %llu is past the end of buffer b%llu (%zu bytes)",
                         (unsigned long long)off, (unsigned long long)id, b->size);
        *out = (char *)b->ptr + off;
        return grSuccess;
    }
    if (buf[0] == '@' && buf[1] == 'n' && parse_u64(buf + 2, UINT32_MAX, &id)) {
        if (!ld->top || id >= ld->top->n)
            return lfail(ld, grErrorInvalidValue,
                         "@n%llu names a node of the top graph that is not defined before this line",
                         (unsigned long long)id);
        grGraphNode_t a = ld->top->nodes[id];
        if (a->type != grGraphNodeTypeMemAlloc)
            return lfail(ld, grErrorInvalidValue, "@n%llu names a %s node; only allocation nodes have memory",
                         (unsigned long long)id, grGraphNodeTypeName(a->type));
        if (off >= a->p.alloc.bytesize)
            return lfail(ld, grErrorInvalidValue, "offset %llu is past the end of the allocation of n%llu",
                         (unsigned long long)off, (unsigned long long)id);
        *out = (char *)a->p.alloc.dptr + off;
        return grSuccess;
    }
bad:
    return lfail(ld, grErrorInvalidValue, "'%.*s' is not a reference (null, bK+OFFSET or @nK+OFFSET)",
                 (int)(len > 48 ? 48 : len), v);
}

static grError_t need_ref(loader *ld, fields *f, const char *key, const char *type, void **out)
{
    const char *v;
    grError_t err = need(ld, f, key, type, &v);
    return err ? err : parse_ref(ld, v, strlen(v), out);
}

/* A list "n<a>,n<b>,..." of nodes of the graph (any index below limit)
 * into idx[]; *n receives the count. */
static grError_t parse_list(loader *ld, const char *v, size_t limit, size_t **idx, size_t *n)
{
    size_t count = 1, k = 0;
    for (const char *c = v; *c; c++)
        count += *c == ',';
    size_t *out = gr__malloc(count * sizeof *out);
    if (!out)
        return lfail_oom(ld);
    for (const char *s = v;; s++) {
        uint64_t x = 0;
        bool ok = *s == 'n' && s[1] >= '0' && s[1] <= '9';
        for (s++; ok && *s >= '0' && *s <= '9'; s++) {
            x = x * 10 + (uint64_t)(*s - '0');
            ok = x < limit;
        }
        if (!ok || (*s != ',' && *s != '\0')) {
            gr__free(out);
            return lfail(ld, grErrorInvalidValue,
                         "the node list '%.60s' is not n<index>,n<index>,... of nodes of this graph", v);
        }
        out[k++] = (size_t)x;
        if (*s == '\0')
            break;
    }
    *idx = out;
    *n = k;
    return grSuccess;
}

static grError_t parse_kernel_args(loader *ld, fields *f, grKernel_t k, unsigned char *vals, void **argv)
{
    const char *v = field(f, GR_FILE_KEY_ARGS);
    int i = 0;
    if (!v) {
        if (k->nparams == 0)
            return grSuccess;
        return lfail(ld, grErrorInvalidValue, "kernel '%s' takes %d arguments; the node has no 'args=' field",
                     k->name, k->nparams);
    }
    for (const char *s = v;; i++) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (i >= k->nparams)
            return lfail(ld, grErrorInvalidValue, "kernel '%s' takes %d arguments; 'args=' lists more",
                         k->name, k->nparams);
        unsigned char *dst = vals + k->offsets[i];
        size_t sz = k->sizes[i];
        argv[i] = dst;
        if (len > 0 && s[0] == 'x') {
            if (!parse_hex(s + 1, len - 1, dst, sz))
                return lfail(
                    ld, grErrorInvalidValue,
                    "argument %d of kernel '%s' is %zu bytes: its value must be x and %zu hex digits", i,
                    k->name, sz, 2 * sz);
        } else if (len > 0 && s[0] == 'c') {
            char idtext[24];
            size_t id;
            if (sz != sizeof(grGraphConditionalHandle))
                return lfail(ld, grErrorInvalidValue,
                             "argument %d of kernel '%s' is %zu bytes; a conditional handle is %zu", i,
                             k->name, sz, sizeof(grGraphConditionalHandle));
            snprintf(idtext, sizeof idtext, "%.*s", (int)(len < sizeof idtext ? len : sizeof idtext - 1), s);
            if (len >= sizeof idtext || !parse_id(idtext, 'c', ld->nconds, &id))
                return lfail(ld, grErrorInvalidValue,
                             "argument %d of kernel '%s' names '%.23s', which is no declared conditional "
                             "handle",
                             i, k->name, idtext);
            memcpy(dst, &ld->conds[id].h, sizeof ld->conds[id].h);
        } else {
            void *p;
            grError_t err;
            if (sz != sizeof p)
                return lfail(ld, grErrorInvalidValue,
                             "argument %d of kernel '%s' is %zu bytes, too small for a reference", i, k->name,
                             sz);
            if ((err = parse_ref(ld, s, len, &p)))
                return err;
            memcpy(dst, &p, sizeof p);
        }
        if (!e)
            break;
        s = e + 1;
    }
    if (i + 1 != k->nparams)
        return lfail(ld, grErrorInvalidValue, "kernel '%s' takes %d arguments; 'args=' lists %d", k->name,
                     k->nparams, i + 1);
    return grSuccess;
}

static grError_t add_kernel(loader *ld, fields *f, grGraph_t g, grGraphNode_t *node,
                            const grGraphNode_t *deps, size_t nd)
{
    size_t id;
    grKernelNodeParams kp;
    uint64_t shmem;
    void *argv[64];
    grError_t err;
    if (!f->pos || !parse_id(f->pos, 'k', ld->nkernels, &id))
        return lfail(ld, grErrorInvalidValue, "the kernel node names no declared kernel (k0..k%zu)",
                     ld->nkernels ? ld->nkernels - 1 : 0);
    grKernel_t k = ld->kernels[id].k;
    memset(&kp, 0, sizeof kp);
    kp.func = k;
    if ((err = need_dim(ld, f, GR_FILE_KEY_GRID, &kp.gridDim)) ||
        (err = need_dim(ld, f, GR_FILE_KEY_BLOCK, &kp.blockDim)) ||
        (err = need_u64(ld, f, GR_FILE_KEY_SHMEM, "kernel", UINT32_MAX, &shmem)))
        return err;
    kp.sharedMemBytes = (unsigned)shmem;
    kp.kernelParams = argv;
    /* Values on this stack pass the argument check at once; large ones
     * are on the heap and probed. */
    _Alignas(16) unsigned char small[512];
    unsigned char *vals = k->argbytes <= sizeof small ? small : gr__aligned_alloc(16, k->argbytes);
    if (!vals)
        return lfail_oom(ld);
    err = parse_kernel_args(ld, f, k, vals, argv);
    if (!err && (err = grGraphAddKernelNode(node, g, deps, nd, &kp)))
        err = lfail_call(ld, err);
    if (vals != small)
        gr__free(vals);
    return err;
}

static grError_t parse_kind(loader *ld, const char *v, grMemcpyKind *out)
{
    static const grMemcpyKind kinds[] = {grMemcpyHostToHost, grMemcpyHostToDevice, grMemcpyDeviceToHost,
                                         grMemcpyDeviceToDevice, grMemcpyDefault};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(v, gr__memcpy_kind_name(kinds[i])) == 0) {
            *out = kinds[i];
            return grSuccess;
        }
    return lfail(ld, grErrorInvalidValue,
                 "kind=%.30s is not a copy kind (HostToHost, HostToDevice, DeviceToHost, DeviceToDevice, "
                 "Default)",
                 v);
}

/* A pitched memcpy node's line: extent=W,H,D with each side's pitch and
 * rows per slice, made with grGraphAddMemcpyNode. */
static grError_t add_memcpy_pitched(loader *ld, fields *f, grGraph_t g, grGraphNode_t *node,
                                    const grGraphNode_t *deps, size_t nd, void *dst, void *src)
{
    const char *v = field(f, GR_FILE_KEY_EXTENT), *kv;
    uint64_t x[3], dpitch, drows, spitch, srows;
    char buf[72], *parts[3];
    size_t n = 0;
    grError_t err;
    bool ok = strlen(v) < sizeof buf;
    if (ok) {
        strcpy(buf, v);
        for (char *t = buf, *c;; t = c + 1) {
            if (n == 3) {
                ok = false; /* a fourth number */
                break;
            }
            parts[n++] = t;
            if (!(c = strchr(t, ',')))
                break;
            *c = '\0';
        }
    }
    for (size_t i = 0; ok && i < n; i++)
        ok = parse_u64(parts[i], SIZE_MAX, &x[i]);
    if (!ok)
        n = 0;
    if (n != 3)
        return lfail(ld, grErrorInvalidValue, "field extent=%.40s is not WIDTH,HEIGHT,DEPTH (three numbers)",
                     v);
    if ((err = need_u64(ld, f, GR_FILE_KEY_DPITCH, "memcpy", SIZE_MAX, &dpitch)) ||
        (err = need_u64(ld, f, GR_FILE_KEY_DROWS, "memcpy", SIZE_MAX, &drows)) ||
        (err = need_u64(ld, f, GR_FILE_KEY_SPITCH, "memcpy", SIZE_MAX, &spitch)) ||
        (err = need_u64(ld, f, GR_FILE_KEY_SROWS, "memcpy", SIZE_MAX, &srows)) ||
        (err = need(ld, f, GR_FILE_KEY_KIND, "memcpy", &kv)))
        return err;
    grMemcpy3DParms c;
    memset(&c, 0, sizeof c);
    if ((err = parse_kind(ld, kv, &c.kind)))
        return err;
    c.extent = (grExtent){(size_t)x[0], (size_t)x[1], (size_t)x[2]};
    c.dstPtr = (grPitchedPtr){dst, (size_t)dpitch, (size_t)x[0], (size_t)drows};
    c.srcPtr = (grPitchedPtr){src, (size_t)spitch, (size_t)x[0], (size_t)srows};
    if ((err = grGraphAddMemcpyNode(node, g, deps, nd, &c)))
        return lfail_call(ld, err);
    return grSuccess;
}

static grError_t add_memcpy(loader *ld, fields *f, grGraph_t g, grGraphNode_t *node,
                            const grGraphNode_t *deps, size_t nd)
{
    void *dst, *src;
    uint64_t count;
    const char *kv;
    grMemcpyKind kind = grMemcpyDefault;
    grError_t err;
    if ((err = need_ref(ld, f, GR_FILE_KEY_DST, "memcpy", &dst)) ||
        (err = need_ref(ld, f, GR_FILE_KEY_SRC, "memcpy", &src)))
        return err;
    if (field(f, GR_FILE_KEY_EXTENT))
        return add_memcpy_pitched(ld, f, g, node, deps, nd, dst, src);
    if ((err = need_u64(ld, f, GR_FILE_KEY_COUNT, "memcpy", SIZE_MAX, &count)) ||
        (err = need(ld, f, GR_FILE_KEY_KIND, "memcpy", &kv)) || (err = parse_kind(ld, kv, &kind)))
        return err;
    if ((err = grGraphAddMemcpyNode1D(node, g, deps, nd, dst, src, (size_t)count, kind)))
        return lfail_call(ld, err);
    return grSuccess;
}

static grError_t add_memset(loader *ld, fields *f, grGraph_t g, grGraphNode_t *node,
                            const grGraphNode_t *deps, size_t nd)
{
    grMemsetParams mp;
    uint64_t pitch, value, elem, width, height;
    grError_t err;
    memset(&mp, 0, sizeof mp);
    if ((err = need_ref(ld, f, GR_FILE_KEY_DST, "memset", &mp.dst)) ||
        (err = need_u64(ld, f, GR_FILE_KEY_PITCH, "memset", SIZE_MAX, &pitch)) ||
        (err = need_u64(ld, f, GR_FILE_KEY_VALUE, "memset", UINT32_MAX, &value)) ||
        (err = need_u64(ld, f, GR_FILE_KEY_ELEM, "memset", UINT32_MAX, &elem)) ||
        (err = need_u64(ld, f, GR_FILE_KEY_WIDTH, "memset", SIZE_MAX, &width)) ||
        (err = need_u64(ld, f, GR_FILE_KEY_HEIGHT, "memset", SIZE_MAX, &height)))
        return err;
    mp.pitch = (size_t)pitch;
    mp.value = (unsigned)value;
    mp.elementSize = (unsigned)elem;
    mp.width = (size_t)width;
    mp.height = (size_t)height;
    if ((err = grGraphAddMemsetNode(node, g, deps, nd, &mp)))
        return lfail_call(ld, err);
    return grSuccess;
}

static grError_t add_host(loader *ld, fields *f, grGraph_t g, grGraphNode_t *node, const grGraphNode_t *deps,
                          size_t nd)
{
    size_t id;
    const char *v;
    grHostNodeParams hp;
    grError_t err;
    if (!f->pos || !parse_id(f->pos, 'h', ld->nhostfns, &id))
        return lfail(ld, grErrorInvalidValue, "the host node names no declared host function (h0..h%zu)",
                     ld->nhostfns ? ld->nhostfns - 1 : 0);
    if ((err = need(ld, f, GR_FILE_KEY_DATA, "host", &v)))
        return err;
    hp.fn = ld->hostfns[id].fn;
    if (strcmp(v, GR_FILE_WORD_REGISTERED) == 0) {
        hp.userData = ld->hostfns[id].data;
    } else if (v[0] == '0' && v[1] == 'x') {
        unsigned char be[8];
        if (!parse_hex(v + 2, strlen(v + 2), be, 8))
            return lfail(ld, grErrorInvalidValue, "data=%.30s is not 0x and 16 hex digits", v);
        uint64_t x = 0;
        for (int i = 0; i < 8; i++)
            x = x << 8 | be[i];
        hp.userData = (void *)(uintptr_t)x;
    } else if ((err = parse_ref(ld, v, strlen(v), &hp.userData))) {
        return err;
    }
    /* A stand-in's userData is its name (so that it saves back). */
    if (hp.fn == gr__standin_host)
        hp.userData = ld->hostfns[id].data;
    if ((err = grGraphAddHostNode(node, g, deps, nd, &hp)))
        return lfail_call(ld, err);
    return grSuccess;
}

static grError_t add_event(loader *ld, fields *f, grGraph_t g, grGraphNode_t *node, const grGraphNode_t *deps,
                           size_t nd, bool record)
{
    size_t id;
    grError_t err;
    if (!f->pos || !parse_id(f->pos, 'e', ld->res->nevents, &id))
        return lfail(ld, grErrorInvalidValue, "the %s node names no declared event (e0..e%zu)",
                     record ? "record" : "wait", ld->res->nevents ? ld->res->nevents - 1 : 0);
    grEvent_t e = ld->res->events[id];
    err = record ? grGraphAddEventRecordNode(node, g, deps, nd, e)
                 : grGraphAddEventWaitNode(node, g, deps, nd, e);
    return err ? lfail_call(ld, err) : grSuccess;
}

static grError_t add_alloc(loader *ld, fields *f, grGraph_t g, grGraphNode_t *node, const grGraphNode_t *deps,
                           size_t nd)
{
    grMemAllocNodeParams ap;
    grMemAccessDesc desc = {{grMemLocationTypeDevice, 0}, grMemAccessFlagsProtReadWrite};
    uint64_t size, maxsize, usage;
    const char *access;
    grError_t err;
    if ((err = need_u64(ld, f, GR_FILE_KEY_SIZE, "alloc", SIZE_MAX, &size)) ||
        (err = need(ld, f, GR_FILE_KEY_ACCESS, "alloc", &access)) ||
        (err = need_u64(ld, f, GR_FILE_KEY_MAXSIZE, "alloc", SIZE_MAX, &maxsize)) ||
        (err = need_u64(ld, f, GR_FILE_KEY_USAGE, "alloc", 65535, &usage)))
        return err;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = grMemAllocationTypePinned;
    ap.poolProps.handleTypes = grMemHandleTypeNone;
    ap.poolProps.location = (grMemLocation){grMemLocationTypeDevice, 0};
    ap.poolProps.maxSize = (size_t)maxsize;
    ap.poolProps.usage = (unsigned short)usage;
    ap.bytesize = (size_t)size;
    if (strcmp(access, GR_FILE_WORD_RW) == 0) {
        ap.accessDescs = &desc;
        ap.accessDescCount = 1;
    } else if (strcmp(access, GR_FILE_WORD_NONE) != 0) {
        return lfail(ld, grErrorInvalidValue, "access=%.20s is neither 'rw' nor 'none'", access);
    }
    if ((err = grGraphAddMemAllocNode(node, g, deps, nd, &ap)))
        return lfail_call(ld, err);
    return grSuccess;
}

static grError_t add_free(loader *ld, fields *f, grGraph_t g, grGraphNode_t *node, const grGraphNode_t *deps,
                          size_t nd)
{
    void *p;
    grError_t err = need_ref(ld, f, GR_FILE_KEY_PTR, "free", &p);
    if (err)
        return err;
    if ((err = grGraphAddMemFreeNode(node, g, deps, nd, p)))
        return lfail_call(ld, err);
    return grSuccess;
}

/* One operation of a memop node's 'ops=' list (text[0..len), no ';'):
 * KIND:REF:VALUE, KIND:REF:COND:VALUE or barrier:sys|gpu. */
static grError_t parse_memop(loader *ld, const char *text, size_t len, grStreamBatchMemOpParams *op)
{
    static const char *const conds[] = GR_FILE_WAIT_CONDS;
    char buf[96];
    char *part[4] = {NULL, NULL, NULL, NULL};
    size_t n = 0;
    if (len >= sizeof buf)
        return lfail(ld, grErrorInvalidValue, "the operation '%.40s...' is too long", text);
    memcpy(buf, text, len);
    buf[len] = '\0';
    for (char *s = buf, *c; n < 4; s = c + 1) {
        part[n++] = s;
        if (!(c = strchr(s, ':')))
            break;
        *c = '\0';
    }
    memset(op, 0, sizeof *op);
    int t = 0;
    for (int k = 1; k <= grStreamMemOpBarrier; k++)
        if (gr__memop_op_name(k) && strcmp(part[0], gr__memop_op_name(k)) == 0)
            t = k;
    op->operation = (grStreamBatchMemOpType)t;
    bool wait = t == grStreamMemOpWaitValue32 || t == grStreamMemOpWaitValue64;
    bool wide = t == grStreamMemOpWaitValue64 || t == grStreamMemOpWriteValue64;
    uint64_t v;
    if (t == grStreamMemOpBarrier && n == 2 &&
        (strcmp(part[1], GR_FILE_WORD_SYS) == 0 || strcmp(part[1], GR_FILE_WORD_GPU) == 0)) {
        op->memoryBarrier.flags = strcmp(part[1], GR_FILE_WORD_GPU) == 0 ? grStreamMemoryBarrierTypeGpu
                                                                         : grStreamMemoryBarrierTypeSys;
        return grSuccess;
    }
    if (t == 0 || t == grStreamMemOpBarrier || t == grStreamMemOpFlushRemoteWrites || n != (wait ? 4u : 3u) ||
        !parse_u64(part[n - 1], wide ? UINT64_MAX : UINT32_MAX, &v))
        return lfail(ld, grErrorInvalidValue,
                     "'%.60s' is not an operation (wait32|wait64:REF:geq|eq|and|nor:VALUE, "
                     "write32|write64:REF:VALUE or barrier:sys|gpu)",
                     text);
    grError_t err = parse_ref(ld, part[1], strlen(part[1]), &op->waitValue.address);
    if (err)
        return err;
    if (wait) {
        unsigned c = 4;
        for (unsigned k = 0; k < 4; k++)
            if (strcmp(part[2], conds[k]) == 0)
                c = k;
        if (c == 4)
            return lfail(ld, grErrorInvalidValue, "'%.20s' is not a wait's condition (geq, eq, and, nor)",
                         part[2]);
        op->waitValue.flags = c;
    }
    if (wide)
        op->waitValue.value64 = v;
    else
        op->waitValue.value = (uint32_t)v;
    return grSuccess;
}

static grError_t add_memop(loader *ld, fields *f, grGraph_t g, grGraphNode_t *node, const grGraphNode_t *deps,
                           size_t nd)
{
    const char *v;
    grError_t err = need(ld, f, GR_FILE_KEY_OPS, "memop", &v);
    if (err)
        return err;
    size_t count = 1;
    for (const char *c = v; *c; c++)
        count += *c == ';';
    if (count > GR_BATCH_MEM_OP_MAX)
        return lfail(ld, grErrorInvalidValue, "the memop node has %zu operations, more than %u", count,
                     GR_BATCH_MEM_OP_MAX);
    grStreamBatchMemOpParams *ops = gr__malloc(count * sizeof *ops);
    if (!ops)
        return lfail_oom(ld);
    const char *s = v;
    for (size_t i = 0; i < count && !err; i++) {
        const char *end = strchr(s, ';');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        err = parse_memop(ld, s, len, &ops[i]);
        s += len + 1;
    }
    grBatchMemOpNodeParams np = {NULL, (unsigned)count, ops, 0};
    if (!err && (err = grGraphAddBatchMemOpNode(node, g, deps, nd, &np)))
        err = lfail_call(ld, err);
    gr__free(ops);
    return err;
}

static grError_t parse_graph(loader *ld, grGraph_t g, scope *sc, unsigned depth, bool *more);

static grError_t add_child(loader *ld, grGraph_t g, grGraphNode_t *node, const grGraphNode_t *deps, size_t nd,
                           unsigned depth)
{
    grGraph_t c;
    scope sc;
    size_t open_line = ld->line;
    grError_t err;
    if (depth + 1 > GR_GRAPH_MAX_NEST)
        return lfail(ld, grErrorInvalidValue, "child graphs nest deeper than %u levels", GR_GRAPH_MAX_NEST);
    if (!(c = gr__graph_new()))
        return lfail_oom(ld);
    c->res = ld->res;
    gr__file_res_retain(c->res);
    memset(&sc, 0, sizeof sc);
    err = parse_graph(ld, c, &sc, depth + 1, NULL);
    if (!err) {
        size_t end_line = ld->line;
        ld->line = open_line;
        if ((err = grGraphAddChildGraphNode(node, g, deps, nd, c)))
            err = lfail_call(ld, err);
        ld->line = end_line;
    }
    gr__graph_free(c);
    return err;
}

/* Sets the order of arr[0..n) to that of want[0..n), which must hold the
 * same nodes. */
static bool reorder(grGraph_t g, struct grGraphNode_st **arr, size_t n, struct grGraphNode_st **want,
                    size_t nwant)
{
    if (n != nwant)
        return false;
    uint32_t epoch = gr__graph_visit_begin(g);
    for (size_t i = 0; i < n; i++)
        gr__node_visit(arr[i], epoch);
    /* Each wanted node must be marked, and is unmarked once taken, so a
     * node listed twice is refused. */
    for (size_t i = 0; i < n; i++) {
        if (!gr__node_visited(want[i], epoch))
            return false;
        want[i]->visit = epoch - 1;
    }
    for (size_t i = 0; i < n; i++)
        arr[i] = want[i];
    return true;
}

/* Inserts the successors of each node in index order (after edges were
 * added out of creation order); 'scratch' holds each node's index. */
static void sort_succs(scope *sc)
{
    for (size_t i = 0; i < sc->n; i++) {
        struct grGraphNode_st *n = sc->nodes[i], **s = n->succs;
        for (size_t a = 1; a < n->nsuccs; a++) {
            struct grGraphNode_st *x = s[a];
            size_t b = a;
            for (; b > 0 && s[b - 1]->scratch > x->scratch; b--)
                s[b] = s[b - 1];
            s[b] = x;
        }
    }
}

/* Adds the edges of node 'index' from the later nodes its 'after' list
 * names (each edge checked by grGraphAddDependencies: cycles, self
 * edges, duplicates). */
static grError_t add_late_edges(loader *ld, grGraph_t g, const scope *sc, const struct fixup *fx)
{
    size_t *idx = NULL, n = 0;
    grGraphNode_t v = sc->nodes[fx->index];
    grError_t err = parse_list(ld, fx->after, sc->n, &idx, &n);
    for (size_t i = 0; !err && i < n; i++) {
        grGraphNode_t u = sc->nodes[idx[i]];
        if (idx[i] >= fx->index && (err = grGraphAddDependencies(g, &u, &v, NULL, 1)))
            err = lfail_call(ld, err);
    }
    gr__free(idx);
    return err;
}

/* Sets the order of a node's edge array arr[0..narr) to that of the node
 * list 'list' (its after= or succ=, named 'what'), which must hold the
 * same nodes. */
static grError_t set_order(loader *ld, grGraph_t g, const scope *sc, const char *list,
                           struct grGraphNode_st **arr, size_t narr, const char *what, size_t index)
{
    size_t *idx, n;
    grError_t err = parse_list(ld, list, sc->n, &idx, &n);
    if (err)
        return err;
    struct grGraphNode_st **want = gr__malloc(n * sizeof *want);
    if (!want) {
        gr__free(idx);
        return lfail_oom(ld);
    }
    for (size_t i = 0; i < n; i++)
        want[i] = sc->nodes[idx[i]];
    gr__free(idx);
    bool ok = reorder(g, arr, narr, want, n);
    gr__free(want);
    if (!ok)
        return lfail(ld, grErrorInvalidValue,
                     "%s= of n%zu does not list its %s (each once, every one of them)", what, index,
                     what[0] == 'a' ? "dependencies" : "successors");
    return grSuccess;
}

/* The edges to later nodes, then the dependency and successor orders the
 * file gives, once every node of the graph exists. */
static grError_t apply_fixups(loader *ld, grGraph_t g, scope *sc)
{
    grError_t err = grSuccess;
    size_t saved_line = ld->line;
    for (size_t f = 0; f < sc->nfix && !err; f++) {
        const struct fixup *fx = &sc->fix[f];
        grGraphNode_t v = sc->nodes[fx->index];
        ld->line = fx->line;
        if (fx->after && !(err = add_late_edges(ld, g, sc, fx)))
            err = set_order(ld, g, sc, fx->after, v->deps, v->ndeps, GR_FILE_KEY_AFTER, fx->index);
    }
    if (!err && sc->late) {
        for (size_t i = 0; i < sc->n; i++)
            sc->nodes[i]->scratch = i;
        sort_succs(sc);
    }
    for (size_t f = 0; f < sc->nfix && !err; f++) {
        const struct fixup *fx = &sc->fix[f];
        grGraphNode_t u = sc->nodes[fx->index];
        ld->line = fx->line;
        if (fx->succ)
            err = set_order(ld, g, sc, fx->succ, u->succs, u->nsuccs, GR_FILE_KEY_SUCC, fx->index);
    }
    if (!err)
        ld->line = saved_line;
    return err;
}

/* A conditional node: "cond cI type=if|while|switch size=N {", then its
 * bodies' blocks, "} {" between two. */
static grError_t add_cond(loader *ld, fields *f, grGraph_t g, grGraphNode_t *node, const grGraphNode_t *deps,
                          size_t nd, unsigned depth)
{
    static const char *const types[] = GR_FILE_COND_TYPES;
    static const grGraphConditionalNodeType tvals[] = {grGraphCondTypeIf, grGraphCondTypeWhile,
                                                       grGraphCondTypeSwitch};
    size_t id, t = 0;
    uint64_t size;
    const char *tv;
    grGraphNodeParams np;
    grError_t err;
    if (!f->pos || !parse_id(f->pos, 'c', ld->nconds, &id))
        return lfail(ld, grErrorInvalidValue,
                     "the cond node names '%.24s', which is no declared conditional handle",
                     f->pos ? f->pos : "");
    if ((err = need(ld, f, GR_FILE_KEY_TYPE, "cond", &tv)))
        return err;
    while (t < 3 && strcmp(tv, types[t]) != 0)
        t++;
    if (t == 3)
        return lfail(ld, grErrorInvalidValue, "type=%.24s is not a conditional node type (if, while, switch)",
                     tv);
    if ((err = need_u64(ld, f, GR_FILE_KEY_SIZE, "cond", GR_COND_SWITCH_MAX, &size)))
        return err;
    if (depth + 1 > GR_GRAPH_MAX_NEST)
        return lfail(ld, grErrorInvalidValue, "bodies nest deeper than %u levels", GR_GRAPH_MAX_NEST);
    memset(&np, 0, sizeof np);
    np.type = grGraphNodeTypeConditional;
    np.conditional = (grConditionalNodeParams){ld->conds[id].h, tvals[t], (unsigned)size, NULL};
    if ((err = grGraphAddNode(node, g, deps, NULL, nd, &np)))
        return lfail_call(ld, err);
    grGraph_t *bodies = np.conditional.phGraph_out;
    size_t open_line = ld->line;
    for (uint64_t b = 0; b < size; b++) {
        scope sc;
        bool more = false;
        memset(&sc, 0, sizeof sc);
        if ((err = parse_graph(ld, bodies[b], &sc, depth + 1, &more)))
            return err;
        if (more != (b + 1 < size))
            return lfail(ld, grErrorInvalidValue, "the cond node of line %zu has size=%llu but %s", open_line,
                         (unsigned long long)size,
                         more ? "opens more bodies ('} {')" : "closes after fewer bodies ('}')");
    }
    return grSuccess;
}

/* Splits the fields of a node line (tok[2..ntok), of node n'index') into
 * f: key=value fields, a positional field first, and a closing '{'. */
static grError_t split_fields(loader *ld, fields *f, char **tok, size_t ntok, size_t index)
{
    memset(f, 0, sizeof *f);
    for (size_t i = 2; i < ntok; i++) {
        char *eq = strchr(tok[i], '=');
        if (strcmp(tok[i], "{") == 0 && i + 1 == ntok) {
            f->brace = true;
        } else if (eq) {
            /* tok has room for a positional field and '{' besides
             * MAX_FIELDS of these: a line of only key=value fields
             * could fill it past f's arrays. */
            if (f->n == MAX_FIELDS)
                return lfail(ld, grErrorInvalidValue, "the line has more than %d fields", MAX_FIELDS);
            /* A field given twice is left unused, and refused by
             * check_fields_used. */
            *eq = '\0';
            f->key[f->n] = tok[i];
            f->val[f->n++] = eq + 1;
        } else if (!f->pos && i == 2) {
            f->pos = tok[i];
        } else {
            return lfail(ld, grErrorInvalidValue, "unexpected '%.30s' in the line of n%zu", tok[i], index);
        }
    }
    return grSuccess;
}

/* The communicator of rank 'rank' of 'size' for the loaded graph. */
static grError_t loader_comm(loader *ld, int rank, int size, grComm_t *out)
{
    for (size_t i = 0; i < ld->ncomms; i++)
        if (ld->comms[i]->rank == rank && ld->comms[i]->size == size) {
            *out = ld->comms[i];
            return grSuccess;
        }
    grComm_t *a = gr__realloc(ld->comms, (ld->ncomms + 1) * sizeof *a);
    if (!a)
        return lfail_oom(ld);
    ld->comms = a;
    if (!(a[ld->ncomms] = gr__comm_standin(rank, size)))
        return lfail_oom(ld);
    *out = a[ld->ncomms++];
    return grSuccess;
}

/* A word of one of the collective's name lists (gr__coll_*_name). */
static grError_t coll_word(loader *ld, fields *f, const char *key, int n, const char *(*name)(int), int *out)
{
    const char *v;
    grError_t err = need(ld, f, key, "coll", &v);
    if (err)
        return err;
    for (int i = 0; i < n; i++)
        if (strcmp(name(i), v) == 0) {
            *out = i;
            return grSuccess;
        }
    return lfail(ld, grErrorInvalidValue, "%s=%.30s is not a collective's %s", key, v, key);
}

static const char *op_name(int i)
{
    return gr__coll_op_name((grCollectiveOp)i);
}
static const char *type_name(int i)
{
    return gr__coll_type_name((grCommDataType)i);
}
static const char *redop_name(int i)
{
    return gr__coll_redop_name((grCommRedOp)i);
}

static grError_t add_coll(loader *ld, fields *f, grGraph_t g, grGraphNode_t *node, const grGraphNode_t *deps,
                          size_t nd)
{
    grCollectiveNodeParams p;
    int op = 0, type = 0, redop = 0;
    uint64_t root, count, rank, ranks;
    void *src, *dst;
    grError_t err;
    memset(&p, 0, sizeof p);
    if ((err = coll_word(ld, f, GR_FILE_KEY_OP, grCollOpCount, op_name, &op)) ||
        (err = coll_word(ld, f, GR_FILE_KEY_TYPE, grCommDataTypeCount, type_name, &type)) ||
        (err = coll_word(ld, f, GR_FILE_KEY_REDOP, grCommRedOpCount, redop_name, &redop)) ||
        (err = need_u64(ld, f, GR_FILE_KEY_ROOT, "coll", INT32_MAX, &root)) ||
        (err = need_u64(ld, f, GR_FILE_KEY_COUNT, "coll", SIZE_MAX, &count)) ||
        (err = need_ref(ld, f, GR_FILE_KEY_SRC, "coll", &src)) ||
        (err = need_ref(ld, f, GR_FILE_KEY_DST, "coll", &dst)) ||
        (err = need_u64(ld, f, GR_FILE_KEY_RANKS, "coll", INT32_MAX, &ranks)) ||
        (err = need_u64(ld, f, GR_FILE_KEY_RANK, "coll", ranks ? ranks - 1 : 0, &rank)))
        return err;
    if (ranks == 0)
        return lfail(ld, grErrorInvalidValue, "a collective's communicator has 0 ranks");
    if ((err = loader_comm(ld, (int)rank, (int)ranks, &p.comm)))
        return err;
    p.op = (grCollectiveOp)op;
    p.datatype = (grCommDataType)type;
    p.redop = (grCommRedOp)redop;
    p.root = (int)root;
    p.count = (size_t)count;
    p.sendbuff = src;
    p.recvbuff = dst;
    if ((err = grGraphAddCollectiveNode(node, g, deps, nd, &p)))
        return lfail_call(ld, err);
    return grSuccess;
}

/* Adds the node of 'kind' (word: the line's word for it) from its fields
 * f to g after deps[0..nd). */
static grError_t add_node_of_kind(loader *ld, fields *f, grGraph_t g, grGraphNodeType kind, const char *word,
                                  grGraphNode_t *pnode, const grGraphNode_t *deps, size_t nd, unsigned depth)
{
    grError_t err = grSuccess;
    switch (kind) {
    case grGraphNodeTypeKernel:
        err = add_kernel(ld, f, g, pnode, deps, nd);
        break;
    case grGraphNodeTypeMemcpy:
        err = add_memcpy(ld, f, g, pnode, deps, nd);
        break;
    case grGraphNodeTypeMemset:
        err = add_memset(ld, f, g, pnode, deps, nd);
        break;
    case grGraphNodeTypeHost:
        err = add_host(ld, f, g, pnode, deps, nd);
        break;
    case grGraphNodeTypeEmpty:
        err = (err = grGraphAddEmptyNode(pnode, g, deps, nd)) ? lfail_call(ld, err) : grSuccess;
        break;
    case grGraphNodeTypeWaitEvent:
    case grGraphNodeTypeEventRecord:
        err = add_event(ld, f, g, pnode, deps, nd, kind == grGraphNodeTypeEventRecord);
        break;
    case grGraphNodeTypeMemAlloc:
        err = add_alloc(ld, f, g, pnode, deps, nd);
        break;
    case grGraphNodeTypeMemFree:
        err = add_free(ld, f, g, pnode, deps, nd);
        break;
    case grGraphNodeTypeGraph:
        err = add_child(ld, g, pnode, deps, nd, depth);
        break;
    case grGraphNodeTypeConditional:
        err = add_cond(ld, f, g, pnode, deps, nd, depth);
        break;
    case grGraphNodeTypeBatchMemOp:
        err = add_memop(ld, f, g, pnode, deps, nd);
        break;
    case grGraphNodeTypeCollective:
        err = add_coll(ld, f, g, pnode, deps, nd);
        break;
    case grGraphNodeTypeCount:
        err = lfail(ld, grErrorInvalidValue,
                    "'%.30s' is not a node type (kernel, memcpy, memset, host, empty, record, wait, alloc, "
                    "free, graph, cond, memop, coll)",
                    word);
        break;
    }
    return err;
}

/* A field the node's kind did not read is refused: given twice (the
 * second is never read), or not one of the kind's. */
static grError_t check_fields_used(loader *ld, const fields *f, const char *word)
{
    for (size_t i = 0; i < f->n; i++)
        if (!f->used[i]) {
            for (size_t j = 0; j < i; j++)
                if (strcmp(f->key[j], f->key[i]) == 0)
                    return lfail(ld, grErrorInvalidValue, "field '%.30s' is given twice", f->key[i]);
            return lfail(ld, grErrorInvalidValue, "a %s node has no field '%.30s'", word, f->key[i]);
        }
    return grSuccess;
}

/* Reads one node line (already split) of graph g into the scope. */
static grError_t parse_node(loader *ld, grGraph_t g, scope *sc, char **tok, size_t ntok, unsigned depth)
{
    size_t index;
    fields f;
    grGraphNode_t node = NULL;
    grError_t err;
    size_t *deps_idx = NULL, ndeps = 0;
    grGraphNode_t dstack[16], *deps = dstack;
    const char *after = NULL, *succ = NULL;
    if (!parse_id(tok[0], 'n', UINT32_MAX, &index) || index != sc->n)
        return lfail(ld, grErrorInvalidValue,
                     "expected node n%zu here, found '%.30s' (nodes are numbered from n0 in order)", sc->n,
                     tok[0]);
    if (ntok < 2)
        return lfail(ld, grErrorInvalidValue, "node n%zu has no type", index);
    if ((err = split_fields(ld, &f, tok, ntok, index)))
        return err;
    after = field(&f, GR_FILE_KEY_AFTER);
    succ = field(&f, GR_FILE_KEY_SUCC);
    /* Later nodes are checked against the graph's count once it is read. */
    if (after && (err = parse_list(ld, after, UINT32_MAX, &deps_idx, &ndeps)))
        return err;
    bool late = false;
    for (size_t i = 0; i < ndeps; i++)
        late |= deps_idx[i] >= index;
    if (ndeps > sizeof dstack / sizeof dstack[0] && !(deps = gr__malloc(ndeps * sizeof *deps))) {
        gr__free(deps_idx);
        return lfail_oom(ld);
    }
    /* Earlier nodes now, in their order; later ones when all exist. */
    size_t nd = 0;
    for (size_t i = 0; i < ndeps; i++)
        if (deps_idx[i] < index)
            deps[nd++] = sc->nodes[deps_idx[i]];
    gr__free(deps_idx);
    grGraphNodeType kind = gr__node_type_from_word(tok[1]); /* Count: no kind */
    if ((late || succ) && !grow((void **)&sc->fix, sc->nfix, &sc->capfix, sizeof *sc->fix))
        err = lfail_oom(ld);
    else if (!grow((void **)&sc->nodes, sc->n, &sc->cap, sizeof *sc->nodes))
        err = lfail_oom(ld);
    else if (f.brace != (kind == grGraphNodeTypeGraph || kind == grGraphNodeTypeConditional))
        err = lfail(ld, grErrorInvalidValue,
                    f.brace ? "only a graph or cond node opens a block with '{'"
                            : "a graph or cond node's line ends with '{'");
    else
        err = add_node_of_kind(ld, &f, g, kind, tok[1], &node, deps, nd, depth);
    if (deps != dstack)
        gr__free(deps);
    if (err)
        return err;
    if ((err = check_fields_used(ld, &f, tok[1])))
        return err;
    sc->nodes[sc->n++] = node;
    if (late || succ) {
        sc->late |= late;
        sc->fix[sc->nfix++] = (struct fixup){index, ld->line, late ? after : NULL, succ};
    }
    return grSuccess;
}

/* Reads node lines into g up to the '}' that closes it; a conditional
 * node's body (more != NULL) may close with "} {" instead, which opens
 * the next body (*more set). */
static grError_t parse_graph(loader *ld, grGraph_t g, scope *sc, unsigned depth, bool *more)
{
    size_t open_line = ld->line;
    char *tok[2 + MAX_FIELDS + 2];
    size_t ntok;
    grError_t err;
    for (;;) {
        char *s;
        if ((err = next_line(ld, &s)))
            break;
        if (!s) {
            err = lfail(ld, grErrorInvalidValue,
                        "the file ends inside the graph opened at line %zu: it is truncated (no closing '}')",
                        open_line);
            break;
        }
        if (strcmp(s, "}") == 0) {
            err = apply_fixups(ld, g, sc);
            break;
        }
        if (strcmp(s, "} {") == 0) {
            if (more)
                *more = true;
            err = more ? apply_fixups(ld, g, sc)
                       : lfail(ld, grErrorInvalidValue, "'} {' separates the bodies of a cond node only");
            break;
        }
        if (!split(s, tok, sizeof tok / sizeof tok[0], &ntok) || ntok == 0) {
            err = lfail(ld, grErrorInvalidValue, "the line has more than %d fields", MAX_FIELDS);
            break;
        }
        if ((err = parse_node(ld, g, sc, tok, ntok, depth)))
            break;
    }
    gr__free(sc->nodes);
    gr__free(sc->fix);
    sc->nodes = NULL;
    sc->fix = NULL;
    return err;
}

/* The declarations up to 'graph {', then the top graph, then the end. */
static grError_t load(loader *ld, grGraph_t *out)
{
    char *s, *tok[2 + 64 + 2];
    size_t ntok;
    grError_t err;
    if ((err = read_header(ld)))
        return err;
    for (;;) {
        if ((err = next_line(ld, &s)))
            return err;
        if (!s)
            return lfail(ld, grErrorInvalidValue, "the file ends before 'graph {': it is truncated");
        if (strcmp(s, "graph {") == 0)
            break;
        if (!split(s, tok, sizeof tok / sizeof tok[0], &ntok) || ntok == 0)
            return lfail(ld, grErrorInvalidValue, "the line has too many fields");
        if (strcmp(tok[0], GR_FILE_DECL_KERNEL) == 0)
            err = decl_kernel(ld, tok, ntok);
        else if (strcmp(tok[0], GR_FILE_DECL_HOSTFN) == 0)
            err = decl_hostfn(ld, tok, ntok);
        else if (strcmp(tok[0], GR_FILE_DECL_BUFFER) == 0)
            err = decl_buffer(ld, tok, ntok);
        else if (strcmp(tok[0], GR_FILE_DECL_EVENT) == 0)
            err = decl_event(ld, tok, ntok);
        else if (strcmp(tok[0], GR_FILE_DECL_COND) == 0)
            err = decl_cond(ld, tok, ntok);
        else
            err = lfail(ld, grErrorInvalidValue,
                        "'%.30s' starts no declaration (kernel, hostfn, buffer, event, cond) and is not "
                        "'graph {'",
                        tok[0]);
        if (err)
            return err;
    }
    grGraph_t g = gr__graph_new();
    if (!g)
        return lfail_oom(ld);
    g->res = ld->res;
    gr__file_res_retain(g->res);
    /* Handles are made for the top graph: a body's nodes may use them. */
    for (size_t i = 0; i < ld->nconds; i++)
        if ((err = grGraphConditionalHandleCreate(&ld->conds[i].h, g, ld->conds[i].defval,
                                                  ld->conds[i].flags))) {
            gr__graph_free(g);
            return lfail_call(ld, err);
        }
    scope top;
    memset(&top, 0, sizeof top);
    ld->top = &top;
    err = parse_graph(ld, g, &top, 0, NULL);
    ld->top = NULL;
    if (!err && (err = next_line(ld, &s)) == grSuccess && s)
        err = lfail(ld, grErrorInvalidValue, "text after the '}' that closes the graph");
    if (err) {
        gr__graph_free(g);
        return err;
    }
    *out = g;
    return grSuccess;
}

/* The whole file into a buffer of its own. */
static grError_t read_file(loader *ld)
{
    FILE *f = fopen(ld->path, "rb");
    if (!f)
        return gr__fail(grErrorInvalidValue, "%s: cannot open '%s': %s", ld->call, ld->path, strerror(errno));
    /* Sized from a regular file's length, so that a large file is read
     * once, without copies. Anything else (a pipe, a device) is read in
     * growing chunks: its length, and where fseek puts its end, mean
     * nothing (a directory's ftell is LONG_MAX on ext4). A directory is
     * refused here, where some systems would read its bytes. */
    struct stat st;
    bool stat_ok = fstat(fileno(f), &st) == 0;
    if (stat_ok && S_ISDIR(st.st_mode)) {
        fclose(f);
        return gr__fail(grErrorInvalidValue, "%s: cannot read '%s': %s", ld->call, ld->path,
                        strerror(EISDIR));
    }
    size_t cap = (size_t)1 << 16;
    if (stat_ok && S_ISREG(st.st_mode) && st.st_size > 0 && (uintmax_t)st.st_size < SIZE_MAX)
        cap = (size_t)st.st_size + 1;
    char *buf = gr__malloc(cap);
    size_t len = 0;
    while (buf) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap)
            break;
        char *nb = gr__realloc(buf, cap * 2);
        if (!nb)
            gr__free(buf);
        buf = nb;
        cap *= 2;
    }
    bool bad = buf && ferror(f);
    int saved = errno;
    fclose(f);
    if (!buf)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory reading '%s'", ld->call, ld->path);
    if (bad) {
        gr__free(buf);
        return gr__fail(grErrorInvalidValue, "%s: cannot read '%s': %s", ld->call, ld->path, strerror(saved));
    }
    ld->text = buf;
    ld->len = len;
    return grSuccess;
}

GR_API grError_t grGraphLoadFromFile(grGraph_t *graph, const char *path, unsigned int flags)
{
    static const char call[] = "grGraphLoadFromFile";
    loader ld;
    grGraph_t g = NULL;
    grError_t err;
    if (!graph)
        return gr__fail(grErrorInvalidValue, "%s: graph is NULL; pass where to store the loaded graph", call);
    if (!path)
        return gr__fail(grErrorInvalidValue, "%s: path is NULL; pass the file to read", call);
    if (flags & ~grGraphLoadStandIns)
        return gr__fail(grErrorInvalidValue, "%s: flags 0x%x has bits other than grGraphLoadStandIns", call,
                        flags);
    memset(&ld, 0, sizeof ld);
    ld.call = call;
    ld.path = path;
    ld.flags = flags;
    if ((err = read_file(&ld)))
        return err;
    if (!(ld.res = gr__file_res_new())) {
        gr__free(ld.text);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    }
    err = load(&ld, &g);
    /* The nodes hold their own references now. */
    for (size_t i = 0; i < ld.nkernels; i++)
        gr__kernel_release(ld.kernels[i].k);
    gr__free(ld.kernels);
    gr__free(ld.hostfns);
    gr__free(ld.conds);
    for (size_t i = 0; i < ld.ncomms; i++)
        gr__comm_release(ld.comms[i]);
    gr__free(ld.comms);
    gr__free(ld.text);
    gr__file_res_release(ld.res);
    if (err)
        return err;
    *graph = g;
    return grSuccess;
}
