/* SPDX-License-Identifier: MIT */
/*
 * An agent's whole state as one record (throng_agent_state): exported
 * from one world and imported into another, so an agent can move between
 * worlds that share a definition (the same groups and objects, made by
 * the same calls) and step on there as it would have where it was. A
 * distributed world (libthrong_mpi) moves agents between its processes
 * this way, and copies its neighbours' agents in for a step.
 *
 * The record holds every column of the agent, its behaviour state
 * included. What names something is named so that it means the same in
 * the other world: the group by id and generation (equal in worlds whose
 * groups were made by the same calls), the target agent by host key
 * (slots differ between worlds). Importing checks all of it before it
 * adds anything, and adds through throng_agent_add's own path, so a
 * refused import leaves the world exactly as it was.
 */
#include "internal.h"
#include "busy.h"
#include "core.h"
#include "columns.h"
#include "tables.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "geometry.h"
#include "group_handle.h"
#include "handles.h"

throng_status throng_agent_export(const throng_world *cw, throng_agent h,
                                  throng_agent_state *out) {
    static const char fn[] = "throng_agent_export";
    READ_ENTRY(cw, w, fn, out, "out");
    int64_t s = agent_slot(w, h);
    if (s < 0)
        return handle_fail(w, fn, "handle", h.slot, h.generation, h.world,
                           "agent");
    const uint32_t i = w->slot_dense[s];
    const agent_columns *c = &w->col;
    const int three = w->dims == 3;
    memset(out, 0, sizeof *out);
    out->position[0] = c->px[i];
    out->position[1] = c->py[i];
    out->velocity[0] = c->vx[i];
    out->velocity[1] = c->vy[i];
    out->forward[0] = c->fx[i];
    out->forward[1] = c->fy[i];
    if (three) {
        out->position[2] = c->pz[i];
        out->velocity[2] = c->vz[i];
        out->forward[2] = c->fz[i];
        out->up[0] = c->ux[i];
        out->up[1] = c->uy[i];
        out->up[2] = c->uz[i];
    }
    out->mass = c->mass[uniform_row(w, UNIFORM_MASS, i)];
    out->max_force = c->max_force[uniform_row(w, UNIFORM_MAX_FORCE, i)];
    out->max_speed = c->max_speed[uniform_row(w, UNIFORM_MAX_SPEED, i)];
    out->radius = c->radius[i];
    out->wander_rate = c->wander_rate[i];
    const throng_group g = group_handle(w, c->group[i]);
    out->group_id = g.id;
    out->group_generation = g.generation;
    out->host_key = slot_host_key(w, (uint32_t)s);
    if (w->behaviour_state) {
        out->behaviour_state = 1;
        out->wander[0] = c->wx[i];
        out->target_point[0] = c->tx[i];
        out->target_point[1] = c->ty[i];
        if (three) {
            out->wander[1] = c->wy[i];
            out->wander[2] = c->wz[i];
            out->target_point[2] = c->tz[i];
        }
        out->progress = c->progress[i];
        const uint32_t ts = c->target_slot[i];
        if (ts != 0 && ts <= w->slot_count &&
            w->slots[ts - 1].generation == c->target_gen[i] &&
            w->slot_dense[ts - 1] != SLOT_FREE)
            out->target_key = slot_host_key(w, ts - 1);
    }
    if (w->slot_nav) {
        const slot_nav *n = &w->slot_nav[s];
        out->nav_field_id = n->field_id;
        out->nav_field_generation = n->field_gen;
        if (n->state != SLOT_NAV_GOING) {
            out->nav_arrived = 1u;
            out->nav_goal = n->goal;
            out->nav_arrived_id = n->arrived_id;
            out->nav_arrived_generation = n->arrived_gen;
        }
    }
    return THRONG_OK;
}

/* How far a heading or up vector may be from unit length, and from
 * perpendicular (as world_check_row allows). */
#define STATE_UNIT_TOLERANCE 1e-5
#define STATE_BASIS_TOLERANCE 1e-3

static double length_error(const float x[3]) {
    double d2 = 0.0;
    for (int k = 0; k < 3; k++)
        d2 += (double)x[k] * (double)x[k];
    return fabs(sqrt(d2) - 1.0);
}

/* Everything the add does not check itself. */
static throng_status check_state(throng_world *w, const char *fn,
                                 const throng_agent_state *st,
                                 uint32_t *target_slot) {
    const int three = w->dims == 3;
    throng_status r;
    float f[3] = { st->forward[0], st->forward[1],
                   three ? st->forward[2] : 0.0f };
    if ((r = check_vec(w, fn, "forward", f)) != THRONG_OK)
        return r;
    if (!(length_error(f) <= STATE_UNIT_TOLERANCE))
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: the heading is not of unit length (within "
                          "1e-5): %g %g %g",
                          fn, (double)f[0], (double)f[1], (double)f[2]);
    if (three) {
        if ((r = check_vec(w, fn, "up", st->up)) != THRONG_OK)
            return r;
        const double cosine = (double)f[0] * (double)st->up[0] +
                              (double)f[1] * (double)st->up[1] +
                              (double)f[2] * (double)st->up[2];
        if (!(length_error(st->up) <= STATE_UNIT_TOLERANCE) ||
            !(fabs(cosine) <= STATE_BASIS_TOLERANCE))
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: the up vector is not of unit length "
                              "(within 1e-5) and perpendicular to the "
                              "heading (within 1e-3)",
                              fn);
    }
    if (!is_finite_float(st->wander_rate))
        return world_fail(w, THRONG_ERR_NOT_FINITE,
                          "%s: the wander turn rate is not finite", fn);
    if ((r = check_vec(w, fn, "wander", st->wander)) != THRONG_OK ||
        (r = check_vec(w, fn, "target_point", st->target_point)) != THRONG_OK)
        return r;
    if (st->nav_field_id != 0u || st->nav_field_generation != 0u) {
        const throng_object field = { st->nav_field_id,
                                      st->nav_field_generation, w->id };
        if (!geo_lookup(w, field, GEO_MASK(GEO_NAV)))
            return world_fail(w, THRONG_ERR_STALE_HANDLE,
                              "%s: nav_field_id %u (generation %u) names no "
                              "live navigation field of this world",
                              fn, st->nav_field_id, st->nav_field_generation);
    }
    if (st->nav_arrived > 1u ||
        (!st->nav_arrived && (st->nav_goal != 0u || st->nav_arrived_id != 0u ||
                              st->nav_arrived_generation != 0u)))
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: nav_arrived must be 0 or 1, and the arrival's "
                          "goal and field 0 when it is 0 (got %u, goal %u, "
                          "field %u generation %u)",
                          fn, st->nav_arrived, st->nav_goal, st->nav_arrived_id,
                          st->nav_arrived_generation);
    *target_slot = 0;
    if (st->target_key != 0) {
        if (st->target_key == st->host_key)
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: an agent cannot target itself (target key "
                              "%llu is its own)",
                              fn, (unsigned long long)st->target_key);
        key_entry *e = NULL;
        HASH_FIND(hh, w->keys, &st->target_key, sizeof(uint64_t), e);
        if (!e)
            return world_fail(w, THRONG_ERR_NOT_FOUND,
                              "%s: no agent has the target key %llu", fn,
                              (unsigned long long)st->target_key);
        *target_slot = e->slot + 1u;
    }
    return THRONG_OK;
}

/* The def throng_agent_add takes for a state. */
static void state_def(const throng_world *w, const throng_agent_state *st,
                      throng_agent_def *d) {
    memset(d, 0, sizeof *d);
    memcpy(d->position, st->position, sizeof d->position);
    memcpy(d->velocity, st->velocity, sizeof d->velocity);
    d->mass = st->mass;
    d->max_force = st->max_force;
    d->max_speed = st->max_speed;
    d->radius = st->radius;
    d->host_key = st->host_key;
    d->group.id = st->group_id;
    d->group.generation = st->group_generation;
    d->group.world = w->id;
    /* The null group (id 0, generation 0) is the default group, as in a
     * def; a live group's handle always has a generation. */
    if (d->group.generation == 0 && d->group.id == 0)
        d->group.world = 0;
}

/* Whether the state needs the world's behaviour state, or its navigation
 * state. */
static int state_needs_behaviour(const throng_agent_state *st,
                                 uint32_t target_slot) {
    return st->behaviour_state || target_slot != 0;
}

static int state_needs_nav(const throng_agent_state *st) {
    return st->nav_field_id != 0u || st->nav_field_generation != 0u ||
           st->nav_arrived != 0u;
}

/* The rest of the state into the row just added (the last one), handle h:
 * nothing here can fail. */
static void state_fill(throng_world *w, const throng_agent_state *st,
                       throng_agent h, uint32_t target_slot) {
    agent_columns *c = &w->col;
    const uint32_t i = w->count - 1u;
    c->fx[i] = st->forward[0];
    c->fy[i] = st->forward[1];
    if (w->dims == 3) {
        c->fz[i] = st->forward[2];
        c->ux[i] = st->up[0];
        c->uy[i] = st->up[1];
        c->uz[i] = st->up[2];
    }
    c->wander_rate[i] = st->wander_rate;
    if (w->behaviour_state) {
        c->wx[i] = st->wander[0];
        c->tx[i] = st->target_point[0];
        c->ty[i] = st->target_point[1];
        world_uniform_note(w, UNIFORM_TX, i);
        world_uniform_note(w, UNIFORM_TY, i);
        if (w->dims == 3) {
            c->wy[i] = st->wander[1];
            c->wz[i] = st->wander[2];
            c->tz[i] = st->target_point[2];
            world_uniform_note(w, UNIFORM_TZ, i);
        }
        c->progress[i] = st->progress;
        c->target_slot[i] = target_slot;
        c->target_gen[i] =
            target_slot ? w->slots[target_slot - 1u].generation : 0u;
        world_uniform_note(w, UNIFORM_TARGET_SLOT, i);
        world_uniform_note(w, UNIFORM_TARGET_GEN, i);
    }
    if (w->slot_nav) {
        /* agent_commit_row left the slot's navigation state zero. */
        slot_nav *n = &w->slot_nav[h.slot - 1u];
        n->field_id = st->nav_field_id;
        n->field_gen = st->nav_field_generation;
        if (st->nav_arrived) {
            n->state = SLOT_NAV_ARRIVED;
            n->goal = st->nav_goal;
            n->arrived_id = st->nav_arrived_id;
            n->arrived_gen = st->nav_arrived_generation;
        }
    }
}

throng_status throng_agent_import(throng_world *w, const throng_agent_state *st,
                                  throng_agent *out) {
    static const char fn[] = "throng_agent_import";
    WRITE_ENTRY(w);
    if (!st || !out)
        return world_fail(w, THRONG_ERR_NULL,
                          "%s: state and out_agent must not be NULL", fn);
    uint32_t target_slot = 0;
    throng_status r = check_state(w, fn, st, &target_slot);
    if (r != THRONG_OK)
        return r;
    throng_agent_def d;
    state_def(w, st, &d);
    const int state = state_needs_behaviour(st, target_slot);
    const int nav = state_needs_nav(st);
    if ((state && !w->behaviour_state) || (nav && !w->slot_nav)) {
        /* Giving the world behaviour or navigation state changes it:
         * everything the add would refuse is refused first. */
        uint32_t group = 0;
        if ((r = agent_check_def(w, fn, &d, &group)) != THRONG_OK)
            return r;
    }
    if (state && world_enable_behaviour_state(w))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for the behaviour state of %u agents",
                          fn, w->capacity);
    if (nav && world_enable_nav_state(w))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for the navigation state of %u "
                          "slots",
                          fn, w->slot_capacity);
    throng_agent h;
    if ((r = agent_add_row(w, fn, &d, &h)) != THRONG_OK)
        return r;
    /* Committed: the row is the last one; nothing below can fail. */
    state_fill(w, st, h, target_slot);
    *out = h;
    return THRONG_OK;
}

/* Enters non-zero key k into the open-addressed set `set` of `cap`
 * entries (a power of two, zeroed); 1 when it was there already. */
static int key_set_add(uint64_t *set, uint32_t cap, uint64_t k) {
    uint64_t h = k * 0x9E3779B97F4A7C15ull;
    uint32_t j = (uint32_t)(h >> 32) & (cap - 1u);
    while (set[j] != 0) {
        if (set[j] == k)
            return 1;
        j = (j + 1u) & (cap - 1u);
    }
    set[j] = k;
    return 0;
}

/* Whether the batch's values of single-row column `bit` (offset `at` in
 * the state, a float) would split it: they differ from the column's
 * value, or, in an empty world, from each other. */
static int batch_splits(const throng_world *w, uint32_t bit, const float *col,
                        const throng_agent_state *st, uint32_t n, size_t at) {
    if (!(w->single & bit) || !col)
        return 0;
    uint32_t had;
    if (w->count > 0)
        memcpy(&had, &col[0], sizeof had);
    else
        memcpy(&had, (const char *)&st[0] + at, sizeof had);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t now;
        memcpy(&now, (const char *)&st[i] + at, sizeof now);
        if (now != had)
            return 1;
    }
    return 0;
}

throng_status throng_agents_import(throng_world *w, uint32_t count,
                                   const throng_agent_state *states,
                                   throng_agent *out_agents) {
    static const char fn[] = "throng_agents_import";
    WRITE_ENTRY(w);
    if (count > 0 && !states)
        return world_fail(w, THRONG_ERR_NULL,
                          "%s: states must not be NULL when count is %u", fn,
                          count);
    if (count == 0)
        return THRONG_OK;
    if (count > THRONG_MAX_AGENTS - w->count)
        return world_fail(w, THRONG_ERR_CAPACITY,
                          "%s: %u more agents than the %u a world holds at "
                          "most (it holds %u)",
                          fn, count, THRONG_MAX_AGENTS, w->count);
    const uint32_t fresh = count > w->free_count ? count - w->free_count : 0u;
    if (fresh > THRONG_MAX_AGENTS - w->slot_count)
        return world_fail(w, THRONG_ERR_CAPACITY,
                          "%s: all %u handle slots are live or retired", fn,
                          THRONG_MAX_AGENTS);
    /* Scratch: the batch's keys as a set (at least twice as many entries
     * as states), each state's target slot and group. */
    uint32_t cap = 16u;
    while (cap < 2u * count)
        cap *= 2u;
    const size_t scratch =
        (size_t)cap * sizeof(uint64_t) + (size_t)count * 2u * sizeof(uint32_t);
    void *buf = world_alloc(w, scratch);
    if (!buf)
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory to check %u states", fn, count);
    uint64_t *keys = buf;
    memset(keys, 0, (size_t)cap * sizeof *keys);
    uint32_t *target = (uint32_t *)(keys + cap), *group = target + count;
    uint32_t nkeys = 0;
    int state = 0, nav = 0;
    throng_status r = THRONG_OK;
    /* Every state checked before anything changes. A refusal is checked
     * again under a name that says which state it was (the checks change
     * nothing but the sentence). */
    for (uint32_t i = 0; i < count && r == THRONG_OK; i++) {
        throng_agent_def d;
        state_def(w, &states[i], &d);
        if (check_state(w, fn, &states[i], &target[i]) != THRONG_OK ||
            agent_check_def(w, fn, &d, &group[i]) != THRONG_OK) {
            char name[64];
            snprintf(name, sizeof name, "%s: states[%u]", fn, i);
            if ((r = check_state(w, name, &states[i], &target[i])) == THRONG_OK)
                r = agent_check_def(w, name, &d, &group[i]);
            break;
        }
        state |= state_needs_behaviour(&states[i], target[i]);
        nav |= state_needs_nav(&states[i]);
        if (states[i].host_key != 0) {
            nkeys++;
            if (key_set_add(keys, cap, states[i].host_key))
                r = world_fail(w, THRONG_ERR_DUPLICATE_KEY,
                               "%s: host key %llu comes twice in the batch "
                               "(again at states[%u])",
                               fn, (unsigned long long)states[i].host_key, i);
        }
    }
    /* Everything the commit needs, acquired before it. */
    if (r == THRONG_OK && state && world_enable_behaviour_state(w))
        r = world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                       "%s: no memory for the behaviour state of %u agents", fn,
                       w->capacity);
    if (r == THRONG_OK && nav && world_enable_nav_state(w))
        r = world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                       "%s: no memory for the navigation state of %u slots", fn,
                       w->slot_capacity);
    if (r == THRONG_OK && (reserve_columns(w, w->count + count) ||
                           (fresh && reserve_slots(w, w->slot_count + fresh)) ||
                           (nkeys && reserve_slot_keys(w))))
        r = world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                       "%s: no memory to grow the world to %u agents", fn,
                       w->count + count);
    if (r == THRONG_OK &&
        (batch_splits(w, UNIFORM_MASS, w->col.mass, states, count,
                      offsetof(throng_agent_state, mass)) ||
         batch_splits(w, UNIFORM_MAX_FORCE, w->col.max_force, states, count,
                      offsetof(throng_agent_state, max_force)) ||
         batch_splits(w, UNIFORM_MAX_SPEED, w->col.max_speed, states, count,
                      offsetof(throng_agent_state, max_speed))) &&
        world_unfold_columns(w))
        r = world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                       "%s: no memory for a column of %u agents", fn,
                       w->capacity);
    /* The host keys, for the slots the rows will take. */
    for (uint32_t i = 0; i < count && r == THRONG_OK; i++) {
        if (states[i].host_key == 0)
            continue;
        if (agent_key_add(w, states[i].host_key, agent_next_slot(w, i))) {
            for (uint32_t j = 0; j < i; j++)
                if (states[j].host_key != 0)
                    agent_key_drop(w, states[j].host_key);
            r = world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                           "%s: no memory for the host keys", fn);
        }
    }
    /* Committed: nothing below can fail. */
    for (uint32_t i = 0; i < count && r == THRONG_OK; i++) {
        throng_agent_def d;
        state_def(w, &states[i], &d);
        throng_agent h;
        agent_commit_row(w, &d, group[i], &h);
        state_fill(w, &states[i], h, target[i]);
        if (out_agents)
            out_agents[i] = h;
    }
    world_free(w, buf, scratch);
    return r;
}
