/* SPDX-License-Identifier: MIT */
/*
 * Allocation failure: every allocation an operation makes is refused in
 * turn, and the operation must give up cleanly.
 *
 * The world's allocator is replaced by the shared checking one
 * (testsupport/support.h) that records every live block, checks that each free names a
 * live block with the size it was allocated with, that alignments are
 * powers of two up to 64 and honoured, and can be told to refuse the k-th
 * allocation from now (and, optionally, every one after it).
 *
 * For each operation the driver first builds the state the operation
 * starts from and runs it once to count its allocations, N. Then, for
 * k = 0 .. N - 1, it builds the same state afresh and runs the operation
 * with the k-th allocation refused, and checks that the call returned
 * THRONG_ERR_OUT_OF_MEMORY (a create or load also leaves *out NULL), that
 * the world is as it was (state hash, counts, groups, objects, key table),
 * that the same call then succeeds with the same result, that the world
 * still steps to a finite state, and that destroying it leaves no live
 * block. Sweeps over growing worlds find the calls that grow a table
 * (columns, slots, groups, the uthash tables) and inject into those.
 *
 * The last test prints how many failures were injected in all.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "object_defs.h"
#include "runner.h"

/* ------------------------------------------------------------------------ */
/* The counting allocator                                                   */
/* ------------------------------------------------------------------------ */

/* The shared checking allocator (testsupport/support.h), poisoning fresh
 * blocks: code that reads what it did not write shows up as a
 * difference, not as luck. */
static ts_heap af_heap_state = { .poison = true };

static throng_allocator af_allocator(void) {
    return ts_heap_allocator(&af_heap_state);
}

/* ------------------------------------------------------------------------ */
/* What was injected, per operation                                         */
/* ------------------------------------------------------------------------ */

#define AF_MAX_REPORT 32

typedef struct af_report_row {
    const char *op;
    uint32_t cases;
    uint64_t allocations; /* summed over the counting runs */
    uint64_t runs;        /* runs with a refusal */
    uint64_t injected;    /* refusals returned */
} af_report_row;

static af_report_row af_report[AF_MAX_REPORT];
static int af_report_count;

static af_report_row *af_report_for(const char *op) {
    for (int i = 0; i < af_report_count; i++)
        if (strcmp(af_report[i].op, op) == 0)
            return &af_report[i];
    if (af_report_count == AF_MAX_REPORT)
        return &af_report[AF_MAX_REPORT - 1];
    af_report[af_report_count].op = op;
    return &af_report[af_report_count++];
}

/* ------------------------------------------------------------------------ */
/* Scenes: the states operations start from                                 */
/* ------------------------------------------------------------------------ */

#define AF_BOX 20.0f
#define AF_KEY0 1000u
/* Keys the fingerprint looks up: every key a scene or an operation uses. */
#define AF_KEY_PROBES 700u
#define AF_DT 0.05f

typedef struct af_scene {
    int dims;
    int periodic;
    uint32_t initial_capacity;
    uint32_t groups; /* named groups "g1" .. "gN", flocking */
    int list;        /* group 0 gets a behaviour list (state columns) */
    uint32_t agents;
    uint32_t keyed; /* the first `keyed` agents carry keys AF_KEY0 + i */
    int target;     /* a target point on the first agent */
    uint32_t spheres;
    int every_kind; /* one object of each kind, and behaviours on them */
    int removed;    /* an agent and an object removed (free lists) */
    uint32_t steps;
    uint32_t agents_after; /* added after the steps */
    int objects_after;     /* a box added after the steps */
    int threads_after;     /* threads set after the steps; 0: kept */
} af_scene;

static void af_position(uint32_t i, int dims, float p[3]) {
    test_rng rng = test_rng_make(0xA11Cu + i);
    for (int a = 0; a < 3; a++)
        p[a] = a < dims ? test_rng_range(&rng, 1.0f, AF_BOX - 1.0f) : 0.0f;
}

static throng_world_def af_world_def(const af_scene *s) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = s->dims;
    d.boundary =
        s->periodic ? THRONG_BOUNDARY_PERIODIC : THRONG_BOUNDARY_UNBOUNDED;
    d.box_size[0] = d.box_size[1] = d.box_size[2] = AF_BOX;
    d.neighbour_radius = 1.0f;
    d.threads = 2;
    d.initial_capacity = s->initial_capacity;
    d.allocator = af_allocator();
    return d;
}

static throng_status af_add_agent(throng_world *w, int dims, uint32_t i,
                                  throng_group group, uint64_t key,
                                  throng_agent *out) {
    throng_agent_def a = throng_agent_def_default();
    af_position(i, dims, a.position);
    test_rng rng = test_rng_make(0xBEEFu + i);
    for (int k = 0; k < dims; k++)
        a.velocity[k] = test_rng_range(&rng, -0.5f, 0.5f);
    a.group = group;
    a.host_key = key;
    return throng_agent_add(w, &a, out);
}

static throng_status af_add_sphere(throng_world *w, uint32_t i) {
    float c[3];
    af_position(9000u + i, 3, c);
    throng_object o;
    return add_sphere(w, c, 0.5f, &o);
}

/* The path and flow field every_kind adds, also used by the operations. */
static const float af_path_points[4 * 3] = { 2.0f, 2.0f, 2.0f,  18.0f,
                                             2.0f, 3.0f, 18.0f, 18.0f,
                                             4.0f, 2.0f, 18.0f, 5.0f };
static float af_flow_vectors[4 * 4 * 4 * 3];

static throng_flow_field_def af_flow_def(void) {
    for (size_t i = 0; i < sizeof af_flow_vectors / sizeof(float); i++)
        af_flow_vectors[i] = (float)((i * 7u) % 5u) * 0.1f - 0.2f;
    throng_flow_field_def f;
    memset(&f, 0, sizeof f);
    f.origin[0] = f.origin[1] = f.origin[2] = 0.0f;
    f.cell_size = 5.0f;
    f.size[0] = f.size[1] = f.size[2] = 4u;
    f.vectors = af_flow_vectors;
    return f;
}

/* The navigation field every_kind adds (crowd-aware, so a step counts
 * and rebuilds it), also used by the operations: 2 m cells over the
 * scene's 20 m, a 2 m goal box in the middle. */
static throng_nav_goal af_nav_goal;

static throng_nav_field_def af_nav_def(int dims) {
    memset(&af_nav_goal, 0, sizeof af_nav_goal);
    af_nav_goal.kind = THRONG_NAV_GOAL_BOX;
    for (int k = 0; k < 3; k++) {
        af_nav_goal.a[k] = 9.0f;
        af_nav_goal.b[k] = k < dims ? 11.0f : 0.0f;
    }
    throng_nav_field_def d = throng_nav_field_def_default();
    d.cell_size = 2.0f;
    d.size[0] = d.size[1] = 10u;
    d.size[2] = dims == 3 ? 10u : 1u;
    d.goals = &af_nav_goal;
    d.goal_count = 1u;
    d.clearance = 0.3f;
    d.density_interval = 1u;
    d.density_cost = 0.5f;
    return d;
}

#define AF_TRY(expr)                                                \
    do {                                                            \
        throng_status af_st_ = (expr);                              \
        if (af_st_ != THRONG_OK) {                                  \
            runner_fail(__FILE__, __LINE__, "scene: %s: %s", #expr, \
                        throng_status_string(af_st_));              \
            throng_world_destroy(w);                                \
            return NULL;                                            \
        }                                                           \
    } while (0)

static throng_world *af_build(const af_scene *s) {
    throng_world_def d = af_world_def(s);
    throng_world *w = NULL;
    AF_TRY(throng_world_create(&d, &w));
    for (uint32_t g = 1; g <= s->groups; g++) {
        char name[16];
        snprintf(name, sizeof name, "g%u", g);
        throng_group_def gd = throng_group_def_default();
        gd.name = name;
        gd.flocking.separation_weight = 1.0f;
        gd.flocking.alignment_weight = 0.5f;
        gd.flocking.cohesion_weight = 0.25f;
        gd.wander.weight = 0.5f;
        throng_group id = THRONG_NULL_GROUP;
        AF_TRY(throng_group_create(w, &gd, &id));
    }
    if (s->list) {
        throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_SEEK);
        AF_TRY(throng_group_add_behaviour(w, default_group(w), &b, NULL));
    }
    throng_agent first = THRONG_NULL_AGENT, third = THRONG_NULL_AGENT;
    for (uint32_t i = 0; i < s->agents; i++) {
        throng_agent h;
        uint64_t key = i < s->keyed ? AF_KEY0 + i : 0u;
        AF_TRY(af_add_agent(
            w, s->dims, i,
            first_group(w, s->groups ? i % (s->groups + 1u) : 0u), key, &h));
        if (i == 0)
            first = h;
        if (i == 2)
            third = h;
    }
    if (s->target && s->agents > 0) {
        const float t[3] = { 10.0f, 10.0f, 10.0f };
        AF_TRY(throng_agent_set_target_point(w, first, t));
    }
    for (uint32_t i = 0; i < s->spheres; i++)
        AF_TRY(af_add_sphere(w, i));
    throng_object doomed = THRONG_NULL_OBJECT;
    if (s->every_kind) {
        const float lo[3] = { 4.0f, 12.0f, 4.0f },
                    hi[3] = { 6.0f, 14.0f, 6.0f };
        const float p[3] = { 0.5f, 0.5f, 0.5f }, n[3] = { 1.0f, 0.0f, 0.0f };
        throng_object box, plane, path, flow, nav;
        AF_TRY(add_box(w, lo, hi, &box));
        AF_TRY(add_plane(w, p, n, &plane));
        if (s->dims == 2) {
            const float a[3] = { 1.0f, 19.0f, 0.0f },
                        b[3] = { 19.0f, 19.0f, 0.0f };
            throng_object seg;
            AF_TRY(add_segment(w, a, b, &seg));
        }
        AF_TRY(add_path(w, af_path_points, 4, 1.0f, true, &path));
        throng_flow_field_def fd = af_flow_def();
        AF_TRY(throng_flow_field_add(w, &fd, &flow));
        throng_nav_field_def nd = af_nav_def(s->dims);
        AF_TRY(throng_nav_field_add(w, &nd, &nav));
        AF_TRY(af_add_sphere(w, 777u));
        doomed = box;
        /* Behaviours that read every kind, in the first named group (or
         * the default one). */
        throng_group g = first_group(w, s->groups ? 1u : 0u);
        throng_behaviour b =
            throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_PATH);
        b.u.path.path = path;
        AF_TRY(throng_group_add_behaviour(w, g, &b, NULL));
        b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_FLOW);
        b.u.flow.field = flow;
        AF_TRY(throng_group_add_behaviour(w, g, &b, NULL));
        b = throng_behaviour_default(THRONG_BEHAVIOUR_AVOID_OBSTACLES);
        AF_TRY(throng_group_add_behaviour(w, g, &b, NULL));
        b = throng_behaviour_default(THRONG_BEHAVIOUR_CONTAIN);
        AF_TRY(throng_group_add_behaviour(w, g, &b, NULL));
        b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_NAV);
        b.u.nav.field = nav;
        b.u.nav.jam_density = 5.4f;
        AF_TRY(throng_group_add_behaviour(w, g, &b, NULL));
    }
    if (s->removed) {
        if (s->agents > 2)
            AF_TRY(throng_agent_remove(w, third));
        if (doomed.id)
            AF_TRY(throng_object_remove(w, doomed));
    }
    for (uint32_t k = 0; k < s->steps; k++)
        AF_TRY(throng_world_step(w, AF_DT));
    for (uint32_t i = 0; i < s->agents_after; i++) {
        throng_agent h;
        AF_TRY(
            af_add_agent(w, s->dims, s->agents + i, THRONG_NULL_GROUP, 0u, &h));
    }
    if (s->threads_after)
        AF_TRY(throng_world_set_threads(w, s->threads_after));
    if (s->objects_after) {
        const float lo[3] = { 14.0f, 4.0f, 4.0f },
                    hi[3] = { 15.0f, 6.0f, 6.0f };
        throng_object box;
        AF_TRY(add_box(w, lo, hi, &box));
    }
    return w;
}

/* ------------------------------------------------------------------------ */
/* The world's observable state                                             */
/* ------------------------------------------------------------------------ */

static uint64_t af_mix(uint64_t h, uint64_t word) {
    h ^= word + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 31);
}

static uint64_t af_mix_bytes(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = af_mix(h, b[i]);
    return h;
}

/* Everything a failed call must leave as it was: the state hash, the
 * counts, the groups with their names and lists, the objects, and a key
 * table that agrees with the agents' keys. */
static uint64_t af_fingerprint(throng_world *w) {
    uint64_t h = throng_world_hash(w);
    uint32_t agents = throng_world_agent_count(w);
    uint32_t objects = throng_world_object_count(w);
    h = af_mix(h, agents);
    h = af_mix(h, objects);
    h = af_mix(h, throng_world_step_count(w));
    uint32_t groups = 0;
    throng_flocking f;
    while (throng_group_get_flocking(w, first_group(w, groups), &f) ==
           THRONG_OK) {
        throng_wander wd;
        memset(&wd, 0, sizeof wd);
        throng_group_get_wander(w, first_group(w, groups), &wd);
        h = af_mix_bytes(h, &f, sizeof f);
        h = af_mix_bytes(h, &wd, sizeof wd);
        uint32_t n = 0;
        if (throng_group_behaviour_count(w, first_group(w, groups), &n) !=
            THRONG_OK)
            n = UINT32_MAX;
        h = af_mix(h, n);
        for (uint32_t b = 0; b < n && b < THRONG_MAX_BEHAVIOURS; b++) {
            throng_behaviour be;
            memset(&be, 0, sizeof be);
            throng_group_get_behaviour(w, first_group(w, groups), b, &be);
            h = af_mix_bytes(h, &be, sizeof be);
        }
        groups++;
    }
    h = af_mix(h, groups);
    for (uint32_t g = 0; g <= groups + 1u; g++) {
        char name[16];
        snprintf(name, sizeof name, "g%u", g);
        throng_group id = THRONG_NULL_GROUP;
        if (throng_group_find(w, name, &id) != THRONG_OK)
            id.id = UINT32_MAX;
        h = af_mix(h, id.id);
        h = af_mix(h, id.generation);
    }
    for (uint32_t i = 0; i < objects; i++) {
        throng_object o = THRONG_NULL_OBJECT;
        throng_object_info info;
        memset(&info, 0, sizeof info);
        throng_world_object_at(w, i, &o);
        throng_object_get(w, o, &info);
        h = af_mix(h, ((uint64_t)o.id << 32) | o.generation);
        h = af_mix(h, (uint64_t)info.kind);
    }
    for (uint32_t i = 0; i < agents; i++) {
        throng_agent a = THRONG_NULL_AGENT, found = THRONG_NULL_AGENT;
        uint64_t key = 0;
        throng_agent_at(w, i, &a);
        throng_agent_get_host_key(w, a, &key);
        if (key != 0 && (throng_agent_find(w, key, &found) != THRONG_OK ||
                         !test_handle_eq(found, a)))
            h = af_mix(h, 0xBADu);
    }
    for (uint32_t k = 0; k < AF_KEY_PROBES; k++) {
        throng_agent found = THRONG_NULL_AGENT;
        int hit = throng_agent_find(w, AF_KEY0 + k, &found) == THRONG_OK;
        h = af_mix(h, hit ? found.slot : 0u);
    }
    return h;
}

/* Steps a few times, checks the state is finite, destroys the world and
 * checks nothing is left. */
static void af_finish(throng_world *w, int line) {
    for (int s = 0; s < 3; s++) {
        throng_status st = throng_world_step(w, AF_DT);
        if (st != THRONG_OK)
            runner_fail(__FILE__, line, "step after the call: %s (%s)",
                        throng_status_string(st), throng_world_last_error(w));
    }
    throng_columns c;
    if (throng_world_columns(w, &c) == THRONG_OK) {
        const float *cols[6] = { c.px, c.py, c.pz, c.vx, c.vy, c.vz };
        uint32_t bad = 0;
        for (int k = 0; k < 6; k++)
            for (uint32_t i = 0; cols[k] && i < c.count; i++)
                bad += !isfinite(cols[k][i]);
        if (bad)
            runner_fail(__FILE__, line, "%u values not finite after steps",
                        bad);
    }
    throng_world_destroy(w);
    if (af_heap_state.blocks != 0) {
        runner_fail(__FILE__, line, "%u blocks leaked", af_heap_state.blocks);
        ts_heap_release(&af_heap_state);
    }
}

/* ------------------------------------------------------------------------ */
/* The driver                                                               */
/* ------------------------------------------------------------------------ */

struct af_case;
/* Runs the operation on *world (a prepared world, or NULL when the
 * operation creates one) and writes what it produced to *result. */
typedef throng_status (*af_op_fn)(throng_world **world, const struct af_case *c,
                                  uint64_t *result);

typedef struct af_case {
    const char *op; /* the public function, for the report */
    af_scene scene;
    int creates; /* the operation makes the world (create, load) */
    af_op_fn run;
    uint64_t param; /* the operation's own argument */
} af_case;

/* A world pointer no call may leave behind: a failed create must write
 * NULL over it. */
static throng_world *const af_not_null = (throng_world *)&af_heap_state;

static throng_world *af_prepare(const af_case *c) {
    ts_heap_count(&af_heap_state);
    return c->creates ? NULL : af_build(&c->scene);
}

/* Counts the operation's allocations from its prepared state; 0 and a
 * recorded failure when it does not succeed. */
static uint64_t af_count(const af_case *c, uint64_t *result, int line) {
    throng_world *w = af_prepare(c);
    if (!c->creates && !w)
        return 0;
    if (c->creates)
        w = af_not_null;
    ts_heap_count(&af_heap_state);
    throng_status st = c->run(&w, c, result);
    uint64_t n = af_heap_state.allocs;
    if (st != THRONG_OK) {
        runner_fail(__FILE__, line, "%s without failures: %s", c->op,
                    throng_status_string(st));
        if (!c->creates)
            throng_world_destroy(w);
        return 0;
    }
    af_finish(w, line);
    return n;
}

/* One run with the k-th allocation refused (and with `rest`, all after). */
static void af_inject(const af_case *c, uint64_t k, int rest,
                      uint64_t want_result, af_report_row *row, int line) {
    throng_world *w = af_prepare(c);
    if (!c->creates && !w)
        return;
    uint64_t before = 0;
    if (c->creates)
        w = af_not_null;
    else
        before = af_fingerprint(w);
    uint32_t live_before = af_heap_state.blocks;

    ts_heap_arm(&af_heap_state, k, rest);
    uint64_t result = 0;
    throng_status st = c->run(&w, c, &result);
    uint64_t injected = af_heap_state.injected;
    ts_heap_count(&af_heap_state);
    row->runs++;
    row->injected += injected;

    if (injected == 0)
        runner_fail(__FILE__, line, "%s: allocation %llu was never asked for",
                    c->op, (unsigned long long)k);
    if (st != THRONG_OK && st != THRONG_ERR_OUT_OF_MEMORY)
        runner_fail(__FILE__, line, "%s, allocation %llu%s refused: got %s",
                    c->op, (unsigned long long)k, rest ? " and on" : "",
                    throng_status_string(st));
    if (st == THRONG_OK)
        runner_fail(__FILE__, line,
                    "%s, allocation %llu%s refused: succeeded anyway", c->op,
                    (unsigned long long)k, rest ? " and on" : "");
    if (c->creates) {
        if (st == THRONG_OK && w && w != af_not_null) {
            af_finish(w, line);
            return;
        }
        if (w != NULL)
            runner_fail(__FILE__, line, "%s failed but left *out non-NULL",
                        c->op);
        if (af_heap_state.blocks != live_before) {
            runner_fail(__FILE__, line,
                        "%s, allocation %llu%s refused: %u blocks leaked",
                        c->op, (unsigned long long)k, rest ? " and on" : "",
                        af_heap_state.blocks - live_before);
            ts_heap_release(&af_heap_state);
        }
        w = af_not_null;
    } else {
        if (st != THRONG_OK && af_fingerprint(w) != before)
            runner_fail(__FILE__, line,
                        "%s, allocation %llu%s refused: the world changed",
                        c->op, (unsigned long long)k, rest ? " and on" : "");
        if (st != THRONG_OK && throng_world_last_error(w)[0] == '\0')
            runner_fail(__FILE__, line, "%s failed without a reason", c->op);
        if (st == THRONG_OK) {
            af_finish(w, line);
            return;
        }
    }

    /* Memory again: the same call succeeds, with the same result. */
    result = 0;
    st = c->run(&w, c, &result);
    if (st != THRONG_OK) {
        runner_fail(__FILE__, line, "%s after a refusal at %llu: %s", c->op,
                    (unsigned long long)k, throng_status_string(st));
        if (!c->creates)
            throng_world_destroy(w);
        return;
    }
    if (result != want_result)
        runner_fail(__FILE__, line,
                    "%s after a refusal at %llu: result %#llx, want %#llx",
                    c->op, (unsigned long long)k, (unsigned long long)result,
                    (unsigned long long)want_result);
    af_finish(w, line);
}

/* The whole protocol for one case; returns the allocations counted. */
static uint64_t af_run_case(const af_case *c, int line) {
    af_report_row *row = af_report_for(c->op);
    uint64_t want = 0;
    uint64_t n = af_count(c, &want, line);
    if (n == 0)
        runner_fail(__FILE__, line, "%s allocates nothing here", c->op);
    row->cases++;
    row->allocations += n;
    for (int rest = 0; rest < 2; rest++)
        for (uint64_t k = 0; k < n; k++)
            af_inject(c, k, rest, want, row, line);
    if (af_heap_state.violations)
        runner_fail(__FILE__, line, "%s: %llu allocator misuses, first: %s",
                    c->op, (unsigned long long)af_heap_state.violations,
                    af_heap_state.first_violation);
    af_heap_state.violations = 0;
    return n;
}

#define AF_RUN(c) af_run_case((c), __LINE__)

/* Runs the operation after each of 0 .. max agents, groups or keys (what
 * `grow` sets in the scene) and injects into the runs whose allocations
 * exceed the fewest seen: the ones that grow a table. */
static void af_sweep(af_case c, void (*grow)(af_scene *, uint32_t),
                     uint32_t max, uint32_t *grown, int line) {
    uint64_t *counts = calloc((size_t)max + 1u, sizeof *counts);
    if (!counts) {
        runner_fail(__FILE__, line, "no memory for the sweep");
        return;
    }
    uint64_t fewest = UINT64_MAX;
    for (uint32_t n = 0; n <= max; n++) {
        af_case at = c;
        grow(&at.scene, n);
        uint64_t unused = 0;
        counts[n] = af_count(&at, &unused, line);
        fewest = counts[n] < fewest ? counts[n] : fewest;
    }
    *grown = 0;
    for (uint32_t n = 0; n <= max; n++) {
        if (counts[n] == fewest && n != 0)
            continue;
        af_case at = c;
        grow(&at.scene, n);
        af_run_case(&at, line);
        *grown += n != 0;
    }
    free(counts);
}

/* ------------------------------------------------------------------------ */
/* Operations                                                               */
/* ------------------------------------------------------------------------ */

static uint64_t af_handle_bits(throng_agent h) {
    /* Without the world's id, which differs per world. */
    return ((uint64_t)h.slot << 32) | h.generation;
}

static throng_status af_op_create(throng_world **w, const af_case *c,
                                  uint64_t *result) {
    throng_world_def d = af_world_def(&c->scene);
    throng_status st = throng_world_create(&d, w);
    if (st == THRONG_OK)
        *result = throng_world_hash(*w);
    return st;
}

/* Adds agent number `param` (past the scene's), keyed when param says. */
static throng_status af_op_add(throng_world **w, const af_case *c,
                               uint64_t *result) {
    throng_agent h = THRONG_NULL_AGENT;
    uint32_t index = c->scene.agents + c->scene.agents_after;
    uint64_t key = c->param ? AF_KEY0 + index : 0u;
    throng_status st =
        af_add_agent(*w, c->scene.dims, index, THRONG_NULL_GROUP, key, &h);
    *result = af_handle_bits(h);
    return st;
}

/* throng_agents_import of copies of the first param agents (at most 16),
 * under new keys after the scene's: the key entries, the columns and the
 * slots of a batch, and their rollback. */
static throng_status af_op_import_batch(throng_world **w, const af_case *c,
                                        uint64_t *result) {
    throng_agent_state st[16];
    throng_agent out[16];
    uint32_t n = (uint32_t)c->param;
    if (n > 16u)
        n = 16u;
    if (n > throng_world_agent_count(*w))
        n = throng_world_agent_count(*w);
    const uint32_t base = c->scene.agents + c->scene.agents_after;
    for (uint32_t i = 0; i < n; i++) {
        throng_agent h = THRONG_NULL_AGENT;
        throng_agent_at(*w, i, &h);
        throng_agent_export(*w, h, &st[i]);
        st[i].host_key = AF_KEY0 + base + i;
        st[i].target_key = 0;
    }
    throng_status r = throng_agents_import(*w, n, st, out);
    *result = r == THRONG_OK && n ? af_handle_bits(out[n - 1u]) : 0u;
    return r;
}

/* throng_agents_remove of the first three agents: its scratch. */
static throng_status af_op_remove_batch(throng_world **w, const af_case *c,
                                        uint64_t *result) {
    (void)c;
    throng_agent h[3];
    for (uint32_t i = 0; i < 3u; i++)
        throng_agent_at(*w, i, &h[i]);
    *result = throng_world_agent_count(*w);
    return throng_agents_remove(*w, 3u, h);
}

static throng_status af_op_set_target(throng_world **w, const af_case *c,
                                      uint64_t *result) {
    (void)c;
    throng_agent h = THRONG_NULL_AGENT;
    throng_agent_at(*w, 0, &h);
    const float t[3] = { 3.0f, 4.0f, 5.0f };
    *result = af_handle_bits(h);
    return throng_agent_set_target_point(*w, h, t);
}

/* The key AF_KEY0 + param on the last agent (replacing any key it has);
 * param 0: the key after the scene's, so a sweep inserts new keys in
 * the order keyed adds do. */
static throng_status af_op_set_key(throng_world **w, const af_case *c,
                                   uint64_t *result) {
    throng_agent h = THRONG_NULL_AGENT;
    uint32_t last = throng_world_agent_count(*w) - 1u;
    throng_agent_at(*w, last, &h);
    *result = af_handle_bits(h);
    uint64_t key = AF_KEY0 + (c->param ? c->param : last);
    return throng_agent_set_host_key(*w, h, key);
}

/* The group after the scene's, named in their sequence, or unnamed when
 * param is 0. */
static throng_status af_op_group(throng_world **w, const af_case *c,
                                 uint64_t *result) {
    char name[16];
    snprintf(name, sizeof name, "g%u", c->scene.groups + 1u);
    throng_group_def gd = throng_group_def_default();
    gd.name = c->param ? name : NULL;
    gd.flocking.separation_weight = 1.0f;
    throng_group id = THRONG_NULL_GROUP;
    throng_status st = throng_group_create(*w, &gd, &id);
    *result = ((uint64_t)id.generation << 32) | id.id;
    return st;
}

static throng_status af_op_behaviour(throng_world **w, const af_case *c,
                                     uint64_t *result) {
    (void)c;
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_ARRIVE);
    uint32_t index = UINT32_MAX;
    throng_status st =
        throng_group_add_behaviour(*w, default_group(*w), &b, &index);
    *result = index;
    return st;
}

enum {
    AF_SPHERE,
    AF_BOX_OBJ,
    AF_SEGMENT,
    AF_PLANE,
    AF_PATH,
    AF_FLOW,
    AF_NAV
};

static throng_status af_op_object(throng_world **w, const af_case *c,
                                  uint64_t *result) {
    throng_object o = THRONG_NULL_OBJECT;
    throng_status st = THRONG_ERR_OUT_OF_RANGE;
    const float a[3] = { 7.0f, 8.0f, 9.0f }, b[3] = { 9.0f, 9.0f, 10.0f };
    switch (c->param) {
    case AF_SPHERE:
        st = add_sphere(*w, a, 1.5f, &o);
        break;
    case AF_BOX_OBJ:
        st = add_box(*w, a, b, &o);
        break;
    case AF_SEGMENT:
        st = add_segment(*w, a, b, &o);
        break;
    case AF_PLANE:
        st = add_plane(*w, a, b, &o);
        break;
    case AF_PATH:
        st = add_path(*w, af_path_points, 4, 0.5f, false, &o);
        break;
    case AF_FLOW: {
        throng_flow_field_def fd = af_flow_def();
        st = throng_flow_field_add(*w, &fd, &o);
        break;
    }
    case AF_NAV: {
        throng_nav_field_def nd = af_nav_def(throng_world_dimensions(*w));
        st = throng_nav_field_add(*w, &nd, &o);
        break;
    }
    }
    /* Without the world's id: the retry runs in another world. */
    *result = ((uint64_t)o.id << 32) | o.generation;
    return st;
}

static throng_status af_op_step(throng_world **w, const af_case *c,
                                uint64_t *result) {
    (void)c;
    throng_status st = throng_world_step(*w, AF_DT);
    *result = throng_world_hash(*w);
    return st;
}

static throng_status af_op_query(throng_world **w, const af_case *c,
                                 uint64_t *result) {
    (void)c;
    const float p[3] = { 10.0f, 10.0f, 10.0f };
    throng_agent found[256];
    uint32_t count = 0;
    throng_status st =
        throng_world_query_radius(*w, p, 4.0f, found, 256, &count, NULL);
    /* The order is deterministic for equal worlds; mix it in. */
    uint64_t h = count;
    for (uint32_t i = 0; i < count && i < 256u; i++)
        h = af_mix(h, af_handle_bits(found[i]));
    *result = h;
    return st;
}

/* The snapshot the load cases read, and the file they read it from. */
static uint8_t *af_snapshot;
static size_t af_snapshot_bytes;
static uint64_t af_snapshot_hash;
static char af_snapshot_path[128];

static throng_status af_op_load(throng_world **w, const af_case *c,
                                uint64_t *result) {
    throng_world_load_def d = throng_world_load_def_default();
    d.allocator = af_allocator();
    char why[256];
    d.error = why;
    d.error_capacity = sizeof why;
    throng_status st =
        c->param ? throng_world_load_file(af_snapshot_path, &d, w)
                 : throng_world_load(af_snapshot, af_snapshot_bytes, &d, w);
    if (st == THRONG_ERR_OUT_OF_MEMORY && why[0] == '\0')
        runner_fail(__FILE__, __LINE__, "a refused load gave no reason");
    if (st == THRONG_OK)
        *result = throng_world_hash(*w);
    return st;
}

static char af_save_path[128];

static throng_status af_op_save_file(throng_world **w, const af_case *c,
                                     uint64_t *result) {
    (void)c;
    remove(af_save_path);
    throng_status st = throng_world_save_file(*w, af_save_path);
    int exists = access(af_save_path, F_OK) == 0;
    char tmp[160];
    snprintf(tmp, sizeof tmp, "%s.tmp", af_save_path);
    if (access(tmp, F_OK) == 0)
        runner_fail(__FILE__, __LINE__, "save left %s behind", tmp);
    if (st != THRONG_OK && exists)
        runner_fail(__FILE__, __LINE__, "a failed save wrote the file");
    *result = (uint64_t)exists;
    remove(af_save_path);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                    */
/* ------------------------------------------------------------------------ */

static af_scene af_scene_2d(void) {
    af_scene s;
    memset(&s, 0, sizeof s);
    s.dims = 2;
    return s;
}

static af_scene af_scene_3d_periodic(void) {
    af_scene s = af_scene_2d();
    s.dims = 3;
    s.periodic = 1;
    return s;
}

TEST(alloc_fail_world_create) {
    const int shapes[4][2] = { { 2, 0 }, { 2, 1 }, { 3, 0 }, { 3, 1 } };
    const uint32_t capacities[2] = { 0u, 100u };
    for (int s = 0; s < 4; s++)
        for (int k = 0; k < 2; k++) {
            af_case c = { "throng_world_create", af_scene_2d(), 1, af_op_create,
                          0 };
            c.scene.dims = shapes[s][0];
            c.scene.periodic = shapes[s][1];
            c.scene.initial_capacity = capacities[k];
            AF_RUN(&c);
        }
}

static void af_grow_agents(af_scene *s, uint32_t n) {
    s->agents = n;
}

static void af_grow_keyed(af_scene *s, uint32_t n) {
    s->agents = n;
    s->keyed = n;
}

TEST(alloc_fail_agent_add) {
    /* Every add that grows the columns or slots, in 2D and 3D, periodic
     * and not, with and without behaviour-state columns. */
    af_case c = { "throng_agent_add", af_scene_2d(), 0, af_op_add, 0 };
    uint32_t grown = 0;
    af_sweep(c, af_grow_agents, 140u, &grown, __LINE__);
    CHECK(grown >= 2u); /* at 64 and 128 */
    c.scene = af_scene_3d_periodic();
    c.scene.target = 1;
    af_sweep(c, af_grow_agents, 70u, &grown, __LINE__);
    CHECK(grown >= 1u);

    /* From an initial capacity, which the first growth doubles. */
    c.scene = af_scene_2d();
    c.scene.initial_capacity = 100;
    c.scene.agents = 100;
    AF_RUN(&c);

    /* A behaviour list made before any agent marks the state columns as
     * wanted; the first add then allocates them with the rest. */
    c.scene = af_scene_2d();
    c.scene.list = 1;
    AF_RUN(&c);
    c.scene.dims = 3;
    AF_RUN(&c);

    /* Growth after steps: the grid and the step scratch exist. */
    c.scene = af_scene_2d();
    c.scene.periodic = 1;
    c.scene.agents = 40;
    c.scene.steps = 2;
    c.scene.agents_after = 24;
    AF_RUN(&c);
}

TEST(alloc_fail_agent_add_host_key) {
    /* Keyed adds: the first makes the key table; later ones grow it
     * (uthash doubles its buckets) or the columns. */
    af_case c = { "throng_agent_add", af_scene_2d(), 0, af_op_add, 1 };
    uint32_t grown = 0;
    af_sweep(c, af_grow_keyed, 300u, &grown, __LINE__);
    CHECK(grown >= 4u); /* columns at 64, 128, 256, and the key table */
}

static void af_grow_keyed_one_more(af_scene *s, uint32_t n) {
    s->agents = n + 1u;
    s->keyed = n + 1u;
}

TEST(alloc_fail_agents_import) {
    /* Batches of 16 into keyed worlds that grow: columns, slots and the
     * key table grow inside the batch; a refused key entry undoes the
     * ones entered before it. */
    af_case c = { "throng_agents_import", af_scene_2d(), 0, af_op_import_batch,
                  16 };
    uint32_t grown = 0;
    af_sweep(c, af_grow_keyed_one_more, 140u, &grown, __LINE__);
    CHECK(grown >= 2u);
    c.scene = af_scene_3d_periodic();
    c.scene.target = 1;
    c.scene.agents = 20;
    c.scene.keyed = 20;
    AF_RUN(&c);
}

TEST(alloc_fail_agents_remove) {
    af_case c = { "throng_agents_remove", af_scene_2d(), 0, af_op_remove_batch,
                  0 };
    c.scene.agents = 10;
    c.scene.keyed = 10;
    AF_RUN(&c);
}

static void af_grow_keyed_but_last(af_scene *s, uint32_t n) {
    s->agents = n + 1u;
    s->keyed = n;
}

TEST(alloc_fail_set_host_key) {
    af_case c = { "throng_agent_set_host_key", af_scene_2d(), 0, af_op_set_key,
                  600 };
    /* The first key of the world: the table is made. */
    c.scene.agents = 5;
    AF_RUN(&c);
    /* A key replacing another on an agent: new entry first, then the old
     * one goes. */
    c.scene.keyed = 5;
    AF_RUN(&c);
    /* Keys on every agent but the last, which gets the next: the sweep
     * finds where the table grows. */
    c.param = 0;
    uint32_t grown = 0;
    af_sweep(c, af_grow_keyed_but_last, 300u, &grown, __LINE__);
    CHECK(grown >= 1u);
}

TEST(alloc_fail_set_target) {
    /* The first target point allocates the behaviour-state columns. */
    af_case c = { "throng_agent_set_target_point", af_scene_2d(), 0,
                  af_op_set_target, 0 };
    c.scene.agents = 30;
    AF_RUN(&c);
    c.scene = af_scene_3d_periodic();
    c.scene.agents = 30;
    c.scene.steps = 1;
    AF_RUN(&c);
}

static void af_grow_groups(af_scene *s, uint32_t n) {
    s->groups = n;
}

TEST(alloc_fail_group_create) {
    af_case c = { "throng_group_create", af_scene_2d(), 0, af_op_group, 1 };
    c.scene.agents = 10;
    uint32_t grown = 0;
    /* Named groups: the table of groups doubles at 8, 16, 32, 64, 128,
     * 256, and the names' hash table grows. */
    af_sweep(c, af_grow_groups, 320u, &grown, __LINE__);
    CHECK(grown >= 7u);
    /* Unnamed, growing the table of groups. */
    c.param = 0;
    c.scene.groups = 7;
    AF_RUN(&c);
}

TEST(alloc_fail_group_add_behaviour) {
    /* The first list allocates the behaviour-state columns. */
    af_case c = { "throng_group_add_behaviour", af_scene_2d(), 0,
                  af_op_behaviour, 0 };
    c.scene.agents = 50;
    c.scene.groups = 2;
    AF_RUN(&c);
    c.scene = af_scene_3d_periodic();
    c.scene.agents = 50;
    c.scene.steps = 2;
    AF_RUN(&c);
}

TEST(alloc_fail_geometry) {
    static const char *const names[] = { "throng_obstacle_add (sphere)",
                                         "throng_obstacle_add (box)",
                                         "throng_wall_add (segment)",
                                         "throng_wall_add (plane)",
                                         "throng_path_add",
                                         "throng_flow_field_add",
                                         "throng_nav_field_add" };
    for (uint64_t kind = AF_SPHERE; kind <= AF_NAV; kind++) {
        for (int dims = 2; dims <= 3; dims++) {
            if (kind == AF_SEGMENT && dims == 3)
                continue;
            af_case c = { names[kind], af_scene_2d(), 0, af_op_object, kind };
            c.scene.dims = dims;
            c.scene.agents = 20;
            /* The first object: the object table is made. */
            AF_RUN(&c);
            /* The 17th: the table doubles. */
            c.scene.spheres = 16;
            c.scene.steps = 1;
            AF_RUN(&c);
            /* Into a world with free ids and every kind of object. */
            if (kind >= AF_PATH) {
                c.scene.spheres = 3;
                c.scene.every_kind = 1;
                c.scene.removed = 1;
                AF_RUN(&c);
            }
        }
    }
}

TEST(alloc_fail_world_step) {
    af_case c = { "throng_world_step", af_scene_2d(), 0, af_op_step, 0 };
    /* The first step: counters, the grid's arrays and buckets. */
    const int shapes[4][2] = { { 2, 0 }, { 2, 1 }, { 3, 0 }, { 3, 1 } };
    for (int s = 0; s < 4; s++) {
        c.scene = af_scene_2d();
        c.scene.dims = shapes[s][0];
        c.scene.periodic = shapes[s][1];
        c.scene.groups = 1;
        c.scene.agents = 100;
        AF_RUN(&c);
    }
    /* After the columns grew: the grid's arrays grow too. */
    c.scene = af_scene_2d();
    c.scene.groups = 1;
    c.scene.agents = 60;
    c.scene.steps = 2;
    c.scene.agents_after = 10;
    AF_RUN(&c);
    /* More threads than before: more per-thread counters. */
    c.scene = af_scene_2d();
    c.scene.agents = 30;
    c.scene.steps = 1;
    c.scene.threads_after = 5;
    AF_RUN(&c);
    /* Objects added since the last step: the obstacle grid is rebuilt,
     * first and again. */
    c.scene = af_scene_2d();
    c.scene.agents = 40;
    c.scene.groups = 1;
    c.scene.every_kind = 1;
    AF_RUN(&c);
    c.scene.steps = 2;
    c.scene.objects_after = 1;
    AF_RUN(&c);
    c.scene.dims = 3;
    c.scene.periodic = 1;
    AF_RUN(&c);
}

TEST(alloc_fail_query_radius) {
    /* Before any step the grid does not exist: the query builds it. */
    af_case c = { "throng_world_query_radius", af_scene_2d(), 0, af_op_query,
                  0 };
    c.scene.agents = 80;
    AF_RUN(&c);
    c.scene = af_scene_3d_periodic();
    c.scene.agents = 80;
    AF_RUN(&c);
    /* After growth. */
    c.scene = af_scene_2d();
    c.scene.agents = 50;
    c.scene.steps = 1;
    c.scene.agents_after = 20;
    AF_RUN(&c);
}

/* A world with a bit of everything, saved into af_snapshot. */
static int af_make_snapshot(int dims, int periodic) {
    af_scene s = af_scene_2d();
    s.dims = dims;
    s.periodic = periodic;
    s.groups = 3;
    s.agents = 90;
    s.keyed = 40;
    s.target = 1;
    s.every_kind = 1;
    s.spheres = 4;
    s.removed = 1;
    s.steps = 3;
    ts_heap_count(&af_heap_state);
    throng_world *w = af_build(&s);
    if (!w)
        return 0;
    size_t bytes = 0;
    throng_world_snapshot_size(w, &bytes);
    free(af_snapshot);
    af_snapshot = malloc(bytes);
    int ok = af_snapshot && throng_world_save(w, af_snapshot, bytes,
                                              &af_snapshot_bytes) == THRONG_OK;
    af_snapshot_hash = throng_world_hash(w);
    snprintf(af_snapshot_path, sizeof af_snapshot_path,
             "/tmp/throng-test-alloc-fail-%ld.snap", (long)getpid());
    ok = ok && throng_world_save_file(w, af_snapshot_path) == THRONG_OK;
    throng_world_destroy(w);
    return ok && af_heap_state.blocks == 0;
}

TEST(alloc_fail_world_load) {
    for (int shape = 0; shape < 2; shape++) {
        REQUIRE(af_make_snapshot(shape ? 3 : 2, shape));
        for (uint64_t file = 0; file < 2; file++) {
            af_case c = { file ? "throng_world_load_file" : "throng_world_load",
                          af_scene_2d(), 1, af_op_load, file };
            uint64_t want = 0;
            af_count(&c, &want, __LINE__);
            CHECK_EQ_U64(want, af_snapshot_hash);
            AF_RUN(&c);
        }
        remove(af_snapshot_path);
    }
    free(af_snapshot);
    af_snapshot = NULL;
}

TEST(alloc_fail_world_save_file) {
    snprintf(af_save_path, sizeof af_save_path,
             "/tmp/throng-test-alloc-fail-save-%ld.snap", (long)getpid());
    af_case c = { "throng_world_save_file", af_scene_2d(), 0, af_op_save_file,
                  0 };
    c.scene.agents = 30;
    c.scene.keyed = 10;
    c.scene.every_kind = 1;
    c.scene.steps = 1;
    AF_RUN(&c);
}

/* After warm-up a step allocates nothing: every buffer it needs is kept.
 * In unbounded space the grid numbers the crowd's bounding box of cells,
 * and grows when the crowd spreads past its widest so far; four agents
 * that cannot move fix that box here, so the crowd inside it is in a
 * steady state. */
TEST(alloc_fail_steady_state_step) {
    for (int shape = 0; shape < 3; shape++) {
        af_scene s = af_scene_2d();
        s.dims = shape == 1 ? 3 : 2;
        s.periodic = shape < 2;
        s.groups = 2;
        s.list = 1;
        s.agents = 300;
        s.keyed = 20;
        s.target = 1;
        s.every_kind = 1;
        s.spheres = 5;
        s.steps = 20;
        ts_heap_count(&af_heap_state);
        throng_world *w = af_build(&s);
        REQUIRE(w != NULL);
        for (int corner = 0; corner < 4 && !s.periodic; corner++) {
            throng_agent_def a = throng_agent_def_default();
            a.position[0] = corner & 1 ? AF_BOX + 5.0f : -5.0f;
            a.position[1] = corner & 2 ? AF_BOX + 5.0f : -5.0f;
            a.max_speed = 0.0f;
            throng_agent h;
            CHECK_OK(throng_agent_add(w, &a, &h));
        }
        for (int k = 0; k < 5; k++)
            CHECK_OK(throng_world_step(w, AF_DT));
        ts_heap_count(&af_heap_state);
        for (int k = 0; k < 10; k++)
            CHECK_OK(throng_world_step(w, AF_DT));
        if (af_heap_state.allocs != 0)
            runner_fail(__FILE__, __LINE__,
                        "shape %d: %llu allocations in 10 steady steps", shape,
                        (unsigned long long)af_heap_state.allocs);
        throng_world_destroy(w);
        CHECK_EQ_INT(af_heap_state.blocks, 0);
    }
    CHECK_EQ_INT(af_heap_state.violations, 0);
}

/* A scene that keeps moving: a third of the agents coast outwards for
 * ever (so an unbounded crowd keeps entering new cells, its bounding box
 * of cells outgrows the dense numbering and the grid turns to a hashed
 * table), a third flock with a neighbour cap and wander, a third run a
 * behaviour list (projected-circle wander, obstacle avoidance and, in
 * 2D, wall following) among spheres, a box and walls. */
static throng_world *af_moving_scene(int dims, int periodic, int cells) {
    af_scene sc = af_scene_2d();
    sc.dims = dims;
    sc.periodic = periodic;
    throng_world_def d = af_world_def(&sc);
    if (cells)
        d.cell_size = 0.5f; /* two cells per radius: reach 2 */
    throng_world *w = NULL;
    AF_TRY(throng_world_create(&d, &w));
    throng_group_def gd = throng_group_def_default();
    gd.flocking.separation_weight = 1.0f;
    gd.flocking.alignment_weight = 0.5f;
    gd.flocking.cohesion_weight = 0.25f;
    gd.flocking.max_neighbours = 4;
    gd.wander.weight = 0.5f;
    throng_group capped = THRONG_NULL_GROUP, listed = THRONG_NULL_GROUP;
    AF_TRY(throng_group_create(w, &gd, &capped));
    gd = throng_group_def_default();
    gd.combine = THRONG_COMBINE_PRIORITY;
    gd.flocking.separation_weight = 1.0f;
    AF_TRY(throng_group_create(w, &gd, &listed));
    throng_behaviour b =
        throng_behaviour_default(THRONG_BEHAVIOUR_WANDER_CIRCLE);
    AF_TRY(throng_group_add_behaviour(w, listed, &b, NULL));
    b = throng_behaviour_default(THRONG_BEHAVIOUR_AVOID_OBSTACLES);
    b.priority = 2;
    AF_TRY(throng_group_add_behaviour(w, listed, &b, NULL));
    b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_WALL);
    AF_TRY(throng_group_add_behaviour(w, listed, &b, NULL));
    for (uint32_t i = 0; i < 6; i++)
        AF_TRY(af_add_sphere(w, i));
    const float lo[3] = { 4.0f, 12.0f, 4.0f }, hi[3] = { 6.0f, 14.0f, 6.0f };
    const float pt[3] = { 0.5f, 0.5f, 0.5f }, n[3] = { 1.0f, 0.0f, 0.0f };
    throng_object o;
    AF_TRY(add_box(w, lo, hi, &o));
    AF_TRY(add_plane(w, pt, n, &o));
    if (dims == 2) {
        const float a[3] = { 1.0f, 19.0f, 0.0f }, c[3] = { 19.0f, 19.0f, 0.0f };
        AF_TRY(add_segment(w, a, c, &o));
    }
    for (uint32_t i = 0; i < 60; i++) {
        throng_agent_def a = throng_agent_def_default();
        af_position(i, dims, a.position);
        const throng_group group = i % 3 == 0   ? THRONG_NULL_GROUP
                                   : i % 3 == 1 ? capped
                                                : listed;
        a.group = group;
        a.max_speed = 2.0f;
        for (int k = 0; k < dims; k++)
            a.velocity[k] = (a.position[k] - 0.5f * AF_BOX) * 0.2f;
        throng_agent h;
        AF_TRY(throng_agent_add(w, &a, &h));
    }
    return w;
}

/* After warm-up no step allocates, in every kind of world, over 2,000
 * steps of a crowd that keeps moving and spreading. */
TEST(alloc_fail_moving_scenes_never_allocate) {
    static const char *const kinds[] = { "unbounded", "periodic",
                                         "unbounded, half-radius cells" };
    for (int dims = 2; dims <= 3; dims++)
        for (int kind = 0; kind < 3; kind++) {
            ts_heap_count(&af_heap_state);
            throng_world *w = af_moving_scene(dims, kind == 1, kind == 2);
            REQUIRE(w != NULL);
            for (int k = 0; k < 5; k++)
                CHECK_OK(throng_world_step(w, AF_DT));
            ts_heap_count(&af_heap_state);
            int first = -1;
            for (int k = 0; k < 2000; k++) {
                uint64_t before = af_heap_state.allocs;
                CHECK_OK(throng_world_step(w, AF_DT));
                if (first < 0 && af_heap_state.allocs != before)
                    first = k;
            }
            throng_step_stats st;
            CHECK_OK(throng_world_stats(w, &st));
            if (af_heap_state.allocs != 0)
                runner_fail(__FILE__, __LINE__,
                            "%dD %s: %llu allocations in 2,000 steps after "
                            "warm-up (the first in step %d; %u cells "
                            "occupied at the end)",
                            dims, kinds[kind],
                            (unsigned long long)af_heap_state.allocs, first,
                            st.cells_occupied);
            throng_world_destroy(w);
            CHECK_EQ_INT(af_heap_state.blocks, 0);
        }
    CHECK_EQ_INT(af_heap_state.violations, 0);
}

/* The allocator itself: a refusal is counted, and misuse is caught. */
TEST(alloc_fail_allocator_self_check) {
    ts_heap *h = &af_heap_state;
    ts_heap_count(h);
    uint32_t live = h->blocks;
    void *a = ts_heap_alloc(100, 64, h);
    REQUIRE(a != NULL);
    CHECK((uintptr_t)a % 64u == 0);
    ts_heap_arm(h, 1, 0);
    void *b = ts_heap_alloc(8, 8, h);
    void *refused = ts_heap_alloc(8, 8, h);
    void *c = ts_heap_alloc(8, 8, h);
    CHECK(b != NULL && c != NULL && refused == NULL);
    CHECK_EQ_U64(h->injected, 1);
    ts_heap_arm(h, 0, 1);
    CHECK(ts_heap_alloc(8, 8, h) == NULL && ts_heap_alloc(8, 8, h) == NULL);
    CHECK_EQ_U64(h->injected, 2);
    ts_heap_count(h);
    ts_heap_free(b, 8, h);
    ts_heap_free(c, 8, h);
    ts_heap_free(a, 99, h); /* the wrong size */
    CHECK_EQ_U64(h->violations, 1);
    /* A double free on purpose: af_free finds a is not live and does not
     * free it again. */
    /* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
    ts_heap_free(a, 100, h); /* no longer live */
    CHECK_EQ_U64(h->violations, 2);
    CHECK_EQ_INT(h->blocks, live);
    h->violations = 0;
}

TEST(alloc_fail_summary) {
    uint64_t total = 0;
    for (int i = 0; i < af_report_count; i++) {
        const af_report_row *r = &af_report[i];
        printf("  %-30s %3u cases %5llu allocations %6llu failures injected\n",
               r->op, r->cases, (unsigned long long)r->allocations,
               (unsigned long long)r->injected);
        CHECK(r->injected > 0);
        total += r->injected;
    }
    printf("allocation failures injected: %llu\n", (unsigned long long)total);
    CHECK(af_report_count == 0 || total > 0);
}

void register_alloc_fail_tests(void) {
    REGISTER(alloc_fail_allocator_self_check);
    REGISTER(alloc_fail_world_create);
    REGISTER(alloc_fail_agent_add);
    REGISTER(alloc_fail_agent_add_host_key);
    REGISTER(alloc_fail_agents_import);
    REGISTER(alloc_fail_agents_remove);
    REGISTER(alloc_fail_set_host_key);
    REGISTER(alloc_fail_set_target);
    REGISTER(alloc_fail_group_create);
    REGISTER(alloc_fail_group_add_behaviour);
    REGISTER(alloc_fail_geometry);
    REGISTER(alloc_fail_world_step);
    REGISTER(alloc_fail_query_radius);
    REGISTER(alloc_fail_world_load);
    REGISTER(alloc_fail_world_save_file);
    REGISTER(alloc_fail_steady_state_step);
    REGISTER(alloc_fail_moving_scenes_never_allocate);
    REGISTER(alloc_fail_summary);
}
