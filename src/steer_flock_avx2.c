/* SPDX-License-Identifier: MIT */
/* The avx2 build of the vector neighbour kernel (see steer_flock_simd.inc). */
#define SIMD_WIDTH 8
#define SIMD_SUFFIX avx2
#include "steer_flock_simd.inc"
