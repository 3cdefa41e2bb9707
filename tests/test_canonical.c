/* SPDX-License-Identifier: MIT */
/*
 * The hooks a world split over processes stands on, tested in one
 * process: canonical order (a step's bits depend on host keys and states,
 * not on slots, the order of adds, or far-away agents), an agent's whole
 * state exported from one world and imported into another, and the hash
 * of a world's definition.
 *
 * The strongest check is the split itself: a world stepped whole, and the
 * same world cut into two halves, each holding its own agents plus copies
 * of the other half's agents within reach of its border, give every
 * agent the same bits, on every scene that draws random numbers and
 * targets other agents.
 */
#include <stdlib.h>
#include <string.h>

#include "../bench/scenarios.h"
#include "runner.h"

/* Gives every agent of w the host key 1 + its dense row at the start. */
static void key_agents(throng_world *w) {
    uint32_t n = throng_world_agent_count(w);
    for (uint32_t i = 0; i < n; i++) {
        throng_agent a;
        CHECK_OK(throng_agent_at(w, i, &a));
        CHECK_OK(throng_agent_set_host_key(w, a, (uint64_t)i + 1u));
    }
}

static throng_world *build(const char *name, uint32_t agents) {
    const scenario *sc = scenario_find(name);
    throng_world *w = NULL;
    if (!sc || sc->build(agents, 1, 7u, &w) != THRONG_OK) {
        runner_fail(__FILE__, __LINE__, "scenario %s did not build", name);
        return NULL;
    }
    key_agents(w);
    CHECK_OK(throng_world_set_canonical_order(w, true));
    return w;
}

/* Every agent's state, indexed by host key - 1 (keys 1 .. n). */
static throng_agent_state *states_by_key(const throng_world *w, uint32_t n) {
    throng_agent_state *s = calloc(n ? n : 1u, sizeof *s);
    uint32_t count = throng_world_agent_count(w);
    for (uint32_t i = 0; i < count && s; i++) {
        throng_agent a;
        throng_agent_state st;
        CHECK_OK(throng_agent_at(w, i, &a));
        CHECK_OK(throng_agent_export(w, a, &st));
        if (st.host_key >= 1 && st.host_key <= n)
            s[st.host_key - 1] = st;
    }
    return s;
}

/* A copy of w with its agents added in the reverse order of its rows. */
static throng_world *reversed_copy(const char *name, uint32_t agents,
                                   const throng_world *w) {
    throng_world *r = build(name, agents);
    if (!r)
        return NULL;
    uint32_t n = throng_world_agent_count(r);
    throng_agent_state *s = states_by_key(w, n);
    /* Empty it, then import in reverse key order, targets last. */
    while (throng_world_agent_count(r) > 0) {
        throng_agent a;
        CHECK_OK(throng_agent_at(r, 0, &a));
        CHECK_OK(throng_agent_remove(r, a));
    }
    for (uint32_t k = n; k-- > 0;) {
        throng_agent_state st = s[k];
        st.target_key = 0;
        throng_agent a;
        CHECK_OK(throng_agent_import(r, &st, &a));
    }
    for (uint32_t k = 0; k < n; k++) {
        if (!s[k].target_key)
            continue;
        throng_agent a, t;
        CHECK_OK(throng_agent_find(r, s[k].host_key, &a));
        CHECK_OK(throng_agent_find(r, s[k].target_key, &t));
        CHECK_OK(throng_agent_set_target_agent(r, a, t));
    }
    free(s);
    return r;
}

/* How many agents' states differ between a and b (keys 1 .. n). */
static uint32_t differing(const throng_world *a, const throng_world *b,
                          uint32_t n) {
    throng_agent_state *sa = states_by_key(a, n), *sb = states_by_key(b, n);
    uint32_t diff = 0;
    for (uint32_t k = 0; k < n && sa && sb; k++)
        diff += memcmp(&sa[k], &sb[k], sizeof sa[k]) != 0;
    free(sa);
    free(sb);
    return diff;
}

/* The same agents added in another order step to the same bits under
 * canonical order, and (the order mattering, which makes the check mean
 * something) not without it. */
static void check_add_order(const char *name, uint32_t agents, int steps,
                            float dt) {
    throng_world *a = build(name, agents);
    throng_world *b = a ? reversed_copy(name, agents, a) : NULL;
    if (!b) {
        throng_world_destroy(a);
        return;
    }
    CHECK_OK(throng_world_set_canonical_order(b, true));
    CHECK(throng_world_canonical_order(b));
    CHECK(throng_world_definition_hash(a) == throng_world_definition_hash(b));
    for (int s = 0; s < steps; s++) {
        CHECK_OK(throng_world_step(a, dt));
        CHECK_OK(throng_world_step(b, dt));
    }
    uint32_t diff = differing(a, b, agents);
    if (diff != 0)
        runner_fail(__FILE__, __LINE__,
                    "%s: %u of %u agents differ after %d steps in canonical "
                    "order",
                    name, diff, agents, steps);
    throng_world_destroy(a);
    throng_world_destroy(b);

    /* Without it, the order of adds shows in the bits. */
    a = build(name, agents);
    b = a ? reversed_copy(name, agents, a) : NULL;
    if (b) {
        CHECK_OK(throng_world_set_canonical_order(a, false));
        CHECK(!throng_world_canonical_order(a));
        for (int s = 0; s < steps; s++) {
            CHECK_OK(throng_world_step(a, dt));
            CHECK_OK(throng_world_step(b, dt));
        }
        CHECK(differing(a, b, agents) > 0);
    }
    throng_world_destroy(a);
    throng_world_destroy(b);
}

TEST(canonical_add_order_flock2d) {
    check_add_order("flock2d", 2000, 60, 1.0f / 30.0f);
}

TEST(canonical_add_order_every2d) {
    check_add_order("every2d", 1200, 60, 1.0f / 30.0f);
}

TEST(canonical_add_order_every3d) {
    check_add_order("every3d", 1200, 40, 1.0f / 30.0f);
}

/* The periodic nearest-image distance from x to the slab [lo, hi) along
 * an edge L. */
static float slab_distance(float x, float lo, float hi, float L) {
    if (x >= lo && x < hi)
        return 0.0f;
    float d1 = lo - x, d2 = x - hi;
    d1 = d1 < 0.0f ? d1 + L : d1;
    d2 = d2 < 0.0f ? d2 + L : d2;
    return d1 < d2 ? d1 : d2;
}

/* One step of a world cut in two: each half holds its own agents (x in
 * its slab) and copies of the agents within `reach` of its slab, and also
 * of every agent its own agents target; every agent the half owns must
 * come out of the step with the bits it has in the whole world. */
static void check_split(const char *name, uint32_t agents, int steps,
                        float dt) {
    throng_world *whole = build(name, agents);
    if (!whole)
        return;
    const scenario *sc = scenario_find(name);
    float L = (float)scenario_box_edge(sc, agents);
    const float reach = 1.0f; /* the scenes' neighbour radius */
    /* Warm up, so the crowd moves. */
    for (int s = 0; s < steps; s++)
        CHECK_OK(throng_world_step(whole, dt));
    throng_agent_state *all = states_by_key(whole, agents);
    CHECK_OK(throng_world_step(whole, dt));
    throng_agent_state *after = states_by_key(whole, agents);
    for (int half = 0; half < 2 && all && after; half++) {
        const float lo = half ? 0.5f * L : 0.0f, hi = half ? L : 0.5f * L;
        throng_world *part = build(name, agents);
        if (!part)
            break;
        while (throng_world_agent_count(part) > 0) {
            throng_agent a;
            CHECK_OK(throng_agent_at(part, 0, &a));
            CHECK_OK(throng_agent_remove(part, a));
        }
        /* Step the part to the whole's step count: the random streams
         * are keyed by it. An empty world steps at no cost. */
        for (int s = 0; s < steps; s++)
            CHECK_OK(throng_world_step(part, dt));
        char *in = calloc(agents, 1);
        for (uint32_t k = 0; k < agents; k++) {
            float x = all[k].position[0];
            if (slab_distance(x, lo, hi, L) <= reach)
                in[k] = 1;
            if (x >= lo && x < hi && all[k].target_key)
                in[all[k].target_key - 1] = 1;
        }
        for (uint32_t k = 0; k < agents; k++) {
            if (!in[k])
                continue;
            throng_agent_state st = all[k];
            st.target_key = 0;
            throng_agent a;
            CHECK_OK(throng_agent_import(part, &st, &a));
        }
        for (uint32_t k = 0; k < agents; k++) {
            float x = all[k].position[0];
            if (!(x >= lo && x < hi) || !all[k].target_key)
                continue;
            throng_agent a, t;
            CHECK_OK(throng_agent_find(part, all[k].host_key, &a));
            CHECK_OK(throng_agent_find(part, all[k].target_key, &t));
            CHECK_OK(throng_agent_set_target_agent(part, a, t));
        }
        CHECK_OK(throng_world_step(part, dt));
        uint32_t diff = 0, owned = 0;
        for (uint32_t k = 0; k < agents; k++) {
            float x = all[k].position[0];
            if (!(x >= lo && x < hi))
                continue;
            owned++;
            throng_agent a;
            throng_agent_state st;
            CHECK_OK(throng_agent_find(part, k + 1u, &a));
            CHECK_OK(throng_agent_export(part, a, &st));
            st.target_key = after[k].target_key;
            diff += memcmp(&st, &after[k], sizeof st) != 0;
        }
        CHECK(owned > agents / 4);
        if (diff)
            runner_fail(__FILE__, __LINE__,
                        "%s: half %d: %u of its %u agents differ from the "
                        "whole world's step",
                        name, half, diff, owned);
        free(in);
        throng_world_destroy(part);
    }
    free(all);
    free(after);
    throng_world_destroy(whole);
}

TEST(canonical_split_flock2d) {
    check_split("flock2d", 3000, 30, 1.0f / 30.0f);
}

TEST(canonical_split_every2d) {
    check_split("every2d", 2000, 30, 1.0f / 30.0f);
}

/* Export then import is the identity, field by field. */
TEST(agent_state_round_trip) {
    throng_world *w = build("every3d", 300);
    if (!w)
        return;
    for (int s = 0; s < 5; s++)
        CHECK_OK(throng_world_step(w, 1.0f / 30.0f));
    throng_world *v = reversed_copy("every3d", 300, w);
    CHECK(v != NULL);
    CHECK(v && differing(w, v, 300) == 0);
    throng_world_destroy(v);
    throng_world_destroy(w);
}

/* Every refusal of an import leaves the world as it was. */
TEST(agent_state_import_refusals) {
    throng_world *w = build("every2d", 60);
    if (!w)
        return;
    throng_agent a;
    throng_agent_state good;
    CHECK_OK(throng_agent_at(w, 0, &a));
    CHECK_OK(throng_agent_export(w, a, &good));
    CHECK(good.host_key != 0 && good.behaviour_state == 1);
    good.host_key = 1000;
    good.target_key = 2;
    const uint64_t before = throng_world_hash(w);
    const uint32_t count = throng_world_agent_count(w);
    static const throng_status want[] = {
        THRONG_ERR_NOT_FINITE,   THRONG_ERR_NOT_FINITE,
        THRONG_ERR_OUT_OF_RANGE, THRONG_ERR_NOT_FINITE,
        THRONG_ERR_NOT_FINITE,   THRONG_ERR_NOT_FOUND,
        THRONG_ERR_OUT_OF_RANGE, THRONG_ERR_DUPLICATE_KEY,
        THRONG_ERR_STALE_HANDLE, THRONG_ERR_OUT_OF_RANGE,
    };
    for (size_t c = 0; c < sizeof want / sizeof want[0]; c++) {
        throng_agent_state bad = good;
        switch (c) {
        case 0:
            bad.position[0] = NAN;
            break;
        case 1:
            bad.forward[1] = NAN;
            break;
        case 2:
            bad.forward[0] = 2.0f;
            break;
        case 3:
            bad.wander_rate = NAN;
            break;
        case 4:
            bad.target_point[1] = INFINITY;
            break;
        case 5:
            bad.target_key = 99999;
            break;
        case 6:
            bad.target_key = bad.host_key;
            break;
        case 7:
            bad.host_key = 3;
            break;
        case 8:
            bad.group_id = 77;
            break;
        default:
            bad.mass = -1.0f;
            break;
        }
        throng_agent out = { 0, 0, 0 };
        CHECK_STATUS(throng_agent_import(w, &bad, &out), want[c]);
        CHECK(strncmp(throng_world_last_error(w), "throng_agent_import", 19) ==
              0);
        CHECK(out.slot == 0);
        CHECK(throng_world_agent_count(w) == count);
        CHECK(throng_world_hash(w) == before);
    }
    CHECK_STATUS(throng_agent_import(w, NULL, &a), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_import(NULL, &good, &a), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_export(w, a, NULL), THRONG_ERR_NULL);
    throng_agent gone = a;
    CHECK_OK(throng_agent_remove(w, gone));
    throng_agent_state st;
    CHECK_STATUS(throng_agent_export(w, gone, &st), THRONG_ERR_STALE_HANDLE);
    /* The good state goes in, with its target. */
    CHECK_OK(throng_agent_import(w, &good, &a));
    throng_agent t, two;
    CHECK_OK(throng_agent_get_target_agent(w, a, &t));
    CHECK_OK(throng_agent_find(w, 2, &two));
    CHECK(t.slot == two.slot && t.generation == two.generation);
    throng_world_destroy(w);
}

/* A world without behaviour state is not given it by a refused import. */
TEST(agent_state_import_keeps_plain_world) {
    throng_world *w = build("flock2d", 50);
    throng_world *e = build("every2d", 50);
    if (!w || !e) {
        throng_world_destroy(w);
        throng_world_destroy(e);
        return;
    }
    throng_agent a;
    throng_agent_state st;
    CHECK_OK(throng_agent_at(e, 0, &a));
    CHECK_OK(throng_agent_export(e, a, &st));
    st.group_id = 0;
    st.group_generation = 0;
    st.target_key = 0;
    st.host_key = 5000;
    const size_t bytes = throng_world_bytes(w);
    const uint64_t before = throng_world_hash(w);
    throng_agent_state bad = st;
    bad.velocity[0] = NAN;
    CHECK_STATUS(throng_agent_import(w, &bad, &a), THRONG_ERR_NOT_FINITE);
    CHECK(throng_world_bytes(w) == bytes);
    CHECK(throng_world_hash(w) == before);
    CHECK_OK(throng_agent_import(w, &st, &a));
    throng_world_destroy(w);
    throng_world_destroy(e);
}

/* The definition hash reads settings, objects and groups, never agents. */
TEST(definition_hash) {
    throng_world *a = build("every2d", 100), *b = build("every2d", 300);
    throng_world *c = build("flock2d", 100);
    if (a && b && c) {
        const uint64_t ha = throng_world_definition_hash(a);
        CHECK(ha != 0);
        CHECK(ha == throng_world_definition_hash(b) ||
              /* the box follows the agent count */
              scenario_box_edge(scenario_find("every2d"), 100) !=
                  scenario_box_edge(scenario_find("every2d"), 300));
        CHECK(ha != throng_world_definition_hash(c));
        throng_world_destroy(b);
        b = build("every2d", 100);
        CHECK(ha == throng_world_definition_hash(b));
        for (int s = 0; s < 3; s++)
            CHECK_OK(throng_world_step(b, 0.1f));
        throng_agent x;
        CHECK_OK(throng_agent_at(b, 0, &x));
        CHECK_OK(throng_agent_remove(b, x));
        CHECK(ha == throng_world_definition_hash(b));
        throng_group g;
        throng_group_def def = throng_group_def_default();
        CHECK_OK(throng_group_create(b, &def, &g));
        CHECK(ha != throng_world_definition_hash(b));
    }
    CHECK(throng_world_definition_hash(NULL) == 0);
    throng_world_destroy(a);
    throng_world_destroy(b);
    throng_world_destroy(c);
}

void register_canonical_tests(void) {
    REGISTER(canonical_add_order_flock2d);
    REGISTER(canonical_add_order_every2d);
    REGISTER(canonical_add_order_every3d);
    REGISTER(canonical_split_flock2d);
    REGISTER(canonical_split_every2d);
    REGISTER(agent_state_round_trip);
    REGISTER(agent_state_import_refusals);
    REGISTER(agent_state_import_keeps_plain_world);
    REGISTER(definition_hash);
}
