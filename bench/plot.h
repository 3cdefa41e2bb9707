/* SPDX-License-Identifier: MIT */
/*
 * A log-log chart of ms per step against agents, written as plain SVG by
 * the bench itself, so a results folder shows its figures without any
 * plotting tool.
 */
#ifndef THRONG_BENCH_PLOT_H
#define THRONG_BENCH_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One measured configuration. Rows with the same (scenario, threads) form
 * one line, in the order they first appear. */
typedef struct plot_row {
    const char *scenario;
    int threads;
    uint32_t agents;
    double ms; /* median ms per step; rows that are not > 0 are skipped */
} plot_row;

/* Writes the chart; `title` and `subtitle` are plain text. Returns false
 * when out of memory (nothing is written then). */
bool plot_write_svg(FILE *out, const plot_row *rows, size_t count,
                    const char *title, const char *subtitle);

#endif /* THRONG_BENCH_PLOT_H */
