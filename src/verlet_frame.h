/* SPDX-License-Identifier: MIT */
/*
 * Whether a build's Verlet lists still hold (verlet_frame.c): every agent
 * within half the skin of where the build saw it, or the crowd's motion
 * since the build close enough to an affine map of where it stood.
 */
#ifndef THRONG_VERLET_FRAME_H
#define THRONG_VERLET_FRAME_H

#include <stdint.h>

#include "parallel.h"

typedef struct throng_world throng_world;

/* The crowd's frame since the lists' build: where the rows stood and the
 * motion fitted to them (verlet.h holds one in each world's lists). */
typedef struct verlet_frame {
    uint32_t ticks;      /* ticks the lists have served since the build */
    int fitted;          /* rate_a and rate_b hold a fit */
    double centre[3];    /* the rows' mean position at the build */
    double farthest;     /* the farthest row from it then */
    double spread[3][3]; /* sum of (at - centre)(at - centre)^T */
    double rate_a[3][3]; /* the fitted map's growth a tick */
    double rate_b[3];    /* the fitted shift's growth a tick */
} verlet_frame;

/* A frame for lists just built from the positions in w->verlet.at: their
 * centre and spread, no motion fitted, no tick served. */
void verlet_frame_start(throng_world *w, parallel_sched *sched);

/* Whether the lists, built and of the world's rows, still hold every pair
 * within the neighbour radius: every agent within half the skin of where
 * the build saw it (Verlet's test), or, where a crowd moves together, its
 * displacements d = A u + b + r (u its offset from the centre at the
 * build) for some map A and shift b with 2 max |r| + |A| reach within the
 * skin (reach: how far the lists reach; see verlet_frame.c). Counts the
 * tick when they hold. */
int verlet_frame_holds(throng_world *w, parallel_sched *sched, double reach);

#endif /* THRONG_VERLET_FRAME_H */
