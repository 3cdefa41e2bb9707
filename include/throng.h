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
 * - Every function returns a throng_status; THRONG_OK is 0. A call that
 *   refuses its input leaves the world exactly as it was and records a
 *   sentence describing the refusal, read with throng_world_last_error().
 * - The library never prints, never exits and never aborts on user input.
 * - A world is not thread-safe: call into one world from one thread at a
 *   time. The step itself runs in parallel internally.
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

#define THRONG_VERSION_MAJOR 0
#define THRONG_VERSION_MINOR 1
#define THRONG_VERSION_PATCH 0

/* ------------------------------------------------------------------------ */
/* Status codes                                                             */
/* ------------------------------------------------------------------------ */

typedef enum throng_status {
    THRONG_OK = 0,
    /* A required pointer was NULL. */
    THRONG_ERR_NULL = 1,
    /* A number was NaN or infinite. */
    THRONG_ERR_NOT_FINITE = 2,
    /* A value was outside its documented range (negative mass, dt <= 0,
     * dimensions other than 2 or 3, ...). */
    THRONG_ERR_OUT_OF_RANGE = 3,
    /* An agent handle was null, forged, removed or from another world. */
    THRONG_ERR_STALE_HANDLE = 4,
    /* A group id that this world never created. */
    THRONG_ERR_UNKNOWN_GROUP = 5,
    /* A host key (or group name) that is already in use. */
    THRONG_ERR_DUPLICATE_KEY = 6,
    /* A lookup by host key or name found nothing. */
    THRONG_ERR_NOT_FOUND = 7,
    /* Memory could not be allocated; the world is unchanged. */
    THRONG_ERR_OUT_OF_MEMORY = 8,
    /* The world is full: THRONG_MAX_AGENTS or THRONG_MAX_GROUPS reached. */
    THRONG_ERR_CAPACITY = 9,
} throng_status;

/* The most agents and groups one world holds. */
#define THRONG_MAX_AGENTS (1u << 28)
#define THRONG_MAX_GROUPS 4096u

/* A fixed sentence naming the code ("invalid argument: not finite").
 * Never NULL; unknown codes give "unknown status". */
const char *throng_status_string(throng_status status);

/* ------------------------------------------------------------------------ */
/* Worlds                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct throng_world throng_world;

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

typedef struct throng_world_def {
    /* 2 or 3. Fixed for the world's life; a 2D world stores no z. */
    int dimensions;
    /* THRONG_BOUNDARY_UNBOUNDED (default) or THRONG_BOUNDARY_PERIODIC. */
    throng_boundary boundary;
    /* Periodic box edge lengths in metres, each finite and at least three
     * neighbour radii (3 * neighbour_radius exactly is allowed). Ignored
     * when unbounded; box_size[2] is ignored in 2D. Default 100. */
    float box_size[3];
    /* The largest distance at which agents see each other, in metres,
     * finite and > 0. Behaviour radii are clamped to it. Default 1. */
    float neighbour_radius;
    /* Grid cell edge in metres: 0 (default) picks the neighbour radius;
     * otherwise finite and >= neighbour_radius / 4. Smaller cells check
     * fewer candidates and walk more cells. In a periodic box the edge is
     * stretched so a whole number of cells fits. */
    float cell_size;
    /* Threads used by a step; 0 (default) uses the OpenMP default. The
     * result of a step never depends on this number. 0 .. 1024. */
    int threads;
    /* Seed of the counter-based random numbers. Default 1. */
    uint64_t seed;
    /* Agents to reserve room for, so early adds do not reallocate.
     * 0 .. THRONG_MAX_AGENTS. Default 0. */
    uint32_t initial_capacity;
    /* Default: the C library's allocator. */
    throng_allocator allocator;
} throng_world_def;

throng_world_def throng_world_def_default(void);

/* Creates a world. On failure *out_world is set to NULL. The def is
 * validated as a whole (dimensions, finite positive radii and box). */
throng_status throng_world_create(const throng_world_def *def,
                                  throng_world **out_world);

/* Destroys a world and everything in it. NULL is a no-op. */
void throng_world_destroy(throng_world *world);

/* The detail of the last refused call on this world: a sentence such as
 * "throng_agent_add: mass must be > 0, got -1". Empty string when no call
 * has failed yet. Valid until the next call on the world. */
const char *throng_world_last_error(const throng_world *world);

/* Number of live agents. */
uint32_t throng_world_agent_count(const throng_world *world);

/* 2 or 3. */
int throng_world_dimensions(const throng_world *world);

/* Steps the world by dt seconds (finite, > 0). Runs the grid rebuild, every
 * agent's behaviours, the combination and the integration. The result is
 * bit-for-bit the same for any thread count. */
throng_status throng_world_step(throng_world *world, float dt);

/* Number of completed steps. */
uint64_t throng_world_step_count(const throng_world *world);

/* Threads used by subsequent steps (0 = OpenMP default, up to 1024). */
throng_status throng_world_set_threads(throng_world *world, int threads);

/* Bytes the world currently holds on the heap (columns, grid, tables). */
size_t throng_world_bytes(const throng_world *world);

/* A 64-bit hash of the full simulation state: every live agent's columns
 * (position, velocity, basis, mass, limits, radius, group, host key,
 * behaviour state) visited in handle (slot) order, plus the step count.
 * Equal states give equal hashes on every build and thread count. */
uint64_t throng_world_hash(const throng_world *world);

/* What the last step did. Times are wall-clock seconds. */
typedef struct throng_step_stats {
    uint64_t step;              /* steps completed so far */
    uint32_t agents;            /* agents stepped */
    uint32_t threads;           /* threads the step ran on */
    double grid_seconds;        /* hashing, sorting, gathering */
    double behaviour_seconds;   /* behaviour kernels and combination */
    double integrate_seconds;   /* truncation, Euler, basis update */
    double total_seconds;       /* the whole step */
    uint64_t candidates;        /* pairs whose distance was computed */
    uint64_t neighbours;        /* pairs within the neighbour radius */
    uint32_t cells_occupied;    /* grid buckets holding at least one agent */
    const char *simd;           /* the kernel path: "avx512", "scalar", ... */
} throng_step_stats;

throng_status throng_world_stats(const throng_world *world,
                                 throng_step_stats *out_stats);

/* ------------------------------------------------------------------------ */
/* Agents                                                                   */
/* ------------------------------------------------------------------------ */

/* A handle to an agent. It stays valid, and keeps naming the same agent,
 * until that agent is removed, whatever else is added or removed. A removed
 * agent's handle is refused with THRONG_ERR_STALE_HANDLE forever after
 * (until its slot's 32-bit generation wraps). The all-zero handle is the
 * null handle and is never valid. */
typedef struct throng_agent {
    uint32_t slot;       /* slot in the world's handle table, plus one */
    uint32_t generation; /* bumped each time the slot is reused, >= 1 */
} throng_agent;

#define THRONG_NULL_AGENT ((throng_agent){0u, 0u})

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
    /* Body radius, metres, finite, >= 0. Default 0.25. */
    float radius;
    /* Group id from throng_group_create, or 0, the default group. */
    uint32_t group;
    /* The host's own id for this agent; 0 (default) means none. Non-zero
     * keys are unique within a world and found with throng_agent_find. */
    uint64_t host_key;
} throng_agent_def;

throng_agent_def throng_agent_def_default(void);

/* Adds an agent; on success *out_agent is its handle. O(1) amortised.
 * The initial heading is the velocity's direction, or +x when at rest. */
throng_status throng_agent_add(throng_world *world, const throng_agent_def *def,
                               throng_agent *out_agent);

/* Removes an agent in O(1): the last agent in dense order moves into its
 * place, so dense indices change but other handles stay valid. Dense
 * indices also change at every step (rows are kept in grid-cell order). */
throng_status throng_agent_remove(throng_world *world, throng_agent agent);

/* True when the handle names a live agent of this world. */
bool throng_agent_valid(const throng_world *world, throng_agent agent);

/* Finds the agent carrying a host key (O(1), hashed). */
throng_status throng_agent_find(const throng_world *world, uint64_t host_key,
                                throng_agent *out_agent);

/* The agent's current dense index (its row in the columns), valid until
 * the next step, add or remove. */
throng_status throng_agent_index(const throng_world *world, throng_agent agent,
                                 uint32_t *out_index);

/* The handle of the agent at a dense index (0 .. count-1). */
throng_status throng_agent_at(const throng_world *world, uint32_t index,
                              throng_agent *out_agent);

/* All of an agent's defining fields at once. */
throng_status throng_agent_get_def(const throng_world *world,
                                   throng_agent agent,
                                   throng_agent_def *out_def);

/* Vectors are float[3]; in 2D the z component is read as 0 and ignored on
 * write. Setters validate exactly as throng_agent_add does. */
throng_status throng_agent_get_position(const throng_world *world,
                                        throng_agent agent, float out[3]);
throng_status throng_agent_set_position(throng_world *world, throng_agent agent,
                                        const float position[3]);
throng_status throng_agent_get_velocity(const throng_world *world,
                                        throng_agent agent, float out[3]);
throng_status throng_agent_set_velocity(throng_world *world, throng_agent agent,
                                        const float velocity[3]);
/* Unit heading. In 3D, also the unit up and side vectors of the agent's
 * orthonormal basis (side = forward x up); in 2D up is (0,0,1). */
throng_status throng_agent_get_basis(const throng_world *world,
                                     throng_agent agent, float forward[3],
                                     float up[3], float side[3]);
throng_status throng_agent_get_mass(const throng_world *world,
                                    throng_agent agent, float *out);
throng_status throng_agent_set_mass(throng_world *world, throng_agent agent,
                                    float mass);
throng_status throng_agent_get_max_force(const throng_world *world,
                                         throng_agent agent, float *out);
throng_status throng_agent_set_max_force(throng_world *world,
                                         throng_agent agent, float max_force);
throng_status throng_agent_get_max_speed(const throng_world *world,
                                         throng_agent agent, float *out);
/* Lowering max speed below the current speed is allowed: the next step
 * truncates the velocity. */
throng_status throng_agent_set_max_speed(throng_world *world,
                                         throng_agent agent, float max_speed);
throng_status throng_agent_get_radius(const throng_world *world,
                                      throng_agent agent, float *out);
throng_status throng_agent_set_radius(throng_world *world, throng_agent agent,
                                      float radius);
throng_status throng_agent_get_group(const throng_world *world,
                                     throng_agent agent, uint32_t *out);
/* O(1). */
throng_status throng_agent_set_group(throng_world *world, throng_agent agent,
                                     uint32_t group);
throng_status throng_agent_get_host_key(const throng_world *world,
                                        throng_agent agent, uint64_t *out);
/* 0 clears the key; a key held by another agent is refused. */
throng_status throng_agent_set_host_key(throng_world *world, throng_agent agent,
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
 * with throng_agent_at / throng_agent_index. Setters and queries change
 * values in place but never the pointers or the order. */
typedef struct throng_columns {
    uint32_t count;
    const float *px, *py, *pz;
    const float *vx, *vy, *vz;
    const float *fx, *fy, *fz; /* unit forward (heading) vector */
    const float *ux, *uy, *uz; /* unit up vector, 3D only (else NULL) */
} throng_columns;

throng_status throng_world_columns(const throng_world *world,
                                   throng_columns *out_columns);

/* ------------------------------------------------------------------------ */
/* Groups and flocking                                                      */
/* ------------------------------------------------------------------------ */

/* How separation turns its neighbours into a desired velocity. */
typedef enum throng_separation_mode {
    /* Seed 000: flee the average position of the neighbours at the target
     * speed; with no neighbour, brake: F = -m v / dt. */
    THRONG_SEPARATION_FLEE_AVERAGE = 0,
    /* Seeds 001 and 004: desired direction is the average of
     * (p - p_j) / |p - p_j|^2 over neighbours at a non-zero distance
     * (closer than 1e-6 m counts as 1e-6 m), scaled to the target speed; no
     * force when there is no such neighbour. */
    THRONG_SEPARATION_INVERSE_DISTANCE = 1,
} throng_separation_mode;

/* How a group's behaviour forces fold into one force. */
typedef enum throng_combine_mode {
    /* Seed 000: F = sum(w_i F_i) / sum(w_i); zero when the weights sum
     * to 0. */
    THRONG_COMBINE_WEIGHTED_AVERAGE = 0,
    /* Seed 001: F = sum(w_i F_i). */
    THRONG_COMBINE_WEIGHTED_SUM = 1,
} throng_combine_mode;
/* (The weights are those of every behaviour in the group: separation,
 * alignment, cohesion and wander.) */

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
typedef struct throng_flocking {
    float separation_radius;  /* metres, (0, neighbour_radius]. Default 0.5 */
    float separation_weight;  /* >= 0, finite. Default 0 */
    float alignment_radius;   /* metres, (0, neighbour_radius]. Default 1 */
    float alignment_weight;   /* >= 0, finite. Default 0 */
    float cohesion_radius;    /* metres, (0, neighbour_radius]. Default 1 */
    float cohesion_weight;    /* >= 0, finite. Default 0 */
    float field_of_view;      /* radians, (0, 2 pi]. Default 2 pi (all) */
    float speed_factor;       /* target speed / max speed, [0, 1]. Default 1 */
    throng_separation_mode separation_mode; /* Default FLEE_AVERAGE */
} throng_flocking;

/* Wander, seed 000's turn-rate form: each step the agent's turn rate
 * changes by a uniform random amount in [-max_turn_change,
 * max_turn_change], is clamped to [-max_turn_rate, max_turn_rate], and the
 * desired velocity is the heading turned by that rate, at the target speed
 * (speed_factor * max speed): F = m (v_desired - v) / dt. In 3D the heading
 * turns about the agent's up vector. Random numbers come from the world's
 * counter-based generator keyed by (seed, agent, step), so they do not
 * depend on threads. */
typedef struct throng_wander {
    float weight;          /* >= 0, finite. Default 0 (off) */
    float max_turn_rate;   /* theta, radians per step, [0, pi]. Default 0.1 pi */
    float max_turn_change; /* phi, radians per step, [0, pi]. Default 0.01 pi */
    float speed_factor;    /* target speed / max speed, [0, 1]. Default 1 */
} throng_wander;

/* A group: agents sharing one steering recipe. */
typedef struct throng_group_def {
    /* Optional name (copied), unique in the world, at most 63 bytes; NULL
     * (default) for none. */
    const char *name;
    throng_flocking flocking;
    throng_wander wander;
    throng_combine_mode combine;
} throng_group_def;

throng_group_def throng_group_def_default(void);
throng_flocking throng_flocking_default(void);

/* Creates a group; *out_group is its id (> 0). Group 0 always exists, has
 * the default recipe (no behaviour: agents coast) and is named "default". */
throng_status throng_group_create(throng_world *world,
                                  const throng_group_def *def,
                                  uint32_t *out_group);

/* Finds a group by name. */
throng_status throng_group_find(const throng_world *world, const char *name,
                                uint32_t *out_group);

throng_status throng_group_get_flocking(const throng_world *world,
                                        uint32_t group,
                                        throng_flocking *out_flocking);
/* Validated as in throng_group_create; radii above the world's neighbour
 * radius are refused. */
throng_status throng_group_set_flocking(throng_world *world, uint32_t group,
                                        const throng_flocking *flocking);
throng_status throng_group_set_combine(throng_world *world, uint32_t group,
                                       throng_combine_mode mode);
throng_status throng_group_get_wander(const throng_world *world,
                                      uint32_t group, throng_wander *out);
throng_status throng_group_set_wander(throng_world *world, uint32_t group,
                                      const throng_wander *wander);

/* ------------------------------------------------------------------------ */
/* Spatial queries                                                          */
/* ------------------------------------------------------------------------ */

/* Every live agent whose position is within `radius` metres (inclusive:
 * distance <= radius) of `point` (nearest periodic image in a periodic
 * world). Up to `capacity` handles are written to `out` (which may be NULL
 * when capacity is 0); *out_count receives the total number found, which
 * exceeds capacity exactly when the result was truncated, and
 * *out_truncated (may be NULL) says so. The order is unspecified but
 * deterministic. radius: finite, >= 0. */
throng_status throng_world_query_radius(throng_world *world,
                                        const float point[3], float radius,
                                        throng_agent *out, uint32_t capacity,
                                        uint32_t *out_count,
                                        bool *out_truncated);

#ifdef __cplusplus
}
#endif

#endif /* THRONG_H */
