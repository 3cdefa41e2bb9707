/* SPDX-License-Identifier: MIT */
/*
 * Recording trajectories: the recorder object, its bounded queue of
 * frames and its writer thread (throng.h, "Recording trajectories").
 *
 * Why a thread. Even written as pages directly (recorder_db.c,
 * recorder_pages.c), a frame costs its sort by id, its encoding and its
 * writes: a few hundred instructions a row, some milliseconds for
 * 100,000 agents, and a commit's writes to the file. Writing on the
 * stepping thread would add all of it to every recorded step. Instead
 * record() copies what a frame needs (ids, positions, headings: 24 bytes
 * an agent in 2D) into a frame buffer, about a millisecond for 100,000
 * agents, and a writer thread of the recorder's own sorts and writes it
 * while the next steps run, on another core. The stepping thread pays
 * the copy as long as the writer keeps up on average; when it cannot,
 * the queue fills and record() waits for it, or skips the frame when the
 * host asked for that: memory never grows past queue_frames frames.
 *
 * What a frame holds is read from the world's own columns and slot
 * tables (the layers below), under the world's reader guard: the rows'
 * slots give each agent's host key or the number this recorder gave it
 * (kept per slot with the generation it was given to, so a slot's next
 * agent gets a new number). Nothing in the world is written, so a
 * recorded run steps to the same bits as one that is not recorded.
 *
 * The world can be destroyed before the recorder is closed: the recorder
 * watches it (world.h, world_watch) and from then on refuses record()
 * with THRONG_ERR_STALE_HANDLE, while flush() and close() still finish
 * the file, which never needed the world after open.
 *
 * Memory of the recorder's own (the object, the frame buffers, the id
 * tables) comes from the def's allocator or else the world's, and only
 * ever on the calling thread: the writer thread allocates nothing of the
 * host's. SQLite and the page writer allocate their own.
 */
#include "internal.h"

#include "busy.h"
#include "core.h"
#include "recorder_db.h"
#include "recorder_wkt.h"
#include "world.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Limits of throng_recorder_def (throng.h gives them). */
#define REC_MAX_EVERY 1000000u
#define REC_MAX_QUEUE 1024u
#define REC_MAX_FPS 1e9

throng_recorder_def throng_recorder_def_default(void) {
    throng_recorder_def d;
    memset(&d, 0, sizeof d);
    d.every = 1u;
    d.fps = 10.0;
    d.queue_frames = 8u;
    d.wait_when_full = true;
    d.replace = false;
    return d;
}

#ifdef THRONG_HAVE_SQLITE

#include <pthread.h>
#include <time.h>

/* A transaction is committed when no frame waits, or once it holds this
 * many rows: a batch of small frames shares one commit, and a stream of
 * large ones commits about every second or so. */
#define REC_COMMIT_ROWS (1u << 20)

struct throng_recorder {
    /* First, so the watch's address is the recorder's. */
    world_watch watch;
    /* NULL once the world was destroyed (recorder_world_gone). */
    throng_world *world;
    throng_allocator allocator;
    throng_recorder_def def;
    int dims;
    recorder_db *db;
    /* The geometry, for the last rewrite at close. */
    rec_shape *shapes;
    uint32_t shape_count;
    rec_area area;
    int area_derived;

    /* Ids of keyless agents, per slot: the generation a number was given
     * to (0: none yet) and the number. */
    uint32_t *slot_gen;
    int64_t *slot_id;
    uint32_t slot_capacity;
    int64_t next_id;

    /* The queue: frames[head] is the writer's (or next for it),
     * frames[tail] the next the caller fills, `filled` of them between. */
    recorder_frame *frames;
    uint32_t head, tail, filled;
    pthread_mutex_t lock;
    pthread_cond_t wake_writer; /* a frame was queued, or closing */
    pthread_cond_t room;        /* a frame buffer was freed */
    pthread_cond_t committed;   /* a commit, or a failure */
    pthread_t thread;
    int closing;

    /* Under lock: */
    throng_record_stats stats;
    throng_status failed; /* the writer's first failure */
    char failure[200];    /* its sentence (writer_failure prefixes it) */
    /* The caller's: the sentence last_error gives. */
    char error[256];
};

/* ------------------------------------------------------------------------ */
/* Memory                                                                   */
/* ------------------------------------------------------------------------ */

static size_t rounded(size_t size) {
    return (size + THRONG_ALIGN - 1) & ~(size_t)(THRONG_ALIGN - 1);
}

static void *rec_alloc(const throng_allocator *a, size_t size) {
    if (size == 0 || size > SIZE_MAX - THRONG_ALIGN)
        return NULL;
    if (a->alloc)
        return a->alloc(rounded(size), THRONG_ALIGN, a->user);
    return aligned_alloc(THRONG_ALIGN, rounded(size));
}

static void rec_free(const throng_allocator *a, void *p, size_t size) {
    if (!p)
        return;
    if (a->free)
        a->free(p, rounded(size), a->user);
    else
        free(p);
}

/* Bytes of a frame buffer per agent: the id, the columns, and the sort's
 * scratch (two orders, twice the keys: recorder_db.c, sort_frame). */
static size_t frame_row_bytes(int dims) {
    return sizeof(int64_t) + (size_t)(dims == 3 ? 6 : 4) * sizeof(float) +
           2u * sizeof(uint32_t) + 2u * sizeof(uint64_t);
}

/* Room for `count` agents in f, its old contents dropped: one block,
 * each array on a cache line of its own. */
static int frame_reserve(throng_recorder *r, recorder_frame *f,
                         uint32_t count) {
    if (count <= f->capacity && f->block)
        return 1;
    uint32_t capacity = f->capacity ? f->capacity : 64u;
    while (capacity < count)
        capacity = capacity > UINT32_MAX / 2u ? count : 2u * capacity;
    const size_t n = (size_t)capacity;
    if (n > SIZE_MAX / (2u * frame_row_bytes(r->dims)))
        return 0;
    const size_t floats = r->dims == 3 ? 6u : 4u;
    const size_t bytes = rounded(n * sizeof(int64_t)) +
                         rounded(2u * n * sizeof(uint64_t)) +
                         2u * rounded(n * sizeof(uint32_t)) +
                         floats * rounded(n * sizeof(float));
    char *p = rec_alloc(&r->allocator, bytes);
    if (!p)
        return 0;
    rec_free(&r->allocator, f->block, f->bytes);
    f->block = p;
    f->bytes = bytes;
    f->capacity = capacity;
    f->id = (int64_t *)(void *)p;
    p += rounded(n * sizeof(int64_t));
    /* Twice the keys: recorder_db.c, sort_frame. */
    f->key_spare = (uint64_t *)(void *)p;
    p += rounded(2u * n * sizeof(uint64_t));
    f->order = (uint32_t *)(void *)p;
    p += rounded(n * sizeof(uint32_t));
    f->order_spare = (uint32_t *)(void *)p;
    p += rounded(n * sizeof(uint32_t));
    float **columns[6] = { &f->x, &f->y, &f->fx, &f->fy, &f->z, &f->fz };
    f->z = f->fz = NULL;
    for (size_t k = 0; k < floats; k++) {
        *columns[k] = (float *)(void *)p;
        p += rounded(n * sizeof(float));
    }
    return 1;
}

/* The id tables cover every slot the world has. */
static int ids_reserve(throng_recorder *r, uint32_t slots) {
    if (slots <= r->slot_capacity)
        return 1;
    uint32_t capacity = r->slot_capacity ? r->slot_capacity : 64u;
    while (capacity < slots)
        capacity = capacity > UINT32_MAX / 2u ? slots : 2u * capacity;
    uint32_t *gen = rec_alloc(&r->allocator, (size_t)capacity * sizeof *gen);
    int64_t *id = rec_alloc(&r->allocator, (size_t)capacity * sizeof *id);
    if (!gen || !id) {
        rec_free(&r->allocator, gen, (size_t)capacity * sizeof *gen);
        rec_free(&r->allocator, id, (size_t)capacity * sizeof *id);
        return 0;
    }
    memset(gen, 0, (size_t)capacity * sizeof *gen);
    memset(id, 0, (size_t)capacity * sizeof *id);
    if (r->slot_capacity) {
        memcpy(gen, r->slot_gen, (size_t)r->slot_capacity * sizeof *gen);
        memcpy(id, r->slot_id, (size_t)r->slot_capacity * sizeof *id);
    }
    rec_free(&r->allocator, r->slot_gen,
             (size_t)r->slot_capacity * sizeof *gen);
    rec_free(&r->allocator, r->slot_id, (size_t)r->slot_capacity * sizeof *id);
    r->slot_gen = gen;
    r->slot_id = id;
    r->slot_capacity = capacity;
    return 1;
}

static size_t held_bytes(const throng_recorder *r) {
    size_t bytes =
        (size_t)r->slot_capacity * (sizeof(uint32_t) + sizeof(int64_t));
    for (uint32_t i = 0; i < r->def.queue_frames; i++)
        bytes += r->frames[i].bytes;
    return bytes;
}

/* ------------------------------------------------------------------------ */
/* Failures                                                                 */
/* ------------------------------------------------------------------------ */

static throng_status rec_fail(throng_recorder *r, throng_status status,
                              const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static throng_status rec_fail(throng_recorder *r, throng_status status,
                              const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, args);
    va_end(args);
    return status;
}

/* The writer's failure as the caller reports it (lock held). */
static throng_status writer_failure(throng_recorder *r, const char *fn) {
    snprintf(r->error, sizeof r->error, "%s: %s", fn, r->failure);
    return r->failed;
}

static double seconds_since(const struct timespec *start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) +
           (double)(now.tv_nsec - start->tv_nsec) * 1e-9;
}

/* ------------------------------------------------------------------------ */
/* The writer thread                                                        */
/* ------------------------------------------------------------------------ */

/* Records the writer's first failure, drops what waits, wakes everyone
 * (lock held). */
static void writer_fail(throng_recorder *r, throng_status status,
                        const char *why) {
    if (r->failed == THRONG_OK) {
        r->failed = status;
        snprintf(r->failure, sizeof r->failure, "%s", why);
    }
    r->filled = 0;
    r->head = r->tail;
    pthread_cond_broadcast(&r->room);
    pthread_cond_broadcast(&r->committed);
}

static void *writer_main(void *arg) {
    throng_recorder *r = arg;
    char why[200];
    uint64_t pending_frames = 0, pending_rows = 0;
    int64_t pending_last = -1;
    pthread_mutex_lock(&r->lock);
    for (;;) {
        const int idle = r->filled == 0 || r->failed != THRONG_OK;
        if (pending_frames && (idle || pending_rows >= REC_COMMIT_ROWS)) {
            pthread_mutex_unlock(&r->lock);
            struct timespec start;
            clock_gettime(CLOCK_MONOTONIC, &start);
            throng_status st = recorder_db_commit(r->db, why, sizeof why);
            double spent = seconds_since(&start);
            pthread_mutex_lock(&r->lock);
            r->stats.write_seconds += spent;
            if (st != THRONG_OK) {
                writer_fail(r, st, why);
            } else if (r->failed == THRONG_OK) {
                r->stats.frames_committed += pending_frames;
                r->stats.rows_committed += pending_rows;
                r->stats.last_committed_frame = pending_last;
                r->stats.commits++;
            }
            pending_frames = pending_rows = 0;
            pthread_cond_broadcast(&r->committed);
            continue;
        }
        if (idle) {
            if (r->closing)
                break;
            pthread_cond_wait(&r->wake_writer, &r->lock);
            continue;
        }
        recorder_frame *f = &r->frames[r->head];
        pthread_mutex_unlock(&r->lock);
        struct timespec start;
        clock_gettime(CLOCK_MONOTONIC, &start);
        throng_status st = recorder_db_insert(r->db, f, why, sizeof why);
        double spent = seconds_since(&start);
        pthread_mutex_lock(&r->lock);
        r->stats.write_seconds += spent;
        if (st != THRONG_OK) {
            /* The open transaction is gone with the frame: the frames
             * in it were never committed. */
            recorder_db_rollback(r->db);
            pending_frames = pending_rows = 0;
            writer_fail(r, st, why);
            continue;
        }
        pending_frames++;
        pending_rows += f->count;
        pending_last = f->frame;
        r->head = (r->head + 1u) % r->def.queue_frames;
        r->filled--;
        pthread_cond_signal(&r->room);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Opening                                                                  */
/* ------------------------------------------------------------------------ */

static void recorder_world_gone(world_watch *watch) {
    ((throng_recorder *)(void *)watch)->world = NULL;
}

static void recorder_free(throng_recorder *r) {
    const throng_allocator a = r->allocator;
    if (r->frames) {
        for (uint32_t i = 0; i < r->def.queue_frames; i++)
            rec_free(&a, r->frames[i].block, r->frames[i].bytes);
        rec_free(&a, r->frames, r->def.queue_frames * sizeof *r->frames);
    }
    rec_free(&a, r->shapes, r->shape_count * sizeof *r->shapes);
    rec_free(&a, r->slot_gen, (size_t)r->slot_capacity * sizeof(uint32_t));
    rec_free(&a, r->slot_id, (size_t)r->slot_capacity * sizeof(int64_t));
    rec_free(&a, r, sizeof *r);
}

static throng_status check_def(throng_world *w, const char *fn,
                               const throng_recorder_def *d, int *derived) {
    if (d->every < 1u || d->every > REC_MAX_EVERY)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: every must be in [1, %u], got %u", fn,
                          REC_MAX_EVERY, (unsigned)d->every);
    if (!isfinite(d->fps))
        return world_fail(w, THRONG_ERR_NOT_FINITE, "%s: fps is not finite",
                          fn);
    if (!(d->fps > 0.0) || d->fps > REC_MAX_FPS)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: fps must be > 0 and at most 1e9, got %g", fn,
                          d->fps);
    if (d->queue_frames < 1u || d->queue_frames > REC_MAX_QUEUE)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: queue_frames must be in [1, %u], got %u", fn,
                          REC_MAX_QUEUE, (unsigned)d->queue_frames);
    int zero = 1;
    for (int k = 0; k < 2; k++) {
        if (!is_finite_float(d->area_min[k]) ||
            !is_finite_float(d->area_max[k]))
            return world_fail(w, THRONG_ERR_NOT_FINITE,
                              "%s: area_min and area_max must be finite", fn);
        zero = zero && d->area_min[k] == 0.0f && d->area_max[k] == 0.0f;
    }
    if (!zero &&
        !(d->area_min[0] < d->area_max[0] && d->area_min[1] < d->area_max[1]))
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: area_min must be below area_max on x and y "
                          "(or both all 0 for the derived area), got (%g, %g) "
                          "and (%g, %g)",
                          fn, (double)d->area_min[0], (double)d->area_min[1],
                          (double)d->area_max[0], (double)d->area_max[1]);
    *derived = zero;
    return THRONG_OK;
}

throng_status throng_recorder_open(throng_world *w, const char *path,
                                   const throng_recorder_def *def,
                                   throng_recorder **out) {
    static const char fn[] = "throng_recorder_open";
    if (out)
        *out = NULL;
    WRITE_ENTRY(w);
    if (!path)
        return null_fail(w, fn, "path");
    if (!def)
        return null_fail(w, fn, "def");
    if (!out)
        return null_fail(w, fn, "out_recorder");
    if (!def->allocator.alloc != !def->allocator.free)
        return world_fail(w, THRONG_ERR_NULL,
                          "%s: def->allocator needs both alloc and free, or "
                          "neither",
                          fn);
    int derived = 0;
    throng_status st = check_def(w, fn, def, &derived);
    if (st != THRONG_OK)
        return st;
    const throng_allocator allocator =
        def->allocator.alloc ? def->allocator : w->allocator;
    if (!path[0])
        return world_fail(w, THRONG_ERR_IO, "%s: the path is empty", fn);

    throng_recorder *r = rec_alloc(&allocator, sizeof *r);
    if (!r)
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for the recorder", fn);
    memset(r, 0, sizeof *r);
    r->allocator = allocator;
    r->def = *def;
    r->dims = w->dims;
    r->next_id = 1;
    r->area_derived = derived;
    r->stats.last_committed_frame = -1;
    r->shape_count = recorder_shapes(w, NULL, 0u);
    r->frames = rec_alloc(&r->allocator, def->queue_frames * sizeof *r->frames);
    if (r->shape_count)
        r->shapes =
            rec_alloc(&r->allocator, r->shape_count * sizeof *r->shapes);
    if (!r->frames || (r->shape_count && !r->shapes)) {
        recorder_free(r);
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for the recorder", fn);
    }
    memset(r->frames, 0, def->queue_frames * sizeof *r->frames);
    (void)recorder_shapes(w, r->shapes, r->shape_count);
    if (derived) {
        r->area = recorder_area(w, r->shapes, r->shape_count);
    } else {
        for (int k = 0; k < 2; k++) {
            r->area.lo[k] = (double)def->area_min[k];
            r->area.hi[k] = (double)def->area_max[k];
        }
    }
    size_t wkt_length = 0;
    char *wkt = recorder_wkt(r->shapes, r->shape_count, &r->area, &wkt_length);
    if (!wkt) {
        recorder_free(r);
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for the geometry", fn);
    }
    const recorder_meta meta = { w->dims, def->every, def->fps };
    char why[200] = "";
    st = recorder_db_open(path, &meta, def->replace, wkt, &r->db, why,
                          sizeof why);
    free(wkt);
    if (st != THRONG_OK) {
        recorder_free(r);
        return world_fail(w, st, "%s: %s", fn, why);
    }
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->wake_writer, NULL);
    pthread_cond_init(&r->room, NULL);
    pthread_cond_init(&r->committed, NULL);
    if (pthread_create(&r->thread, NULL, writer_main, r) != 0) {
        (void)recorder_db_close(r->db, NULL, why, sizeof why);
        pthread_cond_destroy(&r->committed);
        pthread_cond_destroy(&r->room);
        pthread_cond_destroy(&r->wake_writer);
        pthread_mutex_destroy(&r->lock);
        recorder_free(r);
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: the writer thread could not be started", fn);
    }
    r->world = w;
    r->watch.gone = recorder_world_gone;
    world_watch_add(w, &r->watch);
    *out = r;
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* Recording                                                                */
/* ------------------------------------------------------------------------ */

/* Copies the world's agents into f: ids, then the columns. */
static throng_status copy_frame(throng_recorder *r, const throng_world *w,
                                recorder_frame *f) {
    const uint32_t n = w->count;
    if (!frame_reserve(r, f, n) || !ids_reserve(r, w->slot_capacity))
        return rec_fail(r, THRONG_ERR_OUT_OF_MEMORY,
                        "throng_recorder_record: no memory for a frame of %u "
                        "agents",
                        (unsigned)n);
    const uint32_t *row_slot = w->col.slot;
    const uint64_t *keys = w->slot_keys;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t slot = row_slot[i];
        const uint64_t key = keys ? keys[slot] : 0u;
        if (key) {
            f->id[i] = (int64_t)key;
            continue;
        }
        const uint32_t gen = w->slots[slot].generation;
        if (r->slot_gen[slot] != gen) {
            r->slot_gen[slot] = gen;
            r->slot_id[slot] = r->next_id++;
        }
        f->id[i] = r->slot_id[slot];
    }
    /* An empty world may have no columns yet: nothing to copy. */
    const size_t bytes = (size_t)n * sizeof(float);
    if (n > 0) {
        memcpy(f->x, w->col.px, bytes);
        memcpy(f->y, w->col.py, bytes);
        memcpy(f->fx, w->col.fx, bytes);
        memcpy(f->fy, w->col.fy, bytes);
    }
    if (n > 0 && r->dims == 3) {
        memcpy(f->z, w->col.pz, bytes);
        memcpy(f->fz, w->col.fz, bytes);
    }
    f->count = n;
    f->step = w->step;
    return THRONG_OK;
}

throng_status throng_recorder_record(throng_recorder *r) {
    static const char fn[] = "throng_recorder_record";
    if (!r)
        return THRONG_ERR_NULL;
    throng_world *w = r->world;
    if (!w)
        return rec_fail(r, THRONG_ERR_STALE_HANDLE,
                        "%s: the recorder's world was destroyed", fn);
    WORLD_READ(w);
    pthread_mutex_lock(&r->lock);
    if (r->failed != THRONG_OK) {
        throng_status st = writer_failure(r, fn);
        pthread_mutex_unlock(&r->lock);
        return st;
    }
    const uint64_t call = r->stats.calls;
    if (call % r->def.every != 0u) {
        r->stats.calls++;
        pthread_mutex_unlock(&r->lock);
        return THRONG_OK;
    }
    if (r->filled == r->def.queue_frames && !r->def.wait_when_full) {
        r->stats.calls++;
        r->stats.frames_dropped++;
        pthread_mutex_unlock(&r->lock);
        return rec_fail(r, THRONG_ERR_CAPACITY,
                        "%s: frame %llu skipped: all %u frame buffers wait "
                        "for the writer",
                        fn, (unsigned long long)(call / r->def.every),
                        (unsigned)r->def.queue_frames);
    }
    if (r->filled == r->def.queue_frames) {
        struct timespec start;
        clock_gettime(CLOCK_MONOTONIC, &start);
        while (r->filled == r->def.queue_frames && r->failed == THRONG_OK)
            pthread_cond_wait(&r->room, &r->lock);
        r->stats.wait_seconds += seconds_since(&start);
        if (r->failed != THRONG_OK) {
            throng_status st = writer_failure(r, fn);
            pthread_mutex_unlock(&r->lock);
            return st;
        }
    }
    recorder_frame *f = &r->frames[r->tail];
    pthread_mutex_unlock(&r->lock);

    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    throng_status st = copy_frame(r, w, f);
    if (st != THRONG_OK)
        return st;
    f->frame = (int64_t)(call / r->def.every);
    const double spent = seconds_since(&start);

    pthread_mutex_lock(&r->lock);
    r->tail = (r->tail + 1u) % r->def.queue_frames;
    r->filled++;
    r->stats.calls++;
    r->stats.frames_queued++;
    r->stats.copy_seconds += spent;
    pthread_cond_signal(&r->wake_writer);
    pthread_mutex_unlock(&r->lock);
    return THRONG_OK;
}

throng_status throng_recorder_flush(throng_recorder *r) {
    if (!r)
        return THRONG_ERR_NULL;
    pthread_mutex_lock(&r->lock);
    while (r->failed == THRONG_OK &&
           r->stats.frames_committed < r->stats.frames_queued)
        pthread_cond_wait(&r->committed, &r->lock);
    throng_status st = r->failed == THRONG_OK
                           ? THRONG_OK
                           : writer_failure(r, "throng_recorder_flush");
    pthread_mutex_unlock(&r->lock);
    return st;
}

throng_status throng_recorder_stats(const throng_recorder *cr,
                                    throng_record_stats *out) {
    if (!cr || !out)
        return THRONG_ERR_NULL;
    throng_recorder *r = (throng_recorder *)(uintptr_t)cr;
    pthread_mutex_lock(&r->lock);
    *out = r->stats;
    out->frames_waiting =
        (uint32_t)(r->stats.frames_queued - r->stats.frames_committed);
    out->bytes = held_bytes(r);
    pthread_mutex_unlock(&r->lock);
    return THRONG_OK;
}

const char *throng_recorder_last_error(const throng_recorder *r) {
    return r ? r->error : "";
}

throng_status throng_recorder_close(throng_recorder *r) {
    if (!r)
        return THRONG_ERR_NULL;
    throng_world *w = r->world;
    if (w) {
        /* Detaching changes the world: it must be ours for a moment. */
        busy_hold hold = busy_write(w);
        if (hold.refused)
            return THRONG_ERR_BUSY;
        world_watch_remove(w, &r->watch);
        busy_release(&hold);
        r->world = NULL;
    }
    pthread_mutex_lock(&r->lock);
    r->closing = 1;
    pthread_cond_signal(&r->wake_writer);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->thread, NULL);

    throng_status status = r->failed;
    char why[200] = "";
    char *wkt = NULL;
    if (r->area_derived) {
        double lo[2], hi[2];
        recorder_db_bounds(r->db, lo, hi);
        rec_area grown = r->area;
        recorder_area_grow(&grown, lo, hi);
        if (memcmp(&grown, &r->area, sizeof grown) != 0) {
            size_t length = 0;
            wkt = recorder_wkt(r->shapes, r->shape_count, &grown, &length);
            if (!wkt && status == THRONG_OK)
                status = THRONG_ERR_OUT_OF_MEMORY;
        }
    }
    throng_status last = recorder_db_close(r->db, wkt, why, sizeof why);
    free(wkt);
    if (status == THRONG_OK)
        status = last;
    pthread_cond_destroy(&r->committed);
    pthread_cond_destroy(&r->room);
    pthread_cond_destroy(&r->wake_writer);
    pthread_mutex_destroy(&r->lock);
    recorder_free(r);
    return status;
}

bool throng_recorder_supported(void) {
    return true;
}

#else

/* Built without SQLite (make SQLITE=0): the same functions, refusing. No
 * recorder can exist, so every call that takes one was handed NULL or
 * something that is not a recorder. */

throng_status throng_recorder_open(throng_world *w, const char *path,
                                   const throng_recorder_def *def,
                                   throng_recorder **out) {
    static const char fn[] = "throng_recorder_open";
    if (out)
        *out = NULL;
    WRITE_ENTRY(w);
    if (!path)
        return null_fail(w, fn, "path");
    if (!def)
        return null_fail(w, fn, "def");
    if (!out)
        return null_fail(w, fn, "out_recorder");
    return world_fail(w, THRONG_ERR_UNSUPPORTED,
                      "%s: this library was built without SQLite (make "
                      "SQLITE=0, or no libsqlite3-dev): no recorder",
                      fn);
}

throng_status throng_recorder_record(throng_recorder *r) {
    return r ? THRONG_ERR_UNSUPPORTED : THRONG_ERR_NULL;
}

throng_status throng_recorder_flush(throng_recorder *r) {
    return r ? THRONG_ERR_UNSUPPORTED : THRONG_ERR_NULL;
}

throng_status throng_recorder_stats(const throng_recorder *r,
                                    throng_record_stats *out) {
    return r && out ? THRONG_ERR_UNSUPPORTED : THRONG_ERR_NULL;
}

const char *throng_recorder_last_error(const throng_recorder *r) {
    (void)r;
    return "";
}

throng_status throng_recorder_close(throng_recorder *r) {
    return r ? THRONG_ERR_UNSUPPORTED : THRONG_ERR_NULL;
}

bool throng_recorder_supported(void) {
    return false;
}

#endif
