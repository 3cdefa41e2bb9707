/* SPDX-License-Identifier: MIT */
/*
 * Snapshots: a world saved mid-run and loaded again continues bit for bit
 * (state hashes equal after further steps, equal to an uninterrupted run),
 * keeps the host's handles, host keys and free lists, and survives a file
 * round trip; every truncation, every flipped byte and a newer format
 * version are refused without creating a world, and bad arguments get
 * their documented codes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bench/scenarios.h"
#include "grid_plan.h"
#include "internal.h"
#include "object_defs.h"
#include "runner.h"

/* The header layout throng.h documents. */
#define SNAP_TEST_HEADER TEST_SNAPSHOT_HEADER
#define SNAP_TEST_VERSION_AT 8u
#define SNAP_TEST_CHECKSUM_AT TEST_SNAPSHOT_CHECKSUM_AT
/* The settings section starts the payload (src/snapshot_codec.c). */
#define SNAP_TEST_DIMS_AT 40u
#define SNAP_TEST_WORLD_ID_AT 112u
#define SNAP_TEST_AGENT_COUNT_AT 160u
#define SNAP_TEST_CELLS_AT 88u
#define SNAP_TEST_CELL_SIZE_AT 172u

static uint64_t snap_test_fnv(uint64_t h, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

void test_snapshot_reseal(uint8_t *s, size_t n) {
    uint64_t h = snap_test_fnv(0xCBF29CE484222325ull, s, SNAP_TEST_CHECKSUM_AT);
    h = snap_test_fnv(h, s + SNAP_TEST_HEADER, n - SNAP_TEST_HEADER);
    for (unsigned k = 0; k < 8u; k++)
        s[SNAP_TEST_CHECKSUM_AT + k] = (uint8_t)(h >> (8u * k));
}

static void snap_test_put_u32(uint8_t *p, uint32_t v) {
    for (unsigned k = 0; k < 4u; k++)
        p[k] = (uint8_t)(v >> (8u * k));
}

static uint32_t snap_test_get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t snap_test_get_u64(const uint8_t *p) {
    return (uint64_t)snap_test_get_u32(p) | (uint64_t)snap_test_get_u32(p + 4)
                                                << 32;
}

/* Two snapshots hold the same state: every byte is the same but the
 * saving world's id (and so the checksum), which differs between any two
 * worlds. */
static bool snap_test_same_state(const uint8_t *a, size_t na, const uint8_t *b,
                                 size_t nb) {
    if (na != nb || na < SNAP_TEST_WORLD_ID_AT + 8u)
        return false;
    return memcmp(a, b, SNAP_TEST_CHECKSUM_AT) == 0 &&
           memcmp(a + SNAP_TEST_HEADER, b + SNAP_TEST_HEADER,
                  SNAP_TEST_WORLD_ID_AT - SNAP_TEST_HEADER) == 0 &&
           memcmp(a + SNAP_TEST_WORLD_ID_AT + 8u,
                  b + SNAP_TEST_WORLD_ID_AT + 8u,
                  na - SNAP_TEST_WORLD_ID_AT - 8u) == 0;
}

/* The world's snapshot in a malloc'd buffer (NULL on failure). */
static uint8_t *snap_test_save(const throng_world *w, size_t *out_size) {
    size_t size = 0;
    *out_size = 0;
    if (throng_world_snapshot_size(w, &size) != THRONG_OK || size == 0u)
        return NULL;
    uint8_t *buffer = malloc(size);
    size_t written = 0;
    if (!buffer || throng_world_save(w, buffer, size, &written) != THRONG_OK ||
        written != size) {
        free(buffer);
        return NULL;
    }
    *out_size = size;
    return buffer;
}

static throng_world *snap_test_load(const uint8_t *s, size_t n) {
    throng_world *w = NULL;
    char why[256] = "";
    throng_world_load_def def = throng_world_load_def_default();
    def.error = why;
    def.error_capacity = sizeof why;
    throng_status st = throng_world_load(s, n, &def, &w);
    if (st != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "load refused: %s (%s)",
                    throng_status_string(st), why);
    return w;
}

static int snap_test_step(throng_world *w, float dt, int steps) {
    for (int s = 0; s < steps; s++)
        if (throng_world_step(w, dt) != THRONG_OK)
            return 0;
    return 1;
}

static throng_world *snap_test_scenario(const char *name, uint32_t agents,
                                        int threads) {
    const scenario *sc = scenario_find(name);
    throng_world *w = NULL;
    if (!sc || sc->build(agents, threads, 11u, &w) != THRONG_OK)
        return NULL;
    return w;
}

/* Saves a scenario after `before` steps, loads it, steps both (the copy
 * on another thread count) `after` more, and compares both with a run
 * that was never saved; the loaded copy saved again gives the same bytes. */
static void snap_test_continue(const char *name, uint32_t agents, int before,
                               int after) {
    const scenario *sc = scenario_find(name);
    REQUIRE(sc != NULL);
    throng_world *straight = snap_test_scenario(name, agents, 1);
    throng_world *original = snap_test_scenario(name, agents, 2);
    REQUIRE(straight != NULL && original != NULL);
    REQUIRE(snap_test_step(straight, sc->dt, before + after));
    REQUIRE(snap_test_step(original, sc->dt, before));

    size_t n = 0;
    uint8_t *s = snap_test_save(original, &n);
    REQUIRE(s != NULL);
    throng_world *copy = snap_test_load(s, n);
    REQUIRE(copy != NULL);
    CHECK_EQ_U64(throng_world_hash(copy), throng_world_hash(original));
    CHECK_EQ_U64(throng_world_step_count(copy), (uint64_t)before);
    CHECK_EQ_INT(throng_world_agent_count(copy), agents);
    CHECK_EQ_INT(throng_world_object_count(copy),
                 throng_world_object_count(original));

    /* Loaded and saved again: the same bytes, header included, but for
     * the saving world's id. */
    size_t n2 = 0;
    uint8_t *s2 = snap_test_save(copy, &n2);
    REQUIRE(s2 != NULL);
    CHECK_EQ_INT(n2, n);
    CHECK(snap_test_same_state(s, n, s2, n2));
    CHECK_EQ_U64(snap_test_get_u64(s + SNAP_TEST_WORLD_ID_AT),
                 throng_world_id(original));
    CHECK_EQ_U64(snap_test_get_u64(s2 + SNAP_TEST_WORLD_ID_AT),
                 throng_world_id(copy));

    /* The host's handles, taken from the original, rebind to the copy
     * (and are refused as they are). */
    for (uint32_t i = 0; i < agents; i += 37u) {
        throng_agent h, hc;
        REQUIRE_OK(throng_agent_at(original, i, &h));
        CHECK(!throng_agent_valid(copy, h));
        CHECK_OK(throng_agent_rebind(copy, h, &hc));
        CHECK(throng_agent_valid(copy, hc));
        uint32_t row = 0;
        CHECK_OK(throng_agent_index(copy, hc, &row));
        CHECK_EQ_INT(row, i);
        throng_agent target_a, target_b;
        CHECK_OK(throng_agent_get_target_agent(original, h, &target_a));
        CHECK_OK(throng_agent_get_target_agent(copy, hc, &target_b));
        CHECK(target_a.slot == target_b.slot &&
              target_a.generation == target_b.generation);
        if (target_a.slot != 0u) {
            throng_agent rebound;
            if (throng_agent_valid(original, target_a)) {
                CHECK_OK(throng_agent_rebind(copy, target_a, &rebound));
                CHECK(test_handle_eq(rebound, target_b));
            }
        }
    }

    REQUIRE_OK(throng_world_set_threads(copy, 3));
    for (int k = 0; k < after; k++) {
        REQUIRE_OK(throng_world_step(original, sc->dt));
        REQUIRE_OK(throng_world_step(copy, sc->dt));
        if (throng_world_hash(copy) != throng_world_hash(original)) {
            runner_fail(__FILE__, __LINE__,
                        "%s: the loaded world departs %d steps after the "
                        "save",
                        name, k + 1);
            break;
        }
    }
    CHECK_EQ_U64(throng_world_hash(copy), throng_world_hash(straight));
    CHECK_EQ_U64(throng_world_hash(original), throng_world_hash(straight));
    free(s);
    free(s2);
    throng_world_destroy(copy);
    throng_world_destroy(original);
    throng_world_destroy(straight);
}

TEST(snapshot_continues_every2d) {
    snap_test_continue("every2d", 600u, 50, 40);
}

TEST(snapshot_continues_every3d) {
    snap_test_continue("every3d", 600u, 30, 30);
}

TEST(snapshot_continues_wander3d) {
    snap_test_continue("wander3d", 500u, 50, 40);
}

TEST(snapshot_continues_flock2d) {
    snap_test_continue("flock2d", 800u, 20, 20);
}

/* ------------------------------------------------------------------------ */
/* A world with a history: removed agents and objects, host keys, a group    */
/* naming a removed path                                                    */
/* ------------------------------------------------------------------------ */

#define SNAP_MIXED_MAX 512

typedef struct snap_mixed {
    throng_world *world;
    throng_agent agents[SNAP_MIXED_MAX]; /* every handle ever handed out */
    uint32_t agent_count;
    throng_object objects[16];
    uint32_t object_count;
} snap_mixed;

static void snap_mixed_add(snap_mixed *m, test_rng *rng, throng_group group,
                           uint64_t key) {
    const float L = 36.0f;
    throng_agent_def ad = throng_agent_def_default();
    for (int k = 0; k < 3; k++) {
        ad.position[k] = test_rng_range(rng, 0.0f, L - 1.0f);
        ad.velocity[k] = test_rng_range(rng, -1.0f, 1.0f);
    }
    ad.max_speed = 1.5f;
    ad.group = group;
    ad.host_key = key;
    throng_agent h = THRONG_NULL_AGENT;
    if (throng_agent_add(m->world, &ad, &h) != THRONG_OK ||
        m->agent_count >= SNAP_MIXED_MAX) {
        runner_fail(__FILE__, __LINE__, "agent add refused");
        return;
    }
    float target[3] = { test_rng_range(rng, 0.0f, L),
                        test_rng_range(rng, 0.0f, L),
                        test_rng_range(rng, 0.0f, L) };
    CHECK_OK(throng_agent_set_target_point(m->world, h, target));
    CHECK_OK(throng_agent_set_progress(m->world, h, test_rng_below(rng, 3u)));
    m->agents[m->agent_count++] = h;
}

/* Builds the world; `agents` is how many are added at first. */
static int snap_mixed_build(snap_mixed *m, int dims, bool periodic,
                            uint32_t agents) {
    memset(m, 0, sizeof *m);
    throng_world_def def = throng_world_def_default();
    def.dimensions = dims;
    def.neighbour_radius = 2.0f;
    def.seed = 4242u;
    if (periodic) {
        /* A cell size that does not divide the box, different per axis,
         * so the box stretches its cells. */
        def.boundary = THRONG_BOUNDARY_PERIODIC;
        def.box_size[0] = 36.0f;
        def.box_size[1] = 33.5f;
        def.box_size[2] = 23.0f;
        def.cell_size = 2.3f;
    } else {
        def.cell_size = 2.7f;
    }
    if (throng_world_create(&def, &m->world) != THRONG_OK)
        return 0;
    throng_world *w = m->world;
    throng_status st = THRONG_OK;

    /* Objects, two of which are removed below. */
    float c1[3] = { 8.0f, 8.0f, 8.0f }, c2[3] = { 20.0f, 12.0f, 9.0f };
    float lo[3] = { 24.0f, 24.0f, 4.0f }, hi[3] = { 28.0f, 27.0f, 9.0f };
    float ring[6 * 3], line[4 * 3];
    for (int k = 0; k < 6; k++) {
        ring[3 * k] = 18.0f + 9.0f * (float)(k % 3) - 6.0f;
        ring[3 * k + 1] = k < 3 ? 10.0f : 25.0f;
        ring[3 * k + 2] = 11.0f;
    }
    for (int k = 0; k < 4; k++) {
        line[3 * k] = 4.0f + 8.0f * (float)k;
        line[3 * k + 1] = 30.0f - 5.0f * (float)k;
        line[3 * k + 2] = 5.0f;
    }
    float vectors[5 * 5 * 5 * 3];
    for (int k = 0; k < 5 * 5 * 5; k++)
        for (int a = 0; a < dims; a++)
            vectors[dims * k + a] = (float)((k * 7 + a * 3) % 5) - 2.0f;
    throng_flow_field_def flow;
    memset(&flow, 0, sizeof flow);
    flow.cell_size = 8.0f;
    flow.size[0] = flow.size[1] = flow.size[2] = 5u;
    flow.vectors = vectors;
    throng_object *o = m->objects;
    if (st == THRONG_OK)
        st = add_sphere(w, c1, 2.0f, &o[0]);
    if (st == THRONG_OK)
        st = add_sphere(w, c2, 1.5f, &o[1]);
    if (st == THRONG_OK)
        st = add_box(w, lo, hi, &o[2]);
    if (st == THRONG_OK)
        st = add_path(w, ring, 6u, 1.0f, true, &o[3]);
    if (st == THRONG_OK)
        st = add_path(w, line, 4u, 0.8f, false, &o[4]);
    if (st == THRONG_OK)
        st = throng_flow_field_add(w, &flow, &o[5]);
    if (dims == 2) {
        float a[3] = { 2.0f, 33.0f, 0.0f }, b[3] = { 34.0f, 33.0f, 0.0f };
        if (st == THRONG_OK)
            st = add_segment(w, a, b, &o[6]);
    } else {
        float p[3] = { 0.0f, 0.0f, 1.0f }, nrm[3] = { 0.0f, 0.0f, 1.0f };
        if (st == THRONG_OK)
            st = add_plane(w, p, nrm, &o[6]);
    }
    m->object_count = 7u;

    /* Groups: flocking with wander, a behaviour list over the objects,
     * one that follows the line path (removed later), priority mode. */
    throng_group g[4] = { THRONG_NULL_GROUP, THRONG_NULL_GROUP,
                          THRONG_NULL_GROUP, THRONG_NULL_GROUP };
    throng_group_def gd = throng_group_def_default();
    gd.name = "flockers";
    gd.flocking.separation_weight = 1.0f;
    gd.flocking.alignment_weight = 0.5f;
    gd.flocking.cohesion_weight = 0.3f;
    gd.flocking.field_of_view = 4.0f;
    gd.wander.weight = 0.4f;
    if (st == THRONG_OK)
        st = throng_group_create(w, &gd, &g[1]);
    gd = throng_group_def_default();
    gd.combine = THRONG_COMBINE_PRIORITY;
    if (st == THRONG_OK)
        st = throng_group_create(w, &gd, &g[2]);
    gd.name = "stale path";
    gd.combine = THRONG_COMBINE_WEIGHTED_SUM;
    if (st == THRONG_OK)
        st = throng_group_create(w, &gd, &g[3]);
    throng_behaviour b[8];
    b[0] = throng_behaviour_default(THRONG_BEHAVIOUR_PATROL);
    b[0].u.path.path = o[3];
    b[1] = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_FLOW);
    b[1].u.flow.field = o[5];
    b[1].weight = 0.5f;
    b[2] = throng_behaviour_default(THRONG_BEHAVIOUR_AVOID_OBSTACLES);
    b[2].priority = 4;
    b[3] = throng_behaviour_default(THRONG_BEHAVIOUR_CONTAIN);
    b[3].priority = 2;
    b[4] = throng_behaviour_default(THRONG_BEHAVIOUR_PURSUE);
    b[5] = throng_behaviour_default(THRONG_BEHAVIOUR_WANDER_CIRCLE);
    b[6] = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_PATH);
    b[6].u.path.path = o[4];
    b[7] = throng_behaviour_default(THRONG_BEHAVIOUR_ARRIVE);
    for (int k = 0; k < 6 && st == THRONG_OK; k++)
        st = throng_group_add_behaviour(w, g[2], &b[k], NULL);
    for (int k = 6; k < 8 && st == THRONG_OK; k++)
        st = throng_group_add_behaviour(w, g[3], &b[k], NULL);
    if (st != THRONG_OK)
        return 0;

    test_rng rng = test_rng_make(77u + (uint64_t)dims);
    for (uint32_t i = 0; i < agents; i++)
        snap_mixed_add(m, &rng, g[i % 4u], i % 3u ? 1000u + i : 0u);
    /* Chase the agent seven further on. */
    for (uint32_t i = 0; i < agents; i++)
        CHECK_OK(throng_agent_set_target_agent(w, m->agents[i],
                                               m->agents[(i + 7u) % agents]));
    /* A history: removals in a scattered order, a key moved. */
    for (uint32_t i = 0; i < agents; i += 5u)
        CHECK_OK(throng_agent_remove(w, m->agents[(i * 13u) % agents]));
    CHECK_OK(throng_object_remove(w, o[1]));
    CHECK_OK(throng_object_remove(w, o[4]));
    uint32_t k = 0;
    while (k < agents && !throng_agent_valid(w, m->agents[k]))
        k++;
    if (k < agents)
        CHECK_OK(throng_agent_set_host_key(w, m->agents[k], 77777u));
    if (!snap_test_step(w, 0.05f, 10))
        return 0;
    for (uint32_t i = 0; i < 4u; i++)
        snap_mixed_add(m, &rng, g[i], 5000u + i);
    CHECK_OK(throng_agent_remove(w, m->agents[agents + 1u]));
    return snap_test_step(w, 0.05f, 5);
}

/* The loaded world agrees with the original about every handle ever
 * handed out, every host key, and what comes next: the same handles for
 * new agents and objects, the same states after more steps. */
static void snap_test_mixed(int dims, bool periodic) {
    snap_mixed m;
    if (!snap_mixed_build(&m, dims, periodic, 240u)) {
        runner_fail(__FILE__, __LINE__, "the mixed world did not build: %s",
                    m.world ? throng_world_last_error(m.world) : "");
        throng_world_destroy(m.world);
        return;
    }
    throng_world *w = m.world;
    size_t n = 0;
    uint8_t *s = snap_test_save(w, &n);
    REQUIRE(s != NULL);
    throng_world *copy = snap_test_load(s, n);
    REQUIRE(copy != NULL);
    CHECK_EQ_U64(throng_world_hash(copy), throng_world_hash(w));
    CHECK_EQ_INT(throng_world_agent_count(copy), throng_world_agent_count(w));
    CHECK_EQ_INT(throng_world_object_count(copy), 5);

    /* The copy is another world: it refuses the saved world's handles as
     * they are, and rebinds each one that names a live agent. */
    CHECK(throng_world_id(copy) != throng_world_id(w));
    uint32_t valid = 0;
    for (uint32_t i = 0; i < m.agent_count; i++) {
        throng_agent h = m.agents[i];
        bool live = throng_agent_valid(w, h);
        CHECK(!throng_agent_valid(copy, h));
        throng_agent hc = THRONG_NULL_AGENT;
        CHECK_STATUS(throng_agent_rebind(copy, h, &hc),
                     live ? THRONG_OK : THRONG_ERR_STALE_HANDLE);
        valid += live;
        if (!live)
            continue;
        CHECK(hc.slot == h.slot && hc.generation == h.generation &&
              hc.world == throng_world_id(copy));
        CHECK(throng_agent_valid(copy, hc) && !throng_agent_valid(w, hc));
        uint64_t key_a = 0, key_b = 0;
        CHECK_OK(throng_agent_get_host_key(w, h, &key_a));
        CHECK_OK(throng_agent_get_host_key(copy, hc, &key_b));
        CHECK_EQ_U64(key_a, key_b);
        if (key_a) {
            throng_agent found;
            CHECK_OK(throng_agent_find(copy, key_a, &found));
            CHECK(test_handle_eq(found, hc));
        }
        float pa[3], pb[3];
        CHECK_OK(throng_agent_get_position(w, h, pa));
        CHECK_OK(throng_agent_get_position(copy, hc, pb));
        CHECK(memcmp(pa, pb, sizeof pa) == 0);
        uint32_t prog_a = 0, prog_b = 0;
        CHECK_OK(throng_agent_get_progress(w, h, &prog_a));
        CHECK_OK(throng_agent_get_progress(copy, hc, &prog_b));
        CHECK_EQ_INT(prog_a, prog_b);
        throng_agent ta, tb;
        CHECK_OK(throng_agent_get_target_agent(w, h, &ta));
        CHECK_OK(throng_agent_get_target_agent(copy, hc, &tb));
        CHECK(ta.slot == tb.slot && ta.generation == tb.generation &&
              tb.world == (tb.slot ? throng_world_id(copy) : 0u));
    }
    CHECK_EQ_INT(valid, throng_world_agent_count(w));
    throng_agent none;
    CHECK_STATUS(throng_agent_find(copy, 1000u, &none), THRONG_ERR_NOT_FOUND);
    throng_group group = THRONG_NULL_GROUP;
    CHECK_OK(throng_group_find(copy, "stale path", &group));
    CHECK(group.id == 3u && group.generation == 1u &&
          group.world == throng_world_id(copy));
    uint32_t behaviours = 0;
    CHECK_OK(
        throng_group_behaviour_count(copy, first_group(copy, 2u), &behaviours));
    CHECK_EQ_INT(behaviours, 6);
    throng_behaviour ba, bb;
    CHECK_OK(throng_group_get_behaviour(w, first_group(w, 3u), 0u, &ba));
    CHECK_OK(throng_group_get_behaviour(copy, group, 0u, &bb));
    CHECK(ba.kind == bb.kind && ba.u.path.path.id == bb.u.path.path.id &&
          ba.u.path.path.generation == bb.u.path.path.generation);
    /* The behaviour's path is the copy's own. */
    CHECK(ba.u.path.path.world == throng_world_id(w) &&
          bb.u.path.path.world == throng_world_id(copy));

    /* Objects: removed handles stale in both, live ones rebind and are
     * removable; the saved world's handles are refused by the copy. */
    for (uint32_t i = 0; i < m.object_count; i++) {
        bool removed = i == 1u || i == 4u;
        throng_status want = removed ? THRONG_ERR_STALE_HANDLE : THRONG_OK;
        throng_object oc = THRONG_NULL_OBJECT;
        CHECK_STATUS(throng_object_rebind(copy, m.objects[i], &oc), want);
        CHECK_STATUS(
            throng_object_get(copy, m.objects[i], &(throng_object_info){ 0 }),
            THRONG_ERR_STALE_HANDLE);
        if (removed)
            oc = (throng_object){ m.objects[i].id, m.objects[i].generation,
                                  throng_world_id(copy) };
        if (i == 0u) {
            CHECK_STATUS(throng_object_remove(w, m.objects[i]), want);
            CHECK_STATUS(throng_object_remove(copy, oc), want);
        } else if (removed) {
            CHECK_STATUS(throng_object_remove(copy, oc), want);
        }
    }

    /* What comes next: the free lists hand out the same slots and ids. */
    throng_agent_def ad = throng_agent_def_default();
    ad.position[0] = 3.0f;
    ad.host_key = 99u;
    throng_agent na, nb;
    CHECK_OK(throng_agent_add(w, &ad, &na));
    CHECK_OK(throng_agent_add(copy, &ad, &nb));
    CHECK(na.slot == nb.slot && na.generation == nb.generation);
    /* Added after the save: the copy does not rebind it, even though its
     * slot and generation name the copy's own new agent. */
    CHECK_STATUS(throng_agent_rebind(copy, na, &(throng_agent){ 0 }),
                 THRONG_ERR_STALE_HANDLE);
    float centre[3] = { 30.0f, 5.0f, 5.0f };
    throng_object oa, ob;
    CHECK_OK(add_sphere(w, centre, 1.0f, &oa));
    CHECK_OK(add_sphere(copy, centre, 1.0f, &ob));
    CHECK(oa.id == ob.id && oa.generation == ob.generation);
    CHECK_STATUS(throng_object_rebind(copy, oa, &(throng_object){ 0 }),
                 THRONG_ERR_STALE_HANDLE);
    throng_agent gone_c = THRONG_NULL_AGENT;
    CHECK_OK(throng_agent_rebind(copy, m.agents[2], &gone_c));
    CHECK_OK(throng_agent_remove(w, m.agents[2]));
    CHECK_OK(throng_agent_remove(copy, gone_c));
    for (int k = 0; k < 25; k++) {
        REQUIRE_OK(throng_world_step(w, 0.05f));
        REQUIRE_OK(throng_world_step(copy, 0.05f));
    }
    CHECK_EQ_U64(throng_world_hash(copy), throng_world_hash(w));
    size_t na_bytes = 0, nb_bytes = 0;
    uint8_t *sa = snap_test_save(w, &na_bytes);
    uint8_t *sb = snap_test_save(copy, &nb_bytes);
    CHECK(sa && sb && snap_test_same_state(sa, na_bytes, sb, nb_bytes));
    free(sa);
    free(sb);
    free(s);
    throng_world_destroy(copy);
    throng_world_destroy(w);
}

TEST(snapshot_history_2d_unbounded) {
    snap_test_mixed(2, false);
}

TEST(snapshot_history_2d_periodic) {
    snap_test_mixed(2, true);
}

TEST(snapshot_history_3d_periodic) {
    snap_test_mixed(3, true);
}

TEST(snapshot_history_3d_unbounded) {
    snap_test_mixed(3, false);
}

/* An empty world, and one whose agents were all removed. */
TEST(snapshot_empty_worlds) {
    throng_world_def def = throng_world_def_default();
    throng_world *w = NULL;
    REQUIRE_OK(throng_world_create(&def, &w));
    size_t n = 0;
    uint8_t *s = snap_test_save(w, &n);
    REQUIRE(s != NULL);
    throng_world *copy = snap_test_load(s, n);
    REQUIRE(copy != NULL);
    CHECK_EQ_U64(throng_world_hash(copy), throng_world_hash(w));
    CHECK_OK(throng_world_step(copy, 0.1f));
    throng_world_destroy(copy);
    free(s);

    throng_agent_def ad = throng_agent_def_default();
    throng_agent h[3];
    for (int i = 0; i < 3; i++)
        REQUIRE_OK(throng_agent_add(w, &ad, &h[i]));
    for (int i = 0; i < 3; i++)
        REQUIRE_OK(throng_agent_remove(w, h[i]));
    s = snap_test_save(w, &n);
    REQUIRE(s != NULL);
    copy = snap_test_load(s, n);
    REQUIRE(copy != NULL);
    throng_agent a, b;
    CHECK_OK(throng_agent_add(w, &ad, &a));
    CHECK_OK(throng_agent_add(copy, &ad, &b));
    CHECK(a.slot == b.slot && a.generation == b.generation);
    CHECK(a.world == throng_world_id(w) && b.world == throng_world_id(copy));
    CHECK(!throng_agent_valid(copy, h[0]));
    CHECK_EQ_U64(throng_world_hash(copy), throng_world_hash(w));
    throng_world_destroy(copy);
    throng_world_destroy(w);
    free(s);
}

/* ------------------------------------------------------------------------ */
/* Files                                                                    */
/* ------------------------------------------------------------------------ */

static void snap_test_path(char *out, size_t n, const char *what) {
    snprintf(out, n, "/tmp/throng-test-snapshot-%ld-%s.bin", (long)getpid(),
             what);
}

TEST(snapshot_file_round_trip) {
    snap_mixed m;
    if (!snap_mixed_build(&m, 2, true, 60u)) {
        throng_world_destroy(m.world);
        REQUIRE(0);
    }
    throng_world *w = m.world;
    char path[256];
    snap_test_path(path, sizeof path, "round");
    REQUIRE_OK(throng_world_save_file(w, path));
    /* Saving again replaces the file whole. */
    REQUIRE_OK(throng_world_step(w, 0.05f));
    REQUIRE_OK(throng_world_save_file(w, path));
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    CHECK(access(tmp, F_OK) != 0);
    throng_world *copy = NULL;
    REQUIRE_OK(throng_world_load_file(path, NULL, &copy));
    CHECK_EQ_U64(throng_world_hash(copy), throng_world_hash(w));
    for (int k = 0; k < 10; k++) {
        REQUIRE_OK(throng_world_step(w, 0.05f));
        REQUIRE_OK(throng_world_step(copy, 0.05f));
    }
    CHECK_EQ_U64(throng_world_hash(copy), throng_world_hash(w));
    throng_world_destroy(copy);

    /* The file's bytes are the buffer's. */
    size_t n = 0;
    REQUIRE_OK(throng_world_save_file(w, path));
    uint8_t *s = snap_test_save(w, &n);
    REQUIRE(s != NULL);
    FILE *f = fopen(path, "rb");
    REQUIRE(f != NULL);
    uint8_t *disk = malloc(n + 1u);
    REQUIRE(disk != NULL);
    size_t got = fread(disk, 1, n + 1u, f);
    fclose(f);
    CHECK_EQ_INT(got, n);
    CHECK(got == n && memcmp(disk, s, n) == 0);

    /* A truncated file, and one with a byte more. */
    char why[256] = "";
    throng_world_load_def def = throng_world_load_def_default();
    def.error = why;
    def.error_capacity = sizeof why;
    const size_t sizes[] = { 0u, 7u, 39u, 40u, n / 2u, n - 1u, n + 1u };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        f = fopen(path, "wb");
        REQUIRE(f != NULL);
        size_t len = sizes[i];
        size_t from_s = len < n ? len : n;
        CHECK_EQ_INT(fwrite(s, 1, from_s, f), from_s);
        if (len > n)
            fputc(0, f);
        fclose(f);
        copy = (throng_world *)1;
        why[0] = '\0';
        CHECK_STATUS(throng_world_load_file(path, &def, &copy),
                     THRONG_ERR_BAD_SNAPSHOT);
        CHECK(copy == NULL);
        CHECK(strlen(why) > 10u);
    }
    remove(path);
    free(disk);
    free(s);

    /* I/O failures: a missing file, an unwritable place. */
    why[0] = '\0';
    copy = (throng_world *)1;
    CHECK_STATUS(throng_world_load_file(path, &def, &copy), THRONG_ERR_IO);
    CHECK(copy == NULL);
    CHECK(strstr(why, path) != NULL);
    uint64_t hash = throng_world_hash(w);
    CHECK_STATUS(throng_world_save_file(w, "/nonexistent-dir-throng/x.bin"),
                 THRONG_ERR_IO);
    CHECK(strlen(throng_world_last_error(w)) > 10u);
    CHECK_EQ_U64(throng_world_hash(w), hash);
    /* A directory is no snapshot file. */
    copy = (throng_world *)1;
    throng_status st = throng_world_load_file("/tmp", &def, &copy);
    CHECK(st == THRONG_ERR_IO || st == THRONG_ERR_BAD_SNAPSHOT);
    CHECK(copy == NULL);
    throng_world_destroy(w);
}

/* ------------------------------------------------------------------------ */
/* Refusals                                                                 */
/* ------------------------------------------------------------------------ */

/* A small snapshot with every section non-empty. */
static uint8_t *snap_test_small(int dims, size_t *n) {
    snap_mixed m;
    *n = 0;
    if (!snap_mixed_build(&m, dims, dims == 2, 12u)) {
        throng_world_destroy(m.world);
        return NULL;
    }
    uint8_t *s = snap_test_save(m.world, n);
    throng_world_destroy(m.world);
    return s;
}

TEST(snapshot_every_truncation_refused) {
    size_t n = 0;
    uint8_t *s = snap_test_small(2, &n);
    REQUIRE(s != NULL);
    char why[256];
    throng_world_load_def def = throng_world_load_def_default();
    def.error = why;
    def.error_capacity = sizeof why;
    for (size_t len = 0; len < n; len++) {
        /* A copy of exactly len bytes, so a read past it is caught. */
        uint8_t *cut = malloc(len ? len : 1u);
        REQUIRE(cut != NULL);
        memcpy(cut, s, len);
        throng_world *w = (throng_world *)1;
        why[0] = '\0';
        throng_status st = throng_world_load(cut, len, &def, &w);
        free(cut);
        if (st != THRONG_ERR_BAD_SNAPSHOT || w != NULL || strlen(why) < 10u) {
            runner_fail(__FILE__, __LINE__, "%zu of %zu bytes: got %s (%s)",
                        len, n, throng_status_string(st), why);
            throng_world_destroy(w != (throng_world *)1 ? w : NULL);
        }
    }
    free(s);
}

TEST(snapshot_every_flipped_byte_refused) {
    for (int dims = 2; dims <= 3; dims++) {
        size_t n = 0;
        uint8_t *s = snap_test_small(dims, &n);
        REQUIRE(s != NULL);
        uint8_t *bad = malloc(n);
        REQUIRE(bad != NULL);
        const uint8_t masks[] = { 0x01u, 0x80u, 0xFFu, 0x5Au };
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < sizeof masks; k++) {
                memcpy(bad, s, n);
                bad[i] ^= masks[k];
                throng_world *w = (throng_world *)1;
                throng_status st = throng_world_load(bad, n, NULL, &w);
                /* A flip in the version field may read as a newer one. */
                int version =
                    i >= SNAP_TEST_VERSION_AT && i < SNAP_TEST_VERSION_AT + 4u;
                if (!(st == THRONG_ERR_BAD_SNAPSHOT ||
                      (version && st == THRONG_ERR_VERSION)) ||
                    w != NULL) {
                    runner_fail(__FILE__, __LINE__,
                                "%dD: byte %zu ^ %#x of %zu: got %s", dims, i,
                                masks[k], n, throng_status_string(st));
                    throng_world_destroy(w != (throng_world *)1 ? w : NULL);
                }
            }
        free(bad);
        free(s);
    }
}

/* Flips the checksum cannot see (it is rewritten after each) reach the
 * structural checks: whatever they let through must be a world that can
 * be stepped, saved and destroyed; whatever they refuse creates none. */
TEST(snapshot_resealed_flips_never_crash) {
    size_t n = 0;
    uint8_t *s = snap_test_small(2, &n);
    REQUIRE(s != NULL);
    uint8_t *bad = malloc(n);
    REQUIRE(bad != NULL);
    uint32_t loaded = 0, refused = 0;
    for (size_t i = SNAP_TEST_HEADER; i < n; i++)
        for (unsigned bit = 0; bit < 8u; bit += 3u) {
            memcpy(bad, s, n);
            bad[i] ^= (uint8_t)(1u << bit);
            test_snapshot_reseal(bad, n);
            throng_world *w = (throng_world *)1;
            throng_status st = throng_world_load(bad, n, NULL, &w);
            if (st != THRONG_OK) {
                CHECK(w == NULL);
                refused++;
                continue;
            }
            loaded++;
            for (int k = 0; k < 2; k++)
                (void)throng_world_step(w, 0.05f);
            size_t size = 0;
            CHECK_OK(throng_world_snapshot_size(w, &size));
            throng_world_destroy(w);
        }
    /* Both outcomes occur: values pass, structure is refused. */
    CHECK(loaded > 0u);
    CHECK(refused > 0u);
    free(bad);
    free(s);
}

/* Resealed snapshots whose structure lies: each is refused. */
TEST(snapshot_inconsistent_structure_refused) {
    size_t n = 0;
    uint8_t *s = snap_test_small(2, &n);
    REQUIRE(s != NULL);
    REQUIRE(snap_test_get_u32(s + SNAP_TEST_DIMS_AT) == 2u);
    uint8_t *bad = malloc(n);
    REQUIRE(bad != NULL);
    const struct {
        size_t at;
        uint32_t value;
    } lies[] = {
        { SNAP_TEST_DIMS_AT, 4u },
        { SNAP_TEST_AGENT_COUNT_AT,
          snap_test_get_u32(s + SNAP_TEST_AGENT_COUNT_AT) + 1u },
        { SNAP_TEST_AGENT_COUNT_AT, 0xFFFFFFFFu },
    };
    char why[256];
    throng_world_load_def def = throng_world_load_def_default();
    def.error = why;
    def.error_capacity = sizeof why;
    for (size_t k = 0; k < sizeof lies / sizeof lies[0]; k++) {
        memcpy(bad, s, n);
        snap_test_put_u32(bad + lies[k].at, lies[k].value);
        test_snapshot_reseal(bad, n);
        throng_world *w = (throng_world *)1;
        CHECK_STATUS(throng_world_load(bad, n, &def, &w),
                     THRONG_ERR_BAD_SNAPSHOT);
        CHECK(w == NULL);
        CHECK(strlen(why) > 10u);
    }
    /* A saving world's id of 0, which no world has. */
    memcpy(bad, s, n);
    snap_test_put_u32(bad + SNAP_TEST_WORLD_ID_AT, 0u);
    snap_test_put_u32(bad + SNAP_TEST_WORLD_ID_AT + 4u, 0u);
    test_snapshot_reseal(bad, n);
    throng_world *w = (throng_world *)1;
    CHECK_STATUS(throng_world_load(bad, n, &def, &w), THRONG_ERR_BAD_SNAPSHOT);
    CHECK(w == NULL);
    /* Bytes after the last section, with the length to match. */
    uint8_t *longer = malloc(n + 4u);
    REQUIRE(longer != NULL);
    memcpy(longer, s, n);
    memset(longer + n, 0, 4u);
    uint64_t total = n + 4u;
    for (unsigned k = 0; k < 8u; k++)
        longer[24u + k] = (uint8_t)(total >> (8u * k));
    test_snapshot_reseal(longer, n + 4u);
    w = (throng_world *)1;
    CHECK_STATUS(throng_world_load(longer, n + 4u, &def, &w),
                 THRONG_ERR_BAD_SNAPSHOT);
    CHECK(w == NULL);
    free(longer);
    free(bad);
    free(s);
}

/* Every row's limits are checked on load, not only the first: with the
 * saving world's limits shared (folded to one row), a resealed snapshot
 * with a non-finite or negative limit in any row is refused. */
TEST(snapshot_bad_limit_in_any_row_refused) {
    throng_world_def wd = throng_world_def_default();
    throng_world *w = NULL;
    REQUIRE_OK(throng_world_create(&wd, &w));
    const float mass = 1.3125f, max_force = 3.375f, max_speed = 5.625f;
    const uint32_t agents = 5u;
    for (uint32_t i = 0; i < agents; i++) {
        throng_agent_def ad = throng_agent_def_default();
        ad.position[0] = (float)i;
        ad.mass = mass;
        ad.max_force = max_force;
        ad.max_speed = max_speed;
        throng_agent h;
        REQUIRE_OK(throng_agent_add(w, &ad, &h));
    }
    size_t n = 0;
    uint8_t *s = snap_test_save(w, &n);
    REQUIRE(s != NULL);
    uint8_t *bad = malloc(n);
    REQUIRE(bad != NULL);
    const float limits[] = { mass, max_force, max_speed };
    const float lies[] = { NAN, INFINITY, -1.0f };
    for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++) {
        uint32_t rows = 0;
        for (size_t at = SNAP_TEST_HEADER; at + 4u <= n; at++) {
            if (memcmp(s + at, &limits[l], 4u) != 0)
                continue;
            rows++;
            for (size_t k = 0; k < sizeof lies / sizeof lies[0]; k++) {
                memcpy(bad, s, n);
                memcpy(bad + at, &lies[k], 4u);
                test_snapshot_reseal(bad, n);
                throng_world *copy = (throng_world *)1;
                throng_status st = throng_world_load(bad, n, NULL, &copy);
                if (st != THRONG_ERR_BAD_SNAPSHOT || copy != NULL) {
                    runner_fail(__FILE__, __LINE__,
                                "limit %zu, byte %zu set to %g: got %s", l, at,
                                (double)lies[k], throng_status_string(st));
                    throng_world_destroy(copy != (throng_world *)1 ? copy
                                                                   : NULL);
                }
            }
        }
        /* Each agent's row holds the limit once. */
        CHECK_EQ_INT(rows, agents);
    }
    free(bad);
    free(s);
    throng_world_destroy(w);
}

TEST(snapshot_future_version_refused) {
    size_t n = 0;
    uint8_t *s = snap_test_small(2, &n);
    REQUIRE(s != NULL);
    CHECK_EQ_INT(snap_test_get_u32(s + SNAP_TEST_VERSION_AT),
                 THRONG_SNAPSHOT_VERSION);
    CHECK(memcmp(s, "THRNGSNP", 8) == 0);
    char why[256] = "";
    throng_world_load_def def = throng_world_load_def_default();
    def.error = why;
    def.error_capacity = sizeof why;
    /* Resealed, so it is the version alone that is refused. */
    snap_test_put_u32(s + SNAP_TEST_VERSION_AT, THRONG_SNAPSHOT_VERSION + 1u);
    test_snapshot_reseal(s, n);
    throng_world *w = (throng_world *)1;
    CHECK_STATUS(throng_world_load(s, n, &def, &w), THRONG_ERR_VERSION);
    CHECK(w == NULL);
    CHECK(strstr(why, "version") != NULL);
    /* A newer format may change everything after the version: a future
     * snapshot shorter than this format's header is still refused as
     * newer. */
    snap_test_put_u32(s + SNAP_TEST_VERSION_AT, 0xFFFFFFFFu);
    CHECK_STATUS(throng_world_load(s, n, &def, &w), THRONG_ERR_VERSION);
    snap_test_put_u32(s + SNAP_TEST_VERSION_AT, 0u);
    test_snapshot_reseal(s, n);
    CHECK_STATUS(throng_world_load(s, n, &def, &w), THRONG_ERR_BAD_SNAPSHOT);
    CHECK(w == NULL);
    char path[256];
    snap_test_path(path, sizeof path, "future");
    snap_test_put_u32(s + SNAP_TEST_VERSION_AT, THRONG_SNAPSHOT_VERSION + 1u);
    FILE *f = fopen(path, "wb");
    REQUIRE(f != NULL);
    CHECK_EQ_INT(fwrite(s, 1, n, f), n);
    fclose(f);
    CHECK_STATUS(throng_world_load_file(path, &def, &w), THRONG_ERR_VERSION);
    CHECK(w == NULL);
    remove(path);
    free(s);
}

TEST(snapshot_null_arguments) {
    throng_world_def wd = throng_world_def_default();
    throng_world *w = NULL;
    REQUIRE_OK(throng_world_create(&wd, &w));
    throng_agent_def ad = throng_agent_def_default();
    throng_agent a;
    REQUIRE_OK(throng_agent_add(w, &ad, &a));
    uint64_t hash = throng_world_hash(w);
    size_t n = 0;
    uint8_t buffer[8];

    CHECK_STATUS(throng_world_snapshot_size(NULL, &n), THRONG_ERR_NULL);
    CHECK_STATUS(throng_world_snapshot_size(w, NULL), THRONG_ERR_NULL);
    CHECK(strlen(throng_world_last_error(w)) > 10u);
    CHECK_STATUS(throng_world_save(NULL, buffer, sizeof buffer, &n),
                 THRONG_ERR_NULL);
    CHECK_STATUS(throng_world_save(w, NULL, 100u, &n), THRONG_ERR_NULL);
    CHECK(strlen(throng_world_last_error(w)) > 10u);
    CHECK_STATUS(throng_world_save_file(NULL, "/tmp/x"), THRONG_ERR_NULL);
    CHECK_STATUS(throng_world_save_file(w, NULL), THRONG_ERR_NULL);
    CHECK_EQ_U64(throng_world_hash(w), hash);

    size_t size = 0;
    uint8_t *s = snap_test_save(w, &size);
    REQUIRE(s != NULL);
    char why[128];
    throng_world_load_def def = throng_world_load_def_default();
    def.error = why;
    def.error_capacity = sizeof why;
    throng_world *out = (throng_world *)1;
    why[0] = '\0';
    CHECK_STATUS(throng_world_load(NULL, size, &def, &out), THRONG_ERR_NULL);
    CHECK(out == NULL);
    CHECK(strlen(why) > 10u);
    CHECK_STATUS(throng_world_load(s, size, &def, NULL), THRONG_ERR_NULL);
    CHECK_STATUS(throng_world_load_file(NULL, &def, &out), THRONG_ERR_NULL);
    CHECK_STATUS(throng_world_load_file("/tmp/x", &def, NULL), THRONG_ERR_NULL);
    /* A load that succeeds clears the message. */
    CHECK_OK(throng_world_load(s, size, &def, &out));
    throng_world_destroy(out);
    CHECK(strcmp(why, "") == 0);
    /* A tiny error buffer is filled and terminated, never overrun. */
    char tiny[6] = { 'x', 'x', 'x', 'x', 'x', 'x' };
    def.error = tiny;
    def.error_capacity = 5u;
    CHECK_STATUS(throng_world_load(s, 3u, &def, &out), THRONG_ERR_BAD_SNAPSHOT);
    CHECK(tiny[4] == '\0' && tiny[5] == 'x');
    /* NULL def: defaults. */
    CHECK_OK(throng_world_load(s, size, NULL, &out));
    CHECK_EQ_U64(throng_world_hash(out), hash);
    throng_world_destroy(out);
    free(s);
    throng_world_destroy(w);
}

/* The allocator a load is given serves the new world (and the file's
 * bytes), and a refused load leaves nothing allocated. */
TEST(snapshot_allocator_and_half_allocator) {
    size_t n = 0;
    uint8_t *s = snap_test_small(3, &n);
    REQUIRE(s != NULL);
    ts_heap heap = { 0 };
    throng_world_load_def def = throng_world_load_def_default();
    def.allocator = ts_heap_allocator(&heap);
    throng_world *w = NULL;
    REQUIRE_OK(throng_world_load(s, n, &def, &w));
    CHECK(heap.blocks > 0);
    REQUIRE_OK(throng_world_step(w, 0.05f));
    throng_world_destroy(w);
    CHECK_EQ_INT(heap.blocks, 0);

    char path[256];
    snap_test_path(path, sizeof path, "alloc");
    FILE *f = fopen(path, "wb");
    REQUIRE(f != NULL);
    CHECK_EQ_INT(fwrite(s, 1, n, f), n);
    fclose(f);
    REQUIRE_OK(throng_world_load_file(path, &def, &w));
    throng_world_destroy(w);
    CHECK_EQ_INT(heap.blocks, 0);
    remove(path);

    /* Refused deep inside (a resealed lie in the last column): every
     * block allocated on the way is given back. */
    s[n - 1u] ^= 0xFFu; /* the slot column's last byte: an unknown slot */
    test_snapshot_reseal(s, n);
    w = (throng_world *)1;
    CHECK_STATUS(throng_world_load(s, n, &def, &w), THRONG_ERR_BAD_SNAPSHOT);
    CHECK(w == NULL);
    CHECK_EQ_INT(heap.blocks, 0);
    CHECK_EQ_U64(heap.violations, 0);

    def.allocator.free = NULL;
    w = (throng_world *)1;
    CHECK_STATUS(throng_world_load(s, n, &def, &w), THRONG_ERR_NULL);
    CHECK(w == NULL);
    free(s);
}

TEST(snapshot_capacity_gives_size) {
    throng_world *w = snap_test_scenario("every2d", 60u, 1);
    REQUIRE(w != NULL);
    REQUIRE_OK(throng_world_step(w, 0.05f));
    uint64_t hash = throng_world_hash(w);
    size_t size = 0, got = 0;
    REQUIRE_OK(throng_world_snapshot_size(w, &size));
    CHECK(size > 40u);
    CHECK_STATUS(throng_world_save(w, NULL, 0u, &got), THRONG_ERR_CAPACITY);
    CHECK_EQ_INT(got, size);
    uint8_t *buffer = malloc(size);
    REQUIRE(buffer != NULL);
    memset(buffer, 0xAB, size);
    got = 0;
    CHECK_STATUS(throng_world_save(w, buffer, size - 1u, &got),
                 THRONG_ERR_CAPACITY);
    CHECK_EQ_INT(got, size);
    CHECK(strstr(throng_world_last_error(w), "needs") != NULL);
    int untouched = 1;
    for (size_t i = 0; i < size; i++)
        untouched &= buffer[i] == 0xABu;
    CHECK(untouched);
    CHECK_OK(throng_world_save(w, buffer, size, NULL));
    CHECK_EQ_U64(throng_world_hash(w), hash);
    throng_world *copy = snap_test_load(buffer, size);
    CHECK(copy != NULL);
    throng_world_destroy(copy);
    free(buffer);
    throng_world_destroy(w);
}

TEST(snapshot_status_strings) {
    const throng_status codes[] = { THRONG_ERR_CAPACITY,
                                    THRONG_ERR_BAD_SNAPSHOT, THRONG_ERR_VERSION,
                                    THRONG_ERR_IO };
    CHECK_EQ_INT(THRONG_ERR_BAD_SNAPSHOT, 10);
    CHECK_EQ_INT(THRONG_ERR_VERSION, 11);
    CHECK_EQ_INT(THRONG_ERR_IO, 12);
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *text = throng_status_string(codes[i]);
        CHECK(strcmp(text, "unknown status") != 0);
        for (size_t k = 0; k < i; k++)
            CHECK(strcmp(text, throng_status_string(codes[k])) != 0);
    }
}

/* A periodic box stretches each axis's cell edge on its own; the reload
 * must rebuild the grid from the cell size the world was made with, not
 * from the edge along x (which here would ask for 10^7 cells along y). */
TEST(snapshot_uneven_periodic_box) {
    throng_world_def d = throng_world_def_default();
    d.boundary = THRONG_BOUNDARY_PERIODIC;
    d.box_size[0] = 3.0f;
    d.box_size[1] = 1e7f;
    d.cell_size = 1000.0f;
    throng_world *w = NULL;
    REQUIRE_OK(throng_world_create(&d, &w));
    throng_agent_def a = throng_agent_def_default();
    a.position[1] = 5e6f;
    a.velocity[0] = 0.5f;
    throng_agent h;
    REQUIRE_OK(throng_agent_add(w, &a, &h));
    REQUIRE_OK(throng_world_step(w, 0.1f));
    size_t size = 0;
    uint8_t *buf = snap_test_save(w, &size);
    REQUIRE(buf != NULL);
    throng_world *back = snap_test_load(buf, size);
    if (back) {
        CHECK_EQ_U64(throng_world_hash(back), throng_world_hash(w));
        CHECK_OK(throng_world_step(back, 0.1f));
        CHECK_OK(throng_world_step(w, 0.1f));
        CHECK_EQ_U64(throng_world_hash(back), throng_world_hash(w));
    }
    throng_world_destroy(back);
    throng_world_destroy(w);
    free(buf);
}

/* One world shape for the grid plan tests: dimensions, boundary, box,
 * neighbour radius and the cell size asked for. */
typedef struct snap_test_shape {
    int dims;
    int periodic;
    float box[3];
    float radius;
    float cell_size;
} snap_test_shape;

/* Shapes that reach every branch of the grid's planning: the default and
 * asked-for cell sizes, cells larger and smaller than the radius (reach 1
 * to GRID_MAX_REACH), a periodic axis of exactly three cells, boxes whose
 * axes are stretched unevenly, and small boxes where the planner takes
 * fewer cells than the cell size asks for so the walked block fits. */
static const snap_test_shape snap_test_shapes[] = {
    { 2, 0, { 0.0f, 0.0f, 0.0f }, 1.0f, 0.0f },
    { 2, 0, { 0.0f, 0.0f, 0.0f }, 1.5f, 0.4f },
    { 3, 0, { 0.0f, 0.0f, 0.0f }, 0.8f, 2.5f },
    { 3, 0, { 0.0f, 0.0f, 0.0f }, 1.0f, 0.26f },
    { 2, 1, { 20.0f, 20.0f, 0.0f }, 1.0f, 0.0f },
    { 2, 1, { 3.0f, 50.0f, 0.0f }, 1.0f, 0.0f },
    { 2, 1, { 3.0f, 7.3f, 0.0f }, 1.0f, 0.45f },
    { 2, 1, { 12.0f, 12.5f, 0.0f }, 1.0f, 0.25f },
    { 3, 1, { 10.0f, 4.0f, 6.5f }, 1.0f, 0.26f },
    { 3, 1, { 17.3f, 9.1f, 3.4f }, 1.1f, 1.7f },
    { 3, 1, { 31.0f, 7.0f, 9.9f }, 2.3f, 0.0f },
};

/* A world of the shape with agents spread over it (over a region about
 * the box's size when unbounded), stepped twice so its grid was built. */
static throng_world *snap_test_shape_world(const snap_test_shape *sh,
                                           uint64_t seed) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = sh->dims;
    d.boundary =
        sh->periodic ? THRONG_BOUNDARY_PERIODIC : THRONG_BOUNDARY_UNBOUNDED;
    for (int a = 0; a < 3; a++)
        d.box_size[a] = sh->periodic && a < sh->dims ? sh->box[a] : 10.0f;
    d.neighbour_radius = sh->radius;
    d.cell_size = sh->cell_size;
    d.seed = seed;
    throng_world *w = NULL;
    if (throng_world_create(&d, &w) != THRONG_OK)
        return NULL;
    uint64_t rng = seed;
    for (int i = 0; i < 60; i++) {
        throng_agent_def a = throng_agent_def_default();
        for (int k = 0; k < sh->dims; k++) {
            a.position[k] = (float)(ts_unit(&rng) * (double)d.box_size[k]);
            a.velocity[k] = (float)(ts_unit(&rng) - 0.5);
        }
        throng_agent h;
        if (throng_agent_add(w, &a, &h) != THRONG_OK) {
            throng_world_destroy(w);
            return NULL;
        }
    }
    if (!snap_test_step(w, 0.05f, 2)) {
        throng_world_destroy(w);
        return NULL;
    }
    return w;
}

/* The cells of two grids are the same, to the bit: edges and their
 * inverses, reach and box, and the cells per axis and their numbering
 * where these are fixed: in a periodic box always, in unbounded space
 * once both grids were built from the same agents (`built`). */
static void snap_test_same_cells(const grid *a, const grid *b, int built) {
    const int fixed = built || a->periodic;
    CHECK_EQ_INT(a->dims, b->dims);
    CHECK_EQ_INT(a->periodic, b->periodic);
    for (int k = 0; k < 3; k++) {
        CHECK(memcmp(&a->edge[k], &b->edge[k], sizeof(float)) == 0);
        CHECK(memcmp(&a->inv_edge[k], &b->inv_edge[k], sizeof(double)) == 0);
        CHECK_EQ_INT(a->reach[k], b->reach[k]);
        CHECK(memcmp(&a->box[k], &b->box[k], sizeof(float)) == 0);
        if (fixed) {
            CHECK_EQ_INT(a->n[k], b->n[k]);
            CHECK_EQ_INT(a->origin[k], b->origin[k]);
        }
    }
    if (fixed) {
        CHECK_EQ_INT(a->dense, b->dense);
        CHECK_EQ_U64(a->bucket_count, b->bucket_count);
    }
}

/* A world and its loaded copy: the same cells, the same hash, and five
 * steps to the same bits and the same rebuilt grid. */
static void snap_test_same_run(throng_world *w, throng_world *back) {
    snap_test_same_cells(&w->grid, &back->grid, 0);
    CHECK_EQ_U64(throng_world_hash(back), throng_world_hash(w));
    for (int s = 0; s < 5; s++) {
        CHECK_OK(throng_world_step(w, 0.05f));
        CHECK_OK(throng_world_step(back, 0.05f));
        CHECK_EQ_U64(throng_world_hash(back), throng_world_hash(w));
    }
    snap_test_same_cells(&w->grid, &back->grid, 1);
}

/* A loaded world has the grid cells of the world that was saved, which
 * are those the grid's own planning gives for its def; the two hash alike
 * and step to the same bits, grid and all. A planning rule that restoring
 * did not share would show here as a refused load or different cells. */
TEST(snapshot_restores_the_grid_plan) {
    const size_t shapes = sizeof snap_test_shapes / sizeof snap_test_shapes[0];
    for (size_t i = 0; i < shapes; i++) {
        const snap_test_shape *sh = &snap_test_shapes[i];
        throng_world *w = snap_test_shape_world(sh, 100u + i);
        REQUIRE(w != NULL);
        int32_t n[3];
        float edge[3];
        int reach[3];
        REQUIRE(grid_plan(sh->dims, sh->periodic, w->box, sh->radius,
                          sh->cell_size, n, edge, reach));
        for (int k = 0; k < 3; k++) {
            CHECK(memcmp(&edge[k], &w->grid.edge[k], sizeof(float)) == 0);
            CHECK_EQ_INT(reach[k], w->grid.reach[k]);
            if (sh->periodic)
                CHECK_EQ_INT(n[k], w->grid.n[k]);
        }
        size_t size = 0;
        uint8_t *buf = snap_test_save(w, &size);
        REQUIRE(buf != NULL);
        throng_world *back = snap_test_load(buf, size);
        if (back) {
            snap_test_same_run(w, back);
        }
        throng_world_destroy(back);
        throng_world_destroy(w);
        free(buf);
    }
}

/* A periodic world keeps the cells it was saved with even where its cell
 * size would now give others (a world loaded from a snapshot older than
 * the saved cell size keeps its cells so): each axis is checked with the
 * grid's rule for cutting an axis and put in place whole. Cells the rule
 * refuses refuse the snapshot. */
TEST(snapshot_keeps_saved_periodic_cells) {
    const snap_test_shape sh = { 2, 1, { 10.0f, 10.0f, 0.0f }, 1.0f, 0.0f };
    throng_world *w = snap_test_shape_world(&sh, 7u);
    REQUIRE(w != NULL);
    REQUIRE(w->grid.n[0] == 9 && w->grid.n[1] == 9);
    size_t size = 0;
    uint8_t *buf = snap_test_save(w, &size);
    REQUIRE(buf != NULL);
    /* The cell size asked for becomes 2 m, for which the grid would plan
     * five cells per axis. */
    const float asked = 2.0f;
    uint32_t bits;
    memcpy(&bits, &asked, sizeof bits);
    snap_test_put_u32(buf + SNAP_TEST_CELL_SIZE_AT, bits);
    test_snapshot_reseal(buf, size);
    throng_world *back = snap_test_load(buf, size);
    if (back) {
        float edge;
        int reach;
        CHECK(grid_plan_axis(10.0f, 1.0f, 9, &edge, &reach));
        CHECK(memcmp(&edge, &back->grid.edge[0], sizeof edge) == 0);
        CHECK_EQ_INT(reach, back->grid.reach[0]);
        snap_test_same_run(w, back);
    }
    throng_world_destroy(back);
    /* Eight cells of the saved edge along x: refused, and no world. */
    snap_test_put_u32(buf + SNAP_TEST_CELLS_AT, 8u);
    test_snapshot_reseal(buf, size);
    throng_world *bad = NULL;
    char why[256] = "";
    throng_world_load_def def = throng_world_load_def_default();
    def.error = why;
    def.error_capacity = sizeof why;
    CHECK_EQ_INT(throng_world_load(buf, size, &def, &bad),
                 THRONG_ERR_BAD_SNAPSHOT);
    CHECK(bad == NULL);
    CHECK(strstr(why, "periodic grid's axis 0 (8 cells") != NULL);
    throng_world_destroy(w);
    free(buf);
}

void register_snapshot_tests(void) {
    REGISTER(snapshot_uneven_periodic_box);
    REGISTER(snapshot_restores_the_grid_plan);
    REGISTER(snapshot_keeps_saved_periodic_cells);
    REGISTER(snapshot_continues_every2d);
    REGISTER(snapshot_continues_every3d);
    REGISTER(snapshot_continues_wander3d);
    REGISTER(snapshot_continues_flock2d);
    REGISTER(snapshot_history_2d_unbounded);
    REGISTER(snapshot_history_2d_periodic);
    REGISTER(snapshot_history_3d_periodic);
    REGISTER(snapshot_history_3d_unbounded);
    REGISTER(snapshot_empty_worlds);
    REGISTER(snapshot_file_round_trip);
    REGISTER(snapshot_every_truncation_refused);
    REGISTER(snapshot_every_flipped_byte_refused);
    REGISTER(snapshot_resealed_flips_never_crash);
    REGISTER(snapshot_inconsistent_structure_refused);
    REGISTER(snapshot_bad_limit_in_any_row_refused);
    REGISTER(snapshot_future_version_refused);
    REGISTER(snapshot_null_arguments);
    REGISTER(snapshot_allocator_and_half_allocator);
    REGISTER(snapshot_capacity_gives_size);
    REGISTER(snapshot_status_strings);
}
