/* SPDX-License-Identifier: MIT */
/*
 * What every kind of handle shares: the sentences a refused handle gets
 * (which world it belongs to, or that it names nothing live) and the
 * check that a handle of the world a snapshot was saved from named
 * something live at the save, and the rebinding built on it. Agents,
 * objects and groups all use them, so the wording is one and lives below
 * every model module. The layout they share is written in internal.h.
 */
#include "handles.h"
#include "internal.h"
#include "core.h"

throng_status handle_fail(throng_world *w, const char *fn, const char *what,
                          uint32_t index, uint32_t generation,
                          uint64_t handle_world, const char *kind) {
    if (handle_world != 0u && handle_world == w->origin)
        return world_fail(w, THRONG_ERR_STALE_HANDLE,
                          "%s: %s {%u, %u} belongs to another world, the one "
                          "this world was loaded from (world id %llu): "
                          "rebind it first",
                          fn, what, index, generation,
                          (unsigned long long)handle_world);
    if (handle_world != 0u && handle_world != w->id)
        return world_fail(w, THRONG_ERR_STALE_HANDLE,
                          "%s: %s {%u, %u} belongs to another world (world "
                          "id %llu; this world's id is %llu)",
                          fn, what, index, generation,
                          (unsigned long long)handle_world,
                          (unsigned long long)w->id);
    return world_fail(w, THRONG_ERR_STALE_HANDLE,
                      "%s: %s {%u, %u} does not name a live %s of this world",
                      fn, what, index, generation, kind);
}

throng_status rebind_world_check(throng_world *w, const char *fn,
                                 const char *what, uint32_t index,
                                 uint32_t generation, uint64_t world,
                                 const uint32_t *at_save, uint32_t first,
                                 uint32_t saved) {
    if (world != 0u && world != w->id && world != w->origin)
        return world_fail(w, THRONG_ERR_STALE_HANDLE,
                          "%s: %s {%u, %u} belongs to another world (world "
                          "id %llu), neither this one (id %llu) nor the one "
                          "it was loaded from (id %llu, 0: none)",
                          fn, what, index, generation,
                          (unsigned long long)world, (unsigned long long)w->id,
                          (unsigned long long)w->origin);
    /* A loaded world holds the saved slots (object ids) and generations
     * as they were, so a handle that named something live when the
     * snapshot was saved names the same thing here, for as long as it
     * lives. One the saved world handed out after saving may carry a slot
     * and generation this world has given to another since: it was not
     * live at the save, and is refused. */
    uint32_t gen_at_save = 0u;
    if (world != 0u && world == w->origin && index >= first &&
        index - first < saved)
        gen_at_save = at_save[index - first];
    if (world != 0u && world != w->id && gen_at_save != generation)
        return world_fail(w, THRONG_ERR_STALE_HANDLE,
                          "%s: %s {%u, %u} of the world this one was loaded "
                          "from was not live when it was saved",
                          fn, what, index, generation);
    return THRONG_OK;
}

throng_status handle_rebind(throng_world *w, const char *fn, const char *what,
                            const char *kind, uint32_t index,
                            uint32_t generation, uint64_t *world,
                            const uint32_t *at_save, uint32_t first,
                            uint32_t saved, handle_live_fn live) {
    throng_status st = rebind_world_check(w, fn, what, index, generation,
                                          *world, at_save, first, saved);
    if (st != THRONG_OK)
        return st;
    const uint64_t here = *world != 0u ? w->id : 0u;
    if (here == 0u || !live(w, index, generation))
        return handle_fail(w, fn, what, index, generation, here, kind);
    *world = here;
    return THRONG_OK;
}
