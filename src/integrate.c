/* SPDX-License-Identifier: MIT */
/*
 * Integration: the vehicle model of seed 000, for every agent.
 *
 *     F  = truncate(F_h, max_force)
 *     a  = F / m
 *     v1 = truncate(v0 + a dt, max_speed)
 *     p1 = p0 + v1 dt          (at most +-FLT_MAX when unbounded)
 *     forward = v1 / |v1|, kept when v1 = 0
 *
 * with truncate(x, l) = x when |x| <= l, else (x / |x|) l. In 3D the up
 * vector is carried from step to step and re-orthogonalised against the new
 * forward, so the basis turns smoothly with the heading instead of snapping
 * to a world axis (a world axis only stands in when the heading passes
 * through the old up vector).
 *
 * The grid left the rows in cell order and the behaviours wrote each row's
 * force at that row, so this is a plain loop over contiguous arrays: each
 * row reads and writes only itself.
 *
 * This file is the scalar integration; its vector twin, integrate_simd.inc
 * (compiled per instruction set as integrate_sse2.c, _avx2.c, _avx512.c,
 * _neon.c and _wasm.c), takes whole vectors of rows and hands every row it
 * cannot take whole to integrate_row_2d/3d here, so both give the same
 * bits.
 */
#include "integrate.h"
#include <math.h>

#include "internal.h"
#include "check.h"
#include "parallel.h"
#include "agent.h"

#define INTEGRATE_GRAIN 8192u

/* The unit heading of a non-zero velocity. Squares of a tiny velocity are
 * subnormal or vanish, so those are first scaled by their largest
 * component. Returns 0 (and writes nothing) for the zero vector. */
static inline int heading(const float v[3], int dims, float f[3]) {
    float v2 = 0.0f;
    for (int a = 0; a < dims; a++)
        v2 += v[a] * v[a];
    if (v2 >= 1e-30f && v2 <= FLT_MAX) {
        float inv = 1.0f / sqrtf(v2);
        for (int a = 0; a < dims; a++)
            f[a] = v[a] * inv;
        return 1;
    }
    float big = 0.0f;
    for (int a = 0; a < dims; a++)
        big = fabsf(v[a]) > big ? fabsf(v[a]) : big;
    if (!(big > 0.0f))
        return 0;
    float u[3] = { 0.0f, 0.0f, 0.0f }, u2 = 0.0f;
    for (int a = 0; a < dims; a++) {
        u[a] = v[a] / big;
        u2 += u[a] * u[a];
    }
    float inv = 1.0f / sqrtf(u2);
    for (int a = 0; a < dims; a++)
        f[a] = u[a] * inv;
    return 1;
}

/* v = truncate(v0 + (F / m) dt, max_speed) in double, for a row whose
 * float velocity came out infinite or NaN: a mass below 1 / FLT_MAX makes
 * 1 / m infinite (and 0 * inf a NaN for a zero force component), and a
 * huge force or dt overflows F dt / m. In double none of these products
 * overflows, and the truncated velocity fits in a float again. Rows whose
 * float velocity is finite never come here, so their results do not
 * change. */
static void velocity_wide(float *v, const float *v0, const float *F, int dims,
                          float mass, float dt, float max_speed) {
    double w[3] = { 0.0, 0.0, 0.0 }, w2 = 0.0;
    for (int a = 0; a < dims; a++) {
        w[a] = (double)v0[a] + (double)F[a] / (double)mass * (double)dt;
        w2 += w[a] * w[a];
    }
    double limit = (double)max_speed;
    double k = w2 > limit * limit ? limit / sqrt(w2) : 1.0;
    for (int a = 0; a < dims; a++)
        v[a] = (float)(w[a] * k);
}

typedef struct integrate_ctx {
    throng_world *w;
    float dt;
} integrate_ctx;

void integrate_velocity_2d(const throng_world *w, uint32_t i, float dt,
                           float v[2]) {
    const agent_columns *c = &w->col;
    const float mass = c->mass[uniform_row(w, UNIFORM_MASS, i)];
    const float max_force = c->max_force[uniform_row(w, UNIFORM_MAX_FORCE, i)];
    const float max_speed = c->max_speed[uniform_row(w, UNIFORM_MAX_SPEED, i)];
    float F[2] = { w->steer_x[i], w->steer_y[i] };
    float f2 = F[0] * F[0] + F[1] * F[1];
    if (!(f2 == f2) || !is_finite_float(F[0]) || !is_finite_float(F[1])) {
        F[0] = F[1] = 0.0f; /* no direction to keep */
        f2 = 0.0f;
    }
    truncate_vec(F, 2, f2, max_force);
    const float inv_m = 1.0f / mass;
    v[0] = c->vx[i] + (F[0] * inv_m) * dt;
    v[1] = c->vy[i] + (F[1] * inv_m) * dt;
    if (is_finite_float(v[0]) && is_finite_float(v[1])) {
        truncate_vec(v, 2, v[0] * v[0] + v[1] * v[1], max_speed);
    } else {
        const float v0[2] = { c->vx[i], c->vy[i] };
        velocity_wide(v, v0, F, 2, mass, dt, max_speed);
    }
}

void integrate_place_2d(throng_world *w, uint32_t i, float dt,
                        const float v[2]) {
    agent_columns *c = &w->col;
    float x = c->px[i] + v[0] * dt, y = c->py[i] + v[1] * dt;
    if (w->boundary == THRONG_BOUNDARY_PERIODIC) {
        x = periodic_wrap(x, w->box[0]);
        y = periodic_wrap(y, w->box[1]);
    } else {
        x = saturate(x);
        y = saturate(y);
    }
    c->px[i] = x;
    c->py[i] = y;
    c->vx[i] = v[0];
    c->vy[i] = v[1];
    float vv[3] = { v[0], v[1], 0.0f }, f[3];
    if (heading(vv, 2, f)) {
        c->fx[i] = f[0];
        c->fy[i] = f[1];
    }
}

void integrate_row_2d(throng_world *w, uint32_t i, float dt) {
    float v[2];
    integrate_velocity_2d(w, i, dt, v);
    integrate_place_2d(w, i, dt, v);
}

static void integrate_2d(void *ctx, uint32_t begin, uint32_t end, int thread) {
    (void)thread;
    integrate_ctx *ic = ctx;
    INVARIANT(begin <= end && end <= ic->w->count,
              "integrated rows lie below the agent count");
    if (ic->w->integrate_2d) {
        ic->w->integrate_2d(ic->w, begin, end, ic->dt);
        return;
    }
    for (uint32_t i = begin; i < end; i++)
        integrate_row_2d(ic->w, i, ic->dt);
}

void integrate_velocity_3d(const throng_world *w, uint32_t i, float dt,
                           float v[3]) {
    const agent_columns *c = &w->col;
    const float mass = c->mass[uniform_row(w, UNIFORM_MASS, i)];
    const float max_force = c->max_force[uniform_row(w, UNIFORM_MAX_FORCE, i)];
    const float max_speed = c->max_speed[uniform_row(w, UNIFORM_MAX_SPEED, i)];
    float F[3] = { w->steer_x[i], w->steer_y[i], w->steer_z[i] };
    if (!is_finite_float(F[0]) || !is_finite_float(F[1]) ||
        !is_finite_float(F[2]))
        F[0] = F[1] = F[2] = 0.0f;
    truncate_vec(F, 3, F[0] * F[0] + F[1] * F[1] + F[2] * F[2], max_force);
    const float inv_m = 1.0f / mass;
    v[0] = c->vx[i] + (F[0] * inv_m) * dt;
    v[1] = c->vy[i] + (F[1] * inv_m) * dt;
    v[2] = c->vz[i] + (F[2] * inv_m) * dt;
    if (is_finite_float(v[0]) && is_finite_float(v[1]) &&
        is_finite_float(v[2])) {
        truncate_vec(v, 3, v[0] * v[0] + v[1] * v[1] + v[2] * v[2], max_speed);
    } else {
        const float v0[3] = { c->vx[i], c->vy[i], c->vz[i] };
        velocity_wide(v, v0, F, 3, mass, dt, max_speed);
    }
}

void integrate_place_3d(throng_world *w, uint32_t i, float dt,
                        const float v[3]) {
    agent_columns *c = &w->col;
    const int periodic = w->boundary == THRONG_BOUNDARY_PERIODIC;
    float p[3] = { c->px[i] + v[0] * dt, c->py[i] + v[1] * dt,
                   c->pz[i] + v[2] * dt };
    for (int a = 0; a < 3; a++)
        p[a] = periodic ? periodic_wrap(p[a], w->box[a]) : saturate(p[a]);
    c->px[i] = p[0];
    c->py[i] = p[1];
    c->pz[i] = p[2];
    c->vx[i] = v[0];
    c->vy[i] = v[1];
    c->vz[i] = v[2];
    float f[3];
    if (heading(v, 3, f)) {
        const float old_up[3] = { c->ux[i], c->uy[i], c->uz[i] };
        basis_store_3d(c, i, f, old_up);
    }
}

void integrate_row_3d(throng_world *w, uint32_t i, float dt) {
    float v[3];
    integrate_velocity_3d(w, i, dt, v);
    integrate_place_3d(w, i, dt, v);
}

static void integrate_3d(void *ctx, uint32_t begin, uint32_t end, int thread) {
    (void)thread;
    integrate_ctx *ic = ctx;
    INVARIANT(begin <= end && end <= ic->w->count,
              "integrated rows lie below the agent count");
    if (ic->w->integrate_3d) {
        ic->w->integrate_3d(ic->w, begin, end, ic->dt);
        return;
    }
    for (uint32_t i = begin; i < end; i++)
        integrate_row_3d(ic->w, i, ic->dt);
}

void integrate(throng_world *w, parallel_sched *sched, float dt) {
    /* The forces are the behaviours' output for these very rows, and
     * the time step is one tick of a checked dt. */
    INVARIANT(w->count == 0 || (w->steer_x && w->steer_y),
              "integration has a force for every row");
    INVARIANT(w->dims == 2 || w->count == 0 || w->steer_z,
              "a 3D integration has a z force");
    INVARIANT(dt > 0.0f && is_finite_float(dt), "the tick is > 0 and finite");
    integrate_ctx ctx = { .w = w, .dt = dt };
    parallel_rows(sched, w->count, INTEGRATE_GRAIN,
                  w->dims == 3 ? integrate_3d : integrate_2d, &ctx);
}
