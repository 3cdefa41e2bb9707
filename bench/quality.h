/* SPDX-License-Identifier: MIT */
/*
 * Quality figures of a benchmark run's final state, so a kernel that got
 * faster by getting wrong shows up beside its time.
 *
 * Everything is read through the public API (columns, agent getters,
 * radius queries), after the timed steps, once per configuration. The
 * cost is a few calls per agent plus at most QUALITY_SAMPLE radius
 * queries: small next to a few hundred steps.
 */
#ifndef THRONG_BENCH_QUALITY_H
#define THRONG_BENCH_QUALITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scenarios.h"
#include "throng.h"

/* Agents whose neighbourhood is searched: enough for a mean to settle to
 * a few per cent, few enough that the search stays cheap at any size. */
#define QUALITY_SAMPLE 2000u

/* crossing2d_steer counts an agent as arrived within this many metres of its
 * target point. */
#define QUALITY_TARGET_REACH 1.0

/* Which figures suit a scenario. */
enum {
    QUALITY_FLOCK = 1u << 0,  /* mean speed, polarisation, nearest neighbour */
    QUALITY_CROWD = 1u << 1,  /* overlaps, minimum separation */
    QUALITY_TARGET = 1u << 2, /* share of agents at their target point */
    QUALITY_MOTION = 1u << 3, /* overlaps, arrivals and stalls, every step */
    QUALITY_EVAC = 1u << 4,   /* agents out, exit flows, stuck agents */
    QUALITY_WALK = 1u << 5,   /* mean walking speed over the counted steps */
};

/* The figures that suit `sc` (a mask of the flags above; 0 for scenes
 * that are neither flocks nor crowds, such as every2d). */
unsigned quality_kind(const scenario *sc);

/* Each agent's handle and velocity before the last step, in row order,
 * so the velocity change of the last step can be measured after it
 * reordered the rows. */
typedef struct quality_snapshot {
    uint32_t count;
    throng_agent *agents;
    float *velocity; /* 3 per agent, z = 0 in 2D */
} quality_snapshot;

/* Takes the snapshot (reusing its memory); false when out of memory or a
 * call was refused, leaving it empty. */
bool quality_snapshot_take(const throng_world *world, quality_snapshot *snap);
void quality_snapshot_free(quality_snapshot *snap);

typedef struct quality {
    unsigned kind;      /* which of the figures below were measured */
    uint64_t nan_count; /* agents with a non-finite position or velocity */
    /* Largest |v| / max_speed over all agents (1 is the limit). */
    double max_speed_ratio;
    /* Largest m |v_after - v_before| / dt / max_force over the last step;
     * NaN without a snapshot. Velocity truncation can only shrink the
     * change, so 1 is the limit. */
    double max_force_ratio;
    /* QUALITY_FLOCK */
    double mean_speed;   /* m/s */
    double polarisation; /* |mean unit heading|, 0 (disorder) to 1 */
    double nearest_mean; /* m, mean over the sample */
    /* QUALITY_CROWD */
    uint64_t overlap_pairs; /* distinct pairs closer than r_i + r_j with
                               * at least one end in the sample */
    double overlap_share;   /* sampled agents overlapping another body */
    double min_separation;  /* m, smallest centre distance in the sample */
    /* QUALITY_TARGET */
    double at_target_share; /* agents within QUALITY_TARGET_REACH */
    uint32_t sample;        /* agents whose neighbourhood was searched */
    /* QUALITY_MOTION (quality_motion, below), the last repeat's */
    uint64_t motion_steps;     /* steps watched, warm-up included */
    uint64_t overlap_sum;      /* overlapping pairs, summed over the
                                * counted steps */
    uint64_t deep_overlap_sum; /* of those, deeper than
                                * QUALITY_DEEP_OVERLAP of the mean radius */
    double deepest_overlap;    /* largest (r_i + r_j - d) / (r_i + r_j) over
                                * the counted steps; 0 without overlaps */
    double closest_approach;   /* m, smallest centre distance of a pair
                                * within 2 r_max over the counted steps;
                                * +inf when no pair came that close */
    uint64_t arrivals;         /* goals reached, every step watched */
    int64_t all_arrived_step;  /* first step after which every agent was
                                * at its goal at once; -1 never */
    uint32_t longest_stall;    /* most consecutive steps an agent moved
                                * slower than QUALITY_STILL x max speed
                                * while away from its goal */
    int64_t deadline_step;     /* the scene's deadline (scenario.deadline);
                                * -1 for a scene without one */
    double on_time_share;      /* agents that had reached their goal by
                                * the deadline; NaN until the run reaches
                                * it (or all arrive before it) */
    /* QUALITY_EVAC (evacuation scenes, scenario.exits): */
    double out_share;         /* agents that left by an exit / agents */
    int64_t evacuated_step;   /* first step after which nobody was left;
                                * -1 never */
    double evacuated_seconds; /* that step times the scene's dt */
    uint32_t exit_count;
    uint32_t exit_out[SCENARIO_MAX_EXITS]; /* agents out by each exit */
    /* Each exit's flow, agents per second: its passages between the 10th
     * and the 90th percentile over the time between them (all of them
     * over the exit's time in use below 10); NaN for an exit nobody
     * used. */
    double exit_rate[SCENARIO_MAX_EXITS];
    double exit_width[SCENARIO_MAX_EXITS]; /* metres */
    double mean_exit_rate; /* over the exits used, agents per second */
    double specific_flow;  /* mean of rate / width over the exits used,
                            * agents per second per metre */
    uint32_t stuck_max;    /* most agents at once that had stood still
                            * (QUALITY_STILL) for stuck_seconds */
    /* QUALITY_WALK (walking scenes, scenario.walk): */
    double walk_speed; /* mean velocity along +x, over agents and counted
                        * steps, m/s; NaN before any */
} quality;

/* A pair overlaps "deeply" when it sinks further into each other than
 * this share of the mean of the two radii: the depth the project holds
 * to be invisible (1%). */
#define QUALITY_DEEP_OVERLAP 0.01

/* An agent stands still below this share of its max speed (1%). */
#define QUALITY_STILL 0.01

/* Overlaps among n bodies in one state: pairs closer than r_i + r_j,
 * found through a hashed grid of cell 2 r_max (each body meets only the
 * 3 x 3 cells around its own, so the cost is O(n) for bodies that do not
 * pile up), not every pair. z may be NULL (2D). */
typedef struct overlap_count {
    uint64_t pairs; /* d < r_i + r_j */
    uint64_t deep;  /* r_i + r_j - d > QUALITY_DEEP_OVERLAP (r_i + r_j) / 2 */
    double deepest; /* largest (r_i + r_j - d) / (r_i + r_j); 0 for none */
    double closest; /* smallest d of a pair closer than 2 r_max; +inf */
} overlap_count;

/* The grid's memory, reused from call to call. */
typedef struct overlap_grid {
    uint32_t capacity; /* bodies the arrays hold */
    uint32_t *cell;    /* each body's bucket */
    uint32_t *start;   /* bucket b's bodies: order[start[b] .. start[b+1]) */
    uint32_t *order;
} overlap_grid;

/* False when memory ran out. */
bool overlap_grid_count(overlap_grid *grid, uint32_t n, const float *x,
                        const float *y, const float *z, const float *radius,
                        overlap_count *out);
void overlap_grid_free(overlap_grid *grid);

/* The motion tracker of a goal scene (scenario.goal set): watches every
 * step from outside the timed interval. The scene keys its agents 1..N;
 * the tracker reads each one's radius and max speed once, and after each
 * step its row's position and velocity. */
typedef struct quality_motion {
    uint32_t agents;
    float *radius;     /* by key - 1 */
    float *max_speed;  /* by key - 1 */
    uint32_t *still;   /* steps standing still so far, by key - 1 */
    uint32_t *reached; /* 1 + the arrivals count of the goal last reached,
                         * 0 for none, by key - 1 */
    /* Each agent's goal, drawn once per arrivals count (a scene's goal
     * function looks its parameters up by name on every call, which cost
     * the bench more than the step it watches in the ORCA scenes). */
    float *goal;        /* 3 per agent, by key - 1 */
    uint32_t *goal_for; /* 1 + the arrivals count goal holds, 0 for none */
    float *row_radius;  /* by row, for the grid */
    overlap_grid grid;
    quality figures; /* the QUALITY_MOTION fields */
    /* Evacuation and walking scenes, set up by the first observation: */
    int scene_ready;
    double dt;                             /* the scene's step, seconds */
    uint32_t stuck_steps;                  /* stuck_seconds in steps */
    throng_nav_arrival *arrival_buffer;    /* the last step's arrivals */
    uint32_t *passage_exit, *passage_step; /* every passage, in order */
    uint32_t passages;
    double walk_sum; /* sum of the counted steps' mean velocity along +x */
    uint64_t walk_steps;
} quality_motion;

/* Starts watching a freshly built world of scene `sc` (m's memory is
 * reused). THRONG_ERR_OUT_OF_MEMORY, or the status of a refused call
 * (an agent without its key). */
throng_status quality_motion_start(quality_motion *m, const throng_world *world,
                                   uint32_t agents);

/* Watches the state after step `step` (1 for the first): arrivals, the
 * all-arrived step and stalls always, overlaps when `counted`. arrivals
 * is scenario_between_steps's array, or NULL for scenes whose goals stay
 * put. An evacuation scene (scenario.exits) has no goal points: its
 * agents leave the world by the exits, which the library's arrival list
 * names (throng_world_nav_arrivals); the all-arrived step is the step
 * after which nobody is left. A walking scene (scenario.walk) adds the
 * mean velocity along +x of each counted step. */
throng_status quality_motion_observe(quality_motion *m,
                                     const throng_world *world,
                                     const scenario *sc, uint64_t seed,
                                     const uint32_t *arrivals, uint64_t step,
                                     bool counted);

void quality_motion_free(quality_motion *m);

/* Copies the tracker's figures into q and marks it QUALITY_MOTION. */
void quality_motion_report(const quality_motion *m, quality *q);

/* How far past 1 the limits |v| / max speed and the last step's force /
 * max force may read: the figures are computed in double from float
 * columns, so a velocity truncated to exactly max speed reads up to a few
 * float roundings over (1.0000006 is seen). */
#define QUALITY_LIMIT_SLACK 1e-5

/* The figure a pass range names, as measured in q; NaN when q lacks it. */
double quality_figure(const quality *q, scenario_figure figure);

/* The figure's column heading in the bench's table ("speed", "pol"). */
const char *quality_figure_name(scenario_figure figure);

/* Judges q, the state after `steps` steps of a world built by `sc`,
 * against what every world must hold (no non-finite agent, v/vmax and
 * F/Fmax at most 1 + QUALITY_LIMIT_SLACK) and against the scene's own
 * ranges whose from_step is at most `steps`. Writes "ok", or "OUT: "
 * and the headings of the figures outside ("OUT: pol,speed"), into
 * flag (truncated to size). Returns the number of figures outside. */
unsigned quality_judge(const quality *q, const scenario *sc, uint64_t steps,
                       char *flag, size_t size);

/* Measures `world`, built by `sc` with `agents` agents and last stepped
 * by sc->dt; `before` may be NULL. Returns THRONG_OK, or the status of a
 * refused call (out is then incomplete). */
throng_status quality_measure(throng_world *world, const scenario *sc,
                              uint32_t agents, const quality_snapshot *before,
                              quality *out);

#endif /* THRONG_BENCH_QUALITY_H */
