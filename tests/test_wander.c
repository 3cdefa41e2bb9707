/* SPDX-License-Identifier: MIT */
/*
 * Wander, seed 000's turn-rate form: each step the turn rate changes by at
 * most phi and stays within [-theta, theta], and the desired velocity is the
 * heading turned by the rate, at the target speed, steered with
 * F = m (v_desired - v) / dt. Bad wander parameters are refused with the
 * world unchanged.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "detmath.h"
#include "runner.h"
#include "steer.h"

static throng_world *wander_world(int dims, uint64_t seed) {
    throng_world_def d = ts_world_def(dims, 1, NULL);
    d.seed = seed;
    return ts_world_make(&d);
}

/* A group steered by wander alone. */
static throng_group wander_group(throng_world *w, float theta, float phi) {
    throng_group_def g = throng_group_def_default();
    g.wander.weight = 1.0f;
    g.wander.max_turn_rate = theta;
    g.wander.max_turn_change = phi;
    throng_group id = THRONG_NULL_GROUP;
    if (throng_group_create(w, &g, &id) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "group refused: %s",
                    throng_world_last_error(w));
    return id;
}

/* With phi = 0 the rate stays 0: v_desired = s_t * heading, and the force
 * is seed 000's, truncated to max force. Worked by hand:
 * m = 2, v0 = (0.5, 0), s_t = 1, dt = 0.1: F_h = 2 (1 - 0.5) / 0.1 = 10,
 * truncated to 3; a = 1.5; v1 = 0.5 + 0.15 = 0.65; p1 = 0.065. */
TEST(wander_straight_hand_worked) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *w = wander_world(dims, 1u);
        REQUIRE(w != NULL);
        throng_agent_def a = throng_agent_def_default();
        a.group = wander_group(w, 0.3f, 0.0f);
        a.mass = 2.0f;
        a.max_force = 3.0f;
        a.max_speed = 1.0f;
        a.velocity[0] = 0.5f;
        throng_agent h;
        REQUIRE_OK(throng_agent_add(w, &a, &h));
        REQUIRE_OK(throng_world_step(w, 0.1f));
        float p[3], v[3];
        REQUIRE_OK(throng_agent_get_position(w, h, p));
        REQUIRE_OK(throng_agent_get_velocity(w, h, v));
        CHECK_NEAR(v[0], 0.65, 1e-6);
        CHECK_NEAR(v[1], 0.0, 1e-7);
        CHECK_NEAR(v[2], 0.0, 1e-7);
        CHECK_NEAR(p[0], 0.065, 1e-7);
        throng_world_destroy(w);
    }
}

/* Unlimited force and speed: the new velocity is exactly the desired one,
 * so the heading turns by the rate each step. Consecutive headings must be
 * at most theta apart, the turn may change by at most phi per step, and the
 * random walk must actually move (both signs, and near the bound). */
static void check_turn_bounds(int dims) {
    const double theta = 0.1 * 3.14159265, phi = 0.02 * 3.14159265;
    throng_world *w = wander_world(dims, 42u);
    REQUIRE(w != NULL);
    throng_agent_def a = throng_agent_def_default();
    a.group = wander_group(w, (float)theta, (float)phi);
    a.max_force = 1e9f;
    a.max_speed = 2.0f;
    a.velocity[0] = 1.0f;
    throng_agent h;
    REQUIRE_OK(throng_agent_add(w, &a, &h));
    float f0[3], u0[3], s0[3];
    REQUIRE_OK(throng_agent_get_basis(w, h, f0, u0, s0));
    double prev_turn = 0.0, biggest = 0.0;
    int positive = 0, negative = 0;
    for (int step = 0; step < 500; step++) {
        REQUIRE_OK(throng_world_step(w, 1.0f / 30.0f));
        float f[3], u[3], s[3];
        REQUIRE_OK(throng_agent_get_basis(w, h, f, u, s));
        /* Signed turn about the up vector (z in 2D). */
        double a0[3], a1[3], up[3];
        for (int k = 0; k < 3; k++) {
            a0[k] = (double)f0[k];
            a1[k] = (double)f[k];
            up[k] = (double)u0[k];
        }
        double dot = a0[0] * a1[0] + a0[1] * a1[1] + a0[2] * a1[2];
        double cross_up = (a0[1] * a1[2] - a0[2] * a1[1]) * up[0] +
                          (a0[2] * a1[0] - a0[0] * a1[2]) * up[1] +
                          (a0[0] * a1[1] - a0[1] * a1[0]) * up[2];
        double turn = atan2(cross_up, dot);
        if (fabs(turn) > theta + 1e-4)
            runner_fail(__FILE__, __LINE__,
                        "%dD step %d: heading turned %g rad, max %g", dims,
                        step, turn, theta);
        if (fabs(turn - prev_turn) > phi + 1e-4)
            runner_fail(__FILE__, __LINE__,
                        "%dD step %d: turn rate changed by %g, max %g", dims,
                        step, turn - prev_turn, phi);
        if (dims == 3) /* turning about up keeps the heading level */
            CHECK_NEAR(f[2], 0.0, 1e-4);
        positive += turn > 1e-3;
        negative += turn < -1e-3;
        biggest = fabs(turn) > biggest ? fabs(turn) : biggest;
        prev_turn = turn;
        memcpy(f0, f, sizeof f);
        memcpy(u0, u, sizeof u);
    }
    CHECK(positive > 20 && negative > 20);
    CHECK(biggest > 0.5 * theta);
    throng_world_destroy(w);
}

TEST(wander_turn_bounds_2d) {
    check_turn_bounds(2);
}
TEST(wander_turn_bounds_3d) {
    check_turn_bounds(3);
}

/* The same seed gives the same walk; another seed another one. */
static void walk(uint64_t seed, float out[3]) {
    throng_world *w = wander_world(2, seed);
    throng_agent_def a = throng_agent_def_default();
    a.group = wander_group(w, 0.3f, 0.1f);
    a.velocity[0] = 1.0f;
    throng_agent h;
    throng_agent_add(w, &a, &h);
    for (int s = 0; s < 200; s++)
        throng_world_step(w, 0.05f);
    throng_agent_get_position(w, h, out);
    throng_world_destroy(w);
}

TEST(wander_seeded) {
    float a[3], b[3], c[3];
    walk(7u, a);
    walk(7u, b);
    walk(8u, c);
    CHECK(memcmp(a, b, sizeof a) == 0);
    CHECK(a[0] != c[0] || a[1] != c[1]);
}

static uint32_t float_bits(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* The no-turn shortcut (wander_no_turn) against seed 000's update for
 * every draw: the general step old + phi r, clamped to [-theta, theta],
 * then sine and cosine, with theta = phi = 0, must give the shortcut's
 * rate, that rate as the sine and 1 as the cosine, to the bit, for draws
 * of both signs, both zeros and the ends of the range; and the shortcut
 * must decline exactly where the draw's sign decides (-0) or there is
 * no number (NaN), and whenever there is a turn. */
TEST(wander_no_turn_matches_the_draw) {
    const float olds[] = { 0.0f,     -0.0f, 0.25f,     -0.25f,   1e-30f,
                           -1e-30f,  3.0f,  -INFINITY, INFINITY, FLT_MIN,
                           -FLT_MIN, NAN,   1e-45f,    -1e-45f };
    const float draws[] = { 1.0f, -1.0f, 0.0f, -0.0f, 0.5f, -1e-20f };
    int taken = 0;
    for (size_t o = 0; o < sizeof olds / sizeof olds[0]; o++) {
        float fast;
        int ok = wander_no_turn(0.0f, 0.0f, olds[o], &fast);
        int minus_zero = olds[o] == 0.0f && signbit(olds[o]);
        CHECK(ok == !(isnan(olds[o]) || minus_zero));
        if (!ok)
            continue;
        taken++;
        for (size_t r = 0; r < sizeof draws / sizeof draws[0]; r++) {
            /* Read through volatile, as the library reads them from the
             * group: a literal zero lets clang (with the thread
             * sanitizer) fold the clamp into a max that ignores the sign
             * of zero, which the library's loaded limits never meet. */
            volatile float zero = 0.0f;
            const float theta = zero, phi = zero;
            float rate = olds[o] + phi * draws[r];
            rate = rate > theta ? theta : rate;
            rate = rate < -theta ? -theta : rate;
            float sn, cs;
            detmath_sincosf(rate, &sn, &cs);
            CHECK(float_bits(rate) == float_bits(fast));
            CHECK(float_bits(sn) == float_bits(fast));
            CHECK(float_bits(cs) == float_bits(1.0f));
        }
    }
    CHECK(taken == 12);
    float rate = 7.0f;
    CHECK(!wander_no_turn(0.1f, 0.0f, 0.0f, &rate));
    CHECK(!wander_no_turn(0.0f, 0.1f, 0.0f, &rate));
    CHECK(rate == 7.0f);
}

TEST(wander_bad_input) {
    throng_world *w = wander_world(2, 1u);
    REQUIRE(w != NULL);
    throng_group g = wander_group(w, 0.3f, 0.1f);
    throng_agent_def a = throng_agent_def_default();
    a.group = g;
    throng_agent h;
    REQUIRE_OK(throng_agent_add(w, &a, &h));
    const uint64_t before = throng_world_hash(w);
    throng_wander good;
    REQUIRE_OK(throng_group_get_wander(w, g, &good));

    const float nan = nanf(""), inf = INFINITY;
    struct bad_case {
        int field; /* 0 weight, 1 turn rate, 2 turn change, 3 speed */
        float value;
        throng_status want;
    } cases[] = {
        { 0, nan, THRONG_ERR_NOT_FINITE },
        { 0, inf, THRONG_ERR_NOT_FINITE },
        { 0, -1.0f, THRONG_ERR_OUT_OF_RANGE },
        { 1, nan, THRONG_ERR_NOT_FINITE },
        { 1, -0.1f, THRONG_ERR_OUT_OF_RANGE },
        { 1, 3.2f, THRONG_ERR_OUT_OF_RANGE },
        { 2, -inf, THRONG_ERR_NOT_FINITE },
        { 2, 4.0f, THRONG_ERR_OUT_OF_RANGE },
        { 3, 1.5f, THRONG_ERR_OUT_OF_RANGE },
        { 3, -0.5f, THRONG_ERR_OUT_OF_RANGE },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        throng_wander bad = good;
        float *fields[4] = { &bad.weight, &bad.max_turn_rate,
                             &bad.max_turn_change, &bad.speed_factor };
        *fields[cases[i].field] = cases[i].value;
        CHECK_STATUS(throng_group_set_wander(w, g, &bad), cases[i].want);
        CHECK(throng_world_last_error(w)[0] != '\0');
        throng_group_def gd = throng_group_def_default();
        gd.wander = bad;
        throng_group id = { 999u, 0u, 0u };
        CHECK_STATUS(throng_group_create(w, &gd, &id), cases[i].want);
        CHECK(id.id == 999u);
    }
    CHECK_STATUS(throng_group_set_wander(w, g, NULL), THRONG_ERR_NULL);
    /* A group id this world never handed out. */
    const throng_group bogus = { 77u, 1u, throng_world_id(w) };
    CHECK_STATUS(throng_group_set_wander(w, bogus, &good),
                 THRONG_ERR_STALE_HANDLE);
    CHECK_STATUS(throng_group_get_wander(w, g, NULL), THRONG_ERR_NULL);
    throng_wander out;
    CHECK_STATUS(throng_group_get_wander(w, bogus, &out),
                 THRONG_ERR_STALE_HANDLE);
    CHECK_STATUS(throng_group_set_wander(NULL, g, &good), THRONG_ERR_NULL);

    throng_wander again;
    REQUIRE_OK(throng_group_get_wander(w, g, &again));
    CHECK(memcmp(&again, &good, sizeof good) == 0);
    CHECK_EQ_U64(throng_world_hash(w), before);
    /* A valid change is taken and read back. */
    again.max_turn_rate = 3.14159265f;
    CHECK_OK(throng_group_set_wander(w, g, &again));
    REQUIRE_OK(throng_group_get_wander(w, g, &out));
    CHECK(out.max_turn_rate == again.max_turn_rate);
    throng_world_destroy(w);
}

void register_wander_tests(void) {
    REGISTER(wander_straight_hand_worked);
    REGISTER(wander_turn_bounds_2d);
    REGISTER(wander_turn_bounds_3d);
    REGISTER(wander_seeded);
    REGISTER(wander_bad_input);
    REGISTER(wander_no_turn_matches_the_draw);
}
