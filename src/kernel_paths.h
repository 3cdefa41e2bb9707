/* SPDX-License-Identifier: MIT */
/*
 * Pointing a world's kernels at a vector path (kernel_paths.c).
 */
#ifndef THRONG_KERNEL_PATHS_H
#define THRONG_KERNEL_PATHS_H

#include "internal.h"

/* Points the world's kernels at a path (THRONG_SIMD_AUTO: the widest the
 * CPU and build offer). Returns nonzero, changing nothing, when the value
 * is outside the enum or the path cannot run here. */
int world_use_simd(throng_world *world, throng_simd simd);

/* The same by name, for tests that switch a built world's path: "auto" or
 * NULL for the widest, else a name as throng_simd_name spells it. Nothing
 * here reads the environment: a world's path comes from its def. */
int world_select_kernel(throng_world *world, const char *name);

#endif /* THRONG_KERNEL_PATHS_H */
