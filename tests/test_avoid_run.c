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
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "object_defs.h"
#include "runner.h"

#include "behaviour.h"
#include "geometry.h"
#include "internal.h"
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

/* A world of `dims` with many overlapping spheres and boxes in a small
 * space (a few removed), two groups (one avoidance; two avoidances of
 * different reach) and agents scattered, inside obstacles, and heading
 * along an axis exactly tangent to an obstacle, so the corridor box
 * touches its bounds. Returns the world; *agents its agent count. */
static throng_world *ar_world(int dims, uint64_t seed, int threads,
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
        if (test_rng_below(&rng, 2u) == 0u) {
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

static void ar_compare(int dims) {
    throng_behaviour list[3];
    uint32_t agents = 0;
    throng_world *w = ar_world(dims, dims == 2 ? 71u : 72u, 1, &agents, list);
    REQUIRE(w != NULL);
    /* One step puts the rows in cell order, as the finish sees them. */
    REQUIRE_OK(throng_world_step(w, AR_DT));
    REQUIRE(geometry_prepare(w) == 0);
    geo_grid *g = &w->geo->grid;
    REQUIRE(g->built && g->version == w->geo->version);

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
        return;
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
                    int n = ar_row(w, t, run, got);
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
     * for some dropped candidate. */
    uint32_t noticed = 0, tried = 0;
    for (uint32_t b = 0; b + 16u <= agents; b += 16u) {
        steer_env_run_begin(run, b, b + 16u);
        ar_force first[2];
        ar_row(w, b, run, first); /* fills the group that starts at b */
        if (!run->usable || run->count == 0)
            continue;
        for (uint32_t drop = 0; drop < run->count; drop++) {
            memcpy(cut, run, sizeof *cut);
            for (uint32_t j = drop; j + 1u < cut->count; j++) {
                cut->id[j] = cut->id[j + 1u];
                for (int k = 0; k < 3; k++) {
                    cut->blo[k][j] = cut->blo[k][j + 1u];
                    cut->bhi[k][j] = cut->bhi[k][j + 1u];
                }
            }
            cut->count--;
            tried++;
            int differs = 0;
            for (uint32_t t = cut->first; t < cut->stop; t++) {
                ar_force got[2];
                int n = ar_row(w, t, cut, got);
                for (int j = 0; j < n; j++)
                    differs |= !ar_same(&got[j], &alone[t][j]);
            }
            noticed += (uint32_t)differs;
        }
    }
    CHECK(tried > 100u);
    CHECK(noticed > tried / 20u);
    free(run);
    free(cut);
    free(alone);
    free(scan);
    throng_world_destroy(w);
}

TEST(avoid_run_matches_alone_and_scan_2d) {
    ar_compare(2);
}
TEST(avoid_run_matches_alone_and_scan_3d) {
    ar_compare(3);
}

/* Runs are per thread: 1 and 2 threads step to the same state. */
TEST(avoid_run_threads) {
    for (int dims = 2; dims <= 3; dims++) {
        uint64_t hash[2] = { 0, 0 };
        for (int threads = 1; threads <= 2; threads++) {
            throng_behaviour list[3];
            uint32_t agents = 0;
            throng_world *w =
                ar_world(dims, 90u + (uint64_t)dims, threads, &agents, list);
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
    REGISTER(avoid_run_threads);
}
