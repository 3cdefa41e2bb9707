/* SPDX-License-Identifier: MIT */
/*
 * Running throng-bench's configurations (run.h).
 *
 * For every (scenario, agents, threads) configuration and every repeat, a
 * fresh world is built from the scenario table, stepped `warmup` times
 * uncounted, then stepped `steps` times with each step timed on its own
 * (CLOCK_MONOTONIC around throng_world_step only). Figures are medians and
 * minima over all counted steps of all repeats: a median shrugs off the odd
 * step that a page fault or the scheduler stretched, a minimum shows what
 * the machine can do when nothing interferes. Per-stage times and counters
 * come from throng_world_stats after each step, so they describe the same
 * steps that were timed.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "run.h"
#include "stats.h"

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The progress bar is redrawn at most this often: often enough to look
 * alive, rarely enough that drawing never competes with the steps. */
#define PROGRESS_INTERVAL_MS 100.0
#define PROGRESS_BAR_WIDTH 24

bool samples_init(samples *s, size_t capacity) {
    s->capacity = capacity;
    s->step_ms = malloc(capacity * sizeof(double));
    s->grid_ms = malloc(capacity * sizeof(double));
    s->behaviour_ms = malloc(capacity * sizeof(double));
    s->integrate_ms = malloc(capacity * sizeof(double));
    s->record_ms = malloc(capacity * sizeof(double));
    return s->step_ms && s->grid_ms && s->behaviour_ms && s->integrate_ms &&
           s->record_ms;
}

void samples_free(samples *s) {
    free(s->step_ms);
    free(s->grid_ms);
    free(s->behaviour_ms);
    free(s->integrate_ms);
    free(s->record_ms);
    s->step_ms = s->grid_ms = s->behaviour_ms = s->integrate_ms = NULL;
    s->record_ms = NULL;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of values[0..count) (sorts them in place); the mean of the middle
 * two for an even count. */
static double median(double *values, size_t count) {
    if (count == 0) {
        return (double)NAN;
    }
    qsort(values, count, sizeof(double), compare_doubles);
    size_t middle = count / 2;
    return count % 2 ? values[middle]
                     : 0.5 * (values[middle - 1] + values[middle]);
}

static double elapsed_ms(const struct timespec *start,
                         const struct timespec *end) {
    return (double)(end->tv_sec - start->tv_sec) * 1e3 +
           (double)(end->tv_nsec - start->tv_nsec) * 1e-6;
}

void config_name(const scenario *sc, uint32_t agents, int threads, char *buffer,
                 size_t size) {
    snprintf(buffer, size, "%s/%" PRIu32 "/threads:%d", sc->name, agents,
             threads);
}

static void progress_draw(progress *p, bool force) {
    if (!p->enabled) {
        return;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!force && p->drawn &&
        elapsed_ms(&p->last, &now) < PROGRESS_INTERVAL_MS) {
        return;
    }
    p->last = now;
    double fraction = p->total > 0 ? (double)p->done / (double)p->total : 0.0;
    fraction = fraction < 1.0 ? fraction : 1.0;
    char bar[PROGRESS_BAR_WIDTH + 1];
    int filled = (int)(fraction * PROGRESS_BAR_WIDTH);
    for (int i = 0; i < PROGRESS_BAR_WIDTH; ++i) {
        bar[i] = i < filled ? '#' : '.';
    }
    bar[PROGRESS_BAR_WIDTH] = '\0';
    fprintf(stderr,
            "\r[%s] %3d%%  %zu/%zu %s  repeat %" PRIu32 "/%" PRIu32 "\033[K",
            bar, (int)(fraction * 100.0), p->config, p->config_count, p->name,
            p->repeat, p->repeats);
    fflush(stderr);
    p->drawn = true;
}

/* Wipes the bar so a table row can be printed on a clean line. */
void progress_clear(progress *p) {
    if (p->enabled && p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->drawn = false;
    }
}

static void progress_step(progress *p) {
    if (p->enabled) {
        ++p->done;
        progress_draw(p, false);
    }
}

/* ------------------------------------------------------------------------ */
/* Running one configuration                                                */
/* ------------------------------------------------------------------------ */

/* Runs one configuration for all repeats into *out (whose repeat_ms must
 * hold opt->repeats values). Returns 0, or EXIT_FAILED after printing what
 * the library refused. */
int run_config(const options *opt, const scenario *sc, uint32_t agents,
               int threads, samples *s, quality_snapshot *snap, progress *bar,
               result *out) {
    char name[128];
    config_name(sc, agents, threads, name, sizeof name);

    double *repeat_ms = out->repeat_ms;
    memset(out, 0, sizeof *out);
    out->sc = sc;
    out->agents = agents;
    out->threads = threads;
    out->repeats_agree = true;
    out->repeat_ms = repeat_ms;
    snprintf(out->simd, sizeof out->simd, "%s", "unknown");
    snprintf(bar->name, sizeof bar->name, "%s", name);

    double neighbours_sum = 0.0;
    double candidates_sum = 0.0;
    size_t sample = 0;

    /* A goal scene (and an evacuation or walking scene) is watched every
     * step (quality_motion) and, when its goals move on, given new ones
     * between steps; both outside the timed interval. */
    bool goals = sc->goal != NULL || sc->exits != NULL || sc->walk;
    quality_motion motion;
    memset(&motion, 0, sizeof motion);
    uint32_t *arrivals = NULL;
    if (goals) {
        arrivals = calloc((size_t)agents + 1, sizeof *arrivals);
        if (arrivals == NULL) {
            progress_clear(bar);
            fprintf(stderr, PROGRAM ": %s: out of memory\n", name);
            return EXIT_FAILED;
        }
    }
    int failed = 0;

    for (uint32_t repeat = 0; repeat < opt->repeats; ++repeat) {
        bool last_repeat = repeat + 1 == opt->repeats;
        bar->repeat = repeat + 1;
        progress_draw(bar, true);
        throng_world *world = NULL;
        throng_status status = sc->build(agents, threads, opt->seed, &world);
        if (status == THRONG_OK && goals) {
            memset(arrivals, 0, (size_t)agents * sizeof *arrivals);
            status = quality_motion_start(&motion, world, agents);
            if (status != THRONG_OK) {
                throng_world_destroy(world);
                world = NULL;
            }
        }
        if (status != THRONG_OK) {
            progress_clear(bar);
            fprintf(stderr, PROGRAM ": %s: building the world failed: %s%s\n",
                    name, throng_status_string(status),
                    scenario_set_at(0) != NULL
                        ? " (is a value given with --set out of its range?)"
                        : "");
            failed = EXIT_FAILED;
            break;
        }
        if (opt->stable_columns) {
            /* Refused only for a NULL world. */
            (void)throng_world_set_stable_columns(world, true);
        }

        uint64_t steps_run = 0;
        for (uint32_t step = 0; step < opt->warmup; ++step) {
            if (goals) {
                status = scenario_between_steps(sc, world, agents, opt->seed,
                                                arrivals);
            }
            if (status == THRONG_OK) {
                status = throng_world_step(world, sc->dt);
            }
            if (status == THRONG_OK && goals) {
                status = quality_motion_observe(&motion, world, sc, opt->seed,
                                                arrivals, ++steps_run, false);
            }
            if (status != THRONG_OK) {
                break;
            }
            progress_step(bar);
        }

        /* --record: the counted steps only, each repeat anew into the
         * same file, so every repeat pays the same. */
        throng_recorder *rec = NULL;
        bool record_failed = false;
        if (status == THRONG_OK && opt->record_path != NULL) {
            throng_recorder_def d = throng_recorder_def_default();
            d.every = opt->record_every;
            d.fps = 1.0 / ((double)sc->dt * (double)opt->record_every);
            d.replace = true;
            status = throng_recorder_open(world, opt->record_path, &d, &rec);
            if (status != THRONG_OK) {
                progress_clear(bar);
                fprintf(stderr, PROGRAM ": %s: --record: %s\n", name,
                        throng_world_last_error(world));
                throng_world_destroy(world);
                failed = EXIT_FAILED;
                break;
            }
        }

        size_t repeat_start = sample;
        bool snapped = false;
        throng_step_stats stats;
        memset(&stats, 0, sizeof stats);
        for (uint32_t step = 0; step < opt->steps && status == THRONG_OK;
             ++step) {
            /* The velocities before the very last step give that step's
             * force; copied outside the timed interval (before every
             * step of a run that may end once all arrived). */
            if (last_repeat &&
                (step + 1 == opt->steps || (goals && opt->until_arrived))) {
                snapped = quality_snapshot_take(world, snap);
            }
            if (goals) {
                status = scenario_between_steps(sc, world, agents, opt->seed,
                                                arrivals);
                if (status != THRONG_OK) {
                    break;
                }
            }
            struct timespec start, end;
            clock_gettime(CLOCK_MONOTONIC, &start);
            status = throng_world_step(world, sc->dt);
            clock_gettime(CLOCK_MONOTONIC, &end);
            if (status != THRONG_OK) {
                break;
            }
            status = throng_world_stats(world, &stats);
            if (status != THRONG_OK) {
                break;
            }
            s->step_ms[sample] = elapsed_ms(&start, &end);
            s->grid_ms[sample] = stats.grid_seconds * 1e3;
            s->behaviour_ms[sample] = stats.behaviour_seconds * 1e3;
            s->integrate_ms[sample] = stats.integrate_seconds * 1e3;
            ++sample;
            if (rec != NULL) {
                /* Timed apart from the step. */
                clock_gettime(CLOCK_MONOTONIC, &start);
                status = throng_recorder_record(rec);
                clock_gettime(CLOCK_MONOTONIC, &end);
                s->record_ms[sample - 1] = elapsed_ms(&start, &end);
                if (status != THRONG_OK) {
                    progress_clear(bar);
                    fprintf(stderr, PROGRAM ": %s: --record: %s\n", name,
                            throng_recorder_last_error(rec));
                    record_failed = true;
                    break;
                }
            }
            neighbours_sum += (double)stats.neighbours / (double)agents;
            candidates_sum += (double)stats.candidates / (double)agents;
            progress_step(bar);
            if (goals) {
                status = quality_motion_observe(&motion, world, sc, opt->seed,
                                                arrivals, ++steps_run, true);
                if (status != THRONG_OK ||
                    (opt->until_arrived &&
                     motion.figures.all_arrived_step >= 0)) {
                    break;
                }
            } else {
                ++steps_run;
            }
        }
        if (rec != NULL) {
            /* The drain (flush) and the last writes (close), timed
             * together: what the host waits for at the end of a run. */
            struct timespec start, end;
            clock_gettime(CLOCK_MONOTONIC, &start);
            throng_status flushed = throng_recorder_flush(rec);
            throng_record_stats rs;
            memset(&rs, 0, sizeof rs);
            (void)throng_recorder_stats(rec, &rs);
            if (flushed != THRONG_OK && status == THRONG_OK) {
                progress_clear(bar);
                fprintf(stderr, PROGRAM ": %s: --record: %s\n", name,
                        throng_recorder_last_error(rec));
            }
            throng_status closed = throng_recorder_close(rec);
            clock_gettime(CLOCK_MONOTONIC, &end);
            if (closed != THRONG_OK && status == THRONG_OK) {
                progress_clear(bar);
                fprintf(stderr, PROGRAM ": %s: --record: closing failed: %s\n",
                        name, throng_status_string(closed));
                status = closed;
            }
            if (status == THRONG_OK) {
                out->recorded = true;
                out->record_close_ms = elapsed_ms(&start, &end);
                out->record_frames = rs.frames_committed;
                out->record_rows = rs.rows_committed;
                out->record_copy_ms = rs.copy_seconds * 1e3;
                out->record_wait_ms = rs.wait_seconds * 1e3;
                out->writer_ms_per_frame =
                    rs.frames_committed
                        ? rs.write_seconds * 1e3 / (double)rs.frames_committed
                        : (double)NAN;
            }
        }
        if (status != THRONG_OK) {
            progress_clear(bar);
            if (!record_failed) {
                fprintf(stderr,
                        PROGRAM ": %s: step %" PRIu64 " failed: %s (%s)\n",
                        name, throng_world_step_count(world),
                        throng_status_string(status),
                        throng_world_last_error(world));
            }
            throng_world_destroy(world);
            failed = EXIT_FAILED;
            break;
        }
        /* Sorting this repeat's slice leaves the overall median unchanged. */
        repeat_ms[repeat] =
            median(s->step_ms + repeat_start, sample - repeat_start);

        uint64_t hash = throng_world_hash(world);
        if (repeat > 0 && hash != out->state_hash) {
            out->repeats_agree = false;
        }
        out->state_hash = hash;
        out->threads_used = stats.threads;
        if (stats.simd != NULL) {
            snprintf(out->simd, sizeof out->simd, "%s", stats.simd);
        }
        if (last_repeat) {
            out->bytes_per_agent =
                (double)throng_world_bytes(world) / (double)agents;
            struct timespec start, end;
            clock_gettime(CLOCK_MONOTONIC, &start);
            status = quality_measure(world, sc, agents, snapped ? snap : NULL,
                                     &out->q);
            clock_gettime(CLOCK_MONOTONIC, &end);
            out->quality_ms = elapsed_ms(&start, &end);
            if (goals) {
                quality_motion_report(&motion, &out->q);
            }
            out->nan_count = out->q.nan_count;
            out->steps_run = steps_run;
            out->out_of_range = quality_judge(&out->q, sc, steps_run,
                                              out->check, sizeof out->check);
            if (status != THRONG_OK) {
                progress_clear(bar);
                fprintf(stderr,
                        PROGRAM ": %s: measuring the final state failed: "
                                "%s (%s)\n",
                        name, throng_status_string(status),
                        throng_world_last_error(world));
                throng_world_destroy(world);
                failed = EXIT_FAILED;
                break;
            }
        }
        throng_world_destroy(world);
    }
    quality_motion_free(&motion);
    free(arrivals);
    if (failed != 0) {
        return failed;
    }

    out->repeat_count = opt->repeats;
    out->iterations = sample;
    out->neighbours_per_agent = neighbours_sum / (double)sample;
    out->candidates_per_agent = candidates_sum / (double)sample;
    out->ms_mean = stats_mean(s->step_ms, sample);
    out->ms_median = median(s->step_ms, sample);
    out->ms_min = s->step_ms[0]; /* sorted by median() */
    out->ns_per_agent_step = out->ms_median / (double)agents * 1e6;
    out->grid_ms = median(s->grid_ms, sample);
    out->behaviour_ms = median(s->behaviour_ms, sample);
    out->integrate_ms = median(s->integrate_ms, sample);
    if (out->recorded) {
        double most = 0.0;
        for (size_t i = 0; i < sample; ++i) {
            most = s->record_ms[i] > most ? s->record_ms[i] : most;
        }
        out->record_ms_mean = stats_mean(s->record_ms, sample);
        out->record_ms_max = most;
        out->record_ms_median = median(s->record_ms, sample);
        progress_clear(bar);
        fprintf(stderr,
                PROGRAM ": %s: recorded %" PRIu64 " frames (%" PRIu64
                        " rows) to %s; record() per step: median %.3f ms, "
                        "mean %.3f ms (%.1f%% of the median step), max "
                        "%.3f ms, of which waiting for the writer %.1f ms "
                        "in all; the writer %.1f ms a frame (%.1f frames/s); "
                        "draining and closing %.1f ms\n",
                name, out->record_frames, out->record_rows, opt->record_path,
                out->record_ms_median, out->record_ms_mean,
                100.0 * out->record_ms_mean / out->ms_median,
                out->record_ms_max, out->record_wait_ms,
                out->writer_ms_per_frame, 1e3 / out->writer_ms_per_frame,
                out->record_close_ms);
    }
    return 0;
}

/* Reports on stderr every configuration whose state went non-finite or
 * differed between repeats, and every (scenario, agents) whose thread
 * counts disagree. Returns the number of problems. */
void result_ratios(result *results, size_t count) {
    for (size_t i = 0; i < count; ++i) {
        result *r = &results[i];
        r->flock2d_ratio = (double)NAN;
        for (size_t j = 0; j < count; ++j) {
            const result *base = &results[j];
            if (strcmp(base->sc->name, RATIO_SCENARIO) == 0 &&
                base->agents == r->agents && base->threads == r->threads &&
                base->ms_median > 0.0) {
                r->flock2d_ratio = r->ms_median / base->ms_median;
                break;
            }
        }
    }
}

size_t check_ranges(const result *results, size_t count) {
    size_t problems = 0;
    for (size_t i = 0; i < count; ++i) {
        const result *r = &results[i];
        if (r->out_of_range == 0) {
            continue;
        }
        char name[128];
        config_name(r->sc, r->agents, r->threads, name, sizeof name);
        fprintf(stderr,
                PROGRAM ": %s: quality %s (pass ranges: --list, "
                        "bench/scenarios.c)\n",
                name, r->check);
        ++problems;
    }
    return problems;
}

size_t check_results(const result *results, size_t count) {
    size_t problems = 0;
    for (size_t i = 0; i < count; ++i) {
        const result *r = &results[i];
        char name[128];
        config_name(r->sc, r->agents, r->threads, name, sizeof name);
        if (r->nan_count > 0) {
            fprintf(stderr,
                    PROGRAM ": %s: %" PRIu64 " agents ended with a "
                            "non-finite position or velocity\n",
                    name, r->nan_count);
            ++problems;
        }
        if (!r->repeats_agree) {
            fprintf(stderr,
                    PROGRAM ": %s: repeats of the same run ended in "
                            "different states\n",
                    name);
            ++problems;
        }
        /* Compare with the first earlier run of the same scene. */
        for (size_t j = 0; j < i; ++j) {
            const result *first = &results[j];
            if (first->sc == r->sc && first->agents == r->agents) {
                if (first->state_hash != r->state_hash) {
                    fprintf(stderr,
                            PROGRAM ": %s: final state %016" PRIx64
                                    " differs from threads:%d (%016" PRIx64
                                    "); a step must not depend on the "
                                    "thread count\n",
                            name, r->state_hash, first->threads,
                            first->state_hash);
                    ++problems;
                }
                break;
            }
        }
    }
    return problems;
}

/* Reads THRONG_SIMD (through the scenarios, which build every world with
 * it) before anything runs: a name that is no path is a usage error, a path
 * this CPU or build lacks gets its own exit status. On success *run is the
 * path the worlds will run. */
int simd_check(throng_simd *run) {
    const char *text = NULL;
    throng_simd asked = THRONG_SIMD_AUTO;
    throng_simd best = throng_simd_best();
    if (scenario_simd_from_env(&asked, &text) != THRONG_OK) {
        usage_error(SCENARIO_SIMD_ENV " must be scalar, sse2, avx2, avx512, "
                                      "neon, wasm or auto, got '%s'",
                    text != NULL ? text : "");
        return EXIT_USAGE;
    }
    if (!throng_simd_supported(asked)) {
        fprintf(stderr,
                PROGRAM ": " SCENARIO_SIMD_ENV "=%s: this CPU or build has "
                        "no %s path (the widest it offers is %s)\n",
                text, throng_simd_name(asked), throng_simd_name(best));
        return EXIT_UNSUPPORTED;
    }
    *run = asked == THRONG_SIMD_AUTO ? best : asked;
    return 0;
}

/* --busy: child processes that spin until killed, so the machine has
 * fewer free cores than the step has threads, as when the host program,
 * a compiler or another program shares it. Children, not threads: they
 * compete as other programs do, and the library's OpenMP runtime never
 * sees them. Returns how many started. */
uint32_t busy_start(uint32_t count, pid_t *pids) {
    uint32_t started = 0;
    for (; started < count; ++started) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
            break;
        }
        if (pid == 0) {
            volatile uint64_t spin = 0;
            for (;;) {
                spin = spin + 1;
            }
        }
        pids[started] = pid;
    }
    return started;
}

void busy_stop(uint32_t count, const pid_t *pids) {
    for (uint32_t k = 0; k < count; ++k) {
        kill(pids[k], SIGKILL);
        waitpid(pids[k], NULL, 0);
    }
}
