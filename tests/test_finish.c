/* SPDX-License-Identifier: MIT */
/*
 * The recipe finish against a reference that computes every term before
 * the running sum, as the finish once did: priority mode stops computing
 * terms once the budget is spent, and must give the same force and the
 * same state columns to the bit, whether the budget is reached at the
 * first term, later or never.
 *
 * The scenes are every2d and every3d (every behaviour kind, every combine
 * mode), stepped a few times so state columns hold values; then each row
 * is finished from random neighbour sums, once by the library and once by
 * the reference below, from the same state.
 */
#include <math.h>
#include <string.h>

#include "../bench/scenarios.h"
#include "agent.h"
#include "behaviour.h"
#include "columns.h"
#include "combine.h"
#include "core.h"
#include "grid.h"
#include "internal.h"
#include "kernel_paths.h"
#include "parallel.h"
#include "runner.h"
#include "steer.h"
#include "steer_agent.h"
#include "steer_env.h"
#include "steer_route.h"

/* ------------------------------------------------------------------------ */
/* The reference: every term, then the fold                                 */
/* ------------------------------------------------------------------------ */

static int ref_list_force(const steer_ctx *a, const throng_behaviour *b,
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

static void ref_finish(const throng_world *w, uint32_t t, const flock_sums *s,
                       float dt, float out[3]) {
    const uint32_t group = w->col.group[t];
    const group_record *g = &w->groups[group];
    const group_kernel_params *k = &w->group_params[group];
    steer_ctx a;
    steer_ctx_load(&a, w, t, dt);
    const float speed = k->speed_factor * a.max_speed;
    float T[TERM_MAX][3], wt[TERM_MAX], vd[3];
    int on[TERM_MAX];
    memset(on, 0, sizeof on);
    wt[TERM_SEPARATION] = k->sep_w;
    wt[TERM_ALIGNMENT] = k->ali_w;
    wt[TERM_COHESION] = k->coh_w;
    wt[TERM_WANDER] = k->wander_w;
    if (k->sep_w > 0.0f) {
        int have = s->sep_n > 0;
        vd[0] = vd[1] = vd[2] = 0.0f;
        if (have) {
            float inv_n = 1.0f / (float)s->sep_n;
            float sign = k->sep_inverse ? inv_n : -inv_n;
            float x[3] = { s->sep[0] * sign, s->sep[1] * sign,
                           s->sep[2] * sign };
            flock_desired_towards(x, speed, vd);
        }
        if (have || !k->sep_inverse) {
            steer_force(&a, vd, T[TERM_SEPARATION]);
            on[TERM_SEPARATION] = 1;
        }
    }
    if (k->ali_w > 0.0f && s->ali_n > 0) {
        float inv_n = 1.0f / (float)s->ali_n;
        for (int d = 0; d < 3; d++)
            vd[d] = s->ali[d] * inv_n;
        steer_force(&a, vd, T[TERM_ALIGNMENT]);
        on[TERM_ALIGNMENT] = 1;
    }
    if (k->coh_w > 0.0f && s->coh_n > 0) {
        float inv_n = 1.0f / (float)s->coh_n;
        float c[3] = { s->coh[0] * inv_n, s->coh[1] * inv_n,
                       s->coh[2] * inv_n };
        flock_desired_towards(c, speed, vd);
        steer_force(&a, vd, T[TERM_COHESION]);
        on[TERM_COHESION] = 1;
    }
    if (k->wander_w > 0.0f) {
        flock_wander_force(w, t, a.m_dt, a.v, T[TERM_WANDER]);
        on[TERM_WANDER] = 1;
    }
    for (uint32_t i = 0; i < g->behaviour_count; i++) {
        wt[TERM_LIST + i] = k->list_w[i];
        if (k->list_w[i] > 0.0f)
            on[TERM_LIST + i] =
                ref_list_force(&a, &g->behaviours[i], s, T[TERM_LIST + i]);
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
            float kf =
                f2 > 0.0f && f2 <= FLT_MAX ? a.max_force / sqrtf(f2) : 0.0f;
            for (int d = 0; d < 3; d++)
                F[d] *= kf;
            break;
        }
    }
    memcpy(out, F, sizeof F);
}

/* ------------------------------------------------------------------------ */
/* The comparison                                                           */
/* ------------------------------------------------------------------------ */

/* The state a term may write for row t. */
typedef struct row_state {
    float wander_rate, wx, wy, wz;
    uint32_t progress;
} row_state;

static row_state state_of(const throng_world *w, uint32_t t) {
    const agent_columns *c = &w->col;
    const int three = w->dims == 3;
    row_state r = { c->wander_rate[t], c->wx[t], three ? c->wy[t] : 0.0f,
                    three ? c->wz[t] : 0.0f, c->progress[t] };
    return r;
}

static void state_put(throng_world *w, uint32_t t, const row_state *r) {
    agent_columns *c = &w->col;
    c->wander_rate[t] = r->wander_rate;
    c->wx[t] = r->wx;
    if (w->dims == 3) {
        c->wy[t] = r->wy;
        c->wz[t] = r->wz;
    }
    c->progress[t] = r->progress;
}

static flock_sums random_sums(test_rng *rng, int dims) {
    flock_sums s;
    memset(&s, 0, sizeof s);
    s.sep_n = test_rng_below(rng, 4);
    s.ali_n = test_rng_below(rng, 4);
    s.coh_n = test_rng_below(rng, 4);
    for (int d = 0; d < dims; d++) {
        s.sep[d] = s.sep_n ? test_rng_range(rng, -2.0f, 2.0f) : 0.0f;
        s.ali[d] = s.ali_n ? test_rng_range(rng, -3.0f, 3.0f) : 0.0f;
        s.coh[d] = s.coh_n ? test_rng_range(rng, -2.0f, 2.0f) : 0.0f;
    }
    s.uca_n = test_rng_below(rng, 2);
    if (s.uca_n) {
        s.uca_t = test_rng_range(rng, 0.1f, 2.0f);
        for (int d = 0; d < dims; d++)
            s.uca_away[d] = test_rng_range(rng, -1.0f, 1.0f);
    }
    return s;
}

static int same_bits(float a, float b) {
    uint32_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

/* Every row of `w`, max force drawn so the priority budget is reached at
 * the first term, later, or never; returns the rows that differ. */
static uint32_t compare_rows(throng_world *w, test_rng *rng, float dt,
                             uint32_t *stopped_early) {
    uint32_t bad = 0;
    for (uint32_t t = 0; t < w->count; t++) {
        static const float budgets[] = { 1e-3f, 0.5f, 3.0f, 20.0f, 1e30f };
        w->col.max_force[t] = budgets[test_rng_below(rng, 5)];
        flock_sums s = random_sums(rng, w->dims);
        const row_state before = state_of(w, t);
        float ref[3] = { 0 };
        ref_finish(w, t, &s, dt, ref);
        const row_state ref_after = state_of(w, t);
        state_put(w, t, &before);
        steer_finish_recipe(w, t, &s, dt);
        const row_state after = state_of(w, t);
        int ok = same_bits(w->steer_x[t], ref[0]) &&
                 same_bits(w->steer_y[t], ref[1]) &&
                 (w->dims == 2 || same_bits(w->steer_z[t], ref[2])) &&
                 memcmp(&after, &ref_after, sizeof after) == 0;
        const group_record *g = &w->groups[w->col.group[t]];
        float f2 = ref[0] * ref[0] + ref[1] * ref[1] + ref[2] * ref[2];
        *stopped_early += g->combine == THRONG_COMBINE_PRIORITY &&
                          w->col.max_force[t] < 1.0f && f2 > 0.0f;
        if (!ok && bad++ < 3)
            runner_fail(__FILE__, __LINE__,
                        "row %u (group %u): (%.9g %.9g %.9g) vs reference "
                        "(%.9g %.9g %.9g)",
                        t, w->col.group[t], (double)w->steer_x[t],
                        (double)w->steer_y[t],
                        (double)(w->dims == 3 ? w->steer_z[t] : 0.0f),
                        (double)ref[0], (double)ref[1], (double)ref[2]);
    }
    return bad;
}

/* The columns a finish writes, for rows [begin, end). */
typedef struct rows_out {
    float F[64][3];
    row_state st[64];
} rows_out;

static void rows_read(const throng_world *w, uint32_t begin, uint32_t end,
                      rows_out *o) {
    for (uint32_t t = begin; t < end; t++) {
        o->F[t - begin][0] = w->steer_x[t];
        o->F[t - begin][1] = w->steer_y[t];
        o->F[t - begin][2] = w->dims == 3 ? w->steer_z[t] : 0.0f;
        o->st[t - begin] = state_of(w, t);
    }
}

/* steer_finish_rows over runs of up to 64 rows against the reference row
 * by row; with recipes_only, rows without a recipe keep their steer
 * columns and state. Returns the runs that differ. */
static uint32_t compare_runs(throng_world *w, test_rng *rng, float dt) {
    uint32_t bad = 0;
    for (uint32_t t = 0; t < w->count;) {
        uint32_t n = 1 + test_rng_below(rng, 64);
        uint32_t end = t + n < w->count ? t + n : w->count;
        const int recipes_only = (int)test_rng_below(rng, 2);
        flock_sums s[64];
        row_state before[64];
        for (uint32_t u = t; u < end; u++) {
            s[u - t] = random_sums(rng, w->dims);
            before[u - t] = state_of(w, u);
            w->steer_x[u] = w->steer_y[u] = -7.0f;
            if (w->dims == 3)
                w->steer_z[u] = -7.0f;
        }
        static rows_out want, got;
        for (uint32_t u = t; u < end; u++) {
            float F[3];
            if (recipes_only && !w->group_params[w->col.group[u]].recipe)
                continue;
            ref_finish(w, u, &s[u - t], dt, F);
            w->steer_x[u] = F[0];
            w->steer_y[u] = F[1];
            if (w->dims == 3)
                w->steer_z[u] = F[2];
        }
        rows_read(w, t, end, &want);
        for (uint32_t u = t; u < end; u++) {
            state_put(w, u, &before[u - t]);
            w->steer_x[u] = w->steer_y[u] = -7.0f;
            if (w->dims == 3)
                w->steer_z[u] = -7.0f;
        }
        steer_finish_rows(w, t, end, s, NULL, dt, recipes_only);
        rows_read(w, t, end, &got);
        if (memcmp(&want, &got, sizeof want) != 0 && bad++ < 3)
            runner_fail(__FILE__, __LINE__, "rows %u..%u (recipes only %d)", t,
                        end, recipes_only);
        t = end;
    }
    return bad;
}

static void check_scene(const char *name, int all_priority) {
    const scenario *sc = scenario_find(name);
    REQUIRE(sc);
    throng_world *w = NULL;
    REQUIRE_OK(sc->build(3000, 1, 7u, &w));
    REQUIRE(test_step_n(w, sc->dt, 3, name));
    REQUIRE(w->behaviour_state);
    /* compare_rows writes max force row by row: every row must be held. */
    REQUIRE(world_unfold_columns(w) == 0);
    if (all_priority)
        for (uint32_t g = 0; g < w->group_count; g++)
            REQUIRE_OK(throng_group_set_combine(w, first_group(w, g),
                                                THRONG_COMBINE_PRIORITY));
    test_rng rng = test_rng_make(all_priority ? 11u : 5u);
    uint32_t early = 0;
    CHECK_EQ_INT(compare_rows(w, &rng, sc->dt, &early), 0);
    /* The cases the priority path must get right were met. */
    CHECK(early > 100);
    CHECK_EQ_INT(compare_runs(w, &rng, sc->dt), 0);
    throng_world_destroy(w);
}

TEST(finish_matches_reference_2d) {
    check_scene("every2d", 0);
    check_scene("every2d", 1);
}

TEST(finish_matches_reference_3d) {
    check_scene("every3d", 0);
    check_scene("every3d", 1);
}

/* ------------------------------------------------------------------------ */
/* Every kernel path against the scalar one                                 */
/* ------------------------------------------------------------------------ */

/* Four recipe groups that walk (flocking plus a list, summed, averaged or
 * by priority, one with an inverse-distance separation and a view cone)
 * and a plain flocking group, interleaved so lanes mix them; targets are
 * other agents, some of them removed, and some agents have none (quiet
 * behaviours). The world's hash after `steps` steps on `path`. */
/* A one-thread world of `dims` dimensions with `seed` on kernel path
 * `path`, periodic in a cube of edge `box` when box > 0. Returns 2 with
 * the world in *out; 0 when it cannot be made and 1 when the path is not
 * on this CPU or build, the hashes the run_* builders below return then. */
static int finish_world(int dims, uint64_t seed, float box, const char *path,
                        throng_world **out) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = dims;
    d.threads = 1;
    d.seed = seed;
    if (box > 0.0f) {
        d.boundary = THRONG_BOUNDARY_PERIODIC;
        for (int k = 0; k < 3; k++)
            d.box_size[k] = box;
    }
    *out = NULL;
    if (throng_world_create(&d, out) != THRONG_OK)
        return 0;
    if (world_select_kernel(*out, path) != 0) {
        throng_world_destroy(*out);
        *out = NULL;
        return 1;
    }
    return 2;
}

static uint64_t run_recipes(int dims, const char *path, int steps) {
    throng_world *w = NULL;
    const int made = finish_world(dims, 31u, 0.0f, path, &w);
    if (made < 2)
        return (uint64_t)made;
    throng_group groups[5];
    throng_group_def g = throng_group_def_default();
    g.flocking.separation_weight = 1.5f;
    g.flocking.alignment_weight = 0.7f;
    g.flocking.cohesion_weight = 0.4f;
    g.wander.weight = 0.3f;
    int ok = throng_group_create(w, &g, &groups[0]) == THRONG_OK;
    static const throng_combine_mode modes[4] = {
        THRONG_COMBINE_WEIGHTED_SUM, THRONG_COMBINE_WEIGHTED_AVERAGE,
        THRONG_COMBINE_PRIORITY, THRONG_COMBINE_PRIORITY
    };
    static const throng_behaviour_kind kinds[4][2] = {
        { THRONG_BEHAVIOUR_PURSUE, THRONG_BEHAVIOUR_SEEK },
        { THRONG_BEHAVIOUR_FOLLOW_LEADER, THRONG_BEHAVIOUR_WANDER_CIRCLE },
        { THRONG_BEHAVIOUR_EVADE, THRONG_BEHAVIOUR_ARRIVE },
        { THRONG_BEHAVIOUR_OFFSET_PURSUIT, THRONG_BEHAVIOUR_FLEE },
    };
    for (int i = 0; i < 4 && ok; i++) {
        g.combine = modes[i];
        g.flocking.separation_priority = i;
        g.wander.priority = 2 - i;
        if (i == 3) {
            g.flocking.field_of_view = 2.5f;
            g.flocking.separation_mode = THRONG_SEPARATION_INVERSE_DISTANCE;
        }
        ok = throng_group_create(w, &g, &groups[1 + i]) == THRONG_OK;
        for (int b = 0; b < 2 && ok; b++) {
            throng_behaviour be = throng_behaviour_default(kinds[i][b]);
            be.priority = b;
            be.weight = 0.5f + (float)b;
            ok = throng_group_add_behaviour(w, groups[1 + i], &be, NULL) ==
                 THRONG_OK;
        }
    }
    test_rng rng = test_rng_make(17u);
    enum {
        AGENTS = 1200
    };
    static throng_agent h[AGENTS];
    for (int i = 0; i < AGENTS && ok; i++) {
        throng_agent_def a = throng_agent_def_default();
        for (int k = 0; k < dims; k++) {
            a.position[k] = test_rng_range(&rng, -5.0f, 5.0f);
            a.velocity[k] = test_rng_range(&rng, -0.7f, 0.7f);
        }
        a.max_force = test_rng_range(&rng, 0.05f, 4.0f);
        a.group = groups[i % 5];
        ok = throng_agent_add(w, &a, &h[i]) == THRONG_OK;
    }
    for (int i = 0; i < AGENTS && ok; i++) {
        if (i % 7 == 6)
            continue; /* no target */
        float p[3] = { test_rng_range(&rng, -4.0f, 4.0f),
                       test_rng_range(&rng, -4.0f, 4.0f),
                       dims == 3 ? test_rng_range(&rng, -4.0f, 4.0f) : 0.0f };
        ok = throng_agent_set_target_point(w, h[i], p) == THRONG_OK &&
             throng_agent_set_target_agent(
                 w, h[i],
                 h[((uint32_t)i + 1u + test_rng_below(&rng, AGENTS - 1)) %
                   AGENTS]) == THRONG_OK;
    }
    for (int s = 0; s < steps && ok; s++) {
        ok = throng_world_step(w, 0.05f) == THRONG_OK;
        if (s == steps / 3)
            for (int i = 0; i < AGENTS && ok; i += 11)
                ok = throng_agent_remove(w, h[i]) == THRONG_OK;
    }
    uint64_t hash = ok ? throng_world_hash(w) : 0;
    throng_world_destroy(w);
    return hash;
}

static uint64_t run_recipes_60(const void *dims, const char *simd) {
    return run_recipes(*(const int *)dims, simd, 60);
}

TEST(finish_paths_match_scalar) {
    for (int dims = 2; dims <= 3; dims++)
        runner_paths_match_scalar(__FILE__, __LINE__, dims == 2 ? "2D" : "3D",
                                  run_recipes_60, &dims);
}

/* ------------------------------------------------------------------------ */
/* Recipes the vector paths finish on their lanes                           */
/* ------------------------------------------------------------------------ */

/* One group of every combine mode at a time whose list the vector finish
 * takes (seek to a fixed point, flee and arrive to the agent's own point,
 * pursue, evade, offset pursuit and leader following of its target agent,
 * unaligned collision avoidance, the flocking rules, a wander that cruises
 * or turns in some) holds most agents, in runs of rows that fill the
 * lanes; a tenth are in a group whose list (wall following) it does not
 * take and a tenth in another it takes, so lanes mix groups. Some agents
 * stand on their target (arrive and flee at a zero offset), some targets
 * lie on the fixed point, limits differ per agent in some worlds, some
 * turn rates start at -0, and target agents are removed. Some worlds add
 * groups with a list and no neighbour rules, and plain groups with a
 * turning wander, in cells of their own. Some list the projected-circle
 * wander in groups 0, 2 and 3 (so in mixed lanes too), its points set
 * about the wrap and out of range. The world's hash after `steps` steps
 * on `path`. */
typedef struct lanes_world {
    int dims;
    throng_combine_mode mode;
    int periodic;
    int cruise;    /* a wander with no turn (the vector cruise) */
    int uniform;   /* one mass and max force for all agents */
    int inverse;   /* inverse-distance separation */
    int linear;    /* arrive's linear ramp, evade's fixed prediction */
    int pursuit;   /* pursue and evade listed with a weight */
    float braking; /* arrive's braking distance (0: the default) */
    int turn;      /* a turning wander in the listed groups, every quadrant */
    int no_walk;   /* groups with a list and no neighbour rules, and plain
                      groups with a turning wander, in a region of their own */
    int circle;    /* the projected-circle wander listed in groups 0, 2 and 3,
                      its points set near the wrap and out of range */
} lanes_world;

/* The projected-circle wander's entry for run_lanes(): the largest step
 * (the 2D angle wraps often) or the default, centred on the agent (no
 * distance ahead) or projected ahead. */
static throng_behaviour circle_entry(const lanes_world *cfg, int priority) {
    throng_behaviour be =
        throng_behaviour_default(THRONG_BEHAVIOUR_WANDER_CIRCLE);
    be.weight = 0.7f;
    be.priority = priority;
    be.speed_factor = 0.8f;
    be.u.wander.jitter = cfg->linear ? 3.14159f : 0.3f;
    be.u.wander.distance = cfg->braking > 0.0f ? 0.0f : 2.0f;
    be.u.wander.radius = cfg->uniform ? 2.0f : 1.0f;
    return be;
}

/* Circle points near the wrap (2D angles at about +-pi) and out of range:
 * angles that are not finite, 3D points at zero (the first step), not
 * finite, whose square overflows (the scalar kernel) or vanishes. */
static void circle_states(throng_world *w) {
#ifdef THRONG_VALIDATE
    /* The validation sweep refuses the NaN states before a step: a
     * VALIDATE=1 build starts from the states the API leaves. */
    (void)w;
    return;
#endif
    const float pi = 3.14159f;
    for (uint32_t t = 0; t < w->count; t++) {
        float *x = &w->col.wx[t], *y = &w->col.wy[t], *z = &w->col.wz[t];
        const uint32_t r = t % 11u;
        if (w->dims == 2) {
            static const float angle[7] = { 3.14159f, -3.14159f, 3.1f,    -3.1f,
                                            2.9f,     NAN,       INFINITY };
            if (r < 7)
                *x = angle[r];
            else if (r == 7)
                *x = t & 1u ? pi : -pi;
        } else if (r == 0) {
            *x = *y = *z = 0.0f;
        } else if (r == 1) {
            *x = NAN;
        } else if (r == 2) {
            *x = *y = *z = 1e30f;
        } else if (r == 3) {
            *x = -1e-30f;
            *y = *z = 1e-30f;
        } else if (r == 4) {
            *x = 0.6f;
            *y = -0.8f;
            *z = 0.0f;
        }
    }
}

/* After every 17th agent of h was removed: new agents take some of the
 * freed slots (one generation on), half the agents that targeted a removed
 * one now target its slot's new agent, and a few rows get target columns
 * the API never writes but steer_target_row() reads all the same: a slot
 * past the last (as a signed number, negative), a free slot at its current
 * generation, the agent's own slot. 1 when all went well. */
static int reuse_and_plant_targets(throng_world *w, throng_agent *h, int n,
                                   throng_group group, test_rng *rng) {
    int ok = 1;
    for (int i = 0; i < n && ok; i += 34) {
        throng_agent_def a = throng_agent_def_default();
        a.group = group;
        for (int k = 0; k < w->dims; k++) {
            a.position[k] = test_rng_range(rng, -5.0f, 5.0f);
            a.velocity[k] = test_rng_range(rng, -0.9f, 0.9f);
        }
        throng_agent old = h[i];
        ok =
            throng_agent_add(w, &a, &h[i]) == THRONG_OK &&
            throng_agent_set_target_agent(w, h[i], h[(i + 1) % n]) == THRONG_OK;
        for (int j = i + 1; j < n && ok; j += 2)
            if (j % 17 != 0 &&
                w->col.target_slot[w->slot_dense[h[j].slot - 1u]] == old.slot)
                ok = throng_agent_set_target_agent(w, h[j], h[i]) == THRONG_OK;
    }
#ifdef THRONG_VALIDATE
    /* The validation sweep refuses such columns before the step reads
     * them: a VALIDATE=1 build checks the reuse alone. */
    return ok;
#endif
    uint32_t free_slot = UINT32_MAX;
    for (uint32_t s = 0; s < w->slot_count; s++)
        if (w->slot_dense[s] == SLOT_FREE)
            free_slot = s;
    for (uint32_t t = 7; t < w->count && ok; t += 41) {
        uint32_t *ts = &w->col.target_slot[t], *tg = &w->col.target_gen[t];
        switch ((t / 41) % 5) {
        case 0:
            *ts = w->slot_count + 1u;
            break;
        case 1:
            *ts = 0x80000000u + (t & 1u);
            break;
        case 2:
            *ts = UINT32_MAX;
            break;
        case 3:
            if (free_slot != UINT32_MAX) {
                *ts = free_slot + 1u;
                *tg = w->slots[free_slot].generation;
            }
            break;
        default:
            *ts = w->col.slot[t] + 1u;
            *tg = w->slots[w->col.slot[t]].generation;
            break;
        }
    }
    return ok;
}

static uint64_t run_lanes(const lanes_world *cfg, const char *path, int steps) {
    const int dims = cfg->dims;
    /* The periodic box is [0, 12) along each axis; an unbounded crowd
     * stands off the origin, where the rare agents below stand alone. */
    const float o = cfg->periodic ? 6.0f : 15.0f;
    const float fixed[3] = { 1.0f + o, -2.0f + o, dims == 3 ? 0.5f + o : 0.0f };
    throng_world *w = NULL;
    const int made =
        finish_world(dims, 77u, cfg->periodic ? 12.0f : 0.0f, path, &w);
    if (made < 2)
        return (uint64_t)made;
    throng_group groups[8];
    throng_group_def g = throng_group_def_default();
    g.combine = cfg->mode;
    g.flocking.separation_weight = 1.5f;
    g.flocking.alignment_weight = 0.4f;
    g.flocking.cohesion_weight = 0.3f;
    g.flocking.separation_priority = 3;
    g.flocking.alignment_priority = -1;
    g.flocking.cohesion_priority = -2;
    if (cfg->inverse)
        g.flocking.separation_mode = THRONG_SEPARATION_INVERSE_DISTANCE;
    if (cfg->cruise) {
        g.wander.weight = 0.3f;
        g.wander.max_turn_rate = 0.0f;
        g.wander.max_turn_change = 0.0f;
        g.wander.priority = 1;
    }
    if (cfg->turn) {
        /* Rates that reach every quadrant of the sine and cosine. */
        g.wander.weight = 0.3f;
        g.wander.max_turn_rate = 3.1f;
        g.wander.max_turn_change = 1.3f;
        g.wander.priority = 1;
    }
    int ok = throng_group_create(w, &g, &groups[0]) == THRONG_OK;
    static const throng_behaviour_kind kinds[8] = {
        THRONG_BEHAVIOUR_AVOID_NEIGHBOURS, THRONG_BEHAVIOUR_SEEK,
        THRONG_BEHAVIOUR_ARRIVE,           THRONG_BEHAVIOUR_FLEE,
        THRONG_BEHAVIOUR_PURSUE,           THRONG_BEHAVIOUR_EVADE,
        THRONG_BEHAVIOUR_FOLLOW_LEADER,    THRONG_BEHAVIOUR_OFFSET_PURSUIT,
    };
    for (int b = 0; b < 8 && ok; b++) {
        throng_behaviour be = throng_behaviour_default(kinds[b]);
        be.priority = 4 - 2 * b;
        /* Without pursuit, pursue and evade are listed with weight 0:
         * never computed. */
        be.weight = b >= 4 && !cfg->pursuit ? 0.0f : 0.4f + 0.3f * (float)b;
        be.speed_factor = b < 7 ? 0.4f + 0.1f * (float)b : 0.95f;
        if (kinds[b] == THRONG_BEHAVIOUR_SEEK) {
            be.u.seek.source = THRONG_TARGET_FIXED_POINT;
            memcpy(be.u.seek.point, fixed, sizeof fixed);
        } else if (kinds[b] == THRONG_BEHAVIOUR_ARRIVE) {
            be.u.seek.braking_distance = cfg->braking;
            be.u.seek.ramp =
                cfg->linear ? THRONG_ARRIVE_LINEAR : THRONG_ARRIVE_SMOOTH;
        } else if (kinds[b] == THRONG_BEHAVIOUR_FLEE) {
            be.u.seek.flee_range = 3.0f;
        } else if (kinds[b] == THRONG_BEHAVIOUR_AVOID_NEIGHBOURS) {
            be.u.unaligned.horizon = 3.0f;
        } else if (kinds[b] == THRONG_BEHAVIOUR_FOLLOW_LEADER) {
            /* A wide corridor, so many followers stand in it. */
            be.u.leader.clearance_length = 4.0f;
            be.u.leader.clearance_width = 2.0f;
            be.u.leader.behind = cfg->linear ? 0.0f : 1.5f;
            be.u.leader.braking_distance = cfg->braking;
        } else if (kinds[b] == THRONG_BEHAVIOUR_PURSUE) {
            be.u.pursue.max_prediction = cfg->braking > 0.0f ? 0.7f : 0.0f;
        } else if (kinds[b] == THRONG_BEHAVIOUR_OFFSET_PURSUIT) {
            /* Behind, beside and above the target; a fixed or a capped
             * look-ahead, or none. */
            be.u.pursue.offset[0] = -1.0f;
            be.u.pursue.offset[1] = 0.5f;
            be.u.pursue.offset[2] = 0.3f;
            be.u.pursue.prediction_time = cfg->linear ? 0.4f : 0.0f;
            be.u.pursue.max_prediction =
                cfg->braking > 0.0f && !cfg->linear ? 0.7f : 0.0f;
            be.u.pursue.braking_distance = cfg->braking;
        } else {
            be.u.pursue.evade_range = 2.5f;
            be.u.pursue.prediction_time = cfg->linear ? 0.4f : 0.0f;
        }
        ok = throng_group_add_behaviour(w, groups[0], &be, NULL) == THRONG_OK;
    }
    g.combine = THRONG_COMBINE_WEIGHTED_SUM;
    ok = ok && throng_group_create(w, &g, &groups[1]) == THRONG_OK;
    throng_behaviour wall =
        throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_WALL);
    ok = ok &&
         throng_group_add_behaviour(w, groups[1], &wall, NULL) == THRONG_OK;
    /* A second group the vector finish takes, combined otherwise. */
    g.combine = cfg->mode == THRONG_COMBINE_PRIORITY
                    ? THRONG_COMBINE_WEIGHTED_AVERAGE
                    : THRONG_COMBINE_PRIORITY;
    ok = ok && throng_group_create(w, &g, &groups[2]) == THRONG_OK;
    for (int b = 0; b < 2 && ok; b++) {
        throng_behaviour be = throng_behaviour_default(
            b ? THRONG_BEHAVIOUR_AVOID_NEIGHBOURS : THRONG_BEHAVIOUR_ARRIVE);
        be.priority = b;
        be.weight = 0.8f + (float)b;
        ok = throng_group_add_behaviour(w, groups[2], &be, NULL) == THRONG_OK;
    }
    if (cfg->circle) {
        const throng_behaviour be0 = circle_entry(cfg, 1);
        const throng_behaviour be2 = circle_entry(cfg, 5);
        ok =
            ok &&
            throng_group_add_behaviour(w, groups[0], &be0, NULL) == THRONG_OK &&
            throng_group_add_behaviour(w, groups[2], &be2, NULL) == THRONG_OK;
    }
    /* Groups 3 to 5 have a list and no neighbour rules (the vector
     * paths finish them on the lanes from empty sums, but for group 5,
     * whose wall following has no lane form): pursue with a turning
     * wander, evade with a cruising one (combined by priority), offset
     * pursuit with wall following.
     * Groups 6 and 7 are plain flocking groups with a turning wander,
     * mixed in the lanes. */
    if (cfg->no_walk) {
        throng_group_def nw = throng_group_def_default();
        nw.combine = cfg->mode;
        nw.wander.weight = 0.5f;
        nw.wander.max_turn_rate = 2.0f;
        nw.wander.max_turn_change = 0.9f;
        static const throng_behaviour_kind listed[3] = {
            THRONG_BEHAVIOUR_PURSUE, THRONG_BEHAVIOUR_EVADE,
            THRONG_BEHAVIOUR_OFFSET_PURSUIT
        };
        for (int i = 0; i < 3 && ok; i++) {
            if (i == 1) {
                nw.combine = THRONG_COMBINE_PRIORITY;
                nw.wander.max_turn_rate = 0.0f;
                nw.wander.max_turn_change = 0.0f;
            }
            ok = throng_group_create(w, &nw, &groups[3 + i]) == THRONG_OK;
            throng_behaviour be = throng_behaviour_default(listed[i]);
            be.weight = 1.1f;
            be.priority = 1 - i;
            if (listed[i] == THRONG_BEHAVIOUR_EVADE)
                be.u.pursue.evade_range = 3.0f;
            ok = ok && throng_group_add_behaviour(w, groups[3 + i], &be,
                                                  NULL) == THRONG_OK;
            if (cfg->circle && i == 0) {
                const throng_behaviour circle = circle_entry(cfg, 2);
                ok = ok && throng_group_add_behaviour(w, groups[3], &circle,
                                                      NULL) == THRONG_OK;
            }
        }
        throng_behaviour wall_too =
            throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_WALL);
        ok = ok && throng_group_add_behaviour(w, groups[5], &wall_too, NULL) ==
                       THRONG_OK;
        throng_group_def plain = throng_group_def_default();
        plain.flocking.separation_weight = 1.2f;
        plain.flocking.cohesion_weight = 0.5f;
        plain.wander.weight = 0.6f;
        plain.wander.max_turn_rate = 3.0f;
        plain.wander.max_turn_change = 1.5f;
        ok = ok && throng_group_create(w, &plain, &groups[6]) == THRONG_OK;
        plain.wander.weight = 0.2f;
        plain.wander.speed_factor = 0.5f;
        ok = ok && throng_group_create(w, &plain, &groups[7]) == THRONG_OK;
    }
    test_rng rng = test_rng_make(23u + (uint64_t)cfg->mode);
    enum {
        AGENTS = 1500
    };
    static throng_agent h[AGENTS];
    static float start[AGENTS][3];
    for (int i = 0; i < AGENTS && ok; i++) {
        throng_agent_def a = throng_agent_def_default();
        for (int k = 0; k < dims; k++) {
            a.position[k] = o + test_rng_range(&rng, -5.0f, 5.0f);
            a.velocity[k] = test_rng_range(&rng, -0.9f, 0.9f);
            start[i][k] = a.position[k];
        }
        if (!cfg->uniform) {
            a.max_force = test_rng_range(&rng, 0.05f, 4.0f);
            a.mass = test_rng_range(&rng, 0.5f, 2.0f);
        }
        a.group = groups[i % 10 == 9 ? 1 : i % 10 == 8 ? 2 : 0];
        if (cfg->no_walk && i % 10 < 4) {
            /* Beside the crowd, whose cells they fill alone: runs of
             * rows that need no walk; a few plain rows among them. */
            static const int other[8] = { 3, 4, 3, 4, 5, 3, 6, 7 };
            a.group = groups[other[test_rng_below(&rng, 8)]];
            a.position[0] += cfg->periodic ? 0.0f : 11.0f;
        }
        if (!cfg->periodic && i < 5) {
            /* Rows 0 and 1 meet head on at one point (the avoidance's
             * away offset is zero: the scalar sidestep); rows 2 to 4
             * stand within 1e-30 m of their target at the origin (a
             * square that vanishes). All in the listed group. */
            memset(a.velocity, 0, sizeof a.velocity);
            a.group = groups[0];
            if (i < 2) {
                a.position[0] = i == 0 ? -20.0f : -19.2f;
                a.position[1] = -20.0f;
                a.position[2] = dims == 3 ? -20.0f : 0.0f;
                a.velocity[0] = i == 0 ? 1.0f : -1.0f;
            } else {
                a.position[0] = 1e-30f * (float)(i - 1);
                a.position[1] = -1e-30f;
                a.position[2] = 0.0f;
            }
            memcpy(start[i], a.position, sizeof start[i]);
        }
        ok = throng_agent_add(w, &a, &h[i]) == THRONG_OK;
    }
    for (int i = 0; i < AGENTS && ok; i++) {
        float p[3] = { o + test_rng_range(&rng, -4.0f, 4.0f),
                       o + test_rng_range(&rng, -4.0f, 4.0f),
                       dims == 3 ? o + test_rng_range(&rng, -4.0f, 4.0f)
                                 : 0.0f };
        if (!cfg->periodic && i >= 2 && i < 5)
            memset(p, 0, sizeof p);
        else if (i % 13 == 3) /* on the target: arrive and flee at zero */
            memcpy(p, start[i], sizeof p);
        else if (i % 13 == 7) /* the fixed point */
            memcpy(p, fixed, sizeof p);
        ok = throng_agent_set_target_point(w, h[i], p) == THRONG_OK &&
             throng_agent_set_target_agent(
                 w, h[i],
                 h[((uint32_t)i + 1u + test_rng_below(&rng, AGENTS - 1)) %
                   AGENTS]) == THRONG_OK;
    }
    /* Quiet agents: a turn rate of -0 takes the draw even where the
     * group does not turn, so such lanes mix with lanes that cruise. */
    for (uint32_t t = 0; t < w->count && ok; t += 3)
        w->col.wander_rate[t] = -0.0f;
    if (cfg->circle && ok)
        circle_states(w);
    for (int s = 0; s < steps && ok; s++) {
        ok = throng_world_step(w, 0.05f) == THRONG_OK;
        if (s == steps / 3)
            for (int i = 0; i < AGENTS && ok; i += 17)
                ok = throng_agent_remove(w, h[i]) == THRONG_OK;
        if (s == steps / 2 && ok)
            ok = reuse_and_plant_targets(w, h, AGENTS, groups[0], &rng);
    }
    uint64_t hash = ok ? throng_world_hash(w) : 0;
    throng_world_destroy(w);
    return hash;
}

/* 30 steps; in a short run (runner_short(): the sanitizers, where the
 * twenty worlds on every path were 48 s of CPU, and qemu-aarch64) 9: an
 * agent is still removed (step 3) and a slot reused with planted
 * targets (step 4) before the last steps, and every row still runs its
 * lanes on every step. The plain builds run 30. */
static uint64_t run_lanes_steps(const void *cfg, const char *simd) {
    return run_lanes(cfg, simd, runner_short() ? 9 : 30);
}

TEST(finish_lanes_match_scalar) {
    static const throng_combine_mode modes[3] = {
        THRONG_COMBINE_WEIGHTED_SUM, THRONG_COMBINE_WEIGHTED_AVERAGE,
        THRONG_COMBINE_PRIORITY
    };
    for (int v = 0; v < 20; v++) {
        /* Worlds 12 to 19 turn the wander and add the groups that need
         * no walk. */
        const int more = v >= 12;
        const lanes_world cfg = {
            .dims = 2 + (v & 1),
            .mode = modes[(v >> 1) % 3],
            .periodic = v % 5 == 2,
            .cruise = !more && v % 3 != 1,
            .turn = more && v % 4 != 3,
            .no_walk = more,
            .uniform = v % 4 == 3,
            .inverse = v % 3 == 2,
            .linear = v % 5 == 1,
            .pursuit = v % 4 != 0,
            .braking = v % 4 == 1 ? 2.5f : 0.0f,
            .circle = v % 4 != 2,
        };
        char what[64];
        snprintf(what, sizeof what, "world %d (%dD, mode %d)", v, cfg.dims,
                 (int)cfg.mode);
        runner_paths_match_scalar(__FILE__, __LINE__, what, run_lanes_steps,
                                  &cfg);
    }
}

/* ------------------------------------------------------------------------ */
/* Path following on the lanes                                              */
/* ------------------------------------------------------------------------ */

/* Path following finished on the lanes against the scalar finish: a
 * closed path (an irregular ring with a few very short segments, so the
 * point ahead lies several segments on, and where it wraps past the
 * start) and an open one (a zigzag, some agents beyond either end), in
 * 2D or 3D, bounded or periodic. Groups: the ring with a seek, the
 * zigzag and the ring in one list (they share the progress column, so
 * list order matters), and a group whose list the vector finish does not
 * take, plus a plain flocking one, interleaved so lanes mix groups. Some
 * agents stand on a path point with no velocity (at a segment's end),
 * many inside the corridor (quiet). The world's hash after `steps` steps
 * on `path`. */
typedef struct path_world {
    int dims;
    throng_combine_mode mode;
    int periodic;
    float ahead;      /* how far ahead to seek */
    float prediction; /* the prediction time */
    uint32_t window;
} path_world;

static uint64_t run_paths(const path_world *cfg, const char *path, int steps) {
    const int dims = cfg->dims;
    const float o = cfg->periodic ? 10.0f : 0.0f;
    throng_world *w = NULL;
    const int made =
        finish_world(dims, 91u, cfg->periodic ? 20.0f : 0.0f, path, &w);
    if (made < 2)
        return (uint64_t)made;
    test_rng rng = test_rng_make(41u + (uint64_t)cfg->mode);
    enum {
        RING = 40,
        ZIGZAG = 12,
        AGENTS = 1400
    };
    static float ring[RING][3], zigzag[ZIGZAG][3];
    for (int i = 0; i < RING; i++) {
        /* Every seventh segment a few millimetres long. */
        double angle =
            2.0 * 3.14159265358979 * (i - (i % 7 == 1) * 0.95) / RING;
        float r = 6.0f + test_rng_range(&rng, -1.0f, 1.0f);
        ring[i][0] = o + r * (float)cos(angle);
        ring[i][1] = o + r * (float)sin(angle);
        ring[i][2] = dims == 3 ? o + test_rng_range(&rng, -1.5f, 1.5f) : 0.0f;
    }
    for (int i = 0; i < ZIGZAG; i++) {
        zigzag[i][0] = o - 7.0f + 1.2f * (float)i;
        zigzag[i][1] = o + (i & 1 ? 2.0f : -2.0f);
        zigzag[i][2] = dims == 3 ? o + 0.3f * (float)i - 1.5f : 0.0f;
    }
    throng_object paths[2];
    throng_path_def pd = throng_path_def_default();
    pd.points = &ring[0][0];
    pd.point_count = RING;
    pd.radius = 0.6f;
    pd.closed = true;
    int ok = throng_path_add(w, &pd, &paths[0]) == THRONG_OK;
    pd.points = &zigzag[0][0];
    pd.point_count = ZIGZAG;
    pd.radius = 0.4f;
    pd.closed = false;
    ok = ok && throng_path_add(w, &pd, &paths[1]) == THRONG_OK;
    /* A field of random directions over the box, zero at some points. */
    static float vectors[6 * 6 * 6 * 3];
    for (int i = 0; i < 6 * 6 * 6 * dims; i++)
        vectors[i] = i % 11 == 4 ? 0.0f : test_rng_range(&rng, -1.0f, 1.0f);
    throng_flow_field_def fd = throng_flow_field_def_default();
    for (int k = 0; k < dims; k++)
        fd.origin[k] = o - 8.0f;
    fd.cell_size = 3.0f;
    fd.size[0] = fd.size[1] = fd.size[2] = 6;
    fd.vectors = vectors;
    throng_object field;
    ok = ok && throng_flow_field_add(w, &fd, &field) == THRONG_OK;

    throng_group groups[5];
    throng_group_def g = throng_group_def_default();
    g.combine = cfg->mode;
    g.flocking.separation_weight = 1.2f;
    g.flocking.alignment_weight = 0.3f;
    g.flocking.cohesion_weight = 0.2f;
    g.flocking.separation_mode = THRONG_SEPARATION_INVERSE_DISTANCE;
    g.flocking.separation_priority = 2;
    ok = ok && throng_group_create(w, &g, &groups[3]) == THRONG_OK;
    for (int i = 0; i < 3 && ok; i++) {
        ok = throng_group_create(w, &g, &groups[i]) == THRONG_OK;
        throng_behaviour be =
            throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_PATH);
        be.u.path.path = paths[i == 1];
        be.u.path.ahead = cfg->ahead;
        be.u.path.prediction_time = cfg->prediction;
        be.u.path.window = cfg->window;
        be.weight = 1.0f;
        be.priority = 3;
        be.speed_factor = 0.8f;
        ok = ok &&
             throng_group_add_behaviour(w, groups[i], &be, NULL) == THRONG_OK;
        throng_behaviour second = be;
        if (i == 0) {
            second = throng_behaviour_default(THRONG_BEHAVIOUR_SEEK);
            second.u.seek.source = THRONG_TARGET_FIXED_POINT;
            second.u.seek.point[0] = o + 1.0f;
        } else if (i == 1) {
            second.u.path.path = paths[0];
            second.u.path.window = 3;
        } else {
            second = throng_behaviour_default(THRONG_BEHAVIOUR_OFFSET_PURSUIT);
        }
        second.weight = 0.4f;
        second.priority = 1;
        ok = ok && throng_group_add_behaviour(w, groups[i], &second, NULL) ==
                       THRONG_OK;
    }
    /* Group 4 mixes in the lanes patrol, flow following and path
     * following, which share the progress column: a patrol of the ring
     * (looping or not), the field (its raw sample in one mode), the
     * zigzag. */
    ok = ok && throng_group_create(w, &g, &groups[4]) == THRONG_OK;
    throng_behaviour patrol = throng_behaviour_default(THRONG_BEHAVIOUR_PATROL);
    patrol.u.path.path = paths[0];
    patrol.u.path.loop = cfg->mode != THRONG_COMBINE_WEIGHTED_AVERAGE;
    patrol.u.path.reach = 1.5f;
    patrol.weight = 0.7f;
    patrol.priority = 2;
    throng_behaviour flow =
        throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_FLOW);
    flow.u.flow.field = field;
    flow.u.flow.prediction_time = cfg->prediction;
    flow.u.flow.raw = cfg->mode == THRONG_COMBINE_WEIGHTED_SUM;
    flow.weight = 0.5f;
    flow.priority = 1;
    throng_behaviour follow =
        throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_PATH);
    follow.u.path.path = paths[1];
    follow.u.path.window = cfg->window;
    follow.weight = 0.3f;
    ok = ok &&
         throng_group_add_behaviour(w, groups[4], &patrol, NULL) == THRONG_OK &&
         throng_group_add_behaviour(w, groups[4], &flow, NULL) == THRONG_OK &&
         throng_group_add_behaviour(w, groups[4], &follow, NULL) == THRONG_OK;
    static throng_agent h[AGENTS];
    for (int i = 0; i < AGENTS && ok; i++) {
        throng_agent_def a = throng_agent_def_default();
        const int kind = i % 10;
        a.group = groups[kind < 4    ? 0
                         : kind < 6  ? 4
                         : kind < 8  ? 1
                         : kind == 8 ? 2
                                     : 3];
        float(*pts)[3] = kind >= 6 && kind < 8 ? zigzag : ring;
        const int count = kind >= 6 && kind < 8 ? ZIGZAG : RING;
        const int at = (int)test_rng_below(&rng, (uint32_t)count);
        for (int k = 0; k < dims; k++) {
            a.position[k] = pts[at][k] + test_rng_range(&rng, -1.5f, 1.5f);
            a.velocity[k] = test_rng_range(&rng, -0.8f, 0.8f);
        }
        if (i % 23 == 5) {
            /* On a path point, still: at a segment's end. */
            memcpy(a.position, pts[at], sizeof a.position);
            memset(a.velocity, 0, sizeof a.velocity);
        } else if (kind == 6 && i % 3 == 0) {
            /* Beyond an end of the zigzag. */
            a.position[0] = o + (i & 8 ? 9.0f : -10.0f);
        }
        a.max_force = test_rng_range(&rng, 0.1f, 3.0f);
        ok = throng_agent_add(w, &a, &h[i]) == THRONG_OK &&
             throng_agent_set_progress(
                 w, h[i], test_rng_below(&rng, (uint32_t)count + 2u)) ==
                 THRONG_OK &&
             (i == 0 ||
              throng_agent_set_target_agent(
                  w, h[i], h[test_rng_below(&rng, (uint32_t)i)]) == THRONG_OK);
    }
    for (int s = 0; s < steps && ok; s++)
        ok = throng_world_step(w, 0.05f) == THRONG_OK;
    uint64_t hash = ok ? throng_world_hash(w) : 0;
    throng_world_destroy(w);
    return hash;
}

static uint64_t run_paths_40(const void *cfg, const char *simd) {
    return run_paths(cfg, simd, 40);
}

TEST(finish_path_lanes_match_scalar) {
    static const throng_combine_mode modes[3] = {
        THRONG_COMBINE_WEIGHTED_SUM, THRONG_COMBINE_WEIGHTED_AVERAGE,
        THRONG_COMBINE_PRIORITY
    };
    for (int v = 0; v < 8; v++) {
        const path_world cfg = {
            .dims = 2 + (v & 1),
            .mode = modes[(v >> 1) % 3],
            .periodic = v % 5 == 3,
            .ahead = v % 3 == 0   ? 6.0f
                     : v % 3 == 1 ? 1.0f
                                  : 0.0f,
            .prediction = v % 4 == 2 ? 0.0f : 0.5f,
            .window = 1u + (uint32_t)v % 4u,
        };
        char what[64];
        snprintf(what, sizeof what, "path world %d (%dD, mode %d)", v, cfg.dims,
                 (int)cfg.mode);
        runner_paths_match_scalar(__FILE__, __LINE__, what, run_paths_40, &cfg);
    }
}

/* ------------------------------------------------------------------------ */
/* The step's resolved rows against the slot table                         */
/* ------------------------------------------------------------------------ */

/* Rows whose resolved target or generation differs from the slot
 * table's (steer_target_row(), the slot's generation); *with and
 * *without count the rows that have a live target and those that have
 * none, so a world where every lookup fails alike cannot pass. */
static uint32_t resolved_mismatches(const throng_world *w, uint32_t *with,
                                    uint32_t *without) {
    uint32_t bad = 0;
    for (uint32_t r = 0; r < w->count; r++) {
        const int64_t t = steer_target_row(w, r);
        bad += (int64_t)w->target_rows[r] != t;
        bad += w->slot_gens[r] != w->slots[w->col.slot[r]].generation;
        *with += t >= 0;
        *without += t < 0;
    }
    /* The rows a vector load may reach past the count: no target. */
    for (uint32_t r = w->count; r < w->count + COLUMN_PAD; r++)
        bad += w->target_rows[r] != -1 || w->slot_gens[r] != 0u;
    return bad;
}

/* Pursuers and wandering evaders interleaved, each targeting a partner
 * (some in the other group, some in their own, some none), then every
 * 17th removed, slots reused and odd target columns planted
 * (reuse_and_plant_targets); after a permuting grid build and the links,
 * every row's resolved target and generation must be the slot table's,
 * on 1 and 2 threads, and a step must leave no scratch behind. */
static void check_resolved_rows(int dims, int threads) {
    throng_world *w = NULL;
    REQUIRE(finish_world(dims, 31u, 0.0f, "scalar", &w) == 2);
    REQUIRE_OK(throng_world_set_threads(w, threads));
    throng_group_def gd = throng_group_def_default();
    gd.combine = THRONG_COMBINE_WEIGHTED_SUM;
    throng_group hunters, prey;
    REQUIRE_OK(throng_group_create(w, &gd, &hunters));
    gd.wander.weight = 0.5f;
    gd.wander.max_turn_rate = 0.3f;
    gd.wander.max_turn_change = 0.1f;
    REQUIRE_OK(throng_group_create(w, &gd, &prey));
    const throng_behaviour pursue =
        throng_behaviour_default(THRONG_BEHAVIOUR_PURSUE);
    const throng_behaviour evade =
        throng_behaviour_default(THRONG_BEHAVIOUR_EVADE);
    REQUIRE_OK(throng_group_add_behaviour(w, hunters, &pursue, NULL));
    REQUIRE_OK(throng_group_add_behaviour(w, prey, &evade, NULL));
    enum {
        N = 600
    };
    static throng_agent h[N];
    test_rng rng = test_rng_make(0x5eedu + (uint64_t)dims);
    for (int i = 0; i < N; i++) {
        throng_agent_def a = throng_agent_def_default();
        a.group = i % 2 ? prey : hunters;
        for (int k = 0; k < dims; k++) {
            a.position[k] = test_rng_range(&rng, -8.0f, 8.0f);
            a.velocity[k] = test_rng_range(&rng, -0.9f, 0.9f);
        }
        REQUIRE_OK(throng_agent_add(w, &a, &h[i]));
    }
    for (int i = 0; i < N; i++) {
        /* The partner; every third a stranger far off; every 13th none. */
        if (i % 13 == 5)
            continue;
        const int j = i % 3 == 2 ? (i * 7 + 11) % N : i ^ 1;
        REQUIRE_OK(throng_agent_set_target_agent(w, h[i], h[j]));
    }
    for (int i = 0; i < N; i += 17)
        REQUIRE_OK(throng_agent_remove(w, h[i]));
    REQUIRE(reuse_and_plant_targets(w, h, N, hunters, &rng));
    for (int step = 0; step < 2; step++) {
        parallel_sched sched = world_scheduler(w);
        REQUIRE(grid_build(w, &sched, 1) == 0);
        world_zero_tails(w);
        world_links(w);
        steer_resolve_rows(w, &sched);
        REQUIRE(w->target_rows != NULL && w->slot_gens != NULL);
        uint32_t with = 0, without = 0;
        CHECK_EQ_U64(resolved_mismatches(w, &with, &without), 0u);
        CHECK(with > N / 2u);
        CHECK(without > N / 20u);
        steer_resolve_end(w);
        CHECK(w->target_rows == NULL && w->slot_gens == NULL);
        REQUIRE_OK(throng_world_step(w, 0.05f));
        CHECK(w->target_rows == NULL && w->slot_gens == NULL);
    }
    throng_world_destroy(w);
}

TEST(finish_resolved_rows_match_slot_table) {
    for (int dims = 2; dims <= 3; dims++)
        for (int threads = 1; threads <= 2; threads++)
            check_resolved_rows(dims, threads);
}

/* Which scratch a step fills: targets only with behaviour state; keys
 * only when some group draws (a turn-rate wander that turns, a
 * projected-circle wander): a cruise alone draws for no row whose rate
 * is a plain zero, and reads the slot table when it does. Kinds 0 to 3:
 * a cruise, a turning wander, a cruise beside a circle wander, a cruise
 * beside a seek (behaviour state, no draws). */
TEST(finish_resolved_rows_only_when_read) {
    for (int kind = 0; kind < 4; kind++) {
        throng_world *w = NULL;
        REQUIRE(finish_world(2, 5u, 0.0f, "scalar", &w) == 2);
        throng_group_def gd = throng_group_def_default();
        gd.wander.weight = 0.5f;
        gd.wander.max_turn_rate = kind == 1 ? 0.3f : 0.0f;
        gd.wander.max_turn_change = kind == 1 ? 0.1f : 0.0f;
        throng_group g;
        REQUIRE_OK(throng_group_create(w, &gd, &g));
        if (kind >= 2) {
            const throng_behaviour b = throng_behaviour_default(
                kind == 2 ? THRONG_BEHAVIOUR_WANDER_CIRCLE
                          : THRONG_BEHAVIOUR_SEEK);
            REQUIRE_OK(throng_group_add_behaviour(w, g, &b, NULL));
        }
        for (int i = 0; i < 40; i++) {
            throng_agent_def a = throng_agent_def_default();
            a.group = g;
            const int column = i % 7, row = i / 7;
            a.position[0] = (float)column;
            a.position[1] = (float)row;
            throng_agent id;
            REQUIRE_OK(throng_agent_add(w, &a, &id));
        }
        parallel_sched sched = world_scheduler(w);
        REQUIRE(grid_build(w, &sched, 1) == 0);
        world_zero_tails(w);
        world_links(w);
        steer_resolve_rows(w, &sched);
        CHECK((w->target_rows != NULL) == (kind >= 2));
        CHECK((w->slot_gens != NULL) == (kind == 1 || kind == 2));
        if (w->slot_gens)
            for (uint32_t r = 0; r < w->count; r++)
                CHECK_EQ_U64(w->slot_gens[r],
                             w->slots[w->col.slot[r]].generation);
        steer_resolve_end(w);
        throng_world_destroy(w);
    }
}

void register_finish_tests(void) {
    REGISTER(finish_resolved_rows_match_slot_table);
    REGISTER(finish_resolved_rows_only_when_read);
    REGISTER(finish_matches_reference_2d);
    REGISTER(finish_matches_reference_3d);
    REGISTER(finish_paths_match_scalar);
    REGISTER(finish_lanes_match_scalar);
    REGISTER(finish_path_lanes_match_scalar);
}
