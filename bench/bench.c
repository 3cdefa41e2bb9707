/* SPDX-License-Identifier: MIT */
/*
 * throng-bench: times named scenarios over sweeps of crowd size and thread
 * count.
 *
 * The parts: options.c reads the command line (one option table, also the
 * --help text); run.c runs each (scenario, agents, threads) configuration
 * for every repeat, timed step by step, and checks the results; report.c
 * prints the table and writes the JSON, CSV and SVG; machine.c describes
 * the machine and the build. This file runs them in order.
 *
 * Results go to a table (stdout, or stderr when a file goes to stdout) as
 * each configuration finishes, and optionally to a JSON file shaped like
 * Google Benchmark's, so existing tooling (compare.py and friends) reads it,
 * a CSV file with one row per configuration, and an SVG chart. The JSON
 * also keeps each repeat's median, which is what a regression gate needs
 * to tell noise from change. Each file is written once, complete, at the
 * end (outfile.c: a temporary name, then a rename), so an interrupted run
 * leaves no empty or half-written result and an earlier one untouched;
 * a path that cannot be written is refused before the run.
 *
 * Speed is reported with quality (quality.c): after the timed steps of the
 * last repeat, the final state is measured through the public API (limits,
 * and per scenario family polarisation, nearest neighbours, overlaps), so
 * a faster kernel that steers worse is seen in the same row.
 *
 * The bench also checks what it can see for free: no position or velocity
 * may be non-finite after the run, repeats must end in the same state, and
 * every thread count must end in the same state as the others (the
 * library's determinism contract). Each row's quality is judged against
 * its scene's pass ranges (the scenario table's, and the limits every
 * world holds) in the table's "check" column. A failed check or a row out
 * of range is reported after the results and makes the exit status 1.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "machine.h"
#include "options.h"
#include "outfile.h"
#include "quality.h"
#include "report.h"
#include "run.h"

enum {
    OUT_JSON,
    OUT_CSV,
    OUT_PLOT,
    OUT_COUNT
};

/* A file named by --json, --csv or --plot; "-" is stdout. */
typedef struct output {
    const char *kind; /* "JSON", "CSV", "SVG" */
    const char *path; /* NULL: not asked for */
} output;

static bool output_to_stdout(const output *o) {
    return o->path != NULL && strcmp(o->path, "-") == 0;
}

/* Writes one output, complete, then moves it into place; false (after
 * saying so) when anything failed. */
static bool output_write(const output *o, int which, const options *opt,
                         const machine *m, const char *executable,
                         const result *results, size_t count) {
    char error[512];
    outfile file;
    if (!outfile_open(&file, o->path, error, sizeof error)) {
        fprintf(stderr, PROGRAM ": writing the %s to '%s' failed: %s\n",
                o->kind, o->path, error);
        return false;
    }
    bool ok = true;
    switch (which) {
    case OUT_JSON:
        json_write(file.file, opt, m, executable, results, count);
        break;
    case OUT_CSV:
        csv_write(file.file, m, results, count);
        break;
    default:
        ok = plot_write(file.file, opt, m, results, count);
        if (!ok) {
            fprintf(stderr, PROGRAM ": out of memory drawing the plot\n");
            outfile_discard(&file);
            return false;
        }
        break;
    }
    if (!outfile_commit(&file, error, sizeof error)) {
        fprintf(stderr, PROGRAM ": writing the %s to '%s' failed: %s\n",
                o->kind, o->path, error);
        return false;
    }
    return ok;
}

/* The configurations of the sweep, in the order they run. */
static size_t config_total(const options *opt) {
    size_t total = 0;
    for (size_t a = 0; a < opt->scenario_count; ++a) {
        size_t agent_count = 0;
        options_entry_agents(opt, a, &agent_count);
        total += agent_count * opt->thread_count;
    }
    return total;
}

/* --help, --list, --machine or a bad command line: what to print, and the
 * exit status. */
static int run_mode(const options *opt, int status) {
    if (status == 0 && opt->help) {
        options_print_help(stdout);
    } else if (status == 0 && opt->list) {
        print_scenarios(stdout);
    } else if (status == 0) {
        char slug[64];
        machine_slug(slug, sizeof slug);
        puts(slug);
    }
    return status;
}

/* Runs every configuration, a table row as each finishes. Returns 0 or
 * the exit status of the first failure; *done counts the results. */
static int run_sweep(const options *opt, FILE *table, result *results,
                     double *repeat_ms, samples *s, quality_snapshot *snap,
                     size_t config_count, size_t *done) {
    progress bar;
    memset(&bar, 0, sizeof bar);
    bar.enabled = !opt->quiet && isatty(STDERR_FILENO);
    bar.config_count = config_count;
    bar.repeats = opt->repeats;
    bar.total = (uint64_t)config_count * opt->repeats *
                ((uint64_t)opt->warmup + opt->steps);

    int status = 0;
    int name_width = table_name_width(opt);
    if (scenario_set_at(0) != NULL) {
        fputs("set:", table);
        for (size_t i = 0; scenario_set_at(i) != NULL; ++i) {
            fprintf(table, " %s=%g", scenario_set_at(i)->name,
                    scenario_set_at(i)->value);
        }
        fputs(" (in place of the scenes' own values)\n", table);
    }
    table_header(table, name_width);
    for (size_t a = 0; a < opt->scenario_count && status == 0; ++a) {
        size_t agent_count = 0;
        const uint32_t *agents = options_entry_agents(opt, a, &agent_count);
        for (size_t b = 0; b < agent_count && status == 0; ++b) {
            for (size_t c = 0; c < opt->thread_count && status == 0; ++c) {
                result *r = &results[*done];
                r->repeat_ms = repeat_ms + *done * opt->repeats;
                bar.config = *done + 1;
                status = run_config(opt, opt->scenarios[a].sc, agents[b],
                                    opt->threads[c], s, snap, &bar, r);
                if (status == 0) {
                    progress_clear(&bar);
                    /* flock2d's own row, or an earlier one, gives the
                     * ratio; the files get every ratio after the sweep. */
                    result_ratios(results, *done + 1);
                    table_row(table, name_width, r);
                    ++*done;
                }
            }
        }
    }
    progress_clear(&bar);
    return status;
}

int main(int argc, char **argv) {
    options opt;
    int exit_status = options_parse(argc, argv, &opt);
    if (exit_status == 0 && !opt.help && !opt.list && !machine_forced_ok()) {
        usage_error("BENCH_MACHINE must be a plain folder name, got '%s'",
                    machine_forced());
        exit_status = EXIT_USAGE;
    }
    if (exit_status != 0 || opt.help || opt.list || opt.machine) {
        exit_status = run_mode(&opt, exit_status);
        options_free(&opt);
        return exit_status;
    }

    throng_simd simd_run = THRONG_SIMD_AUTO;
    exit_status = simd_check(&simd_run);
    if (exit_status != 0) {
        options_free(&opt);
        return exit_status;
    }

    size_t config_count = config_total(&opt);
    size_t sample_count = (size_t)opt.steps * opt.repeats;
    if (opt.repeats != 0 && sample_count / opt.repeats != opt.steps) {
        usage_error("--steps x --repeats is too large");
        options_free(&opt);
        return EXIT_USAGE;
    }

    const output outputs[OUT_COUNT] = {
        [OUT_JSON] = { "JSON", opt.json_path },
        [OUT_CSV] = { "CSV", opt.csv_path },
        [OUT_PLOT] = { "SVG", opt.plot_path },
    };
    bool any_to_stdout = false;
    for (int k = 0; k < OUT_COUNT; ++k) {
        any_to_stdout = any_to_stdout || output_to_stdout(&outputs[k]);
        char error[512];
        if (outputs[k].path != NULL &&
            !outfile_check(outputs[k].path, error, sizeof error)) {
            usage_error("cannot open '%s' for the %s: %s", outputs[k].path,
                        outputs[k].kind, error);
            options_free(&opt);
            return EXIT_USAGE;
        }
    }
    FILE *table = any_to_stdout ? stderr : stdout;

    result *results = calloc(config_count + 1, sizeof(result));
    double *repeat_ms = calloc(config_count * opt.repeats + 1, sizeof(double));
    samples s;
    bool allocated =
        samples_init(&s, sample_count) && results != NULL && repeat_ms != NULL;
    if (!allocated) {
        fprintf(stderr, PROGRAM ": out of memory for %zu samples\n",
                sample_count);
        exit_status = EXIT_FAILED;
    }
    quality_snapshot snap;
    memset(&snap, 0, sizeof snap);

    pid_t busy_pids[MAX_BUSY];
    uint32_t busy = 0;
    if (exit_status == 0 && opt.busy > 0) {
        busy = busy_start(opt.busy, busy_pids);
        if (busy < opt.busy) {
            fprintf(stderr,
                    PROGRAM ": could start only %" PRIu32 " of %" PRIu32
                            " busy processes\n",
                    busy, opt.busy);
            exit_status = EXIT_FAILED;
        }
    }

    size_t done = 0;
    if (exit_status == 0) {
        simd_report(table, simd_run);
        exit_status = run_sweep(&opt, table, results, repeat_ms, &s, &snap,
                                config_count, &done);
    }
    busy_stop(busy, busy_pids);

    if (exit_status == 0) {
        result_ratios(results, done);
        if (busy > 0) {
            fprintf(table,
                    "\n%" PRIu32 " busy process%s ran beside the "
                    "steps (--busy).\n",
                    busy, busy == 1 ? "" : "es");
        }
        if (opt.stable_columns) {
            fprintf(table, "\nThe worlds kept their column pointers "
                           "through steps (--stable-columns).\n");
        }
        table_legend(table);
        machine m;
        machine_gather(&m);
        for (int k = 0; k < OUT_COUNT && exit_status == 0; ++k) {
            if (outputs[k].path == NULL) {
                continue;
            }
            if (!output_write(&outputs[k], k, &opt, &m, argv[0], results,
                              done)) {
                exit_status = EXIT_FAILED;
            } else if (!output_to_stdout(&outputs[k])) {
                fprintf(table, "wrote %-4s %s\n", outputs[k].kind,
                        outputs[k].path);
            }
        }
    }
    if (exit_status == 0 && check_results(results, done) > 0) {
        exit_status = EXIT_FAILED;
    }
    if (exit_status == 0 && check_ranges(results, done) > 0) {
        exit_status = EXIT_FAILED;
    }

    quality_snapshot_free(&snap);
    samples_free(&s);
    free(repeat_ms);
    free(results);
    options_free(&opt);
    return exit_status;
}
