/* SPDX-License-Identifier: MIT */
/*
 * Bad input, as a table: every public function fed every kind of bad
 * argument it can receive.
 *
 * Each case names the function it calls, how to call it and the status it
 * must return. It runs on a fresh fixture (a 2D or a 3D world with groups,
 * agents, a removed agent, every kind of object, a removed object and a
 * behaviour list, so every kind of handle exists, plus a second world for
 * cross-world handles) and must:
 *   - return exactly the expected status;
 *   - leave in throng_world_last_error() a sentence that starts with the
 *     function's name ("throng_world_step: dt is not finite"), or, for
 *     loads, the same sentence in the load def's error buffer;
 *   - leave the world as it was: the same state hash, agent, object and
 *     step counts, and the same snapshot bytes (which also cover groups,
 *     behaviour lists, objects and settings).
 *
 * Cases come from four sources: hand-written records; generated float
 * injections (NaN, +Inf and -Inf written at every float field offset of a
 * def, parameter or argument struct, from offsetof tables); value records
 * on the same tables (negative masses, out-of-range enums, overflowing
 * sizes); and generated handle and group-id sweeps (null, removed, forged
 * and foreign handles, unknown group ids, over every function taking one).
 * The total is printed once as "bad input: N cases".
 */
#include <errno.h>
#include <float.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "object_defs.h"
#include "runner.h"

/* ------------------------------------------------------------------------ */
/* The fixture                                                              */
/* ------------------------------------------------------------------------ */

#define FIX_NEIGHBOUR_RADIUS 2.0f
#define FIX_GROUP_COUNT 3u /* default, "walkers", "full" */

typedef struct fixture {
    int dims;
    throng_world *w;
    throng_world *other;     /* alive at the same time, for foreign handles */
    throng_group group;      /* "walkers": a behaviour list of 4 entries */
    throng_group full;       /* holds THRONG_MAX_BEHAVIOURS behaviours */
    throng_group gone_group; /* a removed group: its id is free */
    throng_agent agent, second, removed, foreign;
    throng_object sphere, box, wall, plane, path, flow, gone, foreign_object;
    throng_object foreign_path; /* same id and kind as `path`, other world */
    throng_object nav;          /* a navigation field (this world only) */
    throng_nav_sample nav_sample;
    /* Valid defs of each kind (a 2D segment, a sphere), for the cases
     * that change one thing. */
    throng_obstacle_def obstacle_def;
    throng_wall_def wall_def;
    throng_path_def path_def;
    throng_flow_field_def flow_def;
    throng_group out_group;
    /* Scratch outputs the calls write to. */
    throng_agent out_agent;
    throng_object out_object;
    uint32_t u32;
    uint64_t u64;
    float f;
    float v3[3], up[3], side[3];
    throng_agent agents[4];
    bool truncated;
    size_t bytes;
    char load_error[256];
} fixture;

static int fixture_agent(throng_world *w, float x, float y, throng_group group,
                         uint64_t key, throng_agent *out) {
    throng_agent_def d = throng_agent_def_default();
    d.position[0] = x;
    d.position[1] = y;
    d.position[2] = 0.5f * x;
    d.velocity[0] = 0.3f;
    d.velocity[1] = -0.1f;
    d.velocity[2] = 0.2f;
    d.group = group;
    d.host_key = key;
    return throng_agent_add(w, &d, out) == THRONG_OK;
}

static const float fix_path_points[12] = { 0, 0, 0, 4, 0, 0, 4, 4, 0, 0, 4, 0 };
static const float fix_flow_vectors[24] = {
    1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0
};

static int fixture_objects(throng_world *w, int dims, fixture *f) {
    const float c[3] = { 5, 5, 0 }, lo[3] = { 8, 8, -1 }, hi[3] = { 9, 9, 1 };
    const float a[3] = { -5, -5, 0 }, b[3] = { -5, 5, 0 };
    const float p[3] = { 0, -10, 0 }, n[3] = { 0, 1, 0 };
    throng_flow_field_def fd;
    memset(&fd, 0, sizeof fd);
    fd.cell_size = 1.0f;
    fd.size[0] = fd.size[1] = fd.size[2] = 2u;
    fd.vectors = fix_flow_vectors;
    throng_object scratch = THRONG_NULL_OBJECT;
    throng_object *sphere = f ? &f->sphere : &scratch;
    throng_object *box = f ? &f->box : &scratch;
    throng_object *wall = f ? &f->wall : &scratch;
    throng_object *plane = f ? &f->plane : &scratch;
    throng_object *path = f ? &f->path : &scratch;
    throng_object *flow = f ? &f->flow : &scratch;
    const float n2[3] = { 1, 0, 0 };
    return add_sphere(w, c, 1.0f, sphere) == THRONG_OK &&
           add_box(w, lo, hi, box) == THRONG_OK &&
           (dims == 2 ? add_segment(w, a, b, wall)
                      : add_plane(w, a, n2, wall)) == THRONG_OK &&
           add_plane(w, p, n, plane) == THRONG_OK &&
           add_path(w, fix_path_points, 4u, 1.0f, false, path) == THRONG_OK &&
           throng_flow_field_add(w, &fd, flow) == THRONG_OK;
}

static int fixture_make(fixture *f, int dims) {
    memset(f, 0, sizeof *f);
    f->dims = dims;
    f->obstacle_def = throng_obstacle_def_default();
    f->obstacle_def.center[0] = 7.0f;
    f->wall_def = throng_wall_def_default();
    f->wall_def.a[0] = -7.0f;
    f->wall_def.b[0] = -7.0f;
    f->wall_def.b[1] = 3.0f;
    f->path_def = throng_path_def_default();
    f->path_def.points = fix_path_points;
    f->path_def.point_count = 4u;
    f->flow_def = throng_flow_field_def_default();
    f->flow_def.size[0] = f->flow_def.size[1] = f->flow_def.size[2] = 2u;
    f->flow_def.vectors = fix_flow_vectors;
    throng_world_def wd = throng_world_def_default();
    wd.dimensions = dims;
    wd.neighbour_radius = FIX_NEIGHBOUR_RADIUS;
    wd.seed = 7u;
    if (throng_world_create(&wd, &f->other) != THRONG_OK)
        return 0;
    /* The other world holds more objects than the fixture's, so its last
     * handle names nothing here. */
    throng_agent oa;
    if (!fixture_agent(f->other, 1, 1, THRONG_NULL_GROUP, 0, &f->foreign) ||
        !fixture_agent(f->other, 2, 1, THRONG_NULL_GROUP, 0, &oa) ||
        !fixture_objects(f->other, dims, NULL) ||
        !fixture_objects(f->other, dims, NULL) ||
        throng_world_object_at(f->other, 11u, &f->foreign_object) !=
            THRONG_OK ||
        throng_world_object_at(f->other, 4u, &f->foreign_path) != THRONG_OK)
        return 0;

    if (throng_world_create(&wd, &f->w) != THRONG_OK)
        return 0;
    throng_world *w = f->w;
    throng_group_def gd = throng_group_def_default();
    gd.name = "walkers";
    gd.flocking.separation_weight = 1.0f;
    gd.flocking.cohesion_weight = 0.5f;
    gd.wander.weight = 0.25f;
    gd.combine = THRONG_COMBINE_WEIGHTED_SUM;
    if (throng_group_create(w, &gd, &f->group) != THRONG_OK)
        return 0;
    gd = throng_group_def_default();
    gd.name = "full";
    if (throng_group_create(w, &gd, &f->full) != THRONG_OK)
        return 0;
    /* A removed group: its handle is stale, its id free. */
    gd.name = "gone";
    if (throng_group_create(w, &gd, &f->gone_group) != THRONG_OK ||
        throng_group_remove(w, f->gone_group) != THRONG_OK)
        return 0;
    if (!fixture_objects(w, dims, f) || f->foreign_path.id != f->path.id)
        return 0;
    /* A navigation field over free space: x 12 to 16, y -8 to -4, clear
     * of the objects (and on the allowed side of the planes). */
    throng_nav_goal goal;
    memset(&goal, 0, sizeof goal);
    goal.kind = THRONG_NAV_GOAL_POINT;
    goal.a[0] = 13.5f;
    goal.a[1] = -6.5f;
    goal.a[2] = 0.5f;
    throng_nav_field_def nd = throng_nav_field_def_default();
    nd.origin[0] = 12.0f;
    nd.origin[1] = -8.0f;
    nd.size[0] = nd.size[1] = 4u;
    nd.goals = &goal;
    nd.goal_count = 1u;
    if (throng_nav_field_add(w, &nd, &f->nav) != THRONG_OK)
        return 0;
    /* A removed object, and a removed agent. */
    const float gc[3] = { 20, 20, 0 };
    if (add_sphere(w, gc, 1.0f, &f->gone) != THRONG_OK ||
        throng_object_remove(w, f->gone) != THRONG_OK)
        return 0;
    if (!fixture_agent(w, 0, 0, f->group, 11u, &f->agent) ||
        !fixture_agent(w, 1, 0, f->group, 12u, &f->second) ||
        !fixture_agent(w, 0, 1, THRONG_NULL_GROUP, 0u, &oa) ||
        !fixture_agent(w, 3, 3, f->group, 13u, &f->removed) ||
        throng_agent_remove(w, f->removed) != THRONG_OK ||
        !fixture_agent(w, -2, 1, f->full, 14u, &oa))
        return 0;

    throng_behaviour list[4];
    list[0] = throng_behaviour_default(THRONG_BEHAVIOUR_SEEK);
    list[1] = throng_behaviour_default(THRONG_BEHAVIOUR_PURSUE);
    list[2] = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_PATH);
    list[2].u.path.path = f->path;
    list[3] = throng_behaviour_default(THRONG_BEHAVIOUR_AVOID_OBSTACLES);
    for (int i = 0; i < 4; i++)
        if (throng_group_add_behaviour(w, f->group, &list[i], NULL) !=
            THRONG_OK)
            return 0;
    throng_behaviour seek = throng_behaviour_default(THRONG_BEHAVIOUR_SEEK);
    for (int i = 0; i < THRONG_MAX_BEHAVIOURS; i++)
        if (throng_group_add_behaviour(w, f->full, &seek, NULL) != THRONG_OK)
            return 0;
    const float target[3] = { 3, 2, 1 };
    if (throng_agent_set_target_point(w, f->agent, target) != THRONG_OK ||
        throng_agent_set_target_agent(w, f->agent, f->second) != THRONG_OK ||
        throng_agent_set_progress(w, f->second, 1u) != THRONG_OK ||
        throng_world_step(w, 0.05f) != THRONG_OK)
        return 0;
    return throng_world_last_error(w)[0] == '\0';
}

static void fixture_free(fixture *f) {
    throng_world_destroy(f->w);
    throng_world_destroy(f->other);
    f->w = f->other = NULL;
}

/* Everything a refused call must leave alone. */
typedef struct fingerprint {
    uint64_t hash, steps;
    uint32_t agents, objects;
    size_t bytes;
    unsigned char *snapshot;
} fingerprint;

static fingerprint fingerprint_take(const throng_world *w) {
    fingerprint p;
    memset(&p, 0, sizeof p);
    p.hash = throng_world_hash(w);
    p.steps = throng_world_step_count(w);
    p.agents = throng_world_agent_count(w);
    p.objects = throng_world_object_count(w);
    if (throng_world_snapshot_size(w, &p.bytes) == THRONG_OK && p.bytes) {
        p.snapshot = malloc(p.bytes);
        if (p.snapshot &&
            throng_world_save(w, p.snapshot, p.bytes, NULL) != THRONG_OK) {
            free(p.snapshot);
            p.snapshot = NULL;
        }
    }
    return p;
}

static int fingerprint_equal(const fingerprint *a, const fingerprint *b) {
    return a->hash == b->hash && a->steps == b->steps &&
           a->agents == b->agents && a->objects == b->objects &&
           a->bytes == b->bytes && a->snapshot && b->snapshot &&
           memcmp(a->snapshot, b->snapshot, a->bytes) == 0;
}

/* ------------------------------------------------------------------------ */
/* Case records                                                             */
/* ------------------------------------------------------------------------ */

/* Which worlds a case runs in, and where its sentence is. */
#define IN_2D 1u
#define IN_3D 2u
#define IN_BOTH (IN_2D | IN_3D)
#define NO_WORLD 4u   /* called without a world: nowhere to put a sentence */
#define LOAD_ERROR 8u /* the sentence goes to the load def's buffer */

struct arg_table;

typedef struct bad_case {
    const char *what;
    const char *fn; /* the function called, which the sentence names */
    throng_status want;
    unsigned flags;
    /* Hand-written: the call itself. */
    throng_status (*call)(fixture *f);
    /* Table-driven: an argument struct filled with valid values, one
     * field overwritten, then passed to the table's call. */
    const struct arg_table *table;
    size_t offset;
    int is_int;
    float value;
    int32_t ivalue;
    int variant;
    /* Handle and group sweeps. */
    throng_status (*call_agent)(fixture *f, throng_agent h);
    throng_status (*call_object)(fixture *f, throng_object h);
    throng_status (*call_group)(fixture *f, throng_group group);
    int which; /* the handle or id kind of a sweep */
    /* The handle belongs to another world: the sentence must say so. */
    int foreign;
} bad_case;

/* An argument struct: how to fill it with valid values and how to call
 * the function with it. `variant` picks between calls sharing a table
 * (add or set a behaviour). */
typedef struct arg_table {
    const char *fn;
    const char *fn_variant; /* the function of variant 1, or NULL */
    size_t size;
    int param;
    void (*fill)(const fixture *f, const struct arg_table *t, void *args);
    throng_status (*call)(fixture *f, void *args, int variant);
    unsigned flags;
} arg_table;

/* A float field of an argument struct; axis 2 exists in 3D only. */
typedef struct float_field {
    const char *name;
    size_t offset;
    int axis;
} float_field;

/* ------------------------------------------------------------------------ */
/* Argument tables                                                          */
/* ------------------------------------------------------------------------ */

/* throng_world_create: the def, with the world's dimensions. */
static void fill_world_def(const fixture *f, const arg_table *t, void *args) {
    throng_world_def *d = args;
    *d = throng_world_def_default();
    d->dimensions = f->dims;
    d->neighbour_radius = 1.0f;
    if (t->param)
        d->boundary = THRONG_BOUNDARY_PERIODIC;
}

static throng_status call_world_create(fixture *f, void *args, int variant) {
    (void)f;
    (void)variant;
    throng_world *made = (throng_world *)&made; /* must become NULL */
    throng_status st = throng_world_create(args, &made);
    if (st != THRONG_OK && made != NULL)
        runner_fail(__FILE__, __LINE__,
                    "throng_world_create refused (%d) but left a world", st);
    if (st == THRONG_OK)
        throng_world_destroy(made);
    return st;
}

static void fill_agent_def(const fixture *f, const arg_table *t, void *args) {
    (void)t;
    throng_agent_def *d = args;
    *d = throng_agent_def_default();
    d->position[0] = 6.0f;
    d->velocity[1] = 0.5f;
    d->group = f->group;
    d->host_key = 99u;
}

static throng_status call_agent_add(fixture *f, void *args, int variant) {
    (void)variant;
    f->out_agent = (throng_agent){ 77u, 77u, 77u };
    throng_status st = throng_agent_add(f->w, args, &f->out_agent);
    if (st != THRONG_OK &&
        (f->out_agent.slot != 77u || f->out_agent.generation != 77u))
        runner_fail(__FILE__, __LINE__,
                    "throng_agent_add refused but wrote a handle");
    return st;
}

static void fill_group_def(const fixture *f, const arg_table *t, void *args) {
    (void)f;
    (void)t;
    throng_group_def *d = args;
    *d = throng_group_def_default();
    d->name = "newcomers";
}

static throng_status call_group_create(fixture *f, void *args, int variant) {
    (void)variant;
    return throng_group_create(f->w, args, &f->out_group);
}

/* A behaviour of kind t->param, every object it names live and right. */
static void fill_behaviour(const fixture *f, const arg_table *t, void *args) {
    throng_behaviour *b = args;
    *b = throng_behaviour_default((throng_behaviour_kind)t->param);
    switch (b->kind) {
    case THRONG_BEHAVIOUR_PATROL:
    case THRONG_BEHAVIOUR_FOLLOW_PATH:
        b->u.path.path = f->path;
        break;
    case THRONG_BEHAVIOUR_FOLLOW_FLOW:
        b->u.flow.field = f->flow;
        break;
    case THRONG_BEHAVIOUR_FOLLOW_NAV:
        b->u.nav.field = f->nav;
        break;
    case THRONG_BEHAVIOUR_CONTAIN:
        b->u.contain.use_box = true;
        for (int k = 0; k < 3; k++) {
            b->u.contain.box_min[k] = -10.0f;
            b->u.contain.box_max[k] = 10.0f;
        }
        break;
    case THRONG_BEHAVIOUR_SEEK:
    case THRONG_BEHAVIOUR_FLEE:
    case THRONG_BEHAVIOUR_ARRIVE:
        b->u.seek.source = THRONG_TARGET_FIXED_POINT;
        b->u.seek.point[0] = 1.0f;
        break;
    default:
        break;
    }
}

/* Variant 0 appends to the group's list, variant 1 replaces entry 0. */
static throng_status call_behaviour(fixture *f, void *args, int variant) {
    if (variant == 1)
        return throng_group_set_behaviour(f->w, f->group, 0u, args);
    uint32_t index = 777u;
    throng_status st = throng_group_add_behaviour(f->w, f->group, args, &index);
    if (st != THRONG_OK && index != 777u)
        runner_fail(__FILE__, __LINE__,
                    "throng_group_add_behaviour refused but wrote an index");
    return st;
}

typedef struct sphere_args {
    float center[3];
    float radius;
} sphere_args;

static void fill_sphere(const fixture *f, const arg_table *t, void *args) {
    (void)f;
    (void)t;
    *(sphere_args *)args = (sphere_args){ { 1, 2, 3 }, 0.5f };
}

static throng_status call_sphere(fixture *f, void *args, int variant) {
    (void)variant;
    sphere_args *a = args;
    return add_sphere(f->w, a->center, a->radius, &f->out_object);
}

/* Box, segment and plane: two points. */
typedef struct two_points {
    float a[3];
    float b[3];
} two_points;

static void fill_box(const fixture *f, const arg_table *t, void *args) {
    (void)f;
    (void)t;
    *(two_points *)args = (two_points){ { -1, -1, -1 }, { 1, 1, 1 } };
}

static throng_status call_box(fixture *f, void *args, int variant) {
    (void)variant;
    two_points *a = args;
    return add_box(f->w, a->a, a->b, &f->out_object);
}

static void fill_segment(const fixture *f, const arg_table *t, void *args) {
    (void)f;
    (void)t;
    *(two_points *)args = (two_points){ { 0, 0, 0 }, { 1, 0, 0 } };
}

static throng_status call_segment(fixture *f, void *args, int variant) {
    (void)variant;
    two_points *a = args;
    return add_segment(f->w, a->a, a->b, &f->out_object);
}

static void fill_plane(const fixture *f, const arg_table *t, void *args) {
    (void)f;
    (void)t;
    *(two_points *)args = (two_points){ { 0, 0, 0 }, { 1, 0, 0 } };
}

static throng_status call_plane(fixture *f, void *args, int variant) {
    (void)variant;
    two_points *a = args;
    return add_plane(f->w, a->a, a->b, &f->out_object);
}

typedef struct path_args {
    float points[12];
    uint32_t count;
    float radius;
} path_args;

static void fill_path(const fixture *f, const arg_table *t, void *args) {
    (void)f;
    (void)t;
    path_args *a = args;
    memcpy(a->points, fix_path_points, sizeof a->points);
    a->count = 4u;
    a->radius = 1.0f;
}

static throng_status call_path(fixture *f, void *args, int variant) {
    path_args *a = args;
    return add_path(f->w, a->points, a->count, a->radius, variant == 1,
                    &f->out_object);
}

typedef struct flow_args {
    throng_flow_field_def def;
    float vectors[24];
} flow_args;

static void fill_flow(const fixture *f, const arg_table *t, void *args) {
    (void)f;
    (void)t;
    flow_args *a = args;
    memset(&a->def, 0, sizeof a->def);
    a->def.origin[0] = -1.0f;
    a->def.cell_size = 0.5f;
    a->def.size[0] = a->def.size[1] = a->def.size[2] = 2u;
    memcpy(a->vectors, fix_flow_vectors, sizeof a->vectors);
}

static throng_status call_flow(fixture *f, void *args, int variant) {
    (void)variant;
    flow_args *a = args;
    a->def.vectors = a->vectors;
    return throng_flow_field_add(f->w, &a->def, &f->out_object);
}

/* A navigation field of 4 x 4 cells over free space (as the fixture's),
 * with a point and a segment goal, per-cell costs and a region. */
typedef struct nav_args {
    throng_nav_field_def def;
    throng_nav_goal goals[2];
    throng_nav_region region;
    float costs[16];
} nav_args;

static void fill_nav(const fixture *f, const arg_table *t, void *args) {
    (void)f;
    (void)t;
    nav_args *a = args;
    memset(a, 0, sizeof *a);
    a->def = throng_nav_field_def_default();
    a->def.origin[0] = 12.0f;
    a->def.origin[1] = -8.0f;
    a->def.size[0] = a->def.size[1] = 4u;
    a->def.clearance = 0.1f;
    a->def.density_interval = 2u;
    a->def.density_cost = 0.5f;
    a->def.goal_count = 2u;
    a->def.region_count = 1u;
    a->goals[0].kind = THRONG_NAV_GOAL_POINT;
    a->goals[0].a[0] = 13.5f;
    a->goals[0].a[1] = -6.5f;
    a->goals[0].a[2] = 0.5f;
    a->goals[1].kind = THRONG_NAV_GOAL_SEGMENT;
    a->goals[1].a[0] = 12.5f;
    a->goals[1].b[0] = 15.5f;
    a->goals[1].a[1] = a->goals[1].b[1] = -7.5f;
    a->goals[1].a[2] = a->goals[1].b[2] = 0.5f;
    a->region.min[0] = 12.0f;
    a->region.min[1] = -8.0f;
    a->region.max[0] = 13.0f;
    a->region.max[1] = -7.0f;
    a->region.max[2] = 1.0f;
    a->region.cost = 2.0f;
    for (int c = 0; c < 16; c++)
        a->costs[c] = 1.0f + 0.25f * (float)(c % 3);
}

static throng_status call_nav(fixture *f, void *args, int variant) {
    (void)variant;
    nav_args *a = args;
    a->def.goals = a->goals;
    a->def.regions = &a->region;
    a->def.costs = a->costs;
    return throng_nav_field_add(f->w, &a->def, &f->out_object);
}

/* Vector setters of an agent: variant 0 position, 1 velocity, 2 target
 * point; and the query's point. */
typedef struct vec_args {
    float v[3];
    float radius;
} vec_args;

static void fill_vec(const fixture *f, const arg_table *t, void *args) {
    (void)f;
    (void)t;
    *(vec_args *)args = (vec_args){ { 0.5f, 0.25f, 0.125f }, 1.0f };
}

static throng_status call_vec(fixture *f, void *args, int variant) {
    vec_args *a = args;
    switch (variant) {
    case 0:
        return throng_agent_set_position(f->w, f->agent, a->v);
    case 1:
        return throng_agent_set_velocity(f->w, f->agent, a->v);
    default:
        return throng_agent_set_target_point(f->w, f->agent, a->v);
    }
}

static throng_status call_query(fixture *f, void *args, int variant) {
    (void)variant;
    vec_args *a = args;
    f->u32 = 777u;
    throng_status st = throng_world_query_radius(
        f->w, a->v, a->radius, f->agents, 4u, &f->u32, &f->truncated);
    if (st != THRONG_OK && f->u32 != 777u)
        runner_fail(__FILE__, __LINE__,
                    "throng_world_query_radius refused but wrote a count");
    return st;
}

/* One float argument: the agent's scalar setters (variant 0..3), the
 * step's dt (param 1). */
typedef struct one_float {
    float x;
} one_float;

static void fill_one_float(const fixture *f, const arg_table *t, void *args) {
    (void)f;
    (void)t;
    ((one_float *)args)->x = 0.05f;
}

static throng_status call_scalar_setter(fixture *f, void *args, int variant) {
    float x = ((one_float *)args)->x;
    switch (variant) {
    case 0:
        return throng_agent_set_mass(f->w, f->agent, x);
    case 1:
        return throng_agent_set_max_force(f->w, f->agent, x);
    case 2:
        return throng_agent_set_max_speed(f->w, f->agent, x);
    default:
        return throng_agent_set_radius(f->w, f->agent, x);
    }
}

static throng_status call_step(fixture *f, void *args, int variant) {
    (void)variant;
    return throng_world_step(f->w, ((one_float *)args)->x);
}

/* One integer argument: set_threads, set_combine, agent_set_group. */
typedef struct one_int {
    int32_t i;
} one_int;

static void fill_one_int(const fixture *f, const arg_table *t, void *args) {
    (void)f;
    (void)t;
    ((one_int *)args)->i = 1;
}

static throng_status call_threads(fixture *f, void *args, int variant) {
    (void)variant;
    return throng_world_set_threads(f->w, ((one_int *)args)->i);
}

/* throng_world_set_step_limits: the tick's length and count. */
typedef struct step_limits {
    float max_dt;
    uint32_t max_substeps;
} step_limits;

static void fill_step_limits(const fixture *f, const arg_table *t, void *args) {
    (void)f;
    (void)t;
    ((step_limits *)args)->max_dt = 0.05f;
    ((step_limits *)args)->max_substeps = 4;
}

static throng_status call_step_limits(fixture *f, void *args, int variant) {
    (void)variant;
    const step_limits *l = args;
    return throng_world_set_step_limits(f->w, l->max_dt, l->max_substeps);
}

static throng_status call_combine(fixture *f, void *args, int variant) {
    (void)variant;
    return throng_group_set_combine(f->w, f->group,
                                    (throng_combine_mode)((one_int *)args)->i);
}

#define TABLE(id, fn, fn1, type, param, fill, call, flags)         \
    static const arg_table id = { fn,   fn1,  sizeof(type), param, \
                                  fill, call, flags }

TABLE(T_WORLD, "throng_world_create", NULL, throng_world_def, 0, fill_world_def,
      call_world_create, NO_WORLD);
TABLE(T_WORLD_PERIODIC, "throng_world_create", NULL, throng_world_def, 1,
      fill_world_def, call_world_create, NO_WORLD);
TABLE(T_AGENT, "throng_agent_add", NULL, throng_agent_def, 0, fill_agent_def,
      call_agent_add, 0);
TABLE(T_GROUP, "throng_group_create", NULL, throng_group_def, 0, fill_group_def,
      call_group_create, 0);
TABLE(T_SPHERE, "throng_obstacle_add", NULL, sphere_args, 0, fill_sphere,
      call_sphere, 0);
TABLE(T_BOX, "throng_obstacle_add", NULL, two_points, 0, fill_box, call_box, 0);
TABLE(T_SEGMENT, "throng_wall_add", NULL, two_points, 0, fill_segment,
      call_segment, IN_2D);
TABLE(T_PLANE, "throng_wall_add", NULL, two_points, 0, fill_plane, call_plane,
      0);
TABLE(T_PATH, "throng_path_add", "throng_path_add", path_args, 0, fill_path,
      call_path, 0);
TABLE(T_FLOW, "throng_flow_field_add", NULL, flow_args, 0, fill_flow, call_flow,
      0);
TABLE(T_NAV, "throng_nav_field_add", NULL, nav_args, 0, fill_nav, call_nav, 0);
TABLE(T_POSITION, "throng_agent_set_position", NULL, vec_args, 0, fill_vec,
      call_vec, 0);
TABLE(T_VELOCITY, "throng_agent_set_velocity", NULL, vec_args, 0, fill_vec,
      call_vec, 0);
TABLE(T_TARGET_POINT, "throng_agent_set_target_point", NULL, vec_args, 0,
      fill_vec, call_vec, 0);
TABLE(T_QUERY, "throng_world_query_radius", NULL, vec_args, 0, fill_vec,
      call_query, 0);
TABLE(T_MASS, "throng_agent_set_mass", NULL, one_float, 0, fill_one_float,
      call_scalar_setter, 0);
TABLE(T_MAX_FORCE, "throng_agent_set_max_force", NULL, one_float, 0,
      fill_one_float, call_scalar_setter, 0);
TABLE(T_MAX_SPEED, "throng_agent_set_max_speed", NULL, one_float, 0,
      fill_one_float, call_scalar_setter, 0);
TABLE(T_RADIUS, "throng_agent_set_radius", NULL, one_float, 0, fill_one_float,
      call_scalar_setter, 0);
TABLE(T_STEP, "throng_world_step", NULL, one_float, 0, fill_one_float,
      call_step, 0);
TABLE(T_THREADS, "throng_world_set_threads", NULL, one_int, 0, fill_one_int,
      call_threads, 0);
TABLE(T_STEP_LIMITS, "throng_world_set_step_limits", NULL, step_limits, 0,
      fill_step_limits, call_step_limits, 0);
TABLE(T_COMBINE, "throng_group_set_combine", NULL, one_int, 0, fill_one_int,
      call_combine, 0);

/* One behaviour table per kind, indexed by kind. */
#define BEHAVIOUR_TABLE(kind)                                                 \
    {                                                                         \
        "throng_group_add_behaviour", "throng_group_set_behaviour",           \
            sizeof(throng_behaviour), kind, fill_behaviour, call_behaviour, 0 \
    }
static const arg_table T_BEHAVIOUR[17] = {
    BEHAVIOUR_TABLE(0),  BEHAVIOUR_TABLE(1),  BEHAVIOUR_TABLE(2),
    BEHAVIOUR_TABLE(3),  BEHAVIOUR_TABLE(4),  BEHAVIOUR_TABLE(5),
    BEHAVIOUR_TABLE(6),  BEHAVIOUR_TABLE(7),  BEHAVIOUR_TABLE(8),
    BEHAVIOUR_TABLE(9),  BEHAVIOUR_TABLE(10), BEHAVIOUR_TABLE(11),
    BEHAVIOUR_TABLE(12), BEHAVIOUR_TABLE(13), BEHAVIOUR_TABLE(14),
    BEHAVIOUR_TABLE(15), BEHAVIOUR_TABLE(16)
};

/* ------------------------------------------------------------------------ */
/* Float fields, for the NaN / +Inf / -Inf injection                        */
/* ------------------------------------------------------------------------ */

#define FF(type, member, axis) \
    { #member, offsetof(type, member), axis }
/* member is an offsetof member designator and is stringised: it cannot
 * take parentheses. */
#define FV3(type, member) /* NOLINTNEXTLINE(bugprone-macro-parentheses) */ \
    FF(type, member[0], 0), FF(type, member[1], 1), FF(type, member[2], 2)
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const float_field F_WORLD[] = {
    FF(throng_world_def, neighbour_radius, -1),
    FF(throng_world_def, cell_size, -1),
    FF(throng_world_def, max_dt, -1),
};
static const float_field F_WORLD_PERIODIC[] = {
    FF(throng_world_def, neighbour_radius, -1),
    FF(throng_world_def, cell_size, -1),
    FF(throng_world_def, max_dt, -1),
    FV3(throng_world_def, box_size),
};
static const float_field F_AGENT[] = {
    FV3(throng_agent_def, position),     FV3(throng_agent_def, velocity),
    FF(throng_agent_def, mass, -1),      FF(throng_agent_def, max_force, -1),
    FF(throng_agent_def, max_speed, -1), FF(throng_agent_def, radius, -1),
};
static const float_field F_GROUP[] = {
    /* The recipe's fields are checked by the schema (test_schema.c); one
     * of each struct shows group creation checks them. */
    FF(throng_group_def, flocking.separation_radius, -1),
    FF(throng_group_def, wander.weight, -1),
};

/* Behaviours, flocking and wander: every field from the schema, in
 * tests/test_schema.c. */
static const float_field F_SPHERE[] = { FV3(sphere_args, center),
                                        FF(sphere_args, radius, -1) };
static const float_field F_TWO_POINTS[] = { FV3(two_points, a),
                                            FV3(two_points, b) };
static const float_field F_PATH[] = {
    FF(path_args, points[0], 0),  FF(path_args, points[1], 1),
    FF(path_args, points[2], 2),  FF(path_args, points[3], 0),
    FF(path_args, points[4], 1),  FF(path_args, points[5], 2),
    FF(path_args, points[6], 0),  FF(path_args, points[7], 1),
    FF(path_args, points[8], 2),  FF(path_args, points[9], 0),
    FF(path_args, points[10], 1), FF(path_args, points[11], 2),
    FF(path_args, radius, -1)
};
/* A 2D field reads 8 floats (4 vectors of 2), a 3D one all 24. */
static const float_field F_FLOW[] = {
    FV3(flow_args, def.origin),    FF(flow_args, def.cell_size, -1),
    FF(flow_args, vectors[0], -1), FF(flow_args, vectors[3], -1),
    FF(flow_args, vectors[7], -1), FF(flow_args, vectors[12], 2),
    FF(flow_args, vectors[23], 2)
};
static const float_field F_NAV[] = {
    FV3(nav_args, def.origin),          FF(nav_args, def.cell_size, -1),
    FF(nav_args, def.clearance, -1),    FF(nav_args, def.density_radius, -1),
    FF(nav_args, def.density_cost, -1), FV3(nav_args, goals[0].a),
    FV3(nav_args, goals[0].b),          FV3(nav_args, goals[1].a),
    FV3(nav_args, goals[1].b),          FV3(nav_args, region.min),
    FV3(nav_args, region.max),          FF(nav_args, region.cost, -1),
    FF(nav_args, costs[0], -1),         FF(nav_args, costs[15], -1)
};
static const float_field F_VEC[] = { FV3(vec_args, v) };
static const float_field F_QUERY[] = { FV3(vec_args, v),
                                       FF(vec_args, radius, -1) };
static const float_field F_ONE[] = { FF(one_float, x, -1) };
static const float_field F_STEP_LIMITS[] = { FF(step_limits, max_dt, -1) };

typedef struct float_target {
    const arg_table *table;
    int variants; /* calls sharing the table: variant 0 .. variants-1 */
    int first_variant;
    const float_field *fields;
    size_t count;
} float_target;

#define TARGET(table, variants, first, fields) \
    { &(table), variants, first, fields, COUNT(fields) }
static const float_target float_targets[] = {
    TARGET(T_WORLD, 1, 0, F_WORLD),
    TARGET(T_WORLD_PERIODIC, 1, 0, F_WORLD_PERIODIC),
    TARGET(T_AGENT, 1, 0, F_AGENT),
    TARGET(T_GROUP, 1, 0, F_GROUP),
    TARGET(T_STEP_LIMITS, 1, 0, F_STEP_LIMITS),
    TARGET(T_SPHERE, 1, 0, F_SPHERE),
    TARGET(T_BOX, 1, 0, F_TWO_POINTS),
    TARGET(T_SEGMENT, 1, 0, F_TWO_POINTS),
    TARGET(T_PLANE, 1, 0, F_TWO_POINTS),
    TARGET(T_PATH, 2, 0, F_PATH), /* open and closed */
    TARGET(T_FLOW, 1, 0, F_FLOW),
    TARGET(T_NAV, 1, 0, F_NAV),
    TARGET(T_POSITION, 1, 0, F_VEC),
    TARGET(T_VELOCITY, 1, 1, F_VEC),
    TARGET(T_TARGET_POINT, 1, 2, F_VEC),
    TARGET(T_QUERY, 1, 0, F_QUERY),
    TARGET(T_MASS, 1, 0, F_ONE),
    TARGET(T_MAX_FORCE, 1, 1, F_ONE),
    TARGET(T_MAX_SPEED, 1, 2, F_ONE),
    TARGET(T_RADIUS, 1, 3, F_ONE),
    TARGET(T_STEP, 1, 0, F_ONE),
};

/* ------------------------------------------------------------------------ */
/* Value records: one field of a table set to a bad value                   */
/* ------------------------------------------------------------------------ */

typedef struct value_case {
    const arg_table *table;
    const char *what;
    size_t offset;
    int is_int;
    float value;
    int32_t ivalue;
    throng_status want;
    int variant;
    unsigned dims; /* IN_2D, IN_3D or 0 for both */
} value_case;

#define R THRONG_ERR_OUT_OF_RANGE
#define VF(table, type, member, v, want) \
    { &(table), #member " = " #v, offsetof(type, member), 0, v, 0, want, 0, 0 }
#define VFV(table, type, member, v, want, variant)                         \
    {                                                                      \
        &(table), #member " = " #v, offsetof(type, member), 0, v, 0, want, \
            variant, 0                                                     \
    }
#define VFD(table, type, member, v, want, dims)                               \
    {                                                                         \
        &(table), #member " = " #v, offsetof(type, member), 0, v, 0, want, 0, \
            dims                                                              \
    }
#define VI(table, type, member, v, want)                             \
    {                                                                \
        &(table), #member " = " #v, offsetof(type, member), 1, 0.0f, \
            (int32_t)(v), want, 0, 0                                 \
    }
#define VID(table, type, member, v, want, dims)                      \
    {                                                                \
        &(table), #member " = " #v, offsetof(type, member), 1, 0.0f, \
            (int32_t)(v), want, 0, dims                              \
    }
#define VB(kind, member, v, want)                                   \
    {                                                               \
        &T_BEHAVIOUR[kind], #kind ": " #member " = " #v,            \
            offsetof(throng_behaviour, member), 0, v, 0, want, 0, 0 \
    }
#define VBI(kind, member, v, want)                                           \
    {                                                                        \
        &T_BEHAVIOUR[kind], #kind ": " #member " = " #v,                     \
            offsetof(throng_behaviour, member), 1, 0.0f, (int32_t)(v), want, \
            0, 0                                                             \
    }

static const value_case value_cases[] = {
    /* World defs: dimensions, enums, radii, cells, box, threads,
     * capacity. */
    VI(T_WORLD, throng_world_def, dimensions, 0, R),
    VI(T_WORLD, throng_world_def, dimensions, 1, R),
    VI(T_WORLD, throng_world_def, dimensions, 4, R),
    VI(T_WORLD, throng_world_def, dimensions, -1, R),
    VI(T_WORLD, throng_world_def, boundary, 2, R),
    VI(T_WORLD, throng_world_def, boundary, -1, R),
    VF(T_WORLD, throng_world_def, neighbour_radius, 0.0f, R),
    VF(T_WORLD, throng_world_def, neighbour_radius, -1.0f, R),
    /* Outside [THRONG_MIN_LENGTH, THRONG_MAX_LENGTH]: squares that leave
     * the float range. */
    VF(T_WORLD, throng_world_def, neighbour_radius, 9.9e-10f, R),
    VF(T_WORLD, throng_world_def, neighbour_radius, 1e-30f, R),
    VF(T_WORLD, throng_world_def, neighbour_radius, 1.0001e9f, R),
    VF(T_WORLD, throng_world_def, neighbour_radius, 3e38f, R),
    VF(T_WORLD, throng_world_def, cell_size, 2e9f, R),
    VF(T_WORLD, throng_world_def, cell_size, -1.0f, R),
    VF(T_WORLD, throng_world_def, cell_size, 0.125f, R), /* < radius / 4 */
    VI(T_WORLD, throng_world_def, threads, -1, R),
    VI(T_WORLD, throng_world_def, threads, 1025, R),
    VI(T_WORLD, throng_world_def, initial_capacity, THRONG_MAX_AGENTS + 1u, R),
    VI(T_WORLD, throng_world_def, initial_capacity, UINT32_MAX, R),
    VF(T_WORLD, throng_world_def, max_dt, 0.0f, R),
    VF(T_WORLD, throng_world_def, max_dt, -0.1f, R),
    VF(T_WORLD, throng_world_def, max_dt, 1e-7f, R),
    VF(T_WORLD, throng_world_def, max_dt, 10.5f, R),
    VF(T_WORLD, throng_world_def, max_dt, FLT_MAX, R),
    VI(T_WORLD, throng_world_def, max_substeps, 0, R),
    VI(T_WORLD, throng_world_def, max_substeps, 1001, R),
    VI(T_WORLD, throng_world_def, max_substeps, UINT32_MAX, R),
    VI(T_WORLD, throng_world_def, simd, 7, R),
    VI(T_WORLD, throng_world_def, simd, -1, R),
#if defined(__x86_64__)
    /* A path this architecture never has: refused as unsupported. */
    VI(T_WORLD, throng_world_def, simd, THRONG_SIMD_NEON,
       THRONG_ERR_UNSUPPORTED),
    VI(T_WORLD, throng_world_def, simd, THRONG_SIMD_WASM,
       THRONG_ERR_UNSUPPORTED),
#endif
    /* A worker count without task hooks. */
    VI(T_WORLD, throng_world_def, worker_count, 1, R),
    VI(T_WORLD, throng_world_def, worker_count, 4, R),
    VF(T_STEP_LIMITS, step_limits, max_dt, 0.0f, R),
    VF(T_STEP_LIMITS, step_limits, max_dt, -1.0f, R),
    VF(T_STEP_LIMITS, step_limits, max_dt, 1e-7f, R),
    VF(T_STEP_LIMITS, step_limits, max_dt, 11.0f, R),
    VI(T_STEP_LIMITS, step_limits, max_substeps, 0, R),
    VI(T_STEP_LIMITS, step_limits, max_substeps, 1001, R),
    VF(T_WORLD_PERIODIC, throng_world_def, box_size[0], 0.0f, R),
    VF(T_WORLD_PERIODIC, throng_world_def, box_size[1], -5.0f, R),
    VF(T_WORLD_PERIODIC, throng_world_def, box_size[0], 2.5f, R), /* < 3 r */
    VF(T_WORLD_PERIODIC, throng_world_def, box_size[0], 3e38f, R),
    VF(T_WORLD_PERIODIC, throng_world_def, box_size[1], 1.0001e9f, R),
    /* 1e7 x 100 cells: above THRONG_MAX_GRID_CELLS. */
    VF(T_WORLD_PERIODIC, throng_world_def, box_size[0], 1e7f, R),
    VFD(T_WORLD_PERIODIC, throng_world_def, box_size[2], 0.0f, R, IN_3D),

    /* Agent defs. */
    VF(T_AGENT, throng_agent_def, mass, 0.0f, R),
    VF(T_AGENT, throng_agent_def, mass, -0.0f, R),
    VF(T_AGENT, throng_agent_def, mass, -1.0f, R),
    VF(T_AGENT, throng_agent_def, mass, -FLT_MIN, R),
    VF(T_AGENT, throng_agent_def, max_force, -1.0f, R),
    VF(T_AGENT, throng_agent_def, max_force, -FLT_MAX, R),
    VF(T_AGENT, throng_agent_def, max_speed, -1.0f, R),
    VF(T_AGENT, throng_agent_def, max_speed, -1e-30f, R),
    VF(T_AGENT, throng_agent_def, radius, -1.0f, R),
    VF(T_AGENT, throng_agent_def, radius, -0.25f, R),
    VF(T_AGENT, throng_agent_def, radius, 1e-12f, R),
    VF(T_AGENT, throng_agent_def, radius, 2e9f, R),
    VI(T_AGENT, throng_agent_def, host_key, 12, THRONG_ERR_DUPLICATE_KEY),

    /* Agent setters. */
    VFV(T_MASS, one_float, x, 0.0f, R, 0),
    VFV(T_MASS, one_float, x, -2.0f, R, 0),
    VFV(T_MAX_FORCE, one_float, x, -1.0f, R, 1),
    VFV(T_MAX_SPEED, one_float, x, -1.0f, R, 2),
    VFV(T_RADIUS, one_float, x, -1.0f, R, 3),

    /* The step: dt <= 0 (NaN and infinities come from the injection). */
    VF(T_STEP, one_float, x, 0.0f, R),
    VF(T_STEP, one_float, x, -0.0f, R),
    VF(T_STEP, one_float, x, -0.05f, R),
    VF(T_STEP, one_float, x, -FLT_MIN, R),
    VF(T_STEP, one_float, x, -FLT_MAX, R),

    /* World settings. */
    VI(T_THREADS, one_int, i, -1, R),
    VI(T_THREADS, one_int, i, 1025, R),
    VI(T_THREADS, one_int, i, INT32_MIN, R),
    VI(T_COMBINE, one_int, i, 3, R),
    VI(T_COMBINE, one_int, i, -1, R),

    /* Group defs: radii, weights, cone, speed factors, enums, names. */
    VI(T_GROUP, throng_group_def, combine, 3, R),
    VI(T_GROUP, throng_group_def, combine, -1, R),

    /* Behaviours: kinds and object handles (every field's range and the
     * fields a kind does not read: tests/test_schema.c). */
    VBI(THRONG_BEHAVIOUR_SEEK, kind, 0, R),
    VBI(THRONG_BEHAVIOUR_SEEK, kind, 17, R),
    VBI(THRONG_BEHAVIOUR_SEEK, kind, 32, R),
    VBI(THRONG_BEHAVIOUR_FOLLOW_NAV, u.nav.field.id, 999,
        THRONG_ERR_STALE_HANDLE),
    VBI(THRONG_BEHAVIOUR_SEEK, kind, -1, R),
    VBI(THRONG_BEHAVIOUR_PATROL, u.path.path.id, 999, THRONG_ERR_STALE_HANDLE),
    VBI(THRONG_BEHAVIOUR_FOLLOW_PATH, u.path.path.generation, 12345,
        THRONG_ERR_STALE_HANDLE),
    VBI(THRONG_BEHAVIOUR_FOLLOW_PATH, u.path.path.id, 0,
        THRONG_ERR_STALE_HANDLE),
    VBI(THRONG_BEHAVIOUR_FOLLOW_FLOW, u.flow.field.id, 999,
        THRONG_ERR_STALE_HANDLE),
    VBI(THRONG_BEHAVIOUR_FOLLOW_FLOW, u.flow.field.generation, 0,
        THRONG_ERR_STALE_HANDLE),

    /* Geometry: sizes, degenerate shapes, overflowing counts. */
    VF(T_SPHERE, sphere_args, radius, 0.0f, R),
    VF(T_SPHERE, sphere_args, radius, -1.0f, R),
    VF(T_SPHERE, sphere_args, radius, 1e-20f, R),
    VF(T_SPHERE, sphere_args, radius, 1e20f, R),
    VF(T_BOX, two_points, a[0], 1.0f, R),  /* min == max */
    VF(T_BOX, two_points, b[1], -2.0f, R), /* max < min */
    VFD(T_BOX, two_points, b[2], -2.0f, R, IN_3D),
    VF(T_SEGMENT, two_points, b[0], 0.0f, R),  /* a == b */
    VF(T_SEGMENT, two_points, b[0], 5e-7f, R), /* under 1e-6 m */
    VF(T_PLANE, two_points, b[0], 0.0f, R),    /* no normal */
    VF(T_PLANE, two_points, b[0], 1e-7f, R),
    VF(T_PATH, path_args, radius, 0.0f, R),
    VF(T_PATH, path_args, radius, -1.0f, R),
    VF(T_PATH, path_args, radius, 1e-20f, R),
    VF(T_PATH, path_args, points[3], 0.0f, R),    /* repeated point */
    VF(T_PATH, path_args, points[3], 3.0e38f, R), /* longer than a float */
    VI(T_PATH, path_args, count, 0, R),
    VI(T_PATH, path_args, count, 1, R),
    VI(T_PATH, path_args, count, THRONG_MAX_PATH_POINTS + 1u, R),
    VI(T_PATH, path_args, count, UINT32_MAX, R),
    VF(T_FLOW, flow_args, def.cell_size, 0.0f, R),
    VF(T_FLOW, flow_args, def.cell_size, -1.0f, R),
    VF(T_FLOW, flow_args, def.cell_size, 1e20f, R),
    VI(T_FLOW, flow_args, def.size[0], 0, R),
    VI(T_FLOW, flow_args, def.size[1], 0, R),
    VID(T_FLOW, flow_args, def.size[2], 0, R, IN_3D),
    VI(T_FLOW, flow_args, def.size[0], THRONG_MAX_FLOW_CELLS, R),
    VI(T_FLOW, flow_args, def.size[1], 1u << 31, R),
    VI(T_FLOW, flow_args, def.size[0], UINT32_MAX, R),
    VID(T_FLOW, flow_args, def.size[2], UINT32_MAX, R, IN_3D),
    VF(T_NAV, nav_args, def.cell_size, 0.0f, R),
    VF(T_NAV, nav_args, def.cell_size, -1.0f, R),
    VF(T_NAV, nav_args, def.cell_size, 1e20f, R),
    VI(T_NAV, nav_args, def.size[0], 0, R),
    VI(T_NAV, nav_args, def.size[1], 0, R),
    VID(T_NAV, nav_args, def.size[2], 0, R, IN_3D),
    VID(T_NAV, nav_args, def.size[2], 2, R, IN_2D),
    VI(T_NAV, nav_args, def.size[0], 1 << 30, R),
    VI(T_NAV, nav_args, def.size[1], UINT32_MAX, R),
    VF(T_NAV, nav_args, def.clearance, -1.0f, R),
    VF(T_NAV, nav_args, def.density_cost, -1.0f, R),
    VF(T_NAV, nav_args, def.density_radius, -1.0f, R),
    VI(T_NAV, nav_args, def.goal_count, 0, R),
    VI(T_NAV, nav_args, def.goal_count, 5000, R),
    VI(T_NAV, nav_args, def.region_count, 5000, R),
    VI(T_NAV, nav_args, goals[0].kind, 0, R),
    VI(T_NAV, nav_args, goals[0].kind, 9, R),
    VF(T_NAV, nav_args, goals[0].a[0], 100.0f, R),
    VF(T_NAV, nav_args, goals[0].b[0], 1.0f, THRONG_ERR_INVALID_ARG),
    VF(T_NAV, nav_args, region.cost, 1e6f, R),
    VF(T_NAV, nav_args, region.cost, 0.001f, R),
    VF(T_NAV, nav_args, region.max[0], 11.0f, R),
    VF(T_NAV, nav_args, costs[5], -1.0f, R),
    VF(T_NAV, nav_args, costs[5], 2000.0f, R),

    /* Queries. */
    VF(T_QUERY, vec_args, radius, -1.0f, R),
    VF(T_QUERY, vec_args, radius, -FLT_MIN, R),
};

/* ------------------------------------------------------------------------ */
/* Hand-written cases                                                       */
/* ------------------------------------------------------------------------ */

#define BAD(id, expr)                     \
    static throng_status id(fixture *f) { \
        (void)f;                          \
        return (expr);                    \
    }

static const float fix_point[3] = { 0.5f, 0.5f, 0.5f };

/* A NULL world, every function that takes one. */
BAD(nw_step, throng_world_step(NULL, 0.05f))
BAD(nw_threads, throng_world_set_threads(NULL, 1))
BAD(nw_step_limits, throng_world_set_step_limits(NULL, 0.05f, 4))
BAD(nw_task_hooks, throng_world_set_task_hooks(NULL, NULL, NULL, NULL, 0u))
BAD(nw_stable_columns, throng_world_set_stable_columns(NULL, true))
BAD(nw_stats, throng_world_stats(NULL, &(throng_step_stats){ 0 }))
BAD(nw_columns, throng_world_columns(NULL, &(throng_columns){ 0 }))
BAD(nw_agent_add,
    throng_agent_add(NULL, &(throng_agent_def){ 0 }, &f->out_agent))
BAD(nw_agent_remove, throng_agent_remove(NULL, f->agent))
BAD(nw_agent_find, throng_agent_find(NULL, 11u, &f->out_agent))
BAD(nw_agent_index, throng_agent_index(NULL, f->agent, &f->u32))
BAD(nw_agent_rebind, throng_agent_rebind(NULL, f->agent, &f->out_agent))
BAD(nw_object_rebind, throng_object_rebind(NULL, f->path, &f->out_object))
BAD(nw_agent_at, throng_agent_at(NULL, 0u, &f->out_agent))
BAD(nw_get_def, throng_agent_get_def(NULL, f->agent, &(throng_agent_def){ 0 }))
BAD(nw_get_position, throng_agent_get_position(NULL, f->agent, f->v3))
BAD(nw_set_position, throng_agent_set_position(NULL, f->agent, fix_point))
BAD(nw_get_velocity, throng_agent_get_velocity(NULL, f->agent, f->v3))
BAD(nw_set_velocity, throng_agent_set_velocity(NULL, f->agent, fix_point))
BAD(nw_get_basis, throng_agent_get_basis(NULL, f->agent, f->v3, f->up, f->side))
BAD(nw_get_mass, throng_agent_get_mass(NULL, f->agent, &f->f))
BAD(nw_set_mass, throng_agent_set_mass(NULL, f->agent, 1.0f))
BAD(nw_get_max_force, throng_agent_get_max_force(NULL, f->agent, &f->f))
BAD(nw_set_max_force, throng_agent_set_max_force(NULL, f->agent, 1.0f))
BAD(nw_get_max_speed, throng_agent_get_max_speed(NULL, f->agent, &f->f))
BAD(nw_set_max_speed, throng_agent_set_max_speed(NULL, f->agent, 1.0f))
BAD(nw_get_radius, throng_agent_get_radius(NULL, f->agent, &f->f))
BAD(nw_set_radius, throng_agent_set_radius(NULL, f->agent, 1.0f))
BAD(nw_get_group, throng_agent_get_group(NULL, f->agent, &f->out_group))
BAD(nw_set_group, throng_agent_set_group(NULL, f->agent, THRONG_NULL_GROUP))
BAD(nw_get_host_key, throng_agent_get_host_key(NULL, f->agent, &f->u64))
BAD(nw_set_host_key, throng_agent_set_host_key(NULL, f->agent, 5u))
BAD(nw_set_target_point,
    throng_agent_set_target_point(NULL, f->agent, fix_point))
BAD(nw_get_target_point, throng_agent_get_target_point(NULL, f->agent, f->v3))
BAD(nw_set_target_agent,
    throng_agent_set_target_agent(NULL, f->agent, f->second))
BAD(nw_get_target_agent,
    throng_agent_get_target_agent(NULL, f->agent, &f->out_agent))
BAD(nw_set_progress, throng_agent_set_progress(NULL, f->agent, 1u))
BAD(nw_get_progress, throng_agent_get_progress(NULL, f->agent, &f->u32))
BAD(nw_group_create,
    throng_group_create(NULL, &(throng_group_def){ 0 }, &f->out_group))
BAD(nw_group_find, throng_group_find(NULL, "walkers", &f->out_group))
BAD(nw_get_flocking, throng_group_get_flocking(NULL, default_group(NULL),
                                               &(throng_flocking){ 0 }))
BAD(nw_set_flocking, throng_group_set_flocking(NULL, default_group(NULL),
                                               &(throng_flocking){ 0 }))
BAD(nw_set_combine, throng_group_set_combine(NULL, default_group(NULL),
                                             THRONG_COMBINE_WEIGHTED_SUM))
BAD(nw_get_wander,
    throng_group_get_wander(NULL, default_group(NULL), &(throng_wander){ 0 }))
BAD(nw_set_wander,
    throng_group_set_wander(NULL, default_group(NULL), &(throng_wander){ 0 }))
BAD(nw_add_behaviour,
    throng_group_add_behaviour(NULL, default_group(NULL),
                               &(throng_behaviour){ 0 }, NULL))
BAD(nw_set_behaviour, throng_group_set_behaviour(NULL, default_group(NULL), 0u,
                                                 &(throng_behaviour){ 0 }))
BAD(nw_get_behaviour, throng_group_get_behaviour(NULL, default_group(NULL), 0u,
                                                 &(throng_behaviour){ 0 }))
BAD(nw_behaviour_count,
    throng_group_behaviour_count(NULL, default_group(NULL), &f->u32))
BAD(nw_clear_behaviours,
    throng_group_clear_behaviours(NULL, default_group(NULL)))
BAD(nw_query, throng_world_query_radius(NULL, fix_point, 1.0f, f->agents, 4u,
                                        &f->u32, NULL))
BAD(nw_obstacle, throng_obstacle_add(NULL, &f->obstacle_def, &f->out_object))
BAD(nw_wall, throng_wall_add(NULL, &f->wall_def, &f->out_object))
BAD(nw_path, throng_path_add(NULL, &f->path_def, &f->out_object))
BAD(nw_flow, throng_flow_field_add(NULL, &f->flow_def, &f->out_object))
static throng_nav_field_def nav_def_of(const fixture *f) {
    throng_nav_field_info info;
    memset(&info, 0, sizeof info);
    (void)throng_nav_field_get(f->w, f->nav, &info);
    return info.def;
}
BAD(nw_nav_add,
    throng_nav_field_add(NULL, &(throng_nav_field_def){ 0 }, &f->out_object))
BAD(nw_nav_sample,
    throng_nav_field_sample(NULL, f->nav, fix_point, &f->nav_sample))
BAD(nw_nav_distances,
    throng_nav_field_distances(NULL, f->nav, NULL, 0u, &f->u64))
BAD(nw_nav_get,
    throng_nav_field_get(NULL, f->nav, &(throng_nav_field_info){ 0 }))
BAD(nw_nav_set_costs, throng_nav_field_set_costs(NULL, f->nav, NULL))
BAD(nw_nav_update, throng_nav_field_update(NULL, f->nav))
BAD(nw_nav_count_agents,
    throng_nav_field_count_agents(NULL, f->nav, NULL, 0u, &f->u64))
BAD(nw_nav_supply_counts, throng_nav_field_supply_counts(NULL, f->nav, NULL))
BAD(nw_set_nav_field, throng_agent_set_nav_field(NULL, f->agent, f->nav))
BAD(nw_get_nav, throng_agent_get_nav(NULL, f->agent, &(throng_agent_nav){ 0 }))
BAD(nw_nav_arrivals,
    throng_world_nav_arrivals(NULL, NULL, 0u, &f->u32, &f->truncated))
BAD(nw_default_group, throng_world_default_group(NULL, &f->out_group))
BAD(nw_group_remove, throng_group_remove(NULL, f->group))
BAD(nw_group_rebind, throng_group_rebind(NULL, f->group, &f->out_group))
BAD(nw_object_remove, throng_object_remove(NULL, f->sphere))
BAD(nw_object_get,
    throng_object_get(NULL, f->sphere, &(throng_object_info){ 0 }))
BAD(nw_object_at, throng_world_object_at(NULL, 0u, &f->out_object))
BAD(nw_snapshot_size, throng_world_snapshot_size(NULL, &f->bytes))
BAD(nw_save,
    throng_world_save(NULL, f->load_error, sizeof f->load_error, &f->bytes))
BAD(nw_save_file, throng_world_save_file(NULL, "never-written.snap"))

/* NULL pointer arguments, one at a time. */
BAD(np_stats, throng_world_stats(f->w, NULL))
BAD(np_columns, throng_world_columns(f->w, NULL))
BAD(np_agent_add_def, throng_agent_add(f->w, NULL, &f->out_agent))
BAD(np_agent_add_out,
    throng_agent_add(f->w, &(throng_agent_def){ .mass = 1.0f }, NULL))
BAD(np_agent_find, throng_agent_find(f->w, 11u, NULL))
BAD(np_agent_index, throng_agent_index(f->w, f->agent, NULL))
BAD(np_agent_rebind, throng_agent_rebind(f->w, f->agent, NULL))
BAD(np_object_rebind, throng_object_rebind(f->w, f->path, NULL))
BAD(np_agent_at, throng_agent_at(f->w, 0u, NULL))
BAD(np_get_def, throng_agent_get_def(f->w, f->agent, NULL))
BAD(np_get_position, throng_agent_get_position(f->w, f->agent, NULL))
BAD(np_set_position, throng_agent_set_position(f->w, f->agent, NULL))
BAD(np_get_velocity, throng_agent_get_velocity(f->w, f->agent, NULL))
BAD(np_set_velocity, throng_agent_set_velocity(f->w, f->agent, NULL))
BAD(np_basis_forward,
    throng_agent_get_basis(f->w, f->agent, NULL, f->up, f->side))
BAD(np_basis_up, throng_agent_get_basis(f->w, f->agent, f->v3, NULL, f->side))
BAD(np_basis_side, throng_agent_get_basis(f->w, f->agent, f->v3, f->up, NULL))
BAD(np_get_mass, throng_agent_get_mass(f->w, f->agent, NULL))
BAD(np_get_max_force, throng_agent_get_max_force(f->w, f->agent, NULL))
BAD(np_get_max_speed, throng_agent_get_max_speed(f->w, f->agent, NULL))
BAD(np_get_radius, throng_agent_get_radius(f->w, f->agent, NULL))
BAD(np_get_group, throng_agent_get_group(f->w, f->agent, NULL))
BAD(np_get_host_key, throng_agent_get_host_key(f->w, f->agent, NULL))
BAD(np_set_target_point, throng_agent_set_target_point(f->w, f->agent, NULL))
BAD(np_get_target_point, throng_agent_get_target_point(f->w, f->agent, NULL))
BAD(np_get_target_agent, throng_agent_get_target_agent(f->w, f->agent, NULL))
BAD(np_get_progress, throng_agent_get_progress(f->w, f->agent, NULL))
BAD(np_group_create_def, throng_group_create(f->w, NULL, &f->out_group))
BAD(np_group_create_out,
    throng_group_create(f->w, &(throng_group_def){ 0 }, NULL))
BAD(np_group_find_name, throng_group_find(f->w, NULL, &f->out_group))
BAD(np_group_find_out, throng_group_find(f->w, "walkers", NULL))
BAD(np_get_flocking, throng_group_get_flocking(f->w, f->group, NULL))
BAD(np_set_flocking, throng_group_set_flocking(f->w, f->group, NULL))
BAD(np_get_wander, throng_group_get_wander(f->w, f->group, NULL))
BAD(np_set_wander, throng_group_set_wander(f->w, f->group, NULL))
BAD(np_add_behaviour, throng_group_add_behaviour(f->w, f->group, NULL, &f->u32))
BAD(np_set_behaviour, throng_group_set_behaviour(f->w, f->group, 0u, NULL))
BAD(np_get_behaviour, throng_group_get_behaviour(f->w, f->group, 0u, NULL))
BAD(np_behaviour_count, throng_group_behaviour_count(f->w, f->group, NULL))
BAD(np_query_point,
    throng_world_query_radius(f->w, NULL, 1.0f, f->agents, 4u, &f->u32, NULL))
BAD(np_query_count,
    throng_world_query_radius(f->w, fix_point, 1.0f, f->agents, 4u, NULL, NULL))
BAD(np_query_out,
    throng_world_query_radius(f->w, fix_point, 1.0f, NULL, 4u, &f->u32, NULL))
BAD(np_obstacle_def, throng_obstacle_add(f->w, NULL, &f->out_object))
BAD(np_obstacle_out, throng_obstacle_add(f->w, &f->obstacle_def, NULL))
BAD(np_wall_def, throng_wall_add(f->w, NULL, &f->out_object))
BAD(np_wall_out, throng_wall_add(f->w, &f->wall_def, NULL))
BAD(np_path_def, throng_path_add(f->w, NULL, &f->out_object))
BAD(np_path_points,
    throng_path_add(f->w,
                    &(throng_path_def){ .point_count = 4u, .radius = 1.0f },
                    &f->out_object))
BAD(np_path_out, throng_path_add(f->w, &f->path_def, NULL))
BAD(np_flow_def, throng_flow_field_add(f->w, NULL, &f->out_object))
BAD(np_flow_vectors,
    throng_flow_field_add(f->w,
                          &(throng_flow_field_def){ .cell_size = 1.0f,
                                                    .size = { 2, 2, 2 } },
                          &f->out_object))
BAD(np_default_group, throng_world_default_group(f->w, NULL))
BAD(np_group_rebind, throng_group_rebind(f->w, f->group, NULL))
BAD(np_flow_out, throng_flow_field_add(f->w,
                                       &(throng_flow_field_def){
                                           .cell_size = 1.0f,
                                           .size = { 2, 2, 2 },
                                           .vectors = fix_flow_vectors },
                                       NULL))
BAD(np_object_get, throng_object_get(f->w, f->sphere, NULL))
BAD(np_nav_def, throng_nav_field_add(f->w, NULL, &f->out_object))
static throng_status np_nav_goals(fixture *f) {
    throng_nav_field_def d = nav_def_of(f);
    d.goals = NULL;
    return throng_nav_field_add(f->w, &d, &f->out_object);
}
static throng_status np_nav_out(fixture *f) {
    throng_nav_field_def d = nav_def_of(f);
    return throng_nav_field_add(f->w, &d, NULL);
}
BAD(np_nav_point, throng_nav_field_sample(f->w, f->nav, NULL, &f->nav_sample))
BAD(np_nav_sample_out, throng_nav_field_sample(f->w, f->nav, fix_point, NULL))
BAD(np_nav_distances,
    throng_nav_field_distances(f->w, f->nav, NULL, 16u, &f->u64))
BAD(np_nav_get, throng_nav_field_get(f->w, f->nav, NULL))
BAD(np_nav_count_agents,
    throng_nav_field_count_agents(f->w, f->nav, NULL, 16u, &f->u64))
BAD(np_get_nav, throng_agent_get_nav(f->w, f->agent, NULL))
BAD(np_nav_arrivals_count,
    throng_world_nav_arrivals(f->w, NULL, 0u, NULL, &f->truncated))
BAD(np_nav_arrivals_out,
    throng_world_nav_arrivals(f->w, NULL, 4u, &f->u32, &f->truncated))
BAD(np_object_at, throng_world_object_at(f->w, 0u, NULL))
BAD(np_snapshot_size, throng_world_snapshot_size(f->w, NULL))
BAD(np_save_buffer, throng_world_save(f->w, NULL, 64u, &f->bytes))
BAD(np_save_file, throng_world_save_file(f->w, NULL))

/* Indices, names, keys and references that name nothing or clash. */
BAD(ix_agent_at_count,
    throng_agent_at(f->w, throng_world_agent_count(f->w), &f->out_agent))
BAD(ix_agent_at_max, throng_agent_at(f->w, UINT32_MAX, &f->out_agent))
BAD(ix_object_at_count,
    throng_world_object_at(f->w, throng_world_object_count(f->w),
                           &f->out_object))
BAD(ix_object_at_max, throng_world_object_at(f->w, UINT32_MAX, &f->out_object))
BAD(ix_get_behaviour,
    throng_group_get_behaviour(f->w, f->group, 4u, &(throng_behaviour){ 0 }))
BAD(ix_get_behaviour_max, throng_group_get_behaviour(f->w, f->group, UINT32_MAX,
                                                     &(throng_behaviour){ 0 }))
BAD(ix_get_behaviour_empty,
    throng_group_get_behaviour(f->w, default_group(f->w), 0u,
                               &(throng_behaviour){ 0 }))
static throng_status ix_set_behaviour(fixture *f) {
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_SEEK);
    return throng_group_set_behaviour(f->w, f->group, 4u, &b);
}
static throng_status ix_add_behaviour_full(fixture *f) {
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_SEEK);
    uint32_t index = 777u;
    throng_status st = throng_group_add_behaviour(f->w, f->full, &b, &index);
    CHECK(index == 777u);
    return st;
}
static throng_status ix_behaviour_unknown_kind(fixture *f) {
    throng_behaviour b = throng_behaviour_default((throng_behaviour_kind)99);
    return throng_group_add_behaviour(f->w, f->group, &b, NULL);
}
static throng_status ix_behaviour_zero_kind(fixture *f) {
    throng_behaviour b = throng_behaviour_default((throng_behaviour_kind)0);
    return throng_group_set_behaviour(f->w, f->group, 1u, &b);
}
/* An object of the wrong kind where a path or a flow field belongs. */
static throng_status ix_path_is_sphere(fixture *f) {
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_PATROL);
    b.u.path.path = f->sphere;
    return throng_group_add_behaviour(f->w, f->group, &b, NULL);
}
static throng_status ix_path_is_flow(fixture *f) {
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_PATH);
    b.u.path.path = f->flow;
    return throng_group_set_behaviour(f->w, f->group, 2u, &b);
}
static throng_status ix_flow_is_path(fixture *f) {
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_FLOW);
    b.u.flow.field = f->path;
    return throng_group_add_behaviour(f->w, f->group, &b, NULL);
}
static throng_status ix_nav_is_flow(fixture *f) {
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_NAV);
    b.u.nav.field = f->flow;
    return throng_group_add_behaviour(f->w, f->group, &b, NULL);
}
static throng_status ix_nav_goal_inside(fixture *f) {
    throng_nav_field_def d = throng_nav_field_def_default();
    throng_nav_goal g;
    memset(&g, 0, sizeof g);
    g.kind = THRONG_NAV_GOAL_POINT;
    g.a[0] = g.a[1] = 5.0f; /* the sphere's centre */
    d.origin[0] = d.origin[1] = 2.0f;
    d.size[0] = d.size[1] = 6u;
    d.goals = &g;
    d.goal_count = 1u;
    return throng_nav_field_add(f->w, &d, &f->out_object);
}
static throng_status ix_nav_unreachable(fixture *f) {
    throng_nav_field_def d = nav_def_of(f);
    float costs[16];
    for (int c = 0; c < 16; c++)
        costs[c] = c == 5 ? 1.0f : 0.0f; /* the goal's cell (1, 1) */
    d.costs = costs;
    d.region_count = 0u;
    return throng_nav_field_add(f->w, &d, &f->out_object);
}
static throng_status ix_nav_count_agents_short(fixture *f) {
    uint32_t out[15];
    return throng_nav_field_count_agents(f->w, f->nav, out, 15u, &f->u64);
}
/* The fixture's field does not count its crowd. */
static throng_status ix_nav_supply_not_counting(fixture *f) {
    uint32_t counts[16] = { 0 };
    return throng_nav_field_supply_counts(f->w, f->nav, counts);
}
static throng_status ix_nav_distances_short(fixture *f) {
    float out[15];
    return throng_nav_field_distances(f->w, f->nav, out, 15u, &f->u64);
}
static throng_status ix_nav_cost_low(fixture *f) {
    float costs[16];
    for (int c = 0; c < 16; c++)
        costs[c] = c == 3 ? 1e-3f : 1.0f;
    return throng_nav_field_set_costs(f->w, f->nav, costs);
}
static throng_status ix_nav_cost_nan(fixture *f) {
    float costs[16];
    for (int c = 0; c < 16; c++)
        costs[c] = c == 9 ? NAN : 1.0f;
    return throng_nav_field_set_costs(f->w, f->nav, costs);
}
BAD(ix_nav_field_sphere, throng_agent_set_nav_field(f->w, f->agent, f->sphere))
BAD(ix_nav_field_gone, throng_agent_set_nav_field(f->w, f->agent, f->gone))
BAD(ix_nav_field_foreign,
    throng_agent_set_nav_field(f->w, f->agent, f->foreign_object))
static throng_status ix_group_name_empty(fixture *f) {
    throng_group_def d = throng_group_def_default();
    d.name = "";
    return throng_group_create(f->w, &d, &f->out_group);
}
static const char name64[] =
    "a-name-of-sixty-four-bytes-which-is-one-more-than-a-group-holds!";
static throng_status ix_group_name_long(fixture *f) {
    throng_group_def d = throng_group_def_default();
    d.name = name64;
    return throng_group_create(f->w, &d, &f->out_group);
}
static throng_status ix_group_name_taken(fixture *f) {
    throng_group_def d = throng_group_def_default();
    d.name = "walkers";
    return throng_group_create(f->w, &d, &f->out_group);
}
static throng_status ix_group_name_default(fixture *f) {
    throng_group_def d = throng_group_def_default();
    d.name = "default";
    return throng_group_create(f->w, &d, &f->out_group);
}
BAD(ix_group_find_unknown, throng_group_find(f->w, "runners", &f->out_group))
BAD(ix_group_find_empty, throng_group_find(f->w, "", &f->out_group))
BAD(ix_group_find_long, throng_group_find(f->w, name64, &f->out_group))
BAD(ix_agent_find_unknown, throng_agent_find(f->w, 999u, &f->out_agent))
BAD(ix_agent_find_zero, throng_agent_find(f->w, 0u, &f->out_agent))
BAD(ix_agent_find_removed, throng_agent_find(f->w, 13u, &f->out_agent))
BAD(ix_host_key_taken, throng_agent_set_host_key(f->w, f->agent, 12u))
BAD(ix_target_self, throng_agent_set_target_agent(f->w, f->agent, f->agent))
BAD(ix_segment_in_3d, throng_wall_add(f->w, &f->wall_def, &f->out_object))
/* Groups that cannot be removed. */
BAD(ix_remove_default, throng_group_remove(f->w, default_group(f->w)))
BAD(ix_remove_in_use, throng_group_remove(f->w, f->group))
/* Def fields the def's kind does not read, set. */
static throng_status unread_obstacle(fixture *f, int box, int field) {
    throng_obstacle_def d = f->obstacle_def;
    if (box) {
        d.kind = THRONG_OBJECT_BOX;
        d.radius = 0.0f;
        d.min[0] = d.min[1] = d.min[2] = -1.0f;
        d.max[0] = d.max[1] = d.max[2] = 1.0f;
        if (field == 0)
            d.center[1] = 0.5f;
        else
            d.radius = 1.0f;
    } else if (field == 0) {
        d.min[2] = -0.5f;
    } else {
        d.max[0] = 2.0f;
    }
    return throng_obstacle_add(f->w, &d, &f->out_object);
}
static throng_status unread_wall(fixture *f, int plane, int field) {
    throng_wall_def d = f->wall_def;
    if (plane) {
        memset(d.a, 0, sizeof d.a);
        memset(d.b, 0, sizeof d.b);
        d.kind = THRONG_OBJECT_PLANE;
        d.normal[1] = 1.0f;
        if (field == 0)
            d.a[0] = 1.0f;
        else
            d.b[1] = -1.0f;
    } else if (field == 0) {
        d.point[0] = 3.0f;
    } else {
        d.normal[2] = 1.0f;
    }
    return throng_wall_add(f->w, &d, &f->out_object);
}
BAD(ux_sphere_min, unread_obstacle(f, 0, 0))
BAD(ux_sphere_max, unread_obstacle(f, 0, 1))
BAD(ux_box_center, unread_obstacle(f, 1, 0))
BAD(ux_box_radius, unread_obstacle(f, 1, 1))
BAD(ux_segment_point, unread_wall(f, 0, 0))
BAD(ux_segment_normal, unread_wall(f, 0, 1))
BAD(ux_plane_a, unread_wall(f, 1, 0))
BAD(ux_plane_b, unread_wall(f, 1, 1))
BAD(ux_obstacle_kind,
    throng_obstacle_add(f->w,
                        &(throng_obstacle_def){ .kind = THRONG_OBJECT_PLANE,
                                                .radius = 1.0f },
                        &f->out_object))
BAD(ux_wall_kind,
    throng_wall_add(f->w, &(throng_wall_def){ .kind = THRONG_OBJECT_SPHERE },
                    &f->out_object))

/* Snapshots: buffers too small, unwritable paths. */
BAD(sv_zero_capacity, throng_world_save(f->w, NULL, 0u, &f->bytes))
static throng_status sv_short_buffer(fixture *f) {
    size_t size = 0;
    if (throng_world_snapshot_size(f->w, &size) != THRONG_OK || size < 2u)
        return THRONG_OK; /* fails the case */
    unsigned char *buffer = malloc(size);
    if (!buffer)
        return THRONG_OK;
    memset(buffer, 0xA5, size);
    throng_status st = throng_world_save(f->w, buffer, size - 1u, &f->bytes);
    CHECK(f->bytes == size);
    for (size_t i = 0; i < size; i++)
        if (buffer[i] != 0xA5) {
            runner_fail(__FILE__, __LINE__,
                        "a refused save wrote byte %zu of the buffer", i);
            break;
        }
    free(buffer);
    return st;
}
BAD(sv_one_byte, throng_world_save(f->w, f->load_error, 1u, NULL))
BAD(sv_file_no_dir,
    throng_world_save_file(f->w, "/nonexistent-directory-of-throng/x.snap"))
/* Nothing is written for an empty path ("" + ".tmp" would be a file in
 * the working directory). */
static throng_status sv_file_empty_path(fixture *f) {
    FILE *before = fopen(".tmp", "rb");
    if (before)
        fclose(before);
    throng_status st = throng_world_save_file(f->w, "");
    FILE *after = fopen(".tmp", "rb");
    if (after)
        fclose(after);
    CHECK((before != NULL) == (after != NULL));
    return st;
}

/* World creation without a def or an out pointer. */
static throng_status wc_null_def(fixture *f) {
    (void)f;
    throng_world *made = (throng_world *)&made;
    throng_status st = throng_world_create(NULL, &made);
    CHECK(made == NULL);
    return st;
}
static throng_status wc_null_out(fixture *f) {
    (void)f;
    throng_world_def d = throng_world_def_default();
    return throng_world_create(&d, NULL);
}
static throng_status wc_alloc_only(fixture *f) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = f->dims;
    d.allocator.alloc = ts_heap_alloc;
    return call_world_create(f, &d, 0);
}
static throng_status wc_free_only(fixture *f) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = f->dims;
    d.allocator.free = ts_heap_free;
    return call_world_create(f, &d, 0);
}

/* Task hooks that would run a task inline; never called here, since every
 * case below is refused before a step. */
static void *inline_enqueue(throng_task_fn *task, uint32_t items,
                            uint32_t min_range, void *task_context,
                            void *user) {
    (void)min_range;
    (void)user;
    task(0u, items, 0u, task_context);
    return NULL;
}
static void inline_finish(void *task, void *user) {
    (void)task;
    (void)user;
}
/* A def with task hooks: both (with `workers`), or only one of them. */
static throng_status wc_hooks(fixture *f, int enqueue, int finish,
                              uint32_t workers) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = f->dims;
    d.enqueue_task = enqueue ? inline_enqueue : NULL;
    d.finish_task = finish ? inline_finish : NULL;
    d.worker_count = workers;
    return call_world_create(f, &d, 0);
}
static throng_status wc_enqueue_only(fixture *f) {
    return wc_hooks(f, 1, 0, 2u);
}
static throng_status wc_finish_only(fixture *f) {
    return wc_hooks(f, 0, 1, 2u);
}
static throng_status wc_zero_workers(fixture *f) {
    return wc_hooks(f, 1, 1, 0u);
}
static throng_status wc_many_workers(fixture *f) {
    return wc_hooks(f, 1, 1, THRONG_MAX_WORKERS + 1u);
}
static throng_status th_enqueue_only(fixture *f) {
    return throng_world_set_task_hooks(f->w, inline_enqueue, NULL, NULL, 2u);
}
static throng_status th_finish_only(fixture *f) {
    return throng_world_set_task_hooks(f->w, NULL, inline_finish, NULL, 2u);
}
static throng_status th_zero_workers(fixture *f) {
    return throng_world_set_task_hooks(f->w, inline_enqueue, inline_finish,
                                       NULL, 0u);
}
static throng_status th_many_workers(fixture *f) {
    return throng_world_set_task_hooks(f->w, inline_enqueue, inline_finish,
                                       NULL, THRONG_MAX_WORKERS + 1u);
}
static throng_status th_workers_alone(fixture *f) {
    return throng_world_set_task_hooks(f->w, NULL, NULL, NULL, 3u);
}

/* Loading: every refusal creates no world and says why in the def's
 * error buffer. */
static throng_status load_bytes(fixture *f, const void *buffer, size_t bytes,
                                throng_world_load_def *def) {
    throng_world_load_def d = def ? *def : throng_world_load_def_default();
    d.error = f->load_error;
    d.error_capacity = sizeof f->load_error;
    throng_world *made = (throng_world *)&made;
    throng_status st = throng_world_load(buffer, bytes, &d, &made);
    if (made != NULL) {
        runner_fail(__FILE__, __LINE__,
                    "throng_world_load refused (%d) but left a world", st);
        if (st == THRONG_OK)
            throng_world_destroy(made);
    }
    return st;
}

/* The fixture's snapshot, `extra` bytes longer (zeroed). */
static unsigned char *saved(fixture *f, size_t extra, size_t *out_size) {
    size_t size = 0;
    if (throng_world_snapshot_size(f->w, &size) != THRONG_OK)
        return NULL;
    unsigned char *buffer = calloc(1, size + extra);
    if (buffer && throng_world_save(f->w, buffer, size, NULL) != THRONG_OK) {
        free(buffer);
        return NULL;
    }
    *out_size = size;
    return buffer;
}

/* The format's checksum (64-bit FNV-1a over every byte but 32..39), so a
 * changed header field is refused for what it says, not the checksum. */
static void reseal(unsigned char *s, size_t size) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < size; i++) {
        if (i >= 32u && i < 40u)
            continue;
        h ^= s[i];
        h *= 0x100000001B3ull;
    }
    for (int k = 0; k < 8; k++)
        s[32 + k] = (unsigned char)(h >> (8 * k));
}

static throng_status ld_null_buffer(fixture *f) {
    return load_bytes(f, NULL, 64u, NULL);
}
static throng_status ld_null_out(fixture *f) {
    throng_world_load_def d = throng_world_load_def_default();
    d.error = f->load_error;
    d.error_capacity = sizeof f->load_error;
    return throng_world_load(fix_path_points, sizeof fix_path_points, &d, NULL);
}
static throng_status ld_zero_bytes(fixture *f) {
    return load_bytes(f, fix_path_points, 0u, NULL);
}
static throng_status ld_garbage(fixture *f) {
    return load_bytes(f, fix_path_points, sizeof fix_path_points, NULL);
}
/* Damage applied to a whole snapshot: 0 cut the last byte, 1 one byte
 * too many, 2 a flipped payload byte, 3 a newer version, 4 a length in
 * the header that differs from the buffer's, 5 the length of the header
 * alone. */
static throng_status ld_damaged(fixture *f, int how) {
    size_t size = 0;
    unsigned char *s = saved(f, 1u, &size);
    if (!s)
        return THRONG_OK;
    size_t bytes = size;
    switch (how) {
    case 0:
        bytes = size - 1u;
        break;
    case 1:
        bytes = size + 1u;
        break;
    case 2:
        s[size / 2u] ^= 0x10u;
        break;
    case 3:
        s[8] = (unsigned char)(THRONG_SNAPSHOT_VERSION + 1u);
        reseal(s, size);
        break;
    case 4:
        s[24] ^= 0x01u;
        reseal(s, size);
        break;
    default:
        bytes = 40u;
        break;
    }
    throng_status st = load_bytes(f, s, bytes, NULL);
    free(s);
    return st;
}
static throng_status ld_truncated(fixture *f) {
    return ld_damaged(f, 0);
}
static throng_status ld_too_long(fixture *f) {
    return ld_damaged(f, 1);
}
static throng_status ld_flipped(fixture *f) {
    return ld_damaged(f, 2);
}
static throng_status ld_newer(fixture *f) {
    return ld_damaged(f, 3);
}
static throng_status ld_length(fixture *f) {
    return ld_damaged(f, 4);
}
static throng_status ld_header_only(fixture *f) {
    return ld_damaged(f, 5);
}
static throng_status ld_half_allocator(fixture *f) {
    size_t size = 0;
    unsigned char *s = saved(f, 0u, &size);
    if (!s)
        return THRONG_OK;
    throng_world_load_def d = throng_world_load_def_default();
    d.allocator.alloc = ts_heap_alloc;
    throng_status st = load_bytes(f, s, size, &d);
    free(s);
    return st;
}
static throng_status load_file(fixture *f, const char *path) {
    throng_world_load_def d = throng_world_load_def_default();
    d.error = f->load_error;
    d.error_capacity = sizeof f->load_error;
    throng_world *made = (throng_world *)&made;
    throng_status st = throng_world_load_file(path, &d, &made);
    CHECK(made == NULL);
    if (made && made != (throng_world *)&made)
        throng_world_destroy(made);
    return st;
}
static throng_status lf_null_path(fixture *f) {
    return load_file(f, NULL);
}
static throng_status lf_missing(fixture *f) {
    return load_file(f, "/nonexistent-directory-of-throng/x.snap");
}
static throng_status lf_null_out(fixture *f) {
    throng_world_load_def d = throng_world_load_def_default();
    d.error = f->load_error;
    d.error_capacity = sizeof f->load_error;
    return throng_world_load_file("x.snap", &d, NULL);
}
static throng_status lf_half_allocator(fixture *f) {
    throng_world_load_def d = throng_world_load_def_default();
    d.error = f->load_error;
    d.error_capacity = sizeof f->load_error;
    d.allocator.free = ts_heap_free;
    throng_world *made = NULL;
    return throng_world_load_file("x.snap", &d, &made);
}
/* A file that is not a snapshot: this source file's own directory. */
static throng_status lf_directory(fixture *f) {
    return load_file(f, ".");
}

#define N THRONG_ERR_NULL
#define H(what, fn, call, want, flags)                                         \
    {                                                                          \
        what, fn, want, flags, call, NULL, 0, 0, 0.0f, 0, 0, NULL, NULL, NULL, \
            0, 0                                                               \
    }
#define NW(fn, call) H("NULL world", fn, call, N, IN_BOTH | NO_WORLD)
#define NP(what, fn, call) H(what " NULL", fn, call, N, IN_BOTH)

static const bad_case hand_cases[] = {
    NW("throng_world_step", nw_step),
    NW("throng_world_set_threads", nw_threads),
    NW("throng_world_set_step_limits", nw_step_limits),
    NW("throng_world_set_task_hooks", nw_task_hooks),
    NW("throng_world_set_stable_columns", nw_stable_columns),
    NW("throng_world_stats", nw_stats),
    NW("throng_world_columns", nw_columns),
    NW("throng_agent_add", nw_agent_add),
    NW("throng_agent_remove", nw_agent_remove),
    NW("throng_agent_find", nw_agent_find),
    NW("throng_agent_index", nw_agent_index),
    NW("throng_agent_rebind", nw_agent_rebind),
    NW("throng_object_rebind", nw_object_rebind),
    NW("throng_agent_at", nw_agent_at),
    NW("throng_agent_get_def", nw_get_def),
    NW("throng_agent_get_position", nw_get_position),
    NW("throng_agent_set_position", nw_set_position),
    NW("throng_agent_get_velocity", nw_get_velocity),
    NW("throng_agent_set_velocity", nw_set_velocity),
    NW("throng_agent_get_basis", nw_get_basis),
    NW("throng_agent_get_mass", nw_get_mass),
    NW("throng_agent_set_mass", nw_set_mass),
    NW("throng_agent_get_max_force", nw_get_max_force),
    NW("throng_agent_set_max_force", nw_set_max_force),
    NW("throng_agent_get_max_speed", nw_get_max_speed),
    NW("throng_agent_set_max_speed", nw_set_max_speed),
    NW("throng_agent_get_radius", nw_get_radius),
    NW("throng_agent_set_radius", nw_set_radius),
    NW("throng_agent_get_group", nw_get_group),
    NW("throng_agent_set_group", nw_set_group),
    NW("throng_agent_get_host_key", nw_get_host_key),
    NW("throng_agent_set_host_key", nw_set_host_key),
    NW("throng_agent_set_target_point", nw_set_target_point),
    NW("throng_agent_get_target_point", nw_get_target_point),
    NW("throng_agent_set_target_agent", nw_set_target_agent),
    NW("throng_agent_get_target_agent", nw_get_target_agent),
    NW("throng_agent_set_progress", nw_set_progress),
    NW("throng_agent_get_progress", nw_get_progress),
    NW("throng_group_create", nw_group_create),
    NW("throng_group_find", nw_group_find),
    NW("throng_group_get_flocking", nw_get_flocking),
    NW("throng_group_set_flocking", nw_set_flocking),
    NW("throng_group_set_combine", nw_set_combine),
    NW("throng_group_get_wander", nw_get_wander),
    NW("throng_group_set_wander", nw_set_wander),
    NW("throng_group_add_behaviour", nw_add_behaviour),
    NW("throng_group_set_behaviour", nw_set_behaviour),
    NW("throng_group_get_behaviour", nw_get_behaviour),
    NW("throng_group_behaviour_count", nw_behaviour_count),
    NW("throng_group_clear_behaviours", nw_clear_behaviours),
    NW("throng_world_query_radius", nw_query),
    NW("throng_obstacle_add", nw_obstacle),
    NW("throng_wall_add", nw_wall),
    NW("throng_path_add", nw_path),
    NW("throng_flow_field_add", nw_flow),
    NW("throng_world_default_group", nw_default_group),
    NW("throng_group_remove", nw_group_remove),
    NW("throng_group_rebind", nw_group_rebind),
    NW("throng_object_remove", nw_object_remove),
    NW("throng_object_get", nw_object_get),
    NW("throng_world_object_at", nw_object_at),
    NW("throng_world_snapshot_size", nw_snapshot_size),
    NW("throng_world_save", nw_save),
    NW("throng_world_save_file", nw_save_file),
    NW("throng_nav_field_add", nw_nav_add),
    NW("throng_nav_field_sample", nw_nav_sample),
    NW("throng_nav_field_distances", nw_nav_distances),
    NW("throng_nav_field_get", nw_nav_get),
    NW("throng_nav_field_set_costs", nw_nav_set_costs),
    NW("throng_nav_field_update", nw_nav_update),
    NW("throng_nav_field_count_agents", nw_nav_count_agents),
    NW("throng_nav_field_supply_counts", nw_nav_supply_counts),
    NW("throng_agent_set_nav_field", nw_set_nav_field),
    NW("throng_agent_get_nav", nw_get_nav),
    NW("throng_world_nav_arrivals", nw_nav_arrivals),

    NP("out_stats", "throng_world_stats", np_stats),
    NP("out_columns", "throng_world_columns", np_columns),
    NP("def", "throng_agent_add", np_agent_add_def),
    NP("out_agent", "throng_agent_add", np_agent_add_out),
    NP("out_agent", "throng_agent_find", np_agent_find),
    NP("out_index", "throng_agent_index", np_agent_index),
    NP("out_agent", "throng_agent_rebind", np_agent_rebind),
    NP("out_object", "throng_object_rebind", np_object_rebind),
    NP("out_agent", "throng_agent_at", np_agent_at),
    NP("out_def", "throng_agent_get_def", np_get_def),
    NP("out", "throng_agent_get_position", np_get_position),
    NP("position", "throng_agent_set_position", np_set_position),
    NP("out", "throng_agent_get_velocity", np_get_velocity),
    NP("velocity", "throng_agent_set_velocity", np_set_velocity),
    NP("forward", "throng_agent_get_basis", np_basis_forward),
    NP("up", "throng_agent_get_basis", np_basis_up),
    NP("side", "throng_agent_get_basis", np_basis_side),
    NP("out", "throng_agent_get_mass", np_get_mass),
    NP("out", "throng_agent_get_max_force", np_get_max_force),
    NP("out", "throng_agent_get_max_speed", np_get_max_speed),
    NP("out", "throng_agent_get_radius", np_get_radius),
    NP("out", "throng_agent_get_group", np_get_group),
    NP("out", "throng_agent_get_host_key", np_get_host_key),
    NP("point", "throng_agent_set_target_point", np_set_target_point),
    NP("out", "throng_agent_get_target_point", np_get_target_point),
    NP("out", "throng_agent_get_target_agent", np_get_target_agent),
    NP("out", "throng_agent_get_progress", np_get_progress),
    NP("def", "throng_group_create", np_group_create_def),
    NP("out_group", "throng_group_create", np_group_create_out),
    NP("name", "throng_group_find", np_group_find_name),
    NP("out_group", "throng_group_find", np_group_find_out),
    NP("out", "throng_group_get_flocking", np_get_flocking),
    NP("flocking", "throng_group_set_flocking", np_set_flocking),
    NP("out", "throng_group_get_wander", np_get_wander),
    NP("wander", "throng_group_set_wander", np_set_wander),
    NP("behaviour", "throng_group_add_behaviour", np_add_behaviour),
    NP("behaviour", "throng_group_set_behaviour", np_set_behaviour),
    NP("out", "throng_group_get_behaviour", np_get_behaviour),
    NP("out", "throng_group_behaviour_count", np_behaviour_count),
    NP("point", "throng_world_query_radius", np_query_point),
    NP("out_count", "throng_world_query_radius", np_query_count),
    NP("out (capacity 4)", "throng_world_query_radius", np_query_out),
    NP("def", "throng_obstacle_add", np_obstacle_def),
    NP("out_object", "throng_obstacle_add", np_obstacle_out),
    NP("def", "throng_wall_add", np_wall_def),
    NP("out_object", "throng_wall_add", np_wall_out),
    NP("def", "throng_path_add", np_path_def),
    NP("def->points", "throng_path_add", np_path_points),
    NP("out_object", "throng_path_add", np_path_out),
    NP("def", "throng_flow_field_add", np_flow_def),
    NP("def->vectors", "throng_flow_field_add", np_flow_vectors),
    NP("out_object", "throng_flow_field_add", np_flow_out),
    NP("out_group", "throng_world_default_group", np_default_group),
    NP("out", "throng_group_rebind", np_group_rebind),
    NP("out", "throng_object_get", np_object_get),
    NP("out", "throng_world_object_at", np_object_at),
    NP("out_bytes", "throng_world_snapshot_size", np_snapshot_size),
    NP("buffer (capacity 64)", "throng_world_save", np_save_buffer),
    NP("path", "throng_world_save_file", np_save_file),
    NP("def", "throng_nav_field_add", np_nav_def),
    NP("def->goals", "throng_nav_field_add", np_nav_goals),
    NP("out_object", "throng_nav_field_add", np_nav_out),
    NP("point", "throng_nav_field_sample", np_nav_point),
    NP("out", "throng_nav_field_sample", np_nav_sample_out),
    NP("out (capacity 16)", "throng_nav_field_distances", np_nav_distances),
    NP("out (capacity 16)", "throng_nav_field_count_agents",
       np_nav_count_agents),
    NP("out", "throng_nav_field_get", np_nav_get),
    NP("out", "throng_agent_get_nav", np_get_nav),
    NP("out_count", "throng_world_nav_arrivals", np_nav_arrivals_count),
    NP("out (capacity 4)", "throng_world_nav_arrivals", np_nav_arrivals_out),

    H("index = agent count", "throng_agent_at", ix_agent_at_count, R, IN_BOTH),
    H("index = UINT32_MAX", "throng_agent_at", ix_agent_at_max, R, IN_BOTH),
    H("index = object count", "throng_world_object_at", ix_object_at_count, R,
      IN_BOTH),
    H("index = UINT32_MAX", "throng_world_object_at", ix_object_at_max, R,
      IN_BOTH),
    H("index = behaviour count", "throng_group_get_behaviour", ix_get_behaviour,
      R, IN_BOTH),
    H("index = UINT32_MAX", "throng_group_get_behaviour", ix_get_behaviour_max,
      R, IN_BOTH),
    H("index 0 of an empty list", "throng_group_get_behaviour",
      ix_get_behaviour_empty, R, IN_BOTH),
    H("index = behaviour count", "throng_group_set_behaviour", ix_set_behaviour,
      R, IN_BOTH),
    H("a full list", "throng_group_add_behaviour", ix_add_behaviour_full,
      THRONG_ERR_CAPACITY, IN_BOTH),
    H("kind 99 from throng_behaviour_default", "throng_group_add_behaviour",
      ix_behaviour_unknown_kind, R, IN_BOTH),
    H("kind 0 from throng_behaviour_default", "throng_group_set_behaviour",
      ix_behaviour_zero_kind, R, IN_BOTH),
    H("patrol on a sphere", "throng_group_add_behaviour", ix_path_is_sphere,
      THRONG_ERR_STALE_HANDLE, IN_BOTH),
    H("follow path on a flow field", "throng_group_set_behaviour",
      ix_path_is_flow, THRONG_ERR_STALE_HANDLE, IN_BOTH),
    H("follow flow on a path", "throng_group_add_behaviour", ix_flow_is_path,
      THRONG_ERR_STALE_HANDLE, IN_BOTH),
    H("follow nav on a flow field", "throng_group_add_behaviour",
      ix_nav_is_flow, THRONG_ERR_STALE_HANDLE, IN_BOTH),
    H("a goal inside the sphere", "throng_nav_field_add", ix_nav_goal_inside,
      THRONG_ERR_INVALID_ARG, IN_BOTH),
    H("every cell but the goal's impassable", "throng_nav_field_add",
      ix_nav_unreachable, THRONG_ERR_INVALID_ARG, IN_BOTH),
    H("capacity below the cells", "throng_nav_field_distances",
      ix_nav_distances_short, THRONG_ERR_CAPACITY, IN_BOTH),
    H("capacity below the cells", "throng_nav_field_count_agents",
      ix_nav_count_agents_short, THRONG_ERR_CAPACITY, IN_BOTH),
    H("a field that does not count", "throng_nav_field_supply_counts",
      ix_nav_supply_not_counting, THRONG_ERR_INVALID_ARG, IN_BOTH),
    H("a cost of 1e-3", "throng_nav_field_set_costs", ix_nav_cost_low, R,
      IN_BOTH),
    H("a cost of NaN", "throng_nav_field_set_costs", ix_nav_cost_nan,
      THRONG_ERR_NOT_FINITE, IN_BOTH),
    H("a sphere as the agent's field", "throng_agent_set_nav_field",
      ix_nav_field_sphere, THRONG_ERR_STALE_HANDLE, IN_BOTH),
    H("a removed object as the agent's field", "throng_agent_set_nav_field",
      ix_nav_field_gone, THRONG_ERR_STALE_HANDLE, IN_BOTH),
    H("another world's object as the agent's field",
      "throng_agent_set_nav_field", ix_nav_field_foreign,
      THRONG_ERR_STALE_HANDLE, IN_BOTH),
    H("empty name", "throng_group_create", ix_group_name_empty, R, IN_BOTH),
    H("64-byte name", "throng_group_create", ix_group_name_long, R, IN_BOTH),
    H("name in use", "throng_group_create", ix_group_name_taken,
      THRONG_ERR_DUPLICATE_KEY, IN_BOTH),
    H("name \"default\"", "throng_group_create", ix_group_name_default,
      THRONG_ERR_DUPLICATE_KEY, IN_BOTH),
    H("unknown name", "throng_group_find", ix_group_find_unknown,
      THRONG_ERR_NOT_FOUND, IN_BOTH),
    H("empty name", "throng_group_find", ix_group_find_empty,
      THRONG_ERR_NOT_FOUND, IN_BOTH),
    H("64-byte name", "throng_group_find", ix_group_find_long,
      THRONG_ERR_NOT_FOUND, IN_BOTH),
    H("unknown key", "throng_agent_find", ix_agent_find_unknown,
      THRONG_ERR_NOT_FOUND, IN_BOTH),
    H("key 0", "throng_agent_find", ix_agent_find_zero, THRONG_ERR_NOT_FOUND,
      IN_BOTH),
    H("a removed agent's key", "throng_agent_find", ix_agent_find_removed,
      THRONG_ERR_NOT_FOUND, IN_BOTH),
    H("another agent's key", "throng_agent_set_host_key", ix_host_key_taken,
      THRONG_ERR_DUPLICATE_KEY, IN_BOTH),
    H("the agent itself", "throng_agent_set_target_agent", ix_target_self, R,
      IN_BOTH),
    H("a segment in 3D", "throng_wall_add", ix_segment_in_3d, R, IN_3D),
    H("the default group", "throng_group_remove", ix_remove_default,
      THRONG_ERR_INVALID_ARG, IN_BOTH),
    H("a group agents belong to", "throng_group_remove", ix_remove_in_use,
      THRONG_ERR_INVALID_ARG, IN_BOTH),
    H("a sphere's min", "throng_obstacle_add", ux_sphere_min,
      THRONG_ERR_INVALID_ARG, IN_BOTH),
    H("a sphere's max", "throng_obstacle_add", ux_sphere_max,
      THRONG_ERR_INVALID_ARG, IN_BOTH),
    H("a box's center", "throng_obstacle_add", ux_box_center,
      THRONG_ERR_INVALID_ARG, IN_BOTH),
    H("a box's radius", "throng_obstacle_add", ux_box_radius,
      THRONG_ERR_INVALID_ARG, IN_BOTH),
    H("a segment's point", "throng_wall_add", ux_segment_point,
      THRONG_ERR_INVALID_ARG, IN_2D),
    H("a segment's normal", "throng_wall_add", ux_segment_normal,
      THRONG_ERR_INVALID_ARG, IN_2D),
    H("a plane's a", "throng_wall_add", ux_plane_a, THRONG_ERR_INVALID_ARG,
      IN_BOTH),
    H("a plane's b", "throng_wall_add", ux_plane_b, THRONG_ERR_INVALID_ARG,
      IN_BOTH),
    H("a plane as an obstacle's kind", "throng_obstacle_add", ux_obstacle_kind,
      R, IN_BOTH),
    H("a sphere as a wall's kind", "throng_wall_add", ux_wall_kind, R, IN_BOTH),

    H("capacity 0", "throng_world_save", sv_zero_capacity, THRONG_ERR_CAPACITY,
      IN_BOTH),
    H("capacity one byte short", "throng_world_save", sv_short_buffer,
      THRONG_ERR_CAPACITY, IN_BOTH),
    H("capacity 1", "throng_world_save", sv_one_byte, THRONG_ERR_CAPACITY,
      IN_BOTH),
    H("missing directory", "throng_world_save_file", sv_file_no_dir,
      THRONG_ERR_IO, IN_BOTH),
    H("empty path", "throng_world_save_file", sv_file_empty_path, THRONG_ERR_IO,
      IN_BOTH),

    H("NULL def", "throng_world_create", wc_null_def, N, IN_BOTH | NO_WORLD),
    H("NULL out_world", "throng_world_create", wc_null_out, N,
      IN_BOTH | NO_WORLD),
    H("alloc without free", "throng_world_create", wc_alloc_only, N,
      IN_BOTH | NO_WORLD),
    H("free without alloc", "throng_world_create", wc_free_only, N,
      IN_BOTH | NO_WORLD),
    H("enqueue_task without finish_task", "throng_world_create",
      wc_enqueue_only, N, IN_BOTH | NO_WORLD),
    H("finish_task without enqueue_task", "throng_world_create", wc_finish_only,
      N, IN_BOTH | NO_WORLD),
    H("task hooks, worker_count 0", "throng_world_create", wc_zero_workers, R,
      IN_BOTH | NO_WORLD),
    H("task hooks, worker_count 1025", "throng_world_create", wc_many_workers,
      R, IN_BOTH | NO_WORLD),
    H("enqueue_task without finish_task", "throng_world_set_task_hooks",
      th_enqueue_only, N, IN_BOTH),
    H("finish_task without enqueue_task", "throng_world_set_task_hooks",
      th_finish_only, N, IN_BOTH),
    H("worker_count 0", "throng_world_set_task_hooks", th_zero_workers, R,
      IN_BOTH),
    H("worker_count 1025", "throng_world_set_task_hooks", th_many_workers, R,
      IN_BOTH),
    H("worker_count without hooks", "throng_world_set_task_hooks",
      th_workers_alone, R, IN_BOTH),

    H("NULL buffer", "throng_world_load", ld_null_buffer, N,
      IN_BOTH | LOAD_ERROR),
    H("NULL out_world", "throng_world_load", ld_null_out, N,
      IN_BOTH | LOAD_ERROR),
    H("0 bytes", "throng_world_load", ld_zero_bytes, THRONG_ERR_BAD_SNAPSHOT,
      IN_BOTH | LOAD_ERROR),
    H("not a snapshot", "throng_world_load", ld_garbage,
      THRONG_ERR_BAD_SNAPSHOT, IN_BOTH | LOAD_ERROR),
    H("one byte short", "throng_world_load", ld_truncated,
      THRONG_ERR_BAD_SNAPSHOT, IN_BOTH | LOAD_ERROR),
    H("one byte too many", "throng_world_load", ld_too_long,
      THRONG_ERR_BAD_SNAPSHOT, IN_BOTH | LOAD_ERROR),
    H("a flipped byte", "throng_world_load", ld_flipped,
      THRONG_ERR_BAD_SNAPSHOT, IN_BOTH | LOAD_ERROR),
    H("a newer version", "throng_world_load", ld_newer, THRONG_ERR_VERSION,
      IN_BOTH | LOAD_ERROR),
    H("a wrong length in the header", "throng_world_load", ld_length,
      THRONG_ERR_BAD_SNAPSHOT, IN_BOTH | LOAD_ERROR),
    H("the header alone", "throng_world_load", ld_header_only,
      THRONG_ERR_BAD_SNAPSHOT, IN_BOTH | LOAD_ERROR),
    H("alloc without free", "throng_world_load", ld_half_allocator, N,
      IN_BOTH | LOAD_ERROR),
    H("NULL path", "throng_world_load_file", lf_null_path, N,
      IN_BOTH | LOAD_ERROR),
    H("NULL out_world", "throng_world_load_file", lf_null_out, N,
      IN_BOTH | LOAD_ERROR),
    H("missing file", "throng_world_load_file", lf_missing, THRONG_ERR_IO,
      IN_BOTH | LOAD_ERROR),
    H("free without alloc", "throng_world_load_file", lf_half_allocator, N,
      IN_BOTH | LOAD_ERROR),
    H("a directory", "throng_world_load_file", lf_directory, THRONG_ERR_IO,
      IN_BOTH | LOAD_ERROR),
};

/* ------------------------------------------------------------------------ */
/* Handle and group-id sweeps                                               */
/* ------------------------------------------------------------------------ */

/* Every function that takes an agent handle, with that handle bad. */
typedef struct agent_fn {
    const char *fn;
    throng_status (*call)(fixture *f, throng_agent h);
    int null_ok; /* the null handle means "none" here */
} agent_fn;

#define AGENT_FN(id, expr)                                \
    static throng_status id(fixture *f, throng_agent h) { \
        return (expr);                                    \
    }
AGENT_FN(ah_remove, throng_agent_remove(f->w, h))
AGENT_FN(ah_index, throng_agent_index(f->w, h, &f->u32))
AGENT_FN(ah_rebind, throng_agent_rebind(f->w, h, &f->out_agent))
AGENT_FN(ah_get_def, throng_agent_get_def(f->w, h, &(throng_agent_def){ 0 }))
AGENT_FN(ah_get_position, throng_agent_get_position(f->w, h, f->v3))
AGENT_FN(ah_set_position, throng_agent_set_position(f->w, h, fix_point))
AGENT_FN(ah_get_velocity, throng_agent_get_velocity(f->w, h, f->v3))
AGENT_FN(ah_set_velocity, throng_agent_set_velocity(f->w, h, fix_point))
AGENT_FN(ah_get_basis, throng_agent_get_basis(f->w, h, f->v3, f->up, f->side))
AGENT_FN(ah_get_mass, throng_agent_get_mass(f->w, h, &f->f))
AGENT_FN(ah_set_mass, throng_agent_set_mass(f->w, h, 2.0f))
AGENT_FN(ah_get_max_force, throng_agent_get_max_force(f->w, h, &f->f))
AGENT_FN(ah_set_max_force, throng_agent_set_max_force(f->w, h, 2.0f))
AGENT_FN(ah_get_max_speed, throng_agent_get_max_speed(f->w, h, &f->f))
AGENT_FN(ah_set_max_speed, throng_agent_set_max_speed(f->w, h, 2.0f))
AGENT_FN(ah_get_radius, throng_agent_get_radius(f->w, h, &f->f))
AGENT_FN(ah_set_radius, throng_agent_set_radius(f->w, h, 2.0f))
AGENT_FN(ah_get_group, throng_agent_get_group(f->w, h, &f->out_group))
AGENT_FN(ah_set_group, throng_agent_set_group(f->w, h, THRONG_NULL_GROUP))
AGENT_FN(ah_get_host_key, throng_agent_get_host_key(f->w, h, &f->u64))
AGENT_FN(ah_set_host_key, throng_agent_set_host_key(f->w, h, 55u))
AGENT_FN(ah_set_target_point, throng_agent_set_target_point(f->w, h, fix_point))
AGENT_FN(ah_get_target_point, throng_agent_get_target_point(f->w, h, f->v3))
AGENT_FN(ah_set_target_agent, throng_agent_set_target_agent(f->w, h, f->second))
AGENT_FN(ah_set_target_agent_target,
         throng_agent_set_target_agent(f->w, f->agent, h))
AGENT_FN(ah_get_target_agent,
         throng_agent_get_target_agent(f->w, h, &f->out_agent))
AGENT_FN(ah_set_progress, throng_agent_set_progress(f->w, h, 2u))
AGENT_FN(ah_get_progress, throng_agent_get_progress(f->w, h, &f->u32))
AGENT_FN(ah_set_nav_field, throng_agent_set_nav_field(f->w, h, f->nav))
AGENT_FN(ah_get_nav, throng_agent_get_nav(f->w, h, &(throng_agent_nav){ 0 }))

static const agent_fn agent_fns[] = {
    { "throng_agent_remove", ah_remove, 0 },
    { "throng_agent_index", ah_index, 0 },
    { "throng_agent_rebind", ah_rebind, 0 },
    { "throng_agent_get_def", ah_get_def, 0 },
    { "throng_agent_get_position", ah_get_position, 0 },
    { "throng_agent_set_position", ah_set_position, 0 },
    { "throng_agent_get_velocity", ah_get_velocity, 0 },
    { "throng_agent_set_velocity", ah_set_velocity, 0 },
    { "throng_agent_get_basis", ah_get_basis, 0 },
    { "throng_agent_get_mass", ah_get_mass, 0 },
    { "throng_agent_set_mass", ah_set_mass, 0 },
    { "throng_agent_get_max_force", ah_get_max_force, 0 },
    { "throng_agent_set_max_force", ah_set_max_force, 0 },
    { "throng_agent_get_max_speed", ah_get_max_speed, 0 },
    { "throng_agent_set_max_speed", ah_set_max_speed, 0 },
    { "throng_agent_get_radius", ah_get_radius, 0 },
    { "throng_agent_set_radius", ah_set_radius, 0 },
    { "throng_agent_get_group", ah_get_group, 0 },
    { "throng_agent_set_group", ah_set_group, 0 },
    { "throng_agent_get_host_key", ah_get_host_key, 0 },
    { "throng_agent_set_host_key", ah_set_host_key, 0 },
    { "throng_agent_set_target_point", ah_set_target_point, 0 },
    { "throng_agent_get_target_point", ah_get_target_point, 0 },
    { "throng_agent_set_target_agent", ah_set_target_agent, 0 },
    { "throng_agent_set_target_agent", ah_set_target_agent_target, 1 },
    { "throng_agent_get_target_agent", ah_get_target_agent, 0 },
    { "throng_agent_set_progress", ah_set_progress, 0 },
    { "throng_agent_get_progress", ah_get_progress, 0 },
    { "throng_agent_set_nav_field", ah_set_nav_field, 0 },
    { "throng_agent_get_nav", ah_get_nav, 0 },
};

/* The bad agent handles. */
static const char *const agent_handle_kinds[] = {
    "null handle",
    "removed agent",
    "forged slot",
    "forged generation",
    "slot and generation without the world's id",
    "slot UINT32_MAX",
    "another world's agent",
    "a live slot and generation under another world's id",
    "a world id never handed out",
};
#define AGENT_HANDLE_KINDS 9
/* The kinds from here on belong to another world, and the sentence must
 * say so. */
#define AGENT_FOREIGN_FIRST 6

static throng_agent bad_agent(const fixture *f, int which) {
    const throng_agent a = f->agent;
    switch (which) {
    case 0:
        return THRONG_NULL_AGENT;
    case 1:
        return f->removed;
    case 2:
        return (throng_agent){ a.slot + 100u, a.generation, a.world };
    case 3:
        return (throng_agent){ a.slot, a.generation + 1u, a.world };
    case 4:
        return (throng_agent){ a.slot, a.generation, 0u };
    case 5:
        return (throng_agent){ UINT32_MAX, a.generation, a.world };
    case 6:
        return f->foreign;
    case 7:
        return (throng_agent){ a.slot, a.generation, f->foreign.world };
    default:
        return (throng_agent){ a.slot, a.generation, UINT64_MAX };
    }
}

/* Every function that takes an object handle, and the behaviours that
 * name one. */
typedef struct object_fn {
    const char *fn;
    throng_status (*call)(fixture *f, throng_object h);
    int kinded; /* needs a particular kind: a sphere is wrong for it */
} object_fn;

static throng_status oh_remove(fixture *f, throng_object h) {
    return throng_object_remove(f->w, h);
}
static throng_status oh_get(fixture *f, throng_object h) {
    return throng_object_get(f->w, h, &(throng_object_info){ 0 });
}
static throng_status oh_rebind(fixture *f, throng_object h) {
    return throng_object_rebind(f->w, h, &f->out_object);
}
static throng_status oh_patrol(fixture *f, throng_object h) {
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_PATROL);
    b.u.path.path = h;
    return throng_group_add_behaviour(f->w, f->group, &b, NULL);
}
static throng_status oh_follow_path(fixture *f, throng_object h) {
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_PATH);
    b.u.path.path = h;
    return throng_group_set_behaviour(f->w, f->group, 2u, &b);
}
static throng_status oh_flow(fixture *f, throng_object h) {
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_FLOW);
    b.u.flow.field = h;
    return throng_group_add_behaviour(f->w, f->group, &b, NULL);
}
static throng_status oh_flow_set(fixture *f, throng_object h) {
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_FLOW);
    b.u.flow.field = h;
    return throng_group_set_behaviour(f->w, f->group, 0u, &b);
}

static throng_status oh_nav_sample(fixture *f, throng_object h) {
    return throng_nav_field_sample(f->w, h, fix_point, &f->nav_sample);
}
static throng_status oh_nav_distances(fixture *f, throng_object h) {
    float out[64];
    return throng_nav_field_distances(f->w, h, out, 64u, &f->u64);
}
static throng_status oh_nav_count_agents(fixture *f, throng_object h) {
    uint32_t out[64];
    return throng_nav_field_count_agents(f->w, h, out, 64u, &f->u64);
}
static throng_status oh_nav_get(fixture *f, throng_object h) {
    return throng_nav_field_get(f->w, h, &(throng_nav_field_info){ 0 });
}
static throng_status oh_nav_set_costs(fixture *f, throng_object h) {
    return throng_nav_field_set_costs(f->w, h, NULL);
}
static throng_status oh_nav_update(fixture *f, throng_object h) {
    return throng_nav_field_update(f->w, h);
}
static throng_status oh_follow_nav(fixture *f, throng_object h) {
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_NAV);
    b.u.nav.field = h;
    return throng_group_add_behaviour(f->w, f->group, &b, NULL);
}

/* The sweeps' functions that take a navigation field. */
static int nav_object_fn(throng_status (*call)(fixture *, throng_object)) {
    return call == oh_nav_sample || call == oh_nav_distances ||
           call == oh_nav_count_agents || call == oh_nav_get ||
           call == oh_nav_set_costs || call == oh_nav_update ||
           call == oh_follow_nav;
}

static const object_fn object_fns[] = {
    { "throng_object_remove", oh_remove, 0 },
    { "throng_object_get", oh_get, 0 },
    { "throng_object_rebind", oh_rebind, 0 },
    { "throng_group_add_behaviour", oh_patrol, 1 },
    { "throng_group_set_behaviour", oh_follow_path, 1 },
    { "throng_group_add_behaviour", oh_flow, 1 },
    { "throng_group_set_behaviour", oh_flow_set, 1 },
    { "throng_nav_field_sample", oh_nav_sample, 1 },
    { "throng_nav_field_distances", oh_nav_distances, 1 },
    { "throng_nav_field_count_agents", oh_nav_count_agents, 1 },
    { "throng_nav_field_get", oh_nav_get, 1 },
    { "throng_nav_field_set_costs", oh_nav_set_costs, 1 },
    { "throng_nav_field_update", oh_nav_update, 1 },
    { "throng_group_add_behaviour", oh_follow_nav, 1 },
};

static const char *const object_handle_kinds[] = {
    "null object",
    "removed object",
    "forged id",
    "forged generation",
    "id UINT32_MAX",
    "a live path without the world's id",
    "another world's object (id unknown here)",
    "another world's path (same id, kind and count)",
    "a live path under another world's id",
    "an object of the wrong kind",
};
#define OBJECT_HANDLE_KINDS 9
#define OBJECT_FOREIGN_FIRST 6
#define OBJECT_FOREIGN_LAST 8

static throng_object bad_object(const fixture *f, int which) {
    const throng_object p = f->path;
    switch (which) {
    case 0:
        return THRONG_NULL_OBJECT;
    case 1:
        return f->gone;
    case 2:
        return (throng_object){ f->gone.id + 100u, 1u, p.world };
    case 3:
        return (throng_object){ p.id, p.generation + 1u, p.world };
    case 4:
        return (throng_object){ UINT32_MAX, 1u, p.world };
    case 5:
        return (throng_object){ p.id, p.generation, 0u };
    case 6:
        return f->foreign_object;
    case 7:
        return f->foreign_path;
    case 8:
        return (throng_object){ p.id, p.generation, f->foreign_path.world };
    default:
        return f->sphere;
    }
}

/* Every function that takes a group id. */
typedef struct group_fn {
    const char *fn;
    throng_status (*call)(fixture *f, throng_group group);
} group_fn;

static throng_status gh_get_flocking(fixture *f, throng_group g) {
    return throng_group_get_flocking(f->w, g, &(throng_flocking){ 0 });
}
static throng_status gh_set_flocking(fixture *f, throng_group g) {
    throng_flocking fl = throng_flocking_default();
    return throng_group_set_flocking(f->w, g, &fl);
}
static throng_status gh_set_combine(fixture *f, throng_group g) {
    return throng_group_set_combine(f->w, g, THRONG_COMBINE_PRIORITY);
}
static throng_status gh_get_wander(fixture *f, throng_group g) {
    return throng_group_get_wander(f->w, g, &(throng_wander){ 0 });
}
static throng_status gh_set_wander(fixture *f, throng_group g) {
    throng_wander wd;
    throng_group_get_wander(f->w, default_group(f->w), &wd);
    return throng_group_set_wander(f->w, g, &wd);
}
static throng_status gh_add_behaviour(fixture *f, throng_group g) {
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_SEEK);
    return throng_group_add_behaviour(f->w, g, &b, NULL);
}
static throng_status gh_set_behaviour(fixture *f, throng_group g) {
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_SEEK);
    return throng_group_set_behaviour(f->w, g, 0u, &b);
}
static throng_status gh_get_behaviour(fixture *f, throng_group g) {
    return throng_group_get_behaviour(f->w, g, 0u, &(throng_behaviour){ 0 });
}
static throng_status gh_behaviour_count(fixture *f, throng_group g) {
    return throng_group_behaviour_count(f->w, g, &f->u32);
}
static throng_status gh_clear_behaviours(fixture *f, throng_group g) {
    return throng_group_clear_behaviours(f->w, g);
}
static throng_status gh_agent_add(fixture *f, throng_group g) {
    throng_agent_def d = throng_agent_def_default();
    d.group = g;
    return throng_agent_add(f->w, &d, &f->out_agent);
}
static throng_status gh_set_group(fixture *f, throng_group g) {
    return throng_agent_set_group(f->w, f->agent, g);
}
static throng_status gh_remove(fixture *f, throng_group g) {
    return throng_group_remove(f->w, g);
}
static throng_status gh_rebind(fixture *f, throng_group g) {
    throng_group out;
    return throng_group_rebind(f->w, g, &out);
}

static const group_fn group_fns[] = {
    { "throng_group_get_flocking", gh_get_flocking },
    { "throng_group_set_flocking", gh_set_flocking },
    { "throng_group_set_combine", gh_set_combine },
    { "throng_group_get_wander", gh_get_wander },
    { "throng_group_set_wander", gh_set_wander },
    { "throng_group_add_behaviour", gh_add_behaviour },
    { "throng_group_set_behaviour", gh_set_behaviour },
    { "throng_group_get_behaviour", gh_get_behaviour },
    { "throng_group_behaviour_count", gh_behaviour_count },
    { "throng_group_clear_behaviours", gh_clear_behaviours },
    { "throng_agent_add", gh_agent_add },
    { "throng_agent_set_group", gh_set_group },
    { "throng_group_remove", gh_remove },
    { "throng_group_rebind", gh_rebind },
};

/* The group handles every group function refuses with
 * THRONG_ERR_STALE_HANDLE: a removed group's, an id never handed out, a
 * live id with the wrong generation, ids at and past THRONG_MAX_GROUPS,
 * a live id without its world, another world's default group, and the
 * null handle (which agents read as the default group: not for them). */
#define BAD_GROUP_COUNT 8
#define BAD_GROUP_NULL 7
static const char *const bad_group_names[BAD_GROUP_COUNT] = {
    "removed group",         "id never handed out", "wrong generation",
    "id THRONG_MAX_GROUPS",  "id UINT32_MAX",       "world 0",
    "another world's group", "null group"
};

static throng_group bad_group(const fixture *f, int which) {
    const throng_group g = f->group;
    switch (which) {
    case 0:
        return f->gone_group;
    case 1:
        return (throng_group){ FIX_GROUP_COUNT + 1u, 1u, g.world };
    case 2:
        return (throng_group){ g.id, g.generation + 1u, g.world };
    case 3:
        return (throng_group){ THRONG_MAX_GROUPS, 1u, g.world };
    case 4:
        return (throng_group){ UINT32_MAX, 1u, g.world };
    case 5:
        return (throng_group){ g.id, g.generation, 0u };
    case 6:
        return default_group(f->other);
    default:
        return THRONG_NULL_GROUP;
    }
}

/* ------------------------------------------------------------------------ */
/* Building and running the cases                                           */
/* ------------------------------------------------------------------------ */

typedef struct case_list {
    bad_case *cases;
    size_t count, capacity;
} case_list;

static void push(case_list *l, const bad_case *c) {
    if (l->count == l->capacity) {
        size_t cap = l->capacity ? 2u * l->capacity : 256u;
        bad_case *grown = realloc(l->cases, cap * sizeof *grown);
        if (!grown)
            return;
        l->cases = grown;
        l->capacity = cap;
    }
    l->cases[l->count++] = *c;
}

static unsigned table_dims(const arg_table *t, unsigned dims) {
    unsigned d = t->flags & IN_BOTH ? t->flags & IN_BOTH : IN_BOTH;
    if (dims)
        d &= dims;
    return d;
}

static void build_cases(case_list *l) {
    for (size_t i = 0; i < COUNT(hand_cases); i++)
        push(l, &hand_cases[i]);

    /* NaN, +Inf and -Inf in every float field. */
    static const float bad_floats[3] = { NAN, INFINITY, -INFINITY };
    for (size_t t = 0; t < COUNT(float_targets); t++) {
        const float_target *ft = &float_targets[t];
        for (size_t k = 0; k < ft->count; k++)
            for (int v = 0; v < 3; v++)
                for (int variant = 0; variant < ft->variants; variant++) {
                    bad_case c;
                    memset(&c, 0, sizeof c);
                    c.what = ft->fields[k].name;
                    c.fn = variant == 1 && ft->table->fn_variant
                               ? ft->table->fn_variant
                               : ft->table->fn;
                    c.want = THRONG_ERR_NOT_FINITE;
                    c.flags = table_dims(ft->table,
                                         ft->fields[k].axis == 2 ? IN_3D : 0u) |
                              (ft->table->flags & NO_WORLD);
                    c.table = ft->table;
                    c.offset = ft->fields[k].offset;
                    c.value = bad_floats[v];
                    c.variant = ft->first_variant + variant;
                    c.which = v; /* for the label */
                    push(l, &c);
                }
    }

    /* Values out of range, in defs and arguments. */
    for (size_t i = 0; i < COUNT(value_cases); i++) {
        const value_case *vc = &value_cases[i];
        int behaviours =
            vc->table >= &T_BEHAVIOUR[0] && vc->table <= &T_BEHAVIOUR[16];
        for (int variant = 0; variant < (behaviours ? 2 : 1); variant++) {
            bad_case c;
            memset(&c, 0, sizeof c);
            c.what = vc->what;
            c.fn = variant == 1 ? vc->table->fn_variant : vc->table->fn;
            c.want = vc->want;
            c.flags =
                table_dims(vc->table, vc->dims) | (vc->table->flags & NO_WORLD);
            c.table = vc->table;
            c.offset = vc->offset;
            c.is_int = vc->is_int;
            c.value = vc->value;
            c.ivalue = vc->ivalue;
            c.variant = behaviours ? variant : vc->variant;
            c.which = -1;
            push(l, &c);
        }
    }

    /* Bad handles and ids everywhere one is taken. */
    for (size_t i = 0; i < COUNT(agent_fns); i++)
        for (int which = 0; which < AGENT_HANDLE_KINDS; which++) {
            if (which == 0 && agent_fns[i].null_ok)
                continue;
            bad_case c;
            memset(&c, 0, sizeof c);
            c.what = agent_handle_kinds[which];
            c.fn = agent_fns[i].fn;
            c.want = THRONG_ERR_STALE_HANDLE;
            c.flags = IN_BOTH;
            c.call_agent = agent_fns[i].call;
            c.which = which;
            c.foreign = which >= AGENT_FOREIGN_FIRST;
            push(l, &c);
        }
    for (size_t i = 0; i < COUNT(object_fns); i++)
        for (int which = 0; which < OBJECT_HANDLE_KINDS; which++) {
            if (which == OBJECT_HANDLE_KINDS - 1 && !object_fns[i].kinded)
                continue;
            bad_case c;
            memset(&c, 0, sizeof c);
            c.what = object_handle_kinds[which];
            c.fn = object_fns[i].fn;
            c.want = THRONG_ERR_STALE_HANDLE;
            c.flags = IN_BOTH;
            c.call_object = object_fns[i].call;
            c.which = which;
            c.foreign =
                which >= OBJECT_FOREIGN_FIRST && which <= OBJECT_FOREIGN_LAST;
            push(l, &c);
        }
    for (size_t i = 0; i < COUNT(group_fns); i++)
        for (int which = 0; which < BAD_GROUP_COUNT; which++) {
            if (which == BAD_GROUP_NULL &&
                strncmp(group_fns[i].fn, "throng_agent_", 13) == 0)
                continue;
            bad_case c;
            memset(&c, 0, sizeof c);
            c.what = bad_group_names[which];
            c.fn = group_fns[i].fn;
            c.want = THRONG_ERR_STALE_HANDLE;
            c.flags = IN_BOTH;
            c.call_group = group_fns[i].call;
            c.which = (int)which;
            push(l, &c);
        }
}

static throng_status perform(fixture *f, const bad_case *c) {
    if (c->call)
        return c->call(f);
    if (c->call_agent)
        return c->call_agent(f, bad_agent(f, c->which));
    if (c->call_object)
        return c->call_object(f, bad_object(f, c->which));
    if (c->call_group)
        return c->call_group(f, bad_group(f, c->which));
    union {
        max_align_t align;
        unsigned char bytes[512];
    } args;
    memset(&args, 0, sizeof args);
    c->table->fill(f, c->table, args.bytes);
    if (c->is_int)
        memcpy(args.bytes + c->offset, &c->ivalue, sizeof c->ivalue);
    else
        memcpy(args.bytes + c->offset, &c->value, sizeof c->value);
    return c->table->call(f, args.bytes, c->variant);
}

static void describe(const bad_case *c, int dims, char *out, size_t size) {
    if (c->table && !c->is_int && c->which >= 0 && c->which < 3) {
        static const char *const names[3] = { "NaN", "+Inf", "-Inf" };
        snprintf(out, size, "%s (%dD, variant %d): %s = %s", c->fn, dims,
                 c->variant, c->what, names[c->which]);
    } else {
        snprintf(out, size, "%s (%dD): %s", c->fn, dims, c->what);
    }
}

/* Runs one case in a fresh fixture; returns 1 when it ran. */
static int run_case(const bad_case *c, int dims) {
    char label[256];
    describe(c, dims, label, sizeof label);
    fixture f;
    if (!fixture_make(&f, dims)) {
        runner_fail(__FILE__, __LINE__, "%s: the fixture failed", label);
        fixture_free(&f);
        return 0;
    }
    fingerprint before = fingerprint_take(f.w);
    throng_status got = perform(&f, c);
    char sentence[256];
    const char *error =
        c->flags & LOAD_ERROR ? f.load_error : throng_world_last_error(f.w);
    snprintf(sentence, sizeof sentence, "%s", error ? error : "");
    fingerprint after = fingerprint_take(f.w);

    if (got != c->want)
        runner_fail(__FILE__, __LINE__, "%s: got %d (%s), want %d (%s)", label,
                    (int)got, throng_status_string(got), (int)c->want,
                    throng_status_string(c->want));
    if (!(c->flags & NO_WORLD)) {
        size_t fn_len = strlen(c->fn);
        if (strncmp(sentence, c->fn, fn_len) != 0 ||
            strncmp(sentence + fn_len, ": ", 2) != 0 ||
            strlen(sentence) < fn_len + 8u)
            runner_fail(__FILE__, __LINE__,
                        "%s: the sentence does not name the function: "
                        "\"%s\"",
                        label, sentence);
    }
    if (c->foreign && !strstr(sentence, "another world"))
        runner_fail(__FILE__, __LINE__,
                    "%s: the sentence does not say the handle is another "
                    "world's: \"%s\"",
                    label, sentence);
    if (!fingerprint_equal(&before, &after))
        runner_fail(__FILE__, __LINE__,
                    "%s: refused but the world changed (hash %#llx -> "
                    "%#llx, agents %u -> %u, objects %u -> %u)",
                    label, (unsigned long long)before.hash,
                    (unsigned long long)after.hash, before.agents, after.agents,
                    before.objects, after.objects);
    free(before.snapshot);
    free(after.snapshot);
    fixture_free(&f);
    return 1;
}

static unsigned bad_input_total;
static int bad_input_printed;

static void run_cases(unsigned dims_flag, int dims) {
    case_list l = { NULL, 0u, 0u };
    build_cases(&l);
    REQUIRE(l.cases != NULL);
    for (size_t i = 0; i < l.count; i++)
        if (l.cases[i].flags & dims_flag)
            bad_input_total += (unsigned)run_case(&l.cases[i], dims);
    free(l.cases);
}

TEST(bad_input_table_2d) {
    run_cases(IN_2D, 2);
}

TEST(bad_input_table_3d) {
    run_cases(IN_3D, 3);
}

/* ------------------------------------------------------------------------ */
/* What has no status to return                                             */
/* ------------------------------------------------------------------------ */

/* Queries that return a value rather than a status, given a NULL world or
 * a bad handle, and the functions without a world at all. */
TEST(bad_input_values_without_status) {
    unsigned cases = 0;
    CHECK(throng_world_agent_count(NULL) == 0u);
    CHECK(throng_world_dimensions(NULL) == 0);
    CHECK(throng_world_step_count(NULL) == 0u);
    CHECK(throng_world_bytes(NULL) == 0u);
    CHECK(throng_world_hash(NULL) == 0u);
    CHECK(throng_world_object_count(NULL) == 0u);
    const char *e = throng_world_last_error(NULL);
    CHECK(e != NULL && strstr(e, "throng_world_last_error") == e);
    throng_world_destroy(NULL);
    CHECK(!throng_agent_valid(NULL, (throng_agent){ 1u, 1u, 1u }));
    CHECK(strcmp(throng_status_string((throng_status)17), "unknown status") ==
          0);
    CHECK(!throng_group_valid(NULL, (throng_group){ 0u, 1u, 1u }));
    CHECK(strcmp(throng_status_string((throng_status)-1), "unknown status") ==
          0);
    CHECK(strcmp(throng_status_string((throng_status)INT32_MAX),
                 "unknown status") == 0);
    /* The SIMD path helpers: values outside the enum, NULL names. */
    CHECK(strcmp(throng_simd_name((throng_simd)7), "unknown") == 0);
    CHECK(strcmp(throng_simd_name((throng_simd)-1), "unknown") == 0);
    CHECK(throng_simd_supported((throng_simd)7) == 0);
    CHECK(throng_simd_supported((throng_simd)-1) == 0);
    throng_simd simd = THRONG_SIMD_AVX2;
    CHECK(throng_simd_from_name(NULL, &simd) == THRONG_ERR_NULL);
    CHECK(throng_simd_from_name("avx2", NULL) == THRONG_ERR_NULL);
    CHECK(throng_simd_from_name("avx3", &simd) == THRONG_ERR_NOT_FOUND);
    CHECK(simd == THRONG_SIMD_AVX2);
    cases += 20;
    /* Each code's sentence is distinct and not the unknown one. */
    for (int s = 0; s <= (int)THRONG_ERR_INVALID_ARG; s++) {
        const char *text = throng_status_string((throng_status)s);
        CHECK(text != NULL && strlen(text) > 1u &&
              strcmp(text, "unknown status") != 0);
        cases++;
    }
    for (int dims = 2; dims <= 3; dims++) {
        fixture f;
        REQUIRE(fixture_make(&f, dims));
        uint64_t hash = throng_world_hash(f.w);
        for (int which = 0; which < AGENT_HANDLE_KINDS; which++) {
            CHECK(!throng_agent_valid(f.w, bad_agent(&f, which)));
            cases++;
        }
        CHECK(throng_agent_valid(f.w, f.agent));
        CHECK(throng_world_dimensions(f.w) == dims);
        CHECK_EQ_U64(throng_world_hash(f.w), hash);
        fixture_free(&f);
    }
    /* A behaviour struct for no kind is refused by the group functions
     * (the table covers that); the default itself is all zeros past the
     * common fields. */
    throng_behaviour none = throng_behaviour_default((throng_behaviour_kind)0);
    CHECK(none.kind == (throng_behaviour_kind)0 && none.weight == 1.0f);
    cases++;
    bad_input_total += cases;
}

/* THRONG_MAX_GROUPS groups: the next create is refused, the world keeps
 * every group it had. */
TEST(bad_input_group_capacity) {
    throng_world_def d = throng_world_def_default();
    throng_world *w = NULL;
    REQUIRE_OK(throng_world_create(&d, &w));
    throng_group_def gd = throng_group_def_default();
    throng_group id = THRONG_NULL_GROUP;
    for (uint32_t i = 1; i < THRONG_MAX_GROUPS; i++)
        REQUIRE_OK(throng_group_create(w, &gd, &id));
    CHECK(id.id == THRONG_MAX_GROUPS - 1u && id.generation == 1u);
    size_t size = 0;
    REQUIRE_OK(throng_world_snapshot_size(w, &size));
    uint64_t hash = throng_world_hash(w);
    const throng_group before = { 777u, 7u, 7u };
    throng_group got = before;
    CHECK_STATUS(throng_group_create(w, &gd, &got), THRONG_ERR_CAPACITY);
    CHECK(same_group(got, before));
    CHECK(strncmp(throng_world_last_error(w), "throng_group_create: ", 21) ==
          0);
    size_t after = 0;
    REQUIRE_OK(throng_world_snapshot_size(w, &after));
    CHECK(after == size);
    CHECK_EQ_U64(throng_world_hash(w), hash);
    const throng_group past = { THRONG_MAX_GROUPS, 1u, throng_world_id(w) };
    CHECK_STATUS(throng_group_get_flocking(w, past, &(throng_flocking){ 0 }),
                 THRONG_ERR_STALE_HANDLE);
    /* A full world takes a group again once one is removed: the freed id,
     * one generation on. */
    const throng_group middle = first_group(w, 1000u);
    CHECK_OK(throng_group_remove(w, middle));
    CHECK_OK(throng_group_create(w, &gd, &got));
    CHECK(got.id == 1000u && got.generation == 2u);
    CHECK(!throng_group_valid(w, middle) && throng_group_valid(w, got));
    throng_world_destroy(w);
    bad_input_total += 2u;
}

/* ------------------------------------------------------------------------ */
/* Controls: the same calls with nothing bad are accepted                   */
/* ------------------------------------------------------------------------ */

/* Without this a case could pass because its fixture or its filled
 * struct was already invalid for the same reason. */
TEST(bad_input_controls_accepted) {
    const float_target *targets = float_targets;
    for (int dims = 2; dims <= 3; dims++) {
        unsigned in = dims == 2 ? IN_2D : IN_3D;
        for (size_t t = 0; t < COUNT(float_targets); t++) {
            if (!(table_dims(targets[t].table, 0u) & in))
                continue;
            for (int variant = 0; variant < targets[t].variants; variant++) {
                fixture f;
                REQUIRE(fixture_make(&f, dims));
                union {
                    max_align_t align;
                    unsigned char bytes[512];
                } args;
                memset(&args, 0, sizeof args);
                targets[t].table->fill(&f, targets[t].table, args.bytes);
                throng_status st = targets[t].table->call(
                    &f, args.bytes, targets[t].first_variant + variant);
                if (st != THRONG_OK)
                    runner_fail(__FILE__, __LINE__,
                                "%s (%dD, variant %d): the valid call gave "
                                "%d: %s",
                                targets[t].table->fn, dims, variant, (int)st,
                                throng_world_last_error(f.w));
                fixture_free(&f);
            }
        }
        fixture f;
        REQUIRE(fixture_make(&f, dims));
        for (size_t i = 0; i < COUNT(agent_fns); i++)
            if (agent_fns[i].call != ah_remove &&
                agent_fns[i].call != ah_set_target_agent) {
                throng_agent h = agent_fns[i].call == ah_set_target_agent_target
                                     ? f.second
                                     : f.agent;
                CHECK_OK(agent_fns[i].call(&f, h));
            }
        for (size_t i = 0; i < COUNT(object_fns); i++)
            if (object_fns[i].call != oh_remove)
                CHECK_OK(object_fns[i].call(
                    &f, object_fns[i].call == oh_get ? f.box
                        : object_fns[i].call == oh_flow ||
                                object_fns[i].call == oh_flow_set
                            ? f.flow
                        : nav_object_fn(object_fns[i].call) ? f.nav
                                                            : f.path));
        CHECK_OK(oh_remove(&f, f.sphere));
        CHECK_OK(ah_set_target_agent(&f, f.agent));
        /* Removal last: the group must be empty, so it gets one of its
         * own; removing it is the control. */
        for (size_t i = 0; i < COUNT(group_fns); i++)
            if (group_fns[i].call != gh_remove)
                CHECK_OK(group_fns[i].call(&f, f.group));
        throng_group_def gd = throng_group_def_default();
        throng_group empty = THRONG_NULL_GROUP;
        CHECK_OK(throng_group_create(f.w, &gd, &empty));
        CHECK(empty.id == f.gone_group.id &&
              empty.generation == f.gone_group.generation + 1u);
        CHECK_OK(gh_remove(&f, empty));
        CHECK_OK(ah_remove(&f, f.agent));
        fixture_free(&f);
    }
}

/* Runs last (registered last): prints the total once. */
TEST(bad_input_count) {
    if (!bad_input_printed && bad_input_total > 0u) {
        printf("bad input: %u cases\n", bad_input_total);
        bad_input_printed = 1;
    }
}

void register_bad_input_tests(void) {
    REGISTER(bad_input_table_2d);
    REGISTER(bad_input_table_3d);
    REGISTER(bad_input_values_without_status);
    REGISTER(bad_input_group_capacity);
    REGISTER(bad_input_controls_accepted);
    REGISTER(bad_input_count);
}
