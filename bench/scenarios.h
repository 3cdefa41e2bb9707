/* SPDX-License-Identifier: MIT */
/*
 * The named scenarios: scenes that the benchmark times, the tests check and
 * the examples show, so all three talk about the same crowd.
 *
 * A scenario is a row in a constant table: a name, a one-line description,
 * the step length it is meant to run at, its documented parameters and a
 * function that builds a fresh world for a given agent count, thread count
 * and seed. Building is deterministic: the same (agents, seed) give the same
 * world, whatever the thread count, because every random choice comes from
 * a small local generator seeded from `seed`.
 *
 * This header depends only on the public API (throng.h); the builders
 * add the library's header-only deterministic maths (src/detmath.h), so a
 * scene starts from the same bits on every machine. Nothing here prints,
 * exits or keeps mutable global state, so it can be linked into any program.
 * It reads one environment variable, THRONG_SIMD (below), for the programs
 * that share it.
 */
#ifndef THRONG_BENCH_SCENARIOS_H
#define THRONG_BENCH_SCENARIOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "throng.h"

/* One documented parameter of a scenario. The builder reads its numbers from
 * this same list, so what --list prints is what the scenario does. */
typedef struct scenario_param {
    const char *name;    /* identifier, e.g. "separation_weight" */
    double value;        /* the value the scenario uses */
    const char *unit;    /* "m", "m/s", "N", "kg", "rad", or "" */
    const char *meaning; /* one line */
} scenario_param;

/* The environment variable through which the bench, the tests and the
 * tools pick the kernel path of the worlds they build: a name as
 * throng_simd_name spells it ("scalar", "sse2", "avx2", "avx512", "neon",
 * "auto"). The library reads no environment; this file is the one place
 * that reads this variable and turns it into throng_world_def.simd. */
#define SCENARIO_SIMD_ENV "THRONG_SIMD"

/* The path THRONG_SIMD asks for in *out: THRONG_SIMD_AUTO when it is unset
 * or empty. THRONG_ERR_NOT_FOUND, with AUTO in *out, when it names no
 * path; *name (may be NULL) receives the variable's text, or NULL. */
throng_status scenario_simd_from_env(throng_simd *out, const char **name);

/* throng_world_def_default() with simd from THRONG_SIMD; every builder
 * starts from it. A name that is no path leaves simd outside the enum, so
 * the world is refused with THRONG_ERR_OUT_OF_RANGE instead of quietly
 * running another path; a path this CPU lacks is refused with
 * THRONG_ERR_UNSUPPORTED. */
throng_world_def scenario_world_def(void);

/* Builds the scenario's world with `agents` agents, stepping on `threads`
 * threads (0 = OpenMP default) and seeded with `seed` (placement and the
 * world's own random numbers). On success *out_world owns the new world and
 * the caller destroys it. On failure *out_world is NULL, the partial world
 * has been destroyed and the library's status is returned. */
typedef throng_status (*scenario_build_fn)(uint32_t agents, int threads,
                                           uint64_t seed,
                                           throng_world **out_world);

/* The quality figures a pass range can hold (bench/quality.h measures
 * them; the table's column headings in brackets). */
typedef enum scenario_figure {
    SCENARIO_FIGURE_SPEED,        /* mean |v|, m/s ("speed") */
    SCENARIO_FIGURE_POLARISATION, /* |mean unit heading|, 0 to 1 ("pol") */
    SCENARIO_FIGURE_OVERLAP,      /* share of agents overlapping, % ("ovl%") */
    SCENARIO_FIGURE_SEPARATION,   /* smallest centre distance, m ("sep m") */
    SCENARIO_FIGURE_AT_TARGET,    /* share at their target, % ("goal%") */
    /* The motion figures (QUALITY_MOTION), over every step watched: */
    SCENARIO_FIGURE_DEEP_OVERLAPS, /* pairs overlapping by more than 1% of
                                    * their mean radius, summed ("deep") */
    SCENARIO_FIGURE_OVERLAP_DEPTH, /* deepest overlap, % of r_i + r_j
                                    * ("depth%") */
    SCENARIO_FIGURE_STALL,         /* most steps an agent stood still away from
                            * its goal ("stall") */
    SCENARIO_FIGURE_ON_TIME,       /* share of the agents that had reached
                                    * their goal by the scene's deadline, %
                                    * ("ontime%"); judged only once the run
                                    * reaches the deadline or every agent
                                    * has arrived */
    /* Evacuation scenes (scenario.exits), every step: */
    SCENARIO_FIGURE_OUT,           /* share of the agents out, % ("out%") */
    SCENARIO_FIGURE_STUCK,         /* most agents at once that had stood
                                    * still for stuck_seconds ("stuck") */
    SCENARIO_FIGURE_SPECIFIC_FLOW, /* agents per second per metre of door,
                                    * the exits' mean ("J/m") */
    /* Walking scenes (scenario.walk), over the counted steps: */
    SCENARIO_FIGURE_WALK, /* mean velocity along +x, m/s ("walk") */
} scenario_figure;

/* A documented pass range of one quality figure: the scene claims that
 * after `from_step` steps (warm-up and counted steps of one repeat) the
 * figure lies in [min, max]. A run with fewer steps does not judge it.
 * Every scene also holds the ranges every world must: no non-finite
 * position or velocity, |v| <= max speed and the last step's force <=
 * max force (to float rounding); the bench checks those itself. */
typedef struct scenario_range {
    scenario_figure figure;
    double min;
    double max;
    uint32_t from_step;
    const char *why; /* one line: what the range shows */
} scenario_range;

typedef struct scenario scenario;

/* The most exits of an evacuation scene. */
#define SCENARIO_MAX_EXITS 64u

/* An evacuation scene's exits for `agents` agents: the goals of the
 * navigation field its agents leave the world by (removed on arriving,
 * throng_world_nav_arrivals naming the goal), in the field's goal order;
 * each door's width in metres into widths, and the count (at most
 * SCENARIO_MAX_EXITS). */
typedef uint32_t (*scenario_exits_fn)(const scenario *sc, uint32_t agents,
                                      double widths[SCENARIO_MAX_EXITS]);

/* The step by which a goal scene's agents should have arrived, for
 * `agents` agents (crossing2d: twice the free walking time); the
 * on-time share (SCENARIO_FIGURE_ON_TIME) is taken after it. */
typedef uint64_t (*scenario_deadline_fn)(const scenario *sc, uint32_t agents);

/* Scenes whose agents walk to goals (circle2d, orca_dense2d, crossing2d,
 * blocks2d) give agent i
 * the host key i + 1 and say where its goal is: the goal of the agent
 * with host key `key` once it has reached `arrivals` goals, for a world
 * built with (agents, seed). A pure function, so the bench, the tests and
 * the host-side updates agree on every goal without asking the world. */
typedef void (*scenario_goal_fn)(const scenario *sc, uint32_t agents,
                                 uint64_t seed, uint64_t key, uint32_t arrivals,
                                 float out[3]);

struct scenario {
    const char *name;        /* short identifier, e.g. "flock2d" */
    const char *description; /* one line */
    int dimensions;          /* 2 or 3 */
    float dt;                /* step length in seconds the scene is tuned for */
    const scenario_param *params;
    size_t param_count;
    scenario_build_fn build;
    /* The scene's own pass ranges; none when range_count is 0. */
    const scenario_range *ranges;
    size_t range_count;
    /* Goal scenes only (NULL otherwise): each agent's goal, and the
     * distance within which it has reached it (its body radius). */
    scenario_goal_fn goal;
    /* Goal scenes whose goals move on: scenario_between_steps gives an
     * agent that reached its goal the next one. */
    bool redraw_goals;
    /* Goal scenes that claim an on-time share (NULL otherwise). */
    scenario_deadline_fn deadline;
    /* Evacuation scenes (NULL otherwise): the exits agents leave by. The
     * scene keys its agents 1..N and names `stuck_seconds` among its
     * parameters. */
    scenario_exits_fn exits;
    /* Walking scenes: agents walk along +x, their mean speed watched. */
    bool walk;
};

/* The host's work between two steps of a goal scene that redraws its
 * goals: every agent within its radius of its goal counts an arrival in
 * arrivals[key - 1] (one entry per agent, zeroed before the first step,
 * owned by the caller) and gets the next goal as its target point. It
 * reads the world's columns, so it runs outside any timed step; the
 * goals come from a counter-based draw keyed by (seed, agent, arrivals),
 * so the scene is the same on any thread count. THRONG_OK at once for
 * other scenes. */
throng_status scenario_between_steps(const scenario *sc, throng_world *world,
                                     uint32_t agents, uint64_t seed,
                                     uint32_t *arrivals);

/* Number of scenarios in the table. */
size_t scenario_count(void);

/* The scenario at table position index (0 .. count-1); NULL past the end. */
const scenario *scenario_at(size_t index);

/* The scenario with this exact name; NULL when there is none (or name is
 * NULL). */
const scenario *scenario_find(const char *name);

/* The parameter of that name; NULL when the scenario has none of that name.
 * A value set with scenario_set_param() stands in for the scenario's own. */
const scenario_param *scenario_param_find(const scenario *sc, const char *name);

/* The most parameters scenario_set_param() holds. */
#define SCENARIO_MAX_SET 16u

/* Every scene with a parameter of this name reads `value` for it from now
 * on, in place of its own (the bench's --set: a scene's recipe changed
 * without a rebuild; its pass ranges are claims about its own values).
 * Setting a name again replaces its value. The program sets these before
 * it builds any scene; `name` must outlive them. Returns false when
 * SCENARIO_MAX_SET other names are set already. */
bool scenario_set_param(const char *name, double value);

/* Forgets every value scenario_set_param() set. */
void scenario_clear_set(void);

/* The values set, in the order first set: entry i (NULL past the end). */
const scenario_param *scenario_set_at(size_t i);

/* The periodic box edge (metres) a density-driven scenario uses for `agents`
 * agents: the edge at which each agent has on average `neighbours` others
 * within `neighbour_radius` (both read from the scenario's parameters),
 * clamped to at least 3 neighbour radii so the box spans three grid cells.
 * 0 when the scenario has no such parameters. */
double scenario_box_edge(const scenario *sc, uint32_t agents);

#endif /* THRONG_BENCH_SCENARIOS_H */
