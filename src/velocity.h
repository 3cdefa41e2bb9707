/* SPDX-License-Identifier: MIT */
/*
 * The velocity stage (velocity.c): between the behaviours and the move,
 * for worlds where some group's avoidance mode is not NONE.
 */
#ifndef THRONG_VELOCITY_H
#define THRONG_VELOCITY_H

#include "internal.h"

/* Whether some live group's avoidance mode needs the stage this step. */
int velocity_needed(const throng_world *world);

/* Makes the stage's per-thread scratch hold `threads` threads for the
 * largest max_neighbours of the groups that avoid; returns 1 when the
 * memory cannot be had (the world is then unchanged). */
int velocity_reserve(throng_world *world, uint32_t threads);

/* The stage and the move, in place of integrate(): every row's preferred
 * velocity (integrate_velocity_*), turned by its group's mode into the
 * new velocity, then every row moved with it (integrate_place_*). Reads
 * the grid of this step's build. */
void velocity_stage(throng_world *world, parallel_sched *sched, float dt);

#endif /* THRONG_VELOCITY_H */
