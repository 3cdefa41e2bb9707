/* SPDX-License-Identifier: MIT */
/*
 * The words of the behaviour schema: how a range, a bound or a default is
 * written, shared by the checks' sentences (src/schema.c) and the
 * generated documentation (tools/schema_gen.c), so both say the same.
 * Header-only: the generator is a separate program.
 */
#ifndef THRONG_SCHEMA_TEXT_H
#define THRONG_SCHEMA_TEXT_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "behaviour_schema.h"

/* A number as the schema writes it: the named constants by name in the
 * documentation (doc != 0), pi and its simple multiples as such. */
static inline void schema_number(char *buf, size_t n, double v, int doc) {
    if (doc && v == (double)SCHEMA_LEN_MIN) {
        snprintf(buf, n, "THRONG_MIN_LENGTH");
    } else if (doc && v == (double)SCHEMA_LEN_MAX) {
        snprintf(buf, n, "THRONG_MAX_LENGTH");
    } else if (doc && v == SCHEMA_U32_MAX) {
        snprintf(buf, n, "UINT32_MAX");
    } else if (doc && v == SCHEMA_NEIGHBOUR_CAP) {
        snprintf(buf, n, "THRONG_MAX_NEIGHBOUR_CAP");
    } else if (v == (double)SCHEMA_PI) {
        snprintf(buf, n, "pi");
    } else if (v == (double)SCHEMA_TWO_PI) {
        snprintf(buf, n, "2 pi");
    } else {
        double k = v / (double)SCHEMA_PI * 100.0;
        if (floor(k + 0.5) != 0.0 && fabs(k - floor(k + 0.5)) < 1e-4 &&
            fabs(k) < 1e4)
            snprintf(buf, n, "%g pi", floor(k + 0.5) / 100.0);
        else
            snprintf(buf, n, "%g", v);
    }
}

/* A value of a field as a sentence or the documentation shows it: an
 * enum's value by its name (enum_name; NULL when the number has none), a
 * flag as true or false, a handle (only the null one is ever shown) as
 * "the null object", a number by schema_number when doc, else as %g. */
static inline void schema_value_text(char *buf, size_t n, int type,
                                     const char *enum_name, double v, int doc) {
    if (enum_name)
        snprintf(buf, n, "%s", enum_name);
    else if (type == SCHEMA_BOOL)
        snprintf(buf, n, "%s", v != 0.0 ? "true" : "false");
    else if (type == SCHEMA_OBJECT)
        snprintf(buf, n, "the null object");
    else if (doc)
        schema_number(buf, n, v, 1);
    else
        snprintf(buf, n, "%g", v);
}

/* The range of a field as a phrase ("0 or in [1e-09, 1e+09] metres",
 * ">= 0 seconds", "in (0, 2 pi] radians"); `hi` is the upper bound in
 * force (the world's neighbour radius with SCHEMA_NBR in a sentence).
 * Empty when every value of the type is accepted. */
static inline void schema_range_phrase(char *buf, size_t n, int type, double lo,
                                       double hi, unsigned flags,
                                       const char *unit, int doc) {
    char a[48], b[48];
    const char *sp = unit[0] ? " " : "";
    buf[0] = '\0';
    if (type == SCHEMA_I32 || type == SCHEMA_BOOL || type == SCHEMA_OBJECT)
        return;
    if (type == SCHEMA_F32 && lo == -(double)SCHEMA_FLT_MAX &&
        hi == (double)SCHEMA_FLT_MAX) {
        snprintf(buf, n, "finite%s%s", sp, unit);
        return;
    }
    if (type == SCHEMA_F32 && lo >= 0.0 && hi == (double)SCHEMA_FLT_MAX) {
        snprintf(buf, n, "%s %g%s%s, finite",
                 (flags & SCHEMA_LO_OPEN) ? ">" : ">=", lo, sp, unit);
        return;
    }
    if (type == SCHEMA_U32 && hi == SCHEMA_U32_MAX) {
        snprintf(buf, n, ">= %g%s%s", lo, sp, unit);
        return;
    }
    schema_number(a, sizeof a, lo, doc);
    if (doc && (flags & SCHEMA_NBR))
        snprintf(b, sizeof b, "the world's neighbour radius");
    else
        schema_number(b, sizeof b, hi, doc);
    snprintf(buf, n, "%s%c%s, %s%c%s%s",
             (flags & SCHEMA_ZERO) ? "0 or in " : "",
             (flags & SCHEMA_LO_OPEN) ? '(' : '[', a, b,
             (flags & SCHEMA_HI_OPEN) ? ')' : ']', sp, unit);
}

#endif /* THRONG_SCHEMA_TEXT_H */
