/* SPDX-License-Identifier: MIT */
/* The sse2 build of ORCA on vector lanes (see orca_lanes_simd.inc). */
#define SIMD_WIDTH 4
#define SIMD_SUFFIX sse2
#include "orca_lanes_simd.inc"
