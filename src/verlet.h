/* SPDX-License-Identifier: MIT */
/*
 * Verlet lists: each row's candidate neighbours, found once from a grid
 * build and kept for the ticks after it while no agent has moved half a
 * skin from where the build saw it, or the crowd has moved together
 * (verlet.c, verlet_frame.c).
 */
#ifndef THRONG_VERLET_H
#define THRONG_VERLET_H

#include <stddef.h>
#include <stdint.h>

#include "grid.h"
#include "parallel.h"
#include "verlet_frame.h"

typedef struct throng_world throng_world;

/* Runs of rows a row's list holds at most: a run is (first, past last);
 * candidates between the runs' rows that are not neighbours are measured
 * and left out, as every candidate of a grid block is. */
#define VERLET_RUNS 8u

/* Set in a row's run count when its runs hold the row itself (a cut
 * joined it in, or a knot's one run): most runs leave it out, and then
 * no candidate need be compared with it. */
#define VERLET_SELF 0x80u

/* Windows a row's list holds at most: a window is (first row, mask), bit
 * i of the mask row first + i, for i < VERLET_WINDOW (the widest vector),
 * set for the rows within the list's reach. A list's rows lie in a few
 * stretches near each other (circle2d: 8 runs, 3.4 windows), and the
 * velocity stage's vector scan measures a window at a time where it
 * measured a run at a time. A row whose rows need more has none, and
 * its runs are scanned; so has a row whose runs cover at most
 * VERLET_WINDOW rows, whose candidates the velocity stage takes one by
 * one rather than scanning them. */
#define VERLET_WINDOWS 8u
#define VERLET_WINDOW 16u

typedef struct verlet_lists {
    float skin;        /* metres past the neighbour radius; 0: off */
    int active;        /* this tick's velocity stage reads the lists */
    int valid;         /* built, and the rows unchanged since */
    uint32_t rows;     /* rows at the build */
    uint32_t capacity; /* rows the arrays hold */
    uint32_t *runs;    /* VERLET_RUNS (first, past last) pairs a row */
    uint8_t *count;    /* runs of each row, and VERLET_SELF */
    uint32_t *covered; /* rows each row's runs cover, in all */
    uint32_t *window;  /* VERLET_WINDOWS (first, mask) pairs a row */
    uint8_t *windows;  /* windows of each row; 0: none (scan the runs) */
    float *at[3];      /* each row's position at the build */
    uint32_t builds;   /* builds so far (a count for tests and tuning) */
    /* The crowd's frame since the build, for the test of whether the
     * lists hold (verlet_frame.c). */
    verlet_frame frame;
    /* Each row's guess for the velocity stage's neighbour scan, which
     * velocity.c reads and writes (0: none). While lists serve, a row
     * keeps its agent from tick to tick, so the guess is the agent's
     * own. Zeroed when the arrays grow, then left as the stage leaves
     * it: no part of the state, as any value steps to the same bits,
     * only sooner or later. */
    float *guess;
    /* The lists' own grid, never permuting, of cells as wide as the
     * radius plus the skin (the world's grid stays as the step and the
     * queries use it). */
    grid grid;
} verlet_lists;

/* Sets the skin (0: off), planning the lists' grid for it; the lists are
 * built anew when next used. */
void verlet_set_skin(throng_world *w, float skin);

/* Whether this tick may take its neighbours from the lists rather than a
 * permuting build of the grid: the lists are asked for (a skin), and
 * every stage that reads neighbours gives the same bits whatever order
 * it meets them in (see verlet.c): no group walks its neighbours or has
 * no behaviour list (the walk's sums), no contact passes (`contact`), no
 * canonical order, no periodic box, and some group with rows in ORCA. */
int verlet_usable(const throng_world *w, uint32_t contact);

/* The lists for this tick: kept when they hold (built, the rows the same,
 * every agent within half the skin of where the build saw it, or the
 * crowd's motion since near enough to an affine map: verlet_frame.h),
 * else built from a non-permuting build of the grid. Marks them active.
 * Nonzero when memory could not be had (the world is unchanged then but
 * for the grid, which a later build redoes). */
int verlet_prepare(throng_world *w, parallel_sched *sched);

/* The lists are of no use (rows added or removed, or the tick takes the
 * grid): the next use builds them. */
static inline void verlet_forget(verlet_lists *v) {
    v->valid = 0;
    v->active = 0;
}

/* Row t's runs, into *runs (count of them returned). */
static inline uint32_t verlet_row_runs(const verlet_lists *v, uint32_t t,
                                       const uint32_t **runs) {
    *runs = v->runs + (size_t)t * 2u * VERLET_RUNS;
    return v->count[t] & ~VERLET_SELF;
}

/* Row t's windows, into *windows (count of them returned; 0: none). */
static inline uint32_t verlet_row_windows(const verlet_lists *v, uint32_t t,
                                          const uint32_t **windows) {
    *windows = v->window + (size_t)t * 2u * VERLET_WINDOWS;
    return v->windows[t];
}

/* Whether row t's runs hold t itself. */
static inline int verlet_row_self(const verlet_lists *v, uint32_t t) {
    return (v->count[t] & VERLET_SELF) != 0u;
}

size_t verlet_bytes(const verlet_lists *v, int dims);
/* Frees the lists and their grid's storage. */
void verlet_release(throng_world *w, verlet_lists *v, int dims);

#endif /* THRONG_VERLET_H */
