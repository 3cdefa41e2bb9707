/* SPDX-License-Identifier: MIT */
/*
 * throng-navbench: how long a navigation field takes to build, through
 * the public API only.
 *
 * Each case makes a world, adds its geometry and one field, then rebuilds
 * the field --repeats times on each thread count and reports the median
 * and the fastest build (throng_nav_field_info.last_seconds: the raster,
 * the solve and the directions, as a step would pay them), with the
 * solver's rounds and tile visits:
 *
 *   open     a square of --size cells a side, 1 m cells, one point goal at
 *            the middle of one side; a full rebuild each time, forced by
 *            the host setting every cell's cost anew (1 and 1.25 in turn,
 *            so every step changes);
 *   maze     the same square cut by walls every 20 m, each open at
 *            alternate ends: a route that turns back and forth across
 *            the whole field, the solver's worst shape (its front crosses
 *            tile after tile along the corridors);
 *   local+   the maze again, a 3 m box added next to the goal (and
 *            removed between timed rounds): an incremental rebuild, which
 *            starts again the cells whose times came through the box's
 *            cells (most of the field, downstream of the goal: what a
 *            change near the goal costs, the dear case);
 *   local-   the same box removed: only its own cells start again, and
 *            the times they lower spread over the field;
 *   far+, far-  the same box at the far end of the route: incremental
 *            rebuilds that touch a corner only;
 *   voxels   a 3D field of --size3 cells a side and one goal.
 *
 * The figures are wall-clock times on a shared machine: compare thread
 * counts and cases within one run, and quote medians.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "throng.h"

typedef struct options {
    uint32_t size, size3, repeats;
    int threads[8];
    int thread_count;
    bool help;
} options;

enum {
    OPT_SIZE,
    OPT_SIZE3,
    OPT_REPEATS,
    OPT_THREADS,
    OPT_HELP,
    OPT_COUNT
};

static const cli_option option_table[OPT_COUNT] = {
    [OPT_SIZE] = { "size", 0, "N", "2D cases: N x N cells (default 1000)" },
    [OPT_SIZE3] = { "size3", 0, "N",
                    "the 3D case: N^3 cells (default 100; 0 skips it)" },
    [OPT_REPEATS] = { "repeats", 0, "N", "builds per figure (default 7)" },
    [OPT_THREADS] = { "threads", 0, "LIST",
                      "thread counts, comma-separated (default 1,2)" },
    [OPT_HELP] = { "help", 'h', NULL, "this list" },
};

static bool parse_u32(const char *s, uint32_t *out) {
    char *end = NULL;
    const unsigned long v = strtoul(s, &end, 10);
    if (!s[0] || *end || v > 100000000ul)
        return false;
    *out = (uint32_t)v;
    return true;
}

static bool take_option(void *context, size_t index, const char *value) {
    options *o = context;
    uint32_t v = 0;
    switch (index) {
    case OPT_HELP:
        o->help = true;
        return true;
    case OPT_THREADS: {
        o->thread_count = 0;
        const char *p = value;
        while (*p) {
            char *end = NULL;
            const long t = strtol(p, &end, 10);
            if (end == p || t < 1 || t > 256 || o->thread_count >= 8) {
                cli_usage_error("navbench", "bad --threads '%s'", value);
                return false;
            }
            o->threads[o->thread_count++] = (int)t;
            p = *end == ',' ? end + 1 : end;
            if (*end && *end != ',') {
                cli_usage_error("navbench", "bad --threads '%s'", value);
                return false;
            }
        }
        return o->thread_count > 0;
    }
    default:
        if (!parse_u32(value, &v)) {
            cli_usage_error("navbench", "bad value '%s' for --%s", value,
                            option_table[index].name);
            return false;
        }
        if (index == OPT_SIZE)
            o->size = v;
        else if (index == OPT_SIZE3)
            o->size3 = v;
        else
            o->repeats = v;
        return true;
    }
}

static int fail(throng_world *w, const char *what) {
    fprintf(stderr, "navbench: %s: %s\n", what,
            w ? throng_world_last_error(w) : "no world");
    return 1;
}

static int compare_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One case on one thread count: the builds' median and minimum. */
typedef struct figures {
    double median_ms, min_ms;
    uint32_t rounds, tiles;
    uint64_t cells, last_cells;
    bool full;
} figures;

typedef enum nav_case {
    CASE_OPEN,
    CASE_MAZE,
    CASE_LOCAL_ADD,
    CASE_LOCAL_REMOVE,
    CASE_FAR_ADD,
    CASE_FAR_REMOVE,
    CASE_VOXELS,
    CASE_COUNT
} nav_case;

static const char *const case_name[CASE_COUNT] = { "open",   "maze", "local+",
                                                   "local-", "far+", "far-",
                                                   "voxels" };

static int add_wall(throng_world *w, float ax, float ay, float bx, float by) {
    throng_wall_def d = throng_wall_def_default();
    d.a[0] = ax;
    d.a[1] = ay;
    d.b[0] = bx;
    d.b[1] = by;
    throng_object o;
    return throng_wall_add(w, &d, &o) != THRONG_OK;
}

static int run_case(nav_case c, const options *o, int threads, figures *out) {
    const int three = c == CASE_VOXELS;
    const uint32_t n = three ? o->size3 : o->size;
    const float side = (float)n;
    throng_world_def wd = throng_world_def_default();
    wd.dimensions = three ? 3 : 2;
    wd.threads = threads;
    throng_world *w = NULL;
    if (throng_world_create(&wd, &w) != THRONG_OK)
        return fail(NULL, "world");
    const int local = c == CASE_LOCAL_ADD || c == CASE_LOCAL_REMOVE;
    const int box_case = local || c == CASE_FAR_ADD || c == CASE_FAR_REMOVE;
    /* The incremental cases time the rounds that add the box (+) or the
     * ones that remove it (-). */
    const uint32_t timed_parity =
        c == CASE_LOCAL_REMOVE || c == CASE_FAR_REMOVE ? 1u : 0u;
    if (c == CASE_MAZE || box_case) {
        for (int k = 0; 20.0f * (float)(k + 1) < side - 10.0f; k++) {
            const float y = 20.0f * (float)(k + 1);
            if (add_wall(w, k % 2 ? 10.0f : 0.0f, y,
                         k % 2 ? side : side - 10.0f, y))
                return fail(w, "wall");
        }
    }
    throng_nav_goal goal;
    memset(&goal, 0, sizeof goal);
    goal.kind = THRONG_NAV_GOAL_POINT;
    goal.a[0] = 0.5f * side + 0.5f;
    goal.a[1] = 2.5f;
    goal.a[2] = three ? 2.5f : 0.0f;
    throng_nav_field_def d = throng_nav_field_def_default();
    d.size[0] = d.size[1] = n;
    d.size[2] = three ? n : 1u;
    d.goals = &goal;
    d.goal_count = 1u;
    throng_object field;
    if (throng_nav_field_add(w, &d, &field) != THRONG_OK)
        return fail(w, "field");
    const uint64_t cells = (uint64_t)n * n * (three ? n : 1u);
    float *costs = NULL;
    if (!box_case) {
        costs = malloc((size_t)cells * sizeof *costs);
        if (!costs)
            return fail(w, "no memory for the costs");
    }
    /* The box of the incremental cases: by the goal, or at the far end of
     * the maze's route. */
    const float bx = local ? 0.5f * side + 4.0f : 0.5f * side;
    const float by = local ? 4.0f : side - 8.0f;
    double *ms = calloc(o->repeats, sizeof *ms);
    if (!ms) {
        free(costs);
        return fail(w, "no memory");
    }
    throng_nav_field_info info;
    memset(&info, 0, sizeof info);
    uint32_t timed = 0;
    for (uint32_t r = 0; r < 2u * o->repeats; r++) {
        if (costs) {
            const float cost = r % 2u ? 1.0f : 1.25f;
            for (uint64_t i = 0; i < cells; i++)
                costs[i] = cost;
            if (throng_nav_field_set_costs(w, field, costs) != THRONG_OK) {
                free(ms);
                free(costs);
                return fail(w, "costs");
            }
        } else {
            /* Added on even rounds, removed on odd ones; both timed. */
            static throng_object box;
            if (r % 2u == 0u) {
                throng_obstacle_def b = throng_obstacle_def_default();
                b.kind = THRONG_OBJECT_BOX;
                b.radius = 0.0f;
                b.min[0] = bx;
                b.min[1] = by;
                b.max[0] = bx + 3.0f;
                b.max[1] = by + 3.0f;
                if (throng_obstacle_add(w, &b, &box) != THRONG_OK) {
                    free(ms);
                    free(costs);
                    return fail(w, "box");
                }
            } else if (throng_object_remove(w, box) != THRONG_OK) {
                free(ms);
                free(costs);
                return fail(w, "remove");
            }
        }
        if (throng_nav_field_update(w, field) != THRONG_OK ||
            throng_nav_field_get(w, field, &info) != THRONG_OK) {
            free(ms);
            free(costs);
            return fail(w, "update");
        }
        /* The first round of the cost cases warms up. */
        if ((costs && r == 0u) || (!costs && r % 2u != timed_parity) ||
            timed >= o->repeats)
            continue;
        ms[timed++] = info.last_seconds * 1e3;
        out->rounds = info.last_rounds;
        out->tiles = info.last_tiles;
        out->cells = info.cells;
        out->last_cells = info.last_cells;
        out->full = info.last_full;
    }
    qsort(ms, timed, sizeof *ms, compare_double);
    out->median_ms = timed % 2u ? ms[timed / 2u]
                                : 0.5 * (ms[timed / 2u - 1u] + ms[timed / 2u]);
    out->min_ms = ms[0];
    free(ms);
    free(costs);
    throng_world_destroy(w);
    return 0;
}

int main(int argc, char **argv) {
    options o = { 1000u, 100u, 7u, { 1, 2 }, 2, false };
    const cli reader = { "navbench", option_table, OPT_COUNT,
                         false,      take_option,  &o };
    if (cli_parse(&reader, argc, argv) < 0)
        return CLI_EXIT_USAGE;
    if (o.help) {
        printf("usage: throng-navbench");
        cli_print_synopsis(stdout, option_table, OPT_COUNT);
        printf("\nTimes navigation field builds (see bench/navbench.c).\n");
        cli_print_options(stdout, option_table, OPT_COUNT, 24);
        return 0;
    }
    if (o.size < 64u || o.repeats == 0u || (o.size3 != 0u && o.size3 < 8u)) {
        cli_usage_error("navbench", "--size must be >= 64, --size3 0 or "
                                    ">= 8, --repeats >= 1");
        return CLI_EXIT_USAGE;
    }
    printf("%-7s %10s %7s %10s %10s %7s %7s %11s\n", "case", "cells", "threads",
           "median ms", "min ms", "rounds", "tiles", "cells redone");
    for (int c = 0; c < CASE_COUNT; c++) {
        if (c == CASE_VOXELS && o.size3 == 0u)
            continue;
        for (int t = 0; t < o.thread_count; t++) {
            figures f;
            memset(&f, 0, sizeof f);
            if (run_case((nav_case)c, &o, o.threads[t], &f))
                return 1;
            printf("%-7s %10llu %7d %10.2f %10.2f %7u %7u %11llu%s\n",
                   case_name[c], (unsigned long long)f.cells, o.threads[t],
                   f.median_ms, f.min_ms, f.rounds, f.tiles,
                   (unsigned long long)f.last_cells, f.full ? " (full)" : "");
            fflush(stdout);
        }
    }
    return 0;
}
