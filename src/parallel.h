/*
 * The one place where OpenMP is used: a parallel-for over index ranges.
 */
#ifndef THRONG_PARALLEL_H
#define THRONG_PARALLEL_H

#include <stdint.h>

/* Processes rows [begin, end) on thread `thread` (0 .. threads-1). */
typedef void (*range_fn)(void *ctx, uint32_t begin, uint32_t end, int thread);

/* Splits [0, n) into chunks of `grain` rows (the last may be shorter) and
 * runs fn on every chunk, on up to `threads` threads. Each chunk's result
 * must depend only on its rows, never on which thread ran it or in which
 * order: then the outcome is the same for any thread count. */
void parallel_for(int threads, uint32_t n, uint32_t grain, range_fn fn,
                  void *ctx);

/* Splits [0, n) into one contiguous block per thread, thread t taking
 * block t, for streaming stages: the same thread then touches the same
 * rows in every such stage of a step (its caches already hold them), and
 * nothing needs balancing, every row costing the same. Grain is the
 * smallest block worth a thread. */
void parallel_rows(int threads, uint32_t n, uint32_t grain, range_fn fn,
                   void *ctx);

/* Processes part `part`, rows [begin, end). */
typedef void (*part_fn)(void *ctx, uint32_t part, uint32_t begin,
                        uint32_t end, int thread);

/* Splits [0, n) into exactly `parts` contiguous, nearly equal ranges (part
 * p is [n p / parts, n (p + 1) / parts)) and runs fn on each as above. Used
 * where the partition itself must be known (the sort's histograms). */
void parallel_parts(int threads, uint32_t n, uint32_t parts, part_fn fn,
                    void *ctx);

/* The OpenMP default thread count, or 1 without OpenMP. */
int parallel_default_threads(void);

/* Seconds on a monotonic clock. */
double parallel_now(void);

#endif /* THRONG_PARALLEL_H */
