/* SPDX-License-Identifier: MIT */
/* The avx512 build of the vector neighbour kernel (see steer_flock_simd.inc). */
#define SIMD_WIDTH 16
#define SIMD_SUFFIX avx512
#include "steer_flock_simd.inc"
