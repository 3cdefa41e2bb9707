/* SPDX-License-Identifier: MIT */
/*
 * Navigation fields as world objects, and the agents that follow them
 * (nav_objects.c): what a step does with them around its stages.
 */
#ifndef THRONG_NAV_OBJECTS_H
#define THRONG_NAV_OBJECTS_H

#include "internal.h"

/* Before a tick's stages: counts the crowd for the fields whose count is
 * due (the tick's number a multiple of their interval), then rebuilds
 * every field that is out of date, on the tick's threads. */
void nav_prepare(throng_world *world, parallel_sched *sched);

/* After a tick's stages: lists the agents that arrived during it, in slot
 * order, and removes those whose behaviour asked for it. */
void nav_finish_tick(throng_world *world);

/* At the start of a step: the arrival list starts afresh. */
void nav_start_step(throng_world *world);

#endif /* THRONG_NAV_OBJECTS_H */
