/* SPDX-License-Identifier: MIT */
/*
 * The eikonal solver of navigation fields: the travel time from every cell
 * of a raster to the nearest goal cell, where a step across a cell takes
 * its cost, and the direction of travel read off it.
 *
 * The equation. The time T solves |grad T| = cost, T = 0 on the goals: the
 * eikonal equation of continuum crowds and fast marching. Its upwind
 * (Godunov) discretisation on the grid gives each cell the time t for
 * which sum over axes of max(t - x_a, 0)^2 = F^2, x_a the smaller time of
 * the cell's two neighbours along axis a and F the cell's step (cost times
 * the cell edge). Unlike Dijkstra on 4 or 8 neighbours, whose distances
 * are those of a square or an octagon and whose directions snap to the
 * grid's axes and diagonals, the solution of this update approximates the
 * Euclidean distance round obstacles (within a few per cent at worst, and
 * the same error shrinks relative to the distance), and its gradient turns
 * smoothly.
 *
 * Why integers, and why that makes any order give the same bits. Fast
 * marching computes the answer in one pass in order of increasing time,
 * which is sequential by nature. Any other order (sweeps, an active list,
 * tiles on threads) converges to the answer too, but with floating-point
 * arithmetic the last bits depend on the order in which the updates
 * happened to run. Here times are 64-bit integers (NAV_UNIT per cell at
 * cost 1) and a cell's update is defined exactly: the smallest integer t
 * with sum max(t - x_a, 0)^2 >= F^2, decided by integer comparisons (a
 * square root in double only proposes t; an exact test fixes it). That
 * update is monotone: lowering any neighbour's time never raises it. For a
 * monotone update on a finite set of values, starting from "infinity
 * everywhere but the goals", every sequence of updates that stops only when
 * no update lowers any cell ends in the same state, the greatest fixed
 * point: each update keeps the state above it (by monotonicity) and the
 * state only falls, and a state where nothing changes is a fixed point no
 * lower than the greatest, hence that one. So the result does not depend
 * on the order of updates, on how tiles are spread over threads, or on the
 * machine: the same bits on 1 or 8 threads, as the determinism contract
 * asks, while the work is free to be scheduled for speed.
 *
 * The schedule. The raster is cut into tiles (32 x 32 cells in 2D, 16^3 in
 * 3D), coloured like a chess board. A phase processes every active tile of
 * one colour in parallel: a tile is swept row by row, in the direction its
 * news came from first, then in the others in turn, until a sweep leaves
 * nothing that could lower a cell already swept (a changed time below an
 * earlier neighbour's). A tile reads its neighbours' edge cells, of the
 * other colour, which no thread writes during the phase, and writes only
 * its own cells, so tiles never race. A changed edge cell whose time could
 * lower the cell across the edge activates that neighbour for the next
 * phase. When no tile is active, every cell agrees with its update: the
 * fixed point. An open field converges in a few passes over each tile;
 * walls and corridors are followed from tile to tile, a phase per tile
 * crossed.
 *
 * Margins. Free space within an agent's clearance of geometry is a MARGIN
 * cell: a route never passes through one (a FREE cell ignores MARGIN
 * neighbours), yet a MARGIN cell has a time and a direction of its own,
 * from any non-solid neighbour, so an agent pushed into the margin is led
 * back out. A MARGIN cell's time carries NAV_TAG, the top bit, so a FREE
 * cell's plain minimum of its neighbours already reads it as unreachable
 * and only MARGIN cells mask the bit off: no class is looked up in the
 * update.
 *
 * Incremental rebuilds. When part of the raster changes (an obstacle
 * added or removed, costs changed), the cells that changed and every cell
 * whose parents (the neighbours its time came from) lead to one of them
 * get their starting time back; every other cell keeps a time that a path
 * of unchanged cells still achieves, which is no lower than the new answer
 * (by induction along that path, with the update's monotonicity) and
 * already agrees with its update. From that start the same iteration ends
 * in the same greatest fixed point, so an incremental rebuild gives the
 * bits of a full one, touching only the tiles the change reaches.
 */
#include "nav_solve.h"
#include "check.h"

#include <math.h>
#include <string.h>

/* Tile edges: a 2D tile's times fit the L1 cache (32 x 32 x 8 bytes), a
 * 3D one's the L2. */
#define NAV_TILE_2D 32u
#define NAV_TILE_3D 16u

/* Per tile scratch flags. */
#define TILE_PENDING 1u
#define TILE_TOUCHED 2u
#define TILE_POST 4u

int nav_raster_plan(nav_raster *r, int dims, const uint32_t n[3]) {
    memset(r, 0, sizeof *r);
    r->dims = dims;
    size_t cells = 1u;
    uint64_t tiles = 1u;
    for (int k = 0; k < 3; k++) {
        r->n[k] = k < dims ? n[k] : 1u;
        r->padded[k] = k < dims ? n[k] + 2u : 1u;
        r->tile[k] = k < dims ? (dims == 2 ? NAV_TILE_2D : NAV_TILE_3D) : 1u;
        r->tiles[k] = (r->n[k] + r->tile[k] - 1u) / r->tile[k];
        tiles *= r->tiles[k];
        if (r->padded[k] != 0u && cells > SIZE_MAX / r->padded[k])
            return 1;
        cells *= r->padded[k];
    }
    if (tiles > UINT32_MAX)
        return 1;
    r->stride[0] = 1u;
    r->stride[1] = r->padded[0];
    r->stride[2] = (size_t)r->padded[0] * r->padded[1];
    r->padded_cells = cells;
    r->tile_count = (uint32_t)tiles;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The update                                                               */
/* ------------------------------------------------------------------------ */

/* floor(sqrt(s)) for s < 2^63: the double square root proposes, the
 * integer squares decide (the root is below 2^32, so its square and its
 * successor's fit). */
static inline uint64_t isqrt64(uint64_t s) {
    uint64_t r = (uint64_t)sqrt((double)s);
    while (r * r > s)
        r--;
    while ((r + 1u) * (r + 1u) <= s)
        r++;
    return r;
}

/* The smallest integer x with x^2 + (x - d)^2 >= F^2, for d < F < 2^30:
 * two axes at times lo and lo + d give the cell lo + x. The real root is
 * (d + sqrt(2 F^2 - d^2)) / 2, so x is one of two integers above the
 * floor of the root; the exact test picks it. */
static inline uint64_t two_sided(uint64_t d, uint64_t F) {
    const uint64_t s = 2u * F * F - d * d;
    uint64_t x = (d + isqrt64(s) + 1u) / 2u;
    if (x * x + (x - d) * (x - d) < F * F)
        x++;
    return x;
}

/* The smallest integer y >= q with y^2 + (y - p)^2 + (y - q)^2 >= F^2,
 * for p <= q < F (the third axis joins once two leave the cell later than
 * the third neighbour). */
static inline uint64_t three_sided(uint64_t p, uint64_t q, uint64_t F) {
    /* The discriminant of 3 y^2 - 2 y (p + q) + p^2 + q^2 - F^2 over 4:
     * (p + q)^2 - 3 (p^2 + q^2 - F^2) = 3 F^2 - 2 (p^2 + q^2 - p q), which
     * is positive as p, q < F. */
    const uint64_t disc = 3u * F * F - 2u * (p * p + q * q - p * q);
    uint64_t y = (p + q + isqrt64(disc)) / 3u;
    if (y < q)
        y = q;
    while (y * y + (y - p) * (y - p) + (y - q) * (y - q) < F * F)
        y++;
    return y;
}

void nav_unit_table_fill(uint16_t *table) {
    for (uint32_t d = 0; d < NAV_UNIT; d++)
        table[d] = (uint16_t)two_sided(d, NAV_UNIT);
}

/* The two-axis part of an update: x for the nearer times lo and lo + d,
 * d < F, from the table when the step is the base one. */
static inline uint64_t two_axes(const uint16_t *table, uint64_t d, uint64_t F) {
    return F == NAV_UNIT ? (uint64_t)table[d] : two_sided(d, F);
}

/* The 2D update from the nearer neighbour of each axis. */
static inline uint64_t update2(const uint16_t *table, uint64_t a, uint64_t b,
                               uint64_t F) {
    const uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
    if (lo >= NAV_INF)
        return NAV_INF;
    if (hi >= NAV_INF || hi - lo >= F)
        return lo + F;
    return lo + two_axes(table, hi - lo, F);
}

/* The 3D update: the axes join in order of their neighbours' times. */
static inline uint64_t update3(const uint16_t *table, uint64_t a, uint64_t b,
                               uint64_t c, uint64_t F) {
    uint64_t t;
    if (a > b) {
        t = a;
        a = b;
        b = t;
    }
    if (b > c) {
        t = b;
        b = c;
        c = t;
    }
    if (a > b) {
        t = a;
        a = b;
        b = t;
    }
    if (a >= NAV_INF)
        return NAV_INF;
    if (b >= NAV_INF || b - a >= F)
        return a + F;
    const uint64_t two = a + two_axes(table, b - a, F);
    if (c >= NAV_INF || two <= c)
        return two;
    return a + three_sided(b - a, c - a, F);
}

uint64_t nav_update(const uint16_t *table, const uint64_t *x, int dims,
                    uint64_t F) {
    if (dims == 3)
        return update3(table, x[0], x[1], x[2], F);
    return update2(table, x[0], x[1], F);
}

/* Whether a cell whose time fell to u may lower its neighbour, whose time
 * is v: the neighbour is updatable (not solid; a goal's 0 is below any u)
 * and reads the cell (a FREE cell does not read a MARGIN one: `tag` is
 * the cell's NAV_TAG bit, which the neighbour's must then carry too), and
 * u is below its time. Decided from the times alone, which the sweep has
 * at hand. */
static inline int may_lower(uint64_t u, uint64_t tag, uint64_t v) {
    return v != NAV_SOLID_TIME && (v & tag) == tag && u < (v & ~NAV_TAG);
}

/* ------------------------------------------------------------------------ */
/* Tiles                                                                    */
/* ------------------------------------------------------------------------ */

typedef struct tile_box {
    uint32_t lo[3], hi[3]; /* field cells [lo, hi) per axis */
} tile_box;

static void tile_bounds(const nav_raster *r, uint32_t t, tile_box *b) {
    uint32_t c[3];
    c[0] = t % r->tiles[0];
    c[1] = (t / r->tiles[0]) % r->tiles[1];
    c[2] = t / (r->tiles[0] * r->tiles[1]);
    for (int k = 0; k < 3; k++) {
        b->lo[k] = c[k] * r->tile[k];
        uint32_t hi = b->lo[k] + r->tile[k];
        b->hi[k] = hi < r->n[k] ? hi : r->n[k];
    }
}

static uint32_t tile_colour(const nav_raster *r, uint32_t t) {
    uint32_t x = t % r->tiles[0];
    uint32_t y = (t / r->tiles[0]) % r->tiles[1];
    uint32_t z = t / (r->tiles[0] * r->tiles[1]);
    return (x + y + z) & 1u;
}

/* The tile across side s (bit s: 2 axis + 0 for the low side, + 1 for the
 * high one), or UINT32_MAX at the raster's edge. */
static uint32_t tile_across(const nav_raster *r, uint32_t t, int s) {
    uint32_t c[3];
    c[0] = t % r->tiles[0];
    c[1] = (t / r->tiles[0]) % r->tiles[1];
    c[2] = t / (r->tiles[0] * r->tiles[1]);
    const int axis = s >> 1;
    if (s & 1) {
        if (c[axis] + 1u >= r->tiles[axis])
            return UINT32_MAX;
        c[axis]++;
    } else {
        if (c[axis] == 0u)
            return UINT32_MAX;
        c[axis]--;
    }
    return c[0] + r->tiles[0] * (c[1] + r->tiles[1] * c[2]);
}

uint32_t nav_tile_of(const nav_raster *r, size_t at) {
    uint32_t k = 0u;
    if (r->dims == 3) {
        k = (uint32_t)(at / r->stride[2]) - 1u;
        at %= r->stride[2];
    }
    const uint32_t j = (uint32_t)(at / r->stride[1]) - 1u;
    const uint32_t i = (uint32_t)(at % r->stride[1]) - 1u;
    return i / r->tile[0] +
           r->tiles[0] * (j / r->tile[1] + r->tiles[1] * (k / r->tile[2]));
}

/* What a sweep returns: some time fell; and a change may lower a cell
 * swept before it (another sweep is due). */
#define SWEEP_CHANGED 1
#define SWEEP_DIRTY 2

/* One sweep of a 2D tile, rows in direction dy, cells in direction dx. */
static int sweep2(const nav_raster *r, const nav_solve_arrays *a,
                  const tile_box *b, int dx, int dy) {
    const size_t sy = r->stride[1];
    uint64_t *restrict T = a->time;
    const uint32_t *restrict S = a->step;
    const uint16_t *restrict table = a->unit_table;
    const uint32_t w = b->hi[0] - b->lo[0], h = b->hi[1] - b->lo[1];
    /* The neighbours swept before a cell: the one behind it in its row,
     * and the one in the row before. */
    const ptrdiff_t back_x = dx > 0 ? -1 : 1;
    const ptrdiff_t back_y = dy > 0 ? -(ptrdiff_t)sy : (ptrdiff_t)sy;
    int dirty = 0;
    for (uint32_t jj = 0; jj < h; jj++) {
        const uint32_t j = dy > 0 ? b->lo[1] + jj : b->hi[1] - 1u - jj;
        const uint32_t i0 = dx > 0 ? b->lo[0] : b->hi[0] - 1u;
        size_t c = ((size_t)j + 1u) * sy + 1u + i0;
        for (uint32_t ii = 0; ii < w; ii++, c = (size_t)((ptrdiff_t)c + dx)) {
            const uint64_t t = T[c];
            if (t == 0u || t == NAV_SOLID_TIME)
                continue; /* a goal or a solid cell */
            const uint64_t tag = t & NAV_TAG, m = ~tag;
            const uint64_t xw = T[c - 1u] & m, xe = T[c + 1u] & m;
            const uint64_t xs = T[c - sy] & m, xn = T[c + sy] & m;
            const uint64_t u =
                update2(table, xw < xe ? xw : xe, xs < xn ? xs : xn, S[c]);
            if (u >= (t & ~NAV_TAG))
                continue;
            T[c] = u | tag;
            dirty |= SWEEP_CHANGED;
            if ((ii > 0u &&
                 may_lower(u, tag, T[(size_t)((ptrdiff_t)c + back_x)])) ||
                (jj > 0u &&
                 may_lower(u, tag, T[(size_t)((ptrdiff_t)c + back_y)])))
                dirty |= SWEEP_DIRTY;
        }
    }
    return dirty;
}

/* One sweep of a 3D tile in the directions d[0..3). */
static int sweep3(const nav_raster *r, const nav_solve_arrays *a,
                  const tile_box *b, const int d[3]) {
    const size_t sy = r->stride[1], sz = r->stride[2];
    uint64_t *restrict T = a->time;
    const uint32_t *restrict S = a->step;
    const uint16_t *restrict table = a->unit_table;
    const uint32_t len[3] = { b->hi[0] - b->lo[0], b->hi[1] - b->lo[1],
                              b->hi[2] - b->lo[2] };
    const ptrdiff_t back[3] = { d[0] > 0 ? -1 : 1,
                                d[1] > 0 ? -(ptrdiff_t)sy : (ptrdiff_t)sy,
                                d[2] > 0 ? -(ptrdiff_t)sz : (ptrdiff_t)sz };
    int dirty = 0;
    for (uint32_t kk = 0; kk < len[2]; kk++) {
        const uint32_t z = d[2] > 0 ? b->lo[2] + kk : b->hi[2] - 1u - kk;
        for (uint32_t jj = 0; jj < len[1]; jj++) {
            const uint32_t y = d[1] > 0 ? b->lo[1] + jj : b->hi[1] - 1u - jj;
            const uint32_t x0 = d[0] > 0 ? b->lo[0] : b->hi[0] - 1u;
            size_t c = ((size_t)z + 1u) * sz + ((size_t)y + 1u) * sy + 1u + x0;
            for (uint32_t ii = 0; ii < len[0];
                 ii++, c = (size_t)((ptrdiff_t)c + d[0])) {
                const uint64_t t = T[c];
                if (t == 0u || t == NAV_SOLID_TIME)
                    continue;
                const uint64_t tag = t & NAV_TAG, m = ~tag;
                const uint64_t xw = T[c - 1u] & m, xe = T[c + 1u] & m;
                const uint64_t xs = T[c - sy] & m, xn = T[c + sy] & m;
                const uint64_t xd = T[c - sz] & m, xu = T[c + sz] & m;
                const uint64_t u =
                    update3(table, xw < xe ? xw : xe, xs < xn ? xs : xn,
                            xd < xu ? xd : xu, S[c]);
                if (u >= (t & ~NAV_TAG))
                    continue;
                T[c] = u | tag;
                dirty |= SWEEP_CHANGED;
                const uint32_t swept[3] = { ii, jj, kk };
                for (int ax = 0; ax < 3; ax++)
                    if (swept[ax] > 0u &&
                        may_lower(u, tag, T[(size_t)((ptrdiff_t)c + back[ax])]))
                        dirty |= SWEEP_DIRTY;
            }
        }
    }
    return dirty;
}

/* The cells on a tile's sides, with the times they held when the tile's
 * visit began: a side's news is a cell that fell to a time that may lower
 * the cell across (found once per visit rather than tested on every
 * change). 2D: 4 sides of 32; 3D: 6 faces of 16 x 16. */
#define EDGE_MAX (6u * NAV_TILE_3D * NAV_TILE_3D)

typedef struct tile_edge {
    uint32_t count;
    uint32_t at[EDGE_MAX];
    uint8_t side[EDGE_MAX];
    uint64_t before[EDGE_MAX];
} tile_edge;

static void edge_collect(const nav_raster *r, const nav_solve_arrays *a,
                         const tile_box *b, tile_edge *e) {
    e->count = 0u;
    for (int ax = 0; ax < r->dims; ax++) {
        for (int high = 0; high < 2; high++) {
            const uint32_t fixed = high ? b->hi[ax] - 1u : b->lo[ax];
            uint32_t lo[3], hi[3];
            for (int k = 0; k < 3; k++) {
                lo[k] = k == ax ? fixed : b->lo[k];
                hi[k] = k == ax ? fixed + 1u : b->hi[k];
            }
            for (uint32_t z = lo[2]; z < hi[2]; z++)
                for (uint32_t y = lo[1]; y < hi[1]; y++)
                    for (uint32_t x = lo[0]; x < hi[0]; x++) {
                        const size_t c = nav_index(r, x, y, z);
                        const uint64_t t = a->time[c];
                        if (t == 0u || t == NAV_SOLID_TIME)
                            continue;
                        e->at[e->count] = (uint32_t)c;
                        e->side[e->count] = (uint8_t)(2 * ax + high);
                        e->before[e->count] = a->time[c];
                        e->count++;
                    }
        }
    }
}

static uint8_t edge_news(const nav_raster *r, const nav_solve_arrays *a,
                         const tile_edge *e) {
    uint8_t sides = 0u;
    for (uint32_t i = 0; i < e->count; i++) {
        const size_t c = e->at[i];
        if (a->time[c] == e->before[i])
            continue;
        const int s = e->side[i];
        const size_t step = r->stride[s >> 1];
        const size_t n = (s & 1) ? c + step : c - step;
        const uint64_t t = a->time[c];
        if (may_lower(t & ~NAV_TAG, t & NAV_TAG, a->time[n]))
            sides |= (uint8_t)(1u << s);
    }
    return sides;
}

/* The solver's scratch, carved from nav_solve_arrays.scratch. */
typedef struct solve_scratch {
    uint8_t *flags;    /* TILE_* */
    uint8_t *in_sides; /* sides news came from, for the first sweep */
    uint8_t *out_sides;
    uint32_t *sweeps;  /* per tile, the last visit's sweeps */
    uint32_t *list;    /* the phase's tiles */
    uint32_t *pend[2]; /* tiles waiting, per colour */
} solve_scratch;

static size_t align8(size_t n) {
    return (n + 7u) & ~(size_t)7u;
}

size_t nav_solve_scratch_bytes(const nav_raster *r) {
    const size_t t = r->tile_count;
    return 3u * align8(t) + 4u * align8(t * sizeof(uint32_t));
}

static void scratch_carve(const nav_raster *r, void *base, solve_scratch *s) {
    const size_t t = r->tile_count;
    char *p = base;
    s->flags = (uint8_t *)p;
    p += align8(t);
    s->in_sides = (uint8_t *)p;
    p += align8(t);
    s->out_sides = (uint8_t *)p;
    p += align8(t);
    s->sweeps = (uint32_t *)(void *)p;
    p += align8(t * sizeof(uint32_t));
    s->list = (uint32_t *)(void *)p;
    p += align8(t * sizeof(uint32_t));
    s->pend[0] = (uint32_t *)(void *)p;
    p += align8(t * sizeof(uint32_t));
    s->pend[1] = (uint32_t *)(void *)p;
}

typedef struct solve_ctx {
    const nav_raster *r;
    const nav_solve_arrays *a;
    solve_scratch s;
} solve_ctx;

/* The order the sweep directions take after the first: one axis flips at
 * a time (a Gray code), so every direction comes once in 2^dims sweeps. */
static const uint8_t gray[8] = { 0u, 1u, 3u, 2u, 6u, 7u, 5u, 4u };

/* Processes a tile until a sweep leaves it consistent. */
static uint32_t process_tile(const solve_ctx *x, uint32_t t) {
    const nav_raster *r = x->r;
    tile_box b;
    tile_bounds(r, t, &b);
    tile_edge e;
    edge_collect(r, x->a, &b, &e);
    /* The first sweep runs away from the side the news came from. */
    uint32_t first = 0u;
    const uint8_t in = x->s.in_sides[t];
    for (int ax = 0; ax < r->dims; ax++) {
        const uint8_t lo = (uint8_t)((in >> (2 * ax)) & 1u);
        const uint8_t hi = (uint8_t)((in >> (2 * ax + 1)) & 1u);
        if (hi && !lo)
            first |= 1u << ax;
    }
    uint32_t n = 0;
    int changed = 0;
    const uint32_t cycle = r->dims == 3 ? 8u : 4u;
    for (;; n++) {
        const uint32_t bits = first ^ gray[n % cycle];
        int dirty;
        if (r->dims == 3) {
            const int d[3] = { (bits & 1u) ? -1 : 1, (bits & 2u) ? -1 : 1,
                               (bits & 4u) ? -1 : 1 };
            dirty = sweep3(r, x->a, &b, d);
        } else {
            dirty =
                sweep2(r, x->a, &b, (bits & 1u) ? -1 : 1, (bits & 2u) ? -1 : 1);
        }
        changed |= dirty & SWEEP_CHANGED;
        if (!(dirty & SWEEP_DIRTY))
            break;
    }
    if (changed)
        x->s.flags[t] |= TILE_TOUCHED;
    x->s.out_sides[t] = edge_news(r, x->a, &e);
    return n + 1u;
}

static void process_range(void *ctx, uint32_t begin, uint32_t end, int thread) {
    (void)thread;
    const solve_ctx *x = ctx;
    for (uint32_t i = begin; i < end; i++) {
        const uint32_t t = x->s.list[i];
        x->s.sweeps[t] = process_tile(x, t);
    }
}

/* ------------------------------------------------------------------------ */
/* Parents and directions                                                   */
/* ------------------------------------------------------------------------ */

/* Per axis, the nearer neighbour of a cell (the lower one on a tie) as
 * the cell reads it (mask: ~NAV_TAG for a MARGIN cell, else all ones):
 * its time, and whether it is the upper one. */
static inline uint64_t nearer(const uint64_t *T, size_t c, size_t step,
                              uint64_t mask, int *upper) {
    const uint64_t lo = T[c - step] & mask, hi = T[c + step] & mask;
    *upper = hi < lo;
    return hi < lo ? hi : lo;
}

/* A cell's unit direction of travel from the final times: towards its
 * parents, the nearer neighbour of each axis when earlier than the cell,
 * each component the time gained along its axis; 0 for a goal, a solid
 * cell and a cell no goal reaches. */
static inline __attribute__((always_inline)) void
post_cell(const nav_raster *r, const nav_solve_arrays *a, size_t c,
          const int dims) {
    const uint64_t *restrict T = a->time;
    float *restrict dir = a->dir + (size_t)dims * c;
    const uint64_t raw = T[c];
    const uint64_t m = ~(raw & NAV_TAG), t = raw & m;
    float g[3] = { 0.0f, 0.0f, 0.0f };
    if (t != 0u && t < NAV_INF) {
        for (int ax = 0; ax < dims; ax++) {
            int upper;
            const uint64_t v = nearer(T, c, r->stride[ax], m, &upper);
            /* Only a neighbour earlier than the cell (NAV_INF and a solid
             * cell's time are not). */
            const float gap = v < t ? (float)(int64_t)(t - v) : 0.0f;
            g[ax] = upper ? gap : -gap;
        }
    }
    float len2 = g[0] * g[0] + g[1] * g[1];
    if (dims == 3)
        len2 += g[2] * g[2];
    const float inv = len2 > 0.0f ? 1.0f / sqrtf(len2) : 0.0f;
    for (int ax = 0; ax < dims; ax++)
        dir[ax] = g[ax] * inv;
}

/* A 2D row of w (at most NAV_TILE_2D) cells from padded index c0:
 * post_cell's operations in its order (the same bits), the two axes
 * written out so the compiler keeps them in registers, and the
 * normalisation, whose square root and division are the slow part, in
 * a loop of its own over the row, which runs on vector lanes (each lane
 * rounds as the scalar operation does). */
static void post_row2(const uint64_t *restrict T, float *restrict dir,
                      size_t c0, uint32_t w, size_t sy) {
    float gx[NAV_TILE_2D], gy[NAV_TILE_2D];
    for (uint32_t x = 0; x < w; x++) {
        const size_t c = c0 + x;
        const uint64_t raw = T[c];
        const uint64_t m = ~(raw & NAV_TAG), t = raw & m;
        float u = 0.0f, v = 0.0f;
        if (t != 0u && t < NAV_INF) {
            const uint64_t xl = T[c - 1u] & m, xh = T[c + 1u] & m;
            const uint64_t yl = T[c - sy] & m, yh = T[c + sy] & m;
            const uint64_t vx = xh < xl ? xh : xl, vy = yh < yl ? yh : yl;
            const float ax = vx < t ? (float)(int64_t)(t - vx) : 0.0f;
            const float ay = vy < t ? (float)(int64_t)(t - vy) : 0.0f;
            u = xh < xl ? ax : -ax;
            v = yh < yl ? ay : -ay;
        }
        gx[x] = u;
        gy[x] = v;
    }
    float *restrict out = dir + 2u * c0;
#pragma omp simd
    for (uint32_t x = 0; x < w; x++) {
        const float len2 = gx[x] * gx[x] + gy[x] * gy[x];
        const float inv = len2 > 0.0f ? 1.0f / sqrtf(len2) : 0.0f;
        out[2u * x] = gx[x] * inv;
        out[2u * x + 1u] = gy[x] * inv;
    }
}

static void post_tile(const nav_raster *r, const nav_solve_arrays *a,
                      uint32_t t) {
    tile_box b;
    tile_bounds(r, t, &b);
    for (uint32_t z = b.lo[2]; z < b.hi[2]; z++)
        for (uint32_t y = b.lo[1]; y < b.hi[1]; y++) {
            const size_t row = nav_index(r, b.lo[0], y, z);
            const uint32_t w = b.hi[0] - b.lo[0];
            if (r->dims == 3)
                for (uint32_t x = 0; x < w; x++)
                    post_cell(r, a, row + x, 3);
            else
                post_row2(a->time, a->dir, row, w, r->stride[1]);
        }
}

static void post_range(void *ctx, uint32_t begin, uint32_t end, int thread) {
    (void)thread;
    const solve_ctx *x = ctx;
    for (uint32_t i = begin; i < end; i++)
        post_tile(x->r, x->a, x->s.list[i]);
}

/* ------------------------------------------------------------------------ */
/* The solve                                                                */
/* ------------------------------------------------------------------------ */

void nav_solve(const nav_raster *r, const nav_solve_arrays *a,
               const uint8_t *start, int all_post, parallel_sched *sched,
               nav_solve_stats *stats) {
    solve_ctx x = { .r = r, .a = a };
    scratch_carve(r, a->scratch, &x.s);
    solve_scratch *s = &x.s;
    const uint32_t tiles = r->tile_count;
    uint32_t pending[2] = { 0u, 0u };
    nav_solve_stats st = { 0u, 0u, 0u };
    memset(s->flags, 0, tiles);
    for (uint32_t t = 0; t < tiles; t++) {
        s->in_sides[t] = 0u;
        if (!start[t])
            continue;
        const uint32_t colour = tile_colour(r, t);
        s->flags[t] = TILE_PENDING | TILE_TOUCHED;
        s->pend[colour][pending[colour]++] = t;
    }
    /* Phases alternate colours until neither has a tile waiting. */
    uint32_t colour = pending[0] ? 0u : 1u;
    while (pending[0] || pending[1]) {
        const uint32_t count = pending[colour];
        if (count) {
            memcpy(s->list, s->pend[colour], (size_t)count * sizeof(uint32_t));
            pending[colour] = 0u;
            for (uint32_t i = 0; i < count; i++)
                s->flags[s->list[i]] &= (uint8_t)~TILE_PENDING;
            parallel_for(sched, count, 1u, process_range, &x);
            st.phases++;
            st.tiles_processed += count;
            /* News across the sides, in list order: which tiles wait is
             * a set, whatever order they were found in. */
            for (uint32_t i = 0; i < count; i++) {
                const uint32_t t = s->list[i];
                st.sweeps += s->sweeps[t];
                s->in_sides[t] = 0u;
                for (int side = 0; side < 2 * r->dims; side++) {
                    if (!(s->out_sides[t] & (1u << side)))
                        continue;
                    const uint32_t n = tile_across(r, t, side);
                    if (n == UINT32_MAX)
                        continue;
                    /* The neighbour hears it on its opposite side. */
                    s->in_sides[n] |= (uint8_t)(1u << (side ^ 1));
                    if (!(s->flags[n] & TILE_PENDING)) {
                        s->flags[n] |= TILE_PENDING;
                        s->pend[colour ^ 1u][pending[colour ^ 1u]++] = n;
                    }
                }
            }
        }
        colour ^= 1u;
    }
    /* Parents and directions of every tile that changed and of its
     * neighbours, whose directions read its edge. */
    uint32_t post = 0u;
    for (uint32_t t = 0; t < tiles; t++) {
        if (!all_post && !(s->flags[t] & TILE_TOUCHED))
            continue;
        s->flags[t] |= TILE_POST;
        if (all_post)
            continue;
        for (int side = 0; side < 2 * r->dims; side++) {
            const uint32_t n = tile_across(r, t, side);
            if (n != UINT32_MAX)
                s->flags[n] |= TILE_POST;
        }
    }
    for (uint32_t t = 0; t < tiles; t++)
        if (s->flags[t] & TILE_POST)
            s->list[post++] = t;
    parallel_for(sched, post, 1u, post_range, &x);
    if (stats)
        *stats = st;
}

/* ------------------------------------------------------------------------ */
/* Incremental rebuilds                                                     */
/* ------------------------------------------------------------------------ */

/* Whether cell y's time came from its neighbour c along axis ax, c on
 * y's `side` (0: c is y's lower neighbour, 1: its upper one): c is y's
 * nearer neighbour on that axis and earlier than y. */
static int came_from(const nav_raster *r, const uint64_t *T, size_t y, int ax,
                     int side) {
    const uint64_t raw = T[y];
    if (raw == 0u || raw == NAV_SOLID_TIME)
        return 0;
    const uint64_t m = ~(raw & NAV_TAG), t = raw & m;
    int upper;
    const uint64_t v = nearer(T, y, r->stride[ax], m, &upper);
    return upper == side && v < t;
}

size_t nav_solve_reset_downstream(const nav_raster *r,
                                  const nav_solve_arrays *a,
                                  const uint32_t *changed, size_t count,
                                  uint32_t *queue, uint8_t *mark,
                                  uint8_t *start, size_t limit) {
    const uint64_t *T = a->time;
    size_t head = 0u, tail = 0u;
    for (size_t i = 0; i < count; i++) {
        const uint32_t c = changed[i];
        if (mark[c])
            continue;
        mark[c] = 1u;
        queue[tail++] = c;
    }
    /* Every time is still the previous answer's until the walk ends, so
     * the parents it reads are the ones those times came from. */
    while (head < tail) {
        if (tail >= limit) {
            for (size_t i = 0; i < tail; i++)
                mark[queue[i]] = 0u;
            return SIZE_MAX;
        }
        const size_t c = queue[head++];
        for (int ax = 0; ax < r->dims; ax++) {
            const size_t lo = c - r->stride[ax], hi = c + r->stride[ax];
            if (!mark[hi] && came_from(r, T, hi, ax, 0)) {
                mark[hi] = 1u;
                queue[tail++] = (uint32_t)hi;
            }
            if (!mark[lo] && came_from(r, T, lo, ax, 1)) {
                mark[lo] = 1u;
                queue[tail++] = (uint32_t)lo;
            }
        }
    }
    for (size_t i = 0; i < tail; i++) {
        const size_t c = queue[i];
        mark[c] = 0u;
        a->time[c] = nav_start_time(a->cls[c]);
        start[nav_tile_of(r, c)] = 1u;
    }
    return tail;
}
