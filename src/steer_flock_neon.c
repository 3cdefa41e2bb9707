/* SPDX-License-Identifier: MIT */
/* The neon build of the vector neighbour kernel (see steer_flock_simd.inc):
 * four lanes in AdvSIMD's 128-bit registers, which every aarch64 CPU has,
 * so aarch64 builds need no -m flag and no run-time check for it. */
#define SIMD_WIDTH 4
#define SIMD_SUFFIX neon
#include "steer_flock_simd.inc"
