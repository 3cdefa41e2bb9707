/* SPDX-License-Identifier: MIT */
/*
 * throng-layer-cost: the distributed layer's own work per ghost and per
 * owned agent (mpi/DISTRIBUTED.md, t_g and t_s), measured in one process
 * without MPI, the layer's old way and its new way side by side on the
 * same worlds, tick after tick.
 *
 * Two flock2d worlds in canonical order: the rank's own (its box the
 * half x < L/2 of the periodic box) and its neighbour's, whose agents
 * within reach of the own box's two faces are the ghosts. Each tick:
 *   old: export each ghost (throng_agent_at, throng_agent_export), look
 *        it up in the own world (throng_agent_find, the duplicate check),
 *        import it, and remove it, one call per agent;
 *   new: export each ghost the same way, import them all in one
 *        throng_agents_import and remove them in one throng_agents_remove;
 *   and the border scan of the own world's rows, old (a test per row
 *   through a call, per axis, as the layer's interior() did) and new
 *   (one branch-free pass over the x column, as border_rows does);
 * then both worlds step. Prints the best and the median over the ticks.
 *
 *   throng-layer-cost [AGENTS [TICKS]]      default 20000 60
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench/scenarios.h"
#include "throng.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A keyed flock2d world of n agents in canonical order, one thread. */
static throng_world *make(uint32_t n, uint64_t first_key, uint64_t seed) {
    const scenario *sc = scenario_find("flock2d");
    throng_world *w = NULL;
    if (!sc || sc->build(n, 1, seed, &w) != THRONG_OK)
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        throng_agent a;
        throng_agent_at(w, i, &a);
        throng_agent_set_host_key(w, a, first_key + i);
    }
    throng_world_set_canonical_order(w, true);
    throng_world_set_threads(w, 1);
    for (int k = 0; k < 5; k++)
        throng_world_step(w, 1.0f / 30.0f);
    return w;
}

/* The own box along x, as the layer holds a rank's box. */
typedef struct box1 {
    int dims, periodic;
    double edge[3], lo[3], hi[3], reach;
} box1;

/* The layer's old test, a call per row. */
__attribute__((noinline)) static int interior(const box1 *b, const float p[3]) {
    for (int a = 0; a < b->dims; a++) {
        const double lo = b->lo[a], hi = b->hi[a], x = (double)p[a];
        if (b->periodic && lo <= 0.0 && hi >= b->edge[a])
            continue;
        if (x - lo <= b->reach || hi - x <= b->reach)
            return 0;
    }
    return 1;
}

/* The neighbour's rows within reach of the own box's faces. */
static uint32_t ghost_rows(const throng_world *src, const box1 *b,
                           uint32_t *rows) {
    throng_columns c;
    throng_world_columns(src, &c);
    uint32_t m = 0;
    for (uint32_t i = 0; i < c.count; i++) {
        const double x = (double)c.px[i];
        if ((x >= b->hi[0] && x - b->hi[0] <= b->reach) ||
            (x < b->edge[0] && b->edge[0] - x <= b->reach))
            rows[m++] = i;
    }
    return m;
}

static void export_rows(throng_world *src, const uint32_t *rows, uint32_t m,
                        throng_agent_state *st) {
    for (uint32_t g = 0; g < m; g++) {
        throng_agent a;
        throng_agent_at(src, rows[g], &a);
        throng_agent_export(src, a, &st[g]);
        st[g].target_key = 0;
    }
}

static void report(const char *what, const char *unit, double scale,
                   double *old_t, double *new_t, int n) {
    qsort(old_t, (size_t)n, sizeof *old_t, cmp_double);
    qsort(new_t, (size_t)n, sizeof *new_t, cmp_double);
    printf("%s: old best %.3f %s, median %.3f %s; new best %.3f %s, median "
           "%.3f %s; best new/old %.2f\n",
           what, scale * old_t[0], unit, scale * old_t[n / 2], unit,
           scale * new_t[0], unit, scale * new_t[n / 2], unit,
           new_t[0] / old_t[0]);
}

int main(int argc, char **argv) {
    const uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 20000u;
    const int ticks = argc > 2 ? atoi(argv[2]) : 60;
    if (n < 100u || ticks < 1) {
        fprintf(stderr, "usage: throng-layer-cost [AGENTS >= 100 [TICKS]]\n");
        return 2;
    }
    throng_world *own = make(n, 1u, 7u), *src = make(n, 1u + n, 8u);
    uint32_t *rows = malloc(n * sizeof *rows), *scan = malloc(n * sizeof *scan);
    throng_agent_state *st = malloc(n * sizeof *st);
    throng_agent *h = malloc(n * sizeof *h);
    double *t[4];
    for (int k = 0; k < 4; k++)
        t[k] = malloc((size_t)ticks * sizeof *t[k]);
    if (!own || !src || !rows || !scan || !st || !h || !t[0] || !t[1] ||
        !t[2] || !t[3]) {
        fprintf(stderr, "throng-layer-cost: no memory\n");
        return 1;
    }
    throng_world_def d;
    throng_world_get_def(own, &d);
    box1 b = { 2,
               1,
               { (double)d.box_size[0], (double)d.box_size[1], 0.0 },
               { 0.0, 0.0, 0.0 },
               { 0.5 * (double)d.box_size[0], (double)d.box_size[1], 0.0 },
               (double)d.neighbour_radius * (1.0 + 1e-5) + 1e-6 };
    uint64_t ghosts = 0;
    for (int k = 0; k < ticks; k++) {
        const uint32_t m = ghost_rows(src, &b, rows);
        ghosts += m;
        /* Old: one call per ghost for each part. */
        double t0 = now();
        export_rows(src, rows, m, st);
        for (uint32_t g = 0; g < m; g++) {
            throng_agent a;
            if (throng_agent_find(own, st[g].host_key, &a) == THRONG_OK)
                continue;
            if (throng_agent_import(own, &st[g], &h[g]) != THRONG_OK)
                return 1;
        }
        for (uint32_t g = 0; g < m; g++)
            throng_agent_remove(own, h[g]);
        /* New: the same exports, one call each way. */
        double t1 = now();
        export_rows(src, rows, m, st);
        if (throng_agents_import(own, m, st, h) != THRONG_OK ||
            throng_agents_remove(own, m, h) != THRONG_OK)
            return 1;
        double t2 = now();
        t[0][k] = (t1 - t0) / (double)(m ? m : 1u);
        t[1][k] = (t2 - t1) / (double)(m ? m : 1u);
        /* The scans of the own rows. */
        throng_columns c;
        throng_world_columns(own, &c);
        double s0 = now();
        uint32_t old_near = 0;
        for (uint32_t i = 0; i < c.count; i++) {
            const float p[3] = { c.px[i], c.py[i], 0.0f };
            if (!interior(&b, p))
                scan[old_near++] = i;
        }
        double s1 = now();
        uint32_t near = 0;
        const double l0 = b.lo[0], h0 = b.hi[0], reach = b.reach;
        for (uint32_t i = 0; i < c.count; i++) {
            const double v = (double)c.px[i];
            scan[near] = i;
            near += (uint32_t)(v - l0 <= reach) | (uint32_t)(h0 - v <= reach);
        }
        double s2 = now();
        if (old_near != near)
            fprintf(stderr, "throng-layer-cost: the scans differ\n");
        t[2][k] = (s1 - s0) / (double)c.count;
        t[3][k] = (s2 - s1) / (double)c.count;
        throng_world_step(own, 1.0f / 30.0f);
        throng_world_step(src, 1.0f / 30.0f);
    }
    printf("flock2d, %u owned agents, %.0f ghosts a tick, %d ticks, 1 "
           "thread\n",
           n, (double)ghosts / (double)ticks, ticks);
    report("a ghost (export, lookup, import, remove)", "us", 1e6, t[0], t[1],
           ticks);
    report("a scan of an owned agent", "ns", 1e9, t[2], t[3], ticks);
    throng_world_destroy(own);
    throng_world_destroy(src);
    free(rows);
    free(scan);
    free(st);
    free(h);
    for (int k = 0; k < 4; k++)
        free(t[k]);
    return 0;
}
