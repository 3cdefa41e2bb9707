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

/* crossing2d counts an agent as arrived within this many metres of its
 * target point. */
#define QUALITY_TARGET_REACH 1.0

/* Which figures suit a scenario. */
enum {
    QUALITY_FLOCK = 1u << 0,  /* mean speed, polarisation, nearest neighbour */
    QUALITY_CROWD = 1u << 1,  /* overlaps, minimum separation */
    QUALITY_TARGET = 1u << 2, /* share of agents at their target point */
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
} quality;

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
