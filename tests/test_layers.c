/* SPDX-License-Identifier: MIT */
/*
 * Interaction layers (throng_layers) through the public API: an agent's
 * rules see exactly the neighbours whose layer its mask holds, so in a
 * crowd of soldiers (who see only soldiers), civilians (who see everyone
 * but ghosts) and ghosts (seen by nobody, seeing nobody) each group moves
 * to the bit as it would beside only the agents it sees; that holds for
 * the flocking rules, the neighbour cap, unaligned collision avoidance,
 * ORCA and contact resolution, on every thread count and kernel path.
 * A civilian gives way to a soldier that ignores it, wholly, in ORCA and
 * in contacts. Bad settings are refused with the world unchanged, and
 * snapshots keep the layers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"

#include "internal.h"

#define LY_DT 0.1f
#define LY_SOLDIER 1u
#define LY_CIVILIAN 2u
#define LY_GHOST 3u

/* Which groups a world holds (bits 1 << LY_*), and how they steer. */
typedef struct ly_crowd {
    int dims;
    int threads;
    uint32_t present;
    int recipe; /* 0 flocking, 1 + a cap, 2 + avoid neighbours, 3 seek
                   with ORCA, 4 and contacts */
} ly_crowd;

/* A group of layer `layer` seeing `mask`, steering by cfg's recipe. */
static throng_group ly_group(throng_world *w, const ly_crowd *cfg,
                             uint32_t layer, uint32_t mask) {
    throng_group_def gd = throng_group_def_default();
    gd.layers.layer = layer;
    gd.layers.mask = mask;
    gd.flocking.separation_radius = 1.0f;
    gd.flocking.alignment_radius = 2.0f;
    gd.flocking.cohesion_radius = 2.0f;
    if (cfg->recipe < 3) {
        gd.flocking.separation_weight = 1.5f;
        gd.flocking.alignment_weight = 1.0f;
        gd.flocking.cohesion_weight = 1.0f;
    }
    if (cfg->recipe >= 1)
        gd.flocking.max_neighbours = 3u;
    if (cfg->recipe >= 3) {
        gd.avoidance.mode = THRONG_AVOIDANCE_ORCA;
        gd.avoidance.time_horizon = 2.0f;
    }
    if (cfg->recipe == 4)
        gd.avoidance.contact_iterations = 2u;
    throng_group g = THRONG_NULL_GROUP;
    if (throng_group_create(w, &gd, &g) != THRONG_OK)
        return THRONG_NULL_GROUP;
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_SEEK);
    if (throng_group_add_behaviour(w, g, &b, NULL) != THRONG_OK)
        return THRONG_NULL_GROUP;
    if (cfg->recipe >= 2) {
        b = throng_behaviour_default(THRONG_BEHAVIOUR_AVOID_NEIGHBOURS);
        if (throng_group_add_behaviour(w, g, &b, NULL) != THRONG_OK)
            return THRONG_NULL_GROUP;
    }
    return g;
}

/* 240 agents on a jittered lattice 0.6 m apart, the three kinds
 * interleaved row by row (so cells and vector lanes mix them), each
 * seeking a random point; the kinds not in cfg->present are left out.
 * Their handles in a[] (a zero handle for a kind left out). */
static throng_world *ly_make(const ly_crowd *cfg, const char *path,
                             throng_agent *a) {
    throng_world_def def = ts_world_def(cfg->dims, cfg->threads, NULL);
    def.neighbour_radius = 2.0f;
    throng_world *w = runner_on_path(ts_world_make(&def), path);
    if (!w)
        return NULL;
    const uint32_t all = ~0u;
    throng_group g[4] = { THRONG_NULL_GROUP, THRONG_NULL_GROUP,
                          THRONG_NULL_GROUP, THRONG_NULL_GROUP };
    /* Made in one order whatever is present, so group ids agree. */
    g[LY_SOLDIER] = ly_group(w, cfg, LY_SOLDIER, 1u << LY_SOLDIER);
    g[LY_CIVILIAN] = ly_group(w, cfg, LY_CIVILIAN, all & ~(1u << LY_GHOST));
    g[LY_GHOST] = ly_group(w, cfg, LY_GHOST, 0u);
    test_rng rng = test_rng_make(77u + (uint64_t)cfg->dims);
    for (int i = 0; i < 240; i++) {
        const uint32_t kind = 1u + (uint32_t)(i % 3);
        const int per = cfg->dims == 2 ? 16 : 6;
        const int column = i % per, row = (i / per) % per;
        const int level = i / (per * per); /* whole lattice levels */
        float p[3] = { 0.6f * (float)column, 0.6f * (float)row,
                       cfg->dims == 3 ? 0.6f * (float)level : 0.0f };
        for (int k = 0; k < cfg->dims; k++)
            p[k] += test_rng_range(&rng, -0.15f, 0.15f);
        float goal[3] = { test_rng_range(&rng, 0.0f, 10.0f),
                          test_rng_range(&rng, 0.0f, 10.0f),
                          cfg->dims == 3 ? test_rng_range(&rng, 0.0f, 4.0f)
                                         : 0.0f };
        float v[3] = { test_rng_range(&rng, -0.5f, 0.5f),
                       test_rng_range(&rng, -0.5f, 0.5f),
                       cfg->dims == 3 ? test_rng_range(&rng, -0.5f, 0.5f)
                                      : 0.0f };
        a[i] = (throng_agent){ 0 };
        if (cfg->recipe < 3 && !((cfg->present >> kind) & 1u))
            continue;
        throng_agent_def d = throng_agent_def_default();
        memcpy(d.position, p, sizeof d.position);
        memcpy(d.velocity, v, sizeof d.velocity);
        d.radius = 0.2f;
        d.max_speed = 1.0f;
        d.max_force = 5.0f;
        d.group = g[kind];
        if (throng_agent_add(w, &d, &a[i]) != THRONG_OK ||
            throng_agent_set_target_point(w, a[i], goal) != THRONG_OK) {
            throng_world_destroy(w);
            return NULL;
        }
    }
    /* With ORCA the kinds left out are removed rather than never added:
     * the others keep their slots, and with them ORCA's nudges and
     * tie-breaks (its choice does not depend on the rows' order, which
     * removing changes; the flocking sums do, hence the other way for
     * them). */
    for (int i = 0; i < 240 && cfg->recipe >= 3; i++)
        if (!((cfg->present >> (1u + (uint32_t)(i % 3))) & 1u)) {
            if (throng_agent_remove(w, a[i]) != THRONG_OK) {
                throng_world_destroy(w);
                return NULL;
            }
            a[i] = (throng_agent){ 0 };
        }
    return w;
}

/* One agent's position and velocity, as bits. */
typedef struct ly_state {
    float p[3], v[3];
} ly_state;

static void ly_read(const throng_world *w, throng_agent a, ly_state *s) {
    memset(s, 0, sizeof *s);
    (void)throng_agent_get_position(w, a, s->p);
    (void)throng_agent_get_velocity(w, a, s->v);
}

/* Steps the world of cfg `steps` times; every agent's state into out. */
static int ly_run(const ly_crowd *cfg, int steps, ly_state *out) {
    throng_agent a[240];
    throng_world *w = ly_make(cfg, NULL, a);
    if (!w)
        return 0;
    int ok = 1;
    for (int s = 0; s < steps && ok; s++)
        ok = throng_world_step(w, LY_DT) == THRONG_OK;
    for (int i = 0; i < 240; i++)
        if (a[i].generation)
            ly_read(w, a[i], &out[i]);
    throng_world_destroy(w);
    return ok;
}

/* Each kind of agent moves to the bit as it moves beside only the agents
 * it sees: soldiers beside soldiers alone, ghosts alone, civilians beside
 * soldiers and civilians (the ghosts among them taken away). One step,
 * for every recipe in 2D and 3D (after one step every neighbour is where
 * both worlds put it, so the comparison is of the neighbour walks, not
 * of diverging histories). */
TEST(layers_hide_exactly) {
    const uint32_t everyone =
        1u << LY_SOLDIER | 1u << LY_CIVILIAN | 1u << LY_GHOST;
    static ly_state full[240], part[240];
    for (int dims = 2; dims <= 3; dims++)
        for (int recipe = 0; recipe <= 4; recipe++) {
            ly_crowd cfg = { dims, 1, everyone, recipe };
            REQUIRE(ly_run(&cfg, 1, full));
            const uint32_t alone[3][2] = {
                { LY_SOLDIER, 1u << LY_SOLDIER },
                { LY_GHOST, 1u << LY_GHOST },
                { LY_CIVILIAN, 1u << LY_SOLDIER | 1u << LY_CIVILIAN },
            };
            for (int k = 0; k < 3; k++) {
                ly_crowd sub = cfg;
                sub.present = alone[k][1];
                REQUIRE(ly_run(&sub, 1, part));
                int differ = 0;
                for (int i = 0; i < 240; i++)
                    if (1u + (uint32_t)(i % 3) == alone[k][0])
                        differ +=
                            memcmp(&full[i], &part[i], sizeof full[i]) != 0;
                if (differ)
                    runner_fail(__FILE__, __LINE__,
                                "%dD recipe %d: %d agents of kind %u move "
                                "otherwise beside those they do not see",
                                dims, recipe, differ, alone[k][0]);
            }
            /* And the masks matter: with every mask full, the soldiers
             * move otherwise. */
            throng_agent a[240];
            throng_world *w = ly_make(&cfg, NULL, a);
            REQUIRE(w != NULL);
            throng_layers open = { 0u, ~0u };
            for (uint32_t id = 1; id <= 3; id++) {
                open.layer = id;
                REQUIRE_OK(
                    throng_group_set_layers(w, first_group(w, id), &open));
            }
            REQUIRE_OK(throng_world_step(w, LY_DT));
            int moved = 0;
            for (int i = 0; i < 240; i += 3) {
                ly_state s;
                ly_read(w, a[i], &s);
                moved += memcmp(&s, &full[i], sizeof s) != 0;
            }
            CHECK(moved > 10);
            throng_world_destroy(w);
        }
}

static uint64_t ly_hash_run(const void *cfg, const char *path) {
    throng_agent a[240];
    return runner_steps_hash(ly_make(cfg, path, a), path, 30, LY_DT);
}

/* The layered crowd over 30 steps: the same bits on 1 to 4 threads and
 * on every kernel path, for each recipe. */
TEST(layers_threads_and_paths) {
    const uint32_t everyone =
        1u << LY_SOLDIER | 1u << LY_CIVILIAN | 1u << LY_GHOST;
    for (int dims = 2; dims <= 3; dims++)
        for (int recipe = 0; recipe <= 4; recipe += 2) {
            ly_crowd cfg = { dims, 1, everyone, recipe };
            const uint64_t one = ly_hash_run(&cfg, NULL);
            CHECK(one != 0u);
            for (int threads = 2; threads <= 4; threads++) {
                cfg.threads = threads;
                CHECK_EQ_U64(ly_hash_run(&cfg, NULL), one);
            }
            cfg.threads = 1;
            char what[48];
            snprintf(what, sizeof what, "%dD layered recipe %d", dims, recipe);
            runner_paths_match_scalar(__FILE__, __LINE__, what, ly_hash_run,
                                      &cfg);
        }
}

/* Two ORCA agents head-on, a soldier who does not see civilians and a
 * civilian who sees it: the soldier walks its straight line exactly as
 * it would alone, the civilian takes the whole avoidance, and the two
 * never touch. */
TEST(layers_orca_gives_way) {
    for (int dims = 2; dims <= 3; dims++) {
        const ly_crowd cfg = { dims, 1, 0u, 3 };
        float track[200][3];
        for (int with = 0; with <= 1; with++) {
            throng_world_def def = ts_world_def(dims, 1, NULL);
            def.neighbour_radius = 3.0f;
            throng_world *w = ts_world_make(&def);
            REQUIRE(w != NULL);
            throng_group soldiers =
                ly_group(w, &cfg, LY_SOLDIER, 1u << LY_SOLDIER);
            throng_group civilians = ly_group(w, &cfg, LY_CIVILIAN, ~0u);
            throng_flocking none = throng_flocking_default();
            REQUIRE_OK(throng_group_set_flocking(w, soldiers, &none));
            REQUIRE_OK(throng_group_set_flocking(w, civilians, &none));
            throng_agent_def d = throng_agent_def_default();
            d.radius = 0.25f;
            d.max_speed = 1.0f;
            d.max_force = 20.0f;
            d.group = soldiers;
            d.position[0] = -1.25f;
            d.velocity[0] = 1.0f;
            throng_agent s = { 0 }, c = { 0 };
            REQUIRE_OK(throng_agent_add(w, &d, &s));
            const float east[3] = { 50.0f, 0.0f, 0.0f };
            const float west[3] = { -50.0f, 0.0f, 0.0f };
            REQUIRE_OK(throng_agent_set_target_point(w, s, east));
            if (with) {
                d.group = civilians;
                d.position[0] = 1.25f;
                d.velocity[0] = -1.0f;
                REQUIRE_OK(throng_agent_add(w, &d, &c));
                REQUIRE_OK(throng_agent_set_target_point(w, c, west));
            }
            float closest = INFINITY;
            int strayed = 0;
            for (int step = 0; step < 200; step++) {
                REQUIRE_OK(throng_world_step(w, LY_DT));
                float ps[3] = { 0 }, pc[3] = { 0 };
                (void)throng_agent_get_position(w, s, ps);
                if (!with) {
                    memcpy(track[step], ps, sizeof ps);
                    continue;
                }
                strayed += memcmp(ps, track[step], sizeof ps) != 0;
                (void)throng_agent_get_position(w, c, pc);
                if (step == 0) {
                    /* The first step's velocities: the soldier keeps
                     * its own, so the civilian's alone must take the
                     * pair out of collision within the horizon (2 s)
                     * from where they were, 2.5 m apart. */
                    float vs[3] = { 0 }, vc[3] = { 0 };
                    (void)throng_agent_get_velocity(w, s, vs);
                    (void)throng_agent_get_velocity(w, c, vc);
                    const double rv[3] = { (double)vc[0] - (double)vs[0],
                                           (double)vc[1] - (double)vs[1],
                                           (double)vc[2] - (double)vs[2] };
                    const double rv2 =
                        rv[0] * rv[0] + rv[1] * rv[1] + rv[2] * rv[2];
                    double at = rv2 > 0.0 ? -2.5 * rv[0] / rv2 : 0.0;
                    at = at < 0.0 ? 0.0 : at > 2.0 ? 2.0 : at;
                    const double gap =
                        sqrt((2.5 + rv[0] * at) * (2.5 + rv[0] * at) +
                             rv[1] * at * rv[1] * at + rv[2] * at * rv[2] * at);
                    if (!(gap >= 0.5 * (1.0 - 1e-3)))
                        runner_fail(__FILE__, __LINE__,
                                    "%dD: the first velocities still meet "
                                    "within the horizon (%.4f m apart at "
                                    "%.3f s)",
                                    dims, gap, at);
                }
                const float dx = ps[0] - pc[0], dy = ps[1] - pc[1],
                            dz = ps[2] - pc[2];
                const float dist = sqrtf(dx * dx + dy * dy + dz * dz);
                closest = dist < closest ? dist : closest;
            }
            if (with) {
                CHECK(strayed == 0);
                if (!(closest >= 0.99f * 0.5f))
                    runner_fail(__FILE__, __LINE__,
                                "%dD: closest %.4f m, radii sum 0.5 m", dims,
                                (double)closest);
            }
            throng_world_destroy(w);
        }
    }
}

/* Contacts: a soldier and a civilian overlapping at rest, both
 * resolving. The soldier does not see the civilian and stays put; the
 * civilian moves the whole overlap. Two civilians share it. */
TEST(layers_contact) {
    for (int dims = 2; dims <= 3; dims++)
        for (int pair = 0; pair <= 1; pair++) {
            throng_world *w = ts_world(dims, 1, NULL);
            REQUIRE(w != NULL);
            throng_group_def gd = throng_group_def_default();
            gd.avoidance.contact_iterations = 1u;
            gd.layers.layer = LY_SOLDIER;
            gd.layers.mask = 1u << LY_SOLDIER;
            throng_group soldiers = THRONG_NULL_GROUP;
            throng_group civilians = THRONG_NULL_GROUP;
            REQUIRE_OK(throng_group_create(w, &gd, &soldiers));
            gd.layers.layer = LY_CIVILIAN;
            gd.layers.mask = ~0u;
            REQUIRE_OK(throng_group_create(w, &gd, &civilians));
            throng_agent_def d = throng_agent_def_default();
            d.radius = 0.25f;
            d.group = pair ? civilians : soldiers;
            d.position[0] = 1.0f;
            d.position[1] = 1.0f;
            throng_agent a = { 0 }, b = { 0 };
            REQUIRE_OK(throng_agent_add(w, &d, &a));
            d.group = civilians;
            d.position[0] = 1.12f; /* 0.2 m apart along 3-4-5 */
            d.position[1] = 1.16f;
            REQUIRE_OK(throng_agent_add(w, &d, &b));
            REQUIRE_OK(throng_world_step(w, LY_DT));
            float pa[3] = { 0 }, pb[3] = { 0 };
            (void)throng_agent_get_position(w, a, pa);
            (void)throng_agent_get_position(w, b, pb);
            const float share = pair ? 0.15f : 0.0f;
            CHECK_NEAR(pa[0], 1.0f - 0.6f * share, 1e-6);
            CHECK_NEAR(pa[1], 1.0f - 0.8f * share, 1e-6);
            CHECK_NEAR(pb[0], 1.12f + 0.6f * (0.3f - share), 1e-6);
            CHECK_NEAR(pb[1], 1.16f + 0.8f * (0.3f - share), 1e-6);
            throng_world_destroy(w);
        }
}

/* A layer past 31 is refused by name, by create and set alike, and
 * changes nothing; the get and set refuse NULL and a stale group; a
 * snapshot keeps the layers and the loaded world steps on to the same
 * bits. */
TEST(layers_bad_settings_and_snapshot) {
    const ly_crowd cfg = {
        2, 1, 1u << LY_SOLDIER | 1u << LY_CIVILIAN | 1u << LY_GHOST, 4
    };
    throng_agent a[240];
    throng_world *w = ly_make(&cfg, NULL, a);
    REQUIRE(w != NULL);
    const throng_group soldiers = first_group(w, 1u);
    throng_layers good;
    REQUIRE_OK(throng_group_get_layers(w, soldiers, &good));
    CHECK(good.layer == LY_SOLDIER && good.mask == 1u << LY_SOLDIER);
    const throng_layers defaults = throng_group_def_default().layers;
    CHECK(defaults.layer == 0u && defaults.mask == ~0u);
    const uint64_t hash = throng_world_hash(w);
    throng_layers bad = good;
    bad.layer = 32u;
    CHECK_STATUS(throng_group_set_layers(w, soldiers, &bad),
                 THRONG_ERR_OUT_OF_RANGE);
    CHECK(strstr(throng_world_last_error(w), "layer") != NULL);
    throng_group_def gd = throng_group_def_default();
    gd.layers = bad;
    throng_group none = THRONG_NULL_GROUP;
    CHECK_STATUS(throng_group_create(w, &gd, &none), THRONG_ERR_OUT_OF_RANGE);
    CHECK_STATUS(throng_group_set_layers(w, soldiers, NULL), THRONG_ERR_NULL);
    CHECK_STATUS(throng_group_get_layers(w, soldiers, NULL), THRONG_ERR_NULL);
    CHECK_STATUS(throng_group_get_layers(w, THRONG_NULL_GROUP, &bad),
                 THRONG_ERR_STALE_HANDLE);
    CHECK_STATUS(throng_group_set_layers(w, THRONG_NULL_GROUP, &good),
                 THRONG_ERR_STALE_HANDLE);
    throng_layers now;
    REQUIRE_OK(throng_group_get_layers(w, soldiers, &now));
    CHECK(memcmp(&now, &good, sizeof now) == 0);
    CHECK_EQ_U64(throng_world_hash(w), hash);

    for (int s = 0; s < 5; s++)
        REQUIRE_OK(throng_world_step(w, LY_DT));
    size_t n = 0;
    CHECK_STATUS(throng_world_save(w, NULL, 0, &n), THRONG_ERR_CAPACITY);
    unsigned char *buf = malloc(n);
    REQUIRE(buf != NULL);
    REQUIRE_OK(throng_world_save(w, buf, n, &n));
    throng_world *back = NULL;
    REQUIRE_OK(throng_world_load(buf, n, NULL, &back));
    for (uint32_t id = 1; id <= 3; id++) {
        throng_layers saved, loaded;
        REQUIRE_OK(throng_group_get_layers(w, first_group(w, id), &saved));
        REQUIRE_OK(
            throng_group_get_layers(back, first_group(back, id), &loaded));
        CHECK(memcmp(&saved, &loaded, sizeof saved) == 0);
    }
    for (int s = 0; s < 5; s++) {
        REQUIRE_OK(throng_world_step(w, LY_DT));
        REQUIRE_OK(throng_world_step(back, LY_DT));
    }
    CHECK_EQ_U64(throng_world_hash(w), throng_world_hash(back));
    free(buf);
    throng_world_destroy(back);
    throng_world_destroy(w);
}

void register_layers_tests(void) {
    REGISTER(layers_hide_exactly);
    REGISTER(layers_threads_and_paths);
    REGISTER(layers_orca_gives_way);
    REGISTER(layers_contact);
    REGISTER(layers_bad_settings_and_snapshot);
}
