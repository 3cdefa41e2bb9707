/* SPDX-License-Identifier: MIT */
/*
 * The object table behind static geometry: handles, add and remove, and
 * the one check of every kind of object. The kinds themselves are created
 * in objects_add.c; it, and the snapshot loader, check what they would
 * store with geo_object_check, so an object a snapshot holds passes
 * exactly the checks its creation made.
 */
#include "geometry.h"
#include "nav_field.h"
#include "obstacle_grid.h"
#include "busy.h"
#include "core.h"
#include "handles.h"

#include <math.h>
#include <string.h>

/* The largest finite float: a path longer than this has no float
 * length. */

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
                          "%s: the world holds %u objects, the most it can", fn,
                          THRONG_MAX_OBJECTS);
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
    uint32_t gen = HANDLE_FIRST_GENERATION;
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
    g->shape_version +=
        (GEO_OBSTACLES | GEO_WALLS) & GEO_MASK(obj->kind) ? 1u : 0u;
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
    WRITE_ENTRY(w);
    const geo_object *found = geo_lookup(w, h, ~0u);
    if (!found)
        return handle_fail(w, "throng_object_remove", "object", h.id,
                           h.generation, h.world, "object");
    geometry *g = w->geo;
    geo_object *o = &g->objects[h.id - 1];
    world_free(w, o->data, o->data_bytes);
    nav_field_free(w, o->nav);
    g->data_bytes -= o->data_bytes;
    g->planes -= o->kind == GEO_PLANE;
    g->shape_version +=
        (GEO_OBSTACLES | GEO_WALLS) & GEO_MASK(o->kind) ? 1u : 0u;
    uint32_t gen = o->generation;
    memset(o, 0, sizeof *o);
    /* Past its last generation the id is retired: free, never reused. */
    o->generation = gen;
    if (generation_release(&o->generation))
        g->free_ids[g->free_count++] = h.id - 1;
    g->live--;
    g->version++;
    return THRONG_OK;
}

static int object_live(const throng_world *w, uint32_t id,
                       uint32_t generation) {
    throng_object h = { id, generation, w->id };
    return geo_lookup(w, h, ~0u) != NULL;
}

DEFINE_REBIND(throng_object_rebind, throng_object, id, "object", "object",
              origin_object_gen, 1u, origin_objects, object_live)

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
    size_t nav = 0u;
    for (uint32_t i = 0; i < g->count; i++)
        if (g->objects[i].nav)
            nav += g->objects[i].nav->bytes;
    return sizeof *g + (size_t)g->capacity * (sizeof(geo_object) + 4u) +
           g->data_bytes + nav + g->grid.start_bytes + g->grid.items_bytes +
           g->grid.bounds_bytes;
}

void geometry_free(throng_world *w) {
    geometry *g = w->geo;
    if (!g)
        return;
    for (uint32_t i = 0; i < g->count; i++) {
        world_free(w, g->objects[i].data, g->objects[i].data_bytes);
        nav_field_free(w, g->objects[i].nav);
    }
    geo_grid_free(w, &g->grid);
    world_free(w, g->objects, (size_t)g->capacity * sizeof(geo_object));
    world_free(w, g->free_ids, (size_t)g->capacity * sizeof(uint32_t));
    world_free(w, g, sizeof *g);
    w->geo = NULL;
}

/* ------------------------------------------------------------------------ */
/* Checks shared by creation and loading                                    */
/* ------------------------------------------------------------------------ */

/* A point of the object: finite on the world's axes, 0 on the others. */
static throng_status check_point(throng_world *w, const char *fn,
                                 const char *what, const float x[3]) {
    throng_status st = check_vec(w, fn, what, x);
    if (st != THRONG_OK)
        return st;
    for (int k = w->dims; k < 3; k++)
        if (x[k] != 0.0f)
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: %s[%d] is %g in a %dD world, not 0", fn,
                              what, k, (double)x[k], w->dims);
    return THRONG_OK;
}

/* A length in metres: finite and within [THRONG_MIN_LENGTH,
 * THRONG_MAX_LENGTH], as every length the API takes. */
static throng_status check_positive(throng_world *w, const char *fn,
                                    const char *what, float x) {
    return check_length_field(w, fn, what, x, 0);
}

static double length3(const float x[3]) {
    double d2 = 0.0;
    for (int k = 0; k < 3; k++)
        d2 += (double)x[k] * (double)x[k];
    return sqrt(d2);
}

/* The distance from point i to point j of a path, in double: float
 * differences of far-apart points could overflow. */
static double path_gap(int dims, const float *points, uint32_t i, uint32_t j) {
    double d2 = 0.0;
    for (int k = 0; k < dims; k++) {
        double d = (double)points[3u * j + (uint32_t)k] -
                   (double)points[3u * i + (uint32_t)k];
        d2 += d * d;
    }
    return sqrt(d2);
}

throng_status geo_path_count_check(throng_world *w, const char *fn,
                                   uint32_t count) {
    if (count < 2u || count > THRONG_MAX_PATH_POINTS)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: a path needs 2 .. %u points, got %u", fn,
                          THRONG_MAX_PATH_POINTS, count);
    return THRONG_OK;
}

throng_status geo_flow_size_check(throng_world *w, const char *fn,
                                  const uint32_t size[3], uint64_t *out_cells) {
    uint64_t cells = 1u;
    for (int k = 0; k < 3; k++) {
        if (k >= w->dims) {
            if (size[k] != 1u)
                return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                                  "%s: size[%d] must be 1 in a %dD world, "
                                  "got %u",
                                  fn, k, w->dims, size[k]);
            continue;
        }
        if (size[k] == 0u)
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: size[%d] must be >= 1", fn, k);
        /* Checked after each factor, so the product stays below 2^58. */
        cells *= size[k];
        if (cells > THRONG_MAX_FLOW_CELLS)
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: the field has more than %u cells", fn,
                              THRONG_MAX_FLOW_CELLS);
    }
    *out_cells = cells;
    return THRONG_OK;
}

void geo_path_lengths(int dims, geo_object *o) {
    /* Summed in double, so the sum does not drift with the count. */
    const uint32_t segments = o->closed ? o->count : o->count - 1u;
    double along = 0.0;
    o->length_at[0] = 0.0f;
    for (uint32_t i = 0; i < segments; i++) {
        along += path_gap(dims, o->points, i, i + 1u < o->count ? i + 1u : 0u);
        o->length_at[i + 1u] = (float)along;
    }
}

static throng_status check_path(throng_world *w, const char *fn,
                                const geo_object *o) {
    throng_status st = geo_path_count_check(w, fn, o->count);
    if (st != THRONG_OK)
        return st;
    if ((st = check_vecs(w, fn, "points", o->points, o->count, 3u)) !=
        THRONG_OK)
        return st;
    for (uint32_t i = 0; i < o->count; i++)
        for (int k = w->dims; k < 3; k++)
            if (o->points[3u * i + (uint32_t)k] != 0.0f)
                return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                                  "%s: point %u has a component %d in a %dD "
                                  "world",
                                  fn, i, k, w->dims);
    if ((st = check_positive(w, fn, "radius", o->r)) != THRONG_OK)
        return st;
    const uint32_t segments = o->closed ? o->count : o->count - 1u;
    double total = 0.0;
    for (uint32_t i = 0; i < segments; i++) {
        uint32_t j = i + 1u < o->count ? i + 1u : 0u;
        double d = path_gap(w->dims, o->points, i, j);
        if (d < GEO_MIN_LENGTH)
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: points %u and %u are %g m apart, less "
                              "than 1e-6 m",
                              fn, i, j, d);
        total += d;
    }
    if (total > (double)FLT_MAX)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: the path is %g m long, more than a float "
                          "holds",
                          fn, total);
    /* The lengths are derived, and must be what the points give. */
    double along = 0.0;
    for (uint32_t i = 0; i <= segments; i++) {
        if (i > 0u)
            along +=
                path_gap(w->dims, o->points, i - 1u, i < o->count ? i : 0u);
        float want = (float)along;
        if (memcmp(&o->length_at[i], &want, sizeof want) != 0)
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: the length at point %u is %g m, its "
                              "points give %g m",
                              fn, i, (double)o->length_at[i], (double)want);
    }
    return THRONG_OK;
}

static throng_status check_flow(throng_world *w, const char *fn,
                                const geo_object *o) {
    throng_status st = check_point(w, fn, "origin", o->origin);
    if (st != THRONG_OK ||
        (st = check_positive(w, fn, "cell_size", o->cell)) != THRONG_OK)
        return st;
    uint64_t cells = 0;
    if ((st = geo_flow_size_check(w, fn, o->size, &cells)) != THRONG_OK)
        return st;
    return check_vecs(w, fn, "vectors", o->vectors, (size_t)cells,
                      (size_t)w->dims);
}

/* The fields a kind does not use stay as creation left them: 0. */
static throng_status check_unused(throng_world *w, const char *fn,
                                  const geo_object *o) {
    int a_used = o->kind <= GEO_PLANE, b_used = a_used && o->kind != GEO_SPHERE;
    int r_used = o->kind == GEO_SPHERE || o->kind == GEO_PATH;
    int zero = r_used || o->r == 0.0f;
    for (int k = 0; k < 3; k++)
        zero &= (a_used || o->a[k] == 0.0f) && (b_used || o->b[k] == 0.0f);
    if (!zero)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: a field its kind does not use is not 0", fn);
    return THRONG_OK;
}

throng_status geo_object_check(throng_world *w, const char *fn,
                               const geo_object *o) {
    throng_status st = THRONG_OK;
    switch (o->kind) {
    case GEO_FREE:
        return THRONG_OK;
    case GEO_SPHERE:
        if ((st = check_point(w, fn, "center", o->a)) == THRONG_OK)
            st = check_positive(w, fn, "radius", o->r);
        break;
    case GEO_BOX:
        if ((st = check_point(w, fn, "min", o->a)) != THRONG_OK ||
            (st = check_point(w, fn, "max", o->b)) != THRONG_OK)
            break;
        for (int k = 0; k < w->dims; k++)
            if (!(o->a[k] < o->b[k]))
                return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                                  "%s: min[%d] must be below max[%d], got %g "
                                  "and %g",
                                  fn, k, k, (double)o->a[k], (double)o->b[k]);
        break;
    case GEO_SEGMENT: {
        if (w->dims != 2)
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: wall segments exist in 2D worlds only; use "
                              "a plane (THRONG_OBJECT_PLANE) in 3D",
                              fn);
        if ((st = check_point(w, fn, "a", o->a)) != THRONG_OK ||
            (st = check_point(w, fn, "b", o->b)) != THRONG_OK)
            break;
        double dx = (double)o->b[0] - (double)o->a[0];
        double dy = (double)o->b[1] - (double)o->a[1];
        double len = sqrt(dx * dx + dy * dy);
        if (!(len >= GEO_MIN_LENGTH))
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: the ends must be at least 1e-6 m apart, "
                              "got %g m",
                              fn, len);
        break;
    }
    case GEO_PLANE: {
        if ((st = check_point(w, fn, "point", o->a)) != THRONG_OK ||
            (st = check_point(w, fn, "normal", o->b)) != THRONG_OK)
            break;
        /* Creation scales a normal of at least GEO_MIN_LENGTH to unit
         * length and stores a shorter one as given, so both refusals are
         * one test of the stored length. */
        double len = length3(o->b);
        if (!(fabs(len - 1.0) <= GEO_UNIT_TOLERANCE))
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: the normal must be at least 1e-6 long "
                              "(it is kept at unit length, within 1e-5), "
                              "got %g",
                              fn, len);
        break;
    }
    case GEO_PATH:
        st = check_path(w, fn, o);
        break;
    case GEO_FLOW:
        st = check_flow(w, fn, o);
        break;
    case GEO_NAV:
        /* The field's description was checked when it was made
         * (nav_field_check_def, which loading runs too); the shape
         * fields stay 0. */
        if (!o->nav)
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: a navigation field without its field", fn);
        break;
    default:
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: unknown object kind %u", fn, (unsigned)o->kind);
    }
    if (st != THRONG_OK)
        return st;
    return check_unused(w, fn, o);
}
