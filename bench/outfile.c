/* SPDX-License-Identifier: MIT */
/*
 * Result files written to a temporary name and renamed (outfile.h).
 *
 * The signal handler removes the temporary files that are open when the
 * program is interrupted, then lets the signal end the program as it
 * would have: unlink() is async-signal-safe, and the names it reads are
 * complete before they are published to it (a sig_atomic_t flag per
 * name, set with the signals blocked).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporary files open at once (the bench has three outputs). */
#define OUTFILE_MAX_OPEN 8
#define OUTFILE_NAME_MAX 4096

static char open_names[OUTFILE_MAX_OPEN][OUTFILE_NAME_MAX];
static volatile sig_atomic_t open_used[OUTFILE_MAX_OPEN];
static bool handlers_installed;

static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define CLEANUP_SIGNAL_COUNT \
    (sizeof cleanup_signals / sizeof cleanup_signals[0])

static void remove_open_files(int signal_number) {
    for (int i = 0; i < OUTFILE_MAX_OPEN; ++i) {
        if (open_used[i]) {
            unlink(open_names[i]);
        }
    }
    /* The default action now: the exit status tells the signal. */
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    sigaction(signal_number, &action, NULL);
    raise(signal_number);
}

static void install_handlers(void) {
    if (handlers_installed) {
        return;
    }
    handlers_installed = true;
    for (size_t k = 0; k < CLEANUP_SIGNAL_COUNT; ++k) {
        struct sigaction old;
        if (sigaction(cleanup_signals[k], NULL, &old) != 0 ||
            old.sa_handler == SIG_IGN) {
            continue; /* ignored (nohup): stays ignored */
        }
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = remove_open_files;
        sigemptyset(&action.sa_mask);
        sigaction(cleanup_signals[k], &action, NULL);
    }
}

/* Blocks the cleanup signals around a change to the table, so the handler
 * never sees half of one. */
static void block_signals(bool block, sigset_t *saved) {
    if (block) {
        sigset_t set;
        sigemptyset(&set);
        for (size_t k = 0; k < CLEANUP_SIGNAL_COUNT; ++k) {
            sigaddset(&set, cleanup_signals[k]);
        }
        sigprocmask(SIG_BLOCK, &set, saved);
    } else {
        sigprocmask(SIG_SETMASK, saved, NULL);
    }
}

/* Records an open temporary file's name for the handler; the caller has
 * blocked the signals. */
static bool publish(const char *name) {
    size_t length = strlen(name);
    for (int i = 0; i < OUTFILE_MAX_OPEN; ++i) {
        if (!open_used[i] && length < OUTFILE_NAME_MAX) {
            memcpy(open_names[i], name, length + 1);
            open_used[i] = 1;
            return true;
        }
    }
    return false;
}

static void withdraw(const char *name) {
    sigset_t saved;
    block_signals(true, &saved);
    for (int i = 0; i < OUTFILE_MAX_OPEN; ++i) {
        if (open_used[i] && strcmp(open_names[i], name) == 0) {
            open_used[i] = 0;
            break;
        }
    }
    block_signals(false, &saved);
}

static bool is_stdout(const char *path) {
    return strcmp(path, "-") == 0;
}

/* "<dir>/.<name>.XXXXXX" for mkstemp: hidden, so a listing of results in
 * progress shows none of them. */
static char *temp_template(const char *path) {
    const char *slash = strrchr(path, '/');
    size_t dir_length = slash != NULL ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dir_length;
    size_t size = dir_length + 1 + strlen(base) + 8 + 1;
    char *name = malloc(size);
    if (name != NULL) {
        snprintf(name, size, "%.*s.%s.XXXXXX", (int)dir_length, path, base);
    }
    return name;
}

static void set_error(char *error, size_t error_size, int code) {
    snprintf(error, error_size, "%s", strerror(code));
}

bool outfile_check(const char *path, char *error, size_t error_size) {
    if (is_stdout(path)) {
        return true;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        set_error(error, error_size, EISDIR);
        return false;
    }
    outfile probe;
    if (!outfile_open(&probe, path, error, error_size)) {
        return false;
    }
    outfile_discard(&probe);
    return true;
}

bool outfile_open(outfile *o, const char *path, char *error,
                  size_t error_size) {
    memset(o, 0, sizeof *o);
    o->path = path;
    if (is_stdout(path)) {
        o->file = stdout;
        return true;
    }
    /* A device or a pipe (/dev/null, /dev/stdout) is written as it is:
     * there is nothing to replace, and a rename would replace the device
     * node itself. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        o->file = fopen(path, "w");
        if (o->file == NULL) {
            set_error(error, error_size, errno);
            return false;
        }
        return true;
    }
    install_handlers();
    o->temp = temp_template(path);
    if (o->temp == NULL) {
        set_error(error, error_size, ENOMEM);
        return false;
    }
    /* Made and published with the signals held, so no moment has a file
     * the handler does not know of. */
    sigset_t saved;
    block_signals(true, &saved);
    int fd = mkstemp(o->temp);
    int code = errno;
    bool published = fd >= 0 && publish(o->temp);
    if (fd >= 0 && !published) {
        unlink(o->temp);
        close(fd);
        code = EMFILE;
    }
    block_signals(false, &saved);
    if (!published) {
        set_error(error, error_size, code);
        free(o->temp);
        o->temp = NULL;
        return false;
    }
    /* mkstemp makes the file private; a result is as readable as any
     * file the user makes. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    o->file = fdopen(fd, "w");
    if (o->file == NULL) {
        set_error(error, error_size, errno);
        close(fd);
        outfile_discard(o);
        return false;
    }
    return true;
}

void outfile_discard(outfile *o) {
    if (o->file != NULL && o->file != stdout) {
        fclose(o->file);
    }
    o->file = NULL;
    if (o->temp != NULL) {
        unlink(o->temp);
        withdraw(o->temp);
        free(o->temp);
        o->temp = NULL;
    }
}

bool outfile_commit(outfile *o, char *error, size_t error_size) {
    if (o->file == NULL) {
        return true;
    }
    if (o->file == stdout) {
        o->file = NULL;
        if (fflush(stdout) != 0 || ferror(stdout)) {
            set_error(error, error_size, errno);
            return false;
        }
        return true;
    }
    bool ok = fflush(o->file) == 0 && !ferror(o->file) &&
              (o->temp == NULL || fsync(fileno(o->file)) == 0);
    int code = errno;
    if (fclose(o->file) != 0 && ok) {
        ok = false;
        code = errno;
    }
    o->file = NULL;
    if (ok && o->temp != NULL && rename(o->temp, o->path) != 0) {
        ok = false;
        code = errno;
    }
    if (!ok) {
        set_error(error, error_size, code);
        outfile_discard(o);
        return false;
    }
    if (o->temp != NULL) {
        withdraw(o->temp);
        free(o->temp);
        o->temp = NULL;
    }
    return true;
}
