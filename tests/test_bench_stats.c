/* SPDX-License-Identifier: MIT */
/*
 * The benchmark regression gate: its statistics on samples whose answers
 * were worked by hand, its decision on clear cases either side of the line,
 * and the reading of the bench's JSON (bench/stats.c, bench/results.c).
 *
 * The exact p-values come from listing the splits of the pooled samples:
 * with 3 and 3 samples there are C(6, 3) = 20, and only one puts the three
 * largest values in the second sample, so that split's p is 1/20.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"
#include "../bench/options.h"
#include "../bench/quality.h"
#include "../bench/results.h"
#include "../bench/run.h"
#include "../bench/stats.h"

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

TEST(bench_stats_median) {
    double odd[] = { 3.0, 1.0, 2.0 };
    double even[] = { 4.0, 1.0, 3.0, 2.0 };
    double one[] = { 7.5 };
    CHECK_NEAR(stats_median(odd, 3), 2.0, 0.0);
    CHECK_NEAR(stats_median(even, 4), 2.5, 0.0);
    CHECK_NEAR(stats_median(one, 1), 7.5, 0.0);
    CHECK(isnan(stats_median(odd, 0)));
    /* The caller's order is left alone. */
    CHECK(odd[0] == 3.0 && odd[1] == 1.0 && odd[2] == 2.0);
    CHECK_NEAR(stats_min(even, 4), 1.0, 0.0);
    CHECK(isnan(stats_min(even, 0)));
    CHECK_NEAR(stats_mean(even, 4), 2.5, 0.0);
    CHECK_NEAR(stats_mean(odd, 2), 2.0, 0.0);
    CHECK(isnan(stats_mean(even, 0)));
}

/* One configuration run as the bench runs it (two repeats of six
 * counted steps): its mean is the mean of the steps timed, every repeat's
 * included, and lies between the fastest step and the slowest, as the
 * median does. */
TEST(bench_stats_run_mean) {
    static const char *const args[] = { "throng-bench",
                                        "--scenario",
                                        "flock2d",
                                        "--agents",
                                        "300",
                                        "--steps",
                                        "6",
                                        "--warmup",
                                        "1",
                                        "--repeats",
                                        "2",
                                        "--threads",
                                        "1",
                                        "--quiet" };
    /* options_parse() takes argv as main() has it: writable copies. */
    char copies[COUNT_OF(args)][16];
    char *argv[COUNT_OF(args)];
    for (size_t i = 0; i < COUNT_OF(args); ++i) {
        snprintf(copies[i], sizeof copies[i], "%s", args[i]);
        argv[i] = copies[i];
    }
    options opt;
    REQUIRE(options_parse((int)COUNT_OF(argv), argv, &opt) == 0);
    samples s;
    REQUIRE(samples_init(&s, 12));
    quality_snapshot snap;
    memset(&snap, 0, sizeof snap);
    progress bar;
    memset(&bar, 0, sizeof bar);
    double repeat_ms[2] = { 0.0, 0.0 };
    result r;
    memset(&r, 0, sizeof r);
    r.repeat_ms = repeat_ms;
    CHECK_EQ_INT(
        run_config(&opt, opt.scenarios[0].sc, 300, 1, &s, &snap, &bar, &r), 0);
    CHECK_EQ_U64(r.iterations, 12);
    double sum = 0.0, slowest = 0.0;
    for (size_t i = 0; i < 12; ++i) {
        sum += s.step_ms[i];
        slowest = s.step_ms[i] > slowest ? s.step_ms[i] : slowest;
    }
    CHECK_NEAR(r.ms_mean, sum / 12.0, 1e-12 * sum);
    CHECK(r.ms_min > 0.0 && r.ms_min <= r.ms_mean && r.ms_mean <= slowest);
    CHECK(r.ms_min <= r.ms_median && r.ms_median <= slowest);
    quality_snapshot_free(&snap);
    samples_free(&s);
    options_free(&opt);
}

TEST(bench_stats_rank_test_exact) {
    stats_rank_test t;
    /* Complete separation: U = 3 x 3 = 9, and 1 split in 20 is as extreme. */
    double low3[] = { 1.0, 2.0, 3.0 }, high3[] = { 4.0, 5.0, 6.0 };
    REQUIRE(stats_mann_whitney(low3, 3, high3, 3, &t) == 0);
    CHECK(t.exact);
    CHECK_NEAR(t.u, 9.0, 0.0);
    CHECK_NEAR(t.p_greater, 1.0 / 20.0, 1e-12);
    CHECK_NEAR(t.p_less, 1.0, 1e-12);
    CHECK_NEAR(t.p_floor, 1.0 / 20.0, 1e-12);
    /* The other way round. */
    REQUIRE(stats_mann_whitney(high3, 3, low3, 3, &t) == 0);
    CHECK_NEAR(t.u, 0.0, 0.0);
    CHECK_NEAR(t.p_greater, 1.0, 1e-12);
    CHECK_NEAR(t.p_less, 1.0 / 20.0, 1e-12);

    /* 5 and 5: C(10, 5) = 252 splits. */
    double low5[] = { 5.0, 1.0, 4.0, 2.0, 3.0 };
    double high5[] = { 10.0, 6.0, 9.0, 7.0, 8.0 };
    REQUIRE(stats_mann_whitney(low5, 5, high5, 5, &t) == 0);
    CHECK_NEAR(t.u, 25.0, 0.0);
    CHECK_NEAR(t.p_greater, 1.0 / 252.0, 1e-12);

    /* Ties: first {1, 2, 2}, second {2, 3}. Pooled ranks 1, 3, 3, 3, 5
     * (the three 2s share ranks 2..4). Second's rank sum 3 + 5 = 8, so
     * U = 8 - 3 = 5 (pairs: 1 + 0.5 + 0.5 against the 2, 3 against the
     * 3). The 10 ways to pick 2 of the 5 ranks sum to 4 (3 ways), 6 (1 + 3)
     * and 8 (3 ways): P(sum >= 8) = 3/10, P(sum <= 8) = 1. */
    double tie_first[] = { 1.0, 2.0, 2.0 }, tie_second[] = { 2.0, 3.0 };
    REQUIRE(stats_mann_whitney(tie_first, 3, tie_second, 2, &t) == 0);
    CHECK_NEAR(t.u, 5.0, 0.0);
    CHECK_NEAR(t.p_greater, 0.3, 1e-12);
    CHECK_NEAR(t.p_less, 1.0, 1e-12);
    CHECK_NEAR(t.p_floor, 0.1, 1e-12);
    REQUIRE(stats_mann_whitney(tie_second, 2, tie_first, 3, &t) == 0);
    CHECK_NEAR(t.u, 1.0, 0.0);
    CHECK_NEAR(t.p_greater, 1.0, 1e-12);
    CHECK_NEAR(t.p_less, 0.3, 1e-12);

    /* Everything tied: no evidence either way. */
    double same[] = { 2.0, 2.0, 2.0 };
    REQUIRE(stats_mann_whitney(same, 3, same, 3, &t) == 0);
    CHECK_NEAR(t.p_greater, 1.0, 1e-12);
    CHECK_NEAR(t.p_less, 1.0, 1e-12);

    /* Bad input. */
    double with_nan[] = { 1.0, (double)NAN };
    CHECK(stats_mann_whitney(low3, 0, high3, 3, &t) == -1);
    CHECK(stats_mann_whitney(low3, 3, high3, 0, &t) == -1);
    CHECK(stats_mann_whitney(low3, 3, with_nan, 2, &t) == -1);
}

TEST(bench_stats_rank_test_normal) {
    /* 31 odd and 31 even numbers, 62 in all: past the exact limit. The
     * even 2k beats k odd numbers, so U = 1 + ... + 31 = 496; the mean is
     * 31 x 31 / 2 = 480.5, the variance 31 x 31 x 63 / 12 = 5045.25 (sd
     * 71.02992), z = (496 - 480.5 - 0.5) / sd = 0.2111786 and
     * p = 1 - Phi(z) = 0.4163740. (Listing all C(62, 31) splits would
     * give 0.4170.) */
    double odd[31], even[31];
    for (int k = 0; k < 31; k++) {
        odd[k] = 2.0 * k + 1.0;
        even[k] = 2.0 * k + 2.0;
    }
    stats_rank_test t;
    REQUIRE(stats_mann_whitney(odd, 31, even, 31, &t) == 0);
    CHECK(!t.exact);
    CHECK_NEAR(t.u, 496.0, 0.0);
    CHECK_NEAR(t.p_greater, 0.4163740, 1e-6);
    CHECK(t.p_floor < 1e-15);

    /* Across the limit the two methods agree closely: 30 and 30 (exact)
     * against 31 and 31 (normal) on the same shape. */
    stats_rank_test exact;
    REQUIRE(stats_mann_whitney(odd, 30, even, 30, &exact) == 0);
    CHECK(exact.exact);
    CHECK_NEAR(exact.p_greater, t.p_greater, 0.02);
}

/* Seven samples around 1 ms, ties included, as a quiet machine gives. */
static const double steady[] = { 1.00, 1.01, 0.99, 1.02, 0.98, 1.00, 1.01 };

TEST(bench_stats_gate_decision) {
    stats_gate gate = stats_gate_default();
    CHECK_NEAR(gate.threshold, 0.10, 0.0);
    CHECK_NEAR(gate.alpha, 0.05, 0.0);
    size_t n = COUNT_OF(steady);
    stats_comparison c;

    /* 30% slower in every sample: every current sample beats every
     * baseline one, p = 1 / C(14, 7) = 1/3432. */
    double slower[COUNT_OF(steady)], faster[COUNT_OF(steady)];
    for (size_t i = 0; i < n; i++) {
        slower[i] = steady[i] * 1.3;
        faster[i] = steady[i] * 0.7;
    }
    REQUIRE(stats_compare(steady, n, slower, n, &gate, &c) == 0);
    CHECK_NEAR(c.base_median, 1.00, 1e-12);
    CHECK_NEAR(c.now_median, 1.30, 1e-12);
    CHECK_NEAR(c.ratio, 1.30, 1e-12);
    CHECK_NEAR(c.test.p_greater, 1.0 / 3432.0, 1e-12);
    CHECK_EQ_INT(c.verdict, STATS_REGRESSION);
    CHECK(stats_verdict_fails(c.verdict));

    /* Noise: median 1.01, within 10%. */
    double noise[] = { 1.05, 0.97, 1.12, 0.99, 1.01, 1.03, 0.98 };
    REQUIRE(stats_compare(steady, n, noise, n, &gate, &c) == 0);
    CHECK_NEAR(c.ratio, 1.01, 1e-12);
    CHECK_EQ_INT(c.verdict, STATS_SAME);
    CHECK(!stats_verdict_fails(c.verdict));

    /* A noisy pair whose medians differ by 15% but whose samples overlap:
     * the exact p is 0.218, so the shift is not believed. */
    double wide_base[] = { 0.8, 0.9, 1.0, 1.0, 1.1, 1.3, 1.4 };
    double wide_now[] = { 0.85, 0.95, 1.12, 1.15, 1.2, 1.35, 1.45 };
    REQUIRE(stats_compare(wide_base, 7, wide_now, 7, &gate, &c) == 0);
    CHECK_NEAR(c.ratio, 1.15, 1e-12);
    CHECK_NEAR(c.test.p_greater, 0.2176573, 1e-6);
    CHECK_EQ_INT(c.verdict, STATS_NOISE);
    CHECK(!stats_verdict_fails(c.verdict));

    /* An improvement passes, and says so. */
    REQUIRE(stats_compare(steady, n, faster, n, &gate, &c) == 0);
    CHECK_NEAR(c.ratio, 0.70, 1e-12);
    CHECK_EQ_INT(c.verdict, STATS_FASTER);
    CHECK(!stats_verdict_fails(c.verdict));

    /* A significant 5% slowdown is under the threshold. */
    double a_little[COUNT_OF(steady)];
    for (size_t i = 0; i < n; i++)
        a_little[i] = steady[i] * 1.05;
    REQUIRE(stats_compare(steady, n, a_little, n, &gate, &c) == 0);
    CHECK(c.test.p_greater < gate.alpha);
    CHECK_EQ_INT(c.verdict, STATS_SAME);

    /* One sample each cannot be tested: the ratio alone decides. */
    double one[] = { 1.0 }, double_time[] = { 2.0 }, close[] = { 1.05 };
    REQUIRE(stats_compare(one, 1, double_time, 1, &gate, &c) == 0);
    CHECK_EQ_INT(c.verdict, STATS_UNTESTED);
    CHECK(stats_verdict_fails(c.verdict));
    REQUIRE(stats_compare(one, 1, close, 1, &gate, &c) == 0);
    CHECK_EQ_INT(c.verdict, STATS_SAME);

    /* A stricter threshold turns the 5% into a regression. */
    stats_gate strict = { 0.02, 0.05 };
    REQUIRE(stats_compare(steady, n, a_little, n, &strict, &c) == 0);
    CHECK_EQ_INT(c.verdict, STATS_REGRESSION);

    /* Bad input. */
    double zero[] = { 0.0, 0.0 };
    CHECK(stats_compare(zero, 2, steady, n, &gate, &c) == -1);
    CHECK(stats_compare(steady, 0, steady, n, &gate, &c) == -1);
}

/* Two entries of the bench's shape (one with repeat_ms, one with only its
 * median), a Google Benchmark aggregate row, and fields the reader must
 * skip: a nested array and object, escapes, null. */
static const char sample_json[] =
    "{\n"
    "  \"context\": {\n"
    "    \"date\": \"2026-01-01T00:00:00+00:00\",\n"
    "    \"cpu_model\": \"AMD EPYC\",\n"
    "    \"load_avg\": [0.30, 0.68, 1.02],\n"
    "    \"compiler\": \"gcc 12.2.0\",\n"
    "    \"simd\": \"avx2\",\n"
    "    \"simd_best\": \"avx512\",\n"
    "    \"nested\": {\"a\": [true, false, null, {\"b\": -1.5e-3}]}\n"
    "  },\n"
    "  \"benchmarks\": [\n"
    "    {\n"
    "      \"name\": \"flock2d/10000/threads:1\",\n"
    "      \"run_type\": \"iteration\",\n"
    "      \"scenario\": \"flock2d\",\n"
    "      \"agents\": 10000, \"threads\": 1, \"steps\": 200, \"warmup\": 20,\n"
    "      \"ms_per_step_median\": 0.30,\n"
    "      \"ms_per_step_min\": 0.28,\n"
    "      \"repeat_ms\": [0.31, 0.30, 0.29],\n"
    "      \"note\": \"quote \\\" slash \\/ tab \\t \\u00e9 \\ud83d\\ude00\"\n"
    "    },\n"
    "    {\n"
    "      \"name\": \"crossing2d/10000/threads:2\",\n"
    "      \"agents\": 10000, \"threads\": 2, \"steps\": 100, \"warmup\": 10,\n"
    "      \"ms_per_step_median\": 2.5,\n"
    "      \"ms_per_step_min\": null\n"
    "    },\n"
    "    {\n"
    "      \"name\": \"flock2d/10000/threads:1_median\",\n"
    "      \"run_type\": \"aggregate\",\n"
    "      \"ms_per_step_median\": 0.30\n"
    "    }\n"
    "  ]\n"
    "}\n";

TEST(bench_stats_json_read) {
    results_file file;
    char error[256];
    int status = results_parse(sample_json, strlen(sample_json), &file, error,
                               sizeof error);
    if (status != 0)
        runner_fail(__FILE__, __LINE__, "parse failed: %s", error);
    REQUIRE(status == 0);
    CHECK(strcmp(file.cpu_model, "AMD EPYC") == 0);
    CHECK(strcmp(file.simd, "avx2") == 0);
    CHECK(strcmp(file.simd_best, "avx512") == 0);
    CHECK(strcmp(file.compiler, "gcc 12.2.0") == 0);
    REQUIRE(file.count == 2); /* the aggregate row is skipped */

    const results_entry *flock = results_find(&file, "flock2d/10000/threads:1");
    REQUIRE(flock != NULL);
    CHECK(strcmp(flock->scenario, "flock2d") == 0);
    CHECK_EQ_INT(flock->agents, 10000);
    CHECK_EQ_INT(flock->threads, 1);
    CHECK_EQ_INT(flock->steps, 200);
    CHECK_EQ_INT(flock->warmup, 20);
    CHECK_NEAR(flock->min_ms, 0.28, 0.0);
    REQUIRE(flock->sample_count == 3); /* repeat_ms, not the median */
    CHECK_NEAR(flock->samples[0], 0.31, 0.0);
    CHECK_NEAR(flock->samples[2], 0.29, 0.0);

    /* No repeat_ms: the median is the one sample; the scenario comes from
     * the name; a null minimum is unknown. */
    const results_entry *cross =
        results_find(&file, "crossing2d/10000/threads:2");
    REQUIRE(cross != NULL);
    CHECK(strcmp(cross->scenario, "crossing2d") == 0);
    REQUIRE(cross->sample_count == 1);
    CHECK_NEAR(cross->samples[0], 2.5, 0.0);
    CHECK(isnan(cross->min_ms));
    CHECK(results_find(&file, "nothing") == NULL);

    /* Merging a second run appends its samples by name. */
    results_file again;
    REQUIRE(results_parse(sample_json, strlen(sample_json), &again, error,
                          sizeof error) == 0);
    REQUIRE(results_merge(&file, &again, error, sizeof error) == 0);
    CHECK_EQ_INT(file.count, 2);
    flock = results_find(&file, "flock2d/10000/threads:1");
    REQUIRE(flock != NULL && flock->sample_count == 6);
    CHECK_NEAR(flock->samples[3], 0.31, 0.0);

    /* Written out and read back: the same entries and samples. */
    FILE *scratch = tmpfile();
    REQUIRE(scratch != NULL);
    REQUIRE(results_write(scratch, &file) == 0);
    long size = ftell(scratch);
    rewind(scratch);
    char *text = calloc((size_t)size + 1, 1);
    REQUIRE(text != NULL);
    CHECK_EQ_INT(fread(text, 1, (size_t)size, scratch), size);
    fclose(scratch);
    results_file back;
    status = results_parse(text, (size_t)size, &back, error, sizeof error);
    if (status != 0)
        runner_fail(__FILE__, __LINE__, "reread failed: %s", error);
    if (status == 0) {
        CHECK_EQ_INT(back.count, 2);
        const results_entry *b = results_find(&back, flock->name);
        REQUIRE(b != NULL && b->sample_count == 6);
        for (size_t i = 0; i < 6; i++)
            CHECK_NEAR(b->samples[i], flock->samples[i], 0.0);
        CHECK_EQ_INT(b->steps, 200);
        CHECK(strcmp(back.simd, "avx2") == 0);
        CHECK(strcmp(back.simd_best, "avx512") == 0);
    }
    results_free(&back);
    free(text);
    results_free(&again);
    results_free(&file);
}

/* Each of these must be refused, with a reason. */
TEST(bench_stats_json_bad_input) {
    static const char *const bad[] = {
        "",
        "{",
        "{\"benchmarks\": [}",
        "{\"benchmarks\": [{\"name\": \"a\", \"ms_per_step_median\": 1.0,}]}",
        "{\"benchmarks\": [{\"name\": \"a\", \"ms_per_step_median\": 01}]}",
        "{\"benchmarks\": [{\"name\": \"a\", \"ms_per_step_median\": .5}]}",
        "{\"benchmarks\": [{\"name\": \"a\", \"ms_per_step_median\": 1e999}]}",
        "{\"benchmarks\": [{\"name\": \"a\\q\", \"ms_per_step_median\": 1}]}",
        /* NOLINTNEXTLINE(bugprone-suspicious-missing-comma) */
        "{\"benchmarks\": [{\"name\": \"\\ud800\", \"ms_per_step_median\": "
        "1}]}",
        "{\"benchmarks\": [{\"name\": \"a\", \"ms_per_step_median\": 1}]} x",
        "[1, 2]",
        "{\"context\": {}}",
        "{\"benchmarks\": [{\"ms_per_step_median\": 1.0}]}",
        "{\"benchmarks\": [{\"name\": \"a\"}]}",
        "{\"benchmarks\": [{\"name\": \"a\", \"repeat_ms\": []}]}",
        "{\"benchmarks\": [{\"name\": \"a\", \"repeat_ms\": [1, \"2\"]}]}",
        "{\"benchmarks\": [{\"name\": \"a\", \"repeat_ms\": [1, -2]}]}",
        /* One document split over two lines, not a missing comma. */
        /* NOLINTNEXTLINE(bugprone-suspicious-missing-comma) */
        "{\"benchmarks\": [{\"name\": \"a\", \"agents\": 1.5, "
        "\"ms_per_step_median\": 1}]}",
        /* The same name twice with different configurations. */
        "{\"benchmarks\": [{\"name\": \"a\", \"steps\": 1, "
        "\"ms_per_step_median\": 1}, {\"name\": \"a\", \"steps\": 2, "
        "\"ms_per_step_median\": 1}]}",
    };
    for (size_t i = 0; i < COUNT_OF(bad); i++) {
        results_file file;
        char error[256] = "";
        int status =
            results_parse(bad[i], strlen(bad[i]), &file, error, sizeof error);
        if (status != -1 || error[0] == '\0')
            runner_fail(__FILE__, __LINE__, "case %zu accepted (status %d): %s",
                        i, status, bad[i]);
        results_free(&file);
    }

    /* Errors name their line. */
    static const char late[] = "{\n\"benchmarks\":\n[\n}";
    results_file file;
    char error[256] = "";
    CHECK(results_parse(late, strlen(late), &file, error, sizeof error) == -1);
    CHECK(strncmp(error, "line 4:", 7) == 0);
    results_free(&file);

    /* Deep nesting is refused, not recursed into. */
    char deep[4096];
    size_t n = 0;
    n += (size_t)snprintf(deep, sizeof deep, "{\"benchmarks\": [], \"x\": ");
    for (int d = 0; d < 1000; d++)
        deep[n++] = '[';
    deep[n] = '\0';
    CHECK(results_parse(deep, n, &file, error, sizeof error) == -1);
    CHECK(strstr(error, "deeply") != NULL);
    results_free(&file);

    /* Escapes decode to UTF-8. */
    static const char escaped[] =
        "{\"benchmarks\": [{\"name\": \"\\u00e9\\ud83d\\ude00\\/\", "
        "\"ms_per_step_median\": 1}]}";
    REQUIRE(results_parse(escaped, strlen(escaped), &file, error,
                          sizeof error) == 0);
    REQUIRE(file.count == 1);
    CHECK(strcmp(file.entries[0].name, "\xc3\xa9\xf0\x9f\x98\x80/") == 0);
    results_free(&file);
}

void register_bench_stats_tests(void) {
    REGISTER(bench_stats_median);
    REGISTER(bench_stats_run_mean);
    REGISTER(bench_stats_rank_test_exact);
    REGISTER(bench_stats_rank_test_normal);
    REGISTER(bench_stats_gate_decision);
    REGISTER(bench_stats_json_read);
    REGISTER(bench_stats_json_bad_input);
}
