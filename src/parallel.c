/* SPDX-License-Identifier: MIT */
/*
 * The parallel-for.
 *
 * Every parallel stage of a step is written as "for each item, do something
 * that reads shared inputs and writes only that item's own outputs", where
 * an item is a fixed range of rows (a chunk of the flock kernel, a block of
 * the integration) or a fixed part of a partition (a histogram row of the
 * grid's sort). Nothing is scattered into shared memory by two threads and
 * no floating-point value is reduced across threads, so a stage computes
 * the same bits whatever the thread count, whichever thread took which item
 * and in whatever order the items ran. The only cross-thread sums are
 * integer counters, kept per thread and added after the loop, which are
 * exact in any order.
 *
 * That one rule is what lets three schedulers run the same loops:
 *
 * - OpenMP (the default). Items are handed out one at a time, so a thread
 *   that lands on a dense cluster of agents does not hold the others up:
 *   flocks cluster, and static halves would leave one core idle. A step's
 *   loops share one parallel region (a session, below); a loop outside
 *   one (a query rebuilding the grid) is a region of its own with
 *   schedule(dynamic, 1).
 * - The host's task hooks (throng_world_def.enqueue_task, finish_task): a
 *   game with its own job system gets each loop as one task over
 *   [0, items), split however its scheduler likes, run on its workers in
 *   any order, and waited for before the next stage. The worker index it
 *   passes plays the part of the OpenMP thread number, so per-thread
 *   counters stay race-free. A host that breaks the contract (an item run
 *   twice or not at all, a worker index out of range) is caught by
 *   counting items and checking the index: the scheduler is marked failed,
 *   the rest of the step does nothing and the step is refused.
 * - Serial: one thread, a build without OpenMP and no hooks, or a loop of
 *   one item. The same items run in order on the calling thread.
 *
 * Only the number of items is decided here, never their contents' result:
 * parallel_for's chunks are fixed by the caller's grain, parallel_parts'
 * partition by the caller's part count, and parallel_rows' blocks may be
 * anything, each row being independent.
 *
 * A shared machine. A game runs its own threads beside the step, and a
 * developer's machine compiles while it runs: often there are fewer free
 * cores than runnable threads. Then one of ours is now and then
 * descheduled for a whole time slice (milliseconds, longer than a step at
 * 100k agents), and everything that waits for it waits that long. With an
 * OpenMP region per loop, every step had half a dozen such waits (each
 * region ends in a barrier that needs every thread of the team to run),
 * and libgomp's waiting threads spin before they sleep (for a long while,
 * and no call changes that once the program runs: OMP_WAIT_POLICY and
 * GOMP_SPINCOUNT are read at start-up), taking the very core the late
 * thread needs. Measured on 2 cores with one busy process beside it, a
 * 100k-agent flock on 2 threads took several times as long as on one.
 * Three things answer it:
 *
 * - One region per step (parallel_session). The step's body runs on
 *   thread 0 while the others wait for loops posted to the team; a loop's
 *   items are claimed one at a time, and thread 0 returns as soon as every
 *   item has finished, without waiting for threads that never woke up to
 *   claim one. Only the session's end needs the whole team.
 * - Items handed out one at a time in every loop, several per thread in
 *   the flock kernel's, so a thread descheduled in the middle of one holds
 *   up only that item (parallel_rows keeps one block per thread: see
 *   there).
 * - Our own waits spin briefly (PARALLEL_SPIN, a few hundred microseconds,
 *   enough to bridge the serial moments between the loops of a step), then
 *   sleep on a condition variable, giving the core back.
 *
 * What remains is a wait at the session's end for a thread that is not
 * running, and it is not small on a busy machine. So the world keeps a
 * tuner: thread 0 measures how long it waited for the others against how
 * long it worked. When waiting costs more than half the work, step after
 * step, the team is losing to one thread, and the world steps on one
 * thread (no region at all) for a while, then tries the team again,
 * backing off further each time it is still losing. The result does not
 * change (it never depends on the thread count), only who computes it;
 * throng_step_stats.threads says how many did. A program that wants full
 * control gives the step to its own scheduler through the task hooks.
 */
#include "parallel.h"
#include "check.h"

#include <stdatomic.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#include <pthread.h>
#endif

/* Checks a waiting thread makes before it sleeps: long enough to bridge
 * the serial moments between the loops of a step on a quiet machine
 * (about 250 microseconds of pauses on the development machine), short
 * enough that a thread waiting on a
 * descheduled one soon gives its core back. */
#define PARALLEL_SPIN 4000

/* A session below this many rows forms no team: no loop splits there
 * (the flock kernel's chunks are at least 1024 rows). */
#define PARALLEL_SESSION_MIN_ROWS 2048u

/* The tuner. Thread 0's waiting (for items still running elsewhere when
 * it has none left, and for the region's fork and join) over its working
 * time is followed as a running mean with this weight per step; above
 * PARALLEL_TUNER_BAD the team loses more than it gains (a quiet machine
 * stays below 0.1), and the world steps on one thread for SOLO_MIN steps,
 * then twice as many after each probe that finds the team still bad, up
 * to SOLO_MAX: a probe on a busy machine then costs about one step in
 * 256. */
#define PARALLEL_TUNER_WEIGHT 0.25
#define PARALLEL_TUNER_BAD 0.5
#define PARALLEL_TUNER_CLAMP 2.0
#define PARALLEL_TUNER_SOLO_MIN 8u
#define PARALLEL_TUNER_SOLO_MAX 256u

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ __volatile__("yield")
#else
#define cpu_relax() ((void)0)
#endif

/* One loop as items: item i covers rows [i grain, (i + 1) grain) when
 * `grain` is nonzero, else [n i / items, n (i + 1) / items). Exactly one
 * of rows and part is set. */
typedef struct loop_job {
    range_fn rows;
    part_fn part;
    void *ctx;
    uint32_t n;
    uint32_t items;
    uint32_t grain;
} loop_job;

static void run_item(const loop_job *j, uint32_t item, int thread) {
    uint32_t begin, end;
    if (j->grain > 0) {
        begin = item * j->grain;
        end = j->n - begin > j->grain ? begin + j->grain : j->n;
    } else {
        begin = (uint32_t)((uint64_t)j->n * item / j->items);
        end = (uint32_t)((uint64_t)j->n * (item + 1u) / j->items);
    }
    /* The items tile [0, n): each within it, on a thread of the
     * scheduler (per-thread counters are indexed by it). */
    INVARIANT(item < j->items, "an item of the loop");
    INVARIANT(begin <= end && end <= j->n, "an item's rows lie in [0, n)");
    INVARIANT(thread >= 0 && thread < THRONG_MAX_WORKERS,
              "a loop body's thread below the most workers");
    if (j->part)
        j->part(j->ctx, item, begin, end, thread);
    else
        j->rows(j->ctx, begin, end, thread);
}

/* A loop handed to the host: the job, and what the task calls report. */
typedef struct host_job {
    const loop_job *job;
    uint32_t workers;
    atomic_uint_fast32_t done; /* items run */
    atomic_int bad;            /* a call broke the contract */
} host_job;

static void host_task(uint32_t begin, uint32_t end, uint32_t worker,
                      void *task_context) {
    host_job *h = task_context;
    if (worker >= h->workers || begin > end || end > h->job->items) {
        atomic_store_explicit(&h->bad, 1, memory_order_relaxed);
        return;
    }
    for (uint32_t item = begin; item < end; item++)
        run_item(h->job, item, (int)worker);
    atomic_fetch_add_explicit(&h->done, end - begin, memory_order_relaxed);
}

static void run_on_host(parallel_sched *s, const loop_job *j) {
    host_job h = { .job = j, .workers = (uint32_t)s->threads };
    atomic_init(&h.done, 0);
    atomic_init(&h.bad, 0);
    /* Items are already at least one grain of rows (or one part), so any
     * range of them is worth a worker. */
    void *task = s->enqueue_task(host_task, j->items, 1u, &h, s->user_context);
    if (task)
        s->finish_task(task, s->user_context);
    /* finish_task (or enqueue_task's return, when it ran the items
     * itself) orders every call before this point. */
    if (atomic_load_explicit(&h.bad, memory_order_relaxed) ||
        atomic_load_explicit(&h.done, memory_order_relaxed) != j->items)
        s->failed = 1;
}

#ifdef _OPENMP
/* The team of a session: the calling thread (thread 0) runs the session's
 * body and posts each loop here; the other threads wait for a loop, claim
 * its items one at a time and go back to waiting. */
struct parallel_team {
    /* The current loop and the end of the session, written by thread 0
     * before it bumps the generation, read by the others after they see
     * it move. A read-write lock: the readers never wait for each other,
     * and thread 0 has released it before anyone looks. */
    pthread_rwlock_t job_lock;
    loop_job job;
    int quit;
    /* Bumped for each loop posted and at the end (sequentially
     * consistent, as is `sleepers`: a thread about to sleep counts
     * itself, then looks at the generation; thread 0 bumps it, then
     * looks at the count, so one of the two sees the other). */
    atomic_uint_fast32_t generation;
    atomic_int sleepers;  /* threads asleep (or going to sleep) on `wake` */
    pthread_mutex_t lock; /* for the two condition variables */
    pthread_cond_t wake;  /* a loop was posted, or the session ends */
    pthread_cond_t idle;  /* the last item of the loop finished */
    /* The generation (high half) and the next item to claim (low half):
     * one word, so a thread still busy with an older loop can never
     * claim an item of a newer one. */
    atomic_uint_fast64_t claim;
    atomic_uint_fast32_t done; /* items of the current loop finished */
    atomic_int waiting;        /* the caller sleeps on `idle` */
    double waited;             /* seconds thread 0 waited, all loops */
};

/* Spins a while, then gives up: returns when ready(arg) or after
 * PARALLEL_SPIN checks. */
static int spin_until(int (*ready)(const struct parallel_team *, uint32_t),
                      const struct parallel_team *t, uint32_t value) {
    for (int k = 0; k < PARALLEL_SPIN; k++) {
        if (ready(t, value))
            return 1;
        cpu_relax();
    }
    return ready(t, value);
}

static int generation_moved(const struct parallel_team *t, uint32_t seen) {
    return (uint32_t)atomic_load_explicit(&t->generation,
                                          memory_order_acquire) != seen;
}

static int loop_done(const struct parallel_team *t, uint32_t items) {
    return (uint32_t)atomic_load(&t->done) == items;
}

/* Claims and runs items of the loop of generation `gen` until none are
 * left. */
static void team_work(struct parallel_team *t, const loop_job *j, uint32_t gen,
                      int thread) {
    uint_fast64_t c = atomic_load(&t->claim);
    for (;;) {
        if ((uint32_t)(c >> 32) != gen || (uint32_t)c >= j->items)
            return;
        if (!atomic_compare_exchange_weak(&t->claim, &c, c + 1u))
            continue; /* c now holds the current word */
        run_item(j, (uint32_t)c, thread);
        uint32_t finished = (uint32_t)atomic_fetch_add(&t->done, 1u) + 1u;
        /* The caller is only woken when it went to sleep; it sets
         * `waiting` before it looks at `done` one last time, so one of
         * the two sees the other (both are sequentially consistent). */
        if (finished == j->items && atomic_load(&t->waiting)) {
            pthread_mutex_lock(&t->lock);
            pthread_cond_broadcast(&t->idle);
            pthread_mutex_unlock(&t->lock);
        }
        c = atomic_load(&t->claim);
    }
}

/* Wakes the threads asleep on `wake`, if any (after a bump). */
static void team_wake(struct parallel_team *t) {
    if (atomic_load(&t->sleepers) == 0)
        return;
    pthread_mutex_lock(&t->lock);
    pthread_cond_broadcast(&t->wake);
    pthread_mutex_unlock(&t->lock);
}

/* A thread of the team other than the caller: serves loops until the
 * session ends. */
static void team_serve(struct parallel_team *t, int thread) {
    uint32_t seen = 0;
    for (;;) {
        if (!spin_until(generation_moved, t, seen)) {
            pthread_mutex_lock(&t->lock);
            atomic_fetch_add(&t->sleepers, 1);
            while ((uint32_t)atomic_load(&t->generation) == seen)
                pthread_cond_wait(&t->wake, &t->lock);
            atomic_fetch_sub(&t->sleepers, 1);
            pthread_mutex_unlock(&t->lock);
        }
        pthread_rwlock_rdlock(&t->job_lock);
        seen = (uint32_t)atomic_load(&t->generation);
        loop_job j = t->job;
        int quit = t->quit;
        pthread_rwlock_unlock(&t->job_lock);
        if (quit)
            return;
        team_work(t, &j, seen, thread);
    }
}

/* Posts a loop to the team, takes part in it and returns when every item
 * has finished. */
static void team_run(struct parallel_team *t, const loop_job *j) {
    pthread_rwlock_wrlock(&t->job_lock);
    uint32_t gen = (uint32_t)atomic_load(&t->generation) + 1u;
    t->job = *j;
    atomic_store(&t->done, 0u);
    atomic_store(&t->claim, (uint_fast64_t)gen << 32);
    pthread_rwlock_unlock(&t->job_lock);
    atomic_store(&t->generation, gen);
    team_wake(t);
    team_work(t, j, gen, 0);
    if (loop_done(t, j->items))
        return;
    double start = parallel_now();
    if (spin_until(loop_done, t, j->items)) {
        t->waited += parallel_now() - start;
        return;
    }
    pthread_mutex_lock(&t->lock);
    atomic_store(&t->waiting, 1);
    while (!loop_done(t, j->items))
        pthread_cond_wait(&t->idle, &t->lock);
    atomic_store(&t->waiting, 0);
    pthread_mutex_unlock(&t->lock);
    t->waited += parallel_now() - start;
}

static void team_quit(struct parallel_team *t) {
    pthread_rwlock_wrlock(&t->job_lock);
    t->quit = 1;
    pthread_rwlock_unlock(&t->job_lock);
    atomic_fetch_add(&t->generation, 1u);
    team_wake(t);
}

/* Whether this session forms its team: not while the tuner has the world
 * on one thread. */
static int tuner_admits(parallel_tuner *tu) {
    if (!tu || tu->pinned)
        return 1;
    if (tu->solo_left > 0) {
        if (--tu->solo_left == 0)
            tu->probing = 1;
        return 0;
    }
    return 1;
}

/* Learns from a session of the team: thread 0 worked `work` seconds and
 * waited `wait` seconds for the others (loops' ends, the region's fork
 * and join). */
static void tuner_learn(parallel_tuner *tu, double work, double wait) {
    if (!tu)
        return;
    /* Clamped, so one stalled step alone (a page fault, a burst of other
     * work) does not turn the team off: it takes two in a row. */
    double ratio = work > 0.0 ? wait / work : PARALLEL_TUNER_CLAMP;
    ratio = ratio < PARALLEL_TUNER_CLAMP ? ratio : PARALLEL_TUNER_CLAMP;
    if (tu->probing) {
        /* One probe decides: a bad one sends the world back to one thread
         * for twice as long as before, a good one starts afresh. */
        tu->probing = 0;
        tu->waste = ratio;
    } else {
        tu->waste += PARALLEL_TUNER_WEIGHT * (ratio - tu->waste);
        if (!(tu->waste > PARALLEL_TUNER_BAD))
            return;
    }
    if (!(tu->waste > PARALLEL_TUNER_BAD)) {
        tu->backoff = 0;
        return;
    }
    tu->backoff = tu->backoff == 0 ? PARALLEL_TUNER_SOLO_MIN
                  : tu->backoff < PARALLEL_TUNER_SOLO_MAX ? 2u * tu->backoff
                                                          : tu->backoff;
    tu->solo_left = tu->backoff;
    tu->waste = 0.0;
}

#endif

void parallel_session(parallel_sched *s, uint32_t rows,
                      void (*body)(parallel_sched *, void *), void *arg) {
#ifdef _OPENMP
    if (!s->enqueue_task && s->threads > 1 && !s->team &&
        rows >= PARALLEL_SESSION_MIN_ROWS) {
        if (!tuner_admits(s->tuner)) {
            /* On one thread for now: the loops see a scheduler of one. */
            int threads = s->threads;
            s->threads = 1;
            body(s, arg);
            s->threads = threads;
            return;
        }
        struct parallel_team t = { .quit = 0 };
        double start = parallel_now(), body_start = start, body_end = start;
        pthread_rwlock_init(&t.job_lock, NULL);
        pthread_mutex_init(&t.lock, NULL);
        pthread_cond_init(&t.wake, NULL);
        pthread_cond_init(&t.idle, NULL);
        atomic_init(&t.generation, 0u);
        atomic_init(&t.claim, 0u);
        atomic_init(&t.done, 0u);
        atomic_init(&t.waiting, 0);
        atomic_init(&t.sleepers, 0);
#pragma omp parallel num_threads(s->threads)
        {
            int thread = omp_get_thread_num();
            if (thread == 0) {
                s->team = &t;
                body_start = parallel_now();
                body(s, arg);
                body_end = parallel_now();
                s->team = NULL;
                team_quit(&t);
            } else {
                team_serve(&t, thread);
            }
        }
        double end = parallel_now();
        pthread_cond_destroy(&t.idle);
        pthread_cond_destroy(&t.wake);
        pthread_mutex_destroy(&t.lock);
        pthread_rwlock_destroy(&t.job_lock);
        tuner_learn(s->tuner, body_end - body_start - t.waited,
                    t.waited + (body_start - start) + (end - body_end));
        return;
    }
#else
    (void)rows;
#endif
    body(s, arg);
}

static void run_loop(parallel_sched *s, const loop_job *j) {
    INVARIANT((j->rows == NULL) != (j->part == NULL),
              "a loop runs rows or parts, not both");
    INVARIANT(s->threads >= 1, "a scheduler has at least one thread");
    if (j->items == 0 || s->failed)
        return;
    if (s->enqueue_task) {
        run_on_host(s, j);
        return;
    }
#ifdef _OPENMP
    if (s->team) {
        if (j->items > 1)
            team_run(s->team, j);
        else
            run_item(j, 0u, 0);
        return;
    }
    if (s->threads > 1 && j->items > 1) {
        /* Read by num_threads(), which the analyser cannot see. */
        /* NOLINTNEXTLINE(clang-analyzer-deadcode.DeadStores) */
        int team = (uint32_t)s->threads < j->items ? s->threads : (int)j->items;
#pragma omp parallel num_threads(team)
        {
            int thread = omp_get_thread_num();
#pragma omp for schedule(dynamic, 1)
            for (int64_t item = 0; item < (int64_t)j->items; item++)
                run_item(j, (uint32_t)item, thread);
        }
        return;
    }
#endif
    for (uint32_t item = 0; item < j->items; item++)
        run_item(j, item, 0);
}

void parallel_for(parallel_sched *s, uint32_t n, uint32_t grain, range_fn fn,
                  void *ctx) {
    if (n == 0)
        return;
    if (grain == 0)
        grain = 1;
    loop_job j = { .rows = fn,
                   .ctx = ctx,
                   .n = n,
                   .grain = grain,
                   .items = (n - 1) / grain + 1 };
    run_loop(s, &j);
}

void parallel_rows(parallel_sched *s, uint32_t n, uint32_t grain, range_fn fn,
                   void *ctx) {
    if (n == 0)
        return;
    /* One block per thread. Four would let the others take over more of
     * a descheduled thread's share, but cost 3% of a quiet 100k-agent
     * step on 2 threads (the grid's gather, 0.43 -> 0.48 ms: a block no
     * longer stays with the thread whose caches hold its rows from the
     * sort); the tuner is the answer to stalls. */
    uint32_t blocks = (uint32_t)(s->threads > 0 ? s->threads : 1);
    if (grain > 0 && n / grain < blocks)
        blocks = n / grain > 0 ? n / grain : 1;
    loop_job j = { .rows = fn, .ctx = ctx, .n = n, .items = blocks };
    run_loop(s, &j);
}

void parallel_parts(parallel_sched *s, uint32_t n, uint32_t parts, part_fn fn,
                    void *ctx) {
    INVARIANT(parts >= 1 || n == 0, "rows are split into at least one part");
    loop_job j = { .part = fn, .ctx = ctx, .n = n, .items = parts };
    run_loop(s, &j);
}

int parallel_default_threads(void) {
#ifdef _OPENMP
    int t = omp_get_max_threads();
    return t > 0 ? t : 1;
#else
    return 1;
#endif
}

double parallel_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
