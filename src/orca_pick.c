/* SPDX-License-Identifier: MIT */
/*
 * A row's ORCA neighbours: the scans (orca_pick.h).
 */
#include "orca_pick.h"

#include <string.h>

#include "internal.h"
#include "steer_flock.h"

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

uint32_t orca_pick_hold(const throng_world *w, candidate_block *cb, uint32_t t,
                        float R2, float limit, uint32_t most,
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

uint32_t orca_pick_nearest(const throng_world *w, candidate_block *cb,
                           uint32_t t, float R2, uint32_t most, float *guess,
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
