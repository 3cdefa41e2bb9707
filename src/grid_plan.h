/* SPDX-License-Identifier: MIT */
/*
 * The grid's plan (grid_plan.c): the cells a world's geometry gives, the
 * rule for one periodic axis, and a grid set up with a plan.
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

/* One axis of a periodic box `box` wide cut into n cells, as grid_plan
 * cuts it: the edge of each and the reach walked around a cell. Returns
 * 0 when grid_plan never cuts an axis so, whatever the cell size asked
 * for: fewer than 3 cells or more than GRID_MAX_CELLS, or so few that the
 * block walked around a cell would wrap onto itself. The world's limit
 * on the reach (GRID_MAX_REACH) is the caller's to check. */
int grid_plan_axis(float box, float neighbour_radius, int32_t n, float *edge,
                   int *reach);

/* Puts a plan in place: cells per axis, cell edges (and their inverses),
 * reach per axis and, in a periodic box, the bucket count. grid_init uses
 * it for the plan grid_plan makes, a restored snapshot for the saved one
 * (checked with grid_plan_axis). */
void grid_set_plan(grid *g, const int32_t n[3], const float edge[3],
                   const int reach[3]);

#endif /* THRONG_GRID_PLAN_H */
