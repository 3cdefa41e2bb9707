/* SPDX-License-Identifier: MIT */
/*
 * World lifecycle and settings (world.c): what other modules call.
 */
#ifndef THRONG_WORLD_H
#define THRONG_WORLD_H

#include "internal.h"

/* max_dt and max_substeps are in range (max_dt known finite). */
int step_limits_valid(float max_dt, uint32_t max_substeps);

/* Something outside the world that holds on to it and must hear of its
 * destruction (a trajectory recorder, recorder.c): throng_world_destroy
 * calls gone() of every watch still attached, before it frees anything,
 * so the owner stops using the world instead of reading freed memory. The
 * watch's memory is its owner's; add and remove are calls that change the
 * world (the caller holds it to itself). */
typedef struct world_watch {
    void (*gone)(struct world_watch *watch);
    struct world_watch *next;
} world_watch;

void world_watch_add(throng_world *world, world_watch *watch);
void world_watch_remove(throng_world *world, world_watch *watch);

#endif /* THRONG_WORLD_H */
