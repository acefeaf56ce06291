/*
 * graph_int.h - what graph.c (one driver executable: lowering, launches,
 * setters, updates) and share.c (which driver executable a graphrt
 * executable uses) share. Private to the CUDA backend.
 *
 * A gr_dev_exec is either a driver executable of its own (share NULL:
 * graph, exec, nodes and stale are its own) or a view of a shared one
 * (share set: those fields stay empty, the parameters live in its plan,
 * and the shared record's 'host' is the driver's executable; share.c).
 */
#ifndef GR_CUDA_GRAPH_INT_H
#define GR_CUDA_GRAPH_INT_H

#include "cuda_int.h"
#include "cuda_graph.h"

struct gr_cuda_share;

struct gr_dev_exec {
    int device;
    CUgraph graph;
    CUgraphExec exec;
    CUgraphNode *nodes; /* per plan node; EXIT has none */
    uint8_t *stale;     /* per plan node: the driver's graph lacks what an exec setter wrote */
    uint32_t nnodes;
    bool disabled_once;
    /* A collective node was lowered: its child graph (nccl.c) can be
     * changed only through the executable, so updates keep to the exec
     * setters, as with disabled_once. */
    bool has_coll;
    struct gr_cuda_conds *cond; /* NULL without conditional nodes */
    /* The stream of the latest launch (retained), behind which every
     * launch of the executable is over once its own is (CUDA orders the
     * launches of one executable): where gr__cuda_exec_defer queues. */
    gr_stream *_Atomic last;
    /* Graphs lowered again for an update that changed a handle's default
     * (rehandle): the executable runs with their handles, so they live as
     * long as it does. */
    CUgraph *retired;
    uint32_t nretired;
    /* A view (share.c): the shared driver executable, the plan whose
     * parameters are this executable's, how often the shared executable
     * was brought to them. */
    struct gr_cuda_share *share;
    const gr_plan *plan;
    unsigned switches;
    /* Set where a view got its own driver executable while its launches
     * on the shared one may still run: the next launch waits for it
     * first, so that the executable's launches stay in order. */
    CUevent after;
    /* The kernel nodes' launch attributes the driver is given at each
     * lowering (found at instantiation, gr__plan_kattrs): one entry per
     * attribute, sorted by place (NULL when none, the usual case; owned
     * by the top-level record, shared by the copies lowering bodies),
     * and the place of the plan this record lowers (0, 0 at the top
     * level; a body's copy names its conditional node and body). A view
     * has none: an executable with attributes does not share. */
    struct gr_cuda_kattr *kattrs;
    uint32_t nkattrs;
    uint32_t kcond, kbody;
    /* The driver's graph got launch attributes its executable lacks
     * (gr__cuda_exec_set_kattrs): the next sync is a whole-graph
     * cuGraphExecUpdate. */
    bool kattrs_dirty;
    /* Likewise the edges with data between kernel nodes (programmatic
     * edges), by place of their 'to' node, then 'from' node; empty where
     * the driver has no cuGraphAddDependencies with edge data. */
    struct gr_cuda_kedge *kedges;
    uint32_t nkedges;
};

/* An edge with data into the kernel node at 'at', from node 'from' of the
 * same plan. */
struct gr_cuda_kedge {
    gr_kattr_at at;
    uint32_t from;
    CUgraphEdgeData d;
};

/* One launch attribute of the kernel node at 'at'. */
struct gr_cuda_kattr {
    gr_kattr_at at;
    CUlaunchAttribute a;
};

/* Lowers plan p into gx (whose device is set, whose driver fields are
 * empty) and instantiates it with graphrt's 'flags'; on failure gx's
 * driver fields are left empty. */
grError_t gr__cuda_host_lower(const char *call, struct gr_dev_exec *gx, const gr_plan *p,
                              unsigned long long flags);

/* Destroys gx's driver executable and graph and frees its arrays, leaving
 * the fields empty (gx itself stays). */
void gr__cuda_host_release(struct gr_dev_exec *gx);

/* Writes every node of plan p into gx's driver graph and applies it to
 * gx's executable with one cuGraphExecUpdate (the context current). */
grError_t gr__cuda_host_sync_all(const char *call, struct gr_dev_exec *gx, const gr_plan *p);

/* Records s as the stream of gx's latest launch. */
void gr__cuda_exec_note_launch(struct gr_dev_exec *gx, gr_stream *s);

/* ---- lower_attrs.c */

/* The launch attributes of the kernel nodes of the executable being
 * instantiated (plan p) that the driver takes, and the edges with data
 * between its kernel nodes (none where the driver cannot add them: full
 * edges then), each sorted by place into *out (NULL when none). */
grError_t gr__cuda_collect_kattrs(const char *call, const gr_plan *p, int device, struct gr_cuda_kattr **out,
                                  uint32_t *n);
grError_t gr__cuda_collect_kedges(const char *call, const gr_plan *p, int device, struct gr_cuda_kedge **out,
                                  uint32_t *n);

/* Gives kernel node 'node', plan node i of the plan gx lowers, its launch
 * attributes. */
CUresult gr__cuda_set_kattrs(const struct gr_dev_exec *gx, uint32_t i, CUgraphNode node);

/* The data of the edge from node 'from' into node i of the plan gx
 * lowers, or NULL for a full edge. */
const CUgraphEdgeData *gr__cuda_kedge_of(const struct gr_dev_exec *gx, uint32_t i, uint32_t from);

/* Once gx is instantiated: reads the driver's devNode of each
 * device-updatable kernel node of the top level into its attribute's
 * entry (gr__cuda_exec_devnode answers it); refused where the driver
 * gives none. */
grError_t gr__cuda_devnodes_read(const char *call, struct gr_dev_exec *gx);

/* ---- share.c */

/* Whether plan p, instantiated with 'flags', may share a driver
 * executable with executables of the same shape. */
bool gr__cuda_share_eligible(const gr_plan *p, unsigned long long flags);

/* gr__cuda_exec_lower for an eligible plan: a view of a driver executable
 * of the same shape (device, flags, node kinds, edges), live or parked,
 * or of a new one instantiated from p. */
grError_t gr__cuda_share_lower(const char *call, const gr_plan *p, int device, unsigned long long flags,
                               struct gr_dev_exec **out);

/* A view's launch (or upload): brings the shared executable to the
 * view's parameters where it holds another's, or gives the view its own
 * driver executable where sharing would order its launch behind another
 * executable's or it was switched to before. */
grError_t gr__cuda_share_launch(const char *call, struct gr_dev_exec *gx, gr_stream *s, bool upload);

/* Gives view gx a driver executable of its own (a no-op for one that has
 * one). */
grError_t gr__cuda_share_promote(const char *call, struct gr_dev_exec *gx);

/* Locks gx's shared record and answers the driver executable to apply an
 * exec setter or update to: the shared one where it holds gx's
 * parameters, else NULL (the plan, written by the exec layer, is all there
 * is to change). gr__cuda_share_let_go unlocks. */
struct gr_dev_exec *gr__cuda_share_hold(struct gr_dev_exec *gx);
void gr__cuda_share_let_go(struct gr_dev_exec *gx);

/* A view's destruction: leaves the shared record, which is parked (kept
 * for a later executable of its shape) when it was the last view. */
void gr__cuda_share_drop(struct gr_dev_exec *gx);

/* ---- nccl.c */

/* Lowers collective plan node pn into gx's graph after 'deps': its NCCL
 * call captured into a child graph node (*out). */
grError_t gr__cuda_coll_add(const char *call, struct gr_dev_exec *gx, const gr_pnode *pn, CUgraphNode *out,
                            const CUgraphNode *deps, size_t ndeps);

/* Captures p's NCCL call again and gives it to gx's executable at plan
 * node i (a collective node); refused changes nothing. */
grError_t gr__cuda_coll_set(const char *call, struct gr_dev_exec *gx, uint32_t i,
                            const grCollectiveNodeParams *p);
/* gr__cuda_coll_set of collective plan node pn with its parameters. */
grError_t gr__cuda_coll_sync(const char *call, struct gr_dev_exec *gx, const gr_pnode *pn);

#endif /* GR_CUDA_GRAPH_INT_H */
