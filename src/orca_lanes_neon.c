/* SPDX-License-Identifier: MIT */
/* The neon build of ORCA on vector lanes (see orca_lanes_simd.inc). */
#define SIMD_WIDTH 4
#define SIMD_SUFFIX neon
#include "orca_lanes_simd.inc"
