/* SPDX-License-Identifier: MIT */
/*
 * The uniform spatial grid: agents counting-sorted by cell, cell ranges, and
 * (for a step) the agent columns themselves permuted into cell order. See
 * grid.c for why it is shaped this way. grid.c builds it, grid_plan.c
 * plans its cells (grid_plan.h), grid_query.c reads it (grid_query.h).
 */
#ifndef THRONG_GRID_H
#define THRONG_GRID_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "parallel.h"

typedef struct throng_world throng_world;

/* Cell coordinates are clamped to +-2^30 so a far-away (or huge) position
 * can never overflow an int32 while neighbour offsets are added. */
#define GRID_COORD_LIMIT 1073741824.0

/* Cells are padded by this factor over the radius they must cover, so a
 * pair whose float distance rounds to just within the radius still lies in
 * adjacent cells; 2^-10 exceeds float rounding of coordinates up to about
 * 10^3 radii from the origin by a wide margin. */
#define GRID_CELL_PAD (1.0f + 1.0f / 1024.0f)

/* The most cells a periodic box may hold (memory for ranges and counts). */
#define GRID_MAX_CELLS (1u << 24)

/* A sparse numbering holds at most count + this many rows of cells (the
 * rows' index, 4 bytes a row, then costs at most about 4 bytes an agent;
 * the spare rows let a small crowd spread far along x and y). */
#define GRID_SPARSE_SPARE_ROWS 4096u

/* Columns permuted per parallel region (and spare buffers kept). */
#define GRID_PERMUTE_BATCH 7

/* The most cells walked on each side of an agent's cell. */
#define GRID_MAX_REACH 5

/* One run of candidates: sorted rows [begin, end) from one or more cells
 * that are adjacent in memory and share a periodic image shift. */
typedef struct cell_range {
    uint32_t begin, end;
    float shift[3]; /* add to a candidate's position: nearest image */
} cell_range;

/* The ranges as (first, past last) pairs of sorted rows, the form the
 * vector scans read (hold_rows()), into bounds (2 * count entries);
 * returns the rows they cover. */
static inline uint32_t cell_range_bounds(const cell_range *ranges, int count,
                                         uint32_t *bounds) {
    uint32_t rows = 0;
    for (int r = 0; r < count; r++) {
        bounds[2 * r] = ranges[r].begin;
        bounds[2 * r + 1] = ranges[r].end;
        rows += ranges[r].end - ranges[r].begin;
    }
    return rows;
}

#define GRID_MAX_RANGES                                    \
    ((2 * GRID_MAX_REACH + 1) * (2 * GRID_MAX_REACH + 1) * \
     (2 * GRID_MAX_REACH + 1))

/* The most rows of cells (y, z) a block spans. */
#define GRID_MAX_BLOCK_ROWS \
    ((2 * GRID_MAX_REACH + 1) * (2 * GRID_MAX_REACH + 1))

typedef struct grid {
    int dims;
    int periodic;
    int reach[3];  /* cells walked on each side, per axis */
    float box[3];  /* periodic box */
    float edge[3]; /* cell edge per axis */
    double inv_edge[3];
    /* Dense numbering: always in a periodic box; in unbounded space when
     * the agents' bounding box of cells is small enough (see grid.c). */
    int dense;
    /* Sparse numbering (unbounded space, too spread out to be dense, with
     * few enough rows of cells): the bounding box's rows of cells (y, z)
     * numbered densely, and in each row only its occupied cells, x
     * ascending. Buckets are occupied cells, in the order a dense
     * numbering would give them. Neither dense nor sparse: hashed. */
    int sparse;
    int32_t origin[3];     /* dense, sparse: the lowest cell of the box */
    int32_t n[3];          /* dense, sparse: cells per axis of the box */
    uint32_t bucket_count; /* dense: n0 n1 n2; sparse: occupied cells;
                              hashed: a power of two */
    uint32_t row_count;    /* sparse: n1 n2 */

    /* Storage, grown as needed, never shrunk. */
    uint32_t agent_capacity;
    uint32_t bucket_capacity; /* cell_start holds bucket_capacity + 1 */
    uint32_t hist_capacity;   /* entries of hist */
    uint32_t *cell_start;     /* bucket b holds sorted rows
                                  [cell_start[b], cell_start[b+1]) */
    uint32_t *hist;           /* per chunk, per bucket: counts, then offsets */
    uint32_t *bucket_of;      /* dense row -> bucket */
    uint32_t *sorted;         /* sorted row -> dense row (before a
                                  permuting build moved the rows) */
    /* Sparse: row q of cells holds buckets [row_first[q], row_first[q+1]),
     * and bucket b is the cell (cell_x[b], y, z) of its row. */
    uint32_t sparse_capacity; /* entries of cell_x; row_first holds
                                  sparse_capacity + GRID_SPARSE_SPARE_ROWS
                                  + 1 */
    uint32_t *row_first;
    int32_t *cell_x;

    uint32_t count;    /* agents in the last build */
    uint32_t occupied; /* buckets holding an agent */
    int valid;         /* the build matches the agents' current state */
    int permuted;      /* the rows themselves are in cell order, so bucket
                          ranges index the columns directly */
} grid;

void grid_release(throng_world *world, grid *g);

/* Hashes and sorts the world's agents by bucket. With `permute`, the
 * world's columns are then reordered into cell order (dense rows change;
 * handles follow); without, only the index `sorted` is built, which is what
 * a query uses, so a query never changes the world. Its loops run on
 * `sched`. Returns nonzero when memory could not be had (the world is
 * untouched then); a scheduler that failed (parallel.h) leaves the grid
 * invalid and the columns in their old order. */
int grid_build(throng_world *world, parallel_sched *sched, int permute);

/* The same into another grid of the world's agents (set up by grid_init(),
 * with a plan of its own), never permuting: the neighbour lists' grid
 * (verlet.c). */
int grid_build_into(throng_world *world, grid *g, parallel_sched *sched,
                    int permute);

/* Bytes the grid holds. */
size_t grid_bytes(const grid *g);

/* Integer cell coordinate of a position on one axis. */
/* Unbounded space's cell coordinate of x, for 1 / edge = inv_edge.
 * Clamped, then floored: the limits are whole, so this is the floor
 * clamped. The floor of t within +-2^30 is its truncation, less one
 * where that rounded up; a call to floor() or its inline sequence on
 * plain x86-64 costs two or three times as much, and every agent's cell
 * is found a few times a step. */
static inline __attribute__((always_inline)) int32_t
grid_coord_unbounded(double inv_edge, float x) {
    double t = (double)x * inv_edge;
    if (!(t >= -GRID_COORD_LIMIT)) /* also catches NaN */
        t = -GRID_COORD_LIMIT;
    if (t > GRID_COORD_LIMIT)
        t = GRID_COORD_LIMIT;
    const int32_t c = (int32_t)t;
    return c - ((double)c > t);
}

/* grid_coord_unbounded() floored first, then clamped: the same integer
 * for every float (floor and clamp commute, the limits being whole; NaN
 * fails the first compare), in the form compilers vectorise, where
 * floor() is one instruction (grid.c's dense buckets on AVX2 and
 * AVX-512). */
static inline __attribute__((always_inline)) int32_t
grid_coord_floor(double inv_edge, float x) {
    double t = floor((double)x * inv_edge);
    t = t >= -GRID_COORD_LIMIT ? t : -GRID_COORD_LIMIT;
    t = t > GRID_COORD_LIMIT ? GRID_COORD_LIMIT : t;
    return (int32_t)t;
}

static inline int32_t grid_coord(const grid *g, int axis, float x) {
    if (g->periodic) {
        /* Positions are already wrapped into [0, L). */
        const double t = (double)x * g->inv_edge[axis];
        int32_t c = t > 0.0 ? (int32_t)t : 0;
        return c < g->n[axis] ? c : g->n[axis] - 1;
    }
    return grid_coord_unbounded(g->inv_edge[axis], x);
}

/* The first of buckets [lo, hi) of a sparse grid's row whose cell x is
 * at least x (hi when none is): a binary search whose steps are selects,
 * not branches, since which way it goes is a coin toss. */
static inline uint32_t grid_sparse_seek(const grid *g, uint32_t lo, uint32_t hi,
                                        int64_t x) {
    if (lo >= hi)
        return hi;
    const int32_t *base = g->cell_x + lo;
    uint32_t n = hi - lo;
    while (n > 1) {
        const uint32_t half = n / 2;
        base = base[half] < x ? base + half : base;
        n -= half;
    }
    return (uint32_t)(base - g->cell_x) + (*base < x);
}

/* A sparse grid's row of cells (y, z), or UINT32_MAX outside the box. */
static inline uint32_t grid_sparse_row(const grid *g, int32_t cy, int32_t cz) {
    const int64_t y = (int64_t)cy - g->origin[1],
                  z = (int64_t)cz - g->origin[2];
    if (y < 0 || y >= g->n[1] || z < 0 || z >= g->n[2])
        return UINT32_MAX;
    return (uint32_t)(z * g->n[1] + y);
}

/* A sparse grid's bucket of cell (cx, cy, cz), or UINT32_MAX when no
 * agent is in it. */
static inline uint32_t grid_sparse_find(const grid *g, int32_t cx, int32_t cy,
                                        int32_t cz) {
    const uint32_t q = grid_sparse_row(g, cy, cz);
    if (q == UINT32_MAX)
        return UINT32_MAX;
    const uint32_t end = g->row_first[q + 1];
    const uint32_t b = grid_sparse_seek(g, g->row_first[q], end, cx);
    return b < end && g->cell_x[b] == cx ? b : UINT32_MAX;
}

/* A cell lies inside a dense numbering, or is occupied in a sparse one
 * (always true when periodic, with wrapped coordinates, and when
 * hashed). */
static inline int grid_cell_inside(const grid *g, int32_t cx, int32_t cy,
                                   int32_t cz) {
    if (g->sparse)
        return grid_sparse_find(g, cx, cy, cz) != UINT32_MAX;
    if (!g->dense || g->periodic)
        return 1;
    /* In 64 bits: cells span +-2^30, so a difference can pass int32. */
    return cx >= g->origin[0] && (int64_t)cx - g->origin[0] < g->n[0] &&
           cy >= g->origin[1] && (int64_t)cy - g->origin[1] < g->n[1] &&
           cz >= g->origin[2] && (int64_t)cz - g->origin[2] < g->n[2];
}

/* The bucket of a cell (coordinates already wrapped when periodic; inside
 * the numbering when dense, occupied when sparse). */
static inline uint32_t grid_bucket(const grid *g, int32_t cx, int32_t cy,
                                   int32_t cz) {
    if (g->sparse)
        return grid_sparse_find(g, cx, cy, cz);
    if (g->dense)
        return ((uint32_t)(cz - g->origin[2]) * (uint32_t)g->n[1] +
                (uint32_t)(cy - g->origin[1])) *
                   (uint32_t)g->n[0] +
               (uint32_t)(cx - g->origin[0]);
    /* Multiply each coordinate by a distinct odd constant, sum, and finish
     * with a 32-bit avalanche so neighbouring cells spread over the whole
     * table rather than into runs that collide with each other. */
    uint32_t h = (uint32_t)cx * 0x9E3779B1u + (uint32_t)cy * 0x85EBCA77u +
                 (uint32_t)cz * 0xC2B2AE3Du;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h & (g->bucket_count - 1u);
}

/* The bucket holding sorted row `row` of the last build (row < count):
 * the last bucket whose first row is at most `row`, which is never an
 * empty one. A binary search over cell_start. */
static inline uint32_t grid_bucket_of_row(const grid *g, uint32_t row) {
    uint32_t lo = 0, hi = g->bucket_count; /* start[lo] <= row < start[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->cell_start[mid] <= row)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Dense grids: the cell of bucket b, the inverse of grid_bucket(). */
static inline void grid_cell_of_bucket(const grid *g, uint32_t b,
                                       int32_t c[3]) {
    const uint32_t nx = (uint32_t)g->n[0], ny = (uint32_t)g->n[1];
    c[0] = g->origin[0] + (int32_t)(b % nx);
    c[1] = g->origin[1] + (int32_t)(b / nx % ny);
    c[2] = g->origin[2] + (int32_t)(b / nx / ny);
}

#endif /* THRONG_GRID_H */
