/* SPDX-License-Identifier: MIT */
/*
 * The collision-free bench scenes (circle2d, orca_dense2d, crossing2d,
 * blocks2d) and their motion figures: the scenes build and step with their host-side goal
 * updates, give the same state on one and two threads, the grid's overlap
 * count equals a count over every pair, and the tracker's arrivals,
 * all-arrived step and stalls are what a plain loop over the agents says.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"
#include "../bench/options.h"
#include "../bench/quality.h"
#include "../bench/scenarios.h"

/* Every pair, the obvious way, with the grid's definitions. */
static overlap_count brute_overlaps(uint32_t n, const float *x, const float *y,
                                    const float *radius) {
    overlap_count c = { 0, 0, 0.0, (double)INFINITY };
    double r_max = 0.0;
    for (uint32_t i = 0; i < n; ++i)
        r_max = fmax(r_max, (double)radius[i]);
    for (uint32_t i = 0; i < n; ++i) {
        for (uint32_t j = i + 1; j < n; ++j) {
            double ex = (double)x[i] - (double)x[j];
            double ey = (double)y[i] - (double)y[j];
            double d = sqrt(ex * ex + ey * ey);
            double sum = (double)radius[i] + (double)radius[j];
            if (d < 2.0 * r_max)
                c.closest = fmin(c.closest, d);
            if (d < sum) {
                ++c.pairs;
                c.deepest = fmax(c.deepest, (sum - d) / sum);
                if (sum - d > QUALITY_DEEP_OVERLAP * 0.5 * sum)
                    ++c.deep;
            }
        }
    }
    return c;
}

static void check_counts(const overlap_count *got, const overlap_count *want,
                         const char *what) {
    if (got->pairs != want->pairs || got->deep != want->deep ||
        got->deepest != want->deepest || got->closest != want->closest)
        runner_fail(
            __FILE__, __LINE__,
            "%s: grid %llu pairs, %llu deep, %.9g, %.9g; brute force "
            "%llu, %llu, %.9g, %.9g",
            what, (unsigned long long)got->pairs, (unsigned long long)got->deep,
            got->deepest, got->closest, (unsigned long long)want->pairs,
            (unsigned long long)want->deep, want->deepest, want->closest);
}

/* Random bodies of mixed radii on both sides of the origin (floor of a
 * negative coordinate), few buckets per body at small n (many cells
 * share one), and pairs planted exactly touching and just inside. */
TEST(bench_overlap_grid_matches_brute_force) {
    enum {
        MAX_BODIES = 600
    };
    static float x[MAX_BODIES], y[MAX_BODIES], radius[MAX_BODIES];
    const uint32_t sizes[] = { 0, 1, 2, 7, 60, 600 };
    overlap_grid grid;
    memset(&grid, 0, sizeof grid);
    uint64_t state = 42;
    uint64_t pairs_seen = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        uint32_t n = sizes[s];
        double edge = 2.0 * sqrt((double)n + 1.0);
        for (uint32_t i = 0; i < n; ++i) {
            x[i] = (float)((ts_unit(&state) - 0.5) * edge);
            y[i] = (float)((ts_unit(&state) - 0.5) * edge);
            radius[i] = (float)(0.2 + 0.8 * ts_unit(&state));
        }
        if (n >= 7) {
            /* Touching exactly (not an overlap), and 0.5% in. */
            x[1] = x[0] + radius[0] + radius[1];
            y[1] = y[0];
            x[3] = x[2];
            y[3] = y[2] - 0.995f * (radius[2] + radius[3]);
        }
        overlap_count got, want = brute_overlaps(n, x, y, radius);
        REQUIRE(overlap_grid_count(&grid, n, x, y, NULL, radius, &got));
        check_counts(&got, &want, "random bodies");
        pairs_seen += want.pairs;
    }
    /* The cases met: overlaps, deep and shallow. */
    CHECK(pairs_seen > 100);
    overlap_grid_free(&grid);
}

/* Steps `sc`'s world as the bench does: goals redrawn before each step,
 * the tracker after it, and beside it the obvious per-step counts. */
typedef struct motion_run {
    uint64_t hash;
    uint64_t arrivals_total;
    quality figures;
    uint64_t brute_pairs;
    int64_t brute_all_arrived;
    uint32_t brute_stall;
} motion_run;

static motion_run run_scene(const char *name, uint32_t agents, int threads,
                            uint32_t steps, int still_key) {
    motion_run out;
    memset(&out, 0, sizeof out);
    out.brute_all_arrived = -1;
    const scenario *sc = scenario_find(name);
    throng_world *world = NULL;
    if (sc == NULL || sc->build(agents, threads, 7u, &world) != THRONG_OK) {
        runner_fail(__FILE__, __LINE__, "%s did not build", name);
        return out;
    }
    /* Agent `still_key` cannot move in steps 1-60 and 101-130: two
     * stalls, the first the longer. */
    throng_agent frozen = THRONG_NULL_AGENT;
    if (still_key > 0)
        CHECK_OK(throng_agent_find(world, (uint64_t)still_key, &frozen));
    uint32_t *arrivals = calloc(agents, sizeof *arrivals);
    quality_motion motion;
    memset(&motion, 0, sizeof motion);
    float *radius = malloc(agents * sizeof *radius);
    uint32_t *still = calloc(agents, sizeof *still);
    const scenario_param *body = scenario_param_find(sc, "body_radius");
    if (arrivals == NULL || radius == NULL || still == NULL || body == NULL) {
        runner_fail(__FILE__, __LINE__, "%s: no memory or no radius", name);
        free(arrivals);
        free(radius);
        free(still);
        throng_world_destroy(world);
        return out;
    }
    CHECK_OK(quality_motion_start(&motion, world, agents));
    for (uint32_t step = 1; step <= steps; ++step) {
        bool frozen_now =
            still_key > 0 && (step <= 60 || (step > 100 && step <= 130));
        if (still_key > 0)
            CHECK_OK(throng_agent_set_max_speed(world, frozen,
                                                frozen_now ? 0.0f : 2.0f));
        CHECK_OK(scenario_between_steps(sc, world, agents, 7u, arrivals));
        CHECK_OK(throng_world_step(world, sc->dt));
        CHECK_OK(quality_motion_observe(&motion, world, sc, 7u,
                                        sc->redraw_goals ? arrivals : NULL,
                                        step, true));
        throng_columns c;
        CHECK_OK(throng_world_columns(world, &c));
        uint32_t there = 0;
        for (uint32_t row = 0; row < c.count; ++row) {
            radius[row] = (float)body->value;
            float goal[3];
            uint64_t key = c.host_key[row];
            sc->goal(sc, agents, 7u, key,
                     sc->redraw_goals ? arrivals[key - 1] : 0, goal);
            double gx = (double)c.px[row] - (double)goal[0];
            double gy = (double)c.py[row] - (double)goal[1];
            bool at = sqrt(gx * gx + gy * gy) <= body->value;
            there += at ? 1u : 0u;
            /* Still: slower than 1% of max speed (2 m/s; 0 for the
             * agent made to stand). */
            double limit = (int)key == still_key && frozen_now ? 0.0 : 0.02;
            if (!at && hypot((double)c.vx[row], (double)c.vy[row]) <= limit) {
                if (++still[key - 1] > out.brute_stall)
                    out.brute_stall = still[key - 1];
            } else {
                still[key - 1] = 0;
            }
        }
        if (there == c.count && out.brute_all_arrived < 0)
            out.brute_all_arrived = step;
        out.brute_pairs += brute_overlaps(c.count, c.px, c.py, radius).pairs;
    }
    for (uint32_t k = 0; k < agents; ++k)
        out.arrivals_total += arrivals[k];
    out.hash = throng_world_hash(world);
    quality_motion_report(&motion, &out.figures);
    quality_motion_free(&motion);
    free(arrivals);
    free(radius);
    free(still);
    throng_world_destroy(world);
    return out;
}

/* circle2d at 50 agents (radius 40 m) crosses within 600 steps (385):
 * every agent arrives once, the all-arrived step is the plain loop's, the
 * summed overlaps are every pair's, and one and two threads agree. (At
 * 24 agents and fewer ORCA's ring stops dead: see the README.) */
TEST(bench_circle2d_runs) {
    const scenario *sc = scenario_find("circle2d");
    REQUIRE(sc != NULL);
    CHECK(sc->dt == 0.25f);
    motion_run one = run_scene("circle2d", 50, 1, 600, 0);
    motion_run two = run_scene("circle2d", 50, 2, 600, 0);
    CHECK_EQ_U64(one.hash, two.hash);
    CHECK_EQ_U64(one.figures.arrivals, 50);
    CHECK(one.figures.all_arrived_step > 0);
    CHECK(one.figures.all_arrived_step == one.brute_all_arrived);
    CHECK_EQ_U64(one.figures.overlap_sum, one.brute_pairs);
    CHECK_EQ_U64(one.figures.motion_steps, 600);
    CHECK(one.figures.overlap_sum > 0);
    /* ORCA keeps them apart. */
    CHECK(one.figures.deep_overlap_sum == 0);
    CHECK(one.figures.longest_stall < 20);
    CHECK_EQ_INT((int)one.figures.longest_stall, (int)one.brute_stall);
    CHECK(one.figures.closest_approach < 3.5);
}

/* circle2d moves one tick a step with keep_right 0.45 and a nudge of
 * 0.05 of max speed: at 150 agents the library's default nudge (1e-4)
 * leaves pairs circling each other near their goals, so the ring never
 * has every agent home at once; the scene's breaks them, and every agent
 * is home by step 1,152, none deeper than 1% of the radius, the same on
 * two threads. */
TEST(bench_circle2d_one_tick_nudge) {
    const scenario *sc = scenario_find("circle2d");
    REQUIRE(sc != NULL);
    CHECK(scenario_param_find(sc, "ticks")->value == 1.0);
    CHECK(scenario_param_find(sc, "keep_right")->value == 0.45);
    CHECK(scenario_param_find(sc, "nudge")->value == 0.05);
    REQUIRE(scenario_set_param("nudge", 1e-4));
    motion_run circling = run_scene("circle2d", 150, 1, 1500, 0);
    scenario_clear_set();
    CHECK(circling.figures.all_arrived_step < 0);
    CHECK(circling.brute_all_arrived < 0);
    motion_run one = run_scene("circle2d", 150, 1, 1300, 0);
    motion_run two = run_scene("circle2d", 150, 2, 1300, 0);
    CHECK_EQ_U64(one.hash, two.hash);
    CHECK_EQ_INT((int)one.figures.all_arrived_step, 1152);
    CHECK(one.brute_all_arrived == 1152);
    CHECK(one.figures.deep_overlap_sum == 0);
    CHECK(one.figures.longest_stall < 20);
}

/* An agent held still for 60 steps, let go, then held for 30 stalls 60
 * steps at most; the others pass. */
TEST(bench_motion_tracker_stall) {
    motion_run r = run_scene("circle2d", 50, 1, 160, 5);
    CHECK_EQ_INT((int)r.figures.longest_stall, 60);
    CHECK_EQ_INT((int)r.brute_stall, 60);
    CHECK(r.figures.all_arrived_step < 0);
}

/* orca_dense2d at 36 agents (a 30 m square): goals are redrawn on
 * arrival, so over 400 steps agents reach more goals than there are
 * agents; the host's updates keep the state the same on two threads. */
TEST(bench_orca_dense2d_runs) {
    motion_run one = run_scene("orca_dense2d", 36, 1, 400, 0);
    motion_run two = run_scene("orca_dense2d", 36, 2, 400, 0);
    CHECK_EQ_U64(one.hash, two.hash);
    CHECK(one.arrivals_total > 36);
    /* Each redraw follows an arrival the tracker sees, but the redraws
     * also judge the start and the tracker also the last state: at most
     * one arrival per agent apart each way. */
    if (!(one.figures.arrivals + 36 >= one.arrivals_total &&
          one.figures.arrivals <= one.arrivals_total + 36))
        runner_fail(__FILE__, __LINE__, "tracker %llu arrivals, redraws %llu",
                    (unsigned long long)one.figures.arrivals,
                    (unsigned long long)one.arrivals_total);
    CHECK_EQ_U64(one.figures.overlap_sum, one.brute_pairs);
    CHECK_EQ_INT((int)one.figures.longest_stall, (int)one.brute_stall);
    CHECK(one.brute_all_arrived < 0);
}

/* Goals are a pure function of (seed, agent, arrivals): the same inputs
 * give the same point, inside the square, and the next arrival another. */
TEST(bench_dense_goals_pure) {
    const scenario *sc = scenario_find("orca_dense2d");
    REQUIRE(sc != NULL && sc->goal != NULL && sc->redraw_goals);
    float a[3], b[3], c[3];
    sc->goal(sc, 100, 3u, 17, 4, a);
    sc->goal(sc, 100, 3u, 17, 4, b);
    sc->goal(sc, 100, 3u, 17, 5, c);
    CHECK(memcmp(a, b, sizeof a) == 0);
    CHECK(a[0] != c[0] || a[1] != c[1]);
    for (int axis = 0; axis < 2; ++axis)
        CHECK(a[axis] >= 0.0f && a[axis] < 50.0f);
}

/* Distance from p to the box [lo, hi] in the plane; 0 inside. */
static double box_distance(const float p[3], const float lo[3],
                           const float hi[3]) {
    double dx = fmax(fmax((double)lo[0] - (double)p[0], 0.0),
                     (double)p[0] - (double)hi[0]);
    double dy = fmax(fmax((double)lo[1] - (double)p[1], 0.0),
                     (double)p[1] - (double)hi[1]);
    return sqrt(dx * dx + dy * dy);
}

/* blocks2d at its reference size, 400 agents: four 60 m blocks (the
 * published 30 m ones scaled by 10 / 5) centred on (+-50, +-50), four
 * ORCA groups of 100 with contact resolution, every agent clear of every
 * block and of every other body, its goal the mirror of its start, and
 * its straight path through a block or not (some must be, or the scene
 * tests nothing). */
TEST(bench_blocks2d_layout) {
    const scenario *sc = scenario_find("blocks2d");
    REQUIRE(sc != NULL && sc->goal != NULL && sc->deadline != NULL);
    CHECK(sc->dt == 0.25f);
    throng_world *w = NULL;
    REQUIRE_OK(sc->build(400, 1, 7u, &w));
    REQUIRE(throng_world_object_count(w) == 4);
    float lo[4][3], hi[4][3];
    double centre_sum[2] = { 0.0, 0.0 };
    for (uint32_t k = 0; k < 4; ++k) {
        throng_object o;
        throng_object_info in;
        REQUIRE_OK(throng_world_object_at(w, k, &o));
        REQUIRE_OK(throng_object_get(w, o, &in));
        REQUIRE(in.kind == THRONG_OBJECT_BOX);
        memcpy(lo[k], in.a, sizeof lo[k]);
        memcpy(hi[k], in.b, sizeof hi[k]);
        CHECK(hi[k][0] - lo[k][0] == 60.0f && hi[k][1] - lo[k][1] == 60.0f);
        double cx = 0.5 * ((double)lo[k][0] + (double)hi[k][0]);
        double cy = 0.5 * ((double)lo[k][1] + (double)hi[k][1]);
        CHECK(fabs(cx) == 50.0 && fabs(cy) == 50.0);
        centre_sum[0] += cx;
        centre_sum[1] += cy;
    }
    CHECK(centre_sum[0] == 0.0 && centre_sum[1] == 0.0);
    throng_columns c;
    REQUIRE_OK(throng_world_columns(w, &c));
    REQUIRE(c.count == 400);
    uint32_t per_group[8] = { 0 };
    uint32_t blocked = 0;
    for (uint32_t row = 0; row < c.count; ++row) {
        const float p[3] = { c.px[row], c.py[row], 0.0f };
        float goal[3];
        sc->goal(sc, 400, 7u, c.host_key[row], 0, goal);
        CHECK(goal[0] == -p[0] && goal[1] == -p[1]);
        bool crosses = false;
        for (uint32_t k = 0; k < 4; ++k) {
            CHECK(box_distance(p, lo[k], hi[k]) > 2.0);
            /* The straight path, sampled every metre or so. */
            for (int t = 0; t <= 400; ++t) {
                double f = t / 400.0;
                double gx = (double)goal[0] - (double)p[0];
                double gy = (double)goal[1] - (double)p[1];
                const float q[3] = { (float)((double)p[0] + f * gx),
                                     (float)((double)p[1] + f * gy), 0.0f };
                crosses = crosses || box_distance(q, lo[k], hi[k]) < 2.0;
            }
        }
        blocked += crosses ? 1u : 0u;
        for (uint32_t other = row + 1; other < c.count; ++other)
            CHECK(hypot((double)c.px[row] - (double)c.px[other],
                        (double)c.py[row] - (double)c.py[other]) >= 10.0);
        REQUIRE(c.group[row] < 8);
        ++per_group[c.group[row]];
    }
    CHECK(blocked > 100);
    uint32_t groups = 0;
    for (uint32_t g = 0; g < 8; ++g) {
        if (per_group[g] == 0)
            continue;
        ++groups;
        CHECK_EQ_INT((int)per_group[g], 100);
    }
    CHECK_EQ_INT((int)groups, 4);
    for (uint32_t row = 0; row < c.count; row += 101) {
        throng_agent a;
        throng_group g;
        throng_avoidance av;
        REQUIRE_OK(throng_agent_at(w, row, &a));
        REQUIRE_OK(throng_agent_get_group(w, a, &g));
        REQUIRE_OK(throng_group_get_avoidance(w, g, &av));
        CHECK(av.mode == THRONG_AVOIDANCE_ORCA);
        CHECK_EQ_INT((int)av.contact_iterations, 4);
        CHECK(av.time_horizon == 5.0f && av.obstacle_time_horizon == 5.0f);
    }
    throng_world_destroy(w);
}

/* blocks2d at 16 agents (four per corner, the published blocks): every
 * agent gets round the blocks to its goal by the deadline (all at once
 * at step 1,073 of the deadline's 3,677), none sinks deeper than 1% of
 * the radius into another, and one and two threads agree. */
TEST(bench_blocks2d_runs) {
    const scenario *sc = scenario_find("blocks2d");
    REQUIRE(sc != NULL && sc->deadline != NULL);
    uint64_t deadline = sc->deadline(sc, 16);
    CHECK(deadline > 1000 && deadline < 8000);
    motion_run one = run_scene("blocks2d", 16, 1, 1200, 0);
    motion_run two = run_scene("blocks2d", 16, 2, 1200, 0);
    CHECK_EQ_U64(one.hash, two.hash);
    CHECK_EQ_U64(one.figures.arrivals, 16);
    CHECK(one.figures.all_arrived_step > 0);
    CHECK(one.figures.all_arrived_step == one.brute_all_arrived);
    CHECK(one.figures.on_time_share == 1.0);
    CHECK_EQ_U64(one.figures.overlap_sum, one.brute_pairs);
    CHECK(one.figures.deep_overlap_sum == 0);
    CHECK_EQ_INT((int)one.figures.longest_stall, (int)one.brute_stall);
    char flag[64];
    quality q;
    memset(&q, 0, sizeof q);
    quality_motion_report(&(quality_motion){ .figures = one.figures }, &q);
    CHECK_EQ_INT((int)quality_judge(&q, sc, 1200, flag, sizeof flag), 0);
}

/* crossing2d at 200 agents: two ORCA groups (a colour each in the
 * renderer) of 100 with contact resolution, on lattices where no two
 * bodies touch; by the deadline, twice the free walking time (610
 * steps), every agent has reached its goal, and no pair sank deeper
 * than 1% of the radius. Before the deadline the on-time share is not
 * known and not judged. */
TEST(bench_crossing2d_runs) {
    const scenario *sc = scenario_find("crossing2d");
    REQUIRE(sc != NULL && sc->goal != NULL && sc->deadline != NULL);
    CHECK(sc->dt == 0.1f);
    CHECK_EQ_U64(sc->deadline(sc, 200), 610);
    throng_world *w = NULL;
    REQUIRE_OK(sc->build(200, 1, 7u, &w));
    throng_columns c;
    REQUIRE_OK(throng_world_columns(w, &c));
    REQUIRE(c.count == 200);
    uint32_t per_group[8] = { 0 };
    for (uint32_t row = 0; row < c.count; ++row) {
        REQUIRE(c.group[row] < 8);
        ++per_group[c.group[row]];
        for (uint32_t other = row + 1; other < c.count; ++other)
            CHECK(hypot((double)c.px[row] - (double)c.px[other],
                        (double)c.py[row] - (double)c.py[other]) > 0.6);
        float goal[3];
        uint64_t key = c.host_key[row];
        sc->goal(sc, 200, 7u, key, 0, goal);
        /* Odd keys walk +x, even keys +y, three edges (3 x 14.2 m). */
        int along = key % 2 == 1 ? 0 : 1;
        double start = along == 0 ? (double)c.px[row] : (double)c.py[row];
        CHECK(fabs((double)goal[along] - start - 42.6) < 0.1);
        CHECK(goal[1 - along] == (along == 0 ? c.py[row] : c.px[row]));
    }
    for (uint32_t row = 0; row < c.count; row += 7) {
        throng_agent a;
        throng_group g;
        throng_avoidance av;
        REQUIRE_OK(throng_agent_at(w, row, &a));
        REQUIRE_OK(throng_agent_get_group(w, a, &g));
        REQUIRE_OK(throng_group_get_avoidance(w, g, &av));
        CHECK(av.mode == THRONG_AVOIDANCE_ORCA);
        CHECK_EQ_INT((int)av.contact_iterations, 32);
    }
    uint32_t groups = 0;
    for (uint32_t g = 0; g < 8; ++g)
        if (per_group[g] != 0) {
            ++groups;
            CHECK_EQ_INT((int)per_group[g], 100);
        }
    CHECK_EQ_INT((int)groups, 2);
    throng_world_destroy(w);

    motion_run early = run_scene("crossing2d", 200, 1, 300, 0);
    CHECK(isnan(early.figures.on_time_share));
    char flag[64];
    quality q;
    memset(&q, 0, sizeof q);
    quality_motion_report(&(quality_motion){ .figures = early.figures }, &q);
    CHECK_EQ_INT((int)quality_judge(&q, sc, 300, flag, sizeof flag), 0);

    motion_run one = run_scene("crossing2d", 200, 1, 620, 0);
    CHECK(one.figures.all_arrived_step == one.brute_all_arrived);
    CHECK(one.figures.on_time_share >= 0.95);
    CHECK(one.figures.deep_overlap_sum == 0);
    CHECK_EQ_U64(one.figures.overlap_sum, one.brute_pairs);
    memset(&q, 0, sizeof q);
    quality_motion_report(&(quality_motion){ .figures = one.figures }, &q);
    CHECK_EQ_INT((int)quality_judge(&q, sc, 620, flag, sizeof flag), 0);
    /* An on-time share below 95% is out. */
    q.on_time_share = 0.9;
    CHECK_EQ_INT((int)quality_judge(&q, sc, 620, flag, sizeof flag), 1);
    CHECK(strcmp(flag, "OUT: ontime%") == 0);
}

/* The hash of `name` at `agents` after `steps` steps with the scene's
 * host-side goal updates (0 when it does not build). */
static uint64_t scene_hash(const char *name, uint32_t agents, uint32_t steps) {
    const scenario *sc = scenario_find(name);
    throng_world *world = NULL;
    if (sc == NULL || sc->build(agents, 1, 7u, &world) != THRONG_OK)
        return 0;
    uint32_t *arrivals = calloc(agents, sizeof *arrivals);
    for (uint32_t step = 0; step < steps && arrivals != NULL; ++step) {
        CHECK_OK(scenario_between_steps(sc, world, agents, 7u, arrivals));
        CHECK_OK(throng_world_step(world, sc->dt));
    }
    const uint64_t hash = arrivals != NULL ? throng_world_hash(world) : 0;
    free(arrivals);
    throng_world_destroy(world);
    return hash;
}

/* The bench's --set: a value set stands in for the scene's own in every
 * scene that has the name (and no other), a name set again takes the new
 * value, and the table holds SCENARIO_MAX_SET names. orca_dense2d's own
 * ticks (3) and contact passes (0) set explicitly give its own bits;
 * each changed value changes them; counts that are not whole numbers in
 * range are refused when the scene is built. */
TEST(bench_set_param_stands_in) {
    const scenario *dense = scenario_find("orca_dense2d");
    const scenario *flock = scenario_find("flock2d");
    REQUIRE(dense != NULL && flock != NULL);
    scenario_clear_set();
    const scenario_param *own = scenario_param_find(dense, "ticks");
    REQUIRE(own != NULL);
    CHECK(own->value == 3.0);
    const uint64_t base = scene_hash("orca_dense2d", 36, 120);
    CHECK(base != 0);

    CHECK(scenario_set_param("ticks", 1.0));
    CHECK(scenario_param_find(dense, "ticks")->value == 1.0);
    CHECK(scenario_param_find(flock, "ticks") == NULL);
    CHECK(scenario_set_param("ticks", 3.0));
    CHECK(scenario_set_param("contact_iterations", 0.0));
    CHECK(scenario_set_at(2) == NULL);
    CHECK(scenario_param_find(dense, "ticks")->value == 3.0);
    CHECK_EQ_U64(scene_hash("orca_dense2d", 36, 120), base);

    CHECK(scenario_set_param("ticks", 1.0));
    const uint64_t one_tick = scene_hash("orca_dense2d", 36, 120);
    CHECK(one_tick != 0 && one_tick != base);
    CHECK(scenario_set_param("contact_iterations", 4.0));
    const uint64_t with_contact = scene_hash("orca_dense2d", 36, 120);
    CHECK(with_contact != 0 && with_contact != one_tick);

    const double bad[][2] = { { 0.0, 0.0 },  { 11.0, 0.0 }, { 1.5, 0.0 },
                              { 1.0, -1.0 }, { 1.0, 0.5 },  { -1.0, 0.0 },
                              { 1.0, 5e9 } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        CHECK(scenario_set_param("ticks", bad[i][0]));
        CHECK(scenario_set_param("contact_iterations", bad[i][1]));
        throng_world *world = NULL;
        CHECK_EQ_INT(dense->build(36, 1, 7u, &world), THRONG_ERR_INVALID_ARG);
        CHECK(world == NULL);
    }

    scenario_clear_set();
    CHECK(scenario_set_at(0) == NULL);
    static const char *const names[SCENARIO_MAX_SET + 1u] = {
        "a", "b", "c", "d", "e", "f", "g", "h", "i",
        "j", "k", "l", "m", "n", "o", "p", "q"
    };
    for (uint32_t i = 0; i < SCENARIO_MAX_SET; ++i)
        CHECK(scenario_set_param(names[i], (double)i));
    CHECK(!scenario_set_param(names[SCENARIO_MAX_SET], 1.0));
    CHECK(scenario_set_param("a", 7.0));
    CHECK(scenario_set_at(0)->value == 7.0);
    scenario_clear_set();
    CHECK(scenario_param_find(dense, "ticks")->value == 3.0);
    CHECK_EQ_U64(scene_hash("orca_dense2d", 36, 120), base);
}

/* contact_velocity (the pushes count in the velocity) in the dense ORCA
 * crowd at one tick a step with 16 contact passes, 1,000 agents, 400
 * steps: without it ORCA's next tick meets the pushed-apart pairs still
 * closing and the crowd sinks in (1,498 pair-steps deeper than 1% of the
 * radius, the deepest 1.7% of r_i + r_j); with it none, the deepest
 * 0.5%. The same bits on one and two threads; the value is a count of 0
 * or 1, anything else is refused when the scene is built. */
TEST(bench_dense_contact_velocity) {
    const scenario *dense = scenario_find("orca_dense2d");
    REQUIRE(dense != NULL);
    scenario_clear_set();
    CHECK(scenario_set_param("ticks", 1.0));
    CHECK(scenario_set_param("contact_iterations", 16.0));
    CHECK(scenario_set_param("contact_velocity", 0.0));
    const motion_run off = run_scene("orca_dense2d", 1000, 1, 400, 0);
    CHECK(scenario_set_param("contact_velocity", 1.0));
    const motion_run on = run_scene("orca_dense2d", 1000, 2, 400, 0);
    printf("dense, contact_velocity off: %llu deep, deepest %.4f; on: %llu, "
           "%.4f\n",
           (unsigned long long)off.figures.deep_overlap_sum,
           off.figures.deepest_overlap,
           (unsigned long long)on.figures.deep_overlap_sum,
           on.figures.deepest_overlap);
    CHECK(off.hash != on.hash);
    CHECK(off.figures.deepest_overlap > 0.012);
    CHECK(off.figures.deep_overlap_sum > 500u);
    CHECK(on.figures.deepest_overlap < 0.008);
    CHECK_EQ_U64(on.figures.deep_overlap_sum, 0);
    CHECK_EQ_U64(run_scene("orca_dense2d", 1000, 1, 40, 0).hash,
                 run_scene("orca_dense2d", 1000, 2, 40, 0).hash);
    const double bad[] = { 2.0, 0.5, -1.0 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        CHECK(scenario_set_param("contact_velocity", bad[i]));
        throng_world *world = NULL;
        CHECK_EQ_INT(dense->build(36, 1, 7u, &world), THRONG_ERR_INVALID_ARG);
        CHECK(world == NULL);
    }
    scenario_clear_set();
}

/* throng-bench's --set on the command line: NAME=VALUE pairs, several
 * options, the scenes' values in place; malformed items, non-finite
 * values and a name some scene run lacks are usage errors; each parse
 * starts from no values set, and freeing the options forgets them. */
static int parse_args(const char *const *args, int n, options *opt) {
    char *argv[16];
    char copies[16][96];
    argv[0] = copies[0];
    snprintf(copies[0], sizeof copies[0], "throng-bench");
    for (int i = 0; i < n && i < 15; ++i) {
        snprintf(copies[i + 1], sizeof copies[i + 1], "%s", args[i]);
        argv[i + 1] = copies[i + 1];
    }
    return options_parse(n + 1, argv, opt);
}

TEST(bench_set_option) {
    const scenario *dense = scenario_find("orca_dense2d");
    REQUIRE(dense != NULL);
    options opt;
    const char *const good[] = { "--scenario", "orca_dense2d,circle2d", "--set",
                                 "ticks=1,contact_iterations=16",
                                 "--set=keep_right=0.25" };
    CHECK_EQ_INT(parse_args(good, 5, &opt), 0);
    CHECK(scenario_param_find(dense, "ticks")->value == 1.0);
    CHECK(scenario_param_find(dense, "contact_iterations")->value == 16.0);
    CHECK(scenario_param_find(dense, "keep_right")->value == 0.25);
    CHECK(scenario_set_at(3) == NULL);
    options_free(&opt);
    CHECK(scenario_set_at(0) == NULL);
    CHECK(scenario_param_find(dense, "ticks")->value == 3.0);

    static const char *const bad[][4] = {
        { "--scenario", "orca_dense2d", "--set", "ticks" },
        { "--scenario", "orca_dense2d", "--set", "=1" },
        { "--scenario", "orca_dense2d", "--set", "ticks=" },
        { "--scenario", "orca_dense2d", "--set", "ticks=1x" },
        { "--scenario", "orca_dense2d", "--set", "ticks=nan" },
        { "--scenario", "orca_dense2d", "--set", "ticks=1e999" },
        { "--scenario", "orca_dense2d", "--set", "ticks=1,,cell=4" },
        { "--scenario", "orca_dense2d", "--set", "no_such_param=1" },
        { "--scenario", "flock2d,orca_dense2d", "--set", "ticks=1" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        if (parse_args(bad[k], 4, &opt) != EXIT_USAGE)
            runner_fail(__FILE__, __LINE__, "--set %s was taken", bad[k][3]);
        options_free(&opt);
        CHECK(scenario_set_at(0) == NULL);
    }
}

void register_bench_motion_tests(void) {
    REGISTER(bench_overlap_grid_matches_brute_force);
    REGISTER(bench_circle2d_runs);
    REGISTER(bench_circle2d_one_tick_nudge);
    REGISTER(bench_motion_tracker_stall);
    REGISTER(bench_orca_dense2d_runs);
    REGISTER(bench_dense_goals_pure);
    REGISTER(bench_blocks2d_layout);
    REGISTER(bench_blocks2d_runs);
    REGISTER(bench_crossing2d_runs);
    REGISTER(bench_set_param_stands_in);
    REGISTER(bench_dense_contact_velocity);
    REGISTER(bench_set_option);
}
