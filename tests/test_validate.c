/* SPDX-License-Identifier: MIT */
/*
 * The validation sweep (src/validate.c): it passes on healthy worlds of
 * every grid kind, and it catches each kind of corruption planted through
 * the internal layout (a NaN in a column, a wrong back-link, a cell range
 * off by one, a neighbour the grid cannot reach, a broken permutation, a
 * group out of range, a dirty tail, a non-finite force, a row the API
 * would refuse), naming the check, the row and the stage, and leaves the
 * world as it found it.
 *
 * The sweep's parts are called directly, so these run in every build.
 * The tests that need step.c to sweep (VALIDATE=1) plant a fault after a
 * chosen stage through validate_test_hook and see that step refused;
 * other builds skip them and say so.
 */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "runner.h"
#include "validate.h"
#include "agent.h"
#include "columns.h"
#include "core.h"

/* The grid kinds: a periodic box, unbounded space numbered densely, and
 * unbounded space spread so far that its cells are hashed. */
enum {
    VALIDATE_PERIODIC_2D,
    VALIDATE_DENSE_3D,
    VALIDATE_HASHED_2D
};

static throng_world *validate_world(int kind, uint32_t agents, uint64_t seed) {
    throng_world_def def = throng_world_def_default();
    def.dimensions = kind == VALIDATE_DENSE_3D ? 3 : 2;
    def.neighbour_radius = 2.0f;
    def.threads = 2;
    def.seed = seed;
    if (kind == VALIDATE_PERIODIC_2D) {
        def.boundary = THRONG_BOUNDARY_PERIODIC;
        def.box_size[0] = def.box_size[1] = def.box_size[2] = 40.0f;
    }
    throng_world *w = NULL;
    if (throng_world_create(&def, &w) != THRONG_OK) {
        runner_fail(__FILE__, __LINE__, "world %d not created", kind);
        return NULL;
    }
    test_rng rng = test_rng_make(seed);
    for (uint32_t i = 0; i < agents; i++) {
        throng_agent_def a = throng_agent_def_default();
        float half = kind == VALIDATE_DENSE_3D ? 8.0f : 20.0f;
        /* One agent in eight far away: the bounding box of cells then
         * holds too many cells to number, and the grid hashes. */
        if (kind == VALIDATE_HASHED_2D && test_rng_below(&rng, 8u) == 0u)
            half = 20000.0f;
        for (int k = 0; k < def.dimensions; k++) {
            a.position[k] = kind == VALIDATE_PERIODIC_2D
                                ? test_rng_range(&rng, 0.0f, 40.0f)
                                : test_rng_range(&rng, -half, half);
            a.velocity[k] = test_rng_range(&rng, -1.0f, 1.0f);
        }
        throng_agent handle;
        if (throng_agent_add(w, &a, &handle) != THRONG_OK) {
            runner_fail(__FILE__, __LINE__, "agent %u not added: %s", i,
                        throng_world_last_error(w));
            throng_world_destroy(w);
            return NULL;
        }
    }
    /* A few steps: rows in cell order, forces written, links stale. */
    if (!test_step_n(w, 0.05f, 3, "validate_world")) {
        throng_world_destroy(w);
        return NULL;
    }
    return w;
}

/* What a step does before its behaviours: a permuting grid build and
 * the zeroed tails. */
static bool validate_build(throng_world *w) {
    parallel_sched sched = world_scheduler(w);
    if (grid_build(w, &sched, 1) != 0) {
        runner_fail(__FILE__, __LINE__, "grid_build failed");
        return false;
    }
    world_zero_tails(w);
    return true;
}

/* Every part of the sweep passes. */
static bool validate_all_pass(throng_world *w, const char *when) {
    const validate_stage stage = VALIDATE_GRID;
    throng_status st[5] = { validate_grid(w, stage), validate_rows(w, stage),
                            validate_columns(w, stage),
                            validate_tails(w, stage),
                            validate_forces(w, stage) };
    for (int k = 0; k < 5; k++)
        if (st[k] != THRONG_OK) {
            runner_fail(__FILE__, __LINE__, "%s: part %d: %s", when, k,
                        throng_world_last_error(w));
            return false;
        }
    return true;
}

/* `got` is THRONG_ERR_INTERNAL and the world's sentence holds every one
 * of the NULL-terminated phrases. */
static void validate_expect(int line, throng_world *w, throng_status got,
                            const char *const *phrases) {
    if (got != THRONG_ERR_INTERNAL) {
        runner_fail(__FILE__, line, "planted fault not caught: got %s",
                    throng_status_string(got));
        return;
    }
    const char *e = throng_world_last_error(w);
    for (int k = 0; phrases[k]; k++)
        if (!strstr(e, phrases[k]))
            runner_fail(__FILE__, line, "sentence \"%s\" lacks \"%s\"", e,
                        phrases[k]);
}
#define EXPECT_CAUGHT(w, got, ...)                            \
    do {                                                      \
        const char *const phrases_[] = { __VA_ARGS__, NULL }; \
        validate_expect(__LINE__, w, got, phrases_);          \
    } while (0)

TEST(validate_passes_healthy_worlds) {
    for (int kind = 0; kind < 3; kind++) {
        throng_world *w = validate_world(kind, 600, 11u + (uint64_t)kind);
        REQUIRE(w != NULL);
        CHECK(validate_build(w));
        /* The grid kinds this test means to cover. */
        CHECK_EQ_INT(w->grid.dense, kind != VALIDATE_HASHED_2D);
        CHECK(validate_all_pass(w, "healthy"));
        /* Several steps apart, other samples. */
        for (int s = 0; s < 4; s++) {
            CHECK(test_step_n(w, 0.05f, 5, "healthy"));
            CHECK(validate_build(w));
            CHECK(validate_all_pass(w, "later"));
        }
        throng_world_destroy(w);
    }
    /* No agents, and fewer agents than the sample. */
    for (uint32_t n = 0; n < 3; n++) {
        throng_world *w = validate_world(VALIDATE_PERIODIC_2D, n, 5u);
        REQUIRE(w != NULL);
        CHECK(validate_build(w));
        CHECK(validate_all_pass(w, "tiny"));
        throng_world_destroy(w);
    }
}

/* Writes `bad` at `at`, expects `part` to refuse naming every phrase,
 * and writes the old value back. */
static void validate_plant_float(int line, throng_world *w, float *at,
                                 float bad, validate_part part,
                                 validate_stage stage,
                                 const char *const *phrases) {
    const float saved = *at;
    *at = bad;
    validate_expect(line, w, part(w, stage), phrases);
    *at = saved;
}
#define EXPECT_FLOAT_CAUGHT(w, at, bad, part, stage, ...)                  \
    do {                                                                   \
        const char *const phrases_[] = { __VA_ARGS__, NULL };              \
        validate_plant_float(__LINE__, w, at, bad, part, stage, phrases_); \
    } while (0)

TEST(validate_catches_bad_values) {
    throng_world *w = validate_world(VALIDATE_PERIODIC_2D, 300, 21u);
    REQUIRE(w != NULL);
    REQUIRE(validate_build(w));
    char where[32];
    snprintf(where, sizeof where, "row 123 (slot %u)", w->col.slot[123]);
    /* Non-finite values in a column, and in a force. */
    EXPECT_FLOAT_CAUGHT(
        w, &w->col.vx[123], NAN, validate_columns, VALIDATE_BEFORE_STEP,
        "throng_world_step: validation before the step", "column vx", where);
    EXPECT_FLOAT_CAUGHT(w, &w->col.py[7], -INFINITY, validate_columns,
                        VALIDATE_INTEGRATE, "after integration",
                        "column py holds -inf at row 7");
    EXPECT_FLOAT_CAUGHT(w, &w->steer_y[99], NAN, validate_forces,
                        VALIDATE_BEHAVIOURS, "after the behaviours",
                        "force's y on row 99");
    /* A heading of length 2, and a position outside the periodic box:
     * finite, so only world_check_row sees them. */
    const float fx = w->col.fx[40];
    EXPECT_FLOAT_CAUGHT(w, &w->col.fx[40], fx > 0.0f ? fx + 1.0f : fx - 1.0f,
                        validate_columns, VALIDATE_INTEGRATE, "heading",
                        "(row 40, slot");
    EXPECT_FLOAT_CAUGHT(w, &w->col.py[41], 40.0f, validate_columns,
                        VALIDATE_INTEGRATE, "outside the periodic box",
                        "(row 41, slot");
    /* Rows past the count that a vector load reaches, not zero. */
    EXPECT_FLOAT_CAUGHT(w, &w->col.radius[w->count + 3], 1.0f, validate_tails,
                        VALIDATE_TAILS_AND_LINKS,
                        "column radius holds bits 0x3f800000 at row 303, 3 "
                        "past");
    EXPECT_FLOAT_CAUGHT(w, &w->steer_y[w->count + COLUMN_PAD - 1], -0.0f,
                        validate_tails, VALIDATE_TAILS_AND_LINKS,
                        "column steer_y holds bits 0x80000000");
    CHECK(validate_all_pass(w, "restored"));
    throng_world_destroy(w);
}

TEST(validate_catches_broken_links) {
    throng_world *w = validate_world(VALIDATE_PERIODIC_2D, 300, 23u);
    REQUIRE(w != NULL);
    REQUIRE(validate_build(w));
    /* The step left the links stale; bring them up to date, so the exact
     * back-link check runs, and keep a copy to prove the sweep's marks
     * leave no trace. */
    world_links(w);
    REQUIRE(w->links_stale == 0);
    uint32_t links[300];
    const size_t bytes = (size_t)w->slot_count * sizeof(uint32_t);
    REQUIRE(bytes <= sizeof links);
    memcpy(links, w->slot_dense, bytes);
    CHECK(validate_rows(w, VALIDATE_TAILS_AND_LINKS) == THRONG_OK);
    CHECK(memcmp(links, w->slot_dense, bytes) == 0);

    /* A link that points at the wrong row. */
    const uint32_t row = 77, s = w->col.slot[row];
    w->slot_dense[s] = row + 1;
    char what[64];
    snprintf(what, sizeof what,
             "row %u holds slot %u, whose link points "
             "at row %u",
             row, s, row + 1);
    EXPECT_CAUGHT(w, validate_rows(w, VALIDATE_TAILS_AND_LINKS),
                  "after the tails and links", what);
    w->slot_dense[s] = row;
    CHECK(memcmp(links, w->slot_dense, bytes) == 0);

    /* Two rows holding one slot, with stale links (as after a step's
     * permutation): the counting pass finds the second. */
    const uint32_t other = w->col.slot[200];
    w->col.slot[200] = s;
    w->links_stale = 1;
    snprintf(what, sizeof what,
             "row 200 holds slot %u, which an earlier "
             "row holds too",
             s);
    EXPECT_CAUGHT(w, validate_rows(w, VALIDATE_GRID), "after the grid build",
                  what);
    CHECK(memcmp(links, w->slot_dense, bytes) == 0);
    w->col.slot[200] = other;
    CHECK(validate_rows(w, VALIDATE_GRID) == THRONG_OK);
    w->links_stale = 0;

    /* A live slot marked free, and a free list naming a live slot. */
    w->slot_dense[s] = SLOT_FREE;
    EXPECT_CAUGHT(w, validate_rows(w, VALIDATE_BEFORE_STEP), "marked free");
    w->slot_dense[s] = row;
    REQUIRE_OK(throng_agent_remove(
        w, (throng_agent){ .slot = other + 1,
                           .generation = w->slots[other].generation,
                           .world = w->id }));
    REQUIRE(w->free_count == 1);
    memcpy(links, w->slot_dense, bytes);
    const uint32_t freed = w->free_slots[0];
    w->free_slots[0] = s;
    EXPECT_CAUGHT(w, validate_rows(w, VALIDATE_BEFORE_STEP),
                  "free list entry 0 names slot", "not a free slot");
    w->free_slots[0] = freed;
    CHECK(validate_rows(w, VALIDATE_BEFORE_STEP) == THRONG_OK);
    CHECK(memcmp(links, w->slot_dense, bytes) == 0);

    /* A group past the last. */
    w->col.group[5] = w->group_count;
    EXPECT_CAUGHT(w, validate_rows(w, VALIDATE_BEFORE_STEP), "row 5 (slot",
                  "past the 1 groups");
    w->col.group[5] = 0;
    CHECK(validate_rows(w, VALIDATE_BEFORE_STEP) == THRONG_OK);
    throng_world_destroy(w);
}

/* A bucket holding agents, and so does the one before it: moving the
 * range boundary between them either way puts a row in the wrong one. */
static uint32_t validate_busy_bucket(const grid *g) {
    const uint32_t *start = g->cell_start;
    for (uint32_t b = 1; b < g->bucket_count; b++)
        if (start[b - 1] < start[b] && start[b] < start[b + 1])
            return b;
    return 0;
}

/* The row of a bucket that holds it alone (not row 0), or 0. */
static uint32_t validate_lone_row(const grid *g) {
    for (uint32_t b = 0; b < g->bucket_count; b++)
        if (g->cell_start[b] > 0 &&
            g->cell_start[b + 1] - g->cell_start[b] == 1)
            return g->cell_start[b];
    return 0;
}

TEST(validate_catches_grid_faults) {
    for (int kind = 0; kind < 3; kind++) {
        throng_world *w = validate_world(kind, 500, 31u + (uint64_t)kind);
        REQUIRE(w != NULL);
        REQUIRE(validate_build(w));
        grid *g = &w->grid;
        const uint32_t b = validate_busy_bucket(g);
        REQUIRE(b > 0);
        /* A cell range off by one, either way. */
        for (int d = -1; d <= 1; d += 2) {
            g->cell_start[b] = (uint32_t)((int64_t)g->cell_start[b] + d);
            EXPECT_CAUGHT(w, validate_grid(w, VALIDATE_GRID),
                          "after the grid build", "lies in bucket");
            g->cell_start[b] = (uint32_t)((int64_t)g->cell_start[b] - d);
        }
        /* The last range not ending at the count. */
        g->cell_start[g->bucket_count]--;
        EXPECT_CAUGHT(w, validate_grid(w, VALIDATE_GRID),
                      "not from 0 to the 500 agents");
        g->cell_start[g->bucket_count]++;
        /* A wrong occupied count. */
        g->occupied++;
        EXPECT_CAUGHT(w, validate_grid(w, VALIDATE_GRID), "buckets hold");
        g->occupied--;
        /* A cell order that is no permutation: a row said to come from a
         * row taken already, or from none (a row alone in its bucket, so
         * the order within buckets stays right). */
        const uint32_t r = validate_lone_row(g), saved = g->sorted[r];
        REQUIRE(r > 0);
        g->sorted[r] = g->sorted[0];
        EXPECT_CAUGHT(w, validate_grid(w, VALIDATE_GRID), "no permutation");
        g->sorted[r] = 500;
        EXPECT_CAUGHT(w, validate_grid(w, VALIDATE_GRID), "no permutation");
        g->sorted[r] = saved;
        /* Rows out of their order within a bucket: an unstable sort. */
        uint32_t big = UINT32_MAX;
        for (uint32_t k = 0; k < g->bucket_count && big == UINT32_MAX; k++)
            if (g->cell_start[k + 1] - g->cell_start[k] >= 2)
                big = g->cell_start[k];
        REQUIRE(big != UINT32_MAX);
        uint32_t t = g->sorted[big];
        g->sorted[big] = g->sorted[big + 1];
        g->sorted[big + 1] = t;
        EXPECT_CAUGHT(w, validate_grid(w, VALIDATE_GRID), "not stable");
        g->sorted[big + 1] = g->sorted[big];
        g->sorted[big] = t;
        /* A reach too short: the order is right, but some neighbour in
         * the next cell is out of the walk. Only brute force sees it. */
        const int reach = g->reach[0];
        g->reach[0] = 0;
        EXPECT_CAUGHT(w, validate_grid(w, VALIDATE_GRID),
                      "within the neighbour radius", "but in 0 of its");
        g->reach[0] = reach;
        g->valid = 0;
        EXPECT_CAUGHT(w, validate_grid(w, VALIDATE_GRID), "does not describe");
        g->valid = 1;
        CHECK(validate_all_pass(w, "restored"));
        throng_world_destroy(w);
    }
}

/* ------------------------------------------------------------------------ */
/* The step's sweeps (VALIDATE=1)                                          */
/* ------------------------------------------------------------------------ */

#ifdef THRONG_VALIDATE
/* Plants a fault after the stage validate_plant_stage names. */
static validate_stage validate_plant_stage;
static int validate_plant_kind;
static int validate_planted;

static void validate_plant(throng_world *w, validate_stage stage) {
    if (stage != validate_plant_stage || validate_planted)
        return;
    validate_planted = 1;
    grid *g = &w->grid;
    switch (validate_plant_kind) {
    case 0: /* a NaN in a column */
        w->col.vy[w->count / 2] = NAN;
        break;
    case 1: /* a cell range off by one */
        g->cell_start[validate_busy_bucket(g)]++;
        break;
    case 2: /* a dirty tail */
        w->col.px[w->count] = 3.0f;
        break;
    case 3: /* a non-finite force */
        w->steer_x[w->count - 1] = INFINITY;
        break;
    default: /* a row holding its neighbour's slot */
        w->col.slot[1] = w->col.slot[0];
        break;
    }
}
#endif

TEST(validate_step_reports_each_stage) {
#ifndef THRONG_VALIDATE
    printf("validate_step_reports_each_stage: skipped, the library was "
           "built without VALIDATE=1\n");
#else
    static const struct {
        validate_stage stage;
        const char *phrase;
    } plants[] = {
        { VALIDATE_BEFORE_STEP, "column vy holds nan" },
        { VALIDATE_GRID, "lies in bucket" },
        { VALIDATE_TAILS_AND_LINKS, "column px holds bits 0x40400000" },
        { VALIDATE_BEHAVIOURS, "force's x on row 399" },
        { VALIDATE_INTEGRATE, "row 1 holds slot" },
    };
    for (int k = 0; k < 5; k++) {
        throng_world *w = validate_world(k % 3, 400, 51u + (uint64_t)k);
        REQUIRE(w != NULL);
        const uint64_t step = w->step;
        validate_plant_stage = plants[k].stage;
        validate_plant_kind = k;
        validate_planted = 0;
        validate_test_hook = validate_plant;
        throng_status st = throng_world_step(w, 0.05f);
        validate_test_hook = NULL;
        CHECK(validate_planted);
        EXPECT_CAUGHT(w, st, "throng_world_step: validation ",
                      validate_stage_name(plants[k].stage), plants[k].phrase);
        CHECK_EQ_U64(w->step, step); /* the tick did not finish */
        throng_world_destroy(w);
    }
#endif
}

TEST(validate_step_passes_scenes) {
#ifndef THRONG_VALIDATE
    printf("validate_step_passes_scenes: skipped, the library was built "
           "without VALIDATE=1\n");
#else
    /* Every behaviour, both dimensions, on the kernels' paths: the bench
     * scenes step with the sweep after every stage. (The whole test suite
     * does the same in CI's VALIDATE=1 run.) */
    const char *scenes[] = { "every2d",          "every3d",    "flock2d",
                             "flock3d",          "crossing2d", "obstacles2d",
                             "crossing2d_steer", "blocks2d" };
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
        uint64_t h = test_scenario_hash(scenes[k], 1500, 2, 7u, NULL, 30);
        if (h == 0)
            runner_fail(__FILE__, __LINE__, "%s failed under validation",
                        scenes[k]);
    }
#endif
}

void register_validate_tests(void) {
    REGISTER(validate_passes_healthy_worlds);
    REGISTER(validate_catches_bad_values);
    REGISTER(validate_catches_broken_links);
    REGISTER(validate_catches_grid_faults);
    REGISTER(validate_step_reports_each_stage);
    REGISTER(validate_step_passes_scenes);
}
