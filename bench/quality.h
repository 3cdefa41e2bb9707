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
    float *row_radius; /* by row, for the grid */
    overlap_grid grid;
    quality figures; /* the QUALITY_MOTION fields */
} quality_motion;

/* Starts watching a freshly built world of scene `sc` (m's memory is
 * reused). THRONG_ERR_OUT_OF_MEMORY, or the status of a refused call
 * (an agent without its key). */
throng_status quality_motion_start(quality_motion *m, const throng_world *world,
                                   uint32_t agents);

/* Watches the state after step `step` (1 for the first): arrivals, the
 * all-arrived step and stalls always, overlaps when `counted`. arrivals
 * is scenario_between_steps's array, or NULL for scenes whose goals stay
 * put. */
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
