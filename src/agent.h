/* SPDX-License-Identifier: MIT */
/*
 * Agents (agent.c): rows, handles and slot links, as other modules use them.
 */
#ifndef THRONG_AGENT_H
#define THRONG_AGENT_H

#include "internal.h"

/* Brings slot_dense up to date after a step moved the rows. A step
 * permutes every column into cell order but leaves the slots' links
 * alone: one write per agent into the slot table, scattered over it (slot
 * numbers follow the order agents were added, rows follow space), which
 * at a million agents costs more than a tenth of the grid stage. Most
 * steps are followed by another step, or by reads of the columns, which
 * need no links; the first handle lookup after a step pays for them
 * (every reader of a live slot's row calls this first). It changes no
 * observable state, so const entry points may call it. */
void world_links(const throng_world *world);

/* Checks row `row` as adding an agent, the setters and every step keep
 * it: the fields throng_agent_add checks (the same code), a position
 * inside a periodic box, a finite unit heading (and in 3D an up vector
 * perpendicular to it), finite behaviour state and a target that is none
 * or another slot. Records the refusal under `fn`; the snapshot loader
 * runs it on every row it reads. */
throng_status world_check_row(throng_world *world, const char *fn,
                              uint32_t row);

/* Wraps a position into the periodic box with periodic_wrap (no-op when
 * unbounded). */
/* throng_agent_add's work inside the caller's write guard, its refusals
 * worded for `fn`: the new agent is the last row, its heading the
 * velocity's direction, its behaviour state zero. */
throng_status agent_add_row(throng_world *world, const char *fn,
                            const throng_agent_def *def,
                            throng_agent *out_agent);

/* agent_add_row's checks, nothing changed: the def's group (resolved
 * into *out_group), its fields, and its host key not held by an agent of
 * the world. */
throng_status agent_check_def(throng_world *world, const char *fn,
                              const throng_agent_def *def, uint32_t *out_group);

/* The slot the k-th next add takes (k = 0: the next one), counting the
 * free slots first (last freed first), then new ones. */
uint32_t agent_next_slot(const throng_world *world, uint32_t k);

/* Adds host key `key` for slot `slot` to the key table, or drops a key's
 * entry; agent_key_add is nonzero, the table unchanged, when out of
 * memory. */
int agent_key_add(throng_world *world, uint64_t key, uint32_t slot);
void agent_key_drop(throng_world *world, uint64_t key);

/* agent_add_row's commit, which cannot fail: the def (checked, its group
 * resolved) becomes the last row in slot agent_next_slot(world, 0). The
 * caller reserved the columns, the slot, the slot keys and the single
 * columns' room, and entered the host key (agent_key_add). */
void agent_commit_row(throng_world *world, const throng_agent_def *def,
                      uint32_t group, throng_agent *out_agent);

/* The handle of the agent in a live slot. */
throng_agent agent_handle_of(const throng_world *world, uint32_t slot);

void world_wrap_position(const throng_world *world, float p[3]);

/* A unit up vector perpendicular to the unit forward f, closest to hint. */
void basis_up(const float f[3], const float hint[3], float up[3]);

/* Removes the agent in live slot s, as throng_agent_remove does (the
 * last row moves into its place); the slot links must be up to date. */
void agent_remove_slot(throng_world *world, uint32_t s);

/* The slot of a live agent handle of this world, or -1; the
 * slot links are brought up to date first. */
int64_t agent_slot(const throng_world *world, throng_agent agent);

/* Test hooks, for driving a slot or object id through its whole range of
 * generations without four billion adds: they set the generation the
 * slot (1-based, as in handles) or object id holds, whether free or live
 * (a live one's handles then change). Nonzero, and nothing changed, when
 * the slot or id was never handed out or the generation is 0. Not part
 * of the API: the shared library does not export them. */
int world_test_set_slot_generation(throng_world *world, uint32_t slot,
                                   uint32_t generation);

/* Row i's 3D basis: the unit forward f and the up vector basis_up makes
 * of it and `hint`. */
static inline void basis_store_3d(agent_columns *c, uint32_t i,
                                  const float f[3], const float hint[3]) {
    float up[3];
    basis_up(f, hint, up);
    c->fx[i] = f[0];
    c->fy[i] = f[1];
    c->fz[i] = f[2];
    c->ux[i] = up[0];
    c->uy[i] = up[1];
    c->uz[i] = up[2];
}

#endif /* THRONG_AGENT_H */
