/*
 * Group behaviour lists and the recipe finish.
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
#include "busy.h"

#include <math.h>
#include <string.h>

#include "geometry.h"

int behaviour_family(throng_behaviour_kind kind) {
    switch (kind) {
    case THRONG_BEHAVIOUR_SEEK:
    case THRONG_BEHAVIOUR_FLEE:
    case THRONG_BEHAVIOUR_ARRIVE:
    case THRONG_BEHAVIOUR_PURSUE:
    case THRONG_BEHAVIOUR_EVADE:
    case THRONG_BEHAVIOUR_OFFSET_PURSUIT:
    case THRONG_BEHAVIOUR_WANDER_CIRCLE:
    case THRONG_BEHAVIOUR_FOLLOW_LEADER:
    case THRONG_BEHAVIOUR_AVOID_NEIGHBOURS:
        return 1;
    case THRONG_BEHAVIOUR_PATROL:
    case THRONG_BEHAVIOUR_FOLLOW_PATH:
    case THRONG_BEHAVIOUR_FOLLOW_FLOW:
        return 2;
    case THRONG_BEHAVIOUR_AVOID_OBSTACLES:
    case THRONG_BEHAVIOUR_CONTAIN:
    case THRONG_BEHAVIOUR_FOLLOW_WALL:
        return 3;
    }
    return 0;
}

throng_behaviour throng_behaviour_default(throng_behaviour_kind kind) {
    throng_behaviour b;
    memset(&b, 0, sizeof b);
    b.kind = kind;
    b.weight = 1.0f;
    b.priority = 0;
    b.speed_factor = 1.0f;
    switch (behaviour_family(kind)) {
    case 1: steer_agent_default(&b); break;
    case 2: steer_route_default(&b); break;
    case 3: steer_env_default(&b); break;
    default: break;
    }
    return b;
}

/* ------------------------------------------------------------------------ */
/* The group API                                                            */
/* ------------------------------------------------------------------------ */

static throng_status check_behaviour(throng_world *w, const char *fn,
                                     const throng_behaviour *b) {
    int family = behaviour_family(b->kind);
    if (!family)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: unknown behaviour kind %d", fn, (int)b->kind);
    if (!is_finite_float(b->weight) || !is_finite_float(b->speed_factor))
        return world_fail(w, THRONG_ERR_NOT_FINITE,
                          "%s: behaviour weight or speed_factor is not "
                          "finite",
                          fn);
    if (!(b->weight >= 0.0f))
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: behaviour weight must be >= 0, got %g", fn,
                          (double)b->weight);
    if (!(b->speed_factor >= 0.0f && b->speed_factor <= 1.0f))
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: behaviour speed_factor must be in [0, 1], got "
                          "%g",
                          fn, (double)b->speed_factor);
    switch (family) {
    case 1: return steer_agent_check(w, fn, b);
    case 2: return steer_route_check(w, fn, b);
    default: return steer_env_check(w, fn, b);
    }
}

/* Checks, then stores behaviour `index` (== count appends). */
static throng_status put_behaviour(throng_world *w, const char *fn,
                                   uint32_t group, uint32_t index,
                                   const throng_behaviour *b) {
    throng_status st = check_behaviour(w, fn, b);
    if (st != THRONG_OK)
        return st;
    if (world_enable_behaviour_state(w))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for the behaviour state of %u "
                          "agents",
                          fn, w->capacity);
    group_record *g = &w->groups[group];
    g->behaviours[index] = *b;
    if (index == g->behaviour_count)
        g->behaviour_count++;
    group_derive_params(w, group);
    return THRONG_OK;
}

throng_status throng_group_add_behaviour(throng_world *w, throng_group handle,
                                         const throng_behaviour *b,
                                         uint32_t *out_index) {
    WORLD_WRITE(w);
    static const char fn[] = "throng_group_add_behaviour";
    if (!w)
        return THRONG_ERR_NULL;
    if (!b)
        return world_fail(w, THRONG_ERR_NULL, "%s: behaviour is NULL", fn);
    uint32_t group = 0;
    throng_status st = check_group(w, fn, handle, &group);
    if (st != THRONG_OK)
        return st;
    uint32_t n = w->groups[group].behaviour_count;
    if (n >= THRONG_MAX_BEHAVIOURS)
        return world_fail(w, THRONG_ERR_CAPACITY,
                          "%s: group %u already has %u behaviours, the most "
                          "a group can hold",
                          fn, group, n);
    st = put_behaviour(w, fn, group, n, b);
    if (st == THRONG_OK && out_index)
        *out_index = n;
    return st;
}

throng_status throng_group_set_behaviour(throng_world *w, throng_group handle,
                                         uint32_t index,
                                         const throng_behaviour *b) {
    WORLD_WRITE(w);
    static const char fn[] = "throng_group_set_behaviour";
    if (!w)
        return THRONG_ERR_NULL;
    if (!b)
        return world_fail(w, THRONG_ERR_NULL, "%s: behaviour is NULL", fn);
    uint32_t group = 0;
    throng_status st = check_group(w, fn, handle, &group);
    if (st != THRONG_OK)
        return st;
    if (index >= w->groups[group].behaviour_count)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: group %u has %u behaviours, no index %u", fn,
                          group, w->groups[group].behaviour_count, index);
    return put_behaviour(w, fn, group, index, b);
}

throng_status throng_group_get_behaviour(const throng_world *cw,
                                         throng_group handle, uint32_t index,
                                         throng_behaviour *out) {
    WORLD_READ(cw);
    static const char fn[] = "throng_group_get_behaviour";
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!out)
        return world_fail(w, THRONG_ERR_NULL, "%s: out is NULL", fn);
    uint32_t group = 0;
    throng_status st = check_group(w, fn, handle, &group);
    if (st != THRONG_OK)
        return st;
    if (index >= w->groups[group].behaviour_count)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: group %u has %u behaviours, no index %u", fn,
                          group, w->groups[group].behaviour_count, index);
    *out = w->groups[group].behaviours[index];
    return THRONG_OK;
}

throng_status throng_group_behaviour_count(const throng_world *cw,
                                           throng_group handle, uint32_t *out) {
    WORLD_READ(cw);
    static const char fn[] = "throng_group_behaviour_count";
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!out)
        return world_fail(w, THRONG_ERR_NULL, "%s: out is NULL", fn);
    uint32_t group = 0;
    throng_status st = check_group(w, fn, handle, &group);
    if (st != THRONG_OK)
        return st;
    *out = w->groups[group].behaviour_count;
    return THRONG_OK;
}

throng_status throng_group_clear_behaviours(throng_world *w, throng_group handle) {
    WORLD_WRITE(w);
    if (!w)
        return THRONG_ERR_NULL;
    uint32_t group = 0;
    throng_status st =
        check_group(w, "throng_group_clear_behaviours", handle, &group);
    if (st != THRONG_OK)
        return st;
    w->groups[group].behaviour_count = 0;
    group_derive_params(w, group);
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* Derived constants                                                        */
/* ------------------------------------------------------------------------ */

/* Called by group_derive_params once the flocking constants are set; the
 * list weights join the seed 000 normalisation there (list_w holds them
 * already divided when the mode is the weighted average). */
void recipe_derive(throng_world *w, uint32_t group) {
    const group_record *g = &w->groups[group];
    group_kernel_params *k = &w->group_params[group];
    k->recipe = g->behaviour_count > 0 || g->combine == THRONG_COMBINE_PRIORITY;
    k->uca = 0;
    for (uint32_t i = 0; i < g->behaviour_count; i++) {
        const throng_behaviour *b = &g->behaviours[i];
        if (b->kind != THRONG_BEHAVIOUR_AVOID_NEIGHBOURS || !(k->list_w[i] > 0.0f))
            continue;
        float r = b->u.unaligned.radius > 0.0f ? b->u.unaligned.radius
                                               : w->neighbour_radius;
        /* One avoidance entry per group is meaningful; the last wins. */
        k->uca = 1;
        k->uca_r2 = r * r;
        k->uca_horizon = b->u.unaligned.horizon;
        k->uca_margin = b->u.unaligned.margin;
    }
    k->walk = k->sep_w > 0.0f || k->ali_w > 0.0f || k->coh_w > 0.0f || k->uca;

    /* Term order: fixed, or by priority (higher first, stable). */
    int32_t prio[TERM_MAX];
    int n = 0;
    prio[TERM_SEPARATION] = g->flocking.separation_priority;
    prio[TERM_ALIGNMENT] = g->flocking.alignment_priority;
    prio[TERM_COHESION] = g->flocking.cohesion_priority;
    prio[TERM_WANDER] = g->wander.priority;
    for (uint32_t i = 0; i < g->behaviour_count; i++)
        prio[TERM_LIST + i] = g->behaviours[i].priority;
    n = TERM_LIST + (int)g->behaviour_count;
    for (int i = 0; i < n; i++)
        k->order[i] = (uint8_t)i;
    if (g->combine == THRONG_COMBINE_PRIORITY)
        for (int i = 1; i < n; i++) { /* insertion sort: stable */
            uint8_t t = k->order[i];
            int j = i;
            while (j > 0 && prio[k->order[j - 1]] < prio[t]) {
                k->order[j] = k->order[j - 1];
                j--;
            }
            k->order[j] = t;
        }
    k->term_count = (uint8_t)n;
}

/* ------------------------------------------------------------------------ */
/* Shared pieces                                                            */
/* ------------------------------------------------------------------------ */

void steer_ctx_load(steer_ctx *a, const throng_world *w, uint32_t row,
                    float dt) {
    const agent_columns *c = &w->col;
    const int three = w->dims == 3;
    a->w = w;
    a->row = row;
    a->dims = w->dims;
    a->dt = dt;
    a->mass = c->mass[row];
    a->m_dt = a->mass / dt;
    a->max_force = c->max_force[row];
    a->max_speed = c->max_speed[row];
    a->radius = c->radius[row];
    a->p[0] = c->px[row];
    a->p[1] = c->py[row];
    a->p[2] = three ? c->pz[row] : 0.0f;
    a->v[0] = c->vx[row];
    a->v[1] = c->vy[row];
    a->v[2] = three ? c->vz[row] : 0.0f;
    a->f[0] = c->fx[row];
    a->f[1] = c->fy[row];
    a->f[2] = three ? c->fz[row] : 0.0f;
    if (three) {
        a->up[0] = c->ux[row];
        a->up[1] = c->uy[row];
        a->up[2] = c->uz[row];
    } else {
        a->up[0] = a->up[1] = 0.0f;
        a->up[2] = 1.0f;
    }
    a->side[0] = a->f[1] * a->up[2] - a->f[2] * a->up[1];
    a->side[1] = a->f[2] * a->up[0] - a->f[0] * a->up[2];
    a->side[2] = a->f[0] * a->up[1] - a->f[1] * a->up[0];
}

void steer_offset(const throng_world *w, const float from[3],
                  const float to[3], float out[3]) {
    for (int k = 0; k < 3; k++) {
        float d = k < w->dims ? to[k] - from[k] : 0.0f;
        if (w->boundary == THRONG_BOUNDARY_PERIODIC && k < w->dims) {
            float L = w->box[k];
            if (d > 0.5f * L)
                d -= L;
            else if (d < -0.5f * L)
                d += L;
        }
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
            float x[3] = {s->sep[0] * sign, s->sep[1] * sign, s->sep[2] * sign};
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
        float c[3] = {s->coh[0] * inv_n, s->coh[1] * inv_n, s->coh[2] * inv_n};
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
    case 1: return steer_agent_force(a, b, s, F);
    case 2: return steer_route_force(a, b, F);
    case 3: return steer_env_force(a, b, F);
    default: return 0;
    }
}

void steer_finish_recipe(const throng_world *w, uint32_t t,
                         const flock_sums *s, float dt) {
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

    float F[3] = {0.0f, 0.0f, 0.0f};
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
            float kf = f2 > 0.0f && f2 <= 3.402823466e38f
                           ? a.max_force / sqrtf(f2)
                           : 0.0f;
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
