/* SPDX-License-Identifier: MIT */
/*
 * schema-layout: the C layout of every struct of the behaviour schema,
 * one line each, "throng_<struct> size <bytes>" and
 * "throng_<struct>.<field> <offset>", for comparison with the ctypes
 * mirror in python/throng_schema.py (python/tests/schema_layout.py).
 */
#include <stddef.h>
#include <stdio.h>

#include "throng.h"
#include "behaviour_schema.h"

#define STRUCT_SIZE(name, member, set, prefix, doc) \
    printf("throng_%s size %zu\n", #name, sizeof(throng_##name));
#define FIELD_OFFSET(st, field, type, ctype, n, kinds, when, wv, wk, unit, lo, \
                     hi, flags, dflt, since, doc)                              \
    printf("throng_%s.%s %zu\n", #st, #field, offsetof(throng_##st, field));

int main(void) {
    THRONG_SCHEMA_STRUCTS(STRUCT_SIZE)
    THRONG_SCHEMA_PARAMS(FIELD_OFFSET)
    printf("throng_behaviour.kind %zu\n", offsetof(throng_behaviour, kind));
    printf("throng_behaviour.u %zu\n", offsetof(throng_behaviour, u));
    printf("throng_group_def size %zu\n", sizeof(throng_group_def));
    printf("throng_group_def.flocking %zu\n",
           offsetof(throng_group_def, flocking));
    printf("throng_group_def.wander %zu\n", offsetof(throng_group_def, wander));
    printf("throng_group_def.combine %zu\n",
           offsetof(throng_group_def, combine));
    printf("throng_group_def.avoidance %zu\n",
           offsetof(throng_group_def, avoidance));
    printf("throng_group_def.motion %zu\n", offsetof(throng_group_def, motion));
    printf("throng_group_def.layers %zu\n", offsetof(throng_group_def, layers));
    return 0;
}
