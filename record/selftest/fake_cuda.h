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

#endif
