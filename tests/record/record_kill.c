/* SPDX-License-Identifier: MIT */
/*
 * throng-record-kill: the recorder's crash safety, with a real process
 * killed for real (make record-kill-check, tests/record/kill_check.sh).
 *
 *   throng-record-kill record FILE       records a churning crowd every
 *       step until killed (or for RECORD_KILL_SECONDS), printing
 *       "committed N" whenever the last committed frame grows to N
 *   throng-record-kill check FILE LAST   opens the file the killed
 *       process left, checks its integrity, and replays the same run:
 *       every frame 0 .. LAST must be there, and every frame that is
 *       there (later ones too) whole, each agent's id, position and
 *       heading bit for bit as the run had them
 *
 * The run is deterministic (a step's result depends on nothing but the
 * state), so the check rebuilds every frame from scratch. Every agent
 * carries a host key, its id in the file. Exit status 0 when the file is
 * right, 1 when not (one line on stderr says what), 2 for a usage error.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "throng.h"

/* Agents at the start, and removed and added before each step. */
#define RECORD_KILL_AGENTS 20000u
#define RECORD_KILL_CHURN 50u
/* A recording process left alone stops by itself after this long. */
#define RECORD_KILL_SECONDS 120.0
#define RECORD_KILL_DT 0.05f

typedef struct run {
    throng_world *w;
    uint64_t rng;
    uint64_t next_key;
} run;

static double unit(uint64_t *state) {
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

static int add_agent(run *r) {
    throng_agent_def a = throng_agent_def_default();
    a.position[0] = (float)(200.0 * unit(&r->rng) - 100.0);
    a.position[1] = (float)(200.0 * unit(&r->rng) - 100.0);
    a.velocity[0] = (float)(2.0 * unit(&r->rng) - 1.0);
    a.velocity[1] = (float)(2.0 * unit(&r->rng) - 1.0);
    a.host_key = r->next_key++;
    throng_agent h;
    return throng_agent_add(r->w, &a, &h) == THRONG_OK;
}

static int run_start(run *r) {
    memset(r, 0, sizeof *r);
    r->rng = 42u;
    r->next_key = 1u;
    throng_world_def d = throng_world_def_default();
    d.neighbour_radius = 2.0f;
    d.threads = 1;
    if (throng_world_create(&d, &r->w) != THRONG_OK)
        return 0;
    throng_group g;
    throng_flocking f = throng_flocking_default();
    f.separation_weight = 1.0f;
    f.alignment_weight = 0.5f;
    if (throng_world_default_group(r->w, &g) != THRONG_OK ||
        throng_group_set_flocking(r->w, g, &f) != THRONG_OK)
        return 0;
    for (uint32_t i = 0; i < RECORD_KILL_AGENTS; i++)
        if (!add_agent(r))
            return 0;
    return 1;
}

/* The churn and the step after frame f was taken. */
static int run_advance(run *r) {
    for (uint32_t k = 0; k < RECORD_KILL_CHURN; k++) {
        uint32_t n = throng_world_agent_count(r->w);
        throng_agent h;
        if (throng_agent_at(r->w, (uint32_t)(unit(&r->rng) * n) % n, &h) !=
                THRONG_OK ||
            throng_agent_remove(r->w, h) != THRONG_OK)
            return 0;
    }
    for (uint32_t k = 0; k < RECORD_KILL_CHURN; k++)
        if (!add_agent(r))
            return 0;
    return throng_world_step(r->w, RECORD_KILL_DT) == THRONG_OK;
}

static int do_record(const char *path) {
    run r;
    if (!run_start(&r)) {
        fprintf(stderr, "throng-record-kill: the scene could not be built\n");
        return 1;
    }
    throng_recorder_def d = throng_recorder_def_default();
    d.fps = 1.0 / (double)RECORD_KILL_DT;
    d.replace = true;
    throng_recorder *rec = NULL;
    if (throng_recorder_open(r.w, path, &d, &rec) != THRONG_OK) {
        fprintf(stderr, "throng-record-kill: %s\n",
                throng_world_last_error(r.w));
        return 1;
    }
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int64_t told = -1;
    for (;;) {
        if (throng_recorder_record(rec) != THRONG_OK || !run_advance(&r)) {
            fprintf(stderr, "throng-record-kill: %s\n",
                    throng_recorder_last_error(rec));
            return 1;
        }
        throng_record_stats st;
        if (throng_recorder_stats(rec, &st) == THRONG_OK &&
            st.last_committed_frame > told) {
            told = st.last_committed_frame;
            printf("committed %" PRId64 "\n", told);
            fflush(stdout);
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - start.tv_sec) > RECORD_KILL_SECONDS)
            break;
    }
    /* Not killed: finish properly (the check script kills it first). */
    throng_status st = throng_recorder_close(rec);
    throng_world_destroy(r.w);
    return st == THRONG_OK ? 0 : 1;
}

typedef struct row {
    int64_t id;
    float x, y, fx, fy;
} row;

static int row_cmp(const void *a, const void *b) {
    int64_t x = ((const row *)a)->id, y = ((const row *)b)->id;
    return (x > y) - (x < y);
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int fail(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    fputs("throng-record-kill: ", stderr);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
    return 1;
}

static int do_check(const char *path, int64_t last) {
    sqlite3 *db = NULL;
    /* Read-write, as any program opening it would: the log a killed
     * writer left is recovered here. */
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
        return fail("%s does not open: %s", path, sqlite3_errmsg(db));
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, NULL) !=
            SQLITE_OK ||
        sqlite3_step(s) != SQLITE_ROW ||
        strcmp((const char *)sqlite3_column_text(s, 0), "ok") != 0)
        return fail("%s fails its integrity check: %s", path,
                    s && sqlite3_column_text(s, 0)
                        ? (const char *)sqlite3_column_text(s, 0)
                        : sqlite3_errmsg(db));
    sqlite3_finalize(s);
    int64_t top = -1;
    if (sqlite3_prepare_v2(db, "SELECT max(frame) FROM throng_frames", -1, &s,
                           NULL) != SQLITE_OK ||
        sqlite3_step(s) != SQLITE_ROW)
        return fail("%s: no throng_frames table: %s", path, sqlite3_errmsg(db));
    if (sqlite3_column_type(s, 0) != SQLITE_NULL)
        top = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    if (top < last)
        return fail("%s holds frames up to %" PRId64 ", but frame %" PRId64
                    " was reported committed before the kill",
                    path, top, last);
    run r;
    if (!run_start(&r))
        return fail("the scene could not be built");
    sqlite3_stmt *rows = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT id, pos_x, pos_y, ori_x, ori_y FROM "
                           "trajectory_data WHERE frame = ? ORDER BY id",
                           -1, &rows, NULL) != SQLITE_OK)
        return fail("%s", sqlite3_errmsg(db));
    row *want = NULL;
    uint64_t checked = 0;
    for (int64_t f = 0; f <= top; f++) {
        throng_columns c;
        if (throng_world_columns(r.w, &c) != THRONG_OK)
            return fail("reading the columns failed");
        row *grown = realloc(want, (c.count ? c.count : 1u) * sizeof *want);
        if (!grown)
            return fail("out of memory");
        want = grown;
        for (uint32_t i = 0; i < c.count; i++) {
            want[i].id = (int64_t)c.host_key[i];
            want[i].x = c.px[i];
            want[i].y = c.py[i];
            want[i].fx = c.fx[i];
            want[i].fy = c.fy[i];
        }
        qsort(want, c.count, sizeof *want, row_cmp);
        sqlite3_bind_int64(rows, 1, f);
        uint32_t n = 0;
        while (sqlite3_step(rows) == SQLITE_ROW) {
            if (n >= c.count)
                return fail("frame %" PRId64 ": more rows than agents", f);
            const row *w = &want[n++];
            if (sqlite3_column_int64(rows, 0) != w->id ||
                sqlite3_column_double(rows, 1) != (double)w->x ||
                sqlite3_column_double(rows, 2) != (double)w->y ||
                sqlite3_column_double(rows, 3) != (double)w->fx ||
                sqlite3_column_double(rows, 4) != (double)w->fy)
                return fail("frame %" PRId64 ", row %u (id %" PRId64
                            "): not what the run had",
                            f, n - 1u, w->id);
        }
        sqlite3_reset(rows);
        if (n != c.count)
            return fail("frame %" PRId64 ": %u rows of %u agents", f, n,
                        c.count);
        checked += n;
        if (f < top && !run_advance(&r))
            return fail("replaying the run failed");
    }
    sqlite3_finalize(rows);
    sqlite3_close(db);
    free(want);
    throng_world_destroy(r.w);
    printf("throng-record-kill: %s opens, passes its integrity check and "
           "holds frames 0 .. %" PRId64 " (%" PRId64
           " reported committed before the kill), %" PRIu64
           " rows, each as the run had it\n",
           path, top, last, checked);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "record") == 0)
        return do_record(argv[2]);
    if (argc == 4 && strcmp(argv[1], "check") == 0)
        return do_check(argv[2], strtoll(argv[3], NULL, 10));
    fprintf(stderr, "usage: throng-record-kill record FILE\n"
                    "       throng-record-kill check FILE LAST\n");
    return 2;
}
