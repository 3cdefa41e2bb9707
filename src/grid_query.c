/* SPDX-License-Identifier: MIT */
/*
 * Reading the grid: the candidate ranges around a cell (or a span of
 * cells) of the last build, which the neighbour walks stream through, and
 * the public radius query. grid.c builds the grid.
 */
#include "grid_query.h"
#include "busy.h"

#include <math.h>
#include <string.h>

#include "internal.h"
#include "check.h"
#include "core.h"
#include "parallel.h"

int grid_ranges(const grid *g, int32_t cx, int32_t cy, int32_t cz,
                cell_range *out) {
    INVARIANT(g->valid, "ranges are read from a valid build");
    return grid_ranges_span(g, cx, cx, cy, cz, out);
}

/* Appends rows [begin, end) seen through `shift`, extending the previous
 * range when it ends where this one begins and has the same shift. */
static inline int ranges_push(cell_range *out, int count, uint32_t begin,
                              uint32_t end, float sx, float sy, float sz) {
    INVARIANT(begin <= end, "a cell range does not run backwards");
    INVARIANT(count < GRID_MAX_RANGES, "a block's ranges fit their array");
    if (begin == end)
        return count;
    if (count > 0) {
        cell_range *prev = &out[count - 1];
        if (prev->end == begin && prev->shift[0] == sx &&
            prev->shift[1] == sy && prev->shift[2] == sz) {
            prev->end = end;
            return count;
        }
    }
    out[count].begin = begin;
    out[count].end = end;
    out[count].shift[0] = sx;
    out[count].shift[1] = sy;
    out[count].shift[2] = sz;
    return count + 1;
}

/* Wraps a periodic cell coordinate one box back into [0, n) and returns
 * the shift that shows a candidate there as the nearest image. */
static inline float wrap_cell(int64_t *c, int64_t n, float box) {
    if (*c < 0) {
        *c += n;
        return -box;
    }
    if (*c >= n) {
        *c -= n;
        return box;
    }
    return 0.0f;
}

/* A dense grid numbers each x-row of cells contiguously, so the cells of
 * one row of a block are one run of buckets (or, where a periodic row
 * wraps, up to three runs, each with its own shift), and their agents one
 * run of rows: [cell_start[first], cell_start[last + 1]). That is the
 * cell-by-cell walk of grid_ranges_walk() with its merging done
 * arithmetically; the ranges come out identical, in the same order. */
static int ranges_dense(const grid *g, int32_t cx_first, int32_t cx_last,
                        int32_t cy, int32_t cz, cell_range *out) {
    const int rx = g->reach[0], ry = g->reach[1];
    const int rz = g->dims == 3 ? g->reach[2] : 0;
    const uint32_t *start = g->cell_start;
    const int64_t nx = g->n[0], ny = g->n[1], nz = g->n[2];
    const int64_t ox = g->origin[0], oy = g->origin[1], oz = g->origin[2];
    int count = 0;
    for (int dz = -rz; dz <= rz; dz++) {
        for (int dy = -ry; dy <= ry; dy++) {
            int64_t y = (int64_t)cy + dy - oy, z = (int64_t)cz + dz - oz;
            float sy = 0.0f, sz = 0.0f;
            if (g->periodic) {
                sy = wrap_cell(&y, ny, g->box[1]);
                if (g->dims == 3)
                    sz = wrap_cell(&z, nz, g->box[2]);
            } else if (y < 0 || y >= ny || z < 0 || z >= nz) {
                continue;
            }
            uint32_t row = (uint32_t)((z * ny + y) * nx);
            int64_t x0 = (int64_t)cx_first - rx - ox;
            int64_t x1 = (int64_t)cx_last + rx - ox;
            if (!g->periodic) {
                x0 = x0 < 0 ? 0 : x0;
                x1 = x1 >= nx ? nx - 1 : x1;
                if (x0 <= x1)
                    count = ranges_push(out, count, start[row + x0],
                                        start[row + x1 + 1], 0.0f, sy, sz);
                continue;
            }
            if (x0 < 0) {
                int64_t e = x1 < 0 ? x1 : -1;
                count =
                    ranges_push(out, count, start[row + x0 + nx],
                                start[row + e + nx + 1], -g->box[0], sy, sz);
            }
            int64_t m0 = x0 < 0 ? 0 : x0, m1 = x1 >= nx ? nx - 1 : x1;
            if (m0 <= m1)
                count = ranges_push(out, count, start[row + m0],
                                    start[row + m1 + 1], 0.0f, sy, sz);
            if (x1 >= nx) {
                int64_t b = x0 >= nx ? x0 : nx;
                count =
                    ranges_push(out, count, start[row + b - nx],
                                start[row + x1 - nx + 1], g->box[0], sy, sz);
            }
        }
    }
    return count;
}

/* A sparse grid numbers the cells of a row of cells consecutively, x
 * ascending, so the occupied cells of one row of a block are again one
 * run of buckets, found by a search of the row's cells: the ranges of
 * ranges_dense() over the same bounding box, bucket for bucket. With a
 * cursor, a row the last lookup found at an x no greater than this one's
 * is stepped along from there (every cell before that point lies before
 * x too), a few cells at most before it searches again. */
static int ranges_sparse(const grid *g, int32_t cx_first, int32_t cx_last,
                         int32_t cy, int32_t cz, grid_cursor *cur,
                         cell_range *out) {
    const int rx = g->reach[0], ry = g->reach[1];
    const int rz = g->dims == 3 ? g->reach[2] : 0;
    const uint32_t *start = g->cell_start, *row_first = g->row_first;
    const int32_t *cell_x = g->cell_x;
    const int64_t x0 = (int64_t)cx_first - rx, x1 = (int64_t)cx_last + rx;
    int count = 0, slot = 0;
    for (int dz = -rz; dz <= rz; dz++) {
        for (int dy = -ry; dy <= ry; dy++, slot++) {
            INVARIANT(slot < GRID_MAX_BLOCK_ROWS,
                      "a block's rows of cells fit the cursor");
            const uint32_t q = grid_sparse_row(g, cy + dy, cz + dz);
            if (q == UINT32_MAX)
                continue;
            const uint32_t end = row_first[q + 1];
            uint32_t a;
            if (cur && cur->row[slot] == q && cur->x[slot] <= x0) {
                a = cur->at[slot];
                for (int steps = 0; a < end && cell_x[a] < x0; steps++, a++)
                    if (steps == 8) {
                        a = grid_sparse_seek(g, a, end, x0);
                        break;
                    }
            } else {
                a = grid_sparse_seek(g, row_first[q], end, x0);
            }
            if (cur) {
                cur->row[slot] = q;
                cur->at[slot] = a;
                cur->x[slot] = x0;
            }
            /* The block's cells in the row are few: step over them. */
            uint32_t b = a;
            while (b < end && cell_x[b] <= x1)
                b++;
            count =
                ranges_push(out, count, start[a], start[b], 0.0f, 0.0f, 0.0f);
        }
    }
    return count;
}

void grid_cursor_reset(grid_cursor *cur) {
    for (int k = 0; k < GRID_MAX_BLOCK_ROWS; k++)
        cur->row[k] = UINT32_MAX;
}

int grid_ranges_span_at(const grid *g, int32_t cx_first, int32_t cx_last,
                        int32_t cy, int32_t cz, grid_cursor *cur,
                        cell_range *out) {
    if (g->sparse)
        return ranges_sparse(g, cx_first, cx_last, cy, cz, cur, out);
    return grid_ranges_span(g, cx_first, cx_last, cy, cz, out);
}

int grid_ranges_span(const grid *g, int32_t cx_first, int32_t cx_last,
                     int32_t cy, int32_t cz, cell_range *out) {
    if (g->dense)
        return ranges_dense(g, cx_first, cx_last, cy, cz, out);
    if (g->sparse)
        return ranges_sparse(g, cx_first, cx_last, cy, cz, NULL, out);
    return grid_ranges_walk(g, cx_first, cx_last, cy, cz, out);
}

int grid_ranges_walk(const grid *g, int32_t cx_first, int32_t cx_last,
                     int32_t cy, int32_t cz, cell_range *out) {
    const int rx = g->reach[0], ry = g->reach[1];
    const int rz = g->dims == 3 ? g->reach[2] : 0;
    const uint32_t *start = g->cell_start;
    uint32_t seen[GRID_MAX_RANGES];
    int nseen = 0;
    int count = 0;
    for (int dz = -rz; dz <= rz; dz++) {
        for (int dy = -ry; dy <= ry; dy++) {
            for (int32_t x = cx_first - rx; x <= cx_last + rx; x++) {
                int32_t c[3] = { x, cy + dy, cz + dz };
                float shift[3] = { 0.0f, 0.0f, 0.0f };
                if (g->periodic) {
                    for (int a = 0; a < g->dims; a++) {
                        if (c[a] < 0) {
                            c[a] += g->n[a];
                            shift[a] = -g->box[a];
                        } else if (c[a] >= g->n[a]) {
                            c[a] -= g->n[a];
                            shift[a] = g->box[a];
                        }
                    }
                }
                if (!grid_cell_inside(g, c[0], c[1], c[2]))
                    continue;
                uint32_t b = grid_bucket(g, c[0], c[1], c[2]);
                if (!g->dense && !g->sparse) {
                    INVARIANT(nseen < GRID_MAX_RANGES,
                              "a hashed block walks at most the most ranges");
                    int dup = 0;
                    for (int k = 0; k < nseen; k++)
                        dup |= seen[k] == b;
                    if (dup)
                        continue;
                    seen[nseen++] = b;
                }
                uint32_t begin = start[b], end = start[b + 1];
                INVARIANT(b < g->bucket_count && begin <= end &&
                              end <= g->count,
                          "a bucket's rows lie in the sorted rows");
                if (begin == end)
                    continue;
                cell_range *prev = count > 0 ? &out[count - 1] : NULL;
                if (prev && prev->end == begin && prev->shift[0] == shift[0] &&
                    prev->shift[1] == shift[1] && prev->shift[2] == shift[2]) {
                    prev->end = end;
                    continue;
                }
                out[count].begin = begin;
                out[count].end = end;
                out[count].shift[0] = shift[0];
                out[count].shift[1] = shift[1];
                out[count].shift[2] = shift[2];
                count++;
            }
        }
    }
    return count;
}

/* ------------------------------------------------------------------------ */
/* The public range query                                                   */
/* ------------------------------------------------------------------------ */

/* Cell coordinate of a double position, for query bounds that may lie far
 * outside float range after adding the radius. */
static int64_t coord_of(const grid *g, int axis, double x) {
    double t = floor(x * g->inv_edge[axis]);
    if (!(t >= -GRID_COORD_LIMIT))
        t = -GRID_COORD_LIMIT;
    if (t > GRID_COORD_LIMIT)
        t = GRID_COORD_LIMIT;
    return (int64_t)t;
}

typedef struct query_state {
    const throng_world *w;
    float q[3];
    float r2;
    float radius;
    /* r2 is not a normal float (a radius below about 1.1e-19, 0
     * included): the float squares of nearby offsets would round to 0
     * and pass, so every distance is measured in double instead. */
    int exact;
    throng_agent *out;
    uint32_t capacity;
    uint32_t found;
} query_state;

/* Tests dense row i against the query and records it: the same float
 * operations as every other distance in the library, so a query and a
 * plain loop over all agents agree to the last bit. */
static void query_test(query_state *qs, uint32_t i) {
    const throng_world *w = qs->w;
    const agent_columns *c = &w->col;
    float p[3] = { c->px[i], c->py[i], w->dims == 3 ? c->pz[i] : 0.0f };
    float d2 = 0.0f;
    for (int a = 0; a < w->dims && !qs->exact; a++) {
        float d = p[a] - qs->q[a];
        if (w->boundary == THRONG_BOUNDARY_PERIODIC)
            d = periodic_offset(d, w->box[a]);
        d2 += d * d;
    }
    if (!qs->exact && !(d2 <= qs->r2))
        return;
    if (qs->exact || !(d2 <= FLT_MAX)) {
        /* The squares overflowed (and so did a radius past ~1.8e19):
         * inf <= inf says nothing, so measure again in double, where no
         * square of a float difference overflows or underflows. */
        double e2 = 0.0;
        for (int a = 0; a < w->dims; a++) {
            double d = (double)p[a] - (double)qs->q[a];
            if (w->boundary == THRONG_BOUNDARY_PERIODIC) {
                double L = (double)w->box[a];
                if (d > 0.5 * L)
                    d -= L;
                else if (d < -0.5 * L)
                    d += L;
            }
            e2 += d * d;
        }
        if (!(e2 <= (double)qs->radius * (double)qs->radius))
            return;
    }
    if (qs->found < qs->capacity) {
        uint32_t slot = c->slot[i];
        qs->out[qs->found].slot = slot + 1;
        qs->out[qs->found].generation = w->slots[slot].generation;
        qs->out[qs->found].world = w->id;
    }
    qs->found++;
}

static void query_cell(query_state *qs, const grid *g, int32_t x, int32_t y,
                       int32_t z) {
    const throng_world *w = qs->w;
    if (!grid_cell_inside(g, x, y, z))
        return;
    uint32_t b = grid_bucket(g, x, y, z);
    for (uint32_t s = g->cell_start[b]; s < g->cell_start[b + 1]; s++) {
        uint32_t i = g->permuted ? s : g->sorted[s];
        /* A hashed bucket may also hold other cells: visit each agent only
         * from its own cell, so none is reported twice. */
        if (!g->dense && !g->sparse &&
            (grid_coord(g, 0, w->col.px[i]) != x ||
             grid_coord(g, 1, w->col.py[i]) != y ||
             (g->dims == 3 && grid_coord(g, 2, w->col.pz[i]) != z)))
            continue;
        query_test(qs, i);
    }
}

throng_status throng_world_query_radius(throng_world *w, const float point[3],
                                        float radius, throng_agent *out,
                                        uint32_t capacity, uint32_t *out_count,
                                        bool *out_truncated) {
    static const char fn[] = "throng_world_query_radius";
    WRITE_ENTRY(w);
    if (!point || !out_count || (capacity > 0 && !out))
        return world_fail(w, THRONG_ERR_NULL,
                          "%s: point, out_count and (when capacity > 0) out "
                          "must not be NULL",
                          fn);
    throng_status st = check_vec(w, fn, "point", point);
    if (st == THRONG_OK)
        st = check_scalar(w, fn, "radius", radius, 0);
    if (st != THRONG_OK)
        return st;
    grid *g = &w->grid;
    parallel_sched sched = world_scheduler(w);
    if (!g->valid && grid_build(w, &sched, 0))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "throng_world_query_radius: no memory for the grid");
    if (sched.failed)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "throng_world_query_radius: %s", TASK_HOOKS_BROKEN);

    query_state qs = { .w = w,
                       .r2 = radius * radius,
                       .radius = radius,
                       .out = out,
                       .capacity = capacity };
    qs.exact = !(qs.r2 >= FLT_MIN);
    for (int a = 0; a < 3; a++) {
        float q = a < w->dims ? point[a] : 0.0f;
        if (w->boundary == THRONG_BOUNDARY_PERIODIC && a < w->dims)
            q = periodic_wrap(q, w->box[a]);
        qs.q[a] = q;
    }

    /* Cell bounds, one cell wider than needed on each side so rounding of
     * the bounds can never lose a cell. */
    int64_t lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 };
    double cells = 1.0;
    int whole[3] = { 0, 0, 0 };
    for (int a = 0; a < w->dims; a++) {
        lo[a] = coord_of(g, a, (double)qs.q[a] - (double)radius) - 1;
        hi[a] = coord_of(g, a, (double)qs.q[a] + (double)radius) + 1;
        if (g->periodic && hi[a] - lo[a] + 1 >= g->n[a]) {
            whole[a] = 1;
            lo[a] = 0;
            hi[a] = g->n[a] - 1;
        }
        cells *= (double)(hi[a] - lo[a] + 1);
    }

    if (cells > (double)g->bucket_count + (double)w->count) {
        /* The disc covers more cells than there are buckets and agents:
         * testing every agent once is cheaper than walking the cells. */
        for (uint32_t i = 0; i < w->count; i++)
            query_test(&qs, i);
    } else {
        for (int64_t z = lo[2]; z <= hi[2]; z++) {
            for (int64_t y = lo[1]; y <= hi[1]; y++) {
                for (int64_t x = lo[0]; x <= hi[0]; x++) {
                    int64_t c[3] = { x, y, z };
                    if (g->periodic) {
                        for (int a = 0; a < w->dims && a < 3; a++) {
                            if (whole[a])
                                continue;
                            c[a] %= g->n[a];
                            if (c[a] < 0)
                                c[a] += g->n[a];
                        }
                    }
                    query_cell(&qs, g, (int32_t)c[0], (int32_t)c[1],
                               (int32_t)c[2]);
                }
            }
        }
    }
    *out_count = qs.found;
    if (out_truncated)
        *out_truncated = qs.found > capacity;
    return THRONG_OK;
}
