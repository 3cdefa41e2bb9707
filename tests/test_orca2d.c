/* SPDX-License-Identifier: MIT */
/*
 * Tests of the ORCA solver (src/orca2d.c): half-planes worked by hand for
 * head-on, crossing and overlapping pairs and for the share of the
 * avoidance; the linear program against a brute-force search over a grid
 * of velocities, both when some velocity satisfies every line (nearest the
 * preferred one) and when none does (least largest violation); inputs at
 * the edges of float; the batch of half-planes on vector lanes against
 * the one-pair function, bit for bit; and whole runs of agents that must part without
 * touching and arrive.
 *
 * Tolerances: the hand-worked numbers are below 8 in size and come out of
 * a dozen float operations, each rounding by at most 2^-24 of its result,
 * so 1e-6 (about 16 ulps of 1) covers them with room. Comparisons with
 * the grid allow 4e-6 of max_speed: the solver treats lines within 1e-6 of
 * parallel as parallel (up to 2e-6 max_speed off) and rounds its own
 * chains of operations (measured: 1.5e-7 max_speed at most over the
 * random cases); the grid's own sums are exact enough in double.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "runner.h"

#include "orca2d.h"

#define ORCA_TEST_TOL 1e-6

/* det(direction, v - point) in double: >= 0 where the line permits v. */
static double test_slack(const orca_line *line, double vx, double vy) {
    return (double)line->direction[0] * (vy - (double)line->point[1]) -
           (double)line->direction[1] * (vx - (double)line->point[0]);
}

static void check_line(const orca_line *got, double px, double py, double dx,
                       double dy, int line) {
    const double tol = ORCA_TEST_TOL;
    if (!(fabs((double)got->point[0] - px) <= tol &&
          fabs((double)got->point[1] - py) <= tol &&
          fabs((double)got->direction[0] - dx) <= tol &&
          fabs((double)got->direction[1] - dy) <= tol))
        runner_fail(__FILE__, line,
                    "line point (%.9g, %.9g) direction (%.9g, %.9g), want "
                    "(%.9g, %.9g) (%.9g, %.9g)",
                    (double)got->point[0], (double)got->point[1],
                    (double)got->direction[0], (double)got->direction[1], px,
                    py, dx, dy);
}

static void check_vec(const float got[2], double x, double y, int line) {
    if (!(fabs((double)got[0] - x) <= ORCA_TEST_TOL &&
          fabs((double)got[1] - y) <= ORCA_TEST_TOL))
        runner_fail(__FILE__, line, "got (%.9g, %.9g), want (%.9g, %.9g)",
                    (double)got[0], (double)got[1], x, y);
}

/* The lines of A against B and of B against A, from positions and
 * velocities, with opposite ties (+tie to A). */
static void pair_lines(const float pa[2], const float va[2], const float pb[2],
                       const float vb[2], float radius, float tau, float dt,
                       float share_a, const float tie[2], orca_line *line_a,
                       orca_line *line_b) {
    const float rel_p_a[2] = { pb[0] - pa[0], pb[1] - pa[1] };
    const float rel_v_a[2] = { va[0] - vb[0], va[1] - vb[1] };
    const float rel_p_b[2] = { pa[0] - pb[0], pa[1] - pb[1] };
    const float rel_v_b[2] = { vb[0] - va[0], vb[1] - va[1] };
    const float tie_b[2] = { -tie[0], -tie[1] };
    orca_agent_line_2d(rel_p_a, rel_v_a, radius, 1.0f / tau, 1.0f / dt, share_a,
                       va, tie, line_a);
    orca_agent_line_2d(rel_p_b, rel_v_b, radius, 1.0f / tau, 1.0f / dt,
                       1.0f - share_a, vb, tie_b, line_b);
}

static const float tie_up[2] = { 0.0f, 1.0f };

TEST(orca2d_head_on) {
    /* A at (0,0) moving (1,0), B at (4,0) moving (-1,0), radius 1,
     * tau 1: rel_p = (4,0), rel_v = (2,0). Cut-off centre (4,0), radius 1;
     * w = rel_v - centre = (-2,0) points at the origin (toward_origin 2 >
     * |w| sin_half = 2 * 1/4), so the arc is nearest: n = (-1,0),
     * u = (1 - 2) n = (1,0). A's point (1,0) + u/2 = (1.5,0), direction
     * n turned right = (0,1): v.x <= 1.5. B mirrors it: (-1.5,0), (0,-1).
     * All dyadic, so exact. */
    const float pa[2] = { 0.0f, 0.0f }, va[2] = { 1.0f, 0.0f };
    const float pb[2] = { 4.0f, 0.0f }, vb[2] = { -1.0f, 0.0f };
    orca_line la, lb, scratch[1];
    pair_lines(pa, va, pb, vb, 1.0f, 1.0f, 0.1f, 0.5f, tie_up, &la, &lb);
    check_line(&la, 1.5, 0.0, 0.0, 1.0, __LINE__);
    check_line(&lb, -1.5, 0.0, 0.0, -1.0, __LINE__);
    /* Preferring (2,0) / (-2,0) at max speed 3: cut to the line. Their
     * difference (3,0) is the cut-off circle's nearest point 4 - 1. */
    const float want_a[2] = { 2.0f, 0.0f }, want_b[2] = { -2.0f, 0.0f };
    float sa[2], sb[2];
    orca_solve_2d(&la, 1, 0, 3.0f, want_a, scratch, sa);
    orca_solve_2d(&lb, 1, 0, 3.0f, want_b, scratch, sb);
    check_vec(sa, 1.5, 0.0, __LINE__);
    check_vec(sb, -1.5, 0.0, __LINE__);

    /* tau 4: centre (1,0), radius 1/4, w = (1,0) points away from the
     * origin: a leg. rel_v lies on the axis, so the left one:
     * sin_half = 1/4, cos_half = sqrt(15)/4, leg (cos, sin), outward
     * normal n = (-1/4, sqrt(15)/4); u = -(rel_v . n) n = n/2.
     * A: point (1,0) + n/4 = (15/16, sqrt(15)/16), direction
     * (sqrt(15)/4, 1/4). B's axis is -x: its left leg is A's right one
     * mirrored, so its line is A's negated: they pass on opposite sides. */
    const double q = sqrt(15.0);
    pair_lines(pa, va, pb, vb, 1.0f, 4.0f, 0.1f, 0.5f, tie_up, &la, &lb);
    check_line(&la, 15.0 / 16.0, q / 16.0, q / 4.0, 0.25, __LINE__);
    check_line(&lb, -15.0 / 16.0, -q / 16.0, -q / 4.0, -0.25, __LINE__);
    /* Preferring the current velocity: slack there is
     * -(sqrt15/4)(sqrt15/16) - (1/4)(1/16) = -1/4, so the solution is
     * (1,0) + n/4 = the line's point; B the mirror image, bit for bit.
     * The new relative velocity (15/8, sqrt15/8) lies on the leg. */
    orca_solve_2d(&la, 1, 0, 2.0f, va, scratch, sa);
    orca_solve_2d(&lb, 1, 0, 2.0f, vb, scratch, sb);
    check_vec(sa, 15.0 / 16.0, q / 16.0, __LINE__);
    check_vec(sb, -15.0 / 16.0, -q / 16.0, __LINE__);
    CHECK(sa[0] == -sb[0] && sa[1] == -sb[1]);
    const double rel_x = (double)sa[0] - (double)sb[0];
    const double rel_y = (double)sa[1] - (double)sb[1];
    CHECK_NEAR(q / 4.0 * rel_y - 0.25 * rel_x, 0.0, ORCA_TEST_TOL);
}

TEST(orca2d_crossing) {
    /* A at (0,0) moving (1,0); B at (2,-3) moving (0,1): rel_p = (2,-3),
     * rel_v = (1,-1); relative position rel_p - rel_v t reaches distance
     * 1 at t^2 - 5t + 6 = 0, t = 2 < tau = 4: on course to touch.
     * |rel_p| = sqrt13, e = (2,-3)/sqrt13, sin_half = 1/sqrt13,
     * cos_half = sqrt(12/13). w = (1,-1) - (1/2,-3/4) = (1/2,-1/4),
     * w . e > 0: a leg; det(e, rel_v) = 1/sqrt13 > 0: the left one,
     * d = (e.x c - e.y s, e.x s + e.y c) = ((3 + 4 sqrt3)/13,
     * (2 - 6 sqrt3)/13), n = (-d.y, d.x), u = -(rel_v . n) n. */
    const double s3 = sqrt(3.0);
    const double dx = (3.0 + 4.0 * s3) / 13.0, dy = (2.0 - 6.0 * s3) / 13.0;
    const double nx = -dy, ny = dx;
    const double k = -(nx - ny); /* -(rel_v . n), rel_v = (1,-1) */
    const double ux = k * nx, uy = k * ny;
    CHECK(k > 0.1 && k < 0.2); /* rel_v inside the obstacle: 0.118 */
    const float pa[2] = { 0.0f, 0.0f }, va[2] = { 1.0f, 0.0f };
    const float pb[2] = { 2.0f, -3.0f }, vb[2] = { 0.0f, 1.0f };
    orca_line la, lb, scratch[1];
    pair_lines(pa, va, pb, vb, 1.0f, 4.0f, 0.1f, 0.5f, tie_up, &la, &lb);
    /* A: through v_a + u/2 along d' = n turned right = (n.y, -n.x). */
    check_line(&la, 1.0 + ux / 2.0, uy / 2.0, ny, -nx, __LINE__);
    check_line(&lb, -ux / 2.0, 1.0 - uy / 2.0, -ny, nx, __LINE__);
    /* Preferring the current velocities: each moves by half of u, and
     * the new relative velocity rel_v + u lies on the leg. */
    float sa[2], sb[2];
    orca_solve_2d(&la, 1, 0, 2.0f, va, scratch, sa);
    orca_solve_2d(&lb, 1, 0, 2.0f, vb, scratch, sb);
    check_vec(sa, 1.0 + ux / 2.0, uy / 2.0, __LINE__);
    check_vec(sb, -ux / 2.0, 1.0 - uy / 2.0, __LINE__);
    const double rel_x = (double)sa[0] - (double)sb[0];
    const double rel_y = (double)sa[1] - (double)sb[1];
    CHECK_NEAR(dx * rel_y - dy * rel_x, 0.0, ORCA_TEST_TOL);
    /* The mirror case (B from (2,3) moving (0,-1)) takes the right leg:
     * the lines are the reflections in the x axis. */
    const float pc[2] = { 2.0f, 3.0f }, vc[2] = { 0.0f, -1.0f };
    orca_line lc, ld;
    pair_lines(pa, va, pc, vc, 1.0f, 4.0f, 0.1f, 0.5f, tie_up, &lc, &ld);
    check_line(&lc, 1.0 + ux / 2.0, -uy / 2.0, -ny, -nx, __LINE__);
}

TEST(orca2d_overlap) {
    /* A at (0,0), B at (1/2,0), radius 1, both still, dt 0.1: the disc
     * (rel_p/dt, r/dt) = ((5,0), 10); w = (0,0) - (5,0) = (-5,0), n = (-1,0),
     * u = (10 - 5) n = (-5,0). A's point (-2.5,0), direction (0,1):
     * v.x <= -2.5; B's (2.5,0), (0,-1). Solved from rest, each takes its
     * point; one step later they are 1/2 + 5 dt = 1 apart: just touching. */
    const float pa[2] = { 0.0f, 0.0f }, pb[2] = { 0.5f, 0.0f };
    const float rest[2] = { 0.0f, 0.0f };
    orca_line la, lb, scratch[1];
    float sa[2], sb[2];
    pair_lines(pa, rest, pb, rest, 1.0f, 2.0f, 0.1f, 0.5f, tie_up, &la, &lb);
    check_line(&la, -2.5, 0.0, 0.0, 1.0, __LINE__);
    check_line(&lb, 2.5, 0.0, 0.0, -1.0, __LINE__);
    orca_solve_2d(&la, 1, 0, 5.0f, rest, scratch, sa);
    orca_solve_2d(&lb, 1, 0, 5.0f, rest, scratch, sb);
    check_vec(sa, -2.5, 0.0, __LINE__);
    check_vec(sb, 2.5, 0.0, __LINE__);
    CHECK_NEAR(0.5 + ((double)sb[0] - (double)sa[0]) * 0.1, 1.0, 1e-6);

    /* Coincident and still: w = 0, the tie decides. A gets n = (0,1),
     * u = (0,10), point (0,5), direction (1,0): v.y >= 5; B the opposite. */
    pair_lines(pa, rest, pa, rest, 1.0f, 2.0f, 0.1f, 0.5f, tie_up, &la, &lb);
    check_line(&la, 0.0, 5.0, 1.0, 0.0, __LINE__);
    check_line(&lb, 0.0, -5.0, -1.0, 0.0, __LINE__);
    orca_solve_2d(&la, 1, 0, 6.0f, rest, scratch, sa);
    orca_solve_2d(&lb, 1, 0, 6.0f, rest, scratch, sb);
    check_vec(sa, 0.0, 5.0, __LINE__);
    check_vec(sb, 0.0, -5.0, __LINE__);
    /* Another tie, (0.6,-0.8), parts them along it. */
    const float tie_slant[2] = { 0.6f, -0.8f };
    pair_lines(pa, rest, pa, rest, 1.0f, 2.0f, 0.1f, 0.5f, tie_slant, &la, &lb);
    check_line(&la, 3.0, -4.0, -0.8, -0.6, __LINE__);
    check_line(&lb, -3.0, 4.0, 0.8, 0.6, __LINE__);

    /* Coincident with A moving (1,0): w = rel_v = (1,0) gives the
     * direction and the tie is not read: n = (1,0), u = (10 - 1) n,
     * point (1,0) + (4.5,0), direction (0,-1): v.x >= 5.5. */
    const float right[2] = { 1.0f, 0.0f };
    pair_lines(pa, right, pa, rest, 1.0f, 2.0f, 0.1f, 0.5f, tie_up, &la, &lb);
    check_line(&la, 5.5, 0.0, 0.0, -1.0, __LINE__);
    check_line(&lb, -4.5, 0.0, 0.0, 1.0, __LINE__);
}

TEST(orca2d_share) {
    /* The crossing of orca2d_crossing: u from the closed form there. */
    const double s3 = sqrt(3.0);
    const double dx = (3.0 + 4.0 * s3) / 13.0, dy = (2.0 - 6.0 * s3) / 13.0;
    const double nx = -dy, ny = dx, k = -(nx - ny);
    const double ux = k * nx, uy = k * ny;
    const float pa[2] = { 0.0f, 0.0f }, va[2] = { 1.0f, 0.0f };
    const float pb[2] = { 2.0f, -3.0f }, vb[2] = { 0.0f, 1.0f };
    orca_line la, lb, scratch[1];
    /* Share 0: A's line passes through v_a exactly (0 u adds nothing),
     * B's, with share 1, through v_b - u. */
    pair_lines(pa, va, pb, vb, 1.0f, 4.0f, 0.1f, 0.0f, tie_up, &la, &lb);
    CHECK(la.point[0] == va[0] && la.point[1] == va[1]);
    check_line(&la, 1.0, 0.0, ny, -nx, __LINE__);
    check_line(&lb, -ux, 1.0 - uy, -ny, nx, __LINE__);
    /* Solved from the current velocities: A keeps its own, B moves by
     * all of u, and the pair's relative velocity lands on the leg. */
    float sa[2], sb[2];
    orca_solve_2d(&la, 1, 0, 2.0f, va, scratch, sa);
    orca_solve_2d(&lb, 1, 0, 2.0f, vb, scratch, sb);
    check_vec(sa, 1.0, 0.0, __LINE__);
    check_vec(sb, -ux, 1.0 - uy, __LINE__);
    CHECK_NEAR(dx * ((double)sa[1] - (double)sb[1]) -
                   dy * ((double)sa[0] - (double)sb[0]),
               0.0, ORCA_TEST_TOL);
    /* Share 1 for A: the other way round. */
    pair_lines(pa, va, pb, vb, 1.0f, 4.0f, 0.1f, 1.0f, tie_up, &la, &lb);
    check_line(&la, 1.0 + ux, uy, ny, -nx, __LINE__);
    CHECK(lb.point[0] == vb[0] && lb.point[1] == vb[1]);
    /* Out of range shares are clamped. */
    orca_line lc;
    const float rel_p[2] = { 2.0f, -3.0f }, rel_v[2] = { 1.0f, -1.0f };
    orca_agent_line_2d(rel_p, rel_v, 1.0f, 0.25f, 10.0f, 7.0f, va, tie_up, &lc);
    CHECK(memcmp(&lc, &la, sizeof lc) == 0);
}

/* What a brute-force search over a grid of velocities in the speed circle
 * finds, in double. */
typedef struct grid_answer {
    int feasible;         /* some grid velocity keeps every line */
    double best_distance; /* the nearest such to the preferred one */
    int hard_kept;        /* some grid velocity keeps the hard lines */
    double least_worst;   /* the least largest soft violation among those */
    double spacing;
} grid_answer;

static double test_worst(const orca_line *lines, uint32_t count, uint32_t hard,
                         double vx, double vy) {
    double worst = -(double)INFINITY;
    for (uint32_t i = hard; i < count; i++) {
        const double violation = -test_slack(&lines[i], vx, vy);
        if (violation > worst)
            worst = violation;
    }
    return worst;
}

static grid_answer grid_search(const orca_line *lines, uint32_t count,
                               uint32_t hard, float max_speed,
                               const float preferred[2], int steps) {
    grid_answer a = { 0, (double)INFINITY, 0, (double)INFINITY, 0.0 };
    const double ms = (double)max_speed;
    a.spacing = 2.0 * ms / steps;
    for (int iy = 0; iy <= steps; iy++) {
        for (int ix = 0; ix <= steps; ix++) {
            const double vx = -ms + a.spacing * ix;
            const double vy = -ms + a.spacing * iy;
            if (vx * vx + vy * vy > ms * ms)
                continue;
            int hard_ok = 1;
            for (uint32_t i = 0; i < hard && hard_ok; i++)
                hard_ok = test_slack(&lines[i], vx, vy) >= 0.0;
            if (!hard_ok)
                continue;
            a.hard_kept = 1;
            const double worst = test_worst(lines, count, hard, vx, vy);
            if (worst < a.least_worst)
                a.least_worst = worst;
            if (worst <= 0.0) {
                a.feasible = 1;
                const double ex = vx - (double)preferred[0];
                const double ey = vy - (double)preferred[1];
                const double distance = sqrt(ex * ex + ey * ey);
                if (distance < a.best_distance)
                    a.best_distance = distance;
            }
        }
    }
    return a;
}

/* A line with inward normal (nx, ny) (unit) through offset (nx, ny):
 * it permits n . v >= offset. */
static orca_line normal_line(double nx, double ny, double offset) {
    orca_line line;
    line.point[0] = (float)(nx * offset);
    line.point[1] = (float)(ny * offset);
    line.direction[0] = (float)ny;
    line.direction[1] = (float)-nx;
    return line;
}

TEST(orca2d_infeasible) {
    /* Three lines asking n_k . v >= 1 for normals 120 degrees apart
     * (sum zero): the three conditions add up to 0 >= 3, so none holds.
     * Violation of k is 1 - n_k . v; their sum is 3 at every v, so the
     * largest is at least 1, and exactly 1 only at v = 0. */
    const double h = sqrt(3.0) / 2.0;
    orca_line lines[3] = { normal_line(0.0, 1.0, 1.0),
                           normal_line(-h, -0.5, 1.0),
                           normal_line(h, -0.5, 1.0) };
    orca_line scratch[3];
    const float preferred[2] = { 0.3f, 0.2f };
    float v[2];
    orca_solve_2d(lines, 3, 0, 2.0f, preferred, scratch, v);
    check_vec(v, 0.0, 0.0, __LINE__);
    grid_answer g = grid_search(lines, 3, 0, 2.0f, preferred, 400);
    CHECK(!g.feasible);
    CHECK_NEAR(g.least_worst, 1.0, 1e-9); /* the origin is a grid point */
    CHECK_NEAR(test_worst(lines, 3, 0, (double)v[0], (double)v[1]),
               g.least_worst, 1e-6);

    /* The first line hard: v.y >= 1. The others' violations are
     * 1 + y/2 -+ (sqrt3/2) x, whose larger is at least 1 + y/2 >= 3/2:
     * the answer is (0,1), worst 3/2. */
    orca_solve_2d(lines, 3, 1, 2.0f, preferred, scratch, v);
    check_vec(v, 0.0, 1.0, __LINE__);
    CHECK_NEAR(test_worst(lines, 3, 1, (double)v[0], (double)v[1]), 1.5,
               ORCA_TEST_TOL);
    g = grid_search(lines, 3, 1, 2.0f, preferred, 400);
    CHECK(g.hard_kept && !g.feasible);
    CHECK_NEAR(g.least_worst, 1.5, g.spacing);

    /* Uneven: x >= 0.5, y >= 0.3, x <= -0.7, y <= -0.1 and
     * 0.6 x + 0.8 y >= 1.4, all soft. With worst W, x lies in
     * [0.5 - W, W - 0.7], y in [0.3 - W, W - 0.1], and the fifth needs
     * 0.6 x + 0.8 y >= 1.4 - W; the left side is largest at the top
     * corner, 1.4 W - 0.5, so 2.4 W >= 1.9: W = 19/24 at
     * v = (19/24 - 0.7, 19/24 - 0.1) = (11/120, 83/120), |v| < 1.5. */
    orca_line box[5] = { normal_line(1.0, 0.0, 0.5), normal_line(0.0, 1.0, 0.3),
                         normal_line(-1.0, 0.0, 0.7),
                         normal_line(0.0, -1.0, 0.1),
                         normal_line(0.6, 0.8, 1.4) };
    orca_line box_scratch[5];
    orca_solve_2d(box, 5, 0, 1.5f, preferred, box_scratch, v);
    check_vec(v, 11.0 / 120.0, 83.0 / 120.0, __LINE__);
    const double got = test_worst(box, 5, 0, (double)v[0], (double)v[1]);
    CHECK_NEAR(got, 19.0 / 24.0, ORCA_TEST_TOL);
    /* The grid's least worst is never below the optimum and within a
     * step of it (violations change by at most the distance moved). */
    g = grid_search(box, 5, 0, 1.5f, preferred, 600);
    CHECK(!g.feasible);
    CHECK(got <= g.least_worst + 1e-6);
    CHECK(got >= g.least_worst - g.spacing);
}

TEST(orca2d_infeasible_parallel) {
    /* x >= 0.5 and x <= -0.5: parallel lines facing each other. On the
     * plane of the second, the first's condition "violate no more" is
     * 0.5 - x <= 0.5 + x, x >= 0: the line midway. Going furthest along
     * the second's normal (-1,0) stops there: x = 0, both violated by
     * 0.5 (without the midway line it would run to x = -max_speed). */
    orca_line lines[2] = { normal_line(1.0, 0.0, 0.5),
                           normal_line(-1.0, 0.0, 0.5) };
    orca_line scratch[2];
    const float preferred[2] = { 0.3f, 0.4f };
    float v[2];
    orca_solve_2d(lines, 2, 0, 2.0f, preferred, scratch, v);
    CHECK_NEAR(v[0], 0.0, ORCA_TEST_TOL);
    CHECK_NEAR(test_worst(lines, 2, 0, (double)v[0], (double)v[1]), 0.5,
               ORCA_TEST_TOL);
    /* A hard pair facing each other leaves nothing: both turn soft. */
    orca_solve_2d(lines, 2, 2, 2.0f, preferred, scratch, v);
    CHECK_NEAR(v[0], 0.0, ORCA_TEST_TOL);
}

/* A random unit vector (nonzero) in double. */
static void random_unit(test_rng *rng, double out[2]) {
    double x, y, len;
    do {
        x = (double)test_rng_range(rng, -1.0f, 1.0f);
        y = (double)test_rng_range(rng, -1.0f, 1.0f);
        len = sqrt(x * x + y * y);
    } while (len < 0.1 || len > 1.0);
    out[0] = x / len;
    out[1] = y / len;
}

/* Line `i` of a random case: an agent's half-plane against a random
 * neighbour, or an arbitrary line near the speed circle. Hard lines
 * permit the origin (a static obstacle never forbids standing still). */
static orca_line random_line(test_rng *rng, float max_speed, int hard) {
    orca_line line;
    if (!hard && test_rng_below(rng, 2u) == 0u) {
        const float rel_p[2] = { test_rng_range(rng, -6.0f, 6.0f),
                                 test_rng_range(rng, -6.0f, 6.0f) };
        const float rel_v[2] = { test_rng_range(rng, -2.0f, 2.0f) * max_speed,
                                 test_rng_range(rng, -2.0f, 2.0f) * max_speed };
        const float v_a[2] = { test_rng_range(rng, -1.0f, 1.0f) * max_speed,
                               test_rng_range(rng, -1.0f, 1.0f) * max_speed };
        double t[2];
        random_unit(rng, t);
        const float tie[2] = { (float)t[0], (float)t[1] };
        orca_agent_line_2d(rel_p, rel_v, test_rng_range(rng, 0.3f, 2.0f),
                           test_rng_range(rng, 0.2f, 2.0f), 10.0f,
                           test_rng_unit(rng), v_a, tie, &line);
        return line;
    }
    double n[2];
    random_unit(rng, n);
    double offset =
        (double)test_rng_range(rng, -1.2f, 0.9f) * (double)max_speed;
    if (hard && offset > 0.0)
        offset = -offset;
    return normal_line(n[0], n[1], offset);
}

TEST(orca2d_speed_bound) {
    /* Velocities on the circle come out of a chord's square root and a
     * sum; rounded, they can land an ulp or two outside. The result is
     * pulled in until its float length is at most max_speed, so its
     * exact length exceeds max_speed by at most the float length's own
     * rounding, below one ulp (FLT_EPSILON relative). Lines cut the
     * circle and the preferred velocities lie far outside, so most
     * answers are on it. */
    test_rng rng = test_rng_make(0x5eed);
    for (int c = 0; c < 200000; c++) {
        const int scale = (int)test_rng_below(&rng, 5u);
        const float unit = scale == 0   ? 1e-12f
                           : scale == 1 ? 1e-3f
                           : scale == 2 ? 1.0f
                           : scale == 3 ? 1e6f
                                        : 1e15f;
        const float max_speed = unit * test_rng_range(&rng, 0.1f, 10.0f);
        const uint32_t count = 1u + test_rng_below(&rng, 3u);
        orca_line lines[3], scratch[3];
        for (uint32_t i = 0; i < count; i++) {
            double n[2];
            random_unit(&rng, n);
            lines[i] = normal_line(n[0], n[1],
                                   (double)test_rng_range(&rng, -1.0f, 0.8f) *
                                       (double)max_speed);
        }
        const float preferred[2] = {
            test_rng_range(&rng, -3.0f, 3.0f) * max_speed,
            test_rng_range(&rng, -3.0f, 3.0f) * max_speed
        };
        float v[2];
        orca_solve_2d(lines, count, 0, max_speed, preferred, scratch, v);
        const double len = hypot((double)v[0], (double)v[1]);
        if (!(len <= (double)max_speed * (1.0 + (double)FLT_EPSILON)))
            runner_fail(__FILE__, __LINE__,
                        "case %d: |v| = %.9g, max_speed %.9g (%.3g over)", c,
                        len, (double)max_speed, len / (double)max_speed - 1.0);
        if (scale >= 1 && scale <= 3)
            CHECK(sqrtf(v[0] * v[0] + v[1] * v[1]) <= max_speed);
    }
}

TEST(orca2d_random_vs_grid) {
    test_rng rng = test_rng_make(0x0bca2d);
    int feasible_cases = 0, infeasible_cases = 0;
    for (int c = 0; c < 2500; c++) {
        orca_line lines[10], scratch[10];
        const float max_speed = test_rng_range(&rng, 0.5f, 3.0f);
        const uint32_t count = 1u + test_rng_below(&rng, 10u);
        const uint32_t hard = test_rng_below(&rng, 4u) == 0u
                                  ? test_rng_below(&rng, count < 3 ? count : 3)
                                  : 0u;
        for (uint32_t i = 0; i < count; i++)
            lines[i] = random_line(&rng, max_speed, i < hard);
        const float preferred[2] = {
            test_rng_range(&rng, -1.5f, 1.5f) * max_speed,
            test_rng_range(&rng, -1.5f, 1.5f) * max_speed
        };
        float v[2];
        orca_solve_2d(lines, count, hard, max_speed, preferred, scratch, v);
        const double vx = (double)v[0], vy = (double)v[1];
        const double ms = (double)max_speed;
        const double tol = 4e-6 * ms;
        REQUIRE(isfinite(vx) && isfinite(vy));
        CHECK(sqrt(vx * vx + vy * vy) <= ms * (1.0 + 2.5e-7));
        const grid_answer g =
            grid_search(lines, count, hard, max_speed, preferred, 100);
        double least_slack = (double)INFINITY;
        for (uint32_t i = 0; i < count; i++) {
            const double s = test_slack(&lines[i], vx, vy);
            if (s < least_slack)
                least_slack = s;
        }
        if (g.feasible) {
            feasible_cases++;
            const double ex = vx - (double)preferred[0];
            const double ey = vy - (double)preferred[1];
            if (!(least_slack >= -tol &&
                  sqrt(ex * ex + ey * ey) <= g.best_distance + tol))
                runner_fail(__FILE__, __LINE__,
                            "case %d: slack %.9g, distance %.9g, grid's "
                            "%.9g",
                            c, least_slack, sqrt(ex * ex + ey * ey),
                            g.best_distance);
        } else if (g.hard_kept) {
            infeasible_cases++;
            for (uint32_t i = 0; i < hard; i++)
                CHECK(test_slack(&lines[i], vx, vy) >= -tol);
            const double worst = test_worst(lines, count, hard, vx, vy);
            if (!(worst <= g.least_worst + tol))
                runner_fail(__FILE__, __LINE__,
                            "case %d: worst violation %.9g, grid's %.9g", c,
                            worst, g.least_worst);
        }
    }
    /* Both kinds of case occur often enough to mean something. */
    CHECK(feasible_cases > 500);
    CHECK(infeasible_cases > 200);
}

static int finite_line(const orca_line *line) {
    return isfinite(line->point[0]) && isfinite(line->point[1]) &&
           isfinite(line->direction[0]) && isfinite(line->direction[1]);
}

TEST(orca2d_extremes) {
    static const float positions[] = { 0.0f, 1e-30f, -3.0f, 1e15f, -1e15f };
    static const float radii[] = { 1e-30f, 1e-6f, 1.0f, 1e15f };
    static const float inv_taus[] = { 1e-3f, 0.5f, 10.0f };
    static const float inv_dts[] = { 10.0f, 1e3f, 1e6f };
    static const float speeds[] = { 0.0f, 1e-30f, 1.0f, 1e15f };
    test_rng rng = test_rng_make(15);
    for (int c = 0; c < 4000; c++) {
        const int np = (int)(sizeof positions / sizeof positions[0]);
        float pa[2], pb[2], va[2], vb[2];
        for (int k = 0; k < 2; k++) {
            pa[k] = positions[test_rng_below(&rng, (uint32_t)np)];
            pb[k] = test_rng_below(&rng, 3u) == 0u
                        ? pa[k]
                        : positions[test_rng_below(&rng, (uint32_t)np)];
            va[k] = positions[test_rng_below(&rng, (uint32_t)np)];
            vb[k] = test_rng_below(&rng, 3u) == 0u
                        ? va[k]
                        : positions[test_rng_below(&rng, (uint32_t)np)];
        }
        double t[2];
        random_unit(&rng, t);
        const float tie[2] = { (float)t[0], (float)t[1] };
        const float radius = radii[test_rng_below(&rng, 4u)];
        const float inv_tau = inv_taus[test_rng_below(&rng, 3u)];
        const float inv_dt = inv_dts[test_rng_below(&rng, 3u)];
        orca_line lines[4], scratch[4];
        pair_lines(pa, va, pb, vb, radius, 1.0f / inv_tau, 1.0f / inv_dt, 0.5f,
                   tie, &lines[0], &lines[1]);
        pair_lines(pb, vb, pa, va, radius, 1.0f / inv_tau, 1.0f / inv_dt,
                   test_rng_unit(&rng), tie, &lines[2], &lines[3]);
        for (int i = 0; i < 4; i++) {
            REQUIRE(finite_line(&lines[i]));
            const double dl = hypot((double)lines[i].direction[0],
                                    (double)lines[i].direction[1]);
            CHECK_NEAR(dl, 1.0, 1e-6);
        }
        const float max_speed = speeds[test_rng_below(&rng, 4u)];
        const float preferred[2] = {
            positions[test_rng_below(&rng, (uint32_t)np)],
            positions[test_rng_below(&rng, (uint32_t)np)]
        };
        float v[2];
        orca_solve_2d(lines, 1u + test_rng_below(&rng, 4u),
                      test_rng_below(&rng, 2u), max_speed, preferred, scratch,
                      v);
        REQUIRE(isfinite(v[0]) && isfinite(v[1]));
        CHECK(hypot((double)v[0], (double)v[1]) <=
              (double)max_speed * (1.0 + 2.5e-7));
        if (max_speed == 0.0f)
            CHECK(v[0] == 0.0f && v[1] == 0.0f);
    }
    /* No lines: the preferred velocity, pulled into the circle. */
    const float far[2] = { 3e15f, -4e15f };
    float v[2];
    orca_solve_2d(NULL, 0, 0, 10.0f, far, NULL, v);
    check_vec(v, 6.0, -8.0, __LINE__);
    const float tiny[2] = { 3e-30f, -4e-30f };
    orca_solve_2d(NULL, 0, 0, 10.0f, tiny, NULL, v);
    CHECK(v[0] == tiny[0] && v[1] == tiny[1]);
}

/* The lines of a batch of pairs (orca_agent_lines_2d(), on the vector
 * lanes where it can) are the one-pair function's to the bit: common
 * pairs, overlapping ones, pairs at rest on each other (no direction but
 * the tie), lengths at the edges of float, a zero or NaN radius, a NaN
 * velocity, in batches of every size. */
TEST(orca2d_lines_batch) {
    static const float odd[] = { 0.0f, 1e-30f, -3.0f, 1e15f, -1e15f, 1e-19f };
    test_rng rng = test_rng_make(23);
    int lanes_cases = 0;
    for (int c = 0; c < 3000; c++) {
        float px[ORCA_PAIRS_BATCH], py[ORCA_PAIRS_BATCH];
        float vx[ORCA_PAIRS_BATCH], vy[ORCA_PAIRS_BATCH];
        float radius[ORCA_PAIRS_BATCH], tie[ORCA_PAIRS_BATCH];
        const uint32_t n = 1u + test_rng_below(&rng, ORCA_PAIRS_BATCH);
        for (uint32_t i = 0; i < ORCA_PAIRS_BATCH; i++) {
            const uint32_t kind = test_rng_below(&rng, 8u);
            px[i] = test_rng_range(&rng, -15.0f, 15.0f);
            py[i] = test_rng_range(&rng, -15.0f, 15.0f);
            vx[i] = test_rng_range(&rng, -4.0f, 4.0f);
            vy[i] = test_rng_range(&rng, -4.0f, 4.0f);
            radius[i] = 3.0f;
            tie[i] = test_rng_below(&rng, 2u) ? 1.0f : -1.0f;
            if (kind == 1) { /* overlapping */
                px[i] *= 0.1f;
                py[i] *= 0.1f;
            } else if (kind == 2) { /* at rest on each other */
                px[i] = py[i] = vx[i] = vy[i] = 0.0f;
            } else if (kind == 3) {
                px[i] = odd[test_rng_below(&rng, 6u)];
                vy[i] = odd[test_rng_below(&rng, 6u)];
            } else if (kind == 4) {
                radius[i] = test_rng_below(&rng, 2u) ? 0.0f : nanf("");
            } else if (kind == 5) {
                vx[i] = nanf("");
            }
        }
        const float v_a[2] = { test_rng_range(&rng, -2.0f, 2.0f),
                               test_rng_range(&rng, -2.0f, 2.0f) };
        const float inv_tau = test_rng_below(&rng, 2u) ? 0.1f : 0.5f;
        const float share = test_rng_below(&rng, 2u) ? 0.5f : 1.0f;
        const orca_pairs_2d pairs = { px, py, vx, vy, radius, tie };
        orca_line got[ORCA_PAIRS_BATCH];
        orca_agent_lines_2d(&pairs, n, inv_tau, 4.0f, share, v_a, got);
        for (uint32_t i = 0; i < n; i++) {
            const float rel_p[2] = { px[i], py[i] };
            const float rel_v[2] = { vx[i], vy[i] };
            const float t[2] = { tie[i], 0.0f };
            orca_line want;
            orca_agent_line_2d(rel_p, rel_v, radius[i], inv_tau, 4.0f, share,
                               v_a, t, &want);
            if (memcmp(&got[i], &want, sizeof want) != 0)
                runner_fail(__FILE__, __LINE__,
                            "case %d pair %u: (%g %g; %g %g) vs (%g %g; %g "
                            "%g)",
                            c, (unsigned)i, (double)got[i].point[0],
                            (double)got[i].point[1],
                            (double)got[i].direction[0],
                            (double)got[i].direction[1], (double)want.point[0],
                            (double)want.point[1], (double)want.direction[0],
                            (double)want.direction[1]);
            lanes_cases += px[i] * px[i] + py[i] * py[i] > 9.0f;
        }
    }
    CHECK(lanes_cases > 10000);
}

/* A run of n agents, each step every agent taking the lines of all the
 * others nearest first, solving toward its goal and moving by v dt. Each
 * preferred velocity is turned `bias` radians to the left: a caller's way
 * to break the symmetry of a scene (ORCA itself picks no side).
 * Returns the least (centre distance - radius sum) over pairs and steps
 * and the step by which every agent was within `arrive` of its goal
 * (-1 if never). */
typedef struct sim_agent {
    float p[2], v[2], goal[2];
} sim_agent;

#define SIM_MAX 8

static double sim_run(sim_agent *agents, int n, float radius, float max_speed,
                      float tau, float dt, float bias, int steps, float arrive,
                      int *arrived) {
    const float turn_cos = (float)cos((double)bias);
    const float turn_sin = (float)sin((double)bias);
    double least = (double)INFINITY;
    *arrived = -1;
    for (int step = 0; step < steps; step++) {
        float next[SIM_MAX][2];
        for (int i = 0; i < n; i++) {
            sim_agent *a = &agents[i];
            int order[SIM_MAX];
            float dist2[SIM_MAX];
            int m = 0;
            for (int j = 0; j < n; j++) {
                if (j == i)
                    continue;
                const float dx = agents[j].p[0] - a->p[0];
                const float dy = agents[j].p[1] - a->p[1];
                const float d2 = dx * dx + dy * dy;
                int at = m++;
                while (at > 0 && dist2[at - 1] > d2) {
                    dist2[at] = dist2[at - 1];
                    order[at] = order[at - 1];
                    at--;
                }
                dist2[at] = d2;
                order[at] = j;
            }
            orca_line lines[SIM_MAX], scratch[SIM_MAX];
            for (int k = 0; k < m; k++) {
                const sim_agent *b = &agents[order[k]];
                const float rel_p[2] = { b->p[0] - a->p[0], b->p[1] - a->p[1] };
                const float rel_v[2] = { a->v[0] - b->v[0], a->v[1] - b->v[1] };
                /* Opposite ties for the two of a pair: +x to the lower
                 * index. */
                const float tie[2] = { i < order[k] ? 1.0f : -1.0f, 0.0f };
                orca_agent_line_2d(rel_p, rel_v, 2.0f * radius, 1.0f / tau,
                                   1.0f / dt, 0.5f, a->v, tie, &lines[k]);
            }
            /* Toward the goal at max speed, or just onto it. */
            const float gx = a->goal[0] - a->p[0], gy = a->goal[1] - a->p[1];
            const float gd = sqrtf(gx * gx + gy * gy);
            float preferred[2] = { 0.0f, 0.0f };
            if (gd > max_speed * dt) {
                preferred[0] = gx / gd * max_speed;
                preferred[1] = gy / gd * max_speed;
            } else {
                preferred[0] = gx / dt;
                preferred[1] = gy / dt;
            }
            const float turned[2] = {
                preferred[0] * turn_cos - preferred[1] * turn_sin,
                preferred[0] * turn_sin + preferred[1] * turn_cos
            };
            orca_solve_2d(lines, (uint32_t)m, 0, max_speed, turned, scratch,
                          next[i]);
        }
        int all_there = 1;
        for (int i = 0; i < n; i++) {
            agents[i].v[0] = next[i][0];
            agents[i].v[1] = next[i][1];
            agents[i].p[0] += next[i][0] * dt;
            agents[i].p[1] += next[i][1] * dt;
            const double ex =
                (double)agents[i].goal[0] - (double)agents[i].p[0];
            const double ey =
                (double)agents[i].goal[1] - (double)agents[i].p[1];
            all_there &= sqrt(ex * ex + ey * ey) <= (double)arrive;
        }
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) {
                const double dx =
                    (double)agents[j].p[0] - (double)agents[i].p[0];
                const double dy =
                    (double)agents[j].p[1] - (double)agents[i].p[1];
                const double gap =
                    sqrt(dx * dx + dy * dy) - 2.0 * (double)radius;
                if (gap < least)
                    least = gap;
            }
        if (all_there && *arrived < 0) {
            *arrived = step;
            break;
        }
    }
    return least;
}

TEST(orca2d_sim_head_on) {
    /* Radius 0.5 each, 10 apart, swapping ends at speed 1. Exactly on one
     * line the pair is a symmetric standstill of ORCA (each line is
     * vertical, each preferred velocity horizontal), so B starts 1/100 of
     * a radius off the axis. The gap may not go below zero by more than
     * rounding (1e-5 of the radius sum): ORCA keeps every pair apart
     * whenever both programs are feasible, as they are for two agents. */
    sim_agent agents[2] = {
        { { -5.0f, 0.0f }, { 0.0f, 0.0f }, { 5.0f, 0.0f } },
        { { 5.0f, 0.005f }, { 0.0f, 0.0f }, { -5.0f, 0.005f } },
    };
    int arrived = 0;
    const double least =
        sim_run(agents, 2, 0.5f, 1.0f, 2.0f, 0.1f, 0.0f, 400, 1e-3f, &arrived);
    CHECK(least >= -1e-5);
    CHECK(arrived > 0);
    /* Not brushing past at a distance either: they came close. */
    CHECK(least < 0.1);
}

TEST(orca2d_sim_circle) {
    /* Eight agents of radius 0.5 on a circle of radius 4, each to its
     * antipode at speed 1 (8 s the straight way). Meeting at the centre
     * all at once, pure ORCA jams: each agent's two ring neighbours,
     * closing at the same speed, leave it a wedge of velocities pointing
     * outward, whose tip is the nearest to any inward preference, and the
     * ring stands. A turn of every preferred velocity by 0.05 rad (3
     * degrees) to the left makes them circle the centre the same way.
     * The test shows both: the jam without the turn (no one arrives, and
     * still no one overlaps), and with it every agent home within 20 s. */
    for (int turn = 0; turn < 2; turn++) {
        sim_agent agents[8];
        for (int i = 0; i < 8; i++) {
            const double angle = (double)TEST_TWO_PI * i / 8.0;
            const float x = (float)(4.0 * cos(angle));
            const float y = (float)(4.0 * sin(angle));
            sim_agent a = { { x, y }, { 0.0f, 0.0f }, { -x, -y } };
            agents[i] = a;
        }
        int arrived = 0;
        const double least = sim_run(agents, 8, 0.5f, 1.0f, 2.0f, 0.1f,
                                     turn ? 0.05f : 0.0f, 200, 1e-3f, &arrived);
        if (!(least >= -1e-5) || (turn ? arrived <= 0 : arrived >= 0))
            runner_fail(__FILE__, __LINE__,
                        "turn %d: least gap %.9g, arrived at step %d", turn,
                        least, arrived);
    }
}

void register_orca2d_tests(void) {
    REGISTER(orca2d_head_on);
    REGISTER(orca2d_crossing);
    REGISTER(orca2d_overlap);
    REGISTER(orca2d_share);
    REGISTER(orca2d_infeasible);
    REGISTER(orca2d_infeasible_parallel);
    REGISTER(orca2d_speed_bound);
    REGISTER(orca2d_random_vs_grid);
    REGISTER(orca2d_extremes);
    REGISTER(orca2d_lines_batch);
    REGISTER(orca2d_sim_head_on);
    REGISTER(orca2d_sim_circle);
}
