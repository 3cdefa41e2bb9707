/* SPDX-License-Identifier: MIT */
/*
 * Command lines of the bench's programs (throng-bench, throng-compare's
 * sub-commands, throng-soak): one table of options per program or
 * sub-command, read by getopt_long and printed as the --help list, so
 * the options a program takes and the ones its help names cannot drift
 * apart.
 *
 * Every option has a long name; a value is given after '=' or as the next
 * argument. Long names must be spelled out in full (getopt_long's unique
 * prefixes are refused, so a script keeps working when options are added).
 * Options come first; the first argument that is not one (or "--") ends
 * them. A mistake is one line on stderr, "<program>: <what> (see --help)".
 */
#ifndef THRONG_BENCH_CLI_H
#define THRONG_BENCH_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#if defined(__GNUC__)
#define CLI_PRINTF_LIKE(format_index, first_arg) \
    __attribute__((format(printf, format_index, first_arg)))
#else
#define CLI_PRINTF_LIKE(format_index, first_arg)
#endif

/* Exit status of a bad command line, in every program. */
#define CLI_EXIT_USAGE 2

typedef struct cli_option {
    const char *name;  /* long name without "--", e.g. "steps" */
    char letter;       /* short name ('h' for -h), or 0 */
    const char *value; /* placeholder of the value in the help ("N"); NULL:
                        * the option takes no value */
    const char *help;  /* its lines for --help, joined by '\n'; NULL: left
                        * out of the help */
} cli_option;

/* Takes one option found on the command line: its index in the table and
 * its value (NULL for an option without one). Returns false after printing
 * a usage error with cli_usage_error. */
typedef bool (*cli_handler)(void *context, size_t index, const char *value);

typedef struct cli {
    const char *program; /* the prefix of every message */
    const cli_option *options;
    size_t option_count;
    bool operands; /* arguments after the options are allowed */
    cli_handler handle;
    void *context;
} cli;

/* One usage error line on stderr: "<program>: <text> (see --help)". */
void cli_usage_error(const char *program, const char *format, ...)
    CLI_PRINTF_LIKE(2, 3);
void cli_usage_verror(const char *program, const char *format, va_list args)
    CLI_PRINTF_LIKE(2, 0);

/* Reads argv[1 .. argc) (argv[0] names the program or sub-command),
 * handing each option to c->handle in the order given. Returns the index
 * in argv of the first operand (argc when there is none), or -1 after a
 * usage error, which has been printed. */
int cli_parse(const cli *c, int argc, char **argv);

/* The help list: each option as "  --name VALUE", its help beside it from
 * column `column` on (continuation lines indented to it too). */
void cli_print_options(FILE *out, const cli_option *options, size_t count,
                       int column);

/* The synopsis of a table, " [--name VALUE]..." (options without help
 * left out), for a usage line. */
void cli_print_synopsis(FILE *out, const cli_option *options, size_t count);

#endif /* THRONG_BENCH_CLI_H */
