/* SPDX-License-Identifier: MIT */
/*
 * The kernels of each vector path: the neighbour kernel, its capped scan
 * and the vector integration a path brings. simd.c says which paths
 * exist and run here; this table, above both the neighbour kernels and
 * the integration, points a world at one path's functions.
 */
#include "kernel_paths.h"
#include "internal.h"
#include "steer_flock.h"
#include "steer_env.h"
#include "integrate.h"
#include "orca_lanes.h"
#include "simd.h"

#include <string.h>

/* ------------------------------------------------------------------------ */
/* The kernels of each path                                                 */
/* ------------------------------------------------------------------------ */

/* One row per path this build carries (simd.c's table, which chooses
 * among them). */
typedef struct kernel_path {
    throng_simd id;
    flock_kernel_fn fn;
    flock_cap_scan_fn cap_scan;
    flock_count_below_fn count_below;
    flock_cap_rows_fn cap_rows;
    flock_hold_rows_fn hold_rows;
    flock_hold_rows_fn hold_windows;
    flock_mask_rows_fn mask_rows;
    void (*integrate_2d)(throng_world *, uint32_t, uint32_t, float);
    void (*integrate_3d)(throng_world *, uint32_t, uint32_t, float);
    env_lanes_fn env_lanes;
    env_block_fn env_block;
    orca_block_lines_fn orca_lines;
    orca_block_solve_fn orca_solve;
    orca_block_wants_fn orca_wants;
    orca_block_rest_fn orca_rest;
    void (*velocity_rows_2d)(throng_world *, uint32_t, uint32_t, float);
    void (*place_rows_2d)(throng_world *, uint32_t, uint32_t, float);
} kernel_path;

static const kernel_path paths[] = {
#if defined(THRONG_HAVE_SIMD_KERNELS) && defined(__x86_64__)
    { THRONG_SIMD_AVX512, flock_kernel_avx512, flock_cap_scan_avx512,
      flock_count_below_avx512, flock_cap_rows_avx512, flock_hold_rows_avx512,
      flock_hold_windows_avx512, flock_mask_rows_avx512, integrate_2d_avx512,
      integrate_3d_avx512, env_avoid_lanes_avx512, env_avoid_block_avx512,
      orca_block_lines_avx512, orca_block_solve_avx512, orca_block_wants_avx512,
      orca_block_rest_avx512, integrate_velocity_rows_2d_avx512,
      integrate_place_rows_2d_avx512 },
    { THRONG_SIMD_AVX2, flock_kernel_avx2, flock_cap_scan_avx2,
      flock_count_below_avx2, flock_cap_rows_avx2, flock_hold_rows_avx2,
      flock_hold_windows_avx2, flock_mask_rows_avx2, integrate_2d_avx2,
      integrate_3d_avx2, env_avoid_lanes_avx2, env_avoid_block_avx2,
      orca_block_lines_avx2, orca_block_solve_avx2, orca_block_wants_avx2,
      orca_block_rest_avx2, integrate_velocity_rows_2d_avx2,
      integrate_place_rows_2d_avx2 },
    { THRONG_SIMD_SSE2, flock_kernel_sse2, flock_cap_scan_sse2,
      flock_count_below_sse2, flock_cap_rows_sse2, flock_hold_rows_sse2,
      flock_hold_windows_sse2, flock_mask_rows_sse2, integrate_2d_sse2,
      integrate_3d_sse2, env_avoid_lanes_sse2, env_avoid_block_sse2,
      orca_block_lines_sse2, orca_block_solve_sse2, orca_block_wants_sse2,
      orca_block_rest_sse2, integrate_velocity_rows_2d_sse2,
      integrate_place_rows_2d_sse2 },
#endif
#if defined(THRONG_HAVE_SIMD_KERNELS) && defined(__aarch64__)
    /* AdvSIMD is part of the aarch64 base architecture. */
    { THRONG_SIMD_NEON, flock_kernel_neon, flock_cap_scan_neon,
      flock_count_below_neon, flock_cap_rows_neon, flock_hold_rows_neon,
      flock_hold_windows_neon, flock_mask_rows_neon, integrate_2d_neon,
      integrate_3d_neon, env_avoid_lanes_neon, env_avoid_block_neon,
      orca_block_lines_neon, orca_block_solve_neon, orca_block_wants_neon,
      orca_block_rest_neon, integrate_velocity_rows_2d_neon,
      integrate_place_rows_2d_neon },
#endif
#if defined(THRONG_HAVE_SIMD_KERNELS) && defined(__wasm_simd128__)
    /* A module built with SIMD128 runs only where the engine has it. */
    { THRONG_SIMD_WASM, flock_kernel_wasm, flock_cap_scan_wasm,
      flock_count_below_wasm, flock_cap_rows_wasm, flock_hold_rows_wasm,
      flock_hold_windows_wasm, flock_mask_rows_wasm, integrate_2d_wasm,
      integrate_3d_wasm, env_avoid_lanes_wasm, env_avoid_block_wasm,
      orca_block_lines_wasm, orca_block_solve_wasm, orca_block_wants_wasm,
      orca_block_rest_wasm, integrate_velocity_rows_2d_wasm,
      integrate_place_rows_2d_wasm },
#endif
    { THRONG_SIMD_SCALAR, flock_kernel_scalar, flock_cap_scan_scalar, NULL,
      NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
      NULL, NULL },
};
#define PATH_COUNT (sizeof paths / sizeof paths[0])

int world_use_simd(throng_world *w, throng_simd simd) {
    throng_simd id = simd_resolve(simd);
    const kernel_path *p = NULL;
    for (size_t k = 0; k < PATH_COUNT; k++)
        if (paths[k].id == id && id != THRONG_SIMD_AUTO)
            p = &paths[k];
    if (!p)
        return 1;
    w->kernel = p->fn;
    w->cap_scan = p->cap_scan;
    w->count_below = p->count_below;
    w->cap_rows = p->cap_rows;
    w->hold_rows = p->hold_rows;
    w->hold_windows = p->hold_windows;
    w->mask_rows = p->mask_rows;
    w->integrate_2d = p->integrate_2d;
    w->integrate_3d = p->integrate_3d;
    w->velocity_rows_2d = p->velocity_rows_2d;
    w->place_rows_2d = p->place_rows_2d;
    w->env_lanes = p->env_lanes;
    w->env_block = p->env_block;
    w->orca_block_lines = p->orca_lines;
    w->orca_block_solve = p->orca_solve;
    w->orca_block_wants = p->orca_wants;
    w->orca_block_rest = p->orca_rest;
    w->simd = p->id;
    w->simd_name = throng_simd_name(p->id);
    return 0;
}

int world_select_kernel(throng_world *w, const char *name) {
    throng_simd simd = THRONG_SIMD_AUTO;
    if (name && throng_simd_from_name(name, &simd) != THRONG_OK)
        return 1;
    return world_use_simd(w, simd);
}
