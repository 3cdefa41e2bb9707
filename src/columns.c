/* SPDX-License-Identifier: MIT */
/*
 * The agents' structure-of-arrays store: the columns and the slot table,
 * their growth, the tails kernels may read, and the tracking of columns
 * whose rows all hold one value.
 */
#include "internal.h"
#include "core.h"
#include "columns.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detmath.h"
#include "parallel.h"

/* Columns start with room for this many agents. */
#define MIN_CAPACITY 64u

void *column_alloc(const throng_world *w, uint32_t capacity, size_t elem) {
    /* Not written: rows are written when agents are added, and the tail a
     * vector load may reach is zeroed before each step (internal.h). */
    void *column = world_alloc(w, ((size_t)capacity + COLUMN_PAD) * elem);
    INVARIANT((uintptr_t)column % THRONG_ALIGN == 0,
              "a column starts on a cache line");
    return column;
}

void column_free(const throng_world *w, void *ptr, uint32_t capacity,
                 size_t elem) {
    world_free(w, ptr, ((size_t)capacity + COLUMN_PAD) * elem);
}

/* ------------------------------------------------------------------------ */
/* Columns                                                                  */
/* ------------------------------------------------------------------------ */

/* The float columns of a world, in a fixed order, and its 4-byte integer
 * columns (slot last); an entry whose pointer is NULL is absent. */
void float_columns(agent_columns *c, float **out[FLOAT_COLUMNS]) {
    float **all[FLOAT_COLUMNS] = {
        &c->px,     &c->py,          &c->pz,   &c->vx,        &c->vy,
        &c->vz,     &c->fx,          &c->fy,   &c->fz,        &c->ux,
        &c->uy,     &c->uz,          &c->mass, &c->max_force, &c->max_speed,
        &c->radius, &c->wander_rate, &c->tx,   &c->ty,        &c->tz,
        &c->wx,     &c->wy,          &c->wz
    };
    memcpy(out, all, sizeof all);
}

/* The UNIFORM_* bit of float column k (float_columns order) when the
 * world holds that column as a single row, else 0. */
uint32_t float_column_single(const throng_world *w, int k) {
    static const uint32_t bits[FLOAT_COLUMNS] = {
        [12] = UNIFORM_MASS,
        [13] = UNIFORM_MAX_FORCE,
        [14] = UNIFORM_MAX_SPEED,
        [15] = UNIFORM_RADIUS,
    };
    return bits[k] & w->single;
}

/* The rows a column of capacity `cap` has: 0 (COLUMN_PAD elements, row 0
 * among them) for one held as a single row. */
static uint32_t column_rows(const throng_world *w, int k, uint32_t cap) {
    return float_column_single(w, k) ? 0u : cap;
}

/* Their names, in the same order, for sentences. */
static const char *const float_column_names[FLOAT_COLUMNS] = {
    "px",          "py", "pz", "vx", "vy",   "vz",        "fx",        "fy",
    "fz",          "ux", "uy", "uz", "mass", "max_force", "max_speed", "radius",
    "wander_rate", "tx", "ty", "tz", "wx",   "wy",        "wz"
};

/* Rows scanned per block: the block's test vectorises (an OR of masks,
 * no early exit), and only a block with a bad value is looked at again. */
#define FINITE_SCAN_BLOCK 4096u

int world_non_finite(const throng_world *cw, const char **out_column,
                     uint32_t *out_row, float *out_value) {
    throng_world *w = (throng_world *)(uintptr_t)cw;
    float **cols[FLOAT_COLUMNS];
    float_columns(&w->col, cols);
    for (int k = 0; k < FLOAT_COLUMNS; k++) {
        const float *x = *cols[k];
        if (!x)
            continue;
        const uint32_t rows =
            float_column_single(w, k) && w->count ? 1u : w->count;
        for (uint32_t b = 0; b < rows; b += FINITE_SCAN_BLOCK) {
            uint32_t e =
                rows - b < FINITE_SCAN_BLOCK ? rows : b + FINITE_SCAN_BLOCK;
            uint32_t bad = 0;
            for (uint32_t i = b; i < e; i++) {
                uint32_t bits;
                memcpy(&bits, &x[i], sizeof bits);
                bad |= (bits & 0x7F800000u) == 0x7F800000u;
            }
            if (!bad)
                continue;
            for (uint32_t i = b; i < e; i++)
                if (!is_finite_float(x[i])) {
                    *out_column = float_column_names[k];
                    *out_row = i;
                    *out_value = x[i];
                    return 1;
                }
        }
    }
    return 0;
}

void u32_columns(agent_columns *c, uint32_t **out[U32_COLUMN_COUNT]) {
    uint32_t **all[U32_COLUMN_COUNT] = { &c->target_slot, &c->target_gen,
                                         &c->progress, &c->group, &c->slot };
    memcpy(out, all, sizeof all);
}

/* Float column k exists in a world of `dims` dimensions, with or without
 * behaviour state. */
int column_present(int dims, int state, int k) {
    /* pz, vz, fz and the up vector exist only in 3D; so do tz, wy, wz. */
    int three_only = k == 2 || k == 5 || k == 8 || k == 9 || k == 10 ||
                     k == 11 || k == 19 || k == 21 || k == 22;
    if (three_only && dims != 3)
        return 0;
    return k < 17 || state;
}

int u32_present(int state, int k) {
    return k >= 3 || state;
}

/* The column of a UNIFORM_* bit (bit index k), as 4-byte words. */
static void *uniform_column(const agent_columns *c, int k) {
    void *all[] = { c->mass,        c->max_force, c->max_speed, c->radius,
                    c->group,       c->tx,        c->ty,        c->tz,
                    c->target_slot, c->target_gen };
    return all[k];
}

/* The UNIFORM_* bit of a column, or 0 for a column a step may change. */
static uint32_t uniform_bit(const agent_columns *c, const void *column) {
    for (int k = 0; k < UNIFORM_COLUMNS; k++)
        if (column && uniform_column(c, k) == column)
            return 1u << k;
    return 0;
}

void world_uniform_note(throng_world *w, uint32_t bit, uint32_t row) {
    int k = __builtin_ctz(bit);
    const unsigned char *col = uniform_column(&w->col, k);
    /* A single row was written only with the value it holds, or made
     * whole first (column_make_room). */
    if (!col || w->count < 2 || (w->single & bit))
        return;
    if (!(w->uniform & bit)) {
        /* This write may have made the rows equal again (an agent added
         * with defaults, then given the crowd's target): the next step
         * looks. */
        w->uniform_check |= bit;
        return;
    }
    uint32_t other = row == 0 ? 1 : 0;
    /* The column was uniform before this write: one other row stands
     * for all of them. Bits, not values: -0 and 0 differ. */
    if (memcmp(col + 4u * row, col + 4u * other, 4) != 0)
        w->uniform &= ~bit;
}

/* Whether every row of UNIFORM_* column k holds the same bits; stops at
 * the first row that differs, which in a varied column comes early. */
static int uniform_rows(const throng_world *w, int k) {
    const unsigned char *col = uniform_column(&w->col, k);
    if (!col || (w->single & (1u << k)))
        return 1;
    for (uint32_t i = 1; i < w->count; i++)
        if (memcmp(col + 4u * i, col, 4) != 0)
            return 0;
    return 1;
}

void world_uniform_scan(throng_world *w) {
    w->uniform = 0;
    w->uniform_check = 0;
    for (int k = 0; k < UNIFORM_COLUMNS; k++)
        if (uniform_rows(w, k))
            w->uniform |= 1u << k;
}

int world_columns4(throng_world *w, void **out[COLUMN4_MAX]) {
    for (int k = 0; k < UNIFORM_COLUMNS; k++) {
        uint32_t bit = 1u << k;
        if (!(w->uniform_check & bit))
            continue;
        if (uniform_rows(w, k))
            w->uniform |= bit;
        else
            w->uniform &= ~bit;
    }
    w->uniform_check = 0;
#ifdef THRONG_CHECKS
    for (int k = 0; k < UNIFORM_COLUMNS; k++)
        INVARIANT(!(w->uniform & (1u << k)) || uniform_rows(w, k),
                  "a column marked uniform holds one value in every row");
#endif
    float **cols[FLOAT_COLUMNS];
    float_columns(&w->col, cols);
    int n = 0;
    for (int k = 0; k < FLOAT_COLUMNS; k++) {
        /* Until some group has wandered, every turn rate is 0, and
         * permuting zeros changes nothing. */
        if (cols[k] == &w->col.wander_rate && !w->wander_used)
            continue;
        if (*cols[k] && !(w->uniform & uniform_bit(&w->col, *cols[k])))
            out[n++] = (void **)cols[k];
    }
    uint32_t **ints[U32_COLUMN_COUNT];
    u32_columns(&w->col, ints);
    for (int k = 0; k < U32_COLUMN_COUNT; k++)
        if (*ints[k] && !(w->uniform & uniform_bit(&w->col, *ints[k])))
            out[n++] = (void **)ints[k];
    INVARIANT(n <= COLUMN4_MAX, "the permuted columns fit their list");
    return n;
}

void free_columns(throng_world *w, agent_columns *c, uint32_t cap) {
    float **cols[FLOAT_COLUMNS];
    float_columns(c, cols);
    for (int k = 0; k < FLOAT_COLUMNS; k++) {
        column_free(w, *cols[k], column_rows(w, k, cap), sizeof(float));
        *cols[k] = NULL;
    }
    uint32_t **ints[U32_COLUMN_COUNT];
    u32_columns(c, ints);
    for (int k = 0; k < U32_COLUMN_COUNT; k++) {
        column_free(w, *ints[k], cap, sizeof(uint32_t));
        *ints[k] = NULL;
    }
}

/* Allocates, zeroed, every column of `c` that a world with this state
 * has and `c` lacks; all or nothing (on failure, what it allocated is
 * freed again). */
int alloc_columns(throng_world *w, agent_columns *c, uint32_t cap, int state) {
    float **cols[FLOAT_COLUMNS];
    float_columns(c, cols);
    uint32_t **ints[U32_COLUMN_COUNT];
    u32_columns(c, ints);
    void **made[COLUMN4_MAX];
    uint32_t made_rows[COLUMN4_MAX];
    int n = 0, ok = 1;
    for (int k = 0; k < FLOAT_COLUMNS && ok; k++) {
        if (*cols[k] || !column_present(w->dims, state, k))
            continue;
        made_rows[n] = column_rows(w, k, cap);
        *cols[k] = column_alloc(w, made_rows[n], sizeof(float));
        ok = *cols[k] != NULL;
        if (ok)
            made[n++] = (void **)cols[k];
    }
    for (int k = 0; k < U32_COLUMN_COUNT && ok; k++) {
        if (*ints[k] || !u32_present(state, k))
            continue;
        made_rows[n] = cap;
        *ints[k] = column_alloc(w, cap, sizeof(uint32_t));
        ok = *ints[k] != NULL;
        if (ok)
            made[n++] = (void **)ints[k];
    }
    if (!ok)
        for (int k = 0; k < n; k++) {
            column_free(w, *made[k], made_rows[k], 4u);
            *made[k] = NULL;
        }
    return !ok;
}

int world_enable_behaviour_state(throng_world *w) {
    if (w->behaviour_state)
        return 0;
    agent_columns before = w->col;
    if (w->capacity && alloc_columns(w, &w->col, w->capacity, 1))
        return 1;
    /* The live rows of the new columns start at zero (no target, no
     * progress, wander straight ahead); the rest is written by adds. */
    float **cols[FLOAT_COLUMNS], **old[FLOAT_COLUMNS];
    float_columns(&w->col, cols);
    float_columns(&before, old);
    for (int k = 0; k < FLOAT_COLUMNS; k++)
        if (*cols[k] && !*old[k] && w->count)
            memset(*cols[k], 0, (size_t)w->count * sizeof(float));
    uint32_t **ints[U32_COLUMN_COUNT], **iold[U32_COLUMN_COUNT];
    u32_columns(&w->col, ints);
    u32_columns(&before, iold);
    for (int k = 0; k < U32_COLUMN_COUNT; k++)
        if (*ints[k] && !*iold[k] && w->count)
            memset(*ints[k], 0, (size_t)w->count * sizeof(uint32_t));
    w->behaviour_state = 1;
    return 0;
}

/* The spares are scratch from the end of the grid build, which gathers
 * the columns through them, to the start of the next build; the steering
 * force lives in that interval only (the behaviours write it, the
 * integration reads it), so it borrows the first spares rather than
 * holding `dims` columns of its own. A build trades spares with columns,
 * so the force is pointed at whatever the spares are after each one. */
_Static_assert(GRID_PERMUTE_BATCH >= 3,
               "the steering force borrows three spare buffers in 3D");

static void world_steer_scratch(throng_world *w) {
    w->steer_x = w->spare4[0];
    w->steer_y = w->spare4[1];
    w->steer_z = w->dims == 3 ? w->spare4[2] : NULL;
}

void world_zero_tails(throng_world *w) {
    world_steer_scratch(w);
    const size_t bytes = COLUMN_PAD * 4u;
    float **cols[FLOAT_COLUMNS];
    float_columns(&w->col, cols);
    for (int k = 0; k < FLOAT_COLUMNS; k++)
        if (*cols[k] && !float_column_single(w, k))
            memset(*cols[k] + w->count, 0, bytes);
    uint32_t **ints[U32_COLUMN_COUNT];
    u32_columns(&w->col, ints);
    for (int k = 0; k < U32_COLUMN_COUNT; k++)
        if (*ints[k])
            memset(*ints[k] + w->count, 0, bytes);
    float *steer[3] = { w->steer_x, w->steer_y, w->steer_z };
    for (int a = 0; a < 3; a++)
        if (steer[a])
            memset(steer[a] + w->count, 0, bytes);
}

/* Grows every column to hold `want` agents; all or nothing. */
int reserve_columns(throng_world *w, uint32_t want) {
    if (want <= w->capacity)
        return 0;
    /* The first reservation is exact (initial_capacity means what it
     * says); later growth doubles, for amortised O(1) adds. */
    uint32_t cap =
        w->capacity ? w->capacity : (want > MIN_CAPACITY ? want : MIN_CAPACITY);
    while (cap < want)
        cap = cap > THRONG_MAX_AGENTS / 2 ? THRONG_MAX_AGENTS : cap * 2;
    agent_columns n;
    memset(&n, 0, sizeof n);
    int ok = !alloc_columns(w, &n, cap, w->behaviour_state);
    void *spare4[GRID_PERMUTE_BATCH] = { NULL };
    for (int b = 0; b < GRID_PERMUTE_BATCH && ok; b++) {
        spare4[b] = column_alloc(w, cap, 4u);
        ok = spare4[b] != NULL;
    }
    if (!ok) {
        free_columns(w, &n, cap);
        for (int b = 0; b < GRID_PERMUTE_BATCH; b++)
            column_free(w, spare4[b], cap, 4u);
        return 1;
    }
    float **from[FLOAT_COLUMNS], **to[FLOAT_COLUMNS];
    float_columns(&w->col, from);
    float_columns(&n, to);
    for (int k = 0; k < FLOAT_COLUMNS; k++) {
        if (*from[k] && float_column_single(w, k)) {
            /* A single row does not grow: it moves as it is. */
            column_free(w, *to[k], 0, sizeof(float));
            *to[k] = *from[k];
            *from[k] = NULL;
        } else if (*from[k] && w->count) {
            memcpy(*to[k], *from[k], (size_t)w->count * sizeof(float));
        }
    }
    uint32_t **ifrom[U32_COLUMN_COUNT], **ito[U32_COLUMN_COUNT];
    u32_columns(&w->col, ifrom);
    u32_columns(&n, ito);
    for (int k = 0; k < U32_COLUMN_COUNT; k++)
        if (*ifrom[k] && w->count)
            memcpy(*ito[k], *ifrom[k], (size_t)w->count * sizeof(uint32_t));
    free_columns(w, &w->col, w->capacity);
    for (int b = 0; b < GRID_PERMUTE_BATCH; b++) {
        column_free(w, w->spare4[b], w->capacity, 4u);
        w->spare4[b] = spare4[b];
    }
    w->col = n;
    w->capacity = cap;
    world_steer_scratch(w);
    return 0;
}

int reserve_slots(throng_world *w, uint32_t want) {
    if (want <= w->slot_capacity)
        return 0;
    uint32_t cap = w->slot_capacity
                       ? w->slot_capacity
                       : (want > MIN_CAPACITY ? want : MIN_CAPACITY);
    while (cap < want)
        cap = cap > THRONG_MAX_AGENTS / 2 ? THRONG_MAX_AGENTS : cap * 2;
    slot_entry *slots = world_alloc(w, (size_t)cap * sizeof(slot_entry));
    uint32_t *dense = world_alloc(w, (size_t)cap * sizeof(uint32_t));
    uint32_t *free_slots = world_alloc(w, (size_t)cap * sizeof(uint32_t));
    uint64_t *const old_keys = w->slot_keys;
    uint64_t *keys =
        old_keys ? world_alloc(w, (size_t)cap * sizeof(uint64_t)) : NULL;
    slot_nav *const old_nav = w->slot_nav;
    slot_nav *nav =
        old_nav ? world_alloc(w, (size_t)cap * sizeof(slot_nav)) : NULL;
    throng_nav_arrival *arrivals =
        old_nav ? world_alloc(w, (size_t)cap * sizeof(throng_nav_arrival))
                : NULL;
    if (!slots || !dense || !free_slots || (old_keys && !keys) ||
        (old_nav && (!nav || !arrivals))) {
        world_free(w, slots, (size_t)cap * sizeof(slot_entry));
        world_free(w, dense, (size_t)cap * sizeof(uint32_t));
        world_free(w, free_slots, (size_t)cap * sizeof(uint32_t));
        world_free(w, keys, (size_t)cap * sizeof(uint64_t));
        world_free(w, nav, (size_t)cap * sizeof(slot_nav));
        world_free(w, arrivals, (size_t)cap * sizeof(throng_nav_arrival));
        return 1;
    }
    if (old_nav) {
        memset(nav, 0, (size_t)cap * sizeof(slot_nav));
        memcpy(nav, old_nav, (size_t)w->slot_count * sizeof(slot_nav));
        memcpy(arrivals, w->nav_arrivals,
               (size_t)w->nav_arrival_count * sizeof(throng_nav_arrival));
        world_free(w, old_nav, (size_t)w->slot_capacity * sizeof(slot_nav));
        world_free(w, w->nav_arrivals,
                   (size_t)w->slot_capacity * sizeof(throng_nav_arrival));
        w->slot_nav = nav;
        w->nav_arrivals = arrivals;
    }
    if (old_keys && keys) {
        memset(keys, 0, (size_t)cap * sizeof(uint64_t));
        memcpy(keys, old_keys, (size_t)w->slot_count * sizeof(uint64_t));
        world_free(w, old_keys, (size_t)w->slot_capacity * sizeof(uint64_t));
        w->slot_keys = keys;
    }
    if (w->slot_count) {
        memcpy(slots, w->slots, (size_t)w->slot_count * sizeof(slot_entry));
        memcpy(dense, w->slot_dense, (size_t)w->slot_count * sizeof(uint32_t));
    }
    if (w->free_count)
        memcpy(free_slots, w->free_slots,
               (size_t)w->free_count * sizeof(uint32_t));
    world_free(w, w->slots, (size_t)w->slot_capacity * sizeof(slot_entry));
    world_free(w, w->slot_dense, (size_t)w->slot_capacity * sizeof(uint32_t));
    world_free(w, w->free_slots, (size_t)w->slot_capacity * sizeof(uint32_t));
    w->slots = slots;
    w->slot_dense = dense;
    w->free_slots = free_slots;
    w->slot_capacity = cap;
    return 0;
}

int reserve_slot_keys(throng_world *w) {
    if (w->slot_keys || !w->slot_capacity)
        return 0;
    uint64_t *keys = world_alloc(w, (size_t)w->slot_capacity * sizeof *keys);
    if (!keys)
        return 1;
    memset(keys, 0, (size_t)w->slot_capacity * sizeof *keys);
    w->slot_keys = keys;
    return 0;
}

int world_enable_nav_state(throng_world *w) {
    if (w->slot_nav)
        return 0;
    /* Room for a few slots even before the first agent, so the state
     * exists once asked for. */
    if (!w->slot_capacity && reserve_slots(w, 1u))
        return 1;
    const size_t cap = w->slot_capacity;
    slot_nav *nav = world_alloc(w, cap * sizeof *nav);
    throng_nav_arrival *arrivals =
        world_alloc(w, cap * sizeof(throng_nav_arrival));
    if (!nav || !arrivals) {
        world_free(w, nav, cap * sizeof *nav);
        world_free(w, arrivals, cap * sizeof(throng_nav_arrival));
        return 1;
    }
    memset(nav, 0, cap * sizeof *nav);
    w->slot_nav = nav;
    w->nav_arrivals = arrivals;
    w->nav_arrival_count = 0u;
    return 0;
}

/* The float column (float_columns order) of a SINGLE_COLUMNS bit. */
static int single_float_index(uint32_t bit) {
    return bit == UNIFORM_MASS        ? 12
           : bit == UNIFORM_MAX_FORCE ? 13
           : bit == UNIFORM_MAX_SPEED ? 14
                                      : 15;
}

/* Gives the column held as a single row with bit `bit` all its rows, each
 * the single row's value; nonzero, and the world unchanged, when out of
 * memory. */
static int column_unfold(throng_world *w, uint32_t bit) {
    float **cols[FLOAT_COLUMNS];
    float_columns(&w->col, cols);
    float **col = cols[single_float_index(bit)];
    float *whole = column_alloc(w, w->capacity, sizeof(float));
    if (!whole)
        return 1;
    const float value = (*col)[0];
    for (uint32_t i = 0; i < w->count; i++)
        whole[i] = value;
    column_free(w, *col, 0, sizeof(float));
    *col = whole;
    w->single &= ~bit;
    return 0;
}

int column_make_room(throng_world *w, uint32_t bit, uint32_t row, float value) {
    if (!(w->single & bit) || !*column_single_ref(w, bit))
        return 0;
    /* Rows other than `row` hold the single value: a new row below the
     * count, or any row but `row` of the others. */
    const uint32_t others = row < w->count ? w->count - 1u : w->count;
    uint32_t had, now;
    memcpy(&had, *column_single_ref(w, bit), sizeof had);
    memcpy(&now, &value, sizeof now);
    if (others == 0 || had == now)
        return 0;
    return column_unfold(w, bit);
}

void column_put(throng_world *w, uint32_t bit, uint32_t row, float value) {
    float *col = *column_single_ref(w, bit);
    col[(w->single & bit) ? 0u : row] = value;
}

float **column_single_ref(throng_world *w, uint32_t bit) {
    float **cols[FLOAT_COLUMNS];
    float_columns(&w->col, cols);
    return cols[single_float_index(bit)];
}

int world_unfold_columns(throng_world *w) {
    for (uint32_t bits = w->single; bits; bits &= bits - 1u) {
        uint32_t bit = bits & (0u - bits);
        if (*column_single_ref(w, bit) && column_unfold(w, bit))
            return 1;
    }
    return 0;
}

int world_fold_columns(throng_world *w) {
    for (uint32_t bits = SINGLE_COLUMNS & w->uniform & ~w->single; bits;
         bits &= bits - 1u) {
        uint32_t bit = bits & (0u - bits);
        float **col = column_single_ref(w, bit);
        if (!*col)
            continue;
        float *one = column_alloc(w, 0, sizeof(float));
        if (!one)
            return 1;
        one[0] = w->count ? (*col)[0] : 0.0f;
        column_free(w, *col, w->capacity, sizeof(float));
        *col = one;
        w->single |= bit;
    }
    return 0;
}
