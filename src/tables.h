/* SPDX-License-Identifier: MIT */
/*
 * The world's hash tables (uthash): host key -> slot and group name ->
 * group id. Only lookups touch them, never a step.
 */
#ifndef THRONG_TABLES_H
#define THRONG_TABLES_H

#include "internal.h"

/* uthash allocates through the world named `hash_world` in the calling
 * scope and reports a failed allocation by setting `hash_oom` there. */
#define HASH_NONFATAL_OOM 1
#define uthash_malloc(sz) world_alloc(hash_world, (sz))
#define uthash_free(ptr, sz) world_free(hash_world, (ptr), (sz))
#define uthash_nonfatal_oom(obj) (hash_oom = 1)
#include <uthash.h>

struct key_entry {
    uint64_t key;
    uint32_t slot;
    UT_hash_handle hh;
};

struct name_entry {
    char name[64];
    uint32_t group;
    UT_hash_handle hh;
};

#endif /* THRONG_TABLES_H */
