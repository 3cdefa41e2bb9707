/* SPDX-License-Identifier: MIT */
/*
 * The second tier of checks: the validation sweep a VALIDATE=1 build runs
 * before each tick and after each of its stages (validate.c says what it
 * checks and why a failure refuses the step).
 */
#ifndef THRONG_VALIDATE_H
#define THRONG_VALIDATE_H

#include "internal.h"

/* The points of a tick where step.c sweeps, in the order they come. */
typedef enum validate_stage {
    VALIDATE_BEFORE_STEP,     /* the state the calls before the step left */
    VALIDATE_GRID,            /* the obstacle grid and the agent grid built,
                                 the rows in cell order */
    VALIDATE_TAILS_AND_LINKS, /* the column tails zeroed, the slot links
                                 rewritten when behaviours read them */
    VALIDATE_BEHAVIOURS,      /* every row's force written */
    VALIDATE_INTEGRATE,       /* every row moved */
    VALIDATE_STAGE_COUNT
} validate_stage;

/* Agents whose neighbours the grid sweep compares against brute force:
 * each costs one pass over every agent. */
#define VALIDATE_SAMPLE 16u

/* How the sentences name a stage: "after the grid build". */
const char *validate_stage_name(validate_stage stage);

/* Everything step.c checks at `stage`: THRONG_OK, or THRONG_ERR_INTERNAL
 * with the first failed check's sentence recorded in the world
 * ("throng_world_step: validation after the grid build: row 40 ..."). It
 * changes nothing the world shows (marks it sets while it counts are
 * cleared before it returns). */
throng_status validate_stage_sweep(throng_world *world, validate_stage stage);

/* The sweep's parts, each on its own, for the tests (they exist in every
 * build; only step.c's calls depend on VALIDATE=1). Each returns and
 * records as above, naming `stage`.
 *
 * Rows and handles: the slot column is a one-to-one map of the rows onto
 * the live slots, and, when the links are up to date, each live slot's
 * row holds it back; free slots are marked and the free list holds only
 * them; groups in range. */
throng_status validate_rows(throng_world *world, validate_stage stage);
/* Every float column finite, and every row as adding an agent, the
 * setters and every step keep it (world_check_row). */
throng_status validate_columns(throng_world *world, validate_stage stage);
/* The last build describes the rows: cell_start runs from 0 to the count
 * without going back, each row lies in the bucket whose range holds it,
 * rows keep their order within a bucket, `sorted` is a permutation, the
 * occupied count is right, and for VALIDATE_SAMPLE agents (which ones
 * depends on the step number) the cell ranges give exactly the neighbours
 * an O(n) scan finds. */
throng_status validate_grid(throng_world *world, validate_stage stage);
/* Rows [count, count + COLUMN_PAD) of every column, and of the force
 * columns, hold zeros. */
throng_status validate_tails(throng_world *world, validate_stage stage);
/* Every row's force is finite. */
throng_status validate_forces(throng_world *world, validate_stage stage);

/* One of the parts above. */
/* Every navigation field a fixed point of its own update, before the
 * step; no slot still arriving, at both ends of a tick. */
throng_status validate_nav(throng_world *world, validate_stage stage);
typedef throng_status (*validate_part)(throng_world *world,
                                       validate_stage stage);

/* Test hook: when set, validate_stage_sweep calls it first, so a test can
 * plant a fault after a chosen stage ran and see that stage's sweep catch
 * it. Not part of the API (the shared library does not export it). */
extern void (*validate_test_hook)(throng_world *world, validate_stage stage);

#endif /* THRONG_VALIDATE_H */
