/* SPDX-License-Identifier: MIT */
/*
 * World lifecycle and settings (world.c): what other modules call.
 */
#ifndef THRONG_WORLD_H
#define THRONG_WORLD_H

#include "internal.h"

/* max_dt and max_substeps are in range (max_dt known finite). */
int step_limits_valid(float max_dt, uint32_t max_substeps);

#endif /* THRONG_WORLD_H */
