/*
 * Contact resolution (contact.c): a pair is exactly touching after one
 * pass, each moved half of the overlap along the line between them, or
 * the one that resolves moved all of it when the other does not;
 * coincident agents part along x by slot; agents apart are left to the
 * bit; more passes take a packed crowd's deepest overlap further down;
 * and the positions are the same bits on every thread count and path.
 */
#include <math.h>
#include <string.h>

#include "runner.h"

#include "internal.h"
#include "kernel_paths.h"

#define CT_DT 0.1f

static throng_group ct_group(throng_world *w, uint32_t passes) {
    throng_group_def gd = throng_group_def_default();
    gd.avoidance.contact_iterations = passes;
    throng_group g = THRONG_NULL_GROUP;
    return throng_group_create(w, &gd, &g) == THRONG_OK ? g : THRONG_NULL_GROUP;
}

static throng_agent ct_agent(throng_world *w, throng_group g, float x, float y,
                             float z, float radius) {
    throng_agent_def d = throng_agent_def_default();
    d.position[0] = x;
    d.position[1] = y;
    d.position[2] = z;
    d.radius = radius;
    d.group = g;
    throng_agent a = { 0 };
    (void)throng_agent_add(w, &d, &a);
    return a;
}

static void ct_pos(const throng_world *w, throng_agent a, float p[3]) {
    p[0] = p[1] = p[2] = 0.0f;
    (void)throng_agent_get_position(w, a, p);
}

/* Two agents at rest 0.2 m apart with radii 0.25: one pass leaves them
 * touching, each 0.15 m out along the line between them (3-4-5 so the
 * unit vector is exact); against an agent that does not resolve, the
 * other moves the whole 0.3 m and it does not move at all. */
TEST(contact_pair) {
    for (int dims = 2; dims <= 3; dims++)
        for (int both = 0; both <= 1; both++) {
            throng_world *w = ts_world(dims, 1, NULL);
            REQUIRE(w != NULL);
            throng_group g = ct_group(w, 1u);
            throng_group other = both ? g : ct_group(w, 0u);
            const float z = dims == 3 ? 2.0f : 0.0f;
            throng_agent a = ct_agent(w, g, 1.0f, 1.0f, z, 0.25f);
            throng_agent b = ct_agent(w, other, 1.12f, 1.16f, z, 0.25f);
            REQUIRE_OK(throng_world_step(w, CT_DT));
            float pa[3], pb[3];
            ct_pos(w, a, pa);
            ct_pos(w, b, pb);
            const float move = both ? 0.15f : 0.3f;
            CHECK_NEAR(pa[0], 1.0f - 0.6f * move, 2e-6f);
            CHECK_NEAR(pa[1], 1.0f - 0.8f * move, 2e-6f);
            CHECK_NEAR(pa[2], z, 0.0f);
            if (both) {
                CHECK_NEAR(pb[0], 1.12f + 0.6f * move, 2e-6f);
                CHECK_NEAR(pb[1], 1.16f + 0.8f * move, 2e-6f);
            } else {
                CHECK(pb[0] == 1.12f && pb[1] == 1.16f);
            }
            const float d = hypotf(pb[0] - pa[0], pb[1] - pa[1]);
            CHECK_NEAR(d, 0.5f, 2e-6f);
            throng_world_destroy(w);
        }
}

/* Coincident agents part along x, the lower slot to -x; agents apart,
 * even of a resolving group, keep their positions to the bit. */
TEST(contact_coincident_and_apart) {
    throng_world *w = ts_world(2, 1, NULL);
    REQUIRE(w != NULL);
    throng_group g = ct_group(w, 2u);
    throng_agent a = ct_agent(w, g, 3.0f, 3.0f, 0.0f, 0.25f);
    throng_agent b = ct_agent(w, g, 3.0f, 3.0f, 0.0f, 0.25f);
    throng_agent c = ct_agent(w, g, 5.0f, 3.0f, 0.0f, 0.25f);
    REQUIRE_OK(throng_world_step(w, CT_DT));
    float pa[3], pb[3], pc[3];
    ct_pos(w, a, pa);
    ct_pos(w, b, pb);
    ct_pos(w, c, pc);
    CHECK(pa[0] < 3.0f && pb[0] > 3.0f);
    CHECK_NEAR(pb[0] - pa[0], 0.5f, 2e-6f);
    CHECK(pa[1] == 3.0f && pb[1] == 3.0f);
    CHECK(pc[0] == 5.0f && pc[1] == 3.0f);
    throng_world_destroy(w);
}

/* A crowd at rest: 400 agents of radius 0.3 at random in a 16 m square
 * (a third of the area covered: pairs and small clusters overlap). */
typedef struct ct_crowd {
    int dims;
    uint32_t passes;
    int threads;
} ct_crowd;

static throng_world *ct_crowd_make(const ct_crowd *cfg, const char *path) {
    throng_world *w = ts_world(cfg->dims, cfg->threads, NULL);
    if (!w)
        return NULL;
    if (path && world_select_kernel(w, path) != 0) {
        throng_world_destroy(w);
        return NULL;
    }
    throng_group g = ct_group(w, cfg->passes);
    test_rng rng = test_rng_make(5u);
    for (int i = 0; i < 400; i++) {
        const float x = test_rng_range(&rng, 0.0f, 16.0f);
        const float y = test_rng_range(&rng, 0.0f, 16.0f);
        (void)ct_agent(w, g, x, y, cfg->dims == 3 ? 1.0f : 0.0f, 0.3f);
    }
    return w;
}

/* The deepest overlap of the crowd, as a fraction of the sum of radii. */
static float ct_deepest(const throng_world *w) {
    throng_columns c;
    if (throng_world_columns(w, &c) != THRONG_OK)
        return INFINITY;
    float worst = 0.0f;
    for (uint32_t i = 0; i < c.count; i++)
        for (uint32_t j = i + 1; j < c.count; j++) {
            const float d = hypotf(c.px[i] - c.px[j], c.py[i] - c.py[j]);
            const float depth = (0.6f - d) / 0.6f;
            worst = depth > worst ? depth : worst;
        }
    return worst;
}

static uint64_t ct_crowd_run(const void *cfg, const char *path) {
    throng_world *w = ct_crowd_make(cfg, path);
    if (!w)
        return path ? 1u : 0u;
    for (int s = 0; s < 3; s++)
        if (throng_world_step(w, CT_DT) != THRONG_OK) {
            throng_world_destroy(w);
            return 0;
        }
    const uint64_t h = throng_world_hash(w);
    throng_world_destroy(w);
    return h;
}

TEST(contact_crowd) {
    /* More passes, shallower overlaps. */
    float deepest[3];
    const uint32_t passes[3] = { 0u, 2u, 16u };
    for (int k = 0; k < 3; k++) {
        const ct_crowd cfg = { 2, passes[k], 1 };
        throng_world *w = ct_crowd_make(&cfg, NULL);
        REQUIRE(w != NULL);
        REQUIRE_OK(throng_world_step(w, CT_DT));
        deepest[k] = ct_deepest(w);
        throng_world_destroy(w);
    }
    printf("contact crowd: deepest overlap %.4f, %.4f, %.4f\n",
           (double)deepest[0], (double)deepest[1], (double)deepest[2]);
    CHECK(deepest[0] > 0.3f);
    CHECK(deepest[1] < 0.8f * deepest[0]);
    CHECK(deepest[2] < 0.5f * deepest[1]);
    /* The same bits on 1 to 4 threads and on every path. */
    for (int dims = 2; dims <= 3; dims++) {
        ct_crowd cfg = { dims, 6u, 1 };
        const uint64_t one = ct_crowd_run(&cfg, NULL);
        CHECK(one != 0u);
        for (int threads = 2; threads <= 4; threads++) {
            cfg.threads = threads;
            CHECK_EQ_U64(ct_crowd_run(&cfg, NULL), one);
        }
        runner_paths_match_scalar(__FILE__, __LINE__, "contact crowd",
                                  ct_crowd_run, &cfg);
    }
}

void register_contact_tests(void) {
    REGISTER(contact_pair);
    REGISTER(contact_coincident_and_apart);
    REGISTER(contact_crowd);
}
