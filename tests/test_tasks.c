/* SPDX-License-Identifier: MIT */
/*
 * The host's task hooks (throng_world_def.enqueue_task, finish_task): a
 * step run on the host's workers must end in the state an OpenMP step
 * ends in, to the bit, whatever the number of workers and whatever order
 * the pool runs the ranges in; hooks that break their contract must get
 * the step refused, not a corrupted world; and the settings (the def, the
 * setter, set_threads beside them) must behave as the header says.
 *
 * The pool is the example's (examples/task_pool.h): a few pthreads and a
 * queue that hands ranges out first in first out, last in first out or
 * shuffled. It needs no OpenMP, so the OPENMP=0 build runs these tests in
 * parallel too.
 */
#include <string.h>

#include "../bench/scenarios.h"
#include "../examples/task_pool.h"
#include "runner.h"

/* How a scene runs: OpenMP threads (pool NULL), or on a pool. */
typedef struct run_spec {
    int threads;
    task_pool *pool;
} run_spec;

/* Builds a scenario, steps it and returns the state hash (0 when a call
 * failed, which is also reported). */
static uint64_t run_scene(const char *name, uint32_t agents, int steps,
                          run_spec spec) {
    const scenario *sc = scenario_find(name);
    throng_world *w = NULL;
    if (!sc || sc->build(agents, spec.threads, 11u, &w) != THRONG_OK) {
        runner_fail(__FILE__, __LINE__, "scenario %s did not build", name);
        return 0;
    }
    if (spec.pool && throng_world_set_task_hooks(
                         w, task_pool_enqueue, task_pool_finish, spec.pool,
                         spec.pool->workers) != THRONG_OK) {
        runner_fail(__FILE__, __LINE__, "%s: hooks refused: %s", name,
                    throng_world_last_error(w));
        throng_world_destroy(w);
        return 0;
    }
    if (!test_step_n(w, sc->dt, steps, name)) {
        throng_world_destroy(w);
        return 0;
    }
    throng_step_stats st;
    throng_world_stats(w, &st);
    if (spec.pool && st.threads != spec.pool->workers)
        runner_fail(__FILE__, __LINE__, "%s: stats say %u threads, pool has %u",
                    name, st.threads, spec.pool->workers);
    uint64_t h = throng_world_hash(w);
    throng_world_destroy(w);
    return h;
}

static const char *const order_names[] = { "fifo", "lifo", "shuffle" };

/* The scene on OpenMP at 1 and 2 threads, then on pools of 1 to 4
 * workers in every order: every hash must be the first. */
static void check_scene(const char *name, uint32_t agents, int steps) {
    uint64_t one = run_scene(name, agents, steps, (run_spec){ 1, NULL });
    REQUIRE(one != 0);
    uint64_t two = run_scene(name, agents, steps, (run_spec){ 2, NULL });
    CHECK(two == one);
    for (uint32_t workers = 1; workers <= 4; workers++) {
        for (int order = TASK_POOL_FIFO; order <= TASK_POOL_SHUFFLE; order++) {
            task_pool pool;
            REQUIRE(task_pool_start(&pool, workers, (task_pool_order)order,
                                    workers * 77u) == 0);
            uint64_t h = run_scene(name, agents, steps, (run_spec){ 0, &pool });
            task_pool_stop(&pool);
            if (h != one)
                runner_fail(__FILE__, __LINE__,
                            "%s: %u workers, %s order give %016llx, OpenMP "
                            "%016llx",
                            name, workers, order_names[order],
                            (unsigned long long)h, (unsigned long long)one);
            /* Every worker took part: the loops really were split (the
             * scenes are large enough for several items per loop). */
            for (uint32_t w = 0; w < workers && workers > 1; w++)
                if (pool.ranges_run[w] == 0)
                    runner_fail(__FILE__, __LINE__,
                                "%s: worker %u of %u ran nothing", name, w,
                                workers);
        }
    }
}

/* In a short run (runner_short(): under the sanitizers, AddressSanitizer
 * with UBSan or ThreadSanitizer, where these were among the slowest
 * tests, every3d 70 s of CPU; or THRONG_TEST_SHORT=1), each
 * scene runs a third of the steps: the same sizes, so every loop is still
 * split among every worker in every order, and every run must still end
 * in the OpenMP run's bits. The plain builds run the full count. */
#define TASKS_STEP_DIV (runner_short() ? 3 : 1)

/* Sizes that split every loop (the grid's sort into parts from 16k agents
 * up), steps enough for every behaviour and the wander to matter. */
TEST(tasks_flock2d) {
    check_scene("flock2d", 40000u, 12 / TASKS_STEP_DIV);
}
TEST(tasks_every2d) {
    check_scene("every2d", 3000u, 60 / TASKS_STEP_DIV);
}
TEST(tasks_every3d) {
    check_scene("every3d", 3000u, 60 / TASKS_STEP_DIV);
}

/* ------------------------------------------------------------------------ */
/* Hooks that break the contract                                            */
/* ------------------------------------------------------------------------ */

typedef enum broken_kind {
    BROKEN_SKIP_LAST,  /* never runs the last item */
    BROKEN_BAD_WORKER, /* passes worker_count as the index */
    BROKEN_TWICE,      /* runs the first item twice */
} broken_kind;

/* Hooks that run the task inline, and break it as `user` says. */
static void *broken_enqueue(throng_task_fn *task, uint32_t items,
                            uint32_t min_range, void *context, void *user) {
    (void)min_range;
    broken_kind kind = *(const broken_kind *)user;
    switch (kind) {
    case BROKEN_SKIP_LAST:
        task(0u, items - 1u, 0u, context);
        break;
    case BROKEN_BAD_WORKER:
        task(0u, items, 2u, context);
        break;
    case BROKEN_TWICE:
        task(0u, 1u, 0u, context);
        task(0u, items, 1u, context);
        break;
    }
    return NULL;
}

static void broken_finish(void *task, void *user) {
    (void)task;
    (void)user;
}

TEST(tasks_broken_hooks_refuse_the_step) {
    const scenario *sc = scenario_find("flock2d");
    REQUIRE(sc != NULL);
    for (int k = BROKEN_SKIP_LAST; k <= BROKEN_TWICE; k++) {
        broken_kind kind = (broken_kind)k;
        throng_world *w = NULL;
        REQUIRE(sc->build(2000u, 1, 3u, &w) == THRONG_OK);
        REQUIRE(throng_world_set_task_hooks(w, broken_enqueue, broken_finish,
                                            &kind, 2u) == THRONG_OK);
        uint64_t steps = throng_world_step_count(w);
        CHECK(throng_world_step(w, sc->dt) == THRONG_ERR_OUT_OF_RANGE);
        CHECK(strstr(throng_world_last_error(w), "task hooks") != NULL);
        CHECK(throng_world_step_count(w) == steps);
        /* The world still works once the hooks are gone. */
        CHECK(throng_world_set_task_hooks(w, NULL, NULL, NULL, 0u) ==
              THRONG_OK);
        CHECK(throng_world_step(w, sc->dt) == THRONG_OK);
        float p[3] = { 1.0f, 1.0f, 0.0f };
        throng_agent out[8];
        uint32_t n = 0;
        CHECK(throng_world_query_radius(w, p, 3.0f, out, 8u, &n, NULL) ==
              THRONG_OK);
        throng_world_destroy(w);
    }
}

/* ------------------------------------------------------------------------ */
/* Settings                                                                 */
/* ------------------------------------------------------------------------ */

static void *inline_enqueue(throng_task_fn *task, uint32_t items,
                            uint32_t min_range, void *context, void *user) {
    (void)min_range;
    (*(uint32_t *)user)++;
    task(0u, items, 0u, context);
    return NULL;
}

static void inline_finish(void *task, void *user) {
    (void)task;
    (void)user;
}

/* Hooks given in the def run the step; set_threads does not take them
 * away; removing them returns the step to OpenMP threads. */
TEST(tasks_def_and_setters) {
    uint32_t calls = 0;
    throng_world_def d = throng_world_def_default();
    d.enqueue_task = inline_enqueue;
    d.finish_task = inline_finish;
    d.task_context = &calls;
    d.worker_count = 3u;
    throng_world *w = NULL;
    REQUIRE(throng_world_create(&d, &w) == THRONG_OK);
    throng_agent_def a = throng_agent_def_default();
    for (int row = 0; row < 5; row++) {
        for (int col = 0; col < 10; col++) {
            a.position[0] = (float)col;
            a.position[1] = (float)row;
            throng_agent h;
            REQUIRE(throng_agent_add(w, &a, &h) == THRONG_OK);
        }
    }
    REQUIRE(throng_world_step(w, 0.05f) == THRONG_OK);
    CHECK(calls > 0);
    throng_step_stats st;
    throng_world_stats(w, &st);
    CHECK(st.threads == 3u);

    /* Threads are remembered for later, the hooks still run. */
    CHECK(throng_world_set_threads(w, 2) == THRONG_OK);
    uint32_t before = calls;
    REQUIRE(throng_world_step(w, 0.05f) == THRONG_OK);
    CHECK(calls > before);
    throng_world_stats(w, &st);
    CHECK(st.threads == 3u);

    /* Without hooks the world runs on its threads again. */
    CHECK(throng_world_set_task_hooks(w, NULL, NULL, NULL, 0u) == THRONG_OK);
    before = calls;
    REQUIRE(throng_world_step(w, 0.05f) == THRONG_OK);
    CHECK(calls == before);
    throng_world_stats(w, &st);
    CHECK(st.threads == 2u);

    /* A refused setter changes nothing. */
    CHECK(throng_world_set_task_hooks(w, inline_enqueue, NULL, &calls, 2u) ==
          THRONG_ERR_NULL);
    REQUIRE(throng_world_step(w, 0.05f) == THRONG_OK);
    CHECK(calls == before);
    throng_world_destroy(w);
}

/* A loaded world has no hooks (they are not saved) until it is given
 * them, and its steps then match the original's. */
TEST(tasks_loaded_world) {
    const scenario *sc = scenario_find("every2d");
    REQUIRE(sc != NULL);
    throng_world *w = NULL;
    REQUIRE(sc->build(1500u, 1, 5u, &w) == THRONG_OK);
    for (int s = 0; s < 5; s++)
        REQUIRE(throng_world_step(w, sc->dt) == THRONG_OK);
    size_t bytes = 0;
    throng_world_save(w, NULL, 0, &bytes);
    unsigned char *buffer = malloc(bytes);
    REQUIRE(buffer != NULL);
    REQUIRE(throng_world_save(w, buffer, bytes, NULL) == THRONG_OK);
    throng_world *loaded = NULL;
    REQUIRE(throng_world_load(buffer, bytes, NULL, &loaded) == THRONG_OK);
    free(buffer);
    task_pool pool;
    REQUIRE(task_pool_start(&pool, 2u, TASK_POOL_SHUFFLE, 9u) == 0);
    CHECK(throng_world_set_task_hooks(loaded, task_pool_enqueue,
                                      task_pool_finish, &pool,
                                      2u) == THRONG_OK);
    for (int s = 0; s < 20; s++) {
        CHECK(throng_world_step(w, sc->dt) == THRONG_OK);
        CHECK(throng_world_step(loaded, sc->dt) == THRONG_OK);
    }
    CHECK(throng_world_hash(w) == throng_world_hash(loaded));
    throng_world_destroy(loaded);
    task_pool_stop(&pool);
    throng_world_destroy(w);
}

void register_tasks_tests(void) {
    REGISTER(tasks_flock2d);
    REGISTER(tasks_every2d);
    REGISTER(tasks_every3d);
    REGISTER(tasks_broken_hooks_refuse_the_step);
    REGISTER(tasks_def_and_setters);
    REGISTER(tasks_loaded_world);
}
