/* SPDX-License-Identifier: MIT */
/*
 * Navigation fields (nav_field.c): a grid over a region, its goals and
 * costs, the world's static geometry rasterised onto it, the travel times
 * to the nearest goal solved on it (nav_solve.c), rebuilt when the
 * geometry, the costs or the crowd's density change, and sampled where an
 * agent stands.
 */
#ifndef THRONG_NAV_FIELD_H
#define THRONG_NAV_FIELD_H

#include "internal.h"
#include "nav_solve.h"

/* A build's passes cut the field's lines (rows along x) into at most
 * this many parts (nav_field.c), enough for every thread to have a few. */
#define NAV_PARTS 64u

/* One part's figures in a build. */
typedef struct nav_part {
    uint64_t changed, solid, margin;
    uint64_t offset; /* its first changed cell's place in the queue */
    int goal;        /* it holds a goal cell */
} nav_part;

/* A field as the world holds it: the description it was made from (what a
 * snapshot saves), then what is built from it. */
typedef struct nav_field {
    /* The description (throng_nav_field_def, checked and copied). */
    int dims;
    float origin[3];
    float cell;
    uint32_t size[3]; /* 1 on the axes the world lacks */
    float clearance;
    uint32_t goal_count;
    throng_nav_goal *goals;
    uint32_t region_count;
    throng_nav_region *regions;
    float *costs; /* NULL, or one per cell (x fastest) */
    uint32_t density_interval;
    float density_radius;
    float density_cost;
    /* Derived: cells, and the base cost of each (costs then regions; 0
     * impassable). */
    uint64_t cells;
    float *base;
    /* The raster and the solve (nav_solve.h): padded arrays. */
    nav_raster r;
    uint8_t *cls;
    uint8_t *next_cls; /* the raster being made, before it is compared */
    uint32_t *step;
    uint32_t *next_step; /* its steps; the two trade places after */
    uint64_t *time;
    float *dir;
    uint16_t *unit_table;
    void *scratch;
    size_t scratch_bytes;
    uint8_t *start;  /* tile flags */
    uint8_t *mark;   /* padded, zero between rebuilds */
    uint32_t *queue; /* padded: the changed cells, then the walk */
    /* Density (when density_interval > 0): agents counted per cell at the
     * last count, and the smoothed agents per m^2 (m^3 in 3D) of each. */
    uint32_t *counts;
    float *density;
    uint32_t *sums; /* scratch of the window sums, one per cell */
    int counted;    /* counts hold a count (else all 0) */
    /* Counts a host supplied for the next count to take instead of
     * counting the world's agents (throng_nav_field_supply_counts):
     * allocated on the first supply, pending until that count. */
    uint32_t *supplied;
    int supplied_pending;
    /* State. */
    uint64_t shape_version; /* geometry->shape_version last rasterised */
    int dirty;              /* costs or counts changed since the build */
    int built;
    /* Statistics of the builds. */
    uint64_t builds;
    nav_part parts[NAV_PARTS];
    uint64_t solid, margin;
    uint64_t last_reset; /* cells the last build started again */
    int last_full;
    double last_seconds;
    nav_solve_stats last_stats;
    size_t bytes; /* every block below, for throng_world_bytes */
} nav_field;

/* Checks a definition as throng_nav_field_add takes it, without reading
 * the world's geometry: the grid (cell size, counts, the far corner a
 * finite float, at most THRONG_MAX_NAV_CELLS), goals (kinds, finite, a
 * box's min below its max, inside the grid), costs and regions (0 or in
 * [THRONG_NAV_MIN_COST, THRONG_NAV_MAX_COST]), clearance and the density
 * settings. Records the refusal under fn. */
throng_status nav_field_check_def(throng_world *w, const char *fn,
                                  const throng_nav_field_def *def);

/* Makes a field from a checked definition: copies the description and
 * allocates everything a build needs, so no build ever allocates. NULL
 * when out of memory (recorded under fn). */
nav_field *nav_field_create(throng_world *w, const char *fn,
                            const throng_nav_field_def *def);

void nav_field_free(throng_world *w, nav_field *f);

/* The definition a field was made from; its pointers are the field's
 * own copies. */
void nav_field_def_of(const nav_field *f, throng_nav_field_def *out);

/* Rasterises the world's geometry and solves, incrementally when only
 * part of the raster changed since the last build (or in full when
 * `full`); the result is the same bits either way. Cannot fail. */
void nav_field_build(throng_world *w, nav_field *f, parallel_sched *sched,
                     int full);

/* Whether the field is out of date: never built, the geometry changed
 * since, or costs or counts changed. */
int nav_field_stale(const throng_world *w, const nav_field *f);

/* Counts the world's agents per cell (their positions now; the counts
 * supplied instead, when a host supplied them) and derives the density;
 * marks the field dirty when density changes its costs. */
void nav_field_count(throng_world *w, nav_field *f);
/* The world's agents per cell as a count counts them (at each of their
 * images in the grid in a periodic world), into `counts` (f->cells). */
void nav_field_count_agents(const throng_world *w, const nav_field *f,
                            uint32_t *counts);
/* Derives the density from the counts, over the cells of the raster
 * `cls` (padded; NULL: every cell not at cost 0) that are not solid:
 * what a count does after counting, with the last build's raster, and a
 * build does again with its own, so a field's density always follows
 * from its counts and its raster alone (as a loaded field's does). */
void nav_field_density(nav_field *f, const uint8_t *cls);

/* Replaces the per-cell costs (NULL: none) and derives the base costs;
 * `costs` was checked. 1 when out of memory (the field unchanged). */
int nav_field_set_costs(throng_world *w, nav_field *f, const float *costs);

/* Why a goal of the definition cannot be a goal of the built field, or 0:
 * 1 when every cell it covers is solid. */
int nav_field_goal_blocked(const nav_field *f, uint32_t goal);
/* The cells with a time (goals included), and the FREE ones among them
 * (for "no reachable cell"), counted in the built field when asked. */
void nav_field_reached(const nav_field *f, uint64_t *reached,
                       uint64_t *free_reached);

/* What the field says at a point. */
typedef struct nav_point {
    float dir[3];   /* unit, or 0 */
    float distance; /* metres at cost 1, INFINITY where no goal */
    float density;  /* agents per m^2 (m^3), 0 without counting */
    int inside;     /* within the grid */
    int at_goal;    /* in a goal cell */
} nav_point;

void nav_field_sample(const nav_field *f, const float p[3], nav_point *out);

/* The index of the goal nearest point p (the distance to its shape; ties
 * to the lower index). */
uint32_t nav_field_nearest_goal(const nav_field *f, const float p[3]);

/* Distances of every cell in metres, x fastest (INFINITY where none). */
void nav_field_distances(const nav_field *f, float *out);

#endif /* THRONG_NAV_FIELD_H */
