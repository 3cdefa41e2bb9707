/* SPDX-License-Identifier: MIT */
/*
 * Groups: their defaults, the checks of their recipes, the constants the
 * kernels derive from them, and the group API.
 *
 * Every public entry point validates all of its arguments before it
 * changes anything, so a refused call leaves the world as it was.
 */
#include "internal.h"
#include "busy.h"
#include "geometry.h"
#include "behaviour.h"
#include "core.h"
#include "group.h"
#include "schema.h"
#include "tables.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detmath.h"
#include "parallel.h"
#include "group_handle.h"

#define TWO_PI_F 6.28318548f /* 2 pi rounded up to float */

/* The defaults and checks of flocking and wander come from the schema
 * (behaviour_schema.h, walked by schema.c). */
throng_flocking throng_flocking_default(void) {
    throng_flocking f;
    schema_default(SCHEMA_SET_FLOCKING, &f, 0);
    return f;
}

static throng_wander wander_default(void) {
    throng_wander wd;
    schema_default(SCHEMA_SET_WANDER, &wd, 0);
    return wd;
}

static throng_motion motion_default(void) {
    throng_motion m;
    schema_default(SCHEMA_SET_MOTION, &m, 0);
    return m;
}

static throng_layers layers_default(void) {
    throng_layers l;
    schema_default(SCHEMA_SET_LAYERS, &l, 0);
    return l;
}

static throng_avoidance avoidance_default(void) {
    throng_avoidance a;
    schema_default(SCHEMA_SET_AVOIDANCE, &a, 0);
    return a;
}

throng_group_def throng_group_def_default(void) {
    throng_group_def d;
    memset(&d, 0, sizeof d);
    d.flocking = throng_flocking_default();
    d.wander = wander_default();
    d.combine = THRONG_COMBINE_WEIGHTED_AVERAGE;
    d.avoidance = avoidance_default();
    d.motion = motion_default();
    d.layers = layers_default();
    return d;
}

/* ------------------------------------------------------------------------ */
/* Groups                                                                   */
/* ------------------------------------------------------------------------ */

/* Which groups' masks hide some group (group_kernel_params.filter), and
 * which groups some mask hides (filter_back): the step's walks (the
 * neighbour stage's, the velocity stage's and the contact passes') test
 * the candidates' layers for those groups only. A property of every
 * group at once, so it is derived again whenever any group changes. A mask
 * that holds every group's layer hides nobody, however many of its bits
 * are clear. */
static void layer_filter_derive(throng_world *w) {
    uint32_t used = 0, seen_by_all = ~0u;
    for (uint32_t g = 0; g < w->group_count; g++) {
        used |= w->group_params[g].layer_bit;
        seen_by_all &= w->group_params[g].see;
    }
    w->any_layers = 0;
    for (uint32_t g = 0; g < w->group_count; g++) {
        group_kernel_params *k = &w->group_params[g];
        k->filter = (k->see & used) != used;
        k->filter_back = (seen_by_all & k->layer_bit) == 0;
        w->any_layers |= k->filter;
    }
}

void group_derive_params(throng_world *w, uint32_t group) {
    const group_record *g = &w->groups[group];
    group_kernel_params *k = &w->group_params[group];
    const throng_flocking *f = &g->flocking;
    memset(k, 0, sizeof *k);
    k->sep_r2 = f->separation_radius * f->separation_radius;
    k->ali_r2 = f->alignment_radius * f->alignment_radius;
    k->coh_r2 = f->cohesion_radius * f->cohesion_radius;
    float ws = f->separation_weight, wa = f->alignment_weight,
          wc = f->cohesion_weight, ww = g->wander.weight;
    for (uint32_t i = 0; i < g->behaviour_count; i++)
        k->list_w[i] = g->behaviours[i].weight;
    if (g->combine == THRONG_COMBINE_WEIGHTED_AVERAGE) {
        /* Seed 000: normalised weights w_i / (w_1 + ... + w_n). */
        float total = ws + wa + wc + ww;
        for (uint32_t i = 0; i < g->behaviour_count; i++)
            total += k->list_w[i];
        if (total > 0.0f) {
            ws /= total;
            wa /= total;
            wc /= total;
            ww /= total;
            for (uint32_t i = 0; i < g->behaviour_count; i++)
                k->list_w[i] /= total;
        } else {
            ws = wa = wc = ww = 0.0f;
            for (uint32_t i = 0; i < g->behaviour_count; i++)
                k->list_w[i] = 0.0f;
        }
    }
    k->sep_w = ws;
    k->ali_w = wa;
    k->coh_w = wc;
    k->wander_w = ww;
    k->wander_rate_max = g->wander.max_turn_rate;
    k->wander_change = g->wander.max_turn_change;
    k->wander_speed_factor = g->wander.speed_factor;
    k->fov_on = f->field_of_view < TWO_PI_F;
    k->cos_half_fov = detmath_cosf(0.5f * f->field_of_view);
    k->speed_factor = f->speed_factor;
    k->sep_inverse = f->separation_mode == THRONG_SEPARATION_INVERSE_DISTANCE;
    k->cap = f->max_neighbours;
    k->any = ws > 0.0f || wa > 0.0f || wc > 0.0f || ww > 0.0f;
    if (ww > 0.0f)
        w->wander_used = 1;
    const throng_avoidance *av = &g->avoidance;
    const float orca_range = av->range > 0.0f ? av->range : w->neighbour_radius;
    k->orca = av->mode == THRONG_AVOIDANCE_ORCA;
    k->orca_r2 = orca_range * orca_range;
    k->orca_inv_tau = 1.0f / av->time_horizon;
    k->orca_share = av->responsibility;
    k->orca_inv_tau_static = 1.0f / av->obstacle_time_horizon;
    k->orca_max = av->max_neighbours;
    k->keep_cos = detmath_cosf(av->keep_right);
    k->keep_sin = detmath_sinf(av->keep_right);
    k->orca_nudge = av->nudge;
    k->contact = (uint16_t)av->contact_iterations; /* validated: <= 32 */
    k->contact_velocity = av->contact_velocity;
    k->turn_rate = g->motion.max_turn_rate;
    k->min_speed = g->motion.min_speed;
    k->velocity = k->orca || k->turn_rate > 0.0f || k->min_speed > 0.0f;
    k->layer_bit = 1u << g->layers.layer;
    k->see = g->layers.mask;
    layer_filter_derive(w);
    recipe_derive(w, group);
}

static throng_status check_flocking(throng_world *w, const char *fn,
                                    const throng_flocking *f) {
    return schema_check(w, fn, SCHEMA_SET_FLOCKING, f, 0);
}

static throng_status check_wander(throng_world *w, const char *fn,
                                  const throng_wander *wd) {
    return schema_check(w, fn, SCHEMA_SET_WANDER, wd, 0);
}

static throng_status check_avoidance(throng_world *w, const char *fn,
                                     const throng_avoidance *a) {
    return schema_check(w, fn, SCHEMA_SET_AVOIDANCE, a, 0);
}

static throng_status check_motion(throng_world *w, const char *fn,
                                  const throng_motion *m) {
    return schema_check(w, fn, SCHEMA_SET_MOTION, m, 0);
}

static throng_status check_layers(throng_world *w, const char *fn,
                                  const throng_layers *l) {
    return schema_check(w, fn, SCHEMA_SET_LAYERS, l, 0);
}

static throng_status check_combine(throng_world *w, const char *fn,
                                   throng_combine_mode mode) {
    if (mode != THRONG_COMBINE_WEIGHTED_AVERAGE &&
        mode != THRONG_COMBINE_WEIGHTED_SUM && mode != THRONG_COMBINE_PRIORITY)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: combine mode %d is not a throng_combine_mode",
                          fn, (int)mode);
    return THRONG_OK;
}

static int reserve_groups(throng_world *w, uint32_t want) {
    if (want <= w->group_capacity)
        return 0;
    uint32_t cap = w->group_capacity ? w->group_capacity * 2 : 8;
    if (cap < want)
        cap = want;
    group_record *g = world_alloc(w, (size_t)cap * sizeof(group_record));
    group_kernel_params *k =
        world_alloc(w, (size_t)cap * sizeof(group_kernel_params));
    if (!g || !k) {
        world_free(w, g, (size_t)cap * sizeof(group_record));
        world_free(w, k, (size_t)cap * sizeof(group_kernel_params));
        return 1;
    }
    if (w->group_count) {
        memcpy(g, w->groups, (size_t)w->group_count * sizeof(group_record));
        memcpy(k, w->group_params,
               (size_t)w->group_count * sizeof(group_kernel_params));
    }
    world_free(w, w->groups, (size_t)w->group_capacity * sizeof(group_record));
    world_free(w, w->group_params,
               (size_t)w->group_capacity * sizeof(group_kernel_params));
    w->groups = g;
    w->group_params = k;
    w->group_capacity = cap;
    return 0;
}

throng_status group_add(throng_world *w, const char *fn,
                        const throng_group_def *def, uint32_t *out_group) {
    throng_status st = check_flocking(w, fn, &def->flocking);
    if (st != THRONG_OK)
        return st;
    if ((st = check_wander(w, fn, &def->wander)) != THRONG_OK ||
        (st = check_combine(w, fn, def->combine)) != THRONG_OK ||
        (st = check_avoidance(w, fn, &def->avoidance)) != THRONG_OK ||
        (st = check_motion(w, fn, &def->motion)) != THRONG_OK ||
        (st = check_layers(w, fn, &def->layers)) != THRONG_OK)
        return st;
    size_t name_len = 0;
    if (def->name) {
        name_len = strlen(def->name);
        if (name_len == 0 || name_len > 63)
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: a group name must be 1 to 63 bytes, got %zu",
                              fn, name_len);
        name_entry *found = NULL;
        HASH_FIND(hh, w->names, def->name, (unsigned)name_len, found);
        if (found)
            return world_fail(w, THRONG_ERR_DUPLICATE_KEY,
                              "%s: a group named \"%s\" already exists", fn,
                              def->name);
    }
    /* A removed group's id is reused before a new one is taken. */
    const uint32_t id = group_take_id(w);
    if (id >= THRONG_MAX_GROUPS)
        return world_fail(w, THRONG_ERR_CAPACITY,
                          "%s: a world holds at most %u groups", fn,
                          THRONG_MAX_GROUPS);
    if (reserve_groups(w, id + 1u))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for another group", fn);
    name_entry *e = NULL;
    if (def->name) {
        e = world_alloc(w, sizeof *e);
        if (!e)
            return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                              "%s: no memory for the group's name", fn);
        memset(e, 0, sizeof *e);
        memcpy(e->name, def->name, name_len);
        e->group = id;
        throng_world *hash_world = w;
        int hash_oom = 0;
        HASH_ADD(hh, w->names, name, (unsigned)name_len, e);
        if (hash_oom) {
            name_entry *check = NULL;
            HASH_FIND(hh, w->names, e->name, (unsigned)name_len, check);
            if (!check) {
                world_free(w, e, sizeof *e);
                return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                                  "%s: no memory for the group name table", fn);
            }
        }
    }
    /* Taken off the free stack (or counted) first: the record's link
     * and generation are read before it is cleared. */
    group_use_id(w, id);
    group_record *g = &w->groups[id];
    const uint32_t generation = g->generation;
    memset(g, 0, sizeof *g);
    g->generation = generation;
    g->live = 1;
    g->next_free = GROUP_NO_ID;
    g->flocking = def->flocking;
    g->wander = def->wander;
    g->combine = def->combine;
    g->avoidance = def->avoidance;
    g->motion = def->motion;
    g->layers = def->layers;
    if (def->name)
        memcpy(g->name, def->name, name_len);
    group_derive_params(w, id);
    if (out_group)
        *out_group = id;
    return THRONG_OK;
}

throng_status throng_group_create(throng_world *w, const throng_group_def *def,
                                  throng_group *out_group) {
    WRITE_ENTRY(w);
    if (!def || !out_group)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_group_create: def and out_group must not "
                          "be NULL");
    uint32_t id = 0;
    throng_status st = group_add(w, "throng_group_create", def, &id);
    if (st == THRONG_OK)
        *out_group = group_handle(w, id);
    return st;
}

void group_forget_name(throng_world *w, uint32_t id) {
    const group_record *g = &w->groups[id];
    const size_t len = strnlen(g->name, sizeof g->name);
    name_entry *found = NULL;
    if (len == 0)
        return;
    HASH_FIND(hh, w->names, g->name, (unsigned)len, found);
    if (!found)
        return;
    throng_world *hash_world = w;
    HASH_DEL(w->names, found);
    (void)hash_world;
    world_free(w, found, sizeof *found);
}

throng_status throng_group_find(const throng_world *cw, const char *name,
                                throng_group *out_group) {
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!name || !out_group)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_group_find: name and out_group must not be "
                          "NULL");
    size_t len = strlen(name);
    name_entry *found = NULL;
    if (len > 0 && len <= 63)
        HASH_FIND(hh, w->names, name, (unsigned)len, found);
    if (!found)
        return world_fail(w, THRONG_ERR_NOT_FOUND,
                          "throng_group_find: no group is named \"%.63s\"",
                          name);
    *out_group = group_handle(w, found->group);
    return THRONG_OK;
}

/* A group's flocking, wander and avoidance settings are read and written
 * whole: the setter checks the new value (check_flocking, ...) and derives
 * the group's kernel constants again. `type` names a type, which no
 * parentheses may enclose. */
/* NOLINTBEGIN(bugprone-macro-parentheses) */
#define GROUP_SETTING(name, type, check)                                    \
    throng_status throng_group_get_##name(const throng_world *cw,           \
                                          throng_group handle, type *out) { \
        static const char fn[] = "throng_group_get_" #name;                 \
        READ_ENTRY(cw, w, fn, out, "out");                                  \
        uint32_t group = 0;                                                 \
        throng_status st = check_group(w, fn, handle, &group);              \
        if (st == THRONG_OK)                                                \
            *out = w->groups[group].name;                                   \
        return st;                                                          \
    }                                                                       \
                                                                            \
    throng_status throng_group_set_##name(                                  \
        throng_world *w, throng_group handle, const type *value) {          \
        static const char fn[] = "throng_group_set_" #name;                 \
        WRITE_ENTRY(w);                                                     \
        if (!value)                                                         \
            return null_fail(w, fn, #name);                                 \
        uint32_t group = 0;                                                 \
        throng_status st = check_group(w, fn, handle, &group);              \
        if (st == THRONG_OK)                                                \
            st = check(w, fn, value);                                       \
        if (st != THRONG_OK)                                                \
            return st;                                                      \
        w->groups[group].name = *value;                                     \
        group_derive_params(w, group);                                      \
        return THRONG_OK;                                                   \
    }

/* NOLINTEND(bugprone-macro-parentheses) */

GROUP_SETTING(flocking, throng_flocking, check_flocking)
GROUP_SETTING(wander, throng_wander, check_wander)
GROUP_SETTING(avoidance, throng_avoidance, check_avoidance)
GROUP_SETTING(motion, throng_motion, check_motion)
GROUP_SETTING(layers, throng_layers, check_layers)

throng_status throng_group_set_combine(throng_world *w, throng_group handle,
                                       throng_combine_mode mode) {
    WRITE_ENTRY(w);
    uint32_t group = 0;
    throng_status st =
        check_group(w, "throng_group_set_combine", handle, &group);
    if (st == THRONG_OK)
        st = check_combine(w, "throng_group_set_combine", mode);
    if (st != THRONG_OK)
        return st;
    w->groups[group].combine = mode;
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
    k->avoid_obstacles = 0;
    for (uint32_t i = 0; i < g->behaviour_count; i++) {
        const throng_behaviour *b = &g->behaviours[i];
        k->avoid_obstacles |= b->kind == THRONG_BEHAVIOUR_AVOID_OBSTACLES;
        if (b->kind != THRONG_BEHAVIOUR_AVOID_NEIGHBOURS ||
            !(k->list_w[i] > 0.0f))
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

throng_status throng_group_remove(throng_world *w, throng_group h) {
    static const char fn[] = "throng_group_remove";
    WRITE_ENTRY(w);
    uint32_t id = 0u;
    throng_status st = group_resolve(w, fn, h, 0, &id);
    if (st != THRONG_OK)
        return st;
    if (id == 0u)
        return world_fail(w, THRONG_ERR_INVALID_ARG,
                          "%s: the default group cannot be removed", fn);
    uint32_t members = 0u;
    const uint32_t *group = w->col.group;
    for (uint32_t i = 0; i < w->count; i++)
        members += group[i] == id;
    if (members)
        return world_fail(w, THRONG_ERR_INVALID_ARG,
                          "%s: %u agent%s still belong%s to group {%u, %u}; "
                          "move them to another group "
                          "(throng_agent_set_group) or remove them first",
                          fn, members, members == 1u ? "" : "s",
                          members == 1u ? "s" : "", h.id, h.generation);
    group_forget_name(w, id);
    group_record *g = &w->groups[id];
    const uint32_t gen = g->generation;
    const throng_group_def def = throng_group_def_default();
    memset(g, 0, sizeof *g);
    g->flocking = def.flocking;
    g->wander = def.wander;
    g->combine = def.combine;
    g->avoidance = def.avoidance;
    g->motion = def.motion;
    g->layers = def.layers;
    g->generation = gen;
    g->next_free = GROUP_NO_ID;
    group_derive_params(w, id);
    /* Past its last generation the id is retired: free, never reused. */
    if (generation_release(&g->generation))
        group_push_free(w, id);
    return THRONG_OK;
}
