/* SPDX-License-Identifier: MIT */
/*
 * The behaviour schema walked: the descriptors made from the table in
 * behaviour_schema.h, and from them the defaults of throng_flocking,
 * throng_wander and throng_behaviour, their checks (one sentence per kind
 * of check) and the normalisation of loaded behaviours. Nothing here
 * names a parameter: a new row in the table is defaulted, checked,
 * saved and documented without a change to this file.
 */
#include "schema.h"

#include <stddef.h>
#include <string.h>

#include "core.h"
#include "geometry.h"
#include "schema_text.h"
#include "handles.h"

/* ------------------------------------------------------------------------ */
/* The descriptors                                                          */
/* ------------------------------------------------------------------------ */

enum {
    SCHEMA_SI_FLOCKING = SCHEMA_SET_FLOCKING,
    SCHEMA_SI_WANDER = SCHEMA_SET_WANDER,
    SCHEMA_SI_BEHAVIOUR = SCHEMA_SET_BEHAVIOUR,
    SCHEMA_SI_AVOIDANCE = SCHEMA_SET_AVOIDANCE,
    SCHEMA_SI_MOTION = SCHEMA_SET_MOTION,
    SCHEMA_SI_LAYERS = SCHEMA_SET_LAYERS,
    SCHEMA_SI_PARAMS = 6
};

#define STRUCT_ID(name, member, set, prefix, doc) SCHEMA_S_##name,
enum {
    THRONG_SCHEMA_STRUCTS(STRUCT_ID) SCHEMA_S_COUNT
};
#undef STRUCT_ID

#define STRUCT_INFO(name_, member_, set_, prefix_, doc_) \
    { .set = SCHEMA_SI_##set_ == SCHEMA_SI_PARAMS        \
                 ? SCHEMA_SET_BEHAVIOUR                  \
                 : (schema_set)SCHEMA_SI_##set_,         \
      .base = SCHEMA_SI_##set_ == SCHEMA_SI_PARAMS       \
                  ? offsetof(throng_behaviour, u)        \
                  : 0u,                                  \
      .name = #name_,                                    \
      .member = #member_,                                \
      .prefix = (prefix_) },
const schema_struct schema_structs[] = { THRONG_SCHEMA_STRUCTS(STRUCT_INFO) };
const size_t schema_struct_count = SCHEMA_S_COUNT;
#undef STRUCT_INFO

#define FIELD_INFO(st, field_, type_, ctype_, n_, kinds_, when_, wv, wk, \
                   unit_, lo_, hi_, flags_, dflt_, since_, doc_)         \
    { .strct = SCHEMA_S_##st,                                            \
      .type = (type_),                                                   \
      .n = (n_),                                                         \
      .kinds = (kinds_),                                                 \
      .flags = (flags_),                                                 \
      .since = (since_),                                                 \
      .offset = offsetof(throng_##st, field_),                           \
      .size = sizeof(ctype_),                                            \
      .field = #field_,                                                  \
      .ctype = #ctype_,                                                  \
      .when = (when_),                                                   \
      .when_value = (wv),                                                \
      .when_kinds = (wk),                                                \
      .unit = (unit_),                                                   \
      .lo = (double)(lo_),                                               \
      .hi = (double)(hi_),                                               \
      .dflt = (double)(dflt_) },
const schema_field schema_fields[] = { THRONG_SCHEMA_PARAMS(FIELD_INFO) };
const size_t schema_field_count =
    sizeof schema_fields / sizeof schema_fields[0];
#undef FIELD_INFO

/* The table's kind numbers are the header's, each a bit of the kinds
 * mask. */
#define KIND_VALUE(k, number, member)                                  \
    _Static_assert(THRONG_BEHAVIOUR_##k == (number) && (number) > 0 && \
                       (number) < SCHEMA_KIND_LIMIT,                   \
                   #k);
THRONG_SCHEMA_KINDS(KIND_VALUE)
#undef KIND_VALUE

#define KIND_NAME(k, number, member) [THRONG_BEHAVIOUR_##k] = #k,
static const char *const kind_names[SCHEMA_KIND_LIMIT] = { THRONG_SCHEMA_KINDS(
    KIND_NAME) };
#undef KIND_NAME
#define KIND_MEMBER(k, number, member) [THRONG_BEHAVIOUR_##k] = #member,
static const char *const kind_members[SCHEMA_KIND_LIMIT] = {
    THRONG_SCHEMA_KINDS(KIND_MEMBER)
};
#undef KIND_MEMBER

typedef struct enum_value {
    const char *type, *name;
    int number;
} enum_value;
#define ENUM_ROW(type, value, number, doc) { #type, #value, number },
static const enum_value enum_values[] = { THRONG_SCHEMA_ENUMS(ENUM_ROW) };
#undef ENUM_ROW

int schema_kind_known(int kind) {
    return kind > 0 && kind < SCHEMA_KIND_LIMIT && kind_names[kind] != NULL;
}

static const schema_struct *struct_of(const schema_field *f) {
    return &schema_structs[f->strct];
}

void *schema_field_at(const schema_field *f, const void *base, int k) {
    return (char *)(uintptr_t)base + struct_of(f)->base + f->offset +
           (size_t)k * f->size;
}

/* "seek.point" */
static void qualified(const schema_field *f, char *buf, size_t n) {
    snprintf(buf, n, "%s%s", struct_of(f)->prefix, f->field);
}

static const schema_field *find_field(const char *qualified_name) {
    char name[64];
    for (size_t i = 0; i < schema_field_count; i++) {
        qualified(&schema_fields[i], name, sizeof name);
        if (strcmp(name, qualified_name) == 0)
            return &schema_fields[i];
    }
    return NULL;
}

/* The name of enum value `number` of the field's type (NULL if none). */
static const char *enum_name(const schema_field *f, int number) {
    const char *type = f->ctype + strlen("throng_");
    for (size_t i = 0; i < sizeof enum_values / sizeof enum_values[0]; i++)
        if (strcmp(enum_values[i].type, type) == 0 &&
            enum_values[i].number == number)
            return enum_values[i].name;
    return NULL;
}

double schema_get(const schema_field *f, const void *base, int k) {
    const void *p = schema_field_at(f, base, k);
    switch (f->type) {
    case SCHEMA_F32:
        return (double)*(const float *)p;
    case SCHEMA_I32:
        return (double)*(const int32_t *)p;
    case SCHEMA_U32:
        return (double)*(const uint32_t *)p;
    case SCHEMA_BOOL:
        return *(const bool *)p ? 1.0 : 0.0;
    case SCHEMA_ENUM:
        return (double)*(const int *)p;
    default:
        return (double)((const throng_object *)p)->id;
    }
}

void schema_field_default(const schema_field *f, void *base) {
    for (int k = 0; k < f->n; k++) {
        void *p = schema_field_at(f, base, k);
        switch (f->type) {
        case SCHEMA_F32:
            *(float *)p = (float)f->dflt;
            break;
        case SCHEMA_I32:
            *(int32_t *)p = (int32_t)f->dflt;
            break;
        case SCHEMA_U32:
            *(uint32_t *)p = (uint32_t)f->dflt;
            break;
        case SCHEMA_BOOL:
            *(bool *)p = f->dflt != 0.0;
            break;
        case SCHEMA_ENUM:
            *(int *)p = (int)f->dflt;
            break;
        default:
            memset(p, 0, sizeof(throng_object));
            break;
        }
    }
}

static int is_default(const schema_field *f, const void *base) {
    for (int k = 0; k < f->n; k++) {
        if (f->type == SCHEMA_OBJECT) {
            static const throng_object null_object;
            if (memcmp(schema_field_at(f, base, k), &null_object,
                       sizeof null_object) != 0)
                return 0;
        } else if (f->type == SCHEMA_F32) {
            if (!(*(const float *)schema_field_at(f, base, k) ==
                  (float)f->dflt))
                return 0;
        } else if (schema_get(f, base, k) != f->dflt) {
            return 0;
        }
    }
    return 1;
}

static int in_set(const schema_field *f, schema_set set) {
    return struct_of(f)->set == set;
}

int schema_part_of(const schema_field *f, int kind) {
    const schema_struct *s = struct_of(f);
    return s->member[0] == '_' || (schema_kind_known(kind) &&
                                   strcmp(s->member, kind_members[kind]) == 0);
}

int schema_reads(const schema_field *f, const void *base, int kind) {
    if (f->kinds == 0u)
        return 1;
    if (!schema_part_of(f, kind))
        return -1;
    if (!schema_kind_known(kind) || !(f->kinds & (1u << kind)))
        return 0;
    if (f->when[0] && (f->when_kinds & (1u << kind))) {
        const schema_field *d = find_field(f->when);
        if (d && schema_get(d, base, 0) != f->when_value)
            return 0;
    }
    return 1;
}

void schema_default(schema_set set, void *base, int kind) {
    if (set == SCHEMA_SET_BEHAVIOUR) {
        memset(base, 0, sizeof(throng_behaviour));
        ((throng_behaviour *)base)->kind = (throng_behaviour_kind)kind;
    } else {
        memset(base, 0,
               set == SCHEMA_SET_FLOCKING    ? sizeof(throng_flocking)
               : set == SCHEMA_SET_WANDER    ? sizeof(throng_wander)
               : set == SCHEMA_SET_AVOIDANCE ? sizeof(throng_avoidance)
               : set == SCHEMA_SET_MOTION    ? sizeof(throng_motion)
                                             : sizeof(throng_layers));
    }
    for (size_t i = 0; i < schema_field_count; i++) {
        const schema_field *f = &schema_fields[i];
        if (in_set(f, set) && schema_reads(f, base, kind) >= 0)
            schema_field_default(f, base);
    }
}

void schema_normalise(throng_behaviour *b) {
    for (size_t i = 0; i < schema_field_count; i++) {
        const schema_field *f = &schema_fields[i];
        if (in_set(f, SCHEMA_SET_BEHAVIOUR) && schema_reads(f, b, b->kind) == 0)
            schema_field_default(f, b);
    }
}

/* ------------------------------------------------------------------------ */
/* Checks                                                                   */
/* ------------------------------------------------------------------------ */

/* A value of the field as a sentence shows it. */
static void value_text(const schema_field *f, double v, char *buf, size_t n) {
    schema_value_text(buf, n, f->type,
                      f->type == SCHEMA_ENUM ? enum_name(f, (int)v) : NULL, v,
                      0);
}

/* A field the kind does not read that was set. */
static throng_status refuse_unread(throng_world *w, const char *fn,
                                   const schema_field *f, const void *base,
                                   int kind) {
    char name[64], dflt[48], why[160];
    qualified(f, name, sizeof name);
    value_text(f, f->dflt, dflt, sizeof dflt);
    if (f->n > 1)
        snprintf(dflt, sizeof dflt, "(%g, %g, %g)", f->dflt, f->dflt, f->dflt);
    if (f->kinds & (1u << kind)) {
        const schema_field *d = find_field(f->when);
        char v[48];
        value_text(d, f->when_value, v, sizeof v);
        snprintf(why, sizeof why, "unless %s is %s", f->when, v);
    } else {
        size_t len = (size_t)snprintf(why, sizeof why, "(only");
        const char *sep = " by ";
        for (int k = 1; k < SCHEMA_KIND_LIMIT; k++)
            if ((f->kinds & (1u << k)) && len < sizeof why) {
                len += (size_t)snprintf(why + len, sizeof why - len, "%s%s",
                                        sep, kind_names[k]);
                sep = ", ";
            }
        if (len < sizeof why)
            snprintf(why + len, sizeof why - len, ")");
    }
    (void)base;
    return world_fail(w, THRONG_ERR_INVALID_ARG,
                      "%s: %s is not read by %s %s; leave it at its default %s",
                      fn, name, kind_names[kind], why, dflt);
}

/* A field that is read: its value in range. */
static throng_status check_value(throng_world *w, const char *fn,
                                 const schema_field *f, const void *base,
                                 int loaded) {
    char name[64], range[160];
    qualified(f, name, sizeof name);
    if (f->type == SCHEMA_OBJECT) {
        const throng_object *h = schema_field_at(f, base, 0);
        uint32_t mask = strcmp(f->unit, "path") == 0 ? GEO_MASK(GEO_PATH)
                        : strcmp(f->unit, "navigation field") == 0
                            ? GEO_MASK(GEO_NAV)
                            : GEO_MASK(GEO_FLOW);
        if (geo_lookup(w, *h, mask) || loaded)
            return THRONG_OK;
        return handle_fail(w, fn, "object", h->id, h->generation, h->world,
                           f->unit);
    }
    if (f->type == SCHEMA_BOOL || f->type == SCHEMA_I32)
        return THRONG_OK;
    if (f->type == SCHEMA_F32 && f->n > 1) {
        throng_status st = check_vec(w, fn, name, schema_field_at(f, base, 0));
        if (st != THRONG_OK || !(f->flags & SCHEMA_LT_NEXT))
            return st;
        const schema_field *next = f + 1;
        char next_name[64];
        qualified(next, next_name, sizeof next_name);
        for (int k = 0; k < w->dims; k++) {
            double a = schema_get(f, base, k), b = schema_get(next, base, k);
            if (is_finite_float((float)b) && !(a < b))
                return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                                  "%s: %s[%d] must be below %s[%d], got %g "
                                  "and %g",
                                  fn, name, k, next_name, k, a, b);
        }
        return THRONG_OK;
    }
    const double x = schema_get(f, base, 0);
    if (f->type == SCHEMA_F32 && f->lo == (double)SCHEMA_LEN_MIN &&
        f->hi == (double)SCHEMA_LEN_MAX && !(f->flags & SCHEMA_NBR))
        return check_length_field(w, fn, name, (float)x,
                                  (f->flags & SCHEMA_ZERO) != 0u);
    if (f->type == SCHEMA_F32) {
        throng_status st = check_finite(w, fn, name, (float)x);
        if (st != THRONG_OK)
            return st;
    }
    double hi = f->hi;
    if ((f->flags & SCHEMA_NBR) && (double)w->neighbour_radius < hi)
        hi = (double)w->neighbour_radius;
    int ok = ((f->flags & SCHEMA_LO_OPEN) ? x > f->lo : x >= f->lo) &&
             ((f->flags & SCHEMA_HI_OPEN) ? x < hi : x <= hi);
    if (ok || ((f->flags & SCHEMA_ZERO) && x == 0.0))
        return THRONG_OK;
    if (f->type == SCHEMA_ENUM) {
        char list[160];
        size_t len = 0;
        for (int v = (int)f->lo; v <= (int)f->hi && len < sizeof list; v++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s (%d)",
                                    v == (int)f->lo   ? ""
                                    : v == (int)f->hi ? " or "
                                                      : ", ",
                                    enum_name(f, v), v);
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: %s must be %s, got %d", fn, name, list, (int)x);
    }
    schema_range_phrase(range, sizeof range, f->type, f->lo, hi, f->flags,
                        f->unit, 0);
    return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                      "%s: %s must be %s%s, got %g%s", fn, name,
                      range[0] == '>' ? "" : "in ", range, x,
                      hi < f->hi ? " (the upper bound is the world's "
                                   "neighbour radius)"
                                 : "");
}

throng_status schema_check(throng_world *w, const char *fn, schema_set set,
                           const void *base, int loaded) {
    int kind = 0;
    if (set == SCHEMA_SET_BEHAVIOUR) {
        kind = (int)((const throng_behaviour *)base)->kind;
        if (!schema_kind_known(kind))
            return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                              "%s: unknown behaviour kind %d", fn, kind);
    }
    for (size_t i = 0; i < schema_field_count; i++) {
        const schema_field *f = &schema_fields[i];
        if (!in_set(f, set))
            continue;
        int reads = schema_reads(f, base, kind);
        throng_status st = THRONG_OK;
        if (reads == 0 && !is_default(f, base))
            st = refuse_unread(w, fn, f, base, kind);
        else if (reads == 1)
            st = check_value(w, fn, f, base, loaded);
        if (st != THRONG_OK)
            return st;
    }
    return THRONG_OK;
}
