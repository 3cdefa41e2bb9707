/* SPDX-License-Identifier: MIT */
/*
 * Navigation fields as world objects, and the agents that follow them: the
 * public calls (make, sample, read, set costs, rebuild), what a tick does
 * with fields before its stages (count the crowd when due, rebuild what
 * is out of date) and after them (list the agents that arrived, remove
 * those that asked to be), and an agent's own field.
 *
 * A field is an object of the world's table (geometry.h, kind GEO_NAV),
 * so it has a handle, is removed, saved and rebound like any other; the
 * table's row points to the field (nav_field.h), which owns its blocks.
 * Making one checks the definition in full, then builds it: a goal wholly
 * in impassable cells, or a field where no cell but the goals reaches
 * one, can only be told from the built raster, so the field is built
 * before it is stored and freed on such a refusal, leaving the world as
 * it was.
 *
 * Arrivals are read after the step, not announced during it: the
 * behaviour marks its own agent's slot (slot_nav) when it arrives, and the
 * end of the tick walks the slots in order, lists each arrival and, when
 * the behaviour asked, removes the agent. Slot order makes the removals,
 * and so the rows they move, the same on every thread count.
 */
#include "nav_objects.h"
#include "nav_field.h"
#include "agent.h"
#include "busy.h"
#include "columns.h"
#include "core.h"
#include "geometry.h"
#include "handles.h"

#include <math.h>
#include <string.h>

throng_nav_field_def throng_nav_field_def_default(void) {
    throng_nav_field_def d;
    memset(&d, 0, sizeof d);
    d.cell_size = 1.0f;
    for (int k = 0; k < 3; k++)
        d.size[k] = 1u;
    d.density_radius = 1.0f;
    return d;
}

/* The live field behind a handle, or the refusal recorded. */
static nav_field *field_of(throng_world *w, const char *fn, throng_object h) {
    const geo_object *o = geo_lookup(w, h, GEO_MASK(GEO_NAV));
    if (!o) {
        handle_fail(w, fn, "object", h.id, h.generation, h.world,
                    "navigation field");
        return NULL;
    }
    return o->nav;
}

/* A build on the world's threads, outside a step. */
typedef struct build_job {
    throng_world *w;
    nav_field *f;
    int full;
} build_job;

static void build_body(parallel_sched *sched, void *arg) {
    build_job *j = arg;
    nav_field_build(j->w, j->f, sched, j->full);
}

/* Builds f now; THRONG_ERR_OUT_OF_RANGE when the host's task hooks broke
 * their contract (the field is then marked for a full build). */
static throng_status build_now(throng_world *w, const char *fn, nav_field *f,
                               int full) {
    parallel_sched sched = world_scheduler(w);
    build_job job = { w, f, full };
    const uint64_t cells = f->cells;
    parallel_session(&sched, cells > UINT32_MAX ? UINT32_MAX : (uint32_t)cells,
                     build_body, &job);
    if (sched.failed) {
        f->built = 0;
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE, "%s: %s", fn,
                          TASK_HOOKS_BROKEN);
    }
    return THRONG_OK;
}

throng_status throng_nav_field_add(throng_world *w,
                                   const throng_nav_field_def *def,
                                   throng_object *out) {
    static const char fn[] = "throng_nav_field_add";
    WRITE_ENTRY(w);
    if (!def || !out)
        return null_fail(w, fn, !def ? "def" : "out_object");
    throng_status st = nav_field_check_def(w, fn, def);
    if (st != THRONG_OK)
        return st;
    nav_field *f = nav_field_create(w, fn, def);
    if (!f)
        return THRONG_ERR_OUT_OF_MEMORY;
    st = build_now(w, fn, f, 1);
    for (uint32_t i = 0; i < f->goal_count && st == THRONG_OK; i++)
        if (nav_field_goal_blocked(f, i))
            st = world_fail(w, THRONG_ERR_INVALID_ARG,
                            "%s: goals[%u] lies wholly in impassable cells "
                            "(inside an obstacle or wall, within the "
                            "clearance's reach of one being allowed, or at "
                            "cost 0)",
                            fn, i);
    uint64_t reached = 0u, free_reached = 0u;
    if (st == THRONG_OK)
        nav_field_reached(f, &reached, &free_reached);
    if (st == THRONG_OK && free_reached == 0u)
        st = world_fail(w, THRONG_ERR_INVALID_ARG,
                        "%s: no free cell reaches a goal (every way out of "
                        "the goals is impassable)",
                        fn);
    if (st == THRONG_OK)
        st = geo_reserve(w, fn);
    if (st != THRONG_OK) {
        nav_field_free(w, f);
        return st;
    }
    geo_object o;
    memset(&o, 0, sizeof o);
    o.kind = GEO_NAV;
    o.nav = f;
    geo_commit(w, &o, out);
    return THRONG_OK;
}

throng_status throng_nav_field_sample(const throng_world *cw,
                                      throng_object field, const float point[3],
                                      throng_nav_sample *out) {
    static const char fn[] = "throng_nav_field_sample";
    READ_ENTRY(cw, w, fn, out, "out");
    if (!point)
        return null_fail(w, fn, "point");
    throng_status st = check_vec(w, fn, "point", point);
    if (st != THRONG_OK)
        return st;
    const nav_field *f = field_of(w, fn, field);
    if (!f)
        return THRONG_ERR_STALE_HANDLE;
    float p[3];
    for (int k = 0; k < 3; k++)
        p[k] = k < w->dims ? point[k] : 0.0f;
    nav_point s;
    nav_field_sample(f, p, &s);
    memset(out, 0, sizeof *out);
    memcpy(out->direction, s.dir, sizeof out->direction);
    out->distance = s.distance;
    out->density = s.density;
    out->inside = s.inside != 0;
    out->at_goal = s.at_goal != 0;
    return THRONG_OK;
}

/* The checks of a call that writes one value per cell of a field into a
 * caller's array of `capacity`: the world, the array, the handle, the
 * room; *out_count (may be NULL) receives the cell count once the field
 * is known. */
static throng_status cells_out(throng_world *w, const char *fn,
                               throng_object field, int has_out,
                               uint64_t capacity, uint64_t *out_count,
                               const nav_field **out_field) {
    if (!w)
        return THRONG_ERR_NULL;
    if (!has_out && capacity > 0u)
        return world_fail(w, THRONG_ERR_NULL,
                          "%s: out is NULL but capacity is %llu", fn,
                          (unsigned long long)capacity);
    const nav_field *f = field_of(w, fn, field);
    if (!f)
        return THRONG_ERR_STALE_HANDLE;
    if (out_count)
        *out_count = f->cells;
    if (capacity < f->cells)
        return world_fail(w, THRONG_ERR_CAPACITY,
                          "%s: the field has %llu cells, out holds %llu", fn,
                          (unsigned long long)f->cells,
                          (unsigned long long)capacity);
    *out_field = f;
    return THRONG_OK;
}

throng_status throng_nav_field_distances(const throng_world *cw,
                                         throng_object field, float *out,
                                         uint64_t capacity,
                                         uint64_t *out_count) {
    static const char fn[] = "throng_nav_field_distances";
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    const nav_field *f = NULL;
    const throng_status st =
        cells_out(w, fn, field, out != NULL, capacity, out_count, &f);
    if (st != THRONG_OK)
        return st;
    nav_field_distances(f, out);
    return THRONG_OK;
}

throng_status throng_nav_field_get(const throng_world *cw, throng_object field,
                                   throng_nav_field_info *out) {
    static const char fn[] = "throng_nav_field_get";
    READ_ENTRY(cw, w, fn, out, "out");
    const nav_field *f = field_of(w, fn, field);
    if (!f)
        return THRONG_ERR_STALE_HANDLE;
    memset(out, 0, sizeof *out);
    nav_field_def_of(f, &out->def);
    out->cells = f->cells;
    out->solid_cells = f->solid;
    out->margin_cells = f->margin;
    uint64_t free_reached = 0u;
    nav_field_reached(f, &out->reached_cells, &free_reached);
    out->builds = f->builds;
    out->last_cells = f->last_reset;
    out->last_full = f->last_full != 0;
    out->last_seconds = f->last_seconds;
    out->last_rounds = f->last_stats.phases;
    out->last_tiles = f->last_stats.tiles_processed;
    return THRONG_OK;
}

throng_status throng_nav_field_set_costs(throng_world *w, throng_object field,
                                         const float *costs) {
    static const char fn[] = "throng_nav_field_set_costs";
    WRITE_ENTRY(w);
    nav_field *f = field_of(w, fn, field);
    if (!f)
        return THRONG_ERR_STALE_HANDLE;
    /* The same checks as the definition's, on a copy of it with the new
     * costs. */
    throng_nav_field_def d;
    nav_field_def_of(f, &d);
    d.costs = costs;
    throng_status st = nav_field_check_def(w, fn, &d);
    if (st != THRONG_OK)
        return st;
    if (nav_field_set_costs(w, f, costs))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for the costs of %llu cells", fn,
                          (unsigned long long)f->cells);
    return THRONG_OK;
}

throng_status throng_nav_field_count_agents(const throng_world *cw,
                                            throng_object field, uint32_t *out,
                                            uint64_t capacity,
                                            uint64_t *out_count) {
    static const char fn[] = "throng_nav_field_count_agents";
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    const nav_field *f = NULL;
    const throng_status st =
        cells_out(w, fn, field, out != NULL, capacity, out_count, &f);
    if (st != THRONG_OK)
        return st;
    nav_field_count_agents(w, f, out);
    return THRONG_OK;
}

throng_status throng_nav_field_supply_counts(throng_world *w,
                                             throng_object field,
                                             const uint32_t *counts) {
    static const char fn[] = "throng_nav_field_supply_counts";
    WRITE_ENTRY(w);
    nav_field *f = field_of(w, fn, field);
    if (!f)
        return THRONG_ERR_STALE_HANDLE;
    if (!f->density_interval)
        return world_fail(w, THRONG_ERR_INVALID_ARG,
                          "%s: the field does not count its crowd "
                          "(density_interval is 0)",
                          fn);
    if (!counts) {
        f->supplied_pending = 0;
        return THRONG_OK;
    }
    /* The window sums add counts in 32 bits: the whole crowd must fit,
     * as a world's own agents always do. */
    uint64_t total = 0u;
    for (uint64_t c = 0; c < f->cells; c++)
        total += counts[c];
    if (total > UINT32_MAX)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: the counts add up to %llu agents, more than "
                          "%u",
                          fn, (unsigned long long)total, UINT32_MAX);
    const size_t bytes = (size_t)f->cells * sizeof(uint32_t);
    if (!f->supplied) {
        f->supplied = world_alloc(w, bytes);
        if (!f->supplied)
            return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                              "%s: no memory for the counts of %llu cells", fn,
                              (unsigned long long)f->cells);
        f->bytes += bytes;
    }
    memcpy(f->supplied, counts, bytes);
    f->supplied_pending = 1;
    return THRONG_OK;
}

throng_status throng_nav_field_update(throng_world *w, throng_object field) {
    static const char fn[] = "throng_nav_field_update";
    WRITE_ENTRY(w);
    nav_field *f = field_of(w, fn, field);
    if (!f)
        return THRONG_ERR_STALE_HANDLE;
    if (!nav_field_stale(w, f))
        return THRONG_OK;
    return build_now(w, fn, f, 0);
}

/* ------------------------------------------------------------------------ */
/* Ticks                                                                    */
/* ------------------------------------------------------------------------ */

void nav_prepare(throng_world *w, parallel_sched *sched) {
    geometry *g = w->geo;
    if (!g)
        return;
    for (uint32_t i = 0; i < g->count; i++) {
        nav_field *f = g->objects[i].nav;
        if (!f)
            continue;
        if (f->density_interval && w->step % f->density_interval == 0u)
            nav_field_count(w, f);
        if (nav_field_stale(w, f))
            nav_field_build(w, f, sched, 0);
    }
}

void nav_finish_tick(throng_world *w) {
    if (!w->slot_nav)
        return;
    world_links(w);
    for (uint32_t s = 0; s < w->slot_count; s++) {
        slot_nav *n = &w->slot_nav[s];
        if (n->state != SLOT_NAV_ARRIVING)
            continue;
        n->state = SLOT_NAV_ARRIVED;
        const uint32_t row = w->slot_dense[s];
        INVARIANT(row != SLOT_FREE, "an arriving slot holds an agent");
        INVARIANT(w->nav_arrival_count < w->slot_capacity,
                  "the arrivals of a step fit the slots");
        throng_nav_arrival *a = &w->nav_arrivals[w->nav_arrival_count++];
        memset(a, 0, sizeof *a);
        a->agent.slot = s + 1u;
        a->agent.generation = w->slots[s].generation;
        a->agent.world = w->id;
        a->field.id = n->arrived_id;
        a->field.generation = n->arrived_gen;
        a->field.world = w->id;
        a->goal = n->goal;
        a->position[0] = w->col.px[row];
        a->position[1] = w->col.py[row];
        a->position[2] = w->dims == 3 ? w->col.pz[row] : 0.0f;
        a->host_key = slot_host_key(w, s);
        if (n->remove) {
            a->removed = true;
            agent_remove_slot(w, s);
        }
    }
}

void nav_start_step(throng_world *w) {
    w->nav_arrival_count = 0u;
}

/* ------------------------------------------------------------------------ */
/* Agents                                                                   */
/* ------------------------------------------------------------------------ */

throng_status throng_agent_set_nav_field(throng_world *w, throng_agent agent,
                                         throng_object field) {
    static const char fn[] = "throng_agent_set_nav_field";
    WRITE_ENTRY(w);
    const int64_t s = agent_slot(w, agent);
    if (s < 0)
        return handle_fail(w, fn, "handle", agent.slot, agent.generation,
                           agent.world, "agent");
    const int clear =
        field.id == 0u && field.generation == 0u && field.world == 0u;
    if (!clear && !field_of(w, fn, field))
        return THRONG_ERR_STALE_HANDLE;
    if (world_enable_nav_state(w))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for the navigation state of %u "
                          "slots",
                          fn, w->slot_capacity);
    slot_nav *n = &w->slot_nav[s];
    memset(n, 0, sizeof *n);
    n->field_id = field.id;
    n->field_gen = field.generation;
    return THRONG_OK;
}

throng_status throng_agent_get_nav(const throng_world *cw, throng_agent agent,
                                   throng_agent_nav *out) {
    static const char fn[] = "throng_agent_get_nav";
    READ_ENTRY(cw, w, fn, out, "out");
    const int64_t s = agent_slot(w, agent);
    if (s < 0)
        return handle_fail(w, fn, "handle", agent.slot, agent.generation,
                           agent.world, "agent");
    memset(out, 0, sizeof *out);
    if (!w->slot_nav)
        return THRONG_OK;
    const slot_nav *n = &w->slot_nav[s];
    if (n->field_id) {
        out->field.id = n->field_id;
        out->field.generation = n->field_gen;
        out->field.world = w->id;
    }
    out->arrived = n->state != SLOT_NAV_GOING;
    if (out->arrived) {
        out->goal = n->goal;
        out->arrived_field.id = n->arrived_id;
        out->arrived_field.generation = n->arrived_gen;
        out->arrived_field.world = w->id;
    }
    return THRONG_OK;
}

throng_status throng_world_nav_arrivals(const throng_world *cw,
                                        throng_nav_arrival *out,
                                        uint32_t capacity, uint32_t *out_count,
                                        bool *out_truncated) {
    static const char fn[] = "throng_world_nav_arrivals";
    READ_ENTRY(cw, w, fn, out_count, "out_count");
    if (!out && capacity > 0u)
        return world_fail(w, THRONG_ERR_NULL,
                          "%s: out is NULL but capacity is %u", fn, capacity);
    const uint32_t n = w->slot_nav ? w->nav_arrival_count : 0u;
    const uint32_t copy = n < capacity ? n : capacity;
    if (copy)
        memcpy(out, w->nav_arrivals, (size_t)copy * sizeof *out);
    *out_count = n;
    if (out_truncated)
        *out_truncated = n > capacity;
    return THRONG_OK;
}
