/* SPDX-License-Identifier: MIT */
/*
 * Worlds: creation and destruction, settings, statistics and the hash of
 * the state.
 *
 * Every public entry point here validates all of its arguments before it
 * changes anything, and acquires every resource it may need before it
 * commits, so a refused or failed call leaves the world exactly as it was.
 * Allocation goes through the world's allocator, including uthash's
 * (tables.h).
 */
#include "internal.h"
#include "busy.h"
#include "geometry.h"
#include "behaviour.h"
#include "core.h"
#include "columns.h"
#include "grid_plan.h"
#include "group.h"
#include "tables.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detmath.h"
#include "parallel.h"
#include "agent.h"
#include "simd.h"
#include "world.h"

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

/* ------------------------------------------------------------------------ */
/* Definitions and their defaults                                           */
/* ------------------------------------------------------------------------ */

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
        return create_fail(
            def, THRONG_ERR_NOT_FINITE, "%s: %s is not finite", fn,
            is_finite_float(def->neighbour_radius) ? "cell_size"
                                                   : "neighbour_radius");
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
                           fn, (double)THRONG_MIN_TICK, (double)THRONG_MAX_TICK,
                           THRONG_MAX_SUBSTEPS, (double)def->max_dt,
                           def->max_substeps);
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
    double asked[3] = { 1.0, 1.0, 1.0 }, asked_total = 1.0;
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
            (void)create_fail(
                def, THRONG_ERR_NULL,
                "throng_world_create: out_world must not be NULL");
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
    w->id =
        atomic_fetch_add_explicit(&world_id_counter, 1u, memory_order_relaxed) +
        1u;
    w->uniform = UNIFORM_ALL;
    w->single = SINGLE_COLUMNS;
    /* Checked above, so this names a path; the step points the world at
     * its kernels (kernel_paths.c) before the first step. */
    w->simd = simd_resolve(def->simd);
    w->simd_name = throng_simd_name(w->simd);
    grid_init(&w->grid, w->dims, periodic, w->box, w->neighbour_radius,
              def->cell_size);

    throng_group_def gd = throng_group_def_default();
    gd.name = "default";
    /* The default recipe's radii cannot exceed this world's radius. */
    float *radii[] = { &gd.flocking.separation_radius,
                       &gd.flocking.alignment_radius,
                       &gd.flocking.cohesion_radius };
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
    /* Watchers first: once told, they never touch the world again. */
    for (world_watch *watch = w->watches; watch;) {
        world_watch *next = watch->next;
        watch->next = NULL;
        watch->gone(watch);
        watch = next;
    }
    w->watches = NULL;
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
    verlet_release(w, &w->verlet, w->dims);
    geometry_free(w);
    free_columns(w, &w->col, w->capacity);
    for (int b = 0; b < GRID_PERMUTE_BATCH; b++)
        column_free(w, w->spare4[b], w->capacity, 4u);
    world_free(w, w->slots, (size_t)w->slot_capacity * sizeof(slot_entry));
    world_free(w, w->slot_keys, (size_t)w->slot_capacity * sizeof(uint64_t));
    world_free(w, w->slot_nav, (size_t)w->slot_capacity * sizeof(slot_nav));
    world_free(w, w->nav_arrivals,
               (size_t)w->slot_capacity * sizeof(throng_nav_arrival));
    world_free(w, w->slot_dense, (size_t)w->slot_capacity * sizeof(uint32_t));
    world_free(w, w->free_slots, (size_t)w->slot_capacity * sizeof(uint32_t));
    world_free(w, w->origin_gen, (size_t)w->origin_slots * sizeof(uint32_t));
    world_free(w, w->origin_object_gen,
               (size_t)w->origin_objects * sizeof(uint32_t));
    world_free(w, w->origin_group_gen,
               (size_t)w->origin_groups * sizeof(uint32_t));
    column_free(w, w->key_rows, w->key_rows_capacity, sizeof(uint64_t));
    world_free(w, w->groups, (size_t)w->group_capacity * sizeof(group_record));
    world_free(w, w->group_params,
               (size_t)w->group_capacity * sizeof(group_kernel_params));
    world_free(w, w->counters,
               (size_t)w->counters_len * sizeof(thread_counters));
    world_free(w, w->cap_index, w->cap_index_bytes);
    world_free(w, w->velocity_scratch, w->velocity_scratch_bytes);
    world_free(w, w->contact_scratch, w->contact_scratch_bytes);
    world_free(w, w->tie_rows, tie_rows_bytes(w->tie_rows_count));
    throng_world boot;
    memset(&boot, 0, sizeof boot);
    boot.allocator = w->allocator;
    world_free(&boot, w, sizeof *w);
}

void world_watch_add(throng_world *w, world_watch *watch) {
    watch->next = w->watches;
    w->watches = watch;
}

void world_watch_remove(throng_world *w, world_watch *watch) {
    for (world_watch **link = &w->watches; *link; link = &(*link)->next)
        if (*link == watch) {
            *link = watch->next;
            watch->next = NULL;
            return;
        }
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
    WRITE_ENTRY(w);
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
    static const char fn[] = "throng_world_set_task_hooks";
    WRITE_ENTRY(w);
    throng_status st =
        task_hooks_check(enqueue_task, finish_task, worker_count);
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
    WRITE_ENTRY(w);
    w->stable_columns = stable ? 1 : 0;
    return THRONG_OK;
}

throng_status throng_world_set_canonical_order(throng_world *w,
                                               bool canonical) {
    WRITE_ENTRY(w);
    w->canonical_order = canonical ? 1 : 0;
    w->grid.valid = 0; /* the next build orders the cells anew */
    return THRONG_OK;
}

bool throng_world_canonical_order(const throng_world *w) {
    WORLD_READ_OR(w, false);
    return w && w->canonical_order;
}

throng_status throng_world_set_neighbour_skin(throng_world *w, float skin) {
    static const char fn[] = "throng_world_set_neighbour_skin";
    WRITE_ENTRY(w);
    if (!is_finite_float(skin))
        return world_fail(w, THRONG_ERR_NOT_FINITE, "%s: skin is not finite",
                          fn);
    if (!(skin >= 0.0f && skin <= w->neighbour_radius))
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: skin %g must be in [0, %g] metres (0 to the "
                          "neighbour radius)",
                          fn, (double)skin, (double)w->neighbour_radius);
    verlet_set_skin(w, skin);
    return THRONG_OK;
}

float throng_world_neighbour_skin(const throng_world *w) {
    WORLD_READ_OR(w, 0.0f);
    return w ? w->verlet.skin : 0.0f;
}

throng_status throng_world_get_def(const throng_world *cw,
                                   throng_world_def *out) {
    READ_ENTRY(cw, w, "throng_world_get_def", out, "out");
    throng_world_def d = throng_world_def_default();
    d.dimensions = w->dims;
    d.boundary = w->boundary;
    for (int a = 0; a < 3; a++)
        d.box_size[a] = a < w->dims || w->boundary != THRONG_BOUNDARY_PERIODIC
                            ? w->box[a]
                            : d.box_size[a];
    d.neighbour_radius = w->neighbour_radius;
    d.cell_size = w->cell_size;
    d.threads = w->threads;
    d.seed = w->seed;
    d.initial_capacity = 0;
    d.allocator = w->allocator;
    d.max_dt = w->max_dt;
    d.max_substeps = w->max_substeps;
    d.simd = w->simd;
    d.enqueue_task = w->enqueue_task;
    d.finish_task = w->finish_task;
    d.task_context = w->task_context;
    d.worker_count = w->worker_count;
    *out = d;
    return THRONG_OK;
}

int step_limits_valid(float max_dt, uint32_t max_substeps) {
    return max_dt >= THRONG_MIN_TICK && max_dt <= THRONG_MAX_TICK &&
           max_substeps >= 1u && max_substeps <= THRONG_MAX_SUBSTEPS;
}

throng_status throng_world_set_step_limits(throng_world *w, float max_dt,
                                           uint32_t max_substeps) {
    static const char fn[] = "throng_world_set_step_limits";
    WRITE_ENTRY(w);
    throng_status st = check_finite(w, fn, "max_dt", max_dt);
    if (st != THRONG_OK)
        return st;
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
    size_t floats = 0, ints = 0, singles = 0;
    for (int k = 0; k < FLOAT_COLUMNS; k++) {
        const int present = column_present(w->dims, w->behaviour_state, k);
        const int single = present && float_column_single(w, k);
        floats += (size_t)(present && !single);
        singles += (size_t)single;
    }
    for (int k = 0; k < U32_COLUMN_COUNT; k++)
        ints += (size_t)u32_present(w->behaviour_state, k);
    /* Columns and the spare buffers (the steering force borrows some). */
    size_t per_agent = floats * sizeof(float) + ints * sizeof(uint32_t) +
                       GRID_PERMUTE_BATCH * 4u;
    size_t bytes =
        sizeof *w + (size_t)w->capacity * per_agent +
        singles * COLUMN_PAD * sizeof(float) +
        (size_t)w->slot_capacity *
            (sizeof(slot_entry) + 2 * sizeof(uint32_t) +
             (w->slot_keys ? sizeof(uint64_t) : 0u) +
             (w->slot_nav ? sizeof(slot_nav) + sizeof(throng_nav_arrival)
                          : 0u)) +
        (size_t)w->group_capacity *
            (sizeof(group_record) + sizeof(group_kernel_params)) +
        (size_t)w->counters_len * sizeof(thread_counters) +
        grid_bytes(&w->grid) + verlet_bytes(&w->verlet, w->dims) +
        w->cap_index_bytes + w->velocity_scratch_bytes +
        w->contact_scratch_bytes + tie_rows_bytes(w->tie_rows_count);
    bytes += hash_bytes(w->keys ? w->keys->hh.tbl : NULL, sizeof(key_entry));
    bytes += hash_bytes(w->names ? w->names->hh.tbl : NULL, sizeof(name_entry));
    bytes += geometry_bytes(w);
    bytes += ((size_t)w->origin_slots + w->origin_objects + w->origin_groups) *
             sizeof(uint32_t);
    if (w->key_rows)
        bytes += ((size_t)w->key_rows_capacity + COLUMN_PAD) * sizeof(uint64_t);
    return bytes;
}

throng_status throng_world_stats(const throng_world *cw,
                                 throng_step_stats *out) {
    READ_ENTRY(cw, w, "throng_world_stats", out, "out");
    *out = w->stats;
    out->simd = w->simd_name;
    return THRONG_OK;
}

/* Brings the rows' copy of the host keys up to date (world->key_rows):
 * allocated at the world's capacity when it is not yet, rewritten from
 * the slots when rows moved or keys changed since the last time. As
 * world_links, it changes no observable state, so the read-only
 * throng_world_columns may call it; concurrent readers take turns. 1 when
 * out of memory (the old copy, if any, is kept). */
static int key_rows_update(throng_world *w) {
    if (w->key_rows && w->key_rows_capacity == w->capacity &&
        !atomic_load_explicit(&w->keys_stale, memory_order_acquire))
        return 0;
    int failed = 0;
    shared_write_lock(w);
    if (!w->key_rows || w->key_rows_capacity != w->capacity) {
        uint64_t *rows = column_alloc(w, w->capacity, sizeof(uint64_t));
        if (rows) {
            column_free(w, w->key_rows, w->key_rows_capacity, sizeof(uint64_t));
            w->key_rows = rows;
            w->key_rows_capacity = w->capacity;
            atomic_store_explicit(&w->keys_stale, 1, memory_order_relaxed);
        } else {
            failed = 1;
        }
    }
    if (!failed && atomic_load_explicit(&w->keys_stale, memory_order_relaxed)) {
        const uint32_t *restrict slot = w->col.slot;
        const uint64_t *restrict keys = w->slot_keys;
        uint64_t *restrict rows = w->key_rows;
        for (uint32_t r = 0; r < w->count; r++)
            rows[r] = keys ? keys[slot[r]] : 0u;
        atomic_store_explicit(&w->keys_stale, 0, memory_order_release);
    }
    shared_write_unlock(w);
    return failed;
}

throng_status throng_world_columns(const throng_world *cw,
                                   throng_columns *out) {
    READ_ENTRY(cw, w, "throng_world_columns", out, "out");
    if (key_rows_update(w) != 0)
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "throng_world_columns: no memory for the host key "
                          "column of %u agents",
                          w->capacity);
    const agent_columns *c = &w->col;
    out->count = w->count;
    out->px = c->px;
    out->py = c->py;
    out->pz = c->pz;
    out->vx = c->vx;
    out->vy = c->vy;
    out->vz = c->vz;
    out->fx = c->fx;
    out->fy = c->fy;
    out->fz = c->fz;
    out->ux = c->ux;
    out->uy = c->uy;
    out->uz = c->uz;
    out->group = c->group;
    out->host_key = w->key_rows;
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
        c->px,   c->py,        c->pz,        c->vx,     c->vy,          c->vz,
        c->fx,   c->fy,        c->fz,        c->ux,     c->uy,          c->uz,
        c->mass, c->max_force, c->max_speed, c->radius, c->wander_rate, c->tx,
        c->ty,   c->tz,        c->wx,        c->wy,     c->wz
    };
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
                h = mix_word(
                    h, float_bits(cols[k][float_column_single(w, k) ? 0u : i]));
        h = mix_word(h, c->group[i]);
        h = mix_word(h, slot_host_key(w, s));
        if (w->behaviour_state) {
            h = mix_word(h, ((uint64_t)c->target_slot[i] << 32) |
                                c->target_gen[i]);
            h = mix_word(h, c->progress[i]);
        }
        if (w->slot_nav) {
            const slot_nav *n = &w->slot_nav[s];
            h = mix_word(h, ((uint64_t)n->field_id << 32) | n->field_gen);
            h = mix_word(h, ((uint64_t)n->arrived_id << 32) | n->arrived_gen);
            h = mix_word(h, ((uint64_t)n->goal << 16) |
                                ((uint64_t)n->state << 8) | n->remove);
        }
    }
    return h;
}
