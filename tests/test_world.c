/* SPDX-License-Identifier: MIT */
/*
 * World, handle, host key, column and group tests: the bookkeeping half of
 * the API. The swap-remove test keeps a shadow list of live agents in the
 * test and checks the library against it after random adds and removes.
 */
#include <stdlib.h>
#include <string.h>

#include "runner.h"

static throng_world *world_make(int dimensions) {
    throng_world_def def = throng_world_def_default();
    def.max_dt = 10.0f; /* one tick per step: one step's formulas */
    def.dimensions = dimensions;
    throng_world *world = NULL;
    if (throng_world_create(&def, &world) != THRONG_OK)
        return NULL;
    return world;
}

static throng_status world_add_at(throng_world *world, float x, float y,
                                  float z, uint64_t key, throng_agent *out) {
    throng_agent_def def = throng_agent_def_default();
    def.position[0] = x;
    def.position[1] = y;
    def.position[2] = z;
    def.host_key = key;
    return throng_agent_add(world, &def, out);
}

TEST(world_defaults) {
    throng_world_def wd = throng_world_def_default();
    wd.max_dt = 10.0f; /* one tick per step: one step's formulas */
    CHECK_EQ_INT(wd.boundary, THRONG_BOUNDARY_UNBOUNDED);
    CHECK(wd.dimensions == 2 || wd.dimensions == 3);
    CHECK(wd.box_size[0] == 100.0f && wd.box_size[1] == 100.0f &&
          wd.box_size[2] == 100.0f);
    CHECK(wd.neighbour_radius == 1.0f);
    CHECK(wd.cell_size == 0.0f);
    CHECK_EQ_INT(wd.threads, 0);
    CHECK_EQ_U64(wd.seed, 1u);
    CHECK_EQ_INT(wd.initial_capacity, 0);

    throng_agent_def ad = throng_agent_def_default();
    for (int k = 0; k < 3; k++) {
        CHECK(ad.position[k] == 0.0f);
        CHECK(ad.velocity[k] == 0.0f);
    }
    CHECK(ad.mass == 1.0f);
    CHECK(ad.max_force == 10.0f);
    CHECK(ad.max_speed == 1.0f);
    CHECK(ad.radius == 0.25f);
    CHECK(same_group(ad.group, THRONG_NULL_GROUP));
    CHECK_EQ_U64(ad.host_key, 0u);

    throng_flocking fl = throng_flocking_default();
    CHECK(fl.separation_radius == 0.5f);
    CHECK(fl.separation_weight == 0.0f);
    CHECK(fl.alignment_radius == 1.0f);
    CHECK(fl.alignment_weight == 0.0f);
    CHECK(fl.cohesion_radius == 1.0f);
    CHECK(fl.cohesion_weight == 0.0f);
    CHECK_NEAR(fl.field_of_view, TEST_TWO_PI, 1e-6);
    CHECK(fl.speed_factor == 1.0f);
    CHECK_EQ_INT(fl.separation_mode, THRONG_SEPARATION_FLEE_AVERAGE);

    throng_group_def gd = throng_group_def_default();
    CHECK(gd.name == NULL);
    CHECK_EQ_INT(gd.combine, THRONG_COMBINE_WEIGHTED_AVERAGE);
    CHECK(memcmp(&gd.flocking, &fl, sizeof fl) == 0);
}

TEST(world_create_destroy) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *world = world_make(dims);
        REQUIRE(world != NULL);
        CHECK_EQ_INT(throng_world_dimensions(world), dims);
        CHECK_EQ_INT(throng_world_agent_count(world), 0);
        CHECK_EQ_U64(throng_world_step_count(world), 0u);
        CHECK(strcmp(throng_world_last_error(world), "") == 0);
        size_t empty_bytes = throng_world_bytes(world);
        CHECK(empty_bytes > 0u);
        throng_agent agent;
        for (int i = 0; i < 1000; i++)
            CHECK_OK(world_add_at(world, (float)i, 0.0f, 0.0f, 0u, &agent));
        CHECK_EQ_INT(throng_world_agent_count(world), 1000);
        CHECK(throng_world_bytes(world) > empty_bytes);
        /* Stepping an empty or full world is fine. */
        CHECK_OK(throng_world_step(world, 0.1f));
        CHECK_EQ_U64(throng_world_step_count(world), 1u);
        throng_world_destroy(world);
    }
    throng_world_destroy(NULL);

    throng_world *empty = world_make(3);
    REQUIRE(empty != NULL);
    CHECK_OK(throng_world_step(empty, 0.5f));
    CHECK_OK(throng_world_step(empty, 0.5f));
    CHECK_EQ_U64(throng_world_step_count(empty), 2u);
    throng_world_destroy(empty);
}

TEST(world_handle_lifecycle) {
    throng_world *world = world_make(2);
    REQUIRE(world != NULL);
    CHECK(!throng_agent_valid(world, THRONG_NULL_AGENT));

    throng_agent a, b, c;
    REQUIRE_OK(world_add_at(world, 1.0f, 2.0f, 0.0f, 0u, &a));
    CHECK(a.slot >= 1u);
    CHECK(a.generation >= 1u);
    CHECK(throng_agent_valid(world, a));
    REQUIRE_OK(world_add_at(world, 3.0f, 4.0f, 0.0f, 0u, &c));
    CHECK(!test_handle_eq(a, c));

    CHECK_OK(throng_agent_remove(world, a));
    CHECK(!throng_agent_valid(world, a));
    CHECK_EQ_INT(throng_world_agent_count(world), 1);
    CHECK_STATUS(throng_agent_remove(world, a), THRONG_ERR_STALE_HANDLE);
    float pos[3];
    CHECK_STATUS(throng_agent_get_position(world, a, pos),
                 THRONG_ERR_STALE_HANDLE);
    CHECK(strlen(throng_world_last_error(world)) > 0u);

    /* The other agent is untouched by the removal. */
    CHECK_OK(throng_agent_get_position(world, c, pos));
    CHECK(pos[0] == 3.0f && pos[1] == 4.0f);

    /* A new agent may reuse the slot, but never the handle. */
    REQUIRE_OK(world_add_at(world, 5.0f, 6.0f, 0.0f, 0u, &b));
    CHECK(!test_handle_eq(a, b));
    if (b.slot == a.slot)
        CHECK(b.generation != a.generation);
    CHECK(b.generation >= 1u);
    CHECK(!throng_agent_valid(world, a));
    CHECK_STATUS(throng_agent_get_position(world, a, pos),
                 THRONG_ERR_STALE_HANDLE);
    CHECK_STATUS(throng_agent_remove(world, a), THRONG_ERR_STALE_HANDLE);
    CHECK_OK(throng_agent_get_position(world, b, pos));
    CHECK(pos[0] == 5.0f && pos[1] == 6.0f);
    CHECK_EQ_INT(throng_world_agent_count(world), 2);

    /* Repeated reuse of one slot: every handle ever issued stays dead. */
    throng_agent old[50];
    int old_count = 0;
    for (int i = 0; i < 50; i++) {
        throng_agent h;
        REQUIRE_OK(world_add_at(world, (float)i, 0.0f, 0.0f, 0u, &h));
        for (int k = 0; k < old_count; k++)
            CHECK(!test_handle_eq(h, old[k]));
        CHECK_OK(throng_agent_remove(world, h));
        old[old_count++] = h;
    }
    for (int k = 0; k < old_count; k++)
        CHECK(!throng_agent_valid(world, old[k]));
    CHECK(throng_agent_valid(world, b));
    CHECK(throng_agent_valid(world, c));
    throng_world_destroy(world);
}

TEST(world_forged_handles) {
    throng_world *world = world_make(3);
    REQUIRE(world != NULL);
    throng_agent h[4];
    for (int i = 0; i < 4; i++)
        REQUIRE_OK(world_add_at(world, (float)i, 0.0f, 0.0f, 0u, &h[i]));

    throng_agent forged[] = {
        THRONG_NULL_AGENT,
        { 0u, 1u, h[0].world },
        { 0u, h[0].generation, h[0].world },
        { h[3].slot + 1000u, 1u, h[0].world },
        { UINT32_MAX, 1u, h[0].world },
        { UINT32_MAX, UINT32_MAX, h[0].world },
        { h[1].slot, h[1].generation + 1u, h[0].world },
        { h[1].slot, h[1].generation + 1000u, h[0].world },
        { h[1].slot, 0u, h[0].world },
        { h[1].slot, h[1].generation, 0u },
        { h[1].slot, h[1].generation, h[0].world + 1u },
    };
    int count = (int)(sizeof forged / sizeof forged[0]);
    for (int i = 0; i < count; i++) {
        bool same = false;
        for (int k = 0; k < 4; k++)
            same = same || test_handle_eq(forged[i], h[k]);
        if (same)
            continue; /* the forgery happened to be real; skip it */
        uint64_t hash = throng_world_hash(world);
        CHECK(!throng_agent_valid(world, forged[i]));
        float v[3] = { 1.0f, 0.0f, 0.0f };
        uint32_t index = 0;
        CHECK_STATUS(throng_agent_set_velocity(world, forged[i], v),
                     THRONG_ERR_STALE_HANDLE);
        CHECK_STATUS(throng_agent_index(world, forged[i], &index),
                     THRONG_ERR_STALE_HANDLE);
        CHECK_STATUS(throng_agent_remove(world, forged[i]),
                     THRONG_ERR_STALE_HANDLE);
        CHECK_EQ_U64(throng_world_hash(world), hash);
        CHECK_EQ_INT(throng_world_agent_count(world), 4);
    }
    throng_world_destroy(world);
}

TEST(world_foreign_handles) {
    throng_world *world_a = world_make(2);
    throng_world *world_b = world_make(2);
    REQUIRE(world_a != NULL && world_b != NULL);
    throng_agent in_a[64];
    for (int i = 0; i < 64; i++)
        REQUIRE_OK(world_add_at(world_a, (float)i, 1.0f, 0.0f, 0u, &in_a[i]));
    throng_agent in_b[3];
    for (int i = 0; i < 3; i++)
        REQUIRE_OK(world_add_at(world_b, (float)i, 2.0f, 0.0f, 0u, &in_b[i]));
    /* Reuse B's first slot so its generation differs from A's first. */
    REQUIRE_OK(throng_agent_remove(world_b, in_b[0]));
    REQUIRE_OK(world_add_at(world_b, 9.0f, 9.0f, 0.0f, 0u, &in_b[0]));

    uint64_t hash_b = throng_world_hash(world_b);
    int refused = 0;
    for (int i = 0; i < 64; i++) {
        bool live_in_b = false;
        for (int k = 0; k < 3; k++)
            live_in_b = live_in_b || test_handle_eq(in_a[i], in_b[k]);
        if (live_in_b)
            continue; /* never: handles carry their world's id */
        refused++;
        CHECK(!throng_agent_valid(world_b, in_a[i]));
        float pos[3];
        CHECK_STATUS(throng_agent_get_position(world_b, in_a[i], pos),
                     THRONG_ERR_STALE_HANDLE);
        CHECK_STATUS(throng_agent_set_position(world_b, in_a[i], pos),
                     THRONG_ERR_STALE_HANDLE);
        CHECK_STATUS(throng_agent_remove(world_b, in_a[i]),
                     THRONG_ERR_STALE_HANDLE);
    }
    CHECK_EQ_INT(refused, 64);
    CHECK_EQ_U64(throng_world_hash(world_b), hash_b);
    CHECK_EQ_INT(throng_world_agent_count(world_b), 3);
    throng_world_destroy(world_a);
    throng_world_destroy(world_b);
}

/* One live agent as the test remembers it. */
typedef struct shadow_agent {
    throng_agent handle;
    float position[3];
    uint64_t key;
} shadow_agent;

static void shadow_check_all(throng_world *world, const shadow_agent *live,
                             int live_count, const throng_agent *dead,
                             int dead_count, int dims) {
    CHECK_EQ_INT(throng_world_agent_count(world), live_count);
    throng_columns cols;
    CHECK_OK(throng_world_columns(world, &cols));
    CHECK_EQ_INT(cols.count, live_count);
    bool *row_seen = calloc((size_t)live_count + 1u, sizeof *row_seen);
    for (int i = 0; i < live_count; i++) {
        const shadow_agent *s = &live[i];
        float pos[3];
        if (throng_agent_get_position(world, s->handle, pos) != THRONG_OK) {
            runner_fail(__FILE__, __LINE__, "live handle {%u,%u} refused",
                        s->handle.slot, s->handle.generation);
            continue;
        }
        if (pos[0] != s->position[0] || pos[1] != s->position[1] ||
            (dims == 3 && pos[2] != s->position[2]))
            runner_fail(__FILE__, __LINE__,
                        "handle {%u,%u} at (%g,%g,%g), want (%g,%g,%g)",
                        s->handle.slot, s->handle.generation, (double)pos[0],
                        (double)pos[1], (double)pos[2], (double)s->position[0],
                        (double)s->position[1], (double)s->position[2]);
        uint32_t index = UINT32_MAX;
        CHECK_OK(throng_agent_index(world, s->handle, &index));
        if (index >= (uint32_t)live_count) {
            runner_fail(__FILE__, __LINE__, "index %u out of %d", index,
                        live_count);
            continue;
        }
        CHECK(!row_seen[index]);
        row_seen[index] = true;
        throng_agent back = THRONG_NULL_AGENT;
        CHECK_OK(throng_agent_at(world, index, &back));
        CHECK(test_handle_eq(back, s->handle));
        CHECK(cols.px[index] == s->position[0]);
        CHECK(cols.py[index] == s->position[1]);
        if (dims == 3)
            CHECK(cols.pz[index] == s->position[2]);
        if (s->key != 0u) {
            throng_agent found = THRONG_NULL_AGENT;
            CHECK_OK(throng_agent_find(world, s->key, &found));
            CHECK(test_handle_eq(found, s->handle));
        }
    }
    free(row_seen);
    for (int i = 0; i < dead_count; i++)
        CHECK(!throng_agent_valid(world, dead[i]));
}

TEST(world_swap_remove_shadow) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *world = world_make(dims);
        REQUIRE(world != NULL);
        test_rng rng = test_rng_make(100u + (uint64_t)dims);
        enum {
            MAX_LIVE = 700,
            MAX_DEAD = 4000
        };
        shadow_agent *live = calloc(MAX_LIVE, sizeof *live);
        throng_agent *dead = calloc(MAX_DEAD, sizeof *dead);
        uint64_t *dead_keys = calloc(MAX_DEAD, sizeof *dead_keys);
        int live_count = 0, dead_count = 0;
        uint32_t next_id = 1;
        for (int op = 0; op < 3000 && runner_failures() < 8u; op++) {
            uint32_t dice = test_rng_below(&rng, 100u);
            bool can_add = live_count < MAX_LIVE;
            bool can_remove = live_count > 0 && dead_count < MAX_DEAD;
            if (can_add && (dice < 55u || !can_remove)) {
                shadow_agent s;
                uint32_t id = next_id++;
                s.position[0] = (float)id;
                s.position[1] = (float)id * 0.5f;
                s.position[2] = dims == 3 ? -(float)id : 0.0f;
                /* Every third agent has no key; keys of removed agents are
                 * sometimes reused. */
                if (id % 3u == 0u)
                    s.key = 0u;
                else
                    s.key = 1000000u + id;
                if (s.key != 0u && dead_count > 0 &&
                    dead_keys[dead_count - 1] != 0u &&
                    test_rng_below(&rng, 4u) == 0u) {
                    bool taken = false;
                    for (int k = 0; k < live_count; k++)
                        taken =
                            taken || live[k].key == dead_keys[dead_count - 1];
                    if (!taken)
                        s.key = dead_keys[dead_count - 1];
                }
                throng_status st =
                    world_add_at(world, s.position[0], s.position[1],
                                 s.position[2], s.key, &s.handle);
                if (st != THRONG_OK) {
                    runner_fail(__FILE__, __LINE__, "add %u: %s", id,
                                throng_status_string(st));
                    continue;
                }
                for (int k = 0; k < live_count; k++)
                    CHECK(!test_handle_eq(live[k].handle, s.handle));
                live[live_count++] = s;
            } else if (can_remove) {
                int victim = (int)test_rng_below(&rng, (uint32_t)live_count);
                CHECK_OK(throng_agent_remove(world, live[victim].handle));
                if (live[victim].key != 0u) {
                    throng_agent found;
                    CHECK_STATUS(
                        throng_agent_find(world, live[victim].key, &found),
                        THRONG_ERR_NOT_FOUND);
                }
                dead_keys[dead_count] = live[victim].key;
                dead[dead_count++] = live[victim].handle;
                live[victim] = live[--live_count];
            }
            if (op % 97 == 0 && live_count > 0) {
                /* A move through a setter is tracked too. */
                int who = (int)test_rng_below(&rng, (uint32_t)live_count);
                live[who].position[0] += 0.25f;
                CHECK_OK(throng_agent_set_position(world, live[who].handle,
                                                   live[who].position));
            }
            if (op % 250 == 0 || op == 2999)
                shadow_check_all(world, live, live_count, dead, dead_count,
                                 dims);
        }
        /* Remove everything, then the world is empty and all handles dead. */
        while (live_count > 0) {
            CHECK_OK(throng_agent_remove(world, live[live_count - 1].handle));
            live_count--;
        }
        CHECK_EQ_INT(throng_world_agent_count(world), 0);
        shadow_check_all(world, live, 0, dead, dead_count, dims);
        free(live);
        free(dead);
        free(dead_keys);
        throng_world_destroy(world);
    }
}

TEST(world_host_keys) {
    throng_world *world = world_make(2);
    REQUIRE(world != NULL);
    throng_agent a, b, c, found;
    REQUIRE_OK(world_add_at(world, 1.0f, 0.0f, 0.0f, 11u, &a));
    REQUIRE_OK(world_add_at(world, 2.0f, 0.0f, 0.0f, 22u, &b));
    REQUIRE_OK(world_add_at(world, 3.0f, 0.0f, 0.0f, 0u, &c));
    /* Several agents without key are fine. */
    throng_agent d;
    REQUIRE_OK(world_add_at(world, 4.0f, 0.0f, 0.0f, 0u, &d));

    CHECK_OK(throng_agent_find(world, 11u, &found));
    CHECK(test_handle_eq(found, a));
    CHECK_OK(throng_agent_find(world, 22u, &found));
    CHECK(test_handle_eq(found, b));
    CHECK_STATUS(throng_agent_find(world, 33u, &found), THRONG_ERR_NOT_FOUND);
    CHECK(throng_agent_find(world, 0u, &found) != THRONG_OK);

    /* Duplicate key on add: refused, nothing added. */
    throng_agent dup;
    CHECK_STATUS(world_add_at(world, 5.0f, 0.0f, 0.0f, 11u, &dup),
                 THRONG_ERR_DUPLICATE_KEY);
    CHECK_EQ_INT(throng_world_agent_count(world), 4);
    CHECK(strlen(throng_world_last_error(world)) > 0u);

    /* set_host_key: another agent's key refused, own key fine, new key. */
    CHECK_STATUS(throng_agent_set_host_key(world, c, 22u),
                 THRONG_ERR_DUPLICATE_KEY);
    uint64_t key = 99u;
    CHECK_OK(throng_agent_get_host_key(world, c, &key));
    CHECK_EQ_U64(key, 0u);
    CHECK_OK(throng_agent_set_host_key(world, a, 11u));
    CHECK_OK(throng_agent_set_host_key(world, c, 33u));
    CHECK_OK(throng_agent_find(world, 33u, &found));
    CHECK(test_handle_eq(found, c));
    CHECK_OK(throng_agent_get_host_key(world, c, &key));
    CHECK_EQ_U64(key, 33u);

    /* Changing a key frees the old one. */
    CHECK_OK(throng_agent_set_host_key(world, a, 44u));
    CHECK_STATUS(throng_agent_find(world, 11u, &found), THRONG_ERR_NOT_FOUND);
    CHECK_OK(throng_agent_find(world, 44u, &found));
    CHECK(test_handle_eq(found, a));
    CHECK_OK(throng_agent_set_host_key(world, d, 11u));
    CHECK_OK(throng_agent_find(world, 11u, &found));
    CHECK(test_handle_eq(found, d));

    /* Clearing with 0. */
    CHECK_OK(throng_agent_set_host_key(world, d, 0u));
    CHECK_STATUS(throng_agent_find(world, 11u, &found), THRONG_ERR_NOT_FOUND);
    CHECK_OK(throng_agent_get_host_key(world, d, &key));
    CHECK_EQ_U64(key, 0u);

    /* Removal frees the key; a new agent can take it; lookups of others
     * survive the swap-remove. */
    CHECK_OK(throng_agent_remove(world, b));
    CHECK_STATUS(throng_agent_find(world, 22u, &found), THRONG_ERR_NOT_FOUND);
    throng_agent e;
    CHECK_OK(world_add_at(world, 6.0f, 0.0f, 0.0f, 22u, &e));
    CHECK_OK(throng_agent_find(world, 22u, &found));
    CHECK(test_handle_eq(found, e));
    CHECK_OK(throng_agent_find(world, 33u, &found));
    CHECK(test_handle_eq(found, c));
    CHECK_OK(throng_agent_find(world, 44u, &found));
    CHECK(test_handle_eq(found, a));
    float pos[3];
    CHECK_OK(throng_agent_get_position(world, found, pos));
    CHECK(pos[0] == 1.0f);

    /* Big keys work too. */
    CHECK_OK(throng_agent_set_host_key(world, e, UINT64_MAX));
    CHECK_OK(throng_agent_find(world, UINT64_MAX, &found));
    CHECK(test_handle_eq(found, e));
    throng_world_destroy(world);
}

TEST(world_columns_zero_copy) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *world = world_make(dims);
        REQUIRE(world != NULL);
        throng_agent h[10];
        for (int i = 0; i < 10; i++) {
            throng_agent_def def = throng_agent_def_default();
            def.position[0] = (float)i;
            def.position[1] = (float)(2 * i);
            def.position[2] = (float)(3 * i);
            def.velocity[0] = 0.5f;
            def.max_speed = 2.0f;
            REQUIRE_OK(throng_agent_add(world, &def, &h[i]));
        }
        throng_columns cols;
        REQUIRE_OK(throng_world_columns(world, &cols));
        CHECK_EQ_INT(cols.count, 10);
        REQUIRE(cols.px && cols.py && cols.vx && cols.vy && cols.fx && cols.fy);
        if (dims == 2) {
            CHECK(cols.pz == NULL && cols.vz == NULL && cols.fz == NULL);
            CHECK(cols.ux == NULL && cols.uy == NULL && cols.uz == NULL);
        } else {
            REQUIRE(cols.pz && cols.vz && cols.fz && cols.ux && cols.uy &&
                    cols.uz);
        }
        for (uint32_t i = 0; i < cols.count; i++) {
            throng_agent at;
            CHECK_OK(throng_agent_at(world, i, &at));
            float p[3], v[3], f[3], u[3], s[3];
            CHECK_OK(throng_agent_get_position(world, at, p));
            CHECK_OK(throng_agent_get_velocity(world, at, v));
            CHECK_OK(throng_agent_get_basis(world, at, f, u, s));
            CHECK(cols.px[i] == p[0] && cols.py[i] == p[1]);
            CHECK(cols.vx[i] == v[0] && cols.vy[i] == v[1]);
            CHECK(cols.fx[i] == f[0] && cols.fy[i] == f[1]);
            if (dims == 3) {
                CHECK(cols.pz[i] == p[2] && cols.vz[i] == v[2]);
                CHECK(cols.fz[i] == f[2]);
                CHECK(cols.ux[i] == u[0] && cols.uy[i] == u[1] &&
                      cols.uz[i] == u[2]);
            }
        }
        /* Setters and queries change values in place, never the pointers
         * or the row order. */
        uint32_t row;
        REQUIRE_OK(throng_agent_index(world, h[4], &row));
        float np[3] = { -7.0f, 8.5f, 9.25f };
        CHECK_OK(throng_agent_set_position(world, h[4], np));
        CHECK(cols.px[row] == -7.0f && cols.py[row] == 8.5f);
        if (dims == 3)
            CHECK(cols.pz[row] == 9.25f);
        float nv[3] = { 0.0f, -1.5f, 0.5f };
        CHECK_OK(throng_agent_set_velocity(world, h[4], nv));
        CHECK(cols.vx[row] == 0.0f && cols.vy[row] == -1.5f);
        uint32_t found = 0;
        CHECK_OK(
            throng_world_query_radius(world, np, 3.0f, NULL, 0u, &found, NULL));
        throng_columns again;
        CHECK_OK(throng_world_columns(world, &again));
        CHECK(again.px == cols.px && again.py == cols.py &&
              again.vx == cols.vx && again.fx == cols.fx);
        uint32_t row_again = UINT32_MAX;
        CHECK_OK(throng_agent_index(world, h[4], &row_again));
        CHECK_EQ_INT(row_again, row);

        /* A step may reorder rows and move the columns: fetched again,
         * every row still matches its agent. */
        CHECK_OK(throng_world_step(world, 1.0f));
        CHECK_OK(throng_world_columns(world, &cols));
        CHECK_EQ_INT(cols.count, 10);
        for (int i = 0; i < 10; i++) {
            uint32_t r = UINT32_MAX;
            CHECK_OK(throng_agent_index(world, h[i], &r));
            if (r >= cols.count)
                continue;
            throng_agent at = THRONG_NULL_AGENT;
            CHECK_OK(throng_agent_at(world, r, &at));
            CHECK(test_handle_eq(at, h[i]));
            float want_x = i == 4 ? -7.0f : (float)i + 0.5f;
            float want_y = i == 4 ? 8.5f - 1.5f : (float)(2 * i);
            CHECK(cols.px[r] == want_x && cols.py[r] == want_y);
            CHECK(cols.vy[r] == (i == 4 ? -1.5f : 0.0f));
            float p[3];
            CHECK_OK(throng_agent_get_position(world, h[i], p));
            CHECK(p[0] == cols.px[r] && p[1] == cols.py[r]);
            if (dims == 3) {
                float want_z = i == 4 ? 9.25f + 0.5f : (float)(3 * i);
                CHECK(cols.pz[r] == want_z);
            }
        }
        throng_world_destroy(world);
    }
}

TEST(world_getters_setters_roundtrip) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *world = world_make(dims);
        REQUIRE(world != NULL);
        throng_group_def gd = throng_group_def_default();
        throng_group group = THRONG_NULL_GROUP;
        REQUIRE_OK(throng_group_create(world, &gd, &group));
        CHECK(group.id > 0u && group.generation == 1u);

        throng_agent_def def = throng_agent_def_default();
        def.position[0] = 1.5f;
        def.position[1] = -2.25f;
        def.position[2] = 3.125f;
        def.velocity[0] = 0.0f;
        def.velocity[1] = 3.0f; /* above max_speed: kept until a step */
        def.velocity[2] = 4.0f;
        def.mass = 2.5f;
        def.max_force = 7.0f;
        def.max_speed = 1.5f;
        def.radius = 0.75f;
        def.group = group;
        def.host_key = 0xABCDEF0123ull;
        throng_agent a;
        REQUIRE_OK(throng_agent_add(world, &def, &a));

        float zw = dims == 3 ? 1.0f : 0.0f; /* 2D reads z as 0 */
        throng_agent_def got;
        REQUIRE_OK(throng_agent_get_def(world, a, &got));
        CHECK(got.position[0] == 1.5f && got.position[1] == -2.25f);
        CHECK(got.position[2] == 3.125f * zw);
        CHECK(got.velocity[0] == 0.0f && got.velocity[1] == 3.0f);
        CHECK(got.velocity[2] == 4.0f * zw);
        CHECK(got.mass == 2.5f && got.max_force == 7.0f);
        CHECK(got.max_speed == 1.5f && got.radius == 0.75f);
        CHECK(same_group(got.group, group));
        CHECK_EQ_U64(got.host_key, 0xABCDEF0123ull);

        /* Initial heading: the velocity's direction. */
        float f[3], u[3], s[3];
        CHECK_OK(throng_agent_get_basis(world, a, f, u, s));
        if (dims == 3) {
            CHECK_NEAR(f[0], 0.0f, 1e-6);
            CHECK_NEAR(f[1], 0.6f, 1e-6);
            CHECK_NEAR(f[2], 0.8f, 1e-6);
        } else {
            CHECK_NEAR(f[0], 0.0f, 1e-6);
            CHECK_NEAR(f[1], 1.0f, 1e-6);
            CHECK_NEAR(f[2], 0.0f, 1e-6);
            CHECK(u[0] == 0.0f && u[1] == 0.0f && u[2] == 1.0f);
        }

        float v3[3];
        float p_in[3] = { -4.0f, 5.5f, -6.75f };
        CHECK_OK(throng_agent_set_position(world, a, p_in));
        CHECK_OK(throng_agent_get_position(world, a, v3));
        CHECK(v3[0] == -4.0f && v3[1] == 5.5f && v3[2] == -6.75f * zw);
        float v_in[3] = { 0.25f, -0.5f, 0.125f };
        CHECK_OK(throng_agent_set_velocity(world, a, v_in));
        CHECK_OK(throng_agent_get_velocity(world, a, v3));
        CHECK(v3[0] == 0.25f && v3[1] == -0.5f && v3[2] == 0.125f * zw);

        float x = 0.0f;
        CHECK_OK(throng_agent_set_mass(world, a, 0.125f));
        CHECK_OK(throng_agent_get_mass(world, a, &x));
        CHECK(x == 0.125f);
        CHECK_OK(throng_agent_set_max_force(world, a, 0.0f));
        CHECK_OK(throng_agent_get_max_force(world, a, &x));
        CHECK(x == 0.0f);
        CHECK_OK(throng_agent_set_max_force(world, a, 123.5f));
        CHECK_OK(throng_agent_get_max_force(world, a, &x));
        CHECK(x == 123.5f);
        CHECK_OK(throng_agent_set_max_speed(world, a, 0.0f));
        CHECK_OK(throng_agent_get_max_speed(world, a, &x));
        CHECK(x == 0.0f);
        CHECK_OK(throng_agent_set_max_speed(world, a, 9.75f));
        CHECK_OK(throng_agent_get_max_speed(world, a, &x));
        CHECK(x == 9.75f);
        CHECK_OK(throng_agent_set_radius(world, a, 0.0f));
        CHECK_OK(throng_agent_get_radius(world, a, &x));
        CHECK(x == 0.0f);
        CHECK_OK(throng_agent_set_radius(world, a, 2.0f));
        CHECK_OK(throng_agent_get_radius(world, a, &x));
        CHECK(x == 2.0f);
        throng_group g = { 77u, 77u, 77u };
        CHECK_OK(throng_agent_set_group(world, a, THRONG_NULL_GROUP));
        CHECK_OK(throng_agent_get_group(world, a, &g));
        CHECK(same_group(g, default_group(world)));
        CHECK(g.id == 0u && g.generation == 1u &&
              g.world == throng_world_id(world));
        CHECK_OK(throng_agent_set_group(world, a, group));
        CHECK_OK(throng_agent_get_group(world, a, &g));
        CHECK(same_group(g, group));
        uint64_t key = 0;
        CHECK_OK(throng_agent_set_host_key(world, a, 5u));
        CHECK_OK(throng_agent_get_host_key(world, a, &key));
        CHECK_EQ_U64(key, 5u);

        CHECK_OK(throng_agent_get_def(world, a, &got));
        CHECK(got.position[0] == -4.0f && got.velocity[1] == -0.5f);
        CHECK(got.mass == 0.125f && got.max_force == 123.5f);
        CHECK(got.max_speed == 9.75f && got.radius == 2.0f);
        CHECK(same_group(got.group, group));
        CHECK_EQ_U64(got.host_key, 5u);

        /* An agent added at rest faces +x. */
        throng_agent rest;
        throng_agent_def rd = throng_agent_def_default();
        REQUIRE_OK(throng_agent_add(world, &rd, &rest));
        CHECK_OK(throng_agent_get_basis(world, rest, f, u, s));
        CHECK(f[0] == 1.0f && f[1] == 0.0f && f[2] == 0.0f);
        throng_world_destroy(world);
    }
}

TEST(world_groups) {
    throng_world *world = world_make(3);
    REQUIRE(world != NULL);
    throng_group id = { 99u, 99u, 99u };
    CHECK_OK(throng_group_find(world, "default", &id));
    CHECK(id.id == 0u && id.generation == 1u &&
          id.world == throng_world_id(world));

    throng_group_def gd = throng_group_def_default();
    gd.name = "birds";
    gd.flocking.alignment_weight = 2.0f;
    gd.flocking.cohesion_radius = 0.75f;
    gd.flocking.field_of_view = 3.0f;
    gd.flocking.speed_factor = 0.5f;
    gd.flocking.separation_mode = THRONG_SEPARATION_INVERSE_DISTANCE;
    gd.combine = THRONG_COMBINE_WEIGHTED_SUM;
    throng_group birds = THRONG_NULL_GROUP, fish = THRONG_NULL_GROUP;
    throng_group anon1 = THRONG_NULL_GROUP, anon2 = THRONG_NULL_GROUP;
    REQUIRE_OK(throng_group_create(world, &gd, &birds));
    CHECK(birds.id == 1u && birds.generation == 1u);
    char name[8];
    strcpy(name, "fish");
    gd.name = name;
    REQUIRE_OK(throng_group_create(world, &gd, &fish));
    strcpy(name, "XXXX"); /* the name was copied */
    CHECK(fish.id == 2u && fish.generation == 1u);

    gd.name = NULL;
    CHECK_OK(throng_group_create(world, &gd, &anon1));
    CHECK_OK(throng_group_create(world, &gd, &anon2));
    CHECK(anon1.id == 3u && anon2.id == 4u);

    CHECK_OK(throng_group_find(world, "birds", &id));
    CHECK(same_group(id, birds));
    CHECK_OK(throng_group_find(world, "fish", &id));
    CHECK(same_group(id, fish));
    CHECK_STATUS(throng_group_find(world, "XXXX", &id), THRONG_ERR_NOT_FOUND);
    CHECK_STATUS(throng_group_find(world, "bird", &id), THRONG_ERR_NOT_FOUND);

    /* Duplicate names refused, "default" included. */
    throng_group dup = { 12345u, 0u, 0u };
    gd.name = "birds";
    CHECK_STATUS(throng_group_create(world, &gd, &dup),
                 THRONG_ERR_DUPLICATE_KEY);
    gd.name = "default";
    CHECK_STATUS(throng_group_create(world, &gd, &dup),
                 THRONG_ERR_DUPLICATE_KEY);

    /* Names of 63 bytes are fine, 64 are not. */
    char long_name[70];
    memset(long_name, 'n', sizeof long_name);
    long_name[63] = '\0';
    gd.name = long_name;
    throng_group long_id = THRONG_NULL_GROUP;
    CHECK_OK(throng_group_create(world, &gd, &long_id));
    CHECK_OK(throng_group_find(world, long_name, &id));
    CHECK(same_group(id, long_id));
    long_name[63] = 'm';
    long_name[64] = '\0';
    CHECK_STATUS(throng_group_create(world, &gd, &dup),
                 THRONG_ERR_OUT_OF_RANGE);

    /* Flocking parameters round-trip. */
    throng_flocking fl;
    CHECK_OK(throng_group_get_flocking(world, birds, &fl));
    CHECK(fl.alignment_weight == 2.0f && fl.cohesion_radius == 0.75f);
    CHECK(fl.field_of_view == 3.0f && fl.speed_factor == 0.5f);
    CHECK_EQ_INT(fl.separation_mode, THRONG_SEPARATION_INVERSE_DISTANCE);
    fl.separation_weight = 1.25f;
    fl.separation_radius = 0.25f;
    fl.separation_mode = THRONG_SEPARATION_FLEE_AVERAGE;
    CHECK_OK(throng_group_set_flocking(world, birds, &fl));
    throng_flocking back;
    CHECK_OK(throng_group_get_flocking(world, birds, &back));
    CHECK(memcmp(&back, &fl, sizeof fl) == 0);
    CHECK_OK(throng_group_set_combine(world, birds,
                                      THRONG_COMBINE_WEIGHTED_AVERAGE));
    /* The default group has no behaviour. */
    CHECK_OK(throng_group_get_flocking(world, default_group(world), &fl));
    CHECK(fl.separation_weight == 0.0f && fl.alignment_weight == 0.0f &&
          fl.cohesion_weight == 0.0f);

    /* Unknown groups are refused everywhere. */
    /* Ids never handed out, a live id with a wrong generation, the null
     * handle, and another world's id. */
    const uint64_t here = throng_world_id(world);
    throng_group unknown[] = {
        { long_id.id + 1u, 1u, here },   { long_id.id + 100u, 1u, here },
        { THRONG_MAX_GROUPS, 1u, here }, { UINT32_MAX, 1u, here },
        { long_id.id, 2u, here },        { long_id.id, 0u, here },
        { long_id.id, 1u, here + 1000u }
    };
    throng_agent a;
    throng_agent_def ad = throng_agent_def_default();
    REQUIRE_OK(throng_agent_add(world, &ad, &a));
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        CHECK_STATUS(throng_group_get_flocking(world, unknown[i], &fl),
                     THRONG_ERR_STALE_HANDLE);
        CHECK_STATUS(throng_group_set_flocking(world, unknown[i], &back),
                     THRONG_ERR_STALE_HANDLE);
        CHECK_STATUS(throng_group_set_combine(world, unknown[i],
                                              THRONG_COMBINE_WEIGHTED_SUM),
                     THRONG_ERR_STALE_HANDLE);
        CHECK_STATUS(throng_agent_set_group(world, a, unknown[i]),
                     THRONG_ERR_STALE_HANDLE);
        throng_agent_def bad = throng_agent_def_default();
        bad.group = unknown[i];
        throng_agent b;
        CHECK_STATUS(throng_agent_add(world, &bad, &b),
                     THRONG_ERR_STALE_HANDLE);
    }
    CHECK_EQ_INT(throng_world_agent_count(world), 1);
    throng_group g = { 99u, 99u, 99u };
    CHECK_OK(throng_agent_get_group(world, a, &g));
    CHECK(same_group(g, default_group(world)));

    /* Groups are per world. */
    throng_world *other = world_make(3);
    REQUIRE(other != NULL);
    CHECK_STATUS(throng_group_find(other, "birds", &id), THRONG_ERR_NOT_FOUND);
    CHECK_STATUS(throng_group_get_flocking(other, birds, &fl),
                 THRONG_ERR_STALE_HANDLE);
    throng_world_destroy(other);
    throng_world_destroy(world);
}

static throng_world *hash_world(void) {
    throng_world *world = world_make(3);
    if (!world)
        return NULL;
    for (int i = 0; i < 20; i++) {
        throng_agent_def def = throng_agent_def_default();
        def.position[0] = (float)i * 0.3f;
        def.position[1] = (float)(i % 4);
        def.velocity[2] = 0.1f * (float)i;
        def.max_speed = 3.0f;
        def.host_key = (uint64_t)i + 1u;
        throng_agent a;
        if (throng_agent_add(world, &def, &a) != THRONG_OK) {
            throng_world_destroy(world);
            return NULL;
        }
    }
    return world;
}

TEST(world_hash) {
    throng_world *w1 = hash_world();
    throng_world *w2 = hash_world();
    REQUIRE(w1 != NULL && w2 != NULL);
    uint64_t h0 = throng_world_hash(w1);
    CHECK_EQ_U64(throng_world_hash(w2), h0);
    CHECK_EQ_U64(throng_world_hash(w1), h0); /* reading changes nothing */

    throng_agent a;
    REQUIRE_OK(throng_agent_at(w1, 7u, &a));
    float v[3], old_v[3];
    REQUIRE_OK(throng_agent_get_velocity(w1, a, old_v));
    v[0] = old_v[0] + 0.5f;
    v[1] = old_v[1];
    v[2] = old_v[2];
    CHECK_OK(throng_agent_set_velocity(w1, a, v));
    CHECK(throng_world_hash(w1) != h0);
    CHECK_OK(throng_agent_set_velocity(w1, a, old_v));
    CHECK_EQ_U64(throng_world_hash(w1), h0);

    uint64_t old_key = 0;
    REQUIRE_OK(throng_agent_get_host_key(w1, a, &old_key));
    CHECK_OK(throng_agent_set_host_key(w1, a, 999u));
    CHECK(throng_world_hash(w1) != h0);
    CHECK_OK(throng_agent_set_host_key(w1, a, old_key));
    CHECK_EQ_U64(throng_world_hash(w1), h0);
    CHECK_OK(throng_agent_set_mass(w1, a, 3.0f));
    CHECK(throng_world_hash(w1) != h0);
    CHECK_OK(throng_agent_set_mass(w1, a, 1.0f));
    CHECK_EQ_U64(throng_world_hash(w1), h0);

    CHECK_OK(throng_world_step(w1, 0.1f));
    CHECK_OK(throng_world_step(w2, 0.1f));
    CHECK(throng_world_hash(w1) != h0);
    CHECK_EQ_U64(throng_world_hash(w1), throng_world_hash(w2));
    throng_world_destroy(w1);
    throng_world_destroy(w2);
}

/* throng_world_bytes against what the world's allocator actually holds.
 * With many host keys the key table is a large part of the heap: its
 * entries are rounded up to the allocation alignment and its bucket array
 * is allocated too, and the figure must count both. */
TEST(world_bytes_matches_allocator) {
    ts_heap counter = { 0 };
    throng_world_def def = ts_world_def(2, 0, &counter);
    throng_world *world = NULL;
    REQUIRE_OK(throng_world_create(&def, &world));
    enum {
        AGENTS = 10000
    };
    static throng_agent handles[AGENTS];
    test_rng rng = test_rng_make(7);
    for (uint32_t i = 0; i < AGENTS; ++i) {
        float x = test_rng_range(&rng, 0.0f, 50.0f);
        float y = test_rng_range(&rng, 0.0f, 50.0f);
        REQUIRE_OK(world_add_at(world, x, y, 0.0f, 1000u + i, &handles[i]));
    }
    for (uint32_t i = 0; i < AGENTS; i += 3)
        CHECK_OK(throng_agent_remove(world, handles[i]));
    CHECK_OK(throng_world_step(world, 0.1f));
    /* Within 2%: the key table alone was a fifth of the heap uncounted. */
    double bytes = (double)throng_world_bytes(world);
    double live = (double)counter.live;
    CHECK_NEAR(bytes / live, 1.0, 0.02);
    throng_world_destroy(world);
    CHECK_EQ_U64(counter.live, 0u);
}

void register_world_tests(void) {
    REGISTER(world_defaults);
    REGISTER(world_create_destroy);
    REGISTER(world_handle_lifecycle);
    REGISTER(world_forged_handles);
    REGISTER(world_foreign_handles);
    REGISTER(world_swap_remove_shadow);
    REGISTER(world_host_keys);
    REGISTER(world_columns_zero_copy);
    REGISTER(world_getters_setters_roundtrip);
    REGISTER(world_groups);
    REGISTER(world_hash);
    REGISTER(world_bytes_matches_allocator);
}
