/* SPDX-License-Identifier: MIT */
/*
 * The route family's kernels (steer_route.c): patrol, paths and flow fields.
 */
#ifndef THRONG_STEER_ROUTE_H
#define THRONG_STEER_ROUTE_H

#include "steer.h"
#include "steer_flock.h"

/* The route family's force for behaviour b (see steer_route.c). */
int steer_route_force(const steer_ctx *a, const throng_behaviour *b,
                      float F[3]);

#endif /* THRONG_STEER_ROUTE_H */
