/*
 * file_int.h - what the graph file's saver (file_save.c), loader
 * (file_load.c) and resources (file_res.c) share: the words of the format
 * and the resources a loaded graph owns. docs/graph-files.md specifies the
 * format.
 */
#ifndef GR_FILE_INT_H
#define GR_FILE_INT_H

#include "../graph.h"
#include "../../memory/memory.h"

/* The first line of every graph file: this word, a space, the version. */
#define GR_FILE_MAGIC "graphrt-graph"
#define GR_FILE_VERSION 1

/* The format's words, spelled here once for the saver and the loader
 * (docs/graph-files.md; the node kinds' words are
 * GR_GRAPH_NODE_TYPE_LIST's, through grGraphNodeTypeWord_). Values: */
#define GR_FILE_WORD_NULL "null"             /* a reference to no memory */
#define GR_FILE_WORD_DEVICE "device"         /* a buffer declaration's memory: device */
#define GR_FILE_WORD_HOST "host"             /* a buffer declaration's memory: host */
#define GR_FILE_WORD_REGISTERED "registered" /* host data=: the registered function's data */
#define GR_FILE_WORD_RW "rw"                 /* alloc access=: device 0 reads and writes */
#define GR_FILE_WORD_NONE "none"             /* alloc access=: no access descriptor */
#define GR_FILE_WORD_SYS "sys"               /* a memop barrier's scope: the system */
#define GR_FILE_WORD_GPU "gpu"               /* a memop barrier's scope: the device */
/* The fields' names (NAME=VALUE after a node's kind or in a
 * declaration): the saver writes " NAME=", the loader looks NAME up. */
#define GR_FILE_KEY_ACCESS "access"
#define GR_FILE_KEY_ARGS "args"
#define GR_FILE_KEY_BLOCK "block"
#define GR_FILE_KEY_COUNT "count"
#define GR_FILE_KEY_DATA "data"
#define GR_FILE_KEY_DEFAULT "default"
#define GR_FILE_KEY_DPITCH "dpitch"
#define GR_FILE_KEY_DROWS "drows"
#define GR_FILE_KEY_DST "dst"
#define GR_FILE_KEY_ELEM "elem"
#define GR_FILE_KEY_EXTENT "extent"
#define GR_FILE_KEY_FLAGS "flags"
#define GR_FILE_KEY_GRID "grid"
#define GR_FILE_KEY_HEIGHT "height"
#define GR_FILE_KEY_KIND "kind"
#define GR_FILE_KEY_MAXSIZE "maxsize"
#define GR_FILE_KEY_OPS "ops"
#define GR_FILE_KEY_PITCH "pitch"
#define GR_FILE_KEY_PTR "ptr"
#define GR_FILE_KEY_SHMEM "shmem"
#define GR_FILE_KEY_SIZE "size"
#define GR_FILE_KEY_SPITCH "spitch"
#define GR_FILE_KEY_SRC "src"
#define GR_FILE_KEY_SROWS "srows"
#define GR_FILE_KEY_TYPE "type"
#define GR_FILE_KEY_USAGE "usage"
#define GR_FILE_KEY_VALUE "value"
#define GR_FILE_KEY_WIDTH "width"
#define GR_FILE_KEY_OP "op"       /* collective nodes */
#define GR_FILE_KEY_REDOP "redop" /* collective nodes */
#define GR_FILE_KEY_ROOT "root"   /* collective nodes: root or peer */
#define GR_FILE_KEY_RANK "rank"   /* collective nodes: the saving rank */
#define GR_FILE_KEY_RANKS "ranks" /* collective nodes: the communicator's size */
#define GR_FILE_KEY_AFTER "after"
#define GR_FILE_KEY_SUCC "succ"
/* The declarations before 'graph {': the first word of their lines. */
#define GR_FILE_DECL_KERNEL "kernel"
#define GR_FILE_DECL_HOSTFN "hostfn"
#define GR_FILE_DECL_BUFFER "buffer"
#define GR_FILE_DECL_EVENT "event"
#define GR_FILE_DECL_COND "cond"
/* A memop wait's condition, indexed by the low two bits of its flags
 * (grStreamWaitValueGeq, Eq, And, Nor). */
#define GR_FILE_WAIT_CONDS        \
    {                             \
        "geq", "eq", "and", "nor" \
    }
/* A conditional node's type=, indexed by grGraphConditionalNodeType. */
#define GR_FILE_COND_TYPES      \
    {                           \
        "if", "while", "switch" \
    }

/*
 * The resources of a loaded graph: the buffers the loader allocated and
 * the events it created, the names of its stand-in host functions.
 * Refcounted by the loaded graph, its clones (child graphs included) and
 * the executables instantiated from them; the last release frees the
 * buffers, destroys the events' handles (nodes that still name an event
 * hold their own reference) and frees the record.
 */
typedef struct gr_file_buf {
    void *ptr;
    size_t size;
    gr_mem_kind kind;
} gr_file_buf;

struct gr_file_res {
    atomic_int refs;
    gr_file_buf *bufs;
    size_t nbufs, capbufs;
    grEvent_t *events;
    size_t nevents, capevents;
    char **names; /* stand-in host functions' names, their userData */
    size_t nnames, capnames;
};

/* A new record with one reference, or NULL when out of memory. */
struct gr_file_res *gr__file_res_new(void);

/* Appends to the record; false when out of memory (nothing appended: the
 * caller frees what it would have appended). */
bool gr__file_res_add_buf(struct gr_file_res *r, void *ptr, size_t size, gr_mem_kind kind);
bool gr__file_res_add_event(struct gr_file_res *r, grEvent_t e);
bool gr__file_res_add_name(struct gr_file_res *r, char *name);

/* The stand-ins of grGraphLoadStandIns: a kernel function for every
 * kernel and a host function whose userData is the record's copy of the
 * saved name (so a stand-in graph saves back with its names). */
void gr__standin_kernel(const grKernelCtx *ctx, void **args);
void gr__standin_host(void *user_data);

#endif /* GR_FILE_INT_H */
