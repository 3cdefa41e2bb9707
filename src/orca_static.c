/* SPDX-License-Identifier: MIT */
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
 * constraints in an order that depends on the geometry alone. Surfaces,
 * distances and normals come from geo_near.c, shared with contact
 * resolution; everything is computed in double from the float inputs and
 * rounded once, so the constraints are the same bits on every machine.
 */
#include "orca_static.h"

#include <math.h>
#include <string.h>

#include "geo_near.h"

/* The nearest objects the agent could reach within the horizon, ascending
 * by (distance, id), each once; returns how many. */
static uint32_t nearest_objects(const throng_world *w,
                                const orca_static_query *q,
                                geo_near out[ORCA_STATIC_MAX]) {
    const double p[3] = { (double)q->p[0], (double)q->p[1], (double)q->p[2] };
    const double v[3] = { (double)q->v[0], (double)q->v[1], (double)q->v[2] };
    /* Farther than this, the agent cannot reach the surface within the
     * horizon even at max speed: the constraint could never bind. */
    const double reach =
        (double)q->radius + (double)q->max_speed / (double)q->inv_tau;
    return geo_nearest(w, p, v, reach, ORCA_STATIC_MAX, out);
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
    geo_near near[ORCA_STATIC_MAX];
    const uint32_t n = nearest_objects(w, q, near);
    for (uint32_t i = 0; i < n; i++) {
        const geo_near *s = &near[i];
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
    geo_near near[ORCA_STATIC_MAX];
    const uint32_t n = nearest_objects(w, q, near);
    for (uint32_t i = 0; i < n; i++) {
        const geo_near *s = &near[i];
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
