/* SPDX-License-Identifier: MIT */
/* The sse2 build of obstacle avoidance's lane test (see steer_env_simd.inc). */
#define SIMD_WIDTH 4
#define SIMD_SUFFIX sse2
#include "steer_env_simd.inc"
