/* SPDX-License-Identifier: MIT */
/*
 * Lengths at the ends of their range, and what capacity costs.
 *
 * Every length the API takes lies in [THRONG_MIN_LENGTH,
 * THRONG_MAX_LENGTH] (throng.h says why): a radius whose square left the
 * float range made every candidate a neighbour. At both ends of the range,
 * in 2D and 3D, periodic and unbounded, on the scalar and the widest
 * vector path, the neighbours a query and a step's walk find are checked
 * against a brute force in double; just outside the range every length is
 * refused, with a sentence giving the range, and the world is unchanged.
 * Agents far apart near the float limits, whose offsets overflow to
 * infinity, are never neighbours. Queries take any radius >= 0 and are
 * checked in double where its square is not a normal float.
 *
 * Capacity: initial_capacity reserves room without writing it, so a
 * world of 2^22 rows costs little time and memory, and one of
 * THRONG_MAX_AGENTS rows under an address-space limit is refused with
 * THRONG_ERR_OUT_OF_MEMORY rather than ending the process.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "object_defs.h"
#include "runner.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

#define RANGES_AGENTS 60

/* The last error holds the range's bounds as the library prints them. */
static void ranges_check_sentence(const char *sentence, const char *what,
                                  const char *must) {
    if (!strstr(sentence, must))
        runner_fail(__FILE__, __LINE__, "%s: sentence \"%s\" lacks \"%s\"",
                    what, sentence, must);
}

/* A world of the given shape whose def's error buffer is `why`. */
static throng_world_def ranges_def(int dims, int periodic, float radius,
                                   float box, throng_simd simd, char *why,
                                   size_t why_size) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = dims;
    d.boundary =
        periodic ? THRONG_BOUNDARY_PERIODIC : THRONG_BOUNDARY_UNBOUNDED;
    d.neighbour_radius = radius;
    d.box_size[0] = d.box_size[1] = d.box_size[2] = box;
    d.simd = simd;
    d.threads = 2;
    d.error = why;
    d.error_capacity = why_size;
    return d;
}

/* Offset from a to b through the nearest periodic image, in double. */
static double ranges_offset(double a, double b, int periodic, double box) {
    double d = b - a;
    if (periodic) {
        if (d > 0.5 * box)
            d -= box;
        else if (d < -0.5 * box)
            d += box;
    }
    return d;
}

static double ranges_dist2(const float a[3], const float b[3], int dims,
                           int periodic, double box, double off[3]) {
    double d2 = 0.0;
    off[0] = off[1] = off[2] = 0.0;
    for (int k = 0; k < dims; k++) {
        off[k] = ranges_offset((double)a[k], (double)b[k], periodic, box);
        d2 += off[k] * off[k];
    }
    return d2;
}

/* The widest path this machine runs (the scalar one in a scalar build). */
static throng_simd ranges_widest(void) {
    return throng_simd_best();
}

/* ------------------------------------------------------------------------ */
/* Refusals                                                                 */
/* ------------------------------------------------------------------------ */

TEST(ranges_world_lengths_refused_outside) {
    const float below = nextafterf(THRONG_MIN_LENGTH, 0.0f);
    const float above = nextafterf(THRONG_MAX_LENGTH, INFINITY);
    for (int dims = 2; dims <= 3; dims++)
        for (int periodic = 0; periodic <= 1; periodic++) {
            char why[256];
            /* The ends themselves are accepted. */
            const float ok_radius[2] = { THRONG_MIN_LENGTH,
                                         periodic ? THRONG_MAX_LENGTH / 3.01f
                                                  : THRONG_MAX_LENGTH };
            for (int e = 0; e < 2; e++) {
                throng_world_def d =
                    ranges_def(dims, periodic, ok_radius[e],
                               periodic ? (e ? THRONG_MAX_LENGTH
                                             : 6.0f * THRONG_MIN_LENGTH)
                                        : 100.0f,
                               THRONG_SIMD_AUTO, why, sizeof why);
                throng_world *w = NULL;
                CHECK_OK(throng_world_create(&d, &w));
                CHECK(strcmp(why, "") == 0);
                throng_world_destroy(w);
            }
            /* Just outside, and the old findings' values. */
            const float bad_radius[] = { below, above,  1e-30f,
                                         3e38f, 1e-23f, 2e19f };
            for (size_t i = 0; i < sizeof bad_radius / sizeof(float); i++) {
                throng_world_def d =
                    ranges_def(dims, periodic, bad_radius[i], 100.0f,
                               THRONG_SIMD_AUTO, why, sizeof why);
                throng_world *w = (throng_world *)(void *)why;
                CHECK_STATUS(throng_world_create(&d, &w),
                             THRONG_ERR_OUT_OF_RANGE);
                CHECK(w == NULL);
                ranges_check_sentence(why, "neighbour_radius",
                                      "neighbour_radius must be in [1e-09, "
                                      "1e+09] metres");
            }
            const float bad_cell[] = { below, above };
            for (size_t i = 0; i < 2; i++) {
                throng_world_def d =
                    ranges_def(dims, periodic, 1.0f, 100.0f, THRONG_SIMD_AUTO,
                               why, sizeof why);
                d.cell_size = bad_cell[i];
                throng_world *w = NULL;
                CHECK_STATUS(throng_world_create(&d, &w),
                             THRONG_ERR_OUT_OF_RANGE);
                ranges_check_sentence(why, "cell_size",
                                      "cell_size must be 0 or in [1e-09, "
                                      "1e+09] metres");
            }
            if (!periodic)
                continue;
            /* The periodic boxes of the findings: 1e-30 (with a radius a
             * third of it) and 3e38. */
            const float boxes[2] = { 1e-30f, 3e38f };
            for (int b = 0; b < 2; b++) {
                throng_world_def d =
                    ranges_def(dims, periodic, b ? 1e38f : 3e-31f, boxes[b],
                               THRONG_SIMD_AUTO, why, sizeof why);
                throng_world *w = NULL;
                CHECK_STATUS(throng_world_create(&d, &w),
                             THRONG_ERR_OUT_OF_RANGE);
                ranges_check_sentence(why, "old box", "[1e-09, 1e+09]");
                d.neighbour_radius = 1.0f;
                CHECK_STATUS(throng_world_create(&d, &w),
                             THRONG_ERR_OUT_OF_RANGE);
                ranges_check_sentence(why, "old box",
                                      b ? "box_size[0] must "
                                          "be in [3, 1e+09]"
                                        : "box_size[0]");
            }
            /* Above the cell limit: the sentence gives the counts. */
            throng_world_def d = ranges_def(dims, periodic, 1.0f, 1e5f,
                                            THRONG_SIMD_AUTO, why, sizeof why);
            d.cell_size = 1.0f;
            throng_world *w = NULL;
            CHECK_STATUS(throng_world_create(&d, &w), THRONG_ERR_OUT_OF_RANGE);
            ranges_check_sentence(why, "cells",
                                  dims == 3 ? "100000 x 100000 x "
                                              "100000 = 1e+15 grid "
                                              "cells"
                                            : "100000 x 100000 = "
                                              "1e+10 grid cells");
            ranges_check_sentence(why, "cells",
                                  "more than 16777216 (THRONG_MAX_GRID_CELLS)");
        }
}

/* Every other length: refused just outside its range with the range in
 * the sentence, the world unchanged; accepted at the ends. */
TEST(ranges_other_lengths_refused_outside) {
    const float below = nextafterf(THRONG_MIN_LENGTH, 0.0f);
    const float above = nextafterf(THRONG_MAX_LENGTH, INFINITY);
    throng_world_def d = throng_world_def_default();
    d.neighbour_radius = THRONG_MAX_LENGTH;
    throng_world *w = NULL;
    REQUIRE_OK(throng_world_create(&d, &w));
    throng_agent_def a = throng_agent_def_default();
    throng_agent h;
    REQUIRE_OK(throng_agent_add(w, &a, &h));
    throng_group g = THRONG_NULL_GROUP;
    throng_group_def gd = throng_group_def_default();
    REQUIRE_OK(throng_group_create(w, &gd, &g));
    const uint64_t hash = throng_world_hash(w);
    const uint32_t objects = throng_world_object_count(w);
    const float bad[2] = { below, above };
    for (int i = 0; i < 2; i++) {
        const float x = bad[i];
        const char *want = "[1e-09, 1e+09] metres";
        throng_object o;
        CHECK_STATUS(throng_agent_set_radius(w, h, x), THRONG_ERR_OUT_OF_RANGE);
        ranges_check_sentence(throng_world_last_error(w), "agent radius",
                              "radius must be 0 or in [1e-09, 1e+09]");
        a.radius = x;
        CHECK_STATUS(throng_agent_add(w, &a, &h), THRONG_ERR_OUT_OF_RANGE);
        a.radius = 0.25f;
        const float c[3] = { 0.0f, 0.0f, 0.0f };
        CHECK_STATUS(add_sphere(w, c, x, &o), THRONG_ERR_OUT_OF_RANGE);
        ranges_check_sentence(throng_world_last_error(w), "sphere", want);
        const float pts[6] = { 0.0f, 0.0f, 0.0f, 5.0f, 0.0f, 0.0f };
        CHECK_STATUS(add_path(w, pts, 2, x, false, &o),
                     THRONG_ERR_OUT_OF_RANGE);
        ranges_check_sentence(throng_world_last_error(w), "path", want);
        float vectors[2] = { 1.0f, 0.0f };
        throng_flow_field_def fd;
        memset(&fd, 0, sizeof fd);
        fd.cell_size = x;
        fd.size[0] = fd.size[1] = fd.size[2] = 1;
        fd.vectors = vectors;
        CHECK_STATUS(throng_flow_field_add(w, &fd, &o),
                     THRONG_ERR_OUT_OF_RANGE);
        ranges_check_sentence(throng_world_last_error(w), "flow", want);
        throng_flocking f = throng_flocking_default();
        f.cohesion_radius = below;
        CHECK_STATUS(throng_group_set_flocking(w, g, &f),
                     THRONG_ERR_OUT_OF_RANGE);
        ranges_check_sentence(throng_world_last_error(w), "flocking",
                              "cohesion_radius must be in [1e-09, 1e+09]");
        /* Behaviours: a length of each family. */
        throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_FLEE);
        b.u.seek.flee_range = x;
        CHECK_STATUS(throng_group_add_behaviour(w, g, &b, NULL),
                     THRONG_ERR_OUT_OF_RANGE);
        ranges_check_sentence(throng_world_last_error(w), "flee", want);
        b = throng_behaviour_default(THRONG_BEHAVIOUR_AVOID_NEIGHBOURS);
        b.u.unaligned.margin = x;
        CHECK_STATUS(throng_group_add_behaviour(w, g, &b, NULL),
                     THRONG_ERR_OUT_OF_RANGE);
        ranges_check_sentence(throng_world_last_error(w), "margin", want);
        b = throng_behaviour_default(THRONG_BEHAVIOUR_WANDER_CIRCLE);
        b.u.wander.radius = x;
        CHECK_STATUS(throng_group_add_behaviour(w, g, &b, NULL),
                     THRONG_ERR_OUT_OF_RANGE);
        b = throng_behaviour_default(THRONG_BEHAVIOUR_CONTAIN);
        b.u.contain.range = x;
        CHECK_STATUS(throng_group_add_behaviour(w, g, &b, NULL),
                     THRONG_ERR_OUT_OF_RANGE);
        ranges_check_sentence(throng_world_last_error(w), "contain", want);
        b = throng_behaviour_default(THRONG_BEHAVIOUR_AVOID_OBSTACLES);
        b.u.avoid.min_length = x;
        CHECK_STATUS(throng_group_add_behaviour(w, g, &b, NULL),
                     THRONG_ERR_OUT_OF_RANGE);
        b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_LEADER);
        b.u.leader.behind = x;
        CHECK_STATUS(throng_group_add_behaviour(w, g, &b, NULL),
                     THRONG_ERR_OUT_OF_RANGE);
    }
    CHECK_EQ_U64(throng_world_hash(w), hash);
    CHECK_EQ_INT(throng_world_object_count(w), objects);
    uint32_t count = 99;
    CHECK_OK(throng_group_behaviour_count(w, g, &count));
    CHECK_EQ_INT(count, 0);
    /* The ends and 0 (where allowed) are accepted. */
    CHECK_OK(throng_agent_set_radius(w, h, 0.0f));
    CHECK_OK(throng_agent_set_radius(w, h, THRONG_MIN_LENGTH));
    CHECK_OK(throng_agent_set_radius(w, h, THRONG_MAX_LENGTH));
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_FLEE);
    b.u.seek.flee_range = THRONG_MIN_LENGTH;
    CHECK_OK(throng_group_add_behaviour(w, g, &b, NULL));
    throng_flocking f = throng_flocking_default();
    f.separation_radius = THRONG_MIN_LENGTH;
    f.cohesion_radius = THRONG_MAX_LENGTH;
    CHECK_OK(throng_group_set_flocking(w, g, &f));
    throng_world_destroy(w);
}

/* ------------------------------------------------------------------------ */
/* Neighbours at the ends of the range, against double brute force          */
/* ------------------------------------------------------------------------ */

typedef struct ranges_scene {
    throng_world *w;
    int dims, periodic;
    double box, radius;
    throng_agent h[RANGES_AGENTS];
    float p[RANGES_AGENTS][3];
} ranges_scene;

/* RANGES_AGENTS agents within two radii of a centre (or anywhere in a box
 * of six radii), at rest, in one cohesion-only group whose rules reach
 * the neighbour radius: after one step each agent's velocity points at
 * the mean offset of its neighbours (seed 000's cohesion at full speed),
 * or is still 0 without any. */
static int ranges_scene_make(ranges_scene *s, int dims, int periodic,
                             float radius, throng_simd simd, uint64_t seed) {
    char why[256];
    memset(s, 0, sizeof *s);
    s->dims = dims;
    s->periodic = periodic;
    s->radius = (double)radius;
    const float box = 6.0f * radius;
    s->box = (double)box;
    throng_world_def d =
        ranges_def(dims, periodic, radius, box, simd, why, sizeof why);
    if (throng_world_create(&d, &s->w) != THRONG_OK) {
        runner_fail(__FILE__, __LINE__, "create r=%g: %s", (double)radius, why);
        return 0;
    }
    throng_group_def gd = throng_group_def_default();
    gd.flocking.separation_radius = radius;
    gd.flocking.alignment_radius = radius;
    gd.flocking.cohesion_radius = radius;
    gd.flocking.cohesion_weight = 1.0f;
    throng_group g = THRONG_NULL_GROUP;
    if (throng_group_create(s->w, &gd, &g) != THRONG_OK)
        return 0;
    test_rng rng = test_rng_make(seed);
    const float centre = periodic ? 3.0f * radius : 5.0f * radius;
    for (int i = 0; i < RANGES_AGENTS; i++) {
        throng_agent_def a = throng_agent_def_default();
        for (int k = 0; k < dims; k++)
            a.position[k] = centre + test_rng_range(&rng, -2.0f, 2.0f) *
                                         radius * (periodic ? 1.49f : 1.0f);
        a.velocity[0] = a.velocity[1] = a.velocity[2] = 0.0f;
        a.max_speed = 1.0f;
        a.max_force = 1e6f;
        a.radius = 0.0f;
        a.group = g;
        if (throng_agent_add(s->w, &a, &s->h[i]) != THRONG_OK)
            return 0;
        if (throng_agent_get_position(s->w, s->h[i], s->p[i]) != THRONG_OK)
            return 0;
        if (dims == 2)
            s->p[i][2] = 0.0f;
    }
    return 1;
}

/* Agent i's neighbours in double: their number and the sum of their
 * offsets. */
static uint32_t ranges_brute(const ranges_scene *s, int i, double sum[3]) {
    uint32_t n = 0;
    sum[0] = sum[1] = sum[2] = 0.0;
    for (int j = 0; j < RANGES_AGENTS; j++) {
        if (j == i)
            continue;
        double off[3];
        double d2 =
            ranges_dist2(s->p[i], s->p[j], s->dims, s->periodic, s->box, off);
        if (d2 <= s->radius * s->radius) {
            n++;
            for (int k = 0; k < 3; k++)
                sum[k] += off[k];
        }
    }
    return n;
}

/* A query around agent i with the neighbour radius finds exactly the
 * brute force's neighbours, and i itself. */
static void ranges_query_check(const ranges_scene *s, int i, const char *what) {
    throng_agent found[RANGES_AGENTS + 1];
    uint32_t count = 0;
    CHECK_OK(throng_world_query_radius(s->w, s->p[i], (float)s->radius, found,
                                       RANGES_AGENTS + 1, &count, NULL));
    uint32_t want = 0;
    for (int j = 0; j < RANGES_AGENTS; j++) {
        double off[3];
        double d2 =
            ranges_dist2(s->p[i], s->p[j], s->dims, s->periodic, s->box, off);
        if (!(d2 <= s->radius * s->radius))
            continue;
        want++;
        bool hit = false;
        for (uint32_t k = 0; k < count && k <= RANGES_AGENTS; k++)
            hit |= test_handle_eq(found[k], s->h[j]);
        if (!hit)
            runner_fail(__FILE__, __LINE__, "%s: query of %d misses %d", what,
                        i, j);
    }
    if (count != want)
        runner_fail(__FILE__, __LINE__, "%s: query of %d found %u, brute %u",
                    what, i, count, want);
}

TEST(ranges_neighbours_at_the_ends_match_double) {
    const throng_simd paths[2] = { THRONG_SIMD_SCALAR, ranges_widest() };
    static ranges_scene s;
    for (int dims = 2; dims <= 3; dims++)
        for (int periodic = 0; periodic <= 1; periodic++)
            for (int end = 0; end < 2; end++)
                for (int p = 0; p < 2; p++) {
                    const float radius =
                        end == 0 ? THRONG_MIN_LENGTH
                                 : (periodic ? THRONG_MAX_LENGTH / 6.0f
                                             : THRONG_MAX_LENGTH);
                    char what[96];
                    snprintf(what, sizeof what, "%dD %s r=%g %s", dims,
                             periodic ? "periodic" : "unbounded",
                             (double)radius, throng_simd_name(paths[p]));
                    if (!ranges_scene_make(&s, dims, periodic, radius, paths[p],
                                           77u + (uint64_t)dims))
                        continue;
                    uint64_t pairs = 0;
                    double sums[RANGES_AGENTS][3];
                    uint32_t counts[RANGES_AGENTS];
                    for (int i = 0; i < RANGES_AGENTS; i++) {
                        counts[i] = ranges_brute(&s, i, sums[i]);
                        pairs += counts[i];
                        ranges_query_check(&s, i, what);
                    }
                    /* Enough of both kinds to mean something. */
                    if (!(pairs > 50u && pairs < (uint64_t)RANGES_AGENTS *
                                                     (RANGES_AGENTS - 1u)))
                        runner_fail(__FILE__, __LINE__, "%s: %llu pairs", what,
                                    (unsigned long long)pairs);
                    CHECK_OK(throng_world_step(s.w, 0.05f));
                    throng_step_stats st;
                    CHECK_OK(throng_world_stats(s.w, &st));
                    if (st.neighbours != pairs)
                        runner_fail(__FILE__, __LINE__,
                                    "%s: the walk counted %llu neighbour "
                                    "pairs, brute force %llu",
                                    what, (unsigned long long)st.neighbours,
                                    (unsigned long long)pairs);
                    for (int i = 0; i < RANGES_AGENTS; i++) {
                        float v[3];
                        CHECK_OK(throng_agent_get_velocity(s.w, s.h[i], v));
                        double len = test_len3(sums[i]);
                        if (counts[i] == 0) {
                            CHECK(v[0] == 0.0f && v[1] == 0.0f && v[2] == 0.0f);
                            continue;
                        }
                        /* A mean offset near zero has no stable
                         * direction. */
                        if (len < 0.05 * s.radius * counts[i])
                            continue;
                        for (int k = 0; k < dims; k++)
                            if (!(fabs((double)v[k] - sums[i][k] / len) <=
                                  1e-3))
                                runner_fail(__FILE__, __LINE__,
                                            "%s: agent %d v[%d] = %g, double "
                                            "cohesion %g (%u neighbours)",
                                            what, i, k, (double)v[k],
                                            sums[i][k] / len, counts[i]);
                    }
                    throng_world_destroy(s.w);
                }
}

/* Offsets between agents near the float limits overflow to infinity:
 * never neighbours, whatever the radius; agents beside each other there
 * still are. */
TEST(ranges_far_agents_are_not_neighbours) {
    const throng_simd paths[2] = { THRONG_SIMD_SCALAR, ranges_widest() };
    for (int dims = 2; dims <= 3; dims++)
        for (int p = 0; p < 2; p++) {
            char why[256];
            throng_world_def d = ranges_def(dims, 0, THRONG_MAX_LENGTH, 1.0f,
                                            paths[p], why, sizeof why);
            throng_world *w = NULL;
            REQUIRE_OK(throng_world_create(&d, &w));
            throng_group_def gd = throng_group_def_default();
            gd.flocking.cohesion_weight = 1.0f;
            throng_group g = THRONG_NULL_GROUP;
            REQUIRE_OK(throng_group_create(w, &gd, &g));
            const float xs[6] = { FLT_MAX, -FLT_MAX,        3e38f,
                                  -3e38f,  FLT_MAX - 2e31f, -3e38f + 1e30f };
            throng_agent h[6];
            for (int i = 0; i < 6; i++) {
                throng_agent_def a = throng_agent_def_default();
                a.position[0] = xs[i];
                a.position[1] = i % 2 ? -FLT_MAX : FLT_MAX;
                a.position[2] = 0.0f;
                a.group = g;
                a.velocity[0] = 0.0f;
                REQUIRE_OK(throng_agent_add(w, &a, &h[i]));
            }
            /* Brute force in double: pairs within 1e9 of each other. */
            uint64_t pairs = 0;
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++) {
                    double dx = (double)xs[j] - (double)xs[i];
                    double dy = (double)(j % 2 ? -FLT_MAX : FLT_MAX) -
                                (double)(i % 2 ? -FLT_MAX : FLT_MAX);
                    if (i != j && dx * dx + dy * dy <= 1e18)
                        pairs++;
                }
            CHECK_OK(throng_world_step(w, 0.05f));
            throng_step_stats st;
            CHECK_OK(throng_world_stats(w, &st));
            CHECK_EQ_U64(st.neighbours, pairs);
            uint32_t count = 99;
            const float q[3] = { FLT_MAX, FLT_MAX, 0.0f };
            CHECK_OK(throng_world_query_radius(w, q, 3.4e38f, NULL, 0, &count,
                                               NULL));
            uint32_t want = 0;
            for (int i = 0; i < 6; i++) {
                double dx = (double)xs[i] - (double)FLT_MAX;
                double dy =
                    (double)(i % 2 ? -FLT_MAX : FLT_MAX) - (double)FLT_MAX;
                want += dx * dx + dy * dy <= 3.4e38 * 3.4e38;
            }
            CHECK_EQ_INT(count, want);
            throng_world_destroy(w);
        }
}

/* A query radius whose square is not a normal float (0, 1e-23, 1e-30)
 * counts only agents truly within it. */
TEST(ranges_query_tiny_radius_is_exact) {
    for (int periodic = 0; periodic <= 1; periodic++) {
        throng_world_def d = throng_world_def_default();
        d.boundary =
            periodic ? THRONG_BOUNDARY_PERIODIC : THRONG_BOUNDARY_UNBOUNDED;
        throng_world *w = NULL;
        REQUIRE_OK(throng_world_create(&d, &w));
        const float xs[5] = { 1e-25f, 2e-23f, 5e-24f, 3e-30f, 0.0f };
        for (int i = 0; i < 5; i++) {
            throng_agent_def a = throng_agent_def_default();
            a.position[0] = xs[i];
            throng_agent h;
            REQUIRE_OK(throng_agent_add(w, &a, &h));
        }
        const float radii[4] = { 0.0f, 1e-30f, 1e-23f, 1e-20f };
        for (int r = 0; r < 4; r++) {
            uint32_t want = 0;
            for (int i = 0; i < 5; i++)
                want += (double)xs[i] <= (double)radii[r];
            uint32_t count = 99;
            const float q[3] = { 0.0f, 0.0f, 0.0f };
            CHECK_OK(throng_world_query_radius(w, q, radii[r], NULL, 0, &count,
                                               NULL));
            if (count != want)
                runner_fail(__FILE__, __LINE__,
                            "radius %g: query found %u, double %u",
                            (double)radii[r], count, want);
        }
        throng_world_destroy(w);
    }
}

/* ------------------------------------------------------------------------ */
/* Capacity                                                                 */
/* ------------------------------------------------------------------------ */

/* Resident and total pages of this process (/proc/self/statm). */
static int ranges_statm(long *total, long *resident) {
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    char line[128];
    int ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!ok)
        return 0;
    char *end = NULL;
    *total = strtol(line, &end, 10);
    *resident = strtol(end, &end, 10);
    return *total > 0 && *resident > 0;
}

static double ranges_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Room for 2^22 agents is reserved, not written: creating the world
 * takes little time and little resident memory, and a few agents then
 * step as usual. */
TEST(ranges_capacity_costs_what_is_used) {
    long total0 = 0, rss0 = 0, total1 = 0, rss1 = 0;
    if (!ranges_statm(&total0, &rss0))
        return; /* no /proc: nothing to measure */
    const double page = (double)sysconf(_SC_PAGESIZE);
    throng_world_def d = throng_world_def_default();
    d.initial_capacity = 1u << 22;
    throng_world *w = NULL;
    double t0 = ranges_now();
    REQUIRE_OK(throng_world_create(&d, &w));
    double t1 = ranges_now();
    REQUIRE(ranges_statm(&total1, &rss1));
    const double grown = (double)(rss1 - rss0) * page;
    const double reserved = (double)(total1 - total0) * page;
    if (getenv("THRONG_TEST_VERBOSE"))
        printf("  capacity 2^22: %.3f s, resident +%.1f MB, address space "
               "+%.1f MB, world bytes %.1f MB\n",
               t1 - t0, grown / 1e6, reserved / 1e6,
               (double)throng_world_bytes(w) / 1e6);
    /* Zeroing every column wrote about 400 MB here. */
    if (!(grown < 64e6))
        runner_fail(__FILE__, __LINE__,
                    "creating room for 2^22 agents grew the resident set by "
                    "%.1f MB",
                    grown / 1e6);
    CHECK(t1 - t0 < 1.0);
    CHECK((double)throng_world_bytes(w) > 100e6); /* but it is reserved */
    for (int i = 0; i < 100; i++) {
        throng_agent_def a = throng_agent_def_default();
        a.position[0] = (float)(i % 10);
        a.position[1] = 0.1f * (float)i;
        a.velocity[0] = 0.5f;
        throng_agent h;
        REQUIRE_OK(throng_agent_add(w, &a, &h));
    }
    for (int s = 0; s < 5; s++)
        REQUIRE_OK(throng_world_step(w, 0.05f));
    throng_world_destroy(w);
}

/* Under an address-space limit 1 GiB above what the process uses, room
 * for THRONG_MAX_AGENTS agents (tens of GB) cannot be had: creation
 * returns THRONG_ERR_OUT_OF_MEMORY and the process goes on. Run in a
 * forked child, so the limit stays there. Skipped under AddressSanitizer
 * and ThreadSanitizer, which reserve terabytes of shadow memory at
 * start. */
TEST(ranges_max_capacity_is_out_of_memory) {
    if (RUNNER_SANITIZED)
        return;
    long total = 0, rss = 0;
    if (!ranges_statm(&total, &rss))
        return;
    fflush(NULL);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        struct rlimit lim;
        lim.rlim_cur = lim.rlim_max =
            (rlim_t)total * (rlim_t)sysconf(_SC_PAGESIZE) + (1ull << 30);
        if (setrlimit(RLIMIT_AS, &lim) != 0)
            _exit(3);
        char why[256] = "";
        throng_world_def d = throng_world_def_default();
        d.initial_capacity = THRONG_MAX_AGENTS;
        d.error = why;
        d.error_capacity = sizeof why;
        throng_world *w = NULL;
        throng_status st = throng_world_create(&d, &w);
        if (st != THRONG_ERR_OUT_OF_MEMORY || w != NULL ||
            !strstr(why, "no memory"))
            _exit(1);
        /* Still a working process: a small world is fine. */
        d.initial_capacity = 1000;
        if (throng_world_create(&d, &w) != THRONG_OK)
            _exit(2);
        throng_world_destroy(w);
        _exit(0);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        runner_fail(__FILE__, __LINE__,
                    "the child under RLIMIT_AS %s %d (1: creation did not "
                    "return OUT_OF_MEMORY, 2: a small world failed after, 3: "
                    "no limit)",
                    WIFEXITED(status) ? "exited with" : "died of signal",
                    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

void register_ranges_tests(void) {
    REGISTER(ranges_world_lengths_refused_outside);
    REGISTER(ranges_other_lengths_refused_outside);
    REGISTER(ranges_neighbours_at_the_ends_match_double);
    REGISTER(ranges_far_agents_are_not_neighbours);
    REGISTER(ranges_query_tiny_radius_is_exact);
    REGISTER(ranges_capacity_costs_what_is_used);
    REGISTER(ranges_max_capacity_is_out_of_memory);
}
