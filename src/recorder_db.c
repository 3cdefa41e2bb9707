/* SPDX-License-Identifier: MIT */
/*
 * The recorder's SQLite file: JuPedSim's trajectory schema, version 1
 * (throng.h, "Recording trajectories"), and the fastest honest way found
 * to put a frame's rows into it.
 *
 * Where a row's time goes. SQLite spends a few thousand instructions on
 * every row it inserts, most of them in its bytecode engine and B-tree,
 * and the way rows arrive decides how many. Counted with callgrind on
 * 100,000-row frames of six columns: binding six values and stepping a
 * prepared INSERT per row takes 2.4 times the instructions of one
 * INSERT ... SELECT over a virtual table that hands SQLite the frame's
 * columns where they lie; rows in (frame, id) order take less than half
 * those in any other order (every insert lands on the B-tree's right edge,
 * whose pages stay in cache); a table clustered on its (frame, id) key
 * (WITHOUT ROWID) writes one B-tree where a rowid table and its index
 * write two, 15% fewer instructions; 64 KiB pages 6% fewer than 4 KiB.
 * So each frame is sorted by id here (a radix sort over the bytes in
 * which the ids differ), then moved by one statement through the
 * virtual table throng_frame_rows, an eponymous module that exists only
 * on this connection and writes nothing to the file.
 *
 * Safety. Frames are committed in batches (recorder.c decides when);
 * the file is in WAL mode with synchronous=NORMAL while recording, so a
 * process killed at any moment leaves a file whose committed
 * transactions are all there and whose last, half-written one is not,
 * and a power cut loses at most the last commits, never the file.
 * Closing checkpoints the log into the file and returns it to a single
 * file (journal_mode DELETE).
 */
#include "recorder_db.h"

#ifdef THRONG_HAVE_SQLITE

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The page size of a new file (bytes): see above. */
#define REC_PAGE_SIZE 65536
/* SQLite's page cache while recording, KiB: the right edge of the
 * B-tree and a batch's dirty pages stay in memory. */
#define REC_CACHE_KIB 32768

struct recorder_db {
    sqlite3 *db;
    sqlite3_stmt *insert_rows, *insert_frame, *set_meta, *begin, *commit;
    int dims;
    int in_transaction;
    /* The frame the virtual table shows. */
    const recorder_frame *frame;
    double lo[2], hi[2];
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
/* The virtual table over one frame                                         */
/* ------------------------------------------------------------------------ */

typedef struct rows_table {
    sqlite3_vtab base;
    recorder_db *owner;
} rows_table;

typedef struct rows_cursor {
    sqlite3_vtab_cursor base;
    uint32_t row;
} rows_cursor;

static int rows_connect(sqlite3 *db, void *aux, int argc,
                        const char *const *argv, sqlite3_vtab **out,
                        char **error) {
    (void)argc;
    (void)argv;
    (void)error;
    recorder_db *owner = aux;
    int rc = sqlite3_declare_vtab(
        db, owner->dims == 3
                ? "CREATE TABLE x(frame INTEGER, id INTEGER, pos_x REAL, "
                  "pos_y REAL, ori_x REAL, ori_y REAL, pos_z REAL, ori_z REAL)"
                : "CREATE TABLE x(frame INTEGER, id INTEGER, pos_x REAL, "
                  "pos_y REAL, ori_x REAL, ori_y REAL)");
    if (rc != SQLITE_OK)
        return rc;
    rows_table *t = sqlite3_malloc(sizeof *t);
    if (!t)
        return SQLITE_NOMEM;
    memset(t, 0, sizeof *t);
    t->owner = owner;
    *out = &t->base;
    return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *table) {
    sqlite3_free(table);
    return SQLITE_OK;
}

static int rows_best_index(sqlite3_vtab *table, sqlite3_index_info *info) {
    (void)table;
    /* One plan: every row, in the order given. */
    info->estimatedCost = 1e6;
    info->orderByConsumed = 0;
    return SQLITE_OK;
}

static int rows_open(sqlite3_vtab *table, sqlite3_vtab_cursor **out) {
    (void)table;
    rows_cursor *c = sqlite3_malloc(sizeof *c);
    if (!c)
        return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    *out = &c->base;
    return SQLITE_OK;
}

static int rows_close(sqlite3_vtab_cursor *cursor) {
    sqlite3_free(cursor);
    return SQLITE_OK;
}

static int rows_filter(sqlite3_vtab_cursor *cursor, int index_number,
                       const char *index_text, int argc, sqlite3_value **argv) {
    (void)index_number;
    (void)index_text;
    (void)argc;
    (void)argv;
    ((rows_cursor *)cursor)->row = 0;
    return SQLITE_OK;
}

static int rows_next(sqlite3_vtab_cursor *cursor) {
    ((rows_cursor *)cursor)->row++;
    return SQLITE_OK;
}

static const recorder_frame *cursor_frame(sqlite3_vtab_cursor *cursor) {
    return ((rows_table *)cursor->pVtab)->owner->frame;
}

static int rows_eof(sqlite3_vtab_cursor *cursor) {
    const recorder_frame *f = cursor_frame(cursor);
    return !f || ((rows_cursor *)cursor)->row >= f->count;
}

static int rows_column(sqlite3_vtab_cursor *cursor, sqlite3_context *context,
                       int column) {
    const recorder_frame *f = cursor_frame(cursor);
    const uint32_t i = f->order[((rows_cursor *)cursor)->row];
    switch (column) {
    case 0:
        sqlite3_result_int64(context, f->frame);
        break;
    case 1:
        sqlite3_result_int64(context, f->id[i]);
        break;
    case 2:
        sqlite3_result_double(context, (double)f->x[i]);
        break;
    case 3:
        sqlite3_result_double(context, (double)f->y[i]);
        break;
    case 4:
        sqlite3_result_double(context, (double)f->fx[i]);
        break;
    case 5:
        sqlite3_result_double(context, (double)f->fy[i]);
        break;
    case 6:
        sqlite3_result_double(context, (double)f->z[i]);
        break;
    default:
        sqlite3_result_double(context, (double)f->fz[i]);
        break;
    }
    return SQLITE_OK;
}

static int rows_rowid(sqlite3_vtab_cursor *cursor, sqlite3_int64 *out) {
    *out = ((rows_cursor *)cursor)->row;
    return SQLITE_OK;
}

/* Eponymous only (no xCreate): usable by its name on the connection that
 * registered it, never stored in the file. */
static const sqlite3_module rows_module = {
    .iVersion = 0,
    .xCreate = NULL,
    .xConnect = rows_connect,
    .xBestIndex = rows_best_index,
    .xDisconnect = rows_disconnect,
    .xDestroy = rows_disconnect,
    .xOpen = rows_open,
    .xClose = rows_close,
    .xFilter = rows_filter,
    .xNext = rows_next,
    .xEof = rows_eof,
    .xColumn = rows_column,
    .xRowid = rows_rowid,
};

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

static int set_meta(recorder_db *r, const char *key, const char *value) {
    sqlite3_stmt *s = r->set_meta;
    sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, value, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int set_meta_number(recorder_db *r, const char *key, double value) {
    char text[64];
    snprintf(text, sizeof text, "%.17g", value);
    return set_meta(r, key, text);
}

static void finalize_all(recorder_db *r) {
    sqlite3_stmt *all[] = { r->insert_rows, r->insert_frame, r->set_meta,
                            r->begin, r->commit };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        sqlite3_finalize(all[i]);
    r->insert_rows = r->insert_frame = r->set_meta = r->begin = r->commit =
        NULL;
}

/* The tables of a recording the file has; -1 when it is no database
 * (rc says why). */
static int count_recording_tables(sqlite3 *db, int *rc) {
    sqlite3_stmt *s = NULL;
    *rc = sqlite3_prepare_v2(db,
                             "SELECT count(*) FROM sqlite_master WHERE type = "
                             "'table' AND name IN ('trajectory_data', "
                             "'metadata', 'geometry', 'throng_frames')",
                             -1, &s, NULL);
    int n = -1;
    if (*rc == SQLITE_OK) {
        *rc = sqlite3_step(s);
        if (*rc == SQLITE_ROW) {
            n = sqlite3_column_int(s, 0);
            *rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(s);
    return n;
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

static throng_status write_schema(recorder_db *r, const recorder_meta *meta,
                                  bool replace, const char *wkt, char *why,
                                  size_t why_size) {
    sqlite3 *db = r->db;
    char sql[160];
    snprintf(sql, sizeof sql, "PRAGMA page_size = %d", REC_PAGE_SIZE);
    int rc = exec(db, sql);
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
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db,
                                "INSERT OR REPLACE INTO metadata (key, value) "
                                "VALUES (?, ?)",
                                -1, &r->set_meta, NULL);
    char number[32];
    if (rc == SQLITE_OK)
        rc = set_meta(r, "version", "1");
    if (rc == SQLITE_OK)
        rc = set_meta_number(r, "fps", meta->fps);
    if (rc == SQLITE_OK)
        rc = set_meta(r, "throng_version", throng_version());
    snprintf(number, sizeof number, "%d", meta->dims);
    if (rc == SQLITE_OK)
        rc = set_meta(r, "dimensions", number);
    snprintf(number, sizeof number, "%u", (unsigned)meta->every);
    if (rc == SQLITE_OK)
        rc = set_meta(r, "every", number);
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
    /* WAL from here on: see the top of the file. */
    sqlite3_stmt *s = NULL;
    rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &s, NULL);
    const char *mode = NULL;
    if (rc == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        mode = (const char *)sqlite3_column_text(s, 0);
    int wal = mode && strcmp(mode, "wal") == 0;
    sqlite3_finalize(s);
    if (!wal) {
        say(why, why_size, "switching to WAL mode: %s", sqlite3_errmsg(db));
        return THRONG_ERR_IO;
    }
    snprintf(sql, sizeof sql,
             "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -%d",
             REC_CACHE_KIB);
    rc = exec(db, sql);
    if (rc != SQLITE_OK)
        return db_fail(db, rc, "setting up the file", why, why_size);
    return THRONG_OK;
}

throng_status recorder_db_open(const char *path, const recorder_meta *meta,
                               bool replace, const char *wkt, recorder_db **out,
                               char *why, size_t why_size) {
    *out = NULL;
    struct stat st;
    const int existed = stat(path, &st) == 0;
    recorder_db *r = calloc(1, sizeof *r);
    if (!r) {
        say(why, why_size, "no memory");
        return THRONG_ERR_OUT_OF_MEMORY;
    }
    r->dims = meta->dims;
    r->lo[0] = r->lo[1] = (double)INFINITY;
    r->hi[0] = r->hi[1] = -(double)INFINITY;
    throng_status status = THRONG_OK;
    int rc = sqlite3_open_v2(
        path, &r->db,
        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        status = db_fail(NULL, rc, "cannot open the file", why, why_size);
        say(why, why_size, "cannot open '%s': %s", path,
            r->db ? sqlite3_errmsg(r->db) : sqlite3_errstr(rc));
    }
    if (status == THRONG_OK && sqlite3_db_readonly(r->db, "main") != 0) {
        say(why, why_size, "'%s' is not writable", path);
        status = THRONG_ERR_IO;
    }
    if (status == THRONG_OK) {
        int tables = count_recording_tables(r->db, &rc);
        if (tables < 0) {
            say(why, why_size, "'%s' is not an SQLite database (%s)", path,
                sqlite3_errmsg(r->db));
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
    if (status == THRONG_OK)
        status = write_schema(r, meta, replace, wkt, why, why_size);
    if (status == THRONG_OK) {
        rc = sqlite3_create_module_v2(r->db, "throng_frame_rows", &rows_module,
                                      r, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_prepare_v3(r->db,
                                    "INSERT INTO trajectory_data SELECT * "
                                    "FROM throng_frame_rows",
                                    -1, SQLITE_PREPARE_PERSISTENT,
                                    &r->insert_rows, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_prepare_v3(r->db,
                                    "INSERT INTO throng_frames (frame, step, "
                                    "agents) VALUES (?, ?, ?)",
                                    -1, SQLITE_PREPARE_PERSISTENT,
                                    &r->insert_frame, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_prepare_v3(r->db, "BEGIN", -1,
                                    SQLITE_PREPARE_PERSISTENT, &r->begin, NULL);
        if (rc == SQLITE_OK)
            rc =
                sqlite3_prepare_v3(r->db, "COMMIT", -1,
                                   SQLITE_PREPARE_PERSISTENT, &r->commit, NULL);
        if (rc != SQLITE_OK)
            status = db_fail(r->db, rc, "preparing the inserts", why, why_size);
    }
    if (status != THRONG_OK) {
        finalize_all(r);
        sqlite3_close(r->db);
        if (!existed)
            remove_created(path);
        free(r);
        return status;
    }
    *out = r;
    return THRONG_OK;
}

static int step_done(sqlite3_stmt *s) {
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

throng_status recorder_db_insert(recorder_db *r, recorder_frame *f, char *why,
                                 size_t why_size) {
    const uint32_t twin = sort_frame(f);
    if (twin != UINT32_MAX) {
        say(why, why_size,
            "frame %lld: two agents have id %lld (a host key equal to the "
            "number given a keyless agent: key every agent or none)",
            (long long)f->frame, (long long)f->id[f->order[twin]]);
        return THRONG_ERR_DUPLICATE_KEY;
    }
    int rc = SQLITE_OK;
    if (!r->in_transaction) {
        rc = step_done(r->begin);
        if (rc != SQLITE_OK)
            return db_fail(r->db, rc, "beginning a transaction", why, why_size);
        r->in_transaction = 1;
    }
    r->frame = f;
    rc = step_done(r->insert_rows);
    r->frame = NULL;
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(r->insert_frame, 1, f->frame);
        sqlite3_bind_int64(r->insert_frame, 2, (sqlite3_int64)f->step);
        sqlite3_bind_int64(r->insert_frame, 3, f->count);
        rc = step_done(r->insert_frame);
    }
    if (rc != SQLITE_OK) {
        char what[64];
        snprintf(what, sizeof what, "writing frame %lld", (long long)f->frame);
        throng_status st = db_fail(r->db, rc, what, why, why_size);
        recorder_db_rollback(r);
        return st;
    }
    for (uint32_t i = 0; i < f->count; i++) {
        double x = (double)f->x[i], y = (double)f->y[i];
        r->lo[0] = x < r->lo[0] ? x : r->lo[0];
        r->hi[0] = x > r->hi[0] ? x : r->hi[0];
        r->lo[1] = y < r->lo[1] ? y : r->lo[1];
        r->hi[1] = y > r->hi[1] ? y : r->hi[1];
    }
    return THRONG_OK;
}

/* The four bounds JuPedSim's viewer reads, as they are now. */
static int write_bounds(recorder_db *r) {
    if (!(r->lo[0] <= r->hi[0]))
        return SQLITE_OK;
    int rc = set_meta_number(r, "xmin", r->lo[0]);
    if (rc == SQLITE_OK)
        rc = set_meta_number(r, "xmax", r->hi[0]);
    if (rc == SQLITE_OK)
        rc = set_meta_number(r, "ymin", r->lo[1]);
    if (rc == SQLITE_OK)
        rc = set_meta_number(r, "ymax", r->hi[1]);
    return rc;
}

throng_status recorder_db_commit(recorder_db *r, char *why, size_t why_size) {
    if (!r->in_transaction)
        return THRONG_OK;
    int rc = write_bounds(r);
    if (rc == SQLITE_OK)
        rc = step_done(r->commit);
    if (rc != SQLITE_OK) {
        throng_status st = db_fail(r->db, rc, "committing", why, why_size);
        recorder_db_rollback(r);
        return st;
    }
    r->in_transaction = 0;
    return THRONG_OK;
}

void recorder_db_rollback(recorder_db *r) {
    if (sqlite3_get_autocommit(r->db) == 0)
        (void)exec(r->db, "ROLLBACK");
    r->in_transaction = 0;
}

void recorder_db_bounds(const recorder_db *r, double lo[2], double hi[2]) {
    for (int k = 0; k < 2; k++) {
        lo[k] = r->lo[k];
        hi[k] = r->hi[k];
    }
}

throng_status recorder_db_close(recorder_db *r, const char *wkt, char *why,
                                size_t why_size) {
    throng_status status = THRONG_OK;
    int rc = SQLITE_OK;
    if (wkt) {
        sqlite3_stmt *s = NULL;
        rc = sqlite3_prepare_v2(r->db, "UPDATE geometry SET wkt = ?", -1, &s,
                                NULL);
        if (rc == SQLITE_OK) {
            sqlite3_bind_text(s, 1, wkt, -1, SQLITE_STATIC);
            rc = step_done(s);
        }
        sqlite3_finalize(s);
    }
    if (rc == SQLITE_OK)
        rc = write_bounds(r);
    if (rc != SQLITE_OK)
        status = db_fail(r->db, rc, "writing the last metadata", why, why_size);
    finalize_all(r);
    /* Checkpoints the log into the file and removes it. */
    if (status == THRONG_OK) {
        rc = exec(r->db, "PRAGMA journal_mode = DELETE");
        if (rc != SQLITE_OK)
            status =
                db_fail(r->db, rc, "checkpointing the file", why, why_size);
    }
    rc = sqlite3_close(r->db);
    if (rc != SQLITE_OK && status == THRONG_OK)
        status = db_fail(NULL, rc, "closing the file", why, why_size);
    free(r);
    return status;
}

#else

/* Built without SQLite: recorder.c refuses to open a recorder, and
 * nothing here is needed. */
typedef int recorder_db_unused;

#endif
