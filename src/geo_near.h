/* SPDX-License-Identifier: MIT */
/*
 * The static objects near a point (geo_near.c): each sphere's, box's,
 * segment's or plane's nearest surface point, as a signed distance and
 * an outward normal, and the nearest such objects within a reach. The
 * velocity stage's obstacle constraints (orca_static.c) and contact
 * resolution's push out of objects (contact.c) both read the geometry
 * through these, so the two agree on where every surface is.
 */
#ifndef THRONG_GEO_NEAR_H
#define THRONG_GEO_NEAR_H

#include "internal.h"
#include "geometry.h"

/* One object near a point: its id, the distance from the point to its
 * surface (negative inside), and the surface's unit normal toward the
 * point there (outward). A sphere also keeps its centre and radius, for
 * callers that treat it as a sphere rather than by its tangent. */
typedef struct geo_near {
    double dist;
    double n[3];
    uint32_t id;
    int sphere; /* a sphere: centre c, radius rr */
    double c[3], rr;
} geo_near;

/* The surface of object o nearest p, into s (all but id); 0 for an
 * object that is no obstacle or wall. Where the normal has no direction
 * the choice is fixed: +x at a sphere's centre, the first of the nearest
 * faces (-x, +x, -y, +y, -z, +z) inside a box, and on a segment itself
 * its left side (of a to b), or the right when v points to the left. */
int geo_surface_near(const geo_object *o, int dims, const double p[3],
                     const double v[3], geo_near *s);

/* The obstacles and walls whose surface is at most `reach` from p, the
 * nearest `cap` of them, ascending by (distance, id), each once, into
 * out; returns how many. v is geo_surface_near's. */
uint32_t geo_nearest(const throng_world *world, const double p[3],
                     const double v[3], double reach, uint32_t cap,
                     geo_near *out);

#endif /* THRONG_GEO_NEAR_H */
