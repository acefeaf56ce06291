/*
 * seams.c - the upward seams: data and hooks that a higher layer fills
 * for a lower one, so that no lower layer calls up by name (see
 * docs/internals.md, "Seams").
 *
 * Invariant: a hook is NULL until its layer registers it, and is called
 * only where that layer must have run already: the capture hooks only
 * while a capture is active (gr__captures_active > 0) or a stream is
 * capturing, both of which only the capture layer brings about; the
 * kernel attributes and edge data hooks at instantiation, where a NULL
 * hook means that no graph node has attributes, no edge data (the graph
 * layer's attrs.c and edgedata.c, which alone give them, fill them).
 */
#include "backend.h"
#include "plan.h"

atomic_int gr__captures_active;

gr_capture_hooks gr__capture_hooks;

void (*gr__kattrs_hook)(const void *node, gr_kattrs_visit visit, void *ctx);

void (*gr__edges_hook)(const void *node, bool inside, gr_edges_visit visit, void *ctx);
