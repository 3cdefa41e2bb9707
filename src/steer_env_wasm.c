/* SPDX-License-Identifier: MIT */
/* The wasm build of obstacle avoidance's lane test (WebAssembly SIMD128, 128-bit
 * registers, four float lanes) (see steer_env_simd.inc). */
#define SIMD_WIDTH 4
#define SIMD_SUFFIX wasm
#include "steer_env_simd.inc"
