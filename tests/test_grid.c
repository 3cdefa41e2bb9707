/* SPDX-License-Identifier: MIT */
/*
 * The spatial hash grid against brute force: throng_world_query_radius must
 * return exactly the set of live agents whose stored position is within
 * the radius (inclusive) of the point, nearest periodic image in a periodic
 * world, with the distance computed as the header's float formula:
 *
 *     dx = x_j - q_x (wrapped into [-L/2, L/2] when periodic), ...
 *     inside iff dx*dx + dy*dy (+ dz*dz) <= r*r
 *
 * Configurations are random (seeded) and deliberately nasty: agents on cell
 * borders, coincident agents, pairs exactly at the query radius, radius 0,
 * radii above the neighbour radius and above the whole box, negative and
 * far-away coordinates, queries before any step, after steps, after moves
 * through setters and after removals.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "grid_plan.h"
#include "grid_query.h"
#include "runner.h"
#include "agent.h"
#include "columns.h"
#include "core.h"
#include "kernel_paths.h"

typedef struct grid_config {
    int dims;
    bool periodic;
    float box[3];
    float neighbour_radius;
    float cell; /* the def's cell_size (0 = neighbour radius) */
    float cell_effective;
    int placement; /* 0 uniform, 1 on cell borders, 2 clusters, 3 far */
} grid_config;

typedef struct grid_state {
    throng_world *world;
    grid_config config;
    throng_agent *handles;
    uint32_t count, capacity;
    float (*positions)[3]; /* the library's, refreshed before queries */
    throng_agent *brute, *got;
    uint64_t queries, mismatches;
} grid_state;

static float grid_wrap(float x, float box) {
    while (x >= box)
        x -= box;
    while (x < 0.0f)
        x += box;
    return x;
}

/* A position for placement mode `placement`. */
static void grid_random_point(test_rng *rng, const grid_config *c, float p[3]) {
    float extent = 12.0f * c->neighbour_radius; /* unbounded half-width */
    for (int k = 0; k < 3; k++) {
        float lo = c->periodic ? 0.0f : -extent;
        float hi = c->periodic ? c->box[k] : extent;
        float x;
        switch (c->placement) {
        case 1: { /* multiples of half a cell: many on cell borders */
            float step = 0.5f * c->cell_effective;
            int cells = (int)((hi - lo) / step);
            x = lo + step * (float)test_rng_below(rng, (uint32_t)cells);
            break;
        }
        case 2: { /* a few cluster points, agents stacked on them */
            float step = (hi - lo) / 5.0f;
            x = lo + step * (float)test_rng_below(rng, 5u);
            break;
        }
        case 3: /* multiples of 0.25 over a wide range, some far away */
            if (!c->periodic && test_rng_below(rng, 5u) == 0u)
                x = 0.25f * (float)((int)test_rng_below(rng, 80000u) - 40000);
            else
                x = lo + 0.25f * (float)test_rng_below(
                                     rng, (uint32_t)((hi - lo) * 4.0f));
            break;
        default:
            x = test_rng_range(rng, lo, hi);
            break;
        }
        if (c->periodic)
            x = grid_wrap(x, c->box[k]);
        p[k] = k < c->dims ? x : 0.0f;
    }
}

static bool grid_add(grid_state *s, test_rng *rng) {
    if (s->count == s->capacity)
        return true;
    throng_agent_def def = throng_agent_def_default();
    grid_random_point(rng, &s->config, def.position);
    def.max_speed = 3.0f * s->config.neighbour_radius;
    for (int k = 0; k < s->config.dims; k++)
        def.velocity[k] =
            test_rng_range(rng, -1.0f, 1.0f) * s->config.neighbour_radius;
    throng_status st = throng_agent_add(s->world, &def, &s->handles[s->count]);
    if (st != THRONG_OK) {
        runner_fail(__FILE__, __LINE__, "add: %s", throng_status_string(st));
        return false;
    }
    s->count++;
    return true;
}

static bool grid_refresh(grid_state *s) {
    for (uint32_t i = 0; i < s->count; i++) {
        if (throng_agent_get_position(s->world, s->handles[i],
                                      s->positions[i]) != THRONG_OK) {
            runner_fail(__FILE__, __LINE__, "get_position refused");
            return false;
        }
        if (s->config.dims == 2)
            s->positions[i][2] = 0.0f;
    }
    return true;
}

/* The obvious answer, straight from the header's formula. */
static uint32_t grid_brute(const grid_state *s, const float q[3], float r,
                           throng_agent *out) {
    const grid_config *c = &s->config;
    uint32_t n = 0;
    for (uint32_t j = 0; j < s->count; j++) {
        float d2 = 0.0f;
        for (int k = 0; k < c->dims; k++) {
            float d = s->positions[j][k] - q[k];
            if (c->periodic) {
                float half = 0.5f * c->box[k];
                if (d > half)
                    d -= c->box[k];
                if (d < -half)
                    d += c->box[k];
            }
            d2 += d * d;
        }
        if (d2 <= r * r)
            out[n++] = s->handles[j];
    }
    return n;
}

static void grid_query_check(grid_state *s, const float q[3], float r,
                             const char *phase) {
    uint32_t want = grid_brute(s, q, r, s->brute);
    uint32_t got_count = UINT32_MAX;
    bool truncated = true;
    uint32_t capacity = s->count + 1u;
    throng_status st = throng_world_query_radius(
        s->world, q, r, s->got, capacity, &got_count, &truncated);
    s->queries++;
    if (st != THRONG_OK) {
        s->mismatches++;
        runner_fail(__FILE__, __LINE__, "%s: query refused: %s (%s)", phase,
                    throng_status_string(st),
                    throng_world_last_error(s->world));
        return;
    }
    bool same = got_count == want && !truncated;
    if (same) {
        qsort(s->brute, want, sizeof *s->brute, test_handle_cmp);
        qsort(s->got, want, sizeof *s->got, test_handle_cmp);
        same = memcmp(s->brute, s->got, want * sizeof *s->got) == 0;
    }
    if (!same) {
        s->mismatches++;
        const grid_config *c = &s->config;
        runner_fail(__FILE__, __LINE__,
                    "%s: %dD %s box (%g,%g,%g) radius %g cell %g placement "
                    "%d, %u agents: query (%.9g,%.9g,%.9g) r=%.9g found %u "
                    "(truncated %d), brute force %u",
                    phase, c->dims, c->periodic ? "periodic" : "unbounded",
                    (double)c->box[0], (double)c->box[1], (double)c->box[2],
                    (double)c->neighbour_radius, (double)c->cell, c->placement,
                    s->count, (double)q[0], (double)q[1], (double)q[2],
                    (double)r, got_count, (int)truncated, want);
    }
}

/* A batch of nasty queries against the current state. */
static void grid_query_batch(grid_state *s, test_rng *rng, int queries,
                             const char *phase) {
    if (!grid_refresh(s))
        return;
    const grid_config *c = &s->config;
    float nr = c->neighbour_radius;
    float whole = c->periodic
                      ? 2.0f * fmaxf(c->box[0], fmaxf(c->box[1], c->box[2]))
                      : 1e6f;
    for (int i = 0; i < queries && runner_failures() < 6u; i++) {
        float q[3] = { 0.0f, 0.0f, 0.0f };
        float r;
        switch (test_rng_below(rng, 6u)) {
        case 0:
            r = 0.0f;
            break;
        case 1:
            r = test_rng_range(rng, 0.0f, nr);
            break;
        case 2:
            r = nr;
            break;
        case 3:
            r = test_rng_range(rng, nr, 3.0f * nr);
            break;
        case 4:
            r = 0.5f * (float)(1u + test_rng_below(rng, 8u));
            break;
        default:
            r = whole;
            break;
        }
        uint32_t where = test_rng_below(rng, 4u);
        if (where == 0u || s->count == 0u) {
            grid_random_point(rng, c, q);
        } else {
            /* At an agent, or exactly r away from one along an axis (an
             * inclusive boundary case whenever the sum is exact). */
            uint32_t j = test_rng_below(rng, s->count);
            memcpy(q, s->positions[j], sizeof q);
            if (where >= 2u) {
                int axis = (int)test_rng_below(rng, (uint32_t)c->dims);
                float sign = where == 2u ? 1.0f : -1.0f;
                if (r < whole)
                    q[axis] += sign * r;
                if (c->periodic)
                    q[axis] = grid_wrap(q[axis], c->box[axis]);
            }
        }
        grid_query_check(s, q, r, phase);
    }
}

/* Runs one configuration; false when the library refused to create its
 * world (reported once per sweep by the caller). */
static bool grid_run_config(const grid_config *config, uint64_t seed,
                            uint64_t *queries, uint64_t *mismatches,
                            throng_status *create_status) {
    test_rng rng = test_rng_make(seed);
    grid_state s;
    memset(&s, 0, sizeof s);
    s.config = *config;
    s.capacity = 480u;
    s.handles = calloc(s.capacity, sizeof *s.handles);
    s.positions = calloc(s.capacity, sizeof *s.positions);
    s.brute = calloc(s.capacity + 1u, sizeof *s.brute);
    s.got = calloc(s.capacity + 1u, sizeof *s.got);

    throng_world_def def = throng_world_def_default();
    def.dimensions = config->dims;
    def.boundary =
        config->periodic ? THRONG_BOUNDARY_PERIODIC : THRONG_BOUNDARY_UNBOUNDED;
    memcpy(def.box_size, config->box, sizeof def.box_size);
    def.neighbour_radius = config->neighbour_radius;
    def.cell_size = config->cell;
    *create_status = throng_world_create(&def, &s.world);
    if (*create_status != THRONG_OK)
        goto done;
    uint32_t n = test_rng_below(&rng, 400u);
    if (seed % 7u == 0u)
        n = seed % 2u; /* empty and single-agent worlds */
    for (uint32_t i = 0; i < n; i++)
        if (!grid_add(&s, &rng))
            goto done;

    grid_query_batch(&s, &rng, 40, "before any step");

    for (int step = 0; step < 3; step++)
        if (throng_world_step(s.world, test_rng_range(&rng, 0.05f, 0.5f)) !=
            THRONG_OK)
            runner_fail(__FILE__, __LINE__, "step refused");
    grid_query_batch(&s, &rng, 40, "after steps");

    /* Moves through setters, onto cell borders and stacks, no step. */
    for (uint32_t i = 0; i < s.count; i += 3u) {
        grid_config border = s.config;
        border.placement = (int)(i % 2u) + 1;
        float p[3];
        grid_random_point(&rng, &border, p);
        if (throng_agent_set_position(s.world, s.handles[i], p) != THRONG_OK)
            runner_fail(__FILE__, __LINE__, "set_position refused");
    }
    grid_query_batch(&s, &rng, 40, "after setters");

    /* Removals (swap-remove reorders rows) and re-adds, no step. */
    for (uint32_t i = 0; i < s.count / 4u; i++) {
        uint32_t victim = test_rng_below(&rng, s.count);
        if (throng_agent_remove(s.world, s.handles[victim]) != THRONG_OK)
            runner_fail(__FILE__, __LINE__, "remove refused");
        s.handles[victim] = s.handles[--s.count];
    }
    grid_query_batch(&s, &rng, 30, "after removes");
    for (uint32_t i = 0; i < 40u; i++)
        if (!grid_add(&s, &rng))
            goto done;
    grid_query_batch(&s, &rng, 30, "after re-adds");

    if (throng_world_step(s.world, 0.3f) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "step refused");
    grid_query_batch(&s, &rng, 40, "after more steps");

done:
    *queries += s.queries;
    *mismatches += s.mismatches;
    throng_world_destroy(s.world);
    free(s.handles);
    free(s.positions);
    free(s.brute);
    free(s.got);
    return *create_status == THRONG_OK;
}

static throng_status grid_try_create(const grid_config *c) {
    throng_world_def def = throng_world_def_default();
    def.dimensions = c->dims;
    def.boundary =
        c->periodic ? THRONG_BOUNDARY_PERIODIC : THRONG_BOUNDARY_UNBOUNDED;
    memcpy(def.box_size, c->box, sizeof def.box_size);
    def.neighbour_radius = c->neighbour_radius;
    def.cell_size = c->cell;
    throng_world *world = NULL;
    throng_status st = throng_world_create(&def, &world);
    throng_world_destroy(world);
    return st;
}

/* When the library refuses a configuration the header allows, the sweep
 * reports it and still tests the grid on the nearest configuration it
 * accepts: lengths scaled so the neighbour radius is at least 1, cells of
 * at least 0.3 neighbour radius, boxes of at least 3.1 radii. */
static bool grid_fallback(grid_config *c) {
    if (c->neighbour_radius < 1.0f) {
        float scale = 1.0f / c->neighbour_radius;
        c->neighbour_radius *= scale;
        c->cell *= scale;
        c->cell_effective *= scale;
        for (int k = 0; k < 3; k++)
            c->box[k] *= scale;
        if (grid_try_create(c) == THRONG_OK)
            return true;
    }
    if (c->cell > 0.0f && c->cell < 0.3f * c->neighbour_radius) {
        c->cell = c->cell_effective = 0.3f * c->neighbour_radius;
        if (grid_try_create(c) == THRONG_OK)
            return true;
    }
    for (int k = 0; k < 3; k++)
        c->box[k] = fmaxf(c->box[k], 3.1f * c->neighbour_radius);
    return grid_try_create(c) == THRONG_OK;
}

static void grid_sweep(int dims, bool periodic) {
    test_rng rng =
        test_rng_make(1000u + (uint64_t)dims * 10u + (uint64_t)periodic);
    uint64_t queries = 0, mismatches = 0;
    int refused = 0, run = 0;
    char first_refused[200] = "";
    const float radii[] = { 0.5f, 1.0f, 2.5f };
    for (int i = 0; i < 24 && mismatches < 6u; i++) {
        grid_config c;
        memset(&c, 0, sizeof c);
        c.dims = dims;
        c.periodic = periodic;
        c.neighbour_radius = radii[test_rng_below(&rng, 3u)];
        switch (test_rng_below(&rng, 4u)) {
        case 0:
            c.cell = 0.0f;
            break;
        case 1:
            c.cell = 0.25f * c.neighbour_radius;
            break;
        case 2:
            c.cell = 0.5f * c.neighbour_radius;
            break;
        default:
            c.cell = 2.0f * c.neighbour_radius;
            break;
        }
        c.cell_effective = c.cell > 0.0f ? c.cell : c.neighbour_radius;
        float smallest = 3.0f * c.neighbour_radius;
        for (int k = 0; k < 3; k++) {
            /* The smallest box the header allows (three neighbour radii),
             * a whole number of cells, or anything between 3 and 15
             * radii. */
            switch (test_rng_below(&rng, 3u)) {
            case 0:
                c.box[k] = smallest;
                break;
            case 1: {
                float cells = ceilf(smallest / c.cell_effective);
                cells += (float)test_rng_below(&rng, 9u);
                c.box[k] = c.cell_effective * cells;
                break;
            }
            default:
                c.box[k] =
                    c.neighbour_radius * test_rng_range(&rng, 3.01f, 15.0f);
                break;
            }
        }
        c.placement = i % 4;
        throng_status create = grid_try_create(&c);
        if (create != THRONG_OK) {
            if (refused++ == 0)
                snprintf(first_refused, sizeof first_refused,
                         "%s for box (%g, %g, %g), neighbour radius %g, "
                         "cell size %g",
                         throng_status_string(create), (double)c.box[0],
                         (double)c.box[1], (double)c.box[2],
                         (double)c.neighbour_radius, (double)c.cell);
            if (!grid_fallback(&c))
                continue;
        }
        run++;
        if (!grid_run_config(&c, (uint64_t)i * 7919u + (uint64_t)dims, &queries,
                             &mismatches, &create))
            runner_fail(__FILE__, __LINE__, "create refused: %s",
                        throng_status_string(create));
    }
    /* Every configuration above is valid by the header (boxes of at least
     * three neighbour radii, cells of at least a quarter radius). */
    if (refused > 0)
        runner_fail(__FILE__, __LINE__,
                    "world create refused %d of 24 valid configurations "
                    "(%d ran, some adjusted); first: %s",
                    refused, run, first_refused);
    CHECK(queries >= 150u * (uint64_t)run);
    CHECK(run >= 20);
    CHECK_EQ_INT(mismatches, 0);
}

TEST(grid_query_2d_unbounded) {
    grid_sweep(2, false);
}
TEST(grid_query_3d_unbounded) {
    grid_sweep(3, false);
}
TEST(grid_query_2d_periodic) {
    grid_sweep(2, true);
}
TEST(grid_query_3d_periodic) {
    grid_sweep(3, true);
}

TEST(grid_query_exact_boundaries) {
    /* Hand-made: agents at 0.5 and 1.5 on each axis, cell size 1, queries
     * whose distance is exactly the radius. */
    for (int dims = 2; dims <= 3; dims++) {
        throng_world_def def = throng_world_def_default();
        def.dimensions = dims;
        throng_world *world = NULL;
        REQUIRE_OK(throng_world_create(&def, &world));
        throng_agent a, b, c, d;
        throng_agent_def ad = throng_agent_def_default();
        ad.position[0] = 0.5f;
        REQUIRE_OK(throng_agent_add(world, &ad, &a));
        ad.position[0] = 1.5f;
        REQUIRE_OK(throng_agent_add(world, &ad, &b));
        ad.position[0] = -1.0f; /* on a cell border, negative side */
        ad.position[1] = -2.0f;
        REQUIRE_OK(throng_agent_add(world, &ad, &c));
        REQUIRE_OK(throng_agent_add(world, &ad, &d)); /* coincident with c */
        throng_agent out[8];
        uint32_t count = 0;
        bool truncated = true;
        float q[3] = { 0.5f, 0.0f, 0.0f };
        CHECK_OK(throng_world_query_radius(world, q, 1.0f, out, 8u, &count,
                                           &truncated));
        CHECK_EQ_INT(count, 2); /* a (distance 0) and b (distance 1) */
        CHECK(!truncated);
        q[0] = 1.5f;
        CHECK_OK(throng_world_query_radius(world, q, 0.0f, out, 8u, &count,
                                           &truncated));
        CHECK_EQ_INT(count, 1);
        CHECK(count == 1u && test_handle_eq(out[0], b));
        q[0] = -1.0f;
        q[1] = -1.0f;
        CHECK_OK(throng_world_query_radius(world, q, 1.0f, out, 8u, &count,
                                           &truncated));
        CHECK_EQ_INT(count, 2); /* c and d, exactly 1 away */
        CHECK_OK(throng_world_query_radius(world, q, 0.99999994f, out, 8u,
                                           &count, &truncated));
        CHECK_EQ_INT(count, 0);
        q[0] = 2.5f;
        q[1] = 0.0f;
        CHECK_OK(throng_world_query_radius(world, q, 2.0f, out, 8u, &count,
                                           &truncated));
        CHECK_EQ_INT(count, 2); /* a at 2, b at 1 */
        throng_world_destroy(world);
    }
    /* Periodic: 0.5 and 9.5 in a box of 10 are 1 apart. */
    throng_world_def def = throng_world_def_default();
    def.dimensions = 2;
    def.boundary = THRONG_BOUNDARY_PERIODIC;
    def.box_size[0] = def.box_size[1] = 10.0f;
    throng_world *world = NULL;
    REQUIRE_OK(throng_world_create(&def, &world));
    throng_agent a;
    throng_agent_def ad = throng_agent_def_default();
    ad.position[0] = 9.5f;
    ad.position[1] = 0.0f;
    REQUIRE_OK(throng_agent_add(world, &ad, &a));
    throng_agent out[4];
    uint32_t count = 0;
    float q[3] = { 0.5f, 0.0f, 0.0f };
    CHECK_OK(throng_world_query_radius(world, q, 1.0f, out, 4u, &count, NULL));
    CHECK_EQ_INT(count, 1);
    q[1] = 9.0f; /* (1, 1) apart across both edges */
    CHECK_OK(
        throng_world_query_radius(world, q, 1.4142135f, out, 4u, &count, NULL));
    CHECK_EQ_INT(count, 0);
    CHECK_OK(
        throng_world_query_radius(world, q, 1.4142137f, out, 4u, &count, NULL));
    CHECK_EQ_INT(count, 1);
    /* A radius far bigger than the box finds the agent once. */
    CHECK_OK(
        throng_world_query_radius(world, q, 1000.0f, out, 4u, &count, NULL));
    CHECK_EQ_INT(count, 1);
    throng_world_destroy(world);
}

TEST(grid_query_truncation) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world_def def = throng_world_def_default();
        def.dimensions = dims;
        throng_world *world = NULL;
        REQUIRE_OK(throng_world_create(&def, &world));
        test_rng rng = test_rng_make(5u);
        enum {
            N = 150
        };
        throng_agent all[N];
        for (int i = 0; i < N; i++) {
            throng_agent_def ad = throng_agent_def_default();
            for (int k = 0; k < 3; k++)
                ad.position[k] = test_rng_range(&rng, -2.0f, 2.0f);
            REQUIRE_OK(throng_agent_add(world, &ad, &all[i]));
        }
        /* Query the lot before and after a step. */
        for (int round = 0; round < 2; round++) {
            float q[3] = { 0.0f, 0.0f, 0.0f };
            throng_agent out[N + 1];
            uint32_t count = 0;
            bool truncated = true;
            CHECK_OK(throng_world_query_radius(world, q, 10.0f, out, N + 1,
                                               &count, &truncated));
            CHECK_EQ_INT(count, N);
            CHECK(!truncated);
            CHECK_OK(throng_world_query_radius(world, q, 10.0f, out, N, &count,
                                               &truncated));
            CHECK_EQ_INT(count, N);
            CHECK(!truncated);

            const uint32_t caps[] = { 1u, 10u, N - 1u };
            for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
                throng_agent part[N + 1];
                for (int i = 0; i <= N; i++)
                    part[i] = THRONG_NULL_AGENT;
                truncated = false;
                CHECK_OK(throng_world_query_radius(
                    world, q, 10.0f, part, caps[c], &count, &truncated));
                CHECK_EQ_INT(count, N);
                CHECK(truncated);
                /* The first `capacity` entries are distinct live members;
                 * nothing is written past them. */
                for (uint32_t i = 0; i < caps[c]; i++) {
                    CHECK(throng_agent_valid(world, part[i]));
                    for (uint32_t k = 0; k < i; k++)
                        CHECK(!test_handle_eq(part[i], part[k]));
                }
                CHECK(test_handle_eq(part[caps[c]], THRONG_NULL_AGENT));
            }
            /* Capacity 0 with no buffer: just the count. */
            count = 0;
            truncated = false;
            CHECK_OK(throng_world_query_radius(world, q, 10.0f, NULL, 0u,
                                               &count, &truncated));
            CHECK_EQ_INT(count, N);
            CHECK(truncated);
            CHECK_OK(throng_world_query_radius(world, q, 10.0f, NULL, 0u,
                                               &count, NULL));
            CHECK_EQ_INT(count, N);
            /* An empty answer is not truncated. */
            float far[3] = { 1000.0f, 1000.0f, 1000.0f };
            truncated = true;
            CHECK_OK(throng_world_query_radius(world, far, 1.0f, NULL, 0u,
                                               &count, &truncated));
            CHECK_EQ_INT(count, 0);
            CHECK(!truncated);
            /* Unspecified but deterministic order. */
            throng_agent again[N];
            uint32_t count2 = 0;
            CHECK_OK(throng_world_query_radius(world, q, 1.5f, out, N, &count,
                                               NULL));
            CHECK_OK(throng_world_query_radius(world, q, 1.5f, again, N,
                                               &count2, NULL));
            CHECK_EQ_INT(count, count2);
            CHECK(count == count2 &&
                  memcmp(out, again, count * sizeof out[0]) == 0);
            REQUIRE_OK(throng_world_step(world, 0.1f));
        }
        throng_world_destroy(world);
    }
}

/* ------------------------------------------------------------------------ */
/* Dense ranges: the arithmetic against the cell-by-cell walk                */
/* ------------------------------------------------------------------------ */

static int ranges_equal(const cell_range *a, int na, const cell_range *b,
                        int nb) {
    if (na != nb)
        return 0;
    for (int k = 0; k < na; k++)
        if (a[k].begin != b[k].begin || a[k].end != b[k].end ||
            memcmp(a[k].shift, b[k].shift, sizeof a[k].shift) != 0)
            return 0;
    return 1;
}

/* Every span a kernel may ask for, and the ones just outside a dense
 * unbounded numbering, give exactly the walk's ranges. */
static void ranges_compare(int dims, bool periodic, float box, float cell,
                           uint64_t seed, uint64_t *compared) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = dims;
    d.boundary =
        periodic ? THRONG_BOUNDARY_PERIODIC : THRONG_BOUNDARY_UNBOUNDED;
    d.box_size[0] = d.box_size[1] = d.box_size[2] = box;
    d.neighbour_radius = 1.0f;
    d.cell_size = cell;
    d.threads = 1;
    throng_world *w = NULL;
    REQUIRE(throng_world_create(&d, &w) == THRONG_OK);
    test_rng rng = test_rng_make(seed);
    uint32_t n = 40u + test_rng_below(&rng, 300u);
    for (uint32_t i = 0; i < n; i++) {
        throng_agent_def a = throng_agent_def_default();
        /* Half in a corner cluster, so many cells stay empty. */
        float extent = test_rng_below(&rng, 2u) ? box : 0.3f * box;
        for (int k = 0; k < dims; k++)
            a.position[k] = test_rng_range(&rng, 0.0f, extent);
        throng_agent h;
        REQUIRE(throng_agent_add(w, &a, &h) == THRONG_OK);
    }
    REQUIRE(throng_world_step(w, 0.01f) == THRONG_OK);
    const grid *g = &w->grid;
    REQUIRE(g->dense);
    cell_range fast[GRID_MAX_RANGES], slow[GRID_MAX_RANGES];
    int32_t lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        int margin = periodic ? 0 : g->reach[a] + 1;
        lo[a] = g->origin[a] - margin;
        hi[a] = g->origin[a] + g->n[a] - 1 + margin;
    }
    if (dims == 2)
        lo[2] = hi[2] = g->origin[2];
    int32_t max_span = periodic ? g->n[0] - (2 * g->reach[0] + 1) : 6;
    for (int32_t z = lo[2]; z <= hi[2]; z++)
        for (int32_t y = lo[1]; y <= hi[1]; y++)
            for (int32_t x = lo[0]; x <= hi[0]; x++)
                for (int32_t span = 0; span <= max_span; span++) {
                    int32_t last = x + span;
                    if (periodic && last > hi[0])
                        break;
                    int nf = grid_ranges_span(g, x, last, y, z, fast);
                    int ns = grid_ranges_walk(g, x, last, y, z, slow);
                    (*compared)++;
                    if (!ranges_equal(fast, nf, slow, ns)) {
                        runner_fail(__FILE__, __LINE__,
                                    "%dD %s box %g cell %g: span %d..%d, "
                                    "y %d, z %d: %d ranges, walk %d",
                                    dims, periodic ? "periodic" : "unbounded",
                                    (double)box, (double)cell, x, last, y, z,
                                    nf, ns);
                        throng_world_destroy(w);
                        return;
                    }
                }
    throng_world_destroy(w);
}

TEST(grid_ranges_dense_match_walk) {
    uint64_t compared = 0;
    const float cells[] = { 0.0f, 0.3f, 0.55f, 1.7f };
    const float boxes[] = { 3.0f, 4.5f, 7.0f, 12.0f };
    uint64_t seed = 1;
    for (int dims = 2; dims <= 3; dims++)
        for (int p = 0; p < 2; p++)
            for (int c = 0; c < 4; c++)
                for (int b = 0; b < 4; b++) {
                    if (dims == 3 && (boxes[b] > 8.0f || cells[c] == 0.3f))
                        continue; /* keep the 3D blocks small */
                    ranges_compare(dims, p == 1, boxes[b], cells[c], seed++,
                                   &compared);
                }
    CHECK(compared > 100000u);
}

/* ------------------------------------------------------------------------ */
/* Uniform columns: the permutation skips them, and nothing changes          */
/* ------------------------------------------------------------------------ */

/* A crowd whose mass, limits, radius, group and targets are all one value,
 * so a step skips those columns: group 1 flocks and wanders, group 2 seeks
 * its target point and pursues its target agent. Every agent starts in
 * group 1 with the same target point. */
static throng_world *uniform_world(int dims, uint32_t n, throng_agent *h) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = dims;
    d.boundary = THRONG_BOUNDARY_PERIODIC;
    d.box_size[0] = d.box_size[1] = d.box_size[2] = dims == 3 ? 8.0f : 16.0f;
    d.neighbour_radius = 1.0f;
    d.threads = 2;
    throng_world *w = NULL;
    if (throng_world_create(&d, &w) != THRONG_OK)
        return NULL;
    throng_group_def g = throng_group_def_default();
    g.flocking = throng_flocking_default();
    g.wander.weight = 1.0f;
    throng_group flock = THRONG_NULL_GROUP, hunt = THRONG_NULL_GROUP;
    throng_group_create(w, &g, &flock);
    throng_group_def g2 = throng_group_def_default();
    throng_group_create(w, &g2, &hunt);
    throng_behaviour seek = throng_behaviour_default(THRONG_BEHAVIOUR_SEEK);
    throng_behaviour pursue = throng_behaviour_default(THRONG_BEHAVIOUR_PURSUE);
    throng_group_add_behaviour(w, hunt, &seek, NULL);
    throng_group_add_behaviour(w, hunt, &pursue, NULL);
    test_rng rng = test_rng_make(0x5eedull + (uint64_t)dims);
    for (uint32_t i = 0; i < n; i++) {
        throng_agent_def a = throng_agent_def_default();
        for (int k = 0; k < dims; k++) {
            a.position[k] = test_rng_range(&rng, 0.0f, d.box_size[k]);
            a.velocity[k] = test_rng_range(&rng, -1.0f, 1.0f);
        }
        a.group = flock;
        throng_agent_add(w, &a, &h[i]);
        const float goal[3] = { 1.0f, 2.0f, 3.0f };
        throng_agent_set_target_point(w, h[i], goal);
    }
    return w;
}

/* The bits of the columns this world has. */
static uint32_t uniform_present(int dims) {
    return dims == 3 ? UNIFORM_ALL : UNIFORM_ALL & ~UNIFORM_TZ;
}

/* Steps a (which skips its uniform columns) and b (made to permute every
 * column at every step, all of its rows stored) side by side; their
 * states must stay equal. */
static void uniform_steps(throng_world *a, throng_world *b, int steps,
                          const char *when, int dims) {
    for (int s = 0; s < steps; s++) {
        REQUIRE(world_unfold_columns(b) == 0);
        b->uniform = 0;
        b->uniform_check = 0;
        REQUIRE(throng_world_step(a, 1.0f / 30.0f) == THRONG_OK);
        REQUIRE(throng_world_step(b, 1.0f / 30.0f) == THRONG_OK);
        if (throng_world_hash(a) != throng_world_hash(b)) {
            runner_fail(__FILE__, __LINE__,
                        "%dD, %s: step %d differs from the fully permuted "
                        "world",
                        dims, when, s);
            return;
        }
    }
}

static void uniform_check(int dims) {
    enum {
        N = 900
    };
    throng_agent ha[N], hb[N];
    throng_world *a = uniform_world(dims, N, ha);
    throng_world *b = uniform_world(dims, N, hb);
    REQUIRE(a && b);
    const uint32_t all = uniform_present(dims);
    /* Each agent was added with no target, then given the crowd's: the
     * columns are uniform again, which the first step finds out. */
    CHECK(((a->uniform | a->uniform_check) & all) == all);
    uniform_steps(a, b, 1, "first step", dims);
    CHECK((a->uniform & all) == all);

    /* Every such column written away from its value and back. */
    float goal[3] = { 1.0f, 2.0f, 3.0f }, other[3] = { 4.0f, 4.0f, 4.0f };
    float mass, force, speed, radius;
    throng_agent_get_mass(a, ha[7], &mass);
    throng_agent_get_max_force(a, ha[7], &force);
    throng_agent_get_max_speed(a, ha[7], &speed);
    throng_agent_get_radius(a, ha[7], &radius);
    throng_group group = THRONG_NULL_GROUP;
    throng_agent_get_group(a, ha[7], &group);
    /* Both worlds have the default group and a second one, id 1. */
    const throng_group next_a = first_group(a, group.id + 1u);
    CHECK(throng_agent_set_mass(a, ha[7], 2.0f * mass) == THRONG_OK);
    CHECK(throng_agent_set_max_force(a, ha[7], 2.0f * force) == THRONG_OK);
    CHECK(throng_agent_set_max_speed(a, ha[7], 2.0f * speed) == THRONG_OK);
    CHECK(throng_agent_set_radius(a, ha[7], 2.0f * radius) == THRONG_OK);
    CHECK(throng_agent_set_group(a, ha[7], next_a) == THRONG_OK);
    CHECK(throng_agent_set_target_point(a, ha[7], other) == THRONG_OK);
    CHECK(throng_agent_set_target_agent(a, ha[7], ha[8]) == THRONG_OK);
    CHECK((a->uniform & all) == 0);
    throng_agent_set_mass(a, ha[7], mass);
    throng_agent_set_max_force(a, ha[7], force);
    throng_agent_set_max_speed(a, ha[7], speed);
    throng_agent_set_radius(a, ha[7], radius);
    throng_agent_set_group(a, ha[7], group);
    throng_agent_set_target_point(a, ha[7], goal);
    throng_agent_set_target_agent(a, ha[7], THRONG_NULL_AGENT);
    CHECK((a->uniform_check & all) == all);
    CHECK(throng_world_hash(a) == throng_world_hash(b));

    uint32_t row_before = 0, row_after = 0;
    throng_agent_index(a, ha[100], &row_before);
    uniform_steps(a, b, 40, "all uniform", dims);
    throng_agent_index(a, ha[100], &row_after);
    CHECK(row_before != row_after); /* the rows really moved */
    CHECK((a->uniform & all) == all);

    /* Now the same writes in both, mid-run, and for good: a must notice
     * each one, or the written value stays behind in its old row while
     * the agent moves on. */
    for (int k = 0; k < 2; k++) {
        throng_world *w = k ? b : a;
        throng_agent *h = k ? hb : ha;
        throng_agent_set_mass(w, h[11], 3.0f);
        throng_agent_set_max_force(w, h[12], 0.5f);
        throng_agent_set_max_speed(w, h[13], 0.25f);
        throng_agent_set_radius(w, h[14], 0.7f);
        for (int i = 20; i < 80; i++)
            throng_agent_set_group(w, h[i], first_group(w, group.id + 1u));
        throng_agent_set_target_point(w, h[21], other);
        throng_agent_set_target_agent(w, h[22], h[23]);
    }
    CHECK((a->uniform & all) == 0);
    uniform_steps(a, b, 40, "after the writes", dims);
    CHECK((a->uniform & all) == 0);

    /* A loaded snapshot scans its columns. */
    size_t bytes = 0;
    REQUIRE(throng_world_snapshot_size(a, &bytes) == THRONG_OK);
    void *buf = malloc(bytes);
    REQUIRE(buf);
    size_t written = 0;
    REQUIRE(throng_world_save(a, buf, bytes, &written) == THRONG_OK);
    throng_world *c = NULL;
    REQUIRE(throng_world_load(buf, written, NULL, &c) == THRONG_OK);
    free(buf);
    CHECK((c->uniform & all) == 0);
    throng_world_set_threads(c, 2);
    uniform_steps(c, b, 20, "loaded", dims);

    /* An empty world is uniform again. */
    for (int i = 0; i < N; i++)
        throng_agent_remove(a, ha[i]);
    CHECK(a->uniform == UNIFORM_ALL);
    throng_world_destroy(a);
    throng_world_destroy(b);
    throng_world_destroy(c);
}

TEST(grid_uniform_columns_2d) {
    uniform_check(2);
}
TEST(grid_uniform_columns_3d) {
    uniform_check(3);
}

/* The step's permutation against the plain gather: after grid_build()
 * every permuted column must hold old[sorted[r]] in row r, and once the
 * links are refreshed (world_links) every slot must point at its agent's
 * new row, whether a block of rows was copied run by run (inline or by
 * memcpy) or gathered row by row. Runs are broken on purpose: from a
 * sorted world, every k-th row's agent jumps elsewhere, for spacings on
 * both sides of the shortest runs copied as runs and of the longest
 * copied inline, and a fresh crowd in random order gives a block of
 * single-row runs. */
static void permute_check(throng_world *w, int threads, const char *when) {
    throng_world_set_threads(w, threads);
    void **cols[COLUMN4_MAX];
    const int count = world_columns4(w, cols);
    const uint32_t n = w->count;
    uint32_t *old = malloc((size_t)count * n * sizeof(uint32_t));
    uint32_t *old_slot_row =
        malloc((size_t)w->slot_capacity * sizeof(uint32_t));
    if (!old || !old_slot_row || count < 1) {
        free(old);
        free(old_slot_row);
        runner_fail(__FILE__, __LINE__, "%s: no memory for the copy", when);
        return;
    }
    for (int k = 0; k < count; k++)
        memcpy(old + (size_t)k * n, *cols[k], n * sizeof(uint32_t));
    memcpy(old_slot_row, w->slot_dense, w->slot_capacity * sizeof(uint32_t));
    parallel_sched sched = world_scheduler(w);
    if (grid_build(w, &sched, 1) != 0) {
        free(old);
        free(old_slot_row);
        runner_fail(__FILE__, __LINE__, "%s: grid_build failed", when);
        return;
    }
    const uint32_t *sorted = w->grid.sorted;
    /* The links are rewritten by the first reader after the build. */
    CHECK(w->links_stale);
    world_links(w);
    CHECK(!w->links_stale);
    uint64_t wrong = 0;
    for (int k = 0; k < count; k++) {
        const uint32_t *now = *cols[k];
        for (uint32_t r = 0; r < n; r++)
            wrong += now[r] != old[(size_t)k * n + sorted[r]];
    }
    for (uint32_t r = 0; r < n; r++) {
        uint32_t slot = w->col.slot[r];
        wrong += w->slot_dense[slot] != r || old_slot_row[slot] != sorted[r];
    }
    if (wrong)
        runner_fail(__FILE__, __LINE__,
                    "%s, %d threads: %llu rows differ from the gather", when,
                    threads, (unsigned long long)wrong);
    CHECK(count >= 7); /* positions, velocities, headings, slots at least */
    free(old);
    free(old_slot_row);
}

TEST(grid_permute_matches_gather) {
    enum {
        N = 20000
    };
    for (int dims = 2; dims <= 3; dims++) {
        throng_world_def d = throng_world_def_default();
        d.dimensions = dims;
        d.boundary = THRONG_BOUNDARY_PERIODIC;
        d.box_size[0] = d.box_size[1] = d.box_size[2] =
            dims == 2 ? 60.0f : 20.0f;
        throng_world *w = NULL;
        REQUIRE(throng_world_create(&d, &w) == THRONG_OK);
        test_rng rng = test_rng_make(0xbeefull + (uint64_t)dims);
        for (int i = 0; i < N; i++) {
            throng_agent_def a = throng_agent_def_default();
            for (int k = 0; k < dims; k++) {
                a.position[k] = test_rng_range(&rng, 0.0f, d.box_size[k]);
                a.velocity[k] = test_rng_range(&rng, -1.0f, 1.0f);
            }
            throng_agent h;
            REQUIRE(throng_agent_add(w, &a, &h) == THRONG_OK);
        }
        permute_check(w, 1, "random order");
        const uint32_t spacings[] = { 1,  2,  3,  4,   7,   8,   9,   20,
                                      63, 64, 65, 127, 128, 129, 500, 3000 };
        for (size_t s = 0; s < sizeof spacings / sizeof spacings[0]; s++) {
            /* Sorted again (the check above left the rows in cell
             * order), then every k-th row's agent jumps. */
            parallel_sched sched = world_scheduler(w);
            REQUIRE(grid_build(w, &sched, 1) == 0);
            for (uint32_t r = 0; r < N; r += spacings[s]) {
                throng_agent h;
                REQUIRE(throng_agent_at(w, r, &h) == THRONG_OK);
                float p[3] = { 0.0f, 0.0f, 0.0f };
                for (int k = 0; k < dims; k++)
                    p[k] = test_rng_range(&rng, 0.0f, d.box_size[k]);
                REQUIRE(throng_agent_set_position(w, h, p) == THRONG_OK);
            }
            char when[64];
            snprintf(when, sizeof when, "%dD, every %u-th row moved", dims,
                     spacings[s]);
            permute_check(w, 1 + (int)(s % 2), when);
        }
        throng_world_destroy(w);
    }
}

/* Stable columns (throng_world_set_stable_columns): a world that keeps
 * its shown columns in place steps to the same bits as one that swaps
 * them with the spares, its pointers stay put through every step (until
 * an add grows the capacity, after which the new ones stay put), and its
 * rows still move into cell order. A twin without the setting must see
 * its pointers change, or the test would prove nothing. */
static void stable_pointers(const throng_world *w, const float *out[12]) {
    throng_columns c;
    if (throng_world_columns(w, &c) != THRONG_OK)
        memset(&c, 0, sizeof c);
    const float *p[12] = { c.px, c.py, c.pz, c.vx, c.vy, c.vz,
                           c.fx, c.fy, c.fz, c.ux, c.uy, c.uz };
    memcpy(out, p, sizeof p);
}

static int stable_same_pointers(const float *const a[12],
                                const float *const b[12]) {
    for (int k = 0; k < 12; k++)
        if (a[k] != b[k])
            return 0;
    return 1;
}

/* The values at `held` (pointers taken earlier) against `twin`'s columns
 * now, bit for bit; the number of rows that differ. */
static uint32_t stable_rows_differ(const throng_world *twin,
                                   const float *const held[12]) {
    const float *now[12];
    stable_pointers(twin, now);
    uint32_t n = throng_world_agent_count(twin), wrong = 0;
    for (int k = 0; k < 12; k++) {
        if (!held[k] || !now[k]) {
            wrong += held[k] != now[k];
            continue;
        }
        wrong += (uint32_t)(memcmp(held[k], now[k], n * sizeof(float)) != 0);
    }
    return wrong;
}

static void stable_add(throng_world *w, test_rng *rng, int dims, float box,
                       throng_group group) {
    throng_agent_def a = throng_agent_def_default();
    for (int k = 0; k < dims; k++) {
        a.position[k] = test_rng_range(rng, 0.0f, box);
        a.velocity[k] = test_rng_range(rng, -1.0f, 1.0f);
    }
    a.group = group;
    throng_agent h;
    CHECK(throng_agent_add(w, &a, &h) == THRONG_OK);
}

TEST(grid_stable_columns) {
    enum {
        N = 3000
    };
    for (int dims = 2; dims <= 3; dims++) {
        const float box = dims == 2 ? 30.0f : 12.0f;
        throng_world *ws[2] = { NULL, NULL };
        for (int k = 0; k < 2; k++) {
            throng_world_def d = throng_world_def_default();
            d.dimensions = dims;
            d.boundary = THRONG_BOUNDARY_PERIODIC;
            d.box_size[0] = d.box_size[1] = d.box_size[2] = box;
            d.initial_capacity = N;
            REQUIRE(throng_world_create(&d, &ws[k]) == THRONG_OK);
            throng_group_def g = throng_group_def_default();
            g.flocking.separation_weight = 1.5f;
            g.flocking.alignment_weight = 1.0f;
            g.flocking.cohesion_weight = 1.0f;
            g.wander.weight = 0.3f; /* the turn rates are permuted too */
            throng_group group = THRONG_NULL_GROUP;
            REQUIRE(throng_group_create(ws[k], &g, &group) == THRONG_OK);
            test_rng rng = test_rng_make(0x57ab1eull + (uint64_t)dims);
            for (int i = 0; i < N; i++)
                stable_add(ws[k], &rng, dims, box, group);
        }
        throng_world *a = ws[0], *b = ws[1];
        CHECK(throng_world_set_stable_columns(a, true) == THRONG_OK);
        const float *held[12], *now[12], *twin_first[12];
        stable_pointers(a, held);
        stable_pointers(b, twin_first);
        throng_agent first = THRONG_NULL_AGENT;
        REQUIRE(throng_agent_at(a, 0, &first) == THRONG_OK);
        int twin_moved = 0;
        for (int s = 0; s < 12; s++) {
            int threads = 1 + s % 2;
            throng_world_set_threads(a, threads);
            throng_world_set_threads(b, threads);
            REQUIRE(test_step_n(a, 0.05f, 1, "stable"));
            REQUIRE(test_step_n(b, 0.05f, 1, "swapping twin"));
            stable_pointers(a, now);
            if (!stable_same_pointers(held, now))
                runner_fail(__FILE__, __LINE__,
                            "%dD step %d: a stable column moved", dims, s);
            stable_pointers(b, now);
            twin_moved |= !stable_same_pointers(twin_first, now);
            CHECK(throng_world_hash(a) == throng_world_hash(b));
            uint32_t wrong = stable_rows_differ(b, held);
            if (wrong)
                runner_fail(__FILE__, __LINE__,
                            "%dD step %d: %u held columns differ from the "
                            "twin's",
                            dims, s, wrong);
        }
        CHECK(twin_moved);
        /* The rows did move: the agent of row 0 is not where it was. */
        uint32_t row = 0;
        REQUIRE(throng_agent_index(a, first, &row) == THRONG_OK);
        CHECK(row != 0);

        /* Growth moves the columns once; the new ones then stay. */
        for (int k = 0; k < 2; k++) {
            test_rng rng = test_rng_make(0x9a0ull + (uint64_t)dims);
            for (int i = 0; i < N; i++)
                stable_add(ws[k], &rng, dims, box, first_group(ws[k], 1u));
        }
        stable_pointers(a, now);
        CHECK(!stable_same_pointers(held, now));
        stable_pointers(a, held);
        REQUIRE(test_step_n(a, 0.05f, 3, "stable, grown"));
        REQUIRE(test_step_n(b, 0.05f, 3, "swapping twin, grown"));
        stable_pointers(a, now);
        CHECK(stable_same_pointers(held, now));
        CHECK(throng_world_hash(a) == throng_world_hash(b));
        CHECK(stable_rows_differ(b, held) == 0);

        /* Turned off, the step trades columns with the spares again. */
        CHECK(throng_world_set_stable_columns(a, false) == THRONG_OK);
        REQUIRE(test_step_n(a, 0.05f, 1, "unstable again"));
        REQUIRE(test_step_n(b, 0.05f, 1, "swapping twin, last"));
        stable_pointers(a, now);
        CHECK(!stable_same_pointers(held, now));
        CHECK(throng_world_hash(a) == throng_world_hash(b));
        throng_world_destroy(a);
        throng_world_destroy(b);
    }
}

/* ------------------------------------------------------------------------ */
/* Sparse numbering: the order, the cells and the ranges against brute force */
/* ------------------------------------------------------------------------ */

/* Shapes of an unbounded crowd too spread out for a dense numbering. */
enum {
    SPARSE_RING,
    SPARSE_SCATTER,
    SPARSE_LINE,
    SPARSE_FAR3D
};

/* A crowd of `n` agents in shape `shape`, added in random order, a third
 * of them stacked on the agent before (many agents in one cell). */
static throng_world *sparse_world(int dims, int shape, uint32_t n,
                                  uint64_t seed, int threads) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = dims;
    d.neighbour_radius = 1.0f;
    d.threads = threads;
    throng_world *w = NULL;
    if (throng_world_create(&d, &w) != THRONG_OK)
        return NULL;
    test_rng rng = test_rng_make(seed);
    float prev[3] = { 0.0f, 0.0f, 0.0f };
    for (uint32_t i = 0; i < n; i++) {
        throng_agent_def a = throng_agent_def_default();
        float *p = a.position;
        switch (shape) {
        case SPARSE_RING: { /* an annulus 6 m wide, 150 m round */
            float angle = test_rng_range(&rng, 0.0f, TEST_TWO_PI);
            float r = test_rng_range(&rng, 147.0f, 153.0f);
            p[0] = r * cosf(angle);
            p[1] = r * sinf(angle);
            p[2] = test_rng_range(&rng, 0.0f, 3.0f);
            break;
        }
        case SPARSE_SCATTER: /* clumps over a wide box */
            for (int k = 0; k < 3; k++)
                p[k] = test_rng_range(&rng, dims == 3 ? -30.0f : -200.0f,
                                      dims == 3 ? 30.0f : 200.0f);
            break;
        case SPARSE_LINE: /* one long row of cells, crowded cells */
            p[0] = test_rng_range(&rng, -20000.0f, 20000.0f);
            p[1] = test_rng_range(&rng, 0.0f, 1.5f);
            p[2] = test_rng_range(&rng, 0.0f, 1.5f);
            break;
        default: /* so far apart in 3D that the rows are too many */
            for (int k = 0; k < 3; k++)
                p[k] = test_rng_range(&rng, -1000.0f, 1000.0f);
            break;
        }
        if (i % 3 == 2) {
            /* On top of the previous agent, or within a cell of it. */
            for (int k = 0; k < 3; k++)
                p[k] = prev[k] +
                       (i % 2 ? 0.0f : test_rng_range(&rng, -0.4f, 0.4f));
        }
        if (dims == 2)
            p[2] = 0.0f;
        for (int k = 0; k < 3; k++) {
            a.velocity[k] =
                dims == 2 && k == 2 ? 0.0f : test_rng_range(&rng, -0.5f, 0.5f);
            prev[k] = p[k];
        }
        throng_agent h;
        if (throng_agent_add(w, &a, &h) != THRONG_OK) {
            throng_world_destroy(w);
            return NULL;
        }
    }
    return w;
}

/* The cell of a sorted position, read where the rows are now. */
static void sparse_cell_at(const throng_world *w, uint32_t r, int32_t c[3]) {
    const grid *g = &w->grid;
    const uint32_t i = g->permuted ? r : g->sorted[r];
    c[0] = grid_coord(g, 0, w->col.px[i]);
    c[1] = grid_coord(g, 1, w->col.py[i]);
    c[2] = w->dims == 3 ? grid_coord(g, 2, w->col.pz[i]) : 0;
}

/* a's cell comes before b's in the order z, y, x: -1, 0 or 1. */
static int sparse_cell_cmp(const int32_t a[3], const int32_t b[3]) {
    for (int k = 2; k >= 0; k--)
        if (a[k] != b[k])
            return a[k] < b[k] ? -1 : 1;
    return 0;
}

/* The last build of a sparse grid is the stable sort by cell (z, y, x),
 * its buckets are the occupied cells in that order, each row's buckets
 * are listed under the right row, and the ranges of every span a kernel
 * may ask for are the cell-by-cell walk's. */
static void sparse_check_build(const throng_world *w, const char *what) {
    const grid *g = &w->grid;
    const uint32_t n = w->count;
    if (!g->sparse || g->dense) {
        runner_fail(__FILE__, __LINE__, "%s: not a sparse numbering", what);
        return;
    }
    /* sorted is a permutation. */
    unsigned char *seen = calloc(n ? n : 1, 1);
    REQUIRE(seen);
    for (uint32_t r = 0; r < n; r++) {
        CHECK(g->sorted[r] < n && !seen[g->sorted[r]]);
        if (g->sorted[r] < n)
            seen[g->sorted[r]] = 1;
    }
    free(seen);
    /* Rows in cell order, source order within a cell, one bucket a cell. */
    uint32_t cells = 0, bad = 0;
    int32_t last[3] = { 0, 0, 0 };
    for (uint32_t r = 0; r < n; r++) {
        int32_t c[3];
        sparse_cell_at(w, r, c);
        int cmp = r == 0 ? 1 : sparse_cell_cmp(last, c);
        if (cmp > 0 && r > 0)
            bad++;
        if (cmp == 0 && g->sorted[r - 1] >= g->sorted[r])
            bad++;
        if (r == 0 || cmp != 0) {
            if (cells >= g->bucket_count || g->cell_start[cells] != r ||
                g->cell_x[cells] != c[0] ||
                grid_sparse_find(g, c[0], c[1], c[2]) != cells)
                bad++;
            cells++;
        }
        memcpy(last, c, sizeof last);
    }
    if (bad)
        runner_fail(__FILE__, __LINE__,
                    "%s: %u rows out of the stable cell order or their "
                    "cells misfiled",
                    what, bad);
    CHECK_EQ_U64(cells, g->bucket_count);
    CHECK_EQ_U64(cells, g->occupied);
    CHECK_EQ_U64(g->cell_start[cells], n);
    CHECK_EQ_U64(g->row_first[0], 0);
    CHECK_EQ_U64(g->row_first[g->row_count], cells);
    for (uint32_t q = 0; q < g->row_count; q++)
        for (uint32_t b = g->row_first[q]; b < g->row_first[q + 1]; b++) {
            int32_t c[3];
            sparse_cell_at(w, g->cell_start[b], c);
            if (grid_sparse_row(g, c[1], c[2]) != q) {
                runner_fail(__FILE__, __LINE__,
                            "%s: bucket %u listed under row %u", what, b, q);
                return;
            }
        }
    /* Ranges: the arithmetic against the walk, around a sample of the
     * occupied cells (the box's first and last rows among them), and
     * beyond the box's rows. */
    cell_range fast[GRID_MAX_RANGES], slow[GRID_MAX_RANGES],
        at[GRID_MAX_RANGES];
    /* The cursor is correct in any order of lookups (here, x goes back
     * at each new row of the block), fast in the kernels' order. */
    grid_cursor cursor;
    grid_cursor_reset(&cursor);
    const int rz = w->dims == 3 ? g->reach[2] + 1 : 0;
    const uint32_t stride = w->dims == 3 ? 13u : 5u;
    for (uint32_t b = 0; b < cells;
         b = b + stride < cells || b + 1 == cells ? b + stride : cells - 1) {
        int32_t c[3];
        sparse_cell_at(w, g->cell_start[b], c);
        for (int32_t dz = -rz; dz <= rz; dz++)
            for (int32_t dy = -g->reach[1] - 1; dy <= g->reach[1] + 1; dy++)
                for (int32_t dx = -g->reach[0] - 1; dx <= 1; dx++)
                    for (int32_t span = 0; span <= 6; span++) {
                        int32_t x = c[0] + dx, y = c[1] + dy, z = c[2] + dz;
                        int nf = grid_ranges_span(g, x, x + span, y, z, fast);
                        int ns = grid_ranges_walk(g, x, x + span, y, z, slow);
                        int nc = grid_ranges_span_at(g, x, x + span, y, z,
                                                     &cursor, at);
                        if (!ranges_equal(fast, nf, slow, ns) ||
                            !ranges_equal(at, nc, slow, ns)) {
                            runner_fail(__FILE__, __LINE__,
                                        "%s: span %d..%d, y %d, z %d: %d "
                                        "ranges, walk %d",
                                        what, x, x + span, y, z, nf, ns);
                            return;
                        }
                    }
    }
}

/* Every agent's neighbours through its cell's ranges are exactly the ones
 * a scan of all agents finds. */
static void sparse_check_neighbours(const throng_world *w, const char *what) {
    const grid *g = &w->grid;
    const float r2 = w->neighbour_radius * w->neighbour_radius;
    cell_range ranges[GRID_MAX_RANGES];
    uint64_t pairs = 0;
    for (uint32_t t = 0; t < w->count; t++) {
        int32_t c[3];
        sparse_cell_at(w, t, c);
        const uint32_t i = g->permuted ? t : g->sorted[t];
        const int count = grid_ranges(g, c[0], c[1], c[2], ranges);
        uint32_t through_grid = 0, by_scan = 0;
        for (int k = 0; k < count; k++)
            for (uint32_t s = ranges[k].begin; s < ranges[k].end; s++) {
                const uint32_t j = g->permuted ? s : g->sorted[s];
                float dx = w->col.px[j] - w->col.px[i];
                float dy = w->col.py[j] - w->col.py[i];
                float dz = w->dims == 3 ? w->col.pz[j] - w->col.pz[i] : 0.0f;
                through_grid += j != i && dx * dx + dy * dy + dz * dz <= r2;
            }
        for (uint32_t j = 0; j < w->count; j++) {
            float dx = w->col.px[j] - w->col.px[i];
            float dy = w->col.py[j] - w->col.py[i];
            float dz = w->dims == 3 ? w->col.pz[j] - w->col.pz[i] : 0.0f;
            by_scan += j != i && dx * dx + dy * dy + dz * dz <= r2;
        }
        if (through_grid != by_scan) {
            runner_fail(__FILE__, __LINE__,
                        "%s: agent at row %u has %u neighbours through the "
                        "grid, %u by a scan",
                        what, i, through_grid, by_scan);
            return;
        }
        pairs += by_scan;
    }
    CHECK(pairs > 0); /* the crowds are meant to touch */
}

TEST(grid_sparse_matches_brute_force) {
    const struct {
        const char *name;
        int dims, shape;
        uint32_t agents;
    } cases[] = {
        { "ring 2D", 2, SPARSE_RING, 3000 },
        { "ring 3D", 3, SPARSE_RING, 3000 },
        { "scatter 2D", 2, SPARSE_SCATTER, 1500 },
        { "scatter 3D", 3, SPARSE_SCATTER, 2500 },
        { "line 2D", 2, SPARSE_LINE, 3000 },
        { "line 3D", 3, SPARSE_LINE, 3000 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int threads = 1; threads <= 2; threads++) {
            throng_world *w = sparse_world(cases[k].dims, cases[k].shape,
                                           cases[k].agents, 40u + k, threads);
            REQUIRE(w);
            /* A query builds the index only (rows in insertion order:
             * the far-out-of-order sort), a step moves the rows. */
            float origin[3] = { 0.0f, 0.0f, 0.0f };
            uint32_t found = 0;
            CHECK_OK(throng_world_query_radius(w, origin, 1.0f, NULL, 0, &found,
                                               NULL));
            CHECK(!w->grid.permuted);
            sparse_check_build(w, cases[k].name);
            sparse_check_neighbours(w, cases[k].name);
            for (int step = 0; step < 3; step++) {
                /* The step moved the agents after its build: build again,
                 * as a step does (rows moved) and as a query does. */
                REQUIRE(test_step_n(w, 0.1f, 1, cases[k].name));
                parallel_sched sched = world_scheduler(w);
                REQUIRE(grid_build(w, &sched, 1) == 0 && w->grid.valid);
                CHECK(w->grid.permuted);
                sparse_check_build(w, cases[k].name);
                REQUIRE(grid_build(w, &sched, 0) == 0 && w->grid.valid);
                sparse_check_build(w, cases[k].name);
            }
            sparse_check_neighbours(w, cases[k].name);
            throng_world_destroy(w);
        }
}

/* Rows of cells beyond the count (and its spare rows): hashed, as
 * before, and the step still finds the same neighbours. */
TEST(grid_sparse_falls_back_to_hashing) {
    throng_world *w = sparse_world(3, SPARSE_FAR3D, 600, 7u, 1);
    REQUIRE(w);
    REQUIRE(test_step_n(w, 0.1f, 1, "far 3D"));
    CHECK(!w->grid.dense && !w->grid.sparse);
    throng_world_destroy(w);
    /* The same crowd drawn in together numbers its rows again. */
    w = sparse_world(2, SPARSE_SCATTER, 1500, 8u, 1);
    REQUIRE(w);
    REQUIRE(test_step_n(w, 0.1f, 1, "scatter 2D"));
    CHECK(w->grid.sparse);
    throng_world_destroy(w);
}

/* Vector paths, 1 and 2 threads, on sparse worlds: the scalar path's
 * bits. The path-following crowd on its ring (path2d) and flocks in
 * rings and clumps with two groups, one with a view cone. */
static uint64_t sparse_flock_hash(int dims, int shape, const char *path,
                                  int threads) {
    throng_world *w = sparse_world(dims, shape, 2400, 11u, threads);
    if (!w)
        return 0;
    if (world_select_kernel(w, path) != 0) {
        throng_world_destroy(w);
        return 1;
    }
    throng_group_def gd = throng_group_def_default();
    gd.flocking.separation_weight = 2.0f;
    gd.flocking.alignment_weight = 1.0f;
    gd.flocking.cohesion_weight = 0.5f;
    throng_group plain = THRONG_NULL_GROUP, coned = THRONG_NULL_GROUP;
    throng_group_create(w, &gd, &plain);
    gd.flocking.field_of_view = 2.0944f;
    gd.flocking.separation_mode = THRONG_SEPARATION_INVERSE_DISTANCE;
    gd.combine = THRONG_COMBINE_WEIGHTED_SUM;
    throng_group_create(w, &gd, &coned);
    for (uint32_t i = 0; i < w->count; i++) {
        throng_agent h;
        throng_agent_at(w, i, &h);
        throng_agent_set_group(w, h, i % 3 == 0 ? coned : plain);
    }
    w->tuner.pinned = 1;
    uint64_t h = 0;
    if (test_step_n(w, 0.1f, 20, "sparse flock")) {
        CHECK(w->grid.sparse);
        h = throng_world_hash(w);
    }
    throng_world_destroy(w);
    return h;
}

TEST(grid_sparse_paths_match_scalar) {
    static const char *const paths[] = { "sse2", "avx2", "avx512", "neon",
                                         "wasm" };
    for (int dims = 2; dims <= 3; dims++)
        for (int shape = SPARSE_RING; shape <= SPARSE_SCATTER; shape++) {
            uint64_t scalar = sparse_flock_hash(dims, shape, "scalar", 1);
            REQUIRE(scalar > 1);
            CHECK(sparse_flock_hash(dims, shape, "scalar", 2) == scalar);
            for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++)
                for (int threads = 1; threads <= 2; threads++) {
                    uint64_t h =
                        sparse_flock_hash(dims, shape, paths[p], threads);
                    if (h != 1 && h != scalar)
                        runner_fail(__FILE__, __LINE__,
                                    "%dD shape %d: %s on %d threads gives "
                                    "%016llx, scalar %016llx",
                                    dims, shape, paths[p], threads,
                                    (unsigned long long)h,
                                    (unsigned long long)scalar);
                }
        }
    uint64_t scalar = test_scenario_hash("path2d", 3000u, 1, 3u, "scalar", 30);
    REQUIRE(scalar > 1);
    CHECK(test_scenario_hash("path2d", 3000u, 2, 3u, "scalar", 30) == scalar);
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++)
        for (int threads = 1; threads <= 2; threads++) {
            uint64_t h =
                test_scenario_hash("path2d", 3000u, threads, 3u, paths[p], 30);
            if (h != 1 && h != scalar)
                runner_fail(__FILE__, __LINE__,
                            "path2d: %s on %d threads gives %016llx, scalar "
                            "%016llx",
                            paths[p], threads, (unsigned long long)h,
                            (unsigned long long)scalar);
        }
}

/* grid_coord() and grid_coord_floor() against their definition: the
 * floor of x / edge (in double, x times the inverse edge), clamped to
 * +-GRID_COORD_LIMIT, NaN to the lowest. Random bit patterns reach every
 * exponent; the edge cases are listed. */
static int32_t coord_reference(const grid *g, int axis, float x) {
    double t = floor((double)x * g->inv_edge[axis]);
    if (!(t >= -GRID_COORD_LIMIT))
        t = -GRID_COORD_LIMIT;
    if (t > GRID_COORD_LIMIT)
        t = GRID_COORD_LIMIT;
    return (int32_t)t;
}

TEST(grid_coord_is_the_clamped_floor) {
    grid g;
    memset(&g, 0, sizeof g);
    const double edges[] = { 1.0, 0.5, 15.0, 3.0e-7, 7.25e6 };
    const float listed[] = {
        0.0f,      -0.0f,  1e-30f,        -1e-30f,       14.999999f,
        15.0f,     -15.0f, -15.000001f,   2.5f,          -2.5f,
        1e9f,      -1e9f,  3.4e38f,       -3.4e38f,      INFINITY,
        -INFINITY, NAN,    1073741824.0f, -1073741824.0f
    };
    test_rng rng = test_rng_make(11u);
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++) {
        g.inv_edge[0] = 1.0 / edges[e];
        for (size_t i = 0; i < sizeof listed / sizeof listed[0]; i++) {
            CHECK_EQ_INT(grid_coord(&g, 0, listed[i]),
                         coord_reference(&g, 0, listed[i]));
            CHECK_EQ_INT(grid_coord_floor(g.inv_edge[0], listed[i]),
                         coord_reference(&g, 0, listed[i]));
        }
        for (int i = 0; i < 200000; i++) {
            const uint32_t bits = (uint32_t)test_rng_u64(&rng);
            float x;
            memcpy(&x, &bits, sizeof x);
            /* Multiples of the edge and their neighbours too. */
            if (i % 4 == 1)
                x = (float)((double)(int32_t)(bits >> 8) * edges[e] * 1e-3);
            if (i % 4 == 2)
                x = nextafterf(x, INFINITY);
            CHECK_EQ_INT(grid_coord(&g, 0, x), coord_reference(&g, 0, x));
            CHECK_EQ_INT(grid_coord_floor(g.inv_edge[0], x),
                         coord_reference(&g, 0, x));
        }
    }
}

/* A dense numbering's sort (its buckets on the widest vector path)
 * against grid_coord(): agents at the last float before each cell
 * border on one axis and the two floats after it, and at random, on
 * both sides of the origin; every row must lie in the bucket of its
 * cell. */
static void dense_buckets_check(int dims, float radius) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = dims;
    d.neighbour_radius = radius;
    throng_world *w = NULL;
    REQUIRE_OK(throng_world_create(&d, &w));
    const float edge = w->grid.edge[0];
    const double inv = w->grid.inv_edge[0];
    REQUIRE(edge > 0.0f);
    /* Cells per side: few enough in 3D for a dense numbering. */
    const int half = dims == 2 ? 24 : 8;
    const float span = (float)half * edge;
    test_rng rng = test_rng_make(0x6b75636bull + (uint64_t)dims);
    uint32_t added = 0;
    for (int k = -half; k <= half; k++) {
        /* The last float below border k (its product with the inverse
         * edge under k). */
        float x = (float)((double)k / inv);
        while ((double)x * inv >= (double)k)
            x = nextafterf(x, -INFINITY);
        while ((double)nextafterf(x, INFINITY) * inv < (double)k)
            x = nextafterf(x, INFINITY);
        /* It and the two floats after it. */
        for (int step = 0; step < 3; step++) {
            for (int axis = 0; axis < dims; axis++, added++) {
                throng_agent_def a = throng_agent_def_default();
                for (int e = 0; e < dims; e++)
                    a.position[e] =
                        e == axis ? x : test_rng_range(&rng, -span, span);
                throng_agent h;
                REQUIRE_OK(throng_agent_add(w, &a, &h));
            }
            x = nextafterf(x, INFINITY);
        }
    }
    for (int i = 0; i < 3000; i++, added++) {
        throng_agent_def a = throng_agent_def_default();
        for (int e = 0; e < dims; e++)
            a.position[e] = test_rng_range(&rng, -span, span);
        throng_agent h;
        REQUIRE_OK(throng_agent_add(w, &a, &h));
    }
    parallel_sched sched = world_scheduler(w);
    REQUIRE(grid_build(w, &sched, 1) == 0);
    const grid *g = &w->grid;
    REQUIRE(g->dense);
    REQUIRE(g->count == added);
    uint32_t b = 0;
    for (uint32_t r = 0; r < g->count; r++) {
        while (g->cell_start[b + 1u] <= r)
            b++;
        const float p[3] = { w->col.px[r], w->col.py[r],
                             dims == 3 ? w->col.pz[r] : 0.0f };
        const uint32_t want =
            grid_bucket(g, grid_coord(g, 0, p[0]), grid_coord(g, 1, p[1]),
                        dims == 3 ? grid_coord(g, 2, p[2]) : 0);
        if (want != b)
            runner_fail(__FILE__, __LINE__,
                        "%dD row %u at (%.9g, %.9g, %.9g): bucket %u, its "
                        "cell's %u",
                        dims, r, (double)p[0], (double)p[1], (double)p[2], b,
                        want);
    }
    throng_world_destroy(w);
}

TEST(grid_dense_buckets_are_grid_coord) {
    /* circle2d's 15 m (its cells' edge 15.0146484 m), and others. */
    const float radii[] = { 15.0f, 1.0f, 0.3f, 7.77f };
    for (int dims = 2; dims <= 3; dims++)
        for (size_t i = 0; i < sizeof radii / sizeof radii[0]; i++)
            dense_buckets_check(dims, radii[i]);
}

void register_grid_tests(void) {
    REGISTER(grid_dense_buckets_are_grid_coord);
    REGISTER(grid_coord_is_the_clamped_floor);
    REGISTER(grid_stable_columns);
    REGISTER(grid_ranges_dense_match_walk);
    REGISTER(grid_sparse_matches_brute_force);
    REGISTER(grid_sparse_falls_back_to_hashing);
    REGISTER(grid_sparse_paths_match_scalar);
    REGISTER(grid_permute_matches_gather);
    REGISTER(grid_uniform_columns_2d);
    REGISTER(grid_uniform_columns_3d);
    REGISTER(grid_query_2d_unbounded);
    REGISTER(grid_query_3d_unbounded);
    REGISTER(grid_query_2d_periodic);
    REGISTER(grid_query_3d_periodic);
    REGISTER(grid_query_exact_boundaries);
    REGISTER(grid_query_truncation);
}
