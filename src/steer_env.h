/*
 * The environment family's kernels (steer_env.c): obstacle and wall
 * avoidance, containment, wall following.
 */
#ifndef THRONG_STEER_ENV_H
#define THRONG_STEER_ENV_H

#include "steer.h"
#include "steer_flock.h"

/* The environment family's force for behaviour b (see steer_env.c). */
int steer_env_force(const steer_ctx *a, const throng_behaviour *b, float F[3]);

#endif /* THRONG_STEER_ENV_H */
