/*
 * The behaviour list of a group: per-agent force kernels, their validation
 * and defaults, and the recipe finish that folds every term of a group
 * into one force.
 *
 * Every behaviour is a function of one agent (a row of the columns, read
 * through a steer_ctx) that writes its unweighted force F = m (v_d - v) /
 * dt and returns 1, or returns 0 when it is quiet. A behaviour may update
 * its own agent's state columns (wander angle, progress) and nothing
 * else, so the step stays free of races. The families live in:
 *   steer_agent.c  seek, flee, arrive, pursue, evade, offset pursuit,
 *                  projected-circle wander, leader following, unaligned
 *                  collision avoidance (from the walk's sums)
 *   steer_route.c  paths, flow fields, patrol, path and flow following
 *   steer_env.c    obstacles, walls, obstacle avoidance, containment,
 *                  wall following
 */
#ifndef THRONG_BEHAVIOUR_H
#define THRONG_BEHAVIOUR_H

#include "steer_flock.h"

/* One agent as the behaviours see it: the state before the step. */
typedef struct steer_ctx {
    const throng_world *w;
    uint32_t row;
    int dims;
    float dt, m_dt; /* m_dt = mass / dt, as the flocking epilogue has it */
    float p[3], v[3];
    float f[3];     /* unit forward */
    float up[3];    /* unit up; (0, 0, 1) in 2D */
    float side[3];  /* forward x up */
    float mass, max_force, max_speed, radius;
} steer_ctx;

/* Fills a context for row `row`. */
void steer_ctx_load(steer_ctx *a, const throng_world *w, uint32_t row,
                    float dt);

/* F = m_dt (v_d - v), the seed 000 form every behaviour ends with. */
static inline void steer_force(const steer_ctx *a, const float vd[3],
                               float F[3]) {
    for (int k = 0; k < 3; k++)
        F[k] = a->m_dt * (vd[k] - a->v[k]);
}

/* The offset from `from` to `to`, through the nearest periodic image in a
 * periodic world (z is 0 in 2D). */
void steer_offset(const throng_world *w, const float from[3],
                  const float to[3], float out[3]);

/* The live target agent of row `row`: its dense row, or -1 when it has
 * none or it was removed. */
int64_t steer_target_row(const throng_world *w, uint32_t row);

/* Arrive at the point at offset x from the agent (steer_agent.c): seek
 * speed outside the braking distance (0: the default, see throng.h), the
 * ramp inside, never faster than d / dt; returns 0 (quiet) only when the
 * force would not be finite. Patrol uses it too. */
int steer_arrive(const steer_ctx *a, const float x[3], float speed,
                 float braking, throng_arrive_ramp ramp, float F[3]);

/* The families' forces (see the file comment). `s` holds what the
 * neighbour walk saw (zeros when the group needs no walk). */
int steer_agent_force(const steer_ctx *a, const throng_behaviour *b,
                      const flock_sums *s, float F[3]);
int steer_route_force(const steer_ctx *a, const throng_behaviour *b,
                      float F[3]);
int steer_env_force(const steer_ctx *a, const throng_behaviour *b,
                    float F[3]);

/* Which family a kind belongs to: 1 agent, 2 route, 3 env, 0 unknown. */
int behaviour_family(throng_behaviour_kind kind);

/* The recipe finish: computes every term of row t's group from the walk's
 * sums, combines them by the group's mode and writes the steer columns.
 * Scalar and shared by every kernel path. */
void steer_finish_recipe(const throng_world *w, uint32_t t,
                         const flock_sums *s, float dt);

/* Derives the recipe part of a group's kernel constants. */
void recipe_derive(throng_world *w, uint32_t group);

#endif /* THRONG_BEHAVIOUR_H */
