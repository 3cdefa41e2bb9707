/* SPDX-License-Identifier: MIT */
/*
 * Writes the fuzzers' seed corpus: API programs (fuzz_codec.h) that each
 * exercise one operation, or one behaviour kind in a 2D and a 3D world,
 * and snapshots of small worlds of several kinds (2D and 3D, periodic and
 * unbounded, with groups, behaviours, objects, host keys, removed agents
 * and objects), plus one snapshot of the previous format version (the
 * one tests/test_handles.c loads).
 *
 *     gen_corpus <api dir> <snapshot dir>
 *
 * Deterministic: the same library writes the same files, so regenerating
 * the committed corpus shows as a diff only when the formats change.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "throng.h"
#include "schema.h"
#include "fuzz_codec.h"
#include "../object_defs.h"
#include "../snapshot_v2.h"
#include "../../testsupport/support.h"

/* ------------------------------------------------------------------------ */
/* API programs                                                             */
/* ------------------------------------------------------------------------ */

typedef struct program {
    uint8_t bytes[4096];
    size_t size;
} program;

static void put_u8(program *p, unsigned v) {
    if (p->size < sizeof p->bytes)
        p->bytes[p->size++] = (uint8_t)v;
}

static void put_u32(program *p, uint32_t v) {
    for (unsigned k = 0; k < 4u; k++)
        put_u8(p, (v >> (8u * k)) & 0xFFu);
}

static void put_f(program *p, float x) {
    uint32_t bits, tb;
    memcpy(&bits, &x, sizeof bits);
    for (unsigned k = 0; k < FUZZ_FLOAT_SMALL_BASE; k++) {
        memcpy(&tb, &fuzz_float_table[k], sizeof tb);
        if (tb == bits) {
            put_u8(p, k);
            return;
        }
    }
    float twice = x * 2.0f;
    int small = (int)twice;
    if ((float)small == twice && small >= -104 && small <= 103 && x != 0.0f) {
        put_u8(p, (unsigned)(small + (int)FUZZ_FLOAT_SMALL_ZERO));
        return;
    }
    put_u8(p, FUZZ_FLOAT_RAW);
    put_u32(p, bits);
}

/* The neighbour radius header() gives the world. */
#define NEIGHBOUR_RADIUS 2.0f

static void put_v(program *p, float x, float y, float z) {
    put_f(p, x);
    put_f(p, y);
    put_f(p, z);
}

static void header(program *p, int dims, int periodic) {
    p->size = 0;
    put_u8(p, (dims == 3 ? FUZZ_WORLD_3D : 0u) |
                  (periodic ? FUZZ_WORLD_PERIODIC : 0u));
    put_f(p, NEIGHBOUR_RADIUS);
    put_f(p, 0.0f); /* cell size: the radius */
    put_v(p, 20.0f, 20.0f, 20.0f);
    put_u8(p, 7); /* seed */
    put_u8(p, 0); /* initial capacity */
}

/* The struct of `set` at base (a behaviour of `kind`) as the harness
 * reads it (fuzz_codec.h): each field's components, a default as the
 * default byte, any other value whole; a handle's id is the selector of
 * its object. Then `unread`: 0, or FUZZ_PARAM_UNREAD and more to set a
 * field the kind does not read (to an in-range value). */
static void put_params(program *p, schema_set set, const void *base, int kind,
                       unsigned unread) {
    for (size_t i = 0; i < schema_field_count; i++) {
        const schema_field *f = &schema_fields[i];
        if (!ts_schema_has(f, (int)set, kind))
            continue;
        if (f->type == SCHEMA_OBJECT) {
            put_u8(p, (unsigned)schema_get(f, base, 0));
            continue;
        }
        for (int k = 0; k < f->n; k++) {
            const double x = schema_get(f, base, k);
            if (x == f->dflt) {
                put_u8(p, FUZZ_PARAM_DEFAULT);
            } else if (f->type == SCHEMA_F32) {
                put_u8(p, FUZZ_PARAM_RAW);
                put_f(p, (float)x);
            } else {
                put_u8(p, FUZZ_PARAM_RAW);
                put_u32(p, (uint32_t)(int64_t)x);
            }
        }
    }
    put_u8(p, unread);
    if (unread >= FUZZ_PARAM_UNREAD)
        put_u8(p, 0x40u);
}

/* Object selector bytes after objects(): 0 sphere, 1 box, 2 plane,
 * 3 path, 4 flow, 5 segment. */
#define SEL_PATH 3u
#define SEL_FLOW 4u

/* The object a handle field names, as a handle whose id is its
 * selector. */
static throng_object selector(int kind, void *user) {
    (void)user;
    throng_object o = THRONG_NULL_OBJECT;
    o.id = kind == THRONG_OBJECT_FLOW ? SEL_FLOW : SEL_PATH;
    return o;
}

/* Parameters in range, the same for the same seed. */
static void random_params(schema_set set, void *base, int kind, uint64_t seed) {
    ts_schema_draw d = { &seed, 4.0, NEIGHBOUR_RADIUS, selector, NULL };
    ts_schema_random((int)set, base, kind, &d);
}

/* n agents on a lattice at (x, y), moving along +x. */
static void add_many(program *p, unsigned n, float x, float y) {
    put_u8(p, FUZZ_OP_ADD_MANY);
    put_u8(p, n - 1u);
    put_v(p, x, y, 1.0f);
    put_v(p, 0.5f, 0.5f, 0.0f);
    put_f(p, 1.0f);  /* mass */
    put_f(p, 10.0f); /* max force */
    put_f(p, 2.0f);  /* max speed */
    put_f(p, 0.25f); /* radius */
    put_u8(p, 0);    /* group 0 */
    put_u8(p, 0);    /* host key */
}

static void step(program *p, float dt, unsigned repeat) {
    put_u8(p, FUZZ_OP_STEP);
    put_f(p, dt);
    put_u8(p, repeat - 1u);
}

/* A group with random flocking rules and wander; the first one created
 * is selected by group byte 1. */
static void group_create(program *p, unsigned name) {
    throng_flocking f;
    throng_wander w;
    random_params(SCHEMA_SET_FLOCKING, &f, 0, 100u + name);
    random_params(SCHEMA_SET_WANDER, &w, 0, 200u + name);
    put_u8(p, FUZZ_OP_GROUP_CREATE);
    put_u8(p, name);
    put_u8(p, 1);
    put_params(p, SCHEMA_SET_FLOCKING, &f, 0, 0u);
    put_params(p, SCHEMA_SET_WANDER, &w, 0, 0u);
    put_u8(p, 2); /* priority combine */
}

/* Objects of every kind: sphere, box, plane, path, flow field, and a
 * segment in 2D. */
static void objects(program *p, int dims) {
    put_u8(p, FUZZ_OP_SPHERE);
    put_v(p, 10.0f, 10.0f, 1.0f);
    put_f(p, 1.5f);
    put_u8(p, FUZZ_OP_BOX);
    put_v(p, 3.0f, 3.0f, 0.0f);
    put_v(p, 5.0f, 4.0f, 2.0f);
    put_u8(p, FUZZ_OP_PLANE);
    put_v(p, 0.0f, 0.5f, 0.0f);
    put_v(p, 0.0f, 1.0f, 0.0f);
    put_u8(p, FUZZ_OP_PATH);
    put_u8(p, 4);
    put_f(p, 1.0f);
    put_u8(p, 1);
    put_v(p, 2.0f, 2.0f, 1.0f);
    put_v(p, 15.0f, 2.0f, 1.0f);
    put_v(p, 15.0f, 15.0f, 1.0f);
    put_v(p, 2.0f, 15.0f, 1.0f);
    put_u8(p, FUZZ_OP_FLOW);
    put_v(p, 0.0f, 0.0f, 0.0f);
    put_f(p, 5.0f);
    put_u8(p, 0); /* sizes follow */
    put_u8(p, 3);
    put_u8(p, 3);
    put_u8(p, 2);
    unsigned cells = dims == 3 ? 18u : 9u;
    for (unsigned k = 0; k < cells; k++) {
        put_f(p, k % 2u ? 1.0f : -0.5f);
        put_f(p, 0.5f);
        if (dims == 3)
            put_f(p, 0.0f);
    }
    if (dims == 2) {
        put_u8(p, FUZZ_OP_SEGMENT);
        put_v(p, 8.0f, 0.0f, 0.0f);
        put_v(p, 8.0f, 6.0f, 0.0f);
    }
}

/* A behaviour of `kind` with parameters in range; with `unread`, one
 * field it does not read set too (fuzz_codec.h). */
static void behaviour(program *p, unsigned kind, unsigned unread) {
    throng_behaviour b;
    random_params(SCHEMA_SET_BEHAVIOUR, &b, (int)kind, kind);
    put_u8(p, kind);
    put_u8(p, 1); /* customised */
    put_params(p, SCHEMA_SET_BEHAVIOUR, &b, (int)kind, unread);
}

/* A world of 12 agents in a flocking group with one behaviour, targets
 * set, stepped, saved and loaded, stepped again. */
static void behaviour_program(program *p, unsigned kind, int dims,
                              int periodic) {
    header(p, dims, periodic);
    add_many(p, 12, 6.0f, 6.0f);
    objects(p, dims);
    group_create(p, 1);
    put_u8(p, FUZZ_OP_ADD_BEHAVIOUR);
    put_u8(p, 1);
    behaviour(p, kind, 0u);
    for (unsigned a = 0; a < 12; a++) {
        put_u8(p, FUZZ_OP_SET_GROUP);
        put_u8(p, a);
        put_u8(p, 1);
        put_u8(p, FUZZ_OP_TARGET_AGENT);
        put_u8(p, a);
        put_u8(p, a == 0 ? 1u : 0u);
    }
    put_u8(p, FUZZ_OP_TARGET_POINT);
    put_u8(p, 3);
    put_v(p, 18.0f, 2.0f, 1.0f);
    step(p, 0.1f, 4);
    put_u8(p, FUZZ_OP_SAVE_LOAD);
    put_u8(p, 1);
    step(p, 0.5f, 2);
    put_u8(p, FUZZ_OP_READ);
    put_u8(p, 2);
    put_u8(p, 0);
}

/* One program per operation: a small world, then the operation with
 * ordinary arguments, then a step. */
static void op_program(program *p, unsigned op) {
    header(p, op % 2u ? 3 : 2, op % 3u == 0u);
    add_many(p, 8, 5.0f, 5.0f);
    objects(p, op % 2u ? 3 : 2);
    group_create(p, 0);
    put_u8(p, op);
    switch (op) {
    case FUZZ_OP_ADD:
        put_v(p, 1.0f, 2.0f, 3.0f);
        put_v(p, 100.0f, 0.0f, -1.0f);
        put_f(p, 2.0f);
        put_f(p, 5.0f);
        put_f(p, 3.0f);
        put_f(p, 0.5f);
        put_u8(p, 1);
        put_u8(p, 42);
        break;
    case FUZZ_OP_ADD_MANY:
        put_u8(p, 31);
        put_v(p, 0.0f, 0.0f, 0.0f);
        put_v(p, 1.0f, 0.0f, 0.0f);
        put_f(p, 1.0f);
        put_f(p, 10.0f);
        put_f(p, 1.0f);
        put_f(p, 0.25f);
        put_u8(p, 1);
        put_u8(p, 0);
        break;
    case FUZZ_OP_REMOVE:
        put_u8(p, 2);
        put_u8(p, FUZZ_OP_REMOVE);
        put_u8(p, FUZZ_SELECT_FORGED);
        put_u32(p, 3);
        put_u32(p, 77);
        break;
    case FUZZ_OP_SET_POSITION:
    case FUZZ_OP_SET_VELOCITY:
    case FUZZ_OP_TARGET_POINT:
        put_u8(p, 1);
        put_v(p, 3.5f, -2.0f, 1.0f);
        break;
    case FUZZ_OP_SET_SCALAR:
        put_u8(p, 4);
        put_u8(p, 2);
        put_f(p, 0.5f);
        break;
    case FUZZ_OP_SET_GROUP:
        put_u8(p, 0);
        put_u8(p, 1);
        break;
    case FUZZ_OP_SET_HOST_KEY:
        put_u8(p, 0);
        put_u8(p, 9);
        break;
    case FUZZ_OP_GROUP_CREATE:
        put_u8(p, 3);
        put_u8(p, 0);
        break;
    case FUZZ_OP_SET_FLOCKING: {
        throng_flocking f;
        random_params(SCHEMA_SET_FLOCKING, &f, 0, 300u);
        put_u8(p, 1);
        put_params(p, SCHEMA_SET_FLOCKING, &f, 0, 0u);
        break;
    }
    case FUZZ_OP_SET_WANDER: {
        throng_wander w;
        random_params(SCHEMA_SET_WANDER, &w, 0, 400u);
        put_u8(p, 1);
        put_params(p, SCHEMA_SET_WANDER, &w, 0, 0u);
        break;
    }
    case FUZZ_OP_SET_COMBINE:
        put_u8(p, 1);
        put_u8(p, 1);
        break;
    case FUZZ_OP_ADD_BEHAVIOUR:
        put_u8(p, 1);
        behaviour(p, THRONG_BEHAVIOUR_SEEK, 0u);
        break;
    case FUZZ_OP_SET_BEHAVIOUR:
        /* Something to replace first. */
        p->bytes[p->size - 1u] = FUZZ_OP_ADD_BEHAVIOUR;
        put_u8(p, 1);
        behaviour(p, THRONG_BEHAVIOUR_ARRIVE, 0u);
        put_u8(p, FUZZ_OP_SET_BEHAVIOUR);
        put_u8(p, 1);
        put_u8(p, 0);
        behaviour(p, THRONG_BEHAVIOUR_FLEE, 0u);
        break;
    case FUZZ_OP_CLEAR_BEHAVIOURS:
        put_u8(p, 1);
        break;
    case FUZZ_OP_SPHERE:
        put_v(p, 4.0f, 4.0f, 4.0f);
        put_f(p, 2.0f);
        break;
    case FUZZ_OP_BOX:
    case FUZZ_OP_SEGMENT:
    case FUZZ_OP_PLANE:
        put_v(p, 1.0f, 1.0f, 1.0f);
        put_v(p, 2.0f, 3.0f, 4.0f);
        break;
    case FUZZ_OP_PATH:
        put_u8(p, 3);
        put_f(p, 0.5f);
        put_u8(p, 0);
        put_v(p, 0.0f, 0.0f, 0.0f);
        put_v(p, 5.0f, 0.0f, 0.0f);
        put_v(p, 5.0f, 5.0f, 0.0f);
        break;
    case FUZZ_OP_FLOW:
        put_v(p, -1.0f, -1.0f, -1.0f);
        put_f(p, 2.0f);
        put_u8(p, 0);
        put_u8(p, 2);
        put_u8(p, 2);
        put_u8(p, 2);
        for (unsigned k = 0; k < (op % 2u ? 24u : 8u); k++)
            put_f(p, (float)(k % 5u) - 2.0f);
        break;
    case FUZZ_OP_OBJECT_REMOVE:
        put_u8(p, 1);
        break;
    case FUZZ_OP_TARGET_AGENT:
        put_u8(p, 1);
        put_u8(p, 2);
        break;
    case FUZZ_OP_PROGRESS:
        put_u8(p, 1);
        put_u32(p, 2);
        break;
    case FUZZ_OP_QUERY:
        put_v(p, 5.0f, 5.0f, 1.0f);
        put_f(p, 2.0f);
        put_u8(p, 4);
        break;
    case FUZZ_OP_STEP:
        put_f(p, 1e-6f);
        put_u8(p, 0);
        break;
    case FUZZ_OP_SAVE_LOAD:
        put_u8(p, 1);
        break;
    case FUZZ_OP_THREADS:
        put_u8(p, 1);
        break;
    case FUZZ_OP_READ:
        put_u8(p, 3);
        put_u8(p, 2);
        break;
    case FUZZ_OP_FAIL_ALLOC:
        put_u8(p, 0);
        step(p, 0.1f, 1);
        put_u8(p, FUZZ_OP_FAIL_ALLOC);
        put_u8(p, 1);
        put_u8(p, FUZZ_OP_SAVE_LOAD);
        put_u8(p, 0);
        break;
    default:
        break;
    }
    step(p, 0.1f, 2);
}

/* Every kind once with a field it does not read set (refused), then in
 * range (accepted), in one group. */
static void unread_program(program *p, int dims) {
    header(p, dims, 0);
    add_many(p, 8, 5.0f, 5.0f);
    objects(p, dims);
    group_create(p, 0);
    for (unsigned kind = 1; kind < FUZZ_KIND_COUNT; kind++) {
        put_u8(p, FUZZ_OP_ADD_BEHAVIOUR);
        put_u8(p, 1);
        behaviour(p, kind, FUZZ_PARAM_UNREAD + kind);
        put_u8(p, FUZZ_OP_CLEAR_BEHAVIOURS);
        put_u8(p, 1);
        put_u8(p, FUZZ_OP_ADD_BEHAVIOUR);
        put_u8(p, 1);
        behaviour(p, kind, 0u);
    }
    step(p, 0.1f, 2);
}

/* Steps with the dt values a host gets wrong. */
static void dt_program(program *p) {
    static const float dts[] = { 0.0f,   -0.1f,  NAN,     INFINITY,
                                 1e-30f, 1e-45f, 1000.0f, 1e30f };
    header(p, 2, 1);
    add_many(p, 16, 10.0f, 10.0f);
    for (unsigned k = 0; k < sizeof dts / sizeof dts[0]; k++)
        step(p, dts[k], 1);
}

/* ------------------------------------------------------------------------ */
/* Snapshots                                                                */
/* ------------------------------------------------------------------------ */

static int failed;

static void must(throng_status st, const char *what) {
    if (st != THRONG_OK) {
        fprintf(stderr, "gen_corpus: %s: %s\n", what, throng_status_string(st));
        failed = 1;
    }
}

static void write_file(const char *dir, const char *name, const void *bytes,
                       size_t size) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "gen_corpus: cannot write %s\n", path);
        exit(1);
    }
}

static void save_world(throng_world *w, const char *dir, const char *name) {
    size_t size = 0;
    must(throng_world_snapshot_size(w, &size), "snapshot size");
    void *bytes = malloc(size);
    if (!bytes)
        exit(1);
    must(throng_world_save(w, bytes, size, NULL), "save");
    write_file(dir, name, bytes, size);
    free(bytes);
}

static throng_world *make_world(int dims, int periodic, float box) {
    throng_world_def def = throng_world_def_default();
    def.dimensions = dims;
    def.boundary =
        periodic ? THRONG_BOUNDARY_PERIODIC : THRONG_BOUNDARY_UNBOUNDED;
    def.box_size[0] = def.box_size[1] = def.box_size[2] = box;
    def.neighbour_radius = 2.0f;
    def.seed = 11;
    throng_world *w = NULL;
    must(throng_world_create(&def, &w), "create");
    if (!w)
        exit(1);
    return w;
}

static uint64_t next_key = 100;

static void add_agents(throng_world *w, uint32_t n, throng_group group,
                       throng_agent *out) {
    for (uint32_t k = 0; k < n; k++) {
        throng_agent_def d = throng_agent_def_default();
        d.position[0] = 2.0f + 1.3f * (float)(k % 5u);
        d.position[1] = 2.0f + 1.1f * (float)(k / 5u);
        d.position[2] = 1.0f + 0.5f * (float)(k % 3u);
        d.velocity[0] = 0.3f * (float)(k % 3u);
        d.velocity[1] = -0.2f * (float)(k % 2u);
        d.max_speed = 1.5f;
        d.group = group;
        d.host_key = k % 4u == 0u ? next_key++ : 0u;
        throng_agent h;
        must(throng_agent_add(w, &d, &h), "add");
        if (out)
            out[k] = h;
    }
}

/* The world's route of a handle field's kind (user: the routes by
 * object kind). */
static throng_object route(int kind, void *user) {
    return ((const throng_object *)user)[kind];
}

static void snapshots(const char *dir) {
    throng_world *w = make_world(2, 0, 100.0f);
    save_world(w, dir, "empty-2d.snap");
    throng_world_destroy(w);

    /* A periodic 2D flock with removed agents (free slots) and keys. */
    throng_agent h[40];
    w = make_world(2, 1, 12.0f);
    throng_group g = THRONG_NULL_GROUP;
    throng_group_def gd = throng_group_def_default();
    gd.name = "flock";
    gd.flocking.separation_weight = 1.5f;
    gd.flocking.alignment_weight = 1.0f;
    gd.flocking.cohesion_weight = 0.5f;
    gd.wander.weight = 0.3f;
    must(throng_group_create(w, &gd, &g), "group");
    add_agents(w, 20, g, h);
    must(throng_agent_remove(w, h[3]), "remove");
    must(throng_agent_remove(w, h[11]), "remove");
    for (int k = 0; k < 5; k++)
        must(throng_world_step(w, 0.1f), "step");
    save_world(w, dir, "flock-periodic-2d.snap");
    throng_world_destroy(w);

    /* 3D, every behaviour kind in one group's list or another's, every
     * object kind, one object removed. */
    for (int dims = 2; dims <= 3; dims++) {
        w = make_world(dims, 0, 100.0f);
        throng_object sphere, box, plane, path, flow, gone;
        float c[3] = { 8, 8, 1 }, lo[3] = { 3, 3, 0 }, hi[3] = { 5, 4, 2 };
        float n[3] = { 0, 1, 0 }, p0[3] = { 0, 0.5f, 0 };
        must(add_sphere(w, c, 1.5f, &sphere), "sphere");
        must(add_box(w, lo, hi, &box), "box");
        must(add_plane(w, p0, n, &plane), "plane");
        must(add_sphere(w, lo, 0.5f, &gone), "sphere");
        if (dims == 2) {
            float a[3] = { 12, 0, 0 }, b[3] = { 12, 6, 0 };
            throng_object seg;
            must(add_segment(w, a, b, &seg), "segment");
        }
        float pts[12] = { 2, 2, 1, 10, 2, 1, 10, 10, 1, 2, 10, 1 };
        must(add_path(w, pts, 4, 1.0f, true, &path), "path");
        float vec[2 * 2 * 2 * 3];
        for (unsigned k = 0; k < sizeof vec / sizeof vec[0]; k++)
            vec[k] = k % 2u ? 0.5f : -0.25f;
        throng_flow_field_def fd;
        memset(&fd, 0, sizeof fd);
        fd.cell_size = 5.0f;
        fd.size[0] = fd.size[1] = fd.size[2] = 2;
        fd.vectors = vec;
        must(throng_flow_field_add(w, &fd, &flow), "flow");
        must(throng_object_remove(w, gone), "object remove");
        throng_object nav;
        throng_nav_goal goal;
        memset(&goal, 0, sizeof goal);
        goal.kind = THRONG_NAV_GOAL_POINT;
        goal.a[0] = goal.a[1] = goal.a[2] = 15.0f;
        throng_nav_field_def nd = throng_nav_field_def_default();
        nd.cell_size = 1.0f;
        nd.size[0] = nd.size[1] = 20u;
        nd.size[2] = dims == 3 ? 4u : 1u;
        if (dims == 3)
            goal.a[2] = 2.0f;
        nd.goals = &goal;
        nd.goal_count = 1u;
        nd.density_interval = 2u;
        nd.density_cost = 0.5f;
        must(throng_nav_field_add(w, &nd, &nav), "navigation field");

        throng_group groups[3];
        for (int k = 0; k < 3; k++) {
            throng_group_def d = throng_group_def_default();
            d.combine = (throng_combine_mode)k;
            d.flocking.separation_weight = 1.0f;
            must(throng_group_create(w, &d, &groups[k]), "group");
        }
        throng_object routes[THRONG_OBJECT_NAV + 1] = { 0 };
        routes[THRONG_OBJECT_PATH] = path;
        routes[THRONG_OBJECT_FLOW] = flow;
        routes[THRONG_OBJECT_NAV] = nav;
        ts_schema_draw to_routes = { NULL, 0.0, 0.0f, route, routes };
        for (unsigned kind = 1; kind < FUZZ_KIND_COUNT; kind++) {
            throng_behaviour b =
                throng_behaviour_default((throng_behaviour_kind)kind);
            ts_schema_reroute(&b, &to_routes);
            b.priority = (int32_t)kind % 4;
            must(throng_group_add_behaviour(w, groups[kind % 3u], &b, NULL),
                 "behaviour");
        }
        for (int k = 0; k < 3; k++)
            add_agents(w, 10, groups[k], h + 10 * k);
        for (int k = 1; k < 30; k++)
            must(throng_agent_set_target_agent(w, h[k], h[k - 1]), "target");
        float t[3] = { 9, 9, 1 };
        must(throng_agent_set_target_point(w, h[4], t), "target point");
        must(throng_agent_set_progress(w, h[5], 2), "progress");
        must(throng_agent_remove(w, h[7]), "remove");
        for (int k = 0; k < 4; k++)
            must(throng_world_step(w, 0.1f), "step");
        save_world(w, dir,
                   dims == 2 ? "every-kind-2d.snap" : "every-kind-3d.snap");
        throng_world_destroy(w);
    }

    /* A 3D periodic wanderers' box. */
    w = make_world(3, 1, 9.0f);
    gd = throng_group_def_default();
    gd.wander.weight = 1.0f;
    must(throng_group_create(w, &gd, &g), "group");
    add_agents(w, 15, g, NULL);
    for (int k = 0; k < 3; k++)
        must(throng_world_step(w, 0.05f), "step");
    save_world(w, dir, "wander-periodic-3d.snap");
    throng_world_destroy(w);

    /* Format version 2, as library 0.3.0 wrote it. */
    write_file(dir, "format-v2.snap", snapshot_v2, sizeof snapshot_v2);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: gen_corpus <api dir> <snapshot dir>\n");
        return 2;
    }
    program p;
    char name[64];
    for (unsigned op = 0; op < FUZZ_OP_COUNT; op++) {
        op_program(&p, op);
        snprintf(name, sizeof name, "op-%02u", op);
        write_file(argv[1], name, p.bytes, p.size);
    }
    unread_program(&p, 2);
    write_file(argv[1], "unread-2d", p.bytes, p.size);
    unread_program(&p, 3);
    write_file(argv[1], "unread-3d", p.bytes, p.size);
    for (unsigned kind = 1; kind < FUZZ_KIND_COUNT; kind++) {
        behaviour_program(&p, kind, 2, 0);
        snprintf(name, sizeof name, "kind-%02u-2d", kind);
        write_file(argv[1], name, p.bytes, p.size);
        behaviour_program(&p, kind, 3, 1);
        snprintf(name, sizeof name, "kind-%02u-3d-periodic", kind);
        write_file(argv[1], name, p.bytes, p.size);
    }
    dt_program(&p);
    write_file(argv[1], "bad-dt", p.bytes, p.size);
    snapshots(argv[2]);
    return failed;
}
