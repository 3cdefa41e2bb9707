/* SPDX-License-Identifier: MIT */
/*
 * The eikonal solver behind navigation fields (nav_solve.c): travel times
 * to a set of goal cells over a raster of cell classes and costs, computed
 * as the one fixed point of a monotone integer update, in parallel tiles,
 * and the directions read off the result.
 */
#ifndef THRONG_NAV_SOLVE_H
#define THRONG_NAV_SOLVE_H

#include <stddef.h>
#include <stdint.h>

#include "parallel.h"

/* Times are integers: a step of one cell at cost 1 takes NAV_UNIT. The
 * resolution (1/4096 of a cell; each update rounds up by less than one
 * unit, so a path of a thousand cells gains at most a quarter of a cell)
 * is well below the scheme's own error, and leaves room for the largest
 * grid and cost: a path of every one of 2^26 cells at the largest step,
 * NAV_MAX_STEP, stays below NAV_INF. */
#define NAV_UNIT 4096u
/* The largest step a cell may cost, in units: 3 NAV_MAX_STEP^2 plus
 * (2 NAV_MAX_STEP)^2 fits an unsigned 64-bit integer, which the 3D update
 * squares. */
#define NAV_MAX_STEP ((1u << 30) - 1u)
/* No time: a cell no goal reaches. */
#define NAV_INF (1ull << 62)
/* The bit a margin cell's time carries (nav_solve.c says why). */
#define NAV_TAG (1ull << 63)
/* A solid cell's time: above NAV_INF whether read as it is or with
 * NAV_TAG masked off, and no other cell's. */
#define NAV_SOLID_TIME (~0ull)

/* Cell classes. SOLID cells are never entered; a GOAL cell's time is 0; a
 * FREE cell's time comes from FREE and GOAL neighbours only; a MARGIN
 * cell (free space within the clearance of geometry) from any neighbour
 * but a SOLID one, so it leads back into free space without ever being a
 * way through for a FREE cell. Updatable classes are the highest. */
#define NAV_SOLID 0u
#define NAV_GOAL 1u
#define NAV_FREE 2u
#define NAV_MARGIN 3u

/* The raster: dims 2 or 3, n cells per axis (1 on an axis the world
 * lacks). Arrays are padded by one solid cell on each side of each of the
 * world's axes, so no update needs a bounds check: cell (i, j, k) of the
 * field (0-based) is at index (i + 1) + (j + 1) stride[1] + (k + 1)
 * stride[2] in 3D, (i + 1) + (j + 1) stride[1] in 2D. */
typedef struct nav_raster {
    int dims;
    uint32_t n[3];
    uint32_t padded[3];  /* n + 2 on the world's axes, else 1 */
    size_t stride[3];    /* 1, padded[0], padded[0] padded[1] */
    size_t padded_cells; /* padded[0] padded[1] padded[2] */
    uint32_t tile[3];    /* tile edge per axis (1 on absent axes) */
    uint32_t tiles[3];   /* tiles per axis */
    uint32_t tile_count;
} nav_raster;

/* What a solve works on: the raster, the caller's arrays (padded_cells
 * long) and the solver's scratch (nav_solve_scratch_bytes). */
typedef struct nav_solve_arrays {
    const uint8_t *cls;
    const uint32_t *step; /* units per cell step: NAV_UNIT * cost */
    uint64_t *time;       /* in: the start (see nav_solve); out: result */
    float *dir;           /* out: dims floats per cell, unit, or 0 */
    /* NAV_UNIT entries from nav_unit_table_fill. */
    const uint16_t *unit_table;
    /* Scratch, from nav_solve_scratch_bytes (aligned to 8 bytes). */
    void *scratch;
} nav_solve_arrays;

/* What the last solve did, for the statistics a field reports. */
typedef struct nav_solve_stats {
    uint32_t phases;          /* rounds of one tile colour */
    uint32_t tiles_processed; /* tile visits, summed over phases */
    uint64_t sweeps;          /* sweeps of a tile, summed */
} nav_solve_stats;

/* Fills a raster for n cells per axis (2 or 3 dims); 0, or 1 when the
 * padded grid does not fit a size_t (the caller refuses such a field
 * before that). */
int nav_raster_plan(nav_raster *r, int dims, const uint32_t n[3]);

/* The index of field cell (i, j, k) in the padded arrays. */
static inline size_t nav_index(const nav_raster *r, uint32_t i, uint32_t j,
                               uint32_t k) {
    size_t at = (size_t)i + 1u + ((size_t)j + 1u) * r->stride[1];
    if (r->dims == 3)
        at += ((size_t)k + 1u) * r->stride[2];
    return at;
}

/* Bytes of scratch a solve of this raster needs. */
size_t nav_solve_scratch_bytes(const nav_raster *r);

/* The time a cell of class `cls` starts a full build with: 0 for a goal,
 * NAV_SOLID_TIME for a solid cell, NAV_INF (tagged on a margin cell)
 * otherwise. */
static inline uint64_t nav_start_time(uint8_t cls) {
    return cls == NAV_GOAL     ? 0u
           : cls == NAV_SOLID  ? NAV_SOLID_TIME
           : cls == NAV_MARGIN ? NAV_INF | NAV_TAG
                               : NAV_INF;
}

/* Solves from the times in a->time, which must be a start the update can
 * only lower towards the answer: every cell at nav_start_time of its
 * class (a full build), or, on cells a change does not reach, the time
 * the previous answer held, which a path of unchanged cells still
 * achieves (an incremental build, nav_solve_reset_downstream). Processes
 * the tiles whose `start` flag is set (tile index order of nav_raster)
 * and whatever their changes reach, in parallel on `sched`; the result is
 * the same bits for any schedule or thread count. Then writes dir for the
 * tiles it touched and their neighbours (every tile when `all_post` is
 * set). `stats` may be NULL. */
void nav_solve(const nav_raster *r, const nav_solve_arrays *a,
               const uint8_t *start, int all_post, parallel_sched *sched,
               nav_solve_stats *stats);

/* For an incremental rebuild, with a->time still the previous answer
 * and a->cls already the new classes: every cell listed in `changed`
 * (indices into the padded arrays, count of them) and every cell whose
 * time came, through its parents (per axis the nearer neighbour, when
 * earlier than the cell), from one of them gets nav_start_time of its
 * class, and its tile's flag in `start` (tile_count bytes) set. `queue`
 * holds padded_cells entries, `mark` padded_cells bytes of zeros (left
 * zero). Returns how many cells were reset; or, when that would be
 * `limit` or more, SIZE_MAX with nothing changed (a full build is then
 * the cheaper one). */
size_t nav_solve_reset_downstream(const nav_raster *r,
                                  const nav_solve_arrays *a,
                                  const uint32_t *changed, size_t count,
                                  uint32_t *queue, uint8_t *mark,
                                  uint8_t *start, size_t limit);

/* The tile holding padded cell index `at` (not a padding cell). */
uint32_t nav_tile_of(const nav_raster *r, size_t at);

/* Fills the table of two-axis updates for a step of NAV_UNIT (NAV_UNIT
 * entries), which the solver reads for cells at cost 1. */
void nav_unit_table_fill(uint16_t *table);

/* The update of one cell from its neighbours' times (x: dims values, the
 * nearer neighbour per axis, each below NAV_INF or not) for a step of F
 * units (1 .. NAV_MAX_STEP): the smallest integer t with sum over axes of
 * max(t - x, 0)^2 >= F^2, or NAV_INF when no x is below NAV_INF. Exposed
 * for the tests. */
uint64_t nav_update(const uint16_t *table, const uint64_t *x, int dims,
                    uint64_t F);

#endif /* THRONG_NAV_SOLVE_H */
