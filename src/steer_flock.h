/* SPDX-License-Identifier: MIT */
/*
 * The fused neighbour walk: separation, alignment and cohesion share one
 * pass over the candidates of the cells around each agent.
 *
 * The walk is split in two so that every kernel path (scalar, SSE2, AVX2,
 * AVX-512) computes the same bits: the accumulate step sums what each agent
 * sees, one candidate at a time in the grid's fixed candidate order, using
 * only IEEE additions, multiplications, divisions, square roots and
 * comparisons (no fused multiply-add, no reciprocal estimates); the finish
 * step, shared by every path, turns the sums into forces.
 */
#ifndef THRONG_STEER_FLOCK_H
#define THRONG_STEER_FLOCK_H

#include "internal.h"
#include "grid_query.h"

/* What one agent saw in its neighbourhood. Offsets are relative to the
 * agent (nearest periodic image), so sums stay small and exact-ish however
 * far from the origin the crowd is. */
typedef struct flock_sums {
    float sep[3]; /* sum of offsets, or of -offset / d^2 (inverse mode) */
    float ali[3]; /* sum of neighbour velocities */
    float coh[3]; /* sum of offsets */
    uint32_t sep_n, ali_n, coh_n;
    /* Unaligned collision avoidance (filled by every walk for groups that
     * use it): of the predicted collisions, the soonest one's time,
     * and the offset then from the neighbour to the agent; uca_n counts
     * the threats (0: none, and the rest is unset). */
    float uca_t;
    float uca_away[3];
    uint32_t uca_n;
} flock_sums;

/* Agents [begin, end) (rows, in cell order), all in one cell, and the
 * candidate ranges of that cell. */
typedef struct flock_run {
    const throng_world *w;
    const cell_range *ranges;
    int range_count;
    uint32_t begin, end;
    float dt;
} flock_run;

/* Counters a kernel adds to. */
typedef struct flock_counts {
    uint64_t candidates;
    uint64_t neighbours;
} flock_counts;

/* A kernel path: for rows [begin, end) (a chunk, in cell order), walks
 * each agent's candidates and writes its steering force (before
 * truncation) into the world's steer columns. How rows are grouped is the
 * path's own business; what each agent adds, and in which order, is not. */
typedef void (*flock_kernel_fn)(const throng_world *w, uint32_t begin,
                                uint32_t end, float dt, flock_counts *counts);

/* The neighbour cap (throng_flocking.max_neighbours). */

/* A neighbour kept by the cap: its key (distance, then slot) and where the
 * walk met it (range, row), so the kept ones are added in walk order. */
typedef struct kept_neighbour {
    float d2;
    uint32_t slot;
    uint32_t row;
    uint32_t range;
} kept_neighbour;

/* a comes before b among the nearest: closer, or as close and a lower
 * slot. Keys are unique (slots are), so the `cap` first of any set of
 * candidates are one set, whatever order they are offered in. */
static inline int kept_before(const kept_neighbour *a,
                              const kept_neighbour *b) {
    return a->d2 < b->d2 || (a->d2 == b->d2 && a->slot < b->slot);
}

/* Offers e to the max-heap kept[0..*n) of at most cap entries (the
 * farthest kept on top). */
static inline void kept_offer(kept_neighbour *h, uint32_t *n, uint32_t cap,
                              kept_neighbour e) {
    uint32_t i;
    if (*n < cap) {
        i = (*n)++;
        while (i > 0 && kept_before(&h[(i - 1) / 2], &e)) {
            h[i] = h[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        h[i] = e;
        return;
    }
    if (!kept_before(&e, &h[0]))
        return;
    i = 0;
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, top = l;
        if (l >= *n)
            break;
        if (r < *n && kept_before(&h[l], &h[r]))
            top = r;
        if (!kept_before(&e, &h[top]))
            break;
        h[i] = h[top];
        i = top;
    }
    h[i] = e;
}

/* Agent t's candidates, through the cap: fills kept with the cap nearest
 * neighbours within the neighbour radius (returns how many) and counts
 * candidates and neighbours as the uncapped walk does. One per path; all
 * keep the same set. */
typedef uint32_t (*flock_cap_scan_fn)(const flock_run *run, uint32_t t,
                                      uint32_t cap, kept_neighbour *kept,
                                      flock_counts *counts);
uint32_t flock_cap_scan_scalar(const flock_run *run, uint32_t t, uint32_t cap,
                               kept_neighbour *kept, flock_counts *counts);
uint32_t flock_cap_scan_sse2(const flock_run *run, uint32_t t, uint32_t cap,
                             kept_neighbour *kept, flock_counts *counts);
uint32_t flock_cap_scan_avx2(const flock_run *run, uint32_t t, uint32_t cap,
                             kept_neighbour *kept, flock_counts *counts);
uint32_t flock_cap_scan_avx512(const flock_run *run, uint32_t t, uint32_t cap,
                               kept_neighbour *kept, flock_counts *counts);
uint32_t flock_cap_scan_neon(const flock_run *run, uint32_t t, uint32_t cap,
                             kept_neighbour *kept, flock_counts *counts);
uint32_t flock_cap_scan_wasm(const flock_run *run, uint32_t t, uint32_t cap,
                             kept_neighbour *kept, flock_counts *counts);

/* A candidate the neighbour cap's selection holds (steer_cap.c): its key
 * (the squared distance's bits, which order as the distances do since
 * they are never negative, above the slot) and where the walk meets it
 * (a range above an index in some array). */
typedef struct pick_entry {
    uint64_t key;
    uint64_t where;
} pick_entry;

/* Candidates of position and slot columns in some order, in `stretches`
 * stretches [bounds[2 i], bounds[2 i + 1]), measured from q as
 * flock_offset() measures them: each within the radius (R2) that is not
 * the agent (self) counts in *neighbours, and each of those no farther
 * than limit is appended to buf[m ..) with where | its index; returns the
 * new m. The columns must be readable FLOCK_ROWS_PAD entries past each
 * stretch's end (the lanes beyond it are masked). One per vector path;
 * the scalar path's loop is in steer_cap.c. */
#define FLOCK_ROWS_PAD 16u
typedef struct flock_rows_query {
    const float *px, *py, *pz;
    const uint32_t *slot;
    float q[3];
    float R2, limit;
    uint32_t self;
    int three;
    uint64_t where;
} flock_rows_query;

/* Rows a window of hold_windows() spans: the widest path's vector. */
#define FLOCK_WINDOW 16u
typedef uint32_t (*flock_cap_rows_fn)(const flock_rows_query *a,
                                      const uint32_t *bounds,
                                      uint32_t stretches, pick_entry *buf,
                                      uint32_t m, uint64_t *neighbours);
uint32_t flock_cap_rows_sse2(const flock_rows_query *a, const uint32_t *bounds,
                             uint32_t stretches, pick_entry *buf, uint32_t m,
                             uint64_t *neighbours);
uint32_t flock_cap_rows_avx2(const flock_rows_query *a, const uint32_t *bounds,
                             uint32_t stretches, pick_entry *buf, uint32_t m,
                             uint64_t *neighbours);
uint32_t flock_cap_rows_avx512(const flock_rows_query *a,
                               const uint32_t *bounds, uint32_t stretches,
                               pick_entry *buf, uint32_t m,
                               uint64_t *neighbours);
uint32_t flock_cap_rows_neon(const flock_rows_query *a, const uint32_t *bounds,
                             uint32_t stretches, pick_entry *buf, uint32_t m,
                             uint64_t *neighbours);
uint32_t flock_cap_rows_wasm(const flock_rows_query *a, const uint32_t *bounds,
                             uint32_t stretches, pick_entry *buf, uint32_t m,
                             uint64_t *neighbours);
/* The ORCA neighbour scan's held candidates, one column per field: the
 * squared distance's bits and the row (a pick's tie key is the row's,
 * world_ties(), and its range the caller knows). A vector path appends
 * them a whole vector at a time, so each column has FLOCK_HELD_SLACK
 * writable entries past the most it is to hold. */
#define FLOCK_HELD_SLACK 16u
typedef struct flock_held {
    int32_t *d2;
    uint32_t *row;
} flock_held;
/* cap_rows()'s candidates (within R2, not the agent, no farther than
 * limit), in the same order, appended to held[m ..); returns the new m.
 * Here a->self is the agent's row, not its slot: a row holds one agent,
 * so leaving out the row leaves out the same candidates (every image of
 * the agent), and a->slot, a->where are not read; no neighbour is
 * counted. One per vector path: AVX-512 compresses the lanes into place,
 * AVX2 permutes them by a table of the 256 masks, the others write them
 * one by one. */
typedef uint32_t (*flock_hold_rows_fn)(const flock_rows_query *a,
                                       const uint32_t *bounds,
                                       uint32_t stretches,
                                       const flock_held *held, uint32_t m);
uint32_t flock_hold_rows_sse2(const flock_rows_query *a, const uint32_t *bounds,
                              uint32_t stretches, const flock_held *held,
                              uint32_t m);
uint32_t flock_hold_rows_avx2(const flock_rows_query *a, const uint32_t *bounds,
                              uint32_t stretches, const flock_held *held,
                              uint32_t m);
uint32_t flock_hold_rows_avx512(const flock_rows_query *a,
                                const uint32_t *bounds, uint32_t stretches,
                                const flock_held *held, uint32_t m);
uint32_t flock_hold_rows_neon(const flock_rows_query *a, const uint32_t *bounds,
                              uint32_t stretches, const flock_held *held,
                              uint32_t m);
uint32_t flock_hold_rows_wasm(const flock_rows_query *a, const uint32_t *bounds,
                              uint32_t stretches, const flock_held *held,
                              uint32_t m);
/* hold_rows() of windows rather than stretches: `windows` (first row,
 * mask) pairs, bit i of the mask row first + i (i < FLOCK_WINDOW), the
 * rows whose bits are set the candidates. */
#define FLOCK_HOLD_WINDOWS_DECLARE(isa)                                        \
    uint32_t flock_hold_windows_##isa(const flock_rows_query *a,               \
                                      const uint32_t *windows, uint32_t count, \
                                      const flock_held *held, uint32_t m);
FLOCK_HOLD_WINDOWS_DECLARE(sse2)
FLOCK_HOLD_WINDOWS_DECLARE(avx2)
FLOCK_HOLD_WINDOWS_DECLARE(avx512)
FLOCK_HOLD_WINDOWS_DECLARE(neon)
FLOCK_HOLD_WINDOWS_DECLARE(wasm)
#undef FLOCK_HOLD_WINDOWS_DECLARE
/* hold_rows() of the one stretch [0, n), n at most FLOCK_MASK_ROWS, as
 * bits: bit i set when row i would be held (the same squared distances
 * and tests), nothing written. */
#define FLOCK_MASK_ROWS 64u
typedef uint64_t (*flock_mask_rows_fn)(const flock_rows_query *a, uint32_t n);
#define FLOCK_MASK_ROWS_DECLARE(isa) \
    uint64_t flock_mask_rows_##isa(const flock_rows_query *a, uint32_t n);
FLOCK_MASK_ROWS_DECLARE(sse2)
FLOCK_MASK_ROWS_DECLARE(avx2)
FLOCK_MASK_ROWS_DECLARE(avx512)
FLOCK_MASK_ROWS_DECLARE(neon)
FLOCK_MASK_ROWS_DECLARE(wasm)
#undef FLOCK_MASK_ROWS_DECLARE
/* below[i] = how many of v[0 .. m) are below v[i], for i < m: padded
 * is m rounded up to a multiple of FLOCK_COUNT_PAD, and v is read and
 * below written to padded (the counts past m are of whatever v holds
 * there, and mean nothing). The neighbour cap's selection counts with
 * it (m^2 integer compares, W lanes at a time); one per vector path, all
 * with the same counts. The scalar path has none (its selection sorts
 * instead). */
#define FLOCK_COUNT_PAD 16u
typedef void (*flock_count_below_fn)(const int32_t *v, uint32_t m,
                                     uint32_t padded, int32_t *below);
void flock_count_below_sse2(const int32_t *v, uint32_t m, uint32_t padded,
                            int32_t *below);
void flock_count_below_avx2(const int32_t *v, uint32_t m, uint32_t padded,
                            int32_t *below);
void flock_count_below_avx512(const int32_t *v, uint32_t m, uint32_t padded,
                              int32_t *below);
void flock_count_below_neon(const int32_t *v, uint32_t m, uint32_t padded,
                            int32_t *below);
void flock_count_below_wasm(const int32_t *v, uint32_t m, uint32_t padded,
                            int32_t *below);

/* Whether an agent whose group sees the layers `see` sees row j
 * (throng_layers): the layer of j's group is among them. */
static inline int flock_sees(const throng_world *w, uint32_t see, uint32_t j) {
    return (see & w->group_params[w->col.group[j]].layer_bit) != 0;
}

/* The offset from agent t's image in range cr to row j, and its square. */
static inline float flock_offset(const throng_world *w, const cell_range *cr,
                                 uint32_t t, uint32_t j, float d[3]) {
    const agent_columns *c = &w->col;
    const int three = w->dims == 3;
    d[0] = c->px[j] - (c->px[t] - cr->shift[0]);
    d[1] = c->py[j] - (c->py[t] - cr->shift[1]);
    d[2] = three ? c->pz[j] - (c->pz[t] - cr->shift[2]) : 0.0f;
    float d2 = d[0] * d[0] + d[1] * d[1];
    if (three)
        d2 = d2 + d[2] * d[2];
    return d2;
}

/* Rows [from, cr->end) of range r offered to the cap one at a time, for
 * agent t: the scalar scan, and the vector scans' last few rows. Returns
 * the neighbours (within the radius, t itself left out) it met. */
static inline uint64_t kept_offer_rows(const throng_world *w,
                                       const cell_range *cr, uint32_t r,
                                       uint32_t t, uint32_t from, float R2,
                                       kept_neighbour *kept, uint32_t *n,
                                       uint32_t cap) {
    uint64_t neighbours = 0;
    for (uint32_t j = from; j < cr->end; j++) {
        float d[3];
        float d2 = flock_offset(w, cr, t, j, d);
        if (j == t || !(d2 <= R2))
            continue;
        neighbours++;
        kept_offer(kept, n, cap, (kept_neighbour){ d2, w->col.slot[j], j, r });
    }
    return neighbours;
}

/* The plain reference: one agent, one candidate at a time. */
void flock_kernel_scalar(const throng_world *w, uint32_t begin, uint32_t end,
                         float dt, flock_counts *counts);

/* The vector paths, each built for its instruction set (steer_flock_simd.inc
 * compiled once per width): SSE2, AVX2 and AVX-512 on x86-64, NEON on
 * aarch64. Absent in a scalar-only build. */
void flock_kernel_sse2(const throng_world *w, uint32_t begin, uint32_t end,
                       float dt, flock_counts *counts);
void flock_kernel_avx2(const throng_world *w, uint32_t begin, uint32_t end,
                       float dt, flock_counts *counts);
void flock_kernel_avx512(const throng_world *w, uint32_t begin, uint32_t end,
                         float dt, flock_counts *counts);
void flock_kernel_neon(const throng_world *w, uint32_t begin, uint32_t end,
                       float dt, flock_counts *counts);
void flock_kernel_wasm(const throng_world *w, uint32_t begin, uint32_t end,
                       float dt, flock_counts *counts);

/* The cell coordinates of row t. */
static inline void flock_cell_of(const throng_world *w, uint32_t t,
                                 int32_t c[3]) {
    const grid *g = &w->grid;
    c[0] = grid_coord(g, 0, w->col.px[t]);
    c[1] = grid_coord(g, 1, w->col.py[t]);
    c[2] = g->dims == 3 ? grid_coord(g, 2, w->col.pz[t]) : 0;
}
/* The candidate ranges of row t's cell, kept while consecutive rows
 * share the cell (rows in cell order mostly do): a pass over rows that
 * looks at each one's block on its own (velocity.c, contact.c). In a
 * sparse grid the cursor steps each row of cells on from where the last
 * block found it, which in a pass in sorted order is a step or two
 * instead of a search (grid_ranges_span_at(), the same ranges). */
typedef struct flock_block {
    cell_range ranges[GRID_MAX_RANGES];
    int count;
    int known; /* cell holds the cell of ranges */
    int32_t cell[3];
    grid_cursor cursor;
} flock_block;

/* A block that knows no cell yet: the first row finds its ranges. */
static inline void flock_block_reset(flock_block *b) {
    b->known = 0;
    grid_cursor_reset(&b->cursor);
}

static inline const cell_range *flock_block_of(const throng_world *w,
                                               uint32_t t, flock_block *b) {
    int32_t c[3];
    flock_cell_of(w, t, c);
    if (!b->known || c[0] != b->cell[0] || c[1] != b->cell[1] ||
        c[2] != b->cell[2]) {
        INVARIANT(w->grid.valid, "ranges are read from a valid build");
        b->count = grid_ranges_span_at(&w->grid, c[0], c[0], c[1], c[2],
                                       &b->cursor, b->ranges);
        b->cell[0] = c[0];
        b->cell[1] = c[1];
        b->cell[2] = c[2];
        b->known = 1;
    }
    return b->ranges;
}

/* Group k has a recipe and no neighbour rules: its rows need no walk. */
static inline int flock_no_walk_group(const group_kernel_params *k) {
    return k->recipe && !k->walk;
}
static inline int flock_no_walk_row(const throng_world *w, uint32_t t) {
    return flock_no_walk_group(&w->group_params[w->col.group[t]]);
}
/* Group k's rows are not walked with the vector lanes' broadcast of
 * every candidate: rows that need no walk (the vector paths finish them
 * from empty sums) and rows with a neighbour cap (the vector paths add
 * each lane's own kept neighbours, up to FLOCK_LANE_CAP_MAX of them, or
 * hand them to flock_kernel_scalar()). */
static inline int flock_scalar_group(const group_kernel_params *k) {
    return flock_no_walk_group(k) || (k->cap && k->walk);
}
static inline int flock_scalar_row(const throng_world *w, uint32_t t) {
    return flock_scalar_group(&w->group_params[w->col.group[t]]);
}

/* The largest cap whose rows the vector paths walk in lanes, each lane
 * over its own kept neighbours (their lists live on the stack, W of
 * them). */
#define FLOCK_LANE_CAP_MAX 64u
static inline int flock_lane_capped_row(const throng_world *w, uint32_t t) {
    const group_kernel_params *k = &w->group_params[w->col.group[t]];
    return k->cap && k->walk && k->cap <= FLOCK_LANE_CAP_MAX;
}

struct cap_block;
/* Agent t's cap nearest neighbours (the cap of its group) in walk order,
 * into kept (returns how many): through the step's fine grids
 * (cap_select()) or, where they cannot serve, the path's scan of every
 * candidate. blk is the run's block, prepared here on first use. */
uint32_t flock_capped_kept(const flock_run *run, struct cap_block *blk,
                           uint32_t t, uint32_t cap, kept_neighbour *kept,
                           flock_counts *counts);

/* The neighbour-walk stage of the step, on the step's scheduler. */
void steer_flock(throng_world *world, parallel_sched *sched, float dt);

#endif /* THRONG_STEER_FLOCK_H */
