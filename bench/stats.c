/* SPDX-License-Identifier: MIT */
/*
 * The regression gate's statistics (see stats.h for why these ones).
 *
 * The U test ranks the pooled samples, giving tied values the mean of the
 * ranks they span. Under the null hypothesis every way of choosing which
 * pooled values belong to the second sample is equally likely, so the
 * p-value is the share of those choices whose rank sum is at least (or at
 * most) the observed one. Doubled mid-ranks are whole numbers, so the
 * distribution of the rank sum is counted exactly by a small dynamic
 * programme over (values chosen, doubled sum), ties and all; the counts are
 * kept in doubles, which hold C(60, 30) to 16 digits and only feed ratios.
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_THRESHOLD 0.10
#define DEFAULT_ALPHA 0.05

static int compare_doubles(const void *pa, const void *pb) {
    double a = *(const double *)pa;
    double b = *(const double *)pb;
    return (a > b) - (a < b);
}

double stats_median(const double *values, size_t count) {
    if (count == 0) {
        return (double)NAN;
    }
    double *sorted = malloc(count * sizeof *sorted);
    if (sorted == NULL) {
        return (double)NAN;
    }
    memcpy(sorted, values, count * sizeof *sorted);
    qsort(sorted, count, sizeof *sorted, compare_doubles);
    double median = count % 2 == 1
                        ? sorted[count / 2]
                        : 0.5 * (sorted[count / 2 - 1] + sorted[count / 2]);
    free(sorted);
    return median;
}

double stats_min(const double *values, size_t count) {
    if (count == 0) {
        return (double)NAN;
    }
    double smallest = values[0];
    for (size_t i = 1; i < count; ++i) {
        smallest = values[i] < smallest ? values[i] : smallest;
    }
    return smallest;
}

double stats_mean(const double *values, size_t count) {
    if (count == 0) {
        return (double)NAN;
    }
    double sum = 0.0;
    for (size_t i = 0; i < count; ++i) {
        sum += values[i];
    }
    return sum / (double)count;
}

typedef struct pooled {
    double value;
    int second; /* 1 when the value came from the second sample */
} pooled;

static int compare_pooled(const void *pa, const void *pb) {
    return compare_doubles(&((const pooled *)pa)->value,
                           &((const pooled *)pb)->value);
}

/* Exact one-sided p-values from the distribution of the second sample's
 * doubled rank sum. ranks2 holds every pooled value's doubled mid-rank. */
static int exact_p(const unsigned *ranks2, size_t total, size_t second_count,
                   unsigned observed, stats_rank_test *out) {
    size_t max_sum = total * (total + 1); /* all doubled ranks together */
    size_t width = max_sum + 1;
    double *ways = calloc((second_count + 1) * width, sizeof *ways);
    if (ways == NULL) {
        return -1;
    }
    ways[0] = 1.0;
    for (size_t i = 0; i < total; ++i) {
        size_t rank = ranks2[i];
        size_t top = i + 1 < second_count ? i + 1 : second_count;
        /* Downwards in k, so each value is chosen at most once. */
        for (size_t k = top; k >= 1; --k) {
            double *row = ways + k * width;
            const double *previous = ways + (k - 1) * width;
            for (size_t s = max_sum; s >= rank; --s) {
                row[s] += previous[s - rank];
            }
        }
    }
    const double *last = ways + second_count * width;
    double all = 0.0, at_least = 0.0, at_most = 0.0;
    for (size_t s = 0; s <= max_sum; ++s) {
        all += last[s];
        at_least += s >= observed ? last[s] : 0.0;
        at_most += s <= observed ? last[s] : 0.0;
    }
    out->p_greater = at_least / all;
    out->p_less = at_most / all;
    out->p_floor = 1.0 / all;
    out->exact = 1;
    free(ways);
    return 0;
}

/* The normal approximation: U's mean n1 n2 / 2 and variance
 * n1 n2 / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1))) over tie groups of
 * size t, with a half-unit continuity correction. */
static void normal_p(size_t first_count, size_t second_count, double ties,
                     stats_rank_test *out) {
    double n1 = (double)first_count, n2 = (double)second_count;
    double total = n1 + n2;
    double mean = 0.5 * n1 * n2;
    double variance =
        n1 * n2 / 12.0 * ((total + 1.0) - ties / (total * (total - 1.0)));
    if (variance > 0.0) {
        double sd = sqrt(variance);
        double z_greater = (out->u - mean - 0.5) / sd;
        double z_less = (out->u - mean + 0.5) / sd;
        out->p_greater = 0.5 * erfc(z_greater / sqrt(2.0));
        out->p_less = 0.5 * erfc(-z_less / sqrt(2.0));
    } else {
        out->p_greater = 1.0; /* every value tied: no evidence either way */
        out->p_less = 1.0;
    }
    double log_ways = lgamma(total + 1.0) - lgamma(n1 + 1.0) - lgamma(n2 + 1.0);
    out->p_floor = exp(-log_ways);
    out->exact = 0;
}

int stats_mann_whitney(const double *first, size_t first_count,
                       const double *second, size_t second_count,
                       stats_rank_test *out) {
    if (first_count == 0 || second_count == 0) {
        return -1;
    }
    size_t total = first_count + second_count;
    pooled *pool = malloc(total * sizeof *pool);
    unsigned *ranks2 = malloc(total * sizeof *ranks2);
    if (pool == NULL || ranks2 == NULL) {
        free(pool);
        free(ranks2);
        return -1;
    }
    int status = 0;
    for (size_t i = 0; i < total; ++i) {
        int in_second = i >= first_count;
        pool[i].value = in_second ? second[i - first_count] : first[i];
        pool[i].second = in_second;
        if (!isfinite(pool[i].value)) {
            status = -1;
        }
    }
    if (status == 0) {
        qsort(pool, total, sizeof *pool, compare_pooled);
        /* A tie group at sorted positions begin..end-1 (ranks begin+1 ..
         * end) shares the doubled mid-rank begin + 1 + end. */
        unsigned observed = 0;
        double ties = 0.0;
        for (size_t begin = 0; begin < total;) {
            size_t end = begin + 1;
            while (end < total && pool[end].value == pool[begin].value) {
                ++end;
            }
            double size = (double)(end - begin);
            ties += size * size * size - size;
            for (size_t i = begin; i < end; ++i) {
                ranks2[i] = (unsigned)(begin + 1 + end);
                observed += pool[i].second ? ranks2[i] : 0u;
            }
            begin = end;
        }
        double n2 = (double)second_count;
        out->u = 0.5 * (double)observed - 0.5 * n2 * (n2 + 1.0);
        if (total <= STATS_EXACT_MAX) {
            status = exact_p(ranks2, total, second_count, observed, out);
        } else {
            normal_p(first_count, second_count, ties, out);
        }
    }
    free(pool);
    free(ranks2);
    return status;
}

stats_gate stats_gate_default(void) {
    stats_gate gate = { DEFAULT_THRESHOLD, DEFAULT_ALPHA };
    return gate;
}

int stats_compare(const double *base, size_t base_count, const double *now,
                  size_t now_count, const stats_gate *gate,
                  stats_comparison *out) {
    memset(out, 0, sizeof *out);
    if (stats_mann_whitney(base, base_count, now, now_count, &out->test) != 0) {
        return -1;
    }
    out->base_median = stats_median(base, base_count);
    out->now_median = stats_median(now, now_count);
    if (!(out->base_median > 0.0) || !isfinite(out->now_median)) {
        return -1;
    }
    out->ratio = out->now_median / out->base_median;
    int testable = out->test.p_floor <= gate->alpha;
    if (out->ratio > 1.0 + gate->threshold) {
        out->verdict = !testable                           ? STATS_UNTESTED
                       : out->test.p_greater < gate->alpha ? STATS_REGRESSION
                                                           : STATS_NOISE;
    } else if (out->ratio < 1.0 - gate->threshold) {
        out->verdict = testable && out->test.p_less < gate->alpha ? STATS_FASTER
                                                                  : STATS_NOISE;
    } else {
        out->verdict = STATS_SAME;
    }
    return 0;
}

int stats_verdict_fails(stats_verdict verdict) {
    return verdict == STATS_REGRESSION || verdict == STATS_UNTESTED;
}

const char *stats_verdict_name(stats_verdict verdict) {
    switch (verdict) {
    case STATS_SAME:
        return "ok";
    case STATS_FASTER:
        return "faster (update the baseline)";
    case STATS_NOISE:
        return "ok (shift not significant)";
    case STATS_REGRESSION:
        return "REGRESSION";
    case STATS_UNTESTED:
        return "REGRESSION (too few repeats to test)";
    }
    return "unknown";
}
