/* SPDX-License-Identifier: MIT */
/*
 * The agent family's kernels (steer_agent.c): seek, flee, arrive, pursue,
 * evade, offset pursuit, projected-circle wander, leader following and
 * unaligned collision avoidance's force.
 */
#ifndef THRONG_STEER_AGENT_H
#define THRONG_STEER_AGENT_H

#include "steer.h"
#include "steer_flock.h"

/* The projected-circle wander keeps its 2D angle in [-pi, pi] by one turn
 * of these (wander_circle_force() of steer_agent.c; the vector finish
 * wraps its lanes by the same values). */
#define AGENT_PI 3.14159265358979f
#define AGENT_TWO_PI 6.28318530717959f

/* Arrive at the point at offset x from the agent: seek
 * speed outside the braking distance (0: the default, see throng.h), the
 * ramp inside, never faster than d / dt; returns 0 (quiet) only when the
 * force would not be finite. Patrol uses it too. */
int steer_arrive(const steer_ctx *a, const float x[3], float speed,
                 float braking, throng_arrive_ramp ramp, float F[3]);

/* Arrive's default braking distance (seed 004's stopping distance plus one
 * step of travel, see steer_agent.c) for an agent of these limits: 0 when
 * it cannot move, infinity when it cannot accelerate. The vector finish
 * computes it per lane through this very function. */
float steer_default_braking(float mass, float max_force, float max_speed,
                            float dt);

/* The agent family's force for behaviour b (see steer_agent.c). `s`
 * holds what the neighbour walk saw (zeros when the group needs no walk). */
int steer_agent_force(const steer_ctx *a, const throng_behaviour *b,
                      const flock_sums *s, float F[3]);

#endif /* THRONG_STEER_AGENT_H */
