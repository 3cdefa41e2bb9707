/* SPDX-License-Identifier: MIT */
/*
 * The combination: the recipe finish folds every term of a row's group
 * into one steering force (the step's combine stage, run per row at the
 * end of the neighbour kernels' walk, so every kernel path shares it).
 *
 * A group's terms are its three flocking rules, its turn-rate wander and
 * its list, folded:
 *   weighted sum / weighted average: F = sum of w_i F_i over the terms in
 *   their fixed order (the average's weights were divided by their total
 *   when the recipe was set); every term is computed;
 *   priority (seed 003): the same sum in priority order, truncated to max
 *   force and stopped as soon as it reaches max force. A term after the
 *   stop is not computed at all, unless it advances its agent's state
 *   (turn-rate wander, projected-circle wander, patrol and path
 *   progress, a navigation field's arrival): those run every step whatever the combination keeps, in
 *   their fixed order, before the running sum, so the state and the
 *   forces are those of computing everything.
 */
#include "behaviour.h"
#include "combine.h"
#include "steer_agent.h"
#include "steer_env.h"
#include "steer_route.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The recipe finish                                                        */
/* ------------------------------------------------------------------------ */

/* Flocking term i (separation, alignment, cohesion or turn-rate wander),
 * as flock_finish() computes it, but unweighted; returns whether it is on.
 * Its weight is > 0 (the caller checks). */
static inline __attribute__((always_inline)) int
flocking_term(const throng_world *w, const group_kernel_params *k,
              const steer_ctx *a, const flock_sums *s, int i, float T[3]) {
    const float speed = k->speed_factor * a->max_speed;
    float vd[3];
    switch (i) {
    case TERM_SEPARATION: {
        int have = s->sep_n > 0;
        if (have) {
            float inv_n = 1.0f / (float)s->sep_n;
            float sign = k->sep_inverse ? inv_n : -inv_n;
            float x[3] = { s->sep[0] * sign, s->sep[1] * sign,
                           s->sep[2] * sign };
            flock_desired_towards(x, speed, vd);
        } else {
            vd[0] = vd[1] = vd[2] = 0.0f;
        }
        if (!have && k->sep_inverse)
            return 0;
        steer_force(a, vd, T);
        return 1;
    }
    case TERM_ALIGNMENT: {
        if (s->ali_n == 0)
            return 0;
        float inv_n = 1.0f / (float)s->ali_n;
        for (int d = 0; d < 3; d++)
            vd[d] = s->ali[d] * inv_n;
        steer_force(a, vd, T);
        return 1;
    }
    case TERM_COHESION: {
        if (s->coh_n == 0)
            return 0;
        float inv_n = 1.0f / (float)s->coh_n;
        float c[3] = { s->coh[0] * inv_n, s->coh[1] * inv_n,
                       s->coh[2] * inv_n };
        flock_desired_towards(c, speed, vd);
        steer_force(a, vd, T);
        return 1;
    }
    default:
        flock_wander_force(w, a->row, a->m_dt, a->v, T);
        return 1;
    }
}

/* List behaviour b's force; `run`, when not NULL, the obstacle
 * candidates shared by the run of rows being finished (steer_env.h). */
static int list_force(const steer_ctx *a, const throng_behaviour *b,
                      const flock_sums *s, env_run *run, float F[3]) {
    switch (behaviour_family(b->kind)) {
    case 1:
        return steer_agent_force(a, b, s, F);
    case 2:
        return steer_route_force(a, b, F);
    case 3:
        return steer_env_force_run(a, b, run, F);
    default:
        return 0;
    }
}

/* Whether behaviour kind advances its agent's state columns. */
static int kind_advances_state(throng_behaviour_kind kind) {
    return kind == THRONG_BEHAVIOUR_WANDER_CIRCLE ||
           kind == THRONG_BEHAVIOUR_PATROL ||
           kind == THRONG_BEHAVIOUR_FOLLOW_PATH ||
           kind == THRONG_BEHAVIOUR_FOLLOW_NAV;
}

/* Term i's unweighted force; returns whether it is on. */
static inline int term_force(const throng_world *w, const group_record *g,
                             const group_kernel_params *k, const steer_ctx *a,
                             const flock_sums *s, env_run *run, int i,
                             float T[3]) {
    if (i < TERM_LIST)
        return flocking_term(w, k, a, s, i, T);
    return list_force(a, &g->behaviours[i - TERM_LIST], s, run, T);
}

/* Row t's finish. `given`, when not NULL, holds separation, alignment and
 * cohesion as a vector path computed them; `wander`, when not NULL, the
 * turn-rate wander's force (steer_finish_rows computes a run's at once).
 * The wander is the first term that advances state and the others
 * advance none, so computing them earlier changes nothing. `run`, when
 * not NULL, holds the row. */
static void finish_row(const throng_world *w, uint32_t t, const flock_sums *s,
                       float dt, const finish_terms *given, const float *wander,
                       int64_t target, env_run *run) {
    const uint32_t group = w->col.group[t];
    const group_record *g = &w->groups[group];
    const group_kernel_params *k = &w->group_params[group];
    steer_ctx a;
    steer_ctx_load(&a, w, t, dt);
    a.target = target;

    const int priority = g->combine == THRONG_COMBINE_PRIORITY;
    const int terms = TERM_LIST + (int)g->behaviour_count;
    float T[TERM_MAX][3], wt[TERM_MAX];
    /* Per term: 0 not computed yet, 1 computed and quiet, 2 on. */
    uint8_t state[TERM_MAX] = { 0 };
    wt[TERM_SEPARATION] = k->sep_w;
    wt[TERM_ALIGNMENT] = k->ali_w;
    wt[TERM_COHESION] = k->coh_w;
    wt[TERM_WANDER] = k->wander_w;
    /* The whole list, a fixed size (copied inline; the entries past the
     * group's count are never read). */
    memcpy(wt + TERM_LIST, k->list_w, sizeof k->list_w);
    if (given)
        for (int i = TERM_SEPARATION; i <= TERM_COHESION; i++) {
            state[i] = given->state[i];
            memcpy(T[i], given->T[i], sizeof T[i]);
        }
    if (wander) {
        memcpy(T[TERM_WANDER], wander, sizeof T[TERM_WANDER]);
        state[TERM_WANDER] = 2;
    }
    /* Everything (weighted modes), or only what advances state (priority),
     * in the fixed term order. */
#define FLOCKING_TERM(i)                                                \
    do {                                                                \
        if (state[(i)] == 0 && wt[(i)] > 0.0f &&                        \
            (!priority || (i) == TERM_WANDER))                          \
            state[(i)] =                                                \
                (uint8_t)(1 + flocking_term(w, k, &a, s, (i), T[(i)])); \
    } while (0)
    /* One by one, so each call's switch folds away. */
    FLOCKING_TERM(TERM_SEPARATION);
    FLOCKING_TERM(TERM_ALIGNMENT);
    FLOCKING_TERM(TERM_COHESION);
    FLOCKING_TERM(TERM_WANDER);
#undef FLOCKING_TERM
    for (int i = TERM_LIST; i < terms; i++) {
        const throng_behaviour *b = &g->behaviours[i - TERM_LIST];
        if (wt[i] > 0.0f && (!priority || kind_advances_state(b->kind)))
            state[i] = (uint8_t)(1 + list_force(&a, b, s, run, T[i]));
    }

    float F[3] = { 0.0f, 0.0f, 0.0f };
    const float limit2 = a.max_force * a.max_force;
    for (int o = 0; o < k->term_count; o++) {
        int i = k->order[o];
        if (!(wt[i] > 0.0f))
            continue;
        if (state[i] == 0)
            state[i] = (uint8_t)(1 + term_force(w, g, k, &a, s, run, i, T[i]));
        if (state[i] != 2)
            continue;
        for (int d = 0; d < 3; d++)
            F[d] += wt[i] * T[i][d];
        if (!priority)
            continue;
        float f2 = F[0] * F[0] + F[1] * F[1] + F[2] * F[2];
        if (f2 >= limit2) {
            /* Seed 003: the running sum has reached the limit: truncate
             * and add nothing more. */
            float kf =
                f2 > 0.0f && f2 <= FLT_MAX ? a.max_force / sqrtf(f2) : 0.0f;
            for (int d = 0; d < 3; d++)
                F[d] *= kf;
            break;
        }
    }
    float *sx = w->steer_x, *sy = w->steer_y, *sz = w->steer_z;
    sx[t] = F[0];
    sy[t] = F[1];
    if (w->dims == 3)
        sz[t] = F[2];
}

void steer_finish_recipe(const throng_world *w, uint32_t t, const flock_sums *s,
                         float dt) {
    finish_row(w, t, s, dt, NULL, NULL, STEER_TARGET_UNKNOWN, NULL);
}

/* The most rows finished together: a run of the neighbour walk. */
#define FINISH_BATCH 64u

/* Rows [begin, end), at most FINISH_BATCH. */
static void finish_batch(const throng_world *w, uint32_t begin, uint32_t end,
                         const flock_sums *s, const finish_terms *given,
                         float dt, int recipes_only) {
    const agent_columns *c = &w->col;
    uint8_t skip[FINISH_BATCH] = { 0 }, wanders[FINISH_BATCH] = { 0 };
    int64_t target[FINISH_BATCH];
    float wf[FINISH_BATCH][3];
    /* The rows' slot entries (the wander's random stream is keyed by the
     * generation) and their targets' (steer_target_row) lie in slot
     * order, scattered over tables that need not fit in cache: ask for
     * them all before the first is needed, unless the step resolved them
     * into rows already (steer_resolve_rows). */
    int any_wander = 0, any_list = 0;
    const int ask_gens = !w->slot_gens, ask_targets = !w->target_rows;
    for (uint32_t t = begin; t < end; t++) {
        const uint32_t u = t - begin;
        const group_kernel_params *k = &w->group_params[c->group[t]];
        const uint32_t count = w->groups[c->group[t]].behaviour_count;
        skip[u] = (uint8_t)(recipes_only && !k->recipe);
        wanders[u] = (uint8_t)(!skip[u] && k->wander_w > 0.0f);
        target[u] = STEER_TARGET_UNKNOWN;
        if (skip[u])
            continue;
        if (wanders[u] && ask_gens)
            __builtin_prefetch(&w->slots[c->slot[t]]);
        any_wander |= wanders[u];
        any_list |= count > 0;
        if (count > 0 && w->behaviour_state && ask_targets) {
            uint32_t ts = c->target_slot[t];
            if (ts != 0 && ts <= w->slot_count) {
                __builtin_prefetch(&w->slots[ts - 1u]);
                __builtin_prefetch(&w->slot_dense[ts - 1u]);
            }
        }
    }
    /* The turn-rate wander of every row that has it, one row after
     * another with nothing in between: each is a long chain of dependent
     * operations (the random stream, the sine and cosine), and rows side
     * by side overlap theirs. */
    if (any_wander)
        for (uint32_t t = begin; t < end; t++) {
            const uint32_t u = t - begin;
            if (!wanders[u])
                continue;
            steer_ctx a;
            steer_ctx_load(&a, w, t, dt);
            flock_wander_force(w, t, a.m_dt, a.v, wf[u]);
        }
    /* By now the slot entries have arrived: the target agents' rows are
     * known, and their columns can be asked for in turn. */
    if (any_list && w->behaviour_state)
        for (uint32_t t = begin; t < end; t++) {
            const uint32_t u = t - begin;
            if (skip[u])
                continue;
            const int64_t r = steer_row_target(w, t);
            target[u] = r;
            if (r < 0)
                continue;
            __builtin_prefetch(&c->px[r]);
            __builtin_prefetch(&c->py[r]);
            __builtin_prefetch(&c->vx[r]);
            __builtin_prefetch(&c->vy[r]);
            __builtin_prefetch(&c->fx[r]);
            __builtin_prefetch(&c->fy[r]);
            if (w->dims == 3) {
                __builtin_prefetch(&c->pz[r]);
                __builtin_prefetch(&c->vz[r]);
                __builtin_prefetch(&c->fz[r]);
                __builtin_prefetch(&c->ux[r]);
                __builtin_prefetch(&c->uy[r]);
                __builtin_prefetch(&c->uz[r]);
            }
        }
    /* Obstacle avoidance queries the obstacle grid once per group of
     * nearby rows rather than once per row (filled as the rows ask). */
    env_run run;
    if (any_list)
        steer_env_run_begin(&run, begin, end);
    for (uint32_t t = begin; t < end; t++) {
        const uint32_t u = t - begin;
        if (!skip[u])
            finish_row(w, t, &s[u], dt, given ? &given[u] : NULL,
                       wanders[u] ? wf[u] : NULL, target[u],
                       any_list ? &run : NULL);
    }
}

void steer_finish_rows(const throng_world *w, uint32_t begin, uint32_t end,
                       const flock_sums *s, const finish_terms *given, float dt,
                       int recipes_only) {
    for (uint32_t t = begin; t < end; t += FINISH_BATCH) {
        uint32_t stop = end - t > FINISH_BATCH ? t + FINISH_BATCH : end;
        finish_batch(w, t, stop, s + (t - begin),
                     given ? given + (t - begin) : NULL, dt, recipes_only);
    }
}
