/* SPDX-License-Identifier: MIT */
/*
 * Optimal reciprocal collision avoidance in three dimensions (van den Berg,
 * Guy, Lin and Manocha, "Reciprocal n-body collision avoidance", 2011): the
 * half-space of velocities each neighbour or obstacle permits an agent, and
 * the small linear program that picks the permitted velocity nearest the
 * one the agent prefers.
 *
 * The module is pure: it reads its arguments, writes its outputs and knows
 * nothing of the world, so the step can call it from any thread and the
 * tests can check it alone. Velocity space is metres per second
 * throughout. Internally every quantity is a double, computed by a fixed
 * sequence of IEEE additions, multiplications, divisions and square roots
 * (no fused multiply-add, no library function but sqrt, which IEEE rounds
 * exactly): the results are the same bits on every machine, and finite
 * float inputs of any size stay far from overflow. The geometry and the
 * program are spelled out in orca3d.c.
 */
#ifndef THRONG_ORCA3D_H
#define THRONG_ORCA3D_H

#include <stdint.h>

/* A half-space of permitted velocities: v with dot(v - point, normal) >= 0.
 * The normal is unit as built here; the solver accepts any length (a zero
 * normal permits every velocity). */
typedef struct orca_plane {
    float point[3];
    float normal[3];
} orca_plane;

/* The ORCA half-space of agent A against neighbour B.
 * rel_p = p_B - p_A, rel_v = v_A - v_B (current velocities), radius =
 * r_A + r_B (> 0), inv_tau = 1 / time horizon (> 0), inv_dt = 1 / time
 * step (> 0), share = A's share of the avoidance in [0, 1] (0.5
 * reciprocal, 1 yields fully, 0 never yields: the plane passes through
 * v_a), v_a = A's current velocity, tie = the unit vector A separates
 * along when the agents overlap and neither their relative position nor
 * their relative velocity gives a direction, and the side of the cone A
 * takes when the relative velocity lies on its axis; the caller passes
 * opposite vectors to the two agents of a pair. Two agents exactly on one
 * line, heading at each other, are each only slowed along it (the cap of
 * the cut-off ball is nearest, as in the paper) and can stall face to
 * face; a caller that minds nudges the preferred velocities aside. */
void orca_agent_plane_3d(const float rel_p[3], const float rel_v[3],
                         float radius, float inv_tau, float inv_dt, float share,
                         const float v_a[3], const float tie[3],
                         orca_plane *out);

/* A static sphere obstacle (centre c, radius R, the agent's own radius r):
 * rel_c = c - p_A, radius_sum = R + r; the half-space that keeps the agent
 * from reaching it within the obstacle horizon (share 1, obstacle velocity
 * 0). */
void orca_sphere_plane_3d(const float rel_c[3], float radius_sum,
                          float inv_tau_obst, float inv_dt, const float v_a[3],
                          const float tie[3], orca_plane *out);

/* The velocity closest to `preferred` with |v| <= max_speed satisfying
 * every plane, taken in the given order; the first `hard` planes (static
 * obstacles) are never relaxed. When no velocity satisfies all, the one
 * that keeps the hard planes and makes the largest violation of the
 * others (a distance in velocity space) smallest. When the hard planes
 * alone cannot all be met within max_speed, the one that makes their
 * largest violation smallest, the others set aside. scratch: the caller's
 * space for `count` planes, used by that fallback. max_speed <= 0 gives 0;
 * |out| <= max_speed always. */
void orca_solve_3d(const orca_plane *planes, uint32_t count, uint32_t hard,
                   float max_speed, const float preferred[3],
                   orca_plane *scratch, float out[3]);

#endif /* THRONG_ORCA3D_H */
