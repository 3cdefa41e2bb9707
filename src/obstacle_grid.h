/*
 * The obstacle grid (obstacle_grid.c): built before a step when the
 * static objects changed, walked by the environment kernels.
 */
#ifndef THRONG_OBSTACLE_GRID_H
#define THRONG_OBSTACLE_GRID_H

#include "internal.h"
#include "geometry.h"

/* Before a step: brings the obstacle grid up to date; nonzero when out of
 * memory. */
int geometry_prepare(throng_world *world);
/* Frees the grid. */
void geo_grid_free(throng_world *world, geo_grid *g);

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
