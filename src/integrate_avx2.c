/* SPDX-License-Identifier: MIT */
/* The avx2 build of the vector integration (see integrate_simd.inc). */
#define SIMD_WIDTH 8
#define SIMD_SUFFIX avx2
#include "integrate_simd.inc"
