/* SPDX-License-Identifier: MIT */
/*
 * The refusal and the rebinding of handles (handles.c), shared by agents,
 * objects and groups.
 */
#ifndef THRONG_HANDLES_H
#define THRONG_HANDLES_H

#include "internal.h"

/* Records the refusal of a handle {index, generation, world} that names
 * nothing live of `kind` ("agent", "path") here. The sentence says when
 * the handle belongs to another world; `what` is how it names the handle
 * ("handle", "target", "object"). Returns THRONG_ERR_STALE_HANDLE. */
throng_status handle_fail(throng_world *world, const char *fn, const char *what,
                          uint32_t index, uint32_t generation,
                          uint64_t handle_world, const char *kind);

/* Rebinding's test of a handle's world (throng_agent_rebind,
 * throng_group_rebind, throng_object_rebind): this world's own handles
 * pass, and those of the world it was loaded from with the generation
 * they had at the save (at_save[index - first], `saved` entries: first is
 * 1 for slots and object ids, which count from 1, and 0 for group ids);
 * anything else is refused with THRONG_ERR_STALE_HANDLE and a sentence
 * naming `what`. */
throng_status rebind_world_check(throng_world *w, const char *fn,
                                 const char *what, uint32_t index,
                                 uint32_t generation, uint64_t world,
                                 const uint32_t *at_save, uint32_t first,
                                 uint32_t saved);

/* Whether {index, generation} of this world names something live. */
typedef int (*handle_live_fn)(const throng_world *w, uint32_t index,
                              uint32_t generation);

/* The rebinding every kind of handle shares: rebind_world_check, then the
 * handle taken as this world's must name something live (`live`), else
 * handle_fail with `what` and `kind`. On THRONG_OK *world is this world's
 * id (0 stays 0: the null handle never rebinds to a live one). */
throng_status handle_rebind(throng_world *w, const char *fn, const char *what,
                            const char *kind, uint32_t index,
                            uint32_t generation, uint64_t *world,
                            const uint32_t *at_save, uint32_t first,
                            uint32_t saved, handle_live_fn live);

/* Defines throng_<kind>_rebind for a handle type whose index field is
 * `index`: READ_ENTRY (busy.h), then handle_rebind with the world's
 * generations at the save (w->at_save, w->saved entries from `first`).
 * `type` names a type, which no parentheses may enclose. */
/* NOLINTBEGIN(bugprone-macro-parentheses) */
#define DEFINE_REBIND(name, type, index, what, kind, at_save, first, saved,   \
                      live)                                                   \
    throng_status name(const throng_world *cw, type h, type *out) {           \
        static const char fn[] = #name;                                       \
        READ_ENTRY(cw, w, fn, out, "out");                                    \
        throng_status st =                                                    \
            handle_rebind(w, fn, what, kind, h.index, h.generation, &h.world, \
                          w->at_save, first, w->saved, live);                 \
        if (st == THRONG_OK)                                                  \
            *out = h;                                                         \
        return st;                                                            \
    }
/* NOLINTEND(bugprone-macro-parentheses) */

#endif /* THRONG_HANDLES_H */
