/*
 * The fused neighbour walk: separation, alignment and cohesion share one
 * pass over the candidates of the cells around each agent.
 *
 * The walk is split in two so that every kernel path (scalar, SSE2, AVX2,
 * AVX-512) computes the same bits: the accumulate step sums what each agent
 * sees, one candidate at a time in the grid's fixed candidate order, using
 * only IEEE additions, multiplications, divisions, square roots and
 * comparisons (no fused multiply-add, no reciprocal estimates); the finish
 * step, shared by every path, turns the sums into forces.
 */
#ifndef THRONG_STEER_FLOCK_H
#define THRONG_STEER_FLOCK_H

#include "internal.h"

/* What one agent saw in its neighbourhood. Offsets are relative to the
 * agent (nearest periodic image), so sums stay small and exact-ish however
 * far from the origin the crowd is. */
typedef struct flock_sums {
    float sep[3];   /* sum of offsets, or of -offset / d^2 (inverse mode) */
    float ali[3];   /* sum of neighbour velocities */
    float coh[3];   /* sum of offsets */
    uint32_t sep_n, ali_n, coh_n;
    /* Unaligned collision avoidance (filled by the scalar walk for groups
     * that use it): of the predicted collisions, the soonest one's time,
     * and the offset then from the neighbour to the agent; uca_n counts
     * the threats (0: none, and the rest is unset). */
    float uca_t;
    float uca_away[3];
    uint32_t uca_n;
} flock_sums;

/* Agents [begin, end) (rows, in cell order), all in one cell, and the
 * candidate ranges of that cell. */
typedef struct flock_run {
    const throng_world *w;
    const cell_range *ranges;
    int range_count;
    uint32_t begin, end;
    float dt;
} flock_run;

/* Counters a kernel adds to. */
typedef struct flock_counts {
    uint64_t candidates;
    uint64_t neighbours;
} flock_counts;

/* A kernel path: for rows [begin, end) (a chunk, in cell order), walks
 * each agent's candidates and writes its steering force (before
 * truncation) into the world's steer columns. How rows are grouped is the
 * path's own business; what each agent adds, and in which order, is not. */
typedef void (*flock_kernel_fn)(const throng_world *w, uint32_t begin,
                                uint32_t end, float dt, flock_counts *counts);

/* The plain reference: one agent, one candidate at a time. */
void flock_kernel_scalar(const throng_world *w, uint32_t begin, uint32_t end,
                         float dt, flock_counts *counts);

/* The vector paths, each built for its instruction set (steer_flock_simd.inc
 * compiled once per width). Absent in a scalar-only build. */
void flock_kernel_sse2(const throng_world *w, uint32_t begin, uint32_t end,
                       float dt, flock_counts *counts);
void flock_kernel_avx2(const throng_world *w, uint32_t begin, uint32_t end,
                       float dt, flock_counts *counts);
void flock_kernel_avx512(const throng_world *w, uint32_t begin, uint32_t end,
                         float dt, flock_counts *counts);

/* The cell coordinates of row t. */
static inline void flock_cell_of(const throng_world *w, uint32_t t,
                                 int32_t c[3]) {
    const grid *g = &w->grid;
    c[0] = grid_coord(g, 0, w->col.px[t]);
    c[1] = grid_coord(g, 1, w->col.py[t]);
    c[2] = g->dims == 3 ? grid_coord(g, 2, w->col.pz[t]) : 0;
}
/* Row t's group needs the scalar walk (its recipe tracks collisions, or
 * needs no walk at all); the vector paths hand such rows to
 * flock_kernel_scalar(). */
static inline int flock_scalar_row(const throng_world *w, uint32_t t) {
    const group_kernel_params *k = &w->group_params[w->col.group[t]];
    return (k->recipe && (k->uca || !k->walk)) || (k->cap && k->walk);
}

void integrate_2d_sse2(throng_world *w, uint32_t begin, uint32_t end, float dt);
void integrate_2d_avx2(throng_world *w, uint32_t begin, uint32_t end, float dt);
void integrate_2d_avx512(throng_world *w, uint32_t begin, uint32_t end,
                         float dt);

/* Pieces of the force epilogue that every path shares (scalar code, so all
 * paths compute them identically): */
/* v_desired = speed * x / |x|, or 0 when x is 0. */
void flock_desired_towards(const float x[3], float speed, float out[3]);
/* Adds wander's weighted force for row i to F and advances its state. */
void flock_wander(const throng_world *w, uint32_t i, float m_dt,
                  const float v[3], float F[3]);
/* Wander's unweighted force for row i; advances its state. */
void flock_wander_force(const throng_world *w, uint32_t i, float m_dt,
                        const float v[3], float out[3]);

#endif /* THRONG_STEER_FLOCK_H */
