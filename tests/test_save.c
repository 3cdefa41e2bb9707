/* SPDX-License-Identifier: MIT */
/*
 * Saving to files, and the loader's strictness: concurrent saves to one
 * path (threads, processes) always leave one complete snapshot; the
 * temporary file is never a symbolic link's target nor a file somebody
 * else left; a full filesystem or a file size limit leaves the previous
 * snapshot whole and no temporary file; a world holding a NaN or an
 * infinity is refused before anything is written; every shape creation
 * refuses, forged into an otherwise valid snapshot, is refused on load;
 * and a pipe whose header claims an enormous size costs only the bytes it
 * held.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "object_defs.h"
#include "runner.h"

/* The header layout throng.h documents. */
#define SAVE_TEST_HEADER TEST_SNAPSHOT_HEADER
#define SAVE_TEST_LENGTH_AT 24u

/* Rounds of the concurrent saves: the old shared temporary file was
 * corrupted or lost within the first few dozen. On a disk rather than in
 * memory each save waits for two flushes, so fewer rounds are run there. */
#define SAVE_TEST_ROUNDS 300
#define SAVE_TEST_DISK_ROUNDS 60

/* A 2D world of `agents` agents at seeded places and velocities. */
static throng_world *save_test_world(uint32_t agents, uint64_t seed) {
    throng_world_def wd = throng_world_def_default();
    wd.seed = seed;
    wd.threads = 1;
    throng_world *w = NULL;
    if (throng_world_create(&wd, &w) != THRONG_OK)
        return NULL;
    test_rng rng = test_rng_make(seed);
    for (uint32_t i = 0; i < agents; i++) {
        throng_agent_def ad = throng_agent_def_default();
        ad.position[0] = test_rng_range(&rng, -50.0f, 50.0f);
        ad.position[1] = test_rng_range(&rng, -50.0f, 50.0f);
        ad.velocity[0] = test_rng_range(&rng, -1.0f, 1.0f);
        ad.velocity[1] = test_rng_range(&rng, -1.0f, 1.0f);
        throng_agent h;
        if (throng_agent_add(w, &ad, &h) != THRONG_OK) {
            throng_world_destroy(w);
            return NULL;
        }
    }
    return w;
}

/* A fresh empty directory, on a memory filesystem when there is one:
 * the concurrent tests save hundreds of times, and each save flushes to
 * disk. */
static int save_test_dir(char *out, size_t n, const char *base) {
    snprintf(out, n, "%s/throng-save-XXXXXX", base);
    return mkdtemp(out) != NULL;
}

static const char *save_test_fast_base(int *rounds) {
    struct stat st;
    int shm = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
              access("/dev/shm", W_OK) == 0;
    *rounds = shm ? SAVE_TEST_ROUNDS : SAVE_TEST_DISK_ROUNDS;
    if (!shm)
        printf("save tests: no /dev/shm, %d rounds on /tmp\n", *rounds);
    return shm ? "/dev/shm" : "/tmp";
}

/* The names in dir other than "." and "..", and whether any is not in
 * `allowed` (NULL-terminated); the first such is copied to `stray`. */
static int save_test_entries(const char *dir, const char *const *allowed,
                             char *stray, size_t stray_n) {
    DIR *d = opendir(dir);
    int count = 0;
    if (stray_n)
        stray[0] = '\0';
    if (!d)
        return -1;
    for (struct dirent *e = readdir(d); e; e = readdir(d)) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        count++;
        int ok = 0;
        for (size_t k = 0; allowed && allowed[k]; k++)
            ok |= strcmp(e->d_name, allowed[k]) == 0;
        if (!ok && stray_n && !stray[0])
            snprintf(stray, stray_n, "%s", e->d_name);
    }
    closedir(d);
    return count;
}

/* Removes every entry of dir (no subdirectories) and dir itself. */
static void save_test_rmdir(const char *dir) {
    DIR *d = opendir(dir);
    if (d) {
        char path[512];
        for (struct dirent *e = readdir(d); e; e = readdir(d)) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* The hash of the world in the file, or 0 when it does not load (the
 * reason in why). */
static uint64_t save_test_file_hash(const char *path, char *why, size_t n) {
    throng_world_load_def def = throng_world_load_def_default();
    def.error = why;
    def.error_capacity = n;
    throng_world *w = NULL;
    if (throng_world_load_file(path, &def, &w) != THRONG_OK)
        return 0;
    uint64_t h = throng_world_hash(w);
    throng_world_destroy(w);
    return h;
}

static int save_test_write_file(const char *path, const void *bytes, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    int ok = fwrite(bytes, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* The file's bytes in a malloc'd buffer, or NULL. */
static uint8_t *save_test_read_file(const char *path, size_t *out_n) {
    *out_n = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *more = realloc(buf, cap * 2u);
        if (!more) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = more;
        cap *= 2u;
    }
    fclose(f);
    *out_n = n;
    return buf;
}

/* ------------------------------------------------------------------------ */
/* Concurrent saves to one path                                             */
/* ------------------------------------------------------------------------ */

typedef struct save_test_saver {
    throng_world *world;
    const char *path;
    pthread_barrier_t *start, *done;
    int rounds;
    int failures;
    char why[256];
} save_test_saver;

static void *save_test_saver_run(void *arg) {
    save_test_saver *s = arg;
    for (int round = 0; round < s->rounds; round++) {
        pthread_barrier_wait(s->start);
        if (throng_world_save_file(s->world, s->path) != THRONG_OK) {
            if (!s->failures)
                snprintf(s->why, sizeof s->why, "round %d: %s", round,
                         throng_world_last_error(s->world));
            s->failures++;
        }
        pthread_barrier_wait(s->done);
    }
    return NULL;
}

/* Two worlds in different states (different sizes, so a mix of their
 * bytes is no snapshot at all) save to one path at the same moment, round
 * after round: every save succeeds, and after each round the file loads
 * and is one of the two. */
TEST(save_threads_one_path) {
    throng_world *a = save_test_world(3000u, 1u);
    throng_world *b = save_test_world(3000u, 2u);
    char dir[256], path[300], why[256] = "";
    int rounds = 0;
    REQUIRE(a && b);
    REQUIRE(save_test_dir(dir, sizeof dir, save_test_fast_base(&rounds)));
    snprintf(path, sizeof path, "%s/world.snap", dir);
    const uint64_t ha = throng_world_hash(a), hb = throng_world_hash(b);
    REQUIRE(ha != hb);
    pthread_barrier_t start, done;
    pthread_barrier_init(&start, NULL, 3u);
    pthread_barrier_init(&done, NULL, 3u);
    save_test_saver savers[2] = { { a, path, &start, &done, rounds, 0, "" },
                                  { b, path, &start, &done, rounds, 0, "" } };
    pthread_t threads[2];
    for (int t = 0; t < 2; t++)
        REQUIRE(pthread_create(&threads[t], NULL, save_test_saver_run,
                               &savers[t]) == 0);
    int bad_files = 0, seen_a = 0, seen_b = 0;
    for (int round = 0; round < rounds; round++) {
        pthread_barrier_wait(&start);
        pthread_barrier_wait(&done);
        uint64_t h = save_test_file_hash(path, why, sizeof why);
        seen_a += h == ha;
        seen_b += h == hb;
        if (h != ha && h != hb && bad_files++ == 0)
            runner_fail(__FILE__, __LINE__,
                        "round %d: the file is neither world: %s", round, why);
    }
    for (int t = 0; t < 2; t++)
        pthread_join(threads[t], NULL);
    pthread_barrier_destroy(&start);
    pthread_barrier_destroy(&done);
    for (int t = 0; t < 2; t++)
        if (savers[t].failures)
            runner_fail(__FILE__, __LINE__, "world %d: %d saves refused: %s", t,
                        savers[t].failures, savers[t].why);
    CHECK_EQ_INT(bad_files, 0);
    CHECK_EQ_INT(seen_a + seen_b, rounds);
    /* No temporary file is left behind. */
    const char *const allowed[] = { "world.snap", NULL };
    char stray[256];
    CHECK_EQ_INT(save_test_entries(dir, allowed, stray, sizeof stray), 1);
    CHECK(stray[0] == '\0');
    save_test_rmdir(dir);
    throng_world_destroy(a);
    throng_world_destroy(b);
}

/* The same with two processes: a child saves its world over and over
 * until the parent, saving its own and loading the file after each save,
 * has run its rounds. */
TEST(save_processes_one_path) {
    throng_world *a = save_test_world(3000u, 3u);
    throng_world *b = save_test_world(3000u, 4u);
    char dir[256], path[300], why[256] = "";
    int rounds = 0;
    REQUIRE(a && b);
    REQUIRE(save_test_dir(dir, sizeof dir, save_test_fast_base(&rounds)));
    snprintf(path, sizeof path, "%s/world.snap", dir);
    const uint64_t ha = throng_world_hash(a), hb = throng_world_hash(b);
    REQUIRE_OK(throng_world_save_file(a, path));
    int stop[2];
    REQUIRE(pipe(stop) == 0);
    fflush(stdout);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        /* Only saves: no thread is started in the child. It stops when
         * the parent closes its end of the pipe (or after a bound). */
        close(stop[1]);
        fcntl(stop[0], F_SETFL, O_NONBLOCK);
        int refused = 0;
        for (int k = 0; k < 100000; k++) {
            refused += throng_world_save_file(b, path) != THRONG_OK;
            char c;
            if (read(stop[0], &c, 1) == 0)
                break;
        }
        _exit(refused > 100 ? 100 : refused);
    }
    close(stop[0]);
    int refused = 0, bad_files = 0;
    for (int round = 0; round < rounds; round++) {
        if (throng_world_save_file(a, path) != THRONG_OK && refused++ == 0)
            runner_fail(__FILE__, __LINE__, "round %d: %s", round,
                        throng_world_last_error(a));
        uint64_t h = save_test_file_hash(path, why, sizeof why);
        if (h != ha && h != hb && bad_files++ == 0)
            runner_fail(__FILE__, __LINE__,
                        "round %d: the file is neither world: %s", round, why);
    }
    close(stop[1]);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status));
    CHECK_EQ_INT(WEXITSTATUS(status), 0); /* the child's refused saves */
    CHECK_EQ_INT(refused, 0);
    CHECK_EQ_INT(bad_files, 0);
    uint64_t last = save_test_file_hash(path, why, sizeof why);
    CHECK(last == ha || last == hb);
    const char *const allowed[] = { "world.snap", NULL };
    char stray[256];
    CHECK_EQ_INT(save_test_entries(dir, allowed, stray, sizeof stray), 1);
    CHECK(stray[0] == '\0');
    save_test_rmdir(dir);
    throng_world_destroy(a);
    throng_world_destroy(b);
}

/* ------------------------------------------------------------------------ */
/* Links and files somebody else put there                                  */
/* ------------------------------------------------------------------------ */

/* Symbolic links planted at "<path>.tmp" and the other names a save might
 * predict, and at the target itself, all pointing at victims: the save
 * writes none of the victims, and leaves a regular file at the path. */
TEST(save_symlinks_not_followed) {
    throng_world *w = save_test_world(40u, 5u);
    char dir[256], path[300], victim[300], victim2[300], link[400];
    REQUIRE(w);
    REQUIRE(save_test_dir(dir, sizeof dir, "/tmp"));
    snprintf(path, sizeof path, "%s/world.snap", dir);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(victim2, sizeof victim2, "%s/victim2", dir);
    static const char precious[] = "somebody else's file\n";
    REQUIRE(save_test_write_file(victim, precious, sizeof precious - 1u));
    REQUIRE(save_test_write_file(victim2, precious, sizeof precious - 1u));
    const char *suffixes[] = {
        ".tmp", ".tmp.0", ".tmp.1", "~", ".new", ".part"
    };
    const size_t nsuffix = sizeof suffixes / sizeof suffixes[0];
    for (size_t k = 0; k < nsuffix; k++) {
        snprintf(link, sizeof link, "%s%s", path, suffixes[k]);
        REQUIRE(symlink(victim, link) == 0);
    }
    snprintf(link, sizeof link, "%s.tmp.%ld", path, (long)getpid());
    REQUIRE(symlink(victim, link) == 0);
    REQUIRE(symlink(victim2, path) == 0);

    CHECK_OK(throng_world_save_file(w, path));
    for (int v = 0; v < 2; v++) {
        size_t n = 0;
        uint8_t *bytes = save_test_read_file(v ? victim2 : victim, &n);
        CHECK(bytes && n == sizeof precious - 1u &&
              memcmp(bytes, precious, n) == 0);
        free(bytes);
    }
    struct stat st;
    REQUIRE(lstat(path, &st) == 0);
    CHECK(S_ISREG(st.st_mode));
    char why[256] = "";
    CHECK_EQ_U64(save_test_file_hash(path, why, sizeof why),
                 throng_world_hash(w));
    /* The planted links are still there, untouched: nothing else is. */
    for (size_t k = 0; k < nsuffix; k++) {
        snprintf(link, sizeof link, "%s%s", path, suffixes[k]);
        CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    }
    CHECK_EQ_INT(save_test_entries(dir, NULL, NULL, 0), (int)nsuffix + 4);
    save_test_rmdir(dir);
    throng_world_destroy(w);
}

/* A regular file somebody else left at "<path>.tmp" (a crashed writer of
 * some other program, or another user's) is not the save's to truncate,
 * rename or delete: it is left exactly as it was. */
static void save_test_foreign_tmp(const char *path, char *tmp, size_t n) {
    static const char note[] = "not a snapshot\n";
    snprintf(tmp, n, "%s.tmp", path);
    if (!save_test_write_file(tmp, note, sizeof note - 1u))
        runner_fail(__FILE__, __LINE__, "cannot write %s", tmp);
}

static int save_test_foreign_intact(const char *tmp) {
    static const char note[] = "not a snapshot\n";
    size_t n = 0;
    uint8_t *bytes = save_test_read_file(tmp, &n);
    int ok = bytes && n == sizeof note - 1u && memcmp(bytes, note, n) == 0;
    free(bytes);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Failing writes                                                           */
/* ------------------------------------------------------------------------ */

/* A full filesystem: a 64 KiB memory filesystem holds a small world's
 * snapshot; a large world's does not fit. The save is refused with
 * THRONG_ERR_IO naming the step and the reason, the small world's
 * snapshot still loads, and no temporary file is left. Needs root for
 * mount(2); skipped (and said so) otherwise. */
TEST(save_full_filesystem) {
    char dir[256], path[300], tmp[320], why[256] = "";
    if (geteuid() != 0) {
        printf("save_full_filesystem: skipped, mounting a filesystem needs "
               "root\n");
        return;
    }
    REQUIRE(save_test_dir(dir, sizeof dir, "/tmp"));
    if (mount("tmpfs", dir, "tmpfs", 0, "size=64k") != 0) {
        printf("save_full_filesystem: skipped, mount failed: %s\n",
               strerror(errno));
        rmdir(dir);
        return;
    }
    snprintf(path, sizeof path, "%s/world.snap", dir);
    throng_world *small = save_test_world(50u, 6u);
    throng_world *big = save_test_world(4000u, 7u);
    size_t big_bytes = 0;
    if (small && big &&
        throng_world_snapshot_size(big, &big_bytes) == THRONG_OK &&
        big_bytes > 64u * 1024u) {
        CHECK_OK(throng_world_save_file(small, path));
        save_test_foreign_tmp(path, tmp, sizeof tmp);
        uint64_t big_hash = throng_world_hash(big);
        CHECK_STATUS(throng_world_save_file(big, path), THRONG_ERR_IO);
        const char *e = throng_world_last_error(big);
        CHECK(strstr(e, "throng_world_save_file") == e);
        CHECK(strstr(e, strerror(ENOSPC)) != NULL);
        CHECK(strstr(e, "write") != NULL);
        CHECK_EQ_U64(throng_world_hash(big), big_hash);
        CHECK_EQ_U64(save_test_file_hash(path, why, sizeof why),
                     throng_world_hash(small));
        CHECK(save_test_foreign_intact(tmp));
        const char *const allowed[] = { "world.snap", "world.snap.tmp", NULL };
        char stray[256];
        CHECK_EQ_INT(save_test_entries(dir, allowed, stray, sizeof stray), 2);
        CHECK(stray[0] == '\0');
    } else {
        runner_fail(__FILE__, __LINE__, "worlds not built (%zu bytes)",
                    big_bytes);
    }
    throng_world_destroy(small);
    throng_world_destroy(big);
    CHECK(umount(dir) == 0);
    rmdir(dir);
}

/* A file size limit (RLIMIT_FSIZE, in a child, SIGXFSZ ignored so the
 * write fails with EFBIG instead of killing it): THRONG_ERR_IO, the old
 * snapshot intact, no temporary file left. */
TEST(save_file_size_limit) {
    char dir[256], path[300], tmp[320], why[256] = "";
    REQUIRE(save_test_dir(dir, sizeof dir, "/tmp"));
    snprintf(path, sizeof path, "%s/world.snap", dir);
    throng_world *small = save_test_world(50u, 8u);
    throng_world *big = save_test_world(2000u, 9u);
    REQUIRE(small && big);
    REQUIRE_OK(throng_world_save_file(small, path));
    size_t small_bytes = 0, big_bytes = 0;
    REQUIRE_OK(throng_world_snapshot_size(small, &small_bytes));
    REQUIRE_OK(throng_world_snapshot_size(big, &big_bytes));
    save_test_foreign_tmp(path, tmp, sizeof tmp);
    fflush(stdout);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit limit = { (rlim_t)(big_bytes / 2u),
                                (rlim_t)(big_bytes / 2u) };
        if (setrlimit(RLIMIT_FSIZE, &limit) != 0)
            _exit(10);
        if (throng_world_save_file(big, path) != THRONG_ERR_IO)
            _exit(11);
        const char *e = throng_world_last_error(big);
        if (!strstr(e, strerror(EFBIG)) || !strstr(e, "write"))
            _exit(12);
        _exit(0);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status));
    CHECK_EQ_INT(WEXITSTATUS(status), 0);
    CHECK_EQ_U64(save_test_file_hash(path, why, sizeof why),
                 throng_world_hash(small));
    CHECK(save_test_foreign_intact(tmp));
    const char *const allowed[] = { "world.snap", "world.snap.tmp", NULL };
    char stray[256];
    CHECK_EQ_INT(save_test_entries(dir, allowed, stray, sizeof stray), 2);
    CHECK(stray[0] == '\0');
    save_test_rmdir(dir);
    throng_world_destroy(small);
    throng_world_destroy(big);
}

/* ------------------------------------------------------------------------ */
/* Non-finite values                                                        */
/* ------------------------------------------------------------------------ */

/* One refusal: the save to a buffer and to a file both give
 * THRONG_ERR_NOT_FINITE naming the column and the row, write nothing and
 * leave the previous file as it was. */
static void save_test_refused(throng_world *w, const char *column, uint32_t row,
                              const char *path, const uint8_t *old,
                              size_t old_n) {
    size_t size = 0, got = 0;
    REQUIRE_OK(throng_world_snapshot_size(w, &size));
    uint8_t *buf = malloc(size);
    REQUIRE(buf != NULL);
    memset(buf, 0xAB, size);
    CHECK_STATUS(throng_world_save(w, buf, size, &got), THRONG_ERR_NOT_FINITE);
    const char *e = throng_world_last_error(w);
    char want[64];
    snprintf(want, sizeof want, "column %s ", column);
    CHECK(strstr(e, want) != NULL);
    snprintf(want, sizeof want, "dense row %u ", row);
    CHECK(strstr(e, want) != NULL);
    CHECK(strstr(e, "slot") != NULL);
    int untouched = 1;
    for (size_t i = 0; i < size; i++)
        untouched &= buf[i] == 0xABu;
    CHECK(untouched);
    free(buf);
    CHECK_STATUS(throng_world_save_file(w, path), THRONG_ERR_NOT_FINITE);
    CHECK(strstr(throng_world_last_error(w), want) != NULL);
    size_t n = 0;
    uint8_t *disk = save_test_read_file(path, &n);
    CHECK(disk && n == old_n && memcmp(disk, old, n) == 0);
    free(disk);
}

TEST(save_refuses_non_finite) {
    char dir[256], path[300];
    REQUIRE(save_test_dir(dir, sizeof dir, "/tmp"));
    snprintf(path, sizeof path, "%s/world.snap", dir);
    for (int dims = 2; dims <= 3; dims++) {
        throng_world_def wd = throng_world_def_default();
        wd.dimensions = dims;
        throng_world *w = NULL;
        REQUIRE_OK(throng_world_create(&wd, &w));
        throng_agent h[6];
        for (int i = 0; i < 6; i++) {
            throng_agent_def ad = throng_agent_def_default();
            ad.position[0] = (float)i;
            ad.velocity[1] = 1.0f;
            REQUIRE_OK(throng_agent_add(w, &ad, &h[i]));
        }
        /* Behaviour state, so its columns exist. */
        const float target[3] = { 1.0f, 2.0f, 3.0f };
        REQUIRE_OK(throng_agent_set_target_point(w, h[1], target));
        REQUIRE_OK(throng_world_save_file(w, path));
        size_t old_n = 0;
        uint8_t *old = save_test_read_file(path, &old_n);
        REQUIRE(old != NULL);
        uint64_t hash = throng_world_hash(w);

        /* Through the public column pointers, as a host might. */
        throng_columns cols;
        REQUIRE_OK(throng_world_columns(w, &cols));
        float *vy = (float *)(uintptr_t)cols.vy;
        float *fx = (float *)(uintptr_t)cols.fx;
        uint32_t row = 0;
        REQUIRE_OK(throng_agent_index(w, h[3], &row));
        float keep = vy[row];
        vy[row] = NAN;
        save_test_refused(w, "vy", row, path, old, old_n);
        vy[row] = keep;
        REQUIRE_OK(throng_agent_index(w, h[5], &row));
        keep = fx[row];
        fx[row] = -INFINITY;
        save_test_refused(w, "fx", row, path, old, old_n);
        fx[row] = keep;
        /* Behaviour state, which no public pointer reaches. */
        REQUIRE_OK(throng_agent_index(w, h[2], &row));
        w->col.tx[row] = INFINITY;
        save_test_refused(w, "tx", row, path, old, old_n);
        w->col.tx[row] = 0.0f;
        w->col.wx[row] = NAN;
        save_test_refused(w, "wx", row, path, old, old_n);
        w->col.wx[row] = 0.0f;
        /* Mended, it saves again, and nothing changed meanwhile. */
        CHECK_EQ_U64(throng_world_hash(w), hash);
        CHECK_OK(throng_world_save_file(w, path));
        free(old);
        throng_world_destroy(w);
    }
    save_test_rmdir(dir);
}

/* ------------------------------------------------------------------------ */
/* The loader refuses what creation refuses                                 */
/* ------------------------------------------------------------------------ */

/* Where the floats `seq` (n of them) first sit in the snapshot, as the
 * format stores them (little-endian bits), or SIZE_MAX. */
static size_t save_test_find(const uint8_t *s, size_t len, const float *seq,
                             size_t n) {
    uint8_t want[64];
    if (n * 4u > sizeof want)
        return SIZE_MAX;
    for (size_t k = 0; k < n; k++) {
        uint32_t u;
        memcpy(&u, &seq[k], sizeof u);
        for (unsigned b = 0; b < 4u; b++)
            want[4u * k + b] = (uint8_t)(u >> (8u * b));
    }
    for (size_t i = SAVE_TEST_HEADER; i + 4u * n <= len; i++)
        if (memcmp(s + i, want, 4u * n) == 0)
            return i;
    return SIZE_MAX;
}

static void save_test_put_f32(uint8_t *p, float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    for (unsigned b = 0; b < 4u; b++)
        p[b] = (uint8_t)(u >> (8u * b));
}

/* A forgery: the floats at `seq` (found by value) shifted by `skip`
 * floats and overwritten with `patch`, the checksum mended. */
typedef struct save_test_forgery {
    const char *what;
    int dims;
    float seq[8];
    size_t seq_n;
    size_t skip;
    float patch[4];
    size_t patch_n;
    const char *names; /* the refusal names the object or the agent */
} save_test_forgery;

/* The world the forgeries start from: one object of each kind at
 * distinctive coordinates, and one agent, so each column holds one float
 * and a row's floats follow each other. */
static throng_world *save_test_shapes(int dims) {
    throng_world_def wd = throng_world_def_default();
    wd.dimensions = dims;
    throng_world *w = NULL;
    if (throng_world_create(&wd, &w) != THRONG_OK)
        return NULL;
    throng_object o;
    const float c[3] = { 51.5f, 52.5f, 0.0f };
    const float lo[3] = { 61.5f, 62.5f, 0.0f }, hi[3] = { 63.5f, 64.5f, 1.0f };
    const float a[3] = { 11.5f, 12.5f, 0.0f }, b[3] = { 13.5f, 14.5f, 0.0f };
    const float p[3] = { 21.5f, 22.5f, 0.0f }, n[3] = { 0.0f, 2.0f, 0.0f };
    const float path[9] = { 31.5f, 32.5f, 0.0f,  33.5f, 34.5f,
                            0.0f,  35.5f, 36.5f, 0.0f };
    int ok = add_sphere(w, c, 1.25f, &o) == THRONG_OK &&
             add_box(w, lo, hi, &o) == THRONG_OK &&
             add_plane(w, p, n, &o) == THRONG_OK &&
             add_path(w, path, 3u, 1.5f, false, &o) == THRONG_OK &&
             (dims == 3 || add_segment(w, a, b, &o) == THRONG_OK);
    throng_agent_def ad = throng_agent_def_default();
    ad.position[0] = 41.5f;
    ad.position[1] = 42.5f;
    ad.velocity[0] = 3.0f;
    ad.velocity[1] = 4.0f;
    throng_agent h;
    ok = ok && throng_agent_add(w, &ad, &h) == THRONG_OK;
    if (!ok) {
        throng_world_destroy(w);
        return NULL;
    }
    return w;
}

/* The same shapes given to the creating calls are refused there, with
 * the sentences the loader reports. */
static void save_test_creation_refuses(void) {
    throng_world *w = save_test_shapes(2);
    REQUIRE(w != NULL);
    throng_object o;
    const float a[3] = { 11.5f, 12.5f, 0.0f };
    const float a2[3] = { 11.5f, 12.5000005f, 0.0f };
    const float zero[3] = { 0.0f, 0.0f, 0.0f };
    const float path[6] = { 31.5f, 32.5f, 0.0f, 31.5f, 32.5f, 0.0f };
    CHECK_STATUS(add_segment(w, a, a, &o), THRONG_ERR_OUT_OF_RANGE);
    CHECK(strstr(throng_world_last_error(w), "1e-6 m apart") != NULL);
    CHECK_STATUS(add_segment(w, a, a2, &o), THRONG_ERR_OUT_OF_RANGE);
    CHECK_STATUS(add_plane(w, a, zero, &o), THRONG_ERR_OUT_OF_RANGE);
    CHECK(strstr(throng_world_last_error(w), "normal") != NULL);
    CHECK_STATUS(add_path(w, path, 2u, 1.0f, false, &o),
                 THRONG_ERR_OUT_OF_RANGE);
    CHECK(strstr(throng_world_last_error(w), "apart") != NULL);
    CHECK_STATUS(add_sphere(w, a, 0.0f, &o), THRONG_ERR_OUT_OF_RANGE);
    throng_world_destroy(w);
}

TEST(save_loader_refuses_what_creation_refuses) {
    /* The agent's row in 2D: px py vx vy fx fy mass max_force max_speed
     * radius; in 3D: px py pz vx vy vz fx fy fz ux uy uz mass ... */
    const save_test_forgery cases[] = {
        { "zero-length wall segment",
          2,
          { 11.5f, 12.5f, 0.0f, 13.5f, 14.5f },
          5,
          3,
          { 11.5f, 12.5f },
          2,
          "object" },
        { "segment under 1e-6 m",
          2,
          { 11.5f, 12.5f, 0.0f, 13.5f, 14.5f },
          5,
          3,
          { 11.5f, 12.5000005f },
          2,
          "object" },
        { "plane normal of length 0",
          2,
          { 21.5f, 22.5f, 0.0f, 0.0f, 1.0f },
          5,
          3,
          { 0.0f, 0.0f },
          2,
          "object" },
        { "plane normal of length 5",
          2,
          { 21.5f, 22.5f, 0.0f, 0.0f, 1.0f },
          5,
          3,
          { 3.0f, 4.0f },
          2,
          "object" },
        { "plane normal of length 0.85",
          3,
          { 21.5f, 22.5f, 0.0f, 0.0f, 1.0f },
          5,
          3,
          { 0.6f, 0.6f, 0.0f },
          3,
          "object" },
        { "repeated path point",
          2,
          { 31.5f, 32.5f, 0.0f, 33.5f, 34.5f },
          5,
          3,
          { 31.5f, 32.5f },
          2,
          "object" },
        { "path lengths its points do not give",
          2,
          { 31.5f, 32.5f, 0.0f, 33.5f, 34.5f, 0.0f, 35.5f, 36.5f },
          8,
          10,
          { 7.0f },
          1,
          "object" },
        { "z in a 2D world",
          2,
          { 51.5f, 52.5f, 0.0f },
          3,
          2,
          { 1.0f },
          1,
          "object" },
        { "sphere radius 0",
          2,
          { 51.5f, 52.5f, 0.0f },
          3,
          6,
          { 0.0f },
          1,
          "object" },
        { "box min above max",
          3,
          { 61.5f, 62.5f, 0.0f, 63.5f },
          4,
          3,
          { 60.0f },
          1,
          "object" },
        { "heading of length 1.2",
          2,
          { 41.5f, 42.5f, 3.0f, 4.0f },
          4,
          4,
          { 0.72f, 0.96f },
          2,
          "agent" },
        { "zero heading",
          2,
          { 41.5f, 42.5f, 3.0f, 4.0f },
          4,
          4,
          { 0.0f, 0.0f },
          2,
          "agent" },
        { "heading 2D, slightly long",
          2,
          { 41.5f, 42.5f, 3.0f, 4.0f },
          4,
          4,
          { 0.6001f, 0.8001f },
          2,
          "agent" },
        { "heading 3D of length 2",
          3,
          { 41.5f, 42.5f, 0.0f, 3.0f, 4.0f },
          5,
          6,
          { 1.2f, 1.6f, 0.0f },
          3,
          "agent" },
        { "up along the heading",
          3,
          { 41.5f, 42.5f, 0.0f, 3.0f, 4.0f },
          5,
          9,
          { 0.6f, 0.8f, 0.0f },
          3,
          "agent" },
        { "mass 0",
          2,
          { 41.5f, 42.5f, 3.0f, 4.0f },
          4,
          6,
          { 0.0f },
          1,
          "agent" },
        { "negative max speed",
          2,
          { 41.5f, 42.5f, 3.0f, 4.0f },
          4,
          8,
          { -1.0f },
          1,
          "agent" },
    };
    char why[256];
    throng_world_load_def def = throng_world_load_def_default();
    def.error = why;
    def.error_capacity = sizeof why;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const save_test_forgery *f = &cases[k];
        throng_world *w = save_test_shapes(f->dims);
        REQUIRE(w != NULL);
        size_t n = 0;
        REQUIRE_OK(throng_world_snapshot_size(w, &n));
        uint8_t *s = malloc(n);
        REQUIRE(s != NULL);
        REQUIRE_OK(throng_world_save(w, s, n, NULL));
        throng_world_destroy(w);
        /* Unchanged, it loads. */
        throng_world *back = NULL;
        CHECK_OK(throng_world_load(s, n, &def, &back));
        throng_world_destroy(back);
        size_t at = save_test_find(s, n, f->seq, f->seq_n);
        if (at == SIZE_MAX || at + 4u * (f->skip + f->patch_n) > n) {
            runner_fail(__FILE__, __LINE__, "%s: not found", f->what);
            free(s);
            continue;
        }
        for (size_t i = 0; i < f->patch_n; i++)
            save_test_put_f32(s + at + 4u * (f->skip + i), f->patch[i]);
        test_snapshot_reseal(s, n);
        back = (throng_world *)1;
        why[0] = '\0';
        throng_status st = throng_world_load(s, n, &def, &back);
        if (st != THRONG_ERR_BAD_SNAPSHOT || back != NULL ||
            !strstr(why, f->names))
            runner_fail(__FILE__, __LINE__, "%s: got %s (%s)", f->what,
                        throng_status_string(st), why);
        if (st == THRONG_OK)
            throng_world_destroy(back);
        free(s);
    }
    save_test_creation_refuses();
}

/* An agent whose velocity's squares are subnormal: its heading is still
 * of unit length, so its snapshot loads. */
TEST(save_tiny_velocity_heading_loads) {
    for (int dims = 2; dims <= 3; dims++) {
        throng_world_def wd = throng_world_def_default();
        wd.dimensions = dims;
        throng_world *w = NULL;
        REQUIRE_OK(throng_world_create(&wd, &w));
        const float tiny[] = { 2e-22f, 3e-21f, 1e-38f, 3e19f, 3e38f };
        for (size_t k = 0; k < sizeof tiny / sizeof tiny[0]; k++) {
            throng_agent_def ad = throng_agent_def_default();
            ad.velocity[0] = tiny[k];
            ad.velocity[1] = -0.75f * tiny[k];
            throng_agent h;
            REQUIRE_OK(throng_agent_add(w, &ad, &h));
            float f[3], u[3], s[3];
            REQUIRE_OK(throng_agent_get_basis(w, h, f, u, s));
            double fd[3];
            test_to_double3(f, fd);
            double len = test_len3(fd);
            CHECK_NEAR(len, 1.0, 1e-6);
            CHECK_NEAR(f[0], 0.8, 1e-6);
        }
        size_t n = 0;
        REQUIRE_OK(throng_world_snapshot_size(w, &n));
        uint8_t *s = malloc(n);
        REQUIRE(s != NULL);
        REQUIRE_OK(throng_world_save(w, s, n, NULL));
        throng_world *back = NULL;
        char why[256] = "";
        throng_world_load_def def = throng_world_load_def_default();
        def.error = why;
        def.error_capacity = sizeof why;
        CHECK_STATUS(throng_world_load(s, n, &def, &back), THRONG_OK);
        if (back)
            CHECK_EQ_U64(throng_world_hash(back), throng_world_hash(w));
        else
            runner_fail(__FILE__, __LINE__, "%dD: %s", dims, why);
        throng_world_destroy(back);
        free(s);
        throng_world_destroy(w);
    }
}

/* ------------------------------------------------------------------------ */
/* Streams that cannot tell their size                                      */
/* ------------------------------------------------------------------------ */

/* Counts the bytes of the allocations a load asks for; refuses (without
 * asking the C library) anything over a gigabyte, so a claim of 2^58
 * bytes is seen rather than attempted. */
#define SAVE_TEST_LIMIT ((size_t)1 << 30)

/* Writes bytes into the FIFO from a child process and loads it. */
static throng_status save_test_fifo_load(const char *fifo, const uint8_t *bytes,
                                         size_t n, ts_heap *count,
                                         throng_world **out, char *why,
                                         size_t why_n) {
    fflush(stdout);
    pid_t child = fork();
    if (child < 0)
        return THRONG_ERR_IO;
    if (child == 0) {
        alarm(20); /* never outlive a reader that went away */
        int fd = open(fifo, O_WRONLY);
        if (fd < 0)
            _exit(1);
        size_t done = 0;
        while (done < n) {
            ssize_t k = write(fd, bytes + done, n - done);
            if (k <= 0)
                _exit(2);
            done += (size_t)k;
        }
        close(fd);
        _exit(0);
    }
    throng_world_load_def def = throng_world_load_def_default();
    def.error = why;
    def.error_capacity = why_n;
    def.allocator = ts_heap_allocator(count);
    throng_status st = throng_world_load_file(fifo, &def, out);
    kill(child, SIGKILL); /* done writing, or stuck on a reader gone */
    waitpid(child, NULL, 0);
    return st;
}

TEST(save_load_fifo_bounded) {
    char dir[256], fifo[300], why[256] = "";
    REQUIRE(save_test_dir(dir, sizeof dir, "/tmp"));
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    REQUIRE(mkfifo(fifo, 0600) == 0);

    /* A real snapshot larger than the first chunk loads through it. */
    throng_world *w = save_test_world(3000u, 10u);
    REQUIRE(w != NULL);
    size_t n = 0;
    REQUIRE_OK(throng_world_snapshot_size(w, &n));
    CHECK(n > 128u * 1024u);
    uint8_t *s = malloc(n);
    REQUIRE(s != NULL);
    REQUIRE_OK(throng_world_save(w, s, n, NULL));
    ts_heap count = { .limit = SAVE_TEST_LIMIT };
    throng_world *back = NULL;
    CHECK_OK(save_test_fifo_load(fifo, s, n, &count, &back, why, sizeof why));
    if (back)
        CHECK_EQ_U64(throng_world_hash(back), throng_world_hash(w));
    throng_world_destroy(back);
    CHECK_EQ_INT(count.live, 0);

    /* The same header claiming 2^58 bytes, followed by 200 KB: refused as
     * truncated, and no allocation was asked for more than a few times
     * what arrived. */
    const size_t sent = 200u * 1024u;
    uint8_t *lie = calloc(1, sent);
    REQUIRE(lie != NULL);
    memcpy(lie, s, SAVE_TEST_HEADER);
    const uint64_t claim = (uint64_t)1 << 58;
    for (unsigned k = 0; k < 8u; k++)
        lie[SAVE_TEST_LENGTH_AT + k] = (uint8_t)(claim >> (8u * k));
    memset(&count, 0, sizeof count);
    back = (throng_world *)1;
    CHECK_STATUS(
        save_test_fifo_load(fifo, lie, sent, &count, &back, why, sizeof why),
        THRONG_ERR_BAD_SNAPSHOT);
    CHECK(back == NULL);
    CHECK(strstr(why, "truncated") != NULL);
    CHECK(count.largest <= 4u * sent);
    CHECK(count.peak <= 8u * sent);
    CHECK_EQ_INT(count.live, 0);
    free(lie);
    free(s);
    throng_world_destroy(w);
    save_test_rmdir(dir);
}

void register_save_tests(void) {
    REGISTER(save_threads_one_path);
    REGISTER(save_processes_one_path);
    REGISTER(save_symlinks_not_followed);
    REGISTER(save_full_filesystem);
    REGISTER(save_file_size_limit);
    REGISTER(save_refuses_non_finite);
    REGISTER(save_loader_refuses_what_creation_refuses);
    REGISTER(save_tiny_velocity_heading_loads);
    REGISTER(save_load_fifo_bounded);
}
