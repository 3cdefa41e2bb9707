/*
 * The core layer's private declarations beyond internal.h: the lock that
 * const calls take to write the world, and the argument validators. Each
 * kind of argument has one validator here and one wording, so a refusal
 * reads the same from every function:
 *   "fn: what is not finite"            a scalar that is NaN or infinite
 *   "fn: what[a] is not finite"         a component of a vector
 *   "fn: what must be >= 0, got x"      (or "> 0")
 *   "fn: what must be [0 or ]in [lo, hi] metres (...), got x"   a length
 *   "fn: what must not be NULL"         a missing pointer
 */
#ifndef THRONG_CORE_H
#define THRONG_CORE_H

#include "internal.h"

/* Waits for, then holds, the world's shared_write lock; and releases it. */
void shared_write_lock(throng_world *w);
void shared_write_unlock(throng_world *w);

/* A scalar is finite. */
throng_status check_finite(throng_world *w, const char *fn, const char *what,
                           float x);

/* Every component of a vector of the world's dimensions is finite. */
throng_status check_vec(throng_world *w, const char *fn, const char *what,
                        const float *v);

/* The same for `count` vectors `stride` (> 0) floats apart (an array of
 * points, a flow field's vectors): "fn: what[i][a] is not finite". */
throng_status check_vecs(throng_world *w, const char *fn, const char *what,
                         const float *v, size_t count, size_t stride);

/* A scalar of an agent: positive 0: >= 0; 1: > 0; SCALAR_LENGTH: a
 * length, 0 or in [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH]. */
#define SCALAR_LENGTH 2
throng_status check_scalar(throng_world *w, const char *fn, const char *what,
                           float x, int positive);

#endif /* THRONG_CORE_H */
