/* SPDX-License-Identifier: MIT */
/*
 * Adding objects: the def structs of obstacles, walls, paths and flow
 * fields, their defaults, and the one verb of each (throng_*_add).
 *
 * Each add builds the object in the form the table holds it (geometry.h:
 * z = 0 in 2D, a plane's normal at unit length, a path's cumulative
 * lengths) and checks that form with geo_object_check, the check a
 * snapshot's loader makes too, before the table is touched, so a refusal
 * leaves the world as it was. What only a def can get wrong is checked
 * here first: an unknown kind, and a field the kind does not read set to
 * anything but 0, which would otherwise be silently ignored.
 */
#include "geometry.h"
#include "busy.h"
#include "core.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Defaults                                                                 */
/* ------------------------------------------------------------------------ */

throng_obstacle_def throng_obstacle_def_default(void) {
    throng_obstacle_def d;
    memset(&d, 0, sizeof d);
    d.kind = THRONG_OBJECT_SPHERE;
    d.radius = 1.0f;
    return d;
}

throng_wall_def throng_wall_def_default(void) {
    throng_wall_def d;
    memset(&d, 0, sizeof d);
    d.kind = THRONG_OBJECT_SEGMENT;
    return d;
}

throng_path_def throng_path_def_default(void) {
    throng_path_def d;
    memset(&d, 0, sizeof d);
    d.radius = 1.0f;
    return d;
}

throng_flow_field_def throng_flow_field_def_default(void) {
    throng_flow_field_def d;
    memset(&d, 0, sizeof d);
    d.cell_size = 1.0f;
    for (int k = 0; k < 3; k++)
        d.size[k] = 1u;
    return d;
}

/* ------------------------------------------------------------------------ */
/* Shared steps                                                             */
/* ------------------------------------------------------------------------ */

static const char *kind_name(throng_object_kind kind) {
    switch (kind) {
    case THRONG_OBJECT_SPHERE:
        return "SPHERE";
    case THRONG_OBJECT_BOX:
        return "BOX";
    case THRONG_OBJECT_SEGMENT:
        return "SEGMENT";
    case THRONG_OBJECT_PLANE:
        return "PLANE";
    case THRONG_OBJECT_PATH:
        return "PATH";
    case THRONG_OBJECT_FLOW:
        return "FLOW";
    case THRONG_OBJECT_NAV:
        return "NAV";
    }
    return "unknown";
}

/* THRONG_ERR_INVALID_ARG, recorded, unless every component of the field
 * `name` (which the def's kind does not read) is 0. -0 counts as 0; a NaN
 * does not. */
static throng_status check_unread(throng_world *w, const char *fn,
                                  const char *what, const char *name,
                                  const float *x, int n, const char *used_by,
                                  throng_object_kind kind) {
    for (int k = 0; k < n; k++) {
        if (x[k] == 0.0f)
            continue;
        char where[16] = "";
        if (n > 1)
            snprintf(where, sizeof where, "[%d]", k);
        return world_fail(w, THRONG_ERR_INVALID_ARG,
                          "%s: %s: %s is for %s; this def's kind is %s, "
                          "which does not read it, so it must be left 0 "
                          "(%s%s is %g)",
                          fn, what, name, used_by, kind_name(kind), name, where,
                          (double)x[k]);
    }
    return THRONG_OK;
}

/* The def's kind is one of the two a verb adds. */
static throng_status check_kind(throng_world *w, const char *fn,
                                const char *what, throng_object_kind kind,
                                throng_object_kind first,
                                throng_object_kind second) {
    if (kind == first || kind == second)
        return THRONG_OK;
    return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                      "%s: %s kind must be THRONG_OBJECT_%s or "
                      "THRONG_OBJECT_%s, got %d",
                      fn, what, kind_name(first), kind_name(second), (int)kind);
}

/* Copies a point, z as 0 in 2D. */
static void copy_point(const throng_world *w, const float in[3], float out[3]) {
    for (int k = 0; k < 3; k++)
        out[k] = k < w->dims ? in[k] : 0.0f;
}

/* Checks the object as it would be stored, makes room and stores it. On a
 * refusal the object's data block, if any, is freed. */
static throng_status store(throng_world *w, const char *fn, geo_object *o,
                           throng_object *out) {
    throng_status st = geo_object_check(w, fn, o);
    if (st == THRONG_OK)
        st = geo_reserve(w, fn);
    if (st != THRONG_OK) {
        world_free(w, o->data, o->data_bytes);
        return st;
    }
    geo_commit(w, o, out);
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* Obstacles and walls                                                      */
/* ------------------------------------------------------------------------ */

throng_status throng_obstacle_add(throng_world *w,
                                  const throng_obstacle_def *def,
                                  throng_object *out) {
    static const char fn[] = "throng_obstacle_add";
    WRITE_ENTRY(w);
    if (!def || !out)
        return null_fail(w, fn, !def ? "def" : "out_object");
    throng_status st = check_kind(w, fn, "an obstacle's", def->kind,
                                  THRONG_OBJECT_SPHERE, THRONG_OBJECT_BOX);
    if (st != THRONG_OK)
        return st;
    geo_object o;
    memset(&o, 0, sizeof o);
    if (def->kind == THRONG_OBJECT_SPHERE) {
        if ((st = check_unread(w, fn, "obstacle", "min", def->min, 3, "boxes",
                               def->kind)) != THRONG_OK ||
            (st = check_unread(w, fn, "obstacle", "max", def->max, 3, "boxes",
                               def->kind)) != THRONG_OK)
            return st;
        o.kind = GEO_SPHERE;
        copy_point(w, def->center, o.a);
        o.r = def->radius;
    } else {
        if ((st = check_unread(w, fn, "obstacle", "center", def->center, 3,
                               "spheres", def->kind)) != THRONG_OK ||
            (st = check_unread(w, fn, "obstacle", "radius", &def->radius, 1,
                               "spheres", def->kind)) != THRONG_OK)
            return st;
        o.kind = GEO_BOX;
        copy_point(w, def->min, o.a);
        copy_point(w, def->max, o.b);
    }
    return store(w, fn, &o, out);
}

/* A plane's normal is stored at unit length. One too short (or not
 * finite) to scale is kept as given, and geo_object_check refuses it. */
static void normalise(float n[3]) {
    double d[3], len2 = 0.0;
    for (int k = 0; k < 3; k++) {
        d[k] = (double)n[k];
        len2 += d[k] * d[k];
    }
    double len = sqrt(len2);
    if (len >= GEO_MIN_LENGTH && len <= DBL_MAX)
        for (int k = 0; k < 3; k++)
            n[k] = (float)(d[k] / len);
}

throng_status throng_wall_add(throng_world *w, const throng_wall_def *def,
                              throng_object *out) {
    static const char fn[] = "throng_wall_add";
    WRITE_ENTRY(w);
    if (!def || !out)
        return null_fail(w, fn, !def ? "def" : "out_object");
    throng_status st = check_kind(w, fn, "a wall's", def->kind,
                                  THRONG_OBJECT_SEGMENT, THRONG_OBJECT_PLANE);
    if (st != THRONG_OK)
        return st;
    geo_object o;
    memset(&o, 0, sizeof o);
    if (def->kind == THRONG_OBJECT_SEGMENT) {
        if ((st = check_unread(w, fn, "wall", "point", def->point, 3, "planes",
                               def->kind)) != THRONG_OK ||
            (st = check_unread(w, fn, "wall", "normal", def->normal, 3,
                               "planes", def->kind)) != THRONG_OK)
            return st;
        o.kind = GEO_SEGMENT;
        copy_point(w, def->a, o.a);
        copy_point(w, def->b, o.b);
    } else {
        if ((st = check_unread(w, fn, "wall", "a", def->a, 3, "segments",
                               def->kind)) != THRONG_OK ||
            (st = check_unread(w, fn, "wall", "b", def->b, 3, "segments",
                               def->kind)) != THRONG_OK)
            return st;
        o.kind = GEO_PLANE;
        copy_point(w, def->point, o.a);
        copy_point(w, def->normal, o.b);
        normalise(o.b);
    }
    return store(w, fn, &o, out);
}

/* ------------------------------------------------------------------------ */
/* Paths and flow fields                                                    */
/* ------------------------------------------------------------------------ */

throng_status throng_path_add(throng_world *w, const throng_path_def *def,
                              throng_object *out) {
    static const char fn[] = "throng_path_add";
    WRITE_ENTRY(w);
    if (!def || !out || !def->points)
        return null_fail(w, fn,
                         !def   ? "def"
                         : !out ? "out_object"
                                : "def->points");
    /* The count comes first: it bounds every read of the points below. */
    const uint32_t count = def->point_count;
    throng_status st = geo_path_count_check(w, fn, count);
    if (st != THRONG_OK)
        return st;
    const size_t lengths = (size_t)count + (def->closed ? 1u : 0u);
    const size_t floats = 3u * (size_t)count + lengths;
    const size_t bytes = size_mul(floats, sizeof(float));
    float *block = bytes ? world_alloc(w, bytes) : NULL;
    if (!block)
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for a path of %u points", fn, count);
    geo_object o;
    memset(&o, 0, sizeof o);
    o.kind = GEO_PATH;
    o.points = block;
    o.length_at = block + 3u * (size_t)count;
    o.count = count;
    o.closed = def->closed ? 1 : 0;
    o.r = def->radius;
    o.data = block;
    o.data_bytes = bytes;
    for (uint32_t i = 0; i < count; i++)
        copy_point(w, def->points + 3u * (size_t)i, o.points + 3u * (size_t)i);
    geo_path_lengths(w->dims, &o);
    return store(w, fn, &o, out);
}

throng_status throng_flow_field_add(throng_world *w,
                                    const throng_flow_field_def *def,
                                    throng_object *out) {
    static const char fn[] = "throng_flow_field_add";
    WRITE_ENTRY(w);
    if (!def || !out || !def->vectors)
        return null_fail(w, fn,
                         !def   ? "def"
                         : !out ? "out_object"
                                : "def->vectors");
    const int dims = w->dims;
    geo_object o;
    memset(&o, 0, sizeof o);
    o.kind = GEO_FLOW;
    copy_point(w, def->origin, o.origin);
    for (int k = 0; k < 3; k++)
        o.size[k] = k < dims ? def->size[k] : 1u;
    o.cell = def->cell_size;
    /* Checked in place, as it would be stored: the stored vectors are a
     * copy of these, and the check only reads them. */
    o.vectors = (float *)(uintptr_t)def->vectors;
    throng_status st = geo_object_check(w, fn, &o);
    if (st == THRONG_OK)
        st = geo_reserve(w, fn);
    if (st != THRONG_OK)
        return st;
    const uint64_t cells = (uint64_t)o.size[0] * o.size[1] * o.size[2];
    const size_t bytes = size_mul((size_t)cells * (size_t)dims, sizeof(float));
    float *block = bytes ? world_alloc(w, bytes) : NULL;
    if (!block)
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for a field of %llu cells", fn,
                          (unsigned long long)cells);
    memcpy(block, def->vectors, bytes);
    o.vectors = block;
    o.data = block;
    o.data_bytes = bytes;
    geo_commit(w, &o, out);
    return THRONG_OK;
}
