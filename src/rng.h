/* SPDX-License-Identifier: MIT */
/*
 * Counter-based random numbers: a number is a pure function of (seed,
 * agent, step, stream), so it does not matter which thread draws it, in
 * which order, or whether earlier numbers were drawn at all. That is what
 * keeps random behaviours bit-identical for any thread count; a shared
 * generator with state would hand numbers out in scheduling order.
 *
 * The function chains the splitmix64 finaliser (a bijective 64-bit mixer
 * with full avalanche) over the four inputs; it is not cryptographic, and
 * need not be.
 */
#ifndef THRONG_RNG_H
#define THRONG_RNG_H

#include <stdint.h>

/* Streams: one per use, so two behaviours of one agent never draw the
 * same number. */
enum {
    RNG_STREAM_WANDER = 1,
    RNG_STREAM_WANDER_PITCH = 2,
    /* Projected-circle wander: the angle (2D), the jitter vector (3D). */
    RNG_STREAM_CIRCLE_X = 3,
    RNG_STREAM_CIRCLE_Y = 4,
    RNG_STREAM_CIRCLE_Z = 5,
    /* The velocity stage's nudge of the preferred velocity, per axis. */
    RNG_STREAM_ORCA_X = 6,
    RNG_STREAM_ORCA_Y = 7,
    RNG_STREAM_ORCA_Z = 8,
};

static inline uint64_t rng_mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}

/* The first link of the chain, which depends on the seed alone (vector
 * code draws for many agents from one). */
static inline uint64_t rng_seed_key(uint64_t seed) {
    return rng_mix(seed + 0x9E3779B97F4A7C15ull);
}

/* The chain up to the stream: what draws of several streams for one
 * agent and step share (rng_symmetric_from()). */
static inline uint64_t rng_agent_step(uint64_t seed, uint64_t agent,
                                      uint64_t step) {
    uint64_t h = rng_seed_key(seed);
    h = rng_mix(h ^ agent);
    return rng_mix(h ^ step);
}

static inline uint64_t rng_bits(uint64_t seed, uint64_t agent, uint64_t step,
                                uint32_t stream) {
    return rng_mix(rng_agent_step(seed, agent, step) ^ stream);
}

/* Uniform in [-1, 1), on a grid of 2^-23, from a stream's bits. */
static inline float rng_symmetric_of(uint64_t h) {
    return (float)(int32_t)((uint32_t)(h >> 40) - (1u << 23)) *
           (1.0f / 8388608.0f);
}

static inline float rng_symmetric(uint64_t seed, uint64_t agent, uint64_t step,
                                  uint32_t stream) {
    return rng_symmetric_of(rng_bits(seed, agent, step, stream));
}

/* rng_symmetric() of a stream, from rng_agent_step()'s chain. */
static inline float rng_symmetric_from(uint64_t chain, uint32_t stream) {
    return rng_symmetric_of(rng_mix(chain ^ stream));
}

#endif /* THRONG_RNG_H */
