/* SPDX-License-Identifier: MIT */
/*
 * The environment family's kernels (steer_env.c): obstacle and wall
 * avoidance, containment, wall following.
 */
#ifndef THRONG_STEER_ENV_H
#define THRONG_STEER_ENV_H

#include "steer.h"
#include "steer_flock.h"

/* A lateral offset shorter than this fraction of the whole offset means
 * the obstacle is dead ahead, and its direction is rounding noise. */
#define ENV_DEAD_AHEAD 1e-6

/* The most obstacle candidates a run shares (see env_run); a group of
 * rows near more obstacles than this queries the grid row by row. */
#define ENV_RUN_CAPACITY 128
/* The most rows a group of a run holds (a run of the finish is 64). */
#define ENV_RUN_ROWS 64

/* Obstacle avoidance's candidates shared by a run of rows [begin, end)
 * finished together (rows in cell order, so close together): the rows
 * are cut into groups, and each group queries the obstacle grid once
 * for the union of its corridors' boxes. Scratch of one thread, filled
 * lazily by the first avoiding row of each group; an agent's choice is
 * the same bits with or without it. */
typedef struct env_run {
    uint32_t begin, end;  /* the run */
    uint32_t first, stop; /* the current group's rows; empty at first */
    int usable;           /* the candidates below are complete */
    double lo[3], hi[3];  /* the union of the group's corridor boxes */
    /* Per row of the group (row - first): the one avoidance its group
     * lists (NULL when none or several), that corridor's box and length
     * as the kernel computes them. */
    const throng_behaviour *row_b[ENV_RUN_ROWS];
    double row_lo[3][ENV_RUN_ROWS], row_hi[3][ENV_RUN_ROWS];
    double row_L[ENV_RUN_ROWS];
    /* Per row of the group, as the fill loaded them for the corridor:
     * position, heading and radius. */
    double row_p[3][ENV_RUN_ROWS], row_f[3][ENV_RUN_ROWS];
    double row_R[ENV_RUN_ROWS];
    uint32_t count;
    /* Ascending object ids, and their bounds (geo_bounds) per axis. */
    uint32_t id[ENV_RUN_CAPACITY];
    double blo[3][ENV_RUN_CAPACITY], bhi[3][ENV_RUN_CAPACITY];
    /* Whether every candidate is a sphere, their centres and radii, and
     * whether the world has 3 dimensions. */
    int spheres, three;
    double centre[3][ENV_RUN_CAPACITY], radius[ENV_RUN_CAPACITY];
    /* Set by a vector path's env_avoid_lanes (tested): per row of the
     * group, the threat ahead and the overlap the scalar test would
     * find among the candidates (UINT32_MAX: none), for the rows that
     * kept their corridor (row_b). */
    int tested;
    uint32_t row_hit[ENV_RUN_ROWS], row_inside[ENV_RUN_ROWS];
    /* The same as places among the candidates (index into id[]), as the
     * vector test of spheres sets them alone. */
    uint32_t row_hit_at[ENV_RUN_ROWS], row_inside_at[ENV_RUN_ROWS];
} env_run;

/* The rows of a group are tested in blocks of this many lanes: the rows
 * of a group past its last, up to a whole block, hold empty corridors. */
#define ENV_LANE_BLOCK 8u

/* A vector path's test of a run's group of `rows` rows against its
 * candidates (all spheres), lanes across rows: run->row_hit and
 * run->row_inside, the same ids as env_avoid's scalar screen and test. */
typedef void (*env_lanes_fn)(env_run *run, uint32_t rows);
void env_avoid_lanes_sse2(env_run *run, uint32_t rows);
void env_avoid_lanes_avx2(env_run *run, uint32_t rows);
void env_avoid_lanes_avx512(env_run *run, uint32_t rows);
void env_avoid_lanes_neon(env_run *run, uint32_t rows);
void env_avoid_lanes_wasm(env_run *run, uint32_t rows);

/* The most a group of a run spans on any axis, in obstacle grid cells:
 * rows are in cell order, so a run is a strip of neighbouring agents,
 * except where it wraps to the next row of cells; a group ends there
 * rather than query the whole width of the world. A few cells keep the
 * candidates an agent screens by bounds near those its own cells hold. */
#define ENV_RUN_SPAN 8.0

/* Obstacle avoidance of a block of up to ENV_BLOCK_ROWS consecutive rows
 * on a vector path's lanes (env_avoid_block_*), for the recipe finish on
 * the lanes: per row u of the block, the desired velocity env_avoid
 * computes (before the force, as floats), `on` (bit u) where it has a
 * threat ahead or an overlap, and `alone` where the row must take the
 * scalar kernel instead (a corridor that is not finite, a group of too
 * few rows or near too many obstacles, a threat dead ahead, an overlap
 * at a sphere's centre or inside a box). */
#define ENV_BLOCK_ROWS 16
typedef struct env_block {
    uint32_t on, alone;
    float vd[3][ENV_BLOCK_ROWS];
} env_block;

/* Avoidance b of rows first + u (or rows[u], when rows is not NULL) for
 * the bits u of `want` (u < n <= ENV_BLOCK_ROWS): the same threats and
 * desired velocities, bit for bit, as env_avoid() finds row by row. */
typedef void (*env_block_fn)(const throng_world *w, const throng_behaviour *b,
                             uint32_t first, const int32_t *rows, uint32_t n,
                             uint32_t want, env_block *out);
void env_avoid_block_sse2(const throng_world *w, const throng_behaviour *b,
                          uint32_t first, const int32_t *rows, uint32_t n,
                          uint32_t want, env_block *out);
void env_avoid_block_avx2(const throng_world *w, const throng_behaviour *b,
                          uint32_t first, const int32_t *rows, uint32_t n,
                          uint32_t want, env_block *out);
void env_avoid_block_avx512(const throng_world *w, const throng_behaviour *b,
                            uint32_t first, const int32_t *rows, uint32_t n,
                            uint32_t want, env_block *out);
void env_avoid_block_neon(const throng_world *w, const throng_behaviour *b,
                          uint32_t first, const int32_t *rows, uint32_t n,
                          uint32_t want, env_block *out);
void env_avoid_block_wasm(const throng_world *w, const throng_behaviour *b,
                          uint32_t first, const int32_t *rows, uint32_t n,
                          uint32_t want, env_block *out);

/* Of the rows first + u (or rows[u] when rows is not NULL) for the bits
 * u of `want` (u < n <= ENV_BLOCK_ROWS), those that containment b finds a
 * wall within range of (bit u): the rows whose force env_contain() does
 * not take from the box alone. */
uint32_t steer_env_contain_walled(const throng_world *w,
                                  const throng_behaviour *b, uint32_t first,
                                  const int32_t *rows, uint32_t n,
                                  uint32_t want);

/* The scalar screen and test of the rows [from, to) of a run's group
 * against its candidates, of any shape: run->row_hit and row_inside, as
 * env_avoid() finds them. */
void steer_env_run_test(const throng_world *w, env_run *run, uint32_t from,
                        uint32_t to);

/* Sets up `run` for rows [begin, end); cheap, nothing is queried yet. */
void steer_env_run_begin(env_run *run, uint32_t begin, uint32_t end);

/* The environment family's force for behaviour b (see steer_env.c). */
int steer_env_force(const steer_ctx *a, const throng_behaviour *b, float F[3]);
/* The same, with the candidates of a run that holds the context's row
 * (run may be NULL): the same bits as steer_env_force(). */
int steer_env_force_run(const steer_ctx *a, const throng_behaviour *b,
                        env_run *run, float F[3]);

#endif /* THRONG_STEER_ENV_H */
