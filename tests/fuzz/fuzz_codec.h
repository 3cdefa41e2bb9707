/* SPDX-License-Identifier: MIT */
/*
 * The byte language of the API fuzzer, shared by the harness
 * (fuzz_api.c), which decodes it, and the seed generator (gen_corpus.c),
 * which writes it.
 *
 * An input is a world header followed by operations, each an op byte and
 * its arguments; a read past the end yields zeros and ends the input after
 * the current operation, so every byte string is a valid program.
 *
 * Floats take one byte when they are "interesting": below
 * FUZZ_FLOAT_SMALL_BASE the byte indexes fuzz_float_table (zeros, limits,
 * denormals, infinities, NaN); up to FUZZ_FLOAT_RAW it is a small multiple
 * of a half; FUZZ_FLOAT_RAW and above is followed by the four bytes of an
 * IEEE-754 bit pattern, little-endian. One byte per value keeps the
 * mutator's single-byte flips meaningful.
 *
 * Flocking, wander and behaviour parameters follow the behaviour schema
 * (src/behaviour_schema.h), so a new parameter changes no code here: for
 * every field of the struct in the table's order (a behaviour: its
 * common fields and those of its kind's union member, read or not), one
 * control byte per component (a handle: an object selector):
 *   below FUZZ_PARAM_BOUND      in range, at (byte + 0.5) / 160 of it
 *                               (testsupport's ts_schema_in_range, sides
 *                               beyond +-FUZZ_PARAM_SCALE stopping there);
 *   below FUZZ_PARAM_OUTSIDE    on a bound: low, high, one step inside
 *                               each, 0, -+FUZZ_PARAM_SCALE (byte & 7);
 *   below FUZZ_PARAM_NOT_FINITE just outside: one step, or 1, beyond low
 *                               or high (byte & 3);
 *   below FUZZ_PARAM_DEFAULT    NaN, +inf, -inf, -NaN (byte & 3; integer
 *                               types take one below low);
 *   below FUZZ_PARAM_RAW        the default;
 *   from FUZZ_PARAM_RAW         followed by a float (as above), or for
 *                               the other types a u32 (an int32 for the
 *                               signed ones, non-zero for true).
 * Fields the kind does not read (its `when` conditions included) are then
 * put back to their defaults, and one more byte, at FUZZ_PARAM_UNREAD or
 * above, sets one of them again, the ((byte - FUZZ_PARAM_UNREAD) % count)-th,
 * from the control byte after it (moved off its default if it lands
 * there), which the library must refuse.
 */
#ifndef THRONG_FUZZ_CODEC_H
#define THRONG_FUZZ_CODEC_H

#include <float.h>
#include <math.h>

#include "behaviour_schema.h"

/* Behaviour kinds are 1 .. FUZZ_KIND_COUNT - 1, the table's; the harness
 * also tries 0 and FUZZ_KIND_COUNT, which are refused. */
#define FUZZ_KIND_ONE(k, number, member) +1
enum {
    FUZZ_KIND_COUNT = 1 THRONG_SCHEMA_KINDS(FUZZ_KIND_ONE)
};
#undef FUZZ_KIND_ONE

enum fuzz_op {
    FUZZ_OP_ADD = 0,
    FUZZ_OP_ADD_MANY,
    FUZZ_OP_REMOVE,
    FUZZ_OP_SET_POSITION,
    FUZZ_OP_SET_VELOCITY,
    FUZZ_OP_SET_SCALAR, /* mass, max force, max speed, radius */
    FUZZ_OP_SET_GROUP,
    FUZZ_OP_SET_HOST_KEY,
    FUZZ_OP_GROUP_CREATE,
    FUZZ_OP_SET_FLOCKING,
    FUZZ_OP_SET_WANDER,
    FUZZ_OP_SET_COMBINE,
    FUZZ_OP_ADD_BEHAVIOUR,
    FUZZ_OP_SET_BEHAVIOUR,
    FUZZ_OP_CLEAR_BEHAVIOURS,
    FUZZ_OP_SPHERE,
    FUZZ_OP_BOX,
    FUZZ_OP_SEGMENT,
    FUZZ_OP_PLANE,
    FUZZ_OP_PATH,
    FUZZ_OP_FLOW,
    FUZZ_OP_OBJECT_REMOVE,
    FUZZ_OP_TARGET_POINT,
    FUZZ_OP_TARGET_AGENT,
    FUZZ_OP_PROGRESS,
    FUZZ_OP_QUERY,
    FUZZ_OP_STEP,
    FUZZ_OP_SAVE_LOAD,
    FUZZ_OP_THREADS,
    FUZZ_OP_READ,
    FUZZ_OP_FAIL_ALLOC,
    FUZZ_OP_GROUP_REMOVE, /* added in 0.5: last, so older seeds keep theirs */
    FUZZ_OP_COUNT
};

/* World header byte. */
#define FUZZ_WORLD_3D 0x01u
#define FUZZ_WORLD_PERIODIC 0x02u

/* An agent or object selector at or above this is a forged handle
 * (followed by u32 slot, u32 generation) of this world, or of a world
 * that does not exist for FUZZ_SELECT_FOREIGN; 0xFF is the null handle. */
#define FUZZ_SELECT_FORGED 0xF0u
#define FUZZ_SELECT_FOREIGN 0xFEu
#define FUZZ_SELECT_NULL 0xFFu

/* Where a snapshot keeps its checksum and the saving world's id (format
 * version 3, throng.h and src/snapshot_codec.c). */
#define FUZZ_SNAP_CHECKSUM_AT 32u
#define FUZZ_SNAP_WORLD_ID_AT 112u

#define FUZZ_PARAM_BOUND 0xA0u
#define FUZZ_PARAM_OUTSIDE 0xB0u
#define FUZZ_PARAM_NOT_FINITE 0xC0u
#define FUZZ_PARAM_DEFAULT 0xD0u
#define FUZZ_PARAM_RAW 0xF0u
#define FUZZ_PARAM_UNREAD 0xC0u
#define FUZZ_PARAM_SCALE 16.0

#define FUZZ_FLOAT_SMALL_BASE 32u
#define FUZZ_FLOAT_SMALL_ZERO 136u /* the byte for 0.0 in the small form */
#define FUZZ_FLOAT_RAW 0xF0u

static const float fuzz_float_table[FUZZ_FLOAT_SMALL_BASE] = {
    0.0f,     -0.0f,     1.0f,    -1.0f, 0.5f,        2.0f,        3.0f,
    10.0f,    100.0f,    1000.0f, 1e-3f, 1e-6f,       1e-20f,      FLT_MIN,
    1e-45f,   -1e-6f,    1e20f,   1e30f, 3e38f,       FLT_MAX,     -FLT_MAX,
    INFINITY, -INFINITY, NAN,     -NAN,  3.14159274f, 6.28318548f, 0.25f,
    0.1f,     50.0f,     99.999f, -1e30f
};

#endif
