/* SPDX-License-Identifier: MIT */
/*
 * Column storage tests: what a plain world costs per agent, measured by
 * a counting allocator; the columns held as one row while uniform (mass
 * and the limits) get all their rows when a write makes them differ, by
 * an add, a setter, or a load, and give the same state bit for bit as a
 * world that always stored every row; the host-key array that the first
 * key makes; and refusals (bad input, no memory) that leave the world as
 * it was.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "columns.h"
#include "runner.h"

/* The budget for a plain 2D world, in heap bytes per agent. */
#define PLAIN_2D_BYTES_PER_AGENT 100.0

/* A periodic world of n default agents at random places and headings,
 * all of one kind, allocating through heap. */
static throng_world *plain_world(int dims, uint32_t n, ts_heap *heap,
                                 uint64_t seed, throng_agent *h) {
    throng_world_def d = ts_world_def(dims, 1, heap);
    ts_world_def_periodic(&d, dims == 3 ? 20.0f : 60.0f);
    d.neighbour_radius = 2.0f;
    d.initial_capacity = n;
    throng_world *w = ts_world_make(&d);
    if (!w)
        return NULL;
    test_rng rng = test_rng_make(seed);
    for (uint32_t i = 0; i < n; i++) {
        throng_agent_def a = throng_agent_def_default();
        for (int k = 0; k < dims; k++) {
            a.position[k] = test_rng_range(&rng, 0.0f, d.box_size[k]);
            a.velocity[k] = test_rng_range(&rng, -1.0f, 1.0f);
        }
        throng_agent out;
        if (throng_agent_add(w, &a, h ? &h[i] : &out) != THRONG_OK) {
            throng_world_destroy(w);
            return NULL;
        }
    }
    return w;
}

/* A plain 2D world of 100k agents, stepped and its columns read as a
 * renderer would, holds at most 100 bytes per agent, as the allocator
 * counts them, and throng_world_bytes says so too. */
TEST(columns_plain_2d_bytes_per_agent) {
    enum {
        N = 100000
    };
    ts_heap heap;
    memset(&heap, 0, sizeof heap);
    throng_world *w = plain_world(2, N, &heap, 0xb17e5ull, NULL);
    REQUIRE(w);
    for (int s = 0; s < 3; s++)
        REQUIRE_OK(throng_world_step(w, 1.0f / 30.0f));
    throng_columns c;
    REQUIRE_OK(throng_world_columns(w, &c));
    const double live = (double)heap.live / N;
    const double said = (double)throng_world_bytes(w) / N;
    if (live > PLAIN_2D_BYTES_PER_AGENT)
        runner_fail(__FILE__, __LINE__, "%.1f heap bytes per agent, over %g",
                    live, PLAIN_2D_BYTES_PER_AGENT);
    CHECK_NEAR(said / live, 1.0, 0.01);
    /* Where the bytes went: mass and both limits are one row each. */
    CHECK_EQ_U64(w->single, SINGLE_COLUMNS);
    CHECK(w->slot_keys == NULL);
    throng_world_destroy(w);
    CHECK_EQ_U64(heap.live, 0u);
}

/* Every agent's mass and limits as the getters give them, and the hash,
 * agree between a (single rows while uniform) and b (every row stored
 * from the start, as before single rows existed). */
static void same_agents(throng_world *a, const throng_agent *ha,
                        throng_world *b, const throng_agent *hb, uint32_t n,
                        int line) {
    for (uint32_t i = 0; i < n; i++) {
        throng_agent_def da, db;
        if (throng_agent_get_def(a, ha[i], &da) != THRONG_OK ||
            throng_agent_get_def(b, hb[i], &db) != THRONG_OK ||
            da.mass != db.mass || da.max_force != db.max_force ||
            da.max_speed != db.max_speed) {
            runner_fail(__FILE__, line, "agent %u differs", i);
            return;
        }
    }
    if (throng_world_hash(a) != throng_world_hash(b))
        runner_fail(__FILE__, line, "the hashes differ");
}

static void step_both(throng_world *a, throng_world *b, int steps) {
    for (int s = 0; s < steps; s++) {
        REQUIRE_OK(throng_world_step(a, 1.0f / 30.0f));
        REQUIRE_OK(throng_world_step(b, 1.0f / 30.0f));
    }
}

/* The single rows give their columns all their rows when a setter, then
 * an add, makes the rows differ, after steps moved the rows; the state
 * follows a world that stored every row all along, bit for bit. */
static void single_rows_unfold(int dims) {
    enum {
        N = 600
    };
    throng_agent ha[N + 1], hb[N + 1];
    throng_world *a = plain_world(dims, N, NULL, 0x51e9ull, ha);
    throng_world *b = plain_world(dims, N, NULL, 0x51e9ull, hb);
    REQUIRE(a && b);
    REQUIRE(world_unfold_columns(b) == 0);
    CHECK_EQ_U64(a->single, SINGLE_COLUMNS);
    CHECK_EQ_U64(b->single, 0u);
    same_agents(a, ha, b, hb, N, __LINE__);
    step_both(a, b, 5);
    same_agents(a, ha, b, hb, N, __LINE__);

    /* The same value again keeps the single row. */
    float mass = 0.0f;
    REQUIRE_OK(throng_agent_get_mass(a, ha[17], &mass));
    REQUIRE_OK(throng_agent_set_mass(a, ha[17], mass));
    CHECK_EQ_U64(a->single, SINGLE_COLUMNS);

    /* A different mass for one agent: the column gets its rows. */
    REQUIRE_OK(throng_agent_set_mass(a, ha[17], 2.5f * mass));
    REQUIRE_OK(throng_agent_set_mass(b, hb[17], 2.5f * mass));
    CHECK_EQ_U64(a->single, UNIFORM_MAX_FORCE | UNIFORM_MAX_SPEED);
    CHECK(!(a->uniform & UNIFORM_MASS));
    same_agents(a, ha, b, hb, N, __LINE__);
    step_both(a, b, 5);
    same_agents(a, ha, b, hb, N, __LINE__);

    /* An agent added with its own top speed. */
    throng_agent_def d = throng_agent_def_default();
    d.position[0] = d.position[1] = 3.0f;
    d.velocity[0] = 0.5f;
    d.max_speed = 7.0f;
    REQUIRE_OK(throng_agent_add(a, &d, &ha[N]));
    REQUIRE_OK(throng_agent_add(b, &d, &hb[N]));
    CHECK_EQ_U64(a->single, UNIFORM_MAX_FORCE);
    same_agents(a, ha, b, hb, N + 1, __LINE__);
    step_both(a, b, 5);
    same_agents(a, ha, b, hb, N + 1, __LINE__);

    /* Removing agents moves rows; the single row stays as it is. */
    REQUIRE_OK(throng_agent_remove(a, ha[3]));
    REQUIRE_OK(throng_agent_remove(b, hb[3]));
    ha[3] = ha[N];
    hb[3] = hb[N];
    step_both(a, b, 3);
    same_agents(a, ha, b, hb, N, __LINE__);
    throng_world_destroy(a);
    throng_world_destroy(b);
}

TEST(columns_single_rows_unfold_2d) {
    single_rows_unfold(2);
}

TEST(columns_single_rows_unfold_3d) {
    single_rows_unfold(3);
}

/* A world whose first agent is added alone, then a second with another
 * mass: the single row held the first agent's value. */
TEST(columns_single_rows_second_agent) {
    throng_world *w = ts_world(2, 1, NULL);
    REQUIRE(w);
    throng_agent h[2];
    throng_agent_def d = throng_agent_def_default();
    d.mass = 3.0f;
    REQUIRE_OK(throng_agent_add(w, &d, &h[0]));
    CHECK(w->single & UNIFORM_MASS);
    REQUIRE_OK(throng_agent_set_mass(w, h[0], 4.0f)); /* the only row */
    CHECK(w->single & UNIFORM_MASS);
    d.mass = 5.0f;
    REQUIRE_OK(throng_agent_add(w, &d, &h[1]));
    CHECK(!(w->single & UNIFORM_MASS));
    float m0 = 0.0f, m1 = 0.0f;
    REQUIRE_OK(throng_agent_get_mass(w, h[0], &m0));
    REQUIRE_OK(throng_agent_get_mass(w, h[1], &m1));
    CHECK(m0 == 4.0f && m1 == 5.0f);
    throng_world_destroy(w);
}

/* Saved and loaded, a world keeps its state, and the loaded world holds
 * as one row exactly the columns that are uniform. */
TEST(columns_single_rows_snapshot) {
    enum {
        N = 300
    };
    throng_agent h[N];
    throng_world *w = plain_world(2, N, NULL, 0x5a7eull, h);
    REQUIRE(w);
    REQUIRE_OK(throng_world_step(w, 1.0f / 30.0f));
    for (int round = 0; round < 2; round++) {
        size_t bytes = 0, written = 0;
        REQUIRE_OK(throng_world_snapshot_size(w, &bytes));
        void *buf = malloc(bytes);
        REQUIRE(buf);
        REQUIRE_OK(throng_world_save(w, buf, bytes, &written));
        throng_world_load_def ld = throng_world_load_def_default();
        throng_world *back = NULL;
        REQUIRE_OK(throng_world_load(buf, written, &ld, &back));
        free(buf);
        CHECK_EQ_U64(throng_world_hash(back), throng_world_hash(w));
        CHECK_EQ_U64(back->single, w->single);
        REQUIRE_OK(throng_world_step(w, 1.0f / 30.0f));
        REQUIRE_OK(throng_world_step(back, 1.0f / 30.0f));
        CHECK_EQ_U64(throng_world_hash(back), throng_world_hash(w));
        throng_world_destroy(back);
        /* The second round saves a world whose max force varies. */
        REQUIRE_OK(throng_agent_set_max_force(w, h[5], 9.0f));
        CHECK_EQ_U64(w->single, UNIFORM_MASS | UNIFORM_MAX_SPEED);
    }
    throng_world_destroy(w);
}

/* Refusals leave the world as it was: a bad mass, and a different mass
 * or a host key while the allocation they need is refused; once memory
 * is there, the same calls succeed. */
TEST(columns_refusals_leave_world) {
    enum {
        N = 200
    };
    ts_heap heap;
    memset(&heap, 0, sizeof heap);
    throng_agent h[N];
    throng_world *w = plain_world(2, N, &heap, 0x0badull, h);
    REQUIRE(w);
    REQUIRE_OK(throng_world_step(w, 1.0f / 30.0f));
    const uint64_t before = throng_world_hash(w);
    const size_t live = heap.live;

    CHECK(throng_agent_set_mass(w, h[9], -1.0f) != THRONG_OK);
    CHECK(throng_agent_set_max_speed(w, h[9], NAN) != THRONG_OK);
    CHECK_EQ_U64(w->single, SINGLE_COLUMNS);
    CHECK_EQ_U64(throng_world_hash(w), before);

    ts_heap_arm(&heap, 0, true);
    CHECK_EQ_INT(throng_agent_set_mass(w, h[9], 2.0f),
                 THRONG_ERR_OUT_OF_MEMORY);
    CHECK_EQ_INT(throng_agent_set_host_key(w, h[9], 77u),
                 THRONG_ERR_OUT_OF_MEMORY);
    throng_agent_def d = throng_agent_def_default();
    d.max_force = 0.25f;
    throng_agent extra;
    CHECK_EQ_INT(throng_agent_add(w, &d, &extra), THRONG_ERR_OUT_OF_MEMORY);
    d.max_force = throng_agent_def_default().max_force;
    d.host_key = 78u;
    CHECK_EQ_INT(throng_agent_add(w, &d, &extra), THRONG_ERR_OUT_OF_MEMORY);
    ts_heap_count(&heap);
    CHECK_EQ_U64(throng_world_hash(w), before);
    CHECK_EQ_U64(w->single, SINGLE_COLUMNS);
    CHECK(w->slot_keys == NULL);
    CHECK_EQ_U64(heap.live, live);
    CHECK_EQ_U64(throng_world_agent_count(w), N);

    REQUIRE_OK(throng_agent_set_mass(w, h[9], 2.0f));
    REQUIRE_OK(throng_agent_set_host_key(w, h[9], 77u));
    REQUIRE_OK(throng_agent_add(w, &d, &extra));
    float m = 0.0f;
    uint64_t key = 0;
    throng_agent found = THRONG_NULL_AGENT;
    REQUIRE_OK(throng_agent_get_mass(w, h[9], &m));
    REQUIRE_OK(throng_agent_get_host_key(w, h[9], &key));
    REQUIRE_OK(throng_agent_find(w, 78u, &found));
    CHECK(m == 2.0f && key == 77u && found.slot == extra.slot);
    CHECK(w->slot_keys != NULL);
    REQUIRE_OK(throng_world_step(w, 1.0f / 30.0f));
    throng_world_destroy(w);
    CHECK_EQ_U64(heap.live, 0u);
}

void register_columns_tests(void) {
    REGISTER(columns_plain_2d_bytes_per_agent);
    REGISTER(columns_single_rows_unfold_2d);
    REGISTER(columns_single_rows_unfold_3d);
    REGISTER(columns_single_rows_second_agent);
    REGISTER(columns_single_rows_snapshot);
    REGISTER(columns_refusals_leave_world);
}
