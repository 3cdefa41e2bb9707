/* SPDX-License-Identifier: MIT */
/*
 * Tests of the route behaviours (see src/behaviour.h): paths and flow
 * fields as objects, patrol, path following and flow following.
 *
 * Hand-worked cases put one agent in a group whose only term is the
 * behaviour, combined by WEIGHTED_SUM with weight 1, so the step's force is
 * exactly the behaviour's F = m (v_d - v) / dt. With max force high enough
 * not to truncate, the velocity after one step is then v_d itself, which
 * the tests compare with the numbers worked in the comments. End-to-end
 * runs check what a user would see: checkpoints visited in order, agents
 * kept inside a self-crossing path's corridor, agents carried by a field.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "object_defs.h"
#include "runner.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

static throng_world *route_world_with(int dims, int threads, ts_heap *heap) {
    throng_world_def d = ts_world_def(dims, threads, heap);
    d.max_dt = 10.0f; /* one tick per step: one step's formulas */
    return ts_world_make(&d);
}

static throng_world *route_world(int dims) {
    return route_world_with(dims, 1, NULL);
}

/* A group whose only term is `b`, summed with weight 1. */
static throng_group route_group(throng_world *w, const throng_behaviour *b) {
    throng_group_def g = throng_group_def_default();
    g.combine = THRONG_COMBINE_WEIGHTED_SUM;
    throng_group id = THRONG_NULL_GROUP;
    if (throng_group_create(w, &g, &id) != THRONG_OK ||
        throng_group_add_behaviour(w, id, b, NULL) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "group refused: %s",
                    throng_world_last_error(w));
    return id;
}

static throng_agent route_agent(throng_world *w, throng_group group,
                                const float p[3], const float v[3], float mass,
                                float max_force, float max_speed) {
    throng_agent_def a = throng_agent_def_default();
    memcpy(a.position, p, sizeof a.position);
    memcpy(a.velocity, v, sizeof a.velocity);
    a.mass = mass;
    a.max_force = max_force;
    a.max_speed = max_speed;
    a.group = group;
    throng_agent h = THRONG_NULL_AGENT;
    if (throng_agent_add(w, &a, &h) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "agent refused: %s",
                    throng_world_last_error(w));
    return h;
}

/* A refusal must give `want`, leave a sentence, and change neither the
 * state hash nor the number of objects. */
static void route_refused(throng_world *w, uint64_t hash, uint32_t objects,
                          throng_status got, throng_status want,
                          const char *expr, int line) {
    if (got != want) {
        runner_fail(__FILE__, line, "%s: got %d (%s), want %d (%s)", expr,
                    (int)got, throng_status_string(got), (int)want,
                    throng_status_string(want));
        return;
    }
    if (strlen(throng_world_last_error(w)) < 8u)
        runner_fail(__FILE__, line, "%s: no sentence in last_error", expr);
    if (throng_world_hash(w) != hash)
        runner_fail(__FILE__, line, "%s: refused but changed the hash", expr);
    if (throng_world_object_count(w) != objects)
        runner_fail(__FILE__, line,
                    "%s: refused but changed the objects "
                    "(%u -> %u)",
                    expr, objects, throng_world_object_count(w));
}

#define CHECK_ROUTE_REFUSED(w, expr, want)                                \
    do {                                                                  \
        uint64_t route_hash_ = throng_world_hash(w);                      \
        uint32_t route_objects_ = throng_world_object_count(w);           \
        throng_status route_got_ = (expr);                                \
        route_refused(w, route_hash_, route_objects_, route_got_, (want), \
                      #expr, __LINE__);                                   \
    } while (0)

static void route_vec(throng_world *w, throng_agent h, int position,
                      double out[3]) {
    float f[3] = { 0.0f, 0.0f, 0.0f };
    if (position)
        throng_agent_get_position(w, h, f);
    else
        throng_agent_get_velocity(w, h, f);
    test_to_double3(f, out);
}

static uint32_t route_progress(throng_world *w, throng_agent h) {
    uint32_t p = 0;
    if (throng_agent_get_progress(w, h, &p) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "get_progress refused: %s",
                    throng_world_last_error(w));
    return p;
}

/* Distance from x to segment a-b, in double. */
static double route_segment_distance(const double x[3], const double a[3],
                                     const double b[3]) {
    double ab[3], ax[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k];
        ax[k] = x[k] - a[k];
    }
    double l2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
    double t = (ax[0] * ab[0] + ax[1] * ab[1] + ax[2] * ab[2]) / l2;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    double d[3];
    for (int k = 0; k < 3; k++)
        d[k] = ax[k] - t * ab[k];
    return test_len3(d);
}

/* ------------------------------------------------------------------------ */
/* Creating and removing objects                                            */
/* ------------------------------------------------------------------------ */

TEST(steer_route_path_create_refusals) {
    for (int dims = 2; dims <= 3; dims++) {
        ts_heap heap = { 0 };
        throng_world *w = route_world_with(dims, 1, &heap);
        REQUIRE(w != NULL);
        float p[4][3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 }, { 0, 1, 0 } };
        const float v0[3] = { 0.5f, 0.0f, 0.0f };
        route_agent(w, THRONG_NULL_GROUP, p[0], v0, 1.0f, 10.0f, 1.0f);
        throng_object o = { 77u, 77u, 77u };
        const float *pts = &p[0][0];
        const float nan = nanf(""), inf = INFINITY;

        CHECK_STATUS(add_path(NULL, pts, 4, 1.0f, false, &o), THRONG_ERR_NULL);
        CHECK_ROUTE_REFUSED(w, add_path(w, NULL, 4, 1.0f, false, &o),
                            THRONG_ERR_NULL);
        CHECK_ROUTE_REFUSED(w, add_path(w, pts, 4, 1.0f, false, NULL),
                            THRONG_ERR_NULL);
        CHECK_ROUTE_REFUSED(w, add_path(w, pts, 0, 1.0f, false, &o),
                            THRONG_ERR_OUT_OF_RANGE);
        CHECK_ROUTE_REFUSED(w, add_path(w, pts, 1, 1.0f, true, &o),
                            THRONG_ERR_OUT_OF_RANGE);
        /* Refused on the count alone: the 4 points must not be read past
         * (ASan would see it). */
        CHECK_ROUTE_REFUSED(
            w, add_path(w, pts, THRONG_MAX_PATH_POINTS + 1u, 1.0f, false, &o),
            THRONG_ERR_OUT_OF_RANGE);
        CHECK_ROUTE_REFUSED(w, add_path(w, pts, 4, 0.0f, false, &o),
                            THRONG_ERR_OUT_OF_RANGE);
        CHECK_ROUTE_REFUSED(w, add_path(w, pts, 4, -1.0f, false, &o),
                            THRONG_ERR_OUT_OF_RANGE);
        CHECK_ROUTE_REFUSED(w, add_path(w, pts, 4, nan, false, &o),
                            THRONG_ERR_NOT_FINITE);
        CHECK_ROUTE_REFUSED(w, add_path(w, pts, 4, inf, false, &o),
                            THRONG_ERR_NOT_FINITE);

        float bad[4][3];
        memcpy(bad, p, sizeof bad);
        bad[2][0] = nan;
        CHECK_ROUTE_REFUSED(w, add_path(w, &bad[0][0], 4, 1.0f, false, &o),
                            THRONG_ERR_NOT_FINITE);
        memcpy(bad, p, sizeof bad);
        bad[3][1] = -inf;
        CHECK_ROUTE_REFUSED(w, add_path(w, &bad[0][0], 4, 1.0f, false, &o),
                            THRONG_ERR_NOT_FINITE);
        /* Consecutive points 5e-7 m apart, then equal ones. */
        memcpy(bad, p, sizeof bad);
        bad[2][0] = 1.0f;
        bad[2][1] = 5e-7f;
        bad[1][0] = 1.0f;
        bad[1][1] = 0.0f;
        CHECK_ROUTE_REFUSED(w, add_path(w, &bad[0][0], 4, 1.0f, false, &o),
                            THRONG_ERR_OUT_OF_RANGE);
        memcpy(bad, p, sizeof bad);
        memcpy(bad[3], bad[2], sizeof bad[3]);
        CHECK_ROUTE_REFUSED(w, add_path(w, &bad[0][0], 4, 1.0f, false, &o),
                            THRONG_ERR_OUT_OF_RANGE);
        /* Last back to first counts only for a closed path. */
        memcpy(bad, p, sizeof bad);
        memcpy(bad[3], bad[0], sizeof bad[3]);
        CHECK_ROUTE_REFUSED(w, add_path(w, &bad[0][0], 4, 1.0f, true, &o),
                            THRONG_ERR_OUT_OF_RANGE);
        /* Longer than a float can measure. */
        float far[2][3] = { { -3e38f, 0, 0 }, { 3e38f, 0, 0 } };
        CHECK_ROUTE_REFUSED(w, add_path(w, &far[0][0], 2, 1.0f, false, &o),
                            THRONG_ERR_OUT_OF_RANGE);
        CHECK(o.id == 77u && o.generation == 77u); /* untouched */

        /* Out of memory: refused, and nothing kept. */
        size_t before = heap.live;
        heap.refuse_all = true;
        CHECK_ROUTE_REFUSED(w, add_path(w, pts, 4, 1.0f, false, &o),
                            THRONG_ERR_OUT_OF_MEMORY);
        heap.refuse_all = false;
        CHECK(heap.live == before);

        /* What is allowed: the open path whose last point is its first,
         * points 2e-6 m apart, and (2D) a NaN z, which is ignored. */
        CHECK_OK(add_path(w, &bad[0][0], 4, 1.0f, false, &o));
        float near[2][3] = { { 0, 0, 0 }, { 2e-6f, 0, 0 } };
        CHECK_OK(add_path(w, &near[0][0], 2, 1.0f, false, &o));
        if (dims == 2) {
            float flat[2][3] = { { 0, 0, nan }, { 1, 0, inf } };
            CHECK_OK(add_path(w, &flat[0][0], 2, 1.0f, true, &o));
        }
        CHECK_EQ_INT(throng_world_object_count(w), dims == 2 ? 3 : 2);
        throng_world_destroy(w);
        CHECK(heap.live == 0u);
    }
}

TEST(steer_route_flow_create_refusals) {
    for (int dims = 2; dims <= 3; dims++) {
        ts_heap heap = { 0 };
        throng_world *w = route_world_with(dims, 1, &heap);
        REQUIRE(w != NULL);
        const float p0[3] = { 0, 0, 0 }, v0[3] = { 0.5f, 0, 0 };
        route_agent(w, THRONG_NULL_GROUP, p0, v0, 1.0f, 10.0f, 1.0f);
        float vectors[8 * 3];
        for (int i = 0; i < 8 * 3; i++)
            vectors[i] = (float)(i % 5) - 2.0f;
        throng_flow_field_def good;
        memset(&good, 0, sizeof good);
        good.cell_size = 1.0f;
        good.size[0] = 2;
        good.size[1] = 2;
        good.size[2] = 2;
        good.vectors = vectors;
        throng_flow_field_def d;
        throng_object o = { 77u, 77u, 77u };

        CHECK_STATUS(throng_flow_field_add(NULL, &good, &o), THRONG_ERR_NULL);
        CHECK_ROUTE_REFUSED(w, throng_flow_field_add(w, NULL, &o),
                            THRONG_ERR_NULL);
        CHECK_ROUTE_REFUSED(w, throng_flow_field_add(w, &good, NULL),
                            THRONG_ERR_NULL);
        d = good;
        d.vectors = NULL;
        CHECK_ROUTE_REFUSED(w, throng_flow_field_add(w, &d, &o),
                            THRONG_ERR_NULL);
        d = good;
        d.origin[1] = nanf("");
        CHECK_ROUTE_REFUSED(w, throng_flow_field_add(w, &d, &o),
                            THRONG_ERR_NOT_FINITE);
        d = good;
        d.cell_size = INFINITY;
        CHECK_ROUTE_REFUSED(w, throng_flow_field_add(w, &d, &o),
                            THRONG_ERR_NOT_FINITE);
        d = good;
        d.cell_size = 0.0f;
        CHECK_ROUTE_REFUSED(w, throng_flow_field_add(w, &d, &o),
                            THRONG_ERR_OUT_OF_RANGE);
        d = good;
        d.cell_size = -2.0f;
        CHECK_ROUTE_REFUSED(w, throng_flow_field_add(w, &d, &o),
                            THRONG_ERR_OUT_OF_RANGE);
        d = good;
        d.size[1] = 0;
        CHECK_ROUTE_REFUSED(w, throng_flow_field_add(w, &d, &o),
                            THRONG_ERR_OUT_OF_RANGE);
        /* Too many cells, refused before the 8 vectors are read past. */
        d = good;
        d.size[0] = 1u << 14;
        d.size[1] = 1u << 13;
        d.size[2] = 1;
        CHECK_ROUTE_REFUSED(w, throng_flow_field_add(w, &d, &o),
                            THRONG_ERR_OUT_OF_RANGE);
        d.size[0] = d.size[1] = d.size[2] = UINT32_MAX;
        CHECK_ROUTE_REFUSED(w, throng_flow_field_add(w, &d, &o),
                            THRONG_ERR_OUT_OF_RANGE);
        /* The last component of the last vector: 2 x 2 (x 2) of them. */
        const int last = dims == 2 ? 4 * 2 - 1 : 8 * 3 - 1;
        vectors[last] = nanf("");
        CHECK_ROUTE_REFUSED(w, throng_flow_field_add(w, &good, &o),
                            THRONG_ERR_NOT_FINITE);
        vectors[last] = 1.0f;
        if (dims == 3) {
            d = good;
            d.size[2] = 0;
            CHECK_ROUTE_REFUSED(w, throng_flow_field_add(w, &d, &o),
                                THRONG_ERR_OUT_OF_RANGE);
        }
        CHECK(o.id == 77u && o.generation == 77u);

        size_t before = heap.live;
        heap.refuse_all = true;
        CHECK_ROUTE_REFUSED(w, throng_flow_field_add(w, &good, &o),
                            THRONG_ERR_OUT_OF_MEMORY);
        heap.refuse_all = false;
        CHECK(heap.live == before);

        /* In 2D size[2] and origin[2] are ignored. */
        d = good;
        if (dims == 2) {
            d.size[2] = 0;
            d.origin[2] = nanf("");
        }
        CHECK_OK(throng_flow_field_add(w, &d, &o));
        CHECK(o.id != 0u);
        CHECK_EQ_INT(throng_world_object_count(w), 1);
        throng_world_destroy(w);
        CHECK(heap.live == 0u);
    }
}

/* Behaviour parameters: each bad one refused with its code, the world
 * unchanged. */
TEST(steer_route_behaviour_refusals) {
    throng_world *w = route_world(2);
    REQUIRE(w != NULL);
    const float p0[3] = { 0, 0, 0 }, v0[3] = { 0.5f, 0, 0 };
    route_agent(w, THRONG_NULL_GROUP, p0, v0, 1.0f, 10.0f, 1.0f);
    float pts[2][3] = { { 0, 0, 0 }, { 5, 0, 0 } };
    float vec[2] = { 1.0f, 0.0f };
    throng_object path, field;
    REQUIRE_OK(add_path(w, &pts[0][0], 2, 1.0f, false, &path));
    throng_flow_field_def fd;
    memset(&fd, 0, sizeof fd);
    fd.cell_size = 1.0f;
    fd.size[0] = fd.size[1] = 1;
    fd.vectors = vec;
    REQUIRE_OK(throng_flow_field_add(w, &fd, &field));

    throng_behaviour patrol = throng_behaviour_default(THRONG_BEHAVIOUR_PATROL);
    CHECK(patrol.u.path.reach == 0.5f && patrol.u.path.loop);
    CHECK(patrol.u.path.window == 4u && patrol.u.path.ahead == 1.0f);
    CHECK(patrol.u.path.prediction_time == 0.5f);
    CHECK(patrol.u.path.braking_distance == 0.0f);
    throng_behaviour follow =
        throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_PATH);
    throng_behaviour flow =
        throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_FLOW);
    CHECK(flow.u.flow.prediction_time == 0.0f && !flow.u.flow.raw);
    patrol.u.path.path = path;
    follow.u.path.path = path;
    flow.u.flow.field = field;
    throng_behaviour b;

    /* The object must be live and of the right kind. */
    b = patrol;
    b.u.path.path = THRONG_NULL_OBJECT;
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &b, NULL),
        THRONG_ERR_STALE_HANDLE);
    b.u.path.path = field;
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &b, NULL),
        THRONG_ERR_STALE_HANDLE);
    b.u.path.path =
        (throng_object){ path.id, path.generation + 1u, path.world };
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &b, NULL),
        THRONG_ERR_STALE_HANDLE);
    b = follow;
    b.u.path.path = (throng_object){ 99u, 1u, path.world };
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &b, NULL),
        THRONG_ERR_STALE_HANDLE);
    b = flow;
    b.u.flow.field = path;
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &b, NULL),
        THRONG_ERR_STALE_HANDLE);

    b = patrol;
    b.u.path.reach = 0.0f;
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &b, NULL),
        THRONG_ERR_OUT_OF_RANGE);
    b.u.path.reach = nanf("");
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &b, NULL),
        THRONG_ERR_NOT_FINITE);
    b = patrol;
    b.u.path.braking_distance = -1.0f;
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &b, NULL),
        THRONG_ERR_OUT_OF_RANGE);
    b.u.path.braking_distance = INFINITY;
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &b, NULL),
        THRONG_ERR_NOT_FINITE);
    b = follow;
    b.u.path.window = 0u;
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &b, NULL),
        THRONG_ERR_OUT_OF_RANGE);
    b = follow;
    b.u.path.ahead = -0.5f;
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &b, NULL),
        THRONG_ERR_OUT_OF_RANGE);
    b = follow;
    b.u.path.prediction_time = -1.0f;
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &b, NULL),
        THRONG_ERR_OUT_OF_RANGE);
    b.u.path.prediction_time = nanf("");
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &b, NULL),
        THRONG_ERR_NOT_FINITE);
    b = flow;
    b.u.flow.prediction_time = -0.1f;
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &b, NULL),
        THRONG_ERR_OUT_OF_RANGE);
    b.u.flow.prediction_time = INFINITY;
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &b, NULL),
        THRONG_ERR_NOT_FINITE);
    uint32_t n = 99u;
    CHECK_OK(throng_group_behaviour_count(w, default_group(w), &n));
    CHECK_EQ_INT(n, 0);

    /* A field the kind does not read must keep its default: refused,
     * with a sentence naming it, whatever its value. */
    b = follow;
    b.u.path.reach = 0.0f;
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &b, NULL),
        THRONG_ERR_INVALID_ARG);
    CHECK(strstr(throng_world_last_error(w), "path.reach is not read by "
                                             "FOLLOW_PATH") != NULL);
    b = patrol;
    b.u.path.window = 0u;
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &b, NULL),
        THRONG_ERR_INVALID_ARG);
    b.u.path.window = 4u;
    CHECK_OK(throng_group_add_behaviour(w, default_group(w), &b, NULL));
    CHECK_OK(throng_group_add_behaviour(w, default_group(w), &flow, NULL));
    throng_world_destroy(w);
}

/* A removed path or field: refused by name afterwards, and behaviours that
 * already name it go quiet (the agent coasts) without a NaN. The memory
 * goes back at once. */
TEST(steer_route_object_removal) {
    ts_heap heap = { 0 };
    throng_world *w = route_world_with(2, 1, &heap);
    REQUIRE(w != NULL);
    float pts[3][3] = { { 0, 0, 0 }, { 5, 0, 0 }, { 5, 5, 0 } };
    float vec[4 * 2] = { 1, 0, 1, 0, 0, 1, 0, 1 };
    throng_object path, field;
    REQUIRE_OK(add_path(w, &pts[0][0], 3, 1.0f, false, &path));
    throng_flow_field_def fd;
    memset(&fd, 0, sizeof fd);
    fd.cell_size = 2.0f;
    fd.size[0] = fd.size[1] = 2;
    fd.vectors = vec;
    REQUIRE_OK(throng_flow_field_add(w, &fd, &field));
    CHECK_EQ_INT(throng_world_object_count(w), 2);

    throng_behaviour kinds[3] = {
        throng_behaviour_default(THRONG_BEHAVIOUR_PATROL),
        throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_PATH),
        throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_FLOW)
    };
    kinds[0].u.path.path = path;
    kinds[1].u.path.path = path;
    kinds[2].u.flow.field = field;
    throng_agent h[3];
    double start[3][3];
    const float v0[3] = { 0.3f, -0.4f, 0.0f };
    for (int i = 0; i < 3; i++) {
        const float p[3] = { 1.0f + (float)i, 3.0f, 0.0f };
        h[i] =
            route_agent(w, route_group(w, &kinds[i]), p, v0, 1.0f, 10.0f, 1.0f);
    }
    /* Alive, each behaviour acts (the follower is 3 m off the path). */
    REQUIRE_OK(throng_world_step(w, 0.1f));
    for (int i = 0; i < 3; i++) {
        double v[3];
        route_vec(w, h[i], 0, v);
        CHECK(fabs(v[0] - 0.3) > 1e-3 || fabs(v[1] + 0.4) > 1e-3);
        const float reset[3] = { 0.3f, -0.4f, 0.0f };
        throng_agent_set_velocity(w, h[i], reset);
        route_vec(w, h[i], 1, start[i]);
    }

    size_t before = heap.live;
    CHECK_OK(throng_object_remove(w, path));
    CHECK_OK(throng_object_remove(w, field));
    CHECK(heap.live < before);
    CHECK_EQ_INT(throng_world_object_count(w), 0);
    CHECK_ROUTE_REFUSED(w, throng_object_remove(w, path),
                        THRONG_ERR_STALE_HANDLE);
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &kinds[0], NULL),
        THRONG_ERR_STALE_HANDLE);
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &kinds[2], NULL),
        THRONG_ERR_STALE_HANDLE);

    /* A new object may reuse the slot, with a new generation: the old
     * handle still names nothing. */
    throng_object again;
    REQUIRE_OK(add_path(w, &pts[0][0], 3, 1.0f, false, &again));
    CHECK(again.id != path.id || again.generation != path.generation);
    CHECK_ROUTE_REFUSED(
        w, throng_group_add_behaviour(w, default_group(w), &kinds[1], NULL),
        THRONG_ERR_STALE_HANDLE);

    for (int s = 0; s < 10; s++)
        REQUIRE_OK(throng_world_step(w, 0.1f));
    for (int i = 0; i < 3; i++) {
        double v[3], p[3];
        route_vec(w, h[i], 0, v);
        route_vec(w, h[i], 1, p);
        CHECK_NEAR(v[0], 0.3, 1e-6);
        CHECK_NEAR(v[1], -0.4, 1e-6);
        /* Coasting 1 s at (0.3, -0.4). */
        CHECK_NEAR(p[0], start[i][0] + 0.3, 1e-5);
        CHECK_NEAR(p[1], start[i][1] - 0.4, 1e-5);
    }
    throng_world_destroy(w);
    CHECK(heap.live == 0u);
}

/* ------------------------------------------------------------------------ */
/* Patrol, worked by hand                                                   */
/* ------------------------------------------------------------------------ */

/* Checkpoints (10,0), (10,10), (0,10). */
static const float patrol_points[3][3] = { { 10, 0, 0 },
                                           { 10, 10, 0 },
                                           { 0, 10, 0 } };

typedef struct patrol_case {
    float p[3], v[3];
    float mass, max_force, max_speed, speed_factor;
    float reach, braking;
    bool loop;
    uint32_t progress;
} patrol_case;

/* One step of one agent; its velocity after and its progress. */
static void patrol_step(const patrol_case *c, float dt, double v1[3],
                        uint32_t *progress) {
    throng_world *w = route_world(2);
    throng_object path;
    add_path(w, &patrol_points[0][0], 3, 1.0f, false, &path);
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_PATROL);
    b.u.path.path = path;
    b.u.path.loop = c->loop;
    b.u.path.reach = c->reach;
    b.u.path.braking_distance = c->braking;
    b.speed_factor = c->speed_factor;
    throng_agent h = route_agent(w, route_group(w, &b), c->p, c->v, c->mass,
                                 c->max_force, c->max_speed);
    throng_agent_set_progress(w, h, c->progress);
    if (throng_world_step(w, dt) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "step refused");
    route_vec(w, h, 0, v1);
    *progress = route_progress(w, h);
    throng_world_destroy(w);
}

/* The first step towards checkpoint 0, against seed 000 in double.
 * Agent at the origin, v = (0, 1), m = 2, s_t = 0.5 * 2 = 1, dt = 0.1; the
 * checkpoint (10, 0) is 10 m away, far outside D = 2^2 / (2 * 100 / 2) =
 * 0.04 (0.4 with max force 10), so v_d = (1, 0) and
 * F = 2 ((1, 0) - (0, 1)) / 0.1 = (20, -20).
 * With max force 100 it is not truncated: v1 = v_d = (1, 0). With max force
 * 10 it is cut to 10 (7.0711, -7.0711): v1 = (0.35355, 0.64645). */
TEST(steer_route_patrol_first_step) {
    patrol_case c = { { 0, 0, 0 }, { 0, 1, 0 }, 2.0f, 100.0f, 2.0f,
                      0.5f,        0.5f,        0.0f, true,   0u };
    double v1[3];
    uint32_t progress;
    patrol_step(&c, 0.1f, v1, &progress);
    CHECK_NEAR(v1[0], 1.0, 1e-5);
    CHECK_NEAR(v1[1], 0.0, 1e-5);
    CHECK_EQ_INT(progress, 0);

    c.max_force = 10.0f;
    patrol_step(&c, 0.1f, v1, &progress);
    const double v0[3] = { 0, 1, 0 }, force[3] = { 20.0, -20.0, 0.0 };
    double want[3];
    test_ref_vehicle(2.0, 10.0, 2.0, 0.1, v0, force, want);
    CHECK_NEAR(want[0], 0.5 * sqrt(0.5), 1e-9); /* the comment's figure */
    CHECK_NEAR(v1[0], want[0], 1e-5);
    CHECK_NEAR(v1[1], want[1], 1e-5);
}

/* Inside the braking distance and at the cap. */
TEST(steer_route_patrol_arrive_ramp) {
    /* Default D = 2^2 / (2 * 10 / 2) + 2 * 0.1 = 0.6. The agent is 0.3 m
     * short of (10, 0), reach 0.1: x = 0.5, f = 2 * 0.5 * 2.5 / 2 = 1.25
     * (below the cap 0.3 / 0.1 = 3). From v = (1.6, 0), F = 2 * -0.35 /
     * 0.1 = -7, under max force 10: v1 = (1.25, 0). */
    patrol_case c = { { 9.7f, 0, 0 }, { 1.6f, 0, 0 }, 2.0f, 10.0f, 2.0f,
                      1.0f,           0.1f,           0.0f, true,  0u };
    double v1[3];
    uint32_t progress;
    patrol_step(&c, 0.1f, v1, &progress);
    CHECK_NEAR(v1[0], 1.25, 1e-5);
    CHECK_NEAR(v1[1], 0.0, 1e-6);
    CHECK_EQ_INT(progress, 0);

    /* A given D = 4 with s_t = 1 (speed factor 0.5), 2 m short, from
     * rest: x = 0.5, f = 1 * 0.5 * 2.5 / 2 = 0.625; max force 100. */
    patrol_case r = { { 8, 0, 0 }, { 0, 0, 0 }, 2.0f, 100.0f, 2.0f,
                      0.5f,        0.1f,        4.0f, true,   0u };
    patrol_step(&r, 0.1f, v1, &progress);
    CHECK_NEAR(v1[0], 0.625, 1e-5);

    /* The cap: 0.6 m short with dt = 0.5 and a given D = 0.4: s_t = 2 but
     * at most 0.6 / 0.5 = 1.2, so v1 = (1.2, 0) (F = 2 * 1.2 / 0.5 = 4.8,
     * under max force 10). */
    patrol_case cap = { { 9.4f, 0, 0 }, { 0, 0, 0 }, 2.0f, 10.0f, 2.0f,
                        1.0f,           0.1f,        0.4f, true,  0u };
    patrol_step(&cap, 0.5f, v1, &progress);
    CHECK_NEAR(v1[0], 1.2, 1e-5);
}

/* Within reach: progress moves on and the agent heads for the next point
 * in the same step; after the last point it loops, or holds. */
TEST(steer_route_patrol_advance) {
    double v1[3];
    uint32_t progress;
    /* 0.3 m from checkpoint 0, reach 0.5: next is (10, 10), 10.3 m up:
     * v_d = (0, 2), F = 2 * 2 / 0.1 = 40 < 100. */
    patrol_case c = { { 10, -0.3f, 0 },
                      { 0, 0, 0 },
                      2.0f,
                      100.0f,
                      2.0f,
                      1.0f,
                      0.5f,
                      0.0f,
                      true,
                      0u };
    patrol_step(&c, 0.1f, v1, &progress);
    CHECK_EQ_INT(progress, 1);
    CHECK_NEAR(v1[0], 0.0, 1e-5);
    CHECK_NEAR(v1[1], 2.0, 1e-5);

    /* At the last checkpoint (0, 10), looping: back to (10, 0), which is
     * at (10.3, -10) from (-0.3, 10): v_d = 2 (10.3, -10) / 14.3558. */
    patrol_case last = { { -0.3f, 10, 0 },
                         { 0, 0, 0 },
                         2.0f,
                         100.0f,
                         2.0f,
                         1.0f,
                         0.5f,
                         0.0f,
                         true,
                         2u };
    patrol_step(&last, 0.1f, v1, &progress);
    CHECK_EQ_INT(progress, 0);
    double len = sqrt(10.3 * 10.3 + 100.0);
    CHECK_NEAR(v1[0], 2.0 * 10.3 / len, 1e-5);
    CHECK_NEAR(v1[1], -2.0 * 10.0 / len, 1e-5);

    /* Not looping: progress says done (3) and the agent holds (0, 10):
     * 0.3 m off, outside D = 2^2 / (2 * 100 / 2) = 0.04, under the cap 0.3
     * / 0.1 = 3: v_d = (2, 0). */
    last.loop = false;
    patrol_step(&last, 0.1f, v1, &progress);
    CHECK_EQ_INT(progress, 3);
    CHECK_NEAR(v1[0], 2.0, 1e-5);
    CHECK_NEAR(v1[1], 0.0, 1e-5);

    /* Progress past the end is clamped: 99 means the last point. From
     * (0, 5), (0, 10) is straight up, 5 m away. */
    patrol_case past = { { 0, 5, 0 }, { 0, 0, 0 }, 2.0f, 100.0f, 2.0f,
                         1.0f,        0.5f,        0.0f, false,  99u };
    patrol_step(&past, 0.1f, v1, &progress);
    CHECK_EQ_INT(progress, 99);
    CHECK_NEAR(v1[0], 0.0, 1e-5);
    CHECK_NEAR(v1[1], 2.0, 1e-5);
}

/* ------------------------------------------------------------------------ */
/* Path following, worked by hand                                           */
/* ------------------------------------------------------------------------ */

typedef struct follow_case {
    const float *points;
    uint32_t count;
    bool closed;
    float p[3], v[3];
    uint32_t progress;
    float ahead;
} follow_case;

/* One step, m = 1, max force 1000, s_t = 2, T = 0.5, radius 1, dt = 0.1:
 * v1 is v_d (or v when quiet). */
static void follow_step(throng_world *w, const follow_case *c, double v1[3],
                        uint32_t *progress) {
    throng_object path;
    if (add_path(w, c->points, c->count, 1.0f, c->closed, &path) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "path refused: %s",
                    throng_world_last_error(w));
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_PATH);
    b.u.path.path = path;
    b.u.path.ahead = c->ahead;
    throng_agent h =
        route_agent(w, route_group(w, &b), c->p, c->v, 1.0f, 1000.0f, 2.0f);
    throng_agent_set_progress(w, h, c->progress);
    if (throng_world_step(w, 0.1f) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "step refused");
    route_vec(w, h, 0, v1);
    *progress = route_progress(w, h);
}

static void follow_case_run(const follow_case *c, double v1[3],
                            uint32_t *progress) {
    throng_world *w = route_world(2);
    follow_step(w, c, v1, progress);
    throng_world_destroy(w);
}

/* The L path (0,0) -> (10,0) -> (10,10). */
static const float follow_l[3][3] = { { 0, 0, 0 },
                                      { 10, 0, 0 },
                                      { 10, 10, 0 } };

TEST(steer_route_follow_path_seek) {
    double v1[3];
    uint32_t progress;
    /* p = (3, 2), v = (1, 0): q = (3.5, 2); nearest (3.5, 0), 2 m off
     * (> 1); the target is 2 m further on, (5.5, 0); d = (2.5, -2), |d| =
     * sqrt(10.25): v_d = 2 (2.5, -2) / 3.2016 = (1.5617, -1.2494). */
    follow_case c = { &follow_l[0][0], 3,  false, { 3, 2, 0 },
                      { 1, 0, 0 },     0u, 2.0f };
    follow_case_run(&c, v1, &progress);
    CHECK_NEAR(v1[0], 2.0 * 2.5 / sqrt(10.25), 1e-5);
    CHECK_NEAR(v1[1], -2.0 * 2.0 / sqrt(10.25), 1e-5);
    CHECK_EQ_INT(progress, 0);

    /* The target turns the corner: p = (8, -2), q = (8.5, -2); segment 0
     * is nearer (2 m, against 2.5 m to (10, 0)); 8.5 + 3 = 11.5 m along is
     * (10, 1.5); d = (2, 3.5): v_d = 2 (2, 3.5) / sqrt(16.25). */
    follow_case corner = { &follow_l[0][0], 3,  false, { 8, -2, 0 },
                           { 1, 0, 0 },     0u, 3.0f };
    follow_case_run(&corner, v1, &progress);
    CHECK_NEAR(v1[0], 2.0 * 2.0 / sqrt(16.25), 1e-5);
    CHECK_NEAR(v1[1], 2.0 * 3.5 / sqrt(16.25), 1e-5);
    CHECK_EQ_INT(progress, 0);

    /* Nearer the second segment: p = (12.5, 3), v = (0, 1), q = (12.5,
     * 3.5): segment 1 is 2.5 m off, segment 0 (its end) sqrt(6.25 +
     * 12.25); segment 1 wins, target 10 + 3.5 + 2 = 15.5 m along = (10,
     * 5.5); d = (-2.5, 2.5): v_d = sqrt(2) (-1, 1). */
    follow_case second = { &follow_l[0][0], 3,  false, { 12.5f, 3, 0 },
                           { 0, 1, 0 },     0u, 2.0f };
    follow_case_run(&second, v1, &progress);
    CHECK_EQ_INT(progress, 1);
    CHECK_NEAR(v1[0], -sqrt(2.0), 1e-5);
    CHECK_NEAR(v1[1], sqrt(2.0), 1e-5);

    /* Past the end of the open path: p = (10.5, 12), v = (0, 1), q =
     * (10.5, 12.5): nearest is the end (10, 10), 2.55 m off; the target is
     * clamped to it: d = (-0.5, -2): v_d = 2 (-0.5, -2) / sqrt(4.25). */
    follow_case end = { &follow_l[0][0], 3,  false, { 10.5f, 12, 0 },
                        { 0, 1, 0 },     1u, 2.0f };
    follow_case_run(&end, v1, &progress);
    CHECK_EQ_INT(progress, 1);
    CHECK_NEAR(v1[0], -1.0 / sqrt(4.25), 1e-5);
    CHECK_NEAR(v1[1], -4.0 / sqrt(4.25), 1e-5);
}

TEST(steer_route_follow_path_quiet_inside) {
    double v1[3];
    uint32_t progress;
    /* p = (3, 0.5), v = (1, 0.2): q = (3.5, 0.6), 0.6 m off, inside the
     * radius 1: no force, v1 = v. Progress still tracks the segment. */
    follow_case c = { &follow_l[0][0], 3,  false, { 3, 0.5f, 0 },
                      { 1, 0.2f, 0 },  0u, 2.0f };
    follow_case_run(&c, v1, &progress);
    CHECK_NEAR(v1[0], 1.0, 1e-7);
    CHECK_NEAR(v1[1], 0.2, 1e-7);
    CHECK_EQ_INT(progress, 0);
    /* Just inside the second segment's corridor. */
    follow_case d = { &follow_l[0][0], 3,  false, { 10.9f, 4, 0 },
                      { 0, 1, 0 },     0u, 2.0f };
    follow_case_run(&d, v1, &progress);
    CHECK_NEAR(v1[0], 0.0, 1e-7);
    CHECK_NEAR(v1[1], 1.0, 1e-7);
    CHECK_EQ_INT(progress, 1);
}

/* The search starts at the agent's progress and never looks back; ties go
 * to the earlier segment. */
TEST(steer_route_follow_path_window) {
    double v1[3];
    uint32_t progress;
    /* Progress 1, though q = (3.5, 0.2) lies on segment 0: only segment 1
     * is searched; its nearest point (10, 0.2) is 6.5 m off; target 10 +
     * 0.2 + 2 = 12.2 m along = (10, 2.2); from p = (3, 0.2), d = (7, 2):
     * v_d = 2 (7, 2) / sqrt(53). */
    follow_case c = { &follow_l[0][0], 3,  false, { 3, 0.2f, 0 },
                      { 1, 0, 0 },     1u, 2.0f };
    follow_case_run(&c, v1, &progress);
    CHECK_EQ_INT(progress, 1);
    CHECK_NEAR(v1[0], 14.0 / sqrt(53.0), 1e-5);
    CHECK_NEAR(v1[1], 4.0 / sqrt(53.0), 1e-5);

    /* A tie: q = (12, -2) is sqrt(8) from (10, 0), the nearest point of
     * both segments; the earlier one keeps the progress. */
    follow_case tie = { &follow_l[0][0], 3,  false, { 11.5f, -2, 0 },
                        { 1, 0, 0 },     0u, 2.0f };
    follow_case_run(&tie, v1, &progress);
    CHECK_EQ_INT(progress, 0);

    /* A window of 1 on a long path: only the progress segment. */
    const float line[5][3] = {
        { 0, 0, 0 }, { 1, 0, 0 }, { 2, 0, 0 }, { 3, 0, 0 }, { 4, 0, 0 }
    };
    throng_world *w = route_world(2);
    throng_object path;
    REQUIRE_OK(add_path(w, &line[0][0], 5, 0.5f, false, &path));
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_PATH);
    b.u.path.path = path;
    b.u.path.window = 1u;
    const float p[3] = { 3.5f, 0.1f, 0 }, v[3] = { 0, 0, 0 };
    throng_agent h =
        route_agent(w, route_group(w, &b), p, v, 1.0f, 10.0f, 1.0f);
    REQUIRE_OK(throng_world_step(w, 0.1f));
    CHECK_EQ_INT(route_progress(w, h), 0);
    CHECK_OK(throng_agent_set_progress(w, h, 2u));
    REQUIRE_OK(throng_world_step(w, 0.1f));
    CHECK_EQ_INT(route_progress(w, h), 2);
    /* Past the end, clamped to the last segment, 3; then found there. */
    CHECK_OK(throng_agent_set_progress(w, h, 1000u));
    REQUIRE_OK(throng_world_step(w, 0.1f));
    CHECK_EQ_INT(route_progress(w, h), 3);
    throng_world_destroy(w);
}

/* A closed square (0,0), (10,0), (10,10), (0,10): 40 m round. */
static const float follow_square[4][3] = {
    { 0, 0, 0 }, { 10, 0, 0 }, { 10, 10, 0 }, { 0, 10, 0 }
};

TEST(steer_route_follow_path_closed) {
    double v1[3];
    uint32_t progress;
    /* On the closing segment (0,10) -> (0,0): p = (-2, 1), v = (0, -1), q
     * = (-2, 0.5), nearest (0, 0.5) 2 m off; along: 30 + 9.5 + 2 = 41.5,
     * wrapped to 1.5 = (1.5, 0); d = (3.5, -1): v_d = 2 (3.5, -1) /
     * sqrt(13.25). */
    follow_case c = { &follow_square[0][0], 4,  true, { -2, 1, 0 },
                      { 0, -1, 0 },         3u, 2.0f };
    follow_case_run(&c, v1, &progress);
    CHECK_EQ_INT(progress, 3);
    CHECK_NEAR(v1[0], 7.0 / sqrt(13.25), 1e-5);
    CHECK_NEAR(v1[1], -2.0 / sqrt(13.25), 1e-5);

    /* The window wraps: progress 3 searches 3, 0, 1, 2; q = (5.5, -2) is
     * nearest segment 0 at (5.5, 0); the target is (7.5, 0); from (5, -2),
     * d = (2.5, 2): v_d = 2 (2.5, 2) / sqrt(10.25). */
    follow_case wrap = { &follow_square[0][0], 4,  true, { 5, -2, 0 },
                         { 1, 0, 0 },          3u, 2.0f };
    follow_case_run(&wrap, v1, &progress);
    CHECK_EQ_INT(progress, 0);
    CHECK_NEAR(v1[0], 5.0 / sqrt(10.25), 1e-5);
    CHECK_NEAR(v1[1], 4.0 / sqrt(10.25), 1e-5);

    /* Ahead longer than the loop wraps too: 5.5 + 2 + 80 = 87.5 -> 7.5. */
    wrap.ahead = 82.0f;
    follow_case_run(&wrap, v1, &progress);
    CHECK_NEAR(v1[0], 5.0 / sqrt(10.25), 1e-4);
    CHECK_NEAR(v1[1], 4.0 / sqrt(10.25), 1e-4);
}

/* In a periodic world the agent reaches the path through the box's edge.
 * Box 20, path (1,10) -> (5,10), radius 1; p = (19, 10), v = (1, 0), q =
 * (19.5, 10) is 1.5 m from (1, 10) through the edge; the target 2 m along
 * is (3, 10), 4 m ahead through the edge: v_d = (+2, 0). Without the wrap
 * it would be (-2, 0). */
TEST(steer_route_follow_path_periodic) {
    throng_world_def d = throng_world_def_default();
    d.boundary = THRONG_BOUNDARY_PERIODIC;
    d.box_size[0] = d.box_size[1] = 20.0f;
    d.threads = 1;
    throng_world *w = NULL;
    REQUIRE_OK(throng_world_create(&d, &w));
    const float pts[2][3] = { { 1, 10, 0 }, { 5, 10, 0 } };
    follow_case c = {
        &pts[0][0], 2, false, { 19, 10, 0 }, { 1, 0, 0 }, 0u, 2.0f
    };
    double v1[3];
    uint32_t progress;
    follow_step(w, &c, v1, &progress);
    CHECK_NEAR(v1[0], 2.0, 1e-5);
    CHECK_NEAR(v1[1], 0.0, 1e-5);
    throng_world_destroy(w);
}

/* ------------------------------------------------------------------------ */
/* Flow fields, worked by hand                                              */
/* ------------------------------------------------------------------------ */

/* A 3 x 2 field at origin (0, 0), cell 2: points x = 0, 2, 4 and y = 0, 2.
 * v(0,0) = (1,0), v(1,0) = (3,0), v(2,0) = (0,-1),
 * v(0,1) = (1,2), v(1,1) = (3,4), v(2,1) = (5,5). */
static const float flow_2d[6 * 2] = { 1, 0, 3, 0, 0, -1, 1, 2, 3, 4, 5, 5 };

/* One step of an agent at p with v in `field`; m = 1, max force 1000,
 * dt = 0.1, T = 1: v1 is v_d (or v when quiet). */
static void flow_step(int dims, const throng_flow_field_def *def, bool raw,
                      float max_speed, const float p[3], const float v[3],
                      double v1[3]) {
    throng_world *w = route_world(dims);
    throng_object field;
    if (throng_flow_field_add(w, def, &field) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "field refused: %s",
                    throng_world_last_error(w));
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_FLOW);
    b.u.flow.field = field;
    b.u.flow.prediction_time = 1.0f;
    b.u.flow.raw = raw;
    throng_agent h =
        route_agent(w, route_group(w, &b), p, v, 1.0f, 1000.0f, max_speed);
    if (throng_world_step(w, 0.1f) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "step refused");
    route_vec(w, h, 0, v1);
    throng_world_destroy(w);
}

TEST(steer_route_flow_bilinear) {
    throng_flow_field_def d;
    memset(&d, 0, sizeof d);
    d.cell_size = 2.0f;
    d.size[0] = 3;
    d.size[1] = 2;
    d.vectors = flow_2d;
    double v1[3];
    /* p = (0.5, 0.5), v = (0.5, 0), T = 1: q = (1, 0.5), in cell units
     * (0.5, 0.25). Weights: v00 0.5*0.75 = 0.375, v10 0.375, v01 0.5*0.25
     * = 0.125, v11 0.125. x = 0.375 + 1.125 + 0.125 + 0.375 = 2; y =
     * 0.125*2 + 0.125*4 = 0.75. Raw: v_d = (2, 0.75) (max speed 10). */
    const float p[3] = { 0.5f, 0.5f, 0 }, v[3] = { 0.5f, 0, 0 };
    flow_step(2, &d, true, 10.0f, p, v, v1);
    CHECK_NEAR(v1[0], 2.0, 1e-5);
    CHECK_NEAR(v1[1], 0.75, 1e-5);
    /* Scaled to s_t = 1.5: 1.5 (2, 0.75) / sqrt(4.5625). */
    flow_step(2, &d, false, 1.5f, p, v, v1);
    CHECK_NEAR(v1[0], 3.0 / sqrt(4.5625), 1e-5);
    CHECK_NEAR(v1[1], 1.125 / sqrt(4.5625), 1e-5);

    /* The second cell: q = (3, 1.5) is (1.5, 0.75) in cells: v10 0.5*0.25
     * = 0.125, v20 0.125, v11 0.375, v21 0.375: x = 0.375 + 0 + 1.125 +
     * 1.875 = 3.375, y = 0 - 0.125 + 1.5 + 1.875 = 3.25. */
    const float p2[3] = { 3, 1.5f, 0 }, still[3] = { 0, 0, 0 };
    flow_step(2, &d, true, 10.0f, p2, still, v1);
    CHECK_NEAR(v1[0], 3.375, 1e-5);
    CHECK_NEAR(v1[1], 3.25, 1e-5);
}

TEST(steer_route_flow_edges) {
    throng_flow_field_def d;
    memset(&d, 0, sizeof d);
    d.cell_size = 2.0f;
    d.size[0] = 3;
    d.size[1] = 2;
    d.vectors = flow_2d;
    const float still[3] = { 0, 0, 0 };
    double v1[3];
    /* Far to the upper left: clamped to the corner (0, 1): (1, 2). */
    const float ul[3] = { -50, 100, 0 };
    flow_step(2, &d, true, 10.0f, ul, still, v1);
    CHECK_NEAR(v1[0], 1.0, 1e-6);
    CHECK_NEAR(v1[1], 2.0, 1e-6);
    /* Far to the lower right: the corner (2, 0): (0, -1). */
    const float lr[3] = { 1e30f, -1e30f, 0 };
    flow_step(2, &d, true, 10.0f, lr, still, v1);
    CHECK_NEAR(v1[0], 0.0, 1e-6);
    CHECK_NEAR(v1[1], -1.0, 1e-6);
    /* Beyond the right edge at y = 1 (half way): (0 + 5) / 2, (-1 + 5) /
     * 2 = (2.5, 2). */
    const float right[3] = { 9, 1, 0 };
    flow_step(2, &d, true, 10.0f, right, still, v1);
    CHECK_NEAR(v1[0], 2.5, 1e-6);
    CHECK_NEAR(v1[1], 2.0, 1e-6);

    /* One point: the same vector everywhere. */
    const float one[2] = { 0.0f, -3.0f };
    d.size[0] = d.size[1] = 1;
    d.vectors = one;
    flow_step(2, &d, true, 10.0f, ul, still, v1);
    CHECK_NEAR(v1[0], 0.0, 1e-6);
    CHECK_NEAR(v1[1], -3.0, 1e-6);

    /* A zero sample is quiet: the agent coasts. */
    const float zero[4 * 2] = { 0 };
    d.size[0] = d.size[1] = 2;
    d.vectors = zero;
    const float moving[3] = { 0.25f, -0.5f, 0 };
    flow_step(2, &d, false, 1.0f, ul, moving, v1);
    CHECK_NEAR(v1[0], 0.25, 1e-7);
    CHECK_NEAR(v1[1], -0.5, 1e-7);
}

/* Trilinear: a 2 x 2 x 2 field at origin (1, 2, 3), cell 2, holding
 * v(i,j,k) = (i j k, i + j, k). Trilinear interpolation reproduces it
 * between the points: at cell coordinates (0.25, 0.5, 0.75), that is q =
 * (1.5, 3, 4.5), the sample is (0.25*0.5*0.75, 0.75, 0.75) = (0.09375,
 * 0.75, 0.75). */
TEST(steer_route_flow_trilinear) {
    float vec[8 * 3];
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++)
            for (int i = 0; i < 2; i++) {
                float *x = &vec[3 * (i + 2 * j + 4 * k)];
                x[0] = (float)(i * j * k);
                x[1] = (float)(i + j);
                x[2] = (float)k;
            }
    throng_flow_field_def d;
    memset(&d, 0, sizeof d);
    d.origin[0] = 1;
    d.origin[1] = 2;
    d.origin[2] = 3;
    d.cell_size = 2.0f;
    d.size[0] = d.size[1] = d.size[2] = 2;
    d.vectors = vec;
    const float p[3] = { 1.5f, 3, 4 }, v[3] = { 0, 0, 0.5f };
    double v1[3];
    flow_step(3, &d, true, 10.0f, p, v, v1);
    CHECK_NEAR(v1[0], 0.09375, 1e-6);
    CHECK_NEAR(v1[1], 0.75, 1e-6);
    CHECK_NEAR(v1[2], 0.75, 1e-6);
    /* Clamped above on z: cell coordinates (0.25, 0.5, 1): (0.125, 0.75,
     * 1). */
    const float high[3] = { 1.5f, 3, 50 };
    flow_step(3, &d, true, 10.0f, high, v, v1);
    CHECK_NEAR(v1[0], 0.125, 1e-6);
    CHECK_NEAR(v1[1], 0.75, 1e-6);
    CHECK_NEAR(v1[2], 1.0, 1e-6);
}

/* Degenerate agents and places never give NaN: no thrust, no speed, an
 * agent sitting on its checkpoint or exactly on the path. */
TEST(steer_route_degenerate_finite) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *w = route_world(dims);
        REQUIRE(w != NULL);
        const float pts[2][3] = { { 0, 0, 0 }, { 0, 0, 3 } };
        const float flat[2][3] = { { 0, 0, 0 }, { 3, 0, 0 } };
        throng_object path;
        REQUIRE_OK(add_path(w, dims == 3 ? &pts[0][0] : &flat[0][0], 2, 0.5f,
                            false, &path));
        throng_behaviour b[2] = {
            throng_behaviour_default(THRONG_BEHAVIOUR_PATROL),
            throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_PATH)
        };
        b[0].u.path.path = path;
        b[0].u.path.loop = false;
        b[1].u.path.path = path;
        b[1].u.path.ahead = 0.0f;
        b[1].u.path.prediction_time = 0.0f;
        throng_agent h[8];
        int n = 0;
        const float at[3] = { 0, 0, 0 }, zero[3] = { 0, 0, 0 };
        const float off[3] = { 2, 2, 0 }, fast[3] = { 0.5f, 0.5f, 0.5f };
        for (int i = 0; i < 2; i++) {
            throng_group g = route_group(w, &b[i]);
            h[n++] = route_agent(w, g, at, zero, 1.0f, 10.0f, 1.0f);
            h[n++] = route_agent(w, g, off, fast, 1.0f, 0.0f, 1.0f);
            h[n++] = route_agent(w, g, off, fast, 1e-3f, 10.0f, 0.0f);
            h[n++] = route_agent(w, g, at, fast, 1e6f, 1e-6f, 1e6f);
        }
        for (int s = 0; s < 20; s++)
            REQUIRE_OK(throng_world_step(w, 0.05f));
        for (int i = 0; i < n; i++) {
            double p[3], v[3];
            route_vec(w, h[i], 1, p);
            route_vec(w, h[i], 0, v);
            for (int k = 0; k < 3; k++)
                CHECK(isfinite(p[k]) && isfinite(v[k]));
        }
        throng_world_destroy(w);
    }
}

/* ------------------------------------------------------------------------ */
/* End to end                                                               */
/* ------------------------------------------------------------------------ */

/* Five checkpoints on a pentagon of radius 8. Each step the test notes the
 * checkpoint the agent has just come within reach of; the list must be the
 * checkpoints in order (and, looping, round again). */
static void patrol_run(bool loop, uint32_t *order, int *order_count,
                       int capacity, double final_p[3], double final_v[3],
                       uint32_t *final_progress) {
    float pts[5][3];
    for (int i = 0; i < 5; i++) {
        double a = 2.0 * 3.14159265358979 * i / 5.0;
        pts[i][0] = (float)(8.0 * cos(a));
        pts[i][1] = (float)(8.0 * sin(a));
        pts[i][2] = 0.0f;
    }
    throng_world *w = route_world(2);
    throng_object path;
    add_path(w, &pts[0][0], 5, 1.0f, true, &path);
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_PATROL);
    b.u.path.path = path;
    b.u.path.loop = loop;
    b.u.path.reach = 0.5f;
    const float p0[3] = { 0, 0, 0 }, v0[3] = { 0, 0, 0 };
    throng_agent h =
        route_agent(w, route_group(w, &b), p0, v0, 1.0f, 8.0f, 2.0f);
    int inside = -1;
    *order_count = 0;
    for (int s = 0; s < 1200; s++) {
        throng_world_step(w, 0.05f);
        double p[3];
        route_vec(w, h, 1, p);
        int now = -1;
        for (int i = 0; i < 5; i++) {
            double c[3] = { (double)pts[i][0], (double)pts[i][1], 0.0 };
            if (test_dist3(p, c) <= 0.5)
                now = i;
        }
        if (now >= 0 && now != inside && *order_count < capacity)
            order[(*order_count)++] = (uint32_t)now;
        inside = now;
    }
    route_vec(w, h, 1, final_p);
    route_vec(w, h, 0, final_v);
    *final_progress = route_progress(w, h);
    throng_world_destroy(w);
}

TEST(steer_route_patrol_order) {
    uint32_t order[64];
    int n = 0;
    double p[3], v[3];
    uint32_t progress;
    /* Looping: 60 s at up to 2 m/s covers the 47 m loop about twice. */
    patrol_run(true, order, &n, 64, p, v, &progress);
    CHECK(n >= 10);
    for (int i = 0; i < n; i++)
        if (order[i] != (uint32_t)(i % 5))
            runner_fail(__FILE__, __LINE__,
                        "looping patrol: visit %d was checkpoint %u, want %d",
                        i, order[i], i % 5);

    /* Once: 0 .. 4, then it holds the last point, done (progress 5). */
    patrol_run(false, order, &n, 64, p, v, &progress);
    CHECK_EQ_INT(n, 5);
    for (int i = 0; i < n; i++)
        CHECK_EQ_INT(order[i], i);
    CHECK_EQ_INT(progress, 5);
    double last[3] = { 8.0 * cos(2.0 * 3.14159265358979 * 4 / 5.0),
                       8.0 * sin(2.0 * 3.14159265358979 * 4 / 5.0), 0.0 };
    CHECK(test_dist3(p, last) < 0.05);
    CHECK(test_len3(v) < 0.05);
}

/* Path following on a closed path; agents start on it, moving along it at
 * full speed, spread evenly. Every step, every agent must be inside the
 * corridor (distance to the whole path, in double), and its progress may
 * only move forward, by less than the window (so it never jumps to
 * another branch at a crossing). Returns the least number of segments any
 * agent advanced. */
static uint32_t follow_run(int dims, const float *pts, uint32_t count,
                           float radius, int agents, int steps, double *worst) {
    throng_world *w = route_world_with(dims, 4, NULL);
    if (!w)
        return 0;
    throng_object path;
    if (add_path(w, pts, count, radius, true, &path) != THRONG_OK) {
        runner_fail(__FILE__, __LINE__, "path refused: %s",
                    throng_world_last_error(w));
        throng_world_destroy(w);
        return 0;
    }
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_PATH);
    b.u.path.path = path;
    b.u.path.prediction_time = 0.5f;
    b.u.path.ahead = 2.0f;
    b.u.path.window = 4u;
    throng_group group = route_group(w, &b);

    double seg_start[64] = { 0 };
    double total = 0.0;
    for (uint32_t i = 0; i < count; i++) {
        const float *a = pts + 3 * i, *c = pts + 3 * ((i + 1) % count);
        double d[3] = { 0.0, 0.0, 0.0 };
        for (int k = 0; k < dims; k++)
            d[k] = (double)c[k] - (double)a[k];
        seg_start[i] = total;
        total += test_len3(d);
    }
    throng_agent h[64];
    uint32_t last[64], advanced[64];
    for (int i = 0; i < agents; i++) {
        double s = total * i / agents;
        uint32_t seg = 0;
        while (seg + 1 < count && seg_start[seg + 1] <= s)
            seg++;
        /* count >= 2: the path above was accepted. */
        /* NOLINTNEXTLINE(clang-analyzer-core.DivideZero) */
        const float *a = pts + 3 * seg, *c = pts + 3 * ((seg + 1) % count);
        double len =
            (seg + 1 < count ? seg_start[seg + 1] : total) - seg_start[seg];
        double u = (s - seg_start[seg]) / len;
        float p[3], v[3];
        for (int k = 0; k < 3; k++) {
            double dk = k < dims ? (double)c[k] - (double)a[k] : 0.0;
            p[k] = (float)((double)a[k] + u * dk);
            v[k] = (float)(2.0 * dk / len);
        }
        h[i] = route_agent(w, group, p, v, 1.0f, 10.0f, 2.0f);
        throng_agent_set_progress(w, h[i], seg);
        last[i] = seg;
        advanced[i] = 0;
    }
    *worst = 0.0;
    for (int s = 0; s < steps; s++) {
        if (throng_world_step(w, 0.05f) != THRONG_OK)
            break;
        for (int i = 0; i < agents; i++) {
            double p[3];
            route_vec(w, h[i], 1, p);
            double best = 1e30;
            for (uint32_t j = 0; j < count; j++) {
                double a[3], c[3];
                const float *fa = pts + 3 * j;
                const float *fc = pts + 3 * ((j + 1) % count);
                for (int k = 0; k < 3; k++) {
                    a[k] = k < dims ? (double)fa[k] : 0.0;
                    c[k] = k < dims ? (double)fc[k] : 0.0;
                }
                double d = route_segment_distance(p, a, c);
                best = d < best ? d : best;
            }
            *worst = best > *worst ? best : *worst;
            uint32_t now = route_progress(w, h[i]);
            uint32_t step = (now + count - last[i]) % count;
            if (step >= 4u)
                runner_fail(__FILE__, __LINE__,
                            "%dD agent %d jumped from segment %u to %u", dims,
                            i, last[i], now);
            advanced[i] += step;
            last[i] = now;
        }
    }
    uint32_t least = UINT32_MAX;
    for (int i = 0; i < agents; i++)
        least = advanced[i] < least ? advanced[i] : least;
    throng_world_destroy(w);
    return least;
}

/* A figure eight (lemniscate of Gerono, x = 20 sin t, y = 20 sin t cos t)
 * of 40 points, crossing itself at the origin at right angles. 50 agents
 * run 80 s at 2 m/s, more than one lap (the loop is 121.6 m). */
TEST(steer_route_follow_figure_eight) {
    float pts[40][3];
    for (int i = 0; i < 40; i++) {
        double t = 2.0 * 3.14159265358979 * i / 40.0;
        pts[i][0] = (float)(20.0 * sin(t));
        pts[i][1] = (float)(20.0 * sin(t) * cos(t));
        pts[i][2] = 0.0f;
    }
    double worst = 0.0;
    uint32_t least = follow_run(2, &pts[0][0], 40, 1.0f, 50, 1600, &worst);
    CHECK(worst <= 1.0);
    CHECK(least >= 40u); /* through the crossing at least twice */
}

/* A closed 3D loop: a circle of radius 12 whose height rises and falls
 * twice, z = 4 sin 2t; 32 points, 83 m round; 60 s at 2 m/s. */
TEST(steer_route_follow_3d) {
    float pts[32][3];
    for (int i = 0; i < 32; i++) {
        double t = 2.0 * 3.14159265358979 * i / 32.0;
        pts[i][0] = (float)(12.0 * cos(t));
        pts[i][1] = (float)(12.0 * sin(t));
        pts[i][2] = (float)(4.0 * sin(2.0 * t));
    }
    double worst = 0.0;
    uint32_t least = follow_run(3, &pts[0][0], 32, 1.0f, 12, 1200, &worst);
    CHECK(worst <= 1.0);
    CHECK(least >= 32u);
}

/* Agents at rest in a uniform field end up moving with it at s_t; in a
 * rotational field v = (-y, x) they end up moving round the centre,
 * anticlockwise, at s_t, tangent to their circle. */
TEST(steer_route_flow_follow_run) {
    enum {
        N = 41
    };
    static float uniform[N * N * 2], swirl[N * N * 2];
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            float x = (float)(i - 20), y = (float)(j - 20);
            uniform[2 * (i + N * j)] = 3.0f;
            uniform[2 * (i + N * j) + 1] = 4.0f;
            swirl[2 * (i + N * j)] = -y;
            swirl[2 * (i + N * j) + 1] = x;
        }
    for (int which = 0; which < 2; which++) {
        throng_world *w = route_world_with(2, 2, NULL);
        REQUIRE(w != NULL);
        throng_flow_field_def d;
        memset(&d, 0, sizeof d);
        d.origin[0] = d.origin[1] = -20.0f;
        d.cell_size = 1.0f;
        d.size[0] = d.size[1] = N;
        d.vectors = which ? swirl : uniform;
        throng_object field;
        REQUIRE_OK(throng_flow_field_add(w, &d, &field));
        throng_behaviour b =
            throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_FLOW);
        b.u.flow.field = field;
        b.speed_factor = 0.75f; /* s_t = 1.5 */
        throng_group g = route_group(w, &b);
        throng_agent h[16];
        double angle0[16];
        for (int i = 0; i < 16; i++) {
            double a = 2.0 * 3.14159265358979 * i / 16.0;
            double r = 6.0 + 0.25 * i;
            const float p[3] = { (float)(r * cos(a)), (float)(r * sin(a)), 0 };
            const float v[3] = { 0, 0, 0 };
            angle0[i] = a;
            h[i] = route_agent(w, g, p, v, 1.0f, 5.0f, 2.0f);
        }
        for (int s = 0; s < 200; s++)
            REQUIRE_OK(throng_world_step(w, 0.05f));
        for (int i = 0; i < 16; i++) {
            double p[3], v[3];
            route_vec(w, h[i], 1, p);
            route_vec(w, h[i], 0, v);
            CHECK_NEAR(test_len3(v), 1.5, 1e-3);
            if (!which) {
                CHECK_NEAR(v[0], 0.9, 1e-3);
                CHECK_NEAR(v[1], 1.2, 1e-3);
                continue;
            }
            double r = sqrt(p[0] * p[0] + p[1] * p[1]);
            double radial = (v[0] * p[0] + v[1] * p[1]) / r;
            double tangential = (-v[0] * p[1] + v[1] * p[0]) / r;
            CHECK(fabs(radial) < 0.1);
            CHECK(tangential > 1.4);
            /* 10 s at 1.5 m/s on a circle of 6 .. 10 m: a turn of 1.5 to
             * 2.5 radians anticlockwise. */
            double turned = atan2(p[1], p[0]) - angle0[i];
            while (turned < 0.0)
                turned += 2.0 * 3.14159265358979;
            CHECK(turned > 1.0 && turned < 3.0);
            CHECK(r > 5.5 && r < 11.0);
        }
        throng_world_destroy(w);
    }
}

/* The three behaviours together, stepped on 1 and on 3 threads: the same
 * state, progress included, bit for bit. */
static uint64_t route_mixed_hash(int threads) {
    throng_world *w = route_world_with(2, threads, NULL);
    if (!w)
        return 0;
    float ring[24][3];
    for (int i = 0; i < 24; i++) {
        double t = 2.0 * 3.14159265358979 * i / 24.0;
        ring[i][0] = (float)(10.0 * cos(t));
        ring[i][1] = (float)(6.0 * sin(2.0 * t));
        ring[i][2] = 0.0f;
    }
    throng_object path, field;
    add_path(w, &ring[0][0], 24, 1.0f, true, &path);
    throng_flow_field_def fd;
    memset(&fd, 0, sizeof fd);
    fd.origin[0] = fd.origin[1] = -4.0f;
    fd.cell_size = 2.0f;
    fd.size[0] = 3;
    fd.size[1] = 2;
    fd.vectors = flow_2d;
    throng_flow_field_add(w, &fd, &field);
    throng_behaviour b[3] = {
        throng_behaviour_default(THRONG_BEHAVIOUR_PATROL),
        throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_PATH),
        throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_FLOW)
    };
    b[0].u.path.path = path;
    b[1].u.path.path = path;
    b[2].u.flow.field = field;
    throng_group g[3];
    for (int i = 0; i < 3; i++)
        g[i] = route_group(w, &b[i]);
    test_rng rng = test_rng_make(5u);
    for (int i = 0; i < 300; i++) {
        const float p[3] = { test_rng_range(&rng, -12, 12),
                             test_rng_range(&rng, -8, 8), 0 };
        const float v[3] = { test_rng_range(&rng, -1, 1),
                             test_rng_range(&rng, -1, 1), 0 };
        throng_agent h = route_agent(w, g[i % 3], p, v, 1.0f, 5.0f, 2.0f);
        throng_agent_set_progress(w, h, test_rng_below(&rng, 24u));
    }
    for (int s = 0; s < 100; s++)
        throng_world_step(w, 0.05f);
    uint64_t hash = throng_world_hash(w);
    throng_world_destroy(w);
    return hash;
}

TEST(steer_route_threads_agree) {
    uint64_t one = route_mixed_hash(1), three = route_mixed_hash(3);
    CHECK(one != 0u);
    CHECK_EQ_U64(one, three);
}

void register_steer_route_tests(void) {
    REGISTER(steer_route_path_create_refusals);
    REGISTER(steer_route_flow_create_refusals);
    REGISTER(steer_route_behaviour_refusals);
    REGISTER(steer_route_object_removal);
    REGISTER(steer_route_patrol_first_step);
    REGISTER(steer_route_patrol_arrive_ramp);
    REGISTER(steer_route_patrol_advance);
    REGISTER(steer_route_follow_path_seek);
    REGISTER(steer_route_follow_path_quiet_inside);
    REGISTER(steer_route_follow_path_window);
    REGISTER(steer_route_follow_path_closed);
    REGISTER(steer_route_follow_path_periodic);
    REGISTER(steer_route_flow_bilinear);
    REGISTER(steer_route_flow_edges);
    REGISTER(steer_route_flow_trilinear);
    REGISTER(steer_route_degenerate_finite);
    REGISTER(steer_route_patrol_order);
    REGISTER(steer_route_follow_figure_eight);
    REGISTER(steer_route_follow_3d);
    REGISTER(steer_route_flow_follow_run);
    REGISTER(steer_route_threads_agree);
}
