/* SPDX-License-Identifier: MIT */
/*
 * Reading objects back: the read-only view of the object table that
 * renderers and editors need to draw the scene the steering sees.
 *
 * The table (geometry.h) keeps removed objects' rows as holes with a bumped
 * generation, so ids stay stable. Iterating live objects by index is
 * therefore direct while there are no holes, and a walk over the table when
 * there are: the table keeps no dense list of live ids, because nothing on
 * the step's path would use one.
 */
#include "geometry.h"
#include "nav_field.h"
#include "busy.h"
#include "core.h"
#include "handles.h"

#include <string.h>

/* The public kinds mirror geo_kind one for one; the switch below makes a
 * kind added to one and not the other fail to compile with -Wswitch. */
static throng_object_kind object_kind(geo_kind kind) {
    switch (kind) {
    case GEO_SPHERE:
        return THRONG_OBJECT_SPHERE;
    case GEO_BOX:
        return THRONG_OBJECT_BOX;
    case GEO_SEGMENT:
        return THRONG_OBJECT_SEGMENT;
    case GEO_PLANE:
        return THRONG_OBJECT_PLANE;
    case GEO_PATH:
        return THRONG_OBJECT_PATH;
    case GEO_FLOW:
        return THRONG_OBJECT_FLOW;
    case GEO_NAV:
        return THRONG_OBJECT_NAV;
    case GEO_FREE:
        break;
    }
    return (throng_object_kind)0;
}

throng_status throng_object_get(const throng_world *cw, throng_object h,
                                throng_object_info *out) {
    static const char fn[] = "throng_object_get";
    /* Only the last-error text is written: the world is read-only here. */
    READ_ENTRY(cw, w, fn, out, "out");
    const geo_object *o = geo_lookup(w, h, ~0u);
    if (!o)
        return handle_fail(w, fn, "object", h.id, h.generation, h.world,
                           "object");
    memset(out, 0, sizeof *out);
    out->kind = object_kind(o->kind);
    switch (o->kind) {
    case GEO_SPHERE:
        memcpy(out->a, o->a, sizeof out->a);
        out->radius = o->r;
        break;
    case GEO_BOX:
    case GEO_SEGMENT:
    case GEO_PLANE:
        memcpy(out->a, o->a, sizeof out->a);
        memcpy(out->b, o->b, sizeof out->b);
        break;
    case GEO_PATH:
        out->radius = o->r;
        out->point_count = o->count;
        out->points = o->points;
        out->closed = o->closed != 0;
        break;
    case GEO_FLOW:
        memcpy(out->a, o->origin, sizeof out->a);
        out->cell_size = o->cell;
        memcpy(out->size, o->size, sizeof out->size);
        out->vectors = o->vectors;
        break;
    case GEO_NAV:
        memcpy(out->a, o->nav->origin, sizeof out->a);
        out->cell_size = o->nav->cell;
        memcpy(out->size, o->nav->size, sizeof out->size);
        break;
    case GEO_FREE:
        break;
    }
    return THRONG_OK;
}

throng_status throng_world_object_at(const throng_world *cw, uint32_t index,
                                     throng_object *out) {
    static const char fn[] = "throng_world_object_at";
    READ_ENTRY(cw, w, fn, out, "out");
    const geometry *g = w->geo;
    uint32_t live = g ? g->live : 0u;
    if (index >= live)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: index %u is not below the object count %u", fn,
                          index, live);
    uint32_t row = index;
    if (g->live != g->count) {
        /* Holes: count live rows up to the index-th. */
        uint32_t seen = 0;
        for (row = 0; row < g->count; row++) {
            if (g->objects[row].kind == GEO_FREE)
                continue;
            if (seen == index)
                break;
            seen++;
        }
    }
    out->id = row + 1u;
    out->generation = g->objects[row].generation;
    out->world = w->id;
    return THRONG_OK;
}
