/* SPDX-License-Identifier: MIT */
/*
 * rng.h's generator on the lanes of simd_lanes.h: W chains of 64 bits at
 * once, each lane the bits of the scalar functions. Included after
 * simd_lanes.h by the lane kernels that draw (steer_lanes_simd.inc,
 * orca_lanes_simd.inc); not a guarded header: each including file is
 * compiled once per instruction set.
 */
#include "rng.h"

/* W lanes of 64-bit integers. */
typedef uint64_t vu64 __attribute__((vector_size(W * 8)));

/* rng_mix() on every lane (in place: a vector this wide passed by value
 * would depend on the instruction set's calling convention). */
static inline void rng_mix_lanes(vu64 *x) {
    *x ^= *x >> 30;
    *x *= 0xBF58476D1CE4E5B9ull;
    *x ^= *x >> 27;
    *x *= 0x94D049BB133111EBull;
    *x ^= *x >> 31;
}

/* rng_symmetric_of() on every lane: the top 24 bits centred and scaled
 * (exact in int32 and in float). */
static inline vf rng_symmetric_of_lanes(const vu64 *h) {
    const vi top = __builtin_convertvector(*h >> 40, vi);
    return __builtin_convertvector(top - (1 << 23), vf) *
           vset1(1.0f / 8388608.0f);
}
