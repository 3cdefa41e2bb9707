/* SPDX-License-Identifier: MIT */
/*
 * The machine a bench run ran on, and how the bench was built: what goes
 * into the "context" of the JSON, the CSV's machine column and the plot's
 * title, and the name of the folder bench/results/<machine>/.
 */
#ifndef THRONG_BENCH_MACHINE_H
#define THRONG_BENCH_MACHINE_H

#include <stdbool.h>
#include <stddef.h>

/* What the run's machine looks like, gathered once at the end. */
typedef struct machine {
    char slug[64]; /* see machine_slug */
    char date[40];
    char host_name[256];
    long num_cpus;
    double mhz_per_cpu; /* 0 when unknown */
    char cpu_model[256];
    bool have_load_avg;
    double load_avg[3];
} machine;

void machine_gather(machine *m);

/* The machine's name for bench/results/<machine>/: $BENCH_MACHINE when
 * set, else the CPU model's distinctive words, the Zen generation on AMD,
 * and the logical CPU count, e.g. "epyc-zen5-2c" or "xeon-gold-6338-8c".
 * The regression gates derive the same name (bench/machine.sh), since a
 * baseline is only compared on its own machine. */
void machine_slug(char *slug, size_t size);

/* $BENCH_MACHINE, or NULL when unset or empty. */
const char *machine_forced(void);

/* A forced name is used as it is, so it must be a plain folder name. */
bool machine_forced_ok(void);

/* The compiler that built the bench ("gcc 12.2.0"), its flags (from the
 * Makefile), the OpenMP version ("201511", or "off") and how the
 * library's kernels were built in. */
const char *build_compiler(void);
const char *build_flags(void);
void build_openmp(char *buffer, size_t size);
const char *build_simd(void);

#endif /* THRONG_BENCH_MACHINE_H */
