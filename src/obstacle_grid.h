/* SPDX-License-Identifier: MIT */
/*
 * The obstacle grid (obstacle_grid.c): built before a step when the
 * static objects changed, walked by the environment kernels.
 */
#ifndef THRONG_OBSTACLE_GRID_H
#define THRONG_OBSTACLE_GRID_H

#include "internal.h"
#include "geometry.h"

#include <math.h>

/* The bounds of a gridded object (sphere, box or segment) as the grid
 * files it, in double. Inline and shared: obstacle avoidance keeps an
 * object as a candidate exactly when these bounds overlap the box it
 * asked the grid about, which makes its candidates a subset of what the
 * cells of any larger box list, however the queries are batched. */
static inline void geo_bounds(const geo_object *o, double lo[3], double hi[3]) {
    double a[3] = { (double)o->a[0], (double)o->a[1], (double)o->a[2] };
    double b[3] = { (double)o->b[0], (double)o->b[1], (double)o->b[2] };
    if (o->kind == GEO_SPHERE) {
        const double r = (double)o->r;
        for (int k = 0; k < 3; k++) {
            lo[k] = a[k] - r;
            hi[k] = a[k] + r;
        }
    } else if (o->kind == GEO_BOX) {
        for (int k = 0; k < 3; k++) {
            lo[k] = a[k];
            hi[k] = b[k];
        }
    } else { /* segment */
        for (int k = 0; k < 3; k++) {
            lo[k] = a[k] < b[k] ? a[k] : b[k];
            hi[k] = a[k] < b[k] ? b[k] : a[k];
        }
    }
}

/* Whether boxes [alo, ahi] and [blo, bhi] overlap on the world's axes
 * (closed: touching counts). */
static inline int geo_box_overlap(const double alo[3], const double ahi[3],
                                  const double blo[3], const double bhi[3],
                                  int dims) {
    int in = alo[0] <= bhi[0] && ahi[0] >= blo[0] && alo[1] <= bhi[1] &&
             ahi[1] >= blo[1];
    if (dims == 3)
        in = in && alo[2] <= bhi[2] && ahi[2] >= blo[2];
    return in;
}

/* Object i's bounds as obstacle avoidance screens by them: a sphere's or
 * box's geo_bounds, an empty box (lo +inf, hi -inf) for any other kind;
 * from the grid's copy when it is current. */
static inline void env_obstacle_bounds(const geometry *geo, uint32_t i,
                                       double lo[3], double hi[3]) {
    const geo_grid *g = &geo->grid;
    if (g->built && g->version == geo->version) {
        const double *b = &g->bounds[6u * i];
        for (int k = 0; k < 3; k++) {
            lo[k] = b[k];
            hi[k] = b[3 + k];
        }
        return;
    }
    const geo_object *o = &geo->objects[i];
    if (o->kind == GEO_SPHERE || o->kind == GEO_BOX) {
        geo_bounds(o, lo, hi);
        return;
    }
    lo[0] = lo[1] = lo[2] = (double)INFINITY;
    hi[0] = hi[1] = hi[2] = -(double)INFINITY;
}

/* Before a step: brings the obstacle grid up to date; nonzero when out of
 * memory. */
int geometry_prepare(throng_world *world);
/* Frees the grid. */
void geo_grid_free(throng_world *world, geo_grid *g);

/* The spheres and boxes whose bounds (env_obstacle_bounds) overlap box
 * [lo, hi], each once, ascending by id, into ids[0 .. cap): returns how
 * many, or cap + 1 when there are more. From the cells the box overlaps,
 * or every object when the grid is not current. */
uint32_t env_obstacles_in_box(const throng_world *world, const double lo[3],
                              const double hi[3], uint32_t *ids, uint32_t cap);

/* A walk over the objects that may touch a box: the objects listed in the
 * cells the box overlaps, then (when asked) the planes. When the grid is
 * not current it visits every object instead; callers filter by kind. */
typedef struct env_cursor {
    const geo_grid *g; /* NULL: scan every object */
    int32_t lo[3], hi[3], c[3];
    uint32_t at, end;
    int stage; /* 0 cells, 1 planes next, 2 done */
    int planes;
} env_cursor;

void env_cursor_begin(env_cursor *q, const throng_world *w, const double lo[3],
                      const double hi[3], int planes);
/* The next object's index; 0 when the walk is over. */
int env_cursor_next(env_cursor *q, uint32_t *index);

#endif /* THRONG_OBSTACLE_GRID_H */
