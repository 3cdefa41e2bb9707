/* SPDX-License-Identifier: MIT */
/* The avx2 build of ORCA on vector lanes (see orca_lanes_simd.inc). */
#define SIMD_WIDTH 8
#define SIMD_SUFFIX avx2
#include "orca_lanes_simd.inc"
