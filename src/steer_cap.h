/* SPDX-License-Identifier: MIT */
/*
 * The neighbour cap's selection (steer_cap.c): the K nearest neighbours of
 * an agent, by (squared distance, slot), found without visiting every
 * candidate of its block.
 */
#ifndef THRONG_STEER_CAP_H
#define THRONG_STEER_CAP_H

#include "steer_flock.h"

/* A bucket of the grid holding at least this many rows gets a fine grid
 * of its own each step a capped group walks: below it, scanning the
 * bucket whole costs about what a fine grid would save. */
#define CAP_FINE_MIN_ROWS 24u

/* The largest cap cap_select() serves; above it the path's scan of every
 * candidate chooses. */
#define CAP_SELECT_MAX 256u

/* The fine grid of one crowded bucket: the bounding box of its rows cut
 * into n[0] x n[1] x n[2] sub-cells, its rows counting-sorted by sub-cell
 * (stable, so rows ascend within a sub-cell). */
typedef struct cap_fine {
    double lo[3];        /* the rows' lowest coordinates */
    double edge[3];      /* a sub-cell's edge per axis */
    double inv_edge[3];  /* 1 / edge */
    double slack;        /* rounding allowance of a box distance, metres */
    int32_t n[3];        /* sub-cells per axis (1 on an absent axis) */
    uint32_t begin, end; /* the bucket's rows */
} cap_fine;

/* The index of one step's crowded buckets; lives in the world's
 * cap_index block (one allocation, grown with the agent count). */
typedef struct cap_index {
    size_t bytes; /* of the whole block, this header included */
    uint32_t rows_capacity;
    uint32_t fine_capacity;
    uint32_t fine_count;
    int valid; /* describes the rows of this step's walk */
    /* Per sorted row: rows[] holds each fine bucket's rows in sub-cell
     * order; start[] holds, from the bucket's first row on, the first
     * entry of each sub-cell in rows[] (sub-cells + 1 entries, which fit
     * the bucket's rows); fine_of[] holds, at each bucket's first row,
     * its fine grid's index or CAP_NO_FINE. */
    uint32_t *rows;
    uint32_t *start;
    uint32_t *fine_of;
    /* The positions and slots of rows[], in its order, so a sub-cell's
     * candidates are read in one sweep. */
    float *px, *py, *pz;
    uint32_t *slot;
    cap_fine *fine;
} cap_index;

#define CAP_NO_FINE UINT32_MAX

/* Builds this step's index when some group walks with a cap (and the
 * memory can be had: without it, capped agents scan their whole block, to
 * the same result). Called after the step's grid build, before the walk. */
void cap_index_build(throng_world *w, parallel_sched *sched);

/* Marks the index stale (after the walk). */
void cap_index_drop(throng_world *w);

/* The bytes of the world's cap index. */
size_t cap_index_bytes(const throng_world *w);

/* One stretch of candidates of a run's block: rows [begin, end) of one
 * bucket seen through range `range`, with the bucket's fine grid or
 * CAP_NO_FINE. */
typedef struct cap_segment {
    uint32_t begin, end;
    uint32_t range;
    uint32_t fine;
} cap_segment;

/* A run's block cut into buckets, prepared once per run. `scan` says the
 * index cannot serve this block (no index, or some row lies in two ranges,
 * as in a periodic box narrower than the block): the path's full scan
 * serves it then. */
typedef struct cap_block {
    int prepared;
    int scan;
    uint32_t count;
    cap_segment seg[GRID_MAX_RANGES];
    /* Each range's place in the walk: the candidates of the ranges
     * before it (then (range, row) orders as base[range] + row - begin,
     * one 32-bit number). */
    uint32_t base[GRID_MAX_RANGES];
    /* A running mean of the squared distance of the farthest kept
     * neighbour over the run's agents so far (0: none yet, or the last
     * one kept fewer than its cap): they lie in one cell of the same
     * crowd, so it guesses the next agent's (see cap_select()). Any
     * value gives the same choice; only the work differs. */
    float last_far;
    /* The segment of the last agent's own bucket (count: none yet), and
     * the bounds of the grid cell last asked for (cell_known), which the
     * agents of a run share. */
    uint32_t own;
    int cell_known;
    int32_t cell[3];
    double cell_lo[3], cell_hi[3];
} cap_block;

void cap_block_prepare(const flock_run *run, cap_block *blk);

/* Agent t's `cap` nearest neighbours within the neighbour radius, by
 * (squared distance, slot), into kept (returns how many) in walk order:
 * the set the full scan keeps, with the same keys, for a block prepared
 * with !scan. Counts the candidates it measured and those within the
 * radius. */
uint32_t cap_select(const flock_run *run, cap_block *blk, uint32_t t,
                    uint32_t cap, kept_neighbour *kept, flock_counts *counts);

/* Sorts kept neighbours into walk order: by range, then row. */
void cap_walk_order(kept_neighbour *kept, uint32_t n);

#endif /* THRONG_STEER_CAP_H */
