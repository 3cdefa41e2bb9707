/* SPDX-License-Identifier: MIT */
/* The avx2 build of obstacle avoidance's lane test (see steer_env_simd.inc). */
#define SIMD_WIDTH 8
#define SIMD_SUFFIX avx2
#include "steer_env_simd.inc"
