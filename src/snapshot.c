/*
 * Snapshots: a world's whole state as bytes, and a new world made from
 * them. The format's header is documented in throng.h; the payload is
 * what this file writes, in this order:
 *
 *   settings  dimensions, boundary, box, neighbour radius, the grid's
 *             cells (edge, reach, cells per axis), threads, seed, the
 *             saving world's id (version 3 on; before, its 8-bit tag),
 *             step count, the sticky flags, and every count below
 *   objects   every id handed out: kind, generation, shape, path points
 *             and lengths, flow vectors; then the free ids in stack order
 *             (a free id not listed is retired)
 *   groups    every id handed out: generation and whether a group holds
 *             it (version 4 on), then a live group's name, flocking,
 *             wander, combine mode and behaviour list; then the removed
 *             groups' free ids in stack order (a free id not listed is
 *             retired)
 *   slots     generation and host key of every slot; then the free slots
 *             in stack order (a free slot not listed is retired)
 *   agents    every column the world has, in dense row order
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
 *
 * Loading builds a fresh world through the ordinary creation path and
 * fills it section by section; the world is handed over only when every
 * section was read and checked, and destroyed on any failure, so a caller
 * never sees a half-restored world. Groups go through the public group
 * functions, which validate them and keep the name table, and host keys
 * through throng_agent_set_host_key, which keeps the key table; columns,
 * the slot table and the object table are copied in directly, since no
 * public call could reproduce their order.
 *
 * The checksum catches truncation and corruption. The checks behind it
 * are for a snapshot that passes the checksum yet was not written by this
 * library: the structure (counts against the bytes left, the slot table a
 * permutation of the rows, every id in range), and every object and agent
 * through the very checks that creating it runs (geo_object_check,
 * world_check_row), so a loaded world holds nothing its own calls would
 * have refused.
 *
 * Saving to a file never puts the previous snapshot at risk: the bytes go
 * to a temporary file of a fresh random name, created exclusively (so it
 * is never somebody else's file, nor a link's target), flushed to disk,
 * then renamed over the target, and the directory is flushed so the
 * rename lasts. Concurrent saves to one path each have their own
 * temporary file; the last rename wins, whole.
 */
#include "internal.h"
#include "busy.h"
#include "behaviour.h"
#include "geometry.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SNAP_MAGIC "THRNGSNP"
#define SNAP_MAGIC_BYTES 8u
/* The header's size and where its checksum sits (see throng.h). */
#define SNAP_HEADER_BYTES 40u
#define SNAP_CHECKSUM_AT 32u

/* 64-bit FNV-1a. Each step xors in one byte and multiplies by an odd
 * constant, a bijection of the running value, so changing any single byte
 * always changes the result; a 64-bit value also makes an accidental
 * match of any larger damage vanishingly rare. */
#define FNV_OFFSET 0xCBF29CE484222325ull
#define FNV_PRIME 0x100000001B3ull

/* Before version 3, agent and object generations carried the saving
 * world's 8-bit tag in their top byte over a 24-bit count of the slot's
 * reuses (objects saved before they carried the tag have a top byte of
 * 0). Loading such a snapshot keeps the count alone, which is what the
 * state hash always read, so the world continues as it would have. */
#define SNAP_TAG_SHIFT 24u
#define SNAP_COUNTER_MASK 0xFFFFFFu
/* The version whose generations are whole 32-bit counts and whose
 * settings carry the saving world's 64-bit id. */
#define SNAP_VERSION_WORLD_ID 3u
/* The version whose groups have generations and free ids (group
 * handles); before, every saved group is live with generation 1. */
#define SNAP_VERSION_GROUP_HANDLES 4u

/* The fewest payload bytes each counted item takes, to refuse counts the
 * snapshot cannot hold before allocating for them: a slot is a generation
 * and a key, an agent at least 11 floats and 2 integers (a 2D world
 * without behaviour state), an object a kind and a generation, a group its
 * name and fixed fields. */
#define SNAP_MIN_SLOT_BYTES 12u
#define SNAP_MIN_AGENT_BYTES 52u
#define SNAP_MIN_OBJECT_BYTES 8u
#define SNAP_MIN_GROUP_BYTES 140u

/* Saving a file: the most bytes handed to one write() (a larger count is
 * implementation-defined past SSIZE_MAX, and a short write comes back
 * anyway), and the temporary names tried before giving up (each clash is
 * a name another file already has). */
#define SNAP_WRITE_CHUNK (1u << 30)
#define SNAP_TEMP_TRIES 16u

/* Reading a stream that cannot tell its size (a pipe): the first chunk;
 * the buffer then doubles as bytes arrive, up to the header's length. */
#define SNAP_STREAM_CHUNK (64u * 1024u)

/* The columns in the format's order; absent ones (NULL) are skipped, and
 * which are absent follows from the dimensions and the behaviour-state
 * flag, which the settings carry. */
#define SNAP_FLOAT_COLUMNS 23
#define SNAP_U32_COLUMNS 5

/* ------------------------------------------------------------------------ */
/* The codec                                                                */
/* ------------------------------------------------------------------------ */

typedef struct snap_codec {
    int reading;
    uint8_t *out;      /* writing: the snapshot, or NULL to measure */
    const uint8_t *in; /* reading: the snapshot */
    uint64_t len;      /* reading: its length */
    uint64_t pos;      /* bytes written or read so far, header included */
    uint32_t version;  /* the format version being read or written */
    /* Reading: the new world's id, and the old tag of a snapshot before
     * SNAP_VERSION_WORLD_ID, for the handles read back. */
    uint64_t world_id;
    uint32_t tag;
    /* Reading: the first refusal; later reads yield zeros and no-ops. */
    throng_status status;
    char why[200];
} snap_codec;

static void snap_fail(snap_codec *c, throng_status status, const char *fmt,
                      ...) __attribute__((format(printf, 3, 4)));

static void snap_fail(snap_codec *c, throng_status status, const char *fmt,
                      ...) {
    if (c->status != THRONG_OK)
        return;
    c->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
}

/* Reading: whether `bytes` more are there; refuses the snapshot if not. */
static int snap_has(snap_codec *c, uint64_t bytes, const char *what) {
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

static void io_u32(snap_codec *c, uint32_t *v) {
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

static void io_u64(snap_codec *c, uint64_t *v) {
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
#define IO_ENUM(c, field, type)                                               \
    do {                                                                      \
        uint32_t enum_ = (uint32_t)(field);                                   \
        io_u32((c), &enum_);                                                  \
        if ((c)->reading)                                                     \
            (field) = (type)enum_;                                            \
    } while (0)

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) &&            \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SNAP_HOST_LITTLE 1
#else
#define SNAP_HOST_LITTLE 0
#endif

/* Whole columns: on a little-endian host the array is already in the
 * format's byte order, and a copy is what the loop would do. */
static void io_u32s(snap_codec *c, uint32_t *v, size_t n) {
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
static uint64_t snap_checksum(const uint8_t *s, size_t total) {
    uint64_t h = fnv1a(FNV_OFFSET, s, SNAP_CHECKSUM_AT);
    return fnv1a(h, s + SNAP_HEADER_BYTES, total - SNAP_HEADER_BYTES);
}

static uint32_t get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p) {
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

static void put_u16(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v) {
    for (unsigned k = 0; k < 4u; k++)
        p[k] = (uint8_t)(v >> (8u * k));
}

static void put_u64(uint8_t *p, uint64_t v) {
    for (unsigned k = 0; k < 8u; k++)
        p[k] = (uint8_t)(v >> (8u * k));
}

/* ------------------------------------------------------------------------ */
/* The parts of the state                                                   */
/* ------------------------------------------------------------------------ */

/* The settings section: what creating the world needs, and the counts
 * every later section is read by. */
typedef struct snap_settings {
    uint32_t dims, boundary;
    float box[3];
    float neighbour_radius;
    float edge[3];    /* the grid's cell edge per axis */
    int32_t reach[3]; /* cells walked on each side, per axis */
    int32_t cells[3]; /* periodic: cells per axis; else 0 */
    int32_t threads;
    uint64_t seed;
    uint32_t tag;      /* before version 3: the world's tag, 1..255 */
    uint64_t world_id; /* version 3 on: the saving world's id, not 0 */
    uint64_t step;
    uint32_t wander_used, behaviour_state;
    uint32_t group_count;
    uint32_t has_geometry, object_count, object_free;
    uint32_t slot_count, slot_free, agent_count;
    /* Version 2 on; older snapshots get the defaults, and their cell size
     * from the grid's edge along x. */
    float max_dt;
    uint32_t max_substeps;
    float cell_size; /* as the world's def asked */
    uint32_t group_free; /* version 4 on: removed groups' ids listed */
} snap_settings;

static void io_settings(snap_codec *c, snap_settings *s) {
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

/* A behaviour: the common fields, then the union member its kind uses. */
static void io_behaviour(snap_codec *c, throng_behaviour *b) {
    IO_ENUM(c, b->kind, throng_behaviour_kind);
    if (c->reading && c->status == THRONG_OK && !behaviour_family(b->kind)) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT, "unknown behaviour kind %u",
                  (unsigned)b->kind);
        return;
    }
    io_f32(c, &b->weight);
    io_i32(c, &b->priority);
    io_f32(c, &b->speed_factor);
    switch (b->kind) {
    case THRONG_BEHAVIOUR_SEEK:
    case THRONG_BEHAVIOUR_FLEE:
    case THRONG_BEHAVIOUR_ARRIVE: {
        throng_seek_params *p = &b->u.seek;
        IO_ENUM(c, p->source, throng_target_source);
        io_f32n(c, p->point, 3);
        io_f32(c, &p->flee_range);
        io_f32(c, &p->braking_distance);
        IO_ENUM(c, p->ramp, throng_arrive_ramp);
        break;
    }
    case THRONG_BEHAVIOUR_PURSUE:
    case THRONG_BEHAVIOUR_EVADE:
    case THRONG_BEHAVIOUR_OFFSET_PURSUIT: {
        throng_pursue_params *p = &b->u.pursue;
        io_f32(c, &p->prediction_time);
        io_f32(c, &p->max_prediction);
        io_f32n(c, p->offset, 3);
        io_f32(c, &p->braking_distance);
        io_f32(c, &p->evade_range);
        break;
    }
    case THRONG_BEHAVIOUR_WANDER_CIRCLE:
        io_f32(c, &b->u.wander.distance);
        io_f32(c, &b->u.wander.radius);
        io_f32(c, &b->u.wander.jitter);
        break;
    case THRONG_BEHAVIOUR_PATROL:
    case THRONG_BEHAVIOUR_FOLLOW_PATH: {
        throng_path_params *p = &b->u.path;
        io_object_handle(c, &p->path);
        io_f32(c, &p->prediction_time);
        io_f32(c, &p->ahead);
        io_u32(c, &p->window);
        io_bool(c, &p->loop);
        io_f32(c, &p->reach);
        io_f32(c, &p->braking_distance);
        break;
    }
    case THRONG_BEHAVIOUR_FOLLOW_FLOW:
        io_object_handle(c, &b->u.flow.field);
        io_f32(c, &b->u.flow.prediction_time);
        io_bool(c, &b->u.flow.raw);
        break;
    case THRONG_BEHAVIOUR_AVOID_OBSTACLES:
        io_f32(c, &b->u.avoid.min_length);
        io_f32(c, &b->u.avoid.lookahead_time);
        break;
    case THRONG_BEHAVIOUR_CONTAIN:
    case THRONG_BEHAVIOUR_FOLLOW_WALL: {
        throng_contain_params *p = &b->u.contain;
        io_bool(c, &p->use_box);
        io_f32n(c, p->box_min, 3);
        io_f32n(c, p->box_max, 3);
        io_bool(c, &p->use_walls);
        io_f32(c, &p->range);
        io_f32(c, &p->distance);
        io_f32(c, &p->ahead);
        break;
    }
    case THRONG_BEHAVIOUR_FOLLOW_LEADER: {
        throng_leader_params *p = &b->u.leader;
        io_f32(c, &p->behind);
        io_f32(c, &p->clearance_length);
        io_f32(c, &p->clearance_width);
        io_f32(c, &p->braking_distance);
        break;
    }
    case THRONG_BEHAVIOUR_AVOID_NEIGHBOURS:
        io_f32(c, &b->u.unaligned.radius);
        io_f32(c, &b->u.unaligned.horizon);
        io_f32(c, &b->u.unaligned.margin);
        break;
    }
}

static void io_group(snap_codec *c, group_record *g) {
    io_raw(c, g->name, sizeof g->name);
    throng_flocking *f = &g->flocking;
    io_f32(c, &f->separation_radius);
    io_f32(c, &f->separation_weight);
    io_f32(c, &f->alignment_radius);
    io_f32(c, &f->alignment_weight);
    io_f32(c, &f->cohesion_radius);
    io_f32(c, &f->cohesion_weight);
    io_f32(c, &f->field_of_view);
    io_f32(c, &f->speed_factor);
    IO_ENUM(c, f->separation_mode, throng_separation_mode);
    io_i32(c, &f->separation_priority);
    io_i32(c, &f->alignment_priority);
    io_i32(c, &f->cohesion_priority);
    if (c->version >= 2u)
        io_u32(c, &f->max_neighbours);
    throng_wander *wd = &g->wander;
    io_f32(c, &wd->weight);
    io_f32(c, &wd->max_turn_rate);
    io_f32(c, &wd->max_turn_change);
    io_f32(c, &wd->speed_factor);
    io_i32(c, &wd->priority);
    IO_ENUM(c, g->combine, throng_combine_mode);
    io_u32(c, &g->behaviour_count);
    if (c->reading && g->behaviour_count > THRONG_MAX_BEHAVIOURS) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "a group lists %u behaviours, more than %u",
                  g->behaviour_count, THRONG_MAX_BEHAVIOURS);
        g->behaviour_count = 0;
    }
    for (uint32_t i = 0; i < g->behaviour_count && c->status == THRONG_OK;
         i++)
        io_behaviour(c, &g->behaviours[i]);
}

/* A path's block holds its points (3 floats each) and the length at each
 * point, plus the closing one (steer_route.c). */
static size_t path_floats(uint32_t count, int closed) {
    return 4u * (size_t)count + (closed ? 1u : 0u);
}

/* An object. Reading, the path or field block is allocated from the world
 * once its size is known and checked against the bytes left. */
static void io_object(snap_codec *c, throng_world *w, geo_object *o) {
    IO_ENUM(c, o->kind, geo_kind);
    io_u32(c, &o->generation);
    if (c->reading && c->status == THRONG_OK) {
        if ((uint32_t)o->kind > (uint32_t)GEO_FLOW) {
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
                          "a path of %u points (closed %u)", o->count,
                          closed);
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
    }
}

/* The float and integer columns in the format's order. */
static void snap_float_columns(const agent_columns *col,
                               float *out[SNAP_FLOAT_COLUMNS]) {
    float *all[SNAP_FLOAT_COLUMNS] = {
        col->px,        col->py,     col->pz,          col->vx, col->vy,
        col->vz,        col->fx,     col->fy,          col->fz, col->ux,
        col->uy,        col->uz,     col->mass,        col->max_force,
        col->max_speed, col->radius, col->wander_rate, col->tx, col->ty,
        col->tz,        col->wx,     col->wy,          col->wz};
    memcpy(out, all, sizeof all);
}

static void snap_u32_columns(const agent_columns *col,
                             uint32_t *out[SNAP_U32_COLUMNS]) {
    uint32_t *all[SNAP_U32_COLUMNS] = {col->target_slot, col->target_gen,
                                       col->progress, col->group, col->slot};
    memcpy(out, all, sizeof all);
}

static void io_columns(snap_codec *c, throng_world *w) {
    float *floats[SNAP_FLOAT_COLUMNS];
    uint32_t *ints[SNAP_U32_COLUMNS];
    snap_float_columns(&w->col, floats);
    snap_u32_columns(&w->col, ints);
    for (int k = 0; k < SNAP_FLOAT_COLUMNS; k++)
        if (floats[k])
            io_f32s(c, floats[k], w->count);
    for (int k = 0; k < SNAP_U32_COLUMNS; k++)
        if (ints[k])
            io_u32s(c, ints[k], w->count);
}

/* ------------------------------------------------------------------------ */
/* Saving                                                                   */
/* ------------------------------------------------------------------------ */

static void settings_of(const throng_world *w, snap_settings *s) {
    memset(s, 0, sizeof *s);
    s->dims = (uint32_t)w->dims;
    s->boundary = (uint32_t)w->boundary;
    const int periodic = w->boundary == THRONG_BOUNDARY_PERIODIC;
    for (int a = 0; a < 3; a++) {
        s->box[a] = w->box[a];
        s->edge[a] = w->grid.edge[a];
        s->reach[a] = w->grid.reach[a];
        /* An unbounded grid's cell counts belong to its last build. */
        s->cells[a] = periodic ? w->grid.n[a] : 0;
    }
    s->neighbour_radius = w->neighbour_radius;
    s->threads = w->threads;
    s->seed = w->seed;
    s->max_dt = w->max_dt;
    s->cell_size = w->cell_size;
    s->max_substeps = w->max_substeps;
    s->world_id = w->id;
    s->step = w->step;
    s->wander_used = w->wander_used ? 1u : 0u;
    s->behaviour_state = w->behaviour_state ? 1u : 0u;
    s->group_count = w->group_count;
    s->group_free = w->group_free_count;
    s->has_geometry = w->geo ? 1u : 0u;
    s->object_count = w->geo ? w->geo->count : 0u;
    s->object_free = w->geo ? w->geo->free_count : 0u;
    s->slot_count = w->slot_count;
    s->slot_free = w->free_count;
    s->agent_count = w->count;
}

/* Writes the snapshot to `out`, or only measures it when out is NULL;
 * returns its size. The world is only read: the codec writes back into
 * the fields it visits only when reading. */
static uint64_t snap_encode(throng_world *w, uint8_t *out) {
    snap_codec c;
    memset(&c, 0, sizeof c);
    c.out = out;
    c.pos = SNAP_HEADER_BYTES;
    c.version = THRONG_SNAPSHOT_VERSION;
    snap_settings s;
    settings_of(w, &s);
    io_settings(&c, &s);
    /* Objects before groups: loading checks the behaviours against the
     * objects they name. */
    if (w->geo) {
        for (uint32_t i = 0; i < w->geo->count; i++)
            io_object(&c, w, &w->geo->objects[i]);
        io_u32s(&c, w->geo->free_ids, w->geo->free_count);
    }
    for (uint32_t g = 0; g < w->group_count; g++) {
        uint32_t live = (uint32_t)w->groups[g].live;
        io_u32(&c, &w->groups[g].generation);
        io_u32(&c, &live);
        if (live)
            io_group(&c, &w->groups[g]);
    }
    for (uint32_t g = w->group_free_head, k = 0; k < w->group_free_count;
         k++, g = w->groups[g].next_free)
        io_u32(&c, &g);
    for (uint32_t i = 0; i < w->slot_count; i++) {
        io_u32(&c, &w->slots[i].generation);
        io_u64(&c, &w->slots[i].host_key);
    }
    io_u32s(&c, w->free_slots, w->free_count);
    io_columns(&c, w);
    if (out) {
        /* The magic is 8 bytes, not a string: no terminator is wanted. */
        /* NOLINTNEXTLINE(bugprone-not-null-terminated-result) */
        memcpy(out, SNAP_MAGIC, SNAP_MAGIC_BYTES);
        put_u32(out + 8, THRONG_SNAPSHOT_VERSION);
        put_u16(out + 12, THRONG_VERSION_MAJOR);
        put_u16(out + 14, THRONG_VERSION_MINOR);
        put_u16(out + 16, THRONG_VERSION_PATCH);
        put_u16(out + 18, 0u);
        put_u32(out + 20, 0u);
        put_u64(out + 24, c.pos);
        put_u64(out + SNAP_CHECKSUM_AT, snap_checksum(out, (size_t)c.pos));
    }
    return c.pos;
}

/* The size, or records a refusal when it does not fit a size_t (only
 * possible where size_t is 32 bits). */
static throng_status snap_measure(throng_world *w, const char *fn,
                                  size_t *out_size) {
    uint64_t size = snap_encode(w, NULL);
    if (size > (uint64_t)SIZE_MAX)
        return world_fail(w, THRONG_ERR_CAPACITY,
                          "%s: the snapshot would be %llu bytes, more than "
                          "this machine addresses",
                          fn, (unsigned long long)size);
    *out_size = (size_t)size;
    return THRONG_OK;
}

/* A snapshot holds only finite values (the loader refuses any other), and
 * checked calls and steps store no other; a host writing through the
 * column pointers can. Such a world is refused before anything is
 * written, naming the value, rather than saved as a snapshot no load
 * would accept. */
static throng_status snap_refuse_non_finite(throng_world *w, const char *fn) {
    const char *column = NULL;
    uint32_t row = 0;
    float value = 0.0f;
    if (!world_non_finite(w, &column, &row, &value))
        return THRONG_OK;
    uint32_t slot = w->col.slot[row];
    return world_fail(w, THRONG_ERR_NOT_FINITE,
                      "%s: column %s of the agent at dense row %u (handle "
                      "{%u, %u}, slot %u) is %g; a snapshot holds only finite "
                      "values, and nothing was written",
                      fn, column, row, slot + 1u, w->slots[slot].generation,
                      slot, (double)value);
}

throng_status throng_world_snapshot_size(const throng_world *cw,
                                         size_t *out_bytes) {
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!out_bytes)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_world_snapshot_size: out_bytes must not be "
                          "NULL");
    return snap_measure(w, "throng_world_snapshot_size", out_bytes);
}

throng_status throng_world_save(const throng_world *cw, void *buffer,
                                size_t capacity, size_t *out_bytes) {
    WORLD_READ(cw);
    static const char fn[] = "throng_world_save";
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!buffer && capacity > 0)
        return world_fail(w, THRONG_ERR_NULL,
                          "%s: buffer is NULL but capacity is %zu", fn,
                          capacity);
    size_t size;
    throng_status st = snap_measure(w, fn, &size);
    if (st != THRONG_OK)
        return st;
    if (out_bytes)
        *out_bytes = size;
    if ((st = snap_refuse_non_finite(w, fn)) != THRONG_OK)
        return st;
    if (capacity < size)
        return world_fail(w, THRONG_ERR_CAPACITY,
                          "%s: the buffer holds %zu bytes, the snapshot "
                          "needs %zu",
                          fn, capacity, size);
    snap_encode(w, buffer);
    return THRONG_OK;
}

/* Writes all n bytes, through short writes and interrupted calls;
 * returns 0 or the errno of the failure. */
static int write_all(int fd, const uint8_t *p, size_t n) {
    while (n > 0) {
        size_t chunk = n < SNAP_WRITE_CHUNK ? n : SNAP_WRITE_CHUNK;
        ssize_t done = write(fd, p, chunk);
        if (done < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (done == 0)
            return EIO; /* a regular file never takes nothing */
        p += done;
        n -= (size_t)done;
    }
    return 0;
}

static int fsync_retry(int fd) {
    while (fsync(fd) != 0)
        if (errno != EINTR)
            return errno;
    return 0;
}

/* A name for the temporary file no other save is using: the target's
 * name, then ".tmp-" and 16 hex digits mixed from the process id, a
 * process-wide counter, the clock and the attempt. Unpredictable enough
 * that nobody plants a file there by chance; the exclusive create below
 * is what makes it safe if somebody does. */
static void temp_name(char *out, size_t cap, const char *path,
                      uint32_t attempt) {
    static _Atomic uint32_t counter;
    struct timespec now;
    memset(&now, 0, sizeof now);
    (void)clock_gettime(CLOCK_REALTIME, &now);
    uint64_t x = ((uint64_t)(uint32_t)getpid() << 32) ^ (uint64_t)counter++;
    x ^= (uint64_t)now.tv_nsec * 0x9E3779B97F4A7C15ull;
    x ^= (uint64_t)now.tv_sec << 20 ^ (uint64_t)attempt << 48;
    x ^= (uint64_t)(uintptr_t)&now; /* differs between threads */
    /* splitmix64's finish: every input bit reaches every output bit. */
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    snprintf(out, cap, "%s.tmp-%016llx", path, (unsigned long long)x);
}

/* The directory holding `path`, into out (room for strlen(path) + 2). */
static void parent_dir(char *out, size_t cap, const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(out, cap, ".");
    } else if (slash == path) {
        snprintf(out, cap, "/");
    } else {
        size_t n = (size_t)(slash - path);
        memcpy(out, path, n);
        out[n] = '\0';
    }
}

/* The file steps of a save, with the refusal's sentence recorded: tmp and
 * dir are scratch for the two names, tmp_cap bytes each. */
static throng_status save_bytes(throng_world *w, const char *fn,
                                const char *path, const uint8_t *bytes,
                                size_t size, char *tmp, size_t tmp_cap,
                                char *dir) {
    /* The directory is opened first, so a save that could not make
     * itself durable is refused before it replaces anything. */
    parent_dir(dir, tmp_cap, path);
    int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0)
        return world_fail(w, THRONG_ERR_IO,
                          "%s: cannot open the directory \"%s\": %s", fn, dir,
                          strerror(errno));
    /* O_EXCL creates the file or fails: it never opens an existing file
     * and never follows a symbolic link planted at the name (O_NOFOLLOW
     * says so again). A name that exists is another save's: try another. */
    int fd = -1, err = EEXIST;
    for (uint32_t attempt = 0; attempt < SNAP_TEMP_TRIES && fd < 0; attempt++) {
        temp_name(tmp, tmp_cap, path, attempt);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0666);
        err = fd < 0 ? errno : 0;
        if (fd < 0 && err != EEXIST)
            break;
    }
    if (fd < 0) {
        close(dir_fd);
        return world_fail(w, THRONG_ERR_IO,
                          "%s: cannot create a temporary file beside \"%s\" "
                          "(last tried \"%s\"): %s",
                          fn, path, tmp, strerror(err));
    }
    const char *step = "write";
    err = write_all(fd, bytes, size);
    if (!err) {
        step = "flush to disk";
        err = fsync_retry(fd);
    }
    /* A close after a successful fsync loses nothing, and an interrupted
     * one has closed the descriptor on Linux: only other errors count. */
    if (close(fd) != 0 && !err && errno != EINTR) {
        step = "close";
        err = errno;
    }
    if (!err && rename(tmp, path) != 0) {
        step = "rename over the target";
        err = errno;
    }
    if (err) {
        (void)unlink(tmp);
        close(dir_fd);
        return world_fail(w, THRONG_ERR_IO,
                          "%s: cannot %s the %zu-byte snapshot \"%s\" (\"%s\" "
                          "is untouched): %s",
                          fn, step, size, tmp, path, strerror(err));
    }
    /* The rename is durable once the directory is on disk. Filesystems
     * that cannot flush a directory say EINVAL; nothing more can be done
     * there. */
    err = fsync_retry(dir_fd);
    close(dir_fd);
    if (err && err != EINVAL)
        return world_fail(w, THRONG_ERR_IO,
                          "%s: the snapshot replaced \"%s\", but its directory "
                          "could not be flushed to disk, so a power cut may "
                          "still undo it: %s",
                          fn, path, strerror(err));
    return THRONG_OK;
}

throng_status throng_world_save_file(const throng_world *cw,
                                     const char *path) {
    WORLD_READ(cw);
    static const char fn[] = "throng_world_save_file";
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!path)
        return world_fail(w, THRONG_ERR_NULL, "%s: path must not be NULL",
                          fn);
    /* Refused before any file is touched: an empty name has no directory
     * to write the temporary file in. */
    if (path[0] == '\0')
        return world_fail(w, THRONG_ERR_IO, "%s: the path is empty", fn);
    throng_status st = snap_refuse_non_finite(w, fn);
    if (st != THRONG_OK)
        return st;
    size_t size;
    if ((st = snap_measure(w, fn, &size)) != THRONG_OK)
        return st;
    size_t path_len = strlen(path);
    /* ".tmp-", 16 hex digits and the terminator. */
    const size_t suffix = 22u;
    size_t tmp_bytes = path_len < SIZE_MAX - suffix ? path_len + suffix : 0;
    uint8_t *buffer = world_alloc(w, size);
    char *tmp = tmp_bytes ? world_alloc(w, tmp_bytes) : NULL;
    char *dir = tmp_bytes ? world_alloc(w, tmp_bytes) : NULL;
    if (buffer && tmp && dir) {
        snap_encode(w, buffer);
        st = save_bytes(w, fn, path, buffer, size, tmp, tmp_bytes, dir);
    } else {
        st = world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                        "%s: no memory for a snapshot of %zu bytes", fn,
                        size);
    }
    world_free(w, buffer, size);
    world_free(w, tmp, tmp_bytes);
    world_free(w, dir, tmp_bytes);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Loading                                                                  */
/* ------------------------------------------------------------------------ */

throng_world_load_def throng_world_load_def_default(void) {
    throng_world_load_def d;
    memset(&d, 0, sizeof d);
    return d;
}

static void load_report(const throng_world_load_def *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void load_report(const throng_world_load_def *d, const char *fmt,
                        ...) {
    if (!d || !d->error || d->error_capacity == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->error, d->error_capacity, fmt, ap);
    va_end(ap);
}

/* Checks the header's first `available` bytes (the whole header when it
 * is there); on success *out_total is the length it states. */
static void header_check(snap_codec *c, const uint8_t *h, size_t available,
                         uint64_t *out_total) {
    *out_total = 0;
    if (available < SNAP_HEADER_BYTES) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "truncated: %zu bytes, less than the %u-byte header",
                  available, SNAP_HEADER_BYTES);
        return;
    }
    if (memcmp(h, SNAP_MAGIC, SNAP_MAGIC_BYTES) != 0) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "not a throng snapshot: the magic is not \"%s\"",
                  SNAP_MAGIC);
        return;
    }
    uint32_t version = get_u32(h + 8);
    /* The version comes before the checksum: a newer format may place or
     * compute its checksum differently. */
    if (version > THRONG_SNAPSHOT_VERSION) {
        snap_fail(c, THRONG_ERR_VERSION,
                  "format version %u (written by library %u.%u.%u); this "
                  "library reads up to version %u",
                  version, (unsigned)(h[12] | h[13] << 8),
                  (unsigned)(h[14] | h[15] << 8),
                  (unsigned)(h[16] | h[17] << 8), THRONG_SNAPSHOT_VERSION);
        return;
    }
    if (version == 0u || h[18] != 0u || h[19] != 0u || get_u32(h + 20) != 0u) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "format version %u or the reserved header fields are not "
                  "valid",
                  version);
        return;
    }
    c->version = version;
    uint64_t total = get_u64(h + 24);
    if (total < SNAP_HEADER_BYTES) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "the header states a length of %llu bytes",
                  (unsigned long long)total);
        return;
    }
    *out_total = total;
}

/* Maps a refusal of a public call made while loading: running out of
 * memory stays that; anything else means the snapshot holds what the
 * library would never have accepted. */
static void snap_refused(snap_codec *c, throng_world *w, throng_status st,
                         const char *what) {
    snap_fail(c,
              st == THRONG_ERR_OUT_OF_MEMORY ? THRONG_ERR_OUT_OF_MEMORY
                                             : THRONG_ERR_BAD_SNAPSHOT,
              "%s: %s", what, w->error);
}

/* The settings must describe a world this library could have made, and
 * the counts must fit the bytes left. */
static void check_settings(snap_codec *c, const snap_settings *s) {
    int old = c->version < SNAP_VERSION_WORLD_ID;
    if ((s->dims != 2u && s->dims != 3u) || s->boundary > 1u ||
        (old ? s->tag == 0u || s->tag > 255u : s->world_id == 0u) ||
        s->wander_used > 1u || s->behaviour_state > 1u ||
        s->has_geometry > 1u) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "settings out of range (dimensions %u, boundary %u, %s "
                  "%llu, flags %u %u %u)",
                  s->dims, s->boundary, old ? "tag" : "world id",
                  (unsigned long long)(old ? s->tag : s->world_id),
                  s->wander_used, s->behaviour_state, s->has_geometry);
        return;
    }
    /* Slots neither live nor on the free list are retired (none before
     * version 3); load_agents checks each. */
    if (s->group_count == 0u || s->group_count > THRONG_MAX_GROUPS ||
        s->slot_count > THRONG_MAX_AGENTS || s->agent_count > s->slot_count ||
        s->slot_free > s->slot_count - s->agent_count ||
        s->object_count > THRONG_MAX_OBJECTS ||
        s->object_free > s->object_count ||
        s->group_free > s->group_count - 1u ||
        (!s->has_geometry && s->object_count != 0u)) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "inconsistent counts: %u groups, %u slots (%u free), %u "
                  "agents, %u objects (%u free)",
                  s->group_count, s->slot_count, s->slot_free,
                  s->agent_count, s->object_count, s->object_free);
        return;
    }
    /* From version 4 a removed group is its generation and flag alone. */
    const uint64_t group_bytes =
        c->version >= SNAP_VERSION_GROUP_HANDLES ? 8u : SNAP_MIN_GROUP_BYTES;
    uint64_t least = (uint64_t)s->group_count * group_bytes +
                     (uint64_t)s->group_free * 4u +
                     (uint64_t)s->object_count * SNAP_MIN_OBJECT_BYTES +
                     (uint64_t)s->object_free * 4u +
                     (uint64_t)s->slot_count * SNAP_MIN_SLOT_BYTES +
                     (uint64_t)s->slot_free * 4u +
                     (uint64_t)s->agent_count * SNAP_MIN_AGENT_BYTES;
    snap_has(c, least, "the counted groups, objects, slots and agents");
}

static double snap_reach_for(float cover, float edge) {
    /* As grid.c's reach_for, so a plan is checked exactly as made. */
    double reach = ceil((double)cover / (double)edge);
    if (!(reach >= 1.0))
        reach = 1.0;
    return reach > 1000.0 ? 1000.0 : reach;
}

/* Gives the new world the saved grid cells. The world was created with
 * the saved cell edge as its cell size, which reproduces an unbounded
 * grid exactly; a periodic box stretches its cells to fit a whole number,
 * and the size that was asked for is not kept, so the saved plan is
 * checked against the rules grid_plan follows and then put in place. */
static void restore_grid_plan(snap_codec *c, throng_world *w,
                              const snap_settings *s) {
    grid *g = &w->grid;
    if (w->boundary != THRONG_BOUNDARY_PERIODIC) {
        for (int a = 0; a < 3; a++)
            if (memcmp(&g->edge[a], &s->edge[a], sizeof(float)) != 0 ||
                g->reach[a] != s->reach[a] || s->cells[a] != 0) {
                snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                          "the grid's cells on axis %d are not those its "
                          "cell edge gives",
                          a);
                return;
            }
        return;
    }
    const float cover = w->neighbour_radius * GRID_CELL_PAD;
    uint64_t cells = 1u;
    for (int a = 0; a < 3; a++) {
        int32_t n = s->cells[a], reach = s->reach[a];
        float edge = s->edge[a];
        int ok = is_finite_float(edge) && edge > 0.0f;
        if (a >= w->dims) {
            ok = ok && n == 1 && reach == 0;
        } else {
            ok = ok && n >= 3 && (uint32_t)n <= GRID_MAX_CELLS;
            float want = ok ? (float)((double)w->box[a] / (double)n) : 0.0f;
            ok = ok && memcmp(&want, &edge, sizeof edge) == 0;
            double want_reach = n == 3 ? 1.0 : snap_reach_for(cover, edge);
            ok = ok && (double)reach == want_reach &&
                 reach <= GRID_MAX_REACH && n >= 2 * reach + 1;
        }
        if (!ok) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "the periodic grid's axis %d (%d cells of %g m, reach "
                      "%d) is not one this box allows",
                      a, n, (double)edge, reach);
            return;
        }
        /* Checked per axis, so the product never wraps. */
        cells *= (uint64_t)n;
        if (cells > GRID_MAX_CELLS) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "the periodic grid has more than %u cells",
                      GRID_MAX_CELLS);
            return;
        }
    }
    for (int a = 0; a < 3; a++) {
        g->n[a] = s->cells[a];
        g->edge[a] = s->edge[a];
        g->inv_edge[a] = 1.0 / (double)s->edge[a];
        g->reach[a] = s->reach[a];
    }
    g->bucket_count = (uint32_t)cells;
}

static void load_geometry(snap_codec *c, throng_world *w,
                          const snap_settings *s) {
    geometry *g = world_alloc(w, sizeof *g);
    if (!g) {
        snap_fail(c, THRONG_ERR_OUT_OF_MEMORY,
                  "no memory for the object table");
        return;
    }
    memset(g, 0, sizeof *g);
    w->geo = g;
    uint32_t cap = s->object_count;
    if (cap > 0) {
        g->objects = world_alloc(w, (size_t)cap * sizeof *g->objects);
        g->free_ids = world_alloc(w, (size_t)cap * sizeof *g->free_ids);
        if (g->objects)
            memset(g->objects, 0, (size_t)cap * sizeof *g->objects);
        if (!g->objects || !g->free_ids) {
            /* Sized as allocated, so destroying the world frees them. */
            g->capacity = cap;
            snap_fail(c, THRONG_ERR_OUT_OF_MEMORY,
                      "no memory for %u objects", cap);
            return;
        }
    }
    g->capacity = cap;
    for (uint32_t i = 0; i < cap && c->status == THRONG_OK; i++) {
        geo_object *o = &g->objects[i];
        io_object(c, w, o);
        /* Counted as soon as it holds a block, which is then the world's
         * to free. */
        g->count = i + 1u;
        g->data_bytes += o->data_bytes;
        if (c->status == THRONG_OK) {
            /* The checks its creation made, from the same code. */
            char what[32];
            snprintf(what, sizeof what, "object %u", i + 1u);
            if (geo_object_check(w, what, o) != THRONG_OK)
                snap_fail(c, THRONG_ERR_BAD_SNAPSHOT, "%s", w->error);
        }
        g->live += o->kind != GEO_FREE;
        g->planes += o->kind == GEO_PLANE;
    }
    if (c->status != THRONG_OK)
        return;
    io_u32s(c, g->free_ids, s->object_free);
    if (c->status != THRONG_OK)
        return;
    g->free_count = s->object_free;
    if (g->live > g->count - g->free_count) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "%u of %u objects are live, but %u ids are free", g->live,
                  g->count, g->free_count);
        return;
    }
    /* Every free id names a free object, once: mark each as seen with a
     * kind no object has, then clear the marks. */
    const geo_kind seen = (geo_kind)(GEO_FLOW + 1);
    for (uint32_t k = 0; k < g->free_count && c->status == THRONG_OK; k++) {
        uint32_t id = g->free_ids[k];
        if (id >= g->count || g->objects[id].kind != GEO_FREE)
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "free object id %u is not a free object", id + 1u);
        else
            g->objects[id].kind = seen;
    }
    /* A free id not on the list is retired: it holds the last generation
     * (before version 3, no id was ever retired). */
    for (uint32_t i = 0; i < g->count && c->status == THRONG_OK; i++)
        if (g->objects[i].kind == GEO_FREE &&
            (c->version < SNAP_VERSION_WORLD_ID ||
             g->objects[i].generation != SLOT_LAST_GENERATION))
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "object id %u is free, but neither on the free list "
                      "nor retired",
                      i + 1u);
    for (uint32_t i = 0; i < g->count; i++)
        if (g->objects[i].kind == seen)
            g->objects[i].kind = GEO_FREE;
    g->version = 1u; /* the object grid is built by the first step */
}

/* A behaviour passes the checks its group functions made, except that a
 * path or flow field it names may have been removed since: then the
 * behaviour is quiet, and the rest of its fields are never read. */
static throng_status check_loaded_behaviour(throng_world *w,
                                            const throng_behaviour *b) {
    static const char fn[] = "behaviour";
    if (!is_finite_float(b->weight) || !is_finite_float(b->speed_factor) ||
        !(b->weight >= 0.0f) ||
        !(b->speed_factor >= 0.0f && b->speed_factor <= 1.0f))
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: weight %g or speed_factor %g out of range", fn,
                          (double)b->weight, (double)b->speed_factor);
    switch (behaviour_family(b->kind)) {
    case 1:
        return steer_agent_check(w, fn, b);
    case 2: {
        int flow = b->kind == THRONG_BEHAVIOUR_FOLLOW_FLOW;
        throng_object o = flow ? b->u.flow.field : b->u.path.path;
        if (!geo_lookup(w, o, GEO_MASK(flow ? GEO_FLOW : GEO_PATH)))
            return THRONG_OK;
        return steer_route_check(w, fn, b);
    }
    case 3:
        return steer_env_check(w, fn, b);
    }
    return world_fail(w, THRONG_ERR_OUT_OF_RANGE, "%s: unknown kind %d", fn,
                      (int)b->kind);
}

static void load_group(snap_codec *c, throng_world *w, uint32_t id) {
    group_record rec;
    memset(&rec, 0, sizeof rec);
    io_group(c, &rec);
    if (c->status != THRONG_OK)
        return;
    /* A name is zero-padded and ends within its 64 bytes. */
    const char *end = memchr(rec.name, '\0', sizeof rec.name);
    size_t len = end ? (size_t)(end - rec.name) : sizeof rec.name;
    int padded = end != NULL;
    for (size_t k = len; k < sizeof rec.name && padded; k++)
        padded = rec.name[k] == '\0';
    if (!padded || (id == 0u && strcmp(rec.name, "default") != 0)) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "group %u: its name is not valid", id);
        return;
    }
    char what[48];
    snprintf(what, sizeof what, "group %u", id);
    throng_status st;
    if (id == 0u) {
        /* Group 0 exists in every world: give it the saved recipe. */
        const throng_group g0 = group_handle(w, 0u);
        st = throng_group_set_flocking(w, g0, &rec.flocking);
        if (st == THRONG_OK)
            st = throng_group_set_wander(w, g0, &rec.wander);
        if (st == THRONG_OK)
            st = throng_group_set_combine(w, g0, rec.combine);
    } else {
        throng_group_def def = throng_group_def_default();
        def.name = len ? rec.name : NULL;
        def.flocking = rec.flocking;
        def.wander = rec.wander;
        def.combine = rec.combine;
        throng_group got = THRONG_NULL_GROUP;
        st = throng_group_create(w, &def, &got);
        if (st == THRONG_OK && got.id != id) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "group %u was created as %u", id, got.id);
            return;
        }
    }
    for (uint32_t i = 0; i < rec.behaviour_count && st == THRONG_OK; i++)
        st = check_loaded_behaviour(w, &rec.behaviours[i]);
    if (st != THRONG_OK) {
        snap_refused(c, w, st, what);
        return;
    }
    group_record *g = &w->groups[id];
    memcpy(g->behaviours, rec.behaviours, sizeof rec.behaviours);
    g->behaviour_count = rec.behaviour_count;
    group_derive_params(w, id);
}

/* A removed group's id: held, while loading, by an unnamed group with the
 * default recipe, which load_groups turns into a hole. */
static void load_hole(snap_codec *c, throng_world *w, uint32_t id) {
    throng_group_def def = throng_group_def_default();
    throng_group got = THRONG_NULL_GROUP;
    throng_status st = throng_group_create(w, &def, &got);
    if (st != THRONG_OK)
        snap_refused(c, w, st, "a removed group");
    else if (got.id != id)
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT, "group %u was created as %u",
                  id, got.id);
}

/* Every group id with its generation, the live groups' recipes, then the
 * free stack: each listed id a hole, listed once; a hole not listed is
 * retired, which only its last generation allows. */
static void load_groups(snap_codec *c, throng_world *w,
                        const snap_settings *s) {
    const int handles = c->version >= SNAP_VERSION_GROUP_HANDLES;
    /* Per id: 0 live, 1 a hole, 2 a hole listed as free. */
    uint8_t hole[THRONG_MAX_GROUPS];
    uint32_t free_ids[THRONG_MAX_GROUPS];
    for (uint32_t g = 0; g < s->group_count && c->status == THRONG_OK; g++) {
        uint32_t generation = 1u, live = 1u;
        if (handles) {
            io_u32(c, &generation);
            io_u32(c, &live);
        }
        if (c->status == THRONG_OK &&
            (generation == 0u || live > 1u || (g == 0u && !live))) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "group %u: generation %u, live flag %u", g, generation,
                      live);
            return;
        }
        hole[g] = live ? 0u : 1u;
        if (live)
            load_group(c, w, g);
        else
            load_hole(c, w, g);
        if (c->status == THRONG_OK)
            w->groups[g].generation = generation;
    }
    for (uint32_t k = 0; k < s->group_free && c->status == THRONG_OK; k++) {
        io_u32(c, &free_ids[k]);
        const uint32_t id = free_ids[k];
        if (c->status == THRONG_OK &&
            (id >= s->group_count || hole[id] != 1u)) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "free group id %u is not a removed group's, or is "
                      "listed twice",
                      id);
            return;
        }
        hole[id] = 2u;
    }
    for (uint32_t g = 0; g < s->group_count && c->status == THRONG_OK; g++) {
        if (hole[g] == 1u && w->groups[g].generation != SLOT_LAST_GENERATION) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "group id %u is neither live, free nor retired", g);
            return;
        }
        if (hole[g])
            w->groups[g].live = 0;
    }
    /* Back on the stack bottom first, so its order is kept. */
    for (uint32_t k = s->group_free; k-- > 0u && c->status == THRONG_OK;)
        group_push_free(w, free_ids[k]);
}

/* The slot table and the columns, then the checks that tie them together:
 * every row names a distinct slot, every other slot is free exactly once,
 * and host keys are unique (the key table refuses duplicates). */
static void load_agents(snap_codec *c, throng_world *w,
                        const snap_settings *s) {
    /* Creation reserved slot_count rows and slots. */
    w->slot_count = s->slot_count;
    for (uint32_t i = 0; i < s->slot_count && c->status == THRONG_OK; i++) {
        slot_entry *e = &w->slots[i];
        e->unused = 0;
        io_u32(c, &e->generation);
        io_u64(c, &e->host_key);
        if (c->status == THRONG_OK && c->version < SNAP_VERSION_WORLD_ID) {
            if (e->generation >> SNAP_TAG_SHIFT != c->tag ||
                (e->generation & SNAP_COUNTER_MASK) == 0u)
                snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                          "slot %u: generation %#x is not of the saved "
                          "world's tag %u",
                          i, e->generation, c->tag);
            e->generation &= SNAP_COUNTER_MASK;
        } else if (c->status == THRONG_OK && e->generation == 0u) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT, "slot %u: generation 0", i);
        }
        w->slot_dense[i] = SLOT_FREE;
    }
    io_u32s(c, w->free_slots, s->slot_free);
    w->free_count = s->slot_free;
    w->count = s->agent_count;
    io_columns(c, w);
    if (c->status != THRONG_OK)
        return;
    if (c->version < SNAP_VERSION_WORLD_ID && w->behaviour_state)
        for (uint32_t i = 0; i < w->count; i++)
            w->col.target_gen[i] &= SNAP_COUNTER_MASK;

    const agent_columns *col = &w->col;
    for (uint32_t i = 0; i < w->count; i++) {
        uint32_t slot = col->slot[i];
        if (slot >= w->slot_count || w->slot_dense[slot] != SLOT_FREE) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "row %u names slot %u, out of range or named twice", i,
                      slot);
            return;
        }
        w->slot_dense[slot] = i;
        /* The checks adding the agent made, from the same code, and what
         * the setters and steps keep true (finite columns, which the grid
         * and the neighbours' forces rely on, a unit heading, a position
         * inside a periodic box). */
        char what[64];
        snprintf(what, sizeof what, "agent {%u, %u} (row %u)", slot + 1u,
                 w->slots[slot].generation, i);
        if (world_check_row(w, what, i) != THRONG_OK) {
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT, "%s", w->error);
            return;
        }
    }
    /* Free slots: each once (marked while checking), none live, no key. */
    const uint32_t seen = SLOT_FREE - 1u;
    for (uint32_t k = 0; k < w->free_count && c->status == THRONG_OK; k++) {
        uint32_t slot = w->free_slots[k];
        if (slot >= w->slot_count || w->slot_dense[slot] != SLOT_FREE ||
            w->slots[slot].host_key != 0u)
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "free slot %u is out of range, live, listed twice or "
                      "keyed",
                      slot);
        else
            w->slot_dense[slot] = seen;
    }
    /* Any other slot without an agent is retired: it holds the last
     * generation and no key (before version 3 no slot was retired). */
    for (uint32_t i = 0; i < w->slot_count && c->status == THRONG_OK; i++)
        if (w->slot_dense[i] == SLOT_FREE &&
            (c->version < SNAP_VERSION_WORLD_ID ||
             w->slots[i].generation != SLOT_LAST_GENERATION ||
             w->slots[i].host_key != 0u))
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "slot %u has no agent, but is neither on the free "
                      "list nor retired",
                      i);
    for (uint32_t k = 0; k < w->free_count; k++)
        if (w->free_slots[k] < w->slot_count &&
            w->slot_dense[w->free_slots[k]] == seen)
            w->slot_dense[w->free_slots[k]] = SLOT_FREE;
    if (c->status != THRONG_OK)
        return;
    /* Host keys enter the key table through the public setter, which
     * refuses a key held twice; the slot holds none until then. */
    for (uint32_t i = 0; i < w->slot_count; i++) {
        uint64_t key = w->slots[i].host_key;
        if (w->slot_dense[i] == SLOT_FREE || key == 0u)
            continue;
        w->slots[i].host_key = 0u;
        throng_agent h = {i + 1u, w->slots[i].generation, w->id};
        throng_status st = throng_agent_set_host_key(w, h, key);
        if (st != THRONG_OK) {
            /* Later slots still hold keys the table lacks; the world is
             * destroyed, which reads only the table. */
            snap_refused(c, w, st, "host keys");
            return;
        }
    }
}

/* Notes the generation of every live agent and object as saved, so that
 * rebinding translates only the handles that were live at the save. */
static void record_origin(snap_codec *c, throng_world *w) {
    uint32_t slots = w->slot_count;
    uint32_t objects = w->geo ? w->geo->count : 0u;
    uint32_t groups = w->group_count;
    w->origin_gen = world_alloc(w, (size_t)slots * sizeof(uint32_t));
    w->origin_object_gen = world_alloc(w, (size_t)objects * sizeof(uint32_t));
    w->origin_group_gen = world_alloc(w, (size_t)groups * sizeof(uint32_t));
    /* Sized as allocated, so destroying the world frees them. */
    w->origin_slots = w->origin_gen ? slots : 0u;
    w->origin_objects = w->origin_object_gen ? objects : 0u;
    w->origin_groups = w->origin_group_gen ? groups : 0u;
    if ((slots && !w->origin_gen) || (objects && !w->origin_object_gen) ||
        !w->origin_group_gen) {
        snap_fail(c, THRONG_ERR_OUT_OF_MEMORY,
                  "no memory to record the saved handles");
        return;
    }
    for (uint32_t i = 0; i < groups; i++)
        w->origin_group_gen[i] =
            w->groups[i].live ? w->groups[i].generation : 0u;
    for (uint32_t i = 0; i < slots; i++)
        w->origin_gen[i] =
            w->slot_dense[i] != SLOT_FREE ? w->slots[i].generation : 0u;
    for (uint32_t i = 0; i < objects; i++)
        w->origin_object_gen[i] = w->geo->objects[i].kind != GEO_FREE
                                      ? w->geo->objects[i].generation
                                      : 0u;
}

/* Builds the world a verified snapshot describes; *out_world stays NULL
 * on failure. */
static void snap_decode(snap_codec *c, const throng_world_load_def *d,
                        throng_world **out_world) {
    snap_settings s;
    memset(&s, 0, sizeof s);
    io_settings(c, &s);
    if (c->status == THRONG_OK)
        check_settings(c, &s);
    if (c->status == THRONG_OK &&
        !(is_finite_float(s.edge[0]) && s.edge[0] > 0.0f))
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT, "the grid's cell edge is %g",
                  (double)s.edge[0]);
    if (c->status != THRONG_OK)
        return;

    throng_world_def def = throng_world_def_default();
    def.dimensions = (int)s.dims;
    def.boundary = (throng_boundary)s.boundary;
    memcpy(def.box_size, s.box, sizeof def.box_size);
    def.neighbour_radius = s.neighbour_radius;
    /* The cell size the world was made with, not the edge it became: a
     * periodic box stretches each axis's edge on its own. */
    def.cell_size = s.cell_size;
    def.threads = s.threads;
    def.seed = s.seed;
    def.max_dt = s.max_dt;
    def.max_substeps = s.max_substeps;
    /* Slots are never fewer than agents: room for both at once. */
    def.initial_capacity = s.slot_count;
    def.allocator = d->allocator;
    /* Creation's own checks, and its sentence, refuse bad settings. */
    char why[256] = "";
    def.error = why;
    def.error_capacity = sizeof why;
    throng_world *w = NULL;
    throng_status st = throng_world_create(&def, &w);
    if (st != THRONG_OK) {
        snap_fail(c,
                  st == THRONG_ERR_OUT_OF_MEMORY ? THRONG_ERR_OUT_OF_MEMORY
                                                 : THRONG_ERR_BAD_SNAPSHOT,
                  "the saved settings are refused: %s (%s)",
                  throng_status_string(st), why);
        return;
    }
    /* The world keeps its new id; the saving world's becomes its origin,
     * whose handles throng_agent_rebind translates. */
    c->world_id = w->id;
    c->tag = s.tag;
    w->origin = s.world_id;
    w->step = s.step;
    restore_grid_plan(c, w, &s);
    if (c->status == THRONG_OK && s.has_geometry)
        load_geometry(c, w, &s);
    load_groups(c, w, &s);
    if (c->status == THRONG_OK) {
        int any_list = 0;
        for (uint32_t g = 0; g < w->group_count; g++)
            any_list |= w->groups[g].behaviour_count > 0u;
        /* Lists read the state columns, so a world with lists has them. */
        if (any_list && !s.behaviour_state)
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "groups have behaviour lists but no behaviour state");
        else if (s.behaviour_state && world_enable_behaviour_state(w))
            snap_fail(c, THRONG_ERR_OUT_OF_MEMORY,
                      "no memory for the behaviour state of %u agents",
                      s.slot_count);
    }
    if (c->status == THRONG_OK)
        load_agents(c, w, &s);
    if (c->status == THRONG_OK && w->origin != 0u)
        record_origin(c, w);
    if (c->status == THRONG_OK) {
        /* Deriving the recipes set the flag where a group wanders now;
         * the saved flag also remembers groups that wandered before. */
        if (w->wander_used && !s.wander_used)
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "a group wanders but the wander flag is clear");
        w->wander_used = (int)s.wander_used;
    }
    if (c->status == THRONG_OK && c->pos != c->len)
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "%llu bytes follow the last section",
                  (unsigned long long)(c->len - c->pos));
    if (c->status != THRONG_OK) {
        throng_world_destroy(w);
        return;
    }
    w->error[0] = '\0';
    w->grid.valid = 0;
    world_uniform_scan(w);
    *out_world = w;
}

throng_status throng_world_load(const void *buffer, size_t bytes,
                                const throng_world_load_def *def,
                                throng_world **out_world) {
    static const char fn[] = "throng_world_load";
    if (out_world)
        *out_world = NULL;
    if (!out_world || !buffer) {
        load_report(def, "%s: buffer and out_world must not be NULL", fn);
        return THRONG_ERR_NULL;
    }
    throng_world_load_def d = def ? *def : throng_world_load_def_default();
    if ((d.allocator.alloc == NULL) != (d.allocator.free == NULL)) {
        load_report(def, "%s: give both allocator functions or neither", fn);
        return THRONG_ERR_NULL;
    }
    snap_codec c;
    memset(&c, 0, sizeof c);
    c.reading = 1;
    c.in = buffer;
    c.len = bytes;
    uint64_t total = 0;
    header_check(&c, buffer, bytes, &total);
    if (c.status == THRONG_OK && total != bytes)
        snap_fail(&c, THRONG_ERR_BAD_SNAPSHOT,
                  "%s: the header states %llu bytes, the buffer holds %zu",
                  total > bytes ? "truncated" : "too long",
                  (unsigned long long)total, bytes);
    if (c.status == THRONG_OK) {
        uint64_t stored = get_u64(c.in + SNAP_CHECKSUM_AT);
        uint64_t computed = snap_checksum(c.in, bytes);
        if (stored != computed)
            snap_fail(&c, THRONG_ERR_BAD_SNAPSHOT,
                      "checksum mismatch: stored %016llx, computed %016llx",
                      (unsigned long long)stored,
                      (unsigned long long)computed);
    }
    if (c.status == THRONG_OK) {
        c.pos = SNAP_HEADER_BYTES;
        snap_decode(&c, &d, out_world);
    }
    if (c.status != THRONG_OK) {
        load_report(def, "%s: %s", fn, c.why);
        return c.status;
    }
    load_report(def, "%s", "");
    return THRONG_OK;
}

/* Reads a snapshot of `total` bytes whose header, `head`, was read from
 * f already; returns the whole snapshot, in a block of *out_bytes, or
 * NULL with the refusal in c. A file whose size was checked against the
 * header (`sized`) is read in one go. A stream that cannot tell its size
 * (a pipe, a FIFO) is read in chunks, the buffer doubling only as the
 * bytes arrive: a header that claims more than the stream holds costs
 * about what the stream held, never what the header claims. */
static uint8_t *read_rest(snap_codec *c, const throng_world *boot, FILE *f,
                          const uint8_t *head, size_t total, int sized,
                          size_t *out_bytes) {
    size_t cap = sized || total < SNAP_STREAM_CHUNK ? total : SNAP_STREAM_CHUNK;
    uint8_t *buffer = world_alloc(boot, cap);
    if (!buffer) {
        snap_fail(c, THRONG_ERR_OUT_OF_MEMORY,
                  "no memory for %zu bytes of a snapshot of %zu", cap, total);
        return NULL;
    }
    memcpy(buffer, head, SNAP_HEADER_BYTES);
    size_t have = SNAP_HEADER_BYTES;
    while (have < total) {
        if (have == cap) {
            size_t grown = cap > total / 2u ? total : 2u * cap;
            uint8_t *more = world_alloc(boot, grown);
            if (!more) {
                snap_fail(c, THRONG_ERR_OUT_OF_MEMORY,
                          "no memory for %zu bytes of a snapshot of %zu",
                          grown, total);
                break;
            }
            memcpy(more, buffer, have);
            world_free(boot, buffer, cap);
            buffer = more;
            cap = grown;
        }
        size_t want = cap - have;
        size_t got = fread(buffer + have, 1, want, f);
        have += got;
        if (got == want)
            continue;
        if (ferror(f))
            snap_fail(c, THRONG_ERR_IO, "cannot read the file: %s",
                      strerror(errno));
        else
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "truncated: the file ends after %zu of the %zu bytes "
                      "its header states",
                      have, total);
        break;
    }
    if (c->status == THRONG_OK && fgetc(f) != EOF)
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "the file is longer than its header states");
    if (c->status != THRONG_OK) {
        world_free(boot, buffer, cap);
        return NULL;
    }
    *out_bytes = cap;
    return buffer;
}

throng_status throng_world_load_file(const char *path,
                                     const throng_world_load_def *def,
                                     throng_world **out_world) {
    static const char fn[] = "throng_world_load_file";
    if (out_world)
        *out_world = NULL;
    if (!out_world || !path) {
        load_report(def, "%s: path and out_world must not be NULL", fn);
        return THRONG_ERR_NULL;
    }
    throng_world boot; /* only its allocator: for the file's bytes */
    memset(&boot, 0, sizeof boot);
    if (def) {
        if ((def->allocator.alloc == NULL) != (def->allocator.free == NULL)) {
            load_report(def, "%s: give both allocator functions or neither",
                        fn);
            return THRONG_ERR_NULL;
        }
        boot.allocator = def->allocator;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        load_report(def, "%s: cannot open \"%s\": %s", fn, path,
                    strerror(errno));
        return THRONG_ERR_IO;
    }
    /* The header first: a file that is not a snapshot, or states a length
     * other than its own, is refused before its size is allocated. */
    snap_codec c;
    memset(&c, 0, sizeof c);
    c.reading = 1;
    uint8_t head[SNAP_HEADER_BYTES];
    size_t got = fread(head, 1, sizeof head, f);
    throng_status st = THRONG_OK;
    uint64_t total = 0;
    uint8_t *buffer = NULL;
    size_t buffer_bytes = 0;
    if (ferror(f)) {
        st = THRONG_ERR_IO;
        load_report(def, "%s: cannot read \"%s\": %s", fn, path,
                    strerror(errno));
    } else {
        header_check(&c, head, got, &total);
        off_t size = -1;
        if (c.status == THRONG_OK) {
            /* Where the file can tell its size, compare it at once. */
            if (fseeko(f, 0, SEEK_END) == 0)
                size = ftello(f);
            if (size >= 0 && (uint64_t)size != total)
                snap_fail(&c, THRONG_ERR_BAD_SNAPSHOT,
                          "the file is %lld bytes, its header states %llu",
                          (long long)size, (unsigned long long)total);
            else if (size >= 0 && fseeko(f, SNAP_HEADER_BYTES, SEEK_SET) != 0)
                snap_fail(&c, THRONG_ERR_IO, "cannot seek in the file: %s",
                          strerror(errno));
            else if (total > (uint64_t)SIZE_MAX)
                snap_fail(&c, THRONG_ERR_BAD_SNAPSHOT,
                          "a snapshot of %llu bytes",
                          (unsigned long long)total);
            clearerr(f);
        }
        if (c.status == THRONG_OK)
            buffer = read_rest(&c, &boot, f, head, (size_t)total, size >= 0,
                               &buffer_bytes);
        st = c.status;
        if (st != THRONG_OK)
            load_report(def, "%s: \"%s\": %s", fn, path, c.why);
    }
    fclose(f);
    if (st == THRONG_OK)
        st = throng_world_load(buffer, (size_t)total, def, out_world);
    world_free(&boot, buffer, buffer_bytes);
    return st;
}
