/* SPDX-License-Identifier: MIT */
/*
 * The static objects near a point: where the surface of each sphere
 * (circle in 2D), box, wall segment and plane nearest a point lies, and
 * which of them are nearest. The velocity stage turns them into
 * constraints (orca_static.c) and contact resolution pushes agents out of
 * them (contact.c); one copy of the geometry keeps the two from drawing
 * a surface in different places.
 *
 * Everything is computed in double from the float inputs, so a distance
 * or normal is the same bits on every machine and rounds once where a
 * caller stores it. Candidates come from the obstacle grid's cursor
 * (obstacle_grid.h), which may visit an object once per cell it spans:
 * the list keeps each object once and orders it by (distance, id), so
 * the result depends on the geometry alone, not on the walk.
 */
#include "geo_near.h"

#include <math.h>
#include <string.h>

#include "obstacle_grid.h"

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

int geo_surface_near(const geo_object *o, int dims, const double p[3],
                     const double v[3], geo_near *s) {
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
            /* On the segment: the side the point is not heading to. */
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

uint32_t geo_nearest(const throng_world *w, const double p[3],
                     const double v[3], double reach, uint32_t cap,
                     geo_near *out) {
    const geometry *geo = w->geo;
    if (!geo || geo->live == 0 || cap == 0)
        return 0;
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
        geo_near s;
        if (!geo_surface_near(o, w->dims, p, v, &s) || !(s.dist <= reach))
            continue;
        s.id = i;
        int seen = 0;
        for (uint32_t k = 0; k < n && !seen; k++)
            seen = out[k].id == i;
        if (seen)
            continue;
        if (n == cap && (s.dist > out[n - 1u].dist ||
                         (s.dist == out[n - 1u].dist && i > out[n - 1u].id)))
            continue;
        uint32_t at = n < cap ? n++ : n - 1u;
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
