/* SPDX-License-Identifier: MIT */
/*
 * Reading a recording back for throng-render --replay: a trajectory file
 * that throng_recorder wrote (or any JuPedSim version-1 file), one frame
 * at a time, as a world of its own that render_frame.h draws like any
 * other: each row an agent at its position, heading along its
 * orientation, keyed by its id; the geometry's rings and lines as wall
 * segments (2D only: a 3D world takes no segments). The scratch world is
 * never stepped.
 *
 * Needs a build with SQLite; without it replay_open says so and fails.
 */
#ifndef THRONG_TOOLS_RENDER_REPLAY_H
#define THRONG_TOOLS_RENDER_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "throng.h"

typedef struct replay replay;

/* Opens the file read-only. Returns 0, or -1 with the reason in why. */
int replay_open(const char *path, replay **out, char *why, size_t why_size);

/* The frame numbers the file holds, ascending (valid until close). */
const int64_t *replay_frames(const replay *r, uint32_t *count);

/* The largest id (at least 1): a colour span for render_options.key_span. */
uint64_t replay_max_id(const replay *r);

/* A new world holding frame `frame`; NULL with the reason in why. */
throng_world *replay_world(replay *r, int64_t frame, char *why,
                           size_t why_size);

void replay_close(replay *r);

#endif /* THRONG_TOOLS_RENDER_REPLAY_H */
