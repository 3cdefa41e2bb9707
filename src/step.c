/* SPDX-License-Identifier: MIT */
/*
 * The step: a fixed pipeline of stages, each a parallel loop over
 * contiguous arrays.
 *
 *   1. grid       hash agents into cells, counting-sort, gather (grid.c)
 *   2. behaviours the fused neighbour walk (steer_flock.c and its vector
 *                 twins, steer_flock_simd.inc), the kernels of each
 *                 group's list (steer_agent.c, steer_route.c,
 *                 steer_env.c) and the combination (combine.c), run
 *                 per row at the end of the walk: one force per agent
 *                 in sorted order
 *   3. integrate  truncation, Euler, basis (integrate.c, and its vector
 *                 twin integrate_simd.inc), in dense order; where some
 *                 group avoids, in two halves with the velocity stage
 *                 between them (velocity.c); then, where some group
 *                 asks for it, contact resolution (contact.c)
 *
 * Navigation fields (nav_objects.c) are counted and rebuilt before the
 * first stage, and the agents that arrived at their goals are listed,
 * and removed when asked, after the last.
 *
 * Stage 2 reads only the state before the step and stage 3 writes it, so
 * no agent ever sees another's half-updated state.
 *
 * A build with VALIDATE=1 sweeps the world before the first stage and
 * after every stage (validate.c) and refuses the step, with
 * THRONG_ERR_INTERNAL and a sentence naming the check, when one fails.
 */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "busy.h"
#include "check.h"
#include "core.h"
#include "geometry.h"
#include "obstacle_grid.h"
#include "parallel.h"
#include "validate.h"
#include "agent.h"
#include "columns.h"
#include "integrate.h"
#include "kernel_paths.h"
#include "steer.h"
#include "steer_flock.h"
#include "velocity.h"
#include "contact.h"
#include "nav_objects.h"

/* The sweep after a stage, in a validating build; nothing otherwise. A
 * failed sweep ends the tick: the grid no longer describes anything the
 * next step could trust. A stage that the host's hooks cut short is not
 * swept: the step is refused for that (TASK_HOOKS_BROKEN). */
#ifdef THRONG_VALIDATE
#define VALIDATE_AFTER(w, sched, stage)                                   \
    do {                                                                  \
        throng_status validate_status_ =                                  \
            (sched)->failed ? THRONG_OK : validate_stage_sweep(w, stage); \
        if (validate_status_ != THRONG_OK) {                              \
            (w)->grid.valid = 0;                                          \
            return validate_status_;                                      \
        }                                                                 \
    } while (0)
#else
#define VALIDATE_AFTER(w, sched, stage) ((void)0)
#endif

/* Per-thread counters for this step's threads; allocated once. */
static int reserve_counters(throng_world *w, uint32_t threads) {
    if (threads <= w->counters_len)
        return 0;
    thread_counters *c = world_alloc(w, (size_t)threads * sizeof *c);
    if (!c)
        return 1;
    world_free(w, w->counters, (size_t)w->counters_len * sizeof *c);
    w->counters = c;
    w->counters_len = threads;
    return 0;
}

/* A canonical world's tie-breakers (world_ties()): 0, 1, 2, ... for
 * every row and the padding past them (tie_rows_bytes()); grown, never
 * shrunk. */
static int reserve_tie_rows(throng_world *w) {
    if (!w->canonical_order || w->count <= w->tie_rows_count)
        return 0;
    uint32_t *t = world_alloc(w, tie_rows_bytes(w->count));
    if (!t)
        return 1;
    for (uint32_t i = 0; i < w->count + COLUMN_PAD; i++)
        t[i] = i;
    world_free(w, w->tie_rows, tie_rows_bytes(w->tie_rows_count));
    w->tie_rows = t;
    w->tie_rows_count = w->count;
    return 0;
}

/* A tick's first part: everything before contact resolution (the grid,
 * the behaviours, the move). Its contact passes go to *passes and its
 * times to t[0..2]. */
static throng_status tick_move(throng_world *w, float dt, parallel_sched *sched,
                               const char *fn, uint32_t *passes, double t[3]) {
    const int threads = sched->threads;
    steer_resolve_end(w); /* a refused tick may have left them */
    VALIDATE_AFTER(w, sched, VALIDATE_BEFORE_STEP);
    double t0 = parallel_now();
    if (w->geo && geometry_prepare(w))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for the obstacle grid", fn);
    /* The path's kernels, on the first step (world creation chose the
     * path; the scratch below is sized for them). */
    if (!w->kernel)
        (void)world_use_simd(w, w->simd);
    /* Navigation fields count the crowd when due and are rebuilt where
     * out of date, from the state before the tick. */
    nav_prepare(w, sched);
    /* The velocity stage's scratch first: a refusal here leaves the
     * world as it was. */
    const int avoiding = velocity_needed(w);
    if (avoiding && velocity_reserve(w, (uint32_t)threads))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for the velocity stage", fn);
    const uint32_t contact = contact_passes(w);
    if (contact && contact_reserve(w))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for contact resolution", fn);
    /* Neighbour lists where the world asks for them and every stage may
     * read them (verlet.c), else the grid. */
    const int lists = avoiding && verlet_usable(w, contact);
    if (!lists)
        verlet_forget(&w->verlet); /* this tick's build moves the rows */
    if (reserve_counters(w, (uint32_t)threads) || reserve_tie_rows(w) ||
        (lists ? verlet_prepare(w, sched) : grid_build(w, sched, 1)))
        return world_fail(w, THRONG_ERR_OUT_OF_MEMORY,
                          "%s: no memory for the grid of %u agents", fn,
                          w->count);
    /* The behaviours walk cell ranges of the rows themselves, so the grid
     * must describe this very state, in cell order (unless the host's
     * hooks broke a loop of the build, which the step then refuses); with
     * lists, no behaviour walks. */
    INVARIANT(
        sched->failed || lists ||
            (w->grid.valid && w->grid.permuted && w->grid.count == w->count),
        "the behaviours start from a permuting build of every agent");
    INVARIANT((uint32_t)threads <= w->counters_len,
              "every thread of the step has its counters");
    VALIDATE_AFTER(w, sched, VALIDATE_GRID);
    memset(w->counters, 0, (size_t)threads * sizeof *w->counters);
    /* The vector kernels' last lanes may read past the count. */
    world_zero_tails(w);
    /* Behaviours that name another agent find its row through its slot;
     * every row's target row, and its slot's generation, are resolved
     * once here, in cell order, for the behaviours to load. */
    if (w->behaviour_state)
        world_links(w);
    steer_resolve_rows(w, sched);
    VALIDATE_AFTER(w, sched, VALIDATE_TAILS_AND_LINKS);
    double t1 = parallel_now();
    steer_flock(w, sched, dt);
    VALIDATE_AFTER(w, sched, VALIDATE_BEHAVIOURS);
    double t2 = parallel_now();
    if (avoiding)
        velocity_stage(w, sched, dt);
    else
        integrate(w, sched, dt);
    *passes = contact;
    t[0] = t0;
    t[1] = t1;
    t[2] = t2;
    return THRONG_OK;
}

/* A tick's last part, after contact resolution: the arrivals, the sweep,
 * the step count and the stats. */
static throng_status tick_end(throng_world *w, parallel_sched *sched,
                              const char *fn, const double times[3]) {
    const int threads = sched->threads;
    const double t0 = times[0], t1 = times[1], t2 = times[2];
    steer_resolve_end(w);
    /* Arrivals at navigation goals are listed, and removed when asked. */
    if (!sched->failed)
        nav_finish_tick(w);
    VALIDATE_AFTER(w, sched, VALIDATE_INTEGRATE);
    double t3 = parallel_now();
    if (sched->failed) {
        /* Some stage ran in part: the step cannot be finished, and the
         * grid no longer describes the agents. */
        w->grid.valid = 0;
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE, "%s: %s", fn,
                          TASK_HOOKS_BROKEN);
    }

    w->grid.valid = 0; /* agents moved */
    w->step++;
    throng_step_stats *s = &w->stats;
    s->step = w->step;
    s->ticks++;
    s->grid_seconds += t1 - t0;
    s->behaviour_seconds += t2 - t1;
    s->integrate_seconds += t3 - t2;
    s->total_seconds += t3 - t0;
    for (int t = 0; t < threads; t++) {
        s->candidates += w->counters[t].candidates;
        s->neighbours += w->counters[t].neighbours;
    }
    s->cells_occupied = w->grid.occupied;
    return THRONG_OK;
}

/* One tick of dt seconds; adds its times and counts to the stats. */
static throng_status world_tick(throng_world *w, float dt,
                                parallel_sched *sched) {
    static const char fn[] = "throng_world_step";
    uint32_t contact = 0;
    double t[3] = { 0.0, 0.0, 0.0 };
    throng_status st = tick_move(w, dt, sched, fn, &contact, t);
    if (st != THRONG_OK)
        return st;
    if (contact)
        contact_resolve(w, sched, contact, dt);
    return tick_end(w, sched, fn, t);
}

/* The ticks of one step, run inside the step's parallel session. */
typedef struct step_run {
    throng_world *w;
    float tick;
    uint32_t ticks;
    uint32_t done;        /* ticks completed */
    int threads;          /* threads the loops ran on */
    throng_status status; /* of the first tick that failed */
} step_run;

static void run_ticks(parallel_sched *sched, void *arg) {
    step_run *run = arg;
    INVARIANT(run->ticks >= 1 && run->ticks <= THRONG_MAX_SUBSTEPS,
              "a step runs 1 .. THRONG_MAX_SUBSTEPS ticks");
    run->threads = sched->threads;
    for (; run->done < run->ticks; run->done++) {
        run->status = world_tick(run->w, run->tick, sched);
        if (run->status != THRONG_OK)
            return;
    }
}

throng_status throng_world_step(throng_world *w, float dt) {
    static const char fn[] = "throng_world_step";
    WRITE_ENTRY(w);
    if (w->tick_open)
        return world_fail(w, THRONG_ERR_INVALID_ARG,
                          "%s: a staged tick is open "
                          "(throng_world_tick_finish ends it)",
                          fn);
    throng_status checked = check_scalar(w, fn, "dt", dt, 1);
    if (checked != THRONG_OK)
        return checked;
    /* A long dt runs as n equal ticks of at most max_dt; past max_substeps
     * ticks the time is clamped. The tick is computed once, so every tick
     * of a step integrates the same dt. */
    double total = (double)dt;
    const double longest = (double)w->max_dt * (double)w->max_substeps;
    if (total > longest)
        total = longest;
    uint32_t ticks = (uint32_t)ceil(total / (double)w->max_dt - 1e-9);
    ticks = ticks < 1u ? 1u : ticks;
    ticks = ticks > w->max_substeps ? w->max_substeps : ticks;
    const float tick = ticks == 1u && total == (double)dt
                           ? dt
                           : (float)(total / (double)ticks);
    parallel_sched sched = world_scheduler(w);
    const uint32_t saved_arrivals = w->nav_arrival_count;
    nav_start_step(w);
    throng_step_stats saved = w->stats;
    throng_step_stats *s = &w->stats;
    memset(s, 0, sizeof *s);
    /* Every tick's loops run in one session: one parallel region per step
     * rather than several per tick (parallel.c says why). */
    step_run run = { .w = w, .tick = tick, .ticks = ticks };
    parallel_session(&sched, w->count, run_ticks, &run);
    if (run.status != THRONG_OK) {
        /* Nothing changed when the first tick fails; the ticks before a
         * later failure stand. */
        if (run.done == 0) {
            w->stats = saved;
            w->nav_arrival_count = saved_arrivals;
        }
        return run.status;
    }
    s->agents = w->count;
    s->threads = (uint32_t)run.threads;
    s->simd = w->simd_name;
    s->simulated_seconds = (double)tick * (double)ticks;
    return THRONG_OK;
}

/* ------------------------------------------------------------------------ */
/* The staged tick                                                          */
/* ------------------------------------------------------------------------ */

/* One stage of a staged tick, run inside a parallel session of its own. */
enum {
    STAGE_MOVE,
    STAGE_CONTACT,
    STAGE_END
};

typedef struct stage_run {
    throng_world *w;
    const char *fn;
    float dt;
    int stage;
    uint32_t passes; /* STAGE_MOVE's contact passes */
    uint32_t moved;  /* STAGE_CONTACT's moved agents */
    int threads;
    throng_status status;
} stage_run;

static void run_stage(parallel_sched *sched, void *arg) {
    stage_run *run = arg;
    throng_world *w = run->w;
    run->threads = sched->threads;
    if (run->stage == STAGE_MOVE) {
        double t[3] = { 0.0, 0.0, 0.0 };
        run->status = tick_move(w, run->dt, sched, run->fn, &run->passes, t);
        w->tick_t0 = t[0];
        w->tick_t1 = t[1];
        w->tick_t2 = t[2];
    } else if (run->stage == STAGE_CONTACT) {
        run->moved = contact_pass(w, sched, &w->tick_contact);
        if (sched->failed)
            run->status = world_fail(w, THRONG_ERR_OUT_OF_RANGE, "%s: %s",
                                     run->fn, TASK_HOOKS_BROKEN);
    } else {
        const double t[3] = { w->tick_t0, w->tick_t1, w->tick_t2 };
        run->status = tick_end(w, sched, run->fn, t);
    }
}

/* A staged call's refusal when no tick is open. */
static throng_status no_open_tick(throng_world *w, const char *fn) {
    return world_fail(w, THRONG_ERR_INVALID_ARG,
                      "%s: no tick is open (throng_world_tick_begin opens one)",
                      fn);
}

throng_status throng_world_tick_begin(throng_world *w, float dt,
                                      uint32_t *out_passes) {
    static const char fn[] = "throng_world_tick_begin";
    WRITE_ENTRY(w);
    if (!out_passes)
        return null_fail(w, fn, "out_passes");
    if (w->tick_open)
        return world_fail(w, THRONG_ERR_INVALID_ARG,
                          "%s: a tick is open already "
                          "(throng_world_tick_finish ends it)",
                          fn);
    throng_status checked = check_scalar(w, fn, "dt", dt, 1);
    if (checked != THRONG_OK)
        return checked;
    parallel_sched sched = world_scheduler(w);
    const uint32_t saved_arrivals = w->nav_arrival_count;
    nav_start_step(w);
    throng_step_stats saved = w->stats;
    throng_step_stats *s = &w->stats;
    memset(s, 0, sizeof *s);
    stage_run run = { .w = w, .fn = fn, .dt = dt, .stage = STAGE_MOVE };
    parallel_session(&sched, w->count, run_stage, &run);
    if (run.status != THRONG_OK) {
        w->stats = saved;
        w->nav_arrival_count = saved_arrivals;
        return run.status;
    }
    s->agents = w->count;
    s->threads = (uint32_t)run.threads;
    s->simd = w->simd_name;
    s->simulated_seconds = (double)dt;
    contact_start(&w->tick_contact, run.passes, dt);
    w->tick_open = 1;
    *out_passes = run.passes;
    return THRONG_OK;
}

throng_status throng_world_tick_contact(throng_world *w, uint32_t *out_moved,
                                        bool *out_settles) {
    static const char fn[] = "throng_world_tick_contact";
    WRITE_ENTRY(w);
    if (!out_moved)
        return null_fail(w, fn, "out_moved");
    if (!out_settles)
        return null_fail(w, fn, "out_settles");
    if (!w->tick_open)
        return no_open_tick(w, fn);
    const contact_run *cr = &w->tick_contact;
    if (cr->pass >= cr->passes)
        return world_fail(w, THRONG_ERR_OUT_OF_RANGE,
                          "%s: the tick's %u contact passes have run", fn,
                          cr->passes);
    if (!w->grid.valid || w->grid.count != w->count)
        return world_fail(w, THRONG_ERR_INVALID_ARG,
                          "%s: agents were added, removed or moved since "
                          "throng_world_tick_begin other than by "
                          "throng_world_tick_set_positions",
                          fn);
    parallel_sched sched = world_scheduler(w);
    stage_run run = { .w = w, .fn = fn, .stage = STAGE_CONTACT };
    parallel_session(&sched, w->count, run_stage, &run);
    if (run.status != THRONG_OK)
        return run.status;
    *out_moved = run.moved;
    *out_settles = contact_settles(w, cr) != 0;
    return THRONG_OK;
}

throng_status throng_world_tick_finish(throng_world *w) {
    static const char fn[] = "throng_world_tick_finish";
    WRITE_ENTRY(w);
    if (!w->tick_open)
        return no_open_tick(w, fn);
    parallel_sched sched = world_scheduler(w);
    stage_run run = { .w = w, .fn = fn, .stage = STAGE_END };
    parallel_session(&sched, w->count, run_stage, &run);
    w->tick_open = 0;
    return run.status;
}
