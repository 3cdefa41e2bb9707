/* SPDX-License-Identifier: MIT */
/*
 * Contact resolution (contact.c): after the move, agents of groups with
 * contact_iterations > 0 are pushed out of each other.
 */
#ifndef THRONG_CONTACT_H
#define THRONG_CONTACT_H

#include "internal.h"

/* The most passes a live group asks for; 0 when no group resolves
 * contacts. */
uint32_t contact_passes(const throng_world *world);

/* Room for the lists of near pairs of every row, before a step changes
 * anything; nonzero when there is no memory. */
int contact_reserve(throng_world *world);

/* A run of `passes` passes after a move of dt seconds, before its
 * first. */
void contact_start(contact_run *run, uint32_t passes, float dt);

/* Runs the next pass of `run` (one is left) and returns how many agents
 * it moved. Positions written between passes from outside (by row,
 * while the grid stays this step's) must set run->rebuild: the lists
 * then walk anew, with the same bits. */
uint32_t contact_pass(throng_world *world, parallel_sched *sched,
                      contact_run *run);

/* Whether, after a pass of `run` that moved no agent, the passes left
 * would change nothing: no group stops resolving before the last. */
int contact_settles(const throng_world *world, const contact_run *run);

/* Runs `passes` passes over the agents moved by a tick of dt seconds,
 * with the grid of this step's build finding the candidates. Uses the
 * steering-force scratch, free once the move has read it. */
void contact_resolve(throng_world *world, parallel_sched *sched,
                     uint32_t passes, float dt);

#endif /* THRONG_CONTACT_H */
