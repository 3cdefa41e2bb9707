/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the public API: the input bytes are a program
 * (see fuzz_codec.h) that creates a world and runs a sequence of calls on
 * it with decoded, often bad, arguments.
 *
 * The harness keeps its own books (which handles are live, which host keys
 * and groups exist, how many agents and objects there are) and aborts when
 * the library disagrees with them or breaks a promise of throng.h:
 * - a refused call leaves the state hash unchanged;
 * - after every successful step each position, velocity and heading is
 *   finite and no agent is faster than its max speed (with 1e-4 of
 *   relative slack for the rounding of the truncation, and a few
 *   denormal spacings for limits near the smallest float);
 * - live handles are valid, removed and forged ones are refused;
 * - a snapshot loads into a world of equal hash that saves to the same
 *   bytes;
 * - the world's allocator sees matching sizes and aligned requests, and a
 *   failed allocation is reported and leaves the world unchanged.
 *
 * Inputs are bounded (agents, objects, steps, operations) so one run takes
 * milliseconds.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "throng.h"
#include "schema.h"
#include "fuzz_codec.h"
#include "../../testsupport/support.h"

#define MAX_AGENTS 256u
#define MAX_RECORDS 512u
#define MAX_OBJECTS 64u
#define MAX_GROUPS 16u
#define MAX_STEPS 48u
#define MAX_OPS 400u
#define MAX_FLOW_POINTS 512u
#define MAX_PATH_POINTS 16u

/* Prints where the library broke a promise and aborts, so libFuzzer
 * reports the input. */
#define REQUIRE(cond)                                                    \
    do {                                                                 \
        if (!(cond)) {                                                   \
            fprintf(stderr, "fuzz_api: %s:%d: %s (last error: %s)\n",    \
                    __FILE__, __LINE__, #cond,                           \
                    fz.world ? throng_world_last_error(fz.world) : "-"); \
            dump_world();                                                \
            abort();                                                     \
        }                                                                \
    } while (0)

static void dump_world(void);

typedef struct record {
    throng_agent handle;
    uint64_t host_key;
    int alive;
} record;

typedef struct object_record {
    throng_object handle;
    int alive;
} object_record;

typedef struct fuzz_state {
    const uint8_t *data;
    size_t size, at;
    int ended;
    throng_world *world;
    int dims;
    int periodic;
    float neighbour_radius;
    record records[MAX_RECORDS];
    uint32_t record_count; /* ring: the oldest dead records are reused */
    uint32_t alive;
    object_record objects[MAX_OBJECTS];
    uint32_t object_count, objects_alive;
    /* The groups created, removed ones included (group_alive 0). */
    throng_group groups[MAX_GROUPS];
    int group_alive[MAX_GROUPS];
    uint32_t group_count;
    uint32_t steps;
    /* The world's heap; armed (by FUZZ_OP_FAIL_ALLOC) for one operation,
     * it refuses the k-th allocation and every later one. */
    ts_heap heap;
    int fail_armed;
    /* THRONG_FUZZ_TRACE=1: print every call and its status. */
    int trace;
} fuzz_state;

static fuzz_state fz;

/* ------------------------------------------------------------------------ */
/* The allocator: checks sizes and alignment, fails on demand              */
/* ------------------------------------------------------------------------ */

/* The shared checking allocator (testsupport/support.h): a misuse aborts,
 * which libFuzzer reports as a crash; no test world needs 4 GiB, so a
 * larger request is treated as out of memory. */
static throng_allocator fuzz_allocator(void) {
    fz.heap.abort_on_misuse = true;
    fz.heap.limit = (size_t)1 << 32;
    return ts_heap_allocator(&fz.heap);
}

/* ------------------------------------------------------------------------ */
/* Decoding                                                                 */
/* ------------------------------------------------------------------------ */

static uint8_t rd_u8(void) {
    if (fz.at >= fz.size) {
        fz.ended = 1;
        return 0;
    }
    return fz.data[fz.at++];
}

static uint32_t rd_u32(void) {
    uint32_t v = 0;
    for (unsigned k = 0; k < 4u; k++)
        v |= (uint32_t)rd_u8() << (8u * k);
    return v;
}

static float rd_float(void) {
    uint8_t b = rd_u8();
    if (b < FUZZ_FLOAT_SMALL_BASE)
        return fuzz_float_table[b];
    if (b < FUZZ_FLOAT_RAW)
        return (float)((int)b - (int)FUZZ_FLOAT_SMALL_ZERO) * 0.5f;
    uint32_t bits = rd_u32();
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static void rd_vec(float v[3]) {
    for (int k = 0; k < 3; k++)
        v[k] = rd_float();
}

/* The world id of a forged handle: this world's, or (selector
 * FUZZ_SELECT_FOREIGN) one no live world has. */
static uint64_t forged_world(uint8_t selector) {
    uint64_t id = throng_world_id(fz.world);
    return selector == FUZZ_SELECT_FOREIGN ? id + (1ull << 40) : id;
}

/* A record index (possibly dead), or -1 with *forged set to a handle that
 * names no live agent (forged, null, or by chance a live one, which is
 * then returned as that record). */
static int rd_agent(throng_agent *out) {
    uint8_t b = rd_u8();
    if (b < FUZZ_SELECT_FORGED && fz.record_count > 0u) {
        uint32_t r = b % fz.record_count;
        *out = fz.records[r].handle;
        return (int)r;
    }
    throng_agent h = THRONG_NULL_AGENT;
    if (b != FUZZ_SELECT_NULL && b >= FUZZ_SELECT_FORGED) {
        h.slot = rd_u32();
        h.generation = rd_u32();
        h.world = forged_world(b);
    }
    *out = h;
    for (uint32_t r = 0; r < fz.record_count; r++)
        if (fz.records[r].alive && fz.records[r].handle.slot == h.slot &&
            fz.records[r].handle.generation == h.generation &&
            fz.records[r].handle.world == h.world)
            return (int)r;
    return -1;
}

static int rd_object(throng_object *out) {
    uint8_t b = rd_u8();
    if (b < FUZZ_SELECT_FORGED && fz.object_count > 0u) {
        uint32_t r = b % fz.object_count;
        *out = fz.objects[r].handle;
        return (int)r;
    }
    throng_object o = THRONG_NULL_OBJECT;
    if (b != FUZZ_SELECT_NULL && b >= FUZZ_SELECT_FORGED) {
        o.id = rd_u32();
        o.generation = rd_u32();
        o.world = forged_world(b);
    }
    *out = o;
    for (uint32_t r = 0; r < fz.object_count; r++)
        if (fz.objects[r].alive && fz.objects[r].handle.id == o.id &&
            fz.objects[r].handle.generation == o.generation &&
            fz.objects[r].handle.world == o.world)
            return (int)r;
    return -1;
}

/* The handle of the world's default group. */
static throng_group default_group(const throng_world *w) {
    throng_group g = THRONG_NULL_GROUP;
    REQUIRE(throng_world_default_group(w, &g) == THRONG_OK);
    return g;
}

/* A group handle: the null one (the default group where an agent takes
 * it, refused elsewhere), one the world created (perhaps removed since), or
 * a made-up one. *known says whether the call may accept it; null_ok when
 * the null handle names the default group. */
static throng_group rd_group(int *known, int null_ok) {
    uint8_t b = rd_u8();
    const uint64_t world = throng_world_id(fz.world);
    throng_group g = THRONG_NULL_GROUP;
    *known = 0;
    if (b < 0x80u) {
        uint32_t k = b % (fz.group_count + 2u);
        if (k == 0u) {
            *known = null_ok;
            return g;
        }
        if (k == 1u) {
            g = (throng_group){ 0u, 1u, world };
            *known = 1;
            return g;
        }
        *known = fz.group_alive[k - 2u];
        return fz.groups[k - 2u];
    }
    g.id = b == 0xFFu ? rd_u32() : b - 0x80u;
    g.generation = rd_u8();
    g.world = (rd_u8() & 7u) ? world : world + 1u;
    *known = g.world == world && g.id == 0u && g.generation == 1u;
    for (uint32_t k = 0; k < fz.group_count; k++)
        if (fz.group_alive[k] && fz.groups[k].id == g.id &&
            fz.groups[k].generation == g.generation && g.world == world)
            *known = 1;
    return g;
}

static void rd_agent_def(throng_agent_def *d) {
    *d = throng_agent_def_default();
    rd_vec(d->position);
    rd_vec(d->velocity);
    d->mass = rd_float();
    d->max_force = rd_float();
    d->max_speed = rd_float();
    d->radius = rd_float();
    int known;
    d->group = rd_group(&known, 1);
    d->host_key = rd_u8();
}

static int is_finite(float x) {
    return x == x && x - x == 0.0f;
}

/* ------------------------------------------------------------------------ */
/* Flocking, wander and behaviours from the behaviour schema               */
/* ------------------------------------------------------------------------ */

/* What the decoder knows of a struct it made: whether some field it
 * reads holds a value out of range (or the kind is unknown), and whether
 * a field it does not read was set. Either must be refused. */
typedef struct params_made {
    int bad;
    int unread;
} params_made;

/* Whether the struct of `set` has field f (a behaviour: the common
 * fields and those of its kind's member). */
static int has_field(const schema_field *f, schema_set set, int kind) {
    return ts_schema_has(f, (int)set, kind);
}

/* The low and high bound of field f, the high one capped by the world's
 * neighbour radius where the table says so. */
static void param_bounds(const schema_field *f, double *lo, double *hi) {
    *lo = f->lo;
    *hi = f->hi;
    if ((f->flags & SCHEMA_NBR) && (double)fz.neighbour_radius < *hi)
        *hi = (double)fz.neighbour_radius;
}

/* One step from x towards `to`, in the field's type. */
static double param_step(const schema_field *f, double x, double to) {
    if (f->type == SCHEMA_F32)
        return (double)nextafterf((float)x, (float)to);
    return to > x ? x + 1.0 : x - 1.0;
}

/* A value of field f from its control byte (fuzz_codec.h). */
static double rd_param(const schema_field *f) {
    uint8_t c = rd_u8();
    double lo, hi;
    param_bounds(f, &lo, &hi);
    if (c < FUZZ_PARAM_BOUND)
        return ts_schema_in_range(f, ((double)c + 0.5) / FUZZ_PARAM_BOUND,
                                  FUZZ_PARAM_SCALE, fz.neighbour_radius);
    if (c < FUZZ_PARAM_OUTSIDE) {
        const double on[8] = { lo,
                               hi,
                               param_step(f, lo, hi),
                               param_step(f, hi, lo),
                               0.0,
                               -FUZZ_PARAM_SCALE,
                               FUZZ_PARAM_SCALE,
                               lo };
        return on[c & 7u];
    }
    if (c < FUZZ_PARAM_NOT_FINITE) {
        const double off[4] = { param_step(f, lo, -(double)INFINITY),
                                param_step(f, hi, (double)INFINITY), lo - 1.0,
                                hi + 1.0 };
        return off[c & 3u];
    }
    if (c < FUZZ_PARAM_DEFAULT) {
        const double bad[4] = { (double)NAN, (double)INFINITY,
                                -(double)INFINITY, -(double)NAN };
        return f->type == SCHEMA_F32 ? bad[c & 3u] : lo - 1.0;
    }
    if (c < FUZZ_PARAM_RAW)
        return f->dflt;
    if (f->type == SCHEMA_F32)
        return (double)rd_float();
    uint32_t u = rd_u32();
    if (f->type == SCHEMA_U32)
        return (double)u;
    int32_t i;
    memcpy(&i, &u, sizeof i);
    return (double)i;
}

/* Field f of the struct at base from the input: each component's value
 * (a handle: an object the books know, perhaps removed, or a forged one). */
static void rd_field(const schema_field *f, void *base) {
    if (f->type == SCHEMA_OBJECT) {
        rd_object(schema_field_at(f, base, 0));
        return;
    }
    for (int k = 0; k < f->n; k++)
        ts_schema_store(f, base, k, rd_param(f));
}

/* Whether field f, read, holds a value the library must accept: worked
 * out here from the table's range, not by the library's check. */
static int param_ok(const schema_field *f, const void *base) {
    if (f->type == SCHEMA_OBJECT) {
        const throng_object *o = schema_field_at(f, (void *)(uintptr_t)base, 0);
        throng_object_info info;
        return throng_object_get(fz.world, *o, &info) == THRONG_OK &&
               (int)info.kind == ts_schema_object_kind(f);
    }
    const int comps = f->n > 1 ? fz.dims : 1;
    for (int k = 0; k < comps; k++) {
        const double x = schema_get(f, base, k);
        if (f->type == SCHEMA_F32 && !is_finite((float)x))
            return 0;
        if (f->n > 1) {
            /* Vectors: any finite value, below the next field's where the
             * table pairs them (that one's own check covers its NaN). */
            if ((f->flags & SCHEMA_LT_NEXT) &&
                is_finite((float)schema_get(f + 1, base, k)) &&
                !(x < schema_get(f + 1, base, k)))
                return 0;
            continue;
        }
        if (f->type == SCHEMA_BOOL || f->type == SCHEMA_I32)
            continue; /* every value the type holds */
        double lo, hi;
        param_bounds(f, &lo, &hi);
        const int above = (f->flags & SCHEMA_LO_OPEN) ? x > lo : x >= lo;
        const int below = (f->flags & SCHEMA_HI_OPEN) ? x < hi : x <= hi;
        if (!(above && below) && !((f->flags & SCHEMA_ZERO) && x == 0.0))
            return 0;
    }
    return 1;
}

/* Whether field f holds its default in every component. */
static int param_default(const schema_field *f, const void *base) {
    if (f->type == SCHEMA_OBJECT) {
        const throng_object *o = schema_field_at(f, (void *)(uintptr_t)base, 0);
        return o->id == 0u && o->generation == 0u && o->world == 0u;
    }
    for (int k = 0; k < f->n; k++) {
        const double x = schema_get(f, base, k);
        if (f->type == SCHEMA_F32 ? (float)x != (float)f->dflt : x != f->dflt)
            return 0;
    }
    return 1;
}

/* Whether the struct of `set` at base (a behaviour of `kind`) must be
 * refused for a value: an unknown kind, or a field read out of range. */
static int params_bad(schema_set set, const void *base, int kind) {
    if (set == SCHEMA_SET_BEHAVIOUR && !schema_kind_known(kind))
        return 1;
    for (size_t i = 0; i < schema_field_count; i++) {
        const schema_field *f = &schema_fields[i];
        if (has_field(f, set, kind) && schema_reads(f, base, kind) == 1 &&
            !param_ok(f, base))
            return 1;
    }
    return 0;
}

/* Fills the struct of `set` at base (a behaviour of `kind`, already at
 * its defaults) from the input, field by field down the table, and says
 * what the library must make of it. */
static void rd_params(schema_set set, void *base, int kind, params_made *m) {
    memset(m, 0, sizeof *m);
    for (size_t i = 0; i < schema_field_count; i++)
        if (has_field(&schema_fields[i], set, kind))
            rd_field(&schema_fields[i], base);
    if (set == SCHEMA_SET_BEHAVIOUR)
        schema_normalise(base); /* the unread fields back at default */
    /* Now and then one unread field set again. */
    uint8_t pick = rd_u8();
    uint32_t unread = 0;
    for (size_t i = 0; i < schema_field_count; i++)
        unread += has_field(&schema_fields[i], set, kind) &&
                  schema_reads(&schema_fields[i], base, kind) == 0;
    if (pick >= FUZZ_PARAM_UNREAD && unread > 0u) {
        uint32_t n = (pick - FUZZ_PARAM_UNREAD) % unread;
        for (size_t i = 0; i < schema_field_count; i++) {
            const schema_field *f = &schema_fields[i];
            if (!has_field(f, set, kind) || schema_reads(f, base, kind) != 0 ||
                n-- != 0u)
                continue;
            if (f->type == SCHEMA_OBJECT) {
                rd_object(schema_field_at(f, base, 0));
            } else {
                ts_schema_store(f, base, 0, rd_param(f));
            }
            if (param_default(f, base)) {
                if (f->type == SCHEMA_OBJECT)
                    ((throng_object *)schema_field_at(f, base, 0))->id = 1u;
                else
                    ts_schema_store(f, base, 0,
                                    f->type == SCHEMA_BOOL
                                        ? (f->dflt == 0.0 ? 1.0 : 0.0)
                                        : f->dflt + 1.0);
            }
            m->unread = 1;
            break;
        }
    }
    m->bad = params_bad(set, base, kind);
}

/* Whether two behaviours of one kind hold the same bits in every field
 * (what was set is what is read back). */
static int same_params(const throng_behaviour *a, const throng_behaviour *b) {
    for (size_t i = 0; i < schema_field_count; i++) {
        const schema_field *f = &schema_fields[i];
        if (has_field(f, SCHEMA_SET_BEHAVIOUR, (int)a->kind) &&
            memcmp(schema_field_at(f, (void *)(uintptr_t)a, 0),
                   schema_field_at(f, (void *)(uintptr_t)b, 0),
                   f->type == SCHEMA_OBJECT ? sizeof(throng_object)
                                            : (size_t)f->n * f->size) != 0)
            return 0;
    }
    return 1;
}

/* Prints the fields of a struct of `set` (a behaviour of `kind`). */
static void print_params(schema_set set, const void *base, int kind) {
    for (size_t i = 0; i < schema_field_count; i++) {
        const schema_field *f = &schema_fields[i];
        if (!has_field(f, set, kind))
            continue;
        fprintf(stderr, " %s%s", schema_structs[f->strct].prefix, f->field);
        for (int k = 0; k < f->n; k++)
            fprintf(stderr, "%s%g", k ? "," : "=", schema_get(f, base, k));
    }
    fprintf(stderr, "\n");
}

static void rd_flocking(throng_flocking *f, params_made *m) {
    schema_default(SCHEMA_SET_FLOCKING, f, 0);
    rd_params(SCHEMA_SET_FLOCKING, f, 0, m);
}

static void rd_wander(throng_wander *w, params_made *m) {
    schema_default(SCHEMA_SET_WANDER, w, 0);
    rd_params(SCHEMA_SET_WANDER, w, 0, m);
}

static void rd_behaviour(throng_behaviour *b, params_made *m) {
    int kind = rd_u8() % (FUZZ_KIND_COUNT + 1); /* 0 .. count: two refused */
    *b = throng_behaviour_default((throng_behaviour_kind)kind);
    memset(m, 0, sizeof *m);
    if (rd_u8() == 0u) {
        /* The defaults (a null route among them). */
        m->bad = params_bad(SCHEMA_SET_BEHAVIOUR, b, kind);
        return;
    }
    rd_params(SCHEMA_SET_BEHAVIOUR, b, kind, m);
}

/* A call given made parameters, on a group the books say is live, that
 * has no other reason to fail: refused with THRONG_ERR_INVALID_ARG when
 * an unread field was set and nothing else is wrong, accepted when nothing
 * is wrong; refused whenever something is. */
static void expect_params(const params_made *m, int clean, throng_status st) {
    if (m->bad || m->unread)
        REQUIRE(st != THRONG_OK);
    if (!clean || fz.fail_armed || m->bad)
        return;
    REQUIRE(st == (m->unread ? THRONG_ERR_INVALID_ARG : THRONG_OK));
}

/* ------------------------------------------------------------------------ */
/* Books and invariants                                                     */
/* ------------------------------------------------------------------------ */

static void add_record(throng_agent h, uint64_t key) {
    uint32_t r = fz.record_count;
    if (r == MAX_RECORDS) {
        /* Reuse the first dead record; there is one, since at most
         * MAX_AGENTS are alive. */
        for (r = 0; r < MAX_RECORDS && fz.records[r].alive; r++) {
        }
        REQUIRE(r < MAX_RECORDS);
    } else {
        fz.record_count++;
    }
    fz.records[r].handle = h;
    fz.records[r].host_key = key;
    fz.records[r].alive = 1;
    fz.alive++;
}

/* True when a live record other than `except` holds the host key. */
static int key_taken(uint64_t key, int except) {
    if (key == 0u)
        return 0;
    for (uint32_t r = 0; r < fz.record_count; r++)
        if ((int)r != except && fz.records[r].alive &&
            fz.records[r].host_key == key)
            return 1;
    return 0;
}

static void check_books(void) {
    REQUIRE(throng_world_agent_count(fz.world) == fz.alive);
    REQUIRE(throng_world_object_count(fz.world) == fz.objects_alive);
    for (uint32_t r = 0; r < fz.record_count; r++)
        REQUIRE(throng_agent_valid(fz.world, fz.records[r].handle) ==
                (fz.records[r].alive != 0));
}

/* What the world holds, printed when a check fails (to read a
 * reproducer with). */
static void dump_world(void) {
    if (!fz.world)
        return;
    throng_columns c;
    if (throng_world_columns(fz.world, &c) != THRONG_OK)
        return;
    fprintf(stderr, "world: %d-D, %u agents, step %llu\n", fz.dims, c.count,
            (unsigned long long)throng_world_step_count(fz.world));
    for (uint32_t i = 0; i < c.count && i < 64u; i++) {
        throng_agent h;
        throng_agent_def d;
        if (throng_agent_at(fz.world, i, &h) != THRONG_OK ||
            throng_agent_get_def(fz.world, h, &d) != THRONG_OK)
            continue;
        fprintf(stderr,
                "  row %u {%u,%u} p (%g %g %g) v (%g %g %g) m %g f %g "
                "s %g r %g group %u\n",
                i, h.slot, h.generation, (double)d.position[0],
                (double)d.position[1], (double)d.position[2],
                (double)d.velocity[0], (double)d.velocity[1],
                (double)d.velocity[2], (double)d.mass, (double)d.max_force,
                (double)d.max_speed, (double)d.radius, d.group.id);
    }
    for (uint32_t k = 0; k <= fz.group_count; k++) {
        throng_group g = k == 0u ? default_group(fz.world) : fz.groups[k - 1u];
        uint32_t count = 0;
        throng_flocking f;
        throng_wander w;
        if (throng_group_get_flocking(fz.world, g, &f) != THRONG_OK ||
            throng_group_get_wander(fz.world, g, &w) != THRONG_OK)
            continue;
        fprintf(stderr, "  group %u:", g.id);
        print_params(SCHEMA_SET_FLOCKING, &f, 0);
        fprintf(stderr, "   ");
        print_params(SCHEMA_SET_WANDER, &w, 0);
        throng_group_behaviour_count(fz.world, g, &count);
        for (uint32_t b = 0; b < count; b++) {
            throng_behaviour beh;
            if (throng_group_get_behaviour(fz.world, g, b, &beh) == THRONG_OK) {
                fprintf(stderr, "    behaviour %u: kind %d", b, (int)beh.kind);
                print_params(SCHEMA_SET_BEHAVIOUR, &beh, (int)beh.kind);
            }
        }
    }
}

/* The columns view; its host-key column is allocated on first use, so
 * under an armed allocation failure the call may be refused for memory,
 * and then the operation that wanted it does nothing (0 is returned). */
static int read_columns(throng_columns *c) {
    throng_status st = throng_world_columns(fz.world, c);
    if (st == THRONG_ERR_OUT_OF_MEMORY && fz.fail_armed)
        return 0;
    REQUIRE(st == THRONG_OK);
    return 1;
}

/* Finiteness and the speed limit, row by row. */
static void check_state(void) {
    throng_columns c;
    if (!read_columns(&c))
        return; /* refused for memory under an armed failure */
    REQUIRE(c.count == fz.alive);
    for (uint32_t i = 0; i < c.count; i++) {
        REQUIRE(is_finite(c.px[i]) && is_finite(c.py[i]));
        REQUIRE(is_finite(c.vx[i]) && is_finite(c.vy[i]));
        REQUIRE(is_finite(c.fx[i]) && is_finite(c.fy[i]));
        double vx = (double)c.vx[i], vy = (double)c.vy[i];
        double speed2 = vx * vx + vy * vy;
        if (fz.dims == 3) {
            REQUIRE(is_finite(c.pz[i]) && is_finite(c.vz[i]) &&
                    is_finite(c.fz[i]));
            double vz = (double)c.vz[i];
            speed2 += vz * vz;
        }
        throng_agent h;
        float max_speed = -1.0f;
        REQUIRE(throng_agent_at(fz.world, i, &h) == THRONG_OK);
        REQUIRE(throng_agent_get_max_speed(fz.world, h, &max_speed) ==
                THRONG_OK);
        /* Plus the spacing of denormals: a limit near the smallest
         * float has no float vector of its exact length. */
        double limit = (double)max_speed * (1.0 + 1e-4) + 4e-45;
        if (!(speed2 <= limit * limit)) {
            fprintf(stderr, "fuzz_api: row %u speed %g above max speed %g\n", i,
                    sqrt(speed2), (double)max_speed);
            REQUIRE(speed2 <= limit * limit);
        }
    }
}

/* A call the harness expects the library to refuse must be refused, and
 * a refused call must leave the state as it was. */
#define CALL(expr)                                                \
    do {                                                          \
        uint64_t hash_before_ = throng_world_hash(fz.world);      \
        st = (expr);                                              \
        if (fz.trace)                                             \
            fprintf(stderr, "  %s -> %s %s\n", #expr,             \
                    throng_status_string(st),                     \
                    st ? throng_world_last_error(fz.world) : ""); \
        if (st != THRONG_OK)                                      \
            REQUIRE(throng_world_hash(fz.world) == hash_before_); \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Operations                                                               */
/* ------------------------------------------------------------------------ */

static void op_add(const throng_agent_def *d) {
    throng_status st;
    throng_agent h = THRONG_NULL_AGENT;
    if (fz.alive >= MAX_AGENTS)
        return;
    CALL(throng_agent_add(fz.world, d, &h));
    if (st == THRONG_OK) {
        REQUIRE(!key_taken(d->host_key, -1));
        REQUIRE(throng_agent_valid(fz.world, h));
        for (uint32_t r = 0; r < fz.record_count; r++)
            REQUIRE(!fz.records[r].alive ||
                    fz.records[r].handle.slot != h.slot);
        add_record(h, d->host_key);
    }
}

static void op_add_many(void) {
    throng_agent_def d;
    uint32_t n = 1u + rd_u8() % 32u;
    rd_agent_def(&d);
    d.host_key = 0u;
    float x = d.position[0], y = d.position[1];
    for (uint32_t k = 0; k < n && !fz.ended; k++) {
        /* A little lattice around the decoded position. */
        d.position[0] = x + 0.37f * (float)(k % 6u);
        d.position[1] = y + 0.41f * (float)(k / 6u);
        d.velocity[0] = -d.velocity[0];
        op_add(&d);
    }
}

static void op_remove(void) {
    throng_status st;
    throng_agent h;
    int r = rd_agent(&h);
    CALL(throng_agent_remove(fz.world, h));
    if (r >= 0 && fz.records[r].alive) {
        REQUIRE(st == THRONG_OK || fz.heap.injected);
        if (st == THRONG_OK) {
            fz.records[r].alive = 0;
            fz.alive--;
        }
    } else {
        REQUIRE(st == THRONG_ERR_STALE_HANDLE);
    }
}

/* Setters on an agent: refused for any handle the books say is not live. */
static void expect_for(int r, throng_status st) {
    if (r < 0 || !fz.records[r].alive)
        REQUIRE(st != THRONG_OK);
}

static void op_set_vector(int velocity) {
    throng_status st;
    throng_agent h;
    float v[3];
    int r = rd_agent(&h);
    rd_vec(v);
    if (velocity)
        CALL(throng_agent_set_velocity(fz.world, h, v));
    else
        CALL(throng_agent_set_position(fz.world, h, v));
    expect_for(r, st);
    if (st == THRONG_OK) {
        float back[3];
        if (velocity)
            REQUIRE(throng_agent_get_velocity(fz.world, h, back) == THRONG_OK);
        else
            REQUIRE(throng_agent_get_position(fz.world, h, back) == THRONG_OK);
        for (int k = 0; k < fz.dims; k++)
            REQUIRE(is_finite(back[k]));
    }
}

static void op_set_scalar(void) {
    throng_status st;
    throng_agent h;
    int r = rd_agent(&h);
    uint8_t which = rd_u8() % 4u;
    float x = rd_float();
    switch (which) {
    case 0:
        CALL(throng_agent_set_mass(fz.world, h, x));
        break;
    case 1:
        CALL(throng_agent_set_max_force(fz.world, h, x));
        break;
    case 2:
        CALL(throng_agent_set_max_speed(fz.world, h, x));
        break;
    default:
        CALL(throng_agent_set_radius(fz.world, h, x));
        break;
    }
    expect_for(r, st);
    if (st == THRONG_OK)
        REQUIRE(is_finite(x) && x >= 0.0f);
}

static void op_set_group(void) {
    throng_status st;
    throng_agent h;
    int known;
    int r = rd_agent(&h);
    throng_group g = rd_group(&known, 1);
    CALL(throng_agent_set_group(fz.world, h, g));
    expect_for(r, st);
    if (st == THRONG_OK) {
        throng_group back = THRONG_NULL_GROUP;
        REQUIRE(known);
        REQUIRE(throng_agent_get_group(fz.world, h, &back) == THRONG_OK);
        REQUIRE(back.id == g.id && back.world == throng_world_id(fz.world));
    } else if (r >= 0 && fz.records[r].alive) {
        REQUIRE(!known);
    }
}

static void op_set_host_key(void) {
    throng_status st;
    throng_agent h;
    int r = rd_agent(&h);
    uint64_t key = rd_u8();
    CALL(throng_agent_set_host_key(fz.world, h, key));
    expect_for(r, st);
    if (r >= 0 && fz.records[r].alive) {
        if (key_taken(key, r))
            REQUIRE(st != THRONG_OK);
        if (st == THRONG_OK)
            fz.records[r].host_key = key;
    }
}

static void op_group_create(void) {
    throng_status st;
    char name[16];
    throng_group_def def = throng_group_def_default();
    uint8_t n = rd_u8();
    if (n != 0u) {
        snprintf(name, sizeof name, "g%u", (unsigned)(n % 8u));
        def.name = name;
    }
    params_made mf = { 0, 0 }, mw = { 0, 0 };
    if (rd_u8() & 1u) {
        rd_flocking(&def.flocking, &mf);
        rd_wander(&def.wander, &mw);
        def.combine = (throng_combine_mode)(rd_u8() % 4u);
    }
    if (fz.group_count >= MAX_GROUPS)
        return;
    throng_group g = THRONG_NULL_GROUP;
    CALL(throng_group_create(fz.world, &def, &g));
    expect_params(&mf, 0, st);
    expect_params(&mw, 0, st);
    if (st == THRONG_OK) {
        REQUIRE(g.id != 0u && g.generation >= 1u);
        /* A reused id comes back one generation on. */
        for (uint32_t k = 0; k < fz.group_count; k++) {
            REQUIRE(!fz.group_alive[k] || fz.groups[k].id != g.id);
            if (fz.groups[k].id == g.id)
                REQUIRE(g.generation > fz.groups[k].generation);
        }
        fz.group_alive[fz.group_count] = 1;
        fz.groups[fz.group_count++] = g;
        if (def.name) {
            throng_group found = THRONG_NULL_GROUP;
            REQUIRE(throng_group_find(fz.world, def.name, &found) == THRONG_OK);
            REQUIRE(found.id == g.id && found.generation == g.generation);
        }
    }
}

/* Removes a group: refused while agents belong to it (a count the fuzzer
 * takes from the group column), and for the default group. */
static void op_group_remove(void) {
    throng_status st;
    int known;
    throng_group g = rd_group(&known, 0);
    uint32_t members = 0;
    throng_columns c;
    if (!read_columns(&c))
        return;
    for (uint32_t i = 0; i < c.count; i++)
        members += known && c.group[i] == g.id;
    CALL(throng_group_remove(fz.world, g));
    if (!known)
        REQUIRE(st == THRONG_ERR_STALE_HANDLE);
    else if (g.id == 0u || members)
        REQUIRE(st == THRONG_ERR_INVALID_ARG);
    if (st == THRONG_OK) {
        REQUIRE(!throng_group_valid(fz.world, g));
        for (uint32_t k = 0; k < fz.group_count; k++)
            if (fz.groups[k].id == g.id)
                fz.group_alive[k] = 0;
    }
}

static void op_group_setting(uint8_t op) {
    throng_status st = THRONG_OK;
    int known;
    throng_group g = rd_group(&known, 0);
    params_made m;
    uint32_t count = 0;
    if (known)
        REQUIRE(throng_group_behaviour_count(fz.world, g, &count) == THRONG_OK);
    switch (op) {
    case FUZZ_OP_SET_FLOCKING: {
        throng_flocking f;
        rd_flocking(&f, &m);
        CALL(throng_group_set_flocking(fz.world, g, &f));
        expect_params(&m, known, st);
        break;
    }
    case FUZZ_OP_SET_WANDER: {
        throng_wander w;
        rd_wander(&w, &m);
        CALL(throng_group_set_wander(fz.world, g, &w));
        expect_params(&m, known, st);
        break;
    }
    case FUZZ_OP_SET_COMBINE:
        CALL(throng_group_set_combine(fz.world, g,
                                      (throng_combine_mode)(rd_u8() % 4u)));
        break;
    case FUZZ_OP_ADD_BEHAVIOUR: {
        throng_behaviour b;
        uint32_t index = ~0u;
        rd_behaviour(&b, &m);
        CALL(throng_group_add_behaviour(fz.world, g, &b, &index));
        expect_params(&m, known && count < THRONG_MAX_BEHAVIOURS, st);
        if (st == THRONG_OK) {
            REQUIRE(throng_group_behaviour_count(fz.world, g, &count) ==
                    THRONG_OK);
            REQUIRE(index + 1u == count && count <= THRONG_MAX_BEHAVIOURS);
        }
        break;
    }
    case FUZZ_OP_SET_BEHAVIOUR: {
        throng_behaviour b;
        uint32_t index = rd_u8() % (THRONG_MAX_BEHAVIOURS + 2u);
        rd_behaviour(&b, &m);
        CALL(throng_group_set_behaviour(fz.world, g, index, &b));
        expect_params(&m, known && index < count, st);
        if (st == THRONG_OK) {
            throng_behaviour back;
            REQUIRE(throng_group_get_behaviour(fz.world, g, index, &back) ==
                    THRONG_OK);
            REQUIRE(back.kind == b.kind && same_params(&back, &b));
        }
        break;
    }
    default:
        CALL(throng_group_clear_behaviours(fz.world, g));
        break;
    }
    if (!known)
        REQUIRE(st != THRONG_OK);
}

static void add_object(throng_status st, throng_object o) {
    if (st != THRONG_OK)
        return;
    REQUIRE(o.id != 0u);
    for (uint32_t r = 0; r < fz.object_count; r++)
        REQUIRE(!fz.objects[r].alive || fz.objects[r].handle.id != o.id);
    uint32_t r = fz.object_count;
    if (r == MAX_OBJECTS) {
        for (r = 0; r < MAX_OBJECTS && fz.objects[r].alive; r++) {
        }
        if (r == MAX_OBJECTS) {
            /* The books are full: forget the object by removing it. */
            REQUIRE(throng_object_remove(fz.world, o) == THRONG_OK);
            return;
        }
    } else {
        fz.object_count++;
    }
    fz.objects[r].handle = o;
    fz.objects[r].alive = 1;
    fz.objects_alive++;
}

static void op_shape(uint8_t op) {
    throng_status st;
    throng_object o = THRONG_NULL_OBJECT;
    float a[3], b[3];
    rd_vec(a);
    throng_obstacle_def od = throng_obstacle_def_default();
    throng_wall_def wd = throng_wall_def_default();
    if (op == FUZZ_OP_SPHERE) {
        memcpy(od.center, a, sizeof od.center);
        od.radius = rd_float();
        CALL(throng_obstacle_add(fz.world, &od, &o));
    } else {
        rd_vec(b);
        if (op == FUZZ_OP_BOX) {
            od.kind = THRONG_OBJECT_BOX;
            od.radius = 0.0f;
            memcpy(od.min, a, sizeof od.min);
            memcpy(od.max, b, sizeof od.max);
            CALL(throng_obstacle_add(fz.world, &od, &o));
        } else if (op == FUZZ_OP_SEGMENT) {
            memcpy(wd.a, a, sizeof wd.a);
            memcpy(wd.b, b, sizeof wd.b);
            CALL(throng_wall_add(fz.world, &wd, &o));
        } else {
            wd.kind = THRONG_OBJECT_PLANE;
            memcpy(wd.point, a, sizeof wd.point);
            memcpy(wd.normal, b, sizeof wd.normal);
            CALL(throng_wall_add(fz.world, &wd, &o));
        }
    }
    add_object(st, o);
}

static void op_path(void) {
    throng_status st;
    throng_object o = THRONG_NULL_OBJECT;
    float points[MAX_PATH_POINTS * 3];
    uint8_t n = rd_u8();
    int null_points = n == 0xFFu;
    uint32_t count = null_points ? 2u : n % (MAX_PATH_POINTS + 1u);
    float radius = rd_float();
    bool closed = (rd_u8() & 1u) != 0u;
    memset(points, 0, sizeof points);
    for (uint32_t k = 0; k < count && !null_points; k++)
        rd_vec(&points[3 * k]);
    throng_path_def pd = throng_path_def_default();
    pd.points = null_points ? NULL : points;
    pd.point_count = count;
    pd.radius = radius;
    pd.closed = closed;
    CALL(throng_path_add(fz.world, &pd, &o));
    if (null_points || count < 2u)
        REQUIRE(st != THRONG_OK);
    add_object(st, o);
}

static void op_flow(void) {
    throng_status st;
    throng_object o = THRONG_NULL_OBJECT;
    static float vectors[MAX_FLOW_POINTS * 3];
    throng_flow_field_def def;
    memset(&def, 0, sizeof def);
    rd_vec(def.origin);
    def.cell_size = rd_float();
    uint8_t mode = rd_u8();
    int huge = 0;
    if (mode == 0xFFu) {
        /* Sizes whose product is past THRONG_MAX_FLOW_CELLS however it
         * is computed: must be refused before the vectors are read. */
        def.size[0] = rd_u32() | 0x10000u;
        def.size[1] = rd_u32() | 0x10000u;
        def.size[2] = rd_u32() | 1u;
        huge = 1;
    } else {
        for (int k = 0; k < 3; k++)
            def.size[k] = rd_u8() % 10u;
        if (fz.dims == 2)
            def.size[2] = 0u;
    }
    uint32_t points =
        def.size[0] * def.size[1] * (fz.dims == 3 ? def.size[2] : 1u);
    if (huge || points > MAX_FLOW_POINTS) {
        if (!huge)
            return;
        points = 0u;
    }
    for (uint32_t k = 0; k < points * (uint32_t)fz.dims; k++)
        vectors[k] = rd_float();
    def.vectors = mode == 0xFEu ? NULL : vectors;
    CALL(throng_flow_field_add(fz.world, &def, &o));
    if (huge || def.vectors == NULL)
        REQUIRE(st != THRONG_OK);
    add_object(st, o);
}

static void op_object_remove(void) {
    throng_status st;
    throng_object o;
    int r = rd_object(&o);
    CALL(throng_object_remove(fz.world, o));
    if (r >= 0 && fz.objects[r].alive) {
        REQUIRE(st == THRONG_OK || fz.heap.injected);
        if (st == THRONG_OK) {
            fz.objects[r].alive = 0;
            fz.objects_alive--;
        }
    } else {
        REQUIRE(st != THRONG_OK);
    }
}

static void op_target(uint8_t op) {
    throng_status st;
    throng_agent h;
    int r = rd_agent(&h);
    if (op == FUZZ_OP_TARGET_POINT) {
        float p[3];
        rd_vec(p);
        CALL(throng_agent_set_target_point(fz.world, h, p));
    } else if (op == FUZZ_OP_TARGET_AGENT) {
        throng_agent t;
        int tr = rd_agent(&t);
        CALL(throng_agent_set_target_agent(fz.world, h, t));
        int null = t.slot == 0u && t.generation == 0u && t.world == 0u;
        int target_ok = null || (tr >= 0 && fz.records[tr].alive);
        if (!target_ok)
            REQUIRE(st != THRONG_OK);
        if (st == THRONG_OK && !null) {
            throng_agent back;
            REQUIRE(tr != r);
            REQUIRE(throng_agent_get_target_agent(fz.world, h, &back) ==
                    THRONG_OK);
            REQUIRE(back.slot == t.slot && back.generation == t.generation &&
                    back.world == t.world);
        }
    } else {
        CALL(throng_agent_set_progress(fz.world, h, rd_u32()));
    }
    expect_for(r, st);
}

static void op_query(void) {
    throng_status st;
    static throng_agent out[MAX_AGENTS];
    float p[3];
    rd_vec(p);
    float radius = rd_float();
    uint32_t capacity = rd_u8();
    uint32_t count = ~0u;
    bool truncated = false;
    if (capacity > MAX_AGENTS)
        capacity = MAX_AGENTS;
    CALL(throng_world_query_radius(fz.world, p, radius, capacity ? out : NULL,
                                   capacity, &count, &truncated));
    if (st == THRONG_OK) {
        REQUIRE(count <= fz.alive);
        REQUIRE(truncated == (count > capacity));
        uint32_t shown = count < capacity ? count : capacity;
        for (uint32_t k = 0; k < shown; k++) {
            float q[3] = { 0, 0, 0 };
            REQUIRE(throng_agent_get_position(fz.world, out[k], q) ==
                    THRONG_OK);
            if (!fz.periodic) {
                double d2 = 0.0;
                for (int a = 0; a < fz.dims; a++) {
                    double d = (double)q[a] - (double)p[a];
                    d2 += d * d;
                }
                double limit = (double)radius * (1.0 + 1e-5) + 1e-5;
                if (!(d2 <= limit * limit))
                    fprintf(stderr,
                            "fuzz_api: query (%g %g %g) radius %g found "
                            "(%g %g %g)\n",
                            (double)p[0], (double)p[1], (double)p[2],
                            (double)radius, (double)q[0], (double)q[1],
                            (double)q[2]);
                REQUIRE(d2 <= limit * limit);
            }
        }
    }
}

static void op_step(void) {
    throng_status st;
    float dt = rd_float();
    uint32_t repeat = 1u + rd_u8() % 4u;
    for (uint32_t k = 0; k < repeat && fz.steps < MAX_STEPS; k++) {
        uint64_t before = throng_world_step_count(fz.world);
        if (fz.trace)
            fprintf(stderr, "  step dt %g\n", (double)dt);
        /* Not CALL: a step split into ticks that runs out of memory in a
         * later tick keeps the ticks before it (throng.h); only a refusal
         * that ran no tick must leave the state as it was. */
        uint64_t hash_before = throng_world_hash(fz.world);
        st = throng_world_step(fz.world, dt);
        if (fz.trace)
            fprintf(stderr, "  throng_world_step -> %s %s\n",
                    throng_status_string(st),
                    st ? throng_world_last_error(fz.world) : "");
        if (st != THRONG_OK && throng_world_step_count(fz.world) == before)
            REQUIRE(throng_world_hash(fz.world) == hash_before);
        fz.steps++;
        if (!(is_finite(dt) && dt > 0.0f)) {
            REQUIRE(st != THRONG_OK);
            return;
        }
        if (st != THRONG_OK) {
            /* Out of memory: a first tick that fails changes nothing; the
             * ticks before a later failure stand. */
            REQUIRE(fz.heap.injected);
            REQUIRE(throng_world_step_count(fz.world) >= before);
            return;
        }
        /* A long dt runs as several ticks (at most 10 by default). */
        throng_step_stats ss;
        REQUIRE(throng_world_stats(fz.world, &ss) == THRONG_OK);
        REQUIRE(ss.ticks >= 1u && ss.ticks <= 10u);
        REQUIRE(throng_world_step_count(fz.world) == before + ss.ticks);
        check_books();
        check_state();
    }
}

static uint8_t *save_world(throng_world *w, size_t *out_size) {
    size_t size = 0, written = 0;
    REQUIRE(throng_world_snapshot_size(w, &size) == THRONG_OK);
    REQUIRE(size >= 40u);
    uint8_t *buffer = malloc(size);
    REQUIRE(buffer != NULL);
    REQUIRE(throng_world_save(w, buffer, size, &written) == THRONG_OK);
    REQUIRE(written == size);
    *out_size = size;
    return buffer;
}

/* The loaded world refuses the saved world's handles as they are, and
 * rebinds exactly the live ones; the books then hold its handles. */
static void rebind_books(throng_world *loaded) {
    uint64_t id = throng_world_id(loaded);
    REQUIRE(id != 0u && id != throng_world_id(fz.world));
    for (uint32_t r = 0; r < fz.record_count; r++) {
        throng_agent *h = &fz.records[r].handle, back = THRONG_NULL_AGENT;
        REQUIRE(!throng_agent_valid(loaded, *h));
        throng_status st = throng_agent_rebind(loaded, *h, &back);
        REQUIRE((st == THRONG_OK) == (fz.records[r].alive != 0));
        if (st == THRONG_OK)
            REQUIRE(back.slot == h->slot && back.generation == h->generation &&
                    back.world == id);
        h->world = id;
    }
    for (uint32_t r = 0; r < fz.object_count; r++) {
        throng_object *o = &fz.objects[r].handle, back = THRONG_NULL_OBJECT;
        throng_status st = throng_object_rebind(loaded, *o, &back);
        REQUIRE((st == THRONG_OK) == (fz.objects[r].alive != 0));
        if (st == THRONG_OK)
            REQUIRE(back.id == o->id && back.generation == o->generation &&
                    back.world == id);
        o->world = id;
    }
    for (uint32_t k = 0; k < fz.group_count; k++) {
        throng_group *g = &fz.groups[k], back = THRONG_NULL_GROUP;
        REQUIRE(!throng_group_valid(loaded, *g));
        throng_status st = throng_group_rebind(loaded, *g, &back);
        REQUIRE((st == THRONG_OK) == (fz.group_alive[k] != 0));
        if (st == THRONG_OK)
            REQUIRE(back.id == g->id && back.generation == g->generation &&
                    back.world == id);
        g->world = id;
    }
}

static void op_save_load(void) {
    uint8_t mode = rd_u8();
    size_t size = 0, size2 = 0, written = 0;
    if (mode & 1u) {
        REQUIRE(throng_world_snapshot_size(fz.world, &size) == THRONG_OK);
        uint64_t before = throng_world_hash(fz.world);
        uint8_t *small = malloc(size - 1u);
        REQUIRE(small != NULL);
        REQUIRE(throng_world_save(fz.world, small, size - 1u, &written) ==
                THRONG_ERR_CAPACITY);
        free(small);
        REQUIRE(written == size);
        written = 0;
        REQUIRE(throng_world_save(fz.world, NULL, 0, &written) ==
                THRONG_ERR_CAPACITY);
        REQUIRE(written == size && throng_world_hash(fz.world) == before);
    }
    uint8_t *bytes = save_world(fz.world, &size);
    throng_world_load_def def = throng_world_load_def_default();
    def.allocator = fuzz_allocator();
    char why[128];
    def.error = why;
    def.error_capacity = sizeof why;
    throng_world *loaded = NULL;
    throng_status st = throng_world_load(bytes, size, &def, &loaded);
    if (st != THRONG_OK) {
        /* Only out of memory excuses a refusal of our own snapshot. */
        if (!fz.heap.injected)
            fprintf(stderr, "fuzz_api: own snapshot refused: %s\n", why);
        REQUIRE(fz.heap.injected && st == THRONG_ERR_OUT_OF_MEMORY);
        REQUIRE(loaded == NULL);
        free(bytes);
        return;
    }
    REQUIRE(throng_world_hash(loaded) == throng_world_hash(fz.world));
    uint8_t *again = save_world(loaded, &size2);
    /* The same bytes but for the saving world's id and the checksum. */
    REQUIRE(size2 == size && size > FUZZ_SNAP_WORLD_ID_AT + 8u);
    REQUIRE(memcmp(again, bytes, FUZZ_SNAP_CHECKSUM_AT) == 0);
    REQUIRE(memcmp(again + FUZZ_SNAP_CHECKSUM_AT + 8u,
                   bytes + FUZZ_SNAP_CHECKSUM_AT + 8u,
                   FUZZ_SNAP_WORLD_ID_AT - FUZZ_SNAP_CHECKSUM_AT - 8u) == 0);
    REQUIRE(memcmp(again + FUZZ_SNAP_WORLD_ID_AT + 8u,
                   bytes + FUZZ_SNAP_WORLD_ID_AT + 8u,
                   size - FUZZ_SNAP_WORLD_ID_AT - 8u) == 0);
    free(again);
    free(bytes);
    rebind_books(loaded);
    throng_world_destroy(fz.world);
    fz.world = loaded;
    check_books();
}

static void op_read(void) {
    throng_agent h;
    int r = rd_agent(&h);
    int live = r >= 0 && fz.records[r].alive;
    throng_agent_def d;
    float f[3], u[3], s[3];
    uint32_t index = ~0u;
    throng_status st = throng_agent_get_def(fz.world, h, &d);
    REQUIRE((st == THRONG_OK) == (live != 0));
    st = throng_agent_get_basis(fz.world, h, f, u, s);
    REQUIRE((st == THRONG_OK) == (live != 0));
    st = throng_agent_index(fz.world, h, &index);
    REQUIRE((st == THRONG_OK) == (live != 0));
    if (live) {
        throng_agent back;
        REQUIRE(index < fz.alive);
        REQUIRE(throng_agent_at(fz.world, index, &back) == THRONG_OK);
        REQUIRE(back.slot == h.slot && back.generation == h.generation &&
                back.world == h.world);
        REQUIRE(d.host_key == fz.records[r].host_key);
        if (d.host_key != 0u) {
            REQUIRE(throng_agent_find(fz.world, d.host_key, &back) ==
                    THRONG_OK);
            REQUIRE(back.slot == h.slot && back.generation == h.generation &&
                    back.world == h.world);
        }
        REQUIRE(throng_agent_get_target_point(fz.world, h, f) == THRONG_OK);
        REQUIRE(throng_agent_get_target_agent(fz.world, h, &back) == THRONG_OK);
        REQUIRE(throng_agent_get_progress(fz.world, h, &index) == THRONG_OK);
    }
    throng_agent none;
    REQUIRE(throng_agent_at(fz.world, fz.alive, &none) != THRONG_OK);
    for (uint32_t k = 0; k < fz.objects_alive; k++) {
        throng_object o;
        throng_object_info info;
        REQUIRE(throng_world_object_at(fz.world, k, &o) == THRONG_OK);
        REQUIRE(throng_object_get(fz.world, o, &info) == THRONG_OK);
        if (info.kind == THRONG_OBJECT_PATH)
            for (uint32_t p = 0; p < info.point_count * 3u; p++)
                REQUIRE(is_finite(info.points[p]));
    }
    throng_object o;
    int ro = rd_object(&o);
    throng_object_info info;
    st = throng_object_get(fz.world, o, &info);
    REQUIRE((st == THRONG_OK) == (ro >= 0 && fz.objects[ro].alive));
    throng_step_stats stats;
    REQUIRE(throng_world_stats(fz.world, &stats) == THRONG_OK);
    throng_columns cols;
    if (!read_columns(&cols))
        return;
    for (uint32_t i = 0; i < cols.count; i++) {
        throng_agent a;
        throng_group g;
        uint64_t key = 0;
        REQUIRE(throng_agent_at(fz.world, i, &a) == THRONG_OK);
        REQUIRE(throng_agent_get_group(fz.world, a, &g) == THRONG_OK);
        REQUIRE(throng_agent_get_host_key(fz.world, a, &key) == THRONG_OK);
        REQUIRE(cols.group[i] == g.id && cols.host_key[i] == key);
    }
    for (uint32_t k = 0; k <= fz.group_count; k++) {
        throng_group g = k == 0u ? default_group(fz.world) : fz.groups[k - 1u];
        uint32_t count = 0;
        throng_flocking fl;
        if (k > 0u && !fz.group_alive[k - 1u]) {
            REQUIRE(throng_group_get_flocking(fz.world, g, &fl) ==
                    THRONG_ERR_STALE_HANDLE);
            continue;
        }
        REQUIRE(throng_group_get_flocking(fz.world, g, &fl) == THRONG_OK);
        REQUIRE(throng_group_behaviour_count(fz.world, g, &count) == THRONG_OK);
        for (uint32_t b = 0; b < count; b++) {
            throng_behaviour beh;
            REQUIRE(throng_group_get_behaviour(fz.world, g, b, &beh) ==
                    THRONG_OK);
        }
    }
}

static void op_threads(void) {
    static const int choices[6] = { 1, 2, 0, -1, 1025, 2 };
    throng_status st =
        throng_world_set_threads(fz.world, choices[rd_u8() % 6u]);
    (void)st;
}

/* ------------------------------------------------------------------------ */
/* The entry point                                                          */
/* ------------------------------------------------------------------------ */

static void create_world(void) {
    throng_world_def def = throng_world_def_default();
    uint8_t flags = rd_u8();
    def.dimensions = (flags & FUZZ_WORLD_3D) ? 3 : 2;
    if (flags & 0x80u)
        def.dimensions = (int)(flags & 0x0Fu); /* often invalid */
    def.boundary = (flags & FUZZ_WORLD_PERIODIC) ? THRONG_BOUNDARY_PERIODIC
                                                 : THRONG_BOUNDARY_UNBOUNDED;
    def.neighbour_radius = rd_float();
    def.cell_size = rd_float();
    for (int k = 0; k < 3; k++)
        def.box_size[k] = rd_float();
    def.seed = rd_u8();
    def.initial_capacity = rd_u8();
    def.threads = 1;
    def.allocator = fuzz_allocator();
    throng_world *w = NULL;
    if (throng_world_create(&def, &w) != THRONG_OK) {
        REQUIRE(w == NULL);
        /* Carry on in a default world, so the operations still run. */
        def = throng_world_def_default();
        def.dimensions = (flags & FUZZ_WORLD_3D) ? 3 : 2;
        def.threads = 1;
        def.allocator = fuzz_allocator();
        REQUIRE(throng_world_create(&def, &w) == THRONG_OK);
    }
    fz.world = w;
    fz.dims = throng_world_dimensions(w);
    fz.periodic = def.boundary == THRONG_BOUNDARY_PERIODIC;
    fz.neighbour_radius = def.neighbour_radius;
    REQUIRE(fz.dims == 2 || fz.dims == 3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    memset(&fz, 0, sizeof fz);
    fz.data = data;
    fz.size = size;
    const char *trace = getenv("THRONG_FUZZ_TRACE");
    fz.trace = trace && trace[0] == '1';
    create_world();
    for (uint32_t n = 0; n < MAX_OPS && !fz.ended; n++) {
        uint8_t op = rd_u8();
        if (fz.ended)
            break;
        op %= FUZZ_OP_COUNT;
        int armed = fz.fail_armed;
        switch (op) {
        case FUZZ_OP_ADD: {
            throng_agent_def d;
            rd_agent_def(&d);
            op_add(&d);
            break;
        }
        case FUZZ_OP_ADD_MANY:
            op_add_many();
            break;
        case FUZZ_OP_REMOVE:
            op_remove();
            break;
        case FUZZ_OP_SET_POSITION:
            op_set_vector(0);
            break;
        case FUZZ_OP_SET_VELOCITY:
            op_set_vector(1);
            break;
        case FUZZ_OP_SET_SCALAR:
            op_set_scalar();
            break;
        case FUZZ_OP_SET_GROUP:
            op_set_group();
            break;
        case FUZZ_OP_SET_HOST_KEY:
            op_set_host_key();
            break;
        case FUZZ_OP_GROUP_CREATE:
            op_group_create();
            break;
        case FUZZ_OP_GROUP_REMOVE:
            op_group_remove();
            break;
        case FUZZ_OP_SET_FLOCKING:
        case FUZZ_OP_SET_WANDER:
        case FUZZ_OP_SET_COMBINE:
        case FUZZ_OP_ADD_BEHAVIOUR:
        case FUZZ_OP_SET_BEHAVIOUR:
        case FUZZ_OP_CLEAR_BEHAVIOURS:
            op_group_setting(op);
            break;
        case FUZZ_OP_SPHERE:
        case FUZZ_OP_BOX:
        case FUZZ_OP_SEGMENT:
        case FUZZ_OP_PLANE:
            op_shape(op);
            break;
        case FUZZ_OP_PATH:
            op_path();
            break;
        case FUZZ_OP_FLOW:
            op_flow();
            break;
        case FUZZ_OP_OBJECT_REMOVE:
            op_object_remove();
            break;
        case FUZZ_OP_TARGET_POINT:
        case FUZZ_OP_TARGET_AGENT:
        case FUZZ_OP_PROGRESS:
            op_target(op);
            break;
        case FUZZ_OP_QUERY:
            op_query();
            break;
        case FUZZ_OP_STEP:
            op_step();
            break;
        case FUZZ_OP_SAVE_LOAD:
            op_save_load();
            break;
        case FUZZ_OP_THREADS:
            op_threads();
            break;
        case FUZZ_OP_READ:
            op_read();
            break;
        case FUZZ_OP_FAIL_ALLOC:
            /* Fail an allocation during the next operation. */
            fz.fail_armed = 1;
            ts_heap_arm(&fz.heap, rd_u8() % 8u, true);
            break;
        default:
            break;
        }
        if (armed) {
            fz.fail_armed = 0;
            ts_heap_count(&fz.heap);
        }
        check_books();
    }
    check_books();
    throng_world_destroy(fz.world);
    fz.world = NULL;
    REQUIRE(fz.heap.live == 0u && fz.heap.blocks == 0u);
    return 0;
}
