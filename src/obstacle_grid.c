/* SPDX-License-Identifier: MIT */
/*
 * The obstacle grid: the index of the static objects (geometry.c) that
 * the environment kernels (steer_env.c) query.
 *
 * The obstacle grid. Obstacles never move, so unlike the agents' grid this
 * one is built only when an object was added or removed (the geometry's
 * version changed), in geometry_prepare() before a step. It is a dense
 * grid over the bounding box of every sphere, box and segment rather than
 * a hash: its size is known when it is built, so no two cells ever share
 * a bucket. An object is listed in every cell its bounds overlap, in
 * compressed rows (start, items) filled by a counting pass over the
 * objects in id order, so each cell's list is contiguous, ascending and
 * the same on every build.
 *
 * The cell edge starts at the median object extent: a typical object then
 * lies in a few cells and a typical cell holds a few objects, and a few
 * giant objects cannot inflate it the way they would a mean. It is then
 * widened, if need be, until there are at most ENV_GRID_CELLS_PER_OBJECT
 * cells per object (a sparse field must not cost more memory than its
 * objects do) and at most ENV_GRID_ITEMS_PER_OBJECT list entries per
 * object (a giant object must not be copied into thousands of cells).
 * Planes are infinite and have no place in a grid: they are listed after
 * the cells' items and every agent checks them; scenes have few.
 *
 * A query visits the objects of the cells that overlap an axis-aligned
 * box, so an object spanning several of those cells is visited several
 * times. Each behaviour makes its choice idempotent instead of paying to
 * remove duplicates: the nearest wins and ties go to the lower object id,
 * which is also what a scan over every object in id order chooses. The
 * kernels fall back to that scan when the grid is not current, so a test
 * can compare the two bit for bit.
 */
#include "obstacle_grid.h"
#include "detmath.h"
#include "core.h"

#include <float.h>

#include <math.h>
#include <string.h>

/* Grid budget: at most 4 cells per gridded object (plus a few, so tiny
 * scenes are not starved) and 16 list entries per object (an object of
 * the median extent in cells of that edge lies in 2^dims cells at most,
 * 8 in 3D, so there is room to spare before the budget widens cells). */
#define ENV_GRID_CELLS_PER_OBJECT 4.0
#define ENV_GRID_CELLS_EXTRA 64.0
#define ENV_GRID_ITEMS_PER_OBJECT 16.0
#define ENV_GRID_ITEMS_EXTRA 1024.0
/* How much a cell over budget is widened per try. */
#define ENV_GRID_GROW 1.5

/* ------------------------------------------------------------------------ */
/* The obstacle grid                                                        */
/* ------------------------------------------------------------------------ */

static int env_gridded(geo_kind kind) {
    return kind == GEO_SPHERE || kind == GEO_BOX || kind == GEO_SEGMENT;
}

/* The cell coordinate of x on axis k, unclamped (may be < 0 or >= n). */
static double env_raw_coord(const geo_grid *g, int k, double x) {
    return floor((x - g->origin[k]) / g->cell);
}

/* The cells [clo, chi] that bounds [lo, hi] overlap on the world's axes;
 * 0 when they miss the grid. Build and query share it, so an object and a
 * box that overlap always share a cell. */
static int env_cell_range(const geo_grid *g, int dims, const double lo[3],
                          const double hi[3], int32_t clo[3], int32_t chi[3]) {
    for (int k = 0; k < 3; k++) {
        if (k >= dims) {
            clo[k] = chi[k] = 0;
            continue;
        }
        double top = (double)(g->n[k] - 1);
        double a = env_raw_coord(g, k, lo[k]);
        double b = env_raw_coord(g, k, hi[k]);
        if (!(b >= 0.0) || !(a <= top))
            return 0;
        clo[k] = a > 0.0 ? (int32_t)a : 0;
        chi[k] = b < top ? (int32_t)b : g->n[k] - 1;
    }
    return 1;
}

/* The cells [clo, chi] a gridded object's bounds overlap; 0 for an
 * object the grid does not hold or whose bounds miss it. */
static int env_object_cells(const geo_grid *g, int dims, const geo_object *o,
                            int32_t clo[3], int32_t chi[3]) {
    if (!env_gridded(o->kind))
        return 0;
    double lo[3], hi[3];
    geo_bounds(o, lo, hi);
    return env_cell_range(g, dims, lo, hi, clo, chi);
}

/* The k-th smallest of x[0 .. n) (x is reordered): Hoare's selection. */
static double env_select(double *x, int64_t n, int64_t k) {
    int64_t l = 0, r = n - 1;
    while (l < r) {
        double pivot = x[l + (r - l) / 2];
        int64_t i = l, j = r;
        while (i <= j) {
            while (x[i] < pivot)
                i++;
            while (x[j] > pivot)
                j--;
            if (i <= j) {
                double t = x[i];
                x[i] = x[j];
                x[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j)
            r = j;
        else if (k >= i)
            l = i;
        else
            break;
    }
    return x[k];
}

/* The list entries the gridded objects need with the grid's current
 * cells (double: it may be far over budget while the edge is chosen). */
static double env_count_items(const geometry *geo, const geo_grid *g,
                              int dims) {
    double total = 0.0;
    for (uint32_t i = 0; i < geo->count; i++) {
        int32_t clo[3], chi[3];
        if (!env_object_cells(g, dims, &geo->objects[i], clo, chi))
            continue;
        total += (double)(chi[0] - clo[0] + 1) * (double)(chi[1] - clo[1] + 1) *
                 (double)(chi[2] - clo[2] + 1);
    }
    return total;
}

/* Sets g's origin, cell edge and cell counts for `gridded` objects with
 * bounding box [lo, hi]; nonzero when out of memory. */
static int env_grid_shape(throng_world *w, const geometry *geo, geo_grid *g,
                          uint32_t gridded, const double lo[3],
                          const double hi[3]) {
    const int dims = w->dims;
    double *extent = world_alloc(w, (size_t)gridded * sizeof *extent);
    if (!extent)
        return 1;
    uint32_t m = 0;
    for (uint32_t i = 0; i < geo->count; i++) {
        const geo_object *o = &geo->objects[i];
        if (!env_gridded(o->kind))
            continue;
        double olo[3], ohi[3];
        geo_bounds(o, olo, ohi);
        double e = 0.0;
        for (int k = 0; k < dims; k++)
            e = ohi[k] - olo[k] > e ? ohi[k] - olo[k] : e;
        extent[m++] = e;
    }
    double cell = env_select(extent, (int64_t)m, (int64_t)m / 2);
    world_free(w, extent, (size_t)gridded * sizeof *extent);

    const double max_cells =
        ENV_GRID_CELLS_PER_OBJECT * (double)gridded + ENV_GRID_CELLS_EXTRA;
    const double max_items =
        ENV_GRID_ITEMS_PER_OBJECT * (double)gridded + ENV_GRID_ITEMS_EXTRA;
    /* Jump straight to the edge at which the box's volume (over the axes
     * it spans) fills the cell budget, so the search below takes few
     * steps however small the objects are against the scene. */
    double volume = 1.0;
    int spanned = 0;
    double widest = 0.0;
    for (int k = 0; k < dims; k++) {
        double e = hi[k] - lo[k];
        widest = e > widest ? e : widest;
        if (e > 0.0) {
            volume *= e;
            spanned++;
        }
    }
    if (spanned > 0) {
        /* The spanned-th root, by exact sqrt or the deterministic cube
         * root (the C library's pow may differ in the last bit between
         * machines, and so would the grid and the order of its items). */
        const double per_cell = volume / max_cells;
        double floor_edge = spanned == 1   ? per_cell
                            : spanned == 2 ? sqrt(per_cell)
                                           : detmath_cbrt(per_cell);
        cell = floor_edge > cell ? floor_edge : cell;
    }
    if (!(cell >= (double)FLT_MIN))
        cell = (double)FLT_MIN;

    for (int k = 0; k < 3; k++)
        g->origin[k] = k < dims ? lo[k] : 0.0;
    for (;;) {
        g->cell = cell;
        double cells = 1.0;
        for (int k = 0; k < 3; k++) {
            double n = k < dims ? floor((hi[k] - lo[k]) / cell) + 1.0 : 1.0;
            g->n[k] = n <= max_cells ? (int32_t)n : INT32_MAX;
            cells *= n;
        }
        /* An edge wider than the whole box leaves one cell per axis,
         * which always fits both budgets, so this ends. */
        if (cells <= max_cells &&
            (cell > widest || env_count_items(geo, g, dims) <= max_items)) {
            g->cell_count = (uint32_t)cells;
            return 0;
        }
        cell *= ENV_GRID_GROW;
    }
}

/* Builds a grid for the geometry's current objects into g (zeroed);
 * nonzero when out of memory, with nothing allocated. */
static int env_grid_build(throng_world *w, const geometry *geo, geo_grid *g) {
    const int dims = w->dims;
    uint32_t gridded = 0, planes = 0;
    double lo[3] = { DBL_MAX, DBL_MAX, DBL_MAX };
    double hi[3] = { -DBL_MAX, -DBL_MAX, -DBL_MAX };
    for (uint32_t i = 0; i < geo->count; i++) {
        const geo_object *o = &geo->objects[i];
        planes += o->kind == GEO_PLANE;
        if (!env_gridded(o->kind))
            continue;
        gridded++;
        double olo[3], ohi[3];
        geo_bounds(o, olo, ohi);
        for (int k = 0; k < 3; k++) {
            lo[k] = olo[k] < lo[k] ? olo[k] : lo[k];
            hi[k] = ohi[k] > hi[k] ? ohi[k] : hi[k];
        }
    }
    g->version = geo->version;
    g->built = 1;
    g->plane_count = planes;
    g->cell = 1.0;
    if (gridded > 0 && env_grid_shape(w, geo, g, gridded, lo, hi))
        return 1;

    /* Counting pass, prefix sums, then the fill in object order. */
    const uint32_t cells = gridded > 0 ? g->cell_count : 0u;
    g->start_bytes = ((size_t)cells + 1u) * sizeof(uint32_t);
    g->start = world_alloc(w, g->start_bytes);
    if (!g->start)
        return 1;
    memset(g->start, 0, g->start_bytes);
    const int32_t nx = g->n[0], nxy = g->n[0] * g->n[1];
    uint64_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < geo->count && cells > 0; i++) {
            int32_t clo[3], chi[3];
            if (!env_object_cells(g, dims, &geo->objects[i], clo, chi))
                continue;
            for (int32_t z = clo[2]; z <= chi[2]; z++)
                for (int32_t y = clo[1]; y <= chi[1]; y++)
                    for (int32_t x = clo[0]; x <= chi[0]; x++) {
                        uint32_t c = (uint32_t)(z * nxy + y * nx + x);
                        if (pass == 0)
                            g->start[c + 1]++;
                        else
                            g->items[g->start[c]++] = i;
                    }
        }
        if (pass == 0) {
            for (uint32_t c = 0; c < cells; c++)
                g->start[c + 1] += g->start[c];
            total = g->start[cells];
            size_t n_items = (size_t)total + planes;
            g->items_bytes = (n_items ? n_items : 1u) * sizeof(uint32_t);
            g->items = world_alloc(w, g->items_bytes);
            if (!g->items) {
                world_free(w, g->start, g->start_bytes);
                g->start = NULL;
                return 1;
            }
        }
    }
    /* The fill advanced start[c] from cell c's begin to its end, which is
     * cell c+1's begin: shift back by one. */
    for (uint32_t c = cells; c > 0; c--)
        g->start[c] = g->start[c - 1];
    g->start[0] = 0;
    uint32_t p = (uint32_t)total;
    for (uint32_t i = 0; i < geo->count; i++)
        if (geo->objects[i].kind == GEO_PLANE)
            g->items[p++] = i;

    g->bounds_bytes = ((size_t)geo->count + 1u) * 6u * sizeof(double);
    g->bounds = world_alloc(w, g->bounds_bytes);
    if (!g->bounds) {
        world_free(w, g->start, g->start_bytes);
        world_free(w, g->items, g->items_bytes);
        g->start = NULL;
        g->items = NULL;
        return 1;
    }
    for (uint32_t i = 0; i < geo->count; i++) {
        const geo_object *o = &geo->objects[i];
        double *b = &g->bounds[6u * i];
        if (o->kind == GEO_SPHERE || o->kind == GEO_BOX) {
            geo_bounds(o, b, b + 3);
        } else {
            b[0] = b[1] = b[2] = (double)INFINITY;
            b[3] = b[4] = b[5] = -(double)INFINITY;
        }
    }
    return 0;
}

int geometry_prepare(throng_world *w) {
    geometry *geo = w->geo;
    if (!geo || (geo->grid.built && geo->grid.version == geo->version))
        return 0;
    geo_grid next;
    memset(&next, 0, sizeof next);
    if (env_grid_build(w, geo, &next))
        return 1; /* the old grid stays, and the kernels see it is stale */
    geo_grid_free(w, &geo->grid);
    geo->grid = next;
    return 0;
}

void geo_grid_free(throng_world *w, geo_grid *g) {
    world_free(w, g->start, g->start_bytes);
    world_free(w, g->items, g->items_bytes);
    world_free(w, g->bounds, g->bounds_bytes);
    memset(g, 0, sizeof *g);
}

/* Inserts id into the ascending ids[0 .. *n) unless it is there;
 * returns 0 when it would be the (cap + 1)-th. The cells come x fastest
 * with ascending lists, so ids mostly arrive in order and the search is
 * short. */
static int env_insert_id(uint32_t *ids, uint32_t *n, uint32_t cap,
                         uint32_t id) {
    uint32_t at = *n;
    while (at > 0 && ids[at - 1] > id)
        at--;
    if (at > 0 && ids[at - 1] == id)
        return 1; /* listed in another cell too */
    if (*n == cap)
        return 0;
    for (uint32_t j = *n; j > at; j--)
        ids[j] = ids[j - 1];
    ids[at] = id;
    (*n)++;
    return 1;
}

uint32_t env_obstacles_in_box(const throng_world *w, const double lo[3],
                              const double hi[3], uint32_t *ids, uint32_t cap) {
    const geometry *geo = w->geo;
    const int dims = w->dims;
    uint32_t n = 0;
    if (!geo)
        return 0;
    const geo_grid *g = &geo->grid;
    if (!g->built || g->version != geo->version) {
        for (uint32_t i = 0; i < geo->count; i++) {
            double olo[3], ohi[3];
            env_obstacle_bounds(geo, i, olo, ohi);
            if (!geo_box_overlap(olo, ohi, lo, hi, dims))
                continue;
            if (n == cap)
                return cap + 1u;
            ids[n++] = i;
        }
        return n;
    }
    int32_t clo[3], chi[3];
    if (g->cell_count == 0 || !env_cell_range(g, dims, lo, hi, clo, chi))
        return 0;
    /* The cells of a row along x are neighbours in the lists: one walk
     * over their entries, not one loop per cell (most hold none or one,
     * and a loop per cell mispredicts where each ends). */
    for (int32_t z = clo[2]; z <= chi[2]; z++)
        for (int32_t y = clo[1]; y <= chi[1]; y++) {
            const uint32_t c = (uint32_t)((z * g->n[1] + y) * g->n[0]);
            const uint32_t from = g->start[c + (uint32_t)clo[0]];
            const uint32_t to = g->start[c + (uint32_t)chi[0] + 1u];
            for (uint32_t j = from; j < to; j++) {
                const uint32_t i = g->items[j];
                const double *b = &g->bounds[6u * i];
                if (geo_box_overlap(b, b + 3, lo, hi, dims) &&
                    !env_insert_id(ids, &n, cap, i))
                    return cap + 1u;
            }
        }
    return n;
}

void env_cursor_begin(env_cursor *q, const throng_world *w, const double lo[3],
                      const double hi[3], int planes) {
    const geometry *geo = w->geo;
    memset(q, 0, sizeof *q);
    q->planes = planes;
    q->stage = 2;
    if (!geo)
        return;
    const geo_grid *g = &geo->grid;
    if (!g->built || g->version != geo->version) {
        q->end = geo->count;
        return;
    }
    q->g = g;
    q->stage = 1;
    if (g->cell_count > 0 && env_cell_range(g, w->dims, lo, hi, q->lo, q->hi)) {
        q->stage = 0;
        memcpy(q->c, q->lo, sizeof q->c);
    }
}

int env_cursor_next(env_cursor *q, uint32_t *index) {
    for (;;) {
        if (q->at < q->end) {
            *index = q->g ? q->g->items[q->at] : q->at;
            q->at++;
            return 1;
        }
        if (q->stage == 0) {
            const geo_grid *g = q->g;
            uint32_t c =
                (uint32_t)((q->c[2] * g->n[1] + q->c[1]) * g->n[0] + q->c[0]);
            q->at = g->start[c];
            q->end = g->start[c + 1];
            /* Next cell, x fastest. */
            if (++q->c[0] > q->hi[0]) {
                q->c[0] = q->lo[0];
                if (++q->c[1] > q->hi[1]) {
                    q->c[1] = q->lo[1];
                    if (++q->c[2] > q->hi[2])
                        q->stage = 1;
                }
            }
            continue;
        }
        if (q->stage == 1) {
            q->stage = 2;
            if (q->planes) {
                q->at = q->g->start[q->g->cell_count];
                q->end = q->at + q->g->plane_count;
            }
            continue;
        }
        return 0;
    }
}
