/* SPDX-License-Identifier: MIT */
/*
 * Behaviours of one agent towards a point or another agent: seek, flee,
 * arrive, pursue, evade, offset pursuit, projected-circle wander, leader
 * following, and the force of unaligned collision avoidance.
 *
 * Each kernel picks a desired velocity v_d and ends with seed 000's
 * F = m (v_d - v) / dt. They share three pieces: a safe length (offsets
 * between far-apart points can overflow when squared), seek's "v_d =
 * s_t x / |x|" (flock_desired_towards), and arrive's braking ramp, which
 * offset pursuit and leader following reuse. Every offset between two
 * points goes through steer_offset, so periodic worlds steer through the
 * nearest image.
 *
 * Degenerate inputs never produce NaN or infinity: a missing or removed
 * target agent, an agent standing on the point it seeks, or a force that
 * would not be finite make the behaviour quiet (return 0). Where a
 * direction is needed but the geometry has none, a basis vector stands
 * in: fleeing a point the agent stands on keeps it on its heading; a
 * follower exactly on its leader's path, or two agents predicted to meet
 * at one point, step aside along a side vector.
 */
#include "steer_agent.h"
#include "behaviour.h"

#include <math.h>
#include <string.h>

#include "detmath.h"
#include "rng.h"

/* ------------------------------------------------------------------------ */
/* Shared pieces                                                            */
/* ------------------------------------------------------------------------ */

/* All three finite: one test without branches (a kernel asks several
 * times per behaviour). */
static inline int finite3(const float x[3]) {
    return is_finite_float(x[0]) & is_finite_float(x[1]) &
           is_finite_float(x[2]);
}

/* |x|, or infinity when x is not finite. A square that overflows is
 * redone on x scaled by its largest component. */
static float length3(const float x[3]) {
    if (!finite3(x))
        return INFINITY;
    float len2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    if (len2 <= FLT_MAX)
        return sqrtf(len2);
    float big = fmaxf(fabsf(x[0]), fmaxf(fabsf(x[1]), fabsf(x[2])));
    float u[3] = { x[0] / big, x[1] / big, x[2] / big };
    return big * sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
}

/* Seed 000's force for v_d; quiet when it would not be finite (a huge
 * mass over a tiny dt). */
static int finish(const steer_ctx *a, const float vd[3], float F[3]) {
    if (!finite3(vd))
        return 0;
    steer_force(a, vd, F);
    if (!finite3(F)) {
        F[0] = F[1] = F[2] = 0.0f;
        return 0;
    }
    return 1;
}

/* v_d = s_t x / |x|; quiet when x has no direction or is not finite. */
static int seek_offset(const steer_ctx *a, const float x[3], float speed,
                       float F[3]) {
    if (!finite3(x) || (x[0] == 0.0f && x[1] == 0.0f && x[2] == 0.0f))
        return 0;
    float vd[3];
    flock_desired_towards(x, speed, vd);
    return finish(a, vd, F);
}

/* v_d = -s_t x / |x|; standing on the point, keep going along the
 * heading. */
static int flee_offset(const steer_ctx *a, const float x[3], float speed,
                       float F[3]) {
    if (!finite3(x))
        return 0;
    float vd[3];
    if (x[0] == 0.0f && x[1] == 0.0f && x[2] == 0.0f) {
        for (int k = 0; k < 3; k++)
            vd[k] = speed * a->f[k];
    } else {
        float away[3] = { -x[0], -x[1], -x[2] };
        flock_desired_towards(away, speed, vd);
    }
    return finish(a, vd, F);
}

/* Seed 004's braking distance v_max^2 / (2 a_max), a_max = max_force / m,
 * plus one step of travel v_max dt: a step-wise agent may find itself
 * inside D up to one step late, and without the margin it would pass the
 * target by up to v dt / 2 before coming back. An agent that cannot
 * accelerate can never stop in time: the distance is infinite and arrive
 * asks for no speed at all. */
float steer_default_braking(float mass, float max_force, float max_speed,
                            float dt) {
    if (!(max_speed > 0.0f))
        return 0.0f;
    if (!(max_force > 0.0f))
        return INFINITY;
    /* In double, where no product of floats can overflow. */
    double v = (double)max_speed;
    double D =
        v * v * (double)mass / (2.0 * (double)max_force) + v * (double)dt;
    return D <= (double)FLT_MAX ? (float)D : INFINITY;
}

static float default_braking(const steer_ctx *a) {
    return steer_default_braking(a->mass, a->max_force, a->max_speed, a->dt);
}

/* Arrive at the point at offset x: seek speed outside D; inside, s_t f(d /
 * D); never faster than d / dt, so one step cannot carry the agent past
 * the point; at the point, v_d = 0 (the agent brakes). */
int steer_arrive(const steer_ctx *a, const float x[3], float speed,
                 float braking, throng_arrive_ramp ramp, float F[3]) {
    float d = length3(x);
    if (!(d <= FLT_MAX)) /* farther than any float: just seek */
        return seek_offset(a, x, speed, F);
    float vd[3] = { 0.0f, 0.0f, 0.0f };
    if (d > 0.0f) {
        float D = braking > 0.0f ? braking : default_braking(a);
        float s = speed;
        if (d < D) {
            float r = d / D;
            s = ramp == THRONG_ARRIVE_LINEAR ? speed * r
                                             : speed * r * (3.0f - r) * 0.5f;
        }
        float cap = d / a->dt;
        s = s < cap ? s : cap;
        float k = s / d;
        for (int i = 0; i < 3; i++)
            vd[i] = x[i] * k;
    }
    return finish(a, vd, F);
}

/* The columns of another agent, as steer_ctx holds them for one's own. */
typedef struct other_agent {
    float p[3], v[3], f[3], up[3];
    float side[3]; /* forward x up: in 2D (fy, -fx), heading turned
                    * clockwise */
} other_agent;

static void load_other(const throng_world *w, uint32_t row, other_agent *o) {
    steer_load_frame(w, row, o->p, o->v, o->f, o->up, o->side);
}

/* Seed 004's look-ahead: the time to cover `distance` at max speed (none
 * for an agent that cannot move), capped at `cap` when that is > 0. */
static float auto_prediction(const steer_ctx *a, float distance, float cap) {
    float T = a->max_speed > 0.0f ? distance / a->max_speed : 0.0f;
    if (!(T <= FLT_MAX))
        T = FLT_MAX;
    if (cap > 0.0f && T > cap)
        T = cap;
    return T;
}

/* ------------------------------------------------------------------------ */
/* The kernels                                                              */
/* ------------------------------------------------------------------------ */

static void seek_target(const steer_ctx *a, const throng_seek_params *p,
                        float x[3]) {
    const throng_world *w = a->w;
    float t[3];
    if (p->source == THRONG_TARGET_FIXED_POINT) {
        t[0] = p->point[0];
        t[1] = p->point[1];
        t[2] = p->point[2];
    } else {
        t[0] = w->col.tx[a->row];
        t[1] = w->col.ty[a->row];
        t[2] = w->dims == 3 ? w->col.tz[a->row] : 0.0f;
    }
    steer_offset(w, a->p, t, x);
}

static int pursue_force(const steer_ctx *a, const throng_behaviour *b,
                        float speed, float F[3]) {
    const throng_pursue_params *p = &b->u.pursue;
    int64_t r = steer_ctx_target(a);
    if (r < 0)
        return 0;
    other_agent t;
    load_other(a->w, (uint32_t)r, &t);
    float x[3];
    steer_offset(a->w, a->p, t.p, x);
    float d = length3(x);
    if (b->kind == THRONG_BEHAVIOUR_EVADE && p->evade_range > 0.0f &&
        d > p->evade_range)
        return 0;
    float T = p->prediction_time > 0.0f
                  ? p->prediction_time
                  : auto_prediction(a, d, p->max_prediction);
    for (int k = 0; k < 3; k++)
        x[k] += t.v[k] * T;
    return b->kind == THRONG_BEHAVIOUR_EVADE ? flee_offset(a, x, speed, F)
                                             : seek_offset(a, x, speed, F);
}

/* Arrive at the target's predicted position plus the offset in its frame:
 * forward, side (forward x up; in 2D the heading turned clockwise) and up
 * (3D only). The target's frame is taken as it is now. */
static int offset_pursuit_force(const steer_ctx *a, const throng_behaviour *b,
                                float speed, float F[3]) {
    const throng_pursue_params *p = &b->u.pursue;
    int64_t r = steer_ctx_target(a);
    if (r < 0)
        return 0;
    other_agent t;
    load_other(a->w, (uint32_t)r, &t);
    const float up_amount = a->dims == 3 ? p->offset[2] : 0.0f;
    float x[3];
    steer_offset(a->w, a->p, t.p, x);
    for (int k = 0; k < 3; k++)
        x[k] += p->offset[0] * t.f[k] + p->offset[1] * t.side[k] +
                up_amount * t.up[k];
    float T = p->prediction_time > 0.0f
                  ? p->prediction_time
                  : auto_prediction(a, length3(x), p->max_prediction);
    for (int k = 0; k < 3; k++)
        x[k] += t.v[k] * T;
    return steer_arrive(a, x, speed, p->braking_distance, THRONG_ARRIVE_SMOOTH,
                        F);
}

/* Seeds 001/002: seek a point on a circle (sphere in 3D) ahead of the
 * agent; the point takes a random step each step. The new angle or point
 * is stored in the agent's own row, the only state it writes. */
static int wander_circle_force(const steer_ctx *a, const throng_behaviour *b,
                               float speed, float F[3]) {
    const throng_wander_circle_params *p = &b->u.wander;
    const throng_world *w = a->w;
    const uint32_t row = a->row;
    const uint64_t agent = steer_row_key(w, row);
    float c[3]; /* unit point on the circle or sphere, world frame */
    if (a->dims == 2) {
        float angle = w->col.wx[row];
        angle = is_finite_float(angle) ? angle : 0.0f;
        angle += p->jitter *
                 rng_symmetric(w->seed, agent, w->step, RNG_STREAM_CIRCLE_X);
        /* Keep the angle in [-pi, pi] so a long walk keeps its precision;
         * one turn suffices as jitter <= pi. */
        if (angle > AGENT_PI)
            angle -= AGENT_TWO_PI;
        else if (angle < -AGENT_PI)
            angle += AGENT_TWO_PI;
        w->col.wx[row] = angle;
        detmath_sincosf(angle, &c[1], &c[0]);
        c[2] = 0.0f;
    } else {
        float u[3] = { w->col.wx[row], w->col.wy[row], w->col.wz[row] };
        float len = length3(u);
        if (!(len > 0.0f && len <= FLT_MAX))
            memcpy(u, a->f, sizeof u); /* first step: straight ahead */
        static const uint32_t stream[3] = { RNG_STREAM_CIRCLE_X,
                                            RNG_STREAM_CIRCLE_Y,
                                            RNG_STREAM_CIRCLE_Z };
        for (int k = 0; k < 3; k++)
            u[k] +=
                p->jitter * rng_symmetric(w->seed, agent, w->step, stream[k]);
        len = length3(u);
        if (len > 0.0f && len <= FLT_MAX)
            for (int k = 0; k < 3; k++)
                c[k] = u[k] / len;
        else
            memcpy(c, a->f, sizeof c);
        w->col.wx[row] = c[0];
        w->col.wy[row] = c[1];
        w->col.wz[row] = c[2];
    }
    float x[3];
    for (int k = 0; k < 3; k++)
        x[k] = a->f[k] * p->distance + p->radius * c[k];
    /* The circle's point right behind the agent (radius = distance):
     * carry on ahead. */
    if (x[0] == 0.0f && x[1] == 0.0f && x[2] == 0.0f)
        memcpy(x, a->f, sizeof x);
    return seek_offset(a, x, speed, F);
}

/* Seed 004: arrive behind the leader, or, standing in the corridor ahead
 * of it, evade its predicted position to clear its way. */
static int follow_leader_force(const steer_ctx *a, const throng_behaviour *b,
                               float speed, float F[3]) {
    const throng_leader_params *p = &b->u.leader;
    int64_t r = steer_ctx_target(a);
    if (r < 0)
        return 0;
    other_agent l;
    load_other(a->w, (uint32_t)r, &l);
    float x[3]; /* from the follower to the leader */
    steer_offset(a->w, a->p, l.p, x);
    /* The follower relative to the leader is -x. */
    float along = -(x[0] * l.f[0] + x[1] * l.f[1] + x[2] * l.f[2]);
    float lateral[3];
    for (int k = 0; k < 3; k++)
        lateral[k] = -x[k] - along * l.f[k];
    const float off_axis = length3(lateral);
    if (along >= 0.0f && along <= p->clearance_length &&
        off_axis <= p->clearance_width) {
        if (off_axis == 0.0f) {
            /* Exactly on the leader's path, evading points straight down
             * it and the follower would hover at the corridor's front for
             * ever: step aside (to the leader's side vector) to break the
             * symmetry, then evade as usual. */
            return seek_offset(a, l.side, speed, F);
        }
        float T = auto_prediction(a, length3(x), 0.0f);
        for (int k = 0; k < 3; k++)
            x[k] += l.v[k] * T;
        return flee_offset(a, x, speed, F);
    }
    for (int k = 0; k < 3; k++)
        x[k] -= l.f[k] * p->behind;
    return steer_arrive(a, x, speed, p->braking_distance, THRONG_ARRIVE_SMOOTH,
                        F);
}

/* Seed 004: steer away from where the soonest threat will be, using what
 * the neighbour walk found. Both predicted to the same spot leaves no
 * direction: sidestep along the side vector. */
static int avoid_neighbours_force(const steer_ctx *a, const flock_sums *s,
                                  float speed, float F[3]) {
    if (s->uca_n == 0)
        return 0;
    const float *away = s->uca_away;
    if (away[0] == 0.0f && away[1] == 0.0f && away[2] == 0.0f)
        away = a->side;
    return seek_offset(a, away, speed, F);
}

/* Seek, flee and arrive: one target (seek_target), three answers to it. */
static int seek_family_force(const steer_ctx *a, const throng_behaviour *b,
                             float speed, float F[3]) {
    const throng_seek_params *sp = &b->u.seek;
    float x[3];
    seek_target(a, sp, x);
    if (b->kind == THRONG_BEHAVIOUR_SEEK)
        return seek_offset(a, x, speed, F);
    if (b->kind == THRONG_BEHAVIOUR_ARRIVE)
        return steer_arrive(a, x, speed, sp->braking_distance, sp->ramp, F);
    if (sp->flee_range > 0.0f && length3(x) > sp->flee_range)
        return 0;
    return flee_offset(a, x, speed, F);
}

int steer_agent_force(const steer_ctx *a, const throng_behaviour *b,
                      const flock_sums *s, float F[3]) {
    const float speed = b->speed_factor * a->max_speed;
    int on = 0;
    F[0] = F[1] = F[2] = 0.0f;
    switch (b->kind) {
    case THRONG_BEHAVIOUR_SEEK:
    case THRONG_BEHAVIOUR_FLEE:
    case THRONG_BEHAVIOUR_ARRIVE:
        on = seek_family_force(a, b, speed, F);
        break;
    case THRONG_BEHAVIOUR_PURSUE:
    case THRONG_BEHAVIOUR_EVADE:
        on = pursue_force(a, b, speed, F);
        break;
    case THRONG_BEHAVIOUR_OFFSET_PURSUIT:
        on = offset_pursuit_force(a, b, speed, F);
        break;
    case THRONG_BEHAVIOUR_WANDER_CIRCLE:
        on = wander_circle_force(a, b, speed, F);
        break;
    case THRONG_BEHAVIOUR_FOLLOW_LEADER:
        on = follow_leader_force(a, b, speed, F);
        break;
    case THRONG_BEHAVIOUR_AVOID_NEIGHBOURS:
        on = avoid_neighbours_force(a, s, speed, F);
        break;
    default:
        break;
    }
    if (!on)
        F[0] = F[1] = F[2] = 0.0f;
    return on;
}
