/* SPDX-License-Identifier: MIT */
/*
 * The busy guard (src/busy.h): a call on a world while another call on the
 * same world is running is refused with THRONG_ERR_BUSY and changes
 * nothing, whether it comes from a callback of the running call (the
 * allocator, the task hooks) or from a second thread; calls that only
 * read may share a world; a callback may use another world freely.
 *
 * The re-entry tests run one scene twice, once with callbacks that call
 * back into their world (every kind of call, destroy included) and once
 * with the same callbacks quiet, and compare the state hashes: refused
 * calls must leave no trace, and the outer call must finish as if nothing
 * had happened. The thread tests run a fixed number of iterations and
 * keep a ledger: every call gives OK or BUSY, and the adds that succeeded
 * minus the removes that succeeded is the agent count at the end.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "object_defs.h"
#include "runner.h"

/* ------------------------------------------------------------------------ */
/* A callback that calls back into its world                                */
/* ------------------------------------------------------------------------ */

typedef struct probe {
    /* The world whose callbacks these are; NULL keeps the probe quiet. */
    throng_world *world;
    /* The outer call only reads the world: reads made from its callbacks
     * are allowed, writes are not. Otherwise everything is refused. */
    int reading;
    /* Another world the callback adds an agent to and steps, or NULL. */
    throng_world *other;
    throng_agent agent; /* a live agent of `world` */
    unsigned entries;   /* callbacks that probed */
    unsigned wrong;     /* inner calls that did not do what they should */
    unsigned other_ok;  /* rounds on `other` that succeeded */
    char first_wrong[96];
} probe;

static void probe_expect(probe *p, int ok, const char *what) {
    if (ok)
        return;
    if (p->wrong++ == 0)
        snprintf(p->first_wrong, sizeof p->first_wrong, "%s", what);
}

/* Every kind of call on the world the probe watches, then a round on the
 * other world. */
static void probe_run(probe *p) {
    throng_world *w = p->world;
    if (!w)
        return;
    p->world = NULL; /* the calls below must not probe again */
    p->entries++;
    const throng_status busy = THRONG_ERR_BUSY;
    const throng_status read = p->reading ? THRONG_OK : THRONG_ERR_BUSY;

    throng_agent_def def = throng_agent_def_default();
    def.host_key = 987654321u;
    throng_agent added = { .slot = 77u, .generation = 77u };
    probe_expect(p,
                 throng_agent_add(w, &def, &added) == busy &&
                     added.slot == 77u && added.generation == 77u,
                 "add");
    probe_expect(p, throng_world_step(w, 0.05f) == busy, "step");
    probe_expect(p, throng_agent_remove(w, p->agent) == busy, "remove");
    probe_expect(p, throng_agent_set_mass(w, p->agent, 3.0f) == busy,
                 "set_mass");
    throng_group group = { 12345u, 0u, 0u };
    throng_group_def gd = throng_group_def_default();
    probe_expect(
        p, throng_group_create(w, &gd, &group) == busy && group.id == 12345u,
        "group_create");
    const float centre[3] = { 0.0f, 0.0f, 0.0f };
    throng_object object = THRONG_NULL_OBJECT;
    probe_expect(
        p, add_sphere(w, centre, 1.0f, &object) == busy && object.id == 0u,
        "obstacle");
    throng_agent hits[4];
    uint32_t found = 4321u;
    probe_expect(p,
                 throng_world_query_radius(w, centre, 5.0f, hits, 4u, &found,
                                           NULL) == busy &&
                     found == 4321u,
                 "query");
    probe_expect(p, throng_world_set_threads(w, 2) == busy, "set_threads");

    float pos[3] = { -7.0f, -7.0f, -7.0f };
    throng_status st = throng_agent_get_position(w, p->agent, pos);
    probe_expect(p, st == read && (p->reading || pos[0] == -7.0f),
                 "get_position");
    uint64_t hash = throng_world_hash(w);
    probe_expect(p, p->reading ? hash != 0u : hash == 0u, "hash");
    uint32_t count = throng_world_agent_count(w);
    probe_expect(p, p->reading ? count > 0u : count == 0u, "agent_count");
    probe_expect(p, throng_agent_valid(w, p->agent) == (p->reading != 0),
                 "valid");
    throng_step_stats stats;
    probe_expect(p, throng_world_stats(w, &stats) == read, "stats");
    const char *error = throng_world_last_error(w);
    probe_expect(p, error && (p->reading || strstr(error, "busy")),
                 "last_error");
    /* Refused: the world is in use. The outer call then crashes on freed
     * memory if it was not. */
    throng_world_destroy(w);

    if (p->other) {
        def.host_key = 0u;
        def.position[0] = (float)p->entries;
        throng_agent other_agent;
        if (throng_agent_add(p->other, &def, &other_agent) == THRONG_OK &&
            throng_world_step(p->other, 0.05f) == THRONG_OK)
            p->other_ok++;
    }
    p->world = w;
}

static void *probe_alloc(size_t size, size_t alignment, void *user) {
    probe_run((probe *)user);
    return aligned_alloc(alignment, size);
}

static void probe_free(void *ptr, size_t size, void *user) {
    (void)size;
    probe_run((probe *)user);
    free(ptr);
}

/* Task hooks that run every item inline on worker 0, probing before and
 * after (finish_task is called: the handle is not NULL). */
static void *probe_enqueue(throng_task_fn *task, uint32_t item_count,
                           uint32_t min_range, void *task_context,
                           void *user_context) {
    (void)min_range;
    probe_run((probe *)user_context);
    task(0u, item_count, 0u, task_context);
    return user_context;
}

static void probe_finish(void *user_task, void *user_context) {
    (void)user_task;
    probe_run((probe *)user_context);
}

#define SCENE_AGENTS 200u

/* A flock of SCENE_AGENTS agents, each with a host key (so removing one
 * frees its key entry), allocating through the probe's allocator or
 * stepping on its task hooks. *keep is an agent the tests never remove. */
static throng_world *scene_make(probe *p, int hooks, throng_agent *keep) {
    throng_world_def d = throng_world_def_default();
    d.threads = 1;
    if (hooks) {
        d.enqueue_task = probe_enqueue;
        d.finish_task = probe_finish;
        d.task_context = p;
        d.worker_count = 1u;
    } else {
        d.allocator.alloc = probe_alloc;
        d.allocator.free = probe_free;
        d.allocator.user = p;
    }
    throng_world *w = NULL;
    if (throng_world_create(&d, &w) != THRONG_OK)
        return NULL;
    throng_group_def gd = throng_group_def_default();
    gd.flocking = throng_flocking_default();
    throng_group group = THRONG_NULL_GROUP;
    test_rng rng = test_rng_make(5u);
    throng_agent_def a = throng_agent_def_default();
    int ok = throng_group_create(w, &gd, &group) == THRONG_OK;
    for (uint32_t i = 0; ok && i < SCENE_AGENTS; i++) {
        a.position[0] = test_rng_range(&rng, 0.0f, 12.0f);
        a.position[1] = test_rng_range(&rng, 0.0f, 12.0f);
        a.velocity[0] = test_rng_range(&rng, -1.0f, 1.0f);
        a.velocity[1] = test_rng_range(&rng, -1.0f, 1.0f);
        a.group = group;
        a.host_key = 1000u + i;
        throng_agent h;
        ok = throng_agent_add(w, &a, &h) == THRONG_OK;
        if (i == 0u)
            *keep = h;
    }
    if (!ok) {
        throng_world_destroy(w);
        return NULL;
    }
    return w;
}

/* The calls the re-entry tests make on a scene: steps, an add that
 * allocates its key entry, a remove that frees one, a move and a query
 * (which rebuilds the grid). Returns false when one was not OK. */
static bool scene_drive(throng_world *w) {
    bool ok = throng_world_step(w, 0.05f) == THRONG_OK;
    throng_agent_def a = throng_agent_def_default();
    a.position[0] = 3.0f;
    a.host_key = 50000u;
    throng_agent h;
    ok = ok && throng_agent_add(w, &a, &h) == THRONG_OK;
    throng_agent victim;
    ok = ok && throng_agent_find(w, 1005u, &victim) == THRONG_OK &&
         throng_agent_remove(w, victim) == THRONG_OK;
    const float to[3] = { 6.0f, 6.0f, 0.0f };
    ok = ok && throng_agent_set_position(w, h, to) == THRONG_OK;
    throng_agent hits[SCENE_AGENTS + 1u];
    uint32_t found = 0u;
    ok = ok &&
         throng_world_query_radius(w, to, 2.0f, hits, SCENE_AGENTS + 1u, &found,
                                   NULL) == THRONG_OK &&
         found > 0u;
    for (int s = 0; ok && s < 3; s++)
        ok = throng_world_step(w, 0.05f) == THRONG_OK;
    return ok;
}

/* The scene driven with a probing callback and with a quiet twin: the
 * inner calls are refused, and the two end in the same state. */
static void check_reentry(int hooks) {
    probe loud, quiet;
    memset(&loud, 0, sizeof loud);
    memset(&quiet, 0, sizeof quiet);
    throng_agent keep_loud, keep_quiet;
    throng_world *w = scene_make(&loud, hooks, &keep_loud);
    throng_world *twin = scene_make(&quiet, hooks, &keep_quiet);
    REQUIRE(w && twin);
    /* A refusal whose sentence the BUSY refusals must leave in place. */
    CHECK_STATUS(throng_world_step(w, -1.0f), THRONG_ERR_OUT_OF_RANGE);
    char sentence[256];
    snprintf(sentence, sizeof sentence, "%s", throng_world_last_error(w));

    loud.world = w;
    loud.agent = keep_loud;
    CHECK(scene_drive(w));
    loud.world = NULL;
    CHECK(scene_drive(twin));

    CHECK(loud.entries >= 6u);
    CHECK_EQ_INT(loud.wrong, 0);
    if (loud.wrong)
        printf("  first call not refused: %s\n", loud.first_wrong);
    CHECK_EQ_INT(quiet.entries, 0);
    CHECK_EQ_U64(throng_world_hash(w), throng_world_hash(twin));
    CHECK_EQ_INT(throng_world_agent_count(w), SCENE_AGENTS);
    CHECK_EQ_INT(throng_world_step_count(w), 4);
    CHECK(throng_agent_valid(w, keep_loud));
    CHECK(strcmp(throng_world_last_error(w), sentence) == 0);
    throng_world_destroy(w);
    throng_world_destroy(twin);
}

/* Re-entry from the allocator: a step (grid growth), an add (its key
 * entry), a remove (the freed entry), a query (the grid it builds). */
TEST(busy_reentry_allocator) {
    check_reentry(0);
}

/* Re-entry from the task hooks, which run host code in the middle of a
 * step or a query. */
TEST(busy_reentry_task_hooks) {
    check_reentry(1);
}

/* A callback of a call that only reads (a save's buffer) may read the
 * world; its writes are refused. */
TEST(busy_reentry_during_read) {
    probe p;
    memset(&p, 0, sizeof p);
    throng_agent keep;
    throng_world *w = scene_make(&p, 0, &keep);
    REQUIRE(w != NULL);
    uint64_t hash = throng_world_hash(w);
    char path[256];
    snprintf(path, sizeof path, "/tmp/throng-test-busy-%ld.bin",
             (long)getpid());
    p.world = w;
    p.reading = 1;
    p.agent = keep;
    CHECK_OK(throng_world_save_file(w, path));
    p.world = NULL;
    CHECK(p.entries >= 2u);
    CHECK_EQ_INT(p.wrong, 0);
    if (p.wrong)
        printf("  first wrong inner call: %s\n", p.first_wrong);
    CHECK_EQ_U64(throng_world_hash(w), hash);
    throng_world *copy = NULL;
    CHECK_OK(throng_world_load_file(path, NULL, &copy));
    CHECK_EQ_U64(throng_world_hash(copy), hash);
    remove(path);
    throng_world_destroy(copy);
    throng_world_destroy(w);
}

/* A callback may use another world: every round on it succeeds and
 * leaves it where the same calls made directly leave a third world. */
TEST(busy_other_world_in_callback) {
    throng_world_def d = throng_world_def_default();
    throng_world *other = NULL, *direct = NULL;
    REQUIRE_OK(throng_world_create(&d, &other));
    REQUIRE_OK(throng_world_create(&d, &direct));
    probe p;
    memset(&p, 0, sizeof p);
    throng_agent keep;
    throng_world *w = scene_make(&p, 0, &keep);
    REQUIRE(w != NULL);
    p.world = w;
    p.agent = keep;
    p.other = other;
    CHECK_OK(throng_world_step(w, 0.05f));
    p.world = NULL;
    CHECK(p.entries > 0u);
    CHECK_EQ_INT(p.other_ok, p.entries);
    CHECK_EQ_INT(throng_world_agent_count(other), p.entries);
    for (unsigned k = 1; k <= p.entries; k++) {
        throng_agent_def a = throng_agent_def_default();
        a.position[0] = (float)k;
        throng_agent h;
        CHECK_OK(throng_agent_add(direct, &a, &h));
        CHECK_OK(throng_world_step(direct, 0.05f));
    }
    CHECK_EQ_U64(throng_world_hash(other), throng_world_hash(direct));
    throng_world_destroy(w);
    throng_world_destroy(other);
    throng_world_destroy(direct);
}

/* ------------------------------------------------------------------------ */
/* Two threads on one world                                                 */
/* ------------------------------------------------------------------------ */

/* Waits until both threads of a test are running, so their calls
 * overlap from the first. */
static void test_start_together(atomic_int *ready) {
    atomic_fetch_add(ready, 1);
    while (atomic_load(ready) < 2)
        ;
}

#define HAMMER_ITERATIONS 20000u
#define HAMMER_MAX_OWN 512u
#define HAMMER_BASE_AGENTS 100u

typedef struct hammer {
    throng_world *w;
    atomic_int *ready; /* threads running; both start at 2 */
    int stepper;       /* steps, adds, removes; else reads and writes */
    uint64_t seed;
    throng_agent base[HAMMER_BASE_AGENTS]; /* live throughout */
    throng_agent own[HAMMER_MAX_OWN];      /* added by this thread */
    uint32_t own_count;
    unsigned calls, adds, removes, steps, step_ops, busy, wrong;
    unsigned refused_in_row;
    throng_status first_wrong;
} hammer;

static void hammer_note(hammer *h, throng_status st) {
    h->calls++;
    if (st == THRONG_ERR_BUSY) {
        h->busy++;
        return;
    }
    h->refused_in_row = 0u;
    if (st != THRONG_OK) {
        if (h->wrong++ == 0)
            h->first_wrong = st;
    }
}

/* Between retries: every 64th refusal in a row gives the processor up,
 * in case the other thread was descheduled while it held the world (the
 * machine may be busier than its two threads). Returns true. */
static bool hammer_pause(hammer *h) {
    if (++h->refused_in_row % 64u == 0u)
        sched_yield();
    return true;
}

static void hammer_add(hammer *h, test_rng *rng, uint64_t key) {
    if (h->own_count == HAMMER_MAX_OWN)
        return;
    throng_agent_def a = throng_agent_def_default();
    a.position[0] = test_rng_range(rng, 0.0f, 10.0f);
    a.position[1] = test_rng_range(rng, 0.0f, 10.0f);
    a.host_key = key;
    throng_agent got;
    /* Retried until it is let in, as steps are, so both threads add. */
    throng_status st;
    do {
        st = throng_agent_add(h->w, &a, &got);
        hammer_note(h, st);
    } while (st == THRONG_ERR_BUSY && hammer_pause(h));
    if (st == THRONG_OK) {
        h->own[h->own_count++] = got;
        h->adds++;
    }
}

static void hammer_remove(hammer *h, test_rng *rng) {
    if (h->own_count == 0u)
        return;
    uint32_t k = test_rng_below(rng, h->own_count);
    throng_status st = throng_agent_remove(h->w, h->own[k]);
    hammer_note(h, st);
    if (st == THRONG_OK) {
        h->own[k] = h->own[--h->own_count];
        h->removes++;
    }
}

static void *hammer_run(void *arg) {
    hammer *h = arg;
    test_rng rng = test_rng_make(h->seed);
    test_start_together(h->ready);
    for (unsigned it = 0; it < HAMMER_ITERATIONS; it++) {
        uint64_t key = (h->seed << 32) | (it + 1u);
        uint32_t op = test_rng_below(&rng, h->stepper ? 3u : 6u);
        if (h->stepper) {
            if (op == 0u) {
                /* Retried until it runs: the other thread, which never
                 * pauses, could otherwise keep every step out, and
                 * legitimately so. */
                throng_status st;
                do {
                    st = throng_world_step(h->w, 0.02f);
                    hammer_note(h, st);
                } while (st == THRONG_ERR_BUSY && hammer_pause(h));
                h->steps += st == THRONG_OK;
                h->step_ops++;
            } else if (op == 1u) {
                hammer_add(h, &rng, key);
            } else {
                hammer_remove(h, &rng);
            }
            continue;
        }
        throng_agent who = h->base[test_rng_below(&rng, HAMMER_BASE_AGENTS)];
        float p[3];
        throng_step_stats stats;
        switch (op) {
        case 0:
            hammer_note(h, throng_agent_get_position(h->w, who, p));
            break;
        case 1:
            (void)throng_world_hash(h->w);
            hammer_note(h, throng_world_stats(h->w, &stats));
            break;
        case 2:
            hammer_note(h, throng_agent_set_mass(h->w, who, 1.5f));
            break;
        case 3:
            hammer_add(h, &rng, key);
            break;
        case 4:
            hammer_remove(h, &rng);
            break;
        default:
            (void)throng_world_agent_count(h->w);
            hammer_note(h, throng_agent_get_velocity(h->w, who, p));
            break;
        }
    }
    return NULL;
}

/* One thread steps, adds and removes while the other reads and writes:
 * nothing crashes, every call gives OK or BUSY, the ledger balances.
 * Steps and adds are retried until let in, so both threads make
 * progress whatever the scheduling; removes and the other calls are
 * tried once. */
TEST(busy_two_threads_hammer) {
    throng_world_def d = throng_world_def_default();
    d.threads = 1;
    throng_world *w = NULL;
    REQUIRE_OK(throng_world_create(&d, &w));
    atomic_int ready = 0;
    hammer h[2];
    memset(h, 0, sizeof h);
    test_rng rng = test_rng_make(3u);
    for (uint32_t i = 0; i < HAMMER_BASE_AGENTS; i++) {
        throng_agent_def a = throng_agent_def_default();
        a.position[0] = test_rng_range(&rng, 0.0f, 10.0f);
        a.position[1] = test_rng_range(&rng, 0.0f, 10.0f);
        REQUIRE_OK(throng_agent_add(w, &a, &h[0].base[i]));
        h[1].base[i] = h[0].base[i];
    }
    pthread_t threads[2];
    for (int t = 0; t < 2; t++) {
        h[t].w = w;
        h[t].ready = &ready;
        h[t].stepper = t == 0;
        h[t].seed = 11u + (uint64_t)t;
        REQUIRE(pthread_create(&threads[t], NULL, hammer_run, &h[t]) == 0);
    }
    for (int t = 0; t < 2; t++)
        pthread_join(threads[t], NULL);

    for (int t = 0; t < 2; t++) {
        CHECK_EQ_INT(h[t].wrong, 0);
        if (h[t].wrong)
            printf("  thread %d: first other status %d\n", t,
                   (int)h[t].first_wrong);
        for (uint32_t k = 0; k < h[t].own_count; k++)
            CHECK(throng_agent_valid(w, h[t].own[k]));
    }
    uint32_t expected = HAMMER_BASE_AGENTS + h[0].adds + h[1].adds -
                        h[0].removes - h[1].removes;
    CHECK_EQ_INT(throng_world_agent_count(w), expected);
    CHECK_EQ_INT(h[0].own_count + h[1].own_count + HAMMER_BASE_AGENTS,
                 expected);
    CHECK_EQ_U64(throng_world_step_count(w), h[0].steps);
    CHECK(h[0].step_ops > 0u && h[0].adds > 0u && h[1].adds > 0u);
    CHECK_EQ_INT(h[0].steps, h[0].step_ops);
    printf("busy: two threads, %u of %u calls refused as busy\n",
           h[0].busy + h[1].busy, h[0].calls + h[1].calls);
    /* The world is whole: it steps, and every handle still reads. */
    CHECK_OK(throng_world_step(w, 0.02f));
    float p[3];
    for (uint32_t i = 0; i < HAMMER_BASE_AGENTS; i++)
        CHECK_OK(throng_agent_get_position(w, h[0].base[i], p));
    throng_world_destroy(w);
}

#define READER_ITERATIONS 20000u
#define READER_AGENTS 300u

typedef struct reader {
    const throng_world *w;
    atomic_int *ready; /* threads running; both start at 2 */
    const throng_agent *agents;
    const float *x; /* each agent's x, read before the threads ran */
    uint64_t seed;
    uint64_t hash;      /* the first hash this thread computed */
    unsigned ok, other; /* calls that gave OK, and anything else */
    unsigned mismatches;
} reader;

static void *reader_run(void *arg) {
    reader *r = arg;
    test_rng rng = test_rng_make(r->seed);
    test_start_together(r->ready);
    for (unsigned it = 0; it < READER_ITERATIONS; it++) {
        uint32_t k = test_rng_below(&rng, READER_AGENTS);
        float p[3];
        throng_status st = throng_agent_get_position(r->w, r->agents[k], p);
        r->ok += st == THRONG_OK;
        r->other += st != THRONG_OK;
        if (st == THRONG_OK && p[0] != r->x[k])
            r->mismatches++;
        uint32_t index = 0u;
        st = throng_agent_index(r->w, r->agents[k], &index);
        r->ok += st == THRONG_OK;
        r->other += st != THRONG_OK;
        if (it % 1024u == 0u) {
            uint64_t hash = throng_world_hash(r->w);
            if (r->hash == 0u)
                r->hash = hash;
            r->mismatches += hash != r->hash;
        }
    }
    return NULL;
}

/* Two threads reading one world share it: every call succeeds and reads
 * the right values. Each round starts right after a step, which moved the
 * rows and left the slot links stale, so the first reads of both threads
 * bring the links up to date at the same time. */
TEST(busy_two_threads_read) {
    throng_world_def d = throng_world_def_default();
    d.threads = 1;
    throng_world *w = NULL;
    REQUIRE_OK(throng_world_create(&d, &w));
    throng_agent agents[READER_AGENTS];
    float x[READER_AGENTS];
    test_rng rng = test_rng_make(9u);
    for (uint32_t i = 0; i < READER_AGENTS; i++) {
        throng_agent_def a = throng_agent_def_default();
        a.position[0] = test_rng_range(&rng, 0.0f, 15.0f);
        a.position[1] = test_rng_range(&rng, 0.0f, 15.0f);
        a.velocity[0] = 0.5f;
        REQUIRE_OK(throng_agent_add(w, &a, &agents[i]));
    }
    for (int round = 0; round < 4; round++) {
        REQUIRE_OK(throng_world_step(w, 0.05f));
        /* The expected positions, row by row: neither the columns nor
         * throng_agent_at look at the links. Slots were handed out in
         * order and none was freed, so agent k holds slot k + 1. */
        throng_columns col;
        REQUIRE_OK(throng_world_columns(w, &col));
        REQUIRE(col.count == READER_AGENTS);
        for (uint32_t row = 0; row < col.count; row++) {
            throng_agent h;
            REQUIRE_OK(throng_agent_at(w, row, &h));
            REQUIRE(h.slot >= 1u && h.slot <= READER_AGENTS);
            REQUIRE(test_handle_eq(h, agents[h.slot - 1u]));
            x[h.slot - 1u] = col.px[row];
        }
        atomic_int ready = 0;
        reader r[2];
        memset(r, 0, sizeof r);
        pthread_t threads[2];
        for (int t = 0; t < 2; t++) {
            r[t].w = w;
            r[t].ready = &ready;
            r[t].agents = agents;
            r[t].x = x;
            r[t].seed = 100u + (uint64_t)(round * 2 + t);
            REQUIRE(pthread_create(&threads[t], NULL, reader_run, &r[t]) == 0);
        }
        for (int t = 0; t < 2; t++)
            pthread_join(threads[t], NULL);
        uint64_t hash = throng_world_hash(w);
        for (int t = 0; t < 2; t++) {
            CHECK_EQ_INT(r[t].ok, 2u * READER_ITERATIONS);
            CHECK_EQ_INT(r[t].other, 0);
            CHECK_EQ_INT(r[t].mismatches, 0);
            CHECK_EQ_U64(r[t].hash, hash);
        }
    }
    throng_world_destroy(w);
}

void register_busy_tests(void) {
    REGISTER(busy_reentry_allocator);
    REGISTER(busy_reentry_task_hooks);
    REGISTER(busy_reentry_during_read);
    REGISTER(busy_other_world_in_callback);
    REGISTER(busy_two_threads_hammer);
    REGISTER(busy_two_threads_read);
}
