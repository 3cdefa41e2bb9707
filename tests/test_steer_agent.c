/* SPDX-License-Identifier: MIT */
/*
 * Tests of the agent behaviours (see src/behaviour.h): seek, flee, arrive,
 * pursue, evade, offset pursuit, projected-circle wander, leader following
 * and unaligned collision avoidance.
 *
 * Hand-worked cases read the force through one step: with a large max
 * force and max speed nothing is truncated, so v1 = v0 + F dt / m is
 * exactly seed 000's v_desired, and the checks compare v1 with v_desired
 * worked out in the comment. End-to-end runs check what a user would see
 * (arrive stops without overshooting, pursuit beats seek, avoidance lowers
 * overlaps), and bad parameters are refused with the world unchanged.
 */
#include <math.h>
#include <string.h>

#include "rng.h"
#include "runner.h"

#define DT 0.1f

static throng_world *make_world(int dims, uint64_t seed, float radius) {
    throng_world_def d = ts_world_def(dims, 1, NULL);
    d.max_dt = 10.0f; /* one tick per step: one step's formulas */
    d.seed = seed;
    d.neighbour_radius = radius;
    return ts_world_make(&d);
}

/* A group steered by `b` alone: with WEIGHTED_SUM and weight 1 the force
 * is exactly the behaviour's. */
static throng_group make_group(throng_world *w, const throng_behaviour *b) {
    throng_group_def g = throng_group_def_default();
    g.combine = THRONG_COMBINE_WEIGHTED_SUM;
    throng_group id = THRONG_NULL_GROUP;
    if (throng_group_create(w, &g, &id) != THRONG_OK ||
        throng_group_add_behaviour(w, id, b, NULL) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "group refused: %s",
                    throng_world_last_error(w));
    return id;
}

typedef struct agent_spec {
    float p[3], v[3];
    float mass, max_force, max_speed, radius;
} agent_spec;

/* Mass 2 and a force limit nothing reaches, unless said otherwise. */
static agent_spec spec(float px, float py, float pz, float vx, float vy,
                       float vz, float max_speed) {
    agent_spec s = { { px, py, pz }, { vx, vy, vz }, 2.0f,
                     1e6f,           max_speed,      0.25f };
    return s;
}

static throng_agent add(throng_world *w, throng_group group, agent_spec s) {
    throng_agent_def d = throng_agent_def_default();
    memcpy(d.position, s.p, sizeof s.p);
    memcpy(d.velocity, s.v, sizeof s.v);
    d.mass = s.mass;
    d.max_force = s.max_force;
    d.max_speed = s.max_speed;
    d.radius = s.radius;
    d.group = group;
    throng_agent h = THRONG_NULL_AGENT;
    if (throng_agent_add(w, &d, &h) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "agent refused: %s",
                    throng_world_last_error(w));
    return h;
}

static void get_v(const throng_world *w, throng_agent h, double out[3]) {
    float v[3] = { 0.0f, 0.0f, 0.0f };
    throng_agent_get_velocity(w, h, v);
    test_to_double3(v, out);
}

static void get_p(const throng_world *w, throng_agent h, double out[3]) {
    float p[3] = { 0.0f, 0.0f, 0.0f };
    throng_agent_get_position(w, h, p);
    test_to_double3(p, out);
}

/* Velocity after one step must be `want` (v_desired), to float rounding. */
#define CHECK_V(w, h, x, y, z)          \
    do {                                \
        double got_[3];                 \
        get_v((w), (h), got_);          \
        CHECK_NEAR(got_[0], (x), 2e-5); \
        CHECK_NEAR(got_[1], (y), 2e-5); \
        CHECK_NEAR(got_[2], (z), 2e-5); \
    } while (0)

static throng_behaviour kind_default(throng_behaviour_kind kind) {
    return throng_behaviour_default(kind);
}

/* ------------------------------------------------------------------------ */
/* Defaults                                                                 */
/* ------------------------------------------------------------------------ */

TEST(steer_agent_defaults) {
    throng_behaviour b = kind_default(THRONG_BEHAVIOUR_SEEK);
    CHECK_EQ_INT(b.kind, THRONG_BEHAVIOUR_SEEK);
    CHECK(b.weight == 1.0f && b.speed_factor == 1.0f && b.priority == 0);
    CHECK_EQ_INT(b.u.seek.source, THRONG_TARGET_AGENT_POINT);
    CHECK_EQ_INT(b.u.seek.ramp, THRONG_ARRIVE_SMOOTH);
    CHECK(b.u.seek.flee_range == 0.0f && b.u.seek.braking_distance == 0.0f);
    b = kind_default(THRONG_BEHAVIOUR_PURSUE);
    CHECK(b.u.pursue.prediction_time == 0.0f &&
          b.u.pursue.max_prediction == 0.0f && b.u.pursue.evade_range == 0.0f &&
          b.u.pursue.offset[0] == 0.0f);
    b = kind_default(THRONG_BEHAVIOUR_WANDER_CIRCLE);
    CHECK(b.u.wander.distance == 2.0f && b.u.wander.radius == 1.0f &&
          b.u.wander.jitter == 0.3f);
    b = kind_default(THRONG_BEHAVIOUR_FOLLOW_LEADER);
    CHECK(b.u.leader.behind == 2.0f && b.u.leader.clearance_length == 3.0f &&
          b.u.leader.clearance_width == 1.0f &&
          b.u.leader.braking_distance == 0.0f);
    b = kind_default(THRONG_BEHAVIOUR_AVOID_NEIGHBOURS);
    CHECK(b.u.unaligned.radius == 0.0f && b.u.unaligned.horizon == 2.0f &&
          b.u.unaligned.margin == 0.0f);
}

/* ------------------------------------------------------------------------ */
/* Hand-worked single steps                                                 */
/* ------------------------------------------------------------------------ */

/* 2D: p = (1, 2), v = (0.5, 0), target (4, 6): offset (3, 4), |5|.
 * s_t = 0.5 * max speed 2 = 1, so seek v_d = (0.6, 0.8); flee v_d =
 * (-0.6, -0.8). F = m (v_d - v) / dt = 2 (0.1, 0.8) / 0.1 = (2, 16) for
 * seek, and v1 = v + F dt / m = v_d; p1 = p + v1 dt = (1.06, 2.08).
 * A flee_range of 4 < 5 leaves flee quiet (the agent coasts); 6 > 5 not. */
TEST(steer_agent_seek_flee_2d) {
    const throng_behaviour_kind kinds[2] = { THRONG_BEHAVIOUR_SEEK,
                                             THRONG_BEHAVIOUR_FLEE };
    const float ranges[3] = { 0.0f, 4.0f, 6.0f };
    for (int k = 0; k < 2; k++)
        for (int r = 0; r < (k ? 3 : 1); r++) {
            throng_world *w = make_world(2, 1u, 1.0f);
            REQUIRE(w != NULL);
            throng_behaviour b = kind_default(kinds[k]);
            b.speed_factor = 0.5f;
            b.u.seek.flee_range = ranges[r];
            throng_group g = make_group(w, &b);
            throng_agent h = add(w, g, spec(1, 2, 0, 0.5f, 0, 0, 2));
            const float target[3] = { 4.0f, 6.0f, 0.0f };
            REQUIRE_OK(throng_agent_set_target_point(w, h, target));
            REQUIRE_OK(throng_world_step(w, DT));
            double p[3];
            get_p(w, h, p);
            if (k == 0) {
                CHECK_V(w, h, 0.6, 0.8, 0.0);
                CHECK_NEAR(p[0], 1.06, 1e-6);
                CHECK_NEAR(p[1], 2.08, 1e-6);
            } else if (r == 1) {
                CHECK_V(w, h, 0.5, 0.0, 0.0);
            } else {
                CHECK_V(w, h, -0.6, -0.8, 0.0);
            }
            throng_world_destroy(w);
        }
}

/* 3D, fixed point: p = 0, v = (0, 0, 1), target (2, -1, 2), |3|; s_t =
 * 1.5: seek v_d = (1, -0.5, 1), flee v_d = (-1, 0.5, -1). The agent's own
 * target point (left at the origin) must not be used. */
TEST(steer_agent_seek_flee_3d) {
    for (int k = 0; k < 2; k++) {
        throng_world *w = make_world(3, 1u, 1.0f);
        REQUIRE(w != NULL);
        throng_behaviour b =
            kind_default(k ? THRONG_BEHAVIOUR_FLEE : THRONG_BEHAVIOUR_SEEK);
        b.u.seek.source = THRONG_TARGET_FIXED_POINT;
        b.u.seek.point[0] = 2.0f;
        b.u.seek.point[1] = -1.0f;
        b.u.seek.point[2] = 2.0f;
        throng_group g = make_group(w, &b);
        throng_agent h = add(w, g, spec(0, 0, 0, 0, 0, 1, 1.5f));
        REQUIRE_OK(throng_world_step(w, DT));
        double s = k ? -1.0 : 1.0;
        CHECK_V(w, h, s * 1.0, s * -0.5, s * 1.0);
        throng_world_destroy(w);
    }
}

/* The force is seed 000's even when truncated: seek from rest towards
 * (3, 4) with max force 1, m = 2: F_h = 2 (0.6, 0.8) / 0.1 = (12, 16),
 * truncated to (0.6, 0.8); v1 = F / m dt = (0.03, 0.04). Compared with the
 * double reference vehicle too. */
TEST(steer_agent_seek_truncated) {
    throng_world *w = make_world(2, 1u, 1.0f);
    REQUIRE(w != NULL);
    throng_behaviour b = kind_default(THRONG_BEHAVIOUR_SEEK);
    throng_group g = make_group(w, &b);
    agent_spec s = spec(0, 0, 0, 0, 0, 0, 1);
    s.max_force = 1.0f;
    throng_agent h = add(w, g, s);
    const float target[3] = { 3.0f, 4.0f, 0.0f };
    REQUIRE_OK(throng_agent_set_target_point(w, h, target));
    REQUIRE_OK(throng_world_step(w, DT));
    const double v0[3] = { 0, 0, 0 }, force[3] = { 12.0, 16.0, 0.0 };
    double ref[3];
    test_ref_vehicle(2.0, 1.0, 1.0, (double)DT, v0, force, ref);
    CHECK_NEAR(ref[0], 0.03, 1e-8);
    CHECK_V(w, h, ref[0], ref[1], ref[2]);
    throng_world_destroy(w);
}

/* In a periodic box of 10, (9.5, 5) seeks (0.5, 5) through the edge: the
 * nearest image is 1 m to the right, so v_d = (+1, 0), not (-1, 0). The
 * same for pursuing an agent standing there, and for following it as a
 * leader heading +y (1 m to its side, outside a corridor 0.5 wide): the
 * point 2 m behind it, (0.5, 3), is at offset (1, -2) through the edge,
 * beyond D = 1: v_d = (1, -2) / sqrt 5. */
TEST(steer_agent_periodic) {
    const throng_behaviour_kind kinds[3] = { THRONG_BEHAVIOUR_SEEK,
                                             THRONG_BEHAVIOUR_PURSUE,
                                             THRONG_BEHAVIOUR_FOLLOW_LEADER };
    const double want[3][2] = { { 1.0, 0.0 },
                                { 1.0, 0.0 },
                                { 1.0 / sqrt(5.0), -2.0 / sqrt(5.0) } };
    for (int k = 0; k < 3; k++) {
        throng_world_def d = throng_world_def_default();
        d.max_dt = 10.0f; /* one tick per step: one step's formulas */
        d.dimensions = 2;
        d.boundary = THRONG_BOUNDARY_PERIODIC;
        d.box_size[0] = d.box_size[1] = 10.0f;
        d.threads = 1;
        throng_world *w = NULL;
        REQUIRE_OK(throng_world_create(&d, &w));
        throng_behaviour b = kind_default(kinds[k]);
        if (kinds[k] == THRONG_BEHAVIOUR_FOLLOW_LEADER) {
            b.u.leader.braking_distance = 1.0f;
            b.u.leader.clearance_width = 0.5f; /* the follower is 1 m aside */
        }
        throng_group g = make_group(w, &b);
        throng_agent h = add(w, g, spec(9.5f, 5, 0, 0, 0, 0, 1));
        throng_agent t =
            add(w, THRONG_NULL_GROUP, spec(0.5f, 5, 0, 0, 1e-3f, 0, 1));
        const float target[3] = { 0.5f, 5.0f, 0.0f };
        REQUIRE_OK(throng_agent_set_target_point(w, h, target));
        REQUIRE_OK(throng_agent_set_target_agent(w, h, t));
        /* The target creeps at 1e-3 m/s so the leader has a heading; the
         * pursuer's prediction moves it by 1e-3 * 1 / 1, inside the
         * tolerance below. */
        REQUIRE_OK(throng_world_step(w, DT));
        double v[3];
        get_v(w, h, v);
        CHECK_NEAR(v[0], want[k][0], 2e-3);
        CHECK_NEAR(v[1], want[k][1], 2e-3);
        throng_world_destroy(w);
    }
}

/* Arrive, max speed 2 (s_t = 2), m = 2, max force 8 (a_max = 4).
 * (a) Explicit D = 4, target at (0.6, 0.8), d = 1, x = 0.25:
 *     linear f = 2 * 0.25 = 0.5 -> v_d = (0.3, 0.4);
 *     smooth f = 2 * 0.25 * 2.75 / 2 = 0.6875 -> v_d = (0.4125, 0.55).
 *     From rest F = 2 v_d / 0.1, |F| <= 13.75: give max force 1e6.
 * (b) Default D = v_max^2 / (2 a_max) + v_max dt = 4 / 8 + 0.2 = 0.7;
 *     target (0.15, 0.2), d = 0.25, x = 5/14 = 0.357143: smooth f =
 *     2 x (3 - x) / 2 = 0.943878 -> v_d = f (0.6, 0.8) = (0.566327,
 *     0.755102). Starting at v = (0.7, 0.9), F = 2 (v_d - v) / 0.1 =
 *     (-2.67, -2.90), |F| = 3.94 < 8: not truncated, v1 = v_d.
 * (c) Same but dt = 1: D = 0.5 + 2 = 2.5, x = 0.1, f = 0.29; the cap
 *     d / dt = 0.25 < 0.29, v_d = (0.15, 0.2),
 *     and p1 = p + v_d dt lands on the target. From v = (0.1, 0.2):
 *     F = 2 (0.05, 0) / 1 = (0.1, 0).
 * (d) At the target (d = 0) with v = (0.3, 0): v_d = 0, F = 2 (-0.3) /
 *     0.1 = -6, |6| < 8: the agent stops in one step. */
TEST(steer_agent_arrive_hand_worked) {
    struct arrive_case {
        throng_arrive_ramp ramp;
        float D, tx, ty, vx, vy, max_force, dt;
        double want_x, want_y;
    } cases[] = {
        { THRONG_ARRIVE_LINEAR, 4.0f, 0.6f, 0.8f, 0, 0, 1e6f, 0.1f, 0.3, 0.4 },
        { THRONG_ARRIVE_SMOOTH, 4.0f, 0.6f, 0.8f, 0, 0, 1e6f, 0.1f, 0.4125,
          0.55 },
        { THRONG_ARRIVE_SMOOTH, 0.0f, 0.15f, 0.2f, 0.7f, 0.9f, 8.0f, 0.1f,
          0.6 * (5.0 / 14.0) * (3.0 - 5.0 / 14.0),
          0.8 * (5.0 / 14.0) * (3.0 - 5.0 / 14.0) },
        { THRONG_ARRIVE_SMOOTH, 0.0f, 0.15f, 0.2f, 0.1f, 0.2f, 8.0f, 1.0f, 0.15,
          0.2 },
        { THRONG_ARRIVE_LINEAR, 0.0f, 0.0f, 0.0f, 0.3f, 0.0f, 8.0f, 0.1f, 0.0,
          0.0 },
    };
    for (int dims = 2; dims <= 3; dims++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            const struct arrive_case *c = &cases[i];
            throng_world *w = make_world(dims, 1u, 1.0f);
            REQUIRE(w != NULL);
            throng_behaviour b = kind_default(THRONG_BEHAVIOUR_ARRIVE);
            b.u.seek.ramp = c->ramp;
            b.u.seek.braking_distance = c->D;
            throng_group g = make_group(w, &b);
            /* In 3D the same case, lifted to z = 5 (target too). */
            float z = dims == 3 ? 5.0f : 0.0f;
            agent_spec s = spec(0, 0, z, c->vx, c->vy, 0, 2);
            s.max_force = c->max_force;
            throng_agent h = add(w, g, s);
            const float target[3] = { c->tx, c->ty, z };
            REQUIRE_OK(throng_agent_set_target_point(w, h, target));
            REQUIRE_OK(throng_world_step(w, c->dt));
            CHECK_V(w, h, c->want_x, c->want_y, 0.0);
            if (i == 3) {
                double p[3];
                get_p(w, h, p);
                CHECK_NEAR(p[0], 0.15, 1e-6);
                CHECK_NEAR(p[1], 0.2, 1e-6);
            }
            throng_world_destroy(w);
        }
}

/* Pursue / evade. Chaser at the origin, max speed 2, from rest; target
 * (coasting in the default group) at (4, 0) moving (0, 1).
 *   automatic T = d / max speed = 4 / 2 = 2: predicted (4, 2), v_d =
 *     2 (4, 2) / sqrt(20) = (1.788854, 0.894427);
 *   max_prediction 1 caps T at 1: (4, 1), v_d = 2 (4, 1) / sqrt(17);
 *   prediction_time 0.5: (4, 0.5), v_d = 2 (4, 0.5) / sqrt(16.25).
 * Evade gives the opposite; with evade_range 3 < 4 it is quiet. */
TEST(steer_agent_pursue_evade_2d) {
    struct pursue_case {
        throng_behaviour_kind kind;
        float T, cap, range;
        double px, py; /* predicted offset; 0, 0: quiet */
        double sign;
    } cases[] = {
        { THRONG_BEHAVIOUR_PURSUE, 0, 0, 0, 4.0, 2.0, 1.0 },
        { THRONG_BEHAVIOUR_PURSUE, 0, 1, 0, 4.0, 1.0, 1.0 },
        { THRONG_BEHAVIOUR_PURSUE, 0.5f, 0, 0, 4.0, 0.5, 1.0 },
        { THRONG_BEHAVIOUR_EVADE, 0, 0, 0, 4.0, 2.0, -1.0 },
        { THRONG_BEHAVIOUR_EVADE, 0, 0, 5, 4.0, 2.0, -1.0 },
        { THRONG_BEHAVIOUR_EVADE, 0, 0, 3, 0.0, 0.0, 0.0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct pursue_case *c = &cases[i];
        throng_world *w = make_world(2, 1u, 1.0f);
        REQUIRE(w != NULL);
        throng_behaviour b = kind_default(c->kind);
        b.u.pursue.prediction_time = c->T;
        b.u.pursue.max_prediction = c->cap;
        b.u.pursue.evade_range = c->range;
        throng_group g = make_group(w, &b);
        throng_agent h = add(w, g, spec(0, 0, 0, 0, 0, 0, 2));
        throng_agent t = add(w, THRONG_NULL_GROUP, spec(4, 0, 0, 0, 1, 0, 1));
        REQUIRE_OK(throng_agent_set_target_agent(w, h, t));
        REQUIRE_OK(throng_world_step(w, DT));
        double n = sqrt(c->px * c->px + c->py * c->py);
        if (c->sign == 0.0)
            CHECK_V(w, h, 0.0, 0.0, 0.0);
        else
            CHECK_V(w, h, c->sign * 2.0 * c->px / n, c->sign * 2.0 * c->py / n,
                    0.0);
        throng_world_destroy(w);
    }
}

/* 3D: chaser at the origin, max speed 1.5; target at (0, 3, 0) moving
 * (0, 0, 1.5). T = 3 / 1.5 = 2: predicted (0, 3, 3), v_d = 1.5 (0, 1, 1)
 * / sqrt(2) = (0, 1.06066, 1.06066); evade the opposite. */
TEST(steer_agent_pursue_evade_3d) {
    for (int k = 0; k < 2; k++) {
        throng_world *w = make_world(3, 1u, 1.0f);
        REQUIRE(w != NULL);
        throng_behaviour b =
            kind_default(k ? THRONG_BEHAVIOUR_EVADE : THRONG_BEHAVIOUR_PURSUE);
        throng_group g = make_group(w, &b);
        throng_agent h = add(w, g, spec(0, 0, 0, 0, 0, 0, 1.5f));
        throng_agent t =
            add(w, THRONG_NULL_GROUP, spec(0, 3, 0, 0, 0, 1.5f, 2));
        REQUIRE_OK(throng_agent_set_target_agent(w, h, t));
        REQUIRE_OK(throng_world_step(w, DT));
        double s = (k ? -1.0 : 1.0) * 1.5 / sqrt(2.0);
        CHECK_V(w, h, 0.0, s, s);
        throng_world_destroy(w);
    }
}

/* Offset pursuit, 2D: the target at (5, 5) moves (0, 1), so its forward
 * is (0, 1) and its side (fy, -fx) = (1, 0). Offset (-1, 2): the point
 * (5, 5) - (0, 1) + 2 (1, 0) = (7, 4). The chaser at (7, 0), max speed 2:
 * offset (0, 4), T = 4 / 2 = 2, predicted offset (0, 4) + 2 (0, 1) =
 * (0, 6). Arrive with D = 12: x = 0.5, smooth f = 2 * 0.5 * 2.5 / 2 =
 * 1.25: v_d = (0, 1.25). */
TEST(steer_agent_offset_pursuit_2d) {
    throng_world *w = make_world(2, 1u, 1.0f);
    REQUIRE(w != NULL);
    throng_behaviour b = kind_default(THRONG_BEHAVIOUR_OFFSET_PURSUIT);
    b.u.pursue.offset[0] = -1.0f;
    b.u.pursue.offset[1] = 2.0f;
    b.u.pursue.offset[2] = 99.0f; /* up: ignored in 2D */
    b.u.pursue.braking_distance = 12.0f;
    throng_group g = make_group(w, &b);
    throng_agent h = add(w, g, spec(7, 0, 0, 0, 0, 0, 2));
    throng_agent t = add(w, THRONG_NULL_GROUP, spec(5, 5, 0, 0, 1, 0, 1));
    REQUIRE_OK(throng_agent_set_target_agent(w, h, t));
    REQUIRE_OK(throng_world_step(w, DT));
    CHECK_V(w, h, 0.0, 1.25, 0.0);
    throng_world_destroy(w);
}

/* Offset pursuit, 3D, against the target's own basis (read back with
 * throng_agent_get_basis): point = p_t + o_0 f + o_1 side + o_2 up, plus
 * v_t T with T fixed at 0.5; far outside D (default 2^2 * 2 / (2 * 1e6)),
 * so arrive seeks it at s_t = 2. */
TEST(steer_agent_offset_pursuit_3d) {
    throng_world *w = make_world(3, 1u, 1.0f);
    REQUIRE(w != NULL);
    throng_behaviour b = kind_default(THRONG_BEHAVIOUR_OFFSET_PURSUIT);
    const float o[3] = { 1.0f, -2.0f, 3.0f };
    memcpy(b.u.pursue.offset, o, sizeof o);
    b.u.pursue.prediction_time = 0.5f;
    throng_group g = make_group(w, &b);
    throng_agent h = add(w, g, spec(-4, 1, 2, 0, 0, 0, 2));
    throng_agent t =
        add(w, THRONG_NULL_GROUP, spec(3, 2, 1, 0.6f, 0.0f, 0.8f, 1));
    REQUIRE_OK(throng_agent_set_target_agent(w, h, t));
    float f[3], up[3], side[3];
    REQUIRE_OK(throng_agent_get_basis(w, t, f, up, side));
    const double tp[3] = { 3, 2, 1 }, tv[3] = { 0.6, 0.0, 0.8 },
                 p[3] = { -4, 1, 2 };
    double x[3];
    for (int k = 0; k < 3; k++)
        x[k] = tp[k] + (double)(o[0] * f[k]) + (double)(o[1] * side[k]) +
               (double)(o[2] * up[k]) + tv[k] * 0.5 - p[k];
    double n = test_len3(x);
    REQUIRE_OK(throng_world_step(w, DT));
    CHECK_V(w, h, 2.0 * x[0] / n, 2.0 * x[1] / n, 2.0 * x[2] / n);
    throng_world_destroy(w);
}

/* The world's key for an agent's random numbers, as the kernels form it. */
static uint64_t rng_agent(throng_agent h) {
    return ((uint64_t)(h.slot - 1u) << 32) | (h.generation & 0xFFFFFFu);
}

/* Wander circle, 2D: heading (0, 1), distance 2, radius 1, max speed 1.
 * The angle starts at 0 and takes the step a = jitter * r, r drawn from
 * (seed, agent, step 0, RNG_STREAM_CIRCLE_X). The target offset is
 * (0, 2) + (cos a, sin a) and v_d = unit(offset); jitter 0 gives
 * (1, 2) / sqrt(5). The second step continues from a. */
TEST(steer_agent_wander_circle_2d_hand) {
    const float jitters[2] = { 0.0f, 0.8f };
    for (int j = 0; j < 2; j++) {
        throng_world *w = make_world(2, 77u, 1.0f);
        REQUIRE(w != NULL);
        throng_behaviour b = kind_default(THRONG_BEHAVIOUR_WANDER_CIRCLE);
        b.u.wander.jitter = jitters[j];
        throng_group g = make_group(w, &b);
        throng_agent h = add(w, g, spec(0, 0, 0, 0, 1, 0, 1));
        REQUIRE_OK(throng_world_step(w, DT));
        double a = (double)(jitters[j] * rng_symmetric(77u, rng_agent(h), 0u,
                                                       RNG_STREAM_CIRCLE_X));
        double x[2] = { cos(a), 2.0 + sin(a) };
        double n = sqrt(x[0] * x[0] + x[1] * x[1]);
        if (j == 0)
            CHECK_NEAR(x[0] / n, 1.0 / sqrt(5.0), 1e-12);
        else
            CHECK(fabs(a) > 1e-3); /* the step does move the angle */
        CHECK_V(w, h, x[0] / n, x[1] / n, 0.0);

        /* Step 2: heading is now v1; the angle continues from a. */
        float f[3], up[3], side[3];
        REQUIRE_OK(throng_agent_get_basis(w, h, f, up, side));
        a += (double)(jitters[j] * rng_symmetric(77u, rng_agent(h), 1u,
                                                 RNG_STREAM_CIRCLE_X));
        x[0] = 2.0 * (double)f[0] + cos(a);
        x[1] = 2.0 * (double)f[1] + sin(a);
        n = sqrt(x[0] * x[0] + x[1] * x[1]);
        REQUIRE_OK(throng_world_step(w, DT));
        CHECK_V(w, h, x[0] / n, x[1] / n, 0.0);
        throng_world_destroy(w);
    }
}

/* Wander circle, 3D: the point starts straight ahead (f), takes the step
 * jitter * (r_x, r_y, r_z) and is put back on the unit sphere: u =
 * unit(f + jitter r). Target offset f distance + radius u; jitter 0 gives
 * v_d = s_t f. Heading (0, 0, 1), distance 2, radius 0.5, max speed 1. */
TEST(steer_agent_wander_circle_3d_hand) {
    const float jitters[2] = { 0.0f, 0.4f };
    for (int j = 0; j < 2; j++) {
        throng_world *w = make_world(3, 5u, 1.0f);
        REQUIRE(w != NULL);
        throng_behaviour b = kind_default(THRONG_BEHAVIOUR_WANDER_CIRCLE);
        b.u.wander.jitter = jitters[j];
        b.u.wander.radius = 0.5f;
        throng_group g = make_group(w, &b);
        throng_agent h = add(w, g, spec(1, 1, 1, 0, 0, 1, 1));
        REQUIRE_OK(throng_world_step(w, DT));
        const uint32_t streams[3] = { RNG_STREAM_CIRCLE_X, RNG_STREAM_CIRCLE_Y,
                                      RNG_STREAM_CIRCLE_Z };
        double u[3] = { 0.0, 0.0, 1.0 };
        for (int k = 0; k < 3; k++)
            u[k] += (double)(jitters[j] *
                             rng_symmetric(5u, rng_agent(h), 0u, streams[k]));
        double un = test_len3(u);
        double x[3];
        for (int k = 0; k < 3; k++)
            x[k] = (k == 2 ? 2.0 : 0.0) + 0.5 * u[k] / un;
        double n = test_len3(x);
        if (j == 0)
            CHECK_V(w, h, 0.0, 0.0, 1.0);
        else
            CHECK(fabs(x[0]) > 1e-3 || fabs(x[1]) > 1e-3);
        CHECK_V(w, h, x[0] / n, x[1] / n, x[2] / n);
        throng_world_destroy(w);
    }
}

/* Leader following, 2D: the leader at the origin moves (1, 0), so f =
 * (1, 0); behind 2, corridor 3 long and 1 wide; follower max speed 2.
 * (a) Follower at (-5, 1): along -5 < 0, outside: arrive at (-2, 0),
 *     offset (3, -1), d = sqrt(10) > D = 1: v_d = 2 (3, -1) / sqrt(10).
 * (b) Follower at (2, 0.5): along 2 in [0, 3], lateral 0.5 <= 1: evade
 *     the leader's predicted position. Offset to the leader (-2, -0.5),
 *     d = sqrt(4.25), T = d / 2, predicted offset (-2 + T, -0.5); v_d =
 *     -2 unit(that).
 * (c) Follower at (2, 1.5): lateral 1.5 > 1: arrive at (-2, 0) again,
 *     offset (-4, -1.5), d > D: v_d = 2 (-4, -1.5) / sqrt(18.25).
 * (d) Follower at (2, 0), exactly on the leader's path: evading would
 *     point straight along it, so it steps aside along the leader's side
 *     vector (fy, -fx) = (0, -1): v_d = (0, -2). */
TEST(steer_agent_follow_leader_hand) {
    struct leader_case {
        float x, y;
        int evade; /* 0 arrive, 1 evade, 2 step aside */
    } cases[] = { { -5.0f, 1.0f, 0 },
                  { 2.0f, 0.5f, 1 },
                  { 2.0f, 1.5f, 0 },
                  { 2.0f, 0.0f, 2 } };
    for (int dims = 2; dims <= 3; dims++)
        for (int i = 0; i < 4; i++) {
            throng_world *w = make_world(dims, 1u, 1.0f);
            REQUIRE(w != NULL);
            throng_behaviour b = kind_default(THRONG_BEHAVIOUR_FOLLOW_LEADER);
            b.u.leader.braking_distance = 1.0f;
            throng_group g = make_group(w, &b);
            throng_agent h =
                add(w, g, spec(cases[i].x, cases[i].y, 0, 0, 0, 0, 2));
            throng_agent l =
                add(w, THRONG_NULL_GROUP, spec(0, 0, 0, 1, 0, 0, 1));
            REQUIRE_OK(throng_agent_set_target_agent(w, h, l));
            REQUIRE_OK(throng_world_step(w, DT));
            double x[2];
            if (cases[i].evade == 2) {
                /* In 3D the leader's side is forward x up from its own
                 * basis; read it back rather than assume an up vector. */
                float f[3], up[3], side[3];
                REQUIRE_OK(throng_agent_get_basis(w, l, f, up, side));
                CHECK_V(w, h, 2.0 * (double)side[0], 2.0 * (double)side[1],
                        2.0 * (double)side[2]);
                if (dims == 2)
                    CHECK_V(w, h, 0.0, -2.0, 0.0);
                throng_world_destroy(w);
                continue;
            }
            if (cases[i].evade) {
                double ox = -(double)cases[i].x, oy = -(double)cases[i].y;
                double T = sqrt(ox * ox + oy * oy) / 2.0;
                x[0] = -(ox + T);
                x[1] = -oy;
            } else {
                x[0] = -2.0 - (double)cases[i].x;
                x[1] = -(double)cases[i].y;
            }
            double n = sqrt(x[0] * x[0] + x[1] * x[1]);
            CHECK_V(w, h, 2.0 * x[0] / n, 2.0 * x[1] / n, 0.0);
            throng_world_destroy(w);
        }
}

/* Unaligned collision avoidance, hand-worked. A at (0, 0) moving (1, 0),
 * B at (4, -0.2) moving (-1, 0), radii 0.25, margin 0, neighbour radius
 * 5. For A: dp = (4, -0.2), dv = (-2, 0), t = -(dp . dv) / |dv|^2 = 8 / 4
 * = 2 <= horizon 2; offset then (4 - 4, -0.2) = (0, -0.2), 0.2 < 0.5: a
 * threat. Away = (0, 0.2): v_d = (0, 1) (against A's side vector (0, -1),
 * so the two cannot be confused). B mirrors it: v_d = (0, -1).
 * Horizon 1.5 < 2: no threat, both coast. Exactly head-on (B at (4, 0)):
 * away is zero, each sidesteps along its side vector (fy, -fx): A to
 * (0, -1), B to (0, 1). */
TEST(steer_agent_avoid_neighbours_hand) {
    struct uca_case {
        float by, horizon;
        double ay_want, by_want, ax_want, bx_want;
    } cases[] = {
        { -0.2f, 2.0f, 1.0, -1.0, 0.0, 0.0 },
        { -0.2f, 1.5f, 0.0, 0.0, 1.0, -1.0 },
        { 0.0f, 2.0f, -1.0, 1.0, 0.0, 0.0 },
    };
    for (int dims = 2; dims <= 3; dims++)
        for (int i = 0; i < 3; i++) {
            throng_world *w = make_world(dims, 1u, 5.0f);
            REQUIRE(w != NULL);
            throng_behaviour b =
                kind_default(THRONG_BEHAVIOUR_AVOID_NEIGHBOURS);
            b.u.unaligned.horizon = cases[i].horizon;
            throng_group g = make_group(w, &b);
            throng_agent A = add(w, g, spec(0, 0, 0, 1, 0, 0, 1));
            throng_agent B = add(w, g, spec(4, cases[i].by, 0, -1, 0, 0, 1));
            REQUIRE_OK(throng_world_step(w, DT));
            CHECK_V(w, A, cases[i].ax_want, cases[i].ay_want, 0.0);
            CHECK_V(w, B, cases[i].bx_want, cases[i].by_want, 0.0);
            throng_world_destroy(w);
        }
}

/* Degenerate inputs give the documented quiet result or fallback, never
 * NaN. One agent per world, speed factor 1, max speed 1, from v0:
 *   seek standing on its target: quiet, v1 = v0 = (0.3, 0.4);
 *   flee standing on its target: v_d = heading = (0.6, 0.8);
 *   pursue a coincident target at rest: offset 0, quiet;
 *   evade it: v_d = heading;
 *   wander circle with distance = radius = 1, jitter 0, heading (-1, 0):
 *     the point (-1, 0) + (1, 0) is the agent itself: v_d = heading;
 *   arrive at (3e38, 3e38), whose distance overflows a float: seek, v_d =
 *     (1, 1) / sqrt 2;
 *   seek from (3e38, 0) to (-3e38, 0), an offset beyond any float: quiet;
 *   seek with mass 1e30 over dt 1e-10: m / dt overflows, quiet. */
TEST(steer_agent_degenerate_inputs) {
    const double r = sqrt(0.5);
    struct degenerate {
        throng_behaviour_kind kind;
        float px, py, vx, vy, tx, ty, mass, dt;
        int target_agent;
        double want_x, want_y;
    } cases[] = {
        { THRONG_BEHAVIOUR_SEEK, 1, 2, 0.3f, 0.4f, 1, 2, 2, DT, 0, 0.3, 0.4 },
        { THRONG_BEHAVIOUR_FLEE, 1, 2, 0.3f, 0.4f, 1, 2, 2, DT, 0, 0.6, 0.8 },
        { THRONG_BEHAVIOUR_PURSUE, 1, 2, 0.3f, 0.4f, 0, 0, 2, DT, 1, 0.3, 0.4 },
        { THRONG_BEHAVIOUR_EVADE, 1, 2, 0.3f, 0.4f, 0, 0, 2, DT, 1, 0.6, 0.8 },
        { THRONG_BEHAVIOUR_WANDER_CIRCLE, 0, 0, -0.5f, 0, 0, 0, 2, DT, 0, -1.0,
          0.0 },
        { THRONG_BEHAVIOUR_ARRIVE, 0, 0, 0, 0, 3e38f, 3e38f, 2, DT, 0, r, r },
        { THRONG_BEHAVIOUR_SEEK, 3e38f, 0, 0.3f, 0.4f, -3e38f, 0, 2, DT, 0, 0.3,
          0.4 },
        { THRONG_BEHAVIOUR_SEEK, 0, 0, 0.3f, 0.4f, 5, 5, 1e30f, 1e-10f, 0, 0.3,
          0.4 },
    };
    for (int dims = 2; dims <= 3; dims++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            const struct degenerate *c = &cases[i];
            throng_world *w = make_world(dims, 1u, 1.0f);
            REQUIRE(w != NULL);
            throng_behaviour b = kind_default(c->kind);
            if (c->kind == THRONG_BEHAVIOUR_WANDER_CIRCLE) {
                b.u.wander.distance = 1.0f;
                b.u.wander.radius = 1.0f;
                b.u.wander.jitter = 0.0f;
            }
            throng_group g = make_group(w, &b);
            agent_spec sp = spec(c->px, c->py, 0, c->vx, c->vy, 0, 1);
            sp.mass = c->mass;
            throng_agent h = add(w, g, sp);
            if (c->target_agent) {
                throng_agent t = add(w, THRONG_NULL_GROUP,
                                     spec(c->px, c->py, 0, 0, 0, 0, 1));
                REQUIRE_OK(throng_agent_set_target_agent(w, h, t));
            } else {
                const float tp[3] = { c->tx, c->ty, 0.0f };
                REQUIRE_OK(throng_agent_set_target_point(w, h, tp));
            }
            REQUIRE_OK(throng_world_step(w, c->dt));
            double v[3];
            get_v(w, h, v);
            if (!(fabs(v[0] - c->want_x) <= 2e-5 &&
                  fabs(v[1] - c->want_y) <= 2e-5 && fabs(v[2]) <= 2e-5))
                runner_fail(__FILE__, __LINE__,
                            "%dD case %zu: v1 = (%g, %g, %g), want (%g, %g, "
                            "0)",
                            dims, i, v[0], v[1], v[2], c->want_x, c->want_y);
            throng_world_destroy(w);
        }
}

/* ------------------------------------------------------------------------ */
/* End to end                                                               */
/* ------------------------------------------------------------------------ */

/* Arrive from rest and from full speed, both ramps, 2D and 3D: the agent
 * must end within 1% of D of the target, nearly at rest, and the signed
 * distance along the approach (target - p) . u, u the initial direction,
 * must not turn negative. The approach is 10 m at max speed 2, max force
 * 4, mass 1, dt 0.05: the physical stopping distance is v^2 / (2 a) =
 * 0.5 m, the default D.
 *
 * With D = 1.5, and with the default D = 0.5 + v dt = 0.6 (the
 * stopping distance plus the one step by which the agent may notice D
 * late), no overshoot is allowed at all. */
static void arrive_run(int dims, throng_arrive_ramp ramp, float D, float speed0,
                       double allowed, int line) {
    throng_world *w = make_world(dims, 1u, 1.0f);
    if (!w) {
        runner_fail(__FILE__, line, "no world");
        return;
    }
    throng_behaviour b = kind_default(THRONG_BEHAVIOUR_ARRIVE);
    b.u.seek.ramp = ramp;
    b.u.seek.braking_distance = D;
    throng_group g = make_group(w, &b);
    /* Direction of approach u = (0.6, 0.8, 0) in 2D, (0.48, 0.64, 0.6) in
     * 3D; the agent starts 10 m before the target. */
    const double u[3] = { dims == 3 ? 0.48 : 0.6, dims == 3 ? 0.64 : 0.8,
                          dims == 3 ? 0.6 : 0.0 };
    const double target[3] = { 3.0, -2.0, dims == 3 ? 1.0 : 0.0 };
    agent_spec s = spec(
        (float)(target[0] - 10.0 * u[0]), (float)(target[1] - 10.0 * u[1]),
        (float)(target[2] - 10.0 * u[2]), (float)((double)speed0 * u[0]),
        (float)((double)speed0 * u[1]), (float)((double)speed0 * u[2]), 2.0f);
    s.mass = 1.0f;
    s.max_force = 4.0f;
    throng_agent h = add(w, g, s);
    const float tf[3] = { (float)target[0], (float)target[1],
                          (float)target[2] };
    throng_agent_set_target_point(w, h, tf);
    const double Dused = D > 0.0f ? (double)D : 0.6;
    double min_along = 1e9;
    for (int step = 0; step < 600; step++) {
        throng_world_step(w, 0.05f);
        double p[3];
        get_p(w, h, p);
        double along = 0.0;
        for (int k = 0; k < 3; k++)
            along += (target[k] - p[k]) * u[k];
        min_along = along < min_along ? along : min_along;
    }
    double p[3], v[3];
    get_p(w, h, p);
    get_v(w, h, v);
    double dist = test_dist3(p, target);
    if (!(min_along >= -allowed))
        runner_fail(__FILE__, line, "%dD ramp %d D %g v0 %g: overshot by %g m",
                    dims, (int)ramp, (double)D, (double)speed0, -min_along);
    if (!(dist <= 0.01 * Dused))
        runner_fail(__FILE__, line,
                    "%dD ramp %d D %g v0 %g: ended %g m from the target", dims,
                    (int)ramp, (double)D, (double)speed0, dist);
    if (!(test_len3(v) <= 0.01))
        runner_fail(__FILE__, line, "%dD ramp %d: still moving at %g m/s", dims,
                    (int)ramp, test_len3(v));
    throng_world_destroy(w);
}

TEST(steer_agent_arrive_end_to_end) {
    for (int dims = 2; dims <= 3; dims++)
        for (int ramp = 0; ramp <= 1; ramp++)
            for (int moving = 0; moving <= 1; moving++) {
                float v0 = moving ? 2.0f : 0.0f;
                arrive_run(dims, (throng_arrive_ramp)ramp, 1.5f, v0, 0.0,
                           __LINE__);
                arrive_run(dims, (throng_arrive_ramp)ramp, 0.0f, v0, 0.0,
                           __LINE__);
            }
}

/* Chasing a target that wanders (turn-rate wander, max speed 1), starting
 * 8 m away and moving across the line of sight: a pursuer (max speed 1.25)
 * that leads the target must catch it (come within 0.5 m) sooner than a
 * seeker of the same speed whose target point is moved to the target's
 * current position before every step. Returns the steps each took. */
static void chase(uint64_t seed, int *pursue_steps, int *seek_steps) {
    throng_world *w = make_world(2, seed, 1.0f);
    *pursue_steps = *seek_steps = -1;
    if (!w)
        return;
    throng_group_def gd = throng_group_def_default();
    gd.wander.weight = 1.0f;
    gd.wander.max_turn_rate = 0.005f * 3.14159265f;
    gd.wander.max_turn_change = 0.001f * 3.14159265f;
    throng_group wander = THRONG_NULL_GROUP;
    throng_group_create(w, &gd, &wander);
    throng_behaviour b = kind_default(THRONG_BEHAVIOUR_PURSUE);
    throng_group gp = make_group(w, &b);
    b = kind_default(THRONG_BEHAVIOUR_SEEK);
    throng_group gs = make_group(w, &b);
    agent_spec ts = spec(8, 0, 0, 0, 1, 0, 1);
    ts.max_force = 2.0f;
    throng_agent t = add(w, wander, ts);
    agent_spec cs = spec(0, 0, 0, 0, 0, 0, 1.25f);
    cs.max_force = 3.0f;
    throng_agent hp = add(w, gp, cs), hs = add(w, gs, cs);
    throng_agent_set_target_agent(w, hp, t);
    for (int step = 1; step <= 3000 && (*pursue_steps < 0 || *seek_steps < 0);
         step++) {
        float tp[3];
        throng_agent_get_position(w, t, tp);
        throng_agent_set_target_point(w, hs, tp);
        throng_world_step(w, 0.05f);
        double pt[3], pp[3], ps[3];
        get_p(w, t, pt);
        get_p(w, hp, pp);
        get_p(w, hs, ps);
        if (*pursue_steps < 0 && test_dist3(pt, pp) < 0.5)
            *pursue_steps = step;
        if (*seek_steps < 0 && test_dist3(pt, ps) < 0.5)
            *seek_steps = step;
    }
    throng_world_destroy(w);
}

TEST(steer_agent_pursue_beats_seek) {
    int total_pursue = 0, total_seek = 0, wins = 0;
    const int runs = 6;
    for (int r = 0; r < runs; r++) {
        int p = -1, s = -1;
        chase(100u + (uint64_t)r, &p, &s);
        CHECK(p > 0); /* caught at all */
        CHECK(s > 0);
        total_pursue += p;
        total_seek += s;
        wins += p < s;
    }
    CHECK(wins == runs);
    /* Not by a hair: at least 10% sooner overall. */
    if (!(total_pursue < 0.9 * total_seek))
        runner_fail(__FILE__, __LINE__, "pursue %d steps vs seek %d",
                    total_pursue, total_seek);
}

/* An evader (max speed 1) and a slower pursuer (0.8) that leads it,
 * starting 3 m apart at rest: over 50 s the gap never shrinks much below
 * 3 m and ends well above it. The same pursuer catches an evader that
 * does not evade (it stands still), so the scenario can fail. */
TEST(steer_agent_evade_keeps_distance) {
    for (int dims = 2; dims <= 3; dims++)
        for (int evading = 0; evading <= 1; evading++) {
            throng_world *w = make_world(dims, 1u, 1.0f);
            REQUIRE(w != NULL);
            throng_behaviour b = kind_default(THRONG_BEHAVIOUR_EVADE);
            throng_group ge = evading ? make_group(w, &b) : THRONG_NULL_GROUP;
            b = kind_default(THRONG_BEHAVIOUR_PURSUE);
            throng_group gp = make_group(w, &b);
            agent_spec es = spec(0, 0, 0, 0, 0, 0, 1);
            es.max_force = 2.0f;
            agent_spec ps = spec(-3, 0, dims == 3 ? 0.5f : 0.0f, 0, 0, 0, 0.8f);
            ps.max_force = 2.0f;
            throng_agent e = add(w, ge, es), p = add(w, gp, ps);
            REQUIRE_OK(throng_agent_set_target_agent(w, e, p));
            REQUIRE_OK(throng_agent_set_target_agent(w, p, e));
            double start, min_gap = 1e9, gap = 0.0;
            double pe[3], pp[3];
            get_p(w, e, pe);
            get_p(w, p, pp);
            start = test_dist3(pe, pp);
            for (int step = 0; step < 1000; step++) {
                REQUIRE_OK(throng_world_step(w, 0.05f));
                get_p(w, e, pe);
                get_p(w, p, pp);
                gap = test_dist3(pe, pp);
                min_gap = gap < min_gap ? gap : min_gap;
            }
            if (evading) {
                CHECK(min_gap > 0.9 * start);
                CHECK(gap > start + 5.0);
            } else {
                CHECK(min_gap < 0.5);
            }
            throng_world_destroy(w);
        }
}

/* Two 6 x 6 crowds cross at right angles: crowd A heads +x, crowd B +y,
 * each agent seeking a goal 40 m ahead, both through the origin. The
 * recipe (weighted sum): inverse-distance separation, seek, and, or not,
 * unaligned collision avoidance looking 4 s ahead. Counts the overlapping
 * pairs (distance < r_i + r_j) summed over every step, and returns in
 * `progress` the mean distance covered towards the goals; `hash` receives
 * the final state's hash.
 *
 * Separation is in both runs on purpose: avoidance only sees agents on a
 * collision course, not crowd-mates moving alongside, so alone it shoves
 * agents into their neighbours and the overlaps it makes never part. */
static long crossing(int avoid, int threads, double *progress, uint64_t *hash) {
    throng_world *w = make_world(2, 9u, 3.0f);
    if (!w)
        return -1;
    throng_world_set_threads(w, threads);
    throng_group_def gd = throng_group_def_default();
    gd.combine = THRONG_COMBINE_WEIGHTED_SUM;
    gd.flocking.separation_mode = THRONG_SEPARATION_INVERSE_DISTANCE;
    gd.flocking.separation_weight = 0.5f;
    gd.flocking.separation_radius = 0.8f;
    throng_group g = THRONG_NULL_GROUP;
    throng_group_create(w, &gd, &g);
    throng_behaviour b = kind_default(THRONG_BEHAVIOUR_AVOID_NEIGHBOURS);
    b.u.unaligned.horizon = 4.0f;
    b.u.unaligned.margin = 0.1f;
    if (avoid)
        throng_group_add_behaviour(w, g, &b, NULL);
    b = kind_default(THRONG_BEHAVIOUR_SEEK);
    throng_group_add_behaviour(w, g, &b, NULL);
    enum {
        SIDE = 6,
        N = 2 * SIDE * SIDE
    };
    throng_agent h[N];
    double start[N];
    int n = 0;
    for (int crowd = 0; crowd < 2; crowd++)
        for (int i = 0; i < SIDE; i++)
            for (int j = 0; j < SIDE; j++) {
                float along = -12.0f + (float)i, across = -2.5f + (float)j;
                float x = crowd ? across : along, y = crowd ? along : across;
                agent_spec s = spec(x, y, 0, crowd ? 0.0f : 1.0f,
                                    crowd ? 1.0f : 0.0f, 0, 1);
                s.mass = 1.0f;
                s.max_force = 2.0f;
                s.radius = 0.3f;
                h[n] = add(w, g, s);
                const float goal[3] = { crowd ? x : x + 40.0f,
                                        crowd ? y + 40.0f : y, 0.0f };
                throng_agent_set_target_point(w, h[n], goal);
                start[n] = (double)along;
                n++;
            }
    long overlaps = 0;
    double p[N][3];
    for (int step = 0; step < 500; step++) {
        throng_world_step(w, 0.05f);
        for (int i = 0; i < N; i++)
            get_p(w, h[i], p[i]);
        for (int i = 0; i < N; i++)
            for (int j = i + 1; j < N; j++)
                overlaps += test_dist3(p[i], p[j]) < 0.6;
    }
    *progress = 0.0;
    for (int i = 0; i < N; i++)
        *progress += (p[i][i < N / 2 ? 0 : 1] - start[i]) / N;
    *hash = throng_world_hash(w);
    throng_world_destroy(w);
    return overlaps;
}

TEST(steer_agent_avoid_neighbours_crossing) {
    uint64_t h_plain = 0, h_avoid = 0, h_avoid4 = 0;
    double go_plain = 0.0, go_avoid = 0.0, go_avoid4 = 0.0;
    long plain = crossing(0, 1, &go_plain, &h_plain);
    long avoid = crossing(1, 1, &go_avoid, &h_avoid);
    long avoid4 = crossing(1, 4, &go_avoid4, &h_avoid4);
    /* The scenario really collides without avoidance ... */
    CHECK(plain > 1000);
    /* ... avoidance removes most of it ... */
    if (!(avoid >= 0 && avoid * 4 < plain))
        runner_fail(__FILE__, __LINE__,
                    "overlapping pair-steps: %ld with avoidance, %ld "
                    "without",
                    avoid, plain);
    /* ... and not by stopping: 25 s at 1 m/s, both crowds get well past
     * the crossing (the first rank started 7 m before it, the last 12). */
    CHECK(go_plain > 15.0);
    CHECK(go_avoid > 15.0);
    /* The scalar walk's threat tracking does not depend on threads. */
    CHECK_EQ_INT(avoid4, avoid);
    CHECK_EQ_U64(h_avoid4, h_avoid);
}

/* Every behaviour that names a target agent goes quiet (the agent coasts)
 * when the target is removed, even after its slot is reused by a new
 * agent, and when no target was ever set. */
TEST(steer_agent_removed_target_quiet) {
    const throng_behaviour_kind kinds[4] = { THRONG_BEHAVIOUR_PURSUE,
                                             THRONG_BEHAVIOUR_EVADE,
                                             THRONG_BEHAVIOUR_OFFSET_PURSUIT,
                                             THRONG_BEHAVIOUR_FOLLOW_LEADER };
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *w = make_world(dims, 1u, 1.0f);
        REQUIRE(w != NULL);
        throng_agent h[4], lonely[4];
        throng_agent target =
            add(w, THRONG_NULL_GROUP, spec(5, 5, 1, 0.3f, 0, 0, 1));
        for (int k = 0; k < 4; k++) {
            throng_behaviour b = kind_default(kinds[k]);
            throng_group g = make_group(w, &b);
            h[k] = add(w, g, spec((float)k, 0, 0, 0.2f, 0.1f, 0, 1));
            lonely[k] = add(w, g, spec((float)k, -3, 0, 0.1f, 0.2f, 0, 1));
            REQUIRE_OK(throng_agent_set_target_agent(w, h[k], target));
        }
        /* Active while the target lives. */
        REQUIRE_OK(throng_world_step(w, DT));
        for (int k = 0; k < 4; k++) {
            double v[3];
            get_v(w, h[k], v);
            CHECK(fabs(v[0] - 0.2) + fabs(v[1] - 0.1) > 1e-3);
        }
        REQUIRE_OK(throng_agent_remove(w, target));
        throng_agent reuse =
            add(w, THRONG_NULL_GROUP, spec(1, 1, 0, 0, 0, 0, 1));
        CHECK_EQ_INT(reuse.slot, target.slot); /* the slot came back */
        double v0[4][3];
        for (int k = 0; k < 4; k++)
            get_v(w, h[k], v0[k]);
        for (int step = 0; step < 20; step++)
            REQUIRE_OK(throng_world_step(w, DT));
        for (int k = 0; k < 4; k++) {
            double v[3], p[3];
            get_v(w, h[k], v);
            get_p(w, h[k], p);
            for (int c = 0; c < 3; c++) {
                CHECK(isfinite(p[c]));
                CHECK_NEAR(v[c], v0[k][c], 1e-7);
            }
            get_v(w, lonely[k], v);
            CHECK_NEAR(v[0], 0.1, 1e-7);
            CHECK_NEAR(v[1], 0.2, 1e-7);
        }
        throng_world_destroy(w);
    }
}

/* Offset pursuit end to end: the target arrives at (10, 10) heading
 * (1, 1) / sqrt 2 and stops; the follower must end at the offset point
 * (-1 forward, 2 side, 0.5 up in 3D) of the target's final frame, at
 * rest. */
TEST(steer_agent_offset_pursuit_end_to_end) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *w = make_world(dims, 1u, 1.0f);
        REQUIRE(w != NULL);
        throng_behaviour b = kind_default(THRONG_BEHAVIOUR_ARRIVE);
        b.u.seek.source = THRONG_TARGET_FIXED_POINT;
        b.u.seek.point[0] = b.u.seek.point[1] = 10.0f;
        b.u.seek.point[2] = dims == 3 ? 10.0f : 0.0f;
        throng_group gt = make_group(w, &b);
        b = kind_default(THRONG_BEHAVIOUR_OFFSET_PURSUIT);
        const float o[3] = { -1.0f, 2.0f, 0.5f };
        memcpy(b.u.pursue.offset, o, sizeof o);
        throng_group gf = make_group(w, &b);
        agent_spec ts = spec(0, 0, 0, 0.5f, 0.5f, dims == 3 ? 0.5f : 0.0f, 1);
        ts.max_force = 2.0f;
        throng_agent t = add(w, gt, ts);
        agent_spec fs = spec(-3, 4, 0, 0, 0, 0, 1.5f);
        fs.max_force = 3.0f;
        throng_agent f = add(w, gf, fs);
        REQUIRE_OK(throng_agent_set_target_agent(w, f, t));
        for (int step = 0; step < 1200; step++)
            REQUIRE_OK(throng_world_step(w, 0.05f));
        float tf[3], tu[3], tsd[3];
        REQUIRE_OK(throng_agent_get_basis(w, t, tf, tu, tsd));
        double pt[3], pf[3], vf[3], want[3];
        get_p(w, t, pt);
        get_p(w, f, pf);
        get_v(w, f, vf);
        CHECK_NEAR(pt[0], 10.0, 0.01);
        CHECK_NEAR(tf[0], tf[1], 1e-3); /* the heading it arrived with */
        for (int k = 0; k < 3; k++)
            want[k] = pt[k] + (double)(o[0] * tf[k] + o[1] * tsd[k]) +
                      (dims == 3 ? (double)(o[2] * tu[k]) : 0.0);
        if (!(test_dist3(pf, want) < 0.02))
            runner_fail(__FILE__, __LINE__,
                        "%dD: follower at (%g, %g, %g), offset point (%g, "
                        "%g, %g)",
                        dims, pf[0], pf[1], pf[2], want[0], want[1], want[2]);
        CHECK(test_len3(vf) < 0.01);
        throng_world_destroy(w);
    }
}

/* Leader following end to end: the leader walks +x at 0.5 m/s; five
 * followers (max speed 1, separated from each other) start around it,
 * three of them inside its corridor ahead. After 40 s every follower is
 * behind the leader (negative offset along its heading), out of the
 * corridor, and near the point `behind` metres behind it. */
TEST(steer_agent_follow_leader_end_to_end) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *w = make_world(dims, 1u, 1.0f);
        REQUIRE(w != NULL);
        throng_behaviour b = kind_default(THRONG_BEHAVIOUR_SEEK);
        b.u.seek.source = THRONG_TARGET_FIXED_POINT;
        b.u.seek.point[0] = 1000.0f;
        throng_group gl = make_group(w, &b);
        throng_group_def gd = throng_group_def_default();
        gd.combine = THRONG_COMBINE_WEIGHTED_SUM;
        gd.flocking.separation_mode = THRONG_SEPARATION_INVERSE_DISTANCE;
        gd.flocking.separation_weight = 0.3f;
        gd.flocking.separation_radius = 0.8f;
        throng_group gf = THRONG_NULL_GROUP;
        REQUIRE_OK(throng_group_create(w, &gd, &gf));
        b = kind_default(THRONG_BEHAVIOUR_FOLLOW_LEADER);
        REQUIRE_OK(throng_group_add_behaviour(w, gf, &b, NULL));
        agent_spec ls = spec(0, 0, 0, 0.5f, 0, 0, 0.5f);
        ls.max_force = 2.0f;
        throng_agent l = add(w, gl, ls);
        const float start[5][3] = { { 2.0f, -0.5f, 0.0f },
                                    { 1.5f, 0.3f, 0.2f },
                                    { 2.8f, 0.0f, 0.0f },
                                    { -3.0f, 2.0f, 0.0f },
                                    { -1.0f, -2.0f, -0.5f } };
        throng_agent h[5];
        for (int i = 0; i < 5; i++) {
            agent_spec fs = spec(start[i][0], start[i][1],
                                 dims == 3 ? start[i][2] : 0.0f, 0, 0, 0, 1);
            fs.max_force = 2.0f;
            h[i] = add(w, gf, fs);
            REQUIRE_OK(throng_agent_set_target_agent(w, h[i], l));
        }
        for (int step = 0; step < 800; step++)
            REQUIRE_OK(throng_world_step(w, 0.05f));
        double pl[3], fl[3];
        float f[3], up[3], side[3];
        get_p(w, l, pl);
        REQUIRE_OK(throng_agent_get_basis(w, l, f, up, side));
        test_to_double3(f, fl);
        CHECK_NEAR(pl[0], 20.0, 0.5);
        for (int i = 0; i < 5; i++) {
            double p[3], rel[3], along = 0.0;
            get_p(w, h[i], p);
            for (int k = 0; k < 3; k++) {
                rel[k] = p[k] - pl[k];
                along += rel[k] * fl[k];
            }
            double behind[3] = { pl[0] - 2.0 * fl[0], pl[1] - 2.0 * fl[1],
                                 pl[2] - 2.0 * fl[2] };
            if (!(along < 0.0) || !(test_dist3(p, behind) < 1.5))
                runner_fail(__FILE__, __LINE__,
                            "%dD follower %d: %g along the leader's heading, "
                            "%g m from the point behind it",
                            dims, i, along, test_dist3(p, behind));
        }
        throng_world_destroy(w);
    }
}

/* Projected-circle wander over a long run: the same seed gives the same
 * paths bit for bit (and for 1 or 4 threads), another seed other paths;
 * speeds never exceed max speed, nothing turns non-finite, and the agents
 * really turn (the net displacement is well below the path length). */
static uint64_t wander_run(int dims, uint64_t seed, int threads, int *bad_speed,
                           double *straightness) {
    throng_world *w = make_world(dims, seed, 1.0f);
    *bad_speed = 0;
    *straightness = 1.0;
    if (!w)
        return 0;
    throng_world_set_threads(w, threads);
    throng_behaviour b = kind_default(THRONG_BEHAVIOUR_WANDER_CIRCLE);
    b.u.wander.jitter = 0.5f;
    throng_group g = make_group(w, &b);
    enum {
        N = 16
    };
    throng_agent h[N];
    for (int i = 0; i < N; i++) {
        /* A 4 x 4 lattice: i / 4 is the row, integer division on purpose. */
        /* NOLINTNEXTLINE(bugprone-integer-division) */
        agent_spec s = spec(3.0f * (float)(i % 4), 3.0f * (float)(i / 4),
                            dims == 3 ? (float)i : 0.0f, 1, 0, 0, 1.2f);
        s.mass = 1.0f;
        s.max_force = 3.0f;
        h[i] = add(w, g, s);
    }
    double start[N][3], path = 0.0, net = 0.0;
    for (int i = 0; i < N; i++)
        get_p(w, h[i], start[i]);
    for (int step = 0; step < 300; step++) {
        throng_world_step(w, 0.05f);
        for (int i = 0; i < N; i++) {
            double v[3], p[3];
            get_v(w, h[i], v);
            get_p(w, h[i], p);
            double speed = test_len3(v);
            if (!(speed <= 1.2 * (1.0 + 1e-6)) || !isfinite(p[0]) ||
                !isfinite(p[1]) || !isfinite(p[2]))
                (*bad_speed)++;
            path += speed * 0.05;
        }
    }
    for (int i = 0; i < N; i++) {
        double p[3];
        get_p(w, h[i], p);
        net += test_dist3(p, start[i]);
    }
    *straightness = net / path;
    uint64_t hash = throng_world_hash(w);
    throng_world_destroy(w);
    return hash;
}

TEST(steer_agent_wander_circle_seeded) {
    for (int dims = 2; dims <= 3; dims++) {
        int bad[4];
        double straight[4];
        uint64_t a = wander_run(dims, 11u, 1, &bad[0], &straight[0]);
        uint64_t b = wander_run(dims, 11u, 1, &bad[1], &straight[1]);
        uint64_t c = wander_run(dims, 11u, 4, &bad[2], &straight[2]);
        uint64_t d = wander_run(dims, 12u, 1, &bad[3], &straight[3]);
        CHECK_EQ_U64(a, b);
        CHECK_EQ_U64(a, c);
        CHECK(a != d);
        for (int i = 0; i < 4; i++) {
            CHECK_EQ_INT(bad[i], 0);
            /* 15 s at ~1.2 m/s: a straight walk would give 1. */
            if (!(straight[i] < 0.9))
                runner_fail(__FILE__, __LINE__,
                            "%dD: net / path = %g, the walk hardly turns", dims,
                            straight[i]);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Bad input                                                                */
/* ------------------------------------------------------------------------ */

/* Parameters of the agent kinds, by name, so a table can set them. */
enum field {
    F_SOURCE,
    F_RAMP,
    F_POINT0,
    F_POINT2,
    F_FLEE_RANGE,
    F_SEEK_BRAKING,
    F_PREDICTION,
    F_MAX_PREDICTION,
    F_OFFSET1,
    F_OFFSET2,
    F_PURSUE_BRAKING,
    F_EVADE_RANGE,
    F_W_DISTANCE,
    F_W_RADIUS,
    F_W_JITTER,
    F_L_BEHIND,
    F_L_LENGTH,
    F_L_WIDTH,
    F_L_BRAKING,
    F_U_RADIUS,
    F_U_HORIZON,
    F_U_MARGIN
};

static void set_field(throng_behaviour *b, enum field f, float x) {
    switch (f) {
    case F_SOURCE:
        b->u.seek.source = (throng_target_source)(int)x;
        break;
    case F_RAMP:
        b->u.seek.ramp = (throng_arrive_ramp)(int)x;
        break;
    case F_POINT0:
        b->u.seek.point[0] = x;
        break;
    case F_POINT2:
        b->u.seek.point[2] = x;
        break;
    case F_FLEE_RANGE:
        b->u.seek.flee_range = x;
        break;
    case F_SEEK_BRAKING:
        b->u.seek.braking_distance = x;
        break;
    case F_PREDICTION:
        b->u.pursue.prediction_time = x;
        break;
    case F_MAX_PREDICTION:
        b->u.pursue.max_prediction = x;
        break;
    case F_OFFSET1:
        b->u.pursue.offset[1] = x;
        break;
    case F_OFFSET2:
        b->u.pursue.offset[2] = x;
        break;
    case F_PURSUE_BRAKING:
        b->u.pursue.braking_distance = x;
        break;
    case F_EVADE_RANGE:
        b->u.pursue.evade_range = x;
        break;
    case F_W_DISTANCE:
        b->u.wander.distance = x;
        break;
    case F_W_RADIUS:
        b->u.wander.radius = x;
        break;
    case F_W_JITTER:
        b->u.wander.jitter = x;
        break;
    case F_L_BEHIND:
        b->u.leader.behind = x;
        break;
    case F_L_LENGTH:
        b->u.leader.clearance_length = x;
        break;
    case F_L_WIDTH:
        b->u.leader.clearance_width = x;
        break;
    case F_L_BRAKING:
        b->u.leader.braking_distance = x;
        break;
    case F_U_RADIUS:
        b->u.unaligned.radius = x;
        break;
    case F_U_HORIZON:
        b->u.unaligned.horizon = x;
        break;
    case F_U_MARGIN:
        b->u.unaligned.margin = x;
        break;
    }
}

TEST(steer_agent_bad_input) {
    const float nan = nanf(""), inf = INFINITY;
    struct bad_case {
        throng_behaviour_kind kind;
        enum field field;
        float value;
        int dims; /* 0: both */
        throng_status want;
    } cases[] = {
        { THRONG_BEHAVIOUR_SEEK, F_SOURCE, 2, 0, THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_FLEE, F_SOURCE, -1, 0, THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_ARRIVE, F_RAMP, 2, 0, THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_ARRIVE, F_RAMP, -1, 0, THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_SEEK, F_POINT0, nan, 0, THRONG_ERR_NOT_FINITE },
        { THRONG_BEHAVIOUR_SEEK, F_POINT2, inf, 3, THRONG_ERR_NOT_FINITE },
        { THRONG_BEHAVIOUR_SEEK, F_POINT2, nan, 2, THRONG_OK },
        { THRONG_BEHAVIOUR_FLEE, F_FLEE_RANGE, -1, 0, THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_FLEE, F_FLEE_RANGE, inf, 0, THRONG_ERR_NOT_FINITE },
        { THRONG_BEHAVIOUR_ARRIVE, F_SEEK_BRAKING, -0.1f, 0,
          THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_ARRIVE, F_SEEK_BRAKING, nan, 0,
          THRONG_ERR_NOT_FINITE },
        { THRONG_BEHAVIOUR_PURSUE, F_PREDICTION, -1, 0,
          THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_PURSUE, F_PREDICTION, nan, 0,
          THRONG_ERR_NOT_FINITE },
        { THRONG_BEHAVIOUR_EVADE, F_MAX_PREDICTION, -1, 0,
          THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_EVADE, F_EVADE_RANGE, -2, 0,
          THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_EVADE, F_EVADE_RANGE, -inf, 0,
          THRONG_ERR_NOT_FINITE },
        { THRONG_BEHAVIOUR_OFFSET_PURSUIT, F_OFFSET1, inf, 0,
          THRONG_ERR_NOT_FINITE },
        { THRONG_BEHAVIOUR_OFFSET_PURSUIT, F_OFFSET2, nan, 3,
          THRONG_ERR_NOT_FINITE },
        { THRONG_BEHAVIOUR_OFFSET_PURSUIT, F_OFFSET2, nan, 2, THRONG_OK },
        { THRONG_BEHAVIOUR_OFFSET_PURSUIT, F_PURSUE_BRAKING, -1, 0,
          THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_WANDER_CIRCLE, F_W_DISTANCE, -1, 0,
          THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_WANDER_CIRCLE, F_W_RADIUS, 0, 0,
          THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_WANDER_CIRCLE, F_W_RADIUS, nan, 0,
          THRONG_ERR_NOT_FINITE },
        { THRONG_BEHAVIOUR_WANDER_CIRCLE, F_W_JITTER, -0.1f, 0,
          THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_WANDER_CIRCLE, F_W_JITTER, 3.2f, 0,
          THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_WANDER_CIRCLE, F_W_JITTER, 3.14159265f, 0,
          THRONG_OK },
        { THRONG_BEHAVIOUR_FOLLOW_LEADER, F_L_BEHIND, -1, 0,
          THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_FOLLOW_LEADER, F_L_LENGTH, nan, 0,
          THRONG_ERR_NOT_FINITE },
        { THRONG_BEHAVIOUR_FOLLOW_LEADER, F_L_WIDTH, -0.5f, 0,
          THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_FOLLOW_LEADER, F_L_BRAKING, -1, 0,
          THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_AVOID_NEIGHBOURS, F_U_RADIUS, -1, 0,
          THRONG_ERR_OUT_OF_RANGE },
        /* The world's neighbour radius is 2. */
        { THRONG_BEHAVIOUR_AVOID_NEIGHBOURS, F_U_RADIUS, 2.5f, 0,
          THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_AVOID_NEIGHBOURS, F_U_RADIUS, 2.0f, 0, THRONG_OK },
        { THRONG_BEHAVIOUR_AVOID_NEIGHBOURS, F_U_RADIUS, nan, 0,
          THRONG_ERR_NOT_FINITE },
        { THRONG_BEHAVIOUR_AVOID_NEIGHBOURS, F_U_HORIZON, 0, 0,
          THRONG_ERR_OUT_OF_RANGE },
        { THRONG_BEHAVIOUR_AVOID_NEIGHBOURS, F_U_HORIZON, inf, 0,
          THRONG_ERR_NOT_FINITE },
        { THRONG_BEHAVIOUR_AVOID_NEIGHBOURS, F_U_MARGIN, -0.1f, 0,
          THRONG_ERR_OUT_OF_RANGE },
    };
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *w = make_world(dims, 1u, 2.0f);
        REQUIRE(w != NULL);
        throng_group_def gd = throng_group_def_default();
        throng_group g = THRONG_NULL_GROUP;
        REQUIRE_OK(throng_group_create(w, &gd, &g));
        throng_agent_def ad = throng_agent_def_default();
        ad.group = g;
        throng_agent h;
        REQUIRE_OK(throng_agent_add(w, &ad, &h));
        /* A valid behaviour to replace in place. */
        throng_behaviour keep = kind_default(THRONG_BEHAVIOUR_FLEE);
        keep.u.seek.flee_range = 7.0f;
        REQUIRE_OK(throng_group_add_behaviour(w, g, &keep, NULL));
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            const struct bad_case *c = &cases[i];
            if (c->dims && c->dims != dims)
                continue;
            throng_behaviour b = kind_default(c->kind);
            /* The point is read with a fixed source only. */
            if (c->field == F_POINT0 || c->field == F_POINT2)
                b.u.seek.source = THRONG_TARGET_FIXED_POINT;
            set_field(&b, c->field, c->value);
            uint64_t before = throng_world_hash(w);
            uint32_t count = 0, index = 99u;
            REQUIRE_OK(throng_group_behaviour_count(w, g, &count));
            throng_status got = throng_group_add_behaviour(w, g, &b, &index);
            if (got != c->want)
                runner_fail(__FILE__, __LINE__,
                            "%dD case %zu (kind %d field %d = %g): got %d, "
                            "want %d (%s)",
                            dims, i, (int)c->kind, (int)c->field,
                            (double)c->value, (int)got, (int)c->want,
                            throng_world_last_error(w));
            if (c->want == THRONG_OK) {
                CHECK_EQ_INT(index, count);
                REQUIRE_OK(throng_group_clear_behaviours(w, g));
                REQUIRE_OK(throng_group_add_behaviour(w, g, &keep, NULL));
                continue;
            }
            CHECK(strlen(throng_world_last_error(w)) > 8u);
            CHECK_EQ_INT(index, 99u);
            CHECK_EQ_U64(throng_world_hash(w), before);
            uint32_t after = 0;
            REQUIRE_OK(throng_group_behaviour_count(w, g, &after));
            CHECK_EQ_INT(after, count);
            /* Replacing in place is refused alike, the old one kept. */
            CHECK_STATUS(throng_group_set_behaviour(w, g, 0u, &b), c->want);
            throng_behaviour now;
            REQUIRE_OK(throng_group_get_behaviour(w, g, 0u, &now));
            CHECK(memcmp(&now, &keep, sizeof now) == 0);
            CHECK_EQ_U64(throng_world_hash(w), before);
        }
        /* The refusal names the field. */
        throng_behaviour b = kind_default(THRONG_BEHAVIOUR_FOLLOW_LEADER);
        b.u.leader.clearance_width = -1.0f;
        CHECK_STATUS(throng_group_add_behaviour(w, g, &b, NULL),
                     THRONG_ERR_OUT_OF_RANGE);
        CHECK(strstr(throng_world_last_error(w), "clearance_width") != NULL);
        /* The world still steps with what it kept. */
        CHECK_OK(throng_world_step(w, DT));
        throng_world_destroy(w);
    }
}

/* throng_agent_set_target_agent refuses removed, forged and stale-
 * generation handles (THRONG_ERR_STALE_HANDLE) and the agent itself
 * (THRONG_ERR_OUT_OF_RANGE), leaving the world and the old target as
 * they were; the null handle clears the target. */
TEST(steer_agent_set_target_agent_refusals) {
    throng_world *w = make_world(2, 1u, 1.0f);
    REQUIRE(w != NULL);
    throng_agent a = add(w, THRONG_NULL_GROUP, spec(0, 0, 0, 0, 0, 0, 1));
    throng_agent b = add(w, THRONG_NULL_GROUP, spec(1, 0, 0, 0, 0, 0, 1));
    throng_agent gone = add(w, THRONG_NULL_GROUP, spec(2, 0, 0, 0, 0, 0, 1));
    REQUIRE_OK(throng_agent_remove(w, gone));
    struct refusal {
        throng_agent agent, target;
        throng_status want;
    } cases[] = {
        { a, gone, THRONG_ERR_STALE_HANDLE },
        { a, { 999u, 1u, b.world }, THRONG_ERR_STALE_HANDLE },
        { a, { b.slot, b.generation + 1u, b.world }, THRONG_ERR_STALE_HANDLE },
        { gone, b, THRONG_ERR_STALE_HANDLE },
        { a, a, THRONG_ERR_OUT_OF_RANGE },
    };
    /* First with no behaviour state yet, then with a target set. */
    for (int round = 0; round < 2; round++) {
        if (round == 1)
            REQUIRE_OK(throng_agent_set_target_agent(w, a, b));
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            uint64_t before = throng_world_hash(w);
            CHECK_STATUS(throng_agent_set_target_agent(w, cases[i].agent,
                                                       cases[i].target),
                         cases[i].want);
            CHECK(strlen(throng_world_last_error(w)) > 8u);
            CHECK_EQ_U64(throng_world_hash(w), before);
            throng_agent t;
            REQUIRE_OK(throng_agent_get_target_agent(w, a, &t));
            CHECK(round ? test_handle_eq(t, b)
                        : test_handle_eq(t, THRONG_NULL_AGENT));
        }
    }
    REQUIRE_OK(throng_agent_set_target_agent(w, a, THRONG_NULL_AGENT));
    throng_agent t;
    REQUIRE_OK(throng_agent_get_target_agent(w, a, &t));
    CHECK(test_handle_eq(t, THRONG_NULL_AGENT));
    throng_world_destroy(w);
}

void register_steer_agent_tests(void) {
    REGISTER(steer_agent_defaults);
    REGISTER(steer_agent_seek_flee_2d);
    REGISTER(steer_agent_seek_flee_3d);
    REGISTER(steer_agent_seek_truncated);
    REGISTER(steer_agent_periodic);
    REGISTER(steer_agent_arrive_hand_worked);
    REGISTER(steer_agent_pursue_evade_2d);
    REGISTER(steer_agent_pursue_evade_3d);
    REGISTER(steer_agent_offset_pursuit_2d);
    REGISTER(steer_agent_offset_pursuit_3d);
    REGISTER(steer_agent_wander_circle_2d_hand);
    REGISTER(steer_agent_wander_circle_3d_hand);
    REGISTER(steer_agent_follow_leader_hand);
    REGISTER(steer_agent_avoid_neighbours_hand);
    REGISTER(steer_agent_degenerate_inputs);
    REGISTER(steer_agent_arrive_end_to_end);
    REGISTER(steer_agent_pursue_beats_seek);
    REGISTER(steer_agent_evade_keeps_distance);
    REGISTER(steer_agent_avoid_neighbours_crossing);
    REGISTER(steer_agent_removed_target_quiet);
    REGISTER(steer_agent_offset_pursuit_end_to_end);
    REGISTER(steer_agent_follow_leader_end_to_end);
    REGISTER(steer_agent_wander_circle_seeded);
    REGISTER(steer_agent_bad_input);
    REGISTER(steer_agent_set_target_agent_refusals);
}
