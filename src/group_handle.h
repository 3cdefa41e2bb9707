/* SPDX-License-Identifier: MIT */
/*
 * Group handles (group_handle.c): resolving, issuing and freeing group ids.
 */
#ifndef THRONG_GROUP_HANDLE_H
#define THRONG_GROUP_HANDLE_H

#include "internal.h"

/* check_group: *out_id is the id of the
 * live group the handle names, else THRONG_ERR_STALE_HANDLE, recorded
 * (the null handle included). group_resolve: the same, but with
 * null_is_default the null handle names the default group (id 0), as an
 * agent's group does. group_handle: this world's handle of the group
 * holding `id`. group_live: the handle names a live group here. */
throng_status check_group(throng_world *world, const char *fn,
                          throng_group group, uint32_t *out_id);
throng_status group_resolve(throng_world *world, const char *fn,
                            throng_group group, int null_is_default,
                            uint32_t *out_id);
throng_group group_handle(const throng_world *world, uint32_t id);
/* THRONG_ERR_STALE_HANDLE, recorded, unless `id` holds a live group (an
 * agent row's group, as a load reads it). */
throng_status check_group_id(throng_world *world, const char *fn, uint32_t id);
int group_live(const throng_world *world, throng_group group);
/* The id the next group takes (the free stack's top, else a new one),
 * and taking it once the group is stored (generation and stack kept). */
uint32_t group_take_id(throng_world *world);
void group_use_id(throng_world *world, uint32_t id);
/* Puts a removed group's id on top of the free stack. */
void group_push_free(throng_world *world, uint32_t id);
#endif /* THRONG_GROUP_HANDLE_H */
