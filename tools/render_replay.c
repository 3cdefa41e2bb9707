/* SPDX-License-Identifier: MIT */
/*
 * Reading a recording back for throng-render (render_replay.h).
 *
 * The geometry is read from its WKT without a geometry library: every
 * innermost parenthesised list of "x y" points (a polygon's ring, a line)
 * becomes wall segments between consecutive points, which is all a
 * picture needs of it. Only the numbers are read, so any WKT of polygons
 * and lines draws, whatever its nesting.
 */
#include "render_replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef THRONG_HAVE_SQLITE

#include <math.h>
#include <sqlite3.h>

struct replay {
    sqlite3 *db;
    sqlite3_stmt *rows;
    int dims;
    int64_t *frames;
    uint32_t frame_count;
    uint64_t max_id;
    char *wkt;
};

static int fail(char *why, size_t size, const char *what, sqlite3 *db) {
    snprintf(why, size, "%s: %s", what, db ? sqlite3_errmsg(db) : "no memory");
    return -1;
}

int replay_open(const char *path, replay **out, char *why, size_t why_size) {
    *out = NULL;
    replay *r = calloc(1, sizeof *r);
    if (!r)
        return fail(why, why_size, "opening", NULL);
    r->dims = 2;
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_open_v2(path, &r->db, SQLITE_OPEN_READONLY, NULL);
    if (rc != SQLITE_OK) {
        fail(why, why_size, "cannot open the recording", r->db);
        replay_close(r);
        return -1;
    }
    /* A 3D recording has pos_z. */
    if (sqlite3_prepare_v2(r->db,
                           "SELECT count(*) FROM "
                           "pragma_table_info('trajectory_data') WHERE name "
                           "= 'pos_z'",
                           -1, &s, NULL) != SQLITE_OK ||
        sqlite3_step(s) != SQLITE_ROW) {
        fail(why, why_size, "not a trajectory file", r->db);
        sqlite3_finalize(s);
        replay_close(r);
        return -1;
    }
    r->dims = sqlite3_column_int(s, 0) ? 3 : 2;
    sqlite3_finalize(s);
    rc = sqlite3_prepare_v2(r->db,
                            "SELECT DISTINCT frame FROM trajectory_data ORDER "
                            "BY frame",
                            -1, &s, NULL);
    uint32_t capacity = 0;
    while (rc == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
        if (r->frame_count == capacity) {
            capacity = capacity ? 2u * capacity : 64u;
            int64_t *grown = realloc(r->frames, capacity * sizeof *grown);
            if (!grown)
                break;
            r->frames = grown;
        }
        r->frames[r->frame_count++] = sqlite3_column_int64(s, 0);
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_OK) {
        fail(why, why_size, "reading the frames", r->db);
        replay_close(r);
        return -1;
    }
    r->max_id = 1u;
    if (sqlite3_prepare_v2(r->db, "SELECT max(id) FROM trajectory_data", -1, &s,
                           NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int64(s, 0) > 1)
        r->max_id = (uint64_t)sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    if (sqlite3_prepare_v2(r->db, "SELECT wkt FROM geometry", -1, &s, NULL) ==
            SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0)) {
        const char *text = (const char *)sqlite3_column_text(s, 0);
        r->wkt = malloc(strlen(text) + 1u);
        if (r->wkt)
            memcpy(r->wkt, text, strlen(text) + 1u);
    }
    sqlite3_finalize(s);
    rc = sqlite3_prepare_v2(r->db,
                            r->dims == 3
                                ? "SELECT id, pos_x, pos_y, pos_z, ori_x, "
                                  "ori_y, ori_z FROM trajectory_data WHERE "
                                  "frame = ?"
                                : "SELECT id, pos_x, pos_y, 0, ori_x, ori_y, "
                                  "0 FROM trajectory_data WHERE frame = ?",
                            -1, &r->rows, NULL);
    if (rc != SQLITE_OK) {
        fail(why, why_size, "not a trajectory file", r->db);
        replay_close(r);
        return -1;
    }
    *out = r;
    return 0;
}

const int64_t *replay_frames(const replay *r, uint32_t *count) {
    *count = r->frame_count;
    return r->frames;
}

uint64_t replay_max_id(const replay *r) {
    return r->max_id;
}

/* The geometry's innermost point lists as wall segments. */
static void add_walls(throng_world *w, const char *wkt) {
    const char *p = wkt;
    while ((p = strchr(p, '(')) != NULL) {
        const char *close = strchr(p, ')');
        const char *inner = strchr(p + 1, '(');
        if (!close)
            return;
        if (inner && inner < close) {
            p = inner;
            continue;
        }
        /* p .. close is one list of "x y" points. */
        const char *q = p + 1;
        double prev[2] = { 0.0, 0.0 };
        int have = 0;
        while (q < close) {
            char *end = NULL;
            double x = strtod(q, &end);
            if (end == q)
                break;
            q = end;
            double y = strtod(q, &end);
            if (end == q)
                break;
            q = end;
            while (q < close && (*q == ',' || *q == ' '))
                q++;
            if (have && hypot(x - prev[0], y - prev[1]) > 1e-5) {
                throng_wall_def d = throng_wall_def_default();
                d.a[0] = (float)prev[0];
                d.a[1] = (float)prev[1];
                d.b[0] = (float)x;
                d.b[1] = (float)y;
                throng_object o;
                (void)throng_wall_add(w, &d, &o);
            }
            prev[0] = x;
            prev[1] = y;
            have = 1;
        }
        p = close + 1;
    }
}

throng_world *replay_world(replay *r, int64_t frame, char *why,
                           size_t why_size) {
    throng_world_def d = throng_world_def_default();
    d.dimensions = r->dims;
    throng_world *w = NULL;
    if (throng_world_create(&d, &w) != THRONG_OK) {
        snprintf(why, why_size, "no world for frame %lld", (long long)frame);
        return NULL;
    }
    if (r->dims == 2 && r->wkt)
        add_walls(w, r->wkt);
    sqlite3_bind_int64(r->rows, 1, frame);
    int rc;
    while ((rc = sqlite3_step(r->rows)) == SQLITE_ROW) {
        throng_agent_def a = throng_agent_def_default();
        for (int k = 0; k < 3; k++) {
            a.position[k] = (float)sqlite3_column_double(r->rows, 1 + k);
            a.velocity[k] = (float)sqlite3_column_double(r->rows, 4 + k);
        }
        a.host_key = (uint64_t)sqlite3_column_int64(r->rows, 0);
        throng_agent h;
        if (throng_agent_add(w, &a, &h) != THRONG_OK) {
            snprintf(why, why_size, "frame %lld: %s", (long long)frame,
                     throng_world_last_error(w));
            sqlite3_reset(r->rows);
            throng_world_destroy(w);
            return NULL;
        }
    }
    sqlite3_reset(r->rows);
    if (rc != SQLITE_DONE) {
        fail(why, why_size, "reading a frame", r->db);
        throng_world_destroy(w);
        return NULL;
    }
    return w;
}

void replay_close(replay *r) {
    if (!r)
        return;
    sqlite3_finalize(r->rows);
    sqlite3_close(r->db);
    free(r->frames);
    free(r->wkt);
    free(r);
}

#else

int replay_open(const char *path, replay **out, char *why, size_t why_size) {
    (void)path;
    *out = NULL;
    snprintf(why, why_size,
             "this build has no SQLite (make SQLITE=0, or no "
             "libsqlite3-dev): it cannot read recordings");
    return -1;
}

const int64_t *replay_frames(const replay *r, uint32_t *count) {
    (void)r;
    *count = 0;
    return NULL;
}

uint64_t replay_max_id(const replay *r) {
    (void)r;
    return 1u;
}

throng_world *replay_world(replay *r, int64_t frame, char *why,
                           size_t why_size) {
    (void)r;
    (void)frame;
    snprintf(why, why_size, "no SQLite");
    return NULL;
}

void replay_close(replay *r) {
    (void)r;
}

#endif
