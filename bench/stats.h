/* SPDX-License-Identifier: MIT */
/*
 * Statistics for the bench and its regression gate: medians, minima
 * and means, a one-sided Mann-Whitney U test, and the decision that
 * combines them.
 *
 * A configuration's samples are its per-repeat median ms per step. The gate
 * calls a configuration a regression only when both hold:
 *
 *   - its median is slower than the baseline's by more than a threshold
 *     (10% by default): small drifts are not worth a red build;
 *   - the rank test says the current samples are larger than the baseline's
 *     with p below alpha (0.05 by default): a shared machine's noise moves a
 *     median by more than 10% now and then, and a rank test needs most
 *     samples to agree before it believes the shift.
 *
 * The rank test makes no assumption about the shape of the noise (step
 * times are skewed, with a long slow tail), ignores how far an outlier is
 * from the rest, and with few samples is exact rather than asymptotic.
 */
#ifndef THRONG_BENCH_STATS_H
#define THRONG_BENCH_STATS_H

#include <stddef.h>

/* Up to this many samples in all, the U test enumerates its null
 * distribution exactly (ties included); beyond it, the normal approximation
 * with tie and continuity corrections is within a hair of exact. */
#define STATS_EXACT_MAX 60u

/* The median of count values (the mean of the middle two for an even
 * count); NaN when count is 0. The values are not reordered. */
double stats_median(const double *values, size_t count);

/* The smallest of count values; NaN when count is 0. */
double stats_min(const double *values, size_t count);

/* The mean of count values; NaN when count is 0. */
double stats_mean(const double *values, size_t count);

typedef struct stats_rank_test {
    /* U of the second sample: the number of (first, second) pairs in which
     * the second is larger, ties counting one half. */
    double u;
    /* One-sided p-values: that the second sample tends to be larger, and
     * that it tends to be smaller, than the first. */
    double p_greater;
    double p_less;
    /* The smallest p-value these sample sizes can give at all (1 over the
     * number of ways to split the pooled samples): with 3 and 3 samples it
     * is 0.05, so a test at 0.05 could never fire. */
    double p_floor;
    int exact; /* 1: enumerated, 0: normal approximation */
} stats_rank_test;

/* The Mann-Whitney U test of `second` against `first`. Returns 0, or -1
 * when a sample is empty, a value is not finite, or memory ran out. */
int stats_mann_whitney(const double *first, size_t first_count,
                       const double *second, size_t second_count,
                       stats_rank_test *out);

typedef struct stats_gate {
    double threshold; /* relative slowdown that matters, e.g. 0.10 */
    double alpha;     /* significance level of the rank test, e.g. 0.05 */
} stats_gate;

/* The defaults above. */
stats_gate stats_gate_default(void);

typedef enum stats_verdict {
    STATS_SAME,       /* within the threshold either way */
    STATS_FASTER,     /* faster by more than the threshold, significantly */
    STATS_NOISE,      /* beyond the threshold, but not significantly */
    STATS_REGRESSION, /* slower by more than the threshold, significantly */
    STATS_UNTESTED    /* slower by more than the threshold, and too few
                         samples for the test: failed on the ratio alone */
} stats_verdict;

typedef struct stats_comparison {
    double base_median; /* ms */
    double now_median;  /* ms */
    double ratio;       /* now / base: above 1 is slower */
    stats_rank_test test;
    stats_verdict verdict;
} stats_comparison;

/* Compares the current samples with the baseline's under the gate. Returns
 * 0, or -1 on the same errors as stats_mann_whitney or when the baseline
 * median is not positive. */
int stats_compare(const double *base, size_t base_count, const double *now,
                  size_t now_count, const stats_gate *gate,
                  stats_comparison *out);

/* Whether a verdict fails the gate. */
int stats_verdict_fails(stats_verdict verdict);

/* A few words for a verdict, for the report. */
const char *stats_verdict_name(stats_verdict verdict);

#endif /* THRONG_BENCH_STATS_H */
