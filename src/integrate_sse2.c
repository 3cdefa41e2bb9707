/* SPDX-License-Identifier: MIT */
/* The sse2 build of the vector integration (see integrate_simd.inc). */
#define SIMD_WIDTH 4
#define SIMD_SUFFIX sse2
#include "integrate_simd.inc"
