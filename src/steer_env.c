/*
 * Obstacles and walls, the grid that indexes them, and the behaviours that
 * keep agents clear of them: obstacle avoidance, containment, wall
 * following.
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
 *
 * The shape tests run in double. Coordinates are any finite floats, and
 * the difference or square of two of them can overflow a float but not a
 * double, so no input, however far out, produces infinity or NaN.
 */
#include "behaviour.h"
#include "busy.h"
#include "detmath.h"
#include "geometry.h"

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

/* A lateral offset shorter than this fraction of the whole offset means
 * the obstacle is dead ahead, and its direction is rounding noise. */
#define ENV_DEAD_AHEAD 1e-6

/* Containment applies the walls in range in id order; it collects them
 * in batches of this many ids on the stack. More walls in range at once
 * only costs another pass over the candidates. */
#define ENV_WALL_BATCH 32

/* ------------------------------------------------------------------------ */
/* Small double vector helpers                                              */
/* ------------------------------------------------------------------------ */

static inline double env_dot(const double x[3], const double y[3]) {
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
}

static inline void env_load(const float in[3], double out[3]) {
    out[0] = (double)in[0];
    out[1] = (double)in[1];
    out[2] = (double)in[2];
}

/* out = x / |x| and returns 1, or returns 0 when x is 0. */
static int env_unit(const double x[3], double out[3]) {
    double len = sqrt(env_dot(x, x));
    if (!(len > 0.0))
        return 0;
    for (int k = 0; k < 3; k++)
        out[k] = x[k] / len;
    return 1;
}

/* F = m_dt (v_d - v), with v_d computed in double. */
static int env_finish(const steer_ctx *a, const double vd[3], float F[3]) {
    float vdf[3] = {(float)vd[0], (float)vd[1], (float)vd[2]};
    steer_force(a, vdf, F);
    return 1;
}

/* ------------------------------------------------------------------------ */
/* The obstacle grid                                                        */
/* ------------------------------------------------------------------------ */

static int env_gridded(geo_kind kind) {
    return kind == GEO_SPHERE || kind == GEO_BOX || kind == GEO_SEGMENT;
}

/* The bounds of a gridded object. */
static void env_bounds(const geo_object *o, double lo[3], double hi[3]) {
    for (int k = 0; k < 3; k++) {
        double x = (double)o->a[k], y = (double)o->b[k];
        switch (o->kind) {
        case GEO_SPHERE:
            lo[k] = x - (double)o->r;
            hi[k] = x + (double)o->r;
            break;
        case GEO_BOX:
            lo[k] = x;
            hi[k] = y;
            break;
        default: /* segment */
            lo[k] = x < y ? x : y;
            hi[k] = x < y ? y : x;
            break;
        }
    }
}

/* The cell coordinate of x on axis k, unclamped (may be < 0 or >= n). */
static double env_raw_coord(const geo_grid *g, int k, double x) {
    return floor((x - g->origin[k]) / g->cell);
}

/* The cells [clo, chi] that bounds [lo, hi] overlap on the world's axes;
 * 0 when they miss the grid. Build and query share it, so an object and a
 * box that overlap always share a cell. */
static int env_cell_range(const geo_grid *g, int dims, const double lo[3],
                          const double hi[3], int32_t clo[3],
                          int32_t chi[3]) {
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
        const geo_object *o = &geo->objects[i];
        if (!env_gridded(o->kind))
            continue;
        double lo[3], hi[3];
        int32_t clo[3], chi[3];
        env_bounds(o, lo, hi);
        if (!env_cell_range(g, dims, lo, hi, clo, chi))
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
        env_bounds(o, olo, ohi);
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
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX};
    double hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    for (uint32_t i = 0; i < geo->count; i++) {
        const geo_object *o = &geo->objects[i];
        planes += o->kind == GEO_PLANE;
        if (!env_gridded(o->kind))
            continue;
        gridded++;
        double olo[3], ohi[3];
        env_bounds(o, olo, ohi);
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
            const geo_object *o = &geo->objects[i];
            if (!env_gridded(o->kind))
                continue;
            double olo[3], ohi[3];
            int32_t clo[3], chi[3];
            env_bounds(o, olo, ohi);
            if (!env_cell_range(g, dims, olo, ohi, clo, chi))
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
    memset(g, 0, sizeof *g);
}

/* A walk over the objects that may touch a box: the objects listed in the
 * cells the box overlaps, then (when asked) the planes. When the grid is
 * not current it visits every object instead; callers filter by kind. */
typedef struct env_cursor {
    const geo_grid *g; /* NULL: scan every object */
    int32_t lo[3], hi[3], c[3];
    uint32_t at, end;
    int stage; /* 0 cells, 1 planes next, 2 done */
    int planes;
} env_cursor;

static void env_cursor_begin(env_cursor *q, const throng_world *w,
                             const double lo[3], const double hi[3],
                             int planes) {
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

static int env_cursor_next(env_cursor *q, uint32_t *index) {
    for (;;) {
        if (q->at < q->end) {
            *index = q->g ? q->g->items[q->at] : q->at;
            q->at++;
            return 1;
        }
        if (q->stage == 0) {
            const geo_grid *g = q->g;
            uint32_t c = (uint32_t)((q->c[2] * g->n[1] + q->c[1]) * g->n[0] +
                                    q->c[0]);
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

/* ------------------------------------------------------------------------ */
/* Shapes                                                                   */
/* ------------------------------------------------------------------------ */

/* The nearest point q of segment o to p, and the unit normal n from the
 * segment towards p; on the segment itself, the side facing against
 * `towards` (the way the agent came), or the left side. Returns |p - q|. */
static double env_segment_near(const geo_object *o, const double p[3],
                               const double towards[3], double q[3],
                               double n[3]) {
    double a[3], b[3], d[3], ap[3];
    env_load(o->a, a);
    env_load(o->b, b);
    for (int k = 0; k < 3; k++) {
        d[k] = b[k] - a[k];
        ap[k] = p[k] - a[k];
    }
    double s = env_dot(ap, d) / env_dot(d, d);
    s = s < 0.0 ? 0.0 : s > 1.0 ? 1.0 : s;
    double off[3];
    for (int k = 0; k < 3; k++) {
        q[k] = a[k] + s * d[k];
        off[k] = p[k] - q[k];
    }
    double dist = sqrt(env_dot(off, off));
    if (env_unit(off, n))
        return dist;
    double left[3] = {-d[1], d[0], 0.0};
    env_unit(left, n);
    if (env_dot(towards, n) > 0.0)
        for (int k = 0; k < 3; k++)
            n[k] = -n[k];
    return 0.0;
}

/* Signed distance of p from plane o (positive on the normal's side). */
static double env_plane_distance(const geo_object *o, const double p[3],
                                 double n[3]) {
    double a[3], ap[3];
    env_load(o->a, a);
    env_load(o->b, n);
    for (int k = 0; k < 3; k++)
        ap[k] = p[k] - a[k];
    return env_dot(ap, n);
}

/* ------------------------------------------------------------------------ */
/* Obstacle avoidance                                                       */
/* ------------------------------------------------------------------------ */

/* Where the ray from p along unit f enters the sphere (c, rr), p outside:
 * the distance, or -1 when it does not (within any length). */
static double env_ray_sphere(const double p[3], const double f[3],
                             const double c[3], double rr) {
    double m[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    double b = env_dot(m, f);
    double c2 = env_dot(m, m) - rr * rr;
    if (b > 0.0)
        return -1.0; /* heading away */
    double disc = b * b - c2;
    if (disc < 0.0)
        return -1.0;
    double t = -b - sqrt(disc);
    return t > 0.0 ? t : 0.0;
}

/* Slab test: where the ray from p along f enters box [lo, hi], p outside,
 * or -1. Only the world's axes count. */
static double env_ray_box(const double p[3], const double f[3],
                          const double lo[3], const double hi[3], int dims) {
    double t0 = 0.0, t1 = DBL_MAX;
    for (int k = 0; k < dims; k++) {
        if (f[k] == 0.0) {
            if (p[k] < lo[k] || p[k] > hi[k])
                return -1.0;
            continue;
        }
        double ta = (lo[k] - p[k]) / f[k], tb = (hi[k] - p[k]) / f[k];
        if (ta > tb) {
            double t = ta;
            ta = tb;
            tb = t;
        }
        t0 = ta > t0 ? ta : t0;
        t1 = tb < t1 ? tb : t1;
        if (t0 > t1)
            return -1.0;
    }
    return t0;
}

/* How deep p lies inside the grown box [lo, hi] (> 0 inside), and the
 * outward direction to leave the real box [a, b] by: away from its
 * nearest point, or, inside it, through its nearest face. */
static double env_box_inside(const double p[3], const double lo[3],
                             const double hi[3], const double a[3],
                             const double b[3], int dims, double out[3]) {
    double depth = DBL_MAX;
    for (int k = 0; k < dims; k++) {
        double d0 = p[k] - lo[k], d1 = hi[k] - p[k];
        double d = d0 < d1 ? d0 : d1;
        depth = d < depth ? d : depth;
    }
    if (!(depth > 0.0) || !out)
        return depth;
    double off[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < dims; k++) {
        double q = p[k] < a[k] ? a[k] : p[k] > b[k] ? b[k] : p[k];
        off[k] = p[k] - q;
    }
    if (env_unit(off, out))
        return depth;
    double nearest = DBL_MAX;
    for (int k = 0; k < dims; k++) {
        double faces[2] = {p[k] - a[k], b[k] - p[k]};
        for (int side = 0; side < 2; side++)
            if (faces[side] < nearest) {
                nearest = faces[side];
                out[0] = out[1] = out[2] = 0.0;
                out[k] = side ? 1.0 : -1.0;
            }
    }
    return depth;
}

static int env_avoid(const steer_ctx *a, const throng_behaviour *b,
                     float F[3]) {
    const throng_world *w = a->w;
    const geometry *geo = w->geo;
    if (!geo || geo->live == 0)
        return 0;
    const int dims = a->dims;
    double p[3], v[3], f[3], side[3];
    env_load(a->p, p);
    env_load(a->v, v);
    env_load(a->f, f);
    env_load(a->side, side);
    const double R = (double)a->radius;
    const double L = (double)b->u.avoid.min_length +
                     sqrt(env_dot(v, v)) * (double)b->u.avoid.lookahead_time;
    const double s_t = (double)b->speed_factor * (double)a->max_speed;

    /* The corridor's bounds: the segment p .. p + L f, grown by R. */
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        double e = p[k] + L * f[k];
        lo[k] = (p[k] < e ? p[k] : e) - R;
        hi[k] = (p[k] < e ? e : p[k]) + R;
    }

    /* The nearest threat ahead, and the deepest overlap, if any. */
    uint32_t hit = UINT32_MAX, inside = UINT32_MAX;
    double hit_t = DBL_MAX, depth = 0.0;
    env_cursor q;
    env_cursor_begin(&q, w, lo, hi, 0);
    uint32_t i;
    while (env_cursor_next(&q, &i)) {
        const geo_object *o = &geo->objects[i];
        double t, d;
        if (o->kind == GEO_SPHERE) {
            double c[3];
            env_load(o->a, c);
            double rr = (double)o->r + R;
            double m[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
            d = rr - sqrt(env_dot(m, m));
            t = d > 0.0 ? -1.0 : env_ray_sphere(p, f, c, rr);
        } else if (o->kind == GEO_BOX) {
            double ba[3], bb[3], glo[3], ghi[3];
            env_load(o->a, ba);
            env_load(o->b, bb);
            for (int k = 0; k < 3; k++) {
                glo[k] = ba[k] - R;
                ghi[k] = bb[k] + R;
            }
            d = env_box_inside(p, glo, ghi, ba, bb, dims, NULL);
            t = d > 0.0 ? -1.0 : env_ray_box(p, f, glo, ghi, dims);
        } else {
            continue;
        }
        if (d > 0.0 && (d > depth || (d == depth && i < inside))) {
            depth = d;
            inside = i;
        }
        if (t >= 0.0 && t <= L && (t < hit_t || (t == hit_t && i < hit))) {
            hit_t = t;
            hit = i;
        }
    }

    double vd[3];
    if (inside != UINT32_MAX) {
        /* Already overlapping: leave by the nearest way out. */
        const geo_object *o = &geo->objects[inside];
        double out[3];
        if (o->kind == GEO_SPHERE) {
            double c[3];
            env_load(o->a, c);
            double m[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
            if (!env_unit(m, out))
                memcpy(out, side, sizeof out);
        } else {
            double ba[3], bb[3], glo[3], ghi[3];
            env_load(o->a, ba);
            env_load(o->b, bb);
            for (int k = 0; k < 3; k++) {
                glo[k] = ba[k] - R;
                ghi[k] = bb[k] + R;
            }
            env_box_inside(p, glo, ghi, ba, bb, dims, out);
        }
        for (int k = 0; k < 3; k++)
            vd[k] = s_t * out[k];
        return env_finish(a, vd, F);
    }
    if (hit == UINT32_MAX)
        return 0;

    /* Push sideways, away from the obstacle's centre, keeping the speed
     * along the heading. */
    const geo_object *o = &geo->objects[hit];
    double c[3];
    for (int k = 0; k < 3; k++)
        c[k] = o->kind == GEO_SPHERE
                   ? (double)o->a[k]
                   : 0.5 * ((double)o->a[k] + (double)o->b[k]);
    double m[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    double along = env_dot(m, f);
    double lateral[3], u[3];
    for (int k = 0; k < 3; k++)
        lateral[k] = m[k] - along * f[k];
    double lat = sqrt(env_dot(lateral, lateral));
    if (!(lat > ENV_DEAD_AHEAD * sqrt(env_dot(m, m))) || !env_unit(lateral, u))
        memcpy(u, side, sizeof u);
    double forward = env_dot(v, f);
    for (int k = 0; k < 3; k++)
        vd[k] = forward * f[k] + s_t * u[k];
    return env_finish(a, vd, F);
}

/* ------------------------------------------------------------------------ */
/* Containment                                                              */
/* ------------------------------------------------------------------------ */

/* Wall object i's distance from p (< range: in range) and its normal into
 * the allowed side; 0 when it is not a wall. */
static int env_wall(const geo_object *o, const double p[3],
                    const double v[3], double *dist, double n[3]) {
    double q[3];
    if (o->kind == GEO_PLANE) {
        *dist = env_plane_distance(o, p, n);
        return 1;
    }
    if (o->kind == GEO_SEGMENT) {
        *dist = env_segment_near(o, p, v, q, n);
        return 1;
    }
    return 0;
}

/* Seed 002's rule for one wall: v_d's component along n becomes s_t. */
static void env_contain_apply(double vd[3], const double n[3], double s_t) {
    double along = env_dot(vd, n);
    for (int k = 0; k < 3; k++)
        vd[k] += (s_t - along) * n[k];
}

/* Adds id to the ascending list ids[0 .. *n) of at most ENV_WALL_BATCH,
 * keeping the smallest; *dropped records that some id did not fit. */
static void env_keep_smallest(uint32_t *ids, int *n, uint32_t id,
                              int *dropped) {
    int at = *n;
    while (at > 0 && ids[at - 1] >= id) {
        if (ids[at - 1] == id)
            return; /* seen in another cell */
        at--;
    }
    if (at == ENV_WALL_BATCH) {
        *dropped = 1;
        return;
    }
    if (*n == ENV_WALL_BATCH)
        *dropped = 1; /* the largest falls off the end */
    else
        (*n)++;
    for (int k = *n - 1; k > at; k--)
        ids[k] = ids[k - 1];
    ids[at] = id;
}

static int env_contain(const steer_ctx *a, const throng_behaviour *b,
                       float F[3]) {
    const throng_contain_params *c = &b->u.contain;
    const throng_world *w = a->w;
    const int dims = a->dims;
    const double range = (double)c->range;
    const double s_t = (double)b->speed_factor * (double)a->max_speed;
    double p[3], v[3], vd[3];
    env_load(a->p, p);
    env_load(a->v, v);
    memcpy(vd, v, sizeof vd);
    int any = 0;

    if (c->use_box)
        for (int k = 0; k < dims; k++) {
            if (p[k] - (double)c->box_min[k] < range) {
                vd[k] = s_t;
                any = 1;
            }
            if ((double)c->box_max[k] - p[k] < range) {
                vd[k] = -s_t;
                any = 1;
            }
        }

    const geometry *geo = w->geo;
    if (c->use_walls && geo && geo->live > 0) {
        double lo[3], hi[3];
        for (int k = 0; k < 3; k++) {
            lo[k] = p[k] - range;
            hi[k] = p[k] + range;
        }
        /* The walls in range, in id order, a batch at a time. */
        uint32_t from = 0;
        for (;;) {
            uint32_t ids[ENV_WALL_BATCH];
            int n = 0, dropped = 0;
            env_cursor q;
            env_cursor_begin(&q, w, lo, hi, 1);
            uint32_t i;
            while (env_cursor_next(&q, &i)) {
                double dist, nrm[3];
                if (i >= from && env_wall(&geo->objects[i], p, v, &dist, nrm) &&
                    dist < range)
                    env_keep_smallest(ids, &n, i, &dropped);
            }
            for (int j = 0; j < n; j++) {
                double dist, nrm[3];
                env_wall(&geo->objects[ids[j]], p, v, &dist, nrm);
                env_contain_apply(vd, nrm, s_t);
                any = 1;
            }
            if (!dropped)
                break;
            from = ids[n - 1] + 1u;
        }
    }
    if (!any)
        return 0;
    return env_finish(a, vd, F);
}

/* ------------------------------------------------------------------------ */
/* Wall following                                                           */
/* ------------------------------------------------------------------------ */

static int env_follow_wall(const steer_ctx *a, const throng_behaviour *b,
                           float F[3]) {
    const throng_contain_params *c = &b->u.contain;
    const throng_world *w = a->w;
    const geometry *geo = w->geo;
    if (!geo || geo->live == 0)
        return 0;
    const double range = (double)c->range;
    const double s_t = (double)b->speed_factor * (double)a->max_speed;
    double p[3], v[3], f[3];
    env_load(a->p, p);
    env_load(a->v, v);
    env_load(a->f, f);

    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = p[k] - range;
        hi[k] = p[k] + range;
    }
    uint32_t best = UINT32_MAX;
    double best_d = range;
    env_cursor q;
    env_cursor_begin(&q, w, lo, hi, 1);
    uint32_t i;
    while (env_cursor_next(&q, &i)) {
        double dist, nrm[3];
        if (!env_wall(&geo->objects[i], p, v, &dist, nrm))
            continue;
        dist = fabs(dist);
        if (dist < best_d || (dist == best_d && best != UINT32_MAX && i < best)) {
            best_d = dist;
            best = i;
        }
    }
    if (best == UINT32_MAX)
        return 0;

    /* The wall's nearest point, its normal towards the allowed side, and
     * its tangent in the direction of travel. */
    const geo_object *o = &geo->objects[best];
    double move[3], near[3], n[3], t[3];
    memcpy(move, env_dot(v, v) > 0.0 ? v : f, sizeof move);
    if (o->kind == GEO_SEGMENT) {
        env_segment_near(o, p, move, near, n);
        double d[3] = {(double)o->b[0] - (double)o->a[0],
                       (double)o->b[1] - (double)o->a[1], 0.0};
        env_unit(d, t);
        if (env_dot(move, t) < 0.0)
            for (int k = 0; k < 3; k++)
                t[k] = -t[k];
    } else {
        double s = env_plane_distance(o, p, n);
        for (int k = 0; k < 3; k++)
            near[k] = p[k] - s * n[k];
        /* Travel projected on the plane; moving straight at it, the
         * agent's side vector, which is then parallel to the plane. */
        double side[3], up[3];
        env_load(a->side, side);
        env_load(a->up, up);
        const double *tries[3] = {move, side, up};
        for (int j = 0; j < 3; j++) {
            double along = env_dot(tries[j], n), proj[3];
            for (int k = 0; k < 3; k++)
                proj[k] = tries[j][k] - along * n[k];
            if (sqrt(env_dot(proj, proj)) >
                    ENV_DEAD_AHEAD * sqrt(env_dot(tries[j], tries[j])) &&
                env_unit(proj, t))
                break;
            t[0] = t[1] = t[2] = 0.0;
        }
    }
    double x[3], u[3], vd[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < 3; k++)
        x[k] = near[k] + (double)c->distance * n[k] + (double)c->ahead * t[k] -
               p[k];
    if (env_unit(x, u))
        for (int k = 0; k < 3; k++)
            vd[k] = s_t * u[k];
    return env_finish(a, vd, F);
}

/* ------------------------------------------------------------------------ */
/* The family's entry points                                                */
/* ------------------------------------------------------------------------ */

void steer_env_default(throng_behaviour *b) {
    switch (b->kind) {
    case THRONG_BEHAVIOUR_AVOID_OBSTACLES:
        b->u.avoid.min_length = 2.0f;
        b->u.avoid.lookahead_time = 1.0f;
        break;
    case THRONG_BEHAVIOUR_CONTAIN:
    case THRONG_BEHAVIOUR_FOLLOW_WALL:
        b->u.contain.use_box = false;
        b->u.contain.use_walls = true;
        b->u.contain.range = 2.0f;
        b->u.contain.distance = 1.0f;
        b->u.contain.ahead = 2.0f;
        break;
    default:
        break;
    }
}

throng_status steer_env_check(throng_world *w, const char *fn,
                              const throng_behaviour *b) {
    if (b->kind == THRONG_BEHAVIOUR_AVOID_OBSTACLES) {
        const throng_avoid_params *p = &b->u.avoid;
        if (!is_finite_float(p->min_length) ||
            !is_finite_float(p->lookahead_time))
            return world_fail(w, THRONG_ERR_NOT_FINITE,
                              "%s: avoid min_length or lookahead_time is not "
                              "finite",
                              fn);
        if (!length_in_range(p->min_length))
            return check_length_field(w, fn, "avoid min_length",
                                      p->min_length, 0);
        if (!(p->lookahead_time >= 0.0f))
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: avoid lookahead_time must be >= 0 "
                              "seconds, got %g",
                              fn, (double)p->lookahead_time);
        return THRONG_OK;
    }
    const throng_contain_params *c = &b->u.contain;
    if (!is_finite_float(c->range) || !is_finite_float(c->distance) ||
        !is_finite_float(c->ahead))
        return world_fail(w, THRONG_ERR_NOT_FINITE,
                          "%s: range, distance or ahead is not finite", fn);
    if (c->use_box)
        for (int k = 0; k < w->dims; k++)
            if (!is_finite_float(c->box_min[k]) ||
                !is_finite_float(c->box_max[k]))
                return world_fail(w, THRONG_ERR_NOT_FINITE,
                                  "%s: box_min[%d] or box_max[%d] is not "
                                  "finite",
                                  fn, k, k);
    throng_status st = check_length_field(w, fn, "range", c->range, 0);
    if (st == THRONG_OK)
        st = check_length_field(w, fn, "distance", c->distance, 1);
    if (st == THRONG_OK)
        st = check_length_field(w, fn, "ahead", c->ahead, 1);
    if (st != THRONG_OK)
        return st;
    if (c->use_box)
        for (int k = 0; k < w->dims; k++)
            if (!(c->box_min[k] < c->box_max[k]))
                return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                                  "%s: box_min[%d] must be below box_max[%d], "
                                  "got %g and %g",
                                  fn, k, k, (double)c->box_min[k],
                                  (double)c->box_max[k]);
    return THRONG_OK;
}

int steer_env_force(const steer_ctx *a, const throng_behaviour *b,
                    float F[3]) {
    F[0] = F[1] = F[2] = 0.0f;
    switch (b->kind) {
    case THRONG_BEHAVIOUR_AVOID_OBSTACLES: return env_avoid(a, b, F);
    case THRONG_BEHAVIOUR_CONTAIN: return env_contain(a, b, F);
    case THRONG_BEHAVIOUR_FOLLOW_WALL: return env_follow_wall(a, b, F);
    default: return 0;
    }
}
