/* SPDX-License-Identifier: MIT */
/*
 * The three combination modes on cases worked by hand, and the bad input
 * of the group behaviour-list functions.
 *
 * One 2D agent with no neighbours, m = 2 kg, v0 = (0.5, 0.5), dt = 0.1 s,
 * max speed 10 (so nothing is cut), heading f = (1, 1) / sqrt 2:
 * - separation (flee-average) with no neighbour brakes (seed 000):
 *   F_sep = -m v / dt = 20 * (-0.5, -0.5) = (-10, -10);
 * - turn-rate wander with theta = phi = 0 keeps the heading at target
 *   speed s_t = 0.1 * 10 = 1: F_wan = m (s_t f - v) / dt
 *   = 20 * (0.70711 - 0.5) = 4.1421 on each axis.
 * The velocity after one step is v0 + F dt / m = v0 + F / 20.
 */
#include <math.h>
#include <string.h>

#include "runner.h"

#define COMBINE_DT 0.1f

static const float wander_f = 4.1421356f; /* 20 (1/sqrt 2 - 1/2) */

typedef struct combine_case {
    throng_combine_mode mode;
    float sep_w, wan_w;
    int32_t sep_p, wan_p;
    float max_force;
} combine_case;

/* Steps one agent once under `c`; writes the force it got. */
static int combine_force(const combine_case *c, float F[2]) {
    throng_world_def wd = throng_world_def_default();
    wd.dimensions = 2;
    wd.threads = 1;
    throng_world *w = NULL;
    if (throng_world_create(&wd, &w) != THRONG_OK)
        return 0;
    throng_group_def g = throng_group_def_default();
    g.flocking.separation_weight = c->sep_w;
    g.flocking.separation_priority = c->sep_p;
    g.wander.weight = c->wan_w;
    g.wander.priority = c->wan_p;
    g.wander.max_turn_rate = 0.0f;
    g.wander.max_turn_change = 0.0f;
    g.wander.speed_factor = 0.1f;
    g.combine = c->mode;
    throng_agent_def a = throng_agent_def_default();
    a.mass = 2.0f;
    a.max_speed = 10.0f;
    a.max_force = c->max_force;
    a.velocity[0] = a.velocity[1] = 0.5f;
    throng_agent h;
    int ok = throng_group_create(w, &g, &a.group) == THRONG_OK &&
             throng_agent_add(w, &a, &h) == THRONG_OK &&
             throng_world_step(w, COMBINE_DT) == THRONG_OK;
    float v[3] = { 0 };
    ok = ok && throng_agent_get_velocity(w, h, v) == THRONG_OK;
    F[0] = (v[0] - 0.5f) * 20.0f;
    F[1] = (v[1] - 0.5f) * 20.0f;
    throng_world_destroy(w);
    return ok;
}

/* Seed 001: F = 1 * F_sep + 2 * F_wan = -10 + 8.2843 = -1.7157. */
TEST(combine_weighted_sum) {
    combine_case c = { THRONG_COMBINE_WEIGHTED_SUM, 1.0f, 2.0f, 0, 0, 100.0f };
    float F[2];
    REQUIRE(combine_force(&c, F));
    CHECK_NEAR(F[0], -10.0f + 2.0f * wander_f, 2e-4);
    CHECK_NEAR(F[1], -10.0f + 2.0f * wander_f, 2e-4);
}

/* Seed 000: weights over their total: F = (1/4) F_sep + (3/4) F_wan
 * = -2.5 + 3.1066 = 0.6066. */
TEST(combine_weighted_average) {
    combine_case c = {
        THRONG_COMBINE_WEIGHTED_AVERAGE, 1.0f, 3.0f, 0, 0, 100.0f
    };
    float F[2];
    REQUIRE(combine_force(&c, F));
    CHECK_NEAR(F[0], -2.5f + 0.75f * wander_f, 2e-4);
    CHECK_NEAR(F[1], -2.5f + 0.75f * wander_f, 2e-4);
}

/* Seed 003, the running sum in priority order, truncated at max force. */
TEST(combine_priority) {
    float F[2];
    /* Separation first (priority 1 > 0): |(-10, -10)| = 14.14 >= 5, so the
     * sum is cut to 5 along (-1, -1) and wander is never added. */
    combine_case c = { THRONG_COMBINE_PRIORITY, 1.0f, 1.0f, 1, 0, 5.0f };
    REQUIRE(combine_force(&c, F));
    CHECK_NEAR(F[0], -5.0f / sqrtf(2.0f), 2e-4);
    CHECK_NEAR(F[1], -5.0f / sqrtf(2.0f), 2e-4);
    /* Wander first (priority 2): |(4.14, 4.14)| = 5.86 >= 5: cut to 5
     * along (1, 1); separation is skipped. */
    c.wan_p = 2;
    REQUIRE(combine_force(&c, F));
    CHECK_NEAR(F[0], 5.0f / sqrtf(2.0f), 2e-4);
    CHECK_NEAR(F[1], 5.0f / sqrtf(2.0f), 2e-4);
    /* With max force 20 neither term alone reaches it: wander, then
     * separation, 4.14 - 10 = -5.86 each, |F| = 8.28 < 20, kept whole. */
    c.max_force = 20.0f;
    REQUIRE(combine_force(&c, F));
    CHECK_NEAR(F[0], wander_f - 10.0f, 2e-4);
    /* Weights apply before the test: 0.25 F_sep = (-2.5, -2.5) first,
     * |.| = 3.54 < 5, then 1 F_wan: (1.64, 1.64), |.| = 2.32, kept. */
    combine_case d = { THRONG_COMBINE_PRIORITY, 0.25f, 1.0f, 5, -5, 5.0f };
    REQUIRE(combine_force(&d, F));
    CHECK_NEAR(F[0], -2.5f + wander_f, 2e-4);
    /* Equal priorities keep the fixed order: separation, then wander;
     * separation alone reaches 5, so the result is that of the first
     * case. */
    combine_case e = { THRONG_COMBINE_PRIORITY, 1.0f, 1.0f, 0, 0, 5.0f };
    REQUIRE(combine_force(&e, F));
    CHECK_NEAR(F[0], -5.0f / sqrtf(2.0f), 2e-4);
}

static throng_world *list_world(throng_group *group) {
    throng_world_def wd = throng_world_def_default();
    wd.dimensions = 2;
    throng_world *w = NULL;
    if (throng_world_create(&wd, &w) != THRONG_OK)
        return NULL;
    throng_group_def g = throng_group_def_default();
    if (throng_group_create(w, &g, group) != THRONG_OK) {
        throng_world_destroy(w);
        return NULL;
    }
    throng_agent_def a = throng_agent_def_default();
    a.group = *group;
    throng_agent h;
    if (throng_agent_add(w, &a, &h) != THRONG_OK) {
        throng_world_destroy(w);
        return NULL;
    }
    return w;
}

/* Every refusal of the list functions: the exact code, a sentence, and
 * the world as it was. */
TEST(combine_list_bad_input) {
    throng_group g = THRONG_NULL_GROUP;
    throng_world *w = list_world(&g);
    REQUIRE(w);
    /* A group id this world never handed out. */
    const throng_group bogus = { 77u, 1u, throng_world_id(w) };
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_SEEK);
    uint64_t before = throng_world_hash(w);
    uint32_t index = 99, count = 99;

    CHECK_STATUS(throng_group_add_behaviour(NULL, g, &b, &index),
                 THRONG_ERR_NULL);
    CHECK_STATUS(throng_group_add_behaviour(w, g, NULL, &index),
                 THRONG_ERR_NULL);
    CHECK_STATUS(throng_group_add_behaviour(w, bogus, &b, &index),
                 THRONG_ERR_STALE_HANDLE);
    CHECK(strlen(throng_world_last_error(w)) > 0);
    throng_behaviour bad = b;
    bad.kind = (throng_behaviour_kind)0;
    CHECK_STATUS(throng_group_add_behaviour(w, g, &bad, &index),
                 THRONG_ERR_OUT_OF_RANGE);
    bad.kind = (throng_behaviour_kind)999;
    CHECK_STATUS(throng_group_add_behaviour(w, g, &bad, &index),
                 THRONG_ERR_OUT_OF_RANGE);
    bad = b;
    bad.weight = NAN;
    CHECK_STATUS(throng_group_add_behaviour(w, g, &bad, &index),
                 THRONG_ERR_NOT_FINITE);
    bad.weight = -1.0f;
    CHECK_STATUS(throng_group_add_behaviour(w, g, &bad, &index),
                 THRONG_ERR_OUT_OF_RANGE);
    bad = b;
    bad.speed_factor = INFINITY;
    CHECK_STATUS(throng_group_add_behaviour(w, g, &bad, &index),
                 THRONG_ERR_NOT_FINITE);
    bad.speed_factor = 1.5f;
    CHECK_STATUS(throng_group_add_behaviour(w, g, &bad, &index),
                 THRONG_ERR_OUT_OF_RANGE);
    CHECK_EQ_INT(index, 99);
    CHECK_OK(throng_group_behaviour_count(w, g, &count));
    CHECK_EQ_INT(count, 0);
    CHECK_EQ_U64(throng_world_hash(w), before);

    /* Set and get check the index. */
    CHECK_STATUS(throng_group_set_behaviour(w, g, 0, &b),
                 THRONG_ERR_OUT_OF_RANGE);
    throng_behaviour out;
    CHECK_STATUS(throng_group_get_behaviour(w, g, 0, &out),
                 THRONG_ERR_OUT_OF_RANGE);
    CHECK_STATUS(throng_group_get_behaviour(w, g, 0, NULL), THRONG_ERR_NULL);
    CHECK_STATUS(throng_group_behaviour_count(w, bogus, &count),
                 THRONG_ERR_STALE_HANDLE);
    CHECK_STATUS(throng_group_clear_behaviours(w, bogus),
                 THRONG_ERR_STALE_HANDLE);

    /* The list holds THRONG_MAX_BEHAVIOURS, then says so. */
    for (uint32_t i = 0; i < THRONG_MAX_BEHAVIOURS; i++) {
        b.priority = (int32_t)i;
        CHECK_OK(throng_group_add_behaviour(w, g, &b, &index));
        CHECK_EQ_INT(index, i);
    }
    CHECK_STATUS(throng_group_add_behaviour(w, g, &b, &index),
                 THRONG_ERR_CAPACITY);
    CHECK_OK(throng_group_get_behaviour(w, g, 3, &out));
    CHECK_EQ_INT(out.priority, 3);
    CHECK_EQ_INT(out.kind, THRONG_BEHAVIOUR_SEEK);
    /* A refused set leaves the entry as it was. */
    bad = b;
    bad.weight = -2.0f;
    CHECK_STATUS(throng_group_set_behaviour(w, g, 3, &bad),
                 THRONG_ERR_OUT_OF_RANGE);
    CHECK_OK(throng_group_get_behaviour(w, g, 3, &out));
    CHECK_EQ_INT(out.priority, 3);
    CHECK_OK(throng_group_clear_behaviours(w, g));
    CHECK_OK(throng_group_behaviour_count(w, g, &count));
    CHECK_EQ_INT(count, 0);
    /* The combine mode is checked as well. */
    CHECK_STATUS(throng_group_set_combine(w, g, (throng_combine_mode)3),
                 THRONG_ERR_OUT_OF_RANGE);
    CHECK_OK(throng_group_set_combine(w, g, THRONG_COMBINE_PRIORITY));
    throng_world_destroy(w);
}

/* Per-agent state: defaults, round trips and refusals. */
TEST(combine_agent_state) {
    throng_group g = THRONG_NULL_GROUP;
    throng_world *w = list_world(&g);
    REQUIRE(w);
    throng_agent a, other;
    REQUIRE(throng_agent_at(w, 0, &a) == THRONG_OK);
    throng_agent_def d = throng_agent_def_default();
    REQUIRE(throng_agent_add(w, &d, &other) == THRONG_OK);

    float p[3] = { 9, 9, 9 };
    throng_agent t = { 7, 7, 7 };
    uint32_t progress = 9;
    CHECK_OK(throng_agent_get_target_point(w, a, p));
    CHECK(p[0] == 0.0f && p[1] == 0.0f && p[2] == 0.0f);
    CHECK_OK(throng_agent_get_target_agent(w, a, &t));
    CHECK(t.slot == 0 && t.generation == 0);
    CHECK_OK(throng_agent_get_progress(w, a, &progress));
    CHECK_EQ_INT(progress, 0);

    uint64_t before = throng_world_hash(w);
    const float nan3[3] = { NAN, 0, 0 };
    CHECK_STATUS(throng_agent_set_target_point(w, a, nan3),
                 THRONG_ERR_NOT_FINITE);
    CHECK_STATUS(throng_agent_set_target_point(w, a, NULL), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_set_target_agent(w, a, a),
                 THRONG_ERR_OUT_OF_RANGE);
    throng_agent forged = { other.slot, other.generation + 1, other.world };
    CHECK_STATUS(throng_agent_set_target_agent(w, a, forged),
                 THRONG_ERR_STALE_HANDLE);
    throng_agent gone = THRONG_NULL_AGENT;
    CHECK_STATUS(throng_agent_set_progress(w, gone, 1),
                 THRONG_ERR_STALE_HANDLE);
    CHECK_EQ_U64(throng_world_hash(w), before);

    const float q[3] = { 1.5f, -2.0f, 7.0f };
    CHECK_OK(throng_agent_set_target_point(w, a, q));
    CHECK_OK(throng_agent_get_target_point(w, a, p));
    CHECK(p[0] == 1.5f && p[1] == -2.0f && p[2] == 0.0f); /* 2D: z is 0 */
    CHECK_OK(throng_agent_set_target_agent(w, a, other));
    CHECK_OK(throng_agent_get_target_agent(w, a, &t));
    CHECK(t.slot == other.slot && t.generation == other.generation);
    CHECK_OK(throng_agent_set_progress(w, a, 5));
    CHECK_OK(throng_agent_get_progress(w, a, &progress));
    CHECK_EQ_INT(progress, 5);
    /* The state is part of the hash. */
    CHECK(throng_world_hash(w) != before);
    /* It survives steps (rows are reordered by cell) and removals (rows
     * move). */
    throng_agent extra;
    REQUIRE(throng_agent_add(w, &d, &extra) == THRONG_OK);
    CHECK_OK(throng_world_step(w, 0.1f));
    CHECK_OK(throng_agent_remove(w, extra));
    CHECK_OK(throng_agent_get_progress(w, a, &progress));
    CHECK_EQ_INT(progress, 5);
    CHECK_OK(throng_agent_get_target_agent(w, a, &t));
    CHECK(t.slot == other.slot);
    /* Clearing with the null handle. */
    CHECK_OK(throng_agent_set_target_agent(w, a, gone));
    CHECK_OK(throng_agent_get_target_agent(w, a, &t));
    CHECK(t.slot == 0);
    throng_world_destroy(w);
}

void register_steer_combine_tests(void) {
    REGISTER(combine_weighted_sum);
    REGISTER(combine_weighted_average);
    REGISTER(combine_priority);
    REGISTER(combine_list_bad_input);
    REGISTER(combine_agent_state);
}
