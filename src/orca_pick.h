/* SPDX-License-Identifier: MIT */
/*
 * A row's ORCA neighbours, for the velocity stage (velocity.c): the
 * nearest max_neighbours of the candidates within the group's range, by
 * (squared distance, slot), ascending. A row's candidates come as a
 * candidate block: the grid's ranges around its cell, or its neighbour
 * list's runs (verlet.c).
 *
 * The vector paths find them on their lanes (orca_pick.c's
 * nearest_lanes()): they measure a block's candidates W at a time as the
 * neighbour cap's scan does (hold_rows(), the same squared distances),
 * hold those within a guess of the farthest pick's distance (the last
 * row's, or a list's row's own from its last tick), packed a vector at a
 * time into columns (distance bits and row: the distance bits are what
 * the counting reads), and place each held one by its count of nearer
 * ones, with no branch on the data (keep_nearest()). A block of few
 * candidates, on any path, is written down whole and placed by counting
 * (nearest_ranked()); the plain scan one candidate at a time
 * (nearest_dims()) is the scalar path's for larger blocks and the
 * reference the tests hold them to. A neighbour list's rows are held a
 * window of vector width at a time (verlet_row_windows()), a few where
 * its runs are eight or so.
 *
 * The pieces the lanes' takes (velocity_take.inc) share with the scans
 * are inline here, so that each caller keeps its constants.
 */
#ifndef THRONG_ORCA_PICK_H
#define THRONG_ORCA_PICK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "steer_flock.h"

/* Candidates a row holds before the selection cuts them back to the
 * nearest: the dense scene's block holds about 28 within range, a knot
 * (every agent in one cell) thousands, which are cut in turns. */
#define ORCA_HELD 256u

/* Up to this many held candidates are ranked by counting (the path's
 * count_below(): m^2 compares in vector lanes, no branch on the data),
 * and a group's max_neighbours up to it takes the lanes' scan at all. A
 * multiple of FLOCK_COUNT_PAD, below ORCA_HELD. */
#define ORCA_COUNT_MAX 64u

/* A block of at most this many candidates is scanned one at a time: the
 * lanes' fixed costs (a call, the counting's padding) outweigh what they
 * save on a sparse crowd such as circle2d's ring (where 12 and 16 time
 * alike, 8 and 20 slower, 24 slower still). */
#define ORCA_LANES_MIN 16u

/* The lanes' scan first holds the candidates within the last row's
 * farthest pick times this (squared, so the area it covers grows as
 * fast): in orca_dense2d the next row has its picks within it but for
 * 2% of rows, which scan again, and holds 12 or so rather than the 28
 * within range, a quarter of the counting. */
#define ORCA_GUESS_GROW 1.25f

/* A row that held every candidate within range (it had no guess, or
 * too few within its guess) passes a guess on only when it found this
 * many times max_neighbours within range: where about as many are
 * within range as are kept (a ring crossing its middle, 14 or so for
 * 10), a guess saves little counting and misses often, and each miss is
 * a second scan (3% of circle2d's median step at 1,000, before its
 * lists' rows kept guesses of their own).
 * Twice as many gave circle2d the same and orca_dense2d, which misses
 * where it thins out, 0.8% more instructions. */
#define ORCA_GUESS_FEW 1.5f

/* Where neighbour lists serve, a row keeps its agent from tick to tick,
 * and each row keeps a guess of its own (verlet_lists.guess): its
 * farthest pick's squared distance at its last tick times this, as a
 * neighbourhood changes little in a tick. In circle2d's crowded middle
 * at 1,000 (steps 2,500 to 4,500) a row then held 10.1 candidates, where
 * the last row's guess held 12.5: that one was passed on by only a
 * third of the rows and missed for two in five of those passed it, a
 * second scan; the row's own misses for one row in 7,000 (1.02 does
 * as well, 1.1 holds more). */
#define ORCA_OWN_GROW 1.05f

/* Entries of each column of held candidates: ORCA_HELD and the lanes'
 * slack past it. */
#define HELD_COLUMN (ORCA_HELD + FLOCK_HELD_SLACK)
_Static_assert(ORCA_COUNT_MAX + FLOCK_COUNT_PAD <= HELD_COLUMN,
               "the counting's padding fits in a held column");

/* The candidates a row holds before the selection, a column per field
 * (flock_held) and the range each was seen through. */
typedef struct held_columns {
    flock_held lanes;
    uint32_t *range;
} held_columns;

/* The start of one thread's scratch for up to k neighbours, in bytes:
 * the picks (neighbours kept for the constraints: a key, the squared
 * distance's bits, which order as the distances do since they are never
 * negative, above the slot, so ties go to the lower slot, or in a
 * canonical world the earlier row (world_ties()); and where, the range
 * above the row) and the candidates held before the selection (three
 * columns). The velocity stage puts its constraints after them. */
static inline size_t picks_bytes(uint32_t k) {
    return ((size_t)k + 1u) * sizeof(pick_entry) +
           3u * HELD_COLUMN * sizeof(uint32_t);
}

static inline uint32_t float_bits(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* Inserts the candidate e into picks[0 .. *n), ascending by key, keeping
 * at most `most` (a full list drops its farthest). An insertion into a
 * short sorted list: `most` is small (10 by default). */
static inline void pick_insert(pick_entry *picks, uint32_t *n, uint32_t most,
                               pick_entry e) {
    if (*n == most && e.key >= picks[*n - 1u].key)
        return;
    uint32_t at = *n < most ? (*n)++ : *n - 1u;
    while (at > 0 && picks[at - 1u].key > e.key) {
        picks[at] = picks[at - 1u];
        at--;
    }
    picks[at] = e;
}

/* The squared distance of a key. */
static inline float key_d2(uint64_t key) {
    const uint32_t bits = (uint32_t)(key >> 32);
    float d2;
    memcpy(&d2, &bits, sizeof d2);
    return d2;
}

/* Held candidate i as a pick (its tie key the row's, ties[row]). */
static inline pick_entry held_pick(const uint32_t *ties, const held_columns *h,
                                   int ranged, uint32_t i) {
    const uint32_t row = h->lanes.row[i];
    const pick_entry e = { (uint64_t)(uint32_t)h->lanes.d2[i] << 32 | ties[row],
                           (uint64_t)(ranged ? h->range[i] : 0u) << 32 | row };
    return e;
}

/* Each of v[0 .. m)'s count of strictly smaller ones among them (its
 * place) into place[0 .. m), on the path's lanes (count_below(), which w
 * must have). v is read to m rounded up to FLOCK_COUNT_PAD and place
 * written as far: the lanes past m count whatever lies there, and
 * nobody reads their counts. No padding is stored first: the one vector
 * load of v would then wait for that store and the packing stores before
 * it to reach the cache (a store is forwarded to a load it covers
 * whole), which cost 1.5% of orca_dense2d's step. */
_Static_assert(ORCA_COUNT_MAX % FLOCK_COUNT_PAD == 0u,
               "keep_nearest()'s places have room for m padded");
static inline void count_places(const throng_world *w, const int32_t *v,
                                uint32_t m, int32_t *place) {
    w->count_below(v, m, (m + FLOCK_COUNT_PAD - 1u) & ~(FLOCK_COUNT_PAD - 1u),
                   place);
}

/* Whether m counted places (count_places()) that sum to `sum` are all
 * different: they sum to m (m - 1) / 2 exactly then, as each pair of
 * equal values takes one from it. */
static inline int places_distinct(uint32_t sum, uint32_t m) {
    return sum == m * (m - 1u) / 2u;
}

/* Held candidate i's place by its count of nearer ones (nearer[i]),
 * added to *sum (places_distinct()), cut to `most` for one beyond the
 * nearest (it goes to the spare entry). */
static inline uint32_t counted_place(const int32_t *nearer, uint32_t i,
                                     uint32_t most, uint32_t *sum) {
    const uint32_t place = (uint32_t)nearer[i];
    *sum += place;
    return place < most ? place : most;
}

/* The `most` nearest of the m held candidates (all seen through range 0
 * unless ranged), ascending by key, into picks (room for most + 1: the
 * last entry takes what is not kept); returns how many, and in
 * *farthest the squared distance of the last kept. Each candidate's
 * place is its count of strictly nearer ones when the path counts and m
 * is small: with no two of the held at one distance, the places are
 * distinct and those below `most` hold the nearest, in order. Equal
 * distances (coincident agents, a lattice) share a place; then, as
 * without the count, insertion orders them by key. Unless
 * `keys`, the counted picks get their `where` alone (what the
 * constraints read): a key costs as much to build and store again. */
static inline __attribute__((always_inline)) uint32_t
keep_nearest(const throng_world *w, const held_columns *held, int ranged,
             uint32_t m, uint32_t most, pick_entry *picks, const int keys,
             float *farthest) {
    const uint32_t n = m < most ? m : most;
    const uint32_t *ties = world_ties(w);
    if (w->count_below && m <= ORCA_COUNT_MAX) {
        int32_t nearer[ORCA_COUNT_MAX];
        /* Non-negative floats order as their bits do, as signed integers
         * too (the sign bit is clear). The column is readable past
         * ORCA_COUNT_MAX as far as the counting reads. */
        const int32_t *d2_bits = held->lanes.d2;
        count_places(w, d2_bits, m, nearer);
        /* No branch on the data: a candidate beyond the nearest goes to
         * the spare entry picks[most] (counted_place()), and each one's
         * distance bits to the place it takes in placed_d2, for the
         * farthest kept (placed_d2[n - 1] once all are placed). */
        uint32_t sum = 0;
        int32_t placed_d2[ORCA_COUNT_MAX + 1u];
        for (uint32_t i = 0; i < m; i++) {
            const uint32_t to = counted_place(nearer, i, most, &sum);
            placed_d2[to] = d2_bits[i];
            if (keys)
                picks[to] = held_pick(ties, held, ranged, i);
            else
                picks[to].where = (uint64_t)(ranged ? held->range[i] : 0u)
                                      << 32 |
                                  held->lanes.row[i];
        }
        if (places_distinct(sum, m)) {
            if (n > 0u)
                *farthest = key_d2((uint64_t)(uint32_t)placed_d2[n - 1u] << 32);
            return n;
        }
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < m; i++)
        pick_insert(picks, &kept, most, held_pick(ties, held, ranged, i));
    if (kept > 0u)
        *farthest = key_d2(picks[kept - 1u].key);
    return kept;
}

/* Whether every range of the block sees its rows through one shift (a
 * world without a periodic box, or one wider than the block): then one
 * image of the agent measures them all, and range 0 stands for each
 * (flock_offset() gives the same bits through any of them). */
static inline int one_shift(const cell_range *ranges, int range_count) {
    const size_t bytes = sizeof ranges[0].shift;
    for (int r = 1; r < range_count; r++)
        if (memcmp(ranges[r].shift, ranges[0].shift, bytes) != 0)
            return 0;
    return 1;
}

/* A row's candidate ranges and what the scans ask of them, worked out
 * once per block (the rows of a cell share it): the candidates in all;
 * for the lanes (`laned`: worked out, on its first row), whether one
 * image of the agent measures them all (one_shift()) and the stretches
 * hold_rows() and the unranked take read, as (first, past last) pairs.
 * A neighbour list's stretches are its runs, read where they lie, and
 * its ranges are written out (into range_store) only for a row that
 * takes a scan reading them (candidate_block_ranges()). */
typedef struct candidate_block {
    const cell_range *ranges; /* NULL: not written out yet */
    int count;
    uint32_t rows;
    int laned;
    int one_shift;
    int self_in; /* the ranges may hold the agent's own row */
    const uint32_t *bounds;
    uint32_t bound_store[2 * GRID_MAX_RANGES];
    cell_range *range_store;
    /* A list's windows (verlet_row_windows()), for hold_windows(); 0:
     * none. */
    const uint32_t *windows;
    uint32_t window_count;
    /* A list's row's own guess (verlet_lists.guess), read and written
     * in place of the last row's (next_guess()); NULL: none. */
    float *own_guess;
} candidate_block;

static inline void candidate_block_set(candidate_block *cb,
                                       const cell_range *ranges, int count) {
    cb->ranges = ranges;
    cb->count = count;
    cb->rows = 0;
    for (int r = 0; r < count; r++)
        cb->rows += ranges[r].end - ranges[r].begin;
    cb->laned = 0;
    cb->self_in = 1; /* a cell's rows hold each of its agents */
    cb->window_count = 0;
    cb->own_guess = NULL;
}

static inline void candidate_block_lanes(candidate_block *cb) {
    if (cb->laned)
        return;
    (void)cell_range_bounds(cb->ranges, cb->count, cb->bound_store);
    cb->bounds = cb->bound_store;
    cb->one_shift = one_shift(cb->ranges, cb->count);
    cb->laned = 1;
}

/* The block's ranges, a list's written out from its runs (their shifts
 * stay zero) for the scans that read ranges. */
static inline void candidate_block_ranges(candidate_block *cb) {
    if (cb->ranges)
        return;
    for (int r = 0; r < cb->count; r++) {
        cb->range_store[r].begin = cb->bounds[2 * r];
        cb->range_store[r].end = cb->bounds[2 * r + 1];
    }
    cb->ranges = cb->range_store;
}

/* Holds, in held's columns from 0, the candidates of the ranges within
 * the limit, measured on the path's lanes (hold_rows(), the squared
 * distances of nearest_dims()); cuts the held back to the `most` nearest
 * whenever the columns fill, lowering the limit to the farthest of them.
 * Returns the new count; *ranged says whether held->range is written
 * (else every one was seen through range 0). */
uint32_t orca_pick_hold(const throng_world *w, candidate_block *cb, uint32_t t,
                        float R2, float limit, uint32_t most,
                        const held_columns *held, int *ranged,
                        pick_entry *picks);

/* The lanes' scan of a row's candidates into held's columns: those
 * within a guess of the farthest pick's squared distance, else (fewer
 * than `most` of them; *whole then) those within R2. The guess (0: none)
 * is the last row's farthest pick times ORCA_GUESS_GROW, as rows in cell
 * order mostly see one crowd, or a list's row's own from its last tick
 * (next_guess()). The columns are readable past
 * a range's end (COLUMN_PAD), and the agent is left out by its row.
 * Returns how many are held. */
static inline __attribute__((always_inline)) uint32_t
hold_guessed(const throng_world *w, candidate_block *cb, uint32_t t, float R2,
             uint32_t most, float guess, const held_columns *held, int *ranged,
             pick_entry *picks, int *whole) {
    uint32_t m = 0;
    const int guessed = guess > 0.0f && guess < R2;
    if (guessed)
        m = orca_pick_hold(w, cb, t, R2, guess, most, held, ranged, picks);
    *whole = !guessed || m < most;
    if (*whole)
        m = orca_pick_hold(w, cb, t, R2, R2, most, held, ranged, picks);
    return m;
}

/* The guess hold_guessed() passes on, from this row's n picks, the
 * farthest at squared distance `farthest`, out of m held (all within R2
 * if `whole`): to the row itself at its next tick (cb->own_guess), or to
 * the next row. */
static inline float next_guess(const candidate_block *cb, uint32_t n,
                               uint32_t most, int whole, uint32_t m,
                               float farthest, float R2) {
    if (cb->own_guess != NULL)
        return n == most ? farthest * ORCA_OWN_GROW : R2;
    return n == most && (!whole || (float)m >= ORCA_GUESS_FEW * (float)most)
               ? farthest * ORCA_GUESS_GROW
               : R2;
}

/* The held columns in a thread's scratch, after the picks
 * (picks_bytes()). */
static inline held_columns held_after(pick_entry *picks, uint32_t most) {
    uint32_t *column = (uint32_t *)(void *)(picks + most + 1u);
    const held_columns held = { { (int32_t *)(void *)column,
                                  column + HELD_COLUMN },
                                column + 2u * HELD_COLUMN };
    return held;
}

/* Row t's nearest `most` neighbours within R2, ascending by key, into
 * picks (room for most + 1, then the lanes' held columns, picks_bytes();
 * their `where`, which is all the constraints read: the lanes' scan may
 * leave the keys unwritten) and *guess the lanes' guess. Returns how
 * many. */
uint32_t orca_pick_nearest(const throng_world *w, candidate_block *cb,
                           uint32_t t, float R2, uint32_t most, float *guess,
                           pick_entry *picks);

#endif /* THRONG_ORCA_PICK_H */
