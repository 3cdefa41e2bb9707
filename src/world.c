/*
 * Worlds, agents, handles and groups: everything but the step.
 *
 * Every public entry point here validates all of its arguments before it
 * changes anything, and acquires every resource it may need (column growth,
 * slot table growth, hash entries) before it commits, so a refused or failed
 * call leaves the world exactly as it was. Allocation goes through the
 * world's allocator, including uthash's, whose exit() on out-of-memory is
 * replaced by a flag the caller turns into THRONG_ERR_OUT_OF_MEMORY.
 */
#include "internal.h"
#include "busy.h"
#include "geometry.h"
#include "behaviour.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detmath.h"
#include "parallel.h"

/* uthash allocates through the world named `hash_world` in the calling
 * scope and reports a failed allocation by setting `hash_oom` there. */
#define HASH_NONFATAL_OOM 1
#define uthash_malloc(sz) world_alloc(hash_world, (sz))
#define uthash_free(ptr, sz) world_free(hash_world, (ptr), (sz))
#define uthash_nonfatal_oom(obj) (hash_oom = 1)
#include <uthash.h>

struct key_entry {
    uint64_t key;
    uint32_t slot;
    UT_hash_handle hh;
};

struct name_entry {
    char name[64];
    uint32_t group;
    UT_hash_handle hh;
};

/* Columns start with room for this many agents. */
#define MIN_CAPACITY 64u

/* ------------------------------------------------------------------------ */
/* Memory and errors                                                        */
/* ------------------------------------------------------------------------ */

size_t size_mul(size_t count, size_t elem) {
    if (elem != 0 && count > SIZE_MAX / elem)
        return 0;
    return count * elem;
}

void *world_alloc(const throng_world *w, size_t size) {
    if (size == 0)
        return NULL;
    /* Round up so the block can be handed to aligned_alloc as is. */
    if (size > SIZE_MAX - THRONG_ALIGN)
        return NULL;
    size_t rounded = (size + THRONG_ALIGN - 1) & ~(size_t)(THRONG_ALIGN - 1);
    if (w->allocator.alloc)
        return w->allocator.alloc(rounded, THRONG_ALIGN, w->allocator.user);
    return aligned_alloc(THRONG_ALIGN, rounded);
}

void world_free(const throng_world *w, void *ptr, size_t size) {
    if (!ptr)
        return;
    size_t rounded = (size + THRONG_ALIGN - 1) & ~(size_t)(THRONG_ALIGN - 1);
    if (w->allocator.free)
        w->allocator.free(ptr, rounded, w->allocator.user);
    else
        free(ptr);
}

void *column_alloc(const throng_world *w, uint32_t capacity, size_t elem) {
    /* Not written: rows are written when agents are added, and the tail a
     * vector load may reach is zeroed before each step (internal.h). */
    return world_alloc(w, ((size_t)capacity + COLUMN_PAD) * elem);
}

void column_free(const throng_world *w, void *ptr, uint32_t capacity,
                 size_t elem) {
    world_free(w, ptr, ((size_t)capacity + COLUMN_PAD) * elem);
}

throng_status check_length_field(throng_world *w, const char *fn,
                                 const char *field, float x, int zero_ok) {
    if (!is_finite_float(x))
        return world_fail(w, THRONG_ERR_NOT_FINITE, "%s: %s is not finite",
                          fn, field);
    if ((zero_ok && x == 0.0f) || length_in_range(x))
        return THRONG_OK;
    return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                      "%s: %s must be %sin [%g, %g] metres (THRONG_MIN_LENGTH "
                      ".. THRONG_MAX_LENGTH), got %g",
                      fn, field, zero_ok ? "0 or " : "",
                      (double)THRONG_MIN_LENGTH, (double)THRONG_MAX_LENGTH,
                      (double)x);
}

/* Waits for, then holds, the world's shared_write lock. Only readers
 * ever contend for it (a writer has the world to itself), and each holds
 * it for a short loop that calls nothing outside the library. */
static void shared_write_lock(throng_world *w) {
    while (atomic_exchange_explicit(&w->shared_write, 1u,
                                    memory_order_acquire))
        ;
}

static void shared_write_unlock(throng_world *w) {
    atomic_store_explicit(&w->shared_write, 0u, memory_order_release);
}

throng_status world_fail(throng_world *w, throng_status status,
                         const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    shared_write_lock(w);
    vsnprintf(w->error, sizeof w->error, fmt, ap);
    shared_write_unlock(w);
    va_end(ap);
    return status;
}

int world_thread_count(const throng_world *w) {
    if (w->enqueue_task)
        return (int)w->worker_count;
    int t = w->threads > 0 ? w->threads : parallel_default_threads();
    return t > THRONG_MAX_THREADS ? THRONG_MAX_THREADS : t;
}

parallel_sched world_scheduler(throng_world *w) {
    parallel_sched s = {.threads = world_thread_count(w),
                        .enqueue_task = w->enqueue_task,
                        .finish_task = w->finish_task,
                        .user_context = w->task_context,
                        .tuner = &w->tuner};
    return s;
}

/* The task hooks' fields as a whole: both hooks and 1 .. max workers, or
 * neither and 0 (THRONG_OK), else the status that refuses them. */
static throng_status task_hooks_check(throng_enqueue_task_fn *enqueue_task,
                                      throng_finish_task_fn *finish_task,
                                      uint32_t worker_count) {
    if ((enqueue_task == NULL) != (finish_task == NULL))
        return THRONG_ERR_NULL;
    if (enqueue_task ? worker_count < 1u || worker_count > THRONG_MAX_WORKERS
                     : worker_count != 0u)
        return THRONG_ERR_OUT_OF_RANGE;
    return THRONG_OK;
}

const char *throng_status_string(throng_status status) {
    switch (status) {
    case THRONG_OK: return "ok";
    case THRONG_ERR_NULL: return "invalid argument: a required pointer is NULL";
    case THRONG_ERR_NOT_FINITE: return "invalid argument: a number is NaN or infinite";
    case THRONG_ERR_OUT_OF_RANGE: return "invalid argument: a value is out of its range";
    case THRONG_ERR_STALE_HANDLE: return "stale handle: no live agent or object of this world has it";
    case THRONG_ERR_UNKNOWN_GROUP: return "unknown group";
    case THRONG_ERR_DUPLICATE_KEY: return "duplicate key: the key or name is already in use";
    case THRONG_ERR_NOT_FOUND: return "not found";
    case THRONG_ERR_OUT_OF_MEMORY: return "out of memory";
    case THRONG_ERR_CAPACITY: return "capacity reached";
    case THRONG_ERR_BAD_SNAPSHOT: return "bad snapshot: truncated, corrupted or inconsistent";
    case THRONG_ERR_VERSION: return "snapshot version is newer than this library reads";
    case THRONG_ERR_IO: return "input/output error";
    case THRONG_ERR_UNSUPPORTED: return "unsupported: this CPU or build does not offer what was asked for";
    case THRONG_ERR_BUSY: return "busy: another call on this world is running";
    }
    return "unknown status";
}

/* ------------------------------------------------------------------------ */
/* Definitions and their defaults                                           */
/* ------------------------------------------------------------------------ */

#define TWO_PI_F 6.28318548f /* 2 pi rounded up to float */

throng_world_def throng_world_def_default(void) {
    throng_world_def d;
    memset(&d, 0, sizeof d);
    d.dimensions = 2;
    d.boundary = THRONG_BOUNDARY_UNBOUNDED;
    d.box_size[0] = d.box_size[1] = d.box_size[2] = 100.0f;
    d.neighbour_radius = 1.0f;
    d.cell_size = 0.0f;
    d.threads = 0;
    d.seed = 1;
    d.initial_capacity = 0;
    d.max_dt = THRONG_DEFAULT_MAX_DT;
    d.max_substeps = THRONG_DEFAULT_MAX_SUBSTEPS;
    d.simd = THRONG_SIMD_AUTO;
    return d;
}

throng_agent_def throng_agent_def_default(void) {
    throng_agent_def d;
    memset(&d, 0, sizeof d);
    d.mass = 1.0f;
    d.max_force = 10.0f;
    d.max_speed = 1.0f;
    d.radius = 0.25f;
    return d;
}

throng_flocking throng_flocking_default(void) {
    throng_flocking f;
    memset(&f, 0, sizeof f);
    f.separation_radius = 0.5f;
    f.alignment_radius = 1.0f;
    f.cohesion_radius = 1.0f;
    f.field_of_view = TWO_PI_F;
    f.speed_factor = 1.0f;
    f.separation_mode = THRONG_SEPARATION_FLEE_AVERAGE;
    return f;
}

static throng_wander wander_default(void) {
    throng_wander wd;
    memset(&wd, 0, sizeof wd);
    wd.max_turn_rate = 0.1f * 3.14159265f;
    wd.max_turn_change = 0.01f * 3.14159265f;
    wd.speed_factor = 1.0f;
    return wd;
}

throng_group_def throng_group_def_default(void) {
    throng_group_def d;
    memset(&d, 0, sizeof d);
    d.flocking = throng_flocking_default();
    d.wander = wander_default();
    d.combine = THRONG_COMBINE_WEIGHTED_AVERAGE;
    return d;
}

/* ------------------------------------------------------------------------ */
/* Columns                                                                  */
/* ------------------------------------------------------------------------ */

/* The float columns of a world, in a fixed order, and its 4-byte integer
 * columns (slot last); an entry whose pointer is NULL is absent. */
#define FLOAT_COLUMNS FLOAT_COLUMN_COUNT
static void float_columns(agent_columns *c, float **out[FLOAT_COLUMNS]) {
    float **all[FLOAT_COLUMNS] = {
        &c->px,        &c->py,        &c->pz,     &c->vx,     &c->vy,
        &c->vz,        &c->fx,        &c->fy,     &c->fz,     &c->ux,
        &c->uy,        &c->uz,        &c->mass,   &c->max_force,
        &c->max_speed, &c->radius,    &c->wander_rate,
        &c->tx,        &c->ty,        &c->tz,     &c->wx,     &c->wy,
        &c->wz};
    memcpy(out, all, sizeof all);
}

/* Their names, in the same order, for sentences. */
static const char *const float_column_names[FLOAT_COLUMNS] = {
    "px", "py", "pz", "vx", "vy", "vz", "fx", "fy", "fz", "ux", "uy", "uz",
    "mass", "max_force", "max_speed", "radius", "wander_rate", "tx", "ty",
    "tz", "wx", "wy", "wz"};

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
        for (uint32_t b = 0; b < w->count; b += FINITE_SCAN_BLOCK) {
            uint32_t e = w->count - b < FINITE_SCAN_BLOCK
                             ? w->count
                             : b + FINITE_SCAN_BLOCK;
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

static void u32_columns(agent_columns *c, uint32_t **out[U32_COLUMN_COUNT]) {
    uint32_t **all[U32_COLUMN_COUNT] = {&c->target_slot, &c->target_gen,
                                        &c->progress, &c->group, &c->slot};
    memcpy(out, all, sizeof all);
}

/* Float column k exists in a world of `dims` dimensions, with or without
 * behaviour state. */
static int column_present(int dims, int state, int k) {
    /* pz, vz, fz and the up vector exist only in 3D; so do tz, wy, wz. */
    int three_only = k == 2 || k == 5 || k == 8 || k == 9 || k == 10 ||
                     k == 11 || k == 19 || k == 21 || k == 22;
    if (three_only && dims != 3)
        return 0;
    return k < 17 || state;
}

static int u32_present(int state, int k) { return k >= 3 || state; }

/* The column of a UNIFORM_* bit (bit index k), as 4-byte words. */
static void *uniform_column(const agent_columns *c, int k) {
    void *all[] = {c->mass, c->max_force,   c->max_speed,  c->radius,
                   c->group, c->tx,         c->ty,         c->tz,
                   c->target_slot,          c->target_gen};
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
    if (!col || w->count < 2)
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
    if (!col)
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
#ifdef THRONG_SELF_CHECK
    for (int k = 0; k < UNIFORM_COLUMNS; k++)
        if ((w->uniform & (1u << k)) && !uniform_rows(w, k))
            __builtin_trap();
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
    return n;
}

static void free_columns(throng_world *w, agent_columns *c, uint32_t cap) {
    float **cols[FLOAT_COLUMNS];
    float_columns(c, cols);
    for (int k = 0; k < FLOAT_COLUMNS; k++) {
        column_free(w, *cols[k], cap, sizeof(float));
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
static int alloc_columns(throng_world *w, agent_columns *c, uint32_t cap,
                         int state) {
    float **cols[FLOAT_COLUMNS];
    float_columns(c, cols);
    uint32_t **ints[U32_COLUMN_COUNT];
    u32_columns(c, ints);
    void **made[COLUMN4_MAX];
    int n = 0, ok = 1;
    for (int k = 0; k < FLOAT_COLUMNS && ok; k++) {
        if (*cols[k] || !column_present(w->dims, state, k))
            continue;
        *cols[k] = column_alloc(w, cap, sizeof(float));
        ok = *cols[k] != NULL;
        if (ok)
            made[n++] = (void **)cols[k];
    }
    for (int k = 0; k < U32_COLUMN_COUNT && ok; k++) {
        if (*ints[k] || !u32_present(state, k))
            continue;
        *ints[k] = column_alloc(w, cap, sizeof(uint32_t));
        ok = *ints[k] != NULL;
        if (ok)
            made[n++] = (void **)ints[k];
    }
    if (!ok)
        for (int k = 0; k < n; k++) {
            column_free(w, *made[k], cap, 4u);
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

void world_zero_tails(throng_world *w) {
    const size_t bytes = COLUMN_PAD * 4u;
    float **cols[FLOAT_COLUMNS];
    float_columns(&w->col, cols);
    for (int k = 0; k < FLOAT_COLUMNS; k++)
        if (*cols[k])
            memset(*cols[k] + w->count, 0, bytes);
    uint32_t **ints[U32_COLUMN_COUNT];
    u32_columns(&w->col, ints);
    for (int k = 0; k < U32_COLUMN_COUNT; k++)
        if (*ints[k])
            memset(*ints[k] + w->count, 0, bytes);
    float *steer[3] = {w->steer_x, w->steer_y, w->steer_z};
    for (int a = 0; a < 3; a++)
        if (steer[a])
            memset(steer[a] + w->count, 0, bytes);
}

/* Grows every column to hold `want` agents; all or nothing. */
static int reserve_columns(throng_world *w, uint32_t want) {
    if (want <= w->capacity)
        return 0;
    /* The first reservation is exact (initial_capacity means what it
     * says); later growth doubles, for amortised O(1) adds. */
    uint32_t cap = w->capacity ? w->capacity : (want > MIN_CAPACITY ? want : MIN_CAPACITY);
    while (cap < want)
        cap = cap > THRONG_MAX_AGENTS / 2 ? THRONG_MAX_AGENTS : cap * 2;
    agent_columns n;
    memset(&n, 0, sizeof n);
    int ok = !alloc_columns(w, &n, cap, w->behaviour_state);
    float *steer[3] = {NULL, NULL, NULL};
    for (int a = 0; a < w->dims && ok; a++) {
        steer[a] = column_alloc(w, cap, sizeof(float));
        ok = steer[a] != NULL;
    }
    void *spare4[GRID_PERMUTE_BATCH] = {NULL};
    for (int b = 0; b < GRID_PERMUTE_BATCH && ok; b++) {
        spare4[b] = column_alloc(w, cap, 4u);
        ok = spare4[b] != NULL;
    }
    if (!ok) {
        free_columns(w, &n, cap);
        for (int a = 0; a < 3; a++)
            column_free(w, steer[a], cap, sizeof(float));
        for (int b = 0; b < GRID_PERMUTE_BATCH; b++)
            column_free(w, spare4[b], cap, 4u);
        return 1;
    }
    float **from[FLOAT_COLUMNS], **to[FLOAT_COLUMNS];
    float_columns(&w->col, from);
    float_columns(&n, to);
    for (int k = 0; k < FLOAT_COLUMNS; k++)
        if (*from[k] && w->count)
            memcpy(*to[k], *from[k], (size_t)w->count * sizeof(float));
    uint32_t **ifrom[U32_COLUMN_COUNT], **ito[U32_COLUMN_COUNT];
    u32_columns(&w->col, ifrom);
    u32_columns(&n, ito);
    for (int k = 0; k < U32_COLUMN_COUNT; k++)
        if (*ifrom[k] && w->count)
            memcpy(*ito[k], *ifrom[k], (size_t)w->count * sizeof(uint32_t));
    free_columns(w, &w->col, w->capacity);
    column_free(w, w->steer_x, w->capacity, sizeof(float));
    column_free(w, w->steer_y, w->capacity, sizeof(float));
    column_free(w, w->steer_z, w->capacity, sizeof(float));
    for (int b = 0; b < GRID_PERMUTE_BATCH; b++) {
        column_free(w, w->spare4[b], w->capacity, 4u);
        w->spare4[b] = spare4[b];
    }
    w->col = n;
    w->steer_x = steer[0];
    w->steer_y = steer[1];
    w->steer_z = steer[2];
    w->capacity = cap;
    return 0;
}

static int reserve_slots(throng_world *w, uint32_t want) {
    if (want <= w->slot_capacity)
        return 0;
    uint32_t cap = w->slot_capacity ? w->slot_capacity
                                    : (want > MIN_CAPACITY ? want : MIN_CAPACITY);
    while (cap < want)
        cap = cap > THRONG_MAX_AGENTS / 2 ? THRONG_MAX_AGENTS : cap * 2;
    slot_entry *slots = world_alloc(w, (size_t)cap * sizeof(slot_entry));
    uint32_t *dense = world_alloc(w, (size_t)cap * sizeof(uint32_t));
    uint32_t *free_slots = world_alloc(w, (size_t)cap * sizeof(uint32_t));
    if (!slots || !dense || !free_slots) {
        world_free(w, slots, (size_t)cap * sizeof(slot_entry));
        world_free(w, dense, (size_t)cap * sizeof(uint32_t));
        world_free(w, free_slots, (size_t)cap * sizeof(uint32_t));
        return 1;
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

/* ------------------------------------------------------------------------ */
/* Groups                                                                   */
/* ------------------------------------------------------------------------ */

void group_derive_params(throng_world *w, uint32_t group) {
    const group_record *g = &w->groups[group];
    group_kernel_params *k = &w->group_params[group];
    const throng_flocking *f = &g->flocking;
    memset(k, 0, sizeof *k);
    k->sep_r2 = f->separation_radius * f->separation_radius;
    k->ali_r2 = f->alignment_radius * f->alignment_radius;
    k->coh_r2 = f->cohesion_radius * f->cohesion_radius;
    float ws = f->separation_weight, wa = f->alignment_weight,
          wc = f->cohesion_weight, ww = g->wander.weight;
    for (uint32_t i = 0; i < g->behaviour_count; i++)
        k->list_w[i] = g->behaviours[i].weight;
    if (g->combine == THRONG_COMBINE_WEIGHTED_AVERAGE) {
        /* Seed 000: normalised weights w_i / (w_1 + ... + w_n). */
        float total = ws + wa + wc + ww;
        for (uint32_t i = 0; i < g->behaviour_count; i++)
            total += k->list_w[i];
        if (total > 0.0f) {
            ws /= total;
            wa /= total;
            wc /= total;
            ww /= total;
            for (uint32_t i = 0; i < g->behaviour_count; i++)
                k->list_w[i] /= total;
        } else {
            ws = wa = wc = ww = 0.0f;
            for (uint32_t i = 0; i < g->behaviour_count; i++)
                k->list_w[i] = 0.0f;
        }
    }
    k->sep_w = ws;
    k->ali_w = wa;
    k->coh_w = wc;
    k->wander_w = ww;
    k->wander_rate_max = g->wander.max_turn_rate;
    k->wander_change = g->wander.max_turn_change;
    k->wander_speed_factor = g->wander.speed_factor;
    k->fov_on = f->field_of_view < TWO_PI_F;
    k->cos_half_fov = detmath_cosf(0.5f * f->field_of_view);
    k->speed_factor = f->speed_factor;
    k->sep_inverse = f->separation_mode == THRONG_SEPARATION_INVERSE_DISTANCE;
    k->cap = f->max_neighbours;
    k->any = ws > 0.0f || wa > 0.0f || wc > 0.0f || ww > 0.0f;
    if (ww > 0.0f)
        w->wander_used = 1;
    recipe_derive(w, group);
}

static throng_status check_flocking(throng_world *w, const char *fn,
                                    const throng_flocking *f) {
    const float vals[] = {f->separation_radius, f->separation_weight,
                          f->alignment_radius,  f->alignment_weight,
                          f->cohesion_radius,   f->cohesion_weight,
                          f->field_of_view,     f->speed_factor};
    static const char *const names[] = {
        "separation_radius", "separation_weight", "alignment_radius",
        "alignment_weight",  "cohesion_radius",   "cohesion_weight",
        "field_of_view",     "speed_factor"};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        if (!is_finite_float(vals[i]))
            return world_fail(w, THRONG_ERR_NOT_FINITE,
                              "%s: flocking.%s is not finite", fn, names[i]);
    const float radii[] = {f->separation_radius, f->alignment_radius,
                           f->cohesion_radius};
    for (int i = 0; i < 3; i++)
        if (!(radii[i] >= THRONG_MIN_LENGTH) || radii[i] > w->neighbour_radius)
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: flocking.%s must be in [%g, %g] metres "
                              "(THRONG_MIN_LENGTH .. the world's neighbour "
                              "radius), got %g",
                              fn, names[2 * i], (double)THRONG_MIN_LENGTH,
                              (double)w->neighbour_radius, (double)radii[i]);
    const float weights[] = {f->separation_weight, f->alignment_weight,
                             f->cohesion_weight};
    for (int i = 0; i < 3; i++)
        if (weights[i] < 0.0f)
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: flocking.%s must be >= 0, got %g", fn,
                              names[2 * i + 1], (double)weights[i]);
    if (!(f->field_of_view > 0.0f) || f->field_of_view > TWO_PI_F)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: flocking.field_of_view must be in (0, 2 pi] "
                          "radians, got %g",
                          fn, (double)f->field_of_view);
    if (f->speed_factor < 0.0f || f->speed_factor > 1.0f)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: flocking.speed_factor must be in [0, 1], got %g",
                          fn, (double)f->speed_factor);
    if (f->separation_mode != THRONG_SEPARATION_FLEE_AVERAGE &&
        f->separation_mode != THRONG_SEPARATION_INVERSE_DISTANCE)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: flocking.separation_mode %d is not a "
                          "throng_separation_mode",
                          fn, (int)f->separation_mode);
    if (f->max_neighbours > THRONG_MAX_NEIGHBOUR_CAP)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: flocking.max_neighbours must be in [0, %u], "
                          "got %u",
                          fn, THRONG_MAX_NEIGHBOUR_CAP, f->max_neighbours);
    return THRONG_OK;
}

static throng_status check_wander(throng_world *w, const char *fn,
                                  const throng_wander *wd) {
    const float vals[] = {wd->weight, wd->max_turn_rate, wd->max_turn_change,
                          wd->speed_factor};
    static const char *const names[] = {"weight", "max_turn_rate",
                                        "max_turn_change", "speed_factor"};
    static const float hi[] = {3.402823466e38f, 3.14159274f, 3.14159274f,
                               1.0f};
    for (int i = 0; i < 4; i++) {
        if (!is_finite_float(vals[i]))
            return world_fail(w, THRONG_ERR_NOT_FINITE,
                              "%s: wander.%s is not finite", fn, names[i]);
        if (vals[i] < 0.0f || vals[i] > hi[i])
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: wander.%s must be in [0, %g], got %g", fn,
                              names[i], (double)hi[i], (double)vals[i]);
    }
    return THRONG_OK;
}

static throng_status check_combine(throng_world *w, const char *fn,
                                   throng_combine_mode mode) {
    if (mode != THRONG_COMBINE_WEIGHTED_AVERAGE &&
        mode != THRONG_COMBINE_WEIGHTED_SUM &&
        mode != THRONG_COMBINE_PRIORITY)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: combine mode %d is not a throng_combine_mode",
                          fn, (int)mode);
    return THRONG_OK;
}

throng_status check_group(throng_world *w, const char *fn, uint32_t group) {
    if (group >= w->group_count)
        return world_fail(w, THRONG_ERR_UNKNOWN_GROUP,
                          "%s: group %u does not exist (this world has %u)",
                          fn, group, w->group_count);
    return THRONG_OK;
}

static int reserve_groups(throng_world *w, uint32_t want) {
    if (want <= w->group_capacity)
        return 0;
    uint32_t cap = w->group_capacity ? w->group_capacity * 2 : 8;
    if (cap < want)
        cap = want;
    group_record *g = world_alloc(w, (size_t)cap * sizeof(group_record));
    group_kernel_params *k =
        world_alloc(w, (size_t)cap * sizeof(group_kernel_params));
    if (!g || !k) {
        world_free(w, g, (size_t)cap * sizeof(group_record));
        world_free(w, k, (size_t)cap * sizeof(group_kernel_params));
        return 1;
    }
    if (w->group_count) {
        memcpy(g, w->groups, (size_t)w->group_count * sizeof(group_record));
        memcpy(k, w->group_params,
               (size_t)w->group_count * sizeof(group_kernel_params));
    }
    world_free(w, w->groups, (size_t)w->group_capacity * sizeof(group_record));
    world_free(w, w->group_params,
               (size_t)w->group_capacity * sizeof(group_kernel_params));
    w->groups = g;
    w->group_params = k;
    w->group_capacity = cap;
    return 0;
}

static throng_status group_add(throng_world *w, const char *fn,
                               const throng_group_def *def,
                               uint32_t *out_group) {
    throng_status st = check_flocking(w, fn, &def->flocking);
    if (st != THRONG_OK)
        return st;
    if ((st = check_wander(w, fn, &def->wander)) != THRONG_OK ||
        (st = check_combine(w, fn, def->combine)) != THRONG_OK)
        return st;
    size_t name_len = 0;
    if (def->name) {
        name_len = strlen(def->name);
        if (name_len == 0 || name_len > 63)
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: a group name must be 1 to 63 bytes, got %zu",
                              fn, name_len);
        name_entry *found = NULL;
        HASH_FIND(hh, w->names, def->name, (unsigned)name_len, found);
        if (found)
            return world_fail(w, THRONG_ERR_DUPLICATE_KEY,
                              "%s: a group named \"%s\" already exists", fn,
                              def->name);
    }
    if (w->group_count >= THRONG_MAX_GROUPS)
        return world_fail(w, THRONG_ERR_CAPACITY,
                          "%s: a world holds at most %u groups", fn,
                          THRONG_MAX_GROUPS);
    if (reserve_groups(w, w->group_count + 1))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for another group", fn);
    name_entry *e = NULL;
    if (def->name) {
        e = world_alloc(w, sizeof *e);
        if (!e)
            return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                              "%s: no memory for the group's name", fn);
        memset(e, 0, sizeof *e);
        memcpy(e->name, def->name, name_len);
        e->group = w->group_count;
        throng_world *hash_world = w;
        int hash_oom = 0;
        HASH_ADD(hh, w->names, name, (unsigned)name_len, e);
        if (hash_oom) {
            name_entry *check = NULL;
            HASH_FIND(hh, w->names, e->name, (unsigned)name_len, check);
            if (!check) {
                world_free(w, e, sizeof *e);
                return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                                  "%s: no memory for the group name table",
                                  fn);
            }
        }
    }
    uint32_t id = w->group_count++;
    group_record *g = &w->groups[id];
    memset(g, 0, sizeof *g);
    g->flocking = def->flocking;
    g->wander = def->wander;
    g->combine = def->combine;
    if (def->name)
        memcpy(g->name, def->name, name_len);
    group_derive_params(w, id);
    if (out_group)
        *out_group = id;
    return THRONG_OK;
}

throng_status throng_group_create(throng_world *w, const throng_group_def *def,
                                  uint32_t *out_group) {
    WORLD_WRITE(w);
    if (!w)
        return THRONG_ERR_NULL;
    if (!def || !out_group)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_group_create: def and out_group must not "
                          "be NULL");
    return group_add(w, "throng_group_create", def, out_group);
}

throng_status throng_group_find(const throng_world *cw, const char *name,
                                uint32_t *out_group) {
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!name || !out_group)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_group_find: name and out_group must not be "
                          "NULL");
    size_t len = strlen(name);
    name_entry *found = NULL;
    if (len > 0 && len <= 63)
        HASH_FIND(hh, w->names, name, (unsigned)len, found);
    if (!found)
        return world_fail(w, THRONG_ERR_NOT_FOUND,
                          "throng_group_find: no group is named \"%.63s\"",
                          name);
    *out_group = found->group;
    return THRONG_OK;
}

throng_status throng_group_get_flocking(const throng_world *cw, uint32_t group,
                                        throng_flocking *out) {
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!out)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_group_get_flocking: out must not be NULL");
    throng_status st = check_group(w, "throng_group_get_flocking", group);
    if (st != THRONG_OK)
        return st;
    *out = w->groups[group].flocking;
    return THRONG_OK;
}

throng_status throng_group_set_flocking(throng_world *w, uint32_t group,
                                        const throng_flocking *f) {
    WORLD_WRITE(w);
    if (!w)
        return THRONG_ERR_NULL;
    if (!f)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_group_set_flocking: flocking must not be "
                          "NULL");
    throng_status st = check_group(w, "throng_group_set_flocking", group);
    if (st == THRONG_OK)
        st = check_flocking(w, "throng_group_set_flocking", f);
    if (st != THRONG_OK)
        return st;
    w->groups[group].flocking = *f;
    group_derive_params(w, group);
    return THRONG_OK;
}

throng_status throng_group_set_combine(throng_world *w, uint32_t group,
                                       throng_combine_mode mode) {
    WORLD_WRITE(w);
    if (!w)
        return THRONG_ERR_NULL;
    throng_status st = check_group(w, "throng_group_set_combine", group);
    if (st == THRONG_OK)
        st = check_combine(w, "throng_group_set_combine", mode);
    if (st != THRONG_OK)
        return st;
    w->groups[group].combine = mode;
    group_derive_params(w, group);
    return THRONG_OK;
}

throng_status throng_group_get_wander(const throng_world *cw, uint32_t group,
                                      throng_wander *out) {
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!out)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_group_get_wander: out must not be NULL");
    throng_status st = check_group(w, "throng_group_get_wander", group);
    if (st != THRONG_OK)
        return st;
    *out = w->groups[group].wander;
    return THRONG_OK;
}

throng_status throng_group_set_wander(throng_world *w, uint32_t group,
                                      const throng_wander *wd) {
    WORLD_WRITE(w);
    if (!w)
        return THRONG_ERR_NULL;
    if (!wd)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_group_set_wander: wander must not be NULL");
    throng_status st = check_group(w, "throng_group_set_wander", group);
    if (st == THRONG_OK)
        st = check_wander(w, "throng_group_set_wander", wd);
    if (st != THRONG_OK)
        return st;
    w->groups[group].wander = *wd;
    group_derive_params(w, group);
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* World lifecycle                                                          */
/* ------------------------------------------------------------------------ */

/* The last world id handed out. Ids count up from 1 in one atomic
 * read-modify-write, so worlds created at once on several threads never
 * share one, and 64 bits do not wrap within a process's life (a billion
 * worlds a second would take 584 years): an id is never 0 and never
 * reused, and a handle of one world is never taken for another's. */
static _Atomic uint64_t world_id_counter;

/* Writes a creation's refusal into the def's error buffer (when it has
 * one) and returns the status. */
static throng_status create_fail(const throng_world_def *def,
                                 throng_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static throng_status create_fail(const throng_world_def *def,
                                 throng_status status, const char *fmt, ...) {
    if (def->error && def->error_capacity > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(def->error, def->error_capacity, fmt, ap);
        va_end(ap);
    }
    return status;
}

/* The whole def, checked before anything is allocated. Snapshots are
 * loaded through throng_world_create, so a loaded world's settings pass
 * exactly these checks. */
static throng_status check_world_def(const throng_world_def *def) {
    static const char fn[] = "throng_world_create";
    if (def->dimensions != 2 && def->dimensions != 3)
        return create_fail(def, THRONG_ERR_OUT_OF_RANGE,
                           "%s: dimensions must be 2 or 3, got %d", fn,
                           def->dimensions);
    if (def->boundary != THRONG_BOUNDARY_UNBOUNDED &&
        def->boundary != THRONG_BOUNDARY_PERIODIC)
        return create_fail(def, THRONG_ERR_OUT_OF_RANGE,
                           "%s: boundary %d is not a throng_boundary", fn,
                           (int)def->boundary);
    if (!is_finite_float(def->neighbour_radius) ||
        !is_finite_float(def->cell_size))
        return create_fail(def, THRONG_ERR_NOT_FINITE,
                           "%s: neighbour_radius or cell_size is not finite",
                           fn);
    if (!length_in_range(def->neighbour_radius))
        return create_fail(def, THRONG_ERR_OUT_OF_RANGE,
                           "%s: neighbour_radius must be in [%g, %g] metres, "
                           "got %g",
                           fn, (double)THRONG_MIN_LENGTH,
                           (double)THRONG_MAX_LENGTH,
                           (double)def->neighbour_radius);
    if (def->cell_size != 0.0f && !length_in_range(def->cell_size))
        return create_fail(def, THRONG_ERR_OUT_OF_RANGE,
                           "%s: cell_size must be 0 or in [%g, %g] metres, "
                           "got %g",
                           fn, (double)THRONG_MIN_LENGTH,
                           (double)THRONG_MAX_LENGTH, (double)def->cell_size);
    int periodic = def->boundary == THRONG_BOUNDARY_PERIODIC;
    for (int a = 0; a < def->dimensions && periodic; a++) {
        if (!is_finite_float(def->box_size[a]))
            return create_fail(def, THRONG_ERR_NOT_FINITE,
                               "%s: box_size[%d] is not finite", fn, a);
        /* At least three radii, which are at least THRONG_MIN_LENGTH. */
        if (!((double)def->box_size[a] >=
              3.0 * (double)def->neighbour_radius) ||
            !(def->box_size[a] <= THRONG_MAX_LENGTH))
            return create_fail(def, THRONG_ERR_OUT_OF_RANGE,
                               "%s: box_size[%d] must be in [%g, %g] metres "
                               "(three neighbour radii .. THRONG_MAX_LENGTH), "
                               "got %g",
                               fn, a, 3.0 * (double)def->neighbour_radius,
                               (double)THRONG_MAX_LENGTH,
                               (double)def->box_size[a]);
    }
    if (def->threads < 0 || def->threads > THRONG_MAX_THREADS)
        return create_fail(def, THRONG_ERR_OUT_OF_RANGE,
                           "%s: threads must be in [0, %d], got %d", fn,
                           THRONG_MAX_THREADS, def->threads);
    if (def->initial_capacity > THRONG_MAX_AGENTS)
        return create_fail(def, THRONG_ERR_OUT_OF_RANGE,
                           "%s: initial_capacity must be at most %u "
                           "(THRONG_MAX_AGENTS), got %u",
                           fn, THRONG_MAX_AGENTS, def->initial_capacity);
    if ((def->allocator.alloc == NULL) != (def->allocator.free == NULL))
        return create_fail(def, THRONG_ERR_NULL,
                           "%s: give both allocator functions or neither", fn);
    throng_status hooks = task_hooks_check(def->enqueue_task, def->finish_task,
                                           def->worker_count);
    if (hooks != THRONG_OK)
        return create_fail(def, hooks,
                           "%s: give both task hooks and worker_count in "
                           "[1, %d], or neither and 0",
                           fn, THRONG_MAX_WORKERS);
    if (!is_finite_float(def->max_dt))
        return create_fail(def, THRONG_ERR_NOT_FINITE,
                           "%s: max_dt is not finite", fn);
    if (!step_limits_valid(def->max_dt, def->max_substeps))
        return create_fail(def, THRONG_ERR_OUT_OF_RANGE,
                           "%s: max_dt must be in [%g, %g] seconds and "
                           "max_substeps in [1, %u], got %g and %u",
                           fn, (double)THRONG_MIN_TICK,
                           (double)THRONG_MAX_TICK, THRONG_MAX_SUBSTEPS,
                           (double)def->max_dt, def->max_substeps);
    /* A value that names no path is a bad argument; a path this machine
     * cannot run is a fact about the machine, and the caller may want to
     * retry with another, so the two get different codes. */
    if (!simd_in_range(def->simd))
        return create_fail(def, THRONG_ERR_OUT_OF_RANGE,
                           "%s: simd %d is not a throng_simd", fn,
                           (int)def->simd);
    if (!throng_simd_supported(def->simd))
        return create_fail(def, THRONG_ERR_UNSUPPORTED,
                           "%s: this CPU or build cannot run the %s path", fn,
                           throng_simd_name(def->simd));

    int32_t n[3];
    float edge[3];
    int reach[3];
    if (!grid_plan(def->dimensions, periodic, def->box_size,
                   def->neighbour_radius, def->cell_size, n, edge, reach))
        return create_fail(def, THRONG_ERR_OUT_OF_RANGE,
                           "%s: the periodic box must be at least three "
                           "neighbour radii wide",
                           fn);
    /* Cells per axis as the box asks for them (before grid_plan's clamp
     * of each axis to THRONG_MAX_GRID_CELLS), for the sentence. */
    const double want = def->cell_size > 0.0f
                            ? (double)def->cell_size
                            : (double)(def->neighbour_radius * GRID_CELL_PAD);
    double asked[3] = {1.0, 1.0, 1.0}, asked_total = 1.0;
    uint64_t cells = 1;
    int too_many = 0;
    for (int a = 0; a < def->dimensions; a++) {
        if (reach[a] > GRID_MAX_REACH)
            return create_fail(def, THRONG_ERR_OUT_OF_RANGE,
                               "%s: cell_size %g is below a quarter of the "
                               "neighbour radius %g",
                               fn, (double)def->cell_size,
                               (double)def->neighbour_radius);
        if (!periodic)
            continue;
        asked[a] = floor((double)def->box_size[a] / want);
        asked[a] = asked[a] < 3.0 ? 3.0 : asked[a];
        asked_total *= asked[a];
        /* Checked per axis: three axes of up to 2^24 cells each would
         * wrap the 64-bit product (to 0 for 2^72). */
        cells *= (uint64_t)n[a];
        too_many |= cells > THRONG_MAX_GRID_CELLS;
    }
    if (too_many) {
        char third[48] = "";
        if (def->dimensions == 3)
            snprintf(third, sizeof third, " x %.0f", asked[2]);
        return create_fail(
            def, THRONG_ERR_OUT_OF_RANGE,
            "%s: the periodic box holds %.0f x %.0f%s = %.6g grid cells of "
            "edge %g (floor(box_size / edge) per axis), more than %u "
            "(THRONG_MAX_GRID_CELLS): use larger cells or a smaller box",
            fn, asked[0], asked[1], third, asked_total, want,
            THRONG_MAX_GRID_CELLS);
    }
    return THRONG_OK;
}

throng_status throng_world_create(const throng_world_def *def,
                                  throng_world **out_world) {
    if (!out_world) {
        if (def)
            (void)create_fail(def, THRONG_ERR_NULL,
                              "throng_world_create: out_world is NULL");
        return THRONG_ERR_NULL;
    }
    *out_world = NULL;
    if (!def)
        return THRONG_ERR_NULL;
    throng_status st = check_world_def(def);
    if (st != THRONG_OK)
        return st;
    int periodic = def->boundary == THRONG_BOUNDARY_PERIODIC;

    throng_world boot;
    memset(&boot, 0, sizeof boot);
    boot.allocator = def->allocator;
    throng_world *w = world_alloc(&boot, sizeof *w);
    if (!w)
        return create_fail(def, THRONG_ERR_OUT_OF_MEMORY,
                           "throng_world_create: no memory for the world");
    memset(w, 0, sizeof *w);
    w->allocator = def->allocator;
    w->dims = def->dimensions;
    w->boundary = def->boundary;
    for (int a = 0; a < 3; a++)
        w->box[a] = a < w->dims ? def->box_size[a] : 0.0f;
    w->neighbour_radius = def->neighbour_radius;
    w->threads = def->threads;
    w->enqueue_task = def->enqueue_task;
    w->finish_task = def->finish_task;
    w->task_context = def->task_context;
    w->worker_count = def->worker_count;
    w->seed = def->seed;
    w->cell_size = def->cell_size;
    w->max_dt = def->max_dt;
    w->max_substeps = def->max_substeps;
    w->id = atomic_fetch_add_explicit(&world_id_counter, 1u,
                                      memory_order_relaxed) +
            1u;
    w->uniform = UNIFORM_ALL;
    /* Checked above, so this cannot fail. */
    (void)world_use_simd(w, def->simd);
    grid_init(&w->grid, w->dims, periodic, w->box, w->neighbour_radius,
              def->cell_size);

    throng_group_def gd = throng_group_def_default();
    gd.name = "default";
    /* The default recipe's radii cannot exceed this world's radius. */
    float *radii[] = {&gd.flocking.separation_radius,
                      &gd.flocking.alignment_radius,
                      &gd.flocking.cohesion_radius};
    for (int r = 0; r < 3; r++)
        if (*radii[r] > w->neighbour_radius)
            *radii[r] = w->neighbour_radius;
    if (reserve_columns(w, def->initial_capacity) ||
        reserve_slots(w, def->initial_capacity) ||
        group_add(w, "throng_world_create", &gd, NULL) != THRONG_OK) {
        throng_world_destroy(w);
        return create_fail(def, THRONG_ERR_OUT_OF_MEMORY,
                           "throng_world_create: no memory for room for %u "
                           "agents",
                           def->initial_capacity);
    }
    (void)create_fail(def, THRONG_OK, "%s", "");
    w->error[0] = '\0';
    *out_world = w;
    return THRONG_OK;
}

void throng_world_destroy(throng_world *w) {
    /* A world another call is using stays: freeing it would pull the
     * memory from under that call, and there is no status to return. */
    if (!w || !busy_take_for_good(w))
        return;
    throng_world *hash_world = w;
    key_entry *k, *ktmp;
    HASH_ITER(hh, w->keys, k, ktmp) {
        /* Deleting the last entry frees uthash's table and ends the walk
         * (ktmp is NULL); the analyser thinks the walk goes on. */
        /* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
        HASH_DEL(w->keys, k);
        world_free(w, k, sizeof *k);
    }
    name_entry *e, *etmp;
    HASH_ITER(hh, w->names, e, etmp) {
        /* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): as above */
        HASH_DEL(w->names, e);
        world_free(w, e, sizeof *e);
    }
    (void)hash_world;
    grid_release(w, &w->grid);
    geometry_free(w);
    free_columns(w, &w->col, w->capacity);
    column_free(w, w->steer_x, w->capacity, sizeof(float));
    column_free(w, w->steer_y, w->capacity, sizeof(float));
    column_free(w, w->steer_z, w->capacity, sizeof(float));
    for (int b = 0; b < GRID_PERMUTE_BATCH; b++)
        column_free(w, w->spare4[b], w->capacity, 4u);
    world_free(w, w->slots, (size_t)w->slot_capacity * sizeof(slot_entry));
    world_free(w, w->slot_dense, (size_t)w->slot_capacity * sizeof(uint32_t));
    world_free(w, w->free_slots, (size_t)w->slot_capacity * sizeof(uint32_t));
    world_free(w, w->origin_gen, (size_t)w->origin_slots * sizeof(uint32_t));
    world_free(w, w->origin_object_gen,
               (size_t)w->origin_objects * sizeof(uint32_t));
    world_free(w, w->groups, (size_t)w->group_capacity * sizeof(group_record));
    world_free(w, w->group_params,
               (size_t)w->group_capacity * sizeof(group_kernel_params));
    world_free(w, w->counters, (size_t)w->counters_len * sizeof(thread_counters));
    throng_world boot;
    memset(&boot, 0, sizeof boot);
    boot.allocator = w->allocator;
    world_free(&boot, w, sizeof *w);
}

/* Two levels so the macros expand before they are turned into text. */
#define THRONG_STR2(x) #x
#define THRONG_STR(x) THRONG_STR2(x)

const char *throng_version(void) {
    return THRONG_STR(THRONG_VERSION_MAJOR) "." THRONG_STR(
        THRONG_VERSION_MINOR) "." THRONG_STR(THRONG_VERSION_PATCH);
}

/* What throng_world_last_error gives while another call has the world:
 * the buffer itself may be being written. */
static const char busy_sentence[] =
    "throng_world_last_error: the world is busy with another call";

const char *throng_world_last_error(const throng_world *w) {
    WORLD_READ_OR(w, busy_sentence);
    return w ? w->error : "throng_world_last_error: world is NULL";
}

uint32_t throng_world_agent_count(const throng_world *w) {
    WORLD_READ_OR(w, 0u);
    return w ? w->count : 0;
}

int throng_world_dimensions(const throng_world *w) {
    WORLD_READ_OR(w, 0);
    return w ? w->dims : 0;
}

uint64_t throng_world_step_count(const throng_world *w) {
    WORLD_READ_OR(w, 0u);
    return w ? w->step : 0;
}

throng_status throng_world_set_threads(throng_world *w, int threads) {
    WORLD_WRITE(w);
    if (!w)
        return THRONG_ERR_NULL;
    if (threads < 0 || threads > THRONG_MAX_THREADS)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "throng_world_set_threads: threads must be in "
                          "[0, %d], got %d",
                          THRONG_MAX_THREADS, threads);
    w->threads = threads;
    return THRONG_OK;
}

throng_status throng_world_set_task_hooks(throng_world *w,
                                          throng_enqueue_task_fn *enqueue_task,
                                          throng_finish_task_fn *finish_task,
                                          void *task_context,
                                          uint32_t worker_count) {
    WORLD_WRITE(w);
    static const char fn[] = "throng_world_set_task_hooks";
    if (!w)
        return THRONG_ERR_NULL;
    throng_status st = task_hooks_check(enqueue_task, finish_task, worker_count);
    if (st == THRONG_ERR_NULL)
        return world_fail(w, st, "%s: give both hooks or neither", fn);
    if (st != THRONG_OK)
        return world_fail(w, st,
                          "%s: worker_count must be in [1, %d] with hooks "
                          "and 0 without, got %u",
                          fn, THRONG_MAX_WORKERS, worker_count);
    w->enqueue_task = enqueue_task;
    w->finish_task = finish_task;
    w->task_context = task_context;
    w->worker_count = worker_count;
    return THRONG_OK;
}

throng_status throng_world_set_stable_columns(throng_world *w, bool stable) {
    WORLD_WRITE(w);
    if (!w)
        return THRONG_ERR_NULL;
    w->stable_columns = stable ? 1 : 0;
    return THRONG_OK;
}

int step_limits_valid(float max_dt, uint32_t max_substeps) {
    return max_dt >= THRONG_MIN_TICK && max_dt <= THRONG_MAX_TICK &&
           max_substeps >= 1u && max_substeps <= THRONG_MAX_SUBSTEPS;
}

throng_status throng_world_set_step_limits(throng_world *w, float max_dt,
                                           uint32_t max_substeps) {
    WORLD_WRITE(w);
    static const char fn[] = "throng_world_set_step_limits";
    if (!w)
        return THRONG_ERR_NULL;
    if (!is_finite_float(max_dt))
        return world_fail(w, THRONG_ERR_NOT_FINITE, "%s: max_dt is not finite",
                          fn);
    if (!step_limits_valid(max_dt, max_substeps))
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: max_dt must be in [%g, %g] seconds and "
                          "max_substeps in [1, %u], got %g and %u",
                          fn, (double)THRONG_MIN_TICK, (double)THRONG_MAX_TICK,
                          THRONG_MAX_SUBSTEPS, (double)max_dt, max_substeps);
    w->max_dt = max_dt;
    w->max_substeps = max_substeps;
    return THRONG_OK;
}

/* A hash's heap as world_alloc takes it: every entry rounded up to
 * THRONG_ALIGN (a key entry of 72 bytes takes 128), plus uthash's table
 * and bucket array, which at 10k keys are 64 KiB or more. */
static size_t hash_bytes(const UT_hash_table *tbl, size_t entry) {
    if (!tbl)
        return 0;
    const size_t mask = (size_t)THRONG_ALIGN - 1;
    size_t rounded_entry = (entry + mask) & ~mask;
    size_t buckets = (size_t)tbl->num_buckets * sizeof(UT_hash_bucket);
    return (size_t)tbl->num_items * rounded_entry +
           ((sizeof *tbl + mask) & ~mask) + ((buckets + mask) & ~mask);
}

size_t throng_world_bytes(const throng_world *w) {
    WORLD_READ_OR(w, 0u);
    if (!w)
        return 0;
    size_t floats = 0, ints = 0;
    for (int k = 0; k < FLOAT_COLUMNS; k++)
        floats += (size_t)column_present(w->dims, w->behaviour_state, k);
    for (int k = 0; k < U32_COLUMN_COUNT; k++)
        ints += (size_t)u32_present(w->behaviour_state, k);
    /* Columns, steering scratch, and the spare buffers. */
    size_t per_agent = floats * sizeof(float) + ints * sizeof(uint32_t) +
                       (size_t)w->dims * sizeof(float) + GRID_PERMUTE_BATCH * 4u;
    size_t bytes = sizeof *w + (size_t)w->capacity * per_agent +
                   (size_t)w->slot_capacity *
                       (sizeof(slot_entry) + 2 * sizeof(uint32_t)) +
                   (size_t)w->group_capacity *
                       (sizeof(group_record) + sizeof(group_kernel_params)) +
                   (size_t)w->counters_len * sizeof(thread_counters) +
                   grid_bytes(&w->grid);
    bytes += hash_bytes(w->keys ? w->keys->hh.tbl : NULL, sizeof(key_entry));
    bytes += hash_bytes(w->names ? w->names->hh.tbl : NULL,
                        sizeof(name_entry));
    bytes += geometry_bytes(w);
    bytes += ((size_t)w->origin_slots + w->origin_objects) * sizeof(uint32_t);
    return bytes;
}

throng_status throng_world_stats(const throng_world *cw,
                                 throng_step_stats *out) {
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!out)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_world_stats: out must not be NULL");
    *out = w->stats;
    out->simd = w->simd_name;
    return THRONG_OK;
}

throng_status throng_world_columns(const throng_world *cw,
                                   throng_columns *out) {
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!out)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_world_columns: out must not be NULL");
    const agent_columns *c = &w->col;
    out->count = w->count;
    out->px = c->px; out->py = c->py; out->pz = c->pz;
    out->vx = c->vx; out->vy = c->vy; out->vz = c->vz;
    out->fx = c->fx; out->fy = c->fy; out->fz = c->fz;
    out->ux = c->ux; out->uy = c->uy; out->uz = c->uz;
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* Hash of the state                                                        */
/* ------------------------------------------------------------------------ */

/* One 64-bit multiply-xorshift round per word: fast enough to hash a
 * million agents in a few milliseconds, and every bit of every word
 * reaches every bit of the result. */
static uint64_t mix_word(uint64_t h, uint64_t word) {
    h ^= word + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    return h;
}

static uint64_t float_bits(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

uint64_t throng_world_hash(const throng_world *w) {
    WORLD_READ_OR(w, 0u);
    if (!w)
        return 0;
    uint64_t h = mix_word(0x7468726F6E67ull, w->step);
    h = mix_word(h, w->count);
    h = mix_word(h, (uint64_t)w->dims);
    const agent_columns *c = &w->col;
    float *cols[FLOAT_COLUMNS] = {
        c->px,     c->py,     c->pz,          c->vx,     c->vy,
        c->vz,     c->fx,     c->fy,          c->fz,     c->ux,
        c->uy,     c->uz,     c->mass,        c->max_force,
        c->max_speed, c->radius, c->wander_rate, c->tx,   c->ty,
        c->tz,     c->wx,     c->wy,          c->wz};
    world_links(w);
    for (uint32_t s = 0; s < w->slot_count; s++) {
        uint32_t i = w->slot_dense[s];
        if (i == SLOT_FREE)
            continue;
        h = mix_word(h, ((uint64_t)s << 32) | i);
        /* Generations count from 1 in every world, and the world's id
         * stays out of the hash: equal states hash equal in any world. */
        h = mix_word(h, w->slots[s].generation);
        for (int k = 0; k < FLOAT_COLUMNS; k++)
            if (cols[k])
                h = mix_word(h, float_bits(cols[k][i]));
        h = mix_word(h, c->group[i]);
        h = mix_word(h, w->slots[s].host_key);
        if (w->behaviour_state) {
            h = mix_word(h, ((uint64_t)c->target_slot[i] << 32) |
                                c->target_gen[i]);
            h = mix_word(h, c->progress[i]);
        }
    }
    return h;
}

/* ------------------------------------------------------------------------ */
/* Agents                                                                   */
/* ------------------------------------------------------------------------ */

void world_links(const throng_world *cw) {
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!atomic_load_explicit(&w->links_stale, memory_order_acquire))
        return;
    /* Calls that read the world may run at the same time (busy.h): one
     * of them rewrites the links, the others wait for it. */
    shared_write_lock(w);
    if (atomic_load_explicit(&w->links_stale, memory_order_relaxed)) {
        const uint32_t *restrict slot = w->col.slot;
        uint32_t *restrict slot_dense = w->slot_dense;
        for (uint32_t r = 0; r < w->count; r++)
            slot_dense[slot[r]] = r;
        atomic_store_explicit(&w->links_stale, 0, memory_order_release);
    }
    shared_write_unlock(w);
}

/* The slot of a live handle, or -1. A free slot is marked in slot_dense
 * whether or not the links are stale, but a reader still brings them up
 * to date first: another reader may be rewriting them. */
static inline int64_t handle_slot(const throng_world *w, throng_agent h) {
    /* world_links's own first test, here so the common case (links up to
     * date) costs no call on every handle lookup. */
    if (atomic_load_explicit(&((throng_world *)(uintptr_t)w)->links_stale,
                             memory_order_acquire))
        world_links(w);
    if (h.world != w->id || h.slot == 0 || h.slot > w->slot_count)
        return -1;
    const slot_entry *s = &w->slots[h.slot - 1];
    if (w->slot_dense[h.slot - 1] == SLOT_FREE || s->generation != h.generation)
        return -1;
    return (int64_t)(h.slot - 1);
}

throng_status handle_fail(throng_world *w, const char *fn, const char *what,
                          uint32_t index, uint32_t generation,
                          uint64_t handle_world, const char *kind) {
    if (handle_world != 0u && handle_world == w->origin)
        return world_fail(w, THRONG_ERR_STALE_HANDLE,
                          "%s: %s {%u, %u} belongs to another world, the one "
                          "this world was loaded from (world id %llu): "
                          "rebind it first",
                          fn, what, index, generation,
                          (unsigned long long)handle_world);
    if (handle_world != 0u && handle_world != w->id)
        return world_fail(w, THRONG_ERR_STALE_HANDLE,
                          "%s: %s {%u, %u} belongs to another world (world "
                          "id %llu; this world's id is %llu)",
                          fn, what, index, generation,
                          (unsigned long long)handle_world,
                          (unsigned long long)w->id);
    return world_fail(w, THRONG_ERR_STALE_HANDLE,
                      "%s: %s {%u, %u} does not name a live %s of this world",
                      fn, what, index, generation, kind);
}

static throng_status stale(throng_world *w, const char *fn, throng_agent h) {
    return handle_fail(w, fn, "handle", h.slot, h.generation, h.world,
                       "agent");
}

/* This world's handle of the agent in a live slot. */
static throng_agent handle_of(const throng_world *w, uint32_t slot) {
    throng_agent h = {slot + 1u, w->slots[slot].generation, w->id};
    return h;
}

/* Resolves a handle to a dense row, or records the refusal. */
#define RESOLVE(w, fn, h, row)                                                \
    do {                                                                      \
        int64_t slot_ = handle_slot((w), (h));                                \
        if (slot_ < 0)                                                        \
            return stale((w), (fn), (h));                                     \
        (row) = (w)->slot_dense[slot_];                                        \
    } while (0)

bool throng_agent_valid(const throng_world *w, throng_agent h) {
    WORLD_READ_OR(w, false);
    return w && handle_slot(w, h) >= 0;
}

uint64_t throng_world_id(const throng_world *w) {
    /* No guard: the id is fixed at creation, so it reads safely while any
     * call runs (a busy world answering 0 would let a host build handles
     * that name no world). */
    return w ? w->id : 0u;
}

throng_status rebind_world_check(throng_world *w, const char *fn,
                                 const char *what, uint32_t index,
                                 uint32_t generation, uint64_t world,
                                 const uint32_t *at_save, uint32_t saved) {
    if (world != 0u && world != w->id && world != w->origin)
        return world_fail(w, THRONG_ERR_STALE_HANDLE,
                          "%s: %s {%u, %u} belongs to another world (world "
                          "id %llu), neither this one (id %llu) nor the one "
                          "it was loaded from (id %llu, 0: none)",
                          fn, what, index, generation,
                          (unsigned long long)world,
                          (unsigned long long)w->id,
                          (unsigned long long)w->origin);
    /* A loaded world holds the saved slots (object ids) and generations
     * as they were, so a handle that named something live when the
     * snapshot was saved names the same thing here, for as long as it
     * lives. One the saved world handed out after saving may carry a slot
     * and generation this world has given to another since: it was not
     * live at the save, and is refused. */
    uint32_t gen_at_save = 0u;
    if (world != 0u && world == w->origin && index != 0u && index <= saved)
        gen_at_save = at_save[index - 1u];
    if (world != 0u && world != w->id && gen_at_save != generation)
        return world_fail(w, THRONG_ERR_STALE_HANDLE,
                          "%s: %s {%u, %u} of the world this one was loaded "
                          "from was not live when it was saved",
                          fn, what, index, generation);
    return THRONG_OK;
}

throng_status throng_agent_rebind(const throng_world *cw, throng_agent h,
                                  throng_agent *out) {
    static const char fn[] = "throng_agent_rebind";
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!out)
        return world_fail(w, THRONG_ERR_NULL, "%s: out must not be NULL",
                          fn);
    throng_status st = rebind_world_check(w, fn, "handle", h.slot,
                                          h.generation, h.world, w->origin_gen,
                                          w->origin_slots);
    if (st != THRONG_OK)
        return st;
    throng_agent here = h;
    here.world = h.world != 0u ? w->id : 0u;
    if (handle_slot(w, here) < 0)
        return handle_fail(w, fn, "handle", h.slot, h.generation, here.world,
                           "agent");
    *out = here;
    return THRONG_OK;
}

int world_test_set_slot_generation(throng_world *w, uint32_t slot,
                                   uint32_t generation) {
    if (!w || slot == 0u || slot > w->slot_count || generation == 0u)
        return 1;
    w->slots[slot - 1u].generation = generation;
    return 0;
}

static throng_status check_vec(throng_world *w, const char *fn,
                               const char *what, const float *v) {
    for (int a = 0; a < w->dims; a++)
        if (!is_finite_float(v[a]))
            return world_fail(w, THRONG_ERR_NOT_FINITE,
                              "%s: %s[%d] is not finite", fn, what, a);
    return THRONG_OK;
}

/* A scalar of an agent: positive 0: >= 0; 1: > 0; SCALAR_LENGTH: a
 * length, 0 or in [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH]. */
#define SCALAR_LENGTH 2
static throng_status check_scalar(throng_world *w, const char *fn,
                                  const char *what, float x, int positive) {
    if (positive == SCALAR_LENGTH)
        return check_length_field(w, fn, what, x, 1);
    if (!is_finite_float(x))
        return world_fail(w, THRONG_ERR_NOT_FINITE, "%s: %s is not finite",
                          fn, what);
    if (positive ? !(x > 0.0f) : x < 0.0f)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: %s must be %s 0, got %g", fn, what,
                          positive ? ">" : ">=", (double)x);
    return THRONG_OK;
}

/* An agent's fields as creation takes them: from a def when adding, from
 * the columns when a snapshot is loaded (world_check_row). */
typedef struct agent_fields {
    float position[3], velocity[3];
    float mass, max_force, max_speed, radius;
    uint32_t group;
} agent_fields;

static throng_status check_agent_fields(throng_world *w, const char *fn,
                                        const agent_fields *d) {
    throng_status st;
    if ((st = check_vec(w, fn, "position", d->position)) != THRONG_OK ||
        (st = check_vec(w, fn, "velocity", d->velocity)) != THRONG_OK ||
        (st = check_scalar(w, fn, "mass", d->mass, 1)) != THRONG_OK ||
        (st = check_scalar(w, fn, "max_force", d->max_force, 0)) != THRONG_OK ||
        (st = check_scalar(w, fn, "max_speed", d->max_speed, 0)) != THRONG_OK ||
        (st = check_scalar(w, fn, "radius", d->radius, SCALAR_LENGTH)) !=
            THRONG_OK ||
        (st = check_group(w, fn, d->group)) != THRONG_OK)
        return st;
    return THRONG_OK;
}

static throng_status check_agent_def(throng_world *w, const char *fn,
                                     const throng_agent_def *d) {
    agent_fields f;
    memcpy(f.position, d->position, sizeof f.position);
    memcpy(f.velocity, d->velocity, sizeof f.velocity);
    f.mass = d->mass;
    f.max_force = d->max_force;
    f.max_speed = d->max_speed;
    f.radius = d->radius;
    f.group = d->group;
    return check_agent_fields(w, fn, &f);
}

/* How far a stored heading's or up vector's length may be from 1: they
 * are normalised in float, good to a few ulp (about 1e-7), so this leaves
 * a wide margin and still refuses anything that is not a unit vector. */
#define AGENT_UNIT_TOLERANCE 1e-5
/* How far from perpendicular heading and up may be (the cosine of their
 * angle): basis_up normalises a difference that may be as short as 1e-3,
 * which scales the rounding of its inputs by up to 1e3. */
#define AGENT_BASIS_TOLERANCE 1e-3

static double unit_error(const float x[3]) {
    double d2 = 0.0;
    for (int k = 0; k < 3; k++)
        d2 += (double)x[k] * (double)x[k];
    return fabs(sqrt(d2) - 1.0);
}

throng_status world_check_row(throng_world *w, const char *fn,
                              uint32_t row) {
    const agent_columns *c = &w->col;
    const int three = w->dims == 3;
    agent_fields d;
    memset(&d, 0, sizeof d);
    d.position[0] = c->px[row];
    d.position[1] = c->py[row];
    d.position[2] = three ? c->pz[row] : 0.0f;
    d.velocity[0] = c->vx[row];
    d.velocity[1] = c->vy[row];
    d.velocity[2] = three ? c->vz[row] : 0.0f;
    d.mass = c->mass[row];
    d.max_force = c->max_force[row];
    d.max_speed = c->max_speed[row];
    d.radius = c->radius[row];
    d.group = c->group[row];
    throng_status st = check_agent_fields(w, fn, &d);
    if (st != THRONG_OK)
        return st;
    /* What adding, the setters and every step keep true of a row. */
    if (w->boundary == THRONG_BOUNDARY_PERIODIC)
        for (int a = 0; a < w->dims; a++)
            if (!(d.position[a] >= 0.0f && d.position[a] < w->box[a]))
                return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                                  "%s: position[%d] = %g lies outside the "
                                  "periodic box [0, %g)",
                                  fn, a, (double)d.position[a],
                                  (double)w->box[a]);
    float f[3] = {c->fx[row], c->fy[row], three ? c->fz[row] : 0.0f};
    if ((st = check_vec(w, fn, "heading", f)) != THRONG_OK)
        return st;
    if (!(unit_error(f) <= AGENT_UNIT_TOLERANCE))
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: the heading is not of unit length (within "
                          "1e-5): %g %g %g",
                          fn, (double)f[0], (double)f[1], (double)f[2]);
    if (three) {
        float u[3] = {c->ux[row], c->uy[row], c->uz[row]};
        if ((st = check_vec(w, fn, "up", u)) != THRONG_OK)
            return st;
        double cosine = (double)f[0] * (double)u[0] +
                        (double)f[1] * (double)u[1] +
                        (double)f[2] * (double)u[2];
        if (!(unit_error(u) <= AGENT_UNIT_TOLERANCE) ||
            !(fabs(cosine) <= AGENT_BASIS_TOLERANCE))
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: the up vector is not of unit length "
                              "(within 1e-5) and perpendicular to the "
                              "heading (within 1e-3): %g %g %g",
                              fn, (double)u[0], (double)u[1], (double)u[2]);
    }
    if (!is_finite_float(c->wander_rate[row]))
        return world_fail(w, THRONG_ERR_NOT_FINITE,
                          "%s: the wander turn rate is not finite", fn);
    if (!w->behaviour_state)
        return THRONG_OK;
    float t[3] = {c->tx[row], c->ty[row], three ? c->tz[row] : 0.0f};
    float wd[3] = {c->wx[row], three ? c->wy[row] : 0.0f,
                   three ? c->wz[row] : 0.0f};
    if ((st = check_vec(w, fn, "target point", t)) != THRONG_OK)
        return st;
    for (int k = 0; k < (three ? 3 : 1); k++)
        if (!is_finite_float(wd[k]))
            return world_fail(w, THRONG_ERR_NOT_FINITE,
                              "%s: the wander state is not finite", fn);
    /* A target agent is none ({0, 0}), or a slot of this world other
     * than the agent's own, live or since removed. */
    uint32_t ts = c->target_slot[row], tg = c->target_gen[row];
    uint32_t own = c->slot[row];
    if ((ts == 0u) != (tg == 0u) || ts > w->slot_count ||
        (ts == own + 1u && tg == w->slots[own].generation))
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: target {%u, %u} is not none, nor another "
                          "slot of this world",
                          fn, ts, tg);
    return THRONG_OK;
}

/* Wraps a coordinate into [0, L). */
static float wrap_coord(float x, float L) {
    if (x >= 0.0f && x < L)
        return x;
    float r = x - L * floorf(x / L);
    /* Rounding can land exactly on L (or, for huge |x|, outside). */
    if (!(r >= 0.0f && r < L))
        r = 0.0f;
    return r;
}

void world_wrap_position(const throng_world *w, float p[3]) {
    if (w->boundary != THRONG_BOUNDARY_PERIODIC)
        return;
    for (int a = 0; a < w->dims; a++)
        p[a] = wrap_coord(p[a], w->box[a]);
}

/* A unit up vector perpendicular to the unit forward f, as close as it can
 * be to `hint`; when f is parallel to hint, the axis least aligned with f
 * stands in. */
void basis_up(const float f[3], const float hint[3], float up[3]) {
    float h[3] = {hint[0], hint[1], hint[2]};
    for (int attempt = 0; attempt < 2; attempt++) {
        /* up = h - (h . f) f, the part of h perpendicular to f. */
        float dot = h[0] * f[0] + h[1] * f[1] + h[2] * f[2];
        float u[3] = {h[0] - dot * f[0], h[1] - dot * f[1], h[2] - dot * f[2]};
        float len2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
        if (len2 > 1e-6f) {
            float inv = 1.0f / sqrtf(len2);
            up[0] = u[0] * inv;
            up[1] = u[1] * inv;
            up[2] = u[2] * inv;
            return;
        }
        float ax = fabsf(f[0]), ay = fabsf(f[1]), az = fabsf(f[2]);
        h[0] = h[1] = h[2] = 0.0f;
        if (ax <= ay && ax <= az)
            h[0] = 1.0f;
        else if (ay <= az)
            h[1] = 1.0f;
        else
            h[2] = 1.0f;
    }
    up[0] = 0.0f; /* unreachable for a unit f */
    up[1] = 0.0f;
    up[2] = 1.0f;
}

/* Sets row i's heading (and up, in 3D) from a velocity, or +x at rest. */
static void init_basis(throng_world *w, uint32_t i, const float v[3]) {
    agent_columns *c = &w->col;
    float vz = w->dims == 3 ? v[2] : 0.0f;
    float v2 = v[0] * v[0] + v[1] * v[1] + vz * vz;
    float f[3] = {1.0f, 0.0f, 0.0f};
    if (v2 >= 1e-30f && is_finite_float(v2)) {
        float len = sqrtf(v2);
        f[0] = v[0] / len;
        f[1] = v[1] / len;
        f[2] = vz / len;
    } else {
        /* Squares that are subnormal (or overflow) would give a heading
         * far from unit length: scale by the largest component first. */
        float big = fmaxf(fabsf(v[0]), fmaxf(fabsf(v[1]), fabsf(vz)));
        if (big > 0.0f) {
            float u[3] = {v[0] / big, v[1] / big, vz / big};
            float len = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
            for (int k = 0; k < 3; k++)
                f[k] = u[k] / len;
        }
    }
    c->fx[i] = f[0];
    c->fy[i] = f[1];
    if (w->dims == 3) {
        static const float z_up[3] = {0.0f, 0.0f, 1.0f};
        float up[3];
        basis_up(f, z_up, up);
        c->fz[i] = f[2];
        c->ux[i] = up[0];
        c->uy[i] = up[1];
        c->uz[i] = up[2];
    }
}

throng_status throng_agent_add(throng_world *w, const throng_agent_def *d,
                               throng_agent *out) {
    WORLD_WRITE(w);
    static const char fn[] = "throng_agent_add";
    if (!w)
        return THRONG_ERR_NULL;
    if (!d || !out)
        return world_fail(w, THRONG_ERR_NULL,
                          "%s: def and out_agent must not be NULL", fn);
    throng_status st = check_agent_def(w, fn, d);
    if (st != THRONG_OK)
        return st;
    if (d->host_key != 0) {
        key_entry *found = NULL;
        HASH_FIND(hh, w->keys, &d->host_key, sizeof(uint64_t), found);
        if (found)
            return world_fail(w, THRONG_ERR_DUPLICATE_KEY,
                              "%s: host key %llu already names an agent", fn,
                              (unsigned long long)d->host_key);
    }
    if (w->count >= THRONG_MAX_AGENTS)
        return world_fail(w, THRONG_ERR_CAPACITY,
                          "%s: a world holds at most %u agents", fn,
                          THRONG_MAX_AGENTS);
    if (reserve_columns(w, w->count + 1))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory to grow the columns to %u agents", fn,
                          w->count + 1);
    /* Only retired slots can fill the table while agents are fewer. */
    if (w->free_count == 0 && w->slot_count >= THRONG_MAX_AGENTS)
        return world_fail(w, THRONG_ERR_CAPACITY,
                          "%s: all %u handle slots are live or retired", fn,
                          THRONG_MAX_AGENTS);
    if (w->free_count == 0 && reserve_slots(w, w->slot_count + 1))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory to grow the handle table", fn);
    uint32_t slot = w->free_count ? w->free_slots[w->free_count - 1]
                                  : w->slot_count;
    if (d->host_key != 0) {
        key_entry *e = world_alloc(w, sizeof *e);
        if (!e)
            return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                              "%s: no memory for the host key", fn);
        memset(e, 0, sizeof *e);
        e->key = d->host_key;
        e->slot = slot;
        throng_world *hash_world = w;
        int hash_oom = 0;
        HASH_ADD(hh, w->keys, key, sizeof(uint64_t), e);
        if (hash_oom) {
            key_entry *check = NULL;
            HASH_FIND(hh, w->keys, &d->host_key, sizeof(uint64_t), check);
            if (!check) {
                world_free(w, e, sizeof *e);
                return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                                  "%s: no memory for the host key table", fn);
            }
        }
    }

    /* Commit: nothing below can fail. */
    if (w->free_count) {
        w->free_count--;
    } else {
        w->slots[slot].generation = 1u;
        w->slot_count++;
    }
    uint32_t i = w->count++;
    w->slot_dense[slot] = i;
    agent_columns *c = &w->col;
    float p[3] = {d->position[0], d->position[1],
                  w->dims == 3 ? d->position[2] : 0.0f};
    world_wrap_position(w, p);
    c->px[i] = p[0];
    c->py[i] = p[1];
    c->vx[i] = d->velocity[0];
    c->vy[i] = d->velocity[1];
    if (w->dims == 3) {
        c->pz[i] = p[2];
        c->vz[i] = d->velocity[2];
    }
    init_basis(w, i, d->velocity);
    c->mass[i] = d->mass;
    c->max_force[i] = d->max_force;
    c->max_speed[i] = d->max_speed;
    c->radius[i] = d->radius;
    c->wander_rate[i] = 0.0f;
    if (w->behaviour_state) {
        c->tx[i] = c->ty[i] = c->wx[i] = 0.0f;
        if (w->dims == 3)
            c->tz[i] = c->wy[i] = c->wz[i] = 0.0f;
        c->target_slot[i] = c->target_gen[i] = c->progress[i] = 0;
    }
    c->group[i] = d->group;
    c->slot[i] = slot;
    /* Every UNIFORM_* column got a value for the new row; absent ones are
     * skipped by the note. */
    for (int k = 0; k < UNIFORM_COLUMNS; k++)
        world_uniform_note(w, 1u << k, i);
    w->slots[slot].host_key = d->host_key;
    w->grid.valid = 0;
    *out = handle_of(w, slot);
    return THRONG_OK;
}

throng_status throng_agent_remove(throng_world *w, throng_agent h) {
    WORLD_WRITE(w);
    static const char fn[] = "throng_agent_remove";
    if (!w)
        return THRONG_ERR_NULL;
    int64_t s = handle_slot(w, h);
    if (s < 0)
        return stale(w, fn, h);
    agent_columns *c = &w->col;
    uint32_t i = w->slot_dense[s]; /* handle_slot brought the links up */
    uint32_t last = w->count - 1;
    if (w->slots[s].host_key != 0) {
        key_entry *e = NULL;
        HASH_FIND(hh, w->keys, &w->slots[s].host_key, sizeof(uint64_t), e);
        if (e) {
            throng_world *hash_world = w;
            HASH_DEL(w->keys, e);
            (void)hash_world;
            world_free(w, e, sizeof *e);
        }
    }
    if (i != last) {
        float **cols[FLOAT_COLUMNS];
        float_columns(c, cols);
        for (int k = 0; k < FLOAT_COLUMNS; k++)
            if (*cols[k])
                (*cols[k])[i] = (*cols[k])[last];
        uint32_t **ints[U32_COLUMN_COUNT];
        u32_columns(c, ints);
        for (int k = 0; k < U32_COLUMN_COUNT; k++)
            if (*ints[k])
                (*ints[k])[i] = (*ints[k])[last];
        w->slot_dense[c->slot[i]] = i;
    }
    slot_entry *e = &w->slots[s];
    w->slot_dense[s] = SLOT_FREE;
    e->host_key = 0;
    /* The slot's next agent gets the next generation; past the last one
     * the slot is retired instead, free but never handed out again, so no
     * generation ever comes round to name a second agent. */
    if (e->generation != SLOT_LAST_GENERATION) {
        e->generation++;
        w->free_slots[w->free_count++] = (uint32_t)s;
    }
    w->count--;
    if (w->count == 0) {
        w->uniform = UNIFORM_ALL;
        w->uniform_check = 0;
    }
    w->grid.valid = 0;
    return THRONG_OK;
}

throng_status throng_agent_find(const throng_world *cw, uint64_t key,
                                throng_agent *out) {
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!out)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_agent_find: out_agent must not be NULL");
    key_entry *e = NULL;
    if (key != 0)
        HASH_FIND(hh, w->keys, &key, sizeof(uint64_t), e);
    if (!e)
        return world_fail(w, THRONG_ERR_NOT_FOUND,
                          "throng_agent_find: no agent has host key %llu",
                          (unsigned long long)key);
    *out = handle_of(w, e->slot);
    return THRONG_OK;
}

throng_status throng_agent_index(const throng_world *cw, throng_agent h,
                                 uint32_t *out) {
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!out)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_agent_index: out_index must not be NULL");
    uint32_t i;
    RESOLVE(w, "throng_agent_index", h, i);
    *out = i;
    return THRONG_OK;
}

throng_status throng_agent_at(const throng_world *cw, uint32_t index,
                              throng_agent *out) {
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!out)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_agent_at: out_agent must not be NULL");
    if (index >= w->count)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "throng_agent_at: index %u is not below the agent "
                          "count %u",
                          index, w->count);
    *out = handle_of(w, w->col.slot[index]);
    return THRONG_OK;
}

/* Getters share one shape: check the world and out pointer, resolve the
 * handle, copy. */
#define GETTER_PROLOGUE(fn)                                                   \
    WORLD_READ(cw);                                                           \
    throng_world *w = (throng_world *)(uintptr_t)cw;                          \
    if (!w)                                                                   \
        return THRONG_ERR_NULL;                                               \
    if (!out)                                                                 \
        return world_fail(w, THRONG_ERR_NULL, "%s: out must not be NULL",     \
                          fn);                                                \
    uint32_t i;                                                               \
    RESOLVE(w, fn, h, i)

throng_status throng_agent_get_def(const throng_world *cw, throng_agent h,
                                   throng_agent_def *out) {
    GETTER_PROLOGUE("throng_agent_get_def");
    const agent_columns *c = &w->col;
    memset(out, 0, sizeof *out);
    out->position[0] = c->px[i];
    out->position[1] = c->py[i];
    out->velocity[0] = c->vx[i];
    out->velocity[1] = c->vy[i];
    if (w->dims == 3) {
        out->position[2] = c->pz[i];
        out->velocity[2] = c->vz[i];
    }
    out->mass = c->mass[i];
    out->max_force = c->max_force[i];
    out->max_speed = c->max_speed[i];
    out->radius = c->radius[i];
    out->group = c->group[i];
    out->host_key = w->slots[c->slot[i]].host_key;
    return THRONG_OK;
}

throng_status throng_agent_get_position(const throng_world *cw, throng_agent h,
                                        float out[3]) {
    GETTER_PROLOGUE("throng_agent_get_position");
    out[0] = w->col.px[i];
    out[1] = w->col.py[i];
    out[2] = w->dims == 3 ? w->col.pz[i] : 0.0f;
    return THRONG_OK;
}

throng_status throng_agent_get_velocity(const throng_world *cw, throng_agent h,
                                        float out[3]) {
    GETTER_PROLOGUE("throng_agent_get_velocity");
    out[0] = w->col.vx[i];
    out[1] = w->col.vy[i];
    out[2] = w->dims == 3 ? w->col.vz[i] : 0.0f;
    return THRONG_OK;
}

throng_status throng_agent_get_basis(const throng_world *cw, throng_agent h,
                                     float forward[3], float up[3],
                                     float side[3]) {
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!forward || !up || !side)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_agent_get_basis: forward, up and side must "
                          "not be NULL");
    uint32_t i;
    RESOLVE(w, "throng_agent_get_basis", h, i);
    const agent_columns *c = &w->col;
    forward[0] = c->fx[i];
    forward[1] = c->fy[i];
    if (w->dims == 3) {
        forward[2] = c->fz[i];
        up[0] = c->ux[i];
        up[1] = c->uy[i];
        up[2] = c->uz[i];
    } else {
        forward[2] = 0.0f;
        up[0] = 0.0f;
        up[1] = 0.0f;
        up[2] = 1.0f;
    }
    side[0] = forward[1] * up[2] - forward[2] * up[1];
    side[1] = forward[2] * up[0] - forward[0] * up[2];
    side[2] = forward[0] * up[1] - forward[1] * up[0];
    return THRONG_OK;
}

#define SCALAR_GETTER(name, column)                                           \
    throng_status throng_agent_get_##name(const throng_world *cw,             \
                                          throng_agent h, float *out) {       \
        GETTER_PROLOGUE("throng_agent_get_" #name);                           \
        *out = w->col.column[i];                                              \
        return THRONG_OK;                                                     \
    }

SCALAR_GETTER(mass, mass)
SCALAR_GETTER(max_force, max_force)
SCALAR_GETTER(max_speed, max_speed)
SCALAR_GETTER(radius, radius)

throng_status throng_agent_get_group(const throng_world *cw, throng_agent h,
                                     uint32_t *out) {
    GETTER_PROLOGUE("throng_agent_get_group");
    *out = w->col.group[i];
    return THRONG_OK;
}

throng_status throng_agent_get_host_key(const throng_world *cw, throng_agent h,
                                        uint64_t *out) {
    GETTER_PROLOGUE("throng_agent_get_host_key");
    *out = w->slots[w->col.slot[i]].host_key;
    return THRONG_OK;
}

throng_status throng_agent_set_position(throng_world *w, throng_agent h,
                                        const float position[3]) {
    WORLD_WRITE(w);
    static const char fn[] = "throng_agent_set_position";
    if (!w)
        return THRONG_ERR_NULL;
    if (!position)
        return world_fail(w, THRONG_ERR_NULL, "%s: position must not be NULL",
                          fn);
    uint32_t i;
    RESOLVE(w, fn, h, i);
    throng_status st = check_vec(w, fn, "position", position);
    if (st != THRONG_OK)
        return st;
    float p[3] = {position[0], position[1],
                  w->dims == 3 ? position[2] : 0.0f};
    world_wrap_position(w, p);
    w->col.px[i] = p[0];
    w->col.py[i] = p[1];
    if (w->dims == 3)
        w->col.pz[i] = p[2];
    w->grid.valid = 0;
    return THRONG_OK;
}

throng_status throng_agent_set_velocity(throng_world *w, throng_agent h,
                                        const float velocity[3]) {
    WORLD_WRITE(w);
    static const char fn[] = "throng_agent_set_velocity";
    if (!w)
        return THRONG_ERR_NULL;
    if (!velocity)
        return world_fail(w, THRONG_ERR_NULL, "%s: velocity must not be NULL",
                          fn);
    uint32_t i;
    RESOLVE(w, fn, h, i);
    throng_status st = check_vec(w, fn, "velocity", velocity);
    if (st != THRONG_OK)
        return st;
    w->col.vx[i] = velocity[0];
    w->col.vy[i] = velocity[1];
    if (w->dims == 3)
        w->col.vz[i] = velocity[2];
    w->grid.valid = 0;
    return THRONG_OK;
}

#define SCALAR_SETTER(name, column, positive, bit)                            \
    throng_status throng_agent_set_##name(throng_world *w, throng_agent h,    \
                                          float value) {                      \
        static const char fn[] = "throng_agent_set_" #name;                   \
        WORLD_WRITE(w);                                                       \
        if (!w)                                                               \
            return THRONG_ERR_NULL;                                           \
        uint32_t i;                                                           \
        RESOLVE(w, fn, h, i);                                                 \
        throng_status st = check_scalar(w, fn, #name, value, positive);       \
        if (st != THRONG_OK)                                                  \
            return st;                                                        \
        w->col.column[i] = value;                                             \
        world_uniform_note(w, bit, i);                                        \
        return THRONG_OK;                                                     \
    }

SCALAR_SETTER(mass, mass, 1, UNIFORM_MASS)
SCALAR_SETTER(max_force, max_force, 0, UNIFORM_MAX_FORCE)
SCALAR_SETTER(max_speed, max_speed, 0, UNIFORM_MAX_SPEED)
SCALAR_SETTER(radius, radius, SCALAR_LENGTH, UNIFORM_RADIUS)

throng_status throng_agent_set_group(throng_world *w, throng_agent h,
                                     uint32_t group) {
    WORLD_WRITE(w);
    static const char fn[] = "throng_agent_set_group";
    if (!w)
        return THRONG_ERR_NULL;
    uint32_t i;
    RESOLVE(w, fn, h, i);
    throng_status st = check_group(w, fn, group);
    if (st != THRONG_OK)
        return st;
    w->col.group[i] = group;
    world_uniform_note(w, UNIFORM_GROUP, i);
    return THRONG_OK;
}

throng_status throng_agent_set_host_key(throng_world *w, throng_agent h,
                                        uint64_t key) {
    WORLD_WRITE(w);
    static const char fn[] = "throng_agent_set_host_key";
    if (!w)
        return THRONG_ERR_NULL;
    uint32_t i;
    RESOLVE(w, fn, h, i);
    uint64_t old = w->slots[w->col.slot[i]].host_key;
    if (key == old)
        return THRONG_OK;
    key_entry *e = NULL;
    if (key != 0) {
        key_entry *found = NULL;
        HASH_FIND(hh, w->keys, &key, sizeof(uint64_t), found);
        if (found)
            return world_fail(w, THRONG_ERR_DUPLICATE_KEY,
                              "%s: host key %llu already names an agent", fn,
                              (unsigned long long)key);
        e = world_alloc(w, sizeof *e);
        if (!e)
            return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                              "%s: no memory for the host key", fn);
        memset(e, 0, sizeof *e);
        e->key = key;
        e->slot = w->col.slot[i];
        throng_world *hash_world = w;
        int hash_oom = 0;
        HASH_ADD(hh, w->keys, key, sizeof(uint64_t), e);
        if (hash_oom) {
            key_entry *check = NULL;
            HASH_FIND(hh, w->keys, &key, sizeof(uint64_t), check);
            if (!check) {
                world_free(w, e, sizeof *e);
                return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                                  "%s: no memory for the host key table", fn);
            }
        }
    }
    if (old != 0) {
        key_entry *prev = NULL;
        HASH_FIND(hh, w->keys, &old, sizeof(uint64_t), prev);
        if (prev) {
            throng_world *hash_world = w;
            HASH_DEL(w->keys, prev);
            (void)hash_world;
            world_free(w, prev, sizeof *prev);
        }
    }
    w->slots[w->col.slot[i]].host_key = key;
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* Behaviour state                                                          */
/* ------------------------------------------------------------------------ */

static throng_status need_state(throng_world *w, const char *fn) {
    if (world_enable_behaviour_state(w))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for the behaviour state of %u agents",
                          fn, w->capacity);
    return THRONG_OK;
}

throng_status throng_agent_set_target_point(throng_world *w, throng_agent h,
                                            const float point[3]) {
    WORLD_WRITE(w);
    static const char fn[] = "throng_agent_set_target_point";
    if (!w)
        return THRONG_ERR_NULL;
    uint32_t i;
    RESOLVE(w, fn, h, i);
    if (!point)
        return world_fail(w, THRONG_ERR_NULL, "%s: point is NULL", fn);
    throng_status st = check_vec(w, fn, "point", point);
    if (st != THRONG_OK || (st = need_state(w, fn)) != THRONG_OK)
        return st;
    w->col.tx[i] = point[0];
    w->col.ty[i] = point[1];
    world_uniform_note(w, UNIFORM_TX, i);
    world_uniform_note(w, UNIFORM_TY, i);
    if (w->dims == 3) {
        w->col.tz[i] = point[2];
        world_uniform_note(w, UNIFORM_TZ, i);
    }
    return THRONG_OK;
}

throng_status throng_agent_get_target_point(const throng_world *cw,
                                            throng_agent h, float out[3]) {
    WORLD_READ(cw);
    static const char fn[] = "throng_agent_get_target_point";
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    uint32_t i;
    RESOLVE(w, fn, h, i);
    if (!out)
        return world_fail(w, THRONG_ERR_NULL, "%s: out is NULL", fn);
    int on = w->behaviour_state;
    out[0] = on ? w->col.tx[i] : 0.0f;
    out[1] = on ? w->col.ty[i] : 0.0f;
    out[2] = on && w->dims == 3 ? w->col.tz[i] : 0.0f;
    return THRONG_OK;
}

throng_status throng_agent_set_target_agent(throng_world *w, throng_agent h,
                                            throng_agent target) {
    WORLD_WRITE(w);
    static const char fn[] = "throng_agent_set_target_agent";
    if (!w)
        return THRONG_ERR_NULL;
    uint32_t i;
    RESOLVE(w, fn, h, i);
    int none = target.slot == 0 && target.generation == 0 &&
               target.world == 0;
    if (!none) {
        /* Targets are kept as slot and generation: a handle of another
         * world is refused here, so every stored target is this world's. */
        int64_t s = handle_slot(w, target);
        if (s < 0)
            return handle_fail(w, fn, "target", target.slot,
                               target.generation, target.world, "agent");
        if ((uint32_t)s == w->col.slot[i])
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: an agent cannot target itself", fn);
    }
    throng_status st = need_state(w, fn);
    if (st != THRONG_OK)
        return st;
    w->col.target_slot[i] = none ? 0 : target.slot;
    w->col.target_gen[i] = none ? 0 : target.generation;
    world_uniform_note(w, UNIFORM_TARGET_SLOT, i);
    world_uniform_note(w, UNIFORM_TARGET_GEN, i);
    return THRONG_OK;
}

throng_status throng_agent_get_target_agent(const throng_world *cw,
                                            throng_agent h,
                                            throng_agent *out) {
    WORLD_READ(cw);
    static const char fn[] = "throng_agent_get_target_agent";
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    uint32_t i;
    RESOLVE(w, fn, h, i);
    if (!out)
        return world_fail(w, THRONG_ERR_NULL, "%s: out is NULL", fn);
    out->slot = w->behaviour_state ? w->col.target_slot[i] : 0;
    out->generation = w->behaviour_state ? w->col.target_gen[i] : 0;
    /* The null handle stays all zero. */
    out->world = out->slot != 0 ? w->id : 0u;
    return THRONG_OK;
}

throng_status throng_agent_set_progress(throng_world *w, throng_agent h,
                                        uint32_t progress) {
    WORLD_WRITE(w);
    static const char fn[] = "throng_agent_set_progress";
    if (!w)
        return THRONG_ERR_NULL;
    uint32_t i;
    RESOLVE(w, fn, h, i);
    throng_status st = need_state(w, fn);
    if (st != THRONG_OK)
        return st;
    w->col.progress[i] = progress;
    return THRONG_OK;
}

throng_status throng_agent_get_progress(const throng_world *cw, throng_agent h,
                                        uint32_t *out) {
    WORLD_READ(cw);
    static const char fn[] = "throng_agent_get_progress";
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    uint32_t i;
    RESOLVE(w, fn, h, i);
    if (!out)
        return world_fail(w, THRONG_ERR_NULL, "%s: out is NULL", fn);
    *out = w->behaviour_state ? w->col.progress[i] : 0;
    return THRONG_OK;
}
