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

#endif /* THRONG_COLUMNS_H */
