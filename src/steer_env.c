/* SPDX-License-Identifier: MIT */
/*
 * Obstacles and walls and the behaviours that keep agents clear of them:
 * obstacle avoidance, containment, wall following. The grid that indexes
 * the objects is obstacle_grid.c's; the kernels walk it with its cursor.
 *
 * The shape tests run in double. Coordinates are any finite floats, and
 * the difference or square of two of them can overflow a float but not a
 * double, so no input, however far out, produces infinity or NaN.
 */
#include "steer_env.h"
#include "behaviour.h"
#include "busy.h"
#include "detmath.h"
#include "geometry.h"
#include "obstacle_grid.h"

#include <float.h>
#include <math.h>
#include <string.h>

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
    float vdf[3] = { (float)vd[0], (float)vd[1], (float)vd[2] };
    steer_force(a, vdf, F);
    return 1;
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
    double left[3] = { -d[1], d[0], 0.0 };
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
    double m[3] = { p[0] - c[0], p[1] - c[1], p[2] - c[2] };
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

/* The box object o, [a, b], grown by the radius R into [lo, hi]: how deep
 * p lies inside the grown box (> 0 inside), and, when out is not NULL,
 * the outward direction to leave the real box by: away from its nearest
 * point, or, inside it, through its nearest face. */
static double env_box_inside(const geo_object *o, double R, const double p[3],
                             int dims, double lo[3], double hi[3],
                             double out[3]) {
    double a[3], b[3];
    env_load(o->a, a);
    env_load(o->b, b);
    for (int k = 0; k < 3; k++) {
        lo[k] = a[k] - R;
        hi[k] = b[k] + R;
    }
    double depth = DBL_MAX;
    for (int k = 0; k < dims; k++) {
        double d0 = p[k] - lo[k], d1 = hi[k] - p[k];
        double d = d0 < d1 ? d0 : d1;
        depth = d < depth ? d : depth;
    }
    if (!(depth > 0.0) || !out)
        return depth;
    double off[3] = { 0.0, 0.0, 0.0 };
    for (int k = 0; k < dims; k++) {
        double q = p[k] < a[k] ? a[k] : p[k] > b[k] ? b[k] : p[k];
        off[k] = p[k] - q;
    }
    if (env_unit(off, out))
        return depth;
    double nearest = DBL_MAX;
    for (int k = 0; k < dims; k++) {
        double faces[2] = { p[k] - a[k], b[k] - p[k] };
        for (int side = 0; side < 2; side++)
            if (faces[side] < nearest) {
                nearest = faces[side];
                out[0] = out[1] = out[2] = 0.0;
                out[k] = side ? 1.0 : -1.0;
            }
    }
    return depth;
}

/* The corridor of an agent at p, heading f at velocity v, of radius R,
 * for avoidance b: its length L (returned) and its bounds [lo, hi], the
 * segment p .. p + L f grown by R. */
static inline __attribute__((always_inline)) double
env_corridor(const throng_behaviour *b, const double p[3], const double v[3],
             const double f[3], double R, double lo[3], double hi[3]) {
    const double L = (double)b->u.avoid.min_length +
                     sqrt(env_dot(v, v)) * (double)b->u.avoid.lookahead_time;
    /* Two selects, each of the form of one minimum or maximum
     * instruction, rather than a branch on the heading's sign; the
     * second is (p < e ? e : p) for the finite p and e here. */
    for (int k = 0; k < 3; k++) {
        const double e = p[k] + L * f[k];
        const double low = p[k] < e ? p[k] : e;
        const double high = p[k] >= e ? p[k] : e;
        lo[k] = low - R;
        hi[k] = high + R;
    }
    return L;
}

/* An obstacle is a candidate for an agent exactly when its bounds
 * (env_obstacle_bounds) overlap the agent's corridor box
 * (geo_box_overlap): a criterion that does not depend on which cells were
 * visited, so every way of gathering the candidates sees the same set,
 * and one that never drops an obstacle the agent is inside of or whose
 * grown shape the corridor's ray meets: those lie within R of a point of
 * the segment. */

/* The nearest threat ahead and the deepest overlap so far. */
typedef struct env_threats {
    uint32_t hit, inside;
    double hit_t, depth;
} env_threats;

/* Tests candidate obstacle i (a sphere or a box) against the agent at p
 * heading f with radius R and look-ahead L. The nearest hit and the
 * deepest overlap win, ties to the lower id, so the order in which the
 * candidates come (and whether one comes twice) changes nothing. */
static inline __attribute__((always_inline)) void
env_avoid_test(const geo_object *o, uint32_t i, const double p[3],
               const double f[3], double R, double L, int dims,
               env_threats *th) {
    double t, d;
    if (o->kind == GEO_SPHERE) {
        double c[3];
        env_load(o->a, c);
        double rr = (double)o->r + R;
        double m[3] = { p[0] - c[0], p[1] - c[1], p[2] - c[2] };
        d = rr - sqrt(env_dot(m, m));
        t = d > 0.0 ? -1.0 : env_ray_sphere(p, f, c, rr);
    } else {
        double glo[3], ghi[3];
        d = env_box_inside(o, R, p, dims, glo, ghi, NULL);
        t = d > 0.0 ? -1.0 : env_ray_box(p, f, glo, ghi, dims);
    }
    if (d > 0.0 && (d > th->depth || (d == th->depth && i < th->inside))) {
        th->depth = d;
        th->inside = i;
    }
    if (t >= 0.0 && t <= L &&
        (t < th->hit_t || (t == th->hit_t && i < th->hit))) {
        th->hit_t = t;
        th->hit = i;
    }
}

/* The union of row t's avoidance corridors, grown into [lo, hi] when
 * `have`, else written there; returns whether the row has any. A row
 * whose group lists one avoidance keeps its corridor in the run's slot
 * `u`, as env_avoid would compute it for that row. */
static int env_row_corridors(env_run *run, const throng_world *w, uint32_t t,
                             uint32_t u, double lo[3], double hi[3], int have) {
    const group_record *g = &w->groups[w->col.group[t]];
    int any = 0;
    double p[3], v[3], f[3], R = 0.0;
    run->row_b[u] = NULL;
    for (uint32_t j = 0; j < g->behaviour_count; j++) {
        const throng_behaviour *b = &g->behaviours[j];
        if (b->kind != THRONG_BEHAVIOUR_AVOID_OBSTACLES)
            continue;
        if (!any) {
            /* As steer_load_frame reads them (z is 0 in 2D). */
            const agent_columns *c = &w->col;
            const int three = w->dims == 3;
            p[0] = (double)c->px[t];
            p[1] = (double)c->py[t];
            p[2] = three ? (double)c->pz[t] : 0.0;
            v[0] = (double)c->vx[t];
            v[1] = (double)c->vy[t];
            v[2] = three ? (double)c->vz[t] : 0.0;
            f[0] = (double)c->fx[t];
            f[1] = (double)c->fy[t];
            f[2] = three ? (double)c->fz[t] : 0.0;
            R = (double)c->radius[t];
        }
        double blo[3], bhi[3];
        const double L = env_corridor(b, p, v, f, R, blo, bhi);
        run->row_b[u] = any ? NULL : b;
        run->row_L[u] = L;
        run->row_R[u] = R;
        for (int k = 0; k < 3; k++) {
            run->row_p[k][u] = p[k];
            run->row_f[k][u] = f[k];
            run->row_lo[k][u] = blo[k];
            run->row_hi[k][u] = bhi[k];
            const double low = lo[k] < blo[k] ? lo[k] : blo[k];
            const double high = hi[k] > bhi[k] ? hi[k] : bhi[k];
            lo[k] = have ? low : blo[k];
            hi[k] = have ? high : bhi[k];
        }
        any = have = 1;
    }
    return any;
}

/* Tests the rows of the run's group on a vector path's lanes. The rows
 * that did not keep their corridor (and those after the group, up to a
 * whole block) get an empty one, which overlaps no candidate, so every
 * lane computes on defined numbers. */
static void env_run_lanes(env_run *run, env_lanes_fn lanes) {
    const uint32_t rows = run->stop - run->first;
    const uint32_t padded =
        (rows + ENV_LANE_BLOCK - 1u) / ENV_LANE_BLOCK * ENV_LANE_BLOCK;
    for (uint32_t u = 0; u < padded; u++) {
        if (u < rows && run->row_b[u])
            continue;
        run->row_L[u] = 0.0;
        run->row_R[u] = 0.0;
        for (int k = 0; k < 3; k++) {
            run->row_p[k][u] = 0.0;
            run->row_f[k][u] = 0.0;
            run->row_lo[k][u] = (double)INFINITY;
            run->row_hi[k][u] = -(double)INFINITY;
        }
    }
    lanes(run, padded);
    run->tested = 1;
}

void steer_env_run_begin(env_run *run, uint32_t begin, uint32_t end) {
    run->begin = begin;
    run->end = end;
    run->first = run->stop = begin;
    run->usable = 0;
    run->tested = 0;
    run->count = 0;
}

/* Starts the run's next group at row `from`: takes the rows after it
 * while the union of their corridors stays within ENV_RUN_SPAN cells
 * (and ENV_RUN_ROWS rows), then gathers the obstacles whose bounds
 * overlap the union, once each, ascending. A group near more than
 * ENV_RUN_CAPACITY of them is left unusable: its rows query alone. */
static void env_run_fill(env_run *run, const throng_world *w, uint32_t from) {
    const geometry *geo = w->geo;
    const geo_grid *gg = &geo->grid;
    const int dims = w->dims;
    const int current = gg->built && gg->version == geo->version;
    /* A stale grid means a scan of every object per query: then one
     * query for as many rows as fit. */
    const double span = current ? ENV_RUN_SPAN * gg->cell : DBL_MAX;
    const uint32_t last =
        run->end - from > ENV_RUN_ROWS ? from + ENV_RUN_ROWS : run->end;
    run->first = from;
    run->usable = 0;
    run->tested = 0;
    run->count = 0;
    /* A row with no other avoiding row after it has nothing to share:
     * it queries alone (scenes that mix many groups mostly look so). */
    uint32_t next = from + 1u;
    while (next < last && !w->group_params[w->col.group[next]].avoid_obstacles)
        next++;
    if (next == last) {
        run->row_b[0] = NULL;
        run->stop = from + 1u;
        return;
    }
    int have = env_row_corridors(run, w, from, 0, run->lo, run->hi, 0);
    uint32_t avoiders = have ? 1u : 0u;
    uint32_t t = from + 1u;
    for (; t < last; t++) {
        if (!w->group_params[w->col.group[t]].avoid_obstacles) {
            run->row_b[t - from] = NULL;
            continue;
        }
        double lo[3], hi[3];
        memcpy(lo, run->lo, sizeof lo);
        memcpy(hi, run->hi, sizeof hi);
        if (!env_row_corridors(run, w, t, t - from, lo, hi, have))
            continue;
        int wide = 0;
        for (int k = 0; k < dims; k++)
            wide |= !(hi[k] - lo[k] <= span);
        if (wide && have)
            break; /* row t starts the next group */
        memcpy(run->lo, lo, sizeof lo);
        memcpy(run->hi, hi, sizeof hi);
        have = 1;
        avoiders++;
    }
    run->stop = t;
    /* One avoiding row has nothing to share: it queries alone. */
    if (avoiders < 2u)
        return;

    const uint32_t n =
        env_obstacles_in_box(w, run->lo, run->hi, run->id, ENV_RUN_CAPACITY);
    if (n > ENV_RUN_CAPACITY)
        return;
    int spheres = 1;
    for (uint32_t j = 0; j < n; j++) {
        double olo[3], ohi[3];
        env_obstacle_bounds(geo, run->id[j], olo, ohi);
        const geo_object *o = &geo->objects[run->id[j]];
        spheres &= o->kind == GEO_SPHERE;
        for (int k = 0; k < 3; k++) {
            run->blo[k][j] = olo[k];
            run->bhi[k][j] = ohi[k];
            run->centre[k][j] = (double)o->a[k];
        }
        run->radius[j] = (double)o->r;
    }
    run->count = n;
    run->usable = 1;
    run->spheres = spheres;
    run->three = dims == 3;
    if (spheres && w->env_lanes)
        env_run_lanes(run, w->env_lanes);
}

void steer_env_run_test(const throng_world *w, env_run *run, uint32_t from,
                        uint32_t to) {
    const geometry *geo = w->geo;
    const int dims = w->dims;
    for (uint32_t u = from; u < to; u++) {
        env_threats th = { UINT32_MAX, UINT32_MAX, DBL_MAX, 0.0 };
        const double p[3] = { run->row_p[0][u], run->row_p[1][u],
                              run->row_p[2][u] };
        const double f[3] = { run->row_f[0][u], run->row_f[1][u],
                              run->row_f[2][u] };
        for (uint32_t j = 0; j < run->count; j++) {
            int in = 1;
            for (int k = 0; k < dims; k++)
                in &= (run->blo[k][j] <= run->row_hi[k][u]) &
                      (run->bhi[k][j] >= run->row_lo[k][u]);
            if (in)
                env_avoid_test(&geo->objects[run->id[j]], run->id[j], p, f,
                               run->row_R[u], run->row_L[u], dims, &th);
        }
        run->row_hit[u] = th.hit;
        run->row_inside[u] = th.inside;
    }
}

static int env_avoid(const steer_ctx *a, const throng_behaviour *b,
                     env_run *run, float F[3]) {
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
    const double s_t = (double)b->speed_factor * (double)a->max_speed;

    /* The run's group that holds the row: the corridor the fill
     * computed, and the candidates it gathered, when it did. */
    const uint32_t row = a->row;
    if (run && (row < run->begin || row >= run->end))
        run = NULL;
    if (run && (row < run->first || row >= run->stop))
        env_run_fill(run, w, row);
    int shared = run && run->usable;
    double lo[3], hi[3], L;
    const uint32_t slot = run ? row - run->first : 0;
    if (run && run->row_b[slot] == b) {
        /* The fill computed this very corridor (from the same columns
         * the context was loaded from). */
        L = run->row_L[slot];
        for (int k = 0; k < 3; k++) {
            lo[k] = run->row_lo[k][slot];
            hi[k] = run->row_hi[k][slot];
        }
    } else {
        L = env_corridor(b, p, v, f, R, lo, hi);
        /* A box outside the union (a behaviour the fill did not see)
         * queries alone. */
        for (int k = 0; k < dims && shared; k++)
            if (!(lo[k] >= run->lo[k] && hi[k] <= run->hi[k]))
                shared = 0;
    }

    /* The nearest threat ahead, and the deepest overlap, if any, among
     * the obstacles whose bounds overlap the corridor's. */
    env_threats th = { UINT32_MAX, UINT32_MAX, DBL_MAX, 0.0 };
    if (shared && run->tested && run->row_b[slot] == b) {
        /* The vector path tested this very corridor already. */
        th.hit = run->row_hit[slot];
        th.inside = run->row_inside[slot];
    } else if (shared) {
        const uint32_t n = run->count;
        /* Screen the candidates by bounds without a branch per
         * candidate (which way it goes is a coin toss), then test the
         * few that overlap. */
        const double *blo0 = run->blo[0], *blo1 = run->blo[1],
                     *blo2 = run->blo[2];
        const double *bhi0 = run->bhi[0], *bhi1 = run->bhi[1],
                     *bhi2 = run->bhi[2];
        uint32_t sel[ENV_RUN_CAPACITY], m = 0;
        if (dims == 2)
            for (uint32_t j = 0; j < n; j++) {
                int in = (blo0[j] <= hi[0]) & (bhi0[j] >= lo[0]) &
                         (blo1[j] <= hi[1]) & (bhi1[j] >= lo[1]);
                sel[m] = j;
                m += (uint32_t)in;
            }
        else
            for (uint32_t j = 0; j < n; j++) {
                int in = (blo0[j] <= hi[0]) & (bhi0[j] >= lo[0]) &
                         (blo1[j] <= hi[1]) & (bhi1[j] >= lo[1]) &
                         (blo2[j] <= hi[2]) & (bhi2[j] >= lo[2]);
                sel[m] = j;
                m += (uint32_t)in;
            }
        for (uint32_t s = 0; s < m; s++) {
            const uint32_t i = run->id[sel[s]];
            env_avoid_test(&geo->objects[i], i, p, f, R, L, dims, &th);
        }
    } else {
        env_cursor q;
        env_cursor_begin(&q, w, lo, hi, 0);
        uint32_t i;
        while (env_cursor_next(&q, &i)) {
            double olo[3], ohi[3];
            env_obstacle_bounds(geo, i, olo, ohi);
            if (geo_box_overlap(olo, ohi, lo, hi, dims))
                env_avoid_test(&geo->objects[i], i, p, f, R, L, dims, &th);
        }
    }
    const uint32_t hit = th.hit, inside = th.inside;

    double vd[3];
    if (inside != UINT32_MAX) {
        /* Already overlapping: leave by the nearest way out. */
        const geo_object *o = &geo->objects[inside];
        double out[3];
        if (o->kind == GEO_SPHERE) {
            double c[3];
            env_load(o->a, c);
            double m[3] = { p[0] - c[0], p[1] - c[1], p[2] - c[2] };
            if (!env_unit(m, out))
                memcpy(out, side, sizeof out);
        } else {
            double glo[3], ghi[3];
            env_box_inside(o, R, p, dims, glo, ghi, out);
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
    double m[3] = { p[0] - c[0], p[1] - c[1], p[2] - c[2] };
    double along = env_dot(m, f);
    double lateral[3], u[3];
    for (int k = 0; k < 3; k++)
        lateral[k] = m[k] - along * f[k];
    /* env_unit(lateral) would divide by this very length, > 0 here. */
    double lat = sqrt(env_dot(lateral, lateral));
    if (lat > ENV_DEAD_AHEAD * sqrt(env_dot(m, m)))
        for (int k = 0; k < 3; k++)
            u[k] = lateral[k] / lat;
    else
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
static int env_wall(const geo_object *o, const double p[3], const double v[3],
                    double *dist, double n[3]) {
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

uint32_t steer_env_contain_walled(const throng_world *w,
                                  const throng_behaviour *b, uint32_t first,
                                  const int32_t *rows, uint32_t n,
                                  uint32_t want) {
    const throng_contain_params *c = &b->u.contain;
    const geometry *geo = w->geo;
    if (!c->use_walls || !geo || geo->live == 0 || !want)
        return 0;
    const double range = (double)c->range;
    const agent_columns *col = &w->col;
    const int three = w->dims == 3;
    double p[ENV_BLOCK_ROWS][3], v[ENV_BLOCK_ROWS][3];
    double lo[3] = { DBL_MAX, DBL_MAX, DBL_MAX };
    double hi[3] = { -DBL_MAX, -DBL_MAX, -DBL_MAX };
    for (uint32_t u = 0; u < n; u++) {
        if (!((want >> u) & 1u))
            continue;
        const uint32_t t = rows ? (uint32_t)rows[u] : first + u;
        /* As steer_ctx_load() and env_contain() load them. */
        p[u][0] = (double)col->px[t];
        p[u][1] = (double)col->py[t];
        p[u][2] = three ? (double)col->pz[t] : 0.0;
        v[u][0] = (double)col->vx[t];
        v[u][1] = (double)col->vy[t];
        v[u][2] = three ? (double)col->vz[t] : 0.0;
        for (int k = 0; k < 3; k++) {
            const double l = p[u][k] - range, h = p[u][k] + range;
            lo[k] = l < lo[k] ? l : lo[k];
            hi[k] = h > hi[k] ? h : hi[k];
        }
    }
    /* Every wall the union's cells list and every plane: a superset of
     * each row's own, tested by the row's own rule. */
    uint32_t walled = 0;
    env_cursor q;
    env_cursor_begin(&q, w, lo, hi, 1);
    uint32_t i;
    while (walled != want && env_cursor_next(&q, &i)) {
        const geo_object *o = &geo->objects[i];
        for (uint32_t left = want & ~walled; left; left &= left - 1u) {
            const uint32_t u = (uint32_t)__builtin_ctz(left);
            double dist, nrm[3];
            if (env_wall(o, p[u], v[u], &dist, nrm) && dist < range)
                walled |= 1u << u;
        }
    }
    return walled;
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
        if (dist < best_d ||
            (dist == best_d && best != UINT32_MAX && i < best)) {
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
        double d[3] = { (double)o->b[0] - (double)o->a[0],
                        (double)o->b[1] - (double)o->a[1], 0.0 };
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
        const double *tries[3] = { move, side, up };
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
    double x[3], u[3], vd[3] = { 0.0, 0.0, 0.0 };
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

int steer_env_force_run(const steer_ctx *a, const throng_behaviour *b,
                        env_run *run, float F[3]) {
    F[0] = F[1] = F[2] = 0.0f;
    switch (b->kind) {
    case THRONG_BEHAVIOUR_AVOID_OBSTACLES:
        return env_avoid(a, b, run, F);
    case THRONG_BEHAVIOUR_CONTAIN:
        return env_contain(a, b, F);
    case THRONG_BEHAVIOUR_FOLLOW_WALL:
        return env_follow_wall(a, b, F);
    default:
        return 0;
    }
}

int steer_env_force(const steer_ctx *a, const throng_behaviour *b, float F[3]) {
    return steer_env_force_run(a, b, NULL, F);
}
