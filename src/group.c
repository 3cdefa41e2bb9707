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
#include "tables.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detmath.h"
#include "parallel.h"

#define TWO_PI_F 6.28318548f /* 2 pi rounded up to float */

throng_flocking throng_flocking_default(void) {
    throng_flocking f;
    memset(&f, 0, sizeof f);
    f.separation_radius = 0.5f;
    f.alignment_radius = 1.0f;
    f.cohesion_radius = 1.0f;
    f.field_of_view = TWO_PI_F;
    f.speed_factor = 1.0f;
    f.separation_mode = THRONG_SEPARATION_FLEE_AVERAGE;
    return f;
}

static throng_wander wander_default(void) {
    throng_wander wd;
    memset(&wd, 0, sizeof wd);
    wd.max_turn_rate = 0.1f * 3.14159265f;
    wd.max_turn_change = 0.01f * 3.14159265f;
    wd.speed_factor = 1.0f;
    return wd;
}

throng_group_def throng_group_def_default(void) {
    throng_group_def d;
    memset(&d, 0, sizeof d);
    d.flocking = throng_flocking_default();
    d.wander = wander_default();
    d.combine = THRONG_COMBINE_WEIGHTED_AVERAGE;
    return d;
}

/* ------------------------------------------------------------------------ */
/* Groups                                                                   */
/* ------------------------------------------------------------------------ */

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
    recipe_derive(w, group);
}

static throng_status check_flocking(throng_world *w, const char *fn,
                                    const throng_flocking *f) {
    const float vals[] = {f->separation_radius, f->separation_weight,
                          f->alignment_radius,  f->alignment_weight,
                          f->cohesion_radius,   f->cohesion_weight,
                          f->field_of_view,     f->speed_factor};
    static const char *const names[] = {
        "separation_radius", "separation_weight", "alignment_radius",
        "alignment_weight",  "cohesion_radius",   "cohesion_weight",
        "field_of_view",     "speed_factor"};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        if (!is_finite_float(vals[i]))
            return world_fail(w, THRONG_ERR_NOT_FINITE,
                              "%s: flocking.%s is not finite", fn, names[i]);
    const float radii[] = {f->separation_radius, f->alignment_radius,
                           f->cohesion_radius};
    for (int i = 0; i < 3; i++)
        if (!(radii[i] >= THRONG_MIN_LENGTH) || radii[i] > w->neighbour_radius)
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: flocking.%s must be in [%g, %g] metres "
                              "(THRONG_MIN_LENGTH .. the world's neighbour "
                              "radius), got %g",
                              fn, names[2 * i], (double)THRONG_MIN_LENGTH,
                              (double)w->neighbour_radius, (double)radii[i]);
    const float weights[] = {f->separation_weight, f->alignment_weight,
                             f->cohesion_weight};
    for (int i = 0; i < 3; i++)
        if (weights[i] < 0.0f)
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: flocking.%s must be >= 0, got %g", fn,
                              names[2 * i + 1], (double)weights[i]);
    if (!(f->field_of_view > 0.0f) || f->field_of_view > TWO_PI_F)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: flocking.field_of_view must be in (0, 2 pi] "
                          "radians, got %g",
                          fn, (double)f->field_of_view);
    if (f->speed_factor < 0.0f || f->speed_factor > 1.0f)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: flocking.speed_factor must be in [0, 1], got %g",
                          fn, (double)f->speed_factor);
    if (f->separation_mode != THRONG_SEPARATION_FLEE_AVERAGE &&
        f->separation_mode != THRONG_SEPARATION_INVERSE_DISTANCE)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: flocking.separation_mode %d is not a "
                          "throng_separation_mode",
                          fn, (int)f->separation_mode);
    if (f->max_neighbours > THRONG_MAX_NEIGHBOUR_CAP)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: flocking.max_neighbours must be in [0, %u], "
                          "got %u",
                          fn, THRONG_MAX_NEIGHBOUR_CAP, f->max_neighbours);
    return THRONG_OK;
}

static throng_status check_wander(throng_world *w, const char *fn,
                                  const throng_wander *wd) {
    const float vals[] = {wd->weight, wd->max_turn_rate, wd->max_turn_change,
                          wd->speed_factor};
    static const char *const names[] = {"weight", "max_turn_rate",
                                        "max_turn_change", "speed_factor"};
    static const float hi[] = {3.402823466e38f, 3.14159274f, 3.14159274f,
                               1.0f};
    for (int i = 0; i < 4; i++) {
        if (!is_finite_float(vals[i]))
            return world_fail(w, THRONG_ERR_NOT_FINITE,
                              "%s: wander.%s is not finite", fn, names[i]);
        if (vals[i] < 0.0f || vals[i] > hi[i])
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: wander.%s must be in [0, %g], got %g", fn,
                              names[i], (double)hi[i], (double)vals[i]);
    }
    return THRONG_OK;
}

static throng_status check_combine(throng_world *w, const char *fn,
                                   throng_combine_mode mode) {
    if (mode != THRONG_COMBINE_WEIGHTED_AVERAGE &&
        mode != THRONG_COMBINE_WEIGHTED_SUM &&
        mode != THRONG_COMBINE_PRIORITY)
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
                        const throng_group_def *def,
                        uint32_t *out_group) {
    throng_status st = check_flocking(w, fn, &def->flocking);
    if (st != THRONG_OK)
        return st;
    if ((st = check_wander(w, fn, &def->wander)) != THRONG_OK ||
        (st = check_combine(w, fn, def->combine)) != THRONG_OK)
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
                                  "%s: no memory for the group name table",
                                  fn);
            }
        }
    }
    group_record *g = &w->groups[id];
    const uint32_t generation = id < w->group_count ? g->generation : 1u;
    memset(g, 0, sizeof *g);
    g->generation = generation;
    group_use_id(w, id);
    g->flocking = def->flocking;
    g->wander = def->wander;
    g->combine = def->combine;
    if (def->name)
        memcpy(g->name, def->name, name_len);
    group_derive_params(w, id);
    if (out_group)
        *out_group = id;
    return THRONG_OK;
}

throng_status throng_group_create(throng_world *w, const throng_group_def *def,
                                  throng_group *out_group) {
    WORLD_WRITE(w);
    if (!w)
        return THRONG_ERR_NULL;
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

throng_status throng_group_get_flocking(const throng_world *cw, throng_group handle,
                                        throng_flocking *out) {
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!out)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_group_get_flocking: out must not be NULL");
    uint32_t group = 0;
    throng_status st = check_group(w, "throng_group_get_flocking", handle, &group);
    if (st != THRONG_OK)
        return st;
    *out = w->groups[group].flocking;
    return THRONG_OK;
}

throng_status throng_group_set_flocking(throng_world *w, throng_group handle,
                                        const throng_flocking *f) {
    WORLD_WRITE(w);
    if (!w)
        return THRONG_ERR_NULL;
    if (!f)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_group_set_flocking: flocking must not be "
                          "NULL");
    uint32_t group = 0;
    throng_status st = check_group(w, "throng_group_set_flocking", handle, &group);
    if (st == THRONG_OK)
        st = check_flocking(w, "throng_group_set_flocking", f);
    if (st != THRONG_OK)
        return st;
    w->groups[group].flocking = *f;
    group_derive_params(w, group);
    return THRONG_OK;
}

throng_status throng_group_set_combine(throng_world *w, throng_group handle,
                                       throng_combine_mode mode) {
    WORLD_WRITE(w);
    if (!w)
        return THRONG_ERR_NULL;
    uint32_t group = 0;
    throng_status st = check_group(w, "throng_group_set_combine", handle, &group);
    if (st == THRONG_OK)
        st = check_combine(w, "throng_group_set_combine", mode);
    if (st != THRONG_OK)
        return st;
    w->groups[group].combine = mode;
    group_derive_params(w, group);
    return THRONG_OK;
}

throng_status throng_group_get_wander(const throng_world *cw, throng_group handle,
                                      throng_wander *out) {
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!out)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_group_get_wander: out must not be NULL");
    uint32_t group = 0;
    throng_status st = check_group(w, "throng_group_get_wander", handle, &group);
    if (st != THRONG_OK)
        return st;
    *out = w->groups[group].wander;
    return THRONG_OK;
}

throng_status throng_group_set_wander(throng_world *w, throng_group handle,
                                      const throng_wander *wd) {
    WORLD_WRITE(w);
    if (!w)
        return THRONG_ERR_NULL;
    if (!wd)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_group_set_wander: wander must not be NULL");
    uint32_t group = 0;
    throng_status st = check_group(w, "throng_group_set_wander", handle, &group);
    if (st == THRONG_OK)
        st = check_wander(w, "throng_group_set_wander", wd);
    if (st != THRONG_OK)
        return st;
    w->groups[group].wander = *wd;
    group_derive_params(w, group);
    return THRONG_OK;
}
