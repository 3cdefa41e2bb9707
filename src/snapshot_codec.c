/* SPDX-License-Identifier: MIT */
/*
 * Snapshots, the codec: a world's whole state as bytes and back. Saving
 * is snapshot_write.c; loading is snapshot_read.c (the bytes, their
 * header and checksum) and snapshot_restore.c (the world made from them).
 * The format's header is documented in throng.h; the payload is what
 * this file walks, in this order:
 *
 *   settings  dimensions, boundary, box, neighbour radius, the grid's
 *             cells (edge, reach, cells per axis), threads, seed, the
 *             saving world's id (version 3 on; before, its 8-bit tag),
 *             step count, the sticky flags, and every count below
 *   objects   every id handed out: kind, generation, shape, path points
 *             and lengths, flow vectors, a navigation field's description
 *             and last count (version 6 on; the field is built again
 *             from them when loading); then the free ids in stack order
 *             (a free id not listed is retired)
 *   groups    every id handed out: generation and whether a group holds
 *             it (version 4 on), then a live group's name, flocking,
 *             wander, combine mode, avoidance, motion and layers (version 5 on) and
 *             behaviour list; then the removed
 *             groups' free ids in stack order (a free id not listed is
 *             retired)
 *   slots     generation and host key of every slot; then the free slots
 *             in stack order (a free slot not listed is retired)
 *   agents    every column the world has, in dense row order
 *   nav       version 6 on: whether the slots have navigation state,
 *             and then each slot's (its own field, its arrival)
 *
 * One codec walks both ways. Each part of the state is visited by one
 * function that either writes its fields or reads them back, so save and
 * load cannot drift apart, and the writer also runs without a buffer to
 * measure, so the size and the bytes come from the same code. Every value
 * is written byte by byte, little-endian, floats by their bits; only whole
 * arrays take a memcpy, on hosts where that is the same thing.
 *
 * What must be kept for a bit-identical continuation is the order of
 * things, not only their values: the dense rows (the grid sorts stably, so
 * the order of agents within a cell decides the order in which neighbour
 * sums are added), the free lists (they decide which slot and object id
 * the next add reuses) and the generations. Capacities, the grids and the
 * kernel constants are not saved: the first two are rebuilt by the next
 * step from the state alone, the last derived again from the recipes.
 */
#include "snapshot_codec.h"
#include "nav_field.h"
#include "columns.h"
#include "schema.h"
#include "geometry.h"
#include "core.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* 64-bit FNV-1a. Each step xors in one byte and multiplies by an odd
 * constant, a bijection of the running value, so changing any single byte
 * always changes the result; a 64-bit value also makes an accidental
 * match of any larger damage vanishingly rare. */
#define FNV_OFFSET 0xCBF29CE484222325ull
#define FNV_PRIME 0x100000001B3ull

/* The columns in the format's order; absent ones (NULL) are skipped, and
 * which are absent follows from the dimensions and the behaviour-state
 * flag, which the settings carry. */
#define SNAP_FLOAT_COLUMNS 23
#define SNAP_U32_COLUMNS 5

/* ------------------------------------------------------------------------ */
/* The codec                                                                */
/* ------------------------------------------------------------------------ */

void snap_fail(snap_codec *c, throng_status status, const char *fmt, ...) {
    if (c->status != THRONG_OK)
        return;
    c->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
}

/* Reading: whether `bytes` more are there; refuses the snapshot if not. */
int snap_has(snap_codec *c, uint64_t bytes, const char *what) {
    if (c->status != THRONG_OK)
        return 0;
    if (c->len - c->pos < bytes) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "%s needs %llu bytes at offset %llu, the snapshot has "
                  "%llu left",
                  what, (unsigned long long)bytes, (unsigned long long)c->pos,
                  (unsigned long long)(c->len - c->pos));
        return 0;
    }
    return 1;
}

static void io_raw(snap_codec *c, void *bytes, size_t n) {
    if (n == 0)
        return; /* an empty column's pointer may be NULL */
    if (c->reading) {
        if (!snap_has(c, n, "a field")) {
            memset(bytes, 0, n);
            return;
        }
        memcpy(bytes, c->in + c->pos, n);
    } else if (c->out) {
        memcpy(c->out + c->pos, bytes, n);
    }
    c->pos += n;
}

void io_u32(snap_codec *c, uint32_t *v) {
    uint8_t b[4];
    for (unsigned k = 0; k < 4u; k++)
        b[k] = (uint8_t)(*v >> (8u * k));
    io_raw(c, b, sizeof b);
    if (c->reading) {
        uint32_t x = 0;
        for (unsigned k = 0; k < 4u; k++)
            x |= (uint32_t)b[k] << (8u * k);
        *v = x;
    }
}

void io_u64(snap_codec *c, uint64_t *v) {
    uint8_t b[8];
    for (unsigned k = 0; k < 8u; k++)
        b[k] = (uint8_t)(*v >> (8u * k));
    io_raw(c, b, sizeof b);
    if (c->reading) {
        uint64_t x = 0;
        for (unsigned k = 0; k < 8u; k++)
            x |= (uint64_t)b[k] << (8u * k);
        *v = x;
    }
}

/* Signed integers and floats travel as the bits of a u32. */
static void io_i32(snap_codec *c, int32_t *v) {
    uint32_t u;
    memcpy(&u, v, sizeof u);
    io_u32(c, &u);
    if (c->reading)
        memcpy(v, &u, sizeof u);
}

static void io_f32(snap_codec *c, float *v) {
    uint32_t u;
    memcpy(&u, v, sizeof u);
    io_u32(c, &u);
    if (c->reading)
        memcpy(v, &u, sizeof u);
}

static void io_f32n(snap_codec *c, float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        io_f32(c, &v[i]);
}

static void io_bool(snap_codec *c, bool *v) {
    uint32_t u = *v ? 1u : 0u;
    io_u32(c, &u);
    if (c->reading) {
        if (u > 1u)
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "a flag at offset %llu is %u, not 0 or 1",
                      (unsigned long long)(c->pos - 4u), u);
        *v = u != 0u;
    }
}

/* Enums travel as a u32; the caller checks the value read. */
#define IO_ENUM(c, field, type)             \
    do {                                    \
        uint32_t enum_ = (uint32_t)(field); \
        io_u32((c), &enum_);                \
        if ((c)->reading)                   \
            (field) = (type)enum_;          \
    } while (0)

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SNAP_HOST_LITTLE 1
#else
#define SNAP_HOST_LITTLE 0
#endif

/* Whole columns: on a little-endian host the array is already in the
 * format's byte order, and a copy is what the loop would do. */
void io_u32s(snap_codec *c, uint32_t *v, size_t n) {
    if (SNAP_HOST_LITTLE) {
        io_raw(c, v, n * sizeof *v);
        return;
    }
    for (size_t i = 0; i < n; i++)
        io_u32(c, &v[i]);
}

static void io_f32s(snap_codec *c, float *v, size_t n) {
    if (SNAP_HOST_LITTLE) {
        io_raw(c, v, n * sizeof *v);
        return;
    }
    io_f32n(c, v, n);
}

static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= FNV_PRIME;
    }
    return h;
}

/* The checksum of a whole snapshot: every byte but the checksum's own. */
uint64_t snap_checksum(const uint8_t *s, size_t total) {
    uint64_t h = fnv1a(FNV_OFFSET, s, SNAP_CHECKSUM_AT);
    return fnv1a(h, s + SNAP_HEADER_BYTES, total - SNAP_HEADER_BYTES);
}

/* ------------------------------------------------------------------------ */
/* The parts of the state                                                   */
/* ------------------------------------------------------------------------ */

void io_settings(snap_codec *c, snap_settings *s) {
    io_u32(c, &s->dims);
    io_u32(c, &s->boundary);
    io_f32n(c, s->box, 3);
    io_f32(c, &s->neighbour_radius);
    io_f32n(c, s->edge, 3);
    for (int a = 0; a < 3; a++)
        io_i32(c, &s->reach[a]);
    for (int a = 0; a < 3; a++)
        io_i32(c, &s->cells[a]);
    io_i32(c, &s->threads);
    io_u64(c, &s->seed);
    if (c->version >= SNAP_VERSION_WORLD_ID)
        io_u64(c, &s->world_id);
    else
        io_u32(c, &s->tag);
    io_u64(c, &s->step);
    io_u32(c, &s->wander_used);
    io_u32(c, &s->behaviour_state);
    io_u32(c, &s->group_count);
    io_u32(c, &s->has_geometry);
    io_u32(c, &s->object_count);
    io_u32(c, &s->object_free);
    io_u32(c, &s->slot_count);
    io_u32(c, &s->slot_free);
    io_u32(c, &s->agent_count);
    if (c->version >= 2u) {
        io_f32(c, &s->max_dt);
        io_u32(c, &s->max_substeps);
        io_f32(c, &s->cell_size);
    } else {
        s->max_dt = THRONG_DEFAULT_MAX_DT;
        s->max_substeps = THRONG_DEFAULT_MAX_SUBSTEPS;
        s->cell_size = s->edge[0];
    }
    if (c->version >= SNAP_VERSION_GROUP_HANDLES)
        io_u32(c, &s->group_free);
}

/* An object handle of a behaviour: its id and generation; read back, it
 * is the loading world's (its objects keep their ids and generations). */
static void io_object_handle(snap_codec *c, throng_object *o) {
    io_u32(c, &o->id);
    io_u32(c, &o->generation);
    if (c->reading) {
        if (c->version < SNAP_VERSION_WORLD_ID)
            o->generation &= SNAP_COUNTER_MASK;
        o->world = o->id != 0u ? c->world_id : 0u;
    }
}

/* A field the format does not hold yet would be dropped on saving: every
 * row's `since` is at most the version this library writes. */
#define SINCE_OK(st, field, type, ctype, n, kinds, when, wv, wk, unit, lo, hi, \
                 flags, dflt, since, doc)                                      \
    _Static_assert((since) <= THRONG_SNAPSHOT_VERSION,                         \
                   #st "." #field ": since is past THRONG_SNAPSHOT_VERSION");
THRONG_SCHEMA_PARAMS(SINCE_OK)
#undef SINCE_OK

/* One field of the schema (schema.h) in the struct at base; a field that
 * the snapshot's format version does not hold reads as its default. */
static void io_schema_field(snap_codec *c, const schema_field *f, void *base) {
    char *p = (char *)base + schema_structs[f->strct].base + f->offset;
    if (c->version < f->since) {
        if (c->reading)
            schema_field_default(f, base);
        return;
    }
    for (int k = 0; k < f->n; k++, p += f->size) {
        switch (f->type) {
        case SCHEMA_F32:
            io_f32(c, (float *)(void *)p);
            break;
        case SCHEMA_I32:
            io_i32(c, (int32_t *)(void *)p);
            break;
        case SCHEMA_U32:
            io_u32(c, (uint32_t *)(void *)p);
            break;
        case SCHEMA_BOOL:
            io_bool(c, (bool *)(void *)p);
            break;
        case SCHEMA_ENUM:
            IO_ENUM(c, *(int *)(void *)p, int);
            break;
        default:
            io_object_handle(c, (throng_object *)(void *)p);
            break;
        }
    }
}

/* Every field of `set` in table order; for a behaviour, the common
 * fields, then those of the union member its kind uses. */
static void io_schema(snap_codec *c, schema_set set, void *base, int kind) {
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < schema_field_count; i++) {
            const schema_field *f = &schema_fields[i];
            const schema_struct *st = &schema_structs[f->strct];
            if (st->set != set || (st->member[0] == '_') != (pass == 0) ||
                (pass == 1 && !schema_part_of(f, kind)))
                continue;
            io_schema_field(c, f, base);
        }
}

/* A behaviour: its kind, the common fields, then the union member its
 * kind uses. */
static void io_behaviour(snap_codec *c, throng_behaviour *b) {
    IO_ENUM(c, b->kind, throng_behaviour_kind);
    /* A kind the format's library did not have is as unknown as one
     * beyond the table. */
    if (c->reading && c->status == THRONG_OK &&
        (!schema_kind_known((int)b->kind) ||
         (b->kind == THRONG_BEHAVIOUR_FOLLOW_NAV &&
          c->version < SNAP_VERSION_NAV))) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT, "unknown behaviour kind %u",
                  (unsigned)b->kind);
        return;
    }
    io_schema(c, SCHEMA_SET_BEHAVIOUR, b, (int)b->kind);
}

void io_group(snap_codec *c, group_record *g) {
    io_raw(c, g->name, sizeof g->name);
    io_schema(c, SCHEMA_SET_FLOCKING, &g->flocking, 0);
    io_schema(c, SCHEMA_SET_WANDER, &g->wander, 0);
    IO_ENUM(c, g->combine, throng_combine_mode);
    io_schema(c, SCHEMA_SET_AVOIDANCE, &g->avoidance, 0);
    io_schema(c, SCHEMA_SET_MOTION, &g->motion, 0);
    io_schema(c, SCHEMA_SET_LAYERS, &g->layers, 0);
    io_u32(c, &g->behaviour_count);
    if (c->reading && g->behaviour_count > THRONG_MAX_BEHAVIOURS) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "a group lists %u behaviours, more than %u",
                  g->behaviour_count, THRONG_MAX_BEHAVIOURS);
        g->behaviour_count = 0;
    }
    for (uint32_t i = 0; i < g->behaviour_count && c->status == THRONG_OK; i++)
        io_behaviour(c, &g->behaviours[i]);
}

/* A path's block holds its points (3 floats each) and the length at each
 * point, plus the closing one (steer_route.c). */
static size_t path_floats(uint32_t count, int closed) {
    return 4u * (size_t)count + (closed ? 1u : 0u);
}

/* Reading: a block of `count` items of `size` bytes from the world for a
 * navigation field's description, after checking the bytes are there. */
static void *nav_block(snap_codec *c, throng_world *w, uint64_t count,
                       size_t size, uint64_t least, const char *what) {
    if (count == 0u || !snap_has(c, count * least, what))
        return NULL;
    void *p = world_alloc(w, (size_t)count * size);
    if (!p)
        snap_fail(c, THRONG_ERR_OUT_OF_MEMORY, "no memory for %s", what);
    return p;
}

/* A navigation field: its description and its last count. Reading makes
 * the field (nav_field_create, after nav_field_check_def: the checks of
 * throng_nav_field_add), unbuilt; snap_decode builds it once the whole
 * world is there, its density from the count. */
static void io_nav(snap_codec *c, throng_world *w, geo_object *o) {
    throng_nav_field_def d;
    const nav_field *f = o->nav;
    if (c->reading)
        d = throng_nav_field_def_default();
    else
        nav_field_def_of(f, &d);
    uint32_t has_costs = d.costs ? 1u : 0u;
    io_f32n(c, d.origin, 3);
    io_f32(c, &d.cell_size);
    for (int k = 0; k < 3; k++)
        io_u32(c, &d.size[k]);
    io_f32(c, &d.clearance);
    io_u32(c, &d.density_interval);
    io_f32(c, &d.density_radius);
    io_f32(c, &d.density_cost);
    io_u32(c, &d.goal_count);
    io_u32(c, &d.region_count);
    io_u32(c, &has_costs);
    uint64_t cells = 1u;
    for (int k = 0; k < 3; k++)
        cells *= d.size[k];
    throng_nav_goal *goals = (throng_nav_goal *)(uintptr_t)d.goals;
    throng_nav_region *regions = (throng_nav_region *)(uintptr_t)d.regions;
    float *costs = (float *)(uintptr_t)d.costs;
    if (c->reading) {
        if (c->status != THRONG_OK)
            return;
        if (d.goal_count > THRONG_MAX_NAV_GOALS ||
            d.region_count > THRONG_MAX_NAV_REGIONS || has_costs > 1u ||
            cells > THRONG_MAX_NAV_CELLS || cells == 0u) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "a navigation field of %u goals, %u regions, %llu "
                      "cells (costs %u)",
                      d.goal_count, d.region_count, (unsigned long long)cells,
                      has_costs);
            return;
        }
        goals = nav_block(c, w, d.goal_count, sizeof *goals, 28u,
                          "a navigation field's goals");
        regions = nav_block(c, w, d.region_count, sizeof *regions, 28u,
                            "a navigation field's regions");
        costs = nav_block(c, w, has_costs ? cells : 0u, sizeof *costs, 4u,
                          "a navigation field's costs");
    }
    for (uint32_t i = 0; i < d.goal_count && goals && c->status == THRONG_OK;
         i++) {
        IO_ENUM(c, goals[i].kind, throng_nav_goal_kind);
        io_f32n(c, goals[i].a, 3);
        io_f32n(c, goals[i].b, 3);
    }
    for (uint32_t i = 0;
         i < d.region_count && regions && c->status == THRONG_OK; i++) {
        io_f32n(c, regions[i].min, 3);
        io_f32n(c, regions[i].max, 3);
        io_f32(c, &regions[i].cost);
    }
    if (has_costs && costs && c->status == THRONG_OK)
        io_f32s(c, costs, (size_t)cells);
    uint32_t counted = f && f->counted && !c->definition ? 1u : 0u;
    io_u32(c, &counted);
    if (!c->reading) {
        if (f && d.density_interval && counted)
            io_u32s(c, f->counts, (size_t)cells);
        return;
    }
    nav_field *made = NULL;
    if (c->status == THRONG_OK && counted > 1u)
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "a navigation field's count flag is %u", counted);
    if (c->status == THRONG_OK) {
        d.goals = goals;
        d.regions = regions;
        d.costs = costs;
        /* The checks throng_nav_field_add made, from the same code. */
        if (nav_field_check_def(w, "a navigation field", &d) != THRONG_OK)
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT, "%s", w->error);
    }
    if (c->status == THRONG_OK) {
        made = nav_field_create(w, "a navigation field", &d);
        if (!made)
            snap_fail(c, THRONG_ERR_OUT_OF_MEMORY, "%s", w->error);
    }
    if (made && d.density_interval && counted) {
        if (snap_has(c, cells * 4u, "a navigation field's counts")) {
            io_u32s(c, made->counts, (size_t)cells);
            made->counted = 1;
        }
    } else if (made && counted) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "a navigation field without counting holds a count");
    }
    world_free(w, goals, (size_t)d.goal_count * sizeof *goals);
    world_free(w, regions, (size_t)d.region_count * sizeof *regions);
    world_free(w, costs, has_costs ? (size_t)cells * sizeof *costs : 0u);
    if (c->status != THRONG_OK) {
        nav_field_free(w, made);
        o->kind = GEO_FREE;
        return;
    }
    o->nav = made;
}

void io_slot_nav(snap_codec *c, throng_world *w) {
    uint32_t has = w->slot_nav ? 1u : 0u;
    io_u32(c, &has);
    if (c->reading) {
        if (c->status != THRONG_OK || !has)
            return;
        if (has > 1u) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "the navigation state flag is %u", has);
            return;
        }
        if (!snap_has(c, (uint64_t)w->slot_count * 24u,
                      "the slots' navigation state"))
            return;
        if (world_enable_nav_state(w)) {
            snap_fail(c, THRONG_ERR_OUT_OF_MEMORY,
                      "no memory for the navigation state of %u slots",
                      w->slot_count);
            return;
        }
    } else if (!has) {
        return;
    }
    if (!w->slot_nav)
        return;
    for (uint32_t s = 0; s < w->slot_count && c->status == THRONG_OK; s++) {
        slot_nav *n = &w->slot_nav[s];
        uint32_t flags = (uint32_t)n->state | ((uint32_t)n->remove << 8);
        io_u32(c, &n->field_id);
        io_u32(c, &n->field_gen);
        io_u32(c, &n->arrived_id);
        io_u32(c, &n->arrived_gen);
        io_u32(c, &n->goal);
        io_u32(c, &flags);
        if (c->reading) {
            const uint32_t state = flags & 0xffu, remove = flags >> 8;
            /* Between steps an agent is going or has arrived. */
            if (state == SLOT_NAV_ARRIVING || state > SLOT_NAV_ARRIVED ||
                remove > 1u)
                snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                          "slot %u's navigation state %#x", s, flags);
            n->state = (uint8_t)state;
            n->remove = (uint8_t)remove;
        }
    }
}

/* An object. Reading, the path or field block is allocated from the world
 * once its size is known and checked against the bytes left. */
void io_object(snap_codec *c, throng_world *w, geo_object *o) {
    IO_ENUM(c, o->kind, geo_kind);
    io_u32(c, &o->generation);
    if (c->reading && c->status == THRONG_OK) {
        const geo_kind last =
            c->version >= SNAP_VERSION_NAV ? GEO_NAV : GEO_FLOW;
        if ((uint32_t)o->kind > (uint32_t)last) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT, "unknown object kind %u",
                      (unsigned)o->kind);
        } else if (c->version < SNAP_VERSION_WORLD_ID &&
                   ((o->generation & SNAP_COUNTER_MASK) == 0u ||
                    (o->generation >> SNAP_TAG_SHIFT != 0u &&
                     o->generation >> SNAP_TAG_SHIFT != c->tag))) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "object generation %#x has a zero count or is not of "
                      "the saved world's tag %u",
                      o->generation, c->tag);
        } else if (o->generation == 0u) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT, "object generation 0");
        }
        if (c->version < SNAP_VERSION_WORLD_ID)
            o->generation &= SNAP_COUNTER_MASK;
    }
    if (c->status != THRONG_OK || o->kind == GEO_FREE) {
        if (c->reading)
            o->kind = GEO_FREE;
        return;
    }
    io_f32n(c, o->a, 3);
    io_f32n(c, o->b, 3);
    io_f32(c, &o->r);
    if (o->kind == GEO_PATH) {
        uint32_t closed = o->closed ? 1u : 0u;
        io_u32(c, &o->count);
        io_u32(c, &closed);
        if (c->reading) {
            o->closed = (int)closed;
            if (closed > 1u ||
                geo_path_count_check(w, "a path", o->count) != THRONG_OK) {
                snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                          "a path of %u points (closed %u)", o->count, closed);
                o->kind = GEO_FREE;
                return;
            }
            size_t bytes = path_floats(o->count, o->closed) * sizeof(float);
            if (!snap_has(c, bytes, "a path")) {
                o->kind = GEO_FREE;
                return;
            }
            float *block = world_alloc(w, bytes);
            if (!block) {
                snap_fail(c, THRONG_ERR_OUT_OF_MEMORY,
                          "no memory for a path of %u points", o->count);
                o->kind = GEO_FREE;
                return;
            }
            o->points = block;
            o->length_at = block + 3u * (size_t)o->count;
            o->data = block;
            o->data_bytes = bytes;
        }
        io_f32s(c, o->points, 3u * (size_t)o->count);
        io_f32s(c, o->length_at, (size_t)o->count + (o->closed ? 1u : 0u));
    } else if (o->kind == GEO_FLOW) {
        io_f32n(c, o->origin, 3);
        io_f32(c, &o->cell);
        for (int k = 0; k < 3; k++)
            io_u32(c, &o->size[k]);
        size_t floats = 0;
        if (c->reading) {
            uint64_t cells = 0u;
            if (geo_flow_size_check(w, "a flow field", o->size, &cells) !=
                THRONG_OK) {
                snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                          "a flow field of %u x %u x %u cells", o->size[0],
                          o->size[1], o->size[2]);
                o->kind = GEO_FREE;
                return;
            }
            floats = (size_t)cells * (size_t)w->dims;
            size_t bytes = floats * sizeof(float);
            if (!snap_has(c, bytes, "a flow field")) {
                o->kind = GEO_FREE;
                return;
            }
            float *block = world_alloc(w, bytes);
            if (!block) {
                snap_fail(c, THRONG_ERR_OUT_OF_MEMORY,
                          "no memory for a flow field of %llu cells",
                          (unsigned long long)cells);
                o->kind = GEO_FREE;
                return;
            }
            o->vectors = block;
            o->data = block;
            o->data_bytes = bytes;
        } else {
            floats = o->data_bytes / sizeof(float);
        }
        io_f32s(c, o->vectors, floats);
    } else if (o->kind == GEO_NAV) {
        io_nav(c, w, o);
    }
}

/* The float and integer columns in the format's order. */
static void snap_float_columns(const agent_columns *col,
                               float *out[SNAP_FLOAT_COLUMNS]) {
    float *all[SNAP_FLOAT_COLUMNS] = {
        col->px,          col->py,        col->pz,        col->vx,
        col->vy,          col->vz,        col->fx,        col->fy,
        col->fz,          col->ux,        col->uy,        col->uz,
        col->mass,        col->max_force, col->max_speed, col->radius,
        col->wander_rate, col->tx,        col->ty,        col->tz,
        col->wx,          col->wy,        col->wz
    };
    memcpy(out, all, sizeof all);
}

static void snap_u32_columns(const agent_columns *col,
                             uint32_t *out[SNAP_U32_COLUMNS]) {
    uint32_t *all[SNAP_U32_COLUMNS] = { col->target_slot, col->target_gen,
                                        col->progress, col->group, col->slot };
    memcpy(out, all, sizeof all);
}

void io_columns(snap_codec *c, throng_world *w) {
    float *floats[SNAP_FLOAT_COLUMNS];
    uint32_t *ints[SNAP_U32_COLUMNS];
    snap_float_columns(&w->col, floats);
    snap_u32_columns(&w->col, ints);
    for (int k = 0; k < SNAP_FLOAT_COLUMNS; k++) {
        if (!floats[k])
            continue;
        if (!float_column_single(w, k)) {
            io_f32s(c, floats[k], w->count);
            continue;
        }
        /* A column held as a single row is written as every row; the
         * loader gives the columns all their rows before reading (or has
         * refused the snapshot already, and reads no more). */
        INVARIANT(!c->reading || c->status != THRONG_OK,
                  "a loaded world's columns have every row");
        for (uint32_t i = 0; i < w->count && !c->reading; i++)
            io_f32s(c, floats[k], 1);
    }
    for (int k = 0; k < SNAP_U32_COLUMNS; k++)
        if (ints[k])
            io_u32s(c, ints[k], w->count);
}
