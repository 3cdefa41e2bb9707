/* SPDX-License-Identifier: MIT */
/*
 * The command-line reader behind bench/cli.h: getopt_long over a table.
 *
 * getopt_long is told to stay quiet (opterr = 0, a leading ':' in the
 * short options) so every mistake is reported here, in the programs' one
 * format, and to stop at the first operand ('+'), so a sub-command's files
 * are never taken for options. Each long option's getopt value is
 * CLI_LONG_BASE + its index, above every short option's letter, which
 * tells the two apart in the error cases.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "cli.h"

#include <getopt.h>
#include <string.h>

/* The most options one table holds (the bench has 17). */
#define CLI_MAX_OPTIONS 48
#define CLI_LONG_BASE 256

void cli_usage_verror(const char *program, const char *format, va_list args) {
    fprintf(stderr, "%s: ", program);
    vfprintf(stderr, format, args);
    fputs(" (see --help)\n", stderr);
}

void cli_usage_error(const char *program, const char *format, ...) {
    va_list args;
    va_start(args, format);
    cli_usage_verror(program, format, args);
    va_end(args);
}

/* The table index of a getopt value (a letter or CLI_LONG_BASE + index);
 * count when there is none. */
static size_t option_index(const cli *c, int value) {
    if (value >= CLI_LONG_BASE) {
        return (size_t)(value - CLI_LONG_BASE);
    }
    for (size_t i = 0; i < c->option_count; ++i) {
        if (value != 0 && c->options[i].letter == (char)value) {
            return i;
        }
    }
    return c->option_count;
}

/* getopt_long also takes a unique prefix of a long name; the argument
 * `text` that named option `o` must spell it out. */
static bool spelled_out(const char *text, const cli_option *o) {
    if (strncmp(text, "--", 2) != 0) {
        return true; /* the short form */
    }
    size_t length = strlen(o->name);
    return strncmp(text + 2, o->name, length) == 0 &&
           (text[2 + length] == '\0' || text[2 + length] == '=');
}

int cli_parse(const cli *c, int argc, char **argv) {
    if (c->option_count > CLI_MAX_OPTIONS) {
        fprintf(stderr, "%s: too many options for the command line reader\n",
                c->program);
        return -1;
    }
    struct option longs[CLI_MAX_OPTIONS + 1];
    char shorts[3 + 2 * CLI_MAX_OPTIONS] = "+:";
    size_t short_length = 2;
    for (size_t i = 0; i < c->option_count; ++i) {
        const cli_option *o = &c->options[i];
        longs[i].name = o->name;
        longs[i].has_arg = o->value != NULL ? required_argument : no_argument;
        longs[i].flag = NULL;
        longs[i].val = CLI_LONG_BASE + (int)i;
        if (o->letter != 0) {
            shorts[short_length++] = o->letter;
            if (o->value != NULL) {
                shorts[short_length++] = ':';
            }
        }
    }
    shorts[short_length] = '\0';
    memset(&longs[c->option_count], 0, sizeof longs[0]);

    /* glibc starts afresh (a second parse in one process) from 0. */
#ifdef __GLIBC__
    optind = 0;
#else
    optind = 1;
#endif
    opterr = 0;
    const char *last_value = NULL; /* the value of the last option */
    for (;;) {
        int found = getopt_long(argc, argv, shorts, longs, NULL);
        if (found == -1) {
            break;
        }
        if (found == ':' || found == '?') {
            size_t index = option_index(c, optopt);
            if (index < c->option_count) {
                const cli_option *o = &c->options[index];
                bool is_long = optopt >= CLI_LONG_BASE;
                char letter[2] = { o->letter, '\0' };
                cli_usage_error(
                    c->program, "option %s%s %s", is_long ? "--" : "-",
                    is_long ? o->name : letter,
                    found == ':' ? "needs a value" : "takes no value");
            } else if (optopt != 0) {
                cli_usage_error(c->program, "unknown option '-%c'",
                                (char)optopt);
            } else {
                cli_usage_error(c->program, "unknown option '%s'",
                                argv[optind - 1]);
            }
            return -1;
        }
        size_t index = option_index(c, found);
        const cli_option *o = &c->options[index];
        /* The argument that named the option: before its value when the
         * value was the next argument. */
        const char *text = argv[optind - 1];
        last_value = o->value != NULL ? optarg : NULL;
        if (last_value != NULL && last_value == argv[optind - 1] &&
            optind >= 3) {
            text = argv[optind - 2];
        }
        if (!spelled_out(text, o)) {
            cli_usage_error(c->program, "unknown option '%s'", text);
            return -1;
        }
        if (!c->handle(c->context, index, o->value != NULL ? optarg : NULL)) {
            return -1;
        }
    }
    if (!c->operands && optind < argc) {
        cli_usage_error(c->program, "unexpected argument '%s'", argv[optind]);
        return -1;
    }
    if (!c->operands && optind > 1 && argv[optind - 1] != last_value &&
        strcmp(argv[optind - 1], "--") == 0) {
        cli_usage_error(c->program, "unexpected argument '--'");
        return -1;
    }
    return optind;
}

void cli_print_options(FILE *out, const cli_option *options, size_t count,
                       int column) {
    for (size_t i = 0; i < count; ++i) {
        const cli_option *o = &options[i];
        if (o->help == NULL) {
            continue;
        }
        int width =
            fprintf(out, "  --%s%s%s", o->name, o->value != NULL ? " " : "",
                    o->value != NULL ? o->value : "");
        const char *line = o->help;
        for (bool first = true; *line != '\0'; first = false) {
            size_t length = strcspn(line, "\n");
            int pad = first ? column - width : column;
            if (first && pad < 2) {
                fputc('\n', out); /* a long name: help on the next line */
                pad = column;
            }
            fprintf(out, "%*s%.*s\n", pad, "", (int)length, line);
            line += length + (line[length] == '\n' ? 1 : 0);
        }
    }
}

void cli_print_synopsis(FILE *out, const cli_option *options, size_t count) {
    for (size_t i = 0; i < count; ++i) {
        const cli_option *o = &options[i];
        if (o->help == NULL) {
            continue;
        }
        if (o->letter != 0) {
            fprintf(out, " [-%c", o->letter);
        } else {
            fprintf(out, " [--%s", o->name);
        }
        fprintf(out, "%s%s]", o->value != NULL ? " " : "",
                o->value != NULL ? o->value : "");
    }
}
