/*
 * record.h - what the files of 'graphrt record' share: the callback
 * stream (the log libgraphrt_record.so writes, docs/record.md) read into
 * memory, and the converter that turns it into graph files, session.json
 * and report.txt.
 *
 * Everything a conversion allocates comes from one arena (rec_arena) and
 * is freed at once when the conversion ends; the model is read-only once
 * parsed. Lines keep their number in the log, which is the order of the
 * events: a walk's line is where its block was written, which can be
 * later than the call that asked for it ('walk-queued').
 */
#ifndef GR_TOOL_RECORD_H
#define GR_TOOL_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct rec_arena {
    struct rec_chunk *chunks;
} rec_arena;

void *rec_alloc(rec_arena *a, size_t n); /* zeroed; NULL when out of memory */
char *rec_strdup(rec_arena *a, const char *s, size_t n);
void rec_arena_free(rec_arena *a);

/* One line of the log: its kind (first word) and its other words. */
typedef struct rec_line {
    size_t no; /* 1-based line number in the log */
    const char *kind;
    char **tok;
    size_t ntok;
} rec_line;

/* The value of 'key=' among a line's words, or NULL. */
const char *rec_get(const rec_line *l, const char *key);
unsigned long long rec_getu(const rec_line *l, const char *key); /* 0 when absent */

typedef struct rec_graph rec_graph;

/* A node of a walk: its CUDA id, its type word and fields (a rec_line
 * whose kind is the type), its dependencies' ids in edge order, and the
 * bodies of a child-graph or conditional node. */
typedef struct rec_node {
    unsigned long long id;
    rec_line f;
    unsigned long long *deps;
    size_t ndeps;
    bool edgedata; /* some dependency carries non-default edge data */
    rec_graph **body;
    size_t nbody;
} rec_node;

struct rec_graph {
    rec_node *v;
    size_t n;
};

/* A walk: graph g as the helper thread found it, why (capture,
 * instantiate, update), for executable x (0 if none). file is the graph
 * file it was written to (NULL before conversion or if it failed). */
typedef struct rec_walk {
    unsigned w, g, x;
    unsigned same_as; /* a 'walk-same' line: the walk w= whose nodes it shares */
    const char *why;
    size_t line, queued_line;
    rec_graph top;
    const char *file;
    size_t version;      /* 1 for the first distinct content of graph g, ... */
    const char *problem; /* set when the file could not be written or loaded */
} rec_walk;

typedef struct rec_log {
    rec_arena arena;
    const char *path;
    rec_line *lines; /* every line that is not inside a walk block */
    size_t nlines;
    rec_walk *walks;
    size_t nwalks;
    unsigned version;
    bool ended; /* the 'end' line was seen: the program exited normally */
} rec_log;

/* Reads the log at path. On failure returns false with a sentence in err. */
bool rec_log_read(rec_log *log, const char *path, char *err, size_t cap);
void rec_log_free(rec_log *log);

/* The walk numbered w, or NULL. */
rec_walk *rec_log_walk(rec_log *log, unsigned w);
/* The node of id among a walk's nodes (any depth), its index in its graph
 * in *index; NULL if none. */
const rec_node *rec_walk_node(const rec_walk *wk, unsigned long long id, size_t *index);

/* Writes walk wk as a graphrt graph file (docs/graph-files.md) to f. Notes
 * what could not be kept (a node type the format lacks, edge data) as
 * comment lines. Returns false on a write error. */
bool rec_write_graph(FILE *f, const rec_walk *wk);

/* Options and entry of the conversion (record_report.c). */
typedef struct rec_options {
    bool stale;
    bool quiet;
} rec_options;

/* Converts every callbacks-*.log of dir: graph files, session.json and
 * report.txt in dir. Returns 0 on success, 1 on failure (with a line on
 * stderr). */
int rec_convert_dir(const char *dir, const rec_options *opt);

#endif /* GR_TOOL_RECORD_H */
