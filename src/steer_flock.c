/* SPDX-License-Identifier: MIT */
/*
 * Flocking: separation, alignment and cohesion in one walk over the grid.
 *
 * The driver walks the sorted rows in chunks. Within a chunk it cuts runs of
 * agents that share a cell: they share the block of candidate cells too, so
 * the candidate ranges are computed once per run, and a vector kernel can
 * put the run's agents side by side in its lanes and broadcast each
 * candidate to all of them. Every agent visits its candidates in the same
 * order on every path (ranges in grid_ranges() order, rows ascending), and
 * adds them with the same operations, so the paths agree to the bit.
 *
 * The forces follow seed 000: each rule picks a desired velocity and steers
 * with F = m (v_desired - v) / dt.
 */
#include "steer_flock.h"
#include "behaviour.h"
#include "combine.h"
#include "steer_cap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "detmath.h"
#include "parallel.h"
#include "rng.h"

/* Rows per chunk handed to a thread: about eight chunks per thread, so a
 * dense cluster is shared out, within bounds that amortise the scheduler
 * (below) and keep a chunk's neighbour walk in the thread's own cache
 * (above). Any chunking gives the same results. */
#define FLOCK_GRAIN_MIN 1024u
#define FLOCK_GRAIN_MAX 32768u

/* The most agents of one run processed together (a run is cut in pieces
 * of this size; the sums live on the stack). */
#define FLOCK_RUN_MAX 64u

/* Inverse-distance separation weighs a neighbour by 1/d^2; below this
 * squared distance (1e-6 m apart) the weight stops growing, so two agents
 * that nearly coincide push apart hard but finitely. */
#define FLOCK_MIN_D2 1e-12f

/* Unaligned collision avoidance's look at one neighbour at offset d with
 * relative velocity dv: the time of closest approach t = -(d . dv) /
 * |dv|^2, and, when 0 < t <= horizon and the distance then is below rr,
 * a threat; the soonest threat is kept (the first seen on a tie). */
static inline void flock_unaligned(flock_sums *s, const group_kernel_params *k,
                                   float dx, float dy, float dz, float dvx,
                                   float dvy, float dvz, float rr) {
    float dv2 = dvx * dvx + dvy * dvy + dvz * dvz;
    if (!(dv2 > 0.0f))
        return;
    float t = -(dx * dvx + dy * dvy + dz * dvz) / dv2;
    if (!(t > 0.0f && t <= k->uca_horizon))
        return;
    float cx = dx + dvx * t, cy = dy + dvy * t, cz = dz + dvz * t;
    if (!(cx * cx + cy * cy + cz * cz < rr * rr))
        return;
    if (s->uca_n == 0 || t < s->uca_t) {
        s->uca_t = t;
        s->uca_away[0] = -cx;
        s->uca_away[1] = -cy;
        s->uca_away[2] = -cz;
    }
    s->uca_n++;
}

/* One neighbour j of agent t at offset (dx, dy, dz), d2 = |d|^2, added to
 * the sums of every rule whose radius and cone it falls in. */
static inline __attribute__((always_inline)) void
flock_pair(const agent_columns *restrict c, int three,
           const group_kernel_params *restrict k, flock_sums *restrict s,
           uint32_t j, float dx, float dy, float dz, float d2, const float f[3],
           const float rv[3], float rr) {
    if (k->fov_on) {
        float dot = dx * f[0] + dy * f[1];
        if (three)
            dot = dot + dz * f[2];
        if (!(dot >= k->cos_half_fov * sqrtf(d2)))
            return;
    }
    if (d2 <= k->sep_r2) {
        if (!k->sep_inverse) {
            s->sep[0] += dx;
            s->sep[1] += dy;
            s->sep[2] += dz;
            s->sep_n++;
        } else if (d2 > 0.0f) {
            /* A coincident neighbour has no direction to push along: it is
             * left out of the average. */
            float q = d2 > FLOCK_MIN_D2 ? d2 : FLOCK_MIN_D2;
            s->sep[0] -= dx / q;
            s->sep[1] -= dy / q;
            s->sep[2] -= dz / q;
            s->sep_n++;
        }
    }
    if (d2 <= k->ali_r2) {
        s->ali[0] += c->vx[j];
        s->ali[1] += c->vy[j];
        s->ali[2] += three ? c->vz[j] : 0.0f;
        s->ali_n++;
    }
    if (d2 <= k->coh_r2) {
        s->coh[0] += dx;
        s->coh[1] += dy;
        s->coh[2] += dz;
        s->coh_n++;
    }
    if (k->uca && d2 <= k->uca_r2)
        flock_unaligned(s, k, dx, dy, dz, c->vx[j] - rv[0], c->vy[j] - rv[1],
                        three ? c->vz[j] - rv[2] : 0.0f, rr + c->radius[j]);
}

/* The cap's scan on the scalar path: every candidate, one at a time. */
uint32_t flock_cap_scan_scalar(const flock_run *run, uint32_t t, uint32_t cap,
                               kept_neighbour *kept, flock_counts *counts) {
    const throng_world *w = run->w;
    const float R2 = w->neighbour_radius * w->neighbour_radius;
    uint32_t n = 0;
    for (int r = 0; r < run->range_count; r++) {
        const cell_range *cr = &run->ranges[r];
        counts->candidates += cr->end - cr->begin;
        counts->neighbours += kept_offer_rows(w, cr, (uint32_t)r, t, cr->begin,
                                              R2, kept, &n, cap);
    }
    return n;
}

/* The cap's scan for an agent whose mask hides some group: every
 * candidate one at a time, those it does not see left out before the
 * selection (the cap keeps the nearest it sees), on every path. */
static uint32_t flock_cap_scan_layers(const flock_run *run, uint32_t t,
                                      uint32_t cap, kept_neighbour *kept,
                                      flock_counts *counts) {
    const throng_world *w = run->w;
    const float R2 = w->neighbour_radius * w->neighbour_radius;
    const uint32_t see = w->group_params[w->col.group[t]].see;
    uint32_t n = 0;
    for (int r = 0; r < run->range_count; r++) {
        const cell_range *cr = &run->ranges[r];
        counts->candidates += cr->end - cr->begin;
        for (uint32_t j = cr->begin; j < cr->end; j++) {
            float d[3];
            const float d2 = flock_offset(w, cr, t, j, d);
            if (j == t || !(d2 <= R2) || !flock_sees(w, see, j))
                continue;
            counts->neighbours++;
            kept_offer(kept, &n, cap,
                       (kept_neighbour){ d2, w->col.slot[j], j, (uint32_t)r });
        }
    }
    return n;
}

/* Agent t with a neighbour cap: the k->cap nearest neighbours within the
 * neighbour radius (a set that does not depend on the order they are
 * met in), chosen through the step's fine grids (steer_cap.c) or, where
 * they cannot serve, by the path's scan of every candidate; then added in
 * the order the uncapped walk would meet them, so a cap above the
 * neighbour count changes nothing. */
uint32_t flock_capped_kept(const flock_run *run, struct cap_block *blk,
                           uint32_t t, uint32_t cap, kept_neighbour *kept,
                           flock_counts *counts) {
    if (run->w->group_params[run->w->col.group[t]].filter) {
        const uint32_t n = flock_cap_scan_layers(run, t, cap, kept, counts);
        cap_walk_order(kept, n);
        return n;
    }
    if (!blk->prepared)
        cap_block_prepare(run, blk);
    if (blk->scan || cap > CAP_SELECT_MAX) {
        const uint32_t n = run->w->cap_scan(run, t, cap, kept, counts);
        cap_walk_order(kept, n);
        return n;
    }
    return cap_select(run, blk, t, cap, kept, counts);
}

static void flock_capped(const flock_run *run, cap_block *blk, uint32_t t,
                         const group_kernel_params *k, flock_sums *s,
                         const float f[3], const float rv[3], float rr,
                         flock_counts *counts) {
    const throng_world *w = run->w;
    kept_neighbour kept[THRONG_MAX_NEIGHBOUR_CAP];
    const uint32_t n = flock_capped_kept(run, blk, t, k->cap, kept, counts);
    for (uint32_t i = 0; i < n; i++) {
        float d[3];
        float d2 =
            flock_offset(w, &run->ranges[kept[i].range], t, kept[i].row, d);
        flock_pair(&w->col, w->dims == 3, k, s, kept[i].row, d[0], d[1], d[2],
                   d2, f, rv, rr);
    }
}

/* Agent t's walk over the candidate ranges into s: every candidate
 * counted, those within the radius (and, with `layers`, whose layer the
 * agent's mask holds) counted as neighbours and offered to the rules.
 * Specialised on `layers` so that worlds whose masks hide nobody walk
 * without the test. */
static inline __attribute__((always_inline)) flock_sums
flock_walk_row(const flock_run *run, uint32_t t, const group_kernel_params *k,
               const float f[3], const float rv[3], float rr, const int layers,
               flock_counts *counts) {
    const throng_world *w = run->w;
    const int three = w->dims == 3;
    const float R2 = w->neighbour_radius * w->neighbour_radius;
    const agent_columns *c = &w->col;
    const float *gpx = c->px, *gpy = c->py, *gpz = c->pz;
    const float px = gpx[t], py = gpy[t], pz = three ? gpz[t] : 0.0f;
    flock_sums s;
    memset(&s, 0, sizeof s);
    uint64_t candidates = 0, neighbours = 0;
    for (int r = 0; r < run->range_count; r++) {
        const cell_range *cr = &run->ranges[r];
        /* Offsets are measured from the agent's image in this range's
         * periodic shift: d = p_j - (p - shift). */
        const float ox = px - cr->shift[0], oy = py - cr->shift[1],
                    oz = pz - cr->shift[2];
        for (uint32_t j = cr->begin; j < cr->end; j++) {
            float dx = gpx[j] - ox;
            float dy = gpy[j] - oy;
            float dz = three ? gpz[j] - oz : 0.0f;
            float d2 = dx * dx + dy * dy;
            if (three)
                d2 = d2 + dz * dz;
            candidates++;
            if (j == t || (layers && !flock_sees(w, k->see, j)))
                continue;
            neighbours += d2 <= R2;
            flock_pair(c, three, k, &s, j, dx, dy, dz, d2, f, rv, rr);
        }
    }
    counts->candidates += candidates;
    counts->neighbours += neighbours;
    return s;
}

static void flock_accumulate_scalar(const flock_run *run, cap_block *blk,
                                    flock_sums *out, flock_counts *counts) {
    const throng_world *w = run->w;
    const int three = w->dims == 3;
    const agent_columns *c = &w->col;
    uint64_t candidates = 0, neighbours = 0;

    for (uint32_t t = run->begin; t < run->end; t++) {
        const group_kernel_params *k = &w->group_params[w->col.group[t]];
        if (k->recipe && !k->walk) {
            /* A recipe without neighbour rules needs no walk. */
            memset(&out[t - run->begin], 0, sizeof out[0]);
            continue;
        }
        const float rv[3] = { c->vx[t], c->vy[t], three ? c->vz[t] : 0.0f };
        const float rr = c->radius[t] + k->uca_margin;
        const float f[3] = { c->fx[t], c->fy[t], three ? c->fz[t] : 0.0f };
        if (k->cap && k->walk) {
            /* Its own sums: the uncapped walk's must not escape, so
             * that it keeps them in registers. */
            flock_sums capped;
            memset(&capped, 0, sizeof capped);
            flock_counts cc = { 0, 0 };
            flock_capped(run, blk, t, k, &capped, f, rv, rr, &cc);
            candidates += cc.candidates;
            neighbours += cc.neighbours;
            out[t - run->begin] = capped;
            continue;
        }
        flock_counts rc = { 0, 0 };
        out[t - run->begin] =
            k->filter ? flock_walk_row(run, t, k, f, rv, rr, 1, &rc)
                      : flock_walk_row(run, t, k, f, rv, rr, 0, &rc);
        candidates += rc.candidates;
        neighbours += rc.neighbours;
    }
    counts->candidates += candidates;
    counts->neighbours += neighbours;
}

/* The scalar epilogue is the recipe finish (combine.c, steer_finish_rows):
 * for a plain flocking group it adds the same terms, weighted, in the same
 * order as the vector epilogue does. */

/* Runs of agents that share a cell, each walking that cell's ranges. */
void flock_kernel_scalar(const throng_world *w, uint32_t begin, uint32_t end,
                         float dt, flock_counts *counts) {
    static const flock_sums no_sums[FLOCK_RUN_MAX];
    cell_range ranges[GRID_MAX_RANGES];
    flock_sums sums[FLOCK_RUN_MAX];
    cap_block blk; /* prepared by the run's first capped agent */
    blk.prepared = 0;
    /* The cell whose ranges (and block) the last run walked: a crowded
     * cell is cut into runs of FLOCK_RUN_MAX, which share both. */
    int32_t last[3] = { 0, 0, 0 };
    int have_last = 0;
    int range_count = 0;
    uint32_t t = begin;
    while (t < end) {
        const group_kernel_params *k = &w->group_params[w->col.group[t]];
        if (flock_no_walk_group(k)) {
            /* Nothing to walk: no cell, no ranges, empty sums; such rows
             * side by side are finished together. */
            uint32_t stop = t + 1;
            while (stop < end && stop - t < FLOCK_RUN_MAX &&
                   flock_no_walk_row(w, stop))
                stop++;
            steer_finish_rows(w, t, stop, no_sums, NULL, dt, 0);
            t = stop;
            continue;
        }
        int32_t c[3], d[3];
        flock_cell_of(w, t, c);
        uint32_t stop = t + 1;
        for (; stop < end && stop - t < FLOCK_RUN_MAX; stop++) {
            flock_cell_of(w, stop, d);
            if (d[0] != c[0] || d[1] != c[1] || d[2] != c[2])
                break;
        }
        if (!have_last || c[0] != last[0] || c[1] != last[1] ||
            c[2] != last[2]) {
            range_count = grid_ranges(&w->grid, c[0], c[1], c[2], ranges);
            memcpy(last, c, sizeof last);
            have_last = 1;
            blk.prepared = 0;
        }
        flock_run run = { .w = w,
                          .ranges = ranges,
                          .range_count = range_count,
                          .begin = t,
                          .end = stop,
                          .dt = dt };
        flock_accumulate_scalar(&run, &blk, sums, counts);
        steer_finish_rows(w, t, stop, sums, NULL, dt, 0);
        t = stop;
    }
}

typedef struct flock_ctx {
    throng_world *w;
    float dt;
} flock_ctx;

static void flock_chunk(void *ctx, uint32_t begin, uint32_t end, int thread) {
    flock_ctx *fc = ctx;
    throng_world *w = fc->w;
    flock_counts counts = { 0, 0 };
    w->kernel(w, begin, end, fc->dt, &counts);
    w->counters[thread].candidates += counts.candidates;
    w->counters[thread].neighbours += counts.neighbours;
}

void steer_flock(throng_world *w, parallel_sched *sched, float dt) {
    flock_ctx ctx = { .w = w, .dt = dt };
    w->any_scalar_rows = 0;
    w->any_recipe = 0;
    for (uint32_t g = 0; g < w->group_count; g++) {
        const group_kernel_params *k = &w->group_params[g];
        w->any_recipe |= k->recipe;
        w->any_scalar_rows |= flock_scalar_group(k);
    }
    uint32_t grain = w->count / (8u * (uint32_t)sched->threads);
    grain = grain < FLOCK_GRAIN_MIN ? FLOCK_GRAIN_MIN : grain;
    grain = grain > FLOCK_GRAIN_MAX ? FLOCK_GRAIN_MAX : grain;
    cap_index_build(w, sched);
    parallel_for(sched, w->count, grain, flock_chunk, &ctx);
    cap_index_drop(w);
}
