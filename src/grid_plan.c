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
        for (;;) {
            n[a] = (int32_t)cells;
            edge[a] = (float)((double)box[a] / cells);
            /* Three cells are walked whole with reach 1, whatever their
             * size: every candidate along the axis is seen exactly once. */
            reach[a] = n[a] == 3 ? 1 : reach_for(cover, edge[a]);
            /* Otherwise the block walked around a cell must not wrap onto
             * itself: 2 reach + 1 cells at most. Fewer, larger cells (and
             * a smaller reach) are used where a small box cannot hold it. */
            if (n[a] >= 2 * reach[a] + 1)
                break;
            cells -= 1.0;
        }
    }
    return ok;
}

void grid_init(grid *g, int dims, int periodic, const float box[3],
               float neighbour_radius, float cell_size) {
    memset(g, 0, sizeof *g);
    g->dims = dims;
    g->periodic = periodic;
    grid_plan(dims, periodic, box, neighbour_radius, cell_size, g->n, g->edge,
              g->reach);
    for (int a = 0; a < 3; a++) {
        g->box[a] = box[a];
        g->inv_edge[a] = 1.0 / (double)g->edge[a];
    }
    g->dense = periodic;
    g->origin[0] = g->origin[1] = g->origin[2] = 0;
    if (periodic)
        g->bucket_count =
            (uint32_t)g->n[0] * (uint32_t)g->n[1] * (uint32_t)g->n[2];
}
