/* SPDX-License-Identifier: MIT */
/*
 * throng-mpi-bench: throng-bench for the distributed world, run under
 * mpiexec. It reads throng-bench's command line (bench/options.c: the
 * scenario, agent and thread lists, NAME@N entries, --steps, --warmup,
 * --repeats, --seed, --json, --csv, --plot, --quiet, --list, --machine,
 * --help) and writes its table, JSON, CSV and chart (bench/report.c), so
 * the same scripts and the regression gate read both; two options are
 * its own:
 *
 *   mpiexec -n 4 build/throng-mpi-bench --scenario flock2d --agents 20k
 *       [--per-rank] [--compare] [throng-bench's options]
 *
 * --agents is the whole crowd (strong scaling), or with --per-rank the
 * crowd of each rank (weak scaling: agents x ranks in all); --threads is
 * per rank. Each step's time is the slowest rank's (a step ends when its
 * last rank does); a repeat's figure is the median of its steps, the
 * result the median of every counted step, as throng-bench reports its
 * steps. Each JSON entry is named SCENARIO/AGENTS/threads:T/ranks:R and
 * carries, beside throng-bench's fields, the distributed ones: ranks,
 * scaling, agents_per_rank, most_agents_on_a_rank, comm_ms (the median
 * step's slowest rank's time in exchanges and agreements), comm_share,
 * ghosts_per_rank, bytes_sent_per_rank and messages_per_rank (the
 * ranks' mean per step), bytes_per_ghost, and with --compare
 * single_process_ms (the same crowd stepped by one ordinary throng_world
 * in canonical order, on rank 0, after the distributed repeats) and
 * overhead_vs_single. The state hash is the distributed world's
 * (throng_mpi_world_hash: every agent in host key order), the same for
 * any rank count. Scenes whose agents walk to goals the host re-draws
 * between steps (circle2d and the like) are refused: their agents'
 * goals live on whichever rank owns them.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bench/machine.h"
#include "../bench/options.h"
#include "../bench/outfile.h"
#include "../bench/report.h"
#include "../bench/run.h"
#include "../bench/stats.h"
#include "throng_mpi.h"

static int rank_ = 0, size_ = 1;

/* Every rank builds the whole scene (template_is_whole) and keys its
 * agents 1..n in slot order, so any rank count sees the same crowd. */
static throng_world *build(const scenario *sc, uint32_t agents, int threads,
                           uint64_t seed) {
    throng_world *w = NULL;
    if (sc->build(agents, threads, seed, &w) != THRONG_OK)
        return NULL;
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
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const long want = (long)size_ * (threads > 0 ? threads : 1);
    return cores > 0 && want > cores ? 5u : 0u;
}

static int all_ok(int ok) {
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* The options throng-bench has and a distributed run cannot honour. */
static int refuse_unsupported(const options *opt) {
    const char *what = opt->busy             ? "--busy"
                       : opt->record_path    ? "--record"
                       : opt->until_arrived  ? "--until-arrived"
                       : opt->stable_columns ? "--stable-columns"
                                             : NULL;
    if (what) {
        if (rank_ == 0)
            fprintf(stderr, "throng-mpi-bench: %s is throng-bench's alone\n",
                    what);
        return EXIT_USAGE;
    }
    for (size_t e = 0; e < opt->scenario_count; e++) {
        if (opt->scenarios[e].sc->goal) {
            if (rank_ == 0)
                fprintf(stderr,
                        "throng-mpi-bench: %s re-draws its agents' goals "
                        "between steps, which a distributed world's host "
                        "cannot (its agents live on other ranks)\n",
                        opt->scenarios[e].sc->name);
            return EXIT_USAGE;
        }
    }
    return 0;
}

/* Per-step figures of one configuration, every repeat's steps. */
typedef struct sweep {
    double *step_ms, *comm_ms;
    size_t count;
    double ghosts, bytes, messages, most_owned;
} sweep;

/* One repeat: a distributed world from the scene, warmed up, its counted
 * steps timed. Collective; returns 0 or an exit status on every rank. */
static int run_repeat(const options *opt, const scenario *sc, uint32_t total,
                      int threads, sweep *sw, uint64_t *hash) {
    throng_world *w = build(sc, total, threads, opt->seed);
    if (!all_ok(w != NULL)) {
        if (rank_ == 0)
            fprintf(stderr, "throng-mpi-bench: %s did not build\n", sc->name);
        throng_world_destroy(w);
        return EXIT_FAILED;
    }
    throng_mpi_def def = throng_mpi_def_default();
    def.threads = threads;
    def.template_is_whole = true;
    def.poll_sleep_us = polite_wait(threads);
    throng_mpi_world *dw = NULL;
    throng_status st = throng_mpi_world_create(MPI_COMM_WORLD, w, &def, &dw);
    throng_world_destroy(w);
    if (st != THRONG_OK) {
        if (rank_ == 0)
            fprintf(stderr, "throng-mpi-bench: %s: %s\n", sc->name,
                    throng_status_string(st));
        return EXIT_FAILED;
    }
    for (uint32_t s = 0; s < opt->warmup && st == THRONG_OK; s++)
        st = throng_mpi_world_step(dw, sc->dt);
    for (uint32_t s = 0; s < opt->steps && st == THRONG_OK; s++) {
        st = throng_mpi_world_step(dw, sc->dt);
        throng_mpi_stats k;
        throng_mpi_world_stats(dw, &k);
        double mine[2] = { k.step_seconds * 1e3, k.comm_seconds * 1e3 }, mx[2];
        MPI_Allreduce(mine, mx, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        sw->step_ms[sw->count] = mx[0];
        sw->comm_ms[sw->count] = mx[1];
        sw->count++;
        double add[3] = { k.ghosts, (double)k.bytes_sent,
                          (double)k.messages_sent },
               sum[3];
        MPI_Allreduce(add, sum, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        sw->ghosts += sum[0] / size_;
        sw->bytes += sum[1] / size_;
        sw->messages += sum[2] / size_;
        double owned = k.owned, most = 0.0;
        MPI_Allreduce(&owned, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        sw->most_owned = most > sw->most_owned ? most : sw->most_owned;
    }
    if (st != THRONG_OK && rank_ == 0)
        fprintf(stderr, "throng-mpi-bench: %s: a step failed: %s\n", sc->name,
                throng_mpi_world_last_error(dw));
    *hash = throng_mpi_world_hash(dw);
    throng_mpi_world_destroy(dw);
    return st == THRONG_OK ? 0 : EXIT_FAILED;
}

/* --compare: the same crowd in one ordinary world (canonical order, as
 * the ranks' local worlds), on rank 0: the median ms per step. */
static double single_process(const options *opt, const scenario *sc,
                             uint32_t total, int threads, double *scratch) {
    throng_world *w = build(sc, total, threads, opt->seed);
    if (!w)
        return (double)NAN;
    throng_world_set_canonical_order(w, true);
    for (uint32_t s = 0; s < opt->warmup; s++)
        throng_world_step(w, sc->dt);
    for (uint32_t s = 0; s < opt->steps; s++) {
        const double t0 = MPI_Wtime();
        throng_world_step(w, sc->dt);
        scratch[s] = (MPI_Wtime() - t0) * 1e3;
    }
    throng_world_destroy(w);
    return stats_median(scratch, opt->steps);
}

/* One configuration, every repeat: fills r (on every rank). */
static int run_config_mpi(const options *opt, const scenario *sc,
                          uint32_t agents, int threads, bool per_rank,
                          bool compare, throng_simd simd, sweep *sw,
                          double *scratch, result *r) {
    const uint32_t total = per_rank ? agents * (uint32_t)size_ : agents;
    memset(sw, 0, sizeof *sw);
    sw->step_ms = scratch + opt->steps;
    sw->comm_ms = sw->step_ms + (size_t)opt->steps * opt->repeats;
    r->sc = sc;
    r->agents = total;
    r->threads = threads;
    r->threads_used = (uint32_t)(threads > 0 ? threads : 1);
    r->repeats_agree = true;
    snprintf(r->check, sizeof r->check, "ok");
    snprintf(r->simd, sizeof r->simd, "%s", throng_simd_name(simd));
    for (uint32_t k = 0; k < opt->repeats; k++) {
        const size_t first = sw->count;
        uint64_t hash = 0;
        int status = run_repeat(opt, sc, total, threads, sw, &hash);
        if (status != 0)
            return status;
        if (k > 0 && hash != r->state_hash)
            r->repeats_agree = false;
        r->state_hash = hash;
        memcpy(scratch, sw->step_ms + first, opt->steps * sizeof *scratch);
        r->repeat_ms[k] = stats_median(scratch, opt->steps);
    }
    r->repeat_count = opt->repeats;
    r->iterations = sw->count;
    r->steps_run = (uint64_t)opt->warmup + opt->steps;
    r->ms_median = stats_median(sw->step_ms, sw->count);
    r->ms_min = stats_min(sw->step_ms, sw->count);
    r->ms_mean = stats_mean(sw->step_ms, sw->count);
    r->ns_per_agent_step = r->ms_median * 1e6 / total;
    r->neighbours_per_agent = r->candidates_per_agent = (double)NAN;
    r->bytes_per_agent = r->grid_ms = r->behaviour_ms = (double)NAN;
    r->integrate_ms = r->quality_ms = (double)NAN;
    r->flock2d_ratio = (double)NAN;
    r->q.max_speed_ratio = r->q.max_force_ratio = (double)NAN;
    r->dist.ranks = (uint32_t)size_;
    r->dist.weak = per_rank;
    r->dist.agents_per_rank = (double)total / size_;
    r->dist.most_on_a_rank = sw->most_owned;
    r->dist.comm_ms = stats_median(sw->comm_ms, sw->count);
    r->dist.ghosts_per_rank = sw->ghosts / (double)sw->count;
    r->dist.bytes_sent_per_rank = sw->bytes / (double)sw->count;
    r->dist.messages_per_rank = sw->messages / (double)sw->count;
    r->dist.bytes_per_ghost = (uint32_t)sizeof(throng_agent_state);
    r->dist.single_ms = (double)NAN;
    if (compare && rank_ == 0)
        r->dist.single_ms = single_process(opt, sc, total, threads, scratch);
    return 0;
}

static void table_head(FILE *out) {
    fprintf(out, "%-16s %9s %5s %7s %10s %10s %9s %9s %9s %11s %10s %10s %s\n",
            "scenario", "agents", "ranks", "threads", "ms/step", "min ms",
            "comm ms", "ghosts/r", "most/r", "bytes/r", "1 proc ms", "overhead",
            "hash");
}

static void table_line(FILE *out, const result *r) {
    char single[24] = "-", over[24] = "-";
    if (isfinite(r->dist.single_ms)) {
        snprintf(single, sizeof single, "%.3f", r->dist.single_ms);
        snprintf(over, sizeof over, "%.2fx", r->ms_median / r->dist.single_ms);
    }
    fprintf(out,
            "%-16s %9" PRIu32 " %5" PRIu32 " %7d %10.3f %10.3f %9.3f %9.0f "
            "%9.0f %11.0f %10s %10s %016" PRIx64 "%s\n",
            r->sc->name, r->agents, r->dist.ranks, r->threads, r->ms_median,
            r->ms_min, r->dist.comm_ms, r->dist.ghosts_per_rank,
            r->dist.most_on_a_rank, r->dist.bytes_sent_per_rank, single, over,
            r->state_hash, r->repeats_agree ? "" : " (repeats differ)");
    fflush(out);
}

static bool write_output(const char *path, const char *kind, int which,
                         const options *opt, const machine *m, const char *exe,
                         const result *results, size_t count) {
    char error[512];
    outfile f;
    if (!outfile_open(&f, path, error, sizeof error)) {
        fprintf(stderr, "throng-mpi-bench: writing the %s to '%s': %s\n", kind,
                path, error);
        return false;
    }
    bool ok = true;
    if (which == 0)
        json_write(f.file, opt, m, exe, results, count);
    else if (which == 1)
        csv_write(f.file, m, results, count);
    else
        ok = plot_write(f.file, opt, m, results, count);
    if (!ok) {
        outfile_discard(&f);
        return false;
    }
    if (!outfile_commit(&f, error, sizeof error)) {
        fprintf(stderr, "throng-mpi-bench: writing the %s to '%s': %s\n", kind,
                path, error);
        return false;
    }
    return true;
}

/* Takes this program's own flags out of argv (the rest is throng-bench's
 * command line). */
static int own_flags(int argc, char **argv, char **rest, bool *per_rank,
                     bool *compare) {
    int n = 0;
    for (int i = 0; i < argc; i++) {
        if (i > 0 && !strcmp(argv[i], "--per-rank"))
            *per_rank = true;
        else if (i > 0 && !strcmp(argv[i], "--compare"))
            *compare = true;
        else
            rest[n++] = argv[i];
    }
    rest[n] = NULL;
    return n;
}

static int bench(int argc, char **argv) {
    bool per_rank = false, compare = false;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return EXIT_FAILED;
    const int rest_count = own_flags(argc, argv, rest, &per_rank, &compare);
    options opt;
    /* Every rank reads the same command line; rank 0 alone speaks. */
    int saved = -1;
    if (rank_ != 0) {
        fflush(stderr);
        saved = dup(STDERR_FILENO);
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, STDERR_FILENO);
            close(null);
        }
    }
    int status = options_parse(rest_count, rest, &opt);
    throng_simd simd = THRONG_SIMD_AUTO;
    if (status == 0 && !opt.help && !opt.list && !opt.machine)
        status = simd_check(&simd);
    if (saved >= 0) {
        fflush(stderr);
        dup2(saved, STDERR_FILENO);
        close(saved);
    }
    free(rest);
    if (status == 0 && (opt.help || opt.list || opt.machine)) {
        if (rank_ == 0 && opt.help) {
            options_print_help(stdout);
            puts("\nthrong-mpi-bench also takes:\n"
                 "      --per-rank         --agents is each rank's crowd "
                 "(weak scaling)\n"
                 "      --compare          also time the same crowd in one "
                 "process (rank 0)");
        } else if (rank_ == 0 && opt.list) {
            print_scenarios(stdout);
        } else if (rank_ == 0) {
            char slug[64];
            machine_slug(slug, sizeof slug);
            puts(slug);
        }
        options_free(&opt);
        return 0;
    }
    if (status == 0)
        status = refuse_unsupported(&opt);
    if (status != 0) {
        options_free(&opt);
        return status;
    }
    size_t configs = 0;
    for (size_t e = 0; e < opt.scenario_count; e++) {
        size_t n = 0;
        options_entry_agents(&opt, e, &n);
        configs += n * opt.thread_count;
    }
    result *results = calloc(configs + 1, sizeof *results);
    double *repeat_ms = calloc(configs * opt.repeats + 1, sizeof *repeat_ms);
    double *scratch = malloc(
        ((size_t)opt.steps * (1u + 2u * opt.repeats) + 1u) * sizeof *scratch);
    if (!all_ok(results && repeat_ms && scratch)) {
        if (rank_ == 0)
            fprintf(stderr, "throng-mpi-bench: out of memory\n");
        status = EXIT_FAILED;
    }
    machine m;
    memset(&m, 0, sizeof m);
    machine_gather(&m);
    FILE *table = (opt.json_path && !strcmp(opt.json_path, "-")) ||
                          (opt.csv_path && !strcmp(opt.csv_path, "-")) ||
                          (opt.plot_path && !strcmp(opt.plot_path, "-"))
                      ? stderr
                      : stdout;
    if (rank_ == 0 && status == 0 && !opt.quiet)
        table_head(table);
    size_t done = 0;
    for (size_t e = 0; e < opt.scenario_count && status == 0; e++) {
        size_t n = 0;
        const uint32_t *agents = options_entry_agents(&opt, e, &n);
        for (size_t a = 0; a < n && status == 0; a++) {
            for (size_t t = 0; t < opt.thread_count && status == 0; t++) {
                result *r = &results[done];
                r->repeat_ms = repeat_ms + done * opt.repeats;
                sweep sw;
                status = run_config_mpi(&opt, opt.scenarios[e].sc, agents[a],
                                        opt.threads[t], per_rank, compare, simd,
                                        &sw, scratch, r);
                if (status == 0) {
                    if (rank_ == 0 && !opt.quiet)
                        table_line(table, r);
                    done++;
                }
            }
        }
    }
    if (status == 0 && rank_ == 0) {
        result_ratios(results, done);
        const char *paths[3] = { opt.json_path, opt.csv_path, opt.plot_path };
        const char *kinds[3] = { "JSON", "CSV", "SVG" };
        for (int k = 0; k < 3; k++)
            if (paths[k] && !write_output(paths[k], kinds[k], k, &opt, &m,
                                          argv[0], results, done))
                status = EXIT_FAILED;
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(results);
    free(repeat_ms);
    free(scratch);
    options_free(&opt);
    return status;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    const int status = bench(argc, argv);
    MPI_Finalize();
    return status;
}
