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

#endif /* THRONG_INTEGRATE_H */
