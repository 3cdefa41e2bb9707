/* SPDX-License-Identifier: MIT */
/*
 * throng-soak: a long run of a mixed scene under constant churn, checking
 * the library's invariants as it goes.
 *
 * The scene uses every behaviour, both wanders, both separation modes,
 * every combine mode and every kind of object, in a periodic box. Each
 * step removes a pseudo-random few per cent of the agents (leaders and
 * pursuit targets among them, so targets go stale) and adds new ones with
 * host keys; now and then it swaps obstacles, walls, paths and flow
 * fields, rewrites group recipes, changes the thread count, and saves a
 * snapshot and continues from the loaded copy. Everything is drawn from
 * one splitmix64 stream seeded by --seed, so a failing run can be
 * repeated exactly.
 *
 * Every --check-every steps it checks, through the public API only:
 * - no column holds a NaN or an infinity, headings are unit vectors;
 * - every speed is within max speed and every velocity change of the last
 *   step within max_force / mass * dt (as bench/quality.c measures it);
 *   agents that started the step above their max speed (the host lowered
 *   it, or set a faster velocity) are exempt from the force bound, since
 *   truncation may then take away more than the force added;
 * - memory does not grow: the world's heap comes from a counting
 *   allocator, and after a warm-up its live bytes (and throng_world_bytes)
 *   never pass the warm-up's high-water mark by more than a small margin,
 *   while the agent count stays in its band by construction; and
 *   throng_world_bytes agrees with the allocator;
 * - handles stay consistent with the program's own map host key ->
 *   handle: every live handle is valid and found by its key, every
 *   recently removed one is refused, the counts agree, and every row maps
 *   back to a known agent.
 * A snapshot's loaded world must hash as the saved one, and step to the
 * same hash. After the run the world is destroyed and the allocator must
 * hold nothing.
 *
 * Exit status: 0 when no check failed, 1 on any violation, 2 on bad
 * options.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "throng.h"
#include "schema.h"
#include "../testsupport/support.h"

#define SOAK_PI 3.14159265358979323846

/* The world's neighbour radius, metres. */
#define SOAK_NEIGHBOUR_RADIUS 1.0f

/* Step length: the behaviour scenes' 30 Hz. */
#define SOAK_DT (1.0f / 30.0f)

/* Mean neighbours within the neighbour radius: sets the box edge, as the
 * every2d scene does. */
#define SOAK_NEIGHBOURS 10.0

/* The agent count follows a triangle wave this far either side of
 * --agents, over SOAK_BAND_PERIOD steps, so memory is measured over a
 * known band rather than at one count. */
#define SOAK_BAND 0.05
#define SOAK_BAND_PERIOD 200u

/* Allowed growth of live bytes over the warm-up's high-water mark. The
 * host-key table's bucket array doubles now and then as keys come and go
 * (uthash splits a bucket that grows too long), and a loaded snapshot
 * starts with it small again: at 10k agents that swings live bytes by
 * 131072 bytes, 4.3%, whether or not the warm-up happened to see it. A
 * real leak of even one byte per removed agent passes 10% within a
 * million removes. */
#define SOAK_MEM_MARGIN 0.10

/* throng_world_bytes and the allocator's live bytes agree this closely
 * (a share of live bytes); the rest is rounding of small blocks. */
#define SOAK_BYTES_AGREE 0.02

/* Removed handles remembered and re-checked: the most recent ones. */
#define SOAK_REMOVED_RING 65536u

/* Leaders followed by the leader-following group. */
#define SOAK_LEADERS 8u

/* Tolerances of the limit checks: float rounding of a velocity near max
 * speed, and of a velocity difference. */
#define SOAK_SPEED_REL 1e-5
#define SOAK_SPEED_ABS 1e-6
#define SOAK_FORCE_REL 1e-4
#define SOAK_FORCE_ULP 1e-6

/* Violations printed in full; the rest are only counted. */
#define SOAK_PRINT_LIMIT 40u

/* How often each kind of churn happens, in steps (primes, so the events
 * drift against each other and the checks). */
#define EVERY_OBJECT_SWAP 37u
#define EVERY_ROUTE_SWAP 151u
#define EVERY_GROUP_TWEAK 59u
#define EVERY_GROUP_REBUILD 503u
#define EVERY_THREADS 97u
#define EVERY_DUPLICATE 101u
#define EVERY_RETARGET 3u

/* ------------------------------------------------------------------------ */
/* Random numbers                                                           */
/* ------------------------------------------------------------------------ */

static uint64_t rng_state;

static double rng_unit(void) {
    return ts_unit(&rng_state);
}

static float rng_range(double lo, double hi) {
    return (float)(lo + (hi - lo) * rng_unit());
}

static uint32_t rng_below(uint32_t n) {
    return n ? (uint32_t)(ts_splitmix64(&rng_state) % n) : 0u;
}

static bool rng_chance(double p) {
    return rng_unit() < p;
}

/* A host key from a counter: splitmix's finaliser is a bijection, so keys
 * are unique while looking random; 0 (no key) is skipped. */
static uint64_t key_from_counter(uint64_t counter) {
    return rng_mix(counter);
}

/* ------------------------------------------------------------------------ */
/* State                                                                    */
/* ------------------------------------------------------------------------ */

typedef struct options {
    int dims;
    uint32_t agents;
    uint64_t steps; /* 0: until --seconds */
    double seconds; /* 0: until --steps */
    uint32_t check_every;
    uint32_t snapshot_every;
    int threads;
    uint64_t seed;
    double churn;      /* share of agents removed per step, mean */
    double progress;   /* seconds between progress lines */
    double mem_margin; /* allowed growth over the warm-up mark */
} options;

typedef struct record {
    uint64_t key;
    throng_agent handle;
} record;

enum {
    GROUPS = 8
};

typedef struct soak {
    options opt;
    ts_heap mem; /* the world's heap, checked (testsupport/support.h) */
    throng_allocator allocator;
    throng_world *world;
    float box;

    /* Live agents, dense; slot_record[slot - 1] is each one's index. */
    record *live;
    uint32_t live_count, live_capacity;
    uint32_t *slot_record;
    uint32_t slot_capacity;
    record removed[SOAK_REMOVED_RING];
    uint64_t removed_total;
    uint64_t key_counter;
    throng_agent leaders[SOAK_LEADERS];

    throng_group groups[GROUPS];
    /* Objects: obstacles and walls churn one at a time (the navigation
     * field is rebuilt round them); paths and the flow and navigation
     * fields are replaced whole. */
    throng_object blockers[64];
    uint32_t blocker_count;
    throng_object dead_objects[64];
    uint32_t dead_object_count;
    throng_object open_path, closed_path, field, nav;
    bool routes_stale; /* groups still name removed routes */

    /* Pre-step state of a checked step. */
    throng_agent *pre_agent;
    float *pre_velocity;
    bool *pre_exempt;
    uint32_t pre_count, pre_capacity;

    /* Memory marks. */
    bool warm;
    size_t warm_live, warm_world;
    size_t max_live_after, max_world_after;

    /* Totals. */
    uint64_t step;
    uint64_t agent_steps;
    uint64_t adds, removes, snapshots, checks, violations;
    uint64_t stale_refusals;
    /* The largest |v| / max speed and m |dv| / dt / max force seen, so
     * the summary shows how close to the limits the run went. */
    double max_speed_ratio, max_force_ratio;
} soak;

static void violation(soak *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void violation(soak *s, const char *fmt, ...) {
    s->violations++;
    if (s->violations > SOAK_PRINT_LIMIT)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr,
            "soak: VIOLATION at step %llu: ", (unsigned long long)s->step);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (s->violations == SOAK_PRINT_LIMIT)
        fprintf(stderr, "soak: further violations are only counted\n");
}

/* Records a refused call that should have succeeded. */
static bool expect_ok(soak *s, throng_status st, const char *what) {
    if (st == THRONG_OK)
        return true;
    violation(s, "%s: %s (%s)", what, throng_status_string(st),
              throng_world_last_error(s->world));
    return false;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *grow(void *ptr, uint32_t *capacity, uint32_t want, size_t elem) {
    if (want <= *capacity)
        return ptr;
    uint32_t cap = *capacity ? *capacity : 1024u;
    while (cap < want)
        cap *= 2u;
    void *p = realloc(ptr, (size_t)cap * elem);
    if (p == NULL) {
        fprintf(stderr, "soak: out of memory\n");
        exit(2);
    }
    *capacity = cap;
    return p;
}

/* ------------------------------------------------------------------------ */
/* Geometry                                                                 */
/* ------------------------------------------------------------------------ */

static void random_point(const soak *s, float lo, float hi, float out[3]) {
    for (int c = 0; c < 3; ++c)
        out[c] = rng_range((double)(lo * s->box), (double)(hi * s->box));
    if (s->opt.dims == 2)
        out[2] = 0.0f;
}

/* A sphere, a box, a segment (2D) or a plane at random. */
static void blocker_add(soak *s) {
    if (s->blocker_count >= 64u)
        return;
    float a[3], b[3];
    throng_status st;
    throng_object obj;
    uint32_t kind = rng_below(s->opt.dims == 2 ? 4u : 3u);
    random_point(s, 0.05f, 0.95f, a);
    throng_obstacle_def od = throng_obstacle_def_default();
    throng_wall_def wd = throng_wall_def_default();
    if (kind == 0) {
        memcpy(od.center, a, sizeof od.center);
        od.radius = rng_range(0.5, 0.04 * (double)s->box);
        st = throng_obstacle_add(s->world, &od, &obj);
    } else if (kind == 1) {
        for (int c = 0; c < 3; ++c)
            b[c] = a[c] + rng_range(0.5, 0.08 * (double)s->box);
        od.kind = THRONG_OBJECT_BOX;
        od.radius = 0.0f;
        memcpy(od.min, a, sizeof od.min);
        memcpy(od.max, b, sizeof od.max);
        st = throng_obstacle_add(s->world, &od, &obj);
    } else if (kind == 2) {
        /* A plane near one face, facing into the box. */
        int axis = (int)rng_below((uint32_t)s->opt.dims);
        bool high = rng_chance(0.5);
        b[0] = b[1] = b[2] = 0.0f;
        b[axis] = high ? -1.0f : 1.0f;
        b[(axis + 1) % s->opt.dims] = rng_range(-0.2, 0.2);
        a[axis] = high ? 0.97f * s->box : 0.03f * s->box;
        wd.kind = THRONG_OBJECT_PLANE;
        memcpy(wd.point, a, sizeof wd.point);
        memcpy(wd.normal, b, sizeof wd.normal);
        st = throng_wall_add(s->world, &wd, &obj);
    } else {
        random_point(s, 0.05f, 0.95f, b);
        memcpy(wd.a, a, sizeof wd.a);
        memcpy(wd.b, b, sizeof wd.b);
        st = throng_wall_add(s->world, &wd, &obj);
    }
    if (expect_ok(s, st, "add obstacle or wall"))
        s->blockers[s->blocker_count++] = obj;
}

static void object_forget(soak *s, throng_object obj) {
    if (s->dead_object_count < 64u)
        s->dead_objects[s->dead_object_count++] = obj;
    else
        s->dead_objects[rng_below(64u)] = obj;
}

static void blocker_remove(soak *s) {
    if (s->blocker_count == 0)
        return;
    uint32_t i = rng_below(s->blocker_count);
    throng_object obj = s->blockers[i];
    if (expect_ok(s, throng_object_remove(s->world, obj), "remove object"))
        object_forget(s, obj);
    s->blockers[i] = s->blockers[--s->blocker_count];
}

static throng_object path_make(soak *s, bool closed) {
    float points[12 * 3];
    uint32_t count = 2u + rng_below(10u);
    for (uint32_t k = 0; k < count; ++k) {
        /* Around a ring, so consecutive points are well apart. */
        double angle = 2.0 * SOAK_PI * k / count;
        double r = (0.2 + 0.2 * rng_unit()) * (double)s->box;
        points[3 * k] = (float)(0.5 * (double)s->box + r * cos(angle));
        points[3 * k + 1] = (float)(0.5 * (double)s->box + r * sin(angle));
        points[3 * k + 2] =
            rng_range(0.3 * (double)s->box, 0.7 * (double)s->box);
    }
    throng_object obj = THRONG_NULL_OBJECT;
    throng_path_def pd = throng_path_def_default();
    pd.points = points;
    pd.point_count = count;
    pd.radius = rng_range(0.5, 0.05 * (double)s->box);
    pd.closed = closed;
    expect_ok(s, throng_path_add(s->world, &pd, &obj), "add path");
    return obj;
}

static throng_object field_make(soak *s) {
    float vectors[6 * 6 * 6 * 3];
    throng_flow_field_def def = throng_flow_field_def_default();
    uint32_t n = 1;
    for (int c = 0; c < 3; ++c) {
        def.size[c] = 1u + rng_below(6u);
        if (c < s->opt.dims)
            n *= def.size[c];
    }
    def.cell_size = s->box / 5.0f;
    for (uint32_t k = 0; k < n * (uint32_t)s->opt.dims; ++k)
        /* Some zero vectors, where the behaviour goes quiet. */
        vectors[k] = rng_chance(0.1) ? 0.0f : rng_range(-2.0, 2.0);
    def.vectors = vectors;
    throng_object obj = THRONG_NULL_OBJECT;
    expect_ok(s, throng_flow_field_add(s->world, &def, &obj), "add flow field");
    return obj;
}

/* A navigation field over the box (16 cells a side), its goal a small
 * box at a random place; a goal that lands wholly in a blocker is refused
 * (INVALID_ARG), and another place is drawn. */
static throng_object nav_make(soak *s) {
    throng_nav_field_def def = throng_nav_field_def_default();
    def.cell_size = s->box / 16.0f;
    for (int c = 0; c < 3; ++c)
        def.size[c] = c < s->opt.dims ? 16u : 1u;
    def.clearance = rng_chance(0.5) ? 0.0f : rng_range(0.1, 1.0);
    def.density_interval = rng_below(4u);
    def.density_cost = rng_chance(0.5) ? 0.0f : rng_range(0.0, 2.0);
    throng_nav_goal goal;
    memset(&goal, 0, sizeof goal);
    goal.kind = THRONG_NAV_GOAL_BOX;
    def.goals = &goal;
    def.goal_count = 1u;
    throng_object obj = THRONG_NULL_OBJECT;
    for (int tries = 0; tries < 64; ++tries) {
        for (int c = 0; c < s->opt.dims; ++c) {
            goal.a[c] = rng_range(0.1 * (double)s->box, 0.8 * (double)s->box);
            goal.b[c] = goal.a[c] + 0.05f * s->box;
        }
        const throng_status st = throng_nav_field_add(s->world, &def, &obj);
        if (st != THRONG_ERR_INVALID_ARG) {
            expect_ok(s, st, "add navigation field");
            break;
        }
    }
    return obj;
}

/* ------------------------------------------------------------------------ */
/* Groups                                                                   */
/* ------------------------------------------------------------------------ */

/* Recipes draw every parameter from the behaviour schema's ranges
 * (testsupport/support.h), lengths and weights up to a few metres; a
 * behaviour's path or flow field is one of the current routes. */
#define SOAK_PARAM_SCALE 4.0

static throng_object soak_route(int kind, void *user) {
    const soak *s = user;
    if (kind == THRONG_OBJECT_FLOW)
        return s->field;
    if (kind == THRONG_OBJECT_NAV)
        return s->nav;
    return rng_chance(0.5) ? s->open_path : s->closed_path;
}

static ts_schema_draw soak_draw(const soak *s) {
    ts_schema_draw d = { &rng_state, SOAK_PARAM_SCALE, SOAK_NEIGHBOUR_RADIUS,
                         soak_route, (void *)(uintptr_t)s };
    return d;
}

static throng_flocking random_flocking(const soak *s) {
    throng_flocking f;
    ts_schema_draw d = soak_draw(s);
    ts_schema_random(SCHEMA_SET_FLOCKING, &f, 0, &d);
    return f;
}

static throng_wander random_wander(const soak *s) {
    throng_wander w;
    ts_schema_draw d = soak_draw(s);
    ts_schema_random(SCHEMA_SET_WANDER, &w, 0, &d);
    return w;
}

/* A behaviour of `kind` with random parameters, naming the current
 * routes. */
static throng_behaviour random_behaviour(const soak *s,
                                         throng_behaviour_kind kind) {
    throng_behaviour b;
    ts_schema_draw d = soak_draw(s);
    ts_schema_random(SCHEMA_SET_BEHAVIOUR, &b, (int)kind, &d);
    return b;
}

/* Each group's list of behaviours: together they hold every kind. The
 * last group is a random pick, rebuilt differently each time. */
static const throng_behaviour_kind recipes[GROUPS][6] = {
    { THRONG_BEHAVIOUR_SEEK, THRONG_BEHAVIOUR_FLEE },
    { THRONG_BEHAVIOUR_ARRIVE, THRONG_BEHAVIOUR_ARRIVE,
      THRONG_BEHAVIOUR_AVOID_NEIGHBOURS },
    { THRONG_BEHAVIOUR_AVOID_OBSTACLES, THRONG_BEHAVIOUR_PURSUE,
      THRONG_BEHAVIOUR_OFFSET_PURSUIT },
    { THRONG_BEHAVIOUR_EVADE, THRONG_BEHAVIOUR_WANDER_CIRCLE,
      THRONG_BEHAVIOUR_CONTAIN },
    { THRONG_BEHAVIOUR_PATROL, THRONG_BEHAVIOUR_FOLLOW_PATH,
      THRONG_BEHAVIOUR_FOLLOW_FLOW, THRONG_BEHAVIOUR_FOLLOW_WALL },
    { THRONG_BEHAVIOUR_FOLLOW_LEADER, THRONG_BEHAVIOUR_CONTAIN,
      THRONG_BEHAVIOUR_AVOID_OBSTACLES },
    { THRONG_BEHAVIOUR_FOLLOW_FLOW, THRONG_BEHAVIOUR_PATROL,
      THRONG_BEHAVIOUR_WANDER_CIRCLE, THRONG_BEHAVIOUR_PURSUE,
      THRONG_BEHAVIOUR_EVADE, THRONG_BEHAVIOUR_AVOID_NEIGHBOURS },
    { 0 },
};

static void group_rebuild(soak *s, uint32_t g) {
    throng_group id = s->groups[g];
    expect_ok(s, throng_group_clear_behaviours(s->world, id), "clear group");
    if (g == GROUPS - 1) {
        uint32_t n = rng_below(THRONG_MAX_BEHAVIOURS + 1u);
        for (uint32_t k = 0; k < n; ++k) {
            throng_behaviour b = random_behaviour(
                s, (throng_behaviour_kind)(1u + rng_below(15u)));
            expect_ok(s, throng_group_add_behaviour(s->world, id, &b, NULL),
                      "add behaviour");
        }
        return;
    }
    for (int k = 0; k < 6 && recipes[g][k] != 0; ++k) {
        throng_behaviour b = random_behaviour(s, recipes[g][k]);
        expect_ok(s, throng_group_add_behaviour(s->world, id, &b, NULL),
                  "add behaviour");
    }
}

static void group_tweak(soak *s, uint32_t g) {
    throng_group id = s->groups[g];
    throng_flocking f = random_flocking(s);
    expect_ok(s, throng_group_set_flocking(s->world, id, &f), "set flocking");
    throng_wander w = random_wander(s);
    expect_ok(s, throng_group_set_wander(s->world, id, &w), "set wander");
    expect_ok(s,
              throng_group_set_combine(s->world, id,
                                       (throng_combine_mode)rng_below(3u)),
              "set combine");
    uint32_t count = 0;
    expect_ok(s, throng_group_behaviour_count(s->world, id, &count),
              "behaviour count");
    if (count > 0) {
        /* One behaviour redrawn, of the same kind. */
        uint32_t k = rng_below(count);
        throng_behaviour b;
        if (expect_ok(s, throng_group_get_behaviour(s->world, id, k, &b),
                      "get behaviour")) {
            b = random_behaviour(s, b.kind);
            expect_ok(s, throng_group_set_behaviour(s->world, id, k, &b),
                      "set behaviour");
        }
    }
}

/* Points every path and flow behaviour at the current routes. */
static void routes_refresh(soak *s) {
    for (uint32_t g = 0; g < GROUPS; ++g) {
        throng_group id = s->groups[g];
        uint32_t count = 0;
        expect_ok(s, throng_group_behaviour_count(s->world, id, &count),
                  "behaviour count");
        for (uint32_t k = 0; k < count; ++k) {
            throng_behaviour b;
            if (!expect_ok(s, throng_group_get_behaviour(s->world, id, k, &b),
                           "get behaviour"))
                continue;
            ts_schema_draw d = soak_draw(s);
            if (ts_schema_reroute(&b, &d) == 0)
                continue;
            expect_ok(s, throng_group_set_behaviour(s->world, id, k, &b),
                      "refresh route");
        }
    }
    s->routes_stale = false;
}

/* New paths, flow and navigation fields; the old ones are removed,
 * either after the groups move to the new ones or before, leaving the
 * groups naming removed objects (quiet behaviours) until a later
 * refresh. */
static void routes_swap(soak *s) {
    throng_object old[4] = { s->open_path, s->closed_path, s->field, s->nav };
    s->open_path = path_make(s, false);
    s->closed_path = path_make(s, true);
    s->field = field_make(s);
    s->nav = nav_make(s);
    bool refresh_first = rng_chance(0.5);
    if (refresh_first)
        routes_refresh(s);
    for (int k = 0; k < 4; ++k) {
        if (expect_ok(s, throng_object_remove(s->world, old[k]),
                      "remove route"))
            object_forget(s, old[k]);
    }
    if (!refresh_first)
        s->routes_stale = true;
}

/* ------------------------------------------------------------------------ */
/* Agents                                                                   */
/* ------------------------------------------------------------------------ */

static record *record_of(soak *s, throng_agent a) {
    if (a.slot == 0 || a.slot > s->slot_capacity)
        return NULL;
    uint32_t i = s->slot_record[a.slot - 1];
    if (i >= s->live_count || s->live[i].handle.generation != a.generation)
        return NULL;
    return &s->live[i];
}

static void slot_set(soak *s, uint32_t slot, uint32_t index) {
    if (slot > s->slot_capacity) {
        uint32_t old = s->slot_capacity;
        s->slot_record = grow(s->slot_record, &s->slot_capacity, slot,
                              sizeof *s->slot_record);
        for (uint32_t k = old; k < s->slot_capacity; ++k)
            s->slot_record[k] = UINT32_MAX;
    }
    s->slot_record[slot - 1] = index;
}

/* A target for a new or retargeted agent: mostly a live agent, sometimes
 * a leader (which may have been removed), sometimes a removed one. */
static throng_agent pick_target(soak *s, uint32_t group_index) {
    if (group_index == 5 || rng_chance(0.1))
        return s->leaders[rng_below(SOAK_LEADERS)];
    uint64_t ring = s->removed_total < SOAK_REMOVED_RING ? s->removed_total
                                                         : SOAK_REMOVED_RING;
    if (ring > 0 && rng_chance(0.05))
        return s->removed[rng_below((uint32_t)ring)].handle;
    if (s->live_count == 0)
        return THRONG_NULL_AGENT;
    return s->live[rng_below(s->live_count)].handle;
}

static bool handle_equal(throng_agent a, throng_agent b) {
    return a.slot == b.slot && a.generation == b.generation &&
           a.world == b.world;
}

/* Sets a target and checks the answer: a live other agent is accepted, a
 * removed one refused as stale, the agent itself refused. */
static void set_target(soak *s, throng_agent agent, throng_agent target) {
    throng_status st = throng_agent_set_target_agent(s->world, agent, target);
    bool is_null =
        target.slot == 0 && target.generation == 0 && target.world == 0;
    bool live = is_null || record_of(s, target) != NULL;
    if (handle_equal(agent, target)) {
        if (st == THRONG_OK)
            violation(s, "an agent was allowed to target itself");
    } else if (live) {
        expect_ok(s, st, "set target agent");
    } else if (st == THRONG_OK) {
        violation(s, "a removed target (slot %u gen %u) was accepted",
                  target.slot, target.generation);
    } else {
        s->stale_refusals++;
    }
}

static uint32_t group_pick(void) {
    /* Mostly the eight groups; a few agents in the default group coast. */
    return rng_chance(0.03) ? UINT32_MAX : rng_below(GROUPS);
}

static void agent_add(soak *s) {
    throng_agent_def def = throng_agent_def_default();
    random_point(s, 0.0f, 1.0f, def.position);
    def.mass = rng_range(0.5, 2.0);
    def.max_speed = rng_chance(0.01) ? 0.0f : rng_range(0.5, 2.0);
    def.max_force = rng_chance(0.01) ? 0.0f : rng_range(0.5, 6.0);
    def.radius = rng_range(0.0, 0.4);
    /* Now and then faster than allowed: the step truncates it. */
    double speed =
        (double)def.max_speed * (rng_chance(0.02) ? 1.5 : 1.0) * rng_unit();
    double dir[3] = { 0.0, 0.0, 0.0 }, norm = 0.0;
    for (int c = 0; c < s->opt.dims; ++c) {
        dir[c] = rng_unit() - 0.5;
        norm += dir[c] * dir[c];
    }
    norm = norm > 0.0 ? sqrt(norm) : 1.0;
    for (int c = 0; c < 3; ++c)
        def.velocity[c] = (float)(speed * dir[c] / norm);
    uint32_t g = group_pick();
    def.group = g == UINT32_MAX ? THRONG_NULL_GROUP : s->groups[g];
    uint64_t key;
    do
        key = key_from_counter(++s->key_counter);
    while (key == 0);
    def.host_key = key;

    throng_agent handle;
    if (!expect_ok(s, throng_agent_add(s->world, &def, &handle), "add agent"))
        return;
    s->live =
        grow(s->live, &s->live_capacity, s->live_count + 1u, sizeof *s->live);
    s->live[s->live_count] = (record){ key, handle };
    slot_set(s, handle.slot, s->live_count);
    s->live_count++;
    s->adds++;

    float point[3];
    random_point(s, 0.0f, 1.0f, point);
    expect_ok(s, throng_agent_set_target_point(s->world, handle, point),
              "set target point");
    set_target(s, handle, pick_target(s, g));
    if (rng_chance(0.3))
        expect_ok(s,
                  throng_agent_set_progress(s->world, handle, rng_below(16u)),
                  "set progress");
    /* A vacant or removed leader is replaced by a newcomer. */
    uint32_t l = rng_below(SOAK_LEADERS);
    if (record_of(s, s->leaders[l]) == NULL)
        s->leaders[l] = handle;
}

static void agent_remove_at(soak *s, uint32_t i) {
    record r = s->live[i];
    if (!expect_ok(s, throng_agent_remove(s->world, r.handle), "remove agent"))
        return;
    s->removed[s->removed_total % SOAK_REMOVED_RING] = r;
    s->removed_total++;
    s->removes++;
    s->slot_record[r.handle.slot - 1] = UINT32_MAX;
    uint32_t last = --s->live_count;
    if (i != last) {
        s->live[i] = s->live[last];
        s->slot_record[s->live[i].handle.slot - 1] = i;
    }
}

/* The agents the last step removed at a navigation field's goal (a
 * FOLLOW_NAV with nav.remove): forgotten as removed ones, and each must
 * indeed be gone. */
static void arrivals_take(soak *s, throng_world *w) {
    uint32_t n = 0;
    if (!expect_ok(s, throng_world_nav_arrivals(w, NULL, 0u, &n, NULL),
                   "count arrivals") ||
        n == 0u)
        return;
    throng_nav_arrival *all = malloc((size_t)n * sizeof *all);
    if (all == NULL) {
        fprintf(stderr, "soak: out of memory\n");
        exit(2);
    }
    uint32_t got = 0;
    bool cut = true;
    expect_ok(s, throng_world_nav_arrivals(w, all, n, &got, &cut), "arrivals");
    if (got != n || cut)
        violation(s, "arrivals: %u then %u (cut %d)", n, got, (int)cut);
    for (uint32_t k = 0; k < n && w == s->world; ++k) {
        if (!all[k].removed)
            continue;
        if (throng_agent_valid(w, all[k].agent))
            violation(s, "an agent removed on arrival (slot %u) is live",
                      all[k].agent.slot);
        const record *r = record_of(s, all[k].agent);
        if (r == NULL) {
            violation(s, "an agent removed on arrival (slot %u) was unknown",
                      all[k].agent.slot);
            continue;
        }
        const uint32_t i = (uint32_t)(r - s->live);
        s->removed[s->removed_total % SOAK_REMOVED_RING] = *r;
        s->removed_total++;
        s->removes++;
        s->slot_record[all[k].agent.slot - 1] = UINT32_MAX;
        uint32_t last = --s->live_count;
        if (i != last) {
            s->live[i] = s->live[last];
            s->slot_record[s->live[i].handle.slot - 1] = i;
        }
    }
    free(all);
}

/* The agent count the band asks for at this step: a triangle wave. */
static uint32_t band_target(const soak *s) {
    uint64_t phase = s->step % SOAK_BAND_PERIOD;
    double t = (double)phase / SOAK_BAND_PERIOD;          /* 0 .. 1 */
    double tri = t < 0.5 ? 4.0 * t - 1.0 : 3.0 - 4.0 * t; /* -1 .. 1 */
    return (uint32_t)((double)s->opt.agents * (1.0 + SOAK_BAND * tri));
}

static void churn_agents(soak *s) {
    uint32_t n = s->live_count;
    double share = s->opt.churn * (0.5 + rng_unit());
    uint32_t removes = (uint32_t)((double)n * share);
    /* Often a leader goes too. */
    if (rng_chance(0.2)) {
        record *leader = record_of(s, s->leaders[rng_below(SOAK_LEADERS)]);
        if (leader != NULL)
            agent_remove_at(s, (uint32_t)(leader - s->live));
    }
    for (uint32_t k = 0; k < removes && s->live_count > 0; ++k)
        agent_remove_at(s, rng_below(s->live_count));
    uint32_t target = band_target(s);
    while (s->live_count < target)
        agent_add(s);
    while (s->live_count > target)
        agent_remove_at(s, rng_below(s->live_count));
}

/* Changes a few live agents through the setters. */
static void mutate_agents(soak *s) {
    uint32_t n = s->live_count / 200u + 1u;
    for (uint32_t k = 0; k < n && s->live_count > 0; ++k) {
        uint32_t i = rng_below(s->live_count);
        throng_agent a = s->live[i].handle;
        switch (rng_below(8u)) {
        case 0: {
            float v[3] = { rng_range(-1.0, 1.0), rng_range(-1.0, 1.0),
                           rng_range(-1.0, 1.0) };
            expect_ok(s, throng_agent_set_velocity(s->world, a, v),
                      "set velocity");
            break;
        }
        case 1:
            expect_ok(
                s, throng_agent_set_max_speed(s->world, a, rng_range(0.2, 2.0)),
                "set max speed");
            break;
        case 2:
            expect_ok(
                s, throng_agent_set_max_force(s->world, a, rng_range(0.0, 6.0)),
                "set max force");
            break;
        case 3:
            expect_ok(s,
                      throng_agent_set_mass(s->world, a, rng_range(0.2, 3.0)),
                      "set mass");
            break;
        case 4: {
            uint32_t g = group_pick();
            expect_ok(s,
                      throng_agent_set_group(s->world, a,
                                             g == UINT32_MAX ? THRONG_NULL_GROUP
                                                             : s->groups[g]),
                      "set group");
            break;
        }
        case 5: {
            /* A new host key: the old one must no longer find it. */
            uint64_t old = s->live[i].key, key;
            do
                key = key_from_counter(++s->key_counter);
            while (key == 0);
            if (expect_ok(s, throng_agent_set_host_key(s->world, a, key),
                          "set host key")) {
                s->live[i].key = key;
                throng_agent found;
                if (throng_agent_find(s->world, old, &found) !=
                    THRONG_ERR_NOT_FOUND)
                    violation(s, "an agent's old host key still finds it");
            }
            break;
        }
        case 6: {
            float p[3];
            random_point(s, 0.0f, 1.0f, p);
            expect_ok(s, throng_agent_set_position(s->world, a, p),
                      "set position");
            break;
        }
        default:
            expect_ok(s,
                      throng_agent_set_radius(s->world, a, rng_range(0.0, 0.4)),
                      "set radius");
            break;
        }
    }
    /* Retarget a few, so pursuit chains keep live targets too. */
    if (s->step % EVERY_RETARGET == 0) {
        for (uint32_t k = 0; k < n && s->live_count > 0; ++k) {
            throng_agent a = s->live[rng_below(s->live_count)].handle;
            throng_group group = THRONG_NULL_GROUP;
            expect_ok(s, throng_agent_get_group(s->world, a, &group),
                      "get group");
            set_target(s, a,
                       pick_target(s, group.id == s->groups[5].id ? 5u : 0u));
        }
    }
}

/* A duplicate host key must be refused and change nothing. */
static void duplicate_probe(soak *s) {
    if (s->live_count == 0)
        return;
    uint32_t before = throng_world_agent_count(s->world);
    throng_agent_def def = throng_agent_def_default();
    def.host_key = s->live[rng_below(s->live_count)].key;
    throng_agent handle;
    throng_status st = throng_agent_add(s->world, &def, &handle);
    if (st != THRONG_ERR_DUPLICATE_KEY)
        violation(s, "a duplicate host key was answered with %s",
                  throng_status_string(st));
    if (throng_world_agent_count(s->world) != before)
        violation(s, "a refused add changed the agent count");
}

/* ------------------------------------------------------------------------ */
/* Checks                                                                   */
/* ------------------------------------------------------------------------ */

static void pre_step_take(soak *s) {
    throng_columns c;
    if (!expect_ok(s, throng_world_columns(s->world, &c), "columns"))
        return;
    if (c.count + 1u > s->pre_capacity) {
        uint32_t cap = s->pre_capacity;
        s->pre_agent =
            grow(s->pre_agent, &cap, c.count + 1u, sizeof *s->pre_agent);
        s->pre_velocity =
            realloc(s->pre_velocity, (size_t)cap * 3u * sizeof(float));
        s->pre_exempt = realloc(s->pre_exempt, (size_t)cap * sizeof(bool));
        if (s->pre_velocity == NULL || s->pre_exempt == NULL) {
            fprintf(stderr, "soak: out of memory\n");
            exit(2);
        }
        s->pre_capacity = cap;
    }
    for (uint32_t i = 0; i < c.count; ++i) {
        expect_ok(s, throng_agent_at(s->world, i, &s->pre_agent[i]),
                  "agent at");
        float *v = &s->pre_velocity[3 * i];
        v[0] = c.vx[i];
        v[1] = c.vy[i];
        v[2] = c.vz != NULL ? c.vz[i] : 0.0f;
        float max_speed = 0.0f;
        expect_ok(
            s,
            throng_agent_get_max_speed(s->world, s->pre_agent[i], &max_speed),
            "get max speed");
        double speed =
            sqrt((double)v[0] * (double)v[0] + (double)v[1] * (double)v[1] +
                 (double)v[2] * (double)v[2]);
        s->pre_exempt[i] =
            speed > (double)max_speed * (1.0 + SOAK_SPEED_REL) + SOAK_SPEED_ABS;
    }
    s->pre_count = c.count;
}

static void check_columns(soak *s) {
    throng_columns c;
    if (!expect_ok(s, throng_world_columns(s->world, &c), "columns"))
        return;
    if (c.count != s->live_count)
        violation(s, "columns hold %u rows, %u agents are live", c.count,
                  s->live_count);
    const float *cols[12] = { c.px, c.py, c.pz, c.vx, c.vy, c.vz,
                              c.fx, c.fy, c.fz, c.ux, c.uy, c.uz };
    static const char *names[12] = { "px", "py", "pz", "vx", "vy", "vz",
                                     "fx", "fy", "fz", "ux", "uy", "uz" };
    for (int k = 0; k < 12; ++k) {
        bool wanted = s->opt.dims == 3 || (k % 3 != 2 && k < 9);
        if ((cols[k] != NULL) != wanted) {
            violation(s, "column %s is %s", names[k],
                      wanted ? "missing" : "present in 2D");
            return;
        }
    }
    /* The group and host-key columns agree with the per-agent getters. */
    for (uint32_t i = 0; i < c.count; ++i) {
        throng_agent a;
        throng_group g = THRONG_NULL_GROUP;
        uint64_t key = 0;
        if (!expect_ok(s, throng_agent_at(s->world, i, &a), "agent at") ||
            !expect_ok(s, throng_agent_get_group(s->world, a, &g),
                       "get group") ||
            !expect_ok(s, throng_agent_get_host_key(s->world, a, &key),
                       "get host key"))
            return;
        if (c.group[i] != g.id || c.host_key[i] != key)
            violation(s,
                      "row %u: columns say group %u key %llu, the agent "
                      "group %u key %llu",
                      i, c.group[i], (unsigned long long)c.host_key[i], g.id,
                      (unsigned long long)key);
    }
    for (uint32_t i = 0; i < c.count; ++i) {
        for (int k = 0; k < 12; ++k) {
            if (cols[k] != NULL && !isfinite(cols[k][i]))
                violation(s, "row %u: %s = %g", i, names[k],
                          (double)cols[k][i]);
        }
        double f2 = (double)c.fx[i] * (double)c.fx[i] +
                    (double)c.fy[i] * (double)c.fy[i] +
                    (c.fz ? (double)c.fz[i] * (double)c.fz[i] : 0.0);
        if (fabs(sqrt(f2) - 1.0) > 1e-3)
            violation(s, "row %u: heading length %g", i, sqrt(f2));
        if (c.ux != NULL) {
            double u2 = (double)c.ux[i] * (double)c.ux[i] +
                        (double)c.uy[i] * (double)c.uy[i] +
                        (double)c.uz[i] * (double)c.uz[i];
            if (fabs(sqrt(u2) - 1.0) > 1e-3)
                violation(s, "row %u: up length %g", i, sqrt(u2));
        }
        double px[3] = { (double)c.px[i], (double)c.py[i],
                         c.pz ? (double)c.pz[i] : 0.0 };
        for (int a = 0; a < s->opt.dims; ++a) {
            if (px[a] < 0.0 || px[a] >= (double)s->box)
                violation(s, "row %u: position %g outside the box", i, px[a]);
        }
    }
}

static void check_limits(soak *s) {
    uint32_t n = s->pre_count;
    for (uint32_t k = 0; k < n; ++k) {
        throng_agent a = s->pre_agent[k];
        throng_agent_def def;
        /* Removed by the step itself (it arrived and asked to be). */
        if (record_of(s, a) == NULL)
            continue;
        if (!expect_ok(s, throng_agent_get_def(s->world, a, &def), "get def"))
            continue;
        const float *v = def.velocity;
        double speed =
            sqrt((double)v[0] * (double)v[0] + (double)v[1] * (double)v[1] +
                 (double)v[2] * (double)v[2]);
        if (def.max_speed > 0.0f &&
            speed / (double)def.max_speed > s->max_speed_ratio)
            s->max_speed_ratio = speed / (double)def.max_speed;
        if (speed >
            (double)def.max_speed * (1.0 + SOAK_SPEED_REL) + SOAK_SPEED_ABS)
            violation(s, "agent slot %u: speed %.9g above max speed %.9g",
                      a.slot, speed, (double)def.max_speed);
        if (s->pre_exempt[k])
            continue;
        const float *v0 = &s->pre_velocity[3 * k];
        double change = 0.0, speed0 = 0.0;
        for (int c = 0; c < 3; ++c) {
            double d = (double)v[c] - (double)v0[c];
            change += d * d;
            speed0 += (double)v0[c] * (double)v0[c];
        }
        double dt = (double)SOAK_DT;
        double force = (double)def.mass * sqrt(change) / dt;
        double slack =
            (double)def.mass * SOAK_FORCE_ULP * (speed + sqrt(speed0)) / dt;
        /* The ratio is reported only where rounding cannot dominate it
         * (a tiny max force). */
        if (slack < 0.01 * (double)def.max_force &&
            force / (double)def.max_force > s->max_force_ratio)
            s->max_force_ratio = force / (double)def.max_force;
        if (force > (double)def.max_force * (1.0 + SOAK_FORCE_REL) + slack)
            violation(s,
                      "agent slot %u: velocity change needs force %.9g, "
                      "max force %.9g (mass %g)",
                      a.slot, force, (double)def.max_force, (double)def.mass);
    }
}

static void check_handles(soak *s) {
    uint32_t count = throng_world_agent_count(s->world);
    if (count != s->live_count)
        violation(s, "world counts %u agents, the host %u", count,
                  s->live_count);
    for (uint32_t i = 0; i < s->live_count; ++i) {
        record r = s->live[i];
        if (!throng_agent_valid(s->world, r.handle)) {
            violation(s, "live agent key %016llx slot %u is not valid",
                      (unsigned long long)r.key, r.handle.slot);
            continue;
        }
        throng_agent found = THRONG_NULL_AGENT;
        throng_status st = throng_agent_find(s->world, r.key, &found);
        if (st != THRONG_OK || !handle_equal(found, r.handle))
            violation(s, "key %016llx finds slot %u (%s), expected slot %u",
                      (unsigned long long)r.key, found.slot,
                      throng_status_string(st), r.handle.slot);
        uint64_t key = 0;
        st = throng_agent_get_host_key(s->world, r.handle, &key);
        if (st != THRONG_OK || key != r.key)
            violation(s, "slot %u carries key %016llx, expected %016llx",
                      r.handle.slot, (unsigned long long)key,
                      (unsigned long long)r.key);
    }
    for (uint32_t row = 0; row < count; ++row) {
        throng_agent a;
        uint32_t index = UINT32_MAX;
        if (!expect_ok(s, throng_agent_at(s->world, row, &a), "agent at"))
            continue;
        if (record_of(s, a) == NULL)
            violation(s, "row %u is slot %u gen %u, unknown to the host", row,
                      a.slot, a.generation);
        if (throng_agent_index(s->world, a, &index) != THRONG_OK ||
            index != row)
            violation(s, "row %u's agent reports index %u", row, index);
    }
    uint64_t ring = s->removed_total < SOAK_REMOVED_RING ? s->removed_total
                                                         : SOAK_REMOVED_RING;
    for (uint64_t k = 0; k < ring; ++k) {
        record r = s->removed[k];
        if (throng_agent_valid(s->world, r.handle))
            violation(s, "removed agent slot %u gen %u is still valid",
                      r.handle.slot, r.handle.generation);
        throng_agent found;
        throng_status st = throng_agent_find(s->world, r.key, &found);
        if (st != THRONG_ERR_NOT_FOUND)
            violation(s, "removed key %016llx answers %s",
                      (unsigned long long)r.key, throng_status_string(st));
    }
}

static void check_objects(soak *s) {
    uint32_t expected = s->blocker_count + 4u;
    uint32_t count = throng_world_object_count(s->world);
    if (count != expected)
        violation(s, "world counts %u objects, the host %u", count, expected);
    throng_object_info info;
    for (uint32_t k = 0; k < s->blocker_count; ++k)
        expect_ok(s, throng_object_get(s->world, s->blockers[k], &info),
                  "get object");
    throng_object routes[4] = { s->open_path, s->closed_path, s->field,
                                s->nav };
    for (int k = 0; k < 4; ++k)
        expect_ok(s, throng_object_get(s->world, routes[k], &info),
                  "get route");
    for (uint32_t k = 0; k < s->dead_object_count; ++k) {
        if (throng_object_get(s->world, s->dead_objects[k], &info) !=
            THRONG_ERR_STALE_HANDLE)
            violation(s, "removed object %u gen %u is not refused",
                      s->dead_objects[k].id, s->dead_objects[k].generation);
    }
}

static void check_memory(soak *s) {
    size_t live = s->mem.live;
    size_t world = throng_world_bytes(s->world);
    if (s->mem.bad_frees || s->mem.bad_align) {
        violation(s,
                  "allocator: %llu frees of the wrong size, %llu bad "
                  "alignments",
                  (unsigned long long)s->mem.bad_frees,
                  (unsigned long long)s->mem.bad_align);
        s->mem.bad_frees = s->mem.bad_align = 0;
    }
    /* The world's own figure must track what it holds. */
    if (fabs((double)world - (double)live) > SOAK_BYTES_AGREE * (double)live)
        violation(s, "throng_world_bytes says %zu, the allocator holds %zu",
                  world, live);
    if (!s->warm) {
        s->warm_live = live > s->warm_live ? live : s->warm_live;
        s->warm_world = world > s->warm_world ? world : s->warm_world;
        return;
    }
    s->max_live_after = live > s->max_live_after ? live : s->max_live_after;
    s->max_world_after =
        world > s->max_world_after ? world : s->max_world_after;
    double margin = 1.0 + s->opt.mem_margin;
    if ((double)live > (double)s->warm_live * margin)
        violation(s, "live bytes %zu above the warm-up mark %zu", live,
                  s->warm_live);
    if ((double)world > (double)s->warm_world * margin)
        violation(s, "world bytes %zu above the warm-up mark %zu", world,
                  s->warm_world);
}

/* ------------------------------------------------------------------------ */
/* Snapshots                                                                */
/* ------------------------------------------------------------------------ */

/* A handle of the saved world, carried to the loaded one: the loaded
 * world refuses it as it is (another world's), and rebinding must give
 * the same slot and generation when it named a live agent, and refuse it
 * otherwise. A removed agent's handle keeps its slot and generation under
 * the new world's id, so that it is still tried as a stale handle. */
static throng_agent agent_carry(soak *s, throng_world *loaded, throng_agent a,
                                bool live) {
    if (a.slot == 0 && a.generation == 0 && a.world == 0)
        return a;
    if (throng_agent_valid(loaded, a))
        violation(s,
                  "the loaded world takes the saved world's slot %u as "
                  "its own",
                  a.slot);
    throng_agent here = THRONG_NULL_AGENT;
    throng_status st = throng_agent_rebind(loaded, a, &here);
    if (live && (st != THRONG_OK || here.slot != a.slot ||
                 here.generation != a.generation))
        violation(s, "rebinding live slot %u gen %u: %s", a.slot, a.generation,
                  throng_status_string(st));
    if (!live && st != THRONG_ERR_STALE_HANDLE)
        violation(s, "rebinding removed slot %u gen %u: %s", a.slot,
                  a.generation, throng_status_string(st));
    a.world = throng_world_id(loaded);
    return a;
}

static throng_object object_carry(soak *s, throng_world *loaded,
                                  throng_object o, bool live) {
    if (o.id == 0)
        return o;
    throng_object here = THRONG_NULL_OBJECT;
    throng_status st = throng_object_rebind(loaded, o, &here);
    if (live &&
        (st != THRONG_OK || here.id != o.id || here.generation != o.generation))
        violation(s, "rebinding live object %u gen %u: %s", o.id, o.generation,
                  throng_status_string(st));
    if (!live && st != THRONG_ERR_STALE_HANDLE)
        violation(s, "rebinding removed object %u gen %u: %s", o.id,
                  o.generation, throng_status_string(st));
    o.world = throng_world_id(loaded);
    return o;
}

/* Moves every handle the host holds over to the loaded world. */
static void handles_carry(soak *s, throng_world *loaded) {
    for (uint32_t i = 0; i < SOAK_LEADERS; ++i)
        s->leaders[i] = agent_carry(s, loaded, s->leaders[i],
                                    record_of(s, s->leaders[i]) != NULL);
    for (uint32_t i = 0; i < s->live_count; ++i)
        s->live[i].handle = agent_carry(s, loaded, s->live[i].handle, true);
    uint64_t ring = s->removed_total < SOAK_REMOVED_RING ? s->removed_total
                                                         : SOAK_REMOVED_RING;
    for (uint64_t k = 0; k < ring; ++k)
        s->removed[k].handle =
            agent_carry(s, loaded, s->removed[k].handle, false);
    for (uint32_t k = 0; k < s->blocker_count; ++k)
        s->blockers[k] = object_carry(s, loaded, s->blockers[k], true);
    for (uint32_t k = 0; k < s->dead_object_count; ++k)
        s->dead_objects[k] = object_carry(s, loaded, s->dead_objects[k], false);
    s->open_path = object_carry(s, loaded, s->open_path, true);
    s->closed_path = object_carry(s, loaded, s->closed_path, true);
    s->field = object_carry(s, loaded, s->field, true);
    s->nav = object_carry(s, loaded, s->nav, true);
    /* Groups: each saved handle is refused as it is and rebinds to the
     * same id and generation. */
    for (uint32_t g = 0; g < GROUPS; ++g) {
        throng_group here = THRONG_NULL_GROUP;
        if (throng_group_valid(loaded, s->groups[g]))
            violation(s, "the loaded world accepts group %u's saved handle", g);
        throng_status st = throng_group_rebind(loaded, s->groups[g], &here);
        if (st != THRONG_OK || here.id != s->groups[g].id ||
            here.generation != s->groups[g].generation)
            violation(s, "rebinding group %u: %s", g,
                      throng_world_last_error(loaded));
        s->groups[g] = here;
    }
}

static void snapshot_cycle(soak *s) {
    size_t size = 0;
    if (!expect_ok(s, throng_world_snapshot_size(s->world, &size),
                   "snapshot size"))
        return;
    void *buffer = malloc(size);
    if (buffer == NULL) {
        fprintf(stderr, "soak: out of memory\n");
        exit(2);
    }
    size_t written = 0;
    if (expect_ok(s, throng_world_save(s->world, buffer, size, &written),
                  "save")) {
        throng_world_load_def def = throng_world_load_def_default();
        char error[256];
        def.allocator = s->allocator;
        def.error = error;
        def.error_capacity = sizeof error;
        throng_world *loaded = NULL;
        throng_status st = throng_world_load(buffer, written, &def, &loaded);
        if (st != THRONG_OK) {
            violation(s, "load: %s (%s)", throng_status_string(st), error);
        } else {
            uint64_t h0 = throng_world_hash(s->world);
            uint64_t h1 = throng_world_hash(loaded);
            if (h0 != h1)
                violation(s, "loaded world hashes %016llx, saved %016llx",
                          (unsigned long long)h1, (unsigned long long)h0);
            /* Every other time both step once more and must agree. */
            if (s->snapshots % 2 == 1) {
                throng_world_set_threads(
                    loaded, 1 + (int)rng_below((uint32_t)s->opt.threads));
                expect_ok(s, throng_world_step(s->world, SOAK_DT), "step");
                arrivals_take(s, s->world);
                st = throng_world_step(loaded, SOAK_DT);
                if (st != THRONG_OK)
                    violation(s, "loaded world refuses to step: %s",
                              throng_status_string(st));
                h0 = throng_world_hash(s->world);
                h1 = throng_world_hash(loaded);
                if (h0 != h1)
                    violation(s,
                              "after a step the loaded world hashes %016llx, "
                              "the saved one %016llx",
                              (unsigned long long)h1, (unsigned long long)h0);
                s->step++;
                s->agent_steps += s->live_count;
            }
            /* Carry on with the copy: the host's handles, rebound, must
             * hold. */
            handles_carry(s, loaded);
            throng_world_destroy(s->world);
            s->world = loaded;
        }
    }
    free(buffer);
    s->snapshots++;
}

/* ------------------------------------------------------------------------ */
/* The run                                                                  */
/* ------------------------------------------------------------------------ */

static void world_build(soak *s) {
    const options *o = &s->opt;
    double peak = (double)o->agents * (1.0 + SOAK_BAND) + 1.0;
    double edge = o->dims == 2
                      ? sqrt(peak * SOAK_PI / SOAK_NEIGHBOURS)
                      : cbrt(peak * 4.0 / 3.0 * SOAK_PI / SOAK_NEIGHBOURS);
    s->box = (float)(edge > 12.0 ? edge : 12.0);

    throng_world_def def = throng_world_def_default();
    def.dimensions = o->dims;
    def.boundary = THRONG_BOUNDARY_PERIODIC;
    def.box_size[0] = def.box_size[1] = def.box_size[2] = s->box;
    def.neighbour_radius = SOAK_NEIGHBOUR_RADIUS;
    def.threads = o->threads;
    def.seed = o->seed;
    def.initial_capacity = (uint32_t)peak;
    s->allocator = ts_heap_allocator(&s->mem);
    def.allocator = s->allocator;
    throng_status st = throng_world_create(&def, &s->world);
    if (st != THRONG_OK) {
        fprintf(stderr, "soak: cannot create the world: %s\n",
                throng_status_string(st));
        exit(1);
    }

    for (int k = 0; k < 12; ++k)
        blocker_add(s);
    s->open_path = path_make(s, false);
    s->closed_path = path_make(s, true);
    s->field = field_make(s);
    s->nav = nav_make(s);
    for (uint32_t g = 0; g < GROUPS; ++g) {
        throng_group_def gd = throng_group_def_default();
        gd.flocking = random_flocking(s);
        gd.wander = random_wander(s);
        gd.combine = (throng_combine_mode)(g % 3u);
        expect_ok(s, throng_group_create(s->world, &gd, &s->groups[g]),
                  "create group");
        group_rebuild(s, g);
    }
    /* Start at the top of the band, so the handle table (and with it the
     * capacity a loaded snapshot reserves) covers the whole band from the
     * first step; the band then takes the count down. */
    for (uint32_t i = 0; i < (uint32_t)peak; ++i)
        agent_add(s);
}

static void print_line(const soak *s, const char *what, double elapsed) {
    printf("soak: %s dim %d step %llu agents %u agent-steps %llu elapsed "
           "%.1f s live-bytes %zu peak-live-bytes %zu world-bytes %zu "
           "violations %llu\n",
           what, s->opt.dims, (unsigned long long)s->step, s->live_count,
           (unsigned long long)s->agent_steps, elapsed, s->mem.live,
           s->mem.peak, s->world ? throng_world_bytes(s->world) : (size_t)0,
           (unsigned long long)s->violations);
    fflush(stdout);
}

static bool run_done(const soak *s, double elapsed) {
    if (s->opt.steps && s->step >= s->opt.steps)
        return true;
    return s->opt.seconds > 0.0 && elapsed >= s->opt.seconds;
}

/* Share of the run behind us: by steps, by time, whichever is further. */
static double run_fraction(const soak *s, double elapsed) {
    double by_steps =
        s->opt.steps ? (double)s->step / (double)s->opt.steps : 0.0;
    double by_time = s->opt.seconds > 0.0 ? elapsed / s->opt.seconds : 0.0;
    return by_steps > by_time ? by_steps : by_time;
}

static int run(soak *s) {
    double start = now_seconds();
    rng_state = s->opt.seed;
    world_build(s);
    double last_progress = start;
    print_line(s, "start", 0.0);

    for (;;) {
        double elapsed = now_seconds() - start;
        if (run_done(s, elapsed))
            break;
        /* Warm-up: a tenth of the run, two snapshots and two periods of
         * the agent band, so the marks have seen every state. */
        if (!s->warm && run_fraction(s, elapsed) >= 0.1 && s->snapshots >= 2 &&
            s->step >= 2u * SOAK_BAND_PERIOD) {
            s->warm = true;
            printf("soak: warm-up done at step %llu: live-bytes mark %zu "
                   "world-bytes mark %zu\n",
                   (unsigned long long)s->step, s->warm_live, s->warm_world);
        }

        churn_agents(s);
        mutate_agents(s);
        if (s->step % EVERY_OBJECT_SWAP == 0) {
            blocker_remove(s);
            blocker_add(s);
        }
        if (s->step % EVERY_ROUTE_SWAP == EVERY_ROUTE_SWAP - 1)
            routes_swap(s);
        else if (s->routes_stale && rng_chance(0.05))
            routes_refresh(s);
        if (s->step % EVERY_GROUP_TWEAK == 0)
            group_tweak(s, rng_below(GROUPS));
        if (s->step % EVERY_GROUP_REBUILD == EVERY_GROUP_REBUILD - 1)
            group_rebuild(s, rng_below(GROUPS));
        if (s->step % EVERY_THREADS == 0)
            expect_ok(
                s,
                throng_world_set_threads(
                    s->world, 1 + (int)rng_below((uint32_t)s->opt.threads)),
                "set threads");
        if (s->step % EVERY_DUPLICATE == 0)
            duplicate_probe(s);
        if (s->step % s->opt.snapshot_every == s->opt.snapshot_every / 2)
            snapshot_cycle(s);

        bool check = (s->step + 1) % s->opt.check_every == 0;
        if (check)
            pre_step_take(s);
        expect_ok(s, throng_world_step(s->world, SOAK_DT), "step");
        arrivals_take(s, s->world);
        s->step++;
        s->agent_steps += s->live_count;
        if (check) {
            check_columns(s);
            check_limits(s);
            check_handles(s);
            check_objects(s);
            check_memory(s);
            s->checks++;
        } else if (!s->warm) {
            /* The warm-up mark sees every step, not only checked ones. */
            s->warm_live =
                s->mem.live > s->warm_live ? s->mem.live : s->warm_live;
        } else if ((double)s->mem.live >
                   (double)s->warm_live * (1.0 + s->opt.mem_margin)) {
            violation(s, "live bytes %zu above the warm-up mark %zu",
                      s->mem.live, s->warm_live);
        }

        double t = now_seconds();
        if (t - last_progress >= s->opt.progress) {
            last_progress = t;
            print_line(s, "progress", t - start);
        }
    }

    double elapsed = now_seconds() - start;
    /* One last full check, whatever the interval. */
    check_columns(s);
    check_handles(s);
    check_objects(s);
    check_memory(s);
    s->checks++;
    print_line(s, "end", elapsed);
    /* The same options give the same run: the state hash at the end does
     * not depend on timing or threads, only on a --seconds cut-off. */
    printf("soak: final state hash %016llx\n",
           (unsigned long long)throng_world_hash(s->world));
    size_t peak = s->mem.peak;
    throng_world_destroy(s->world);
    s->world = NULL;
    if (s->mem.live != 0 || s->mem.allocs != s->mem.frees)
        violation(s, "after destroy %zu bytes in %llu blocks are still held",
                  s->mem.live,
                  (unsigned long long)(s->mem.allocs - s->mem.frees));
    if (s->mem.bad_frees)
        violation(s, "%llu frees named the wrong size",
                  (unsigned long long)s->mem.bad_frees);
    if (!s->warm)
        printf("soak: note: the run ended inside its warm-up, so memory "
               "growth was not checked\n");
    printf("soak: summary dim %d agents %u threads %d seed %llu steps %llu "
           "agent-steps %llu adds %llu removes %llu snapshots %llu checks "
           "%llu violations %llu peak-live-bytes %zu warm-live-bytes %zu "
           "max-live-after-warm-up %zu max-speed-ratio %.6f "
           "max-force-ratio %.6f stale-target-refusals %llu elapsed %.1f s\n",
           s->opt.dims, s->opt.agents, s->opt.threads,
           (unsigned long long)s->opt.seed, (unsigned long long)s->step,
           (unsigned long long)s->agent_steps, (unsigned long long)s->adds,
           (unsigned long long)s->removes, (unsigned long long)s->snapshots,
           (unsigned long long)s->checks, (unsigned long long)s->violations,
           peak, s->warm_live, s->max_live_after, s->max_speed_ratio,
           s->max_force_ratio, (unsigned long long)s->stale_refusals, elapsed);
    return s->violations ? 1 : 0;
}

/* ------------------------------------------------------------------------ */
/* Options                                                                  */
/* ------------------------------------------------------------------------ */

enum {
    OPT_DIM,
    OPT_AGENTS,
    OPT_STEPS,
    OPT_SECONDS,
    OPT_CHECK_EVERY,
    OPT_SNAPSHOT_EVERY,
    OPT_THREADS,
    OPT_SEED,
    OPT_CHURN,
    OPT_PROGRESS,
    OPT_MEM_MARGIN,
    OPT_HELP,
    OPT_COUNT
};

static const cli_option option_table[OPT_COUNT] = {
    [OPT_DIM] = { "dim", 0, "2|3", "dimensions (default 2)" },
    [OPT_AGENTS] = { "agents", 0, "N",
                     "agents, the middle of a +-5% band\n"
                     "(default 10000; k and M suffixes)" },
    [OPT_STEPS] = { "steps", 0, "N", "stop after N steps" },
    [OPT_SECONDS] = { "seconds", 0, "S",
                      "stop after S seconds of wall time\n"
                      "(default: 60 when neither is given)" },
    [OPT_CHECK_EVERY] = { "check-every", 0, "N",
                          "full checks every N steps (default 100)" },
    [OPT_SNAPSHOT_EVERY] = { "snapshot-every", 0, "N",
                             "save and reload every N steps (default 1000)" },
    [OPT_THREADS] = { "threads", 0, "T",
                      "most threads a step uses; the run\n"
                      "switches among 1..T (default 2)" },
    [OPT_SEED] = { "seed", 0, "N", "seed of everything (default 1)" },
    [OPT_CHURN] = { "churn", 0, "X",
                    "share of agents removed per step, mean\n"
                    "(default 0.02)" },
    [OPT_PROGRESS] = { "progress", 0, "S",
                       "seconds between progress lines (default 10)" },
    [OPT_MEM_MARGIN] = { "mem-margin", 0, "X",
                         "allowed memory growth over the warm-up\n"
                         "mark, a share (default 0.1)" },
    [OPT_HELP] = { "help", 'h', NULL, NULL },
};

static void usage(FILE *f) {
    fputs("usage: throng-soak [options]\n"
          "\n"
          "Steps a scene using every behaviour and object kind while\n"
          "adding and removing agents and objects, changing groups and\n"
          "threads and reloading snapshots; checks finiteness, limits,\n"
          "memory and handles as it goes. Exits 1 on any violation.\n"
          "\n",
          f);
    cli_print_options(f, option_table, OPT_COUNT, 23);
}

static bool parse_count(const char *text, double *out) {
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text)
        return false;
    if (*end == 'k')
        v *= 1e3, end++;
    else if (*end == 'M')
        v *= 1e6, end++;
    *out = v;
    return *end == '\0' && v >= 0.0 && isfinite(v);
}

typedef struct soak_request {
    options *o;
    bool help;
} soak_request;

/* One option's value, checked against its range. */
static bool take_option(void *context, size_t index, const char *value) {
    soak_request *request = context;
    options *o = request->o;
    if (index == OPT_HELP) {
        request->help = true;
        return true;
    }
    double v = 0.0;
    if (!parse_count(value, &v)) {
        fprintf(stderr, "soak: bad value '%s' for --%s\n", value,
                option_table[index].name);
        return false;
    }
    bool ok = true;
    switch (index) {
    case OPT_DIM:
        ok = v == 2.0 || v == 3.0;
        o->dims = (int)v;
        break;
    case OPT_AGENTS:
        ok = v >= 16.0 && v <= 1e8;
        o->agents = (uint32_t)v;
        break;
    case OPT_STEPS:
        o->steps = (uint64_t)v;
        break;
    case OPT_SECONDS:
        o->seconds = v;
        break;
    case OPT_CHECK_EVERY:
        ok = v >= 1.0;
        o->check_every = (uint32_t)v;
        break;
    case OPT_SNAPSHOT_EVERY:
        ok = v >= 2.0;
        o->snapshot_every = (uint32_t)v;
        break;
    case OPT_THREADS:
        ok = v >= 1.0 && v <= 1024.0;
        o->threads = (int)v;
        break;
    case OPT_SEED:
        o->seed = (uint64_t)v;
        break;
    case OPT_CHURN:
        ok = v <= 0.5;
        o->churn = v;
        break;
    case OPT_PROGRESS:
        ok = v > 0.0;
        o->progress = v;
        break;
    default:
        o->mem_margin = v;
        break;
    }
    if (!ok) {
        fprintf(stderr, "soak: value out of range: --%s %s\n",
                option_table[index].name, value);
    }
    return ok;
}

int main(int argc, char **argv) {
    static soak s; /* large: the removed ring */
    options *o = &s.opt;
    o->dims = 2;
    o->agents = 10000;
    o->check_every = 100;
    o->snapshot_every = 1000;
    o->threads = 2;
    o->seed = 1;
    o->churn = 0.02;
    o->progress = 10.0;
    o->mem_margin = SOAK_MEM_MARGIN;
    soak_request request = { o, false };
    const cli reader = { "soak", option_table, OPT_COUNT,
                         false,  take_option,  &request };
    if (cli_parse(&reader, argc, argv) < 0) {
        return CLI_EXIT_USAGE;
    }
    if (request.help) {
        usage(stdout);
        return 0;
    }
    if (o->steps == 0 && o->seconds <= 0.0)
        o->seconds = 60.0;
    return run(&s);
}
