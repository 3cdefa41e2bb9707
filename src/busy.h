/* SPDX-License-Identifier: MIT */
/*
 * The busy guard: every public function that takes a world holds it for
 * the length of the call, so a call that arrives while another call on
 * the same world is running is refused with THRONG_ERR_BUSY instead of
 * working on state the running call is halfway through changing.
 *
 * Two ways to get there, both misuse the library cannot otherwise stop:
 * a host callback of a running call (an allocator function, a task hook)
 * calling back into its world, and a second thread using a world the
 * first is using. The first is the dangerous one: a step that grows the
 * grid calls the allocator with rows half permuted, and an add made from
 * there would move the columns under the step's feet.
 *
 * One 32-bit word per world: the top bit is held by a call that changes
 * the world (a writer), the bits below count the calls that only read it
 * (readers). A writer enters with one compare-and-swap from 0, so it is
 * refused while any reader or writer is in; a reader enters with a
 * compare-and-swap from a count without the writer bit to that count plus
 * one, so it is refused while a writer is in. Readers therefore share a
 * world (several threads may read one world at the same time), and a read
 * during a write or a write during a read is refused. Nothing waits: a
 * refused call returns at once, so a callback calling into its own world
 * cannot deadlock, and it changes nothing, not even the world's last
 * error (the running call may be writing it). Since no one else touches
 * the word while the writer bit is set, a writer leaves with a plain
 * store; a reader leaves by taking its one back.
 *
 * It costs a writer one atomic read-modify-write per call and a reader
 * two, uncontended (the word sits in the world's first cache line), and
 * is on in every build: the misuse it catches would otherwise corrupt
 * memory silently in exactly the builds that do not check for it.
 *
 * Usage, the first line of a public function:
 *     WORLD_WRITE(w);            a status-returning call that changes w
 *     WORLD_READ(w);             a status-returning call that only reads
 *     WORLD_READ_OR(w, value);   a reader that returns `value` when busy
 * A NULL world passes through, for the function's own NULL check. The
 * guard is released when the function returns, on every path, by the
 * cleanup attribute of GCC and clang.
 *
 * The library never calls a public function on a world one of its calls
 * holds: a writer calling a writer would refuse itself. (A load calls the
 * group setters on the world it is building, which no one holds yet; a
 * call that needs another's work on its own world calls the internal
 * function beneath it, as throng_world_create calls group_add.)
 */
#ifndef THRONG_BUSY_H
#define THRONG_BUSY_H

#include <stdatomic.h>
#include <stdint.h>

#include "internal.h"

/* The writer's bit; the readers' count is below it. 2^31 concurrent
 * readers cannot happen, so the count never reaches it. */
#define BUSY_WRITER (1u << 31)

/* What a function holds: what to give back (BUSY_WRITER, 1 for a reader,
 * 0 for nothing), and whether it was refused. */
typedef struct busy_hold {
    _Atomic uint32_t *word;
    uint32_t held;
    int refused;
} busy_hold;

static inline _Atomic uint32_t *busy_word(const throng_world *w) {
    return &((throng_world *)(uintptr_t)w)->busy;
}

static inline busy_hold busy_write(const throng_world *w) {
    busy_hold hold = { NULL, 0u, 0 };
    if (!w)
        return hold;
    _Atomic uint32_t *word = busy_word(w);
    uint32_t idle = 0u;
    if (atomic_compare_exchange_strong_explicit(word, &idle, BUSY_WRITER,
                                                memory_order_acquire,
                                                memory_order_relaxed)) {
        hold.word = word;
        hold.held = BUSY_WRITER;
    } else {
        hold.refused = 1;
    }
    return hold;
}

static inline busy_hold busy_read(const throng_world *w) {
    busy_hold hold = { NULL, 0u, 0 };
    if (!w)
        return hold;
    _Atomic uint32_t *word = busy_word(w);
    uint32_t seen = atomic_load_explicit(word, memory_order_relaxed);
    do {
        if (seen & BUSY_WRITER) {
            hold.refused = 1;
            return hold;
        }
        /* A failed swap (another reader came or went) reloads `seen`. */
    } while (!atomic_compare_exchange_weak_explicit(
        word, &seen, seen + 1u, memory_order_acquire, memory_order_relaxed));
    hold.word = word;
    hold.held = 1u;
    return hold;
}

static inline void busy_release(const busy_hold *hold) {
    if (hold->held == BUSY_WRITER)
        atomic_store_explicit(hold->word, 0u, memory_order_release);
    else if (hold->held)
        atomic_fetch_sub_explicit(hold->word, 1u, memory_order_release);
}

#define WORLD_GUARD(acquire, w, busy_value)                             \
    __attribute__((cleanup(busy_release))) const busy_hold busy_hold_ = \
        acquire(w);                                                     \
    if (busy_hold_.refused)                                             \
    return (busy_value)

#define WORLD_WRITE(w) WORLD_GUARD(busy_write, (w), THRONG_ERR_BUSY)
#define WORLD_READ(w) WORLD_GUARD(busy_read, (w), THRONG_ERR_BUSY)
#define WORLD_READ_OR(w, value) WORLD_GUARD(busy_read, (w), (value))

/* The opening every entry point that changes the world shares: the write
 * guard, and THRONG_ERR_NULL for a NULL world. */
#define WRITE_ENTRY(w) \
    WORLD_WRITE(w);    \
    if (!(w))          \
    return THRONG_ERR_NULL

/* The opening every read-only entry point that answers through a pointer
 * shares: the read guard, `w` (the world made writable for its refusal
 * sentence), THRONG_ERR_NULL for a NULL world, and a NULL `out` refused
 * with null_fail's sentence naming it `out_name`. */
#define READ_ENTRY(cw, w, fn, out, out_name)             \
    WORLD_READ(cw);                                      \
    throng_world *(w) = (throng_world *)(uintptr_t)(cw); \
    if (!(w))                                            \
        return THRONG_ERR_NULL;                          \
    if (!(out))                                          \
    return null_fail(w, (fn), (out_name))

/* Destroy's guard, which it never gives back: 1 when the world was idle
 * and now belongs to the caller for good. */
static inline int busy_take_for_good(throng_world *w) {
    uint32_t idle = 0u;
    return atomic_compare_exchange_strong_explicit(
        busy_word(w), &idle, BUSY_WRITER, memory_order_acquire,
        memory_order_relaxed);
}

#endif /* THRONG_BUSY_H */
