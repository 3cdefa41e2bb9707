/* SPDX-License-Identifier: MIT */
/*
 * The steer layer (steer.c): what every behaviour kernel shares. Scalar
 * code, so every kernel path computes these pieces identically.
 */
#ifndef THRONG_STEER_H
#define THRONG_STEER_H

#include "internal.h"

#include <math.h>

/* One agent as the behaviours see it: the state before the step. */
typedef struct steer_ctx {
    const throng_world *w;
    uint32_t row;
    int dims;
    float dt, m_dt; /* m_dt = mass / dt, as the flocking epilogue has it */
    float p[3], v[3];
    float f[3];    /* unit forward */
    float up[3];   /* unit up; (0, 0, 1) in 2D */
    float side[3]; /* forward x up */
    float mass, max_force, max_speed, radius;
    /* The live target agent's row (steer_target_row), when the caller
     * resolved it ahead; STEER_TARGET_UNKNOWN when not. */
    int64_t target;
} steer_ctx;

#define STEER_TARGET_UNKNOWN (-2)

/* Row `row`'s position, velocity, heading, up and side (forward x up), as
 * the kernels read them for an agent or its target: z is 0 in 2D, where
 * up is +z and side the heading turned clockwise. */
static inline void steer_load_frame(const throng_world *w, uint32_t row,
                                    float p[3], float v[3], float f[3],
                                    float up[3], float side[3]) {
    const agent_columns *c = &w->col;
    const int three = w->dims == 3;
    p[0] = c->px[row];
    p[1] = c->py[row];
    p[2] = three ? c->pz[row] : 0.0f;
    v[0] = c->vx[row];
    v[1] = c->vy[row];
    v[2] = three ? c->vz[row] : 0.0f;
    f[0] = c->fx[row];
    f[1] = c->fy[row];
    f[2] = three ? c->fz[row] : 0.0f;
    if (three) {
        up[0] = c->ux[row];
        up[1] = c->uy[row];
        up[2] = c->uz[row];
    } else {
        up[0] = up[1] = 0.0f;
        up[2] = 1.0f;
    }
    side[0] = f[1] * up[2] - f[2] * up[1];
    side[1] = f[2] * up[0] - f[0] * up[2];
    side[2] = f[0] * up[1] - f[1] * up[0];
}

/* Fills a context for row `row`. Inline: the recipe finish loads one
 * per agent per step. */
static inline __attribute__((always_inline)) void
steer_ctx_load(steer_ctx *a, const throng_world *w, uint32_t row, float dt) {
    const agent_columns *c = &w->col;
    a->w = w;
    a->row = row;
    a->dims = w->dims;
    a->dt = dt;
    a->mass = c->mass[uniform_row(w, UNIFORM_MASS, row)];
    a->m_dt = a->mass / dt;
    a->max_force = c->max_force[uniform_row(w, UNIFORM_MAX_FORCE, row)];
    a->max_speed = c->max_speed[uniform_row(w, UNIFORM_MAX_SPEED, row)];
    a->radius = c->radius[row];
    a->target = STEER_TARGET_UNKNOWN;
    steer_load_frame(w, row, a->p, a->v, a->f, a->up, a->side);
}

/* F = m_dt (v_d - v), the seed 000 form every behaviour ends with. */
static inline void steer_force(const steer_ctx *a, const float vd[3],
                               float F[3]) {
    for (int k = 0; k < 3; k++)
        F[k] = a->m_dt * (vd[k] - a->v[k]);
}

/* The offset from `from` to `to`, through the nearest periodic image in a
 * periodic world (z is 0 in 2D). */
void steer_offset(const throng_world *w, const float from[3], const float to[3],
                  float out[3]);

/* The live target agent of row `row`: its dense row, or -1 when it has
 * none or it was removed. */
int64_t steer_target_row(const throng_world *w, uint32_t row);

/* Fills the step scratch of resolved rows (internal.h: target_rows,
 * slot_gens) for the state the grid build left, in parallel, once the
 * slots' links are up to date; each stays NULL when no stage of the
 * step reads it (the behaviours; the generations, ORCA's nudge too).
 * steer_resolve_end() sets both to NULL again at the end of the step,
 * before the next grid build trades the spares they lie in. */
struct parallel_sched;
void steer_resolve_rows(throng_world *w, struct parallel_sched *sched);
void steer_resolve_end(throng_world *w);

/* steer_target_row(), from the step's resolved rows when there are. */
static inline int64_t steer_row_target(const throng_world *w, uint32_t row) {
    return w->target_rows ? (int64_t)w->target_rows[row]
                          : steer_target_row(w, row);
}

/* The key of row `row`'s random streams: its slot and the slot's
 * generation (from the step's resolved rows when there are); in a
 * canonical world (throng_world_set_canonical_order) its host key, when
 * it has one, so the draws do not depend on which slot the agent holds. */
static inline uint64_t steer_row_key(const throng_world *w, uint32_t row) {
    const uint32_t slot = w->col.slot[row];
    if (w->canonical_order && slot_host_key(w, slot) != 0)
        return slot_host_key(w, slot);
    const uint32_t gen =
        w->slot_gens ? w->slot_gens[row] : w->slots[slot].generation;
    return ((uint64_t)slot << 32) | gen;
}

/* The live target agent of the context's row: resolved ahead, or now. */
static inline int64_t steer_ctx_target(const steer_ctx *a) {
    return a->target != STEER_TARGET_UNKNOWN ? a->target
                                             : steer_row_target(a->w, a->row);
}

/* v_desired = speed * x / |x|, or 0 when x is 0. */
void flock_desired_towards(const float x[3], float speed, float out[3]);
/* Wander with no turn (turn rate limit and change both 0) is a cruise: the
 * random step is 0 * r, a zero, which leaves any rate but -0 as it was, and
 * the clamp to +-0 keeps only its sign, whatever r is. Sets *rate to the
 * next turn rate and returns 1 when that holds (sin and cos of it are then
 * the zero itself and 1, so neither the draw nor the sine is needed);
 * returns 0 when the draw decides (a rate of -0 or NaN, or a real turn). */
static inline int wander_no_turn(float rate_max, float change, float old_rate,
                                 float *rate) {
    if (rate_max != 0.0f || change != 0.0f || isnan(old_rate) ||
        (old_rate == 0.0f && signbit(old_rate)))
        return 0;
    *rate = old_rate < 0.0f ? -0.0f : 0.0f;
    return 1;
}

/* Adds wander's weighted force for row i to F and advances its state. */
void flock_wander(const throng_world *w, uint32_t i, float m_dt,
                  const float v[3], float F[3]);
/* Wander's unweighted force for row i; advances its state. */
void flock_wander_force(const throng_world *w, uint32_t i, float m_dt,
                        const float v[3], float out[3]);

#endif /* THRONG_STEER_H */
