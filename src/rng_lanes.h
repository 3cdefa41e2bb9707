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

/* rng_agent_step() on every lane, in place: h holds one agent key a lane
 * and becomes its chain; the seed's link (rng_seed_key()) is shared. */
static inline void rng_agent_step_lanes(vu64 *h, uint64_t seed_key,
                                        uint64_t step) {
    *h ^= seed_key;
    rng_mix_lanes(h);
    *h ^= step;
    rng_mix_lanes(h);
}

/* rng_symmetric_from() on every lane: the stream's bits from each lane's
 * chain, their top 24 bits centred and scaled (exact in int32 and in
 * float). */
static inline vf rng_symmetric_from_lanes(const vu64 *chain, uint32_t stream) {
    vu64 h = *chain ^ (uint64_t)stream;
    rng_mix_lanes(&h);
    const vi top = __builtin_convertvector(h >> 40, vi);
    return __builtin_convertvector(top - (1 << 23), vf) *
           vset1(1.0f / 8388608.0f);
}

/* rng_symmetric() for one agent key per lane. */
static inline vf rng_symmetric_lanes(uint64_t seed, const uint64_t agent[W],
                                     uint64_t step, uint32_t stream) {
    vu64 chain;
    memcpy(&chain, agent, sizeof chain);
    rng_agent_step_lanes(&chain, rng_seed_key(seed), step);
    return rng_symmetric_from_lanes(&chain, stream);
}
