/* SPDX-License-Identifier: MIT */
/*
 * What every behaviour kernel shares: an agent's context as the kernels
 * see it (the state before the step), offsets through the periodic box,
 * the live target agent, the desired velocity towards a point, and the
 * turn-rate wander term that the neighbour kernels and the recipe finish
 * both add. Below every kernel: it calls none of them.
 */
#include "steer.h"

#include <math.h>
#include <string.h>

#include "detmath.h"
#include "parallel.h"
#include "rng.h"

/* ------------------------------------------------------------------------ */
/* The agent context                                                        */
/* ------------------------------------------------------------------------ */

void steer_offset(const throng_world *w, const float from[3], const float to[3],
                  float out[3]) {
    for (int k = 0; k < 3; k++) {
        float d = k < w->dims ? to[k] - from[k] : 0.0f;
        if (w->boundary == THRONG_BOUNDARY_PERIODIC && k < w->dims)
            d = periodic_offset(d, w->box[k]);
        out[k] = d;
    }
}

int64_t steer_target_row(const throng_world *w, uint32_t row) {
    if (!w->behaviour_state)
        return -1;
    uint32_t ts = w->col.target_slot[row];
    if (ts == 0 || ts > w->slot_count)
        return -1;
    uint32_t slot = ts - 1;
    if (w->slots[slot].generation != w->col.target_gen[row])
        return -1;
    uint32_t dense = w->slot_dense[slot];
    return dense == SLOT_FREE ? -1 : (int64_t)dense;
}

/* Rows per chunk of steer_resolve_rows. */
#define RESOLVE_GRAIN 16384u

/* The scratch spares: the steering force takes the first (columns.c). */
#define RESOLVE_TARGET_SPARE 3
#define RESOLVE_GEN_SPARE 4
_Static_assert(GRID_PERMUTE_BATCH > RESOLVE_GEN_SPARE,
               "the resolved rows borrow two spares past the force's three");

static void resolve_chunk(void *ctx, uint32_t begin, uint32_t end, int thread) {
    (void)thread;
    const throng_world *w = ctx;
    const uint32_t *restrict slot = w->col.slot;
    const slot_entry *restrict slots = w->slots;
    if (w->target_rows) {
        /* steer_target_row() without a branch: slot = ts - 1 wraps for
         * ts = 0, so one unsigned test says ts != 0 && ts <= slot_count;
         * a row out of range reads slot 0 (there is one: count > 0) and
         * is refused all the same. */
        const uint32_t *restrict ts = w->col.target_slot;
        const uint32_t *restrict tg = w->col.target_gen;
        const uint32_t *restrict dense = w->slot_dense;
        const uint32_t slot_count = w->slot_count;
        int32_t *restrict rows = w->target_rows;
        for (uint32_t r = begin; r < end; r++) {
            const uint32_t s = ts[r] - 1u;
            const int in = s < slot_count;
            const uint32_t at = in ? s : 0u;
            const uint32_t d = dense[at];
            const int live =
                in & (slots[at].generation == tg[r]) & (d != SLOT_FREE);
            rows[r] = live ? (int32_t)d : -1;
        }
    }
    if (w->slot_gens) {
        uint32_t *restrict gens = w->slot_gens;
        for (uint32_t r = begin; r < end; r++)
            gens[r] = slots[slot[r]].generation;
    }
}

/* 1 when some group draws random numbers for its rows: a turn-rate
 * wander that turns, a projected-circle wander in its list, or ORCA's
 * nudge (velocity.c, for each row whose preferred velocity a line
 * forbids: nearly every row of a dense crowd, whose slots are in no
 * order, so reading each one's generation there missed the cache). A
 * wander that only cruises (neither turn rate nor change) draws for no
 * row but those whose rate is -0 or NaN, which may as well read the slot
 * table (steer_row_key() gives the same key either way). */
static int drawing_groups(const throng_world *w) {
    for (uint32_t g = 0; g < w->group_count; g++) {
        const group_kernel_params *k = &w->group_params[g];
        if (k->orca && k->orca_nudge > 0.0f)
            return 1;
        if (k->wander_w > 0.0f &&
            (k->wander_rate_max != 0.0f || k->wander_change != 0.0f))
            return 1;
        const group_record *rec = &w->groups[g];
        for (uint32_t b = 0; b < rec->behaviour_count; b++)
            if (rec->behaviours[b].kind == THRONG_BEHAVIOUR_WANDER_CIRCLE)
                return 1;
    }
    return 0;
}

/* Each row's target is three dependent reads away (its slot, the slot's
 * generation and row, the target's columns), and its own key one (its
 * slot's generation), all but the first in slot order, which is not cell
 * order: read in the behaviours (and the key in ORCA's nudge), every run
 * of lanes waits for them. Here they are read in one tight pass, where
 * the reads of many rows are in flight at once, and the behaviours and
 * the velocity stage then load them in cell order. */
void steer_resolve_rows(throng_world *w, parallel_sched *sched) {
    w->target_rows = NULL;
    w->slot_gens = NULL;
    if (w->count == 0 || !w->col.slot)
        return;
    if (w->behaviour_state)
        w->target_rows = w->spare4[RESOLVE_TARGET_SPARE];
    /* A canonical world keys the streams by host key (steer_row_key):
     * the lanes read it row by row rather than from resolved slots. */
    if (!w->canonical_order && drawing_groups(w))
        w->slot_gens = w->spare4[RESOLVE_GEN_SPARE];
    if (!w->target_rows && !w->slot_gens)
        return;
    parallel_rows(sched, w->count, RESOLVE_GRAIN, resolve_chunk, w);
    /* The rows a vector load may reach past the count: no target. */
    for (uint32_t r = w->count; r < w->count + COLUMN_PAD; r++) {
        if (w->target_rows)
            w->target_rows[r] = -1;
        if (w->slot_gens)
            w->slot_gens[r] = 0;
    }
}

void steer_resolve_end(throng_world *w) {
    w->target_rows = NULL;
    w->slot_gens = NULL;
}

/* ------------------------------------------------------------------------ */
/* Desired velocities and wander                                            */
/* ------------------------------------------------------------------------ */

/* v_desired = speed * x / |x|, or 0 when x is 0. Squares of a huge x
 * overflow; then x is first scaled by its largest component. */
void flock_desired_towards(const float x[3], float speed, float out[3]) {
    float len2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    if (len2 > 0.0f && len2 <= FLT_MAX) {
        float k = speed / sqrtf(len2);
        out[0] = x[0] * k;
        out[1] = x[1] * k;
        out[2] = x[2] * k;
        return;
    }
    float big = fabsf(x[0]);
    if (fabsf(x[1]) > big)
        big = fabsf(x[1]);
    if (fabsf(x[2]) > big)
        big = fabsf(x[2]);
    if (!(big > 0.0f) || !(big <= FLT_MAX)) {
        out[0] = out[1] = out[2] = 0.0f;
        return;
    }
    float u[3] = { x[0] / big, x[1] / big, x[2] / big };
    float k = speed / sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    out[0] = u[0] * k;
    out[1] = u[1] * k;
    out[2] = u[2] * k;
}

void flock_wander(const throng_world *w, uint32_t i, float m_dt,
                  const float v[3], float F[3]) {
    const group_kernel_params *k = &w->group_params[w->col.group[i]];
    float out[3];
    flock_wander_force(w, i, m_dt, v, out);
    for (int a = 0; a < 3; a++)
        F[a] += k->wander_w * out[a];
}

void flock_wander_force(const throng_world *w, uint32_t i, float m_dt,
                        const float v[3], float out[3]) {
    const group_kernel_params *k = &w->group_params[w->col.group[i]];
    const int three = w->dims == 3;
    /* Seed 000: the turn rate takes a random step and is clamped; the
     * desired velocity is the heading turned by it. */
    const float old_rate = w->col.wander_rate[i];
    float rate, sn, cs;
    if (wander_no_turn(k->wander_rate_max, k->wander_change, old_rate, &rate)) {
        sn = rate;
        cs = 1.0f;
    } else {
        const uint64_t agent = steer_row_key(w, i);
        rate =
            old_rate + k->wander_change * rng_symmetric(w->seed, agent, w->step,
                                                        RNG_STREAM_WANDER);
        rate = rate > k->wander_rate_max ? k->wander_rate_max : rate;
        rate = rate < -k->wander_rate_max ? -k->wander_rate_max : rate;
        detmath_sincosf(rate, &sn, &cs);
    }
    w->col.wander_rate[i] = rate;
    const float ws = k->wander_speed_factor *
                     w->col.max_speed[uniform_row(w, UNIFORM_MAX_SPEED, i)];
    const float f[3] = { w->col.fx[i], w->col.fy[i],
                         three ? w->col.fz[i] : 0.0f };
    float turned[3];
    if (three) {
        /* Rotate about up: f cos + (up x f) sin, f and up orthonormal. */
        const float u[3] = { w->col.ux[i], w->col.uy[i], w->col.uz[i] };
        const float uxf[3] = { u[1] * f[2] - u[2] * f[1],
                               u[2] * f[0] - u[0] * f[2],
                               u[0] * f[1] - u[1] * f[0] };
        for (int a = 0; a < 3; a++)
            turned[a] = f[a] * cs + uxf[a] * sn;
    } else {
        turned[0] = f[0] * cs - f[1] * sn;
        turned[1] = f[0] * sn + f[1] * cs;
        turned[2] = 0.0f;
    }
    for (int a = 0; a < 3; a++)
        out[a] = m_dt * (ws * turned[a] - v[a]);
}
