/* SPDX-License-Identifier: MIT */
/*
 * Result files written once, complete: the text goes to a temporary file
 * beside the target (same directory, so the rename cannot cross file
 * systems), is flushed to the disk, and only then renamed over the
 * target. A run that is interrupted, or fails, leaves the target as it
 * was (absent, or the previous results) and no temporary file behind:
 * the temporary name is removed on failure, and on SIGINT, SIGTERM and
 * SIGHUP while one is open.
 *
 * The path "-" is stdout, written directly.
 */
#ifndef THRONG_BENCH_OUTFILE_H
#define THRONG_BENCH_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct outfile {
    const char *path; /* the target; "-": stdout */
    char *temp;       /* the temporary file's name while one is open */
    FILE *file;       /* where to write, between open and commit */
} outfile;

/* Checks that `path` can be written (its directory takes a new file)
 * without creating it, so a bad path fails before a long run rather than
 * after. Returns true, or false with the reason (strerror's sentence) in
 * error. */
bool outfile_check(const char *path, char *error, size_t error_size);

/* Opens the temporary file for `path` (or stdout for "-"). Returns true,
 * or false with a sentence in error. */
bool outfile_open(outfile *o, const char *path, char *error, size_t error_size);

/* Flushes, syncs, closes and renames the temporary file onto the target.
 * Returns true, or false with the reason in error, the temporary file
 * removed and the target untouched. */
bool outfile_commit(outfile *o, char *error, size_t error_size);

/* Closes and removes the temporary file without touching the target. */
void outfile_discard(outfile *o);

#endif /* THRONG_BENCH_OUTFILE_H */
