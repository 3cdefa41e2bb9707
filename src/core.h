/* SPDX-License-Identifier: MIT */
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

/* Allocation through the world's allocator, aligned to THRONG_ALIGN. */
void *world_alloc(const throng_world *world, size_t size);
void world_free(const throng_world *world, void *ptr, size_t size);
/* size = count * elem, or 0 when that overflows. */
size_t size_mul(size_t count, size_t elem);

/* Records the detail of a refusal and returns the status. */
throng_status world_fail(throng_world *world, throng_status status,
                         const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Records that a pointer argument the call needs (`what`) is NULL, in the
 * one wording "fn: what must not be NULL"; returns THRONG_ERR_NULL. */
throng_status null_fail(throng_world *world, const char *fn, const char *what);

/* Threads a step uses: the host's worker count when it gave task hooks,
 * else world->threads, or the OpenMP default. */
int world_thread_count(const throng_world *world);

/* The scheduler of a step or query: the host's hooks, or OpenMP threads
 * (parallel.h). */
parallel_sched world_scheduler(throng_world *world);

/* Checks a length field: finite (THRONG_ERR_NOT_FINITE), then in the
 * range, or 0 when zero_ok (THRONG_ERR_OUT_OF_RANGE with a sentence that
 * gives the range). THRONG_OK, or the refusal recorded with world_fail. */
throng_status check_length_field(throng_world *world, const char *fn,
                                 const char *field, float x, int zero_ok);

#endif /* THRONG_CORE_H */
