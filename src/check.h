/* SPDX-License-Identifier: MIT */
/*
 * The first tier of checks: cheap asserts on internal invariants.
 *
 * INVARIANT(cond, what) states something the library's own code keeps
 * true (a cell range inside the sorted rows, a row below the count, a
 * group id below the group count), never something a caller passes in:
 * bad input is refused with a status and a sentence, and never reaches an
 * INVARIANT. So a broken invariant is a bug in the library, and a build
 * that checks them stops at once, printing where and what ("throng:
 * internal invariant broken at src/grid.c:640: cell_start ends at the
 * agent count (g->cell_start[buckets] == n)"), before the broken state
 * spreads through a step and shows up far away as a wrong number.
 *
 * Checked builds define THRONG_CHECKS: the library the tests link, and
 * every build that is never released (SAN=..., VALIDATE=1). Elsewhere
 * (`make`, install, the bench, perf-check) an INVARIANT compiles to
 * nothing: its condition is not evaluated, not even for side effects
 * (so it must have none), and the release code is the same instruction
 * for instruction as without it. The condition is still type-checked
 * there, so a variable read only by an INVARIANT is not "unused".
 *
 * Cheap means O(1) per call, or O(1) per row in a loop that already
 * costs more: anything that rescans the world belongs to the second tier,
 * the validation sweep after each step stage (validate.c, VALIDATE=1).
 * This header is the lowest layer's: it includes only the C library.
 */
#ifndef THRONG_CHECK_H
#define THRONG_CHECK_H

#ifdef THRONG_CHECKS

#include <stdio.h>
#include <stdlib.h>

__attribute__((noreturn, cold)) static inline void
invariant_broken(const char *file, int line, const char *what,
                 const char *cond) {
    fprintf(stderr, "throng: internal invariant broken at %s:%d: %s (%s)\n",
            file, line, what, cond);
    fflush(stderr);
    abort();
}

#define INVARIANT(cond, what) \
    ((cond) ? (void)0 : invariant_broken(__FILE__, __LINE__, what, #cond))

#else

#define INVARIANT(cond, what) ((void)sizeof((cond) ? 1 : 0))

#endif

#endif /* THRONG_CHECK_H */
