/* SPDX-License-Identifier: MIT */
/*
 * throng-bench's command line: what a run is asked to do (the sweep,
 * the outputs, the modes --help, --list and --machine), read from argv
 * through the option table in options.c, which also prints --help.
 *
 * Also here, as every part of the bench uses them: the program's name in
 * messages and its exit statuses.
 */
#ifndef THRONG_BENCH_OPTIONS_H
#define THRONG_BENCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "scenarios.h"

#define PROGRAM "throng-bench"

/* Exit statuses: 1 when the library refused something or a check failed,
 * 2 when the command line was wrong, 3 when THRONG_SIMD names a path this
 * CPU or build lacks (a distinct code, so bench/perf_check.sh can skip
 * such a configuration rather than fail). */
#define EXIT_FAILED 1
#define EXIT_USAGE CLI_EXIT_USAGE
#define EXIT_UNSUPPORTED 3

/* The most --busy processes. */
#define MAX_BUSY 64

/* One --scenario item: a scenario and, with NAME@N+N, its own agent
 * counts (NULL: the --agents list). */
typedef struct scenario_entry {
    const scenario *sc;
    uint32_t *agents;
    size_t agent_count;
} scenario_entry;

typedef struct options {
    scenario_entry *scenarios;
    size_t scenario_count;
    uint32_t *agents;
    size_t agent_count;
    int *threads;
    size_t thread_count;
    uint32_t steps;
    uint32_t warmup;
    uint32_t repeats;
    uint64_t seed;
    uint32_t busy;         /* CPU-bound processes to run beside the steps */
    const char *json_path; /* NULL: no JSON; "-": stdout */
    const char *csv_path;  /* NULL: no CSV; "-": stdout */
    const char *plot_path; /* NULL: no SVG; "-": stdout */
    /* --record FILE: the one configuration's counted steps are recorded
     * to FILE (a JuPedSim trajectory file, throng_recorder), every
     * record_every-th step; NULL: no recording. */
    const char *record_path;
    uint32_t record_every;
    bool quiet;
    bool stable_columns; /* throng_world_set_stable_columns on each world */
    bool until_arrived;  /* a goal scene's repeat ends when all arrived */
    bool list;
    bool help;
    bool machine;
    /* --set NAME=VALUE[,...]: each option's text, copied and split in
     * place; the names in it are what scenario_set_param() holds. */
    char *set_text[SCENARIO_MAX_SET];
    size_t set_text_count;
} options;

/* Fills opt with the defaults, then what argv asks. Returns 0, EXIT_USAGE
 * after printing one line, or EXIT_FAILED when memory ran out; opt is to
 * be freed with options_free in every case. */
int options_parse(int argc, char **argv, options *opt);

void options_free(options *opt);

/* The --help text. */
void options_print_help(FILE *out);

/* One usage error line on stderr, "throng-bench: ... (see --help)". */
void usage_error(const char *format, ...) CLI_PRINTF_LIKE(1, 2);

/* The agent counts --scenario entry `entry` runs at. */
const uint32_t *options_entry_agents(const options *opt, size_t entry,
                                     size_t *count);

#endif /* THRONG_BENCH_OPTIONS_H */
