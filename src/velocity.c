/* SPDX-License-Identifier: MIT */
/*
 * The velocity stage: where a group's avoidance mode turns the velocity
 * its steering force asks for into the velocity it moves with.
 *
 * The integration of seed 000 is two halves: the preferred velocity
 * v = truncate(v0 + (F / m) dt, max_speed), then the move p += v dt. In
 * a world where some group avoids, the step runs the halves as two
 * passes with this stage between them. The first pass computes every
 * row's preferred velocity and, for rows of a group in ORCA mode, builds
 * one constraint per neighbour from the state before the step (the
 * neighbours' positions, velocities and radii, which nobody writes until
 * the second pass) and from the static objects near it (orca_static.c),
 * and solves for the new velocity (orca2d.c, orca3d.c); then the group's
 * vehicle limits (throng_motion) turn and lengthen it. Each row writes only its own result, so the stage is gather-only and
 * its result does not depend on the thread count or the order of rows.
 *
 * The new velocity is kept in the row's steering-force slot: once a row
 * has read its force nothing else needs it, and the force's scratch is
 * the one buffer every step already has for each row.
 *
 * Perfect symmetry (two agents exactly head-on, a ring swapping places)
 * is ORCA's known deadlock: every constraint then points straight back
 * along the line of approach and the agents slow down without ever
 * turning aside. Where some constraint forbids an agent's preferred
 * velocity, two things break the symmetry before the solve: the group's
 * keep-right turn (throng_avoidance.keep_right), the pedestrians'
 * convention, under which a ring of agents meeting in the middle turns
 * into a roundabout; and, as the examples of the reference library do, a
 * random nudge (throng_avoidance.nudge of its max speed per axis, by
 * default 1e-4, far below anything the constraints resolve) for what the
 * turn leaves symmetric: a head-on meeting along the z axis, or two
 * agents that circle each other for good near their goals, as pairs of a
 * ring crossing at one tick a step do, which a nudge of a few hundredths
 * breaks. The nudge comes from the world's counter-based generator,
 * keyed by (seed, agent, step), so it is the same on every thread count
 * and machine.
 *
 * Neighbours are those within the group's range (at most the world's
 * neighbour radius, so the grid's candidate ranges hold them all), the
 * nearest max_neighbours of them by (squared distance, slot), and their
 * constraints are built nearest first: the linear program meets them in
 * that order, and the order, like every rounding, is the same on every
 * machine. orca_pick.c chooses them; velocity_take.inc, a part of this
 * file's unit, writes a row's pairs into the lanes.
 *
 * In the plane, on a vector path, the constraints and the program run
 * on the lanes, one agent per lane (orca_lanes.h): each row's pairs are
 * gathered into the next lane of a block of ORCA_BLOCK_LANES rows, and
 * once the block is full (or the rows end) its half-planes, the test of
 * the preferred velocity, the nudge and turn of the lanes that solve, and
 * phase one of the linear program run for every lane at once, each lane
 * with the one-row code's operations (orca2d.c's, and those of nudge()
 * and turn_right()). A lane whose lines no velocity satisfies waits, with
 * its lines and phase one's velocity, in a second block for the
 * program's second phase, the least violation, which runs on the lanes
 * too once 16 wait (or the rows end): in orca_dense2d about one agent in
 * thirty, whose phase two had taken about 5% of the step one row at a
 * time (2 to 3% off the step on the lanes). Lanes that meet a length
 * too small or large to square take the one-row code. A row's limits
 * and its store wait for its block (or the second), which changes
 * nothing: each row writes only its own slot (and, where no group limits
 * its motion, one that keeps its preferred velocity writes nothing: the
 * slot holds it already). Rows with static constraints (hard lines come
 * first, in numbers that differ from row to row) and groups whose
 * max_neighbours exceeds ORCA_BLOCK_PAIRS solve alone.
 */
#include "velocity.h"

#include <string.h>

#include "core.h"
#include "detmath.h"
#include "parallel.h"
#include "grid_query.h"
#include "integrate.h"
#include "orca2d.h"
#include "orca3d.h"
#include "orca_lanes.h"
#include "orca_pick.h"
#include "orca_static.h"
#include "rng.h"
#include "steer.h"
#include "steer_flock.h"

/* The lanes' takes: a part of this unit (see its head). */
#include "velocity_take.inc"

/* Rows per block of the stage's two passes: a row of the first pass
 * costs about a neighbour walk, one of the second a few stores. */
#define VELOCITY_GRAIN 512u
#define PLACE_GRAIN 8192u

/* A turn of pi or more in one step is no limit. */
#define TURN_HALF_CIRCLE 3.14159265f

static size_t align_bytes(size_t raw) {
    return (raw + THRONG_ALIGN - 1u) & ~(size_t)(THRONG_ALIGN - 1u);
}

/* Where the counts of lanes_take_nearest() lie, in bytes from the
 * block: 1 KB past a 4 KB boundary. A load whose address matches that of
 * a store still in flight in its low 12 bits waits for the store (4K
 * aliasing), and the loop that reads the counts stores each candidate's
 * pair into the block's columns, which start at multiples of 2 KB (px,
 * py, vx, vy, tie): a lane's first 16 pairs lie in the first 1 KB of
 * each. Counts on the stack, at whatever offset the stack had, made that
 * loop half again as slow in about half the runs of circle2d (its median
 * step 0.087 against 0.077 ms). */
static size_t counts_at(void) {
    const size_t page = 4096u;
    return (sizeof(orca_block_2d) + page - 1u) / page * page + 1024u;
}

/* Where the block of lanes waiting for the second phase lies, in bytes
 * from the lanes' block: after the counts. */
static size_t rest_at(void) {
    return align_bytes(counts_at() + ORCA_COUNT_MAX * sizeof(int32_t));
}

/* A thread's scratch: the picks and held columns (picks_bytes()), the
 * constraints (those of the static objects too) and the solver's own
 * copy of them (planes are the larger kind), then the lanes' block,
 * their counts and the block of lanes waiting for the second phase (2D
 * worlds on a vector path). */
static size_t thread_bytes(const throng_world *w, uint32_t k) {
    const size_t raw =
        picks_bytes(k) + 2u * (k + ORCA_STATIC_MAX) * sizeof(orca_plane);
    const size_t block = w->orca_block_lines && w->dims == 2
                             ? rest_at() + sizeof(orca_block_2d)
                             : 0u;
    return align_bytes(raw) + align_bytes(block);
}

/* The largest max_neighbours of the live groups that avoid; 0 for none. */
static uint32_t most_picks(const throng_world *w) {
    uint32_t most = 0;
    for (uint32_t g = 0; g < w->group_count; g++) {
        const group_kernel_params *k = &w->group_params[g];
        if (w->groups[g].live && k->orca && k->orca_max > most)
            most = k->orca_max;
    }
    return most;
}

int velocity_needed(const throng_world *w) {
    for (uint32_t g = 0; g < w->group_count; g++)
        if (w->groups[g].live && w->group_params[g].velocity)
            return 1;
    return 0;
}

int velocity_reserve(throng_world *w, uint32_t threads) {
    const size_t need = (size_t)threads * thread_bytes(w, most_picks(w));
    if (need <= w->velocity_scratch_bytes)
        return 0;
    void *block = world_alloc(w, need);
    if (!block)
        return 1;
    world_free(w, w->velocity_scratch, w->velocity_scratch_bytes);
    w->velocity_scratch = block;
    w->velocity_scratch_bytes = need;
    return 0;
}

typedef struct velocity_ctx {
    throng_world *w;
    float dt;
    size_t stride; /* each thread's scratch, bytes */
    int limited;   /* some group limits its motion (motion_limited()) */
} velocity_ctx;

/* Whether some constraint forbids v: then the preferred velocity is
 * nudged and turned before the solve (see the top of the file). */
static inline int forbidden_2d(const orca_line *lines, uint32_t m,
                               const float v[2]) {
    for (uint32_t i = 0; i < m; i++) {
        const orca_line *l = &lines[i];
        if (l->direction[0] * (v[1] - l->point[1]) -
                l->direction[1] * (v[0] - l->point[0]) <
            0.0f)
            return 1;
    }
    return 0;
}

static inline int forbidden_3d(const orca_plane *planes, uint32_t m,
                               const float v[3]) {
    for (uint32_t i = 0; i < m; i++) {
        const orca_plane *p = &planes[i];
        if ((v[0] - p->point[0]) * p->normal[0] +
                (v[1] - p->point[1]) * p->normal[1] +
                (v[2] - p->point[2]) * p->normal[2] <
            0.0f)
            return 1;
    }
    return 0;
}

/* The random nudge (throng_avoidance.nudge of max speed per axis), from
 * the world's counter-based generator (on the lanes:
 * orca_block_wants()). */
static inline void nudge(const throng_world *w, uint32_t t,
                         const group_kernel_params *k, float max_speed,
                         int three, float v[3]) {
    const uint64_t chain =
        rng_agent_step(w->seed, steer_row_key(w, t), w->step);
    const float amount = k->orca_nudge * max_speed;
    v[0] += amount * rng_symmetric_from(chain, RNG_STREAM_ORCA_X);
    v[1] += amount * rng_symmetric_from(chain, RNG_STREAM_ORCA_Y);
    if (three)
        v[2] += amount * rng_symmetric_from(chain, RNG_STREAM_ORCA_Z);
}

/* The keep-right turn (throng_avoidance.keep_right), about +z. */
static inline void turn_right(const group_kernel_params *k, float v[3]) {
    const float x = v[0], y = v[1];
    v[0] = k->keep_cos * x + k->keep_sin * y;
    v[1] = k->keep_cos * y - k->keep_sin * x;
}

/* 2D pairs gathered for orca_agent_lines_2d(), which builds their lines
 * on the vector lanes. */
typedef struct pair_batch {
    float px[ORCA_PAIRS_BATCH], py[ORCA_PAIRS_BATCH]; /* rel_p */
    float vx[ORCA_PAIRS_BATCH], vy[ORCA_PAIRS_BATCH]; /* rel_v */
    float reach[ORCA_PAIRS_BATCH], tie_x[ORCA_PAIRS_BATCH];
    uint32_t count;
} pair_batch;

/* The batch's lines into lines[m ..), in the order gathered; empties the
 * batch and returns the new count of lines. */
static uint32_t batch_lines(pair_batch *b, const group_kernel_params *k,
                            float inv_dt, const float own_v[3],
                            orca_line *lines, uint32_t m) {
    /* The lanes past the count read a copy of the first pair. */
    for (uint32_t i = b->count; i % ORCA_PAIRS_LANES != 0u; i++) {
        b->px[i] = b->px[0];
        b->py[i] = b->py[0];
        b->vx[i] = b->vx[0];
        b->vy[i] = b->vy[0];
        b->reach[i] = b->reach[0];
        b->tie_x[i] = b->tie_x[0];
    }
    const orca_pairs_2d pairs = {
        b->px, b->py, b->vx, b->vy, b->reach, b->tie_x
    };
    orca_agent_lines_2d(&pairs, b->count, k->orca_inv_tau, inv_dt,
                        k->orca_share, own_v, &lines[m]);
    m += b->count;
    b->count = 0;
    return m;
}

static void limit_motion(const throng_world *w, uint32_t t, float dt,
                         const group_kernel_params *k, float *v);

/* Whether group k limits its turns or its speed (limit_motion()). */
static inline int limits_motion(const group_kernel_params *k) {
    return k->turn_rate > 0.0f || k->min_speed > 0.0f;
}

/* Whether some group limits its motion: worked out once a stage. */
static int motion_limited(const throng_world *w) {
    for (uint32_t g = 0; g < w->group_count; g++)
        if (limits_motion(&w->group_params[g]))
            return 1;
    return 0;
}

/* A row's new velocity v into its force slot, after its group's limits. */
static inline void velocity_put(throng_world *w, uint32_t t, float dt,
                                const group_kernel_params *k, float *v) {
    if (limits_motion(k))
        limit_motion(w, t, dt, k, v);
    w->steer_x[t] = v[0];
    w->steer_y[t] = v[1];
    if (w->dims == 3)
        w->steer_z[t] = v[2];
}

/* The lanes waiting for the second phase solved (orca_block_rest(), or
 * orca_solve_2d_rest() for the lanes it leaves) and put, as lanes_flush()
 * puts the others. This and rest_push() are functions of their own, out
 * of lanes_flush(), which every block runs and few need them. */
static __attribute__((noinline)) void
rest_flush(throng_world *w, float dt, lanes_rows *q, orca_line *lines) {
    orca_block_2d *r = q->rest;
    if (r->lanes == 0u)
        return;
    const uint32_t all = (1u << r->lanes) - 1u;
    const uint32_t alone = w->orca_block_rest(r, all);
    for (uint32_t m = alone; m; m &= m - 1u) {
        const uint32_t l = (uint32_t)__builtin_ctz(m);
        orca_block_lane_lines(r, l, lines);
        const float from[2] = { r->out_x[l], r->out_y[l] };
        float out[2];
        orca_solve_2d_rest(lines, r->count[l], r->failed_at[l], r->max_speed[l],
                           from, lines + r->count[l], out);
        r->out_x[l] = out[0];
        r->out_y[l] = out[1];
    }
    const agent_columns *c = &w->col;
    for (uint32_t l = 0; l < r->lanes; l++) {
        const uint32_t t = q->rest_row[l];
        float v[3] = { q->rest_pref_x[l], q->rest_pref_y[l], 0.0f };
        if (is_finite_float(r->out_x[l]) && is_finite_float(r->out_y[l])) {
            v[0] = r->out_x[l];
            v[1] = r->out_y[l];
        }
        velocity_put(w, t, dt, &w->group_params[c->group[t]], v);
    }
    r->lanes = 0;
}

/* Lane l of the block, whose first phase failed, into the next lane of
 * the block waiting for the second (its lines, count, max speed, the
 * line it failed at and its velocity then), flushed when full. */
static __attribute__((noinline)) void rest_push(throng_world *w, float dt,
                                                lanes_rows *q, uint32_t l,
                                                orca_line *lines) {
    orca_block_2d *r = q->rest;
    const uint32_t to = r->lanes++;
    orca_block_move_rest(r, to, q->block, l);
    q->rest_row[to] = q->row[l];
    q->rest_pref_x[to] = q->pref_x[l];
    q->rest_pref_y[to] = q->pref_y[l];
    if (r->lanes == ORCA_BLOCK_LANES)
        rest_flush(w, dt, q, lines);
}

/* The block's rows solved and put: lines and the test on the lanes, and
 * the nudge and turn of those that solve; the program on the lanes, or
 * orca_solve_2d() for the lanes it leaves (their lines copied out into
 * the scratch `lines`, room for twice their count). */
static void lanes_flush(throng_world *w, float dt, lanes_rows *q,
                        orca_line *lines) {
    orca_block_2d *b = q->block;
    if (b->lanes == 0u)
        return;
    const agent_columns *c = &w->col;
    const uint32_t solve = w->orca_block_lines(b, 1.0f / dt);
    /* The lanes that solve meet their lines nearest first. */
    for (uint32_t m = solve & b->unranked; m; m &= m - 1u) {
        const uint32_t l = (uint32_t)__builtin_ctz(m);
        const uint32_t n = b->count[l];
        uint32_t place[ORCA_LANES_MIN];
        lane_places(w, b, l, n, place);
        float *const lines_of[4] = { b->lpx, b->lpy, b->ldx, b->ldy };
        lane_permute(lines_of, 4, NULL, l, place, n, n);
    }
    if (solve) {
        /* Only the lanes that solve draw, so only their random keys are
         * looked up: most rows of a sparse crowd do not solve. */
        for (uint32_t m = solve; m; m &= m - 1u) {
            const uint32_t l = (uint32_t)__builtin_ctz(m);
            b->key[l] = steer_row_key(w, q->row[l]);
        }
        w->orca_block_wants(b, solve, rng_seed_key(w->seed), w->step);
    }
    const uint32_t alone = w->orca_block_solve(b, solve);
    /* The lanes whose first phase failed wait for the second on lanes of
     * their own (rest_flush()), which puts them. */
    const uint32_t rest = alone & b->rest;
    for (uint32_t m = rest; m; m &= m - 1u)
        rest_push(w, dt, q, (uint32_t)__builtin_ctz(m), lines);
    for (uint32_t m = alone & ~rest; m; m &= m - 1u) {
        const uint32_t l = (uint32_t)__builtin_ctz(m);
        orca_block_lane_lines(b, l, lines);
        float out[2];
        const float want[2] = { b->want_x[l], b->want_y[l] };
        orca_solve_2d(lines, b->count[l], 0u, b->max_speed[l], want,
                      lines + b->count[l], out);
        b->out_x[l] = out[0];
        b->out_y[l] = out[1];
    }
    uint32_t put = ((1u << b->lanes) - 1u) & ~rest;
    if (q->pref_kept)
        put &= solve;
    for (uint32_t m = put; m; m &= m - 1u) {
        const uint32_t l = (uint32_t)__builtin_ctz(m);
        const uint32_t t = q->row[l];
        float v[3] = { q->pref_x[l], q->pref_y[l], 0.0f };
        /* As orca_row(): a non-finite answer leaves the preferred one. */
        if (((solve >> l) & 1u) && is_finite_float(b->out_x[l]) &&
            is_finite_float(b->out_y[l])) {
            v[0] = b->out_x[l];
            v[1] = b->out_y[l];
        }
        velocity_put(w, t, dt, &w->group_params[c->group[t]], v);
    }
    b->lanes = 0;
}

/* Row t of a group in ORCA mode: v holds its preferred velocity and
 * receives the new one; *guess carries the neighbour scan's guess from
 * row to row (nearest_lanes()). Returns 1 when the row went to the lanes'
 * block instead (q: 2D, a vector path, no static constraint), whose flush
 * puts it. */
static int orca_row(const throng_world *w, uint32_t t, float dt,
                    const group_kernel_params *k, candidate_block *cb,
                    float *guess, unsigned char *scratch, lanes_rows *q,
                    float *v) {
    const agent_columns *c = &w->col;
    const int three = w->dims == 3;
    pick_entry *picks = (pick_entry *)(void *)scratch;
    if (q->unranked && usual_group(k)) {
        if (cb->rows <= ORCA_LANES_MIN) {
            lanes_take_unranked(w, t, k, cb, v, q);
            return 1;
        }
        if (q->nearest && k->orca_max < ORCA_BLOCK_PAIRS) {
            lanes_take_nearest(w, t, k, cb, guess, picks, v, q);
            return 1;
        }
    }
    const uint32_t n =
        orca_pick_nearest(w, cb, t, k->orca_r2, k->orca_max, guess, picks);
    const float max_speed = c->max_speed[uniform_row(w, UNIFORM_MAX_SPEED, t)];
    const float radius = c->radius[uniform_row(w, UNIFORM_RADIUS, t)];
    const float inv_dt = 1.0f / dt;
    const float own_v[3] = { c->vx[t], c->vy[t], three ? c->vz[t] : 0.0f };

    const uint32_t *ties = world_ties(w);
    unsigned char *after = scratch + picks_bytes(k->orca_max);
    const uint32_t room = k->orca_max + ORCA_STATIC_MAX;
    uint32_t m = 0, hard = 0;
    float out[3] = { v[0], v[1], three ? v[2] : 0.0f };
    orca_plane *planes = (orca_plane *)(void *)after;
    orca_line *lines = (orca_line *)(void *)after;
    if (w->geo) {
        /* The static objects' constraints first: they are hard. */
        const orca_static_query sq = {
            .p = { c->px[t], c->py[t], three ? c->pz[t] : 0.0f },
            .v = { own_v[0], own_v[1], own_v[2] },
            .radius = radius,
            .max_speed = max_speed,
            .inv_tau = k->orca_inv_tau_static,
            .inv_dt = inv_dt,
        };
        hard = m = three ? orca_static_planes_3d(w, &sq, planes)
                         : orca_static_lines_2d(w, &sq, lines);
    }
    if (q->block && hard == 0u && k->orca_max <= ORCA_BLOCK_PAIRS) {
        lanes_take(w, t, k, cb, picks, n, radius, max_speed, own_v, v, q);
        return 1;
    }
    candidate_block_ranges(cb);
    const cell_range *ranges = cb->ranges;
    pair_batch batch;
    batch.count = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t j = (uint32_t)picks[i].where;
        const uint32_t range = (uint32_t)(picks[i].where >> 32);
        const float reach =
            radius + c->radius[uniform_row(w, UNIFORM_RADIUS, j)];
        if (!(reach > 0.0f))
            continue; /* two points never collide */
        float d[3];
        (void)flock_offset(w, &ranges[range], t, j, d);
        const float rel_v[3] = { own_v[0] - c->vx[j], own_v[1] - c->vy[j],
                                 three ? own_v[2] - c->vz[j] : 0.0f };
        /* Opposite for the two of a pair, so coincident agents part. */
        const float tie_x = ties[t] < ties[j] ? -1.0f : 1.0f;
        /* A neighbour whose mask leaves this agent's layer out will not
         * give way: the agent takes the whole avoidance. */
        const int blind = k->filter_back &&
                          !flock_sees(w, w->group_params[c->group[j]].see, t);
        const float share = blind ? 1.0f : k->orca_share;
        if (three) {
            const float tie[3] = { tie_x, 0.0f, 0.0f };
            orca_agent_plane_3d(d, rel_v, reach, k->orca_inv_tau, inv_dt, share,
                                own_v, tie, &planes[m++]);
            continue;
        }
        if (blind) {
            /* Its own line, after the batch's, keeping the order. */
            if (batch.count > 0)
                m = batch_lines(&batch, k, inv_dt, own_v, lines, m);
            const float tie[3] = { tie_x, 0.0f, 0.0f };
            orca_agent_line_2d(d, rel_v, reach, k->orca_inv_tau, inv_dt, share,
                               own_v, tie, &lines[m++]);
            continue;
        }
        const uint32_t b = batch.count++;
        batch.px[b] = d[0];
        batch.py[b] = d[1];
        batch.vx[b] = rel_v[0];
        batch.vy[b] = rel_v[1];
        batch.reach[b] = reach;
        batch.tie_x[b] = tie_x;
        if (batch.count == ORCA_PAIRS_BATCH)
            m = batch_lines(&batch, k, inv_dt, own_v, lines, m);
    }
    if (batch.count > 0)
        m = batch_lines(&batch, k, inv_dt, own_v, lines, m);
    float want[3] = { v[0], v[1], three ? v[2] : 0.0f };
    /* A preferred velocity every constraint permits is the answer (it is
     * within max speed already): no solve, not a bit moved. */
    if (three ? !forbidden_3d(planes, m, want) : !forbidden_2d(lines, m, want))
        return 0;
    nudge(w, t, k, max_speed, three, want);
    turn_right(k, want);
    if (three)
        orca_solve_3d(planes, m, hard, max_speed, want, planes + room, out);
    else
        orca_solve_2d(lines, m, hard, max_speed, want, lines + room, out);
    /* The solver is finite for any state a world can hold; should an
     * absurd one (speeds near the float range) still overflow it, the
     * agent keeps its preferred velocity rather than a NaN. */
    const int dims = three ? 3 : 2;
    for (int a = 0; a < dims; a++)
        if (!is_finite_float(out[a]))
            return 0;
    for (int a = 0; a < dims; a++)
        v[a] = out[a];
    return 0;
}

/* The group's vehicle limits on the new velocity v (throng_motion): the
 * turn from the heading f to at most turn_rate dt, within the plane of
 * the two (2D: toward v's side, left when v is straight behind; 3D:
 * toward v, about the up vector when v is straight behind), keeping the
 * speed; then the least speed, at most max speed (along the heading when
 * v is zero). */
static void limit_motion(const throng_world *w, uint32_t t, float dt,
                         const group_kernel_params *k, float *v) {
    const agent_columns *c = &w->col;
    const int three = w->dims == 3;
    const float f[3] = { c->fx[t], c->fy[t], three ? c->fz[t] : 0.0f };
    float v2 = v[0] * v[0] + v[1] * v[1];
    if (three)
        v2 = v2 + v[2] * v[2];
    float speed = sqrtf(v2);
    const float angle = k->turn_rate * dt;
    if (k->turn_rate > 0.0f && speed > 0.0f && angle < TURN_HALF_CIRCLE) {
        float along = f[0] * v[0] + f[1] * v[1];
        if (three)
            along = along + f[2] * v[2];
        const float cos_a = detmath_cosf(angle);
        if (along < cos_a * speed) {
            const float sin_a = detmath_sinf(angle);
            /* u: the unit direction across the heading, toward v. */
            float u[3];
            if (three) {
                u[0] = v[0] - along * f[0];
                u[1] = v[1] - along * f[1];
                u[2] = v[2] - along * f[2];
                float u2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
                if (!(u2 > 1e-12f * v2)) {
                    /* Straight behind: about the up vector. */
                    u[0] = c->ux[t];
                    u[1] = c->uy[t];
                    u[2] = c->uz[t];
                    u2 = 1.0f;
                }
                const float inv = 1.0f / sqrtf(u2);
                u[0] *= inv;
                u[1] *= inv;
                u[2] *= inv;
            } else {
                const float side = f[0] * v[1] - f[1] * v[0];
                const float turn = side < 0.0f ? -1.0f : 1.0f;
                u[0] = -f[1] * turn;
                u[1] = f[0] * turn;
                u[2] = 0.0f;
            }
            v[0] = speed * (cos_a * f[0] + sin_a * u[0]);
            v[1] = speed * (cos_a * f[1] + sin_a * u[1]);
            if (three)
                v[2] = speed * (cos_a * f[2] + sin_a * u[2]);
        }
    }
    if (k->min_speed > 0.0f) {
        const float max_speed =
            c->max_speed[uniform_row(w, UNIFORM_MAX_SPEED, t)];
        const float least = k->min_speed < max_speed ? k->min_speed : max_speed;
        if (speed < least) {
            if (speed > 0.0f) {
                const float scale = least / speed;
                v[0] *= scale;
                v[1] *= scale;
                if (three)
                    v[2] *= scale;
            } else {
                v[0] = least * f[0];
                v[1] = least * f[1];
                if (three)
                    v[2] = least * f[2];
            }
        }
    }
}

/* The candidate ranges of row t's cell, into *cb. In a dense or sparse
 * grid a bucket is one cell and the rows are in bucket order, so a cursor
 * moved along cell_start (*bucket) says when the cell changes, and the
 * cell and its block are worked out once per cell rather than once per
 * row; a hashed grid's bucket may hold several cells, and its rows
 * compare their cells. */
static inline void block_of_row(const throng_world *w, uint32_t t, int ordered,
                                uint32_t *bucket, uint32_t *block_bucket,
                                flock_block *blk, candidate_block *cb) {
    if (!ordered) {
        const cell_range *ranges = flock_block_of(w, t, blk);
        candidate_block_set(cb, ranges, blk->count);
        return;
    }
    const uint32_t *cell_start = w->grid.cell_start;
    uint32_t b = *bucket;
    while (cell_start[b + 1u] <= t)
        b++;
    *bucket = b;
    if (blk->known && b == *block_bucket)
        return;
    blk->known = 0;
    *block_bucket = b;
    const cell_range *ranges = flock_block_of(w, t, blk);
    candidate_block_set(cb, ranges, blk->count);
}

/* Row t's candidates from its neighbour list (verlet.c): its runs are
 * the stretches the lanes read, where the list keeps them, and what the
 * build worked out (the rows they cover, whether they hold t) is read
 * rather than worked out again; the ranges (the lists serve unbounded
 * space only, so no shift) are written into range_store only for a row
 * whose scan reads them (candidate_block_ranges()). */
_Static_assert(VERLET_RUNS <= GRID_MAX_RANGES,
               "a list's runs fit a candidate block's bounds");
_Static_assert(VERLET_WINDOW == FLOCK_WINDOW,
               "a list's windows are hold_windows()'s");
_Static_assert(VERLET_WINDOW <= ORCA_LANES_MIN,
               "a list the lanes scan covers more rows than a window, so "
               "it has its windows (unless it needs too many)");
static inline void block_of_list(throng_world *w, uint32_t t,
                                 candidate_block *cb) {
    verlet_lists *v = &w->verlet;
    cb->count = (int)verlet_row_runs(v, t, &cb->bounds);
    cb->rows = v->covered[t];
    cb->self_in = verlet_row_self(v, t);
    cb->window_count = verlet_row_windows(v, t, &cb->windows);
    cb->ranges = NULL;
    cb->one_shift = 1;
    cb->laned = 1;
    cb->own_guess = &v->guess[t];
}

/* The first pass over rows [begin, end): every row's new velocity into
 * its force slot. Consecutive rows of one cell share their candidate
 * ranges. Rows handed to the lanes are put when their block fills, and
 * the last block at the end. */
static void velocity_rows(void *ctx, uint32_t begin, uint32_t end, int thread) {
    velocity_ctx *vc = ctx;
    throng_world *w = vc->w;
    const int three = w->dims == 3;
    unsigned char *scratch =
        (unsigned char *)w->velocity_scratch + (size_t)thread * vc->stride;
    const uint32_t most = most_picks(w);
    lanes_rows q;
    q.block = NULL;
    q.usual = 0;
    q.unranked = 0;
    q.nearest = 0;
    q.counts = NULL;
    q.rest = NULL;
    /* The lines of a lane the block leaves to orca_solve_2d() (and their
     * copy) go after the picks, where orca_row()'s own constraints go. */
    orca_line *alone_lines = (orca_line *)(void *)(scratch + picks_bytes(most));
    if (w->orca_block_lines && !three) {
        const size_t raw = picks_bytes(most) +
                           2u * (most + ORCA_STATIC_MAX) * sizeof(orca_plane);
        q.block = (orca_block_2d *)(void *)(scratch + align_bytes(raw));
        q.counts = (int32_t *)(void *)((unsigned char *)q.block + counts_at());
        q.rest =
            (orca_block_2d *)(void *)((unsigned char *)q.block + rest_at());
        q.rest->lanes = 0;
        q.block->lanes = 0;
        q.block->own_shares = 0;
        q.block->own_reaches = 0;
        q.block->unranked = 0;
        q.usual = usual_pairs(w);
        q.unranked = q.usual && !w->geo;
        q.nearest = q.unranked && w->hold_rows && w->count_below;
    }
    flock_block blk;
    flock_block_reset(&blk);
    const int lists = w->verlet.active;
    cell_range list_ranges[VERLET_RUNS];
    memset(list_ranges, 0, sizeof list_ranges);
    /* Field by field: an initializer would zero bound_store, 10 KB (a
     * block's most ranges) every call, which candidate_block_lanes()
     * writes before anything reads it. */
    candidate_block cb;
    cb.ranges = NULL;
    cb.count = 0;
    cb.rows = 0;
    cb.laned = 0;
    cb.one_shift = 0;
    cb.self_in = 0;
    cb.bounds = NULL;
    cb.range_store = list_ranges;
    cb.windows = NULL;
    cb.window_count = 0;
    cb.own_guess = NULL;
    /* The last row's guess (a list's rows keep their own:
     * block_of_list()). */
    float guess = 0.0f;
    /* The step's grid is permuted (its rows are the columns' rows). */
    const grid *g = &w->grid;
    const int ordered = !lists && (g->dense || g->sparse) && g->permuted;
    uint32_t bucket = ordered && begin < end ? grid_bucket_of_row(g, begin) : 0;
    uint32_t block_bucket = 0;
    /* In the plane on a vector path, the rows' preferred velocities first,
     * on the lanes, into their force slots (nothing else reads them). */
    const int pref_ahead = !three && w->velocity_rows_2d;
    q.pref_kept = pref_ahead && !vc->limited;
    if (pref_ahead)
        w->velocity_rows_2d(w, begin, end, vc->dt);
    for (uint32_t t = begin; t < end; t++) {
        float v[3] = { 0.0f, 0.0f, 0.0f };
        if (pref_ahead) {
            v[0] = w->steer_x[t];
            v[1] = w->steer_y[t];
        } else if (three) {
            integrate_velocity_3d(w, t, vc->dt, v);
        } else {
            integrate_velocity_2d(w, t, vc->dt, v);
        }
        const group_kernel_params *k = &w->group_params[w->col.group[t]];
        if (k->orca) {
            if (lists)
                block_of_list(w, t, &cb);
            else
                block_of_row(w, t, ordered, &bucket, &block_bucket, &blk, &cb);
            if (orca_row(w, t, vc->dt, k, &cb, &guess, scratch, &q, v)) {
                if (q.block->lanes == ORCA_BLOCK_LANES)
                    lanes_flush(w, vc->dt, &q, alone_lines);
                continue;
            }
        }
        velocity_put(w, t, vc->dt, k, v);
    }
    if (q.block) {
        lanes_flush(w, vc->dt, &q, alone_lines);
        rest_flush(w, vc->dt, &q, alone_lines);
    }
}

/* The second pass: every row moves with the velocity of the first. */
static void place_rows(void *ctx, uint32_t begin, uint32_t end, int thread) {
    (void)thread;
    velocity_ctx *vc = ctx;
    throng_world *w = vc->w;
    if (w->dims == 2 && w->place_rows_2d) {
        w->place_rows_2d(w, begin, end, vc->dt);
        return;
    }
    for (uint32_t t = begin; t < end; t++) {
        if (w->dims == 3) {
            const float v[3] = { w->steer_x[t], w->steer_y[t], w->steer_z[t] };
            integrate_place_3d(w, t, vc->dt, v);
        } else {
            const float v[2] = { w->steer_x[t], w->steer_y[t] };
            integrate_place_2d(w, t, vc->dt, v);
        }
    }
}

void velocity_stage(throng_world *w, parallel_sched *sched, float dt) {
    INVARIANT(w->count == 0 || (w->steer_x && w->steer_y),
              "the velocity stage has a force for every row");
    INVARIANT(sched->failed || w->verlet.active ||
                  (w->grid.valid && w->grid.count == w->count),
              "the velocity stage reads this step's grid or lists");
    velocity_ctx ctx = { .w = w,
                         .dt = dt,
                         .stride = thread_bytes(w, most_picks(w)),
                         .limited = motion_limited(w) };
    INVARIANT(w->velocity_scratch_bytes >= (size_t)sched->threads * ctx.stride,
              "every thread of the stage has its scratch");
    parallel_rows(sched, w->count, VELOCITY_GRAIN, velocity_rows, &ctx);
    parallel_rows(sched, w->count, PLACE_GRAIN, place_rows, &ctx);
}
