/* SPDX-License-Identifier: MIT */
/*
 * The test runner: a table of named tests, checks that record a failure
 * and carry on, and a main() (tests/main.c) that runs the tests whose name
 * contains a filter and ends with "N passed, N failed".
 *
 * Each tests/test_<module>.c defines its tests with TEST(name) and hands
 * them to the runner from one register_<module>_tests() function, listed in
 * main.c. A failing check prints one line "file:line: what, values"; the
 * first few per test are printed, the rest only counted, so a loop over
 * thousands of cases cannot flood the output.
 *
 * Also here: the small deterministic random generator (splitmix64, from
 * testsupport/support.h, with the allocator and world builders the tests
 * share with the fuzz harnesses and the soak) and vector helpers every
 * module uses.
 */
#ifndef THRONG_TESTS_RUNNER_H
#define THRONG_TESTS_RUNNER_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "throng.h"
#include "../testsupport/support.h"

/* The handle of the world's default group (the null group when the world
 * is NULL or busy). */
static inline throng_group default_group(const throng_world *w) {
    throng_group g = THRONG_NULL_GROUP;
    (void)throng_world_default_group(w, &g);
    return g;
}

/* The handle of group `id` in a world that never removed a group (every
 * id then has generation 1). */
static inline throng_group first_group(const throng_world *w, uint32_t id) {
    throng_group g = { id, 1u, throng_world_id(w) };
    return g;
}

/* Two group handles name the same group of the same world. */
static inline bool same_group(throng_group a, throng_group b) {
    return a.id == b.id && a.generation == b.generation && a.world == b.world;
}

/* 1 in a build under AddressSanitizer, ThreadSanitizer or (clang's)
 * MemorySanitizer (gcc says so with __SANITIZE_*__, clang with
 * __has_feature), 0 otherwise: the one test of it, for the tests that
 * run shorter there (runner_short()) and those a sanitizer's shadow
 * memory rules out. A build may set it with -DRUNNER_SANITIZED=0 or 1. */
#ifndef RUNNER_SANITIZED
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RUNNER_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define RUNNER_SANITIZED 1
#endif
#endif
#endif
#ifndef RUNNER_SANITIZED
#define RUNNER_SANITIZED 0
#endif

/* Whether this run is a slow one: a sanitizer build (RUNNER_SANITIZED),
 * or THRONG_TEST_SHORT=1 in the environment (make cross-test sets it
 * for its runs under qemu-aarch64). There a few tests that step many
 * worlds on every path and thread count run fewer steps (each says how
 * many, and what they still reach); the plain builds, which also pin
 * the golden hashes, run them whole. */
bool runner_short(void);

typedef void (*runner_test_fn)(void);

#if defined(__GNUC__)
#define RUNNER_PRINTF(fmt_index, first_arg) \
    __attribute__((format(printf, fmt_index, first_arg)))
#else
#define RUNNER_PRINTF(fmt_index, first_arg)
#endif

void runner_register(const char *file, const char *name, runner_test_fn fn);
void runner_fail(const char *file, int line, const char *fmt, ...)
    RUNNER_PRINTF(3, 4);
/* Number of failed checks in the running test so far. */
unsigned runner_failures(void);

/* A run of some world on a kernel path ("scalar", "sse2", ...): its state
 * hash, 1 when this CPU or build lacks the path, 0 when the run failed. */
typedef uint64_t (*runner_path_run)(const void *cfg, const char *simd);

/* Runs cfg on the scalar path and on every vector path, and records a
 * failure (at file:line, naming `what`) for each path that ends in
 * another state, or when the scalar run fails. */
void runner_paths_match_scalar(const char *file, int line, const char *what,
                               runner_path_run run, const void *cfg);

/* w set to run on kernel path `path` (NULL: the default one); NULL, w
 * destroyed, when the path is missing here, or when w is NULL. */
throng_world *runner_on_path(throng_world *w, const char *path);

/* The end of a runner_path_run: steps w `steps` times by dt and destroys
 * it, returning its state hash, 0 when a step was refused; for a world
 * that could not be made (w NULL), 1 on a named path (the path is
 * missing) and 0 on the default one. */
static inline uint64_t runner_steps_hash(throng_world *w, const char *simd,
                                         int steps, float dt) {
    if (!w)
        return simd ? 1u : 0u;
    uint64_t h = 0;
    int ok = 1;
    for (int s = 0; s < steps && ok; s++)
        ok = throng_world_step(w, dt) == THRONG_OK;
    if (ok)
        h = throng_world_hash(w);
    throng_world_destroy(w);
    return h;
}

/* One per test file, called by main(). */
void register_world_tests(void);
void register_errors_tests(void);
void register_detmath_tests(void);
void register_integrate_tests(void);
void register_grid_tests(void);
void register_flock_tests(void);
void register_simd_tests(void);
void register_determinism_tests(void);
void register_golden_tests(void);
void register_wander_tests(void);
void register_schema_tests(void);
void register_steer_agent_tests(void);
void register_steer_route_tests(void);
void register_steer_env_tests(void);
void register_steer_combine_tests(void);
void register_finish_tests(void);
void register_render_tests(void);
void register_snapshot_tests(void);
void register_bench_stats_tests(void);
void register_bench_json_tests(void);
void register_bench_verdict_tests(void);
void register_bench_motion_tests(void);
void register_degenerate_tests(void);
void register_alloc_fail_tests(void);
void register_bad_input_tests(void);
void register_groups_tests(void);
void register_cap_tests(void);
void register_avoid_run_tests(void);
void register_orca2d_tests(void);
void register_orca_lanes_tests(void);
void register_velocity_tests(void);
void register_contact_tests(void);
void register_layers_tests(void);
void register_nav_tests(void);
void register_recorder_tests(void);
void register_canonical_tests(void);
void register_verlet_tests(void);
void register_tasks_tests(void);
void register_handles_tests(void);
void register_ranges_tests(void);
void register_busy_tests(void);
void register_save_tests(void);
void register_validate_tests(void);
void register_columns_tests(void);
void register_orca3d_tests(void);

#define TEST(name) static void name(void)
#define REGISTER(name) runner_register(__FILE__, #name, name)

#define CHECK(cond)                                              \
    do {                                                         \
        if (!(cond))                                             \
            runner_fail(__FILE__, __LINE__, "CHECK(%s)", #cond); \
    } while (0)

/* As CHECK, but leaves the test (for preconditions the rest relies on). */
#define REQUIRE(cond)                                              \
    do {                                                           \
        if (!(cond)) {                                             \
            runner_fail(__FILE__, __LINE__, "REQUIRE(%s)", #cond); \
            return;                                                \
        }                                                          \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                    \
    do {                                                                      \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);       \
        if (check_a_ != check_b_)                                             \
            runner_fail(__FILE__, __LINE__, "%s == %s: got %lld vs %lld", #a, \
                        #b, check_a_, check_b_);                              \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                  \
    do {                                                                    \
        unsigned long long check_a_ = (unsigned long long)(a);              \
        unsigned long long check_b_ = (unsigned long long)(b);              \
        if (check_a_ != check_b_)                                           \
            runner_fail(__FILE__, __LINE__, "%s == %s: got %#llx vs %#llx", \
                        #a, #b, check_a_, check_b_);                        \
    } while (0)

/* |a - b| <= tol, all three read as double. */
#define CHECK_NEAR(a, b, tol)                                           \
    do {                                                                \
        double check_a_ = (double)(a), check_b_ = (double)(b);          \
        double check_t_ = (double)(tol);                                \
        if (!(fabs(check_a_ - check_b_) <= check_t_))                   \
            runner_fail(__FILE__, __LINE__,                             \
                        "%s ~ %s: got %.9g vs %.9g (tol %.3g)", #a, #b, \
                        check_a_, check_b_, check_t_);                  \
    } while (0)

/* A status-returning call must give `want`. */
#define CHECK_STATUS(expr, want)                                             \
    do {                                                                     \
        throng_status check_got_ = (expr);                                   \
        throng_status check_want_ = (want);                                  \
        if (check_got_ != check_want_)                                       \
            runner_fail(__FILE__, __LINE__, "%s: got %d (%s), want %d (%s)", \
                        #expr, (int)check_got_,                              \
                        throng_status_string(check_got_), (int)check_want_,  \
                        throng_status_string(check_want_));                  \
    } while (0)

#define CHECK_OK(expr) CHECK_STATUS(expr, THRONG_OK)

#define REQUIRE_OK(expr)                                                       \
    do {                                                                       \
        throng_status check_got_ = (expr);                                     \
        if (check_got_ != THRONG_OK) {                                         \
            runner_fail(__FILE__, __LINE__, "%s: got %d (%s), want OK", #expr, \
                        (int)check_got_, throng_status_string(check_got_));    \
            return;                                                            \
        }                                                                      \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Deterministic random numbers (splitmix64) and small helpers             */
/* ------------------------------------------------------------------------ */

typedef struct test_rng {
    uint64_t state;
} test_rng;

static inline test_rng test_rng_make(uint64_t seed) {
    test_rng rng = { seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull };
    return rng;
}

static inline uint64_t test_rng_u64(test_rng *rng) {
    return ts_splitmix64(&rng->state);
}

/* Uniform in [0, n). */
static inline uint32_t test_rng_below(test_rng *rng, uint32_t n) {
    return n == 0u ? 0u : (uint32_t)(test_rng_u64(rng) % n);
}

/* Uniform float in [0, 1). */
static inline float test_rng_unit(test_rng *rng) {
    return (float)(test_rng_u64(rng) >> 40) * (1.0f / 16777216.0f);
}

/* Uniform float in [lo, hi). */
static inline float test_rng_range(test_rng *rng, float lo, float hi) {
    return lo + (hi - lo) * test_rng_unit(rng);
}

#define TEST_TWO_PI 6.28318530717958647692f

static inline double test_len3(const double v[3]) {
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static inline double test_dist3(const double a[3], const double b[3]) {
    double d[3] = { a[0] - b[0], a[1] - b[1], a[2] - b[2] };
    return test_len3(d);
}

/* Seed 000's vehicle model in double: F = truncate(force, max_force),
 * v1 = truncate(v0 + F / m dt, max_speed). */
static inline void test_ref_vehicle(double mass, double max_force,
                                    double max_speed, double dt,
                                    const double v0[3], const double force[3],
                                    double v1[3]) {
    double f[3] = { force[0], force[1], force[2] };
    double f_len = test_len3(f);
    if (f_len > max_force)
        for (int k = 0; k < 3; k++)
            f[k] *= max_force / f_len;
    for (int k = 0; k < 3; k++)
        v1[k] = v0[k] + f[k] / mass * dt;
    double v_len = test_len3(v1);
    if (v_len > max_speed)
        for (int k = 0; k < 3; k++)
            v1[k] *= max_speed / v_len;
}

static inline void test_to_double3(const float in[3], double out[3]) {
    out[0] = (double)in[0];
    out[1] = (double)in[1];
    out[2] = (double)in[2];
}

/* Builds the bench scenario `name` (bench/scenarios.c) with `agents`
 * agents on `threads` threads from `seed`, on kernel path `path` (NULL:
 * the default), steps it `steps` times and returns the state hash: 0 when
 * a call failed (reported), 1 when the path cannot run on this machine or
 * build. Defined in test_determinism.c. */
uint64_t test_scenario_hash(const char *name, uint32_t agents, int threads,
                            uint64_t seed, const char *path, int steps);

/* Snapshot header layout (throng.h): the payload starts after
 * TEST_SNAPSHOT_HEADER bytes; the checksum sits at TEST_SNAPSHOT_CHECKSUM_AT. */
#define TEST_SNAPSHOT_HEADER 40u
#define TEST_SNAPSHOT_CHECKSUM_AT 32u

/* Rewrites a snapshot's checksum over its n bytes, so a test can present
 * a change the checksum does not catch and reach the checks behind it.
 * Defined in test_snapshot.c. */
void test_snapshot_reseal(uint8_t *snapshot, size_t n);

/* Steps `world` `steps` times by dt. A refused step is reported, naming
 * `what` and the step, and ends it: returns false. */
static inline bool test_step_n(throng_world *world, float dt, int steps,
                               const char *what) {
    for (int s = 0; s < steps; s++) {
        if (throng_world_step(world, dt) != THRONG_OK) {
            runner_fail(__FILE__, __LINE__, "%s: step %d refused: %s", what, s,
                        throng_world_last_error(world));
            return false;
        }
    }
    return true;
}

static inline bool test_handle_eq(throng_agent a, throng_agent b) {
    return a.slot == b.slot && a.generation == b.generation &&
           a.world == b.world;
}

/* qsort order for handles. */
static inline int test_handle_cmp(const void *pa, const void *pb) {
    const throng_agent *a = (const throng_agent *)pa;
    const throng_agent *b = (const throng_agent *)pb;
    if (a->slot != b->slot)
        return a->slot < b->slot ? -1 : 1;
    if (a->generation != b->generation)
        return a->generation < b->generation ? -1 : 1;
    return 0;
}

#endif /* THRONG_TESTS_RUNNER_H */
