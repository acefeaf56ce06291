/*
 * dot.c - grGraphDebugDotPrint: a graph as Graphviz DOT.
 *
 * Output shape: one 'digraph', one box per node whose label names its type,
 * seq and key parameters (all of them with grGraphDebugDotFlagsVerbose);
 * a child-graph node is a box inside a dashed cluster that also holds the
 * child graph's nodes, with dashed edges from that box to the child's
 * roots; a conditional node is a box inside a dotted cluster holding one
 * dashed cluster per body, with dotted edges to the bodies' roots. Node
 * ids are "g<k>_n<seq>" where k numbers the graphs in the order
 * they are printed, so ids are unique across nested graphs. Label text is
 * escaped for DOT double-quoted strings.
 */
#include "graph.h"
#include "../backend/comm.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

typedef struct dot_out {
    FILE *f;
    unsigned flags;
    unsigned next_graph; /* k of the next graph printed */
} dot_out;

static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if (*s == '\n')
            fputs("\\n", f);
        else
            fputc(*s, f);
    }
}

const char *gr__memcpy_kind_name(grMemcpyKind k)
{
    switch (k) {
    case grMemcpyHostToHost:
        return "HostToHost";
    case grMemcpyHostToDevice:
        return "HostToDevice";
    case grMemcpyDeviceToHost:
        return "DeviceToHost";
    case grMemcpyDeviceToDevice:
        return "DeviceToDevice";
    case grMemcpyDefault:
        return "Default";
    }
    return "?";
}

static const char *wait_cond_name(unsigned flags)
{
    static const char *const names[] = {"geq", "eq", "and", "nor"};
    return flags <= grStreamWaitValueNor ? names[flags] : "?";
}

/* A batch memory operation node's operations, one line each (the first
 * eight), with their words' addresses when verbose. */
static void memop_text(const gr_memop_params *m, bool verbose, char *buf, size_t cap)
{
    size_t used = 0;
    int r = snprintf(buf, cap, "\n%u operation%s", m->count, m->count == 1 ? "" : "s");
    for (unsigned i = 0; r > 0 && (used += (size_t)r) < cap && i < m->count && i < 8; i++) {
        const grStreamBatchMemOpParams *op = &m->ops[i];
        const char *name = gr__memop_op_name((int)op->operation);
        bool wide = op->operation == grStreamMemOpWaitValue64 || op->operation == grStreamMemOpWriteValue64;
        unsigned long long v = wide ? op->waitValue.value64 : op->waitValue.value;
        if (op->operation == grStreamMemOpBarrier)
            r = snprintf(buf + used, cap - used, "\n%s %s", name, op->memoryBarrier.flags ? "gpu" : "sys");
        else if (op->operation == grStreamMemOpWaitValue32 || op->operation == grStreamMemOpWaitValue64)
            r = snprintf(buf + used, cap - used, "\n%s %s 0x%llx", name, wait_cond_name(op->waitValue.flags),
                         v);
        else
            r = snprintf(buf + used, cap - used, "\n%s 0x%llx", name ? name : "?", v);
        if (verbose && r > 0 && used + (size_t)r < cap && op->operation != grStreamMemOpBarrier)
            r += snprintf(buf + used + (size_t)r, cap - used - (size_t)r, " at %p", op->waitValue.address);
    }
    if (m->count > 8 && used < cap)
        snprintf(buf + used, cap - used, "\n...");
}

/* The flags of grGraphDebugDotPrint that show every parameter of a node
 * of 'type' (CUDA's per-type flags; Verbose shows them for all). */
static unsigned type_flags(grGraphNodeType type)
{
    switch (type) {
    case grGraphNodeTypeKernel:
        return grGraphDebugDotFlagsKernelNodeParams | grGraphDebugDotFlagsKernelNodeAttributes;
    case grGraphNodeTypeMemcpy:
        return grGraphDebugDotFlagsMemcpyNodeParams;
    case grGraphNodeTypeMemset:
        return grGraphDebugDotFlagsMemsetNodeParams;
    case grGraphNodeTypeHost:
        return grGraphDebugDotFlagsHostNodeParams;
    case grGraphNodeTypeWaitEvent:
    case grGraphNodeTypeEventRecord:
        return grGraphDebugDotFlagsEventNodeParams;
    case grGraphNodeTypeConditional:
        return grGraphDebugDotFlagsConditionalNodeParams;
    case grGraphNodeTypeGraph:
    case grGraphNodeTypeEmpty:
    case grGraphNodeTypeMemAlloc:
    case grGraphNodeTypeMemFree:
    case grGraphNodeTypeBatchMemOp:
    case grGraphNodeTypeCollective:
    case grGraphNodeTypeCount:
        break;
    }
    return 0;
}

/* The label text of a node (unescaped; lines separated by '\n'). */
static void node_text(const struct grGraphNode_st *n, unsigned flags, char *buf, size_t cap)
{
    const gr_node_params *p = &n->p;
    bool verbose = (flags & (grGraphDebugDotFlagsVerbose | type_flags(n->type))) != 0;
    int r = (flags & grGraphDebugDotFlagsHandles)
                ? snprintf(buf, cap, "#%llu %s\nhandle %p", (unsigned long long)n->seq,
                           grGraphNodeTypeName(n->type), (const void *)n)
                : snprintf(buf, cap, "#%llu %s", (unsigned long long)n->seq, grGraphNodeTypeName(n->type));
    size_t len = r > 0 ? (size_t)r : 0;
    if (len >= cap)
        return;
    buf += len;
    cap -= len;
    switch (n->type) {
    case grGraphNodeTypeKernel: {
        const gr_kernel_params *k = &p->kernel;
        r = snprintf(buf, cap, "\n%s\ngrid (%u,%u,%u) block (%u,%u,%u)", k->kernel->name, k->grid.x,
                     k->grid.y, k->grid.z, k->block.x, k->block.y, k->block.z);
        if (verbose && r > 0 && (size_t)r < cap) {
            const unsigned char *a = k->argbuf;
            size_t i, used = (size_t)r;
            used += (size_t)snprintf(buf + used, cap - used, "\nsharedMem %u\nargs %u bytes:", k->shmem,
                                     (unsigned)k->kernel->argbytes);
            for (i = 0; i < k->kernel->argbytes && i < 64 && used < cap; i++)
                used += (size_t)snprintf(buf + used, cap - used, "%s%02x", i % 8 ? "" : " ", a[i]);
            if (k->kernel->argbytes > 64 && used < cap)
                snprintf(buf + used, cap - used, " ...");
        }
        return;
    }
    case grGraphNodeTypeMemcpy:
        if (p->memcpy.shape) { /* 3D parameters: the extent and pitches */
            const gr_copy_shape *c = &p->memcpy.shape->shape;
            int w = snprintf(buf, cap, "\n%zu x %zu x %zu bytes %s", c->width, c->height, c->depth,
                             gr__memcpy_kind_name(p->memcpy.kind));
            if (verbose && w > 0 && (size_t)w < cap)
                snprintf(buf + w, cap - (size_t)w, "\ndst %p pitch %zu rows %zu\nsrc %p pitch %zu rows %zu",
                         p->memcpy.dst, c->dpitch, c->drows, p->memcpy.src, c->spitch, c->srows);
            return;
        }
        if (verbose)
            snprintf(buf, cap, "\n%zu bytes %s\ndst %p\nsrc %p", p->memcpy.count,
                     gr__memcpy_kind_name(p->memcpy.kind), p->memcpy.dst, p->memcpy.src);
        else
            snprintf(buf, cap, "\n%zu bytes %s", p->memcpy.count, gr__memcpy_kind_name(p->memcpy.kind));
        return;
    case grGraphNodeTypeMemset:
        if (verbose)
            snprintf(buf, cap, "\n%zu x %zu x %u bytes = 0x%x\ndst %p\npitch %zu", p->memset.height,
                     p->memset.width, p->memset.elementSize, p->memset.value, p->memset.dst, p->memset.pitch);
        else
            snprintf(buf, cap, "\n%zu x %zu x %u bytes = 0x%x", p->memset.height, p->memset.width,
                     p->memset.elementSize, p->memset.value);
        return;
    case grGraphNodeTypeHost:
        if (verbose)
            snprintf(buf, cap, "\nfn %p\nuserData %p", (void *)(uintptr_t)p->host.fn, p->host.userData);
        else
            snprintf(buf, cap, "\nfn %p", (void *)(uintptr_t)p->host.fn);
        return;
    case grGraphNodeTypeGraph:
        snprintf(buf, cap, "\n%zu nodes, %zu edges", p->child->nnodes, p->child->nedges);
        return;
    case grGraphNodeTypeWaitEvent:
    case grGraphNodeTypeEventRecord:
        snprintf(buf, cap, "\nevent %p", GR_PTR(p->event));
        return;
    case grGraphNodeTypeMemAlloc:
        snprintf(buf, cap, "\n%zu bytes at %p", p->alloc.bytesize, p->alloc.dptr);
        return;
    case grGraphNodeTypeMemFree:
        snprintf(buf, cap, "\n%p", p->free.dptr);
        return;
    case grGraphNodeTypeConditional:
        snprintf(buf, cap, "\n%s, %u bod%s\nhandle 0x%llx", gr__cond_type_name(p->cond.type), p->cond.nbodies,
                 p->cond.nbodies == 1 ? "y" : "ies", (unsigned long long)(uintptr_t)p->cond.slot);
        return;
    case grGraphNodeTypeBatchMemOp:
        memop_text(&p->memop, verbose, buf, cap);
        return;
    case grGraphNodeTypeCollective: {
        const grCollectiveNodeParams *c = &p->coll;
        bool red = c->op == grCollAllReduce || c->op == grCollReduce || c->op == grCollReduceScatter;
        bool root = c->op == grCollBroadcast || c->op == grCollReduce;
        bool peer = c->op == grCollSend || c->op == grCollRecv;
        char rank[24] = "";
        if (root || peer)
            snprintf(rank, sizeof rank, " %s %d", root ? "root" : "peer", c->root);
        r = snprintf(buf, cap, "\n%s%s%s\n%zu %s%s", gr__coll_op_name(c->op), red ? " " : "",
                     red ? gr__coll_redop_name(c->redop) : "", c->count, gr__coll_type_name(c->datatype),
                     rank);
        if (verbose && r > 0 && (size_t)r < cap)
            snprintf(buf + r, cap - (size_t)r, "\nsend %p recv %p\ncomm %p", c->sendbuff, c->recvbuff,
                     GR_PTR(c->comm));
        return;
    }
    case grGraphNodeTypeEmpty:
    case grGraphNodeTypeCount:
        return;
    }
}

static void print_graph(dot_out *o, grGraph_t g, const char *indent);
static void print_node(dot_out *o, unsigned k, const struct grGraphNode_st *n, const char *indent);

/* The name of a conditional node's body b, as its cluster shows it. */
static const char *body_name(const struct grGraphNode_st *n, unsigned b, char *buf, size_t cap)
{
    switch (n->p.cond.type) {
    case grGraphCondTypeIf:
        return b == 0 ? "body if != 0" : "body if == 0 (else)";
    case grGraphCondTypeWhile:
        return "body while != 0";
    case grGraphCondTypeSwitch:
        snprintf(buf, cap, "body case %u", b);
        return buf;
    }
    return "body";
}

/* A conditional node: a box inside a dotted cluster that holds one
 * cluster per body, with dotted edges from the box to each body's roots
 * (labelled with the body's condition). */
static void print_conditional(dot_out *o, unsigned k, const struct grGraphNode_st *n, const char *indent)
{
    char inner[64], inner2[80], name[32];
    snprintf(inner, sizeof inner, "%s    ", indent);
    snprintf(inner2, sizeof inner2, "%s    ", inner);
    fprintf(o->f, "%ssubgraph cluster_g%u_n%llu {\n", indent, k, (unsigned long long)n->seq);
    fprintf(o->f, "%slabel=\"%s node #%llu\"; style=dotted;\n", inner, gr__cond_type_name(n->p.cond.type),
            (unsigned long long)n->seq);
    print_node(o, k, n, inner);
    for (unsigned b = 0; b < n->p.cond.nbodies; b++) {
        grGraph_t body = n->p.cond.bodies[b];
        unsigned bk = o->next_graph;
        const char *label = body_name(n, b, name, sizeof name);
        fprintf(o->f, "%ssubgraph cluster_g%u_n%llu_b%u {\n", inner, k, (unsigned long long)n->seq, b);
        fprintf(o->f, "%slabel=\"%s\"; style=dashed;\n", inner2, label);
        print_graph(o, body, inner2);
        fprintf(o->f, "%s}\n", inner);
        for (const struct grGraphNode_st *c = body->first; c != NULL; c = c->next)
            if (c->ndeps == 0)
                fprintf(o->f, "%sg%u_n%llu -> g%u_n%llu [style=dotted label=\"%s\"];\n", inner, k,
                        (unsigned long long)n->seq, bk, (unsigned long long)c->seq, label);
    }
    fprintf(o->f, "%s}\n", indent);
}

static void print_graph(dot_out *o, grGraph_t g, const char *indent);

static void print_node(dot_out *o, unsigned k, const struct grGraphNode_st *n, const char *indent)
{
    char text[1024];
    node_text(n, o->flags, text, sizeof text);
    fprintf(o->f, "%sg%u_n%llu [label=\"", indent, k, (unsigned long long)n->seq);
    put_escaped(o->f, text);
    fprintf(o->f, "\"%s];\n", n->type == grGraphNodeTypeEmpty ? " style=dashed" : "");
}

static void print_graph(dot_out *o, grGraph_t g, const char *indent)
{
    const struct grGraphNode_st *n;
    unsigned k = o->next_graph++;
    char inner[64];
    size_t i;
    snprintf(inner, sizeof inner, "%s    ", indent);
    for (n = g->first; n != NULL; n = n->next) {
        if (n->type == grGraphNodeTypeConditional) {
            print_conditional(o, k, n, indent);
            continue;
        }
        if (n->type != grGraphNodeTypeGraph) {
            print_node(o, k, n, indent);
            continue;
        }
        /* The child's nodes print with the next graph number. */
        unsigned ck = o->next_graph;
        const struct grGraphNode_st *c;
        fprintf(o->f, "%ssubgraph cluster_g%u_n%llu {\n", indent, k, (unsigned long long)n->seq);
        fprintf(o->f, "%slabel=\"child graph of node #%llu\"; style=dashed;\n", inner,
                (unsigned long long)n->seq);
        print_node(o, k, n, inner);
        print_graph(o, n->p.child, inner);
        for (c = n->p.child->first; c != NULL; c = c->next)
            if (c->ndeps == 0)
                fprintf(o->f, "%sg%u_n%llu -> g%u_n%llu [style=dashed];\n", inner, k,
                        (unsigned long long)n->seq, ck, (unsigned long long)c->seq);
        fprintf(o->f, "%s}\n", indent);
    }
    for (n = g->first; n != NULL; n = n->next)
        for (i = 0; i < n->nsuccs; i++)
            fprintf(o->f, "%sg%u_n%llu -> g%u_n%llu;\n", indent, k, (unsigned long long)n->seq, k,
                    (unsigned long long)n->succs[i]->seq);
}

/* Every flag of CUDA's cudaGraphDebugDotFlags. */
#define DOT_FLAGS                                                                                \
    (grGraphDebugDotFlagsVerbose | grGraphDebugDotFlagsKernelNodeParams |                        \
     grGraphDebugDotFlagsMemcpyNodeParams | grGraphDebugDotFlagsMemsetNodeParams |               \
     grGraphDebugDotFlagsHostNodeParams | grGraphDebugDotFlagsEventNodeParams |                  \
     grGraphDebugDotFlagsExtSemasSignalNodeParams | grGraphDebugDotFlagsExtSemasWaitNodeParams | \
     grGraphDebugDotFlagsKernelNodeAttributes | grGraphDebugDotFlagsHandles |                    \
     grGraphDebugDotFlagsConditionalNodeParams)

GR_API grError_t grGraphDebugDotPrint(grGraph_t graph, const char *path, unsigned int flags)
{
    static const char call[] = "grGraphDebugDotPrint";
    grError_t err;
    dot_out o;
    int failed;
    if ((err = gr__graph_check(call, graph)) != grSuccess)
        return err;
    if (path == NULL)
        return gr__fail(grErrorInvalidValue, "%s: path is NULL; pass the name of the file to write", call);
    if (flags & ~DOT_FLAGS)
        return gr__fail(grErrorInvalidValue,
                        "%s: flags 0x%x has bits that are not grGraphDebugDotFlags (0x%x are)", call, flags,
                        DOT_FLAGS);
    o.f = fopen(path, "w");
    if (o.f == NULL)
        return gr__fail(grErrorInvalidValue, "%s: cannot open '%s' for writing: %s", call, path,
                        strerror(errno));
    o.flags = flags;
    o.next_graph = 0;
    fprintf(o.f, "digraph graphrt {\n");
    fprintf(o.f, "    label=\"graph %p: %zu nodes, %zu edges\";\n", GR_PTR(graph), graph->nnodes,
            graph->nedges);
    fprintf(o.f, "    node [shape=box fontname=\"monospace\"];\n");
    print_graph(&o, graph, "    ");
    fprintf(o.f, "}\n");
    failed = ferror(o.f);
    if (fclose(o.f) != 0 || failed)
        return gr__fail(grErrorInvalidValue, "%s: writing '%s' failed: %s", call, path, strerror(errno));
    return grSuccess;
}
