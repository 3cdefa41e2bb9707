/*
 * The environment family's kernels (steer_env.c): obstacle and wall
 * avoidance, containment, wall following.
 */
#ifndef THRONG_STEER_ENV_H
#define THRONG_STEER_ENV_H

#include "steer.h"
#include "steer_flock.h"

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
    uint32_t count;
    /* Ascending object ids, and their bounds (geo_bounds) per axis. */
    uint32_t id[ENV_RUN_CAPACITY];
    double blo[3][ENV_RUN_CAPACITY], bhi[3][ENV_RUN_CAPACITY];
} env_run;

/* Sets up `run` for rows [begin, end); cheap, nothing is queried yet. */
void steer_env_run_begin(env_run *run, uint32_t begin, uint32_t end);

/* The environment family's force for behaviour b (see steer_env.c). */
int steer_env_force(const steer_ctx *a, const throng_behaviour *b, float F[3]);
/* The same, with the candidates of a run that holds the context's row
 * (run may be NULL): the same bits as steer_env_force(). */
int steer_env_force_run(const steer_ctx *a, const throng_behaviour *b,
                        env_run *run, float F[3]);

#endif /* THRONG_STEER_ENV_H */
