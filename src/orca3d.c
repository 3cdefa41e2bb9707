/* SPDX-License-Identifier: MIT */
/*
 * Three-dimensional ORCA: the permitted half-space per neighbour and the
 * linear program over them (orca3d.h has the contract).
 *
 * The half-space. With A's relative velocity x = v_A - v_B and the pair's
 * relative position p = p_B - p_A and combined radius r, A reaches B within
 * the horizon tau exactly when x lies in the truncated cone VO: the cone
 * from the origin around the ball of centre p / tau and radius r / tau,
 * cut off by that ball. VO is convex; its surface is the cone's side
 * beyond the circle where it touches the ball, and the ball's cap that
 * faces the origin. u is the shortest step from x to that surface and n
 * the surface's outward normal where u lands; A takes `share` of the
 * step, so its half-space is the v with (v - (v_A + share u)) . n >= 0.
 * Which part of the surface is nearest follows from the angle at the ball's
 * centre: with w = x - p / tau, the cap serves the w within the cone of
 * directions of the cap's own normals, -w . p > |w| r (the half-angle of
 * that cone is 90 degrees less the cone's half-angle asin(r / |p|));
 * every other x is nearest the side, in the half-plane through the axis
 * and x. When the agents already overlap there is no cone; they must part
 * within one step, so the ball of centre p / dt and radius r / dt takes
 * its place and u is the step from x to its sphere.
 *
 * The program. The velocity nearest `preferred` in the ball |v| <= max
 * speed and every half-space is found incrementally in the planes' order:
 * while the optimum so far satisfies the next plane it stands; when it
 * does not, the new optimum lies on that plane, and finding it there is
 * the same problem one dimension down (a disc, with the earlier planes cut
 * to half-planes), which in turn drops to a chord of a line where two
 * planes meet. The objective is strictly convex (distance to a point), so
 * the step down is sound in the given order without the shuffling the
 * expected-time bound of the randomised version wants; a dozen planes make
 * the worst case moot.
 *
 * When the planes cannot all be met, the fallback minimises t, the largest
 * violation of the soft planes, over (v, t): a four-dimensional program
 * solved the same incremental way. When soft plane i is violated by more
 * than the t so far, the new optimum has exactly t = d_i - n_i . v, and
 * substituting that into each earlier soft plane j turns n_j . v + t >=
 * d_j into the plane (n_j - n_i) . v >= d_j - d_i of velocity space, where
 * j and i are violated alike; with the hard planes kept as they are, the
 * optimum there is the v furthest along n_i, a three-dimensional program
 * with a linear objective that the same solver runs.
 *
 * Numbers. Inputs are floats, the arithmetic is double: a float squared
 * twice stays inside a double's range, so no product in here overflows and
 * no square underflows to zero for inputs that are not already subnormal.
 * Each division and square root below names the guard that keeps it
 * finite, and each tolerance that judges near-degenerate geometry (planes
 * nearly parallel, x nearly on the cone's axis) gives the reason for its
 * value where it is used.
 */
#include "orca3d.h"

#include <math.h>
#include <string.h>

/* Two unit normals whose cross product is shorter than this (the sine of
 * the angle between them) are taken as parallel. Float normals carry a
 * relative error near 6e-8, so a genuine angle below 1e-6 rad cannot be
 * told from rounding; treating such a pair as parallel moves a constraint
 * by at most 1e-6 of the speed range. */
#define ORCA_PARALLEL_SINE 1e-6
#define ORCA_PARALLEL_SINE2 (ORCA_PARALLEL_SINE * ORCA_PARALLEL_SINE)

/* A constraint found parallel to the line or plane being solved on is a
 * constant there; it counts as met when it is violated by less than this
 * fraction of max speed, the same order as the error the parallel test
 * itself allows. */
#define ORCA_SLACK 1e-6

/* Plane points are stored as floats; one further from the origin than
 * this (only reachable from inputs near FLT_MAX) is moved along the normal
 * to this distance, which keeps the plane either clear of or excluding
 * every velocity a float max speed allows. */
#define ORCA_FAR 1e37

/* ------------------------------------------------------------------------ */
/* Small vector helpers, all in double, always summed x, then y, then z.    */
/* ------------------------------------------------------------------------ */

static double dot3(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void load3(const float in[3], double out[3]) {
    out[0] = (double)in[0];
    out[1] = (double)in[1];
    out[2] = (double)in[2];
}

static void cross3(const double a[3], const double b[3], double out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double clamp(double x, double lo, double hi) {
    return x < lo ? lo : (x > hi ? hi : x);
}

/* A half-space in double with a unit normal: n . v >= d. A zero normal
 * (the caller's normal was zero) gives n = 0, d = 0: met by every v. */
typedef struct orca_half {
    double n[3];
    double d;
} orca_half;

static void half_load(const orca_plane *plane, orca_half *h) {
    double n[3], point[3];
    load3(plane->normal, n);
    load3(plane->point, point);
    const double nn = dot3(n, n);
    if (!(nn > 0.0)) { /* guards the division: no direction, no limit */
        memset(h, 0, sizeof *h);
        return;
    }
    const double inv_len = 1.0 / sqrt(nn);
    for (int k = 0; k < 3; k++)
        h->n[k] = n[k] * inv_len;
    h->d = dot3(point, h->n);
}

/* The sign of plane's test at v, scaled by its normal's length: negative
 * when v lies outside. Needs no normalising, so it is the cheap check the
 * programs run on every plane. */
static double plane_gap(const orca_plane *plane, const double v[3]) {
    const double rel[3] = { v[0] - (double)plane->point[0],
                            v[1] - (double)plane->point[1],
                            v[2] - (double)plane->point[2] };
    double n[3];
    load3(plane->normal, n);
    return dot3(rel, n);
}

/* ------------------------------------------------------------------------ */
/* The half-spaces                                                          */
/* ------------------------------------------------------------------------ */

/* The unit vector of `tie`, or the x axis when it is zero (the caller owes
 * opposite ties to the two agents; a zero one cannot be made opposite). */
static void tie_direction(const float tie[3], double out[3]) {
    double t[3];
    load3(tie, t);
    const double tt = dot3(t, t);
    if (tt > 0.0) { /* guards the division */
        const double inv_len = 1.0 / sqrt(tt);
        for (int k = 0; k < 3; k++)
            out[k] = t[k] * inv_len;
    } else {
        out[0] = 1.0;
        out[1] = 0.0;
        out[2] = 0.0;
    }
}

/* A unit vector perpendicular to the unit axis `axis`: the tie's part
 * across the axis when it has one, else axis x (the coordinate axis the
 * axis is least along). Both rules are odd in (axis, tie), so the two
 * agents of a pair, whose axes and ties are opposite, get opposite
 * vectors and pass on opposite sides. */
static void across_axis(const double axis[3], const double tie[3],
                        double out[3]) {
    const double along = dot3(tie, axis);
    double t[3];
    for (int k = 0; k < 3; k++)
        t[k] = tie[k] - along * axis[k];
    double tt = dot3(t, t);
    /* 1e-12: a tie within 1e-6 rad of the axis has no usable part across
     * it. */
    if (!(tt > 1e-12)) {
        double pick[3] = { 0.0, 0.0, 0.0 };
        const double ax = fabs(axis[0]), ay = fabs(axis[1]);
        const double az = fabs(axis[2]);
        pick[ax <= ay && ax <= az ? 0 : (ay <= az ? 1 : 2)] = 1.0;
        cross3(axis, pick, t);
        /* The axis's least component squared is at most 1/3, so tt >= 2/3
         * here. */
        tt = dot3(t, t);
    }
    const double inv_len = 1.0 / sqrt(tt);
    for (int k = 0; k < 3; k++)
        out[k] = t[k] * inv_len;
}

/* Writes the plane through v_a + share u with normal n, as floats. */
static void store_plane(const double v_a[3], double share, const double u[3],
                        const double n[3], orca_plane *out) {
    double point[3];
    for (int k = 0; k < 3; k++)
        point[k] = v_a[k] + share * u[k];
    if (fabs(point[0]) > ORCA_FAR || fabs(point[1]) > ORCA_FAR ||
        fabs(point[2]) > ORCA_FAR) {
        /* Keeps the float conversion finite: the same plane's point
         * nearest the origin, its distance capped. */
        const double d = clamp(dot3(point, n), -ORCA_FAR, ORCA_FAR);
        for (int k = 0; k < 3; k++)
            point[k] = n[k] * d;
    }
    for (int k = 0; k < 3; k++) {
        out->point[k] = (float)point[k];
        out->normal[k] = (float)n[k];
    }
}

void orca_agent_plane_3d(const float rel_p[3], const float rel_v[3],
                         float radius, float inv_tau, float inv_dt, float share,
                         const float v_a[3], const float tie[3],
                         orca_plane *out) {
    double p[3], x[3], va[3], tie_dir[3];
    load3(rel_p, p);
    load3(rel_v, x);
    load3(v_a, va);
    const double r = (double)radius;
    const double dist2 = dot3(p, p);
    const double r2 = r * r;
    double u[3], n[3];

    if (dist2 > r2) {
        /* Apart: the truncated cone of horizon tau. */
        const double it = (double)inv_tau;
        double w[3];
        for (int k = 0; k < 3; k++)
            w[k] = x[k] - p[k] * it;
        const double ww = dot3(w, w);
        const double wp = dot3(w, p);
        if (wp < 0.0 && wp * wp > r2 * ww) {
            /* The cap: u runs along w from x to the sphere of radius
             * r / tau. wp < 0 makes w nonzero, so ww > 0 (no float's
             * square underflows a double). */
            const double w_len = sqrt(ww);
            const double inv_w_len = 1.0 / w_len;
            const double step = r * it - w_len;
            for (int k = 0; k < 3; k++) {
                n[k] = w[k] * inv_w_len;
                u[k] = step * n[k];
            }
        } else {
            /* The side. In the half-plane through the axis and x, the
             * side's line leaves the origin at the cone's half-angle alpha
             * (sin = r / |p|, cos = sqrt(|p|^2 - r^2) / |p|) and its
             * outward normal is cos alpha e - sin alpha axis, e the unit
             * direction from the axis to x. dist2 > r2 >= 0 keeps |p|
             * and the root positive. */
            const double inv_dist = 1.0 / sqrt(dist2);
            double axis[3], across[3];
            for (int k = 0; k < 3; k++)
                axis[k] = p[k] * inv_dist;
            const double along = dot3(x, axis);
            for (int k = 0; k < 3; k++)
                across[k] = x[k] - along * axis[k];
            /* Near the axis the subtraction cancels and leaves rounding
             * with a part along the axis; a second pass removes it. What is
             * left within 1e-12 |x| of the axis (some thousands of ulps)
             * is rounding too: x is on the axis. */
            const double again = dot3(across, axis);
            for (int k = 0; k < 3; k++)
                across[k] -= again * axis[k];
            const double aa = dot3(across, across);
            double e[3];
            if (aa > 1e-24 * dot3(x, x)) { /* also guards the division */
                const double inv_a_len = 1.0 / sqrt(aa);
                for (int k = 0; k < 3; k++)
                    e[k] = across[k] * inv_a_len;
            } else {
                /* x on the axis: every side is as near; the tie picks. */
                tie_direction(tie, tie_dir);
                across_axis(axis, tie_dir, e);
            }
            /* e is square to the axis to rounding: past the threshold the
             * second pass leaves it a part along the axis near 1e-16 of
             * its length, so n is unit as it stands. */
            const double sin_a = r * inv_dist;
            const double cos_a = sqrt(dist2 - r2) * inv_dist;
            for (int k = 0; k < 3; k++)
                n[k] = cos_a * e[k] - sin_a * axis[k];
            /* x's signed distance outside the side's line; u steps back
             * onto it. */
            const double s = dot3(x, n);
            for (int k = 0; k < 3; k++)
                u[k] = -s * n[k];
        }
    } else {
        /* Overlapping: leave the ball of centre p / dt, radius r / dt,
         * within the step. */
        const double idt = (double)inv_dt;
        double w[3];
        for (int k = 0; k < 3; k++)
            w[k] = x[k] - p[k] * idt;
        const double ww = dot3(w, w);
        double w_len = 0.0;
        if (ww > 0.0) { /* guards the division */
            w_len = sqrt(ww);
            const double inv_w_len = 1.0 / w_len;
            for (int k = 0; k < 3; k++)
                n[k] = w[k] * inv_w_len;
        } else if (dist2 > 0.0) {
            /* x at the centre: any way out is as short; straight away
             * from B. dist2 > 0 guards the division. */
            const double inv_dist = 1.0 / sqrt(dist2);
            for (int k = 0; k < 3; k++)
                n[k] = -p[k] * inv_dist;
        } else {
            /* Coincident and at rest relative to each other: the tie. */
            tie_direction(tie, tie_dir);
            for (int k = 0; k < 3; k++)
                n[k] = tie_dir[k];
        }
        const double step = r * idt - w_len;
        for (int k = 0; k < 3; k++)
            u[k] = step * n[k];
    }
    store_plane(va, (double)share, u, n, out);
}

void orca_sphere_plane_3d(const float rel_c[3], float radius_sum,
                          float inv_tau_obst, float inv_dt, const float v_a[3],
                          const float tie[3], orca_plane *out) {
    /* A still obstacle: the relative velocity is A's own, and A does all
     * the avoiding. */
    orca_agent_plane_3d(rel_c, v_a, radius_sum, inv_tau_obst, inv_dt, 1.0f, v_a,
                        tie, out);
}

/* ------------------------------------------------------------------------ */
/* The linear program                                                       */
/* ------------------------------------------------------------------------ */

/* What a program optimises: the point nearest `at`, or (along = 1) the
 * point furthest in the unit direction `at`. */
typedef struct orca_goal {
    double at[3];
    int along;
} orca_goal;

/* One dimension: on the line base + t dir (dir unit, base the line's point
 * nearest the origin), the point within the ball of radius `speed` and the
 * half-spaces planes[0, count) that best meets the goal, into out. Returns
 * 0, out untouched, when there is none. */
static int solve_line(const orca_plane *planes, uint32_t count,
                      const double base[3], const double dir[3], double speed,
                      const orca_goal *goal, double out[3]) {
    const double reach2 = speed * speed - dot3(base, base);
    if (reach2 < 0.0) /* the line misses the ball */
        return 0;
    double lo = -sqrt(reach2), hi = sqrt(reach2);
    const double slack = ORCA_SLACK * speed;
    for (uint32_t k = 0; k < count; k++) {
        double n[3];
        load3(planes[k].normal, n);
        const double nn = dot3(n, n);
        const double rate = dot3(n, dir); /* along the line */
        const double gap = plane_gap(&planes[k], base);
        /* The test is gap + t rate >= 0 (scaled by |n|). */
        if (rate * rate <= ORCA_PARALLEL_SINE2 * nn) {
            /* Parallel (or a zero normal): a constant on the line, and
             * the division below is skipped. */
            if (gap < 0.0 && gap * gap > slack * slack * nn)
                return 0;
            continue;
        }
        const double bound = -gap / rate;
        if (rate > 0.0)
            lo = bound > lo ? bound : lo;
        else
            hi = bound < hi ? bound : hi;
        if (lo > hi)
            return 0;
    }
    double t;
    if (goal->along) {
        const double rate = dot3(goal->at, dir);
        /* A goal across the line leaves every point as good: the one
         * nearest base, which keeps a problem that is flat in z flat. */
        t = rate > 0.0 ? hi : (rate < 0.0 ? lo : clamp(0.0, lo, hi));
    } else {
        const double rel[3] = { goal->at[0] - base[0], goal->at[1] - base[1],
                                goal->at[2] - base[2] };
        t = clamp(dot3(rel, dir), lo, hi);
    }
    for (int k = 0; k < 3; k++)
        out[k] = base[k] + t * dir[k];
    return 1;
}

/* Two dimensions: the best point on plane `at` (n . v = d) within the ball
 * and planes[0, at), into v. Returns 0, v untouched, when there is none. A
 * plane whose half-space holds the whole ball cannot truly be violated
 * (only rounding says so); v then stands. */
static int solve_plane(const orca_plane *planes, uint32_t at, double speed,
                       const orca_goal *goal, double v[3]) {
    orca_half h;
    half_load(&planes[at], &h);
    const double reach2 = speed * speed - h.d * h.d;
    if (reach2 < 0.0)
        return h.d < 0.0; /* beyond the ball: all of it, or none of it */
    const double reach = sqrt(reach2);
    double centre[3], cur[3];
    for (int k = 0; k < 3; k++)
        centre[k] = h.d * h.n[k];
    /* The optimum on the disc alone. */
    const double lift = dot3(h.n, goal->at);
    double off[3];
    if (goal->along) {
        for (int k = 0; k < 3; k++)
            off[k] = goal->at[k] - lift * h.n[k];
        const double oo = dot3(off, off);
        /* 1e-24: a direction within 1e-12 rad of the normal is the same
         * everywhere on the plane; the centre then serves. */
        const double scale = oo > 1e-24 ? reach / sqrt(oo) : 0.0;
        for (int k = 0; k < 3; k++)
            cur[k] = centre[k] + scale * off[k];
    } else {
        /* The goal projected onto the plane, pulled onto the disc when
         * beyond it (oo > reach2 >= 0 guards the division). */
        for (int k = 0; k < 3; k++)
            off[k] = goal->at[k] - lift * h.n[k];
        const double oo = dot3(off, off);
        const double scale = oo > reach2 ? reach / sqrt(oo) : 1.0;
        for (int k = 0; k < 3; k++)
            cur[k] = centre[k] + scale * off[k];
    }
    const double slack = ORCA_SLACK * speed;
    for (uint32_t j = 0; j < at; j++) {
        if (plane_gap(&planes[j], cur) >= 0.0)
            continue;
        orca_half g;
        half_load(&planes[j], &g);
        if (g.d < -speed) /* holds the whole ball; rounding */
            continue;
        double dir[3];
        cross3(h.n, g.n, dir);
        const double dd = dot3(dir, dir);
        if (dd <= ORCA_PARALLEL_SINE2) {
            /* Parallel: plane j is a constant on this plane, so cur's
             * violation is every point's; dd is too small to divide by. */
            if (g.d - dot3(g.n, cur) > slack)
                return 0;
            continue;
        }
        /* The line where the planes meet, from its point nearest the
         * origin: base = a n_h + b n_g with base . n_h = d_h and
         * base . n_g = d_g; 1 - c^2 = dd > 0 guards the divisions. */
        const double c = dot3(h.n, g.n);
        const double a = (h.d - c * g.d) / dd;
        const double b = (g.d - c * h.d) / dd;
        const double inv_len = 1.0 / sqrt(dd);
        double base[3];
        for (int k = 0; k < 3; k++) {
            base[k] = a * h.n[k] + b * g.n[k];
            dir[k] *= inv_len;
        }
        if (!solve_line(planes, j, base, dir, speed, goal, cur))
            return 0;
    }
    memcpy(v, cur, sizeof cur);
    return 1;
}

/* Three dimensions: the best point of the ball meeting planes[0, count) in
 * order, into v. Returns count, or the first plane that could not be met
 * with those before it; v is then the optimum for the planes before. */
static uint32_t solve_space(const orca_plane *planes, uint32_t count,
                            double speed, const orca_goal *goal, double v[3]) {
    if (goal->along) {
        for (int k = 0; k < 3; k++)
            v[k] = speed * goal->at[k];
    } else {
        const double gg = dot3(goal->at, goal->at);
        /* gg > speed^2 >= 0 guards the division. */
        const double scale = gg > speed * speed ? speed / sqrt(gg) : 1.0;
        for (int k = 0; k < 3; k++)
            v[k] = scale * goal->at[k];
    }
    for (uint32_t i = 0; i < count; i++) {
        if (plane_gap(&planes[i], v) >= 0.0)
            continue;
        if (!solve_plane(planes, i, speed, goal, v))
            return i;
    }
    return count;
}

/* The fallback over planes[0, count), the first `hard` kept as they are,
 * from v, which meets planes[0, first): the v that makes the largest
 * violation of planes[hard, count) least. Builds each projected program in
 * scratch (at most count - 1 planes). */
static void solve_minimax(const orca_plane *planes, uint32_t count,
                          uint32_t hard, uint32_t first, double speed,
                          orca_plane *scratch, double v[3]) {
    memcpy(scratch, planes, hard * sizeof *planes);
    double worst = 0.0;
    for (uint32_t i = first; i < count; i++) {
        orca_half h;
        half_load(&planes[i], &h);
        if (!(h.d - dot3(h.n, v) > worst))
            continue;
        uint32_t m = hard;
        for (uint32_t j = hard; j < i; j++) {
            orca_half g;
            half_load(&planes[j], &g);
            double n[3];
            for (int k = 0; k < 3; k++)
                n[k] = g.n[k] - h.n[k];
            const double nn = dot3(n, n);
            /* Same direction: where i is violated by more than j, it stays
             * so, and nn is too small to divide by. */
            if (nn <= ORCA_PARALLEL_SINE2)
                continue;
            const double inv_len = 1.0 / sqrt(nn);
            for (int k = 0; k < 3; k++)
                n[k] *= inv_len;
            /* The plane's point nearest the origin, capped as in
             * store_plane. */
            const double d = clamp((g.d - h.d) * inv_len, -ORCA_FAR, ORCA_FAR);
            for (int k = 0; k < 3; k++) {
                scratch[m].point[k] = (float)(d * n[k]);
                scratch[m].normal[k] = (float)n[k];
            }
            m++;
        }
        orca_goal goal;
        memcpy(goal.at, h.n, sizeof goal.at);
        goal.along = 1;
        double cand[3];
        /* The program is feasible in exact arithmetic (v itself meets it);
         * when rounding says otherwise, v stands. */
        if (solve_space(scratch, m, speed, &goal, cand) == m)
            memcpy(v, cand, sizeof cand);
        worst = h.d - dot3(h.n, v);
    }
}

/* v into out as floats, pulled in when rounding leaves it beyond max speed
 * (len > speed > 0 guards the division). The floats are named one by one:
 * gcc 12's SLP vectoriser, given a loop that stores (float) x and reads it
 * back as a double, was seen to use x unrounded. */
static void store_within(const double v[3], float max_speed, float out[3]) {
    const double speed = (double)max_speed;
    double scale = 1.0;
    for (int attempt = 0; attempt < 3; attempt++) {
        const float x = (float)(v[0] * scale);
        const float y = (float)(v[1] * scale);
        const float z = (float)(v[2] * scale);
        /* The root, not its square: speed * speed may round up. */
        const double len = sqrt((double)x * (double)x + (double)y * (double)y +
                                (double)z * (double)z);
        if (len <= speed) {
            out[0] = x;
            out[1] = y;
            out[2] = z;
            return;
        }
        /* Each float is within half an ulp of its double: a second pass
         * 2^-20 further in always lands inside. */
        scale = scale * (speed / len) * (attempt ? 0.99999905 : 1.0);
    }
    out[0] = out[1] = out[2] = 0.0f; /* unreachable; keeps the promise */
}

void orca_solve_3d(const orca_plane *planes, uint32_t count, uint32_t hard,
                   float max_speed, const float preferred[3],
                   orca_plane *scratch, float out[3]) {
    out[0] = out[1] = out[2] = 0.0f;
    if (!(max_speed > 0.0f))
        return;
    if (hard > count)
        hard = count;
    const double speed = (double)max_speed;
    orca_goal goal;
    load3(preferred, goal.at);
    goal.along = 0;
    double v[3];
    const uint32_t failed = solve_space(planes, count, speed, &goal, v);
    if (failed < count) {
        if (failed < hard)
            solve_minimax(planes, hard, 0, failed, speed, scratch, v);
        else
            solve_minimax(planes, count, hard, failed, speed, scratch, v);
    }
    store_within(v, max_speed, out);
}
