/* SPDX-License-Identifier: MIT */
/*
 * The behaviour schema: every parameter of a group's steering recipe in
 * one table. Plain data (X-macros), no calls; it includes only <float.h>
 * (for FLT_MAX) and may be included anywhere, the public header's
 * generator included.
 *
 * From this table come the defaults (throng_behaviour_default,
 * throng_flocking_default, the group's wander default), the argument
 * checks of the group functions, snapshot reading and writing of
 * behaviours, flocking and wander, the generated parts of
 * include/throng.h (the parameter structs and their documentation) and
 * python/throng_schema.py (`make schema` writes both; `make
 * check-schema` fails when the checked-in copies differ), the bad-input
 * tests and the fuzz and soak recipes.
 *
 * Adding a parameter: add its row below with a `since` of the next
 * snapshot format version (THRONG_SNAPSHOT_VERSION + 1), read it in its
 * kernel, run `make schema`. The header's THRONG_SNAPSHOT_VERSION is
 * generated: the highest `since` of the table, or
 * THRONG_SCHEMA_SNAPSHOT_BASE when that is higher.
 *
 * The tables:
 *
 * THRONG_SCHEMA_ENUM_TYPES(T): T(name, PREFIX, PythonName, doc)
 *   an enum type throng_<name> whose values are THRONG_<PREFIX>_<VALUE>.
 * THRONG_SCHEMA_ENUMS(E): E(name, VALUE, number, doc)
 *   the values of those enums, in order.
 * THRONG_SCHEMA_KINDS(K): K(KIND, number, member)
 *   every behaviour kind (throng_behaviour_kind, THRONG_BEHAVIOUR_<KIND>,
 *   written by hand in throng.h with its formulas; the library checks the
 *   numbers agree) and the member of throng_behaviour.u it reads.
 * THRONG_SCHEMA_STRUCTS(S): S(name, member, set, prefix, doc)
 *   the parameter structs throng_<name>, in the order the header defines
 *   them; set is FLOCKING (throng_flocking), WANDER (throng_wander),
 *   PARAMS (member is its name in the union throng_behaviour.u) or
 *   BEHAVIOUR (the common fields of throng_behaviour); members of the
 *   others start with an underscore; prefix makes the fields' qualified
 *   names in sentences ("seek." makes "seek.point").
 * THRONG_SCHEMA_PARAMS(P): P(struct, field, type, ctype, n, kinds, when,
 *   when_value, when_kinds, unit, lo, hi, flags, dflt, since, doc)
 *   one field, in its struct's order:
 *   type     SCHEMA_F32, _I32, _U32, _BOOL, _ENUM or _OBJECT (a handle);
 *   ctype    its C type; n its count (1, or 3 for a vector);
 *   kinds    the behaviour kinds that read it (SCHEMA_KIND bits; 0 for
 *            the group's structs, whose every field is read);
 *   when     "" or the qualified name of a field that decides whether it
 *            is read: by the kinds in when_kinds only while that field
 *            equals when_value (seek.point only with source FIXED_POINT);
 *            a field a kind does not read must keep its default;
 *   unit     the unit in words ("metres"), or for a handle the object
 *            kind it names ("path");
 *   lo, hi   its range; flags SCHEMA_LO_OPEN, SCHEMA_HI_OPEN (bounds not
 *            included), SCHEMA_ZERO (0 is also accepted), SCHEMA_NBR (hi
 *            is also the world's neighbour radius), SCHEMA_LT_NEXT (each
 *            component below the next field's);
 *   dflt     the default (every component of a vector);
 *   since    the snapshot format version that first saved it (older
 *            snapshots load the default);
 *   doc      what it is, one sentence for the header.
 */
#ifndef THRONG_BEHAVIOUR_SCHEMA_H
#define THRONG_BEHAVIOUR_SCHEMA_H

#include <float.h>

/* Field types. */
#define SCHEMA_F32 0
#define SCHEMA_I32 1
#define SCHEMA_U32 2
#define SCHEMA_BOOL 3
#define SCHEMA_ENUM 4
#define SCHEMA_OBJECT 5

/* Range flags. */
#define SCHEMA_LO_OPEN 1u
#define SCHEMA_HI_OPEN 2u
#define SCHEMA_ZERO 4u
#define SCHEMA_NBR 8u
#define SCHEMA_LT_NEXT 16u

/* The constants the table's ranges use (float values of pi and 2 pi,
 * rounded up, so that pi itself is in [0, pi]). */
#define SCHEMA_PI 3.14159274f

/* The snapshot format version at which the snapshot's own sections (not
 * the schema's parameters) last changed: 6, navigation fields and the
 * slots' navigation state. A format change outside the table raises it;
 * THRONG_SNAPSHOT_VERSION is this or the table's highest `since`,
 * whichever is higher. */
#define THRONG_SCHEMA_SNAPSHOT_BASE 6u
#define SCHEMA_TWO_PI 6.28318548f
#define SCHEMA_FLT_MAX FLT_MAX
#define SCHEMA_LEN_MIN 1e-9f /* THRONG_MIN_LENGTH */
#define SCHEMA_LEN_MAX 1e9f  /* THRONG_MAX_LENGTH */
/* The shortest time horizon: its inverse stays far from overflow. */
#define SCHEMA_TIME_MIN 1e-6f
#define SCHEMA_I32_MIN (-2147483647.0 - 1.0)
#define SCHEMA_I32_MAX 2147483647.0
#define SCHEMA_U32_MAX 4294967295.0
#define SCHEMA_NEIGHBOUR_CAP 1024.0 /* THRONG_MAX_NEIGHBOUR_CAP */
#define SCHEMA_LAYER_MAX 31.0       /* layers are the bits of a 32-bit mask */
/* The most contact passes a group asks for: each costs about one
 * neighbour walk of the agents that resolve contacts. */
#define SCHEMA_CONTACT_MAX 32.0

/* The bit of a behaviour kind in a `kinds` mask (SCHEMA_KIND_<KIND> is
 * the kind's number: an enum made from THRONG_SCHEMA_KINDS below). Kinds
 * are numbered 1 .. SCHEMA_KIND_LIMIT - 1, bits of a 32-bit mask. */
#define SCHEMA_KIND(k) (1u << SCHEMA_KIND_##k)
#define SCHEMA_KIND_LIMIT 32
#define SCHEMA_ALL_KINDS 0x1fffeu /* kinds 1 .. 16 */

/* clang-format off */

#define THRONG_SCHEMA_ENUM_TYPES(T)                                          \
    T(separation_mode, SEPARATION, SeparationMode,                           \
      "How separation turns its neighbours into a desired velocity.")       \
    T(target_source, TARGET, TargetSource,                                   \
      "Where seek, flee and arrive take their target from.")                \
    T(arrive_ramp, ARRIVE, ArriveRamp,                                       \
      "Arrive's speed inside the braking distance, x = d / D in [0, 1].")   \
    T(avoidance_mode, AVOIDANCE, AvoidanceMode,                              \
      "How a group's preferred velocity becomes its new velocity.")

#define THRONG_SCHEMA_ENUMS(E)                                               \
    E(separation_mode, FLEE_AVERAGE, 0,                                      \
      "Seed 000: flee the average position of the neighbours at the target " \
      "speed; with no neighbour, brake: F = -m v / dt.")                     \
    E(separation_mode, INVERSE_DISTANCE, 1,                                  \
      "Seeds 001 and 004: desired direction is the average of (p - p_j) / "  \
      "|p - p_j|^2 over neighbours at a non-zero distance (closer than "     \
      "1e-6 m counts as 1e-6 m), scaled to the target speed; no force when " \
      "there is no such neighbour.")                                         \
    E(target_source, AGENT_POINT, 0, "The agent's own target point.")        \
    E(target_source, FIXED_POINT, 1, "The behaviour's point.")               \
    E(arrive_ramp, SMOOTH, 0,                                                \
      "Seed 000: f(x) = s_t x (3 - x) / 2, smooth, f(0) = 0, f(1) = s_t, "   \
      "never above s_t sqrt(x), the fastest speed from which the agent can " \
      "still stop at its max acceleration when D = v_max^2 / (2 a_max).")    \
    E(arrive_ramp, LINEAR, 1, "Seeds 001-004: f(x) = s_t x.")               \
    E(avoidance_mode, NONE, 0,                                               \
      "The preferred velocity is the new velocity (the vehicle model of "    \
      "seed 000).")                                                          \
    E(avoidance_mode, ORCA, 1,                                               \
      "Optimal reciprocal collision avoidance (van den Berg et al. 2011): "  \
      "each neighbour within the range, the nearest first, forbids the "     \
      "velocities that would bring the two within the sum of their radii "   \
      "inside the time horizon (a half-plane, a half-space in 3D, of which " \
      "the agent takes its responsibility's share); the new velocity is "    \
      "the one nearest the preferred velocity within max speed that every "  \
      "constraint allows, or, when none does, the one that violates the "    \
      "worst constraint least.")

#define THRONG_SCHEMA_KINDS(K)                                               \
    K(SEEK, 1, seek) K(FLEE, 2, seek) K(ARRIVE, 3, seek)                     \
    K(PURSUE, 4, pursue) K(EVADE, 5, pursue) K(OFFSET_PURSUIT, 6, pursue)    \
    K(WANDER_CIRCLE, 7, wander)                                              \
    K(PATROL, 8, path) K(FOLLOW_PATH, 9, path)                               \
    K(FOLLOW_FLOW, 10, flow)                                                 \
    K(AVOID_OBSTACLES, 11, avoid)                                            \
    K(CONTAIN, 12, contain) K(FOLLOW_WALL, 13, contain)                      \
    K(FOLLOW_LEADER, 14, leader)                                             \
    K(AVOID_NEIGHBOURS, 15, unaligned)                                       \
    K(FOLLOW_NAV, 16, nav)

#define THRONG_SCHEMA_STRUCTS(S)                                             \
    S(flocking, _flocking, FLOCKING, "flocking.", "")                        \
    S(wander, _wander, WANDER, "wander.", "")                                \
    S(avoidance, _avoidance, AVOIDANCE, "avoidance.", "")                    \
    S(motion, _motion, MOTION, "motion.", "")                                \
    S(layers, _layers, LAYERS, "layers.", "")                                \
    S(seek_params, seek, PARAMS, "seek.", "Seek, flee, arrive.")             \
    S(pursue_params, pursue, PARAMS, "pursue.",                              \
      "Pursue, evade, offset pursuit. The target is the agent's target "     \
      "agent.")                                                              \
    S(wander_circle_params, wander, PARAMS, "wander.",                       \
      "Projected-circle wander.")                                            \
    S(path_params, path, PARAMS, "path.", "Patrol and path following.")      \
    S(flow_params, flow, PARAMS, "flow.", "Flow field following.")           \
    S(avoid_params, avoid, PARAMS, "avoid.", "Obstacle avoidance.")          \
    S(contain_params, contain, PARAMS, "contain.",                           \
      "Containment and wall following.")                                     \
    S(leader_params, leader, PARAMS, "leader.", "Leader following.")         \
    S(unaligned_params, unaligned, PARAMS, "unaligned.",                     \
      "Unaligned collision avoidance.")                                      \
    S(nav_params, nav, PARAMS, "nav.", "Navigation field following.")        \
    S(behaviour, _common, BEHAVIOUR, "", "")

#define SCHEMA_KIND_NUMBER(k, number, member) SCHEMA_KIND_##k = (number),
enum schema_kind_number { THRONG_SCHEMA_KINDS(SCHEMA_KIND_NUMBER) };
#undef SCHEMA_KIND_NUMBER

#define SCHEMA_SEEKS (SCHEMA_KIND(SEEK) | SCHEMA_KIND(FLEE) | SCHEMA_KIND(ARRIVE))
#define SCHEMA_PURSUES (SCHEMA_KIND(PURSUE) | SCHEMA_KIND(EVADE) |            \
                        SCHEMA_KIND(OFFSET_PURSUIT))

#define THRONG_SCHEMA_PARAMS(P)                                              \
    /* The group's flocking rules (throng_flocking). */                      \
    P(flocking, separation_radius, SCHEMA_F32, float, 1, 0, "", 0, 0,        \
      "metres", SCHEMA_LEN_MIN, SCHEMA_LEN_MAX, SCHEMA_NBR, 0.5f, 1,         \
      "Separation's neighbour radius.")                                      \
    P(flocking, separation_weight, SCHEMA_F32, float, 1, 0, "", 0, 0, "",    \
      0.0f, SCHEMA_FLT_MAX, 0, 0.0f, 1, "Separation's weight.")              \
    P(flocking, alignment_radius, SCHEMA_F32, float, 1, 0, "", 0, 0,         \
      "metres", SCHEMA_LEN_MIN, SCHEMA_LEN_MAX, SCHEMA_NBR, 1.0f, 1,         \
      "Alignment's neighbour radius.")                                       \
    P(flocking, alignment_weight, SCHEMA_F32, float, 1, 0, "", 0, 0, "",     \
      0.0f, SCHEMA_FLT_MAX, 0, 0.0f, 1, "Alignment's weight.")               \
    P(flocking, cohesion_radius, SCHEMA_F32, float, 1, 0, "", 0, 0,          \
      "metres", SCHEMA_LEN_MIN, SCHEMA_LEN_MAX, SCHEMA_NBR, 1.0f, 1,         \
      "Cohesion's neighbour radius.")                                        \
    P(flocking, cohesion_weight, SCHEMA_F32, float, 1, 0, "", 0, 0, "",      \
      0.0f, SCHEMA_FLT_MAX, 0, 0.0f, 1, "Cohesion's weight.")                \
    P(flocking, field_of_view, SCHEMA_F32, float, 1, 0, "", 0, 0, "radians", \
      0.0f, SCHEMA_TWO_PI, SCHEMA_LO_OPEN, SCHEMA_TWO_PI, 1,                 \
      "The full angle of the cone around the heading the rules see "         \
      "(2 pi: all around).")                                                 \
    P(flocking, speed_factor, SCHEMA_F32, float, 1, 0, "", 0, 0, "", 0.0f,   \
      1.0f, 0, 1.0f, 1, "The rules' target speed / max speed.")              \
    P(flocking, separation_mode, SCHEMA_ENUM, throng_separation_mode, 1, 0,  \
      "", 0, 0, "", 0, 1, 0, 0, 1, "How separation steers.")                 \
    P(flocking, separation_priority, SCHEMA_I32, int32_t, 1, 0, "", 0, 0,    \
      "", SCHEMA_I32_MIN, SCHEMA_I32_MAX, 0, 0, 1,                           \
      "Separation's place in THRONG_COMBINE_PRIORITY, higher first.")        \
    P(flocking, alignment_priority, SCHEMA_I32, int32_t, 1, 0, "", 0, 0, "", \
      SCHEMA_I32_MIN, SCHEMA_I32_MAX, 0, 0, 1,                               \
      "Alignment's place in THRONG_COMBINE_PRIORITY.")                       \
    P(flocking, cohesion_priority, SCHEMA_I32, int32_t, 1, 0, "", 0, 0, "",  \
      SCHEMA_I32_MIN, SCHEMA_I32_MAX, 0, 0, 1,                               \
      "Cohesion's place in THRONG_COMBINE_PRIORITY.")                        \
    P(flocking, max_neighbours, SCHEMA_U32, uint32_t, 1, 0, "", 0, 0, "",    \
      0, SCHEMA_NEIGHBOUR_CAP, 0, 0, 2,                                      \
      "The most neighbours the rules consider, 0 for all. With a cap the K " \
      "nearest within the neighbour radius are chosen (ties by the lower "   \
      "agent slot), before the field of view and the rules' radii are "      \
      "applied, so a dense knot costs at most K rule evaluations per "       \
      "agent; in a crowded cell they are found through a finer grid "        \
      "searched in rings of growing distance, so choosing them reads the "   \
      "candidates near the agent rather than every one in range.")           \
    /* The group's turn-rate wander (throng_wander). */                      \
    P(wander, weight, SCHEMA_F32, float, 1, 0, "", 0, 0, "", 0.0f,           \
      SCHEMA_FLT_MAX, 0, 0.0f, 1, "Wander's weight, 0 for off.")             \
    P(wander, max_turn_rate, SCHEMA_F32, float, 1, 0, "", 0, 0,              \
      "radians per step", 0.0f, SCHEMA_PI, 0, 0.1f * SCHEMA_PI, 1,           \
      "theta, the largest turn rate.")                                       \
    P(wander, max_turn_change, SCHEMA_F32, float, 1, 0, "", 0, 0,            \
      "radians per step", 0.0f, SCHEMA_PI, 0, 0.01f * SCHEMA_PI, 1,          \
      "phi, the largest change of the turn rate in one step.")               \
    P(wander, speed_factor, SCHEMA_F32, float, 1, 0, "", 0, 0, "", 0.0f,     \
      1.0f, 0, 1.0f, 1, "Wander's target speed / max speed.")                \
    P(wander, priority, SCHEMA_I32, int32_t, 1, 0, "", 0, 0, "",             \
      SCHEMA_I32_MIN, SCHEMA_I32_MAX, 0, 0, 1,                               \
      "Wander's place in THRONG_COMBINE_PRIORITY.")                          \
    /* The group's velocity stage (throng_avoidance). */                     \
    P(avoidance, mode, SCHEMA_ENUM, throng_avoidance_mode, 1, 0, "", 0, 0,   \
      "", 0, 1, 0, 0, 5,                                                     \
      "How the preferred velocity becomes the new velocity.")                \
    P(avoidance, range, SCHEMA_F32, float, 1, 0, "", 0, 0, "metres",         \
      SCHEMA_LEN_MIN, SCHEMA_LEN_MAX, SCHEMA_NBR | SCHEMA_ZERO, 0.0f, 5,     \
      "Neighbours (of any group) within this distance constrain the "        \
      "velocity; 0: the world's neighbour radius.")                          \
    P(avoidance, max_neighbours, SCHEMA_U32, uint32_t, 1, 0, "", 0, 0, "",   \
      1, SCHEMA_NEIGHBOUR_CAP, 0, 10, 5,                                     \
      "The most neighbours that constrain it: the nearest within the "       \
      "range, ties by the lower agent slot, nearest first.")                 \
    P(avoidance, time_horizon, SCHEMA_F32, float, 1, 0, "", 0, 0, "seconds", \
      SCHEMA_TIME_MIN, SCHEMA_FLT_MAX, 0, 2.0f, 5,                           \
      "tau: velocities that collide with a neighbour moving as it does "     \
      "within this time are forbidden; longer is safer and less nimble.")   \
    P(avoidance, obstacle_time_horizon, SCHEMA_F32, float, 1, 0, "", 0, 0,   \
      "seconds", SCHEMA_TIME_MIN, SCHEMA_FLT_MAX, 0, 2.0f, 5,                \
      "The same for static obstacles and walls (the nearest 8 within "       \
      "reach), whose constraints are never relaxed.")                        \
    P(avoidance, responsibility, SCHEMA_F32, float, 1, 0, "", 0, 0, "",      \
      0.0f, 1.0f, 0, 0.5f, 5,                                                \
      "The agent's share of each avoidance: 0.5 reciprocal (both sides "     \
      "move half the way), 1 yields fully, 0 never yields (a player "        \
      "character).")                                                         \
    P(avoidance, keep_right, SCHEMA_F32, float, 1, 0, "", 0, 0, "radians",   \
      0.0f, 0.5f * SCHEMA_PI, 0, 0.5f, 5,                                    \
      "Where the preferred velocity is forbidden, it is first turned this "  \
      "much to the right (clockwise about +z; in 3D about the z axis): the " \
      "pedestrians' convention that breaks the symmetric deadlocks of "      \
      "ORCA, where agents meeting head-on or in a ring only slow down.")     \
    P(avoidance, contact_iterations, SCHEMA_U32, uint32_t, 1, 0, "", 0, 0,   \
      "", 0, SCHEMA_CONTACT_MAX, 0, 0, 5,                                    \
      "Contact resolution after the move, 0 for none: this many passes, "    \
      "each moving every agent out of the overlaps it had before the pass "  \
      "(by half of each, or all of one with an agent that does not "        \
      "resolve contacts), among the agents within the neighbour radius, "   \
      "and then out of any obstacle or wall it overlaps (all of it, along "  \
      "the surface's normal). Only the first pass walks the neighbour "     \
      "cells; later ones read each agent's list of near agents from it, so " \
      "a pass after the first costs a small part of the first, and the "     \
      "passes stop early once one moves nobody (the result is the same as " \
      "running them all). Packed crowds want many: 32 keep every pair of a " \
      "dense crossing within 0.3% of the sum of radii.")                     \
    P(avoidance, contact_velocity, SCHEMA_BOOL, bool, 1, 0, "", 0, 0, "", 0, \
      1, 0, 0, 7,                                                            \
      "Whether contact resolution's pushes count in the velocity: each "     \
      "pass adds the agent's displacement over the tick's dt to it (cut to " \
      "max speed), so the velocity is the one the agent moved at, as in "    \
      "position-based dynamics; ORCA's next tick then sees pushed-apart "    \
      "neighbours separating rather than still closing, which keeps a "      \
      "packed crowd out of each other at one tick a step. Off, the pushes "  \
      "move positions only.")                                                \
    P(avoidance, nudge, SCHEMA_F32, float, 1, 0, "", 0, 0, "x max speed",    \
      0.0f, 0.5f, 0, 1e-4f, 8,                                               \
      "Where the preferred velocity is forbidden, it is also moved by a "    \
      "random amount of up to this fraction of max speed along each axis "   \
      "before the keep-right turn (drawn from the world's counter-based "    \
      "generator by seed, agent and step, so the same on any thread "        \
      "count): it breaks the symmetries the turn leaves, such as a head-on " \
      "meeting along the z axis or two agents circling each other near "     \
      "their goals, which a larger nudge breaks sooner (a ring of agents "   \
      "crossing at one tick a step wants about 0.05).")                      \
    /* The group's vehicle limits (throng_motion). */                        \
    P(motion, max_turn_rate, SCHEMA_F32, float, 1, 0, "", 0, 0,              \
      "radians per second", 0.0f, SCHEMA_FLT_MAX, 0, 0.0f, 5,               \
      "The fastest the heading turns, 0 for no limit: the new velocity is "  \
      "turned back toward the heading until the two are at most "            \
      "max_turn_rate dt apart (in 3D within the plane of the two).")        \
    P(motion, min_speed, SCHEMA_F32, float, 1, 0, "", 0, 0,                  \
      "metres per second", 0.0f, SCHEMA_FLT_MAX, 0, 0.0f, 5,                \
      "The slowest the agent moves (at most its max speed), for vehicles "   \
      "that cannot stop: a slower velocity is lengthened to it (along the "  \
      "heading when it is zero).")                                           \
    /* The group's interaction layers (throng_layers). */                    \
    P(layers, layer, SCHEMA_U32, uint32_t, 1, 0, "", 0, 0, "", 0,            \
      SCHEMA_LAYER_MAX, 0, 0, 5,                                             \
      "The layer the group's agents are in, 0 to 31: other agents see "      \
      "them when their mask holds bit 1 << layer.")                          \
    P(layers, mask, SCHEMA_U32, uint32_t, 1, 0, "", 0, 0, "", 0,             \
      SCHEMA_U32_MAX, 0, SCHEMA_U32_MAX, 5,                                  \
      "The layers the group's agents react to, one bit each: separation, "   \
      "alignment, cohesion, unaligned collision avoidance, ORCA and "        \
      "contact resolution see a neighbour only when its layer's bit is "     \
      "set (all ones, the default: every agent). A neighbour that does not " \
      "see the agent back leaves it the whole of each avoidance and "        \
      "contact.")                                                            \
    /* Seek, flee, arrive. */                                                \
    P(seek_params, source, SCHEMA_ENUM, throng_target_source, 1,             \
      SCHEMA_SEEKS, "", 0, 0, "", 0, 1, 0, 0, 1, "Where the target is.")     \
    P(seek_params, point, SCHEMA_F32, float, 3, SCHEMA_SEEKS, "seek.source", \
      1, SCHEMA_SEEKS, "metres", -SCHEMA_FLT_MAX, SCHEMA_FLT_MAX, 0, 0.0f,   \
      1, "The target with source FIXED_POINT.")                              \
    P(seek_params, flee_range, SCHEMA_F32, float, 1, SCHEMA_KIND(FLEE), "",  \
      0, 0, "metres", SCHEMA_LEN_MIN, SCHEMA_LEN_MAX, SCHEMA_ZERO, 0.0f, 1,  \
      "Flee only within this distance of the target; 0: always.")           \
    P(seek_params, braking_distance, SCHEMA_F32, float, 1,                   \
      SCHEMA_KIND(ARRIVE), "", 0, 0, "metres", SCHEMA_LEN_MIN,               \
      SCHEMA_LEN_MAX, SCHEMA_ZERO, 0.0f, 1,                                  \
      "D, where arrive starts to brake; 0: seed 004's stopping distance "    \
      "v_max^2 / (2 a_max), a_max = max_force / mass, plus one step of "     \
      "travel v_max dt, the margin a step-wise agent needs.")                \
    P(seek_params, ramp, SCHEMA_ENUM, throng_arrive_ramp, 1,                 \
      SCHEMA_KIND(ARRIVE), "", 0, 0, "", 0, 1, 0, 0, 1,                      \
      "Arrive's speed inside D.")                                            \
    /* Pursue, evade, offset pursuit. */                                     \
    P(pursue_params, prediction_time, SCHEMA_F32, float, 1, SCHEMA_PURSUES,  \
      "", 0, 0, "seconds", 0.0f, SCHEMA_FLT_MAX, 0, 0.0f, 1,                 \
      "T, how far ahead the target's position is predicted; 0: T = "         \
      "distance / max speed (seed 004), capped at max_prediction.")          \
    P(pursue_params, max_prediction, SCHEMA_F32, float, 1, SCHEMA_PURSUES,   \
      "pursue.prediction_time", 0, SCHEMA_PURSUES, "seconds", 0.0f,          \
      SCHEMA_FLT_MAX, 0, 0.0f, 1,                                            \
      "The cap on an automatic T; 0: no cap.")                               \
    P(pursue_params, offset, SCHEMA_F32, float, 3,                           \
      SCHEMA_KIND(OFFSET_PURSUIT), "", 0, 0, "metres", -SCHEMA_FLT_MAX,      \
      SCHEMA_FLT_MAX, 0, 0.0f, 1,                                            \
      "The point to arrive at along the target's forward, side and up "      \
      "vectors (throng_agent_get_basis; in 2D side is the heading turned "   \
      "90 degrees clockwise and up is ignored).")                            \
    P(pursue_params, braking_distance, SCHEMA_F32, float, 1,                 \
      SCHEMA_KIND(OFFSET_PURSUIT), "", 0, 0, "metres", SCHEMA_LEN_MIN,       \
      SCHEMA_LEN_MAX, SCHEMA_ZERO, 0.0f, 1,                                  \
      "Offset pursuit's arrive D; 0: as seek.braking_distance's.")           \
    P(pursue_params, evade_range, SCHEMA_F32, float, 1, SCHEMA_KIND(EVADE),  \
      "", 0, 0, "metres", SCHEMA_LEN_MIN, SCHEMA_LEN_MAX, SCHEMA_ZERO, 0.0f, \
      1, "Evade only within this distance of the target; 0: always.")       \
    /* Projected-circle wander. */                                           \
    P(wander_circle_params, distance, SCHEMA_F32, float, 1,                  \
      SCHEMA_KIND(WANDER_CIRCLE), "", 0, 0, "metres", SCHEMA_LEN_MIN,        \
      SCHEMA_LEN_MAX, SCHEMA_ZERO, 2.0f, 1,                                  \
      "How far ahead the circle is projected.")                              \
    P(wander_circle_params, radius, SCHEMA_F32, float, 1,                    \
      SCHEMA_KIND(WANDER_CIRCLE), "", 0, 0, "metres", SCHEMA_LEN_MIN,        \
      SCHEMA_LEN_MAX, 0, 1.0f, 1, "The circle's radius.")                    \
    P(wander_circle_params, jitter, SCHEMA_F32, float, 1,                    \
      SCHEMA_KIND(WANDER_CIRCLE), "", 0, 0, "", 0.0f, SCHEMA_PI, 0, 0.3f, 1, \
      "The point's random step: radians per step (2D), a fraction of the "   \
      "radius (3D).")                                                        \
    /* Patrol and path following. */                                        \
    P(path_params, path, SCHEMA_OBJECT, throng_object, 1,                    \
      SCHEMA_KIND(PATROL) | SCHEMA_KIND(FOLLOW_PATH), "", 0, 0, "path", 0,   \
      0, 0, 0, 1, "The path (a live path object).")                          \
    P(path_params, prediction_time, SCHEMA_F32, float, 1,                    \
      SCHEMA_KIND(FOLLOW_PATH), "", 0, 0, "seconds", 0.0f, SCHEMA_FLT_MAX,   \
      0, 0.5f, 1, "T in the predicted position q = p + v T.")                \
    P(path_params, ahead, SCHEMA_F32, float, 1, SCHEMA_KIND(FOLLOW_PATH),    \
      "", 0, 0, "metres", SCHEMA_LEN_MIN, SCHEMA_LEN_MAX, SCHEMA_ZERO, 1.0f, \
      1, "How far along the path beyond q's nearest point to seek.")        \
    P(path_params, window, SCHEMA_U32, uint32_t, 1,                          \
      SCHEMA_KIND(FOLLOW_PATH), "", 0, 0, "segments", 1, SCHEMA_U32_MAX, 0,  \
      4, 1, "How many segments from the agent's progress are searched.")     \
    P(path_params, loop, SCHEMA_BOOL, bool, 1, SCHEMA_KIND(PATROL), "", 0,   \
      0, "", 0, 1, 0, 1, 1,                                                  \
      "Start again after the last point (following wraps on closed paths "   \
      "always).")                                                            \
    P(path_params, reach, SCHEMA_F32, float, 1, SCHEMA_KIND(PATROL), "", 0,  \
      0, "metres", SCHEMA_LEN_MIN, SCHEMA_LEN_MAX, 0, 0.5f, 1,               \
      "How near a checkpoint counts as reached.")                            \
    P(path_params, braking_distance, SCHEMA_F32, float, 1,                   \
      SCHEMA_KIND(PATROL), "", 0, 0, "metres", SCHEMA_LEN_MIN,               \
      SCHEMA_LEN_MAX, SCHEMA_ZERO, 0.0f, 1,                                  \
      "Patrol's arrive D; 0: as seek.braking_distance's.")                   \
    /* Flow field following. */                                              \
    P(flow_params, field, SCHEMA_OBJECT, throng_object, 1,                   \
      SCHEMA_KIND(FOLLOW_FLOW), "", 0, 0, "flow field", 0, 0, 0, 0, 1,       \
      "The field (a live flow field object).")                               \
    P(flow_params, prediction_time, SCHEMA_F32, float, 1,                    \
      SCHEMA_KIND(FOLLOW_FLOW), "", 0, 0, "seconds", 0.0f, SCHEMA_FLT_MAX,   \
      0, 0.0f, 1, "T: the field is sampled at p + v T.")                     \
    P(flow_params, raw, SCHEMA_BOOL, bool, 1, SCHEMA_KIND(FOLLOW_FLOW), "",  \
      0, 0, "", 0, 1, 0, 0, 1,                                               \
      "v_d = the sample as is (speed_factor unused), not scaled to s_t.")    \
    /* Obstacle avoidance. */                                                \
    P(avoid_params, min_length, SCHEMA_F32, float, 1,                        \
      SCHEMA_KIND(AVOID_OBSTACLES), "", 0, 0, "metres", SCHEMA_LEN_MIN,      \
      SCHEMA_LEN_MAX, 0, 2.0f, 1, "The corridor's length at rest.")          \
    P(avoid_params, lookahead_time, SCHEMA_F32, float, 1,                    \
      SCHEMA_KIND(AVOID_OBSTACLES), "", 0, 0, "seconds", 0.0f,               \
      SCHEMA_FLT_MAX, 0, 1.0f, 1,                                            \
      "The corridor grows by speed * lookahead_time.")                       \
    /* Containment and wall following. */                                    \
    P(contain_params, use_box, SCHEMA_BOOL, bool, 1, SCHEMA_KIND(CONTAIN),   \
      "", 0, 0, "", 0, 1, 0, 0, 1, "Contain in the box below.")              \
    P(contain_params, box_min, SCHEMA_F32, float, 3, SCHEMA_KIND(CONTAIN),   \
      "contain.use_box", 1, SCHEMA_KIND(CONTAIN), "metres", -SCHEMA_FLT_MAX, \
      SCHEMA_FLT_MAX, SCHEMA_LT_NEXT, 0.0f, 1,                               \
      "The box's low corner, below box_max on every axis.")                  \
    P(contain_params, box_max, SCHEMA_F32, float, 3, SCHEMA_KIND(CONTAIN),   \
      "contain.use_box", 1, SCHEMA_KIND(CONTAIN), "metres", -SCHEMA_FLT_MAX, \
      SCHEMA_FLT_MAX, 0, 0.0f, 1, "The box's high corner.")                  \
    P(contain_params, use_walls, SCHEMA_BOOL, bool, 1, SCHEMA_KIND(CONTAIN), \
      "", 0, 0, "", 0, 1, 0, 1, 1, "Contain by the wall objects too.")       \
    P(contain_params, range, SCHEMA_F32, float, 1,                           \
      SCHEMA_KIND(CONTAIN) | SCHEMA_KIND(FOLLOW_WALL), "", 0, 0, "metres",   \
      SCHEMA_LEN_MIN, SCHEMA_LEN_MAX, 0, 2.0f, 1,                            \
      "Contain's reaction range; follow wall's detection range.")            \
    P(contain_params, distance, SCHEMA_F32, float, 1,                        \
      SCHEMA_KIND(FOLLOW_WALL), "", 0, 0, "metres", SCHEMA_LEN_MIN,          \
      SCHEMA_LEN_MAX, SCHEMA_ZERO, 1.0f, 1, "How far off the wall to keep.") \
    P(contain_params, ahead, SCHEMA_F32, float, 1, SCHEMA_KIND(FOLLOW_WALL), \
      "", 0, 0, "metres", SCHEMA_LEN_MIN, SCHEMA_LEN_MAX, SCHEMA_ZERO, 2.0f, \
      1, "How far along the wall the sought point lies.")                   \
    /* Leader following. */                                                  \
    P(leader_params, behind, SCHEMA_F32, float, 1,                           \
      SCHEMA_KIND(FOLLOW_LEADER), "", 0, 0, "metres", SCHEMA_LEN_MIN,        \
      SCHEMA_LEN_MAX, SCHEMA_ZERO, 2.0f, 1,                                  \
      "How far behind the leader to arrive.")                                \
    P(leader_params, clearance_length, SCHEMA_F32, float, 1,                 \
      SCHEMA_KIND(FOLLOW_LEADER), "", 0, 0, "metres", SCHEMA_LEN_MIN,        \
      SCHEMA_LEN_MAX, SCHEMA_ZERO, 3.0f, 1,                                  \
      "The length of the corridor ahead of the leader to keep clear.")       \
    P(leader_params, clearance_width, SCHEMA_F32, float, 1,                  \
      SCHEMA_KIND(FOLLOW_LEADER), "", 0, 0, "metres", SCHEMA_LEN_MIN,        \
      SCHEMA_LEN_MAX, SCHEMA_ZERO, 1.0f, 1,                                  \
      "Its half width, to either side.")                                     \
    P(leader_params, braking_distance, SCHEMA_F32, float, 1,                 \
      SCHEMA_KIND(FOLLOW_LEADER), "", 0, 0, "metres", SCHEMA_LEN_MIN,        \
      SCHEMA_LEN_MAX, SCHEMA_ZERO, 0.0f, 1,                                  \
      "The arrive D; 0: as seek.braking_distance's.")                        \
    /* Unaligned collision avoidance. */                                     \
    P(unaligned_params, radius, SCHEMA_F32, float, 1,                        \
      SCHEMA_KIND(AVOID_NEIGHBOURS), "", 0, 0, "metres", SCHEMA_LEN_MIN,     \
      SCHEMA_LEN_MAX, SCHEMA_ZERO | SCHEMA_NBR, 0.0f, 1,                     \
      "How far neighbours are looked at; 0: the neighbour radius.")          \
    P(unaligned_params, horizon, SCHEMA_F32, float, 1,                       \
      SCHEMA_KIND(AVOID_NEIGHBOURS), "", 0, 0, "seconds", 0.0f,              \
      SCHEMA_FLT_MAX, SCHEMA_LO_OPEN, 2.0f, 1,                               \
      "The latest time of closest approach that counts as a threat.")        \
    P(unaligned_params, margin, SCHEMA_F32, float, 1,                        \
      SCHEMA_KIND(AVOID_NEIGHBOURS), "", 0, 0, "metres", SCHEMA_LEN_MIN,     \
      SCHEMA_LEN_MAX, SCHEMA_ZERO, 0.0f, 1,                                  \
      "Added to the two radii: closer than r_i + r_j + margin is a threat.") \
    /* Navigation field following. */                                        \
    P(nav_params, field, SCHEMA_OBJECT, throng_object, 1,                    \
      SCHEMA_KIND(FOLLOW_NAV), "", 0, 0, "navigation field", 0, 0, 0, 0, 6,  \
      "The field agents follow unless they have their own "                  \
      "(throng_agent_set_nav_field).")                                       \
    P(nav_params, arrival_distance, SCHEMA_F32, float, 1,                    \
      SCHEMA_KIND(FOLLOW_NAV), "", 0, 0, "metres", SCHEMA_LEN_MIN,           \
      SCHEMA_LEN_MAX, SCHEMA_ZERO, 0.5f, 6,                                  \
      "The agent has arrived once the field's distance where it stands is "  \
      "at most this (0: only in a goal cell).")                              \
    P(nav_params, remove, SCHEMA_BOOL, bool, 1, SCHEMA_KIND(FOLLOW_NAV), "", \
      0, 0, "", 0, 1, 0, 0, 6,                                               \
      "Remove the agent at the end of the tick it arrives in (its handle "   \
      "then goes stale; throng_world_nav_arrivals lists it).")              \
    P(nav_params, jam_density, SCHEMA_F32, float, 1,                         \
      SCHEMA_KIND(FOLLOW_NAV), "", 0, 0, "agents per square metre", 0.0f,    \
      SCHEMA_FLT_MAX, 0, 0.0f, 6,                                            \
      "rho_jam of Weidmann's fundamental diagram, where walking stops "      \
      "(5.4 for pedestrians); 0: the speed does not depend on density. "     \
      "The density is the field's count (density_interval), per cubic "     \
      "metre in 3D.")                                                        \
    P(nav_params, speed_gamma, SCHEMA_F32, float, 1,                         \
      SCHEMA_KIND(FOLLOW_NAV), "", 0, 0, "agents per square metre", 0.0f,    \
      SCHEMA_FLT_MAX, SCHEMA_LO_OPEN, 1.913f, 6,                             \
      "gamma of Weidmann's fundamental diagram, how fast the speed falls "   \
      "with density (1.913 for pedestrians).")                               \
    P(nav_params, lookahead, SCHEMA_F32, float, 1, SCHEMA_KIND(FOLLOW_NAV),  \
      "", 0, 0, "metres", SCHEMA_LEN_MIN, SCHEMA_LEN_MAX, SCHEMA_ZERO, 1.0f, \
      6,                                                                     \
      "The speed law reads the density this far ahead of the agent along "   \
      "the field's direction: walkers slow for the crowd in front of them, " \
      "not for the one behind, so the head of a queue walks off at the "     \
      "speed of the space it enters.")                                       \
    /* Every behaviour's common fields (throng_behaviour). */                \
    P(behaviour, weight, SCHEMA_F32, float, 1, SCHEMA_ALL_KINDS, "", 0, 0,   \
      "", 0.0f, SCHEMA_FLT_MAX, 0, 1.0f, 1, "The behaviour's weight.")       \
    P(behaviour, priority, SCHEMA_I32, int32_t, 1, SCHEMA_ALL_KINDS, "", 0,  \
      0, "", SCHEMA_I32_MIN, SCHEMA_I32_MAX, 0, 0, 1,                        \
      "Its place in THRONG_COMBINE_PRIORITY, higher first (other combine "   \
      "modes keep it for when the group switches).")                         \
    P(behaviour, speed_factor, SCHEMA_F32, float, 1, SCHEMA_ALL_KINDS,       \
      "flow.raw", 0, SCHEMA_KIND(FOLLOW_FLOW), "", 0.0f, 1.0f, 0, 1.0f, 1,   \
      "s_t / max speed.")

/* clang-format on */

#endif /* THRONG_BEHAVIOUR_SCHEMA_H */
