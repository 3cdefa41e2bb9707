/* SPDX-License-Identifier: MIT */
/*
 * throng-bench's output (report.h). Every JSON document goes through the
 * one writer (json.c); the files themselves are opened, and renamed into
 * place when complete, by bench.c (outfile.c).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "plot.h"

int table_name_width(const options *opt) {
    size_t width = strlen("scenario");
    for (size_t i = 0; i < opt->scenario_count; ++i) {
        size_t length = strlen(opt->scenarios[i].sc->name);
        width = length > width ? length : width;
    }
    return (int)width;
}

/* The quality columns: heading, width, decimals. */
typedef struct quality_column {
    const char *heading;
    int width;
    int decimals;
} quality_column;

enum {
    COLUMN_SPEED_RATIO,
    COLUMN_FORCE_RATIO,
    COLUMN_MEAN_SPEED,
    COLUMN_POLARISATION,
    COLUMN_NEAREST,
    COLUMN_OVERLAP,
    COLUMN_SEPARATION,
    COLUMN_AT_TARGET,
    COLUMN_OVERLAP_SUM,
    COLUMN_DEEP,
    COLUMN_DEPTH,
    COLUMN_CLOSEST,
    COLUMN_ARRIVALS,
    COLUMN_ALL_ARRIVED,
    COLUMN_STALL,
    COLUMN_ON_TIME,
    COLUMN_OUT,
    COLUMN_EVACUATED,
    COLUMN_EXIT_RATE,
    COLUMN_SPECIFIC_FLOW,
    COLUMN_STUCK,
    COLUMN_WALK,
    COLUMN_COUNT
};

static const quality_column quality_columns[COLUMN_COUNT] = {
    [COLUMN_SPEED_RATIO] = { "v/vmax", 6, 3 },
    [COLUMN_FORCE_RATIO] = { "F/Fmax", 6, 3 },
    [COLUMN_MEAN_SPEED] = { "speed", 6, 3 },
    [COLUMN_POLARISATION] = { "pol", 5, 3 },
    [COLUMN_NEAREST] = { "nn m", 6, 3 },
    [COLUMN_OVERLAP] = { "ovl%", 6, 2 },
    [COLUMN_SEPARATION] = { "sep m", 6, 3 },
    [COLUMN_AT_TARGET] = { "goal%", 6, 1 },
    [COLUMN_OVERLAP_SUM] = { "ovl sum", 8, 0 },
    [COLUMN_DEEP] = { "deep", 8, 0 },
    [COLUMN_DEPTH] = { "depth%", 6, 2 },
    [COLUMN_CLOSEST] = { "close m", 7, 3 },
    [COLUMN_ARRIVALS] = { "arrived", 8, 0 },
    [COLUMN_ALL_ARRIVED] = { "all@", 6, 0 },
    [COLUMN_STALL] = { "stall", 5, 0 },
    [COLUMN_ON_TIME] = { "ontime%", 7, 1 },
    [COLUMN_OUT] = { "out%", 6, 1 },
    [COLUMN_EVACUATED] = { "evac s", 7, 1 },
    [COLUMN_EXIT_RATE] = { "out/s", 6, 2 },
    [COLUMN_SPECIFIC_FLOW] = { "J/m", 5, 2 },
    [COLUMN_STUCK] = { "stuck", 6, 0 },
    [COLUMN_WALK] = { "walk", 5, 3 },
};

/* Each quality figure of a result, and whether its scenario gets it. */
static bool quality_value(const quality *q, int column, double *value) {
    switch (column) {
    case COLUMN_SPEED_RATIO:
        *value = q->max_speed_ratio;
        return true;
    case COLUMN_FORCE_RATIO:
        *value = q->max_force_ratio;
        return true;
    case COLUMN_MEAN_SPEED:
        *value = q->mean_speed;
        break;
    case COLUMN_POLARISATION:
        *value = q->polarisation;
        break;
    case COLUMN_NEAREST:
        *value = q->nearest_mean;
        break;
    case COLUMN_OVERLAP:
        *value = 100.0 * q->overlap_share;
        break;
    case COLUMN_SEPARATION:
        *value = q->min_separation;
        break;
    case COLUMN_AT_TARGET:
        *value = 100.0 * q->at_target_share;
        break;
    case COLUMN_OVERLAP_SUM:
        *value = (double)q->overlap_sum;
        break;
    case COLUMN_DEEP:
        *value = (double)q->deep_overlap_sum;
        break;
    case COLUMN_DEPTH:
        *value = 100.0 * q->deepest_overlap;
        break;
    case COLUMN_CLOSEST:
        *value = q->closest_approach;
        if (!isfinite(*value))
            return false;
        break;
    case COLUMN_ARRIVALS:
        *value = (double)q->arrivals;
        break;
    case COLUMN_ALL_ARRIVED:
        *value = (double)q->all_arrived_step;
        if (q->all_arrived_step < 0)
            return false;
        break;
    case COLUMN_STALL:
        *value = (double)q->longest_stall;
        break;
    case COLUMN_ON_TIME:
        *value = 100.0 * q->on_time_share;
        if (q->deadline_step < 0 || !isfinite(*value))
            return false;
        break;
    case COLUMN_OUT:
        *value = 100.0 * q->out_share;
        return (q->kind & QUALITY_EVAC) != 0 && isfinite(*value);
    case COLUMN_EVACUATED:
        *value = q->evacuated_seconds;
        return (q->kind & QUALITY_EVAC) != 0 && q->evacuated_step >= 0;
    case COLUMN_EXIT_RATE:
        *value = q->mean_exit_rate;
        return (q->kind & QUALITY_EVAC) != 0 && isfinite(*value);
    case COLUMN_SPECIFIC_FLOW:
        *value = q->specific_flow;
        return (q->kind & QUALITY_EVAC) != 0 && isfinite(*value);
    case COLUMN_STUCK:
        *value = (double)q->stuck_max;
        return (q->kind & QUALITY_EVAC) != 0;
    case COLUMN_WALK:
        *value = q->walk_speed;
        return (q->kind & QUALITY_WALK) != 0 && isfinite(*value);
    default:
        return false;
    }
    unsigned needs = column >= COLUMN_OVERLAP_SUM ? QUALITY_MOTION
                     : column == COLUMN_AT_TARGET ? QUALITY_TARGET
                     : column == COLUMN_OVERLAP || column == COLUMN_SEPARATION
                         ? QUALITY_CROWD
                         : QUALITY_FLOCK;
    return (q->kind & needs) != 0;
}

void table_header(FILE *out, int name_width) {
    fprintf(out,
            "%-*s %9s %7s %6s %10s %10s %10s %9s %8s %7s %7s %8s %9s %9s "
            "%9s %-8s %-16s %3s",
            name_width, "scenario", "agents", "threads", "steps", "ms/step",
            "min ms", "mean ms", "ns/agent", "x flock2d", "nbrs", "cands",
            "B/agent", "grid ms", "behav ms", "integ ms", "simd", "hash",
            "nan");
    for (int k = 0; k < COLUMN_COUNT; ++k) {
        fprintf(out, " %*s", quality_columns[k].width,
                quality_columns[k].heading);
    }
    fprintf(out, " %s\n", "check");
    fflush(out);
}

void table_row(FILE *out, int name_width, const result *r) {
    char threads[24];
    if (r->threads == 0 || (uint32_t)r->threads != r->threads_used) {
        snprintf(threads, sizeof threads, "%d(%" PRIu32 ")", r->threads,
                 r->threads_used);
    } else {
        snprintf(threads, sizeof threads, "%d", r->threads);
    }
    char ratio[24] = "-";
    if (isfinite(r->flock2d_ratio)) {
        snprintf(ratio, sizeof ratio, "%.2f", r->flock2d_ratio);
    }
    fprintf(out,
            "%-*s %9" PRIu32 " %7s %6" PRIu64 " %10.3f %10.3f %10.3f %9.1f "
            "%9s %7.2f %7.2f %8.1f %9.3f %9.3f %9.3f %-8s %016" PRIx64
            " %3" PRIu64,
            name_width, r->sc->name, r->agents, threads, r->iterations,
            r->ms_median, r->ms_min, r->ms_mean, r->ns_per_agent_step, ratio,
            r->neighbours_per_agent, r->candidates_per_agent,
            r->bytes_per_agent, r->grid_ms, r->behaviour_ms, r->integrate_ms,
            r->simd, r->state_hash, r->nan_count);
    for (int k = 0; k < COLUMN_COUNT; ++k) {
        double value = 0.0;
        if (quality_value(&r->q, k, &value)) {
            fprintf(out, " %*.*f", quality_columns[k].width,
                    quality_columns[k].decimals, value);
        } else {
            fprintf(out, " %*s", quality_columns[k].width, "-");
        }
    }
    fprintf(out, " %s\n", r->check);
    fflush(out);
}

/* Printed under the table: the columns a reader cannot guess. */
void table_legend(FILE *out) {
    fprintf(
        out,
        "\n"
        "behav ms: the behaviour kernels and the combination of their "
        "forces, which the\n"
        "  library fuses into one stage (it reports no separate combine "
        "time).\n"
        "v/vmax, F/Fmax: largest |v| / max speed and m |dv| / dt / max "
        "force in the last\n"
        "  step, over all agents (1 is the limit); F/Fmax leaves out ORCA "
        "groups, whose\n"
        "  velocity stage picks velocities, not forces.\n"
        "flocks: speed = mean |v| (m/s), pol = |mean unit heading|, "
        "nn m = mean nearest-\n"
        "  neighbour distance. crowds: ovl%% = agents overlapping another "
        "body, sep m =\n"
        "  smallest centre distance; goal%% = agents within %g m of their "
        "target.\n"
        "  nn, ovl and sep use a sample of at most %u agents; '-': not "
        "measured here.\n"
        "goal scenes, every step (overlaps over the counted ones): ovl "
        "sum = pairs closer\n"
        "  than r_i + r_j, summed; deep = those deeper than %g%% of the "
        "mean radius;\n"
        "  depth%% = deepest, %% of r_i + r_j; close m = closest centres; "
        "arrived = goals\n"
        "  reached; all@ = step all were at their goals; stall = most "
        "steps an agent\n"
        "  stood still (|v| <= %g%% of max) away from its goal; ontime%% = "
        "agents that\n"
        "  had reached their goal by the scene's deadline (crossing2d: twice "
        "the free\n"
        "  walking time), shown once the run gets there.\n"
        "evacuations (agents leave by exits): out%% = agents out; evac s = "
        "time until\n"
        "  nobody is left; out/s = agents per second through an exit, "
        "between its 10th\n"
        "  and 90th percentile passage, the exits' mean; J/m = that per "
        "metre of door\n"
        "  width; stuck = most agents at once that had stood still for "
        "stuck_seconds.\n"
        "walking strips: walk = mean velocity along the strip (m/s) over "
        "the counted steps.\n"
        "ms/step: the median step over all repeats; min ms the fastest; "
        "mean ms the mean,\n"
        "  which counts what the median passes over: ticks dearer than "
        "the rest, such as\n"
        "  those that rebuild neighbour lists (throng_world_set_neighbour_"
        "skin).\n"
        "x flock2d: ms/step / flock2d's ms/step at the same agents and "
        "threads in this\n"
        "  run ('-': flock2d not run there, or not yet: list it first).\n"
        "check: 'ok', or 'OUT:' and the figures outside the scene's pass "
        "ranges (--list):\n"
        "  every scene nan = 0, v/vmax and F/Fmax <= 1 + %g; a scene's own "
        "range is judged\n"
        "  once warm-up + steps reach its first step. A row out of range "
        "makes the exit\n"
        "  status 1.\n",
        QUALITY_TARGET_REACH, QUALITY_SAMPLE, 100.0 * QUALITY_DEEP_OVERLAP,
        100.0 * QUALITY_STILL, QUALITY_LIMIT_SLACK);
    fflush(out);
}

/* The line above the table, and on stderr a warning when the run is
 * narrower than the CPU allows (a figure from the scalar path must not
 * pass for this machine's speed). */
void simd_report(FILE *table, throng_simd run) {
    throng_simd best = throng_simd_best();
    fprintf(table, "simd: %s (widest this CPU and build offer: %s)\n",
            throng_simd_name(run), throng_simd_name(best));
    if (run != best) {
        fflush(table);
        fprintf(stderr,
                PROGRAM ": warning: running the %s path; this CPU offers %s\n",
                throng_simd_name(run), throng_simd_name(best));
    }
}

/* The run's "context": machine, build and the options of the sweep. */
static void json_context(json_writer *w, const options *opt, const machine *m,
                         const char *executable, const char *simd) {
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", THRONG_VERSION_MAJOR,
             THRONG_VERSION_MINOR, THRONG_VERSION_PATCH);
    char openmp[32];
    build_openmp(openmp, sizeof openmp);
    const char *simd_env = NULL;
    throng_simd asked = THRONG_SIMD_AUTO;
    (void)scenario_simd_from_env(&asked, &simd_env);

    json_object_begin(w, "context");
    json_string(w, "date", m->date);
    json_string(w, "host_name", m->host_name);
    json_string(w, "machine", m->slug);
    json_string(w, "executable", executable);
    json_i64(w, "num_cpus", m->num_cpus);
    if (m->mhz_per_cpu > 0.0) {
        json_number(w, "mhz_per_cpu", round(m->mhz_per_cpu));
    }
    json_string(w, "cpu_model", m->cpu_model);
    if (m->have_load_avg) {
        json_number_array(w, "load_avg", m->load_avg, 3);
    }
    json_string(w, "library_version", version);
    json_string(w, "compiler", build_compiler());
    json_string(w, "compiler_flags", build_flags());
    json_string(w, "openmp", openmp);
    json_string(w, "simd", simd);
    json_string(w, "simd_best", throng_simd_name(throng_simd_best()));
    json_string(w, "simd_build", build_simd());
    if (simd_env != NULL) {
        json_string(w, "simd_env", simd_env);
    }
    json_array_begin(w, "threads", false);
    for (size_t i = 0; i < opt->thread_count; ++i) {
        json_i64(w, NULL, opt->threads[i]);
    }
    json_array_end(w);
    json_u64(w, "seed", opt->seed);
    json_u64(w, "steps", opt->steps);
    json_u64(w, "warmup", opt->warmup);
    json_u64(w, "repeats", opt->repeats);
    /* --set: the scene parameters the run changed (none: no key). */
    if (scenario_set_at(0) != NULL) {
        json_object_begin(w, "set");
        for (size_t i = 0; scenario_set_at(i) != NULL; ++i) {
            json_number(w, scenario_set_at(i)->name, scenario_set_at(i)->value);
        }
        json_object_end(w);
    }
    json_object_end(w);
}

/* One configuration as a Google Benchmark entry, with ours after it. */
static void json_result(json_writer *w, const options *opt, const result *r,
                        size_t family, size_t instance) {
    const quality *q = &r->q;
    char name[128];
    config_name(r->sc, r->agents, r->threads, name, sizeof name);
    if (r->dist.ranks > 0) {
        const size_t used = strlen(name);
        snprintf(name + used, sizeof name - used, "/ranks:%" PRIu32,
                 r->dist.ranks);
    }
    char hash[17];
    snprintf(hash, sizeof hash, "%016" PRIx64, r->state_hash);

    json_object_begin(w, NULL);
    json_string(w, "name", name);
    json_u64(w, "family_index", family);
    json_u64(w, "per_family_instance_index", instance);
    json_string(w, "run_name", name);
    json_string(w, "run_type", "iteration");
    json_u64(w, "repetitions", opt->repeats);
    json_i64(w, "threads", r->threads);
    json_u64(w, "iterations", r->iterations);
    json_number(w, "real_time", r->ms_median);
    json_number(w, "cpu_time", r->ms_median);
    json_string(w, "time_unit", "ms");
    json_string(w, "scenario", r->sc->name);
    json_u64(w, "agents", r->agents);
    json_u64(w, "threads_used", r->threads_used);
    json_u64(w, "steps", opt->steps);
    json_u64(w, "warmup", opt->warmup);
    json_number(w, "dt", (double)r->sc->dt);
    json_number(w, "ms_per_step_median", r->ms_median);
    json_number(w, "ms_per_step_min", r->ms_min);
    json_number(w, "ms_per_step_mean", r->ms_mean);
    json_number_array(w, "repeat_ms", r->repeat_ms, r->repeat_count);
    json_number(w, "ns_per_agent_step", r->ns_per_agent_step);
    json_number(w, "neighbours_per_agent", r->neighbours_per_agent);
    json_number(w, "candidates_per_agent", r->candidates_per_agent);
    json_number(w, "bytes_per_agent", r->bytes_per_agent);
    json_number(w, "grid_ms", r->grid_ms);
    json_number(w, "behaviour_ms", r->behaviour_ms);
    json_number(w, "integrate_ms", r->integrate_ms);
    json_string(w, "simd", r->simd);
    json_string(w, "state_hash", hash);
    json_number(w, "max_speed_ratio", q->max_speed_ratio);
    json_number(w, "max_force_ratio", q->max_force_ratio);
    if (q->kind & QUALITY_FLOCK) {
        json_number(w, "mean_speed", q->mean_speed);
        json_number(w, "polarisation", q->polarisation);
        json_number(w, "nearest_neighbour_m", q->nearest_mean);
    }
    if (q->kind & QUALITY_CROWD) {
        json_u64(w, "overlap_pairs", q->overlap_pairs);
        json_number(w, "overlap_share", q->overlap_share);
        json_number(w, "min_separation_m", q->min_separation);
    }
    if (q->kind & QUALITY_TARGET) {
        json_number(w, "at_target_share", q->at_target_share);
    }
    if (q->kind & (QUALITY_FLOCK | QUALITY_CROWD)) {
        json_u64(w, "quality_sample", q->sample);
    }
    if (q->kind & QUALITY_MOTION) {
        json_u64(w, "steps_run", r->steps_run);
        json_u64(w, "motion_steps", q->motion_steps);
        json_u64(w, "overlap_sum", q->overlap_sum);
        json_u64(w, "deep_overlap_sum", q->deep_overlap_sum);
        json_number(w, "deepest_overlap", q->deepest_overlap);
        json_number(w, "closest_approach_m", q->closest_approach);
        json_u64(w, "arrivals", q->arrivals);
        json_i64(w, "all_arrived_step", q->all_arrived_step);
        json_u64(w, "longest_stall_steps", q->longest_stall);
        if (q->deadline_step >= 0) {
            json_i64(w, "deadline_step", q->deadline_step);
            json_number(w, "on_time_share", q->on_time_share);
        }
    }
    if (q->kind & QUALITY_EVAC) {
        json_number(w, "out_share", q->out_share);
        json_i64(w, "evacuated_step", q->evacuated_step);
        json_u64(w, "stuck_max", q->stuck_max);
        json_number(w, "mean_exit_rate", q->mean_exit_rate);
        json_number(w, "specific_flow", q->specific_flow);
        double out[SCENARIO_MAX_EXITS];
        for (uint32_t e = 0; e < q->exit_count; ++e)
            out[e] = (double)q->exit_out[e];
        json_number_array(w, "exit_out", out, q->exit_count);
        json_number_array(w, "exit_rate", q->exit_rate, q->exit_count);
        json_number_array(w, "exit_width_m", q->exit_width, q->exit_count);
    }
    if (q->kind & QUALITY_WALK)
        json_number(w, "walk_speed", q->walk_speed);
    json_string(w, "quality_check", r->check);
    json_number(w, "flock2d_ratio", r->flock2d_ratio);
    json_number(w, "quality_ms", r->quality_ms);
    json_u64(w, "nan_count", r->nan_count);
    if (r->recorded) {
        /* --record: the recorder's cost, apart from the step times. */
        json_object_begin(w, "record");
        json_string(w, "path", opt->record_path);
        json_u64(w, "every", opt->record_every);
        json_u64(w, "frames", r->record_frames);
        json_u64(w, "rows", r->record_rows);
        json_number(w, "record_ms_median", r->record_ms_median);
        json_number(w, "record_ms_mean", r->record_ms_mean);
        json_number(w, "record_ms_max", r->record_ms_max);
        json_number(w, "record_share_of_step",
                    r->record_ms_mean / r->ms_median);
        json_number(w, "copy_ms", r->record_copy_ms);
        json_number(w, "wait_ms", r->record_wait_ms);
        json_number(w, "writer_ms_per_frame", r->writer_ms_per_frame);
        json_number(w, "close_ms", r->record_close_ms);
        json_object_end(w);
    }
    if (r->dist.ranks > 0) {
        /* throng-mpi-bench: the distributed figures. */
        json_u64(w, "ranks", r->dist.ranks);
        json_string(w, "scaling", r->dist.weak ? "weak" : "strong");
        json_number(w, "agents_per_rank", r->dist.agents_per_rank);
        json_number(w, "most_agents_on_a_rank", r->dist.most_on_a_rank);
        json_number(w, "comm_ms", r->dist.comm_ms);
        json_number(w, "comm_share", r->dist.comm_ms / r->ms_median);
        json_number(w, "ghosts_per_rank", r->dist.ghosts_per_rank);
        json_number(w, "bytes_sent_per_rank", r->dist.bytes_sent_per_rank);
        json_number(w, "messages_per_rank", r->dist.messages_per_rank);
        json_u64(w, "bytes_per_ghost", r->dist.bytes_per_ghost);
        json_number(w, "single_process_ms", r->dist.single_ms);
        json_number(w, "overhead_vs_single", r->ms_median / r->dist.single_ms);
    }
    json_object_end(w);
}

void json_write(FILE *out, const options *opt, const machine *m,
                const char *executable, const result *results, size_t count) {
    json_writer w;
    json_begin(&w, out);
    json_object_begin(&w, NULL);
    json_context(&w, opt, m, executable,
                 count > 0 ? results[0].simd : "unknown");
    json_array_begin(&w, "benchmarks", true);
    size_t family = 0;
    size_t instance = 0;
    for (size_t i = 0; i < count; ++i) {
        if (i > 0) {
            if (results[i].sc != results[i - 1].sc) {
                ++family;
                instance = 0;
            } else {
                ++instance;
            }
        }
        json_result(&w, opt, &results[i], family, instance);
    }
    json_array_end(&w);
    json_object_end(&w);
    json_end(&w);
}

/* ------------------------------------------------------------------------ */
/* CSV                                                                      */
/* ------------------------------------------------------------------------ */

/* A number, or an empty field when absent or not finite. */
static void csv_number(FILE *out, double value, bool present) {
    fputc(',', out);
    if (present && isfinite(value)) {
        char text[JSON_NUMBER_SIZE];
        fputs(json_format_number(text, value), out);
    }
}

/* One row per configuration: the table's columns, the repeats' medians
 * (joined by ';' so the field needs no quoting) and the quality figures.
 * Names hold no commas or quotes (scenario names are identifiers); the
 * quality check ("OUT: pol,speed") is the one field quoted. */
void csv_write(FILE *out, const machine *m, const result *results,
               size_t count) {
    fputs("machine,scenario,agents,threads,threads_used,steps,"
          "ms_per_step_median,ms_per_step_min,ms_per_step_mean,"
          "ns_per_agent_step,"
          "neighbours_per_agent,candidates_per_agent,bytes_per_agent,grid_ms,"
          "behaviour_ms,integrate_ms,simd,state_hash,nan_count,repeat_ms,"
          "max_speed_ratio,max_force_ratio,mean_speed,polarisation,"
          "nearest_neighbour_m,overlap_pairs,overlap_share,min_separation_m,"
          "at_target_share,quality_sample,quality_ms,quality_check,"
          "flock2d_ratio,overlap_sum,deep_overlap_sum,deepest_overlap,"
          "closest_approach_m,arrivals,all_arrived_step,"
          "longest_stall_steps,deadline_step,on_time_share,out_share,"
          "evacuated_step,mean_exit_rate,specific_flow,stuck_max,"
          "walk_speed\n",
          out);
    for (size_t i = 0; i < count; ++i) {
        const result *r = &results[i];
        const quality *q = &r->q;
        bool flock = (q->kind & QUALITY_FLOCK) != 0;
        bool crowd = (q->kind & QUALITY_CROWD) != 0;
        fprintf(out, "%s,%s,%" PRIu32 ",%d,%" PRIu32 ",%" PRIu64, m->slug,
                r->sc->name, r->agents, r->threads, r->threads_used,
                r->iterations);
        csv_number(out, r->ms_median, true);
        csv_number(out, r->ms_min, true);
        csv_number(out, r->ms_mean, true);
        csv_number(out, r->ns_per_agent_step, true);
        csv_number(out, r->neighbours_per_agent, true);
        csv_number(out, r->candidates_per_agent, true);
        csv_number(out, r->bytes_per_agent, true);
        csv_number(out, r->grid_ms, true);
        csv_number(out, r->behaviour_ms, true);
        csv_number(out, r->integrate_ms, true);
        fprintf(out, ",%s,%016" PRIx64 ",%" PRIu64 ",", r->simd, r->state_hash,
                r->nan_count);
        for (uint32_t k = 0; k < r->repeat_count; ++k) {
            char text[JSON_NUMBER_SIZE];
            fprintf(out, "%s%s", k > 0 ? ";" : "",
                    json_format_number(text, r->repeat_ms[k]));
        }
        csv_number(out, q->max_speed_ratio, true);
        csv_number(out, q->max_force_ratio, true);
        csv_number(out, q->mean_speed, flock);
        csv_number(out, q->polarisation, flock);
        csv_number(out, q->nearest_mean, flock);
        csv_number(out, (double)q->overlap_pairs, crowd);
        csv_number(out, q->overlap_share, crowd);
        csv_number(out, q->min_separation, crowd);
        csv_number(out, q->at_target_share, (q->kind & QUALITY_TARGET) != 0);
        csv_number(out, (double)q->sample, flock || crowd);
        csv_number(out, r->quality_ms, true);
        /* "OUT: pol,speed" holds a comma: that field is quoted. */
        fprintf(out, ",\"%s\"", r->check);
        csv_number(out, r->flock2d_ratio, true);
        bool motion = (q->kind & QUALITY_MOTION) != 0;
        csv_number(out, (double)q->overlap_sum, motion);
        csv_number(out, (double)q->deep_overlap_sum, motion);
        csv_number(out, q->deepest_overlap, motion);
        csv_number(out, q->closest_approach, motion);
        csv_number(out, (double)q->arrivals, motion);
        csv_number(out, (double)q->all_arrived_step,
                   motion && q->all_arrived_step >= 0);
        csv_number(out, (double)q->longest_stall, motion);
        bool deadline = motion && q->deadline_step >= 0;
        csv_number(out, (double)q->deadline_step, deadline);
        csv_number(out, q->on_time_share, deadline);
        bool evac = (q->kind & QUALITY_EVAC) != 0;
        csv_number(out, q->out_share, evac);
        csv_number(out, (double)q->evacuated_step,
                   evac && q->evacuated_step >= 0);
        csv_number(out, q->mean_exit_rate, evac);
        csv_number(out, q->specific_flow, evac);
        csv_number(out, (double)q->stuck_max, evac);
        csv_number(out, q->walk_speed, (q->kind & QUALITY_WALK) != 0);
        fputc('\n', out);
    }
}

/* ------------------------------------------------------------------------ */
/* SVG                                                                      */
/* ------------------------------------------------------------------------ */

bool plot_write(FILE *out, const options *opt, const machine *m,
                const result *results, size_t count) {
    plot_row *rows = calloc(count + 1, sizeof *rows);
    if (rows == NULL) {
        return false;
    }
    for (size_t i = 0; i < count; ++i) {
        rows[i].scenario = results[i].sc->name;
        rows[i].threads = results[i].threads;
        rows[i].agents = results[i].agents;
        rows[i].ms = results[i].ms_median;
    }
    char title[160];
    snprintf(title, sizeof title,
             "throng %d.%d.%d on %s: median ms per step against agents",
             THRONG_VERSION_MAJOR, THRONG_VERSION_MINOR, THRONG_VERSION_PATCH,
             m->slug);
    char subtitle[256];
    snprintf(subtitle, sizeof subtitle,
             "%s kernels; %" PRIu32 " counted steps after %" PRIu32
             " warm-up, %" PRIu32 " repeat%s; %s",
             count > 0 ? results[0].simd : "unknown", opt->steps, opt->warmup,
             opt->repeats, opt->repeats == 1 ? "" : "s", m->date);
    bool ok = plot_write_svg(out, rows, count, title, subtitle);
    free(rows);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Listing                                                                  */
/* ------------------------------------------------------------------------ */

void print_scenarios(FILE *out) {
    for (size_t i = 0; i < scenario_count(); ++i) {
        const scenario *sc = scenario_at(i);
        fprintf(out, "%-10s %s\n", sc->name, sc->description);
        fprintf(out, "%-10s   dimensions %d, dt %.6g s\n", "", sc->dimensions,
                (double)sc->dt);
        unsigned kind = quality_kind(sc);
        fprintf(out, "%-10s   quality: nan, v/vmax, F/Fmax%s%s%s%s%s\n", "",
                kind & QUALITY_FLOCK ? ", speed, pol, nn m" : "",
                kind & QUALITY_CROWD ? ", ovl%, sep m" : "",
                kind & QUALITY_TARGET ? ", goal%" : "",
                kind & QUALITY_MOTION
                    ? ", ovl sum, deep, depth%, close m, arrived, all@, stall"
                    : "",
                sc->deadline != NULL ? ", ontime%" : "");
        fprintf(out, "%-10s   pass: nan = 0, v/vmax <= 1, F/Fmax <= 1 (+%g)\n",
                "", QUALITY_LIMIT_SLACK);
        for (size_t k = 0; k < sc->range_count; ++k) {
            const scenario_range *g = &sc->ranges[k];
            fprintf(out,
                    "%-10s   pass: %-5s in [%g, %g] from step %" PRIu32
                    ": %s\n",
                    "", quality_figure_name(g->figure), g->min, g->max,
                    g->from_step, g->why);
        }
        for (size_t k = 0; k < sc->param_count; ++k) {
            const scenario_param *p = &sc->params[k];
            fprintf(out, "%-10s   %-18s %-9.6g %-12s %s\n", "", p->name,
                    p->value, p->unit, p->meaning);
        }
    }
}
