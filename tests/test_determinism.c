/* SPDX-License-Identifier: MIT */
/*
 * The determinism contract: for one build, one initial state, seed and dt,
 * the state after N steps is the same to the bit for any thread count, on
 * every run, and on every kernel path (scalar; SSE2, AVX2, AVX-512 on
 * x86-64; NEON on aarch64). The scenes include wander, so every step draws
 * random numbers; a second scene mixes groups with a narrow view cone and
 * inverse-distance separation so each specialised vector kernel runs beside
 * the scalar one.
 */
#include <string.h>

#include "../bench/scenarios.h"
#include "internal.h"
#include "runner.h"
#include "kernel_paths.h"

uint64_t test_scenario_hash(const char *name, uint32_t agents, int threads,
                            uint64_t seed, const char *path, int steps) {
    const scenario *sc = scenario_find(name);
    if (!sc) {
        runner_fail(__FILE__, __LINE__, "no scenario %s", name);
        return 0;
    }
    throng_world *w = NULL;
    if (sc->build(agents, threads, seed, &w) != THRONG_OK) {
        runner_fail(__FILE__, __LINE__, "scenario %s did not build", name);
        return 0;
    }
    if (path && world_select_kernel(w, path) != 0) {
        throng_world_destroy(w);
        return 1;
    }
    /* N threads must really be N, however busy the machine is. */
    w->tuner.pinned = 1;
    if (!test_step_n(w, sc->dt, steps, name)) {
        throng_world_destroy(w);
        return 0;
    }
    uint64_t h = throng_world_hash(w);
    throng_world_destroy(w);
    return h;
}

/* The determinism scenes all start from seed 7. */
static uint64_t run_scenario(const char *name, uint32_t agents, int threads,
                             const char *path, int steps) {
    return test_scenario_hash(name, agents, threads, 7u, path, steps);
}

static void check_threads(const char *name, uint32_t agents, int steps) {
    uint64_t one = run_scenario(name, agents, 1, NULL, steps);
    uint64_t again = run_scenario(name, agents, 1, NULL, steps);
    if (one != again)
        runner_fail(__FILE__, __LINE__,
                    "%s: two 1-thread runs differ: %016llx vs %016llx", name,
                    (unsigned long long)one, (unsigned long long)again);
    const int counts[] = { 2, 3, 4, 8 };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        uint64_t h = run_scenario(name, agents, counts[i], NULL, steps);
        if (h != one)
            runner_fail(__FILE__, __LINE__,
                        "%s, %u agents, %d steps: %d threads give %016llx, "
                        "1 thread %016llx",
                        name, agents, steps, counts[i], (unsigned long long)h,
                        (unsigned long long)one);
    }
    /* The scene must actually change: a different seed diverges. */
    CHECK(one != 0);
}

TEST(determinism_threads_2d) {
    check_threads("wander2d", 3000u, 1000);
}
TEST(determinism_threads_3d) {
    check_threads("wander3d", 1500u, 1000);
}
/* Every behaviour, every combine mode, objects of every kind. */
TEST(determinism_threads_every2d) {
    check_threads("every2d", 1200u, 400);
}
TEST(determinism_threads_every3d) {
    check_threads("every3d", 1200u, 400);
}

static const char *const paths[] = { "sse2", "avx2", "avx512", "neon", "wasm" };

TEST(determinism_simd_paths) {
    const char *scenes[] = { "wander2d", "wander3d", "every2d",
                             "every3d",  "flock2d",  "flock3d" };
    for (int s = 0; s < 6; s++) {
        uint64_t scalar = run_scenario(scenes[s], 2000u, 2, "scalar", 300);
        REQUIRE(scalar > 1);
        for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
            uint64_t h = run_scenario(scenes[s], 2000u, 2, paths[p], 300);
            if (h == 1)
                continue; /* not on this CPU or build */
            if (h != scalar)
                runner_fail(__FILE__, __LINE__,
                            "%s: %s path gives %016llx, scalar %016llx",
                            scenes[s], paths[p], (unsigned long long)h,
                            (unsigned long long)scalar);
        }
    }
}

/* Two groups in one unbounded world: one with a 120 degree view cone and
 * inverse-distance separation, one plain; agents interleave, so vector
 * lanes hold both and the cone and division variants run. */
static uint64_t run_mixed(int dims, const char *path, int threads) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = dims;
    d.threads = threads;
    d.seed = 99u;
    throng_world *w = NULL;
    if (throng_world_create(&d, &w) != THRONG_OK)
        return 0;
    if (world_select_kernel(w, path) != 0) {
        throng_world_destroy(w);
        return 1;
    }
    throng_group_def g = throng_group_def_default();
    g.flocking.separation_weight = 2.0f;
    g.flocking.alignment_weight = 1.0f;
    g.flocking.cohesion_weight = 0.5f;
    g.wander.weight = 0.3f;
    throng_group plain = THRONG_NULL_GROUP, coned = THRONG_NULL_GROUP;
    throng_group_create(w, &g, &plain);
    g.flocking.field_of_view = 2.0944f;
    g.flocking.separation_mode = THRONG_SEPARATION_INVERSE_DISTANCE;
    g.combine = THRONG_COMBINE_WEIGHTED_SUM;
    throng_group_create(w, &g, &coned);
    test_rng rng = test_rng_make(5u);
    for (int i = 0; i < 1500; i++) {
        throng_agent_def a = throng_agent_def_default();
        for (int k = 0; k < dims; k++) {
            a.position[k] = test_rng_range(&rng, -6.0f, 6.0f);
            a.velocity[k] = test_rng_range(&rng, -0.7f, 0.7f);
        }
        /* A few exact duplicates exercise coincident neighbours. */
        if (i % 97 == 1) {
            float p[3];
            throng_agent prev;
            throng_agent_at(w, (uint32_t)i - 1u, &prev);
            throng_agent_get_position(w, prev, p);
            memcpy(a.position, p, sizeof p);
        }
        a.group = i % 3 == 0 ? coned : plain;
        throng_agent h;
        throng_agent_add(w, &a, &h);
    }
    for (int s = 0; s < 150; s++)
        throng_world_step(w, 0.05f);
    uint64_t h = throng_world_hash(w);
    throng_world_destroy(w);
    return h;
}

TEST(determinism_simd_variants) {
    for (int dims = 2; dims <= 3; dims++) {
        uint64_t scalar = run_mixed(dims, "scalar", 1);
        REQUIRE(scalar > 1);
        CHECK(run_mixed(dims, "scalar", 2) == scalar);
        for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
            uint64_t h = run_mixed(dims, paths[p], 2);
            if (h != 1 && h != scalar)
                runner_fail(__FILE__, __LINE__,
                            "mixed %dD: %s gives %016llx, scalar %016llx", dims,
                            paths[p], (unsigned long long)h,
                            (unsigned long long)scalar);
        }
    }
}

/* Unaligned collision avoidance on every path: three groups interleave
 * so vector lanes mix them; plain flocking, a weighted-sum recipe
 * (avoidance at the neighbour radius, inverse-distance separation, a 144
 * degree view cone that also hides neighbours from avoidance) and a
 * priority recipe (avoidance within 1.2 m, margin 0.15 m, 3 s ahead,
 * separation, alignment). Radii differ by agent, every fifth agent stands
 * still, and half the crowd starts on a 0.5 m lattice with axis-aligned
 * velocities of one speed, where two neighbours often threaten at the
 * same time to the bit: the first seen must win on every path. */
static uint64_t run_uca(int dims, const char *path, int threads) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = dims;
    d.threads = threads;
    d.seed = 41u;
    d.neighbour_radius = 2.0f;
    throng_world *w = NULL;
    if (throng_world_create(&d, &w) != THRONG_OK)
        return 0;
    if (world_select_kernel(w, path) != 0) {
        throng_world_destroy(w);
        return 1;
    }
    throng_group_def g = throng_group_def_default();
    throng_group plain = THRONG_NULL_GROUP, coned = THRONG_NULL_GROUP,
                 ranked = THRONG_NULL_GROUP;
    int ok = throng_group_create(w, &g, &plain) == THRONG_OK;
    g.combine = THRONG_COMBINE_WEIGHTED_SUM;
    g.flocking.separation_mode = THRONG_SEPARATION_INVERSE_DISTANCE;
    g.flocking.separation_radius = 0.8f;
    g.flocking.alignment_weight = 0.0f;
    g.flocking.cohesion_weight = 0.0f;
    g.flocking.field_of_view = 2.5f;
    ok &= throng_group_create(w, &g, &coned) == THRONG_OK;
    throng_behaviour b =
        throng_behaviour_default(THRONG_BEHAVIOUR_AVOID_NEIGHBOURS);
    ok &= throng_group_add_behaviour(w, coned, &b, NULL) == THRONG_OK;
    g = throng_group_def_default();
    g.combine = THRONG_COMBINE_PRIORITY;
    g.flocking.cohesion_weight = 0.0f;
    g.flocking.separation_priority = 1;
    ok &= throng_group_create(w, &g, &ranked) == THRONG_OK;
    b.u.unaligned.radius = 1.2f;
    b.u.unaligned.margin = 0.15f;
    b.u.unaligned.horizon = 3.0f;
    b.priority = 2;
    ok &= throng_group_add_behaviour(w, ranked, &b, NULL) == THRONG_OK;
    const throng_group groups[3] = { plain, coned, ranked };
    test_rng rng = test_rng_make(17u);
    for (int i = 0; i < 1200 && ok; i++) {
        throng_agent_def a = throng_agent_def_default();
        if (i < 600) {
            for (int k = 0; k < dims; k++) {
                a.position[k] = test_rng_range(&rng, -5.0f, 5.0f);
                a.velocity[k] = test_rng_range(&rng, -0.8f, 0.8f);
            }
        } else {
            const int cell = i - 600;
            const int column = cell % 12, row = cell / 12 % 10,
                      layer = cell / 120;
            a.position[0] = 0.5f * (float)column - 3.0f;
            a.position[1] = 0.5f * (float)row - 2.5f;
            if (dims == 3)
                a.position[2] = 0.5f * (float)layer - 1.0f;
            a.velocity[(cell / 7) % dims] = (cell % 2) ? 0.5f : -0.5f;
        }
        if (i % 5 == 0)
            memset(a.velocity, 0, sizeof a.velocity);
        a.radius = 0.15f + 0.05f * (float)(i % 4);
        a.group = groups[i % 3];
        throng_agent h;
        ok &= throng_agent_add(w, &a, &h) == THRONG_OK;
    }
    for (int s = 0; s < 60 && ok; s++)
        ok &= throng_world_step(w, 0.05f) == THRONG_OK;
    uint64_t h = ok ? throng_world_hash(w) : 0;
    throng_world_destroy(w);
    return h;
}

TEST(determinism_uca_paths) {
    for (int dims = 2; dims <= 3; dims++) {
        uint64_t scalar = run_uca(dims, "scalar", 1);
        REQUIRE(scalar > 1);
        CHECK(run_uca(dims, "scalar", 2) == scalar);
        for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++)
            for (int threads = 1; threads <= 2; threads++) {
                uint64_t h = run_uca(dims, paths[p], threads);
                if (h != 1 && h != scalar)
                    runner_fail(__FILE__, __LINE__,
                                "avoidance %dD: %s on %d threads gives "
                                "%016llx, scalar %016llx",
                                dims, paths[p], threads, (unsigned long long)h,
                                (unsigned long long)scalar);
            }
    }
}

/* A query between steps must not change what later steps compute. */
/* Wander with no turn (the flocks' cruise) takes a shortcut on the vector
 * paths (no draw) wherever the draw cannot matter. Here one group turns
 * for 40 steps, so its rates are of both signs, then stops turning: its
 * rates go to +0 and -0, and a -0 rate must fall back to the draw; a
 * second group cruises from the start, and a third keeps turning, in
 * bands that meet in some cells. Every path gives the scalar path's bits. */
static uint64_t run_cruise(int dims, const char *path, int threads) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = dims;
    d.threads = threads;
    d.seed = 17u;
    throng_world *w = NULL;
    if (throng_world_create(&d, &w) != THRONG_OK)
        return 0;
    if (world_select_kernel(w, path) != 0) {
        throng_world_destroy(w);
        return 1;
    }
    throng_group_def g = throng_group_def_default();
    g.flocking.separation_weight = 1.5f;
    g.flocking.alignment_weight = 2.0f;
    g.flocking.cohesion_weight = 0.25f;
    g.wander.weight = 3.0f;
    throng_group turning = THRONG_NULL_GROUP, cruising = THRONG_NULL_GROUP,
                 stopping = THRONG_NULL_GROUP;
    throng_group_create(w, &g, &turning);
    throng_group_create(w, &g, &stopping);
    g.wander.max_turn_rate = 0.0f;
    g.wander.max_turn_change = 0.0f;
    throng_group_create(w, &g, &cruising);
    test_rng rng = test_rng_make(23u);
    for (int i = 0; i < 1200; i++) {
        throng_agent_def a = throng_agent_def_default();
        for (int k = 0; k < dims; k++) {
            a.position[k] = test_rng_range(&rng, -5.0f, 5.0f);
            a.velocity[k] = test_rng_range(&rng, -0.7f, 0.7f);
        }
        a.max_speed = 1.0f + 0.25f * (float)(i % 3);
        /* Bands of x, so most groups of lanes hold one group (the
         * shortcut's case) and those at the borders mix them. */
        a.group = a.position[0] < -1.7f  ? turning
                  : a.position[0] < 1.7f ? stopping
                                         : cruising;
        throng_agent h;
        throng_agent_add(w, &a, &h);
    }
    for (int s = 0; s < 40; s++)
        throng_world_step(w, 0.05f);
    throng_wander stop;
    throng_group_get_wander(w, stopping, &stop);
    stop.max_turn_rate = 0.0f;
    stop.max_turn_change = 0.0f;
    if (throng_group_set_wander(w, stopping, &stop) != THRONG_OK) {
        throng_world_destroy(w);
        return 0;
    }
    for (int s = 0; s < 80; s++)
        throng_world_step(w, 0.05f);
    uint64_t h = throng_world_hash(w);
    throng_world_destroy(w);
    return h;
}

TEST(determinism_simd_cruise) {
    for (int dims = 2; dims <= 3; dims++) {
        uint64_t scalar = run_cruise(dims, "scalar", 1);
        REQUIRE(scalar > 1);
        CHECK(run_cruise(dims, "scalar", 2) == scalar);
        for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
            uint64_t h = run_cruise(dims, paths[p], 2);
            if (h != 1 && h != scalar)
                runner_fail(__FILE__, __LINE__,
                            "cruise %dD: %s gives %016llx, scalar %016llx",
                            dims, paths[p], (unsigned long long)h,
                            (unsigned long long)scalar);
        }
    }
}

TEST(determinism_query_is_read_only) {
    const scenario *sc = scenario_find("wander2d");
    REQUIRE(sc != NULL);
    throng_world *a = NULL, *b = NULL;
    REQUIRE(sc->build(2000u, 2, 3u, &a) == THRONG_OK);
    REQUIRE(sc->build(2000u, 2, 3u, &b) == THRONG_OK);
    throng_agent out[64];
    for (int s = 0; s < 50; s++) {
        float q[3] = { (float)s * 0.3f, 1.0f, 0.0f };
        uint32_t n;
        CHECK(throng_world_query_radius(b, q, 2.0f, out, 64u, &n, NULL) ==
              THRONG_OK);
        throng_world_step(a, sc->dt);
        throng_world_step(b, sc->dt);
    }
    CHECK(throng_world_hash(a) == throng_world_hash(b));
    throng_world_destroy(a);
    throng_world_destroy(b);
}

/* When the tuner has sent a world to one thread (parallel.c), its steps
 * run on one thread, say so, and compute what the team computes; the
 * probe after the solo stretch brings the team back on a machine where it
 * does not lose. */
TEST(determinism_tuner_solo) {
    const scenario *sc = scenario_find("flock2d");
    REQUIRE(sc != NULL);
    throng_world *team = NULL, *solo = NULL;
    REQUIRE(sc->build(20000u, 2, 3u, &team) == THRONG_OK);
    REQUIRE(sc->build(20000u, 2, 3u, &solo) == THRONG_OK);
    team->tuner.pinned = 1;
    solo->tuner.solo_left = 3;
    solo->tuner.backoff = 8;
    throng_step_stats st;
    for (int s = 0; s < 3; s++) {
        REQUIRE(throng_world_step(team, sc->dt) == THRONG_OK);
        REQUIRE(throng_world_step(solo, sc->dt) == THRONG_OK);
#ifdef _OPENMP
        /* (Without OpenMP there is no team, and no tuner at work.) */
        throng_world_stats(solo, &st);
        CHECK(st.threads == 1u);
#endif
    }
#ifdef _OPENMP
    CHECK(solo->tuner.probing == 1);
#endif
    for (int s = 0; s < 20; s++) {
        REQUIRE(throng_world_step(team, sc->dt) == THRONG_OK);
        REQUIRE(throng_world_step(solo, sc->dt) == THRONG_OK);
    }
    CHECK(throng_world_hash(team) == throng_world_hash(solo));
    throng_world_stats(team, &st);
    CHECK(st.threads == 2u);
    throng_world_destroy(team);
    throng_world_destroy(solo);
}

void register_determinism_tests(void) {
    REGISTER(determinism_threads_2d);
    REGISTER(determinism_threads_3d);
    REGISTER(determinism_threads_every2d);
    REGISTER(determinism_threads_every3d);
    REGISTER(determinism_simd_paths);
    REGISTER(determinism_simd_variants);
    REGISTER(determinism_simd_cruise);
    REGISTER(determinism_uca_paths);
    REGISTER(determinism_query_is_read_only);
    REGISTER(determinism_tuner_solo);
}
