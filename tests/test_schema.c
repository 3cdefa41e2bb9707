/* SPDX-License-Identifier: MIT */
/*
 * The bad-input table of behaviours, flocking and wander, made from the
 * schema (src/behaviour_schema.h): for every field a kind reads, NaN and
 * +-inf, and the values just outside each bound are refused, each bound
 * itself accepted; every field it does not read is refused unless it keeps
 * its default, with THRONG_ERR_INVALID_ARG and a sentence naming it. A
 * refused call leaves the group as it was. A new row in the table is
 * tested here without a change to this file.
 */
#include "runner.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "throng.h"
#include "schema.h"

typedef struct schema_fixture {
    throng_world *w;
    throng_group group;
    throng_object path, flow, nav;
    int dims;
    int cases;
} schema_fixture;

static const float nbr_radius = 2.0f;

static int schema_fixture_make(schema_fixture *f, int dims) {
    memset(f, 0, sizeof *f);
    throng_world_def d = throng_world_def_default();
    d.dimensions = dims;
    d.neighbour_radius = nbr_radius;
    f->dims = dims;
    if (throng_world_create(&d, &f->w) != THRONG_OK)
        return 0;
    throng_group_def gd = throng_group_def_default();
    static const float points[12] = { 0, 0, 0, 5, 0, 0, 5, 5, 0, 0, 5, 0 };
    static const float vectors[24] = { 1, 0, 0, 1, 1, 0, 0, 1,
                                       1, 0, 0, 1, 1, 0, 0, 1 };
    throng_flow_field_def fd = throng_flow_field_def_default();
    fd.cell_size = 1.0f;
    fd.size[0] = 2u;
    fd.size[1] = 2u;
    fd.size[2] = dims == 3 ? 2u : 1u;
    fd.vectors = vectors;
    throng_path_def pd = throng_path_def_default();
    pd.points = points;
    pd.point_count = 4u;
    throng_nav_goal goal = { THRONG_NAV_GOAL_POINT,
                             { 0.5f, 0.5f, 0.5f },
                             { 0.0f, 0.0f, 0.0f } };
    throng_nav_field_def nd = throng_nav_field_def_default();
    nd.size[0] = nd.size[1] = 4u;
    nd.size[2] = dims == 3 ? 4u : 1u;
    nd.goals = &goal;
    nd.goal_count = 1u;
    return throng_group_create(f->w, &gd, &f->group) == THRONG_OK &&
           throng_path_add(f->w, &pd, &f->path) == THRONG_OK &&
           throng_flow_field_add(f->w, &fd, &f->flow) == THRONG_OK &&
           throng_nav_field_add(f->w, &nd, &f->nav) == THRONG_OK;
}

/* The struct a set's calls take. */
typedef union schema_args {
    throng_flocking flocking;
    throng_wander wander;
    throng_avoidance avoidance;
    throng_motion motion;
    throng_layers layers;
    throng_behaviour behaviour;
} schema_args;

static throng_status schema_call(schema_fixture *f, schema_set set,
                                 const schema_args *a, int variant) {
    switch (set) {
    case SCHEMA_SET_FLOCKING:
        return throng_group_set_flocking(f->w, f->group, &a->flocking);
    case SCHEMA_SET_WANDER:
        return throng_group_set_wander(f->w, f->group, &a->wander);
    case SCHEMA_SET_AVOIDANCE:
        return throng_group_set_avoidance(f->w, f->group, &a->avoidance);
    case SCHEMA_SET_MOTION:
        return throng_group_set_motion(f->w, f->group, &a->motion);
    case SCHEMA_SET_LAYERS:
        return throng_group_set_layers(f->w, f->group, &a->layers);
    default:
        if (variant == 1)
            return throng_group_set_behaviour(f->w, f->group, 0u,
                                              &a->behaviour);
        return throng_group_add_behaviour(f->w, f->group, &a->behaviour, NULL);
    }
}

/* What the group holds: flocking, wander, avoidance and the behaviour
 * list. */
typedef struct schema_state {
    throng_flocking flocking;
    throng_wander wander;
    throng_avoidance avoidance;
    throng_motion motion;
    throng_layers layers;
    uint32_t count;
    throng_behaviour first;
    uint64_t hash;
} schema_state;

static void schema_state_read(schema_fixture *f, schema_state *s) {
    memset(s, 0, sizeof *s);
    throng_group_get_flocking(f->w, f->group, &s->flocking);
    throng_group_get_wander(f->w, f->group, &s->wander);
    throng_group_get_avoidance(f->w, f->group, &s->avoidance);
    throng_group_get_motion(f->w, f->group, &s->motion);
    throng_group_get_layers(f->w, f->group, &s->layers);
    throng_group_behaviour_count(f->w, f->group, &s->count);
    if (s->count)
        throng_group_get_behaviour(f->w, f->group, 0u, &s->first);
    s->hash = throng_world_hash(f->w);
}

static void *component(const schema_field *fl, schema_args *a, int k) {
    return (char *)a + schema_structs[fl->strct].base + fl->offset +
           (size_t)k * fl->size;
}

/* Calls with `a` (both variants for behaviours), expects `want`, and on a
 * refusal the group untouched and a sentence naming `name`; an accepted
 * call is undone by calling again with `base`. */
static void schema_expect(schema_fixture *f, schema_set set,
                          const schema_args *a, const schema_args *base,
                          throng_status want, const char *name,
                          const char *what) {
    int variants = set == SCHEMA_SET_BEHAVIOUR ? 2 : 1;
    for (int v = 0; v < variants; v++) {
        schema_state before, after;
        schema_state_read(f, &before);
        throng_status got = schema_call(f, set, a, v);
        f->cases++;
        if (got != want) {
            runner_fail(__FILE__, __LINE__,
                        "%dD %s variant %d: got %d, want %d (%s)", f->dims,
                        what, v, (int)got, (int)want,
                        throng_world_last_error(f->w));
            continue;
        }
        if (want == THRONG_OK) {
            if (v == 0 && set == SCHEMA_SET_BEHAVIOUR)
                CHECK_OK(throng_group_clear_behaviours(f->w, f->group));
            if (set == SCHEMA_SET_BEHAVIOUR)
                CHECK_OK(schema_call(f, set, base, 0));
            else
                CHECK_OK(schema_call(f, set, base, 0));
            continue;
        }
        schema_state_read(f, &after);
        if (memcmp(&before, &after, sizeof before) != 0)
            runner_fail(__FILE__, __LINE__,
                        "%dD %s: the refused call "
                        "changed the group",
                        f->dims, what);
        if (!strstr(throng_world_last_error(f->w), name))
            runner_fail(__FILE__, __LINE__, "%dD %s: \"%s\" does not name %s",
                        f->dims, what, throng_world_last_error(f->w), name);
    }
}

static void set_f32(const schema_field *fl, schema_args *a, int k, float x) {
    memcpy(component(fl, a, k), &x, sizeof x);
}

static void set_int(const schema_field *fl, schema_args *a, double x) {
    if (fl->type == SCHEMA_U32) {
        uint32_t u = (uint32_t)x;
        memcpy(component(fl, a, 0), &u, sizeof u);
    } else {
        int i = (int)x; /* int32_t and the int-sized enums alike */
        memcpy(component(fl, a, 0), &i, sizeof i);
    }
}

/* Every case of one field that `base` (valid) makes read or not read. */
static void schema_field_cases(schema_fixture *f, schema_set set,
                               const schema_args *base,
                               const schema_field *fl) {
    int kind = set == SCHEMA_SET_BEHAVIOUR ? (int)base->behaviour.kind : 0;
    int reads = schema_reads(fl, base, kind);
    if (reads < 0)
        return;
    char name[64], what[160];
    snprintf(name, sizeof name, "%s%s", schema_structs[fl->strct].prefix,
             fl->field);
    schema_args a = *base;
    if (reads == 0) {
        /* Any other value is refused as unread. */
        if (fl->type == SCHEMA_F32)
            set_f32(fl, &a, 0, (float)fl->dflt + 1.0f);
        else if (fl->type == SCHEMA_BOOL)
            *(bool *)component(fl, &a, 0) = fl->dflt == 0.0;
        else if (fl->type == SCHEMA_OBJECT)
            *(throng_object *)component(fl, &a, 0) = f->path;
        else
            set_int(fl, &a, fl->dflt + 1.0);
        snprintf(what, sizeof what, "kind %d: unread %s", kind, name);
        schema_expect(f, set, &a, base, THRONG_ERR_INVALID_ARG, name, what);
        return;
    }
    if (fl->type == SCHEMA_OBJECT) {
        throng_object *h = component(fl, &a, 0);
        const throng_object keep = *h;
        memset(h, 0, sizeof *h);
        snprintf(what, sizeof what, "kind %d: %s null", kind, name);
        schema_expect(f, set, &a, base, THRONG_ERR_STALE_HANDLE, "object",
                      what);
        *h = keep;
        h->generation++;
        snprintf(what, sizeof what, "kind %d: %s stale", kind, name);
        schema_expect(f, set, &a, base, THRONG_ERR_STALE_HANDLE, "object",
                      what);
        return;
    }
    if (fl->type == SCHEMA_BOOL)
        return; /* every value is in range */
    if (fl->type != SCHEMA_F32) {
        const double lo = fl->lo, hi = fl->hi;
        const double values[4] = { lo, hi, lo - 1.0, hi + 1.0 };
        for (int i = 0; i < 4; i++) {
            if (values[i] < -2147483648.0 || values[i] > SCHEMA_U32_MAX ||
                (fl->type != SCHEMA_U32 && values[i] > 2147483647.0) ||
                (fl->type == SCHEMA_U32 && values[i] < 0.0))
                continue; /* not representable */
            a = *base;
            set_int(fl, &a, values[i]);
            snprintf(what, sizeof what, "kind %d: %s = %g", kind, name,
                     values[i]);
            schema_expect(f, set, &a, base,
                          i < 2 ? THRONG_OK : THRONG_ERR_OUT_OF_RANGE, name,
                          what);
        }
        return;
    }
    const int comps = fl->n > 1 ? f->dims : 1;
    for (int k = 0; k < comps; k++) {
        const float bad[3] = { NAN, INFINITY, -INFINITY };
        for (int i = 0; i < 3; i++) {
            a = *base;
            set_f32(fl, &a, k, bad[i]);
            snprintf(what, sizeof what, "kind %d: %s[%d] = %g", kind, name, k,
                     (double)bad[i]);
            schema_expect(f, set, &a, base, THRONG_ERR_NOT_FINITE, name, what);
        }
        if (fl->n > 1) {
            if (!(fl->flags & SCHEMA_LT_NEXT))
                continue;
            /* Not below the next field's component. */
            a = *base;
            float next;
            memcpy(&next, component(fl + 1, &a, k), sizeof next);
            set_f32(fl, &a, k, next);
            snprintf(what, sizeof what, "kind %d: %s[%d] = its pair", kind,
                     name, k);
            schema_expect(f, set, &a, base, THRONG_ERR_OUT_OF_RANGE, name,
                          what);
            continue;
        }
        float lo = (float)fl->lo, hi = (float)fl->hi;
        if ((fl->flags & SCHEMA_NBR) && nbr_radius < hi)
            hi = nbr_radius;
        struct {
            float x;
            throng_status want;
        } edge[4] = {
            { lo, (fl->flags & SCHEMA_LO_OPEN) &&
                          !(lo == 0.0f && (fl->flags & SCHEMA_ZERO))
                      ? THRONG_ERR_OUT_OF_RANGE
                      : THRONG_OK },
            { nextafterf(lo, -INFINITY), THRONG_ERR_OUT_OF_RANGE },
            { hi, (fl->flags & SCHEMA_HI_OPEN) ? THRONG_ERR_OUT_OF_RANGE
                                               : THRONG_OK },
            { nextafterf(hi, INFINITY), THRONG_ERR_OUT_OF_RANGE },
        };
        for (int i = 0; i < 4; i++) {
            if (isinf(edge[i].x))
                continue; /* FLT_MAX's neighbour: the NaN/inf cases */
            if (edge[i].x == 0.0f && (fl->flags & SCHEMA_ZERO))
                edge[i].want = THRONG_OK;
            a = *base;
            set_f32(fl, &a, 0, edge[i].x);
            snprintf(what, sizeof what, "kind %d: %s = %.9g", kind, name,
                     (double)edge[i].x);
            schema_expect(f, set, &a, base, edge[i].want, name, what);
        }
        if (fl->flags & SCHEMA_ZERO) {
            a = *base;
            set_f32(fl, &a, 0, 0.0f);
            snprintf(what, sizeof what, "kind %d: %s = 0", kind, name);
            schema_expect(f, set, &a, base, THRONG_OK, name, what);
        }
    }
}

/* Flips the field deciding whether `fl` is read, keeping `a` valid. */
static int schema_flip_when(schema_args *a, const schema_field *fl) {
    for (size_t i = 0; i < schema_field_count; i++) {
        const schema_field *d = &schema_fields[i];
        char name[64];
        snprintf(name, sizeof name, "%s%s", schema_structs[d->strct].prefix,
                 d->field);
        if (strcmp(name, fl->when) != 0)
            continue;
        double now = schema_get(d, a, 0);
        double to = now == fl->when_value ? (fl->when_value == 0.0 ? 1.0 : 0.0)
                                          : fl->when_value;
        if (d->type == SCHEMA_F32)
            set_f32(d, a, 0, (float)to);
        else if (d->type == SCHEMA_BOOL)
            *(bool *)component(d, a, 0) = to != 0.0;
        else
            set_int(d, a, to);
        /* Fields that must lie below their pair get a box around 0. */
        for (size_t j = 0; j < schema_field_count; j++)
            if ((schema_fields[j].flags & SCHEMA_LT_NEXT) &&
                schema_fields[j].strct == fl->strct)
                for (int k = 0; k < schema_fields[j].n; k++) {
                    set_f32(&schema_fields[j], a, k, -10.0f);
                    set_f32(&schema_fields[j + 1], a, k, 10.0f);
                }
        return 1;
    }
    return 0;
}

static void schema_set_cases(schema_fixture *f, schema_set set, int kind) {
    schema_args base;
    memset(&base, 0, sizeof base);
    if (set == SCHEMA_SET_FLOCKING)
        base.flocking = throng_flocking_default();
    else if (set == SCHEMA_SET_WANDER)
        base.wander = throng_group_def_default().wander;
    else if (set == SCHEMA_SET_AVOIDANCE)
        base.avoidance = throng_group_def_default().avoidance;
    else if (set == SCHEMA_SET_MOTION)
        base.motion = throng_group_def_default().motion;
    else if (set == SCHEMA_SET_LAYERS)
        base.layers = throng_group_def_default().layers;
    else
        base.behaviour = throng_behaviour_default((throng_behaviour_kind)kind);
    if (kind == THRONG_BEHAVIOUR_PATROL || kind == THRONG_BEHAVIOUR_FOLLOW_PATH)
        base.behaviour.u.path.path = f->path;
    if (kind == THRONG_BEHAVIOUR_FOLLOW_FLOW)
        base.behaviour.u.flow.field = f->flow;
    if (kind == THRONG_BEHAVIOUR_FOLLOW_NAV)
        base.behaviour.u.nav.field = f->nav;
    /* The valid struct, then each of its variants with one deciding field
     * flipped. */
    schema_args bases[8];
    int n = 0;
    bases[n++] = base;
    for (size_t i = 0; i < schema_field_count && n < 8; i++) {
        const schema_field *fl = &schema_fields[i];
        if (schema_structs[fl->strct].set != set || !fl->when[0] ||
            !(fl->when_kinds & (1u << kind)))
            continue;
        bases[n] = base;
        if (schema_flip_when(&bases[n], fl))
            n++;
    }
    for (int b = 0; b < n; b++) {
        REQUIRE_OK(schema_call(f, set, &bases[b], 0));
        for (size_t i = 0; i < schema_field_count; i++)
            if (schema_structs[schema_fields[i].strct].set == set)
                schema_field_cases(f, set, &bases[b], &schema_fields[i]);
        if (set == SCHEMA_SET_BEHAVIOUR)
            REQUIRE_OK(throng_group_clear_behaviours(f->w, f->group));
    }
    if (set == SCHEMA_SET_BEHAVIOUR) {
        /* A list entry 0 to replace: set_behaviour's variant. */
        REQUIRE_OK(schema_call(f, set, &base, 0));
    }
}

static void schema_table(int dims) {
    schema_fixture f;
    REQUIRE(schema_fixture_make(&f, dims));
    schema_set_cases(&f, SCHEMA_SET_FLOCKING, 0);
    schema_set_cases(&f, SCHEMA_SET_WANDER, 0);
    schema_set_cases(&f, SCHEMA_SET_AVOIDANCE, 0);
    schema_set_cases(&f, SCHEMA_SET_MOTION, 0);
    schema_set_cases(&f, SCHEMA_SET_LAYERS, 0);
    for (int kind = 1; kind < SCHEMA_KIND_LIMIT; kind++) {
        if (!schema_kind_known(kind))
            continue;
        throng_behaviour b =
            throng_behaviour_default((throng_behaviour_kind)kind);
        if (kind == THRONG_BEHAVIOUR_PATROL ||
            kind == THRONG_BEHAVIOUR_FOLLOW_PATH)
            b.u.path.path = f.path;
        if (kind == THRONG_BEHAVIOUR_FOLLOW_FLOW)
            b.u.flow.field = f.flow;
        if (kind == THRONG_BEHAVIOUR_FOLLOW_NAV)
            b.u.nav.field = f.nav;
        REQUIRE_OK(throng_group_clear_behaviours(f.w, f.group));
        REQUIRE_OK(throng_group_add_behaviour(f.w, f.group, &b, NULL));
        schema_set_cases(&f, SCHEMA_SET_BEHAVIOUR, kind);
    }
    CHECK(f.cases > 500);
    printf("schema bad input, %d-D: %d cases\n", dims, f.cases);
    throng_world_destroy(f.w);
}

TEST(schema_table_2d) {
    schema_table(2);
}

TEST(schema_table_3d) {
    schema_table(3);
}

/* The trap of issue 15: a point set on a seek whose source is the agent's
 * own target point is refused, naming the field, not ignored. */
TEST(schema_seek_point_needs_fixed_source) {
    schema_fixture f;
    REQUIRE(schema_fixture_make(&f, 2));
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_SEEK);
    b.u.seek.point[0] = 3.0f;
    CHECK_STATUS(throng_group_add_behaviour(f.w, f.group, &b, NULL),
                 THRONG_ERR_INVALID_ARG);
    CHECK(strstr(throng_world_last_error(f.w),
                 "seek.point is not read by SEEK unless seek.source is "
                 "FIXED_POINT") != NULL);
    b.u.seek.source = THRONG_TARGET_FIXED_POINT;
    CHECK_OK(throng_group_add_behaviour(f.w, f.group, &b, NULL));
    throng_behaviour got;
    CHECK_OK(throng_group_get_behaviour(f.w, f.group, 0u, &got));
    CHECK(got.u.seek.point[0] == 3.0f &&
          got.u.seek.source == THRONG_TARGET_FIXED_POINT);
    throng_world_destroy(f.w);
}

/* A field a kind does not read may be given as -0 (it equals its default
 * 0); the group stores the default's own bits, so what it reads back, and
 * a snapshot of it saved, loaded and saved again, are the same bytes. */
TEST(schema_unread_negative_zero_stored_as_default) {
    schema_fixture f;
    REQUIRE(schema_fixture_make(&f, 2));
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_PURSUE);
    b.u.pursue.evade_range = -0.0f;
    CHECK_OK(throng_group_add_behaviour(f.w, f.group, &b, NULL));
    throng_behaviour got;
    CHECK_OK(throng_group_get_behaviour(f.w, f.group, 0u, &got));
    CHECK(!signbit(got.u.pursue.evade_range) &&
          got.u.pursue.evade_range == 0.0f);
    size_t n = 0, n2 = 0;
    CHECK_OK(throng_world_snapshot_size(f.w, &n));
    unsigned char *one = malloc(2 * n);
    REQUIRE(one != NULL);
    unsigned char *two = one + n;
    CHECK_OK(throng_world_save(f.w, one, n, NULL));
    throng_world *back = NULL;
    CHECK_OK(throng_world_load(one, n, NULL, &back));
    CHECK_OK(throng_world_snapshot_size(back, &n2));
    CHECK(n2 == n);
    CHECK_OK(throng_world_save(back, two, n, NULL));
    throng_group g = THRONG_NULL_GROUP;
    CHECK_OK(throng_group_rebind(back, f.group, &g));
    throng_behaviour again;
    CHECK_OK(throng_group_get_behaviour(back, g, 0u, &again));
    CHECK(memcmp(&again.u.pursue, &got.u.pursue, sizeof got.u.pursue) == 0);
    /* The payload is the same but for the saving world's id (its offset:
     * test_snapshot.c), which the header's checksum covers. */
    CHECK(memcmp(one + 40, two + 40, 112 - 40) == 0 &&
          memcmp(one + 120, two + 120, n - 120) == 0);
    free(one);
    throng_world_destroy(back);
    throng_world_destroy(f.w);
}

/* The defaults are the table's, and every kind's default is accepted. */
TEST(schema_defaults) {
    throng_flocking fl = throng_flocking_default();
    CHECK(fl.separation_radius == 0.5f && fl.field_of_view == 6.28318548f &&
          fl.speed_factor == 1.0f && fl.max_neighbours == 0u);
    throng_wander wd = throng_group_def_default().wander;
    CHECK(wd.max_turn_rate == 0.1f * 3.14159265f &&
          wd.max_turn_change == 0.01f * 3.14159265f && wd.weight == 0.0f);
    throng_behaviour p = throng_behaviour_default(THRONG_BEHAVIOUR_PATROL);
    CHECK(p.weight == 1.0f && p.u.path.window == 4u && p.u.path.loop &&
          p.u.path.reach == 0.5f && p.u.path.prediction_time == 0.5f);
    throng_behaviour c = throng_behaviour_default(THRONG_BEHAVIOUR_CONTAIN);
    CHECK(!c.u.contain.use_box && c.u.contain.use_walls &&
          c.u.contain.range == 2.0f);
    throng_avoidance av = throng_group_def_default().avoidance;
    CHECK(av.mode == THRONG_AVOIDANCE_NONE && av.range == 0.0f &&
          av.max_neighbours == 10u && av.time_horizon == 2.0f &&
          av.responsibility == 0.5f && av.keep_right == 0.5f &&
          av.contact_iterations == 0u);
    throng_motion mo = throng_group_def_default().motion;
    CHECK(mo.max_turn_rate == 0.0f && mo.min_speed == 0.0f);
    throng_layers ly = throng_group_def_default().layers;
    CHECK(ly.layer == 0u && ly.mask == 0xffffffffu);
    throng_behaviour none = throng_behaviour_default((throng_behaviour_kind)0);
    CHECK(none.kind == 0 && none.weight == 1.0f);
}

void register_schema_tests(void) {
    REGISTER(schema_table_2d);
    REGISTER(schema_table_3d);
    REGISTER(schema_seek_point_needs_fixed_source);
    REGISTER(schema_unread_negative_zero_stored_as_default);
    REGISTER(schema_defaults);
}
