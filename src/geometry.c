/*
 * The object table behind static geometry: handles, add and remove. The
 * kinds themselves are created in steer_env.c (obstacles, walls) and
 * steer_route.c (paths, flow fields).
 */
#include "geometry.h"
#include "busy.h"

#include <string.h>

/* Handles are built like agents': the world's id, and a 32-bit
 * generation of the id's reuses that starts at 1 and never wraps (an id
 * whose last generation is removed is retired, SLOT_LAST_GENERATION). */

static geometry *geo_of(throng_world *w) {
    if (w->geo)
        return w->geo;
    geometry *g = world_alloc(w, sizeof *g);
    if (!g)
        return NULL;
    memset(g, 0, sizeof *g);
    w->geo = g;
    return g;
}

throng_status geo_reserve(throng_world *w, const char *fn) {
    geometry *g = geo_of(w);
    if (!g)
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for the object table", fn);
    if (g->free_count || g->count < g->capacity)
        return THRONG_OK;
    if (g->capacity >= THRONG_MAX_OBJECTS)
        return world_fail(w, THRONG_ERR_CAPACITY,
                          "%s: the world holds %u objects, the most it can",
                          fn, THRONG_MAX_OBJECTS);
    uint32_t cap = g->capacity ? g->capacity * 2 : 16;
    cap = cap > THRONG_MAX_OBJECTS ? THRONG_MAX_OBJECTS : cap;
    geo_object *o = world_alloc(w, (size_t)cap * sizeof *o);
    uint32_t *f = world_alloc(w, (size_t)cap * sizeof *f);
    if (!o || !f) {
        world_free(w, o, (size_t)cap * sizeof *o);
        world_free(w, f, (size_t)cap * sizeof *f);
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for %u objects", fn, cap);
    }
    memset(o, 0, (size_t)cap * sizeof *o);
    if (g->count)
        memcpy(o, g->objects, (size_t)g->count * sizeof *o);
    if (g->free_count)
        memcpy(f, g->free_ids, (size_t)g->free_count * sizeof *f);
    world_free(w, g->objects, (size_t)g->capacity * sizeof *o);
    world_free(w, g->free_ids, (size_t)g->capacity * sizeof *f);
    g->objects = o;
    g->free_ids = f;
    g->capacity = cap;
    return THRONG_OK;
}

void geo_commit(throng_world *w, geo_object *obj, throng_object *out) {
    geometry *g = w->geo;
    uint32_t index;
    uint32_t gen = 1u;
    if (g->free_count) {
        index = g->free_ids[--g->free_count];
        gen = g->objects[index].generation; /* bumped on removal */
    } else {
        index = g->count++;
    }
    obj->generation = gen;
    g->objects[index] = *obj;
    g->live++;
    g->planes += obj->kind == GEO_PLANE;
    g->version++;
    g->data_bytes += obj->data_bytes;
    out->id = index + 1;
    out->generation = gen;
    out->world = w->id;
}

const geo_object *geo_lookup(const throng_world *w, throng_object h,
                             uint32_t kinds) {
    const geometry *g = w->geo;
    if (!g || h.world != w->id || h.id == 0 || h.id > g->count)
        return NULL;
    const geo_object *o = &g->objects[h.id - 1];
    if (o->kind == GEO_FREE || o->generation != h.generation ||
        !(kinds & GEO_MASK(o->kind)))
        return NULL;
    return o;
}

throng_status throng_object_remove(throng_world *w, throng_object h) {
    WORLD_WRITE(w);
    if (!w)
        return THRONG_ERR_NULL;
    const geo_object *found = geo_lookup(w, h, ~0u);
    if (!found)
        return handle_fail(w, "throng_object_remove", "object", h.id,
                           h.generation, h.world, "object");
    geometry *g = w->geo;
    geo_object *o = &g->objects[h.id - 1];
    world_free(w, o->data, o->data_bytes);
    g->data_bytes -= o->data_bytes;
    g->planes -= o->kind == GEO_PLANE;
    uint32_t gen = o->generation;
    memset(o, 0, sizeof *o);
    /* Past its last generation the id is retired: free, never reused. */
    o->generation = gen;
    if (gen != SLOT_LAST_GENERATION) {
        o->generation = gen + 1u;
        g->free_ids[g->free_count++] = h.id - 1;
    }
    g->live--;
    g->version++;
    return THRONG_OK;
}

throng_status throng_object_rebind(const throng_world *cw, throng_object h,
                                   throng_object *out) {
    static const char fn[] = "throng_object_rebind";
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!out)
        return world_fail(w, THRONG_ERR_NULL, "%s: out must not be NULL",
                          fn);
    if (h.world != 0u && h.world != w->id && h.world != w->origin)
        return world_fail(w, THRONG_ERR_STALE_HANDLE,
                          "%s: object {%u, %u} belongs to another world "
                          "(world id %llu), neither this one (id %llu) nor "
                          "the one it was loaded from (id %llu, 0: none)",
                          fn, h.id, h.generation,
                          (unsigned long long)h.world,
                          (unsigned long long)w->id,
                          (unsigned long long)w->origin);
    /* As throng_agent_rebind: only what was live at the save. */
    uint32_t at_save = 0u;
    if (h.world != 0u && h.world == w->origin && h.id != 0u &&
        h.id <= w->origin_objects)
        at_save = w->origin_object_gen[h.id - 1u];
    if (h.world != 0u && h.world != w->id && at_save != h.generation)
        return world_fail(w, THRONG_ERR_STALE_HANDLE,
                          "%s: object {%u, %u} of the world this one was "
                          "loaded from was not live when it was saved",
                          fn, h.id, h.generation);
    throng_object here = h;
    here.world = h.world != 0u ? w->id : 0u;
    if (!geo_lookup(w, here, ~0u))
        return handle_fail(w, fn, "object", h.id, h.generation, here.world,
                           "object");
    *out = here;
    return THRONG_OK;
}

int world_test_set_object_generation(throng_world *w, uint32_t id,
                                     uint32_t generation) {
    if (!w || !w->geo || id == 0u || id > w->geo->count || generation == 0u)
        return 1;
    w->geo->objects[id - 1u].generation = generation;
    return 0;
}

uint32_t throng_world_object_count(const throng_world *w) {
    WORLD_READ_OR(w, 0u);
    return w && w->geo ? w->geo->live : 0;
}

size_t geometry_bytes(const throng_world *w) {
    const geometry *g = w->geo;
    if (!g)
        return 0;
    return sizeof *g + (size_t)g->capacity * (sizeof(geo_object) + 4u) +
           g->data_bytes + g->grid.start_bytes + g->grid.items_bytes;
}

void geometry_free(throng_world *w) {
    geometry *g = w->geo;
    if (!g)
        return;
    for (uint32_t i = 0; i < g->count; i++)
        world_free(w, g->objects[i].data, g->objects[i].data_bytes);
    geo_grid_free(w, &g->grid);
    world_free(w, g->objects, (size_t)g->capacity * sizeof(geo_object));
    world_free(w, g->free_ids, (size_t)g->capacity * sizeof(uint32_t));
    world_free(w, g, sizeof *g);
    w->geo = NULL;
}
