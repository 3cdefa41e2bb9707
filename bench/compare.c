/* SPDX-License-Identifier: MIT */
/*
 * throng-compare: the benchmark regression gate's tool.
 *
 *   check    compares runs with a baseline, one line per benchmark, and
 *            exits 1 when one is a regression (see stats.h for the rule);
 *   merge    gathers several runs into one file with every repeat's sample,
 *            the shape of a baseline;
 *   show     prints each benchmark's median and spread of samples;
 *   configs  lists a file's configurations, for the script that reruns
 *            them.
 *
 * The timing itself stays in throng-bench; this program only reads its
 * JSON (bench/results.c), so the gate works on any stored result too.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "outfile.h"
#include "results.h"
#include "stats.h"

#define PROGRAM "throng-compare"

#define EXIT_REGRESSION 1
#define EXIT_USAGE CLI_EXIT_USAGE

#define ERROR_SIZE 512u

/* The options of check and merge (show and configs take none). */
enum {
    CHECK_THRESHOLD,
    CHECK_ALPHA,
    CHECK_COUNT
};
static const cli_option check_options[CHECK_COUNT] = {
    [CHECK_THRESHOLD] = { "threshold", 0, "F", "slowdown that fails" },
    [CHECK_ALPHA] = { "alpha", 0, "F", "significance level" },
};

enum {
    MERGE_MACHINE,
    MERGE_OUTPUT,
    MERGE_COUNT
};
static const cli_option merge_options[MERGE_COUNT] = {
    [MERGE_MACHINE] = { "machine", 0, "NAME", "machine name to record" },
    [MERGE_OUTPUT] = { "output", 'o', "OUT", "file to write" },
};

static void print_help(FILE *out) {
    fputs("usage: " PROGRAM " check", out);
    cli_print_synopsis(out, check_options, CHECK_COUNT);
    fputs(" BASELINE RUN...\n"
          "       " PROGRAM " merge",
          out);
    cli_print_synopsis(out, merge_options, MERGE_COUNT);
    fputs(" RUN...\n", out);
    fputs(
        "       " PROGRAM " show RUN...\n"
        "       " PROGRAM " configs FILE\n"
        "\n"
        "Files are throng-bench JSON (--json). A benchmark's samples are its\n"
        "\"repeat_ms\" when present, else its \"ms_per_step_median\"; runs\n"
        "given together are merged by benchmark name first.\n"
        "\n"
        "check     one line per benchmark of BASELINE: baseline and current\n"
        "          median ms per step, their ratio, the one-sided\n"
        "          Mann-Whitney p-value that the current samples are slower,\n"
        "          the sample counts and a verdict; then 'N passed, N "
        "failed'.\n"
        "          A benchmark fails when its median is slower by more than\n"
        "          the threshold (default 0.10) and p < alpha (default 0.05),\n"
        "          or when it is missing from the runs.\n"
        "merge     writes the runs as one file (stdout, or OUT) with every\n"
        "          sample in \"repeat_ms\"; --machine records the machine "
        "name.\n"
        "show      prints each benchmark's median, lowest and highest sample,\n"
        "          fastest single step and sample count.\n"
        "configs   prints 'scenario agents threads steps warmup' per "
        "benchmark.\n"
        "\n"
        "exit status: 0 ok; 1 a regression or a missing benchmark; 2 bad\n"
        "command line or unreadable file.\n",
        out);
}

static int usage(const char *message, const char *detail) {
    cli_usage_error(PROGRAM, "%s%s", message, detail);
    return EXIT_USAGE;
}

/* A number in [low, high] for an option; false when it is not. */
static bool parse_fraction(const char *text, double low, double high,
                           double *out) {
    char *end = NULL;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || !(value >= low && value <= high)) {
        return false;
    }
    *out = value;
    return true;
}

/* Reads and merges files into one; 0, or EXIT_USAGE after a message. */
static int read_runs(char **paths, int count, results_file *merged) {
    memset(merged, 0, sizeof *merged);
    char error[ERROR_SIZE];
    for (int i = 0; i < count; ++i) {
        results_file run;
        int status = results_read(paths[i], &run, error, sizeof error);
        if (status == 0) {
            status = results_merge(merged, &run, error, sizeof error);
        }
        results_free(&run);
        if (status != 0) {
            fprintf(stderr, PROGRAM ": %s\n", error);
            results_free(merged);
            return EXIT_USAGE;
        }
    }
    return 0;
}

static bool take_check_option(void *context, size_t index, const char *value) {
    stats_gate *gate = context;
    bool ok = index == CHECK_THRESHOLD
                  ? parse_fraction(value, 0.0, 10.0, &gate->threshold)
                  : parse_fraction(value, 1e-9, 1.0, &gate->alpha);
    if (!ok) {
        usage("bad value: ", value);
    }
    return ok;
}

/* argv[0] is the command's name. */
static int command_check(int argc, char **argv) {
    stats_gate gate = stats_gate_default();
    const cli reader = { PROGRAM, check_options,     CHECK_COUNT,
                         true,    take_check_option, &gate };
    int i = cli_parse(&reader, argc, argv);
    if (i < 0) {
        return EXIT_USAGE;
    }
    if (argc - i < 2) {
        return usage("check needs a baseline and at least one run", "");
    }
    results_file base, now;
    if (read_runs(argv + i, 1, &base) != 0) {
        return EXIT_USAGE;
    }
    if (read_runs(argv + i + 1, argc - i - 1, &now) != 0) {
        results_free(&base);
        return EXIT_USAGE;
    }

    printf("%-34s %9s %9s %7s %9s %7s  %s\n", "benchmark", "base ms", "now ms",
           "ratio", "p(slower)", "n", "verdict");
    int passed = 0, failed = 0;
    for (size_t k = 0; k < base.count; ++k) {
        const results_entry *b = &base.entries[k];
        const results_entry *n = results_find(&now, b->name);
        if (n == NULL) {
            printf("%-34s %9.4f %9s %7s %9s %7s  %s\n", b->name,
                   stats_median(b->samples, b->sample_count), "-", "-", "-",
                   "-", "MISSING from the run");
            ++failed;
            continue;
        }
        stats_comparison c;
        if (stats_compare(b->samples, b->sample_count, n->samples,
                          n->sample_count, &gate, &c) != 0) {
            printf("%-34s %9s %9s %7s %9s %7s  %s\n", b->name, "-", "-", "-",
                   "-", "-", "FAILED: cannot compare the samples");
            ++failed;
            continue;
        }
        char counts[32];
        snprintf(counts, sizeof counts, "%zu/%zu", b->sample_count,
                 n->sample_count);
        printf("%-34s %9.4f %9.4f %7.3f %9.4f %7s  %s\n", b->name,
               c.base_median, c.now_median, c.ratio, c.test.p_greater, counts,
               stats_verdict_name(c.verdict));
        if (stats_verdict_fails(c.verdict)) {
            ++failed;
        } else {
            ++passed;
        }
    }
    for (size_t k = 0; k < now.count; ++k) {
        if (results_find(&base, now.entries[k].name) == NULL) {
            printf("note: %s is not in the baseline\n", now.entries[k].name);
        }
    }
    if (base.simd[0] && now.simd[0] && strcmp(base.simd, now.simd) != 0) {
        printf("note: the baseline ran the %s kernels, this run %s\n",
               base.simd, now.simd);
    }
    /* A run on a narrower path than its CPU offers is slower for a reason
     * no code change explains (THRONG_SIMD set, say). */
    if (now.simd[0] && now.simd_best[0] &&
        strcmp(now.simd, now.simd_best) != 0) {
        printf("note: this run ran the %s kernels; its CPU offers %s\n",
               now.simd, now.simd_best);
    }
    if (base.compiler[0] && now.compiler[0] &&
        strcmp(base.compiler, now.compiler) != 0) {
        printf("note: the baseline was built with %s, this run with %s\n",
               base.compiler, now.compiler);
    }
    printf("threshold %.0f%% slower, alpha %.3g (one-sided Mann-Whitney U)\n",
           100.0 * gate.threshold, gate.alpha);
    printf("%d passed, %d failed\n", passed, failed);
    results_free(&base);
    results_free(&now);
    return failed == 0 ? 0 : EXIT_REGRESSION;
}

typedef struct merge_request {
    const char *machine;
    const char *output;
} merge_request;

static bool take_merge_option(void *context, size_t index, const char *value) {
    merge_request *request = context;
    *(index == MERGE_MACHINE ? &request->machine : &request->output) = value;
    return true;
}

/* argv[0] is the command's name. */
static int command_merge(int argc, char **argv) {
    merge_request request = { NULL, NULL };
    const cli reader = { PROGRAM, merge_options,     MERGE_COUNT,
                         true,    take_merge_option, &request };
    int i = cli_parse(&reader, argc, argv);
    if (i < 0) {
        return EXIT_USAGE;
    }
    const char *machine = request.machine;
    const char *output = request.output;
    if (i >= argc) {
        return usage("merge needs at least one run", "");
    }
    results_file merged;
    if (read_runs(argv + i, argc - i, &merged) != 0) {
        return EXIT_USAGE;
    }
    if (machine != NULL) {
        snprintf(merged.machine, sizeof merged.machine, "%s", machine);
    }
    /* A baseline is written whole or not at all (outfile.h). */
    char error[256];
    outfile out;
    bool ok =
        outfile_open(&out, output != NULL ? output : "-", error, sizeof error);
    if (ok && results_write(out.file, &merged) != 0) {
        outfile_discard(&out);
        snprintf(error, sizeof error, "write error");
        ok = false;
    }
    ok = ok && outfile_commit(&out, error, sizeof error);
    int status = ok ? 0 : EXIT_USAGE;
    if (!ok) {
        fprintf(stderr, PROGRAM ": cannot write %s: %s\n",
                output != NULL ? output : "stdout", error);
    }
    results_free(&merged);
    return status;
}

static int command_show(int argc, char **argv) {
    if (argc < 1) {
        return usage("show needs at least one file", "");
    }
    results_file file;
    if (read_runs(argv, argc, &file) != 0) {
        return EXIT_USAGE;
    }
    printf("%-34s %9s %9s %9s %9s %4s\n", "benchmark", "median ms", "lowest",
           "highest", "min step", "n");
    for (size_t k = 0; k < file.count; ++k) {
        const results_entry *e = &file.entries[k];
        double highest = e->samples[0];
        for (size_t i = 1; i < e->sample_count; ++i) {
            highest = e->samples[i] > highest ? e->samples[i] : highest;
        }
        printf("%-34s %9.4f %9.4f %9.4f %9.4f %4zu\n", e->name,
               stats_median(e->samples, e->sample_count),
               stats_min(e->samples, e->sample_count), highest, e->min_ms,
               e->sample_count);
    }
    results_free(&file);
    return 0;
}

static int command_configs(int argc, char **argv) {
    if (argc != 1) {
        return usage("configs takes one file", "");
    }
    results_file file;
    if (read_runs(argv, 1, &file) != 0) {
        return EXIT_USAGE;
    }
    int status = 0;
    for (size_t k = 0; k < file.count && status == 0; ++k) {
        const results_entry *e = &file.entries[k];
        if (e->agents == 0 || e->steps == 0) {
            fprintf(stderr, PROGRAM ": %s: no agents or steps recorded\n",
                    e->name);
            status = EXIT_USAGE;
        } else {
            printf("%s %u %u %u %u\n", e->scenario, (unsigned)e->agents,
                   (unsigned)e->threads, (unsigned)e->steps,
                   (unsigned)e->warmup);
        }
    }
    results_free(&file);
    return status;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        return usage("missing command", "");
    }
    const char *command = argv[1];
    if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0) {
        print_help(stdout);
        return 0;
    }
    if (strcmp(command, "check") == 0) {
        return command_check(argc - 1, argv + 1);
    }
    if (strcmp(command, "merge") == 0) {
        return command_merge(argc - 1, argv + 1);
    }
    if (strcmp(command, "show") == 0) {
        return command_show(argc - 2, argv + 2);
    }
    if (strcmp(command, "configs") == 0) {
        return command_configs(argc - 2, argv + 2);
    }
    return usage("unknown command ", command);
}
