/* SPDX-License-Identifier: MIT */
/*
 * Agents: adding and removing them, their handles and host keys, their
 * checks, getters and setters, and their behaviour state.
 *
 * Every public entry point validates all of its arguments before it
 * changes anything, and acquires every resource it may need (column growth,
 * slot table growth, hash entries) before it commits, so a refused or
 * failed call leaves the world exactly as it was.
 */
#include "internal.h"
#include "busy.h"
#include "geometry.h"
#include "behaviour.h"
#include "core.h"
#include "columns.h"
#include "tables.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detmath.h"
#include "parallel.h"
#include "agent.h"
#include "group_handle.h"
#include "handles.h"

throng_agent_def throng_agent_def_default(void) {
    throng_agent_def d;
    memset(&d, 0, sizeof d);
    d.mass = 1.0f;
    d.max_force = 10.0f;
    d.max_speed = 1.0f;
    d.radius = 0.25f;
    return d;
}

/* ------------------------------------------------------------------------ */
/* Agents                                                                   */
/* ------------------------------------------------------------------------ */

void world_links(const throng_world *cw) {
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!atomic_load_explicit(&w->links_stale, memory_order_acquire))
        return;
    /* Calls that read the world may run at the same time (busy.h): one
     * of them rewrites the links, the others wait for it. */
    shared_write_lock(w);
    if (atomic_load_explicit(&w->links_stale, memory_order_relaxed)) {
        const uint32_t *restrict slot = w->col.slot;
        uint32_t *restrict slot_dense = w->slot_dense;
        for (uint32_t r = 0; r < w->count; r++)
            slot_dense[slot[r]] = r;
        atomic_store_explicit(&w->links_stale, 0, memory_order_release);
    }
    shared_write_unlock(w);
}

/* The slot of a live handle, or -1. A free slot is marked in slot_dense
 * whether or not the links are stale, but a reader still brings them up
 * to date first: another reader may be rewriting them. */
static inline int64_t handle_slot(const throng_world *w, throng_agent h) {
    /* world_links's own first test, here so the common case (links up to
     * date) costs no call on every handle lookup. */
    if (atomic_load_explicit(&((throng_world *)(uintptr_t)w)->links_stale,
                             memory_order_acquire))
        world_links(w);
    if (h.world != w->id || h.slot == 0 || h.slot > w->slot_count)
        return -1;
    const slot_entry *s = &w->slots[h.slot - 1];
    if (w->slot_dense[h.slot - 1] == SLOT_FREE || s->generation != h.generation)
        return -1;
    return (int64_t)(h.slot - 1);
}

int64_t agent_slot(const throng_world *w, throng_agent h) {
    return handle_slot(w, h);
}

static throng_status stale(throng_world *w, const char *fn, throng_agent h) {
    return handle_fail(w, fn, "handle", h.slot, h.generation, h.world, "agent");
}

/* This world's handle of the agent in a live slot. */
static throng_agent handle_of(const throng_world *w, uint32_t slot) {
    throng_agent h = { slot + 1u, w->slots[slot].generation, w->id };
    return h;
}

throng_agent agent_handle_of(const throng_world *w, uint32_t slot) {
    return handle_of(w, slot);
}

/* Resolves a handle to a dense row, or records the refusal. */
#define RESOLVE(w, fn, h, row)                 \
    do {                                       \
        int64_t slot_ = handle_slot((w), (h)); \
        if (slot_ < 0)                         \
            return stale((w), (fn), (h));      \
        (row) = (w)->slot_dense[slot_];        \
    } while (0)

bool throng_agent_valid(const throng_world *w, throng_agent h) {
    WORLD_READ_OR(w, false);
    return w && handle_slot(w, h) >= 0;
}

uint64_t throng_world_id(const throng_world *w) {
    /* No guard: the id is fixed at creation, so it reads safely while any
     * call runs (a busy world answering 0 would let a host build handles
     * that name no world). */
    return w ? w->id : 0u;
}

static int agent_live(const throng_world *w, uint32_t slot,
                      uint32_t generation) {
    throng_agent h = { slot, generation, w->id };
    return handle_slot(w, h) >= 0;
}

DEFINE_REBIND(throng_agent_rebind, throng_agent, slot, "handle", "agent",
              origin_gen, 1u, origin_slots, agent_live)

int world_test_set_slot_generation(throng_world *w, uint32_t slot,
                                   uint32_t generation) {
    if (!w || slot == 0u || slot > w->slot_count || generation == 0u)
        return 1;
    w->slots[slot - 1u].generation = generation;
    return 0;
}

/* An agent's fields as creation takes them: from a def when adding, from
 * the columns when a snapshot is loaded (world_check_row). */
typedef struct agent_fields {
    float position[3], velocity[3];
    float mass, max_force, max_speed, radius;
    uint32_t group;
} agent_fields;

static throng_status check_agent_fields(throng_world *w, const char *fn,
                                        const agent_fields *d) {
    throng_status st;
    if ((st = check_vec(w, fn, "position", d->position)) != THRONG_OK ||
        (st = check_vec(w, fn, "velocity", d->velocity)) != THRONG_OK ||
        (st = check_scalar(w, fn, "mass", d->mass, 1)) != THRONG_OK ||
        (st = check_scalar(w, fn, "max_force", d->max_force, 0)) != THRONG_OK ||
        (st = check_scalar(w, fn, "max_speed", d->max_speed, 0)) != THRONG_OK ||
        (st = check_scalar(w, fn, "radius", d->radius, SCALAR_LENGTH)) !=
            THRONG_OK ||
        (st = check_group_id(w, fn, d->group)) != THRONG_OK)
        return st;
    return THRONG_OK;
}

static throng_status check_agent_def(throng_world *w, const char *fn,
                                     const throng_agent_def *d,
                                     uint32_t group) {
    agent_fields f;
    memcpy(f.position, d->position, sizeof f.position);
    memcpy(f.velocity, d->velocity, sizeof f.velocity);
    f.mass = d->mass;
    f.max_force = d->max_force;
    f.max_speed = d->max_speed;
    f.radius = d->radius;
    f.group = group;
    return check_agent_fields(w, fn, &f);
}

/* How far a stored heading's or up vector's length may be from 1: they
 * are normalised in float, good to a few ulp (about 1e-7), so this leaves
 * a wide margin and still refuses anything that is not a unit vector. */
#define AGENT_UNIT_TOLERANCE 1e-5
/* How far from perpendicular heading and up may be (the cosine of their
 * angle): basis_up normalises a difference that may be as short as 1e-3,
 * which scales the rounding of its inputs by up to 1e3. */
#define AGENT_BASIS_TOLERANCE 1e-3

static double unit_error(const float x[3]) {
    double d2 = 0.0;
    for (int k = 0; k < 3; k++)
        d2 += (double)x[k] * (double)x[k];
    return fabs(sqrt(d2) - 1.0);
}

throng_status world_check_row(throng_world *w, const char *fn, uint32_t row) {
    const agent_columns *c = &w->col;
    const int three = w->dims == 3;
    agent_fields d;
    memset(&d, 0, sizeof d);
    d.position[0] = c->px[row];
    d.position[1] = c->py[row];
    d.position[2] = three ? c->pz[row] : 0.0f;
    d.velocity[0] = c->vx[row];
    d.velocity[1] = c->vy[row];
    d.velocity[2] = three ? c->vz[row] : 0.0f;
    d.mass = c->mass[uniform_row(w, UNIFORM_MASS, row)];
    d.max_force = c->max_force[uniform_row(w, UNIFORM_MAX_FORCE, row)];
    d.max_speed = c->max_speed[uniform_row(w, UNIFORM_MAX_SPEED, row)];
    d.radius = c->radius[row];
    d.group = c->group[row];
    throng_status st = check_agent_fields(w, fn, &d);
    if (st != THRONG_OK)
        return st;
    /* What adding, the setters and every step keep true of a row. */
    if (w->boundary == THRONG_BOUNDARY_PERIODIC)
        for (int a = 0; a < w->dims; a++)
            if (!(d.position[a] >= 0.0f && d.position[a] < w->box[a]))
                return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                                  "%s: position[%d] = %g lies outside the "
                                  "periodic box [0, %g)",
                                  fn, a, (double)d.position[a],
                                  (double)w->box[a]);
    float f[3] = { c->fx[row], c->fy[row], three ? c->fz[row] : 0.0f };
    if ((st = check_vec(w, fn, "heading", f)) != THRONG_OK)
        return st;
    if (!(unit_error(f) <= AGENT_UNIT_TOLERANCE))
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: the heading is not of unit length (within "
                          "1e-5): %g %g %g",
                          fn, (double)f[0], (double)f[1], (double)f[2]);
    if (three) {
        float u[3] = { c->ux[row], c->uy[row], c->uz[row] };
        if ((st = check_vec(w, fn, "up", u)) != THRONG_OK)
            return st;
        double cosine = (double)f[0] * (double)u[0] +
                        (double)f[1] * (double)u[1] +
                        (double)f[2] * (double)u[2];
        if (!(unit_error(u) <= AGENT_UNIT_TOLERANCE) ||
            !(fabs(cosine) <= AGENT_BASIS_TOLERANCE))
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: the up vector is not of unit length "
                              "(within 1e-5) and perpendicular to the "
                              "heading (within 1e-3): %g %g %g",
                              fn, (double)u[0], (double)u[1], (double)u[2]);
    }
    if (!is_finite_float(c->wander_rate[row]))
        return world_fail(w, THRONG_ERR_NOT_FINITE,
                          "%s: the wander turn rate is not finite", fn);
    if (!w->behaviour_state)
        return THRONG_OK;
    float t[3] = { c->tx[row], c->ty[row], three ? c->tz[row] : 0.0f };
    float wd[3] = { c->wx[row], three ? c->wy[row] : 0.0f,
                    three ? c->wz[row] : 0.0f };
    if ((st = check_vec(w, fn, "target point", t)) != THRONG_OK)
        return st;
    for (int k = 0; k < (three ? 3 : 1); k++)
        if (!is_finite_float(wd[k]))
            return world_fail(w, THRONG_ERR_NOT_FINITE,
                              "%s: the wander state is not finite", fn);
    /* A target agent is none ({0, 0}), or a slot of this world other
     * than the agent's own, live or since removed. */
    uint32_t ts = c->target_slot[row], tg = c->target_gen[row];
    uint32_t own = c->slot[row];
    if ((ts == 0u) != (tg == 0u) || ts > w->slot_count ||
        (ts == own + 1u && tg == w->slots[own].generation))
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: target {%u, %u} is not none, nor another "
                          "slot of this world",
                          fn, ts, tg);
    return THRONG_OK;
}

void world_wrap_position(const throng_world *w, float p[3]) {
    if (w->boundary != THRONG_BOUNDARY_PERIODIC)
        return;
    for (int a = 0; a < w->dims; a++)
        p[a] = periodic_wrap(p[a], w->box[a]);
}

/* A unit up vector perpendicular to the unit forward f, as close as it can
 * be to `hint`; when f is parallel to hint, the axis least aligned with f
 * stands in. */
void basis_up(const float f[3], const float hint[3], float up[3]) {
    float h[3] = { hint[0], hint[1], hint[2] };
    for (int attempt = 0; attempt < 2; attempt++) {
        /* up = h - (h . f) f, the part of h perpendicular to f. */
        float dot = h[0] * f[0] + h[1] * f[1] + h[2] * f[2];
        float u[3] = { h[0] - dot * f[0], h[1] - dot * f[1],
                       h[2] - dot * f[2] };
        float len2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
        if (len2 > 1e-6f) {
            float inv = 1.0f / sqrtf(len2);
            up[0] = u[0] * inv;
            up[1] = u[1] * inv;
            up[2] = u[2] * inv;
            return;
        }
        float ax = fabsf(f[0]), ay = fabsf(f[1]), az = fabsf(f[2]);
        h[0] = h[1] = h[2] = 0.0f;
        if (ax <= ay && ax <= az)
            h[0] = 1.0f;
        else if (ay <= az)
            h[1] = 1.0f;
        else
            h[2] = 1.0f;
    }
    up[0] = 0.0f; /* unreachable for a unit f */
    up[1] = 0.0f;
    up[2] = 1.0f;
}

/* Sets row i's heading (and up, in 3D) from a velocity, or +x at rest. */
static void init_basis(throng_world *w, uint32_t i, const float v[3]) {
    agent_columns *c = &w->col;
    float vz = w->dims == 3 ? v[2] : 0.0f;
    float v2 = v[0] * v[0] + v[1] * v[1] + vz * vz;
    float f[3] = { 1.0f, 0.0f, 0.0f };
    if (v2 >= 1e-30f && is_finite_float(v2)) {
        float len = sqrtf(v2);
        f[0] = v[0] / len;
        f[1] = v[1] / len;
        f[2] = vz / len;
    } else {
        /* Squares that are subnormal (or overflow) would give a heading
         * far from unit length: scale by the largest component first. */
        float big = fmaxf(fabsf(v[0]), fmaxf(fabsf(v[1]), fabsf(vz)));
        if (big > 0.0f) {
            float u[3] = { v[0] / big, v[1] / big, vz / big };
            float len = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
            for (int k = 0; k < 3; k++)
                f[k] = u[k] / len;
        }
    }
    if (w->dims == 3) {
        static const float z_up[3] = { 0.0f, 0.0f, 1.0f };
        basis_store_3d(c, i, f, z_up);
    } else {
        c->fx[i] = f[0];
        c->fy[i] = f[1];
    }
}

throng_status throng_agent_add(throng_world *w, const throng_agent_def *d,
                               throng_agent *out) {
    WRITE_ENTRY(w);
    return agent_add_row(w, "throng_agent_add", d, out);
}

throng_status agent_check_def(throng_world *w, const char *fn,
                              const throng_agent_def *d, uint32_t *out_group) {
    uint32_t group = 0; /* the def's group handle (null: the default) */
    throng_status st = group_resolve(w, fn, d->group, 1, &group);
    if (st != THRONG_OK || (st = check_agent_def(w, fn, d, group)) != THRONG_OK)
        return st;
    if (d->host_key != 0) {
        key_entry *found = NULL;
        HASH_FIND(hh, w->keys, &d->host_key, sizeof(uint64_t), found);
        if (found)
            return world_fail(w, THRONG_ERR_DUPLICATE_KEY,
                              "%s: host key %llu already names an agent", fn,
                              (unsigned long long)d->host_key);
    }
    *out_group = group;
    return THRONG_OK;
}

uint32_t agent_next_slot(const throng_world *w, uint32_t k) {
    return k < w->free_count ? w->free_slots[w->free_count - 1u - k]
                             : w->slot_count + (k - w->free_count);
}

throng_status agent_add_row(throng_world *w, const char *fn,
                            const throng_agent_def *d, throng_agent *out) {
    if (!d || !out)
        return world_fail(w, THRONG_ERR_NULL,
                          "%s: def and out_agent must not be NULL", fn);
    uint32_t group = 0;
    throng_status st = agent_check_def(w, fn, d, &group);
    if (st != THRONG_OK)
        return st;
    if (w->count >= THRONG_MAX_AGENTS)
        return world_fail(w, THRONG_ERR_CAPACITY,
                          "%s: a world holds at most %u agents", fn,
                          THRONG_MAX_AGENTS);
    if (reserve_columns(w, w->count + 1))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory to grow the columns to %u agents", fn,
                          w->count + 1);
    /* Only retired slots can fill the table while agents are fewer. */
    if (w->free_count == 0 && w->slot_count >= THRONG_MAX_AGENTS)
        return world_fail(w, THRONG_ERR_CAPACITY,
                          "%s: all %u handle slots are live or retired", fn,
                          THRONG_MAX_AGENTS);
    if (w->free_count == 0 && reserve_slots(w, w->slot_count + 1))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory to grow the handle table", fn);
    if (d->host_key != 0 && reserve_slot_keys(w))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for the slots' host keys", fn);
    if (column_make_room(w, UNIFORM_MASS, w->count, d->mass) ||
        column_make_room(w, UNIFORM_MAX_FORCE, w->count, d->max_force) ||
        column_make_room(w, UNIFORM_MAX_SPEED, w->count, d->max_speed))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for a column of %u agents", fn,
                          w->capacity);
    if (d->host_key != 0 &&
        agent_key_add(w, d->host_key, agent_next_slot(w, 0)))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for the host key", fn);
    agent_commit_row(w, d, group, out);
    return THRONG_OK;
}

int agent_key_add(throng_world *w, uint64_t key, uint32_t slot) {
    key_entry *e = world_alloc(w, sizeof *e);
    if (!e)
        return 1;
    memset(e, 0, sizeof *e);
    e->key = key;
    e->slot = slot;
    throng_world *hash_world = w;
    int hash_oom = 0;
    HASH_ADD(hh, w->keys, key, sizeof(uint64_t), e);
    if (hash_oom) {
        key_entry *check = NULL;
        HASH_FIND(hh, w->keys, &key, sizeof(uint64_t), check);
        if (!check) {
            world_free(w, e, sizeof *e);
            return 1;
        }
    }
    return 0;
}

void agent_key_drop(throng_world *w, uint64_t key) {
    key_entry *e = NULL;
    HASH_FIND(hh, w->keys, &key, sizeof(uint64_t), e);
    if (e) {
        throng_world *hash_world = w;
        HASH_DEL(w->keys, e);
        (void)hash_world;
        world_free(w, e, sizeof *e);
    }
}

void agent_commit_row(throng_world *w, const throng_agent_def *d,
                      uint32_t group, throng_agent *out) {
    const uint32_t slot = agent_next_slot(w, 0);
    if (w->free_count) {
        w->free_count--;
    } else {
        w->slots[slot].generation = HANDLE_FIRST_GENERATION;
        w->slot_count++;
    }
    uint32_t i = w->count++;
    w->keys_stale = 1; /* the rows' host keys (throng_world_columns) */
    w->slot_dense[slot] = i;
    agent_columns *c = &w->col;
    float p[3] = { d->position[0], d->position[1],
                   w->dims == 3 ? d->position[2] : 0.0f };
    world_wrap_position(w, p);
    c->px[i] = p[0];
    c->py[i] = p[1];
    c->vx[i] = d->velocity[0];
    c->vy[i] = d->velocity[1];
    if (w->dims == 3) {
        c->pz[i] = p[2];
        c->vz[i] = d->velocity[2];
    }
    init_basis(w, i, d->velocity);
    column_put(w, UNIFORM_MASS, i, d->mass);
    column_put(w, UNIFORM_MAX_FORCE, i, d->max_force);
    column_put(w, UNIFORM_MAX_SPEED, i, d->max_speed);
    c->radius[i] = d->radius;
    c->wander_rate[i] = 0.0f;
    if (w->behaviour_state) {
        c->tx[i] = c->ty[i] = c->wx[i] = 0.0f;
        if (w->dims == 3)
            c->tz[i] = c->wy[i] = c->wz[i] = 0.0f;
        c->target_slot[i] = c->target_gen[i] = c->progress[i] = 0;
    }
    c->group[i] = group;
    c->slot[i] = slot;
    /* Every UNIFORM_* column got a value for the new row; absent ones are
     * skipped by the note. */
    for (int k = 0; k < UNIFORM_COLUMNS; k++)
        world_uniform_note(w, 1u << k, i);
    if (w->slot_keys)
        w->slot_keys[slot] = d->host_key;
    if (w->slot_nav)
        memset(&w->slot_nav[slot], 0, sizeof w->slot_nav[slot]);
    w->grid.valid = 0;
    verlet_forget(&w->verlet); /* a row was added */
    *out = handle_of(w, slot);
}

void agent_remove_slot(throng_world *w, uint32_t s) {
    agent_columns *c = &w->col;
    uint32_t i = w->slot_dense[s], last = w->count - 1;
    INVARIANT(i <= last && c->slot[i] == s, "a live slot's row holds it");
    const uint64_t key = slot_host_key(w, s);
    if (key != 0) {
        key_entry *e = NULL;
        HASH_FIND(hh, w->keys, &key, sizeof(uint64_t), e);
        if (e) {
            throng_world *hash_world = w;
            HASH_DEL(w->keys, e);
            (void)hash_world;
            world_free(w, e, sizeof *e);
        }
    }
    if (i != last) {
        float **cols[FLOAT_COLUMNS];
        float_columns(c, cols);
        for (int k = 0; k < FLOAT_COLUMNS; k++)
            if (*cols[k] && !float_column_single(w, k))
                (*cols[k])[i] = (*cols[k])[last];
        uint32_t **ints[U32_COLUMN_COUNT];
        u32_columns(c, ints);
        for (int k = 0; k < U32_COLUMN_COUNT; k++)
            if (*ints[k])
                (*ints[k])[i] = (*ints[k])[last];
        w->slot_dense[c->slot[i]] = i;
    }
    slot_entry *e = &w->slots[s];
    w->slot_dense[s] = SLOT_FREE;
    if (key != 0)
        w->slot_keys[s] = 0;
    /* The slot's next agent gets the next generation; past the last one
     * the slot is retired instead, free but never handed out again, so no
     * generation ever comes round to name a second agent. */
    if (generation_release(&e->generation))
        w->free_slots[w->free_count++] = s;
    w->count--;
    w->keys_stale = 1;
    if (w->count == 0) {
        w->uniform = UNIFORM_ALL;
        w->uniform_check = 0;
    }
    w->grid.valid = 0;
    verlet_forget(&w->verlet); /* the last row moved into the hole */
}

throng_status throng_agent_remove(throng_world *w, throng_agent h) {
    static const char fn[] = "throng_agent_remove";
    WRITE_ENTRY(w);
    int64_t s = handle_slot(w, h);
    if (s < 0)
        return stale(w, fn, h);
    agent_remove_slot(w, (uint32_t)s);
    return THRONG_OK;
}

throng_status throng_agents_remove(throng_world *w, uint32_t count,
                                   const throng_agent *agents) {
    static const char fn[] = "throng_agents_remove";
    WRITE_ENTRY(w);
    if (count > 0 && !agents)
        return world_fail(w, THRONG_ERR_NULL,
                          "%s: agents must not be NULL when count is %u", fn,
                          count);
    if (count == 0)
        return THRONG_OK;
    /* Each handle's slot, and a bit per slot to find one named twice:
     * every handle is checked before anything changes. */
    const size_t words = ((size_t)w->slot_count + 63u) / 64u;
    const size_t bytes = (size_t)count * sizeof(uint32_t) + words * 8u;
    uint64_t *seen = world_alloc(w, bytes);
    if (!seen)
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory to check %u handles", fn, count);
    memset(seen, 0, words * 8u);
    uint32_t *slots = (uint32_t *)(seen + words);
    throng_status r = THRONG_OK;
    for (uint32_t i = 0; i < count && r == THRONG_OK; i++) {
        const int64_t s = handle_slot(w, agents[i]);
        if (s < 0) {
            char name[64];
            snprintf(name, sizeof name, "%s: agents[%u]", fn, i);
            r = stale(w, name, agents[i]);
            break;
        }
        slots[i] = (uint32_t)s;
        const uint64_t bit = 1ull << (slots[i] % 64u);
        if (seen[slots[i] / 64u] & bit)
            r = world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                           "%s: agents[%u] names the same agent as an "
                           "earlier handle",
                           fn, i);
        seen[slots[i] / 64u] |= bit;
    }
    /* In the order given, as that many throng_agent_remove calls. */
    for (uint32_t i = 0; i < count && r == THRONG_OK; i++)
        agent_remove_slot(w, slots[i]);
    world_free(w, seen, bytes);
    return r;
}

throng_status throng_agent_find(const throng_world *cw, uint64_t key,
                                throng_agent *out) {
    READ_ENTRY(cw, w, "throng_agent_find", out, "out_agent");
    key_entry *e = NULL;
    if (key != 0)
        HASH_FIND(hh, w->keys, &key, sizeof(uint64_t), e);
    if (!e)
        return world_fail(w, THRONG_ERR_NOT_FOUND,
                          "throng_agent_find: no agent has host key %llu",
                          (unsigned long long)key);
    *out = handle_of(w, e->slot);
    return THRONG_OK;
}

throng_status throng_agent_index(const throng_world *cw, throng_agent h,
                                 uint32_t *out) {
    READ_ENTRY(cw, w, "throng_agent_index", out, "out_index");
    uint32_t i;
    RESOLVE(w, "throng_agent_index", h, i);
    *out = i;
    return THRONG_OK;
}

throng_status throng_agent_at(const throng_world *cw, uint32_t index,
                              throng_agent *out) {
    READ_ENTRY(cw, w, "throng_agent_at", out, "out_agent");
    if (index >= w->count)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "throng_agent_at: index %u is not below the agent "
                          "count %u",
                          index, w->count);
    *out = handle_of(w, w->col.slot[index]);
    return THRONG_OK;
}

/* Getters share one shape: check the world and out pointer, resolve the
 * handle, copy. Setters: check the world, resolve the handle to row i. */
#define GETTER_PROLOGUE(fn)            \
    READ_ENTRY(cw, w, fn, out, "out"); \
    uint32_t i;                        \
    RESOLVE(w, fn, h, i)

#define SETTER_PROLOGUE(fn) \
    WRITE_ENTRY(w);         \
    uint32_t i;             \
    RESOLVE(w, fn, h, i)

/* Row i of the columns x, y, z as a vector (z reads 0 in a 2D world). */
static void column_vec(const throng_world *w, const float *x, const float *y,
                       const float *z, uint32_t i, float out[3]) {
    out[0] = x[i];
    out[1] = y[i];
    out[2] = w->dims == 3 ? z[i] : 0.0f;
}

throng_status throng_agent_get_def(const throng_world *cw, throng_agent h,
                                   throng_agent_def *out) {
    GETTER_PROLOGUE("throng_agent_get_def");
    const agent_columns *c = &w->col;
    memset(out, 0, sizeof *out);
    column_vec(w, c->px, c->py, c->pz, i, out->position);
    column_vec(w, c->vx, c->vy, c->vz, i, out->velocity);
    out->mass = c->mass[uniform_row(w, UNIFORM_MASS, i)];
    out->max_force = c->max_force[uniform_row(w, UNIFORM_MAX_FORCE, i)];
    out->max_speed = c->max_speed[uniform_row(w, UNIFORM_MAX_SPEED, i)];
    out->radius = c->radius[i];
    out->group = group_handle(w, c->group[i]);
    out->host_key = slot_host_key(w, c->slot[i]);
    return THRONG_OK;
}

throng_status throng_agent_get_position(const throng_world *cw, throng_agent h,
                                        float out[3]) {
    GETTER_PROLOGUE("throng_agent_get_position");
    column_vec(w, w->col.px, w->col.py, w->col.pz, i, out);
    return THRONG_OK;
}

throng_status throng_agent_get_velocity(const throng_world *cw, throng_agent h,
                                        float out[3]) {
    GETTER_PROLOGUE("throng_agent_get_velocity");
    column_vec(w, w->col.vx, w->col.vy, w->col.vz, i, out);
    return THRONG_OK;
}

throng_status throng_agent_get_basis(const throng_world *cw, throng_agent h,
                                     float forward[3], float up[3],
                                     float side[3]) {
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!forward || !up || !side)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_agent_get_basis: forward, up and side must "
                          "not be NULL");
    uint32_t i;
    RESOLVE(w, "throng_agent_get_basis", h, i);
    const agent_columns *c = &w->col;
    forward[0] = c->fx[i];
    forward[1] = c->fy[i];
    if (w->dims == 3) {
        forward[2] = c->fz[i];
        up[0] = c->ux[i];
        up[1] = c->uy[i];
        up[2] = c->uz[i];
    } else {
        forward[2] = 0.0f;
        up[0] = 0.0f;
        up[1] = 0.0f;
        up[2] = 1.0f;
    }
    side[0] = forward[1] * up[2] - forward[2] * up[1];
    side[1] = forward[2] * up[0] - forward[0] * up[2];
    side[2] = forward[0] * up[1] - forward[1] * up[0];
    return THRONG_OK;
}

#define SCALAR_GETTER(name, column, bit)                                \
    throng_status throng_agent_get_##name(const throng_world *cw,       \
                                          throng_agent h, float *out) { \
        GETTER_PROLOGUE("throng_agent_get_" #name);                     \
        *out = w->col.column[uniform_row(w, bit, i)];                   \
        return THRONG_OK;                                               \
    }

SCALAR_GETTER(mass, mass, UNIFORM_MASS)
SCALAR_GETTER(max_force, max_force, UNIFORM_MAX_FORCE)
SCALAR_GETTER(max_speed, max_speed, UNIFORM_MAX_SPEED)
SCALAR_GETTER(radius, radius, UNIFORM_RADIUS)

throng_status throng_agent_get_host_key(const throng_world *cw, throng_agent h,
                                        uint64_t *out) {
    GETTER_PROLOGUE("throng_agent_get_host_key");
    *out = slot_host_key(w, w->col.slot[i]);
    return THRONG_OK;
}

/* What the setters of an agent's vector check first: the vector is given
 * (`what`), the handle names a live agent (its row in *row) and every
 * component is finite. */
static throng_status vector_arg(throng_world *w, const char *fn, throng_agent h,
                                const float *v, const char *what,
                                uint32_t *row) {
    if (!v)
        return null_fail(w, fn, what);
    RESOLVE(w, fn, h, *row);
    return check_vec(w, fn, what, v);
}

/* Sets an agent's position or velocity: vector_arg's checks, then the
 * vector (a position wrapped into the periodic box first) in the columns
 * x, y and, in 3D, z. */
static throng_status set_vector(throng_world *w, const char *fn, throng_agent h,
                                const float *v, const char *what, int position,
                                float *x, float *y, float *z) {
    uint32_t i = 0;
    throng_status st = vector_arg(w, fn, h, v, what, &i);
    if (st != THRONG_OK)
        return st;
    float p[3] = { v[0], v[1], w->dims == 3 ? v[2] : 0.0f };
    if (position)
        world_wrap_position(w, p);
    x[i] = p[0];
    y[i] = p[1];
    if (w->dims == 3)
        z[i] = p[2];
    w->grid.valid = 0;
    return THRONG_OK;
}

throng_status throng_agent_set_position(throng_world *w, throng_agent h,
                                        const float position[3]) {
    WRITE_ENTRY(w);
    return set_vector(w, "throng_agent_set_position", h, position, "position",
                      1, w->col.px, w->col.py, w->col.pz);
}

throng_status throng_world_tick_set_positions(throng_world *w, uint32_t count,
                                              const throng_agent *agents,
                                              const float *positions) {
    static const char fn[] = "throng_world_tick_set_positions";
    WRITE_ENTRY(w);
    if (count > 0 && (!agents || !positions))
        return world_fail(w, THRONG_ERR_NULL,
                          "%s: agents and positions must not be NULL when "
                          "count is %u",
                          fn, count);
    if (!w->tick_open)
        return world_fail(w, THRONG_ERR_INVALID_ARG,
                          "%s: no tick is open (throng_world_tick_begin "
                          "opens one)",
                          fn);
    /* Every handle and every position checked before anything changes. */
    for (uint32_t i = 0; i < count; i++) {
        if (handle_slot(w, agents[i]) < 0) {
            char name[80];
            snprintf(name, sizeof name, "%s: agents[%u]", fn, i);
            return stale(w, name, agents[i]);
        }
    }
    throng_status st = check_vecs(w, fn, "positions", positions, count, 3);
    if (st != THRONG_OK)
        return st;
    agent_columns *c = &w->col;
    for (uint32_t i = 0; i < count; i++) {
        const uint32_t row = w->slot_dense[handle_slot(w, agents[i])];
        float p[3] = { positions[3 * i], positions[3 * i + 1],
                       w->dims == 3 ? positions[3 * i + 2] : 0.0f };
        world_wrap_position(w, p);
        c->px[row] = p[0];
        c->py[row] = p[1];
        if (w->dims == 3)
            c->pz[row] = p[2];
    }
    /* The tick's grid stays (its cells are those of the positions before
     * the move, as ever); the contact lists, which count each row's own
     * travel, walk anew. */
    if (count > 0)
        w->tick_contact.rebuild = 1;
    return THRONG_OK;
}

throng_status throng_agent_set_velocity(throng_world *w, throng_agent h,
                                        const float velocity[3]) {
    WRITE_ENTRY(w);
    return set_vector(w, "throng_agent_set_velocity", h, velocity, "velocity",
                      0, w->col.vx, w->col.vy, w->col.vz);
}

#define SCALAR_SETTER(name, positive, bit)                                   \
    throng_status throng_agent_set_##name(throng_world *w, throng_agent h,   \
                                          float value) {                     \
        static const char fn[] = "throng_agent_set_" #name;                  \
        SETTER_PROLOGUE(fn);                                                 \
        throng_status st = check_scalar(w, fn, #name, value, positive);      \
        if (st != THRONG_OK)                                                 \
            return st;                                                       \
        if (column_make_room(w, bit, i, value))                              \
            return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,                   \
                              "%s: no memory for a column of %u agents", fn, \
                              w->capacity);                                  \
        column_put(w, bit, i, value);                                        \
        world_uniform_note(w, bit, i);                                       \
        return THRONG_OK;                                                    \
    }

SCALAR_SETTER(mass, 1, UNIFORM_MASS)
SCALAR_SETTER(max_force, 0, UNIFORM_MAX_FORCE)
SCALAR_SETTER(max_speed, 0, UNIFORM_MAX_SPEED)
SCALAR_SETTER(radius, SCALAR_LENGTH, UNIFORM_RADIUS)

throng_status throng_agent_set_host_key(throng_world *w, throng_agent h,
                                        uint64_t key) {
    static const char fn[] = "throng_agent_set_host_key";
    SETTER_PROLOGUE(fn);
    uint64_t old = slot_host_key(w, w->col.slot[i]);
    if (key == old)
        return THRONG_OK;
    if (reserve_slot_keys(w))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for the slots' host keys", fn);
    if (key != 0) {
        key_entry *found = NULL;
        HASH_FIND(hh, w->keys, &key, sizeof(uint64_t), found);
        if (found)
            return world_fail(w, THRONG_ERR_DUPLICATE_KEY,
                              "%s: host key %llu already names an agent", fn,
                              (unsigned long long)key);
        if (agent_key_add(w, key, w->col.slot[i]))
            return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                              "%s: no memory for the host key", fn);
    }
    if (old != 0)
        agent_key_drop(w, old);
    w->slot_keys[w->col.slot[i]] = key;
    w->keys_stale = 1;
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* Behaviour state                                                          */
/* ------------------------------------------------------------------------ */

static throng_status need_state(throng_world *w, const char *fn) {
    if (world_enable_behaviour_state(w))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for the behaviour state of %u agents",
                          fn, w->capacity);
    return THRONG_OK;
}

throng_status throng_agent_set_target_point(throng_world *w, throng_agent h,
                                            const float point[3]) {
    static const char fn[] = "throng_agent_set_target_point";
    WRITE_ENTRY(w);
    uint32_t i = 0;
    throng_status st = vector_arg(w, fn, h, point, "point", &i);
    if (st != THRONG_OK || (st = need_state(w, fn)) != THRONG_OK)
        return st;
    w->col.tx[i] = point[0];
    w->col.ty[i] = point[1];
    world_uniform_note(w, UNIFORM_TX, i);
    world_uniform_note(w, UNIFORM_TY, i);
    if (w->dims == 3) {
        w->col.tz[i] = point[2];
        world_uniform_note(w, UNIFORM_TZ, i);
    }
    return THRONG_OK;
}

throng_status throng_agent_get_target_point(const throng_world *cw,
                                            throng_agent h, float out[3]) {
    static const char fn[] = "throng_agent_get_target_point";
    GETTER_PROLOGUE(fn);
    int on = w->behaviour_state;
    out[0] = on ? w->col.tx[i] : 0.0f;
    out[1] = on ? w->col.ty[i] : 0.0f;
    out[2] = on && w->dims == 3 ? w->col.tz[i] : 0.0f;
    return THRONG_OK;
}

throng_status throng_agent_set_target_agent(throng_world *w, throng_agent h,
                                            throng_agent target) {
    static const char fn[] = "throng_agent_set_target_agent";
    SETTER_PROLOGUE(fn);
    int none = target.slot == 0 && target.generation == 0 && target.world == 0;
    if (!none) {
        /* Targets are kept as slot and generation: a handle of another
         * world is refused here, so every stored target is this world's. */
        int64_t s = handle_slot(w, target);
        if (s < 0)
            return handle_fail(w, fn, "target", target.slot, target.generation,
                               target.world, "agent");
        if ((uint32_t)s == w->col.slot[i])
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: an agent cannot target itself", fn);
    }
    throng_status st = need_state(w, fn);
    if (st != THRONG_OK)
        return st;
    w->col.target_slot[i] = none ? 0 : target.slot;
    w->col.target_gen[i] = none ? 0 : target.generation;
    world_uniform_note(w, UNIFORM_TARGET_SLOT, i);
    world_uniform_note(w, UNIFORM_TARGET_GEN, i);
    return THRONG_OK;
}

throng_status throng_agent_get_target_agent(const throng_world *cw,
                                            throng_agent h, throng_agent *out) {
    static const char fn[] = "throng_agent_get_target_agent";
    GETTER_PROLOGUE(fn);
    out->slot = w->behaviour_state ? w->col.target_slot[i] : 0;
    out->generation = w->behaviour_state ? w->col.target_gen[i] : 0;
    /* The null handle stays all zero. */
    out->world = out->slot != 0 ? w->id : 0u;
    return THRONG_OK;
}

throng_status throng_agent_set_progress(throng_world *w, throng_agent h,
                                        uint32_t progress) {
    static const char fn[] = "throng_agent_set_progress";
    SETTER_PROLOGUE(fn);
    throng_status st = need_state(w, fn);
    if (st != THRONG_OK)
        return st;
    w->col.progress[i] = progress;
    return THRONG_OK;
}

throng_status throng_agent_get_progress(const throng_world *cw, throng_agent h,
                                        uint32_t *out) {
    static const char fn[] = "throng_agent_get_progress";
    GETTER_PROLOGUE(fn);
    *out = w->behaviour_state ? w->col.progress[i] : 0;
    return THRONG_OK;
}

throng_status throng_agent_get_group(const throng_world *cw, throng_agent h,
                                     throng_group *out) {
    static const char fn[] = "throng_agent_get_group";
    GETTER_PROLOGUE(fn);
    *out = group_handle(w, w->col.group[i]);
    return THRONG_OK;
}

throng_status throng_agent_set_group(throng_world *w, throng_agent h,
                                     throng_group handle) {
    static const char fn[] = "throng_agent_set_group";
    SETTER_PROLOGUE(fn);
    uint32_t group = 0;
    throng_status st = group_resolve(w, fn, handle, 1, &group);
    if (st != THRONG_OK)
        return st;
    w->col.group[i] = group;
    world_uniform_note(w, UNIFORM_GROUP, i);
    return THRONG_OK;
}
