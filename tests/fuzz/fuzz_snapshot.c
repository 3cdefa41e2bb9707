/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for snapshot loading: the input bytes are handed to
 * throng_world_load as they are. A refusal must create no world; a world
 * that loads must step to finite states, and its snapshot must be a fixed
 * point: save(load(save(x))) == save(x), byte for byte but for the saving
 * world's id (each load makes a new world) and so the checksum.
 *
 * Almost every mutated input fails the checksum, which the fuzzer cannot
 * solve, so each input is loaded twice: as it is (the checksum and the
 * header checks are under test too), and then, when they differ, with its
 * length and checksum rewritten to match, which reaches every check
 * behind them.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "throng.h"

#define HEADER_BYTES 40u
#define LENGTH_AT 24u
#define CHECKSUM_AT 32u
#define WORLD_ID_AT 112u /* format version 3, as this library writes */
#define STEPS 3

#define REQUIRE(cond)                                                         \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "fuzz_snapshot: %s:%d: %s\n", __FILE__, __LINE__, \
                    #cond);                                                   \
            abort();                                                          \
        }                                                                     \
    } while (0)

static int is_finite(float x) {
    return x == x && x - x == 0.0f;
}

static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

/* Writes the header's length and checksum to match the bytes. */
static void reseal(uint8_t *s, size_t n) {
    uint64_t length = n;
    for (unsigned k = 0; k < 8u; k++)
        s[LENGTH_AT + k] = (uint8_t)(length >> (8u * k));
    uint64_t h = fnv(0xCBF29CE484222325ull, s, CHECKSUM_AT);
    h = fnv(h, s + HEADER_BYTES, n - HEADER_BYTES);
    for (unsigned k = 0; k < 8u; k++)
        s[CHECKSUM_AT + k] = (uint8_t)(h >> (8u * k));
}

static uint8_t *save(const throng_world *w, size_t *out_size) {
    size_t size = 0, written = 0;
    REQUIRE(throng_world_snapshot_size(w, &size) == THRONG_OK);
    uint8_t *buffer = malloc(size);
    REQUIRE(buffer != NULL);
    REQUIRE(throng_world_save(w, buffer, size, &written) == THRONG_OK);
    REQUIRE(written == size);
    *out_size = size;
    return buffer;
}

/* Two snapshots this library wrote of worlds in the same state: equal but
 * for the checksum and the saving world's id, which is the world's own. */
static int same_state(const uint8_t *a, size_t na, const uint8_t *b, size_t nb,
                      const throng_world *wb) {
    uint64_t id = 0;
    if (na != nb || na < WORLD_ID_AT + 8u)
        return 0;
    for (unsigned k = 0; k < 8u; k++)
        id |= (uint64_t)b[WORLD_ID_AT + k] << (8u * k);
    return id == throng_world_id(wb) && memcmp(a, b, CHECKSUM_AT) == 0 &&
           memcmp(a + HEADER_BYTES, b + HEADER_BYTES,
                  WORLD_ID_AT - HEADER_BYTES) == 0 &&
           memcmp(a + WORLD_ID_AT + 8u, b + WORLD_ID_AT + 8u,
                  na - WORLD_ID_AT - 8u) == 0;
}

static void check_finite(const throng_world *w) {
    throng_columns c;
    REQUIRE(throng_world_columns(w, &c) == THRONG_OK);
    REQUIRE(c.count == throng_world_agent_count(w));
    int dims = throng_world_dimensions(w);
    for (uint32_t i = 0; i < c.count; i++) {
        REQUIRE(is_finite(c.px[i]) && is_finite(c.py[i]));
        REQUIRE(is_finite(c.vx[i]) && is_finite(c.vy[i]));
        if (dims == 3)
            REQUIRE(is_finite(c.pz[i]) && is_finite(c.vz[i]));
    }
}

static void run(const uint8_t *input, size_t size) {
    throng_world *w = (throng_world *)&w; /* must be overwritten */
    char why[160];
    throng_world_load_def def = throng_world_load_def_default();
    def.error = why;
    def.error_capacity = sizeof why;
    throng_status st = throng_world_load(input, size, &def, &w);
    if (st != THRONG_OK) {
        REQUIRE(w == NULL);
        REQUIRE(memchr(why, 0, sizeof why) != NULL && why[0] != 0);
        return;
    }
    REQUIRE(w != NULL);
    REQUIRE(why[0] == 0);
    int dims = throng_world_dimensions(w);
    REQUIRE(dims == 2 || dims == 3);

    /* The fixed point, before any step. */
    size_t n1 = 0, n2 = 0;
    uint8_t *s1 = save(w, &n1);
    throng_world *again = NULL;
    REQUIRE(throng_world_load(s1, n1, NULL, &again) == THRONG_OK);
    REQUIRE(throng_world_hash(again) == throng_world_hash(w));
    uint8_t *s2 = save(again, &n2);
    REQUIRE(same_state(s1, n1, s2, n2, again));
    free(s1);
    free(s2);

    /* Both continue alike, and stay finite. */
    check_finite(w);
    for (int k = 0; k < STEPS; k++) {
        float dt = k == 0 ? 0.1f : 1.0f / 60.0f;
        REQUIRE(throng_world_step(w, dt) == THRONG_OK);
        REQUIRE(throng_world_step(again, dt) == THRONG_OK);
        check_finite(w);
    }
    REQUIRE(throng_world_hash(again) == throng_world_hash(w));
    throng_world_destroy(again);

    /* And after stepping, the fixed point once more. */
    s1 = save(w, &n1);
    REQUIRE(throng_world_load(s1, n1, NULL, &again) == THRONG_OK);
    s2 = save(again, &n2);
    REQUIRE(same_state(s1, n1, s2, n2, again));
    free(s1);
    free(s2);
    throng_world_destroy(again);
    throng_world_destroy(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* A copy, so an overread past the input's end is caught exactly. */
    uint8_t *input = malloc(size ? size : 1u);
    REQUIRE(input != NULL);
    if (size)
        memcpy(input, data, size);
    run(input, size);
    if (size >= HEADER_BYTES) {
        reseal(input, size);
        if (memcmp(input, data, size) != 0)
            run(input, size);
    }
    free(input);
    return 0;
}
