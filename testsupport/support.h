/* SPDX-License-Identifier: MIT */
/*
 * What the tests, the fuzz harnesses, the soak and the bench share to
 * build and watch worlds, written once:
 *
 * - splitmix64, the small seeded generator every scene layout and random
 *   test input comes from (its finaliser is the library's own rng_mix,
 *   src/rng.h, so the tree holds one copy of the mixer);
 * - ts_heap, a checking and counting allocator for throng_allocator: it
 *   counts live bytes and blocks, peak and largest request, catches a
 *   free with the wrong size, of a pointer not live, or a bad alignment,
 *   and refuses requests on demand (the k-th from now, every one, or any
 *   above a size) so out-of-memory paths can be walked;
 * - world builders: the default world def with dimensions, threads and
 *   allocator set, and a world made from a def or NULL;
 * - behaviour parameters drawn from the behaviour schema
 *   (src/behaviour_schema.h, walked through src/schema.h): a field's
 *   address, a value stored in it, a value inside its range, and whole
 *   random flockings, wanders and behaviours, so no program names a
 *   parameter and a new row in the table reaches the fuzzer and the soak
 *   without a change to either.
 *
 * Nothing here prints unless asked (abort_on_misuse), so any program can
 * link it.
 */
#ifndef THRONG_TESTSUPPORT_H
#define THRONG_TESTSUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rng.h"
#include "throng.h"

/* ------------------------------------------------------------------------ */
/* splitmix64                                                               */
/* ------------------------------------------------------------------------ */

/* The next number of the stream whose state is *state (any seed, 0 too). */
static inline uint64_t ts_splitmix64(uint64_t *state) {
    return rng_mix(*state += 0x9E3779B97F4A7C15ull);
}

/* Uniform in [0, 1), 53 random bits. */
static inline double ts_unit(uint64_t *state) {
    return (double)(ts_splitmix64(state) >> 11) * 0x1.0p-53;
}

/* ------------------------------------------------------------------------ */
/* The checking, counting allocator                                         */
/* ------------------------------------------------------------------------ */

typedef struct ts_block ts_block;

/* Zeroed (= {0}), a heap grants every request and counts. */
typedef struct ts_heap {
    /* Settings, set by the caller. */
    size_t limit;         /* refuse any request above this many bytes; 0:
                           * none (counted in over_limit, not injected) */
    bool poison;          /* fill fresh blocks with 0xA5, so a read of
                           * memory never written shows up as a difference */
    bool abort_on_misuse; /* abort() at the first misuse (for fuzzers) */
    bool refuse_all;      /* refuse every request */
    /* Injection, set by ts_heap_arm. */
    bool armed; /* refuse the request after `grant` more granted */
    uint64_t grant;
    bool refuse_rest; /* after that refusal, set refuse_all */

    /* Counts. */
    size_t live;         /* bytes requested and not yet freed */
    size_t peak;         /* the most `live` has been */
    size_t largest;      /* the largest request, granted or not */
    uint32_t blocks;     /* blocks live */
    uint64_t allocs;     /* requests granted since ts_heap_count */
    uint64_t frees;      /* blocks freed since ts_heap_count */
    uint64_t injected;   /* refusals by refuse_all or arming */
    uint64_t over_limit; /* refusals by the limit */
    /* Misuse: each counted in violations too, the first one described. */
    uint64_t bad_frees; /* wrong size, or a pointer that is not live */
    uint64_t bad_align; /* alignment not a power of two <= 64, or size 0 */
    uint64_t violations;
    char first_violation[160];

    ts_block *list; /* the live blocks */
} ts_heap;

/* The throng_allocator functions; `user` is the ts_heap. */
void *ts_heap_alloc(size_t size, size_t alignment, void *user);
void ts_heap_free(void *ptr, size_t size, void *user);

/* An allocator drawing on `heap`. */
throng_allocator ts_heap_allocator(ts_heap *heap);

/* Counts requests anew (allocs, frees, injected) and refuses none. */
void ts_heap_count(ts_heap *heap);

/* Refuses the k-th request from now (0: the next one), and with `rest`
 * every request after it too; counts anew. */
void ts_heap_arm(ts_heap *heap, uint64_t k, bool rest);

/* Frees every block still live (what a leak left), so the next case
 * starts empty; the byte and block counts go back to 0. */
void ts_heap_release(ts_heap *heap);

/* ------------------------------------------------------------------------ */
/* World builders                                                           */
/* ------------------------------------------------------------------------ */

/* throng_world_def_default() with `dimensions` and `threads` set, and
 * allocating through `heap` when it is not NULL. */
throng_world_def ts_world_def(int dimensions, int threads, ts_heap *heap);

/* Makes def's world periodic, a cube of edge `box` metres. */
void ts_world_def_periodic(throng_world_def *def, float box);

/* A world made from def; NULL when the library refuses it. */
throng_world *ts_world_make(const throng_world_def *def);

/* A world of ts_world_def(dimensions, threads, heap); NULL if refused. */
throng_world *ts_world(int dimensions, int threads, ts_heap *heap);

/* ------------------------------------------------------------------------ */
/* Behaviour parameters from the schema                                     */
/* ------------------------------------------------------------------------ */

/* A descriptor of src/schema.h (schema_fields[]); the programs that walk
 * the table include that header. */
struct schema_field;

/* Whether the struct of schema set `set` has field f: a flocking or
 * wander field, or a behaviour's common field or one of its kind's union
 * member (read or not). */
int ts_schema_has(const struct schema_field *f, int set, int kind);

/* Stores v in component k of field f, converted to the field's type
 * (clamped to what the type holds; a float beyond FLT_MAX becomes an
 * infinity; a bool is v != 0). Not for handles. */
void ts_schema_store(const struct schema_field *f, void *base, int k, double v);

/* A value inside field f's range for u in [0, 1), spread evenly over it
 * (whole numbers for the integer types), where a side beyond +-scale
 * stops there (lengths up to 1e9 metres and weights up to FLT_MAX are
 * drawn up to `scale`); the SCHEMA_NBR bound is neighbour_radius; with
 * SCHEMA_ZERO the lowest fifth of u gives 0. A float never lands on an
 * open bound. Not for handles. */
double ts_schema_in_range(const struct schema_field *f, double u, double scale,
                          float neighbour_radius);

/* The throng_object_kind a handle field names (its unit: "path",
 * "flow field"); 0 when the unit names none. */
int ts_schema_object_kind(const struct schema_field *f);

/* How ts_schema_random draws. */
typedef struct ts_schema_draw {
    uint64_t *rng;          /* the splitmix64 stream */
    double scale;           /* see ts_schema_in_range */
    float neighbour_radius; /* the world's */
    /* A live object of `kind` (a throng_object_kind) for a handle field;
     * NULL leaves handles null. */
    throng_object (*object)(int kind, void *user);
    void *user;
} ts_schema_draw;

/* Fills the struct of schema set `set` (SCHEMA_SET_FLOCKING, _WANDER or
 * _BEHAVIOUR, src/schema.h) at base with random values in range: every
 * field read (by a behaviour of `kind`, its `when` conditions honoured)
 * drawn, every other field at its default, the SCHEMA_LT_NEXT pairs in
 * order in every component. */
void ts_schema_random(int set, void *base, int kind, const ts_schema_draw *d);

/* Points every handle field the behaviour at b reads at d->object's
 * choice; how many there are. */
int ts_schema_reroute(throng_behaviour *b, const ts_schema_draw *d);

#endif /* THRONG_TESTSUPPORT_H */
