/* SPDX-License-Identifier: MIT */
/*
 * Running throng-bench's configurations: each (scenario, agents, threads)
 * for every repeat, timed step by step, then measured for quality; the
 * progress bar; the processes --busy starts; the checks after the run.
 */
#ifndef THRONG_BENCH_RUN_H
#define THRONG_BENCH_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "options.h"
#include "quality.h"

/* What one configuration measured. */
typedef struct result {
    const scenario *sc;
    uint32_t agents;
    int threads;           /* requested */
    uint32_t threads_used; /* reported by the last step */
    uint64_t iterations;   /* counted steps over all repeats */
    uint64_t steps_run;    /* warm-up and counted steps of the last repeat
                            * (fewer than asked when --until-arrived
                            * stopped it) */
    double ms_median;
    double ms_min;
    /* The mean ms per step: where some ticks cost more than the rest
     * (neighbour lists rebuilt every few ticks, navigation fields
     * recounted), what the median passes over. */
    double ms_mean;
    double ns_per_agent_step;
    double neighbours_per_agent;
    double candidates_per_agent;
    double bytes_per_agent;
    double grid_ms;
    double behaviour_ms;
    double integrate_ms;
    char simd[32];
    uint64_t state_hash; /* after the last repeat */
    uint64_t nan_count;  /* agents with a non-finite position or velocity */
    bool repeats_agree;  /* every repeat ended with the same hash */
    double *repeat_ms;   /* each repeat's median ms per step */
    uint32_t repeat_count;
    quality q;         /* the last repeat's final state */
    double quality_ms; /* what measuring it cost (not in any timing) */
    /* q judged against the scene's pass ranges (quality_judge): the
     * figures outside, and "ok" or "OUT: pol,..." */
    unsigned out_of_range;
    char check[48];
    /* ms_median / flock2d's ms_median at the same agents and threads in
     * the same run; NaN when flock2d did not run there (result_ratios). */
    double flock2d_ratio;
    /* --record: what the recorder cost. record() on the stepping thread
     * per counted step (median, mean, max ms, over every repeat; the
     * steps it does not record cost a few ns), its copying and waiting
     * in all; the writer's figures and the close (draining the queue and
     * checkpointing) of the last repeat. */
    bool recorded;
    double record_ms_median, record_ms_mean, record_ms_max;
    double record_copy_ms, record_wait_ms;
    uint64_t record_frames, record_rows;
    double writer_ms_per_frame;
    double record_close_ms;
    /* throng-mpi-bench's figures of a distributed run (ranks 0 in
     * throng-bench's results): the ranks, weak scaling (--per-rank) or
     * strong, the agents per rank and the most on one, the median
     * step's communication time (the slowest rank's), the ranks' mean
     * ghosts, bytes and messages sent per step, the bytes a ghost or
     * migrant costs, and with --compare the same crowd's median ms per
     * step in one process (NaN without). */
    struct {
        uint32_t ranks;
        bool weak;
        double agents_per_rank, most_on_a_rank;
        double comm_ms;
        double ghosts_per_rank, bytes_sent_per_rank, messages_per_rank;
        uint32_t bytes_per_ghost;
        double single_ms;
    } dist;
} result;

/* Per-step samples of one configuration; sized once for steps x repeats. */
typedef struct samples {
    size_t capacity;
    double *step_ms;
    double *grid_ms;
    double *behaviour_ms;
    double *integrate_ms;
    double *record_ms; /* --record: record() per counted step */
} samples;

bool samples_init(samples *s, size_t capacity);
void samples_free(samples *s);

/* A one-line bar on stderr, redrawn in place, only when stderr is a
 * terminal (a log file or a pipe gets no carriage returns). It is drawn
 * between steps, never inside a timed one, and at most every
 * PROGRESS_INTERVAL_MS. */
typedef struct progress {
    bool enabled;
    bool drawn;     /* a bar is on the line now */
    uint64_t total; /* steps of the whole run, warm-up included */
    uint64_t done;
    size_t config; /* 1-based, of config_count */
    size_t config_count;
    uint32_t repeat; /* 1-based */
    uint32_t repeats;
    char name[128];
    struct timespec last;
} progress;

/* Wipes the bar so a table row can be printed on a clean line. */
void progress_clear(progress *p);

/* "flock2d/10000/threads:2", the configuration's name everywhere. */
void config_name(const scenario *sc, uint32_t agents, int threads, char *buffer,
                 size_t size);

/* Runs one configuration for all repeats into *out (whose repeat_ms must
 * hold opt->repeats values). Returns 0, or EXIT_FAILED after printing what
 * the library refused. */
int run_config(const options *opt, const scenario *sc, uint32_t agents,
               int threads, samples *s, quality_snapshot *snap, progress *bar,
               result *out);

/* The scene every behaviour scene's time is compared with. */
#define RATIO_SCENARIO "flock2d"

/* Sets each of the first `count` results' flock2d_ratio from the
 * RATIO_SCENARIO result with the same agents and threads among them. */
void result_ratios(result *results, size_t count);

/* Reports on stderr every configuration whose quality left a pass range
 * of its scene. Returns how many did. */
size_t check_ranges(const result *results, size_t count);

/* Reports on stderr every configuration whose state went non-finite or
 * differed between repeats, and every (scenario, agents) whose thread
 * counts disagree. Returns the number of problems. */
size_t check_results(const result *results, size_t count);

/* Reads THRONG_SIMD (through the scenarios, which build every world with
 * it) before anything runs: a name that is no path is a usage error, a
 * path this CPU or build lacks gets its own exit status. On success *run
 * is the path the worlds will run. */
int simd_check(throng_simd *run);

/* --busy: starts `count` child processes that spin until busy_stop;
 * returns how many started. */
uint32_t busy_start(uint32_t count, pid_t *pids);
void busy_stop(uint32_t count, const pid_t *pids);

#endif /* THRONG_BENCH_RUN_H */
