/*
 * Reading the grid (grid_query.c): the candidate ranges around a cell of
 * the last build. The public radius query is declared in throng.h.
 */
#ifndef THRONG_GRID_QUERY_H
#define THRONG_GRID_QUERY_H

#include "grid.h"

/* The candidate ranges of the cell (cx, cy, cz) in the last build: every
 * cell within the reach on each axis, in a fixed order (z, then y, then x,
 * each ascending), each bucket once. Returns how many ranges were written
 * to `out` (at most GRID_MAX_RANGES). */
int grid_ranges(const grid *g, int32_t cx, int32_t cy, int32_t cz,
                cell_range *out);

/* The same for a span of cells cx_first .. cx_last of one row: the union
 * of their blocks, row by row, x ascending. Each cell's own ranges appear
 * in it in the same relative order, so a walk over the union meets every
 * candidate of every cell in that cell's order. Dense grids only: periodic
 * ones with
 * (cx_last - cx_first) + 2 reach + 1 <= cells along x (the union must not
 * wrap onto itself); in a dense unbounded grid any span. Hashed grids
 * would reorder collided buckets. */
int grid_ranges_span(const grid *g, int32_t cx_first, int32_t cx_last,
                     int32_t cy, int32_t cz, cell_range *out);

/* The same, cell by cell: every cell of the block in turn, its bucket, its
 * rows, merged with the previous range where they continue it. Hashed
 * grids use it; for dense ones it is the reference the arithmetic of
 * grid_ranges_span() is tested against. */
int grid_ranges_walk(const grid *g, int32_t cx_first, int32_t cx_last,
                     int32_t cy, int32_t cz, cell_range *out);

#endif /* THRONG_GRID_QUERY_H */
