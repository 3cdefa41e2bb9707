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
    memset(&d, 0, sizeof d);
    memcpy(d.position, st->position, sizeof d.position);
    memcpy(d.velocity, st->velocity, sizeof d.velocity);
    d.mass = st->mass;
    d.max_force = st->max_force;
    d.max_speed = st->max_speed;
    d.radius = st->radius;
    d.host_key = st->host_key;
    d.group.id = st->group_id;
    d.group.generation = st->group_generation;
    d.group.world = w->id;
    /* The null group (id 0, generation 0) is the default group, as in a
     * def; a live group's handle always has a generation. */
    if (d.group.generation == 0 && d.group.id == 0)
        d.group.world = 0;
    const int state = st->behaviour_state || target_slot != 0;
    const int nav = st->nav_field_id != 0u || st->nav_field_generation != 0u ||
                    st->nav_arrived != 0u;
    if ((state && !w->behaviour_state) || (nav && !w->slot_nav)) {
        /* Giving the world behaviour or navigation state changes it:
         * everything the add would refuse is refused first. */
        uint32_t group = 0;
        if ((r = group_resolve(w, fn, d.group, 1, &group)) != THRONG_OK ||
            (r = check_vec(w, fn, "position", d.position)) != THRONG_OK ||
            (r = check_vec(w, fn, "velocity", d.velocity)) != THRONG_OK ||
            (r = check_scalar(w, fn, "mass", d.mass, 1)) != THRONG_OK ||
            (r = check_scalar(w, fn, "max_force", d.max_force, 0)) !=
                THRONG_OK ||
            (r = check_scalar(w, fn, "max_speed", d.max_speed, 0)) !=
                THRONG_OK ||
            (r = check_scalar(w, fn, "radius", d.radius, SCALAR_LENGTH)) !=
                THRONG_OK)
            return r;
        key_entry *e = NULL;
        if (d.host_key != 0)
            HASH_FIND(hh, w->keys, &d.host_key, sizeof(uint64_t), e);
        if (e)
            return world_fail(w, THRONG_ERR_DUPLICATE_KEY,
                              "%s: host key %llu already names an agent", fn,
                              (unsigned long long)d.host_key);
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
        /* agent_add_row left the slot's navigation state zero. */
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
    *out = h;
    return THRONG_OK;
}
