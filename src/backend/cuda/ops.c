/*
 * ops.c - the CUDA device kind's table (device.h): every operation the
 * layers above ask of a GPU, each one of this area's gr__cuda_*
 * functions, whose comments (cuda.h, cuda_graph.h) say what they do.
 */
#include "cuda_graph.h"
#include "cuda_int.h"

const gr_device_ops gr__cuda_kind = {
    .name = "cuda",

    .count = gr__cuda_count,
    .absence = gr__cuda_absence,
    .properties = gr__cuda_properties,
    .attribute = gr__cuda_attribute,
    .device_sync = gr__cuda_device_sync,
    .device_init = gr__cuda_device_init,
    .peer_access = gr__cuda_peer_access,
    .driver_version = gr__cuda_driver_version,
    .mem_info = gr__cuda_mem_info,

    .stream_create = gr__cuda_stream_create,
    .stream_priority_range = gr__cuda_stream_priority_range,
    .stream_default = gr__cuda_stream_default,
    .stream_free = gr__cuda_stream_free,
    .stream_sync = gr__cuda_stream_sync,
    .stream_query = gr__cuda_stream_query,

    .launch = gr__cuda_launch,
    .copy = gr__cuda_memcpy,
    .fill = gr__cuda_memset,
    .copy_pitched = gr__cuda_memcpy_pitched,
    .fill_2d = gr__cuda_memset_2d,
    .copy_now = gr__cuda_memcpy_now,
    .fill_now = gr__cuda_memset_now,
    .host_func = gr__cuda_host_func,
    .stream_memops = gr__cuda_stream_memops,

    .event_create = gr__cuda_event_create,
    .event_free = gr__cuda_event_free,
    .event_record = gr__cuda_event_record,
    .event_query = gr__cuda_event_query,
    .event_sync = gr__cuda_event_sync,
    .event_elapsed = gr__cuda_event_elapsed,
    .stream_wait_event = gr__cuda_stream_wait_event,

    .mem_alloc = gr__cuda_malloc,
    .mem_free = gr__cuda_free,
    .host_alloc = gr__cuda_malloc_host,
    .host_free = gr__cuda_free_host,
    .pointer_device = gr__cuda_pointer_device,
    .pointer_info = gr__cuda_pointer_info,
    .alloc_async = gr__cuda_malloc_async,
    .free_async = gr__cuda_free_async,

    .pool_create = gr__cuda_pool_create,
    .pool_destroy = gr__cuda_pool_destroy,
    .pool_default = gr__cuda_pool_default,
    .pool_set_current = gr__cuda_pool_set_current,
    .pool_alloc = gr__cuda_pool_alloc,
    .pool_trim = gr__cuda_pool_trim,
    .pool_attribute = gr__cuda_pool_attribute,
    .pool_set_access = gr__cuda_pool_set_access,
    .pool_get_access = gr__cuda_pool_get_access,

    .vmm_granularity = gr__cuda_vmm_granularity,
    .vmm_reserve = gr__cuda_vmm_reserve,
    .vmm_unreserve = gr__cuda_vmm_unreserve,
    .vmm_create = gr__cuda_vmm_create,
    .vmm_release = gr__cuda_vmm_release,
    .vmm_map = gr__cuda_vmm_map,
    .vmm_unmap = gr__cuda_vmm_unmap,
    .vmm_quiesce = gr__cuda_vmm_quiesce,

    .kernel_set_image = gr__cuda_kernel_set_image,
    .kernel_free = gr__cuda_kernel_free,
    .func_attributes = gr__cuda_func_attributes,
    .occupancy_blocks = gr__cuda_occupancy_blocks,
    .occupancy_smem = gr__cuda_occupancy_smem,
    .occupancy_clusters = gr__cuda_occupancy_clusters,

    .exec_lower = gr__cuda_exec_lower,
    .exec_free = gr__cuda_exec_free,
    .exec_device = gr__cuda_exec_device,
    .exec_launch = gr__cuda_exec_launch,
    .exec_defer = gr__cuda_exec_defer,
    .exec_set_kernel = gr__cuda_exec_set_kernel,
    .exec_set_memcpy = gr__cuda_exec_set_memcpy,
    .exec_set_memset = gr__cuda_exec_set_memset,
    .exec_set_host = gr__cuda_exec_set_host,
    .exec_set_event = gr__cuda_exec_set_event,
    .exec_set_enabled = gr__cuda_exec_set_enabled,
    .exec_check_kernel = gr__cuda_exec_check_kernel,
    .exec_check_event = gr__cuda_exec_check_event,
    .exec_sync_range = gr__cuda_exec_sync_range,
};
