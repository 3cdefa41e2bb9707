/* SPDX-License-Identifier: MIT */
/*
 * Group handles and the columns that name groups and host keys: removal
 * and reuse of ids with the next generation, the refusals that leave the
 * world as it was, the group and host-key columns against the per-agent
 * getters, snapshots that keep generations and free ids, and the object
 * defs' defaults.
 */
#include <stdlib.h>
#include <string.h>

#include "object_defs.h"
#include "runner.h"

static throng_world *groups_world(int dims) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = dims;
    d.neighbour_radius = 2.0f;
    d.boundary = THRONG_BOUNDARY_PERIODIC;
    d.box_size[0] = d.box_size[1] = d.box_size[2] = 40.0f;
    d.seed = 11u;
    throng_world *w = NULL;
    return throng_world_create(&d, &w) == THRONG_OK ? w : NULL;
}

static throng_group groups_make(throng_world *w, const char *name,
                                float separation) {
    throng_group_def gd = throng_group_def_default();
    gd.name = name;
    gd.flocking.separation_weight = separation;
    gd.flocking.cohesion_weight = 0.5f;
    gd.wander.weight = 0.2f;
    throng_group g = THRONG_NULL_GROUP;
    if (throng_group_create(w, &gd, &g) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "group refused: %s",
                    throng_world_last_error(w));
    return g;
}

static throng_agent groups_agent(throng_world *w, test_rng *rng, throng_group g,
                                 uint64_t key) {
    throng_agent_def d = throng_agent_def_default();
    for (int k = 0; k < 3; k++) {
        d.position[k] = test_rng_range(rng, 0.0f, 40.0f);
        d.velocity[k] = test_rng_range(rng, -1.0f, 1.0f);
    }
    d.group = g;
    d.host_key = key;
    throng_agent a = THRONG_NULL_AGENT;
    if (throng_agent_add(w, &d, &a) != THRONG_OK)
        runner_fail(__FILE__, __LINE__, "agent refused: %s",
                    throng_world_last_error(w));
    return a;
}

/* A refusal that must leave the world as it was: the status, a sentence
 * starting with the function's name, the same hash and groups. */
#define CHECK_GROUP_REFUSED(w, fn, expr, want)                                 \
    do {                                                                       \
        const uint64_t hash_ = throng_world_hash(w);                           \
        size_t bytes_ = 0, after_ = 0;                                         \
        CHECK_OK(throng_world_snapshot_size(w, &bytes_));                      \
        CHECK_STATUS(expr, want);                                              \
        CHECK(strncmp(throng_world_last_error(w), fn ": ", strlen(fn ": ")) == \
              0);                                                              \
        CHECK_EQ_U64(throng_world_hash(w), hash_);                             \
        CHECK_OK(throng_world_snapshot_size(w, &after_));                      \
        CHECK(after_ == bytes_);                                               \
    } while (0)

TEST(groups_remove_and_reuse) {
    throng_world *w = groups_world(2);
    REQUIRE(w != NULL);
    const uint64_t id = throng_world_id(w);
    throng_group birds = groups_make(w, "birds", 1.0f);
    throng_group fish = groups_make(w, "fish", 2.0f);
    throng_group bees = groups_make(w, NULL, 3.0f);
    CHECK(birds.id == 1u && fish.id == 2u && bees.id == 3u);
    CHECK(birds.generation == 1u && birds.world == id);
    test_rng rng = test_rng_make(5u);
    throng_agent a = groups_agent(w, &rng, birds, 0u);
    throng_agent b = groups_agent(w, &rng, birds, 0u);
    (void)groups_agent(w, &rng, fish, 0u);

    /* In use: refused, with the count; the default group never goes. */
    CHECK_GROUP_REFUSED(w, "throng_group_remove", throng_group_remove(w, birds),
                        THRONG_ERR_INVALID_ARG);
    CHECK(strstr(throng_world_last_error(w), "2 agents still belong") != NULL);
    CHECK_GROUP_REFUSED(w, "throng_group_remove",
                        throng_group_remove(w, default_group(w)),
                        THRONG_ERR_INVALID_ARG);
    CHECK(strstr(throng_world_last_error(w), "default group") != NULL);

    /* Empty: removed; its name is free, its handle stale everywhere. */
    CHECK_OK(throng_group_remove(w, bees));
    CHECK(!throng_group_valid(w, bees));
    CHECK_GROUP_REFUSED(w, "throng_group_remove", throng_group_remove(w, bees),
                        THRONG_ERR_STALE_HANDLE);
    throng_flocking fl;
    CHECK_GROUP_REFUSED(w, "throng_group_get_flocking",
                        throng_group_get_flocking(w, bees, &fl),
                        THRONG_ERR_STALE_HANDLE);
    CHECK_GROUP_REFUSED(w, "throng_agent_set_group",
                        throng_agent_set_group(w, a, bees),
                        THRONG_ERR_STALE_HANDLE);

    /* Moving the agents out lets birds go; the name is free again. */
    CHECK_OK(throng_agent_set_group(w, a, fish));
    CHECK_OK(throng_agent_set_group(w, b, THRONG_NULL_GROUP));
    throng_group got = THRONG_NULL_GROUP;
    CHECK_OK(throng_agent_get_group(w, b, &got));
    CHECK(same_group(got, default_group(w)));
    CHECK_OK(throng_group_remove(w, birds));
    CHECK_STATUS(throng_group_find(w, "birds", &got), THRONG_ERR_NOT_FOUND);

    /* Reuse: the id removed last first, one generation on; the old
     * handle stays refused although the id is live again. */
    throng_group again = groups_make(w, "birds", 0.5f);
    CHECK(again.id == birds.id && again.generation == birds.generation + 1u);
    CHECK_OK(throng_group_find(w, "birds", &got));
    CHECK(same_group(got, again));
    CHECK(!throng_group_valid(w, birds) && throng_group_valid(w, again));
    CHECK_GROUP_REFUSED(w, "throng_group_get_flocking",
                        throng_group_get_flocking(w, birds, &fl),
                        THRONG_ERR_STALE_HANDLE);
    CHECK_OK(throng_group_get_flocking(w, again, &fl));
    CHECK(fl.separation_weight == 0.5f);
    throng_group third = groups_make(w, NULL, 1.0f);
    CHECK(third.id == bees.id && third.generation == 2u);
    throng_group fourth = groups_make(w, NULL, 1.0f);
    CHECK(fourth.id == 4u && fourth.generation == 1u);

    /* Forged and other worlds' handles. */
    throng_world *other = groups_world(2);
    REQUIRE(other != NULL);
    throng_group theirs = groups_make(other, "fish", 1.0f);
    CHECK_GROUP_REFUSED(
        w, "throng_group_set_combine",
        throng_group_set_combine(w, theirs, THRONG_COMBINE_PRIORITY),
        THRONG_ERR_STALE_HANDLE);
    CHECK(strstr(throng_world_last_error(w), "another world") != NULL);
    CHECK_GROUP_REFUSED(w, "throng_group_remove",
                        throng_group_remove(w, theirs),
                        THRONG_ERR_STALE_HANDLE);
    const throng_group forged = { fish.id, 77u, id };
    CHECK_GROUP_REFUSED(w, "throng_group_clear_behaviours",
                        throng_group_clear_behaviours(w, forged),
                        THRONG_ERR_STALE_HANDLE);
    CHECK_GROUP_REFUSED(w, "throng_group_rebind",
                        throng_group_rebind(w, theirs, &got),
                        THRONG_ERR_STALE_HANDLE);
    CHECK_OK(throng_group_rebind(w, fish, &got));
    CHECK(same_group(got, fish));
    throng_world_destroy(other);
    throng_world_destroy(w);
}

/* Every row's group and host key, read from the columns, against the
 * getters of the agent at that row. */
static void check_columns_rows(throng_world *w, const char *when) {
    throng_columns c;
    REQUIRE_OK(throng_world_columns(w, &c));
    CHECK_EQ_INT(c.count, throng_world_agent_count(w));
    REQUIRE(c.group != NULL && c.host_key != NULL);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < c.count; i++) {
        throng_agent a;
        throng_group g;
        uint64_t key = 1u;
        REQUIRE_OK(throng_agent_at(w, i, &a));
        REQUIRE_OK(throng_agent_get_group(w, a, &g));
        REQUIRE_OK(throng_agent_get_host_key(w, a, &key));
        bad += c.group[i] != g.id || c.host_key[i] != key;
    }
    if (bad)
        runner_fail(__FILE__, __LINE__, "%s: %u of %u rows disagree", when, bad,
                    c.count);
}

TEST(groups_columns_match_getters) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world *w = groups_world(dims);
        REQUIRE(w != NULL);
        throng_group g[3] = { default_group(w), groups_make(w, "a", 1.0f),
                              groups_make(w, "b", 2.0f) };
        test_rng rng = test_rng_make(77u + (uint64_t)dims);
        enum {
            N = 400
        };
        throng_agent *h = malloc(N * sizeof *h);
        REQUIRE(h != NULL);
        for (uint32_t i = 0; i < N; i++)
            h[i] = groups_agent(w, &rng, g[i % 3u], i % 5u ? 1000u + i : 0u);
        check_columns_rows(w, "after adds");
        for (int s = 0; s < 5; s++)
            REQUIRE_OK(throng_world_step(w, 0.1f));
        check_columns_rows(w, "after steps");
        /* The rows really moved, so a stale copy would show. */
        uint32_t row = 0;
        REQUIRE_OK(throng_agent_index(w, h[1], &row));
        for (uint32_t i = 0; i < N; i += 7u)
            REQUIRE_OK(throng_agent_remove(w, h[i]));
        check_columns_rows(w, "after removals");
        for (uint32_t i = 3; i < N; i += 7u) {
            REQUIRE_OK(throng_agent_set_host_key(w, h[i], 50000u + i));
            REQUIRE_OK(throng_agent_set_group(w, h[i], g[(i + 1u) % 3u]));
        }
        REQUIRE_OK(throng_agent_set_host_key(w, h[1], 0u));
        check_columns_rows(w, "after key and group changes");
        /* Stable columns: the group column keeps its memory through a
         * step; the host-key column is refreshed by the next call. */
        REQUIRE_OK(throng_world_set_stable_columns(w, true));
        throng_columns before, after;
        REQUIRE_OK(throng_world_columns(w, &before));
        for (int s = 0; s < 3; s++)
            REQUIRE_OK(throng_world_step(w, 0.1f));
        REQUIRE_OK(throng_world_columns(w, &after));
        CHECK(before.group == after.group && before.host_key == after.host_key);
        check_columns_rows(w, "after stable steps");
        free(h);
        throng_world_destroy(w);
    }
}

TEST(groups_snapshot_round_trip) {
    throng_world *w = groups_world(3);
    REQUIRE(w != NULL);
    throng_group g1 = groups_make(w, "one", 1.0f);
    throng_group g2 = groups_make(w, "two", 2.0f);
    throng_group g3 = groups_make(w, NULL, 3.0f);
    throng_group g4 = groups_make(w, "four", 4.0f);
    test_rng rng = test_rng_make(3u);
    for (uint32_t i = 0; i < 60; i++)
        (void)groups_agent(w, &rng, i % 2u ? g1 : g4, i + 1u);
    /* Free ids 2 then 3 on the stack (3 on top); g2's id reused once. */
    CHECK_OK(throng_group_remove(w, g2));
    throng_group g2b = groups_make(w, NULL, 5.0f);
    CHECK(g2b.id == 2u && g2b.generation == 2u);
    CHECK_OK(throng_group_remove(w, g2b));
    CHECK_OK(throng_group_remove(w, g3));
    REQUIRE_OK(throng_world_step(w, 0.1f));

    size_t size = 0;
    REQUIRE_OK(throng_world_snapshot_size(w, &size));
    unsigned char *bytes = malloc(size);
    REQUIRE(bytes != NULL);
    REQUIRE_OK(throng_world_save(w, bytes, size, NULL));
    CHECK(bytes[8] == THRONG_SNAPSHOT_VERSION && THRONG_SNAPSHOT_VERSION >= 4u);
    throng_world *copy = NULL;
    REQUIRE_OK(throng_world_load(bytes, size, NULL, &copy));
    const uint64_t cid = throng_world_id(copy);

    /* Live groups rebind to the same id and generation; removed ones do
     * not; names come back. */
    throng_group got = THRONG_NULL_GROUP;
    CHECK_OK(throng_group_rebind(copy, g1, &got));
    CHECK(got.id == g1.id && got.generation == 1u && got.world == cid);
    CHECK_OK(throng_group_rebind(copy, g4, &got));
    CHECK(got.id == 4u && got.world == cid);
    CHECK_STATUS(throng_group_rebind(copy, g2b, &got), THRONG_ERR_STALE_HANDLE);
    CHECK_STATUS(throng_group_rebind(copy, g3, &got), THRONG_ERR_STALE_HANDLE);
    CHECK(!throng_group_valid(copy, g1));
    CHECK_OK(throng_group_find(copy, "four", &got));
    CHECK(got.id == 4u && got.generation == 1u);
    CHECK_STATUS(throng_group_find(copy, "two", &got), THRONG_ERR_NOT_FOUND);

    /* Both worlds hand out the same ids and generations next: 3 (gen 2),
     * then 2 (gen 3), then a new id 5. */
    const uint32_t want_id[3] = { 3u, 2u, 5u }, want_gen[3] = { 2u, 3u, 1u };
    for (int k = 0; k < 3; k++) {
        throng_group a = groups_make(w, NULL, 1.0f);
        throng_group b = groups_make(copy, NULL, 1.0f);
        CHECK(a.id == want_id[k] && a.generation == want_gen[k]);
        CHECK(b.id == a.id && b.generation == a.generation);
    }
    for (int s = 0; s < 10; s++) {
        REQUIRE_OK(throng_world_step(w, 0.1f));
        REQUIRE_OK(throng_world_step(copy, 0.1f));
    }
    CHECK_EQ_U64(throng_world_hash(copy), throng_world_hash(w));
    check_columns_rows(copy, "loaded world");

    free(bytes);
    throng_world_destroy(copy);
    throng_world_destroy(w);
}

TEST(groups_object_defaults) {
    const throng_obstacle_def o = throng_obstacle_def_default();
    CHECK(o.kind == THRONG_OBJECT_SPHERE && o.radius == 1.0f);
    for (int k = 0; k < 3; k++)
        CHECK(o.center[k] == 0.0f && o.min[k] == 0.0f && o.max[k] == 0.0f);
    const throng_wall_def wd = throng_wall_def_default();
    CHECK(wd.kind == THRONG_OBJECT_SEGMENT);
    for (int k = 0; k < 3; k++)
        CHECK(wd.a[k] == 0.0f && wd.b[k] == 0.0f && wd.point[k] == 0.0f &&
              wd.normal[k] == 0.0f);
    const throng_path_def pd = throng_path_def_default();
    CHECK(pd.points == NULL && pd.point_count == 0u && pd.radius == 1.0f &&
          !pd.closed);
    const throng_flow_field_def fd = throng_flow_field_def_default();
    CHECK(fd.cell_size == 1.0f && fd.vectors == NULL);
    for (int k = 0; k < 3; k++)
        CHECK(fd.size[k] == 1u && fd.origin[k] == 0.0f);

    throng_world *w = groups_world(2);
    REQUIRE(w != NULL);
    /* The default obstacle as it is: a unit sphere at the origin. */
    throng_object s, p, f;
    CHECK_OK(throng_obstacle_add(w, &o, &s));
    throng_object_info info;
    CHECK_OK(throng_object_get(w, s, &info));
    CHECK(info.kind == THRONG_OBJECT_SPHERE && info.radius == 1.0f &&
          info.a[0] == 0.0f && info.b[0] == 0.0f);
    /* The default wall has both ends at the origin: a segment of length
     * 0 is refused for its length, not for its unread fields. */
    throng_object seg;
    CHECK_GROUP_REFUSED(w, "throng_wall_add", throng_wall_add(w, &wd, &seg),
                        THRONG_ERR_OUT_OF_RANGE);
    /* A plane's normal is stored at unit length. */
    throng_wall_def plane = wd;
    plane.kind = THRONG_OBJECT_PLANE;
    plane.normal[0] = 3.0f;
    plane.normal[1] = 4.0f;
    CHECK_OK(throng_wall_add(w, &plane, &seg));
    CHECK_OK(throng_object_get(w, seg, &info));
    CHECK(info.kind == THRONG_OBJECT_PLANE);
    CHECK_NEAR(info.b[0], 0.6f, 1e-6);
    CHECK_NEAR(info.b[1], 0.8f, 1e-6);
    /* A box from the default needs the radius cleared: the sentence
     * names the field and the kind. */
    throng_obstacle_def box = o;
    box.kind = THRONG_OBJECT_BOX;
    box.max[0] = box.max[1] = box.max[2] = 1.0f;
    throng_object bo;
    CHECK_GROUP_REFUSED(w, "throng_obstacle_add",
                        throng_obstacle_add(w, &box, &bo),
                        THRONG_ERR_INVALID_ARG);
    CHECK(strstr(throng_world_last_error(w),
                 "radius is for spheres; this def's kind is BOX") != NULL);
    box.radius = 0.0f;
    CHECK_OK(throng_obstacle_add(w, &box, &bo));
    CHECK_OK(throng_object_get(w, bo, &info));
    CHECK(info.kind == THRONG_OBJECT_BOX && info.b[1] == 1.0f);
    /* Paths and fields from their defaults plus the data. */
    const float pts[6] = { 0, 0, 0, 3, 4, 0 };
    throng_path_def path = pd;
    path.points = pts;
    path.point_count = 2u;
    CHECK_OK(throng_path_add(w, &path, &p));
    CHECK_OK(throng_object_get(w, p, &info));
    CHECK(info.point_count == 2u && info.radius == 1.0f && !info.closed);
    const float vec[2] = { 1.0f, -1.0f };
    throng_flow_field_def field = fd;
    field.vectors = vec;
    CHECK_OK(throng_flow_field_add(w, &field, &f));
    CHECK_OK(throng_object_get(w, f, &info));
    CHECK(info.size[0] == 1u && info.size[1] == 1u && info.vectors[1] == -1.0f);
    CHECK_EQ_INT(throng_world_object_count(w), 5);
    throng_world_destroy(w);
}

void register_groups_tests(void) {
    REGISTER(groups_remove_and_reuse);
    REGISTER(groups_columns_match_getters);
    REGISTER(groups_snapshot_round_trip);
    REGISTER(groups_object_defaults);
}
