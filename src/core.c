/* SPDX-License-Identifier: MIT */
/*
 * The core: allocation through the world's allocator, the refusal
 * sentences (world_fail) and status strings, thread counts, and the
 * argument validators every module shares.
 */
#include "internal.h"
#include "core.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detmath.h"
#include "parallel.h"

/* ------------------------------------------------------------------------ */
/* Memory and errors                                                        */
/* ------------------------------------------------------------------------ */

size_t size_mul(size_t count, size_t elem) {
    if (elem != 0 && count > SIZE_MAX / elem)
        return 0;
    return count * elem;
}

void *world_alloc(const throng_world *w, size_t size) {
    if (size == 0)
        return NULL;
    /* Round up so the block can be handed to aligned_alloc as is. */
    if (size > SIZE_MAX - THRONG_ALIGN)
        return NULL;
    size_t rounded = (size + THRONG_ALIGN - 1) & ~(size_t)(THRONG_ALIGN - 1);
    if (w->allocator.alloc)
        return w->allocator.alloc(rounded, THRONG_ALIGN, w->allocator.user);
    return aligned_alloc(THRONG_ALIGN, rounded);
}

void world_free(const throng_world *w, void *ptr, size_t size) {
    if (!ptr)
        return;
    size_t rounded = (size + THRONG_ALIGN - 1) & ~(size_t)(THRONG_ALIGN - 1);
    if (w->allocator.free)
        w->allocator.free(ptr, rounded, w->allocator.user);
    else
        free(ptr);
}

/* Waits for, then holds, the world's shared_write lock. Only readers
 * ever contend for it (a writer has the world to itself), and each holds
 * it for a short loop that calls nothing outside the library. */
void shared_write_lock(throng_world *w) {
    while (atomic_exchange_explicit(&w->shared_write, 1u, memory_order_acquire))
        ;
}

void shared_write_unlock(throng_world *w) {
    atomic_store_explicit(&w->shared_write, 0u, memory_order_release);
}

throng_status world_fail(throng_world *w, throng_status status, const char *fmt,
                         ...) {
    va_list ap;
    va_start(ap, fmt);
    shared_write_lock(w);
    vsnprintf(w->error, sizeof w->error, fmt, ap);
    shared_write_unlock(w);
    va_end(ap);
    return status;
}

int world_thread_count(const throng_world *w) {
    if (w->enqueue_task)
        return (int)w->worker_count;
    int t = w->threads > 0 ? w->threads : parallel_default_threads();
    return t > THRONG_MAX_THREADS ? THRONG_MAX_THREADS : t;
}

parallel_sched world_scheduler(throng_world *w) {
    parallel_sched s = { .threads = world_thread_count(w),
                         .enqueue_task = w->enqueue_task,
                         .finish_task = w->finish_task,
                         .user_context = w->task_context,
                         .tuner = &w->tuner };
    return s;
}

const char *throng_status_string(throng_status status) {
    switch (status) {
    case THRONG_OK:
        return "ok";
    case THRONG_ERR_NULL:
        return "invalid argument: a required pointer is NULL";
    case THRONG_ERR_NOT_FINITE:
        return "invalid argument: a number is NaN or infinite";
    case THRONG_ERR_OUT_OF_RANGE:
        return "invalid argument: a value is out of its range";
    case THRONG_ERR_STALE_HANDLE:
        return "stale handle: no live agent, group or object of this world has "
               "it";
    case THRONG_ERR_UNKNOWN_GROUP:
        return "unknown group";
    case THRONG_ERR_DUPLICATE_KEY:
        return "duplicate key: the key or name is already in use";
    case THRONG_ERR_NOT_FOUND:
        return "not found";
    case THRONG_ERR_OUT_OF_MEMORY:
        return "out of memory";
    case THRONG_ERR_CAPACITY:
        return "capacity reached";
    case THRONG_ERR_BAD_SNAPSHOT:
        return "bad snapshot: truncated, corrupted or inconsistent";
    case THRONG_ERR_VERSION:
        return "snapshot version is newer than this library reads";
    case THRONG_ERR_IO:
        return "input/output error";
    case THRONG_ERR_UNSUPPORTED:
        return "unsupported: this CPU or build does not offer what was asked "
               "for";
    case THRONG_ERR_BUSY:
        return "busy: another call on this world is running";
    case THRONG_ERR_INVALID_ARG:
        return "invalid argument: a field the call would not read is set, or "
               "the group is in use";
    case THRONG_ERR_INTERNAL:
        return "internal error: the library broke one of its own invariants";
    }
    return "unknown status";
}

throng_status check_finite(throng_world *w, const char *fn, const char *what,
                           float x) {
    if (is_finite_float(x))
        return THRONG_OK;
    return world_fail(w, THRONG_ERR_NOT_FINITE, "%s: %s is not finite", fn,
                      what);
}

throng_status check_vec(throng_world *w, const char *fn, const char *what,
                        const float *v) {
    return check_vecs(w, fn, what, v, 1u, 0u);
}

throng_status check_vecs(throng_world *w, const char *fn, const char *what,
                         const float *v, size_t count, size_t stride) {
    for (size_t i = 0; i < count; i++)
        for (int a = 0; a < w->dims; a++) {
            if (is_finite_float(v[i * stride + (size_t)a]))
                continue;
            if (stride == 0u)
                return world_fail(w, THRONG_ERR_NOT_FINITE,
                                  "%s: %s[%d] is not finite", fn, what, a);
            return world_fail(w, THRONG_ERR_NOT_FINITE,
                              "%s: %s[%zu][%d] is not finite", fn, what, i, a);
        }
    return THRONG_OK;
}

throng_status check_length_field(throng_world *w, const char *fn,
                                 const char *field, float x, int zero_ok) {
    throng_status st = check_finite(w, fn, field, x);
    if (st != THRONG_OK || (zero_ok && x == 0.0f) || length_in_range(x))
        return st;
    return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                      "%s: %s must be %sin [%g, %g] metres (THRONG_MIN_LENGTH "
                      ".. THRONG_MAX_LENGTH), got %g",
                      fn, field, zero_ok ? "0 or " : "",
                      (double)THRONG_MIN_LENGTH, (double)THRONG_MAX_LENGTH,
                      (double)x);
}

throng_status check_scalar(throng_world *w, const char *fn, const char *what,
                           float x, int positive) {
    if (positive == SCALAR_LENGTH)
        return check_length_field(w, fn, what, x, 1);
    throng_status st = check_finite(w, fn, what, x);
    if (st != THRONG_OK)
        return st;
    if (positive ? !(x > 0.0f) : x < 0.0f)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: %s must be %s 0, got %g", fn, what,
                          positive ? ">" : ">=", (double)x);
    return THRONG_OK;
}

throng_status null_fail(throng_world *w, const char *fn, const char *what) {
    return world_fail(w, THRONG_ERR_NULL, "%s: %s must not be NULL", fn, what);
}
