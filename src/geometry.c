/*
 * The object table behind static geometry: handles, add and remove. The
 * kinds themselves are created in steer_env.c (obstacles, walls) and
 * steer_route.c (paths, flow fields).
 */
#include "geometry.h"
#include "busy.h"

#include <string.h>

/* Generations are built like agents': the world's tag in the top 8 bits,
 * so another world's handle is refused even when its id and count match,
 * over a 24-bit counter of the id's reuses, never 0. */
#define GEO_GEN_MASK 0xFFFFFFu

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
    uint32_t gen = (w->tag << 24) | 1u;
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
}

const geo_object *geo_lookup(const throng_world *w, throng_object h,
                             uint32_t kinds) {
    const geometry *g = w->geo;
    if (!g || h.id == 0 || h.id > g->count)
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
        return world_fail(w, THRONG_ERR_STALE_HANDLE,
                          "throng_object_remove: object {%u, %u} is not a "
                          "live object of this world",
                          h.id, h.generation);
    geometry *g = w->geo;
    geo_object *o = &g->objects[h.id - 1];
    world_free(w, o->data, o->data_bytes);
    g->data_bytes -= o->data_bytes;
    g->planes -= o->kind == GEO_PLANE;
    uint32_t next = (o->generation + 1u) & GEO_GEN_MASK;
    memset(o, 0, sizeof *o);
    o->generation = (w->tag << 24) | (next ? next : 1u);
    g->free_ids[g->free_count++] = h.id - 1;
    g->live--;
    g->version++;
    return THRONG_OK;
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
