/* SPDX-License-Identifier: MIT */
/*
 * throng-bench's options: one table (name, value, help) that getopt_long
 * reads (bench/cli.c) and --help prints, and the readers of each value:
 * counts with k and M suffixes, comma-separated lists, scenario items
 * with their own agent counts, seeds in decimal or hex.
 *
 * Later options win: a list given twice replaces the first one. Every
 * value is checked when it is read, with a sentence naming the option.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "options.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_STEPS 200u
#define DEFAULT_WARMUP 20u
#define DEFAULT_REPEATS 1u
#define DEFAULT_SEED 1u
#define DEFAULT_SCENARIOS "flock2d,flock3d"
#define DEFAULT_AGENTS "10k,100k"
#define DEFAULT_THREADS "1,2"

/* The library's own bound on threads per step. */
#define MAX_THREADS 1024u

static void scenario_entries_free(scenario_entry *entries, size_t count) {
    for (size_t i = 0; entries != NULL && i < count; ++i) {
        free(entries[i].agents);
    }
    free(entries);
}

void options_free(options *opt) {
    scenario_entries_free(opt->scenarios, opt->scenario_count);
    free(opt->agents);
    free(opt->threads);
    opt->scenarios = NULL;
    opt->agents = NULL;
    opt->threads = NULL;
    for (size_t i = 0; i < opt->set_text_count; ++i) {
        free(opt->set_text[i]);
    }
    opt->set_text_count = 0;
    scenario_clear_set();
}

void usage_error(const char *format, ...) {
    va_list args;
    va_start(args, format);
    cli_usage_verror(PROGRAM, format, args);
    va_end(args);
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

typedef enum list_kind {
    LIST_SCENARIOS,
    LIST_AGENTS,
    LIST_THREADS
} list_kind;

/* An agent count: N, Nk or NM, from 1 to THRONG_MAX_AGENTS. */
static bool parse_agents(const char *option, const char *item, uint32_t *out) {
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

/* The table: the order of the enum is the order of the rows, which is the
 * order --help lists them in. */
enum {
    OPT_SCENARIO,
    OPT_AGENTS,
    OPT_THREADS,
    OPT_STEPS,
    OPT_WARMUP,
    OPT_REPEATS,
    OPT_SEED,
    OPT_BUSY,
    OPT_JSON,
    OPT_CSV,
    OPT_PLOT,
    OPT_RECORD,
    OPT_RECORD_EVERY,
    OPT_STABLE_COLUMNS,
    OPT_UNTIL_ARRIVED,
    OPT_SET,
    OPT_QUIET,
    OPT_LIST,
    OPT_MACHINE,
    OPT_HELP,
    OPT_COUNT
};

static const cli_option option_table[OPT_COUNT] = {
    [OPT_SCENARIO] = { "scenario", 0, "NAME[,NAME...]",
                       "scenarios to run (default " DEFAULT_SCENARIOS ");\n"
                       "NAME@N[+N...] runs NAME at its own agent\n"
                       "counts instead of --agents, e.g.\n"
                       "flock2d,crossing2d_steer@10k" },
    [OPT_AGENTS] = { "agents", 0, "N[,N...]",
                     "agent counts; suffixes k (x1000) and M\n"
                     "(x1000000), e.g. 10k,1.5M (default " DEFAULT_AGENTS ")" },
    [OPT_THREADS] = { "threads", 0, "T[,T...]",
                      "threads per step, 0 = OpenMP default,\n"
                      "up to 1024 (default " DEFAULT_THREADS ")" },
    [OPT_STEPS] = { "steps", 0, "S",
                    "counted steps per repeat, >= 1 (default 200)" },
    [OPT_WARMUP] = { "warmup", 0, "W",
                     "uncounted steps before them (default 20)" },
    [OPT_REPEATS] = { "repeats", 0, "R",
                      "fresh worlds per configuration, >= 1\n"
                      "(default 1)" },
    [OPT_SEED] = { "seed", 0, "N",
                   "scenario and world seed, decimal or 0x hex\n"
                   "(default 1)" },
    [OPT_BUSY] = { "busy", 0, "N",
                   "run N CPU-bound processes (busy loops)\n"
                   "beside the whole run, to see how the step\n"
                   "fares on a machine it shares, 0 .. 64\n"
                   "(default 0)" },
    [OPT_JSON] = { "json", 0, "FILE",
                   "also write Google-Benchmark-style JSON to\n"
                   "FILE, with each repeat's median (repeat_ms)\n"
                   "and the quality figures" },
    [OPT_CSV] = { "csv", 0, "FILE",
                  "also write one CSV row per configuration:\n"
                  "every table column and quality figure" },
    [OPT_PLOT] = { "plot", 0, "FILE",
                   "also draw ms/step against agents (both log\n"
                   "scales), one line per scenario and thread\n"
                   "count, as an SVG file\n"
                   "('-' as FILE is stdout, for one of the\n"
                   "three; the table then goes to stderr)" },
    [OPT_RECORD] = { "record", 0, "FILE",
                     "record the counted steps to FILE, an SQLite\n"
                     "trajectory file (JuPedSim's format; FILE is\n"
                     "replaced), for one configuration only: the\n"
                     "step times exclude the recorder, whose cost\n"
                     "(record_ms, the writer's ms a frame, close)\n"
                     "is printed and goes in the JSON" },
    [OPT_RECORD_EVERY] = { "record-every", 0, "K",
                           "with --record, every K-th counted step,\n"
                           ">= 1 (default 1)" },
    [OPT_STABLE_COLUMNS] = { "stable-columns", 0, NULL,
                             "step with stable columns\n"
                             "(throng_world_set_stable_columns): the\n"
                             "cost of keeping column pointers fixed" },
    [OPT_UNTIL_ARRIVED] = { "until-arrived", 0, NULL,
                            "end each repeat of a goal scene (circle2d,\n"
                            "crossing2d, blocks2d)\n"
                            "after the step at which every agent is at\n"
                            "its goal; --steps is then the most" },
    [OPT_SET] = { "set", 0, "NAME=V[,NAME=V...]",
                  "run the scenes with these parameter values\n"
                  "in place of their own (--list names them;\n"
                  "every scene run must have each NAME), e.g.\n"
                  "ticks=1,contact_iterations=16; a scene's\n"
                  "pass ranges are claims about its own values" },
    [OPT_QUIET] = { "quiet", 0, NULL,
                    "no progress bar (it is drawn on stderr\n"
                    "only when stderr is a terminal)" },
    [OPT_LIST] = { "list", 0, NULL,
                   "list the scenarios, their parameters and\n"
                   "quality figures" },
    [OPT_MACHINE] = { "machine", 0, NULL,
                      "print this machine's name for\n"
                      "bench/results/<machine>/ and exit: CPU\n"
                      "model and logical CPU count, e.g.\n"
                      "epyc-zen5-2c, or $BENCH_MACHINE when set" },
    [OPT_HELP] = { "help", 'h', NULL, "this text" },
};

/* Takes one option of the table into the options. */
/* --set's NAME=VALUE[,NAME=VALUE...]: each value a finite number, each
 * name handed to scenario_set_param() (options_parse() checks, once the
 * scenarios are known, that each of them has every name). */
static bool parse_set(const char *name, const char *value, options *opt) {
    if (opt->set_text_count == SCENARIO_MAX_SET) {
        usage_error("%s: at most %u times", name, SCENARIO_MAX_SET);
        return false;
    }
    char *text = strdup(value);
    if (text == NULL) {
        usage_error("%s: out of memory", name);
        return false;
    }
    opt->set_text[opt->set_text_count++] = text;
    char *item = text;
    for (;;) {
        char *comma = strchr(item, ',');
        if (comma != NULL) {
            *comma = '\0';
        }
        char *equals = strchr(item, '=');
        if (equals == NULL || equals == item) {
            usage_error("%s: expected NAME=VALUE, got '%s'", name, item);
            return false;
        }
        *equals = '\0';
        const char *number = equals + 1;
        char *end = NULL;
        errno = 0;
        const double v = strtod(number, &end);
        if (number[0] == '\0' || *end != '\0' || errno != 0 || !isfinite(v)) {
            usage_error("%s: %s: expected a finite number, got '%s'", name,
                        item, number);
            return false;
        }
        if (!scenario_set_param(item, v)) {
            usage_error("%s: at most %u parameters", name, SCENARIO_MAX_SET);
            return false;
        }
        if (comma == NULL) {
            return true;
        }
        item = comma + 1;
    }
}

static bool take_option(void *context, size_t index, const char *value) {
    options *opt = context;
    char name[32];
    snprintf(name, sizeof name, "--%s", option_table[index].name);
    switch (index) {
    case OPT_SCENARIO:
        return parse_list(name, value, LIST_SCENARIOS, opt);
    case OPT_AGENTS:
        return parse_list(name, value, LIST_AGENTS, opt);
    case OPT_THREADS:
        return parse_list(name, value, LIST_THREADS, opt);
    case OPT_STEPS:
        return parse_u32(name, value, 1, &opt->steps);
    case OPT_WARMUP:
        return parse_u32(name, value, 0, &opt->warmup);
    case OPT_REPEATS:
        return parse_u32(name, value, 1, &opt->repeats);
    case OPT_SEED:
        return parse_seed(value, &opt->seed);
    case OPT_BUSY:
        if (!parse_u32(name, value, 0, &opt->busy)) {
            return false;
        }
        if (opt->busy > MAX_BUSY) {
            usage_error("--busy: at most %d processes", MAX_BUSY);
            return false;
        }
        return true;
    case OPT_JSON:
    case OPT_CSV:
    case OPT_PLOT:
        if (value[0] == '\0') {
            usage_error("%s: expected a file name or '-'", name);
            return false;
        }
        *(index == OPT_JSON  ? &opt->json_path
          : index == OPT_CSV ? &opt->csv_path
                             : &opt->plot_path) = value;
        return true;
    case OPT_RECORD:
        if (value[0] == '\0') {
            usage_error("%s: expected a file name", name);
            return false;
        }
        opt->record_path = value;
        return true;
    case OPT_RECORD_EVERY:
        return parse_u32(name, value, 1, &opt->record_every);
    case OPT_STABLE_COLUMNS:
        opt->stable_columns = true;
        return true;
    case OPT_UNTIL_ARRIVED:
        opt->until_arrived = true;
        return true;
    case OPT_SET:
        return parse_set(name, value, opt);
    case OPT_QUIET:
        opt->quiet = true;
        return true;
    case OPT_LIST:
        opt->list = true;
        return true;
    case OPT_MACHINE:
        opt->machine = true;
        return true;
    case OPT_HELP:
        opt->help = true;
        return true;
    default:
        return false;
    }
}

int options_parse(int argc, char **argv, options *opt) {
    memset(opt, 0, sizeof *opt);
    scenario_clear_set();
    opt->steps = DEFAULT_STEPS;
    opt->warmup = DEFAULT_WARMUP;
    opt->repeats = DEFAULT_REPEATS;
    opt->seed = DEFAULT_SEED;
    opt->record_every = 1u;
    if (!parse_list("--scenario", DEFAULT_SCENARIOS, LIST_SCENARIOS, opt) ||
        !parse_list("--agents", DEFAULT_AGENTS, LIST_AGENTS, opt) ||
        !parse_list("--threads", DEFAULT_THREADS, LIST_THREADS, opt)) {
        return EXIT_FAILED;
    }
    const cli reader = { PROGRAM, option_table, OPT_COUNT,
                         false,   take_option,  opt };
    if (cli_parse(&reader, argc, argv) < 0) {
        return EXIT_USAGE;
    }
    const char *const outputs[3] = { opt->json_path, opt->csv_path,
                                     opt->plot_path };
    int to_stdout = 0;
    for (int k = 0; k < 3; ++k) {
        to_stdout += outputs[k] != NULL && strcmp(outputs[k], "-") == 0;
    }
    if (to_stdout > 1) {
        usage_error("only one of --json, --csv and --plot can be '-'");
        return EXIT_USAGE;
    }
    for (size_t k = 0; scenario_set_at(k) != NULL; ++k) {
        const char *set = scenario_set_at(k)->name;
        for (size_t e = 0; e < opt->scenario_count; ++e) {
            const scenario *sc = opt->scenarios[e].sc;
            bool has = false;
            for (size_t i = 0; i < sc->param_count; ++i) {
                has = has || strcmp(sc->params[i].name, set) == 0;
            }
            if (!has) {
                usage_error("--set: scenario %s has no parameter '%s'",
                            sc->name, set);
                return EXIT_USAGE;
            }
        }
    }
    if (opt->record_path != NULL) {
        size_t configs = 0;
        for (size_t e = 0; e < opt->scenario_count; ++e) {
            size_t agents = 0;
            (void)options_entry_agents(opt, e, &agents);
            configs += agents * opt->thread_count;
        }
        if (configs != 1) {
            usage_error("--record records one configuration (one scenario, "
                        "agent count and thread count), not %zu",
                        configs);
            return EXIT_USAGE;
        }
    }
    return 0;
}

void options_print_help(FILE *out) {
    fputs("usage: " PROGRAM " [options]\n"
          "\n"
          "Times named crowd scenarios over sweeps of agent and thread "
          "counts.\n"
          "Each configuration builds a fresh world per repeat, runs the "
          "warm-up\n"
          "steps, then times every counted step on its own. After the last\n"
          "repeat the final state is measured for quality (not timed).\n"
          "\n"
          "options:\n",
          out);
    cli_print_options(out, option_table, OPT_COUNT, 29);
    fputs("Options take their value as the next argument or after '='.\n"
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
        "the last step, over all agents (1 is the limit; F/Fmax leaves out\n"
        "ORCA groups, whose velocity stage picks velocities, not forces);\n"
        "for flocks speed\n"
        "(mean |v|, m/s), pol (polarisation, |mean unit heading|, 0 to 1)\n"
        "and nn m (mean nearest-neighbour distance); for crowds ovl% (agents\n"
        "whose body overlaps another's, r_i + r_j) and sep m (smallest\n"
        "centre distance); for crossing2d_steer goal% (agents within 1 m of\n"
        "their target point). nn, ovl and sep use a sample of at most 2000\n"
        "agents; the goal scenes (circle2d, orca_dense2d, crossing2d,\n"
        "blocks2d) add figures watched every step, and crossing2d and\n"
        "blocks2d ontime% (agents at their goal by the scene's deadline);\n"
        "'-' marks a figure the scenario does not get.\n"
        "\n"
        "environment: THRONG_SIMD=scalar|sse2|avx2|avx512|neon|wasm|auto\n"
        "picks the kernel path of every world (default auto, the widest\n"
        "this CPU and build offer); the line above the table names the path\n"
        "run and the widest on offer, and a narrower run is warned about on\n"
        "stderr.\n"
        "\n"
        "exit status: 0 ok; 1 the library refused a call, a position or\n"
        "velocity became non-finite, or the final state differed between\n"
        "repeats or thread counts; 2 bad command line or THRONG_SIMD value;\n"
        "3 THRONG_SIMD names a path this CPU or build does not offer.\n",
        out);
}

const uint32_t *options_entry_agents(const options *opt, size_t entry,
                                     size_t *count) {
    const scenario_entry *e = &opt->scenarios[entry];
    *count = e->agents != NULL ? e->agent_count : opt->agent_count;
    return e->agents != NULL ? e->agents : opt->agents;
}
