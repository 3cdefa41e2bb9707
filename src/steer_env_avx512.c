/* SPDX-License-Identifier: MIT */
/* The avx512 build of obstacle avoidance's lane test (see steer_env_simd.inc). */
#define SIMD_WIDTH 16
#define SIMD_SUFFIX avx512
#include "steer_env_simd.inc"
