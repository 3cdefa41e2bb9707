/* SPDX-License-Identifier: MIT */
/*
 * Degenerate crowds and awkward steps: the neighbour cap against brute
 * force, everyone at one point or in one cell, agents far outside a
 * periodic box or near the float limits, empty and single-agent worlds, a
 * million agents removed and added again, and steps whose dt is split into
 * ticks or clamped. Each case must run in bounded time, keep every value
 * finite and every speed within its limit.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "object_defs.h"
#include "runner.h"
#include "kernel_paths.h"
#include "internal.h"    /* world_select_kernel: force a kernel path */
#include "steer_flock.h" /* FLOCK_LANE_CAP_MAX */

/* Every position and velocity finite and every speed within its limit
 * (with float rounding); returns the number of agents that break it. */
static uint32_t degenerate_violations(const throng_world *w) {
    throng_columns c;
    if (throng_world_columns(w, &c) != THRONG_OK)
        return UINT32_MAX;
    const bool three = throng_world_dimensions(w) == 3;
    uint32_t bad = 0;
    for (uint32_t r = 0; r < c.count; r++) {
        float p[3] = { c.px[r], c.py[r], three ? c.pz[r] : 0.0f };
        float v[3] = { c.vx[r], c.vy[r], three ? c.vz[r] : 0.0f };
        throng_agent a;
        float smax = 0.0f;
        if (throng_agent_at(w, r, &a) != THRONG_OK ||
            throng_agent_get_max_speed(w, a, &smax) != THRONG_OK) {
            bad++;
            continue;
        }
        double s2 = 0.0;
        int finite = 1;
        for (int k = 0; k < 3; k++) {
            finite &= isfinite(p[k]) && isfinite(v[k]);
            s2 += (double)v[k] * (double)v[k];
        }
        if (!finite || sqrt(s2) > (double)smax * (1.0 + 1e-5))
            bad++;
    }
    return bad;
}

static throng_world *degenerate_world(int dims, bool periodic, float box,
                                      float radius) {
    throng_world_def d = ts_world_def(dims, 0, NULL);
    d.neighbour_radius = radius;
    if (periodic)
        ts_world_def_periodic(&d, box);
    return ts_world_make(&d);
}

/* A group with every neighbour rule on (and wander), the given cap. */
static throng_group degenerate_flock_group(throng_world *w, uint32_t cap,
                                           throng_separation_mode mode) {
    throng_group_def g = throng_group_def_default();
    g.flocking.separation_weight = 2.0f;
    g.flocking.alignment_weight = 1.0f;
    g.flocking.cohesion_weight = 1.0f;
    g.flocking.separation_mode = mode;
    g.flocking.max_neighbours = cap;
    g.wander.weight = 0.5f;
    throng_group id = THRONG_NULL_GROUP;
    if (throng_group_create(w, &g, &id) != THRONG_OK)
        return THRONG_NULL_GROUP;
    return id;
}

/* ------------------------------------------------------------------------ */
/* The neighbour cap                                                        */
/* ------------------------------------------------------------------------ */

/* Cohesion alone, no truncation: one step from rest leaves each agent's
 * velocity at s * normalize(mean offset of the neighbours it saw), so the
 * direction names the neighbour set. The brute force below picks the K
 * nearest within the radius (ties: the lower slot, which here is the add
 * order) and must point the same way. Half the agents sit on a lattice so
 * that equal distances, and the tie rule, are common. */
static void cap_case(int dims, bool periodic, uint32_t cap, uint64_t seed) {
    const float box = 6.0f, R = 1.0f, S = 1.0f;
    throng_world *w = degenerate_world(dims, periodic, box, R);
    REQUIRE(w != NULL);
    throng_group_def g = throng_group_def_default();
    g.flocking.cohesion_weight = 1.0f;
    g.flocking.cohesion_radius = R;
    g.flocking.max_neighbours = cap;
    g.combine = THRONG_COMBINE_WEIGHTED_SUM;
    throng_group gid = THRONG_NULL_GROUP;
    REQUIRE_OK(throng_group_create(w, &g, &gid));

    enum {
        N = 400
    };
    static double pos[N][3];
    static throng_agent handle[N];
    test_rng rng = test_rng_make(seed);
    for (int i = 0; i < N; i++) {
        throng_agent_def a = throng_agent_def_default();
        for (int k = 0; k < dims; k++) {
            float x = i % 2 ? test_rng_range(&rng, 0.0f, box)
                            : 0.25f * (float)test_rng_below(&rng, 24);
            a.position[k] = x;
        }
        a.max_speed = S;
        a.max_force = 1e6f;
        a.mass = 1.0f;
        a.group = gid;
        REQUIRE_OK(throng_agent_add(w, &a, &handle[i]));
        CHECK_EQ_INT((int)(handle[i].slot - handle[0].slot), i);
        for (int k = 0; k < 3; k++)
            pos[i][k] = (double)a.position[k];
    }
    REQUIRE_OK(throng_world_step(w, 0.1f));

    int checked = 0;
    for (int i = 0; i < N; i++) {
        /* The candidates: offsets (nearest image), squared in float as the
         * engine does, so ties are ties in both. */
        static struct {
            float d2;
            int j;
            double d[3];
        } near[N];
        int n = 0;
        for (int j = 0; j < N; j++) {
            if (j == i)
                continue;
            float d[3] = { 0, 0, 0 };
            for (int k = 0; k < dims; k++) {
                d[k] = (float)pos[j][k] - (float)pos[i][k];
                if (periodic) {
                    if (d[k] > box / 2)
                        d[k] -= box;
                    if (d[k] < -box / 2)
                        d[k] += box;
                }
            }
            float d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (d2 <= R * R) {
                near[n].d2 = d2;
                near[n].j = j;
                for (int k = 0; k < 3; k++)
                    near[n].d[k] = (double)d[k];
                n++;
            }
        }
        /* Selection sort of the first min(K, n) by (d2, slot). */
        int keep = cap && (uint32_t)n > cap ? (int)cap : n;
        for (int a = 0; a < keep; a++) {
            int best = a;
            for (int b = a + 1; b < n; b++)
                if (near[b].d2 < near[best].d2 ||
                    (near[b].d2 == near[best].d2 && near[b].j < near[best].j))
                    best = b;
            __typeof__(near[0]) t = near[a];
            near[a] = near[best];
            near[best] = t;
        }
        double m[3] = { 0, 0, 0 };
        for (int a = 0; a < keep; a++)
            for (int k = 0; k < 3; k++)
                m[k] += near[a].d[k];
        double len = test_len3(m);
        float v[3];
        REQUIRE_OK(throng_agent_get_velocity(w, handle[i], v));
        if (keep == 0 || len < 1e-3) {
            CHECK(fabsf(v[0]) + fabsf(v[1]) + fabsf(v[2]) < 1e-6f ||
                  len < 1e-3);
            continue;
        }
        double dot = 0.0;
        for (int k = 0; k < 3; k++)
            dot += (double)v[k] * m[k] / len;
        if (!(dot > (double)S * (1.0 - 1e-4)))
            runner_fail(__FILE__, __LINE__,
                        "%dD %s cap %u agent %d: velocity (%g %g %g) is not "
                        "along the mean offset of its %d nearest (%g %g %g), "
                        "dot %g",
                        dims, periodic ? "periodic" : "unbounded", cap, i,
                        (double)v[0], (double)v[1], (double)v[2], keep,
                        m[0] / len, m[1] / len, m[2] / len, dot);
        checked++;
    }
    CHECK(checked > N / 2);
    throng_world_destroy(w);
}

TEST(degenerate_cap_matches_brute_force) {
    const uint32_t caps[] = { 1, 3, 7, 20 };
    for (int dims = 2; dims <= 3; dims++)
        for (int p = 0; p < 2; p++)
            for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++)
                cap_case(dims, p == 1, caps[c], 11u + c + 7u * (uint64_t)dims);
}

/* Steps w `steps` times and destroys it: its hash, or 0 when a step
 * fails or leaves a degenerate value. */
static uint64_t cap_steps_hash(throng_world *w, int steps) {
    for (int s = 0; s < steps; s++)
        if (throng_world_step(w, 1.0f / 30.0f) != THRONG_OK) {
            throng_world_destroy(w);
            return 0;
        }
    uint64_t h = degenerate_violations(w) ? 0 : throng_world_hash(w);
    throng_world_destroy(w);
    return h;
}

/* A flock where some groups have a cap and others not; steps it and
 * returns the state hash. */
static uint64_t cap_flock_hash(int dims, uint32_t cap, int threads,
                               const char *simd, int steps) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = dims;
    d.boundary = THRONG_BOUNDARY_PERIODIC;
    d.box_size[0] = d.box_size[1] = d.box_size[2] = dims == 2 ? 30.0f : 10.0f;
    d.threads = threads;
    throng_world *w = NULL;
    if (throng_world_create(&d, &w) != THRONG_OK)
        return 0;
    if (simd && world_select_kernel(w, simd) != 0) {
        throng_world_destroy(w);
        return 1; /* this CPU or build lacks the path */
    }
    throng_group capped =
        degenerate_flock_group(w, cap, THRONG_SEPARATION_INVERSE_DISTANCE);
    throng_group free_group =
        degenerate_flock_group(w, 0, THRONG_SEPARATION_FLEE_AVERAGE);
    test_rng rng = test_rng_make(99u + (uint64_t)dims);
    for (int i = 0; i < 3000; i++) {
        throng_agent_def a = throng_agent_def_default();
        for (int k = 0; k < dims; k++)
            a.position[k] = test_rng_range(&rng, 0.0f, d.box_size[k]);
        for (int k = 0; k < dims; k++)
            a.velocity[k] = test_rng_range(&rng, -0.5f, 0.5f);
        a.group = i % 3 ? capped : free_group;
        throng_agent h;
        if (throng_agent_add(w, &a, &h) != THRONG_OK) {
            throng_world_destroy(w);
            return 0;
        }
    }
    return cap_steps_hash(w, steps);
}

/* Steps of the two cap sweeps below: in a short run (runner_short():
 * the sanitizers, where they were 40 s and 66 s of CPU, and
 * qemu-aarch64) a third, so every world, thread count and path is still
 * stepped, its rows capped, walked and split among the workers on every
 * step, and must still end in the same bits. The plain builds run them
 * whole. */
static int cap_steps(int whole) {
    return runner_short() ? whole / 3 : whole;
}

/* A cap no agent reaches changes nothing, bit for bit, though capped
 * rows choose their neighbours apart from the uncapped walk; and a real
 * cap gives the same state on every thread count and kernel path. */
TEST(degenerate_cap_deterministic) {
    const int steps = cap_steps(30);
    for (int dims = 2; dims <= 3; dims++) {
        uint64_t free_run = cap_flock_hash(dims, 0, 1, NULL, steps);
        uint64_t high_cap =
            cap_flock_hash(dims, THRONG_MAX_NEIGHBOUR_CAP, 2, NULL, steps);
        CHECK(free_run != 0);
        CHECK_EQ_U64(high_cap, free_run);
        uint64_t base = cap_flock_hash(dims, 4, 1, "scalar", steps);
        CHECK(base != 0 && base != free_run);
        const int threads[] = { 1, 2, 3, 4, 8 };
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++)
            CHECK_EQ_U64(cap_flock_hash(dims, 4, threads[t], NULL, steps),
                         base);
        const char *paths[] = { "sse2", "avx2", "avx512", "neon", "wasm" };
        for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
            uint64_t h = cap_flock_hash(dims, 4, 2, paths[p], steps);
            if (h != 1)
                CHECK_EQ_U64(h, base);
        }
    }
}

/* Capped rows in the vector paths' lanes (each lane over its own kept
 * neighbours) against the scalar path, bit for bit: a dense cluster (so
 * fine grids choose) and a sparse rest, in groups that the lanes treat
 * apart: a view cone with unaligned avoidance, inverse separation and
 * flee average with two caps (lanes of one cell mix them), a cap above
 * FLOCK_LANE_CAP_MAX (the scalar walk), and a free group. */
static uint64_t lane_cap_hash(int dims, bool periodic, int threads,
                              const char *simd, int steps) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = dims;
    const float box = dims == 2 ? 12.0f : 6.0f;
    if (periodic) {
        d.boundary = THRONG_BOUNDARY_PERIODIC;
        d.box_size[0] = d.box_size[1] = d.box_size[2] = box;
    }
    d.threads = threads;
    throng_world *w = NULL;
    if (throng_world_create(&d, &w) != THRONG_OK)
        return 0;
    if (simd && world_select_kernel(w, simd) != 0) {
        throng_world_destroy(w);
        return 1; /* this CPU or build lacks the path */
    }
    throng_group groups[5];
    groups[0] = degenerate_flock_group(w, 16, THRONG_SEPARATION_FLEE_AVERAGE);
    groups[1] =
        degenerate_flock_group(w, 7, THRONG_SEPARATION_INVERSE_DISTANCE);
    groups[2] = degenerate_flock_group(w, 5, THRONG_SEPARATION_FLEE_AVERAGE);
    groups[3] = degenerate_flock_group(w, FLOCK_LANE_CAP_MAX + 1u,
                                       THRONG_SEPARATION_FLEE_AVERAGE);
    groups[4] = degenerate_flock_group(w, 0, THRONG_SEPARATION_FLEE_AVERAGE);
    throng_flocking f;
    if (throng_group_get_flocking(w, groups[0], &f) != THRONG_OK) {
        throng_world_destroy(w);
        return 0;
    }
    f.field_of_view = 4.0f;
    throng_behaviour b =
        throng_behaviour_default(THRONG_BEHAVIOUR_AVOID_NEIGHBOURS);
    b.u.unaligned.margin = 0.3f;
    if (throng_group_set_flocking(w, groups[0], &f) != THRONG_OK ||
        throng_group_add_behaviour(w, groups[0], &b, NULL) != THRONG_OK) {
        throng_world_destroy(w);
        return 0;
    }
    test_rng rng = test_rng_make(31u + (uint64_t)dims);
    for (uint32_t i = 0; i < 2500u; i++) {
        throng_agent_def a = throng_agent_def_default();
        const bool dense = i % 4u != 0u;
        for (int k = 0; k < dims; k++)
            a.position[k] = dense ? test_rng_range(&rng, 0.45f, 0.55f) * box
                                  : test_rng_range(&rng, 0.0f, box);
        for (int k = 0; k < dims; k++)
            a.velocity[k] = test_rng_range(&rng, -0.5f, 0.5f);
        a.group = groups[(i / 3u) % 5u];
        throng_agent h;
        if (throng_agent_add(w, &a, &h) != THRONG_OK) {
            throng_world_destroy(w);
            return 0;
        }
    }
    return cap_steps_hash(w, steps);
}

TEST(degenerate_cap_lanes_match_scalar) {
    const int steps = cap_steps(12);
    /* A build with the scalar path alone (SIMD=scalar) has none to
     * compare: every path reports itself missing. */
    for (int dims = 2; dims <= 3; dims++)
        for (int periodic = 0; periodic < 2; periodic++) {
            const uint64_t base =
                lane_cap_hash(dims, periodic, 1, "scalar", steps);
            CHECK(base != 0 && base != 1);
            const char *paths[] = { "sse2", "avx2", "avx512", "neon", "wasm" };
            for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++)
                for (int threads = 1; threads <= 2; threads++) {
                    uint64_t h =
                        lane_cap_hash(dims, periodic, threads, paths[p], steps);
                    if (h != 1 && h != base)
                        runner_fail(__FILE__, __LINE__,
                                    "%dD %s, %s path, %d thread(s): hash "
                                    "%#018llx, scalar %#018llx",
                                    dims, periodic ? "periodic" : "unbounded",
                                    paths[p], threads, (unsigned long long)h,
                                    (unsigned long long)base);
                }
        }
}

/* A cap of 1 where the nearest neighbour stands on the agent and has
 * slot 0: its selection key (distance bits, slot) is 0, so no key value
 * can mean "no answer". The neighbour of slot 0 is held after another
 * one (a first step sorts the other into an earlier cell; then all three
 * share a cell in that order). Every path must keep slot 0 and end as
 * the scalar path does. */
static uint64_t cap_on_slot_zero_hash(const char *simd) {
    throng_world *w = degenerate_world(2, false, 0.0f, 2.0f);
    if (!w)
        return 0;
    if (world_select_kernel(w, simd) != 0) {
        throng_world_destroy(w);
        return 1; /* this CPU or build lacks the path */
    }
    throng_group g =
        degenerate_flock_group(w, 1, THRONG_SEPARATION_FLEE_AVERAGE);
    const float first[3][3] = { { 1.0f, 0.0f, 0.0f },
                                { -1.0f, 0.0f, 0.0f },
                                { 1.0f, 0.0f, 0.0f } };
    const float then[3][3] = { { 1.0f, 0.0f, 0.0f },
                               { 0.0f, 0.0f, 0.0f },
                               { 1.0f, 0.0f, 0.0f } };
    throng_agent h[3];
    int ok = g.generation != 0u;
    for (int i = 0; ok && i < 3; i++) {
        throng_agent_def a = throng_agent_def_default();
        memcpy(a.position, first[i], sizeof a.position);
        a.group = g;
        ok = throng_agent_add(w, &a, &h[i]) == THRONG_OK;
    }
    ok = ok && throng_world_step(w, 0.1f) == THRONG_OK;
    for (int i = 0; ok && i < 3; i++)
        ok = throng_agent_set_position(w, h[i], then[i]) == THRONG_OK;
    for (int s = 0; ok && s < 3; s++)
        ok = throng_world_step(w, 0.1f) == THRONG_OK;
    const uint64_t hash = ok ? throng_world_hash(w) : 0;
    throng_world_destroy(w);
    return hash;
}

static uint64_t cap_on_slot_zero_run(const void *cfg, const char *simd) {
    (void)cfg;
    return cap_on_slot_zero_hash(simd);
}

TEST(degenerate_cap_nearest_on_slot_zero) {
    runner_paths_match_scalar(__FILE__, __LINE__, "cap 1 on slot 0",
                              cap_on_slot_zero_run, NULL);
}

TEST(degenerate_cap_refused_above_limit) {
    throng_world *w = degenerate_world(2, false, 0.0f, 1.0f);
    REQUIRE(w != NULL);
    uint64_t before = throng_world_hash(w);
    throng_group_def g = throng_group_def_default();
    g.flocking.max_neighbours = THRONG_MAX_NEIGHBOUR_CAP + 1u;
    throng_group id = THRONG_NULL_GROUP;
    CHECK_STATUS(throng_group_create(w, &g, &id), THRONG_ERR_OUT_OF_RANGE);
    CHECK(strstr(throng_world_last_error(w), "max_neighbours") != NULL);
    throng_flocking f = throng_flocking_default();
    f.max_neighbours = UINT32_MAX;
    CHECK_STATUS(throng_group_set_flocking(w, default_group(w), &f),
                 THRONG_ERR_OUT_OF_RANGE);
    CHECK_EQ_U64(throng_world_hash(w), before);
    throng_flocking got;
    REQUIRE_OK(throng_group_get_flocking(w, default_group(w), &got));
    CHECK_EQ_U64(got.max_neighbours, 0u);
    throng_world_destroy(w);
}

/* ------------------------------------------------------------------------ */
/* Crowds in one spot                                                       */
/* ------------------------------------------------------------------------ */

/* n agents at one point (spread 0) or inside one cell, every rule on,
 * stepped; the counts of candidates are returned through *candidates. */
static void one_spot(int dims, uint32_t n, float spread, uint32_t cap,
                     throng_separation_mode mode, uint64_t *candidates) {
    throng_world *w = degenerate_world(dims, false, 0.0f, 1.0f);
    REQUIRE(w != NULL);
    throng_group gid = degenerate_flock_group(w, cap, mode);
    REQUIRE(gid.generation != 0u);
    test_rng rng = test_rng_make(n);
    for (uint32_t i = 0; i < n; i++) {
        throng_agent_def a = throng_agent_def_default();
        for (int k = 0; k < dims; k++)
            a.position[k] = 5.25f + test_rng_range(&rng, 0.0f, spread);
        a.group = gid;
        throng_agent h;
        REQUIRE_OK(throng_agent_add(w, &a, &h));
    }
    *candidates = 0;
    for (int s = 0; s < 20; s++) {
        REQUIRE_OK(throng_world_step(w, 1.0f / 30.0f));
        throng_step_stats st;
        REQUIRE_OK(throng_world_stats(w, &st));
        *candidates += st.candidates;
    }
    uint32_t bad = degenerate_violations(w);
    if (bad)
        runner_fail(__FILE__, __LINE__,
                    "%dD, %u agents in a spot of %g m, cap %u, mode %d: %u "
                    "agents not finite or too fast",
                    dims, n, (double)spread, cap, (int)mode, bad);
    /* Coincident agents separate: after 20 steps they are not all at one
     * point any more. */
    throng_columns c;
    REQUIRE_OK(throng_world_columns(w, &c));
    float lo = c.px[0], hi = c.px[0];
    for (uint32_t r = 0; r < c.count; r++) {
        lo = c.px[r] < lo ? c.px[r] : lo;
        hi = c.px[r] > hi ? c.px[r] : hi;
    }
    if (n > 1)
        CHECK(hi > lo);
    throng_world_destroy(w);
}

TEST(degenerate_all_at_one_point) {
    uint64_t cand = 0;
    for (int dims = 2; dims <= 3; dims++) {
        one_spot(dims, 2000, 0.0f, 0, THRONG_SEPARATION_FLEE_AVERAGE, &cand);
        one_spot(dims, 2000, 0.0f, 0, THRONG_SEPARATION_INVERSE_DISTANCE,
                 &cand);
        one_spot(dims, 2000, 0.0f, 16, THRONG_SEPARATION_INVERSE_DISTANCE,
                 &cand);
        one_spot(dims, 1, 0.0f, 16, THRONG_SEPARATION_FLEE_AVERAGE, &cand);
    }
}

TEST(degenerate_all_in_one_cell) {
    uint64_t cand = 0;
    for (int dims = 2; dims <= 3; dims++) {
        one_spot(dims, 3000, 0.5f, 0, THRONG_SEPARATION_FLEE_AVERAGE, &cand);
        /* Every agent checks every agent of the cell: n^2 per step. */
        CHECK(cand >= 20ull * 3000ull * 3000ull);
        one_spot(dims, 3000, 0.5f, 8, THRONG_SEPARATION_INVERSE_DISTANCE,
                 &cand);
    }
}

/* ------------------------------------------------------------------------ */
/* Far away, huge, none, one                                                */
/* ------------------------------------------------------------------------ */

/* Positions given far outside a periodic box are wrapped in, however far. */
TEST(degenerate_far_outside_periodic_box) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *w = degenerate_world(dims, true, 20.0f, 1.0f);
        REQUIRE(w != NULL);
        throng_group gid =
            degenerate_flock_group(w, 0, THRONG_SEPARATION_FLEE_AVERAGE);
        const float far[] = { 1e6f,   -1e6f,  3e38f,   -3e38f,    20.0f,
                              -20.0f, 1e-30f, -1e-30f, 123456.7f, -0.0f };
        const int n = (int)(sizeof far / sizeof far[0]);
        throng_agent h[10];
        for (int i = 0; i < n; i++) {
            throng_agent_def a = throng_agent_def_default();
            a.position[0] = far[i];
            a.position[1] = far[(i + 3) % n];
            a.position[2] = far[(i + 7) % n];
            a.velocity[0] = 0.5f;
            a.group = gid;
            REQUIRE_OK(throng_agent_add(w, &a, &h[i]));
        }
        float p[3];
        REQUIRE_OK(throng_agent_set_position(
            w, h[0], (float[3]){ -7e37f, 9e9f, -1.0f }));
        for (int s = 0; s < 100; s++)
            REQUIRE_OK(throng_world_step(w, 1.0f / 30.0f));
        CHECK_EQ_INT((int)degenerate_violations(w), 0);
        for (int i = 0; i < n; i++) {
            REQUIRE_OK(throng_agent_get_position(w, h[i], p));
            for (int k = 0; k < dims; k++)
                if (!(p[k] >= 0.0f && p[k] < 20.0f))
                    runner_fail(__FILE__, __LINE__,
                                "%dD agent %d axis %d at %g, outside [0, 20)",
                                dims, i, k, (double)p[k]);
        }
        throng_world_destroy(w);
    }
}

/* Unbounded worlds near the float limits: agents at +-3e38 and at 1e30,
 * moving at their top speed outwards, flocking with each other. Nothing
 * may become infinite or NaN. */
TEST(degenerate_near_float_limits) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *w = degenerate_world(dims, false, 0.0f, 1.0f);
        REQUIRE(w != NULL);
        throng_group gid =
            degenerate_flock_group(w, 0, THRONG_SEPARATION_INVERSE_DISTANCE);
        const float spots[] = { FLT_MAX, -FLT_MAX, 3e38f,       -3e38f,
                                1e30f,   -1e30f,   16777216.0f, 0.0f };
        throng_agent h[32];
        int n = 0;
        for (size_t i = 0; i < sizeof spots / sizeof spots[0]; i++)
            for (int twin = 0; twin < 4; twin++) {
                throng_agent_def a = throng_agent_def_default();
                for (int k = 0; k < dims; k++)
                    a.position[k] = spots[(i + (size_t)k) % 8];
                a.velocity[0] = spots[i] >= 0.0f ? 1.0f : -1.0f;
                a.max_speed = 1e30f;
                a.max_force = 1e30f;
                a.group = gid;
                REQUIRE_OK(throng_agent_add(w, &a, &h[n++]));
            }
        for (int s = 0; s < 200; s++)
            REQUIRE_OK(throng_world_step(w, 0.1f));
        CHECK_EQ_INT((int)degenerate_violations(w), 0);
        throng_agent found[8];
        uint32_t hits = 0;
        bool truncated = false;
        CHECK_OK(throng_world_query_radius(w, (float[3]){ 3e38f, 3e38f, 3e38f },
                                           1.0f, found, 8, &hits, &truncated));
        throng_world_destroy(w);
    }
}

/* The same edge on every kernel path: rows at +-FLT_MAX stay there (the
 * vector integration once wrapped an unbounded FLT_MAX to 0, as if the
 * world were a box of that size), and each path ends in the scalar path's
 * state. */
TEST(degenerate_float_limits_every_path) {
    const char *paths[] = {
        "scalar", "sse2", "avx2", "avx512", "neon", "wasm"
    };
    for (int dims = 2; dims <= 3; dims++) {
        uint64_t want = 0;
        for (int p = 0; p < (int)(sizeof paths / sizeof paths[0]); p++) {
            throng_world *w = degenerate_world(dims, false, 0.0f, 1.0f);
            REQUIRE(w != NULL);
            if (world_select_kernel(w, paths[p]) != 0) {
                throng_world_destroy(w);
                continue; /* not on this machine or build */
            }
            throng_group gid =
                degenerate_flock_group(w, 0, THRONG_SEPARATION_FLEE_AVERAGE);
            throng_agent h[48];
            for (int i = 0; i < 48; i++) {
                throng_agent_def a = throng_agent_def_default();
                a.position[0] = i % 2 ? FLT_MAX : -FLT_MAX;
                int pair = i / 2; /* both signs on each line */
                a.position[1] = (float)pair * 3.0f;
                a.velocity[0] = i % 3 == 0 ? 0.0f : (i % 2 ? 1.0f : -1.0f);
                a.group = i % 4 ? gid : THRONG_NULL_GROUP;
                REQUIRE_OK(throng_agent_add(w, &a, &h[i]));
            }
            for (int s = 0; s < 20; s++)
                REQUIRE_OK(throng_world_step(w, 0.1f));
            for (int i = 0; i < 48; i++) {
                float q[3];
                REQUIRE_OK(throng_agent_get_position(w, h[i], q));
                if (fabsf(q[0]) != FLT_MAX) {
                    runner_fail(__FILE__, __LINE__,
                                "%dD %s: agent %d left %s FLT_MAX for x = %g",
                                dims, paths[p], i, i % 2 ? "+" : "-",
                                (double)q[0]);
                    break;
                }
            }
            uint64_t hash = throng_world_hash(w);
            if (p == 0)
                want = hash;
            else
                CHECK(hash == want);
            throng_world_destroy(w);
        }
    }
}

TEST(degenerate_empty_and_single) {
    for (int dims = 2; dims <= 3; dims++)
        for (int p = 0; p < 2; p++) {
            throng_world *w = degenerate_world(dims, p == 1, 10.0f, 1.0f);
            REQUIRE(w != NULL);
            throng_group gid = degenerate_flock_group(
                w, 5, THRONG_SEPARATION_INVERSE_DISTANCE);
            for (int s = 0; s < 10; s++)
                REQUIRE_OK(throng_world_step(w, 0.05f));
            CHECK_EQ_U64(throng_world_agent_count(w), 0u);
            throng_agent_def a = throng_agent_def_default();
            a.velocity[0] = 0.7f;
            a.group = gid;
            throng_agent h;
            REQUIRE_OK(throng_agent_add(w, &a, &h));
            for (int s = 0; s < 10; s++)
                REQUIRE_OK(throng_world_step(w, 0.05f));
            CHECK_EQ_INT((int)degenerate_violations(w), 0);
            REQUIRE_OK(throng_agent_remove(w, h));
            REQUIRE_OK(throng_world_step(w, 0.05f));
            CHECK_EQ_U64(throng_world_agent_count(w), 0u);
            throng_world_destroy(w);
        }
}

/* A million agents added, stepped, all removed, added again: the counts,
 * handles and host keys stay right and the world does not grow. */
TEST(degenerate_million_removed_and_readded) {
    enum {
        M = 1000000
    };
    throng_world *w = degenerate_world(2, true, 2000.0f, 1.0f);
    REQUIRE(w != NULL);
    throng_agent *h = malloc((size_t)M * sizeof *h);
    REQUIRE(h != NULL);
    size_t bytes_first = 0;
    for (int round = 0; round < 2; round++) {
        test_rng rng = test_rng_make(5u + (uint64_t)round);
        for (uint32_t i = 0; i < M; i++) {
            throng_agent_def a = throng_agent_def_default();
            a.position[0] = test_rng_range(&rng, 0.0f, 2000.0f);
            a.position[1] = test_rng_range(&rng, 0.0f, 2000.0f);
            a.host_key = 1u + i + (uint64_t)round * M;
            if (throng_agent_add(w, &a, &h[i]) != THRONG_OK) {
                runner_fail(__FILE__, __LINE__, "add %u failed: %s", i,
                            throng_world_last_error(w));
                free(h);
                throng_world_destroy(w);
                return;
            }
        }
        CHECK_EQ_U64(throng_world_agent_count(w), (uint64_t)M);
        REQUIRE_OK(throng_world_step(w, 1.0f / 30.0f));
        if (round == 0)
            bytes_first = throng_world_bytes(w);
        else /* no growth (the host-key table may rebuild smaller) */
            CHECK(throng_world_bytes(w) <= bytes_first);
        throng_agent found;
        CHECK_OK(
            throng_agent_find(w, 1u + 777777u + (uint64_t)round * M, &found));
        CHECK(found.slot == h[777777].slot &&
              found.generation == h[777777].generation);
        /* Removed in a scrambled order: every other, then the rest. */
        for (uint32_t i = 0; i < M; i += 2)
            CHECK_OK(throng_agent_remove(w, h[i]));
        for (uint32_t i = 1; i < M; i += 2)
            CHECK_OK(throng_agent_remove(w, h[i]));
        CHECK_EQ_U64(throng_world_agent_count(w), 0u);
        CHECK(!throng_agent_valid(w, h[0]) && !throng_agent_valid(w, h[M - 1]));
        CHECK_STATUS(throng_agent_find(w, 1u + (uint64_t)round * M, &found),
                     THRONG_ERR_NOT_FOUND);
        REQUIRE_OK(throng_world_step(w, 1.0f / 30.0f));
    }
    free(h);
    throng_world_destroy(w);
}

/* ------------------------------------------------------------------------ */
/* Long and varying dt                                                      */
/* ------------------------------------------------------------------------ */

static throng_world *dt_world(uint64_t seed, float max_dt, uint32_t substeps) {
    throng_world_def d = throng_world_def_default();
    d.max_dt = max_dt;
    d.max_substeps = substeps;
    d.seed = seed;
    throng_world *w = NULL;
    if (throng_world_create(&d, &w) != THRONG_OK)
        return NULL;
    throng_group gid =
        degenerate_flock_group(w, 0, THRONG_SEPARATION_FLEE_AVERAGE);
    test_rng rng = test_rng_make(seed);
    for (int i = 0; i < 500; i++) {
        throng_agent_def a = throng_agent_def_default();
        a.position[0] = test_rng_range(&rng, -10.0f, 10.0f);
        a.position[1] = test_rng_range(&rng, -10.0f, 10.0f);
        a.velocity[0] = test_rng_range(&rng, -1.0f, 1.0f);
        a.group = gid;
        throng_agent h;
        if (throng_agent_add(w, &a, &h) != THRONG_OK) {
            throng_world_destroy(w);
            return NULL;
        }
    }
    return w;
}

/* A long step is the same, bit for bit, as the ticks it is split into. */
TEST(degenerate_dt_splits_into_equal_ticks) {
    throng_world *a = dt_world(3, 0.1f, 10);
    throng_world *b = dt_world(3, 0.1f, 10);
    REQUIRE(a != NULL && b != NULL);
    REQUIRE_OK(throng_world_step(a, 0.35f)); /* 4 ticks of 0.0875 */
    throng_step_stats st;
    REQUIRE_OK(throng_world_stats(a, &st));
    CHECK_EQ_U64(st.ticks, 4u);
    CHECK_NEAR(st.simulated_seconds, 0.35, 1e-6);
    for (int k = 0; k < 4; k++)
        REQUIRE_OK(throng_world_step(b, (float)(0.35 / 4.0)));
    CHECK_EQ_U64(throng_world_step_count(a), 4u);
    CHECK_EQ_U64(throng_world_hash(a), throng_world_hash(b));
    /* A step within max_dt is one tick of exactly dt. */
    REQUIRE_OK(throng_world_step(a, 0.1f));
    REQUIRE_OK(throng_world_stats(a, &st));
    CHECK_EQ_U64(st.ticks, 1u);
    CHECK(st.simulated_seconds == (double)0.1f);
    throng_world_destroy(a);
    throng_world_destroy(b);
}

/* A huge dt is clamped to max_dt * max_substeps: no agent moves further
 * than its top speed allows in that time, and nothing scatters. */
TEST(degenerate_huge_dt_clamped) {
    const float huge[] = { 5.0f, 1e4f, 1e30f, FLT_MAX };
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        throng_world *w = dt_world(7, 0.05f, 4);
        REQUIRE(w != NULL);
        throng_columns c;
        REQUIRE_OK(throng_world_columns(w, &c));
        enum {
            N = 500
        };
        static float x0[N], y0[N];
        static throng_agent hs[N];
        for (uint32_t r = 0; r < c.count; r++) {
            REQUIRE_OK(throng_agent_at(w, r, &hs[r]));
            x0[r] = c.px[r];
            y0[r] = c.py[r];
        }
        REQUIRE_OK(throng_world_step(w, huge[i]));
        throng_step_stats st;
        REQUIRE_OK(throng_world_stats(w, &st));
        CHECK_EQ_U64(st.ticks, 4u);
        CHECK_NEAR(st.simulated_seconds, 0.2, 1e-6);
        CHECK_EQ_INT((int)degenerate_violations(w), 0);
        double worst = 0.0;
        for (uint32_t r = 0; r < N; r++) {
            float p[3];
            REQUIRE_OK(throng_agent_get_position(w, hs[r], p));
            double d = hypot((double)p[0] - (double)x0[r],
                             (double)p[1] - (double)y0[r]);
            worst = d > worst ? d : worst;
        }
        /* Top speed 1 m/s (the default) for 0.2 s. */
        CHECK(worst <= 0.2 * (1.0 + 1e-5));
        throng_world_destroy(w);
    }
}

/* dt drawn log-uniformly from 1 ms to 1 s (three orders of magnitude),
 * with obstacles, arrive and flocking: every value stays finite, speeds
 * within limits, no agent centre inside an obstacle, and the crowd stays
 * near its goal rather than scattering. */
TEST(degenerate_dt_varying) {
    throng_world_def d = throng_world_def_default();
    throng_world *w = NULL;
    REQUIRE_OK(throng_world_create(&d, &w));
    throng_group_def g = throng_group_def_default();
    g.flocking.separation_weight = 1.0f;
    g.combine = THRONG_COMBINE_PRIORITY;
    throng_group gid = THRONG_NULL_GROUP;
    REQUIRE_OK(throng_group_create(w, &g, &gid));
    throng_behaviour arrive = throng_behaviour_default(THRONG_BEHAVIOUR_ARRIVE);
    arrive.u.seek.source = THRONG_TARGET_FIXED_POINT;
    arrive.u.seek.point[0] = 0.0f;
    arrive.u.seek.point[1] = 0.0f;
    arrive.priority = 1;
    throng_behaviour avoid =
        throng_behaviour_default(THRONG_BEHAVIOUR_AVOID_OBSTACLES);
    avoid.priority = 2;
    avoid.weight = 2.0f;
    REQUIRE_OK(throng_group_add_behaviour(w, gid, &avoid, NULL));
    REQUIRE_OK(throng_group_add_behaviour(w, gid, &arrive, NULL));
    const float ob[][3] = {
        { 3, 0, 0 }, { -3, 2, 0 }, { 0, -4, 0 }, { 6, 6, 0 }
    };
    for (int i = 0; i < 4; i++) {
        throng_object o;
        REQUIRE_OK(add_sphere(w, ob[i], 1.0f, &o));
    }
    test_rng rng = test_rng_make(17);
    for (int i = 0; i < 300; i++) {
        throng_agent_def a = throng_agent_def_default();
        float ang = test_rng_range(&rng, 0.0f, TEST_TWO_PI);
        float rad = test_rng_range(&rng, 12.0f, 20.0f);
        a.position[0] = rad * cosf(ang);
        a.position[1] = rad * sinf(ang);
        a.radius = 0.1f;
        a.group = gid;
        throng_agent h;
        REQUIRE_OK(throng_agent_add(w, &a, &h));
    }
    uint32_t inside = 0;
    double simulated = 0.0;
    for (int s = 0; s < 600; s++) {
        float dt = 1e-3f * powf(1000.0f, test_rng_unit(&rng));
        REQUIRE_OK(throng_world_step(w, dt));
        throng_step_stats st;
        REQUIRE_OK(throng_world_stats(w, &st));
        simulated += st.simulated_seconds;
        throng_columns c;
        REQUIRE_OK(throng_world_columns(w, &c));
        for (uint32_t r = 0; r < c.count; r++)
            for (int i = 0; i < 4; i++)
                inside += hypotf(c.px[r] - ob[i][0], c.py[r] - ob[i][1]) < 1.0f;
    }
    CHECK_EQ_INT((int)degenerate_violations(w), 0);
    CHECK_EQ_INT((int)inside, 0);
    CHECK(simulated > 50.0);
    /* Everyone has arrived near the goal, none flung away. */
    throng_columns c;
    REQUIRE_OK(throng_world_columns(w, &c));
    double far = 0.0;
    for (uint32_t r = 0; r < c.count; r++) {
        double dist = hypot((double)c.px[r], (double)c.py[r]);
        far = dist > far ? dist : far;
    }
    CHECK(far < 8.0);
    throng_world_destroy(w);
}

TEST(degenerate_step_limits_refused) {
    throng_world *w = degenerate_world(2, false, 0.0f, 1.0f);
    REQUIRE(w != NULL);
    uint64_t before = throng_world_hash(w);
    CHECK_STATUS(throng_world_set_step_limits(w, NAN, 10),
                 THRONG_ERR_NOT_FINITE);
    CHECK_STATUS(throng_world_set_step_limits(w, INFINITY, 10),
                 THRONG_ERR_NOT_FINITE);
    CHECK_STATUS(throng_world_set_step_limits(w, 0.0f, 10),
                 THRONG_ERR_OUT_OF_RANGE);
    CHECK_STATUS(throng_world_set_step_limits(w, -1.0f, 10),
                 THRONG_ERR_OUT_OF_RANGE);
    CHECK_STATUS(throng_world_set_step_limits(w, 11.0f, 10),
                 THRONG_ERR_OUT_OF_RANGE);
    CHECK_STATUS(throng_world_set_step_limits(w, 0.1f, 0),
                 THRONG_ERR_OUT_OF_RANGE);
    CHECK_STATUS(throng_world_set_step_limits(w, 0.1f, 1001),
                 THRONG_ERR_OUT_OF_RANGE);
    CHECK(strstr(throng_world_last_error(w), "throng_world_set_step_limits") !=
          NULL);
    CHECK_STATUS(throng_world_set_step_limits(NULL, 0.1f, 1), THRONG_ERR_NULL);
    CHECK_EQ_U64(throng_world_hash(w), before);
    CHECK_OK(throng_world_set_step_limits(w, 10.0f, 1000));
    throng_world_destroy(w);

    throng_world_def d = throng_world_def_default();
    d.max_dt = NAN;
    throng_world *none = (throng_world *)&d;
    CHECK_STATUS(throng_world_create(&d, &none), THRONG_ERR_NOT_FINITE);
    CHECK(none == NULL);
    d.max_dt = 0.1f;
    d.max_substeps = 0;
    CHECK_STATUS(throng_world_create(&d, &none), THRONG_ERR_OUT_OF_RANGE);
}

void register_degenerate_tests(void) {
    REGISTER(degenerate_cap_matches_brute_force);
    REGISTER(degenerate_cap_deterministic);
    REGISTER(degenerate_cap_lanes_match_scalar);
    REGISTER(degenerate_cap_nearest_on_slot_zero);
    REGISTER(degenerate_cap_refused_above_limit);
    REGISTER(degenerate_all_at_one_point);
    REGISTER(degenerate_all_in_one_cell);
    REGISTER(degenerate_far_outside_periodic_box);
    REGISTER(degenerate_near_float_limits);
    REGISTER(degenerate_float_limits_every_path);
    REGISTER(degenerate_empty_and_single);
    REGISTER(degenerate_million_removed_and_readded);
    REGISTER(degenerate_dt_splits_into_equal_ticks);
    REGISTER(degenerate_huge_dt_clamped);
    REGISTER(degenerate_dt_varying);
    REGISTER(degenerate_step_limits_refused);
}
