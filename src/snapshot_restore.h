/* SPDX-License-Identifier: MIT */
/*
 * Snapshots: the world a verified payload describes (snapshot_restore.c),
 * for the load calls (snapshot_read.c).
 */
#ifndef THRONG_SNAPSHOT_RESTORE_H
#define THRONG_SNAPSHOT_RESTORE_H

#include "snapshot_codec.h"

/* Builds the world a verified snapshot describes; *out_world stays NULL
 * on failure. */
void snap_decode(snap_codec *c, const throng_world_load_def *d,
                 throng_world **out_world);

#endif /* THRONG_SNAPSHOT_RESTORE_H */
