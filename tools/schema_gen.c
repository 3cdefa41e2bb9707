/* SPDX-License-Identifier: MIT */
/*
 * schema-gen: writes what the behaviour schema (src/behaviour_schema.h)
 * decides in the public header and the Python binding.
 *
 *   schema-gen header include/throng.h   the header with every region
 *                                        between "schema:begin NAME" and
 *                                        "schema:end NAME" comments
 *                                        written anew, on stdout
 *   schema-gen python                    python/throng_schema.py, on stdout
 *
 * `make schema` runs both and replaces the files; `make check-schema`
 * fails when the checked-in copies differ from what this program writes.
 * It reads only the table, never throng.h, so it runs while the header
 * still lacks the table's newest fields.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "behaviour_schema.h"
#include "schema_text.h"

enum {
    SET_FLOCKING,
    SET_WANDER,
    SET_AVOIDANCE,
    SET_MOTION,
    SET_LAYERS,
    SET_PARAMS,
    SET_BEHAVIOUR
};

typedef struct gen_struct {
    const char *name, *member, *prefix, *doc;
    int set;
} gen_struct;

typedef struct gen_field {
    const char *strct, *field, *ctype, *when, *unit, *doc;
    int type, n;
    unsigned kinds, when_kinds, flags, since;
    double when_value, lo, hi, dflt;
} gen_field;

typedef struct gen_kind {
    const char *name, *member;
    int value;
} gen_kind;

typedef struct gen_enum_type {
    const char *name, *prefix, *python, *doc;
} gen_enum_type;

typedef struct gen_enum {
    const char *type, *name, *doc;
    int number;
} gen_enum;

#define STRUCT_ROW(name, member, set, prefix, doc) \
    { #name, #member, prefix, doc, SET_##set },
static const gen_struct structs[] = { THRONG_SCHEMA_STRUCTS(STRUCT_ROW) };
#define FIELD_ROW(st, field, type, ctype, n, kinds, when, wv, wk, unit, lo, \
                  hi, flags, dflt, since, doc)                              \
    { #st,   #field, #ctype, when,  unit, doc, type, n,                     \
      kinds, wk,     flags,  since, wv,   lo,  hi,   dflt },
static const gen_field fields[] = { THRONG_SCHEMA_PARAMS(FIELD_ROW) };
#define KIND_ROW(k, number, member) { #k, #member, number },
static const gen_kind kinds[] = { THRONG_SCHEMA_KINDS(KIND_ROW) };
#define ENUM_TYPE_ROW(name, prefix, python, doc) \
    { #name, #prefix, #python, doc },
static const gen_enum_type enum_types[] = { THRONG_SCHEMA_ENUM_TYPES(
    ENUM_TYPE_ROW) };
#define ENUM_ROW(type, value, number, doc) { #type, #value, doc, number },
static const gen_enum enums[] = { THRONG_SCHEMA_ENUMS(ENUM_ROW) };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------ */
/* Text                                                                     */
/* ------------------------------------------------------------------------ */

/* Writes `text` as a C comment at `indent` spaces, wrapped at 80
 * columns; a comment that fits stays on one line. */
static void comment(FILE *out, int indent, const char *text) {
    const int width = 80 - indent;
    if ((int)strlen(text) + 6 <= width) {
        fprintf(out, "%*s/* %s */\n", indent, "", text);
        return;
    }
    const char *p = text;
    int first = 1;
    while (*p) {
        int room = width - 3;
        int len = (int)strlen(p), cut = len;
        if (len > room) {
            cut = room;
            while (cut > 0 && p[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = room;
        }
        const char *lead = first ? "/* " : " * ";
        first = 0;
        if (cut == len && len + 3 <= room) {
            fprintf(out, "%*s%s%s */\n", indent, "", lead, p);
            return;
        }
        fprintf(out, "%*s%s%.*s\n", indent, "", lead, cut, p);
        p += cut;
        while (*p == ' ')
            p++;
    }
    fprintf(out, "%*s */\n", indent, "");
}

static const char *enum_value_name(const char *ctype, int number) {
    for (size_t i = 0; i < COUNT(enums); i++)
        if (strcmp(ctype + strlen("throng_"), enums[i].type) == 0 &&
            enums[i].number == number)
            return enums[i].name;
    return NULL;
}

static const char *kind_name(int value) {
    for (size_t i = 0; i < COUNT(kinds); i++)
        if (kinds[i].value == value)
            return kinds[i].name;
    return "?";
}

/* "SEEK, FLEE and ARRIVE" */
static void kind_list(unsigned mask, char *buf, size_t n) {
    size_t len = 0;
    int total = 0, done = 0;
    buf[0] = '\0';
    for (int k = 1; k < SCHEMA_KIND_LIMIT; k++)
        total += (int)((mask >> k) & 1u);
    for (int k = 1; k < SCHEMA_KIND_LIMIT && len < n; k++)
        if (mask & (1u << k)) {
            done++;
            len += (size_t)snprintf(buf + len, n - len, "%s%s",
                                    done == 1       ? ""
                                    : done == total ? " and "
                                                    : ", ",
                                    kind_name(k));
        }
}

static void value_text(const gen_field *f, double v, char *buf, size_t n) {
    schema_value_text(buf, n, f->type,
                      f->type == SCHEMA_ENUM ? enum_value_name(f->ctype, (int)v)
                                             : NULL,
                      v, 1);
}

static const gen_field *find(const char *qualified) {
    char name[96];
    for (size_t i = 0; i < COUNT(fields); i++)
        for (size_t s = 0; s < COUNT(structs); s++)
            if (strcmp(structs[s].name, fields[i].strct) == 0) {
                snprintf(name, sizeof name, "%s%s", structs[s].prefix,
                         fields[i].field);
                if (strcmp(name, qualified) == 0)
                    return &fields[i];
            }
    return NULL;
}

/* The sentence after a field: range, default, who reads it. */
static void field_doc(const gen_field *f, int union_member, char *buf,
                      size_t n) {
    char range[200] = "", dflt[64], who[200] = "", when[400] = "";
    if (f->type != SCHEMA_ENUM)
        schema_range_phrase(range, sizeof range, f->type, f->lo, f->hi,
                            f->flags, f->unit, 1);
    value_text(f, f->dflt, dflt, sizeof dflt);
    if (f->type == SCHEMA_OBJECT)
        snprintf(range, sizeof range, "a live %s", f->unit);
    else if (!range[0] && f->unit[0])
        snprintf(range, sizeof range, "%s", f->unit);
    if (f->when[0]) {
        const gen_field *d = find(f->when);
        char v[64], wk[128];
        value_text(d, f->when_value, v, sizeof v);
        kind_list(f->when_kinds, wk, sizeof wk);
        snprintf(when, sizeof when, " %s %s it only while %s is %s.",
                 f->when_kinds == f->kinds ? "They read" : wk,
                 f->when_kinds == f->kinds ? "" : "reads", f->when, v);
        if (f->when_kinds == f->kinds)
            snprintf(when, sizeof when, " They read it only while %s is %s.",
                     f->when, v);
    }
    if (union_member && f->kinds) {
        char list[128];
        kind_list(f->kinds, list, sizeof list);
        snprintf(who, sizeof who, " Read by %s.", list);
    }
    snprintf(buf, n, "%s%s%s%s Default: %s.%s%s", f->doc,
             range[0] ? " Range: " : "", range, range[0] ? "." : "", dflt, who,
             when);
}

static void c_decl(FILE *out, const gen_field *f) {
    if (f->n > 1)
        fprintf(out, "    %s %s[%d];\n", f->ctype, f->field, f->n);
    else
        fprintf(out, "    %s %s;\n", f->ctype, f->field);
}

/* ------------------------------------------------------------------------ */
/* The header's regions                                                     */
/* ------------------------------------------------------------------------ */

static void emit_enum_type(FILE *out, const char *name) {
    for (size_t t = 0; t < COUNT(enum_types); t++) {
        if (strcmp(enum_types[t].name, name) != 0)
            continue;
        comment(out, 0, enum_types[t].doc);
        fprintf(out, "typedef enum throng_%s {\n", name);
        for (size_t i = 0; i < COUNT(enums); i++)
            if (strcmp(enums[i].type, name) == 0) {
                comment(out, 4, enums[i].doc);
                fprintf(out, "    THRONG_%s_%s = %d,\n", enum_types[t].prefix,
                        enums[i].name, enums[i].number);
            }
        fprintf(out, "} throng_%s;\n", name);
    }
}

static void emit_struct(FILE *out, const gen_struct *s) {
    char doc[2048];
    if (s->doc[0])
        comment(out, 0, s->doc);
    fprintf(out, "typedef struct throng_%s {\n", s->name);
    if (s->set == SET_BEHAVIOUR)
        fprintf(out, "    throng_behaviour_kind kind;\n");
    for (size_t i = 0; i < COUNT(fields); i++) {
        const gen_field *f = &fields[i];
        if (strcmp(f->strct, s->name) != 0)
            continue;
        field_doc(f, s->set == SET_PARAMS, doc, sizeof doc);
        comment(out, 4, doc);
        c_decl(out, f);
    }
    if (s->set == SET_BEHAVIOUR) {
        fprintf(out, "    union {\n");
        for (size_t u = 0; u < COUNT(structs); u++) {
            if (structs[u].set != SET_PARAMS)
                continue;
            unsigned mask = 0;
            for (size_t k = 0; k < COUNT(kinds); k++)
                if (strcmp(kinds[k].member, structs[u].member) == 0)
                    mask |= 1u << kinds[k].value;
            char list[128];
            kind_list(mask, list, sizeof list);
            fprintf(out, "        throng_%s %s; /* %s */\n", structs[u].name,
                    structs[u].member, list);
        }
        fprintf(out, "    } u;\n");
    }
    fprintf(out, "} throng_%s;\n", s->name);
}

static const gen_struct *struct_named(const char *name) {
    for (size_t s = 0; s < COUNT(structs); s++)
        if (strcmp(structs[s].name, name) == 0)
            return &structs[s];
    return NULL;
}

/* What each kind reads: the documentation table. */
static void gen_kind_table(FILE *out) {
    char line[1024];
    comment(out, 0,
            "What each kind reads (generated from the schema). The group "
            "functions check every field a behaviour's kind reads against "
            "its range and refuse, with THRONG_ERR_INVALID_ARG and a "
            "sentence naming the field, any other field of its union member "
            "that does not keep its default: a field is either honoured or "
            "refused, never silently ignored. Fields of other union members "
            "are not part of the behaviour. throng_behaviour_default gives "
            "every field its default.");
    fprintf(out, "/*\n");
    for (size_t k = 0; k < COUNT(kinds); k++) {
        size_t len =
            (size_t)snprintf(line, sizeof line, "%-17s", kinds[k].name);
        const char *sep = "";
        for (size_t i = 0; i < COUNT(fields); i++) {
            const gen_field *f = &fields[i];
            const gen_struct *s = struct_named(f->strct);
            if (!(f->kinds & (1u << kinds[k].value)))
                continue;
            if (s->set == SET_PARAMS && strcmp(s->member, kinds[k].member) != 0)
                continue;
            if (s->set == SET_BEHAVIOUR &&
                !(f->when[0] && (f->when_kinds & (1u << kinds[k].value))))
                continue; /* every kind reads the common fields */
            char cond[96] = "";
            if (f->when[0] && (f->when_kinds & (1u << kinds[k].value))) {
                char v[64];
                value_text(find(f->when), f->when_value, v, sizeof v);
                snprintf(cond, sizeof cond, " (while %s is %s)", f->when, v);
            }
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%s%s%s",
                                    sep, s->prefix, f->field, cond);
            sep = ", ";
        }
        /* Wrap the list under its kind's column. */
        const char *p = line;
        int first = 1;
        while (*p) {
            int room = first ? 77 : 77 - 17;
            int rest = (int)strlen(p), cut = rest;
            if (rest > room) {
                cut = room;
                while (cut > 0 && p[cut] != ' ')
                    cut--;
            }
            fprintf(out, " * %s%.*s\n", first ? "" : "                 ", cut,
                    p);
            first = 0;
            p += cut;
            while (*p == ' ')
                p++;
        }
    }
    fprintf(out, " * Every kind also reads weight, priority and speed_factor "
                 "(FOLLOW_FLOW\n * speed_factor only while flow.raw is "
                 "false).\n */\n");
}

/* A region's text is the generator's, byte for byte (make check-schema
 * compares it), so the formatter leaves it alone. */
/* THRONG_SNAPSHOT_VERSION: the table's highest `since`, or the base. */
static unsigned snapshot_version(void) {
    unsigned v = THRONG_SCHEMA_SNAPSHOT_BASE;
    for (size_t i = 0; i < COUNT(fields); i++)
        if (fields[i].since > v)
            v = fields[i].since;
    return v;
}

static void gen_region_text(FILE *out, const char *name) {
    if (strcmp(name, "snapshot_version") == 0) {
        fprintf(out, "#define THRONG_SNAPSHOT_VERSION %uu\n",
                snapshot_version());
    } else if (strcmp(name, "separation_mode") == 0) {
        emit_enum_type(out, "separation_mode");
    } else if (strcmp(name, "flocking") == 0) {
        emit_struct(out, struct_named("flocking"));
    } else if (strcmp(name, "wander") == 0) {
        emit_struct(out, struct_named("wander"));
    } else if (strcmp(name, "avoidance_mode") == 0) {
        emit_enum_type(out, "avoidance_mode");
    } else if (strcmp(name, "avoidance") == 0) {
        emit_struct(out, struct_named("avoidance"));
    } else if (strcmp(name, "motion") == 0) {
        emit_struct(out, struct_named("motion"));
    } else if (strcmp(name, "layers") == 0) {
        emit_struct(out, struct_named("layers"));
    } else if (strcmp(name, "behaviour") == 0) {
        emit_enum_type(out, "target_source");
        fprintf(out, "\n");
        emit_enum_type(out, "arrive_ramp");
        for (size_t s = 0; s < COUNT(structs); s++)
            if (structs[s].set == SET_PARAMS ||
                structs[s].set == SET_BEHAVIOUR) {
                fprintf(out, "\n");
                emit_struct(out, &structs[s]);
            }
        fprintf(out, "\n");
        gen_kind_table(out);
    } else {
        fprintf(stderr, "schema-gen: unknown region %s\n", name);
        exit(1);
    }
}

static void gen_region(FILE *out, const char *name) {
    fprintf(out, "/* clang-format off */\n");
    gen_region_text(out, name);
    fprintf(out, "/* clang-format on */\n");
}

static int gen_header(const char *path) {
    FILE *in = fopen(path, "r");
    if (!in) {
        perror(path);
        return 1;
    }
    char line[4096];
    int skipping = 0, regions = 0;
    while (fgets(line, sizeof line, in)) {
        char name[64];
        if (skipping) {
            if (sscanf(line, "/* schema:end %63s", name) == 1) {
                fputs(line, stdout);
                skipping = 0;
            }
            continue;
        }
        fputs(line, stdout);
        if (sscanf(line, "/* schema:begin %63s", name) == 1) {
            gen_region(stdout, name);
            skipping = 1;
            regions++;
        }
    }
    fclose(in);
    if (skipping || regions == 0) {
        fprintf(stderr, "schema-gen: %s: %s\n", path,
                skipping ? "a region has no end" : "no schema regions");
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The Python mirror                                                        */
/* ------------------------------------------------------------------------ */

static const char *py_ctype(const gen_field *f) {
    switch (f->type) {
    case SCHEMA_F32:
        return f->n == 3 ? "c_float3" : "ctypes.c_float";
    case SCHEMA_I32:
        return "ctypes.c_int32";
    case SCHEMA_U32:
        return "ctypes.c_uint32";
    case SCHEMA_BOOL:
        return "ctypes.c_bool";
    case SCHEMA_ENUM:
        return "_c_enum";
    default:
        return "throng_object";
    }
}

static const char *py_type(int type) {
    static const char *const names[] = { "f32",  "i32",  "u32",
                                         "bool", "enum", "object" };
    return names[type];
}

static void py_float(FILE *out, double v) {
    if (v == (double)SCHEMA_FLT_MAX)
        fprintf(out, "FLT_MAX");
    else if (v == -(double)SCHEMA_FLT_MAX)
        fprintf(out, "-FLT_MAX");
    else if (v == floor(v) && fabs(v) < 1e15)
        fprintf(out, "%.1f", v);
    else
        fprintf(out, "%.9g", v);
}

static void py_kinds(FILE *out, unsigned mask) {
    fprintf(out, "(");
    for (int k = 1; k < SCHEMA_KIND_LIMIT; k++)
        if (mask & (1u << k))
            fprintf(out, "\"%s\", ", kind_name(k));
    fprintf(out, ")");
}

static void py_struct(FILE *out, const gen_struct *s) {
    fprintf(out, "\n\nclass throng_%s(ctypes.Structure):\n", s->name);
    fprintf(out, "    _fields_ = [\n");
    if (s->set == SET_BEHAVIOUR)
        fprintf(out, "        (\"kind\", _c_enum),\n");
    for (size_t i = 0; i < COUNT(fields); i++)
        if (strcmp(fields[i].strct, s->name) == 0)
            fprintf(out, "        (\"%s\", %s),\n", fields[i].field,
                    py_ctype(&fields[i]));
    if (s->set == SET_BEHAVIOUR)
        fprintf(out, "        (\"u\", _throng_behaviour_u),\n");
    fprintf(out, "    ]\n");
}

static int gen_python(void) {
    FILE *out = stdout;
    fprintf(out,
            "# SPDX-License-Identifier: MIT\n"
            "# Generated by `make schema` (tools/schema_gen.c) from "
            "src/behaviour_schema.h:\n"
            "# do not edit; `make check-schema` fails when this file "
            "differs.\n"
            "\"\"\"The behaviour schema of throng, mirrored for ctypes: the "
            "enums and\n"
            "structs of flocking, wander and behaviours, field for field as "
            "in\n"
            "include/throng.h, and every field's type, range, unit, default "
            "and the\n"
            "behaviour kinds that read it (FIELDS).\"\"\"\n\n"
            "import collections\nimport ctypes\nimport enum\n\n"
            "_c_enum = ctypes.c_int  # C enums here are int-sized\n"
            "c_float3 = ctypes.c_float * 3\n"
            "FLT_MAX = 3.4028234663852886e+38\n"
            "PI = %.9g  # pi as a float, rounded up\n"
            "# The snapshot format version (THRONG_SNAPSHOT_VERSION).\n"
            "SNAPSHOT_VERSION = %u\n",
            (double)SCHEMA_PI, snapshot_version());
    for (size_t t = 0; t < COUNT(enum_types); t++) {
        fprintf(out, "\n\nclass %s(enum.IntEnum):\n", enum_types[t].python);
        fprintf(out, "    \"\"\"%s\"\"\"\n", enum_types[t].doc);
        for (size_t i = 0; i < COUNT(enums); i++)
            if (strcmp(enums[i].type, enum_types[t].name) == 0)
                fprintf(out, "    %s = %d\n", enums[i].name, enums[i].number);
    }
    fprintf(out, "\n\nclass BehaviourKind(enum.IntEnum):\n");
    for (size_t k = 0; k < COUNT(kinds); k++)
        fprintf(out, "    %s = %d\n", kinds[k].name, kinds[k].value);
    fprintf(out, "\n\nclass throng_object(ctypes.Structure):\n"
                 "    _fields_ = [(\"id\", ctypes.c_uint32), "
                 "(\"generation\", ctypes.c_uint32),\n"
                 "                (\"world\", ctypes.c_uint64)]\n");
    for (size_t s = 0; s < COUNT(structs); s++)
        if (structs[s].set != SET_BEHAVIOUR)
            py_struct(out, &structs[s]);
    fprintf(out, "\n\nclass _throng_behaviour_u(ctypes.Union):\n"
                 "    _fields_ = [\n");
    for (size_t s = 0; s < COUNT(structs); s++)
        if (structs[s].set == SET_PARAMS)
            fprintf(out, "        (\"%s\", throng_%s),\n", structs[s].member,
                    structs[s].name);
    fprintf(out, "    ]\n");
    for (size_t s = 0; s < COUNT(structs); s++)
        if (structs[s].set == SET_BEHAVIOUR)
            py_struct(out, &structs[s]);
    fprintf(out, "\n\n# The member of throng_behaviour.u each kind uses.\n"
                 "PARAMS_OF_KIND = {\n");
    for (size_t k = 0; k < COUNT(kinds); k++)
        fprintf(out, "    BehaviourKind.%s: \"%s\",\n", kinds[k].name,
                kinds[k].member);
    fprintf(out,
            "}\n\n# The enum type of each enum field.\nENUM_OF_FIELD = {\n");
    for (size_t i = 0; i < COUNT(fields); i++)
        if (fields[i].type == SCHEMA_ENUM)
            for (size_t t = 0; t < COUNT(enum_types); t++)
                if (strcmp(fields[i].ctype + strlen("throng_"),
                           enum_types[t].name) == 0)
                    fprintf(out, "    (\"throng_%s\", \"%s\"): %s,\n",
                            fields[i].strct, fields[i].field,
                            enum_types[t].python);
    fprintf(out,
            "}\n\n"
            "# One field: its struct (a ctypes class name), name, type "
            "(f32, i32, u32,\n"
            "# bool, enum, object), components, the kinds that read it (empty "
            "for\n"
            "# flocking and wander: always), the field deciding whether it is "
            "read\n"
            "# (when, when_value, when_kinds), unit, range [lo, hi] with open "
            "bounds,\n"
            "# zero_ok (0 also accepted), neighbour (hi is also the world's "
            "neighbour\n"
            "# radius), below_next (each component below the next field's), "
            "default,\n"
            "# since (the snapshot format that first holds it) and doc.\n"
            "Field = collections.namedtuple(\"Field\", [\n"
            "    \"struct\", \"name\", \"type\", \"count\", \"kinds\", "
            "\"when\", \"when_value\",\n"
            "    \"when_kinds\", \"unit\", \"lo\", \"hi\", \"lo_open\", "
            "\"hi_open\", \"zero_ok\",\n"
            "    \"neighbour\", \"below_next\", \"default\", \"since\", "
            "\"doc\"])\n\n"
            "FIELDS = (\n");
    for (size_t i = 0; i < COUNT(fields); i++) {
        const gen_field *f = &fields[i];
        fprintf(out, "    Field(\"throng_%s\", \"%s\", \"%s\", %d, ", f->strct,
                f->field, py_type(f->type), f->n);
        py_kinds(out, f->kinds);
        fprintf(out, ",\n          \"%s\", ", f->when);
        py_float(out, f->when_value);
        fprintf(out, ", ");
        py_kinds(out, f->when_kinds);
        fprintf(out, ", \"%s\", ", f->unit);
        py_float(out, f->lo);
        fprintf(out, ", ");
        py_float(out, f->hi);
        fprintf(out, ",\n          %s, %s, %s, %s, %s, ",
                (f->flags & SCHEMA_LO_OPEN) ? "True" : "False",
                (f->flags & SCHEMA_HI_OPEN) ? "True" : "False",
                (f->flags & SCHEMA_ZERO) ? "True" : "False",
                (f->flags & SCHEMA_NBR) ? "True" : "False",
                (f->flags & SCHEMA_LT_NEXT) ? "True" : "False");
        py_float(out, f->dflt);
        fprintf(out, ", %u,\n          \"", f->since);
        for (const char *p = f->doc; *p; p++)
            fputs(*p == '"' ? "\\\"" : (char[2]){ *p, 0 }, out);
        fprintf(out, "\"),\n");
    }
    fprintf(out, ")\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "header") == 0)
        return gen_header(argv[2]);
    if (argc == 2 && strcmp(argv[1], "python") == 0)
        return gen_python();
    fprintf(stderr, "usage: schema-gen header include/throng.h | python\n");
    return 2;
}
