/* SPDX-License-Identifier: MIT */
/*
 * Snapshots, saving: the size a world's snapshot takes, the snapshot
 * written to a buffer, and to a file (snapshot_codec.c walks the state).
 *
 * Saving to a file never puts the previous snapshot at risk: the bytes go
 * to a temporary file of a fresh random name, created exclusively (so it
 * is never somebody else's file, nor a link's target), flushed to disk,
 * then renamed over the target, and the directory is flushed so the
 * rename lasts. Concurrent saves to one path each have their own
 * temporary file; the last rename wins, whole.
 */
#include "snapshot_codec.h"
#include "busy.h"
#include "columns.h"
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Saving a file: the most bytes handed to one write() (a larger count is
 * implementation-defined past SSIZE_MAX, and a short write comes back
 * anyway), and the temporary names tried before giving up (each clash is
 * a name another file already has). */
#define SNAP_WRITE_CHUNK (1u << 30)
#define SNAP_TEMP_TRIES 16u

static void put_u16(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v) {
    for (unsigned k = 0; k < 4u; k++)
        p[k] = (uint8_t)(v >> (8u * k));
}

static void put_u64(uint8_t *p, uint64_t v) {
    for (unsigned k = 0; k < 8u; k++)
        p[k] = (uint8_t)(v >> (8u * k));
}

/* ------------------------------------------------------------------------ */
/* Saving                                                                   */
/* ------------------------------------------------------------------------ */

static void settings_of(const throng_world *w, snap_settings *s) {
    memset(s, 0, sizeof *s);
    s->dims = (uint32_t)w->dims;
    s->boundary = (uint32_t)w->boundary;
    const int periodic = w->boundary == THRONG_BOUNDARY_PERIODIC;
    for (int a = 0; a < 3; a++) {
        s->box[a] = w->box[a];
        s->edge[a] = w->grid.edge[a];
        s->reach[a] = w->grid.reach[a];
        /* An unbounded grid's cell counts belong to its last build. */
        s->cells[a] = periodic ? w->grid.n[a] : 0;
    }
    s->neighbour_radius = w->neighbour_radius;
    s->threads = w->threads;
    s->seed = w->seed;
    s->max_dt = w->max_dt;
    s->cell_size = w->cell_size;
    s->max_substeps = w->max_substeps;
    s->world_id = w->id;
    s->step = w->step;
    s->wander_used = w->wander_used ? 1u : 0u;
    s->behaviour_state = w->behaviour_state ? 1u : 0u;
    s->group_count = w->group_count;
    s->group_free = w->group_free_count;
    s->has_geometry = w->geo ? 1u : 0u;
    s->object_count = w->geo ? w->geo->count : 0u;
    s->object_free = w->geo ? w->geo->free_count : 0u;
    s->slot_count = w->slot_count;
    s->slot_free = w->free_count;
    s->agent_count = w->count;
}

/* Writes the snapshot to `out`, or only measures it when out is NULL;
 * returns its size. The world is only read: the codec writes back into
 * the fields it visits only when reading. */
static uint64_t snap_encode(throng_world *w, uint8_t *out) {
    snap_codec c;
    memset(&c, 0, sizeof c);
    c.out = out;
    c.pos = SNAP_HEADER_BYTES;
    c.version = THRONG_SNAPSHOT_VERSION;
    snap_settings s;
    settings_of(w, &s);
    io_settings(&c, &s);
    /* Objects before groups: loading checks the behaviours against the
     * objects they name. */
    if (w->geo) {
        for (uint32_t i = 0; i < w->geo->count; i++)
            io_object(&c, w, &w->geo->objects[i]);
        io_u32s(&c, w->geo->free_ids, w->geo->free_count);
    }
    for (uint32_t g = 0; g < w->group_count; g++) {
        uint32_t live = (uint32_t)w->groups[g].live;
        io_u32(&c, &w->groups[g].generation);
        io_u32(&c, &live);
        if (live)
            io_group(&c, &w->groups[g]);
    }
    for (uint32_t g = w->group_free_head, k = 0; k < w->group_free_count;
         k++, g = w->groups[g].next_free)
        io_u32(&c, &g);
    for (uint32_t i = 0; i < w->slot_count; i++) {
        uint64_t key = slot_host_key(w, i);
        io_u32(&c, &w->slots[i].generation);
        io_u64(&c, &key);
    }
    io_u32s(&c, w->free_slots, w->free_count);
    io_columns(&c, w);
    io_slot_nav(&c, w);
    if (out) {
        /* The magic is 8 bytes, not a string: no terminator is wanted. */
        /* NOLINTNEXTLINE(bugprone-not-null-terminated-result) */
        memcpy(out, SNAP_MAGIC, SNAP_MAGIC_BYTES);
        put_u32(out + 8, THRONG_SNAPSHOT_VERSION);
        put_u16(out + 12, THRONG_VERSION_MAJOR);
        put_u16(out + 14, THRONG_VERSION_MINOR);
        put_u16(out + 16, THRONG_VERSION_PATCH);
        put_u16(out + 18, 0u);
        put_u32(out + 20, 0u);
        put_u64(out + 24, c.pos);
        put_u64(out + SNAP_CHECKSUM_AT, snap_checksum(out, (size_t)c.pos));
    }
    return c.pos;
}

/* The definition's part of a snapshot, encoded to `out` (or measured):
 * the settings without the world's id, threads, step and agent counts,
 * then the objects and groups as a snapshot writes them. */
static uint64_t definition_encode(throng_world *w, uint8_t *out) {
    snap_codec c;
    memset(&c, 0, sizeof c);
    c.out = out;
    c.version = THRONG_SNAPSHOT_VERSION;
    c.definition = 1;
    snap_settings s;
    settings_of(w, &s);
    s.threads = 0;
    s.world_id = 0;
    s.step = 0;
    s.behaviour_state = 0;
    s.slot_count = s.slot_free = s.agent_count = 0;
    io_settings(&c, &s);
    if (w->geo) {
        for (uint32_t i = 0; i < w->geo->count; i++)
            io_object(&c, w, &w->geo->objects[i]);
        io_u32s(&c, w->geo->free_ids, w->geo->free_count);
    }
    for (uint32_t g = 0; g < w->group_count; g++) {
        uint32_t live = (uint32_t)w->groups[g].live;
        io_u32(&c, &w->groups[g].generation);
        io_u32(&c, &live);
        if (live)
            io_group(&c, &w->groups[g]);
    }
    for (uint32_t g = w->group_free_head, k = 0; k < w->group_free_count;
         k++, g = w->groups[g].next_free)
        io_u32(&c, &g);
    return c.pos;
}

uint64_t throng_world_definition_hash(const throng_world *cw) {
    WORLD_READ_OR(cw, 0u);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return 0;
    const uint64_t size = definition_encode(w, NULL);
    if (size > (uint64_t)SIZE_MAX)
        return 0;
    uint8_t *bytes = world_alloc(w, (size_t)size);
    if (!bytes)
        return 0;
    definition_encode(w, bytes);
    /* FNV-1a, 64 bits, as the snapshot's checksum. */
    uint64_t h = 0xCBF29CE484222325ull;
    for (uint64_t i = 0; i < size; i++) {
        h ^= bytes[i];
        h *= 0x100000001B3ull;
    }
    world_free(w, bytes, (size_t)size);
    return h ? h : 1u;
}

/* The size, or records a refusal when it does not fit a size_t (only
 * possible where size_t is 32 bits). */
static throng_status snap_measure(throng_world *w, const char *fn,
                                  size_t *out_size) {
    uint64_t size = snap_encode(w, NULL);
    if (size > (uint64_t)SIZE_MAX)
        return world_fail(w, THRONG_ERR_CAPACITY,
                          "%s: the snapshot would be %llu bytes, more than "
                          "this machine addresses",
                          fn, (unsigned long long)size);
    *out_size = (size_t)size;
    return THRONG_OK;
}

/* A snapshot holds only finite values (the loader refuses any other), and
 * checked calls and steps store no other; a host writing through the
 * column pointers can. Such a world is refused before anything is
 * written, naming the value, rather than saved as a snapshot no load
 * would accept. */
static throng_status snap_refuse_non_finite(throng_world *w, const char *fn) {
    const char *column = NULL;
    uint32_t row = 0;
    float value = 0.0f;
    if (!world_non_finite(w, &column, &row, &value))
        return THRONG_OK;
    uint32_t slot = w->col.slot[row];
    return world_fail(w, THRONG_ERR_NOT_FINITE,
                      "%s: column %s of the agent at dense row %u (handle "
                      "{%u, %u}, slot %u) is %g; a snapshot holds only finite "
                      "values, and nothing was written",
                      fn, column, row, slot + 1u, w->slots[slot].generation,
                      slot, (double)value);
}

throng_status throng_world_snapshot_size(const throng_world *cw,
                                         size_t *out_bytes) {
    WORLD_READ(cw);
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!out_bytes)
        return world_fail(w, THRONG_ERR_NULL,
                          "throng_world_snapshot_size: out_bytes must not be "
                          "NULL");
    return snap_measure(w, "throng_world_snapshot_size", out_bytes);
}

throng_status throng_world_save(const throng_world *cw, void *buffer,
                                size_t capacity, size_t *out_bytes) {
    WORLD_READ(cw);
    static const char fn[] = "throng_world_save";
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!buffer && capacity > 0)
        return world_fail(w, THRONG_ERR_NULL,
                          "%s: buffer is NULL but capacity is %zu", fn,
                          capacity);
    size_t size;
    throng_status st = snap_measure(w, fn, &size);
    if (st != THRONG_OK)
        return st;
    if (out_bytes)
        *out_bytes = size;
    if ((st = snap_refuse_non_finite(w, fn)) != THRONG_OK)
        return st;
    if (capacity < size)
        return world_fail(w, THRONG_ERR_CAPACITY,
                          "%s: the buffer holds %zu bytes, the snapshot "
                          "needs %zu",
                          fn, capacity, size);
    snap_encode(w, buffer);
    return THRONG_OK;
}

/* Writes all n bytes, through short writes and interrupted calls;
 * returns 0 or the errno of the failure. */
static int write_all(int fd, const uint8_t *p, size_t n) {
    while (n > 0) {
        size_t chunk = n < SNAP_WRITE_CHUNK ? n : SNAP_WRITE_CHUNK;
        ssize_t done = write(fd, p, chunk);
        if (done < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (done == 0)
            return EIO; /* a regular file never takes nothing */
        p += done;
        n -= (size_t)done;
    }
    return 0;
}

static int fsync_retry(int fd) {
    while (fsync(fd) != 0)
        if (errno != EINTR)
            return errno;
    return 0;
}

/* A name for the temporary file no other save is using: the target's
 * name, then ".tmp-" and 16 hex digits mixed from the process id, a
 * process-wide counter, the clock and the attempt. Unpredictable enough
 * that nobody plants a file there by chance; the exclusive create below
 * is what makes it safe if somebody does. */
static void temp_name(char *out, size_t cap, const char *path,
                      uint32_t attempt) {
    static _Atomic uint32_t counter;
    struct timespec now;
    memset(&now, 0, sizeof now);
    (void)clock_gettime(CLOCK_REALTIME, &now);
    uint64_t x = ((uint64_t)(uint32_t)getpid() << 32) ^ (uint64_t)counter++;
    x ^= (uint64_t)now.tv_nsec * 0x9E3779B97F4A7C15ull;
    x ^= (uint64_t)now.tv_sec << 20 ^ (uint64_t)attempt << 48;
    x ^= (uint64_t)(uintptr_t)&now; /* differs between threads */
    /* splitmix64's finish: every input bit reaches every output bit. */
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    snprintf(out, cap, "%s.tmp-%016llx", path, (unsigned long long)x);
}

/* The directory holding `path`, into out (room for strlen(path) + 2). */
static void parent_dir(char *out, size_t cap, const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(out, cap, ".");
    } else if (slash == path) {
        snprintf(out, cap, "/");
    } else {
        size_t n = (size_t)(slash - path);
        memcpy(out, path, n);
        out[n] = '\0';
    }
}

/* The file steps of a save, with the refusal's sentence recorded: tmp and
 * dir are scratch for the two names, tmp_cap bytes each. */
static throng_status save_bytes(throng_world *w, const char *fn,
                                const char *path, const uint8_t *bytes,
                                size_t size, char *tmp, size_t tmp_cap,
                                char *dir) {
    /* The directory is opened first, so a save that could not make
     * itself durable is refused before it replaces anything. */
    parent_dir(dir, tmp_cap, path);
    int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0)
        return world_fail(w, THRONG_ERR_IO,
                          "%s: cannot open the directory \"%s\": %s", fn, dir,
                          strerror(errno));
    /* O_EXCL creates the file or fails: it never opens an existing file
     * and never follows a symbolic link planted at the name (O_NOFOLLOW
     * says so again). A name that exists is another save's: try another. */
    int fd = -1, err = EEXIST;
    for (uint32_t attempt = 0; attempt < SNAP_TEMP_TRIES && fd < 0; attempt++) {
        temp_name(tmp, tmp_cap, path, attempt);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0666);
        err = fd < 0 ? errno : 0;
        if (fd < 0 && err != EEXIST)
            break;
    }
    if (fd < 0) {
        close(dir_fd);
        return world_fail(w, THRONG_ERR_IO,
                          "%s: cannot create a temporary file beside \"%s\" "
                          "(last tried \"%s\"): %s",
                          fn, path, tmp, strerror(err));
    }
    const char *step = "write";
    err = write_all(fd, bytes, size);
    if (!err) {
        step = "flush to disk";
        err = fsync_retry(fd);
    }
    /* A close after a successful fsync loses nothing, and an interrupted
     * one has closed the descriptor on Linux: only other errors count. */
    if (close(fd) != 0 && !err && errno != EINTR) {
        step = "close";
        err = errno;
    }
    if (!err && rename(tmp, path) != 0) {
        step = "rename over the target";
        err = errno;
    }
    if (err) {
        (void)unlink(tmp);
        close(dir_fd);
        return world_fail(w, THRONG_ERR_IO,
                          "%s: cannot %s the %zu-byte snapshot \"%s\" (\"%s\" "
                          "is untouched): %s",
                          fn, step, size, tmp, path, strerror(err));
    }
    /* The rename is durable once the directory is on disk. Filesystems
     * that cannot flush a directory say EINVAL; nothing more can be done
     * there. */
    err = fsync_retry(dir_fd);
    close(dir_fd);
    if (err && err != EINVAL)
        return world_fail(w, THRONG_ERR_IO,
                          "%s: the snapshot replaced \"%s\", but its directory "
                          "could not be flushed to disk, so a power cut may "
                          "still undo it: %s",
                          fn, path, strerror(err));
    return THRONG_OK;
}

throng_status throng_world_save_file(const throng_world *cw, const char *path) {
    WORLD_READ(cw);
    static const char fn[] = "throng_world_save_file";
    throng_world *w = (throng_world *)(uintptr_t)cw;
    if (!w)
        return THRONG_ERR_NULL;
    if (!path)
        return world_fail(w, THRONG_ERR_NULL, "%s: path must not be NULL", fn);
    /* Refused before any file is touched: an empty name has no directory
     * to write the temporary file in. */
    if (path[0] == '\0')
        return world_fail(w, THRONG_ERR_IO, "%s: the path is empty", fn);
    throng_status st = snap_refuse_non_finite(w, fn);
    if (st != THRONG_OK)
        return st;
    size_t size;
    if ((st = snap_measure(w, fn, &size)) != THRONG_OK)
        return st;
    size_t path_len = strlen(path);
    /* ".tmp-", 16 hex digits and the terminator. */
    const size_t suffix = 22u;
    size_t tmp_bytes = path_len < SIZE_MAX - suffix ? path_len + suffix : 0;
    uint8_t *buffer = world_alloc(w, size);
    char *tmp = tmp_bytes ? world_alloc(w, tmp_bytes) : NULL;
    char *dir = tmp_bytes ? world_alloc(w, tmp_bytes) : NULL;
    if (buffer && tmp && dir) {
        snap_encode(w, buffer);
        st = save_bytes(w, fn, path, buffer, size, tmp, tmp_bytes, dir);
    } else {
        st = world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                        "%s: no memory for a snapshot of %zu bytes", fn, size);
    }
    world_free(w, buffer, size);
    world_free(w, tmp, tmp_bytes);
    world_free(w, dir, tmp_bytes);
    return st;
}
