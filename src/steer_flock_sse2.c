/* SPDX-License-Identifier: MIT */
/* The sse2 build of the vector neighbour kernel (see steer_flock_simd.inc). */
#define SIMD_WIDTH 4
#define SIMD_SUFFIX sse2
#include "steer_flock_simd.inc"
