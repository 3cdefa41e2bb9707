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
#include "internal.h"
#include "busy.h"

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
    if (null_is_default && h.id == 0u && h.generation == 0u &&
        h.world == 0u) {
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
        w->groups[id].generation = 1u;
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
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!out)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_world_default_group: out_group must not be "
                          "NULL");
    *out = group_handle(w, 0u);
    return THRONG_OK;
}

throng_status throng_group_remove(throng_world *w, throng_group h) {
    static const char fn[] = "throng_group_remove";
    WORLD_WRITE(w);
    if (!w)
        return THRONG_ERR_NULL;
    uint32_t id = 0u;
    throng_status st = group_resolve(w, fn, h, 0, &id);
    if (st != THRONG_OK)
        return st;
    if (id == 0u)
        return world_fail(w, THRONG_ERR_INVALID_ARG,
                          "%s: the default group cannot be removed", fn);
    uint32_t members = 0u;
    const uint32_t *group = w->col.group;
    for (uint32_t i = 0; i < w->count; i++)
        members += group[i] == id;
    if (members)
        return world_fail(w, THRONG_ERR_INVALID_ARG,
                          "%s: %u agent%s still belong%s to group {%u, %u}; "
                          "move them to another group "
                          "(throng_agent_set_group) or remove them first",
                          fn, members, members == 1u ? "" : "s",
                          members == 1u ? "s" : "", h.id, h.generation);
    group_forget_name(w, id);
    group_record *g = &w->groups[id];
    const uint32_t gen = g->generation;
    const throng_group_def def = throng_group_def_default();
    memset(g, 0, sizeof *g);
    g->flocking = def.flocking;
    g->wander = def.wander;
    g->combine = def.combine;
    g->generation = gen;
    g->next_free = GROUP_NO_ID;
    group_derive_params(w, id);
    /* Past its last generation the id is retired: free, never reused. */
    if (gen != SLOT_LAST_GENERATION) {
        g->generation = gen + 1u;
        group_push_free(w, id);
    }
    return THRONG_OK;
}

throng_status throng_group_rebind(const throng_world *cw, throng_group h,
                                  throng_group *out) {
    static const char fn[] = "throng_group_rebind";
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!out)
        return world_fail(w, THRONG_ERR_NULL, "%s: out must not be NULL",
                          fn);
    throng_group here = h;
    if (h.world != 0u && h.world == w->origin && h.world != w->id) {
        /* The loaded world keeps the saved ids and generations, so a
         * handle live at the save names the same group here while it
         * lives; one the saving world handed out after saving may carry
         * an id and generation this world has used since, and is refused
         * (it was not live at the save). */
        const uint32_t at_save = h.id < w->origin_groups
                                     ? w->origin_group_gen[h.id]
                                     : 0u;
        if (at_save != h.generation || at_save == 0u)
            return world_fail(w, THRONG_ERR_STALE_HANDLE,
                              "%s: group {%u, %u} of the world this one was "
                              "loaded from was not live when it was saved",
                              fn, h.id, h.generation);
        here.world = w->id;
    } else if (h.world != w->id) {
        return world_fail(w, THRONG_ERR_STALE_HANDLE,
                          "%s: group {%u, %u} belongs to another world "
                          "(world id %llu), neither this one (id %llu) nor "
                          "the one it was loaded from (id %llu, 0: none)",
                          fn, h.id, h.generation,
                          (unsigned long long)h.world,
                          (unsigned long long)w->id,
                          (unsigned long long)w->origin);
    }
    if (!group_live(w, here))
        return handle_fail(w, fn, "group", h.id, h.generation, here.world,
                           "group");
    *out = here;
    return THRONG_OK;
}

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
