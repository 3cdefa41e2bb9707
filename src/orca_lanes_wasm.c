/* SPDX-License-Identifier: MIT */
/* The wasm build of ORCA on vector lanes (WebAssembly SIMD128, 128-bit
 * registers, four float lanes) (see orca_lanes_simd.inc). */
#define SIMD_WIDTH 4
#define SIMD_SUFFIX wasm
#include "orca_lanes_simd.inc"
