/* SPDX-License-Identifier: MIT */
/*
 * The vector paths this build carries and this CPU runs, and their names:
 * what throng_world_def.simd may ask for. Which kernels implement a path
 * is the step's business (kernel_paths.c); this file only knows the paths.
 */
#include "simd.h"
#include "internal.h"

#include <string.h>

/* One row per path this build carries, widest first, so the first
 * supported row is the one THRONG_SIMD_AUTO picks. */
typedef struct simd_path {
    throng_simd id;
    int (*supported)(void);
} simd_path;

static int always(void) {
    return 1;
}

#if defined(THRONG_HAVE_SIMD_KERNELS) && defined(__x86_64__)
/* A path may run only where the CPU has every instruction its object was
 * allowed to use, which is everything its -m flag implies, not just the
 * flag's own set: -mavx2 brings AVX, SSE4.2 and POPCNT along, and the
 * kernels' population counts do compile to popcnt; -mavx512f brings all
 * of that and AVX2, whose VEX forms sit beside the EVEX ones in that
 * object (objdump shows AVX-512F only: zmm arithmetic, kmovw/kandw/korw
 * masks, no AVX-512BW/DQ/VL form). The SSE4 instructions are VEX-encoded
 * there, which AVX covers. __builtin_cpu_supports also asks the operating
 * system (XGETBV) whether it saves the YMM and ZMM registers, so a CPU
 * whose OS disabled them falls back. Every x86-64 CPU has SSE2. The tzcnt
 * in the objects is a rep-prefixed bsf on older CPUs, which gives the
 * same answer for the non-zero masks it is given. */
static int has_sse2(void) {
    return 1;
}
static int has_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx") && __builtin_cpu_supports("avx2") &&
           __builtin_cpu_supports("popcnt");
}
static int has_avx512(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && has_avx2();
}
#endif

static const simd_path paths[] = {
#if defined(THRONG_HAVE_SIMD_KERNELS) && defined(__x86_64__)
    { THRONG_SIMD_AVX512, has_avx512 },
    { THRONG_SIMD_AVX2, has_avx2 },
    { THRONG_SIMD_SSE2, has_sse2 },
#endif
#if defined(THRONG_HAVE_SIMD_KERNELS) && defined(__aarch64__)
    /* AdvSIMD is part of the aarch64 base architecture. */
    { THRONG_SIMD_NEON, always },
#endif
#if defined(THRONG_HAVE_SIMD_KERNELS) && defined(__wasm_simd128__)
    /* WebAssembly's SIMD128 is decided when the module is built: an
     * engine without it refuses the whole module, so one that runs it
     * has it. */
    { THRONG_SIMD_WASM, always },
#endif
    { THRONG_SIMD_SCALAR, always },
};
#define PATH_COUNT (sizeof paths / sizeof paths[0])

/* Indexed by throng_simd; the one place the names are spelt. */
static const char *const simd_names[] = { "auto",   "scalar", "sse2", "avx2",
                                          "avx512", "neon",   "wasm" };
#define SIMD_NAME_COUNT (sizeof simd_names / sizeof simd_names[0])

int simd_in_range(throng_simd simd) {
    /* Compared as a signed int: an enum's underlying type may be
     * unsigned, and a negative value cast in must still be refused. */
    int value = (int)simd;
    return value >= 0 && value < (int)SIMD_NAME_COUNT;
}

/* The row of a named path this build carries and this CPU runs, or NULL.
 * AUTO gives the first, the widest. */
static const simd_path *path_for(throng_simd simd) {
    for (size_t p = 0; p < PATH_COUNT; p++) {
        if (simd != THRONG_SIMD_AUTO && paths[p].id != simd)
            continue;
        if (paths[p].supported())
            return &paths[p];
        if (simd != THRONG_SIMD_AUTO)
            return NULL;
    }
    return NULL;
}

const char *throng_simd_name(throng_simd simd) {
    return simd_in_range(simd) ? simd_names[(int)simd] : "unknown";
}

throng_status throng_simd_from_name(const char *name, throng_simd *out) {
    if (!name || !out)
        return THRONG_ERR_NULL;
    for (size_t k = 0; k < SIMD_NAME_COUNT; k++) {
        if (strcmp(name, simd_names[k]) == 0) {
            *out = (throng_simd)k;
            return THRONG_OK;
        }
    }
    return THRONG_ERR_NOT_FOUND;
}

int throng_simd_supported(throng_simd simd) {
    if (!simd_in_range(simd))
        return 0;
    return path_for(simd) != NULL;
}

throng_simd throng_simd_best(void) {
    /* The scalar row is last and always supported, so there is one. */
    const simd_path *p = path_for(THRONG_SIMD_AUTO);
    return p ? p->id : THRONG_SIMD_SCALAR;
}

throng_simd simd_resolve(throng_simd simd) {
    const simd_path *p = simd_in_range(simd) ? path_for(simd) : NULL;
    return p ? p->id : THRONG_SIMD_AUTO;
}
