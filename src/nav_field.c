/* SPDX-License-Identifier: MIT */
/*
 * Navigation fields: a description (a grid, goals, costs, a clearance and
 * density settings) turned into a raster of cell classes and steps, the
 * travel times solved on it (nav_solve.c), and what agents read from it.
 *
 * The raster is made afresh from the description and the world's geometry
 * at every build: each cell starts FREE at its base cost (the per-cell
 * costs, then the regions), a cost of 0 makes it SOLID, and every
 * obstacle and wall marks the cells it touches SOLID and the cells whose
 * centres lie within the clearance of it MARGIN; goal cells that are not
 * SOLID become GOAL. Touching is tested on the closed cell for a wall
 * segment (a wall along a cell boundary closes both sides, so no route
 * slips through a zero-thickness wall) and on the open cell for spheres
 * and boxes (a box whose face lies on a boundary does not grow by a
 * cell). The new raster is then compared with the last cell by cell:
 * when few cells changed, the solver starts again only from them and from
 * what their times led to (nav_solve_reset_downstream), which gives the
 * bits of a full build. Comparing the whole raster costs one pass over the
 * cells; what it saves is the solve, which costs many. When what the
 * changed cells led to is an eighth of the field or more, the walk gives
 * up and the build is a full one, which is then the cheaper.
 *
 * The passes over the cells (the raster, the comparison, a full build's
 * start) run on the build's threads over the field's lines (rows along x)
 * cut into a fixed number of parts, each part's counts its own and summed
 * in part order, so nothing they produce depends on the threads; the two
 * rasters (classes and steps) trade places rather than being copied.
 * Everything a build needs is allocated when the field is made, so a
 * rebuild inside a step allocates nothing.
 *
 * Density: every density_interval steps the agents are counted per cell
 * (in a periodic world at each of their images in the grid too), as
 * integers, so in any order the same; summed over the window of
 * density_radius by running sums along each axis, and divided by the
 * window's passable area. A cell's step is then its base cost times 1 +
 * density_cost * density, rounded to the solver's integer units.
 *
 * Sampling: a point reads the cells whose centres surround it, weighted
 * bilinearly (trilinearly in 3D), skipping cells without a time and cells
 * across a wall (a corner whose time is far from that of the cell the
 * point is in: two diagonal cells can face each other through a gap too
 * narrow for any route); the direction is the weighted sum of theirs,
 * normalised. Near a wall that blend could point into it, so the
 * direction is checked half a cell ahead and, when that lands in a SOLID
 * cell, replaced by the direction of the cell the point is in, then by
 * that cell's stronger axis alone, which leads to a neighbour with a time
 * and so never into geometry. A point in a SOLID or unreached cell (a
 * body pressed against a wall stands in the wall's cells) heads for the
 * centre of the earliest reached cell round it.
 */
#include "nav_field.h"
#include "core.h"
#include "geometry.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A rebuild starts from scratch once this share of the cells changed:
 * walking what depends on them would cost more than it saves. */
#define NAV_FULL_SHARE 8u
/* The blocks a field allocates (field_blocks). */
#define NAV_BLOCKS 17

/* ------------------------------------------------------------------------ */
/* Checks                                                                   */
/* ------------------------------------------------------------------------ */

static throng_status check_cost(throng_world *w, const char *fn,
                                const char *what, uint64_t index, float c) {
    if (!is_finite_float(c))
        return world_fail(w, THRONG_ERR_NOT_FINITE,
                          "%s: %s[%llu] is not finite", fn, what,
                          (unsigned long long)index);
    if (c == 0.0f || (c >= THRONG_NAV_MIN_COST && c <= THRONG_NAV_MAX_COST))
        return THRONG_OK;
    return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                      "%s: %s[%llu] must be 0 (impassable) or in [%g, %g], "
                      "got %g",
                      fn, what, (unsigned long long)index,
                      (double)THRONG_NAV_MIN_COST, (double)THRONG_NAV_MAX_COST,
                      (double)c);
}

/* The cell index range [lo, hi) per axis of the cells a box [a, b] may
 * touch, clamped to the grid; 0 when it misses the grid. Computed in
 * double: any finite float coordinate has a finite cell coordinate. */
static int grid_cells_of(const nav_field *f, const double a[3],
                         const double b[3], uint32_t lo[3], uint32_t hi[3]) {
    for (int k = 0; k < 3; k++) {
        if (k >= f->dims) {
            lo[k] = 0u;
            hi[k] = 1u;
            continue;
        }
        const double h = (double)f->cell, o = (double)f->origin[k];
        const double u0 = floor((a[k] - o) / h), u1 = floor((b[k] - o) / h);
        if (u1 < 0.0 || u0 >= (double)f->size[k])
            return 0;
        lo[k] = u0 < 0.0 ? 0u : (uint32_t)u0;
        hi[k] = u1 >= (double)f->size[k] ? f->size[k] : (uint32_t)u1 + 1u;
    }
    return 1;
}

throng_status nav_field_check_def(throng_world *w, const char *fn,
                                  const throng_nav_field_def *d) {
    throng_status st = check_vec(w, fn, "origin", d->origin);
    if (st != THRONG_OK ||
        (st = check_length_field(w, fn, "cell_size", d->cell_size, 0)) !=
            THRONG_OK)
        return st;
    uint64_t cells = 1u;
    for (int k = 0; k < 3; k++) {
        if (k >= w->dims) {
            if (d->size[k] != 1u)
                return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                                  "%s: size[%d] must be 1 in a %dD world, "
                                  "got %u",
                                  fn, k, w->dims, d->size[k]);
            continue;
        }
        if (d->size[k] == 0u)
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: size[%d] must be >= 1, got 0", fn, k);
        /* Checked after each factor, so the product stays below 2^58. */
        /* The grid then spans at most THRONG_MAX_LENGTH times
         * THRONG_MAX_NAV_CELLS metres (7e16): its far corner is finite
         * from any finite origin, and cell coordinates are computed in
         * double. */
        cells *= d->size[k];
        if (cells > THRONG_MAX_NAV_CELLS)
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: the grid has more than %u cells "
                              "(THRONG_MAX_NAV_CELLS)",
                              fn, THRONG_MAX_NAV_CELLS);
    }
    if ((st = check_length_field(w, fn, "clearance", d->clearance, 1)) !=
            THRONG_OK ||
        (st = check_length_field(w, fn, "density_radius", d->density_radius,
                                 1)) != THRONG_OK ||
        (st = check_finite(w, fn, "density_cost", d->density_cost)) !=
            THRONG_OK)
        return st;
    if (d->density_cost < 0.0f)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: density_cost must be >= 0, got %g", fn,
                          (double)d->density_cost);
    if (d->goal_count == 0u || d->goal_count > THRONG_MAX_NAV_GOALS)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: a field needs 1 .. %u goals, got %u", fn,
                          THRONG_MAX_NAV_GOALS, d->goal_count);
    if (!d->goals)
        return null_fail(w, fn, "def->goals");
    if (d->region_count > THRONG_MAX_NAV_REGIONS)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: a field holds at most %u regions, got %u", fn,
                          THRONG_MAX_NAV_REGIONS, d->region_count);
    if (d->region_count > 0u && !d->regions)
        return null_fail(w, fn, "def->regions");
    /* A probe field of the grid alone, for the goals' cell ranges. */
    nav_field probe;
    memset(&probe, 0, sizeof probe);
    probe.dims = w->dims;
    probe.cell = d->cell_size;
    for (int k = 0; k < 3; k++) {
        probe.origin[k] = k < w->dims ? d->origin[k] : 0.0f;
        probe.size[k] = k < w->dims ? d->size[k] : 1u;
    }
    for (uint32_t i = 0; i < d->goal_count; i++) {
        const throng_nav_goal *g = &d->goals[i];
        char what[48];
        snprintf(what, sizeof what, "goals[%u].a", i);
        if ((st = check_vec(w, fn, what, g->a)) != THRONG_OK)
            return st;
        snprintf(what, sizeof what, "goals[%u].b", i);
        if ((st = check_vec(w, fn, what, g->b)) != THRONG_OK)
            return st;
        double a[3], b[3];
        for (int k = 0; k < 3; k++) {
            a[k] = k < w->dims ? (double)g->a[k] : 0.0;
            b[k] = k < w->dims ? (double)g->b[k] : 0.0;
        }
        switch (g->kind) {
        case THRONG_NAV_GOAL_POINT:
            for (int k = 0; k < w->dims; k++)
                if (g->b[k] != 0.0f)
                    return world_fail(w, THRONG_ERR_INVALID_ARG,
                                      "%s: goals[%u] is a point, which does "
                                      "not read b; b must be 0 (b[%d] is %g)",
                                      fn, i, k, (double)g->b[k]);
            memcpy(b, a, sizeof b);
            break;
        case THRONG_NAV_GOAL_SEGMENT:
            for (int k = 0; k < 3; k++) {
                const double lo = a[k] < b[k] ? a[k] : b[k];
                const double hi = a[k] < b[k] ? b[k] : a[k];
                a[k] = lo;
                b[k] = hi;
            }
            break;
        case THRONG_NAV_GOAL_BOX:
            for (int k = 0; k < w->dims; k++)
                if (!(g->a[k] < g->b[k]))
                    return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                                      "%s: goals[%u] is a box: a[%d] must be "
                                      "below b[%d], got %g and %g",
                                      fn, i, k, k, (double)g->a[k],
                                      (double)g->b[k]);
            break;
        default:
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: goals[%u].kind must be "
                              "THRONG_NAV_GOAL_POINT, _SEGMENT or _BOX, got "
                              "%d",
                              fn, i, (int)g->kind);
        }
        uint32_t lo[3], hi[3];
        if (!grid_cells_of(&probe, a, b, lo, hi))
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: goals[%u] lies outside the grid", fn, i);
    }
    for (uint32_t i = 0; i < d->region_count; i++) {
        const throng_nav_region *g = &d->regions[i];
        char what[48];
        snprintf(what, sizeof what, "regions[%u].min", i);
        if ((st = check_vec(w, fn, what, g->min)) != THRONG_OK)
            return st;
        snprintf(what, sizeof what, "regions[%u].max", i);
        if ((st = check_vec(w, fn, what, g->max)) != THRONG_OK)
            return st;
        for (int k = 0; k < w->dims; k++)
            if (!(g->min[k] < g->max[k]))
                return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                                  "%s: regions[%u]: min[%d] must be below "
                                  "max[%d], got %g and %g",
                                  fn, i, k, k, (double)g->min[k],
                                  (double)g->max[k]);
        if ((st = check_cost(w, fn, "regions[].cost", i, g->cost)) != THRONG_OK)
            return st;
    }
    if (d->costs)
        for (uint64_t c = 0; c < cells; c++)
            if ((st = check_cost(w, fn, "costs", c, d->costs[c])) != THRONG_OK)
                return st;
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* Making and freeing                                                       */
/* ------------------------------------------------------------------------ */

/* Each block of a field, allocated and freed by the same table. */
typedef struct nav_block {
    void **ptr;
    size_t bytes;
} nav_block;

static int field_blocks(nav_field *f, nav_block out[NAV_BLOCKS]) {
    const size_t padded = f->r.padded_cells, cells = (size_t)f->cells;
    const int density = f->density_interval > 0u;
    int n = 0;
    out[n++] = (nav_block){ (void **)&f->goals,
                            f->goal_count * sizeof(throng_nav_goal) };
    out[n++] = (nav_block){ (void **)&f->regions,
                            f->region_count * sizeof(throng_nav_region) };
    out[n++] = (nav_block){ (void **)&f->base, cells * sizeof(float) };
    out[n++] = (nav_block){ (void **)&f->cls, padded };
    out[n++] = (nav_block){ (void **)&f->next_cls, padded };
    out[n++] = (nav_block){ (void **)&f->step, padded * sizeof(uint32_t) };
    out[n++] = (nav_block){ (void **)&f->next_step, padded * sizeof(uint32_t) };
    out[n++] = (nav_block){ (void **)&f->time, padded * sizeof(uint64_t) };
    out[n++] = (nav_block){ (void **)&f->dir,
                            padded * (size_t)f->dims * sizeof(float) };
    out[n++] =
        (nav_block){ (void **)&f->unit_table, NAV_UNIT * sizeof(uint16_t) };
    out[n++] = (nav_block){ &f->scratch, f->scratch_bytes };
    out[n++] = (nav_block){ (void **)&f->start, f->r.tile_count };
    out[n++] = (nav_block){ (void **)&f->mark, padded };
    out[n++] = (nav_block){ (void **)&f->queue, padded * sizeof(uint32_t) };
    out[n++] = (nav_block){ (void **)&f->counts,
                            density ? cells * sizeof(uint32_t) : 0u };
    out[n++] = (nav_block){ (void **)&f->density,
                            density ? cells * sizeof(float) : 0u };
    out[n++] = (nav_block){ (void **)&f->sums,
                            density ? cells * sizeof(uint32_t) : 0u };
    return n;
}

void nav_field_free(throng_world *w, nav_field *f) {
    if (!f)
        return;
    nav_block b[NAV_BLOCKS];
    const int n = field_blocks(f, b);
    for (int i = 0; i < n; i++)
        world_free(w, *b[i].ptr, b[i].bytes);
    world_free(w, f->costs, f->costs ? (size_t)f->cells * sizeof(float) : 0u);
    world_free(w, f->supplied,
               f->supplied ? (size_t)f->cells * sizeof(uint32_t) : 0u);
    world_free(w, f, sizeof *f);
}

/* The base cost of every cell: 1, or the per-cell cost, then each region
 * over the cells whose centres it holds. */
static void derive_base(nav_field *f) {
    const size_t cells = (size_t)f->cells;
    for (size_t c = 0; c < cells; c++)
        f->base[c] = f->costs ? f->costs[c] : 1.0f;
    for (uint32_t i = 0; i < f->region_count; i++) {
        const throng_nav_region *g = &f->regions[i];
        uint32_t lo[3], hi[3];
        const double h = (double)f->cell;
        for (int k = 0; k < 3; k++) {
            if (k >= f->dims) {
                lo[k] = 0u;
                hi[k] = 1u;
                continue;
            }
            /* Centres origin + h (i + 0.5) in [min, max]. */
            const double o = (double)f->origin[k];
            double a = ceil(((double)g->min[k] - o) / h - 0.5);
            double b = floor(((double)g->max[k] - o) / h - 0.5);
            a = a < 0.0 ? 0.0 : a;
            b = b > (double)f->size[k] - 1.0 ? (double)f->size[k] - 1.0 : b;
            if (b < a) {
                lo[k] = hi[k] = 0u;
                continue;
            }
            lo[k] = (uint32_t)a;
            hi[k] = (uint32_t)b + 1u;
        }
        for (uint32_t z = lo[2]; z < hi[2]; z++)
            for (uint32_t y = lo[1]; y < hi[1]; y++)
                for (uint32_t x = lo[0]; x < hi[0]; x++)
                    f->base[x + (size_t)f->size[0] *
                                    (y + (size_t)f->size[1] * z)] = g->cost;
    }
}

nav_field *nav_field_create(throng_world *w, const char *fn,
                            const throng_nav_field_def *d) {
    nav_field *f = world_alloc(w, sizeof *f);
    if (!f) {
        world_fail(w, THRONG_ERR_OUT_OF_MEMORY, "%s: no memory for a field",
                   fn);
        return NULL;
    }
    memset(f, 0, sizeof *f);
    f->dims = w->dims;
    f->cell = d->cell_size;
    f->cells = 1u;
    for (int k = 0; k < 3; k++) {
        f->origin[k] = k < w->dims ? d->origin[k] : 0.0f;
        f->size[k] = k < w->dims ? d->size[k] : 1u;
        f->cells *= f->size[k];
    }
    f->clearance = d->clearance;
    f->goal_count = d->goal_count;
    f->region_count = d->region_count;
    f->density_interval = d->density_interval;
    f->density_radius = d->density_radius;
    f->density_cost = d->density_cost;
    if (nav_raster_plan(&f->r, f->dims, f->size)) {
        world_free(w, f, sizeof *f);
        world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                   "%s: the padded grid does not fit this machine", fn);
        return NULL;
    }
    f->scratch_bytes = nav_solve_scratch_bytes(&f->r);
    nav_block b[NAV_BLOCKS];
    const int n = field_blocks(f, b);
    int failed = 0;
    size_t bytes = sizeof *f;
    for (int i = 0; i < n; i++) {
        *b[i].ptr = b[i].bytes ? world_alloc(w, b[i].bytes) : NULL;
        failed |= b[i].bytes && !*b[i].ptr;
        bytes += b[i].bytes;
    }
    if (d->costs) {
        f->costs = world_alloc(w, (size_t)f->cells * sizeof(float));
        failed |= !f->costs;
        bytes += (size_t)f->cells * sizeof(float);
    }
    if (failed) {
        const unsigned long long cells = (unsigned long long)f->cells;
        nav_field_free(w, f);
        world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                   "%s: no memory for a field of %llu cells", fn, cells);
        return NULL;
    }
    f->bytes = bytes;
    for (uint32_t i = 0; i < f->goal_count; i++) {
        f->goals[i] = d->goals[i];
        for (int k = w->dims; k < 3; k++)
            f->goals[i].a[k] = f->goals[i].b[k] = 0.0f;
    }
    for (uint32_t i = 0; i < f->region_count; i++) {
        f->regions[i] = d->regions[i];
        for (int k = w->dims; k < 3; k++)
            f->regions[i].min[k] = f->regions[i].max[k] = 0.0f;
    }
    if (d->costs)
        memcpy(f->costs, d->costs, (size_t)f->cells * sizeof(float));
    derive_base(f);
    nav_unit_table_fill(f->unit_table);
    memset(f->mark, 0, f->r.padded_cells);
    /* The padding round the cells stays solid for good: builds write the
     * field's own cells only, and trade the two rasters' places. */
    memset(f->cls, NAV_SOLID, f->r.padded_cells);
    memset(f->next_cls, NAV_SOLID, f->r.padded_cells);
    memset(f->step, 0, f->r.padded_cells * sizeof(uint32_t));
    memset(f->next_step, 0, f->r.padded_cells * sizeof(uint32_t));
    memset(f->time, 0xFF, f->r.padded_cells * sizeof(uint64_t));
    if (f->density_interval) {
        memset(f->counts, 0, (size_t)f->cells * sizeof(uint32_t));
        memset(f->density, 0, (size_t)f->cells * sizeof(float));
    }
    return f;
}

void nav_field_def_of(const nav_field *f, throng_nav_field_def *out) {
    memset(out, 0, sizeof *out);
    memcpy(out->origin, f->origin, sizeof out->origin);
    out->cell_size = f->cell;
    memcpy(out->size, f->size, sizeof out->size);
    out->goals = f->goals;
    out->goal_count = f->goal_count;
    out->clearance = f->clearance;
    out->costs = f->costs;
    out->regions = f->regions;
    out->region_count = f->region_count;
    out->density_interval = f->density_interval;
    out->density_radius = f->density_radius;
    out->density_cost = f->density_cost;
}

int nav_field_set_costs(throng_world *w, nav_field *f, const float *costs) {
    const size_t bytes = (size_t)f->cells * sizeof(float);
    if (costs && !f->costs) {
        f->costs = world_alloc(w, bytes);
        if (!f->costs)
            return 1;
        f->bytes += bytes;
    } else if (!costs && f->costs) {
        world_free(w, f->costs, bytes);
        f->costs = NULL;
        f->bytes -= bytes;
    }
    if (costs)
        memcpy(f->costs, costs, bytes);
    derive_base(f);
    f->dirty = 1;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The raster                                                               */
/* ------------------------------------------------------------------------ */

/* Cell (i, j, k)'s box and centre, in double. */
static void cell_box(const nav_field *f, const uint32_t at[3], double lo[3],
                     double hi[3], double mid[3]) {
    const double h = (double)f->cell;
    for (int k = 0; k < 3; k++) {
        if (k >= f->dims) {
            lo[k] = hi[k] = mid[k] = 0.0;
            continue;
        }
        lo[k] = (double)f->origin[k] + h * (double)at[k];
        hi[k] = lo[k] + h;
        mid[k] = lo[k] + 0.5 * h;
    }
}

/* The distance from p to the closest point of the box [lo, hi]. */
static double box_distance(const double p[3], const double lo[3],
                           const double hi[3], int dims) {
    double d2 = 0.0;
    for (int k = 0; k < dims; k++) {
        const double e = p[k] < lo[k]   ? lo[k] - p[k]
                         : p[k] > hi[k] ? p[k] - hi[k]
                                        : 0.0;
        d2 += e * e;
    }
    return sqrt(d2);
}

/* The distance from p to the segment a-b (2D). */
static double segment_distance(const double p[3], const double a[3],
                               const double b[3]) {
    const double dx = b[0] - a[0], dy = b[1] - a[1];
    const double len2 = dx * dx + dy * dy;
    double t =
        len2 > 0.0 ? ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2 : 0.0;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    const double ex = p[0] - (a[0] + t * dx), ey = p[1] - (a[1] + t * dy);
    return sqrt(ex * ex + ey * ey);
}

/* Whether the closed box [lo, hi] meets the segment a-b (2D): the
 * separating axis test on x, y and the segment's normal. */
static int segment_meets_box(const double a[3], const double b[3],
                             const double lo[3], const double hi[3]) {
    for (int k = 0; k < 2; k++) {
        const double smin = a[k] < b[k] ? a[k] : b[k];
        const double smax = a[k] < b[k] ? b[k] : a[k];
        if (smax < lo[k] || smin > hi[k])
            return 0;
    }
    const double nx = -(b[1] - a[1]), ny = b[0] - a[0];
    const double cx = 0.5 * (lo[0] + hi[0]), cy = 0.5 * (lo[1] + hi[1]);
    const double ex = 0.5 * (hi[0] - lo[0]), ey = 0.5 * (hi[1] - lo[1]);
    const double s = nx * (cx - a[0]) + ny * (cy - a[1]);
    return fabs(s) <= fabs(nx) * ex + fabs(ny) * ey;
}

static void point_of(const float in[3], double out[3]) {
    for (int k = 0; k < 3; k++)
        out[k] = (double)in[k];
}

static inline size_t padded_at(const nav_field *f, const uint32_t at[3]) {
    return nav_index(&f->r, at[0], at[1], at[2]);
}

/* The rows (y) of layer z whose lines (y + size[1] z) lie in [l0, l1),
 * within [lo, hi): 0 when none. */
static int clip_lines(const nav_field *f, uint32_t l0, uint32_t l1, uint32_t z,
                      uint32_t lo, uint32_t hi, uint32_t *y0, uint32_t *y1) {
    const uint64_t first = (uint64_t)f->size[1] * z;
    const uint64_t a = l0 > first ? l0 - first : 0u;
    const uint64_t b = l1 > first ? l1 - first : 0u;
    *y0 = a > lo ? (uint32_t)(a < hi ? a : hi) : lo;
    *y1 = b < hi ? (uint32_t)b : hi;
    return *y0 < *y1;
}

/* Marks the cells one object touches (SOLID) and those within the
 * clearance of it (MARGIN, unless SOLID already), on lines [l0, l1). */
static void raster_object(nav_field *f, const geo_object *o, uint8_t *cls,
                          uint32_t l0, uint32_t l1) {
    const double clear = (double)f->clearance;
    const int dims = f->dims;
    double a[3], b[3], lo[3], hi[3];
    point_of(o->a, a);
    point_of(o->b, b);
    switch (o->kind) {
    case GEO_SPHERE:
        for (int k = 0; k < 3; k++) {
            lo[k] = a[k] - (double)o->r - clear;
            hi[k] = a[k] + (double)o->r + clear;
        }
        break;
    case GEO_BOX:
        for (int k = 0; k < 3; k++) {
            lo[k] = a[k] - clear;
            hi[k] = b[k] + clear;
        }
        break;
    case GEO_SEGMENT:
        for (int k = 0; k < 3; k++) {
            lo[k] = (a[k] < b[k] ? a[k] : b[k]) - clear;
            hi[k] = (a[k] < b[k] ? b[k] : a[k]) + clear;
        }
        break;
    default: /* a plane reaches every cell */
        for (int k = 0; k < 3; k++) {
            lo[k] = -(double)FLT_MAX;
            hi[k] = (double)FLT_MAX;
        }
        break;
    }
    uint32_t c0[3], c1[3];
    if (!grid_cells_of(f, lo, hi, c0, c1))
        return;
    const double half = 0.5 * (double)f->cell;
    uint32_t at[3], y0, y1;
    for (at[2] = c0[2]; at[2] < c1[2]; at[2]++)
        if (clip_lines(f, l0, l1, at[2], c0[1], c1[1], &y0, &y1))
            for (at[1] = y0; at[1] < y1; at[1]++)
                for (at[0] = c0[0]; at[0] < c1[0]; at[0]++) {
                    const size_t c = padded_at(f, at);
                    if (cls[c] == NAV_SOLID)
                        continue;
                    double blo[3], bhi[3], mid[3];
                    cell_box(f, at, blo, bhi, mid);
                    int solid = 0;
                    double dist = 0.0;
                    switch (o->kind) {
                    case GEO_SPHERE:
                        solid = box_distance(a, blo, bhi, dims) < (double)o->r;
                        dist = box_distance(mid, a, a, dims) - (double)o->r;
                        break;
                    case GEO_BOX: {
                        solid = 1;
                        for (int k = 0; k < dims; k++)
                            solid &= blo[k] < b[k] && bhi[k] > a[k];
                        dist = box_distance(mid, a, b, dims);
                        break;
                    }
                    case GEO_SEGMENT:
                        solid = segment_meets_box(a, b, blo, bhi);
                        dist = segment_distance(mid, a, b);
                        break;
                    default: {
                        /* Signed distance of the centre along the unit
                     * normal; the cell's lowest point is half a cell
                     * times |n| summed over the axes below it. */
                        double s = 0.0, reach = 0.0;
                        for (int k = 0; k < dims; k++) {
                            s += (mid[k] - a[k]) * b[k];
                            reach += half * fabs(b[k]);
                        }
                        solid = s - reach < 0.0;
                        dist = s;
                        break;
                    }
                    }
                    if (solid)
                        cls[c] = NAV_SOLID;
                    else if (dist <= clear && clear > 0.0)
                        cls[c] = NAV_MARGIN;
                }
}

/* The cells a goal covers, clipped to the grid, as a cell range and a
 * per-cell test (segments). */
static int goal_cells(const nav_field *f, const throng_nav_goal *g,
                      uint32_t lo[3], uint32_t hi[3]) {
    double a[3], b[3];
    point_of(g->a, a);
    point_of(g->b, b);
    if (g->kind == THRONG_NAV_GOAL_POINT)
        memcpy(b, a, sizeof b);
    if (g->kind == THRONG_NAV_GOAL_SEGMENT)
        for (int k = 0; k < 3; k++) {
            const double l = a[k] < b[k] ? a[k] : b[k];
            const double u = a[k] < b[k] ? b[k] : a[k];
            a[k] = l;
            b[k] = u;
        }
    return grid_cells_of(f, a, b, lo, hi);
}

/* Whether cell `at` (in the goal's range) belongs to the goal. */
static int goal_has(const nav_field *f, const throng_nav_goal *g,
                    const uint32_t at[3]) {
    double blo[3], bhi[3], mid[3];
    cell_box(f, at, blo, bhi, mid);
    double a[3], b[3];
    point_of(g->a, a);
    point_of(g->b, b);
    switch (g->kind) {
    case THRONG_NAV_GOAL_SEGMENT:
        if (f->dims == 2)
            return segment_meets_box(a, b, blo, bhi);
        /* In 3D: the cells of the segment's box that it passes within
         * half a cell's diagonal of, which every cell it crosses does. */
        {
            double d[3], len2 = 0.0, t = 0.0;
            for (int k = 0; k < 3; k++) {
                d[k] = b[k] - a[k];
                len2 += d[k] * d[k];
                t += (mid[k] - a[k]) * d[k];
            }
            t = len2 > 0.0 ? t / len2 : 0.0;
            t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
            double e2 = 0.0;
            for (int k = 0; k < 3; k++) {
                const double e = mid[k] - (a[k] + t * d[k]);
                e2 += e * e;
            }
            const double half = 0.5 * (double)f->cell;
            return e2 <= 3.0 * half * half;
        }
    case THRONG_NAV_GOAL_BOX: {
        int in = 1;
        for (int k = 0; k < f->dims; k++)
            in &= blo[k] < b[k] && bhi[k] > a[k];
        return in;
    }
    default:
        return 1; /* a point's range is its one cell */
    }
}

/* Makes lines [l0, l1) of the raster into next_cls: base classes and
 * the geometry, then the goals. Only the field's own cells are written:
 * the padding of both class arrays is SOLID from the start. */
static void raster_lines(const throng_world *w, nav_field *f, uint32_t l0,
                         uint32_t l1) {
    uint8_t *cls = f->next_cls;
    for (uint32_t line = l0; line < l1; line++) {
        const uint32_t y = line % f->size[1], z = line / f->size[1];
        const size_t row = padded_at(f, (const uint32_t[3]){ 0u, y, z });
        const size_t base = (size_t)f->size[0] * line;
        for (uint32_t x = 0; x < f->size[0]; x++)
            cls[row + x] = f->base[base + x] > 0.0f ? NAV_FREE : NAV_SOLID;
    }
    const geometry *g = w->geo;
    for (uint32_t i = 0; g && i < g->count; i++) {
        const geo_object *o = &g->objects[i];
        if (o->kind == GEO_SPHERE || o->kind == GEO_BOX ||
            o->kind == GEO_SEGMENT || o->kind == GEO_PLANE)
            raster_object(f, o, cls, l0, l1);
    }
    uint32_t at[3], y0, y1;
    for (uint32_t i = 0; i < f->goal_count; i++) {
        uint32_t lo[3], hi[3];
        if (!goal_cells(f, &f->goals[i], lo, hi))
            continue;
        for (at[2] = lo[2]; at[2] < hi[2]; at[2]++)
            if (clip_lines(f, l0, l1, at[2], lo[1], hi[1], &y0, &y1))
                for (at[1] = y0; at[1] < y1; at[1]++)
                    for (at[0] = lo[0]; at[0] < hi[0]; at[0]++) {
                        const size_t c = padded_at(f, at);
                        if (cls[c] != NAV_SOLID &&
                            goal_has(f, &f->goals[i], at))
                            cls[c] = NAV_GOAL;
                    }
    }
}

/* A cell's step in solver units: NAV_UNIT times its base cost, times
 * 1 + density_cost * density when density sets costs. */
static inline uint32_t cell_step(const nav_field *f, size_t cell) {
    const int crowd = f->density_cost > 0.0f && f->counted;
    /* Open floor, the common case: the base step, as below. */
    if (f->base[cell] == 1.0f && !crowd)
        return NAV_UNIT;
    double cost = (double)f->base[cell];
    if (crowd)
        cost *= 1.0 + (double)f->density_cost * (double)f->density[cell];
    const double units = floor(cost * (double)NAV_UNIT + 0.5);
    if (units < 1.0)
        return 1u;
    return units > (double)NAV_MAX_STEP ? NAV_MAX_STEP : (uint32_t)units;
}

int nav_field_goal_blocked(const nav_field *f, uint32_t goal) {
    uint32_t lo[3], hi[3], at[3];
    const throng_nav_goal *g = &f->goals[goal];
    if (!goal_cells(f, g, lo, hi))
        return 1;
    for (at[2] = lo[2]; at[2] < hi[2]; at[2]++)
        for (at[1] = lo[1]; at[1] < hi[1]; at[1]++)
            for (at[0] = lo[0]; at[0] < hi[0]; at[0]++)
                if (goal_has(f, g, at) && f->cls[padded_at(f, at)] == NAV_GOAL)
                    return 0;
    return 1;
}

void nav_field_reached(const nav_field *f, uint64_t *reached,
                       uint64_t *free_reached) {
    uint64_t all = 0u, free_cells = 0u;
    uint32_t at[3];
    for (at[2] = 0; at[2] < f->size[2]; at[2]++)
        for (at[1] = 0; at[1] < f->size[1]; at[1]++) {
            const size_t row =
                padded_at(f, (const uint32_t[3]){ 0u, at[1], at[2] });
            for (uint32_t x = 0; x < f->size[0]; x++) {
                const uint8_t k = f->cls[row + x];
                const uint64_t t = f->time[row + x];
                all += k != NAV_SOLID && (t & ~NAV_TAG) < NAV_INF;
                free_cells += k == NAV_FREE && t < NAV_INF;
            }
        }
    *reached = all;
    *free_reached = free_cells;
}

/* ------------------------------------------------------------------------ */
/* Building                                                                 */
/* ------------------------------------------------------------------------ */

int nav_field_stale(const throng_world *w, const nav_field *f) {
    const uint64_t shape = w->geo ? w->geo->shape_version : 0u;
    return !f->built || f->dirty || shape != f->shape_version;
}

/* A build's passes over the field's lines (rows of x), in parts: the
 * parts are a fixed cut of the lines (parallel_parts), each part's
 * counts its own, summed in part order, so the figures and the changed
 * cells' list do not depend on the threads. */
typedef struct build_ctx {
    const throng_world *w;
    nav_field *f;
} build_ctx;

static void raster_part(void *ctx, uint32_t part, uint32_t begin, uint32_t end,
                        int thread) {
    (void)part;
    (void)thread;
    build_ctx *b = ctx;
    raster_lines(b->w, b->f, begin, end);
}

/* Steps of the new raster into next_step, and per part: the cells whose
 * class or step changed, the solid and margin cells, whether a goal. */
static void step_part(void *ctx, uint32_t part, uint32_t begin, uint32_t end,
                      int thread) {
    (void)thread;
    nav_field *f = ((build_ctx *)ctx)->f;
    nav_part *p = &f->parts[part];
    memset(p, 0, sizeof *p);
    for (uint32_t line = begin; line < end; line++) {
        const size_t row = padded_at(
            f, (const uint32_t[3]){ 0u, line % f->size[1], line / f->size[1] });
        const size_t base = (size_t)f->size[0] * line;
        for (uint32_t x = 0; x < f->size[0]; x++) {
            const size_t c = row + x;
            const uint8_t k = f->next_cls[c];
            const uint32_t s = k >= NAV_FREE ? cell_step(f, base + x) : 0u;
            f->next_step[c] = s;
            p->changed += k != f->cls[c] || s != f->step[c];
            p->solid += k == NAV_SOLID;
            p->margin += k == NAV_MARGIN;
            p->goal |= k == NAV_GOAL;
        }
    }
}

/* The changed cells of the part's lines, into the queue from the part's
 * offset on (before the new raster takes the old one's place). */
static void gather_part(void *ctx, uint32_t part, uint32_t begin, uint32_t end,
                        int thread) {
    (void)thread;
    nav_field *f = ((build_ctx *)ctx)->f;
    uint64_t n = f->parts[part].offset;
    for (uint32_t line = begin; line < end; line++) {
        const size_t row = padded_at(
            f, (const uint32_t[3]){ 0u, line % f->size[1], line / f->size[1] });
        for (uint32_t x = 0; x < f->size[0]; x++) {
            const size_t c = row + x;
            if (f->next_cls[c] != f->cls[c] || f->next_step[c] != f->step[c])
                f->queue[n++] = (uint32_t)c;
        }
    }
}

/* A full build's start: every cell's time from its class. */
static void start_part(void *ctx, uint32_t part, uint32_t begin, uint32_t end,
                       int thread) {
    (void)part;
    (void)thread;
    nav_field *f = ((build_ctx *)ctx)->f;
    for (uint32_t line = begin; line < end; line++) {
        const size_t row = padded_at(
            f, (const uint32_t[3]){ 0u, line % f->size[1], line / f->size[1] });
        for (uint32_t x = 0; x < f->size[0]; x++)
            f->time[row + x] = nav_start_time(f->cls[row + x]);
    }
}

void nav_field_build(throng_world *w, nav_field *f, parallel_sched *sched,
                     int full) {
    const double t0 = parallel_now();
    const uint32_t lines = (uint32_t)(f->cells / f->size[0]);
    const uint32_t parts = lines < NAV_PARTS ? lines : NAV_PARTS;
    build_ctx ctx = { w, f };
    parallel_parts(sched, lines, parts, raster_part, &ctx);
    /* The density over this raster's passable cells, from the last count,
     * before the steps that may depend on it. */
    if (f->counted)
        nav_field_density(f, f->next_cls);
    /* The new raster against the last: which cells changed class or
     * step. */
    parallel_parts(sched, lines, parts, step_part, &ctx);
    uint64_t changed = 0u, solid = 0u, margin = 0u;
    for (uint32_t p = 0; p < parts; p++) {
        f->parts[p].offset = changed;
        changed += f->parts[p].changed;
        solid += f->parts[p].solid;
        margin += f->parts[p].margin;
    }
    const uint64_t limit = f->cells / NAV_FULL_SHARE + 1u;
    full = full || !f->built || changed >= limit;
    if (!full && changed > 0u)
        parallel_parts(sched, lines, parts, gather_part, &ctx);
    /* The new raster takes the old one's place (both arrays keep their
     * solid padding). */
    uint8_t *cls = f->cls;
    f->cls = f->next_cls;
    f->next_cls = cls;
    uint32_t *step = f->step;
    f->step = f->next_step;
    f->next_step = step;
    nav_solve_arrays a = { .cls = f->cls,
                           .step = f->step,
                           .time = f->time,
                           .dir = f->dir,
                           .unit_table = f->unit_table,
                           .scratch = f->scratch };
    memset(f->start, 0, f->r.tile_count);
    f->last_reset = 0u;
    if (!full && changed > 0u) {
        /* A change whose consequences reach a full build's share of the
         * cells (a wall moved next to the goal, so most routes change)
         * is built in full: walking them costs more than starting
         * afresh. */
        const size_t reset = nav_solve_reset_downstream(
            &f->r, &a, f->queue, (size_t)changed, f->queue, f->mark, f->start,
            (size_t)limit);
        if (reset == SIZE_MAX)
            full = 1;
        else
            f->last_reset = reset;
    }
    if (full) {
        parallel_parts(sched, lines, parts, start_part, &ctx);
        /* The solve starts from the tiles holding a goal. */
        for (uint32_t p = 0; p < parts; p++) {
            if (!f->parts[p].goal)
                continue;
            const uint32_t begin = (uint32_t)((uint64_t)lines * p / parts);
            const uint32_t end = (uint32_t)((uint64_t)lines * (p + 1u) / parts);
            for (uint32_t line = begin; line < end; line++) {
                const size_t row =
                    padded_at(f, (const uint32_t[3]){ 0u, line % f->size[1],
                                                      line / f->size[1] });
                for (uint32_t x = 0; x < f->size[0]; x++)
                    if (f->cls[row + x] == NAV_GOAL)
                        f->start[nav_tile_of(&f->r, row + x)] = 1u;
            }
        }
        f->last_reset = f->cells;
    }
    if (full || changed > 0u)
        nav_solve(&f->r, &a, f->start, full, sched, &f->last_stats);
    else
        memset(&f->last_stats, 0, sizeof f->last_stats);
    f->last_full = full;
    f->built = 1;
    f->dirty = 0;
    f->shape_version = w->geo ? w->geo->shape_version : 0u;
    f->builds++;
    f->solid = solid;
    f->margin = margin;
    f->last_seconds = parallel_now() - t0;
}

/* ------------------------------------------------------------------------ */
/* Density                                                                  */
/* ------------------------------------------------------------------------ */

/* The cell holding p, as field coordinates, or 0 when outside. */
static int cell_of(const nav_field *f, const float p[3], uint32_t at[3]) {
    for (int k = 0; k < 3; k++) {
        if (k >= f->dims) {
            at[k] = 0u;
            continue;
        }
        const double u =
            ((double)p[k] - (double)f->origin[k]) / (double)f->cell;
        if (!(u >= 0.0 && u < (double)f->size[k]))
            return 0;
        at[k] = (uint32_t)u;
    }
    return 1;
}

/* Sums of v over a window of `half` cells on each side along axis ax, in
 * place, through `tmp` (one line). */
static void window_sums(const nav_field *f, uint32_t *v, uint32_t *tmp, int ax,
                        uint32_t half) {
    const uint32_t n = f->size[ax];
    size_t stride = 1u;
    for (int k = 0; k < ax; k++)
        stride *= f->size[k];
    const size_t lines = (size_t)f->cells / n;
    for (size_t line = 0; line < lines; line++) {
        /* The line's first cell: its index with the axis coordinate 0. */
        const size_t first = (line / stride) * stride * n + line % stride;
        uint64_t run = 0u;
        for (uint32_t i = 0; i < n; i++) {
            tmp[i] = v[first + i * stride];
        }
        /* A running sum of the window. */
        for (uint32_t i = 0; i < half && i < n; i++)
            run += tmp[i];
        for (uint32_t i = 0; i < n; i++) {
            if (i + half < n)
                run += tmp[i + half];
            if (i > half)
                run -= tmp[i - half - 1u];
            v[first + i * stride] = (uint32_t)run;
        }
    }
}

void nav_field_density(nav_field *f, const uint8_t *cls) {
    const size_t cells = (size_t)f->cells;
    const uint32_t half =
        (uint32_t)floor((double)f->density_radius / (double)f->cell);
    const uint32_t span = half < (1u << 20) ? half : (1u << 20);
    /* The window's passable cells (neither at cost 0 nor solid in the
     * raster), then its agents, summed along each axis in turn; the
     * queue holds one line while summing. */
    uint32_t *open = f->sums;
    for (size_t i = 0; i < cells; i++)
        open[i] = f->base[i] > 0.0f;
    if (cls) {
        uint32_t at[3];
        size_t i = 0;
        for (at[2] = 0; at[2] < f->size[2]; at[2]++)
            for (at[1] = 0; at[1] < f->size[1]; at[1]++)
                for (at[0] = 0; at[0] < f->size[0]; at[0]++, i++)
                    if (cls[padded_at(f, at)] == NAV_SOLID)
                        open[i] = 0u;
    }
    uint32_t *tmp = f->queue;
    for (int ax = 0; ax < f->dims; ax++)
        window_sums(f, open, tmp, ax, span);
    /* The agents' sums in the density's own room, as integers first:
     * each is read before its float is written over it. */
    uint32_t *people = (uint32_t *)(void *)f->density;
    memcpy(people, f->counts, cells * sizeof(uint32_t));
    for (int ax = 0; ax < f->dims; ax++)
        window_sums(f, people, tmp, ax, span);
    double area = (double)f->cell * (double)f->cell;
    if (f->dims == 3)
        area *= (double)f->cell;
    for (size_t i = 0; i < cells; i++) {
        const uint32_t n = people[i];
        f->density[i] =
            open[i] ? (float)((double)n / ((double)open[i] * area)) : 0.0f;
    }
    f->counted = 1;
}

void nav_field_count_agents(const throng_world *w, const nav_field *f,
                            uint32_t *counts) {
    memset(counts, 0, (size_t)f->cells * sizeof(uint32_t));
    const agent_columns *c = &w->col;
    /* In a periodic world the crowd repeats: an agent is counted at each
     * of its images (a box's length either way on each axis) that falls
     * in the grid, so a window that reaches past the box's edge sees
     * the agents beyond it, as the agents themselves do. */
    const int periodic = w->boundary == THRONG_BOUNDARY_PERIODIC;
    const int reach[3] = { periodic ? 1 : 0, periodic ? 1 : 0,
                           periodic && w->dims == 3 ? 1 : 0 };
    for (uint32_t i = 0; i < w->count; i++) {
        const float p[3] = { c->px[i], c->py[i],
                             w->dims == 3 ? c->pz[i] : 0.0f };
        for (int oz = -reach[2]; oz <= reach[2]; oz++)
            for (int oy = -reach[1]; oy <= reach[1]; oy++)
                for (int ox = -reach[0]; ox <= reach[0]; ox++) {
                    const float q[3] = { p[0] + (float)ox * w->box[0],
                                         p[1] + (float)oy * w->box[1],
                                         p[2] + (float)oz * w->box[2] };
                    uint32_t at[3];
                    if (cell_of(f, q, at))
                        counts[at[0] +
                               (size_t)f->size[0] *
                                   (at[1] + (size_t)f->size[1] * at[2])]++;
                }
    }
}

void nav_field_count(throng_world *w, nav_field *f) {
    if (!f->density_interval)
        return;
    /* Counts a host supplied (a rank of a distributed world: the whole
     * crowd's) stand for this count, once. */
    if (f->supplied_pending) {
        memcpy(f->counts, f->supplied, (size_t)f->cells * sizeof(uint32_t));
        f->supplied_pending = 0;
    } else {
        nav_field_count_agents(w, f, f->counts);
    }
    /* With the raster of the last build; a build derives it again with
     * its own raster. */
    nav_field_density(f, f->built ? f->cls : NULL);
    if (f->density_cost > 0.0f)
        f->dirty = 1;
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */
/* ------------------------------------------------------------------------ */

static float cell_metres(const nav_field *f, uint64_t t) {
    t &= ~NAV_TAG;
    if (t >= NAV_INF)
        return INFINITY;
    return (float)((double)t / (double)NAV_UNIT * (double)f->cell);
}

void nav_field_distances(const nav_field *f, float *out) {
    uint32_t at[3];
    size_t n = 0u;
    for (at[2] = 0; at[2] < f->size[2]; at[2]++)
        for (at[1] = 0; at[1] < f->size[1]; at[1]++)
            for (at[0] = 0; at[0] < f->size[0]; at[0]++) {
                const size_t c = padded_at(f, at);
                out[n++] = f->cls[c] == NAV_SOLID ? INFINITY
                                                  : cell_metres(f, f->time[c]);
            }
}

/* Whether the cell at field coordinates u (any reals) is SOLID or outside
 * the grid. */
static int blocked_at(const nav_field *f, const double u[3]) {
    uint32_t at[3];
    for (int k = 0; k < 3; k++) {
        if (k >= f->dims) {
            at[k] = 0u;
            continue;
        }
        if (!(u[k] >= 0.0 && u[k] < (double)f->size[k]))
            return 1;
        at[k] = (uint32_t)u[k];
    }
    return f->cls[padded_at(f, at)] == NAV_SOLID;
}

/* Whether direction d from field coordinates u leads into a SOLID cell
 * within half a cell. */
static int leads_into_wall(const nav_field *f, const double u[3],
                           const float d[3]) {
    double ahead[3];
    for (int k = 0; k < 3; k++)
        ahead[k] = u[k] + 0.5 * (double)d[k];
    return blocked_at(f, ahead);
}

/* The unit direction from field coordinates u (in cell `own`) to the
 * centre of the reached cell with the earliest time among own's
 * neighbours (the lowest index on a tie); 0 when none is reached. */
static void towards_earliest(const nav_field *f, const double u[3],
                             const uint32_t own[3], float d[3]) {
    uint64_t best = NAV_INF;
    uint32_t pick[3] = { 0u, 0u, 0u };
    int lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 };
    for (int k = 0; k < f->dims; k++) {
        lo[k] = own[k] > 0u ? -1 : 0;
        hi[k] = own[k] + 1u < f->size[k] ? 1 : 0;
    }
    for (int dz = lo[2]; dz <= hi[2]; dz++)
        for (int dy = lo[1]; dy <= hi[1]; dy++)
            for (int dx = lo[0]; dx <= hi[0]; dx++) {
                const uint32_t at[3] = { (uint32_t)((int64_t)own[0] + dx),
                                         (uint32_t)((int64_t)own[1] + dy),
                                         (uint32_t)((int64_t)own[2] + dz) };
                const size_t c = padded_at(f, at);
                const uint64_t t = f->time[c] & ~NAV_TAG;
                if (f->cls[c] == NAV_SOLID || t >= best)
                    continue;
                best = t;
                memcpy(pick, at, sizeof pick);
            }
    if (best >= NAV_INF)
        return;
    float g[3] = { 0.0f, 0.0f, 0.0f };
    float len2 = 0.0f;
    for (int k = 0; k < f->dims; k++) {
        g[k] = (float)((double)pick[k] + 0.5 - u[k]);
        len2 += g[k] * g[k];
    }
    if (!(len2 > 0.0f))
        return;
    const float inv = 1.0f / sqrtf(len2);
    for (int k = 0; k < f->dims; k++)
        d[k] = g[k] * inv;
}

void nav_field_sample(const nav_field *f, const float p[3], nav_point *out) {
    memset(out, 0, sizeof *out);
    out->distance = INFINITY;
    const int dims = f->dims;
    double u[3] = { 0.0, 0.0, 0.0 };
    uint32_t own[3] = { 0u, 0u, 0u };
    for (int k = 0; k < dims; k++) {
        u[k] = ((double)p[k] - (double)f->origin[k]) / (double)f->cell;
        if (!(u[k] >= 0.0 && u[k] < (double)f->size[k]))
            return;
        own[k] = (uint32_t)u[k];
    }
    out->inside = 1;
    const size_t own_at = padded_at(f, own);
    out->at_goal = f->cls[own_at] == NAV_GOAL;
    /* The cells whose centres surround p, clamped at the grid's edge. */
    uint32_t lo[3] = { 0u, 0u, 0u }, hi[3] = { 0u, 0u, 0u };
    float fr[3] = { 0.0f, 0.0f, 0.0f };
    for (int k = 0; k < dims; k++) {
        double c = u[k] - 0.5;
        const double top = (double)f->size[k] - 1.0;
        c = c > 0.0 ? c : 0.0;
        c = c < top ? c : top;
        uint32_t l = (uint32_t)c;
        if (f->size[k] > 1u && l > f->size[k] - 2u)
            l = f->size[k] - 2u;
        lo[k] = l;
        hi[k] = f->size[k] > 1u ? l + 1u : l;
        fr[k] = f->size[k] > 1u ? (float)(c - (double)l) : 0.0f;
    }
    float dsum[3] = { 0.0f, 0.0f, 0.0f };
    float wsum = 0.0f, tsum = 0.0f, rho = 0.0f, rho_w = 0.0f;
    /* The cell the point is in decides which corners belong: one whose
     * time differs from its time by more than the two cells' steps (a
     * diagonal neighbour's differs by at most about 1.41 step) is on the
     * other side of a wall, reached through a gap a route cannot take,
     * and is left out. */
    const uint64_t own_raw = f->time[own_at] & ~NAV_TAG;
    const int own_reached = f->cls[own_at] != NAV_SOLID && own_raw < NAV_INF;
    const int corners = 1 << dims;
    for (int corner = 0; corner < corners; corner++) {
        uint32_t at[3] = { 0u, 0u, 0u };
        float weight = 1.0f;
        for (int k = 0; k < dims; k++) {
            const int upper = (corner >> k) & 1;
            weight *= upper ? fr[k] : 1.0f - fr[k];
            at[k] = upper ? hi[k] : lo[k];
        }
        const size_t c = padded_at(f, at);
        if (f->cls[c] == NAV_SOLID)
            continue;
        if (f->density_interval) {
            rho += weight *
                   f->density[at[0] + (size_t)f->size[0] *
                                          (at[1] + (size_t)f->size[1] * at[2])];
            rho_w += weight;
        }
        const uint64_t t = f->time[c] & ~NAV_TAG;
        if (t >= NAV_INF)
            continue;
        if (own_reached) {
            const uint64_t reach = (uint64_t)f->step[c] + f->step[own_at];
            if (t > own_raw + reach || own_raw > t + reach)
                continue;
        }
        const float *d = f->dir + (size_t)dims * c;
        for (int k = 0; k < dims; k++)
            dsum[k] += weight * d[k];
        tsum += weight * cell_metres(f, t);
        wsum += weight;
    }
    out->density = rho_w > 0.0f ? rho / rho_w : 0.0f;
    const uint64_t own_t = own_raw;
    if (wsum > 0.0f)
        out->distance = tsum / wsum;
    else if (own_reached)
        out->distance = cell_metres(f, own_t);
    if (out->at_goal) {
        out->distance = 0.0f;
        return;
    }
    float len2 = 0.0f;
    for (int k = 0; k < dims; k++)
        len2 += dsum[k] * dsum[k];
    float d[3] = { 0.0f, 0.0f, 0.0f };
    if (len2 > 0.0f) {
        const float inv = 1.0f / sqrtf(len2);
        for (int k = 0; k < dims; k++)
            d[k] = dsum[k] * inv;
    }
    if (len2 > 0.0f && !leads_into_wall(f, u, d)) {
        memcpy(out->dir, d, sizeof d);
        return;
    }
    /* The cell's own direction, then its stronger axis alone. A point
     * in an impassable cell (a body pressed against a wall stands in
     * the wall's cells) or an unreached one heads for the centre of the
     * earliest reached cell round it, out of the wall's cells. */
    if (f->cls[own_at] == NAV_SOLID || own_t >= NAV_INF) {
        towards_earliest(f, u, own, out->dir);
        return;
    }
    const float *own_d = f->dir + (size_t)dims * own_at;
    if (!leads_into_wall(f, u, own_d)) {
        memcpy(out->dir, own_d, (size_t)dims * sizeof(float));
        return;
    }
    int best = 0;
    for (int k = 1; k < dims; k++)
        if (fabsf(own_d[k]) > fabsf(own_d[best]))
            best = k;
    if (own_d[best] != 0.0f)
        out->dir[best] = own_d[best] > 0.0f ? 1.0f : -1.0f;
}

uint32_t nav_field_nearest_goal(const nav_field *f, const float p[3]) {
    double q[3];
    point_of(p, q);
    uint32_t best = 0u;
    double best_d = HUGE_VAL;
    for (uint32_t i = 0; i < f->goal_count; i++) {
        const throng_nav_goal *g = &f->goals[i];
        double a[3], b[3], d;
        point_of(g->a, a);
        point_of(g->b, b);
        if (g->kind == THRONG_NAV_GOAL_BOX) {
            d = box_distance(q, a, b, f->dims);
        } else if (g->kind == THRONG_NAV_GOAL_SEGMENT) {
            double e[3], len2 = 0.0, t = 0.0;
            for (int k = 0; k < f->dims; k++) {
                e[k] = b[k] - a[k];
                len2 += e[k] * e[k];
                t += (q[k] - a[k]) * e[k];
            }
            t = len2 > 0.0 ? t / len2 : 0.0;
            t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
            double d2 = 0.0;
            for (int k = 0; k < f->dims; k++) {
                const double x = q[k] - (a[k] + t * e[k]);
                d2 += x * x;
            }
            d = sqrt(d2);
        } else {
            d = box_distance(q, a, a, f->dims);
        }
        if (d < best_d) {
            best_d = d;
            best = i;
        }
    }
    return best;
}
