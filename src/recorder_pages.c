/* SPDX-License-Identifier: MIT */
/*
 * The recorder's page writer: trajectory_data's and throng_frames' B-trees
 * written as pages of SQLite's file format (https://www.sqlite.org/
 * fileformat2.html), without SQLite, because SQLite's own insert path
 * costs about 3,650 instructions a row and these pages cost a few dozen.
 *
 * Why it can be this simple. SQLite (recorder_db.c) creates the file, its
 * schema, metadata and geometry, and hands it over with both trees empty;
 * from then on rows only ever arrive in key order, (frame, id) for the
 * rows, frame for the frames, so each tree only grows at its right edge.
 * A tree is then built bottom-up as a bulk load is: one open page per
 * level (the right spine), cells appended to the leaf until the next does
 * not fit; then the leaf is finished and written once, for good, and a
 * divider goes up to the level above, which splits the same way. In an
 * index B-tree (a WITHOUT ROWID table's) every row lives in exactly one
 * page, so the divider is the leaf's last row, taken out of it; in a
 * table B-tree it is the leaf's largest rowid. A level that overflows
 * gives up its last cell the same way: its child becomes the finished
 * page's right-most child and its key goes up. So a new page always
 * starts with a cell and no page is ever empty, and every leaf is at the
 * same depth. The root's page number is fixed (sqlite_schema names it):
 * the top level always lives there, and when the tree grows a level the
 * old top moves to a new page.
 *
 * Commits. A commit makes the right spine (each level's open page, its
 * right-most child pointing at the open page below) and the header
 * (page count, change counter) part of the file. Pages allocated since
 * the last commit lie past the page count the header gives, where no
 * reader looks, so they are written first, in batches of contiguous
 * pages. Pages the last commit left in the file (page 1, the roots, the
 * spine pages that existed then) are changed in place, and for those the
 * commit uses SQLite's own rollback journal, in SQLite's format: their
 * old contents go to FILE-journal, then the new ones over them, then the
 * journal is truncated to nothing, which is the commit. A process killed
 * before that leaves a hot journal, and the next SQLite connection to
 * open the file plays it back, restoring the last commit exactly (and
 * cutting the pages past it), as it would after its own interrupted
 * transaction; killed after it, the file is the new commit, whole. There
 * is no fsync: a killed process loses nothing committed, a power cut can
 * lose the commits the operating system had not written yet and, like
 * SQLite with synchronous=OFF, can leave the file damaged.
 *
 * Readers. While it owns the file the writer holds SQLite's reserved lock
 * (the byte locks SQLite's unix build uses, as open-file-description
 * locks where the system has them, so a connection of this process
 * closing the file does not drop them): other processes may read, no
 * other connection writes, and a reader never takes the journal of a
 * commit under way for a hot one. Around the in-place writes it takes
 * the pending and exclusive locks, waiting for readers to finish, as an
 * SQLite writer does.
 */
/* For F_OFD_SETLK (Linux's open-file-description locks); without it the
 * locks are POSIX's own. */
/* NOLINTNEXTLINE(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp) */
#define _GNU_SOURCE
#include "recorder_pages.h"

#ifdef THRONG_HAVE_SQLITE

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Levels a tree may have: a page holds at least 4 cells, so 16 levels
 * hold more rows than the file has pages for. */
#define REC_MAX_LEVELS 16
/* Fresh pages handed to one pwrite. */
#define REC_BATCH_PAGES 64u
/* The journal's header is padded to this many bytes (its sector). */
#define REC_SECTOR 512u
/* SQLite's lock bytes (its unix build): the page holding them is never
 * a database page. */
#define REC_PENDING_BYTE 0x40000000
#define REC_RESERVED_BYTE (REC_PENDING_BYTE + 1)
#define REC_SHARED_FIRST (REC_PENDING_BYTE + 2)
#define REC_SHARED_SIZE 510
/* How long a commit waits for readers to let go: this many tries, a
 * millisecond apart (30 s). */
#define REC_LOCK_TRIES 30000u
/* The largest cell this writer appends or moves up, bytes. */
#define REC_MAX_CELL 200u

typedef struct rec_level {
    uint32_t pgno;
    uint32_t content; /* where the cell content area starts */
    uint32_t cells;
    uint8_t *page;
} rec_level;

typedef struct rec_tree {
    uint32_t root;
    int index; /* 1: an index B-tree; 0: a table B-tree */
    int levels;
    int64_t last_rowid; /* a table tree's largest key so far */
    rec_level level[REC_MAX_LEVELS];
} rec_tree;

typedef struct rec_held {
    uint32_t pgno;
    uint8_t *page;
} rec_held;

struct recorder_pages {
    int fd, journal;
    char *path, *journal_path;
    uint32_t page_size, usable;
    uint32_t committed; /* the page count of the last commit */
    uint32_t next;      /* the next page to allocate */
    uint32_t lock_page;
    uint32_t nonce;
    int small_ints;
    int journal_hot; /* a commit failed after writing its journal */
    int broken;      /* a failure: nothing more is written */
    uint8_t *first;  /* page 1 as last committed */
    rec_tree tree[2];
    uint8_t *batch;
    uint32_t batch_first, batch_count;
    /* Finished pages the last commit had: written in place. */
    rec_held *held;
    uint32_t held_count, held_capacity;
    uint8_t *journal_buf;
    size_t journal_capacity;
};

void (*recorder_pages_test_hook)(const char *path, int stage) = NULL;

/* The test hook's view of a commit under way (recorder_pages.h). */
static void stage(const recorder_pages *p, int at) {
    if (recorder_pages_test_hook)
        recorder_pages_test_hook(p->path, at);
}

static void say(char *why, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(char *why, size_t size, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(why, size, fmt, args);
    va_end(args);
}

static uint32_t get2(const uint8_t *p) {
    return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t get4(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

static void put2(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put4(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* SQLite's variable-length integer: 1 to 9 bytes, 7 bits a byte with
 * the high bit saying another follows, all 8 bits of a ninth. */
uint32_t recorder_pages_varint(uint8_t *out, uint64_t v) {
    if (v < 0x80u) {
        out[0] = (uint8_t)v;
        return 1;
    }
    if (v >> 56) {
        out[8] = (uint8_t)v;
        v >>= 8;
        for (int k = 7; k >= 0; k--) {
            out[k] = (uint8_t)((v & 0x7Fu) | 0x80u);
            v >>= 7;
        }
        return 9;
    }
    uint8_t tmp[9];
    uint32_t n = 0;
    do {
        tmp[n++] = (uint8_t)((v & 0x7Fu) | 0x80u);
        v >>= 7;
    } while (v);
    tmp[0] &= 0x7Fu;
    for (uint32_t k = 0; k < n; k++)
        out[k] = tmp[n - 1u - k];
    return n;
}

static uint32_t varint_get(const uint8_t *p, uint64_t *v) {
    uint64_t x = 0;
    for (uint32_t k = 0; k < 8u; k++) {
        x = (x << 7) | (p[k] & 0x7Fu);
        if (!(p[k] & 0x80u)) {
            *v = x;
            return k + 1u;
        }
    }
    *v = (x << 8) | p[8];
    return 9;
}

/* ------------------------------------------------------------------------ */
/* The file                                                                 */
/* ------------------------------------------------------------------------ */

static int write_all(int fd, const uint8_t *data, size_t size, off_t at) {
    while (size) {
        ssize_t n = pwrite(fd, data, size, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        data += n;
        size -= (size_t)n;
        at += n;
    }
    return 1;
}

static int read_all(int fd, uint8_t *data, size_t size, off_t at) {
    while (size) {
        ssize_t n = pread(fd, data, size, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        data += n;
        size -= (size_t)n;
        at += n;
    }
    return 1;
}

static off_t page_offset(const recorder_pages *p, uint32_t pgno) {
    return (off_t)(pgno - 1u) * (off_t)p->page_size;
}

static throng_status io_fail(recorder_pages *p, const char *what, char *why,
                             size_t why_size) {
    say(why, why_size, "%s: %s", what, strerror(errno ? errno : EIO));
    p->broken = 1;
    return THRONG_ERR_IO;
}

/* One of SQLite's byte locks; 0 when another connection holds a
 * conflicting one. */
static int byte_lock(int fd, short type, off_t start, off_t length) {
    struct flock l;
    memset(&l, 0, sizeof l);
    l.l_type = type;
    l.l_whence = SEEK_SET;
    l.l_start = start;
    l.l_len = length;
#ifdef F_OFD_SETLK
    if (fcntl(fd, F_OFD_SETLK, &l) == 0)
        return 1;
    if (errno != EINVAL)
        return 0;
#endif
    return fcntl(fd, F_SETLK, &l) == 0;
}

/* Retries a lock until readers let go, REC_LOCK_TRIES times. */
static int byte_lock_wait(int fd, short type, off_t start, off_t length) {
    const struct timespec pause = { 0, 1000000 };
    for (uint32_t tries = 0; tries < REC_LOCK_TRIES; tries++) {
        if (byte_lock(fd, type, start, length))
            return 1;
        if (errno != EAGAIN && errno != EACCES && errno != EINTR)
            return 0;
        nanosleep(&pause, NULL);
    }
    errno = EBUSY;
    return 0;
}

static uint32_t allocate(recorder_pages *p) {
    uint32_t pgno = p->next++;
    if (pgno == p->lock_page)
        pgno = p->next++;
    return pgno;
}

static int batch_flush(recorder_pages *p) {
    if (!p->batch_count)
        return 1;
    int ok = write_all(p->fd, p->batch, (size_t)p->batch_count * p->page_size,
                       page_offset(p, p->batch_first));
    p->batch_count = 0;
    return ok;
}

/* A page written where it will stay: fresh pages go out in batches, a
 * page the last commit had waits for the commit's journal. */
static int emit(recorder_pages *p, uint32_t pgno, const uint8_t *page) {
    if (pgno <= p->committed) {
        if (p->held_count == p->held_capacity) {
            uint32_t capacity = p->held_capacity ? 2u * p->held_capacity : 8u;
            rec_held *grown = realloc(p->held, capacity * sizeof *grown);
            if (!grown)
                return 0;
            p->held = grown;
            p->held_capacity = capacity;
        }
        uint8_t *copy = malloc(p->page_size);
        if (!copy)
            return 0;
        memcpy(copy, page, p->page_size);
        p->held[p->held_count].pgno = pgno;
        p->held[p->held_count++].page = copy;
        return 1;
    }
    if (p->batch_count && (pgno != p->batch_first + p->batch_count ||
                           p->batch_count == REC_BATCH_PAGES))
        if (!batch_flush(p))
            return 0;
    if (!p->batch_count)
        p->batch_first = pgno;
    memcpy(p->batch + (size_t)p->batch_count * p->page_size, page,
           p->page_size);
    p->batch_count++;
    return 1;
}

/* ------------------------------------------------------------------------ */
/* The trees                                                                */
/* ------------------------------------------------------------------------ */

static uint32_t header_size(int level) {
    return level ? 12u : 8u;
}

static void level_start(recorder_pages *p, rec_level *l, uint32_t pgno) {
    l->pgno = pgno;
    l->content = p->usable;
    l->cells = 0;
    memset(l->page, 0, p->page_size);
}

static int level_fits(const rec_level *l, int level, uint32_t size) {
    return (uint64_t)header_size(level) + 2u * ((uint64_t)l->cells + 1u) +
               size <=
           l->content;
}

static void level_add(rec_level *l, int level, const uint8_t *cell,
                      uint32_t size) {
    l->content -= size;
    memcpy(l->page + l->content, cell, size);
    put2(l->page + header_size(level) + 2u * l->cells, l->content);
    l->cells++;
}

/* Takes the last cell out of a page (the one at the content area's
 * start); returns its size, its bytes in out. */
static uint32_t level_pop(const rec_tree *t, rec_level *l, int level,
                          uint8_t *out) {
    const uint8_t *cell = l->page + l->content;
    const uint32_t child = level ? 4u : 0u;
    uint64_t value = 0;
    uint32_t size = child + varint_get(cell + child, &value);
    if (t->index)
        size += (uint32_t)value;
    memcpy(out, cell, size);
    memset(l->page + l->content, 0, size);
    l->content += size;
    l->cells--;
    put2(l->page + header_size(level) + 2u * l->cells, 0);
    return size;
}

/* Writes the page header: the page's type, cells and content start, and
 * an interior page's right-most child. */
static void level_seal(const rec_tree *t, rec_level *l, int level,
                       uint32_t right) {
    uint8_t *h = l->page;
    h[0] = (uint8_t)(t->index ? (level ? 0x02 : 0x0A) : (level ? 0x05 : 0x0D));
    put2(h + 1, 0);
    put2(h + 3, l->cells);
    put2(h + 5, l->content == 65536u ? 0u : l->content);
    h[7] = 0;
    if (level)
        put4(h + 8, right);
}

/* Finishes the open page of a level for good; returns its number (a new
 * one when it was the root's: the level above takes the root). */
static uint32_t level_finish(recorder_pages *p, rec_tree *t, int level,
                             uint32_t right, int *ok) {
    rec_level *l = &t->level[level];
    if (l->pgno == t->root)
        l->pgno = allocate(p);
    level_seal(t, l, level, right);
    *ok = emit(p, l->pgno, l->page);
    return l->pgno;
}

static int level_open(recorder_pages *p, rec_tree *t, int level) {
    rec_level *l = &t->level[level];
    if (!l->page) {
        l->page = malloc(p->page_size);
        if (!l->page)
            return 0;
    }
    return 1;
}

/* Adds (child, key) to the interior level `level`, the level splitting
 * (and the tree growing) as it must. */
static int push(recorder_pages *p, rec_tree *t, int level, uint32_t child,
                const uint8_t *key, uint32_t key_size) {
    if (level >= REC_MAX_LEVELS || key_size + 4u > REC_MAX_CELL)
        return 0;
    if (level == t->levels) {
        if (!level_open(p, t, level))
            return 0;
        level_start(p, &t->level[level], t->root);
        t->levels++;
    }
    uint8_t cell[REC_MAX_CELL];
    put4(cell, child);
    memcpy(cell + 4, key, key_size);
    rec_level *l = &t->level[level];
    if (level_fits(l, level, key_size + 4u)) {
        level_add(l, level, cell, key_size + 4u);
        return 1;
    }
    /* Full: its last cell's child becomes its right-most child, and that
     * cell's key goes up. */
    uint8_t last[REC_MAX_CELL];
    const uint32_t last_size = level_pop(t, l, level, last);
    int ok = 1;
    const uint32_t done = level_finish(p, t, level, get4(last), &ok);
    if (!ok || !push(p, t, level + 1, done, last + 4, last_size - 4u))
        return 0;
    level_start(p, l, allocate(p));
    level_add(l, level, cell, key_size + 4u);
    return 1;
}

throng_status recorder_pages_append(recorder_pages *p, int which,
                                    const uint8_t *cell, uint32_t size,
                                    int64_t rowid, char *why, size_t why_size) {
    if (p->broken) {
        say(why, why_size, "the file's writer failed before");
        return THRONG_ERR_IO;
    }
    rec_tree *t = &p->tree[which];
    rec_level *leaf = &t->level[0];
    if (!level_fits(leaf, 0, size)) {
        uint8_t key[REC_MAX_CELL];
        uint32_t key_size;
        if (t->index)
            key_size = level_pop(t, leaf, 0, key);
        else
            key_size = recorder_pages_varint(key, (uint64_t)t->last_rowid);
        int ok = 1;
        const uint32_t done = level_finish(p, t, 0, 0, &ok);
        if (!ok || !push(p, t, 1, done, key, key_size))
            return io_fail(p, "writing a page", why, why_size);
        level_start(p, leaf, allocate(p));
    }
    level_add(leaf, 0, cell, size);
    t->last_rowid = rowid;
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* Commits                                                                  */
/* ------------------------------------------------------------------------ */

/* The journal's checksum of a page: the nonce plus every 200th byte,
 * counting down from 200 bytes before the page's end. */
static uint32_t page_checksum(const recorder_pages *p, const uint8_t *page) {
    uint32_t sum = p->nonce;
    for (int64_t at = (int64_t)p->page_size - 200; at > 0; at -= 200)
        sum += page[at];
    return sum;
}

throng_status recorder_pages_commit(recorder_pages *p, char *why,
                                    size_t why_size) {
    if (p->broken) {
        say(why, why_size, "the file's writer failed before");
        return THRONG_ERR_IO;
    }
    /* The pages written in place: page 1, the pages the last commit had
     * that were finished since, the open pages it had. */
    uint32_t count = p->held_count + 1u;
    for (int k = 0; k < 2; k++)
        count += (uint32_t)p->tree[k].levels;
    rec_held *place = malloc(count * sizeof *place);
    if (!place) {
        say(why, why_size, "no memory for a commit");
        p->broken = 1;
        return THRONG_ERR_OUT_OF_MEMORY;
    }
    uint32_t n = 0;
    place[n].pgno = 1;
    place[n++].page = p->first;
    for (uint32_t i = 0; i < p->held_count; i++)
        place[n++] = p->held[i];
    int ok = 1;
    for (int k = 0; k < 2 && ok; k++) {
        rec_tree *t = &p->tree[k];
        for (int level = 0; level < t->levels && ok; level++) {
            rec_level *l = &t->level[level];
            level_seal(t, l, level, level ? t->level[level - 1].pgno : 0u);
            if (l->pgno <= p->committed) {
                place[n].pgno = l->pgno;
                place[n++].page = l->page;
            } else {
                ok = emit(p, l->pgno, l->page);
            }
        }
    }
    if (!ok || !batch_flush(p)) {
        free(place);
        return io_fail(p, "writing pages", why, why_size);
    }
    stage(p, REC_STAGE_FRESH);
    const uint32_t pages = p->next - 1u;
    /* Page 1's header as the commit leaves it: a new change counter, the
     * page count, and the counter it is valid for. */
    uint8_t header[100];
    memcpy(header, p->first, sizeof header);
    const uint32_t counter = get4(p->first + 24) + 1u;
    put4(p->first + 24, counter);
    put4(p->first + 28, pages);
    put4(p->first + 92, counter);

    const size_t record = (size_t)p->page_size + 8u;
    const size_t journal_size = REC_SECTOR + (size_t)n * record;
    if (journal_size > p->journal_capacity) {
        uint8_t *grown = realloc(p->journal_buf, journal_size);
        if (!grown) {
            memcpy(p->first, header, sizeof header);
            free(place);
            say(why, why_size, "no memory for a commit");
            p->broken = 1;
            return THRONG_ERR_OUT_OF_MEMORY;
        }
        p->journal_buf = grown;
        p->journal_capacity = journal_size;
    }
    uint8_t *j = p->journal_buf;
    static const uint8_t magic[8] = { 0xd9, 0xd5, 0x05, 0xf9,
                                      0x20, 0xa1, 0x63, 0xd7 };
    memset(j, 0, REC_SECTOR);
    memcpy(j, magic, sizeof magic);
    put4(j + 8, n);
    p->nonce = p->nonce * 1103515245u + 12345u;
    put4(j + 12, p->nonce);
    put4(j + 16, p->committed);
    put4(j + 20, REC_SECTOR);
    put4(j + 24, p->page_size);
    for (uint32_t i = 0; i < n && ok; i++) {
        uint8_t *r = j + REC_SECTOR + (size_t)i * record;
        put4(r, place[i].pgno);
        if (place[i].pgno == 1u) {
            memcpy(r + 4, p->first, p->page_size);
            memcpy(r + 4, header, sizeof header);
        } else {
            ok = read_all(p->fd, r + 4, p->page_size,
                          page_offset(p, place[i].pgno));
        }
        put4(r + 4 + p->page_size, page_checksum(p, r + 4));
    }
    const char *what = "reading pages";
    if (ok) {
        what = "locking the file for a commit";
        ok = byte_lock_wait(p->fd, F_WRLCK, REC_PENDING_BYTE, 1) &&
             byte_lock_wait(p->fd, F_WRLCK, REC_SHARED_FIRST, REC_SHARED_SIZE);
    }
    if (ok) {
        what = "writing the journal";
        ok = write_all(p->journal, j, journal_size, 0);
        p->journal_hot = 1;
    }
    if (ok)
        stage(p, REC_STAGE_JOURNAL);
    for (uint32_t i = 0; i < n && ok; i++) {
        what = "writing pages in place";
        ok = write_all(p->fd, place[i].page, p->page_size,
                       page_offset(p, place[i].pgno));
        if (ok && i == 0)
            stage(p, REC_STAGE_HALF);
    }
    if (ok) {
        stage(p, REC_STAGE_IN_PLACE);
        what = "ending the journal";
        ok = ftruncate(p->journal, 0) == 0;
    }
    free(place);
    if (!ok) {
        memcpy(p->first, header, sizeof header);
        return io_fail(p, what, why, why_size);
    }
    p->journal_hot = 0;
    (void)byte_lock(p->fd, F_RDLCK, REC_SHARED_FIRST, REC_SHARED_SIZE);
    (void)byte_lock(p->fd, F_UNLCK, REC_PENDING_BYTE, 1);
    for (uint32_t i = 0; i < p->held_count; i++)
        free(p->held[i].page);
    p->held_count = 0;
    p->committed = pages;
    stage(p, REC_STAGE_DONE);
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* Opening and closing                                                      */
/* ------------------------------------------------------------------------ */

bool recorder_pages_small_ints(const recorder_pages *p) {
    return p->small_ints != 0;
}

static void pages_free(recorder_pages *p) {
    for (int k = 0; k < 2; k++)
        for (int level = 0; level < REC_MAX_LEVELS; level++)
            free(p->tree[k].level[level].page);
    for (uint32_t i = 0; i < p->held_count; i++)
        free(p->held[i].page);
    free(p->held);
    free(p->first);
    free(p->batch);
    free(p->journal_buf);
    free(p->journal_path);
    free(p->path);
    free(p);
}

/* Checks the file SQLite left and reads what the writer needs. */
static throng_status pages_start(recorder_pages *p, const uint32_t roots[2],
                                 char *why, size_t why_size) {
    uint8_t h[100];
    if (!read_all(p->fd, h, sizeof h, 0) ||
        memcmp(h, "SQLite format 3", 16) != 0) {
        say(why, why_size, "the file is not an SQLite database");
        return THRONG_ERR_IO;
    }
    const uint32_t size = get2(h + 16);
    p->page_size = size == 1u ? 65536u : size;
    if (p->page_size < 512u || (p->page_size & (p->page_size - 1u)) ||
        h[20] > p->page_size - 480u) {
        say(why, why_size, "the file's header is not SQLite's");
        return THRONG_ERR_IO;
    }
    p->usable = p->page_size - h[20];
    if (h[18] != 1 || h[19] != 1 || get4(h + 52) != 0) {
        say(why, why_size,
            "the file is in WAL mode or auto-vacuumed (a rollback journal "
            "and no auto_vacuum are needed)");
        return THRONG_ERR_IO;
    }
    p->small_ints = get4(h + 44) >= 4u;
    struct stat st;
    if (fstat(p->fd, &st) != 0)
        return io_fail(p, "reading the file's size", why, why_size);
    const uint32_t in_file = (uint32_t)(st.st_size / p->page_size);
    uint32_t pages = get4(h + 28);
    if (!pages || get4(h + 24) != get4(h + 92) || pages > in_file)
        pages = in_file;
    p->committed = pages;
    p->lock_page = (uint32_t)(REC_PENDING_BYTE / p->page_size) + 1u;
    p->next = pages + 1u;
    p->first = malloc(p->page_size);
    p->batch = malloc((size_t)REC_BATCH_PAGES * p->page_size);
    if (!p->first || !p->batch) {
        say(why, why_size, "no memory");
        return THRONG_ERR_OUT_OF_MEMORY;
    }
    if (!read_all(p->fd, p->first, p->page_size, 0))
        return io_fail(p, "reading page 1", why, why_size);
    put4(p->first + 24, get4(h + 24));
    put4(p->first + 28, pages);
    put4(p->first + 92, get4(h + 24));
    for (int k = 0; k < 2; k++) {
        rec_tree *t = &p->tree[k];
        t->root = roots[k];
        t->index = k == REC_TREE_ROWS;
        t->levels = 1;
        uint8_t page[8];
        if (roots[k] < 2u || roots[k] > pages ||
            !read_all(p->fd, page, sizeof page, page_offset(p, roots[k])) ||
            page[0] != (t->index ? 0x0A : 0x0D) || get2(page + 3) != 0) {
            say(why, why_size, "the %s table's root page %u is not empty",
                k == REC_TREE_ROWS ? "trajectory_data" : "throng_frames",
                (unsigned)roots[k]);
            return THRONG_ERR_IO;
        }
        if (!level_open(p, t, 0)) {
            say(why, why_size, "no memory");
            return THRONG_ERR_OUT_OF_MEMORY;
        }
        level_start(p, &t->level[0], roots[k]);
    }
    return THRONG_OK;
}

throng_status recorder_pages_open(const char *path, const uint32_t roots[2],
                                  recorder_pages **out, char *why,
                                  size_t why_size) {
    *out = NULL;
    recorder_pages *p = calloc(1, sizeof *p);
    const size_t length = strlen(path);
    if (p) {
        p->journal_path = malloc(length + sizeof "-journal");
        p->path = malloc(length + 1u);
    }
    if (!p || !p->journal_path || !p->path) {
        if (p) {
            free(p->journal_path);
            free(p->path);
        }
        free(p);
        say(why, why_size, "no memory");
        return THRONG_ERR_OUT_OF_MEMORY;
    }
    memcpy(p->path, path, length + 1u);
    memcpy(p->journal_path, path, length);
    memcpy(p->journal_path + length, "-journal", sizeof "-journal");
    p->journal = -1;
    p->nonce = (uint32_t)time(NULL) ^ (uint32_t)getpid();
    p->fd = open(path, O_RDWR | O_CLOEXEC);
    if (p->fd < 0) {
        say(why, why_size, "reopening the file: %s", strerror(errno));
        pages_free(p);
        return THRONG_ERR_IO;
    }
    /* SQLite's way to a reserved lock: shared (through pending), then
     * reserved. */
    throng_status status = THRONG_OK;
    if (!byte_lock_wait(p->fd, F_RDLCK, REC_PENDING_BYTE, 1) ||
        !byte_lock(p->fd, F_RDLCK, REC_SHARED_FIRST, REC_SHARED_SIZE) ||
        !byte_lock(p->fd, F_UNLCK, REC_PENDING_BYTE, 1) ||
        !byte_lock(p->fd, F_WRLCK, REC_RESERVED_BYTE, 1)) {
        say(why, why_size, "another connection is writing the file");
        status = THRONG_ERR_IO;
    }
    if (status == THRONG_OK)
        status = pages_start(p, roots, why, why_size);
    if (status == THRONG_OK) {
        struct stat st;
        mode_t mode = 0644;
        if (fstat(p->fd, &st) == 0)
            mode = st.st_mode & 0777;
        p->journal = open(p->journal_path, O_RDWR | O_CREAT | O_CLOEXEC, mode);
        if (p->journal < 0 || ftruncate(p->journal, 0) != 0) {
            say(why, why_size, "creating the journal: %s", strerror(errno));
            status = THRONG_ERR_IO;
        }
    }
    if (status != THRONG_OK) {
        if (p->journal >= 0) {
            close(p->journal);
            unlink(p->journal_path);
        }
        close(p->fd);
        pages_free(p);
        return status;
    }
    *out = p;
    return THRONG_OK;
}

throng_status recorder_pages_close(recorder_pages *p, char *why,
                                   size_t why_size) {
    throng_status status = THRONG_OK;
    if (!p->journal_hot) {
        /* Pages past the last commit are nobody's. */
        if (ftruncate(p->fd, page_offset(p, p->committed + 1u)) != 0)
            status = io_fail(p, "trimming the file", why, why_size);
        unlink(p->journal_path);
    }
    close(p->journal);
    /* Closing the descriptor releases the locks. */
    close(p->fd);
    pages_free(p);
    return status;
}

#else

/* Built without SQLite: no recorder, nothing here is needed. */
typedef int recorder_pages_unused;

#endif
