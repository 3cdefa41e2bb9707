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
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/scenarios.h"
#include "runner.h"

#include "internal.h"

/* Gives every agent of w the host key 1 + its dense row at the start. */
static void key_agents(throng_world *w) {
    uint32_t n = throng_world_agent_count(w);
    for (uint32_t i = 0; i < n; i++) {
        throng_agent a;
        CHECK_OK(throng_agent_at(w, i, &a));
        CHECK_OK(throng_agent_set_host_key(w, a, (uint64_t)i + 1u));
    }
}

/* Set by the tie test: build() then caps the first agent's group at its
 * 6 nearest, sends its velocities through ORCA (the 10 nearest) and puts
 * the agents on a square lattice of exact coordinates, where neighbours
 * stand at equal distances everywhere. */
static int lattice_ties;

static void make_lattice(throng_world *w) {
    const uint32_t n = throng_world_agent_count(w);
    throng_agent a;
    throng_group g;
    CHECK_OK(throng_agent_at(w, 0, &a));
    CHECK_OK(throng_agent_get_group(w, a, &g));
    throng_flocking fl;
    CHECK_OK(throng_group_get_flocking(w, g, &fl));
    fl.max_neighbours = 6;
    CHECK_OK(throng_group_set_flocking(w, g, &fl));
    throng_avoidance av;
    CHECK_OK(throng_group_get_avoidance(w, g, &av));
    av.mode = THRONG_AVOIDANCE_ORCA;
    CHECK_OK(throng_group_set_avoidance(w, g, &av));
    const uint32_t side = (uint32_t)ceil(sqrt((double)n));
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t col = i % side, row = i / side;
        const float p[3] = { 0.5f * (float)col, 0.5f * (float)row, 0.0f };
        CHECK_OK(throng_agent_at(w, i, &a));
        CHECK_OK(throng_agent_set_position(w, a, p));
    }
}

static throng_world *build(const char *name, uint32_t agents) {
    const scenario *sc = scenario_find(name);
    throng_world *w = NULL;
    if (!sc || sc->build(agents, 1, 7u, &w) != THRONG_OK) {
        runner_fail(__FILE__, __LINE__, "scenario %s did not build", name);
        return NULL;
    }
    if (lattice_ties)
        make_lattice(w);
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

/* Neighbours at equal distances (a lattice): which of them the cap and
 * ORCA keep, and how ORCA parts a pair, follow (cell, key) order in a
 * canonical world, not the slots, so adding the agents in another order
 * changes no bit. */
TEST(canonical_add_order_lattice_ties) {
    lattice_ties = 1;
    check_add_order("flock2d", 900, 40, 1.0f / 30.0f);
    lattice_ties = 0;
}

/* The lattice of ties on one path: a canonical world's tie keys are read
 * a vector at a time up to COLUMN_PAD rows past a range's end, as the
 * columns are, so past the last row they hold the padding (a read beyond
 * it fails the sanitizers' runs); returns the state hash. */
static uint64_t tie_padding_run(const void *cfg, const char *simd) {
    const uint32_t agents = *(const uint32_t *)cfg;
    lattice_ties = 1;
    throng_world *w = build("flock2d", agents);
    lattice_ties = 0;
    w = runner_on_path(w, simd);
    if (!w)
        return simd ? 1u : 0u;
    uint64_t h = 0;
    int ok = 1;
    for (int s = 0; s < 3 && ok; s++)
        ok = throng_world_step(w, 1.0f / 30.0f) == THRONG_OK;
    const uint32_t n = throng_world_agent_count(w);
    CHECK(ok && w->tie_rows && w->tie_rows_count >= n);
    for (uint32_t i = n; ok && w->tie_rows && i < n + COLUMN_PAD; i++)
        if (w->tie_rows[i] != i)
            runner_fail(__FILE__, __LINE__,
                        "%s, %u agents: tie key %u past the rows is %u",
                        simd ? simd : "default", n, i, w->tie_rows[i]);
    if (ok)
        h = throng_world_hash(w);
    throng_world_destroy(w);
    return h;
}

/* Every path gives the scalar path's bits on the lattice of ties, with
 * counts that leave the last cell's rows short of a vector at every
 * width (AVX-512 read past an unpadded column of keys here). */
TEST(canonical_tie_keys_padded) {
    static const uint32_t counts[] = { 901u, 917u };
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        runner_paths_match_scalar(__FILE__, __LINE__, "lattice of ties",
                                  tie_padding_run, &counts[k]);
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

/* Every agent's state, in row order. */
static throng_agent_state *states_in_rows(const throng_world *w, uint32_t *n) {
    *n = throng_world_agent_count(w);
    throng_agent_state *s = calloc(*n ? *n : 1u, sizeof *s);
    for (uint32_t i = 0; i < *n && s; i++) {
        throng_agent a;
        CHECK_OK(throng_agent_at(w, i, &a));
        CHECK_OK(throng_agent_export(w, a, &s[i]));
    }
    return s;
}

/* Whether two worlds hold the same agents in the same rows and slots,
 * state for state. */
static int same_rows(const throng_world *a, const throng_world *b) {
    uint32_t na = 0, nb = 0;
    throng_agent_state *sa = states_in_rows(a, &na),
                       *sb = states_in_rows(b, &nb);
    int same = sa && sb && na == nb;
    for (uint32_t i = 0; same && i < na; i++) {
        throng_agent x, y;
        CHECK_OK(throng_agent_at(a, i, &x));
        CHECK_OK(throng_agent_at(b, i, &y));
        same = memcmp(&sa[i], &sb[i], sizeof sa[i]) == 0 && x.slot == y.slot &&
               x.generation == y.generation;
    }
    free(sa);
    free(sb);
    return same && throng_world_hash(a) == throng_world_hash(b);
}

/* throng_agents_remove and throng_agents_import against the calls one at
 * a time: the same rows, slots, handles and bits, then and after steps,
 * with and without canonical order, into a world that holds agents and
 * into an empty one (whose single-row mass column the batch splits). */
static void check_batch(const char *name, int canonical) {
    throng_world *src = build(name, 400);
    throng_world *a = build(name, 300), *b = build(name, 300);
    if (!src || !a || !b) {
        throng_world_destroy(src);
        throng_world_destroy(a);
        throng_world_destroy(b);
        return;
    }
    CHECK_OK(throng_world_set_canonical_order(a, canonical != 0));
    CHECK_OK(throng_world_set_canonical_order(b, canonical != 0));
    for (int k = 0; k < 3; k++) {
        CHECK_OK(throng_world_step(src, 1.0f / 30.0f));
        CHECK_OK(throng_world_step(a, 1.0f / 30.0f));
        CHECK_OK(throng_world_step(b, 1.0f / 30.0f));
    }
    /* Every third agent out, in an order that is not the rows'. */
    throng_agent gone_a[100], gone_b[100];
    uint32_t ng = 0;
    for (uint32_t key = 299; key >= 3 && ng < 100; key -= 3) {
        CHECK_OK(throng_agent_find(a, key, &gone_a[ng]));
        CHECK_OK(throng_agent_find(b, key, &gone_b[ng]));
        ng++;
    }
    for (uint32_t i = 0; i < ng; i++)
        CHECK_OK(throng_agent_remove(a, gone_a[i]));
    CHECK_OK(throng_agents_remove(b, ng, gone_b));
    CHECK(same_rows(a, b));
    /* The source's agents with new keys, some targeting agents held. */
    uint32_t n = 0;
    throng_agent_state *in = states_in_rows(src, &n);
    for (uint32_t i = 0; i < n && in; i++) {
        in[i].host_key += 1000u;
        in[i].target_key = in[i].target_key ? 1u + 3u * (i % 90u) : 0u;
        in[i].mass = 1.0f + 0.25f * (float)(i % 3u);
    }
    throng_agent one[400], many[400];
    for (uint32_t i = 0; i < n && in; i++)
        CHECK_OK(throng_agent_import(a, &in[i], &one[i]));
    if (in)
        CHECK_OK(throng_agents_import(b, n, in, many));
    for (uint32_t i = 0; i < n; i++)
        CHECK(one[i].slot == many[i].slot &&
              one[i].generation == many[i].generation);
    CHECK(same_rows(a, b));
    for (int k = 0; k < 5; k++) {
        CHECK_OK(throng_world_step(a, 1.0f / 30.0f));
        CHECK_OK(throng_world_step(b, 1.0f / 30.0f));
    }
    CHECK(same_rows(a, b));
    /* Into empty worlds: the masses differ from the first row's. */
    throng_world *c = build(name, 10), *d = build(name, 10);
    if (c && d && in) {
        while (throng_world_agent_count(c) > 0) {
            throng_agent x;
            CHECK_OK(throng_agent_at(c, 0, &x));
            CHECK_OK(throng_agent_remove(c, x));
            CHECK_OK(throng_agent_at(d, 0, &x));
            CHECK_OK(throng_agents_remove(d, 1, &x));
        }
        for (uint32_t i = 0; i < n; i++) {
            in[i].target_key = 0;
            CHECK_OK(throng_agent_import(c, &in[i], &one[i]));
        }
        CHECK_OK(throng_agents_import(d, n, in, NULL));
        CHECK(same_rows(c, d));
        CHECK_OK(throng_world_step(c, 1.0f / 30.0f));
        CHECK_OK(throng_world_step(d, 1.0f / 30.0f));
        CHECK(same_rows(c, d));
    }
    throng_world_destroy(c);
    throng_world_destroy(d);
    free(in);
    throng_world_destroy(src);
    throng_world_destroy(a);
    throng_world_destroy(b);
}

TEST(agents_batch_every2d) {
    check_batch("every2d", 0);
    check_batch("every2d", 1);
}

TEST(agents_batch_every3d) {
    check_batch("every3d", 1);
}

/* A refused batch changes nothing: no agent added or removed, the same
 * hash and heap, the sentence naming the state or handle. */
TEST(agents_batch_refusals) {
    throng_world *w = build("every2d", 60), *plain = build("flock2d", 40);
    if (!w || !plain) {
        throng_world_destroy(w);
        throng_world_destroy(plain);
        return;
    }
    uint32_t n = 0;
    throng_agent_state *good = states_in_rows(w, &n);
    if (!good)
        return;
    for (uint32_t i = 0; i < n; i++) {
        good[i].host_key += 1000u;
        good[i].target_key = good[i].target_key ? 2u : 0u;
    }
    const uint64_t before = throng_world_hash(w);
    const size_t bytes = throng_world_bytes(w);
    const uint32_t count = throng_world_agent_count(w);
    static const throng_status want[] = {
        THRONG_ERR_NOT_FINITE,    THRONG_ERR_OUT_OF_RANGE,
        THRONG_ERR_NOT_FOUND,     THRONG_ERR_OUT_OF_RANGE,
        THRONG_ERR_DUPLICATE_KEY, THRONG_ERR_DUPLICATE_KEY,
        THRONG_ERR_STALE_HANDLE,  THRONG_ERR_OUT_OF_RANGE,
    };
    for (size_t c = 0; c < sizeof want / sizeof want[0]; c++) {
        throng_agent_state *bad = good + 10; /* the batch: 20 states */
        const throng_agent_state keep = bad[5];
        switch (c) {
        case 0:
            bad[5].position[0] = NAN;
            break;
        case 1:
            bad[5].forward[0] = 2.0f;
            break;
        case 2:
            bad[5].target_key = 99999;
            break;
        case 3:
            bad[5].target_key = bad[5].host_key;
            break;
        case 4:
            bad[5].host_key = 3; /* held by the world */
            break;
        case 5:
            bad[5].host_key = bad[12].host_key; /* twice in the batch */
            break;
        case 6:
            bad[5].group_id = 77;
            break;
        default:
            bad[5].mass = -1.0f;
            break;
        }
        throng_agent out[20];
        memset(out, 0, sizeof out);
        CHECK_STATUS(throng_agents_import(w, 20, bad, out), want[c]);
        const char *e = throng_world_last_error(w);
        CHECK(strncmp(e, "throng_agents_import", 20) == 0);
        CHECK(strstr(e, c == 5 ? "states[12]" : "states[5]") != NULL);
        CHECK(out[0].slot == 0 && out[19].slot == 0);
        CHECK(throng_world_agent_count(w) == count);
        CHECK(throng_world_hash(w) == before);
        CHECK(throng_world_bytes(w) == bytes);
        bad[5] = keep;
    }
    CHECK_STATUS(throng_agents_import(w, 3, NULL, NULL), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agents_import(NULL, 3, good, NULL), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agents_import(w, THRONG_MAX_AGENTS, good, NULL),
                 THRONG_ERR_CAPACITY);
    CHECK_OK(throng_agents_import(w, 0, NULL, NULL));
    CHECK(throng_world_agent_count(w) == count);
    CHECK(throng_world_hash(w) == before);
    /* A plain world is not given behaviour state by a refused batch. */
    const size_t plain_bytes = throng_world_bytes(plain);
    const uint64_t plain_hash = throng_world_hash(plain);
    throng_agent_state st[2] = { good[0], good[1] };
    for (int k = 0; k < 2; k++) {
        st[k].group_id = st[k].group_generation = 0;
        st[k].target_key = 0;
    }
    st[1].velocity[1] = NAN;
    CHECK_STATUS(throng_agents_import(plain, 2, st, NULL),
                 THRONG_ERR_NOT_FINITE);
    CHECK(throng_world_bytes(plain) == plain_bytes);
    CHECK(throng_world_hash(plain) == plain_hash);
    /* Removals: a stale handle, the same agent twice, NULL. */
    throng_agent h[4];
    for (uint32_t i = 0; i < 4; i++)
        CHECK_OK(throng_agent_at(w, i, &h[i]));
    throng_agent dead = h[3];
    CHECK_OK(throng_agent_remove(w, dead));
    const uint64_t mid = throng_world_hash(w);
    const uint32_t left = throng_world_agent_count(w);
    CHECK_STATUS(throng_agents_remove(w, 4, h), THRONG_ERR_STALE_HANDLE);
    CHECK(strstr(throng_world_last_error(w), "agents[3]") != NULL);
    h[3] = h[1];
    CHECK_STATUS(throng_agents_remove(w, 4, h), THRONG_ERR_OUT_OF_RANGE);
    CHECK(strstr(throng_world_last_error(w), "agents[3]") != NULL);
    CHECK_STATUS(throng_agents_remove(w, 2, NULL), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agents_remove(NULL, 2, h), THRONG_ERR_NULL);
    CHECK_OK(throng_agents_remove(w, 0, NULL));
    CHECK(throng_world_agent_count(w) == left);
    CHECK(throng_world_hash(w) == mid);
    CHECK(throng_agent_valid(w, h[0]) && throng_agent_valid(w, h[2]));
    CHECK_OK(throng_agents_remove(w, 3, h));
    CHECK(throng_world_agent_count(w) == left - 3u);
    CHECK(!throng_agent_valid(w, h[0]) && !throng_agent_valid(w, h[2]));
    free(good);
    throng_world_destroy(w);
    throng_world_destroy(plain);
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
    REGISTER(canonical_add_order_lattice_ties);
    REGISTER(canonical_tie_keys_padded);
    REGISTER(canonical_split_flock2d);
    REGISTER(canonical_split_every2d);
    REGISTER(agent_state_round_trip);
    REGISTER(agent_state_import_refusals);
    REGISTER(agent_state_import_keeps_plain_world);
    REGISTER(agents_batch_every2d);
    REGISTER(agents_batch_every3d);
    REGISTER(agents_batch_refusals);
    REGISTER(definition_hash);
}
