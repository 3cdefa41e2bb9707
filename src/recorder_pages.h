/* SPDX-License-Identifier: MIT */
/*
 * The recorder's page writer (recorder_pages.c): two B-trees of an SQLite
 * file that only grow at their right edge, written as pages in SQLite's
 * file format, and committed through a rollback journal of SQLite's own
 * format. Only in a build with SQLite (THRONG_HAVE_SQLITE); recorder_db.c
 * creates the file with SQLite, encodes the rows and calls these.
 */
#ifndef THRONG_RECORDER_PAGES_H
#define THRONG_RECORDER_PAGES_H

#include "internal.h"

/* The two trees: trajectory_data (an index B-tree, a WITHOUT ROWID
 * table's) and throng_frames (a table B-tree keyed by rowid). */
enum {
    REC_TREE_ROWS = 0,
    REC_TREE_FRAMES = 1
};

typedef struct recorder_pages recorder_pages;

/* Takes over the file at `path`, which SQLite created and closed: its
 * two trees rooted at roots[REC_TREE_ROWS] and roots[REC_TREE_FRAMES]
 * must be empty. Holds the file's reserved lock (SQLite's protocol, so
 * readers may read and no other writer writes) until close. */
throng_status recorder_pages_open(const char *path, const uint32_t roots[2],
                                  recorder_pages **out, char *why,
                                  size_t why_size);

/* The cell encodings the file's header allows: true when serial types
 * 8 and 9 (the integers 0 and 1 in no bytes) may be used. */
bool recorder_pages_small_ints(const recorder_pages *p);

/* Appends one leaf cell at the right edge of a tree, in key order: for
 * the rows tree the cell is a payload size and a record; for the frames
 * tree, a payload size, `rowid` and the record. */
throng_status recorder_pages_append(recorder_pages *p, int tree,
                                    const uint8_t *cell, uint32_t size,
                                    int64_t rowid, char *why, size_t why_size);

/* Writes v as SQLite's variable-length integer (1 to 9 bytes) at out;
 * returns its size. */
uint32_t recorder_pages_varint(uint8_t *out, uint64_t v);

/* Makes every cell appended so far part of the file, or none of them. */
throng_status recorder_pages_commit(recorder_pages *p, char *why,
                                    size_t why_size);

/* Gives the file back: the cells appended since the last commit are
 * dropped, the journal removed (kept when a commit failed halfway, for
 * SQLite to roll back), the locks released. Frees p. */
throng_status recorder_pages_close(recorder_pages *p, char *why,
                                   size_t why_size);

/* For the tests: called, when set, at each stage of every commit with
 * the file's path, so a test can copy the file and its journal as a
 * process killed right there would leave them. The stages: */
enum {
    REC_STAGE_FRESH,    /* the new pages written past the old end */
    REC_STAGE_JOURNAL,  /* the journal written */
    REC_STAGE_HALF,     /* page 1 written in place, the rest not yet */
    REC_STAGE_IN_PLACE, /* every page in place, the journal still there */
    REC_STAGE_DONE      /* the journal ended: committed */
};
extern void (*recorder_pages_test_hook)(const char *path, int stage);

#endif /* THRONG_RECORDER_PAGES_H */
