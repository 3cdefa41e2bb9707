/* SPDX-License-Identifier: MIT */
/*
 * throng-mpi-bench: the distributed world's step time and communication,
 * run under mpiexec. One bench scenario, one crowd, the ranks of the run:
 *
 *   mpiexec -n 4 build/throng-mpi-bench --scenario flock2d --agents 20000
 *       [--per-rank] [--steps 200] [--warmup 50] [--threads 1]
 *       [--compare] [--json FILE]
 *
 * --agents is the whole crowd (strong scaling), or with --per-rank the
 * crowd of each rank (weak scaling: agents x ranks in all). Each step's
 * time is the slowest rank's (a step ends when its last rank does); the
 * median and minimum over the timed steps are reported, as throng-bench
 * reports its steps, with the communication time (exchanges and
 * agreements, the slowest rank's), ghosts and bytes sent per rank and
 * step (the ranks' mean), and messages. --compare also times the same
 * crowd in one process (rank 0, ordinary throng_world, canonical order)
 * for the overhead of the distributed step. The JSON object (one line,
 * to stdout or appended to FILE) uses throng-bench's names where the
 * figure is the same.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bench/scenarios.h"
#include "throng_mpi.h"

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static throng_world *build(const char *name, uint32_t agents, int threads,
                           float *dt) {
    const scenario *s = scenario_find(name);
    throng_world *w = NULL;
    if (!s || s->build(agents, threads, 7u, &w) != THRONG_OK)
        return NULL;
    *dt = s->dt;
    const uint32_t n = throng_world_agent_count(w);
    for (uint32_t i = 0; i < n; i++) {
        throng_agent a;
        throng_agent_at(w, i, &a);
        throng_agent_set_host_key(w, a, (uint64_t)i + 1u);
    }
    return w;
}

/* More ranks' threads than cores here: ranks wait in short sleeps rather
 * than spinning (throng_mpi_def.poll_sleep_us), or THRONG_MPI_POLL_US
 * says. */
static uint32_t polite_wait(int threads) {
    const char *env = getenv("THRONG_MPI_POLL_US");
    if (env)
        return (uint32_t)strtoul(env, NULL, 10);
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const long want = (long)size * (threads > 0 ? threads : 1);
    return cores > 0 && want > cores ? 5u : 0u;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *name = "flock2d", *json = NULL;
    uint32_t agents = 20000, steps = 200, warmup = 50;
    int threads = 1, per_rank = 0, compare = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--scenario") && v)
            name = argv[++i];
        else if (!strcmp(a, "--agents") && v)
            agents = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--steps") && v)
            steps = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--warmup") && v)
            warmup = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--threads") && v)
            threads = atoi(argv[++i]);
        else if (!strcmp(a, "--json") && v)
            json = argv[++i];
        else if (!strcmp(a, "--per-rank"))
            per_rank = 1;
        else if (!strcmp(a, "--compare"))
            compare = 1;
        else
            bad = 1;
    }
    if (bad || steps == 0 || agents == 0) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: throng-mpi-bench [--scenario NAME] [--agents N] "
                    "[--per-rank] [--steps N] [--warmup N] [--threads N] "
                    "[--compare] [--json FILE]\n");
        MPI_Finalize();
        return 2;
    }
    const uint32_t total = per_rank ? agents * (uint32_t)size : agents;
    float dt = 0.0f;
    throng_world *w = build(name, total, threads, &dt);
    int ok = w != NULL, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        if (rank == 0)
            fprintf(stderr, "throng-mpi-bench: scenario %s did not build\n",
                    name);
        MPI_Finalize();
        return 1;
    }
    throng_mpi_def def = throng_mpi_def_default();
    def.threads = threads;
    def.template_is_whole = true;
    def.poll_sleep_us = polite_wait(def.threads);
    throng_mpi_world *dw = NULL;
    throng_status st = throng_mpi_world_create(MPI_COMM_WORLD, w, &def, &dw);
    if (st != THRONG_OK) {
        if (rank == 0)
            fprintf(stderr, "throng-mpi-bench: %s\n", throng_status_string(st));
        MPI_Finalize();
        return 1;
    }
    for (uint32_t s = 0; s < warmup; s++)
        throng_mpi_world_step(dw, dt);
    double *ms = malloc(steps * sizeof *ms),
           *comm = malloc(steps * sizeof *comm);
    double ghosts = 0.0, bytes = 0.0, messages = 0.0, owned_max = 0.0;
    for (uint32_t s = 0; s < steps; s++) {
        st = throng_mpi_world_step(dw, dt);
        throng_mpi_stats k;
        throng_mpi_world_stats(dw, &k);
        double mine[2] = { k.step_seconds * 1e3, k.comm_seconds * 1e3 }, mx[2];
        MPI_Allreduce(mine, mx, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        ms[s] = mx[0];
        comm[s] = mx[1];
        double add[3] = { k.ghosts, (double)k.bytes_sent,
                          (double)k.messages_sent },
               sum[3];
        MPI_Allreduce(add, sum, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        ghosts += sum[0] / size;
        bytes += sum[1] / size;
        messages += sum[2] / size;
        double owned = k.owned, most = 0.0;
        MPI_Allreduce(&owned, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        owned_max = most > owned_max ? most : owned_max;
    }
    const uint64_t hash = throng_mpi_world_hash(dw);
    throng_mpi_world_destroy(dw);
    qsort(ms, steps, sizeof *ms, cmp_double);
    qsort(comm, steps, sizeof *comm, cmp_double);
    /* The same crowd in one process, on rank 0, for the overhead. */
    double single = -1.0;
    if (compare && rank == 0) {
        throng_world_set_canonical_order(w, true);
        for (uint32_t s = 0; s < warmup; s++)
            throng_world_step(w, dt);
        double *one = malloc(steps * sizeof *one);
        for (uint32_t s = 0; s < steps; s++) {
            double t0 = MPI_Wtime();
            throng_world_step(w, dt);
            one[s] = (MPI_Wtime() - t0) * 1e3;
        }
        qsort(one, steps, sizeof *one, cmp_double);
        single = one[steps / 2];
        free(one);
    }
    throng_world_destroy(w);
    if (rank == 0) {
        FILE *out = json ? fopen(json, "a") : stdout;
        if (!out)
            out = stdout;
        const double median = ms[steps / 2];
        fprintf(out,
                "{\"name\": \"%s/%u/ranks:%d/threads:%d\", \"scenario\": "
                "\"%s\", \"scaling\": \"%s\", \"agents\": %u, "
                "\"agents_per_rank\": %.1f, \"most_agents_on_a_rank\": %.0f, "
                "\"ranks\": %d, \"threads\": %d, \"steps\": %u, \"dt\": %g, "
                "\"ms_per_step_median\": %.4f, \"ms_per_step_min\": %.4f, "
                "\"ns_per_agent_step\": %.2f, \"comm_ms\": %.4f, "
                "\"comm_share\": %.3f, \"ghosts_per_rank\": %.1f, "
                "\"bytes_sent_per_rank\": %.0f, \"messages_per_rank\": %.2f, "
                "\"bytes_per_ghost\": %u, \"single_process_ms\": %.4f, "
                "\"overhead_vs_single\": %.3f, \"state_hash\": "
                "\"%016" PRIx64 "\"}\n",
                name, total, size, threads, name, per_rank ? "weak" : "strong",
                total, (double)total / size, owned_max, size, threads, steps,
                (double)dt, median, ms[0], median * 1e6 / total,
                comm[steps / 2], comm[steps / 2] / median, ghosts / steps,
                bytes / steps, messages / steps,
                (unsigned)sizeof(throng_agent_state), single,
                single > 0.0 ? median / single : -1.0, hash);
        if (out != stdout)
            fclose(out);
    }
    free(ms);
    free(comm);
    MPI_Finalize();
    return 0;
}
