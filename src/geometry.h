/* SPDX-License-Identifier: MIT */
/*
 * Static geometry: obstacles, walls, paths, flow fields and navigation
 * fields.
 *
 * Objects live in one table with stable handles {id, generation}, like
 * agents: removing an object bumps its generation, so behaviours that name
 * it find it gone and go quiet. Obstacles and wall segments are also
 * indexed by a uniform grid of their own (geo_grid), rebuilt before a step
 * whenever objects were added or removed since the last build, so an agent
 * only tests the few objects near its path.
 */
#ifndef THRONG_GEOMETRY_H
#define THRONG_GEOMETRY_H

#include "internal.h"

typedef enum geo_kind {
    GEO_FREE = 0,
    GEO_SPHERE = 1,  /* centre a, radius r */
    GEO_BOX = 2,     /* min a, max b */
    GEO_SEGMENT = 3, /* ends a, b (2D) */
    GEO_PLANE = 4,   /* point a, unit normal b */
    GEO_PATH = 5,
    GEO_FLOW = 6,
    GEO_NAV = 7, /* a navigation field (nav_field.h) */
} geo_kind;

#define GEO_MASK(kind) (1u << (kind))
#define GEO_OBSTACLES (GEO_MASK(GEO_SPHERE) | GEO_MASK(GEO_BOX))
#define GEO_WALLS (GEO_MASK(GEO_SEGMENT) | GEO_MASK(GEO_PLANE))

typedef struct geo_object {
    geo_kind kind;
    uint32_t generation; /* >= 1 */
    float a[3], b[3];
    float r;
    /* Paths: `count` points (3 floats each), and the path length up to
     * each point (count + 1 entries when closed: the last is the whole
     * loop). */
    float *points;
    float *length_at;
    uint32_t count;
    int closed;
    /* Flow fields. */
    float origin[3];
    float cell;
    uint32_t size[3];
    float *vectors;
    /* The one heap block behind points/length_at or vectors. */
    void *data;
    size_t data_bytes;
    /* Navigation fields: the field, which owns its blocks (nav_field.c). */
    struct nav_field *nav;
} geo_object;

/* The grid over obstacles and wall segments: cell c holds the objects
 * items[start[c] .. start[c + 1]) whose bounds overlap it; the planes,
 * which every agent checks, follow as items[start[cell_count] ..
 * start[cell_count] + plane_count). Origin and cell are double so that
 * any finite float coordinate has a finite cell coordinate. */
typedef struct geo_grid {
    double origin[3];
    double cell;
    int32_t n[3];
    uint32_t cell_count; /* n[0] n[1] n[2]; 0 when nothing is gridded */
    uint32_t plane_count;
    uint32_t *start;
    uint32_t *items;
    /* Per object id, the bounds obstacle avoidance screens by: a sphere's
     * or box's geo_bounds (obstacle_grid.h) as lo[0..3) then hi[0..3),
     * an empty box (lo +inf, hi -inf) for any other kind. */
    double *bounds;
    size_t start_bytes, items_bytes, bounds_bytes;
    uint64_t version; /* geometry->version it was built from */
    int built;
} geo_grid;

typedef struct geometry {
    geo_object *objects; /* index = id - 1 */
    uint32_t count;      /* ids handed out so far */
    uint32_t capacity;
    uint32_t *free_ids;
    uint32_t free_count;
    uint32_t live;
    uint32_t planes;  /* live GEO_PLANE objects */
    uint64_t version; /* bumped by every add and remove */
    /* Bumped by every add and remove of an obstacle or wall: what
     * navigation fields rasterise. */
    uint64_t shape_version;
    size_t data_bytes; /* sum of the objects' blocks */
    geo_grid grid;
} geometry;

/* The shortest wall segment, plane normal (before it is scaled to unit
 * length) and gap between consecutive path points, in metres: anything
 * shorter has no direction left after the rounding of its inputs, and a
 * segment's projection divides by its squared length. */
#define GEO_MIN_LENGTH 1e-6
/* How far from 1 a stored unit vector's length may be. Normalising in
 * float or double is good to a few ulp (about 1e-7); this leaves a wide
 * margin and still refuses anything that is not a unit vector. */
#define GEO_UNIT_TOLERANCE 1e-5

/* Checks an object in the form the table holds it: the kind set, points
 * with the components the world lacks (z in 2D) at 0, a plane's normal
 * at unit length, a path's cumulative lengths filled, the fields its kind
 * does not use at 0. These are the checks creation makes, in one place:
 * creating an object builds this form from the arguments and checks it
 * here before storing it, and a snapshot's loader checks every object it
 * reads the same way, so the two refuse exactly the same objects.
 * Records the refusal under `fn` (THRONG_ERR_NOT_FINITE, or
 * THRONG_ERR_OUT_OF_RANGE for anything else). */
throng_status geo_object_check(throng_world *world, const char *fn,
                               const geo_object *obj);
/* THRONG_ERR_OUT_OF_RANGE, recorded, unless a path may have `count`
 * points: checked before the points are read or allocated. */
throng_status geo_path_count_check(throng_world *world, const char *fn,
                                   uint32_t count);
/* THRONG_ERR_OUT_OF_RANGE, recorded, unless a flow field of `size` cells
 * per axis (1 on the axes a world of `dims` lacks) is allowed; then
 * *out_cells is its number of cells. Checked before the vectors are read
 * or allocated. */
throng_status geo_flow_size_check(throng_world *world, const char *fn,
                                  const uint32_t size[3], uint64_t *out_cells);
/* Fills a path's length_at from its points, as geo_object_check expects
 * them. */
void geo_path_lengths(int dims, geo_object *obj);

/* Makes room for one more object; on failure records the refusal and
 * returns THRONG_ERR_OUT_OF_MEMORY (or CAPACITY) with the world unchanged. */
throng_status geo_reserve(throng_world *world, const char *fn);
/* Stores `obj` (kind and payload filled) in the room geo_reserve made and
 * writes its handle; cannot fail. The object's data block becomes the
 * world's. */
void geo_commit(throng_world *world, geo_object *obj, throng_object *out);
/* The live object behind a handle whose kind is in `kinds` (a GEO_MASK
 * set), or NULL. */
const geo_object *geo_lookup(const throng_world *world, throng_object h,
                             uint32_t kinds);

size_t geometry_bytes(const throng_world *world);
void geometry_free(throng_world *world);

/* Test hook: sets the generation object id `id` holds, as
 * world_test_set_slot_generation (agent.h) does for a slot. */
int world_test_set_object_generation(throng_world *world, uint32_t id,
                                     uint32_t generation);

#endif /* THRONG_GEOMETRY_H */
