/*
 * throng-bench: times named scenarios over sweeps of crowd size and thread
 * count.
 *
 * For every (scenario, agents, threads) configuration and every repeat, a
 * fresh world is built from the scenario table, stepped `warmup` times
 * uncounted, then stepped `steps` times with each step timed on its own
 * (CLOCK_MONOTONIC around throng_world_step only). Figures are medians and
 * minima over all counted steps of all repeats: a median shrugs off the odd
 * step that a page fault or the scheduler stretched, a minimum shows what
 * the machine can do when nothing interferes. Per-stage times and counters
 * come from throng_world_stats after each step, so they describe the same
 * steps that were timed.
 *
 * Results go to a table (stdout, or stderr when a file goes to stdout) as
 * each configuration finishes, and optionally to a JSON file shaped like
 * Google Benchmark's, so existing tooling (compare.py and friends) reads it,
 * a CSV file with one row per configuration, and an SVG chart. The JSON
 * also keeps each repeat's median, which is what a regression gate needs
 * to tell noise from change.
 *
 * Speed is reported with quality (quality.c): after the timed steps of the
 * last repeat, the final state is measured through the public API (limits,
 * and per scenario family polarisation, nearest neighbours, overlaps), so
 * a faster kernel that steers worse is seen in the same row.
 *
 * The bench also checks what it can see for free: no position or velocity
 * may be non-finite after the run, repeats must end in the same state, and
 * every thread count must end in the same state as the others (the
 * library's determinism contract). A failed check is reported after the
 * results and makes the exit status 1.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plot.h"
#include "quality.h"
#include "scenarios.h"

#define PROGRAM "throng-bench"

/* Exit statuses: 1 when the library refused something or a check failed,
 * 2 when the command line was wrong, 3 when THRONG_SIMD names a path this
 * CPU or build lacks (a distinct code, so bench/perf_check.sh can skip
 * such a configuration rather than fail). */
#define EXIT_FAILED 1
#define EXIT_USAGE 2
#define EXIT_UNSUPPORTED 3

#define DEFAULT_STEPS 200u
#define DEFAULT_WARMUP 20u
#define DEFAULT_REPEATS 1u
#define DEFAULT_SEED 1u
#define DEFAULT_SCENARIOS "flock2d,flock3d"
#define DEFAULT_AGENTS "10k,100k"
#define DEFAULT_THREADS "1,2"

/* The library's own bound on threads per step. */
#define MAX_THREADS 1024u

#if defined(__GNUC__)
#define PRINTF_LIKE(format_index, first_arg)                                   \
    __attribute__((format(printf, format_index, first_arg)))
#else
#define PRINTF_LIKE(format_index, first_arg)
#endif

#ifndef __VERSION__
#define __VERSION__ "unknown"
#endif

/* gcc's __VERSION__ is the bare number; clang's names itself. */
#if defined(__GNUC__) && !defined(__clang__)
#define COMPILER "gcc " __VERSION__
#else
#define COMPILER __VERSION__
#endif

/* The Makefile passes the CFLAGS the bench was built with. */
#ifndef THRONG_BENCH_CFLAGS
#define THRONG_BENCH_CFLAGS "unknown (built without the Makefile)"
#endif

/* The progress bar is redrawn at most this often: often enough to look
 * alive, rarely enough that drawing never competes with the steps. */
#define PROGRESS_INTERVAL_MS 100.0
#define PROGRESS_BAR_WIDTH 24

/* ------------------------------------------------------------------------ */
/* Options                                                                  */
/* ------------------------------------------------------------------------ */

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
    uint32_t busy; /* CPU-bound processes to run beside the steps */
    const char *json_path; /* NULL: no JSON; "-": stdout */
    const char *csv_path;  /* NULL: no CSV; "-": stdout */
    const char *plot_path; /* NULL: no SVG; "-": stdout */
    bool quiet;
    bool stable_columns; /* throng_world_set_stable_columns on each world */
    bool list;
    bool help;
    bool machine;
} options;

static void scenario_entries_free(scenario_entry *entries, size_t count) {
    for (size_t i = 0; entries != NULL && i < count; ++i) {
        free(entries[i].agents);
    }
    free(entries);
}

static void options_free(options *opt) {
    scenario_entries_free(opt->scenarios, opt->scenario_count);
    free(opt->agents);
    free(opt->threads);
    opt->scenarios = NULL;
    opt->agents = NULL;
    opt->threads = NULL;
}

static void usage_error(const char *format, ...) PRINTF_LIKE(1, 2);

/* One clear line on stderr; the caller then exits with EXIT_USAGE. */
static void usage_error(const char *format, ...) {
    va_list args;
    va_start(args, format);
    fputs(PROGRAM ": ", stderr);
    vfprintf(stderr, format, args);
    fputs(" (see --help)\n", stderr);
    va_end(args);
}

static void print_help(FILE *out) {
    fputs(
        "usage: " PROGRAM " [options]\n"
        "\n"
        "Times named crowd scenarios over sweeps of agent and thread counts.\n"
        "Each configuration builds a fresh world per repeat, runs the warm-up\n"
        "steps, then times every counted step on its own. After the last\n"
        "repeat the final state is measured for quality (not timed).\n"
        "\n"
        "options:\n"
        "  --scenario NAME[,NAME...]  scenarios to run (default " DEFAULT_SCENARIOS
        ");\n"
        "                             NAME@N[+N...] runs NAME at its own agent\n"
        "                             counts instead of --agents, e.g.\n"
        "                             flock2d,crossing2d@10k\n"
        "  --agents N[,N...]          agent counts; suffixes k (x1000) and M\n"
        "                             (x1000000), e.g. 10k,1.5M (default " DEFAULT_AGENTS
        ")\n"
        "  --threads T[,T...]         threads per step, 0 = OpenMP default,\n"
        "                             up to 1024 (default " DEFAULT_THREADS ")\n"
        "  --steps S                  counted steps per repeat, >= 1 (default 200)\n"
        "  --warmup W                 uncounted steps before them (default 20)\n"
        "  --repeats R                fresh worlds per configuration, >= 1\n"
        "                             (default 1)\n"
        "  --seed N                   scenario and world seed, decimal or 0x hex\n"
        "                             (default 1)\n"
        "  --busy N                   run N CPU-bound processes (busy loops)\n"
        "                             beside the whole run, to see how the step\n"
        "                             fares on a machine it shares, 0 .. 64\n"
        "                             (default 0)\n"
        "  --json FILE                also write Google-Benchmark-style JSON to\n"
        "                             FILE, with each repeat's median (repeat_ms)\n"
        "                             and the quality figures\n"
        "  --csv FILE                 also write one CSV row per configuration:\n"
        "                             every table column and quality figure\n"
        "  --plot FILE                also draw ms/step against agents (both log\n"
        "                             scales), one line per scenario and thread\n"
        "                             count, as an SVG file\n"
        "                             ('-' as FILE is stdout, for one of the\n"
        "                             three; the table then goes to stderr)\n"
        "  --stable-columns           step with stable columns\n"
        "                             (throng_world_set_stable_columns): the\n"
        "                             cost of keeping column pointers fixed\n"
        "  --quiet                    no progress bar (it is drawn on stderr\n"
        "                             only when stderr is a terminal)\n"
        "  --list                     list the scenarios, their parameters and\n"
        "                             quality figures\n"
        "  --machine                  print this machine's name for\n"
        "                             bench/results/<machine>/ and exit: CPU\n"
        "                             model and logical CPU count, e.g.\n"
        "                             epyc-zen5-2c, or $BENCH_MACHINE when set\n"
        "  --help                     this text\n"
        "Options take their value as the next argument or after '='.\n"
        "\n",
        out);
    /* Two strings: each stays within the 4095 characters C requires a
     * compiler to accept in one literal. */
    fputs(
        "columns: median and minimum ms per step over all counted steps;\n"
        "ns per agent-step (median ms / agents); neighbours and candidates\n"
        "per agent (mean over counted steps); heap bytes per agent after the\n"
        "run; median per-stage ms: grid, behaviours (the behaviour kernels\n"
        "and the combination of their forces, which the library fuses into\n"
        "one stage, so there is no separate combine time), integration; the\n"
        "SIMD path; the final state hash; agents with a non-finite position\n"
        "or velocity at the end.\n"
        "quality, from the last repeat's final state: v/vmax, the largest\n"
        "|v| / max speed, and F/Fmax, the largest m |dv| / dt / max force in\n"
        "the last step, over all agents (1 is the limit); for flocks speed\n"
        "(mean |v|, m/s), pol (polarisation, |mean unit heading|, 0 to 1)\n"
        "and nn m (mean nearest-neighbour distance); for crowds ovl% (agents\n"
        "whose body overlaps another's, r_i + r_j) and sep m (smallest\n"
        "centre distance); for crossing2d goal% (agents within 1 m of their\n"
        "target point). nn, ovl and sep use a sample of at most 2000 agents;\n"
        "'-' marks a figure the scenario does not get.\n"
        "\n"
        "environment: THRONG_SIMD=scalar|sse2|avx2|avx512|neon|auto picks\n"
        "the kernel path of every world (default auto, the widest this CPU\n"
        "and build offer); the line above the table names the path run and\n"
        "the widest on offer, and a narrower run is warned about on stderr.\n"
        "\n"
        "exit status: 0 ok; 1 the library refused a call, a position or\n"
        "velocity became non-finite, or the final state differed between\n"
        "repeats or thread counts; 2 bad command line or THRONG_SIMD value;\n"
        "3 THRONG_SIMD names a path this CPU or build does not offer.\n",
        out);
}

/* Parses an unsigned decimal integer (digits only, no sign) into *out.
 * With `suffixes`, also a decimal fraction followed by k/K (x1000) or M
 * (x1000000) whose product is a whole number ("1.5k" = 1500). */
static bool parse_count(const char *text, bool suffixes, uint64_t max,
                        uint64_t *out) {
    const char *cursor = text;
    uint64_t mantissa = 0;
    uint64_t divisor = 1;
    bool any_digit = false;
    bool seen_point = false;
    for (;; ++cursor) {
        if (*cursor >= '0' && *cursor <= '9') {
            unsigned digit = (unsigned)(*cursor - '0');
            if (mantissa > (UINT64_MAX - digit) / 10u) {
                return false;
            }
            mantissa = mantissa * 10u + digit;
            any_digit = true;
            if (seen_point) {
                if (divisor > UINT64_MAX / 10u) {
                    return false;
                }
                divisor *= 10u;
            }
        } else if (*cursor == '.' && suffixes && !seen_point) {
            seen_point = true;
        } else {
            break;
        }
    }
    if (!any_digit) {
        return false;
    }
    uint64_t multiplier = 1;
    if (suffixes && (*cursor == 'k' || *cursor == 'K')) {
        multiplier = 1000u;
        ++cursor;
    } else if (suffixes && *cursor == 'M') {
        multiplier = 1000000u;
        ++cursor;
    }
    if (*cursor != '\0') {
        return false;
    }
    if (mantissa > UINT64_MAX / multiplier) {
        return false;
    }
    uint64_t scaled = mantissa * multiplier;
    if (scaled % divisor != 0) {
        return false; /* "1.5" or "1.0005k": not a whole number */
    }
    uint64_t value = scaled / divisor;
    if (value > max) {
        return false;
    }
    *out = value;
    return true;
}

/* The number of comma-separated items in a list, or 0 when an item is empty
 * (",", "a,,b", trailing comma) or the list is. */
static size_t list_length(const char *list) {
    size_t count = 1;
    size_t item_length = 0;
    for (const char *c = list;; ++c) {
        if (*c == ',' || *c == '\0') {
            if (item_length == 0) {
                return 0;
            }
            if (*c == '\0') {
                return count;
            }
            ++count;
            item_length = 0;
        } else {
            ++item_length;
        }
    }
}

/* Copies the item at [start, start+length) of a list into a buffer;
 * false when it does not fit. */
static bool list_item(const char *start, size_t length, char *buffer,
                      size_t buffer_size) {
    if (length >= buffer_size) {
        return false;
    }
    memcpy(buffer, start, length);
    buffer[length] = '\0';
    return true;
}

typedef enum list_kind { LIST_SCENARIOS, LIST_AGENTS, LIST_THREADS } list_kind;

/* An agent count: N, Nk or NM, from 1 to THRONG_MAX_AGENTS. */
static bool parse_agents(const char *option, const char *item,
                         uint32_t *out) {
    uint64_t value = 0;
    if (!parse_count(item, true, THRONG_MAX_AGENTS, &value) || value == 0) {
        usage_error("%s: '%s' is not an agent count from 1 to %u "
                    "(N, Nk or NM)",
                    option, item, THRONG_MAX_AGENTS);
        return false;
    }
    *out = (uint32_t)value;
    return true;
}

/* NAME or NAME@N[+N...] into *out; on failure *out holds nothing to
 * free. */
static bool parse_scenario_item(const char *option, char *item,
                                scenario_entry *out) {
    memset(out, 0, sizeof *out);
    char *at = strchr(item, '@');
    if (at != NULL) {
        *at = '\0';
    }
    out->sc = scenario_find(item);
    if (out->sc == NULL) {
        usage_error("%s: unknown scenario '%s' (--list shows them)", option,
                    item);
        return false;
    }
    if (at == NULL) {
        return true;
    }
    const char *counts = at + 1;
    size_t count = 1;
    for (const char *c = counts; *c != '\0'; ++c) {
        count += *c == '+' ? 1u : 0u;
    }
    out->agents = calloc(count, sizeof *out->agents);
    if (out->agents == NULL) {
        usage_error("%s: out of memory", option);
        return false;
    }
    for (size_t k = 0; k < count; ++k) {
        size_t length = strcspn(counts, "+");
        char text[64];
        if (length == 0 || !list_item(counts, length, text, sizeof text)) {
            usage_error("%s: '%s@%s': expected agent counts joined by '+'",
                        option, item, at + 1);
            free(out->agents);
            out->agents = NULL;
            return false;
        }
        if (!parse_agents(option, text, &out->agents[k])) {
            free(out->agents);
            out->agents = NULL;
            return false;
        }
        counts += length + 1;
    }
    out->agent_count = count;
    return true;
}

/* Parses one of the three comma-separated lists into a fresh array stored
 * in opt (replacing an earlier one). Returns false after printing the
 * usage error. */
static bool parse_list(const char *option, const char *text, list_kind kind,
                       options *opt) {
    size_t count = list_length(text);
    if (count == 0) {
        usage_error("%s: expected a comma-separated list, got '%s'", option,
                    text);
        return false;
    }
    size_t element_size = kind == LIST_SCENARIOS ? sizeof(scenario_entry)
                          : kind == LIST_AGENTS  ? sizeof(uint32_t)
                                                 : sizeof(int);
    void *array = calloc(count, element_size);
    if (array == NULL) {
        usage_error("%s: out of memory", option);
        return false;
    }

    const char *start = text;
    bool ok = true;
    size_t parsed = 0;
    for (; parsed < count && ok; ++parsed) {
        size_t length = strcspn(start, ",");
        char item[128];
        if (!list_item(start, length, item, sizeof item)) {
            usage_error("%s: item too long in '%s'", option, text);
            ok = false;
            break;
        }
        uint64_t value = 0;
        switch (kind) {
        case LIST_SCENARIOS:
            ok = parse_scenario_item(option, item,
                                     &((scenario_entry *)array)[parsed]);
            break;
        case LIST_AGENTS:
            ok = parse_agents(option, item, &((uint32_t *)array)[parsed]);
            break;
        case LIST_THREADS:
            ok = parse_count(item, false, MAX_THREADS, &value);
            if (!ok) {
                usage_error("%s: '%s' is not a thread count from 0 to %u",
                            option, item, MAX_THREADS);
            }
            ((int *)array)[parsed] = (int)value;
            break;
        }
        start += length + 1;
    }
    if (!ok) {
        if (kind == LIST_SCENARIOS) {
            scenario_entries_free(array, parsed);
        } else {
            free(array);
        }
        return false;
    }

    switch (kind) {
    case LIST_SCENARIOS:
        scenario_entries_free(opt->scenarios, opt->scenario_count);
        opt->scenarios = array;
        opt->scenario_count = count;
        break;
    case LIST_AGENTS:
        free(opt->agents);
        opt->agents = array;
        opt->agent_count = count;
        break;
    case LIST_THREADS:
        free(opt->threads);
        opt->threads = array;
        opt->thread_count = count;
        break;
    }
    return true;
}

static bool parse_u32(const char *option, const char *text, uint32_t min,
                      uint32_t *out) {
    uint64_t value = 0;
    if (!parse_count(text, false, UINT32_MAX, &value) || value < min) {
        usage_error("%s: '%s' is not a whole number from %" PRIu32
                    " to %" PRIu32,
                    option, text, min, (uint32_t)UINT32_MAX);
        return false;
    }
    *out = (uint32_t)value;
    return true;
}

static bool parse_seed(const char *text, uint64_t *out) {
    bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    const char *digits = hex ? text + 2 : text;
    /* strtoull accepts signs and blanks; a seed is digits only. */
    bool ok = digits[0] != '\0';
    for (const char *c = digits; *c != '\0' && ok; ++c) {
        ok = hex ? strchr("0123456789abcdefABCDEF", *c) != NULL
                 : (*c >= '0' && *c <= '9');
    }
    if (ok) {
        errno = 0;
        char *end = NULL;
        unsigned long long value = strtoull(digits, &end, hex ? 16 : 10);
        ok = errno == 0 && end != NULL && *end == '\0';
        *out = (uint64_t)value;
    }
    if (!ok) {
        usage_error("--seed: '%s' is not a 64-bit unsigned number", text);
    }
    return ok;
}

/* Parses argv into opt (which holds the defaults already). Returns 0, or
 * EXIT_USAGE after printing one line. */
static int parse_options(int argc, char **argv, options *opt) {
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            opt->help = true;
            continue;
        }
        if (strcmp(arg, "--list") == 0) {
            opt->list = true;
            continue;
        }
        if (strcmp(arg, "--quiet") == 0) {
            opt->quiet = true;
            continue;
        }
        if (strcmp(arg, "--stable-columns") == 0) {
            opt->stable_columns = true;
            continue;
        }
        if (strcmp(arg, "--machine") == 0) {
            opt->machine = true;
            continue;
        }
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
            usage_error("unexpected argument '%s'", arg);
            return EXIT_USAGE;
        }

        /* --name=value or --name value */
        char name[32];
        const char *equals = strchr(arg, '=');
        size_t name_length = equals ? (size_t)(equals - arg) : strlen(arg);
        if (!list_item(arg, name_length, name, sizeof name)) {
            usage_error("unknown option '%s'", arg);
            return EXIT_USAGE;
        }
        static const char *const valued[] = {
            "--scenario", "--agents", "--threads", "--steps",
            "--warmup",   "--repeats", "--seed",   "--json",
            "--csv",      "--plot",    "--busy",
        };
        bool takes_value = false;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0]; ++k) {
            takes_value = takes_value || strcmp(name, valued[k]) == 0;
        }
        if (!takes_value) {
            if (strcmp(name, "--help") == 0 || strcmp(name, "--list") == 0 ||
                strcmp(name, "--quiet") == 0 ||
                strcmp(name, "--machine") == 0) {
                usage_error("option %s takes no value", name);
            } else {
                usage_error("unknown option '%s'", name);
            }
            return EXIT_USAGE;
        }
        const char *value = NULL;
        if (equals != NULL) {
            value = equals + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            usage_error("option %s needs a value", name);
            return EXIT_USAGE;
        }

        bool ok = false;
        if (strcmp(name, "--scenario") == 0) {
            ok = parse_list(name, value, LIST_SCENARIOS, opt);
        } else if (strcmp(name, "--agents") == 0) {
            ok = parse_list(name, value, LIST_AGENTS, opt);
        } else if (strcmp(name, "--threads") == 0) {
            ok = parse_list(name, value, LIST_THREADS, opt);
        } else if (strcmp(name, "--steps") == 0) {
            ok = parse_u32(name, value, 1, &opt->steps);
        } else if (strcmp(name, "--warmup") == 0) {
            ok = parse_u32(name, value, 0, &opt->warmup);
        } else if (strcmp(name, "--repeats") == 0) {
            ok = parse_u32(name, value, 1, &opt->repeats);
        } else if (strcmp(name, "--seed") == 0) {
            ok = parse_seed(value, &opt->seed);
        } else if (strcmp(name, "--busy") == 0) {
            ok = parse_u32(name, value, 0, &opt->busy);
            if (ok && opt->busy > MAX_BUSY) {
                usage_error("--busy: at most %d processes", MAX_BUSY);
                ok = false;
            }
        } else {
            /* --json, --csv, --plot: a file name or '-'. */
            ok = value[0] != '\0';
            if (!ok) {
                usage_error("%s: expected a file name or '-'", name);
            }
            const char **path = strcmp(name, "--json") == 0  ? &opt->json_path
                                : strcmp(name, "--csv") == 0 ? &opt->csv_path
                                                             : &opt->plot_path;
            *path = value;
        }
        if (!ok) {
            return EXIT_USAGE;
        }
    }
    const char *const outputs[3] = {opt->json_path, opt->csv_path,
                                    opt->plot_path};
    int to_stdout = 0;
    for (int k = 0; k < 3; ++k) {
        to_stdout += outputs[k] != NULL && strcmp(outputs[k], "-") == 0;
    }
    if (to_stdout > 1) {
        usage_error("only one of --json, --csv and --plot can be '-'");
        return EXIT_USAGE;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Measuring                                                                */
/* ------------------------------------------------------------------------ */

/* What one configuration measured. */
typedef struct result {
    const scenario *sc;
    uint32_t agents;
    int threads;           /* requested */
    uint32_t threads_used; /* reported by the last step */
    uint64_t iterations;   /* counted steps over all repeats */
    double ms_median;
    double ms_min;
    double ns_per_agent_step;
    double neighbours_per_agent;
    double candidates_per_agent;
    double bytes_per_agent;
    double grid_ms;
    double behaviour_ms;
    double integrate_ms;
    char simd[32];
    uint64_t state_hash;  /* after the last repeat */
    uint64_t nan_count;   /* agents with a non-finite position or velocity */
    bool repeats_agree;   /* every repeat ended with the same hash */
    double *repeat_ms;    /* each repeat's median ms per step */
    uint32_t repeat_count;
    quality q;            /* the last repeat's final state */
    double quality_ms;    /* what measuring it cost (not in any timing) */
} result;

/* Per-step samples of one configuration; sized once for steps x repeats. */
typedef struct samples {
    size_t capacity;
    double *step_ms;
    double *grid_ms;
    double *behaviour_ms;
    double *integrate_ms;
} samples;

static bool samples_init(samples *s, size_t capacity) {
    s->capacity = capacity;
    s->step_ms = malloc(capacity * sizeof(double));
    s->grid_ms = malloc(capacity * sizeof(double));
    s->behaviour_ms = malloc(capacity * sizeof(double));
    s->integrate_ms = malloc(capacity * sizeof(double));
    return s->step_ms && s->grid_ms && s->behaviour_ms && s->integrate_ms;
}

static void samples_free(samples *s) {
    free(s->step_ms);
    free(s->grid_ms);
    free(s->behaviour_ms);
    free(s->integrate_ms);
    s->step_ms = s->grid_ms = s->behaviour_ms = s->integrate_ms = NULL;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of values[0..count) (sorts them in place); the mean of the middle
 * two for an even count. */
static double median(double *values, size_t count) {
    if (count == 0) {
        return (double)NAN;
    }
    qsort(values, count, sizeof(double), compare_doubles);
    size_t middle = count / 2;
    return count % 2 ? values[middle]
                     : 0.5 * (values[middle - 1] + values[middle]);
}

static double elapsed_ms(const struct timespec *start,
                         const struct timespec *end) {
    return (double)(end->tv_sec - start->tv_sec) * 1e3 +
           (double)(end->tv_nsec - start->tv_nsec) * 1e-6;
}

static void config_name(const scenario *sc, uint32_t agents, int threads,
                        char *buffer, size_t size) {
    snprintf(buffer, size, "%s/%" PRIu32 "/threads:%d", sc->name, agents,
             threads);
}

/* ------------------------------------------------------------------------ */
/* Progress                                                                 */
/* ------------------------------------------------------------------------ */

/* A one-line bar on stderr, redrawn in place, only when stderr is a
 * terminal (a log file or a pipe gets no carriage returns). It is drawn
 * between steps, never inside a timed one, and at most every
 * PROGRESS_INTERVAL_MS. */
typedef struct progress {
    bool enabled;
    bool drawn;             /* a bar is on the line now */
    uint64_t total;         /* steps of the whole run, warm-up included */
    uint64_t done;
    size_t config;          /* 1-based, of config_count */
    size_t config_count;
    uint32_t repeat;        /* 1-based */
    uint32_t repeats;
    char name[128];
    struct timespec last;
} progress;

static void progress_draw(progress *p, bool force) {
    if (!p->enabled) {
        return;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!force && p->drawn &&
        elapsed_ms(&p->last, &now) < PROGRESS_INTERVAL_MS) {
        return;
    }
    p->last = now;
    double fraction = p->total > 0 ? (double)p->done / (double)p->total : 0.0;
    fraction = fraction < 1.0 ? fraction : 1.0;
    char bar[PROGRESS_BAR_WIDTH + 1];
    int filled = (int)(fraction * PROGRESS_BAR_WIDTH);
    for (int i = 0; i < PROGRESS_BAR_WIDTH; ++i) {
        bar[i] = i < filled ? '#' : '.';
    }
    bar[PROGRESS_BAR_WIDTH] = '\0';
    fprintf(stderr, "\r[%s] %3d%%  %zu/%zu %s  repeat %" PRIu32 "/%" PRIu32
                    "\033[K",
            bar, (int)(fraction * 100.0), p->config, p->config_count, p->name,
            p->repeat, p->repeats);
    fflush(stderr);
    p->drawn = true;
}

/* Wipes the bar so a table row can be printed on a clean line. */
static void progress_clear(progress *p) {
    if (p->enabled && p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->drawn = false;
    }
}

static void progress_step(progress *p) {
    if (p->enabled) {
        ++p->done;
        progress_draw(p, false);
    }
}

/* ------------------------------------------------------------------------ */
/* Running one configuration                                                */
/* ------------------------------------------------------------------------ */

/* Runs one configuration for all repeats into *out (whose repeat_ms must
 * hold opt->repeats values). Returns 0, or EXIT_FAILED after printing what
 * the library refused. */
static int run_config(const options *opt, const scenario *sc, uint32_t agents,
                      int threads, samples *s, quality_snapshot *snap,
                      progress *bar, result *out) {
    char name[128];
    config_name(sc, agents, threads, name, sizeof name);

    double *repeat_ms = out->repeat_ms;
    memset(out, 0, sizeof *out);
    out->sc = sc;
    out->agents = agents;
    out->threads = threads;
    out->repeats_agree = true;
    out->repeat_ms = repeat_ms;
    snprintf(out->simd, sizeof out->simd, "%s", "unknown");
    snprintf(bar->name, sizeof bar->name, "%s", name);

    double neighbours_sum = 0.0;
    double candidates_sum = 0.0;
    size_t sample = 0;

    for (uint32_t repeat = 0; repeat < opt->repeats; ++repeat) {
        bool last_repeat = repeat + 1 == opt->repeats;
        bar->repeat = repeat + 1;
        progress_draw(bar, true);
        throng_world *world = NULL;
        throng_status status = sc->build(agents, threads, opt->seed, &world);
        if (status != THRONG_OK) {
            progress_clear(bar);
            fprintf(stderr, PROGRAM ": %s: building the world failed: %s\n",
                    name, throng_status_string(status));
            return EXIT_FAILED;
        }
        if (opt->stable_columns) {
            /* Refused only for a NULL world. */
            (void)throng_world_set_stable_columns(world, true);
        }

        for (uint32_t step = 0; step < opt->warmup; ++step) {
            status = throng_world_step(world, sc->dt);
            if (status != THRONG_OK) {
                break;
            }
            progress_step(bar);
        }

        size_t repeat_start = sample;
        bool snapped = false;
        throng_step_stats stats;
        memset(&stats, 0, sizeof stats);
        for (uint32_t step = 0; step < opt->steps && status == THRONG_OK;
             ++step) {
            /* The velocities before the very last step give that step's
             * force; copied outside the timed interval. */
            if (last_repeat && step + 1 == opt->steps) {
                snapped = quality_snapshot_take(world, snap);
            }
            struct timespec start, end;
            clock_gettime(CLOCK_MONOTONIC, &start);
            status = throng_world_step(world, sc->dt);
            clock_gettime(CLOCK_MONOTONIC, &end);
            if (status != THRONG_OK) {
                break;
            }
            status = throng_world_stats(world, &stats);
            if (status != THRONG_OK) {
                break;
            }
            s->step_ms[sample] = elapsed_ms(&start, &end);
            s->grid_ms[sample] = stats.grid_seconds * 1e3;
            s->behaviour_ms[sample] = stats.behaviour_seconds * 1e3;
            s->integrate_ms[sample] = stats.integrate_seconds * 1e3;
            ++sample;
            neighbours_sum += (double)stats.neighbours / (double)agents;
            candidates_sum += (double)stats.candidates / (double)agents;
            progress_step(bar);
        }
        if (status != THRONG_OK) {
            progress_clear(bar);
            fprintf(stderr, PROGRAM ": %s: step %" PRIu64 " failed: %s (%s)\n",
                    name, throng_world_step_count(world),
                    throng_status_string(status),
                    throng_world_last_error(world));
            throng_world_destroy(world);
            return EXIT_FAILED;
        }
        /* Sorting this repeat's slice leaves the overall median unchanged. */
        repeat_ms[repeat] =
            median(s->step_ms + repeat_start, sample - repeat_start);

        uint64_t hash = throng_world_hash(world);
        if (repeat > 0 && hash != out->state_hash) {
            out->repeats_agree = false;
        }
        out->state_hash = hash;
        out->threads_used = stats.threads;
        if (stats.simd != NULL) {
            snprintf(out->simd, sizeof out->simd, "%s", stats.simd);
        }
        if (last_repeat) {
            out->bytes_per_agent =
                (double)throng_world_bytes(world) / (double)agents;
            struct timespec start, end;
            clock_gettime(CLOCK_MONOTONIC, &start);
            status = quality_measure(world, sc, agents, snapped ? snap : NULL,
                                     &out->q);
            clock_gettime(CLOCK_MONOTONIC, &end);
            out->quality_ms = elapsed_ms(&start, &end);
            out->nan_count = out->q.nan_count;
            if (status != THRONG_OK) {
                progress_clear(bar);
                fprintf(stderr,
                        PROGRAM ": %s: measuring the final state failed: "
                                "%s (%s)\n",
                        name, throng_status_string(status),
                        throng_world_last_error(world));
                throng_world_destroy(world);
                return EXIT_FAILED;
            }
        }
        throng_world_destroy(world);
    }

    out->repeat_count = opt->repeats;
    out->iterations = sample;
    out->neighbours_per_agent = neighbours_sum / (double)sample;
    out->candidates_per_agent = candidates_sum / (double)sample;
    out->ms_median = median(s->step_ms, sample);
    out->ms_min = s->step_ms[0]; /* sorted by median() */
    out->ns_per_agent_step = out->ms_median / (double)agents * 1e6;
    out->grid_ms = median(s->grid_ms, sample);
    out->behaviour_ms = median(s->behaviour_ms, sample);
    out->integrate_ms = median(s->integrate_ms, sample);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The table                                                                */
/* ------------------------------------------------------------------------ */

static int table_name_width(const options *opt) {
    size_t width = strlen("scenario");
    for (size_t i = 0; i < opt->scenario_count; ++i) {
        size_t length = strlen(opt->scenarios[i].sc->name);
        width = length > width ? length : width;
    }
    return (int)width;
}

/* The quality columns: heading, width, decimals. */
typedef struct quality_column {
    const char *heading;
    int width;
    int decimals;
} quality_column;

enum {
    COLUMN_SPEED_RATIO,
    COLUMN_FORCE_RATIO,
    COLUMN_MEAN_SPEED,
    COLUMN_POLARISATION,
    COLUMN_NEAREST,
    COLUMN_OVERLAP,
    COLUMN_SEPARATION,
    COLUMN_AT_TARGET,
    COLUMN_COUNT
};

static const quality_column quality_columns[COLUMN_COUNT] = {
    [COLUMN_SPEED_RATIO] = {"v/vmax", 6, 3},
    [COLUMN_FORCE_RATIO] = {"F/Fmax", 6, 3},
    [COLUMN_MEAN_SPEED] = {"speed", 6, 3},
    [COLUMN_POLARISATION] = {"pol", 5, 3},
    [COLUMN_NEAREST] = {"nn m", 6, 3},
    [COLUMN_OVERLAP] = {"ovl%", 6, 2},
    [COLUMN_SEPARATION] = {"sep m", 6, 3},
    [COLUMN_AT_TARGET] = {"goal%", 6, 1},
};

/* Each quality figure of a result, and whether its scenario gets it. */
static bool quality_value(const quality *q, int column, double *value) {
    switch (column) {
    case COLUMN_SPEED_RATIO: *value = q->max_speed_ratio; return true;
    case COLUMN_FORCE_RATIO: *value = q->max_force_ratio; return true;
    case COLUMN_MEAN_SPEED: *value = q->mean_speed; break;
    case COLUMN_POLARISATION: *value = q->polarisation; break;
    case COLUMN_NEAREST: *value = q->nearest_mean; break;
    case COLUMN_OVERLAP: *value = 100.0 * q->overlap_share; break;
    case COLUMN_SEPARATION: *value = q->min_separation; break;
    case COLUMN_AT_TARGET: *value = 100.0 * q->at_target_share; break;
    default: return false;
    }
    unsigned needs = column == COLUMN_AT_TARGET ? QUALITY_TARGET
                     : column == COLUMN_OVERLAP || column == COLUMN_SEPARATION
                         ? QUALITY_CROWD
                         : QUALITY_FLOCK;
    return (q->kind & needs) != 0;
}

static void table_header(FILE *out, int name_width) {
    fprintf(out,
            "%-*s %9s %7s %6s %10s %10s %9s %7s %7s %8s %9s %9s %9s %-8s "
            "%-16s %3s",
            name_width, "scenario", "agents", "threads", "steps", "ms/step",
            "min ms", "ns/agent", "nbrs", "cands", "B/agent", "grid ms",
            "behav ms", "integ ms", "simd", "hash", "nan");
    for (int k = 0; k < COLUMN_COUNT; ++k) {
        fprintf(out, " %*s", quality_columns[k].width,
                quality_columns[k].heading);
    }
    fputc('\n', out);
    fflush(out);
}

static void table_row(FILE *out, int name_width, const result *r) {
    char threads[24];
    if (r->threads == 0 || (uint32_t)r->threads != r->threads_used) {
        snprintf(threads, sizeof threads, "%d(%" PRIu32 ")", r->threads,
                 r->threads_used);
    } else {
        snprintf(threads, sizeof threads, "%d", r->threads);
    }
    fprintf(out,
            "%-*s %9" PRIu32 " %7s %6" PRIu64 " %10.3f %10.3f %9.1f %7.2f "
            "%7.2f %8.1f %9.3f %9.3f %9.3f %-8s %016" PRIx64 " %3" PRIu64,
            name_width, r->sc->name, r->agents, threads, r->iterations,
            r->ms_median, r->ms_min, r->ns_per_agent_step,
            r->neighbours_per_agent, r->candidates_per_agent,
            r->bytes_per_agent, r->grid_ms, r->behaviour_ms, r->integrate_ms,
            r->simd, r->state_hash, r->nan_count);
    for (int k = 0; k < COLUMN_COUNT; ++k) {
        double value = 0.0;
        if (quality_value(&r->q, k, &value)) {
            fprintf(out, " %*.*f", quality_columns[k].width,
                    quality_columns[k].decimals, value);
        } else {
            fprintf(out, " %*s", quality_columns[k].width, "-");
        }
    }
    fputc('\n', out);
    fflush(out);
}

/* Printed under the table: the columns a reader cannot guess. */
static void table_legend(FILE *out) {
    fprintf(out,
            "\n"
            "behav ms: the behaviour kernels and the combination of their "
            "forces, which the\n"
            "  library fuses into one stage (it reports no separate combine "
            "time).\n"
            "v/vmax, F/Fmax: largest |v| / max speed and m |dv| / dt / max "
            "force in the last\n"
            "  step, over all agents (1 is the limit).\n"
            "flocks: speed = mean |v| (m/s), pol = |mean unit heading|, "
            "nn m = mean nearest-\n"
            "  neighbour distance. crowds: ovl%% = agents overlapping another "
            "body, sep m =\n"
            "  smallest centre distance; goal%% = agents within %g m of their "
            "target.\n"
            "  nn, ovl and sep use a sample of at most %u agents; '-': not "
            "measured here.\n",
            QUALITY_TARGET_REACH, QUALITY_SAMPLE);
    fflush(out);
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                     */
/* ------------------------------------------------------------------------ */

/* Length of the valid UTF-8 sequence starting at s, or 0 if it is not one
 * (overlong forms, surrogates and values above U+10FFFF are invalid). */
static size_t utf8_sequence_length(const unsigned char *s) {
    unsigned char lead = s[0];
    size_t length;
    uint32_t code;
    if (lead < 0x80) {
        return 1;
    } else if ((lead & 0xe0) == 0xc0) {
        length = 2;
        code = lead & 0x1fu;
    } else if ((lead & 0xf0) == 0xe0) {
        length = 3;
        code = lead & 0x0fu;
    } else if ((lead & 0xf8) == 0xf0) {
        length = 4;
        code = lead & 0x07u;
    } else {
        return 0;
    }
    for (size_t i = 1; i < length; ++i) {
        if ((s[i] & 0xc0) != 0x80) {
            return 0;
        }
        code = (code << 6) | (s[i] & 0x3fu);
    }
    static const uint32_t smallest[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < smallest[length] || code > 0x10ffff ||
        (code >= 0xd800 && code <= 0xdfff)) {
        return 0;
    }
    return length;
}

/* A JSON string: quotes, backslashes and control characters escaped; bytes
 * that are not valid UTF-8 become U+FFFD so the output always parses. */
static void json_string(FILE *out, const char *text) {
    fputc('"', out);
    const unsigned char *s = (const unsigned char *)text;
    while (*s != '\0') {
        unsigned char c = *s;
        size_t length = utf8_sequence_length(s);
        if (length == 0) {
            fputs("\\ufffd", out);
            ++s;
            continue;
        }
        if (length > 1) {
            fwrite(s, 1, length, out);
            s += length;
            continue;
        }
        switch (c) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\b': fputs("\\b", out); break;
        case '\f': fputs("\\f", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (c < 0x20 || c == 0x7f) {
                fprintf(out, "\\u%04x", (unsigned)c);
            } else {
                fputc(c, out);
            }
        }
        ++s;
    }
    fputc('"', out);
}

/* A JSON number with 15 significant digits (exact for every counter and
 * far finer than any timing); null for NaN or infinity, which JSON lacks. */
static void json_number(FILE *out, double value) {
    if (isfinite(value)) {
        fprintf(out, "%.15g", value);
    } else {
        fputs("null", out);
    }
}

static void json_key(FILE *out, const char *indent, const char *key) {
    fputs(indent, out);
    json_string(out, key);
    fputs(": ", out);
}

/* "key": "value" and "key": number, each followed by ",\n" unless last. */
static void json_field_string(FILE *out, const char *indent, const char *key,
                              const char *value, bool last) {
    json_key(out, indent, key);
    json_string(out, value);
    fputs(last ? "\n" : ",\n", out);
}

static void json_field_number(FILE *out, const char *indent, const char *key,
                              double value, bool last) {
    json_key(out, indent, key);
    json_number(out, value);
    fputs(last ? "\n" : ",\n", out);
}

static void json_field_u64(FILE *out, const char *indent, const char *key,
                           uint64_t value, bool last) {
    json_key(out, indent, key);
    fprintf(out, "%" PRIu64 "%s", value, last ? "\n" : ",\n");
}

/* What the run's machine looks like, gathered once at the end. */
typedef struct machine {
    char slug[64]; /* see machine_slug */
    char date[40];
    char host_name[256];
    long num_cpus;
    double mhz_per_cpu; /* 0 when unknown */
    char cpu_model[256];
    bool have_load_avg;
    double load_avg[3];
} machine;

/* The value after "key<blanks>:" on the first matching line of
 * /proc/cpuinfo, trimmed; false when absent. */
static bool cpuinfo_value(const char *key, char *buffer, size_t size) {
    FILE *file = fopen("/proc/cpuinfo", "r");
    if (file == NULL) {
        return false;
    }
    char *line = NULL;
    size_t capacity = 0;
    bool found = false;
    size_t key_length = strlen(key);
    while (!found && getline(&line, &capacity, file) != -1) {
        if (strncmp(line, key, key_length) != 0) {
            continue;
        }
        const char *rest = line + key_length;
        rest += strspn(rest, " \t");
        if (*rest != ':') {
            continue;
        }
        ++rest;
        rest += strspn(rest, " \t");
        size_t length = strcspn(rest, "\r\n");
        while (length > 0 && (rest[length - 1] == ' ' ||
                              rest[length - 1] == '\t')) {
            --length;
        }
        if (length >= size) {
            length = size - 1;
        }
        memcpy(buffer, rest, length);
        buffer[length] = '\0';
        found = true;
    }
    free(line);
    fclose(file);
    return found;
}

/* Appends `word` to a slug, lower-cased, with a '-' before it unless the
 * slug is empty; characters other than [a-z0-9] become '-', and runs of
 * '-' collapse, so the slug is always a safe folder name. */
static void slug_append(char *slug, size_t size, const char *word) {
    size_t length = strlen(slug);
    bool dash = length > 0;
    for (const char *c = word; *c != '\0' && length + 2 < size; ++c) {
        char ch = *c;
        if (ch >= 'A' && ch <= 'Z') {
            ch = (char)(ch - 'A' + 'a');
        }
        bool keep = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
        if (!keep) {
            dash = length > 0;
            continue;
        }
        if (dash && slug[length - 1] != '-') {
            slug[length++] = '-';
        }
        dash = false;
        slug[length++] = ch;
    }
    slug[length] = '\0';
}

/* The AMD Zen generation from /proc/cpuinfo's family and model (the
 * model name of a virtual machine often hides it: "AMD EPYC"); NULL when
 * unknown. */
static const char *amd_zen_generation(long family, long model) {
    switch (family) {
    case 0x17:
        return model >= 0x30 ? "zen2" : "zen";
    case 0x19:
        return (model >= 0x10 && model <= 0x1f) ||
                       (model >= 0x60 && model <= 0x7f) ||
                       (model >= 0xa0 && model <= 0xaf)
                   ? "zen4"
                   : "zen3";
    case 0x1a:
        return "zen5";
    default:
        return NULL;
    }
}

/* $BENCH_MACHINE, or NULL when unset or empty. */
static const char *machine_forced(void) {
    const char *forced = getenv("BENCH_MACHINE");
    return forced != NULL && forced[0] != '\0' ? forced : NULL;
}

/* A forced name is used as it is, so it must be a plain folder name. */
static bool machine_forced_ok(void) {
    const char *forced = machine_forced();
    return forced == NULL || (strchr(forced, '/') == NULL && forced[0] != '.');
}

/* The machine's name for bench/results/<machine>/: $BENCH_MACHINE when
 * set, else the CPU model's distinctive words, the Zen generation on AMD,
 * and the logical CPU count, e.g. "epyc-zen5-2c" or "xeon-gold-6338-8c".
 * The regression gates derive the same name (bench/machine.sh), since a
 * baseline is only compared on its own machine. */
static void machine_slug(char *slug, size_t size) {
    slug[0] = '\0';
    if (machine_forced() != NULL) {
        snprintf(slug, size, "%s", machine_forced());
        return;
    }

    char model_name[256];
    struct utsname host;
    if (!cpuinfo_value("model name", model_name, sizeof model_name)) {
        snprintf(model_name, sizeof model_name, "%s",
                 uname(&host) == 0 ? host.machine : "");
    }
    /* Words that name the vendor, the kind of part or its clock. */
    static const char *const noise[] = {
        "amd", "intel", "cpu", "processor", "with", "radeon", "graphics",
    };
    char *save = NULL;
    for (char *word = strtok_r(model_name, " \t", &save); word != NULL;
         word = strtok_r(NULL, " \t", &save)) {
        if (word[0] == '@') {
            break; /* "@ 2.90GHz" */
        }
        /* "Intel(R)", "Core(TM)": drop the mark, keep the word. */
        char *mark = strchr(word, '(');
        if (mark != NULL) {
            *mark = '\0';
        }
        size_t length = strlen(word);
        bool skip = length == 0 ||
                    (length > 5 && strcasecmp(word + length - 5, "-core") == 0);
        for (size_t k = 0; k < sizeof noise / sizeof noise[0] && !skip;
             ++k) {
            skip = strcasecmp(word, noise[k]) == 0;
        }
        if (!skip) {
            slug_append(slug, size, word);
        }
    }
    char vendor[64], family[32], model[32];
    if (cpuinfo_value("vendor_id", vendor, sizeof vendor) &&
        strcmp(vendor, "AuthenticAMD") == 0 &&
        cpuinfo_value("cpu family", family, sizeof family) &&
        cpuinfo_value("model", model, sizeof model)) {
        const char *zen = amd_zen_generation(strtol(family, NULL, 10),
                                             strtol(model, NULL, 10));
        if (zen != NULL) {
            slug_append(slug, size, zen);
        }
    }
    if (slug[0] == '\0') {
        slug_append(slug, size, "cpu");
    }
    char cpus[32];
    snprintf(cpus, sizeof cpus, "%ldc", sysconf(_SC_NPROCESSORS_ONLN));
    slug_append(slug, size, cpus);
}

static void machine_gather(machine *m) {
    memset(m, 0, sizeof *m);

    /* ISO 8601 with the local offset, "2024-05-01T12:00:00+02:00", as
     * Google Benchmark writes it. */
    time_t now = time(NULL);
    struct tm local;
    tzset();
    if (localtime_r(&now, &local) != NULL &&
        strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%S%z", &local) >
            0) {
        size_t length = strlen(m->date);
        if (length >= 5 && length + 1 < sizeof m->date) {
            memmove(m->date + length - 1, m->date + length - 2, 3);
            m->date[length - 2] = ':';
        }
    }

    if (gethostname(m->host_name, sizeof m->host_name) != 0) {
        m->host_name[0] = '\0';
    }
    m->host_name[sizeof m->host_name - 1] = '\0';

    m->num_cpus = sysconf(_SC_NPROCESSORS_ONLN);

    char text[64];
    if (cpuinfo_value("cpu MHz", text, sizeof text)) {
        m->mhz_per_cpu = strtod(text, NULL);
    }
    if (!cpuinfo_value("model name", m->cpu_model, sizeof m->cpu_model)) {
        snprintf(m->cpu_model, sizeof m->cpu_model, "%s", "unknown");
    }
    machine_slug(m->slug, sizeof m->slug);

    FILE *loadavg = fopen("/proc/loadavg", "r");
    if (loadavg != NULL) {
        /* The kernel writes three plain decimals; the count is checked. */
        /* NOLINTNEXTLINE(cert-err34-c) */
        m->have_load_avg = fscanf(loadavg, "%lf %lf %lf", &m->load_avg[0],
                                  &m->load_avg[1], &m->load_avg[2]) == 3;
        fclose(loadavg);
    }
}

/* "key": [v, v, ...] of doubles, each as json_number writes it. */
static void json_field_array(FILE *out, const char *indent, const char *key,
                             const double *values, size_t count, bool last) {
    json_key(out, indent, key);
    fputc('[', out);
    for (size_t i = 0; i < count; ++i) {
        if (i > 0) {
            fputs(", ", out);
        }
        json_number(out, values[i]);
    }
    fputs(last ? "]\n" : "],\n", out);
}

/* How the library's kernels were built into this program. */
static const char *simd_build(void) {
#ifdef THRONG_HAVE_SIMD_KERNELS
    return "run-time dispatch: scalar, sse2, avx2, avx512";
#else
    return "scalar only";
#endif
}

static void openmp_version(char *buffer, size_t size) {
#ifdef _OPENMP
    snprintf(buffer, size, "%ld", (long)_OPENMP);
#else
    snprintf(buffer, size, "%s", "off");
#endif
}

static void json_write(FILE *out, const options *opt, const machine *m,
                       const char *executable, const result *results,
                       size_t count) {
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", THRONG_VERSION_MAJOR,
             THRONG_VERSION_MINOR, THRONG_VERSION_PATCH);
    char openmp[32];
    openmp_version(openmp, sizeof openmp);
    const char *simd_env = NULL;
    throng_simd asked = THRONG_SIMD_AUTO;
    (void)scenario_simd_from_env(&asked, &simd_env);

    const char *in = "    ";
    fputs("{\n  \"context\": {\n", out);
    json_field_string(out, in, "date", m->date, false);
    json_field_string(out, in, "host_name", m->host_name, false);
    json_field_string(out, in, "machine", m->slug, false);
    json_field_string(out, in, "executable", executable, false);
    json_field_number(out, in, "num_cpus", (double)m->num_cpus, false);
    if (m->mhz_per_cpu > 0.0) {
        json_field_number(out, in, "mhz_per_cpu", round(m->mhz_per_cpu),
                          false);
    }
    json_field_string(out, in, "cpu_model", m->cpu_model, false);
    if (m->have_load_avg) {
        json_key(out, in, "load_avg");
        fprintf(out, "[%.2f, %.2f, %.2f],\n", m->load_avg[0], m->load_avg[1],
                m->load_avg[2]);
    }
    json_field_string(out, in, "library_version", version, false);
    json_field_string(out, in, "compiler", COMPILER, false);
    json_field_string(out, in, "compiler_flags", THRONG_BENCH_CFLAGS, false);
    json_field_string(out, in, "openmp", openmp, false);
    json_field_string(out, in, "simd", count > 0 ? results[0].simd : "unknown",
                      false);
    json_field_string(out, in, "simd_best",
                      throng_simd_name(throng_simd_best()), false);
    json_field_string(out, in, "simd_build", simd_build(), false);
    if (simd_env != NULL) {
        json_field_string(out, in, "simd_env", simd_env, false);
    }
    json_key(out, in, "threads");
    fputc('[', out);
    for (size_t i = 0; i < opt->thread_count; ++i) {
        fprintf(out, "%s%d", i > 0 ? ", " : "", opt->threads[i]);
    }
    fputs("],\n", out);
    json_field_u64(out, in, "seed", opt->seed, false);
    json_field_u64(out, in, "steps", opt->steps, false);
    json_field_u64(out, in, "warmup", opt->warmup, false);
    json_field_u64(out, in, "repeats", opt->repeats, true);
    fputs("  },\n  \"benchmarks\": [\n", out);

    in = "      ";
    size_t family = 0;
    size_t instance = 0;
    for (size_t i = 0; i < count; ++i) {
        const result *r = &results[i];
        const quality *q = &r->q;
        if (i > 0) {
            if (r->sc != results[i - 1].sc) {
                ++family;
                instance = 0;
            } else {
                ++instance;
            }
        }
        char name[128];
        config_name(r->sc, r->agents, r->threads, name, sizeof name);
        char hash[17];
        snprintf(hash, sizeof hash, "%016" PRIx64, r->state_hash);

        fputs("    {\n", out);
        json_field_string(out, in, "name", name, false);
        json_field_u64(out, in, "family_index", family, false);
        json_field_u64(out, in, "per_family_instance_index", instance, false);
        json_field_string(out, in, "run_name", name, false);
        json_field_string(out, in, "run_type", "iteration", false);
        json_field_u64(out, in, "repetitions", opt->repeats, false);
        json_field_u64(out, in, "threads", (uint64_t)r->threads, false);
        json_field_u64(out, in, "iterations", r->iterations, false);
        json_field_number(out, in, "real_time", r->ms_median, false);
        json_field_number(out, in, "cpu_time", r->ms_median, false);
        json_field_string(out, in, "time_unit", "ms", false);
        json_field_string(out, in, "scenario", r->sc->name, false);
        json_field_u64(out, in, "agents", r->agents, false);
        json_field_u64(out, in, "threads_used", r->threads_used, false);
        json_field_u64(out, in, "steps", opt->steps, false);
        json_field_u64(out, in, "warmup", opt->warmup, false);
        json_field_number(out, in, "dt", (double)r->sc->dt, false);
        json_field_number(out, in, "ms_per_step_median", r->ms_median, false);
        json_field_number(out, in, "ms_per_step_min", r->ms_min, false);
        json_field_array(out, in, "repeat_ms", r->repeat_ms, r->repeat_count,
                         false);
        json_field_number(out, in, "ns_per_agent_step", r->ns_per_agent_step,
                          false);
        json_field_number(out, in, "neighbours_per_agent",
                          r->neighbours_per_agent, false);
        json_field_number(out, in, "candidates_per_agent",
                          r->candidates_per_agent, false);
        json_field_number(out, in, "bytes_per_agent", r->bytes_per_agent,
                          false);
        json_field_number(out, in, "grid_ms", r->grid_ms, false);
        json_field_number(out, in, "behaviour_ms", r->behaviour_ms, false);
        json_field_number(out, in, "integrate_ms", r->integrate_ms, false);
        json_field_string(out, in, "simd", r->simd, false);
        json_field_string(out, in, "state_hash", hash, false);
        json_field_number(out, in, "max_speed_ratio", q->max_speed_ratio,
                          false);
        json_field_number(out, in, "max_force_ratio", q->max_force_ratio,
                          false);
        if (q->kind & QUALITY_FLOCK) {
            json_field_number(out, in, "mean_speed", q->mean_speed, false);
            json_field_number(out, in, "polarisation", q->polarisation, false);
            json_field_number(out, in, "nearest_neighbour_m", q->nearest_mean,
                              false);
        }
        if (q->kind & QUALITY_CROWD) {
            json_field_u64(out, in, "overlap_pairs", q->overlap_pairs, false);
            json_field_number(out, in, "overlap_share", q->overlap_share,
                              false);
            json_field_number(out, in, "min_separation_m", q->min_separation,
                              false);
        }
        if (q->kind & QUALITY_TARGET) {
            json_field_number(out, in, "at_target_share", q->at_target_share,
                              false);
        }
        if (q->kind & (QUALITY_FLOCK | QUALITY_CROWD)) {
            json_field_u64(out, in, "quality_sample", q->sample, false);
        }
        json_field_number(out, in, "quality_ms", r->quality_ms, false);
        json_field_u64(out, in, "nan_count", r->nan_count, true);
        fputs(i + 1 < count ? "    },\n" : "    }\n", out);
    }
    fputs("  ]\n}\n", out);
}

/* ------------------------------------------------------------------------ */
/* CSV                                                                      */
/* ------------------------------------------------------------------------ */

/* A number, or an empty field when absent or not finite. */
static void csv_number(FILE *out, double value, bool present) {
    fputc(',', out);
    if (present && isfinite(value)) {
        fprintf(out, "%.15g", value);
    }
}

/* One row per configuration: the table's columns, the repeats' medians
 * (joined by ';' so the field needs no quoting) and the quality figures.
 * Names hold no commas or quotes (scenario names are identifiers), so no
 * field needs quoting. */
static void csv_write(FILE *out, const machine *m, const result *results,
                      size_t count) {
    fputs("machine,scenario,agents,threads,threads_used,steps,"
          "ms_per_step_median,ms_per_step_min,ns_per_agent_step,"
          "neighbours_per_agent,candidates_per_agent,bytes_per_agent,grid_ms,"
          "behaviour_ms,integrate_ms,simd,state_hash,nan_count,repeat_ms,"
          "max_speed_ratio,max_force_ratio,mean_speed,polarisation,"
          "nearest_neighbour_m,overlap_pairs,overlap_share,min_separation_m,"
          "at_target_share,quality_sample,quality_ms\n",
          out);
    for (size_t i = 0; i < count; ++i) {
        const result *r = &results[i];
        const quality *q = &r->q;
        bool flock = (q->kind & QUALITY_FLOCK) != 0;
        bool crowd = (q->kind & QUALITY_CROWD) != 0;
        fprintf(out, "%s,%s,%" PRIu32 ",%d,%" PRIu32 ",%" PRIu64, m->slug,
                r->sc->name, r->agents, r->threads, r->threads_used,
                r->iterations);
        csv_number(out, r->ms_median, true);
        csv_number(out, r->ms_min, true);
        csv_number(out, r->ns_per_agent_step, true);
        csv_number(out, r->neighbours_per_agent, true);
        csv_number(out, r->candidates_per_agent, true);
        csv_number(out, r->bytes_per_agent, true);
        csv_number(out, r->grid_ms, true);
        csv_number(out, r->behaviour_ms, true);
        csv_number(out, r->integrate_ms, true);
        fprintf(out, ",%s,%016" PRIx64 ",%" PRIu64 ",", r->simd, r->state_hash,
                r->nan_count);
        for (uint32_t k = 0; k < r->repeat_count; ++k) {
            fprintf(out, "%s%.6g", k > 0 ? ";" : "", r->repeat_ms[k]);
        }
        csv_number(out, q->max_speed_ratio, true);
        csv_number(out, q->max_force_ratio, true);
        csv_number(out, q->mean_speed, flock);
        csv_number(out, q->polarisation, flock);
        csv_number(out, q->nearest_mean, flock);
        csv_number(out, (double)q->overlap_pairs, crowd);
        csv_number(out, q->overlap_share, crowd);
        csv_number(out, q->min_separation, crowd);
        csv_number(out, q->at_target_share,
                   (q->kind & QUALITY_TARGET) != 0);
        csv_number(out, (double)q->sample, flock || crowd);
        csv_number(out, r->quality_ms, true);
        fputc('\n', out);
    }
}

/* ------------------------------------------------------------------------ */
/* SVG                                                                      */
/* ------------------------------------------------------------------------ */

static bool plot_write(FILE *out, const options *opt, const machine *m,
                       const result *results, size_t count) {
    plot_row *rows = calloc(count + 1, sizeof *rows);
    if (rows == NULL) {
        return false;
    }
    for (size_t i = 0; i < count; ++i) {
        rows[i].scenario = results[i].sc->name;
        rows[i].threads = results[i].threads;
        rows[i].agents = results[i].agents;
        rows[i].ms = results[i].ms_median;
    }
    char title[160];
    snprintf(title, sizeof title,
             "throng %d.%d.%d on %s: median ms per step against agents",
             THRONG_VERSION_MAJOR, THRONG_VERSION_MINOR, THRONG_VERSION_PATCH,
             m->slug);
    char subtitle[256];
    snprintf(subtitle, sizeof subtitle,
             "%s kernels; %" PRIu32 " counted steps after %" PRIu32
             " warm-up, %" PRIu32 " repeat%s; %s",
             count > 0 ? results[0].simd : "unknown", opt->steps, opt->warmup,
             opt->repeats, opt->repeats == 1 ? "" : "s", m->date);
    bool ok = plot_write_svg(out, rows, count, title, subtitle);
    free(rows);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Listing                                                                  */
/* ------------------------------------------------------------------------ */

static void print_scenarios(FILE *out) {
    for (size_t i = 0; i < scenario_count(); ++i) {
        const scenario *sc = scenario_at(i);
        fprintf(out, "%-10s %s\n", sc->name, sc->description);
        fprintf(out, "%-10s   dimensions %d, dt %.6g s\n", "",
                sc->dimensions, (double)sc->dt);
        unsigned kind = quality_kind(sc);
        fprintf(out, "%-10s   quality: nan, v/vmax, F/Fmax%s%s%s\n", "",
                kind & QUALITY_FLOCK ? ", speed, pol, nn m" : "",
                kind & QUALITY_CROWD ? ", ovl%, sep m" : "",
                kind & QUALITY_TARGET ? ", goal%" : "");
        for (size_t k = 0; k < sc->param_count; ++k) {
            const scenario_param *p = &sc->params[k];
            fprintf(out, "%-10s   %-18s %-9.6g %-12s %s\n", "", p->name,
                    p->value, p->unit, p->meaning);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Checks after the run                                                     */
/* ------------------------------------------------------------------------ */

/* Reports on stderr every configuration whose state went non-finite or
 * differed between repeats, and every (scenario, agents) whose thread
 * counts disagree. Returns the number of problems. */
static size_t check_results(const result *results, size_t count) {
    size_t problems = 0;
    for (size_t i = 0; i < count; ++i) {
        const result *r = &results[i];
        char name[128];
        config_name(r->sc, r->agents, r->threads, name, sizeof name);
        if (r->nan_count > 0) {
            fprintf(stderr,
                    PROGRAM ": %s: %" PRIu64 " agents ended with a "
                            "non-finite position or velocity\n",
                    name, r->nan_count);
            ++problems;
        }
        if (!r->repeats_agree) {
            fprintf(stderr,
                    PROGRAM ": %s: repeats of the same run ended in "
                            "different states\n",
                    name);
            ++problems;
        }
        /* Compare with the first earlier run of the same scene. */
        for (size_t j = 0; j < i; ++j) {
            const result *first = &results[j];
            if (first->sc == r->sc && first->agents == r->agents) {
                if (first->state_hash != r->state_hash) {
                    fprintf(stderr,
                            PROGRAM ": %s: final state %016" PRIx64
                                    " differs from threads:%d (%016" PRIx64
                                    "); a step must not depend on the "
                                    "thread count\n",
                            name, r->state_hash, first->threads,
                            first->state_hash);
                    ++problems;
                }
                break;
            }
        }
    }
    return problems;
}

/* ------------------------------------------------------------------------ */
/* main                                                                     */
/* ------------------------------------------------------------------------ */

/* A file named by --json, --csv or --plot; "-" is stdout. */
typedef struct output {
    const char *kind; /* "JSON", "CSV", "SVG" */
    const char *path; /* NULL: not asked for */
    FILE *file;
} output;

static bool output_to_stdout(const output *o) {
    return o->path != NULL && strcmp(o->path, "-") == 0;
}

/* Opens every asked-for output before the run, so a bad path fails in a
 * second rather than after the sweep. */
static bool outputs_open(output *outputs, size_t count) {
    for (size_t i = 0; i < count; ++i) {
        output *o = &outputs[i];
        if (o->path == NULL) {
            continue;
        }
        o->file = output_to_stdout(o) ? stdout : fopen(o->path, "w");
        if (o->file == NULL) {
            usage_error("cannot open '%s' for the %s: %s", o->path, o->kind,
                        strerror(errno));
            return false;
        }
    }
    return true;
}

/* Flushes and closes; false (after saying so) when anything failed. */
static bool output_close(output *o) {
    if (o->file == NULL) {
        return true;
    }
    bool ok = fflush(o->file) == 0 && !ferror(o->file);
    if (!output_to_stdout(o) && fclose(o->file) != 0) {
        ok = false;
    }
    o->file = NULL;
    if (!ok) {
        fprintf(stderr, PROGRAM ": writing the %s to '%s' failed: %s\n",
                o->kind, o->path, strerror(errno));
    }
    return ok;
}

/* Reads THRONG_SIMD (through the scenarios, which build every world with
 * it) before anything runs: a name that is no path is a usage error, a path
 * this CPU or build lacks gets its own exit status. On success *run is the
 * path the worlds will run. */
static int simd_check(throng_simd *run) {
    const char *text = NULL;
    throng_simd asked = THRONG_SIMD_AUTO;
    throng_simd best = throng_simd_best();
    if (scenario_simd_from_env(&asked, &text) != THRONG_OK) {
        usage_error(SCENARIO_SIMD_ENV " must be scalar, sse2, avx2, avx512, "
                                      "neon or auto, got '%s'",
                    text != NULL ? text : "");
        return EXIT_USAGE;
    }
    if (!throng_simd_supported(asked)) {
        fprintf(stderr,
                PROGRAM ": " SCENARIO_SIMD_ENV "=%s: this CPU or build has "
                        "no %s path (the widest it offers is %s)\n",
                text, throng_simd_name(asked), throng_simd_name(best));
        return EXIT_UNSUPPORTED;
    }
    *run = asked == THRONG_SIMD_AUTO ? best : asked;
    return 0;
}

/* The line above the table, and on stderr a warning when the run is
 * narrower than the CPU allows (a figure from the scalar path must not
 * pass for this machine's speed). */
static void simd_report(FILE *table, throng_simd run) {
    throng_simd best = throng_simd_best();
    fprintf(table, "simd: %s (widest this CPU and build offer: %s)\n",
            throng_simd_name(run), throng_simd_name(best));
    if (run != best) {
        fflush(table);
        fprintf(stderr,
                PROGRAM ": warning: running the %s path; this CPU offers %s\n",
                throng_simd_name(run), throng_simd_name(best));
    }
}

/* The agent counts a --scenario entry runs at. */
static const uint32_t *entry_agents(const options *opt, size_t entry,
                                    size_t *count) {
    const scenario_entry *e = &opt->scenarios[entry];
    *count = e->agents != NULL ? e->agent_count : opt->agent_count;
    return e->agents != NULL ? e->agents : opt->agents;
}

/* --busy: child processes that spin until killed, so the machine has
 * fewer free cores than the step has threads, as when the host program,
 * a compiler or another program shares it. Children, not threads: they
 * compete as other programs do, and the library's OpenMP runtime never
 * sees them. Returns how many started. */
static uint32_t busy_start(uint32_t count, pid_t *pids) {
    uint32_t started = 0;
    for (; started < count; ++started) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
            break;
        }
        if (pid == 0) {
            volatile uint64_t spin = 0;
            for (;;) {
                spin = spin + 1;
            }
        }
        pids[started] = pid;
    }
    return started;
}

static void busy_stop(uint32_t count, const pid_t *pids) {
    for (uint32_t k = 0; k < count; ++k) {
        kill(pids[k], SIGKILL);
        waitpid(pids[k], NULL, 0);
    }
}

int main(int argc, char **argv) {
    options opt;
    memset(&opt, 0, sizeof opt);
    opt.steps = DEFAULT_STEPS;
    opt.warmup = DEFAULT_WARMUP;
    opt.repeats = DEFAULT_REPEATS;
    opt.seed = DEFAULT_SEED;

    int exit_status = 0;
    if (!parse_list("--scenario", DEFAULT_SCENARIOS, LIST_SCENARIOS, &opt) ||
        !parse_list("--agents", DEFAULT_AGENTS, LIST_AGENTS, &opt) ||
        !parse_list("--threads", DEFAULT_THREADS, LIST_THREADS, &opt)) {
        options_free(&opt);
        return EXIT_FAILED;
    }
    exit_status = parse_options(argc, argv, &opt);
    if (exit_status == 0 && !opt.help && !opt.list && !machine_forced_ok()) {
        usage_error("BENCH_MACHINE must be a plain folder name, got '%s'",
                    machine_forced());
        exit_status = EXIT_USAGE;
    }
    if (exit_status != 0 || opt.help || opt.list || opt.machine) {
        if (exit_status == 0 && opt.help) {
            print_help(stdout);
        } else if (exit_status == 0 && opt.list) {
            print_scenarios(stdout);
        } else if (exit_status == 0) {
            char slug[64];
            machine_slug(slug, sizeof slug);
            puts(slug);
        }
        options_free(&opt);
        return exit_status;
    }

    throng_simd simd_run = THRONG_SIMD_AUTO;
    exit_status = simd_check(&simd_run);
    if (exit_status != 0) {
        options_free(&opt);
        return exit_status;
    }

    size_t config_count = 0;
    for (size_t a = 0; a < opt.scenario_count; ++a) {
        size_t agent_count = 0;
        entry_agents(&opt, a, &agent_count);
        config_count += agent_count * opt.thread_count;
    }
    size_t sample_count = (size_t)opt.steps * opt.repeats;
    if (opt.repeats != 0 && sample_count / opt.repeats != opt.steps) {
        usage_error("--steps x --repeats is too large");
        options_free(&opt);
        return EXIT_USAGE;
    }

    output outputs[3] = {
        {"JSON", opt.json_path, NULL},
        {"CSV", opt.csv_path, NULL},
        {"SVG", opt.plot_path, NULL},
    };
    enum { OUT_JSON, OUT_CSV, OUT_PLOT, OUT_COUNT };
    bool any_to_stdout = false;
    for (int k = 0; k < OUT_COUNT; ++k) {
        any_to_stdout = any_to_stdout || output_to_stdout(&outputs[k]);
    }
    if (!outputs_open(outputs, OUT_COUNT)) {
        for (int k = 0; k < OUT_COUNT; ++k) {
            output_close(&outputs[k]);
        }
        options_free(&opt);
        return EXIT_USAGE;
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

    progress bar;
    memset(&bar, 0, sizeof bar);
    bar.enabled = !opt.quiet && isatty(STDERR_FILENO);
    bar.config_count = config_count;
    bar.repeats = opt.repeats;
    bar.total = (uint64_t)config_count * opt.repeats *
                ((uint64_t)opt.warmup + opt.steps);

    pid_t busy_pids[MAX_BUSY];
    uint32_t busy = 0;
    if (exit_status == 0 && opt.busy > 0) {
        busy = busy_start(opt.busy, busy_pids);
        if (busy < opt.busy) {
            fprintf(stderr, PROGRAM ": could start only %" PRIu32
                    " of %" PRIu32 " busy processes\n", busy, opt.busy);
            exit_status = EXIT_FAILED;
        }
    }

    size_t done = 0;
    int name_width = table_name_width(&opt);
    if (exit_status == 0) {
        simd_report(table, simd_run);
        table_header(table, name_width);
    }
    for (size_t a = 0; a < opt.scenario_count && exit_status == 0; ++a) {
        size_t agent_count = 0;
        const uint32_t *agents = entry_agents(&opt, a, &agent_count);
        for (size_t b = 0; b < agent_count && exit_status == 0; ++b) {
            for (size_t c = 0; c < opt.thread_count && exit_status == 0;
                 ++c) {
                result *r = &results[done];
                r->repeat_ms = repeat_ms + done * opt.repeats;
                bar.config = done + 1;
                exit_status = run_config(&opt, opt.scenarios[a].sc, agents[b],
                                         opt.threads[c], &s, &snap, &bar, r);
                if (exit_status == 0) {
                    progress_clear(&bar);
                    table_row(table, name_width, r);
                    ++done;
                }
            }
        }
    }
    progress_clear(&bar);
    busy_stop(busy, busy_pids);

    if (exit_status == 0) {
        if (busy > 0) {
            fprintf(table, "\n%" PRIu32 " busy process%s ran beside the "
                    "steps (--busy).\n", busy, busy == 1 ? "" : "es");
        }
        if (opt.stable_columns) {
            fprintf(table, "\nThe worlds kept their column pointers "
                    "through steps (--stable-columns).\n");
        }
        table_legend(table);
        machine m;
        machine_gather(&m);
        if (outputs[OUT_JSON].file != NULL) {
            json_write(outputs[OUT_JSON].file, &opt, &m, argv[0], results,
                       done);
        }
        if (outputs[OUT_CSV].file != NULL) {
            csv_write(outputs[OUT_CSV].file, &m, results, done);
        }
        if (outputs[OUT_PLOT].file != NULL &&
            !plot_write(outputs[OUT_PLOT].file, &opt, &m, results, done)) {
            fprintf(stderr, PROGRAM ": out of memory drawing the plot\n");
            exit_status = EXIT_FAILED;
        }
    }
    bool written = true;
    for (int k = 0; k < OUT_COUNT; ++k) {
        bool asked = outputs[k].file != NULL && !output_to_stdout(&outputs[k]);
        bool closed = output_close(&outputs[k]);
        written = written && closed;
        if (exit_status == 0 && asked && closed) {
            fprintf(table, "wrote %-4s %s\n", outputs[k].kind,
                    outputs[k].path);
        }
    }
    if (!written && exit_status == 0) {
        exit_status = EXIT_FAILED;
    }
    if (exit_status == 0 && check_results(results, done) > 0) {
        exit_status = EXIT_FAILED;
    }

    quality_snapshot_free(&snap);
    samples_free(&s);
    free(repeat_ms);
    free(results);
    options_free(&opt);
    return exit_status;
}
