/* SPDX-License-Identifier: MIT */
/*
 * Group behaviour lists: the kinds' families and defaults, the checks of a
 * behaviour (each family checks its own parameters), and the list API.
 * Deriving a group's recipe constants is group.c's; folding the terms
 * into one force is combine.c's.
 */
#include "behaviour.h"
#include "busy.h"

#include <math.h>
#include <string.h>

#include "geometry.h"
#include "schema.h"
#include "columns.h"
#include "core.h"
#include "group.h"
#include "group_handle.h"

/* Defaults and checks come from the schema (behaviour_schema.h, walked
 * by schema.c): every field of the kind's parameters at its default. */
throng_behaviour throng_behaviour_default(throng_behaviour_kind kind) {
    throng_behaviour b;
    schema_default(SCHEMA_SET_BEHAVIOUR, &b, (int)kind);
    return b;
}

/* ------------------------------------------------------------------------ */
/* The group API                                                            */
/* ------------------------------------------------------------------------ */

static throng_status check_behaviour(throng_world *w, const char *fn,
                                     const throng_behaviour *b) {
    return schema_check(w, fn, SCHEMA_SET_BEHAVIOUR, b, 0);
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
    if (b->kind == THRONG_BEHAVIOUR_FOLLOW_NAV && world_enable_nav_state(w))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for the navigation state of %u "
                          "slots",
                          fn, w->slot_capacity);
    group_record *g = &w->groups[group];
    g->behaviours[index] = *b;
    /* A field the kind does not read passed the check equal to its
     * default; store the default's own bits (not a -0 for a 0), so the
     * group reads back, saves and loads the same. */
    schema_normalise(&g->behaviours[index]);
    if (index == g->behaviour_count)
        g->behaviour_count++;
    group_derive_params(w, group);
    return THRONG_OK;
}

throng_status throng_group_add_behaviour(throng_world *w, throng_group handle,
                                         const throng_behaviour *b,
                                         uint32_t *out_index) {
    static const char fn[] = "throng_group_add_behaviour";
    WRITE_ENTRY(w);
    if (!b)
        return null_fail(w, fn, "behaviour");
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

/* The group a handle names and one of its behaviour entries: *group is
 * its id when the handle is live and `index` below its behaviour count. */
static throng_status behaviour_entry(throng_world *w, const char *fn,
                                     throng_group handle, uint32_t index,
                                     uint32_t *group) {
    throng_status st = check_group(w, fn, handle, group);
    if (st != THRONG_OK)
        return st;
    if (index >= w->groups[*group].behaviour_count)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: group %u has %u behaviours, no index %u", fn,
                          *group, w->groups[*group].behaviour_count, index);
    return THRONG_OK;
}

throng_status throng_group_set_behaviour(throng_world *w, throng_group handle,
                                         uint32_t index,
                                         const throng_behaviour *b) {
    static const char fn[] = "throng_group_set_behaviour";
    WRITE_ENTRY(w);
    if (!b)
        return null_fail(w, fn, "behaviour");
    uint32_t group = 0;
    throng_status st = behaviour_entry(w, fn, handle, index, &group);
    if (st != THRONG_OK)
        return st;
    return put_behaviour(w, fn, group, index, b);
}

throng_status throng_group_get_behaviour(const throng_world *cw,
                                         throng_group handle, uint32_t index,
                                         throng_behaviour *out) {
    static const char fn[] = "throng_group_get_behaviour";
    READ_ENTRY(cw, w, fn, out, "out");
    uint32_t group = 0;
    throng_status st = behaviour_entry(w, fn, handle, index, &group);
    if (st != THRONG_OK)
        return st;
    *out = w->groups[group].behaviours[index];
    return THRONG_OK;
}

throng_status throng_group_behaviour_count(const throng_world *cw,
                                           throng_group handle, uint32_t *out) {
    static const char fn[] = "throng_group_behaviour_count";
    READ_ENTRY(cw, w, fn, out, "out");
    uint32_t group = 0;
    throng_status st = check_group(w, fn, handle, &group);
    if (st != THRONG_OK)
        return st;
    *out = w->groups[group].behaviour_count;
    return THRONG_OK;
}

throng_status throng_group_clear_behaviours(throng_world *w,
                                            throng_group handle) {
    WRITE_ENTRY(w);
    uint32_t group = 0;
    throng_status st =
        check_group(w, "throng_group_clear_behaviours", handle, &group);
    if (st != THRONG_OK)
        return st;
    w->groups[group].behaviour_count = 0;
    group_derive_params(w, group);
    return THRONG_OK;
}
