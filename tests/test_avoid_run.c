/* SPDX-License-Identifier: MIT */
/*
 * Tests of obstacle avoidance's shared candidates (steer_env.c, env_run):
 * a run of rows queries the obstacle grid once for the union of its
 * corridors, and every agent then screens those candidates by its own
 * corridor box. Its forces must be the very bits of the agent querying
 * alone and of a scan over every live object (the kernel's path when the
 * grid is stale), however the rows are cut into runs: random worlds of
 * overlapping spheres and boxes, some removed, with agents inside
 * obstacles and agents whose corridor box only touches an obstacle's
 * bounds. A run that lost a candidate must show: dropping one from a
 * filled run changes some force. And stepping on 1 and 2 threads gives
 * one hash.
 *
 * A group whose candidates are all spheres is tested on the lanes of
 * the world's vector path (env_avoid_lanes): the same comparisons run on
 * worlds of spheres only, on every path this build carries, and a lane
 * result that lost a candidate must show too. The recipe finish on the
 * lanes takes a block of rows at once (env_avoid_block_*): each row it
 * answers must have the alone row's force, and whole steps the scalar
 * path's hash.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "object_defs.h"
#include "runner.h"

#include "behaviour.h"
#include "geometry.h"
#include "internal.h"
#include "kernel_paths.h"
#include "obstacle_grid.h"
#include "steer_env.h"

#define AR_DT 0.05f

/* One agent's force from one avoidance. */
typedef struct ar_force {
    float F[3];
    int on;
} ar_force;

static int ar_same(const ar_force *x, const ar_force *y) {
    return x->on == y->on && memcmp(x->F, y->F, sizeof x->F) == 0;
}

/* A world of `dims` with many overlapping spheres and boxes (only
 * spheres with `spheres`) in a small space (a few removed), two groups (one avoidance; two avoidances of
 * different reach) and agents scattered, inside obstacles, and heading
 * along an axis exactly tangent to an obstacle, so the corridor box
 * touches its bounds. Returns the world; *agents its agent count. */
static throng_world *ar_world(int dims, uint64_t seed, int threads, int spheres,
                              uint32_t *agents, throng_behaviour list[3]) {
    throng_world *w = ts_world(dims, threads, NULL);
    if (!w)
        return NULL;
    test_rng rng = test_rng_make(seed);
    const float side = dims == 2 ? 60.0f : 24.0f;
    enum {
        OBSTACLES = 400
    };
    throng_object objs[OBSTACLES];
    float centre[OBSTACLES][3], reach[OBSTACLES];
    for (int i = 0; i < OBSTACLES; i++) {
        float c[3] = { 0.0f, 0.0f, 0.0f };
        for (int k = 0; k < dims; k++)
            c[k] = test_rng_range(&rng, 0.0f, side);
        memcpy(centre[i], c, sizeof c);
        if (spheres || test_rng_below(&rng, 2u) == 0u) {
            /* Radii in quarters: exact sums at the tangent agents. */
            float r = 0.25f * (float)(1u + test_rng_below(&rng, 8u));
            reach[i] = r;
            if (add_sphere(w, c, r, &objs[i]) != THRONG_OK)
                runner_fail(__FILE__, __LINE__, "sphere refused");
        } else {
            float lo[3] = { 0.0f, 0.0f, 0.0f }, hi[3] = { 0.0f, 0.0f, 0.0f };
            float half = 0.25f * (float)(1u + test_rng_below(&rng, 8u));
            for (int k = 0; k < dims; k++) {
                lo[k] = c[k] - half;
                hi[k] = c[k] + test_rng_range(&rng, 0.1f, 2.5f);
            }
            reach[i] = half;
            if (add_box(w, lo, hi, &objs[i]) != THRONG_OK)
                runner_fail(__FILE__, __LINE__, "box refused");
        }
    }
    /* Removed obstacles leave free slots the kernels must skip. */
    for (int i = 0; i < OBSTACLES; i += 7)
        CHECK_OK(throng_object_remove(w, objs[i]));

    list[0] = throng_behaviour_default(THRONG_BEHAVIOUR_AVOID_OBSTACLES);
    list[0].speed_factor = 0.5f;
    list[0].u.avoid.lookahead_time = 1.5f;
    list[1] = list[0];
    list[1].u.avoid.min_length = 6.0f;
    list[1].u.avoid.lookahead_time = 0.25f;
    list[2] = list[0];
    throng_group_def gd = throng_group_def_default();
    gd.combine = THRONG_COMBINE_WEIGHTED_SUM;
    throng_group one = THRONG_NULL_GROUP, two = THRONG_NULL_GROUP;
    throng_group none = THRONG_NULL_GROUP;
    CHECK_OK(throng_group_create(w, &gd, &one));
    CHECK_OK(throng_group_add_behaviour(w, one, &list[2], NULL));
    CHECK_OK(throng_group_create(w, &gd, &two));
    CHECK_OK(throng_group_add_behaviour(w, two, &list[0], NULL));
    CHECK_OK(throng_group_add_behaviour(w, two, &list[1], NULL));
    /* A list without avoidance: its rows sit between the avoiding ones,
     * some of which are then alone in their run. */
    throng_behaviour wall = throng_behaviour_default(THRONG_BEHAVIOUR_CONTAIN);
    wall.u.contain.use_box = true;
    for (int k = 0; k < 3; k++)
        wall.u.contain.box_max[k] = side;
    CHECK_OK(throng_group_create(w, &gd, &none));
    CHECK_OK(throng_group_add_behaviour(w, none, &wall, NULL));

    const uint32_t n = 1500;
    for (uint32_t a = 0; a < n; a++) {
        throng_agent_def d = throng_agent_def_default();
        const uint32_t pick = test_rng_below(&rng, 6u);
        d.group = pick == 0u ? two : pick < 3u ? none : one;
        d.max_speed = 3.0f;
        d.radius = 0.5f;
        const uint32_t how = test_rng_below(&rng, 4u);
        const uint32_t o = 1u + 7u * test_rng_below(&rng, OBSTACLES / 7 - 1);
        if (how == 0u) {
            /* Inside an obstacle, near its centre. */
            for (int k = 0; k < dims; k++)
                d.position[k] =
                    centre[o][k] + test_rng_range(&rng, -0.2f, 0.2f);
            d.velocity[0] = test_rng_range(&rng, -2.0f, 2.0f);
            d.velocity[1] = test_rng_range(&rng, -2.0f, 2.0f);
        } else if (how == 1u) {
            /* Heading along x, offset in y by exactly the obstacle's
             * reach plus the agent's radius: the corridor's box touches
             * the obstacle's bounds, the ray grazes a sphere. */
            for (int k = 0; k < dims; k++)
                d.position[k] = centre[o][k];
            d.position[0] -= 3.0f;
            d.position[1] += reach[o] + d.radius;
            d.velocity[0] = 1.0f;
        } else {
            for (int k = 0; k < dims; k++) {
                d.position[k] = test_rng_range(&rng, -2.0f, side + 2.0f);
                d.velocity[k] = test_rng_range(&rng, -2.0f, 2.0f);
            }
            /* Some stand still: a corridor of min_length along the
             * heading. */
            if (test_rng_below(&rng, 8u) == 0u)
                d.velocity[0] = d.velocity[1] = d.velocity[2] = 0.0f;
        }
        throng_agent h;
        if (throng_agent_add(w, &d, &h) != THRONG_OK)
            runner_fail(__FILE__, __LINE__, "agent %u refused: %s", a,
                        throng_world_last_error(w));
    }
    *agents = n;
    return w;
}

/* Row t's forces, one per avoidance its group lists (at most 2), with the
 * run (NULL: alone); returns how many. */
static int ar_row(const throng_world *w, uint32_t t, env_run *run,
                  ar_force out[2]) {
    const group_record *g = &w->groups[w->col.group[t]];
    steer_ctx a;
    steer_ctx_load(&a, w, t, AR_DT);
    int n = 0;
    for (uint32_t j = 0; j < g->behaviour_count && n < 2; j++) {
        const throng_behaviour *b = &g->behaviours[j];
        if (b->kind != THRONG_BEHAVIOUR_AVOID_OBSTACLES)
            continue;
        out[n].on = steer_env_force_run(&a, b, run, out[n].F);
        n++;
    }
    return n;
}

/* The rows of a filled run's group rounded up to whole lane blocks, as
 * steer_env.c hands them to the lanes. */
static uint32_t ar_padded(const env_run *run) {
    const uint32_t rows = run->stop - run->first;
    return (rows + ENV_LANE_BLOCK - 1u) / ENV_LANE_BLOCK * ENV_LANE_BLOCK;
}

/* The kernel paths the comparisons run on (those this build and CPU
 * carry): by name, and NULL for the widest. */
static const char *const ar_paths[] = { "scalar", "sse2", "avx2", "avx512",
                                        "neon",   "wasm", NULL };
#define AR_PATHS (sizeof ar_paths / sizeof ar_paths[0])

/* Compares on the world's kernel path `path` (see ar_paths); returns how
 * many groups the lanes tested, or UINT32_MAX when the path cannot run
 * here. */
static uint32_t ar_compare_on(int dims, int spheres, const char *path) {
    throng_behaviour list[3];
    uint32_t agents = 0;
    throng_world *w =
        ar_world(dims, dims == 2 ? 71u : 72u, 1, spheres, &agents, list);
    if (!w) {
        runner_fail(__FILE__, __LINE__, "no world");
        return 0;
    }
    /* One step puts the rows in cell order, as the finish sees them. */
    CHECK_OK(throng_world_step(w, AR_DT));
    if (world_select_kernel(w, path) != 0) {
        throng_world_destroy(w);
        return UINT32_MAX; /* not a path of this build and CPU */
    }
    uint32_t tested = 0;
    CHECK(geometry_prepare(w) == 0);
    geo_grid *g = &w->geo->grid;
    CHECK(g->built && g->version == w->geo->version);

    /* The references: each agent alone through the grid, and a scan of
     * every live object (the grid made stale). */
    ar_force(*alone)[2] = calloc(agents, sizeof *alone);
    ar_force(*scan)[2] = calloc(agents, sizeof *scan);
    env_run *run = malloc(sizeof *run), *cut = malloc(sizeof *cut);
    if (!alone || !scan || !run || !cut) {
        runner_fail(__FILE__, __LINE__, "out of memory");
        free(alone);
        free(scan);
        free(run);
        free(cut);
        throng_world_destroy(w);
        return 0;
    }
    int busy = 0;
    for (uint32_t t = 0; t < agents; t++) {
        int n = ar_row(w, t, NULL, alone[t]);
        g->version ^= 1u;
        ar_row(w, t, NULL, scan[t]);
        g->version ^= 1u;
        for (int j = 0; j < n; j++) {
            busy += alone[t][j].on;
            if (!ar_same(&alone[t][j], &scan[t][j]))
                runner_fail(__FILE__, __LINE__,
                            "%dD row %u avoidance %d: grid %d (%g %g) vs "
                            "scan %d (%g %g)",
                            dims, t, j, alone[t][j].on,
                            (double)alone[t][j].F[0], (double)alone[t][j].F[1],
                            scan[t][j].on, (double)scan[t][j].F[0],
                            (double)scan[t][j].F[1]);
        }
    }
    /* Most agents have an obstacle to steer from: the comparison has
     * teeth. */
    CHECK(busy > (int)agents / 4);

    /* Cut into runs of several lengths, with the grid current and stale. */
    const uint32_t lengths[] = { 1u, 3u, 8u, 16u, 64u, 200u };
    for (int stale = 0; stale < 2; stale++) {
        g->version ^= (uint64_t)stale;
        for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
            for (uint32_t b = 0; b < agents; b += lengths[li]) {
                uint32_t e =
                    agents - b > lengths[li] ? b + lengths[li] : agents;
                steer_env_run_begin(run, b, e);
                for (uint32_t t = b; t < e; t++) {
                    ar_force got[2];
                    const uint32_t first = run->first;
                    int n = ar_row(w, t, run, got);
                    tested += (uint32_t)(run->first != first && run->tested);
                    for (int j = 0; j < n; j++)
                        if (!ar_same(&got[j], &alone[t][j]))
                            runner_fail(__FILE__, __LINE__,
                                        "%dD runs of %u%s: row %u avoidance "
                                        "%d: run %d (%g %g) vs alone %d "
                                        "(%g %g)",
                                        dims, lengths[li],
                                        stale ? " (stale grid)" : "", t, j,
                                        got[j].on, (double)got[j].F[0],
                                        (double)got[j].F[1], alone[t][j].on,
                                        (double)alone[t][j].F[0],
                                        (double)alone[t][j].F[1]);
                }
            }
        }
        g->version ^= (uint64_t)stale;
    }

    /* A run that misses a candidate is caught: fill a group, drop one of
     * its candidates, and some row of the group must steer differently
     * for some dropped candidate; by the scalar screen, and by the lanes
     * when they tested the group (tested again without it). */
    uint32_t noticed = 0, tried = 0, lane_noticed = 0, lane_tried = 0;
    for (uint32_t b = 0; b + 16u <= agents; b += 16u) {
        steer_env_run_begin(run, b, b + 16u);
        ar_force first[2];
        ar_row(w, b, run, first); /* fills the group that starts at b */
        if (!run->usable || run->count == 0)
            continue;
        for (uint32_t drop = 0; drop < 2u * run->count; drop++) {
            const int lanes = drop >= run->count;
            if (lanes && !run->tested)
                break;
            memcpy(cut, run, sizeof *cut);
            for (uint32_t j = drop % run->count; j + 1u < cut->count; j++) {
                cut->id[j] = cut->id[j + 1u];
                cut->radius[j] = cut->radius[j + 1u];
                for (int k = 0; k < 3; k++) {
                    cut->blo[k][j] = cut->blo[k][j + 1u];
                    cut->bhi[k][j] = cut->bhi[k][j + 1u];
                    cut->centre[k][j] = cut->centre[k][j + 1u];
                }
            }
            cut->count--;
            cut->tested = 0;
            if (lanes) {
                w->env_lanes(cut, ar_padded(cut));
                cut->tested = 1;
            }
            tried++;
            int differs = 0;
            for (uint32_t t = cut->first; t < cut->stop; t++) {
                ar_force got[2];
                int n = ar_row(w, t, cut, got);
                for (int j = 0; j < n; j++)
                    differs |= !ar_same(&got[j], &alone[t][j]);
            }
            noticed += (uint32_t)differs;
            lane_tried += (uint32_t)lanes;
            lane_noticed += (uint32_t)(lanes && differs);
        }
    }
    CHECK(tried > 100u);
    CHECK(noticed > tried / 20u);
    CHECK(lane_noticed >= lane_tried / 20u);
    if (tested > 0u)
        CHECK(lane_tried > 0u && lane_noticed > 0u);
    free(run);
    free(cut);
    free(alone);
    free(scan);
    throng_world_destroy(w);
    return tested;
}

static void ar_compare(int dims) {
    /* Boxes and spheres, then spheres only, on every path; the scalar
     * path never tests on lanes, a vector path does on spheres. */
    for (int spheres = 0; spheres < 2; spheres++)
        for (size_t i = 0; i < AR_PATHS; i++) {
            const char *path = ar_paths[i];
            const uint32_t tested = ar_compare_on(dims, spheres, path);
            if (tested == UINT32_MAX)
                continue;
            const int scalar = path && strcmp(path, "scalar") == 0;
            if (scalar)
                CHECK_EQ_U64(tested, 0u);
#if defined(THRONG_HAVE_SIMD_KERNELS)
            if (!scalar && spheres)
                CHECK(tested > 100u);
#endif
        }
}

TEST(avoid_run_matches_alone_and_scan_2d) {
    ar_compare(2);
}
TEST(avoid_run_matches_alone_and_scan_3d) {
    ar_compare(3);
}

/* The edges the lanes must decide as the scalar test does, built
 * exactly in quarters so the arithmetic is exact: two threats met at the
 * same distance and two overlaps of the same depth (the lower id wins), a
 * threat met exactly at the corridor's end, a sphere whose bounds only
 * touch the corridor's box (on y, and in 3D on z) and that the ray grazes,
 * a removed sphere ahead, and an agent with nothing near. Each scene holds
 * two agents at rest heading +x, so the rows share a group. */
static void ar_edges(int dims) {
    throng_world *w = ts_world(dims, 1, NULL);
    REQUIRE(w != NULL);
    throng_behaviour avoid =
        throng_behaviour_default(THRONG_BEHAVIOUR_AVOID_OBSTACLES);
    avoid.u.avoid.min_length = 5.0f;
    avoid.u.avoid.lookahead_time = 0.0f;
    throng_group_def gd = throng_group_def_default();
    throng_group group = THRONG_NULL_GROUP;
    CHECK_OK(throng_group_create(w, &gd, &group));
    CHECK_OK(throng_group_add_behaviour(w, group, &avoid, NULL));
    const float y = 10.0f, z = dims == 3 ? 10.0f : 0.0f;
    enum {
        SCENES = 7
    };
    /* Per scene: up to two spheres' offsets from the agent (x, y, z) and
     * radius (0: none), and whether the first is removed. */
    const float spheres[SCENES][2][4] = {
        { { 5.0f, 1.0f, 0.0f, 1.0f }, { 5.0f, -1.0f, 0.0f, 1.0f } },
        { { 5.0f, -1.0f, 0.0f, 1.0f }, { 5.0f, 1.0f, 0.0f, 1.0f } },
        { { 0.25f, 0.0f, 0.0f, 1.0f }, { -0.25f, 0.0f, 0.0f, 1.0f } },
        { { 6.5f, 0.0f, 0.0f, 1.0f }, { 0.0f, 0.0f, 0.0f, 0.0f } },
        { { 3.0f, 1.5f, 0.0f, 1.0f }, { 0.0f, 0.0f, 0.0f, 0.0f } },
        { { 3.0f, 0.0f, 1.5f, 1.0f }, { 0.0f, 0.0f, 0.0f, 0.0f } },
        { { 3.0f, 0.0f, 0.0f, 1.0f }, { 0.0f, 0.0f, 0.0f, 0.0f } },
    };
    const int removed = 6;
    for (int sc = 0; sc < SCENES; sc++) {
        const float x = 20.0f + 40.0f * (float)sc;
        for (int i = 0; i < 2; i++) {
            const float *o = spheres[sc][i];
            if (!(o[3] > 0.0f))
                continue;
            float c[3] = { x + o[0], y + o[1], dims == 3 ? z + o[2] : 0.0f };
            throng_object obj;
            CHECK_OK(add_sphere(w, c, o[3], &obj));
            if (sc == removed)
                CHECK_OK(throng_object_remove(w, obj));
        }
        for (int a = 0; a < 2; a++) {
            throng_agent_def d = throng_agent_def_default();
            d.group = group;
            d.radius = 0.5f;
            d.position[0] = x;
            d.position[1] = y;
            d.position[2] = z;
            throng_agent h;
            CHECK_OK(throng_agent_add(w, &d, &h));
        }
    }
    /* A scene of nothing: quiet agents. */
    for (int a = 0; a < 2; a++) {
        throng_agent_def d = throng_agent_def_default();
        d.group = group;
        d.radius = 0.5f;
        d.position[0] = 20.0f + 40.0f * (float)SCENES;
        d.position[1] = y;
        d.position[2] = z;
        throng_agent h;
        CHECK_OK(throng_agent_add(w, &d, &h));
    }
    const uint32_t agents = 2u * (SCENES + 1u);
    REQUIRE(geometry_prepare(w) == 0);
    env_run *run = malloc(sizeof *run);
    REQUIRE(run != NULL);
    for (size_t pi = 0; pi < AR_PATHS; pi++) {
        const char *path = ar_paths[pi];
        if (world_select_kernel(w, path) != 0)
            continue; /* not a path of this build and CPU */
        const int scalar = path && strcmp(path, "scalar") == 0;
        ar_force alone[SCENES + 1][2][2];
        int on = 0;
        for (uint32_t t = 0; t < agents; t++) {
            ar_row(w, t, NULL, alone[t / 2u][t % 2u]);
            on += alone[t / 2u][t % 2u][0].on;
        }
        /* Every scene steers but the removed sphere's and the empty
         * one (in 2D the z scene is a plain threat ahead). */
        CHECK_EQ_U64((uint64_t)on, 2u * (SCENES - 1u));
        uint32_t tested = 0;
        steer_env_run_begin(run, 0, agents);
        for (uint32_t t = 0; t < agents; t++) {
            ar_force got[2];
            const uint32_t first = run->first;
            ar_row(w, t, run, got);
            tested += (uint32_t)(run->first != first && run->tested);
            if (!ar_same(&got[0], &alone[t / 2u][t % 2u][0]))
                runner_fail(__FILE__, __LINE__,
                            "%dD edge scene %u (%s): run %d (%g %g %g) vs "
                            "alone %d (%g %g %g)",
                            dims, t / 2u, path ? path : "auto", got[0].on,
                            (double)got[0].F[0], (double)got[0].F[1],
                            (double)got[0].F[2], alone[t / 2u][t % 2u][0].on,
                            (double)alone[t / 2u][t % 2u][0].F[0],
                            (double)alone[t / 2u][t % 2u][0].F[1],
                            (double)alone[t / 2u][t % 2u][0].F[2]);
        }
        /* The ties went to the lower id: the mirrored scenes push apart. */
        CHECK(alone[0][0][0].F[1] == -alone[1][0][0].F[1] &&
              alone[0][0][0].F[1] != 0.0f);
#if defined(THRONG_HAVE_SIMD_KERNELS)
        if (!scalar)
            CHECK(tested >= (uint32_t)SCENES);
#endif
        if (scalar)
            CHECK_EQ_U64(tested, 0u);
    }
    free(run);
    throng_world_destroy(w);
}

TEST(avoid_lanes_edges_2d) {
    ar_edges(2);
}
TEST(avoid_lanes_edges_3d) {
    ar_edges(3);
}

/* ------------------------------------------------------------------------ */
/* A block of rows on the lanes                                             */
/* ------------------------------------------------------------------------ */

/* What the blocks of a world answered: rows whose force they gave (and
 * of those, rows with a force on), rows they left to the scalar kernel. */
typedef struct ar_tally {
    uint32_t answered, on, left;
} ar_tally;

/* The recipe finish's block of rows (w->env_block, the world's vector
 * path) against each row alone, for avoidance b: blocks of 16 rows and
 * of fewer, starting anywhere, every row asked for or a random part of
 * them (at times fewer than a block takes on the lanes). Each row the
 * block answers has the alone row's force to the bit, computed from its
 * desired velocity as the lanes do, and the block speaks only of the
 * rows asked for. */
static void ar_blocks(throng_world *w, uint32_t agents,
                      const throng_behaviour *b, uint64_t seed,
                      ar_tally *tally) {
    test_rng rng = test_rng_make(seed);
    for (uint32_t b0 = 0; b0 < agents;) {
        static const uint32_t sizes[4] = { 16u, 16u, 5u, 11u };
        uint32_t n = sizes[test_rng_below(&rng, 4u)];
        n = agents - b0 < n ? agents - b0 : n;
        const uint32_t all = n >= 32u ? ~0u : (1u << n) - 1u;
        const uint32_t pick = test_rng_below(&rng, 3u);
        uint32_t want = all;
        if (pick == 1u)
            want = (uint32_t)test_rng_below(&rng, 1u << 16) & all;
        else if (pick == 2u) {
            /* Two rows (or one twice). */
            const uint32_t one = 1u << test_rng_below(&rng, n);
            const uint32_t two = 1u << test_rng_below(&rng, n);
            want = one | two;
        }
        env_block blk;
        memset(&blk, 0xa5, sizeof blk);
        w->env_block(w, b, b0, NULL, n, want, &blk);
        CHECK((blk.on & ~want) == 0u && (blk.alone & ~want) == 0u &&
              (blk.on & blk.alone) == 0u);
        for (uint32_t u = 0; u < n; u++) {
            if (!((want >> u) & 1u))
                continue;
            if ((blk.alone >> u) & 1u) {
                tally->left++;
                continue;
            }
            steer_ctx a;
            steer_ctx_load(&a, w, b0 + u, AR_DT);
            ar_force ref, got;
            ref.on = steer_env_force(&a, b, ref.F);
            got.on = (int)((blk.on >> u) & 1u);
            memcpy(got.F, ref.F, sizeof got.F);
            if (got.on)
                for (int k = 0; k < 3; k++)
                    got.F[k] = a.m_dt * (blk.vd[k][u] - a.v[k]);
            tally->answered++;
            tally->on += (uint32_t)got.on;
            if (!ar_same(&got, &ref))
                runner_fail(__FILE__, __LINE__,
                            "%dD block at row %u (%u rows, want %x), row %u: "
                            "block %d (%g %g %g) vs alone %d (%g %g %g)",
                            w->dims, b0, n, want, b0 + u, got.on,
                            (double)got.F[0], (double)got.F[1],
                            (double)got.F[2], ref.on, (double)ref.F[0],
                            (double)ref.F[1], (double)ref.F[2]);
        }
        b0 += n;
    }
}

/* The blocks on every vector path here, on worlds of spheres and of
 * spheres and boxes, for each avoidance the world lists. */
static void ar_block_compare(int dims) {
    for (int spheres = 0; spheres < 2; spheres++)
        for (size_t pi = 0; pi < AR_PATHS; pi++) {
            const char *path = ar_paths[pi];
            if (!path || strcmp(path, "scalar") == 0)
                continue;
            throng_behaviour list[3];
            uint32_t agents = 0;
            throng_world *w = ar_world(dims, dims == 2 ? 73u : 74u, 1, spheres,
                                       &agents, list);
            REQUIRE(w != NULL);
            /* One step puts the rows in cell order. */
            CHECK_OK(throng_world_step(w, AR_DT));
            if (world_select_kernel(w, path) != 0 || !w->env_block) {
                throng_world_destroy(w);
                continue; /* not a path of this build and CPU */
            }
            REQUIRE(geometry_prepare(w) == 0);
            ar_tally tally = { 0, 0, 0 };
            for (int j = 0; j < 2; j++)
                ar_blocks(w, agents, &list[j], 5u + (uint64_t)j, &tally);
            /* Many rows are answered on the lanes, most with a force;
             * the rows asked for in twos, those of a group too wide or
             * too crowded with obstacles, those in a box, go to the
             * scalar kernel. */
            CHECK(tally.answered > agents / 3u);
            CHECK(tally.on > tally.answered / 4u);
            CHECK(tally.left > 0u);
            throng_world_destroy(w);
        }
}

TEST(avoid_blocks_match_alone_2d) {
    ar_block_compare(2);
}
TEST(avoid_blocks_match_alone_3d) {
    ar_block_compare(3);
}

/* ------------------------------------------------------------------------ */
/* The recipe finish with avoidance on the lanes                            */
/* ------------------------------------------------------------------------ */

/* A world for whole steps: spheres on a jittered lattice (some removed,
 * with a box among them when `box`), walls (segments, a plane in 3D),
 * and four groups interleaved so lanes mix them: avoidance first by
 * priority or weight with inverse-distance separation, a turning wander
 * and a seek; two avoidances of different reach with an arrive and
 * containment (in a box when `box`, and by the walls); containment and
 * avoidance with a cruising wander and no neighbour rules (finished
 * without a walk); a plain flock. Agents scattered, inside spheres, on a sphere's centre,
 * and heading straight at one (threats dead ahead), in 2D or 3D,
 * bounded or periodic. The hash after `steps` steps on kernel path
 * `path`, or 1 when the path is not here. */
typedef struct af_world {
    int dims, periodic, box;
    throng_combine_mode mode;
} af_world;

static uint64_t af_run(const af_world *cfg, const char *path, int steps) {
    const int dims = cfg->dims;
    const float side = 24.0f;
    throng_world_def def = ts_world_def(dims, 1, NULL);
    if (cfg->periodic)
        ts_world_def_periodic(&def, side);
    throng_world *w = ts_world_make(&def);
    if (!w)
        return 0;
    if (world_select_kernel(w, path) != 0) {
        throng_world_destroy(w);
        return 1;
    }
    test_rng rng = test_rng_make(17u + (uint64_t)cfg->mode);
    enum {
        PITCH = 3,
        PER = 8, /* lattice points per axis: side / PITCH */
        AGENTS = 1300
    };
    static float centre[PER * PER][3];
    int ok = 1;
    for (int i = 0; i < PER * PER && ok; i++) {
        /* Lattice point (column, row), jittered; the draws in order. */
        const int column = i % PER, row = i / PER;
        float c[3] = { 0.0f, 0.0f, 0.0f };
        c[0] =
            ((float)column + 0.5f) * PITCH + test_rng_range(&rng, -0.5f, 0.5f);
        c[1] = ((float)row + 0.5f) * PITCH + test_rng_range(&rng, -0.5f, 0.5f);
        if (dims == 3)
            c[2] = test_rng_range(&rng, 8.0f, 16.0f);
        memcpy(centre[i], c, sizeof c);
        throng_object obj;
        if (cfg->box && i == 27) {
            float lo[3] = { c[0] - 1.0f, c[1] - 0.5f, c[2] - 1.0f };
            float hi[3] = { c[0] + 0.5f, c[1] + 1.0f, c[2] + 1.0f };
            ok = add_box(w, lo, hi, &obj) == THRONG_OK;
        } else {
            ok = add_sphere(w, c, test_rng_range(&rng, 0.3f, 0.9f), &obj) ==
                 THRONG_OK;
        }
        if (ok && i % 11 == 5)
            ok = throng_object_remove(w, obj) == THRONG_OK;
    }
    /* Walls: segments across the middle and near one side in 2D, a
     * floor and a tilted plane in 3D. */
    throng_object wall;
    if (dims == 2) {
        const float a[3] = { 2.0f, 0.5f * side, 0.0f };
        const float b[3] = { side - 2.0f, 0.5f * side + 1.0f, 0.0f };
        const float c[3] = { 1.0f, 1.0f, 0.0f }, d[3] = { 1.0f, 20.0f, 0.0f };
        ok = ok && add_segment(w, a, b, &wall) == THRONG_OK;
        ok = ok && add_segment(w, c, d, &wall) == THRONG_OK;
    } else {
        const float floor_at[3] = { 0.0f, 0.0f, 7.0f };
        const float floor_up[3] = { 0.0f, 0.0f, 1.0f };
        const float tilted_at[3] = { 2.0f, 0.0f, 0.0f };
        const float tilted_up[3] = { 0.8f, 0.6f, 0.0f };
        ok = ok && add_plane(w, floor_at, floor_up, &wall) == THRONG_OK;
        ok = ok && add_plane(w, tilted_at, tilted_up, &wall) == THRONG_OK;
    }
    throng_behaviour contain =
        throng_behaviour_default(THRONG_BEHAVIOUR_CONTAIN);
    contain.u.contain.use_box = cfg->box;
    contain.u.contain.use_walls = true;
    contain.u.contain.range = 1.5f;
    for (int k = 0; k < 3 && cfg->box; k++) {
        contain.u.contain.box_min[k] = 3.0f;
        contain.u.contain.box_max[k] = side - 3.0f;
    }
    contain.priority = 4;
    contain.weight = 0.7f;
    throng_behaviour avoid =
        throng_behaviour_default(THRONG_BEHAVIOUR_AVOID_OBSTACLES);
    avoid.priority = 3;
    avoid.weight = 1.2f;
    avoid.speed_factor = 0.8f;
    throng_behaviour far = avoid;
    far.u.avoid.min_length = 5.0f;
    far.u.avoid.lookahead_time = 0.25f;
    far.priority = 2;
    throng_behaviour seek = throng_behaviour_default(THRONG_BEHAVIOUR_SEEK);
    seek.u.seek.source = THRONG_TARGET_FIXED_POINT;
    seek.u.seek.point[0] = 0.5f * side;
    seek.weight = 0.5f;
    throng_behaviour arrive = throng_behaviour_default(THRONG_BEHAVIOUR_ARRIVE);
    arrive.u.seek.source = THRONG_TARGET_FIXED_POINT;
    arrive.u.seek.point[1] = 0.5f * side;
    arrive.u.seek.braking_distance = 3.0f;

    throng_group groups[4];
    throng_group_def g = throng_group_def_default();
    g.combine = cfg->mode;
    g.flocking.separation_mode = THRONG_SEPARATION_INVERSE_DISTANCE;
    g.flocking.separation_radius = 0.8f;
    g.flocking.separation_priority = 1;
    g.flocking.alignment_weight = 0.0f;
    g.flocking.cohesion_weight = 0.0f;
    g.wander.weight = 0.6f;
    g.wander.max_turn_rate = 2.5f;
    g.wander.max_turn_change = 1.1f;
    ok = ok && throng_group_create(w, &g, &groups[0]) == THRONG_OK &&
         throng_group_add_behaviour(w, groups[0], &avoid, NULL) == THRONG_OK &&
         throng_group_add_behaviour(w, groups[0], &seek, NULL) == THRONG_OK;
    g.combine = THRONG_COMBINE_WEIGHTED_SUM;
    ok = ok && throng_group_create(w, &g, &groups[1]) == THRONG_OK &&
         throng_group_add_behaviour(w, groups[1], &far, NULL) == THRONG_OK &&
         throng_group_add_behaviour(w, groups[1], &avoid, NULL) == THRONG_OK &&
         throng_group_add_behaviour(w, groups[1], &arrive, NULL) == THRONG_OK &&
         throng_group_add_behaviour(w, groups[1], &contain, NULL) == THRONG_OK;
    throng_group_def lone = throng_group_def_default();
    lone.combine = cfg->mode == THRONG_COMBINE_PRIORITY
                       ? THRONG_COMBINE_WEIGHTED_AVERAGE
                       : THRONG_COMBINE_PRIORITY;
    lone.flocking.separation_weight = 0.0f;
    lone.flocking.alignment_weight = 0.0f;
    lone.flocking.cohesion_weight = 0.0f;
    lone.wander.weight = 0.4f;
    lone.wander.max_turn_rate = 0.0f;
    lone.wander.max_turn_change = 0.0f;
    ok =
        ok && throng_group_create(w, &lone, &groups[2]) == THRONG_OK &&
        throng_group_add_behaviour(w, groups[2], &contain, NULL) == THRONG_OK &&
        throng_group_add_behaviour(w, groups[2], &avoid, NULL) == THRONG_OK;
    throng_group_def plain = throng_group_def_default();
    ok = ok && throng_group_create(w, &plain, &groups[3]) == THRONG_OK;

    static throng_agent h[AGENTS];
    for (int i = 0; i < AGENTS && ok; i++) {
        throng_agent_def a = throng_agent_def_default();
        const int kind = i % 10;
        a.group = groups[kind < 5 ? 0 : kind < 7 ? 1 : kind < 9 ? 2 : 3];
        a.radius = 0.3f;
        a.max_speed = 1.5f;
        a.max_force = test_rng_range(&rng, 0.5f, 3.0f);
        const float *c = centre[test_rng_below(&rng, PER * PER)];
        const uint32_t how = test_rng_below(&rng, 16u);
        for (int k = 0; k < dims; k++) {
            a.position[k] = test_rng_range(&rng, 0.0f, side);
            a.velocity[k] = test_rng_range(&rng, -1.0f, 1.0f);
        }
        if (how == 0u) {
            /* Inside a sphere, near its centre or on it. */
            for (int k = 0; k < dims; k++)
                a.position[k] =
                    c[k] + (i & 16 ? 0.0f : test_rng_range(&rng, -0.2f, 0.2f));
        } else if (how == 1u) {
            /* Heading straight at a centre along x. */
            memcpy(a.position, c, sizeof a.position);
            a.position[0] -= 2.0f;
            memset(a.velocity, 0, sizeof a.velocity);
            a.velocity[0] = 1.0f;
        }
        if (dims == 2)
            a.position[2] = a.velocity[2] = 0.0f;
        ok = throng_agent_add(w, &a, &h[i]) == THRONG_OK;
    }
    for (int s = 0; s < steps && ok; s++) {
        ok = throng_world_step(w, AR_DT) == THRONG_OK;
        if (s == steps / 2)
            for (int i = 3; i < AGENTS && ok; i += 29)
                ok = throng_agent_remove(w, h[i]) == THRONG_OK;
    }
    uint64_t hash = ok ? throng_world_hash(w) : 0;
    throng_world_destroy(w);
    return hash;
}

static uint64_t af_run_30(const void *cfg, const char *simd) {
    return af_run(cfg, simd, 30);
}

TEST(avoid_finish_lanes_match_scalar) {
    static const throng_combine_mode modes[3] = {
        THRONG_COMBINE_WEIGHTED_SUM, THRONG_COMBINE_WEIGHTED_AVERAGE,
        THRONG_COMBINE_PRIORITY
    };
    for (int v = 0; v < 6; v++) {
        const af_world cfg = {
            .dims = 2 + (v & 1),
            .periodic = v % 3 == 1,
            .box = v % 4 < 2,
            .mode = modes[(v >> 1) % 3],
        };
        char what[64];
        snprintf(what, sizeof what, "avoidance world %d (%dD, mode %d)", v,
                 cfg.dims, (int)cfg.mode);
        runner_paths_match_scalar(__FILE__, __LINE__, what, af_run_30, &cfg);
    }
}

/* Runs are per thread: 1 and 2 threads step to the same state. */
TEST(avoid_run_threads) {
    for (int dims = 2; dims <= 3; dims++) {
        uint64_t hash[2] = { 0, 0 };
        for (int threads = 1; threads <= 2; threads++) {
            throng_behaviour list[3];
            uint32_t agents = 0;
            throng_world *w =
                ar_world(dims, 90u + (uint64_t)dims, threads, 0, &agents, list);
            REQUIRE(w != NULL);
            for (int s = 0; s < 20; s++)
                CHECK_OK(throng_world_step(w, AR_DT));
            hash[threads - 1] = throng_world_hash(w);
            throng_world_destroy(w);
        }
        CHECK_EQ_U64(hash[0], hash[1]);
    }
}

void register_avoid_run_tests(void) {
    REGISTER(avoid_run_matches_alone_and_scan_2d);
    REGISTER(avoid_run_matches_alone_and_scan_3d);
    REGISTER(avoid_lanes_edges_2d);
    REGISTER(avoid_lanes_edges_3d);
    REGISTER(avoid_blocks_match_alone_2d);
    REGISTER(avoid_blocks_match_alone_3d);
    REGISTER(avoid_finish_lanes_match_scalar);
    REGISTER(avoid_run_threads);
}
