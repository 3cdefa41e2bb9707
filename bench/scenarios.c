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
 * Nothing here prints or exits: this file is linked into the bench, the
 * tests and the examples.
 */
#include "scenarios.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

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

static uint64_t rng_next(scenario_rng *rng) {
    uint64_t z = (rng->state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1), 53 random bits. */
static double rng_unit(scenario_rng *rng) {
    return (double)(rng_next(rng) >> 11) * 0x1.0p-53;
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
        out[0] = cos(angle);
        out[1] = sin(angle);
        out[2] = 0.0;
    } else {
        double z = 2.0 * rng_unit(rng) - 1.0;
        double azimuth = 2.0 * SCENARIO_PI * rng_unit(rng);
        double ring = sqrt(fmax(0.0, 1.0 - z * z));
        out[0] = ring * cos(azimuth);
        out[1] = ring * sin(azimuth);
        out[2] = z;
    }
}

/* ------------------------------------------------------------------------ */
/* Parameters                                                               */
/* ------------------------------------------------------------------------ */

/* Reads parameters by name and remembers whether any was missing, so a
 * builder reads all it needs and checks once. */
typedef struct param_reader {
    const scenario *sc;
    bool missing;
} param_reader;

static double param_get(param_reader *reader, const char *name) {
    const scenario_param *param = scenario_param_find(reader->sc, name);
    if (param == NULL) {
        reader->missing = true;
        return 0.0;
    }
    return param->value;
}

/* ------------------------------------------------------------------------ */
/* Flocks                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * flock2d, flock3d: Reynolds' boids in a periodic box at a fixed density.
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
 */
/* The rows every flock scenario shares. */
#define FLOCK_PARAM_ROWS \
    {"neighbour_radius", 1.0, "m", \
    "world neighbour radius R; also the grid cell edge"}, \
    {"neighbours", 30.0, "", \
    "mean agents within R of an agent; sets the periodic box edge"}, \
    {"speed_min", 0.5, "x max_speed", "initial speed, lower bound"}, \
    {"speed_max", 1.0, "x max_speed", "initial speed, upper bound"}, \
    {"mass", 1.0, "kg", "agent mass"}, \
    {"max_speed", 1.0, "m/s", "agent max speed"}, \
    {"max_force", 2.0, "N", "agent max steering force"}, \
    {"body_radius", 0.25, "m", "agent body radius"}, \
    {"separation_radius", 0.5, "m", "separation neighbourhood"}, \
    {"separation_weight", 1.5, "", "separation weight (flee average)"}, \
    {"alignment_radius", 1.0, "m", "alignment neighbourhood"}, \
    {"alignment_weight", 1.0, "", "alignment weight"}, \
    {"cohesion_radius", 1.0, "m", "cohesion neighbourhood"}, \
    {"cohesion_weight", 1.0, "", "cohesion weight"}, \
    {"field_of_view", 2.0 * SCENARIO_PI, "rad", \
    "full view-cone angle around the heading (2 pi = all around)"}, \
    {"combine", (double)THRONG_COMBINE_WEIGHTED_AVERAGE, "", \
    "0 = weighted average of the rule forces, 1 = weighted sum"},

static const scenario_param flock_params[] = {FLOCK_PARAM_ROWS};

/*
 * wander2d, wander3d: the flock above plus seed 000's wander (weight 0.5,
 * max turn rate 0.1 pi and max change 0.02 pi radians per step), so every
 * step draws from the counter-based generator: the scene the determinism
 * contract is checked on.
 */
static const scenario_param wander_params[] = {
    FLOCK_PARAM_ROWS
    {"wander_weight", 0.5, "", "wander weight (seed 000 turn-rate form)"},
    {"wander_turn_rate", 0.1 * SCENARIO_PI, "rad/step", "max turn rate"},
    {"wander_turn_change", 0.02 * SCENARIO_PI, "rad/step",
     "max change of the turn rate per step"},
};

/* Creates the periodic world every density-driven scenario starts from. */
static throng_status periodic_world_create(int dimensions, float box_edge,
                                           float neighbour_radius,
                                           uint32_t capacity, int threads,
                                           uint64_t seed,
                                           throng_world **out_world) {
    throng_world_def def = throng_world_def_default();
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

static throng_status flock_build(const scenario *sc, uint32_t agents,
                                 int threads, uint64_t seed,
                                 throng_world **out_world) {
    if (out_world == NULL) {
        return THRONG_ERR_NULL;
    }
    *out_world = NULL;

    param_reader reader = {sc, false};
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
    group.combine = (throng_combine_mode)(int)param_get(&reader, "combine");
    if (scenario_param_find(sc, "wander_weight") != NULL) {
        group.wander.weight = (float)param_get(&reader, "wander_weight");
        group.wander.max_turn_rate =
            (float)param_get(&reader, "wander_turn_rate");
        group.wander.max_turn_change =
            (float)param_get(&reader, "wander_turn_change");
    }

    double box_edge = scenario_box_edge(sc, agents);
    if (reader.missing || box_edge <= 0.0) {
        return THRONG_ERR_NOT_FOUND;
    }
    if (agents > THRONG_MAX_AGENTS) {
        return THRONG_ERR_CAPACITY;
    }

    float box = (float)box_edge;
    throng_world *world = NULL;
    throng_status status =
        periodic_world_create(sc->dimensions, box, neighbour_radius, agents,
                              threads, seed, &world);
    if (status != THRONG_OK) {
        return status;
    }

    status = throng_group_create(world, &group, &agent.group);
    if (status != THRONG_OK) {
        throng_world_destroy(world);
        return status;
    }

    scenario_rng rng = {seed};
    for (uint32_t i = 0; i < agents; ++i) {
        agent.position[0] = rng_coordinate(&rng, box);
        agent.position[1] = rng_coordinate(&rng, box);
        agent.position[2] =
            sc->dimensions == 3 ? rng_coordinate(&rng, box) : 0.0f;

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
/* The table                                                                */
/* ------------------------------------------------------------------------ */

enum {
    SCENARIO_FLOCK2D,
    SCENARIO_FLOCK3D,
    SCENARIO_WANDER2D,
    SCENARIO_WANDER3D,
    SCENARIO_COUNT
};

static throng_status flock2d_build(uint32_t agents, int threads,
                                   uint64_t seed, throng_world **out_world);
static throng_status flock3d_build(uint32_t agents, int threads,
                                   uint64_t seed, throng_world **out_world);

static throng_status wander2d_build(uint32_t agents, int threads,
                                    uint64_t seed, throng_world **out_world);
static throng_status wander3d_build(uint32_t agents, int threads,
                                    uint64_t seed, throng_world **out_world);

static const scenario scenario_table[SCENARIO_COUNT] = {
    [SCENARIO_FLOCK2D] =
        {
            .name = "flock2d",
            .description = "boids in a periodic 2D box, uniform random "
                           "start, ~30 neighbours per agent",
            .dimensions = 2,
            .dt = 1.0f / 30.0f,
            .params = flock_params,
            .param_count = COUNT_OF(flock_params),
            .build = flock2d_build,
        },
    [SCENARIO_FLOCK3D] =
        {
            .name = "flock3d",
            .description = "boids in a periodic 3D box, uniform random "
                           "start, ~30 neighbours per agent",
            .dimensions = 3,
            .dt = 1.0f / 30.0f,
            .params = flock_params,
            .param_count = COUNT_OF(flock_params),
            .build = flock3d_build,
        },
    [SCENARIO_WANDER2D] =
        {
            .name = "wander2d",
            .description = "flock2d plus random wander (seed 000): the "
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
            .description = "flock3d plus random wander (seed 000): the "
                           "determinism scene",
            .dimensions = 3,
            .dt = 1.0f / 30.0f,
            .params = wander_params,
            .param_count = COUNT_OF(wander_params),
            .build = wander3d_build,
        },
};

static throng_status wander2d_build(uint32_t agents, int threads,
                                    uint64_t seed, throng_world **out_world) {
    return flock_build(&scenario_table[SCENARIO_WANDER2D], agents, threads,
                       seed, out_world);
}

static throng_status wander3d_build(uint32_t agents, int threads,
                                    uint64_t seed, throng_world **out_world) {
    return flock_build(&scenario_table[SCENARIO_WANDER3D], agents, threads,
                       seed, out_world);
}

static throng_status flock2d_build(uint32_t agents, int threads,
                                   uint64_t seed, throng_world **out_world) {
    return flock_build(&scenario_table[SCENARIO_FLOCK2D], agents, threads,
                       seed, out_world);
}

static throng_status flock3d_build(uint32_t agents, int threads,
                                   uint64_t seed, throng_world **out_world) {
    return flock_build(&scenario_table[SCENARIO_FLOCK3D], agents, threads,
                       seed, out_world);
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

const scenario_param *scenario_param_find(const scenario *sc,
                                          const char *name) {
    if (sc == NULL || name == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < sc->param_count; ++i) {
        if (strcmp(sc->params[i].name, name) == 0) {
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
        edge = cbrt(agents_per_neighbour * (4.0 / 3.0) * SCENARIO_PI * radius *
                    radius * radius);
    }
    return fmax(edge, SCENARIO_MIN_BOX_RADII * radius);
}
