/*
 * ORCA's constraints from static objects: spheres (circles in 2D), boxes,
 * wall segments and planes near an agent, each a hard constraint the
 * linear program never relaxes (orca2d.h, orca3d.h: the first `hard`).
 *
 * A sphere is an agent that never moves and never yields: its velocity
 * obstacle is the truncated cone of the agent's own (orca_agent_line_2d,
 * orca_sphere_plane_3d, with the obstacle time horizon and the whole
 * share). Boxes, segments and planes are flat where it matters: each is
 * replaced by its tangent at the point nearest the agent, and the agent
 * may close on that tangent no faster than would reach it within the
 * horizon, n . v >= -(d - r) / tau (d the distance from the agent's
 * centre to the surface, r its radius, n the unit normal toward it). For
 * a plane that is its exact velocity obstacle; for a box or a segment it
 * forbids a little more than the object does (the tangent runs past the
 * object's edges), which costs nothing but a wider berth at corners.
 * An agent already closer than its radius (or inside) must leave within
 * one step: n . v >= (r - d) / dt, capped at max speed, which the solver
 * can always meet.
 *
 * The nearest objects come first (ties by id), so the solver meets the
 * constraints in an order that depends on the geometry alone. Everything
 * is computed in double from the float inputs and rounded once, so the
 * constraints are the same bits on every machine.
 */
#include "orca_static.h"

#include <math.h>
#include <string.h>

#include "geometry.h"
#include "obstacle_grid.h"

/* One object near the agent: its id, the distance from the agent's
 * centre to its surface (negative inside), and the surface's unit normal
 * toward the agent there. */
typedef struct static_near {
    double dist;
    double n[3];
    uint32_t id;
    int sphere; /* constrained as a sphere (centre c, radius rr) */
    double c[3], rr;
} static_near;

static inline double dot3(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* n = x / |x| and |x|, or 0 (n untouched) for the zero vector. */
static double unit3(const double x[3], double n[3]) {
    const double len = sqrt(dot3(x, x));
    if (!(len > 0.0))
        return 0.0;
    for (int k = 0; k < 3; k++)
        n[k] = x[k] / len;
    return len;
}

/* The surface of object o nearest p: fills s (but id); 0 for an object
 * that is no obstacle or wall. On a segment itself, the normal is taken
 * against the agent's velocity v. */
static int surface_near(const geo_object *o, int dims, const double p[3],
                        const double v[3], static_near *s) {
    double a[3], b[3];
    for (int k = 0; k < 3; k++) {
        a[k] = (double)o->a[k];
        b[k] = (double)o->b[k];
    }
    memset(s->n, 0, sizeof s->n);
    s->n[0] = 1.0;
    s->sphere = 0;
    switch (o->kind) {
    case GEO_SPHERE: {
        const double off[3] = { p[0] - a[0], p[1] - a[1], p[2] - a[2] };
        const double len = unit3(off, s->n);
        s->dist = len - (double)o->r;
        s->sphere = 1;
        memcpy(s->c, a, sizeof s->c);
        s->rr = (double)o->r;
        return 1;
    }
    case GEO_BOX: {
        double off[3] = { 0.0, 0.0, 0.0 };
        for (int k = 0; k < dims; k++) {
            const double q = p[k] < a[k] ? a[k] : p[k] > b[k] ? b[k] : p[k];
            off[k] = p[k] - q;
        }
        const double len = unit3(off, s->n);
        if (len > 0.0) {
            s->dist = len;
            return 1;
        }
        /* Inside: out through the nearest face. */
        double nearest = (double)INFINITY;
        for (int k = 0; k < dims; k++) {
            const double faces[2] = { p[k] - a[k], b[k] - p[k] };
            for (int side = 0; side < 2; side++)
                if (faces[side] < nearest) {
                    nearest = faces[side];
                    memset(s->n, 0, sizeof s->n);
                    s->n[k] = side ? 1.0 : -1.0;
                }
        }
        s->dist = -nearest;
        return 1;
    }
    case GEO_SEGMENT: {
        double d[3], ap[3];
        for (int k = 0; k < 3; k++) {
            d[k] = b[k] - a[k];
            ap[k] = p[k] - a[k];
        }
        double t = dot3(ap, d) / dot3(d, d); /* |d| >= GEO_MIN_LENGTH */
        t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
        const double off[3] = { p[0] - (a[0] + t * d[0]),
                                p[1] - (a[1] + t * d[1]),
                                p[2] - (a[2] + t * d[2]) };
        s->dist = unit3(off, s->n);
        if (!(s->dist > 0.0)) {
            /* On the segment: the side the agent is not heading to. */
            const double left[3] = { -d[1], d[0], 0.0 };
            (void)unit3(left, s->n);
            if (dot3(v, s->n) > 0.0)
                for (int k = 0; k < 3; k++)
                    s->n[k] = -s->n[k];
        }
        return 1;
    }
    case GEO_PLANE: {
        const double ap[3] = { p[0] - a[0], p[1] - a[1], p[2] - a[2] };
        memcpy(s->n, b, sizeof s->n); /* unit, into the allowed side */
        s->dist = dot3(ap, s->n);
        return 1;
    }
    default:
        return 0;
    }
}

/* The nearest objects the agent could reach within the horizon, ascending
 * by (distance, id), each once; returns how many. */
static uint32_t nearest_objects(const throng_world *w,
                                const orca_static_query *q,
                                static_near out[ORCA_STATIC_MAX]) {
    const geometry *geo = w->geo;
    if (!geo || geo->live == 0)
        return 0;
    const double p[3] = { (double)q->p[0], (double)q->p[1], (double)q->p[2] };
    const double v[3] = { (double)q->v[0], (double)q->v[1], (double)q->v[2] };
    /* Farther than this, the agent cannot reach the surface within the
     * horizon even at max speed: the constraint could never bind. */
    const double reach =
        (double)q->radius + (double)q->max_speed / (double)q->inv_tau;
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = p[k] - reach;
        hi[k] = p[k] + reach;
    }
    uint32_t n = 0;
    env_cursor cur;
    env_cursor_begin(&cur, w, lo, hi, 1);
    uint32_t i;
    while (env_cursor_next(&cur, &i)) {
        const geo_object *o = &geo->objects[i];
        static_near s;
        if (!surface_near(o, w->dims, p, v, &s) || !(s.dist <= reach))
            continue;
        s.id = i;
        int seen = 0;
        for (uint32_t k = 0; k < n && !seen; k++)
            seen = out[k].id == i;
        if (seen)
            continue;
        if (n == ORCA_STATIC_MAX &&
            (s.dist > out[n - 1u].dist ||
             (s.dist == out[n - 1u].dist && i > out[n - 1u].id)))
            continue;
        uint32_t at = n < ORCA_STATIC_MAX ? n++ : n - 1u;
        while (at > 0 &&
               (out[at - 1u].dist > s.dist ||
                (out[at - 1u].dist == s.dist && out[at - 1u].id > i))) {
            out[at] = out[at - 1u];
            at--;
        }
        out[at] = s;
    }
    return n;
}

/* The bound b of the flat constraint n . v >= b. */
static double flat_bound(const orca_static_query *q, double dist) {
    const double r = (double)q->radius;
    double b = dist > r ? -(dist - r) * (double)q->inv_tau
                        : (r - dist) * (double)q->inv_dt;
    const double most = (double)q->max_speed;
    return b < most ? b : most;
}

uint32_t orca_static_lines_2d(const throng_world *w, const orca_static_query *q,
                              orca_line *out) {
    static_near near[ORCA_STATIC_MAX];
    const uint32_t n = nearest_objects(w, q, near);
    for (uint32_t i = 0; i < n; i++) {
        const static_near *s = &near[i];
        if (s->sphere && s->dist > (double)q->radius) {
            const float rel_p[2] = { (float)(s->c[0] - (double)q->p[0]),
                                     (float)(s->c[1] - (double)q->p[1]) };
            const float tie[2] = { (float)-s->n[0], (float)-s->n[1] };
            orca_agent_line_2d(rel_p, q->v, q->radius + (float)s->rr,
                               q->inv_tau, q->inv_dt, 1.0f, q->v, tie, &out[i]);
            continue;
        }
        const double b = flat_bound(q, s->dist);
        out[i].point[0] = (float)(s->n[0] * b);
        out[i].point[1] = (float)(s->n[1] * b);
        /* Permitted: left of the direction, the normal's side. */
        out[i].direction[0] = (float)s->n[1];
        out[i].direction[1] = (float)-s->n[0];
    }
    return n;
}

uint32_t orca_static_planes_3d(const throng_world *w,
                               const orca_static_query *q, orca_plane *out) {
    static_near near[ORCA_STATIC_MAX];
    const uint32_t n = nearest_objects(w, q, near);
    for (uint32_t i = 0; i < n; i++) {
        const static_near *s = &near[i];
        if (s->sphere && s->dist > (double)q->radius) {
            const float rel_c[3] = { (float)(s->c[0] - (double)q->p[0]),
                                     (float)(s->c[1] - (double)q->p[1]),
                                     (float)(s->c[2] - (double)q->p[2]) };
            const float tie[3] = { (float)-s->n[0], (float)-s->n[1],
                                   (float)-s->n[2] };
            orca_sphere_plane_3d(rel_c, q->radius + (float)s->rr, q->inv_tau,
                                 q->inv_dt, q->v, tie, &out[i]);
            continue;
        }
        const double b = flat_bound(q, s->dist);
        for (int k = 0; k < 3; k++) {
            out[i].point[k] = (float)(s->n[k] * b);
            out[i].normal[k] = (float)s->n[k];
        }
    }
    return n;
}
