/* SPDX-License-Identifier: MIT */
/*
 * Verlet lists for the velocity stage.
 *
 * A tick of a sparse crowd whose only neighbour rule is ORCA (circle2d's
 * ring) spends most of its time finding candidates: the grid's sort and
 * gather of every column, then each cell's candidate ranges. Agents move
 * a fraction of the neighbour radius per tick, so the candidates hardly
 * change from one tick to the next. With a skin s (throng_world_set_
 * neighbour_skin()), a build lists, for each row, every row within
 * (R + s) (times the grid's padding) of it, R the world's neighbour
 * radius; while no agent has moved more than s / 2 from where the build
 * saw it, every pair now within R was within R + s then, so the lists
 * still hold every neighbour, and the ticks in between need no grid at
 * all. That is Verlet's neighbour list, as molecular dynamics keeps it.
 * A crowd that moves together keeps its lists far longer, measured in
 * its own affine frame (verlet_frame.c).
 *
 * A list is up to VERLET_RUNS runs of consecutive rows: the rows within
 * reach, sorted, cut at the widest gaps between them. The rows between
 * that are not within reach are measured and left out by the velocity
 * stage as it leaves out a grid block's far candidates; a crowd whose
 * rows follow space (a ring added in order around it, a square row by
 * row) needs a run or two.
 *
 * A build measures each block's candidates on the path's lanes where it
 * has them (hold_rows(), the velocity stage's own scan), over the
 * positions copied into the lists' grid order, so that the block's cells
 * are stretches; the same rows as the scalar scan, in the same order.
 * A block whose rows lie within a window of VERLET_BLOCK rows (a file
 * added in order along it, as circle2d's ring) is measured straight from
 * the columns over the window, and each row's list is read off as bits
 * in row order, with no sort of rows per row (window_list()).
 *
 * The stage meets the candidates in list order rather than cell order,
 * which changes nothing: ORCA chooses the nearest max_neighbours by
 * (squared distance, slot) and meets their lines in that order, so which
 * candidates are offered, beyond the ones within range, and in what
 * order, does not matter. A neighbour walk's sums and contact
 * resolution's pushes do depend on the order, so the lists serve only
 * ticks without them (verlet_usable()). The grid is then built without
 * moving the rows (a permuting build would renumber the lists), so a
 * world with lists keeps its rows in the order they were added: the
 * same rows, whichever ticks rebuilt, for any thread count, and after a
 * snapshot is loaded and the skin set again. Kept or rebuilt, every
 * agent's new state is the same bits as without lists.
 */
#include "verlet.h"

#include <math.h>
#include <string.h>

#include "internal.h"
#include "check.h"
#include "core.h"
#include "grid_plan.h"
#include "grid_query.h"
#include "steer_flock.h"

/* Sorted positions per chunk of the build. */
#define VERLET_GRAIN 1024u

/* Candidates within reach a row lists exactly; a row with more (a knot
 * of hundreds of agents) gets one run from the first of them to the
 * last. */
#define VERLET_HELD 512u

/* The radius a list reaches, (R + skin) padded as the grid's cells are. */
static double list_radius(const throng_world *w) {
    return ((double)w->neighbour_radius + (double)w->verlet.skin) *
           (double)GRID_CELL_PAD;
}

void verlet_set_skin(throng_world *w, float skin) {
    verlet_lists *v = &w->verlet;
    grid_release(w, &v->grid);
    v->skin = skin;
    /* Cells of the default size for the radius plus the skin: a block of
     * 3^d cells around a row's holds every row within list_radius(). */
    grid_init(&v->grid, w->dims, 0, w->box, w->neighbour_radius + skin, 0.0f);
    verlet_forget(v);
}

int verlet_usable(const throng_world *w, uint32_t contact) {
    if (!(w->verlet.skin > 0.0f) || contact || w->canonical_order ||
        w->grid.periodic)
        return 0;
    const uint64_t present = groups_present(w);
    int orca = 0;
    for (uint32_t g = 0; g < w->group_count; g++) {
        if (!w->groups[g].live || !is_present(present, g))
            continue;
        const group_kernel_params *k = &w->group_params[g];
        if (k->walk || !k->recipe)
            return 0;
        orca |= k->orca;
    }
    return orca;
}

size_t verlet_bytes(const verlet_lists *v, int dims) {
    return (size_t)v->capacity *
               (2u * VERLET_RUNS * sizeof(uint32_t) + sizeof(uint8_t) +
                sizeof(uint32_t) + 2u * VERLET_WINDOWS * sizeof(uint32_t) +
                sizeof(uint8_t) + ((size_t)dims + 1u) * sizeof(float)) +
           grid_bytes(&v->grid);
}

/* The row arrays alone (reserve() trades them). */
static void release_rows(throng_world *w, verlet_lists *v, int dims) {
    const size_t n = v->capacity;
    world_free(w, v->runs, n * 2u * VERLET_RUNS * sizeof(uint32_t));
    world_free(w, v->count, n * sizeof(uint8_t));
    world_free(w, v->covered, n * sizeof(uint32_t));
    world_free(w, v->window, n * 2u * VERLET_WINDOWS * sizeof(uint32_t));
    world_free(w, v->windows, n * sizeof(uint8_t));
    for (int a = 0; a < 3; a++)
        world_free(w, v->at[a], a < dims ? n * sizeof(float) : 0u);
    world_free(w, v->guess, n * sizeof(float));
    v->guess = NULL;
    v->runs = NULL;
    v->count = NULL;
    v->covered = NULL;
    v->window = NULL;
    v->windows = NULL;
    memset(v->at, 0, sizeof v->at);
    v->capacity = 0;
    verlet_forget(v);
}

void verlet_release(throng_world *w, verlet_lists *v, int dims) {
    release_rows(w, v, dims);
    grid_release(w, &v->grid);
}

/* Room for `rows` rows (the world's capacity); all or nothing. */
static int reserve(throng_world *w, verlet_lists *v, uint32_t rows) {
    if (rows <= v->capacity)
        return 0;
    const size_t n = rows;
    verlet_lists next = *v;
    next.capacity = rows;
    next.runs = world_alloc(w, n * 2u * VERLET_RUNS * sizeof(uint32_t));
    next.count = world_alloc(w, n * sizeof(uint8_t));
    next.covered = world_alloc(w, n * sizeof(uint32_t));
    next.window = world_alloc(w, n * 2u * VERLET_WINDOWS * sizeof(uint32_t));
    next.windows = world_alloc(w, n * sizeof(uint8_t));
    next.guess = world_alloc(w, n * sizeof(float));
    int failed = !next.runs || !next.count || !next.covered || !next.window ||
                 !next.windows || !next.guess;
    for (int a = 0; a < 3; a++) {
        next.at[a] = a < w->dims ? world_alloc(w, n * sizeof(float)) : NULL;
        failed |= a < w->dims && !next.at[a];
    }
    if (failed) {
        release_rows(w, &next, w->dims);
        return 1;
    }
    release_rows(w, v, w->dims);
    memcpy(v->at, next.at, sizeof v->at);
    v->runs = next.runs;
    v->count = next.count;
    v->covered = next.covered;
    v->window = next.window;
    v->windows = next.windows;
    v->guess = next.guess;
    memset(v->guess, 0, n * sizeof(float));
    v->capacity = rows;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Building                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct build_ctx {
    throng_world *w;
    float limit2; /* squared list radius */
    /* On a vector path, the positions in the lists' grid order (at[a][u]
     * the position of row sorted[u]), for hold_rows() to scan a block's
     * candidates as stretches; NULL elsewhere. */
    float *at[3];
} build_ctx;

/* Sorts the m rows ascending, through `spare` (room for m). They come
 * as ascending stretches, one a bucket of the grid (its counting sort is
 * stable, and the rows are not moved), so the stretches are found and
 * merged pairwise until one is left: a few passes over the rows, where a
 * knot's hundreds of rows made an insertion sort quadratic. */
static void sort_rows(uint32_t *rows, uint32_t m, uint32_t *spare) {
    uint32_t bound[VERLET_HELD + 1u];
    uint32_t runs = 0;
    for (uint32_t i = 0; i < m; i++)
        if (i == 0 || rows[i] < rows[i - 1u])
            bound[runs++] = i;
    bound[runs] = m;
    uint32_t *from = rows, *to = spare;
    while (runs > 1u) {
        uint32_t kept = 0;
        for (uint32_t r = 0; r < runs; r += 2u) {
            const uint32_t a = bound[r], mid = bound[r + 1u];
            const uint32_t end = r + 2u <= runs ? bound[r + 2u] : mid;
            uint32_t i = a, j = mid, o = a;
            while (i < mid && j < end)
                to[o++] = from[j] < from[i] ? from[j++] : from[i++];
            while (i < mid)
                to[o++] = from[i++];
            while (j < end)
                to[o++] = from[j++];
            bound[kept++] = a;
        }
        bound[kept] = m;
        runs = kept;
        uint32_t *swap = from;
        from = to;
        to = swap;
    }
    if (from != rows)
        memcpy(rows, from, (size_t)m * sizeof *rows);
}

/* Row t's list closed with its n runs written: the rows they cover, and
 * whether they hold t itself (VERLET_SELF), which the velocity stage
 * reads rather than going over the runs again. */
static void close_list(verlet_lists *v, uint32_t t, uint32_t n) {
    const uint32_t *runs = v->runs + (size_t)t * 2u * VERLET_RUNS;
    uint32_t covered = 0, self = 0;
    for (uint32_t r = 0; r < n; r++) {
        const uint32_t first = runs[2u * r], past = runs[2u * r + 1u];
        covered += past - first;
        self |= t - first < past - first;
    }
    v->covered[t] = covered;
    v->count[t] = (uint8_t)(n | (self ? VERLET_SELF : 0u));
}

/* Row t's windows from its m rows within reach, ascending: each from
 * the first row past the last window, none if they take more than
 * VERLET_WINDOWS or its runs (put_runs(), first) cover at most
 * VERLET_WINDOW rows, which are taken one by one (verlet.h). */
static void put_windows(verlet_lists *v, uint32_t t, const uint32_t *rows,
                        uint32_t m) {
    if (v->covered[t] <= VERLET_WINDOW) {
        v->windows[t] = 0;
        return;
    }
    uint32_t *out = v->window + (size_t)t * 2u * VERLET_WINDOWS;
    uint32_t n = 0, first = 0, mask = 0;
    for (uint32_t i = 0; i < m; i++) {
        const uint32_t at = rows[i] - first;
        if (mask && at < VERLET_WINDOW) {
            mask |= 1u << at;
            continue;
        }
        if (mask) {
            if (n == VERLET_WINDOWS - 1u) {
                v->windows[t] = 0; /* more than VERLET_WINDOWS */
                return;
            }
            out[2u * n] = first;
            out[2u * n + 1u] = mask;
            n++;
        }
        first = rows[i];
        mask = 1u;
    }
    if (mask) {
        out[2u * n] = first;
        out[2u * n + 1u] = mask;
        n++;
    }
    v->windows[t] = (uint8_t)n;
}

/* Row t's runs from its m rows within reach, ascending: a run for each
 * stretch of consecutive rows, and when there are more than VERLET_RUNS,
 * the stretches cut only at the VERLET_RUNS - 1 widest gaps between them
 * (the rows between the others join the runs). */
static void put_runs(verlet_lists *v, uint32_t t, const uint32_t *rows,
                     uint32_t m) {
    uint32_t first[VERLET_HELD], past[VERLET_HELD];
    uint32_t n = 0;
    for (uint32_t i = 0; i < m; i++) {
        if (n > 0 && past[n - 1u] == rows[i]) {
            past[n - 1u]++;
            continue;
        }
        first[n] = rows[i];
        past[n] = rows[i] + 1u;
        n++;
    }
    uint32_t *out = v->runs + (size_t)t * 2u * VERLET_RUNS;
    if (n <= VERLET_RUNS) {
        for (uint32_t r = 0; r < n; r++) {
            /* cppcheck-suppress uninitvar ; runs below n were written */
            out[2u * r] = first[r];
            /* cppcheck-suppress uninitvar ; runs below n were written */
            out[2u * r + 1u] = past[r];
        }
        close_list(v, t, n);
        return;
    }
    /* The widest gaps, widest first (of equal ones, the later), by an
     * insertion into a list of VERLET_RUNS - 1. */
    enum {
        CUTS = VERLET_RUNS - 1u
    };
    uint32_t gap[CUTS], after[CUTS], cuts = 0;
    for (uint32_t r = 0; r + 1u < n; r++) {
        const uint32_t g = first[r + 1u] - past[r];
        if (cuts == CUTS && g < gap[CUTS - 1u])
            continue;
        uint32_t at = cuts < CUTS ? cuts++ : CUTS - 1u;
        while (at > 0 && gap[at - 1u] <= g) {
            gap[at] = gap[at - 1u];
            after[at] = after[at - 1u];
            at--;
        }
        gap[at] = g;
        after[at] = r;
    }
    /* The cuts in row order (each is after one stretch), then a run from
     * each cut to the next. */
    for (uint32_t k = 1; k < cuts; k++)
        for (uint32_t at = k; at > 0 && after[at - 1u] > after[at]; at--) {
            const uint32_t swap = after[at];
            after[at] = after[at - 1u];
            after[at - 1u] = swap;
        }
    uint32_t begin = first[0];
    for (uint32_t k = 0; k < cuts; k++) {
        out[2u * k] = begin;
        out[2u * k + 1u] = past[after[k]];
        begin = first[after[k] + 1u];
    }
    out[2u * cuts] = begin;
    out[2u * cuts + 1u] = past[n - 1u];
    close_list(v, t, cuts + 1u);
}

/* Whether row j lies within the list radius of p (squared: limit2), the
 * difference of each axis squared and summed as the velocity stage does
 * (a NaN is not within). In the plane unless `three`. */
static inline int within_list(const agent_columns *c, uint32_t j,
                              const float p[3], float limit2, const int three) {
    const float dx = c->px[j] - p[0], dy = c->py[j] - p[1];
    float d2 = dx * dx + dy * dy;
    if (three) {
        const float dz = c->pz[j] - p[2];
        d2 += dz * dz;
    }
    return d2 <= limit2;
}

/* The rows of `ranges` (sorted positions) within the list radius of row
 * t at p, into held (room for VERLET_HELD + 1: past VERLET_HELD, the last
 * entry takes them all); returns how many, which may pass VERLET_HELD.
 * No branch on the data: every candidate is written and the count moves
 * on by the test. */
static inline __attribute__((always_inline)) uint32_t
scan_rows(const agent_columns *c, const uint32_t *sorted,
          const cell_range *ranges, int count, uint32_t t, const float p[3],
          float limit2, const int three, uint32_t *held) {
    uint32_t m = 0;
    for (int r = 0; r < count; r++) {
        for (uint32_t u = ranges[r].begin; u < ranges[r].end; u++) {
            const uint32_t j = sorted[u];
            held[m < VERLET_HELD ? m : VERLET_HELD] = j;
            m += (uint32_t)(within_list(c, j, p, limit2, three) & (j != t));
        }
    }
    return m;
}

/* scan_rows() on the path's lanes (hold_rows()), over the positions in
 * the grid's order (b->at), the block's ranges as bounds
 * (cell_range_bounds()): the same squared distances, the same rows in the
 * same order. For a block of at most VERLET_HELD candidates. */
static uint32_t scan_lanes(const build_ctx *b, const uint32_t *sorted,
                           const uint32_t *bounds, int count, uint32_t s,
                           uint32_t *held) {
    const throng_world *w = b->w;
    const flock_rows_query a = {
        .px = b->at[0],
        .py = b->at[1],
        .pz = b->at[2],
        .q = { b->at[0][s], b->at[1][s], w->dims == 3 ? b->at[2][s] : 0.0f },
        .R2 = b->limit2,
        .limit = b->limit2,
        .self = s, /* its own position in the grid's order */
        .three = w->dims == 3,
    };
    int32_t d2[VERLET_HELD + FLOCK_HELD_SLACK];
    uint32_t at[VERLET_HELD + FLOCK_HELD_SLACK];
    const flock_held into = { d2, at };
    const uint32_t m = w->hold_rows(&a, bounds, (uint32_t)count, &into, 0);
    for (uint32_t i = 0; i < m; i++)
        held[i] = sorted[at[i]];
    return m;
}

/* The first and last row of the m > VERLET_HELD that scan_rows() found:
 * the one run of a knot. */
static void knot_run(const agent_columns *c, const uint32_t *sorted,
                     const cell_range *ranges, int count, uint32_t t,
                     const float p[3], float limit2, int three,
                     uint32_t out[2]) {
    uint32_t lo = UINT32_MAX, hi = 0;
    for (int r = 0; r < count; r++) {
        for (uint32_t u = ranges[r].begin; u < ranges[r].end; u++) {
            const uint32_t j = sorted[u];
            if (!within_list(c, j, p, limit2, three) || j == t)
                continue;
            lo = j < lo ? j : lo;
            hi = j > hi ? j : hi;
        }
    }
    out[0] = lo;
    out[1] = hi + 1u;
}

/* A block whose candidates are rows of one window of at most
 * VERLET_BLOCK rows (a file's, circle2d's ring, added in order along it)
 * is listed without sorting: each row of its cell measures the window's
 * rows on the lanes straight from the columns, as bits, one a row of the
 * window in row order (mask_rows()), keeps those of the block, and its
 * runs are the stretches of set bits. Other blocks take scan_lanes()
 * and sort_rows(). */
#define VERLET_BLOCK FLOCK_MASK_ROWS

typedef struct block_window {
    uint32_t base;   /* the window's first row */
    uint32_t span;   /* rows it spans, 1 .. VERLET_BLOCK; 0: too many */
    uint64_t member; /* bit i: row base + i is a candidate of the block */
} block_window;

/* The window of the block's rows (`ranges`), if it spans at most
 * VERLET_BLOCK rows. */
static block_window block_window_of(const uint32_t *sorted,
                                    const cell_range *ranges, int count) {
    uint32_t lo = UINT32_MAX, hi = 0;
    for (int r = 0; r < count; r++)
        for (uint32_t u = ranges[r].begin; u < ranges[r].end; u++) {
            lo = sorted[u] < lo ? sorted[u] : lo;
            hi = sorted[u] > hi ? sorted[u] : hi;
        }
    block_window k = { lo, 0, 0 };
    if (hi - lo >= VERLET_BLOCK)
        return k;
    k.span = hi - lo + 1u;
    for (int r = 0; r < count; r++)
        for (uint32_t u = ranges[r].begin; u < ranges[r].end; u++)
            k.member |= (uint64_t)1 << (sorted[u] - lo);
    return k;
}

/* Row t's list from the window k of its block: the rows within reach
 * measured on the lanes as bits (mask_rows(), the same squared distances
 * as scan_rows()), those of the block kept; a stretch of set bits is a
 * run. The same runs, windows and counts as put_runs() and put_windows()
 * give from the sorted rows, which are built only where needed. */
static void window_list(const build_ctx *b, const block_window *k, uint32_t t) {
    throng_world *w = b->w;
    verlet_lists *v = &w->verlet;
    const agent_columns *c = &w->col;
    const int three = w->dims == 3;
    const flock_rows_query a = {
        .px = c->px + k->base,
        .py = c->py + k->base,
        .pz = three ? c->pz + k->base : NULL,
        .q = { c->px[t], c->py[t], three ? c->pz[t] : 0.0f },
        .R2 = b->limit2,
        .limit = b->limit2,
        .self = t - k->base,
        .three = three,
    };
    const uint64_t held = w->mask_rows(&a, k->span) & k->member;
    /* A run starts at a held row whose row before is not held, and ends
     * at one whose row after is not. */
    uint64_t starts = held & ~(held << 1), ends = held & ~(held >> 1);
    uint32_t *out = v->runs + (size_t)t * 2u * VERLET_RUNS;
    uint32_t n = 0, m = 0;
    while (starts && n < VERLET_RUNS) {
        const uint32_t first = (uint32_t)__builtin_ctzll(starts);
        const uint32_t last = (uint32_t)__builtin_ctzll(ends);
        out[2u * n] = k->base + first;
        out[2u * n + 1u] = k->base + last + 1u;
        m += last + 1u - first;
        n++;
        starts &= starts - 1u;
        ends &= ends - 1u;
    }
    if (starts || m > VERLET_WINDOW) {
        /* More runs than a list keeps, or windows to find: from the
         * rows, as a block of any shape. */
        uint32_t rows[VERLET_BLOCK];
        m = 0;
        for (uint64_t left = held; left; left &= left - 1u)
            rows[m++] = k->base + (uint32_t)__builtin_ctzll(left);
        put_runs(v, t, rows, m);
        put_windows(v, t, rows, m);
        return;
    }
    /* The runs hold exactly the m rows, t not among them. */
    v->covered[t] = m;
    v->count[t] = (uint8_t)n;
    v->windows[t] = 0;
}

/* The positions of the rows at sorted positions [begin, end), into
 * b->at in that order. */
static void gather_rows(void *ctx, uint32_t begin, uint32_t end, int thread) {
    (void)thread;
    build_ctx *b = ctx;
    const throng_world *w = b->w;
    const uint32_t *sorted = w->verlet.grid.sorted;
    const float *col[3] = { w->col.px, w->col.py, w->col.pz };
    const int dims = w->dims == 3 ? 3 : 2;
    for (int a = 0; a < dims; a++) {
        float *restrict to = b->at[a];
        const float *restrict from = col[a];
        for (uint32_t u = begin; u < end; u++)
            to[u] = from[sorted[u]];
    }
}

/* The lists of the rows at sorted positions [begin, end) of the lists'
 * grid: each cell's candidate ranges, once for its rows. */
static void build_rows(void *ctx, uint32_t begin, uint32_t end, int thread) {
    (void)thread;
    build_ctx *b = ctx;
    throng_world *w = b->w;
    verlet_lists *v = &w->verlet;
    const grid *g = &v->grid;
    const agent_columns *c = &w->col;
    const int three = w->dims == 3;
    const uint32_t *sorted = g->sorted;
    cell_range ranges[GRID_MAX_RANGES];
    grid_cursor cursor;
    grid_cursor_reset(&cursor);
    int count = 0, known = 0;
    uint32_t bounds[2 * GRID_MAX_RANGES], candidates = 0; /* the block's */
    int32_t cell[3] = { 0, 0, 0 };
    uint32_t held[VERLET_HELD + 1u], spare[VERLET_HELD];
    block_window window = { 0, 0, 0 };
    for (uint32_t s = begin; s < end; s++) {
        const uint32_t t = sorted[s];
        if (!w->group_params[c->group[t]].orca) {
            close_list(v, t, 0);
            v->windows[t] = 0;
            continue;
        }
        const int32_t here[3] = { grid_coord(g, 0, c->px[t]),
                                  grid_coord(g, 1, c->py[t]),
                                  three ? grid_coord(g, 2, c->pz[t]) : 0 };
        if (!known || memcmp(here, cell, sizeof cell) != 0) {
            memcpy(cell, here, sizeof cell);
            count = grid_ranges_span_at(g, cell[0], cell[0], cell[1], cell[2],
                                        &cursor, ranges);
            candidates = cell_range_bounds(ranges, count, bounds);
            known = 1;
            window.span = 0;
            if (w->mask_rows && candidates <= VERLET_BLOCK)
                window = block_window_of(sorted, ranges, count);
        }
        if (window.span) {
            window_list(b, &window, t);
            continue;
        }
        const float p[3] = { c->px[t], c->py[t], three ? c->pz[t] : 0.0f };
        const uint32_t m =
            b->at[0] && candidates <= VERLET_HELD
                ? scan_lanes(b, sorted, bounds, count, s, held)
            : three
                ? scan_rows(c, sorted, ranges, count, t, p, b->limit2, 1, held)
                : scan_rows(c, sorted, ranges, count, t, p, b->limit2, 0, held);
        if (m > VERLET_HELD) {
            knot_run(c, sorted, ranges, count, t, p, b->limit2, three,
                     v->runs + (size_t)t * 2u * VERLET_RUNS);
            close_list(v, t, 1);
            v->windows[t] = 0;
            continue;
        }
        sort_rows(held, m, spare);
        put_runs(v, t, held, m);
        put_windows(v, t, held, m);
    }
}

int verlet_prepare(throng_world *w, parallel_sched *sched) {
    verlet_lists *v = &w->verlet;
    if (verlet_frame_holds(w, sched, list_radius(w))) {
        v->active = 1;
        return 0;
    }
    v->valid = 0;
    v->active = 0;
    const uint32_t room = w->capacity > w->count ? w->capacity : w->count;
    if (reserve(w, v, room) || grid_build_into(w, &v->grid, sched, 0))
        return 1;
    v->active = 1;
    build_ctx b = { .w = w };
    const double radius = list_radius(w);
    b.limit2 = (float)(radius * radius);
    if (w->hold_rows) {
        /* The step's spare columns, free until the steering takes the
         * first of them (padded, as hold_rows() reads whole vectors). */
        for (int a = 0; a < w->dims; a++)
            b.at[a] = w->spare4[a];
        parallel_for(sched, w->count, VERLET_GRAIN, gather_rows, &b);
    }
    parallel_for(sched, w->count, VERLET_GRAIN, build_rows, &b);
    const float *col[3] = { w->col.px, w->col.py, w->col.pz };
    for (int a = 0; a < w->dims; a++)
        memcpy(v->at[a], col[a], (size_t)w->count * sizeof(float));
    if (sched->failed)
        return 0; /* the step is refused; the lists stay invalid */
    verlet_frame_start(w, sched);
    if (sched->failed)
        return 0;
    v->rows = w->count;
    v->valid = 1;
    v->builds++;
    return 0;
}
