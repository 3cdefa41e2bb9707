/* SPDX-License-Identifier: MIT */
/*
 * Tests of the environment family (src/steer_env.c): obstacles and walls
 * (creation, refusal, removal), obstacle avoidance, containment and wall
 * following against hand-worked numbers, the obstacle grid against a scan
 * of every object, and end-to-end runs with measurable criteria.
 *
 * Hand-worked cases use one agent of mass 2 stepped by dt = 0.1, so
 * F = m (v_d - v) / dt = 20 (v_d - v), with max speed 4 and speed factor
 * 0.5, so s_t = 2, and a huge max force: one step takes the velocity to
 * exactly v_d. Each case is checked twice: the kernel's force directly,
 * and the velocity after one step of the whole pipeline (weighted sum,
 * weight 1, so the combined force is the behaviour's force).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "object_defs.h"
#include "runner.h"

#include "behaviour.h"
#include "obstacle_grid.h"
#include "geometry.h"
#include "internal.h"
#include "steer_env.h"

#define ENV_DT 0.1f
#define ENV_MASS 2.0f
#define ENV_MAX_SPEED 4.0f

static throng_world *env_world(int dims) {
    return ts_world(dims, 1, NULL);
}

static throng_group env_group(throng_world *w, throng_combine_mode mode,
                              const throng_behaviour *list, int n) {
    throng_group_def g = throng_group_def_default();
    g.combine = mode;
    throng_group id = THRONG_NULL_GROUP;
    if (throng_group_create(w, &g, &id) != THRONG_OK) {
        runner_fail(__FILE__, __LINE__, "group refused: %s",
                    throng_world_last_error(w));
        return THRONG_NULL_GROUP;
    }
    for (int i = 0; i < n; i++)
        if (throng_group_add_behaviour(w, id, &list[i], NULL) != THRONG_OK)
            runner_fail(__FILE__, __LINE__, "behaviour %d refused: %s", i,
                        throng_world_last_error(w));
    return id;
}

/* A behaviour with its defaults and s_t = 0.5 * max speed. */
static throng_behaviour env_behaviour(throng_behaviour_kind kind) {
    throng_behaviour b = throng_behaviour_default(kind);
    b.speed_factor = 0.5f;
    return b;
}

/* One agent at p with velocity v and radius R, steered by b alone, in a
 * world already holding its objects. vd NULL: the behaviour must be
 * quiet. Checks the kernel's force, then one full step; removes the agent
 * again. */
static void env_expect_line(throng_world *w, const throng_behaviour *b,
                            const float p[3], const float v[3], float radius,
                            const double *vd, const char *what, int line) {
    throng_agent_def d = throng_agent_def_default();
    d.group = env_group(w, THRONG_COMBINE_WEIGHTED_SUM, b, 1);
    memcpy(d.position, p, sizeof d.position);
    memcpy(d.velocity, v, sizeof d.velocity);
    d.mass = ENV_MASS;
    d.max_force = 1e6f;
    d.max_speed = ENV_MAX_SPEED;
    d.radius = radius;
    throng_agent h;
    if (throng_agent_add(w, &d, &h) != THRONG_OK) {
        runner_fail(__FILE__, line, "%s: agent refused", what);
        return;
    }
    const int dims = throng_world_dimensions(w);
    if (geometry_prepare(w) != 0)
        runner_fail(__FILE__, line, "%s: geometry_prepare failed", what);
    uint32_t row = 0;
    throng_agent_index(w, h, &row);
    steer_ctx ctx;
    steer_ctx_load(&ctx, w, row, ENV_DT);
    float F[3] = { 9.0f, 9.0f, 9.0f };
    int on = steer_env_force(&ctx, b, F);
    const double m_dt = (double)ENV_MASS / (double)ENV_DT;
    for (int k = 0; k < dims; k++) {
        double want = vd ? m_dt * (vd[k] - (double)v[k]) : 0.0;
        if (!(fabs((double)F[k] - want) <= 1e-3))
            runner_fail(__FILE__, line, "%s: F[%d] = %.7g, want %.7g", what, k,
                        (double)F[k], want);
    }
    if (on != (vd != NULL))
        runner_fail(__FILE__, line, "%s: kernel returned %d, want %d", what, on,
                    vd != NULL);
    if (throng_world_step(w, ENV_DT) != THRONG_OK)
        runner_fail(__FILE__, line, "%s: step refused", what);
    float v1[3];
    throng_agent_get_velocity(w, h, v1);
    for (int k = 0; k < dims; k++) {
        double want = vd ? vd[k] : (double)v[k];
        if (!(fabs((double)v1[k] - want) <= 1e-5))
            runner_fail(__FILE__, line, "%s: v1[%d] = %.7g, want %.7g", what, k,
                        (double)v1[k], want);
    }
    throng_agent_remove(w, h);
}
#define env_expect(w, b, p, v, r, vd, what) \
    env_expect_line(w, b, p, v, r, vd, what, __LINE__)

static throng_object env_sphere(throng_world *w, float x, float y, float z,
                                float r) {
    float c[3] = { x, y, z };
    throng_object o = THRONG_NULL_OBJECT;
    if (add_sphere(w, c, r, &o) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "sphere refused: %s",
                    throng_world_last_error(w));
    return o;
}

static throng_object env_box(throng_world *w, const float lo[3],
                             const float hi[3]) {
    throng_object o = THRONG_NULL_OBJECT;
    if (add_box(w, lo, hi, &o) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "box refused: %s",
                    throng_world_last_error(w));
    return o;
}

static throng_object env_segment(throng_world *w, float ax, float ay, float bx,
                                 float by) {
    float a[3] = { ax, ay, 0.0f }, b[3] = { bx, by, 0.0f };
    throng_object o = THRONG_NULL_OBJECT;
    if (add_segment(w, a, b, &o) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "segment refused: %s",
                    throng_world_last_error(w));
    return o;
}

static throng_object env_plane(throng_world *w, const float point[3],
                               const float normal[3]) {
    throng_object o = THRONG_NULL_OBJECT;
    if (add_plane(w, point, normal, &o) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "plane refused: %s",
                    throng_world_last_error(w));
    return o;
}

/* ------------------------------------------------------------------------ */
/* Creation, refusal, removal                                               */
/* ------------------------------------------------------------------------ */

/* A refused call: exact code, a sentence, nothing changed. */
static void env_refused_line(throng_world *w, throng_status got,
                             throng_status want, uint64_t hash,
                             uint32_t objects, const char *expr, int line) {
    if (got != want)
        runner_fail(__FILE__, line, "%s: got %d (%s), want %d (%s)", expr,
                    (int)got, throng_status_string(got), (int)want,
                    throng_status_string(want));
    if (strlen(throng_world_last_error(w)) < 8u)
        runner_fail(__FILE__, line, "%s: last error is not a sentence", expr);
    if (throng_world_hash(w) != hash || throng_world_object_count(w) != objects)
        runner_fail(__FILE__, line, "%s: refused but changed the world", expr);
}
#define CHECK_ENV_REFUSED(w, expr, want)                                    \
    do {                                                                    \
        uint64_t env_hash_ = throng_world_hash(w);                          \
        uint32_t env_objects_ = throng_world_object_count(w);               \
        throng_status env_got_ = (expr);                                    \
        env_refused_line(w, env_got_, want, env_hash_, env_objects_, #expr, \
                         __LINE__);                                         \
    } while (0)

TEST(steer_env_create_refusals) {
    const float nan = nanf(""), inf = INFINITY;
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *w = env_world(dims);
        REQUIRE(w != NULL);
        throng_agent_def ad = throng_agent_def_default();
        ad.velocity[0] = 0.5f;
        throng_agent h;
        REQUIRE_OK(throng_agent_add(w, &ad, &h));
        (void)env_sphere(w, 5.0f, 5.0f, 0.0f, 1.0f); /* one live object */
        throng_object out = { 77u, 77u, 77u };
        const float ok[3] = { 1.0f, 2.0f, 3.0f }, hi[3] = { 2.0f, 3.0f, 4.0f };
        const float bad_x[3] = { nan, 0.0f, 0.0f },
                    bad_y[3] = { 0.0f, inf, 0.0f };
        const float up[3] = { 0.0f, 1.0f, 0.0f };

        CHECK_STATUS(add_sphere(NULL, ok, 1.0f, &out), THRONG_ERR_NULL);
        CHECK_ENV_REFUSED(w, add_sphere(w, NULL, 1.0f, &out), THRONG_ERR_NULL);
        CHECK_ENV_REFUSED(w, add_sphere(w, ok, 1.0f, NULL), THRONG_ERR_NULL);
        CHECK_ENV_REFUSED(w, add_sphere(w, bad_x, 1.0f, &out),
                          THRONG_ERR_NOT_FINITE);
        CHECK_ENV_REFUSED(w, add_sphere(w, bad_y, 1.0f, &out),
                          THRONG_ERR_NOT_FINITE);
        CHECK_ENV_REFUSED(w, add_sphere(w, ok, nan, &out),
                          THRONG_ERR_NOT_FINITE);
        CHECK_ENV_REFUSED(w, add_sphere(w, ok, -inf, &out),
                          THRONG_ERR_NOT_FINITE);
        CHECK_ENV_REFUSED(w, add_sphere(w, ok, 0.0f, &out),
                          THRONG_ERR_OUT_OF_RANGE);
        CHECK_ENV_REFUSED(w, add_sphere(w, ok, -1.0f, &out),
                          THRONG_ERR_OUT_OF_RANGE);

        CHECK_STATUS(add_box(NULL, ok, hi, &out), THRONG_ERR_NULL);
        CHECK_ENV_REFUSED(w, add_box(w, NULL, hi, &out), THRONG_ERR_NULL);
        CHECK_ENV_REFUSED(w, add_box(w, ok, NULL, &out), THRONG_ERR_NULL);
        CHECK_ENV_REFUSED(w, add_box(w, ok, hi, NULL), THRONG_ERR_NULL);
        CHECK_ENV_REFUSED(w, add_box(w, bad_x, hi, &out),
                          THRONG_ERR_NOT_FINITE);
        CHECK_ENV_REFUSED(w, add_box(w, ok, bad_y, &out),
                          THRONG_ERR_NOT_FINITE);
        /* min >= max on each axis of the world in turn. */
        for (int k = 0; k < dims; k++) {
            float flat[3] = { 2.0f, 3.0f, 4.0f },
                  inverted[3] = { 2.0f, 3.0f, 4.0f };
            flat[k] = ok[k];
            inverted[k] = ok[k] - 0.5f;
            CHECK_ENV_REFUSED(w, add_box(w, ok, flat, &out),
                              THRONG_ERR_OUT_OF_RANGE);
            CHECK_ENV_REFUSED(w, add_box(w, ok, inverted, &out),
                              THRONG_ERR_OUT_OF_RANGE);
        }

        CHECK_STATUS(add_segment(NULL, ok, hi, &out), THRONG_ERR_NULL);
        CHECK_ENV_REFUSED(w, add_segment(w, NULL, hi, &out), THRONG_ERR_NULL);
        CHECK_ENV_REFUSED(w, add_segment(w, ok, NULL, &out), THRONG_ERR_NULL);
        CHECK_ENV_REFUSED(w, add_segment(w, ok, hi, NULL), THRONG_ERR_NULL);
        if (dims == 3) {
            /* A good segment is still refused in 3D. */
            CHECK_ENV_REFUSED(w, add_segment(w, ok, hi, &out),
                              THRONG_ERR_OUT_OF_RANGE);
        } else {
            const float near[3] = { 1.0f + 4e-7f, 2.0f + 4e-7f, 0.0f };
            CHECK_ENV_REFUSED(w, add_segment(w, bad_x, hi, &out),
                              THRONG_ERR_NOT_FINITE);
            CHECK_ENV_REFUSED(w, add_segment(w, ok, bad_y, &out),
                              THRONG_ERR_NOT_FINITE);
            CHECK_ENV_REFUSED(w, add_segment(w, ok, ok, &out),
                              THRONG_ERR_OUT_OF_RANGE);
            /* (4e-7, 4e-7) apart: 5.7e-7 m < 1e-6 m. */
            CHECK_ENV_REFUSED(w, add_segment(w, ok, near, &out),
                              THRONG_ERR_OUT_OF_RANGE);
        }

        const float zero[3] = { 0.0f, 0.0f, 0.0f };
        const float tiny[3] = { 5e-7f, 5e-7f, 0.0f }; /* 7.1e-7 long */
        const float z_only[3] = { 0.0f, 0.0f, 1.0f };
        CHECK_STATUS(add_plane(NULL, ok, up, &out), THRONG_ERR_NULL);
        CHECK_ENV_REFUSED(w, add_plane(w, NULL, up, &out), THRONG_ERR_NULL);
        CHECK_ENV_REFUSED(w, add_plane(w, ok, NULL, &out), THRONG_ERR_NULL);
        CHECK_ENV_REFUSED(w, add_plane(w, ok, up, NULL), THRONG_ERR_NULL);
        CHECK_ENV_REFUSED(w, add_plane(w, bad_x, up, &out),
                          THRONG_ERR_NOT_FINITE);
        CHECK_ENV_REFUSED(w, add_plane(w, ok, bad_y, &out),
                          THRONG_ERR_NOT_FINITE);
        CHECK_ENV_REFUSED(w, add_plane(w, ok, zero, &out),
                          THRONG_ERR_OUT_OF_RANGE);
        CHECK_ENV_REFUSED(w, add_plane(w, ok, tiny, &out),
                          THRONG_ERR_OUT_OF_RANGE);
        if (dims == 2) /* z is ignored in 2D, so this normal is zero */
            CHECK_ENV_REFUSED(w, add_plane(w, ok, z_only, &out),
                              THRONG_ERR_OUT_OF_RANGE);
        /* No refusal wrote the handle. */
        CHECK(out.id == 77u && out.generation == 77u);
        CHECK_EQ_INT(throng_world_object_count(w), 1);
        throng_world_destroy(w);
    }
}

/* Accepted objects are stored as documented: z dropped in 2D, the plane's
 * normal unit length. A NaN z is ignored in a 2D world. */
TEST(steer_env_create_stores) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *w = env_world(dims);
        REQUIRE(w != NULL);
        const float c[3] = { 1.0f, 2.0f, dims == 2 ? nanf("") : 3.0f };
        throng_object s = env_sphere(w, c[0], c[1], c[2], 0.5f);
        const float p[3] = { 0.0f, 0.0f, 7.0f }, n[3] = { 3.0f, 0.0f, 4.0f };
        throng_object pl = env_plane(w, p, n);
        REQUIRE(s.id != 0 && pl.id != 0 && s.id != pl.id);
        CHECK_EQ_INT(throng_world_object_count(w), 2);
        const geo_object *os = geo_lookup(w, s, GEO_MASK(GEO_SPHERE));
        const geo_object *op = geo_lookup(w, pl, GEO_MASK(GEO_PLANE));
        REQUIRE(os != NULL && op != NULL);
        CHECK(os->a[0] == 1.0f && os->a[1] == 2.0f && os->r == 0.5f);
        CHECK(os->a[2] == (dims == 3 ? 3.0f : 0.0f));
        if (dims == 3) { /* (3, 0, 4) / 5 */
            CHECK_NEAR(op->b[0], 0.6, 1e-7);
            CHECK_NEAR(op->b[2], 0.8, 1e-7);
        } else { /* (3, 0) / 3 */
            CHECK_NEAR(op->b[0], 1.0, 1e-7);
            CHECK(op->b[2] == 0.0f && op->a[2] == 0.0f);
        }
        throng_world_destroy(w);
    }
}

/* Removing an obstacle makes its handle stale and the obstacle stops
 * mattering; a new object reusing the id does not revive the old handle. */
TEST(steer_env_remove) {
    throng_world *w = env_world(2);
    REQUIRE(w != NULL);
    throng_behaviour b = env_behaviour(THRONG_BEHAVIOUR_AVOID_OBSTACLES);
    const float p[3] = { 0.0f, 0.0f, 0.0f }, v[3] = { 1.0f, 0.0f, 0.0f };
    throng_object s = env_sphere(w, 2.5f, 0.6f, 0.0f, 0.5f);
    const double vd[3] = { 1.0, -2.0, 0.0 }; /* worked in steer_env_avoid_2d */
    env_expect(w, &b, p, v, 0.5f, vd, "before removal");
    CHECK_OK(throng_object_remove(w, s));
    CHECK_EQ_INT(throng_world_object_count(w), 0);
    CHECK(geo_lookup(w, s, ~0u) == NULL);
    CHECK_ENV_REFUSED(w, throng_object_remove(w, s), THRONG_ERR_STALE_HANDLE);
    env_expect(w, &b, p, v, 0.5f, NULL, "after removal");
    /* The id comes back with a new generation. */
    throng_object s2 = env_sphere(w, 2.5f, -0.6f, 0.0f, 0.5f);
    CHECK(s2.id == s.id && s2.generation != s.generation);
    CHECK_ENV_REFUSED(w, throng_object_remove(w, s), THRONG_ERR_STALE_HANDLE);
    CHECK_EQ_INT(throng_world_object_count(w), 1);
    const double vd2[3] = { 1.0, 2.0, 0.0 }; /* the mirror image */
    env_expect(w, &b, p, v, 0.5f, vd2, "the new obstacle");
    throng_world_destroy(w);
}

/* Behaviour parameters: defaults, and each bad value refused with its
 * code, the group's list and the world left as they were. */
TEST(steer_env_behaviour_params) {
    throng_behaviour av =
        throng_behaviour_default(THRONG_BEHAVIOUR_AVOID_OBSTACLES);
    CHECK(av.u.avoid.min_length == 2.0f && av.u.avoid.lookahead_time == 1.0f);
    for (int kind = THRONG_BEHAVIOUR_CONTAIN;
         kind <= THRONG_BEHAVIOUR_FOLLOW_WALL; kind++) {
        throng_behaviour c =
            throng_behaviour_default((throng_behaviour_kind)kind);
        CHECK(!c.u.contain.use_box && c.u.contain.use_walls);
        CHECK(c.u.contain.range == 2.0f && c.u.contain.distance == 1.0f &&
              c.u.contain.ahead == 2.0f);
    }

    const float nan = nanf(""), inf = INFINITY;
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *w = env_world(dims);
        REQUIRE(w != NULL);
        throng_group g = env_group(w, THRONG_COMBINE_WEIGHTED_SUM, NULL, 0);
        throng_agent_def ad = throng_agent_def_default();
        ad.group = g;
        throng_agent h;
        REQUIRE_OK(throng_agent_add(w, &ad, &h));
        /* Every default is valid. */
        for (int kind = THRONG_BEHAVIOUR_AVOID_OBSTACLES;
             kind <= THRONG_BEHAVIOUR_FOLLOW_WALL; kind++) {
            throng_behaviour ok =
                throng_behaviour_default((throng_behaviour_kind)kind);
            CHECK_OK(throng_group_add_behaviour(w, g, &ok, NULL));
        }
        uint32_t count0 = 0;
        REQUIRE_OK(throng_group_behaviour_count(w, g, &count0));

        struct {
            int kind;
            int field; /* avoid: 0 min_length 1 lookahead; contain: 0
                        * range 1 distance 2 ahead 3 box_min[axis] 4
                        * box_max[axis] */
            int axis;
            float value;
            throng_status want;
        } cases[] = {
            { 11, 0, 0, nan, THRONG_ERR_NOT_FINITE },
            { 11, 0, 0, 0.0f, THRONG_ERR_OUT_OF_RANGE },
            { 11, 0, 0, -1.0f, THRONG_ERR_OUT_OF_RANGE },
            { 11, 1, 0, inf, THRONG_ERR_NOT_FINITE },
            { 11, 1, 0, -0.5f, THRONG_ERR_OUT_OF_RANGE },
            { 12, 0, 0, nan, THRONG_ERR_NOT_FINITE },
            { 12, 0, 0, 0.0f, THRONG_ERR_OUT_OF_RANGE },
            { 13, 0, 0, -2.0f, THRONG_ERR_OUT_OF_RANGE },
            { 13, 1, 0, -inf, THRONG_ERR_NOT_FINITE },
            { 13, 1, 0, -0.1f, THRONG_ERR_OUT_OF_RANGE },
            { 12, 2, 0, -0.1f, THRONG_ERR_INVALID_ARG }, /* not read */
            { 13, 2, 0, nan, THRONG_ERR_NOT_FINITE },
            { 12, 3, 0, nan, THRONG_ERR_NOT_FINITE },
            { 12, 3, 1, 10.0f, THRONG_ERR_OUT_OF_RANGE }, /* min == max */
            { 12, 4, 0, -1.0f, THRONG_ERR_OUT_OF_RANGE }, /* max < min */
            { 12, 4, dims - 1, -5.0f, THRONG_ERR_OUT_OF_RANGE },
            { 12, 4, 1, inf, THRONG_ERR_NOT_FINITE },
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            throng_behaviour b =
                throng_behaviour_default((throng_behaviour_kind)cases[i].kind);
            b.u.contain.use_box = cases[i].kind == 12 && cases[i].field >= 3;
            for (int k = 0; k < 3 && b.u.contain.use_box; k++) {
                b.u.contain.box_min[k] = 0.0f;
                b.u.contain.box_max[k] = 10.0f;
            }
            if (cases[i].kind == 11) {
                float *f[2] = { &b.u.avoid.min_length,
                                &b.u.avoid.lookahead_time };
                *f[cases[i].field] = cases[i].value;
            } else {
                float *f[5] = { &b.u.contain.range, &b.u.contain.distance,
                                &b.u.contain.ahead,
                                &b.u.contain.box_min[cases[i].axis],
                                &b.u.contain.box_max[cases[i].axis] };
                *f[cases[i].field] = cases[i].value;
            }
            uint64_t hash = throng_world_hash(w);
            uint32_t index = 999u;
            CHECK_STATUS(throng_group_add_behaviour(w, g, &b, &index),
                         cases[i].want);
            CHECK(index == 999u);
            CHECK(strlen(throng_world_last_error(w)) > 8u);
            CHECK_STATUS(throng_group_set_behaviour(w, g, 0u, &b),
                         cases[i].want);
            CHECK_EQ_U64(throng_world_hash(w), hash);
            uint32_t count = 0;
            CHECK_OK(throng_group_behaviour_count(w, g, &count));
            CHECK_EQ_INT(count, count0);
        }
        /* A box that is off is not read, so it must keep its default
         * (else the call is refused, naming it); z is free in 2D. */
        throng_behaviour off =
            throng_behaviour_default(THRONG_BEHAVIOUR_CONTAIN);
        off.u.contain.box_min[0] = nan;
        CHECK_STATUS(throng_group_set_behaviour(w, g, 0u, &off),
                     THRONG_ERR_INVALID_ARG);
        CHECK(strstr(throng_world_last_error(w), "contain.box_min") != NULL);
        off.u.contain.box_min[0] = 0.0f;
        CHECK_OK(throng_group_set_behaviour(w, g, 0u, &off));
        if (dims == 2) {
            throng_behaviour flat = off;
            flat.u.contain.use_box = true;
            const float lo[3] = { 0.0f, 0.0f, 5.0f },
                        hi[3] = { 1.0f, 1.0f, 5.0f };
            memcpy(flat.u.contain.box_min, lo, sizeof lo);
            memcpy(flat.u.contain.box_max, hi, sizeof hi);
            CHECK_OK(throng_group_set_behaviour(w, g, 0u, &flat));
        }
        throng_world_destroy(w);
    }
}

/* ------------------------------------------------------------------------ */
/* Obstacle avoidance, hand-worked                                          */
/* ------------------------------------------------------------------------ */

/* R = 0.5, min_length 2, lookahead 1: L = 2 + |v|. */
TEST(steer_env_avoid_2d) {
    throng_behaviour b = env_behaviour(THRONG_BEHAVIOUR_AVOID_OBSTACLES);
    const float o[3] = { 0.0f, 0.0f, 0.0f };
    const float east[3] = { 1.0f, 0.0f, 0.0f };

    /* Circle (2.5, 0.6), r 0.5, grown to 1: m = p - c = (-2.5, -0.6),
     * b = m.f = -2.5, c = |m|^2 - 1 = 5.61, disc = 6.25 - 5.61 = 0.64,
     * t = 2.5 - 0.8 = 1.7 <= L = 3: a threat. Lateral part of m: (0,
     * -0.6), u = (0, -1); v_d = (v.f) f + s_t u = (1, -2). */
    throng_world *w = env_world(2);
    REQUIRE(w != NULL);
    env_sphere(w, 2.5f, 0.6f, 0.0f, 0.5f);
    const double vd1[3] = { 1.0, -2.0, 0.0 };
    env_expect(w, &b, o, east, 0.5f, vd1, "circle above the corridor");
    /* A nearer circle below wins whatever its id: c = (2, -0.9): b = -2,
     * c = 4 + 0.81 - 1 = 3.81, disc = 0.19, t = 2 - 0.436 = 1.564 < 1.7;
     * u = (0, 1), v_d = (1, 2). */
    env_sphere(w, 2.0f, -0.9f, 0.0f, 0.5f);
    const double vd2[3] = { 1.0, 2.0, 0.0 };
    env_expect(w, &b, o, east, 0.5f, vd2, "the nearer threat wins");
    throng_world_destroy(w);

    /* Not threats: behind, beside the corridor (1.6 off > 1), beyond L
     * (entry at 4.5 - 1 = 3.5 > 3). */
    w = env_world(2);
    REQUIRE(w != NULL);
    env_sphere(w, -2.0f, 0.0f, 0.0f, 0.5f);
    env_sphere(w, 2.0f, 1.6f, 0.0f, 0.5f);
    env_sphere(w, 4.5f, 0.0f, 0.0f, 0.5f);
    env_expect(w, &b, o, east, 0.5f, NULL, "no threat");
    /* Faster, L = 2 + 2 = 4 reaches the last one, dead ahead: the side
     * vector (forward x up = (0, -1)) stands in: v_d = (2, 0) + 2 (0, -1). */
    const float fast[3] = { 2.0f, 0.0f, 0.0f };
    const double vd3[3] = { 2.0, -2.0, 0.0 };
    env_expect(w, &b, o, fast, 0.5f, vd3, "lookahead, dead ahead");
    throng_world_destroy(w);

    /* Box [3, 4] x [-1, 0.2], grown by 0.5 to [2.5, 4.5] x [-1.5, 0.7]:
     * the ray y = 0 enters at t = 2.5 <= 3. Centre (3.5, -0.4): m =
     * (-3.5, 0.4), lateral (0, 0.4), u = (0, 1): v_d = (1, 2). A box
     * whose grown y range [0.1, 1.5] misses y = 0 is no threat. */
    w = env_world(2);
    REQUIRE(w != NULL);
    const float lo1[3] = { 1.0f, 0.6f, 0.0f }, hi1[3] = { 2.0f, 1.0f, 0.0f };
    env_box(w, lo1, hi1);
    env_expect(w, &b, o, east, 0.5f, NULL, "box beside the corridor");
    const float lo2[3] = { 3.0f, -1.0f, 0.0f }, hi2[3] = { 4.0f, 0.2f, 0.0f };
    env_box(w, lo2, hi2);
    env_expect(w, &b, o, east, 0.5f, vd2, "box ahead");
    throng_world_destroy(w);

    /* Diagonal heading f = (0.6, 0.8), |v| = 1, circle (1.5, 2.5) r 0.5:
     * m = (-1.5, -2.5), b = -0.9 - 2 = -2.9, c = 8.5 - 1 = 7.5, disc =
     * 8.41 - 7.5 = 0.91, t = 2.9 - 0.954 = 1.946 <= 3. Lateral m - b f =
     * (0.24, -0.18), u = (0.8, -0.6); v_d = (0.6, 0.8) + 2 u = (2.2, -0.4). */
    w = env_world(2);
    REQUIRE(w != NULL);
    env_sphere(w, 1.5f, 2.5f, 0.0f, 0.5f);
    const float diag[3] = { 0.6f, 0.8f, 0.0f };
    const double vd4[3] = { 2.2, -0.4, 0.0 };
    env_expect(w, &b, o, diag, 0.5f, vd4, "diagonal heading");
    throng_world_destroy(w);

    /* Already inside. Circle (0, 0) r 1, agent at (0.2, 0) moving up:
     * flee the centre, v_d = 2 (1, 0); at (1.3, 0) it is outside the
     * circle but inside it grown by 0.5: the same. */
    w = env_world(2);
    REQUIRE(w != NULL);
    env_sphere(w, 0.0f, 0.0f, 0.0f, 1.0f);
    const float north[3] = { 0.0f, 1.0f, 0.0f };
    const float in1[3] = { 0.2f, 0.0f, 0.0f }, in2[3] = { 1.3f, 0.0f, 0.0f };
    const double out_x[3] = { 2.0, 0.0, 0.0 };
    env_expect(w, &b, in1, north, 0.5f, out_x, "inside a circle");
    env_expect(w, &b, in2, north, 0.5f, out_x, "inside a grown circle");
    throng_world_destroy(w);

    /* Inside box [-1, 1]^2 at (0.5, 0.2): faces at 1.5, 0.5, 1.2, 0.8,
     * the nearest is x+, v_d = (2, 0). Box [4, 5]^2 grown by 0.5, agent
     * at (5.2, 5.3): nearest box point (5, 5), v_d = 2 (0.2, 0.3) /
     * 0.3606 = (1.1094, 1.6641). */
    w = env_world(2);
    REQUIRE(w != NULL);
    const float blo[3] = { -1.0f, -1.0f, 0.0f }, bhi[3] = { 1.0f, 1.0f, 0.0f };
    env_box(w, blo, bhi);
    const float clo[3] = { 4.0f, 4.0f, 0.0f }, chi[3] = { 5.0f, 5.0f, 0.0f };
    env_box(w, clo, chi);
    const float in3[3] = { 0.5f, 0.2f, 0.0f }, in4[3] = { 5.2f, 5.3f, 0.0f };
    env_expect(w, &b, in3, north, 0.5f, out_x, "inside a box");
    const double corner[3] = { 2.0 * 0.2 / sqrt(0.13), 2.0 * 0.3 / sqrt(0.13),
                               0.0 };
    env_expect(w, &b, in4, north, 0.5f, corner, "grown corner of a box");
    throng_world_destroy(w);

    /* Two overlaps at the origin: circle (0.8, 0) grown to 1 is 0.2 deep,
     * circle (0, 0.5) grown to 1 is 0.5 deep and wins though created
     * second: v_d = 2 (0, -1). A threat ahead does not matter then. */
    w = env_world(2);
    REQUIRE(w != NULL);
    env_sphere(w, 0.8f, 0.0f, 0.0f, 0.5f);
    env_sphere(w, 0.0f, 0.5f, 0.0f, 0.5f);
    env_sphere(w, 2.5f, 0.0f, 0.0f, 0.5f);
    const double down[3] = { 0.0, -2.0, 0.0 };
    env_expect(w, &b, o, east, 0.5f, down, "deepest overlap wins");
    throng_world_destroy(w);
}

TEST(steer_env_avoid_3d) {
    throng_behaviour b = env_behaviour(THRONG_BEHAVIOUR_AVOID_OBSTACLES);
    const float o[3] = { 0.0f, 0.0f, 0.0f };
    const float east[3] = { 1.0f, 0.0f, 0.0f };
    throng_world *w = env_world(3);
    REQUIRE(w != NULL);
    /* The 2D case turned into z: sphere (2.5, 0, 0.6): v_d = (1, 0, -2). */
    throng_object s = env_sphere(w, 2.5f, 0.0f, 0.6f, 0.5f);
    const double vd1[3] = { 1.0, 0.0, -2.0 };
    env_expect(w, &b, o, east, 0.5f, vd1, "sphere above");
    CHECK_OK(throng_object_remove(w, s));
    /* Box [3, 4] x [-0.3, 0.3] x [-1, 0.2], grown: x [2.5, 4.5], y [-0.8,
     * 0.8], z [-1.5, 0.7]; entry t = 2.5. Centre (3.5, 0, -0.4),
     * lateral (0, 0, 0.4): v_d = (1, 0, 2). */
    const float lo[3] = { 3.0f, -0.3f, -1.0f }, hi[3] = { 4.0f, 0.3f, 0.2f };
    throng_object bx = env_box(w, lo, hi);
    const double vd2[3] = { 1.0, 0.0, 2.0 };
    env_expect(w, &b, o, east, 0.5f, vd2, "box below");
    CHECK_OK(throng_object_remove(w, bx));
    /* Heading +y, sphere (0.3, 2.5, 0.4): m = (-0.3, -2.5, -0.4), b =
     * -2.5, c = 6.5 - 1 = 5.5, disc = 0.75, t = 2.5 - 0.866 = 1.634.
     * Lateral (-0.3, 0, -0.4), u = (-0.6, 0, -0.8): v_d = (-1.2, 1, -1.6). */
    s = env_sphere(w, 0.3f, 2.5f, 0.4f, 0.5f);
    const float north[3] = { 0.0f, 1.0f, 0.0f };
    const double vd3[3] = { -1.2, 1.0, -1.6 };
    env_expect(w, &b, o, north, 0.5f, vd3, "heading +y");
    CHECK_OK(throng_object_remove(w, s));
    /* Inside sphere (0, 0, 0) r 1 at (0, 0, 0.5): v_d = (0, 0, 2). */
    s = env_sphere(w, 0.0f, 0.0f, 0.0f, 1.0f);
    const float in[3] = { 0.0f, 0.0f, 0.5f };
    const double up2[3] = { 0.0, 0.0, 2.0 };
    env_expect(w, &b, in, east, 0.5f, up2, "inside a sphere");
    CHECK_OK(throng_object_remove(w, s));
    /* Dead ahead: the side vector of the agent's basis, (0, -1, 0) for
     * heading +x and up +z: v_d = (1, -2, 0). */
    env_sphere(w, 2.5f, 0.0f, 0.0f, 0.5f);
    const double vd4[3] = { 1.0, -2.0, 0.0 };
    env_expect(w, &b, o, east, 0.5f, vd4, "dead ahead");
    throng_world_destroy(w);
}

/* ------------------------------------------------------------------------ */
/* Containment, hand-worked (range 2, s_t = 2)                              */
/* ------------------------------------------------------------------------ */

TEST(steer_env_contain_2d) {
    throng_behaviour b = env_behaviour(THRONG_BEHAVIOUR_CONTAIN);
    b.u.contain.use_box = true;
    const float lo[3] = { 0.0f, 0.0f, 0.0f }, hi[3] = { 10.0f, 10.0f, 0.0f };
    memcpy(b.u.contain.box_min, lo, sizeof lo);
    memcpy(b.u.contain.box_max, hi, sizeof hi);
    throng_world *w = env_world(2);
    REQUIRE(w != NULL);
    /* Seed 002's rule: x- face 1 m away: v_d = (s_t, v_y) = (2, 0.5). */
    const float p1[3] = { 1.0f, 5.0f, 0.0f }, v1[3] = { -1.0f, 0.5f, 0.0f };
    const double vd1[3] = { 2.0, 0.5, 0.0 };
    env_expect(w, &b, p1, v1, 0.25f, vd1, "near x-");
    /* A corner: x+ and y- in range: v_d = (-2, 2). */
    const float p2[3] = { 9.5f, 0.5f, 0.0f }, v2[3] = { 1.0f, -1.0f, 0.0f };
    const double vd2[3] = { -2.0, 2.0, 0.0 };
    env_expect(w, &b, p2, v2, 0.25f, vd2, "corner");
    /* Outside the box counts as in range: v_d = (2, 0). */
    const float p3[3] = { -1.0f, 5.0f, 0.0f }, v3[3] = { -1.0f, 0.0f, 0.0f };
    const double vd3[3] = { 2.0, 0.0, 0.0 };
    env_expect(w, &b, p3, v3, 0.25f, vd3, "outside");
    const float p4[3] = { 5.0f, 5.0f, 0.0f };
    env_expect(w, &b, p4, v1, 0.25f, NULL, "middle");

    /* A line through the origin with normal (1, 1), stored as (1, 1) /
     * sqrt 2: agent (1, 0), 0.7071 from it, v = (-1, 0): v.n = -0.7071,
     * v_d = v - (v.n) n + 2 n = (-0.5 + 1.4142, 0.5 + 1.4142). */
    b.u.contain.use_box = false; /* and the box back to its default */
    memset(b.u.contain.box_min, 0, sizeof b.u.contain.box_min);
    memset(b.u.contain.box_max, 0, sizeof b.u.contain.box_max);
    const float origin[3] = { 0.0f, 0.0f, 0.0f }, n11[3] = { 1.0f, 1.0f, 0.0f };
    throng_object line = env_plane(w, origin, n11);
    const float p5[3] = { 1.0f, 0.0f, 0.0f }, west[3] = { -1.0f, 0.0f, 0.0f };
    const double r2 = sqrt(2.0);
    const double vd5[3] = { -0.5 + r2, 0.5 + r2, 0.0 };
    env_expect(w, &b, p5, west, 0.25f, vd5, "line");
    b.u.contain.use_walls = false;
    env_expect(w, &b, p5, west, 0.25f, NULL, "walls switched off");
    b.u.contain.use_walls = true;
    CHECK_OK(throng_object_remove(w, line));

    /* Segment (0, 0)-(10, 0), two-sided. Agent (3, 1) moving down:
     * normal (0, 1), v_d = (0, 2); from below, (3, -1) moving up:
     * normal (0, -1), v_d = (0, -2). Past the end at (11, 1): nearest
     * point (10, 0), normal (1, 1) / sqrt 2, as for the line above; at
     * (12, 1) it is sqrt 5 > 2 away: quiet. */
    env_segment(w, 0.0f, 0.0f, 10.0f, 0.0f);
    const float p6[3] = { 3.0f, 1.0f, 0.0f }, south[3] = { 0.0f, -1.0f, 0.0f };
    const double vd6[3] = { 0.0, 2.0, 0.0 };
    env_expect(w, &b, p6, south, 0.25f, vd6, "segment from above");
    const float p7[3] = { 3.0f, -1.0f, 0.0f }, north[3] = { 0.0f, 1.0f, 0.0f };
    const double vd7[3] = { 0.0, -2.0, 0.0 };
    env_expect(w, &b, p7, north, 0.25f, vd7, "segment from below");
    const float p8[3] = { 11.0f, 1.0f, 0.0f }, p9[3] = { 12.0f, 1.0f, 0.0f };
    env_expect(w, &b, p8, west, 0.25f, vd5, "past the segment's end");
    env_expect(w, &b, p9, west, 0.25f, NULL, "segment out of range");
    /* Standing on the segment, moving down: pushed back up. */
    const float p10[3] = { 3.0f, 0.0f, 0.0f };
    env_expect(w, &b, p10, south, 0.25f, vd6, "on the segment");
    throng_world_destroy(w);

    /* Box faces first, then walls: at (1, 1) in box [0, 10]^2 the x- and
     * y- faces give v_d = (2, 2); then the line through the origin with
     * normal (0.6, 0.8), 1.4 m away: v_d.n = 2.8, v_d += (2 - 2.8) n =
     * (2 - 0.48, 2 - 0.64) = (1.52, 1.36). */
    w = env_world(2);
    REQUIRE(w != NULL);
    const float n68[3] = { 0.6f, 0.8f, 0.0f };
    env_plane(w, origin, n68);
    b.u.contain.use_box = true;
    memcpy(b.u.contain.box_min, lo, sizeof lo);
    memcpy(b.u.contain.box_max, hi, sizeof hi);
    const float p11[3] = { 1.0f, 1.0f, 0.0f }, sw[3] = { -1.0f, -1.0f, 0.0f };
    const double vd11[3] = { 1.52, 1.36, 0.0 };
    env_expect(w, &b, p11, sw, 0.25f, vd11, "box faces, then a line");
    throng_world_destroy(w);
}

TEST(steer_env_contain_3d) {
    throng_behaviour b = env_behaviour(THRONG_BEHAVIOUR_CONTAIN);
    b.u.contain.use_box = true;
    const float lo[3] = { 0.0f, 0.0f, 0.0f }, hi[3] = { 10.0f, 10.0f, 10.0f };
    memcpy(b.u.contain.box_min, lo, sizeof lo);
    memcpy(b.u.contain.box_max, hi, sizeof hi);
    throng_world *w = env_world(3);
    REQUIRE(w != NULL);
    /* z+ face 0.5 m away: v_d = (0.5, 0, -2). */
    const float p1[3] = { 5.0f, 5.0f, 9.5f }, v1[3] = { 0.5f, 0.0f, 1.0f };
    const double vd1[3] = { 0.5, 0.0, -2.0 };
    env_expect(w, &b, p1, v1, 0.25f, vd1, "near z+");
    const float p2[3] = { 5.0f, 5.0f, 5.0f };
    env_expect(w, &b, p2, v1, 0.25f, NULL, "middle");
    b.u.contain.use_box = false; /* and the box back to its default */
    memset(b.u.contain.box_min, 0, sizeof b.u.contain.box_min);
    memset(b.u.contain.box_max, 0, sizeof b.u.contain.box_max);
    /* Plane z = 0, normal given as (0, 0, 2): at height 1 moving down,
     * v_d = (0, 0, 2); 5 m behind it moving along x: (1, 0, 2). */
    const float origin[3] = { 0.0f, 0.0f, 0.0f }, nz[3] = { 0.0f, 0.0f, 2.0f };
    throng_object pl = env_plane(w, origin, nz);
    const float p3[3] = { 0.0f, 0.0f, 1.0f }, v3[3] = { 0.0f, 0.0f, -1.0f };
    const double vd3[3] = { 0.0, 0.0, 2.0 };
    env_expect(w, &b, p3, v3, 0.25f, vd3, "plane above");
    const float p4[3] = { 3.0f, 0.0f, -5.0f }, v4[3] = { 1.0f, 0.0f, 0.0f };
    const double vd4[3] = { 1.0, 0.0, 2.0 };
    env_expect(w, &b, p4, v4, 0.25f, vd4, "behind the plane");
    const float p5[3] = { 0.0f, 0.0f, 3.0f };
    env_expect(w, &b, p5, v3, 0.25f, NULL, "plane out of range");
    CHECK_OK(throng_object_remove(w, pl));
    throng_world_destroy(w);

    /* Order by id: planes x = 0 (n1 = (1, 0, 0)) and through the origin
     * with n2 = (0.6, 0.8, 0); agent (1, 1, 0), 1 and 1.4 m away, v =
     * (-1, 0, 0). n1 first: v_d = (2, 0, 0), then v_d.n2 = 1.2, v_d +=
     * 0.8 n2: (2.48, 0.64, 0). n2 first: v.n2 = -0.6, v += 2.6 n2 =
     * (0.56, 2.08, 0), then x = 2: (2, 2.08, 0). */
    const float n1[3] = { 1.0f, 0.0f, 0.0f }, n2[3] = { 0.6f, 0.8f, 0.0f };
    const float p6[3] = { 1.0f, 1.0f, 0.0f }, v6[3] = { -1.0f, 0.0f, 0.0f };
    const double first_x[3] = { 2.48, 0.64, 0.0 },
                 first_n2[3] = { 2.0, 2.08, 0.0 };
    for (int order = 0; order < 2; order++) {
        w = env_world(3);
        REQUIRE(w != NULL);
        env_plane(w, origin, order ? n2 : n1);
        env_plane(w, origin, order ? n1 : n2);
        env_expect(w, &b, p6, v6, 0.25f, order ? first_n2 : first_x,
                   "walls in id order");
        throng_world_destroy(w);
    }
}

/* More walls in range than the kernel collects at once (it works in
 * batches of 32): 44 short segments and 4 lines around the agent, and
 * far segments that must not count. The reference applies seed 002's
 * rule wall by wall in id order, here in double. */
TEST(steer_env_contain_many_walls) {
    throng_world *w = env_world(2);
    REQUIRE(w != NULL);
    test_rng rng = test_rng_make(31u);
    enum {
        WALLS = 60
    };
    int is_line[WALLS];
    double wa[WALLS][2], wb[WALLS][2];
    for (int i = 0; i < WALLS; i++) {
        double cx, cy;
        double r = i % 4 == 3 ? 10.0 + 5.0 * (double)test_rng_unit(&rng)
                              : 1.2 * (double)test_rng_unit(&rng);
        double ang = (double)test_rng_range(&rng, 0.0f, TEST_TWO_PI);
        cx = r * cos(ang);
        cy = r * sin(ang);
        double dir = (double)test_rng_range(&rng, 0.0f, TEST_TWO_PI);
        double half = (double)test_rng_range(&rng, 0.25f, 1.0f);
        is_line[i] = i % 15 == 7;
        float a[3], b[3];
        if (is_line[i]) { /* a point and a normal */
            a[0] = (float)cx;
            a[1] = (float)cy;
            b[0] = (float)cos(dir);
            b[1] = (float)sin(dir);
            a[2] = b[2] = 0.0f;
            env_plane(w, a, b);
        } else {
            a[0] = (float)(cx - half * cos(dir));
            a[1] = (float)(cy - half * sin(dir));
            b[0] = (float)(cx + half * cos(dir));
            b[1] = (float)(cy + half * sin(dir));
            a[2] = b[2] = 0.0f;
            env_segment(w, a[0], a[1], b[0], b[1]);
        }
        wa[i][0] = (double)a[0];
        wa[i][1] = (double)a[1];
        wb[i][0] = (double)b[0];
        wb[i][1] = (double)b[1];
    }
    throng_behaviour bh = env_behaviour(THRONG_BEHAVIOUR_CONTAIN);
    const double s_t = 2.0, range = 2.0;
    throng_agent_def d = throng_agent_def_default();
    d.group = env_group(w, THRONG_COMBINE_WEIGHTED_SUM, &bh, 1);
    d.velocity[0] = 0.3f;
    d.velocity[1] = -0.2f;
    d.mass = ENV_MASS;
    d.max_speed = ENV_MAX_SPEED;
    throng_agent h;
    REQUIRE_OK(throng_agent_add(w, &d, &h));

    double vd[2] = { 0.3, -0.2 };
    int in_range = 0;
    for (int i = 0; i < WALLS; i++) {
        double n[2], dist;
        if (is_line[i]) {
            double len = hypot(wb[i][0], wb[i][1]);
            n[0] = wb[i][0] / len;
            n[1] = wb[i][1] / len;
            dist = -(wa[i][0] * n[0] + wa[i][1] * n[1]); /* p = 0 */
        } else {
            double ex = wb[i][0] - wa[i][0], ey = wb[i][1] - wa[i][1];
            double t = -(wa[i][0] * ex + wa[i][1] * ey) / (ex * ex + ey * ey);
            t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
            double qx = wa[i][0] + t * ex, qy = wa[i][1] + t * ey;
            dist = hypot(qx, qy);
            n[0] = -qx / dist;
            n[1] = -qy / dist;
        }
        if (!(dist < range))
            continue;
        in_range++;
        double along = vd[0] * n[0] + vd[1] * n[1];
        vd[0] += (s_t - along) * n[0];
        vd[1] += (s_t - along) * n[1];
    }
    CHECK(in_range > 40);
    REQUIRE(geometry_prepare(w) == 0);
    steer_ctx a;
    steer_ctx_load(&a, w, 0u, ENV_DT);
    float F[3], Fs[3];
    CHECK_EQ_INT(steer_env_force(&a, &bh, F), 1);
    const double m_dt = (double)ENV_MASS / (double)ENV_DT;
    CHECK_NEAR(F[0], m_dt * (vd[0] - 0.3), 2e-3);
    CHECK_NEAR(F[1], m_dt * (vd[1] + 0.2), 2e-3);
    w->geo->grid.version ^= 1u; /* the scan over every object agrees */
    CHECK_EQ_INT(steer_env_force(&a, &bh, Fs), 1);
    w->geo->grid.version ^= 1u;
    CHECK(memcmp(F, Fs, sizeof F) == 0);
    throng_world_destroy(w);
}

/* ------------------------------------------------------------------------ */
/* Wall following, hand-worked (range 5, distance 1, ahead 2, s_t = 2)      */
/* ------------------------------------------------------------------------ */

TEST(steer_env_follow_wall_hand) {
    throng_behaviour b = env_behaviour(THRONG_BEHAVIOUR_FOLLOW_WALL);
    b.u.contain.range = 5.0f;
    throng_world *w = env_world(2);
    REQUIRE(w != NULL);
    env_segment(w, -10.0f, 0.0f, 10.0f, 0.0f);
    /* At (0, 3) moving +x: nearest point (0, 0), n = (0, 1), t = (1, 0),
     * target (0, 0) + (0, 1) + (2, 0) = (2, 1); v_d = 2 (2, -2) / 2.828
     * = (1.4142, -1.4142). Moving -x: target (-2, 1). At rest: the
     * heading, +x. */
    const float p1[3] = { 0.0f, 3.0f, 0.0f };
    const float east[3] = { 1.0f, 0.0f, 0.0f }, west[3] = { -1.0f, 0.0f, 0.0f };
    const float still[3] = { 0.0f, 0.0f, 0.0f };
    const double r2 = sqrt(2.0);
    const double vd1[3] = { r2, -r2, 0.0 }, vd2[3] = { -r2, -r2, 0.0 };
    env_expect(w, &b, p1, east, 0.25f, vd1, "segment, moving +x");
    env_expect(w, &b, p1, west, 0.25f, vd2, "segment, moving -x");
    env_expect(w, &b, p1, still, 0.25f, vd1, "segment, at rest");
    const float far[3] = { 0.0f, 6.0f, 0.0f };
    env_expect(w, &b, far, east, 0.25f, NULL, "out of range");
    /* A second wall at y = -2: from (0, -0.5) the first (0.5 away) is
     * nearest, approached from below: n = (0, -1), target (2, -1), v_d =
     * 2 (2, -0.5) / 2.0616 = (1.9403, -0.4851). */
    env_segment(w, -10.0f, -2.0f, 10.0f, -2.0f);
    const float p2[3] = { 0.0f, -0.5f, 0.0f };
    const double k = 2.0 / sqrt(4.25);
    const double vd3[3] = { 2.0 * k, -0.5 * k, 0.0 };
    env_expect(w, &b, p2, east, 0.25f, vd3, "nearest of two walls");
    throng_world_destroy(w);

    /* A line y = 0 with normal (0, 1), agent behind it at (0, -0.5): it
     * is 0.5 away; target (0, 0) + (0, 1) + (2, 0) = (2, 1), v_d = 2 (2,
     * 1.5) / 2.5 = (1.6, 1.2). */
    w = env_world(2);
    REQUIRE(w != NULL);
    const float origin[3] = { 0.0f, 0.0f, 0.0f }, ny[3] = { 0.0f, 1.0f, 0.0f };
    env_plane(w, origin, ny);
    const double vd4[3] = { 1.6, 1.2, 0.0 };
    env_expect(w, &b, p2, east, 0.25f, vd4, "behind a line");
    throng_world_destroy(w);

    /* Plane z = 0 in 3D, agent (1, 2, 1.5) moving (0, 1, 0.5): tangent
     * (0, 1, 0), target (1, 2, 0) + (0, 0, 1) + (0, 2, 0) = (1, 4, 1);
     * v_d = 2 (0, 2, -0.5) / 2.0616 = (0, 1.9403, -0.4851). */
    w = env_world(3);
    REQUIRE(w != NULL);
    const float nz[3] = { 0.0f, 0.0f, 1.0f };
    env_plane(w, origin, nz);
    const float p3[3] = { 1.0f, 2.0f, 1.5f }, v3[3] = { 0.0f, 1.0f, 0.5f };
    const double vd5[3] = { 0.0, 2.0 * k, -0.5 * k };
    env_expect(w, &b, p3, v3, 0.25f, vd5, "plane");
    /* Straight down at it from (0, 0, 2): the tangent is the side vector
     * of the agent's basis. Heading (0, 0, -1) with the z hint gives up
     * along an axis least aligned; read it, then target = (0, 0, 1) + 2
     * side, v_d = 2 unit((0, 0, -1) + 2 side). */
    const float p4[3] = { 0.0f, 0.0f, 2.0f }, down[3] = { 0.0f, 0.0f, -1.0f };
    {
        throng_agent_def d = throng_agent_def_default();
        memcpy(d.position, p4, sizeof p4);
        memcpy(d.velocity, down, sizeof down);
        throng_agent h;
        REQUIRE_OK(throng_agent_add(w, &d, &h));
        float f[3], u[3], s[3];
        REQUIRE_OK(throng_agent_get_basis(w, h, f, u, s));
        CHECK_OK(throng_agent_remove(w, h));
        CHECK_NEAR(s[2], 0.0, 1e-6);
        double x[3] = { 2.0 * (double)s[0], 2.0 * (double)s[1], -1.0 };
        double len = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        const double vd6[3] = { 2.0 * x[0] / len, 2.0 * x[1] / len,
                                2.0 * x[2] / len };
        env_expect(w, &b, p4, down, 0.25f, vd6, "straight at the plane");
    }
    throng_world_destroy(w);
}

/* ------------------------------------------------------------------------ */
/* The obstacle grid against a scan of every object                          */
/* ------------------------------------------------------------------------ */

/* Compares every agent's force through the grid with the force from the
 * kernel's scan over every object (used when the grid is stale), bit for
 * bit, and counts the list entries an avoidance query reads. */
static void env_grid_compare(int dims) {
    throng_world *w = env_world(dims);
    REQUIRE(w != NULL);
    test_rng rng = test_rng_make(dims == 2 ? 11u : 12u);
    const float side = dims == 2 ? 400.0f : 120.0f;
    const int obstacles = 10000;
    for (int i = 0; i < obstacles; i++) {
        float c[3];
        for (int k = 0; k < 3; k++)
            c[k] = test_rng_range(&rng, 0.0f, side);
        if (test_rng_below(&rng, 10u) < 7u) {
            env_sphere(w, c[0], c[1], c[2], test_rng_range(&rng, 0.2f, 1.5f));
        } else {
            float hi[3];
            for (int k = 0; k < 3; k++)
                hi[k] = c[k] + test_rng_range(&rng, 0.3f, 2.5f);
            env_box(w, c, hi);
        }
    }
    /* A few giant obstacles, which must not spoil the cells. */
    env_sphere(w, side * 0.5f, side * 0.5f, side * 0.5f, side * 0.1f);
    const float big_lo[3] = { 0.0f, side * 0.2f, 0.0f };
    const float big_hi[3] = { side, side * 0.21f, side };
    env_box(w, big_lo, big_hi);
    if (dims == 2)
        for (int i = 0; i < 200; i++) {
            float ax = test_rng_range(&rng, 0.0f, side);
            float ay = test_rng_range(&rng, 0.0f, side);
            env_segment(w, ax, ay, ax + test_rng_range(&rng, -8.0f, 8.0f),
                        ay + test_rng_range(&rng, -8.0f, 8.0f));
        }
    for (int i = 0; i < 4; i++) {
        float p[3], n[3];
        for (int k = 0; k < 3; k++) {
            p[k] = test_rng_range(&rng, 0.0f, side);
            n[k] = test_rng_range(&rng, -1.0f, 1.0f);
        }
        env_plane(w, p, n);
    }

    throng_behaviour list[3];
    list[0] = env_behaviour(THRONG_BEHAVIOUR_AVOID_OBSTACLES);
    list[0].u.avoid.lookahead_time = 1.5f;
    list[1] = env_behaviour(THRONG_BEHAVIOUR_CONTAIN);
    list[1].u.contain.use_box = true;
    list[1].u.contain.range = 3.0f;
    for (int k = 0; k < 3; k++) {
        list[1].u.contain.box_min[k] = 10.0f;
        list[1].u.contain.box_max[k] = side - 10.0f;
    }
    list[2] = env_behaviour(THRONG_BEHAVIOUR_FOLLOW_WALL);
    list[2].u.contain.range = 4.0f;
    const throng_group group =
        env_group(w, THRONG_COMBINE_WEIGHTED_SUM, list, 3);
    const uint32_t agents = 600;
    for (uint32_t i = 0; i < agents; i++) {
        throng_agent_def d = throng_agent_def_default();
        d.group = group;
        for (int k = 0; k < 3; k++) {
            d.position[k] = test_rng_range(&rng, 0.0f, side);
            d.velocity[k] = test_rng_range(&rng, -1.5f, 1.5f);
        }
        d.radius = test_rng_range(&rng, 0.0f, 0.6f);
        d.max_speed = 2.0f;
        throng_agent h;
        REQUIRE_OK(throng_agent_add(w, &d, &h));
    }
    const size_t bytes_before = throng_world_bytes(w);
    REQUIRE(geometry_prepare(w) == 0);
    CHECK(throng_world_bytes(w) > bytes_before);
    geo_grid *g = &w->geo->grid;
    REQUIRE(g->built && g->version == w->geo->version);
    const uint32_t gridded = (uint32_t)obstacles + 2u + (dims == 2 ? 200u : 0u);
    CHECK(g->cell_count <= 4u * gridded + 64u);
    CHECK(g->start[g->cell_count] <= 16u * gridded + 1024u);
    CHECK_EQ_INT(g->plane_count, 4);

    int active[3] = { 0, 0, 0 };
    uint64_t touched = 0;
    uint32_t most = 0;
    for (uint32_t row = 0; row < agents; row++) {
        steer_ctx a;
        steer_ctx_load(&a, w, row, 0.05f);
        for (int i = 0; i < 3; i++) {
            float fg[3], fb[3];
            int on_g = steer_env_force(&a, &list[i], fg);
            g->version ^= 1u; /* stale: the kernel scans every object */
            int on_b = steer_env_force(&a, &list[i], fb);
            g->version ^= 1u;
            if (on_g != on_b || memcmp(fg, fb, sizeof fg) != 0)
                runner_fail(__FILE__, __LINE__,
                            "%dD row %u behaviour %d: grid (%d: %g %g %g) "
                            "vs scan (%d: %g %g %g)",
                            dims, row, i, on_g, (double)fg[0], (double)fg[1],
                            (double)fg[2], on_b, (double)fb[0], (double)fb[1],
                            (double)fb[2]);
            active[i] += on_g;
        }
        /* The list entries in the cells of the avoidance corridor. */
        double speed =
            sqrt((double)(a.v[0] * a.v[0] + a.v[1] * a.v[1] + a.v[2] * a.v[2]));
        double L = 2.0 + 1.5 * speed, R = (double)a.radius;
        int32_t clo[3] = { 0, 0, 0 }, chi[3] = { 0, 0, 0 };
        int in = 1;
        for (int k = 0; k < dims; k++) {
            double e = (double)a.p[k] + L * (double)a.f[k];
            double lo = fmin((double)a.p[k], e) - R;
            double hi = fmax((double)a.p[k], e) + R;
            double x0 = floor((lo - g->origin[k]) / g->cell);
            double x1 = floor((hi - g->origin[k]) / g->cell);
            if (x1 < 0.0 || x0 > (double)(g->n[k] - 1))
                in = 0;
            clo[k] = x0 < 0.0 ? 0 : (int32_t)x0;
            chi[k] = x1 > (double)(g->n[k] - 1) ? g->n[k] - 1 : (int32_t)x1;
        }
        uint32_t here = 0;
        for (int32_t z = clo[2]; in && z <= chi[2]; z++)
            for (int32_t y = clo[1]; y <= chi[1]; y++)
                for (int32_t x = clo[0]; x <= chi[0]; x++) {
                    uint32_t c = (uint32_t)((z * g->n[1] + y) * g->n[0] + x);
                    here += g->start[c + 1] - g->start[c];
                }
        touched += here;
        most = here > most ? here : most;
    }
    /* Every behaviour had real work in a fair share of the cases. */
    CHECK(active[0] > (int)agents / 10);
    CHECK(active[1] > (int)agents / 10);
    CHECK(active[2] > (int)agents / 20);
    /* Cheap: a handful of the 10,000 obstacles per query on average. */
    double mean = (double)touched / (double)agents;
    if (!(mean < 40.0) || most > 400u)
        runner_fail(__FILE__, __LINE__,
                    "%dD: an avoidance query reads %.1f entries on average, "
                    "%u at most",
                    dims, mean, most);

    /* The kernel does read the grid: with the cells emptied, no obstacle
     * is found (the planes stay). */
    uint32_t cells = g->cell_count;
    g->cell_count = 0;
    int found = 0;
    for (uint32_t row = 0; row < agents; row++) {
        steer_ctx a;
        steer_ctx_load(&a, w, row, 0.05f);
        float f[3];
        found += steer_env_force(&a, &list[0], f);
    }
    g->cell_count = cells;
    CHECK_EQ_INT(found, 0);

    /* And stepping goes through the same code in parallel without harm. */
    CHECK_OK(throng_world_set_threads(w, 4));
    CHECK_OK(throng_world_step(w, 0.05f));
    throng_world_destroy(w);
}

TEST(steer_env_grid_2d) {
    env_grid_compare(2);
}
TEST(steer_env_grid_3d) {
    env_grid_compare(3);
}

/* ------------------------------------------------------------------------ */
/* End to end                                                               */
/* ------------------------------------------------------------------------ */

/* The test's own copy of a field: circles/spheres and boxes. */
typedef struct env_field {
    int count;
    int is_box[256];
    float lo[256][3], hi[256][3]; /* boxes; spheres: centre in lo, r hi[0] */
} env_field;

/* Clearance between obstacles' bounding spheres, so agents can pass. */
static int env_field_free(const env_field *f, const float c[3], float r,
                          int dims, float gap) {
    for (int i = 0; i < f->count; i++) {
        double d2 = 0.0, ri;
        double ci[3];
        if (f->is_box[i]) {
            double h2 = 0.0;
            for (int k = 0; k < dims; k++) {
                ci[k] = 0.5 * ((double)f->lo[i][k] + (double)f->hi[i][k]);
                double h = 0.5 * ((double)f->hi[i][k] - (double)f->lo[i][k]);
                h2 += h * h;
            }
            ri = sqrt(h2);
        } else {
            for (int k = 0; k < dims; k++)
                ci[k] = (double)f->lo[i][k];
            ri = (double)f->hi[i][0];
        }
        for (int k = 0; k < dims; k++)
            d2 += ((double)c[k] - ci[k]) * ((double)c[k] - ci[k]);
        if (sqrt(d2) < ri + (double)r + (double)gap)
            return 0;
    }
    return 1;
}

static void env_field_make(throng_world *w, env_field *f, int dims, int want,
                           const float lo[3], const float hi[3], int boxes,
                           uint64_t seed) {
    test_rng rng = test_rng_make(seed);
    f->count = 0;
    for (int tries = 0; tries < 20000 && f->count < want; tries++) {
        float c[3] = { 0.0f, 0.0f, 0.0f }, half[3] = { 0.0f, 0.0f, 0.0f };
        for (int k = 0; k < dims; k++)
            c[k] = test_rng_range(&rng, lo[k], hi[k]);
        int box = boxes && test_rng_below(&rng, 3u) == 0u;
        float r = test_rng_range(&rng, 0.5f, 1.5f);
        float bound = r;
        if (box) {
            double h2 = 0.0;
            for (int k = 0; k < dims; k++) {
                half[k] = test_rng_range(&rng, 0.5f, 1.5f);
                h2 += (double)(half[k] * half[k]);
            }
            bound = (float)sqrt(h2);
        }
        if (!env_field_free(f, c, bound, dims, 1.5f))
            continue;
        int i = f->count++;
        f->is_box[i] = box;
        if (box) {
            for (int k = 0; k < 3; k++) {
                f->lo[i][k] = c[k] - half[k];
                f->hi[i][k] = c[k] + half[k];
            }
            env_box(w, f->lo[i], f->hi[i]);
        } else {
            memcpy(f->lo[i], c, sizeof c);
            f->hi[i][0] = r;
            env_sphere(w, c[0], c[1], c[2], r);
        }
    }
}

/* How many of the agents have their centre strictly inside an obstacle. */
static int env_field_inside(const env_field *f, const float p[3], int dims) {
    for (int i = 0; i < f->count; i++) {
        if (f->is_box[i]) {
            int in = 1;
            for (int k = 0; k < dims; k++)
                in &= p[k] > f->lo[i][k] && p[k] < f->hi[i][k];
            if (in)
                return 1;
        } else {
            double d2 = 0.0;
            for (int k = 0; k < dims; k++)
                d2 += ((double)p[k] - (double)f->lo[i][k]) *
                      ((double)p[k] - (double)f->lo[i][k]);
            if (d2 < (double)f->hi[i][0] * (double)f->hi[i][0])
                return 1;
        }
    }
    return 0;
}

/* Agents seek across a field of obstacles from one side to the other and
 * back (seek overshoots its target); avoidance has priority over seek.
 * Criterion: no agent's centre is ever inside an obstacle, and most
 * agents make it across. Without avoidance, the same run does hit
 * obstacles (the field is in the way). Returns the number of agent-steps
 * spent inside obstacles. */
static int env_field_run(int dims, int avoid, int *crossed) {
    throng_world *w = env_world(dims);
    if (!w)
        return -1;
    throng_world_set_threads(w, 0);
    static env_field field;
    const float lo[3] = { 0.0f, 0.0f, 0.0f };
    const float hi[3] = { 40.0f, 40.0f, 40.0f };
    env_field_make(w, &field, dims, dims == 2 ? 160 : 220, lo, hi, 1,
                   dims == 2 ? 21u : 22u);

    throng_behaviour list[2];
    int n = 0;
    if (avoid) {
        list[n] = throng_behaviour_default(THRONG_BEHAVIOUR_AVOID_OBSTACLES);
        list[n].priority = 1;
        list[n].u.avoid.lookahead_time = 1.5f;
        n++;
    }
    list[n] = throng_behaviour_default(THRONG_BEHAVIOUR_SEEK);
    n++;
    throng_group group = env_group(w, THRONG_COMBINE_PRIORITY, list, n);

    test_rng rng = test_rng_make(5u);
    enum {
        AGENTS = 60
    };
    throng_agent h[AGENTS];
    float goal[AGENTS];
    for (int i = 0; i < AGENTS; i++) {
        throng_agent_def d = throng_agent_def_default();
        d.group = group;
        d.position[0] = test_rng_range(&rng, -8.0f, -3.0f);
        for (int k = 1; k < dims; k++)
            d.position[k] = test_rng_range(&rng, 2.0f, 38.0f);
        d.max_speed = 1.5f;
        d.max_force = 4.0f;
        d.radius = 0.25f;
        throng_agent_add(w, &d, &h[i]);
        float target[3] = { 48.0f, d.position[1], d.position[2] };
        throng_agent_set_target_point(w, h[i], target);
        goal[i] = 0.0f;
    }
    int inside = 0;
    for (int step = 0; step < 1200; step++) {
        throng_world_step(w, 0.05f);
        for (int i = 0; i < AGENTS; i++) {
            float p[3];
            throng_agent_get_position(w, h[i], p);
            inside += env_field_inside(&field, p, dims);
            goal[i] = p[0] > goal[i] ? p[0] : goal[i];
        }
    }
    *crossed = 0;
    for (int i = 0; i < AGENTS; i++)
        *crossed += goal[i] > 42.0f;
    throng_world_destroy(w);
    return inside;
}

TEST(steer_env_avoid_field_2d) {
    int crossed = 0;
    int inside = env_field_run(2, 1, &crossed);
    CHECK_EQ_INT(inside, 0);
    CHECK(crossed >= 50); /* of 60 */
    int control = env_field_run(2, 0, &crossed);
    CHECK(control > 100); /* without avoidance they run into the field */
}

TEST(steer_env_avoid_field_3d) {
    int crossed = 0;
    int inside = env_field_run(3, 1, &crossed);
    CHECK_EQ_INT(inside, 0);
    CHECK(crossed >= 50);
    int control = env_field_run(3, 0, &crossed);
    CHECK(control > 100);
}

/* Agents wander (turn-rate wander), a third of them also seeking a point
 * far outside; containment, with the highest priority, must keep every
 * agent inside: the box (use_box) or the region behind a set of planes
 * (3D, use_walls: the six faces of the box and a slanted cut). Returns
 * the agent-steps spent outside; *reached is how many agents came within
 * the reaction range of some wall, so the test is not vacuous. */
static int env_contain_run(int dims, int planes, int contain, int *reached) {
    throng_world *w = env_world(dims);
    if (!w)
        return -1;
    throng_world_set_threads(w, 0);
    const float size = 30.0f, range = 3.0f;
    float pn[7][3], pp[7][3];
    int plane_count = 0;
    if (planes) {
        for (int k = 0; k < 3; k++)
            for (int s = 0; s < 2; s++) {
                float *n = pn[plane_count], *p = pp[plane_count];
                memset(n, 0, 3 * sizeof *n);
                memset(p, 0, 3 * sizeof *p);
                n[k] = s ? -1.0f : 1.0f;
                p[k] = s ? size : 0.0f;
                plane_count++;
            }
        /* x + y + z <= 60: normal (-1, -1, -1) / sqrt 3. */
        float *n = pn[plane_count], *p = pp[plane_count];
        for (int k = 0; k < 3; k++) {
            n[k] = -0.57735027f;
            p[k] = 20.0f;
        }
        plane_count++;
        for (int i = 0; i < plane_count; i++)
            env_plane(w, pp[i], pn[i]);
    }
    throng_behaviour c = throng_behaviour_default(THRONG_BEHAVIOUR_CONTAIN);
    c.priority = 2;
    c.u.contain.use_box = !planes;
    c.u.contain.use_walls = planes != 0;
    c.u.contain.range = range;
    for (int k = 0; k < 3 && !planes; k++) {
        c.u.contain.box_min[k] = 0.0f;
        c.u.contain.box_max[k] = size;
    }
    throng_behaviour s = throng_behaviour_default(THRONG_BEHAVIOUR_SEEK);
    s.u.seek.source = THRONG_TARGET_FIXED_POINT;
    s.u.seek.point[0] = 200.0f;
    s.u.seek.point[1] = -100.0f;
    s.u.seek.point[2] = 150.0f;
    throng_behaviour list[2] = { c, s };
    throng_group groups[2];
    for (int i = 0; i < 2; i++) {
        throng_group_def g = throng_group_def_default();
        g.combine = THRONG_COMBINE_PRIORITY;
        g.wander.weight = 1.0f;
        g.wander.max_turn_rate = 0.2f;
        g.wander.max_turn_change = 0.05f;
        throng_group_create(w, &g, &groups[i]);
        if (contain)
            throng_group_add_behaviour(w, groups[i], &list[0], NULL);
        if (i == 1)
            throng_group_add_behaviour(w, groups[i], &list[1], NULL);
    }
    test_rng rng = test_rng_make(9u);
    enum {
        AGENTS = 150
    };
    throng_agent h[AGENTS];
    for (int i = 0; i < AGENTS; i++) {
        throng_agent_def d = throng_agent_def_default();
        d.group = groups[i % 3 == 0];
        for (int k = 0; k < dims; k++) {
            d.position[k] = test_rng_range(&rng, 5.0f, 19.0f);
            d.velocity[k] = test_rng_range(&rng, -2.0f, 2.0f);
        }
        d.max_speed = 2.0f;
        d.max_force = 6.0f;
        throng_agent_add(w, &d, &h[i]);
    }
    int outside = 0;
    int close[AGENTS];
    memset(close, 0, sizeof close);
    for (int step = 0; step < 2000; step++) {
        throng_world_step(w, 0.05f);
        for (int i = 0; i < AGENTS; i++) {
            float p[3];
            throng_agent_get_position(w, h[i], p);
            double nearest = 1e30;
            if (planes) {
                for (int j = 0; j < plane_count; j++) {
                    double d = 0.0;
                    for (int k = 0; k < 3; k++)
                        d += ((double)p[k] - (double)pp[j][k]) *
                             (double)pn[j][k];
                    nearest = d < nearest ? d : nearest;
                }
            } else {
                for (int k = 0; k < dims; k++) {
                    double d0 = (double)p[k], d1 = (double)(size - p[k]);
                    nearest = d0 < nearest ? d0 : nearest;
                    nearest = d1 < nearest ? d1 : nearest;
                }
            }
            outside += !(nearest > 0.0);
            close[i] |= nearest < (double)range;
        }
    }
    *reached = 0;
    for (int i = 0; i < AGENTS; i++)
        *reached += close[i];
    throng_world_destroy(w);
    return outside;
}

TEST(steer_env_contain_run_2d) {
    int reached = 0;
    CHECK_EQ_INT(env_contain_run(2, 0, 1, &reached), 0);
    CHECK(reached > 100); /* of 150 */
    CHECK(env_contain_run(2, 0, 0, &reached) > 1000);
}

TEST(steer_env_contain_run_3d) {
    int reached = 0;
    CHECK_EQ_INT(env_contain_run(3, 0, 1, &reached), 0);
    CHECK(reached > 100);
    CHECK(env_contain_run(3, 0, 0, &reached) > 1000);
}

TEST(steer_env_contain_run_planes_3d) {
    int reached = 0;
    CHECK_EQ_INT(env_contain_run(3, 1, 1, &reached), 0);
    CHECK(reached > 100);
    CHECK(env_contain_run(3, 1, 0, &reached) > 1000);
}

/* Wall following along a long wall: starting 3 m off it, the agent
 * settles at `distance` = 1 m (seek towards a point 1 m off the wall and
 * 2 m ahead: the offset decays like exp(-s t / ahead)) and keeps moving
 * along it at its target speed. After 15 s the distance stays within
 * 0.02 m of 1 m. 2D segment (both sides) and 3D plane. */
TEST(steer_env_follow_wall_run) {
    for (int dims = 2; dims <= 3; dims++)
        for (int from_below = 0; from_below < (dims == 2 ? 2 : 1);
             from_below++) {
            throng_world *w = env_world(dims);
            REQUIRE(w != NULL);
            const float origin[3] = { 0.0f, 0.0f, 0.0f };
            int axis = dims == 2 ? 1 : 2; /* the wall's normal axis */
            if (dims == 2) {
                env_segment(w, -500.0f, 0.0f, 500.0f, 0.0f);
            } else {
                const float nz[3] = { 0.0f, 0.0f, 1.0f };
                env_plane(w, origin, nz);
            }
            throng_behaviour b =
                throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_WALL);
            b.u.contain.range = 5.0f;
            throng_group g = env_group(w, THRONG_COMBINE_WEIGHTED_SUM, &b, 1);
            throng_agent_def d = throng_agent_def_default();
            d.group = g;
            const float sign = from_below ? -1.0f : 1.0f;
            d.position[axis] = 3.0f * sign;
            d.velocity[0] = from_below ? -1.0f : 1.0f;
            if (dims == 3)
                d.velocity[1] = 0.5f;
            d.max_speed = 1.0f;
            d.max_force = 2.0f;
            throng_agent h;
            REQUIRE_OK(throng_agent_add(w, &d, &h));
            double worst = 0.0, travelled = 0.0;
            float prev[3];
            throng_agent_get_position(w, h, prev);
            for (int step = 0; step < 800; step++) { /* 40 s */
                REQUIRE_OK(throng_world_step(w, 0.05f));
                float p[3], v[3];
                throng_agent_get_position(w, h, p);
                throng_agent_get_velocity(w, h, v);
                if (step >= 300) {
                    double off = fabs(fabs((double)p[axis]) - 1.0);
                    worst = off > worst ? off : worst;
                    CHECK(p[axis] * sign > 0.0f); /* stays on its side */
                    double along = 0.0;
                    for (int k = 0; k < dims; k++)
                        if (k != axis)
                            along += (double)(v[k] * v[k]);
                    CHECK(sqrt(along) > 0.95);
                }
                double dx = (double)(p[0] - prev[0]) * (double)d.velocity[0];
                travelled += dx;
                memcpy(prev, p, sizeof p);
            }
            if (!(worst <= 0.02))
                runner_fail(__FILE__, __LINE__,
                            "%dD side %d: distance off by up to %g m", dims,
                            from_below, worst);
            CHECK(travelled > 25.0); /* along its way, not back */
            throng_world_destroy(w);
        }
}

/* ------------------------------------------------------------------------ */
/* Out of memory                                                            */
/* ------------------------------------------------------------------------ */

/* The obstacle grid cannot be built: the step is refused with
 * OUT_OF_MEMORY and the world is unchanged; once memory is back the step
 * runs and the new obstacle matters. Adding the first object without
 * memory is refused too. */
TEST(steer_env_out_of_memory) {
    ts_heap heap = { 0 };
    throng_world *w = ts_world(2, 1, &heap);
    REQUIRE(w != NULL);
    throng_behaviour b = env_behaviour(THRONG_BEHAVIOUR_AVOID_OBSTACLES);
    throng_agent_def d = throng_agent_def_default();
    d.group = env_group(w, THRONG_COMBINE_WEIGHTED_SUM, &b, 1);
    d.velocity[0] = 1.0f;
    d.max_speed = 4.0f;
    throng_agent h;
    REQUIRE_OK(throng_agent_add(w, &d, &h));
    REQUIRE_OK(throng_world_step(w, 0.05f)); /* warm up */

    heap.refuse_all = true;
    const float c[3] = { 3.0f, 0.3f, 0.0f };
    throng_object o;
    CHECK_ENV_REFUSED(w, add_sphere(w, c, 0.5f, &o), THRONG_ERR_OUT_OF_MEMORY);
    heap.refuse_all = false;
    REQUIRE_OK(add_sphere(w, c, 0.5f, &o));
    heap.refuse_all = true;
    CHECK_ENV_REFUSED(w, throng_world_step(w, 0.05f), THRONG_ERR_OUT_OF_MEMORY);
    heap.refuse_all = false;
    float v0[3], v1[3];
    throng_agent_get_velocity(w, h, v0);
    REQUIRE_OK(throng_world_step(w, 0.05f));
    throng_agent_get_velocity(w, h, v1);
    CHECK(v1[1] < v0[1] - 0.01f); /* pushed away from the circle above */
    throng_world_destroy(w);
}

void register_steer_env_tests(void) {
    REGISTER(steer_env_create_refusals);
    REGISTER(steer_env_create_stores);
    REGISTER(steer_env_remove);
    REGISTER(steer_env_behaviour_params);
    REGISTER(steer_env_avoid_2d);
    REGISTER(steer_env_avoid_3d);
    REGISTER(steer_env_contain_2d);
    REGISTER(steer_env_contain_3d);
    REGISTER(steer_env_contain_many_walls);
    REGISTER(steer_env_follow_wall_hand);
    REGISTER(steer_env_grid_2d);
    REGISTER(steer_env_grid_3d);
    REGISTER(steer_env_avoid_field_2d);
    REGISTER(steer_env_avoid_field_3d);
    REGISTER(steer_env_contain_run_2d);
    REGISTER(steer_env_contain_run_3d);
    REGISTER(steer_env_contain_run_planes_3d);
    REGISTER(steer_env_follow_wall_run);
    REGISTER(steer_env_out_of_memory);
}
