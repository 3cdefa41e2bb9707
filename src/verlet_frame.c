/* SPDX-License-Identifier: MIT */
/*
 * Whether a build's Verlet lists still hold.
 *
 * A list holds every row within L of its row where the build saw them
 * (L the lists' reach, given by verlet.c: the neighbour radius R plus
 * the skin s, padded). A pair left out was farther apart than L
 * then; it can have come within R since only if its two displacements
 * differ by more than L - R >= s. Verlet's test bounds the difference by
 * the two displacements' lengths: while every agent is within s / 2 of
 * where the build saw it, no pair has come within R.
 *
 * A crowd that moves together fails that test long before any pair could
 * meet: a ring closing on its centre (circle2d: every agent a quarter
 * metre a tick, each in its own direction, but neighbours alike), a
 * column marching, a flock turning. Write each displacement as an affine
 * map of where the agent stood plus what is left, d_i = A u_i + b + r_i
 * (u_i its position at the build less the rows' centre then). For a pair
 * left out, D = |u_i - u_j| > L, and
 *
 *     |d_i - d_j| <= |r_i| + |r_j| + |A| D <= 2 E + |A| D,
 *
 * E the largest |r|, |A| the map's Frobenius norm (no less than its
 * largest stretch). The pair is now at least D - 2 E - |A| D apart, which
 * is more than R for every D > L when 2 E + |A| L < L - R, which holds
 * when 2 E + |A| L <= s. Any A and b will do: with A = 0 and b = 0 this is
 * Verlet's test. A least-squares fit of the displacements gives a small
 * E where the crowd moves together, and the ring at 10,000 agents keeps
 * its first lists for a thousand ticks where it rebuilt them every
 * sixteenth.
 *
 * The fit is made when Verlet's test first fails, and its map and shift
 * grown in proportion to the ticks since the build; only when the grown
 * fit fails is it made again, and when the new one fails too the lists
 * are rebuilt. Where the crowd does not move together (its crossing),
 * that is one fit and one more pass over the rows a build.
 *
 * When the lists are rebuilt changes no state (verlet.c): ORCA's choice
 * does not depend on which candidates beyond its range are offered.
 * The sums are still taken over parts fixed by the row count alone, so
 * the same ticks rebuild on any thread count.
 */
#include "verlet_frame.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "internal.h"
#include "verlet.h"

/* The skin is cut by this share, so float rounding of the displacements
 * and distances never matters. */
#define FRAME_MARGIN (1.0 - 1.0 / 1024.0)

/* Rows per part of the passes, and the most parts. */
#define FRAME_ROWS_PER_PART 16384u
#define FRAME_MAX_PARTS 64u

/* A bound on the float rounding of a rest, as a share of the terms it
 * is made of (a few roundings of at most 2^-24 each, generously). */
#define FRAME_ROUNDING (32.0 / 16777216.0)

/* A spread this small against its trace (to the power of the dimension)
 * is taken as flat: the crowd stands on a line or a plane, and the map
 * is not fitted, only the shift. */
#define FRAME_FLAT 1e-9

static uint32_t frame_parts(uint32_t rows) {
    uint32_t parts = rows / FRAME_ROWS_PER_PART;
    parts = parts > FRAME_MAX_PARTS ? FRAME_MAX_PARTS : parts;
    return parts < 1u ? 1u : parts;
}

/* The sums a pass gathers, per part, added in part order. */
typedef struct frame_pass {
    const throng_world *w;
    const verlet_frame *f;
    int dims;
    float limit2; /* Verlet's test: the squared half skin */
    /* The map and shift to measure against, rounded to floats (the map
     * measured is the rounded one), the centre, and the squared rest a
     * row may keep; measure: whether to measure (else Verlet's test
     * alone), verlet: whether to take Verlet's test too. */
    float a[3][3], b[3], c[3], rest2;
    int measure, verlet;
    int sums; /* what sum_part() adds up */
    /* Per part, each written by its part before it is read (so not
     * cleared: a tick's test would clear some 7 KB for nothing). */
    uint32_t away[FRAME_MAX_PARTS];  /* rows past the half skin */
    uint32_t out[FRAME_MAX_PARTS];   /* rows whose rest is past rest2 */
    double sum[FRAME_MAX_PARTS][12]; /* sum_part()'s sums */
} frame_pass;

/* k's settings zeroed, for a pass over w's rows in its lists' frame. */
static frame_pass *frame_pass_begin(frame_pass *k, const throng_world *w) {
    memset(k, 0, offsetof(frame_pass, away));
    k->w = w;
    k->f = &w->verlet.frame;
    k->dims = w->dims;
    return k;
}

/* Row i's position and position at the build, as doubles (the third
 * axis 0 in the plane). */
static inline void frame_row(const throng_world *w, int dims, uint32_t i,
                             double p[3], double at[3]) {
    const agent_columns *c = &w->col;
    const verlet_lists *v = &w->verlet;
    p[0] = (double)c->px[i];
    p[1] = (double)c->py[i];
    at[0] = (double)v->at[0][i];
    at[1] = (double)v->at[1][i];
    p[2] = dims == 3 ? (double)c->pz[i] : 0.0;
    at[2] = dims == 3 ? (double)v->at[2][i] : 0.0;
}

/* On the part's rows: Verlet's test (NaN counts as away), and the rest
 * of each displacement after the map and shift against rest2 (NaN counts
 * as out), arithmetic and compares on the vector lanes. */
static void check_part(void *ctx, uint32_t part, uint32_t begin, uint32_t end,
                       int thread) {
    (void)thread;
    frame_pass *k = ctx;
    const throng_world *w = k->w;
    const verlet_lists *v = &w->verlet;
    const size_t n = end - begin;
    const float *restrict px = w->col.px + begin, *restrict py =
                                                      w->col.py + begin;
    const float *restrict ax = v->at[0] + begin, *restrict ay =
                                                     v->at[1] + begin;
    const float *restrict pz = k->dims == 3 ? w->col.pz + begin : NULL;
    const float *restrict az = k->dims == 3 ? v->at[2] + begin : NULL;
    const float limit2 = k->limit2;
    uint32_t away = 0;
    if (k->verlet && k->dims == 3) {
#pragma omp simd reduction(+ : away)
        for (size_t i = 0; i < n; i++) {
            const float dx = px[i] - ax[i], dy = py[i] - ay[i];
            const float dz = pz[i] - az[i];
            away += !(dx * dx + dy * dy + dz * dz <= limit2);
        }
    } else if (k->verlet) {
#pragma omp simd reduction(+ : away)
        for (size_t i = 0; i < n; i++) {
            const float dx = px[i] - ax[i], dy = py[i] - ay[i];
            away += !(dx * dx + dy * dy <= limit2);
        }
    }
    k->away[part] = away;
    if (!k->measure)
        return;
    const float c0 = k->c[0], c1 = k->c[1], c2 = k->c[2];
    const float b0 = k->b[0], b1 = k->b[1], b2 = k->b[2];
    const float a00 = k->a[0][0], a01 = k->a[0][1], a02 = k->a[0][2];
    const float a10 = k->a[1][0], a11 = k->a[1][1], a12 = k->a[1][2];
    const float a20 = k->a[2][0], a21 = k->a[2][1], a22 = k->a[2][2];
    const float rest2 = k->rest2;
    uint32_t out = 0;
    if (k->dims == 3) {
#pragma omp simd reduction(+ : out)
        for (size_t i = 0; i < n; i++) {
            const float ux = ax[i] - c0, uy = ay[i] - c1, uz = az[i] - c2;
            const float rx =
                (px[i] - ax[i]) - b0 - (a00 * ux + a01 * uy + a02 * uz);
            const float ry =
                (py[i] - ay[i]) - b1 - (a10 * ux + a11 * uy + a12 * uz);
            const float rz =
                (pz[i] - az[i]) - b2 - (a20 * ux + a21 * uy + a22 * uz);
            out += !(rx * rx + ry * ry + rz * rz <= rest2);
        }
    } else {
#pragma omp simd reduction(+ : out)
        for (size_t i = 0; i < n; i++) {
            const float ux = ax[i] - c0, uy = ay[i] - c1;
            const float rx = (px[i] - ax[i]) - b0 - (a00 * ux + a01 * uy);
            const float ry = (py[i] - ay[i]) - b1 - (a10 * ux + a11 * uy);
            out += !(rx * rx + ry * ry <= rest2);
        }
    }
    k->out[part] = out;
}

/* What a pass of sum_part() adds up. */
enum {
    SUM_POSITIONS, /* the positions at the build, into s[9 ..) */
    SUM_SPREAD,    /* u u^T into s[0 .. 9), the largest |u|^2 into s[9] */
    SUM_FIT        /* d u^T into s[0 .. 9), d into s[9 ..) */
};

/* The part's sums over its rows (u a row's position at the build less
 * the centre, d its displacement since), as k->sums says. */
static void sum_part(void *ctx, uint32_t part, uint32_t begin, uint32_t end,
                     int thread) {
    (void)thread;
    frame_pass *k = ctx;
    const int dims = k->dims;
    const double *c = k->f->centre;
    double *s = k->sum[part];
    memset(s, 0, sizeof k->sum[part]);
    for (uint32_t i = begin; i < end; i++) {
        double p[3] = { 0 }, at[3] = { 0 }, u[3], x[3];
        frame_row(k->w, dims, i, p, at);
        double u2 = 0.0;
        for (int e = 0; e < 3; e++) {
            u[e] = at[e] - c[e];
            x[e] = k->sums == SUM_FIT ? p[e] - at[e] : u[e];
            u2 += u[e] * u[e];
        }
        if (k->sums == SUM_POSITIONS) {
            for (int e = 0; e < dims; e++)
                s[9 + e] += at[e];
            continue;
        }
        for (int e = 0; e < dims; e++)
            for (int q = 0; q < dims; q++)
                s[3 * e + q] += x[e] * u[q];
        if (k->sums == SUM_SPREAD) {
            s[9] = u2 > s[9] ? u2 : s[9];
        } else {
            for (int e = 0; e < dims; e++)
                s[9 + e] += x[e];
        }
    }
}

/* The parts' sums added in part order, into out[12]. */
static void add_parts(const frame_pass *k, uint32_t parts, double out[12]) {
    memset(out, 0, 12 * sizeof *out);
    for (uint32_t p = 0; p < parts; p++)
        for (int e = 0; e < 12; e++)
            out[e] += k->sum[p][e];
}

void verlet_frame_start(throng_world *w, parallel_sched *sched) {
    verlet_frame *f = &w->verlet.frame;
    memset(f, 0, sizeof *f);
    const uint32_t rows = w->count, parts = frame_parts(rows);
    if (rows == 0)
        return;
    frame_pass pass;
    frame_pass *k = frame_pass_begin(&pass, w);
    double s[12];
    k->sums = SUM_POSITIONS;
    parallel_parts(sched, rows, parts, sum_part, k);
    add_parts(k, parts, s);
    for (int e = 0; e < w->dims; e++)
        f->centre[e] = s[9 + e] / (double)rows;
    k->sums = SUM_SPREAD;
    parallel_parts(sched, rows, parts, sum_part, k);
    double far2 = 0.0;
    for (uint32_t p = 0; p < parts; p++)
        far2 = k->sum[p][9] > far2 ? k->sum[p][9] : far2;
    f->farthest = sqrt(far2);
    add_parts(k, parts, s);
    for (int e = 0; e < 3; e++)
        for (int q = 0; q < 3; q++)
            f->spread[e][q] = s[3 * e + q];
}

/* The inverse of the spread into inv; 0 when it is flat (or not finite). */
static int spread_inverse(const verlet_frame *f, int dims, double inv[3][3]) {
    const double(*m)[3] = f->spread;
    double trace = 0.0;
    for (int e = 0; e < dims; e++)
        trace += m[e][e];
    memset(inv, 0, 9 * sizeof(double));
    if (dims == 2) {
        const double det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
        if (!(det > FRAME_FLAT * trace * trace))
            return 0;
        inv[0][0] = m[1][1] / det;
        inv[0][1] = -m[0][1] / det;
        inv[1][0] = -m[1][0] / det;
        inv[1][1] = m[0][0] / det;
        return 1;
    }
    for (int e = 0; e < 3; e++)
        for (int q = 0; q < 3; q++) {
            const int e1 = (q + 1) % 3, e2 = (q + 2) % 3;
            const int q1 = (e + 1) % 3, q2 = (e + 2) % 3;
            inv[e][q] = m[e1][q1] * m[e2][q2] - m[e1][q2] * m[e2][q1];
        }
    const double det =
        m[0][0] * inv[0][0] + m[0][1] * inv[1][0] + m[0][2] * inv[2][0];
    if (!(det > FRAME_FLAT * trace * trace * trace))
        return 0;
    for (int e = 0; e < 3; e++)
        for (int q = 0; q < 3; q++)
            inv[e][q] /= det;
    return 1;
}

/* Readies k to measure against the map A and shift b (doubles): rounds
 * them to floats and sets the rest a row may keep, E, so that
 * 2 E + |A| L stays within the skin for the rounded map, less a bound on
 * the float rounding of the rests (the few roundings of each term, at
 * most 2^-24 of its size each, for rows whose rest is within E: their
 * displacement is then at most |b| + |A| U + E, U the farthest row from
 * the centre). Returns 0 when no rest is left to keep. */
static int frame_aim(frame_pass *k, double a[3][3], const double b[3],
                     double reach, double skin) {
    const verlet_frame *f = k->f;
    double norm2 = 0.0, shift2 = 0.0;
    for (int e = 0; e < 3; e++) {
        k->b[e] = e < k->dims ? (float)b[e] : 0.0f;
        k->c[e] = e < k->dims ? (float)f->centre[e] : 0.0f;
        shift2 += (double)k->b[e] * (double)k->b[e];
        for (int q = 0; q < 3; q++) {
            k->a[e][q] = e < k->dims && q < k->dims ? (float)a[e][q] : 0.0f;
            norm2 += (double)k->a[e][q] * (double)k->a[e][q];
        }
    }
    double centre2 = 0.0;
    for (int e = 0; e < k->dims; e++)
        centre2 += f->centre[e] * f->centre[e];
    /* The farthest row from the centre as rounded. */
    const double farthest = f->farthest + sqrt(centre2) / 8388608.0;
    const double norm = sqrt(norm2);
    const double rest = 0.5 * (skin * FRAME_MARGIN - norm * reach);
    const double slack =
        FRAME_ROUNDING * (rest + 2.0 * (sqrt(shift2) + norm * farthest));
    const double keep = rest - slack;
    if (!(keep > 0.0) || !(keep < 1e18))
        return 0;
    k->rest2 = nextafterf((float)(keep * keep), 0.0f);
    k->measure = 1;
    return 1;
}

/* Rows the last pass found away, or out. */
static uint32_t frame_count(const uint32_t *counts, uint32_t parts) {
    uint32_t n = 0;
    for (uint32_t p = 0; p < parts; p++)
        n += counts[p];
    return n;
}

int verlet_frame_holds(throng_world *w, parallel_sched *sched, double reach) {
    verlet_lists *v = &w->verlet;
    verlet_frame *f = &v->frame;
    if (!v->valid || v->rows != w->count)
        return 0;
    const uint32_t rows = w->count, parts = frame_parts(rows);
    const uint32_t ticks = f->ticks + 1u;
    const double skin = (double)v->skin;
    const double half = 0.5 * skin * FRAME_MARGIN;
    frame_pass pass;
    frame_pass *k = frame_pass_begin(&pass, w);
    k->limit2 = (float)(half * half);
    double a[3][3] = { { 0.0 } }, b[3] = { 0.0 };
    /* Verlet's test until a fit is made; then the fit, grown to this
     * tick, alone (one pass over the rows a tick). */
    if (f->fitted) {
        for (int e = 0; e < 3; e++) {
            b[e] = f->rate_b[e] * (double)ticks;
            for (int q = 0; q < 3; q++)
                a[e][q] = f->rate_a[e][q] * (double)ticks;
        }
        (void)frame_aim(k, a, b, reach, skin);
    } else {
        k->verlet = 1;
    }
    if (k->verlet || k->measure) {
        parallel_parts(sched, rows, parts, check_part, k);
        if (sched->failed)
            return 0;
        if ((k->verlet && frame_count(k->away, parts) == 0) ||
            (k->measure && frame_count(k->out, parts) == 0)) {
            f->ticks = ticks;
            return 1;
        }
    }
    /* A fit of this tick's displacements: b their mean, A = C M^-1 with
     * C the sum of d u^T and M the spread (u sums to nothing, so b and A
     * part). A flat crowd keeps A = 0. */
    double s[12], inv[3][3];
    k->sums = SUM_FIT;
    parallel_parts(sched, rows, parts, sum_part, k);
    if (sched->failed)
        return 0;
    add_parts(k, parts, s);
    memset(a, 0, sizeof a);
    const int dims = w->dims;
    if (spread_inverse(f, dims, inv))
        for (int e = 0; e < dims; e++)
            for (int q = 0; q < dims; q++)
                for (int t = 0; t < dims; t++)
                    a[e][q] += s[3 * e + t] * inv[t][q];
    for (int e = 0; e < dims; e++)
        b[e] = s[9 + e] / (double)rows;
    k->verlet = 0;
    k->measure = 0;
    if (!frame_aim(k, a, b, reach, skin))
        return 0;
    parallel_parts(sched, rows, parts, check_part, k);
    if (sched->failed || frame_count(k->out, parts) != 0)
        return 0;
    for (int e = 0; e < 3; e++) {
        f->rate_b[e] = b[e] / (double)ticks;
        for (int q = 0; q < 3; q++)
            f->rate_a[e][q] = a[e][q] / (double)ticks;
    }
    f->fitted = 1;
    f->ticks = ticks;
    return 1;
}
