/* SPDX-License-Identifier: MIT */
/*
 * Quality figures of a final state, through the public API only.
 *
 * Limits are checked on every agent: a handle per row, its definition
 * (limits and velocity) and, with a snapshot taken before the last step,
 * the velocity it had then. Neighbourhood figures use a strided sample of
 * rows: rows are kept in grid-cell order, so every k-th row spreads the
 * sample over the whole crowd, and the same rows are chosen on every run.
 *
 * A periodic scenario's box is scenario_box_edge() (0 for the unbounded
 * scenes); distances use the nearest periodic image, as the library's own
 * radius query does.
 *
 * The goal scenes (circle2d, orca_dense2d, crossing2d, blocks2d) are
 * also watched every step by
 * a motion tracker: overlaps through a hashed grid over the columns
 * (every pair, not a sample, so it needs O(N) per step, never O(N^2)),
 * arrivals, the step all had arrived and the longest stall. The bench
 * calls it between the timed steps. It assumes an unbounded world, as
 * those scenes are.
 */
#include "quality.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Handles one radius query may return; a query that finds more is
 * repeated with a smaller radius. */
#define QUERY_CAPACITY 4096u

/* Radius doublings and halvings before a nearest-neighbour search gives
 * up: from 1 m that spans 1e-12 m to 1e12 m. */
#define SEARCH_STEPS 80

unsigned quality_kind(const scenario *sc) {
    static const struct {
        const char *name;
        unsigned kind;
    } kinds[] = {
        { "flock2d", QUALITY_FLOCK },
        { "flock3d", QUALITY_FLOCK },
        { "flock2d_seed000", QUALITY_FLOCK },
        { "wander2d", QUALITY_FLOCK },
        { "wander3d", QUALITY_FLOCK },
        { "cluster2d", QUALITY_FLOCK },
        { "blob2d", QUALITY_FLOCK },
        { "blob2d_cap", QUALITY_FLOCK },
        { "crossing2d_steer", QUALITY_CROWD | QUALITY_TARGET },
        { "pursuit2d", QUALITY_CROWD },
        { "path2d", QUALITY_CROWD },
        { "obstacles2d", QUALITY_CROWD },
        { "leader2d", QUALITY_CROWD },
        { "circle2d", QUALITY_CROWD | QUALITY_MOTION },
        { "orca_dense2d", QUALITY_CROWD | QUALITY_MOTION },
        { "crossing2d", QUALITY_CROWD | QUALITY_MOTION },
        { "blocks2d", QUALITY_CROWD | QUALITY_MOTION },
        { "evac2d", QUALITY_CROWD | QUALITY_MOTION | QUALITY_EVAC },
        { "exits2d", QUALITY_CROWD | QUALITY_MOTION | QUALITY_EVAC },
        { "exits2d_static", QUALITY_CROWD | QUALITY_MOTION | QUALITY_EVAC },
        { "bottleneck2d", QUALITY_CROWD | QUALITY_MOTION | QUALITY_EVAC },
        { "walk2d", QUALITY_CROWD | QUALITY_MOTION | QUALITY_WALK },
        { "walk2d_orca", QUALITY_CROWD | QUALITY_MOTION | QUALITY_WALK },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; ++i) {
        if (strcmp(sc->name, kinds[i].name) == 0) {
            return kinds[i].kind;
        }
    }
    return 0;
}

void quality_snapshot_free(quality_snapshot *snap) {
    free(snap->agents);
    free(snap->velocity);
    memset(snap, 0, sizeof *snap);
}

bool quality_snapshot_take(const throng_world *world, quality_snapshot *snap) {
    throng_columns c;
    if (throng_world_columns(world, &c) != THRONG_OK) {
        snap->count = 0;
        return false;
    }
    if (c.count > snap->count || snap->agents == NULL) {
        quality_snapshot_free(snap);
        snap->agents = malloc((size_t)c.count * sizeof *snap->agents + 1);
        snap->velocity = malloc((size_t)c.count * 3 * sizeof(float) + 1);
        if (snap->agents == NULL || snap->velocity == NULL) {
            quality_snapshot_free(snap);
            return false;
        }
    }
    for (uint32_t i = 0; i < c.count; ++i) {
        if (throng_agent_at(world, i, &snap->agents[i]) != THRONG_OK) {
            snap->count = 0;
            return false;
        }
        snap->velocity[3 * i] = c.vx[i];
        snap->velocity[3 * i + 1] = c.vy[i];
        snap->velocity[3 * i + 2] = c.vz != NULL ? c.vz[i] : 0.0f;
    }
    snap->count = c.count;
    return true;
}

/* What the neighbourhood searches share. */
typedef struct space {
    throng_world *world;
    int dimensions;
    double box; /* periodic edge, 0 when unbounded */
    throng_agent *found;
} space;

static double separation(const space *sp, const float a[3], const float b[3]) {
    double sum = 0.0;
    for (int axis = 0; axis < sp->dimensions; ++axis) {
        double d = (double)a[axis] - (double)b[axis];
        if (sp->box > 0.0) {
            d -= sp->box * nearbyint(d / sp->box);
        }
        sum += d * d;
    }
    return sqrt(sum);
}

/* Distance from agent `self` at `p` to its nearest other agent, or NaN
 * when there is none. Searches outwards from `start` metres: a radius
 * that finds only `self` is doubled, one that finds more than the buffer
 * holds is halved, and once both bounds are known it bisects. */
static throng_status nearest_other(const space *sp, throng_agent self,
                                   const float p[3], double start,
                                   double *out) {
    double empty = 0.0; /* a radius known to hold only self */
    double full = 0.0;  /* a radius known to overflow the buffer */
    double radius = start;
    double limit = sp->box > 0.0 ? sp->box : 1e12;
    *out = (double)NAN;
    for (int step = 0; step < SEARCH_STEPS; ++step) {
        uint32_t count = 0;
        bool truncated = false;
        throng_status st =
            throng_world_query_radius(sp->world, p, (float)radius, sp->found,
                                      QUERY_CAPACITY, &count, &truncated);
        if (st != THRONG_OK) {
            return st;
        }
        if (truncated) {
            full = radius;
        } else {
            double best = (double)INFINITY;
            for (uint32_t k = 0; k < count; ++k) {
                throng_agent other = sp->found[k];
                if (other.slot == self.slot &&
                    other.generation == self.generation) {
                    continue;
                }
                float q[3];
                st = throng_agent_get_position(sp->world, other, q);
                if (st != THRONG_OK) {
                    return st;
                }
                double d = separation(sp, p, q);
                best = d < best ? d : best;
            }
            if (best < (double)INFINITY) {
                *out = best;
                return THRONG_OK;
            }
            if (radius >= limit) {
                return THRONG_OK; /* alone in the world */
            }
            empty = radius;
        }
        radius = full > 0.0 ? 0.5 * (empty + full) : 2.0 * radius;
        radius = radius < limit ? radius : limit;
    }
    return THRONG_OK;
}

/* Overlaps of sampled agent `self` (row `row`, body radius `r`) with
 * bodies up to `r_max` in radius. A pair whose other end is also sampled
 * is counted from its lower row only. */
static throng_status overlaps_of(const space *sp, throng_agent self,
                                 uint32_t row, const float p[3], float r,
                                 float r_max, uint32_t stride, uint64_t *pairs,
                                 bool *any) {
    uint32_t count = 0;
    bool truncated = false;
    throng_status st = throng_world_query_radius(
        sp->world, p, r + r_max, sp->found, QUERY_CAPACITY, &count, &truncated);
    count = count < QUERY_CAPACITY ? count : QUERY_CAPACITY;
    for (uint32_t k = 0; k < count && st == THRONG_OK; ++k) {
        throng_agent other = sp->found[k];
        if (other.slot == self.slot && other.generation == self.generation) {
            continue;
        }
        throng_agent_def def;
        uint32_t other_row = 0;
        st = throng_agent_get_def(sp->world, other, &def);
        if (st == THRONG_OK) {
            st = throng_agent_index(sp->world, other, &other_row);
        }
        if (st != THRONG_OK ||
            !(separation(sp, p, def.position) < (double)(r + def.radius))) {
            continue;
        }
        *any = true;
        if (other_row % stride != 0 || other_row > row) {
            ++*pairs;
        }
    }
    return st;
}

throng_status quality_measure(throng_world *world, const scenario *sc,
                              uint32_t agents, const quality_snapshot *before,
                              quality *out) {
    memset(out, 0, sizeof *out);
    /* The motion figures are the tracker's to add (quality_motion_report):
     * one state alone cannot give them. */
    out->kind = quality_kind(sc) & ~(unsigned)QUALITY_MOTION;
    out->closest_approach = (double)INFINITY;
    out->all_arrived_step = -1;
    out->evacuated_step = -1;
    out->out_share = (double)NAN;
    out->mean_exit_rate = (double)NAN;
    out->specific_flow = (double)NAN;
    out->walk_speed = (double)NAN;
    out->max_speed_ratio = (double)NAN;
    out->max_force_ratio = (double)NAN;
    out->mean_speed = (double)NAN;
    out->polarisation = (double)NAN;
    out->nearest_mean = (double)NAN;
    out->overlap_share = (double)NAN;
    out->min_separation = (double)NAN;
    out->at_target_share = (double)NAN;

    throng_columns c;
    throng_status st = throng_world_columns(world, &c);
    if (st != THRONG_OK) {
        return st;
    }
    uint32_t n = c.count;
    if (n == 0) {
        /* No agent is over its limits in an empty world (an evacuation
         * that ended with everyone out). */
        out->max_speed_ratio = 0.0;
        out->max_force_ratio = 0.0;
        return THRONG_OK;
    }

    /* Over the columns: finiteness, speed and heading. */
    const float *const vectors[6] = { c.px, c.py, c.pz, c.vx, c.vy, c.vz };
    double speed_sum = 0.0;
    double heading_sum[3] = { 0.0, 0.0, 0.0 };
    for (uint32_t i = 0; i < n; ++i) {
        bool finite = true;
        for (int k = 0; k < 6; ++k) {
            finite = finite && (vectors[k] == NULL || isfinite(vectors[k][i]));
        }
        out->nan_count += finite ? 0u : 1u;
        double vz = c.vz != NULL ? (double)c.vz[i] : 0.0;
        speed_sum += sqrt((double)c.vx[i] * (double)c.vx[i] +
                          (double)c.vy[i] * (double)c.vy[i] + vz * vz);
        heading_sum[0] += (double)c.fx[i];
        heading_sum[1] += (double)c.fy[i];
        heading_sum[2] += c.fz != NULL ? (double)c.fz[i] : 0.0;
    }
    if (out->kind & QUALITY_FLOCK) {
        out->mean_speed = speed_sum / n;
        out->polarisation = sqrt(heading_sum[0] * heading_sum[0] +
                                 heading_sum[1] * heading_sum[1] +
                                 heading_sum[2] * heading_sum[2]) /
                            n;
    }

    /* Over every agent by handle: limits, the last step's force, the
     * largest body and arrivals. The snapshot's handles are the live
     * agents too, so it serves as the list when there is one. */
    bool with_snapshot = before != NULL && before->count == n;
    double dt = (double)sc->dt;
    double speed_ratio = 0.0;
    double force_ratio = 0.0;
    float r_max = 0.0f;
    uint64_t arrived = 0;
    throng_group cached_group;
    memset(&cached_group, 0, sizeof cached_group);
    bool cached_valid = false, cached_orca = false;
    for (uint32_t k = 0; k < n; ++k) {
        throng_agent agent;
        if (with_snapshot) {
            agent = before->agents[k];
        } else if ((st = throng_agent_at(world, k, &agent)) != THRONG_OK) {
            return st;
        }
        throng_agent_def def;
        st = throng_agent_get_def(world, agent, &def);
        if (st != THRONG_OK) {
            return st;
        }
        const float *v = def.velocity;
        double speed =
            sqrt((double)v[0] * (double)v[0] + (double)v[1] * (double)v[1] +
                 (double)v[2] * (double)v[2]);
        /* An agent told to stand still (max speed 0) that moves is
         * infinitely over its limit; one that stands is at 0. */
        double ratio = speed > 0.0 ? speed / (double)def.max_speed : 0.0;
        speed_ratio = ratio > speed_ratio || isnan(ratio) ? ratio : speed_ratio;
        /* An ORCA group's velocity is chosen by the velocity stage, not
         * reached by a force (throng_avoidance): its change is not held
         * to max force, and is not judged against it. */
        bool forced = true;
        if (with_snapshot) {
            throng_group group;
            st = throng_agent_get_group(world, agent, &group);
            if (st == THRONG_OK &&
                (group.id != cached_group.id ||
                 group.generation != cached_group.generation ||
                 !cached_valid)) {
                throng_avoidance avoidance;
                st = throng_group_get_avoidance(world, group, &avoidance);
                cached_orca =
                    st == THRONG_OK && avoidance.mode == THRONG_AVOIDANCE_ORCA;
                cached_group = group;
                cached_valid = true;
            }
            if (st != THRONG_OK) {
                return st;
            }
            forced = !cached_orca;
        }
        if (with_snapshot && forced) {
            const float *v0 = &before->velocity[3 * k];
            double change = 0.0;
            for (int axis = 0; axis < 3; ++axis) {
                double d = (double)v[axis] - (double)v0[axis];
                change += d * d;
            }
            double force = (double)def.mass * sqrt(change) / dt;
            double f_ratio = force > 0.0 ? force / (double)def.max_force : 0.0;
            force_ratio =
                f_ratio > force_ratio || isnan(f_ratio) ? f_ratio : force_ratio;
        }
        r_max = def.radius > r_max ? def.radius : r_max;
        if (out->kind & QUALITY_TARGET) {
            float target[3];
            st = throng_agent_get_target_point(world, agent, target);
            if (st != THRONG_OK) {
                return st;
            }
            double d = 0.0;
            for (int axis = 0; axis < 3; ++axis) {
                double e = (double)def.position[axis] - (double)target[axis];
                d += e * e;
            }
            arrived += sqrt(d) <= QUALITY_TARGET_REACH ? 1u : 0u;
        }
    }
    out->max_speed_ratio = speed_ratio;
    out->max_force_ratio = with_snapshot ? force_ratio : (double)NAN;
    if (out->kind & QUALITY_TARGET) {
        out->at_target_share = (double)arrived / n;
    }

    if (!(out->kind & (QUALITY_FLOCK | QUALITY_CROWD))) {
        return THRONG_OK;
    }

    /* Over the sample: nearest neighbours and overlaps. */
    space sp = { world, throng_world_dimensions(world),
                 (double)(float)scenario_box_edge(sc, agents), NULL };
    sp.found = malloc(QUERY_CAPACITY * sizeof *sp.found);
    if (sp.found == NULL) {
        return THRONG_ERR_OUT_OF_MEMORY;
    }
    /* Nearest neighbours sit well inside the neighbour radius (a flock
     * packs them a tenth of it apart), so the search starts small: a few
     * doublings cost less than reading a dense cell's every agent. */
    const scenario_param *radius_param =
        scenario_param_find(sc, "neighbour_radius");
    double start = (radius_param != NULL ? radius_param->value : 1.0) / 8.0;
    uint32_t stride = (n + QUALITY_SAMPLE - 1) / QUALITY_SAMPLE;
    double nearest_sum = 0.0;
    uint32_t nearest_count = 0;
    uint32_t overlapping = 0;
    double nearest_min = (double)INFINITY;
    for (uint32_t row = 0; row < n && st == THRONG_OK; row += stride) {
        throng_agent self;
        throng_agent_def def;
        st = throng_agent_at(world, row, &self);
        if (st == THRONG_OK) {
            st = throng_agent_get_def(world, self, &def);
        }
        double nearest = (double)NAN;
        if (st == THRONG_OK) {
            st = nearest_other(&sp, self, def.position, start, &nearest);
        }
        if (st == THRONG_OK && isfinite(nearest)) {
            nearest_sum += nearest;
            ++nearest_count;
            nearest_min = nearest < nearest_min ? nearest : nearest_min;
        }
        if (st == THRONG_OK && (out->kind & QUALITY_CROWD)) {
            bool any = false;
            st = overlaps_of(&sp, self, row, def.position, def.radius, r_max,
                             stride, &out->overlap_pairs, &any);
            overlapping += any ? 1u : 0u;
        }
        ++out->sample;
    }
    free(sp.found);
    if (st != THRONG_OK) {
        return st;
    }
    if ((out->kind & QUALITY_FLOCK) && nearest_count > 0) {
        out->nearest_mean = nearest_sum / nearest_count;
    }
    if (out->kind & QUALITY_CROWD) {
        out->overlap_share = (double)overlapping / out->sample;
        out->min_separation = nearest_count > 0 ? nearest_min : (double)NAN;
    }
    return THRONG_OK;
}

double quality_figure(const quality *q, scenario_figure figure) {
    switch (figure) {
    case SCENARIO_FIGURE_SPEED:
        return q->kind & QUALITY_FLOCK ? q->mean_speed : (double)NAN;
    case SCENARIO_FIGURE_POLARISATION:
        return q->kind & QUALITY_FLOCK ? q->polarisation : (double)NAN;
    case SCENARIO_FIGURE_OVERLAP:
        return q->kind & QUALITY_CROWD ? 100.0 * q->overlap_share : (double)NAN;
    case SCENARIO_FIGURE_SEPARATION:
        return q->kind & QUALITY_CROWD ? q->min_separation : (double)NAN;
    case SCENARIO_FIGURE_AT_TARGET:
        return q->kind & QUALITY_TARGET ? 100.0 * q->at_target_share
                                        : (double)NAN;
    case SCENARIO_FIGURE_DEEP_OVERLAPS:
        return q->kind & QUALITY_MOTION ? (double)q->deep_overlap_sum
                                        : (double)NAN;
    case SCENARIO_FIGURE_OVERLAP_DEPTH:
        return q->kind & QUALITY_MOTION ? 100.0 * q->deepest_overlap
                                        : (double)NAN;
    case SCENARIO_FIGURE_STALL:
        return q->kind & QUALITY_MOTION ? (double)q->longest_stall
                                        : (double)NAN;
    case SCENARIO_FIGURE_ON_TIME:
        return q->kind & QUALITY_MOTION ? 100.0 * q->on_time_share
                                        : (double)NAN;
    case SCENARIO_FIGURE_OUT:
        return q->kind & QUALITY_EVAC ? 100.0 * q->out_share : (double)NAN;
    case SCENARIO_FIGURE_STUCK:
        return q->kind & QUALITY_EVAC ? (double)q->stuck_max : (double)NAN;
    case SCENARIO_FIGURE_SPECIFIC_FLOW:
        return q->kind & QUALITY_EVAC ? q->specific_flow : (double)NAN;
    case SCENARIO_FIGURE_WALK:
        return q->kind & QUALITY_WALK ? q->walk_speed : (double)NAN;
    }
    return (double)NAN;
}

const char *quality_figure_name(scenario_figure figure) {
    switch (figure) {
    case SCENARIO_FIGURE_SPEED:
        return "speed";
    case SCENARIO_FIGURE_POLARISATION:
        return "pol";
    case SCENARIO_FIGURE_OVERLAP:
        return "ovl%";
    case SCENARIO_FIGURE_SEPARATION:
        return "sep m";
    case SCENARIO_FIGURE_AT_TARGET:
        return "goal%";
    case SCENARIO_FIGURE_DEEP_OVERLAPS:
        return "deep";
    case SCENARIO_FIGURE_OVERLAP_DEPTH:
        return "depth%";
    case SCENARIO_FIGURE_STALL:
        return "stall";
    case SCENARIO_FIGURE_ON_TIME:
        return "ontime%";
    case SCENARIO_FIGURE_OUT:
        return "out%";
    case SCENARIO_FIGURE_STUCK:
        return "stuck";
    case SCENARIO_FIGURE_SPECIFIC_FLOW:
        return "J/m";
    case SCENARIO_FIGURE_WALK:
        return "walk";
    }
    return "?";
}

/* Adds a figure's heading to the flag. */
static void flag_add(char *flag, size_t size, unsigned *out, const char *name) {
    size_t used = strlen(flag);
    if (used < size) {
        snprintf(flag + used, size - used, "%s%s", *out == 0 ? "OUT: " : ",",
                 name);
    }
    ++*out;
}

unsigned quality_judge(const quality *q, const scenario *sc, uint64_t steps,
                       char *flag, size_t size) {
    unsigned out = 0;
    if (size == 0) {
        return 0;
    }
    flag[0] = '\0';
    if (q->nan_count != 0) {
        flag_add(flag, size, &out, "nan");
    }
    /* NaN ratios fail too, except F/Fmax without a snapshot (a run of one
     * step has no step before the last). */
    if (!(q->max_speed_ratio <= 1.0 + QUALITY_LIMIT_SLACK)) {
        flag_add(flag, size, &out, "v/vmax");
    }
    if (q->max_force_ratio > 1.0 + QUALITY_LIMIT_SLACK) {
        flag_add(flag, size, &out, "F/Fmax");
    }
    for (size_t k = 0; k < sc->range_count; ++k) {
        const scenario_range *range = &sc->ranges[k];
        if (steps < range->from_step) {
            continue;
        }
        /* The on-time share exists once the run has reached the deadline
         * (or every agent arrived before it); a shorter run does not
         * judge it. */
        if (range->figure == SCENARIO_FIGURE_ON_TIME &&
            (q->kind & QUALITY_MOTION) && isnan(q->on_time_share)) {
            continue;
        }
        double value = quality_figure(q, range->figure);
        if (!(value >= range->min && value <= range->max)) {
            flag_add(flag, size, &out, quality_figure_name(range->figure));
        }
    }
    if (out == 0) {
        snprintf(flag, size, "ok");
    }
    return out;
}

/* ------------------------------------------------------------------------ */
/* Overlaps through a hashed grid, and the motion tracker                   */
/* ------------------------------------------------------------------------ */

void overlap_grid_free(overlap_grid *grid) {
    free(grid->cell);
    free(grid->start);
    free(grid->order);
    memset(grid, 0, sizeof *grid);
}

/* Buckets per body, as a power of two: twice the bodies keeps the
 * buckets that unrelated cells share few. */
static uint32_t bucket_count(uint32_t n) {
    uint32_t buckets = 16;
    while (buckets < 2u * n && buckets < (1u << 30))
        buckets <<= 1;
    return buckets;
}

/* Cell coordinates hashed to a bucket (the primes of Teschner et al.'s
 * spatial hash); distinct cells may share one, which only adds bodies
 * that the distance test then rejects. */
static uint32_t bucket_of(int64_t ix, int64_t iy, uint32_t mask) {
    uint64_t h = (uint64_t)ix * 73856093u ^ (uint64_t)iy * 19349663u;
    return (uint32_t)(h ^ h >> 32) & mask;
}

bool overlap_grid_count(overlap_grid *grid, uint32_t n, const float *x,
                        const float *y, const float *z, const float *radius,
                        overlap_count *out) {
    out->pairs = 0;
    out->deep = 0;
    out->deepest = 0.0;
    out->closest = (double)INFINITY;
    if (n < 2)
        return true;
    uint32_t buckets = bucket_count(n);
    if (grid->capacity < n) {
        overlap_grid_free(grid);
        grid->cell = malloc((size_t)n * sizeof *grid->cell);
        grid->order = malloc((size_t)n * sizeof *grid->order);
        grid->start = malloc(((size_t)bucket_count(n) + 1) * sizeof(uint32_t));
        if (grid->cell == NULL || grid->order == NULL || grid->start == NULL) {
            overlap_grid_free(grid);
            return false;
        }
        grid->capacity = n;
    }
    double r_max = 0.0;
    for (uint32_t i = 0; i < n; ++i)
        r_max = (double)radius[i] > r_max ? (double)radius[i] : r_max;
    /* A pair within 2 r_max lies in neighbouring cells of this edge. */
    double cell = r_max > 0.0 ? 2.0 * r_max : 1.0;
    uint32_t mask = buckets - 1;
    /* Counting sort of the bodies by bucket. */
    memset(grid->start, 0, ((size_t)buckets + 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t b = bucket_of((int64_t)floor((double)x[i] / cell),
                               (int64_t)floor((double)y[i] / cell), mask);
        grid->cell[i] = b;
        ++grid->start[b + 1];
    }
    for (uint32_t b = 0; b < buckets; ++b)
        grid->start[b + 1] += grid->start[b];
    for (uint32_t i = 0; i < n; ++i)
        grid->order[grid->start[grid->cell[i]]++] = i;
    /* start[b] now ends bucket b; shift back so it begins it. */
    for (uint32_t b = buckets; b > 0; --b)
        grid->start[b] = grid->start[b - 1];
    grid->start[0] = 0;

    for (uint32_t i = 0; i < n; ++i) {
        int64_t ix = (int64_t)floor((double)x[i] / cell);
        int64_t iy = (int64_t)floor((double)y[i] / cell);
        uint32_t seen[9] = { 0 };
        int seen_count = 0;
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
                uint32_t b = bucket_of(ix + dx, iy + dy, mask);
                /* Two of the nine cells sharing a bucket: read it once. */
                bool again = false;
                for (int k = 0; k < seen_count; ++k)
                    again = again || seen[k] == b;
                if (again)
                    continue;
                seen[seen_count++] = b;
                for (uint32_t k = grid->start[b]; k < grid->start[b + 1]; ++k) {
                    uint32_t j = grid->order[k];
                    if (j <= i)
                        continue; /* each pair once, from its lower row */
                    double ex = (double)x[i] - (double)x[j];
                    double ey = (double)y[i] - (double)y[j];
                    double ez = z != NULL ? (double)z[i] - (double)z[j] : 0.0;
                    double d = sqrt(ex * ex + ey * ey + ez * ez);
                    double sum = (double)radius[i] + (double)radius[j];
                    if (d < 2.0 * r_max && d < out->closest)
                        out->closest = d;
                    if (!(d < sum))
                        continue;
                    ++out->pairs;
                    double depth = (sum - d) / sum;
                    out->deepest = depth > out->deepest ? depth : out->deepest;
                    if (sum - d > QUALITY_DEEP_OVERLAP * 0.5 * sum)
                        ++out->deep;
                }
            }
        }
    }
    return true;
}

void quality_motion_free(quality_motion *m) {
    free(m->radius);
    free(m->max_speed);
    free(m->still);
    free(m->reached);
    free(m->goal);
    free(m->goal_for);
    free(m->row_radius);
    free(m->arrival_buffer);
    free(m->passage_exit);
    free(m->passage_step);
    overlap_grid_free(&m->grid);
    memset(m, 0, sizeof *m);
}

throng_status quality_motion_start(quality_motion *m, const throng_world *world,
                                   uint32_t agents) {
    if (m->agents < agents || m->radius == NULL) {
        quality_motion_free(m);
        size_t count = (size_t)agents + 1;
        m->radius = malloc(count * sizeof *m->radius);
        m->max_speed = malloc(count * sizeof *m->max_speed);
        m->still = malloc(count * sizeof *m->still);
        m->reached = malloc(count * sizeof *m->reached);
        m->goal = malloc(3u * count * sizeof *m->goal);
        m->goal_for = malloc(count * sizeof *m->goal_for);
        m->row_radius = malloc(count * sizeof *m->row_radius);
        if (m->radius == NULL || m->max_speed == NULL || m->still == NULL ||
            m->reached == NULL || m->goal == NULL || m->goal_for == NULL ||
            m->row_radius == NULL) {
            quality_motion_free(m);
            return THRONG_ERR_OUT_OF_MEMORY;
        }
    }
    m->agents = agents;
    m->scene_ready = 0;
    m->passages = 0;
    m->walk_sum = 0.0;
    m->walk_steps = 0;
    memset(m->still, 0, (size_t)agents * sizeof *m->still);
    memset(m->reached, 0, (size_t)agents * sizeof *m->reached);
    memset(m->goal_for, 0, (size_t)agents * sizeof *m->goal_for);
    memset(&m->figures, 0, sizeof m->figures);
    m->figures.kind = QUALITY_MOTION;
    m->figures.closest_approach = (double)INFINITY;
    m->figures.all_arrived_step = -1;
    m->figures.deadline_step = -1;
    m->figures.on_time_share = (double)NAN;
    m->figures.evacuated_step = -1;
    m->figures.walk_speed = (double)NAN;
    for (uint32_t k = 0; k < agents; ++k) {
        throng_agent agent;
        throng_agent_def def;
        throng_status st = throng_agent_find(world, (uint64_t)k + 1, &agent);
        if (st == THRONG_OK)
            st = throng_agent_get_def(world, agent, &def);
        if (st != THRONG_OK)
            return st;
        m->radius[k] = def.radius;
        m->max_speed[k] = def.max_speed;
    }
    return THRONG_OK;
}

/* The first observation of an evacuation or walking scene: its step,
 * exits and stuck threshold, and room for its arrivals and passages. */
static throng_status motion_scene(quality_motion *m, const scenario *sc) {
    m->scene_ready = 1;
    m->dt = (double)sc->dt;
    const scenario_param *stuck = scenario_param_find(sc, "stuck_seconds");
    const double steps =
        stuck != NULL && sc->dt > 0.0f ? stuck->value / (double)sc->dt : 0.0;
    m->stuck_steps = steps >= 1.0 ? (uint32_t)ceil(steps) : UINT32_MAX;
    quality *f = &m->figures;
    if (sc->exits == NULL)
        return THRONG_OK;
    f->exit_count = sc->exits(sc, m->agents, f->exit_width);
    if (f->exit_count == 0 || f->exit_count > SCENARIO_MAX_EXITS)
        return THRONG_ERR_INVALID_ARG;
    const size_t n = (size_t)m->agents + 1;
    free(m->arrival_buffer);
    free(m->passage_exit);
    free(m->passage_step);
    m->arrival_buffer = malloc(n * sizeof *m->arrival_buffer);
    m->passage_exit = malloc(n * sizeof *m->passage_exit);
    m->passage_step = malloc(n * sizeof *m->passage_step);
    if (m->arrival_buffer == NULL || m->passage_exit == NULL ||
        m->passage_step == NULL)
        return THRONG_ERR_OUT_OF_MEMORY;
    return THRONG_OK;
}

/* The last step's arrivals of an evacuation scene: each agent removed at
 * an exit is a passage through it. */
static throng_status motion_arrivals(quality_motion *m,
                                     const throng_world *world, uint64_t step) {
    uint32_t n = 0;
    bool cut = false;
    throng_status st = throng_world_nav_arrivals(world, m->arrival_buffer,
                                                 m->agents + 1u, &n, &cut);
    if (st != THRONG_OK)
        return st;
    if (cut || m->passages + n > m->agents + 1u)
        return THRONG_ERR_INVALID_ARG;
    quality *f = &m->figures;
    for (uint32_t i = 0; i < n; ++i) {
        const throng_nav_arrival *a = &m->arrival_buffer[i];
        if (!a->removed || a->goal >= f->exit_count)
            continue;
        f->exit_out[a->goal]++;
        m->passage_exit[m->passages] = a->goal;
        m->passage_step[m->passages] = (uint32_t)step;
        m->passages++;
        ++f->arrivals;
    }
    return THRONG_OK;
}

throng_status quality_motion_observe(quality_motion *m,
                                     const throng_world *world,
                                     const scenario *sc, uint64_t seed,
                                     const uint32_t *arrivals, uint64_t step,
                                     bool counted) {
    throng_columns c;
    throng_status st = throng_world_columns(world, &c);
    if (st != THRONG_OK)
        return st;
    const bool evac = sc->exits != NULL, walk = sc->walk;
    if ((!evac && c.count != m->agents) || (sc->goal == NULL && !evac && !walk))
        return THRONG_ERR_INVALID_ARG;
    quality *f = &m->figures;
    if ((evac || walk) && !m->scene_ready) {
        st = motion_scene(m, sc);
        if (st != THRONG_OK)
            return st;
    }
    if (evac) {
        st = motion_arrivals(m, world, step);
        if (st != THRONG_OK)
            return st;
    }
    ++f->motion_steps;
    uint32_t at_goal = 0, stuck = 0;
    double along = 0.0;
    for (uint32_t row = 0; row < c.count; ++row) {
        uint64_t key = c.host_key[row];
        if (key == 0 || key > m->agents)
            return THRONG_ERR_INVALID_ARG;
        uint32_t k = (uint32_t)(key - 1);
        bool there = false;
        if (sc->goal != NULL) {
            uint32_t reached = arrivals != NULL ? arrivals[k] : 0;
            float *goal = &m->goal[3u * (size_t)k];
            if (m->goal_for[k] != reached + 1) {
                sc->goal(sc, m->agents, seed, key, reached, goal);
                m->goal_for[k] = reached + 1;
            }
            double gx = (double)c.px[row] - (double)goal[0];
            double gy = (double)c.py[row] - (double)goal[1];
            double gz =
                c.pz != NULL ? (double)c.pz[row] - (double)goal[2] : 0.0;
            double reach = (double)m->radius[k];
            there = gx * gx + gy * gy + gz * gz <= reach * reach;
            if (there) {
                ++at_goal;
                if (m->reached[k] != reached + 1) {
                    m->reached[k] = reached + 1;
                    ++f->arrivals;
                }
            }
        }
        double vz = c.vz != NULL ? (double)c.vz[row] : 0.0;
        double speed = sqrt((double)c.vx[row] * (double)c.vx[row] +
                            (double)c.vy[row] * (double)c.vy[row] + vz * vz);
        along += (double)c.vx[row];
        /* At most, so an agent whose max speed is 0 stands still. */
        if (!there && speed <= QUALITY_STILL * (double)m->max_speed[k]) {
            ++m->still[k];
            if (m->still[k] > f->longest_stall)
                f->longest_stall = m->still[k];
        } else {
            m->still[k] = 0;
        }
        stuck += m->still[k] >= m->stuck_steps;
        m->row_radius[row] = m->radius[k];
    }
    if (evac) {
        if (stuck > f->stuck_max)
            f->stuck_max = stuck;
        f->out_share = (double)(m->agents - c.count) / (double)m->agents;
        if (c.count == 0 && f->evacuated_step < 0)
            f->evacuated_step = (int64_t)step;
        /* Everyone out is everyone arrived: --until-arrived ends there. */
        if (c.count == 0 && f->all_arrived_step < 0)
            f->all_arrived_step = (int64_t)step;
    } else if (sc->goal != NULL && at_goal == c.count &&
               f->all_arrived_step < 0) {
        f->all_arrived_step = (int64_t)step;
    }
    if (walk && counted && c.count > 0) {
        m->walk_sum += along / (double)c.count;
        ++m->walk_steps;
    }
    if (sc->deadline != NULL) {
        /* Arrivals count each agent's first visit to its goal, once per
         * goal: in a scene whose goals stay put, the agents that have
         * reached theirs. Every agent there before the deadline settles
         * the share early (a run that ends on arrival stops there). */
        f->deadline_step = (int64_t)sc->deadline(sc, m->agents);
        if (step == (uint64_t)f->deadline_step ||
            (isnan(f->on_time_share) && at_goal == c.count &&
             step <= (uint64_t)f->deadline_step))
            f->on_time_share = (double)f->arrivals / (double)m->agents;
    }
    if (!counted)
        return THRONG_OK;
    overlap_count count;
    if (!overlap_grid_count(&m->grid, c.count, c.px, c.py, c.pz, m->row_radius,
                            &count))
        return THRONG_ERR_OUT_OF_MEMORY;
    f->overlap_sum += count.pairs;
    f->deep_overlap_sum += count.deep;
    f->deepest_overlap =
        count.deepest > f->deepest_overlap ? count.deepest : f->deepest_overlap;
    f->closest_approach = count.closest < f->closest_approach
                              ? count.closest
                              : f->closest_approach;
    return THRONG_OK;
}

/* Exit e's flow from its passages (in step order): between the 10th and
 * the 90th percentile passage, or over all of them when fewer than 10. */
static double exit_rate(const quality_motion *m, uint32_t e) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->passages; ++i)
        n += m->passage_exit[i] == e;
    if (n == 0 || !(m->dt > 0.0))
        return (double)NAN;
    uint32_t first = 0, last = n - 1;
    if (n >= 10) {
        first = (uint32_t)floor(0.1 * (double)n);
        last = (uint32_t)ceil(0.9 * (double)n) - 1u;
    }
    uint32_t seen = 0, t_first = 0, t_last = 0;
    for (uint32_t i = 0; i < m->passages; ++i) {
        if (m->passage_exit[i] != e)
            continue;
        if (seen == first)
            t_first = m->passage_step[i];
        if (seen == last)
            t_last = m->passage_step[i];
        ++seen;
    }
    if (n < 10 || t_last == t_first)
        /* The passages over the steps from the first to the last. */
        return (double)n / ((double)(t_last - t_first + 1u) * m->dt);
    return (double)(last - first) / ((double)(t_last - t_first) * m->dt);
}

void quality_motion_report(const quality_motion *m, quality *q) {
    const quality *f = &m->figures;
    q->kind |= QUALITY_MOTION;
    q->out_share = f->out_share;
    q->evacuated_step = f->evacuated_step;
    q->evacuated_seconds = (double)f->evacuated_step * m->dt;
    q->stuck_max = f->stuck_max;
    q->exit_count = f->exit_count;
    q->mean_exit_rate = (double)NAN;
    q->specific_flow = (double)NAN;
    double rate_sum = 0.0, flow_sum = 0.0;
    uint32_t used = 0;
    for (uint32_t e = 0; e < f->exit_count; ++e) {
        q->exit_out[e] = f->exit_out[e];
        q->exit_width[e] = f->exit_width[e];
        q->exit_rate[e] = exit_rate(m, e);
        if (isfinite(q->exit_rate[e]) && q->exit_width[e] > 0.0) {
            rate_sum += q->exit_rate[e];
            flow_sum += q->exit_rate[e] / q->exit_width[e];
            ++used;
        }
    }
    if (used > 0) {
        q->mean_exit_rate = rate_sum / used;
        q->specific_flow = flow_sum / used;
    }
    q->walk_speed =
        m->walk_steps > 0 ? m->walk_sum / (double)m->walk_steps : (double)NAN;
    q->motion_steps = f->motion_steps;
    q->overlap_sum = f->overlap_sum;
    q->deep_overlap_sum = f->deep_overlap_sum;
    q->deepest_overlap = f->deepest_overlap;
    q->closest_approach = f->closest_approach;
    q->arrivals = f->arrivals;
    q->all_arrived_step = f->all_arrived_step;
    q->longest_stall = f->longest_stall;
    q->deadline_step = f->deadline_step;
    q->on_time_share = f->on_time_share;
}
