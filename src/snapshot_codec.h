/* SPDX-License-Identifier: MIT */
/*
 * Snapshots' private header: what saving (snapshot_write.c) and loading
 * (snapshot_read.c, snapshot_restore.c) share with the codec
 * (snapshot_codec.c): the header's layout, the format versions that
 * changed what is read, the codec's state, the settings section, and the
 * functions that walk each part of the state both ways.
 */
#ifndef THRONG_SNAPSHOT_CODEC_H
#define THRONG_SNAPSHOT_CODEC_H

#include "internal.h"
#include "geometry.h"

#include <stdint.h>

#define SNAP_MAGIC "THRNGSNP"
#define SNAP_MAGIC_BYTES 8u
/* The header's size and where its checksum sits (see throng.h). */
#define SNAP_HEADER_BYTES 40u
#define SNAP_CHECKSUM_AT 32u

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
/* The version with navigation fields (objects of kind GEO_NAV) and the
 * slots' navigation state (a section after the columns). */
#define SNAP_VERSION_NAV 6u

typedef struct snap_codec {
    int reading;
    uint8_t *out;      /* writing: the snapshot, or NULL to measure */
    const uint8_t *in; /* reading: the snapshot */
    uint64_t len;      /* reading: its length */
    uint64_t pos;      /* bytes written or read so far, header included */
    uint32_t version;  /* the format version being read or written */
    /* Writing the definition only (throng_world_definition_hash): what
     * a world's steps have made of its objects (a navigation field's
     * count of the crowd) is left out, so worlds made by the same calls
     * hash alike whatever their agents did. */
    int definition;
    /* Reading: the new world's id, and the old tag of a snapshot before
     * SNAP_VERSION_WORLD_ID, for the handles read back. */
    uint64_t world_id;
    uint32_t tag;
    /* Reading: the first refusal; later reads yield zeros and no-ops. */
    throng_status status;
    char why[200];
} snap_codec;

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
    float cell_size;     /* as the world's def asked */
    uint32_t group_free; /* version 4 on: removed groups' ids listed */
} snap_settings;

void snap_fail(snap_codec *c, throng_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Reading: whether `bytes` more are there; refuses the snapshot if not. */
int snap_has(snap_codec *c, uint64_t bytes, const char *what);

/* One value or a whole array, written or read back as c says. */
void io_u32(snap_codec *c, uint32_t *v);
void io_u64(snap_codec *c, uint64_t *v);
void io_u32s(snap_codec *c, uint32_t *v, size_t n);

/* The parts of the state, each walked both ways. */
void io_settings(snap_codec *c, snap_settings *s);
void io_group(snap_codec *c, group_record *g);
void io_object(snap_codec *c, throng_world *w, geo_object *o);
void io_columns(snap_codec *c, throng_world *w);
/* Version 6 on: the slots' navigation state, after the columns. */
void io_slot_nav(snap_codec *c, throng_world *w);

/* The checksum of a whole snapshot: every byte but the checksum's own. */
uint64_t snap_checksum(const uint8_t *s, size_t total);

#endif /* THRONG_SNAPSHOT_CODEC_H */
