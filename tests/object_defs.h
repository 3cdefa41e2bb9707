/* SPDX-License-Identifier: MIT */
/*
 * Short forms of the object defs for tests that add many objects: each
 * fills the kind's def from its _default() and adds it with the one verb,
 * so a test reads add_sphere(w, c, r, &o). A NULL vector argument passes a
 * NULL def, so a test of the NULL refusal still exercises the verb's own
 * check. The defs themselves (defaults, fields a kind does not read) are
 * tested with the verbs directly in test_steer_env.c and
 * test_steer_route.c.
 */
#ifndef THRONG_TESTS_OBJECT_DEFS_H
#define THRONG_TESTS_OBJECT_DEFS_H

#include <string.h>

#include "throng.h"

static inline throng_status add_sphere(throng_world *w, const float *center,
                                       float radius, throng_object *out) {
    throng_obstacle_def d = throng_obstacle_def_default();
    if (center)
        memcpy(d.center, center, sizeof d.center);
    d.radius = radius;
    return throng_obstacle_add(w, center ? &d : NULL, out);
}

static inline throng_status add_box(throng_world *w, const float *min,
                                    const float *max, throng_object *out) {
    throng_obstacle_def d = throng_obstacle_def_default();
    d.kind = THRONG_OBJECT_BOX;
    d.radius = 0.0f;
    if (min && max) {
        memcpy(d.min, min, sizeof d.min);
        memcpy(d.max, max, sizeof d.max);
    }
    return throng_obstacle_add(w, min && max ? &d : NULL, out);
}

static inline throng_status add_segment(throng_world *w, const float *a,
                                        const float *b, throng_object *out) {
    throng_wall_def d = throng_wall_def_default();
    if (a && b) {
        memcpy(d.a, a, sizeof d.a);
        memcpy(d.b, b, sizeof d.b);
    }
    return throng_wall_add(w, a && b ? &d : NULL, out);
}

static inline throng_status add_plane(throng_world *w, const float *point,
                                      const float *normal, throng_object *out) {
    throng_wall_def d = throng_wall_def_default();
    d.kind = THRONG_OBJECT_PLANE;
    if (point && normal) {
        memcpy(d.point, point, sizeof d.point);
        memcpy(d.normal, normal, sizeof d.normal);
    }
    return throng_wall_add(w, point && normal ? &d : NULL, out);
}

static inline throng_status add_path(throng_world *w, const float *points,
                                     uint32_t count, float radius, bool closed,
                                     throng_object *out) {
    throng_path_def d = throng_path_def_default();
    d.points = points;
    d.point_count = count;
    d.radius = radius;
    d.closed = closed;
    return throng_path_add(w, &d, out);
}

#endif /* THRONG_TESTS_OBJECT_DEFS_H */
