/* SPDX-License-Identifier: MIT */
/*
 * The behaviour schema as data the library walks: one descriptor per
 * field of throng_flocking, throng_wander, throng_avoidance,
 * throng_motion,
 * throng_layers and throng_behaviour, made from
 * the table in behaviour_schema.h, and the defaults, checks and
 * normalisation every group function and the snapshot loader share.
 */
#ifndef THRONG_SCHEMA_H
#define THRONG_SCHEMA_H

#include "internal.h"
#include "behaviour_schema.h"

/* Which struct a descriptor's offset is in. */
typedef enum schema_set {
    SCHEMA_SET_FLOCKING = 0,  /* throng_flocking */
    SCHEMA_SET_WANDER = 1,    /* throng_wander */
    SCHEMA_SET_BEHAVIOUR = 2, /* throng_behaviour (common and union) */
    SCHEMA_SET_AVOIDANCE = 3, /* throng_avoidance */
    SCHEMA_SET_MOTION = 4,    /* throng_motion */
    SCHEMA_SET_LAYERS = 5     /* throng_layers */
} schema_set;

/* A struct of the table (THRONG_SCHEMA_STRUCTS). */
typedef struct schema_struct {
    schema_set set;
    size_t base;        /* its offset in its set's struct */
    const char *name;   /* "seek_params": the type throng_seek_params */
    const char *member; /* the union member, "_..." for none */
    const char *prefix; /* of its fields' qualified names */
} schema_struct;

typedef struct schema_field {
    int strct;         /* index in schema_structs */
    int type;          /* SCHEMA_F32 ... */
    int n;             /* components */
    uint32_t kinds;    /* SCHEMA_KIND bits that read it, 0: always */
    uint32_t flags;    /* SCHEMA_LO_OPEN ... */
    uint32_t since;    /* snapshot format version */
    size_t offset;     /* in its set's struct */
    size_t size;       /* of one component */
    const char *field; /* "point" */
    const char *ctype; /* "float", "throng_target_source" */
    const char *when;  /* "" or the qualified name of the deciding field */
    double when_value;
    uint32_t when_kinds;
    const char *unit;
    double lo, hi, dflt;
} schema_field;

extern const schema_struct schema_structs[];
extern const size_t schema_struct_count;
extern const schema_field schema_fields[];
extern const size_t schema_field_count;

/* The address of component k of field f in the struct at base. */
void *schema_field_at(const schema_field *f, const void *base, int k);

/* The value of component k of field f in the struct at base, as a double
 * (a handle: its id). */
double schema_get(const schema_field *f, const void *base, int k);

/* Whether kind `kind` reads field f of the behaviour at base: 1 yes, 0
 * no (the field must keep its default), -1 the field belongs to another
 * kind's union member (not part of this behaviour). Flocking and wander
 * fields are always read. */
int schema_reads(const schema_field *f, const void *base, int kind);

/* Fills the struct of `set` at base with its defaults (a behaviour: the
 * common fields and those of kind's member; the rest zero; kind is set). */
void schema_default(schema_set set, void *base, int kind);

/* Checks the struct of `set` at base: every field read in range (objects
 * live and of the right kind, unless `loaded`, when a removed one is
 * allowed), every field not read at its default. THRONG_OK or the
 * refusal recorded with world_fail (fn names the public function). */
throng_status schema_check(throng_world *w, const char *fn, schema_set set,
                           const void *base, int loaded);

/* Sets every field of the behaviour that its kind does not read to its
 * default (snapshots of earlier libraries stored such fields as given). */
void schema_normalise(throng_behaviour *b);

/* Whether field f is part of a behaviour of `kind`: a common field or
 * one of its union member's. */
int schema_part_of(const schema_field *f, int kind);

/* Sets field f of the struct at base to its default. */
void schema_field_default(const schema_field *f, void *base);

/* Whether a behaviour kind is known. */
int schema_kind_known(int kind);

#endif /* THRONG_SCHEMA_H */
