/*
 * tool.h - what the subcommands of the graphrt tool share (graphrt.c):
 * loading a file, a graph's top-level nodes and edges as index arrays,
 * and output that suits people and scripts (--json).
 */
#ifndef GR_TOOL_H
#define GR_TOOL_H

#include "graphrt.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Exit codes of every subcommand (docs/tool.md). */
enum {
    TOOL_OK = 0,
    TOOL_FAIL = 1,
    TOOL_USAGE = 2
};

/* A graph's top level as arrays: nodes in creation order, and per node
 * its dependencies in edge order as indices (deps[dep_begin[i] ..
 * dep_begin[i + 1])). */
typedef struct tool_graph {
    grGraph_t g;
    size_t n;
    grGraphNode_t *nodes;
    size_t *dep_begin, *deps;
    size_t *nsuccs;
    struct tool_idx *sorted; /* node addresses, sorted (tool_node_index) */
} tool_graph;

/* Loads path with stand-ins (grGraphLoadStandIns). On failure prints the
 * reason on stderr and, when json, the object {"file", "error" (the
 * error's name), "detail"} on stdout, and returns false. */
bool tool_load(const char *path, grGraph_t *g, bool json);

/* Fills t from g (g stays the caller's); false when out of memory. */
bool tool_graph_read(tool_graph *t, grGraph_t g);
void tool_graph_free(tool_graph *t);

/* The index of node x among t's nodes, or (size_t)-1. */
size_t tool_node_index(const tool_graph *t, grGraphNode_t x);

/* Prints s as a JSON string (quoted and escaped). */
void tool_json_str(FILE *f, const char *s);

/* Prints an error "graphrt CMD: ..." to stderr. */
void tool_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses a whole decimal argument into *out (at most max); false if not. */
bool tool_parse_num(const char *s, unsigned long long max, unsigned long long *out);

/* The whole of the file at path, NUL-terminated, its length in *len when
 * len is not NULL; NULL if it cannot be opened or memory runs out. The
 * caller frees it. */
char *tool_read_file(const char *path, size_t *len);

int tool_replay(int argc, char **argv);
int tool_diff(int argc, char **argv);
/* What 'graphrt diff' prints for files a and b, to out (TOOL_OK: an
 * executable of a could be updated from b). */
int tool_diff_files(FILE *out, const char *a, const char *b, bool json);
int tool_record(int argc, char **argv);
int tool_analyze(int argc, char **argv);

#endif /* GR_TOOL_H */
