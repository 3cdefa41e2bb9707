/* SPDX-License-Identifier: MIT */
/*
 * The grid's plan: how a world's dimensions, boundary, box, neighbour
 * radius and cell size become cells per axis, cell edges and the reach
 * walked around a cell, and a grid set up with them (grid.c says why
 * the grid is shaped this way).
 */
#include "grid_plan.h"

#include <math.h>
#include <string.h>

static int reach_for(float cover, float edge) {
    double reach = ceil((double)cover / (double)edge);
    /* Also NaN, from inf / inf when a radius near FLT_MAX is padded. */
    if (!(reach >= 1.0))
        reach = 1.0;
    return reach > 1000.0 ? 1000 : (int)reach;
}

/* One axis of a periodic box `box` wide cut into n cells: the edge of
 * each, and the reach that covers `cover` (the padded neighbour radius)
 * with them. Returns whether the block walked around a cell, 2 reach + 1
 * cells, fits without wrapping onto itself. */
static int cut_axis(float box, int32_t n, float cover, float *edge,
                    int *reach) {
    *edge = (float)((double)box / (double)n);
    /* Three cells are walked whole with reach 1, whatever their size:
     * every candidate along the axis is seen exactly once. */
    *reach = n == 3 ? 1 : reach_for(cover, *edge);
    return n >= 2 * *reach + 1;
}

int grid_plan(int dims, int periodic, const float box[3],
              float neighbour_radius, float cell_size, int32_t n[3],
              float edge[3], int reach[3]) {
    float want =
        cell_size > 0.0f ? cell_size : neighbour_radius * GRID_CELL_PAD;
    float cover = neighbour_radius * GRID_CELL_PAD;
    int ok = 1;
    for (int a = 0; a < 3; a++) {
        n[a] = 1;
        edge[a] = want;
        reach[a] = a < dims ? reach_for(cover, want) : 0;
        if (a >= dims || !periodic)
            continue;
        /* A box at least three radii wide always fits three cells of at
         * least the radius. */
        if ((double)box[a] < 3.0 * (double)neighbour_radius) {
            ok = 0;
            continue;
        }
        double cells = floor((double)box[a] / (double)want);
        cells = cells < 3.0 ? 3.0 : cells;
        cells = cells > (double)GRID_MAX_CELLS ? (double)GRID_MAX_CELLS : cells;
        /* Fewer, larger cells (and a smaller reach) where a small box
         * cannot hold the block walked around a cell; three always fit. */
        while (!cut_axis(box[a], (int32_t)cells, cover, &edge[a], &reach[a]))
            cells -= 1.0;
        n[a] = (int32_t)cells;
    }
    return ok;
}

int grid_plan_axis(float box, float neighbour_radius, int32_t n, float *edge,
                   int *reach) {
    *edge = 0.0f;
    *reach = 0;
    if (n < 3 || (uint32_t)n > GRID_MAX_CELLS)
        return 0;
    return cut_axis(box, n, neighbour_radius * GRID_CELL_PAD, edge, reach);
}

void grid_set_plan(grid *g, const int32_t n[3], const float edge[3],
                   const int reach[3]) {
    for (int a = 0; a < 3; a++) {
        g->n[a] = n[a];
        g->edge[a] = edge[a];
        g->inv_edge[a] = 1.0 / (double)edge[a];
        g->reach[a] = reach[a];
    }
    if (g->periodic)
        g->bucket_count =
            (uint32_t)g->n[0] * (uint32_t)g->n[1] * (uint32_t)g->n[2];
}

void grid_init(grid *g, int dims, int periodic, const float box[3],
               float neighbour_radius, float cell_size) {
    memset(g, 0, sizeof *g);
    g->dims = dims;
    g->periodic = periodic;
    for (int a = 0; a < 3; a++)
        g->box[a] = box[a];
    g->dense = periodic;
    g->origin[0] = g->origin[1] = g->origin[2] = 0;
    int32_t n[3];
    float edge[3];
    int reach[3];
    grid_plan(dims, periodic, box, neighbour_radius, cell_size, n, edge, reach);
    grid_set_plan(g, n, edge, reach);
}
