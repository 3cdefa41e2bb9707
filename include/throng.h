/* SPDX-License-Identifier: MIT */
/*
 * throng: a data-oriented crowd engine.
 *
 * Agents ("vehicles") live in structure-of-arrays columns inside a world.
 * Each step hashes agents into a uniform grid, runs each agent's steering
 * behaviours (chosen per group), folds them into one force and integrates
 * it with forward Euler, exactly as the vehicle model of Reynolds' steering
 * behaviours prescribes:
 *
 *     F = truncate(F_h, max_force)      a = F / m
 *     v = truncate(v + a dt, max_speed) p = p + v dt
 *
 * Conventions used throughout this header:
 * - Units are SI-like and left to the host: "metres" and "seconds" stand for
 *   whatever length and time unit the host uses consistently.
 * - Most functions return a throng_status; THRONG_OK is 0. A call that
 *   refuses its input leaves the world exactly as it was and records a
 *   sentence describing the refusal, read with throng_world_last_error().
 *   The others return their answer directly and say what they give for a
 *   NULL or busy world: the validity checks (throng_agent_valid,
 *   throng_group_valid) a bool; the counts, ids, sizes and hashes
 *   (throng_world_agent_count, throng_world_dimensions, throng_world_id,
 *   throng_world_step_count, throng_world_bytes, throng_world_hash,
 *   throng_world_object_count, throng_simd_supported) a number; the
 *   strings (throng_version, throng_status_string, throng_simd_name,
 *   throng_world_last_error) a static or world-owned string, never NULL;
 *   throng_simd_best a path; the _default() functions a filled def
 *   struct; throng_world_destroy nothing.
 * - The library never prints, never exits and never aborts on user input.
 * - One call at a time changes a world. A call that changes it (step,
 *   add, remove, every setter, group, behaviour and object call, the
 *   task hooks, throng_world_query_radius, destroy) needs the world to
 *   itself; calls that only read it (getters, counts, find, hash, stats,
 *   columns, object reads, snapshot size and saves, last error) may run
 *   on several threads at once. A call that arrives while that does not
 *   hold, from a second thread or from a callback (allocator, task hook)
 *   of a running call on the same world, is refused with THRONG_ERR_BUSY
 *   at once and does nothing; it never waits, so retrying is up to the
 *   caller. Functions that return no status return 0, false or NULL
 *   instead, as each says. Different worlds share nothing: each may be
 *   used from its own thread, and a callback may call into another
 *   world. The step itself runs in parallel internally.
 * - Creation functions take a definition struct filled by its _default()
 *   function; the struct is copied, never retained.
 */
#ifndef THRONG_H
#define THRONG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version: the one place it is written. The shared library
 * is libthrong.so.MAJOR.MINOR.PATCH; its soname is libthrong.so.0.MINOR
 * while MAJOR is 0 (every ABI change moves MINOR), libthrong.so.MAJOR from
 * 1.0 on (README.md, "Versions and ABI"; CHANGELOG.md). */
#define THRONG_VERSION_MAJOR 0
#define THRONG_VERSION_MINOR 6
#define THRONG_VERSION_PATCH 0

/* Marks the public API. The library is built with hidden visibility, so
 * only what carries this mark is exported from libthrong.so. */
#if defined(THRONG_BUILDING) && defined(__GNUC__)
#define THRONG_API __attribute__((visibility("default")))
#else
#define THRONG_API
#endif

/* The version as "MAJOR.MINOR.PATCH", e.g. "0.5.0" (a static string). */
THRONG_API const char *throng_version(void);

/* ------------------------------------------------------------------------ */
/* Status codes                                                             */
/* ------------------------------------------------------------------------ */

typedef enum throng_status {
    /* The call did what it says. Every other code means it was refused:
     * the world is exactly as it was before the call (no agent, object,
     * group or setting changed), and throng_world_last_error holds a
     * sentence that starts with the function's name, e.g.
     * "throng_world_step: dt is not finite". Calls without a world to
     * record it in (a NULL world, throng_world_create) return the code
     * alone; loads write the sentence to throng_world_load_def.error;
     * THRONG_ERR_BUSY records none (it leaves the last one in place).
     * When several arguments are bad, which one is reported is
     * unspecified. */
    THRONG_OK = 0,
    /* A required pointer argument (the world, a def, an array, a name, an
     * out pointer) was NULL; also an allocator with only one of its two
     * functions set. */
    THRONG_ERR_NULL = 1,
    /* A float argument or def field the call reads was NaN, +Inf or -Inf
     * (checked before its range). Components a world ignores (z in 2D)
     * are not checked; behaviour fields the behaviour's kind does not
     * read give THRONG_ERR_INVALID_ARG unless they keep their default. Also a save (throng_world_save, throng_world_save_file)
     * of a world holding a NaN or an infinity in an agent column or its
     * behaviour state, which only writing through the column pointers
     * can put there: nothing is written. */
    THRONG_ERR_NOT_FINITE = 2,
    /* A finite number, integer or enum outside its documented range,
     * for example: zero or negative mass; negative max speed, max force
     * or radius; dt <= 0; dimensions other than 2 or 3; an unknown enum
     * value or behaviour kind; an index at or past a count; a count or
     * size too small or too large (path points, flow field cells,
     * threads, initial capacity); a length outside [THRONG_MIN_LENGTH,
     * THRONG_MAX_LENGTH]; a periodic box of more than
     * THRONG_MAX_GRID_CELLS cells; a degenerate shape (box min >= max,
     * segment ends or a plane normal shorter than 1e-6, repeated path
     * points); a radius above the neighbour radius; a group name of 0 or
     * more than 63 bytes; an agent targeting itself; a wall segment in a
     * 3D world. */
    THRONG_ERR_OUT_OF_RANGE = 3,
    /* An agent, group or object handle that names no live agent, group or
     * object of this world: the null handle, a removed one (removing twice
     * gives this), a forged one, or one from another world (handles carry
     * the world's id, and the sentence then says the handle belongs to
     * another world). Also an object handle naming an object of the wrong
     * kind for the call (a sphere given as a path). Also a recorder whose
     * world was destroyed (throng_recorder_record). */
    THRONG_ERR_STALE_HANDLE = 4,
    /* No longer returned: group handles (throng_group) that name no live
     * group are refused with THRONG_ERR_STALE_HANDLE. Kept so the codes
     * that follow keep their values. */
    THRONG_ERR_UNKNOWN_GROUP = 5,
    /* A non-zero host key already held by another agent, or a group name
     * already in use ("default" included); also a recorded frame in which
     * an agent's host key equals the number the recorder gave a keyless
     * agent (see throng_recorder_def). */
    THRONG_ERR_DUPLICATE_KEY = 6,
    /* A lookup by host key (throng_agent_find), group name
     * (throng_group_find) or SIMD path name (throng_simd_from_name) found
     * nothing; key 0 and the empty name never name anything. */
    THRONG_ERR_NOT_FOUND = 7,
    /* Memory could not be allocated; the world is unchanged. */
    THRONG_ERR_OUT_OF_MEMORY = 8,
    /* A fixed limit was reached: THRONG_MAX_AGENTS, THRONG_MAX_GROUPS,
     * THRONG_MAX_OBJECTS or THRONG_MAX_BEHAVIOURS in a group; or a
     * caller's buffer is too small for the result (throng_world_save,
     * which then writes nothing); or a recorder's frame buffers all
     * waiting for its writer (throng_recorder_def.wait_when_full false). */
    THRONG_ERR_CAPACITY = 9,
    /* A snapshot is truncated, too long, corrupted (checksum) or
     * inconsistent, holds an object or agent its creation would refuse,
     * or is not a snapshot at all. */
    THRONG_ERR_BAD_SNAPSHOT = 10,
    /* A snapshot of a newer format version than this library reads. */
    THRONG_ERR_VERSION = 11,
    /* A file could not be opened, read, written, flushed to disk or
     * renamed (the sentence names the step and the system's reason);
     * also an empty path. */
    THRONG_ERR_IO = 12,
    /* A valid request this CPU or this build cannot serve: a SIMD path
     * (throng_world_def.simd) that the processor lacks or that the
     * library was built without; a recorder in a library built without
     * SQLite (throng_recorder_supported). Distinct from THRONG_ERR_OUT_OF_RANGE,
     * which throng_world_create returns for a value that is no path at
     * all, since creation has no world to hold a sentence. */
    THRONG_ERR_UNSUPPORTED = 13,
    /* The world was in use: a call made on a world while another call on
     * the same world is running, from inside one of that call's callbacks
     * (an allocator function, a task hook) or from a second thread. Calls
     * that change the world need it to themselves; calls that only read
     * it may share it (see the conventions at the top of this header).
     * Nothing was done, and, unlike every other refusal, no sentence was
     * recorded: throng_world_last_error still holds the one from before. */
    THRONG_ERR_BUSY = 14,
    /* An argument the call would not read was set, or arguments that are
     * each valid cannot be used together or in the world's present state:
     * a field of a behaviour that its kind, or the mode another of its
     * fields chooses, does not read (seek.point with source AGENT_POINT,
     * a box with use_box false) must keep its default value; a def field
     * that the def's kind does not read (a sphere's min, a plane's a) must
     * be 0; a group that agents still belong to cannot be removed. The
     * sentence names the field and why, or how many agents remain. */
    THRONG_ERR_INVALID_ARG = 15,
    /* The library broke one of its own invariants: returned only by a
     * library built with VALIDATE=1, whose step sweeps the world before
     * and after each of its stages (grid against brute force, rows
     * against handles, every column finite), when a check fails; the
     * sentence names the check, the stage and the agent's row and slot
     * or the cell. A host writing NaN or infinity through the column
     * pointers gets it too. The world's state is then not trustworthy:
     * destroy it (and report the sentence). */
    THRONG_ERR_INTERNAL = 16,
} throng_status;

/* The most agents and groups one world holds. */
#define THRONG_MAX_AGENTS (1u << 28)
#define THRONG_MAX_GROUPS 4096u

/* Every length the API takes (the neighbour radius, cell size and periodic
 * box of a world; flocking radii; an agent's body radius; behaviours'
 * radii, ranges and distances; obstacle and path radii; a flow field's
 * cell size) lies in [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH] metres, or is
 * 0 where its field says 0 means "off" or "the default"; anything else is
 * refused with THRONG_ERR_OUT_OF_RANGE and a sentence giving this range.
 * Why these bounds: the kernels compare squared distances in float
 * (|d|^2 <= r^2, sums of two or three squared components, squares of a
 * sum of a few lengths such as two body radii and a margin). A float is
 * normal from about 1.2e-38 to 3.4e38, so a square needs a length between
 * about 1.1e-19 and 1.8e19. Within [1e-9, 1e9] every square lies in
 * [1e-18, 1e18], twenty orders of magnitude inside that range on either
 * side (even a fourth power stays normal), so sums and small multiples of
 * squares never round to 0 or overflow, and a neighbour test never sees a
 * radius whose square is 0 or infinite (which made every candidate a
 * neighbour). Positions are any finite floats: an offset between two
 * far-apart agents that overflows to infinity (or a NaN) is "not a
 * neighbour", never one. */
#define THRONG_MIN_LENGTH 1e-9f
#define THRONG_MAX_LENGTH 1e9f

/* The most cells a periodic box's grid may have: floor(box_size[a] /
 * edge) cells along each axis a (edge = cell_size, or the neighbour
 * radius times 1.0009765625 when cell_size is 0; at least 3 per axis),
 * and their product at most this. A larger box (or smaller cells) is
 * refused by throng_world_create with THRONG_ERR_OUT_OF_RANGE and a
 * sentence giving both counts. */
#define THRONG_MAX_GRID_CELLS (1u << 24)

/* A fixed sentence naming the code ("invalid argument: not finite").
 * Never NULL; unknown codes give "unknown status". */
THRONG_API const char *throng_status_string(throng_status status);

/* ------------------------------------------------------------------------ */
/* Worlds                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct throng_world throng_world;

/* The instruction set a world's kernels run on. Every path gives the same
 * results to the bit (see the README's determinism section); a wider one
 * is only faster. */
typedef enum throng_simd {
    /* The widest path both the CPU and this build offer: AVX-512 > AVX2
     * > SSE2 > scalar on x86-64, NEON > scalar on aarch64, WASM > scalar
     * in a WebAssembly module built with SIMD128 (make web), scalar
     * elsewhere and in a build without vector kernels (make SIMD=scalar).
     * The default, so a zeroed def picks it. */
    THRONG_SIMD_AUTO = 0,
    THRONG_SIMD_SCALAR = 1, /* plain C; every CPU and build has it */
    THRONG_SIMD_SSE2 = 2,   /* 4 lanes; every x86-64 CPU */
    THRONG_SIMD_AVX2 = 3,   /* 8 lanes */
    THRONG_SIMD_AVX512 = 4, /* 16 lanes (AVX-512F) */
    THRONG_SIMD_NEON = 5,   /* 4 lanes, aarch64 builds with NEON kernels */
    THRONG_SIMD_WASM = 6,   /* 4 lanes, WebAssembly builds with SIMD128 */
} throng_simd;

/* The path's name: "auto", "scalar", "sse2", "avx2", "avx512", "neon" or
 * "wasm"
 * (a static string, the names throng_step_stats.simd reports). Never
 * NULL; a value outside the enum gives "unknown". */
THRONG_API const char *throng_simd_name(throng_simd simd);

/* The path named `name`, exactly as throng_simd_name spells it
 * ("avx2"; "auto" gives THRONG_SIMD_AUTO). THRONG_ERR_NULL when name or
 * out is NULL, THRONG_ERR_NOT_FOUND when no path has that name; *out is
 * written only on success. */
THRONG_API throng_status throng_simd_from_name(const char *name,
                                               throng_simd *out);

/* 1 when a world created with this path would run it: the CPU has the
 * instructions (and the operating system saves their registers) and the
 * library was built with its kernels. THRONG_SIMD_AUTO gives 1 (it always
 * finds a path); a value outside the enum gives 0. */
THRONG_API int throng_simd_supported(throng_simd simd);

/* The path THRONG_SIMD_AUTO picks on this CPU and build (never AUTO). */
THRONG_API throng_simd throng_simd_best(void);

typedef enum throng_boundary {
    /* Space is unbounded; the grid hashes cells into a table. */
    THRONG_BOUNDARY_UNBOUNDED = 0,
    /* A periodic box [0, box_size) on each axis: an agent leaving one side
     * enters on the opposite one, and neighbour distances use the nearest
     * periodic image. */
    THRONG_BOUNDARY_PERIODIC = 1,
} throng_boundary;

/* Where a world's memory comes from. Both functions or neither: NULL
 * functions use the C library. alloc returns `size` bytes aligned to
 * `alignment` (a power of two, at most 64) or NULL; free receives the size
 * that was asked for. Memory failures are reported as
 * THRONG_ERR_OUT_OF_MEMORY and leave the world as it was. */
typedef struct throng_allocator {
    void *(*alloc)(size_t size, size_t alignment, void *user);
    void (*free)(void *ptr, size_t size, void *user);
    void *user;
} throng_allocator;

/* Host task hooks: a program with its own job system runs a step's
 * parallel loops on its workers instead of the library's OpenMP threads
 * (see throng_world_def.enqueue_task and README.md, "Sharing the machine").
 *
 * A task processes the items [begin, end) of a loop. `worker` is the index
 * of the host worker running the call, < the world's worker_count and
 * distinct among calls that run at the same time (the library keeps
 * per-worker scratch indexed by it); task_context is what enqueue_task
 * received. */
typedef void throng_task_fn(uint32_t begin, uint32_t end, uint32_t worker,
                            void *task_context);

/* Asks the host to run `task` over the items [0, item_count), split into
 * ranges of at least min_range items (the last may be shorter), in any
 * order, on any of its workers, each item exactly once. Returns a handle
 * that finish_task waits on, or NULL when it has already run every item
 * before returning (inline, say, for a loop too small to split).
 * user_context is throng_world_def.task_context. */
typedef void *throng_enqueue_task_fn(throng_task_fn *task, uint32_t item_count,
                                     uint32_t min_range, void *task_context,
                                     void *user_context);

/* Waits until every item of the task behind `user_task` (a handle that
 * enqueue_task returned) has run, and releases the handle. */
typedef void throng_finish_task_fn(void *user_task, void *user_context);

/* The most workers (or threads) a step may use. */
#define THRONG_MAX_WORKERS 1024

typedef struct throng_world_def {
    /* 2 or 3. Fixed for the world's life; a 2D world stores no z. */
    int dimensions;
    /* THRONG_BOUNDARY_UNBOUNDED (default) or THRONG_BOUNDARY_PERIODIC. */
    throng_boundary boundary;
    /* Periodic box edge lengths in metres, each finite, at least three
     * neighbour radii (3 * neighbour_radius exactly is allowed) and at
     * most THRONG_MAX_LENGTH, holding at most THRONG_MAX_GRID_CELLS cells
     * in all. Ignored when unbounded; box_size[2] is ignored in 2D.
     * Default 100. */
    float box_size[3];
    /* The largest distance at which agents see each other, in metres,
     * in [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH]. Behaviour radii are
     * clamped to it. Default 1. */
    float neighbour_radius;
    /* Grid cell edge in metres: 0 (default) picks the neighbour radius;
     * otherwise >= neighbour_radius / 4 and in [THRONG_MIN_LENGTH,
     * THRONG_MAX_LENGTH]. Smaller cells check fewer candidates and walk
     * more cells. In a periodic box the edge is stretched so a whole
     * number of cells fits. */
    float cell_size;
    /* Threads used by a step; 0 (default) uses the OpenMP default. The
     * result of a step never depends on this number. 0 .. 1024. */
    int threads;
    /* Seed of the counter-based random numbers. Default 1. */
    uint64_t seed;
    /* Agents to reserve room for, so early adds do not reallocate.
     * 0 .. THRONG_MAX_AGENTS. Default 0. The room is allocated but not
     * written (rows are written as agents are added), so on a system that
     * hands out pages on first use it costs address space, not memory; a
     * reservation the allocator cannot grant (address space limits, no
     * overcommit) is refused with THRONG_ERR_OUT_OF_MEMORY. */
    uint32_t initial_capacity;
    /* Default: the C library's allocator. */
    throng_allocator allocator;
    /* The longest tick in seconds, finite, in [1e-6, 10]. Default 0.1. A
     * step whose dt is longer runs as n = ceil(dt / max_dt) equal ticks of
     * dt / n each, so a slow frame cannot fling agents through each other
     * or past their targets. */
    float max_dt;
    /* The most ticks one step may run, 1 .. 1000. Default 10. A dt longer
     * than max_dt * max_substeps is clamped to that (the rest of the time
     * is dropped, as a game loop drops the time of a long stall);
     * throng_step_stats reports the time simulated. */
    uint32_t max_substeps;
    /* The kernels' instruction set. THRONG_SIMD_AUTO (default): the
     * widest this CPU and build offer (throng_simd_best). A named path is
     * used when throng_simd_supported says so; otherwise creation is
     * refused with THRONG_ERR_UNSUPPORTED. The library reads no
     * environment variable: this field alone chooses. */
    throng_simd simd;
    /* Host task hooks, both or neither (default NULL: OpenMP threads, see
     * `threads`). When given, every parallel loop of a step is handed to
     * enqueue_task and waited for with finish_task, from the thread that
     * called throng_world_step; OpenMP is not used, so a build without it
     * runs in parallel too. The result is the same, to the bit, as with
     * any thread count. */
    throng_enqueue_task_fn *enqueue_task;
    throng_finish_task_fn *finish_task;
    /* Passed to both hooks as user_context. Default NULL. */
    void *task_context;
    /* The host's workers: every worker index a task receives is below it.
     * 1 .. 1024 when the hooks are given (it replaces `threads`); must be
     * 0 (the default) without them. */
    uint32_t worker_count;
    /* Optional: a refused creation writes its reason here ("throng_world_
     * create: neighbour_radius must be in [1e-09, 1e+09] metres ..."),
     * truncated to error_capacity bytes with its terminating zero; a
     * successful one writes "". There is no world to ask for a last error
     * when creation fails. Default NULL, 0. */
    char *error;
    size_t error_capacity;
} throng_world_def;

THRONG_API throng_world_def throng_world_def_default(void);

/* Creates a world. On failure *out_world is set to NULL. The def is
 * validated as a whole (dimensions, radii and box in their ranges). There
 * is no world to hold a sentence, so a refusal is reported by its code,
 * and by a sentence in def->error when the def gives room for one:
 * THRONG_ERR_NULL (def, out_world, half an allocator, one task hook
 * without the other),
 * THRONG_ERR_NOT_FINITE (neighbour_radius, cell_size, box_size when
 * periodic), THRONG_ERR_UNSUPPORTED (a SIMD path this CPU or build lacks)
 * or THRONG_ERR_OUT_OF_RANGE (anything else, a simd value outside the
 * enum included). */
THRONG_API throng_status throng_world_create(const throng_world_def *def,
                                             throng_world **out_world);

/* Destroys a world and everything in it. NULL is a no-op. A world that
 * another call is using (destroy called from one of its callbacks, or
 * from a second thread while it runs) is left alone: destroy returns
 * having done nothing, and the world stays valid until a destroy made
 * while no call runs; the host that loses track of it leaks it. */
THRONG_API void throng_world_destroy(throng_world *world);

/* The world's id: unique among the worlds this process creates (loading
 * a snapshot creates a world with a new id), never 0 and never reused,
 * however many worlds come and go, and handed out atomically, so worlds
 * created on several threads at once get distinct ids. Every handle the
 * world gives out carries it (throng_agent.world, throng_object.world).
 * It is not part of the state: throng_world_hash does not read it. 0 for
 * a NULL world. */
THRONG_API uint64_t throng_world_id(const throng_world *world);

/* The detail of the last refused call on this world: a sentence such as
 * "throng_agent_add: mass must be > 0, got -1". Empty string when no call
 * has failed yet. Valid until the next call on the world; while other
 * threads read the world too, a refusal of theirs may rewrite it. A
 * THRONG_ERR_BUSY refusal writes no sentence. Asked while a call that
 * changes the world runs, it gives a fixed sentence saying the world is
 * busy, not the buffer that call may be writing. */
THRONG_API const char *throng_world_last_error(const throng_world *world);

/* Number of live agents; 0 while a call that changes the world runs
 * (every function below that returns a number rather than a status gives
 * 0, or false, in that case). */
THRONG_API uint32_t throng_world_agent_count(const throng_world *world);

/* 2 or 3. */
THRONG_API int throng_world_dimensions(const throng_world *world);

/* Steps the world by dt seconds (finite, > 0). Runs the grid rebuild, every
 * agent's behaviours, the combination and the integration. The result is
 * bit-for-bit the same for any thread count. A dt above the world's max_dt
 * runs as several equal ticks, and one above max_dt * max_substeps is
 * clamped first (see throng_world_def); per-tick quantities (wander's turn
 * rates) then apply per tick. Refused input changes nothing. Out of memory
 * in the first tick changes nothing either; in a later tick (a crowd that
 * spread may need a larger grid) the ticks already run stand, and
 * throng_world_step_count() tells how many. Task hooks that break their
 * contract (throng_enqueue_task_fn: an item not run exactly once, a worker
 * index not below worker_count) get the tick refused with
 * THRONG_ERR_OUT_OF_RANGE; agents may then have moved in part, handles
 * and the world's structure stay valid. */
THRONG_API throng_status throng_world_step(throng_world *world, float dt);

/* One tick in stages, for a host that keeps other copies of some agents
 * (a distributed world's ghosts, whose owners step them elsewhere) and
 * refreshes their positions between the stages. Together:
 *
 *     throng_world_tick_begin(w, dt, &passes);
 *     for (uint32_t k = 0; k < passes; k++) {
 *         throng_world_tick_set_positions(w, n, ghosts, where);  (host's)
 *         throng_world_tick_contact(w, &moved, &settles);
 *         if (moved == 0 && settles)
 *             break;
 *     }
 *     throng_world_tick_finish(w);
 *
 * is one tick of throng_world_step(w, dt) (dt at most max_dt), the same
 * bits on any thread count, when nothing is set between them.
 *
 * throng_world_tick_begin runs the tick of dt seconds (finite, > 0; one
 * tick whatever max_dt: a host splits a long step as throng_world_step
 * does) up to and including the move (grid, behaviours, velocity stage,
 * integration), and writes the contact passes the tick may run to
 * *out_passes (the largest contact_iterations of a live group; 0: none).
 * Refused, with nothing changed, for a dt that throng_world_step refuses,
 * a NULL out_passes, or while a tick is open (THRONG_ERR_INVALID_ARG);
 * out of memory changes nothing. While a tick is open throng_world_step
 * is refused too. */
THRONG_API throng_status throng_world_tick_begin(throng_world *world, float dt,
                                                 uint32_t *out_passes);

/* Runs the open tick's next contact pass: every agent of a group whose
 * contact_iterations exceeds the pass's index is pushed by its share of
 * its overlaps with the positions before the pass (and, with
 * contact_velocity, its velocity by the push over the tick's dt;
 * neighbours found
 * through the grid of the tick's positions before the move, as in
 * throng_world_step). *out_moved: the agents whose push was not zero;
 * *out_settles: whether, were no agent moved anywhere in this pass, the
 * passes left would change nothing (no group stops resolving before the
 * last), which is when throng_world_step ends its passes. Running the
 * passes left after such a pass changes no bit. Refused with
 * THRONG_ERR_INVALID_ARG without an open tick, or when agents were
 * added, removed or moved since throng_world_tick_begin other than
 * through throng_world_tick_set_positions; THRONG_ERR_OUT_OF_RANGE once
 * all *out_passes have run; THRONG_ERR_NULL for a NULL out pointer. */
THRONG_API throng_status throng_world_tick_contact(throng_world *world,
                                                   uint32_t *out_moved,
                                                   bool *out_settles);

/* Ends the open tick: the passes not run are skipped; arrivals at
 * navigation goals are listed (and removed when asked), the step count
 * and the step stats (one tick) are updated, as at the end of a tick of
 * throng_world_step. THRONG_ERR_INVALID_ARG without an open tick. */
THRONG_API throng_status throng_world_tick_finish(throng_world *world);

/* Number of completed ticks: one per step, or n for a step that ran as n
 * ticks. The random numbers of a tick are keyed by it. */
THRONG_API uint64_t throng_world_step_count(const throng_world *world);

/* Changes max_dt and max_substeps (as in throng_world_def) for the steps
 * that follow. */
THRONG_API throng_status throng_world_set_step_limits(throng_world *world,
                                                      float max_dt,
                                                      uint32_t max_substeps);
/* The world's settings as a def: dimensions, boundary, box_size,
 * neighbour_radius, cell_size (as asked: 0 for the default), threads,
 * seed, max_dt, max_substeps, simd (the path in use, never AUTO once a
 * step chose it) and the task hooks with their context and worker count;
 * initial_capacity reads 0 and allocator the world's. A world made from
 * it has the same settings. THRONG_ERR_NULL for a NULL argument. */
THRONG_API throng_status throng_world_get_def(const throng_world *world,
                                              throng_world_def *out);

/* Threads used by subsequent steps (0 = OpenMP default, up to 1024).
 * While task hooks are installed they run every step and this number only
 * waits for them to be removed. */
THRONG_API throng_status throng_world_set_threads(throng_world *world,
                                                  int threads);

/* Installs task hooks for subsequent steps, as throng_world_def's fields
 * of the same names (both hooks or neither, worker_count 1 .. 1024 with
 * them), or removes them (both NULL, worker_count 0): steps then run on
 * OpenMP threads again, as many as throng_world_set_threads last asked.
 * A world loaded from a snapshot starts without hooks (they are not
 * saved); this is how it gets them. Refused (THRONG_ERR_NULL for half a
 * pair, THRONG_ERR_OUT_OF_RANGE for the count), nothing changes. */
THRONG_API throng_status throng_world_set_task_hooks(
    throng_world *world, throng_enqueue_task_fn *enqueue_task,
    throng_finish_task_fn *finish_task, void *task_context,
    uint32_t worker_count);

/* Stable columns: while on, a step leaves the pointers that
 * throng_world_columns hands out where they are. The step still reorders
 * the rows by grid cell, but it copies each shown column's new order back
 * into the same memory instead of trading the column for a spare buffer,
 * so a view taken before the step reads the state after it, in the new
 * row order (map rows to agents with throng_agent_at again). Only
 * throng_agent_add growing the world's capacity, and
 * throng_world_destroy, then move or free the columns. Off by default and
 * in a loaded world (not saved): the copy is one more pass over the
 * shown columns per tick, for hosts that keep views across steps (the
 * Python binding turns it on while views of a world exist). A step's
 * results are the same, to the bit, either way. THRONG_ERR_NULL for a
 * NULL world. */
THRONG_API throng_status throng_world_set_stable_columns(throng_world *world,
                                                         bool stable);

/* Canonical order: while on, a step's results depend only on the agents'
 * host keys and states, not on the slots they hold, the order they were
 * added in, or which other agents far from them the world holds. The rows
 * of each grid cell, which the neighbour walk meets in order and whose
 * floating-point sums depend on it, are ordered by host key rather than
 * by their previous row; and an agent's random numbers (wander, the
 * velocity stage's nudge) are drawn from streams keyed by its host key
 * rather than by its slot; where two neighbours stand at exactly the same
 * distance and only some of the nearest are kept (the neighbour cap,
 * ORCA's max_neighbours), or two agents coincide and must be parted
 * (ORCA, contact resolution), the one earlier in (cell, host key) order
 * wins rather than the lower slot. Give every agent a distinct non-zero key:
 * agents without one keep the slot-keyed streams and their previous
 * order among themselves. Two worlds holding the same keyed agents (one
 * whole, or one of the parts a distributed world, libthrong_mpi, splits
 * it into, with copies of its neighbours) then step them to the same
 * bits. It holds in a periodic box and in unbounded space while the grid
 * numbers its cells densely or sparsely (a crowd spread over more rows of
 * cells than it has agents is hashed, and there cells that share a bucket
 * follow the table). Off by default (the order costs an insertion sort of
 * each cell's keys per step), and not saved in snapshots: set it again
 * after a load. The same results, to the bit, for any thread count, as
 * always. THRONG_ERR_NULL for a NULL world. */
THRONG_API throng_status throng_world_set_canonical_order(throng_world *world,
                                                          bool canonical);
/* Whether canonical order is on; false for a NULL or busy world. */
THRONG_API bool throng_world_canonical_order(const throng_world *world);

/* Neighbour lists kept across ticks (Verlet lists) for the velocity
 * stage, with a skin of `skin` metres: a tick that builds the grid also
 * lists, for every agent of an ORCA group, the agents within the
 * neighbour radius plus the skin, and the ticks after it take ORCA's
 * candidates from those lists, with no grid, until some agent has moved
 * half the skin from where that build saw it. A larger skin rebuilds
 * less often and measures more candidates a tick: about the distance
 * the fastest agents cover in five to ten ticks is a good start (a
 * crowd at 1 m/s with ticks of 0.25 s: 2.5 m). The agents' new states
 * are the same bits with lists or without, for any skin: ORCA chooses
 * the nearest neighbours by distance and slot, whatever order they are
 * met in. A tick uses the lists only where every stage that reads
 * neighbours is of that kind: unbounded space, no group walking its
 * neighbours (separation, alignment, cohesion, unaligned collision
 * avoidance) or without a behaviour list, no contact resolution, no
 * canonical order; any other tick builds the grid as usual. While the
 * lists serve, the grid does not move the rows into cell order, so the
 * rows keep the order the agents were added in (and the state hash,
 * which mixes in each agent's row, differs from a world without lists;
 * it is the same on every thread count and path). 0 (the default) turns
 * them off; at most the neighbour radius. Not saved in snapshots: set it
 * again after a load. THRONG_ERR_NOT_FINITE or THRONG_ERR_OUT_OF_RANGE
 * for a bad skin (nothing changes), THRONG_ERR_NULL for a NULL world. */
THRONG_API throng_status throng_world_set_neighbour_skin(throng_world *world,
                                                         float skin);
/* The skin of the neighbour lists (0: none); 0 for a NULL or busy world. */
THRONG_API float throng_world_neighbour_skin(const throng_world *world);

/* Bytes the world currently holds on the heap (columns, grid, tables). */
THRONG_API size_t throng_world_bytes(const throng_world *world);

/* A 64-bit hash of the full simulation state: every live agent's columns
 * (position, velocity, basis, mass, limits, radius, group, host key,
 * behaviour state) visited in handle (slot) order, plus the step count.
 * Equal states give equal hashes on every build and thread count, and in
 * any two worlds: the world's id is not part of the state. */
THRONG_API uint64_t throng_world_hash(const throng_world *world);

/* What the last step did. Times are wall-clock seconds. */
typedef struct throng_step_stats {
    uint64_t step;            /* steps completed so far */
    uint32_t agents;          /* agents stepped */
    uint32_t threads;         /* threads the step ran on */
    double grid_seconds;      /* hashing, sorting, gathering */
    double behaviour_seconds; /* behaviour kernels and combination */
    double integrate_seconds; /* truncation, Euler, basis update */
    double total_seconds;     /* the whole step */
    uint64_t candidates;      /* pairs whose distance was computed */
    uint64_t neighbours;      /* pairs within the neighbour radius */
    uint32_t cells_occupied;  /* grid buckets holding at least one agent */
    /* The kernel path, as throng_simd_name spells it: "avx512",
     * "scalar", ... (never "auto"); set from creation on. */
    const char *simd;
    uint32_t ticks;           /* ticks the step ran (see max_dt) */
    double simulated_seconds; /* dt after the clamp to max_dt * ticks */
} throng_step_stats;

THRONG_API throng_status throng_world_stats(const throng_world *world,
                                            throng_step_stats *out_stats);

/* ------------------------------------------------------------------------ */
/* Agents                                                                   */
/* ------------------------------------------------------------------------ */

/* A handle to an agent. It stays valid, and keeps naming the same agent,
 * until that agent is removed, whatever else is added or removed. A removed
 * agent's handle is refused with THRONG_ERR_STALE_HANDLE forever after,
 * and never names another agent: a slot's generation counts its agents
 * from 1 up to 2^32 - 1 and never wraps; a slot whose last generation is
 * removed is retired (never reused), which costs one dead slot (24 bytes
 * of handle table) per four billion adds into it. A handle of another world (its `world` is
 * not this world's throng_world_id) is refused by every function of this
 * one, even while its slot and generation happen to match a live agent
 * here. The all-zero handle is the null handle and is never valid. */
typedef struct throng_agent {
    /* The slot in the world's handle table, plus one: 1 for the first
     * agent a world adds, and so on; a removed agent's slot is given to a
     * later agent. 0 only in the null handle. It is not the agent's row
     * in the columns (throng_agent_index gives that). */
    uint32_t slot;
    /* How many agents the slot has held, this one included: 1 for a
     * slot's first agent, 2 for the next, up to 2^32 - 1. A plain count:
     * no bits of it mean anything else. */
    uint32_t generation;
    /* throng_world_id of the world it belongs to, never 0 in a live
     * handle. */
    uint64_t world;
} throng_agent;

#define THRONG_NULL_AGENT ((throng_agent){ 0u, 0u, 0u })

/* A handle to a group (see "Groups and flocking" below). It names the same
 * group until that group is removed (throng_group_remove); then it is
 * refused with THRONG_ERR_STALE_HANDLE forever after, as a removed agent's
 * handle is, and the id is given to a later group with the next
 * generation. A handle of another world is refused by every function of
 * this one. The all-zero handle is the null group: it names no group, and
 * where a call takes a group for an agent (throng_agent_def.group,
 * throng_agent_set_group) it stands for the default group. */
typedef struct throng_group {
    /* The group's row in the world's group table, from 0: the value
     * throng_columns.group holds for the group's agents. The default
     * group is id 0 (with generation 1). */
    uint32_t id;
    /* How many groups the id has named, this one included: 1 for the
     * first, then 2, ... up to 2^32 - 1 (an id removed at its last
     * generation is retired, never reused). A plain count, no other bits;
     * 0 only in the null group. */
    uint32_t generation;
    /* throng_world_id of the world it belongs to. */
    uint64_t world;
} throng_group;

/* The null group handle: all zero, never a live group. */
#define THRONG_NULL_GROUP ((throng_group){ 0u, 0u, 0u })

typedef struct throng_agent_def {
    /* Metres, finite. In a periodic world it is wrapped into the box. */
    float position[3];
    /* Metres per second, finite. A velocity above max_speed is truncated
     * by the next step. */
    float velocity[3];
    /* Kilograms, finite, > 0. Default 1. */
    float mass;
    /* Largest steering force (thrust), newtons, finite, >= 0. Default 10. */
    float max_force;
    /* Largest speed, metres per second, finite, >= 0. Default 1. */
    float max_speed;
    /* Body radius, metres: 0 or in [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH].
     * Default 0.25. */
    float radius;
    /* A group handle from throng_group_create, throng_group_find or
     * throng_world_default_group; the null group (THRONG_NULL_GROUP, the
     * default) means the world's default group. */
    throng_group group;
    /* The host's own id for this agent; 0 (default) means none. Non-zero
     * keys are unique within a world and found with throng_agent_find. */
    uint64_t host_key;
} throng_agent_def;

THRONG_API throng_agent_def throng_agent_def_default(void);

/* Adds an agent; on success *out_agent is its handle. O(1) amortised.
 * The initial heading is the velocity's direction, or +x when at rest. */
THRONG_API throng_status throng_agent_add(throng_world *world,
                                          const throng_agent_def *def,
                                          throng_agent *out_agent);

/* Removes an agent in O(1): the last agent in dense order moves into its
 * place, so dense indices change but other handles stay valid. Dense
 * indices also change at every step (rows are kept in grid-cell order). */
THRONG_API throng_status throng_agent_remove(throng_world *world,
                                             throng_agent agent);

/* True when the handle names a live agent of this world. */
THRONG_API bool throng_agent_valid(const throng_world *world,
                                   throng_agent agent);

/* Translates a handle into this world's handle of the same agent. In a
 * world loaded from a snapshot, a handle of the world that saved it (even
 * one saved by another process: the snapshot keeps the saving world's id)
 * is accepted when it named a live agent at the time of the save and that
 * agent still lives here; *out then names it with this world's id. A
 * handle of this world itself that names a live agent is returned as it
 * is. Anything else is refused with THRONG_ERR_STALE_HANDLE and *out is not
 * written: a handle of any other world (a world loaded from this one's
 * snapshot included: rebind there, not here), one the saving world handed
 * out after it saved, a removed agent's. Only the saving world's handles
 * are accepted, not those of the world it was itself loaded from. */
THRONG_API throng_status throng_agent_rebind(const throng_world *world,
                                             throng_agent agent,
                                             throng_agent *out_agent);

/* An agent's whole state, as it moves between worlds: everything a step
 * reads or writes of it, its behaviour state included, with the agent it
 * targets named by host key. Two worlds whose groups and objects were
 * made by the same calls (the same ids) can hand agents to each other
 * with it: export from one, remove, import into the other, and the agent
 * steps on as it would have. */
typedef struct throng_agent_state {
    /* Metres and metres per second; z is 0 in 2D. */
    float position[3];
    float velocity[3];
    /* The heading, unit length; the up vector (3D only, perpendicular to
     * the heading; 0 0 0 in 2D). */
    float forward[3];
    float up[3];
    /* As throng_agent_def. */
    float mass, max_force, max_speed, radius;
    /* The turn-rate wander's current rate, radians per step. */
    float wander_rate;
    /* The projected-circle wander's state: the angle (2D, wander[0]) or
     * the point on the unit sphere (3D). */
    float wander[3];
    /* The target point, metres. */
    float target_point[3];
    /* The agent's group by id (throng_group.id and generation): the same
     * group in every world whose groups were created by the same calls. */
    uint32_t group_id;
    uint32_t group_generation;
    /* Path or patrol progress (throng_agent_get_progress). */
    uint32_t progress;
    /* 1 when the world held behaviour state (target, wander circle,
     * progress): importing it gives the new world behaviour state too. */
    uint32_t behaviour_state;
    /* The agent's host key, 0 for none. */
    uint64_t host_key;
    /* The host key of the agent it targets (throng_agent_set_target_agent),
     * 0 for none, or for a live target without a key, which cannot be
     * named outside its world. */
    uint64_t target_key;
    /* The navigation field the agent follows of its own
     * (throng_agent_set_nav_field; id and generation 0 for none), by
     * object id and generation: the same field in every world whose
     * objects were made by the same calls. */
    uint32_t nav_field_id, nav_field_generation;
    /* 1 when it arrived at a navigation goal (throng_agent_get_nav): at
     * goal nav_goal of the field nav_arrived_id, nav_arrived_generation;
     * all 0 when it did not. */
    uint32_t nav_arrived, nav_goal;
    uint32_t nav_arrived_id, nav_arrived_generation;
} throng_agent_state;

/* Writes the agent's whole state to *out. The world is not changed. */
THRONG_API throng_status throng_agent_export(const throng_world *world,
                                             throng_agent agent,
                                             throng_agent_state *out);

/* Adds an agent with the given state, as throng_agent_add adds one with
 * a def, and then gives it the heading, wander, target and progress of the
 * state: *out_agent is its handle. Refused, with nothing changed: a NULL
 * argument (THRONG_ERR_NULL); a field throng_agent_add refuses; a group id
 * and generation that name no live group of this world
 * (THRONG_ERR_STALE_HANDLE); a heading not of unit length (within 1e-5),
 * in 3D an up vector not of unit length and perpendicular to it (within
 * 1e-3), or a non-finite wander or target point (THRONG_ERR_NOT_FINITE or
 * THRONG_ERR_OUT_OF_RANGE); a target key that names no agent of this
 * world, or the agent's own key (THRONG_ERR_NOT_FOUND,
 * THRONG_ERR_OUT_OF_RANGE); a navigation field id that names no live
 * navigation field of this world (THRONG_ERR_STALE_HANDLE), an arrival
 * flag above 1, or an arrival's fields set without it
 * (THRONG_ERR_OUT_OF_RANGE). */
THRONG_API throng_status throng_agent_import(throng_world *world,
                                             const throng_agent_state *state,
                                             throng_agent *out_agent);

/* Imports `count` states (0 .. THRONG_MAX_AGENTS minus the agents held)
 * in one call: the same agents, rows, slots and bits as that many
 * throng_agent_import calls in array order, for a fraction of their cost
 * (every state is checked first, then the columns, the handle table and
 * the host-key table grow once). out_agents, when not NULL, receives
 * `count` handles in the same order. A target key must name an agent the
 * world held before the call (not another state of the batch). Refused,
 * with nothing changed: states NULL with count > 0 (THRONG_ERR_NULL); more
 * agents than a world holds (THRONG_ERR_CAPACITY); any state
 * throng_agent_import would refuse (its status, the sentence naming the
 * state, "states[i]"); a host key that two states carry
 * (THRONG_ERR_DUPLICATE_KEY). count 0 does nothing. */
THRONG_API throng_status throng_agents_import(throng_world *world,
                                              uint32_t count,
                                              const throng_agent_state *states,
                                              throng_agent *out_agents);

/* Removes `count` agents in one call: the same as that many
 * throng_agent_remove calls in array order (each time the last row moves
 * into the removed one's place, so the rows and bits are those calls'),
 * without a call per agent. Refused, with nothing changed: agents NULL
 * with count > 0 (THRONG_ERR_NULL); a handle that names no live agent of
 * this world (THRONG_ERR_STALE_HANDLE, the sentence naming it,
 * "agents[i]"); the same agent named twice (THRONG_ERR_OUT_OF_RANGE).
 * count 0 does nothing. */
THRONG_API throng_status throng_agents_remove(throng_world *world,
                                              uint32_t count,
                                              const throng_agent *agents);

/* Finds the agent carrying a host key (O(1), hashed). */
THRONG_API throng_status throng_agent_find(const throng_world *world,
                                           uint64_t host_key,
                                           throng_agent *out_agent);

/* The agent's current dense index (its row in the columns), valid until
 * the next step, add or remove. */
THRONG_API throng_status throng_agent_index(const throng_world *world,
                                            throng_agent agent,
                                            uint32_t *out_index);

/* The handle of the agent at a dense index (0 .. count-1). */
THRONG_API throng_status throng_agent_at(const throng_world *world,
                                         uint32_t index,
                                         throng_agent *out_agent);

/* All of an agent's defining fields at once. */
THRONG_API throng_status throng_agent_get_def(const throng_world *world,
                                              throng_agent agent,
                                              throng_agent_def *out_def);

/* Vectors are float[3]; in 2D the z component is read as 0 and ignored on
 * write. Setters validate exactly as throng_agent_add does. */
THRONG_API throng_status throng_agent_get_position(const throng_world *world,
                                                   throng_agent agent,
                                                   float out[3]);
THRONG_API throng_status throng_agent_set_position(throng_world *world,
                                                   throng_agent agent,
                                                   const float position[3]);
/* Overwrites the positions of `count` agents (positions: 3 floats each, z
 * ignored in 2D; wrapped into a periodic box) in an open tick (throng_world_tick_begin), between
 * its stages, leaving the tick's grid as it is: the next contact pass
 * reads them. Every handle and position is checked before anything
 * changes: THRONG_ERR_STALE_HANDLE, THRONG_ERR_NOT_FINITE, THRONG_ERR_NULL
 * (a NULL array with count > 0), THRONG_ERR_INVALID_ARG without an open
 * tick. The next pass then finds its neighbours by walking the grid
 * (rather than through the lists of the passes before; the same bits). */
THRONG_API throng_status throng_world_tick_set_positions(
    throng_world *world, uint32_t count, const throng_agent *agents,
    const float *positions);

THRONG_API throng_status throng_agent_get_velocity(const throng_world *world,
                                                   throng_agent agent,
                                                   float out[3]);
THRONG_API throng_status throng_agent_set_velocity(throng_world *world,
                                                   throng_agent agent,
                                                   const float velocity[3]);
/* Unit heading. In 3D, also the unit up and side vectors of the agent's
 * orthonormal basis (side = forward x up); in 2D up is (0,0,1). */
THRONG_API throng_status throng_agent_get_basis(const throng_world *world,
                                                throng_agent agent,
                                                float forward[3], float up[3],
                                                float side[3]);
THRONG_API throng_status throng_agent_get_mass(const throng_world *world,
                                               throng_agent agent, float *out);
THRONG_API throng_status throng_agent_set_mass(throng_world *world,
                                               throng_agent agent, float mass);
THRONG_API throng_status throng_agent_get_max_force(const throng_world *world,
                                                    throng_agent agent,
                                                    float *out);
THRONG_API throng_status throng_agent_set_max_force(throng_world *world,
                                                    throng_agent agent,
                                                    float max_force);
THRONG_API throng_status throng_agent_get_max_speed(const throng_world *world,
                                                    throng_agent agent,
                                                    float *out);
/* Lowering max speed below the current speed is allowed: the next step
 * truncates the velocity. */
THRONG_API throng_status throng_agent_set_max_speed(throng_world *world,
                                                    throng_agent agent,
                                                    float max_speed);
THRONG_API throng_status throng_agent_get_radius(const throng_world *world,
                                                 throng_agent agent,
                                                 float *out);
THRONG_API throng_status throng_agent_set_radius(throng_world *world,
                                                 throng_agent agent,
                                                 float radius);
/* The handle of the agent's group (the default group's, for an agent in
 * it). */
THRONG_API throng_status throng_agent_get_group(const throng_world *world,
                                                throng_agent agent,
                                                throng_group *out);
/* O(1). The null group (THRONG_NULL_GROUP) moves the agent to the default
 * group; a stale, removed, forged or other world's group handle is
 * refused with THRONG_ERR_STALE_HANDLE. */
THRONG_API throng_status throng_agent_set_group(throng_world *world,
                                                throng_agent agent,
                                                throng_group group);
THRONG_API throng_status throng_agent_get_host_key(const throng_world *world,
                                                   throng_agent agent,
                                                   uint64_t *out);
/* 0 clears the key; a key held by another agent is refused. */
THRONG_API throng_status throng_agent_set_host_key(throng_world *world,
                                                   throng_agent agent,
                                                   uint64_t host_key);

/* ------------------------------------------------------------------------ */
/* Zero-copy access to the columns                                          */
/* ------------------------------------------------------------------------ */

/* Read-only views of the structure-of-arrays columns, row i being the agent
 * at dense index i (see throng_agent_at). In 2D the z pointers are NULL.
 *
 * Validity: the pointers and the row order stay valid until the next
 * throng_world_step, throng_agent_add, throng_agent_remove or
 * throng_world_destroy on this world. A step reorders the rows by grid cell
 * (so neighbours sit next to each other in memory) and may move the
 * columns: fetch the columns again after each step, and map rows to agents
 * with throng_agent_at / throng_agent_index. With stable columns
 * (throng_world_set_stable_columns) a step keeps the pointers, and only
 * the row order changes. Setters and queries change values in place but
 * never the pointers or the order. */
typedef struct throng_columns {
    uint32_t count;
    const float *px, *py, *pz;
    const float *vx, *vy, *vz;
    const float *fx, *fy, *fz; /* unit forward (heading) vector */
    const float *ux, *uy, *uz; /* unit up vector, 3D only (else NULL) */
    /* Each row's group id: the `id` of its throng_group handle (0 for the
     * default group), so a renderer colours by group without a call per
     * agent. */
    const uint32_t *group;
    /* Each row's host key, 0 for none. Host keys are kept per agent, not
     * per row, so this column is a copy that throng_world_columns brings
     * up to date when rows moved or keys changed since it last did (a
     * pass over the rows; a step itself does not pay for it). With
     * stable columns its pointer stays too, but its rows are those of
     * the last throng_world_columns call: call it again after a step. */
    const uint64_t *host_key;
} throng_columns;

/* THRONG_ERR_OUT_OF_MEMORY when the host-key copy (allocated by the first
 * call, and again after the capacity grew) cannot be allocated. */
THRONG_API throng_status throng_world_columns(const throng_world *world,
                                              throng_columns *out_columns);

/* ------------------------------------------------------------------------ */
/* Groups and flocking                                                      */
/* ------------------------------------------------------------------------ */

/* schema:begin separation_mode (make schema writes this region from src/behaviour_schema.h) */
/* clang-format off */
/* How separation turns its neighbours into a desired velocity. */
typedef enum throng_separation_mode {
    /* Seed 000: flee the average position of the neighbours at the target
     * speed; with no neighbour, brake: F = -m v / dt. */
    THRONG_SEPARATION_FLEE_AVERAGE = 0,
    /* Seeds 001 and 004: desired direction is the average of (p - p_j) / |p -
     * p_j|^2 over neighbours at a non-zero distance (closer than 1e-6 m counts
     * as 1e-6 m), scaled to the target speed; no force when there is no such
     * neighbour. */
    THRONG_SEPARATION_INVERSE_DISTANCE = 1,
} throng_separation_mode;
/* clang-format on */
/* schema:end separation_mode */

/* How a group's behaviour forces fold into one force. */
typedef enum throng_combine_mode {
    /* Seed 000: F = sum(w_i F_i) / sum(w_i); zero when the weights sum
     * to 0. */
    THRONG_COMBINE_WEIGHTED_AVERAGE = 0,
    /* Seed 001: F = sum(w_i F_i). */
    THRONG_COMBINE_WEIGHTED_SUM = 1,
    /* Seed 003, weighted truncated running sum with priority: the weighted
     * forces w_i F_i are added in priority order (higher first; ties in
     * the order separation, alignment, cohesion, wander, then the group's
     * behaviour list); as soon as the running sum's magnitude reaches the
     * agent's max force it is truncated to max force and the rest are
     * skipped. (Seed 003 compares with "MaxVelocity"; in this vehicle
     * model the limit on a force is max force.) */
    THRONG_COMBINE_PRIORITY = 2,
} throng_combine_mode;
/* (The weights are those of every behaviour in the group: separation,
 * alignment, cohesion, wander and each entry of its behaviour list. A
 * behaviour with nothing to do (no neighbours, a removed target, outside
 * its range) is "quiet": it adds no force, and in the weighted average its
 * weight still counts.) */

/* Reynolds' boids. Each rule's neighbours are the other agents (any group)
 * within its radius, and, when field_of_view is below 2 pi, inside the cone
 * of that full angle around the agent's heading. Every rule steers in seed
 * 000's form F = m (v_desired - v) / dt:
 * - separation: see throng_separation_mode;
 * - alignment: v_desired = the neighbours' average velocity (seed 000);
 * - cohesion: seek the neighbours' average position (seeds 001, 004).
 * Target speeds are speed_factor * the agent's max speed. Alignment and
 * cohesion give no force without neighbours. A weight of 0 turns a rule
 * off. */
/* schema:begin flocking (make schema writes this region from src/behaviour_schema.h) */
/* clang-format off */
typedef struct throng_flocking {
    /* Separation's neighbour radius. Range: [THRONG_MIN_LENGTH, the world's
     * neighbour radius] metres. Default: 0.5. */
    float separation_radius;
    /* Separation's weight. Range: >= 0, finite. Default: 0. */
    float separation_weight;
    /* Alignment's neighbour radius. Range: [THRONG_MIN_LENGTH, the world's
     * neighbour radius] metres. Default: 1. */
    float alignment_radius;
    /* Alignment's weight. Range: >= 0, finite. Default: 0. */
    float alignment_weight;
    /* Cohesion's neighbour radius. Range: [THRONG_MIN_LENGTH, the world's
     * neighbour radius] metres. Default: 1. */
    float cohesion_radius;
    /* Cohesion's weight. Range: >= 0, finite. Default: 0. */
    float cohesion_weight;
    /* The full angle of the cone around the heading the rules see (2 pi: all
     * around). Range: (0, 2 pi] radians. Default: 2 pi. */
    float field_of_view;
    /* The rules' target speed / max speed. Range: [0, 1]. Default: 1. */
    float speed_factor;
    /* How separation steers. Default: FLEE_AVERAGE. */
    throng_separation_mode separation_mode;
    /* Separation's place in THRONG_COMBINE_PRIORITY, higher first. Default: 0.
     */
    int32_t separation_priority;
    /* Alignment's place in THRONG_COMBINE_PRIORITY. Default: 0. */
    int32_t alignment_priority;
    /* Cohesion's place in THRONG_COMBINE_PRIORITY. Default: 0. */
    int32_t cohesion_priority;
    /* The most neighbours the rules consider, 0 for all. With a cap the K
     * nearest within the neighbour radius are chosen (ties by the lower agent
     * slot), before the field of view and the rules' radii are applied, so a
     * dense knot costs at most K rule evaluations per agent; in a crowded cell
     * they are found through a finer grid searched in rings of growing
     * distance, so choosing them reads the candidates near the agent rather
     * than every one in range. Range: [0, THRONG_MAX_NEIGHBOUR_CAP]. Default:
     * 0. */
    uint32_t max_neighbours;
} throng_flocking;
/* clang-format on */
/* schema:end flocking */

#define THRONG_MAX_NEIGHBOUR_CAP 1024u

/* Wander, seed 000's turn-rate form: each step the agent's turn rate
 * changes by a uniform random amount in [-max_turn_change,
 * max_turn_change], is clamped to [-max_turn_rate, max_turn_rate], and the
 * desired velocity is the heading turned by that rate, at the target speed
 * (speed_factor * max speed): F = m (v_desired - v) / dt. In 3D the heading
 * turns about the agent's up vector. Random numbers come from the world's
 * counter-based generator keyed by (seed, agent, step), so they do not
 * depend on threads. */
/* schema:begin wander (make schema writes this region from src/behaviour_schema.h) */
/* clang-format off */
typedef struct throng_wander {
    /* Wander's weight, 0 for off. Range: >= 0, finite. Default: 0. */
    float weight;
    /* theta, the largest turn rate. Range: [0, pi] radians per step. Default:
     * 0.1 pi. */
    float max_turn_rate;
    /* phi, the largest change of the turn rate in one step. Range: [0, pi]
     * radians per step. Default: 0.01 pi. */
    float max_turn_change;
    /* Wander's target speed / max speed. Range: [0, 1]. Default: 1. */
    float speed_factor;
    /* Wander's place in THRONG_COMBINE_PRIORITY. Default: 0. */
    int32_t priority;
} throng_wander;
/* clang-format on */
/* schema:end wander */

/* The velocity stage. After the combination, a group's steering force
 * gives each agent its preferred velocity, v + (F / m) dt with F
 * truncated to max force and the result to max speed (seed 000's
 * vehicle); the group's avoidance mode turns it into the new velocity,
 * with which the agent moves. The constraints of ORCA read the state
 * before the step (positions, velocities and radii of the neighbours),
 * so the result is the same on any thread count. */
/* schema:begin avoidance_mode (make schema writes this region from src/behaviour_schema.h) */
/* clang-format off */
/* How a group's preferred velocity becomes its new velocity. */
typedef enum throng_avoidance_mode {
    /* The preferred velocity is the new velocity (the vehicle model of seed
     * 000). */
    THRONG_AVOIDANCE_NONE = 0,
    /* Optimal reciprocal collision avoidance (van den Berg et al. 2011): each
     * neighbour within the range, the nearest first, forbids the velocities
     * that would bring the two within the sum of their radii inside the time
     * horizon (a half-plane, a half-space in 3D, of which the agent takes its
     * responsibility's share); the new velocity is the one nearest the
     * preferred velocity within max speed that every constraint allows, or,
     * when none does, the one that violates the worst constraint least. */
    THRONG_AVOIDANCE_ORCA = 1,
} throng_avoidance_mode;
/* clang-format on */
/* schema:end avoidance_mode */

/* schema:begin avoidance (make schema writes this region from src/behaviour_schema.h) */
/* clang-format off */
typedef struct throng_avoidance {
    /* How the preferred velocity becomes the new velocity. Default: NONE. */
    throng_avoidance_mode mode;
    /* Neighbours (of any group) within this distance constrain the velocity; 0:
     * the world's neighbour radius. Range: 0 or in [THRONG_MIN_LENGTH, the
     * world's neighbour radius] metres. Default: 0. */
    float range;
    /* The most neighbours that constrain it: the nearest within the range, ties
     * by the lower agent slot, nearest first. Range: [1,
     * THRONG_MAX_NEIGHBOUR_CAP]. Default: 10. */
    uint32_t max_neighbours;
    /* tau: velocities that collide with a neighbour moving as it does within
     * this time are forbidden; longer is safer and less nimble. Range: >= 1e-06
     * seconds, finite. Default: 2. */
    float time_horizon;
    /* The same for static obstacles and walls (the nearest 8 within reach),
     * whose constraints are never relaxed. Range: >= 1e-06 seconds, finite.
     * Default: 2. */
    float obstacle_time_horizon;
    /* The agent's share of each avoidance: 0.5 reciprocal (both sides move half
     * the way), 1 yields fully, 0 never yields (a player character). Range: [0,
     * 1]. Default: 0.5. */
    float responsibility;
    /* Where the preferred velocity is forbidden, it is first turned this much
     * to the right (clockwise about +z; in 3D about the z axis): the
     * pedestrians' convention that breaks the symmetric deadlocks of ORCA,
     * where agents meeting head-on or in a ring only slow down. Range: [0, 0.5
     * pi] radians. Default: 0.5. */
    float keep_right;
    /* Contact resolution after the move, 0 for none: this many passes, each
     * moving every agent out of the overlaps it had before the pass (by half of
     * each, or all of one with an agent that does not resolve contacts), among
     * the agents within the neighbour radius, and then out of any obstacle or
     * wall it overlaps (all of it, along the surface's normal). Only the first
     * pass walks the neighbour cells; later ones read each agent's list of near
     * agents from it, so a pass after the first costs a small part of the
     * first, and the passes stop early once one moves nobody (the result is the
     * same as running them all). Packed crowds want many: 32 keep every pair of
     * a dense crossing within 0.3% of the sum of radii. Range: [0, 32].
     * Default: 0. */
    uint32_t contact_iterations;
    /* Whether contact resolution's pushes count in the velocity: each pass adds
     * the agent's displacement over the tick's dt to it (cut to max speed), so
     * the velocity is the one the agent moved at, as in position-based
     * dynamics; ORCA's next tick then sees pushed-apart neighbours separating
     * rather than still closing, which keeps a packed crowd out of each other
     * at one tick a step. Off, the pushes move positions only. Default: false.
     */
    bool contact_velocity;
    /* Where the preferred velocity is forbidden, it is also moved by a random
     * amount of up to this fraction of max speed along each axis before the
     * keep-right turn (drawn from the world's counter-based generator by seed,
     * agent and step, so the same on any thread count): it breaks the
     * symmetries the turn leaves, such as a head-on meeting along the z axis or
     * two agents circling each other near their goals, which a larger nudge
     * breaks sooner (a ring of agents crossing at one tick a step wants about
     * 0.05). Range: [0, 0.5] x max speed. Default: 0.0001. */
    float nudge;
} throng_avoidance;
/* clang-format on */
/* schema:end avoidance */

/* Vehicle limits, applied to the new velocity (after the avoidance mode,
 * so a vehicle that cannot turn fast may still collide): the turn from
 * the heading, then the least speed. */
/* schema:begin motion (make schema writes this region from src/behaviour_schema.h) */
/* clang-format off */
typedef struct throng_motion {
    /* The fastest the heading turns, 0 for no limit: the new velocity is turned
     * back toward the heading until the two are at most max_turn_rate dt apart
     * (in 3D within the plane of the two). Range: >= 0 radians per second,
     * finite. Default: 0. */
    float max_turn_rate;
    /* The slowest the agent moves (at most its max speed), for vehicles that
     * cannot stop: a slower velocity is lengthened to it (along the heading
     * when it is zero). Range: >= 0 metres per second, finite. Default: 0. */
    float min_speed;
} throng_motion;
/* clang-format on */
/* schema:end motion */

/* Interaction layers: which agents a group's neighbour rules, avoidance
 * and contacts see. Ghosts (a layer no mask holds) walk through
 * everyone; soldiers whose mask holds only their own layer avoid each
 * other and push through civilians, who see and give way to them. */
/* schema:begin layers (make schema writes this region from src/behaviour_schema.h) */
/* clang-format off */
typedef struct throng_layers {
    /* The layer the group's agents are in, 0 to 31: other agents see them when
     * their mask holds bit 1 << layer. Range: [0, 31]. Default: 0. */
    uint32_t layer;
    /* The layers the group's agents react to, one bit each: separation,
     * alignment, cohesion, unaligned collision avoidance, ORCA and contact
     * resolution see a neighbour only when its layer's bit is set (all ones,
     * the default: every agent). A neighbour that does not see the agent back
     * leaves it the whole of each avoidance and contact. Range: >= 0. Default:
     * UINT32_MAX. */
    uint32_t mask;
} throng_layers;
/* clang-format on */
/* schema:end layers */

/* A group: agents sharing one steering recipe. */
typedef struct throng_group_def {
    /* Optional name (copied), unique in the world, at most 63 bytes; NULL
     * (default) for none. */
    const char *name;
    throng_flocking flocking;
    throng_wander wander;
    throng_combine_mode combine;
    /* The velocity stage; the default (mode NONE) moves agents by their
     * steering force alone. */
    throng_avoidance avoidance;
    /* Turn rate and least speed; the default limits neither. */
    throng_motion motion;
    /* The group's layer and the layers it sees; the default: layer 0,
     * every layer seen. */
    throng_layers layers;
} throng_group_def;

THRONG_API throng_group_def throng_group_def_default(void);
THRONG_API throng_flocking throng_flocking_default(void);

/* Creates a group; *out_group is its handle. The default group (id 0,
 * generation 1) always exists, has the default recipe (no behaviour:
 * agents coast), is named "default" and cannot be removed. A new group
 * takes the id of the group removed last, with that id's next
 * generation, or else the next unused id. */
THRONG_API throng_status throng_group_create(throng_world *world,
                                             const throng_group_def *def,
                                             throng_group *out_group);

/* Finds a live group by name. */
THRONG_API throng_status throng_group_find(const throng_world *world,
                                           const char *name,
                                           throng_group *out_group);

/* The handle of the world's default group. */
THRONG_API throng_status throng_world_default_group(const throng_world *world,
                                                    throng_group *out_group);

/* True when the handle names a live group of this world. */
THRONG_API bool throng_group_valid(const throng_world *world,
                                   throng_group group);

/* Removes a group: its name is free again, its handles are refused from
 * then on, and its id goes to a later group with the next generation.
 * Refused with THRONG_ERR_INVALID_ARG while any agent belongs to it (the
 * sentence says how many: move or remove them first), and for the
 * default group; a stale, forged, null or other world's handle gives
 * THRONG_ERR_STALE_HANDLE. Costs a pass over the agents' group column.
 * Behaviour lists do not refer to groups, so nothing else changes. */
THRONG_API throng_status throng_group_remove(throng_world *world,
                                             throng_group group);

/* As throng_agent_rebind, for group handles: a handle of the world whose
 * snapshot this world was loaded from, naming a group that was live at
 * the save and still is, becomes this world's handle of it; a live
 * handle of this world is returned as it is; anything else is refused
 * with THRONG_ERR_STALE_HANDLE and *out_group is not written. */
THRONG_API throng_status throng_group_rebind(const throng_world *world,
                                             throng_group group,
                                             throng_group *out_group);

THRONG_API throng_status
throng_group_get_flocking(const throng_world *world, throng_group group,
                          throng_flocking *out_flocking);
/* Validated as in throng_group_create; radii above the world's neighbour
 * radius are refused. */
THRONG_API throng_status throng_group_set_flocking(
    throng_world *world, throng_group group, const throng_flocking *flocking);
THRONG_API throng_status throng_group_set_combine(throng_world *world,
                                                  throng_group group,
                                                  throng_combine_mode mode);
THRONG_API throng_status throng_group_get_wander(const throng_world *world,
                                                 throng_group group,
                                                 throng_wander *out);
THRONG_API throng_status throng_group_set_wander(throng_world *world,
                                                 throng_group group,
                                                 const throng_wander *wander);
THRONG_API throng_status throng_group_get_avoidance(const throng_world *world,
                                                    throng_group group,
                                                    throng_avoidance *out);
/* Validated as in throng_group_create; a range above the world's
 * neighbour radius is refused. */
THRONG_API throng_status throng_group_set_avoidance(
    throng_world *world, throng_group group, const throng_avoidance *avoidance);
THRONG_API throng_status throng_group_get_motion(const throng_world *world,
                                                 throng_group group,
                                                 throng_motion *out);
THRONG_API throng_status throng_group_set_motion(throng_world *world,
                                                 throng_group group,
                                                 const throng_motion *motion);
THRONG_API throng_status throng_group_get_layers(const throng_world *world,
                                                 throng_group group,
                                                 throng_layers *out);
THRONG_API throng_status throng_group_set_layers(throng_world *world,
                                                 throng_group group,
                                                 const throng_layers *layers);

/* ------------------------------------------------------------------------ */
/* Static geometry                                                          */
/* ------------------------------------------------------------------------ */

/* Obstacles, walls, paths and flow fields are world objects. They do not
 * move; they are added and removed between steps, and a removed object's
 * handle is refused afterwards (behaviours that name it go quiet). Every
 * coordinate is in world metres; in a 2D world the z components are
 * ignored. Obstacles and wall segments are indexed by a grid of their own,
 * so an agent only looks at the few near it. Objects are not wrapped in a
 * periodic world: give coordinates inside the box. */
typedef struct throng_object {
    /* The object's place in the world's object table, plus one: 1 for the
     * first object added; a removed object's id is given to a later one.
     * 0 only in the null object. */
    uint32_t id;
    /* How many objects the id has named, this one included: 1 for the
     * first, up to 2^32 - 1, never wrapping (as agents'). A plain count,
     * no other bits. */
    uint32_t generation;
    uint64_t world; /* throng_world_id of the world it belongs to */
} throng_object;

/* The null object handle: all zero, never valid. */
#define THRONG_NULL_OBJECT ((throng_object){ 0u, 0u, 0u })

#define THRONG_MAX_OBJECTS (1u << 24)
/* A path holds at most this many points; a flow field at most this many
 * cells. */
#define THRONG_MAX_PATH_POINTS (1u << 20)
#define THRONG_MAX_FLOW_CELLS (1u << 26)

/* What an object is (throng_obstacle_def.kind, throng_wall_def.kind,
 * throng_object_info.kind). */
typedef enum throng_object_kind {
    THRONG_OBJECT_SPHERE = 1,  /* obstacle */
    THRONG_OBJECT_BOX = 2,     /* obstacle */
    THRONG_OBJECT_SEGMENT = 3, /* wall */
    THRONG_OBJECT_PLANE = 4,   /* wall */
    THRONG_OBJECT_PATH = 5,    /* throng_path_add */
    THRONG_OBJECT_FLOW = 6,    /* throng_flow_field_add */
    THRONG_OBJECT_NAV = 7,     /* throng_nav_field_add */
} throng_object_kind;

/* Each kind of object is added with a def struct filled by its _default()
 * function, like agents and groups; the def is copied, never retained.
 * A def field that the def's kind does not read (a sphere's min and max,
 * a box's center and radius, a segment's point and normal, a plane's a
 * and b) must be left 0, as the default leaves it: anything else is
 * refused with THRONG_ERR_INVALID_ARG and a sentence naming the field and
 * the kind, rather than silently ignored. Components a 2D world lacks (z)
 * are ignored. */

/* An obstacle that avoid-obstacles steers around. */
typedef struct throng_obstacle_def {
    /* THRONG_OBJECT_SPHERE (default) or THRONG_OBJECT_BOX. */
    throng_object_kind kind;
    /* Sphere: the centre, metres. Default 0. */
    float center[3];
    /* Sphere: metres, [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH]. Default 1. */
    float radius;
    /* Box: the corners of an axis-aligned rectangle (2D) or box (3D),
     * min < max on every axis of the world. Default 0. */
    float min[3], max[3];
} throng_obstacle_def;

/* A sphere of radius 1 at the origin; for a box set kind, min and max and
 * clear radius. */
THRONG_API throng_obstacle_def throng_obstacle_def_default(void);

/* Adds an obstacle; *out_object is its handle. */
THRONG_API throng_status throng_obstacle_add(throng_world *world,
                                             const throng_obstacle_def *def,
                                             throng_object *out_object);

/* A wall that containment and wall following react to. */
typedef struct throng_wall_def {
    /* THRONG_OBJECT_SEGMENT (default) or THRONG_OBJECT_PLANE. */
    throng_object_kind kind;
    /* Segment: a two-sided wall from a to b, 2D worlds only; the ends at
     * least 1e-6 m apart. Default 0. */
    float a[3], b[3];
    /* Plane: a one-sided wall through `point` whose `normal` (at least
     * 1e-6 long, stored normalised) points to the side agents belong on:
     * an infinite plane in 3D, a line in 2D. Default 0. */
    float point[3], normal[3];
} throng_wall_def;

/* A segment with both ends at the origin (set a and b before adding). */
THRONG_API throng_wall_def throng_wall_def_default(void);

/* Adds a wall; *out_object is its handle. */
THRONG_API throng_status throng_wall_add(throng_world *world,
                                         const throng_wall_def *def,
                                         throng_object *out_object);

/* A polyline path for patrol and path following. */
typedef struct throng_path_def {
    /* point_count points, 3 floats each (z ignored in 2D), consecutive
     * points at least 1e-6 m apart; copied. The points double as a
     * patrol's checkpoints. Default NULL. */
    const float *points;
    /* 2 .. THRONG_MAX_PATH_POINTS. Default 0. */
    uint32_t point_count;
    /* The corridor's radius, metres, [THRONG_MIN_LENGTH,
     * THRONG_MAX_LENGTH]. Default 1. */
    float radius;
    /* A closed path also runs from the last point back to the first.
     * Default false. */
    bool closed;
} throng_path_def;

THRONG_API throng_path_def throng_path_def_default(void);

/* Adds a path; *out_object is its handle. */
THRONG_API throng_status throng_path_add(throng_world *world,
                                         const throng_path_def *def,
                                         throng_object *out_object);

/* A uniform grid of vectors: cell (i, j, k) holds the vector at the point
 * origin + cell_size * (i, j, k); vectors are sampled with bilinear (2D) or
 * trilinear (3D) interpolation, clamped at the edges. */
typedef struct throng_flow_field_def {
    float origin[3]; /* metres. Default 0 */
    /* [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH]. Default 1. */
    float cell_size;
    /* Points per axis, >= 1 (size[2] ignored in 2D), at most
     * THRONG_MAX_FLOW_CELLS in all. Default {1, 1, 1}. */
    uint32_t size[3];
    /* size[0] * size[1] (* size[2]) vectors of `dims` floats each, x
     * fastest; copied. Default NULL. */
    const float *vectors;
} throng_flow_field_def;

THRONG_API throng_flow_field_def throng_flow_field_def_default(void);

/* Adds a flow field; *out_object is its handle. */
THRONG_API throng_status throng_flow_field_add(throng_world *world,
                                               const throng_flow_field_def *def,
                                               throng_object *out_object);

/* ------------------------------------------------------------------------ */
/* Navigation fields                                                        */
/* ------------------------------------------------------------------------ */

/* A navigation field finds the way: over a uniform grid of cells it holds,
 * for every cell, the travel time to the nearest of its goals round the
 * world's static geometry, and the direction to go. Spheres, boxes, wall
 * segments and planes (every obstacle and wall object, those added later
 * included) are impassable, grown by the field's clearance; a cell's cost
 * (a slowness, 1 for open floor) scales the time to cross it. The time
 * solves the eikonal equation |grad T| = cost (T = 0 on the goals) with
 * the upwind scheme of fast marching, so it approximates the shortest
 * Euclidean path round obstacles (not a square or octagonal grid
 * distance) and its directions turn smoothly instead of snapping to the
 * grid's axes and diagonals. Several goals mean the nearest one (exits).
 * The field is the same bits on any thread count and machine: times are
 * integers, computed as the one fixed point of a monotone update
 * (src/nav_solve.c says how), in parallel tiles.
 *
 * Rebuilding: when obstacles or walls are added or removed, or the costs
 * change, the field is rebuilt before the next step (or at once by
 * throng_nav_field_update), incrementally: only the cells whose time came
 * through a changed cell are computed again, with the bits of a full
 * build. With density counting (density_interval > 0), every
 * density_interval steps the world's agents are counted per cell; with
 * density_cost > 0 the counts raise the costs of crowded cells, so agents
 * heading for the nearest exit take a less crowded one when it is
 * quicker (continuum crowds' idea), and the field is rebuilt with them.
 * Agents follow a field with THRONG_BEHAVIOUR_FOLLOW_NAV. 2D and 3D (a
 * voxel grid). */

/* A cell of the grid is (i, j, k), its centre at origin + cell_size (i +
 * 0.5, j + 0.5, k + 0.5); the most cells a field may have. */
#define THRONG_MAX_NAV_CELLS (1u << 26)
/* The most goals and cost regions of one field. */
#define THRONG_MAX_NAV_GOALS 4096u
#define THRONG_MAX_NAV_REGIONS 4096u
/* The range of a cell's cost (0 also: impassable). A cost is a slowness:
 * 2 takes twice as long to cross as open floor. */
#define THRONG_NAV_MIN_COST 0.01f
#define THRONG_NAV_MAX_COST 1000.0f

typedef enum throng_nav_goal_kind {
    THRONG_NAV_GOAL_POINT = 1,   /* the cell holding point a */
    THRONG_NAV_GOAL_SEGMENT = 2, /* every cell the segment a-b touches */
    THRONG_NAV_GOAL_BOX = 3,     /* every cell overlapping the box a-b */
} throng_nav_goal_kind;

/* A goal: cells that agents head for (time 0). */
typedef struct throng_nav_goal {
    throng_nav_goal_kind kind;
    /* Point: the point. Segment: one end. Box: the min corner. Metres,
     * finite; z ignored in 2D. */
    float a[3];
    /* Segment: the other end. Box: the max corner, above a on every axis.
     * Must be 0 for a point. */
    float b[3];
} throng_nav_goal;

/* A box of cells whose cost is set (the cells whose centres lie in it). */
typedef struct throng_nav_region {
    float min[3], max[3]; /* metres, min below max on every axis */
    /* 0 (impassable) or in [THRONG_NAV_MIN_COST, THRONG_NAV_MAX_COST]. */
    float cost;
} throng_nav_region;

typedef struct throng_nav_field_def {
    /* The grid's low corner, metres, finite. Default 0. */
    float origin[3];
    /* A cell's edge, metres, [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH].
     * Default 1. */
    float cell_size;
    /* Cells per axis, >= 1 (size[2] must be 1 in 2D), at most
     * THRONG_MAX_NAV_CELLS in all, the far corner origin + cell_size *
     * size a finite float. Default {1, 1, 1}. */
    uint32_t size[3];
    /* 1 .. THRONG_MAX_NAV_GOALS goals, copied. None may lie wholly
     * outside the grid or wholly in impassable cells. Default NULL, 0. */
    const throng_nav_goal *goals;
    uint32_t goal_count;
    /* Obstacles and walls are grown by this much, metres: 0 or in
     * [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH]. A cell touching geometry is
     * impassable; a cell whose centre is within the clearance of it is a
     * margin: no route leads through one, yet an agent pushed into it is
     * led back out. Set it to the agents' radius, so that a body
     * following the field keeps off the walls and a door narrower than a
     * body is closed. Default 0. */
    float clearance;
    /* NULL (every cell costs 1), or one cost per cell, x fastest, each 0
     * (impassable) or in [THRONG_NAV_MIN_COST, THRONG_NAV_MAX_COST];
     * copied. Default NULL. */
    const float *costs;
    /* Regions whose cells' cost is set, applied after `costs` in order
     * (a later one wins), 0 .. THRONG_MAX_NAV_REGIONS; copied. Default
     * NULL, 0. */
    const throng_nav_region *regions;
    uint32_t region_count;
    /* Counts the world's agents per cell every this many steps (at the
     * start of a step whose count is a multiple of it); 0, the default,
     * never. In a periodic world an agent is counted at each of its
     * images (its position a box length either way on each axis) that
     * falls in the grid. FOLLOW_NAV's nav.jam_density reads the
     * density. */
    uint32_t density_interval;
    /* The density of a cell is the agents counted in the square (cube)
     * of cells whose centres lie within this distance along each axis,
     * over the area of its cells that are not impassable, in agents per
     * m^2 (m^3 in 3D). Metres, 0 (the cell alone) or in
     * [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH]. Default 1. */
    float density_radius;
    /* m^2 (m^3) per agent, >= 0, finite: with density counting, a cell's
     * cost is multiplied by 1 + density_cost * its density, and the field
     * is rebuilt after each count. 0 (default): density does not change
     * the route. */
    float density_cost;
} throng_nav_field_def;

/* A 1 x 1 grid of 1 m cells at the origin, no goal: set the grid and the
 * goals before adding. */
THRONG_API throng_nav_field_def throng_nav_field_def_default(void);

/* Adds a navigation field and builds it (on the world's threads);
 * *out_object is its handle. Refused, the world unchanged, for a bad
 * definition (THRONG_ERR_NOT_FINITE, THRONG_ERR_OUT_OF_RANGE, NULL goals
 * THRONG_ERR_NULL), a goal wholly in impassable cells or a field where no
 * cell but the goals reaches a goal (THRONG_ERR_INVALID_ARG, naming the
 * goal), or out of memory. Every array a field rebuilds with is
 * allocated here: rebuilds and steps allocate nothing. */
THRONG_API throng_status throng_nav_field_add(throng_world *world,
                                              const throng_nav_field_def *def,
                                              throng_object *out_object);

/* What a field says at a point. */
typedef struct throng_nav_sample {
    /* The unit direction towards the nearest goal: the field's directions
     * interpolated over the cells round the point, never leading into an
     * impassable cell; 0 outside the grid, in a goal cell, in an
     * impassable one or where no goal is reachable. */
    float direction[3];
    /* Travel time to the nearest goal in metres at cost 1 (seconds at 1
     * m/s), interpolated; INFINITY where no goal is reachable. */
    float distance;
    /* The density there (agents per m^2, per m^3 in 3D) at the last
     * count; 0 without density counting. */
    float density;
    bool inside;  /* within the grid */
    bool at_goal; /* in a goal cell */
} throng_nav_sample;

/* Samples the field at `point` (its last build: changes since are seen
 * after the next step or throng_nav_field_update). */
THRONG_API throng_status throng_nav_field_sample(const throng_world *world,
                                                 throng_object field,
                                                 const float point[3],
                                                 throng_nav_sample *out);

/* Copies every cell's distance (metres, as throng_nav_sample.distance at
 * the cell's centre; INFINITY for impassable and unreachable cells), x
 * fastest, into out, which holds `capacity` floats; *out_count (may be
 * NULL) receives the number of cells. A capacity below it writes nothing
 * and gives THRONG_ERR_CAPACITY. */
THRONG_API throng_status throng_nav_field_distances(const throng_world *world,
                                                    throng_object field,
                                                    float *out,
                                                    uint64_t capacity,
                                                    uint64_t *out_count);

/* A field's description and the figures of its builds. */
typedef struct throng_nav_field_info {
    /* The definition it was made from (pointers to the field's copies,
     * valid until it is removed or its costs are set again). */
    throng_nav_field_def def;
    uint64_t cells;
    uint64_t solid_cells;   /* impassable: geometry, cost 0 */
    uint64_t margin_cells;  /* within the clearance of geometry */
    uint64_t reached_cells; /* with a time (goals included) */
    uint64_t builds;        /* how many times it was solved */
    /* The last build: cells started again (every cell for a full one),
     * whether it was full, its wall time in seconds, and the rounds and
     * tile visits of the solver. */
    uint64_t last_cells;
    bool last_full;
    double last_seconds;
    uint32_t last_rounds;
    uint32_t last_tiles;
} throng_nav_field_info;

THRONG_API throng_status throng_nav_field_get(const throng_world *world,
                                              throng_object field,
                                              throng_nav_field_info *out);

/* Replaces the per-cell costs (NULL: every cell 1; the regions still
 * apply), as throng_nav_field_def.costs; the field is rebuilt before the
 * next step. */
THRONG_API throng_status throng_nav_field_set_costs(throng_world *world,
                                                    throng_object field,
                                                    const float *costs);

/* Rebuilds the field now when it is out of date (geometry or costs
 * changed since its last build), incrementally; nothing when it is not. */
THRONG_API throng_status throng_nav_field_update(throng_world *world,
                                                 throng_object field);

/* Counts the world's agents per cell as the field's density count counts
 * them (their positions now; in a periodic world at each of their images
 * in the grid), x fastest, into out, which holds `capacity` counts;
 * *out_count (may be NULL) receives the number of cells. A capacity below
 * it writes nothing and gives THRONG_ERR_CAPACITY. Any field, counting or
 * not; the world is not changed. */
THRONG_API throng_status throng_nav_field_count_agents(
    const throng_world *world, throng_object field, uint32_t *out,
    uint64_t capacity, uint64_t *out_count);

/* Supplies the per-cell agent counts (one per cell, x fastest, as
 * throng_nav_field_count_agents writes them; copied) that the field's
 * next density count takes instead of counting the world's agents: at
 * the start of the next step whose count is due (density_interval), once;
 * the counts after it are the world's own again. For a host that steps
 * part of a crowd and knows the whole crowd's counts (each rank of a
 * distributed world supplies the sum of every rank's counts of the agents
 * it owns), so the density, the speeds it sets and the costs it raises
 * are the whole crowd's. NULL withdraws counts supplied and not yet used.
 * Counts pending at a save are not saved. Refused, the world unchanged: a
 * field that does not count (density_interval 0:
 * THRONG_ERR_INVALID_ARG), counts adding up to more than UINT32_MAX
 * (THRONG_ERR_OUT_OF_RANGE). */
THRONG_API throng_status throng_nav_field_supply_counts(throng_world *world,
                                                        throng_object field,
                                                        const uint32_t *counts);

/* Removes any object. A removed, forged, null or other world's handle
 * (object handles carry the world's id, as agent handles do) is refused
 * with THRONG_ERR_STALE_HANDLE, so removing twice is refused. */
THRONG_API throng_status throng_object_remove(throng_world *world,
                                              throng_object object);

/* As throng_agent_rebind, for object handles: a handle of the world whose
 * snapshot this world was loaded from, naming an object that was live at
 * the save and still is, becomes this world's handle of it; a live handle
 * of this world is returned as it is; anything else is refused with
 * THRONG_ERR_STALE_HANDLE. (Behaviours saved with a path or flow field
 * already name it in the loaded world: throng_group_get_behaviour reads
 * them with the loaded world's id.) */
THRONG_API throng_status throng_object_rebind(const throng_world *world,
                                              throng_object object,
                                              throng_object *out_object);
/* Live objects of every kind. */
THRONG_API uint32_t throng_world_object_count(const throng_world *world);

/* ------------------------------------------------------------------------ */
/* Reading objects                                                          */
/* ------------------------------------------------------------------------ */

/* An object's shape as the world holds it: the values it was created
 * with, after validation (z components 0 in a 2D world; a plane's normal
 * normalised). Fields a kind does not use are 0 or NULL. The pointers
 * stay valid until the object is removed or the world destroyed. */
typedef struct throng_object_info {
    throng_object_kind kind;
    /* Sphere: centre. Box: min corner. Segment: first end. Plane: a point
     * on it. Flow field, navigation field: origin. Metres. */
    float a[3];
    /* Box: max corner. Segment: second end. Plane: unit normal. */
    float b[3];
    /* Sphere: radius. Path: corridor radius. Metres. */
    float radius;
    /* Path: point_count points, 3 floats each; closed paths also run
     * from the last point back to the first. */
    uint32_t point_count;
    const float *points;
    bool closed;
    /* Flow field: cell edge in metres, points per axis (size[2] is 1 in
     * 2D) and the vectors, as many floats each as the world has
     * dimensions, x fastest. Navigation field: cell edge and cells per
     * axis (its origin in a; throng_nav_field_get says the rest). */
    float cell_size;
    uint32_t size[3];
    const float *vectors;
} throng_object_info;

/* Fills *out with the object's shape; a removed, forged, null or other
 * world's handle is refused with THRONG_ERR_STALE_HANDLE. */
THRONG_API throng_status throng_object_get(const throng_world *world,
                                           throng_object object,
                                           throng_object_info *out);

/* The handle of the index-th live object (0 .. throng_world_object_count
 * - 1), in the order objects were first given their ids; adding or
 * removing objects changes which object an index names. O(1) while no
 * object has been removed, otherwise linear in the ids handed out: read
 * the objects once per frame, not once per agent. */
THRONG_API throng_status throng_world_object_at(const throng_world *world,
                                                uint32_t index,
                                                throng_object *out);

/* ------------------------------------------------------------------------ */
/* Per-agent behaviour state                                                */
/* ------------------------------------------------------------------------ */

/* The agent's own target point (seek, flee and arrive with
 * THRONG_TARGET_AGENT_POINT). Default: the origin. */
THRONG_API throng_status throng_agent_set_target_point(throng_world *world,
                                                       throng_agent agent,
                                                       const float point[3]);
THRONG_API throng_status throng_agent_get_target_point(
    const throng_world *world, throng_agent agent, float out[3]);
/* The agent that pursue, evade, offset pursuit and leader following refer
 * to; the null handle (THRONG_NULL_AGENT) clears it, the agent itself and
 * another world's agent are refused. When the target is removed later,
 * those behaviours go quiet, and stay quiet: the removed agent's slot
 * never names another agent under the same generation. O(1). The target
 * read back carries this world's id. */
THRONG_API throng_status throng_agent_set_target_agent(throng_world *world,
                                                       throng_agent agent,
                                                       throng_agent target);
THRONG_API throng_status throng_agent_get_target_agent(
    const throng_world *world, throng_agent agent, throng_agent *out);
/* Progress along the group's path: the segment index (path following) or
 * the next checkpoint (patrol). Default 0; values past the end are
 * clamped when used. */
THRONG_API throng_status throng_agent_set_progress(throng_world *world,
                                                   throng_agent agent,
                                                   uint32_t progress);
THRONG_API throng_status throng_agent_get_progress(const throng_world *world,
                                                   throng_agent agent,
                                                   uint32_t *out);

/* The navigation field an agent follows (THRONG_BEHAVIOUR_FOLLOW_NAV),
 * and whether it arrived. */
typedef struct throng_agent_nav {
    /* The agent's own field, or the null object: it follows its
     * behaviour's nav.field. */
    throng_object field;
    /* It arrived (FOLLOW_NAV then leaves it alone), at goal `goal` (the
     * index among its field's goals nearest to where it arrived) of
     * `arrived_field`. */
    bool arrived;
    uint32_t goal;
    throng_object arrived_field;
} throng_agent_nav;

/* Gives the agent a field of its own, which its FOLLOW_NAV behaviours
 * follow instead of their nav.field, so one group can head for different
 * goals (the null object: back to the behaviour's). Clears its arrival,
 * so an agent that arrived sets off again. The field must be a live
 * navigation field. */
THRONG_API throng_status throng_agent_set_nav_field(throng_world *world,
                                                    throng_agent agent,
                                                    throng_object field);
THRONG_API throng_status throng_agent_get_nav(const throng_world *world,
                                              throng_agent agent,
                                              throng_agent_nav *out);

/* An agent that arrived at a navigation field's goal during the last
 * step. */
typedef struct throng_nav_arrival {
    /* Its handle; stale when `removed` (nav.remove asked for it: the
     * agent was removed at the end of the tick it arrived in). */
    throng_agent agent;
    throng_object field; /* the field it followed */
    uint32_t goal;       /* the goal nearest to where it arrived */
    bool removed;
    float position[3]; /* where it was at the end of that tick */
    uint64_t host_key; /* its host key, 0 for none */
} throng_nav_arrival;

/* The agents that arrived during the last throng_world_step, in the order
 * of their ticks and, within a tick, of their slots (handle order): up to
 * `capacity` into out (NULL when capacity is 0); *out_count receives how
 * many arrived, above capacity exactly when the list was cut, which
 * *out_truncated (may be NULL) says. Read it after each step: the next
 * step starts a new list. */
THRONG_API throng_status throng_world_nav_arrivals(const throng_world *world,
                                                   throng_nav_arrival *out,
                                                   uint32_t capacity,
                                                   uint32_t *out_count,
                                                   bool *out_truncated);

/* ------------------------------------------------------------------------ */
/* Behaviours                                                               */
/* ------------------------------------------------------------------------ */

/* Besides its flocking rules and turn-rate wander, a group holds a list of
 * up to THRONG_MAX_BEHAVIOURS behaviours. Each gives a force in seed 000's
 * form F = m (v_desired - v) / dt, with target speed s_t = speed_factor *
 * the agent's max speed, and is folded in by the group's combine mode with
 * its weight and priority. */
#define THRONG_MAX_BEHAVIOURS 16

/* Every length of a behaviour (a field in metres: ranges, distances,
 * radii, margins) is refused outside [THRONG_MIN_LENGTH,
 * THRONG_MAX_LENGTH] with THRONG_ERR_OUT_OF_RANGE; a field documented as
 * ">= 0" may also be 0, one documented as "> 0" may not. Times and
 * angles have only the ranges their fields give. */

typedef enum throng_behaviour_kind {
    /* v_d = s_t * unit(target - p) (seeds 000-004); quiet at the target. */
    THRONG_BEHAVIOUR_SEEK = 1,
    /* v_d = -s_t * unit(target - p) (seed 000); with flee_range > 0 only
     * within that distance of the target. At the target: v_d = s_t *
     * heading. */
    THRONG_BEHAVIOUR_FLEE = 2,
    /* Seek outside the braking distance D; inside, speed s_t f(d/D)
     * (seed 000; see throng_arrive_ramp), and never more than d / dt, so
     * the agent does not step past the target. */
    THRONG_BEHAVIOUR_ARRIVE = 3,
    /* Seek / flee the target agent's predicted position p_t + v_t T
     * (seeds 000, 002-004); evade_range is measured to p_t. */
    THRONG_BEHAVIOUR_PURSUE = 4,
    THRONG_BEHAVIOUR_EVADE = 5,
    /* Arrive at the point `offset` in the target's frame, predicted
     * (Reynolds' offset pursuit; the distance for an automatic T is to
     * the point, the target's frame is taken as it is now). */
    THRONG_BEHAVIOUR_OFFSET_PURSUIT = 6,
    /* Seeds 001/002: seek a point on a circle of `radius` projected
     * `distance` ahead along the heading; the point's angle takes a
     * uniform random step in [-jitter, jitter] each step. In 3D the point
     * is on a sphere (it starts straight ahead); each coordinate takes a
     * uniform random step in [-jitter, jitter] (a fraction of the radius)
     * and the point is put back on the sphere. */
    THRONG_BEHAVIOUR_WANDER_CIRCLE = 7,
    /* Seed 000: arrive at the path's points in order; the agent's progress
     * is the next checkpoint, advanced when within `reach` of it. After
     * the last point: back to 0 with loop, else progress = the point
     * count (done) and the agent holds the last point. */
    THRONG_BEHAVIOUR_PATROL = 8,
    /* Seeds 001/004: predict q = p + v T; find the nearest point of the
     * path to q among the segments from the agent's progress onwards;
     * when q is farther than the path radius, seek the point `ahead`
     * metres further along; else quiet. */
    THRONG_BEHAVIOUR_FOLLOW_PATH = 9,
    /* Seed 001: v_d = the field sampled at p + v T, scaled to s_t (or as
     * is, with raw); quiet where the sample is zero. */
    THRONG_BEHAVIOUR_FOLLOW_FLOW = 10,
    /* Seeds 003/004: a corridor of the agent's radius along the heading,
     * `length` = min_length + speed * lookahead_time, tested against every
     * obstacle near it; the nearest one it hits pushes the agent sideways,
     * away from the obstacle: v_d = (v . f) f + s_t u, u the unit lateral
     * direction away from the obstacle's centre. An agent already inside
     * an obstacle grown by its radius flees its nearest surface point at
     * s_t (the deepest such obstacle; from inside a box, out through the
     * nearest face). Obstacles are spheres and boxes; ties go to the
     * lower object id. */
    THRONG_BEHAVIOUR_AVOID_OBSTACLES = 11,
    /* Seed 002: for each wall (the box's faces and, with use_walls, the
     * wall objects) closer than `range`, the desired velocity's component
     * along the wall normal is replaced by +s_t (into the allowed side),
     * the rest of v kept; quiet when no wall is in range. An agent
     * outside the box or behind a plane is in range; a segment's normal
     * points from its nearest point to the agent. Walls apply in the
     * order box faces x-, x+, y-, y+, z-, z+, then objects by id. */
    THRONG_BEHAVIOUR_CONTAIN = 12,
    /* Seed 004: seek the point `distance` off the nearest wall (within
     * range), `ahead` metres further along the wall in the direction of
     * travel. */
    THRONG_BEHAVIOUR_FOLLOW_WALL = 13,
    /* Seed 004: arrive at the point `behind` metres behind the target
     * agent (the leader); when inside the corridor `clearance_length`
     * ahead of the leader and `clearance_width` to either side, evade the
     * leader instead (as EVADE with automatic T; exactly on the leader's
     * path, step aside along its side vector first). Pair with separation
     * to keep followers apart. */
    THRONG_BEHAVIOUR_FOLLOW_LEADER = 14,
    /* Seed 004 (Reynolds' unaligned collision avoidance): for each
     * neighbour within `radius`, the time of closest approach t = -(dp .
     * dv) / |dv|^2; a threat when 0 < t <= horizon and the distance then
     * is below r_i + r_j + margin. The soonest threat is avoided: v_d =
     * s_t * unit(own position at t - the neighbour's position at t). Part
     * of the fused neighbour walk. */
    THRONG_BEHAVIOUR_AVOID_NEIGHBOURS = 15,
    /* Follows a navigation field (the agent's own, else nav.field):
     * v_d = s_t * the field's direction at p (throng_nav_field_sample),
     * with s_t slowed, when nav.jam_density > 0, by Weidmann's fundamental
     * diagram at the field's counted density rho: s_t (1 - exp(-gamma (1 /
     * rho - 1 / rho_jam))), 0 at rho_jam and above. Quiet where the field
     * gives no direction. Once the field's distance at p is at most
     * nav.arrival_distance, or p is in a goal cell, the agent has arrived
     * (throng_agent_get_nav, throng_world_nav_arrivals): from then on the
     * behaviour brakes it to a stop, v_d = 0, and with nav.remove the agent
     * is removed at the end of that tick. */
    THRONG_BEHAVIOUR_FOLLOW_NAV = 16,
} throng_behaviour_kind;

/* schema:begin behaviour (make schema writes this region from src/behaviour_schema.h) */
/* clang-format off */
/* Where seek, flee and arrive take their target from. */
typedef enum throng_target_source {
    /* The agent's own target point. */
    THRONG_TARGET_AGENT_POINT = 0,
    /* The behaviour's point. */
    THRONG_TARGET_FIXED_POINT = 1,
} throng_target_source;

/* Arrive's speed inside the braking distance, x = d / D in [0, 1]. */
typedef enum throng_arrive_ramp {
    /* Seed 000: f(x) = s_t x (3 - x) / 2, smooth, f(0) = 0, f(1) = s_t, never
     * above s_t sqrt(x), the fastest speed from which the agent can still stop
     * at its max acceleration when D = v_max^2 / (2 a_max). */
    THRONG_ARRIVE_SMOOTH = 0,
    /* Seeds 001-004: f(x) = s_t x. */
    THRONG_ARRIVE_LINEAR = 1,
} throng_arrive_ramp;

/* Seek, flee, arrive. */
typedef struct throng_seek_params {
    /* Where the target is. Default: AGENT_POINT. Read by SEEK, FLEE and ARRIVE.
     */
    throng_target_source source;
    /* The target with source FIXED_POINT. Range: finite metres. Default: 0.
     * Read by SEEK, FLEE and ARRIVE. They read it only while seek.source is
     * FIXED_POINT. */
    float point[3];
    /* Flee only within this distance of the target; 0: always. Range: 0 or in
     * [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH] metres. Default: 0. Read by FLEE.
     */
    float flee_range;
    /* D, where arrive starts to brake; 0: seed 004's stopping distance v_max^2
     * / (2 a_max), a_max = max_force / mass, plus one step of travel v_max dt,
     * the margin a step-wise agent needs. Range: 0 or in [THRONG_MIN_LENGTH,
     * THRONG_MAX_LENGTH] metres. Default: 0. Read by ARRIVE. */
    float braking_distance;
    /* Arrive's speed inside D. Default: SMOOTH. Read by ARRIVE. */
    throng_arrive_ramp ramp;
} throng_seek_params;

/* Pursue, evade, offset pursuit. The target is the agent's target agent. */
typedef struct throng_pursue_params {
    /* T, how far ahead the target's position is predicted; 0: T = distance /
     * max speed (seed 004), capped at max_prediction. Range: >= 0 seconds,
     * finite. Default: 0. Read by PURSUE, EVADE and OFFSET_PURSUIT. */
    float prediction_time;
    /* The cap on an automatic T; 0: no cap. Range: >= 0 seconds, finite.
     * Default: 0. Read by PURSUE, EVADE and OFFSET_PURSUIT. They read it only
     * while pursue.prediction_time is 0. */
    float max_prediction;
    /* The point to arrive at along the target's forward, side and up vectors
     * (throng_agent_get_basis; in 2D side is the heading turned 90 degrees
     * clockwise and up is ignored). Range: finite metres. Default: 0. Read by
     * OFFSET_PURSUIT. */
    float offset[3];
    /* Offset pursuit's arrive D; 0: as seek.braking_distance's. Range: 0 or in
     * [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH] metres. Default: 0. Read by
     * OFFSET_PURSUIT. */
    float braking_distance;
    /* Evade only within this distance of the target; 0: always. Range: 0 or in
     * [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH] metres. Default: 0. Read by EVADE.
     */
    float evade_range;
} throng_pursue_params;

/* Projected-circle wander. */
typedef struct throng_wander_circle_params {
    /* How far ahead the circle is projected. Range: 0 or in [THRONG_MIN_LENGTH,
     * THRONG_MAX_LENGTH] metres. Default: 2. Read by WANDER_CIRCLE. */
    float distance;
    /* The circle's radius. Range: [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH]
     * metres. Default: 1. Read by WANDER_CIRCLE. */
    float radius;
    /* The point's random step: radians per step (2D), a fraction of the radius
     * (3D). Range: [0, pi]. Default: 0.3. Read by WANDER_CIRCLE. */
    float jitter;
} throng_wander_circle_params;

/* Patrol and path following. */
typedef struct throng_path_params {
    /* The path (a live path object). Range: a live path. Default: the null
     * object. Read by PATROL and FOLLOW_PATH. */
    throng_object path;
    /* T in the predicted position q = p + v T. Range: >= 0 seconds, finite.
     * Default: 0.5. Read by FOLLOW_PATH. */
    float prediction_time;
    /* How far along the path beyond q's nearest point to seek. Range: 0 or in
     * [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH] metres. Default: 1. Read by
     * FOLLOW_PATH. */
    float ahead;
    /* How many segments from the agent's progress are searched. Range: >= 1
     * segments. Default: 4. Read by FOLLOW_PATH. */
    uint32_t window;
    /* Start again after the last point (following wraps on closed paths
     * always). Default: true. Read by PATROL. */
    bool loop;
    /* How near a checkpoint counts as reached. Range: [THRONG_MIN_LENGTH,
     * THRONG_MAX_LENGTH] metres. Default: 0.5. Read by PATROL. */
    float reach;
    /* Patrol's arrive D; 0: as seek.braking_distance's. Range: 0 or in
     * [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH] metres. Default: 0. Read by
     * PATROL. */
    float braking_distance;
} throng_path_params;

/* Flow field following. */
typedef struct throng_flow_params {
    /* The field (a live flow field object). Range: a live flow field. Default:
     * the null object. Read by FOLLOW_FLOW. */
    throng_object field;
    /* T: the field is sampled at p + v T. Range: >= 0 seconds, finite. Default:
     * 0. Read by FOLLOW_FLOW. */
    float prediction_time;
    /* v_d = the sample as is (speed_factor unused), not scaled to s_t. Default:
     * false. Read by FOLLOW_FLOW. */
    bool raw;
} throng_flow_params;

/* Obstacle avoidance. */
typedef struct throng_avoid_params {
    /* The corridor's length at rest. Range: [THRONG_MIN_LENGTH,
     * THRONG_MAX_LENGTH] metres. Default: 2. Read by AVOID_OBSTACLES. */
    float min_length;
    /* The corridor grows by speed * lookahead_time. Range: >= 0 seconds,
     * finite. Default: 1. Read by AVOID_OBSTACLES. */
    float lookahead_time;
} throng_avoid_params;

/* Containment and wall following. */
typedef struct throng_contain_params {
    /* Contain in the box below. Default: false. Read by CONTAIN. */
    bool use_box;
    /* The box's low corner, below box_max on every axis. Range: finite metres.
     * Default: 0. Read by CONTAIN. They read it only while contain.use_box is
     * true. */
    float box_min[3];
    /* The box's high corner. Range: finite metres. Default: 0. Read by CONTAIN.
     * They read it only while contain.use_box is true. */
    float box_max[3];
    /* Contain by the wall objects too. Default: true. Read by CONTAIN. */
    bool use_walls;
    /* Contain's reaction range; follow wall's detection range. Range:
     * [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH] metres. Default: 2. Read by
     * CONTAIN and FOLLOW_WALL. */
    float range;
    /* How far off the wall to keep. Range: 0 or in [THRONG_MIN_LENGTH,
     * THRONG_MAX_LENGTH] metres. Default: 1. Read by FOLLOW_WALL. */
    float distance;
    /* How far along the wall the sought point lies. Range: 0 or in
     * [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH] metres. Default: 2. Read by
     * FOLLOW_WALL. */
    float ahead;
} throng_contain_params;

/* Leader following. */
typedef struct throng_leader_params {
    /* How far behind the leader to arrive. Range: 0 or in [THRONG_MIN_LENGTH,
     * THRONG_MAX_LENGTH] metres. Default: 2. Read by FOLLOW_LEADER. */
    float behind;
    /* The length of the corridor ahead of the leader to keep clear. Range: 0 or
     * in [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH] metres. Default: 3. Read by
     * FOLLOW_LEADER. */
    float clearance_length;
    /* Its half width, to either side. Range: 0 or in [THRONG_MIN_LENGTH,
     * THRONG_MAX_LENGTH] metres. Default: 1. Read by FOLLOW_LEADER. */
    float clearance_width;
    /* The arrive D; 0: as seek.braking_distance's. Range: 0 or in
     * [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH] metres. Default: 0. Read by
     * FOLLOW_LEADER. */
    float braking_distance;
} throng_leader_params;

/* Unaligned collision avoidance. */
typedef struct throng_unaligned_params {
    /* How far neighbours are looked at; 0: the neighbour radius. Range: 0 or in
     * [THRONG_MIN_LENGTH, the world's neighbour radius] metres. Default: 0.
     * Read by AVOID_NEIGHBOURS. */
    float radius;
    /* The latest time of closest approach that counts as a threat. Range: > 0
     * seconds, finite. Default: 2. Read by AVOID_NEIGHBOURS. */
    float horizon;
    /* Added to the two radii: closer than r_i + r_j + margin is a threat.
     * Range: 0 or in [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH] metres. Default: 0.
     * Read by AVOID_NEIGHBOURS. */
    float margin;
} throng_unaligned_params;

/* Navigation field following. */
typedef struct throng_nav_params {
    /* The field agents follow unless they have their own
     * (throng_agent_set_nav_field). Range: a live navigation field. Default:
     * the null object. Read by FOLLOW_NAV. */
    throng_object field;
    /* The agent has arrived once the field's distance where it stands is at
     * most this (0: only in a goal cell). Range: 0 or in [THRONG_MIN_LENGTH,
     * THRONG_MAX_LENGTH] metres. Default: 0.5. Read by FOLLOW_NAV. */
    float arrival_distance;
    /* Remove the agent at the end of the tick it arrives in (its handle then
     * goes stale; throng_world_nav_arrivals lists it). Default: false. Read by
     * FOLLOW_NAV. */
    bool remove;
    /* rho_jam of Weidmann's fundamental diagram, where walking stops (5.4 for
     * pedestrians); 0: the speed does not depend on density. The density is the
     * field's count (density_interval), per cubic metre in 3D. Range: >= 0
     * agents per square metre, finite. Default: 0. Read by FOLLOW_NAV. */
    float jam_density;
    /* gamma of Weidmann's fundamental diagram, how fast the speed falls with
     * density (1.913 for pedestrians). Range: > 0 agents per square metre,
     * finite. Default: 1.913. Read by FOLLOW_NAV. */
    float speed_gamma;
    /* The speed law reads the density this far ahead of the agent along the
     * field's direction: walkers slow for the crowd in front of them, not for
     * the one behind, so the head of a queue walks off at the speed of the
     * space it enters. Range: 0 or in [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH]
     * metres. Default: 1. Read by FOLLOW_NAV. */
    float lookahead;
} throng_nav_params;

typedef struct throng_behaviour {
    throng_behaviour_kind kind;
    /* The behaviour's weight. Range: >= 0, finite. Default: 1. */
    float weight;
    /* Its place in THRONG_COMBINE_PRIORITY, higher first (other combine modes
     * keep it for when the group switches). Default: 0. */
    int32_t priority;
    /* s_t / max speed. Range: [0, 1]. Default: 1. FOLLOW_FLOW reads it only
     * while flow.raw is false. */
    float speed_factor;
    union {
        throng_seek_params seek; /* SEEK, FLEE and ARRIVE */
        throng_pursue_params pursue; /* PURSUE, EVADE and OFFSET_PURSUIT */
        throng_wander_circle_params wander; /* WANDER_CIRCLE */
        throng_path_params path; /* PATROL and FOLLOW_PATH */
        throng_flow_params flow; /* FOLLOW_FLOW */
        throng_avoid_params avoid; /* AVOID_OBSTACLES */
        throng_contain_params contain; /* CONTAIN and FOLLOW_WALL */
        throng_leader_params leader; /* FOLLOW_LEADER */
        throng_unaligned_params unaligned; /* AVOID_NEIGHBOURS */
        throng_nav_params nav; /* FOLLOW_NAV */
    } u;
} throng_behaviour;

/* What each kind reads (generated from the schema). The group functions check
 * every field a behaviour's kind reads against its range and refuse, with
 * THRONG_ERR_INVALID_ARG and a sentence naming the field, any other field of
 * its union member that does not keep its default: a field is either honoured
 * or refused, never silently ignored. Fields of other union members are not
 * part of the behaviour. throng_behaviour_default gives every field its
 * default. */
/*
 * SEEK             seek.source, seek.point (while seek.source is FIXED_POINT)
 * FLEE             seek.source, seek.point (while seek.source is FIXED_POINT),
 *                  seek.flee_range
 * ARRIVE           seek.source, seek.point (while seek.source is FIXED_POINT),
 *                  seek.braking_distance, seek.ramp
 * PURSUE           pursue.prediction_time, pursue.max_prediction (while
 *                  pursue.prediction_time is 0)
 * EVADE            pursue.prediction_time, pursue.max_prediction (while
 *                  pursue.prediction_time is 0), pursue.evade_range
 * OFFSET_PURSUIT   pursue.prediction_time, pursue.max_prediction (while
 *                  pursue.prediction_time is 0), pursue.offset,
 *                  pursue.braking_distance
 * WANDER_CIRCLE    wander.distance, wander.radius, wander.jitter
 * PATROL           path.path, path.loop, path.reach, path.braking_distance
 * FOLLOW_PATH      path.path, path.prediction_time, path.ahead, path.window
 * FOLLOW_FLOW      flow.field, flow.prediction_time, flow.raw, speed_factor
 *                  (while flow.raw is false)
 * AVOID_OBSTACLES  avoid.min_length, avoid.lookahead_time
 * CONTAIN          contain.use_box, contain.box_min (while contain.use_box is
 *                  true), contain.box_max (while contain.use_box is true),
 *                  contain.use_walls, contain.range
 * FOLLOW_WALL      contain.range, contain.distance, contain.ahead
 * FOLLOW_LEADER    leader.behind, leader.clearance_length,
 *                  leader.clearance_width, leader.braking_distance
 * AVOID_NEIGHBOURS unaligned.radius, unaligned.horizon, unaligned.margin
 * FOLLOW_NAV       nav.field, nav.arrival_distance, nav.remove,
 *                  nav.jam_density, nav.speed_gamma, nav.lookahead
 * Every kind also reads weight, priority and speed_factor (FOLLOW_FLOW
 * speed_factor only while flow.raw is false).
 */
/* clang-format on */
/* schema:end behaviour */

/* A behaviour of `kind` with every default filled in (kind 0 or unknown:
 * a struct whose kind the group functions refuse). Change the fields its
 * kind reads (see the table above); the others must keep these values. */
THRONG_API throng_behaviour
throng_behaviour_default(throng_behaviour_kind kind);

/* Appends a behaviour to the group's list; *out_index (may be NULL) is its
 * place. Validated in full (objects must be live and of the right kind);
 * THRONG_ERR_CAPACITY past THRONG_MAX_BEHAVIOURS. */
THRONG_API throng_status throng_group_add_behaviour(
    throng_world *world, throng_group group, const throng_behaviour *behaviour,
    uint32_t *out_index);
THRONG_API throng_status
throng_group_set_behaviour(throng_world *world, throng_group group,
                           uint32_t index, const throng_behaviour *behaviour);
THRONG_API throng_status throng_group_get_behaviour(const throng_world *world,
                                                    throng_group group,
                                                    uint32_t index,
                                                    throng_behaviour *out);
THRONG_API throng_status throng_group_behaviour_count(const throng_world *world,
                                                      throng_group group,
                                                      uint32_t *out);
THRONG_API throng_status throng_group_clear_behaviours(throng_world *world,
                                                       throng_group group);

/* ------------------------------------------------------------------------ */
/* Spatial queries                                                          */
/* ------------------------------------------------------------------------ */

/* Every live agent whose position is within `radius` metres (inclusive:
 * distance <= radius) of `point` (nearest periodic image in a periodic
 * world). Up to `capacity` handles are written to `out` (which may be NULL
 * when capacity is 0); *out_count receives the total number found, which
 * exceeds capacity exactly when the result was truncated, and
 * *out_truncated (may be NULL) says so. The order is unspecified but
 * deterministic. radius: finite, >= 0, any size: where its square is
 * not a normal float (below about 1.1e-19, 0 included) or a distance's
 * square overflows, distances are measured in double, so the result is
 * exact. A query may build the grid and run
 * the task hooks, so it needs the world to itself as a call that changes
 * it does: two queries at once, or a query during a read, are refused
 * with THRONG_ERR_BUSY. */
THRONG_API throng_status throng_world_query_radius(
    throng_world *world, const float point[3], float radius, throng_agent *out,
    uint32_t capacity, uint32_t *out_count, bool *out_truncated);

/* ------------------------------------------------------------------------ */
/* Snapshots                                                                */
/* ------------------------------------------------------------------------ */

/* A snapshot is a world's whole state as bytes: its settings (dimensions,
 * boundary, box, neighbour radius, grid cells, threads, seed), the step
 * count, every agent's columns in dense order (behaviour state included),
 * the handle table (generations, host keys, free slots in order), the
 * groups with their behaviour lists and generations (removed groups'
 * free ids in order included), every object, removed ones'
 * generations included (a navigation field as its description and last
 * count, built again when loading), and each agent's navigation state.
 * Loading it creates a new world that continues bit for bit as the saved
 * one does: stepping both N times gives equal throng_world_hash values
 * (on the same build, for any thread count).
 *
 * Handles: a loaded world is a new world with its own throng_world_id, so
 * it refuses the saved world's handles, and the saved world refuses its
 * handles. The snapshot keeps the saving world's id, and the loaded world
 * keeps the slots, group and object ids and generations:
 * throng_agent_rebind, throng_group_rebind and throng_object_rebind turn
 * each handle the host held when it saved (in
 * this process or another) into the loaded world's handle of the same
 * agent or object (roll back by loading, then rebind your handles). Agent
 * handles inside the world (targets) and the object handles of behaviour
 * lists are carried over by the load itself.
 *
 * Not saved: the allocator (given when loading), the last error, the step
 * statistics (zero until the next step), the kernel path (the loaded
 * world runs THRONG_SIMD_AUTO's choice on the loading machine; every path
 * gives the same results), capacities and scratch memory.
 *
 * Format, version THRONG_SNAPSHOT_VERSION. Every integer is little-endian,
 * every float is its IEEE-754 bit pattern, little-endian, so a snapshot
 * reads the same on any machine:
 *     offset  0  "THRNGSNP", the magic
 *             8  u32 format version (7; versions 1 to 3, written by
 *                library 0.4 and before, still load: their groups
 *                get generation 1 and none is free; versions before 5
 *                give every group the default avoidance; versions
 *                before 6 hold no navigation field; versions before 7
 *                leave contact_velocity off)
 *            12  u16 major, minor, patch of the library that wrote it,
 *                u16 0
 *            20  u32 0, reserved
 *            24  u64 total length in bytes, this header included
 *            32  u64 checksum: 64-bit FNV-1a over every byte but these 8
 *            40  payload: settings and counts, objects, groups, slots,
 *                agent columns (see src/snapshot_codec.c)
 * A newer format version is refused with THRONG_ERR_VERSION; a snapshot
 * that is truncated, longer than its header says, fails its checksum (any
 * single changed byte does) or is inconsistent within is refused with
 * THRONG_ERR_BAD_SNAPSHOT. So is one whose checksum holds but whose
 * contents no world could have: every object and every agent read passes
 * the same checks (the same code) as creating it did (a wall segment's
 * ends at least 1e-6 m apart, a plane's normal of unit length within
 * 1e-5, no repeated path point, finite values, mass > 0, ...) and what
 * steps keep true (an agent's heading of unit length within 1e-5, in 3D
 * its up vector perpendicular to it within 1e-3, positions inside a
 * periodic box). A refused load creates no world. The version is the
 * behaviour schema's (src/behaviour_schema.h): a saved parameter added
 * there moves it. */
/* schema:begin snapshot_version (make schema writes this region from src/behaviour_schema.h) */
/* clang-format off */
#define THRONG_SNAPSHOT_VERSION 8u
/* clang-format on */
/* schema:end snapshot_version */

/* A 64-bit hash of the world's definition, everything a snapshot holds
 * but the agents, their handles and the step count: the settings
 * (dimensions, boundary, box, neighbour radius, grid cells, seed, tick
 * limits), every object and every group with its recipe, generations and
 * free ids included. Worlds built by the same calls hash equal whatever
 * agents they hold; a distributed world (libthrong_mpi) compares it across
 * processes. Not the world's id nor its thread count. 0 for a NULL or busy
 * world, or when there is no memory for the encoding (a few bytes per
 * object and group). */
THRONG_API uint64_t throng_world_definition_hash(const throng_world *world);

/* The size in bytes of the world's snapshot as it is now. */
THRONG_API throng_status throng_world_snapshot_size(const throng_world *world,
                                                    size_t *out_bytes);

/* Writes the world's snapshot to buffer. When `capacity` is below the
 * snapshot's size, nothing is written and THRONG_ERR_CAPACITY is returned
 * (buffer may then be NULL); either way *out_bytes (may be NULL) receives
 * the snapshot's size. A world holding a NaN or an infinity in an agent
 * column is refused (THRONG_ERR_NOT_FINITE, the sentence naming the
 * column, the dense row and the handle) before anything is written. The
 * world is not changed. */
THRONG_API throng_status throng_world_save(const throng_world *world,
                                           void *buffer, size_t capacity,
                                           size_t *out_bytes);

/* Writes the world's snapshot to the file at `path`, replacing it whole:
 * the bytes go to a new temporary file beside it, named "<path>.tmp-"
 * and 16 hex digits mixed from the process id, a counter and the clock,
 * created exclusively (never an existing file, never through a symbolic
 * link), written in full, flushed to disk (fsync), renamed over `path`,
 * and the rename made durable by flushing the directory. So `path` holds
 * either its previous contents or the complete new snapshot, also after
 * a crash or a power cut on a filesystem that honours fsync; saves to one
 * path from several threads or processes at once leave one of their
 * complete snapshots; a symbolic link at `path` is replaced, not
 * followed. On failure (THRONG_ERR_IO, the sentence naming the step that
 * failed and the system's reason; THRONG_ERR_OUT_OF_MEMORY; or
 * THRONG_ERR_NOT_FINITE as throng_world_save) the temporary file is
 * removed and `path` is as it was; the one exception is a directory that
 * cannot be flushed after the rename, which the sentence reports as such
 * (the new snapshot is in place but may not survive a power cut). The
 * directory must be readable, to flush it. An empty path is refused
 * before any file is touched. */
THRONG_API throng_status throng_world_save_file(const throng_world *world,
                                                const char *path);

/* How a snapshot is loaded. */
typedef struct throng_world_load_def {
    /* The new world's allocator; also used for the file's bytes. Default:
     * the C library's. */
    throng_allocator allocator;
    /* Optional: a refused load writes its reason here ("checksum mismatch:
     * stored ..., computed ..."), truncated to error_capacity bytes with
     * its terminating zero; a successful one writes "". There is no world
     * to ask for a last error when a load fails. Default NULL, 0. */
    char *error;
    size_t error_capacity;
} throng_world_load_def;

THRONG_API throng_world_load_def throng_world_load_def_default(void);

/* Creates a world from a snapshot of `bytes` bytes. def may be NULL for
 * the defaults. On failure *out_world is NULL: nothing was created. */
THRONG_API throng_status throng_world_load(const void *buffer, size_t bytes,
                                           const throng_world_load_def *def,
                                           throng_world **out_world);

/* Creates a world from a snapshot file, as throng_world_load. A file that
 * cannot be opened or read gives THRONG_ERR_IO. A regular file's size is
 * checked against the header before its bytes are allocated; a stream
 * that cannot tell its size (a pipe, a FIFO) is read in chunks, its
 * buffer growing only with the bytes that arrive, so a header claiming
 * more than the stream holds is refused as truncated. */
THRONG_API throng_status
throng_world_load_file(const char *path, const throng_world_load_def *def,
                       throng_world **out_world);

/* ------------------------------------------------------------------------ */
/* Recording trajectories                                                   */
/* ------------------------------------------------------------------------ */

/* A recorder writes a world's agents, every K-th step, to an SQLite file
 * in JuPedSim's trajectory format, version 1, so pedestrian-dynamics tools
 * (PedPy, JuPedSim's viewer) read throng's runs and SQL can query them:
 *
 *     trajectory_data(frame INTEGER, id INTEGER, pos_x REAL, pos_y REAL,
 *                     ori_x REAL, ori_y REAL [, pos_z REAL, ori_z REAL])
 *         one row per agent per recorded frame, NOT NULL throughout,
 *         stored clustered on its (frame, id) primary key (a WITHOUT
 *         ROWID table: the (frame, id) index version 1 asks for is the
 *         table itself, one B-tree written instead of two). 3D worlds add
 *         pos_z and ori_z as the last two columns; 2D readers select the
 *         columns they know by name and never see them.
 *     metadata(key TEXT PRIMARY KEY, value TEXT): version "1", fps,
 *         xmin, xmax, ymin, ymax (the bounds of the positions recorded,
 *         written at close: a recording whose process was killed has
 *         none), and throng's own keys: throng_version, dimensions,
 *         every.
 *     geometry(wkt TEXT): one row, the walkable area (see
 *         throng_recorder_def.area_min) less the obstacles, as WKT in the
 *         x-y plane: a POLYGON whose holes are box obstacles (rectangles)
 *         and sphere obstacles (64-sided polygons through the circle's
 *         points), its outer ring cut by every plane wall whose normal
 *         lies in the x-y plane; wall segments make it a
 *         GEOMETRYCOLLECTION of that polygon and one LINESTRING per wall.
 *         Paths and flow fields are not geometry. Objects are read at
 *         open.
 *     throng_frames(frame INTEGER PRIMARY KEY, step INTEGER, agents
 *         INTEGER): each recorded frame's world step count and agent
 *         count, so a frame with no agents is told from a missing one.
 *
 * `frame` is the recording opportunity: throng_recorder_record counts its
 * calls from 0, and call c records frame c / every when c is a multiple of
 * `every`; frame f is therefore at time f / fps. `id` is the agent's host
 * key when it has one (stored as the signed 64-bit integer of the same
 * bits), otherwise a number the recorder gives each keyless agent the
 * first time it records it: 1, 2, 3, ... in that order, the same for the
 * agent's whole life and never given again. A run that keys some agents
 * and not others can meet a key equal to such a number; the recording
 * then stops with THRONG_ERR_DUPLICATE_KEY: key every agent or none. ori
 * is the agent's unit heading (throng_columns.fx ...). Floats are stored
 * as REAL, a double, so every value reads back exactly as the float it
 * was.
 *
 * How the work is split: record() copies the agents' columns into a
 * frame buffer on the calling thread and returns; a writer thread of the
 * recorder sorts each frame by id and writes its rows straight into the
 * file as pages of SQLite's file format (rows arrive in key order, so
 * the table's B-tree only grows at its right edge), committing when no
 * frame waits or 2^20 rows are pending. SQLite itself creates the file,
 * its schema, metadata and geometry at open, and writes the last
 * metadata and geometry at close. Each commit goes through a rollback
 * journal of SQLite's own format (FILE-journal, empty between commits):
 * a process killed at any moment leaves a file that SQLite opens sound
 * (PRAGMA integrity_check says ok), holding every frame committed before
 * (throng_record_stats.last_committed_frame) and none half; a journal
 * the kill left hot is played back by the first connection that opens
 * the file read-write, as after SQLite's own interrupted transactions.
 * Nothing is flushed to disk (no fsync): a power cut may lose the last
 * commits or damage the file. While recording, the writer holds
 * SQLite's reserved lock: other processes may read the file (a commit
 * waits for them, up to 30 s), none may write it. The file has 4 KiB
 * pages (a recording into an existing file keeps its page size), a
 * rollback journal (journal_mode DELETE; an existing file in WAL mode is
 * switched back) and no auto_vacuum (an existing file with it is
 * vacuumed without it at open).
 *
 * Memory is bounded: at most queue_frames frames wait for the writer.
 * When they are all taken, record() waits for the writer to free one
 * (wait_when_full, the default) or skips the frame with
 * THRONG_ERR_CAPACITY. A frame buffer holds 48 bytes per agent in 2D, 56
 * in 3D (the columns, the ids and the sort's scratch).
 *
 * A library built without SQLite (make SQLITE=0) has these functions too:
 * throng_recorder_supported() says false and throng_recorder_open returns
 * THRONG_ERR_UNSUPPORTED. */
typedef struct throng_recorder throng_recorder;

typedef struct throng_recorder_def {
    /* Records on every `every`-th call of throng_recorder_record, starting
     * with the first. 1 .. 1000000. Default 1. */
    uint32_t every;
    /* Frames per second of the recording, written as metadata fps: 1 /
     * (dt * every) for a run stepped by dt seconds. Finite, > 0, at most
     * 1e9. Default 10. */
    double fps;
    /* The most frames copied and waiting for the writer, 1 .. 1024.
     * Default 8. */
    uint32_t queue_frames;
    /* A record() that finds every frame buffer waiting: true (default)
     * waits for the writer to free one; false skips the frame, returns
     * THRONG_ERR_CAPACITY and counts it in frames_dropped (the frame
     * number stays unused, so time stays frame / fps). */
    bool wait_when_full;
    /* A file that already holds a recording (a trajectory_data, metadata,
     * geometry or throng_frames table): false (default) refuses it with
     * THRONG_ERR_INVALID_ARG; true drops those four tables and records
     * anew. Other tables of the file are left alone either way. */
    bool replace;
    /* The walkable area's rectangle in the x-y plane, metres, finite,
     * min < max on both axes. Both all 0 (default): a periodic world's
     * box; otherwise the bounds of the obstacles, walls and agents at
     * open, grown by a margin (a tenth of the larger side, at least 1 m)
     * and grown again at close to hold every recorded position. */
    float area_min[2];
    float area_max[2];
    /* Where the recorder's own memory (the recorder, its frame buffers
     * and id tables) comes from, both functions or neither; it is only
     * called from the threads that call the recorder's functions, never
     * from its writer thread. Default NULL: the world's allocator. */
    throng_allocator allocator;
} throng_recorder_def;

THRONG_API throng_recorder_def throng_recorder_def_default(void);

/* True when this library was built with SQLite (the recorder works);
 * false for a build with SQLITE=0. */
THRONG_API bool throng_recorder_supported(void);

/* Opens (creating it when missing) the SQLite file at `path`, writes the
 * schema, the metadata and the world's geometry, commits, and starts the
 * recorder's writer thread; *out_recorder is the recorder, or NULL on
 * failure. A call that changes the world (it attaches the recorder, so
 * that destroying the world is noticed). Refused, with nothing written
 * (a file the call created is removed) and the world's last error set:
 * THRONG_ERR_NULL (world, path, def, out_recorder, half an allocator),
 * THRONG_ERR_OUT_OF_RANGE
 * (every, queue_frames, fps, area), THRONG_ERR_NOT_FINITE (fps, area),
 * THRONG_ERR_IO (an empty path, a file that cannot be created or written,
 * a file that is not an SQLite database), THRONG_ERR_INVALID_ARG (a
 * recording there and replace false), THRONG_ERR_OUT_OF_MEMORY,
 * THRONG_ERR_UNSUPPORTED (built without SQLite). */
THRONG_API throng_status throng_recorder_open(throng_world *world,
                                              const char *path,
                                              const throng_recorder_def *def,
                                              throng_recorder **out_recorder);

/* Call once after each step. On the calls that record (see `every`), the
 * world's agents are copied into a frame buffer for the writer; the world
 * is only read (its state and hash do not change). THRONG_ERR_NULL for a
 * NULL recorder; THRONG_ERR_STALE_HANDLE once the world was destroyed;
 * THRONG_ERR_BUSY while another call has the world; THRONG_ERR_CAPACITY
 * for a skipped frame (wait_when_full false); THRONG_ERR_OUT_OF_MEMORY
 * when a frame buffer cannot grow (nothing queued, the call not counted);
 * and, once the writer has failed, its status (THRONG_ERR_IO, also for a
 * NaN position or heading, or THRONG_ERR_DUPLICATE_KEY, see above) on
 * this and every later call, with
 * its sentence in throng_recorder_last_error: nothing more is recorded. */
THRONG_API throng_status throng_recorder_record(throng_recorder *recorder);

/* Waits until every frame recorded so far is committed. THRONG_OK, or
 * the writer's failure as record() reports it. Works after the world was
 * destroyed. */
THRONG_API throng_status throng_recorder_flush(throng_recorder *recorder);

/* What the recorder has done so far. Times are wall-clock seconds. */
typedef struct throng_record_stats {
    uint64_t calls;            /* throng_recorder_record calls counted */
    uint64_t frames_queued;    /* frames copied for the writer */
    uint64_t frames_committed; /* of those, committed to the file */
    uint64_t frames_dropped;   /* skipped for a full queue */
    /* The highest frame number committed, -1 before the first commit:
     * a process killed now leaves every frame up to it in the file. */
    int64_t last_committed_frame;
    uint64_t rows_committed; /* trajectory_data rows committed */
    uint32_t frames_waiting; /* copied, not yet committed */
    uint32_t commits;        /* transactions committed */
    double copy_seconds;     /* record(): copying, on the caller's thread */
    double wait_seconds;     /* record(): waiting for a free buffer */
    double write_seconds;    /* the writer: sorting, writing, commits */
    size_t bytes;            /* frame buffers and id tables held */
} throng_record_stats;

THRONG_API throng_status throng_recorder_stats(const throng_recorder *recorder,
                                               throng_record_stats *out_stats);

/* The sentence of the recorder's last failure ("throng_recorder_record:
 * writing frame 12: disk I/O error"); "" when none; "" for NULL. */
THRONG_API const char *
throng_recorder_last_error(const throng_recorder *recorder);

/* Drains the queue, writes the final metadata and geometry (the bounds,
 * the derived walkable area grown to hold every position) through
 * SQLite, removes the empty journal, closes the file, stops the writer
 * and frees the recorder, also after its world was destroyed. Returns
 * THRONG_OK, or the first failure of the recording (as record() reports
 * it) or of these last writes (THRONG_ERR_IO): the frames committed
 * before stay in the file either way. The recorder is gone after every
 * return but two: THRONG_ERR_NULL, and THRONG_ERR_BUSY while another call
 * has the world (nothing done; call again). Call throng_recorder_flush
 * first to read a failure's sentence. */
THRONG_API throng_status throng_recorder_close(throng_recorder *recorder);

#ifdef __cplusplus
}
#endif

#endif /* THRONG_H */
