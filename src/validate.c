/* SPDX-License-Identifier: MIT */
/*
 * The validation sweep: the second tier of checks (check.h is the first).
 *
 * A build with VALIDATE=1 runs it before each tick and after each stage
 * of it (step.c): it rescans the whole world and compares the fast
 * structures with slow obvious ones, which costs several times the step
 * itself, so no released build runs it. What it checks: every float
 * column finite and every row as the API keeps it (world_check_row); the
 * slot column a one-to-one map of the rows onto the live slots, the links
 * back exact, free slots marked; after the grid build, the cell order
 * (cell ranges from 0 to the count, each row in the bucket its position
 * hashes to, a stable order within a bucket, `sorted` a permutation) and,
 * for a sample of agents, the same neighbours through the cell ranges as
 * through an O(n) scan, computed with the kernels' own arithmetic so the
 * two sets are equal to the bit; the zeroed tails; finite forces.
 *
 * What a failed check does: the step returns THRONG_ERR_INTERNAL and
 * throng_world_last_error says which check failed, at which stage, on
 * which row, slot or cell. Not an abort, as the first tier's asserts do,
 * because the sweep is a tool a developer turns on to hunt a bug: the
 * host (a soak run, a fuzzer, the Python binding) sees the refusal
 * through the same door as any other, can print the sentence, save the
 * world for a post-mortem or keep stepping to see what follows, and the
 * tests can plant a fault and watch the sweep report it without dying.
 * The world is then no longer trustworthy (its state broke an invariant
 * the library relies on): destroy it.
 *
 * The sweep never changes what the world shows: it allocates nothing
 * (the counting passes mark the top bit of a row index in place and clear
 * it before returning; rows are below THRONG_MAX_AGENTS = 2^28), never
 * rewrites links, and runs on the stepping thread between stages, while
 * no other thread touches the world.
 */
#include "validate.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "grid_query.h"
#include "geometry.h"
#include "nav_field.h"
#include "agent.h"
#include "columns.h"
#include "core.h"

void (*validate_test_hook)(throng_world *world, validate_stage stage);

/* The mark the counting passes set in a row or slot index. */
#define VALIDATE_MARK 0x80000000u

const char *validate_stage_name(validate_stage stage) {
    switch (stage) {
    case VALIDATE_BEFORE_STEP:
        return "before the step";
    case VALIDATE_GRID:
        return "after the grid build";
    case VALIDATE_TAILS_AND_LINKS:
        return "after the tails and links";
    case VALIDATE_BEHAVIOURS:
        return "after the behaviours";
    case VALIDATE_INTEGRATE:
        return "after integration";
    case VALIDATE_STAGE_COUNT:
        break;
    }
    return "at an unknown stage";
}

/* Records the failed check and returns THRONG_ERR_INTERNAL. */
__attribute__((format(printf, 3, 4))) static throng_status
sweep_fail(throng_world *w, validate_stage stage, const char *fmt, ...) {
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return world_fail(w, THRONG_ERR_INTERNAL,
                      "throng_world_step: validation %s: %s",
                      validate_stage_name(stage), what);
}

/* The slot a row holds, for sentences (any value, unchecked). */
static uint32_t slot_of(const throng_world *w, uint32_t row) {
    return w->col.slot[row];
}

/* ------------------------------------------------------------------------ */
/* Rows and handles                                                         */
/* ------------------------------------------------------------------------ */

/* The counts, the free list and the slots' values, before anything is
 * marked: every live slot's row is below the count when the links are
 * up to date, and below the mark when they are not. */
static throng_status rows_shape(throng_world *w, validate_stage stage,
                                int links_fresh) {
    if (w->count > w->capacity || w->slot_count > w->slot_capacity ||
        w->free_count > w->slot_count || w->count > w->slot_count)
        return sweep_fail(
            w, stage, "%u agents in %u rows, %u slots of %u, %u free", w->count,
            w->capacity, w->slot_count, w->slot_capacity, w->free_count);
    for (uint32_t s = 0; s < w->slot_count; s++) {
        uint32_t row = w->slot_dense[s];
        if (row == SLOT_FREE)
            continue;
        if (row >= (links_fresh ? w->count : VALIDATE_MARK))
            return sweep_fail(w, stage,
                              "slot %u is live at row %u, past the %u "
                              "agents",
                              s, row, w->count);
        if (w->slots[s].generation == 0)
            return sweep_fail(w, stage, "live slot %u has generation 0", s);
    }
    for (uint32_t k = 0; k < w->free_count; k++) {
        uint32_t s = w->free_slots[k];
        if (s >= w->slot_count || w->slot_dense[s] != SLOT_FREE)
            return sweep_fail(w, stage,
                              "free list entry %u names slot %u, which is "
                              "not a free slot",
                              k, s);
    }
    return THRONG_OK;
}

/* Marks each row's slot (rows_shape passed): the first row whose slot is
 * out of range, free or already marked, or (links up to date) does not
 * point back at it. Returns the rows marked, or the row that failed with
 * *bad set. */
static uint32_t rows_mark(throng_world *w, int links_fresh, int *bad) {
    const uint32_t *slot = w->col.slot;
    uint32_t *dense = w->slot_dense;
    for (uint32_t r = 0; r < w->count; r++) {
        uint32_t s = slot[r];
        if (s >= w->slot_count || dense[s] == SLOT_FREE ||
            (dense[s] & VALIDATE_MARK) || (links_fresh && dense[s] != r)) {
            *bad = 1;
            return r;
        }
        dense[s] |= VALIDATE_MARK;
    }
    *bad = 0;
    return w->count;
}

throng_status validate_rows(throng_world *w, validate_stage stage) {
    const int links_fresh =
        !atomic_load_explicit(&w->links_stale, memory_order_acquire);
    throng_status st = rows_shape(w, stage, links_fresh);
    if (st != THRONG_OK)
        return st;
    for (uint32_t r = 0; r < w->count; r++)
        if (w->col.group[r] >= w->group_count)
            return sweep_fail(w, stage,
                              "row %u (slot %u) is in group %u, past the %u "
                              "groups",
                              r, slot_of(w, r), w->col.group[r],
                              w->group_count);
    int bad;
    uint32_t failed_row = rows_mark(w, links_fresh, &bad);
    /* Unmark, and count the live slots no row holds. */
    uint32_t live = 0, unheld = UINT32_MAX, free_marked = 0;
    for (uint32_t s = 0; s < w->slot_count; s++) {
        uint32_t *row = &w->slot_dense[s];
        if (*row == SLOT_FREE) {
            free_marked++;
            continue;
        }
        live++;
        if (*row & VALIDATE_MARK)
            *row &= ~VALIDATE_MARK;
        else if (unheld == UINT32_MAX)
            unheld = s;
    }
    if (bad) {
        uint32_t s = w->col.slot[failed_row];
        if (s >= w->slot_count)
            return sweep_fail(w, stage,
                              "row %u holds slot %u, past the %u slots",
                              failed_row, s, w->slot_count);
        if (w->slot_dense[s] == SLOT_FREE)
            return sweep_fail(w, stage,
                              "row %u holds slot %u, which is marked free",
                              failed_row, s);
        if (links_fresh && w->slot_dense[s] != failed_row)
            return sweep_fail(w, stage,
                              "row %u holds slot %u, whose link points at "
                              "row %u",
                              failed_row, s, w->slot_dense[s]);
        return sweep_fail(w, stage,
                          "row %u holds slot %u, which an earlier row holds "
                          "too",
                          failed_row, s);
    }
    if (unheld != UINT32_MAX || live != w->count)
        return sweep_fail(w, stage,
                          "%u slots are live for %u agents; slot %u is held "
                          "by no row",
                          live, w->count, unheld);
    if (free_marked < w->free_count)
        return sweep_fail(w, stage,
                          "%u slots are marked free, the free list holds %u",
                          free_marked, w->free_count);
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* Columns                                                                  */
/* ------------------------------------------------------------------------ */

throng_status validate_columns(throng_world *w, validate_stage stage) {
    const char *column;
    uint32_t row;
    float value;
    if (world_non_finite(w, &column, &row, &value))
        return sweep_fail(w, stage, "column %s holds %g at row %u (slot %u)",
                          column, (double)value, row, slot_of(w, row));
    char fn[64];
    snprintf(fn, sizeof fn, "throng_world_step: validation %s",
             validate_stage_name(stage));
    for (uint32_t r = 0; r < w->count; r++) {
        if (world_check_row(w, fn, r) == THRONG_OK)
            continue;
        /* Its sentence says what; add where, and make it ours. */
        char why[sizeof w->error];
        memcpy(why, w->error, sizeof why);
        return world_fail(w, THRONG_ERR_INTERNAL, "%.200s (row %u, slot %u)",
                          why, r, slot_of(w, r));
    }
    return THRONG_OK;
}

/* The 4-byte columns a step's kernels may read past the count, with
 * their names; NULL ones (2D, behaviour state not yet used) are skipped. */
#define TAIL_COLUMNS (FLOAT_COLUMN_COUNT + U32_COLUMN_COUNT + 3)

static int tail_columns(const throng_world *w, const void *col[TAIL_COLUMNS],
                        const char *name[TAIL_COLUMNS]) {
    const agent_columns *c = &w->col;
    const void *all[TAIL_COLUMNS] = {
        c->px,          c->py,          c->pz,       c->vx,        c->vy,
        c->vz,          c->fx,          c->fy,       c->fz,        c->ux,
        c->uy,          c->uz,          c->mass,     c->max_force, c->max_speed,
        c->radius,      c->wander_rate, c->tx,       c->ty,        c->tz,
        c->wx,          c->wy,          c->wz,       c->group,     c->slot,
        c->target_slot, c->target_gen,  c->progress, w->steer_x,   w->steer_y,
        w->steer_z
    };
    static const char *const names[TAIL_COLUMNS] = {
        "px",          "py",          "pz",       "vx",        "vy",
        "vz",          "fx",          "fy",       "fz",        "ux",
        "uy",          "uz",          "mass",     "max_force", "max_speed",
        "radius",      "wander_rate", "tx",       "ty",        "tz",
        "wx",          "wy",          "wz",       "group",     "slot",
        "target_slot", "target_gen",  "progress", "steer_x",   "steer_y",
        "steer_z"
    };
    int n = 0;
    for (int k = 0; k < TAIL_COLUMNS; k++)
        /* A column held as a single row has no rows past it to zero. */
        if (all[k] && !(k < FLOAT_COLUMN_COUNT && float_column_single(w, k))) {
            col[n] = all[k];
            name[n] = names[k];
            n++;
        }
    return n;
}

throng_status validate_tails(throng_world *w, validate_stage stage) {
    const void *col[TAIL_COLUMNS];
    const char *name[TAIL_COLUMNS];
    int n = tail_columns(w, col, name);
    for (int k = 0; k < n; k++) {
        const uint32_t *x = (const uint32_t *)col[k] + w->count;
        for (uint32_t i = 0; i < COLUMN_PAD; i++)
            if (x[i] != 0)
                return sweep_fail(w, stage,
                                  "column %s holds bits %#x at row %u, %u "
                                  "past the count",
                                  name[k], x[i], w->count + i, i);
    }
    return THRONG_OK;
}

throng_status validate_forces(throng_world *w, validate_stage stage) {
    const float *f[3] = { w->steer_x, w->steer_y, w->steer_z };
    for (int a = 0; a < w->dims; a++)
        for (uint32_t r = 0; r < w->count; r++)
            if (!is_finite_float(f[a][r]))
                return sweep_fail(w, stage,
                                  "the force's %c on row %u (slot %u) is %g",
                                  "xyz"[a], r, slot_of(w, r), (double)f[a][r]);
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* The grid                                                                 */
/* ------------------------------------------------------------------------ */

/* The bucket of row `row`'s position, as the build computes it; 0 with
 * *outside set when a dense numbering does not hold its cell. */
static uint32_t row_bucket(const throng_world *w, uint32_t row, int32_t cell[3],
                           int *outside) {
    const grid *g = &w->grid;
    cell[0] = grid_coord(g, 0, w->col.px[row]);
    cell[1] = grid_coord(g, 1, w->col.py[row]);
    cell[2] = w->dims == 3 ? grid_coord(g, 2, w->col.pz[row]) : 0;
    *outside = !grid_cell_inside(g, cell[0], cell[1], cell[2]);
    return *outside ? 0u : grid_bucket(g, cell[0], cell[1], cell[2]);
}

/* Rows a < b of one bucket are in the build's order: by source row, or
 * in canonical order by host key first (the rows were permuted, so each
 * row's slot is its own). */
static int rows_in_order(const throng_world *w, uint32_t a, uint32_t b) {
    const uint32_t *sorted = w->grid.sorted;
    if (w->canonical_order && w->slot_keys) {
        const uint64_t ka = w->slot_keys[w->col.slot[a]],
                       kb = w->slot_keys[w->col.slot[b]];
        if (ka != kb)
            return ka < kb;
    }
    return sorted[a] < sorted[b];
}

/* cell_start, the occupied count, and every row in the bucket whose
 * range holds it, in its old order within the bucket. */
static throng_status grid_order(throng_world *w, validate_stage stage) {
    const grid *g = &w->grid;
    const uint32_t *start = g->cell_start;
    const uint32_t buckets = g->bucket_count;
    if (start[0] != 0 || start[buckets] != w->count)
        return sweep_fail(w, stage,
                          "the cell ranges run from row %u to row %u, not "
                          "from 0 to the %u agents",
                          start[0], start[buckets], w->count);
    uint32_t occupied = 0;
    for (uint32_t b = 0; b < buckets; b++) {
        if (start[b] > start[b + 1])
            return sweep_fail(w, stage,
                              "bucket %u's range [%u, %u) runs backwards", b,
                              start[b], start[b + 1]);
        occupied += start[b] != start[b + 1];
        for (uint32_t r = start[b]; r < start[b + 1]; r++) {
            int32_t c[3];
            int outside;
            uint32_t at = row_bucket(w, r, c, &outside);
            if (outside || at != b)
                return sweep_fail(w, stage,
                                  "row %u (slot %u) in cell (%d, %d, %d), "
                                  "bucket %u, lies in bucket %u's range "
                                  "[%u, %u)",
                                  r, slot_of(w, r), (int)c[0], (int)c[1],
                                  (int)c[2], at, b, start[b], start[b + 1]);
            if (r > start[b] && !rows_in_order(w, r - 1, r))
                return sweep_fail(w, stage,
                                  "rows %u and %u of bucket %u came from rows "
                                  "%u and %u: the sort was not stable%s",
                                  r - 1, r, b, g->sorted[r - 1], g->sorted[r],
                                  w->canonical_order
                                      ? " (in canonical order: by host key, "
                                        "then source row)"
                                      : "");
        }
    }
    if (occupied != g->occupied)
        return sweep_fail(w, stage,
                          "%u buckets hold agents, the build counted %u",
                          occupied, g->occupied);
    return THRONG_OK;
}

/* `sorted` holds each row below the count once. */
static throng_status grid_permutation(throng_world *w, validate_stage stage) {
    uint32_t *sorted = w->grid.sorted;
    const uint32_t n = w->count;
    uint32_t bad = n, seen = 0;
    for (uint32_t r = 0; r < n && bad == n; r++) {
        uint32_t from = sorted[r] & ~VALIDATE_MARK;
        if (from >= n || (sorted[from] & VALIDATE_MARK))
            bad = r;
        else
            sorted[from] |= VALIDATE_MARK;
    }
    for (uint32_t r = 0; r < n; r++)
        if (sorted[r] & VALIDATE_MARK) {
            sorted[r] &= ~VALIDATE_MARK;
            seen++;
        }
    if (bad != n)
        return sweep_fail(w, stage,
                          "the cell order is no permutation: sorted row %u "
                          "comes from row %u, out of range or taken (%u of "
                          "%u rows seen)",
                          bad, sorted[bad], seen, n);
    return THRONG_OK;
}

/* The offset from row i to row j through shift s, as the kernels compute
 * it (steer_flock.c): d = p_j - (p_i - s); its squared length. */
static float offset2(const throng_world *w, uint32_t i, uint32_t j,
                     const float s[3]) {
    const agent_columns *c = &w->col;
    float dx = c->px[j] - (c->px[i] - s[0]);
    float dy = c->py[j] - (c->py[i] - s[1]);
    float d2 = dx * dx + dy * dy;
    if (w->dims == 3) {
        float dz = c->pz[j] - (c->pz[i] - s[2]);
        d2 = d2 + dz * dz;
    }
    return d2;
}

/* The same by brute force: the nearest image in a periodic box, where a
 * neighbour's is the only one within the radius (the box is at least
 * three radii wide). */
static float brute2(const throng_world *w, uint32_t i, uint32_t j) {
    float s[3] = { 0.0f, 0.0f, 0.0f };
    if (w->boundary == THRONG_BOUNDARY_PERIODIC) {
        const float *p[3] = { w->col.px, w->col.py, w->col.pz };
        for (int a = 0; a < 3; a++) {
            if (!p[a]) /* z in 2D */
                continue;
            float raw = p[a][j] - p[a][i];
            if (raw > 0.5f * w->box[a])
                s[a] = -w->box[a];
            else if (raw < -0.5f * w->box[a])
                s[a] = w->box[a];
        }
    }
    return offset2(w, i, j, s);
}

/* Row t's neighbours (within the neighbour radius, itself left out)
 * through its cell ranges and by a scan of every row: the same set. */
static throng_status grid_neighbours(throng_world *w, validate_stage stage,
                                     uint32_t t) {
    const grid *g = &w->grid;
    const float r2 = w->neighbour_radius * w->neighbour_radius;
    cell_range ranges[GRID_MAX_RANGES];
    int32_t c[3];
    int outside;
    row_bucket(w, t, c, &outside);
    const int count = grid_ranges(g, c[0], c[1], c[2], ranges);
    uint32_t through_grid = 0;
    for (int k = 0; k < count; k++)
        for (uint32_t j = ranges[k].begin; j < ranges[k].end; j++) {
            if (j == t || !(offset2(w, t, j, ranges[k].shift) <= r2))
                continue;
            through_grid++;
            if (!(brute2(w, t, j) <= r2))
                return sweep_fail(w, stage,
                                  "row %u is a neighbour of row %u (slot %u) "
                                  "through cell range %d, but not by the "
                                  "nearest image",
                                  j, t, slot_of(w, t), k);
        }
    uint32_t by_scan = 0;
    for (uint32_t j = 0; j < w->count; j++) {
        if (j == t || !(brute2(w, t, j) <= r2))
            continue;
        by_scan++;
        int holding = 0;
        for (int k = 0; k < count; k++)
            holding += j >= ranges[k].begin && j < ranges[k].end;
        if (holding != 1)
            return sweep_fail(w, stage,
                              "row %u lies within the neighbour radius of row "
                              "%u (slot %u, cell (%d, %d, %d)) but in %d of "
                              "its %d cell ranges",
                              j, t, slot_of(w, t), (int)c[0], (int)c[1],
                              (int)c[2], holding, count);
    }
    if (through_grid != by_scan)
        return sweep_fail(w, stage,
                          "row %u (slot %u) has %u neighbours through its cell "
                          "ranges, %u by a scan of every agent",
                          t, slot_of(w, t), through_grid, by_scan);
    return THRONG_OK;
}

/* Row t's neighbours list (verlet.c) holds every row within the
 * neighbour radius of it, by a scan of every row, in exactly one run and
 * (if it has windows) one window; its runs and windows ascend and lie
 * within the rows. */
static throng_status list_neighbours(throng_world *w, validate_stage stage,
                                     uint32_t t) {
    if (!w->group_params[w->col.group[t]].orca)
        return THRONG_OK;
    const float r2 = w->neighbour_radius * w->neighbour_radius;
    const uint32_t *runs;
    const uint32_t n = verlet_row_runs(&w->verlet, t, &runs);
    for (uint32_t k = 0; k < n; k++)
        if (!(runs[2u * k] < runs[2u * k + 1u] &&
              runs[2u * k + 1u] <= w->count &&
              (k == 0 || runs[2u * k - 1u] <= runs[2u * k])))
            return sweep_fail(w, stage,
                              "row %u (slot %u): list run %u, rows [%u, %u), "
                              "is empty, past the rows or out of order",
                              t, slot_of(w, t), k, runs[2u * k],
                              runs[2u * k + 1u]);
    const uint32_t *win;
    const uint32_t nw = verlet_row_windows(&w->verlet, t, &win);
    for (uint32_t k = 0; k < nw; k++)
        if (nw > VERLET_WINDOWS || !(win[2u * k + 1u] & 1u) ||
            win[2u * k + 1u] >> VERLET_WINDOW != 0u ||
            win[2u * k] >= w->count ||
            (k > 0 && win[2u * k] < win[2u * k - 2u] + VERLET_WINDOW))
            return sweep_fail(w, stage,
                              "row %u (slot %u): list window %u of %u, from "
                              "row %u, mask %#x, is empty, past the rows or "
                              "out of order",
                              t, slot_of(w, t), k, nw, win[2u * k],
                              win[2u * k + 1u]);
    uint32_t covered = 0;
    int self = 0;
    for (uint32_t k = 0; k < n; k++) {
        covered += runs[2u * k + 1u] - runs[2u * k];
        self |= t >= runs[2u * k] && t < runs[2u * k + 1u];
    }
    if (covered != w->verlet.covered[t] ||
        self != verlet_row_self(&w->verlet, t))
        return sweep_fail(
            w, stage,
            "row %u (slot %u): its list runs cover %u rows%s, the "
            "list records %u%s",
            t, slot_of(w, t), covered, self ? " with it" : "",
            w->verlet.covered[t],
            verlet_row_self(&w->verlet, t) ? " with it" : "");
    static const float none[3] = { 0.0f, 0.0f, 0.0f };
    for (uint32_t j = 0; j < w->count; j++) {
        if (j == t || !(offset2(w, t, j, none) <= r2))
            continue;
        int holding = 0;
        for (uint32_t k = 0; k < n; k++)
            holding += j >= runs[2u * k] && j < runs[2u * k + 1u];
        if (holding != 1)
            return sweep_fail(w, stage,
                              "row %u lies within the neighbour radius of row "
                              "%u (slot %u) but in %d of its %u list runs",
                              j, t, slot_of(w, t), holding, n);
        holding = 0;
        for (uint32_t k = 0; k < nw; k++) {
            const uint32_t i = j - win[2u * k];
            holding += j >= win[2u * k] && i < VERLET_WINDOW &&
                       ((win[2u * k + 1u] >> i) & 1u);
        }
        if (nw > 0u && holding != 1)
            return sweep_fail(w, stage,
                              "row %u lies within the neighbour radius of row "
                              "%u (slot %u) but in %d of its %u list windows",
                              j, t, slot_of(w, t), holding, nw);
    }
    return THRONG_OK;
}

throng_status validate_grid(throng_world *w, validate_stage stage) {
    const grid *g = &w->grid;
    if (w->verlet.active) {
        /* The tick's neighbours come from the lists, in unbounded space,
         * whether the grid was built for them this tick or not. */
        if (!w->verlet.valid || w->verlet.rows != w->count)
            return sweep_fail(w, stage,
                              "the neighbour lists (valid %d, %u rows) do "
                              "not describe the %u rows",
                              w->verlet.valid, w->verlet.rows, w->count);
        throng_status st = THRONG_OK;
        for (uint32_t t = 0; t < w->count && st == THRONG_OK;
             t += 1u + w->count / VALIDATE_SAMPLE)
            st = list_neighbours(w, stage, t);
        return st;
    }
    if (!g->valid || !g->permuted || g->count != w->count)
        return sweep_fail(w, stage,
                          "the grid (valid %d, permuted %d, %u agents) does "
                          "not describe the %u rows",
                          g->valid, g->permuted, g->count, w->count);
    throng_status st = grid_order(w, stage);
    if (st == THRONG_OK)
        st = grid_permutation(w, stage);
    if (st != THRONG_OK || w->count == 0)
        return st;
    /* Evenly spread rows, from a start that moves with the step, so a
     * long run looks at many agents and a rerun at the same ones. */
    const uint32_t n = w->count;
    const uint32_t sample = n < VALIDATE_SAMPLE ? n : VALIDATE_SAMPLE;
    const uint32_t stride = n / sample;
    const uint32_t first = (uint32_t)(w->step * 2654435761u % stride);
    for (uint32_t k = 0; k < sample && st == THRONG_OK; k++)
        st = grid_neighbours(w, stage, first + k * stride);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Navigation fields                                                        */
/* ------------------------------------------------------------------------ */

/* One field's times against its update, cell by cell (nav_solve.h): the
 * fixed point every build must reach, whatever its schedule. */
static throng_status nav_fixed_point(throng_world *w, validate_stage stage,
                                     uint32_t id, const nav_field *f) {
    const nav_raster *r = &f->r;
    uint32_t at[3];
    for (at[2] = 0; at[2] < r->n[2]; at[2]++)
        for (at[1] = 0; at[1] < r->n[1]; at[1]++)
            for (at[0] = 0; at[0] < r->n[0]; at[0]++) {
                const size_t c = nav_index(r, at[0], at[1], at[2]);
                const uint8_t k = f->cls[c];
                const uint64_t raw = f->time[c];
                uint64_t want;
                if (k == NAV_SOLID) {
                    want = NAV_SOLID_TIME;
                } else if (k == NAV_GOAL) {
                    want = 0u;
                } else {
                    const uint64_t m = k == NAV_MARGIN ? ~NAV_TAG : ~0ull;
                    uint64_t x[3];
                    for (int ax = 0; ax < r->dims; ax++) {
                        const uint64_t lo = f->time[c - r->stride[ax]] & m;
                        const uint64_t hi = f->time[c + r->stride[ax]] & m;
                        x[ax] = lo < hi ? lo : hi;
                        x[ax] = x[ax] < NAV_INF ? x[ax] : NAV_INF;
                    }
                    const uint64_t u =
                        nav_update(f->unit_table, x, r->dims, f->step[c]);
                    want = (u < NAV_INF ? u : NAV_INF) |
                           (k == NAV_MARGIN ? NAV_TAG : 0u);
                }
                if (raw != want)
                    return sweep_fail(w, stage,
                                      "navigation field (object %u): cell "
                                      "(%u, %u, %u) of class %u holds time "
                                      "%#llx, its update gives %#llx",
                                      id + 1u, at[0], at[1], at[2], k,
                                      (unsigned long long)raw,
                                      (unsigned long long)want);
            }
    return THRONG_OK;
}

throng_status validate_nav(throng_world *w, validate_stage stage) {
    if (w->slot_nav)
        for (uint32_t s = 0; s < w->slot_count; s++)
            if (w->slot_nav[s].state == SLOT_NAV_ARRIVING)
                return sweep_fail(
                    w, stage, "slot %u is still arriving after its tick", s);
    if (stage != VALIDATE_BEFORE_STEP || !w->geo)
        return THRONG_OK;
    for (uint32_t i = 0; i < w->geo->count; i++) {
        const nav_field *f = w->geo->objects[i].nav;
        if (!f || !f->built)
            continue;
        throng_status st = nav_fixed_point(w, stage, i, f);
        if (st != THRONG_OK)
            return st;
    }
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* The sweep of each stage                                                  */
/* ------------------------------------------------------------------------ */

/* The parts each stage sweeps, in order: the first names what the stage
 * changed, the second what it must have kept, the third (navigation) what
 * happens around the stages: before the step the fields and after it the
 * arrivals. Integration ends where the
 * next tick starts, so both sweep the whole state; the grid moved the
 * rows into cell order, each carrying its slot; the behaviours write the
 * forces, and the wander state. */
static const validate_part stage_parts[VALIDATE_STAGE_COUNT][3] = {
    [VALIDATE_BEFORE_STEP] = { validate_rows, validate_columns, validate_nav },
    [VALIDATE_GRID] = { validate_grid, validate_rows, NULL },
    [VALIDATE_TAILS_AND_LINKS] = { validate_tails, validate_rows, NULL },
    [VALIDATE_BEHAVIOURS] = { validate_forces, validate_columns, NULL },
    [VALIDATE_INTEGRATE] = { validate_rows, validate_columns, validate_nav },
};

throng_status validate_stage_sweep(throng_world *w, validate_stage stage) {
    if (validate_test_hook)
        validate_test_hook(w, stage);
    if ((unsigned)stage >= VALIDATE_STAGE_COUNT)
        return sweep_fail(w, stage, "no such stage");
    throng_status st = THRONG_OK;
    for (int part = 0; part < 3 && st == THRONG_OK; part++)
        if (stage_parts[stage][part])
            st = stage_parts[stage][part](w, stage);
    return st;
}
