/* SPDX-License-Identifier: MIT */
/*
 * The integrate stage's vector twins (integrate_simd.inc), one per
 * instruction set; integrate.c holds the scalar rows they fall back to.
 */
#ifndef THRONG_INTEGRATE_H
#define THRONG_INTEGRATE_H

#include "internal.h"

void integrate_3d_sse2(throng_world *w, uint32_t begin, uint32_t end, float dt);
void integrate_3d_avx2(throng_world *w, uint32_t begin, uint32_t end, float dt);
void integrate_3d_avx512(throng_world *w, uint32_t begin, uint32_t end,
                         float dt);
void integrate_2d_sse2(throng_world *w, uint32_t begin, uint32_t end, float dt);
void integrate_2d_avx2(throng_world *w, uint32_t begin, uint32_t end, float dt);
void integrate_2d_avx512(throng_world *w, uint32_t begin, uint32_t end,
                         float dt);
void integrate_3d_neon(throng_world *w, uint32_t begin, uint32_t end, float dt);
void integrate_2d_neon(throng_world *w, uint32_t begin, uint32_t end, float dt);
void integrate_3d_wasm(throng_world *w, uint32_t begin, uint32_t end, float dt);
void integrate_2d_wasm(throng_world *w, uint32_t begin, uint32_t end, float dt);
/* The velocity stage's two halves of the 2D integration on the lanes:
 * every row's preferred velocity into its force slot, then the move with
 * the velocity in that slot (integrate_velocity_2d() and
 * integrate_place_2d() over rows [begin, end), the same bits). */
void integrate_velocity_rows_2d_sse2(throng_world *w, uint32_t begin,
                                     uint32_t end, float dt);
void integrate_place_rows_2d_sse2(throng_world *w, uint32_t begin, uint32_t end,
                                  float dt);
void integrate_velocity_rows_2d_avx2(throng_world *w, uint32_t begin,
                                     uint32_t end, float dt);
void integrate_place_rows_2d_avx2(throng_world *w, uint32_t begin, uint32_t end,
                                  float dt);
void integrate_velocity_rows_2d_avx512(throng_world *w, uint32_t begin,
                                       uint32_t end, float dt);
void integrate_place_rows_2d_avx512(throng_world *w, uint32_t begin,
                                    uint32_t end, float dt);
void integrate_velocity_rows_2d_neon(throng_world *w, uint32_t begin,
                                     uint32_t end, float dt);
void integrate_place_rows_2d_neon(throng_world *w, uint32_t begin, uint32_t end,
                                  float dt);
void integrate_velocity_rows_2d_wasm(throng_world *w, uint32_t begin,
                                     uint32_t end, float dt);
void integrate_place_rows_2d_wasm(throng_world *w, uint32_t begin, uint32_t end,
                                  float dt);

/* The integration stage of the step, on the step's scheduler. */
void integrate(throng_world *world, parallel_sched *sched, float dt);
/* The exact scalar integration of one 2D row, every case handled. */
void integrate_row_2d(throng_world *world, uint32_t row, float dt);
void integrate_row_3d(throng_world *world, uint32_t row, float dt);
/* The two halves of a row's integration, for the velocity stage
 * (velocity.c): the preferred velocity v = truncate(v0 + (F / m) dt,
 * max_speed), reading only the row; then the move p += v dt with v
 * stored and the basis turned to it. integrate_row_* is the one after the
 * other, the same operations. */
void integrate_velocity_2d(const throng_world *world, uint32_t row, float dt,
                           float v[2]);
void integrate_velocity_3d(const throng_world *world, uint32_t row, float dt,
                           float v[3]);
void integrate_place_2d(throng_world *world, uint32_t row, float dt,
                        const float v[2]);
void integrate_place_3d(throng_world *world, uint32_t row, float dt,
                        const float v[3]);

/* Seed 000's truncate for a vector whose squared length is len2. A length
 * whose square overflowed, or a limit whose square is below the smallest
 * normal float (squares of such tiny values vanish), is measured on a copy
 * scaled by its largest component and compared with the limit there: the
 * length itself may overflow, and so may a large limit's square. */
static inline void truncate_vec(float *x, int dims, float len2, float limit) {
    const int tiny = limit * limit < FLT_MIN;
    if (len2 <= limit * limit && len2 <= FLT_MAX && !tiny)
        return;
    float len;
    if (len2 <= FLT_MAX && !tiny) {
        len = sqrtf(len2);
    } else {
        float big = 0.0f;
        for (int a = 0; a < dims; a++)
            big = fabsf(x[a]) > big ? fabsf(x[a]) : big;
        if (!(big > 0.0f))
            return;
        float sum = 0.0f;
        for (int a = 0; a < dims; a++)
            sum += (x[a] / big) * (x[a] / big);
        /* |x| = big * unit, unit in [1, sqrt(3)]. */
        float unit = sqrtf(sum);
        if (big <= limit / unit)
            return;
        for (int a = 0; a < dims; a++)
            x[a] = (x[a] / big) * (limit / unit);
        return;
    }
    float k = limit / len;
    for (int a = 0; a < dims; a++)
        x[a] = x[a] * k;
}

#endif /* THRONG_INTEGRATE_H */
