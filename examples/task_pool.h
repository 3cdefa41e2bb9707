/* SPDX-License-Identifier: MIT */
/*
 * task_pool.h: a tiny fixed-size pthread pool that implements throng's
 * task hooks, the way a game's own job system would.
 *
 * The pool owns `workers` threads, numbered 0 .. workers-1, and one queue
 * of ranges guarded by a mutex. enqueue cuts a task's items into ranges
 * (a few per worker, never below the task's min_range) and queues them;
 * each worker pops a range, runs it with its own number as the worker
 * index, and counts the range done; finish sleeps until its task's count
 * reaches zero. The thread that steps the world only waits, so worker
 * indices stay 0 .. workers-1 and never repeat among running calls: that
 * is all throng asks of them.
 *
 * The order ranges leave the queue is a choice, so a test can check that a
 * step does not depend on it: first in first out (a plain queue), last in
 * first out (ranges run backwards), or shuffled.
 *
 * Header-only (static functions) so an example is one file; include it in
 * one translation unit. Link with -pthread.
 */
#ifndef THRONG_EXAMPLE_TASK_POOL_H
#define THRONG_EXAMPLE_TASK_POOL_H

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include <throng.h>

/* Ranges queued at once, and tasks in flight at once; an enqueue that
 * finds no room runs its task inline and returns NULL, as throng allows. */
#define TASK_POOL_MAX_RANGES 1024u
#define TASK_POOL_MAX_TASKS 8u
/* Ranges a task is cut into per worker: more than one, so a worker that
 * the OS deschedules holds up little. */
#define TASK_POOL_RANGES_PER_WORKER 4u

typedef enum task_pool_order {
    TASK_POOL_FIFO,
    TASK_POOL_LIFO,
    TASK_POOL_SHUFFLE,
} task_pool_order;

typedef struct task_pool_task {
    throng_task_fn *fn;
    void *context;
    uint32_t pending; /* ranges not yet finished; the slot is free at 0 */
    int used;
} task_pool_task;

typedef struct task_pool_range {
    task_pool_task *task;
    uint32_t begin, end;
} task_pool_range;

typedef struct task_pool {
    pthread_mutex_t lock;
    pthread_cond_t work; /* a range was queued, or the pool stops */
    pthread_cond_t done; /* a task's last range finished */
    pthread_t threads[64];
    uint32_t workers;
    task_pool_order order;
    uint64_t shuffle_state;
    int stop;
    task_pool_range queue[TASK_POOL_MAX_RANGES];
    uint32_t head, count; /* ring buffer */
    task_pool_task tasks[TASK_POOL_MAX_TASKS];
    /* Ranges each worker ran (read after the pool stops). */
    uint64_t ranges_run[64];
} task_pool;

typedef struct task_pool_worker {
    task_pool *pool;
    uint32_t index;
} task_pool_worker;

/* Takes the next range (the lock is held and the queue is not empty). */
static task_pool_range task_pool_pop(task_pool *p) {
    uint32_t at = 0; /* position from the head */
    if (p->order == TASK_POOL_LIFO) {
        at = p->count - 1u;
    } else if (p->order == TASK_POOL_SHUFFLE) {
        /* xorshift64: any range of the queue, chosen at random. */
        p->shuffle_state ^= p->shuffle_state << 13;
        p->shuffle_state ^= p->shuffle_state >> 7;
        p->shuffle_state ^= p->shuffle_state << 17;
        at = (uint32_t)(p->shuffle_state % p->count);
    }
    uint32_t slot = (p->head + at) % TASK_POOL_MAX_RANGES;
    task_pool_range r = p->queue[slot];
    /* The head's range fills the hole, then the head moves on. */
    p->queue[slot] = p->queue[p->head];
    p->head = (p->head + 1u) % TASK_POOL_MAX_RANGES;
    p->count--;
    return r;
}

static void *task_pool_main(void *arg) {
    task_pool_worker *self = arg;
    task_pool *p = self->pool;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->count == 0 && !p->stop)
            pthread_cond_wait(&p->work, &p->lock);
        if (p->count == 0)
            break; /* stopping, and nothing left */
        task_pool_range r = task_pool_pop(p);
        pthread_mutex_unlock(&p->lock);
        r.task->fn(r.begin, r.end, self->index, r.task->context);
        pthread_mutex_lock(&p->lock);
        p->ranges_run[self->index]++;
        if (--r.task->pending == 0)
            pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    free(self);
    return NULL;
}

/* Starts `workers` threads (1 .. 64). Returns 0, or -1 when a thread or
 * its memory could not be had (the pool is then stopped and released). */
static void task_pool_stop(task_pool *p);
static int task_pool_start(task_pool *p, uint32_t workers,
                           task_pool_order order, uint64_t seed) {
    if (workers < 1u || workers > 64u)
        return -1;
    *p = (task_pool){ .order = order, .shuffle_state = seed | 1u };
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    for (uint32_t w = 0; w < workers; w++) {
        task_pool_worker *self = malloc(sizeof *self);
        if (!self) {
            task_pool_stop(p);
            return -1;
        }
        self->pool = p;
        self->index = w;
        if (pthread_create(&p->threads[w], NULL, task_pool_main, self) != 0) {
            free(self);
            task_pool_stop(p);
            return -1;
        }
        p->workers = w + 1u;
    }
    return 0;
}

/* Lets the workers drain the queue, joins them and releases the pool. */
static void task_pool_stop(task_pool *p) {
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (uint32_t w = 0; w < p->workers; w++)
        pthread_join(p->threads[w], NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->lock);
}

/* throng_enqueue_task_fn: user_context is the pool. */
static void *task_pool_enqueue(throng_task_fn *fn, uint32_t item_count,
                               uint32_t min_range, void *context,
                               void *user_context) {
    task_pool *p = user_context;
    if (min_range < 1u)
        min_range = 1u;
    uint32_t ranges = item_count / min_range;
    uint32_t most = p->workers * TASK_POOL_RANGES_PER_WORKER;
    ranges = ranges > most ? most : ranges;
    ranges = ranges < 1u ? 1u : ranges;
    pthread_mutex_lock(&p->lock);
    task_pool_task *task = NULL;
    for (uint32_t t = 0; t < TASK_POOL_MAX_TASKS && !task; t++)
        if (!p->tasks[t].used)
            task = &p->tasks[t];
    if (!task || p->count + ranges > TASK_POOL_MAX_RANGES) {
        pthread_mutex_unlock(&p->lock);
        fn(0u, item_count, 0u, context); /* no room: run it here */
        return NULL;
    }
    *task = (task_pool_task){
        .fn = fn, .context = context, .pending = ranges, .used = 1
    };
    for (uint32_t r = 0; r < ranges; r++) {
        uint32_t slot = (p->head + p->count) % TASK_POOL_MAX_RANGES;
        p->queue[slot] = (task_pool_range){
            .task = task,
            .begin = (uint32_t)((uint64_t)item_count * r / ranges),
            .end = (uint32_t)((uint64_t)item_count * (r + 1u) / ranges)
        };
        p->count++;
    }
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    return task;
}

/* throng_finish_task_fn: waits for the task's last range. */
static void task_pool_finish(void *user_task, void *user_context) {
    task_pool *p = user_context;
    task_pool_task *task = user_task;
    pthread_mutex_lock(&p->lock);
    while (task->pending > 0)
        pthread_cond_wait(&p->done, &p->lock);
    task->used = 0;
    pthread_mutex_unlock(&p->lock);
}

#endif /* THRONG_EXAMPLE_TASK_POOL_H */
