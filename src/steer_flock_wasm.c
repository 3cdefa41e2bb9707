/* SPDX-License-Identifier: MIT */
/* The wasm build of the vector neighbour kernel (WebAssembly SIMD128, 128-bit
 * registers, four float lanes) (see steer_flock_simd.inc). */
#define SIMD_WIDTH 4
#define SIMD_SUFFIX wasm
#include "steer_flock_simd.inc"
