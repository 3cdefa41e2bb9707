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
 * - OpenMP (the default). Items are handed out one at a time
 *   (schedule(dynamic, 1)), so a thread that lands on a dense cluster of
 *   agents does not hold the others up: flocks cluster, and static halves
 *   would leave one core idle.
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
 * A shared machine. With OpenMP, each parallel region ends in a barrier
 * that waits for its slowest thread. When the machine has fewer free cores
 * than runnable threads (the host's own threads, a compiler, another
 * program), one of ours is sometimes descheduled for a whole time slice,
 * several milliseconds, longer than a step at 100k agents. A block fixed
 * to that thread stalls the whole team until the thread runs again, and
 * the threads waiting at the barrier spin first (libgomp spins for a long
 * while before it sleeps, and offers no way to change that once the
 * program runs), taking the cores the stalled thread needs. So here no
 * loop gives a thread a block of its own: every loop is cut into several
 * items per thread and handed out dynamically, so a stalled thread holds
 * up at most the one small item it was running, and the others take the
 * rest. What remains is the spin at the barrier, which only the program
 * can choose (OMP_WAIT_POLICY=passive), or avoid by running the step on
 * its own scheduler through the task hooks; see README.md.
 */
#include "parallel.h"

#include <stdatomic.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* parallel_rows cuts its range into this many blocks per thread (when the
 * grain allows), so a descheduled thread holds up one small block. */
#define PARALLEL_ROWS_BLOCKS_PER_THREAD 1u

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
    host_job h = {.job = j, .workers = (uint32_t)s->threads};
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

static void run_loop(parallel_sched *s, const loop_job *j) {
    if (j->items == 0 || s->failed)
        return;
    if (s->enqueue_task) {
        run_on_host(s, j);
        return;
    }
#ifdef _OPENMP
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
    loop_job j = {.rows = fn, .ctx = ctx, .n = n, .grain = grain,
                  .items = (n - 1) / grain + 1};
    run_loop(s, &j);
}

void parallel_rows(parallel_sched *s, uint32_t n, uint32_t grain, range_fn fn,
                   void *ctx) {
    if (n == 0)
        return;
    /* Several blocks per thread (see the top of the file); one thread
     * takes the whole range as one block. */
    uint32_t threads = (uint32_t)(s->threads > 0 ? s->threads : 1);
    uint32_t blocks =
        threads > 1 ? threads * PARALLEL_ROWS_BLOCKS_PER_THREAD : 1u;
    if (grain > 0 && n / grain < blocks)
        blocks = n / grain > 0 ? n / grain : 1;
    loop_job j = {.rows = fn, .ctx = ctx, .n = n, .items = blocks};
    run_loop(s, &j);
}

void parallel_parts(parallel_sched *s, uint32_t n, uint32_t parts, part_fn fn,
                    void *ctx) {
    loop_job j = {.part = fn, .ctx = ctx, .n = n, .items = parts};
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
