/*
 * The parallel-for.
 *
 * Every parallel stage of a step is written as "for each chunk of rows, do
 * something that reads shared inputs and writes only that chunk's own
 * outputs". Nothing is scattered into shared memory by two threads and no
 * floating-point value is reduced across threads, so a stage computes the
 * same bits whatever the thread count and whichever thread took which chunk.
 * That is what lets the scheduler be dynamic: chunks are handed out one at a
 * time, so a thread that lands on a dense cluster of agents does not hold
 * the others up (flocks cluster; static halves would leave one core idle).
 * The only cross-thread sums are integer counters, which are exact in any
 * order.
 *
 * Without OpenMP (make OPENMP=0) the same chunks run in order on the calling
 * thread.
 */
#include "parallel.h"

#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

void parallel_for(int threads, uint32_t n, uint32_t grain, range_fn fn,
                  void *ctx) {
    if (n == 0)
        return;
    if (grain == 0)
        grain = 1;
    uint32_t chunks = (n - 1) / grain + 1;
#ifdef _OPENMP
    if (threads > 1 && chunks > 1) {
        /* Read by num_threads(), which the analyser cannot see. */
        /* NOLINTNEXTLINE(clang-analyzer-deadcode.DeadStores) */
        int team = threads < (int)chunks ? threads : (int)chunks;
#pragma omp parallel num_threads(team)
        {
            int thread = omp_get_thread_num();
#pragma omp for schedule(dynamic, 1)
            for (int64_t c = 0; c < (int64_t)chunks; c++) {
                uint32_t begin = (uint32_t)c * grain;
                uint32_t end = n - begin > grain ? begin + grain : n;
                fn(ctx, begin, end, thread);
            }
        }
        return;
    }
#else
    (void)threads;
#endif
    for (uint32_t c = 0; c < chunks; c++) {
        uint32_t begin = c * grain;
        uint32_t end = n - begin > grain ? begin + grain : n;
        fn(ctx, begin, end, 0);
    }
}

void parallel_rows(int threads, uint32_t n, uint32_t grain, range_fn fn,
                   void *ctx) {
    if (n == 0)
        return;
    uint32_t blocks = (uint32_t)(threads > 0 ? threads : 1);
    if (grain > 0 && n / grain < blocks)
        blocks = n / grain > 0 ? n / grain : 1;
#ifdef _OPENMP
    if (blocks > 1) {
#pragma omp parallel num_threads((int)blocks)
        {
            int thread = omp_get_thread_num();
            int team = omp_get_num_threads();
            /* The team may be smaller than asked; blocks follow it. */
            uint32_t begin = (uint32_t)((uint64_t)n * (uint64_t)thread / (uint64_t)team);
            uint32_t end = (uint32_t)((uint64_t)n * (uint64_t)(thread + 1) / (uint64_t)team);
            fn(ctx, begin, end, thread);
        }
        return;
    }
#endif
    fn(ctx, 0, n, 0);
}

void parallel_parts(int threads, uint32_t n, uint32_t parts, part_fn fn,
                    void *ctx) {
    if (parts == 0)
        return;
#ifdef _OPENMP
    if (threads > 1 && parts > 1) {
        /* NOLINTNEXTLINE(clang-analyzer-deadcode.DeadStores): as above */
        int team = threads < (int)parts ? threads : (int)parts;
#pragma omp parallel num_threads(team)
        {
            int thread = omp_get_thread_num();
#pragma omp for schedule(static, 1)
            for (int64_t p = 0; p < (int64_t)parts; p++) {
                uint32_t begin = (uint32_t)((uint64_t)n * (uint64_t)p / parts);
                uint32_t end =
                    (uint32_t)((uint64_t)n * (uint64_t)(p + 1) / parts);
                fn(ctx, (uint32_t)p, begin, end, thread);
            }
        }
        return;
    }
#else
    (void)threads;
#endif
    for (uint32_t p = 0; p < parts; p++) {
        uint32_t begin = (uint32_t)((uint64_t)n * p / parts);
        uint32_t end = (uint32_t)((uint64_t)n * (p + 1) / parts);
        fn(ctx, p, begin, end, 0);
    }
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
