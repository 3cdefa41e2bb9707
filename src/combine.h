/* SPDX-License-Identifier: MIT */
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

/* Flocking terms of one row computed ahead of its finish by a vector
 * path: separation, alignment and cohesion (TERM_SEPARATION ..
 * TERM_COHESION), unweighted, each with its state: 1 quiet, 2 on. */
typedef struct finish_terms {
    float T[TERM_COHESION + 1][3];
    uint8_t state[TERM_COHESION + 1];
} finish_terms;

/* The recipe finish of rows [begin, end), a run of the walk, from their
 * sums s[0 .. end - begin) and, when `given` is not NULL, flocking terms
 * a vector path computed for them, as steer_finish_recipe() would: the
 * same bits as that function row by row, computed a run at a time. With
 * recipes_only, rows whose group has no recipe are left alone (a vector
 * path has finished them). */
void steer_finish_rows(const throng_world *w, uint32_t begin, uint32_t end,
                       const flock_sums *s, const finish_terms *given, float dt,
                       int recipes_only);

#endif /* THRONG_COMBINE_H */
