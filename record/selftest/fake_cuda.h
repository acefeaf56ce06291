/*
 * fake_cuda.h - the stand-in driver and CUPTI of the recorder's selftest
 * (fake_cuda.c): the callback the recorder subscribed, and the handles of
 * the one graph it serves.
 */
#ifndef RECORD_FAKE_CUDA_H
#define RECORD_FAKE_CUDA_H

#include <cuda.h>
#include <cupti.h>

extern CUpti_CallbackFunc fake_callback;
extern void *fake_userdata;
extern int fake_node[3], fake_graph_word, fake_exec_word, fake_func_word[2];
extern CUdeviceptr fake_a, fake_b;
/* The ids CUPTI gives the graph and the executable at their handles: a
 * new one at the same address after a destroy gets the next id. */
extern uint32_t fake_graph_id, fake_exec_id;
/* How many times the recorder asked the driver to classify a pointer. */
extern unsigned fake_pointer_queries;

#endif
