# graphrtCuda.cmake - graphrt_add_cuda_kernels(<target> <file.c>...
# [NVCC_OPTIONS <option>...]): kernels written once with graphrt_kernel.h's
# GR_KERNEL run on the CPU and on NVIDIA GPUs.
#
# Each file is added to <target> as C source (the per-block CPU functions
# and the registration functions). When CMake finds a CUDA compiler
# (check_language(CUDA): nvcc on PATH, or CUDACXX), each file is also
# compiled by it as CUDA (-x cu --fatbin, for GRAPHRT_CUDA_ARCHITECTURES,
# with PTX of the newest for GPUs to come), the fatbin is embedded into
# <target> as a C array (graphrtEmbed.cmake), and the file's C build gets
# GR_KERNEL_IMAGE naming it, so that GR_KERNEL_CREATE attaches the image.
# Without a CUDA compiler the target builds CPU-only, and says so once.
# NVCC_OPTIONS are added to nvcc's command line for these files (for
# example --fmad=false, so that the GPU rounds as a CPU without fused
# multiply-add does).
#
# GRAPHRT_CUDA_ARCHITECTURES: compute capabilities as "80;90" (default: 80,
# 90; the H100/H200 generation is 90).
include_guard(GLOBAL)
include(CheckLanguage)

set(GRAPHRT_CUDA_ARCHITECTURES "80;90" CACHE STRING "GPU architectures graphrt_add_cuda_kernels compiles for")
set(_graphrt_cuda_dir "${CMAKE_CURRENT_LIST_DIR}")

function(graphrt_add_cuda_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "NVCC_OPTIONS")
  set(sources ${arg_UNPARSED_ARGUMENTS})
  target_sources(${target} PRIVATE ${sources})
  check_language(CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    message(STATUS "graphrt: no CUDA compiler found; the kernels of ${target} are built for the CPU only")
    return()
  endif()
  if(NOT GRAPHRT_KERNEL_INCLUDE_DIR)
    message(FATAL_ERROR "graphrt_add_cuda_kernels: GRAPHRT_KERNEL_INCLUDE_DIR (where graphrt_kernel.h is) is not set")
  endif()
  set(gencode "")
  set(newest 0)
  foreach(arch ${GRAPHRT_CUDA_ARCHITECTURES})
    list(APPEND gencode "-gencode=arch=compute_${arch},code=sm_${arch}")
    if(arch GREATER newest)
      set(newest ${arch})
    endif()
  endforeach()
  list(APPEND gencode "-gencode=arch=compute_${newest},code=compute_${newest}")
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/graphrt_kernels")
  foreach(src ${sources})
    get_filename_component(abs "${src}" ABSOLUTE)
    get_filename_component(stem "${src}" NAME_WE)
    string(MAKE_C_IDENTIFIER "gr_kernel_image_${target}_${stem}" sym)
    set(fatbin "${dir}/${target}_${stem}.fatbin")
    set(gen "${dir}/${target}_${stem}_image.c")
    add_custom_command(OUTPUT "${fatbin}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
      COMMAND "${CMAKE_CUDA_COMPILER}" -x cu --fatbin ${gencode} ${arg_NVCC_OPTIONS} -I "${GRAPHRT_KERNEL_INCLUDE_DIR}"
              -o "${fatbin}" "${abs}"
      DEPENDS "${abs}" "${GRAPHRT_KERNEL_INCLUDE_DIR}/graphrt_kernel.h"
      COMMENT "graphrt: compiling the GPU image of ${src} with nvcc"
      VERBATIM)
    add_custom_command(OUTPUT "${gen}"
      COMMAND "${CMAKE_COMMAND}" -DIN=${fatbin} -DOUT=${gen} -DSYM=${sym} -P "${_graphrt_cuda_dir}/graphrtEmbed.cmake"
      DEPENDS "${fatbin}" "${_graphrt_cuda_dir}/graphrtEmbed.cmake"
      COMMENT "graphrt: embedding the GPU image of ${src}"
      VERBATIM)
    target_sources(${target} PRIVATE "${gen}")
    set_property(SOURCE "${abs}" APPEND PROPERTY COMPILE_DEFINITIONS "GR_KERNEL_IMAGE=${sym}")
  endforeach()
endfunction()
