/* SPDX-License-Identifier: MIT */
/* The avx512 build of ORCA on vector lanes (see orca_lanes_simd.inc). */
#define SIMD_WIDTH 16
#define SIMD_SUFFIX avx512
#include "orca_lanes_simd.inc"
