/* SPDX-License-Identifier: MIT */
/*
 * Three-dimensional ORCA (src/orca3d.c): the half-spaces against numbers
 * worked by hand, the linear program against brute-force grid searches,
 * the promises on extreme input, and two small simulations that must end
 * with every agent home and no two ever overlapping.
 *
 * The hand cases use the paper's construction. A with relative position
 * p = p_B - p_A, relative velocity x = v_A - v_B and combined radius r
 * would reach B within tau exactly when x is in the cone from the origin
 * around the ball (p / tau, r / tau), cut off by that ball; u is the
 * shortest step from x to that surface, n its outward normal there, and
 * A's half-space is (v - (v_A + share u)) . n >= 0.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "orca3d.h"
#include "runner.h"

/* Float results against double working: 2e-6 relative, absolute below 1. */
#define CHECK_CLOSE(got, want) \
    CHECK_NEAR((got), (want), 2e-6 * fmax(1.0, fabs((double)(want))))

static void check_plane(const orca_plane *pl, const double point[3],
                        const double normal[3], int line) {
    for (int k = 0; k < 3; k++) {
        const double tp = 2e-6 * fmax(1.0, fabs(point[k]));
        if (fabs((double)pl->point[k] - point[k]) > tp ||
            fabs((double)pl->normal[k] - normal[k]) > 2e-6) {
            runner_fail(__FILE__, line,
                        "plane point (%.8g, %.8g, %.8g) normal (%.8g, %.8g, "
                        "%.8g), want (%.8g, %.8g, %.8g) (%.8g, %.8g, %.8g)",
                        (double)pl->point[0], (double)pl->point[1],
                        (double)pl->point[2], (double)pl->normal[0],
                        (double)pl->normal[1], (double)pl->normal[2], point[0],
                        point[1], point[2], normal[0], normal[1], normal[2]);
            return;
        }
    }
}

/* The signed distance of v inside plane (negative: outside), in double. */
static double plane_margin(const orca_plane *pl, const double v[3]) {
    double n[3], d = 0.0, nn = 0.0;
    for (int k = 0; k < 3; k++) {
        n[k] = (double)pl->normal[k];
        d += (v[k] - (double)pl->point[k]) * n[k];
        nn += n[k] * n[k];
    }
    return nn > 0.0 ? d / sqrt(nn) : 0.0;
}

static const float NO_TIE[3] = { 0.0f, 1.0f, 0.0f };

/* ------------------------------------------------------------------------ */
/* The half-spaces                                                          */
/* ------------------------------------------------------------------------ */

/* B 10 ahead on x, closing at 2, r = 2. With tau = 2 the cut-off ball is
 * (5, 0, 0) radius 1; w = x - p / tau = (-3, 0, 0), and w . p = -30 < 0
 * with (w . p)^2 = 900 > r^2 |w|^2 = 36: the cap. u = (1 - 3)(-1, 0, 0) =
 * (2, 0, 0), landing on (4, 0, 0); n = (-1, 0, 0). Point v_A + u / 2 =
 * (2, 0, 0): A may go up to 2, B likewise, so they touch at t = 8 / 4 = 2
 * = tau and no sooner. */
TEST(orca3d_head_on_cap) {
    const float p[3] = { 10, 0, 0 }, x[3] = { 2, 0, 0 }, va[3] = { 1, 0, 0 };
    orca_plane pl;
    orca_agent_plane_3d(p, x, 2.0f, 0.5f, 10.0f, 0.5f, va, NO_TIE, &pl);
    check_plane(&pl, (const double[3]){ 2, 0, 0 },
                (const double[3]){ -1, 0, 0 }, __LINE__);
}

/* The same pair with tau = 5 (ball (2, 0, 0) radius 0.4) and 0.3 of
 * sideways relative speed: x = (2, 0.3, 0), w = (0, 0.3, 0), w . p = 0,
 * so the side. sin alpha = 2 / 10, cos alpha = sqrt(0.96) = 0.9797959;
 * x is 2 along the axis and 0.3 across it, e = (0, 1, 0), so
 * n = (-0.2, 0.9797959, 0) and x . n = 0.3 cos - 2 sin = -0.1060612
 * (inside). u = 0.1060612 n = (-0.0212122, 0.1039184, 0); with v_A =
 * (1, 0.15, 0) the point is (0.9893939, 0.2019592, 0). B sees everything
 * negated and gets the same plane with point v_B - u / 2 and normal -n:
 * bit for bit, since negation is exact. */
TEST(orca3d_head_on_side) {
    const float p[3] = { 10, 0, 0 }, x[3] = { 2, 0.3f, 0 };
    const float va[3] = { 1, 0.15f, 0 };
    orca_plane a, b;
    orca_agent_plane_3d(p, x, 2.0f, 0.2f, 10.0f, 0.5f, va, NO_TIE, &a);
    const double cos_a = sqrt(0.96);
    const double s = 0.3 * cos_a - 2.0 * 0.2;
    const double n[3] = { -0.2, cos_a, 0.0 };
    check_plane(
        &a,
        (const double[3]){ 1.0 - 0.5 * s * n[0], 0.15 - 0.5 * s * n[1], 0.0 },
        n, __LINE__);
    CHECK_CLOSE(a.point[0], 0.9893939);
    CHECK_CLOSE(a.point[1], 0.2019592);

    const float pb[3] = { -10, 0, 0 }, xb[3] = { -2, -0.3f, 0 };
    const float vb[3] = { -1, -0.15f, 0 }, tb[3] = { 0, -1, 0 };
    orca_agent_plane_3d(pb, xb, 2.0f, 0.2f, 10.0f, 0.5f, vb, tb, &b);
    for (int k = 0; k < 3; k++) {
        CHECK(b.point[k] == -a.point[k]);
        CHECK(b.normal[k] == -a.normal[k]);
    }
}

/* Exactly head-on, closing at 3, tau = 4: the ball (2.5, 0, 0) radius
 * 0.5, w = (0.5, 0, 0), w . p = 5 > 0: the side. x = (3, 0, 0) sits on
 * the axis, where every side of the cone is as near; the tie picks: e =
 * (0, 1, 0) for A, so n = (-0.2, 0.9797959, 0), x . n = -3 (0.2) = -0.6,
 * u = 0.6 n, point = (1, 0, 0) + 0.3 n = (0.94, 0.2939388, 0). B's tie
 * (0, -1, 0) mirrors it: they dodge to opposite sides. */
TEST(orca3d_head_on_tie) {
    const float p[3] = { 10, 0, 0 }, x[3] = { 3, 0, 0 }, va[3] = { 1, 0, 0 };
    orca_plane a, b;
    orca_agent_plane_3d(p, x, 2.0f, 0.25f, 10.0f, 0.5f, va, NO_TIE, &a);
    const double cos_a = sqrt(0.96);
    check_plane(&a, (const double[3]){ 0.94, 0.3 * cos_a, 0 },
                (const double[3]){ -0.2, cos_a, 0 }, __LINE__);
    CHECK_CLOSE(a.point[1], 0.2939388);
    const float pb[3] = { -10, 0, 0 }, xb[3] = { -3, 0, 0 };
    const float vb[3] = { -2, 0, 0 }, tb[3] = { 0, -1, 0 };
    orca_agent_plane_3d(pb, xb, 2.0f, 0.25f, 10.0f, 0.5f, vb, tb, &b);
    for (int k = 0; k < 3; k++)
        CHECK(b.normal[k] == -a.normal[k]);
    /* A tie along the axis has no part across it: the fixed fallback
     * direction, still opposite for the pair. */
    const float ta[3] = { 1, 0, 0 }, tb2[3] = { -1, 0, 0 };
    orca_agent_plane_3d(p, x, 2.0f, 0.25f, 10.0f, 0.5f, va, ta, &a);
    orca_agent_plane_3d(pb, xb, 2.0f, 0.25f, 10.0f, 0.5f, vb, tb2, &b);
    CHECK_CLOSE(a.normal[0], -0.2);
    for (int k = 0; k < 3; k++)
        CHECK(b.normal[k] == -a.normal[k]);
}

/* Two paths crossing at right angles in 3D: A from the origin along +x,
 * B from (5, 1, -5) along +z, both at 1; they would pass 1 apart near
 * (5, 0, 0) at t = 5, and r = 2. p = (5, 1, -5), |p|^2 = 51, x = (1, 0,
 * -1), tau = 10: w = x - p / 10 = (0.5, -0.1, -0.5), w . p = 4.9 > 0: the
 * side. Along the axis x has 10 / sqrt 51; across it (1, -10, -1) / 51,
 * length sqrt(2 / 51), so e = (1, -10, -1) / sqrt 102. sin alpha =
 * 2 / sqrt 51, cos alpha = sqrt(47 / 51); n = cos e - sin p / sqrt 51 =
 * (-0.1010259, -0.9897411, 0.1010259); x . n = (sqrt 94 - 20) / 51 =
 * -0.2020518, so u = 0.2020518 n and the point is (1, 0, 0) + u / 2 =
 * (0.9897938, -0.0999895, 0.0102062). */
TEST(orca3d_crossing_3d) {
    const float p[3] = { 5, 1, -5 }, x[3] = { 1, 0, -1 };
    const float va[3] = { 1, 0, 0 };
    orca_plane pl;
    orca_agent_plane_3d(p, x, 2.0f, 0.1f, 10.0f, 0.5f, va, NO_TIE, &pl);
    const double sin_a = 2.0 / sqrt(51.0), cos_a = sqrt(47.0 / 51.0);
    const double e[3] = { 1 / sqrt(102.0), -10 / sqrt(102.0),
                          -1 / sqrt(102.0) };
    double n[3], point[3];
    const double s = (sqrt(94.0) - 20.0) / 51.0;
    for (int k = 0; k < 3; k++) {
        n[k] = cos_a * e[k] - sin_a * (double)p[k] / sqrt(51.0);
        point[k] = (double)va[k] - 0.5 * s * n[k];
    }
    check_plane(&pl, point, n, __LINE__);
    CHECK_CLOSE(pl.normal[0], -0.1010259);
    CHECK_CLOSE(pl.normal[1], -0.9897411);
    CHECK_CLOSE(pl.point[1], -0.0999895);
    CHECK_CLOSE(pl.point[2], 0.0102062);
    /* The velocity change the plane demands steers them apart: A's
     * preferred (1, 0, 0) is outside and is moved along n. */
    orca_plane scratch[1];
    float out[3];
    orca_solve_3d(&pl, 1, 0, 2.0f, va, scratch, out);
    const double got[3] = { (double)out[0], (double)out[1], (double)out[2] };
    CHECK_NEAR(plane_margin(&pl, got), 0.0, 1e-6);
    CHECK(out[1] < 0.0f && out[2] > 0.0f);
}

/* Overlapping (|p| = 1 < r = 2), dt = 0.1: the ball (p / dt, r / dt) =
 * ((10, 0, 0), 20). At rest relative to each other w = (-10, 0, 0), u =
 * (20 - 10)(-1, 0, 0): each must back off 5 so that after the step they
 * are 1 + 10 * 0.1 = 2 apart. Moving with x = (3, 4, 0): w = (-7, 4, 0),
 * |w| = sqrt 65, u = (20 - sqrt 65) w / sqrt 65 = (-10.364863, 5.922779,
 * 0). */
TEST(orca3d_overlap_step) {
    const float p[3] = { 1, 0, 0 }, zero[3] = { 0, 0, 0 };
    orca_plane pl;
    orca_agent_plane_3d(p, zero, 2.0f, 0.5f, 10.0f, 0.5f, zero, NO_TIE, &pl);
    check_plane(&pl, (const double[3]){ -5, 0, 0 },
                (const double[3]){ -1, 0, 0 }, __LINE__);
    const float x[3] = { 3, 4, 0 };
    orca_agent_plane_3d(p, x, 2.0f, 0.5f, 10.0f, 1.0f, zero, NO_TIE, &pl);
    const double wl = sqrt(65.0);
    check_plane(&pl,
                (const double[3]){ (20 - wl) * -7 / wl, (20 - wl) * 4 / wl, 0 },
                (const double[3]){ -7 / wl, 4 / wl, 0 }, __LINE__);
    CHECK_CLOSE(pl.point[0], -10.364863);
    CHECK_CLOSE(pl.point[1], 5.922779);
    /* x = p / dt exactly: w = 0, no direction from it; straight away from
     * B, the full 20. */
    const float xc[3] = { 10, 0, 0 };
    orca_agent_plane_3d(p, xc, 2.0f, 0.5f, 10.0f, 1.0f, zero, NO_TIE, &pl);
    check_plane(&pl, (const double[3]){ -20, 0, 0 },
                (const double[3]){ -1, 0, 0 }, __LINE__);
}

/* Coincident, no relative velocity: only the tie gives a direction. u =
 * (r / dt) tie = 20 (0, 0, 1); A takes half, B (tie negated) the other
 * half the other way. With relative velocity (1, 0, 0) that sets the
 * direction instead: u = (20 - 1)(1, 0, 0). */
TEST(orca3d_coincident_tie) {
    const float zero[3] = { 0, 0, 0 }, va[3] = { 1, 2, 3 };
    const float up[3] = { 0, 0, 1 }, down[3] = { 0, 0, -1 };
    orca_plane a, b;
    orca_agent_plane_3d(zero, zero, 2.0f, 0.5f, 10.0f, 0.5f, va, up, &a);
    orca_agent_plane_3d(zero, zero, 2.0f, 0.5f, 10.0f, 0.5f, va, down, &b);
    check_plane(&a, (const double[3]){ 1, 2, 13 }, (const double[3]){ 0, 0, 1 },
                __LINE__);
    check_plane(&b, (const double[3]){ 1, 2, -7 },
                (const double[3]){ 0, 0, -1 }, __LINE__);
    /* A tie of any length is taken as its direction. */
    const float long_up[3] = { 0, 0, 7 };
    orca_agent_plane_3d(zero, zero, 2.0f, 0.5f, 10.0f, 0.5f, va, long_up, &a);
    check_plane(&a, (const double[3]){ 1, 2, 13 }, (const double[3]){ 0, 0, 1 },
                __LINE__);
    const float x[3] = { 1, 0, 0 };
    orca_agent_plane_3d(zero, x, 2.0f, 0.5f, 10.0f, 0.5f, va, up, &a);
    check_plane(&a, (const double[3]){ 10.5, 2, 3 },
                (const double[3]){ 1, 0, 0 }, __LINE__);
}

/* share 0: the plane passes through v_A (A does not yield); share 1:
 * through v_A + u. The head-on cap case: u = (2, 0, 0). */
TEST(orca3d_share) {
    const float p[3] = { 10, 0, 0 }, x[3] = { 2, 0, 0 }, va[3] = { 1, 0, 0 };
    orca_plane pl;
    orca_agent_plane_3d(p, x, 2.0f, 0.5f, 10.0f, 0.0f, va, NO_TIE, &pl);
    CHECK(pl.point[0] == 1.0f && pl.point[1] == 0.0f && pl.point[2] == 0.0f);
    CHECK(pl.normal[0] == -1.0f);
    orca_agent_plane_3d(p, x, 2.0f, 0.5f, 10.0f, 1.0f, va, NO_TIE, &pl);
    check_plane(&pl, (const double[3]){ 3, 0, 0 },
                (const double[3]){ -1, 0, 0 }, __LINE__);
}

/* A still sphere 10 ahead, R + r = 2, obstacle horizon 2, A at (2, 0, 0):
 * the cap of the ball ((5, 0, 0), 1) again, u = (2, 0, 0), all of it A's:
 * v_x <= 4, the speed at which A touches the sphere exactly at t = 2. The
 * solver then keeps a preferred (2, 0, 0) and cuts (6, 1, 0) to (4, 1, 0).
 */
TEST(orca3d_sphere_obstacle) {
    const float c[3] = { 10, 0, 0 }, va[3] = { 2, 0, 0 };
    orca_plane pl, scratch[1];
    orca_sphere_plane_3d(c, 2.0f, 0.5f, 10.0f, va, NO_TIE, &pl);
    check_plane(&pl, (const double[3]){ 4, 0, 0 },
                (const double[3]){ -1, 0, 0 }, __LINE__);
    float out[3];
    orca_solve_3d(&pl, 1, 1, 10.0f, va, scratch, out);
    CHECK(out[0] == 2.0f && out[1] == 0.0f && out[2] == 0.0f);
    const float fast[3] = { 6, 1, 0 };
    orca_solve_3d(&pl, 1, 1, 10.0f, fast, scratch, out);
    CHECK_CLOSE(out[0], 4.0);
    CHECK_CLOSE(out[1], 1.0);
    CHECK_CLOSE(out[2], 0.0);
}

/* ------------------------------------------------------------------------ */
/* The linear program by hand                                               */
/* ------------------------------------------------------------------------ */

static orca_plane make_plane(float px, float py, float pz, float nx, float ny,
                             float nz) {
    orca_plane pl = { { px, py, pz }, { nx, ny, nz } };
    return pl;
}

/* Preferred (1, 0, 0), max speed 2:
 * - z >= 1 alone: the projection (1, 0, 1);
 * - with max speed 1.2 the disc z = 1 has radius sqrt(1.44 - 1) = 0.663325:
 *   (0.663325, 0, 1);
 * - with y >= 0.5 too: the line y = 0.5, z = 1, nearest (1, 0.5, 1);
 * - with x <= 0.25 too: the corner (0.25, 0.5, 1);
 * - max speed 0.5 and z >= 1: nothing; the fallback: the ball's point
 *   nearest the plane, (0, 0, 0.5). */
TEST(orca3d_solve_by_hand) {
    orca_plane pl[3], scratch[3];
    pl[0] = make_plane(0, 0, 1, 0, 0, 1);
    pl[1] = make_plane(0, 0.5f, 0, 0, 1, 0);
    pl[2] = make_plane(0.25f, 0, 0, -1, 0, 0);
    const float pref[3] = { 1, 0, 0 };
    float out[3];
    orca_solve_3d(pl, 1, 0, 2.0f, pref, scratch, out);
    CHECK_CLOSE(out[0], 1.0);
    CHECK_CLOSE(out[1], 0.0);
    CHECK_CLOSE(out[2], 1.0);
    orca_solve_3d(pl, 1, 0, 1.2f, pref, scratch, out);
    CHECK_CLOSE(out[0], sqrt(1.44 - 1.0));
    CHECK_CLOSE(out[2], 1.0);
    orca_solve_3d(pl, 2, 0, 2.0f, pref, scratch, out);
    CHECK_CLOSE(out[0], 1.0);
    CHECK_CLOSE(out[1], 0.5);
    CHECK_CLOSE(out[2], 1.0);
    orca_solve_3d(pl, 3, 0, 2.0f, pref, scratch, out);
    CHECK_CLOSE(out[0], 0.25);
    CHECK_CLOSE(out[1], 0.5);
    CHECK_CLOSE(out[2], 1.0);
    orca_solve_3d(pl, 1, 0, 0.5f, pref, scratch, out);
    CHECK_CLOSE(out[0], 0.0);
    CHECK_CLOSE(out[1], 0.0);
    CHECK_CLOSE(out[2], 0.5);
    /* Preferred inside everything: itself, to the bit. */
    const float inside[3] = { 0.125f, 0.75f, 1.25f };
    orca_solve_3d(pl, 3, 0, 2.0f, inside, scratch, out);
    CHECK(out[0] == 0.125f && out[1] == 0.75f && out[2] == 1.25f);
    /* No planes: preferred cut to max speed. */
    const float far[3] = { 3, 4, 0 };
    orca_solve_3d(pl, 0, 0, 1.0f, far, scratch, out);
    CHECK_CLOSE(out[0], 0.6);
    CHECK_CLOSE(out[1], 0.8);
}

/* ------------------------------------------------------------------------ */
/* Brute force                                                              */
/* ------------------------------------------------------------------------ */

/* What a grid search over the ball finds: the feasible point nearest
 * preferred (best_dist < 0 when none), and among the points meeting the
 * hard planes the least largest violation of the soft ones (or, when no
 * point meets the hard planes, the least largest violation of those). */
typedef struct grid_best {
    double best_dist;
    double least_worst;
    int hard_met;
    double spacing;
} grid_best;

static grid_best grid_search(const orca_plane *pl, uint32_t count,
                             uint32_t hard, double speed, const float pref[3],
                             int n) {
    grid_best g = { -1.0, HUGE_VAL, 0, 2.0 * speed / (n - 1) };
    double least_hard = HUGE_VAL;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++) {
                const double v[3] = { -speed + g.spacing * i,
                                      -speed + g.spacing * j,
                                      -speed + g.spacing * k };
                if (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] > speed * speed)
                    continue;
                double worst_hard = 0.0, worst_soft = 0.0;
                for (uint32_t p = 0; p < count; p++) {
                    const double miss = -plane_margin(&pl[p], v);
                    if (p < hard)
                        worst_hard = fmax(worst_hard, miss);
                    else
                        worst_soft = fmax(worst_soft, miss);
                }
                least_hard = fmin(least_hard, worst_hard);
                if (worst_hard > 0.0)
                    continue;
                g.hard_met = 1;
                g.least_worst = fmin(g.least_worst, worst_soft);
                if (worst_soft <= 0.0) {
                    const double d[3] = { v[0] - (double)pref[0],
                                          v[1] - (double)pref[1],
                                          v[2] - (double)pref[2] };
                    const double dist = test_len3(d);
                    if (g.best_dist < 0.0 || dist < g.best_dist)
                        g.best_dist = dist;
                }
            }
    if (!g.hard_met)
        g.least_worst = least_hard;
    return g;
}

/* Largest violation by out of planes [from, to). */
static double worst_miss(const orca_plane *pl, uint32_t from, uint32_t to,
                         const float out[3]) {
    const double v[3] = { (double)out[0], (double)out[1], (double)out[2] };
    double worst = 0.0;
    for (uint32_t p = from; p < to; p++)
        worst = fmax(worst, -plane_margin(&pl[p], v));
    return worst;
}

/* Checks out against the grid's findings; returns 1 when it was a
 * fallback case (no feasible grid point and out not feasible). */
static int check_against_grid(const orca_plane *pl, uint32_t count,
                              uint32_t hard, float speed, const float pref[3],
                              const float out[3], const grid_best *g,
                              int line) {
    const double tol = 1e-4 * (double)speed;
    const double all = worst_miss(pl, 0, count, out);
    const double len =
        sqrt((double)out[0] * (double)out[0] + (double)out[1] * (double)out[1] +
             (double)out[2] * (double)out[2]);
    if (!(len <= (double)speed))
        runner_fail(__FILE__, line, "|out| = %.9g > max speed %.9g", len,
                    (double)speed);
    if (g->best_dist >= 0.0) {
        const double d[3] = { (double)out[0] - (double)pref[0],
                              (double)out[1] - (double)pref[1],
                              (double)out[2] - (double)pref[2] };
        if (all > tol || test_len3(d) > g->best_dist + tol)
            runner_fail(__FILE__, line,
                        "feasible case: violation %.3g, distance %.9g vs "
                        "grid %.9g",
                        all, test_len3(d), g->best_dist);
        return 0;
    }
    if (all <= tol)
        return 0; /* feasible between the grid's points */
    if (g->hard_met) {
        const double hard_miss = worst_miss(pl, 0, hard, out);
        const double soft_miss = worst_miss(pl, hard, count, out);
        if (hard_miss > tol || soft_miss > g->least_worst + tol)
            runner_fail(__FILE__, line,
                        "fallback: hard miss %.3g, soft miss %.9g vs grid "
                        "%.9g",
                        hard_miss, soft_miss, g->least_worst);
    } else {
        const double hard_miss = worst_miss(pl, 0, hard, out);
        if (hard_miss > g->least_worst + tol)
            runner_fail(__FILE__, line,
                        "hard planes infeasible: miss %.9g vs grid %.9g",
                        hard_miss, g->least_worst);
    }
    return 1;
}

/* Infeasible sets worked by hand, and a grid of 81^3 over the ball:
 * - x >= 1 and x <= -1 (max speed 2): least largest violation 1, at
 *   x = 0;
 * - the same with hard x <= -0.5 first: the soft x >= 1 is missed by 1.5;
 * - three soft planes x >= 1, y >= 1, z >= 1 and the hard x + y + z <= 0:
 *   by symmetry at x = y = z = 0 each is missed by 1. */
TEST(orca3d_fallback_grid) {
    orca_plane pl[4], scratch[4];
    float out[3];
    const float pref[3] = { 0.3f, -0.2f, 0.1f };
    pl[0] = make_plane(1, 0, 0, 1, 0, 0);
    pl[1] = make_plane(-1, 0, 0, -1, 0, 0);
    orca_solve_3d(pl, 2, 0, 2.0f, pref, scratch, out);
    CHECK_CLOSE(worst_miss(pl, 0, 2, out), 1.0);
    CHECK_CLOSE(out[0], 0.0);
    grid_best g = grid_search(pl, 2, 0, 2.0, pref, 81);
    CHECK(check_against_grid(pl, 2, 0, 2.0f, pref, out, &g, __LINE__));

    pl[0] = make_plane(-0.5f, 0, 0, -1, 0, 0);
    pl[1] = make_plane(1, 0, 0, 1, 0, 0);
    pl[2] = make_plane(0, 1, 0, 0, 1, 0);
    orca_solve_3d(pl, 3, 1, 2.0f, pref, scratch, out);
    CHECK_CLOSE(out[0], -0.5);
    CHECK_CLOSE(worst_miss(pl, 1, 3, out), 1.5);
    g = grid_search(pl, 3, 1, 2.0, pref, 81);
    CHECK(check_against_grid(pl, 3, 1, 2.0f, pref, out, &g, __LINE__));

    const float third = 0.57735027f; /* 1 / sqrt 3 */
    pl[0] = make_plane(0, 0, 0, -third, -third, -third);
    pl[1] = make_plane(1, 0, 0, 1, 0, 0);
    pl[2] = make_plane(0, 1, 0, 0, 1, 0);
    pl[3] = make_plane(0, 0, 1, 0, 0, 1);
    orca_solve_3d(pl, 4, 1, 2.0f, pref, scratch, out);
    CHECK(worst_miss(pl, 0, 1, out) <= 1e-6);
    CHECK_NEAR(worst_miss(pl, 1, 4, out), 1.0, 1e-5);
    g = grid_search(pl, 4, 1, 2.0, pref, 81);
    CHECK(check_against_grid(pl, 4, 1, 2.0f, pref, out, &g, __LINE__));

    /* Two hard planes that cannot both be met within max speed 2: x >= 3
     * and x <= -3 are each missed by 3 at best, at x = 0; the soft y >= 5
     * is set aside. */
    pl[0] = make_plane(3, 0, 0, 1, 0, 0);
    pl[1] = make_plane(-3, 0, 0, -1, 0, 0);
    pl[2] = make_plane(0, 5, 0, 0, 1, 0);
    orca_solve_3d(pl, 3, 2, 2.0f, pref, scratch, out);
    CHECK_CLOSE(worst_miss(pl, 0, 2, out), 3.0);
    g = grid_search(pl, 3, 2, 2.0, pref, 41);
    CHECK(check_against_grid(pl, 3, 2, 2.0f, pref, out, &g, __LINE__));
}

/* A unit vector uniform on the sphere, by rejection from the cube. */
static void random_unit(test_rng *rng, float out[3]) {
    for (;;) {
        double v[3];
        for (int k = 0; k < 3; k++)
            v[k] = (double)test_rng_range(rng, -1.0f, 1.0f);
        const double len = test_len3(v);
        if (len > 0.1 && len <= 1.0) {
            for (int k = 0; k < 3; k++)
                out[k] = (float)(v[k] / len);
            return;
        }
    }
}

/* Random sets of 1 to 10 planes near a ball of random size, some hard,
 * and a random preferred velocity: whenever the grid finds a feasible
 * point the result is feasible and no further from preferred; otherwise
 * either it is feasible after all or it is the least-violation velocity
 * the grid approximates. Both kinds must occur. */
TEST(orca3d_random_against_grid) {
    test_rng rng = test_rng_make(3301);
    int feasible = 0, fallback = 0;
    const int cases = 3000;
    for (int c = 0; c < cases && runner_failures() == 0; c++) {
        orca_plane pl[10], scratch[10];
        const uint32_t count = 1 + test_rng_below(&rng, 10);
        const uint32_t hard = test_rng_below(&rng, count < 3 ? count : 3);
        const float speed = test_rng_range(&rng, 0.5f, 3.0f);
        for (uint32_t p = 0; p < count; p++) {
            random_unit(&rng, pl[p].normal);
            /* Mostly planes that cut the ball, leaving room: offsets in
             * [-speed, 0.6 speed]. */
            const float d = test_rng_range(&rng, -1.0f, 0.6f) * speed;
            float along[3];
            random_unit(&rng, along);
            for (int k = 0; k < 3; k++)
                pl[p].point[k] = d * pl[p].normal[k] + 0.3f * along[k];
        }
        float pref[3];
        for (int k = 0; k < 3; k++)
            pref[k] = test_rng_range(&rng, -2.0f, 2.0f) * speed;
        float out[3];
        orca_solve_3d(pl, count, hard, speed, pref, scratch, out);
        REQUIRE(isfinite(out[0]) && isfinite(out[1]) && isfinite(out[2]));
        const grid_best g =
            grid_search(pl, count, hard, (double)speed, pref, 25);
        if (check_against_grid(pl, count, hard, speed, pref, out, &g, __LINE__))
            fallback++;
        else
            feasible++;
        if (runner_failures())
            printf("  case %d: %u planes, %u hard, speed %.9g\n", c, count,
                   hard, (double)speed);
    }
    CHECK(feasible > cases / 4);
    CHECK(fallback > cases / 10);
}

/* Planes and a preferred velocity all in the plane z = 0 (normals with
 * z = 0: each is the vertical plane through a 2D ORCA line) give a
 * solution with z exactly 0, feasible or not; and agent planes built from
 * z = 0 input have z = 0 normals. */
TEST(orca3d_flat_stays_flat) {
    test_rng rng = test_rng_make(77);
    for (int c = 0; c < 2000; c++) {
        orca_plane pl[8], scratch[8];
        const uint32_t count = 1 + test_rng_below(&rng, 8);
        const uint32_t hard = test_rng_below(&rng, 2);
        for (uint32_t p = 0; p < count; p++) {
            const float rel_p[3] = { test_rng_range(&rng, -5, 5),
                                     test_rng_range(&rng, -5, 5), 0 };
            const float rel_v[3] = { test_rng_range(&rng, -2, 2),
                                     test_rng_range(&rng, -2, 2), 0 };
            const float va[3] = { test_rng_range(&rng, -1, 1),
                                  test_rng_range(&rng, -1, 1), 0 };
            const float tie[3] = { 0.6f, -0.8f, 0 };
            orca_agent_plane_3d(rel_p, rel_v, test_rng_range(&rng, 0.2f, 2),
                                0.5f, 10.0f, 0.5f, va, tie, &pl[p]);
            CHECK(pl[p].normal[2] == 0.0f && pl[p].point[2] == 0.0f);
        }
        const float pref[3] = { test_rng_range(&rng, -2, 2),
                                test_rng_range(&rng, -2, 2), 0 };
        float out[3];
        orca_solve_3d(pl, count, hard < count ? hard : 0, 1.5f, pref, scratch,
                      out);
        CHECK(out[2] == 0.0f);
    }
    /* On the axis too: a tie with z = 0 keeps the dodge in the plane, and
     * so does the fallback across-axis choice for a tie along the axis. */
    const float p[3] = { 3, 4, 0 }, x[3] = { 0.6f, 0.8f, 0 };
    const float va[3] = { 0.3f, 0.4f, 0 }, along[3] = { 0.6f, 0.8f, 0 };
    orca_plane pl;
    orca_agent_plane_3d(p, x, 1.0f, 0.5f, 10.0f, 0.5f, va, NO_TIE, &pl);
    CHECK(pl.normal[2] == 0.0f);
    orca_agent_plane_3d(p, x, 1.0f, 0.5f, 10.0f, 0.5f, va, along, &pl);
    CHECK(pl.normal[2] == 0.0f);
}

/* Inputs up to 1e15 in size, down to 1e-30, zero where allowed, in every
 * mix: the planes are finite with unit normals, the solutions finite and
 * within max speed, and max speed 0 gives exactly 0. */
TEST(orca3d_extreme_inputs) {
    static const float sizes[] = { 0.0f, 1e-30f, 1e-6f, 1.0f, 1e6f, 1e15f };
    const uint32_t n_sizes = sizeof sizes / sizeof sizes[0];
    test_rng rng = test_rng_make(5);
    for (int c = 0; c < 3000; c++) {
        float in[5][3];
        for (int a = 0; a < 5; a++)
            for (int k = 0; k < 3; k++) {
                const float s = sizes[test_rng_below(&rng, n_sizes)];
                in[a][k] = test_rng_below(&rng, 2) ? s : -s;
            }
        float scal[3];
        for (int a = 0; a < 3; a++) /* radius, inv_tau, inv_dt: > 0 */
            scal[a] = sizes[1 + test_rng_below(&rng, n_sizes - 1)];
        const float share = test_rng_unit(&rng);
        orca_plane pl[2], scratch[2];
        orca_agent_plane_3d(in[0], in[1], scal[0], scal[1], scal[2], share,
                            in[2], in[3], &pl[0]);
        orca_sphere_plane_3d(in[1], scal[0], scal[1], scal[2], in[2], in[4],
                             &pl[1]);
        for (int p = 0; p < 2; p++) {
            double nn = 0.0;
            for (int k = 0; k < 3; k++) {
                CHECK(isfinite(pl[p].point[k]) && isfinite(pl[p].normal[k]));
                nn += (double)pl[p].normal[k] * (double)pl[p].normal[k];
            }
            CHECK_NEAR(nn, 1.0, 1e-6);
        }
        const float speed =
            c % 7 == 0 ? 0.0f : sizes[test_rng_below(&rng, n_sizes)];
        float out[3];
        orca_solve_3d(pl, 2, test_rng_below(&rng, 3), speed, in[4], scratch,
                      out);
        double len2 = 0.0;
        for (int k = 0; k < 3; k++) {
            CHECK(isfinite(out[k]));
            len2 += (double)out[k] * (double)out[k];
        }
        CHECK(sqrt(len2) <= (double)speed);
        if (speed == 0.0f)
            CHECK(out[0] == 0.0f && out[1] == 0.0f && out[2] == 0.0f);
        if (runner_failures()) {
            printf("  case %d\n", c);
            return;
        }
    }
    /* Planes far outside float range's comfort: a zero normal is met by
     * everything, a plane at 1e30 beyond reach sends the fallback to the
     * ball's point nearest it. */
    orca_plane odd[2], scratch[2];
    odd[0] = make_plane(1e30f, 1e30f, 0, 0, 0, 0);
    odd[1] = make_plane(1e30f, 0, 0, 1, 0, 0);
    const float pref[3] = { 0, 1e15f, 0 };
    float out[3];
    orca_solve_3d(odd, 1, 0, 1e15f, pref, scratch, out);
    CHECK(out[1] == 1e15f);
    orca_solve_3d(odd, 2, 1, 1e15f, pref, scratch, out);
    CHECK_NEAR(out[0], 1e15, 1e9);
}

/* The bits, not just the values: a fixed stream of random neighbourhoods
 * (overlapping, crossing, infeasible, some with a hard plane), every plane
 * and solution folded into one FNV-1a hash. The module promises the same
 * bits from every compiler, optimisation level and CPU; the constant was
 * found with gcc -O0 and -O2, clang -O2 and -O3 -march=native on x86-64 and
 * gcc for aarch64 under qemu, which all agree. */
static uint64_t fold_bits(uint64_t h, const float *f, int n) {
    for (int i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, &f[i], sizeof b);
        h = (h ^ b) * 1099511628211ull;
    }
    return h;
}

TEST(orca3d_bits_golden) {
    test_rng rng = test_rng_make(2011);
    uint64_t h = 1469598103934665603ull;
    for (int c = 0; c < 5000; c++) {
        orca_plane pl[8], scratch[8];
        const uint32_t count = 1 + (uint32_t)c % 8;
        float va[3];
        for (int k = 0; k < 3; k++)
            va[k] = test_rng_range(&rng, -1, 1);
        for (uint32_t j = 0; j < count; j++) {
            float rel_p[3], rel_v[3], tie[3];
            for (int k = 0; k < 3; k++) {
                rel_p[k] = test_rng_range(&rng, -3, 3);
                rel_v[k] = va[k] - test_rng_range(&rng, -1, 1);
                tie[k] = test_rng_range(&rng, -1, 1);
            }
            orca_agent_plane_3d(rel_p, rel_v, 0.8f, 0.5f, 10.0f,
                                test_rng_unit(&rng), va, tie, &pl[j]);
            h = fold_bits(h, pl[j].point, 3);
            h = fold_bits(h, pl[j].normal, 3);
        }
        float pref[3], out[3];
        for (int k = 0; k < 3; k++)
            pref[k] = test_rng_range(&rng, -2, 2);
        orca_solve_3d(pl, count, c % 3 == 0 ? 1u : 0u, 1.5f, pref, scratch,
                      out);
        h = fold_bits(h, out, 3);
    }
    CHECK_EQ_U64(h, 0x5730b4069184c571ull);
}

/* ------------------------------------------------------------------------ */
/* Simulations                                                              */
/* ------------------------------------------------------------------------ */

#define SIM_MAX 12

typedef struct sim {
    uint32_t n;
    float p[SIM_MAX][3], v[SIM_MAX][3], goal[SIM_MAX][3];
    float radius, max_speed, dt, inv_tau;
    double closest;  /* least distance between two centres seen */
    int arrived_all; /* the step all were home, or -1 */
} sim;

/* The tie of agent i against j: a fixed direction, negated for the pair's
 * higher index, so the two of a pair get opposite ones. */
static void sim_tie(uint32_t i, uint32_t j, float out[3]) {
    const float s = i < j ? 1.0f : -1.0f;
    out[0] = s * 0.26726124f; /* (1, 2, 3) / sqrt 14 */
    out[1] = s * 0.53452248f;
    out[2] = s * 0.80178373f;
}

/* Steps until everyone is within 1e-3 of home or `steps` pass: preferred
 * velocity straight home, at most max speed and no further than home in
 * one step; a half-space per other agent (share 0.5); all velocities from
 * the old ones, then p += v dt. */
static void sim_run(sim *s, int steps) {
    s->closest = HUGE_VAL;
    s->arrived_all = -1;
    const float inv_dt = 1.0f / s->dt;
    for (int step = 0; step < steps; step++) {
        float next[SIM_MAX][3];
        for (uint32_t i = 0; i < s->n; i++) {
            orca_plane pl[SIM_MAX], scratch[SIM_MAX];
            uint32_t count = 0;
            for (uint32_t j = 0; j < s->n; j++) {
                if (j == i)
                    continue;
                float rel_p[3], rel_v[3], tie[3];
                for (int k = 0; k < 3; k++) {
                    rel_p[k] = s->p[j][k] - s->p[i][k];
                    rel_v[k] = s->v[i][k] - s->v[j][k];
                }
                sim_tie(i, j, tie);
                orca_agent_plane_3d(rel_p, rel_v, 2.0f * s->radius, s->inv_tau,
                                    inv_dt, 0.5f, s->v[i], tie, &pl[count++]);
            }
            double home[3];
            for (int k = 0; k < 3; k++)
                home[k] = (double)s->goal[i][k] - (double)s->p[i][k];
            const double dist = test_len3(home);
            const double reach = (double)s->max_speed * (double)s->dt;
            const double scale =
                dist > reach ? (double)s->max_speed / dist : (double)inv_dt;
            float pref[3];
            for (int k = 0; k < 3; k++)
                pref[k] = (float)(home[k] * scale);
            orca_solve_3d(pl, count, 0, s->max_speed, pref, scratch, next[i]);
        }
        int home_all = 1;
        for (uint32_t i = 0; i < s->n; i++)
            for (int k = 0; k < 3; k++) {
                s->v[i][k] = next[i][k];
                s->p[i][k] += next[i][k] * s->dt;
            }
        for (uint32_t i = 0; i < s->n; i++) {
            double home[3], d[3];
            for (int k = 0; k < 3; k++)
                home[k] = (double)s->goal[i][k] - (double)s->p[i][k];
            home_all &= test_len3(home) < 1e-3;
            for (uint32_t j = i + 1; j < s->n; j++) {
                for (int k = 0; k < 3; k++)
                    d[k] = (double)s->p[j][k] - (double)s->p[i][k];
                s->closest = fmin(s->closest, test_len3(d));
            }
        }
        if (home_all) {
            s->arrived_all = step;
            return;
        }
    }
}

/* Two agents head-on along x, 20 apart, radius 0.5, speed 1, their
 * lines 0.05 apart: they turn aside, neither comes closer than the sum of
 * radii (1, less float rounding) and both get home.
 *
 * Exactly on one line they do not pass: the relative velocity then lies
 * on the cone's axis, short of the cut-off ball, whose cap is nearest, so
 * each half-space only slows its agent along the line and nothing breaks
 * the symmetry (the paper's construction does this too; callers perturb
 * the preferred velocity). They must still stop short of each other. */
TEST(orca3d_sim_head_on) {
    sim s;
    memset(&s, 0, sizeof s);
    s.n = 2;
    s.radius = 0.5f;
    s.max_speed = 1.0f;
    s.dt = 0.1f;
    s.inv_tau = 0.5f;
    s.p[0][0] = -10.0f;
    s.goal[0][0] = 10.0f;
    s.p[1][0] = 10.0f;
    s.p[1][1] = 0.05f;
    s.goal[1][0] = -10.0f;
    s.goal[1][1] = 0.05f;
    sim_run(&s, 600);
    CHECK(s.closest >= 1.0 - 1e-5);
    CHECK(s.arrived_all > 0);
    if (runner_failures())
        printf("  closest %.9g, arrived at step %d\n", s.closest,
               s.arrived_all);

    s.p[0][0] = -10.0f;
    s.p[0][1] = s.p[1][1] = s.goal[1][1] = 0.0f;
    s.p[1][0] = 10.0f;
    memset(s.v, 0, sizeof s.v);
    sim_run(&s, 600);
    CHECK(s.closest >= 1.0 - 1e-5);
    CHECK(s.closest < 1.01);
    CHECK(s.arrived_all < 0);
}

/* Twelve agents on the vertices of an icosahedron of circumradius 8, each
 * bound for the opposite vertex: all twelve paths cross near the centre.
 * Vertices (0, +-1, +-phi) and their cyclic turns, phi = (1 + sqrt 5) / 2,
 * scaled by 8 / sqrt(1 + phi^2). Nobody overlaps and all arrive. */
TEST(orca3d_sim_sphere_swap) {
    sim s;
    memset(&s, 0, sizeof s);
    s.n = 12;
    s.radius = 0.5f;
    s.max_speed = 1.0f;
    s.dt = 0.1f;
    s.inv_tau = 0.5f;
    const double phi = (1.0 + sqrt(5.0)) / 2.0;
    const double scale = 8.0 / sqrt(1.0 + phi * phi);
    uint32_t a = 0;
    for (int turn = 0; turn < 3; turn++)
        for (int sy = -1; sy <= 1; sy += 2)
            for (int sz = -1; sz <= 1; sz += 2) {
                double v[3] = { 0.0, 0.0, 0.0 };
                v[(turn + 1) % 3] = sy * scale;
                v[(turn + 2) % 3] = sz * phi * scale;
                /* A few centimetres off the vertex, different for each
                 * agent, so the twelve do not meet in a perfectly
                 * symmetric jam at the centre. */
                for (int k = 0; k < 3; k++) {
                    const double nudge = 0.01 * (double)((a * 7 + k * 3) % 5);
                    s.p[a][k] = (float)(v[k] + nudge);
                    s.goal[a][k] = (float)(-v[k] + nudge);
                }
                a++;
            }
    sim_run(&s, 3000);
    CHECK(s.closest >= 1.0 - 1e-5);
    CHECK(s.arrived_all > 0);
    if (runner_failures())
        printf("  closest %.9g, arrived at step %d\n", s.closest,
               s.arrived_all);
}

void register_orca3d_tests(void) {
    REGISTER(orca3d_head_on_cap);
    REGISTER(orca3d_head_on_side);
    REGISTER(orca3d_head_on_tie);
    REGISTER(orca3d_crossing_3d);
    REGISTER(orca3d_overlap_step);
    REGISTER(orca3d_coincident_tie);
    REGISTER(orca3d_share);
    REGISTER(orca3d_sphere_obstacle);
    REGISTER(orca3d_solve_by_hand);
    REGISTER(orca3d_fallback_grid);
    REGISTER(orca3d_random_against_grid);
    REGISTER(orca3d_flat_stays_flat);
    REGISTER(orca3d_extreme_inputs);
    REGISTER(orca3d_bits_golden);
    REGISTER(orca3d_sim_head_on);
    REGISTER(orca3d_sim_sphere_swap);
}
