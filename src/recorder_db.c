/* SPDX-License-Identifier: MIT */
/*
 * The recorder's SQLite file: JuPedSim's trajectory schema, version 1
 * (throng.h, "Recording trajectories"), and each frame's rows put into it
 * as fast as the file format allows.
 *
 * Where a row's time went. SQLite spends about 3,650 instructions on
 * every row it inserts here, even handed the rows in key order through a
 * virtual table with one INSERT ... SELECT a frame (the fastest way found
 * through SQL): its bytecode engine, its record comparisons and its
 * B-tree balancing, more than a flock2d step spends on the agent. None
 * of that is needed when rows only ever arrive in key order. So SQLite
 * creates the file (the schema, metadata and geometry, one transaction
 * in its rollback-journal mode) and is closed; this module sorts each
 * frame by id (a radix sort over the bytes in which the ids differ),
 * encodes each row as a cell of SQLite's record format, and hands the
 * cells to recorder_pages.c, which appends them at the right edge of the
 * trajectory_data B-tree (throng_frames' row likewise) and commits them
 * crash-safely through a rollback journal of SQLite's format. At close,
 * SQLite opens the file again for the last metadata (the bounds) and the
 * grown geometry. A file of 4 KiB pages: the journal of a commit holds
 * the few pages changed in place (page 1, the right spine of each tree),
 * and small pages keep it small.
 */
#include "recorder_db.h"

#ifdef THRONG_HAVE_SQLITE

#include "recorder_pages.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The page size of a new file (bytes): see above. */
#define REC_PAGE_SIZE 4096
/* How long SQLite waits for readers at open and close, milliseconds. */
#define REC_BUSY_MS 10000

struct recorder_db {
    recorder_pages *pages;
    char *path;
    int dims;
    int small_ints;
    int dead; /* a failure: nothing more is committed */
    /* Bounds of the positions inserted, and of those committed. */
    double lo[2], hi[2];
    double committed_lo[2], committed_hi[2];
};

static void say(char *why, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(char *why, size_t size, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(why, size, fmt, args);
    va_end(args);
}

/* The status a failed SQLite call maps to, its reason in why. */
static throng_status db_fail(sqlite3 *db, int rc, const char *what, char *why,
                             size_t size) {
    say(why, size, "%s: %s", what,
        db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    if (rc == SQLITE_NOMEM)
        return THRONG_ERR_OUT_OF_MEMORY;
    return THRONG_ERR_IO;
}

/* ------------------------------------------------------------------------ */
/* Sorting a frame by id                                                    */
/* ------------------------------------------------------------------------ */

/* SQLite orders INTEGERs as signed; flipping the sign bit makes that the
 * unsigned order of the keys. */
static uint64_t sort_key(int64_t id) {
    return (uint64_t)id ^ (UINT64_C(1) << 63);
}

/* frame->order becomes the rows in ascending id: a least significant
 * digit radix sort, a byte per pass, over the bytes in which some ids
 * differ (ids below 2^24 take three passes). Returns the index of a row
 * whose id the row after it (in order) repeats, or UINT32_MAX. */
static uint32_t sort_frame(recorder_frame *f) {
    const uint32_t n = f->count;
    uint32_t *order = f->order, *spare = f->order_spare;
    uint64_t *keys = f->key_spare;
    uint64_t differ = 0;
    for (uint32_t i = 0; i < n; i++) {
        order[i] = i;
        differ |= sort_key(f->id[i]) ^ sort_key(f->id[0]);
    }
    /* Keys travel with the order in key_spare; the first pass reads
     * them from the ids. */
    int first = 1;
    for (unsigned byte = 0; byte < 8u; byte++) {
        const unsigned shift = 8u * byte;
        if (!((differ >> shift) & 0xFFu))
            continue;
        uint32_t count[257];
        memset(count, 0, sizeof count);
        for (uint32_t i = 0; i < n; i++) {
            uint64_t k = first ? sort_key(f->id[order[i]]) : keys[i];
            count[((k >> shift) & 0xFFu) + 1u]++;
        }
        for (unsigned d = 0; d < 256u; d++)
            count[d + 1u] += count[d];
        /* spare holds the new order; the new keys go to the upper half
         * of the key scratch, which key_spare has room for: see
         * recorder.c, frame_reserve (2 x capacity keys). */
        uint64_t *new_keys = keys + n;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t k = first ? sort_key(f->id[order[i]]) : keys[i];
            uint32_t to = count[(k >> shift) & 0xFFu]++;
            spare[to] = order[i];
            new_keys[to] = k;
        }
        memcpy(keys, new_keys, (size_t)n * sizeof *keys);
        uint32_t *swap = order;
        order = spare;
        spare = swap;
        first = 0;
    }
    f->order = order;
    f->order_spare = spare;
    for (uint32_t i = 1; i < n; i++)
        if (f->id[order[i]] == f->id[order[i - 1u]])
            return i - 1u;
    return UINT32_MAX;
}

/* ------------------------------------------------------------------------ */
/* The file                                                                 */
/* ------------------------------------------------------------------------ */

static const char *const recording_tables[] = { "trajectory_data", "metadata",
                                                "geometry", "throng_frames" };

/* Runs a statement that returns no rows worth reading. */
static int exec(sqlite3 *db, const char *sql) {
    return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

static int set_meta(sqlite3_stmt *s, const char *key, const char *value) {
    sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, value, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int set_meta_number(sqlite3_stmt *s, const char *key, double value) {
    char text[64];
    snprintf(text, sizeof text, "%.17g", value);
    return set_meta(s, key, text);
}

static int prepare_meta(sqlite3 *db, sqlite3_stmt **s) {
    return sqlite3_prepare_v2(db,
                              "INSERT OR REPLACE INTO metadata (key, value) "
                              "VALUES (?, ?)",
                              -1, s, NULL);
}

/* One integer a query returns; rc says whether it did. */
static int64_t query_int(sqlite3 *db, const char *sql, int *rc) {
    sqlite3_stmt *s = NULL;
    int64_t value = 0;
    *rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
    if (*rc == SQLITE_OK) {
        *rc = sqlite3_step(s);
        if (*rc == SQLITE_ROW) {
            value = sqlite3_column_int64(s, 0);
            *rc = SQLITE_OK;
        } else if (*rc == SQLITE_DONE) {
            *rc = SQLITE_NOTFOUND;
        }
    }
    sqlite3_finalize(s);
    return value;
}

/* The tables of a recording the file has; -1 when it is no database
 * (rc says why). */
static int count_recording_tables(sqlite3 *db, int *rc) {
    int64_t n = query_int(db,
                          "SELECT count(*) FROM sqlite_master WHERE type = "
                          "'table' AND name IN ('trajectory_data', "
                          "'metadata', 'geometry', 'throng_frames')",
                          rc);
    return *rc == SQLITE_OK ? (int)n : -1;
}

/* The files SQLite may leave beside a database it created. */
static void remove_created(const char *path) {
    static const char *const suffixes[] = { "", "-journal", "-wal", "-shm" };
    char name[4096];
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        int n = snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
        if (n > 0 && (size_t)n < sizeof name)
            (void)unlink(name);
    }
}

/* A rollback journal (recorder_pages.c commits through one) and no
 * auto_vacuum (whose pointer maps the page writer does not keep). */
static int plain_file(sqlite3 *db, int *vacuum) {
    sqlite3_stmt *s = NULL;
    int rc =
        sqlite3_prepare_v2(db, "PRAGMA journal_mode = DELETE", -1, &s, NULL);
    const char *mode = NULL;
    if (rc == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        mode = (const char *)sqlite3_column_text(s, 0);
    if (rc == SQLITE_OK && (!mode || strcmp(mode, "delete") != 0))
        rc = SQLITE_BUSY;
    sqlite3_finalize(s);
    if (rc != SQLITE_OK)
        return rc;
    *vacuum = query_int(db, "PRAGMA auto_vacuum", &rc) != 0;
    if (rc == SQLITE_OK && *vacuum)
        rc = exec(db, "PRAGMA auto_vacuum = NONE");
    return rc;
}

static throng_status write_schema(sqlite3 *db, const recorder_meta *meta,
                                  bool replace, const char *wkt,
                                  uint32_t roots[2], char *why,
                                  size_t why_size) {
    char sql[160];
    snprintf(sql, sizeof sql, "PRAGMA page_size = %d", REC_PAGE_SIZE);
    int vacuum = 0;
    int rc = exec(db, sql);
    if (rc == SQLITE_OK)
        rc = plain_file(db, &vacuum);
    if (rc == SQLITE_OK)
        rc = exec(db, "BEGIN IMMEDIATE");
    if (rc != SQLITE_OK)
        return db_fail(db, rc, "starting the schema", why, why_size);
    for (size_t i = 0; replace && rc == SQLITE_OK &&
                       i < sizeof recording_tables / sizeof recording_tables[0];
         i++) {
        snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS %s",
                 recording_tables[i]);
        rc = exec(db, sql);
    }
    if (rc == SQLITE_OK)
        rc = exec(db, meta->dims == 3
                          ? "CREATE TABLE trajectory_data (frame INTEGER NOT "
                            "NULL, id INTEGER NOT NULL, pos_x REAL NOT NULL, "
                            "pos_y REAL NOT NULL, ori_x REAL NOT NULL, ori_y "
                            "REAL NOT NULL, pos_z REAL NOT NULL, ori_z REAL "
                            "NOT NULL, PRIMARY KEY (frame, id)) WITHOUT ROWID"
                          : "CREATE TABLE trajectory_data (frame INTEGER NOT "
                            "NULL, id INTEGER NOT NULL, pos_x REAL NOT NULL, "
                            "pos_y REAL NOT NULL, ori_x REAL NOT NULL, ori_y "
                            "REAL NOT NULL, PRIMARY KEY (frame, id)) WITHOUT "
                            "ROWID");
    if (rc == SQLITE_OK)
        rc = exec(db, "CREATE TABLE metadata (key TEXT NOT NULL UNIQUE "
                      "PRIMARY KEY, value TEXT NOT NULL)");
    if (rc == SQLITE_OK)
        rc = exec(db, "CREATE TABLE geometry (wkt TEXT NOT NULL)");
    if (rc == SQLITE_OK)
        rc = exec(db, "CREATE TABLE throng_frames (frame INTEGER PRIMARY KEY, "
                      "step INTEGER NOT NULL, agents INTEGER NOT NULL)");
    sqlite3_stmt *meta_row = NULL;
    if (rc == SQLITE_OK)
        rc = prepare_meta(db, &meta_row);
    char number[32];
    if (rc == SQLITE_OK)
        rc = set_meta(meta_row, "version", "1");
    if (rc == SQLITE_OK)
        rc = set_meta_number(meta_row, "fps", meta->fps);
    if (rc == SQLITE_OK)
        rc = set_meta(meta_row, "throng_version", throng_version());
    snprintf(number, sizeof number, "%d", meta->dims);
    if (rc == SQLITE_OK)
        rc = set_meta(meta_row, "dimensions", number);
    snprintf(number, sizeof number, "%u", (unsigned)meta->every);
    if (rc == SQLITE_OK)
        rc = set_meta(meta_row, "every", number);
    sqlite3_finalize(meta_row);
    if (rc == SQLITE_OK) {
        sqlite3_stmt *s = NULL;
        rc = sqlite3_prepare_v2(db, "INSERT INTO geometry (wkt) VALUES (?)", -1,
                                &s, NULL);
        if (rc == SQLITE_OK) {
            sqlite3_bind_text(s, 1, wkt, -1, SQLITE_STATIC);
            rc = sqlite3_step(s);
            rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
        }
        sqlite3_finalize(s);
    }
    if (rc == SQLITE_OK)
        rc = exec(db, "COMMIT");
    if (rc != SQLITE_OK) {
        throng_status st = db_fail(db, rc, "writing the schema", why, why_size);
        (void)exec(db, "ROLLBACK");
        return st;
    }
    /* auto_vacuum = NONE takes effect when the file is rebuilt. */
    if (vacuum)
        rc = exec(db, "VACUUM");
    /* The trees the page writer grows, where VACUUM left them. */
    if (rc == SQLITE_OK)
        roots[0] = (uint32_t)query_int(db,
                                       "SELECT rootpage FROM sqlite_master "
                                       "WHERE name = 'trajectory_data'",
                                       &rc);
    if (rc == SQLITE_OK)
        roots[1] = (uint32_t)query_int(db,
                                       "SELECT rootpage FROM sqlite_master "
                                       "WHERE name = 'throng_frames'",
                                       &rc);
    if (rc != SQLITE_OK)
        return db_fail(db, rc, "reading the schema", why, why_size);
    return THRONG_OK;
}

throng_status recorder_db_open(const char *path, const recorder_meta *meta,
                               bool replace, const char *wkt, recorder_db **out,
                               char *why, size_t why_size) {
    *out = NULL;
    struct stat st;
    const int existed = stat(path, &st) == 0;
    recorder_db *r = calloc(1, sizeof *r);
    const size_t length = strlen(path);
    if (r)
        r->path = malloc(length + 1u);
    if (!r || !r->path) {
        free(r);
        say(why, why_size, "no memory");
        return THRONG_ERR_OUT_OF_MEMORY;
    }
    memcpy(r->path, path, length + 1u);
    r->dims = meta->dims;
    for (int k = 0; k < 2; k++) {
        r->lo[k] = r->committed_lo[k] = (double)INFINITY;
        r->hi[k] = r->committed_hi[k] = -(double)INFINITY;
    }
    throng_status status = THRONG_OK;
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(
        path, &db,
        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        status = db_fail(NULL, rc, "cannot open the file", why, why_size);
        say(why, why_size, "cannot open '%s': %s", path,
            db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    }
    if (status == THRONG_OK)
        sqlite3_busy_timeout(db, REC_BUSY_MS);
    if (status == THRONG_OK && sqlite3_db_readonly(db, "main") != 0) {
        say(why, why_size, "'%s' is not writable", path);
        status = THRONG_ERR_IO;
    }
    if (status == THRONG_OK) {
        int tables = count_recording_tables(db, &rc);
        if (tables < 0) {
            say(why, why_size, "'%s' is not an SQLite database (%s)", path,
                sqlite3_errmsg(db));
            status =
                rc == SQLITE_NOMEM ? THRONG_ERR_OUT_OF_MEMORY : THRONG_ERR_IO;
        } else if (tables > 0 && !replace) {
            say(why, why_size,
                "'%s' holds a recording already (set replace to record "
                "over it)",
                path);
            status = THRONG_ERR_INVALID_ARG;
        }
    }
    uint32_t roots[2] = { 0, 0 };
    if (status == THRONG_OK)
        status = write_schema(db, meta, replace, wkt, roots, why, why_size);
    rc = sqlite3_close(db);
    if (status == THRONG_OK && rc != SQLITE_OK)
        status = db_fail(NULL, rc, "closing the file", why, why_size);
    /* From here on the page writer owns the file. */
    if (status == THRONG_OK)
        status = recorder_pages_open(path, roots, &r->pages, why, why_size);
    if (status != THRONG_OK) {
        if (!existed)
            remove_created(path);
        free(r->path);
        free(r);
        return status;
    }
    r->small_ints = recorder_pages_small_ints(r->pages);
    *out = r;
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* Rows as cells                                                            */
/* ------------------------------------------------------------------------ */

/* An INTEGER's serial type, the smallest that holds it (types 8 and 9,
 * the values 0 and 1 in no bytes, where the file allows them); its size
 * in *bytes. */
static uint8_t int_type(int64_t v, int small_ints, uint32_t *bytes) {
    if (small_ints && (v == 0 || v == 1)) {
        *bytes = 0;
        return (uint8_t)(8 + v);
    }
    const uint64_t u = v < 0 ? ~(uint64_t)v : (uint64_t)v;
    if (u < 0x80u) {
        *bytes = 1;
        return 1;
    }
    if (u < 0x8000u) {
        *bytes = 2;
        return 2;
    }
    if (u < 0x800000u) {
        *bytes = 3;
        return 3;
    }
    if (u < UINT64_C(0x80000000)) {
        *bytes = 4;
        return 4;
    }
    if (u < UINT64_C(0x800000000000)) {
        *bytes = 6;
        return 5;
    }
    *bytes = 8;
    return 6;
}

/* Eight bytes, most significant first. */
static uint64_t big_endian(uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return __builtin_bswap64(v);
#else
    return v;
#endif
}

/* An integer's `bytes` lowest bytes, most significant first; writes 8
 * bytes at out (the cell has room past the value). */
static void put_int(uint8_t *out, int64_t v, uint32_t bytes) {
    if (!bytes)
        return;
    const uint64_t be = big_endian((uint64_t)v << (64u - 8u * bytes));
    memcpy(out, &be, sizeof be);
}

/* A REAL: serial type 7, the double big-endian. */
static void put_real(uint8_t *out, float value) {
    const double d = (double)value;
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    bits = big_endian(bits);
    memcpy(out, &bits, sizeof bits);
}

/* A column a NOT NULL REAL cannot hold (SQLite reads NaN as NULL). */
static int has_nan(const float *column, uint32_t n) {
    int nan = 0;
    for (uint32_t i = 0; i < n; i++)
        nan |= column[i] != column[i];
    return nan;
}

/* throng_frames' row: the frame is the rowid (its INTEGER PRIMARY KEY
 * column is stored as NULL), then step and agents. */
static throng_status insert_frame_row(recorder_db *r, const recorder_frame *f,
                                      char *why, size_t why_size) {
    uint8_t record[32], cell[48];
    uint32_t step_bytes, agent_bytes;
    record[1] = 0;
    record[2] = int_type((int64_t)f->step, r->small_ints, &step_bytes);
    record[3] = int_type((int64_t)f->count, r->small_ints, &agent_bytes);
    record[0] = 4;
    put_int(record + 4, (int64_t)f->step, step_bytes);
    put_int(record + 4 + step_bytes, (int64_t)f->count, agent_bytes);
    const uint32_t payload = 4u + step_bytes + agent_bytes;
    uint32_t size = recorder_pages_varint(cell, payload);
    size += recorder_pages_varint(cell + size, (uint64_t)f->frame);
    memcpy(cell + size, record, payload);
    return recorder_pages_append(r->pages, REC_TREE_FRAMES, cell,
                                 size + payload, f->frame, why, why_size);
}

throng_status recorder_db_insert(recorder_db *r, recorder_frame *f, char *why,
                                 size_t why_size) {
    if (r->dead) {
        say(why, why_size, "the file's writer failed before");
        return THRONG_ERR_IO;
    }
    const uint32_t twin = sort_frame(f);
    if (twin != UINT32_MAX) {
        say(why, why_size,
            "frame %lld: two agents have id %lld (a host key equal to the "
            "number given a keyless agent: key every agent or none)",
            (long long)f->frame, (long long)f->id[f->order[twin]]);
        return THRONG_ERR_DUPLICATE_KEY;
    }
    const uint32_t n = f->count;
    const int dims3 = r->dims == 3;
    const float *columns[6] = { f->x, f->y, f->fx, f->fy, f->z, f->fz };
    const unsigned reals = dims3 ? 6u : 4u;
    for (unsigned k = 0; k < reals; k++)
        if (has_nan(columns[k], n)) {
            say(why, why_size,
                "writing frame %lld: a position or heading is NaN, which "
                "the file's NOT NULL columns cannot hold",
                (long long)f->frame);
            return THRONG_ERR_IO;
        }
    /* A cell: its payload size, then the record: the header's size, the
     * serial types (frame, id, the REALs), the values. */
    uint8_t cell[96];
    uint32_t frame_bytes;
    const uint8_t frame_type = int_type(f->frame, r->small_ints, &frame_bytes);
    const uint32_t header = 3u + reals;
    cell[1] = (uint8_t)header;
    cell[2] = frame_type;
    memset(cell + 4, 7, reals);
    put_int(cell + 1 + header, f->frame, frame_bytes);
    uint8_t *const id_at = cell + 1 + header + frame_bytes;
    throng_status st = THRONG_OK;
    for (uint32_t i = 0; i < n && st == THRONG_OK; i++) {
        const uint32_t j = f->order[i];
        uint32_t id_bytes;
        cell[3] = int_type(f->id[j], r->small_ints, &id_bytes);
        put_int(id_at, f->id[j], id_bytes);
        uint8_t *at = id_at + id_bytes;
        for (unsigned k = 0; k < reals; k++, at += 8)
            put_real(at, columns[k][j]);
        const uint32_t size = (uint32_t)(at - cell);
        cell[0] = (uint8_t)(size - 1u);
        st = recorder_pages_append(r->pages, REC_TREE_ROWS, cell, size, 0, why,
                                   why_size);
    }
    if (st == THRONG_OK)
        st = insert_frame_row(r, f, why, why_size);
    if (st != THRONG_OK) {
        r->dead = 1;
        return st;
    }
    for (uint32_t i = 0; i < n; i++) {
        double x = (double)f->x[i], y = (double)f->y[i];
        r->lo[0] = x < r->lo[0] ? x : r->lo[0];
        r->hi[0] = x > r->hi[0] ? x : r->hi[0];
        r->lo[1] = y < r->lo[1] ? y : r->lo[1];
        r->hi[1] = y > r->hi[1] ? y : r->hi[1];
    }
    return THRONG_OK;
}

throng_status recorder_db_commit(recorder_db *r, char *why, size_t why_size) {
    if (r->dead) {
        say(why, why_size, "the file's writer failed before");
        return THRONG_ERR_IO;
    }
    throng_status st = recorder_pages_commit(r->pages, why, why_size);
    if (st != THRONG_OK) {
        r->dead = 1;
        return st;
    }
    for (int k = 0; k < 2; k++) {
        r->committed_lo[k] = r->lo[k];
        r->committed_hi[k] = r->hi[k];
    }
    return THRONG_OK;
}

void recorder_db_rollback(recorder_db *r) {
    /* What was appended since the last commit is never committed: the
     * page writer drops it at close. */
    r->dead = 1;
}

void recorder_db_bounds(const recorder_db *r, double lo[2], double hi[2]) {
    for (int k = 0; k < 2; k++) {
        lo[k] = r->committed_lo[k];
        hi[k] = r->committed_hi[k];
    }
}

/* The four bounds JuPedSim's viewer reads, of the committed positions. */
static int write_bounds(const recorder_db *r, sqlite3 *db) {
    if (!(r->committed_lo[0] <= r->committed_hi[0]))
        return SQLITE_OK;
    sqlite3_stmt *s = NULL;
    int rc = prepare_meta(db, &s);
    if (rc == SQLITE_OK)
        rc = set_meta_number(s, "xmin", r->committed_lo[0]);
    if (rc == SQLITE_OK)
        rc = set_meta_number(s, "xmax", r->committed_hi[0]);
    if (rc == SQLITE_OK)
        rc = set_meta_number(s, "ymin", r->committed_lo[1]);
    if (rc == SQLITE_OK)
        rc = set_meta_number(s, "ymax", r->committed_hi[1]);
    sqlite3_finalize(s);
    return rc;
}

throng_status recorder_db_close(recorder_db *r, const char *wkt, char *why,
                                size_t why_size) {
    throng_status status = recorder_pages_close(r->pages, why, why_size);
    /* SQLite again, for the last metadata and geometry (and, after a
     * commit that failed halfway, to roll its journal back). */
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(r->path, &db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(db, REC_BUSY_MS);
        rc = exec(db, "BEGIN IMMEDIATE");
    }
    if (rc == SQLITE_OK && wkt) {
        sqlite3_stmt *s = NULL;
        rc =
            sqlite3_prepare_v2(db, "UPDATE geometry SET wkt = ?", -1, &s, NULL);
        if (rc == SQLITE_OK) {
            sqlite3_bind_text(s, 1, wkt, -1, SQLITE_STATIC);
            rc = sqlite3_step(s);
            rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
        }
        sqlite3_finalize(s);
    }
    if (rc == SQLITE_OK)
        rc = write_bounds(r, db);
    if (rc == SQLITE_OK)
        rc = exec(db, "COMMIT");
    if (rc != SQLITE_OK && status == THRONG_OK)
        status = db_fail(db, rc, "writing the last metadata", why, why_size);
    rc = sqlite3_close(db);
    if (rc != SQLITE_OK && status == THRONG_OK)
        status = db_fail(NULL, rc, "closing the file", why, why_size);
    free(r->path);
    free(r);
    return status;
}

#else

/* Built without SQLite: recorder.c refuses to open a recorder, and
 * nothing here is needed. */
typedef int recorder_db_unused;

#endif
