/* SPDX-License-Identifier: MIT */
/*
 * The velocity stage: where a group's avoidance mode turns the velocity
 * its steering force asks for into the velocity it moves with.
 *
 * The integration of seed 000 is two halves: the preferred velocity
 * v = truncate(v0 + (F / m) dt, max_speed), then the move p += v dt. In
 * a world where some group avoids, the step runs the halves as two
 * passes with this stage between them. The first pass computes every
 * row's preferred velocity and, for rows of a group in ORCA mode, builds
 * one constraint per neighbour from the state before the step (the
 * neighbours' positions, velocities and radii, which nobody writes until
 * the second pass) and from the static objects near it (orca_static.c),
 * and solves for the new velocity (orca2d.c, orca3d.c); then the group's
 * vehicle limits (throng_motion) turn and lengthen it. Each row writes only its own result, so the stage is gather-only and
 * its result does not depend on the thread count or the order of rows.
 *
 * The new velocity is kept in the row's steering-force slot: once a row
 * has read its force nothing else needs it, and the force's scratch is
 * the one buffer every step already has for each row.
 *
 * Perfect symmetry (two agents exactly head-on, a ring swapping places)
 * is ORCA's known deadlock: every constraint then points straight back
 * along the line of approach and the agents slow down without ever
 * turning aside. Where some constraint forbids an agent's preferred
 * velocity, two things break the symmetry before the solve: the group's
 * keep-right turn (throng_avoidance.keep_right), the pedestrians'
 * convention, under which a ring of agents meeting in the middle turns
 * into a roundabout; and, as the examples of the reference library do, a
 * random nudge (throng_avoidance.nudge of its max speed per axis, by
 * default 1e-4, far below anything the constraints resolve) for what the
 * turn leaves symmetric: a head-on meeting along the z axis, or two
 * agents that circle each other for good near their goals, as pairs of a
 * ring crossing at one tick a step do, which a nudge of a few hundredths
 * breaks. The nudge comes from the world's counter-based generator,
 * keyed by (seed, agent, step), so it is the same on every thread count
 * and machine.
 *
 * Neighbours are those within the group's range (at most the world's
 * neighbour radius, so the grid's candidate ranges hold them all), the
 * nearest max_neighbours of them by (squared distance, slot), and their
 * constraints are built nearest first: the linear program meets them in
 * that order, and the order, like every rounding, is the same on every
 * machine. The vector paths find them on their lanes (nearest_lanes()):
 * they measure a block's candidates W at a time as the neighbour cap's
 * scan does (hold_rows(), the same squared distances), hold those within
 * a guess of the farthest pick's distance (the last row's, or a list's
 * row's own from its last tick), packed a vector at a time
 * into columns (distance bits and row: the distance bits are what the
 * counting reads), and place each held one by its count of nearer ones,
 * with no branch on the data. A block of few candidates, on any path,
 * is written down whole and placed by counting (nearest_ranked()); the
 * plain scan one candidate at a time (nearest_dims()) is the scalar
 * path's for larger blocks and the reference the tests hold them to.
 * On the lanes, the usual crowd's block of few candidates skips the
 * picks: its neighbours in range go to the lanes as found, and only the
 * lines of an agent that must solve are put nearest first
 * (lanes_take_unranked()), for no answer but the program's depends on
 * their order; a larger block's nearest go from the held columns
 * straight into the lanes at their places (lanes_take_nearest()). A
 * neighbour list's rows are held a window of vector width at a time
 * (verlet_row_windows()), a few where its runs are eight or so.
 *
 * In the plane, on a vector path, the constraints and the program run
 * on the lanes, one agent per lane (orca_lanes.h): each row's pairs are
 * gathered into the next lane of a block of ORCA_BLOCK_LANES rows, and
 * once the block is full (or the rows end) its half-planes, the test of
 * the preferred velocity, the nudge and turn of the lanes that solve, and
 * phase one of the linear program run for every lane at once, each lane
 * with the one-row code's operations (orca2d.c's, and those of nudge()
 * and turn_right()); the program of a lane the lanes leave (no velocity
 * satisfies every line) is the one-row code's. A row's limits and its
 * store wait for its block, which changes nothing: each row writes only
 * its own slot (and, where no group limits its motion, one that keeps
 * its preferred velocity writes nothing: the slot holds it already). Rows
 * with static constraints (hard lines come first, in numbers that differ
 * from row to row) and groups whose max_neighbours exceeds
 * ORCA_BLOCK_PAIRS solve alone.
 */
#include "velocity.h"

#include <string.h>

#include "core.h"
#include "detmath.h"
#include "parallel.h"
#include "grid_query.h"
#include "integrate.h"
#include "orca2d.h"
#include "orca3d.h"
#include "orca_lanes.h"
#include "orca_static.h"
#include "rng.h"
#include "steer.h"
#include "steer_flock.h"

/* Rows per block of the stage's two passes: a row of the first pass
 * costs about a neighbour walk, one of the second a few stores. */
#define VELOCITY_GRAIN 512u
#define PLACE_GRAIN 8192u

/* A turn of pi or more in one step is no limit. */
#define TURN_HALF_CIRCLE 3.14159265f

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

/* A list of at most this many rows is taken with a branch per
 * candidate (lanes_take_unranked()): circle2d's ring at 10,000 (lists
 * of 8 rows or so) about 2% faster a step, its crowded middle at 1,000
 * (lists up to 16) the same; taking lists of up to 12 rows that way
 * cost the middle 4%. */
#define ORCA_TAKE_BRANCHED 8u

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

/* One thread's scratch for up to k neighbours: the picks (neighbours
 * kept for the constraints: a key, the squared distance's bits, which
 * order as the distances do since they are never negative, above the
 * slot, so ties go to the lower slot, or in a canonical world the
 * earlier row (world_ties()); and where, the range above the
 * row), the candidates held before the selection (three columns), the
 * constraints (those of the static objects too) and the solver's own
 * copy of them (planes are the larger kind). */
static size_t picks_bytes(uint32_t k) {
    return ((size_t)k + 1u) * sizeof(pick_entry) +
           3u * HELD_COLUMN * sizeof(uint32_t);
}

static size_t align_bytes(size_t raw) {
    return (raw + THRONG_ALIGN - 1u) & ~(size_t)(THRONG_ALIGN - 1u);
}

/* Where the counts of lanes_take_nearest() lie, in bytes from the
 * block: 1 KB past a 4 KB boundary. A load whose address matches that of
 * a store still in flight in its low 12 bits waits for the store (4K
 * aliasing), and the loop that reads the counts stores each candidate's
 * pair into the block's columns, which start at multiples of 2 KB (px,
 * py, vx, vy, tie): a lane's first 16 pairs lie in the first 1 KB of
 * each. Counts on the stack, at whatever offset the stack had, made that
 * loop half again as slow in about half the runs of circle2d (its median
 * step 0.087 against 0.077 ms). */
static size_t counts_at(void) {
    const size_t page = 4096u;
    return (sizeof(orca_block_2d) + page - 1u) / page * page + 1024u;
}

/* A thread's scratch: the picks and held columns, the constraints and the
 * solver's copy, then the lanes' block and their counts (2D worlds on a
 * vector path). */
static size_t thread_bytes(const throng_world *w, uint32_t k) {
    const size_t raw =
        picks_bytes(k) + 2u * (k + ORCA_STATIC_MAX) * sizeof(orca_plane);
    const size_t block = w->orca_block_lines && w->dims == 2
                             ? counts_at() + ORCA_COUNT_MAX * sizeof(int32_t)
                             : 0u;
    return align_bytes(raw) + align_bytes(block);
}

/* The largest max_neighbours of the live groups that avoid; 0 for none. */
static uint32_t most_picks(const throng_world *w) {
    uint32_t most = 0;
    for (uint32_t g = 0; g < w->group_count; g++) {
        const group_kernel_params *k = &w->group_params[g];
        if (w->groups[g].live && k->orca && k->orca_max > most)
            most = k->orca_max;
    }
    return most;
}

int velocity_needed(const throng_world *w) {
    for (uint32_t g = 0; g < w->group_count; g++)
        if (w->groups[g].live && w->group_params[g].velocity)
            return 1;
    return 0;
}

int velocity_reserve(throng_world *w, uint32_t threads) {
    const size_t need = (size_t)threads * thread_bytes(w, most_picks(w));
    if (need <= w->velocity_scratch_bytes)
        return 0;
    void *block = world_alloc(w, need);
    if (!block)
        return 1;
    world_free(w, w->velocity_scratch, w->velocity_scratch_bytes);
    w->velocity_scratch = block;
    w->velocity_scratch_bytes = need;
    return 0;
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

/* Row t's image seen through range cr, rounded as flock_offset() rounds
 * it. */
static inline void orca_image(const throng_world *w, const cell_range *cr,
                              uint32_t t, float q[3]) {
    const agent_columns *c = &w->col;
    q[0] = c->px[t] - cr->shift[0];
    q[1] = c->py[t] - cr->shift[1];
    q[2] = w->dims == 3 ? c->pz[t] - cr->shift[2] : 0.0f;
}

/* The squared distance from the image q to row j, flock_offset()'s
 * operation for operation. */
static inline float image_d2(const agent_columns *c, const float q[3],
                             uint32_t j, const int three) {
    const float dx = c->px[j] - q[0], dy = c->py[j] - q[1];
    float d2 = dx * dx + dy * dy;
    if (three) {
        const float dz = c->pz[j] - q[2];
        d2 = d2 + dz * dz;
    }
    return d2;
}

/* Row t's nearest `most` neighbours within R2 among the candidate
 * ranges, ascending by key, into picks; returns how many. The squared
 * distance is flock_offset()'s, operation for operation. The plain
 * reference, one candidate at a time: once the list is full, a candidate
 * beyond the farthest kept one costs one compare of floats. */
static inline __attribute__((always_inline)) uint32_t
nearest_dims(const throng_world *w, const cell_range *ranges, int range_count,
             uint32_t t, float R2, uint32_t most, pick_entry *picks,
             const int three, const int layers) {
    const agent_columns *c = &w->col;
    const uint32_t *tie = world_ties(w);
    uint32_t n = 0;
    float limit = R2; /* the farthest kept, once `most` are kept */
    for (int r = 0; r < range_count; r++) {
        const cell_range *cr = &ranges[r];
        float q[3];
        orca_image(w, cr, t, q);
        for (uint32_t j = cr->begin; j < cr->end; j++) {
            const float d2 = image_d2(c, q, j, three);
            if (!(d2 <= limit) || j == t)
                continue;
            if (layers && !flock_sees(w, w->group_params[c->group[t]].see, j))
                continue;
            const pick_entry e = { (uint64_t)float_bits(d2) << 32 | tie[j],
                                   (uint64_t)r << 32 | j };
            pick_insert(picks, &n, most, e);
            if (n == most)
                limit = key_d2(picks[n - 1u].key);
        }
    }
    return n;
}

/* nearest_dims()'s picks from a block of at most ORCA_LANES_MIN
 * candidates (a sparse crowd's usual block), with no branch on the data:
 * every candidate within R2 is written down, then placed at its count of
 * nearer ones. The keys differ (each agent has its own tie key), so the
 * places below `most` are the nearest in nearest_dims()'s order, and the
 * rest go to the spare entry picks[most]. An insertion sort branches on
 * every compare, and mispredicts about half of them: a crowd is in no
 * order. */
static inline __attribute__((always_inline)) uint32_t
nearest_ranked(const throng_world *w, const cell_range *ranges, int range_count,
               uint32_t t, float R2, uint32_t most, pick_entry *picks,
               const int three) {
    const agent_columns *c = &w->col;
    const uint32_t *tie = world_ties(w);
    pick_entry seen[ORCA_LANES_MIN];
    uint32_t m = 0;
    for (int r = 0; r < range_count; r++) {
        const cell_range *cr = &ranges[r];
        float q[3];
        orca_image(w, cr, t, q);
        for (uint32_t j = cr->begin; j < cr->end; j++) {
            const float d2 = image_d2(c, q, j, three);
            seen[m].key = (uint64_t)float_bits(d2) << 32 | tie[j];
            seen[m].where = (uint64_t)r << 32 | j;
            m += (uint32_t)((d2 <= R2) & (j != t));
        }
    }
    uint32_t taken = 0, shared = 0; /* bit p: place p written */
    for (uint32_t i = 0; i < m; i++) {
        uint32_t place = 0;
        for (uint32_t o = 0; o < m; o++)
            place += (uint32_t)(seen[o].key < seen[i].key);
        const uint32_t bit = 1u << place;
        shared |= taken & bit;
        taken |= bit;
        picks[place < most ? place : most] = seen[i];
    }
    if (shared) {
        /* One agent seen twice at one distance (through two images of a
         * small periodic box): as nearest_dims(), insertion in scan order
         * keeps both. */
        uint32_t n = 0;
        for (uint32_t i = 0; i < m; i++)
            pick_insert(picks, &n, most, seen[i]);
        return n;
    }
    return m < most ? m : most;
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
static int one_shift(const cell_range *ranges, int range_count) {
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

static void candidate_block_set(candidate_block *cb, const cell_range *ranges,
                                int count) {
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

static void candidate_block_lanes(candidate_block *cb) {
    if (cb->laned)
        return;
    for (int r = 0; r < cb->count; r++) {
        cb->bound_store[2 * r] = cb->ranges[r].begin;
        cb->bound_store[2 * r + 1] = cb->ranges[r].end;
    }
    cb->bounds = cb->bound_store;
    cb->one_shift = one_shift(cb->ranges, cb->count);
    cb->laned = 1;
}

/* The block's ranges, a list's written out from its runs (their shifts
 * stay zero) for the scans that read ranges. */
static void candidate_block_ranges(candidate_block *cb) {
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
static uint32_t hold_within(const throng_world *w, candidate_block *cb,
                            uint32_t t, float R2, float limit, uint32_t most,
                            const held_columns *held, int *ranged,
                            pick_entry *picks) {
    const agent_columns *c = &w->col;
    const int three = w->dims == 3;
    flock_rows_query a = {
        .px = c->px,
        .py = c->py,
        .pz = c->pz,
        .R2 = R2,
        .limit = limit,
        .self = t, /* hold_rows() leaves the agent out by its row */
        .three = three,
    };
    if (cb->rows <= ORCA_HELD && cb->one_shift) {
        if (cb->ranges) {
            orca_image(w, &cb->ranges[0], t, a.q);
        } else {
            /* A list's: no shift, so the image is the agent (p - 0 is p
             * to the bit). */
            a.q[0] = c->px[t];
            a.q[1] = c->py[t];
            a.q[2] = three ? c->pz[t] : 0.0f;
        }
        *ranged = 0; /* range 0 stands for each */
        if (cb->window_count)
            return w->hold_windows(&a, cb->windows, cb->window_count,
                                   &held->lanes, 0);
        return w->hold_rows(&a, cb->bounds, (uint32_t)cb->count, &held->lanes,
                            0);
    }
    candidate_block_ranges(cb);
    const cell_range *ranges = cb->ranges;
    *ranged = 1;
    uint32_t m = 0;
    for (int r = 0; r < cb->count; r++) {
        const cell_range *cr = &ranges[r];
        orca_image(w, cr, t, a.q);
        uint32_t from = cr->begin;
        while (from < cr->end) {
            if (m == ORCA_HELD) {
                /* Full: cut back to the nearest, which stay held. */
                float cut = 0.0f;
                m = keep_nearest(w, held, 1, m, most, picks, 1, &cut);
                for (uint32_t i = 0; i < m; i++) {
                    held->lanes.d2[i] = (int32_t)(picks[i].key >> 32);
                    held->lanes.row[i] = (uint32_t)picks[i].where;
                    held->range[i] = (uint32_t)(picks[i].where >> 32);
                }
                a.limit = cut;
            }
            const uint32_t room = ORCA_HELD - m;
            const uint32_t stop = cr->end - from > room ? from + room : cr->end;
            const uint32_t part[2] = { from, stop };
            const uint32_t was = m;
            m = w->hold_rows(&a, part, 1, &held->lanes, m);
            for (uint32_t i = was; i < m; i++)
                held->range[i] = (uint32_t)r;
            from = stop;
        }
    }
    return m;
}

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
        m = hold_within(w, cb, t, R2, guess, most, held, ranged, picks);
    *whole = !guessed || m < most;
    if (*whole)
        m = hold_within(w, cb, t, R2, R2, most, held, ranged, picks);
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

/* nearest_dims()'s picks on the path's lanes: the nearest kept from
 * those hold_guessed() holds, and *guess moved on to the next row. For
 * `most` <= ORCA_COUNT_MAX. The picks may have their `where` alone
 * (keep_nearest()). */
static uint32_t nearest_lanes(const throng_world *w, candidate_block *cb,
                              uint32_t t, float R2, uint32_t most, float *guess,
                              pick_entry *picks) {
    if (cb->own_guess != NULL)
        guess = cb->own_guess;
    const held_columns held = held_after(picks, most);
    int ranged = 0, whole = 0;
    const uint32_t m =
        hold_guessed(w, cb, t, R2, most, *guess, &held, &ranged, picks, &whole);
    float farthest = 0.0f;
    /* Each case its own copy, with no test of `ranged` per candidate. */
    const uint32_t n =
        ranged ? keep_nearest(w, &held, 1, m, most, picks, 0, &farthest)
               : keep_nearest(w, &held, 0, m, most, picks, 0, &farthest);
    *guess = next_guess(cb, n, most, whole, m, farthest, R2);
    return n;
}

/* Row t's nearest `most` neighbours within R2, ascending by key, into
 * picks (room for most + 1, then the lanes' held columns, picks_bytes();
 * their `where`, which is all the constraints read: the lanes' scan may
 * leave the keys unwritten) and *guess the lanes' guess. Returns how
 * many. */
static uint32_t nearest(const throng_world *w, candidate_block *cb, uint32_t t,
                        float R2, uint32_t most, float *guess,
                        pick_entry *picks) {
    const int range_count = cb->count;
    if (w->hold_rows && w->count_below && most <= ORCA_COUNT_MAX &&
        cb->rows > ORCA_LANES_MIN && !w->group_params[w->col.group[t]].filter) {
        candidate_block_lanes(cb);
        return nearest_lanes(w, cb, t, R2, most, guess, picks);
    }
    candidate_block_ranges(cb);
    const cell_range *ranges = cb->ranges;
    if (w->group_params[w->col.group[t]].filter) {
        /* A mask that hides some group: the plain scan, which leaves out
         * the neighbours the row does not see before the choice, so it
         * keeps the nearest it sees. */
        return w->dims == 3 ? nearest_dims(w, ranges, range_count, t, R2, most,
                                           picks, 1, 1)
                            : nearest_dims(w, ranges, range_count, t, R2, most,
                                           picks, 0, 1);
    }
    if (cb->rows <= ORCA_LANES_MIN)
        return w->dims == 3 ? nearest_ranked(w, ranges, range_count, t, R2,
                                             most, picks, 1)
                            : nearest_ranked(w, ranges, range_count, t, R2,
                                             most, picks, 0);
    if (w->dims == 3)
        return nearest_dims(w, ranges, range_count, t, R2, most, picks, 1, 0);
    return nearest_dims(w, ranges, range_count, t, R2, most, picks, 0, 0);
}

typedef struct velocity_ctx {
    throng_world *w;
    float dt;
    size_t stride; /* each thread's scratch, bytes */
    int limited;   /* some group limits its motion (motion_limited()) */
} velocity_ctx;

/* Whether some constraint forbids v: then the preferred velocity is
 * nudged and turned before the solve (see the top of the file). */
static inline int forbidden_2d(const orca_line *lines, uint32_t m,
                               const float v[2]) {
    for (uint32_t i = 0; i < m; i++) {
        const orca_line *l = &lines[i];
        if (l->direction[0] * (v[1] - l->point[1]) -
                l->direction[1] * (v[0] - l->point[0]) <
            0.0f)
            return 1;
    }
    return 0;
}

static inline int forbidden_3d(const orca_plane *planes, uint32_t m,
                               const float v[3]) {
    for (uint32_t i = 0; i < m; i++) {
        const orca_plane *p = &planes[i];
        if ((v[0] - p->point[0]) * p->normal[0] +
                (v[1] - p->point[1]) * p->normal[1] +
                (v[2] - p->point[2]) * p->normal[2] <
            0.0f)
            return 1;
    }
    return 0;
}

/* The random nudge (throng_avoidance.nudge of max speed per axis), from
 * the world's counter-based generator (on the lanes:
 * orca_block_wants()). */
static inline void nudge(const throng_world *w, uint32_t t,
                         const group_kernel_params *k, float max_speed,
                         int three, float v[3]) {
    const uint64_t chain =
        rng_agent_step(w->seed, steer_row_key(w, t), w->step);
    const float amount = k->orca_nudge * max_speed;
    v[0] += amount * rng_symmetric_from(chain, RNG_STREAM_ORCA_X);
    v[1] += amount * rng_symmetric_from(chain, RNG_STREAM_ORCA_Y);
    if (three)
        v[2] += amount * rng_symmetric_from(chain, RNG_STREAM_ORCA_Z);
}

/* The keep-right turn (throng_avoidance.keep_right), about +z. */
static inline void turn_right(const group_kernel_params *k, float v[3]) {
    const float x = v[0], y = v[1];
    v[0] = k->keep_cos * x + k->keep_sin * y;
    v[1] = k->keep_cos * y - k->keep_sin * x;
}

/* 2D pairs gathered for orca_agent_lines_2d(), which builds their lines
 * on the vector lanes. */
typedef struct pair_batch {
    float px[ORCA_PAIRS_BATCH], py[ORCA_PAIRS_BATCH]; /* rel_p */
    float vx[ORCA_PAIRS_BATCH], vy[ORCA_PAIRS_BATCH]; /* rel_v */
    float reach[ORCA_PAIRS_BATCH], tie_x[ORCA_PAIRS_BATCH];
    uint32_t count;
} pair_batch;

/* The batch's lines into lines[m ..), in the order gathered; empties the
 * batch and returns the new count of lines. */
static uint32_t batch_lines(pair_batch *b, const group_kernel_params *k,
                            float inv_dt, const float own_v[3],
                            orca_line *lines, uint32_t m) {
    /* The lanes past the count read a copy of the first pair. */
    for (uint32_t i = b->count; i % ORCA_PAIRS_LANES != 0u; i++) {
        b->px[i] = b->px[0];
        b->py[i] = b->py[0];
        b->vx[i] = b->vx[0];
        b->vy[i] = b->vy[0];
        b->reach[i] = b->reach[0];
        b->tie_x[i] = b->tie_x[0];
    }
    const orca_pairs_2d pairs = {
        b->px, b->py, b->vx, b->vy, b->reach, b->tie_x
    };
    orca_agent_lines_2d(&pairs, b->count, k->orca_inv_tau, inv_dt,
                        k->orca_share, own_v, &lines[m]);
    m += b->count;
    b->count = 0;
    return m;
}

/* The rows a thread has handed to the lanes (orca_block_2d), waiting for
 * the block to fill: each row's preferred velocity, kept for the answer
 * the solve does not change. */
_Static_assert(ORCA_BLOCK_LANES < 32u, "a block's lanes are bits of a word");
typedef struct lanes_rows {
    orca_block_2d *block; /* NULL: the path has no lanes */
    int usual;            /* usual_pairs(), on a path with lanes */
    int unranked;         /* and no static object: lanes_take_unranked() */
    int nearest;          /* and the path counts: lanes_take_nearest() */
    /* The rows' force slots hold their preferred velocities already
     * (velocity_rows() put them there first) and no group limits its
     * motion, so a lane that keeps its preferred velocity puts nothing. */
    int pref_kept;
    uint32_t row[ORCA_BLOCK_LANES];
    float pref_x[ORCA_BLOCK_LANES], pref_y[ORCA_BLOCK_LANES];
    /* lanes_take_nearest()'s counts (ORCA_COUNT_MAX), at counts_at(). */
    int32_t *counts;
} lanes_rows;

/* Lane l's own fields, for row t with `count` pairs: the agent's tie
 * key and share, its velocity and preferred velocity, its max speed and
 * time horizon, its nudge and turn (its random key waits for the flush:
 * only the lanes that solve draw). */
static inline void lane_set(const throng_world *w, uint32_t t,
                            const group_kernel_params *k, uint32_t count,
                            float max_speed, const float own_v[2],
                            const float v[2], lanes_rows *q, uint32_t l) {
    orca_block_2d *b = q->block;
    b->count[l] = count;
    b->own_tie[l] = world_ties(w)[t];
    b->lane_share[l] = k->orca_share;
    b->own_vx[l] = own_v[0];
    b->own_vy[l] = own_v[1];
    b->want_x[l] = v[0];
    b->want_y[l] = v[1];
    b->max_speed[l] = max_speed;
    b->inv_tau[l] = k->orca_inv_tau;
    b->nudge[l] = k->orca_nudge * max_speed;
    b->keep_cos[l] = k->keep_cos;
    b->keep_sin[l] = k->keep_sin;
    q->row[l] = t;
    q->pref_x[l] = v[0];
    q->pref_y[l] = v[1];
}

/* The places of lane l's first m pairs, nearest first, as
 * nearest_ranked() places its picks: each pair's key is its squared
 * distance's bits (the offset's, which are flock_offset()'s, squared as
 * image_d2() squares) above the neighbour's tie key, and its place the
 * count of smaller keys (and of equal ones found before it, as an
 * insertion in the order found keeps them, so the places are a
 * permutation). For m <= ORCA_LANES_MIN. On a path that counts on its
 * lanes (count_below()), the squared distances alone place the pairs
 * when no two are equal and none has its sign bit set (a NaN), since
 * then the tie keys decide nothing: m compares of a vector each, where
 * the keys take m^2 compares. */
static void lane_places(const throng_world *w, const orca_block_2d *b,
                        uint32_t l, uint32_t m, uint32_t *place) {
    /* Zeroed: count_places() reads past m. */
    int32_t bits[ORCA_LANES_MIN + FLOCK_COUNT_PAD] = { 0 };
    int32_t any_sign = 0;
    for (uint32_t i = 0; i < m; i++) {
        const uint32_t e = i * ORCA_BLOCK_LANES + l;
        const float d2 = b->px[e] * b->px[e] + b->py[e] * b->py[e];
        bits[i] = (int32_t)float_bits(d2);
        any_sign |= bits[i];
    }
    if (w->count_below && any_sign >= 0) {
        int32_t nearer[ORCA_LANES_MIN + FLOCK_COUNT_PAD];
        count_places(w, bits, m, nearer);
        uint32_t sum = 0;
        for (uint32_t i = 0; i < m; i++) {
            place[i] = (uint32_t)nearer[i];
            sum += place[i];
        }
        if (places_distinct(sum, m))
            return;
    }
    uint64_t key[ORCA_LANES_MIN];
    for (uint32_t i = 0; i < m; i++)
        key[i] = (uint64_t)(uint32_t)bits[i] << 32 |
                 b->tie[i * ORCA_BLOCK_LANES + l];
    for (uint32_t i = 0; i < m; i++) {
        uint32_t at = 0;
        for (uint32_t o = 0; o < m; o++)
            at +=
                (uint32_t)((key[o] < key[i]) | ((key[o] == key[i]) & (o < i)));
        place[i] = at;
    }
}

/* Lane l's first m entries of `count` columns (and of a tie column, if
 * any) moved to their places (lane_places()), those placed at `keep` or
 * past it dropped. Every place is below m, so each entry is moved with
 * no test. */
static void lane_permute(float *const *columns, int count, uint32_t *tie,
                         uint32_t l, const uint32_t *place, uint32_t m,
                         uint32_t keep) {
    for (int k = 0; k < count; k++) {
        float *column = columns[k];
        /* Zeroed for the analyzer: every place below m is written. */
        float moved[ORCA_LANES_MIN] = { 0.0f };
        for (uint32_t i = 0; i < m; i++)
            moved[place[i]] = column[i * ORCA_BLOCK_LANES + l];
        for (uint32_t i = 0; i < keep; i++)
            column[i * ORCA_BLOCK_LANES + l] = moved[i];
    }
    if (tie) {
        uint32_t moved[ORCA_LANES_MIN] = { 0u };
        for (uint32_t i = 0; i < m; i++)
            moved[place[i]] = tie[i * ORCA_BLOCK_LANES + l];
        for (uint32_t i = 0; i < keep; i++)
            tie[i * ORCA_BLOCK_LANES + l] = moved[i];
    }
}

/* Whether the world's pairs are the usual crowd's: one radius for all
 * (not zero), so every pair's reach is twice it, and no periodic shift,
 * so a pair's offset is the plain difference (own_x - 0 is own_x to the
 * bit). Worked out once per pass. */
static int usual_pairs(const throng_world *w) {
    const float radius = w->col.radius[0];
    return (w->uniform & UNIFORM_RADIUS) && radius + radius > 0.0f &&
           !w->grid.periodic;
}

/* Whether a row of a world of usual pairs and no static object may take
 * lanes_take_unranked() (its block holding at most ORCA_LANES_MIN
 * candidates) or lanes_take_nearest(): its group masks no neighbour on
 * either side and keeps no more pairs than a lane holds. */
static inline int usual_group(const group_kernel_params *k) {
    return !k->filter && !k->filter_back && k->orca_max <= ORCA_BLOCK_PAIRS;
}

/* An agent of the usual crowd and the columns of its candidates, for
 * take_range(). */
typedef struct lane_source {
    const float *px, *py, *vx, *vy;
    const uint32_t *ties;
    float own_x, own_y, own_vx, own_vy, R2;
    uint32_t self;
} lane_source;

/* Row j's pair with the agent of s into the block's entry e; returns
 * their squared distance (image_d2()'s operations). */
static inline __attribute__((always_inline)) float
lane_pair(orca_block_2d *b, uint32_t e, const lane_source *s, uint32_t j) {
    const float dx = s->px[j] - s->own_x, dy = s->py[j] - s->own_y;
    b->px[e] = dx;
    b->py[e] = dy;
    b->vx[e] = s->own_vx - s->vx[j];
    b->vy[e] = s->own_vy - s->vy[j];
    b->tie[e] = s->ties[j];
    return dx * dx + dy * dy;
}

/* The candidates of rows [first, past) written into lane l from pair m
 * on, the count moving on past those within range; returns it. With no
 * branch on the data every candidate is written and the next overwrites
 * one out of range; `branched`, only those within range are, measured
 * first (the same squared distance). Unless `self_in`, the rows do not
 * hold the agent's own and no candidate is compared with it (both
 * constants where inlined). */
static inline __attribute__((always_inline)) uint32_t
take_range(orca_block_2d *b, uint32_t l, const lane_source *src, uint32_t first,
           uint32_t past, uint32_t m, const int self_in, const int branched) {
    /* A copy the block's stores cannot alias: its fields are loaded once,
     * not once a candidate. */
    const lane_source s = *src;
    for (uint32_t j = first; j < past; j++) {
        if (branched) {
            const float dx = s.px[j] - s.own_x, dy = s.py[j] - s.own_y;
            if (dx * dx + dy * dy <= s.R2 && (!self_in || j != s.self))
                (void)lane_pair(b, m++ * ORCA_BLOCK_LANES + l, &s, j);
            continue;
        }
        const float d2 = lane_pair(b, m * ORCA_BLOCK_LANES + l, &s, j);
        m += self_in ? (uint32_t)((d2 <= s.R2) & (j != s.self))
                     : (uint32_t)(d2 <= s.R2);
    }
    return m;
}

/* Row t's pairs into the next lane, with no picks first: every
 * candidate is written into the lane as it is measured, and the count
 * moves on past those within range (no branch on the data), so the lane
 * holds every neighbour in range in the order found. When they are no
 * more than max_neighbours they are the picks, and their order matters
 * only to the linear program, which a row whose preferred velocity
 * every line permits never runs (most rows of a sparse crowd): the lane
 * is marked unranked and the flush orders the lines of those that solve
 * (lanes_flush()). More than max_neighbours are placed and cut to the
 * nearest here. Either way the lane's lines and answer are the bits of
 * nearest_ranked()'s picks through lanes_take(). For the rows of a
 * usual_group() of a world of usual pairs with no static object. */
static void lanes_take_unranked(const throng_world *w, uint32_t t,
                                const group_kernel_params *k,
                                candidate_block *cb, const float v[2],
                                lanes_rows *q) {
    const agent_columns *c = &w->col;
    const float radius = c->radius[0];
    const float max_speed = c->max_speed[uniform_row(w, UNIFORM_MAX_SPEED, t)];
    const float own_v[2] = { c->vx[t], c->vy[t] };
    orca_block_2d *b = q->block;
    const uint32_t l = b->lanes++;
    const uint32_t own_bit = 1u << l;
    b->own_shares &= ~own_bit;
    b->own_reaches &= ~own_bit;
    b->lane_reach[l] = radius + radius;
    const lane_source src = { c->px,         c->py,      c->vx,    c->vy,
                              world_ties(w), c->px[t],   c->py[t], own_v[0],
                              own_v[1],      k->orca_r2, t };
    /* A neighbour list leaves the agent's own row out of its runs, most
     * often (cb->self_in): then no candidate is compared with it. */
    candidate_block_lanes(cb);
    const uint32_t *bounds = cb->bounds;
    uint32_t m = 0;
    /* A list of few rows, a file's (circle2d's ring), is mostly within
     * range but at its ends: a branch per candidate is predicted, and
     * spares the stores of those out of range. More, a crowd's, would
     * mispredict, as would a grid's block (its cells' rows in no order
     * along the file). A list's row is one with a guess of its own. */
    const int branched =
        cb->own_guess != NULL && cb->rows <= ORCA_TAKE_BRANCHED;
    for (int r = 0; r < cb->count; r++) {
        const uint32_t first = bounds[2 * r], past = bounds[2 * r + 1];
        if (branched)
            m = cb->self_in ? take_range(b, l, &src, first, past, m, 1, 1)
                            : take_range(b, l, &src, first, past, m, 0, 1);
        else
            m = cb->self_in ? take_range(b, l, &src, first, past, m, 1, 0)
                            : take_range(b, l, &src, first, past, m, 0, 0);
    }
    const uint32_t most = k->orca_max;
    if (m > most) {
        uint32_t place[ORCA_LANES_MIN];
        lane_places(w, b, l, m, place);
        float *const pairs[4] = { b->px, b->py, b->vx, b->vy };
        lane_permute(pairs, 4, b->tie, l, place, m, most);
        m = most;
        b->unranked &= ~own_bit;
    } else {
        b->unranked = m > 1u ? b->unranked | own_bit : b->unranked & ~own_bit;
    }
    lane_set(w, t, k, m, max_speed, own_v, v, q, l);
}

/* Row t's pairs into the next lane of the block: the inputs
 * orca_agent_line_2d() gets from orca_row() for each pick, in pick
 * order, skipping the same pairs. */
static void lanes_take(const throng_world *w, uint32_t t,
                       const group_kernel_params *k, candidate_block *cb,
                       const pick_entry *picks, uint32_t n, float radius,
                       float max_speed, const float own_v[2], const float v[2],
                       lanes_rows *q) {
    const agent_columns *c = &w->col;
    orca_block_2d *b = q->block;
    const uint32_t l = b->lanes++;
    const uint32_t *tie = world_ties(w);
    /* A group whose mask may hide it from a neighbour gives each pair its
     * share; any other lane shares every pair alike. */
    const uint32_t own_bit = 1u << l;
    b->own_shares =
        k->filter_back ? b->own_shares | own_bit : b->own_shares & ~own_bit;
    b->unranked &= ~own_bit;
    /* The columns in locals the block's stores cannot alias, so they
     * are loaded once, not once a pair; the offsets are flock_offset()'s
     * operations. */
    const float *restrict px = c->px, *restrict py = c->py;
    const float *restrict vx = c->vx, *restrict vy = c->vy;
    const float *restrict radii = c->radius;
    const uint32_t *restrict ties = tie;
    const uint32_t radius_row = (w->uniform & UNIFORM_RADIUS) ? 0u : ~0u;
    const float own_x = px[t], own_y = py[t];
    const int filter_back = k->filter_back;
    uint32_t count = 0;
    b->own_reaches |= own_bit;
    if (q->usual && !filter_back) {
        /* The usual crowd (usual_pairs()), every pair kept and no shares
         * of its own: a pair is five loads and four differences, and
         * every pair's reach the agent's two radii, kept once a lane. */
        b->own_reaches &= ~own_bit;
        b->lane_reach[l] = radius + radius;
        const float own_vx = own_v[0], own_vy = own_v[1];
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t j = (uint32_t)picks[i].where;
            const uint32_t e = i * ORCA_BLOCK_LANES + l;
            b->px[e] = px[j] - own_x;
            b->py[e] = py[j] - own_y;
            b->vx[e] = own_vx - vx[j];
            b->vy[e] = own_vy - vy[j];
            b->tie[e] = ties[j];
        }
        count = n;
    }
    if (count < n)
        candidate_block_ranges(cb); /* the offsets read the shifts */
    const cell_range *ranges = cb->ranges;
    for (uint32_t i = count; i < n; i++) {
        const uint32_t j = (uint32_t)picks[i].where;
        const cell_range *cr = &ranges[(uint32_t)(picks[i].where >> 32)];
        const float reach = radius + radii[j & radius_row];
        if (!(reach > 0.0f))
            continue;
        const uint32_t e = count++ * ORCA_BLOCK_LANES + l;
        b->px[e] = px[j] - (own_x - cr->shift[0]);
        b->py[e] = py[j] - (own_y - cr->shift[1]);
        b->vx[e] = own_v[0] - vx[j];
        b->vy[e] = own_v[1] - vy[j];
        b->reach[e] = reach;
        b->tie[e] = ties[j];
        if (filter_back) {
            const int blind =
                !flock_sees(w, w->group_params[c->group[j]].see, t);
            b->share[e] = blind ? 1.0f : k->orca_share;
        }
    }
    lane_set(w, t, k, count, max_speed, own_v, v, q, l);
}

/* Held candidates [0, m) written into lane l at their places
 * (counted_place(): one beyond the nearest goes to the spare pair);
 * returns the sum of the counts (places_distinct()). A function of its own, with no more
 * streams than there are registers: inlined in the row loop, it kept
 * half its values on the stack. */
static __attribute__((noinline)) uint32_t
lane_place_pairs(orca_block_2d *restrict b, uint32_t l, const lane_source *src,
                 const int32_t *restrict nearer, const uint32_t *restrict rows,
                 uint32_t m, uint32_t most) {
    const lane_source s = *src;
    uint32_t sum = 0;
    for (uint32_t i = 0; i < m; i++) {
        const uint32_t to = counted_place(nearer, i, most, &sum);
        (void)lane_pair(b, to * ORCA_BLOCK_LANES + l, &s, rows[i]);
    }
    return sum;
}

/* Row t's nearest max_neighbours (nearest_lanes()'s choice, the same
 * picks in the same order) straight into the next lane, for the rows
 * lanes_take_unranked() is for but for their larger blocks: the held
 * candidates are counted into their places, and each is written into
 * the lane's pair at its place (those past the nearest into the spare
 * pair `most`, which the lane does not count: most < ORCA_BLOCK_PAIRS),
 * rather than into picks that lanes_take() then reads. Held candidates
 * at one distance, or too many to count, take nearest_lanes()'s
 * insertion and lanes_take(). */
static void lanes_take_nearest(const throng_world *w, uint32_t t,
                               const group_kernel_params *k,
                               candidate_block *cb, float *guess,
                               pick_entry *picks, const float v[2],
                               lanes_rows *q) {
    const agent_columns *c = &w->col;
    const uint32_t most = k->orca_max;
    const float R2 = k->orca_r2;
    const float radius = c->radius[0];
    const float max_speed = c->max_speed[uniform_row(w, UNIFORM_MAX_SPEED, t)];
    const float own_v[2] = { c->vx[t], c->vy[t] };
    const held_columns held = held_after(picks, most);
    if (cb->own_guess != NULL)
        guess = cb->own_guess;
    candidate_block_lanes(cb);
    int ranged = 0, whole = 0;
    const uint32_t m =
        hold_guessed(w, cb, t, R2, most, *guess, &held, &ranged, picks, &whole);
    const uint32_t n = m < most ? m : most;
    float farthest = 0.0f;
    if (!ranged && m <= ORCA_COUNT_MAX) {
        orca_block_2d *b = q->block;
        const uint32_t l = b->lanes;
        int32_t *nearer = q->counts;
        const int32_t *d2_bits = held.lanes.d2;
        count_places(w, d2_bits, m, nearer);
        const lane_source s = { c->px,         c->py,    c->vx,    c->vy,
                                world_ties(w), c->px[t], c->py[t], own_v[0],
                                own_v[1],      R2,       t };
        const uint32_t sum =
            lane_place_pairs(b, l, &s, nearer, held.lanes.row, m, most);
        if (places_distinct(sum, m)) {
            if (n > 0u) {
                /* The farthest kept, measured again: lane_pair()'s
                 * squared distance is the scan's, to the bit. */
                const uint32_t e = (n - 1u) * ORCA_BLOCK_LANES + l;
                farthest = b->px[e] * b->px[e] + b->py[e] * b->py[e];
            }
            *guess = next_guess(cb, n, most, whole, m, farthest, R2);
            const uint32_t own_bit = 1u << l;
            b->lanes++;
            b->own_shares &= ~own_bit;
            b->own_reaches &= ~own_bit;
            b->unranked &= ~own_bit;
            b->lane_reach[l] = radius + radius;
            lane_set(w, t, k, n, max_speed, own_v, v, q, l);
            return;
        }
    }
    const uint32_t kept =
        ranged ? keep_nearest(w, &held, 1, m, most, picks, 0, &farthest)
               : keep_nearest(w, &held, 0, m, most, picks, 0, &farthest);
    *guess = next_guess(cb, kept, most, whole, m, farthest, R2);
    lanes_take(w, t, k, cb, picks, kept, radius, max_speed, own_v, v, q);
}

static void limit_motion(const throng_world *w, uint32_t t, float dt,
                         const group_kernel_params *k, float *v);

/* Whether group k limits its turns or its speed (limit_motion()). */
static inline int limits_motion(const group_kernel_params *k) {
    return k->turn_rate > 0.0f || k->min_speed > 0.0f;
}

/* Whether some group limits its motion: worked out once a stage. */
static int motion_limited(const throng_world *w) {
    for (uint32_t g = 0; g < w->group_count; g++)
        if (limits_motion(&w->group_params[g]))
            return 1;
    return 0;
}

/* A row's new velocity v into its force slot, after its group's limits. */
static inline void velocity_put(throng_world *w, uint32_t t, float dt,
                                const group_kernel_params *k, float *v) {
    if (limits_motion(k))
        limit_motion(w, t, dt, k, v);
    w->steer_x[t] = v[0];
    w->steer_y[t] = v[1];
    if (w->dims == 3)
        w->steer_z[t] = v[2];
}

/* The block's rows solved and put: lines and the test on the lanes, and
 * the nudge and turn of those that solve; the program on the lanes, or
 * orca_solve_2d() for the lanes it leaves (their lines copied out into
 * the scratch `lines`, room for twice their count). */
static void lanes_flush(throng_world *w, float dt, lanes_rows *q,
                        orca_line *lines) {
    orca_block_2d *b = q->block;
    if (b->lanes == 0u)
        return;
    const agent_columns *c = &w->col;
    const uint32_t solve = w->orca_block_lines(b, 1.0f / dt);
    /* The lanes that solve meet their lines nearest first. */
    for (uint32_t m = solve & b->unranked; m; m &= m - 1u) {
        const uint32_t l = (uint32_t)__builtin_ctz(m);
        const uint32_t n = b->count[l];
        uint32_t place[ORCA_LANES_MIN];
        lane_places(w, b, l, n, place);
        float *const lines_of[4] = { b->lpx, b->lpy, b->ldx, b->ldy };
        lane_permute(lines_of, 4, NULL, l, place, n, n);
    }
    if (solve) {
        /* Only the lanes that solve draw, so only their random keys are
         * looked up: most rows of a sparse crowd do not solve. */
        for (uint32_t m = solve; m; m &= m - 1u) {
            const uint32_t l = (uint32_t)__builtin_ctz(m);
            b->key[l] = steer_row_key(w, q->row[l]);
        }
        w->orca_block_wants(b, solve, rng_seed_key(w->seed), w->step);
    }
    const uint32_t alone = w->orca_block_solve(b, solve);
    for (uint32_t m = alone; m; m &= m - 1u) {
        const uint32_t l = (uint32_t)__builtin_ctz(m);
        orca_block_lane_lines(b, l, lines);
        float out[2];
        if ((b->rest >> l) & 1u) {
            /* The lanes ran the program's first phase already. */
            const float from[2] = { b->out_x[l], b->out_y[l] };
            orca_solve_2d_rest(lines, b->count[l], b->failed_at[l],
                               b->max_speed[l], from, lines + b->count[l], out);
        } else {
            const float want[2] = { b->want_x[l], b->want_y[l] };
            orca_solve_2d(lines, b->count[l], 0u, b->max_speed[l], want,
                          lines + b->count[l], out);
        }
        b->out_x[l] = out[0];
        b->out_y[l] = out[1];
    }
    uint32_t put = (1u << b->lanes) - 1u;
    if (q->pref_kept)
        put &= solve;
    for (uint32_t m = put; m; m &= m - 1u) {
        const uint32_t l = (uint32_t)__builtin_ctz(m);
        const uint32_t t = q->row[l];
        float v[3] = { q->pref_x[l], q->pref_y[l], 0.0f };
        /* As orca_row(): a non-finite answer leaves the preferred one. */
        if (((solve >> l) & 1u) && is_finite_float(b->out_x[l]) &&
            is_finite_float(b->out_y[l])) {
            v[0] = b->out_x[l];
            v[1] = b->out_y[l];
        }
        velocity_put(w, t, dt, &w->group_params[c->group[t]], v);
    }
    b->lanes = 0;
}

/* Row t of a group in ORCA mode: v holds its preferred velocity and
 * receives the new one; *guess carries the neighbour scan's guess from
 * row to row (nearest_lanes()). Returns 1 when the row went to the lanes'
 * block instead (q: 2D, a vector path, no static constraint), whose flush
 * puts it. */
static int orca_row(const throng_world *w, uint32_t t, float dt,
                    const group_kernel_params *k, candidate_block *cb,
                    float *guess, unsigned char *scratch, lanes_rows *q,
                    float *v) {
    const agent_columns *c = &w->col;
    const int three = w->dims == 3;
    pick_entry *picks = (pick_entry *)(void *)scratch;
    if (q->unranked && usual_group(k)) {
        if (cb->rows <= ORCA_LANES_MIN) {
            lanes_take_unranked(w, t, k, cb, v, q);
            return 1;
        }
        if (q->nearest && k->orca_max < ORCA_BLOCK_PAIRS) {
            lanes_take_nearest(w, t, k, cb, guess, picks, v, q);
            return 1;
        }
    }
    const uint32_t n = nearest(w, cb, t, k->orca_r2, k->orca_max, guess, picks);
    const float max_speed = c->max_speed[uniform_row(w, UNIFORM_MAX_SPEED, t)];
    const float radius = c->radius[uniform_row(w, UNIFORM_RADIUS, t)];
    const float inv_dt = 1.0f / dt;
    const float own_v[3] = { c->vx[t], c->vy[t], three ? c->vz[t] : 0.0f };

    const uint32_t *ties = world_ties(w);
    unsigned char *after = scratch + picks_bytes(k->orca_max);
    const uint32_t room = k->orca_max + ORCA_STATIC_MAX;
    uint32_t m = 0, hard = 0;
    float out[3] = { v[0], v[1], three ? v[2] : 0.0f };
    orca_plane *planes = (orca_plane *)(void *)after;
    orca_line *lines = (orca_line *)(void *)after;
    if (w->geo) {
        /* The static objects' constraints first: they are hard. */
        const orca_static_query sq = {
            .p = { c->px[t], c->py[t], three ? c->pz[t] : 0.0f },
            .v = { own_v[0], own_v[1], own_v[2] },
            .radius = radius,
            .max_speed = max_speed,
            .inv_tau = k->orca_inv_tau_static,
            .inv_dt = inv_dt,
        };
        hard = m = three ? orca_static_planes_3d(w, &sq, planes)
                         : orca_static_lines_2d(w, &sq, lines);
    }
    if (q->block && hard == 0u && k->orca_max <= ORCA_BLOCK_PAIRS) {
        lanes_take(w, t, k, cb, picks, n, radius, max_speed, own_v, v, q);
        return 1;
    }
    candidate_block_ranges(cb);
    const cell_range *ranges = cb->ranges;
    pair_batch batch;
    batch.count = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t j = (uint32_t)picks[i].where;
        const uint32_t range = (uint32_t)(picks[i].where >> 32);
        const float reach =
            radius + c->radius[uniform_row(w, UNIFORM_RADIUS, j)];
        if (!(reach > 0.0f))
            continue; /* two points never collide */
        float d[3];
        (void)flock_offset(w, &ranges[range], t, j, d);
        const float rel_v[3] = { own_v[0] - c->vx[j], own_v[1] - c->vy[j],
                                 three ? own_v[2] - c->vz[j] : 0.0f };
        /* Opposite for the two of a pair, so coincident agents part. */
        const float tie_x = ties[t] < ties[j] ? -1.0f : 1.0f;
        /* A neighbour whose mask leaves this agent's layer out will not
         * give way: the agent takes the whole avoidance. */
        const int blind = k->filter_back &&
                          !flock_sees(w, w->group_params[c->group[j]].see, t);
        const float share = blind ? 1.0f : k->orca_share;
        if (three) {
            const float tie[3] = { tie_x, 0.0f, 0.0f };
            orca_agent_plane_3d(d, rel_v, reach, k->orca_inv_tau, inv_dt, share,
                                own_v, tie, &planes[m++]);
            continue;
        }
        if (blind) {
            /* Its own line, after the batch's, keeping the order. */
            if (batch.count > 0)
                m = batch_lines(&batch, k, inv_dt, own_v, lines, m);
            const float tie[3] = { tie_x, 0.0f, 0.0f };
            orca_agent_line_2d(d, rel_v, reach, k->orca_inv_tau, inv_dt, share,
                               own_v, tie, &lines[m++]);
            continue;
        }
        const uint32_t b = batch.count++;
        batch.px[b] = d[0];
        batch.py[b] = d[1];
        batch.vx[b] = rel_v[0];
        batch.vy[b] = rel_v[1];
        batch.reach[b] = reach;
        batch.tie_x[b] = tie_x;
        if (batch.count == ORCA_PAIRS_BATCH)
            m = batch_lines(&batch, k, inv_dt, own_v, lines, m);
    }
    if (batch.count > 0)
        m = batch_lines(&batch, k, inv_dt, own_v, lines, m);
    float want[3] = { v[0], v[1], three ? v[2] : 0.0f };
    /* A preferred velocity every constraint permits is the answer (it is
     * within max speed already): no solve, not a bit moved. */
    if (three ? !forbidden_3d(planes, m, want) : !forbidden_2d(lines, m, want))
        return 0;
    nudge(w, t, k, max_speed, three, want);
    turn_right(k, want);
    if (three)
        orca_solve_3d(planes, m, hard, max_speed, want, planes + room, out);
    else
        orca_solve_2d(lines, m, hard, max_speed, want, lines + room, out);
    /* The solver is finite for any state a world can hold; should an
     * absurd one (speeds near the float range) still overflow it, the
     * agent keeps its preferred velocity rather than a NaN. */
    const int dims = three ? 3 : 2;
    for (int a = 0; a < dims; a++)
        if (!is_finite_float(out[a]))
            return 0;
    for (int a = 0; a < dims; a++)
        v[a] = out[a];
    return 0;
}

/* The group's vehicle limits on the new velocity v (throng_motion): the
 * turn from the heading f to at most turn_rate dt, within the plane of
 * the two (2D: toward v's side, left when v is straight behind; 3D:
 * toward v, about the up vector when v is straight behind), keeping the
 * speed; then the least speed, at most max speed (along the heading when
 * v is zero). */
static void limit_motion(const throng_world *w, uint32_t t, float dt,
                         const group_kernel_params *k, float *v) {
    const agent_columns *c = &w->col;
    const int three = w->dims == 3;
    const float f[3] = { c->fx[t], c->fy[t], three ? c->fz[t] : 0.0f };
    float v2 = v[0] * v[0] + v[1] * v[1];
    if (three)
        v2 = v2 + v[2] * v[2];
    float speed = sqrtf(v2);
    const float angle = k->turn_rate * dt;
    if (k->turn_rate > 0.0f && speed > 0.0f && angle < TURN_HALF_CIRCLE) {
        float along = f[0] * v[0] + f[1] * v[1];
        if (three)
            along = along + f[2] * v[2];
        const float cos_a = detmath_cosf(angle);
        if (along < cos_a * speed) {
            const float sin_a = detmath_sinf(angle);
            /* u: the unit direction across the heading, toward v. */
            float u[3];
            if (three) {
                u[0] = v[0] - along * f[0];
                u[1] = v[1] - along * f[1];
                u[2] = v[2] - along * f[2];
                float u2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
                if (!(u2 > 1e-12f * v2)) {
                    /* Straight behind: about the up vector. */
                    u[0] = c->ux[t];
                    u[1] = c->uy[t];
                    u[2] = c->uz[t];
                    u2 = 1.0f;
                }
                const float inv = 1.0f / sqrtf(u2);
                u[0] *= inv;
                u[1] *= inv;
                u[2] *= inv;
            } else {
                const float side = f[0] * v[1] - f[1] * v[0];
                const float turn = side < 0.0f ? -1.0f : 1.0f;
                u[0] = -f[1] * turn;
                u[1] = f[0] * turn;
                u[2] = 0.0f;
            }
            v[0] = speed * (cos_a * f[0] + sin_a * u[0]);
            v[1] = speed * (cos_a * f[1] + sin_a * u[1]);
            if (three)
                v[2] = speed * (cos_a * f[2] + sin_a * u[2]);
        }
    }
    if (k->min_speed > 0.0f) {
        const float max_speed =
            c->max_speed[uniform_row(w, UNIFORM_MAX_SPEED, t)];
        const float least = k->min_speed < max_speed ? k->min_speed : max_speed;
        if (speed < least) {
            if (speed > 0.0f) {
                const float scale = least / speed;
                v[0] *= scale;
                v[1] *= scale;
                if (three)
                    v[2] *= scale;
            } else {
                v[0] = least * f[0];
                v[1] = least * f[1];
                if (three)
                    v[2] = least * f[2];
            }
        }
    }
}

/* The candidate ranges of row t's cell, into *cb. In a dense or sparse
 * grid a bucket is one cell and the rows are in bucket order, so a cursor
 * moved along cell_start (*bucket) says when the cell changes, and the
 * cell and its block are worked out once per cell rather than once per
 * row; a hashed grid's bucket may hold several cells, and its rows
 * compare their cells. */
static inline void block_of_row(const throng_world *w, uint32_t t, int ordered,
                                uint32_t *bucket, uint32_t *block_bucket,
                                flock_block *blk, candidate_block *cb) {
    if (!ordered) {
        const cell_range *ranges = flock_block_of(w, t, blk);
        candidate_block_set(cb, ranges, blk->count);
        return;
    }
    const uint32_t *cell_start = w->grid.cell_start;
    uint32_t b = *bucket;
    while (cell_start[b + 1u] <= t)
        b++;
    *bucket = b;
    if (blk->known && b == *block_bucket)
        return;
    blk->known = 0;
    *block_bucket = b;
    const cell_range *ranges = flock_block_of(w, t, blk);
    candidate_block_set(cb, ranges, blk->count);
}

/* Row t's candidates from its neighbour list (verlet.c): its runs are
 * the stretches the lanes read, where the list keeps them, and what the
 * build worked out (the rows they cover, whether they hold t) is read
 * rather than worked out again; the ranges (the lists serve unbounded
 * space only, so no shift) are written into range_store only for a row
 * whose scan reads them (candidate_block_ranges()). */
_Static_assert(VERLET_RUNS <= GRID_MAX_RANGES,
               "a list's runs fit a candidate block's bounds");
_Static_assert(VERLET_WINDOW == FLOCK_WINDOW,
               "a list's windows are hold_windows()'s");
_Static_assert(VERLET_WINDOW <= ORCA_LANES_MIN,
               "a list the lanes scan covers more rows than a window, so "
               "it has its windows (unless it needs too many)");
static inline void block_of_list(throng_world *w, uint32_t t,
                                 candidate_block *cb) {
    verlet_lists *v = &w->verlet;
    cb->count = (int)verlet_row_runs(v, t, &cb->bounds);
    cb->rows = v->covered[t];
    cb->self_in = verlet_row_self(v, t);
    cb->window_count = verlet_row_windows(v, t, &cb->windows);
    cb->ranges = NULL;
    cb->one_shift = 1;
    cb->laned = 1;
    cb->own_guess = &v->guess[t];
}

/* The first pass over rows [begin, end): every row's new velocity into
 * its force slot. Consecutive rows of one cell share their candidate
 * ranges. Rows handed to the lanes are put when their block fills, and
 * the last block at the end. */
static void velocity_rows(void *ctx, uint32_t begin, uint32_t end, int thread) {
    velocity_ctx *vc = ctx;
    throng_world *w = vc->w;
    const int three = w->dims == 3;
    unsigned char *scratch =
        (unsigned char *)w->velocity_scratch + (size_t)thread * vc->stride;
    const uint32_t most = most_picks(w);
    lanes_rows q;
    q.block = NULL;
    q.usual = 0;
    q.unranked = 0;
    q.nearest = 0;
    q.counts = NULL;
    /* The lines of a lane the block leaves to orca_solve_2d() (and their
     * copy) go after the picks, where orca_row()'s own constraints go. */
    orca_line *alone_lines = (orca_line *)(void *)(scratch + picks_bytes(most));
    if (w->orca_block_lines && !three) {
        const size_t raw = picks_bytes(most) +
                           2u * (most + ORCA_STATIC_MAX) * sizeof(orca_plane);
        q.block = (orca_block_2d *)(void *)(scratch + align_bytes(raw));
        q.counts = (int32_t *)(void *)((unsigned char *)q.block + counts_at());
        q.block->lanes = 0;
        q.block->own_shares = 0;
        q.block->own_reaches = 0;
        q.block->unranked = 0;
        q.usual = usual_pairs(w);
        q.unranked = q.usual && !w->geo;
        q.nearest = q.unranked && w->hold_rows && w->count_below;
    }
    flock_block blk;
    flock_block_reset(&blk);
    const int lists = w->verlet.active;
    cell_range list_ranges[VERLET_RUNS];
    memset(list_ranges, 0, sizeof list_ranges);
    /* Field by field: an initializer would zero bound_store, 10 KB (a
     * block's most ranges) every call, which candidate_block_lanes()
     * writes before anything reads it. */
    candidate_block cb;
    cb.ranges = NULL;
    cb.count = 0;
    cb.rows = 0;
    cb.laned = 0;
    cb.one_shift = 0;
    cb.self_in = 0;
    cb.bounds = NULL;
    cb.range_store = list_ranges;
    cb.windows = NULL;
    cb.window_count = 0;
    cb.own_guess = NULL;
    /* The last row's guess (a list's rows keep their own:
     * block_of_list()). */
    float guess = 0.0f;
    /* The step's grid is permuted (its rows are the columns' rows). */
    const grid *g = &w->grid;
    const int ordered = !lists && (g->dense || g->sparse) && g->permuted;
    uint32_t bucket = ordered && begin < end ? grid_bucket_of_row(g, begin) : 0;
    uint32_t block_bucket = 0;
    /* In the plane on a vector path, the rows' preferred velocities first,
     * on the lanes, into their force slots (nothing else reads them). */
    const int pref_ahead = !three && w->velocity_rows_2d;
    q.pref_kept = pref_ahead && !vc->limited;
    if (pref_ahead)
        w->velocity_rows_2d(w, begin, end, vc->dt);
    for (uint32_t t = begin; t < end; t++) {
        float v[3] = { 0.0f, 0.0f, 0.0f };
        if (pref_ahead) {
            v[0] = w->steer_x[t];
            v[1] = w->steer_y[t];
        } else if (three) {
            integrate_velocity_3d(w, t, vc->dt, v);
        } else {
            integrate_velocity_2d(w, t, vc->dt, v);
        }
        const group_kernel_params *k = &w->group_params[w->col.group[t]];
        if (k->orca) {
            if (lists)
                block_of_list(w, t, &cb);
            else
                block_of_row(w, t, ordered, &bucket, &block_bucket, &blk, &cb);
            if (orca_row(w, t, vc->dt, k, &cb, &guess, scratch, &q, v)) {
                if (q.block->lanes == ORCA_BLOCK_LANES)
                    lanes_flush(w, vc->dt, &q, alone_lines);
                continue;
            }
        }
        velocity_put(w, t, vc->dt, k, v);
    }
    if (q.block)
        lanes_flush(w, vc->dt, &q, alone_lines);
}

/* The second pass: every row moves with the velocity of the first. */
static void place_rows(void *ctx, uint32_t begin, uint32_t end, int thread) {
    (void)thread;
    velocity_ctx *vc = ctx;
    throng_world *w = vc->w;
    if (w->dims == 2 && w->place_rows_2d) {
        w->place_rows_2d(w, begin, end, vc->dt);
        return;
    }
    for (uint32_t t = begin; t < end; t++) {
        if (w->dims == 3) {
            const float v[3] = { w->steer_x[t], w->steer_y[t], w->steer_z[t] };
            integrate_place_3d(w, t, vc->dt, v);
        } else {
            const float v[2] = { w->steer_x[t], w->steer_y[t] };
            integrate_place_2d(w, t, vc->dt, v);
        }
    }
}

void velocity_stage(throng_world *w, parallel_sched *sched, float dt) {
    INVARIANT(w->count == 0 || (w->steer_x && w->steer_y),
              "the velocity stage has a force for every row");
    INVARIANT(sched->failed || w->verlet.active ||
                  (w->grid.valid && w->grid.count == w->count),
              "the velocity stage reads this step's grid or lists");
    velocity_ctx ctx = { .w = w,
                         .dt = dt,
                         .stride = thread_bytes(w, most_picks(w)),
                         .limited = motion_limited(w) };
    INVARIANT(w->velocity_scratch_bytes >= (size_t)sched->threads * ctx.stride,
              "every thread of the stage has its scratch");
    parallel_rows(sched, w->count, VELOCITY_GRAIN, velocity_rows, &ctx);
    parallel_rows(sched, w->count, PLACE_GRAIN, place_rows, &ctx);
}
