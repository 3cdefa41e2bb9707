/* SPDX-License-Identifier: MIT */
/*
 * The column store's private declarations beyond internal.h: allocating,
 * freeing and growing the columns and the slot table.
 */
#ifndef THRONG_COLUMNS_H
#define THRONG_COLUMNS_H

#include "internal.h"

/* The float columns of a world, in a fixed order, and its 4-byte integer
 * columns (slot last); an entry whose pointer is NULL is absent. */
#define FLOAT_COLUMNS FLOAT_COLUMN_COUNT
void float_columns(agent_columns *c, float **out[FLOAT_COLUMNS]);
void u32_columns(agent_columns *c, uint32_t **out[U32_COLUMN_COUNT]);

/* Float column k, or 4-byte integer column k, exists in a world of `dims`
 * dimensions, with or without behaviour state. */
int column_present(int dims, int state, int k);
int u32_present(int state, int k);

/* Frees every column of `c`, `cap` rows long. */
void free_columns(throng_world *w, agent_columns *c, uint32_t cap);

/* Allocates every column of `c` for `cap` rows (the behaviour-state
 * columns too when `state`); nonzero, and nothing held, when out of
 * memory. */
int alloc_columns(throng_world *w, agent_columns *c, uint32_t cap, int state);

/* Grows the columns, or the slot table, to hold at least `want` rows or
 * slots; nonzero, and the world unchanged, when out of memory. */
int reserve_columns(throng_world *w, uint32_t want);
int reserve_slots(throng_world *w, uint32_t want);

/* Makes the slots' host-key array (world->slot_keys), all zero, when it
 * does not exist yet; nonzero, and the world unchanged, when out of
 * memory. */
int reserve_slot_keys(throng_world *w);
/* Gives the world its slots' navigation state and arrival list
 * (internal.h: slot_nav), zeroed, when it has none; grown with the slots
 * from then on. Nonzero, the world unchanged, when out of memory. */
int world_enable_nav_state(throng_world *w);

/* Fills `out` with the addresses of the 4-byte column pointers a step must
 * permute (floats, then integers, the slot column last) and returns how
 * many. */
int world_columns4(throng_world *world, void **out[COLUMN4_MAX]);

/* Row `row` of the column with bit `bit` was just written: keeps the bit
 * only while the row equals the others. */
void world_uniform_note(throng_world *world, uint32_t bit, uint32_t row);

/* Sets every uniform bit from the columns' contents (after a load); the
 * step does the same for the columns marked in world->uniform_check. */
void world_uniform_scan(throng_world *world);

/* Looks for a NaN or an infinity in the world's float columns (behaviour
 * state included) in one pass: returns 1 and the first one's column name,
 * dense row and value, or 0 when every value is finite. Checked calls and steps
 * never store one; a host writing through the column pointers can. */
int world_non_finite(const throng_world *world, const char **out_column,
                     uint32_t *out_row, float *out_value);

/* Allocates the behaviour-state columns when they do not exist yet;
 * nonzero when out of memory (the world is unchanged). */
int world_enable_behaviour_state(throng_world *world);

/* Readies a step's scratch after its grid build: points the force
 * columns (steer_x, steer_y, steer_z) at spare buffers, and zeroes rows
 * [count, count + COLUMN_PAD) of every column and of the force columns. */
void world_zero_tails(throng_world *world);

/* A column of `capacity` (+ COLUMN_PAD) elements, not written, and its
 * free. */
void *column_alloc(const throng_world *world, uint32_t capacity, size_t elem);
void column_free(const throng_world *world, void *ptr, uint32_t capacity,
                 size_t elem);

/* The UNIFORM_* bit of float column k (float_columns order) when the
 * world holds it as a single row (SINGLE_COLUMNS, internal.h), else 0. */
uint32_t float_column_single(const throng_world *world, int k);

/* The address of the column pointer of a SINGLE_COLUMNS bit. */
float **column_single_ref(throng_world *world, uint32_t bit);

/* Row `row` (below the count, or the count for an agent being added) of
 * the column of SINGLE_COLUMNS bit `bit` is about to take `value`: a
 * column held as a single row gets all its rows first when another row
 * holds a different value. Nonzero, and the world unchanged, when out of
 * memory. Then column_put writes the value (to row 0 of a single row). */
int column_make_room(throng_world *world, uint32_t bit, uint32_t row,
                     float value);
void column_put(throng_world *world, uint32_t bit, uint32_t row, float value);

/* Every column held as a single row gets all its rows (a load writes
 * them all); folding takes the rows away again from the SINGLE_COLUMNS
 * that are uniform (world->uniform must be up to date). Nonzero when out
 * of memory, with every column's rows intact (some may be folded). */
int world_unfold_columns(throng_world *world);
int world_fold_columns(throng_world *world);

#endif /* THRONG_COLUMNS_H */
