/* SPDX-License-Identifier: MIT */
/*
 * The recorder's SQLite file (recorder_db.c): the schema, one frame's
 * rows encoded in (frame, id) order for the page writer
 * (recorder_pages.c), commits, and the last writes. Only in a build with
 * SQLite (THRONG_HAVE_SQLITE); recorder.c owns the frames, the queue and
 * the writer thread that calls these.
 */
#ifndef THRONG_RECORDER_DB_H
#define THRONG_RECORDER_DB_H

#include "internal.h"

/* One recorded frame as the caller's thread copied it: `count` agents,
 * their ids and columns (z and fz only in 3D), and scratch for the
 * writer's sort by id (order, order_spare, key_spare), all `capacity`
 * long. */
typedef struct recorder_frame {
    int64_t frame;
    uint64_t step;
    uint32_t count;
    uint32_t capacity;
    int64_t *id;
    float *x, *y, *z;
    float *fx, *fy, *fz;
    uint32_t *order, *order_spare;
    uint64_t *key_spare;
    size_t bytes; /* the block behind the arrays */
    void *block;
} recorder_frame;

/* What the metadata says besides the version. */
typedef struct recorder_meta {
    int dims;
    uint32_t every;
    double fps;
} recorder_meta;

typedef struct recorder_db recorder_db;

/* Opens or creates `path`, checks it (an SQLite database, writable, no
 * recording unless `replace`), writes the schema, metadata and geometry
 * in one transaction in rollback-journal mode, closes SQLite and hands
 * the file to the page writer. On failure returns the status with its
 * reason in why[0 .. why_size) and leaves no file that was not there. */
throng_status recorder_db_open(const char *path, const recorder_meta *meta,
                               bool replace, const char *wkt, recorder_db **out,
                               char *why, size_t why_size);

/* Sorts the frame by id and appends its rows and its throng_frames row,
 * uncommitted. THRONG_ERR_DUPLICATE_KEY for two agents of one id;
 * THRONG_ERR_IO for a NaN column or a failed write (OUT_OF_MEMORY): after
 * any failure nothing more is committed. */
throng_status recorder_db_insert(recorder_db *db, recorder_frame *frame,
                                 char *why, size_t why_size);

/* Commits every frame appended so far (recorder_pages.c, a journal). */
throng_status recorder_db_commit(recorder_db *db, char *why, size_t why_size);

/* Abandons the frames appended since the last commit, and the rest of
 * the recording: nothing more is committed. */
void recorder_db_rollback(recorder_db *db);

/* The bounds of every position committed so far (lo > hi: none). */
void recorder_db_bounds(const recorder_db *db, double lo[2], double hi[2]);

/* Gives the file back to SQLite, which writes the bounds (xmin .. ymax)
 * and the geometry (when wkt is not NULL), and closes it; frees db on
 * every path. */
throng_status recorder_db_close(recorder_db *db, const char *wkt, char *why,
                                size_t why_size);

#endif /* THRONG_RECORDER_DB_H */
