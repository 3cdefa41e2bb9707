/* SPDX-License-Identifier: MIT */
/* The wasm build of the vector integration (WebAssembly SIMD128, 128-bit
 * registers, four float lanes) (see integrate_simd.inc). */
#define SIMD_WIDTH 4
#define SIMD_SUFFIX wasm
#include "integrate_simd.inc"
