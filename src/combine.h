/*
 * The combine stage (combine.c).
 */
#ifndef THRONG_COMBINE_H
#define THRONG_COMBINE_H

#include "steer_flock.h"

/* The recipe finish: computes every term of row t's group from the walk's
 * sums, combines them by the group's mode and writes the steer columns.
 * Scalar and shared by every kernel path. */
void steer_finish_recipe(const throng_world *w, uint32_t t, const flock_sums *s,
                         float dt);

#endif /* THRONG_COMBINE_H */
