/* SPDX-License-Identifier: MIT */
/*
 * Golden hashes: the state hash after a fixed run of three bench scenes,
 * pinned as constants, so numeric drift between versions, compilers,
 * optimisation levels, C libraries and CPUs is caught, not only drift
 * between the paths of one build (tests/test_determinism.c compares those
 * with each other, which a change that moves every path alike passes).
 *
 * Each scene runs on every kernel path this build and CPU offer (scalar,
 * SSE2, AVX2, AVX-512 on x86-64; scalar and NEON on aarch64; scalar and
 * SIMD128 in a WebAssembly module (make web-golden); a path that
 * cannot run here is skipped) on 1 and 2 threads, and every run must end
 * on the pinned hash. CI runs this file in the default build, the scalar
 * and no-OpenMP builds, with clang and at -O0 (.ci/run); the same values
 * hold on aarch64. The scenes: flock2d_seed000 (seed 000's flock, 1,000
 * steps) pins the scene building and the flocking rules; every2d and every3d
 * (400 steps) pin every behaviour, both wanders (src/detmath.h's sine and
 * cosine) and the view cone. The agent counts are small because the point
 * is the bits, not the load: the whole file takes a few seconds at -O2
 * and stays tolerable at -O0 and under emulation.
 *
 * When a golden value may change: only on purpose, in a commit that says
 * why, when a change is meant to alter the numbers — a behaviour's
 * formula, the order of a sum, a constant, a scene's setup, the random
 * generator, or what throng_world_hash() covers. Then every path and build
 * moves together, and the new value is the one the failure message
 * prints. A change that should not alter the numbers (a refactor, a
 * faster kernel, a new compiler) must leave them alone: a mismatch then is
 * a bug, not a value to update. A mismatch on one path, one thread count
 * or one build only is never a reason to change a value.
 */
#include "runner.h"

/* The placement and the world's random numbers, as in the determinism
 * tests. */
#define GOLDEN_SEED 7u

static const char *const golden_paths[] = { "scalar", "sse2", "avx2",
                                            "avx512", "neon", "wasm" };
static const int golden_threads[] = { 1, 2 };

static void golden_check(const char *name, uint32_t agents, int steps,
                         uint64_t golden) {
    int runs = 0;
    for (size_t p = 0; p < sizeof golden_paths / sizeof golden_paths[0]; p++) {
        for (size_t t = 0; t < sizeof golden_threads / sizeof golden_threads[0];
             t++) {
            uint64_t h =
                test_scenario_hash(name, agents, golden_threads[t], GOLDEN_SEED,
                                   golden_paths[p], steps);
            if (h == 1)
                break; /* the path is not in this build or CPU */
            runs++;
            if (h != golden)
                runner_fail(__FILE__, __LINE__,
                            "%s, %u agents, %d steps, %s path, %d thread(s): "
                            "hash %#018llx, golden %#018llx",
                            name, agents, steps, golden_paths[p],
                            golden_threads[t], (unsigned long long)h,
                            (unsigned long long)golden);
        }
    }
    /* The scalar path is in every build. */
    CHECK(runs >= 2);
}

/* The golden values; see the top of the file before changing one. */
TEST(golden_flock2d_seed000) {
    golden_check("flock2d_seed000", 1000u, 1000, 0xb4254b9640712442ull);
}
TEST(golden_every2d) {
    golden_check("every2d", 500u, 400, 0x6755c8c74d07ccacull);
}
TEST(golden_every3d) {
    golden_check("every3d", 500u, 400, 0x5a97d8a3287189e2ull);
}

void register_golden_tests(void) {
    REGISTER(golden_flock2d_seed000);
    REGISTER(golden_every2d);
    REGISTER(golden_every3d);
}
