/* SPDX-License-Identifier: MIT */
/*
 * Machine information: the CPU (from /proc/cpuinfo), host name, load,
 * date, and the slug that names a machine's results folder; and the
 * build's compiler, flags, OpenMP and SIMD make-up.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef __VERSION__
#define __VERSION__ "unknown"
#endif

/* gcc's __VERSION__ is the bare number; clang's names itself. */
#if defined(__GNUC__) && !defined(__clang__)
#define COMPILER "gcc " __VERSION__
#else
#define COMPILER __VERSION__
#endif

/* The Makefile passes the CFLAGS the bench was built with. */
#ifndef THRONG_BENCH_CFLAGS
#define THRONG_BENCH_CFLAGS "unknown (built without the Makefile)"
#endif

/* The value after "key<blanks>:" on the first matching line of
 * /proc/cpuinfo, trimmed; false when absent. */
static bool cpuinfo_value(const char *key, char *buffer, size_t size) {
    FILE *file = fopen("/proc/cpuinfo", "r");
    if (file == NULL) {
        return false;
    }
    char *line = NULL;
    size_t capacity = 0;
    bool found = false;
    size_t key_length = strlen(key);
    while (!found && getline(&line, &capacity, file) != -1) {
        if (strncmp(line, key, key_length) != 0) {
            continue;
        }
        const char *rest = line + key_length;
        rest += strspn(rest, " \t");
        if (*rest != ':') {
            continue;
        }
        ++rest;
        rest += strspn(rest, " \t");
        size_t length = strcspn(rest, "\r\n");
        while (length > 0 &&
               (rest[length - 1] == ' ' || rest[length - 1] == '\t')) {
            --length;
        }
        if (length >= size) {
            length = size - 1;
        }
        memcpy(buffer, rest, length);
        buffer[length] = '\0';
        found = true;
    }
    free(line);
    fclose(file);
    return found;
}

/* Appends `word` to a slug, lower-cased, with a '-' before it unless the
 * slug is empty; characters other than [a-z0-9] become '-', and runs of
 * '-' collapse, so the slug is always a safe folder name. */
static void slug_append(char *slug, size_t size, const char *word) {
    size_t length = strlen(slug);
    bool dash = length > 0;
    for (const char *c = word; *c != '\0' && length + 2 < size; ++c) {
        char ch = *c;
        if (ch >= 'A' && ch <= 'Z') {
            ch = (char)(ch - 'A' + 'a');
        }
        bool keep = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
        if (!keep) {
            dash = length > 0;
            continue;
        }
        if (dash && slug[length - 1] != '-') {
            slug[length++] = '-';
        }
        dash = false;
        slug[length++] = ch;
    }
    slug[length] = '\0';
}

/* The AMD Zen generation from /proc/cpuinfo's family and model (the
 * model name of a virtual machine often hides it: "AMD EPYC"); NULL when
 * unknown. */
static const char *amd_zen_generation(long family, long model) {
    switch (family) {
    case 0x17:
        return model >= 0x30 ? "zen2" : "zen";
    case 0x19:
        return (model >= 0x10 && model <= 0x1f) ||
                       (model >= 0x60 && model <= 0x7f) ||
                       (model >= 0xa0 && model <= 0xaf)
                   ? "zen4"
                   : "zen3";
    case 0x1a:
        return "zen5";
    default:
        return NULL;
    }
}

/* $BENCH_MACHINE, or NULL when unset or empty. */
const char *machine_forced(void) {
    const char *forced = getenv("BENCH_MACHINE");
    return forced != NULL && forced[0] != '\0' ? forced : NULL;
}

/* A forced name is used as it is, so it must be a plain folder name. */
bool machine_forced_ok(void) {
    const char *forced = machine_forced();
    return forced == NULL || (strchr(forced, '/') == NULL && forced[0] != '.');
}

/* The machine's name for bench/results/<machine>/: $BENCH_MACHINE when
 * set, else the CPU model's distinctive words, the Zen generation on AMD,
 * and the logical CPU count, e.g. "epyc-zen5-2c" or "xeon-gold-6338-8c".
 * The regression gates derive the same name (bench/machine.sh), since a
 * baseline is only compared on its own machine. */
void machine_slug(char *slug, size_t size) {
    slug[0] = '\0';
    if (machine_forced() != NULL) {
        snprintf(slug, size, "%s", machine_forced());
        return;
    }

    char model_name[256];
    struct utsname host;
    if (!cpuinfo_value("model name", model_name, sizeof model_name)) {
        snprintf(model_name, sizeof model_name, "%s",
                 uname(&host) == 0 ? host.machine : "");
    }
    /* Words that name the vendor, the kind of part or its clock. */
    static const char *const noise[] = {
        "amd", "intel", "cpu", "processor", "with", "radeon", "graphics",
    };
    char *save = NULL;
    for (char *word = strtok_r(model_name, " \t", &save); word != NULL;
         word = strtok_r(NULL, " \t", &save)) {
        if (word[0] == '@') {
            break; /* "@ 2.90GHz" */
        }
        /* "Intel(R)", "Core(TM)": drop the mark, keep the word. */
        char *mark = strchr(word, '(');
        if (mark != NULL) {
            *mark = '\0';
        }
        size_t length = strlen(word);
        bool skip = length == 0 ||
                    (length > 5 && strcasecmp(word + length - 5, "-core") == 0);
        for (size_t k = 0; k < sizeof noise / sizeof noise[0] && !skip; ++k) {
            skip = strcasecmp(word, noise[k]) == 0;
        }
        if (!skip) {
            slug_append(slug, size, word);
        }
    }
    char vendor[64], family[32], model[32];
    if (cpuinfo_value("vendor_id", vendor, sizeof vendor) &&
        strcmp(vendor, "AuthenticAMD") == 0 &&
        cpuinfo_value("cpu family", family, sizeof family) &&
        cpuinfo_value("model", model, sizeof model)) {
        const char *zen = amd_zen_generation(strtol(family, NULL, 10),
                                             strtol(model, NULL, 10));
        if (zen != NULL) {
            slug_append(slug, size, zen);
        }
    }
    if (slug[0] == '\0') {
        slug_append(slug, size, "cpu");
    }
    char cpus[32];
    snprintf(cpus, sizeof cpus, "%ldc", sysconf(_SC_NPROCESSORS_ONLN));
    slug_append(slug, size, cpus);
}

void machine_gather(machine *m) {
    memset(m, 0, sizeof *m);

    /* ISO 8601 with the local offset, "2024-05-01T12:00:00+02:00", as
     * Google Benchmark writes it. */
    time_t now = time(NULL);
    struct tm local;
    tzset();
    if (localtime_r(&now, &local) != NULL &&
        strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%S%z", &local) > 0) {
        size_t length = strlen(m->date);
        if (length >= 5 && length + 1 < sizeof m->date) {
            memmove(m->date + length - 1, m->date + length - 2, 3);
            m->date[length - 2] = ':';
        }
    }

    if (gethostname(m->host_name, sizeof m->host_name) != 0) {
        m->host_name[0] = '\0';
    }
    m->host_name[sizeof m->host_name - 1] = '\0';

    m->num_cpus = sysconf(_SC_NPROCESSORS_ONLN);

    char text[64];
    if (cpuinfo_value("cpu MHz", text, sizeof text)) {
        m->mhz_per_cpu = strtod(text, NULL);
    }
    if (!cpuinfo_value("model name", m->cpu_model, sizeof m->cpu_model)) {
        snprintf(m->cpu_model, sizeof m->cpu_model, "%s", "unknown");
    }
    machine_slug(m->slug, sizeof m->slug);

    FILE *loadavg = fopen("/proc/loadavg", "r");
    if (loadavg != NULL) {
        /* The kernel writes three plain decimals; the count is checked. */
        /* NOLINTNEXTLINE(cert-err34-c) */
        m->have_load_avg = fscanf(loadavg, "%lf %lf %lf", &m->load_avg[0],
                                  &m->load_avg[1], &m->load_avg[2]) == 3;
        fclose(loadavg);
    }
}

const char *build_compiler(void) {
    return COMPILER;
}

const char *build_flags(void) {
    return THRONG_BENCH_CFLAGS;
}

/* How the library's kernels were built into this program. */
const char *build_simd(void) {
#ifdef THRONG_HAVE_SIMD_KERNELS
    return "run-time dispatch: scalar, sse2, avx2, avx512";
#else
    return "scalar only";
#endif
}

void build_openmp(char *buffer, size_t size) {
#ifdef _OPENMP
    snprintf(buffer, size, "%ld", (long)_OPENMP);
#else
    snprintf(buffer, size, "%s", "off");
#endif
}
