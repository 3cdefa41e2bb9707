/* SPDX-License-Identifier: MIT */
/*
 * Group handles: {id, generation, world}, like agents' and objects'.
 *
 * A group's id is its row in the world's group table, the value the
 * agents' group column holds (the kernels index the per-group constants
 * with it, so the column and the state hash are what they were before
 * groups had handles). A removed group's row stays in the table as a
 * hole with the default recipe and its generation bumped, on a free
 * stack threaded through the records (group_record.next_free); the next
 * group created takes the id on top of it. An id removed at its last
 * generation is retired: a hole never reused, so no handle ever names a
 * second group.
 */
#include "group_handle.h"
#include "internal.h"
#include "busy.h"
#include "core.h"
#include "handles.h"

#include <string.h>

int group_live(const throng_world *w, throng_group h) {
    return h.world == w->id && h.world != 0u && h.id < w->group_count &&
           w->groups[h.id].live && w->groups[h.id].generation == h.generation;
}

throng_group group_handle(const throng_world *w, uint32_t id) {
    throng_group h = { id, w->groups[id].generation, w->id };
    return h;
}

throng_status group_resolve(throng_world *w, const char *fn, throng_group h,
                            int null_is_default, uint32_t *out_id) {
    if (null_is_default && h.id == 0u && h.generation == 0u && h.world == 0u) {
        *out_id = 0u;
        return THRONG_OK;
    }
    if (!group_live(w, h))
        return handle_fail(w, fn, "group", h.id, h.generation, h.world,
                           "group");
    *out_id = h.id;
    return THRONG_OK;
}

uint32_t group_take_id(throng_world *w) {
    if (w->group_free_count == 0u)
        return w->group_count;
    return w->group_free_head;
}

void group_use_id(throng_world *w, uint32_t id) {
    if (id == w->group_count) {
        w->group_count++;
        w->groups[id].generation = HANDLE_FIRST_GENERATION;
    } else {
        w->group_free_head = w->groups[id].next_free;
        w->group_free_count--;
    }
    w->groups[id].live = 1;
    w->groups[id].next_free = GROUP_NO_ID;
}

void group_push_free(throng_world *w, uint32_t id) {
    w->groups[id].next_free =
        w->group_free_count ? w->group_free_head : GROUP_NO_ID;
    w->group_free_head = id;
    w->group_free_count++;
}

bool throng_group_valid(const throng_world *w, throng_group h) {
    WORLD_READ_OR(w, false);
    return w && group_live(w, h);
}

throng_status throng_world_default_group(const throng_world *cw,
                                         throng_group *out) {
    READ_ENTRY(cw, w, "throng_world_default_group", out, "out_group");
    *out = group_handle(w, 0u);
    return THRONG_OK;
}

static int group_id_live(const throng_world *w, uint32_t id,
                         uint32_t generation) {
    throng_group h = { id, generation, w->id };
    return group_live(w, h);
}

DEFINE_REBIND(throng_group_rebind, throng_group, id, "group", "group",
              origin_group_gen, 0u, origin_groups, group_id_live)

throng_status check_group(throng_world *w, const char *fn, throng_group h,
                          uint32_t *out_id) {
    return group_resolve(w, fn, h, 0, out_id);
}

throng_status check_group_id(throng_world *w, const char *fn, uint32_t id) {
    if (id < w->group_count && w->groups[id].live)
        return THRONG_OK;
    return world_fail(w, THRONG_ERR_STALE_HANDLE,
                      "%s: group id %u names no live group of this world", fn,
                      id);
}

/* An agent's group, read and set here with the other group handles. */
