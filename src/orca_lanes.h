/* SPDX-License-Identifier: MIT */
/*
 * ORCA in the plane for a block of agents at once (orca_lanes_simd.inc,
 * compiled once per instruction set): the half-planes of each agent's
 * neighbours and the incremental linear program, one agent per vector
 * lane, with orca2d.c's operations in orca2d.c's order in every lane, so
 * each lane's velocity is the bits orca_agent_line_2d() and
 * orca_solve_2d() give that agent.
 *
 * The block is structure of arrays: entry [i * ORCA_BLOCK_LANES + l] of a
 * pair column is agent l's i-th pair (nearest neighbour first), so the
 * i-th pairs of every agent fill one vector. A lane whose pair takes a
 * branch the lanes do not carry (an overlap, a length too small or large
 * to square) has that pair's line made by orca_agent_line_2d(); a lane
 * whose program has no solution among its lines (the least-violation
 * phase), or whose velocity is too small or large to square, is left to
 * orca_solve_2d() by the caller.
 */
#ifndef THRONG_ORCA_LANES_H
#define THRONG_ORCA_LANES_H

#include <stdint.h>

#include "orca2d.h"

/* Agents per block: the widest path's lanes (narrower paths run it as
 * several vectors). */
#define ORCA_BLOCK_LANES 16u

/* The most pairs of one agent the block holds; a group whose
 * max_neighbours exceeds it solves one agent at a time. */
#define ORCA_BLOCK_PAIRS 32u

#define ORCA_BLOCK_ENTRIES (ORCA_BLOCK_PAIRS * ORCA_BLOCK_LANES)

typedef struct orca_block_2d {
    /* Pair i of lane l at [i * ORCA_BLOCK_LANES + l]: rel_p = p_B - p_A,
     * rel_v = v_A - v_B, the neighbour's tie key (the agent's is own_tie;
     * orca_block_tie_x()), and, for the lanes of own_reaches alone, the
     * sum of the radii (the others take lane_reach for every pair:
     * orca_block_reach()) and, for the lanes of own_shares alone, the
     * agent's share of the pair (the others take lane_share:
     * orca_block_share()). */
    float px[ORCA_BLOCK_ENTRIES], py[ORCA_BLOCK_ENTRIES];
    float vx[ORCA_BLOCK_ENTRIES], vy[ORCA_BLOCK_ENTRIES];
    float reach[ORCA_BLOCK_ENTRIES];
    uint32_t tie[ORCA_BLOCK_ENTRIES];
    float share[ORCA_BLOCK_ENTRIES];
    /* The lines, laid out as the pairs. */
    float lpx[ORCA_BLOCK_ENTRIES], lpy[ORCA_BLOCK_ENTRIES];
    float ldx[ORCA_BLOCK_ENTRIES], ldy[ORCA_BLOCK_ENTRIES];
    /* Per lane: the agent's velocity, its preferred velocity (turned and
     * nudged before the solve), the solver's answer, its max speed and
     * 1 / its group's time horizon, and its count of pairs. */
    float own_vx[ORCA_BLOCK_LANES], own_vy[ORCA_BLOCK_LANES];
    float want_x[ORCA_BLOCK_LANES], want_y[ORCA_BLOCK_LANES];
    float out_x[ORCA_BLOCK_LANES], out_y[ORCA_BLOCK_LANES];
    float max_speed[ORCA_BLOCK_LANES], inv_tau[ORCA_BLOCK_LANES];
    /* Per lane: the agent's random key (steer_row_key(); read only for the
     * lanes that solve), the size of its nudge (throng_avoidance.nudge
     * times its max speed) and its group's keep-right turn, for
     * orca_block_wants(). */
    uint64_t key[ORCA_BLOCK_LANES];
    float nudge[ORCA_BLOCK_LANES];
    float keep_cos[ORCA_BLOCK_LANES], keep_sin[ORCA_BLOCK_LANES];
    /* Per lane: the agent's tie key, the sum of the radii of every pair
     * (unless its bit is in own_reaches: bit l, lane l's pairs carry their
     * own) and its share of every pair (unless its bit is in own_shares). */
    uint32_t own_tie[ORCA_BLOCK_LANES];
    float lane_reach[ORCA_BLOCK_LANES];
    uint32_t own_reaches;
    float lane_share[ORCA_BLOCK_LANES];
    uint32_t own_shares;
    /* Bit l: lane l's pairs are in the order found, not nearest first
     * (the caller's to order before the program; the lines and the test
     * of want read no order). */
    uint32_t unranked;
    uint32_t count[ORCA_BLOCK_LANES];
    /* Written by the solve: bit l of `rest`, lane l's program met line
     * failed_at[l], which no velocity satisfies with those before it;
     * out_x, out_y then hold the program's velocity before that line,
     * where orca_solve_2d_rest() goes on. */
    uint32_t failed_at[ORCA_BLOCK_LANES];
    uint32_t rest;
    uint32_t lanes; /* agents in the block, <= ORCA_BLOCK_LANES */
} orca_block_2d;

/* The x of pair e's tie (orca_agent_line_2d()) in lane l: opposite for
 * the two of a pair, so coincident agents part. Only the pairs the lanes
 * hand back read it, so the block keeps the keys rather than the
 * comparison. */
static inline float orca_block_tie_x(const orca_block_2d *b, uint32_t l,
                                     uint32_t e) {
    return b->own_tie[l] < b->tie[e] ? -1.0f : 1.0f;
}

/* Lane l's sum of the radii of pair e. */
static inline float orca_block_reach(const orca_block_2d *b, uint32_t l,
                                     uint32_t e) {
    return (b->own_reaches >> l) & 1u ? b->reach[e] : b->lane_reach[l];
}

/* Lane l's share of pair e. */
static inline float orca_block_share(const orca_block_2d *b, uint32_t l,
                                     uint32_t e) {
    return (b->own_shares >> l) & 1u ? b->share[e] : b->lane_share[l];
}

/* The lines of every lane's pairs, into lpx .. ldy; returns the lanes
 * (bit l: lane l) where some line forbids want, those that must solve. */
typedef uint32_t (*orca_block_lines_fn)(orca_block_2d *b, float inv_dt);

/* For the lanes of `solve`: orca_solve_2d()'s answer to their lines and
 * want (no hard lines) into out_x, out_y; returns the lanes of `solve`
 * it left to the one-agent code: those of `rest` to
 * orca_solve_2d_rest() from where their program stopped, the others
 * (speeds too small or large to square) to orca_solve_2d(). */
typedef uint32_t (*orca_block_solve_fn)(orca_block_2d *b, uint32_t solve);

/* For the lanes of `solve`, want nudged and turned before the program,
 * as the one-agent code does (velocity.c): each axis moved by the lane's
 * nudge times its own draw of the counter-based generator, keyed by
 * (seed, key, step), the seed given as its link (rng_seed_key()); then
 * turned by keep_cos, keep_sin. */
typedef void (*orca_block_wants_fn)(orca_block_2d *b, uint32_t solve,
                                    uint64_t seed_key, uint64_t step);

/* For the lanes of `lanes`, each with its lines, count, max speed, the
 * line its first phase failed at (failed_at) and that phase's velocity
 * (out_x, out_y): orca_solve_2d_rest()'s answer into out_x, out_y.
 * Returns the lanes it left to orca_solve_2d_rest() (a length too small
 * or large to square), whose out_x, out_y it leaves as they were. */
typedef uint32_t (*orca_block_rest_fn)(orca_block_2d *b, uint32_t lanes);

#define ORCA_LANES_DECLARE(isa)                                        \
    uint32_t orca_block_lines_##isa(orca_block_2d *b, float inv_dt);   \
    uint32_t orca_block_solve_##isa(orca_block_2d *b, uint32_t solve); \
    void orca_block_wants_##isa(orca_block_2d *b, uint32_t solve,      \
                                uint64_t seed_key, uint64_t step);     \
    uint32_t orca_block_rest_##isa(orca_block_2d *b, uint32_t lanes);
ORCA_LANES_DECLARE(sse2)
ORCA_LANES_DECLARE(avx2)
ORCA_LANES_DECLARE(avx512)
ORCA_LANES_DECLARE(neon)
ORCA_LANES_DECLARE(wasm)
#undef ORCA_LANES_DECLARE

/* Lane l of `from`, whose first phase failed, into lane `to` of `into`,
 * a block waiting for the second phase (orca_block_rest()): its lines,
 * their count, its max speed, the line it failed at and its velocity
 * then. */
static inline void orca_block_move_rest(orca_block_2d *into, uint32_t to,
                                        const orca_block_2d *from, uint32_t l) {
    for (uint32_t i = 0; i < from->count[l]; i++) {
        const uint32_t e = i * ORCA_BLOCK_LANES + l;
        const uint32_t f = i * ORCA_BLOCK_LANES + to;
        into->lpx[f] = from->lpx[e];
        into->lpy[f] = from->lpy[e];
        into->ldx[f] = from->ldx[e];
        into->ldy[f] = from->ldy[e];
    }
    into->count[to] = from->count[l];
    into->failed_at[to] = from->failed_at[l];
    into->out_x[to] = from->out_x[l];
    into->out_y[to] = from->out_y[l];
    into->max_speed[to] = from->max_speed[l];
}

/* Lane l's lines as orca_line, for orca_solve_2d(). */
static inline void orca_block_lane_lines(const orca_block_2d *b, uint32_t l,
                                         orca_line *out) {
    for (uint32_t i = 0; i < b->count[l]; i++) {
        const uint32_t e = i * ORCA_BLOCK_LANES + l;
        out[i].point[0] = b->lpx[e];
        out[i].point[1] = b->lpy[e];
        out[i].direction[0] = b->ldx[e];
        out[i].direction[1] = b->ldy[e];
    }
}

#endif /* THRONG_ORCA_LANES_H */
