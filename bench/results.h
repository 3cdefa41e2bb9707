/* SPDX-License-Identifier: MIT */
/*
 * Reading, merging and writing throng-bench's JSON results, for the
 * regression gate (bench/compare.c) and its tests.
 *
 * The reader is a small but complete JSON parser, so fields added to the
 * bench's output later (nested or not) are skipped rather than breaking
 * it. From each entry of "benchmarks" it keeps what the gate needs: the
 * configuration (scenario, agents, threads, steps, warm-up) and the
 * samples, one per repeat. The samples are the entry's "repeat_ms" array
 * when it has one (each repeat's median ms per step), else its
 * "ms_per_step_median" as a single sample, so several runs of one repeat
 * each merge into the same shape as one run of many repeats. Entries whose
 * "run_type" is "aggregate" (Google Benchmark's mean/median rows) are
 * summaries, not samples, and are skipped.
 */
#ifndef THRONG_BENCH_RESULTS_H
#define THRONG_BENCH_RESULTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RESULTS_NAME_MAX 128u
#define RESULTS_TEXT_MAX 128u

typedef struct results_entry {
    char name[RESULTS_NAME_MAX];     /* "flock2d/10000/threads:1" */
    char scenario[RESULTS_NAME_MAX]; /* "flock2d" */
    uint32_t agents;
    uint32_t threads;
    uint32_t steps;
    uint32_t warmup;
    double min_ms;   /* smallest step time seen, ms; NaN when absent */
    double *samples; /* per-repeat median ms per step */
    size_t sample_count;
} results_entry;

typedef struct results_file {
    /* From "context", empty when absent. */
    char cpu_model[RESULTS_TEXT_MAX];
    char simd[RESULTS_TEXT_MAX];      /* the kernel path that ran */
    char simd_best[RESULTS_TEXT_MAX]; /* the widest the CPU offered */
    char compiler[RESULTS_TEXT_MAX];
    char machine[RESULTS_TEXT_MAX]; /* written by the gate, not the bench */
    results_entry *entries;
    size_t count;
} results_file;

/* Parses JSON text of the bench's shape into out (which the caller frees
 * with results_free, also after a failure). Returns 0, or -1 with a
 * sentence in error ("line 3: expected ':' after a key"). */
int results_parse(const char *text, size_t length, results_file *out,
                  char *error, size_t error_size);

/* results_parse on a whole file; "-" reads stdin. */
int results_read(const char *path, results_file *out, char *error,
                 size_t error_size);

void results_free(results_file *file);

/* The entry with this name; NULL when there is none. */
const results_entry *results_find(const results_file *file, const char *name);

/* Appends the samples of every entry of `from` to the entry of the same
 * name in `into`, adding the entry when it is new; the context of `into`
 * is filled from `from` where empty. Returns 0, or -1 when memory ran out
 * or a name's configuration differs between the two. */
int results_merge(results_file *into, const results_file *from, char *error,
                  size_t error_size);

/* Writes the file as JSON in the bench's shape, every entry with its
 * median, minimum and "repeat_ms" samples, so results_parse reads it back.
 * Returns 0, or -1 on a write error. */
int results_write(FILE *out, const results_file *file);

#endif /* THRONG_BENCH_RESULTS_H */
