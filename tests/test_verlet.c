/* SPDX-License-Identifier: MIT */
/*
 * Neighbour lists kept across ticks (verlet.c) through the public API:
 * with any skin every agent ends in the same state, to the bit, as
 * without lists (ORCA's choice does not depend on the order candidates
 * come in), in 2D and 3D, in a ring whose rows follow space and a crowd
 * whose rows do not; the same bits on every thread count and kernel
 * path; a world whose stages could not use them steps exactly as without
 * a skin; agents added, removed or moved far between steps, and queries,
 * change nothing; a loaded snapshot with the skin set again steps on to
 * the same bits; the rows' guesses for the scan, whatever they hold,
 * change no state; a bad skin is refused with the world unchanged; and,
 * looked at directly, a build's lists hold every row within the radius
 * and skin, knots of more rows than a list holds exactly among them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "runner.h"
#include "verlet.h"

#define VL_DT 0.1f
#define VL_AGENTS 240
#define VL_RADIUS 3.0f

typedef struct vl_scene {
    int dims;
    /* 0: scattered; 1: round a ring (rows follow it); 2: a band of two
     * files, rows along it, crossing to the far side: a list covers 18
     * rows or more, close in row order (its windows); 3: a square
     * marching, each agent's goal its place moved 40 m */
    int ring;
    float skin; /* 0: no lists */
    int threads;
    int separate; /* the group also separates: the lists cannot serve */
    int contact;  /* contact passes: the lists cannot serve */
    float offset; /* the whole scene moved this far along x and -y */
} vl_scene;

typedef struct vl_world {
    throng_world *w;
    throng_group g;
    throng_agent agents[VL_AGENTS + 1];
    int count;
} vl_world;

static throng_agent vl_add(vl_world *v, const float p[3], const float goal[3]) {
    throng_agent_def d = throng_agent_def_default();
    memcpy(d.position, p, sizeof d.position);
    d.radius = 0.3f;
    d.max_speed = 1.5f;
    d.max_force = 20.0f;
    d.group = v->g;
    throng_agent a = { 0 };
    if (throng_agent_add(v->w, &d, &a) == THRONG_OK)
        (void)throng_agent_set_target_point(v->w, a, goal);
    return a;
}

/* The scene on kernel path `path` (NULL: the default); v->w NULL when a
 * part was refused or the path is missing. */
static void vl_make(vl_world *v, const vl_scene *s, const char *path) {
    memset(v, 0, sizeof *v);
    throng_world_def def = ts_world_def(s->dims, s->threads, NULL);
    def.neighbour_radius = VL_RADIUS;
    throng_world *w = runner_on_path(ts_world_make(&def), path);
    if (!w)
        return;
    v->w = w;
    throng_group_def gd = throng_group_def_default();
    gd.avoidance.mode = THRONG_AVOIDANCE_ORCA;
    gd.avoidance.time_horizon = 2.0f;
    gd.avoidance.keep_right = 0.3f;
    gd.avoidance.nudge = 0.02f;
    gd.avoidance.contact_iterations = s->contact ? 2u : 0u;
    gd.flocking.separation_weight = s->separate ? 0.5f : 0.0f;
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_ARRIVE);
    b.u.seek.braking_distance = 1.0f;
    if (throng_world_set_neighbour_skin(w, s->skin) != THRONG_OK ||
        throng_group_create(w, &gd, &v->g) != THRONG_OK ||
        throng_group_add_behaviour(w, v->g, &b, NULL) != THRONG_OK) {
        throng_world_destroy(w);
        v->w = NULL;
        return;
    }
    test_rng rng = test_rng_make(7u + (uint64_t)s->dims);
    /* A ring 1 m apart crossing to the far side, or a square (cube) of
     * scattered agents with goals across it. */
    const float ring = (float)VL_AGENTS / 6.2831853f;
    for (int i = 0; i < VL_AGENTS; i++) {
        float p[3] = { 0.0f, 0.0f, 0.0f }, goal[3] = { 0.0f, 0.0f, 0.0f };
        if (s->ring == 3) {
            const int line = i / 16;
            p[0] = 1.2f * (float)(i % 16);
            p[1] = 1.2f * (float)line;
            goal[0] = p[0] + 36.0f;
            goal[1] = p[1] + 18.0f;
            if (s->dims == 3)
                p[2] = goal[2] = 1.2f * (float)(i % 3);
        } else if (s->ring == 2) {
            p[0] = 0.35f * (float)i;
            p[1] = (float)(i % 2) * 0.7f;
            goal[0] = p[0];
            goal[1] = i % 2 ? -6.0f : 6.7f;
            if (s->dims == 3)
                p[2] = goal[2] = test_rng_range(&rng, -0.05f, 0.05f);
        } else if (s->ring) {
            const float a = 6.2831853f * (float)i / (float)VL_AGENTS;
            p[0] = ring * cosf(a);
            p[1] = ring * sinf(a);
            goal[0] = -p[0];
            goal[1] = -p[1];
            if (s->dims == 3) {
                p[2] = test_rng_range(&rng, -0.5f, 0.5f);
                goal[2] = -p[2];
            }
        } else {
            for (int k = 0; k < s->dims; k++) {
                p[k] = test_rng_range(&rng, 0.0f, 24.0f);
                goal[k] = test_rng_range(&rng, 0.0f, 24.0f);
            }
        }
        p[0] += s->offset;
        p[1] -= s->offset;
        goal[0] += s->offset;
        goal[1] -= s->offset;
        v->agents[v->count++] = vl_add(v, p, goal);
    }
}

/* Every agent's position and velocity, in the order they were added:
 * the state, whatever rows the agents hold (the state hash mixes the
 * rows in too). */
static uint64_t vl_digest(const vl_world *v) {
    uint64_t h = 0x766c6973ull;
    for (int i = 0; i < v->count; i++) {
        float p[3], u[3];
        if (throng_agent_get_position(v->w, v->agents[i], p) != THRONG_OK ||
            throng_agent_get_velocity(v->w, v->agents[i], u) != THRONG_OK)
            return 0;
        for (int k = 0; k < 3; k++) {
            uint32_t a, b;
            memcpy(&a, &p[k], sizeof a);
            memcpy(&b, &u[k], sizeof b);
            h = (h ^ a) * 0x100000001b3ull;
            h = (h ^ b) * 0x100000001b3ull;
        }
    }
    return h;
}

static int vl_steps(vl_world *v, int steps) {
    for (int s = 0; s < steps; s++)
        if (throng_world_step(v->w, VL_DT) != THRONG_OK)
            return 0;
    return 1;
}

/* The scene's state after `steps` steps (0 when refused), and in
 * *bytes the world's heap then. */
static uint64_t vl_run(const vl_scene *s, int steps, size_t *bytes) {
    vl_world v;
    vl_make(&v, s, NULL);
    if (!v.w)
        return 0;
    const uint64_t h = vl_steps(&v, steps) ? vl_digest(&v) : 0u;
    if (bytes)
        *bytes = throng_world_bytes(v.w);
    throng_world_destroy(v.w);
    return h;
}

/* Any skin, the same states as none: a ring crossing its middle (where
 * every agent solves), a scattered crowd and a band crossing itself
 * (lists scanned a window at a time), in 2D and 3D; the lists were built
 * (the world holds more). */
TEST(verlet_same_states) {
    static const float skins[] = { 0.25f, 1.0f, 3.0f };
    for (int dims = 2; dims <= 3; dims++)
        for (int ring = 0; ring <= 2; ring++) {
            vl_scene s = { dims, ring, 0.0f, 1, 0, 0, 0.0f };
            size_t plain_bytes = 0;
            const uint64_t plain = vl_run(&s, 150, &plain_bytes);
            CHECK(plain != 0u);
            for (size_t k = 0; k < sizeof skins / sizeof skins[0]; k++) {
                s.skin = skins[k];
                size_t bytes = 0;
                const uint64_t listed = vl_run(&s, 150, &bytes);
                if (listed != plain || !(bytes > plain_bytes))
                    runner_fail(__FILE__, __LINE__,
                                "%dD %s, skin %.2f: state %llx against %llx "
                                "without lists, %zu bytes against %zu",
                                dims,
                                ring == 2 ? "band"
                                : ring    ? "ring"
                                          : "scattered",
                                (double)skins[k], (unsigned long long)listed,
                                (unsigned long long)plain, bytes, plain_bytes);
            }
        }
}

static uint64_t vl_path_run(const void *cfg, const char *path) {
    vl_world v;
    vl_make(&v, cfg, path);
    return runner_steps_hash(v.w, path, 60, VL_DT);
}

/* With lists, the same state hash (rows included) on 1 to 4 threads and
 * on every kernel path. */
TEST(verlet_threads_and_paths) {
    for (int dims = 2; dims <= 3; dims++)
        for (int kind = 0; kind <= 2; kind += 2) {
            vl_scene s = { dims, kind, 1.0f, 1, 0, 0, 0.0f };
            const uint64_t one = vl_path_run(&s, NULL);
            CHECK(one != 0u);
            for (int threads = 2; threads <= 4; threads++) {
                s.threads = threads;
                CHECK_EQ_U64(vl_path_run(&s, NULL), one);
            }
            s.threads = 2;
            char what[48];
            snprintf(what, sizeof what, "%dD %s with lists", dims,
                     kind ? "band" : "crowd");
            runner_paths_match_scalar(__FILE__, __LINE__, what, vl_path_run,
                                      &s);
        }
}

/* The rows' guesses for the velocity stage's scan (verlet_lists.guess)
 * steer only how much it holds: overwritten before every step with
 * values from NaN and negatives to tiny, huge and infinite, the states
 * are those of the guesses the stage left, in 2D and 3D; and the stage
 * did leave some (the band's lists are scanned with them). */
TEST(verlet_guesses_change_nothing) {
    static const float poison[] = { NAN,   -1.0f, 0.0f,  1e-30f,
                                    0.01f, 0.5f,  1e30f, INFINITY };
    const uint32_t kinds = sizeof poison / sizeof poison[0];
    for (int dims = 2; dims <= 3; dims++) {
        uint64_t digest[2] = { 0, 0 };
        int guessed = 0, lanes = 0;
        for (int run = 0; run < 2; run++) {
            const vl_scene s = { dims, 2, 1.0f, 2, 0, 0, 0.0f };
            vl_world v;
            vl_make(&v, &s, NULL);
            REQUIRE(v.w != NULL);
            verlet_lists *lists = &v.w->verlet;
            lanes = v.w->hold_rows != NULL && v.w->count_below != NULL;
            for (uint32_t step = 0; step < 80; step++) {
                if (run == 1 && lists->capacity >= v.w->count)
                    for (uint32_t t = 0; t < v.w->count; t++)
                        lists->guess[t] = poison[(t + step) % kinds];
                CHECK_OK(throng_world_step(v.w, VL_DT));
                if (run == 0 && lists->active)
                    for (uint32_t t = 0; t < v.w->count; t++)
                        guessed |= lists->guess[t] > 0.0f;
            }
            digest[run] = vl_digest(&v);
            throng_world_destroy(v.w);
        }
        /* Only the vector paths scan with guesses (a scalar build has
         * none to take). */
        CHECK(guessed || !lanes);
        CHECK(digest[0] != 0u);
        CHECK_EQ_U64(digest[1], digest[0]);
    }
}

/* Where some stage's result follows the order of its candidates (a
 * neighbour walk, contact passes) or canonical order is on, the skin
 * changes nothing at all: the same hash, rows included, as without. */
TEST(verlet_unused_where_order_matters) {
    for (int kind = 0; kind < 3; kind++) {
        vl_scene s = { 2, 0, 0.0f, 2, kind == 0, kind == 1, 0.0f };
        vl_world a, b;
        vl_make(&a, &s, NULL);
        s.skin = 2.0f;
        vl_make(&b, &s, NULL);
        REQUIRE(a.w != NULL && b.w != NULL);
        if (kind == 2) {
            REQUIRE_OK(throng_world_set_canonical_order(a.w, true));
            REQUIRE_OK(throng_world_set_canonical_order(b.w, true));
        }
        CHECK(vl_steps(&a, 40) && vl_steps(&b, 40));
        CHECK_EQ_U64(throng_world_hash(b.w), throng_world_hash(a.w));
        throng_world_destroy(a.w);
        throng_world_destroy(b.w);
    }
}

/* Between steps: a radius query every step, an agent added, one removed,
 * one moved 6 m (past any skin), one moved a hair. The states follow a
 * world without lists; the queries leave the state hash as it was. */
static void vl_meddle(vl_world *v, int step, int query) {
    if (query) {
        const float at[3] = { 12.0f, 12.0f, 12.0f };
        throng_agent found[8];
        uint32_t n = 0;
        bool cut = false;
        (void)throng_world_query_radius(v->w, at, 4.0f, found, 8, &n, &cut);
    }
    if (step == 10) {
        const float p[3] = { 12.0f, 12.5f, 3.0f }, g[3] = { 1.0f, 2.0f, 3.0f };
        v->agents[v->count] = vl_add(v, p, g);
        v->count++;
    } else if (step == 20) {
        (void)throng_agent_remove(v->w, v->agents[5]);
        v->agents[5] = v->agents[--v->count];
    } else if (step == 30 || step == 35) {
        float p[3];
        (void)throng_agent_get_position(v->w, v->agents[9], p);
        p[0] += step == 30 ? 6.0f : 1e-3f;
        (void)throng_agent_set_position(v->w, v->agents[9], p);
    }
}

TEST(verlet_changes_between_steps) {
    uint64_t digest[3] = { 0, 0, 0 }, hash[3] = { 0, 0, 0 };
    for (int run = 0; run < 3; run++) {
        /* Run 0 without lists, 1 and 2 with; 2 without the queries. */
        const vl_scene s = { 2, 0, run == 0 ? 0.0f : 1.5f, 2, 0, 0, 0.0f };
        vl_world v;
        vl_make(&v, &s, NULL);
        REQUIRE(v.w != NULL);
        for (int step = 0; step < 50; step++) {
            vl_meddle(&v, step, run != 2);
            CHECK_OK(throng_world_step(v.w, VL_DT));
        }
        digest[run] = vl_digest(&v);
        hash[run] = throng_world_hash(v.w);
        throng_world_destroy(v.w);
    }
    CHECK(digest[0] != 0u);
    CHECK_EQ_U64(digest[1], digest[0]);
    CHECK_EQ_U64(digest[2], digest[0]);
    CHECK_EQ_U64(hash[2], hash[1]);
}

/* A snapshot mid-run, loaded, the skin set again: both step on to the
 * same state hash, rows included (the lists never move the rows). */
TEST(verlet_snapshot) {
    const vl_scene s = { 2, 1, 1.5f, 2, 0, 0, 0.0f };
    vl_world v;
    vl_make(&v, &s, NULL);
    REQUIRE(v.w != NULL);
    CHECK(vl_steps(&v, 15));
    size_t n = 0;
    CHECK_STATUS(throng_world_save(v.w, NULL, 0, &n), THRONG_ERR_CAPACITY);
    unsigned char *buf = malloc(n);
    REQUIRE(buf != NULL);
    REQUIRE_OK(throng_world_save(v.w, buf, n, &n));
    throng_world *back = NULL;
    REQUIRE_OK(throng_world_load(buf, n, NULL, &back));
    CHECK(throng_world_neighbour_skin(back) == 0.0f); /* not saved */
    REQUIRE_OK(throng_world_set_neighbour_skin(back, 1.5f));
    for (int k = 0; k < 25; k++) {
        REQUIRE_OK(throng_world_step(v.w, VL_DT));
        REQUIRE_OK(throng_world_step(back, VL_DT));
    }
    CHECK_EQ_U64(throng_world_hash(back), throng_world_hash(v.w));
    free(buf);
    throng_world_destroy(back);
    throng_world_destroy(v.w);
}

/* Lists kept hold every pair within the radius at each tick they serve,
 * to the pair: brute force over every pair at the positions the tick
 * started from, in a crowd crossing itself, a ring closing on its
 * centre, a band and a square marching, in 2D and 3D, with a skin of a
 * quarter metre, less than two ticks' walk, near the origin and 30 km
 * from it (where a float's step is 2 mm). Verlet's test alone would
 * build the ring's and the square's lists anew nearly every tick; kept
 * in the crowd's frame (verlet_frame.c), they are built a few times. */
TEST(verlet_frame_keeps_every_pair) {
    enum {
        TICKS = 120
    };
    for (int far = 0; far <= 1; far++)
        for (int dims = 2; dims <= 3; dims++)
            for (int kind = 0; kind <= 3; kind++) {
                const vl_scene s = {
                    dims, kind, 0.25f, 1, 0, 0, far ? 30000.0f : 0.0f
                };
                vl_world v;
                vl_make(&v, &s, NULL);
                REQUIRE(v.w != NULL);
                const verlet_lists *lists = &v.w->verlet;
                const float r2 = VL_RADIUS * VL_RADIUS;
                static float at[3][VL_AGENTS];
                uint64_t missed = 0, pairs = 0;
                uint32_t served = 0;
                for (int tick = 0; tick < TICKS; tick++) {
                    const uint32_t n = v.w->count;
                    const float *col[3] = { v.w->col.px, v.w->col.py,
                                            v.w->col.pz };
                    for (int k = 0; k < dims; k++)
                        memcpy(at[k], col[k], n * sizeof(float));
                    REQUIRE_OK(throng_world_step(v.w, VL_DT));
                    if (!lists->active)
                        continue;
                    served++;
                    for (uint32_t i = 0; i < n; i++) {
                        const uint32_t *runs;
                        const uint32_t nr = verlet_row_runs(lists, i, &runs);
                        for (uint32_t j = 0; j < n; j++) {
                            float d2 = 0.0f;
                            for (int k = 0; k < dims; k++) {
                                const float dk = at[k][j] - at[k][i];
                                d2 += dk * dk;
                            }
                            if (j == i || !(d2 <= r2))
                                continue;
                            pairs++;
                            int in = 0;
                            for (uint32_t r = 0; r < nr; r++)
                                in |=
                                    j >= runs[2u * r] && j < runs[2u * r + 1u];
                            missed += !in;
                        }
                    }
                }
                /* The ring and the square are built at most a third as often
             * as they served. */
                const int together = kind == 1 || kind == 3;
                if (missed || pairs == 0 || served < TICKS - 1 ||
                    (together && lists->builds * 3u > served))
                    runner_fail(__FILE__, __LINE__,
                                "%dD scene %d%s: %llu of %llu pairs within the "
                                "radius missing from the lists; %u builds for "
                                "%u ticks served",
                                dims, kind, far ? " far out" : "",
                                (unsigned long long)missed,
                                (unsigned long long)pairs, lists->builds,
                                served);
                throng_world_destroy(v.w);
            }
}

/* A bad skin is refused, by kind, and changes nothing. */
TEST(verlet_bad_skin) {
    const vl_scene s = { 2, 0, 1.0f, 1, 0, 0, 0.0f };
    vl_world v;
    vl_make(&v, &s, NULL);
    REQUIRE(v.w != NULL);
    CHECK(vl_steps(&v, 3));
    const uint64_t before = throng_world_hash(v.w);
    CHECK_STATUS(throng_world_set_neighbour_skin(v.w, NAN),
                 THRONG_ERR_NOT_FINITE);
    CHECK_STATUS(throng_world_set_neighbour_skin(v.w, INFINITY),
                 THRONG_ERR_NOT_FINITE);
    CHECK_STATUS(throng_world_set_neighbour_skin(v.w, -0.5f),
                 THRONG_ERR_OUT_OF_RANGE);
    CHECK_STATUS(throng_world_set_neighbour_skin(v.w, VL_RADIUS * 1.01f),
                 THRONG_ERR_OUT_OF_RANGE);
    CHECK_STATUS(throng_world_set_neighbour_skin(NULL, 1.0f), THRONG_ERR_NULL);
    CHECK(throng_world_neighbour_skin(v.w) == 1.0f);
    CHECK(throng_world_neighbour_skin(NULL) == 0.0f);
    CHECK_EQ_U64(throng_world_hash(v.w), before);
    /* The ends of the range are taken. */
    CHECK_OK(throng_world_set_neighbour_skin(v.w, VL_RADIUS));
    CHECK_OK(throng_world_set_neighbour_skin(v.w, 0.0f));
    CHECK_EQ_U64(throng_world_hash(v.w), before);
    throng_world_destroy(v.w);
}

enum {
    KNOT = 600,
    SCATTERED = 900,
    BAND = 200,
    FILE_ROWS = 100,
    COMB = 100,
    N = KNOT + SCATTERED + BAND + FILE_ROWS + COMB
};

/* The scene of verlet_lists_cover_neighbours on kernel path `path`
 * (NULL: the default), stepped once with lists of the skin; NULL where
 * the path is missing or a part was refused. */
static throng_world *cover_world(int dims, float skin, const char *path) {
    throng_world_def def = ts_world_def(dims, 1 + (dims == 3), NULL);
    def.neighbour_radius = VL_RADIUS;
    throng_world *w = runner_on_path(ts_world_make(&def), path);
    if (w == NULL)
        return NULL;
    throng_group_def gd = throng_group_def_default();
    gd.avoidance.mode = THRONG_AVOIDANCE_ORCA;
    throng_group g;
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_ARRIVE);
    int ok = throng_world_set_neighbour_skin(w, skin) == THRONG_OK &&
             throng_group_create(w, &gd, &g) == THRONG_OK &&
             throng_group_add_behaviour(w, g, &b, NULL) == THRONG_OK;
    test_rng rng = test_rng_make(0x115du + (uint64_t)dims);
    for (int i = 0; i < N && ok; i++) {
        throng_agent_def d = throng_agent_def_default();
        d.radius = 0.05f;
        d.group = g;
        /* Knot and crowd interleaved, so no row order follows space;
         * then a band of two files off the crowd, rows along it. */
        const int knot = i % 5 < 2;
        if (i >= KNOT + SCATTERED + BAND + FILE_ROWS) {
            /* A comb: rows in turn in two files far apart, so a list's
             * rows are every other row, more runs than a list keeps. */
            d.position[0] = 0.3f * (float)i;
            d.position[1] = 130.0f + 30.0f * (float)(i % 2);
        } else if (i >= KNOT + SCATTERED + BAND) {
            /* One file, a ring's arc: short lists of two runs. */
            d.position[0] = 1.0f * (float)i;
            d.position[1] = 100.0f;
        } else if (i >= KNOT + SCATTERED) {
            d.position[0] = 0.35f * (float)i;
            d.position[1] = 70.0f + 0.7f * (float)(i % 2);
        } else {
            for (int k = 0; k < dims; k++)
                d.position[k] = knot ? test_rng_range(&rng, 29.0f, 30.5f)
                                     : test_rng_range(&rng, 0.0f, 60.0f);
        }
        throng_agent a;
        const float goal[3] = { 30.0f, 30.0f, 0.0f };
        ok = throng_agent_add(w, &d, &a) == THRONG_OK &&
             throng_agent_set_target_point(w, a, goal) == THRONG_OK;
    }
    if (!ok || throng_world_step(w, 0.01f) != THRONG_OK) {
        throng_world_destroy(w);
        return NULL;
    }
    return w;
}

/* Whether two builds made the same lists: each row's runs, the rows
 * they cover, its own row among them, and its windows. */
static int same_lists(const verlet_lists *a, const verlet_lists *b,
                      uint32_t rows) {
    if (a->rows != rows || b->rows != rows)
        return 0;
    for (uint32_t t = 0; t < rows; t++) {
        const uint32_t *ra, *rb, *wa, *wb;
        const uint32_t n = verlet_row_runs(a, t, &ra);
        const uint32_t nw = verlet_row_windows(a, t, &wa);
        if (verlet_row_runs(b, t, &rb) != n ||
            verlet_row_windows(b, t, &wb) != nw ||
            a->covered[t] != b->covered[t] ||
            verlet_row_self(a, t) != verlet_row_self(b, t) ||
            memcmp(ra, rb, 2u * n * sizeof *ra) != 0 ||
            memcmp(wa, wb, 2u * nw * sizeof *wa) != 0)
            return 0;
    }
    return 1;
}

/* A build's lists against brute force: every row within R + skin of a
 * row (where the build saw them) lies in one of its runs, and the runs
 * are at most VERLET_RUNS, ascending and apart. The scene has a knot of
 * more agents than a list holds exactly (VERLET_HELD, 512), whose rows
 * get one run, and a scattered crowd whose rows do not follow space, so
 * their lists are cut at their widest gaps; a band, a file and a comb
 * have rows that follow space, listed from a window of rows (short
 * lists, lists with windows, lists of more runs than kept). A vector path scans a
 * block's candidates on its lanes, the scalar path one by one: the same
 * lists, to the row. */
TEST(verlet_lists_cover_neighbours) {
    const float skin = 1.5f;
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *w = cover_world(dims, skin, NULL);
        REQUIRE(w != NULL);
        throng_world *plain = cover_world(dims, skin, "scalar");
        REQUIRE(plain != NULL);
        CHECK(same_lists(&w->verlet, &plain->verlet, (uint32_t)N));
        throng_world_destroy(plain);
        const verlet_lists *v = &w->verlet;
        REQUIRE(v->valid && v->rows == (uint32_t)N);
        const float reach = VL_RADIUS + skin;
        uint64_t missed = 0, bad_runs = 0, knots = 0;
        uint64_t bad_windows = 0, band_windowed = 0;
        for (uint32_t t = 0; t < (uint32_t)N; t++) {
            const uint32_t *runs;
            const uint32_t n = verlet_row_runs(v, t, &runs);
            bad_runs += n > VERLET_RUNS;
            /* What the build says of the runs: the rows they cover and
             * whether t is one of them. */
            uint32_t covered = 0;
            int self = 0;
            for (uint32_t r = 0; r < n && r < VERLET_RUNS; r++) {
                bad_runs += runs[2u * r] >= runs[2u * r + 1u] ||
                            (r > 0 && runs[2u * r] <= runs[2u * r - 1u]);
                covered += runs[2u * r + 1u] - runs[2u * r];
                self |= t >= runs[2u * r] && t < runs[2u * r + 1u];
            }
            bad_runs += covered != v->covered[t];
            bad_runs += self != verlet_row_self(v, t);
            /* The windows: ascending, each from a listed row and spanning
             * no row of the one before, every row of their masks in the
             * runs and not t. */
            const uint32_t *win;
            const uint32_t nw = verlet_row_windows(v, t, &win);
            bad_windows += nw > VERLET_WINDOWS;
            /* A list of a window's rows or fewer has none; the band's
             * longer ones (25 rows or so in one stretch, but near its
             * ends) have theirs. */
            const int band =
                t >= KNOT + SCATTERED && t < KNOT + SCATTERED + BAND;
            bad_windows += nw > 0u && v->covered[t] <= VERLET_WINDOW;
            bad_windows += band && nw == 0u && v->covered[t] > VERLET_WINDOW;
            band_windowed += band && nw > 0u;
            for (uint32_t k = 0; k < nw && k < VERLET_WINDOWS; k++) {
                const uint32_t first = win[2u * k], mask = win[2u * k + 1u];
                bad_windows += !(mask & 1u) || mask >> VERLET_WINDOW != 0u;
                bad_windows +=
                    k > 0 && first < win[2u * k - 2u] + VERLET_WINDOW;
                for (uint32_t i = 0; i < VERLET_WINDOW; i++) {
                    if (!((mask >> i) & 1u))
                        continue;
                    const uint32_t j = first + i;
                    int in = 0;
                    for (uint32_t r = 0; r < n && r < VERLET_RUNS; r++)
                        in |= j >= runs[2u * r] && j < runs[2u * r + 1u];
                    bad_windows += !in || j == t;
                }
            }
            uint32_t near = 0;
            for (uint32_t j = 0; j < (uint32_t)N; j++) {
                float d2 = 0.0f;
                for (int k = 0; k < dims; k++) {
                    const float dk = v->at[k][j] - v->at[k][t];
                    d2 += dk * dk;
                }
                if (j == t || !(d2 <= reach * reach))
                    continue;
                near++;
                int in = 0;
                for (uint32_t r = 0; r < n && r < VERLET_RUNS; r++)
                    in |= j >= runs[2u * r] && j < runs[2u * r + 1u];
                missed += !in;
                /* In exactly one window, when the row has them. */
                int windows_in = 0;
                for (uint32_t k = 0; k < nw && k < VERLET_WINDOWS; k++)
                    windows_in +=
                        j >= win[2u * k] && j - win[2u * k] < VERLET_WINDOW &&
                        ((win[2u * k + 1u] >> (j - win[2u * k])) & 1u);
                missed += nw > 0u && windows_in != 1;
            }
            if (near > 512u) {
                knots++;
                bad_runs += n != 1u;
                bad_windows += nw != 0u;
            }
        }
        if (missed || bad_runs || bad_windows || knots < (uint64_t)KNOT / 2u ||
            band_windowed < (uint64_t)BAND * 3u / 4u)
            runner_fail(
                __FILE__, __LINE__,
                "%dD: %llu neighbours missing from the lists, %llu "
                "bad runs, %llu bad windows, %llu of the band's rows "
                "with windows, %llu rows in a knot",
                dims, (unsigned long long)missed, (unsigned long long)bad_runs,
                (unsigned long long)bad_windows,
                (unsigned long long)band_windowed, (unsigned long long)knots);
        throng_world_destroy(w);
    }
}

void register_verlet_tests(void) {
    REGISTER(verlet_same_states);
    REGISTER(verlet_threads_and_paths);
    REGISTER(verlet_guesses_change_nothing);
    REGISTER(verlet_unused_where_order_matters);
    REGISTER(verlet_changes_between_steps);
    REGISTER(verlet_snapshot);
    REGISTER(verlet_frame_keeps_every_pair);
    REGISTER(verlet_bad_skin);
    REGISTER(verlet_lists_cover_neighbours);
}
