/*
 * The core layer's private declarations beyond internal.h: the lock that
 * const calls take to write the world, and the validators of an agent's
 * vectors and scalars.
 */
#ifndef THRONG_CORE_H
#define THRONG_CORE_H

#include "internal.h"

/* Waits for, then holds, the world's shared_write lock; and releases it. */
void shared_write_lock(throng_world *w);
void shared_write_unlock(throng_world *w);

/* Every component of a vector of the world's dimensions is finite. */
throng_status check_vec(throng_world *w, const char *fn, const char *what,
                        const float *v);

/* A scalar of an agent: positive 0: >= 0; 1: > 0; SCALAR_LENGTH: a
 * length, 0 or in [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH]. */
#define SCALAR_LENGTH 2
throng_status check_scalar(throng_world *w, const char *fn, const char *what,
                           float x, int positive);

#endif /* THRONG_CORE_H */
