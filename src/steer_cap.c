/* SPDX-License-Identifier: MIT */
/*
 * The neighbour cap's selection: an agent whose group caps its neighbours
 * at K sees only the K nearest within the neighbour radius, by (squared
 * distance, slot). Choosing them by measuring every candidate of the block
 * costs as much as the uncapped walk, and in a knot (thousands of agents
 * in one cell, since a cell is as wide as the radius) far more than the K
 * rule evaluations it saves. So each step that a capped group walks, every
 * crowded bucket gets a fine grid of its own: the bounding box of its rows
 * cut into sub-cells of a few agents each, its rows counting-sorted by
 * sub-cell. An agent then visits each bucket's sub-cells in rings of
 * increasing distance around its own position and stops once K are kept
 * and no unvisited sub-cell can hold anything nearer than the K-th.
 * Agents of one run (one cell) mostly see the same crowd, so after the
 * first the search starts from a guess of the K-th distance (a running
 * mean of theirs): only rows within it are held and only the sub-cells
 * within its reach are read, in one stretch per slab, with no rings; a
 * guess that holds fewer than K is widened and the search run again.
 *
 * The kept set must be exactly the one the full scan keeps, so the forces
 * do not change by a bit: keys are computed by flock_offset(), as the scan
 * does, and a sub-cell is passed over only when the distance from the
 * agent to its box, shrunk by a rounding allowance, exceeds the K-th key
 * even after the float rounding of a squared distance. Keys are unique
 * (slots are), so the K smallest are one set whatever order they are met
 * in. A row met through two ranges of a block (a periodic box narrower
 * than the block) would have two keys of one slot; such blocks keep the
 * full scan.
 */
#include "steer_cap.h"

#include <string.h>

#include "core.h"
#include "detmath.h"
#include "parallel.h"

/* Rows per sub-cell aimed at, from the smallest cap of a walking group:
 * about K / 2, so the agent's sub-cell and its first ring (9 sub-cells in
 * 2D) hold the K nearest in most cases; at least 2, so a bucket has fewer
 * sub-cells than rows (their starts fit in the bucket's rows), and at
 * most 32, so a large cap does not fall back to scanning whole buckets. */
#define CAP_TARGET_MIN 2u
#define CAP_TARGET_MAX 32u

/* A squared float distance is at least the exact one times 1 - 5 2^-24
 * (one rounding for each of the subtraction, the squares and the sums);
 * box distances are compared after this shrink, a wide margin. */
#define CAP_LB_SHRINK (1.0 - 1.0 / 1048576.0)

/* Below this squared distance a float square may be subnormal and lose
 * its relative precision: such a box is never passed over. */
#define CAP_LB_FLOOR 1e-34

/* Up to this many kept neighbours are put in walk order by rank: each
 * one's place is the count of those before it, n^2 comparisons without
 * a branch on the data. */
#define CAP_RANK_SORT_MAX 64u

/* The guess of an agent's cap-th squared distance: a running mean of
 * the run's agents before it (each new one weighs CAP_GUESS_NEW) times
 * this, so the guess mostly holds (a miss costs a second search) and
 * holds few more than cap. */
#define CAP_GUESS_GROW 1.5f
#define CAP_GUESS_NEW 0.25f

/* A guess that holds fewer than cap is widened by this (the area it
 * covers grows as fast), at most CAP_GUESS_TRIES times (a guess far too
 * small, after agents at one point, would take many), then the radius
 * serves. */
#define CAP_GUESS_WIDEN 2.0f
#define CAP_GUESS_TRIES 2

/* A reach computed in double (a square root, a sum) is widened by this
 * relative margin, far above their rounding. */
#define CAP_REACH_GROW (1.0 + 1.0 / 1099511627776.0)

/* Slabs of a disc search whose stretches are found together (a few
 * more than a guessed disc spans). */
#define CAP_SLAB_BATCH 8u

/* Relative rounding allowance of a coordinate in a box bound. */
#define CAP_SLACK_REL (1.0 / 1099511627776.0) /* 2^-40 */

static cap_index *index_of(const throng_world *w) {
    return (cap_index *)w->cap_index;
}

size_t cap_index_bytes(const throng_world *w) {
    return w->cap_index_bytes;
}

void cap_index_drop(throng_world *w) {
    cap_index *ix = index_of(w);
    if (ix)
        ix->valid = 0;
}

static size_t align_up(size_t n) {
    const size_t mask = (size_t)THRONG_ALIGN - 1;
    return (n + mask) & ~mask;
}

/* The array at byte `offset` of the index's block (offsets are aligned
 * for any element type). */
static void *block_at(char *block, size_t offset) {
    return block + offset;
}

/* Room for `agents` rows: all or nothing; returns the index or NULL. */
static cap_index *index_reserve(throng_world *w, uint32_t agents) {
    cap_index *ix = index_of(w);
    if (ix && ix->rows_capacity >= agents)
        return ix;
    const uint32_t fine_capacity = agents / CAP_FINE_MIN_ROWS + 1u;
    const size_t head = align_up(sizeof *ix);
    /* The position and slot columns are read in vector lanes up to
     * FLOCK_ROWS_PAD entries past a stretch's end: every column has that
     * room, zeroed once, and rows of buckets without a fine grid hold
     * whatever they held (lanes past the end are masked). */
    const size_t column =
        align_up(((size_t)agents + FLOCK_ROWS_PAD) * sizeof(uint32_t));
    const size_t bytes =
        head + 7 * column + (size_t)fine_capacity * sizeof(cap_fine);
    char *block = world_alloc(w, bytes);
    if (!block)
        return NULL;
    if (w->cap_index)
        world_free(w, w->cap_index, w->cap_index_bytes);
    ix = block_at(block, 0);
    memset(ix, 0, sizeof *ix);
    ix->bytes = bytes;
    ix->rows_capacity = agents;
    ix->fine_capacity = fine_capacity;
    ix->rows = block_at(block, head);
    ix->start = block_at(block, head + column);
    ix->fine_of = block_at(block, head + 2 * column);
    ix->px = block_at(block, head + 3 * column);
    ix->py = block_at(block, head + 4 * column);
    ix->pz = block_at(block, head + 5 * column);
    ix->slot = block_at(block, head + 6 * column);
    ix->fine = block_at(block, head + 7 * column);
    memset(ix->px, 0, 4 * column);
    w->cap_index = block;
    w->cap_index_bytes = bytes;
    return ix;
}

/* The sub-cell of coordinate x on one axis (rows: x >= lo; queries are
 * clamped into the grid). */
static inline int32_t fine_coord(const cap_fine *f, int axis, double x) {
    double u = (x - f->lo[axis]) * f->inv_edge[axis];
    if (!(u > 0.0))
        return 0;
    if (u >= (double)(f->n[axis] - 1))
        return f->n[axis] - 1;
    return (int32_t)u;
}

static inline uint32_t fine_cell_of_row(const throng_world *w,
                                        const cap_fine *f, uint32_t j) {
    const agent_columns *c = &w->col;
    int32_t x = fine_coord(f, 0, (double)c->px[j]);
    int32_t y = fine_coord(f, 1, (double)c->py[j]);
    int32_t z = w->dims == 3 ? fine_coord(f, 2, (double)c->pz[j]) : 0;
    return ((uint32_t)z * (uint32_t)f->n[1] + (uint32_t)y) * (uint32_t)f->n[0] +
           (uint32_t)x;
}

/* Sub-cells per axis: cubes (squares) holding about `target` rows each,
 * fewer along an axis the box is thin in, and never more in all than
 * rows / target. */
static void fine_shape(cap_fine *f, int dims, const double ext[3],
                       uint32_t rows, uint32_t target) {
    double longest = 0.0;
    for (int a = 0; a < dims; a++)
        longest = ext[a] > longest ? ext[a] : longest;
    for (int a = 0; a < 3; a++) {
        f->n[a] = 1;
        f->edge[a] = 1.0;
        f->inv_edge[a] = 0.0;
    }
    if (!(longest > 0.0))
        return; /* every row at one point: one sub-cell */
    const uint32_t cells = rows / target;
    double e[3], volume = 1.0;
    for (int a = 0; a < dims; a++) {
        const double floor_ext = longest / 1024.0;
        e[a] = ext[a] > floor_ext ? ext[a] : floor_ext;
        volume *= e[a];
    }
    const double side = dims == 3 ? detmath_cbrt(volume / (double)cells)
                                  : sqrt(volume / (double)cells);
    uint64_t product = 1;
    for (int a = 0; a < dims; a++) {
        double k = floor(e[a] / side);
        f->n[a] = k < 1.0 ? 1 : k > 4096.0 ? 4096 : (int32_t)k;
        product *= (uint64_t)f->n[a];
    }
    /* Axes clamped up to one sub-cell may leave too many: shrink the
     * longest axis until the count fits. */
    while (product > cells) {
        int big = 0;
        for (int a = 1; a < dims; a++)
            big = f->n[a] > f->n[big] ? a : big;
        uint64_t others = product / (uint64_t)f->n[big];
        uint64_t k = cells / others;
        f->n[big] = k < 1 ? 1 : (int32_t)k;
        product = others * (uint64_t)f->n[big];
    }
    for (int a = 0; a < dims; a++) {
        f->edge[a] = e[a] / (double)f->n[a];
        f->inv_edge[a] = (double)f->n[a] / e[a];
    }
}

typedef struct build_ctx {
    throng_world *w;
    cap_index *ix;
    uint32_t target;
} build_ctx;

/* Fine grids [begin, end): bounding box, shape, counting sort. */
static void build_fine(void *ctx, uint32_t begin, uint32_t end, int thread) {
    (void)thread;
    build_ctx *bc = ctx;
    const throng_world *w = bc->w;
    cap_index *ix = bc->ix;
    const agent_columns *c = &w->col;
    const int dims = w->dims;
    for (uint32_t i = begin; i < end; i++) {
        cap_fine *f = &ix->fine[i];
        const uint32_t r0 = f->begin, r1 = f->end;
        float lo[3] = { c->px[r0], c->py[r0], dims == 3 ? c->pz[r0] : 0.0f };
        float hi[3] = { lo[0], lo[1], lo[2] };
        for (uint32_t j = r0 + 1; j < r1; j++) {
            const float p[3] = { c->px[j], c->py[j],
                                 dims == 3 ? c->pz[j] : 0.0f };
            for (int a = 0; a < dims; a++) {
                lo[a] = p[a] < lo[a] ? p[a] : lo[a];
                hi[a] = p[a] > hi[a] ? p[a] : hi[a];
            }
        }
        double ext[3] = { 0.0, 0.0, 0.0 }, big = 0.0;
        for (int a = 0; a < 3; a++) {
            f->lo[a] = (double)lo[a];
            ext[a] = (double)hi[a] - (double)lo[a];
            double m = fabs((double)lo[a]) > fabs((double)hi[a])
                           ? fabs((double)lo[a])
                           : fabs((double)hi[a]);
            big = m > big ? m : big;
        }
        f->slack = big * CAP_SLACK_REL + 1e-30;
        fine_shape(f, dims, ext, r1 - r0, bc->target);
        const uint32_t cells =
            (uint32_t)f->n[0] * (uint32_t)f->n[1] * (uint32_t)f->n[2];
        INVARIANT(cells + 1u <= r1 - r0, "sub-cell starts fit the rows");
        uint32_t *start = ix->start + r0;
        memset(start, 0, ((size_t)cells + 1u) * sizeof *start);
        for (uint32_t j = r0; j < r1; j++)
            start[fine_cell_of_row(w, f, j) + 1u]++;
        start[0] = r0;
        for (uint32_t s = 1; s <= cells; s++)
            start[s] += start[s - 1];
        /* Scatter with start[s] as the cursor of sub-cell s (it ends at
         * the start of s + 1), then shift the starts back. */
        for (uint32_t j = r0; j < r1; j++)
            ix->rows[start[fine_cell_of_row(w, f, j)]++] = j;
        for (uint32_t s = cells; s > 0; s--)
            start[s] = start[s - 1];
        start[0] = r0;
        const uint32_t *ties = world_ties(w);
        for (uint32_t e = r0; e < r1; e++) {
            const uint32_t j = ix->rows[e];
            ix->px[e] = c->px[j];
            ix->py[e] = c->py[j];
            ix->pz[e] = dims == 3 ? c->pz[j] : 0.0f;
            ix->slot[e] = ties[j];
        }
    }
}

void cap_index_build(throng_world *w, parallel_sched *sched) {
    cap_index *ix = index_of(w);
    if (ix)
        ix->valid = 0;
    uint32_t min_cap = 0;
    for (uint32_t g = 0; g < w->group_count; g++) {
        const group_kernel_params *k = &w->group_params[g];
        if (k->cap && k->walk && (min_cap == 0 || k->cap < min_cap))
            min_cap = k->cap;
    }
    const grid *gr = &w->grid;
    if (min_cap == 0 || w->count == 0 || !gr->valid || !gr->permuted)
        return;
    ix = index_reserve(w, w->count);
    if (!ix)
        return; /* capped agents scan their blocks in full */
    uint32_t target = min_cap / 4u;
    target = target < CAP_TARGET_MIN ? CAP_TARGET_MIN : target;
    target = target > CAP_TARGET_MAX ? CAP_TARGET_MAX : target;
    const uint32_t min_rows =
        2u * target > CAP_FINE_MIN_ROWS ? 2u * target : CAP_FINE_MIN_ROWS;
    uint32_t count = 0;
    const uint32_t *cs = gr->cell_start;
    for (uint32_t b = 0; b < gr->bucket_count; b++) {
        const uint32_t r0 = cs[b], r1 = cs[b + 1];
        if (r0 == r1)
            continue;
        if (r1 - r0 < min_rows) {
            ix->fine_of[r0] = CAP_NO_FINE;
            continue;
        }
        INVARIANT(count < ix->fine_capacity, "fine grids fit their array");
        ix->fine_of[r0] = count;
        ix->fine[count].begin = r0;
        ix->fine[count].end = r1;
        count++;
    }
    ix->fine_count = count;
    build_ctx ctx = { .w = w, .ix = ix, .target = target };
    parallel_for(sched, count, 4, build_fine, &ctx);
    ix->valid = !sched->failed;
}

void cap_block_prepare(const flock_run *run, cap_block *blk) {
    const throng_world *w = run->w;
    const cap_index *ix = index_of(w);
    const grid *g = &w->grid;
    blk->prepared = 1;
    blk->scan = 1;
    blk->count = 0;
    blk->last_far = 0.0f;
    blk->own = 0;
    blk->cell_known = 0;
    if (!ix || !ix->valid)
        return;
    /* Ranges sorted by first row (insertion: they mostly ascend already),
     * so a row in two of them shows as an overlap of neighbours. */
    uint32_t order[GRID_MAX_RANGES];
    for (int r = 0; r < run->range_count; r++) {
        int i = r;
        for (; i > 0 && run->ranges[order[i - 1]].begin > run->ranges[r].begin;
             i--)
            order[i] = order[i - 1];
        order[i] = (uint32_t)r;
    }
    for (int i = 1; i < run->range_count; i++)
        if (run->ranges[order[i]].begin < run->ranges[order[i - 1]].end)
            return;
    uint32_t n = 0, walked = 0;
    for (int r = 0; r < run->range_count; r++) {
        const cell_range *cr = &run->ranges[r];
        blk->base[r] = walked;
        walked += cr->end - cr->begin;
        uint32_t row = cr->begin;
        while (row < cr->end) {
            const uint32_t b = grid_bucket_of_row(g, row);
            const uint32_t r0 = g->cell_start[b], r1 = g->cell_start[b + 1];
            const uint32_t end = r1 < cr->end ? r1 : cr->end;
            if (n == GRID_MAX_RANGES)
                return;
            /* A bucket the range holds whole may use its fine grid. */
            const int whole = r0 >= cr->begin && r1 <= cr->end;
            blk->seg[n].begin = row;
            blk->seg[n].end = end;
            blk->seg[n].range = (uint32_t)r;
            blk->seg[n].fine = whole ? ix->fine_of[r0] : CAP_NO_FINE;
            n++;
            row = end;
        }
    }
    blk->count = n;
    blk->scan = 0;
}

/* Where the walk meets a held candidate (pick_entry's where): the range
 * above an index that is the row itself or, with PICK_FINE set, the
 * row's entry in the index's rows[] (looked up only for the few kept). */
#define PICK_FINE (UINT64_C(1) << 63)

static inline uint64_t pick_where(uint32_t range, int fine) {
    return (uint64_t)range << 32 | (fine ? PICK_FINE : 0u);
}

/* Up to this many held candidates are cut back to the cap nearest by
 * counting (m^2 compares in vector lanes, cheaper than a selection's
 * data-dependent stores while m is a small multiple of the cap, as the
 * guessed limit keeps it); more, or the scalar path, take the
 * quickselect. A multiple of FLOCK_COUNT_PAD. */
#define CAP_COUNT_SELECT_MAX 64u

/* Candidates held before the buffer is cut back to the cap nearest:
 * twice the largest cap the selection serves, so a cut always frees half
 * (larger caps keep the full scan: their buffers would not fit a
 * thread's stack). */
#define CAP_PICK_BUF (2u * CAP_SELECT_MAX)

/* The selection's state for one agent. */
typedef struct picker {
    const throng_world *w;
    const flock_run *run;
    const cap_index *ix;
    uint32_t t, cap, m, self_slot;
    uint32_t settled; /* m after the last cut (the limit is tight) */
    float R2;
    /* Squared distances above this cannot be kept: the radius until cap
     * candidates are held, then the farthest of the cap nearest. */
    float limit;
    uint64_t candidates, neighbours;
    pick_entry *buf;
} picker;

static inline uint64_t pick_key(float d2, uint32_t slot) {
    uint32_t bits;
    memcpy(&bits, &d2, sizeof bits);
    return (uint64_t)bits << 32 | slot;
}

static inline float key_d2(uint64_t key) {
    const uint32_t bits = (uint32_t)(key >> 32);
    float d2;
    memcpy(&d2, &bits, sizeof d2);
    return d2;
}

/* The k-th smallest of the n keys in a (1 <= k <= n), found by
 * quickselect through b (both n long; a is overwritten): each round
 * writes every key to both ends of b and advances the end it belongs to,
 * so no branch depends on a key (they are random, a branch on them would
 * mispredict about every other time) and no load waits for a store. */
static uint64_t kth_key(uint64_t *a, uint64_t *b, uint32_t n, uint32_t k) {
    uint32_t want = k - 1u;
    for (;;) {
        if (n == 1)
            return a[0];
        /* Every round's n keys were written (the analyser loses track of
         * the two ends of b). */
        /* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Assign) */
        const uint64_t x = a[0], y = a[n / 2], z = a[n - 1];
        const uint64_t pivot = x < y ? (y < z ? y : (x < z ? z : x))
                                     : (x < z ? x : (y < z ? z : y));
        uint32_t less = 0, more = 0;
        for (uint32_t i = 0; i < n; i++) {
            const uint64_t v = a[i];
            b[less] = v;
            b[n - 1u - more] = v;
            less += v < pivot;
            more += v > pivot;
        }
        /* b: [0, less) below the pivot, [n - more, n) above, between
         * them keys equal to it. */
        uint64_t *spare = a;
        if (want < less) {
            a = b;
            n = less;
        } else if (want < n - more) {
            return pivot;
        } else {
            a = b + (n - more);
            want -= n - more;
            n = more;
        }
        b = spare;
    }
}

/* The cap nearest of m <= CAP_COUNT_SELECT_MAX held candidates by
 * counting: each one's count of strictly nearer squared distances (the
 * path's count_below(), in vector lanes with no branch on the data).
 * When exactly cap counts are below cap, no tie of distances straddles
 * the cap-th place and those cap are the cap smallest keys whatever the
 * slots (a tie wholly inside is kept whole, one wholly outside dropped
 * whole); they are kept, in out, the farthest one's key goes to *far and
 * 1 is returned. Else (equal distances across the cap-th place:
 * coincident agents, a lattice) nothing is written and 0 is returned. (A
 * key says nothing of which case it was: a neighbour of slot 0 standing
 * on the agent has key 0.) */
static int keep_nearest_counted(const throng_world *w, const pick_entry *buf,
                                uint32_t m, uint32_t cap, pick_entry *out,
                                uint64_t *far_key) {
    int32_t d2_bits[CAP_COUNT_SELECT_MAX], nearer[CAP_COUNT_SELECT_MAX];
    /* Non-negative floats order as their bits do, as signed integers
     * too (the sign bit is clear); the padding is above every one. */
    const uint32_t padded =
        (m + FLOCK_COUNT_PAD - 1u) & ~(FLOCK_COUNT_PAD - 1u);
#pragma omp simd
    for (uint32_t i = 0; i < m; i++)
        d2_bits[i] = (int32_t)(buf[i].key >> 32);
    for (uint32_t i = m; i < padded; i++)
        d2_bits[i] = INT32_MAX;
    w->count_below(d2_bits, m, padded, nearer);
    uint32_t below = 0;
#pragma omp simd reduction(+ : below)
    for (uint32_t i = 0; i < m; i++)
        below += (uint32_t)(nearer[i] < (int32_t)cap);
    if (below != cap)
        return 0;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < m; i++) {
        const pick_entry e = buf[i]; /* read before out[kept] is written */
        out[kept] = e;
        kept += (uint32_t)(nearer[i] < (int32_t)cap);
    }
    uint64_t far = 0;
    for (uint32_t i = 0; i < cap; i++)
        far = out[i].key > far ? out[i].key : far;
    *far_key = far;
    return 1;
}

/* Cuts the held candidates back to the cap nearest (keys are unique, so
 * exactly cap stay), in out (which may be buf), and returns the farthest
 * one's key. */
static uint64_t keep_nearest(const throng_world *w, pick_entry *buf, uint32_t m,
                             uint32_t cap, pick_entry *out) {
    uint64_t a[CAP_PICK_BUF], b[CAP_PICK_BUF];
    if (cap == 0 || m < cap)
        return UINT64_MAX; /* never: callers hold at least cap */
    if (w->count_below && m <= CAP_COUNT_SELECT_MAX) {
        uint64_t counted = 0;
        if (keep_nearest_counted(w, buf, m, cap, out, &counted))
            return counted;
    }
    /* buf[0 .. m) were written by pick_rows() (the analyser cannot tell). */
    for (uint32_t i = 0; i < m; i++)
        /* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Assign) */
        a[i] = buf[i].key;
    /* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Assign) */
    const uint64_t far = kth_key(a, b, m, cap);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < m; i++) {
        const pick_entry e = buf[i]; /* read before out[kept] is written */
        out[kept] = e;
        kept += e.key <= far;
    }
    INVARIANT(kept == cap, "unique keys: the cap nearest are cap entries");
    return far;
}

/* Cuts the held candidates back to the cap nearest and tightens the
 * limit to the farthest of them. */
static void pick_prune(picker *p) {
    if (p->m < p->cap || p->m == p->settled)
        return;
    p->limit = key_d2(keep_nearest(p->w, p->buf, p->m, p->cap, p->buf));
    p->m = p->cap;
    p->settled = p->cap;
}

/* A box at squared distance lb (before the shrink) may hold a keeper. */
static inline int box_may_hold(const picker *p, double lb) {
    return !(lb > CAP_LB_FLOOR && lb * CAP_LB_SHRINK > (double)p->limit);
}

/* Candidates [from, to) of arrays in some order (rows: their rows, or
 * NULL when the index is the row), measured from the agent's image q as
 * flock_offset() measures them, held when within the limit. */
static inline __attribute__((always_inline)) void
pick_rows(picker *p, const float *restrict px, const float *restrict py,
          const float *restrict pz, const uint32_t *restrict slot,
          uint32_t from, uint32_t to, const float q[3], uint64_t where,
          const int three, const int padded_columns) {
    pick_entry *restrict buf = p->buf;
    const float R2 = p->R2;
    const uint32_t self = p->self_slot;
    p->candidates += to - from;
    while (from < to) {
        /* Room for every candidate of the stretch (each writes one entry
         * and keeps it or not), cutting the held back when full. */
        if (p->m == CAP_PICK_BUF)
            pick_prune(p);
        uint32_t m = p->m;
        const uint32_t room = CAP_PICK_BUF - m;
        const uint32_t stop = to - from > room ? from + room : to;
        const float limit = p->limit;
        if (padded_columns && p->w->cap_rows) {
            const flock_rows_query a = {
                .px = px,
                .py = py,
                .pz = pz,
                .slot = slot,
                .q = { q[0], q[1], q[2] },
                .R2 = R2,
                .limit = limit,
                .self = self,
                .three = three,
                .where = where,
            };
            const uint32_t bounds[2] = { from, stop };
            p->m = p->w->cap_rows(&a, bounds, 1, buf, m, &p->neighbours);
            from = stop;
            continue;
        }
        uint32_t near = 0;
        for (uint32_t e = from; e < stop; e++) {
            const float dx = px[e] - q[0];
            const float dy = py[e] - q[1];
            float d2 = dx * dx + dy * dy;
            if (three) {
                const float dz = pz[e] - q[2];
                d2 = d2 + dz * dz;
            }
            const uint32_t s = slot[e];
            const uint32_t in = (uint32_t)(d2 <= R2) & (uint32_t)(s != self);
            near += in;
            buf[m].key = pick_key(d2, s);
            buf[m].where = where | e;
            m += in & (uint32_t)(d2 <= limit);
        }
        p->m = m;
        p->neighbours += near;
        from = stop;
    }
}

/* The squared distance from q to the box [lo, hi] per axis, each gap
 * shrunk by slack. */
static inline double box_gap2(int dims, const double q[3], const double lo[3],
                              const double hi[3], double slack) {
    double s = 0.0;
    for (int a = 0; a < dims; a++) {
        double g = lo[a] - q[a];
        const double g2 = q[a] - hi[a];
        g = g2 > g ? g2 : g;
        g -= slack;
        if (g > 0.0)
            s += g * g;
    }
    return s;
}

static inline double fine_slack(const cap_fine *f, int dims,
                                const double q[3]) {
    double big = 0.0;
    for (int a = 0; a < dims; a++)
        big = fabs(q[a]) > big ? fabs(q[a]) : big;
    return f->slack + big * CAP_SLACK_REL;
}

/* The squared distance from q to the fine grid's whole box. */
static double fine_box_gap2(const cap_fine *f, int dims, const double q[3]) {
    double lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        lo[a] = f->lo[a];
        hi[a] = f->lo[a] + (double)f->n[a] * f->edge[a];
    }
    return box_gap2(dims, q, lo, hi, fine_slack(f, dims, q));
}

/* The agent's image in range r, rounded as flock_offset() rounds it. */
static inline void pick_image(const picker *p, uint32_t range, float q[3]) {
    const cell_range *cr = &p->run->ranges[range];
    const agent_columns *c = &p->w->col;
    q[0] = c->px[p->t] - cr->shift[0];
    q[1] = c->py[p->t] - cr->shift[1];
    q[2] = p->w->dims == 3 ? c->pz[p->t] - cr->shift[2] : 0.0f;
}

/* The squared gap from q to sub-cells of index i along one axis, shrunk
 * by slack (0 when q lies within their slab). */
static inline double axis_gap2(const cap_fine *f, int axis, int32_t i, double q,
                               double slack) {
    const double lo = f->lo[axis] + (double)i * f->edge[axis];
    double g = lo - q;
    const double g2 = q - (lo + f->edge[axis]);
    g = (g2 > g ? g2 : g) - slack;
    return g > 0.0 ? g * g : 0.0;
}

/* Stretches of the index's columns (rows of sub-cells of one fine grid
 * seen through range `range`), as the path's cap_rows() takes them:
 * measured in one call when the buffer has room for every candidate (the
 * limit stays the same across them, so the held set is the one the calls
 * stretch by stretch would hold before any cut), else stretch by stretch. */
static void pick_stretches(picker *p, uint32_t range, const float qf[3],
                           const uint32_t *bounds, uint32_t count) {
    const cap_index *ix = p->ix;
    uint32_t total = 0;
    for (uint32_t i = 0; i < count; i++)
        total += bounds[2 * i + 1] - bounds[2 * i];
    if (p->w->cap_rows && total <= CAP_PICK_BUF - p->m) {
        const flock_rows_query a = {
            .px = ix->px,
            .py = ix->py,
            .pz = ix->pz,
            .slot = ix->slot,
            .q = { qf[0], qf[1], qf[2] },
            .R2 = p->R2,
            .limit = p->limit,
            .self = p->self_slot,
            .three = p->w->dims == 3,
            .where = pick_where(range, 1),
        };
        p->candidates += total;
        p->m = p->w->cap_rows(&a, bounds, count, p->buf, p->m, &p->neighbours);
        return;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (p->w->dims == 3)
            pick_rows(p, ix->px, ix->py, ix->pz, ix->slot, bounds[2 * i],
                      bounds[2 * i + 1], qf, pick_where(range, 1), 1, 1);
        else
            pick_rows(p, ix->px, ix->py, ix->pz, ix->slot, bounds[2 * i],
                      bounds[2 * i + 1], qf, pick_where(range, 1), 0, 1);
    }
}

/* Sub-cells s0 .. s1 of f (consecutive, so their rows are one stretch). */
static inline void pick_strip(picker *p, const cap_fine *f, uint32_t range,
                              const float qf[3], uint32_t s0, uint32_t s1) {
    const uint32_t *start = p->ix->start + f->begin;
    const uint32_t bounds[2] = { start[s0], start[s1 + 1] };
    pick_stretches(p, range, qf, bounds, 1);
}

/* One fine bucket seen through range `range`: sub-cells in rings around
 * the agent's image, until no ring left can hold a keeper. A sub-cell's
 * box distance is the sum of its axes' gaps, so a row of sub-cells whose
 * y (and z) gaps alone are too far is passed over whole. */
static void pick_fine(picker *p, const cap_fine *f, uint32_t range) {
    const int dims = p->w->dims;
    float qf[3];
    pick_image(p, range, qf);
    const double q[3] = { (double)qf[0], (double)qf[1], (double)qf[2] };
    const double slack = fine_slack(f, dims, q);
    int32_t at[3] = { 0, 0, 0 };
    for (int a = 0; a < dims; a++)
        at[a] = fine_coord(f, a, q[a]);
    const uint32_t nx = (uint32_t)f->n[0], ny = (uint32_t)f->n[1];
    for (int32_t k = 0;; k++) {
        if (k > 0) {
            pick_prune(p);
            /* Rings k and beyond lie past the box of rings 0 .. k-1 on
             * some side where the grid goes on. */
            double lb = (double)INFINITY;
            int more = 0;
            for (int a = 0; a < dims; a++) {
                if (at[a] - k >= 0) {
                    double g =
                        q[a] -
                        (f->lo[a] + (double)(at[a] - k + 1) * f->edge[a]) -
                        slack;
                    g = g > 0.0 ? g * g : 0.0;
                    lb = g < lb ? g : lb;
                    more = 1;
                }
                if (at[a] + k < f->n[a]) {
                    double g = f->lo[a] + (double)(at[a] + k) * f->edge[a] -
                               q[a] - slack;
                    g = g > 0.0 ? g * g : 0.0;
                    lb = g < lb ? g : lb;
                    more = 1;
                }
            }
            if (!more || !box_may_hold(p, lb))
                return;
        }
        const int32_t z0 = at[2] - k < 0 ? 0 : at[2] - k;
        const int32_t z1 = at[2] + k >= f->n[2] ? f->n[2] - 1 : at[2] + k;
        const int32_t y0 = at[1] - k < 0 ? 0 : at[1] - k;
        const int32_t y1 = at[1] + k >= f->n[1] ? f->n[1] - 1 : at[1] + k;
        const int32_t x0 = at[0] - k < 0 ? 0 : at[0] - k;
        const int32_t x1 = at[0] + k >= f->n[0] ? f->n[0] - 1 : at[0] + k;
        for (int32_t z = z0; z <= z1; z++) {
            const double gz = dims == 3 ? axis_gap2(f, 2, z, q[2], slack) : 0.0;
            if (!box_may_hold(p, gz))
                continue;
            for (int32_t y = y0; y <= y1; y++) {
                const double gyz = gz + axis_gap2(f, 1, y, q[1], slack);
                if (!box_may_hold(p, gyz))
                    continue;
                const uint32_t row_cell = ((uint32_t)z * ny + (uint32_t)y) * nx;
                if (z - at[2] == k || at[2] - z == k || y - at[1] == k ||
                    at[1] - y == k) {
                    /* The whole row of the ring, one stretch of rows, less
                     * the sub-cells at its ends whose x gap puts them
                     * beyond the limit. */
                    int32_t xa = x0, xb = x1;
                    while (xa < at[0] &&
                           !box_may_hold(
                               p, gyz + axis_gap2(f, 0, xa, q[0], slack)))
                        xa++;
                    while (xb > at[0] &&
                           !box_may_hold(
                               p, gyz + axis_gap2(f, 0, xb, q[0], slack)))
                        xb--;
                    pick_strip(p, f, range, qf, row_cell + (uint32_t)xa,
                               row_cell + (uint32_t)xb);
                    continue;
                }
                if (at[0] - k >= 0 &&
                    box_may_hold(
                        p, gyz + axis_gap2(f, 0, at[0] - k, q[0], slack))) {
                    const uint32_t c = row_cell + (uint32_t)(at[0] - k);
                    pick_strip(p, f, range, qf, c, c);
                }
                if (at[0] + k < f->n[0] &&
                    box_may_hold(
                        p, gyz + axis_gap2(f, 0, at[0] + k, q[0], slack))) {
                    const uint32_t c = row_cell + (uint32_t)(at[0] + k);
                    pick_strip(p, f, range, qf, c, c);
                }
            }
        }
    }
}

/* One fine bucket seen through range `range` when the limit is below
 * the radius (a guess, or cut to the cap nearest): a row that may be
 * held lies within sqrt(limit) of the agent's image, rounding allowed
 * for, so only the sub-cells that reach overlaps are read, each row of
 * them as one stretch whose ends are cut where the disc (ball) narrows.
 * No rings: the reach is known before the first row is read. */
static void pick_disc(picker *p, const cap_fine *f, uint32_t range) {
    const int dims = p->w->dims;
    float qf[3];
    pick_image(p, range, qf);
    const double q[3] = { (double)qf[0], (double)qf[1], (double)qf[2] };
    const double slack = fine_slack(f, dims, q);
    /* The exact squared distance of a row whose float one is within the
     * limit (a floor of CAP_LB_FLOOR keeps the relative bound true when
     * the float squares are subnormal). */
    const double lim =
        (double)p->limit > CAP_LB_FLOOR ? (double)p->limit : CAP_LB_FLOOR;
    const double far2 = lim / CAP_LB_SHRINK;
    const double reach = sqrt(far2) * CAP_REACH_GROW + slack;
    int32_t lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 };
    for (int a = 0; a < dims; a++) {
        /* fine_coord() is monotonic in x and places rows by the same
         * formula: a row within reach on this axis lies in [lo, hi]. */
        lo[a] = fine_coord(f, a, q[a] - reach);
        hi[a] = fine_coord(f, a, q[a] + reach);
    }
    const uint32_t nx = (uint32_t)f->n[0], ny = (uint32_t)f->n[1];
    const uint32_t *start = p->ix->start + f->begin;
    for (int32_t z = lo[2]; z <= hi[2]; z++) {
        const double gz = dims == 3 ? axis_gap2(f, 2, z, q[2], slack) : 0.0;
        if (!box_may_hold(p, gz))
            continue;
        /* The stretches of up to CAP_SLAB_BATCH slabs are found before
         * any is read and measured in one call. A limit cut meanwhile
         * (a full buffer) leaves them a superset: rows are still held
         * against the current limit. */
        int32_t y = lo[1];
        while (y <= hi[1]) {
            uint32_t bounds[2 * CAP_SLAB_BATCH];
            uint32_t count = 0;
            for (; y <= hi[1] && count < CAP_SLAB_BATCH; y++) {
                const double gyz = gz + axis_gap2(f, 1, y, q[1], slack);
                if (!box_may_hold(p, gyz))
                    continue;
                /* The reach along x of the whole disc (ball): narrowing
                 * it per slab took a square root each, dearer than the
                 * corner sub-cells' rows it spared (they are measured,
                 * and held only within the limit). */
                const uint32_t row_cell = ((uint32_t)z * ny + (uint32_t)y) * nx;
                const uint32_t first = row_cell + (uint32_t)lo[0];
                const uint32_t last = row_cell + (uint32_t)hi[0];
                bounds[2 * count] = start[first];
                bounds[2 * count + 1] = start[last + 1];
                /* An empty stretch costs nothing to pass over. */
                count += bounds[2 * count] < bounds[2 * count + 1];
            }
            pick_stretches(p, range, qf, bounds, count);
        }
    }
}

static void pick_segment(picker *p, const cap_segment *sg) {
    if (sg->fine != CAP_NO_FINE) {
        /* With the radius as the limit, rings find the cap nearest and
         * stop; with a smaller one, its disc bounds the search. */
        if (p->limit < p->R2)
            pick_disc(p, &p->ix->fine[sg->fine], sg->range);
        else
            pick_fine(p, &p->ix->fine[sg->fine], sg->range);
        return;
    }
    const agent_columns *c = &p->w->col;
    float q[3];
    pick_image(p, sg->range, q);
    if (p->w->dims == 3)
        pick_rows(p, c->px, c->py, c->pz, world_ties(p->w), sg->begin, sg->end,
                  q, pick_where(sg->range, 0), 1, 0);
    else
        pick_rows(p, c->px, c->py, c->pz, world_ties(p->w), sg->begin, sg->end,
                  q, pick_where(sg->range, 0), 0, 0);
}

/* The squared distance from row t to the outside of its own grid cell,
 * shrunk for rounding: every other bucket of its block, seen through any
 * range, lies outside that cell. 0 when unsure. */
static double outside_cell_gap2(const throng_world *w, cap_block *blk,
                                uint32_t t) {
    const grid *g = &w->grid;
    int32_t c[3];
    flock_cell_of(w, t, c);
    const float pf[3] = { w->col.px[t], w->col.py[t],
                          w->dims == 3 ? w->col.pz[t] : 0.0f };
    double gap = (double)INFINITY;
    const int dims = w->dims == 3 ? 3 : 2;
    if (!blk->cell_known || c[0] != blk->cell[0] || c[1] != blk->cell[1] ||
        c[2] != blk->cell[2]) {
        for (int a = 0; a < dims; a++) {
            /* grid_coord() puts x in cell floor(x inv_edge): the cell
             * spans [c / inv_edge, (c + 1) / inv_edge), and in a periodic
             * box the last one reaches the box's face (images of other
             * cells lie beyond the faces). */
            const double lo = (double)c[a] / g->inv_edge[a];
            double hi = (double)(c[a] + 1) / g->inv_edge[a];
            if (g->periodic && c[a] == g->n[a] - 1 && hi < (double)g->box[a])
                hi = (double)g->box[a];
            blk->cell_lo[a] = lo;
            blk->cell_hi[a] = hi;
            blk->cell[a] = c[a];
        }
        blk->cell[2] = c[2];
        blk->cell_known = 1;
    }
    for (int a = 0; a < dims; a++) {
        const double x = (double)pf[a];
        const double lo = blk->cell_lo[a], hi = blk->cell_hi[a];
        const double slack =
            (fabs(x) + fabs(lo) + fabs(hi)) * CAP_SLACK_REL + 1e-30;
        const double near = (x - lo < hi - x ? x - lo : hi - x) - slack;
        gap = near < gap ? near : gap;
    }
    return gap > 0.0 ? gap * gap : 0.0;
}

/* Every candidate of the block that may be nearer than p->limit, the
 * agent's own bucket first, where the nearest usually are; then the
 * others, each passed over whole when its box is too far. */
/* Segment i holds row t unshifted: t's own bucket seen as it is. */
static inline int own_segment(const flock_run *run, const cap_block *blk,
                              uint32_t i, uint32_t t) {
    const cap_segment *sg = &blk->seg[i];
    const cell_range *cr = &run->ranges[sg->range];
    return sg->begin <= t && t < sg->end && cr->shift[0] == 0.0f &&
           cr->shift[1] == 0.0f && cr->shift[2] == 0.0f;
}

static void pick_block(picker *p, cap_block *blk) {
    const throng_world *w = p->w;
    const flock_run *run = p->run;
    const uint32_t t = p->t;
    const int dims = w->dims;
    uint32_t own = blk->count, blk_count = blk->count;
    /* The run's agents mostly share their bucket: the last one's own
     * segment is tried first. (At most one segment holds t unshifted:
     * a prepared block has no row in two ranges.) */
    if (blk->own < blk->count && own_segment(run, blk, blk->own, t)) {
        own = blk->own;
    } else {
        for (uint32_t i = 0; i < blk->count; i++)
            if (own_segment(run, blk, i, t)) {
                own = i;
                blk->own = i;
                break;
            }
    }
    if (own < blk->count) {
        pick_segment(p, &blk->seg[own]);
        pick_prune(p);
        /* Every row outside the cell lies beyond the limit: none of them
         * could be held, whether or not cap are held yet. */
        if (!box_may_hold(p, outside_cell_gap2(w, blk, t)))
            blk_count = 0;
    }
    for (uint32_t i = 0; i < blk_count; i++) {
        if (i == own)
            continue;
        const cap_segment *sg = &blk->seg[i];
        if (sg->fine != CAP_NO_FINE) {
            pick_prune(p);
            float qf[3];
            pick_image(p, sg->range, qf);
            const double q[3] = { (double)qf[0], (double)qf[1], (double)qf[2] };
            if (!box_may_hold(p,
                              fine_box_gap2(&p->ix->fine[sg->fine], dims, q)))
                continue;
        }
        pick_segment(p, sg);
    }
}

uint32_t cap_select(const flock_run *run, cap_block *blk, uint32_t t,
                    uint32_t cap, kept_neighbour *kept, flock_counts *counts) {
    const throng_world *w = run->w;
    pick_entry buf[CAP_PICK_BUF];
    picker p = { .w = w,
                 .run = run,
                 .ix = index_of(w),
                 .t = t,
                 .cap = cap,
                 .m = 0,
                 .settled = 0,
                 .self_slot = world_ties(w)[t],
                 .R2 = w->neighbour_radius * w->neighbour_radius,
                 .candidates = 0,
                 .neighbours = 0,
                 .buf = buf };
    /* Start from a guess of the cap-th distance, so fewer candidates are
     * held and fewer sub-cells visited. Held are then all candidates
     * within the guess: when they are cap or more, the cap-th of all
     * lies within it too and they hold the cap nearest; when fewer, the
     * search runs again with a wider guess, at last the radius. */
    const float guess = blk->last_far * CAP_GUESS_GROW;
    p.limit = guess > 0.0f && guess < p.R2 ? guess : p.R2;
    pick_block(&p, blk);
    for (int miss = 0; p.m < cap && p.limit < p.R2; miss++) {
        const float wider =
            miss < CAP_GUESS_TRIES ? p.limit * CAP_GUESS_WIDEN : p.R2;
        p.m = 0;
        p.settled = 0;
        p.limit = wider < p.R2 ? wider : p.R2;
        pick_block(&p, blk);
    }
    if (p.m > cap)
        (void)keep_nearest(w, buf, p.m, cap, buf);
    const uint32_t n = p.m < cap ? p.m : cap;
    /* Each kept one's row and range, and its place in the walk: the
     * count of rows the walk meets before it (places are unique: no row
     * is in two ranges of a prepared block). */
    uint32_t row[CAP_SELECT_MAX], range[CAP_SELECT_MAX];
    int32_t place[CAP_SELECT_MAX];
    for (uint32_t i = 0; i < n; i++) {
        /* buf[0 .. n) were written by pick_rows() (the analyser cannot
         * tell). */
        /* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Assign) */
        const uint64_t where = buf[i].where;
        const uint32_t at = (uint32_t)where;
        range[i] = (uint32_t)(where >> 32) & 0x7fffffffu;
        row[i] = where & PICK_FINE ? p.ix->rows[at] : at;
        place[i] = (int32_t)(blk->base[range[i]] + row[i] -
                             run->ranges[range[i]].begin);
    }
    if (n > CAP_RANK_SORT_MAX) {
        for (uint32_t i = 0; i < n; i++) {
            kept[i].d2 = key_d2(buf[i].key);
            kept[i].slot = (uint32_t)buf[i].key;
            kept[i].row = row[i];
            kept[i].range = range[i];
        }
        cap_walk_order(kept, n);
    } else {
        /* In walk order by rank: a kept one's rank is the count of
         * places below its own. */
        int32_t ranks[CAP_RANK_SORT_MAX];
        const uint32_t padded =
            (n + FLOCK_COUNT_PAD - 1u) & ~(FLOCK_COUNT_PAD - 1u);
        if (w->count_below) {
            for (uint32_t i = n; i < padded; i++)
                place[i] = INT32_MAX;
            w->count_below(place, n, padded, ranks);
        } else {
            for (uint32_t i = 0; i < n; i++) {
                int32_t rank = 0;
#pragma omp simd reduction(+ : rank)
                for (uint32_t j = 0; j < n; j++)
                    rank += place[j] < place[i];
                ranks[i] = rank;
            }
        }
        for (uint32_t i = 0; i < n; i++) {
            const int32_t rank = ranks[i];
            kept[rank].d2 = key_d2(buf[i].key);
            kept[rank].slot = (uint32_t)buf[i].key;
            kept[rank].row = row[i];
            kept[rank].range = range[i];
        }
    }
    float far = 0.0f;
    for (uint32_t i = 0; i < n; i++)
        far = kept[i].d2 > far ? kept[i].d2 : far;
    blk->last_far =
        n < cap ? 0.0f
        : blk->last_far > 0.0f
            ? (1.0f - CAP_GUESS_NEW) * blk->last_far + CAP_GUESS_NEW * far
            : far;
    counts->candidates += p.candidates;
    counts->neighbours += p.neighbours;
    return n;
}

/* Walk order as one key: range, then row, then the entry's index (so the
 * sorted keys say where each entry goes). Ranges stay below 2^22, rows
 * below 2^32 and indices below 2^10. */
_Static_assert(THRONG_MAX_NEIGHBOUR_CAP <= 1024u &&
                   GRID_MAX_RANGES < (1u << 22),
               "walk keys hold an index in 10 bits and a range in 22");

static inline uint64_t walk_key(const kept_neighbour *k, uint32_t i) {
    return (uint64_t)k->range << 42 | (uint64_t)k->row << 10 | i;
}

void cap_walk_order(kept_neighbour *kept, uint32_t n) {
    uint64_t key[THRONG_MAX_NEIGHBOUR_CAP], tmp[THRONG_MAX_NEIGHBOUR_CAP];
    kept_neighbour copy[THRONG_MAX_NEIGHBOUR_CAP];
    /* Insertion sort of runs of 16, then bottom-up merges. */
    enum {
        RUN = 16
    };
    for (uint32_t i = 0; i < n; i++) {
        key[i] = walk_key(&kept[i], i);
        copy[i] = kept[i];
    }
    for (uint32_t r = 0; r < n; r += RUN) {
        const uint32_t end = r + RUN < n ? r + RUN : n;
        for (uint32_t i = r + 1; i < end; i++) {
            const uint64_t v = key[i];
            uint32_t j = i;
            for (; j > r && key[j - 1] > v; j--)
                key[j] = key[j - 1];
            key[j] = v;
        }
    }
    uint64_t *from = key, *to = tmp;
    for (uint32_t width = RUN; width < n; width *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * width) {
            const uint32_t mid = lo + width < n ? lo + width : n;
            const uint32_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            uint32_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                to[o++] = from[b] < from[a] ? from[b++] : from[a++];
            while (a < mid)
                to[o++] = from[a++];
            while (b < hi)
                to[o++] = from[b++];
        }
        uint64_t *swap = from;
        from = to;
        to = swap;
    }
    for (uint32_t i = 0; i < n; i++)
        kept[i] = copy[from[i] & 1023u];
}
