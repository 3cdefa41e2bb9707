/* SPDX-License-Identifier: MIT */
/*
 * The bench's verdicts on its results: each scene's pass ranges
 * (quality_judge, bench/quality.c), that the flocks meet theirs in a real
 * run while seed 000's flock does not, and the ratio to flock2d
 * (result_ratios, bench/run.c).
 */
#include <math.h>
#include <string.h>

#include "runner.h"
#include "../bench/quality.h"
#include "../bench/run.h"
#include "../bench/scenarios.h"

/* A quality record of `sc`'s kind with every figure inside flock2d's
 * ranges and the limits. */
static quality good_quality(const scenario *sc) {
    quality q;
    memset(&q, 0, sizeof q);
    q.kind = quality_kind(sc);
    q.max_speed_ratio = 1.0;
    q.max_force_ratio = 1.0;
    q.mean_speed = 0.7;
    q.polarisation = 0.9;
    q.nearest_mean = 0.2;
    q.overlap_share = 0.0;
    q.min_separation = 0.7;
    q.at_target_share = 0.5;
    return q;
}

TEST(bench_judge_flock_ranges) {
    const scenario *sc = scenario_find("flock2d");
    REQUIRE(sc != NULL);
    char flag[48];
    quality q = good_quality(sc);
    CHECK_EQ_INT(quality_judge(&q, sc, 1000, flag, sizeof flag), 0);
    CHECK(strcmp(flag, "ok") == 0);

    /* Polarisation is judged from step 1000 only. */
    q.polarisation = 0.3;
    CHECK_EQ_INT(quality_judge(&q, sc, 220, flag, sizeof flag), 0);
    CHECK(strcmp(flag, "ok") == 0);
    CHECK_EQ_INT(quality_judge(&q, sc, 1000, flag, sizeof flag), 1);
    CHECK(strcmp(flag, "OUT: pol") == 0);

    /* Speed from step 100; both out list both. */
    q.mean_speed = 0.4;
    CHECK_EQ_INT(quality_judge(&q, sc, 99, flag, sizeof flag), 0);
    CHECK_EQ_INT(quality_judge(&q, sc, 220, flag, sizeof flag), 1);
    CHECK(strcmp(flag, "OUT: speed") == 0);
    CHECK_EQ_INT(quality_judge(&q, sc, 1000, flag, sizeof flag), 2);
    CHECK(strcmp(flag, "OUT: speed,pol") == 0);

    /* A figure that was not measured fails its range. */
    q = good_quality(sc);
    q.polarisation = (double)NAN;
    CHECK_EQ_INT(quality_judge(&q, sc, 1000, flag, sizeof flag), 1);
}

TEST(bench_judge_limits) {
    /* every2d has no ranges of its own: only the limits hold. */
    const scenario *sc = scenario_find("every2d");
    REQUIRE(sc != NULL);
    CHECK_EQ_INT((int)sc->range_count, 0);
    char flag[48];
    quality q = good_quality(sc);
    q.max_speed_ratio = 1.0000006;   /* float rounding, as seen */
    q.max_force_ratio = (double)NAN; /* no snapshot: not judged */
    CHECK_EQ_INT(quality_judge(&q, sc, 5, flag, sizeof flag), 0);
    CHECK(strcmp(flag, "ok") == 0);
    q.max_speed_ratio = 1.001;
    q.max_force_ratio = 1.01;
    q.nan_count = 3;
    CHECK_EQ_INT(quality_judge(&q, sc, 5, flag, sizeof flag), 3);
    CHECK(strcmp(flag, "OUT: nan,v/vmax,F/Fmax") == 0);
    q.max_speed_ratio = (double)NAN;
    q.max_force_ratio = 1.0;
    q.nan_count = 0;
    CHECK_EQ_INT(quality_judge(&q, sc, 5, flag, sizeof flag), 1);
    /* A short flag buffer is cut, never overrun. */
    char tiny[4];
    q.nan_count = 1;
    CHECK_EQ_INT(quality_judge(&q, sc, 5, tiny, sizeof tiny), 2);
    CHECK(strlen(tiny) == 3);
}

/* Every scene's ranges name figures its quality kind measures, and are
 * ranges. */
TEST(bench_ranges_well_formed) {
    size_t with_ranges = 0;
    for (size_t i = 0; i < scenario_count(); ++i) {
        const scenario *sc = scenario_at(i);
        quality q = good_quality(sc);
        with_ranges += sc->range_count > 0 ? 1u : 0u;
        for (size_t k = 0; k < sc->range_count; ++k) {
            const scenario_range *g = &sc->ranges[k];
            if (!(g->min <= g->max) ||
                !isfinite(quality_figure(&q, g->figure)) || g->why == NULL)
                runner_fail(__FILE__, __LINE__,
                            "%s: range %zu (%s) is "
                            "not a range of a figure it measures",
                            sc->name, k, quality_figure_name(g->figure));
        }
    }
    CHECK(with_ranges >= 2);
}

/* Every scene of the table builds from its own parameters and steps:
 * a parameter that a shared builder reads (orca_crowd_group() serves
 * crossing2d, blocks2d and every pedestrian scene) must be named by each
 * scene it serves. */
TEST(bench_every_scene_builds) {
    for (size_t i = 0; i < scenario_count(); ++i) {
        const scenario *sc = scenario_at(i);
        throng_world *world = NULL;
        const throng_status st = sc->build(200, 1, 1, &world);
        if (st != THRONG_OK || world == NULL) {
            runner_fail(__FILE__, __LINE__, "%s: no world (%s)", sc->name,
                        throng_status_string(st));
            continue;
        }
        for (int s = 0; s < 2; ++s)
            CHECK_OK(throng_world_step(world, sc->dt));
        throng_world_destroy(world);
    }
}

/* Runs `name` from the bench's seed for `steps` steps and judges it. */
static unsigned judge_run(const char *name, uint32_t agents, uint32_t steps,
                          quality *q, char *flag, size_t size) {
    const scenario *sc = scenario_find(name);
    throng_world *world = NULL;
    if (sc == NULL || sc->build(agents, 1, 1, &world) != THRONG_OK) {
        runner_fail(__FILE__, __LINE__, "%s: no world", name);
        return 99;
    }
    for (uint32_t s = 0; s < steps; ++s)
        if (throng_world_step(world, sc->dt) != THRONG_OK)
            runner_fail(__FILE__, __LINE__, "%s: step %u", name, s);
    throng_status st = quality_measure(world, sc, agents, NULL, q);
    throng_world_destroy(world);
    CHECK_EQ_INT(st, THRONG_OK);
    return quality_judge(q, sc, steps, flag, size);
}

/* In a short run (runner_short(): under the sanitizers, the CI's
 * checking build, where this was the slowest test: 150 s of CPU, or
 * THRONG_TEST_SHORT=1) the flocks are judged at 1,000
 * agents instead of 3,000: the same steps, ranges and verdicts (the
 * flocks line up, seed 000 does not, at either size), each step a third
 * of the work. The plain builds judge them at 3,000. */
#define FLOCKS_AGENTS (runner_short() ? 1000u : 3000u)

/* The flocks do what they claim: from random headings they keep half
 * their max speed and line up within 1,000 steps; seed 000's recipe,
 * judged by the same ranges, does neither. */
TEST(bench_flocks_flock) {
    char flag[48];
    quality q;
    const char *flocks[] = { "flock2d", "flock3d" };
    for (int k = 0; k < 2; ++k) {
        unsigned out =
            judge_run(flocks[k], FLOCKS_AGENTS, 1000, &q, flag, sizeof flag);
        if (out != 0 || !(q.mean_speed >= 0.5) || !(q.polarisation >= 0.5))
            runner_fail(__FILE__, __LINE__, "%s: %s, speed %.3f, pol %.3f",
                        flocks[k], flag, q.mean_speed, q.polarisation);
    }
    const scenario *flock = scenario_find("flock2d");
    const scenario *seed000 = scenario_find("flock2d_seed000");
    REQUIRE(flock != NULL && seed000 != NULL);
    (void)judge_run("flock2d_seed000", FLOCKS_AGENTS, 1000, &q, flag,
                    sizeof flag);
    CHECK(q.mean_speed < 0.5 && q.polarisation < 0.5);
    CHECK_EQ_INT(quality_judge(&q, flock, 1000, flag, sizeof flag), 2);
    CHECK(strcmp(flag, "OUT: speed,pol") == 0);
}

TEST(bench_flock2d_ratio) {
    const scenario *flock = scenario_find(RATIO_SCENARIO);
    const scenario *crossing = scenario_find("crossing2d_steer");
    REQUIRE(flock != NULL && crossing != NULL);
    result r[5];
    memset(r, 0, sizeof r);
    /* crossing first: the ratio does not depend on the order. */
    r[0] = (result){
        .sc = crossing, .agents = 1000, .threads = 1, .ms_median = 3.0
    };
    r[1] = (result){
        .sc = crossing, .agents = 1000, .threads = 2, .ms_median = 2.0
    };
    r[2] =
        (result){ .sc = flock, .agents = 1000, .threads = 1, .ms_median = 2.0 };
    r[3] = (result){
        .sc = crossing, .agents = 2000, .threads = 1, .ms_median = 5.0
    };
    r[4] =
        (result){ .sc = flock, .agents = 2000, .threads = 1, .ms_median = 4.0 };
    result_ratios(r, 5);
    CHECK(r[0].flock2d_ratio == 1.5);
    CHECK(isnan(r[1].flock2d_ratio)); /* no flock2d on 2 threads */
    CHECK(r[2].flock2d_ratio == 1.0);
    CHECK(r[3].flock2d_ratio == 1.25);
    CHECK(r[4].flock2d_ratio == 1.0);
    /* Only the results given count: before flock2d ran, no ratio. */
    result_ratios(r, 2);
    CHECK(isnan(r[0].flock2d_ratio));
}

void register_bench_verdict_tests(void) {
    REGISTER(bench_judge_flock_ranges);
    REGISTER(bench_judge_limits);
    REGISTER(bench_ranges_well_formed);
    REGISTER(bench_every_scene_builds);
    REGISTER(bench_flocks_flock);
    REGISTER(bench_flock2d_ratio);
}
