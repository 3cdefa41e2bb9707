/* SPDX-License-Identifier: MIT */
/*
 * The trajectory recorder (src/recorder.c): runs with agents coming and
 * going, recorded in 2D and 3D and read back through SQLite itself, every
 * frame's ids, positions and headings against the columns as they were
 * at that step, to the bit; the ids (host keys, or numbers given in the
 * order agents are first met); every K-th step; a recorded run steps to
 * the same state hash as one that is not; the geometry's WKT; a full
 * queue that waits or skips; and every refusal, with the world and the
 * file as they were. A library built without SQLite refuses to open a
 * recorder, and the tests say so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner.h"

#ifdef THRONG_HAVE_SQLITE
#include <sqlite3.h>

#include "recorder_pages.h"
#endif

#ifdef THRONG_HAVE_SQLITE
/* A fresh file name under a fresh folder. */
static int rec_test_path(char *dir, size_t dir_size, char *path,
                         size_t path_size, const char *name) {
    snprintf(dir, dir_size, "/tmp/throng-rec-XXXXXX");
    if (!mkdtemp(dir))
        return 0;
    snprintf(path, path_size, "%s/%s", dir, name);
    return 1;
}

static void rec_test_cleanup(const char *dir, const char *path) {
    static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
    char name[600];
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
        (void)unlink(name);
    }
    (void)rmdir(dir);
}

#endif

static throng_world *rec_test_world(int dims, uint32_t agents, uint64_t seed) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = dims;
    d.seed = seed;
    d.neighbour_radius = 2.0f;
    throng_world *w = NULL;
    if (throng_world_create(&d, &w) != THRONG_OK)
        return NULL;
    throng_flocking f = throng_flocking_default();
    f.separation_weight = 1.0f;
    f.alignment_weight = 0.5f;
    f.cohesion_weight = 0.2f;
    if (throng_group_set_flocking(w, default_group(w), &f) != THRONG_OK) {
        throng_world_destroy(w);
        return NULL;
    }
    uint64_t rng = seed;
    for (uint32_t i = 0; i < agents; i++) {
        throng_agent_def a = throng_agent_def_default();
        for (int k = 0; k < dims; k++) {
            a.position[k] = (float)(40.0 * ts_unit(&rng) - 20.0);
            a.velocity[k] = (float)(2.0 * ts_unit(&rng) - 1.0);
        }
        throng_agent h;
        if (throng_agent_add(w, &a, &h) != THRONG_OK) {
            throng_world_destroy(w);
            return NULL;
        }
    }
    return w;
}

#ifdef THRONG_HAVE_SQLITE
/* Removes `out` agents at random rows and adds `in` new ones. */
static int rec_test_churn(throng_world *w, uint64_t *rng, uint32_t out,
                          uint32_t in) {
    int dims = throng_world_dimensions(w);
    for (uint32_t k = 0; k < out; k++) {
        uint32_t n = throng_world_agent_count(w);
        if (n == 0)
            break;
        throng_agent h;
        if (throng_agent_at(w, (uint32_t)(ts_unit(rng) * n) % n, &h) !=
                THRONG_OK ||
            throng_agent_remove(w, h) != THRONG_OK)
            return 0;
    }
    for (uint32_t k = 0; k < in; k++) {
        throng_agent_def a = throng_agent_def_default();
        for (int c = 0; c < dims; c++) {
            a.position[c] = (float)(40.0 * ts_unit(rng) - 20.0);
            a.velocity[c] = (float)(2.0 * ts_unit(rng) - 1.0);
        }
        throng_agent h;
        if (throng_agent_add(w, &a, &h) != THRONG_OK)
            return 0;
    }
    return 1;
}

#endif

TEST(recorder_supported_matches_build) {
#ifdef THRONG_HAVE_SQLITE
    CHECK(throng_recorder_supported());
#else
    CHECK(!throng_recorder_supported());
    printf("recorder tests: built without SQLite (SQLITE=0): only the "
           "refusals run\n");
#endif
    throng_recorder_def d = throng_recorder_def_default();
    CHECK_EQ_INT(d.every, 1);
    CHECK(d.fps == 10.0);
    CHECK_EQ_INT(d.queue_frames, 8);
    CHECK(d.wait_when_full);
    CHECK(!d.replace);
}

/* Refusals that need no file: NULL arguments, a def out of range, and,
 * without SQLite, the open itself. The world is unchanged. */
TEST(recorder_refuses_bad_arguments) {
    throng_world *w = rec_test_world(2, 50u, 3u);
    REQUIRE(w);
    const uint64_t hash = throng_world_hash(w);
    throng_recorder_def d = throng_recorder_def_default();
    throng_recorder *r = (throng_recorder *)(uintptr_t)1;
    CHECK_STATUS(throng_recorder_open(NULL, "/tmp/x.sqlite", &d, &r),
                 THRONG_ERR_NULL);
    CHECK(r == NULL);
    CHECK_STATUS(throng_recorder_open(w, NULL, &d, &r), THRONG_ERR_NULL);
    CHECK(strstr(throng_world_last_error(w), "path") != NULL);
    CHECK_STATUS(throng_recorder_open(w, "/tmp/x.sqlite", NULL, &r),
                 THRONG_ERR_NULL);
    CHECK_STATUS(throng_recorder_open(w, "/tmp/x.sqlite", &d, NULL),
                 THRONG_ERR_NULL);
    CHECK_STATUS(throng_recorder_record(NULL), THRONG_ERR_NULL);
    CHECK_STATUS(throng_recorder_flush(NULL), THRONG_ERR_NULL);
    CHECK_STATUS(throng_recorder_close(NULL), THRONG_ERR_NULL);
    throng_record_stats s;
    CHECK_STATUS(throng_recorder_stats(NULL, &s), THRONG_ERR_NULL);
    CHECK(strcmp(throng_recorder_last_error(NULL), "") == 0);
#ifdef THRONG_HAVE_SQLITE
    struct {
        throng_recorder_def def;
        throng_status want;
        const char *says;
    } bad[12];
    int n = 0;
    for (int i = 0; i < 12; i++)
        bad[i].def = throng_recorder_def_default();
    bad[n].def.every = 0u;
    bad[n].want = THRONG_ERR_OUT_OF_RANGE;
    bad[n++].says = "every";
    bad[n].def.every = 1000001u;
    bad[n].want = THRONG_ERR_OUT_OF_RANGE;
    bad[n++].says = "every";
    bad[n].def.fps = 0.0;
    bad[n].want = THRONG_ERR_OUT_OF_RANGE;
    bad[n++].says = "fps";
    bad[n].def.fps = -1.0;
    bad[n].want = THRONG_ERR_OUT_OF_RANGE;
    bad[n++].says = "fps";
    bad[n].def.fps = (double)NAN;
    bad[n].want = THRONG_ERR_NOT_FINITE;
    bad[n++].says = "fps";
    bad[n].def.fps = (double)INFINITY;
    bad[n].want = THRONG_ERR_NOT_FINITE;
    bad[n++].says = "fps";
    bad[n].def.queue_frames = 0u;
    bad[n].want = THRONG_ERR_OUT_OF_RANGE;
    bad[n++].says = "queue_frames";
    bad[n].def.queue_frames = 1025u;
    bad[n].want = THRONG_ERR_OUT_OF_RANGE;
    bad[n++].says = "queue_frames";
    bad[n].def.area_max[0] = 1.0f; /* y still 0 .. 0 */
    bad[n].want = THRONG_ERR_OUT_OF_RANGE;
    bad[n++].says = "area_min";
    bad[n].def.area_min[1] = (float)NAN;
    bad[n].want = THRONG_ERR_NOT_FINITE;
    bad[n++].says = "area_min";
    bad[n].def.area_min[0] = 5.0f;
    bad[n].def.area_max[0] = 1.0f;
    bad[n].def.area_max[1] = 1.0f;
    bad[n].want = THRONG_ERR_OUT_OF_RANGE;
    bad[n++].says = "area_min";
    for (int i = 0; i < n; i++) {
        r = (throng_recorder *)(uintptr_t)1;
        char dir[64], path[128];
        REQUIRE(rec_test_path(dir, sizeof dir, path, sizeof path, "r.sqlite"));
        CHECK_STATUS(throng_recorder_open(w, path, &bad[i].def, &r),
                     bad[i].want);
        CHECK(r == NULL);
        if (!strstr(throng_world_last_error(w), bad[i].says))
            runner_fail(__FILE__, __LINE__, "case %d: '%s' does not name %s", i,
                        throng_world_last_error(w), bad[i].says);
        CHECK(access(path, F_OK) != 0); /* no file made */
        rec_test_cleanup(dir, path);
    }
    CHECK_STATUS(throng_recorder_open(w, "", &d, &r), THRONG_ERR_IO);
#else
    CHECK_STATUS(throng_recorder_open(w, "/tmp/x.sqlite", &d, &r),
                 THRONG_ERR_UNSUPPORTED);
    CHECK(r == NULL);
    CHECK(strstr(throng_world_last_error(w), "SQLite") != NULL);
    CHECK(access("/tmp/x.sqlite", F_OK) != 0 || errno == ENOENT);
    CHECK_STATUS(throng_recorder_record((throng_recorder *)(uintptr_t)8),
                 THRONG_ERR_UNSUPPORTED);
#endif
    CHECK_EQ_U64(throng_world_hash(w), hash);
    CHECK_OK(throng_world_step(w, 0.05f));
    throng_world_destroy(w);
}

#ifdef THRONG_HAVE_SQLITE

/* What one recorded frame should hold: rows sorted by id. */
typedef struct rec_row {
    int64_t id;
    float p[3], f[3];
} rec_row;

typedef struct rec_expect {
    uint64_t step;
    uint32_t count;
    rec_row *rows;
} rec_expect;

/* The ids the recorder gives, worked out from the public API alone: the
 * host key, or a number given in row order the first time a handle
 * (slot, generation) is met. */
typedef struct rec_ids {
    uint32_t *gen;
    int64_t *id;
    uint32_t slots;
    int64_t next;
} rec_ids;

static int rec_row_cmp(const void *a, const void *b) {
    int64_t x = ((const rec_row *)a)->id, y = ((const rec_row *)b)->id;
    return (x > y) - (x < y);
}

static int rec_capture(const throng_world *w, rec_ids *ids, rec_expect *e) {
    throng_columns c;
    if (throng_world_columns(w, &c) != THRONG_OK)
        return 0;
    int dims = throng_world_dimensions(w);
    e->count = c.count;
    e->step = throng_world_step_count(w);
    e->rows = calloc(c.count ? c.count : 1u, sizeof *e->rows);
    if (!e->rows)
        return 0;
    for (uint32_t i = 0; i < c.count; i++) {
        rec_row *row = &e->rows[i];
        throng_agent h;
        if (throng_agent_at(w, i, &h) != THRONG_OK)
            return 0;
        if (c.host_key[i]) {
            row->id = (int64_t)c.host_key[i];
        } else {
            if (h.slot >= ids->slots) {
                uint32_t grown = 2u * h.slot + 16u;
                uint32_t *g = realloc(ids->gen, grown * sizeof *g);
                if (g)
                    ids->gen = g;
                int64_t *d = realloc(ids->id, grown * sizeof *d);
                if (d)
                    ids->id = d;
                if (!g || !d)
                    return 0;
                memset(ids->gen + ids->slots, 0,
                       (grown - ids->slots) * sizeof *g);
                ids->slots = grown;
            }
            if (ids->gen[h.slot] != h.generation) {
                ids->gen[h.slot] = h.generation;
                ids->id[h.slot] = ids->next++;
            }
            row->id = ids->id[h.slot];
        }
        row->p[0] = c.px[i];
        row->p[1] = c.py[i];
        row->f[0] = c.fx[i];
        row->f[1] = c.fy[i];
        if (dims == 3) {
            row->p[2] = c.pz[i];
            row->f[2] = c.fz[i];
        }
    }
    qsort(e->rows, c.count, sizeof *e->rows, rec_row_cmp);
    return 1;
}

/* A value read back is the float's double, to the bit. */
static int same_value(float want, double got) {
    return got == (double)want && (float)got == want;
}

/* Reads every frame back through SQLite and compares it with `expect`
 * (frames 0 .. count-1; a frame with expect[f].rows NULL must be absent);
 * returns the number of mismatching values, rows or frames. */
static uint64_t rec_check_file(const char *path, int dims,
                               const rec_expect *expect, uint32_t frames) {
    sqlite3 *db = NULL;
    uint64_t bad = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        runner_fail(__FILE__, __LINE__, "cannot open %s: %s", path,
                    sqlite3_errmsg(db));
        sqlite3_close(db);
        return 1;
    }
    const char *sql =
        dims == 3 ? "SELECT id, pos_x, pos_y, ori_x, ori_y, pos_z, ori_z "
                    "FROM trajectory_data WHERE frame = ? ORDER BY id"
                  : "SELECT id, pos_x, pos_y, ori_x, ori_y FROM "
                    "trajectory_data WHERE frame = ? ORDER BY id";
    sqlite3_stmt *rows = NULL, *meta = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &rows, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "SELECT step, agents FROM throng_frames WHERE "
                           "frame = ?",
                           -1, &meta, NULL) != SQLITE_OK) {
        runner_fail(__FILE__, __LINE__, "%s", sqlite3_errmsg(db));
        sqlite3_finalize(rows);
        sqlite3_close(db);
        return 1;
    }
    for (uint32_t f = 0; f < frames; f++) {
        const rec_expect *e = &expect[f];
        sqlite3_bind_int64(meta, 1, f);
        int rc = sqlite3_step(meta);
        if (!e->rows) {
            bad += rc == SQLITE_ROW;
        } else if (rc != SQLITE_ROW ||
                   (uint64_t)sqlite3_column_int64(meta, 0) != e->step ||
                   (uint32_t)sqlite3_column_int64(meta, 1) != e->count) {
            if (bad++ == 0)
                runner_fail(__FILE__, __LINE__,
                            "frame %u: throng_frames row missing or wrong", f);
        }
        sqlite3_reset(meta);
        sqlite3_bind_int64(rows, 1, f);
        uint32_t n = 0;
        while (sqlite3_step(rows) == SQLITE_ROW) {
            if (!e->rows || n >= e->count) {
                n++;
                continue;
            }
            const rec_row *want = &e->rows[n++];
            int ok = sqlite3_column_int64(rows, 0) == want->id;
            for (int k = 0; k < 2; k++) {
                ok &=
                    same_value(want->p[k], sqlite3_column_double(rows, 1 + k));
                ok &=
                    same_value(want->f[k], sqlite3_column_double(rows, 3 + k));
            }
            if (dims == 3) {
                ok &= same_value(want->p[2], sqlite3_column_double(rows, 5));
                ok &= same_value(want->f[2], sqlite3_column_double(rows, 6));
            }
            if (!ok && bad++ == 0)
                runner_fail(__FILE__, __LINE__,
                            "frame %u row %u (id %lld) differs", f, n - 1u,
                            (long long)want->id);
        }
        sqlite3_reset(rows);
        if (n != (e->rows ? e->count : 0u) && bad++ == 0)
            runner_fail(__FILE__, __LINE__, "frame %u: %u rows, want %u", f, n,
                        e->rows ? e->count : 0u);
    }
    /* No frame beyond them. */
    sqlite3_stmt *top = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT count(*) FROM trajectory_data WHERE "
                           "frame >= ?",
                           -1, &top, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(top, 1, frames);
        if (sqlite3_step(top) == SQLITE_ROW && sqlite3_column_int64(top, 0))
            bad++;
    }
    sqlite3_finalize(top);
    top = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT count(*) FROM throng_frames WHERE frame >= "
                           "?",
                           -1, &top, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(top, 1, frames);
        if (sqlite3_step(top) == SQLITE_ROW && sqlite3_column_int64(top, 0))
            bad++;
    }
    sqlite3_finalize(top);
    sqlite3_finalize(rows);
    sqlite3_finalize(meta);
    sqlite3_close(db);
    return bad;
}

/* One text value of the file, "" when missing. */
static void rec_query_text(const char *path, const char *sql, char *out,
                           size_t size) {
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    out[0] = '\0';
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
        snprintf(out, size, "%s", (const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    sqlite3_close(db);
}

/* SQLite's own check of the whole file: "ok" when every page, cell,
 * key order and free-space count is right. Opened read-write, as any
 * program would, so a journal left by a killed writer is played back. */
static void rec_integrity(const char *path, char *out, size_t size) {
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    snprintf(out, size, "cannot open");
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, NULL) ==
            SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
        snprintf(out, size, "%s", (const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    sqlite3_close(db);
}

/* The levels of a table's B-tree (1: its root is a leaf), read from the
 * file's pages along the right edge; 0 when the file cannot be read. */
static int rec_tree_depth(const char *path, const char *table) {
    char sql[128], text[64];
    snprintf(sql, sizeof sql,
             "SELECT rootpage FROM sqlite_master WHERE name = '%s'", table);
    rec_query_text(path, sql, text, sizeof text);
    long page = strtol(text, NULL, 10);
    FILE *file = fopen(path, "rb");
    if (!file || page < 2) {
        if (file)
            fclose(file);
        return 0;
    }
    unsigned char head[100], node[12];
    int depth = 0;
    if (fread(head, 1, sizeof head, file) == sizeof head) {
        long size = head[16] << 8 | head[17];
        size = size == 1 ? 65536 : size;
        while (depth < 20 && fseek(file, (page - 1) * size, SEEK_SET) == 0 &&
               fread(node, 1, sizeof node, file) == sizeof node) {
            depth++;
            if (node[0] != 0x02 && node[0] != 0x05)
                break;
            page =
                (long)node[8] << 24 | node[9] << 16 | node[10] << 8 | node[11];
        }
    }
    fclose(file);
    return depth;
}

static void rec_expect_free(rec_expect *e, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        free(e[i].rows);
    free(e);
}

/* A churning run recorded every `every` steps, and a twin not recorded:
 * the same hash after every step, and every frame read back as captured.
 * `keys` gives every third agent added a host key. */
static void rec_roundtrip_sized(int dims, uint32_t every, int keys,
                                uint32_t agents, uint32_t steps, int page_size,
                                int min_depth) {
    throng_world *w = rec_test_world(dims, agents, 7u);
    throng_world *twin = rec_test_world(dims, agents, 7u);
    REQUIRE(w && twin);
    char dir[64], path[128];
    REQUIRE(rec_test_path(dir, sizeof dir, path, sizeof path, "run.sqlite"));
    if (page_size) {
        /* A file of its own pages and a table of its own, which the
         * recording keeps. */
        sqlite3 *db = NULL;
        char sql[160];
        snprintf(sql, sizeof sql,
                 "PRAGMA page_size = %d; CREATE TABLE other (x INTEGER); "
                 "INSERT INTO other VALUES (42)",
                 page_size);
        REQUIRE(sqlite3_open(path, &db) == SQLITE_OK);
        REQUIRE(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
        sqlite3_close(db);
    }
    throng_recorder_def d = throng_recorder_def_default();
    d.every = every;
    d.fps = 20.0 / every;
    d.queue_frames = 3u;
    throng_recorder *r = NULL;
    REQUIRE_OK(throng_recorder_open(w, path, &d, &r));
    REQUIRE(r != NULL);
    const uint32_t frames = (steps + every - 1u) / every;
    rec_expect *expect = calloc(frames, sizeof *expect);
    rec_ids ids = { NULL, NULL, 0, 1 };
    REQUIRE(expect);
    uint64_t rng = 11u, twin_rng = 11u, key = 1000u;
    for (uint32_t s = 0; s < steps; s++) {
        if (s % every == 0u && !rec_capture(w, &ids, &expect[s / every])) {
            runner_fail(__FILE__, __LINE__, "step %u: no capture", s);
            break;
        }
        CHECK_OK(throng_recorder_record(r));
        CHECK_EQ_U64(throng_world_hash(w), throng_world_hash(twin));
        if (!rec_test_churn(w, &rng, 5u, 6u) ||
            !rec_test_churn(twin, &twin_rng, 5u, 6u)) {
            runner_fail(__FILE__, __LINE__, "step %u: churn refused", s);
            break;
        }
        if (keys) {
            /* Keys on some agents, the same on both worlds. */
            for (uint32_t i = 0; i < 3u; i++) {
                throng_agent a, b;
                if (throng_agent_at(w, i * 7u, &a) == THRONG_OK &&
                    throng_agent_at(twin, i * 7u, &b) == THRONG_OK) {
                    uint64_t have = 0;
                    (void)throng_agent_get_host_key(w, a, &have);
                    if (!have) {
                        /* High keys too: stored as signed integers. */
                        uint64_t k = (key++ % 2u) ? key * 1000003u
                                                  : (UINT64_C(1) << 63) + key;
                        CHECK_OK(throng_agent_set_host_key(w, a, k));
                        CHECK_OK(throng_agent_set_host_key(twin, b, k));
                    }
                }
            }
        }
        CHECK_OK(throng_world_step(w, 0.05f));
        CHECK_OK(throng_world_step(twin, 0.05f));
        CHECK_EQ_U64(throng_world_hash(w), throng_world_hash(twin));
    }
    CHECK_OK(throng_recorder_flush(r));
    throng_record_stats st;
    CHECK_OK(throng_recorder_stats(r, &st));
    CHECK_EQ_U64(st.calls, steps);
    CHECK_EQ_U64(st.frames_queued, frames);
    CHECK_EQ_U64(st.frames_committed, frames);
    CHECK_EQ_U64((uint64_t)st.last_committed_frame, frames - 1u);
    CHECK_EQ_U64(st.frames_dropped, 0);
    CHECK_EQ_INT(st.frames_waiting, 0);
    CHECK(st.bytes > 0);
    uint64_t rows = 0;
    for (uint32_t f = 0; f < frames; f++)
        rows += expect[f].count;
    CHECK_EQ_U64(st.rows_committed, rows);
    CHECK_OK(throng_recorder_close(r));
    char text[4096];
    rec_integrity(path, text, sizeof text);
    if (strcmp(text, "ok") != 0)
        runner_fail(__FILE__, __LINE__, "integrity_check: %s", text);
    CHECK_EQ_U64(rec_check_file(path, dims, expect, frames), 0);
    /* The trees are as deep as the rows make them. */
    const int depth = rec_tree_depth(path, "trajectory_data");
    if (depth < min_depth)
        runner_fail(__FILE__, __LINE__,
                    "trajectory_data has %d levels, want %d", depth, min_depth);
    CHECK(rec_tree_depth(path, "throng_frames") >= 1);
    rec_query_text(path, "PRAGMA page_size", text, sizeof text);
    CHECK_EQ_INT((int)strtol(text, NULL, 10), page_size ? page_size : 4096);
    if (page_size) {
        rec_query_text(path, "SELECT x FROM other", text, sizeof text);
        CHECK(strcmp(text, "42") == 0);
    }
    rec_query_text(path, "SELECT value FROM metadata WHERE key = 'version'",
                   text, sizeof text);
    CHECK(strcmp(text, "1") == 0);
    rec_query_text(path, "SELECT value FROM metadata WHERE key = 'fps'", text,
                   sizeof text);
    CHECK(strtod(text, NULL) == 20.0 / every);
    rec_query_text(path, "SELECT value FROM metadata WHERE key = 'dimensions'",
                   text, sizeof text);
    CHECK_EQ_INT((int)strtol(text, NULL, 10), dims);
    rec_query_text(path, "PRAGMA journal_mode", text, sizeof text);
    CHECK(strcmp(text, "delete") == 0);
    /* The bounds JuPedSim's viewer reads hold every position. */
    double lo = (double)INFINITY, hi = -(double)INFINITY;
    for (uint32_t f = 0; f < frames; f++)
        for (uint32_t i = 0; i < expect[f].count; i++) {
            lo = fmin(lo, (double)expect[f].rows[i].p[0]);
            hi = fmax(hi, (double)expect[f].rows[i].p[0]);
        }
    rec_query_text(path, "SELECT value FROM metadata WHERE key = 'xmin'", text,
                   sizeof text);
    CHECK(strtod(text, NULL) == lo);
    rec_query_text(path, "SELECT value FROM metadata WHERE key = 'xmax'", text,
                   sizeof text);
    CHECK(strtod(text, NULL) == hi);
    /* 3D adds exactly pos_z and ori_z, last. */
    rec_query_text(path,
                   "SELECT group_concat(name, ',') FROM "
                   "pragma_table_info('trajectory_data')",
                   text, sizeof text);
    CHECK(strcmp(text, dims == 3 ? "frame,id,pos_x,pos_y,ori_x,ori_y,pos_z,"
                                   "ori_z"
                                 : "frame,id,pos_x,pos_y,ori_x,ori_y") == 0);
    rec_expect_free(expect, frames);
    free(ids.gen);
    free(ids.id);
    rec_test_cleanup(dir, path);
    throng_world_destroy(w);
    throng_world_destroy(twin);
}

static void rec_roundtrip(int dims, uint32_t every, int keys) {
    rec_roundtrip_sized(dims, every, keys, 400u, 40u, 0, 2);
}

/* Trees of three levels of pages and more: 24,000 rows of 4 KiB pages
 * (about 90 rows a leaf, 80 children an interior page) in 3D, and in 2D
 * a file of 512-byte pages (about 10 and 10), five levels. */
TEST(recorder_deep_tree_2d) {
    rec_roundtrip_sized(2, 1u, 1, 400u, 60u, 512, 5);
}

TEST(recorder_deep_tree_3d) {
    rec_roundtrip_sized(3, 1u, 0, 600u, 40u, 0, 3);
}

TEST(recorder_roundtrip_2d) {
    rec_roundtrip(2, 1u, 0);
}

TEST(recorder_roundtrip_3d) {
    rec_roundtrip(3, 1u, 0);
}

TEST(recorder_every_third_step) {
    rec_roundtrip(2, 3u, 0);
}

TEST(recorder_host_keys) {
    rec_roundtrip(2, 1u, 1);
    rec_roundtrip(3, 2u, 1);
}

/* The ids of a small run, by hand: numbers in the order agents are
 * first met, a removed agent's number never given again, keys as they
 * are. */
TEST(recorder_ids_by_hand) {
    throng_world *w = rec_test_world(2, 0u, 1u);
    REQUIRE(w);
    char dir[64], path[128];
    REQUIRE(rec_test_path(dir, sizeof dir, path, sizeof path, "ids.sqlite"));
    throng_agent a[4];
    for (int i = 0; i < 3; i++) {
        throng_agent_def d = throng_agent_def_default();
        d.position[0] = (float)i;
        CHECK_OK(throng_agent_add(w, &d, &a[i]));
    }
    throng_recorder_def d = throng_recorder_def_default();
    throng_recorder *r = NULL;
    REQUIRE_OK(throng_recorder_open(w, path, &d, &r));
    CHECK_OK(throng_recorder_record(r)); /* frame 0: 1, 2, 3 */
    CHECK_OK(throng_agent_remove(w, a[1]));
    throng_agent_def nd = throng_agent_def_default();
    nd.position[0] = 9.0f;
    CHECK_OK(throng_agent_add(w, &nd, &a[3])); /* reuses a[1]'s slot */
    CHECK_OK(throng_agent_set_host_key(w, a[2], 77u));
    CHECK_OK(throng_recorder_record(r)); /* frame 1: 1, 77, 4 */
    CHECK_OK(throng_recorder_close(r));
    char text[256];
    rec_query_text(path,
                   "SELECT group_concat(id, ',') FROM (SELECT id FROM "
                   "trajectory_data WHERE frame = 0 ORDER BY id)",
                   text, sizeof text);
    CHECK(strcmp(text, "1,2,3") == 0);
    rec_query_text(path,
                   "SELECT group_concat(id, ',') FROM (SELECT id FROM "
                   "trajectory_data WHERE frame = 1 ORDER BY id)",
                   text, sizeof text);
    CHECK(strcmp(text, "1,4,77") == 0);
    rec_query_text(path,
                   "SELECT pos_x FROM trajectory_data WHERE frame = 1 AND "
                   "id = 4",
                   text, sizeof text);
    CHECK(strtod(text, NULL) == 9.0);
    rec_test_cleanup(dir, path);
    throng_world_destroy(w);
}

/* A key equal to a given number: the writer stops, every later call
 * says why, the frames before stay. */
TEST(recorder_duplicate_id) {
    throng_world *w = rec_test_world(2, 2u, 1u);
    REQUIRE(w);
    char dir[64], path[128];
    REQUIRE(rec_test_path(dir, sizeof dir, path, sizeof path, "dup.sqlite"));
    throng_recorder_def d = throng_recorder_def_default();
    throng_recorder *r = NULL;
    REQUIRE_OK(throng_recorder_open(w, path, &d, &r));
    CHECK_OK(throng_recorder_record(r)); /* ids 1, 2 */
    CHECK_OK(throng_recorder_flush(r));
    throng_agent h;
    REQUIRE_OK(throng_agent_at(w, 0, &h));
    throng_agent_def nd = throng_agent_def_default();
    throng_agent extra;
    nd.host_key = 3u; /* keyed */
    CHECK_OK(throng_agent_add(w, &nd, &extra));
    nd.host_key = 0u; /* and one that will be given 3 */
    CHECK_OK(throng_agent_add(w, &nd, &extra));
    CHECK_OK(throng_recorder_record(r));
    CHECK_STATUS(throng_recorder_flush(r), THRONG_ERR_DUPLICATE_KEY);
    CHECK(strstr(throng_recorder_last_error(r), "id 3") != NULL);
    CHECK_STATUS(throng_recorder_record(r), THRONG_ERR_DUPLICATE_KEY);
    throng_record_stats st;
    CHECK_OK(throng_recorder_stats(r, &st));
    CHECK_EQ_U64(st.frames_committed, 1);
    CHECK_STATUS(throng_recorder_close(r), THRONG_ERR_DUPLICATE_KEY);
    char text[64];
    rec_query_text(path, "SELECT count(*) FROM trajectory_data", text,
                   sizeof text);
    CHECK(strcmp(text, "2") == 0);
    rec_test_cleanup(dir, path);
    throng_world_destroy(w);
}

/* Files that cannot take a recording: nothing written, the world as it
 * was. */
TEST(recorder_refuses_files) {
    throng_world *w = rec_test_world(2, 20u, 5u);
    REQUIRE(w);
    const uint64_t hash = throng_world_hash(w);
    throng_recorder_def d = throng_recorder_def_default();
    throng_recorder *r = NULL;
    char dir[64], path[128];
    REQUIRE(rec_test_path(dir, sizeof dir, path, sizeof path, "f.sqlite"));
    /* A folder that does not exist. */
    char missing[200];
    snprintf(missing, sizeof missing, "%s/no/such/folder/r.sqlite", dir);
    CHECK_STATUS(throng_recorder_open(w, missing, &d, &r), THRONG_ERR_IO);
    CHECK(r == NULL);
    CHECK(strstr(throng_world_last_error(w), "cannot open") != NULL);
    /* A file that is not a database: left as it was. */
    const char text[] = "these are not the pages of a database, but they "
                        "are long enough to look like a header to anyone "
                        "who does not check it.\n";
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    fputs(text, f);
    fclose(f);
    CHECK_STATUS(throng_recorder_open(w, path, &d, &r), THRONG_ERR_IO);
    CHECK(strstr(throng_world_last_error(w), "not an SQLite database") != NULL);
    char back[sizeof text + 16] = "";
    f = fopen(path, "r");
    REQUIRE(f);
    size_t got = fread(back, 1, sizeof back - 1u, f);
    fclose(f);
    CHECK_EQ_U64(got, sizeof text - 1u);
    CHECK(memcmp(back, text, sizeof text - 1u) == 0);
    CHECK_EQ_INT(unlink(path), 0);
    /* A recording there already: refused unless replace, and then
     * replaced. */
    REQUIRE_OK(throng_recorder_open(w, path, &d, &r));
    CHECK_OK(throng_recorder_record(r));
    CHECK_OK(throng_recorder_close(r));
    struct stat before, after;
    REQUIRE(stat(path, &before) == 0);
    CHECK_STATUS(throng_recorder_open(w, path, &d, &r), THRONG_ERR_INVALID_ARG);
    CHECK(strstr(throng_world_last_error(w), "replace") != NULL);
    REQUIRE(stat(path, &after) == 0);
    CHECK_EQ_U64((uint64_t)after.st_size, (uint64_t)before.st_size);
    CHECK(after.st_mtime == before.st_mtime);
    /* A read-only file. */
    if (geteuid() != 0) {
        CHECK_EQ_INT(chmod(path, 0444), 0);
        d.replace = true;
        CHECK_STATUS(throng_recorder_open(w, path, &d, &r), THRONG_ERR_IO);
        CHECK_EQ_INT(chmod(path, 0644), 0);
    }
    d.replace = true;
    REQUIRE_OK(throng_recorder_open(w, path, &d, &r));
    CHECK_OK(throng_recorder_record(r));
    CHECK_OK(throng_recorder_record(r));
    CHECK_OK(throng_recorder_close(r));
    char count[32];
    rec_query_text(path, "SELECT count(*) FROM throng_frames", count,
                   sizeof count);
    CHECK(strcmp(count, "2") == 0);
    CHECK_EQ_U64(throng_world_hash(w), hash);
    rec_test_cleanup(dir, path);
    throng_world_destroy(w);
}

/* The recorder's memory from an allocator of its own: every block freed
 * by close, none of them the world's; refused memory refuses the open or
 * the frame, changing nothing; half an allocator is refused. */
TEST(recorder_own_allocator) {
    throng_world *w = rec_test_world(2, 500u, 3u);
    REQUIRE(w);
    char dir[64], path[128];
    REQUIRE(rec_test_path(dir, sizeof dir, path, sizeof path, "m.sqlite"));
    ts_heap heap;
    memset(&heap, 0, sizeof heap);
    throng_recorder_def d = throng_recorder_def_default();
    d.allocator = ts_heap_allocator(&heap);
    d.allocator.free = NULL;
    throng_recorder *r = NULL;
    CHECK_STATUS(throng_recorder_open(w, path, &d, &r), THRONG_ERR_NULL);
    CHECK(strstr(throng_world_last_error(w), "allocator") != NULL);
    d.allocator = ts_heap_allocator(&heap);
    heap.refuse_all = true;
    CHECK_STATUS(throng_recorder_open(w, path, &d, &r),
                 THRONG_ERR_OUT_OF_MEMORY);
    CHECK(access(path, F_OK) != 0);
    heap.refuse_all = false;
    REQUIRE_OK(throng_recorder_open(w, path, &d, &r));
    CHECK_OK(throng_recorder_record(r));
    CHECK_OK(throng_recorder_flush(r));
    CHECK(heap.blocks > 0);
    /* A frame that cannot be copied: refused, not counted. */
    heap.refuse_all = true;
    for (int i = 0; i < 400; i++) {
        throng_agent_def a = throng_agent_def_default();
        throng_agent h;
        CHECK_OK(throng_agent_add(w, &a, &h)); /* past the buffer */
    }
    CHECK_STATUS(throng_recorder_record(r), THRONG_ERR_OUT_OF_MEMORY);
    throng_record_stats st;
    CHECK_OK(throng_recorder_stats(r, &st));
    CHECK_EQ_U64(st.calls, 1);
    CHECK_EQ_U64(st.frames_queued, 1);
    heap.refuse_all = false;
    CHECK_OK(throng_recorder_record(r));
    CHECK_OK(throng_recorder_close(r));
    CHECK_EQ_INT(heap.blocks, 0);
    CHECK_EQ_U64(heap.live, 0);
    CHECK_EQ_U64(heap.violations, 0);
    char text[64];
    rec_query_text(path, "SELECT group_concat(agents, ',') FROM throng_frames",
                   text, sizeof text);
    CHECK(strcmp(text, "500,900") == 0);
    rec_test_cleanup(dir, path);
    throng_world_destroy(w);
}

/* The world destroyed first: record refused, flush and close finish the
 * file, which holds what was recorded. */
TEST(recorder_destroyed_first) {
    throng_world *w = rec_test_world(3, 30u, 9u);
    REQUIRE(w);
    char dir[64], path[128];
    REQUIRE(rec_test_path(dir, sizeof dir, path, sizeof path, "d.sqlite"));
    throng_recorder_def d = throng_recorder_def_default();
    throng_recorder *r = NULL;
    REQUIRE_OK(throng_recorder_open(w, path, &d, &r));
    CHECK_OK(throng_recorder_record(r));
    CHECK_OK(throng_world_step(w, 0.1f));
    CHECK_OK(throng_recorder_record(r));
    throng_world_destroy(w);
    CHECK_STATUS(throng_recorder_record(r), THRONG_ERR_STALE_HANDLE);
    CHECK(strstr(throng_recorder_last_error(r), "destroyed") != NULL);
    throng_record_stats st;
    CHECK_OK(throng_recorder_stats(r, &st));
    CHECK_EQ_U64(st.calls, 2);
    CHECK_OK(throng_recorder_flush(r));
    CHECK_OK(throng_recorder_close(r));
    char text[64];
    rec_query_text(path, "SELECT count(*) FROM trajectory_data", text,
                   sizeof text);
    CHECK(strcmp(text, "60") == 0);
    rec_test_cleanup(dir, path);
}

/* A host task hook that records from inside the step: refused busy. */
typedef struct rec_hook_state {
    throng_recorder *r;
    int calls;
    throng_status seen;
} rec_hook_state;

static void *rec_hook_enqueue(throng_task_fn *task, uint32_t count,
                              uint32_t min_range, void *task_context,
                              void *user) {
    (void)min_range;
    rec_hook_state *s = user;
    if (s->calls++ == 0)
        s->seen = throng_recorder_record(s->r);
    task(0, count, 0, task_context);
    return NULL;
}

static void rec_hook_finish(void *task, void *user) {
    (void)task;
    (void)user;
}

TEST(recorder_busy_world) {
    throng_world *w = rec_test_world(2, 100u, 2u);
    REQUIRE(w);
    char dir[64], path[128];
    REQUIRE(rec_test_path(dir, sizeof dir, path, sizeof path, "b.sqlite"));
    throng_recorder_def d = throng_recorder_def_default();
    rec_hook_state s = { NULL, 0, THRONG_OK };
    REQUIRE_OK(throng_recorder_open(w, path, &d, &s.r));
    REQUIRE_OK(throng_world_set_task_hooks(w, rec_hook_enqueue, rec_hook_finish,
                                           &s, 1u));
    CHECK_OK(throng_world_step(w, 0.05f));
    CHECK_STATUS(s.seen, THRONG_ERR_BUSY);
    throng_record_stats st;
    CHECK_OK(throng_recorder_stats(s.r, &st));
    CHECK_EQ_U64(st.calls, 0);
    CHECK_OK(throng_recorder_record(s.r));
    CHECK_OK(throng_recorder_close(s.r));
    rec_test_cleanup(dir, path);
    throng_world_destroy(w);
}

/* One frame buffer and a crowd the writer needs a while for: recording
 * twice at once skips the second frame (or waits for it). */
TEST(recorder_full_queue) {
    throng_world *w = rec_test_world(2, 40000u, 4u);
    REQUIRE(w);
    for (int wait = 0; wait < 2; wait++) {
        /* Without waiting, the second call finds the one-frame queue
         * still full while the writer holds the first frame (40,000
         * rows, milliseconds); a test thread preempted for longer finds
         * it empty, and that attempt is tried again, a few times at
         * most. */
        int full_seen = 0;
        for (int attempt = 0; attempt < 8 && !full_seen; attempt++) {
            char dir[64], path[128];
            REQUIRE(
                rec_test_path(dir, sizeof dir, path, sizeof path, "q.sqlite"));
            throng_recorder_def d = throng_recorder_def_default();
            d.queue_frames = 1u;
            d.wait_when_full = wait != 0;
            throng_recorder *r = NULL;
            REQUIRE_OK(throng_recorder_open(w, path, &d, &r));
            CHECK_OK(throng_recorder_record(r));
            throng_status second = throng_recorder_record(r);
            if (!wait && second == THRONG_OK) {
                CHECK_OK(throng_recorder_close(r));
                rec_test_cleanup(dir, path);
                continue;
            }
            full_seen = 1;
            char said[256];
            snprintf(said, sizeof said, "%s", throng_recorder_last_error(r));
            throng_status third = throng_recorder_record(r);
            throng_record_stats st;
            CHECK_OK(throng_recorder_stats(r, &st));
            if (wait) {
                CHECK_OK(second);
                CHECK_OK(third);
                CHECK_EQ_U64(st.frames_queued, 3);
                CHECK(st.wait_seconds > 0.0);
            } else {
                CHECK_STATUS(second, THRONG_ERR_CAPACITY);
                CHECK(strstr(said, "frame 1 skipped") != NULL);
                CHECK_EQ_U64(st.frames_dropped, 1u + (third != THRONG_OK));
                CHECK(st.bytes >= 40000u * 48u);
            }
            CHECK_EQ_U64(st.calls, 3);
            CHECK_OK(throng_recorder_close(r));
            char text[64];
            rec_query_text(path,
                           "SELECT group_concat(frame, ',') FROM throng_frames",
                           text, sizeof text);
            if (wait)
                CHECK(strcmp(text, "0,1,2") == 0);
            else
                CHECK(strcmp(text, "0") == 0 || strcmp(text, "0,2") == 0);
            rec_test_cleanup(dir, path);
        }
        CHECK(full_seen);
    }
    throng_world_destroy(w);
}

/* The geometry row: the area less the obstacles, planes cutting the
 * ring, wall segments beside it. */
TEST(recorder_geometry_wkt) {
    throng_world_def wd = throng_world_def_default();
    wd.boundary = THRONG_BOUNDARY_PERIODIC;
    wd.box_size[0] = wd.box_size[1] = 10.0f;
    throng_world *w = NULL;
    REQUIRE_OK(throng_world_create(&wd, &w));
    throng_obstacle_def box = throng_obstacle_def_default();
    box.kind = THRONG_OBJECT_BOX;
    box.radius = 0.0f;
    box.min[0] = 1.0f;
    box.min[1] = 2.0f;
    box.max[0] = 3.0f;
    box.max[1] = 4.5f;
    throng_object o;
    REQUIRE_OK(throng_obstacle_add(w, &box, &o));
    char dir[64], path[128];
    REQUIRE(rec_test_path(dir, sizeof dir, path, sizeof path, "g.sqlite"));
    throng_recorder_def d = throng_recorder_def_default();
    throng_recorder *r = NULL;
    REQUIRE_OK(throng_recorder_open(w, path, &d, &r));
    CHECK_OK(throng_recorder_close(r));
    char text[8192];
    rec_query_text(path, "SELECT wkt FROM geometry", text, sizeof text);
    CHECK(strcmp(text, "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (1 2, 1 4.5, "
                       "3 4.5, 3 2, 1 2))") == 0);
    if (strcmp(text, "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (1 2, 1 4.5, 3 "
                     "4.5, 3 2, 1 2))") != 0)
        printf("got: %s\n", text);
    CHECK_EQ_INT(unlink(path), 0);
    /* A plane keeping x >= 4, a sphere and a wall segment. */
    throng_wall_def plane = throng_wall_def_default();
    plane.kind = THRONG_OBJECT_PLANE;
    plane.point[0] = 4.0f;
    plane.normal[0] = 1.0f;
    REQUIRE_OK(throng_wall_add(w, &plane, &o));
    throng_obstacle_def sphere = throng_obstacle_def_default();
    sphere.center[0] = 7.0f;
    sphere.center[1] = 7.0f;
    sphere.radius = 0.5f;
    REQUIRE_OK(throng_obstacle_add(w, &sphere, &o));
    throng_wall_def seg = throng_wall_def_default();
    seg.a[0] = 5.0f;
    seg.a[1] = 1.0f;
    seg.b[0] = 9.0f;
    seg.b[1] = 1.0f;
    REQUIRE_OK(throng_wall_add(w, &seg, &o));
    REQUIRE_OK(throng_recorder_open(w, path, &d, &r));
    CHECK_OK(throng_recorder_close(r));
    rec_query_text(path, "SELECT wkt FROM geometry", text, sizeof text);
    CHECK(
        strncmp(text,
                "GEOMETRYCOLLECTION (POLYGON ((4 0, 10 0, 10 10, 4 10, 4 "
                "0), (1 2, 1 4.5, 3 4.5, 3 2, 1 2), (7.5 7, ",
                strlen("GEOMETRYCOLLECTION (POLYGON ((4 0, 10 0, 10 10, 4 "
                       "10, 4 0), (1 2, 1 4.5, 3 4.5, 3 2, 1 2), (7.5 7, ")) ==
        0);
    const char *tail = "), LINESTRING (5 1, 9 1))";
    size_t n = strlen(text), t = strlen(tail);
    CHECK(n > t && strcmp(text + n - t, tail) == 0);
    /* The circle: 64 sides, 65 points with the first repeated. */
    const char *circle = strstr(text, "(7.5 7, ");
    int points = 1;
    for (const char *p = circle; p && *p && *p != ')'; p++)
        points += *p == ',';
    CHECK_EQ_INT(points, 65);
    if (!circle || points != 65)
        printf("got: %s\n", text);
    rec_test_cleanup(dir, path);
    throng_world_destroy(w);
}

/* An unbounded world's derived area grows at close to hold every
 * position recorded. */
TEST(recorder_area_grows) {
    throng_world *w = rec_test_world(2, 1u, 1u);
    REQUIRE(w);
    throng_agent h;
    REQUIRE_OK(throng_agent_at(w, 0, &h));
    const float at[3] = { 0.0f, 0.0f, 0.0f };
    REQUIRE_OK(throng_agent_set_position(w, h, at));
    char dir[64], path[128];
    REQUIRE(rec_test_path(dir, sizeof dir, path, sizeof path, "a.sqlite"));
    throng_recorder_def d = throng_recorder_def_default();
    throng_recorder *r = NULL;
    REQUIRE_OK(throng_recorder_open(w, path, &d, &r));
    CHECK_OK(throng_recorder_flush(r));
    char before[512], after[512];
    rec_query_text(path, "SELECT wkt FROM geometry", before, sizeof before);
    /* One agent at the origin: a square of 2 m around it. */
    CHECK(strcmp(before, "POLYGON ((-1 -1, 1 -1, 1 1, -1 1, -1 -1))") == 0);
    const float far[3] = { 50.0f, -3.0f, 0.0f };
    REQUIRE_OK(throng_agent_set_position(w, h, far));
    CHECK_OK(throng_recorder_record(r));
    CHECK_OK(throng_recorder_close(r));
    rec_query_text(path, "SELECT wkt FROM geometry", after, sizeof after);
    /* The far corner at (50, -3): the new extent (-1 .. 50 by -3 .. 1)
     * and a tenth of its longer side beyond it where it grew. */
    CHECK(strcmp(after, "POLYGON ((-1 -8.1, 55.1 -8.1, 55.1 1, -1 1, -1 "
                        "-8.1))") == 0);
    if (strcmp(after, "POLYGON ((-1 -8.1, 55.1 -8.1, 55.1 1, -1 1, -1 "
                      "-8.1))") != 0)
        printf("got: %s\n", after);
    rec_test_cleanup(dir, path);
    throng_world_destroy(w);
}

/* Frames of no agent and of one, between larger ones: each frame's
 * throng_frames row says how many, and its rows are exactly those. */
TEST(recorder_empty_and_single_frames) {
    throng_world *w = rec_test_world(2, 0u, 3u);
    REQUIRE(w);
    char dir[64], path[128];
    REQUIRE(rec_test_path(dir, sizeof dir, path, sizeof path, "few.sqlite"));
    throng_recorder_def d = throng_recorder_def_default();
    throng_recorder *r = NULL;
    REQUIRE_OK(throng_recorder_open(w, path, &d, &r));
    /* Agents before each frame: 0, 1, 0, 0, 300, 1, 1, 0. */
    static const uint32_t sizes[] = { 0, 1, 0, 0, 300, 1, 1, 0 };
    const uint32_t frames = sizeof sizes / sizeof sizes[0];
    rec_expect expect[sizeof sizes / sizeof sizes[0]];
    memset(expect, 0, sizeof expect);
    rec_ids ids = { NULL, NULL, 0, 1 };
    uint64_t rng = 5u;
    for (uint32_t f = 0; f < frames; f++) {
        const uint32_t have = throng_world_agent_count(w);
        REQUIRE(rec_test_churn(w, &rng, have, sizes[f]));
        REQUIRE(throng_world_agent_count(w) == sizes[f]);
        REQUIRE(rec_capture(w, &ids, &expect[f]));
        CHECK_OK(throng_recorder_record(r));
        /* Every other frame its own commit. */
        if (f % 2u)
            CHECK_OK(throng_recorder_flush(r));
        CHECK_OK(throng_world_step(w, 0.05f));
    }
    CHECK_OK(throng_recorder_close(r));
    char text[256];
    rec_integrity(path, text, sizeof text);
    if (strcmp(text, "ok") != 0)
        runner_fail(__FILE__, __LINE__, "integrity_check: %s", text);
    CHECK_EQ_U64(rec_check_file(path, 2, expect, frames), 0);
    rec_query_text(path, "SELECT group_concat(agents, ',') FROM throng_frames",
                   text, sizeof text);
    CHECK(strcmp(text, "0,1,0,0,300,1,1,0") == 0);
    rec_query_text(path, "SELECT count(*) FROM trajectory_data", text,
                   sizeof text);
    CHECK(strcmp(text, "303") == 0);
    for (uint32_t f = 0; f < frames; f++)
        free(expect[f].rows);
    free(ids.gen);
    free(ids.id);
    rec_test_cleanup(dir, path);
    throng_world_destroy(w);
}

/* A process killed in the middle of a commit, at each of its stages:
 * the test hook copies the file and its journal as they are at that
 * moment, and SQLite, opening each copy, must find a sound file holding
 * exactly the frames committed before (the frames of this commit too,
 * once its journal has ended). */
#define REC_CRASH_COMMIT 9u
static char rec_crash_path[128];
static unsigned rec_crash_commits;

static int rec_copy_file(const char *from, const char *to) {
    FILE *in = fopen(from, "rb");
    if (!in)
        return 0;
    FILE *out = fopen(to, "wb");
    int ok = out != NULL;
    char buf[65536];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    fclose(in);
    if (out)
        ok = fclose(out) == 0 && ok;
    return ok;
}

static void rec_crash_hook(const char *path, int stage) {
    if (stage == REC_STAGE_FRESH)
        rec_crash_commits++;
    if (rec_crash_commits != REC_CRASH_COMMIT)
        return;
    char to[200], from[200];
    snprintf(to, sizeof to, "%s.%d", rec_crash_path, stage);
    (void)rec_copy_file(path, to);
    snprintf(from, sizeof from, "%s-journal", path);
    snprintf(to, sizeof to, "%s.%d-journal", rec_crash_path, stage);
    (void)rec_copy_file(from, to);
}

TEST(recorder_killed_mid_commit) {
    const uint32_t frames = 14u;
    throng_world *w = rec_test_world(2, 3000u, 9u);
    REQUIRE(w);
    char dir[64];
    REQUIRE(rec_test_path(dir, sizeof dir, rec_crash_path,
                          sizeof rec_crash_path, "crash.sqlite"));
    throng_recorder_def d = throng_recorder_def_default();
    throng_recorder *r = NULL;
    REQUIRE_OK(throng_recorder_open(w, rec_crash_path, &d, &r));
    rec_expect *expect = calloc(frames, sizeof *expect);
    REQUIRE(expect);
    rec_ids ids = { NULL, NULL, 0, 1 };
    uint64_t rng = 3u;
    rec_crash_commits = 0;
    recorder_pages_test_hook = rec_crash_hook;
    for (uint32_t f = 0; f < frames; f++) {
        CHECK(rec_capture(w, &ids, &expect[f]));
        CHECK_OK(throng_recorder_record(r));
        /* One commit a frame: commit c holds frame c - 1. */
        CHECK_OK(throng_recorder_flush(r));
        CHECK(rec_test_churn(w, &rng, 20u, 20u));
        CHECK_OK(throng_world_step(w, 0.05f));
    }
    CHECK_OK(throng_recorder_close(r));
    recorder_pages_test_hook = NULL;
    CHECK(rec_tree_depth(rec_crash_path, "trajectory_data") >= 3);
    for (int stage = REC_STAGE_FRESH; stage <= REC_STAGE_DONE; stage++) {
        char copy[200], text[256];
        snprintf(copy, sizeof copy, "%s.%d", rec_crash_path, stage);
        const uint32_t held =
            stage == REC_STAGE_DONE ? REC_CRASH_COMMIT : REC_CRASH_COMMIT - 1u;
        rec_integrity(copy, text, sizeof text);
        if (strcmp(text, "ok") != 0)
            runner_fail(__FILE__, __LINE__, "stage %d: integrity_check: %s",
                        stage, text);
        /* No journal is left once SQLite opened the copy. */
        snprintf(text, sizeof text, "%s-journal", copy);
        struct stat st;
        CHECK(stat(text, &st) != 0 || st.st_size == 0);
        if (rec_check_file(copy, 2, expect, held) != 0)
            runner_fail(__FILE__, __LINE__, "stage %d: not frames 0 .. %u",
                        stage, held - 1u);
        rec_test_cleanup("", copy);
    }
    rec_expect_free(expect, frames);
    free(ids.gen);
    free(ids.id);
    rec_test_cleanup(dir, rec_crash_path);
    throng_world_destroy(w);
}

#endif

void register_recorder_tests(void) {
    REGISTER(recorder_supported_matches_build);
    REGISTER(recorder_refuses_bad_arguments);
#ifdef THRONG_HAVE_SQLITE
    REGISTER(recorder_roundtrip_2d);
    REGISTER(recorder_roundtrip_3d);
    REGISTER(recorder_every_third_step);
    REGISTER(recorder_host_keys);
    REGISTER(recorder_ids_by_hand);
    REGISTER(recorder_duplicate_id);
    REGISTER(recorder_refuses_files);
    REGISTER(recorder_own_allocator);
    REGISTER(recorder_destroyed_first);
    REGISTER(recorder_busy_world);
    REGISTER(recorder_full_queue);
    REGISTER(recorder_geometry_wkt);
    REGISTER(recorder_area_grows);
    REGISTER(recorder_deep_tree_2d);
    REGISTER(recorder_deep_tree_3d);
    REGISTER(recorder_empty_and_single_frames);
    REGISTER(recorder_killed_mid_commit);
#endif
}
