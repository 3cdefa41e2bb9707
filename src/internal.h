/* SPDX-License-Identifier: MIT */
/*
 * The world's private layout, shared by the library's modules: types,
 * constants and a few inline helpers. Functions are declared in the
 * header of the file that defines them (agent.h, columns.h, core.h, ...;
 * make check-layers checks it).
 *
 * Agents are rows of structure-of-arrays columns in dense order: rows
 * 0 .. count-1 are live, with no holes, so every kernel is a plain loop over
 * contiguous arrays. A slot table gives each agent a stable handle: a slot
 * records the agent's dense row and a generation that is bumped when the
 * agent is removed, so an old handle is told apart from the agent that later
 * reuses the slot. Generations use all 32 bits and never wrap: a slot whose
 * generation has reached UINT32_MAX is retired when its agent is removed
 * (it stays free and is never reused), so no handle can ever name a second
 * agent. Handles also carry the world's id, which tells worlds apart. Hot
 * columns (read by every step) are separate arrays from
 * the cold ones (host keys, slot back-links), so a step never pulls cold
 * bytes through the cache.
 */
#ifndef THRONG_INTERNAL_H
#define THRONG_INTERNAL_H

#include "throng.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>

#include "check.h"
#include "grid.h"
#include "verlet.h"
#include "parallel.h"

/* Every heap block the world owns is aligned to a cache line, so columns
 * start on a vector boundary and two threads never share a line at the
 * start of their ranges. */
#define THRONG_ALIGN 64u

/* The slot table marks a free slot with this dense row. */
#define SLOT_FREE UINT32_MAX

/* The handle layout, one for agents, objects and groups: {index,
 * generation, world}. The index is a slot (agents) or an id (objects
 * count from 1, groups from 0); the generation starts at
 * HANDLE_FIRST_GENERATION when the index is first handed out and is
 * bumped each time what holds it is removed (generation_release); the
 * world is the id of the world that handed it out, 0 only in the null
 * handle. A handle names something live when its world is this world's id
 * and its generation is the one its index holds now (handle_rebind and
 * handle_fail, handles.c, word the refusals).
 *
 * The last generation a slot or id is given is SLOT_LAST_GENERATION.
 * Removing the agent, object or group that holds it retires the slot or id
 * instead of bumping it past the end: a free slot with this generation
 * that is not on the free list is retired for good. One slot in four
 * billion reuses is the cost. */
#define HANDLE_FIRST_GENERATION 1u
#define SLOT_LAST_GENERATION UINT32_MAX

/* A slot or id is freed: bumps its generation so old handles go stale.
 * 1 when it may be handed out again (back on its free list), 0 when it
 * held its last generation and is retired. */
static inline int generation_release(uint32_t *generation) {
    if (*generation == SLOT_LAST_GENERATION)
        return 0;
    ++*generation;
    return 1;
}

/* A slot never moves, so the agent's cold data lives in arrays indexed
 * by slot rather than in columns the step would permute. The slot's
 * current row is kept apart, in slot_dense: every step rewrites it for
 * every agent, and a 4-byte array stays in cache. Host keys, read only by
 * lookups, are another array (world->slot_keys), which a world whose host
 * never keys an agent does without. */
typedef struct slot_entry {
    uint32_t generation; /* current generation, >= 1 */
} slot_entry;

/* A slot's navigation state (nav_agents.c): the field its agent follows
 * instead of its FOLLOW_NAV behaviours' own (id 0: theirs), and its
 * arrival. Cold, per slot like host keys: the behaviour writes only its
 * own agent's entry. */
typedef struct slot_nav {
    uint32_t field_id, field_gen;     /* its own field; id 0 for none */
    uint32_t arrived_id, arrived_gen; /* the field it arrived by */
    uint32_t goal;                    /* the goal it arrived at */
    uint8_t state;                    /* SLOT_NAV_* */
    uint8_t remove; /* remove the agent at the end of its arrival's tick */
    uint8_t pad[2];
} slot_nav;

/* Going; arrived during the tick that runs (the end of the tick lists
 * it, and removes it when asked); arrived earlier. */
#define SLOT_NAV_GOING 0u
#define SLOT_NAV_ARRIVING 1u
#define SLOT_NAV_ARRIVED 2u

/* The hot and cold columns of the agents, each `capacity` long. z, up and
 * the 3D-only columns are NULL in a 2D world. */
typedef struct agent_columns {
    float *px, *py, *pz;
    float *vx, *vy, *vz;
    float *fx, *fy, *fz; /* forward (unit heading) */
    float *ux, *uy, *uz; /* up, 3D only */
    float *mass, *max_force, *max_speed, *radius;
    float *wander_rate; /* wander's current turn rate, radians per step */
    /* Behaviour state, allocated on first use (world->behaviour_state):
     * the target point; the projected-circle wander's angle (wx, 2D) or
     * point on the unit sphere (wx, wy, wz, 3D). tz, wy, wz exist in 3D
     * only. */
    float *tx, *ty, *tz;
    float *wx, *wy, *wz;
    uint32_t *group;
    uint32_t *slot; /* dense row -> slot index */
    /* Behaviour state too: the target agent as slot + 1 (0: none) and the
     * generation it had when set; path or patrol progress. */
    uint32_t *target_slot, *target_gen, *progress;
} agent_columns;

/* A group's recipe as the user gave it, and the values kernels use, derived
 * once when the recipe changes so no kernel recomputes them per agent. */
typedef struct group_record {
    throng_flocking flocking;
    throng_wander wander;
    throng_combine_mode combine;
    throng_avoidance avoidance;
    throng_motion motion;
    throng_layers layers;
    char name[64];
    uint32_t behaviour_count;
    throng_behaviour behaviours[THRONG_MAX_BEHAVIOURS];
    /* The handle's generation: how many groups this id has named (>= 1
     * once handed out; a free id holds the generation its next group
     * gets). */
    uint32_t generation;
    /* 1 while a group holds the id; 0 for a removed group's hole, which
     * keeps the default recipe. */
    int live;
    /* A hole on the free stack: the id below it, or GROUP_NO_ID. */
    uint32_t next_free;
} group_record;

/* No group id: the end of the free stack. */
#define GROUP_NO_ID UINT32_MAX

/* The terms a recipe combines: the three flocking rules, turn-rate wander,
 * then the behaviour list. */
#define TERM_SEPARATION 0
#define TERM_ALIGNMENT 1
#define TERM_COHESION 2
#define TERM_WANDER 3
#define TERM_LIST 4
#define TERM_MAX (TERM_LIST + THRONG_MAX_BEHAVIOURS)

/* Per-group constants read by the neighbour kernels, one row per group. */
typedef struct group_kernel_params {
    float sep_r2, ali_r2, coh_r2; /* squared radii */
    float sep_w, ali_w, coh_w;    /* weights after the combine mode */
    float wander_w;
    float wander_rate_max, wander_change, wander_speed_factor;
    float cos_half_fov; /* cone test, when fov_on */
    float speed_factor;
    int fov_on;      /* field of view narrower than 2 pi */
    int sep_inverse; /* THRONG_SEPARATION_INVERSE_DISTANCE */
    int any;         /* any rule has a non-zero weight */
    /* The group has a behaviour list or combines by priority: its forces
     * are finished by the scalar recipe code (combine.c), which every
     * kernel path shares. */
    int recipe;
    /* Some neighbour rule has a non-zero weight: the agent needs the
     * neighbour walk at all. */
    int walk;
    /* Unaligned collision avoidance is in the list: the walk also tracks
     * the soonest predicted collision. */
    int uca;
    float uca_r2, uca_horizon, uca_margin;
    /* Obstacle avoidance is in the list (at any weight): the recipe
     * finish's runs share its obstacle queries (steer_env.c). */
    int avoid_obstacles;
    /* throng_flocking.max_neighbours: 0, or the nearest this many
     * neighbours are the only ones the rules see (scalar walk only). */
    uint32_t cap;
    /* Weights of the list after the combine mode, and the order terms are
     * added in (priority mode: by priority; else TERM order). */
    float list_w[THRONG_MAX_BEHAVIOURS];
    uint8_t order[TERM_MAX];
    uint8_t term_count;
    /* The velocity stage (throng_avoidance): ORCA on, its squared range
     * (the world's neighbour radius for 0), 1 / time horizon, the share,
     * the keep-right turn, the nudge and the most neighbours. */
    int orca;
    float orca_r2, orca_inv_tau, orca_share;
    float orca_inv_tau_static; /* 1 / obstacle time horizon */
    float keep_cos, keep_sin;  /* of the keep-right turn */
    float orca_nudge;          /* throng_avoidance.nudge */
    /* Contact passes (0: none; at most SCHEMA_CONTACT_MAX) and whether
     * their pushes count in the velocity, in the one word: a larger
     * struct makes every row's look-up of its group's row dearer. */
    uint16_t contact;
    uint16_t contact_velocity;
    /* throng_motion: the turn limit (rad/s, 0 none), the least speed. */
    float turn_rate, min_speed;
    /* The group's rows need the velocity stage: ORCA or a limit. */
    int velocity;
    uint32_t orca_max;
    /* throng_layers: the bit of the group's layer, the layers it sees,
     * and, set by each step's neighbour stage from every group's layer,
     * whether the mask hides some group (its walks then test each
     * candidate's layer) and whether some group's mask hides this one,
     * both derived from every group whenever one changes (group.c). */
    uint32_t layer_bit, see;
    int filter, filter_back;
} group_kernel_params;

struct flock_run;
struct flock_sums;
struct flock_counts;
struct kept_neighbour;
struct env_run;
struct env_block;
struct flock_rows_query;
struct pick_entry;
struct orca_block_2d;
struct flock_held;

typedef struct key_entry key_entry;
typedef struct name_entry name_entry;

/* Per-thread counters, padded so threads do not share a cache line. */
typedef struct thread_counters {
    uint64_t candidates;
    uint64_t neighbours;
    char pad[THRONG_ALIGN - 2 * sizeof(uint64_t)];
} thread_counters;

#define THRONG_MAX_THREADS THRONG_MAX_WORKERS

/* Ticks (throng_world_def.max_dt, max_substeps). */
#define THRONG_DEFAULT_MAX_DT 0.1f
#define THRONG_DEFAULT_MAX_SUBSTEPS 10u
#define THRONG_MIN_TICK 1e-6f
#define THRONG_MAX_TICK 10.0f
#define THRONG_MAX_SUBSTEPS 1000u

/* Where a resolution run in passes one at a time stands (the staged tick,
 * throng_world_tick_contact): the next pass, and what the lists of near
 * pairs have seen since their build. */
typedef struct contact_run {
    uint32_t pass;    /* the next pass */
    uint32_t passes;  /* of this tick */
    int rebuild;      /* the next pass walks and lists anew */
    float travel;     /* the most a row has moved since the lists' build */
    float margin;     /* the least margin of a listed row */
    float dt;         /* the tick's, over which a push counts in velocity */
    uint64_t present; /* the groups with rows, at the build (contact.c) */
} contact_run;

struct throng_world {
    /* The busy guard (busy.h): BUSY_WRITER while a call that changes the
     * world runs, else the number of calls reading it. */
    _Atomic uint32_t busy;
    /* Held for the moment a call reading the world writes to it, since
     * other calls may be reading at the same time: to bring the slot
     * links up to date (world_links) or record a refusal (world_fail). */
    _Atomic uint32_t shared_write;
    throng_allocator allocator;

    int dims;
    throng_boundary boundary;
    float box[3];
    float neighbour_radius;
    int threads;
    /* The host's task hooks (throng_world_def), both or neither; with
     * them, worker_count is 1 .. THRONG_MAX_WORKERS and replaces threads. */
    throng_enqueue_task_fn *enqueue_task;
    throng_finish_task_fn *finish_task;
    void *task_context;
    uint32_t worker_count;
    uint64_t seed;
    float cell_size;       /* as asked in the def (0: the default) */
    float max_dt;          /* the longest tick, seconds */
    uint32_t max_substeps; /* the most ticks per step */
    /* This world's id, unique in the process and never 0: every handle
     * it hands out carries it, so another world's handle is refused. */
    uint64_t id;
    /* The id of the world whose snapshot this world was loaded from, or 0:
     * handles carrying it may be rebound (throng_agent_rebind). */
    uint64_t origin;
    /* A loaded world: the generation of the agent each saved slot held
     * when the snapshot was written (0: none), origin_slots long; the same
     * for object ids. Rebinding checks them, so only handles that named a
     * live agent or object at the save are translated. */
    uint32_t *origin_gen;
    uint32_t origin_slots;
    uint32_t *origin_object_gen;
    uint32_t origin_objects;
    /* The same for group ids (0-based: entry id), origin_groups long. */
    uint32_t *origin_group_gen;
    uint32_t origin_groups;

    uint32_t count;
    uint32_t capacity;
    agent_columns col;

    slot_entry *slots;
    uint32_t *slot_dense; /* slot -> dense row, or SLOT_FREE */
    /* slot -> the host's key of its agent, 0 for none; slot_capacity long,
     * NULL until the first agent is given a key (slot_host_key reads it;
     * reserve_slot_keys, columns.c, makes it). */
    uint64_t *slot_keys;
    /* slot -> its navigation state (slot_nav), slot_capacity long, NULL
     * until the first FOLLOW_NAV behaviour or agent field
     * (world_enable_nav_state, columns.c); with it, the arrivals of the
     * last step, as many as there are slots at most (slot_capacity
     * long), and their count. */
    slot_nav *slot_nav;
    throng_nav_arrival *nav_arrivals;
    uint32_t nav_arrival_count;
    /* The rows of live slots in slot_dense are out of date: a step moved
     * the rows. Free slots are always marked. See world_links(). */
    _Atomic int links_stale;
    uint32_t slot_count;
    uint32_t slot_capacity;
    /* Stack of free slot indices, slot_capacity long. A retired slot (see
     * SLOT_LAST_GENERATION) is free but not on it. */
    uint32_t *free_slots;
    uint32_t free_count;

    key_entry *keys; /* uthash: host key -> slot */
    /* Each row's host key, for throng_columns.host_key: a copy of the
     * slots' keys in row order, key_rows_capacity long (allocated by the
     * first throng_world_columns, and again when the capacity grew), and
     * rewritten by throng_world_columns while keys_stale says rows moved
     * or keys changed since (every writer of rows or keys sets it), so a
     * step pays nothing for it. */
    uint64_t *key_rows;
    uint32_t key_rows_capacity;
    _Atomic int keys_stale;

    group_record *groups;
    group_kernel_params *group_params;
    uint32_t group_count;
    uint32_t group_capacity;
    name_entry *names; /* uthash: group name -> group id */
    /* Removed groups' ids, a stack threaded through the records
     * (group_record.next_free): its top and length. An id removed at its
     * last generation is retired: a hole, never on the stack. */
    uint32_t group_free_head;
    uint32_t group_free_count;
    int wander_used;  /* some group has had a wander weight (sticky) */
    uint32_t uniform; /* UNIFORM_* bits: those columns hold one value */
    /* UNIFORM_* bits (of SINGLE_COLUMNS) of the columns held as one row
     * while uniform; always a subset of `uniform`. */
    uint32_t single;
    uint32_t uniform_check; /* UNIFORM_* bits to look at again */
    int behaviour_state;    /* the behaviour-state columns exist (sticky) */
    /* Set at the start of each step's behaviour stage: some group has a
     * recipe; some group's rows need the scalar walk (steer_flock.c).
     * Kept with the groups: some group's mask hides some group (group.c). */
    int any_recipe, any_scalar_rows, any_layers;

    struct geometry *geo; /* static objects, NULL until the first */

    grid grid;
    /* Neighbour lists kept across ticks (verlet.c; off without a skin). */
    verlet_lists verlet;

    /* Step scratch, `capacity` long: the spare buffers the grid permutes
     * columns through, and the steering force of each row, which borrows
     * the first spares (world_steer_scratch, columns.c). */
    float *steer_x, *steer_y, *steer_z;
    void *spare4[GRID_PERMUTE_BATCH];
    /* Step scratch in two more spares, from the links of a step to the
     * end of its integration, NULL outside it (steer_resolve_rows,
     * steer.c): each row's live target row (steer_target_row(), -1 for
     * none), and each row's slot generation (the key of its random
     * streams). The behaviours (and, for the keys, ORCA's nudge) read
     * these rows in cell order instead of the slot table in slot order. */
    int32_t *target_rows;
    uint32_t *slot_gens;
    /* throng_world_set_stable_columns: the columns throng_world_columns
     * shows keep their memory through a step (grid.c copies them back
     * from the spares instead of trading places with them). */
    int stable_columns;
    /* throng_world_set_canonical_order: the rows of each grid cell are
     * ordered by host key (grid.c) and random streams are keyed by it
     * (steer_row_key), so a step's results depend on the agents' keys and
     * states only, not on their slots or the order they were added in.
     * Where a selection breaks a tie between two neighbours at the same
     * distance by their slots (the nearest K of the cap and of ORCA), or
     * parts two coincident agents by them (ORCA, contact resolution), a
     * canonical world compares their rows instead, which within a step
     * follow (cell, host key): tie_rows holds 0, 1, 2, ... for the
     * kernels that read a column of tie-breakers (world_ties()), grown
     * with the agents at the start of a step. */
    int canonical_order;
    uint32_t *tie_rows;
    uint32_t tie_rows_count;

    /* The neighbour cap's index of crowded buckets (steer_cap.c), one
     * block of cap_index_bytes, allocated by the first step a capped
     * group walks and grown with the agents. */
    void *cap_index;
    size_t cap_index_bytes;
    /* The velocity stage's per-thread scratch (velocity.c), allocated by
     * the first step some group avoids in and grown with the threads and
     * the largest max_neighbours. */
    void *velocity_scratch;
    size_t velocity_scratch_bytes;
    /* Contact resolution's lists of near pairs and per-row travel
     * (contact.c), allocated by the first step that resolves contacts and
     * grown with the agents. */
    void *contact_scratch;
    size_t contact_scratch_bytes;
    /* A tick run in stages (throng_world_tick_begin .. _finish): open
     * between its move and its end, with its contact passes' run and its
     * start times (step.c). */
    int tick_open;
    uint32_t tick_passes_run;
    contact_run tick_contact;
    double tick_t0, tick_t1, tick_t2;

    thread_counters *counters; /* THRONG_MAX_THREADS entries, lazily */
    parallel_tuner tuner;      /* how the OpenMP team fares (parallel.c) */
    uint32_t counters_len;

    uint64_t step;
    throng_step_stats stats;
    throng_simd simd;      /* the path in use (never AUTO) */
    const char *simd_name; /* its name */
    /* The path's functions (kernel_paths.c), set before the first step
     * (step.c) or when a test switches the path: */
    void (*kernel)(const throng_world *, uint32_t, uint32_t, float,
                   struct flock_counts *);
    /* The vector 2D integration of the kernel's instruction set, or NULL
     * for the scalar rows. */
    void (*integrate_2d)(throng_world *, uint32_t, uint32_t, float);
    void (*integrate_3d)(throng_world *, uint32_t, uint32_t, float);
    /* Its two halves for the velocity stage (integrate.h), or NULL. */
    void (*velocity_rows_2d)(throng_world *, uint32_t, uint32_t, float);
    void (*place_rows_2d)(throng_world *, uint32_t, uint32_t, float);
    /* The neighbour cap's scan of the same path (steer_flock.h). */
    uint32_t (*cap_scan)(const struct flock_run *, uint32_t, uint32_t,
                         struct kept_neighbour *, struct flock_counts *);
    /* Its counting of values below each (steer_flock.h), or NULL. */
    void (*count_below)(const int32_t *, uint32_t, uint32_t, int32_t *);
    /* Its measuring of the cap's candidates (steer_flock.h), or NULL. */
    uint32_t (*cap_rows)(const struct flock_rows_query *, const uint32_t *,
                         uint32_t, struct pick_entry *, uint32_t, uint64_t *);
    /* Its holding of the ORCA scan's candidates (steer_flock.h), or
     * NULL. */
    uint32_t (*hold_rows)(const struct flock_rows_query *, const uint32_t *,
                          uint32_t, const struct flock_held *, uint32_t);
    /* The same of a neighbour list's windows (steer_flock.h), or NULL
     * where hold_rows is. */
    uint32_t (*hold_windows)(const struct flock_rows_query *, const uint32_t *,
                             uint32_t, const struct flock_held *, uint32_t);
    /* The same of one stretch of at most FLOCK_MASK_ROWS rows, as bits
     * (steer_flock.h), or NULL where hold_rows is. */
    uint64_t (*mask_rows)(const struct flock_rows_query *, uint32_t);
    /* Obstacle avoidance's test of a run's rows on the path's lanes
     * (steer_env.h), or NULL for the scalar test row by row. */
    void (*env_lanes)(struct env_run *, uint32_t);
    /* Its obstacle avoidance of a block of rows on the lanes, for the
     * recipe finish on the lanes (steer_env.h), or NULL. */
    void (*env_block)(const struct throng_world *,
                      const struct throng_behaviour *, uint32_t,
                      const int32_t *, uint32_t, uint32_t, struct env_block *);
    /* ORCA in the plane on the path's lanes (orca_lanes.h); NULL on the
     * scalar path. */
    uint32_t (*orca_block_lines)(struct orca_block_2d *, float);
    uint32_t (*orca_block_solve)(struct orca_block_2d *, uint32_t);
    void (*orca_block_wants)(struct orca_block_2d *, uint32_t, uint64_t,
                             uint64_t);
    uint32_t (*orca_block_rest)(struct orca_block_2d *, uint32_t);

    /* What must hear of the world's destruction (world.h: world_watch),
     * a list its owners link in and out. */
    struct world_watch *watches;

    char error[256];
};

/* The number of float columns (some absent in 2D, some until first use)
 * and of 4-byte integer columns. */
#define FLOAT_COLUMN_COUNT 23
#define U32_COLUMN_COUNT 5
#define COLUMN4_MAX (FLOAT_COLUMN_COUNT + U32_COLUMN_COUNT)

/* Columns that only the API writes, one row at a time, and a step never
 * does. While every row of such a column holds the same bits, its bit is
 * set in world->uniform and a step does not permute it: reordering equal
 * values changes nothing. Most crowds give a whole group (or world) one
 * mass, one set of limits and one target, so this usually skips about a
 * third of the permutation's traffic. A write that differs from the other
 * rows clears the bit; a write to a column not known to be uniform marks
 * it for a look before the next permutation (a scan that stops at the
 * first differing row), since it may have made the rows equal again. */
#define UNIFORM_MASS (1u << 0)
#define UNIFORM_MAX_FORCE (1u << 1)
#define UNIFORM_MAX_SPEED (1u << 2)
#define UNIFORM_RADIUS (1u << 3)
#define UNIFORM_GROUP (1u << 4)
#define UNIFORM_TX (1u << 5)
#define UNIFORM_TY (1u << 6)
#define UNIFORM_TZ (1u << 7)
#define UNIFORM_TARGET_SLOT (1u << 8)
#define UNIFORM_TARGET_GEN (1u << 9)
/* The uniform columns that are stored as a single row (a block of
 * COLUMN_PAD elements) rather than `capacity` rows while every agent
 * shares their value, which most crowds do: a 2D world of one kind of
 * agent saves 12 of its 100-odd bytes per agent. A write that would make
 * the rows differ first gives the column all its rows (columns.c,
 * column_make_room); a load gives them all and takes them away again from
 * the columns that turn out uniform. Readers take row uniform_row(). Only
 * columns the API writes and kernels read as a per-agent constant qualify;
 * the kernels' vector paths already read row 0 of a uniform column. */
#define SINGLE_COLUMNS (UNIFORM_MASS | UNIFORM_MAX_FORCE | UNIFORM_MAX_SPEED)
/* Checked builds (check.h: the tests, the sanitizer builds, and so the
 * fuzzers and the sanitized soak) scan each column a step is about to
 * skip and stop if a row differs, a write that did not clear its bit. */
#define UNIFORM_COLUMNS 10
#define UNIFORM_ALL ((1u << UNIFORM_COLUMNS) - 1u)

/* Every 4-byte column holds this many elements past its capacity, so a
 * kernel may load a full vector (16 lanes) from any row below the count
 * without leaving the allocation; masks discard the extra lanes. Rows at
 * and past the count are never written by adds or loads: a column is
 * allocated without being written, so capacity costs address space, not
 * memory. The rows [count, count + COLUMN_PAD) that such a load may touch
 * are zeroed before each step's kernels run (world_zero_tails), so what
 * the discarded lanes compute never depends on old or uninitialised
 * memory. */
#define COLUMN_PAD 16u

/* The sentence of a refused step whose hooks broke their contract. */
#define TASK_HOOKS_BROKEN                                                   \
    "the task hooks did not run every item exactly once on a worker below " \
    "worker_count"

/* The row to read of a column with UNIFORM_* bit `bit` for the agent at
 * `row`: row 0 while the column is uniform, which is the only row a column
 * held as a single row has, and holds every row's bits otherwise too. */
static inline uint32_t uniform_row(const throng_world *w, uint32_t bit,
                                   uint32_t row) {
    return (w->uniform & bit) ? 0u : row;
}

/* The host key of the agent in slot `slot`, 0 for none. */
static inline uint64_t slot_host_key(const throng_world *w, uint32_t slot) {
    return w->slot_keys ? w->slot_keys[slot] : 0u;
}

/* Float checks shared by validation. */
static inline int is_finite_float(float x) {
    /* Written without <math.h> macros so -ffinite-math could never fold
     * it away: NaN fails x == x, infinities fail the range test. */
    return x == x && x <= FLT_MAX && x >= -FLT_MAX;
}

/* The one periodic wrap: x into [0, L) for a box edge L > 0. A position
 * a step moved past one edge comes back with one addition or subtraction;
 * a jump of more than a box (a huge dt or speed, or a position the host
 * set far outside) takes the slow, exact way; and where rounding would
 * land on L itself (or outside, for huge |x|) the answer is 0. Inline:
 * the integration calls it for every coordinate of every agent. */
static inline float periodic_wrap(float x, float L) {
    if (x < 0.0f)
        x += L;
    else if (x >= L)
        x -= L;
    if (x >= 0.0f && x < L)
        return x;
    float r = x - L * floorf(x / L);
    return r >= 0.0f && r < L ? r : 0.0f;
}

/* An unbounded world's coordinate after a move overflowed: it stays at
 * the largest float on its side instead of becoming infinite, so every
 * position stays finite (the sum of finite values is never NaN). */
static inline float saturate(float x) {
    if (x > FLT_MAX)
        return FLT_MAX;
    return x < -FLT_MAX ? -FLT_MAX : x;
}

/* The periodic box's nearest image of an offset d along an edge L (both
 * points inside the box): d, or d - L or d + L when more than half a box
 * away. */
static inline float periodic_offset(float d, float L) {
    if (d > 0.5f * L)
        return d - L;
    return d < -0.5f * L ? d + L : d;
}

/* A length in [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH] (throng.h says why
 * every length the API takes lies there). NaN is not. */
static inline int length_in_range(float x) {
    return x >= THRONG_MIN_LENGTH && x <= THRONG_MAX_LENGTH;
}

/* The bytes of a canonical world's tie_rows for n rows: the vector paths
 * read a range's tie-breakers a vector at a time, up to COLUMN_PAD past
 * its end, as they read the columns, so the padding is allocated (and
 * holds n, n + 1, ...) as the columns' is. */
static inline size_t tie_rows_bytes(uint32_t n) {
    return n ? ((size_t)n + COLUMN_PAD) * sizeof(uint32_t) : 0u;
}

/* The column that breaks ties between agents (see canonical_order): the
 * slots, or in a canonical world the rows themselves. */
static inline const uint32_t *world_ties(const throng_world *w) {
    return w->canonical_order ? w->tie_rows : w->col.slot;
}

/* The groups that hold rows: bit g for group g when some row is in it
 * (every group from 63 on shares bit 63, which then stands for all of
 * them). A pass over the group column unless it holds one value. */
static inline uint64_t groups_present(const throng_world *w) {
    const uint32_t *group = w->col.group;
    if (w->count == 0)
        return 0;
    if (w->uniform & UNIFORM_GROUP)
        return 1ull << (group[0] < 63u ? group[0] : 63u);
    uint64_t present = 0;
    for (uint32_t t = 0; t < w->count; t++)
        present |= 1ull << (group[t] < 63u ? group[t] : 63u);
    return present;
}

/* Whether group g is one of `present` (groups_present()). */
static inline int is_present(uint64_t present, uint32_t g) {
    return ((present >> (g < 63u ? g : 63u)) & 1u) != 0u;
}

#endif /* THRONG_INTERNAL_H */
