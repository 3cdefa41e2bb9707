/* SPDX-License-Identifier: MIT */
/*
 * Snapshots, loading: the load calls, from a buffer or from a file or a
 * stream. The header is checked (magic, format version, length) and the
 * checksum, which catches truncation and corruption, before the payload
 * goes to snapshot_restore.c to become a world.
 */
#include "snapshot_codec.h"
#include "snapshot_restore.h"
#include "core.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* Reading a stream that cannot tell its size (a pipe): the first chunk;
 * the buffer then doubles as bytes arrive, up to the header's length. */
#define SNAP_STREAM_CHUNK (64u * 1024u)

static uint32_t get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p) {
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* ------------------------------------------------------------------------ */
/* Loading                                                                  */
/* ------------------------------------------------------------------------ */

throng_world_load_def throng_world_load_def_default(void) {
    throng_world_load_def d;
    memset(&d, 0, sizeof d);
    return d;
}

static void load_report(const throng_world_load_def *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void load_report(const throng_world_load_def *d, const char *fmt, ...) {
    if (!d || !d->error || d->error_capacity == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->error, d->error_capacity, fmt, ap);
    va_end(ap);
}

/* Checks the header's first `available` bytes (the whole header when it
 * is there); on success *out_total is the length it states. */
static void header_check(snap_codec *c, const uint8_t *h, size_t available,
                         uint64_t *out_total) {
    *out_total = 0;
    if (available < SNAP_HEADER_BYTES) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "truncated: %zu bytes, less than the %u-byte header",
                  available, SNAP_HEADER_BYTES);
        return;
    }
    if (memcmp(h, SNAP_MAGIC, SNAP_MAGIC_BYTES) != 0) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "not a throng snapshot: the magic is not \"%s\"", SNAP_MAGIC);
        return;
    }
    uint32_t version = get_u32(h + 8);
    /* The version comes before the checksum: a newer format may place or
     * compute its checksum differently. */
    if (version > THRONG_SNAPSHOT_VERSION) {
        snap_fail(c, THRONG_ERR_VERSION,
                  "format version %u (written by library %u.%u.%u); this "
                  "library reads up to version %u",
                  version, (unsigned)(h[12] | h[13] << 8),
                  (unsigned)(h[14] | h[15] << 8),
                  (unsigned)(h[16] | h[17] << 8), THRONG_SNAPSHOT_VERSION);
        return;
    }
    if (version == 0u || h[18] != 0u || h[19] != 0u || get_u32(h + 20) != 0u) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "format version %u or the reserved header fields are not "
                  "valid",
                  version);
        return;
    }
    c->version = version;
    uint64_t total = get_u64(h + 24);
    if (total < SNAP_HEADER_BYTES) {
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "the header states a length of %llu bytes",
                  (unsigned long long)total);
        return;
    }
    *out_total = total;
}

throng_status throng_world_load(const void *buffer, size_t bytes,
                                const throng_world_load_def *def,
                                throng_world **out_world) {
    static const char fn[] = "throng_world_load";
    if (out_world)
        *out_world = NULL;
    if (!out_world || !buffer) {
        load_report(def, "%s: buffer and out_world must not be NULL", fn);
        return THRONG_ERR_NULL;
    }
    throng_world_load_def d = def ? *def : throng_world_load_def_default();
    if ((d.allocator.alloc == NULL) != (d.allocator.free == NULL)) {
        load_report(def, "%s: give both allocator functions or neither", fn);
        return THRONG_ERR_NULL;
    }
    snap_codec c;
    memset(&c, 0, sizeof c);
    c.reading = 1;
    c.in = buffer;
    c.len = bytes;
    uint64_t total = 0;
    header_check(&c, buffer, bytes, &total);
    if (c.status == THRONG_OK && total != bytes)
        snap_fail(&c, THRONG_ERR_BAD_SNAPSHOT,
                  "%s: the header states %llu bytes, the buffer holds %zu",
                  total > bytes ? "truncated" : "too long",
                  (unsigned long long)total, bytes);
    if (c.status == THRONG_OK) {
        uint64_t stored = get_u64(c.in + SNAP_CHECKSUM_AT);
        uint64_t computed = snap_checksum(c.in, bytes);
        if (stored != computed)
            snap_fail(&c, THRONG_ERR_BAD_SNAPSHOT,
                      "checksum mismatch: stored %016llx, computed %016llx",
                      (unsigned long long)stored, (unsigned long long)computed);
    }
    if (c.status == THRONG_OK) {
        c.pos = SNAP_HEADER_BYTES;
        snap_decode(&c, &d, out_world);
    }
    if (c.status != THRONG_OK) {
        load_report(def, "%s: %s", fn, c.why);
        return c.status;
    }
    load_report(def, "%s", "");
    return THRONG_OK;
}

/* Reads a snapshot of `total` bytes whose header, `head`, was read from
 * f already; returns the whole snapshot, in a block of *out_bytes, or
 * NULL with the refusal in c. A file whose size was checked against the
 * header (`sized`) is read in one go. A stream that cannot tell its size
 * (a pipe, a FIFO) is read in chunks, the buffer doubling only as the
 * bytes arrive: a header that claims more than the stream holds costs
 * about what the stream held, never what the header claims. */
static uint8_t *read_rest(snap_codec *c, const throng_world *boot, FILE *f,
                          const uint8_t *head, size_t total, int sized,
                          size_t *out_bytes) {
    size_t cap = sized || total < SNAP_STREAM_CHUNK ? total : SNAP_STREAM_CHUNK;
    uint8_t *buffer = world_alloc(boot, cap);
    if (!buffer) {
        snap_fail(c, THRONG_ERR_OUT_OF_MEMORY,
                  "no memory for %zu bytes of a snapshot of %zu", cap, total);
        return NULL;
    }
    memcpy(buffer, head, SNAP_HEADER_BYTES);
    size_t have = SNAP_HEADER_BYTES;
    while (have < total) {
        if (have == cap) {
            size_t grown = cap > total / 2u ? total : 2u * cap;
            uint8_t *more = world_alloc(boot, grown);
            if (!more) {
                snap_fail(c, THRONG_ERR_OUT_OF_MEMORY,
                          "no memory for %zu bytes of a snapshot of %zu", grown,
                          total);
                break;
            }
            memcpy(more, buffer, have);
            world_free(boot, buffer, cap);
            buffer = more;
            cap = grown;
        }
        size_t want = cap - have;
        size_t got = fread(buffer + have, 1, want, f);
        have += got;
        if (got == want)
            continue;
        if (ferror(f))
            snap_fail(c, THRONG_ERR_IO, "cannot read the file: %s",
                      strerror(errno));
        else
            snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                      "truncated: the file ends after %zu of the %zu bytes "
                      "its header states",
                      have, total);
        break;
    }
    if (c->status == THRONG_OK && fgetc(f) != EOF)
        snap_fail(c, THRONG_ERR_BAD_SNAPSHOT,
                  "the file is longer than its header states");
    if (c->status != THRONG_OK) {
        world_free(boot, buffer, cap);
        return NULL;
    }
    *out_bytes = cap;
    return buffer;
}

throng_status throng_world_load_file(const char *path,
                                     const throng_world_load_def *def,
                                     throng_world **out_world) {
    static const char fn[] = "throng_world_load_file";
    if (out_world)
        *out_world = NULL;
    if (!out_world || !path) {
        load_report(def, "%s: path and out_world must not be NULL", fn);
        return THRONG_ERR_NULL;
    }
    throng_world boot; /* only its allocator: for the file's bytes */
    memset(&boot, 0, sizeof boot);
    if (def) {
        if ((def->allocator.alloc == NULL) != (def->allocator.free == NULL)) {
            load_report(def, "%s: give both allocator functions or neither",
                        fn);
            return THRONG_ERR_NULL;
        }
        boot.allocator = def->allocator;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        load_report(def, "%s: cannot open \"%s\": %s", fn, path,
                    strerror(errno));
        return THRONG_ERR_IO;
    }
    /* The header first: a file that is not a snapshot, or states a length
     * other than its own, is refused before its size is allocated. */
    snap_codec c;
    memset(&c, 0, sizeof c);
    c.reading = 1;
    uint8_t head[SNAP_HEADER_BYTES];
    size_t got = fread(head, 1, sizeof head, f);
    throng_status st = THRONG_OK;
    uint64_t total = 0;
    uint8_t *buffer = NULL;
    size_t buffer_bytes = 0;
    if (ferror(f)) {
        st = THRONG_ERR_IO;
        load_report(def, "%s: cannot read \"%s\": %s", fn, path,
                    strerror(errno));
    } else {
        header_check(&c, head, got, &total);
        off_t size = -1;
        if (c.status == THRONG_OK) {
            /* Where the file can tell its size, compare it at once. */
            if (fseeko(f, 0, SEEK_END) == 0)
                size = ftello(f);
            if (size >= 0 && (uint64_t)size != total)
                snap_fail(&c, THRONG_ERR_BAD_SNAPSHOT,
                          "the file is %lld bytes, its header states %llu",
                          (long long)size, (unsigned long long)total);
            else if (size >= 0 && fseeko(f, SNAP_HEADER_BYTES, SEEK_SET) != 0)
                snap_fail(&c, THRONG_ERR_IO, "cannot seek in the file: %s",
                          strerror(errno));
            else if (total > (uint64_t)SIZE_MAX)
                snap_fail(&c, THRONG_ERR_BAD_SNAPSHOT,
                          "a snapshot of %llu bytes",
                          (unsigned long long)total);
            clearerr(f);
        }
        if (c.status == THRONG_OK)
            buffer = read_rest(&c, &boot, f, head, (size_t)total, size >= 0,
                               &buffer_bytes);
        st = c.status;
        if (st != THRONG_OK)
            load_report(def, "%s: \"%s\": %s", fn, path, c.why);
    }
    fclose(f);
    if (st == THRONG_OK)
        st = throng_world_load(buffer, (size_t)total, def, out_world);
    world_free(&boot, buffer, buffer_bytes);
    return st;
}
