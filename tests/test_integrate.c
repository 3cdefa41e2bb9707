/* SPDX-License-Identifier: MIT */
/*
 * The vehicle model of seed 000, worked by hand:
 *
 *     F = truncate(F_h, max_force)   a = F / m
 *     v1 = truncate(v0 + a dt, max_speed)   p1 = p0 + v1 dt
 *     forward = v1 / |v1|, kept when v1 = 0
 *
 * The default group has no behaviour (F_h = 0, agents coast). A known F_h
 * comes from a group with alignment alone (weight 1, weighted average, all
 * round view): with one neighbour B, agent A feels F_h = m_A (v_B - v_A)/dt.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* world_select_kernel: force a kernel path */
#include "runner.h"
#include "kernel_paths.h"

/* |got - want| <= 1e-5 relative (absolute below 1). */
#define CHECK_CLOSE(got, want) \
    CHECK_NEAR((got), (want), 1e-5 * fmax(1.0, fabs((double)(want))))

static throng_world *integrate_world(int dims, bool periodic, float box) {
    throng_world_def def = ts_world_def(dims, 0, NULL);
    def.max_dt = 10.0f; /* one tick per step: one step's formulas */
    if (periodic)
        ts_world_def_periodic(&def, box);
    return ts_world_make(&def);
}

typedef struct vehicle_case {
    float position[3];
    float velocity[3];
    float mass, max_force, max_speed;
} vehicle_case;

static throng_status add_vehicle(throng_world *world, const vehicle_case *c,
                                 throng_group group, throng_agent *out) {
    throng_agent_def def = throng_agent_def_default();
    memcpy(def.position, c->position, sizeof def.position);
    memcpy(def.velocity, c->velocity, sizeof def.velocity);
    def.mass = c->mass;
    def.max_force = c->max_force;
    def.max_speed = c->max_speed;
    def.group = group;
    return throng_agent_add(world, &def, out);
}

static void expect_state(throng_world *world, throng_agent a, const double p[3],
                         const double v[3], int line) {
    float gp[3], gv[3];
    if (throng_agent_get_position(world, a, gp) != THRONG_OK ||
        throng_agent_get_velocity(world, a, gv) != THRONG_OK) {
        runner_fail(__FILE__, line, "agent lost");
        return;
    }
    for (int k = 0; k < 3; k++) {
        double tp = 1e-5 * fmax(1.0, fabs(p[k]));
        double tv = 1e-5 * fmax(1.0, fabs(v[k]));
        if (fabs((double)gp[k] - p[k]) > tp || fabs((double)gv[k] - v[k]) > tv)
            runner_fail(__FILE__, line,
                        "got p=(%.7g,%.7g,%.7g) v=(%.7g,%.7g,%.7g), want "
                        "p=(%.7g,%.7g,%.7g) v=(%.7g,%.7g,%.7g)",
                        (double)gp[0], (double)gp[1], (double)gp[2],
                        (double)gv[0], (double)gv[1], (double)gv[2], p[0], p[1],
                        p[2], v[0], v[1], v[2]);
    }
}

/* Forward, up and side unit, mutually perpendicular, side = forward x up,
 * all within 1e-5. */
static void check_basis(throng_world *world, throng_agent a, int line) {
    float f[3], u[3], s[3];
    if (throng_agent_get_basis(world, a, f, u, s) != THRONG_OK) {
        runner_fail(__FILE__, line, "get_basis refused");
        return;
    }
    double fd[3], ud[3], sd[3];
    test_to_double3(f, fd);
    test_to_double3(u, ud);
    test_to_double3(s, sd);
    double cross[3] = { fd[1] * ud[2] - fd[2] * ud[1],
                        fd[2] * ud[0] - fd[0] * ud[2],
                        fd[0] * ud[1] - fd[1] * ud[0] };
    double fu = fd[0] * ud[0] + fd[1] * ud[1] + fd[2] * ud[2];
    double fs = fd[0] * sd[0] + fd[1] * sd[1] + fd[2] * sd[2];
    double us = ud[0] * sd[0] + ud[1] * sd[1] + ud[2] * sd[2];
    bool ok = fabs(test_len3(fd) - 1.0) <= 1e-5 &&
              fabs(test_len3(ud) - 1.0) <= 1e-5 &&
              fabs(test_len3(sd) - 1.0) <= 1e-5 && fabs(fu) <= 1e-5 &&
              fabs(fs) <= 1e-5 && fabs(us) <= 1e-5 &&
              test_dist3(cross, sd) <= 1e-5;
    if (!ok)
        runner_fail(__FILE__, line,
                    "basis not orthonormal: f=(%.7g,%.7g,%.7g) "
                    "u=(%.7g,%.7g,%.7g) s=(%.7g,%.7g,%.7g)",
                    fd[0], fd[1], fd[2], ud[0], ud[1], ud[2], sd[0], sd[1],
                    sd[2]);
}

static void expect_forward(throng_world *world, throng_agent a,
                           const double want[3], int line) {
    float f[3], u[3], s[3];
    if (throng_agent_get_basis(world, a, f, u, s) != THRONG_OK) {
        runner_fail(__FILE__, line, "get_basis refused");
        return;
    }
    double fd[3];
    test_to_double3(f, fd);
    if (test_dist3(fd, want) > 1e-5)
        runner_fail(__FILE__, line,
                    "forward (%.7g,%.7g,%.7g), want (%.7g,%.7g,%.7g)", fd[0],
                    fd[1], fd[2], want[0], want[1], want[2]);
}

TEST(integrate_coast) {
    throng_world *world = integrate_world(2, false, 0.0f);
    REQUIRE(world != NULL);
    /* Agents far apart; the default group coasts whatever the limits. */
    vehicle_case slow = { { 1, 2, 0 }, { 0.3f, -0.4f, 0 }, 1, 10, 1 };
    vehicle_case fast = { { -30, 5, 0 }, { 3, 4, 0 }, 1, 10, 2.5f };
    vehicle_case frozen = { { 70, -1, 0 }, { 1, 1, 0 }, 1, 10, 0 };
    vehicle_case rest = { { 100, 100, 0 }, { 0, 0, 0 }, 1, 10, 1 };
    vehicle_case no_force = { { -100, 40, 0 }, { 0.25f, 0.5f, 0 }, 3, 0, 1 };
    throng_agent a_slow, a_fast, a_frozen, a_rest, a_no_force;
    REQUIRE_OK(add_vehicle(world, &slow, THRONG_NULL_GROUP, &a_slow));
    REQUIRE_OK(add_vehicle(world, &fast, THRONG_NULL_GROUP, &a_fast));
    REQUIRE_OK(add_vehicle(world, &frozen, THRONG_NULL_GROUP, &a_frozen));
    REQUIRE_OK(add_vehicle(world, &rest, THRONG_NULL_GROUP, &a_rest));
    REQUIRE_OK(add_vehicle(world, &no_force, THRONG_NULL_GROUP, &a_no_force));

    REQUIRE_OK(throng_world_step(world, 0.5f));
    /* slow: speed 0.5 <= 1, p += v dt. */
    expect_state(world, a_slow, (double[3]){ 1.15, 1.8, 0 },
                 (double[3]){ 0.3, -0.4, 0 }, __LINE__);
    expect_forward(world, a_slow, (double[3]){ 0.6, -0.8, 0 }, __LINE__);
    /* fast: speed 5 truncated to 2.5 first, then p += v dt. */
    expect_state(world, a_fast, (double[3]){ -29.25, 6.0, 0 },
                 (double[3]){ 1.5, 2.0, 0 }, __LINE__);
    expect_forward(world, a_fast, (double[3]){ 0.6, 0.8, 0 }, __LINE__);
    /* frozen: max speed 0, stays, keeps its initial heading. */
    expect_state(world, a_frozen, (double[3]){ 70, -1, 0 },
                 (double[3]){ 0, 0, 0 }, __LINE__);
    expect_forward(world, a_frozen, (double[3]){ 0.70710678, 0.70710678, 0 },
                   __LINE__);
    expect_state(world, a_rest, (double[3]){ 100, 100, 0 },
                 (double[3]){ 0, 0, 0 }, __LINE__);
    expect_forward(world, a_rest, (double[3]){ 1, 0, 0 }, __LINE__);
    expect_state(world, a_no_force, (double[3]){ -99.875, 40.25, 0 },
                 (double[3]){ 0.25, 0.5, 0 }, __LINE__);

    REQUIRE_OK(throng_world_step(world, 0.5f));
    expect_state(world, a_slow, (double[3]){ 1.3, 1.6, 0 },
                 (double[3]){ 0.3, -0.4, 0 }, __LINE__);
    expect_state(world, a_fast, (double[3]){ -28.5, 7.0, 0 },
                 (double[3]){ 1.5, 2.0, 0 }, __LINE__);
    expect_state(world, a_frozen, (double[3]){ 70, -1, 0 },
                 (double[3]){ 0, 0, 0 }, __LINE__);
    expect_forward(world, a_frozen, (double[3]){ 0.70710678, 0.70710678, 0 },
                   __LINE__);

    /* Lowering max speed below the current speed: the next step truncates. */
    REQUIRE_OK(throng_agent_set_max_speed(world, a_slow, 0.25f));
    REQUIRE_OK(throng_world_step(world, 2.0f));
    expect_state(world, a_slow, (double[3]){ 1.6, 1.2, 0 },
                 (double[3]){ 0.15, -0.2, 0 }, __LINE__);
    throng_world_destroy(world);

    /* 3D coasting. */
    world = integrate_world(3, false, 0.0f);
    REQUIRE(world != NULL);
    vehicle_case c3 = { { 1, 2, 3 }, { 0, 3, 4 }, 1, 1, 10 };
    vehicle_case c3fast = { { -50, 0, 50 }, { 2, -6, 3 }, 1, 1, 3.5f };
    throng_agent a3, a3fast;
    REQUIRE_OK(add_vehicle(world, &c3, THRONG_NULL_GROUP, &a3));
    REQUIRE_OK(add_vehicle(world, &c3fast, THRONG_NULL_GROUP, &a3fast));
    REQUIRE_OK(throng_world_step(world, 0.25f));
    expect_state(world, a3, (double[3]){ 1, 2.75, 4 }, (double[3]){ 0, 3, 4 },
                 __LINE__);
    expect_forward(world, a3, (double[3]){ 0, 0.6, 0.8 }, __LINE__);
    /* |(2,-6,3)| = 7 -> (1,-3,1.5) */
    expect_state(world, a3fast, (double[3]){ -49.75, -0.75, 50.375 },
                 (double[3]){ 1, -3, 1.5 }, __LINE__);
    expect_forward(world, a3fast, (double[3]){ 2.0 / 7, -6.0 / 7, 3.0 / 7 },
                   __LINE__);
    check_basis(world, a3, __LINE__);
    check_basis(world, a3fast, __LINE__);
    throng_world_destroy(world);
}

static throng_group alignment_group(throng_world *world) {
    throng_group_def gd = throng_group_def_default();
    gd.flocking.alignment_weight = 1.0f;
    gd.flocking.alignment_radius = 1.0f;
    gd.flocking.separation_weight = 0.0f;
    gd.flocking.cohesion_weight = 0.0f;
    gd.flocking.field_of_view = TEST_TWO_PI;
    gd.combine = THRONG_COMBINE_WEIGHTED_AVERAGE;
    throng_group group = THRONG_NULL_GROUP;
    if (throng_group_create(world, &gd, &group) != THRONG_OK)
        return THRONG_NULL_GROUP;
    return group;
}

typedef struct pair_case {
    int dims;
    float dt;
    vehicle_case a, b;
    /* A's expected state after one step, worked by hand (NAN: use the
     * double reference only). */
    double p1[3], v1[3];
} pair_case;

TEST(integrate_alignment_pairs) {
    const double X = (double)NAN;
    const pair_case cases[] = {
        /* F_h = 2 ((0,1) - (1,0)) / 0.1 = (-20, 20), |F_h| = 28.3 < 100:
         * a = (-10, 10), v1 = (0, 1). */
        { 2,
          0.1f,
          { { 0, 0, 0 }, { 1, 0, 0 }, 2, 100, 10 },
          { { 0.5f, 0, 0 }, { 0, 1, 0 }, 1, 1e6f, 100 },
          { 0, 0.1, 0 },
          { 0, 1, 0 } },
        /* Force above max: F = (-20,20) 10/28.28 = (-7.07, 7.07),
         * a = (-3.54, 3.54), v1 = (0.646, 0.354). */
        { 2,
          0.1f,
          { { 0, 0, 0 }, { 1, 0, 0 }, 2, 10, 10 },
          { { 0.5f, 0, 0 }, { 0, 1, 0 }, 1, 1e6f, 100 },
          { 0.06464466, 0.03535534, 0 },
          { 0.6464466, 0.3535534, 0 } },
        /* Speed above max: v_h = (0,1) -> (0, 0.5). */
        { 2,
          0.1f,
          { { 0, 0, 0 }, { 1, 0, 0 }, 2, 100, 0.5f },
          { { 0.5f, 0, 0 }, { 0, 1, 0 }, 1, 1e6f, 100 },
          { 0, 0.05, 0 },
          { 0, 0.5, 0 } },
        /* Both truncations: v_h = (0.646, 0.354), |v_h| = 0.7368. */
        { 2,
          0.1f,
          { { 0, 0, 0 }, { 1, 0, 0 }, 2, 10, 0.5f },
          { { 0.5f, 0, 0 }, { 0, 1, 0 }, 1, 1e6f, 100 },
          { 0.04386776, 0.02399207, 0 },
          { 0.4386776, 0.2399207, 0 } },
        /* max_force 0: no thrust, coasts. */
        { 2,
          0.1f,
          { { 0, 0, 0 }, { 1, 0, 0 }, 2, 0, 10 },
          { { 0.5f, 0, 0 }, { 0, 1, 0 }, 1, 1e6f, 100 },
          { 0.1, 0, 0 },
          { 1, 0, 0 } },
        /* max_speed 0: stays put. */
        { 2,
          0.1f,
          { { 0, 0, 0 }, { 1, 0, 0 }, 2, 100, 0 },
          { { 0.5f, 0, 0 }, { 0, 1, 0 }, 1, 1e6f, 100 },
          { 0, 0, 0 },
          { 0, 0, 0 } },
        /* F_h = 0.5 (-0.8, 0.6) / 0.25 = (-1.6, 1.2), |F_h| = 2 < 3:
         * a = (-3.2, 2.4), v1 = (-0.6, 0.2). */
        { 2,
          0.25f,
          { { 0, 0, 0 }, { 0.2f, -0.4f, 0 }, 0.5f, 3, 2 },
          { { 0, 0.75f, 0 }, { -0.6f, 0.2f, 0 }, 1, 1e6f, 100 },
          { -0.15, 0.05, 0 },
          { -0.6, 0.2, 0 } },
        /* Same with max_force 1: F = (-0.8, 0.6), a = (-1.6, 1.2),
         * v1 = (-0.2, -0.1). */
        { 2,
          0.25f,
          { { 0, 0, 0 }, { 0.2f, -0.4f, 0 }, 0.5f, 1, 2 },
          { { 0, 0.75f, 0 }, { -0.6f, 0.2f, 0 }, 1, 1e6f, 100 },
          { -0.05, -0.025, 0 },
          { -0.2, -0.1, 0 } },
        /* 3D: F_h = (-1, 0, 2) / 0.25 = (-4, 0, 8), |F_h| = 8.94 > 4:
         * F = (-1.789, 0, 3.578), v_h = (0.553, 0, 0.894), |v_h| = 1.05. */
        { 3,
          0.25f,
          { { 0, 0, 0 }, { 1, 0, 0 }, 1, 4, 1.5f },
          { { 0, 0.3f, 0.4f }, { 0, 0, 2 }, 1, 1e6f, 100 },
          { 0.1381966, 0, 0.2236068 },
          { 0.5527864, 0, 0.8944272 } },
        /* Same, max speed 1: v1 = v_h / 1.0515. */
        { 3,
          0.25f,
          { { 0, 0, 0 }, { 1, 0, 0 }, 1, 4, 1.0f },
          { { 0, 0.3f, 0.4f }, { 0, 0, 2 }, 1, 1e6f, 100 },
          { 0.1314328, 0, 0.2126627 },
          { 0.5257311, 0, 0.8506508 } },
        /* Mass 3, no force limit: v_h = (0,0,2), truncated to 1.5. */
        { 3,
          0.25f,
          { { 0, 0, 0 }, { 1, 0, 0 }, 3, 100, 1.5f },
          { { 0, 0.3f, 0.4f }, { 0, 0, 2 }, 1, 1e6f, 100 },
          { 0, 0, 0.375 },
          { 0, 0, 1.5 } },
        /* Reference-only cases: odd numbers, off-axis. */
        { 3,
          0.05f,
          { { 1, 2, 3 }, { 0.3f, -0.7f, 0.2f }, 1.7f, 25, 0.9f },
          { { 1.2f, 2.5f, 2.6f }, { -0.4f, 0.1f, 0.8f }, 0.4f, 3, 100 },
          { X, X, X },
          { X, X, X } },
        { 2,
          0.2f,
          { { -5, 7, 0 }, { 0.1f, 0.9f, 0 }, 0.3f, 0.7f, 1.1f },
          { { -4.3f, 7.6f, 0 }, { -1.5f, -0.5f, 0 }, 2.2f, 0.5f, 1.2f },
          { X, X, X },
          { X, X, X } },
    };
    int n = (int)(sizeof cases / sizeof cases[0]);
    for (int i = 0; i < n; i++) {
        const pair_case *c = &cases[i];
        throng_world *world = integrate_world(c->dims, false, 0.0f);
        REQUIRE(world != NULL);
        throng_group group = alignment_group(world);
        REQUIRE(group.id != 0u);
        throng_agent a, b;
        REQUIRE_OK(add_vehicle(world, &c->a, group, &a));
        REQUIRE_OK(add_vehicle(world, &c->b, group, &b));
        REQUIRE_OK(throng_world_step(world, c->dt));

        double dt = (double)c->dt;
        double va[3], vb[3], pa[3], pb[3];
        test_to_double3(c->a.velocity, va);
        test_to_double3(c->b.velocity, vb);
        test_to_double3(c->a.position, pa);
        test_to_double3(c->b.position, pb);
        double fa[3], fb[3], va1[3], vb1[3], pa1[3], pb1[3];
        for (int k = 0; k < 3; k++) {
            fa[k] = (double)c->a.mass * (vb[k] - va[k]) / dt;
            fb[k] = (double)c->b.mass * (va[k] - vb[k]) / dt;
        }
        test_ref_vehicle((double)c->a.mass, (double)c->a.max_force,
                         (double)c->a.max_speed, dt, va, fa, va1);
        test_ref_vehicle((double)c->b.mass, (double)c->b.max_force,
                         (double)c->b.max_speed, dt, vb, fb, vb1);
        for (int k = 0; k < 3; k++) {
            pa1[k] = pa[k] + va1[k] * dt;
            pb1[k] = pb[k] + vb1[k] * dt;
        }
        if (!isnan(c->v1[0])) {
            /* The hand-worked numbers and the reference agree... */
            for (int k = 0; k < 3; k++) {
                CHECK_NEAR(va1[k], c->v1[k], 1e-6);
                CHECK_NEAR(pa1[k], c->p1[k], 1e-6);
            }
        }
        /* ...and the library agrees with both. */
        expect_state(world, a, pa1, va1, __LINE__);
        expect_state(world, b, pb1, vb1, __LINE__);
        double len = test_len3(va1);
        if (len > 0.0) {
            double want[3] = { va1[0] / len, va1[1] / len, va1[2] / len };
            expect_forward(world, a, want, __LINE__);
        } else {
            double want[3];
            double v0len = test_len3(va);
            for (int k = 0; k < 3; k++)
                want[k] = va[k] / v0len; /* the initial heading, kept */
            expect_forward(world, a, want, __LINE__);
        }
        if (c->dims == 3) {
            check_basis(world, a, __LINE__);
            check_basis(world, b, __LINE__);
        }
        if (runner_failures() > 0u)
            printf("  (in alignment pair case %d)\n", i);
        throng_world_destroy(world);
        if (runner_failures() > 0u)
            return;
    }
}

/* Sets a velocity, steps a coasting agent once and checks the basis. */
static void turn_and_check(throng_world *world, throng_agent a,
                           const float v[3], int line) {
    if (throng_agent_set_velocity(world, a, v) != THRONG_OK ||
        throng_world_step(world, 0.01f) != THRONG_OK) {
        runner_fail(__FILE__, line, "set_velocity or step refused");
        return;
    }
    check_basis(world, a, line);
    double vd[3];
    test_to_double3(v, vd);
    double len = test_len3(vd);
    if (len > 1e-36) { /* |v| itself a normal float */
        double want[3] = { vd[0] / len, vd[1] / len, vd[2] / len };
        expect_forward(world, a, want, line);
    }
}

TEST(integrate_basis_3d) {
    throng_world *world = integrate_world(3, false, 0.0f);
    REQUIRE(world != NULL);
    vehicle_case c = { { 0, 0, 0 }, { 1, 0, 0 }, 1, 10, 100 };
    throng_agent a;
    REQUIRE_OK(add_vehicle(world, &c, THRONG_NULL_GROUP, &a));
    check_basis(world, a, __LINE__);
    expect_forward(world, a, (double[3]){ 1, 0, 0 }, __LINE__);

    const float turns[][3] = {
        { 0, 1, 0 },      { 0, 0, 1 },      { -1, 0, 0 },     { 1, 1, 1 },
        { 0, -1, 1e-3f }, { 1e-3f, 0, -1 }, { 0, 0, -1 },     { 0, 0, 1 },
        { 0.3f, -2, 5 },  { -4, 0.01f, 0 }, { 4, -0.01f, 0 }, { 0, 1e-6f, 1 },
    };
    for (size_t i = 0; i < sizeof turns / sizeof turns[0]; i++)
        turn_and_check(world, a, turns[i], __LINE__);

    /* Straight along the previous up vector, and against it. */
    for (int round = 0; round < 6; round++) {
        float f[3], u[3], s[3];
        REQUIRE_OK(throng_agent_get_basis(world, a, f, u, s));
        float sign = (round % 2 == 0) ? 1.0f : -1.0f;
        float v[3] = { sign * 0.7f * u[0], sign * 0.7f * u[1],
                       sign * 0.7f * u[2] };
        turn_and_check(world, a, v, __LINE__);
    }
    /* Straight back along the current heading, and along the side. */
    for (int round = 0; round < 4; round++) {
        float f[3], u[3], s[3];
        REQUIRE_OK(throng_agent_get_basis(world, a, f, u, s));
        float v[3];
        for (int k = 0; k < 3; k++)
            v[k] = round % 2 == 0 ? -2.0f * f[k] : 1.5f * s[k];
        turn_and_check(world, a, v, __LINE__);
    }
    /* Velocities so small their squares are subnormal or underflow: the
     * basis stays finite, unit and orthonormal, and the heading is still
     * the velocity's direction while |v| is a normal float. */
    const float tiny[][3] = {
        { 3e-20f, 0, 4e-20f },  { 0, 3e-23f, -4e-23f }, { -6e-22f, 8e-22f, 0 },
        { 1e-30f, -1e-30f, 0 }, { 2e-38f, 0, 0 },
    };
    for (size_t i = 0; i < sizeof tiny / sizeof tiny[0]; i++)
        turn_and_check(world, a, tiny[i], __LINE__);
    /* Zero velocity keeps the heading. */
    float f0[3], u0[3], s0[3];
    REQUIRE_OK(throng_agent_set_velocity(world, a, turns[3]));
    REQUIRE_OK(throng_world_step(world, 0.01f));
    REQUIRE_OK(throng_agent_get_basis(world, a, f0, u0, s0));
    const float zero[3] = { 0, 0, 0 };
    turn_and_check(world, a, zero, __LINE__);
    double f0d[3];
    test_to_double3(f0, f0d);
    expect_forward(world, a, f0d, __LINE__);

    /* Many random agents turning at random every step. */
    test_rng rng = test_rng_make(31u);
    throng_agent many[64];
    for (int i = 0; i < 64; i++) {
        vehicle_case r = { { (float)i * 10.0f, 0, 0 },
                           { test_rng_range(&rng, -1, 1),
                             test_rng_range(&rng, -1, 1),
                             test_rng_range(&rng, -1, 1) },
                           1,
                           10,
                           100 };
        REQUIRE_OK(add_vehicle(world, &r, THRONG_NULL_GROUP, &many[i]));
    }
    for (int step = 0; step < 20; step++) {
        for (int i = 0; i < 64; i++) {
            float v[3] = { test_rng_range(&rng, -1, 1),
                           test_rng_range(&rng, -1, 1),
                           test_rng_range(&rng, -1, 1) };
            if (i % 8 == 0) { /* along the current up */
                float f[3], u[3], s[3];
                REQUIRE_OK(throng_agent_get_basis(world, many[i], f, u, s));
                memcpy(v, u, sizeof v);
            }
            REQUIRE_OK(throng_agent_set_velocity(world, many[i], v));
        }
        REQUIRE_OK(throng_world_step(world, 0.01f));
        for (int i = 0; i < 64 && runner_failures() == 0u; i++)
            check_basis(world, many[i], __LINE__);
    }
    throng_world_destroy(world);
}

TEST(integrate_basis_2d) {
    throng_world *world = integrate_world(2, false, 0.0f);
    REQUIRE(world != NULL);
    vehicle_case c = { { 0, 0, 0 }, { 0, 0, 0 }, 1, 10, 100 };
    throng_agent a;
    REQUIRE_OK(add_vehicle(world, &c, THRONG_NULL_GROUP, &a));
    const float turns[][3] = { { 0, 1, 0 },           { -3, 0, 0 },
                               { 1, -1, 0 },          { 0, 0, 0 },
                               { 1e-30f, 0, 0 },      { 0.6f, 0.8f, 0 },
                               { -5, 12, 0 },         { 3e-23f, -4e-23f, 0 },
                               { -6e-21f, 8e-21f, 0 } };
    for (size_t i = 0; i < sizeof turns / sizeof turns[0]; i++) {
        turn_and_check(world, a, turns[i], __LINE__);
        float f[3], u[3], s[3];
        REQUIRE_OK(throng_agent_get_basis(world, a, f, u, s));
        CHECK(f[2] == 0.0f);
        CHECK(u[0] == 0.0f && u[1] == 0.0f && u[2] == 1.0f);
        /* side = forward x up = (f_y, -f_x, 0) */
        CHECK_NEAR(s[0], f[1], 1e-6);
        CHECK_NEAR(s[1], -f[0], 1e-6);
        CHECK_NEAR(s[2], 0.0f, 1e-6);
    }
    throng_world_destroy(world);
}

/* Distance between two coordinates on a circle of length box. */
static double periodic_gap(double a, double b, double box) {
    double d = fabs(a - b);
    d = fmod(d, box);
    return fmin(d, box - d);
}

TEST(integrate_periodic) {
    for (int dims = 2; dims <= 3; dims++) {
        const float L = 10.0f;
        throng_world *world = integrate_world(dims, true, L);
        REQUIRE(world != NULL);
        vehicle_case right = { { 9.95f, 5, 5 }, { 1, 0, 0 }, 1, 10, 2 };
        vehicle_case left = { { 0.05f, 5, 5 }, { -1, 0, 0 }, 1, 10, 2 };
        vehicle_case up = { { 3, 9.99f, 5 }, { 0, 0.5f, 0 }, 1, 10, 2 };
        vehicle_case down = { { 3, 0.01f, 2 }, { 0, -0.5f, 0 }, 1, 10, 2 };
        vehicle_case deep = { { 6, 6, 0.02f }, { 0, 0, -0.5f }, 1, 10, 2 };
        vehicle_case tiny_neg = { { 0, 7, 7 }, { -1e-6f, 0, 0 }, 1, 10, 2 };
        vehicle_case tiny_pos = {
            { 9.999999f, 1, 1 }, { 1e-3f, 0, 0 }, 1, 10, 2
        };
        throng_agent a_right, a_left, a_up, a_down, a_deep, a_neg, a_pos;
        REQUIRE_OK(add_vehicle(world, &right, THRONG_NULL_GROUP, &a_right));
        REQUIRE_OK(add_vehicle(world, &left, THRONG_NULL_GROUP, &a_left));
        REQUIRE_OK(add_vehicle(world, &up, THRONG_NULL_GROUP, &a_up));
        REQUIRE_OK(add_vehicle(world, &down, THRONG_NULL_GROUP, &a_down));
        REQUIRE_OK(add_vehicle(world, &deep, THRONG_NULL_GROUP, &a_deep));
        REQUIRE_OK(add_vehicle(world, &tiny_neg, THRONG_NULL_GROUP, &a_neg));
        REQUIRE_OK(add_vehicle(world, &tiny_pos, THRONG_NULL_GROUP, &a_pos));

        REQUIRE_OK(throng_world_step(world, 0.1f));
        float p[3];
        CHECK_OK(throng_agent_get_position(world, a_right, p));
        CHECK_NEAR(p[0], 0.05f, 1e-5);
        CHECK_NEAR(p[1], 5.0f, 1e-5);
        CHECK_OK(throng_agent_get_position(world, a_left, p));
        CHECK_NEAR(p[0], 9.95f, 1e-5);
        CHECK_OK(throng_agent_get_position(world, a_up, p));
        CHECK_NEAR(p[1], 0.04f, 1e-5);
        CHECK_OK(throng_agent_get_position(world, a_down, p));
        CHECK_NEAR(p[1], 9.96f, 1e-5);
        if (dims == 3) {
            CHECK_OK(throng_agent_get_position(world, a_deep, p));
            CHECK_NEAR(p[2], 9.97f, 1e-5);
        }
        /* p = -1e-7 and p = 10 - 1e-6 + 1e-4 rounding: both must land in
         * [0, L) and near the true wrapped value. */
        REQUIRE_OK(throng_world_step(world, 0.1f));
        CHECK_OK(throng_agent_get_position(world, a_neg, p));
        CHECK(p[0] >= 0.0f && p[0] < L);
        CHECK(periodic_gap((double)p[0], 10.0 - 2e-7, 10.0) < 1e-5);
        CHECK_OK(throng_agent_get_position(world, a_pos, p));
        CHECK(p[0] >= 0.0f && p[0] < L);
        CHECK(periodic_gap((double)p[0], 2e-4, 10.0) < 1e-5);

        /* Tiny steps that end a hair below 0: -1e-9 + 10 rounds to 10. */
        float at_zero[3] = { 0, 3, 3 };
        float creep[3] = { -1e-6f, 0, 0 };
        CHECK_OK(throng_agent_set_position(world, a_neg, at_zero));
        CHECK_OK(throng_agent_set_velocity(world, a_neg, creep));
        REQUIRE_OK(throng_world_step(world, 1e-3f));
        CHECK_OK(throng_agent_get_position(world, a_neg, p));
        CHECK(p[0] >= 0.0f && p[0] < L);
        CHECK(periodic_gap((double)p[0], 0.0, 10.0) < 1e-5);

        /* Positions given outside the box are wrapped into it. */
        struct {
            float in[3], out[3];
        } wraps[] = {
            { { -0.25f, 10.25f, 5 }, { 9.75f, 0.25f, 5 } },
            { { 30.5f, -20, 5 }, { 0.5f, 0, 5 } },
            { { 10, 10, 10 }, { 0, 0, 0 } },
            { { -10, 4, -0.5f }, { 0, 4, 9.5f } },
        };
        for (size_t i = 0; i < sizeof wraps / sizeof wraps[0]; i++) {
            vehicle_case w = { { 0, 0, 0 }, { 0, 0, 0 }, 1, 10, 2 };
            memcpy(w.position, wraps[i].in, sizeof w.position);
            throng_agent h;
            REQUIRE_OK(add_vehicle(world, &w, THRONG_NULL_GROUP, &h));
            CHECK_OK(throng_agent_get_position(world, h, p));
            for (int k = 0; k < dims; k++) {
                CHECK(p[k] >= 0.0f && p[k] < L);
                CHECK(periodic_gap((double)p[k], (double)wraps[i].out[k],
                                   10.0) < 1e-5);
                CHECK_NEAR(p[k], wraps[i].out[k], 1e-5);
            }
            /* Setters wrap too. */
            CHECK_OK(throng_agent_set_position(world, h, wraps[i].in));
            CHECK_OK(throng_agent_get_position(world, h, p));
            for (int k = 0; k < dims; k++)
                CHECK_NEAR(p[k], wraps[i].out[k], 1e-5);
        }

        /* Fast random agents, some crossing the box several times a step:
         * positions stay in [0, L) and equal p0 + v dt modulo L. */
        test_rng rng = test_rng_make(77u + (uint64_t)dims);
        enum {
            N = 300
        };
        throng_agent hs[N];
        for (int i = 0; i < N; i++) {
            vehicle_case r = { { test_rng_range(&rng, 0, L),
                                 test_rng_range(&rng, 0, L),
                                 test_rng_range(&rng, 0, L) },
                               { 0, 0, 0 },
                               1,
                               10,
                               100 };
            float speed = i % 3 == 0 ? 25.0f : 3.0f;
            for (int k = 0; k < 3; k++)
                r.velocity[k] = test_rng_range(&rng, -speed, speed);
            REQUIRE_OK(add_vehicle(world, &r, THRONG_NULL_GROUP, &hs[i]));
        }
        for (int step = 0; step < 30 && runner_failures() == 0u; step++) {
            double before[N][3], vel[N][3];
            for (int i = 0; i < N; i++) {
                float pp[3], vv[3];
                REQUIRE_OK(throng_agent_get_position(world, hs[i], pp));
                REQUIRE_OK(throng_agent_get_velocity(world, hs[i], vv));
                test_to_double3(pp, before[i]);
                test_to_double3(vv, vel[i]);
            }
            REQUIRE_OK(throng_world_step(world, 0.9f));
            throng_columns cols;
            REQUIRE_OK(throng_world_columns(world, &cols));
            for (uint32_t r = 0; r < cols.count; r++) {
                bool inside =
                    cols.px[r] >= 0.0f && cols.px[r] < L &&
                    cols.py[r] >= 0.0f && cols.py[r] < L &&
                    (dims == 2 || (cols.pz[r] >= 0.0f && cols.pz[r] < L));
                if (!inside)
                    runner_fail(__FILE__, __LINE__,
                                "step %d row %u outside the box: (%.9g, "
                                "%.9g, %.9g)",
                                step, r, (double)cols.px[r], (double)cols.py[r],
                                dims == 3 ? (double)cols.pz[r] : 0.0);
            }
            for (int i = 0; i < N; i++) {
                float pp[3];
                REQUIRE_OK(throng_agent_get_position(world, hs[i], pp));
                for (int k = 0; k < dims; k++) {
                    double want = before[i][k] + vel[i][k] * 0.9;
                    if (periodic_gap((double)pp[k], want, 10.0) > 1e-4)
                        runner_fail(__FILE__, __LINE__,
                                    "agent %d axis %d: %.7g, want %.7g mod "
                                    "10",
                                    i, k, (double)pp[k], want);
                }
            }
        }
        throng_world_destroy(world);
    }
}

/* A mass below 1 / FLT_MAX makes 1 / m infinite; the velocity must stay
 * finite and within max speed (it once became NaN, 0 * inf, on a coasting
 * agent). Found by fuzzing. */
TEST(integrate_tiny_mass) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *world = integrate_world(dims, false, 0.0f);
        REQUIRE(world != NULL);
        throng_group seekers = THRONG_NULL_GROUP;
        throng_group_def gd = throng_group_def_default();
        REQUIRE(throng_group_create(world, &gd, &seekers) == THRONG_OK);
        throng_behaviour seek = throng_behaviour_default(THRONG_BEHAVIOUR_SEEK);
        seek.u.seek.source = THRONG_TARGET_FIXED_POINT;
        seek.u.seek.point[0] = 10.0f;
        seek.u.seek.point[1] = 5.0f;
        REQUIRE(throng_group_add_behaviour(world, seekers, &seek, NULL) ==
                THRONG_OK);
        throng_agent coast, seeker;
        throng_agent_def d = throng_agent_def_default();
        d.mass = 1e-40f;
        d.velocity[0] = 0.5f;
        d.max_force = 3e38f;
        REQUIRE(throng_agent_add(world, &d, &coast) == THRONG_OK);
        d.group = seekers;
        REQUIRE(throng_agent_add(world, &d, &seeker) == THRONG_OK);
        CHECK_STATUS(throng_world_step(world, 0.1f), THRONG_OK);
        CHECK_STATUS(throng_world_step(world, 1e30f), THRONG_OK);
        float v[3], p[3];
        CHECK_STATUS(throng_agent_get_velocity(world, coast, v), THRONG_OK);
        CHECK(v[0] == 0.5f && v[1] == 0.0f && v[2] == 0.0f);
        CHECK_STATUS(throng_agent_get_velocity(world, seeker, v), THRONG_OK);
        CHECK_STATUS(throng_agent_get_position(world, seeker, p), THRONG_OK);
        double speed =
            sqrt((double)v[0] * (double)v[0] + (double)v[1] * (double)v[1] +
                 (double)v[2] * (double)v[2]);
        CHECK(isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]));
        CHECK(isfinite(p[0]) && isfinite(p[1]));
        CHECK(speed <= 1.0 + 1e-6 && speed > 0.5);
        throng_world_destroy(world);
    }
}

/* At the edge of the float range: a speed limit whose square overflows
 * still truncates a velocity whose square overflows, and p + v dt past
 * FLT_MAX stays at FLT_MAX instead of becoming infinite. Found by
 * fuzzing. */
TEST(integrate_float_range_edge) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *world = integrate_world(dims, false, 0.0f);
        REQUIRE(world != NULL);
        throng_agent h;
        throng_agent_def d = throng_agent_def_default();
        for (int a = 0; a < 3; a++) {
            d.position[a] = FLT_MAX;
            d.velocity[a] = FLT_MAX;
        }
        d.max_speed = FLT_MAX;
        REQUIRE(throng_agent_add(world, &d, &h) == THRONG_OK);
        CHECK_STATUS(throng_world_step(world, 38.0f), THRONG_OK);
        float v[3], p[3];
        CHECK_STATUS(throng_agent_get_velocity(world, h, v), THRONG_OK);
        CHECK_STATUS(throng_agent_get_position(world, h, p), THRONG_OK);
        double speed2 = 0.0;
        for (int a = 0; a < dims; a++) {
            CHECK(p[a] == FLT_MAX);
            CHECK(v[a] > 0.0f && isfinite(v[a]));
            speed2 += ((double)v[a] / (double)FLT_MAX) *
                      ((double)v[a] / (double)FLT_MAX);
        }
        CHECK(speed2 <= 1.0 + 1e-6);
        throng_world_destroy(world);
    }
}

/* A max speed whose square is below the smallest normal float (squares
 * of such speeds vanish) still truncates, on the vector paths too (32
 * agents fill whole vectors). Found by fuzzing. */
TEST(integrate_tiny_max_speed) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *world = integrate_world(dims, false, 0.0f);
        REQUIRE(world != NULL);
        throng_agent h[32];
        for (int k = 0; k < 32; k++) {
            throng_agent_def d = throng_agent_def_default();
            d.position[0] = 3.0f * (float)k;
            d.velocity[0] = 2e-24f;
            d.velocity[1] = -1e-24f;
            d.max_speed = 1e-25f;
            REQUIRE(throng_agent_add(world, &d, &h[k]) == THRONG_OK);
        }
        CHECK_STATUS(throng_world_step(world, 0.1f), THRONG_OK);
        for (int k = 0; k < 32; k++) {
            float v[3];
            CHECK_STATUS(throng_agent_get_velocity(world, h[k], v), THRONG_OK);
            double vx = (double)v[0] * 1e25, vy = (double)v[1] * 1e25;
            CHECK_NEAR(sqrt(vx * vx + vy * vy), 1.0, 1e-5);
            CHECK(v[0] > 0.0f && v[1] < 0.0f);
        }
        throng_world_destroy(world);
    }
}

/* Builds the hard-rows scene: every kind of row the vector integration
 * must either finish exactly as integrate_row_3d() would, or hand to it,
 * mixed so each vector holds some of each. */
static throng_world *hard_rows_world(bool periodic, const char *path,
                                     throng_agent *h, int n) {
    throng_world *world = integrate_world(3, periodic, 20.0f);
    if (!world)
        return NULL;
    if (world_select_kernel(world, path) != 0) {
        throng_world_destroy(world);
        return NULL;
    }
    throng_group seekers = THRONG_NULL_GROUP;
    throng_group_def gd = throng_group_def_default();
    throng_group_create(world, &gd, &seekers);
    throng_behaviour seek = throng_behaviour_default(THRONG_BEHAVIOUR_SEEK);
    seek.u.seek.source = THRONG_TARGET_FIXED_POINT;
    seek.u.seek.point[0] = 10.0f;
    seek.u.seek.point[1] = 5.0f;
    seek.u.seek.point[2] = -3.0f;
    throng_group_add_behaviour(world, seekers, &seek, NULL);
    test_rng rng = test_rng_make(77u);
    for (int i = 0; i < n; i++) {
        throng_agent_def d = throng_agent_def_default();
        for (int k = 0; k < 3; k++) {
            d.position[k] = test_rng_range(&rng, 0.0f, 20.0f);
            d.velocity[k] = test_rng_range(&rng, -1.0f, 1.0f);
        }
        d.group = i % 2 ? seekers : THRONG_NULL_GROUP;
        switch (i % 9) {
        case 1: /* squares subnormal or vanishing */
            d.velocity[0] = 3e-20f;
            d.velocity[1] = -4e-22f;
            d.velocity[2] = 1e-30f;
            break;
        case 2: /* at rest */
            d.velocity[0] = d.velocity[1] = d.velocity[2] = 0.0f;
            break;
        case 3: /* 1 / m infinite */
            d.mass = 1e-40f;
            d.max_force = 3e38f;
            break;
        case 4: /* a limit whose square is not a normal float */
            d.max_speed = 1e-25f;
            d.velocity[0] = 2e-24f;
            d.velocity[1] = -1e-24f;
            d.velocity[2] = 0.0f;
            break;
        case 5: /* across the box edge, or at and past the float limit */
            d.position[0] = periodic ? 19.999f : FLT_MAX;
            d.position[2] = periodic ? 0.0005f : -FLT_MAX;
            d.velocity[0] = 1.0f;
            d.velocity[2] = periodic ? -1.0f : -1e36f;
            d.max_speed = 3e38f;
            break;
        case 6: /* a force whose square overflows */
            d.max_force = 3e38f;
            d.max_speed = 3e38f;
            d.velocity[0] = 2e19f;
            break;
        case 7: /* a speed past one box per step */
            d.max_speed = 1000.0f;
            d.velocity[1] = 900.0f;
            break;
        case 8: /* a finite force whose square overflows, a limit whose
                   square does not */
            d.max_speed = 1e25f;
            d.max_force = 1e19f;
            break;
        default:
            break;
        }
        if (throng_agent_add(world, &d, &h[i]) != THRONG_OK) {
            throng_world_destroy(world);
            return NULL;
        }
    }
    return world;
}

/* Turns every ninth agent to fly along its own up vector, where the up
 * vector must fall back to a world axis. */
static void hard_rows_turn_up(throng_world *world, const throng_agent *h,
                              int n) {
    for (int i = 0; i < n; i += 9) {
        float f[3], u[3], s[3];
        if (throng_agent_get_basis(world, h[i], f, u, s) != THRONG_OK)
            return;
        float v[3] = { 0.5f * u[0], 0.5f * u[1], 0.5f * u[2] };
        throng_agent_set_velocity(world, h[i], v);
    }
}

/* The vector 3D integration against the scalar rows: the same state, to
 * the bit, after steps full of rows it must hand back. */
TEST(integrate_3d_vector_matches_scalar_rows) {
    enum {
        N = 9 * 16 + 5
    };
    const char *paths[] = {
        "scalar", "sse2", "avx2", "avx512", "neon", "wasm"
    };
    for (int periodic = 0; periodic < 2; periodic++) {
        uint64_t want = 0;
        for (int p = 0; p < (int)(sizeof paths / sizeof paths[0]); p++) {
            throng_agent h[N];
            throng_world *world = hard_rows_world(periodic, paths[p], h, N);
            if (!world) {
                CHECK(p > 0); /* only a vector path may be missing */
                continue;
            }
            for (int s = 0; s < 6; s++) {
                hard_rows_turn_up(world, h, N);
                REQUIRE_OK(throng_world_step(world, s == 3 ? 2.5f : 0.05f));
            }
            uint64_t hash = throng_world_hash(world);
            if (p == 0)
                want = hash;
            else if (hash != want)
                runner_fail(__FILE__, __LINE__,
                            "%s, %s: state %016llx, scalar rows %016llx",
                            periodic ? "periodic" : "unbounded", paths[p],
                            (unsigned long long)hash, (unsigned long long)want);
            for (int i = 0; i < N; i++)
                check_basis(world, h[i], __LINE__);
            throng_world_destroy(world);
        }
    }
}

void register_integrate_tests(void) {
    REGISTER(integrate_3d_vector_matches_scalar_rows);
    REGISTER(integrate_tiny_max_speed);
    REGISTER(integrate_float_range_edge);
    REGISTER(integrate_tiny_mass);
    REGISTER(integrate_coast);
    REGISTER(integrate_alignment_pairs);
    REGISTER(integrate_basis_3d);
    REGISTER(integrate_basis_2d);
    REGISTER(integrate_periodic);
}
