/* SPDX-License-Identifier: MIT */
/*
 * Optimal reciprocal collision avoidance in the plane (van den Berg, Guy,
 * Lin and Manocha, "Reciprocal n-body collision avoidance", 2011): the
 * half-plane of velocities one neighbour permits an agent, and the
 * velocity nearest a preferred one that every such half-plane permits.
 *
 * Pure functions of their arguments: no world, no allocation, no state.
 * Every result is the same bits on every machine: only + - * / and sqrtf
 * in a fixed order (the build forbids contraction into fused
 * multiply-adds), no trigonometry, no randomness.
 *
 * Side convention: a line permits the velocities v on its left, those with
 * det(direction, v - point) >= 0, where det(a, b) = a.x b.y - a.y b.x; its
 * inward normal is the direction turned a quarter to the left,
 * (-direction.y, direction.x). Directions are unit vectors.
 */
#ifndef THRONG_ORCA2D_H
#define THRONG_ORCA2D_H

#include <stdint.h>

/* The velocities v with det(direction, v - point) >= 0 (on the left of the
 * directed line through point along the unit vector direction). */
typedef struct orca_line {
    float point[2];
    float direction[2];
} orca_line;

/* The ORCA half-plane of agent A against neighbour B.
 *
 * rel_p = p_B - p_A, rel_v = v_A - v_B (current velocities), radius =
 * r_A + r_B (> 0), inv_tau = 1 / time horizon (> 0), inv_dt = 1 / time
 * step (> 0), share = A's part of the avoidance (0.5 reciprocal, 1 A
 * yields alone, 0 A never yields: the line passes through v_a; clamped to
 * [0, 1]), v_a = A's current velocity.
 *
 * Apart (|rel_p| > radius), the velocity obstacle is the cone from the
 * origin over the disc (rel_p, radius) cut off at the circle (rel_p
 * inv_tau, radius inv_tau); overlapping, it is the disc (rel_p inv_dt,
 * radius inv_dt): the velocities that leave the pair overlapping after one
 * step. u is the smallest change of rel_v that reaches the obstacle's
 * boundary, n the boundary's outward normal there; the line passes
 * through v_a + share u with inward normal n.
 *
 * tie: a unit vector taken as n when the pair overlaps and rel_v is the
 * disc's centre (no direction to part along); the caller passes opposite
 * vectors to the two agents of a pair so that they part. When rel_v lies
 * on the cone's axis, equally far from both legs, the leg on the left of
 * rel_p is taken: for B, rel_p and rel_v are negated and its left leg is
 * A's right one, so the pair still passes on opposite sides.
 *
 * Finite for finite inputs while rel_p inv_tau and rel_p inv_dt stay
 * finite (positions and velocities up to 1e15 with inv_dt up to 1e6). */
void orca_agent_line_2d(const float rel_p[2], const float rel_v[2],
                        float radius, float inv_tau, float inv_dt, float share,
                        const float v_a[2], const float tie[2], orca_line *out);

/* The ORCA half-planes of agent A against n <= ORCA_PAIRS_BATCH
 * neighbours, pair i's inputs at index i of each array (tie: the x of a
 * tie along the x axis), into out[0 .. n): orca_agent_line_2d()'s lines
 * to the bit. The common case (apart, lengths neither tiny nor huge) is
 * computed in vector lanes, both of its branches and then a select, with
 * the same operations in the same order as the one-pair function; a pair
 * of any other case goes to that function. The arrays hold n rounded up
 * to ORCA_PAIRS_LANES readable entries (what the lanes past n compute
 * is dropped). */
#define ORCA_PAIRS_BATCH 16u
#define ORCA_PAIRS_LANES 4u
typedef struct orca_pairs_2d {
    const float *px, *py; /* rel_p */
    const float *vx, *vy; /* rel_v */
    const float *radius;
    const float *tie;
} orca_pairs_2d;
void orca_agent_lines_2d(const orca_pairs_2d *pairs, uint32_t n, float inv_tau,
                         float inv_dt, float share, const float v_a[2],
                         orca_line *out);

/* The velocity closest to `preferred` with |v| <= max_speed that every
 * line permits, into out, by incremental linear programs over the lines in
 * their order (the caller orders them nearest neighbour first).
 *
 * When none does, the one that keeps the first `hard` lines (static
 * obstacles) and makes the largest violation of the others, the distance
 * by which v lies on a line's forbidden side, as small as it can be. If
 * the hard lines alone leave no velocity, every line is treated as soft.
 *
 * scratch: room for `count` lines, overwritten. max_speed <= 0 (or NaN)
 * gives (0, 0). |out| <= max_speed always. */
void orca_solve_2d(const orca_line *lines, uint32_t count, uint32_t hard,
                   float max_speed, const float preferred[2],
                   orca_line *scratch, float out[2]);

/* orca_solve_2d() with no hard lines, from where its first phase stopped
 * (a caller that ran that phase itself, on vector lanes): `failed` <
 * count is the first line no velocity satisfies together with those
 * before it, and v the phase's velocity then, the best for lines[0 ..
 * failed), as orca_solve_2d() has it (so max_speed > 0). Its answer, bit
 * for bit, into out. */
void orca_solve_2d_rest(const orca_line *lines, uint32_t count, uint32_t failed,
                        float max_speed, const float v[2], orca_line *scratch,
                        float out[2]);

#endif /* THRONG_ORCA2D_H */
