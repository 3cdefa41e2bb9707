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
 * Results go to a table (stdout, or stderr when the JSON goes to stdout) as
 * each configuration finishes, and optionally to a JSON file shaped like
 * Google Benchmark's, so existing tooling (compare.py and friends) reads it.
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
#include <time.h>
#include <unistd.h>

#include "scenarios.h"

#define PROGRAM "throng-bench"

/* Exit statuses: 1 when the library refused something or a check failed,
 * 2 when the command line was wrong. */
#define EXIT_FAILED 1
#define EXIT_USAGE 2

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

/* ------------------------------------------------------------------------ */
/* Options                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct options {
    const scenario **scenarios;
    size_t scenario_count;
    uint32_t *agents;
    size_t agent_count;
    int *threads;
    size_t thread_count;
    uint32_t steps;
    uint32_t warmup;
    uint32_t repeats;
    uint64_t seed;
    const char *json_path; /* NULL: no JSON; "-": stdout */
    bool list;
    bool help;
} options;

static void options_free(options *opt) {
    free(opt->scenarios);
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
        "steps, then times every counted step on its own.\n"
        "\n"
        "options:\n"
        "  --scenario NAME[,NAME...]  scenarios to run (default " DEFAULT_SCENARIOS
        ")\n"
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
        "  --json FILE                also write Google-Benchmark-style JSON to\n"
        "                             FILE; '-' is stdout (the table then goes\n"
        "                             to stderr)\n"
        "  --list                     list the scenarios and their parameters\n"
        "  --help                     this text\n"
        "Options take their value as the next argument or after '='.\n"
        "\n"
        "columns: median and minimum ms per step over all counted steps;\n"
        "ns per agent-step (median ms / agents); neighbours and candidates\n"
        "per agent (mean over counted steps); heap bytes per agent after the\n"
        "run; median per-stage ms (grid, behaviours, integration); the SIMD\n"
        "path; the final state hash; agents with a non-finite position or\n"
        "velocity at the end.\n"
        "\n"
        "exit status: 0 ok; 1 the library refused a call, a position or\n"
        "velocity became non-finite, or the final state differed between\n"
        "repeats or thread counts; 2 bad command line.\n",
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
    size_t element_size = kind == LIST_SCENARIOS ? sizeof(const scenario *)
                          : kind == LIST_AGENTS  ? sizeof(uint32_t)
                                                 : sizeof(int);
    void *array = calloc(count, element_size);
    if (array == NULL) {
        usage_error("%s: out of memory", option);
        return false;
    }

    const char *start = text;
    for (size_t i = 0; i < count; ++i) {
        size_t length = strcspn(start, ",");
        char item[128];
        if (!list_item(start, length, item, sizeof item)) {
            usage_error("%s: item too long in '%s'", option, text);
            free(array);
            return false;
        }
        uint64_t value = 0;
        switch (kind) {
        case LIST_SCENARIOS: {
            const scenario *sc = scenario_find(item);
            if (sc == NULL) {
                usage_error("%s: unknown scenario '%s' (--list shows them)",
                            option, item);
                free(array);
                return false;
            }
            ((const scenario **)array)[i] = sc;
            break;
        }
        case LIST_AGENTS:
            if (!parse_count(item, true, THRONG_MAX_AGENTS, &value) ||
                value == 0) {
                usage_error("%s: '%s' is not an agent count from 1 to %u "
                            "(N, Nk or NM)",
                            option, item, THRONG_MAX_AGENTS);
                free(array);
                return false;
            }
            ((uint32_t *)array)[i] = (uint32_t)value;
            break;
        case LIST_THREADS:
            if (!parse_count(item, false, MAX_THREADS, &value)) {
                usage_error("%s: '%s' is not a thread count from 0 to %u",
                            option, item, MAX_THREADS);
                free(array);
                return false;
            }
            ((int *)array)[i] = (int)value;
            break;
        }
        start += length + 1;
    }

    switch (kind) {
    case LIST_SCENARIOS:
        free(opt->scenarios);
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
        };
        bool takes_value = false;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0]; ++k) {
            takes_value = takes_value || strcmp(name, valued[k]) == 0;
        }
        if (!takes_value) {
            if (strcmp(name, "--help") == 0 || strcmp(name, "--list") == 0) {
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
        } else if (strcmp(name, "--json") == 0) {
            ok = value[0] != '\0';
            if (!ok) {
                usage_error("--json: expected a file name or '-'");
            }
            opt->json_path = value;
        }
        if (!ok) {
            return EXIT_USAGE;
        }
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

/* Agents whose position or velocity has a non-finite component. */
static uint64_t count_non_finite(const throng_world *world) {
    throng_columns columns;
    if (throng_world_columns(world, &columns) != THRONG_OK) {
        return 0;
    }
    const float *const vectors[6] = {columns.px, columns.py, columns.pz,
                                     columns.vx, columns.vy, columns.vz};
    uint64_t bad = 0;
    for (uint32_t i = 0; i < columns.count; ++i) {
        bool finite = true;
        for (int k = 0; k < 6; ++k) {
            if (vectors[k] != NULL && !isfinite(vectors[k][i])) {
                finite = false;
            }
        }
        bad += finite ? 0u : 1u;
    }
    return bad;
}

static void config_name(const scenario *sc, uint32_t agents, int threads,
                        char *buffer, size_t size) {
    snprintf(buffer, size, "%s/%" PRIu32 "/threads:%d", sc->name, agents,
             threads);
}

/* Runs one configuration for all repeats into *out. Returns 0, or
 * EXIT_FAILED after printing what the library refused. */
static int run_config(const options *opt, const scenario *sc, uint32_t agents,
                      int threads, samples *s, result *out) {
    char name[128];
    config_name(sc, agents, threads, name, sizeof name);

    memset(out, 0, sizeof *out);
    out->sc = sc;
    out->agents = agents;
    out->threads = threads;
    out->repeats_agree = true;
    snprintf(out->simd, sizeof out->simd, "%s", "unknown");

    double neighbours_sum = 0.0;
    double candidates_sum = 0.0;
    size_t sample = 0;

    for (uint32_t repeat = 0; repeat < opt->repeats; ++repeat) {
        throng_world *world = NULL;
        throng_status status = sc->build(agents, threads, opt->seed, &world);
        if (status != THRONG_OK) {
            fprintf(stderr, PROGRAM ": %s: building the world failed: %s\n",
                    name, throng_status_string(status));
            return EXIT_FAILED;
        }

        for (uint32_t step = 0; step < opt->warmup; ++step) {
            status = throng_world_step(world, sc->dt);
            if (status != THRONG_OK) {
                break;
            }
        }

        throng_step_stats stats;
        memset(&stats, 0, sizeof stats);
        for (uint32_t step = 0; step < opt->steps && status == THRONG_OK;
             ++step) {
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
        }
        if (status != THRONG_OK) {
            fprintf(stderr, PROGRAM ": %s: step %" PRIu64 " failed: %s (%s)\n",
                    name, throng_world_step_count(world),
                    throng_status_string(status),
                    throng_world_last_error(world));
            throng_world_destroy(world);
            return EXIT_FAILED;
        }

        uint64_t hash = throng_world_hash(world);
        if (repeat > 0 && hash != out->state_hash) {
            out->repeats_agree = false;
        }
        out->state_hash = hash;
        out->threads_used = stats.threads;
        if (stats.simd != NULL) {
            snprintf(out->simd, sizeof out->simd, "%s", stats.simd);
        }
        if (repeat + 1 == opt->repeats) {
            out->bytes_per_agent =
                (double)throng_world_bytes(world) / (double)agents;
            out->nan_count = count_non_finite(world);
        }
        throng_world_destroy(world);
    }

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
        size_t length = strlen(opt->scenarios[i]->name);
        width = length > width ? length : width;
    }
    return (int)width;
}

static void table_header(FILE *out, int name_width) {
    fprintf(out,
            "%-*s %9s %7s %6s %10s %10s %9s %7s %7s %8s %9s %9s %9s %-8s "
            "%-16s %s\n",
            name_width, "scenario", "agents", "threads", "steps", "ms/step",
            "min ms", "ns/agent", "nbrs", "cands", "B/agent", "grid ms",
            "behav ms", "integ ms", "simd", "hash", "nan");
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
            "%7.2f %8.1f %9.3f %9.3f %9.3f %-8s %016" PRIx64 " %" PRIu64 "\n",
            name_width, r->sc->name, r->agents, threads, r->iterations,
            r->ms_median, r->ms_min, r->ns_per_agent_step,
            r->neighbours_per_agent, r->candidates_per_agent,
            r->bytes_per_agent, r->grid_ms, r->behaviour_ms, r->integrate_ms,
            r->simd, r->state_hash, r->nan_count);
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

    FILE *loadavg = fopen("/proc/loadavg", "r");
    if (loadavg != NULL) {
        m->have_load_avg = fscanf(loadavg, "%lf %lf %lf", &m->load_avg[0],
                                  &m->load_avg[1], &m->load_avg[2]) == 3;
        fclose(loadavg);
    }
}

static void json_write(FILE *out, const options *opt, const char *executable,
                       const result *results, size_t count) {
    machine m;
    machine_gather(&m);
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", THRONG_VERSION_MAJOR,
             THRONG_VERSION_MINOR, THRONG_VERSION_PATCH);

    const char *in = "    ";
    fputs("{\n  \"context\": {\n", out);
    json_field_string(out, in, "date", m.date, false);
    json_field_string(out, in, "host_name", m.host_name, false);
    json_field_string(out, in, "executable", executable, false);
    json_field_number(out, in, "num_cpus", (double)m.num_cpus, false);
    if (m.mhz_per_cpu > 0.0) {
        json_field_number(out, in, "mhz_per_cpu", round(m.mhz_per_cpu),
                          false);
    }
    json_field_string(out, in, "cpu_model", m.cpu_model, false);
    if (m.have_load_avg) {
        json_key(out, in, "load_avg");
        fprintf(out, "[%.2f, %.2f, %.2f],\n", m.load_avg[0], m.load_avg[1],
                m.load_avg[2]);
    }
    json_field_string(out, in, "library_version", version, false);
    json_field_string(out, in, "compiler", __VERSION__, false);
    json_field_string(out, in, "simd", count > 0 ? results[0].simd : "unknown",
                      false);
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
        json_field_u64(out, in, "nan_count", r->nan_count, true);
        fputs(i + 1 < count ? "    },\n" : "    }\n", out);
    }
    fputs("  ]\n}\n", out);
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
    if (exit_status != 0 || opt.help || opt.list) {
        if (exit_status == 0 && opt.help) {
            print_help(stdout);
        } else if (exit_status == 0) {
            print_scenarios(stdout);
        }
        options_free(&opt);
        return exit_status;
    }

    size_t config_count =
        opt.scenario_count * opt.agent_count * opt.thread_count;
    size_t sample_count = (size_t)opt.steps * opt.repeats;
    if (opt.repeats != 0 && sample_count / opt.repeats != opt.steps) {
        usage_error("--steps x --repeats is too large");
        options_free(&opt);
        return EXIT_USAGE;
    }

    FILE *json = NULL;
    bool json_to_stdout = false;
    if (opt.json_path != NULL) {
        json_to_stdout = strcmp(opt.json_path, "-") == 0;
        json = json_to_stdout ? stdout : fopen(opt.json_path, "w");
        if (json == NULL) {
            usage_error("--json: cannot open '%s': %s", opt.json_path,
                        strerror(errno));
            options_free(&opt);
            return EXIT_USAGE;
        }
    }
    FILE *table = json_to_stdout ? stderr : stdout;

    result *results = calloc(config_count, sizeof(result));
    samples s;
    bool allocated = samples_init(&s, sample_count) && results != NULL;
    if (!allocated) {
        fprintf(stderr, PROGRAM ": out of memory for %zu samples\n",
                sample_count);
        exit_status = EXIT_FAILED;
    }

    size_t done = 0;
    int name_width = table_name_width(&opt);
    if (exit_status == 0) {
        table_header(table, name_width);
    }
    for (size_t a = 0; a < opt.scenario_count && exit_status == 0; ++a) {
        for (size_t b = 0; b < opt.agent_count && exit_status == 0; ++b) {
            for (size_t c = 0; c < opt.thread_count && exit_status == 0;
                 ++c) {
                exit_status = run_config(&opt, opt.scenarios[a], opt.agents[b],
                                         opt.threads[c], &s, &results[done]);
                if (exit_status == 0) {
                    table_row(table, name_width, &results[done]);
                    ++done;
                }
            }
        }
    }

    if (exit_status == 0) {
        if (json != NULL) {
            json_write(json, &opt, argv[0], results, done);
            if (fflush(json) != 0 || ferror(json)) {
                fprintf(stderr, PROGRAM ": writing the JSON failed: %s\n",
                        strerror(errno));
                exit_status = EXIT_FAILED;
            }
        }
        if (check_results(results, done) > 0) {
            exit_status = EXIT_FAILED;
        }
    }

    if (json != NULL && !json_to_stdout && fclose(json) != 0 &&
        exit_status == 0) {
        fprintf(stderr, PROGRAM ": writing '%s' failed: %s\n", opt.json_path,
                strerror(errno));
        exit_status = EXIT_FAILED;
    }
    samples_free(&s);
    free(results);
    options_free(&opt);
    return exit_status;
}
