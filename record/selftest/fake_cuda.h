/*
 * fake_cuda.h - the stand-in driver and CUPTI of the recorder's selftest
 * (fake_cuda.c): the callback the recorder subscribed, which callbacks it
 * enabled, and the handles of the one graph it serves.
 */
#ifndef RECORD_FAKE_CUDA_H
#define RECORD_FAKE_CUDA_H

#include <cuda.h>
#include <cupti.h>

extern CUpti_CallbackFunc fake_callback;
extern void *fake_userdata;
/* Delivers a callback as CUPTI does: only if the recorder enabled it
 * (cuptiEnableDomain enables or disables every callback of a domain,
 * cuptiEnableCallback one). Counts what it delivered and what it did not. */
void fake_dispatch(CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data);
int fake_enabled(CUpti_CallbackDomain dom, CUpti_CallbackId id);
extern unsigned long fake_delivered, fake_not_delivered;
/* cuptiEnableDomain calls for the driver and runtime domains after the
 * first callback was delivered (switching a domain is what costs in the
 * real CUPTI). */
extern unsigned fake_domain_switches;

/* The graph: fake_nodes nodes (3 unless a caller sets more, up to
 * FAKE_NODES_MAX), a chain; node i is a kernel (foo for i % 3 == 0, else
 * bar) but a copy a to b for i % 3 == 1; CUPTI's node id is 11 + i. */
#define FAKE_NODES_MAX 256
extern int fake_nodes;
extern int fake_node[FAKE_NODES_MAX], fake_graph_word, fake_exec_word, fake_func_word[2];
extern CUdeviceptr fake_a, fake_b;
/* The ids CUPTI gives the graph and the executable at their handles: a
 * new one at the same address after a destroy gets the next id. */
extern uint32_t fake_graph_id, fake_exec_id;
/* How many times the recorder asked the driver to classify a pointer. */
extern unsigned fake_pointer_queries;

#endif
