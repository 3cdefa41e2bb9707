/* SPDX-License-Identifier: MIT */
/* The avx512 build of the vector integration (see integrate_simd.inc). */
#define SIMD_WIDTH 16
#define SIMD_SUFFIX avx512
#include "integrate_simd.inc"
