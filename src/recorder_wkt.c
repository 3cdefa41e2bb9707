/* SPDX-License-Identifier: MIT */
/*
 * The recorder's geometry: what a trajectory file's `geometry` row says
 * about the world's static objects, as WKT (well-known text) in the x-y
 * plane, the form pedestrian-dynamics tools read a walkable area in.
 *
 * A walkable area is a polygon: an outer ring, and holes where agents
 * cannot go. throng has no walkable area of its own, so the outer ring
 * is a rectangle (given by the host, a periodic world's box, or the
 * bounds of the objects and agents with a margin), cut by every plane
 * wall whose normal lies in the x-y plane (a plane keeps the side its
 * normal points to, a half-plane in 2D; clipping a convex ring by it
 * keeps it convex). Box obstacles become rectangular holes and sphere
 * obstacles polygons through REC_CIRCLE_SIDES points of their circle
 * (a 3D world's spheres and boxes by their x-y extent). A wall segment
 * is a line agents cannot cross but no area: it goes beside the polygon
 * as a LINESTRING, in a GEOMETRYCOLLECTION, only when there is one, so
 * a scene without wall segments is a plain POLYGON, the form PedPy's
 * WalkableArea takes.
 *
 * The shapes are copied out of the world at open, so the file's geometry
 * can be written again at close, with the derived area grown to the
 * positions recorded, after the world itself may be gone. Obstacles that
 * overlap give holes that overlap: written as they are (shapely's
 * make_valid merges them).
 */
#include "recorder_wkt.h"
#include "geometry.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A normal with less than this much of its length in the x-y plane has
 * no line there (a floor or a ceiling). */
#define REC_PLANE_FLAT 1e-6
/* Corners of the clipped outer ring: the rectangle's four, one more per
 * plane at most. */
#define REC_RING_EXTRA 4u

uint32_t recorder_shapes(const throng_world *w, rec_shape *out,
                         uint32_t capacity) {
    uint32_t n = 0;
    const geometry *g = w->geo;
    for (uint32_t id = 0; g && id < g->count; id++) {
        const geo_object *o = &g->objects[id];
        rec_shape s;
        memset(&s, 0, sizeof s);
        switch (o->kind) {
        case GEO_SPHERE:
            s.kind = REC_SHAPE_CIRCLE;
            s.r = (double)o->r;
            break;
        case GEO_BOX:
            s.kind = REC_SHAPE_RECT;
            break;
        case GEO_SEGMENT:
            s.kind = REC_SHAPE_SEGMENT;
            break;
        case GEO_PLANE: {
            double nx = (double)o->b[0], ny = (double)o->b[1];
            double len = sqrt(nx * nx + ny * ny);
            if (len < REC_PLANE_FLAT)
                continue;
            s.kind = REC_SHAPE_PLANE;
            s.a[0] = (double)o->a[0];
            s.a[1] = (double)o->a[1];
            s.b[0] = nx / len;
            s.b[1] = ny / len;
            break;
        }
        case GEO_FREE:
        case GEO_PATH:
        case GEO_FLOW:
        case GEO_NAV:
            continue;
        }
        if (s.kind != REC_SHAPE_PLANE)
            for (int k = 0; k < 2; k++) {
                s.a[k] = (double)o->a[k];
                s.b[k] = (double)o->b[k];
            }
        if (n < capacity)
            out[n] = s;
        n++;
    }
    return n;
}

static void bounds_add(rec_area *b, int *any, double x, double y, double r) {
    if (!*any) {
        b->lo[0] = b->hi[0] = x;
        b->lo[1] = b->hi[1] = y;
        *any = 1;
    }
    b->lo[0] = fmin(b->lo[0], x - r);
    b->lo[1] = fmin(b->lo[1], y - r);
    b->hi[0] = fmax(b->hi[0], x + r);
    b->hi[1] = fmax(b->hi[1], y + r);
}

static void add_margin(rec_area *a) {
    double side = fmax(a->hi[0] - a->lo[0], a->hi[1] - a->lo[1]);
    double margin = fmax(0.1 * side, REC_AREA_MARGIN);
    for (int k = 0; k < 2; k++) {
        a->lo[k] -= margin;
        a->hi[k] += margin;
    }
}

rec_area recorder_area(const throng_world *w, const rec_shape *shapes,
                       uint32_t count) {
    rec_area a;
    memset(&a, 0, sizeof a);
    if (w->boundary == THRONG_BOUNDARY_PERIODIC) {
        a.hi[0] = (double)w->box[0];
        a.hi[1] = (double)w->box[1];
        return a;
    }
    int any = 0;
    for (uint32_t i = 0; i < count; i++) {
        const rec_shape *s = &shapes[i];
        if (s->kind == REC_SHAPE_CIRCLE)
            bounds_add(&a, &any, s->a[0], s->a[1], s->r);
        else if (s->kind != REC_SHAPE_PLANE) {
            bounds_add(&a, &any, s->a[0], s->a[1], 0.0);
            bounds_add(&a, &any, s->b[0], s->b[1], 0.0);
        }
    }
    for (uint32_t i = 0; i < w->count; i++)
        bounds_add(&a, &any, (double)w->col.px[i], (double)w->col.py[i], 0.0);
    if (!any)
        bounds_add(&a, &any, 0.0, 0.0, 0.0);
    add_margin(&a);
    return a;
}

void recorder_area_grow(rec_area *a, const double lo[2], const double hi[2]) {
    if (!(lo[0] <= hi[0] && lo[1] <= hi[1]))
        return;
    if (lo[0] >= a->lo[0] && lo[1] >= a->lo[1] && hi[0] <= a->hi[0] &&
        hi[1] <= a->hi[1])
        return;
    rec_area grown = *a;
    for (int k = 0; k < 2; k++) {
        grown.lo[k] = fmin(grown.lo[k], lo[k]);
        grown.hi[k] = fmax(grown.hi[k], hi[k]);
    }
    /* The margin on the new extent, over what was there. */
    rec_area padded = grown;
    add_margin(&padded);
    for (int k = 0; k < 2; k++) {
        a->lo[k] = lo[k] < a->lo[k] ? padded.lo[k] : a->lo[k];
        a->hi[k] = hi[k] > a->hi[k] ? padded.hi[k] : a->hi[k];
    }
}

/* ------------------------------------------------------------------------ */
/* Text                                                                     */
/* ------------------------------------------------------------------------ */

typedef struct text {
    char *s;
    size_t length, capacity;
    int failed;
} text;

static void put(text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(text *t, const char *fmt, ...) {
    if (t->failed)
        return;
    for (;;) {
        va_list args;
        va_start(args, fmt);
        size_t room = t->capacity - t->length;
        int n = vsnprintf(t->s ? t->s + t->length : NULL, room, fmt, args);
        va_end(args);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if ((size_t)n < room) {
            t->length += (size_t)n;
            return;
        }
        size_t want = t->capacity ? 2 * t->capacity : 256;
        while (want - t->length <= (size_t)n)
            want *= 2;
        char *grown = realloc(t->s, want);
        if (!grown) {
            t->failed = 1;
            return;
        }
        t->s = grown;
        t->capacity = want;
    }
}

/* A point of a ring: "x y", with ", " before every point but the first.
 * %.9g gives back a float exactly and a computed point to a few
 * nanometres in any scene. */
static void put_point(text *t, double x, double y, int first) {
    put(t, "%s%.9g %.9g", first ? "" : ", ", x, y);
}

/* A closed ring of n points, the first repeated at the end. */
static void put_ring(text *t, const double *xy, uint32_t n) {
    put(t, "(");
    for (uint32_t i = 0; i <= n; i++)
        put_point(t, xy[2u * (i % n)], xy[2u * (i % n) + 1u], i == 0);
    put(t, ")");
}

/* Clips the convex ring (n points, counter-clockwise) to the side of the
 * line through p where the normal q points (Sutherland and Hodgman's
 * step for one edge); writes at most n + 1 points to out, returns how
 * many. */
static uint32_t clip_ring(const double *in, uint32_t n, const double p[2],
                          const double q[2], double *out) {
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double *a = in + 2u * i, *b = in + 2u * ((i + 1u) % n);
        double da = (a[0] - p[0]) * q[0] + (a[1] - p[1]) * q[1];
        double db = (b[0] - p[0]) * q[0] + (b[1] - p[1]) * q[1];
        if (da >= 0.0) {
            out[2u * m] = a[0];
            out[2u * m + 1u] = a[1];
            m++;
        }
        if ((da >= 0.0) != (db >= 0.0)) {
            double t = da / (da - db);
            out[2u * m] = a[0] + t * (b[0] - a[0]);
            out[2u * m + 1u] = a[1] + t * (b[1] - a[1]);
            m++;
        }
    }
    return m;
}

char *recorder_wkt(const rec_shape *shapes, uint32_t count,
                   const rec_area *area, size_t *length) {
    uint32_t planes = 0, segments = 0;
    for (uint32_t i = 0; i < count; i++) {
        planes += shapes[i].kind == REC_SHAPE_PLANE;
        segments += shapes[i].kind == REC_SHAPE_SEGMENT;
    }
    /* Two rings to clip back and forth between. */
    size_t ring_points = REC_RING_EXTRA + (size_t)planes;
    double *ring = malloc(4u * ring_points * sizeof *ring);
    if (!ring)
        return NULL;
    double *spare = ring + 2u * ring_points;
    /* The rectangle, counter-clockwise. */
    const double corners[8] = { area->lo[0], area->lo[1], area->hi[0],
                                area->lo[1], area->hi[0], area->hi[1],
                                area->lo[0], area->hi[1] };
    memcpy(ring, corners, sizeof corners);
    uint32_t n = 4u;
    for (uint32_t i = 0; i < count && n > 0u; i++)
        if (shapes[i].kind == REC_SHAPE_PLANE) {
            n = clip_ring(ring, n, shapes[i].a, shapes[i].b, spare);
            double *swap = ring;
            ring = spare;
            spare = swap;
        }
    text t = { NULL, 0, 0, 0 };
    if (segments)
        put(&t, "GEOMETRYCOLLECTION (");
    if (n < 3u) {
        /* Planes that leave no area. */
        put(&t, "POLYGON EMPTY");
    } else {
        put(&t, "POLYGON (");
        put_ring(&t, ring, n);
        for (uint32_t i = 0; i < count; i++) {
            const rec_shape *s = &shapes[i];
            double hole[2u * REC_CIRCLE_SIDES];
            uint32_t m = 0;
            if (s->kind == REC_SHAPE_RECT) {
                /* Clockwise, as holes go. */
                const double r[8] = { s->a[0], s->a[1], s->a[0], s->b[1],
                                      s->b[0], s->b[1], s->b[0], s->a[1] };
                memcpy(hole, r, sizeof r);
                m = 4u;
            } else if (s->kind == REC_SHAPE_CIRCLE) {
                const double turn = 2.0 * acos(-1.0) / REC_CIRCLE_SIDES;
                for (m = 0; m < REC_CIRCLE_SIDES; m++) {
                    double angle = -turn * (double)m;
                    hole[2u * m] = s->a[0] + s->r * cos(angle);
                    hole[2u * m + 1u] = s->a[1] + s->r * sin(angle);
                }
            }
            if (m) {
                put(&t, ", ");
                put_ring(&t, hole, m);
            }
        }
        put(&t, ")");
    }
    for (uint32_t i = 0; i < count; i++)
        if (shapes[i].kind == REC_SHAPE_SEGMENT) {
            put(&t, ", LINESTRING (");
            put_point(&t, shapes[i].a[0], shapes[i].a[1], 1);
            put_point(&t, shapes[i].b[0], shapes[i].b[1], 0);
            put(&t, ")");
        }
    if (segments)
        put(&t, ")");
    free(ring < spare ? ring : spare);
    if (t.failed || !t.s) {
        free(t.s);
        return NULL;
    }
    *length = t.length;
    return t.s;
}
