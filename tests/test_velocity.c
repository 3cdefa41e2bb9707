/* SPDX-License-Identifier: MIT */
/*
 * The velocity stage (velocity.c) through the public API: a group in ORCA
 * mode with nobody near moves exactly as plain integration moves it; two
 * agents head-on, crossing, or one that never yields, pass without
 * touching and reach their goals; a ring of agents swapping places keeps
 * every pair apart; the result is the same bits on every thread count and
 * kernel path, the neighbour scan's unusual crowds included; snapshots
 * keep the settings and the continuation; bad
 * settings are refused with the world unchanged.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "object_defs.h"
#include "runner.h"

#include "internal.h"
#include "kernel_paths.h"
#include "orca_static.h"
#include "steer_flock.h"

#define VEL_DT 0.1f

/* A world whose neighbour radius, and so ORCA's range, is 3 m: agents of
 * radius 0.25 to 0.3 at 1 m/s see each other about 2.5 s ahead. */
static throng_world *vel_world(int dims, int threads) {
    throng_world_def def = ts_world_def(dims, threads, NULL);
    def.neighbour_radius = 3.0f;
    return ts_world_make(&def);
}

/* A group seeking each agent's own target point at full speed, in the
 * given avoidance mode. */
static throng_group vel_group(throng_world *w, throng_avoidance_mode mode,
                              float responsibility) {
    throng_group_def gd = throng_group_def_default();
    gd.avoidance.mode = mode;
    gd.avoidance.time_horizon = 2.0f;
    gd.avoidance.responsibility = responsibility;
    throng_group g = THRONG_NULL_GROUP;
    if (throng_group_create(w, &gd, &g) != THRONG_OK)
        return THRONG_NULL_GROUP;
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_ARRIVE);
    b.u.seek.braking_distance = 1.0f;
    if (throng_group_add_behaviour(w, g, &b, NULL) != THRONG_OK)
        return THRONG_NULL_GROUP;
    return g;
}

static throng_agent vel_agent(throng_world *w, throng_group g, const float p[3],
                              const float goal[3], float radius) {
    throng_agent_def d = throng_agent_def_default();
    memcpy(d.position, p, sizeof d.position);
    d.radius = radius;
    d.max_speed = 1.0f;
    d.max_force = 20.0f;
    d.group = g;
    throng_agent a = { 0 };
    if (throng_agent_add(w, &d, &a) != THRONG_OK)
        return a;
    (void)throng_agent_set_target_point(w, a, goal);
    return a;
}

static float vel_dist(const float a[3], const float b[3]) {
    const float d[3] = { a[0] - b[0], a[1] - b[1], a[2] - b[2] };
    return sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* Steps a world of n agents until each is within `near` of its goal or
 * `steps` pass; the closest any two came, relative to the sum of their
 * radii, and the step all had arrived (0: never). */
typedef struct vel_run {
    float closest; /* min over steps and pairs of distance / (r_i + r_j) */
    int arrived_at;
} vel_run;

static vel_run vel_until_arrived(throng_world *w, const throng_agent *a,
                                 float (*goal)[3], const float *radius, int n,
                                 int steps, float near) {
    vel_run out = { INFINITY, 0 };
    for (int s = 1; s <= steps; s++) {
        if (throng_world_step(w, VEL_DT) != THRONG_OK) {
            runner_fail(__FILE__, __LINE__, "step %d refused: %s", s,
                        throng_world_last_error(w));
            return out;
        }
        float p[64][3];
        int all = 1;
        for (int i = 0; i < n; i++) {
            (void)throng_agent_get_position(w, a[i], p[i]);
            all &= vel_dist(p[i], goal[i]) <= near;
        }
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) {
                const float q = vel_dist(p[i], p[j]) / (radius[i] + radius[j]);
                out.closest = q < out.closest ? q : out.closest;
            }
        if (all) {
            out.arrived_at = s;
            return out;
        }
    }
    return out;
}

/* Two agents exactly head-on, the symmetric case where ORCA alone may
 * hold both still; in 2D and 3D, reciprocal or one never yielding. */
TEST(velocity_head_on) {
    for (int dims = 2; dims <= 3; dims++)
        for (int never = 0; never <= 1; never++) {
            throng_world *w = vel_world(dims, 1);
            REQUIRE(w != NULL);
            throng_group g = vel_group(w, THRONG_AVOIDANCE_ORCA, 0.5f);
            throng_group stubborn =
                never ? vel_group(w, THRONG_AVOIDANCE_ORCA, 0.0f) : g;
            throng_group yielding =
                never ? vel_group(w, THRONG_AVOIDANCE_ORCA, 1.0f) : g;
            const float p0[3] = { -5.0f, 0.0f, 0.0f },
                        p1[3] = { 5.0f, 0.0f, 0.0f };
            float goal[2][3] = { { 5.0f, 0.0f, 0.0f }, { -5.0f, 0.0f, 0.0f } };
            const float radius[2] = { 0.25f, 0.25f };
            throng_agent a[2] = { vel_agent(w, stubborn, p0, goal[0], 0.25f),
                                  vel_agent(w, yielding, p1, goal[1], 0.25f) };
            const vel_run r =
                vel_until_arrived(w, a, goal, radius, 2, 400, 0.05f);
            if (!(r.closest >= 0.99f) || r.arrived_at == 0)
                runner_fail(__FILE__, __LINE__,
                            "%dD head-on%s: closest %.4f of the radii, "
                            "arrived at step %d",
                            dims, never ? " (one never yields)" : "",
                            (double)r.closest, r.arrived_at);
            throng_world_destroy(w);
        }
}

/* A ring of 16 agents, each heading for the opposite point. */
TEST(velocity_ring_swap) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *w = vel_world(dims, 2);
        REQUIRE(w != NULL);
        throng_group g = vel_group(w, THRONG_AVOIDANCE_ORCA, 0.5f);
        enum {
            N = 16
        };
        throng_agent a[N];
        float goal[N][3], radius[N];
        for (int i = 0; i < N; i++) {
            const double t = 6.283185307179586 * (double)i / N;
            const float p[3] = { (float)(4.0 * cos(t)), (float)(4.0 * sin(t)),
                                 0.0f };
            goal[i][0] = -p[0];
            goal[i][1] = -p[1];
            goal[i][2] = 0.0f;
            radius[i] = 0.3f;
            a[i] = vel_agent(w, g, p, goal[i], radius[i]);
        }
        const vel_run r = vel_until_arrived(w, a, goal, radius, N, 2000, 0.1f);
        if (!(r.closest >= 0.99f) || r.arrived_at == 0)
            runner_fail(__FILE__, __LINE__,
                        "%dD ring: closest %.4f of the radii, arrived at "
                        "step %d",
                        dims, (double)r.closest, r.arrived_at);
        throng_world_destroy(w);
    }
}

/* A crowd of 2D or 3D agents in two groups: one in `mode` with a seek
 * and a wander, the other plain; positions on a jittered lattice of
 * `pitch` metres (with pitch above the range, nobody has a neighbour;
 * packed, with a sphere and a box among them). */
typedef struct vel_crowd {
    int dims;
    throng_avoidance_mode mode;
    float pitch;
    int threads;
    int limits; /* a turn limit and a least speed too */
    /* Some rows the vector halves of the integration leave to the scalar
     * rows: limits whose squares are subnormal (1e-20) and a max speed
     * whose moving agents are too slow to square (1e-16). */
    int awkward;
} vel_crowd;

static throng_world *vel_crowd_make(const vel_crowd *cfg, const char *path) {
    throng_world *w = runner_on_path(vel_world(cfg->dims, cfg->threads), path);
    if (!w)
        return NULL;
    throng_group g = vel_group(w, cfg->mode, 0.5f);
    throng_wander wd = throng_group_def_default().wander;
    wd.weight = 0.3f;
    throng_motion m = throng_group_def_default().motion;
    if (cfg->limits) {
        m.max_turn_rate = 2.0f;
        m.min_speed = 0.1f;
    }
    if (throng_group_set_wander(w, g, &wd) != THRONG_OK ||
        throng_group_set_motion(w, g, &m) != THRONG_OK) {
        throng_world_destroy(w);
        return NULL;
    }
    if (cfg->pitch < 1.0f) {
        /* Obstacles in the packed crowd: a sphere and a box. */
        const float c[3] = { 5.0f, 5.0f, 2.0f };
        const float lo[3] = { 9.0f, 2.0f, 0.0f }, hi[3] = { 10.0f, 8.0f, 3.0f };
        throng_object o;
        if (add_sphere(w, c, 1.0f, &o) != THRONG_OK ||
            add_box(w, lo, hi, &o) != THRONG_OK) {
            throng_world_destroy(w);
            return NULL;
        }
    }
    test_rng rng = test_rng_make(41u + (uint64_t)cfg->dims);
    for (int i = 0; i < 300; i++) {
        const int per = cfg->dims == 2 ? 20 : 7;
        const int layer = i / (per * per); /* whole layers below */
        float p[3] = { (float)(i % per) * cfg->pitch,
                       (float)((i / per) % per) * cfg->pitch,
                       cfg->dims == 3 ? (float)layer * cfg->pitch : 0.0f };
        float goal[3] = { test_rng_range(&rng, 0.0f, 20.0f * cfg->pitch),
                          test_rng_range(&rng, 0.0f, 20.0f * cfg->pitch),
                          0.0f };
        for (int k = 0; k < cfg->dims; k++)
            p[k] += test_rng_range(&rng, -0.1f, 0.1f);
        if (cfg->dims == 3)
            goal[2] = test_rng_range(&rng, 0.0f, 7.0f * cfg->pitch);
        throng_agent a = vel_agent(w, i % 5 == 4 ? THRONG_NULL_GROUP : g, p,
                                   goal, 0.2f + 0.05f * (float)(i % 3));
        if (cfg->awkward && i % 7 == 3)
            (void)throng_agent_set_max_speed(w, a, 1e-20f);
        if (cfg->awkward && i % 11 == 5)
            (void)throng_agent_set_max_speed(w, a, 1e-16f);
        if (cfg->awkward && i % 13 == 6)
            (void)throng_agent_set_max_force(w, a, 1e-20f);
    }
    return w;
}

static uint64_t vel_crowd_run(const void *cfg, const char *path) {
    return runner_steps_hash(vel_crowd_make(cfg, path), path, 40, VEL_DT);
}

/* With nobody within range, ORCA is no constraint at all: the two halves
 * of the integration around the stage move every agent exactly as the
 * whole integration (vector or scalar) does. */
TEST(velocity_alone_is_integration) {
    for (int dims = 2; dims <= 3; dims++) {
        vel_crowd none = { dims, THRONG_AVOIDANCE_NONE, 30.0f, 1, 0, 0 };
        vel_crowd orca = { dims, THRONG_AVOIDANCE_ORCA, 30.0f, 1, 0, 0 };
        const uint64_t a = vel_crowd_run(&none, NULL);
        const uint64_t b = vel_crowd_run(&orca, NULL);
        CHECK(a != 0u && b != 0u);
        if (a != b)
            runner_fail(__FILE__, __LINE__, "%dD: %llx vs %llx", dims,
                        (unsigned long long)a, (unsigned long long)b);
        /* Packed, the stage does change the motion. */
        none.pitch = orca.pitch = 0.7f;
        CHECK(vel_crowd_run(&none, NULL) != vel_crowd_run(&orca, NULL));
    }
}

/* A packed crowd, in the plane without and with vehicle limits (the
 * lanes put a row that keeps its preferred velocity only when its group
 * limits it) and in space with them: the same bits on 1, 2, 3 and 4
 * threads and on every kernel path. */
TEST(velocity_threads_and_paths) {
    for (int run = 0; run < 3; run++) {
        const int dims = run < 2 ? 2 : 3;
        vel_crowd cfg = { dims, THRONG_AVOIDANCE_ORCA, 0.7f, 1, run > 0, 0 };
        const uint64_t one = vel_crowd_run(&cfg, NULL);
        CHECK(one != 0u);
        for (int threads = 2; threads <= 4; threads++) {
            cfg.threads = threads;
            CHECK_EQ_U64(vel_crowd_run(&cfg, NULL), one);
        }
        cfg.threads = 2;
        char what[64];
        snprintf(what, sizeof what, "%dD ORCA crowd%s", dims,
                 cfg.limits ? ", limits" : "");
        runner_paths_match_scalar(__FILE__, __LINE__, what, vel_crowd_run,
                                  &cfg);
        cfg.awkward = 1;
        snprintf(what, sizeof what, "%dD ORCA crowd%s, awkward limits", dims,
                 cfg.limits ? ", limits" : "");
        runner_paths_match_scalar(__FILE__, __LINE__, what, vel_crowd_run,
                                  &cfg);
    }
}

/* Crowds that take the neighbour scan off its common case: an exact
 * lattice (equal distances straddle the nearest-`most` cut, so counting
 * cannot place them), a knot of 300 in one cell with agents standing on
 * each other (more candidates than the scan holds at once, distance 0),
 * and a periodic box three cells wide (a block's ranges see their rows
 * through different shifts); `most` also at the largest the lanes' scan
 * serves and one above. A sparse crowd (about 19 candidates a block, so many
 * hold 16 or fewer) takes the unranked gather (lanes_take_unranked()) on
 * the vector paths: with two nearest, most such rows have more in range
 * and are placed and cut at once; with ten, the lanes keep them in the
 * order found and the flush orders the lines of the lanes that solve
 * (some 2,000 lanes of each run). */
typedef struct vel_scan {
    int dims;
    int kind; /* 0 lattice, 1 knot, 2 periodic, 3 sparse */
    uint32_t most;
} vel_scan;

static uint64_t vel_scan_run(const void *cfg_, const char *path) {
    const vel_scan *cfg = cfg_;
    throng_world_def def = ts_world_def(cfg->dims, 1, NULL);
    def.neighbour_radius = 3.0f;
    if (cfg->kind == 2)
        ts_world_def_periodic(&def, 9.0f);
    throng_world *w = ts_world_make(&def);
    if (!w)
        return 0;
    if (world_select_kernel(w, path) != 0) {
        throng_world_destroy(w);
        return 1;
    }
    throng_group g = vel_group(w, THRONG_AVOIDANCE_ORCA, 0.5f);
    throng_avoidance av;
    if (throng_group_get_avoidance(w, g, &av) != THRONG_OK) {
        throng_world_destroy(w);
        return 0;
    }
    av.max_neighbours = cfg->most;
    if (throng_group_set_avoidance(w, g, &av) != THRONG_OK) {
        throng_world_destroy(w);
        return 0;
    }
    test_rng rng = test_rng_make(7u + (uint64_t)cfg->kind);
    const int per = cfg->dims == 2 ? 18 : 7;
    float p[3] = { 0.0f, 0.0f, 0.0f };
    /* The periodic box's 150 fit the scan's buffer: one pass measures
     * every range. */
    const int count = cfg->kind == 2 ? 150 : 300;
    for (int i = 0; i < count; i++) {
        if (cfg->kind == 0) {
            const int layer = i / (per * per);
            p[0] = 0.5f * (float)(i % per);
            p[1] = 0.5f * (float)((i / per) % per);
            p[2] = cfg->dims == 3 ? 0.5f * (float)layer : 0.0f;
        } else if (cfg->kind == 1 && i % 4 == 3) {
            /* On the agent before. */
        } else {
            const float edge = cfg->kind == 1   ? 1.0f
                               : cfg->kind == 3 ? 36.0f
                                                : 9.0f;
            for (int k = 0; k < cfg->dims; k++)
                p[k] = test_rng_range(&rng, 0.0f, edge);
        }
        float goal[3] = { 0.0f, 0.0f, 0.0f };
        for (int k = 0; k < cfg->dims; k++)
            goal[k] = test_rng_range(&rng, 0.0f, 6.0f);
        (void)vel_agent(w, g, p, goal, 0.2f);
    }
    for (int s = 0; s < 10; s++)
        if (throng_world_step(w, VEL_DT) != THRONG_OK) {
            throng_world_destroy(w);
            return 0;
        }
    const uint64_t h = throng_world_hash(w);
    throng_world_destroy(w);
    return h;
}

/* Each vector path's hold_rows() against the plain loop: the same
 * candidates (within the radius and the limit, not the agent's row), in the
 * same order, with the same squared distances' bits. Stretches of every
 * length up to 40 meet every mask of the lanes; lattice positions give
 * distances equal to the radius or the limit exactly. Its mask_rows()
 * over the first 0 to 64 rows gives the same rows as bits. */
#define HOLD_TEST_ROWS 256u
TEST(velocity_hold_rows_paths) {
    static const throng_simd paths[] = { THRONG_SIMD_SSE2, THRONG_SIMD_AVX2,
                                         THRONG_SIMD_AVX512, THRONG_SIMD_NEON,
                                         THRONG_SIMD_WASM };
    enum {
        COLUMN = HOLD_TEST_ROWS + FLOCK_ROWS_PAD
    };
    static float px[COLUMN], py[COLUMN], pz[COLUMN];
    static int32_t d2[COLUMN + FLOCK_HELD_SLACK];
    static uint32_t hrow[COLUMN + FLOCK_HELD_SLACK];
    test_rng rng = test_rng_make(11u);
    uint32_t paths_run = 0;
    for (size_t pi = 0; pi < sizeof paths / sizeof paths[0]; pi++) {
        if (!throng_simd_supported(paths[pi]))
            continue;
        throng_world *w = vel_world(2, 1);
        REQUIRE(w != NULL);
        if (world_use_simd(w, paths[pi]) != 0 || !w->hold_rows) {
            throng_world_destroy(w);
            continue;
        }
        paths_run++;
        uint32_t wrong = 0;
        for (int round = 0; round < 400; round++) {
            const int three = round % 2;
            const int lattice = round % 3 == 0;
            for (uint32_t j = 0; j < COLUMN; j++) {
                px[j] = lattice ? (float)test_rng_below(&rng, 5u)
                                : test_rng_range(&rng, -3.0f, 3.0f);
                py[j] = lattice ? (float)test_rng_below(&rng, 5u)
                                : test_rng_range(&rng, -3.0f, 3.0f);
                pz[j] = lattice ? (float)test_rng_below(&rng, 3u)
                                : test_rng_range(&rng, -3.0f, 3.0f);
            }
            flock_rows_query a = {
                .px = px,
                .py = py,
                .pz = pz,
                .q = { lattice ? 2.0f : 0.1f, lattice ? 2.0f : -0.2f,
                       three ? 1.0f : 0.0f },
                .R2 = lattice ? 4.0f : 6.0f,
                .limit = lattice ? (round % 4 ? 2.0f : 9.0f) : 2.5f,
                .self = (uint32_t)round % COLUMN, /* a row */
                .three = three
            };
            /* One to three stretches of random lengths up to 40. */
            uint32_t bounds[6], stretches = 1u + test_rng_below(&rng, 3u);
            uint32_t at = 0;
            for (uint32_t k = 0; k < stretches; k++) {
                const uint32_t len = (uint32_t)round % 41u;
                const uint32_t begin = at + test_rng_below(&rng, 8u);
                bounds[2 * k] = begin;
                bounds[2 * k + 1] = begin + (k == 0 ? len : len / (k + 1u));
                at = bounds[2 * k + 1];
            }
            const uint32_t first = test_rng_below(&rng, 4u);
            const flock_held held = { d2, hrow };
            const uint32_t m =
                w->hold_rows(&a, bounds, stretches, &held, first);
            uint32_t n = first;
            for (uint32_t k = 0; k < stretches; k++)
                for (uint32_t j = bounds[2 * k]; j < bounds[2 * k + 1]; j++) {
                    const float dx = px[j] - a.q[0], dy = py[j] - a.q[1];
                    float dd = dx * dx + dy * dy;
                    if (three) {
                        const float dz = pz[j] - a.q[2];
                        dd = dd + dz * dz;
                    }
                    if (!(dd <= a.R2) || !(dd <= a.limit) || j == a.self)
                        continue;
                    int32_t bits;
                    memcpy(&bits, &dd, sizeof bits);
                    wrong += n >= m || d2[n] != bits || hrow[n] != j;
                    n++;
                }
            wrong += n != m;
            /* mask_rows() over [0, span), span 0 to FLOCK_MASK_ROWS: the
             * bits of the same rows. */
            const uint32_t span = (uint32_t)round % (FLOCK_MASK_ROWS + 1u);
            uint64_t want = 0;
            for (uint32_t j = 0; j < span; j++) {
                const float dx = px[j] - a.q[0], dy = py[j] - a.q[1];
                float dd = dx * dx + dy * dy;
                if (three) {
                    const float dz = pz[j] - a.q[2];
                    dd = dd + dz * dz;
                }
                if (dd <= a.R2 && dd <= a.limit && j != a.self)
                    want |= (uint64_t)1 << j;
            }
            wrong += w->mask_rows == NULL || w->mask_rows(&a, span) != want;
        }
        CHECK_EQ_U64(wrong, 0u);
        throng_world_destroy(w);
    }
#if defined(THRONG_HAVE_SIMD_KERNELS)
    CHECK(paths_run > 0u);
#endif
}

TEST(velocity_scan_paths) {
    static const char *const kinds[] = { "lattice", "knot", "periodic",
                                         "sparse" };
    static const uint32_t mosts[] = { 2u, 10u, 64u, 65u };
    for (int dims = 2; dims <= 3; dims++)
        for (int kind = 0; kind < 4; kind++)
            for (size_t i = 0; i < sizeof mosts / sizeof mosts[0]; i++) {
                const vel_scan cfg = { dims, kind, mosts[i] };
                char what[64];
                snprintf(what, sizeof what, "%dD %s, %u nearest", dims,
                         kinds[kind], (unsigned)mosts[i]);
                runner_paths_match_scalar(__FILE__, __LINE__, what,
                                          vel_scan_run, &cfg);
            }
}

/* Whether two avoidances hold the same bits field by field (the struct
 * has padding after contact_velocity, which memcmp would read). */
static int avoidance_same(const throng_avoidance *a,
                          const throng_avoidance *b) {
#define AV_SAME(f) (memcmp(&a->f, &b->f, sizeof a->f) == 0)
    return AV_SAME(mode) && AV_SAME(range) && AV_SAME(max_neighbours) &&
           AV_SAME(time_horizon) && AV_SAME(obstacle_time_horizon) &&
           AV_SAME(responsibility) && AV_SAME(keep_right) &&
           AV_SAME(contact_iterations) && AV_SAME(contact_velocity) &&
           AV_SAME(nudge);
#undef AV_SAME
}

/* A snapshot keeps every group's avoidance, and the loaded world steps
 * on to the very bits of the one that saved. */
TEST(velocity_snapshot) {
    const vel_crowd cfg = { 2, THRONG_AVOIDANCE_ORCA, 0.7f, 2, 1, 0 };
    throng_world *w = vel_crowd_make(&cfg, NULL);
    REQUIRE(w != NULL);
    /* A nudge of its own, which the snapshot must carry (format 8). */
    throng_avoidance own;
    REQUIRE_OK(throng_group_get_avoidance(w, first_group(w, 1u), &own));
    own.nudge = 0.02f;
    REQUIRE_OK(throng_group_set_avoidance(w, first_group(w, 1u), &own));
    for (int s = 0; s < 10; s++)
        REQUIRE_OK(throng_world_step(w, VEL_DT));
    size_t n = 0;
    CHECK_STATUS(throng_world_save(w, NULL, 0, &n), THRONG_ERR_CAPACITY);
    unsigned char *buf = malloc(n);
    REQUIRE(buf != NULL);
    REQUIRE_OK(throng_world_save(w, buf, n, &n));
    throng_world *back = NULL;
    REQUIRE_OK(throng_world_load(buf, n, NULL, &back));
    throng_avoidance saved, loaded;
    REQUIRE_OK(throng_group_get_avoidance(w, first_group(w, 1u), &saved));
    REQUIRE_OK(
        throng_group_get_avoidance(back, first_group(back, 1u), &loaded));
    CHECK(avoidance_same(&saved, &loaded));
    CHECK(loaded.mode == THRONG_AVOIDANCE_ORCA);
    CHECK(loaded.nudge == 0.02f);
    for (int s = 0; s < 10; s++) {
        REQUIRE_OK(throng_world_step(w, VEL_DT));
        REQUIRE_OK(throng_world_step(back, VEL_DT));
    }
    CHECK_EQ_U64(throng_world_hash(w), throng_world_hash(back));
    free(buf);
    throng_world_destroy(back);
    throng_world_destroy(w);
}

/* Bad settings are refused, by name, and change nothing. */
TEST(velocity_bad_settings) {
    throng_world *w = vel_world(2, 1);
    REQUIRE(w != NULL);
    throng_group g = vel_group(w, THRONG_AVOIDANCE_ORCA, 0.5f);
    const float p[3] = { 0.0f, 0.0f, 0.0f }, goal[3] = { 5.0f, 0.0f, 0.0f };
    (void)vel_agent(w, g, p, goal, 0.25f);
    throng_avoidance good;
    REQUIRE_OK(throng_group_get_avoidance(w, g, &good));
    const uint64_t hash = throng_world_hash(w);
    const float nan = nanf("");
    struct {
        int field; /* 0 horizon, 1 share, 2 range, 3 mode, 4 most, 5 keep */
        float value;
        throng_status want;
        const char *name;
    } cases[] = {
        { 0, -1.0f, THRONG_ERR_OUT_OF_RANGE, "time_horizon" },
        { 0, 0.0f, THRONG_ERR_OUT_OF_RANGE, "time_horizon" },
        { 0, nan, THRONG_ERR_NOT_FINITE, "time_horizon" },
        { 0, INFINITY, THRONG_ERR_NOT_FINITE, "time_horizon" },
        { 1, 1.5f, THRONG_ERR_OUT_OF_RANGE, "responsibility" },
        { 1, -0.25f, THRONG_ERR_OUT_OF_RANGE, "responsibility" },
        { 1, nan, THRONG_ERR_NOT_FINITE, "responsibility" },
        { 2, 3.5f, THRONG_ERR_OUT_OF_RANGE, "range" },
        { 2, -1.0f, THRONG_ERR_OUT_OF_RANGE, "range" },
        { 3, 2.0f, THRONG_ERR_OUT_OF_RANGE, "mode" },
        { 4, 0.0f, THRONG_ERR_OUT_OF_RANGE, "max_neighbours" },
        { 4, 2000.0f, THRONG_ERR_OUT_OF_RANGE, "max_neighbours" },
        { 5, 2.0f, THRONG_ERR_OUT_OF_RANGE, "keep_right" },
        { 6, 0.75f, THRONG_ERR_OUT_OF_RANGE, "nudge" },
        { 6, -0.01f, THRONG_ERR_OUT_OF_RANGE, "nudge" },
        { 6, nan, THRONG_ERR_NOT_FINITE, "nudge" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        throng_avoidance bad = good;
        switch (cases[i].field) {
        case 0:
            bad.time_horizon = cases[i].value;
            break;
        case 1:
            bad.responsibility = cases[i].value;
            break;
        case 2:
            bad.range = cases[i].value;
            break;
        case 3:
            bad.mode = (throng_avoidance_mode)(int)cases[i].value;
            break;
        case 4:
            bad.max_neighbours = (uint32_t)cases[i].value;
            break;
        case 5:
            bad.keep_right = cases[i].value;
            break;
        default:
            bad.nudge = cases[i].value;
            break;
        }
        CHECK_STATUS(throng_group_set_avoidance(w, g, &bad), cases[i].want);
        CHECK(strstr(throng_world_last_error(w), cases[i].name) != NULL);
        throng_group_def gd = throng_group_def_default();
        gd.avoidance = bad;
        throng_group none = THRONG_NULL_GROUP;
        CHECK_STATUS(throng_group_create(w, &gd, &none), cases[i].want);
        throng_avoidance now;
        REQUIRE_OK(throng_group_get_avoidance(w, g, &now));
        CHECK(memcmp(&now, &good, sizeof now) == 0);
        CHECK_EQ_U64(throng_world_hash(w), hash);
    }
    CHECK_STATUS(throng_group_set_avoidance(w, g, NULL), THRONG_ERR_NULL);
    CHECK_STATUS(throng_group_get_avoidance(w, g, NULL), THRONG_ERR_NULL);
    CHECK_STATUS(throng_group_get_avoidance(w, THRONG_NULL_GROUP, &good),
                 THRONG_ERR_STALE_HANDLE);
    /* The vehicle limits' pair, refused the same ways. */
    throng_motion motion = throng_group_def_default().motion;
    CHECK_STATUS(throng_group_set_motion(w, g, NULL), THRONG_ERR_NULL);
    CHECK_STATUS(throng_group_get_motion(w, g, NULL), THRONG_ERR_NULL);
    CHECK_STATUS(throng_group_get_motion(w, THRONG_NULL_GROUP, &motion),
                 THRONG_ERR_STALE_HANDLE);
    CHECK_STATUS(throng_group_set_motion(w, THRONG_NULL_GROUP, &motion),
                 THRONG_ERR_STALE_HANDLE);
    motion.max_turn_rate = -1.0f;
    CHECK_STATUS(throng_group_set_motion(w, g, &motion),
                 THRONG_ERR_OUT_OF_RANGE);
    motion.max_turn_rate = 0.0f;
    motion.min_speed = nanf("");
    CHECK_STATUS(throng_group_set_motion(w, g, &motion), THRONG_ERR_NOT_FINITE);
    CHECK_EQ_U64(throng_world_hash(w), hash);
    throng_world_destroy(w);
}

/* A vehicle heading +x at max speed asked to seek a point behind it on
 * the left: with max_turn_rate 1 rad/s and dt 0.1 its heading turns by
 * exactly 0.1 rad a step (to float rounding) until it faces the point,
 * and never more; in 3D the same about whatever plane the two span. The
 * least speed: an agent braking onto its target never goes below it. */
TEST(velocity_turn_limit) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *w = vel_world(dims, 1);
        REQUIRE(w != NULL);
        throng_group g = vel_group(w, THRONG_AVOIDANCE_NONE, 0.5f);
        throng_motion m = throng_group_def_default().motion;
        m.max_turn_rate = 1.0f;
        REQUIRE_OK(throng_group_set_motion(w, g, &m));
        const float p[3] = { 0.0f, 0.0f, 0.0f };
        const float goal[3] = { -10.0f, 10.0f, dims == 3 ? 4.0f : 0.0f };
        throng_agent a = vel_agent(w, g, p, goal, 0.25f);
        const float v0[3] = { 1.0f, 0.0f, 0.0f };
        REQUIRE_OK(throng_agent_set_velocity(w, a, v0));
        double prev[3] = { 1.0, 0.0, 0.0 };
        int limited = 0;
        double most = 0.0;
        for (int s = 0; s < 40; s++) {
            REQUIRE_OK(throng_world_step(w, VEL_DT));
            float v[3] = { 0.0f, 0.0f, 0.0f };
            REQUIRE_OK(throng_agent_get_velocity(w, a, v));
            const double vx = (double)v[0], vy = (double)v[1],
                         vz = (double)v[2];
            const double len = sqrt(vx * vx + vy * vy + vz * vz);
            const double cur[3] = { vx / len, vy / len, vz / len };
            const double dot =
                prev[0] * cur[0] + prev[1] * cur[1] + prev[2] * cur[2];
            const double turn = acos(dot > 1.0 ? 1.0 : dot);
            most = turn > most ? turn : most;
            limited += fabs(turn - 0.1) < 1e-5;
            memcpy(prev, cur, sizeof prev);
        }
        if (!(most <= 0.1 + 1e-6) || limited < 10)
            runner_fail(__FILE__, __LINE__,
                        "%dD: largest turn %.9f rad a step (limit 0.1), "
                        "%d steps at the limit",
                        dims, most, limited);
        /* It ends up facing the goal and closing in. */
        float pos[3];
        REQUIRE_OK(throng_agent_get_position(w, a, pos));
        CHECK(vel_dist(pos, goal) < vel_dist(p, goal) - 1.0f);
        throng_world_destroy(w);
    }
}

TEST(velocity_min_speed) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *w = vel_world(dims, 1);
        REQUIRE(w != NULL);
        throng_group g = vel_group(w, THRONG_AVOIDANCE_NONE, 0.5f);
        throng_motion m = throng_group_def_default().motion;
        m.min_speed = 0.4f;
        REQUIRE_OK(throng_group_set_motion(w, g, &m));
        const float p[3] = { 0.0f, 0.0f, 0.0f }, goal[3] = { 3.0f, 0.0f, 0.0f };
        throng_agent a = vel_agent(w, g, p, goal, 0.25f);
        /* At rest at first: it sets off along its heading (+x). */
        float slowest = INFINITY;
        for (int s = 0; s < 60; s++) {
            REQUIRE_OK(throng_world_step(w, VEL_DT));
            float v[3] = { 0.0f, 0.0f, 0.0f };
            REQUIRE_OK(throng_agent_get_velocity(w, a, v));
            const float speed = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            slowest = speed < slowest ? speed : slowest;
        }
        CHECK(slowest >= 0.4f * (1.0f - 1e-6f));
        CHECK(slowest <= 0.4f * (1.0f + 1e-6f)); /* it did brake to it */
        throng_world_destroy(w);
    }
}

/* Distance from p to the surface of the box [lo, hi] (negative inside),
 * in the plane or in space. */
static double vel_box_dist(const float p[3], const float lo[3],
                           const float hi[3], int dims) {
    double out2 = 0.0, inside = (double)INFINITY;
    for (int k = 0; k < dims; k++) {
        const double x = (double)p[k], a = (double)lo[k], b = (double)hi[k];
        const double d = x < a ? a - x : x > b ? x - b : 0.0;
        out2 += d * d;
        const double face = x - a < b - x ? x - a : b - x;
        inside = face < inside ? face : inside;
    }
    return out2 > 0.0 ? sqrt(out2) : -inside;
}

/* Static objects are hard constraints: an agent seeking a point behind a
 * wall-like box slides along it (keep right) and round its end, a sphere
 * straight ahead is passed, a plane in the way is never crossed; none is
 * ever closer than the agent's radius (to 0.1%), and the agent gets
 * there. */
/* ORCA's half-planes from a wall corner, worked by hand: two walls
 * meeting at the origin (the floor y = 0 and the wall x = 0, each 10 m
 * long), an agent of radius 0.5 m at (1, 2) heading into the corner at
 * (-1, -1), obstacle time horizon 2 s, a step of 0.1 s, max speed 2.
 * Each wall is flat where it is nearest: the wall 1 m off gives
 * n = (1, 0) and v_x >= -(1 - 0.5) / 2 = -0.25, the floor 2 m off
 * n = (0, 1) and v_y >= -(2 - 0.5) / 2 = -0.75, the nearer first, each
 * a line through n b running with the permitted side on its left. The
 * program meets both at their corner, (-0.25, -0.75). An agent 0.25 m
 * from the wall, inside its radius, must leave within the step:
 * v_x >= (0.5 - 0.25) / 0.1 = 2.5, cut to the max speed 2, so the only
 * velocity left is (2, 0). */
TEST(velocity_orca_wall_corner) {
    throng_world *w = vel_world(2, 1);
    REQUIRE(w != NULL);
    const float o[3] = { 0.0f, 0.0f, 0.0f }, x[3] = { 10.0f, 0.0f, 0.0f };
    const float y[3] = { 0.0f, 10.0f, 0.0f };
    throng_object floor, wall;
    REQUIRE_OK(add_segment(w, o, x, &floor));
    REQUIRE_OK(add_segment(w, o, y, &wall));
    orca_static_query q = { .p = { 1.0f, 2.0f, 0.0f },
                            .v = { -1.0f, -1.0f, 0.0f },
                            .radius = 0.5f,
                            .max_speed = 2.0f,
                            .inv_tau = 0.5f,
                            .inv_dt = 10.0f };
    orca_line lines[ORCA_STATIC_MAX], scratch[ORCA_STATIC_MAX];
    REQUIRE(orca_static_lines_2d(w, &q, lines) == 2u);
    /* The wall: through (-0.25, 0), running (0, -1). */
    CHECK(lines[0].point[0] == -0.25f && lines[0].point[1] == 0.0f);
    CHECK(lines[0].direction[0] == 0.0f && lines[0].direction[1] == -1.0f);
    /* The floor: through (0, -0.75), running (1, 0). */
    CHECK(lines[1].point[0] == 0.0f && lines[1].point[1] == -0.75f);
    CHECK(lines[1].direction[0] == 1.0f && lines[1].direction[1] == 0.0f);
    const float preferred[2] = { -1.0f, -1.0f };
    float v[2];
    orca_solve_2d(lines, 2, 2, q.max_speed, preferred, scratch, v);
    CHECK_NEAR(v[0], -0.25, 1e-6);
    CHECK_NEAR(v[1], -0.75, 1e-6);
    /* Inside the wall's reach: out at max speed, along the floor. */
    q.p[0] = 0.25f;
    REQUIRE(orca_static_lines_2d(w, &q, lines) == 2u);
    CHECK(lines[0].point[0] == 2.0f && lines[0].point[1] == 0.0f);
    CHECK(lines[1].point[1] == -0.75f);
    orca_solve_2d(lines, 2, 2, q.max_speed, preferred, scratch, v);
    CHECK_NEAR(v[0], 2.0, 1e-5);
    CHECK_NEAR(v[1], 0.0, 1e-3);
    throng_world_destroy(w);
}

TEST(velocity_obstacles) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *w = vel_world(dims, 1);
        REQUIRE(w != NULL);
        throng_group g = vel_group(w, THRONG_AVOIDANCE_ORCA, 0.5f);
        const float lo[3] = { 4.0f, -3.0f, -3.0f },
                    hi[3] = { 5.0f, 3.0f, 3.0f };
        const float ball[3] = { 12.0f, 0.0f, 0.0f };
        throng_object box, sphere;
        REQUIRE_OK(add_box(w, lo, hi, &box));
        REQUIRE_OK(add_sphere(w, ball, 1.0f, &sphere));
        const float p[3] = { 0.0f, 0.0f, 0.0f };
        float goal[1][3] = { { 18.0f, 0.0f, 0.0f } };
        throng_agent a = vel_agent(w, g, p, goal[0], 0.3f);
        double closest_box = (double)INFINITY, closest_ball = (double)INFINITY;
        int arrived = 0;
        for (int s = 0; s < 800 && !arrived; s++) {
            REQUIRE_OK(throng_world_step(w, VEL_DT));
            float q[3];
            REQUIRE_OK(throng_agent_get_position(w, a, q));
            const double db = vel_box_dist(q, lo, hi, dims);
            closest_box = db < closest_box ? db : closest_box;
            const double ds = (double)vel_dist(q, ball) - 1.0;
            closest_ball = ds < closest_ball ? ds : closest_ball;
            arrived = vel_dist(q, goal[0]) < 0.1f;
        }
        if (!(closest_box >= 0.3 * 0.999) || !(closest_ball >= 0.3 * 0.999) ||
            !arrived)
            runner_fail(__FILE__, __LINE__,
                        "%dD: closest to the box %.4f, to the sphere %.4f "
                        "(radius 0.3), arrived %d",
                        dims, closest_box, closest_ball, arrived);
        throng_world_destroy(w);
    }
    /* A wall across the way (a plane in 3D, a segment in 2D): the agent
     * stops short of it and never crosses. */
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *w = vel_world(dims, 1);
        REQUIRE(w != NULL);
        throng_group g = vel_group(w, THRONG_AVOIDANCE_ORCA, 0.5f);
        throng_object wall;
        if (dims == 3) {
            const float point[3] = { 5.0f, 0.0f, 0.0f };
            const float normal[3] = { -1.0f, 0.0f, 0.0f };
            REQUIRE_OK(add_plane(w, point, normal, &wall));
        } else {
            const float e0[3] = { 5.0f, -50.0f, 0.0f };
            const float e1[3] = { 5.0f, 50.0f, 0.0f };
            REQUIRE_OK(add_segment(w, e0, e1, &wall));
        }
        const float p[3] = { 0.0f, 0.0f, 0.0f },
                    goal[3] = { 10.0f, 0.0f, 0.0f };
        throng_agent a = vel_agent(w, g, p, goal, 0.3f);
        float most = -INFINITY;
        for (int s = 0; s < 200; s++) {
            REQUIRE_OK(throng_world_step(w, VEL_DT));
            float q[3];
            REQUIRE_OK(throng_agent_get_position(w, a, q));
            most = q[0] > most ? q[0] : most;
        }
        if (!(most <= 5.0f - 0.3f * 0.999f) || !(most > 4.0f))
            runner_fail(__FILE__, __LINE__,
                        "%dD: the agent reached x = %.4f (wall at 5, radius "
                        "0.3)",
                        dims, (double)most);
        throng_world_destroy(w);
    }
}

void register_velocity_tests(void) {
    REGISTER(velocity_head_on);
    REGISTER(velocity_ring_swap);
    REGISTER(velocity_alone_is_integration);
    REGISTER(velocity_threads_and_paths);
    REGISTER(velocity_scan_paths);
    REGISTER(velocity_hold_rows_paths);
    REGISTER(velocity_snapshot);
    REGISTER(velocity_bad_settings);
    REGISTER(velocity_turn_limit);
    REGISTER(velocity_min_speed);
    REGISTER(velocity_orca_wall_corner);
    REGISTER(velocity_obstacles);
}
