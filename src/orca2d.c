/* SPDX-License-Identifier: MIT */
/*
 * Optimal reciprocal collision avoidance in the plane: the ORCA half-plane
 * of one agent against one neighbour, and the linear program that picks a
 * velocity from the half-planes of all its neighbours.
 *
 * The half-plane. The velocity obstacle of A against B for a time horizon
 * tau is the set of relative velocities that bring B's disc of radius
 * r_A + r_B to A's centre within tau: the cone from the origin over the
 * disc (rel_p, radius), cut off near the origin by the circle (rel_p / tau,
 * radius / tau). Its boundary is that arc and the two legs tangent to it,
 * and each piece has a region of the plane whose points are nearest to it:
 * the arc's is the cone from the cut-off centre, around the direction
 * toward the origin, of half-angle acos(radius / |rel_p|) (the angle at
 * the centre between the origin and a tangent point); the rest splits
 * between the legs along the axis rel_p. From the nearest boundary point
 * come u and the outward normal n. An overlapping pair uses the disc
 * (rel_p / dt, radius / dt) instead: outside it, the relative velocity
 * parts them within one step.
 *
 * The linear program. Phase one is incremental: start from the preferred
 * velocity pulled into the speed circle and take the lines in order; when
 * the current velocity breaks one, the best velocity for the lines so far
 * lies on that line, found by a one-dimensional program along it (an
 * interval cut from the circle's chord by each earlier line). Phase two
 * runs only when phase one meets a line it cannot satisfy: it minimises
 * the largest violation d over the soft lines, a linear program in (v, d)
 * solved the same incremental way. When a line's violation exceeds the
 * current d, the optimum moves onto the plane where d equals that line's
 * violation; there each earlier soft line's condition becomes "violate
 * this one no more than the new line", a half-plane whose boundary is the
 * line of equal violation, and the objective becomes "go furthest along
 * the new line's inward normal": a two-dimensional program again.
 *
 * Batches. An agent's half-planes against its neighbours are built
 * together (orca_agent_lines_2d()): the common case, apart with lengths
 * of plain size, runs in vector lanes, both sides of each branch and then
 * a select, each lane doing the one-pair function's operations in its
 * order (the build forbids fused multiply-adds, and IEEE division and
 * square root round the same in a vector), so the bits are the same; any
 * other pair takes the one-pair function.
 *
 * Robustness. Lengths and unit vectors divide a vector by its larger
 * component first when its squares would overflow or fall to subnormals;
 * lines are walked from the point nearest the origin, so a line given by a
 * far point still yields velocities of the circle's size; every division
 * is guarded where it is written. Lines closer than ORCA_PARALLEL to
 * parallel count as parallel.
 */
#include "orca2d.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* The squares of a vector whose larger component lies in this range
 * neither overflow (2 * 2^120 < FLT_MAX) nor fall to subnormals (2^-120 >
 * FLT_MIN), so its length is plain sqrtf(x x + y y). */
#define ORCA_PLAIN_MIN 0x1p-60f
#define ORCA_PLAIN_MAX 0x1p60f

/* Two unit directions are parallel when the sine of the angle between them
 * is at most this: crossing them would put the crossing 1e6 times their
 * gap away. Treating them as parallel misjudges a velocity at most
 * 2 max_speed * 1e-6 from the line, within the rounding of the rest. */
#define ORCA_PARALLEL 1e-6f

/* det(a, b) = a.x b.y - a.y b.x: positive when b lies left of a. */
static inline float orca_det(float ax, float ay, float bx, float by) {
    return ax * by - ay * bx;
}

static inline float orca_dot(float ax, float ay, float bx, float by) {
    return ax * bx + ay * by;
}

/* The unit vector along (x, y) into unit[] and the length; a zero vector
 * gives 0 and leaves unit[] alone (the caller's guard). */
static inline float orca_unit(float x, float y, float unit[2]) {
    const float ax = fabsf(x), ay = fabsf(y);
    const float big = ax > ay ? ax : ay;
    if (!(big > 0.0f))
        return 0.0f;
    if (big >= ORCA_PLAIN_MIN && big <= ORCA_PLAIN_MAX) {
        const float len = sqrtf(x * x + y * y); /* >= big > 0 */
        unit[0] = x / len;
        unit[1] = y / len;
        return len;
    }
    /* Divided by the larger component: one part is +-1, the other in
     * [-1, 1], so the squares are exact enough and len in [1, sqrt 2]. */
    const float sx = x / big, sy = y / big;
    const float len = sqrtf(sx * sx + sy * sy);
    unit[0] = sx / len;
    unit[1] = sy / len;
    return big * len;
}

/* |(x, y)|, by the same rule as orca_unit. */
static inline float orca_length(float x, float y) {
    const float ax = fabsf(x), ay = fabsf(y);
    const float big = ax > ay ? ax : ay;
    if (big >= ORCA_PLAIN_MIN && big <= ORCA_PLAIN_MAX)
        return sqrtf(x * x + y * y);
    if (!(big > 0.0f))
        return 0.0f;
    const float sx = x / big, sy = y / big;
    return big * sqrtf(sx * sx + sy * sy);
}

void orca_agent_line_2d(const float rel_p[2], const float rel_v[2],
                        float radius, float inv_tau, float inv_dt, float share,
                        const float v_a[2], const float tie[2],
                        orca_line *out) {
    /* A NaN share or radius counts as 0, like a negative one. */
    const float part = share > 0.0f ? (share < 1.0f ? share : 1.0f) : 0.0f;
    const float r = radius > 0.0f ? radius : 0.0f;
    float axis[2] = { 1.0f, 0.0f };
    const float dist = orca_unit(rel_p[0], rel_p[1], axis);
    float normal[2]; /* the obstacle's outward normal at the nearest point */
    float reach;     /* u = reach normal */
    if (dist > r) {
        /* Apart (dist > r >= 0, so axis is set and dist > 0). sin_half is
         * the sine of the cone's half-angle and the cosine of the arc
         * region's. */
        const float sin_half = r / dist;
        const float cut_r = r * inv_tau;
        const float wx = rel_v[0] - rel_p[0] * inv_tau;
        const float wy = rel_v[1] - rel_p[1] * inv_tau;
        float w_unit[2] = { 0.0f, 0.0f };
        const float w_len = orca_unit(wx, wy, w_unit);
        const float toward_origin = -orca_dot(wx, wy, axis[0], axis[1]);
        if (toward_origin > w_len * sin_half) {
            /* The arc's region: toward_origin > 0 so w != 0 and w_unit is
             * set. */
            normal[0] = w_unit[0];
            normal[1] = w_unit[1];
            reach = cut_r - w_len;
        } else {
            /* A leg: the axis turned by the half-angle toward rel_v's
             * side (left on the axis itself, see orca2d.h). The legs go
             * through the origin, so u is minus rel_v's component along
             * the leg's normal. (1 - s)(1 + s) rather than 1 - s^2: no
             * cancellation when s is near 1. */
            const float cos_half = sqrtf((1.0f - sin_half) * (1.0f + sin_half));
            const float side = orca_det(axis[0], axis[1], rel_v[0], rel_v[1]);
            if (side >= 0.0f) {
                const float dx = axis[0] * cos_half - axis[1] * sin_half;
                const float dy = axis[0] * sin_half + axis[1] * cos_half;
                normal[0] = -dy; /* left of the left leg is outside */
                normal[1] = dx;
            } else {
                const float dx = axis[0] * cos_half + axis[1] * sin_half;
                const float dy = axis[1] * cos_half - axis[0] * sin_half;
                normal[0] = dy; /* right of the right leg is outside */
                normal[1] = -dx;
            }
            reach = -orca_dot(rel_v[0], rel_v[1], normal[0], normal[1]);
        }
    } else {
        /* Overlapping: leave the disc (rel_p / dt, r / dt) along w; w = 0
         * (rel_v its centre) gives no direction, the tie does (a zero
         * tie, against the contract, falls back to +x). */
        const float cut_r = r * inv_dt;
        const float wx = rel_v[0] - rel_p[0] * inv_dt;
        const float wy = rel_v[1] - rel_p[1] * inv_dt;
        const float w_len = orca_unit(wx, wy, normal);
        if (!(w_len > 0.0f)) {
            normal[0] = 1.0f;
            normal[1] = 0.0f;
            (void)orca_unit(tie[0], tie[1], normal);
        }
        reach = cut_r - w_len;
    }
    const float ux = reach * normal[0], uy = reach * normal[1];
    out->point[0] = v_a[0] + part * ux;
    out->point[1] = v_a[1] + part * uy;
    /* The permitted side is the one where the relative velocity leaves
     * the obstacle, +normal: the line's inward normal (its direction
     * turned left) is normal, so the direction is normal turned right. */
    out->direction[0] = normal[1];
    out->direction[1] = -normal[0];
}

/* det(direction, v - point): >= 0 where the line permits v; otherwise
 * minus v's violation of it (its distance into the forbidden side). */
static inline float orca_slack(const orca_line *line, float vx, float vy) {
    return orca_det(line->direction[0], line->direction[1], vx - line->point[0],
                    vy - line->point[1]);
}

/* What a program seeks: the velocity nearest (x, y), or (along) the one
 * furthest along the unit direction (x, y). */
typedef struct orca_goal {
    float x, y;
    int along;
} orca_goal;

/* The goal's best velocity on lines[index] inside the speed circle that
 * lines[0 .. index) permit, into v; 0 (v untouched) when there is none.
 *
 * The line is walked from its point nearest the origin, foot = offset *
 * (its inward normal), as foot + s direction: the circle leaves s in
 * [-half, half], and each earlier line's slack along it is base + s rate,
 * which bounds s from one side. */
static int orca_best_on_line(const orca_line *lines, uint32_t index,
                             float max_speed, orca_goal goal, float v[2]) {
    const orca_line *line = &lines[index];
    const float dx = line->direction[0], dy = line->direction[1];
    const float offset = orca_det(dx, dy, line->point[0], line->point[1]);
    const float reach = fabsf(offset);
    if (!(reach <= max_speed))
        return 0; /* the line misses the circle */
    const float foot_x = -dy * offset, foot_y = dx * offset;
    /* Both factors >= 0, no overflow: a chord's half-length. */
    const float half = sqrtf((max_speed - reach) * (max_speed + reach));
    float lo = -half, hi = half;
    for (uint32_t j = 0; j < index; j++) {
        const orca_line *other = &lines[j];
        const float ox = other->direction[0], oy = other->direction[1];
        const float rate = orca_det(ox, oy, dx, dy);
        const float base = orca_slack(other, foot_x, foot_y);
        if (fabsf(rate) <= ORCA_PARALLEL) {
            /* Parallel: the other line permits all of this one or none. */
            if (base < 0.0f)
                return 0;
            continue;
        }
        const float s = -base / rate; /* |rate| > ORCA_PARALLEL */
        if (rate > 0.0f) {
            if (s > lo)
                lo = s;
        } else if (s < hi) {
            hi = s;
        }
        if (lo > hi)
            return 0;
    }
    float s;
    if (goal.along) {
        s = orca_dot(goal.x, goal.y, dx, dy) >= 0.0f ? hi : lo;
    } else {
        s = orca_dot(dx, dy, goal.x - foot_x, goal.y - foot_y);
        s = s < lo ? lo : (s > hi ? hi : s);
    }
    v[0] = foot_x + s * dx;
    v[1] = foot_y + s * dy;
    return 1;
}

/* Phase one (and the two-dimensional step of phase two): the goal's best
 * velocity in the speed circle for lines[0 .. count), into v. Returns
 * count, or the index of the first line that no velocity satisfies
 * together with those before it; v is then the best for those before. */
static uint32_t orca_best_in_circle(const orca_line *lines, uint32_t count,
                                    float max_speed, orca_goal goal,
                                    float v[2]) {
    if (goal.along) {
        v[0] = goal.x * max_speed;
        v[1] = goal.y * max_speed;
    } else {
        float unit[2] = { 0.0f, 0.0f };
        const float len = orca_unit(goal.x, goal.y, unit);
        if (len > max_speed) { /* len > 0: unit is set */
            v[0] = unit[0] * max_speed;
            v[1] = unit[1] * max_speed;
        } else {
            v[0] = goal.x;
            v[1] = goal.y;
        }
    }
    for (uint32_t i = 0; i < count; i++)
        if (orca_slack(&lines[i], v[0], v[1]) < 0.0f &&
            !orca_best_on_line(lines, i, max_speed, goal, v))
            return i;
    return count;
}

/* Phase two: from v, the best of lines[0 .. first), the velocity of least
 * largest violation of lines[hard .. count) that keeps lines[0 .. hard),
 * into v. worst is the largest violation of the lines taken so far, at v.
 */
static void orca_least_violation(const orca_line *lines, uint32_t count,
                                 uint32_t hard, uint32_t first, float max_speed,
                                 orca_line *scratch, float v[2]) {
    float worst = 0.0f;
    for (uint32_t i = first; i < count; i++) {
        const orca_line *line = &lines[i];
        if (orca_slack(line, v[0], v[1]) >= -worst)
            continue;
        const float dx = line->direction[0], dy = line->direction[1];
        if (hard > 0u)
            memcpy(scratch, lines, hard * sizeof *lines);
        uint32_t n = hard;
        for (uint32_t j = hard; j < i; j++) {
            const orca_line *other = &lines[j];
            const float ox = other->direction[0], oy = other->direction[1];
            orca_line *equal = &scratch[n];
            const float rate = orca_det(ox, oy, dx, dy);
            if (fabsf(rate) <= ORCA_PARALLEL) {
                /* Facing the same way, j's violation minus i's is a
                 * constant, <= 0 here (j is within the old worst, i
                 * beyond it): no condition. Facing away, they violate
                 * equally on the line midway, and j's side of it is where
                 * j violates less. */
                if (orca_dot(ox, oy, dx, dy) > 0.0f)
                    continue;
                equal->point[0] = 0.5f * (line->point[0] + other->point[0]);
                equal->point[1] = 0.5f * (line->point[1] + other->point[1]);
                equal->direction[0] = ox;
                equal->direction[1] = oy;
            } else {
                /* Through their crossing, along d_j - d_i: there
                 * slack_j - slack_i = det(d_j - d_i, v - crossing), which
                 * is the new line's slack times |d_j - d_i| >= |rate|
                 * > ORCA_PARALLEL, so the unit vector exists. */
                const float s =
                    -orca_slack(other, line->point[0], line->point[1]) / rate;
                equal->point[0] = line->point[0] + s * dx;
                equal->point[1] = line->point[1] + s * dy;
                (void)orca_unit(ox - dx, oy - dy, equal->direction);
            }
            n++;
        }
        /* Furthest along line i's inward normal: least violation of it.
         * The program is feasible in exact arithmetic (the old v with d
         * raised to i's violation); when rounding says otherwise, v
         * stays. */
        const orca_goal goal = { -dy, dx, 1 };
        float w[2];
        if (orca_best_in_circle(scratch, n, max_speed, goal, w) == n) {
            v[0] = w[0];
            v[1] = w[1];
        }
        worst = -orca_slack(line, v[0], v[1]);
    }
}

/* The programs' velocity v into out: every velocity they give is on or
 * in the circle up to rounding; an ulp-long one is pulled back in
 * (len > max_speed > 0 guards the division), then shortened by an ulp
 * while the rounded length still exceeds. */
static void orca_pull_in(float v[2], float max_speed, float out[2]) {
    const float len = orca_length(v[0], v[1]);
    if (len > max_speed) {
        const float scale = max_speed / len;
        v[0] *= scale;
        v[1] *= scale;
        for (int k = 0; k < 4 && orca_length(v[0], v[1]) > max_speed; k++) {
            v[0] *= 1.0f - FLT_EPSILON;
            v[1] *= 1.0f - FLT_EPSILON;
        }
    }
    out[0] = v[0];
    out[1] = v[1];
}

void orca_solve_2d(const orca_line *lines, uint32_t count, uint32_t hard,
                   float max_speed, const float preferred[2],
                   orca_line *scratch, float out[2]) {
    if (!(max_speed > 0.0f)) { /* the circle is a point (NaN counts) */
        out[0] = 0.0f;
        out[1] = 0.0f;
        return;
    }
    const orca_goal goal = { preferred[0], preferred[1], 0 };
    float v[2];
    const uint32_t failed =
        orca_best_in_circle(lines, count, max_speed, goal, v);
    if (failed < count) {
        /* A hard line that cannot be kept with those before it: the hard
         * lines leave nothing, so all are soft. */
        const uint32_t keep = hard < count ? hard : count;
        orca_least_violation(lines, count, failed < keep ? 0u : keep, failed,
                             max_speed, scratch, v);
    }
    orca_pull_in(v, max_speed, out);
}

void orca_solve_2d_rest(const orca_line *lines, uint32_t count, uint32_t failed,
                        float max_speed, const float v[2], orca_line *scratch,
                        float out[2]) {
    float w[2] = { v[0], v[1] };
    orca_least_violation(lines, count, 0u, failed, max_speed, scratch, w);
    orca_pull_in(w, max_speed, out);
}

/* The lanes mirror orca_agent_line_2d() with axis = rel_p / dist, the
 * plain branch of orca_unit() (usual[] says the lane took it, for both
 * rel_p and w, and is apart). */
void orca_agent_lines_2d(const orca_pairs_2d *pairs, uint32_t n, float inv_tau,
                         float inv_dt, float share, const float v_a[2],
                         orca_line *out) {
    const float part = share > 0.0f ? (share < 1.0f ? share : 1.0f) : 0.0f;
    const float *restrict rpx = pairs->px, *restrict rpy = pairs->py;
    const float *restrict rvx = pairs->vx, *restrict rvy = pairs->vy;
    const float *restrict radius = pairs->radius;
    /* Whole vectors: the lanes past n compute on the inputs' padding and
     * are not copied out. */
    const uint32_t lanes =
        (n + ORCA_PAIRS_LANES - 1u) & ~(ORCA_PAIRS_LANES - 1u);
    float px_out[ORCA_PAIRS_BATCH], py_out[ORCA_PAIRS_BATCH];
    float dx_out[ORCA_PAIRS_BATCH], dy_out[ORCA_PAIRS_BATCH];
    /* Apart, with both vectors' lengths plain: the lanes' answer. */
    int usual[ORCA_PAIRS_BATCH] = { 0 };
#pragma omp simd
    for (uint32_t i = 0; i < lanes; i++) {
        const float x = rpx[i], y = rpy[i];
        const float vx = rvx[i], vy = rvy[i];
        const float r = radius[i] > 0.0f ? radius[i] : 0.0f;
        const float big = fabsf(x) > fabsf(y) ? fabsf(x) : fabsf(y);
        const float dist = sqrtf(x * x + y * y);
        const float ax = x / dist, ay = y / dist;
        const float sin_half = r / dist;
        const float cut_r = r * inv_tau;
        const float wx = vx - x * inv_tau, wy = vy - y * inv_tau;
        const float w_big = fabsf(wx) > fabsf(wy) ? fabsf(wx) : fabsf(wy);
        const float w_len = sqrtf(wx * wx + wy * wy);
        const float toward_origin = -(wx * ax + wy * ay);
        const int arc = toward_origin > w_len * sin_half;
        const float cos_half = sqrtf((1.0f - sin_half) * (1.0f + sin_half));
        const int left = ax * vy - ay * vx >= 0.0f;
        const float lx = ax * cos_half - ay * sin_half;
        const float ly = ax * sin_half + ay * cos_half;
        const float rx = ax * cos_half + ay * sin_half;
        const float ry = ay * cos_half - ax * sin_half;
        const float leg_x = left ? -ly : ry, leg_y = left ? lx : -rx;
        const float nx = arc ? wx / w_len : leg_x;
        const float ny = arc ? wy / w_len : leg_y;
        const float reach = arc ? cut_r - w_len : -(vx * leg_x + vy * leg_y);
        const float ux = reach * nx, uy = reach * ny;
        px_out[i] = v_a[0] + part * ux;
        py_out[i] = v_a[1] + part * uy;
        dx_out[i] = ny;
        dy_out[i] = -nx;
        usual[i] = (big >= ORCA_PLAIN_MIN) & (big <= ORCA_PLAIN_MAX) &
                   (dist > r) & (w_big >= ORCA_PLAIN_MIN) &
                   (w_big <= ORCA_PLAIN_MAX);
    }
    for (uint32_t i = 0; i < n; i++) {
        if (usual[i]) {
            out[i].point[0] = px_out[i];
            out[i].point[1] = py_out[i];
            out[i].direction[0] = dx_out[i];
            out[i].direction[1] = dy_out[i];
            continue;
        }
        const float rel_p[2] = { rpx[i], rpy[i] };
        const float rel_v[2] = { rvx[i], rvy[i] };
        const float tie[2] = { pairs->tie[i], 0.0f };
        orca_agent_line_2d(rel_p, rel_v, radius[i], inv_tau, inv_dt, share, v_a,
                           tie, &out[i]);
    }
}
