/* SPDX-License-Identifier: MIT */
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

/* Where the last sparse range lookup of a walk found each row of its
 * block, so the next lookup, a little further along x in the same rows,
 * steps on from there instead of searching the whole row again. */
typedef struct grid_cursor {
    uint32_t row[GRID_MAX_BLOCK_ROWS]; /* row of cells per block row */
    uint32_t at[GRID_MAX_BLOCK_ROWS];  /* its first bucket at or past x */
    int64_t x[GRID_MAX_BLOCK_ROWS];    /* that x */
} grid_cursor;

/* Forgets every row: the next lookup searches. */
void grid_cursor_reset(grid_cursor *cur);

/* grid_ranges_span(), the same ranges, for a caller that walks cells in
 * sorted order (any order is correct, that one is fast): a sparse grid
 * starts each row's search where `cur` last found it. */
int grid_ranges_span_at(const grid *g, int32_t cx_first, int32_t cx_last,
                        int32_t cy, int32_t cz, grid_cursor *cur,
                        cell_range *out);

/* The same, cell by cell: every cell of the block in turn, its bucket, its
 * rows, merged with the previous range where they continue it. Hashed
 * grids use it; for dense ones it is the reference the arithmetic of
 * grid_ranges_span() is tested against. */
int grid_ranges_walk(const grid *g, int32_t cx_first, int32_t cx_last,
                     int32_t cy, int32_t cz, cell_range *out);

#endif /* THRONG_GRID_QUERY_H */
