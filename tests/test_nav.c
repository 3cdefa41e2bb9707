/* SPDX-License-Identifier: MIT */
/*
 * Tests of navigation fields (src/nav_solve.c, src/nav_field.c,
 * src/nav_objects.c) and the behaviour that follows them.
 *
 * The solver's update is checked against its definition by brute force;
 * a field's distances against the straight-line distance in the open and
 * against a brute-force shortest path among the free cells' centres (any
 * angle, every pair of mutually visible centres an edge) in rooms and
 * mazes, within the error of the first-order upwind scheme; the same
 * field is demanded bit for bit on 1 to 8 threads and from an incremental
 * rebuild as from a fresh build. Bad definitions are refused with their
 * code, a sentence, and the world unchanged. Agents following fields
 * reach every reachable goal of a maze without a single step through a
 * wall, are told they arrived, and are removed when they asked to be.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "object_defs.h"
#include "runner.h"

#include "nav_solve.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

static throng_world *nav_world(int dims, int threads) {
    throng_world_def d = ts_world_def(dims, threads, NULL);
    d.max_dt = 10.0f;
    d.neighbour_radius = 1.0f;
    return ts_world_make(&d);
}

static throng_nav_goal goal_point(float x, float y, float z) {
    throng_nav_goal g;
    memset(&g, 0, sizeof g);
    g.kind = THRONG_NAV_GOAL_POINT;
    g.a[0] = x;
    g.a[1] = y;
    g.a[2] = z;
    return g;
}

static throng_nav_goal goal_box(float x0, float y0, float x1, float y1) {
    throng_nav_goal g;
    memset(&g, 0, sizeof g);
    g.kind = THRONG_NAV_GOAL_BOX;
    g.a[0] = x0;
    g.a[1] = y0;
    g.b[0] = x1;
    g.b[1] = y1;
    return g;
}

/* A 2D field def over [0, nx h] x [0, ny h]. */
static throng_nav_field_def field_2d(uint32_t nx, uint32_t ny, float h,
                                     const throng_nav_goal *goals,
                                     uint32_t count) {
    throng_nav_field_def d = throng_nav_field_def_default();
    d.cell_size = h;
    d.size[0] = nx;
    d.size[1] = ny;
    d.goals = goals;
    d.goal_count = count;
    return d;
}

/* Every cell's distance; the caller frees it. */
static float *distances_of(throng_world *w, throng_object f, uint64_t *n) {
    uint64_t count = 0;
    if (throng_nav_field_distances(w, f, NULL, 0u, &count) !=
        THRONG_ERR_CAPACITY)
        return NULL;
    float *d = malloc((size_t)count * sizeof *d);
    if (!d || throng_nav_field_distances(w, f, d, count, NULL) != THRONG_OK) {
        free(d);
        return NULL;
    }
    *n = count;
    return d;
}

static uint64_t bits_hash(const float *v, uint64_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], sizeof u);
        h = (h ^ u) * 0x100000001b3ull;
    }
    return h;
}

static void wall(throng_world *w, float ax, float ay, float bx, float by) {
    const float a[3] = { ax, ay, 0.0f }, b[3] = { bx, by, 0.0f };
    throng_object o;
    if (add_segment(w, a, b, &o) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "wall refused: %s",
                    throng_world_last_error(w));
}

static void block(throng_world *w, float x0, float y0, float x1, float y1) {
    const float lo[3] = { x0, y0, 0.0f }, hi[3] = { x1, y1, 0.0f };
    throng_object o;
    if (add_box(w, lo, hi, &o) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "box refused: %s",
                    throng_world_last_error(w));
}

/* Rooms: a 40 x 30 m floor, a wall across x = 20 with a door at y in
 * [12, 15], a wall across y = 10 for x in [0, 15], a pillar box. */
static void rooms(throng_world *w) {
    wall(w, 20.0f, 0.0f, 20.0f, 12.0f);
    wall(w, 20.0f, 15.0f, 20.0f, 30.0f);
    wall(w, 0.0f, 10.0f, 15.0f, 10.0f);
    block(w, 28.0f, 18.0f, 32.0f, 24.0f);
}

/* A maze of corridors 4 m wide: walls across the floor, alternately open
 * at the right and the left end. */
static void maze(throng_world *w, float width, float height) {
    for (int k = 0; 4.0f * (float)(k + 1) < height - 1.0f; k++) {
        const float y = 4.0f * (float)(k + 1);
        if (k % 2 == 0)
            wall(w, 0.0f, y, width - 4.0f, y);
        else
            wall(w, 4.0f, y, width, y);
    }
}

/* ------------------------------------------------------------------------ */
/* The update                                                               */
/* ------------------------------------------------------------------------ */

/* The update by its definition: the smallest integer t with the sum over
 * axes of max(t - x, 0)^2 >= F^2, searched upwards. */
static uint64_t update_brute(const uint64_t *x, int dims, uint64_t F) {
    uint64_t lo = NAV_INF;
    for (int k = 0; k < dims; k++)
        lo = x[k] < lo ? x[k] : lo;
    if (lo >= NAV_INF)
        return NAV_INF;
    for (uint64_t t = lo;; t++) {
        uint64_t sum = 0;
        for (int k = 0; k < dims; k++)
            if (x[k] < NAV_INF && t > x[k])
                sum += (t - x[k]) * (t - x[k]);
        if (sum >= F * F)
            return t;
    }
}

TEST(nav_update_exact) {
    static uint16_t table[NAV_UNIT];
    nav_unit_table_fill(table);
    test_rng rng = test_rng_make(7);
    unsigned bad = 0;
    for (int trial = 0; trial < 20000; trial++) {
        const int dims = 2 + (trial & 1);
        /* Small steps, and the base step (the table). */
        const uint64_t F =
            trial % 5 == 0 ? NAV_UNIT : 1u + test_rng_below(&rng, 60u);
        uint64_t x[3] = { NAV_INF, NAV_INF, NAV_INF };
        const uint64_t base = test_rng_below(&rng, 1000000u);
        for (int k = 0; k < dims; k++) {
            const uint32_t r = test_rng_below(&rng, 10u);
            x[k] = r == 0
                       ? NAV_INF
                       : base + test_rng_below(&rng, (uint32_t)(2u * F + 1u));
        }
        const uint64_t want = update_brute(x, dims, F);
        const uint64_t got = nav_update(table, x, dims, F);
        if (got != want && bad++ < 5)
            runner_fail(__FILE__, __LINE__,
                        "dims %d F %llu x %llu %llu %llu: got %llu want %llu",
                        dims, (unsigned long long)F, (unsigned long long)x[0],
                        (unsigned long long)x[1],
                        (unsigned long long)(dims == 3 ? x[2] : 0u),
                        (unsigned long long)got, (unsigned long long)want);
    }
    CHECK_EQ_INT(bad, 0);
    /* Monotone: raising any neighbour never lowers the update. */
    for (int trial = 0; trial < 20000; trial++) {
        const int dims = 2 + (trial & 1);
        const uint64_t F = 1u + test_rng_below(&rng, 5000u);
        uint64_t x[3], y[3];
        for (int k = 0; k < dims; k++) {
            x[k] = 100000u + test_rng_below(&rng, (uint32_t)(2u * F));
            y[k] = x[k];
        }
        y[test_rng_below(&rng, (uint32_t)dims)] +=
            1u + test_rng_below(&rng, 3u);
        CHECK(nav_update(table, y, dims, F) >= nav_update(table, x, dims, F));
    }
}

/* ------------------------------------------------------------------------ */
/* Distances                                                                */
/* ------------------------------------------------------------------------ */

/* In the open, from a point goal: the Euclidean distance from the goal
 * cell's centre, within the first-order scheme's error (largest off the
 * axes and diagonals, growing like the logarithm of the distance). */
TEST(nav_open_euclidean) {
    throng_world *w = nav_world(2, 1);
    REQUIRE(w);
    const throng_nav_goal g = goal_point(60.5f, 40.5f, 0.0f);
    throng_nav_field_def d = field_2d(121u, 81u, 1.0f, &g, 1u);
    throng_object f;
    REQUIRE_OK(throng_nav_field_add(w, &d, &f));
    uint64_t n = 0;
    float *dist = distances_of(w, f, &n);
    REQUIRE(dist && n == 121u * 81u);
    double worst = 0.0;
    for (uint32_t j = 0; j < 81u; j++)
        for (uint32_t i = 0; i < 121u; i++) {
            const double dx = (double)i - 60.0, dy = (double)j - 40.0;
            const double r = sqrt(dx * dx + dy * dy);
            const double got = (double)dist[i + 121u * j];
            /* Never shorter than the straight line (rounding up in 1/4096
             * of a cell per step aside). */
            CHECK(got >= r - 1e-3);
            const double err = got - r;
            worst = err > worst ? err : worst;
            if (r > 0.0)
                CHECK(err <= 0.05 * r + 1.0);
        }
    /* The scheme is exact along the axes. */
    CHECK_NEAR(dist[120u + 121u * 40u], 60.0, 0.02);
    CHECK_NEAR(dist[60u + 121u * 0u], 40.0, 0.02);
    CHECK(worst < 3.0);
    free(dist);
    throng_world_destroy(w);
}

/* Whether cell (x, y) is solid or unreached (its distance infinite) or
 * outside the grid. */
static int closed_cell(const float *dist, uint32_t nx, uint32_t ny, long x,
                       long y) {
    return x < 0 || y < 0 || x >= (long)nx || y >= (long)ny ||
           isinf(dist[(uint32_t)x + nx * (uint32_t)y]);
}

/* Whether the segment between two cell centres crosses only open cells:
 * every cell it passes through, by a grid walk, and where it passes
 * exactly through a corner both cells beside the corner too, so a line
 * between two solid cells that touch at a corner is blocked. */
static int visible(const float *dist, uint32_t nx, uint32_t ny, uint32_t a,
                   uint32_t b) {
    long cx = (long)(a % nx), cy = (long)(a / nx);
    const long ex = (long)(b % nx), ey = (long)(b / nx);
    const double dx = (double)(ex - cx), dy = (double)(ey - cy);
    const long sx = dx > 0.0 ? 1 : -1, sy = dy > 0.0 ? 1 : -1;
    const double tdx = dx != 0.0 ? 1.0 / fabs(dx) : (double)INFINITY;
    const double tdy = dy != 0.0 ? 1.0 / fabs(dy) : (double)INFINITY;
    double tx = 0.5 * tdx, ty = 0.5 * tdy;
    for (;;) {
        if (closed_cell(dist, nx, ny, cx, cy))
            return 0;
        if (cx == ex && cy == ey)
            return 1;
        if (fabs(tx - ty) < 1e-9) {
            if (closed_cell(dist, nx, ny, cx + sx, cy) ||
                closed_cell(dist, nx, ny, cx, cy + sy))
                return 0;
            cx += sx;
            cy += sy;
            tx += tdx;
            ty += tdy;
        } else if (tx < ty) {
            cx += sx;
            tx += tdx;
        } else {
            cy += sy;
            ty += tdy;
        }
    }
}

/* Dijkstra over every pair of mutually visible reachable cells: the
 * shortest path through the field's free space with turns at cell
 * centres. O(n^2) edges: for small grids only. */
static double *reference_paths(const float *dist, uint32_t nx, uint32_t ny) {
    const uint32_t n = nx * ny;
    double *best = malloc(n * sizeof *best);
    uint8_t *done = calloc(n, 1);
    if (!best || !done) {
        free(best);
        free(done);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        best[i] = dist[i] == 0.0f ? 0.0 : (double)INFINITY;
    for (;;) {
        uint32_t u = n;
        for (uint32_t i = 0; i < n; i++)
            if (!done[i] && isfinite(best[i]) && (u == n || best[i] < best[u]))
                u = i;
        if (u == n)
            break;
        done[u] = 1;
        for (uint32_t v = 0; v < n; v++) {
            if (done[v] || isinf(dist[v]))
                continue;
            const uint32_t vx = v % nx, vy = v / nx, ux = u % nx, uy = u / nx;
            const double dx = (double)vx - (double)ux;
            const double dy = (double)vy - (double)uy;
            const double step = sqrt(dx * dx + dy * dy);
            if (best[u] + step >= best[v])
                continue;
            if (!visible(dist, nx, ny, u, v))
                continue;
            best[v] = best[u] + step;
        }
    }
    free(done);
    return best;
}

/* Compares a field with the reference in cells; returns the worst excess
 * of the field over the reference (the scheme never falls below it by
 * more than the rounding of corner cuts). */
static void compare_reference(throng_world *w, throng_object f, uint32_t nx,
                              uint32_t ny, double rel, double abs_cells) {
    uint64_t n = 0;
    float *dist = distances_of(w, f, &n);
    REQUIRE(dist && n == (uint64_t)nx * ny);
    double *ref = reference_paths(dist, nx, ny);
    REQUIRE(ref);
    unsigned reached = 0;
    double worst = 0.0, worst_low = 0.0;
    for (uint32_t i = 0; i < nx * ny; i++) {
        if (isinf(dist[i]))
            continue;
        reached++;
        /* Every cell the field reaches, the reference reaches. */
        CHECK(isfinite(ref[i]));
        const double err = (double)dist[i] - ref[i];
        if (err > rel * ref[i] + abs_cells)
            runner_fail(__FILE__, __LINE__,
                        "cell (%u, %u): field %.3f, shortest path %.3f", i % nx,
                        i / nx, (double)dist[i], ref[i]);
        worst = err > worst ? err : worst;
        worst_low = -err > worst_low ? -err : worst_low;
    }
    CHECK(reached > nx * ny / 2u);
    /* The upwind scheme cuts no corner by more than a cell. */
    CHECK(worst_low <= 1.0);
    free(ref);
    free(dist);
}

TEST(nav_rooms_reference) {
    throng_world *w = nav_world(2, 2);
    REQUIRE(w);
    rooms(w);
    const throng_nav_goal g = goal_point(36.5f, 4.5f, 0.0f);
    throng_nav_field_def d = field_2d(40u, 30u, 1.0f, &g, 1u);
    throng_object f;
    REQUIRE_OK(throng_nav_field_add(w, &d, &f));
    compare_reference(w, f, 40u, 30u, 0.06, 1.5);
    throng_world_destroy(w);
}

TEST(nav_maze_reference) {
    throng_world *w = nav_world(2, 2);
    REQUIRE(w);
    maze(w, 32.0f, 32.0f);
    /* Two goals: the nearer one counts. */
    const throng_nav_goal g[2] = { goal_point(1.5f, 1.5f, 0.0f),
                                   goal_point(30.5f, 30.5f, 0.0f) };
    throng_nav_field_def d = field_2d(32u, 32u, 1.0f, g, 2u);
    throng_object f;
    REQUIRE_OK(throng_nav_field_add(w, &d, &f));
    compare_reference(w, f, 32u, 32u, 0.06, 1.5);
    throng_world_destroy(w);
}

/* ------------------------------------------------------------------------ */
/* Determinism and rebuilds                                                 */
/* ------------------------------------------------------------------------ */

static uint64_t rooms_field_hash(int threads, uint32_t scale) {
    throng_world *w = nav_world(2, threads);
    if (!w)
        return 0;
    rooms(w);
    const throng_nav_goal g[2] = { goal_box(36.0f, 2.0f, 38.0f, 6.0f),
                                   goal_point(1.2f, 28.7f, 0.0f) };
    throng_nav_field_def d =
        field_2d(40u * scale, 30u * scale, 1.0f / (float)scale, g, 2u);
    d.clearance = 0.3f;
    throng_object f;
    uint64_t h = 0, n = 0;
    if (throng_nav_field_add(w, &d, &f) == THRONG_OK) {
        float *dist = distances_of(w, f, &n);
        if (dist)
            h = bits_hash(dist, n);
        free(dist);
    }
    throng_world_destroy(w);
    return h;
}

TEST(nav_threads_agree) {
    const uint64_t one = rooms_field_hash(1, 8u);
    CHECK(one != 0u);
    for (int threads = 2; threads <= 8; threads++)
        CHECK_EQ_U64(rooms_field_hash(threads, 8u), one);
}

/* The distances of a fresh field over w's geometry now. */
static float *fresh_distances(throng_world *w, const throng_nav_field_def *d,
                              uint64_t *n) {
    throng_object f;
    if (throng_nav_field_add(w, d, &f) != THRONG_OK)
        return NULL;
    float *dist = distances_of(w, f, n);
    throng_object_remove(w, f);
    return dist;
}

TEST(nav_incremental_equals_full) {
    throng_world *w = nav_world(2, 2);
    REQUIRE(w);
    rooms(w);
    const throng_nav_goal g = goal_point(36.5f, 4.5f, 0.0f);
    throng_nav_field_def d = field_2d(160u, 120u, 0.25f, &g, 1u);
    d.clearance = 0.25f;
    throng_object f;
    REQUIRE_OK(throng_nav_field_add(w, &d, &f));
    test_rng rng = test_rng_make(3);
    throng_object added[6];
    unsigned incremental = 0;
    for (int round = 0; round < 11; round++) {
        if (round < 6) {
            /* A box somewhere in the upper left room, whose routes it
             * bends but a few cells behind it depend on. */
            const float x = test_rng_range(&rng, 2.0f, 14.0f);
            const float y = test_rng_range(&rng, 18.0f, 28.0f);
            const float lo[3] = { x, y, 0.0f },
                        hi[3] = { x + 1.5f, y + 0.7f, 0.0f };
            REQUIRE_OK(add_box(w, lo, hi, &added[round]));
        } else if (round < 10) {
            REQUIRE_OK(throng_object_remove(w, added[round - 6]));
        } else {
            /* Next to the goal, where every route passes: more than an
             * eighth of the cells depend on its cells, and the rebuild
             * is a full one, with the same bits. */
            const float lo[3] = { 34.0f, 3.0f, 0.0f },
                        hi[3] = { 35.5f, 6.0f, 0.0f };
            REQUIRE_OK(add_box(w, lo, hi, &added[0]));
        }
        REQUIRE_OK(throng_nav_field_update(w, f));
        throng_nav_field_info info;
        REQUIRE_OK(throng_nav_field_get(w, f, &info));
        incremental += !info.last_full;
        CHECK_EQ_INT(info.last_full, round == 10);
        CHECK(round == 10 || info.last_cells < info.cells / 8u);
        uint64_t n1 = 0, n2 = 0;
        float *now = distances_of(w, f, &n1);
        float *fresh = fresh_distances(w, &d, &n2);
        REQUIRE(now && fresh && n1 == n2);
        CHECK(memcmp(now, fresh, (size_t)n1 * sizeof(float)) == 0);
        free(now);
        free(fresh);
    }
    CHECK_EQ_INT(incremental, 10);
    /* New costs: a slow strip across the lower room, then none. */
    float *costs = malloc(160u * 120u * sizeof *costs);
    REQUIRE(costs);
    for (uint32_t c = 0; c < 160u * 120u; c++)
        costs[c] = (c / 160u) > 8u && (c / 160u) < 16u ? 4.0f : 1.0f;
    for (int round = 0; round < 2; round++) {
        REQUIRE_OK(throng_nav_field_set_costs(w, f, round ? NULL : costs));
        REQUIRE_OK(throng_nav_field_update(w, f));
        throng_nav_field_def dc = d;
        dc.costs = round ? NULL : costs;
        uint64_t n1 = 0, n2 = 0;
        float *now = distances_of(w, f, &n1);
        float *fresh = fresh_distances(w, &dc, &n2);
        REQUIRE(now && fresh && n1 == n2);
        CHECK(memcmp(now, fresh, (size_t)n1 * sizeof(float)) == 0);
        free(now);
        free(fresh);
    }
    free(costs);
    /* Nothing changed: the update does nothing. */
    throng_nav_field_info before, after;
    REQUIRE_OK(throng_nav_field_get(w, f, &before));
    REQUIRE_OK(throng_nav_field_update(w, f));
    REQUIRE_OK(throng_nav_field_get(w, f, &after));
    CHECK_EQ_U64(after.builds, before.builds);
    throng_world_destroy(w);
}

/* A step rebuilds a field whose geometry changed. */
TEST(nav_step_rebuilds) {
    throng_world *w = nav_world(2, 1);
    REQUIRE(w);
    const throng_nav_goal g = goal_point(19.5f, 5.5f, 0.0f);
    throng_nav_field_def d = field_2d(20u, 10u, 1.0f, &g, 1u);
    throng_object f;
    REQUIRE_OK(throng_nav_field_add(w, &d, &f));
    throng_nav_sample s;
    const float p[3] = { 2.5f, 5.5f, 0.0f };
    REQUIRE_OK(throng_nav_field_sample(w, f, p, &s));
    CHECK_NEAR(s.distance, 17.0, 1e-3);
    wall(w, 10.0f, 2.0f, 10.0f, 10.0f);
    /* Until a step or an update, the last build. */
    REQUIRE_OK(throng_nav_field_sample(w, f, p, &s));
    CHECK_NEAR(s.distance, 17.0, 1e-3);
    REQUIRE_OK(throng_world_step(w, 0.1f));
    REQUIRE_OK(throng_nav_field_sample(w, f, p, &s));
    CHECK(s.distance > 20.0f);
    throng_world_destroy(w);
}

/* ------------------------------------------------------------------------ */
/* Refusals                                                                 */
/* ------------------------------------------------------------------------ */

static void expect_refused(throng_world *w, const throng_nav_field_def *d,
                           throng_status want, const char *word, int line) {
    const uint64_t h = throng_world_hash(w);
    const uint32_t objects = throng_world_object_count(w);
    const size_t bytes = throng_world_bytes(w);
    throng_object f = THRONG_NULL_OBJECT;
    const throng_status got = throng_nav_field_add(w, d, &f);
    if (got != want)
        runner_fail(__FILE__, line, "got %d (%s), want %d: %s", (int)got,
                    throng_status_string(got), (int)want,
                    throng_world_last_error(w));
    const char *why = throng_world_last_error(w);
    if (!strstr(why, "throng_nav_field_add") || !strstr(why, word))
        runner_fail(__FILE__, line, "sentence \"%s\" lacks \"%s\"", why, word);
    if (throng_world_hash(w) != h || throng_world_object_count(w) != objects ||
        throng_world_bytes(w) != bytes)
        runner_fail(__FILE__, line, "the world changed");
}

TEST(nav_refusals) {
    throng_world *w = nav_world(2, 1);
    REQUIRE(w);
    block(w, 4.0f, 4.0f, 6.0f, 6.0f);
    throng_nav_goal g = goal_point(1.5f, 1.5f, 0.0f);
    throng_nav_field_def d;
    float costs[20 * 10];
    for (int c = 0; c < 200; c++)
        costs[c] = 1.0f;
    throng_nav_region region = { { 1.0f, 1.0f, 0.0f },
                                 { 2.0f, 2.0f, 0.0f },
                                 2.0f };
#define REFUSE(change, want, word)                   \
    do {                                             \
        g = goal_point(1.5f, 1.5f, 0.0f);            \
        d = field_2d(20u, 10u, 1.0f, &g, 1u);        \
        change;                                      \
        expect_refused(w, &d, want, word, __LINE__); \
    } while (0)
    REFUSE(g = goal_point(5.0f, 5.0f, 0.0f), THRONG_ERR_INVALID_ARG,
           "impassable");
    /* Every cell but the goal's at cost 0: nothing reaches it. */
    for (int c = 0; c < 200; c++)
        costs[c] = c == 21 ? 1.0f : 0.0f;
    REFUSE(d.costs = costs, THRONG_ERR_INVALID_ARG, "no free cell");
    for (int c = 0; c < 200; c++)
        costs[c] = 1.0f;
    REFUSE(g = goal_point(25.0f, 5.0f, 0.0f), THRONG_ERR_OUT_OF_RANGE,
           "outside the grid");
    REFUSE(g = goal_point(-0.5f, 5.0f, 0.0f), THRONG_ERR_OUT_OF_RANGE,
           "outside the grid");
    REFUSE(d.origin[0] = NAN, THRONG_ERR_NOT_FINITE, "origin");
    REFUSE(g.a[1] = INFINITY, THRONG_ERR_NOT_FINITE, "goals[0].a");
    REFUSE(d.cell_size = 0.0f, THRONG_ERR_OUT_OF_RANGE, "cell_size");
    REFUSE(d.cell_size = NAN, THRONG_ERR_NOT_FINITE, "cell_size");
    REFUSE(d.size[0] = 0u, THRONG_ERR_OUT_OF_RANGE, "size[0]");
    REFUSE(d.size[2] = 2u, THRONG_ERR_OUT_OF_RANGE, "size[2]");
    REFUSE((d.size[0] = 1u << 14, d.size[1] = 1u << 14),
           THRONG_ERR_OUT_OF_RANGE, "THRONG_MAX_NAV_CELLS");
    REFUSE((d.size[0] = 0xffffffffu, d.size[1] = 0xffffffffu),
           THRONG_ERR_OUT_OF_RANGE, "THRONG_MAX_NAV_CELLS");
    REFUSE(d.clearance = -1.0f, THRONG_ERR_OUT_OF_RANGE, "clearance");
    REFUSE(d.goal_count = 0u, THRONG_ERR_OUT_OF_RANGE, "goals");
    REFUSE(d.goals = NULL, THRONG_ERR_NULL, "goals");
    REFUSE(g.kind = (throng_nav_goal_kind)9, THRONG_ERR_OUT_OF_RANGE, "kind");
    REFUSE(g.b[0] = 1.0f, THRONG_ERR_INVALID_ARG, "b must be 0");
    REFUSE(g = goal_box(3.0f, 1.0f, 2.0f, 2.0f), THRONG_ERR_OUT_OF_RANGE,
           "below");
    REFUSE(d.density_cost = -1.0f, THRONG_ERR_OUT_OF_RANGE, "density_cost");
    REFUSE(d.density_radius = NAN, THRONG_ERR_NOT_FINITE, "density_radius");
    REFUSE((costs[7] = 0.001f, d.costs = costs), THRONG_ERR_OUT_OF_RANGE,
           "costs[7]");
    costs[7] = 1.0f;
    REFUSE((costs[9] = NAN, d.costs = costs), THRONG_ERR_NOT_FINITE,
           "costs[9]");
    costs[9] = 1.0f;
    REFUSE((d.regions = &region, d.region_count = 1u, region.cost = 1e6f),
           THRONG_ERR_OUT_OF_RANGE, "regions[].cost");
    region.cost = 2.0f;
    REFUSE((d.regions = &region, d.region_count = 1u, region.max[1] = 0.5f),
           THRONG_ERR_OUT_OF_RANGE, "min[1]");
    region.max[1] = 2.0f;
    REFUSE(d.region_count = 1u, THRONG_ERR_NULL, "regions");
    /* A cost of 0 everywhere round the goal leaves nothing reachable. */
    REFUSE((region = (throng_nav_region){ { 0.0f, 0.0f, 0.0f },
                                          { 20.0f, 10.0f, 0.0f },
                                          0.0f },
            d.regions = &region, d.region_count = 1u),
           THRONG_ERR_INVALID_ARG, "impassable");
#undef REFUSE
    /* NULLs, and the handle calls. */
    throng_object f;
    CHECK_STATUS(throng_nav_field_add(w, NULL, &f), THRONG_ERR_NULL);
    g = goal_point(1.5f, 1.5f, 0.0f);
    d = field_2d(20u, 10u, 1.0f, &g, 1u);
    CHECK_STATUS(throng_nav_field_add(w, &d, NULL), THRONG_ERR_NULL);
    CHECK_STATUS(throng_nav_field_add(NULL, &d, &f), THRONG_ERR_NULL);
    REQUIRE_OK(throng_nav_field_add(w, &d, &f));
    throng_nav_sample s;
    const float p[3] = { 1.0f, 1.0f, 0.0f }, bad[3] = { NAN, 1.0f, 0.0f };
    CHECK_STATUS(throng_nav_field_sample(w, f, bad, &s), THRONG_ERR_NOT_FINITE);
    CHECK_STATUS(throng_nav_field_sample(w, f, p, NULL), THRONG_ERR_NULL);
    throng_object other = f;
    other.generation++;
    CHECK_STATUS(throng_nav_field_sample(w, other, p, &s),
                 THRONG_ERR_STALE_HANDLE);
    const throng_object box_id = { 1u, 1u, throng_world_id(w) };
    CHECK_STATUS(throng_nav_field_sample(w, box_id, p, &s),
                 THRONG_ERR_STALE_HANDLE);
    float few[4];
    uint64_t count = 0;
    CHECK_STATUS(throng_nav_field_distances(w, f, few, 4u, &count),
                 THRONG_ERR_CAPACITY);
    CHECK_EQ_U64(count, 200u);
    CHECK_STATUS(throng_nav_field_distances(w, f, NULL, 4u, &count),
                 THRONG_ERR_NULL);
    /* Costs: refused as the definition's, the field unchanged. */
    const uint64_t h = throng_world_hash(w);
    costs[3] = -2.0f;
    CHECK_STATUS(throng_nav_field_set_costs(w, f, costs),
                 THRONG_ERR_OUT_OF_RANGE);
    CHECK(strstr(throng_world_last_error(w), "costs[3]") != NULL);
    throng_nav_field_info info;
    REQUIRE_OK(throng_nav_field_get(w, f, &info));
    CHECK(info.def.costs == NULL);
    CHECK_EQ_U64(throng_world_hash(w), h);
    /* Agents: a field of the wrong kind, or removed. */
    throng_agent_def ad = throng_agent_def_default();
    throng_agent a;
    REQUIRE_OK(throng_agent_add(w, &ad, &a));
    CHECK_STATUS(throng_agent_set_nav_field(w, a, box_id),
                 THRONG_ERR_STALE_HANDLE);
    REQUIRE_OK(throng_object_remove(w, f));
    CHECK_STATUS(throng_agent_set_nav_field(w, a, f), THRONG_ERR_STALE_HANDLE);
    CHECK_STATUS(throng_nav_field_update(w, f), THRONG_ERR_STALE_HANDLE);
    throng_world_destroy(w);
}

/* ------------------------------------------------------------------------ */
/* Sampling                                                                 */
/* ------------------------------------------------------------------------ */

/* Samples of one field: a unit direction everywhere it is reachable,
 * which does not lead into an impassable cell half a cell on, and along
 * which the distance falls: by at least 0.1 m over a step of 0.25 m but
 * at a few points (about 1%: on ridges where two ways meet, next to a
 * goal, and near walls, where the interpolation of the distance leaves
 * out impassable corner cells and has seams), and never rising by twice
 * the step. */
static void sample_check(throng_world *w, throng_object f, test_rng *rng,
                         int points) {
    uint64_t n = 0;
    float *dist = distances_of(w, f, &n);
    REQUIRE(dist && n == 80u * 60u);
    throng_nav_sample s;
    unsigned checked = 0, flat = 0;
    for (int k = 0; k < points; k++) {
        const float p[3] = { test_rng_range(rng, 0.0f, 40.0f),
                             test_rng_range(rng, 0.0f, 30.0f), 0.0f };
        REQUIRE_OK(throng_nav_field_sample(w, f, p, &s));
        const uint32_t cx = (uint32_t)(p[0] / 0.5f),
                       cy = (uint32_t)(p[1] / 0.5f);
        if (isinf(dist[cx + 80u * cy]) || s.at_goal)
            continue;
        checked++;
        const double ux = (double)s.direction[0], uy = (double)s.direction[1];
        const double len = sqrt(ux * ux + uy * uy);
        CHECK_NEAR(len, 1.0, 1e-5);
        const float q[3] = { p[0] + 0.25f * s.direction[0],
                             p[1] + 0.25f * s.direction[1], 0.0f };
        const uint32_t qx = (uint32_t)(q[0] / 0.5f),
                       qy = (uint32_t)(q[1] / 0.5f);
        CHECK(qx < 80u && qy < 60u && !isinf(dist[qx + 80u * qy]));
        throng_nav_sample t;
        REQUIRE_OK(throng_nav_field_sample(w, f, q, &t));
        CHECK(t.distance < s.distance + 0.5f);
        flat += !(t.distance < s.distance - 0.1f);
    }
    CHECK(checked > (unsigned)points / 2u);
    CHECK(flat * 20u < checked);
    free(dist);
}

TEST(nav_sample_points) {
    throng_world *w = nav_world(2, 1);
    REQUIRE(w);
    rooms(w);
    const throng_nav_goal g = goal_box(35.0f, 3.0f, 38.0f, 6.0f);
    throng_nav_field_def d = field_2d(80u, 60u, 0.5f, &g, 1u);
    throng_object f;
    throng_nav_sample s;
    test_rng rng = test_rng_make(11);
    /* With no clearance free cells touch the walls' cells, where a blend
     * of directions cuts a corner; with one, the margin stands between. */
    for (int clear = 0; clear < 2; clear++) {
        d.clearance = clear ? 0.3f : 0.0f;
        REQUIRE_OK(throng_nav_field_add(w, &d, &f));
        const float out[3] = { 41.0f, 5.0f, 0.0f };
        REQUIRE_OK(throng_nav_field_sample(w, f, out, &s));
        CHECK(!s.inside && isinf(s.distance) && s.direction[0] == 0.0f);
        const float at[3] = { 36.0f, 4.0f, 0.0f };
        REQUIRE_OK(throng_nav_field_sample(w, f, at, &s));
        CHECK(s.inside && s.at_goal && s.distance == 0.0f);
        sample_check(w, f, &rng, 20000);
    }
    throng_world_destroy(w);
    /* Slanted walls, whose cells are a staircase: where the field's
     * directions blend along one, some would cut into a step. */
    for (int scene = 0; scene < 6; scene++) {
        w = nav_world(2, 1);
        REQUIRE(w);
        for (int k = 0; k < 6; k++)
            wall(w, test_rng_range(&rng, 5.0f, 35.0f),
                 test_rng_range(&rng, 5.0f, 25.0f),
                 test_rng_range(&rng, 5.0f, 35.0f),
                 test_rng_range(&rng, 5.0f, 25.0f));
        const throng_nav_goal p =
            goal_point(test_rng_range(&rng, 1.0f, 4.0f),
                       test_rng_range(&rng, 1.0f, 29.0f), 0.0f);
        d = field_2d(80u, 60u, 0.5f, &p, 1u);
        REQUIRE_OK(throng_nav_field_add(w, &d, &f));
        sample_check(w, f, &rng, 100000);
        throng_world_destroy(w);
    }
}

/* A voxel field: straight-line distances in the open, the same bits on
 * several threads, a box in the way. */
static uint64_t voxel_hash(int threads, float *far_out) {
    throng_world *w = nav_world(3, threads);
    if (!w)
        return 0;
    const float lo[3] = { 8.0f, 0.0f, 0.0f }, hi[3] = { 9.0f, 12.0f, 16.0f };
    throng_object box;
    throng_nav_field_def d = throng_nav_field_def_default();
    d.size[0] = d.size[1] = d.size[2] = 40u;
    d.cell_size = 0.5f;
    const throng_nav_goal g = goal_point(2.25f, 2.25f, 2.25f);
    d.goals = &g;
    d.goal_count = 1u;
    throng_object f;
    uint64_t h = 0, n = 0;
    if (add_box(w, lo, hi, &box) == THRONG_OK &&
        throng_nav_field_add(w, &d, &f) == THRONG_OK) {
        float *dist = distances_of(w, f, &n);
        if (dist) {
            h = bits_hash(dist, n);
            /* Beyond the box, straight across (x 15, y 2, z 2). */
            *far_out = dist[30u + 40u * (4u + 40u * 4u)];
        }
        free(dist);
    }
    throng_world_destroy(w);
    return h;
}

TEST(nav_voxels) {
    throng_world *w = nav_world(3, 1);
    REQUIRE(w);
    throng_nav_field_def d = throng_nav_field_def_default();
    d.size[0] = d.size[1] = d.size[2] = 31u;
    const throng_nav_goal g = goal_point(15.5f, 15.5f, 15.5f);
    d.goals = &g;
    d.goal_count = 1u;
    throng_object f;
    REQUIRE_OK(throng_nav_field_add(w, &d, &f));
    uint64_t n = 0;
    float *dist = distances_of(w, f, &n);
    REQUIRE(dist && n == 31u * 31u * 31u);
    for (uint32_t k = 0; k < 31u; k++)
        for (uint32_t j = 0; j < 31u; j++)
            for (uint32_t i = 0; i < 31u; i++) {
                const double dx = (double)i - 15.0, dy = (double)j - 15.0,
                             dz = (double)k - 15.0;
                const double r = sqrt(dx * dx + dy * dy + dz * dz);
                const double got = (double)dist[i + 31u * (j + 31u * k)];
                CHECK(got >= r - 1e-3 && got <= 1.06 * r + 1.0);
            }
    free(dist);
    throng_world_destroy(w);
    float far1 = 0.0f, farn = 0.0f;
    const uint64_t one = voxel_hash(1, &far1);
    CHECK(one != 0u);
    CHECK_EQ_U64(voxel_hash(4, &farn), one);
    /* Round the box: over its top edge (y = 12) and down, about 24 m (a
     * straight run would be 13). */
    CHECK(far1 > 22.0f && far1 < 28.0f);
}

/* ------------------------------------------------------------------------ */
/* Agents                                                                   */
/* ------------------------------------------------------------------------ */

/* A group following fields: FOLLOW_NAV alone, summed with weight 1. */
static throng_group nav_group(throng_world *w, throng_object field,
                              float arrival, bool remove) {
    throng_group_def gd = throng_group_def_default();
    gd.combine = THRONG_COMBINE_WEIGHTED_SUM;
    throng_group grp = THRONG_NULL_GROUP;
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_NAV);
    b.u.nav.field = field;
    b.u.nav.arrival_distance = arrival;
    b.u.nav.remove = remove;
    if (throng_group_create(w, &gd, &grp) != THRONG_OK ||
        throng_group_add_behaviour(w, grp, &b, NULL) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "group refused: %s",
                    throng_world_last_error(w));
    return grp;
}

static throng_agent walker(throng_world *w, throng_group grp, float x,
                           float y) {
    throng_agent_def a = throng_agent_def_default();
    a.position[0] = x;
    a.position[1] = y;
    a.group = grp;
    a.max_speed = 1.34f;
    a.max_force = 100.0f;
    a.radius = 0.2f;
    throng_agent h = THRONG_NULL_AGENT;
    if (throng_agent_add(w, &a, &h) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "agent refused: %s",
                    throng_world_last_error(w));
    return h;
}

/* Whether the move from p to q crosses the wall a-b (2D, proper or
 * touching intersection). */
static int crosses(const float pf[2], const float qf[2], const float af[2],
                   const float bf[2]) {
    const double p[2] = { (double)pf[0], (double)pf[1] };
    const double q[2] = { (double)qf[0], (double)qf[1] };
    const double a[2] = { (double)af[0], (double)af[1] };
    const double b[2] = { (double)bf[0], (double)bf[1] };
    const double d1 = ((double)b[0] - a[0]) * ((double)p[1] - a[1]) -
                      ((double)b[1] - a[1]) * ((double)p[0] - a[0]);
    const double d2 = ((double)b[0] - a[0]) * ((double)q[1] - a[1]) -
                      ((double)b[1] - a[1]) * ((double)q[0] - a[0]);
    const double d3 = ((double)q[0] - p[0]) * ((double)a[1] - p[1]) -
                      ((double)q[1] - p[1]) * ((double)a[0] - p[0]);
    const double d4 = ((double)q[0] - p[0]) * ((double)b[1] - p[1]) -
                      ((double)q[1] - p[1]) * ((double)b[0] - p[0]);
    return ((d1 <= 0.0 && d2 >= 0.0) || (d1 >= 0.0 && d2 <= 0.0)) &&
           ((d3 <= 0.0 && d4 >= 0.0) || (d3 >= 0.0 && d4 <= 0.0));
}

/* Three goals in a maze, a field for each; 30 agents of one group, each
 * given one of the fields as its own: every agent reaches its own goal,
 * and no move ever crosses a wall. */
TEST(nav_maze_agents) {
    throng_world *w = nav_world(2, 2);
    REQUIRE(w);
    const float width = 24.0f, height = 24.0f;
    maze(w, width, height);
    throng_object fields[3];
    const float goals[3][2] = { { 1.5f, 1.5f },
                                { 22.5f, 10.0f },
                                { 12.0f, 22.5f } };
    for (int k = 0; k < 3; k++) {
        const throng_nav_goal g = goal_point(goals[k][0], goals[k][1], 0.0f);
        throng_nav_field_def d = field_2d(96u, 96u, 0.25f, &g, 1u);
        d.clearance = 0.25f;
        REQUIRE_OK(throng_nav_field_add(w, &d, &fields[k]));
    }
    const throng_group grp = nav_group(w, fields[0], 0.3f, false);
    throng_agent agents[30];
    test_rng rng = test_rng_make(5);
    for (int i = 0; i < 30; i++) {
        /* Mid-corridor (corridors are 4 m, walls at multiples of 4). */
        const float x = test_rng_range(&rng, 1.0f, width - 1.0f);
        const float y = 4.0f * (float)test_rng_below(&rng, 6u) + 2.0f;
        agents[i] = walker(w, grp, x, y);
        if (i % 3)
            REQUIRE_OK(throng_agent_set_nav_field(w, agents[i], fields[i % 3]));
    }
    /* The walls, for the crossing checks. */
    uint32_t objects = throng_world_object_count(w);
    float walls[16][4];
    uint32_t wall_count = 0;
    for (uint32_t i = 0; i < objects && wall_count < 16u; i++) {
        throng_object o;
        throng_object_info info;
        REQUIRE_OK(throng_world_object_at(w, i, &o));
        REQUIRE_OK(throng_object_get(w, o, &info));
        if (info.kind != THRONG_OBJECT_SEGMENT)
            continue;
        walls[wall_count][0] = info.a[0];
        walls[wall_count][1] = info.a[1];
        walls[wall_count][2] = info.b[0];
        walls[wall_count][3] = info.b[1];
        wall_count++;
    }
    REQUIRE(wall_count == 5u);
    float before[30][2];
    int all = 0, step = 0;
    unsigned crossings = 0;
    for (; step < 3000 && !all; step++) {
        for (int i = 0; i < 30; i++) {
            float p[3];
            REQUIRE_OK(throng_agent_get_position(w, agents[i], p));
            before[i][0] = p[0];
            before[i][1] = p[1];
        }
        REQUIRE_OK(throng_world_step(w, 0.1f));
        all = 1;
        for (int i = 0; i < 30; i++) {
            float p[3];
            REQUIRE_OK(throng_agent_get_position(w, agents[i], p));
            for (uint32_t k = 0; k < wall_count; k++)
                crossings +=
                    (unsigned)crosses(before[i], p, &walls[k][0], &walls[k][2]);
            throng_agent_nav nav;
            REQUIRE_OK(throng_agent_get_nav(w, agents[i], &nav));
            all &= nav.arrived;
        }
    }
    CHECK_EQ_INT(crossings, 0);
    CHECK(all);
    for (int i = 0; i < 30; i++) {
        throng_agent_nav nav;
        REQUIRE_OK(throng_agent_get_nav(w, agents[i], &nav));
        CHECK(nav.arrived);
        CHECK_EQ_INT(nav.arrived_field.id, fields[i % 3].id);
        CHECK_EQ_INT(nav.goal, 0);
        float p[3];
        REQUIRE_OK(throng_agent_get_position(w, agents[i], p));
        const double dx = (double)p[0] - (double)goals[i % 3][0];
        const double dy = (double)p[1] - (double)goals[i % 3][1];
        CHECK(sqrt(dx * dx + dy * dy) < 1.0);
    }
    throng_world_destroy(w);
}

/* Two exits; agents removed on arrival and listed, the nearer exit
 * named. Setting a field anew sets an arrived agent off again. */
TEST(nav_arrivals_removed) {
    throng_world *w = nav_world(2, 1);
    REQUIRE(w);
    const throng_nav_goal g[2] = { goal_box(0.0f, 4.0f, 1.0f, 6.0f),
                                   goal_box(19.0f, 4.0f, 20.0f, 6.0f) };
    throng_nav_field_def d = field_2d(40u, 20u, 0.5f, g, 2u);
    throng_object f;
    REQUIRE_OK(throng_nav_field_add(w, &d, &f));
    const throng_group going = nav_group(w, f, 0.0f, true);
    const throng_group staying = nav_group(w, f, 0.0f, false);
    throng_agent a[6];
    for (int i = 0; i < 6; i++)
        a[i] = walker(w, i < 4 ? going : staying, i % 2 ? 15.0f : 4.0f,
                      2.0f + (float)i);
    unsigned removed = 0, listed = 0, by_goal[2] = { 0, 0 };
    for (int step = 0; step < 400; step++) {
        REQUIRE_OK(throng_world_step(w, 0.1f));
        throng_nav_arrival got[8];
        uint32_t n = 0;
        bool cut = true;
        REQUIRE_OK(throng_world_nav_arrivals(w, got, 8u, &n, &cut));
        CHECK(!cut && n <= 6u);
        for (uint32_t k = 0; k < n; k++) {
            listed++;
            removed += got[k].removed;
            CHECK(got[k].field.id == f.id);
            CHECK_EQ_INT(got[k].removed, !throng_agent_valid(w, got[k].agent));
            CHECK_EQ_INT(got[k].goal, got[k].position[0] > 10.0f ? 1 : 0);
            if (got[k].goal < 2u)
                by_goal[got[k].goal]++;
        }
    }
    CHECK_EQ_INT(listed, 6);
    CHECK_EQ_INT(removed, 4);
    CHECK_EQ_INT(by_goal[0], 3);
    CHECK_EQ_INT(by_goal[1], 3);
    CHECK_EQ_INT(throng_world_agent_count(w), 2);
    for (int i = 0; i < 6; i++)
        CHECK_EQ_INT(throng_agent_valid(w, a[i]), i >= 4);
    /* Set off again: a field of its own, and it arrives there. */
    const throng_nav_goal far = goal_point(10.0f, 9.5f, 0.0f);
    throng_nav_field_def fd = field_2d(40u, 20u, 0.5f, &far, 1u);
    throng_object f2;
    REQUIRE_OK(throng_nav_field_add(w, &fd, &f2));
    REQUIRE_OK(throng_agent_set_nav_field(w, a[4], f2));
    throng_agent_nav nav;
    REQUIRE_OK(throng_agent_get_nav(w, a[4], &nav));
    CHECK(!nav.arrived && nav.field.id == f2.id);
    for (int step = 0; step < 200 && !nav.arrived; step++) {
        REQUIRE_OK(throng_world_step(w, 0.1f));
        REQUIRE_OK(throng_agent_get_nav(w, a[4], &nav));
    }
    CHECK(nav.arrived && nav.arrived_field.id == f2.id);
    /* The null object hands it back to the behaviour's field. */
    REQUIRE_OK(throng_agent_set_nav_field(w, a[4], THRONG_NULL_OBJECT));
    REQUIRE_OK(throng_agent_get_nav(w, a[4], &nav));
    CHECK(!nav.arrived && nav.field.id == 0u);
    throng_world_destroy(w);
}

/* One step of an agent alone: v = s_t dir (max force unbounded), slowed
 * by Weidmann's law at the field's density. */
TEST(nav_follow_speed) {
    throng_world *w = nav_world(2, 1);
    REQUIRE(w);
    const throng_nav_goal g = goal_point(19.5f, 2.5f, 0.0f);
    throng_nav_field_def d = field_2d(20u, 5u, 1.0f, &g, 1u);
    d.density_interval = 1u;
    d.density_radius = 0.0f;
    throng_object f;
    REQUIRE_OK(throng_nav_field_add(w, &d, &f));
    throng_group_def gd = throng_group_def_default();
    gd.combine = THRONG_COMBINE_WEIGHTED_SUM;
    throng_group grp;
    REQUIRE_OK(throng_group_create(w, &gd, &grp));
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_NAV);
    b.u.nav.field = f;
    b.u.nav.jam_density = 5.4f;
    /* The density where the agent stands, not a metre ahead (cell 5,
     * empty, would leave it at free speed). */
    b.u.nav.lookahead = 0.0f;
    b.speed_factor = 0.5f;
    REQUIRE_OK(throng_group_add_behaviour(w, grp, &b, NULL));
    /* Three agents in cell (4, 2): density 3 per m^2. */
    throng_agent a[3];
    for (int i = 0; i < 3; i++)
        a[i] = walker(w, grp, 4.2f + 0.3f * (float)i, 2.5f);
    REQUIRE_OK(throng_world_step(w, 0.1f));
    float v[3];
    REQUIRE_OK(throng_agent_get_velocity(w, a[1], v));
    const double share = 1.0 - exp(-1.913 * (1.0 / 3.0 - 1.0 / 5.4));
    CHECK_NEAR(v[0], 0.5 * 1.34 * share, 1e-5);
    CHECK_NEAR(v[1], 0.0, 1e-6);
    throng_nav_sample s;
    const float p[3] = { 4.5f, 2.5f, 0.0f };
    REQUIRE_OK(throng_nav_field_sample(w, f, p, &s));
    CHECK_NEAR(s.density, 3.0, 1e-6);
    throng_world_destroy(w);
}

/* Agents between worlds made by the same calls (throng_agent_export and
 * _import, which a distributed world moves agents with): an agent's own
 * field and its arrival go with it, and a state naming no field of the
 * world, or an arrival half set, is refused with the world unchanged.
 * The definition hash leaves out what steps made of a field (its count
 * of the crowd), so the worlds hash alike after one of them stepped. */
static throng_world *two_exit_world(throng_object *f, throng_object *own,
                                    throng_group *grp) {
    throng_world *w = nav_world(2, 1);
    if (!w)
        return NULL;
    const throng_nav_goal g[2] = { goal_box(0.0f, 4.0f, 1.0f, 6.0f),
                                   goal_box(19.0f, 4.0f, 20.0f, 6.0f) };
    throng_nav_field_def d = field_2d(40u, 20u, 0.5f, g, 2u);
    d.density_interval = 1u;
    d.density_cost = 0.5f;
    const throng_nav_goal far = goal_point(10.0f, 9.5f, 0.0f);
    throng_nav_field_def fd = field_2d(40u, 20u, 0.5f, &far, 1u);
    if (throng_nav_field_add(w, &d, f) != THRONG_OK ||
        throng_nav_field_add(w, &fd, own) != THRONG_OK) {
        throng_world_destroy(w);
        return NULL;
    }
    *grp = nav_group(w, *f, 0.0f, false);
    return w;
}

TEST(nav_export_import) {
    throng_object f, own, f2, own2;
    throng_group grp, grp2;
    throng_world *w = two_exit_world(&f, &own, &grp);
    throng_world *v = two_exit_world(&f2, &own2, &grp2);
    REQUIRE(w && v);
    CHECK_EQ_U64(throng_world_definition_hash(v),
                 throng_world_definition_hash(w));
    throng_agent a[3];
    for (int i = 0; i < 3; i++) {
        throng_agent_def ad = throng_agent_def_default();
        ad.position[0] = 2.0f + 7.0f * (float)i;
        ad.position[1] = 5.0f;
        ad.max_speed = 1.34f;
        ad.max_force = 100.0f;
        ad.host_key = 100u + (uint64_t)i;
        ad.group = grp;
        REQUIRE_OK(throng_agent_add(w, &ad, &a[i]));
    }
    REQUIRE_OK(throng_agent_set_nav_field(w, a[2], own));
    for (int s = 0; s < 100; s++)
        REQUIRE_OK(throng_world_step(w, 0.1f));
    /* The crowd was counted in w, not in v: the definitions still agree. */
    CHECK_EQ_U64(throng_world_definition_hash(v),
                 throng_world_definition_hash(w));
    throng_agent_nav want[3];
    for (int i = 0; i < 3; i++) {
        REQUIRE_OK(throng_agent_get_nav(w, a[i], &want[i]));
        throng_agent_state st;
        REQUIRE_OK(throng_agent_export(w, a[i], &st));
        throng_agent b;
        REQUIRE_OK(throng_agent_import(v, &st, &b));
        throng_agent_nav got;
        REQUIRE_OK(throng_agent_get_nav(v, b, &got));
        CHECK_EQ_INT(got.arrived, want[i].arrived);
        CHECK_EQ_INT(got.goal, want[i].goal);
        CHECK_EQ_INT(got.field.id, want[i].field.id);
        CHECK_EQ_INT(got.field.generation, want[i].field.generation);
        CHECK_EQ_INT(got.arrived_field.id, want[i].arrived_field.id);
    }
    /* Agent 0 reached the left exit, 2 its own field's goal. */
    CHECK(want[0].arrived && want[0].goal == 0u &&
          want[0].arrived_field.id == f.id);
    CHECK(want[2].arrived && want[2].arrived_field.id == own.id);
    CHECK(want[2].field.id == own.id);
    /* Refusals, the world unchanged. */
    throng_agent_state st;
    REQUIRE_OK(throng_agent_export(w, a[2], &st));
    st.host_key = 0u;
    const uint64_t h = throng_world_hash(v);
    const uint32_t count = throng_world_agent_count(v);
    throng_agent b;
    throng_agent_state bad = st;
    bad.nav_field_id = 99u;
    CHECK_EQ_INT(throng_agent_import(v, &bad, &b), THRONG_ERR_STALE_HANDLE);
    CHECK(strstr(throng_world_last_error(v), "nav_field_id") != NULL);
    bad = st;
    bad.nav_arrived = 2u;
    CHECK_EQ_INT(throng_agent_import(v, &bad, &b), THRONG_ERR_OUT_OF_RANGE);
    bad = st;
    bad.nav_arrived = 0u;
    CHECK_EQ_INT(throng_agent_import(v, &bad, &b), THRONG_ERR_OUT_OF_RANGE);
    CHECK(strstr(throng_world_last_error(v), "nav_arrived") != NULL);
    CHECK_EQ_U64(throng_world_hash(v), h);
    CHECK_EQ_INT(throng_world_agent_count(v), count);
    throng_world_destroy(v);
    throng_world_destroy(w);
}

/* In a periodic world the crowd repeats, and the count sees it: a field
 * reaching 2 m past a 10 m box counts the agents near x = 0 again past
 * x = 10, so the density just past the edge is the one just inside it.
 * (Without the images the cells past the edge are empty.) */
TEST(nav_periodic_density) {
    throng_world_def wd = ts_world_def(2, 1, NULL);
    wd.boundary = THRONG_BOUNDARY_PERIODIC;
    wd.box_size[0] = 10.0f;
    wd.box_size[1] = 4.0f;
    wd.neighbour_radius = 1.0f;
    throng_world *w = ts_world_make(&wd);
    REQUIRE(w);
    throng_nav_goal g;
    memset(&g, 0, sizeof g);
    g.kind = THRONG_NAV_GOAL_SEGMENT;
    g.a[0] = g.b[0] = 11.5f;
    g.b[1] = 4.0f;
    throng_nav_field_def d = field_2d(12u, 4u, 1.0f, &g, 1u);
    d.density_interval = 1u;
    d.density_radius = 0.0f;
    throng_object f;
    REQUIRE_OK(throng_nav_field_add(w, &d, &f));
    /* Three agents in cell (0, 1), one in (9, 2). */
    const float xy[4][2] = {
        { 0.2f, 1.5f }, { 0.5f, 1.5f }, { 0.8f, 1.5f }, { 9.5f, 2.5f }
    };
    for (int i = 0; i < 4; i++) {
        throng_agent_def a = throng_agent_def_default();
        a.position[0] = xy[i][0];
        a.position[1] = xy[i][1];
        throng_agent h;
        REQUIRE_OK(throng_agent_add(w, &a, &h));
    }
    REQUIRE_OK(throng_world_step(w, 0.01f));
    const float inside[3] = { 0.5f, 1.5f, 0.0f },
                past[3] = { 10.5f, 1.5f, 0.0f };
    const float left[3] = { 9.5f, 2.5f, 0.0f };
    throng_nav_sample a, b, c;
    REQUIRE_OK(throng_nav_field_sample(w, f, inside, &a));
    REQUIRE_OK(throng_nav_field_sample(w, f, past, &b));
    REQUIRE_OK(throng_nav_field_sample(w, f, left, &c));
    CHECK_NEAR(a.density, 3.0, 1e-6);
    CHECK_NEAR(b.density, 3.0, 1e-6);
    CHECK_NEAR(c.density, 1.0, 1e-6);
    throng_world_destroy(w);
}

/* The periodic scene of nav_periodic_density with a crowd-aware field: a
 * 12 x 4 grid of 1 m cells over a 10 x 4 box, three agents in cell
 * (0, 1) and one in (9, 2), counted again past the box's edge. */
static throng_world *counting_world(int agents, throng_object *f) {
    throng_world_def wd = ts_world_def(2, 1, NULL);
    wd.boundary = THRONG_BOUNDARY_PERIODIC;
    wd.box_size[0] = 10.0f;
    wd.box_size[1] = 4.0f;
    wd.neighbour_radius = 1.0f;
    throng_world *w = ts_world_make(&wd);
    if (!w)
        return NULL;
    throng_nav_goal g;
    memset(&g, 0, sizeof g);
    g.kind = THRONG_NAV_GOAL_SEGMENT;
    g.a[0] = g.b[0] = 11.5f;
    g.b[1] = 4.0f;
    throng_nav_field_def d = field_2d(12u, 4u, 1.0f, &g, 1u);
    d.density_interval = 1u;
    d.density_radius = 0.0f;
    d.density_cost = 1.0f;
    if (throng_nav_field_add(w, &d, f) != THRONG_OK)
        return NULL;
    const float xy[4][2] = {
        { 0.2f, 1.5f }, { 0.5f, 1.5f }, { 0.8f, 1.5f }, { 9.5f, 2.5f }
    };
    for (int i = 0; i < agents; i++) {
        throng_agent_def a = throng_agent_def_default();
        a.position[0] = xy[i][0];
        a.position[1] = xy[i][1];
        throng_agent h;
        if (throng_agent_add(w, &a, &h) != THRONG_OK)
            return NULL;
    }
    return w;
}

/* throng_nav_field_count_agents counts as the field does (images
 * included), and counts supplied to a world without those agents stand
 * for its next count, once: its densities and the distances they cost
 * are then the bits of the world that holds them. */
TEST(nav_counts_supplied) {
    throng_object f, g;
    throng_world *w = counting_world(4, &f);
    throng_world *v = counting_world(0, &g);
    REQUIRE(w && v);
    uint32_t counts[48], want[48];
    uint64_t cells = 0;
    REQUIRE_OK(throng_nav_field_count_agents(w, f, counts, 48u, &cells));
    CHECK_EQ_INT(cells, 48);
    /* By hand: (0, 1) holds 3 and, one box along, (10, 1) their images;
     * (9, 2) holds 1 (its image at x = 19.5 is off the grid, and at
     * -0.5 too). */
    memset(want, 0, sizeof want);
    want[0 + 12 * 1] = 3u;
    want[10 + 12 * 1] = 3u;
    want[9 + 12 * 2] = 1u;
    for (int c = 0; c < 48; c++)
        CHECK_EQ_INT(counts[c], want[c]);
    REQUIRE_OK(throng_nav_field_supply_counts(v, g, counts));
    REQUIRE_OK(throng_world_step(w, 0.01f));
    REQUIRE_OK(throng_world_step(v, 0.01f));
    float dw[48], dv[48];
    REQUIRE_OK(throng_nav_field_distances(w, f, dw, 48u, NULL));
    REQUIRE_OK(throng_nav_field_distances(v, g, dv, 48u, NULL));
    CHECK(memcmp(dw, dv, sizeof dw) == 0);
    const float past[3] = { 10.5f, 1.5f, 0.0f };
    throng_nav_sample a, b;
    REQUIRE_OK(throng_nav_field_sample(w, f, past, &a));
    REQUIRE_OK(throng_nav_field_sample(v, g, past, &b));
    CHECK_NEAR(a.density, 3.0, 1e-6);
    CHECK_NEAR(b.density, 3.0, 1e-6);
    /* Once: the next count is v's own crowd, nobody. */
    REQUIRE_OK(throng_world_step(v, 0.01f));
    REQUIRE_OK(throng_nav_field_sample(v, g, past, &b));
    CHECK_NEAR(b.density, 0.0, 0.0);
    /* NULL withdraws counts not yet used. */
    REQUIRE_OK(throng_nav_field_supply_counts(v, g, counts));
    REQUIRE_OK(throng_nav_field_supply_counts(v, g, NULL));
    REQUIRE_OK(throng_world_step(v, 0.01f));
    REQUIRE_OK(throng_nav_field_sample(v, g, past, &b));
    CHECK_NEAR(b.density, 0.0, 0.0);
    /* Refusals, the world unchanged and nothing pending after them. */
    const uint64_t h = throng_world_hash(v);
    const size_t bytes = throng_world_bytes(v);
    uint32_t big[48];
    memset(big, 0, sizeof big);
    big[3] = UINT32_MAX;
    big[7] = 1u;
    CHECK_EQ_INT(throng_nav_field_supply_counts(v, g, big),
                 THRONG_ERR_OUT_OF_RANGE);
    CHECK(strstr(throng_world_last_error(v), "throng_nav_field_supply_counts"));
    const throng_nav_goal pt = goal_point(1.5f, 1.5f, 0.0f);
    throng_nav_field_def plain = field_2d(4u, 4u, 1.0f, &pt, 1u);
    throng_object p;
    REQUIRE_OK(throng_nav_field_add(v, &plain, &p));
    const uint64_t h2 = throng_world_hash(v);
    const size_t bytes2 = throng_world_bytes(v);
    CHECK(h2 == h && bytes2 > bytes);
    CHECK_EQ_INT(throng_nav_field_supply_counts(v, p, counts),
                 THRONG_ERR_INVALID_ARG);
    CHECK(strstr(throng_world_last_error(v), "density_interval"));
    throng_object gone = g;
    gone.generation++;
    CHECK_EQ_INT(throng_nav_field_supply_counts(v, gone, counts),
                 THRONG_ERR_STALE_HANDLE);
    CHECK_EQ_INT(throng_nav_field_count_agents(w, f, counts, 47u, &cells),
                 THRONG_ERR_CAPACITY);
    CHECK_EQ_INT(cells, 48);
    CHECK_EQ_INT(throng_nav_field_count_agents(w, f, NULL, 48u, NULL),
                 THRONG_ERR_NULL);
    CHECK_EQ_INT(throng_nav_field_count_agents(w, gone, counts, 48u, NULL),
                 THRONG_ERR_STALE_HANDLE);
    CHECK(throng_world_hash(v) == h2 && throng_world_bytes(v) == bytes2);
    REQUIRE_OK(throng_world_step(v, 0.01f));
    REQUIRE_OK(throng_nav_field_sample(v, g, past, &b));
    CHECK_NEAR(b.density, 0.0, 0.0);
    throng_world_destroy(v);
    throng_world_destroy(w);
}

/* A crowd heading for two exits through a crowd-aware field with costs
 * and regions, some agents with their own field, some already arrived:
 * saved mid-run and loaded, the loaded world continues bit for bit, its
 * fields the same, on another thread count. */
TEST(nav_snapshot) {
    throng_world *w = nav_world(2, 2);
    REQUIRE(w);
    rooms(w);
    const throng_nav_goal exits[2] = { goal_box(38.0f, 0.0f, 40.0f, 4.0f),
                                       goal_box(0.0f, 26.0f, 2.0f, 30.0f) };
    throng_nav_field_def d = field_2d(80u, 60u, 0.5f, exits, 2u);
    d.clearance = 0.25f;
    d.density_interval = 3u;
    d.density_cost = 0.5f;
    float *costs = malloc(80u * 60u * sizeof *costs);
    REQUIRE(costs);
    for (uint32_t c = 0; c < 80u * 60u; c++)
        costs[c] = c % 7u == 0u ? 1.5f : 1.0f;
    d.costs = costs;
    const throng_nav_region slow = { { 22.0f, 2.0f, 0.0f },
                                     { 26.0f, 8.0f, 0.0f },
                                     3.0f };
    d.regions = &slow;
    d.region_count = 1u;
    throng_object f, other;
    REQUIRE_OK(throng_nav_field_add(w, &d, &f));
    free(costs);
    const throng_nav_goal middle = goal_point(30.0f, 12.0f, 0.0f);
    throng_nav_field_def d2 = field_2d(80u, 60u, 0.5f, &middle, 1u);
    REQUIRE_OK(throng_nav_field_add(w, &d2, &other));
    const throng_group leave = nav_group(w, f, 0.5f, true);
    const throng_group stay = nav_group(w, f, 0.5f, false);
    test_rng rng = test_rng_make(9);
    for (int i = 0; i < 200; i++) {
        const throng_agent a =
            walker(w, i % 3 ? leave : stay, test_rng_range(&rng, 1.0f, 19.0f),
                   test_rng_range(&rng, 11.0f, 29.0f));
        if (i % 5 == 0)
            REQUIRE_OK(throng_agent_set_nav_field(w, a, other));
    }
    for (int s = 0; s < 100; s++)
        REQUIRE_OK(throng_world_step(w, 0.1f));
    size_t bytes = 0;
    REQUIRE_OK(throng_world_snapshot_size(w, &bytes));
    void *buf = malloc(bytes);
    REQUIRE(buf);
    REQUIRE_OK(throng_world_save(w, buf, bytes, NULL));
    throng_world *loaded = NULL;
    REQUIRE_OK(throng_world_load(buf, bytes, NULL, &loaded));
    free(buf);
    CHECK_EQ_U64(throng_world_hash(loaded), throng_world_hash(w));
    throng_object lf;
    REQUIRE_OK(throng_object_rebind(loaded, f, &lf));
    uint64_t n1 = 0, n2 = 0;
    float *a = distances_of(w, f, &n1);
    float *b = distances_of(loaded, lf, &n2);
    REQUIRE(a && b && n1 == n2);
    CHECK(memcmp(a, b, (size_t)n1 * sizeof(float)) == 0);
    free(a);
    free(b);
    throng_nav_field_info i1, i2;
    REQUIRE_OK(throng_nav_field_get(w, f, &i1));
    REQUIRE_OK(throng_nav_field_get(loaded, lf, &i2));
    CHECK(i2.def.costs != NULL && i2.def.region_count == 1u);
    CHECK_EQ_U64(i2.reached_cells, i1.reached_cells);
    REQUIRE_OK(throng_world_set_threads(loaded, 1));
    unsigned arrived = 0;
    for (int s = 0; s < 300; s++) {
        REQUIRE_OK(throng_world_step(w, 0.1f));
        REQUIRE_OK(throng_world_step(loaded, 0.1f));
        uint32_t n = 0;
        REQUIRE_OK(throng_world_nav_arrivals(w, NULL, 0u, &n, NULL));
        arrived += n;
        if (throng_world_hash(loaded) != throng_world_hash(w)) {
            runner_fail(__FILE__, __LINE__, "the loaded world parts at step %d",
                        s);
            break;
        }
    }
    CHECK(arrived > 20u);
    throng_world_destroy(loaded);
    throng_world_destroy(w);
}

void register_nav_tests(void) {
    REGISTER(nav_update_exact);
    REGISTER(nav_open_euclidean);
    REGISTER(nav_rooms_reference);
    REGISTER(nav_maze_reference);
    REGISTER(nav_threads_agree);
    REGISTER(nav_incremental_equals_full);
    REGISTER(nav_step_rebuilds);
    REGISTER(nav_refusals);
    REGISTER(nav_counts_supplied);
    REGISTER(nav_sample_points);
    REGISTER(nav_voxels);
    REGISTER(nav_maze_agents);
    REGISTER(nav_arrivals_removed);
    REGISTER(nav_follow_speed);
    REGISTER(nav_snapshot);
    REGISTER(nav_export_import);
    REGISTER(nav_periodic_density);
}
