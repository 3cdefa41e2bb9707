/* SPDX-License-Identifier: MIT */
/*
 * Tests of ORCA on vector lanes (src/orca_lanes_simd.inc): on every
 * vector path this CPU and build offer, blocks of random agents, each
 * lane's half-planes and velocity against orca_agent_line_2d() and
 * orca_solve_2d(), bit for bit. The pairs mix the lanes' common case
 * with those they hand back (overlaps, agents at rest on each other,
 * lengths at the edges of float, zero and NaN radii, NaN velocities);
 * the programs mix velocities every line permits, answers on one line or
 * at a corner, programs with no solution (which the lanes leave to
 * orca_solve_2d()), circles of no size, tiny and huge speeds, and shares
 * of 0, 1 and in between (a neighbour that does not see the agent).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runner.h"

#include "internal.h"
#include "orca_lanes.h"
#include "rng.h"

/* orca_row()'s test before the solve: some line forbids v. */
static int lanes_test_forbids(const orca_line *lines, uint32_t m,
                              const float v[2]) {
    for (uint32_t i = 0; i < m; i++)
        if (lines[i].direction[0] * (v[1] - lines[i].point[1]) -
                lines[i].direction[1] * (v[0] - lines[i].point[0]) <
            0.0f)
            return 1;
    return 0;
}

static float lanes_test_odd(test_rng *rng) {
    static const float odd[] = { 0.0f,   1e-30f, -3.0f, 1e15f,
                                 -1e15f, 1e-19f, 2e-18f };
    return odd[test_rng_below(rng, 7u)];
}

/* A share: 1 (a neighbour that does not see the agent), 0, or between. */
static float lanes_test_share(test_rng *rng) {
    const uint32_t s = test_rng_below(rng, 6u);
    return s == 0 ? 1.0f : s == 1 ? 0.0f : s == 2 ? 0.3f : 0.5f;
}

/* Pair e of lane l: a neighbour drawn around the agent. */
static void lanes_test_pair(test_rng *rng, orca_block_2d *b, uint32_t e,
                            float scale) {
    const uint32_t kind = test_rng_below(rng, 12u);
    b->px[e] = test_rng_range(rng, -15.0f, 15.0f) * scale;
    b->py[e] = test_rng_range(rng, -15.0f, 15.0f) * scale;
    b->vx[e] = test_rng_range(rng, -4.0f, 4.0f) * scale;
    b->vy[e] = test_rng_range(rng, -4.0f, 4.0f) * scale;
    b->reach[e] = 3.0f * scale;
    b->tie[e] = test_rng_below(rng, 4u); /* the agent's is 1 or 2 */
    b->share[e] = lanes_test_share(rng);
    if (kind == 1) { /* overlapping */
        b->px[e] *= 0.1f;
        b->py[e] *= 0.1f;
    } else if (kind == 2) { /* at rest on each other */
        b->px[e] = b->py[e] = b->vx[e] = b->vy[e] = 0.0f;
    } else if (kind == 3) {
        b->px[e] = lanes_test_odd(rng);
        b->vy[e] = lanes_test_odd(rng);
    } else if (kind == 4) {
        b->reach[e] = test_rng_below(rng, 2u) ? 0.0f : nanf("");
    } else if (kind == 5 && test_rng_below(rng, 4u) == 0u) {
        b->vx[e] = nanf("");
    }
}

/* A random block: `lanes` agents of up to `pairs` pairs each. */
static void lanes_test_block(test_rng *rng, orca_block_2d *b, uint32_t lanes,
                             uint32_t pairs) {
    memset(b, 0, sizeof *b);
    b->lanes = lanes;
    for (uint32_t l = 0; l < lanes; l++) {
        const uint32_t size = test_rng_below(rng, 8u);
        const float scale = size == 0 ? 1e-9f : size == 1 ? 1e5f : 1.0f;
        b->count[l] = test_rng_below(rng, pairs + 1u);
        for (uint32_t i = 0; i < b->count[l]; i++)
            lanes_test_pair(rng, b, i * ORCA_BLOCK_LANES + l, scale);
        b->own_vx[l] = test_rng_range(rng, -2.0f, 2.0f) * scale;
        b->own_vy[l] = test_rng_range(rng, -2.0f, 2.0f) * scale;
        const uint32_t speed = test_rng_below(rng, 16u);
        b->max_speed[l] = (speed == 0   ? 0.0f
                           : speed == 1 ? nanf("")
                                        : test_rng_range(rng, 0.5f, 3.0f)) *
                          scale;
        const uint32_t want = test_rng_below(rng, 10u);
        b->want_x[l] = want == 0   ? 0.0f
                       : want == 1 ? lanes_test_odd(rng)
                                   : test_rng_range(rng, -4.0f, 4.0f) * scale;
        b->want_y[l] =
            want == 0 ? 0.0f : test_rng_range(rng, -4.0f, 4.0f) * scale;
        b->inv_tau[l] = test_rng_below(rng, 2u) ? 0.1f : 0.5f;
        b->own_tie[l] = 1u + test_rng_below(rng, 2u);
        /* Lanes sharing every pair alike, and lanes whose pairs carry
         * their own share (the other lanes' share entries stay drawn,
         * which the lanes must not read). */
        b->lane_share[l] = lanes_test_share(rng);
        if (test_rng_below(rng, 2u))
            b->own_shares |= 1u << l;
        /* Likewise lanes whose pairs carry their own sum of the radii, and
         * lanes of one sum for every pair (now and then zero or NaN). */
        const uint32_t reach = test_rng_below(rng, 16u);
        b->lane_reach[l] = reach == 0 ? 0.0f
                           : reach == 1
                               ? nanf("")
                               : test_rng_range(rng, 1.0f, 4.0f) * scale;
        if (test_rng_below(rng, 2u))
            b->own_reaches |= 1u << l;
    }
}

/* One path's lanes against the one-agent functions over many blocks;
 * counts what the lanes solved themselves and what they handed back. */
static void lanes_test_path(const char *path, uint32_t pairs, int blocks,
                            int *lanes_solved, int *handed_back, int *rested,
                            int *rest_lanes) {
    throng_world *w = runner_on_path(ts_world(2, 1, NULL), path);
    if (!w)
        return; /* the path is missing here */
    if (!w->orca_block_lines) {
        throng_world_destroy(w);
        return;
    }
    static orca_block_2d b, before, r;
    test_rng rng = test_rng_make(0x0c4a1a);
    const float inv_dt = 4.0f;
    for (int k = 0; k < blocks; k++) {
        lanes_test_block(&rng, &b, 1u + test_rng_below(&rng, 16u), pairs);
        before = b;
        const uint32_t solve = w->orca_block_lines(&b, inv_dt);
        for (uint32_t l = 0; l < b.lanes; l++) {
            orca_line want[ORCA_BLOCK_PAIRS], got[ORCA_BLOCK_PAIRS];
            for (uint32_t i = 0; i < b.count[l]; i++) {
                const uint32_t e = i * ORCA_BLOCK_LANES + l;
                const float rel_p[2] = { before.px[e], before.py[e] };
                const float rel_v[2] = { before.vx[e], before.vy[e] };
                const float v_a[2] = { before.own_vx[l], before.own_vy[l] };
                const float tie[2] = { before.own_tie[l] < before.tie[e] ? -1.0f
                                                                         : 1.0f,
                                       0.0f };
                const float share = (before.own_shares >> l) & 1u
                                        ? before.share[e]
                                        : before.lane_share[l];
                const float reach = (before.own_reaches >> l) & 1u
                                        ? before.reach[e]
                                        : before.lane_reach[l];
                orca_agent_line_2d(rel_p, rel_v, reach, before.inv_tau[l],
                                   inv_dt, share, v_a, tie, &want[i]);
            }
            orca_block_lane_lines(&b, l, got);
            for (uint32_t i = 0; i < b.count[l]; i++)
                if (memcmp(&got[i], &want[i], sizeof want[i]) != 0)
                    runner_fail(
                        __FILE__, __LINE__,
                        "%s block %d lane %u pair %u: line (%g %g; "
                        "%g %g), one pair (%g %g; %g %g)",
                        path, k, (unsigned)l, (unsigned)i,
                        (double)got[i].point[0], (double)got[i].point[1],
                        (double)got[i].direction[0],
                        (double)got[i].direction[1], (double)want[i].point[0],
                        (double)want[i].point[1], (double)want[i].direction[0],
                        (double)want[i].direction[1]);
            const float pref[2] = { b.want_x[l], b.want_y[l] };
            const int forbids = lanes_test_forbids(want, b.count[l], pref);
            if (forbids != (int)((solve >> l) & 1u))
                runner_fail(__FILE__, __LINE__,
                            "%s block %d lane %u: forbidden %d, lanes say %u",
                            path, k, (unsigned)l, forbids,
                            (unsigned)((solve >> l) & 1u));
        }
        /* Solve every lane (not only those the lines forbid), so the
         * program meets preferred velocities inside and outside. */
        const uint32_t all = b.lanes >= 32u ? ~0u : (1u << b.lanes) - 1u;
        const uint32_t alone = w->orca_block_solve(&b, all);
        /* Each lane's answer from the one-agent code. */
        float ref[ORCA_BLOCK_LANES][2];
        for (uint32_t l = 0; l < b.lanes; l++) {
            orca_line lines[ORCA_BLOCK_PAIRS], scratch[ORCA_BLOCK_PAIRS];
            orca_block_lane_lines(&b, l, lines);
            const float pref[2] = { b.want_x[l], b.want_y[l] };
            orca_solve_2d(lines, b.count[l], 0u, b.max_speed[l], pref, scratch,
                          ref[l]);
        }
        /* The second phase on the lanes (orca_block_rest()): the lanes
         * whose first phase failed, gathered into a block of their own
         * as the velocity stage gathers them, each against
         * orca_solve_2d(); those it hands back go on one at a time. */
        memset(&r, 0, sizeof r);
        uint32_t from_lane[ORCA_BLOCK_LANES] = { 0 };
        for (uint32_t l = 0; l < b.lanes; l++) {
            if (!((alone >> l) & 1u) || !((b.rest >> l) & 1u))
                continue;
            const uint32_t to = r.lanes++;
            orca_block_move_rest(&r, to, &b, l);
            from_lane[to] = l;
        }
        float start[ORCA_BLOCK_LANES][2];
        for (uint32_t q = 0; q < r.lanes; q++) {
            start[q][0] = r.out_x[q];
            start[q][1] = r.out_y[q];
        }
        const uint32_t r_all = r.lanes >= 32u ? ~0u : (1u << r.lanes) - 1u;
        const uint32_t r_alone = r.lanes ? w->orca_block_rest(&r, r_all) : 0u;
        for (uint32_t q = 0; q < r.lanes; q++) {
            const uint32_t l = from_lane[q];
            const float *out = ref[l];
            const float got[2] = { r.out_x[q], r.out_y[q] };
            if ((r_alone >> q) & 1u) {
                /* Handed back untouched. */
                CHECK(memcmp(got, start[q], sizeof got) == 0);
                continue;
            }
            (*rest_lanes)++;
            if (memcmp(got, out, sizeof got) != 0)
                runner_fail(__FILE__, __LINE__,
                            "%s block %d lane %u (%u lines, line %u fails): "
                            "second phase on the lanes (%.9g %.9g), "
                            "orca_solve_2d (%.9g %.9g)",
                            path, k, (unsigned)l, (unsigned)b.count[l],
                            (unsigned)b.failed_at[l], (double)got[0],
                            (double)got[1], (double)out[0], (double)out[1]);
        }
        for (uint32_t l = 0; l < b.lanes; l++) {
            orca_line lines[ORCA_BLOCK_PAIRS], scratch[ORCA_BLOCK_PAIRS];
            orca_block_lane_lines(&b, l, lines);
            const float *out = ref[l];
            if ((alone >> l) & 1u) {
                (*handed_back)++;
                if (!((b.rest >> l) & 1u))
                    continue;
                /* From where the lanes' program stopped, the rest of it
                 * gives orca_solve_2d()'s bits. */
                (*rested)++;
                CHECK(b.failed_at[l] < b.count[l]);
                const float from[2] = { b.out_x[l], b.out_y[l] };
                float rest[2];
                orca_solve_2d_rest(lines, b.count[l], b.failed_at[l],
                                   b.max_speed[l], from, scratch, rest);
                if (memcmp(rest, out, sizeof rest) != 0)
                    runner_fail(__FILE__, __LINE__,
                                "%s block %d lane %u (%u lines, line %u "
                                "fails): rest (%.9g %.9g), orca_solve_2d "
                                "(%.9g %.9g)",
                                path, k, (unsigned)l, (unsigned)b.count[l],
                                (unsigned)b.failed_at[l], (double)rest[0],
                                (double)rest[1], (double)out[0],
                                (double)out[1]);
                continue;
            }
            if ((b.rest >> l) & 1u)
                runner_fail(__FILE__, __LINE__,
                            "%s block %d lane %u: solved, and left to rest",
                            path, k, (unsigned)l);
            (*lanes_solved)++;
            if (memcmp(out, (float[2]){ b.out_x[l], b.out_y[l] },
                       2u * sizeof(float)) != 0)
                runner_fail(__FILE__, __LINE__,
                            "%s block %d lane %u (%u lines): lanes (%.9g "
                            "%.9g), orca_solve_2d (%.9g %.9g)",
                            path, k, (unsigned)l, (unsigned)b.count[l],
                            (double)b.out_x[l], (double)b.out_y[l],
                            (double)out[0], (double)out[1]);
        }
    }
    throng_world_destroy(w);
}

TEST(orca_lanes_match_one_agent) {
    static const char *const paths[] = { "sse2", "avx2", "avx512", "neon",
                                         "wasm" };
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        int solved = 0, back = 0, rested = 0, rest_lanes = 0;
        /* Few pairs (most programs solvable) and many (some not). */
        lanes_test_path(paths[p], 6u, 3000, &solved, &back, &rested,
                        &rest_lanes);
        lanes_test_path(paths[p], ORCA_BLOCK_PAIRS, 600, &solved, &back,
                        &rested, &rest_lanes);
        if (solved + back == 0)
            continue; /* a path this machine lacks */
        /* Both kinds met, often (about 14,000 and 17,000: the random
         * programs of 32 lines are mostly infeasible), and most of those
         * handed back go on from the lanes' first phase. */
        CHECK(solved > 5000);
        CHECK(back > 1000);
        CHECK(rested > back / 2);
        /* And the second phase on the lanes took nearly all of those. */
        CHECK(rest_lanes > rested * 9 / 10);
    }
}

/* The nudge and turn of orca_block_wants() against the one-agent code's
 * (velocity.c: nudge(), then turn_right()), bit for bit: random keys,
 * seeds and steps, nudges of none to more than the velocity, turns of
 * any angle, the lanes not asked untouched. */
TEST(orca_lanes_wants_match_one_agent) {
    static const char *const paths[] = { "sse2", "avx2", "avx512", "neon",
                                         "wasm" };
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        throng_world *w = runner_on_path(ts_world(2, 1, NULL), paths[p]);
        if (!w)
            continue; /* the path is missing here */
        CHECK(w->orca_block_wants != NULL);
        static orca_block_2d b;
        test_rng rng = test_rng_make(0x3a57e);
        for (int k = 0; k < 2000; k++) {
            b.lanes = 1u + test_rng_below(&rng, ORCA_BLOCK_LANES);
            float before_x[ORCA_BLOCK_LANES], before_y[ORCA_BLOCK_LANES];
            for (uint32_t l = 0; l < ORCA_BLOCK_LANES; l++) {
                b.key[l] = test_rng_u64(&rng);
                const uint32_t kind = test_rng_below(&rng, 4u);
                b.nudge[l] = kind == 0u   ? 0.0f
                             : kind == 1u ? 1e-4f * test_rng_unit(&rng)
                                          : test_rng_range(&rng, 0.0f, 3.0f);
                const float angle = test_rng_range(&rng, -3.2f, 3.2f);
                b.keep_cos[l] = cosf(angle);
                b.keep_sin[l] = sinf(angle);
                b.want_x[l] = before_x[l] = test_rng_range(&rng, -4.0f, 4.0f);
                b.want_y[l] = before_y[l] = test_rng_range(&rng, -4.0f, 4.0f);
            }
            const uint64_t seed = test_rng_u64(&rng);
            const uint64_t step = test_rng_below(&rng, 1000000u);
            const uint32_t solve = (uint32_t)test_rng_u64(&rng) & 0xffffu;
            w->orca_block_wants(&b, solve, rng_seed_key(seed), step);
            for (uint32_t l = 0; l < ORCA_BLOCK_LANES; l++) {
                float x = before_x[l], y = before_y[l];
                if (l < b.lanes && ((solve >> l) & 1u)) {
                    const uint64_t chain = rng_agent_step(seed, b.key[l], step);
                    x += b.nudge[l] *
                         rng_symmetric_from(chain, RNG_STREAM_ORCA_X);
                    y += b.nudge[l] *
                         rng_symmetric_from(chain, RNG_STREAM_ORCA_Y);
                    const float tx = b.keep_cos[l] * x + b.keep_sin[l] * y;
                    const float ty = b.keep_cos[l] * y - b.keep_sin[l] * x;
                    x = tx;
                    y = ty;
                }
                if (memcmp(&x, &b.want_x[l], sizeof x) != 0 ||
                    memcmp(&y, &b.want_y[l], sizeof y) != 0)
                    runner_fail(__FILE__, __LINE__,
                                "%s block %d lane %u (asked %u): lanes "
                                "(%.9g %.9g), one agent (%.9g %.9g)",
                                paths[p], k, (unsigned)l,
                                (unsigned)((solve >> l) & 1u),
                                (double)b.want_x[l], (double)b.want_y[l],
                                (double)x, (double)y);
            }
        }
        throng_world_destroy(w);
    }
}

/* The second phase on the lanes hands back a lane whose answer is too
 * long to square (two facing lines 1 apart, a circle of 1e19: the
 * answer lies 1e19 up the line midway), leaving its start, and solves
 * the lane beside it; orca_solve_2d_rest() then gives both
 * orca_solve_2d()'s bits. */
TEST(orca_lanes_rest_hands_back) {
    static const char *const paths[] = { "sse2", "avx2", "avx512", "neon",
                                         "wasm" };
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        throng_world *w = runner_on_path(ts_world(2, 1, NULL), paths[p]);
        if (!w)
            continue;
        if (!w->orca_block_rest) {
            throng_world_destroy(w);
            continue;
        }
        static orca_block_2d r;
        memset(&r, 0, sizeof r);
        r.lanes = 2;
        const float speeds[2] = { 1e19f, 4.0f };
        orca_line lines[2][2] = {
            { { { 1.0f, 0.0f }, { 0.0f, 1.0f } },
              { { 2.0f, 0.0f }, { 0.0f, -1.0f } } },
            { { { 1.0f, 0.0f }, { 0.0f, 1.0f } },
              { { 2.0f, 0.0f }, { 0.0f, -1.0f } } },
        };
        float start[2][2];
        for (uint32_t l = 0; l < 2; l++) {
            /* The first phase's velocity: on line 0, where line 1 fails. */
            start[l][0] = 1.0f;
            start[l][1] = 0.5f;
            for (uint32_t i = 0; i < 2; i++) {
                const uint32_t e = i * ORCA_BLOCK_LANES + l;
                r.lpx[e] = lines[l][i].point[0];
                r.lpy[e] = lines[l][i].point[1];
                r.ldx[e] = lines[l][i].direction[0];
                r.ldy[e] = lines[l][i].direction[1];
            }
            r.count[l] = 2;
            r.failed_at[l] = 1;
            r.out_x[l] = start[l][0];
            r.out_y[l] = start[l][1];
            r.max_speed[l] = speeds[l];
        }
        const uint32_t alone = w->orca_block_rest(&r, 3u);
        CHECK_EQ_INT((int)alone, 1);
        CHECK(r.out_x[0] == start[0][0] && r.out_y[0] == start[0][1]);
        for (uint32_t l = 0; l < 2; l++) {
            orca_line scratch[4];
            float want[2];
            orca_solve_2d_rest(lines[l], 2u, 1u, speeds[l], start[l], scratch,
                               want);
            if (l == 0) {
                /* Far up the line midway, x = 1.5. */
                CHECK(want[0] == 1.5f && want[1] > 1e18f);
                continue;
            }
            CHECK(want[0] == 1.5f);
            CHECK(r.out_x[1] == want[0] && r.out_y[1] == want[1]);
        }
        throng_world_destroy(w);
    }
}

void register_orca_lanes_tests(void) {
    REGISTER(orca_lanes_rest_hands_back);
    REGISTER(orca_lanes_match_one_agent);
    REGISTER(orca_lanes_wants_match_one_agent);
}
