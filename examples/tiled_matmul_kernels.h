/*
 * tiled_matmul_kernels.h - what tiled_matmul.c and its kernels share: the
 * tile's side, which is also the blocks' (TILE x TILE threads).
 */
#ifndef TILED_MATMUL_KERNELS_H
#define TILED_MATMUL_KERNELS_H

#define MATMUL_TILE 16

#endif
