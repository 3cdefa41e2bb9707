/* SPDX-License-Identifier: MIT */
/* The neon build of the vector integration (AdvSIMD, part of aarch64) (see integrate_simd.inc). */
#define SIMD_WIDTH 4
#define SIMD_SUFFIX neon
#include "integrate_simd.inc"
