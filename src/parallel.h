/* SPDX-License-Identifier: MIT */
/*
 * The parallel-for: the one place that decides who runs a parallel loop
 * (OpenMP threads, the host's task hooks, or the calling thread alone).
 * Callers describe the work and hand over a scheduler; they never see
 * which of the three ran it. See parallel.c for why the loops are shaped
 * the way they are.
 */
#ifndef THRONG_PARALLEL_H
#define THRONG_PARALLEL_H

#include <stdint.h>

#include "throng.h" /* the task hook types only */

/* What a world remembers between steps about how well its OpenMP team
 * fared (parallel.c, "A shared machine"). Zero is the initial state. */
typedef struct parallel_tuner {
    double waste;       /* running mean of waiting / working, thread 0 */
    uint32_t solo_left; /* steps still to run on one thread */
    uint32_t backoff;   /* solo steps after the next bad probe */
    int probing;        /* this step tries the team again */
    int pinned;         /* always use the team (tests set it) */
} parallel_tuner;

/* Who runs the loops of one step (or query). A layer-1 value: the world
 * fills it from its settings (world_scheduler) and passes it down. */
typedef struct parallel_sched {
    /* OpenMP threads, or the host's worker count when the hooks are set;
     * >= 1. Every `thread` a loop body receives is below it, and two
     * bodies running at the same time never receive the same one. */
    int threads;
    /* The host's hooks, both or neither; NULL: OpenMP (or serial). */
    throng_enqueue_task_fn *enqueue_task;
    throng_finish_task_fn *finish_task;
    void *user_context;
    /* Set when the host's hooks broke their contract (an item not run, or
     * a worker index out of range): every later loop given this scheduler
     * does nothing, and the caller refuses the step. */
    int failed;
    /* The OpenMP team of the running session, or NULL (parallel.c). */
    struct parallel_team *team;
    /* The world's tuner, or NULL: a session then always uses its team. */
    parallel_tuner *tuner;
} parallel_sched;

/* Runs body(sched, arg) on the calling thread with the scheduler's
 * threads standing by for the loops it starts: one OpenMP parallel region
 * for all of them, instead of one per loop (see parallel.c). `rows` is the
 * size of the largest loop to come: below what any loop would split, no
 * team is formed. With hooks, one thread, or without OpenMP, it simply
 * calls body. The tuner (if any) may run the session on one thread when
 * the team has been losing time waiting for its own descheduled threads;
 * sched->threads then says 1 while body runs. */
void parallel_session(parallel_sched *sched, uint32_t rows,
                      void (*body)(parallel_sched *sched, void *arg),
                      void *arg);

/* Processes rows [begin, end) on thread `thread` (0 .. threads-1). */
typedef void (*range_fn)(void *ctx, uint32_t begin, uint32_t end, int thread);

/* Splits [0, n) into chunks of `grain` rows (the last may be shorter) and
 * runs fn on every chunk, on up to `threads` threads. Each chunk's result
 * must depend only on its rows, never on which thread ran it or in which
 * order: then the outcome is the same for any thread count. */
void parallel_for(parallel_sched *sched, uint32_t n, uint32_t grain,
                  range_fn fn, void *ctx);

/* Splits [0, n) into contiguous blocks of at least `grain` rows for
 * streaming stages, where every row costs the same. How many blocks, and
 * which thread takes which, is the scheduler's business: a row's result
 * must not depend on it. */
void parallel_rows(parallel_sched *sched, uint32_t n, uint32_t grain,
                   range_fn fn, void *ctx);

/* Processes part `part`, rows [begin, end). */
typedef void (*part_fn)(void *ctx, uint32_t part, uint32_t begin, uint32_t end,
                        int thread);

/* Splits [0, n) into exactly `parts` contiguous, nearly equal ranges (part
 * p is [n p / parts, n (p + 1) / parts)) and runs fn on each as above. Used
 * where the partition itself must be known (the sort's histograms): it
 * depends on `parts` only, never on the scheduler. */
void parallel_parts(parallel_sched *sched, uint32_t n, uint32_t parts,
                    part_fn fn, void *ctx);

/* The OpenMP default thread count, or 1 without OpenMP. */
int parallel_default_threads(void);

/* Seconds on a monotonic clock. */
double parallel_now(void);

#endif /* THRONG_PARALLEL_H */
