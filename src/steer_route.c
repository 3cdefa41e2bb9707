/* SPDX-License-Identifier: MIT */
/*
 * Paths and flow fields, and the behaviours that follow them: patrol, path
 * following, flow-field following; and navigation field following.
 *
 * A path is one heap block: its points (3 floats each, z = 0 in 2D) and
 * the cumulative length at each point, so "a point so many metres further
 * along" is a binary search rather than a walk over every segment. A flow
 * field is one block of vectors, `dims` floats each, x fastest. Both are
 * checked in full (geo_object_check, which loading a snapshot shares)
 * before the object table is touched, so a refusal leaves the world as it
 * was.
 *
 * The kernels read the object and their own agent only, and write only
 * their own agent's force and progress. Path following searches a short
 * window of segments from the agent's progress onwards, in path order, so
 * at a self-crossing the agent keeps to the branch it is on instead of
 * jumping to whichever branch happens to be nearer.
 */
#include "steer_route.h"
#include "behaviour.h"
#include "busy.h"
#include "detmath.h"
#include "geometry.h"
#include "nav_field.h"
#include "steer_agent.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Kernels                                                                  */
/* ------------------------------------------------------------------------ */

static float dot3(const float x[3], const float y[3]) {
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
}

/* The agent's own progress column, or NULL before any behaviour state
 * exists (then progress reads as 0 and is not stored). */
static uint32_t *progress_column(const steer_ctx *a) {
    return a->w->behaviour_state ? a->w->col.progress : NULL;
}

static int patrol_force(const steer_ctx *a, const throng_path_params *pp,
                        float speed, float F[3]) {
    const geo_object *o = geo_lookup(a->w, pp->path, GEO_MASK(GEO_PATH));
    if (!o)
        return 0;
    uint32_t *progress = progress_column(a);
    const uint32_t last = o->count - 1u;
    uint32_t next = progress ? progress[a->row] : 0u;
    uint32_t at = next < last ? next : last;
    float d[3];
    steer_offset(a->w, a->p, o->points + 3u * (size_t)at, d);
    if (dot3(d, d) <= pp->reach * pp->reach) {
        /* Reached: head for the next checkpoint this very step, so the
         * agent does not brake for one. Past the last point of a patrol
         * that does not loop, progress reads `count` (done) and the agent
         * holds the last point. */
        uint32_t after = at < last ? at + 1u : (pp->loop ? 0u : o->count);
        if (progress)
            progress[a->row] = after;
        if (after <= last) {
            at = after;
            steer_offset(a->w, a->p, o->points + 3u * (size_t)at, d);
        }
    }
    return steer_arrive(a, d, speed, pp->braking_distance, THRONG_ARRIVE_SMOOTH,
                        F);
}

/* Point `s` metres along the path (0 <= s <= the path's length). */
static void path_point_at(const geo_object *o, float s, float out[3]) {
    const uint32_t segments = o->closed ? o->count : o->count - 1u;
    /* The last segment whose start is at or before s. */
    uint32_t lo = 0u, hi = segments - 1u;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1u) / 2u;
        if (o->length_at[mid] <= s)
            lo = mid;
        else
            hi = mid - 1u;
    }
    const uint32_t j = lo + 1u < o->count ? lo + 1u : 0u;
    const float *A = o->points + 3u * (size_t)lo;
    const float *B = o->points + 3u * (size_t)j;
    /* Float sums can make a tiny segment's cumulative lengths equal. */
    float len = o->length_at[lo + 1u] - o->length_at[lo];
    float u = len > 0.0f ? (s - o->length_at[lo]) / len : 0.0f;
    u = u > 0.0f ? u : 0.0f;
    u = u < 1.0f ? u : 1.0f;
    for (int k = 0; k < 3; k++)
        out[k] = A[k] + u * (B[k] - A[k]);
}

static int follow_path_force(const steer_ctx *a, const throng_path_params *pp,
                             float speed, float F[3]) {
    const geo_object *o = geo_lookup(a->w, pp->path, GEO_MASK(GEO_PATH));
    if (!o)
        return 0;
    uint32_t *progress = progress_column(a);
    const uint32_t segments = o->closed ? o->count : o->count - 1u;
    uint32_t first = progress ? progress[a->row] : 0u;
    first = first < segments ? first : segments - 1u;
    const uint32_t window = pp->window < segments ? pp->window : segments;
    float q[3];
    for (int k = 0; k < 3; k++)
        q[k] = a->p[k] + a->v[k] * pp->prediction_time;

    /* The nearest point to q on the window's segments, in path order; a
     * later segment wins only when strictly nearer. Every agent of a
     * crowd runs this, so it is written out in scalars, with the offset
     * (steer_offset's operations) inline outside a periodic box. */
    const int periodic = a->w->boundary == THRONG_BOUNDARY_PERIODIC;
    const int dims = a->w->dims;
    uint32_t best = first;
    float best_t = 0.0f, best_d2 = 0.0f;
    for (uint32_t i = 0; i < window; i++) {
        uint32_t s = first + i;
        if (s >= segments) {
            if (!o->closed)
                break;
            s -= segments;
        }
        const float *A = o->points + 3u * (size_t)s;
        const float *B =
            o->points + 3u * (size_t)(s + 1u < o->count ? s + 1u : 0u);
        const float abx = B[0] - A[0], aby = B[1] - A[1], abz = B[2] - A[2];
        float aqx, aqy, aqz;
        if (periodic) {
            float aq[3];
            steer_offset(a->w, A, q, aq);
            aqx = aq[0];
            aqy = aq[1];
            aqz = aq[2];
        } else {
            aqx = q[0] - A[0];
            aqy = q[1] - A[1];
            aqz = dims == 3 ? q[2] - A[2] : 0.0f;
        }
        float t = (aqx * abx + aqy * aby + aqz * abz) /
                  (abx * abx + aby * aby + abz * abz);
        t = t > 0.0f ? t : 0.0f; /* also turns an overflow's NaN into 0 */
        t = t < 1.0f ? t : 1.0f;
        const float ox = aqx - t * abx, oy = aqy - t * aby, oz = aqz - t * abz;
        const float d2 = ox * ox + oy * oy + oz * oz;
        if (i == 0u || d2 < best_d2) {
            best = s;
            best_t = t;
            best_d2 = d2;
        }
    }
    if (progress)
        progress[a->row] = best;
    if (!(best_d2 > o->r * o->r))
        return 0; /* inside the corridor */

    /* Seek the point `ahead` metres further along from the nearest one:
     * clamped to the end of an open path (so past its end the agent seeks
     * the last point), wrapped round a closed one. */
    const float total = o->length_at[segments];
    float seg = o->length_at[best + 1u] - o->length_at[best];
    float s = o->length_at[best] + best_t * seg + pp->ahead;
    if (o->closed) {
        s = fmodf(s, total);
        s = s > 0.0f ? s : 0.0f;
    } else if (s > total) {
        s = total;
    }
    float target[3], d[3], vd[3];
    path_point_at(o, s, target);
    steer_offset(a->w, a->p, target, d);
    flock_desired_towards(d, speed, vd);
    steer_force(a, vd, F);
    return 1;
}

/* One axis of the field: the lower grid index, the upper one and the
 * weight of the upper one for coordinate x, clamped to the field. */
static void flow_axis(float x, float origin, float cell, uint32_t n,
                      uint32_t *i0, uint32_t *i1, float *frac) {
    /* In double: indices up to 2^26 are not all floats. */
    double u = ((double)x - (double)origin) / (double)cell;
    double top = (double)(n - 1u);
    u = u > 0.0 ? u : 0.0;
    u = u < top ? u : top;
    uint32_t lo = (uint32_t)u;
    if (n > 1u && lo > n - 2u)
        lo = n - 2u;
    *i0 = lo;
    *i1 = n > 1u ? lo + 1u : lo;
    *frac = n > 1u ? (float)(u - (double)lo) : 0.0f;
}

/* The field at q: bilinear in 2D, trilinear in 3D, clamped at the edges. */
static void flow_sample(const geo_object *o, int dims, const float q[3],
                        float out[3]) {
    uint32_t lo[3] = { 0u, 0u, 0u }, hi[3] = { 0u, 0u, 0u };
    float fr[3] = { 0.0f, 0.0f, 0.0f };
    for (int k = 0; k < dims; k++)
        flow_axis(q[k], o->origin[k], o->cell, o->size[k], &lo[k], &hi[k],
                  &fr[k]);
    out[0] = out[1] = out[2] = 0.0f;
    const int corners = 1 << dims;
    for (int c = 0; c < corners; c++) {
        float weight = 1.0f;
        size_t index = 0u;
        for (int k = dims - 1; k >= 0; k--) {
            int upper = (c >> k) & 1;
            weight *= upper ? fr[k] : 1.0f - fr[k];
            index = index * o->size[k] + (upper ? hi[k] : lo[k]);
        }
        const float *vec = o->vectors + index * (size_t)dims;
        for (int k = 0; k < dims; k++)
            out[k] += weight * vec[k];
    }
}

static int follow_flow_force(const steer_ctx *a, const throng_flow_params *fp,
                             float speed, float F[3]) {
    const geo_object *o = geo_lookup(a->w, fp->field, GEO_MASK(GEO_FLOW));
    if (!o)
        return 0;
    float q[3], sample[3], vd[3];
    for (int k = 0; k < 3; k++)
        q[k] = a->p[k] + a->v[k] * fp->prediction_time;
    flow_sample(o, a->dims, q, sample);
    if (sample[0] == 0.0f && sample[1] == 0.0f && sample[2] == 0.0f)
        return 0; /* no direction to follow */
    if (fp->raw)
        memcpy(vd, sample, sizeof vd);
    else
        flock_desired_towards(sample, speed, vd);
    steer_force(a, vd, F);
    return 1;
}

/* Weidmann's fundamental diagram as a share of the free speed at density
 * rho: 1 - exp(-gamma (1 / rho - 1 / rho_jam)), 1 with nobody counted, 0
 * at the jam density and above. In double, with the library's own
 * exponential, so every machine gets the same bits. */
static float weidmann_share(float rho, float jam, float gamma) {
    if (!(rho > 0.0f))
        return 1.0f;
    if (rho >= jam)
        return 0.0f;
    const double x = -(double)gamma * (1.0 / (double)rho - 1.0 / (double)jam);
    return (float)(1.0 - detmath_exp(x));
}

/* Follows the agent's own navigation field, else the behaviour's; marks
 * its arrival in its slot's navigation state (the only state it writes:
 * its own slot's). */
static int follow_nav_force(const steer_ctx *a, const throng_nav_params *np,
                            float speed, float F[3]) {
    const throng_world *w = a->w;
    slot_nav *st = w->slot_nav ? &w->slot_nav[w->col.slot[a->row]] : NULL;
    const float stop[3] = { 0.0f, 0.0f, 0.0f };
    if (st && st->state != SLOT_NAV_GOING) {
        /* Arrived: brought to a stop, where it stays. */
        steer_force(a, stop, F);
        return 1;
    }
    const geo_object *o = NULL;
    throng_object used = np->field;
    if (st && st->field_id) {
        const throng_object own = { st->field_id, st->field_gen, w->id };
        o = geo_lookup(w, own, GEO_MASK(GEO_NAV));
        if (o)
            used = own;
    }
    if (!o)
        o = geo_lookup(w, np->field, GEO_MASK(GEO_NAV));
    if (!o || !o->nav->built)
        return 0;
    nav_point s;
    nav_field_sample(o->nav, a->p, &s);
    if (!s.inside)
        return 0;
    if (st && (s.at_goal || s.distance <= np->arrival_distance)) {
        st->state = SLOT_NAV_ARRIVING;
        st->goal = nav_field_nearest_goal(o->nav, a->p);
        st->arrived_id = used.id;
        st->arrived_gen = used.generation;
        st->remove = np->remove ? 1u : 0u;
        steer_force(a, stop, F);
        return 1;
    }
    if (s.dir[0] == 0.0f && s.dir[1] == 0.0f && s.dir[2] == 0.0f)
        return 0;
    float target = speed;
    if (np->jam_density > 0.0f) {
        /* The density ahead, where the agent is going. */
        float rho = s.density;
        if (np->lookahead > 0.0f) {
            float q[3];
            for (int k = 0; k < 3; k++)
                q[k] = a->p[k] + np->lookahead * s.dir[k];
            nav_point ahead;
            nav_field_sample(o->nav, q, &ahead);
            rho = ahead.inside ? ahead.density : s.density;
        }
        target *= weidmann_share(rho, np->jam_density, np->speed_gamma);
    }
    float vd[3];
    for (int k = 0; k < 3; k++)
        vd[k] = s.dir[k] * target;
    steer_force(a, vd, F);
    return 1;
}

int steer_route_force(const steer_ctx *a, const throng_behaviour *b,
                      float F[3]) {
    const float speed = b->speed_factor * a->max_speed;
    int on = 0;
    F[0] = F[1] = F[2] = 0.0f;
    switch (b->kind) {
    case THRONG_BEHAVIOUR_PATROL:
        on = patrol_force(a, &b->u.path, speed, F);
        break;
    case THRONG_BEHAVIOUR_FOLLOW_PATH:
        on = follow_path_force(a, &b->u.path, speed, F);
        break;
    case THRONG_BEHAVIOUR_FOLLOW_FLOW:
        on = follow_flow_force(a, &b->u.flow, speed, F);
        break;
    case THRONG_BEHAVIOUR_FOLLOW_NAV:
        on = follow_nav_force(a, &b->u.nav, speed, F);
        break;
    default:
        break;
    }
    /* Only an overflow of extreme (finite) inputs could get here; a quiet
     * behaviour is the defined answer, never a NaN in the force. */
    if (on && !(is_finite_float(F[0]) && is_finite_float(F[1]) &&
                is_finite_float(F[2]))) {
        F[0] = F[1] = F[2] = 0.0f;
        on = 0;
    }
    return on;
}
