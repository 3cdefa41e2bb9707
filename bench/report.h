/* SPDX-License-Identifier: MIT */
/*
 * throng-bench's output: the table (a row as each configuration
 * finishes, the legend under it), the JSON (shaped like Google
 * Benchmark's, with each repeat's median and the quality figures), the
 * CSV (one row per configuration), the SVG chart, and the --list text.
 */
#ifndef THRONG_BENCH_REPORT_H
#define THRONG_BENCH_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "machine.h"
#include "options.h"
#include "run.h"

/* The width of the table's scenario column for these options. */
int table_name_width(const options *opt);
void table_header(FILE *out, int name_width);
void table_row(FILE *out, int name_width, const result *r);
/* Printed under the table: the columns a reader cannot guess. */
void table_legend(FILE *out);

/* The line above the table, and on stderr a warning when the run is
 * narrower than the CPU allows (a figure from the scalar path must not
 * pass for this machine's speed). */
void simd_report(FILE *table, throng_simd run);

void json_write(FILE *out, const options *opt, const machine *m,
                const char *executable, const result *results, size_t count);
void csv_write(FILE *out, const machine *m, const result *results,
               size_t count);
/* False when memory ran out. */
bool plot_write(FILE *out, const options *opt, const machine *m,
                const result *results, size_t count);

/* --list: the scenarios, their parameters and quality figures. */
void print_scenarios(FILE *out);

#endif /* THRONG_BENCH_REPORT_H */
