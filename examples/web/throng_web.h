/* SPDX-License-Identifier: MIT */
/*
 * The C side of the browser page (examples/web/index.html): what its
 * JavaScript calls in the WebAssembly module `make web` builds from the
 * library, the scenario table (bench/scenarios.c) and throng_web.c.
 *
 * The page holds one world at a time, built by the scenario table's own
 * builder on one thread, so that a scene's state after N steps here is
 * the state throng-bench reaches for the same scene, agent count and
 * seed (`--threads 1 --warmup 0 --steps N`): the same hash, which the web
 * test (tests/web/web_test.js) compares with the native build's.
 *
 * Numbers cross the boundary as numbers, the columns as pointers into the
 * module's memory (read in place by the page), and everything else as
 * NUL-terminated strings: JSON for the page's menus and the world's
 * summary, owned here and valid until the next call that returns one.
 * Functions returning int return a throng_status (0 is THRONG_OK); after
 * a failure web_error() gives the sentence to show.
 */
#ifndef THRONG_WEB_H
#define THRONG_WEB_H

#include <stdint.h>

/* The scenes the page offers, as JSON: an array of objects with the
 * scenario's name, description, dimensions, dt (seconds), the page's
 * agent count to start from and its largest, and the controls: for each,
 * the scenario parameter it sets (name, value, unit, meaning, from
 * bench/scenarios.c) and the slider's min, max and step. NULL when out of
 * memory. */
const char *web_scenes(void);

/* Builds scene `name` with `agents` agents and `seed` (an integer below
 * 2^53, the largest a JavaScript number holds exactly) on the kernel path
 * `simd` ("auto", "scalar", "wasm", ...; NULL or "" for auto), replacing
 * the world held before (which stays when the build fails). */
int web_build(const char *name, uint32_t agents, double seed, const char *simd);

/* Sets one of the scene's controls (a parameter name web_scenes lists for
 * it) on every group the scene created. THRONG_ERR_NOT_FOUND for a name
 * the scene does not offer; the library's refusal for a value it
 * refuses, leaving the world as it was. */
int web_set(const char *param, double value);

/* Runs `steps` steps of the scene's dt, as the bench does (a goal scene
 * whose goals move on gets its new goals before each step). */
int web_step(uint32_t steps);

/* The columns the page draws, as 32-bit words at the returned address:
 * the agent count, then the addresses of the px, py, fx, fy (heading)
 * float columns and of the group id column. Read again after every step:
 * a step may move the columns. NULL when no world is held. */
const uint32_t *web_columns(void);

/* The world held, as JSON: scene, agents, step count, the kernel path
 * it runs, the state hash (16 hex digits, as the bench writes it), the
 * view to draw (min and max corners in metres, fitted by
 * tools/render_frame.c), the periodic box edge (0: unbounded), the
 * static objects (kind, two corners or centre and radius), and one
 * colour per group (0xRRGGBB, the renderer's palette). NULL when no
 * world is held or out of memory. */
const char *web_state(void);

/* The sentence that explains the last failure, or "". */
const char *web_error(void);

#endif /* THRONG_WEB_H */
