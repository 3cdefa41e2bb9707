/*
 * The combination: the recipe finish folds every term of a row's group
 * into one steering force (the step's combine stage, run per row at the
 * end of the neighbour kernels' walk, so every kernel path shares it).
 *
 * A group's terms are its three flocking rules, its turn-rate wander and
 * its list. Every term is computed for every agent each step (so state
 * such as a wander angle or path progress advances whatever the
 * combination keeps), then folded:
 *   weighted sum / weighted average: F = sum of w_i F_i over the terms in
 *   their fixed order (the average's weights were divided by their total
 *   when the recipe was set);
 *   priority (seed 003): the same sum in priority order, truncated to max
 *   force and stopped as soon as it reaches max force.
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

/* The flocking terms, as flock_finish() computes them, but each kept
 * apart and unweighted. */
static void flocking_terms(const throng_world *w, const group_kernel_params *k,
                           const steer_ctx *a, const flock_sums *s,
                           float T[][3], int on[]) {
    const float speed = k->speed_factor * a->max_speed;
    float vd[3];
    if (k->sep_w > 0.0f) {
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
        if (have || !k->sep_inverse) {
            steer_force(a, vd, T[TERM_SEPARATION]);
            on[TERM_SEPARATION] = 1;
        }
    }
    if (k->ali_w > 0.0f && s->ali_n > 0) {
        float inv_n = 1.0f / (float)s->ali_n;
        for (int d = 0; d < 3; d++)
            vd[d] = s->ali[d] * inv_n;
        steer_force(a, vd, T[TERM_ALIGNMENT]);
        on[TERM_ALIGNMENT] = 1;
    }
    if (k->coh_w > 0.0f && s->coh_n > 0) {
        float inv_n = 1.0f / (float)s->coh_n;
        float c[3] = { s->coh[0] * inv_n, s->coh[1] * inv_n,
                       s->coh[2] * inv_n };
        flock_desired_towards(c, speed, vd);
        steer_force(a, vd, T[TERM_COHESION]);
        on[TERM_COHESION] = 1;
    }
    if (k->wander_w > 0.0f) {
        flock_wander_force(w, a->row, a->m_dt, a->v, T[TERM_WANDER]);
        on[TERM_WANDER] = 1;
    }
}

static int list_force(const steer_ctx *a, const throng_behaviour *b,
                      const flock_sums *s, float F[3]) {
    switch (behaviour_family(b->kind)) {
    case 1:
        return steer_agent_force(a, b, s, F);
    case 2:
        return steer_route_force(a, b, F);
    case 3:
        return steer_env_force(a, b, F);
    default:
        return 0;
    }
}

void steer_finish_recipe(const throng_world *w, uint32_t t, const flock_sums *s,
                         float dt) {
    const uint32_t group = w->col.group[t];
    const group_record *g = &w->groups[group];
    const group_kernel_params *k = &w->group_params[group];
    steer_ctx a;
    steer_ctx_load(&a, w, t, dt);

    float T[TERM_MAX][3];
    int on[TERM_MAX];
    float wt[TERM_MAX];
    memset(on, 0, sizeof on);
    wt[TERM_SEPARATION] = k->sep_w;
    wt[TERM_ALIGNMENT] = k->ali_w;
    wt[TERM_COHESION] = k->coh_w;
    wt[TERM_WANDER] = k->wander_w;
    flocking_terms(w, k, &a, s, T, on);
    for (uint32_t i = 0; i < g->behaviour_count; i++) {
        wt[TERM_LIST + i] = k->list_w[i];
        if (k->list_w[i] > 0.0f)
            on[TERM_LIST + i] =
                list_force(&a, &g->behaviours[i], s, T[TERM_LIST + i]);
    }

    float F[3] = { 0.0f, 0.0f, 0.0f };
    const int priority = g->combine == THRONG_COMBINE_PRIORITY;
    const float limit2 = a.max_force * a.max_force;
    for (int o = 0; o < k->term_count; o++) {
        int i = k->order[o];
        if (!on[i])
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
