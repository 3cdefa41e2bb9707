/* SPDX-License-Identifier: MIT */
/*
 * The test program: registers every module's tests, runs those whose name
 * passes the filter argv[1] (all when absent), prints one line per failing
 * check, one summary line per module and finally "N passed, N failed".
 *
 * The filter is a comma-separated list of name parts: a test runs when its
 * name contains one of the plain parts (or there are none) and none of the
 * parts written after a '!' ("finish_,avoid_" runs both families;
 * "!golden_,!determinism_threads" runs all but those).
 *
 * THRONG_TEST_SHORT=1 runs the few tests that shorten their runs under
 * the sanitizers shorter here too (runner_short(), runner.h): for an
 * emulator's run.
 *
 * THRONG_TEST_TIMES=S (seconds) also prints to stderr, after the summary,
 * each test that took S or more of wall time, slowest first, with its
 * CPU time: where a build's run (a sanitizer's, an emulator's) spends
 * its time.
 *
 * THRONG_TEST_SHARD=k/n runs only the selected tests whose place among
 * them is k modulo n (0 <= k < n), so n processes run the suite side by
 * side (make test TEST_SHARDS=n).
 *
 * THRONG_TEST_CLAIMS=DIR instead hands the selected tests out as they
 * run: each process takes the next test no process has claimed (by
 * creating DIR/<place>, which only one can do), so processes side by side
 * finish together however unequal the tests' times (tests/run_shards.sh
 * makes DIR afresh for each run). THRONG_TEST_FIRST=FILTER (a filter as
 * above) then hands out the tests it selects before the others: a
 * build's slowest tests, so that none starts late and runs on alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"

#include "kernel_paths.h"

/* Failing checks printed per test; the rest are counted only. */
#define RUNNER_MAX_PRINTED 8u
#define RUNNER_MAX_TESTS 512

typedef struct runner_test {
    const char *file;
    const char *name;
    runner_test_fn fn;
} runner_test;

static runner_test runner_tests[RUNNER_MAX_TESTS];
static int runner_test_count;
static const char *runner_current_name;
static unsigned runner_current_failures;

void runner_register(const char *file, const char *name, runner_test_fn fn) {
    if (runner_test_count >= RUNNER_MAX_TESTS) {
        fprintf(stderr, "runner: too many tests, raise RUNNER_MAX_TESTS\n");
        exit(2);
    }
    runner_tests[runner_test_count].file = file;
    runner_tests[runner_test_count].name = name;
    runner_tests[runner_test_count].fn = fn;
    runner_test_count++;
}

void runner_fail(const char *file, int line, const char *fmt, ...) {
    runner_current_failures++;
    if (runner_current_failures > RUNNER_MAX_PRINTED)
        return;
    va_list args;
    va_start(args, fmt);
    printf("FAIL %s: %s:%d: ", runner_current_name, file, line);
    vprintf(fmt, args);
    printf("\n");
    va_end(args);
    fflush(stdout);
}

unsigned runner_failures(void) {
    return runner_current_failures;
}

void runner_paths_match_scalar(const char *file, int line, const char *what,
                               runner_path_run run, const void *cfg) {
    static const char *const paths[] = { "sse2", "avx2", "avx512", "neon",
                                         "wasm" };
    const uint64_t scalar = run(cfg, "scalar");
    if (scalar <= 1) {
        runner_fail(file, line, "%s: the scalar run failed", what);
        return;
    }
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        const uint64_t got = run(cfg, paths[p]);
        if (got != 1 && got != scalar)
            runner_fail(file, line, "%s: %s path gives %016llx, scalar %016llx",
                        what, paths[p], (unsigned long long)got,
                        (unsigned long long)scalar);
    }
}

bool runner_short(void) {
    const char *env = getenv("THRONG_TEST_SHORT");
    return RUNNER_SANITIZED || (env && env[0] && strcmp(env, "0") != 0);
}

throng_world *runner_on_path(throng_world *w, const char *path) {
    if (w && path && world_select_kernel(w, path) != 0) {
        throng_world_destroy(w);
        return NULL;
    }
    return w;
}

static double runner_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double runner_seconds[RUNNER_MAX_TESTS];
/* CPU time (every thread of the process), which a busy machine does not
 * stretch as it does the wall time. */
static double runner_cpu_seconds[RUNNER_MAX_TESTS];

static int runner_slower(const void *pa, const void *pb) {
    const double a = runner_seconds[*(const int *)pa];
    const double b = runner_seconds[*(const int *)pb];
    return (a < b) - (a > b);
}

/* The tests that took at least `floor` seconds, slowest first. */
static void runner_print_times(double floor) {
    static int order[RUNNER_MAX_TESTS];
    int n = 0;
    for (int i = 0; i < runner_test_count; i++)
        if (runner_seconds[i] >= floor)
            order[n++] = i;
    qsort(order, (size_t)n, sizeof order[0], runner_slower);
    for (int k = 0; k < n; k++)
        fprintf(stderr, "time %8.2f s  cpu %8.2f s  %s\n",
                runner_seconds[order[k]], runner_cpu_seconds[order[k]],
                runner_tests[order[k]].name);
}

/* "k/n" with 0 <= k < n, into *k and *n; 0 when it is not that. */
static int runner_parse_shard(const char *s, unsigned long *k,
                              unsigned long *n) {
    char *end = NULL;
    *k = strtoul(s, &end, 10);
    if (end == s || *end != '/')
        return 0;
    const char *rest = end + 1;
    *n = strtoul(rest, &end, 10);
    return end != rest && *end == '\0' && *n > 0 && *k < *n;
}

/* Whether this process takes the selected test at `place`: it creates
 * `dir`/`place`, which fails for every process after the first. Anything
 * but "already claimed" stops the run, as a test left unrun would go
 * unnoticed. */
static int runner_claim(const char *dir, unsigned long place) {
    char path[4096];
    const int len = snprintf(path, sizeof path, "%s/%lu", dir, place);
    if (len < 0 || (size_t)len >= sizeof path) {
        fprintf(stderr, "runner: THRONG_TEST_CLAIMS=%s is too long\n", dir);
        exit(2);
    }
    const int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) {
        close(fd);
        return 1;
    }
    if (errno == EEXIST)
        return 0;
    fprintf(stderr, "runner: cannot create %s\n", path);
    exit(2);
}

/* A non-negative number of seconds, into *out; 0 when it is not one. */
static int runner_parse_seconds(const char *s, double *out) {
    char *end = NULL;
    *out = strtod(s, &end);
    return end != s && *end == '\0' && *out >= 0.0;
}

/* Whether `name` passes the filter (see the top of this file). */
static int runner_selected(const char *name, const char *filter) {
    if (!filter)
        return 1;
    int any_plain = 0, plain_hit = 0;
    const char *part = filter;
    while (*part) {
        const char *end = strchr(part, ',');
        const size_t len = end ? (size_t)(end - part) : strlen(part);
        const int negated = len > 0 && part[0] == '!';
        const char *text = part + negated;
        const size_t text_len = len - (size_t)negated;
        int hit = 0;
        if (text_len > 0) {
            for (const char *at = name; *at && !hit; at++)
                hit = strncmp(at, text, text_len) == 0;
            if (negated && hit)
                return 0;
            if (!negated) {
                any_plain = 1;
                plain_hit |= hit;
            }
        }
        if (!end)
            break;
        part = end + 1;
    }
    return !any_plain || plain_hit;
}

static const char *runner_basename(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int main(int argc, char **argv) {
    const char *filter = argc > 1 ? argv[1] : NULL;
    const char *times = getenv("THRONG_TEST_TIMES");
    const char *shard_env = getenv("THRONG_TEST_SHARD");
    const char *claims = getenv("THRONG_TEST_CLAIMS");
    if (claims && shard_env) {
        fprintf(stderr, "runner: THRONG_TEST_SHARD and THRONG_TEST_CLAIMS "
                        "both set\n");
        return 2;
    }
    unsigned long shard = 0, shards = 1;
    if (shard_env && !runner_parse_shard(shard_env, &shard, &shards)) {
        fprintf(stderr, "runner: THRONG_TEST_SHARD=%s is not k/n, 0 <= k < n\n",
                shard_env);
        return 2;
    }
    double floor_seconds = 0.0;
    if (times && !runner_parse_seconds(times, &floor_seconds)) {
        fprintf(stderr,
                "runner: THRONG_TEST_TIMES=%s is not a number of "
                "seconds\n",
                times);
        return 2;
    }
    unsigned long selected = 0;

    register_world_tests();
    register_errors_tests();
    register_detmath_tests();
    register_integrate_tests();
    register_grid_tests();
    register_flock_tests();
    register_simd_tests();
    register_determinism_tests();
    register_golden_tests();
    register_wander_tests();
    register_schema_tests();
    register_steer_agent_tests();
    register_steer_route_tests();
    register_steer_env_tests();
    register_steer_combine_tests();
    register_finish_tests();
    register_render_tests();
    register_snapshot_tests();
    register_bench_stats_tests();
    register_bench_json_tests();
    register_bench_verdict_tests();
    register_bench_motion_tests();
    register_degenerate_tests();
    register_alloc_fail_tests();
    register_bad_input_tests();
    register_tasks_tests();
    register_handles_tests();
    register_ranges_tests();
    register_busy_tests();
    register_save_tests();
    register_validate_tests();
    register_groups_tests();
    register_columns_tests();
    register_cap_tests();
    register_avoid_run_tests();
    register_orca2d_tests();
    register_orca_lanes_tests();
    register_orca3d_tests();
    register_velocity_tests();
    register_contact_tests();
    register_layers_tests();
    register_nav_tests();
    register_recorder_tests();
    register_canonical_tests();
    register_verlet_tests();

    /* With THRONG_TEST_FIRST (claims only), the tests it selects are
     * handed out first, then the rest: the slowest started first, none
     * of them is left to start when the others are nearly done. */
    const char *first = claims ? getenv("THRONG_TEST_FIRST") : NULL;
    if (first && !*first)
        first = NULL;
    int passed = 0, failed = 0;
    for (int pass = first ? 0 : 1; pass < 2; pass++) {
        int module_passed = 0, module_failed = 0;
        const char *module = NULL;
        for (int i = 0; i <= runner_test_count; i++) {
            const char *file = i < runner_test_count
                                   ? runner_basename(runner_tests[i].file)
                                   : NULL;
            if (module && (!file || strcmp(file, module) != 0)) {
                if (module_passed + module_failed > 0)
                    printf("%-20s %3d passed, %d failed\n", module,
                           module_passed, module_failed);
                module_passed = module_failed = 0;
            }
            if (!file)
                break;
            module = file;
            const runner_test *test = &runner_tests[i];
            if (!runner_selected(test->name, filter))
                continue;
            if (first && runner_selected(test->name, first) != (pass == 0))
                continue;
            const unsigned long place = selected++;
            if (claims ? !runner_claim(claims, place) : place % shards != shard)
                continue;
            runner_current_name = test->name;
            runner_current_failures = 0;
            const double start = runner_now();
            const clock_t cpu_start = clock();
            test->fn();
            runner_seconds[i] = runner_now() - start;
            runner_cpu_seconds[i] =
                (double)(clock() - cpu_start) / (double)CLOCKS_PER_SEC;
            if (runner_current_failures == 0) {
                passed++;
                module_passed++;
            } else {
                if (runner_current_failures > RUNNER_MAX_PRINTED)
                    printf("FAIL %s: ... and %u more failed checks\n",
                           test->name,
                           runner_current_failures - RUNNER_MAX_PRINTED);
                failed++;
                module_failed++;
            }
            fflush(stdout);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    if (times)
        runner_print_times(floor_seconds);
    return failed == 0 ? 0 : 1;
}
