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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "stats.h"

#define PROGRAM "throng-compare"

#define EXIT_REGRESSION 1
#define EXIT_USAGE 2

#define ERROR_SIZE 512u

static void print_help(FILE *out) {
    fputs(
        "usage: " PROGRAM " check [--threshold F] [--alpha F] BASELINE RUN...\n"
        "       " PROGRAM " merge [--machine NAME] [-o OUT] RUN...\n"
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
        "          the sample counts and a verdict; then 'N passed, N failed'.\n"
        "          A benchmark fails when its median is slower by more than\n"
        "          the threshold (default 0.10) and p < alpha (default 0.05),\n"
        "          or when it is missing from the runs.\n"
        "merge     writes the runs as one file (stdout, or OUT) with every\n"
        "          sample in \"repeat_ms\"; --machine records the machine name.\n"
        "show      prints each benchmark's median, lowest and highest sample,\n"
        "          fastest single step and sample count.\n"
        "configs   prints 'scenario agents threads steps warmup' per benchmark.\n"
        "\n"
        "exit status: 0 ok; 1 a regression or a missing benchmark; 2 bad\n"
        "command line or unreadable file.\n",
        out);
}

static int usage(const char *message, const char *detail) {
    fprintf(stderr, PROGRAM ": %s%s (see --help)\n", message, detail);
    return EXIT_USAGE;
}

/* A number in [low, high] for an option; false when it is not. */
static int parse_fraction(const char *text, double low, double high,
                          double *out) {
    char *end = NULL;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || !(value >= low && value <= high)) {
        return 0;
    }
    *out = value;
    return 1;
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

static int command_check(int argc, char **argv) {
    stats_gate gate = stats_gate_default();
    int i = 0;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        if (i + 1 >= argc) {
            return usage("option needs a value: ", argv[i]);
        }
        int ok = strcmp(argv[i], "--threshold") == 0
                     ? parse_fraction(argv[i + 1], 0.0, 10.0, &gate.threshold)
                 : strcmp(argv[i], "--alpha") == 0
                     ? parse_fraction(argv[i + 1], 1e-9, 1.0, &gate.alpha)
                     : -1;
        if (ok < 0) {
            return usage("unknown option ", argv[i]);
        }
        if (ok == 0) {
            return usage("bad value: ", argv[i + 1]);
        }
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

    printf("%-34s %9s %9s %7s %9s %7s  %s\n", "benchmark", "base ms",
           "now ms", "ratio", "p(slower)", "n", "verdict");
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

static int command_merge(int argc, char **argv) {
    const char *machine = NULL;
    const char *output = NULL;
    int i = 0;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i += 2) {
        if (i + 1 >= argc) {
            return usage("option needs a value: ", argv[i]);
        }
        if (strcmp(argv[i], "--machine") == 0) {
            machine = argv[i + 1];
        } else if (strcmp(argv[i], "-o") == 0) {
            output = argv[i + 1];
        } else {
            return usage("unknown option ", argv[i]);
        }
    }
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
    FILE *out = output != NULL ? fopen(output, "w") : stdout;
    int status = 0;
    if (out == NULL) {
        perror(output);
        status = EXIT_USAGE;
    } else {
        if (results_write(out, &merged) != 0) {
            status = EXIT_USAGE;
        }
        if (output != NULL && fclose(out) != 0) {
            status = EXIT_USAGE;
        }
        if (status != 0) {
            fprintf(stderr, PROGRAM ": cannot write %s\n",
                    output ? output : "stdout");
        }
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
    printf("%-34s %9s %9s %9s %9s %4s\n", "benchmark", "median ms",
           "lowest", "highest", "min step", "n");
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
        return command_check(argc - 2, argv + 2);
    }
    if (strcmp(command, "merge") == 0) {
        return command_merge(argc - 2, argv + 2);
    }
    if (strcmp(command, "show") == 0) {
        return command_show(argc - 2, argv + 2);
    }
    if (strcmp(command, "configs") == 0) {
        return command_configs(argc - 2, argv + 2);
    }
    return usage("unknown command ", command);
}
