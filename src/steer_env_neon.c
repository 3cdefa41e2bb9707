/* SPDX-License-Identifier: MIT */
/* The neon build of obstacle avoidance's lane test (see steer_env_simd.inc). */
#define SIMD_WIDTH 4
#define SIMD_SUFFIX neon
#include "steer_env_simd.inc"
