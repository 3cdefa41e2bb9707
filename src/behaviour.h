/* SPDX-License-Identifier: MIT */
/*
 * The behaviour list of a group: per-agent force kernels, their validation
 * and defaults, and the recipe finish that folds every term of a group
 * into one force.
 *
 * Every behaviour is a function of one agent (a row of the columns, read
 * through a steer_ctx) that writes its unweighted force F = m (v_d - v) /
 * dt and returns 1, or returns 0 when it is quiet. A behaviour may update
 * its own agent's state columns (wander angle, progress) and nothing
 * else, so the step stays free of races. The families live in:
 *   steer_agent.c  seek, flee, arrive, pursue, evade, offset pursuit,
 *                  projected-circle wander, leader following, unaligned
 *                  collision avoidance (from the walk's sums)
 *   steer_route.c  paths, flow fields, patrol, path, flow and navigation
 *                  field following
 *   steer_env.c    obstacles, walls, obstacle avoidance, containment,
 *                  wall following
 */
#ifndef THRONG_BEHAVIOUR_H
#define THRONG_BEHAVIOUR_H

#include "steer_flock.h"
#include "steer.h"

/* Which family a kind belongs to: 1 agent, 2 route, 3 env, 0 unknown.
 * Inline: the recipe finish asks once per behaviour per agent. */
static inline int behaviour_family(throng_behaviour_kind kind) {
    switch (kind) {
    case THRONG_BEHAVIOUR_SEEK:
    case THRONG_BEHAVIOUR_FLEE:
    case THRONG_BEHAVIOUR_ARRIVE:
    case THRONG_BEHAVIOUR_PURSUE:
    case THRONG_BEHAVIOUR_EVADE:
    case THRONG_BEHAVIOUR_OFFSET_PURSUIT:
    case THRONG_BEHAVIOUR_WANDER_CIRCLE:
    case THRONG_BEHAVIOUR_FOLLOW_LEADER:
    case THRONG_BEHAVIOUR_AVOID_NEIGHBOURS:
        return 1;
    case THRONG_BEHAVIOUR_PATROL:
    case THRONG_BEHAVIOUR_FOLLOW_PATH:
    case THRONG_BEHAVIOUR_FOLLOW_FLOW:
    case THRONG_BEHAVIOUR_FOLLOW_NAV:
        return 2;
    case THRONG_BEHAVIOUR_AVOID_OBSTACLES:
    case THRONG_BEHAVIOUR_CONTAIN:
    case THRONG_BEHAVIOUR_FOLLOW_WALL:
        return 3;
    }
    return 0;
}

#endif /* THRONG_BEHAVIOUR_H */
