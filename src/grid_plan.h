/*
 * The grid's plan (grid_plan.c): the cells a world's geometry gives, and
 * a grid set up with them.
 */
#ifndef THRONG_GRID_PLAN_H
#define THRONG_GRID_PLAN_H

#include "grid.h"

/* Sets up the grid's geometry. The world validated the arguments. */
void grid_init(grid *g, int dims, int periodic, const float box[3],
               float neighbour_radius, float cell_size);

/* The cells per axis, cell edges and reach per axis a geometry gives.
 * Returns 0 when a periodic box is narrower than three neighbour radii. */
int grid_plan(int dims, int periodic, const float box[3],
              float neighbour_radius, float cell_size, int32_t n[3],
              float edge[3], int reach[3]);

#endif /* THRONG_GRID_PLAN_H */
