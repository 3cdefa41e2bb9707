/* SPDX-License-Identifier: MIT */
/*
 * The scenario table and its builders.
 *
 * Each scenario is one row of `scenario_table` plus a list of documented
 * parameters; its builder reads every number it uses from that list by
 * name, so the documentation (printed by `throng-bench --list`) cannot drift
 * from what the scene does. A parameter the builder asks for but the list
 * lacks makes the build fail with THRONG_ERR_NOT_FOUND, which the tests
 * catch.
 *
 * Adding a scenario (crossing crowds, pursuit, paths, obstacles, leader
 * following, a clustered flock, ...):
 *   1. write its parameter list (name, value, unit, one-line meaning);
 *   2. write a builder `static throng_status xxx_build(const scenario *sc,
 *      ...)` that reads them with param_get(), or reuse flock_build() when
 *      only the numbers differ; the helpers below create the periodic world,
 *      draw positions and headings, and clean up on failure;
 *   3. add an index to the enum, a thin entry point with the public
 *      signature, and a row to the table.
 *
 * Randomness: splitmix64, seeded from the caller's seed. It is tiny, passes
 * BigCrush, and any 64-bit seed (0 included) gives a good stream, which is
 * all a scene layout needs. The library's own counter-based generator is
 * seeded with the same seed through throng_world_def.seed.
 *
 * Same start on every machine: the golden hashes in the tests pin the
 * state after many steps of these scenes, so building one must give the
 * same bits on every CPU and C library. Angles, roots and powers go
 * through the library's deterministic maths (src/detmath.h: sine,
 * cosine, cube root); the other libm calls here (sqrt, floor, ceil, fmod,
 * fmax) are exact IEEE operations.
 *
 * Nothing here prints or exits: this file is linked into the bench, the
 * tests and the examples. The builders' worlds take their kernel path from
 * THRONG_SIMD (scenario_world_def), so one variable steers the bench, the
 * tests' scenes and the renderer alike, while the library reads none.
 */
#include "scenarios.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "detmath.h"
#include "../testsupport/support.h"

#define SCENARIO_PI 3.14159265358979323846
#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

/* A periodic box must span at least three grid cells (the library refuses
 * less, and the 3x3(x3) neighbour walk needs distinct cells); the cell is
 * the neighbour radius, so the smallest edge is three radii. */
#define SCENARIO_MIN_BOX_RADII 3.0

/* ------------------------------------------------------------------------ */
/* Random numbers                                                           */
/* ------------------------------------------------------------------------ */

typedef struct scenario_rng {
    uint64_t state;
} scenario_rng;

/* Uniform in [0, 1), 53 random bits (testsupport/support.h). */
static double rng_unit(scenario_rng *rng) {
    return ts_unit(&rng->state);
}

/* Uniform in [0, edge) as a float; the rare draw that rounds up to the edge
 * itself goes to 0, which is the same point of the periodic box. */
static float rng_coordinate(scenario_rng *rng, float edge) {
    float x = (float)(rng_unit(rng) * (double)edge);
    return x < edge ? x : 0.0f;
}

/* A uniformly distributed unit vector: on the circle in 2D, on the sphere in
 * 3D (Archimedes: z uniform in [-1, 1], azimuth uniform). */
static void rng_direction(scenario_rng *rng, int dimensions, double out[3]) {
    if (dimensions == 2) {
        double angle = 2.0 * SCENARIO_PI * rng_unit(rng);
        detmath_sincos(angle, &out[1], &out[0]);
        out[2] = 0.0;
    } else {
        double z = 2.0 * rng_unit(rng) - 1.0;
        double azimuth = 2.0 * SCENARIO_PI * rng_unit(rng);
        double ring = sqrt(fmax(0.0, 1.0 - z * z));
        double sin_azimuth, cos_azimuth;
        detmath_sincos(azimuth, &sin_azimuth, &cos_azimuth);
        out[0] = ring * cos_azimuth;
        out[1] = ring * sin_azimuth;
        out[2] = z;
    }
}

/* ------------------------------------------------------------------------ */
/* Parameters                                                               */
/* ------------------------------------------------------------------------ */

/* Reads parameters by name and remembers whether any was missing, or a
 * count was not a whole number (a value set with --set), so a builder
 * reads all it needs and checks once. */
typedef struct param_reader {
    const scenario *sc;
    bool missing;
    bool bad;
} param_reader;

static double param_get(param_reader *reader, const char *name) {
    const scenario_param *param = scenario_param_find(reader->sc, name);
    if (param == NULL) {
        reader->missing = true;
        return 0.0;
    }
    return param->value;
}

/* A parameter that counts (neighbours, passes, points, a mode's number):
 * a whole number in [0, 2^32); any other value marks the reader bad and
 * reads 0. */
static uint32_t param_count(param_reader *reader, const char *name) {
    const double value = param_get(reader, name);
    if (!(value >= 0.0 && value <= 4294967295.0) || value != floor(value)) {
        reader->bad = true;
        return 0;
    }
    return (uint32_t)value;
}

/* A parameter that is a switch: 0 or 1; anything else makes the reader
 * bad. */
static bool param_switch(param_reader *reader, const char *name) {
    const uint32_t value = param_count(reader, name);
    if (value > 1u)
        reader->bad = true;
    return value == 1u;
}

/* ------------------------------------------------------------------------ */
/* Flocks                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * flock2d_seed000: Reynolds' boids with seed 000's weights, in a periodic
 * box at a fixed density. (This was flock2d's recipe before the flocks
 * got one that moves; it keeps its golden hash, so the kernels' bits stay
 * pinned, and wander, cluster and knot scenes keep its rules.)
 *
 * N agents are placed uniformly at random in a periodic box whose edge is
 * chosen so that each agent has on average `neighbours` (30) others within
 * the neighbour radius R = 1 m:
 *     2D: L = sqrt(N pi R^2 / 30)        3D: L = cbrt(N (4/3) pi R^3 / 30)
 * clamped to L >= 3 R so the box spans at least three grid cells (tiny N).
 * Headings are uniformly random (circle or sphere), speeds uniform in
 * [0.5, 1] x max speed. Every agent has mass 1 kg, max speed 1 m/s, max
 * force 2 N, body radius 0.25 m, and belongs to one group "flock" with
 * separation (radius 0.5 m, weight 1.5, flee-average), alignment (radius
 * 1 m, weight 1) and cohesion (radius 1 m, weight 1), combined as a
 * weighted average, with a full 2 pi field of view. dt = 1/30 s. The grid
 * cell is the library default (the neighbour radius).
 *
 * It does not flock. Each rule's force is m (v_desired - v) / dt, and dt
 * is short, so the velocity settles where the weighted average of the
 * desired velocities is: from random headings, alignment's desired
 * velocity (the neighbours' mean velocity) is near zero and separation
 * and cohesion pull against each other, so the mean speed falls to about
 * 0.09 m/s within a few hundred steps and the polarisation stays below
 * 0.1. It stays as the scene of seed 000's numbers, not of a flock.
 */
/* The rows every flock scenario shares: the radius, the density that sets
 * the box, and the rules. */
#define FLOCK_RADIUS_ROW            \
    { "neighbour_radius", 1.0, "m", \
      "world neighbour radius R; also the grid cell edge" },
#define FLOCK_RULE_ROWS                                                       \
    { "speed_min", 0.5, "x max_speed", "initial speed, lower bound" },        \
        { "speed_max", 1.0, "x max_speed", "initial speed, upper bound" },    \
        { "mass", 1.0, "kg", "agent mass" },                                  \
        { "max_speed", 1.0, "m/s", "agent max speed" },                       \
        { "max_force", 2.0, "N", "agent max steering force" },                \
        { "body_radius", 0.25, "m", "agent body radius" },                    \
        { "separation_radius", 0.5, "m", "separation neighbourhood" },        \
        { "separation_weight", 1.5, "", "separation weight (flee average)" }, \
        { "alignment_radius", 1.0, "m", "alignment neighbourhood" },          \
        { "alignment_weight", 1.0, "", "alignment weight" },                  \
        { "cohesion_radius", 1.0, "m", "cohesion neighbourhood" },            \
        { "cohesion_weight", 1.0, "", "cohesion weight" },                    \
        { "field_of_view", 2.0 * SCENARIO_PI, "rad",                          \
          "full view-cone angle around the heading (2 pi = all around)" },    \
        { "combine", (double)THRONG_COMBINE_WEIGHTED_AVERAGE, "",             \
          "0 = weighted average of the rule forces, 1 = weighted sum" },
#define FLOCK_PARAM_ROWS                                               \
    FLOCK_RADIUS_ROW{                                                  \
        "neighbours", 30.0, "",                                        \
        "mean agents within R of an agent; sets the periodic box edge" \
    },                                                                 \
        FLOCK_RULE_ROWS

static const scenario_param flock_seed000_params[] = { FLOCK_PARAM_ROWS };

/*
 * flock2d, flock3d: a moving flock. flock2d_seed000's box, agents and
 * start, with a recipe under which the crowd keeps its speed and lines up:
 *
 * - cruise: the turn-rate wander with its turn rate held at 0 (max turn
 *   rate and max change 0), whose desired velocity is the heading at max
 *   speed: the "keep flying" urge the other rules average against. The
 *   library has no other behaviour that asks for speed along the heading.
 * - alignment weight above separation and cohesion, so a neighbourhood's
 *   headings decide where it goes; cohesion is weak, so the flock does not
 *   clump and the neighbour count stays near the 30 the box is sized for.
 * - separation within 0.7 R, a little more than seed 000's 0.5 R, for the
 *   same reason.
 * - a full view, as seed 000: Reynolds' 270 degree cone lined the flocks
 *   up no better here and made the neighbour walk about a third dearer.
 *
 * Why these numbers: with forces m (v_desired - v) / dt the velocity
 * settles near the weighted average of the desired velocities. In an
 * aligned flock alignment's desired velocity is v itself and separation
 * and cohesion mostly cancel, so |v| ~ w_cruise / (w_cruise + w_sep +
 * w_coh) x max speed = 6 / 7.75 = 0.77 m/s (measured: 0.77), and from
 * random headings, where alignment's desired velocity is near 0, it
 * starts lower and rises as the headings line up. The cruise term is the
 * recipe's cost: the library steers wander one agent at a time, beside
 * the vector walk. Measured figures: the README's bench section.
 */
static const scenario_param flock_params[] = {
    FLOCK_RADIUS_ROW{ "neighbours", 30.0, "",
                      "mean agents within R of an agent at the start; sets "
                      "the periodic box edge" },
    { "speed_min", 0.5, "x max_speed", "initial speed, lower bound" },
    { "speed_max", 1.0, "x max_speed", "initial speed, upper bound" },
    { "mass", 1.0, "kg", "agent mass" },
    { "max_speed", 1.0, "m/s", "agent max speed" },
    { "max_force", 2.0, "N", "agent max steering force" },
    { "body_radius", 0.25, "m", "agent body radius" },
    { "separation_radius", 0.7, "m", "separation neighbourhood" },
    { "separation_weight", 1.5, "", "separation weight (flee average)" },
    { "alignment_radius", 1.0, "m", "alignment neighbourhood" },
    { "alignment_weight", 6.0, "", "alignment weight" },
    { "cohesion_radius", 1.0, "m", "cohesion neighbourhood" },
    { "cohesion_weight", 0.25, "", "cohesion weight" },
    { "field_of_view", 2.0 * SCENARIO_PI, "rad",
      "full view-cone angle around the heading (2 pi = all around)" },
    { "combine", (double)THRONG_COMBINE_WEIGHTED_AVERAGE, "",
      "0 = weighted average of the rule forces, 1 = weighted sum" },
    { "cruise_weight", 6.0, "",
      "weight of the urge to fly on at max speed (wander, turn rate 0)" },
};

/* The flocks' claims: they keep at least half their max speed (1 m/s)
 * once the start's random headings have settled, and line up within
 * 1,000 steps. */
static const scenario_range flock_ranges[] = {
    { SCENARIO_FIGURE_SPEED, 0.5, 1.0, 100,
      "mean speed at least half the max speed" },
    { SCENARIO_FIGURE_POLARISATION, 0.5, 1.0, 1000,
      "the headings line up within 1,000 steps" },
};

/*
 * wander2d, wander3d: flock2d_seed000's rules plus seed 000's wander
 * (weight 0.5, max turn rate 0.1 pi and max change 0.02 pi radians per
 * step), so every step draws from the counter-based generator: the
 * scene the determinism contract is checked on.
 */
static const scenario_param wander_params[] = {
    FLOCK_PARAM_ROWS{ "wander_weight", 0.5, "",
                      "wander weight (seed 000 turn-rate form)" },
    { "wander_turn_rate", 0.1 * SCENARIO_PI, "rad/step", "max turn rate" },
    { "wander_turn_change", 0.02 * SCENARIO_PI, "rad/step",
      "max change of the turn rate per step" },
};

/*
 * cluster2d: flock2d_seed000's rules and box, but a clustered start, so
 * the grid meets dense cells and the threads an uneven load. The box edge
 * is flock2d's for the same agent count (30 neighbours on average over the
 * box); `cluster_share` (90%) of the agents start uniformly in a disc at
 * the box centre covering `cluster_area` (5%) of the box, the rest
 * uniformly over the box outside the disc. At the start an agent in the
 * disc has about 30 x 0.9 / 0.05 = 540 neighbours within R, one outside
 * about 30 x 0.1 / 0.95 = 3. Which agents go to the disc is fixed by
 * their index (every agent whose index raises floor(i x share)), so the
 * disc holds floor(N x share) of them exactly. Headings and speeds are
 * drawn as in flock2d.
 */
static const scenario_param cluster_params[] = {
    FLOCK_RADIUS_ROW{
        "neighbours", 30.0, "",
        "mean agents within R over the whole box, as flock2d: sets the box "
        "edge (about 540 inside the disc at the start)" },
    FLOCK_RULE_ROWS{ "cluster_share", 0.9, "",
                     "share of the agents that start in the disc" },
    { "cluster_area", 0.05, "", "the disc's area as a share of the box's" },
};

/*
 * knot2d, knot2d_cap: the degenerate crowd. flock2d_seed000's rules and
 * box, but
 * every agent starts inside one grid cell, uniformly in a square of edge
 * `knot_edge` x R at the box origin, so each checks every other at first
 * (n^2 candidate pairs per step) until the knot spreads. knot2d_cap also
 * caps the neighbours the rules see at the 16 nearest
 * (throng_flocking.max_neighbours).
 */
#define KNOT_PARAM_ROWS                                                   \
    FLOCK_PARAM_ROWS{                                                     \
        "knot_edge", 0.999, "x R",                                        \
        "agents start uniformly in a square of this edge inside one cell" \
    },
static const scenario_param knot_params[] = {
    KNOT_PARAM_ROWS{ "max_neighbours", 0.0, "",
                     "neighbours the rules see (0 = all)" },
};
static const scenario_param knot_cap_params[] = {
    KNOT_PARAM_ROWS{ "max_neighbours", 16.0, "",
                     "neighbours the rules see (0 = all)" },
};

/*
 * blob2d, blob2d_cap: the clustered crowd a neighbour cap is for.
 * flock2d_seed000's rules and box (30 neighbours on average over the box);
 * `blob_share` (90%) of the agents start in a Gaussian blob of standard
 * deviation `blob_sigma` x R per axis at the box centre (each coordinate
 * the sum of twelve uniform draws less six: additions only, so the scene
 * is the same on every machine), the rest uniformly over the box. At
 * 100,000 agents the blob's centre holds about 1,600 agents per cell, so
 * an uncapped agent there checks some 14,000 candidates. blob2d_cap caps
 * the rules at the 16 nearest (throng_flocking.max_neighbours).
 */
#define BLOB_PARAM_ROWS                                               \
    FLOCK_PARAM_ROWS{ "blob_share", 0.9, "",                          \
                      "share of the agents that start in the blob" }, \
        { "blob_sigma", 3.0, "x R",                                   \
          "the blob's standard deviation per axis" },
static const scenario_param blob_params[] = {
    BLOB_PARAM_ROWS{ "max_neighbours", 0.0, "",
                     "neighbours the rules see (0 = all)" },
};
static const scenario_param blob_cap_params[] = {
    BLOB_PARAM_ROWS{ "max_neighbours", 16.0, "",
                     "neighbours the rules see (0 = all)" },
};

/* ------------------------------------------------------------------------ */
/* The kernel path, from the environment                                    */
/* ------------------------------------------------------------------------ */

throng_status scenario_simd_from_env(throng_simd *out, const char **name) {
    const char *text = getenv(SCENARIO_SIMD_ENV);
    if (name != NULL) {
        *name = text;
    }
    *out = THRONG_SIMD_AUTO;
    if (text == NULL || *text == '\0') {
        return THRONG_OK;
    }
    throng_status status = throng_simd_from_name(text, out);
    if (status != THRONG_OK) {
        *out = THRONG_SIMD_AUTO;
    }
    return status;
}

/* A value no enum member has: creation refuses it as out of range. */
#define SCENARIO_SIMD_INVALID ((throng_simd)-1)

throng_world_def scenario_world_def(void) {
    throng_world_def def = throng_world_def_default();
    throng_simd simd = THRONG_SIMD_AUTO;
    def.simd = scenario_simd_from_env(&simd, NULL) == THRONG_OK
                   ? simd
                   : SCENARIO_SIMD_INVALID;
    return def;
}

/* Creates the periodic world every density-driven scenario starts from. */
static throng_status periodic_world_create(int dimensions, float box_edge,
                                           float neighbour_radius,
                                           uint32_t capacity, int threads,
                                           uint64_t seed,
                                           throng_world **out_world) {
    throng_world_def def = scenario_world_def();
    def.dimensions = dimensions;
    def.boundary = THRONG_BOUNDARY_PERIODIC;
    def.box_size[0] = box_edge;
    def.box_size[1] = box_edge;
    def.box_size[2] = box_edge;
    def.neighbour_radius = neighbour_radius;
    def.threads = threads;
    def.seed = seed;
    def.initial_capacity = capacity;
    return throng_world_create(&def, out_world);
}

/* A start position for blob2d: when `inside`, each coordinate the box
 * centre plus sigma times the sum of twelve uniform draws less six (mean
 * 0, variance 1, within six sigma), wrapped into the periodic box; else
 * uniform over the box. */
static void blob_place(scenario_rng *rng, int dimensions, float box,
                       double sigma, bool inside, float out[3]) {
    out[2] = 0.0f;
    for (int axis = 0; axis < dimensions; ++axis) {
        if (!inside) {
            out[axis] = rng_coordinate(rng, box);
            continue;
        }
        double sum = -6.0;
        for (int k = 0; k < 12; ++k)
            sum += rng_unit(rng);
        double x = 0.5 * (double)box + sigma * sum;
        x -= floor(x / (double)box) * (double)box;
        float f = (float)x;
        out[axis] = f < box ? f : 0.0f;
    }
}

/* A start position for cluster2d: uniform in the disc (ball) of `radius`
 * at the box centre when `inside`, else uniform over the box outside it
 * (drawn again until it falls outside, which takes about one try). */
static void cluster_place(scenario_rng *rng, int dimensions, float box,
                          double radius, bool inside, float out[3]) {
    double centre = 0.5 * (double)box;
    out[2] = 0.0f;
    if (inside) {
        double direction[3];
        rng_direction(rng, dimensions, direction);
        /* The radius of a uniform point in a disc (ball): the square
         * (cube) root of a uniform number. */
        double u = rng_unit(rng);
        double r = radius * (dimensions == 2 ? sqrt(u) : detmath_cbrt(u));
        for (int axis = 0; axis < dimensions; ++axis) {
            out[axis] = (float)(centre + r * direction[axis]);
        }
        return;
    }
    double distance;
    do {
        distance = 0.0;
        for (int axis = 0; axis < dimensions; ++axis) {
            out[axis] = rng_coordinate(rng, box);
            double d = (double)out[axis] - centre;
            distance += d * d;
        }
    } while (sqrt(distance) <= radius);
}

static throng_status flock_build(const scenario *sc, uint32_t agents,
                                 int threads, uint64_t seed,
                                 throng_world **out_world) {
    if (out_world == NULL) {
        return THRONG_ERR_NULL;
    }
    *out_world = NULL;

    param_reader reader = { sc, false, false };
    float neighbour_radius = (float)param_get(&reader, "neighbour_radius");
    double speed_min = param_get(&reader, "speed_min");
    double speed_max = param_get(&reader, "speed_max");

    throng_agent_def agent = throng_agent_def_default();
    agent.mass = (float)param_get(&reader, "mass");
    agent.max_speed = (float)param_get(&reader, "max_speed");
    agent.max_force = (float)param_get(&reader, "max_force");
    agent.radius = (float)param_get(&reader, "body_radius");

    throng_group_def group = throng_group_def_default();
    group.name = "flock";
    group.flocking = throng_flocking_default();
    group.flocking.separation_mode = THRONG_SEPARATION_FLEE_AVERAGE;
    group.flocking.separation_radius =
        (float)param_get(&reader, "separation_radius");
    group.flocking.separation_weight =
        (float)param_get(&reader, "separation_weight");
    group.flocking.alignment_radius =
        (float)param_get(&reader, "alignment_radius");
    group.flocking.alignment_weight =
        (float)param_get(&reader, "alignment_weight");
    group.flocking.cohesion_radius =
        (float)param_get(&reader, "cohesion_radius");
    group.flocking.cohesion_weight =
        (float)param_get(&reader, "cohesion_weight");
    group.flocking.field_of_view = (float)param_get(&reader, "field_of_view");
    group.combine = (throng_combine_mode)param_count(&reader, "combine");
    if (scenario_param_find(sc, "wander_weight") != NULL) {
        group.wander.weight = (float)param_get(&reader, "wander_weight");
        group.wander.max_turn_rate =
            (float)param_get(&reader, "wander_turn_rate");
        group.wander.max_turn_change =
            (float)param_get(&reader, "wander_turn_change");
    }
    if (scenario_param_find(sc, "cruise_weight") != NULL) {
        /* Wander with its turn rate held at 0 steers to max speed along
         * the heading. */
        group.wander.weight = (float)param_get(&reader, "cruise_weight");
        group.wander.max_turn_rate = 0.0f;
        group.wander.max_turn_change = 0.0f;
    }
    bool knot = scenario_param_find(sc, "knot_edge") != NULL;
    double knot_edge =
        knot ? param_get(&reader, "knot_edge") * (double)neighbour_radius : 0.0;
    bool blob = scenario_param_find(sc, "blob_sigma") != NULL;
    double blob_share = blob ? param_get(&reader, "blob_share") : 0.0;
    double blob_sigma =
        blob ? param_get(&reader, "blob_sigma") * (double)neighbour_radius
             : 0.0;
    if (knot || blob)
        group.flocking.max_neighbours = param_count(&reader, "max_neighbours");
    bool clustered = scenario_param_find(sc, "cluster_share") != NULL;
    double cluster_share =
        clustered ? param_get(&reader, "cluster_share") : 0.0;
    double cluster_area = clustered ? param_get(&reader, "cluster_area") : 0.0;

    double box_edge = scenario_box_edge(sc, agents);
    if (reader.bad)
        return THRONG_ERR_INVALID_ARG;
    if (reader.missing || box_edge <= 0.0) {
        return THRONG_ERR_NOT_FOUND;
    }
    if (blob && !(blob_share >= 0.0 && blob_share <= 1.0 && blob_sigma > 0.0))
        return THRONG_ERR_OUT_OF_RANGE;
    if (clustered && !(cluster_share >= 0.0 && cluster_share <= 1.0 &&
                       cluster_area > 0.0 && cluster_area < 1.0)) {
        return THRONG_ERR_OUT_OF_RANGE;
    }
    /* The disc (ball in 3D) holding the cluster, at the box centre. */
    double cluster_radius =
        sc->dimensions == 2
            ? sqrt(cluster_area * box_edge * box_edge / SCENARIO_PI)
            : detmath_cbrt(cluster_area * box_edge * box_edge * box_edge * 3.0 /
                           (4.0 * SCENARIO_PI));
    if (agents > THRONG_MAX_AGENTS) {
        return THRONG_ERR_CAPACITY;
    }

    float box = (float)box_edge;
    throng_world *world = NULL;
    throng_status status = periodic_world_create(
        sc->dimensions, box, neighbour_radius, agents, threads, seed, &world);
    if (status != THRONG_OK) {
        return status;
    }

    status = throng_group_create(world, &group, &agent.group);
    if (status != THRONG_OK) {
        throng_world_destroy(world);
        return status;
    }

    scenario_rng rng = { seed };
    for (uint32_t i = 0; i < agents; ++i) {
        if (knot) {
            for (int axis = 0; axis < 3; ++axis)
                agent.position[axis] =
                    axis < sc->dimensions
                        ? (float)(knot_edge * (0.0005 + 0.999 * rng_unit(&rng)))
                        : 0.0f;
        } else if (blob) {
            blob_place(&rng, sc->dimensions, box, blob_sigma,
                       floor((i + 1.0) * blob_share) > floor(i * blob_share),
                       agent.position);
        } else if (clustered) {
            cluster_place(&rng, sc->dimensions, box, cluster_radius,
                          floor((i + 1.0) * cluster_share) >
                              floor(i * cluster_share),
                          agent.position);
        } else {
            agent.position[0] = rng_coordinate(&rng, box);
            agent.position[1] = rng_coordinate(&rng, box);
            agent.position[2] =
                sc->dimensions == 3 ? rng_coordinate(&rng, box) : 0.0f;
        }

        double direction[3];
        rng_direction(&rng, sc->dimensions, direction);
        double speed = (double)agent.max_speed *
                       (speed_min + (speed_max - speed_min) * rng_unit(&rng));
        for (int axis = 0; axis < 3; ++axis) {
            agent.velocity[axis] = (float)(direction[axis] * speed);
        }

        throng_agent handle;
        status = throng_agent_add(world, &agent, &handle);
        if (status != THRONG_OK) {
            throng_world_destroy(world);
            return status;
        }
    }

    *out_world = world;
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* Behaviour scenes                                                         */
/* ------------------------------------------------------------------------ */

/* The agent every behaviour scene starts from. */
static throng_agent_def scene_agent(param_reader *reader) {
    throng_agent_def agent = throng_agent_def_default();
    agent.mass = (float)param_get(reader, "mass");
    agent.max_speed = (float)param_get(reader, "max_speed");
    agent.max_force = (float)param_get(reader, "max_force");
    agent.radius = (float)param_get(reader, "body_radius");
    return agent;
}

#define SCENE_AGENT_ROWS                                       \
    { "mass", 1.0, "kg", "agent mass" },                       \
        { "max_speed", 1.4, "m/s", "agent max speed" },        \
        { "max_force", 3.0, "N", "agent max steering force" }, \
        { "body_radius", 0.3, "m", "agent body radius" },

static throng_status unbounded_world_create(int dimensions,
                                            float neighbour_radius,
                                            uint32_t capacity, int threads,
                                            uint64_t seed,
                                            throng_world **out_world) {
    throng_world_def def = scenario_world_def();
    def.dimensions = dimensions;
    def.neighbour_radius = neighbour_radius;
    def.threads = threads;
    def.seed = seed;
    def.initial_capacity = capacity;
    return throng_world_create(&def, out_world);
}

/* Appends a behaviour; the first failure sticks in *status. */
static void scene_add(throng_world *world, throng_group group,
                      const throng_behaviour *b, throng_status *status) {
    if (*status == THRONG_OK)
        *status = throng_group_add_behaviour(world, group, b, NULL);
}

static throng_status scene_fail(throng_world *world, throng_status status) {
    throng_world_destroy(world);
    return status;
}

/*
 * crossing2d_steer: two crowds cross at right angles, by steering alone
 * (the scene was called crossing2d before crossing2d went to ORCA; its
 * recipe and bits are unchanged, and it stays the behaviour benchmark).
 * Half the agents start in a square left of the centre and arrive at the
 * point three edges right of it; the other half start below and arrive
 * above. The square's edge holds `density` agents per square metre. One
 * group, combined by priority: unaligned collision avoidance first, then
 * inverse-distance separation, then arrive. Unbounded world.
 */
static const scenario_param crossing_params[] = {
    SCENE_AGENT_ROWS{ "neighbour_radius", 3.0, "m",
                      "world neighbour radius (grid cell)" },
    { "density", 0.5, "1/m^2", "agents per square metre in each crowd" },
    { "avoid_weight", 1.0, "", "unaligned collision avoidance weight" },
    { "avoid_horizon", 2.0, "s", "collisions predicted this far ahead" },
    { "separation_radius", 1.0, "m", "separation neighbourhood" },
    { "separation_weight", 0.5, "", "separation weight (inverse distance)" },
    { "arrive_weight", 1.0, "", "arrive weight" },
};

/* The crowds keep their bodies apart (radius 0.3 m) once the random start,
 * which may place two bodies on each other, has spread. */
static const scenario_range crossing_ranges[] = {
    { SCENARIO_FIGURE_OVERLAP, 0.0, 0.0, 200, "no body overlaps another" },
    { SCENARIO_FIGURE_SEPARATION, 0.6, (double)INFINITY, 200,
      "centres at least two body radii apart" },
};

static throng_status crossing_build(const scenario *sc, uint32_t agents,
                                    int threads, uint64_t seed,
                                    throng_world **out_world) {
    if (out_world == NULL)
        return THRONG_ERR_NULL;
    *out_world = NULL;
    param_reader reader = { sc, false, false };
    throng_agent_def agent = scene_agent(&reader);
    float radius = (float)param_get(&reader, "neighbour_radius");
    double density = param_get(&reader, "density");
    throng_group_def group = throng_group_def_default();
    group.name = "crossing";
    group.combine = THRONG_COMBINE_PRIORITY;
    group.flocking.separation_mode = THRONG_SEPARATION_INVERSE_DISTANCE;
    group.flocking.separation_radius =
        (float)param_get(&reader, "separation_radius");
    group.flocking.separation_weight =
        (float)param_get(&reader, "separation_weight");
    group.flocking.separation_priority = 1;
    throng_behaviour avoid =
        throng_behaviour_default(THRONG_BEHAVIOUR_AVOID_NEIGHBOURS);
    avoid.weight = (float)param_get(&reader, "avoid_weight");
    avoid.priority = 2;
    avoid.u.unaligned.horizon = (float)param_get(&reader, "avoid_horizon");
    throng_behaviour arrive = throng_behaviour_default(THRONG_BEHAVIOUR_ARRIVE);
    arrive.weight = (float)param_get(&reader, "arrive_weight");
    if (reader.bad)
        return THRONG_ERR_INVALID_ARG;
    if (reader.missing || !(density > 0.0))
        return THRONG_ERR_NOT_FOUND;

    throng_world *world = NULL;
    throng_status st =
        unbounded_world_create(2, radius, agents, threads, seed, &world);
    if (st != THRONG_OK)
        return st;
    st = throng_group_create(world, &group, &agent.group);
    scene_add(world, agent.group, &avoid, &st);
    scene_add(world, agent.group, &arrive, &st);
    if (st != THRONG_OK)
        return scene_fail(world, st);

    float edge = (float)sqrt(((double)agents / 2.0 + 1.0) / density);
    scenario_rng rng = { seed };
    for (uint32_t i = 0; i < agents && st == THRONG_OK; ++i) {
        /* Crowd 0 moves +x, crowd 1 moves +y; the gap between the
         * squares and the centre is half an edge. */
        int crowd = (int)(i & 1u);
        float along = -1.5f * edge + rng_coordinate(&rng, edge);
        float across = -0.5f * edge + rng_coordinate(&rng, edge);
        float goal = along + 3.0f * edge;
        agent.position[crowd] = along;
        agent.position[1 - crowd] = across;
        agent.velocity[0] = agent.velocity[1] = 0.0f;
        agent.velocity[crowd] = agent.max_speed * 0.5f;
        float target[3] = { 0.0f, 0.0f, 0.0f };
        target[crowd] = goal;
        target[1 - crowd] = across;
        throng_agent handle;
        st = throng_agent_add(world, &agent, &handle);
        if (st == THRONG_OK)
            st = throng_agent_set_target_point(world, handle, target);
    }
    if (st != THRONG_OK)
        return scene_fail(world, st);
    *out_world = world;
    return THRONG_OK;
}

/*
 * pursuit2d: pairs of a pursuer and an evader in a periodic box at the
 * flock density. Evaders wander (turn-rate form) and evade their pursuer
 * within `evade_range`; pursuers pursue their evader with T = d / v_max.
 * Evaders are a little slower, so pursuers close in.
 */
static const scenario_param pursuit_params[] = {
    SCENE_AGENT_ROWS{ "neighbour_radius", 1.0, "m",
                      "world neighbour radius (grid cell)" },
    { "neighbours", 10.0, "", "mean agents within the radius: sets the box" },
    { "evader_speed", 1.2, "m/s", "evaders' max speed" },
    { "evade_range", 4.0, "m", "evaders react within this distance" },
    { "wander_weight", 1.0, "", "evaders' wander weight" },
};

/* The pursuers catch up: most pairs touch (pursuit has no separation). */
static const scenario_range pursuit_ranges[] = {
    { SCENARIO_FIGURE_OVERLAP, 50.0, 100.0, 200,
      "most agents touch their partner: the pursuers close in" },
};

static throng_status pursuit_build(const scenario *sc, uint32_t agents,
                                   int threads, uint64_t seed,
                                   throng_world **out_world) {
    if (out_world == NULL)
        return THRONG_ERR_NULL;
    *out_world = NULL;
    param_reader reader = { sc, false, false };
    throng_agent_def agent = scene_agent(&reader);
    float radius = (float)param_get(&reader, "neighbour_radius");
    float evader_speed = (float)param_get(&reader, "evader_speed");
    throng_group_def hunters = throng_group_def_default();
    hunters.name = "pursuers";
    hunters.combine = THRONG_COMBINE_WEIGHTED_SUM;
    throng_group_def prey = throng_group_def_default();
    prey.name = "evaders";
    prey.combine = THRONG_COMBINE_WEIGHTED_SUM;
    prey.wander.weight = (float)param_get(&reader, "wander_weight");
    throng_behaviour pursue = throng_behaviour_default(THRONG_BEHAVIOUR_PURSUE);
    throng_behaviour evade = throng_behaviour_default(THRONG_BEHAVIOUR_EVADE);
    evade.u.pursue.evade_range = (float)param_get(&reader, "evade_range");
    double box = scenario_box_edge(sc, agents);
    if (reader.bad)
        return THRONG_ERR_INVALID_ARG;
    if (reader.missing || !(box > 0.0))
        return THRONG_ERR_NOT_FOUND;

    throng_world *world = NULL;
    throng_status st = periodic_world_create(2, (float)box, radius, agents,
                                             threads, seed, &world);
    if (st != THRONG_OK)
        return st;
    throng_group hunter_group = THRONG_NULL_GROUP,
                 prey_group = THRONG_NULL_GROUP;
    st = throng_group_create(world, &hunters, &hunter_group);
    if (st == THRONG_OK)
        st = throng_group_create(world, &prey, &prey_group);
    scene_add(world, hunter_group, &pursue, &st);
    scene_add(world, prey_group, &evade, &st);
    scenario_rng rng = { seed };
    throng_agent last = THRONG_NULL_AGENT;
    for (uint32_t i = 0; i < agents && st == THRONG_OK; ++i) {
        int is_prey = (int)(i & 1u);
        agent.group = is_prey ? prey_group : hunter_group;
        agent.max_speed =
            is_prey ? evader_speed : (float)param_get(&reader, "max_speed");
        double dir[3];
        rng_direction(&rng, 2, dir);
        if (is_prey) {
            /* Three metres from its pursuer, whose position `agent` still
             * holds. */
            agent.position[0] += (float)(3.0 * dir[0]);
            agent.position[1] += (float)(3.0 * dir[1]);
            agent.position[0] =
                fmodf(agent.position[0] + (float)box, (float)box);
            agent.position[1] =
                fmodf(agent.position[1] + (float)box, (float)box);
        } else {
            agent.position[0] = rng_coordinate(&rng, (float)box);
            agent.position[1] = rng_coordinate(&rng, (float)box);
        }
        agent.velocity[0] = (float)dir[0] * 0.5f * agent.max_speed;
        agent.velocity[1] = (float)dir[1] * 0.5f * agent.max_speed;
        throng_agent handle;
        st = throng_agent_add(world, &agent, &handle);
        if (st == THRONG_OK && is_prey) {
            st = throng_agent_set_target_agent(world, handle, last);
            if (st == THRONG_OK)
                st = throng_agent_set_target_agent(world, last, handle);
        }
        last = handle;
    }
    if (st != THRONG_OK)
        return scene_fail(world, st);
    *out_world = world;
    return THRONG_OK;
}

/*
 * path2d: a crowd following a closed ring path (crowd path following, seeds
 * 001 and 004): path following plus inverse-distance separation, summed.
 * The ring's radius gives the corridor `density` agents per square metre;
 * agents start spread over the corridor, moving along the ring, with
 * their progress set to the segment beside them. Unbounded world.
 */
static const scenario_param path_params[] = {
    SCENE_AGENT_ROWS{ "neighbour_radius", 1.0, "m",
                      "world neighbour radius (grid cell)" },
    { "density", 1.0, "1/m^2", "agents per square metre of corridor" },
    { "path_radius", 15.0, "m", "corridor half width" },
    { "path_points", 256.0, "", "points on the ring (8 to 4096)" },
    { "separation_radius", 0.8, "m", "separation neighbourhood" },
    { "separation_weight", 1.0, "", "separation weight (inverse distance)" },
    { "path_weight", 1.0, "", "path following weight" },
};

/* As crossing2d_steer: bodies apart once the random start has spread. */
static const scenario_range path_ranges[] = {
    { SCENARIO_FIGURE_OVERLAP, 0.0, 0.0, 200, "no body overlaps another" },
    { SCENARIO_FIGURE_SEPARATION, 0.6, (double)INFINITY, 200,
      "centres at least two body radii apart" },
};

static throng_status path_build(const scenario *sc, uint32_t agents,
                                int threads, uint64_t seed,
                                throng_world **out_world) {
    if (out_world == NULL)
        return THRONG_ERR_NULL;
    *out_world = NULL;
    param_reader reader = { sc, false, false };
    throng_agent_def agent = scene_agent(&reader);
    float radius = (float)param_get(&reader, "neighbour_radius");
    double density = param_get(&reader, "density");
    float corridor = (float)param_get(&reader, "path_radius");
    uint32_t points = param_count(&reader, "path_points");
    throng_group_def group = throng_group_def_default();
    group.name = "path";
    group.combine = THRONG_COMBINE_WEIGHTED_SUM;
    group.flocking.separation_mode = THRONG_SEPARATION_INVERSE_DISTANCE;
    group.flocking.separation_radius =
        (float)param_get(&reader, "separation_radius");
    group.flocking.separation_weight =
        (float)param_get(&reader, "separation_weight");
    throng_behaviour follow =
        throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_PATH);
    follow.weight = (float)param_get(&reader, "path_weight");
    if (reader.bad)
        return THRONG_ERR_INVALID_ARG;
    if (reader.missing || !(density > 0.0) || points < 8 || points > 4096)
        return THRONG_ERR_NOT_FOUND;

    /* Ring area 2 pi R (2 w) = agents / density. */
    double ring =
        (double)agents / density / (4.0 * SCENARIO_PI * (double)corridor);
    ring = fmax(ring, 4.0 * (double)corridor);
    float xy[4096 * 3];
    for (uint32_t k = 0; k < points; ++k) {
        double angle = 2.0 * SCENARIO_PI * k / points, sin_a, cos_a;
        detmath_sincos(angle, &sin_a, &cos_a);
        xy[3 * k] = (float)(ring * cos_a);
        xy[3 * k + 1] = (float)(ring * sin_a);
        xy[3 * k + 2] = 0.0f;
    }
    throng_world *world = NULL;
    throng_status st =
        unbounded_world_create(2, radius, agents, threads, seed, &world);
    if (st != THRONG_OK)
        return st;
    throng_object path;
    throng_path_def pd = throng_path_def_default();
    pd.points = xy;
    pd.point_count = points;
    pd.radius = corridor;
    pd.closed = true;
    st = throng_path_add(world, &pd, &path);
    follow.u.path.path = path;
    if (st == THRONG_OK)
        st = throng_group_create(world, &group, &agent.group);
    scene_add(world, agent.group, &follow, &st);
    scenario_rng rng = { seed };
    for (uint32_t i = 0; i < agents && st == THRONG_OK; ++i) {
        double angle = 2.0 * SCENARIO_PI * rng_unit(&rng);
        double off = (2.0 * rng_unit(&rng) - 1.0) * 0.9 * (double)corridor;
        double r = ring + off, sin_a, cos_a;
        detmath_sincos(angle, &sin_a, &cos_a);
        agent.position[0] = (float)(r * cos_a);
        agent.position[1] = (float)(r * sin_a);
        /* Counter-clockwise, the direction the points run. */
        agent.velocity[0] = (float)(-sin_a) * agent.max_speed * 0.5f;
        agent.velocity[1] = (float)(cos_a)*agent.max_speed * 0.5f;
        throng_agent handle;
        st = throng_agent_add(world, &agent, &handle);
        uint32_t segment = (uint32_t)(angle / (2.0 * SCENARIO_PI) * points);
        if (st == THRONG_OK)
            st = throng_agent_set_progress(world, handle,
                                           segment < points ? segment : 0);
    }
    if (st != THRONG_OK)
        return scene_fail(world, st);
    *out_world = world;
    return THRONG_OK;
}

/*
 * obstacles2d: agents wander through a periodic box scattered with
 * circular obstacles, one per `agents_per_obstacle` agents, centred on a
 * jittered lattice. Combined by priority: obstacle avoidance first, then
 * separation, then wander. Agents start in the lanes between obstacles.
 */
static const scenario_param obstacle_params[] = {
    SCENE_AGENT_ROWS{ "neighbour_radius", 1.0, "m",
                      "world neighbour radius (grid cell)" },
    { "neighbours", 5.0, "", "mean agents within the radius: sets the box" },
    { "agents_per_obstacle", 10.0, "", "agents per obstacle" },
    { "obstacle_fill", 0.15, "",
      "fraction of a lattice cell's width an obstacle spans" },
    { "avoid_weight", 1.0, "", "obstacle avoidance weight" },
    { "separation_radius", 0.8, "m", "separation neighbourhood" },
    { "separation_weight", 1.0, "", "separation weight (inverse distance)" },
    { "wander_weight", 1.0, "", "wander weight (turn-rate form)" },
};

/* A guard, not a claim: separation does not keep these wanderers apart
 * (about 60% overlap another body after 200 to 1,000 steps); a change
 * that makes it worse leaves the range. */
static const scenario_range obstacle_ranges[] = {
    { SCENARIO_FIGURE_OVERLAP, 0.0, 75.0, 200,
      "guard at today's overlap share (about 60%)" },
};

static throng_status obstacles_build(const scenario *sc, uint32_t agents,
                                     int threads, uint64_t seed,
                                     throng_world **out_world) {
    if (out_world == NULL)
        return THRONG_ERR_NULL;
    *out_world = NULL;
    param_reader reader = { sc, false, false };
    throng_agent_def agent = scene_agent(&reader);
    float radius = (float)param_get(&reader, "neighbour_radius");
    double per = param_get(&reader, "agents_per_obstacle");
    double fill = param_get(&reader, "obstacle_fill");
    throng_group_def group = throng_group_def_default();
    group.name = "walkers";
    group.combine = THRONG_COMBINE_PRIORITY;
    group.flocking.separation_mode = THRONG_SEPARATION_INVERSE_DISTANCE;
    group.flocking.separation_radius =
        (float)param_get(&reader, "separation_radius");
    group.flocking.separation_weight =
        (float)param_get(&reader, "separation_weight");
    group.flocking.separation_priority = 1;
    group.wander.weight = (float)param_get(&reader, "wander_weight");
    throng_behaviour avoid =
        throng_behaviour_default(THRONG_BEHAVIOUR_AVOID_OBSTACLES);
    avoid.weight = (float)param_get(&reader, "avoid_weight");
    avoid.priority = 2;
    double box = scenario_box_edge(sc, agents);
    if (reader.bad)
        return THRONG_ERR_INVALID_ARG;
    if (reader.missing || !(box > 0.0) || !(per >= 1.0) || !(fill > 0.0) ||
        !(fill < 0.5))
        return THRONG_ERR_NOT_FOUND;

    throng_world *world = NULL;
    throng_status st = periodic_world_create(2, (float)box, radius, agents,
                                             threads, seed, &world);
    if (st != THRONG_OK)
        return st;
    st = throng_group_create(world, &group, &agent.group);
    scene_add(world, agent.group, &avoid, &st);
    /* A lattice of side n, n^2 ~ agents / per; obstacle k sits near the
     * centre of its lattice cell. */
    uint32_t n = (uint32_t)ceil(sqrt((double)agents / per));
    n = n < 1 ? 1 : n;
    double pitch = box / n;
    float obstacle_r = (float)(fill * pitch);
    scenario_rng rng = { seed ^ 0x0b57ac1e5ull };
    for (uint32_t k = 0; k < n * n && st == THRONG_OK; ++k) {
        double jitter = 0.5 * pitch - 2.0 * (double)obstacle_r;
        float centre[3] = {
            (float)(((k % n) + 0.5) * pitch +
                    jitter * (2.0 * rng_unit(&rng) - 1.0) * 0.5),
            /* k / n is the row: integer division on purpose. */
            /* NOLINTNEXTLINE(bugprone-integer-division) */
            (float)(((k / n) + 0.5) * pitch +
                    jitter * (2.0 * rng_unit(&rng) - 1.0) * 0.5),
            0.0f
        };
        throng_object obstacle;
        throng_obstacle_def od = throng_obstacle_def_default();
        memcpy(od.center, centre, sizeof od.center);
        od.radius = obstacle_r;
        st = throng_obstacle_add(world, &od, &obstacle);
    }
    /* Agents on the lattice lines between the obstacles' cells, which no
     * obstacle reaches. */
    for (uint32_t i = 0; i < agents && st == THRONG_OK; ++i) {
        double dir[3];
        rng_direction(&rng, 2, dir);
        int on_x = (int)(ts_splitmix64(&rng.state) & 1u);
        float line = (float)((double)(ts_splitmix64(&rng.state) % n) * pitch);
        float spot = rng_coordinate(&rng, (float)box);
        agent.position[0] = on_x ? line : spot;
        agent.position[1] = on_x ? spot : line;
        agent.velocity[0] = (float)dir[0] * 0.5f * agent.max_speed;
        agent.velocity[1] = (float)dir[1] * 0.5f * agent.max_speed;
        throng_agent handle;
        st = throng_agent_add(world, &agent, &handle);
    }
    if (st != THRONG_OK)
        return scene_fail(world, st);
    *out_world = world;
    return THRONG_OK;
}

/*
 * leader2d: leaders wander through a periodic box; each has
 * `followers_per_leader` followers that follow it (seed 004: arrive behind
 * it, clear its way) and keep apart with separation, summed.
 */
static const scenario_param leader_params[] = {
    SCENE_AGENT_ROWS{ "neighbour_radius", 1.0, "m",
                      "world neighbour radius (grid cell)" },
    { "neighbours", 5.0, "", "mean agents within the radius: sets the box" },
    { "followers_per_leader", 99.0, "", "followers of each leader" },
    { "leader_speed", 0.8, "m/s", "leaders' max speed" },
    { "separation_radius", 0.8, "m", "separation neighbourhood" },
    { "separation_weight", 1.0, "", "separation weight (inverse distance)" },
    { "follow_weight", 1.0, "", "leader following weight" },
};

/* A guard, not a claim: followers crowd their leader (about 76-83%
 * overlap another body after 200 to 1,000 steps). */
static const scenario_range leader_ranges[] = {
    { SCENARIO_FIGURE_OVERLAP, 0.0, 90.0, 200,
      "guard at today's overlap share (about 80%)" },
};

static throng_status leader_build(const scenario *sc, uint32_t agents,
                                  int threads, uint64_t seed,
                                  throng_world **out_world) {
    if (out_world == NULL)
        return THRONG_ERR_NULL;
    *out_world = NULL;
    param_reader reader = { sc, false, false };
    throng_agent_def agent = scene_agent(&reader);
    float follower_speed = agent.max_speed;
    float radius = (float)param_get(&reader, "neighbour_radius");
    uint32_t per = param_count(&reader, "followers_per_leader");
    float leader_speed = (float)param_get(&reader, "leader_speed");
    throng_group_def leaders = throng_group_def_default();
    leaders.name = "leaders";
    leaders.wander.weight = 1.0f;
    throng_group_def followers = throng_group_def_default();
    followers.name = "followers";
    followers.combine = THRONG_COMBINE_WEIGHTED_SUM;
    followers.flocking.separation_mode = THRONG_SEPARATION_INVERSE_DISTANCE;
    followers.flocking.separation_radius =
        (float)param_get(&reader, "separation_radius");
    followers.flocking.separation_weight =
        (float)param_get(&reader, "separation_weight");
    throng_behaviour follow =
        throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_LEADER);
    follow.weight = (float)param_get(&reader, "follow_weight");
    double box = scenario_box_edge(sc, agents);
    if (reader.bad)
        return THRONG_ERR_INVALID_ARG;
    if (reader.missing || !(box > 0.0) || per < 1)
        return THRONG_ERR_NOT_FOUND;

    throng_world *world = NULL;
    throng_status st = periodic_world_create(2, (float)box, radius, agents,
                                             threads, seed, &world);
    if (st != THRONG_OK)
        return st;
    throng_group leader_group = THRONG_NULL_GROUP;
    throng_group follower_group = THRONG_NULL_GROUP;
    st = throng_group_create(world, &leaders, &leader_group);
    if (st == THRONG_OK)
        st = throng_group_create(world, &followers, &follower_group);
    scene_add(world, follower_group, &follow, &st);
    scenario_rng rng = { seed };
    throng_agent leader = THRONG_NULL_AGENT;
    float home[2] = { 0.0f, 0.0f };
    for (uint32_t i = 0; i < agents && st == THRONG_OK; ++i) {
        int is_leader = i % (per + 1) == 0;
        double dir[3];
        rng_direction(&rng, 2, dir);
        if (is_leader) {
            home[0] = rng_coordinate(&rng, (float)box);
            home[1] = rng_coordinate(&rng, (float)box);
        }
        /* Followers start within a few metres of their leader. */
        double spread = is_leader ? 0.0 : 6.0 * sqrt(rng_unit(&rng));
        agent.position[0] =
            fmodf(home[0] + (float)(spread * dir[0]) + (float)box, (float)box);
        agent.position[1] =
            fmodf(home[1] + (float)(spread * dir[1]) + (float)box, (float)box);
        agent.group = is_leader ? leader_group : follower_group;
        agent.max_speed = is_leader ? leader_speed : follower_speed;
        agent.velocity[0] = (float)dir[0] * 0.5f * agent.max_speed;
        agent.velocity[1] = (float)dir[1] * 0.5f * agent.max_speed;
        throng_agent handle;
        st = throng_agent_add(world, &agent, &handle);
        if (st == THRONG_OK && is_leader)
            leader = handle;
        else if (st == THRONG_OK)
            st = throng_agent_set_target_agent(world, handle, leader);
    }
    if (st != THRONG_OK)
        return scene_fail(world, st);
    *out_world = world;
    return THRONG_OK;
}

/*
 * every2d, every3d: every behaviour at once, for the determinism tests: six
 * groups in a periodic box (one per six agents each), using all three
 * combine modes, with obstacles, walls, a closed path and a flow field.
 * Each agent's target agent is the next agent added, its target point a
 * random point of the box. Not tuned to look like anything.
 */
static const scenario_param every_params[] = {
    SCENE_AGENT_ROWS{ "neighbour_radius", 1.0, "m",
                      "world neighbour radius (grid cell)" },
    { "neighbours", 10.0, "", "mean agents within the radius: sets the box" },
};

static throng_status every_build(const scenario *sc, uint32_t agents,
                                 int threads, uint64_t seed,
                                 throng_world **out_world) {
    if (out_world == NULL)
        return THRONG_ERR_NULL;
    *out_world = NULL;
    param_reader reader = { sc, false, false };
    throng_agent_def agent = scene_agent(&reader);
    float radius = (float)param_get(&reader, "neighbour_radius");
    double box_edge = scenario_box_edge(sc, agents);
    if (reader.bad)
        return THRONG_ERR_INVALID_ARG;
    if (reader.missing || !(box_edge > 0.0))
        return THRONG_ERR_NOT_FOUND;
    const int dims = sc->dimensions;
    const float L = (float)box_edge;
    throng_world *world = NULL;
    throng_status st =
        periodic_world_create(dims, L, radius, agents, threads, seed, &world);
    if (st != THRONG_OK)
        return st;

    /* Geometry. */
    /* Null until created: a failed step above still hands them on. */
    throng_object path = { 0 }, field = { 0 }, obstacle;
    throng_obstacle_def sphere = throng_obstacle_def_default();
    sphere.center[0] = 0.25f * L;
    sphere.center[1] = 0.25f * L;
    sphere.center[2] = 0.5f * L;
    sphere.radius = 0.05f * L;
    st = throng_obstacle_add(world, &sphere, &obstacle);
    throng_obstacle_def box = throng_obstacle_def_default();
    box.kind = THRONG_OBJECT_BOX;
    box.radius = 0.0f;
    const float lo[3] = { 0.6f * L, 0.6f * L, 0.4f * L };
    const float hi[3] = { 0.7f * L, 0.8f * L, 0.6f * L };
    memcpy(box.min, lo, sizeof lo);
    memcpy(box.max, hi, sizeof hi);
    if (st == THRONG_OK)
        st = throng_obstacle_add(world, &box, &obstacle);
    throng_wall_def wall = throng_wall_def_default();
    if (dims == 2) {
        wall.a[0] = 0.1f * L;
        wall.a[1] = 0.9f * L;
        wall.b[0] = 0.9f * L;
        wall.b[1] = 0.9f * L;
    } else {
        wall.kind = THRONG_OBJECT_PLANE;
        wall.point[2] = 0.05f * L;
        wall.normal[2] = 1.0f;
    }
    if (st == THRONG_OK)
        st = throng_wall_add(world, &wall, &obstacle);
    float ring[16 * 3];
    for (int k = 0; k < 16; ++k) {
        double angle = 2.0 * SCENARIO_PI * k / 16.0, sin_a, cos_a;
        detmath_sincos(angle, &sin_a, &cos_a);
        ring[3 * k] = (float)(0.5 * (double)L + 0.3 * (double)L * cos_a);
        ring[3 * k + 1] = (float)(0.5 * (double)L + 0.3 * (double)L * sin_a);
        ring[3 * k + 2] = 0.5f * L;
    }
    throng_path_def ring_def = throng_path_def_default();
    ring_def.points = ring;
    ring_def.point_count = 16;
    ring_def.radius = 0.05f * L;
    ring_def.closed = true;
    if (st == THRONG_OK)
        st = throng_path_add(world, &ring_def, &path);
    float vectors[4 * 4 * 4 * 3];
    for (int k = 0; k < 4 * 4 * 4; ++k) {
        /* A swirl about the box centre, the same on every layer. */
        int i = k % 4, j = (k / 4) % 4;
        float v[3] = { (float)(j - 1.5), (float)(1.5 - i), 0.25f };
        for (int c = 0; c < dims; ++c)
            vectors[dims * k + c] = v[c];
    }
    throng_flow_field_def flow;
    memset(&flow, 0, sizeof flow);
    flow.cell_size = L / 3.0f;
    flow.size[0] = flow.size[1] = flow.size[2] = 4;
    flow.vectors = vectors;
    if (st == THRONG_OK)
        st = throng_flow_field_add(world, &flow, &field);

    /* Groups. */
    enum {
        GROUPS = 6
    };
    throng_group ids[GROUPS] = { THRONG_NULL_GROUP };
    const throng_combine_mode modes[GROUPS] = {
        THRONG_COMBINE_WEIGHTED_AVERAGE, THRONG_COMBINE_WEIGHTED_SUM,
        THRONG_COMBINE_PRIORITY,         THRONG_COMBINE_WEIGHTED_AVERAGE,
        THRONG_COMBINE_WEIGHTED_SUM,     THRONG_COMBINE_PRIORITY
    };
    for (int g = 0; g < GROUPS && st == THRONG_OK; ++g) {
        throng_group_def def = throng_group_def_default();
        def.combine = modes[g];
        def.flocking.separation_weight = g == 4 ? 0.0f : 1.0f;
        def.flocking.separation_mode = (g & 1)
                                           ? THRONG_SEPARATION_INVERSE_DISTANCE
                                           : THRONG_SEPARATION_FLEE_AVERAGE;
        def.flocking.separation_priority = g == 2 ? 1 : 0;
        def.flocking.alignment_weight = g == 0 || g == 4 ? 0.5f : 0.0f;
        def.flocking.cohesion_weight = g == 0 ? 0.5f : 0.0f;
        def.flocking.field_of_view = g == 0 ? 4.0f : 6.2831855f;
        def.wander.weight = g == 0 ? 0.3f : 0.0f;
        st = throng_group_create(world, &def, &ids[g]);
    }
    throng_behaviour b;
#define EVERY_ADD(group, kind, ...)            \
    do {                                       \
        b = throng_behaviour_default(kind);    \
        __VA_ARGS__;                           \
        scene_add(world, ids[group], &b, &st); \
    } while (0)
    EVERY_ADD(0, THRONG_BEHAVIOUR_SEEK, (void)0);
    EVERY_ADD(
        0, THRONG_BEHAVIOUR_FLEE, b.u.seek.source = THRONG_TARGET_FIXED_POINT;
        b.u.seek.point[0] = b.u.seek.point[1] = b.u.seek.point[2] = 0.5f * L;
        b.u.seek.flee_range = 0.2f * L);
    EVERY_ADD(1, THRONG_BEHAVIOUR_ARRIVE, (void)0);
    EVERY_ADD(1, THRONG_BEHAVIOUR_ARRIVE, b.u.seek.ramp = THRONG_ARRIVE_LINEAR;
              b.u.seek.braking_distance = 2.0f; b.weight = 0.5f);
    EVERY_ADD(1, THRONG_BEHAVIOUR_AVOID_NEIGHBOURS, b.weight = 2.0f);
    EVERY_ADD(2, THRONG_BEHAVIOUR_AVOID_OBSTACLES, b.priority = 5);
    EVERY_ADD(2, THRONG_BEHAVIOUR_PURSUE, (void)0);
    EVERY_ADD(2, THRONG_BEHAVIOUR_OFFSET_PURSUIT, b.u.pursue.offset[0] = -1.0f;
              b.u.pursue.offset[1] = 0.5f; b.u.pursue.prediction_time = 0.5f);
    EVERY_ADD(3, THRONG_BEHAVIOUR_EVADE, b.u.pursue.evade_range = 3.0f);
    EVERY_ADD(3, THRONG_BEHAVIOUR_WANDER_CIRCLE, (void)0);
    EVERY_ADD(
        3, THRONG_BEHAVIOUR_CONTAIN, b.u.contain.use_box = true;
        for (int c = 0; c < 3; ++c) {
            b.u.contain.box_min[c] = 0.1f * L;
            b.u.contain.box_max[c] = 0.9f * L;
        });
    EVERY_ADD(4, THRONG_BEHAVIOUR_PATROL, b.u.path.path = path);
    EVERY_ADD(4, THRONG_BEHAVIOUR_FOLLOW_PATH, b.u.path.path = path);
    EVERY_ADD(4, THRONG_BEHAVIOUR_FOLLOW_FLOW, b.u.flow.field = field;
              b.weight = 0.5f);
    EVERY_ADD(4, THRONG_BEHAVIOUR_FOLLOW_WALL, b.weight = 0.5f);
    EVERY_ADD(5, THRONG_BEHAVIOUR_FOLLOW_LEADER, b.priority = 1);
    EVERY_ADD(5, THRONG_BEHAVIOUR_CONTAIN, b.priority = 2);
#undef EVERY_ADD

    scenario_rng rng = { seed };
    throng_agent previous = THRONG_NULL_AGENT, first = THRONG_NULL_AGENT;
    for (uint32_t i = 0; i < agents && st == THRONG_OK; ++i) {
        for (int c = 0; c < dims; ++c)
            agent.position[c] = rng_coordinate(&rng, L);
        double dir[3];
        rng_direction(&rng, dims, dir);
        for (int c = 0; c < 3; ++c)
            agent.velocity[c] = (float)dir[c] * 0.5f * agent.max_speed;
        agent.group = ids[i % GROUPS];
        float target[3] = { rng_coordinate(&rng, L), rng_coordinate(&rng, L),
                            rng_coordinate(&rng, L) };
        throng_agent handle;
        st = throng_agent_add(world, &agent, &handle);
        if (st == THRONG_OK)
            st = throng_agent_set_target_point(world, handle, target);
        if (st == THRONG_OK && i > 0)
            st = throng_agent_set_target_agent(world, previous, handle);
        if (i == 0)
            first = handle;
        previous = handle;
    }
    /* The last agent targets the first, closing the chain. */
    if (st == THRONG_OK && agents > 1)
        st = throng_agent_set_target_agent(world, previous, first);
    if (st != THRONG_OK)
        return scene_fail(world, st);
    *out_world = world;
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* Collision-free scenes: ORCA's velocity stage                             */
/* ------------------------------------------------------------------------ */

/*
 * circle2d: the classic benchmark of reciprocal avoidance (the Circle
 * scene of van den Berg et al.'s RVO2 library, rebuilt from its published
 * parameters). Agent i starts on a circle at angle 2 pi i / N and walks to
 * the antipodal point, so every path crosses every other at the centre.
 * The circle's radius is 200 m at 250 agents and grows with N (200 N /
 * 250) so neighbours start 5 m apart at any size. Unbounded world, one
 * group, dt = 0.25 s.
 *
 * The preferred velocity is RVO2's: the vector to the goal, shortened to
 * unit length when it is longer, so agents cruise at 1 m/s and slow
 * linearly within the last metre, while ORCA may use up to the max speed
 * of 2 m/s to get out of the way. Arrive gives it: speed factor 0.5 of
 * the 2 m/s max speed (s_t = 1 m/s), the linear ramp, braking distance
 * 1 m, so v_desired = (goal - p) inside 1 m and its unit vector outside.
 * Its force m (v_desired - v) / dt never exceeds 1 kg x 3 m/s / 0.25 s =
 * 12 N, below the 100 N max force, so the preferred velocity
 * v + F dt / m is v_desired exactly. ORCA: neighbour range 15 m (the
 * world's neighbour radius, range 0), the 10 nearest, time horizon 10 s,
 * responsibility 0.5, a keep-right turn of 0.45 rad (RVO2 has none) and
 * a nudge of 0.05 of max speed.
 *
 * Each 0.25 s step is one tick, as the reference moves once a step. One
 * tick needs the turn and the nudge both: with the library's tiny nudge
 * (1e-4), at 0.5 rad two agents that meet near their goals turn round
 * each other for good (500 agents), at 0.45 rad so do pairs of most
 * rings of 100 and more, and at 0.25 or 0.35 rad rings of 50 stand for
 * thousands of steps on most seeds; the circling pairs are a symmetry
 * the turn does not break and a larger nudge does. With 0.45 rad and
 * 0.05, every ring tried from 25 to 2,000 agents crossed (25 to 70 on
 * seeds 1 to 8, 80 to 2,000 on seeds 1 to 4), none deeper than 0.35% of
 * r_i + r_j and no agent standing more than 13 steps (0.03 and 0.1
 * crossed too, from 40 to 1,000 agents on seeds 1 to 4; 0.01 left rings
 * of 100 and more with pairs circling). Two ticks of 0.125 s with the
 * library's turn and nudge (`--set ticks=2,keep_right=0.5,nudge=1e-4`)
 * cross as cleanly, none deeper than 0.2%, at twice the cost a step.
 *
 * ORCA's neighbours come from lists kept across ticks with a skin of
 * 5 m (throng_world_set_neighbour_skin). The ring closes as one, so
 * its lists are kept in the crowd's frame (verlet_frame.c) for the
 * whole way in, and a thin skin costs no rebuilds there: 5 m lists a
 * ring's agent 3 neighbours a side (20 m reach, the 4th at 20.1 m),
 * where 6 m and more list 4. The crossing's middle, which does not move
 * as one, rebuilds more often for it. The states are the bits of
 * `--set skin=0`; the rows stay in the order the agents were added
 * (round the circle), so the state hash differs (and is the same for
 * every skin). Four alternated runs each (AVX-512): at 10,000 agents
 * over the first 1,000 steps the median step 0.258 ms and the mean
 * 0.259-0.262 with 5 m, against 0.265 and 0.265-0.269 with 8 m; over
 * the crossing at 1,000 the median 0.073-0.075 with either and the
 * mean 0.080-0.082 against 0.075-0.076.
 *
 * An agent has reached its goal within its body radius (1.5 m); the run
 * is done when every agent is within its radius at once.
 */
#define ORCA_AGENT_ROWS                                                      \
    { "mass", 1.0, "kg", "agent mass" },                                     \
        { "max_speed", 2.0, "m/s", "agent max speed (ORCA's speed limit)" }, \
        { "max_force", 100.0, "N",                                           \
          "agent max steering force: never reached, so the preferred "       \
          "velocity is arrive's desired velocity" },                         \
        { "body_radius", 1.5, "m",                                           \
          "agent body radius; goal reached within "                          \
          "it" },                                                            \
        { "neighbour_radius", 15.0, "m",                                     \
          "world neighbour radius (grid cell); ORCA's range" },              \
        { "speed_factor", 0.5, "x max_speed",                                \
          "cruising (preferred) speed: 1 m/s" },                             \
        { "braking_distance", 1.0, "m",                                      \
          "arrive slows linearly within it (RVO2's unit cap)" },             \
        { "max_neighbours", 10.0, "", "ORCA's nearest neighbours" },         \
        { "time_horizon", 10.0, "s", "ORCA's time horizon" },                \
        { "responsibility", 0.5, "", "ORCA's share of each avoidance" },
static const scenario_param circle_params[] = {
    ORCA_AGENT_ROWS{ "keep_right", 0.45, "rad",
                     "turn of a forbidden preferred velocity (see above)" },
    { "nudge", 0.05, "x max_speed",
      "random nudge of a forbidden preferred velocity, per axis (see "
      "above)" },
    { "ticks", 1.0, "", "ticks per 0.25 s step, as the reference moves" },
    { "contact_iterations", 0.0, "",
      "contact resolution passes after each move (0: none)" },
    { "contact_velocity", 0.0, "",
      "1: contact pushes count in the velocity (position-based dynamics)" },
    { "circle_radius", 200.0, "m",
      "start circle's radius at 250 agents (x N / 250)" },
    { "skin", 5.0, "m",
      "neighbour lists kept across ticks with this skin (0: none; see "
      "above)" },
};

/* What ORCA claims here: no pair sinks into another by more than 1% of
 * their mean radius (ORCA drives pairs to touch, and float rounding
 * leaves some a hair inside: 328 pair-steps at 1,000 agents, the deepest
 * 0.03% of r_i + r_j, so "overlaps" counts them, "deep" must stay 0), and
 * no agent stands still away from its goal for 100 s (400 steps; at
 * 1,000 agents the longest stall is 2 steps). Below 25 agents ORCA's ring
 * stops dead, which the stall range reports. */
static const scenario_range circle_ranges[] = {
    { SCENARIO_FIGURE_DEEP_OVERLAPS, 0.0, 0.0, 0,
      "no pair overlaps by more than 1% of its mean radius" },
    { SCENARIO_FIGURE_STALL, 0.0, 400.0, 0,
      "no agent stands still away from its goal for 100 s" },
};

/*
 * orca_dense2d: a dense crowd walking to random goals. One agent per
 * 5 m x 5 m cell of a square of n x n cells, n = ceil(sqrt(N)) (side
 * 5 n m, sqrt(25 N) for a square N), filled row by row, each agent
 * jittered up to 0.9 m from its cell's centre on each axis (bodies start
 * at least 3.2 m apart, clear of each other's 1.5 m radius). Each goal is
 * a uniform point of the square, drawn from a counter-based hash of
 * (seed, agent, arrivals); an agent within its radius of its goal gets
 * the next one between steps (scenario_between_steps), so the scene is the
 * same on any thread count. circle2d's agents, recipe and dt.
 */
static const scenario_param dense_params[] = {
    ORCA_AGENT_ROWS{ "keep_right", 0.5, "rad",
                     "turn of a forbidden preferred velocity (library "
                     "default)" },
    { "nudge", 1e-4, "x max_speed",
      "random nudge of a forbidden preferred velocity, per axis (library "
      "default)" },
    { "ticks", 3.0, "",
      "ticks per 0.25 s step (the library's default longest tick, 0.1 s, "
      "makes it three)" },
    { "contact_iterations", 0.0, "",
      "contact resolution passes after each move (0: none)" },
    { "contact_velocity", 0.0, "",
      "1: contact pushes count in the velocity (position-based dynamics)" },
    { "cell", 5.0, "m", "one agent per cell of this edge" },
    { "jitter", 0.9, "m", "largest offset from the cell centre per axis" },
    { "skin", 0.0, "m",
      "neighbour lists kept across ticks with this skin (0: none)" },
};

/* Dense, ORCA lets pairs sink in a little (their constraints cannot all
 * hold, and the fallback breaks the worst least): at 10,000 agents about
 * 3 pair-steps in 10,000 go deeper than 1% of the mean radius, the deepest
 * 1.3% of r_i + r_j. A guard, not a claim: depth under 5%, and no agent
 * stuck for 50 s (200 steps; about 20 measured). */
static const scenario_range dense_ranges[] = {
    { SCENARIO_FIGURE_OVERLAP_DEPTH, 0.0, 5.0, 0,
      "guard: no pair sinks deeper than 5% of r_i + r_j" },
    { SCENARIO_FIGURE_STALL, 0.0, 200.0, 0,
      "no agent stands still away from its goal for 50 s" },
};

/* A uniform number in [0, 1) from (seed, key, arrivals, axis): three
 * rounds of splitmix64's finaliser over the words mixed in turn, so
 * neighbouring counters give unrelated draws and no stream is kept. */
static double goal_draw(uint64_t seed, uint64_t key, uint32_t arrivals,
                        uint32_t axis) {
    uint64_t state = seed ^ 0x6f72636167ull; /* "orcag" */
    (void)ts_splitmix64(&state);
    state ^= key * 0x9e3779b97f4a7c15ull;
    (void)ts_splitmix64(&state);
    state ^= ((uint64_t)arrivals << 2 | axis) * 0xbf58476d1ce4e5b9ull;
    return ts_unit(&state);
}

/* The start radius of circle2d for `agents` agents. */
static double circle_radius(const scenario *sc, uint32_t agents) {
    const scenario_param *p = scenario_param_find(sc, "circle_radius");
    return (p != NULL ? p->value : 0.0) * (double)agents / 250.0;
}

/* circle2d agent `key`'s start point; its goal is the opposite point. */
static void circle_start(const scenario *sc, uint32_t agents, uint64_t key,
                         float out[3]) {
    double angle = 2.0 * SCENARIO_PI * (double)(key - 1) / (double)agents;
    double sin_a, cos_a;
    detmath_sincos(angle, &sin_a, &cos_a);
    double radius = circle_radius(sc, agents);
    out[0] = (float)(radius * cos_a);
    out[1] = (float)(radius * sin_a);
    out[2] = 0.0f;
}

static void circle_goal(const scenario *sc, uint32_t agents, uint64_t seed,
                        uint64_t key, uint32_t arrivals, float out[3]) {
    (void)seed;
    (void)arrivals;
    circle_start(sc, agents, key, out);
    out[0] = -out[0];
    out[1] = -out[1];
}

/* orca_dense2d's cells per side. */
static uint32_t dense_side(uint32_t agents) {
    uint32_t n = (uint32_t)ceil(sqrt((double)agents));
    return n > 0 ? n : 1;
}

static void dense_goal(const scenario *sc, uint32_t agents, uint64_t seed,
                       uint64_t key, uint32_t arrivals, float out[3]) {
    const scenario_param *cell = scenario_param_find(sc, "cell");
    double side = (double)dense_side(agents) * (cell != NULL ? cell->value : 0);
    out[0] = (float)(side * goal_draw(seed, key, arrivals, 0));
    out[1] = (float)(side * goal_draw(seed, key, arrivals, 1));
    out[2] = 0.0f;
}

/* Both scenes: one ORCA group whose only behaviour is arrive, agents keyed
 * 1..N at their start points with their first goal as target. */
static throng_status orca_build(const scenario *sc, uint32_t agents,
                                int threads, uint64_t seed,
                                throng_world **out_world) {
    if (out_world == NULL)
        return THRONG_ERR_NULL;
    *out_world = NULL;
    param_reader reader = { sc, false, false };
    throng_agent_def agent = scene_agent(&reader);
    float radius = (float)param_get(&reader, "neighbour_radius");
    throng_group_def group = throng_group_def_default();
    group.name = "walkers";
    group.avoidance.mode = THRONG_AVOIDANCE_ORCA;
    group.avoidance.range = 0.0f;
    group.avoidance.max_neighbours = param_count(&reader, "max_neighbours");
    group.avoidance.time_horizon = (float)param_get(&reader, "time_horizon");
    group.avoidance.responsibility =
        (float)param_get(&reader, "responsibility");
    group.avoidance.keep_right = (float)param_get(&reader, "keep_right");
    group.avoidance.nudge = (float)param_get(&reader, "nudge");
    group.avoidance.contact_iterations =
        param_count(&reader, "contact_iterations");
    group.avoidance.contact_velocity =
        param_switch(&reader, "contact_velocity");
    throng_behaviour arrive = throng_behaviour_default(THRONG_BEHAVIOUR_ARRIVE);
    arrive.speed_factor = (float)param_get(&reader, "speed_factor");
    arrive.u.seek.ramp = THRONG_ARRIVE_LINEAR;
    arrive.u.seek.braking_distance =
        (float)param_get(&reader, "braking_distance");
    bool dense = sc->redraw_goals;
    double cell = dense ? param_get(&reader, "cell") : 0.0;
    double jitter = dense ? param_get(&reader, "jitter") : 0.0;
    const uint32_t ticks = param_count(&reader, "ticks");
    const float skin = (float)param_get(&reader, "skin");
    if (!dense)
        (void)param_get(&reader, "circle_radius");
    if (reader.bad)
        return THRONG_ERR_INVALID_ARG;
    if (reader.missing || sc->goal == NULL)
        return THRONG_ERR_NOT_FOUND;
    if (agents > THRONG_MAX_AGENTS)
        return THRONG_ERR_CAPACITY;
    if (ticks < 1u || ticks > 10u)
        return THRONG_ERR_INVALID_ARG;

    throng_world *world = NULL;
    throng_status st =
        unbounded_world_create(2, radius, agents, threads, seed, &world);
    if (st != THRONG_OK)
        return st;
    st = throng_world_set_step_limits(world, (float)((double)sc->dt / ticks),
                                      10u);
    if (st == THRONG_OK)
        st = throng_world_set_neighbour_skin(world, skin);
    if (st == THRONG_OK)
        st = throng_group_create(world, &group, &agent.group);
    scene_add(world, agent.group, &arrive, &st);
    uint32_t side = dense_side(agents);
    scenario_rng rng = { seed };
    for (uint32_t i = 0; i < agents && st == THRONG_OK; ++i) {
        uint64_t key = (uint64_t)i + 1;
        if (dense) {
            for (int axis = 0; axis < 2; ++axis) {
                uint32_t index = axis == 0 ? i % side : i / side;
                agent.position[axis] =
                    (float)(((double)index + 0.5) * cell +
                            jitter * (2.0 * rng_unit(&rng) - 1.0));
            }
        } else {
            circle_start(sc, agents, key, agent.position);
        }
        agent.host_key = key;
        float goal[3];
        sc->goal(sc, agents, seed, key, 0, goal);
        throng_agent handle;
        st = throng_agent_add(world, &agent, &handle);
        if (st == THRONG_OK)
            st = throng_agent_set_target_point(world, handle, goal);
    }
    if (st != THRONG_OK)
        return scene_fail(world, st);
    *out_world = world;
    return THRONG_OK;
}

/* The ORCA group of crossing2d and blocks2d, from their rows: arrive
 * gives the preferred velocity (as circle2d's), ORCA the new one, and
 * contact resolution pushes apart what the fallback let sink in. */
static throng_group_def orca_crowd_group(param_reader *reader,
                                         const char *name) {
    throng_group_def group = throng_group_def_default();
    group.name = name;
    group.avoidance.mode = THRONG_AVOIDANCE_ORCA;
    group.avoidance.range = 0.0f;
    group.avoidance.max_neighbours = param_count(reader, "max_neighbours");
    group.avoidance.time_horizon = (float)param_get(reader, "time_horizon");
    group.avoidance.obstacle_time_horizon =
        (float)param_get(reader, "obstacle_horizon");
    group.avoidance.responsibility = (float)param_get(reader, "responsibility");
    group.avoidance.keep_right = (float)param_get(reader, "keep_right");
    group.avoidance.contact_iterations =
        param_count(reader, "contact_iterations");
    group.avoidance.contact_velocity = param_switch(reader, "contact_velocity");
    return group;
}

static throng_behaviour orca_crowd_arrive(param_reader *reader) {
    throng_behaviour arrive = throng_behaviour_default(THRONG_BEHAVIOUR_ARRIVE);
    arrive.speed_factor = (float)param_get(reader, "speed_factor");
    arrive.u.seek.ramp = THRONG_ARRIVE_LINEAR;
    arrive.u.seek.braking_distance =
        (float)param_get(reader, "braking_distance");
    return arrive;
}

/* A parameter's value, 0 when the scene lacks it (the builders refuse
 * such a scene before using the value). */
static double param_or_zero(const scenario *sc, const char *name) {
    const scenario_param *p = scenario_param_find(sc, name);
    return p != NULL ? p->value : 0.0;
}

/* A uniform number in [0, 1) for the start of agent `key` (axis 0 or 1):
 * goal_draw's hash under another salt, so the start is a pure function
 * of (seed, key) as the goals are. */
static double start_draw(uint64_t seed, uint64_t key, uint32_t axis) {
    return goal_draw(seed ^ 0x7374617274ull /* "start" */, key, 0, axis);
}

/*
 * crossing2d: two crowds cross at right angles through ORCA. The squares
 * and goals of crossing2d_steer: crowd 0 (odd keys) starts in a square
 * left of the centre and walks +x to the point three edges on, crowd 1
 * (even keys) starts below and walks +y; the square's edge holds
 * `density` agents per square metre, sqrt((N / 2 + 1) / density). Where
 * crossing2d_steer draws positions uniformly (which puts bodies on each
 * other), each crowd here stands on an n x n lattice over its square,
 * n = ceil(sqrt(ceil(N / 2))), filled row by row, each agent jittered up
 * to `jitter` on each axis: at density 0.5 the lattice pitch is about
 * 1.4 m, so no two bodies (radius 0.3 m) start touching.
 *
 * Each crowd is its own group (so the renderer draws each in its own
 * colour) with the same recipe: arrive at 0.7 of the 2 m/s max speed
 * (1.4 m/s, a walking pace; the linear ramp within 1 m), ORCA over the
 * 10 nearest within 4 m (two agents closing at 2.8 m/s meet within the
 * 2 s time horizon from 5.6 m, but in a crowd the 10 nearest lie within
 * 2.5 m), and 32 passes of contact resolution: where the crowds meet
 * the front packs tighter than ORCA's constraints can all hold, and
 * four passes left pairs 4% of r_i + r_j deep at 20,000 agents, 32 none
 * deeper than 0.3% (at 20,000 and 100,000 agents over 1,500 steps);
 * after the first, a pass reads lists of near agents and costs little.
 * dt = 0.1 s: at most 0.2 m a step, two thirds of a radius.
 *
 * The claim is the crowds' flow: by twice the free walking time (the
 * 3 edges at 1.4 m/s) at least 95% of the agents have reached their goal
 * (within their radius); the on-time share is taken at that step.
 */
static const scenario_param crossing_orca_params[] = {
    { "mass", 1.0, "kg", "agent mass" },
    { "max_speed", 2.0, "m/s", "agent max speed (ORCA's speed limit)" },
    { "max_force", 100.0, "N",
      "agent max steering force: never reached, so the preferred velocity "
      "is arrive's desired velocity" },
    { "body_radius", 0.3, "m", "agent body radius; goal reached within it" },
    { "neighbour_radius", 4.0, "m",
      "world neighbour radius (grid cell); ORCA's range" },
    { "speed_factor", 0.7, "x max_speed",
      "cruising (preferred) speed: 1.4 m/s" },
    { "braking_distance", 1.0, "m", "arrive slows linearly within it" },
    { "max_neighbours", 10.0, "", "ORCA's nearest neighbours" },
    { "time_horizon", 2.0, "s", "ORCA's time horizon" },
    { "obstacle_horizon", 2.0, "s",
      "ORCA's time horizon for obstacles (the scene has none)" },
    { "responsibility", 0.5, "", "ORCA's share of each avoidance" },
    { "keep_right", 0.5, "rad",
      "turn of a forbidden preferred velocity (library default)" },
    { "contact_iterations", 32.0, "",
      "contact resolution passes after each move" },
    { "contact_velocity", 0.0, "",
      "1: contact pushes count in the velocity (position-based dynamics)" },
    { "density", 0.5, "1/m^2", "agents per square metre in each crowd" },
    { "jitter", 0.2, "m", "largest offset from a lattice point per axis" },
    { "deadline", 2.0, "x free walk",
      "the on-time share is taken at this multiple of the free walking "
      "time (3 edges at the cruising speed)" },
};

/* The crossing's claims: the crowds get through (95% on time), and no
 * pair ever sinks deeper than 1% of its mean radius. The second takes the
 * scene's 32 contact passes at scale: once the crowds are some 80 m into
 * each other the front packs tighter than ORCA's constraints can all
 * hold, and four passes left pairs 4% of r_i + r_j deep by step 1,500 at
 * 20,000 and 100,000 agents, where 32 leave none (the README has the
 * figures). */
static const scenario_range crossing_orca_ranges[] = {
    { SCENARIO_FIGURE_ON_TIME, 95.0, 100.0, 0,
      "at least 95% at their goal by twice the free walking time" },
    { SCENARIO_FIGURE_DEEP_OVERLAPS, 0.0, 0.0, 0,
      "no pair overlaps by more than 1% of its mean radius" },
};

/* The edge of each crowd's square. */
static double crossing_orca_edge(const scenario *sc, uint32_t agents) {
    double density = param_or_zero(sc, "density");
    return density > 0.0 ? sqrt(((double)agents / 2.0 + 1.0) / density) : 0.0;
}

/* crossing2d agent `key`'s start point. */
static void crossing_orca_start(const scenario *sc, uint32_t agents,
                                uint64_t seed, uint64_t key, float out[3]) {
    uint64_t i = key - 1;
    int crowd = (int)(i & 1u);
    uint64_t j = i >> 1;
    double edge = crossing_orca_edge(sc, agents);
    double jitter = param_or_zero(sc, "jitter");
    uint32_t crowd_size = (agents + 1u) / 2u;
    uint64_t side = (uint64_t)ceil(sqrt((double)crowd_size));
    side = side > 0 ? side : 1;
    double pitch = edge / (double)side;
    const uint64_t column = j % side, row = j / side;
    double along = -1.5 * edge + ((double)column + 0.5) * pitch +
                   jitter * (2.0 * start_draw(seed, key, 0) - 1.0);
    double across = -0.5 * edge + ((double)row + 0.5) * pitch +
                    jitter * (2.0 * start_draw(seed, key, 1) - 1.0);
    out[crowd] = (float)along;
    out[1 - crowd] = (float)across;
    out[2] = 0.0f;
}

static void crossing_orca_goal(const scenario *sc, uint32_t agents,
                               uint64_t seed, uint64_t key, uint32_t arrivals,
                               float out[3]) {
    (void)arrivals;
    crossing_orca_start(sc, agents, seed, key, out);
    int crowd = (int)((key - 1) & 1u);
    out[crowd] =
        (float)((double)out[crowd] + 3.0 * crossing_orca_edge(sc, agents));
}

/* Twice (`deadline`) the free walking time, in steps of the scene's dt. */
static uint64_t crossing_orca_deadline(const scenario *sc, uint32_t agents) {
    double cruise =
        param_or_zero(sc, "speed_factor") * param_or_zero(sc, "max_speed");
    if (!(cruise > 0.0) || !(sc->dt > 0.0f))
        return 0;
    double seconds = param_or_zero(sc, "deadline") * 3.0 *
                     crossing_orca_edge(sc, agents) / cruise;
    return (uint64_t)ceil(seconds / (double)sc->dt);
}

/*
 * blocks2d: the Blocks scene of reciprocal-avoidance benchmarks (the
 * RVO2 library's example, rebuilt from its published description). Four
 * groups of agents stand in the four corners on square lattices 10 m
 * apart, each agent's goal the mirror point through the origin (-start),
 * and four square obstacles sit between the corners and the centre,
 * across the straight diagonal paths. The published scene has 5 x 5
 * agents per corner, the lattice starting 55 m from each axis (so at
 * |x|, |y| in [55, 95] m), and blocks from 10 to 40 m from each axis
 * (30 m squares centred on (+-25, +-25)), with RVO2's parameters: dt
 * 0.25 s, neighbour range 15 m, the 10 nearest, time horizons 5 s for
 * agents and obstacles, radius 2 m, max speed 2 m/s, and a preferred
 * velocity of the vector to the goal cut to unit length (arrive as in
 * circle2d).
 *
 * For N agents each corner's lattice has side n = ceil(sqrt(ceil(N /
 * 4))); agent i stands in corner i mod 4 at lattice place i / 4, filled
 * row by row from the corner nearest the centre, so the world holds N
 * agents exactly. The spacing stays 10 m and every other length (the
 * lattice's offset, the blocks' near and far edges) is scaled by
 * max(n, 5) / 5: `--agents 100` is the published scene, the reference
 * size 400 (10 x 10 per corner) has 60 m blocks from 20 to 80 m and lattices from
 * 110 m, and the gaps between the blocks grow with the crowds.
 *
 * What the published scene adds beside ORCA, a small random perturbation
 * of the preferred velocity, is here the velocity stage's own 1e-4 nudge
 * wherever a constraint forbids the preferred velocity. The keep-right
 * turn is slight, 0.1 rad (RVO2 has none): the stage turns a preferred
 * velocity that any constraint forbids, a block's included, so an agent
 * sliding along a block that lies on its right is turned into the face,
 * and at the library's 0.5 rad some stop there for good (16 of 400
 * never arrive; at 0.25 rad one). With no turn at all, agents meeting
 * head-on along a face, each pressed into it by its own goal, jam there
 * now that contact resolution keeps them out of the blocks (at 100
 * agents one stands 5,876 steps). At 0.1 rad the block's hard
 * constraint leaves the agent the velocity along the face, the turn
 * parts those that meet, and every agent slides round to its goal with
 * no waypoints. Contact resolution (four passes) is on.
 */
static const scenario_param blocks_params[] = {
    { "mass", 1.0, "kg", "agent mass" },
    { "max_speed", 2.0, "m/s", "agent max speed (ORCA's speed limit)" },
    { "max_force", 100.0, "N",
      "agent max steering force: never reached, so the preferred velocity "
      "is arrive's desired velocity" },
    { "body_radius", 2.0, "m", "agent body radius; goal reached within it" },
    { "neighbour_radius", 15.0, "m",
      "world neighbour radius (grid cell); ORCA's range" },
    { "speed_factor", 0.5, "x max_speed", "cruising (preferred) speed: 1 m/s" },
    { "braking_distance", 1.0, "m",
      "arrive slows linearly within it (RVO2's unit cap)" },
    { "max_neighbours", 10.0, "", "ORCA's nearest neighbours" },
    { "time_horizon", 5.0, "s", "ORCA's time horizon" },
    { "obstacle_horizon", 5.0, "s", "ORCA's time horizon for the blocks" },
    { "responsibility", 0.5, "", "ORCA's share of each avoidance" },
    { "keep_right", 0.1, "rad", "a slight keep-right turn (see above)" },
    { "contact_iterations", 4.0, "",
      "contact resolution passes after each move" },
    { "contact_velocity", 0.0, "",
      "1: contact pushes count in the velocity (position-based dynamics)" },
    { "spacing", 10.0, "m", "lattice pitch of each corner's agents" },
    { "offset", 55.0, "m",
      "lattice's nearest row and column from the axes (x max(n, 5) / 5)" },
    { "block_near", 10.0, "m",
      "blocks' near edges from the axes (x max(n, 5) / 5)" },
    { "block_far", 40.0, "m",
      "blocks' far edges from the axes (x max(n, 5) / 5)" },
    { "deadline", 5.0, "x free walk",
      "every agent has arrived by this multiple of the farthest agent's "
      "free walking time (its straight path at the cruising speed)" },
};

/* Blocks' claims: every agent gets round the blocks to its goal (by five
 * times the farthest one's free walk; 400 agents need 3.2 times, the
 * published 100 3.8), no pair sinks deeper than 1% of its mean radius,
 * and no agent stands still for more than 150 s (600 steps; 375 at 400
 * agents, in the jam at the centre). */
static const scenario_range blocks_ranges[] = {
    { SCENARIO_FIGURE_ON_TIME, 100.0, 100.0, 0,
      "every agent at its goal by 5 x the farthest one's free walk" },
    { SCENARIO_FIGURE_DEEP_OVERLAPS, 0.0, 0.0, 0,
      "no pair overlaps by more than 1% of its mean radius" },
    { SCENARIO_FIGURE_STALL, 0.0, 600.0, 0,
      "no agent stands still away from its goal for 150 s" },
};

/* Each corner's lattice side for N agents. */
static uint32_t blocks_side(uint32_t agents) {
    uint32_t per_corner = agents / 4u + (agents % 4u != 0u);
    uint32_t n = (uint32_t)ceil(sqrt((double)per_corner));
    return n > 0 ? n : 1;
}

/* The factor on every length but the spacing. */
static double blocks_scale(uint32_t agents) {
    uint32_t n = blocks_side(agents);
    return (double)(n > 5u ? n : 5u) / 5.0;
}

/* The corners' signs, anticlockwise from (+, +). */
static const int blocks_sign[4][2] = {
    { 1, 1 }, { -1, 1 }, { -1, -1 }, { 1, -1 }
};

static void blocks_start(const scenario *sc, uint32_t agents, uint64_t key,
                         float out[3]) {
    uint64_t i = key - 1;
    uint64_t corner = i % 4u, place = i / 4u, side = blocks_side(agents);
    double offset = param_or_zero(sc, "offset") * blocks_scale(agents);
    double spacing = param_or_zero(sc, "spacing");
    const uint64_t column = place % side, row = place / side;
    out[0] =
        (float)(blocks_sign[corner][0] * (offset + spacing * (double)column));
    out[1] = (float)(blocks_sign[corner][1] * (offset + spacing * (double)row));
    out[2] = 0.0f;
}

/* `deadline` times the farthest agent's free walking time, in steps:
 * from the lattice's far corner through the origin to the opposite one
 * at the cruising speed. */
static uint64_t blocks_deadline(const scenario *sc, uint32_t agents) {
    double cruise =
        param_or_zero(sc, "speed_factor") * param_or_zero(sc, "max_speed");
    if (!(cruise > 0.0) || !(sc->dt > 0.0f))
        return 0;
    double far = param_or_zero(sc, "offset") * blocks_scale(agents) +
                 param_or_zero(sc, "spacing") * (blocks_side(agents) - 1u);
    double seconds =
        param_or_zero(sc, "deadline") * 2.0 * sqrt(2.0) * far / cruise;
    return (uint64_t)ceil(seconds / (double)sc->dt);
}

static void blocks_goal(const scenario *sc, uint32_t agents, uint64_t seed,
                        uint64_t key, uint32_t arrivals, float out[3]) {
    (void)seed;
    (void)arrivals;
    blocks_start(sc, agents, key, out);
    out[0] = -out[0];
    out[1] = -out[1];
}

/* Both scenes: one ORCA group per crowd (crossing2d) or corner
 * (blocks2d), agents keyed 1..N at their start points with their goal as
 * target; blocks2d adds its four blocks. */
static throng_status orca_crowd_build(const scenario *sc, uint32_t agents,
                                      int threads, uint64_t seed,
                                      throng_world **out_world) {
    static const char *const crowd_names[2] = { "eastbound", "northbound" };
    static const char *const corner_names[4] = { "from_ne", "from_nw",
                                                 "from_sw", "from_se" };
    if (out_world == NULL)
        return THRONG_ERR_NULL;
    *out_world = NULL;
    bool blocks = sc->goal == blocks_goal;
    uint32_t groups = blocks ? 4u : 2u;
    param_reader reader = { sc, false, false };
    throng_agent_def agent = scene_agent(&reader);
    float radius = (float)param_get(&reader, "neighbour_radius");
    throng_group_def group = orca_crowd_group(&reader, NULL);
    throng_behaviour arrive = orca_crowd_arrive(&reader);
    double near = 0.0, far = 0.0;
    if (blocks) {
        (void)param_get(&reader, "spacing");
        (void)param_get(&reader, "offset");
        (void)param_get(&reader, "deadline");
        near = param_get(&reader, "block_near") * blocks_scale(agents);
        far = param_get(&reader, "block_far") * blocks_scale(agents);
    } else {
        (void)param_get(&reader, "density");
        (void)param_get(&reader, "jitter");
        (void)param_get(&reader, "deadline");
    }
    if (reader.bad)
        return THRONG_ERR_INVALID_ARG;
    if (reader.missing || sc->goal == NULL || (blocks && !(far > near)) ||
        (!blocks && !(crossing_orca_edge(sc, agents) > 0.0)))
        return THRONG_ERR_NOT_FOUND;
    if (agents > THRONG_MAX_AGENTS)
        return THRONG_ERR_CAPACITY;

    throng_world *world = NULL;
    throng_status st =
        unbounded_world_create(2, radius, agents, threads, seed, &world);
    if (st != THRONG_OK)
        return st;
    throng_group ids[4] = { THRONG_NULL_GROUP, THRONG_NULL_GROUP,
                            THRONG_NULL_GROUP, THRONG_NULL_GROUP };
    for (uint32_t g = 0; g < groups && st == THRONG_OK; ++g) {
        group.name = blocks ? corner_names[g] : crowd_names[g];
        st = throng_group_create(world, &group, &ids[g]);
        scene_add(world, ids[g], &arrive, &st);
    }
    for (uint32_t corner = 0; blocks && corner < 4u && st == THRONG_OK;
         ++corner) {
        throng_obstacle_def box = throng_obstacle_def_default();
        box.kind = THRONG_OBJECT_BOX;
        box.radius = 0.0f;
        for (int axis = 0; axis < 2; ++axis) {
            double a = blocks_sign[corner][axis] * near;
            double b = blocks_sign[corner][axis] * far;
            box.min[axis] = (float)fmin(a, b);
            box.max[axis] = (float)fmax(a, b);
        }
        throng_object object;
        st = throng_obstacle_add(world, &box, &object);
    }
    for (uint32_t i = 0; i < agents && st == THRONG_OK; ++i) {
        uint64_t key = (uint64_t)i + 1;
        if (blocks)
            blocks_start(sc, agents, key, agent.position);
        else
            crossing_orca_start(sc, agents, seed, key, agent.position);
        agent.group = ids[i % groups];
        agent.host_key = key;
        float goal[3];
        sc->goal(sc, agents, seed, key, 0, goal);
        throng_agent handle;
        st = throng_agent_add(world, &agent, &handle);
        if (st == THRONG_OK)
            st = throng_agent_set_target_point(world, handle, goal);
    }
    if (st != THRONG_OK)
        return scene_fail(world, st);
    *out_world = world;
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* Navigation: evacuations, a bottleneck, walking at set densities          */
/* ------------------------------------------------------------------------ */

/*
 * The pedestrian preset: what the evacuation scenes, the bottleneck and
 * the walking strips share, so the figures compared with measured crowds
 * belong to one crowd. Bodies of radius 0.2 m, a free speed of 1.34 m/s
 * (Weidmann's mean free walking speed) reached at 3 m/s^2 (max force 3 N
 * on 1 kg: from rest to free speed in under half a second, as people
 * accelerate), following a navigation field through ORCA (the 10 nearest
 * within 2 m, a 1 s time horizon, 0.5 s for walls, a slight keep-right
 * turn) and contact resolution, dt 0.1 s. FOLLOW_NAV slows each walker
 * by Weidmann's fundamental diagram at the density its field counted (a
 * window of 1 m about it, counted every second): v = 1.34 (1 - exp(-1.913
 * (1 / rho - 1 / 5.4))) m/s, so a crowd walks as fast as measured crowds
 * do at its density (the walking strips measure how closely), and
 * `jam_density` 0 turns the law off (ORCA and contact alone). The
 * field's cells are `field_cell` metres and walls grow by the body
 * radius (the field's clearance), so routes keep bodies off walls.
 */
#define PEDESTRIAN_ROWS                                                        \
    { "mass", 1.0, "kg", "agent mass" },                                       \
        { "max_speed", 1.34, "m/s",                                            \
          "free walking speed (Weidmann's v0); ORCA's speed limit" },          \
        { "max_force", 3.0, "N", "3 m/s^2 at most: to free speed in 0.45 s" }, \
        { "body_radius", 0.2, "m",                                             \
          "body radius; also the field's clearance" },                         \
        { "neighbour_radius", 2.0, "m",                                        \
          "world neighbour radius (grid cell); ORCA's range" },                \
        { "max_neighbours", 10.0, "", "ORCA's nearest neighbours" },           \
        { "time_horizon", 1.0, "s", "ORCA's time horizon" },                   \
        { "obstacle_horizon", 0.5, "s", "ORCA's time horizon for walls" },     \
        { "responsibility", 0.5, "", "ORCA's share of each avoidance" },       \
        { "keep_right", 0.1, "rad",                                            \
          "turn of a forbidden preferred velocity" },                          \
        { "contact_iterations", 16.0, "",                                      \
          "contact resolution passes after each move" },                       \
        { "contact_velocity", 0.0, "",                                         \
          "1: contact pushes count in the velocity" },                         \
        { "jam_density", 5.4, "1/m^2",                                         \
          "Weidmann's jam density (0: no speed law)" },                        \
        { "speed_gamma", 1.913, "1/m^2", "Weidmann's gamma" },                 \
        { "density_interval", 10.0, "steps",                                   \
          "the field counts the crowd every this many steps (1 s)" },          \
        { "density_radius", 1.0, "m",                                          \
          "the window the density is counted in" },                            \
        { "stuck_seconds", 5.0, "s",                                           \
          "an agent standing still this long counts as stuck" },

/* The preset's agent, its group (ORCA, contact) and its FOLLOW_NAV. */
static throng_agent_def pedestrian_agent(param_reader *reader) {
    throng_agent_def agent = scene_agent(reader);
    return agent;
}

static throng_group_def pedestrian_group(param_reader *reader) {
    throng_group_def group = orca_crowd_group(reader, "pedestrians");
    group.combine = THRONG_COMBINE_WEIGHTED_SUM;
    return group;
}

static throng_behaviour pedestrian_follow(param_reader *reader,
                                          throng_object field, bool remove) {
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_NAV);
    b.u.nav.field = field;
    b.u.nav.arrival_distance = 0.0f;
    b.u.nav.remove = remove;
    b.u.nav.jam_density = (float)param_get(reader, "jam_density");
    b.u.nav.speed_gamma = (float)param_get(reader, "speed_gamma");
    (void)param_get(reader, "stuck_seconds");
    return b;
}

/* The preset's field over [x0, x1] x [y0, y1]: cells of field_cell
 * metres, clearance the body radius, the crowd counted as the preset
 * says and costing density_cost m^2 per agent. */
static throng_nav_field_def pedestrian_field(param_reader *reader, double x0,
                                             double y0, double x1, double y1,
                                             double density_cost) {
    throng_nav_field_def d = throng_nav_field_def_default();
    const double h = param_get(reader, "field_cell");
    d.cell_size = (float)h;
    d.origin[0] = (float)x0;
    d.origin[1] = (float)y0;
    d.size[0] = h > 0.0 ? (uint32_t)ceil((x1 - x0) / h) : 1u;
    d.size[1] = h > 0.0 ? (uint32_t)ceil((y1 - y0) / h) : 1u;
    d.clearance = (float)param_get(reader, "body_radius");
    d.density_interval = param_count(reader, "density_interval");
    d.density_radius = (float)param_get(reader, "density_radius");
    d.density_cost = (float)density_cost;
    return d;
}

static void scene_wall(throng_world *world, double ax, double ay, double bx,
                       double by, throng_status *st) {
    if (*st != THRONG_OK)
        return;
    throng_wall_def d = throng_wall_def_default();
    d.a[0] = (float)ax;
    d.a[1] = (float)ay;
    d.b[0] = (float)bx;
    d.b[1] = (float)by;
    throng_object o;
    *st = throng_wall_add(world, &d, &o);
}

/* A wall from (ax, y) to (bx, y) (or (x, ay) to (x, by) when vertical)
 * with a door of `width` centred at `at` along it. */
static void scene_wall_door(throng_world *world, int vertical, double fixed,
                            double from, double to, double at, double width,
                            throng_status *st) {
    const double lo = at - 0.5 * width, hi = at + 0.5 * width;
    if (vertical) {
        scene_wall(world, fixed, from, fixed, lo, st);
        scene_wall(world, fixed, hi, fixed, to, st);
    } else {
        scene_wall(world, from, fixed, lo, fixed, st);
        scene_wall(world, hi, fixed, to, fixed, st);
    }
}

static throng_nav_goal goal_box2(double x0, double y0, double x1, double y1) {
    throng_nav_goal g;
    memset(&g, 0, sizeof g);
    g.kind = THRONG_NAV_GOAL_BOX;
    g.a[0] = (float)x0;
    g.a[1] = (float)y0;
    g.b[0] = (float)x1;
    g.b[1] = (float)y1;
    return g;
}

/* Adds agent `key` at (x, y) (jittered up to `jitter` per axis), keyed. */
static void pedestrian_add(throng_world *world, throng_agent_def *agent,
                           scenario_rng *rng, uint64_t key, double x, double y,
                           double jitter, throng_status *st) {
    if (*st != THRONG_OK)
        return;
    agent->position[0] = (float)(x + jitter * (2.0 * rng_unit(rng) - 1.0));
    agent->position[1] = (float)(y + jitter * (2.0 * rng_unit(rng) - 1.0));
    agent->position[2] = 0.0f;
    agent->host_key = key;
    throng_agent handle;
    *st = throng_agent_add(world, agent, &handle);
}

/* Fills the rectangle [x0, x1] x [y0, y1] with agents from key `first`
 * on, `count` of them, on a lattice of pitch sqrt(area / count) (row by
 * row from the lower left), jittered by a tenth of the pitch. */
static void pedestrian_fill(throng_world *world, throng_agent_def *agent,
                            scenario_rng *rng, uint64_t first, uint32_t count,
                            double x0, double y0, double x1, double y1,
                            throng_status *st) {
    if (count == 0u)
        return;
    const double w = x1 - x0, h = y1 - y0;
    const double pitch = sqrt(w * h / (double)count);
    uint32_t across = (uint32_t)floor(w / pitch);
    across = across > 0u ? across : 1u;
    const uint32_t rows = (count + across - 1u) / across;
    const double dx = w / (double)across, dy = h / (double)rows;
    for (uint32_t i = 0; i < count && *st == THRONG_OK; ++i) {
        const uint32_t col = i % across, row = i / across;
        pedestrian_add(world, agent, rng, first + i,
                       x0 + ((double)col + 0.5) * dx,
                       y0 + ((double)row + 0.5) * dy, 0.1 * pitch, st);
    }
}

/*
 * evac2d: evacuating a building. Rooms of `room` metres a side, in rows
 * on both sides of corridors `corridor` metres wide, each room opening
 * onto its corridor by a door `door` wide; each corridor leaves the
 * building at both ends by an exit `exit` wide, so every exit is a
 * corridor's. Rooms hold `per_room` agents each (on a lattice 0.5 m in
 * from the walls), so N agents fill R = ceil(N / per_room) rooms; the
 * building has K = ceil(sqrt(R / 4)) corridors and m = ceil(R / 2K)
 * rooms in each row, so it grows about as wide as high: 10,000 agents
 * fill 100 rooms round 5 corridors (10 exits), 100,000 fill 1,000 rooms
 * round 16 corridors (32 exits). Every agent follows one crowd-aware
 * navigation field (the exits its goals, a cost of density_cost m^2 per
 * agent counted) and is removed on reaching an exit's goal, a box just
 * outside it.
 */
static const scenario_param evac_params[] = {
    PEDESTRIAN_ROWS{ "field_cell", 0.5, "m", "navigation field cell" },
    { "density_cost", 0.5, "m^2",
      "a cell's cost grows by this times its density (crowd-aware)" },
    { "room", 10.0, "m", "room side" },
    { "corridor", 4.0, "m", "corridor width" },
    { "door", 1.2, "m", "room door width" },
    { "exit", 2.4, "m", "exit width (each corridor's two ends)" },
    { "per_room", 100.0, "", "agents per room (1 per m^2)" },
};

/* The claims: everyone gets out, and nobody sinks deep into anyone. */
static const scenario_range evac_ranges[] = {
    { SCENARIO_FIGURE_OUT, 100.0, 100.0, 6000,
      "every agent out within 10 minutes" },
    { SCENARIO_FIGURE_OVERLAP_DEPTH, 0.0, 10.0, 0,
      "no pair sinks deeper than 10% of r_i + r_j" },
};

typedef struct evac_plan {
    double room, corridor, door, exit;
    uint32_t per_room, rooms, corridors, across;
} evac_plan;

static bool evac_plan_of(const scenario *sc, uint32_t agents, evac_plan *p) {
    p->room = param_or_zero(sc, "room");
    p->corridor = param_or_zero(sc, "corridor");
    p->door = param_or_zero(sc, "door");
    p->exit = param_or_zero(sc, "exit");
    p->per_room = (uint32_t)param_or_zero(sc, "per_room");
    if (!(p->room > 2.0 * p->door) || !(p->corridor > p->exit) ||
        !(p->exit > 0.0) || !(p->door > 0.0) || p->per_room == 0u)
        return false;
    p->rooms = (agents + p->per_room - 1u) / p->per_room;
    p->rooms = p->rooms > 0u ? p->rooms : 1u;
    p->corridors = (uint32_t)ceil(sqrt((double)p->rooms / 4.0));
    p->corridors = p->corridors > 0u ? p->corridors : 1u;
    p->across = (p->rooms + 2u * p->corridors - 1u) / (2u * p->corridors);
    return 2u * p->corridors <= SCENARIO_MAX_EXITS;
}

static uint32_t evac_exits(const scenario *sc, uint32_t agents,
                           double widths[SCENARIO_MAX_EXITS]) {
    evac_plan p;
    if (!evac_plan_of(sc, agents, &p))
        return 0u;
    for (uint32_t e = 0; e < 2u * p.corridors; ++e)
        widths[e] = p.exit;
    return 2u * p.corridors;
}

static throng_status unbounded_ped_world(param_reader *reader, uint32_t agents,
                                         int threads, uint64_t seed,
                                         throng_world **world) {
    return unbounded_world_create(2,
                                  (float)param_get(reader, "neighbour_radius"),
                                  agents, threads, seed, world);
}

static throng_status evac_build(const scenario *sc, uint32_t agents,
                                int threads, uint64_t seed,
                                throng_world **out_world) {
    if (out_world == NULL)
        return THRONG_ERR_NULL;
    *out_world = NULL;
    param_reader reader = { sc, false, false };
    throng_agent_def agent = pedestrian_agent(&reader);
    throng_group_def group = pedestrian_group(&reader);
    evac_plan p;
    const bool planned = evac_plan_of(sc, agents, &p);
    const double block = 2.0 * p.room + p.corridor;
    const double width = (double)p.across * p.room;
    const double height = (double)p.corridors * block;
    throng_nav_field_def field =
        pedestrian_field(&reader, -3.0, -0.5, width + 3.0, height + 0.5,
                         param_get(&reader, "density_cost"));
    if (reader.bad)
        return THRONG_ERR_INVALID_ARG;
    if (reader.missing || !planned)
        return THRONG_ERR_NOT_FOUND;
    throng_world *world = NULL;
    throng_status st =
        unbounded_ped_world(&reader, agents, threads, seed, &world);
    if (st != THRONG_OK)
        return st;
    /* Walls: block boundaries, then each block's rooms, corridor walls
     * with doors, and the outer walls with the corridor's exits. */
    for (uint32_t k = 0; k <= p.corridors; ++k)
        scene_wall(world, 0.0, k * block, width, k * block, &st);
    throng_nav_goal *goals = malloc(2u * p.corridors * sizeof *goals);
    if (!goals) {
        throng_world_destroy(world);
        return THRONG_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t k = 0; k < p.corridors && st == THRONG_OK; ++k) {
        const double y0 = k * block, c0 = y0 + p.room;
        const double c1 = c0 + p.corridor, top = y0 + block;
        const double mid = 0.5 * (c0 + c1);
        for (uint32_t i = 0; i < p.across; ++i) {
            const double x = i * p.room, door = x + 0.5 * p.room;
            scene_wall_door(world, 0, c0, x, x + p.room, door, p.door, &st);
            scene_wall_door(world, 0, c1, x, x + p.room, door, p.door, &st);
            if (i > 0u) {
                scene_wall(world, x, y0, x, c0, &st);
                scene_wall(world, x, c1, x, top, &st);
            }
        }
        for (int side = 0; side < 2; ++side) {
            const double x = side ? width : 0.0;
            scene_wall(world, x, y0, x, c0, &st);
            scene_wall(world, x, c1, x, top, &st);
            scene_wall_door(world, 1, x, c0, c1, mid, p.exit, &st);
            goals[2u * k + (uint32_t)side] =
                side ? goal_box2(width + 0.6, mid - 0.5 * p.exit, width + 2.5,
                                 mid + 0.5 * p.exit)
                     : goal_box2(-2.5, mid - 0.5 * p.exit, -0.6,
                                 mid + 0.5 * p.exit);
        }
    }
    throng_object nav = THRONG_NULL_OBJECT;
    field.goals = goals;
    field.goal_count = 2u * p.corridors;
    if (st == THRONG_OK)
        st = throng_nav_field_add(world, &field, &nav);
    free(goals);
    throng_group crowd = THRONG_NULL_GROUP;
    if (st == THRONG_OK)
        st = throng_group_create(world, &group, &crowd);
    throng_behaviour follow = pedestrian_follow(&reader, nav, true);
    scene_add(world, crowd, &follow, &st);
    agent.group = crowd;
    scenario_rng rng = { seed };
    /* Rooms in order: block by block, the lower row then the upper. */
    uint64_t key = 1u;
    for (uint32_t r = 0; r < p.rooms && st == THRONG_OK; ++r) {
        const uint32_t k = r / (2u * p.across), row = (r / p.across) % 2u;
        const uint32_t i = r % p.across;
        const double x0 = i * p.room,
                     y0 = k * block + (row ? p.room + p.corridor : 0.0);
        const uint32_t here = agents - (uint32_t)(key - 1u) < p.per_room
                                  ? agents - (uint32_t)(key - 1u)
                                  : p.per_room;
        pedestrian_fill(world, &agent, &rng, key, here, x0 + 0.5, y0 + 0.5,
                        x0 + p.room - 0.5, y0 + p.room - 0.5, &st);
        key += here;
    }
    if (st != THRONG_OK)
        return scene_fail(world, st);
    *out_world = world;
    return THRONG_OK;
}

/*
 * exits2d, exits2d_static: a room with two exits, one near the crowd and
 * one across the room. The room is 30 x 20 m; exit A, 1.2 m wide, opens
 * in the left wall near the bottom (y 2 to 3.2 m), exit B in the right
 * wall near the top (y 16.8 to 18 m); the crowd stands in the left half
 * (x 1 to 14 m), so A is the nearer exit for every agent. exits2d_static
 * follows the plain nearest-exit field: the whole crowd queues at A
 * while B stays idle. exits2d's field adds 1 m^2 per agent counted to a
 * cell's cost, every second: as the queue at A grows, going round to B
 * becomes quicker for those at its back, and the crowd divides between
 * the exits. The bench's per-exit counts and evacuation time show how
 * much.
 */
static const scenario_param exits_params[] = {
    PEDESTRIAN_ROWS{ "field_cell", 0.25, "m", "navigation field cell" },
    { "density_cost", 1.0, "m^2",
      "a cell's cost grows by this times its density (crowd-aware)" },
    { "exit", 1.2, "m", "exit width" },
};

static const scenario_param exits_static_params[] = {
    PEDESTRIAN_ROWS{ "field_cell", 0.25, "m", "navigation field cell" },
    { "density_cost", 0.0, "m^2", "static: the density does not route" },
    { "exit", 1.2, "m", "exit width" },
};

static const scenario_range exits_ranges[] = {
    { SCENARIO_FIGURE_OUT, 100.0, 100.0, 9000,
      "every agent out within 15 minutes" },
    { SCENARIO_FIGURE_OVERLAP_DEPTH, 0.0, 10.0, 0,
      "no pair sinks deeper than 10% of r_i + r_j" },
};

static uint32_t exits_exits(const scenario *sc, uint32_t agents,
                            double widths[SCENARIO_MAX_EXITS]) {
    (void)agents;
    widths[0] = widths[1] = param_or_zero(sc, "exit");
    return 2u;
}

static throng_status exits_build(const scenario *sc, uint32_t agents,
                                 int threads, uint64_t seed,
                                 throng_world **out_world) {
    if (out_world == NULL)
        return THRONG_ERR_NULL;
    *out_world = NULL;
    param_reader reader = { sc, false, false };
    throng_agent_def agent = pedestrian_agent(&reader);
    throng_group_def group = pedestrian_group(&reader);
    const double exit = param_get(&reader, "exit");
    throng_nav_field_def field = pedestrian_field(
        &reader, -3.0, -0.5, 33.0, 20.5, param_get(&reader, "density_cost"));
    if (reader.bad)
        return THRONG_ERR_INVALID_ARG;
    if (reader.missing || !(exit > 0.0 && exit < 2.0))
        return THRONG_ERR_NOT_FOUND;
    throng_world *world = NULL;
    throng_status st =
        unbounded_ped_world(&reader, agents, threads, seed, &world);
    if (st != THRONG_OK)
        return st;
    scene_wall(world, 0.0, 0.0, 30.0, 0.0, &st);
    scene_wall(world, 0.0, 20.0, 30.0, 20.0, &st);
    scene_wall_door(world, 1, 0.0, 0.0, 20.0, 2.0 + 0.5 * exit, exit, &st);
    scene_wall_door(world, 1, 30.0, 0.0, 20.0, 18.0 - 0.5 * exit, exit, &st);
    const throng_nav_goal goals[2] = {
        goal_box2(-2.5, 2.0, -0.6, 2.0 + exit),
        goal_box2(30.6, 18.0 - exit, 32.5, 18.0),
    };
    field.goals = goals;
    field.goal_count = 2u;
    throng_object nav = THRONG_NULL_OBJECT;
    if (st == THRONG_OK)
        st = throng_nav_field_add(world, &field, &nav);
    throng_group crowd = THRONG_NULL_GROUP;
    if (st == THRONG_OK)
        st = throng_group_create(world, &group, &crowd);
    throng_behaviour follow = pedestrian_follow(&reader, nav, true);
    scene_add(world, crowd, &follow, &st);
    agent.group = crowd;
    scenario_rng rng = { seed };
    pedestrian_fill(world, &agent, &rng, 1u, agents, 1.0, 1.0, 14.0, 19.0, &st);
    if (st != THRONG_OK)
        return scene_fail(world, st);
    *out_world = world;
    return THRONG_OK;
}

/*
 * bottleneck2d: the flow through a 1 m door. A room 8 m wide and 10 m
 * deep, its far wall (y = 10 m) pierced by a door `door` wide in the
 * middle; the agents stand packed in the room (x 0.5 to 7.5 m, y 1 to
 * 9.5 m) and leave through the door to a goal box 1 m beyond it. The
 * flow is counted as they reach the goal, between the 10th and the 90th
 * percentile of passages (the steady middle of the run), and divided by
 * the door's width: the specific flow that laboratory bottleneck
 * experiments report.
 */
static const scenario_param bottleneck_params[] = {
    PEDESTRIAN_ROWS{ "field_cell", 0.25, "m", "navigation field cell" },
    { "density_cost", 0.0, "m^2", "one exit: nothing to choose" },
    { "door", 1.0, "m", "door width" },
};

static const scenario_range bottleneck_ranges[] = {
    { SCENARIO_FIGURE_OUT, 100.0, 100.0, 3000,
      "every agent through within 5 minutes" },
};

static uint32_t bottleneck_exits(const scenario *sc, uint32_t agents,
                                 double widths[SCENARIO_MAX_EXITS]) {
    (void)agents;
    widths[0] = param_or_zero(sc, "door");
    return 1u;
}

static throng_status bottleneck_build(const scenario *sc, uint32_t agents,
                                      int threads, uint64_t seed,
                                      throng_world **out_world) {
    if (out_world == NULL)
        return THRONG_ERR_NULL;
    *out_world = NULL;
    param_reader reader = { sc, false, false };
    throng_agent_def agent = pedestrian_agent(&reader);
    throng_group_def group = pedestrian_group(&reader);
    const double door = param_get(&reader, "door");
    throng_nav_field_def field = pedestrian_field(
        &reader, -0.5, -0.5, 8.5, 12.5, param_get(&reader, "density_cost"));
    if (reader.bad)
        return THRONG_ERR_INVALID_ARG;
    if (reader.missing || !(door > 0.0 && door < 6.0))
        return THRONG_ERR_NOT_FOUND;
    throng_world *world = NULL;
    throng_status st =
        unbounded_ped_world(&reader, agents, threads, seed, &world);
    if (st != THRONG_OK)
        return st;
    scene_wall(world, 0.0, 0.0, 8.0, 0.0, &st);
    scene_wall(world, 0.0, 0.0, 0.0, 10.0, &st);
    scene_wall(world, 8.0, 0.0, 8.0, 10.0, &st);
    scene_wall_door(world, 0, 10.0, 0.0, 8.0, 4.0, door, &st);
    const throng_nav_goal goal = goal_box2(2.0, 11.0, 6.0, 12.0);
    field.goals = &goal;
    field.goal_count = 1u;
    throng_object nav = THRONG_NULL_OBJECT;
    if (st == THRONG_OK)
        st = throng_nav_field_add(world, &field, &nav);
    throng_group crowd = THRONG_NULL_GROUP;
    if (st == THRONG_OK)
        st = throng_group_create(world, &group, &crowd);
    throng_behaviour follow = pedestrian_follow(&reader, nav, true);
    scene_add(world, crowd, &follow, &st);
    agent.group = crowd;
    scenario_rng rng = { seed };
    pedestrian_fill(world, &agent, &rng, 1u, agents, 0.5, 1.0, 7.5, 9.5, &st);
    if (st != THRONG_OK)
        return scene_fail(world, st);
    *out_world = world;
    return THRONG_OK;
}

/*
 * walk2d, walk2d_orca: walking at a set density, for the speed-density
 * relation (the fundamental diagram). A periodic strip `length` x
 * `width` metres, the agents on a jittered lattice over all of it, so
 * --agents sets the density (200 agents: 1 per m^2); every agent follows
 * a field whose goal lies beyond the strip's end (x = length + 1.5 m, out
 * of the periodic box, so nobody arrives and everyone walks along +x
 * round and round). The bench watches the mean velocity along +x over
 * the counted steps, after a warm-up long enough to settle. walk2d is the
 * pedestrian preset; walk2d_orca drops its speed law (jam_density 0), so
 * ORCA and contact alone set the speed.
 *
 * The field's grid reaches 2 m past the strip's end (its goal must lie in
 * the grid); the world being periodic, the field counts every agent at
 * its images there too, so the density the speed law reads is the
 * strip's all along it, ends included. (Counted without the images, the
 * window past the end read too few, the agents there sped up and jammed
 * into the strip's other end: at 3 agents/m^2 the middle thinned to 2.5.)
 */
#define WALK_ROWS                                           \
    { "field_cell", 0.25, "m", "navigation field cell" },   \
        { "length", 20.0, "m", "strip length (periodic)" }, \
        { "width", 10.0, "m", "strip width (periodic)" },

static const scenario_param walk_params[] = { PEDESTRIAN_ROWS WALK_ROWS };

static const scenario_param walk_orca_params[] = {
    { "mass", 1.0, "kg", "agent mass" },
    { "max_speed", 1.34, "m/s", "free walking speed (Weidmann's v0)" },
    { "max_force", 3.0, "N", "3 m/s^2 at most" },
    { "body_radius", 0.2, "m", "body radius" },
    { "neighbour_radius", 2.0, "m", "grid cell; ORCA's range" },
    { "max_neighbours", 10.0, "", "ORCA's nearest neighbours" },
    { "time_horizon", 1.0, "s", "ORCA's time horizon" },
    { "obstacle_horizon", 0.5, "s", "ORCA's time horizon for walls" },
    { "responsibility", 0.5, "", "ORCA's share of each avoidance" },
    { "keep_right", 0.1, "rad", "turn of a forbidden preferred velocity" },
    { "contact_iterations", 16.0, "", "contact resolution passes" },
    { "contact_velocity", 0.0, "", "1: contact pushes count in velocity" },
    { "jam_density", 0.0, "1/m^2", "no speed law: ORCA and contact alone" },
    { "speed_gamma", 1.913, "1/m^2", "Weidmann's gamma (unused)" },
    { "density_interval", 10.0, "steps", "the field counts the crowd" },
    { "density_radius", 1.0, "m", "the window the density is counted in" },
    { "stuck_seconds", 5.0, "s", "an agent standing still this long" },
    WALK_ROWS
};

static throng_status walk_build(const scenario *sc, uint32_t agents,
                                int threads, uint64_t seed,
                                throng_world **out_world) {
    if (out_world == NULL)
        return THRONG_ERR_NULL;
    *out_world = NULL;
    param_reader reader = { sc, false, false };
    throng_agent_def agent = pedestrian_agent(&reader);
    throng_group_def group = pedestrian_group(&reader);
    const double length = param_get(&reader, "length");
    const double width = param_get(&reader, "width");
    const float radius = (float)param_get(&reader, "neighbour_radius");
    throng_nav_field_def field =
        pedestrian_field(&reader, 0.0, 0.0, length + 2.0, width, 0.0);
    if (reader.bad)
        return THRONG_ERR_INVALID_ARG;
    if (reader.missing || !(length > 3.0 * (double)radius) ||
        !(width > 3.0 * (double)radius))
        return THRONG_ERR_NOT_FOUND;
    throng_world_def def = scenario_world_def();
    def.dimensions = 2;
    def.boundary = THRONG_BOUNDARY_PERIODIC;
    def.box_size[0] = (float)length;
    def.box_size[1] = (float)width;
    def.neighbour_radius = radius;
    def.threads = threads;
    def.seed = seed;
    def.initial_capacity = agents;
    throng_world *world = NULL;
    throng_status st = throng_world_create(&def, &world);
    if (st != THRONG_OK)
        return st;
    throng_nav_goal goal;
    memset(&goal, 0, sizeof goal);
    goal.kind = THRONG_NAV_GOAL_SEGMENT;
    goal.a[0] = goal.b[0] = (float)(length + 1.5);
    goal.b[1] = (float)width;
    field.goals = &goal;
    field.goal_count = 1u;
    throng_object nav = THRONG_NULL_OBJECT;
    st = throng_nav_field_add(world, &field, &nav);
    throng_group crowd = THRONG_NULL_GROUP;
    if (st == THRONG_OK)
        st = throng_group_create(world, &group, &crowd);
    throng_behaviour follow = pedestrian_follow(&reader, nav, false);
    scene_add(world, crowd, &follow, &st);
    agent.group = crowd;
    scenario_rng rng = { seed };
    /* Inset half a pitch from the box's edges by the lattice itself;
     * positions stay inside [0, length) x [0, width). */
    pedestrian_fill(world, &agent, &rng, 1u, agents, 0.0, 0.0, length, width,
                    &st);
    if (st != THRONG_OK)
        return scene_fail(world, st);
    *out_world = world;
    return THRONG_OK;
}

throng_status scenario_between_steps(const scenario *sc, throng_world *world,
                                     uint32_t agents, uint64_t seed,
                                     uint32_t *arrivals) {
    if (sc == NULL || !sc->redraw_goals || sc->goal == NULL)
        return THRONG_OK;
    const scenario_param *body = scenario_param_find(sc, "body_radius");
    if (body == NULL)
        return THRONG_ERR_NOT_FOUND;
    double reach = (double)(float)body->value;
    throng_columns c;
    throng_status st = throng_world_columns(world, &c);
    for (uint32_t row = 0; row < c.count && st == THRONG_OK; ++row) {
        uint64_t key = c.host_key[row];
        if (key == 0 || key > agents)
            continue;
        float goal[3];
        sc->goal(sc, agents, seed, key, arrivals[key - 1], goal);
        double dx = (double)c.px[row] - (double)goal[0];
        double dy = (double)c.py[row] - (double)goal[1];
        if (dx * dx + dy * dy > reach * reach)
            continue;
        ++arrivals[key - 1];
        sc->goal(sc, agents, seed, key, arrivals[key - 1], goal);
        throng_agent handle;
        st = throng_agent_find(world, key, &handle);
        if (st == THRONG_OK)
            st = throng_agent_set_target_point(world, handle, goal);
    }
    return st;
}

/* ------------------------------------------------------------------------ */
/* The table                                                                */
/* ------------------------------------------------------------------------ */

enum {
    SCENARIO_FLOCK2D,
    SCENARIO_FLOCK3D,
    SCENARIO_WANDER2D,
    SCENARIO_WANDER3D,
    SCENARIO_CLUSTER2D,
    SCENARIO_CROSSING2D_STEER,
    SCENARIO_PURSUIT2D,
    SCENARIO_PATH2D,
    SCENARIO_OBSTACLES2D,
    SCENARIO_LEADER2D,
    SCENARIO_EVERY2D,
    SCENARIO_EVERY3D,
    SCENARIO_KNOT2D,
    SCENARIO_KNOT2D_CAP,
    SCENARIO_FLOCK2D_SEED000,
    SCENARIO_BLOB2D,
    SCENARIO_BLOB2D_CAP,
    SCENARIO_CIRCLE2D,
    SCENARIO_ORCA_DENSE2D,
    SCENARIO_CROSSING2D,
    SCENARIO_BLOCKS2D,
    SCENARIO_EVAC2D,
    SCENARIO_EXITS2D,
    SCENARIO_EXITS2D_STATIC,
    SCENARIO_BOTTLENECK2D,
    SCENARIO_WALK2D,
    SCENARIO_WALK2D_ORCA,
    SCENARIO_COUNT
};

/* The entry points with the public signature: each passes its own row. */
#define SCENE_ENTRY(fn, index, builder)                                  \
    static throng_status fn(uint32_t agents, int threads, uint64_t seed, \
                            throng_world **out_world);
SCENE_ENTRY(crossing2d_steer_build, SCENARIO_CROSSING2D_STEER, crossing_build)
SCENE_ENTRY(pursuit2d_build, SCENARIO_PURSUIT2D, pursuit_build)
SCENE_ENTRY(path2d_build, SCENARIO_PATH2D, path_build)
SCENE_ENTRY(obstacles2d_build, SCENARIO_OBSTACLES2D, obstacles_build)
SCENE_ENTRY(leader2d_build, SCENARIO_LEADER2D, leader_build)
SCENE_ENTRY(every2d_build, SCENARIO_EVERY2D, every_build)
SCENE_ENTRY(every3d_build, SCENARIO_EVERY3D, every_build)
SCENE_ENTRY(knot2d_build, SCENARIO_KNOT2D, flock_build)
SCENE_ENTRY(knot2d_cap_build, SCENARIO_KNOT2D_CAP, flock_build)
SCENE_ENTRY(flock2d_seed000_build, SCENARIO_FLOCK2D_SEED000, flock_build)
SCENE_ENTRY(blob2d_build, SCENARIO_BLOB2D, flock_build)
SCENE_ENTRY(blob2d_cap_build, SCENARIO_BLOB2D_CAP, flock_build)
SCENE_ENTRY(circle2d_build, SCENARIO_CIRCLE2D, orca_build)
SCENE_ENTRY(orca_dense2d_build, SCENARIO_ORCA_DENSE2D, orca_build)
SCENE_ENTRY(crossing2d_build, SCENARIO_CROSSING2D, orca_crowd_build)
SCENE_ENTRY(blocks2d_build, SCENARIO_BLOCKS2D, orca_crowd_build)
SCENE_ENTRY(evac2d_build, SCENARIO_EVAC2D, evac_build)
SCENE_ENTRY(exits2d_build, SCENARIO_EXITS2D, exits_build)
SCENE_ENTRY(exits2d_static_build, SCENARIO_EXITS2D_STATIC, exits_build)
SCENE_ENTRY(bottleneck2d_build, SCENARIO_BOTTLENECK2D, bottleneck_build)
SCENE_ENTRY(walk2d_build, SCENARIO_WALK2D, walk_build)
SCENE_ENTRY(walk2d_orca_build, SCENARIO_WALK2D_ORCA, walk_build)
#undef SCENE_ENTRY

static throng_status flock2d_build(uint32_t agents, int threads, uint64_t seed,
                                   throng_world **out_world);
static throng_status flock3d_build(uint32_t agents, int threads, uint64_t seed,
                                   throng_world **out_world);

static throng_status wander2d_build(uint32_t agents, int threads, uint64_t seed,
                                    throng_world **out_world);
static throng_status wander3d_build(uint32_t agents, int threads, uint64_t seed,
                                    throng_world **out_world);
static throng_status cluster2d_build(uint32_t agents, int threads,
                                     uint64_t seed, throng_world **out_world);

static const scenario scenario_table[SCENARIO_COUNT] = {
    [SCENARIO_FLOCK2D] =
        {
            .name = "flock2d",
            .description = "a moving flock in a periodic 2D box: cruise and "
                           "alignment, ~30 neighbours at the start",
            .dimensions = 2,
            .dt = 1.0f / 30.0f,
            .params = flock_params,
            .param_count = COUNT_OF(flock_params),
            .build = flock2d_build,
            .ranges = flock_ranges,
            .range_count = COUNT_OF(flock_ranges),
        },
    [SCENARIO_FLOCK3D] =
        {
            .name = "flock3d",
            .description = "a moving flock in a periodic 3D box: cruise and "
                           "alignment, ~30 neighbours at the start",
            .dimensions = 3,
            .dt = 1.0f / 30.0f,
            .params = flock_params,
            .param_count = COUNT_OF(flock_params),
            .build = flock3d_build,
            .ranges = flock_ranges,
            .range_count = COUNT_OF(flock_ranges),
        },
    [SCENARIO_WANDER2D] =
        {
            .name = "wander2d",
            .description = "seed 000's 2D flock plus random wander: the "
                           "determinism scene",
            .dimensions = 2,
            .dt = 1.0f / 30.0f,
            .params = wander_params,
            .param_count = COUNT_OF(wander_params),
            .build = wander2d_build,
        },
    [SCENARIO_WANDER3D] =
        {
            .name = "wander3d",
            .description = "seed 000's 3D flock plus random wander: the "
                           "determinism scene",
            .dimensions = 3,
            .dt = 1.0f / 30.0f,
            .params = wander_params,
            .param_count = COUNT_OF(wander_params),
            .build = wander3d_build,
        },
    [SCENARIO_CLUSTER2D] =
        {
            .name = "cluster2d",
            .description = "flock2d_seed000's rules and box, 90% of the "
                           "agents starting in a disc of 5% of the area",
            .dimensions = 2,
            .dt = 1.0f / 30.0f,
            .params = cluster_params,
            .param_count = COUNT_OF(cluster_params),
            .build = cluster2d_build,
        },
    [SCENARIO_CROSSING2D_STEER] =
        {
            .name = "crossing2d_steer",
            .description = "two crowds cross at right angles by steering: arrive, separation, unaligned collision avoidance",
            .dimensions = 2,
            .dt = 1.0f / 30.0f,
            .params = crossing_params,
            .param_count = COUNT_OF(crossing_params),
            .build = crossing2d_steer_build,
            .ranges = crossing_ranges,
            .range_count = COUNT_OF(crossing_ranges),
        },
    [SCENARIO_PURSUIT2D] =
        {
            .name = "pursuit2d",
            .description = "pursuer/evader pairs in a periodic box; evaders wander",
            .dimensions = 2,
            .dt = 1.0f / 30.0f,
            .params = pursuit_params,
            .param_count = COUNT_OF(pursuit_params),
            .build = pursuit2d_build,
            .ranges = pursuit_ranges,
            .range_count = COUNT_OF(pursuit_ranges),
        },
    [SCENARIO_PATH2D] =
        {
            .name = "path2d",
            .description = "a crowd following a ring path with separation",
            .dimensions = 2,
            .dt = 1.0f / 30.0f,
            .params = path_params,
            .param_count = COUNT_OF(path_params),
            .build = path2d_build,
            .ranges = path_ranges,
            .range_count = COUNT_OF(path_ranges),
        },
    [SCENARIO_OBSTACLES2D] =
        {
            .name = "obstacles2d",
            .description = "wanderers avoiding a field of circular obstacles (one per 10 agents)",
            .dimensions = 2,
            .dt = 1.0f / 30.0f,
            .params = obstacle_params,
            .param_count = COUNT_OF(obstacle_params),
            .build = obstacles2d_build,
            .ranges = obstacle_ranges,
            .range_count = COUNT_OF(obstacle_ranges),
        },
    [SCENARIO_LEADER2D] =
        {
            .name = "leader2d",
            .description = "leaders wander, 99 followers each follow and separate",
            .dimensions = 2,
            .dt = 1.0f / 30.0f,
            .params = leader_params,
            .param_count = COUNT_OF(leader_params),
            .build = leader2d_build,
            .ranges = leader_ranges,
            .range_count = COUNT_OF(leader_ranges),
        },
    [SCENARIO_EVERY2D] =
        {
            .name = "every2d",
            .description = "every behaviour and combine mode at once (determinism scene)",
            .dimensions = 2,
            .dt = 1.0f / 30.0f,
            .params = every_params,
            .param_count = COUNT_OF(every_params),
            .build = every2d_build,
        },
    [SCENARIO_EVERY3D] =
        {
            .name = "every3d",
            .description = "every behaviour and combine mode at once, 3D",
            .dimensions = 3,
            .dt = 1.0f / 30.0f,
            .params = every_params,
            .param_count = COUNT_OF(every_params),
            .build = every3d_build,
        },
    [SCENARIO_KNOT2D] =
        {
            .name = "knot2d",
            .description = "flock2d_seed000's rules, every agent starting "
                           "in one grid cell (the degenerate crowd)",
            .dimensions = 2,
            .dt = 1.0f / 30.0f,
            .params = knot_params,
            .param_count = COUNT_OF(knot_params),
            .build = knot2d_build,
        },
    [SCENARIO_KNOT2D_CAP] =
        {
            .name = "knot2d_cap",
            .description = "knot2d with the rules capped at the 16 nearest "
                           "neighbours",
            .dimensions = 2,
            .dt = 1.0f / 30.0f,
            .params = knot_cap_params,
            .param_count = COUNT_OF(knot_cap_params),
            .build = knot2d_cap_build,
        },
    [SCENARIO_FLOCK2D_SEED000] =
        {
            .name = "flock2d_seed000",
            .description = "seed 000's boids in flock2d's box: slows to a "
                           "crawl, does not flock (the golden scene)",
            .dimensions = 2,
            .dt = 1.0f / 30.0f,
            .params = flock_seed000_params,
            .param_count = COUNT_OF(flock_seed000_params),
            .build = flock2d_seed000_build,
        },
    [SCENARIO_BLOB2D] =
        {
            .name = "blob2d",
            .description = "flock2d_seed000's rules and box, 90% of the "
                           "agents in a Gaussian blob of sigma 3 R",
            .dimensions = 2,
            .dt = 1.0f / 30.0f,
            .params = blob_params,
            .param_count = COUNT_OF(blob_params),
            .build = blob2d_build,
        },
    [SCENARIO_BLOB2D_CAP] =
        {
            .name = "blob2d_cap",
            .description = "blob2d with the rules capped at the 16 nearest "
                           "neighbours",
            .dimensions = 2,
            .dt = 1.0f / 30.0f,
            .params = blob_cap_params,
            .param_count = COUNT_OF(blob_cap_params),
            .build = blob2d_cap_build,
        },
    [SCENARIO_CIRCLE2D] =
        {
            .name = "circle2d",
            .description = "RVO2's Circle: agents on a circle walk to the "
                           "antipodes through ORCA, dt 0.25 s",
            .dimensions = 2,
            .dt = 0.25f,
            .params = circle_params,
            .param_count = COUNT_OF(circle_params),
            .build = circle2d_build,
            .ranges = circle_ranges,
            .range_count = COUNT_OF(circle_ranges),
            .goal = circle_goal,
        },
    [SCENARIO_ORCA_DENSE2D] =
        {
            .name = "orca_dense2d",
            .description = "one agent per 5 m cell walking to random goals, "
                           "redrawn on arrival, through ORCA",
            .dimensions = 2,
            .dt = 0.25f,
            .params = dense_params,
            .param_count = COUNT_OF(dense_params),
            .build = orca_dense2d_build,
            .ranges = dense_ranges,
            .range_count = COUNT_OF(dense_ranges),
            .goal = dense_goal,
            .redraw_goals = true,
        },
    [SCENARIO_CROSSING2D] =
        {
            .name = "crossing2d",
            .description = "two crowds cross at right angles through ORCA "
                           "and contact resolution, dt 0.1 s",
            .dimensions = 2,
            .dt = 0.1f,
            .params = crossing_orca_params,
            .param_count = COUNT_OF(crossing_orca_params),
            .build = crossing2d_build,
            .ranges = crossing_orca_ranges,
            .range_count = COUNT_OF(crossing_orca_ranges),
            .goal = crossing_orca_goal,
            .deadline = crossing_orca_deadline,
        },
    [SCENARIO_BLOCKS2D] =
        {
            .name = "blocks2d",
            .description = "RVO2's Blocks: four corners swap places past "
                           "four square blocks through ORCA, dt 0.25 s",
            .dimensions = 2,
            .dt = 0.25f,
            .params = blocks_params,
            .param_count = COUNT_OF(blocks_params),
            .build = blocks2d_build,
            .ranges = blocks_ranges,
            .range_count = COUNT_OF(blocks_ranges),
            .goal = blocks_goal,
            .deadline = blocks_deadline,
        },
    [SCENARIO_EVAC2D] =
        {
            .name = "evac2d",
            .description = "a building of rooms and corridors evacuated "
                           "through its exits on a crowd-aware field",
            .dimensions = 2,
            .dt = 0.1f,
            .params = evac_params,
            .param_count = COUNT_OF(evac_params),
            .build = evac2d_build,
            .ranges = evac_ranges,
            .range_count = COUNT_OF(evac_ranges),
            .exits = evac_exits,
        },
    [SCENARIO_EXITS2D] =
        {
            .name = "exits2d",
            .description = "a room with a near and a far exit, on a "
                           "crowd-aware field",
            .dimensions = 2,
            .dt = 0.1f,
            .params = exits_params,
            .param_count = COUNT_OF(exits_params),
            .build = exits2d_build,
            .ranges = exits_ranges,
            .range_count = COUNT_OF(exits_ranges),
            .exits = exits_exits,
        },
    [SCENARIO_EXITS2D_STATIC] =
        {
            .name = "exits2d_static",
            .description = "exits2d on the static nearest-exit field",
            .dimensions = 2,
            .dt = 0.1f,
            .params = exits_static_params,
            .param_count = COUNT_OF(exits_static_params),
            .build = exits2d_static_build,
            .ranges = exits_ranges,
            .range_count = COUNT_OF(exits_ranges),
            .exits = exits_exits,
        },
    [SCENARIO_BOTTLENECK2D] =
        {
            .name = "bottleneck2d",
            .description = "a packed room leaves through a 1 m door: the "
                           "specific flow",
            .dimensions = 2,
            .dt = 0.1f,
            .params = bottleneck_params,
            .param_count = COUNT_OF(bottleneck_params),
            .build = bottleneck2d_build,
            .ranges = bottleneck_ranges,
            .range_count = COUNT_OF(bottleneck_ranges),
            .exits = bottleneck_exits,
        },
    [SCENARIO_WALK2D] =
        {
            .name = "walk2d",
            .description = "pedestrians walk a periodic strip at the "
                           "density --agents sets: the speed",
            .dimensions = 2,
            .dt = 0.1f,
            .params = walk_params,
            .param_count = COUNT_OF(walk_params),
            .build = walk2d_build,
            .walk = true,
        },
    [SCENARIO_WALK2D_ORCA] =
        {
            .name = "walk2d_orca",
            .description = "walk2d without the speed law (ORCA and "
                           "contact alone)",
            .dimensions = 2,
            .dt = 0.1f,
            .params = walk_orca_params,
            .param_count = COUNT_OF(walk_orca_params),
            .build = walk2d_orca_build,
            .walk = true,
        },
};

#define SCENE_ENTRY(fn, index, builder)                                  \
    static throng_status fn(uint32_t agents, int threads, uint64_t seed, \
                            throng_world **out_world) {                  \
        return builder(&scenario_table[index], agents, threads, seed,    \
                       out_world);                                       \
    }
SCENE_ENTRY(crossing2d_steer_build, SCENARIO_CROSSING2D_STEER, crossing_build)
SCENE_ENTRY(pursuit2d_build, SCENARIO_PURSUIT2D, pursuit_build)
SCENE_ENTRY(path2d_build, SCENARIO_PATH2D, path_build)
SCENE_ENTRY(obstacles2d_build, SCENARIO_OBSTACLES2D, obstacles_build)
SCENE_ENTRY(leader2d_build, SCENARIO_LEADER2D, leader_build)
SCENE_ENTRY(every2d_build, SCENARIO_EVERY2D, every_build)
SCENE_ENTRY(every3d_build, SCENARIO_EVERY3D, every_build)
SCENE_ENTRY(knot2d_build, SCENARIO_KNOT2D, flock_build)
SCENE_ENTRY(knot2d_cap_build, SCENARIO_KNOT2D_CAP, flock_build)
SCENE_ENTRY(flock2d_seed000_build, SCENARIO_FLOCK2D_SEED000, flock_build)
SCENE_ENTRY(blob2d_build, SCENARIO_BLOB2D, flock_build)
SCENE_ENTRY(blob2d_cap_build, SCENARIO_BLOB2D_CAP, flock_build)
SCENE_ENTRY(circle2d_build, SCENARIO_CIRCLE2D, orca_build)
SCENE_ENTRY(orca_dense2d_build, SCENARIO_ORCA_DENSE2D, orca_build)
SCENE_ENTRY(crossing2d_build, SCENARIO_CROSSING2D, orca_crowd_build)
SCENE_ENTRY(blocks2d_build, SCENARIO_BLOCKS2D, orca_crowd_build)
SCENE_ENTRY(evac2d_build, SCENARIO_EVAC2D, evac_build)
SCENE_ENTRY(exits2d_build, SCENARIO_EXITS2D, exits_build)
SCENE_ENTRY(exits2d_static_build, SCENARIO_EXITS2D_STATIC, exits_build)
SCENE_ENTRY(bottleneck2d_build, SCENARIO_BOTTLENECK2D, bottleneck_build)
SCENE_ENTRY(walk2d_build, SCENARIO_WALK2D, walk_build)
SCENE_ENTRY(walk2d_orca_build, SCENARIO_WALK2D_ORCA, walk_build)
#undef SCENE_ENTRY

static throng_status wander2d_build(uint32_t agents, int threads, uint64_t seed,
                                    throng_world **out_world) {
    return flock_build(&scenario_table[SCENARIO_WANDER2D], agents, threads,
                       seed, out_world);
}

static throng_status wander3d_build(uint32_t agents, int threads, uint64_t seed,
                                    throng_world **out_world) {
    return flock_build(&scenario_table[SCENARIO_WANDER3D], agents, threads,
                       seed, out_world);
}

static throng_status cluster2d_build(uint32_t agents, int threads,
                                     uint64_t seed, throng_world **out_world) {
    return flock_build(&scenario_table[SCENARIO_CLUSTER2D], agents, threads,
                       seed, out_world);
}

static throng_status flock2d_build(uint32_t agents, int threads, uint64_t seed,
                                   throng_world **out_world) {
    return flock_build(&scenario_table[SCENARIO_FLOCK2D], agents, threads, seed,
                       out_world);
}

static throng_status flock3d_build(uint32_t agents, int threads, uint64_t seed,
                                   throng_world **out_world) {
    return flock_build(&scenario_table[SCENARIO_FLOCK3D], agents, threads, seed,
                       out_world);
}

/* ------------------------------------------------------------------------ */
/* Lookup                                                                   */
/* ------------------------------------------------------------------------ */

size_t scenario_count(void) {
    return COUNT_OF(scenario_table);
}

const scenario *scenario_at(size_t index) {
    return index < COUNT_OF(scenario_table) ? &scenario_table[index] : NULL;
}

const scenario *scenario_find(const char *name) {
    if (name == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < COUNT_OF(scenario_table); ++i) {
        if (strcmp(scenario_table[i].name, name) == 0) {
            return &scenario_table[i];
        }
    }
    return NULL;
}

/* The values scenario_set_param() set (read-only once scenes are built,
 * so threads may read them). */
static scenario_param set_params[SCENARIO_MAX_SET];
static size_t set_count;

bool scenario_set_param(const char *name, double value) {
    for (size_t i = 0; i < set_count; ++i) {
        if (strcmp(set_params[i].name, name) == 0) {
            set_params[i].value = value;
            return true;
        }
    }
    if (set_count == SCENARIO_MAX_SET) {
        return false;
    }
    set_params[set_count++] =
        (scenario_param){ name, value, "", "set on the command line" };
    return true;
}

void scenario_clear_set(void) {
    set_count = 0;
}

const scenario_param *scenario_set_at(size_t i) {
    return i < set_count ? &set_params[i] : NULL;
}

const scenario_param *scenario_param_find(const scenario *sc,
                                          const char *name) {
    if (sc == NULL || name == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < sc->param_count; ++i) {
        if (strcmp(sc->params[i].name, name) == 0) {
            for (size_t k = 0; k < set_count; ++k) {
                if (strcmp(set_params[k].name, name) == 0) {
                    return &set_params[k];
                }
            }
            return &sc->params[i];
        }
    }
    return NULL;
}

double scenario_box_edge(const scenario *sc, uint32_t agents) {
    const scenario_param *radius_param =
        scenario_param_find(sc, "neighbour_radius");
    const scenario_param *neighbours_param =
        scenario_param_find(sc, "neighbours");
    if (radius_param == NULL || neighbours_param == NULL ||
        !(radius_param->value > 0.0) || !(neighbours_param->value > 0.0)) {
        return 0.0;
    }
    double radius = radius_param->value;
    double agents_per_neighbour = (double)agents / neighbours_param->value;
    double edge;
    if (sc->dimensions == 2) {
        edge = sqrt(agents_per_neighbour * SCENARIO_PI * radius * radius);
    } else {
        edge = detmath_cbrt(agents_per_neighbour * (4.0 / 3.0) * SCENARIO_PI *
                            radius * radius * radius);
    }
    return fmax(edge, SCENARIO_MIN_BOX_RADII * radius);
}
