/* SPDX-License-Identifier: MIT */
/*
 * Snapshots, restoring: a new world made from a payload whose header and
 * checksum passed (snapshot_read.c), section by section, each read by the
 * codec (snapshot_codec.c) and checked.
 *
 * Loading builds a fresh world through the ordinary creation path and
 * fills it section by section; the world is handed over only when every
 * section was read and checked, and destroyed on any failure, so a caller
 * never sees a half-restored world. Groups go through the public group
 * functions, which validate them and keep the name table, and host keys
 * through throng_agent_set_host_key, which keeps the key table; columns,
 * the slot table and the object table are copied in directly, since no
 * public call could reproduce their order.
 *
 * The checksum catches truncation and corruption. The checks behind it
 * are for a snapshot that passes the checksum yet was not written by this
 * library: the structure (counts against the bytes left, the slot table a
 * permutation of the rows, every id in range), and every object and agent
 * through the very checks that creating it runs (geo_object_check,
 * world_check_row), so a loaded world holds nothing its own calls would
 * have refused.
 */
#include "snapshot_restore.h"
#include "nav_field.h"
#include "behaviour.h"
#include "schema.h"
#include "geometry.h"
#include "agent.h"
#include "columns.h"
#include "core.h"
#include "group.h"
#include "group_handle.h"
#include "grid_plan.h"

#include <stdio.h>
#include <string.h>

/* The fewest payload bytes each counted item takes, to refuse counts the
 * snapshot cannot hold before allocating for them: a slot is a generation
 * and a key, an agent at least 11 floats and 2 integers (a 2D world
 * without behaviour state), an object a kind and a generation, a group its
 * name and fixed fields. */
#define SNAP_MIN_SLOT_BYTES 12u
#define SNAP_MIN_AGENT_BYTES 52u
#define SNAP_MIN_OBJECT_BYTES 8u
#define SNAP_MIN_GROUP_BYTES 140u

/* Maps a refusal of a public call made while loading: running out of
 * memory stays that; anything else means the snapshot holds what the
 * library would never have accepted. */
static void snap_refused(snap_codec *c, throng_world *w, throng_status st,
                         const char *what) {
    snap_fail(c,
              st == THRONG_ERR_OUT_OF_MEMORY ? THRONG_ERR_OUT_OF_MEMORY
                                             : THRONG_ERR_BAD_SNAPSHOT,
              "%s: %s", what, w->error);
}

/* The settings must describe a world this library could have made, and
 * the counts must fit the bytes left. */
static void check_settings(snap_codec *c, const snap_settings *s) {
    int old = c->version < SNAP_VERSION_WORLD_ID;
    if ((s->dims != 2u && s->dims != 3u) || s->boundary > 1u ||
        (old ? s->tag == 0u || s->tag > 255u : s->world_id == 0u) ||
        s->wander_used > 1u || s->behaviour_state > 1u ||
        s->has_geometry > 1u) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "settings out of range (dimensions %u, boundary %u, %s "
                  "%llu, flags %u %u %u)",
                  s->dims, s->boundary, old ? "tag" : "world id",
                  (unsigned long long)(old ? s->tag : s->world_id),
                  s->wander_used, s->behaviour_state, s->has_geometry);
        return;
    }
    /* Slots neither live nor on the free list are retired (none before
     * version 3); load_agents checks each. */
    if (s->group_count == 0u || s->group_count > THRONG_MAX_GROUPS ||
        s->slot_count > THRONG_MAX_AGENTS || s->agent_count > s->slot_count ||
        s->slot_free > s->slot_count - s->agent_count ||
        s->object_count > THRONG_MAX_OBJECTS ||
        s->object_free > s->object_count ||
        s->group_free > s->group_count - 1u ||
        (!s->has_geometry && s->object_count != 0u)) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "inconsistent counts: %u groups, %u slots (%u free), %u "
                  "agents, %u objects (%u free)",
                  s->group_count, s->slot_count, s->slot_free, s->agent_count,
                  s->object_count, s->object_free);
        return;
    }
    /* From version 4 a removed group is its generation and flag alone. */
    const uint64_t group_bytes =
        c->version >= SNAP_VERSION_GROUP_HANDLES ? 8u : SNAP_MIN_GROUP_BYTES;
    uint64_t least = (uint64_t)s->group_count * group_bytes +
                     (uint64_t)s->group_free * 4u +
                     (uint64_t)s->object_count * SNAP_MIN_OBJECT_BYTES +
                     (uint64_t)s->object_free * 4u +
                     (uint64_t)s->slot_count * SNAP_MIN_SLOT_BYTES +
                     (uint64_t)s->slot_free * 4u +
                     (uint64_t)s->agent_count * SNAP_MIN_AGENT_BYTES;
    snap_has(c, least, "the counted groups, objects, slots and agents");
}

/* Gives the new world the saved grid cells. The world was created with
 * the saved cell size (before version 2, the cell edge along x), and the
 * grid planned its cells from it (grid_plan), which reproduces an
 * unbounded grid exactly. A periodic box stretches its cells to fit a
 * whole number, and a world loaded from an older snapshot keeps the cells
 * it was saved with, so the saved cells of each axis are checked with the
 * grid's own rule for cutting an axis (grid_plan_axis) and then put in
 * place by the grid (grid_set_plan). */
static void restore_grid_plan(snap_codec *c, throng_world *w,
                              const snap_settings *s) {
    grid *g = &w->grid;
    if (w->boundary != THRONG_BOUNDARY_PERIODIC) {
        for (int a = 0; a < 3; a++)
            if (memcmp(&g->edge[a], &s->edge[a], sizeof(float)) != 0 ||
                g->reach[a] != s->reach[a] || s->cells[a] != 0) {
                snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                          "the grid's cells on axis %d are not those its "
                          "cell edge gives",
                          a);
                return;
            }
        return;
    }
    uint64_t cells = 1u;
    int reaches[3];
    for (int a = 0; a < 3; a++) {
        int32_t n = s->cells[a], reach = s->reach[a];
        float edge = s->edge[a];
        int ok = is_finite_float(edge) && edge > 0.0f;
        if (a >= w->dims) {
            ok = ok && n == 1 && reach == 0;
        } else {
            float plan_edge;
            int plan_reach;
            ok = ok &&
                 grid_plan_axis(w->box[a], w->neighbour_radius, n, &plan_edge,
                                &plan_reach) &&
                 memcmp(&plan_edge, &edge, sizeof edge) == 0 &&
                 plan_reach == reach && reach <= GRID_MAX_REACH;
        }
        if (!ok) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "the periodic grid's axis %d (%d cells of %g m, reach "
                      "%d) is not one this box allows",
                      a, n, (double)edge, reach);
            return;
        }
        reaches[a] = (int)reach;
        /* Checked per axis, so the product never wraps. */
        cells *= (uint64_t)n;
        if (cells > GRID_MAX_CELLS) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "the periodic grid has more than %u cells",
                      GRID_MAX_CELLS);
            return;
        }
    }
    grid_set_plan(g, s->cells, s->edge, reaches);
}

static void load_geometry(snap_codec *c, throng_world *w,
                          const snap_settings *s) {
    geometry *g = world_alloc(w, sizeof *g);
    if (!g) {
        snap_fail(c, THRONG_ERR_OUT_OF_MEMORY,
                  "no memory for the object table");
        return;
    }
    memset(g, 0, sizeof *g);
    w->geo = g;
    uint32_t cap = s->object_count;
    if (cap > 0) {
        g->objects = world_alloc(w, (size_t)cap * sizeof *g->objects);
        g->free_ids = world_alloc(w, (size_t)cap * sizeof *g->free_ids);
        if (g->objects)
            memset(g->objects, 0, (size_t)cap * sizeof *g->objects);
        if (!g->objects || !g->free_ids) {
            /* Sized as allocated, so destroying the world frees them. */
            g->capacity = cap;
            snap_fail(c, THRONG_ERR_OUT_OF_MEMORY, "no memory for %u objects",
                      cap);
            return;
        }
    }
    g->capacity = cap;
    for (uint32_t i = 0; i < cap && c->status == THRONG_OK; i++) {
        geo_object *o = &g->objects[i];
        io_object(c, w, o);
        /* Counted as soon as it holds a block, which is then the world's
         * to free. */
        g->count = i + 1u;
        g->data_bytes += o->data_bytes;
        if (c->status == THRONG_OK) {
            /* The checks its creation made, from the same code. */
            char what[32];
            snprintf(what, sizeof what, "object %u", i + 1u);
            if (geo_object_check(w, what, o) != THRONG_OK)
                snap_fail(c, THRONG_ERR_BAD_SNAPSHOT, "%s", w->error);
        }
        g->live += o->kind != GEO_FREE;
        g->planes += o->kind == GEO_PLANE;
    }
    if (c->status != THRONG_OK)
        return;
    io_u32s(c, g->free_ids, s->object_free);
    if (c->status != THRONG_OK)
        return;
    g->free_count = s->object_free;
    if (g->live > g->count - g->free_count) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "%u of %u objects are live, but %u ids are free", g->live,
                  g->count, g->free_count);
        return;
    }
    /* Every free id names a free object, once: mark each as seen with a
     * kind no object has, then clear the marks. */
    const geo_kind seen = (geo_kind)(GEO_NAV + 1);
    for (uint32_t k = 0; k < g->free_count && c->status == THRONG_OK; k++) {
        uint32_t id = g->free_ids[k];
        if (id >= g->count || g->objects[id].kind != GEO_FREE)
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "free object id %u is not a free object", id + 1u);
        else
            g->objects[id].kind = seen;
    }
    /* A free id not on the list is retired: it holds the last generation
     * (before version 3, no id was ever retired). */
    for (uint32_t i = 0; i < g->count && c->status == THRONG_OK; i++)
        if (g->objects[i].kind == GEO_FREE &&
            (c->version < SNAP_VERSION_WORLD_ID ||
             g->objects[i].generation != SLOT_LAST_GENERATION))
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "object id %u is free, but neither on the free list "
                      "nor retired",
                      i + 1u);
    for (uint32_t i = 0; i < g->count; i++)
        if (g->objects[i].kind == seen)
            g->objects[i].kind = GEO_FREE;
    g->version = 1u; /* the object grid is built by the first step */
}

/* A behaviour passes the checks its group functions made, except that a
 * path or flow field it names may have been removed since (then the
 * behaviour is quiet). Fields its kind does not read are set to their
 * defaults first: libraries before 0.5 stored them as given. */
static throng_status check_loaded_behaviour(throng_world *w,
                                            throng_behaviour *b) {
    schema_normalise(b);
    return schema_check(w, "behaviour", SCHEMA_SET_BEHAVIOUR, b, 1);
}

static void load_group(snap_codec *c, throng_world *w, uint32_t id) {
    group_record rec;
    memset(&rec, 0, sizeof rec);
    io_group(c, &rec);
    if (c->status != THRONG_OK)
        return;
    /* A name is zero-padded and ends within its 64 bytes. */
    const char *end = memchr(rec.name, '\0', sizeof rec.name);
    size_t len = end ? (size_t)(end - rec.name) : sizeof rec.name;
    int padded = end != NULL;
    for (size_t k = len; k < sizeof rec.name && padded; k++)
        padded = rec.name[k] == '\0';
    if (!padded || (id == 0u && strcmp(rec.name, "default") != 0)) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT, "group %u: its name is not valid",
                  id);
        return;
    }
    char what[48];
    snprintf(what, sizeof what, "group %u", id);
    throng_status st;
    if (id == 0u) {
        /* Group 0 exists in every world: give it the saved recipe. */
        const throng_group g0 = group_handle(w, 0u);
        st = throng_group_set_flocking(w, g0, &rec.flocking);
        if (st == THRONG_OK)
            st = throng_group_set_wander(w, g0, &rec.wander);
        if (st == THRONG_OK)
            st = throng_group_set_combine(w, g0, rec.combine);
        if (st == THRONG_OK)
            st = throng_group_set_avoidance(w, g0, &rec.avoidance);
        if (st == THRONG_OK)
            st = throng_group_set_motion(w, g0, &rec.motion);
        if (st == THRONG_OK)
            st = throng_group_set_layers(w, g0, &rec.layers);
    } else {
        throng_group_def def = throng_group_def_default();
        def.name = len ? rec.name : NULL;
        def.flocking = rec.flocking;
        def.wander = rec.wander;
        def.combine = rec.combine;
        def.avoidance = rec.avoidance;
        def.motion = rec.motion;
        def.layers = rec.layers;
        throng_group got = THRONG_NULL_GROUP;
        st = throng_group_create(w, &def, &got);
        if (st == THRONG_OK && got.id != id) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT, "group %u was created as %u",
                      id, got.id);
            return;
        }
    }
    for (uint32_t i = 0; i < rec.behaviour_count && st == THRONG_OK; i++)
        st = check_loaded_behaviour(w, &rec.behaviours[i]);
    if (st != THRONG_OK) {
        snap_refused(c, w, st, what);
        return;
    }
    group_record *g = &w->groups[id];
    memcpy(g->behaviours, rec.behaviours, sizeof rec.behaviours);
    g->behaviour_count = rec.behaviour_count;
    group_derive_params(w, id);
}

/* A removed group's id: held, while loading, by an unnamed group with the
 * default recipe, which load_groups turns into a hole. */
static void load_hole(snap_codec *c, throng_world *w, uint32_t id) {
    throng_group_def def = throng_group_def_default();
    throng_group got = THRONG_NULL_GROUP;
    throng_status st = throng_group_create(w, &def, &got);
    if (st != THRONG_OK)
        snap_refused(c, w, st, "a removed group");
    else if (got.id != id)
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT, "group %u was created as %u", id,
                  got.id);
}

/* Every group id with its generation, the live groups' recipes, then the
 * free stack: each listed id a hole, listed once; a hole not listed is
 * retired, which only its last generation allows. */
static void load_groups(snap_codec *c, throng_world *w,
                        const snap_settings *s) {
    const int handles = c->version >= SNAP_VERSION_GROUP_HANDLES;
    /* Per id: 0 live, 1 a hole, 2 a hole listed as free. */
    uint8_t hole[THRONG_MAX_GROUPS];
    uint32_t free_ids[THRONG_MAX_GROUPS];
    for (uint32_t g = 0; g < s->group_count && c->status == THRONG_OK; g++) {
        uint32_t generation = 1u, live = 1u;
        if (handles) {
            io_u32(c, &generation);
            io_u32(c, &live);
        }
        if (c->status == THRONG_OK &&
            (generation == 0u || live > 1u || (g == 0u && !live))) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "group %u: generation %u, live flag %u", g, generation,
                      live);
            return;
        }
        hole[g] = live ? 0u : 1u;
        if (live)
            load_group(c, w, g);
        else
            load_hole(c, w, g);
        if (c->status == THRONG_OK)
            w->groups[g].generation = generation;
    }
    for (uint32_t k = 0; k < s->group_free && c->status == THRONG_OK; k++) {
        io_u32(c, &free_ids[k]);
        const uint32_t id = free_ids[k];
        if (c->status == THRONG_OK &&
            (id >= s->group_count || hole[id] != 1u)) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "free group id %u is not a removed group's, or is "
                      "listed twice",
                      id);
            return;
        }
        hole[id] = 2u;
    }
    for (uint32_t g = 0; g < s->group_count && c->status == THRONG_OK; g++) {
        if (hole[g] == 1u && w->groups[g].generation != SLOT_LAST_GENERATION) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "group id %u is neither live, free nor retired", g);
            return;
        }
        if (hole[g])
            w->groups[g].live = 0;
    }
    /* Back on the stack bottom first, so its order is kept. */
    for (uint32_t k = s->group_free; k-- > 0u && c->status == THRONG_OK;)
        group_push_free(w, free_ids[k]);
}

/* The slot table and the columns, then the checks that tie them together:
 * every row names a distinct slot, every other slot is free exactly once,
 * and host keys are unique (the key table refuses duplicates). */
static void load_agents(snap_codec *c, throng_world *w,
                        const snap_settings *s) {
    /* Creation reserved slot_count rows and slots. */
    w->slot_count = s->slot_count;
    for (uint32_t i = 0; i < s->slot_count && c->status == THRONG_OK; i++) {
        slot_entry *e = &w->slots[i];
        uint64_t key = 0;
        io_u32(c, &e->generation);
        io_u64(c, &key);
        /* Most worlds key no agent and keep no key array. */
        if (key != 0u && reserve_slot_keys(w))
            snap_fail(c, THRONG_ERR_OUT_OF_MEMORY,
                      "no memory for the host keys of %u slots", s->slot_count);
        else if (key != 0u)
            w->slot_keys[i] = key;
        if (c->status == THRONG_OK && c->version < SNAP_VERSION_WORLD_ID) {
            if (e->generation >> SNAP_TAG_SHIFT != c->tag ||
                (e->generation & SNAP_COUNTER_MASK) == 0u)
                snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                          "slot %u: generation %#x is not of the saved "
                          "world's tag %u",
                          i, e->generation, c->tag);
            e->generation &= SNAP_COUNTER_MASK;
        } else if (c->status == THRONG_OK && e->generation == 0u) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT, "slot %u: generation 0", i);
        }
        w->slot_dense[i] = SLOT_FREE;
    }
    io_u32s(c, w->free_slots, s->slot_free);
    w->free_count = s->slot_free;
    /* Every row is read; the uniform columns are folded again after. Until
     * then no column is known uniform, so each row's own values are the
     * ones checked (a uniform bit would send the checks to row 0). */
    if (c->status == THRONG_OK && world_unfold_columns(w))
        snap_fail(c, THRONG_ERR_OUT_OF_MEMORY,
                  "no memory for the columns of %u agents", s->agent_count);
    w->uniform = 0u;
    w->uniform_check = 0u;
    w->count = s->agent_count;
    io_columns(c, w);
    if (c->status != THRONG_OK)
        return;
    if (c->version < SNAP_VERSION_WORLD_ID && w->behaviour_state)
        for (uint32_t i = 0; i < w->count; i++)
            w->col.target_gen[i] &= SNAP_COUNTER_MASK;

    const agent_columns *col = &w->col;
    for (uint32_t i = 0; i < w->count; i++) {
        uint32_t slot = col->slot[i];
        if (slot >= w->slot_count || w->slot_dense[slot] != SLOT_FREE) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "row %u names slot %u, out of range or named twice", i,
                      slot);
            return;
        }
        w->slot_dense[slot] = i;
        /* The checks adding the agent made, from the same code, and what
         * the setters and steps keep true (finite columns, which the grid
         * and the neighbours' forces rely on, a unit heading, a position
         * inside a periodic box). */
        char what[64];
        snprintf(what, sizeof what, "agent {%u, %u} (row %u)", slot + 1u,
                 w->slots[slot].generation, i);
        if (world_check_row(w, what, i) != THRONG_OK) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT, "%s", w->error);
            return;
        }
    }
    /* Free slots: each once (marked while checking), none live, no key. */
    const uint32_t seen = SLOT_FREE - 1u;
    for (uint32_t k = 0; k < w->free_count && c->status == THRONG_OK; k++) {
        uint32_t slot = w->free_slots[k];
        if (slot >= w->slot_count || w->slot_dense[slot] != SLOT_FREE ||
            slot_host_key(w, slot) != 0u)
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "free slot %u is out of range, live, listed twice or "
                      "keyed",
                      slot);
        else
            w->slot_dense[slot] = seen;
    }
    /* Any other slot without an agent is retired: it holds the last
     * generation and no key (before version 3 no slot was retired). */
    for (uint32_t i = 0; i < w->slot_count && c->status == THRONG_OK; i++)
        if (w->slot_dense[i] == SLOT_FREE &&
            (c->version < SNAP_VERSION_WORLD_ID ||
             w->slots[i].generation != SLOT_LAST_GENERATION ||
             slot_host_key(w, i) != 0u))
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "slot %u has no agent, but is neither on the free "
                      "list nor retired",
                      i);
    for (uint32_t k = 0; k < w->free_count; k++)
        if (w->free_slots[k] < w->slot_count &&
            w->slot_dense[w->free_slots[k]] == seen)
            w->slot_dense[w->free_slots[k]] = SLOT_FREE;
    if (c->status != THRONG_OK)
        return;
    /* Host keys enter the key table through the public setter, which
     * refuses a key held twice; the slot holds none until then. */
    for (uint32_t i = 0; i < w->slot_count; i++) {
        uint64_t key = slot_host_key(w, i);
        if (w->slot_dense[i] == SLOT_FREE || key == 0u)
            continue;
        w->slot_keys[i] = 0u;
        throng_agent h = { i + 1u, w->slots[i].generation, w->id };
        throng_status st = throng_agent_set_host_key(w, h, key);
        if (st != THRONG_OK) {
            /* Later slots still hold keys the table lacks; the world is
             * destroyed, which reads only the table. */
            snap_refused(c, w, st, "host keys");
            return;
        }
    }
}

/* Builds every navigation field now that the geometry is all there: a
 * loaded field holds its description and last count, from which the
 * build makes the same raster, density and times. */
typedef struct build_fields_job {
    throng_world *w;
} build_fields_job;

static void build_fields_body(parallel_sched *sched, void *arg) {
    throng_world *w = ((build_fields_job *)arg)->w;
    for (uint32_t i = 0; i < w->geo->count; i++) {
        nav_field *f = w->geo->objects[i].nav;
        if (f)
            nav_field_build(w, f, sched, 1);
    }
}

static void build_fields(throng_world *w) {
    if (!w->geo)
        return;
    uint64_t cells = 0u;
    for (uint32_t i = 0; i < w->geo->count; i++)
        if (w->geo->objects[i].nav)
            cells += w->geo->objects[i].nav->cells;
    if (cells == 0u)
        return;
    /* No task hooks in a loaded world: its own threads. */
    parallel_sched sched = world_scheduler(w);
    build_fields_job job = { w };
    parallel_session(&sched, cells > UINT32_MAX ? UINT32_MAX : (uint32_t)cells,
                     build_fields_body, &job);
}

/* Notes the generation of every live agent and object as saved, so that
 * rebinding translates only the handles that were live at the save. */
static void record_origin(snap_codec *c, throng_world *w) {
    uint32_t slots = w->slot_count;
    uint32_t objects = w->geo ? w->geo->count : 0u;
    uint32_t groups = w->group_count;
    w->origin_gen = world_alloc(w, (size_t)slots * sizeof(uint32_t));
    w->origin_object_gen = world_alloc(w, (size_t)objects * sizeof(uint32_t));
    w->origin_group_gen = world_alloc(w, (size_t)groups * sizeof(uint32_t));
    /* Sized as allocated, so destroying the world frees them. */
    w->origin_slots = w->origin_gen ? slots : 0u;
    w->origin_objects = w->origin_object_gen ? objects : 0u;
    w->origin_groups = w->origin_group_gen ? groups : 0u;
    if ((slots && !w->origin_gen) || (objects && !w->origin_object_gen) ||
        !w->origin_group_gen) {
        snap_fail(c, THRONG_ERR_OUT_OF_MEMORY,
                  "no memory to record the saved handles");
        return;
    }
    for (uint32_t i = 0; i < groups; i++)
        w->origin_group_gen[i] =
            w->groups[i].live ? w->groups[i].generation : 0u;
    for (uint32_t i = 0; i < slots; i++)
        w->origin_gen[i] =
            w->slot_dense[i] != SLOT_FREE ? w->slots[i].generation : 0u;
    for (uint32_t i = 0; i < objects; i++)
        w->origin_object_gen[i] = w->geo->objects[i].kind != GEO_FREE
                                      ? w->geo->objects[i].generation
                                      : 0u;
}

/* Builds the world a verified snapshot describes; *out_world stays NULL
 * on failure. */
void snap_decode(snap_codec *c, const throng_world_load_def *d,
                 throng_world **out_world) {
    snap_settings s;
    memset(&s, 0, sizeof s);
    io_settings(c, &s);
    if (c->status == THRONG_OK)
        check_settings(c, &s);
    if (c->status == THRONG_OK &&
        !(is_finite_float(s.edge[0]) && s.edge[0] > 0.0f))
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT, "the grid's cell edge is %g",
                  (double)s.edge[0]);
    if (c->status != THRONG_OK)
        return;

    throng_world_def def = throng_world_def_default();
    def.dimensions = (int)s.dims;
    def.boundary = (throng_boundary)s.boundary;
    memcpy(def.box_size, s.box, sizeof def.box_size);
    def.neighbour_radius = s.neighbour_radius;
    /* The cell size the world was made with, not the edge it became: a
     * periodic box stretches each axis's edge on its own. */
    def.cell_size = s.cell_size;
    def.threads = s.threads;
    def.seed = s.seed;
    def.max_dt = s.max_dt;
    def.max_substeps = s.max_substeps;
    /* Slots are never fewer than agents: room for both at once. */
    def.initial_capacity = s.slot_count;
    def.allocator = d->allocator;
    /* Creation's own checks, and its sentence, refuse bad settings. */
    char why[256] = "";
    def.error = why;
    def.error_capacity = sizeof why;
    throng_world *w = NULL;
    throng_status st = throng_world_create(&def, &w);
    if (st != THRONG_OK) {
        snap_fail(c,
                  st == THRONG_ERR_OUT_OF_MEMORY ? THRONG_ERR_OUT_OF_MEMORY
                                                 : THRONG_ERR_BAD_SNAPSHOT,
                  "the saved settings are refused: %s (%s)",
                  throng_status_string(st), why);
        return;
    }
    /* The world keeps its new id; the saving world's becomes its origin,
     * whose handles throng_agent_rebind translates. */
    c->world_id = w->id;
    c->tag = s.tag;
    w->origin = s.world_id;
    w->step = s.step;
    restore_grid_plan(c, w, &s);
    if (c->status == THRONG_OK && s.has_geometry)
        load_geometry(c, w, &s);
    load_groups(c, w, &s);
    if (c->status == THRONG_OK) {
        int any_list = 0;
        for (uint32_t g = 0; g < w->group_count; g++)
            any_list |= w->groups[g].behaviour_count > 0u;
        /* Lists read the state columns, so a world with lists has them. */
        if (any_list && !s.behaviour_state)
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "groups have behaviour lists but no behaviour state");
        else if (s.behaviour_state && world_enable_behaviour_state(w))
            snap_fail(c, THRONG_ERR_OUT_OF_MEMORY,
                      "no memory for the behaviour state of %u agents",
                      s.slot_count);
    }
    if (c->status == THRONG_OK)
        load_agents(c, w, &s);
    if (c->status == THRONG_OK && c->version >= SNAP_VERSION_NAV)
        io_slot_nav(c, w);
    if (c->status == THRONG_OK)
        build_fields(w);
    if (c->status == THRONG_OK && w->origin != 0u)
        record_origin(c, w);
    if (c->status == THRONG_OK) {
        /* Deriving the recipes set the flag where a group wanders now;
         * the saved flag also remembers groups that wandered before. */
        if (w->wander_used && !s.wander_used)
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "a group wanders but the wander flag is clear");
        w->wander_used = (int)s.wander_used;
    }
    if (c->status == THRONG_OK && c->pos != c->len)
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "%llu bytes follow the last section",
                  (unsigned long long)(c->len - c->pos));
    /* The loaded world holds its uniform columns as the saved one did. */
    if (c->status == THRONG_OK) {
        world_uniform_scan(w);
        if (world_fold_columns(w))
            snap_fail(c, THRONG_ERR_OUT_OF_MEMORY,
                      "no memory for the uniform columns");
    }
    if (c->status != THRONG_OK) {
        throng_world_destroy(w);
        return;
    }
    w->error[0] = '\0';
    w->grid.valid = 0;
    world_uniform_scan(w);
    *out_world = w;
}
