/* SPDX-License-Identifier: MIT */
/*
 * The distributed world's tests, one program run under mpiexec on any
 * number of ranks (mpi/run_tests.sh runs them on 1 to 4, `make MPI=1
 * mpi-test`):
 *
 *   reference SCENE AGENTS STEPS [--state-only]
 *                                       the single-process hash: one
 *                                       throng_world, canonical order
 *   run SCENE AGENTS STEPS THREADS [--expect HASH] [--rebalance K]
 *       [--save-at S PREFIX] [--load PREFIX] [--state-only]
 *                                       the distributed run's hash,
 *                                       checked against HASH; with
 *                                       --rebalance, no rank holds more
 *                                       than 1.25 times its share
 *   errors                              bad input refused on every rank
 *   lookup                              handles through migrations
 *
 * SCENE is a bench scenario (flock2d, every2d, cluster2d, ...), churn2d
 * (every2d with agents removed and added every 50 steps), lattice2d and
 * orca2d (flock2d through ORCA), or nav2d (exits2d with a second,
 * counting field: see build_scene); SCENE/K runs K ticks a step (K times
 * the scene's dt, past the world's max_dt). The hash is the state's and the navigation arrivals'
 * (every step's, in tick and key order); --state-only, the state's
 * alone (a run continued from a snapshot saw only the later arrivals). Every run prints one line
 * on rank 0 and exits 0 only when every rank passed.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bench/scenarios.h"
#include "throng_mpi.h"

static int rank_, size_;
static int failures;

#define EXPECT(cond, ...)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            fprintf(stderr, "rank %d: %s:%d: ", rank_, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                          \
        }                                                                   \
    } while (0)

/* The churn: every CHURN_EVERY steps (at steps 25, 75, ...), the live
 * agents whose key is k mod CHURN_MOD == the event's number leave, and as
 * many new ones arrive, their keys counting on from the last. */
#define CHURN_EVERY 50u
#define CHURN_MOD 40u

typedef struct scene {
    const char *name; /* the bench scenario */
    int churn;
    uint32_t agents;
    float dt;
    float box;         /* the periodic box edge */
    uint32_t group_id; /* the new agents' group */
    uint32_t group_gen;
    throng_object stair_field; /* nav2d: the stairwell's field */
    int nav;
    /* The arrivals at navigation goals so far: a digest of every one (in
     * tick and then host key order), and how many, and removed. */
    uint64_t arrival_hash;
    uint32_t arrivals, removed;
    /* Keys 1 .. next_key - 1 have been used; live[k] says which live. */
    uint64_t next_key;
    unsigned char *live;
    size_t live_cap;
} scene;

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

/* nav2d's second field: a stairwell in the middle of the exits2d room (a
 * goal box 2 m a side about (7.5, 10) m, where the ranks' boxes meet, so
 * ghosts arrive there too), counting the crowd every 5 steps at 2 m^2
 * per agent, so it is rebuilt from the density as the crowd moves. */
static throng_object nav_stair_field(throng_world *w) {
    throng_nav_goal goal;
    memset(&goal, 0, sizeof goal);
    goal.kind = THRONG_NAV_GOAL_BOX;
    goal.a[0] = 6.5f;
    goal.a[1] = 9.0f;
    goal.b[0] = 8.5f;
    goal.b[1] = 11.0f;
    throng_nav_field_def d = throng_nav_field_def_default();
    d.origin[0] = -3.0f;
    d.origin[1] = -0.5f;
    d.cell_size = 0.5f;
    d.size[0] = 72;
    d.size[1] = 42;
    d.goals = &goal;
    d.goal_count = 1;
    d.clearance = 0.2f;
    d.density_interval = 5;
    d.density_radius = 1.0f;
    d.density_cost = 2.0f;
    throng_object f = THRONG_NULL_OBJECT;
    EXPECT(throng_nav_field_add(w, &d, &f) == THRONG_OK, "stairwell field: %s",
           throng_world_last_error(w));
    return f;
}

static throng_world *build_scene(scene *sc, const char *name, uint32_t agents,
                                 int threads) {
    memset(sc, 0, sizeof *sc);
    /* NAME/K: each step runs K ticks (K times the scene's dt, above the
     * world's max_dt). */
    static char base[64];
    uint32_t ticks = 1;
    const char *slash = strchr(name, '/');
    if (slash) {
        snprintf(base, sizeof base, "%.*s", (int)(slash - name), name);
        ticks = (uint32_t)strtoul(slash + 1, NULL, 10);
        ticks = ticks ? ticks : 1u;
        name = base;
    }
    sc->churn = strcmp(name, "churn2d") == 0;
    sc->nav = strcmp(name, "nav2d") == 0;
    const int lattice = strcmp(name, "lattice2d") == 0;
    const int orca = lattice || strcmp(name, "orca2d") == 0;
    const int nav = strcmp(name, "nav2d") == 0;
    sc->name = sc->churn ? "every2d"
               : orca    ? "flock2d"
               : nav     ? "exits2d"
                         : name;
    sc->agents = agents;
    const scenario *s = scenario_find(sc->name);
    throng_world *w = NULL;
    if (!s || s->build(agents, threads, 7u, &w) != THRONG_OK) {
        EXPECT(0, "scenario %s did not build", sc->name);
        return NULL;
    }
    sc->dt = s->dt * (float)ticks;
    sc->box = (float)scenario_box_edge(s, agents);
    const uint32_t n = throng_world_agent_count(w);
    for (uint32_t i = 0; i < n; i++) {
        throng_agent a;
        throng_agent_at(w, i, &a);
        throng_agent_set_host_key(w, a, (uint64_t)i + 1u);
        if (i == 0) {
            throng_group g;
            throng_agent_get_group(w, a, &g);
            sc->group_id = g.id;
            sc->group_gen = g.generation;
            /* orca2d: the flock's velocities through ORCA, the 10
             * nearest within the neighbour radius, and four passes of
             * contact resolution. */
            throng_avoidance av;
            throng_group_get_avoidance(w, g, &av);
            av.mode = THRONG_AVOIDANCE_ORCA;
            av.contact_iterations = 0;
            if (orca)
                EXPECT(throng_group_set_avoidance(w, g, &av) == THRONG_OK,
                       "avoidance: %s", throng_world_last_error(w));
            /* lattice2d: the same on a square lattice of exact
             * coordinates (multiples of 1/8 m), the flock capped at its 6
             * nearest: neighbours at equal distances everywhere, so
             * which of them the cap and ORCA keep, and how they break the
             * tie, must not depend on the ranks. */
            throng_flocking fl;
            throng_group_get_flocking(w, g, &fl);
            fl.max_neighbours = 6;
            if (lattice)
                EXPECT(throng_group_set_flocking(w, g, &fl) == THRONG_OK,
                       "flocking: %s", throng_world_last_error(w));
            /* nav2d: exits2d without contact resolution (not distributed
             * yet), and a second field leading to a stairwell. */
            if (nav) {
                EXPECT(throng_group_set_avoidance(w, g, &av) == THRONG_OK,
                       "avoidance: %s", throng_world_last_error(w));
                sc->stair_field = nav_stair_field(w);
            }
        }
        /* Every seventh walker heads for the stairwell on a field of its
         * own, which migrates with it. */
        if (nav && i % 7u == 3u)
            EXPECT(throng_agent_set_nav_field(w, a, sc->stair_field) ==
                       THRONG_OK,
                   "nav field: %s", throng_world_last_error(w));
        if (lattice) {
            const uint32_t side = (uint32_t)ceil(sqrt((double)n));
            const float pitch = floorf(sc->box / (float)side * 8.0f) / 8.0f;
            const float p[3] = { pitch * (float)(i % side),
                                 pitch * (float)(i / side), 0.0f };
            EXPECT(throng_agent_set_position(w, a, p) == THRONG_OK,
                   "position: %s", throng_world_last_error(w));
        }
    }
    sc->next_key = (uint64_t)n + 1u;
    sc->live_cap = (size_t)n * 4u + 64u;
    sc->live = calloc(sc->live_cap, 1);
    for (uint32_t i = 1; i <= n; i++)
        sc->live[i] = 1;
    return w;
}

static uint64_t mix64(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return h;
}

static uint64_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static int cmp_arrival_key(const void *a, const void *b) {
    const throng_nav_arrival *x = a, *y = b;
    return x->host_key < y->host_key ? -1 : x->host_key > y->host_key;
}

/* Adds a step's arrivals (one tick a step: ordered by key) to the
 * digest: key, field, goal, removal and position of each. */
static void digest_arrivals(scene *sc, const throng_nav_arrival *a,
                            uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        uint64_t h = mix64(sc->arrival_hash, a[i].host_key);
        h = mix64(h, ((uint64_t)a[i].field.id << 32) | a[i].field.generation);
        h = mix64(h, ((uint64_t)a[i].goal << 1) | (a[i].removed ? 1u : 0u));
        for (int k = 0; k < 3; k++)
            h = mix64(h, bits_of(a[i].position[k]));
        sc->arrival_hash = h;
        sc->arrivals++;
        sc->removed += a[i].removed ? 1u : 0u;
    }
}

/* The hash a run is compared by: the state's, and the arrivals'. */
static uint64_t run_hash(const scene *sc, uint64_t state) {
    return mix64(state, sc->arrival_hash);
}

/* nav2d's change of costs half way (before step `steps` / 2): the
 * stairwell field's cells from x 10 to 20 m cost 3, on every rank as in
 * one world. */
static float *nav_costs(const throng_world *w, const scene *sc) {
    throng_nav_field_info info;
    throng_object f = sc->stair_field; /* the same id in every copy */
    f.world = throng_world_id(w);
    if (throng_nav_field_get(w, f, &info) != THRONG_OK)
        return NULL;
    float *c = malloc(info.cells * sizeof *c);
    for (uint64_t i = 0; c && i < info.cells; i++) {
        const double x =
            (double)info.def.origin[0] +
            ((double)(i % info.def.size[0]) + 0.5) * (double)info.def.cell_size;
        c[i] = x > 10.0 && x < 20.0 ? 3.0f : 1.0f;
    }
    return c;
}

/* A number from a key, for the new agents' start. */
static double unit(uint64_t key, uint64_t salt) {
    uint64_t x = key * 0x9E3779B97F4A7C15ull + salt;
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return (double)(x >> 11) / 9007199254740992.0;
}

/* The churn event before step `step` (0-based), if any: the keys that
 * leave and the defs that arrive (group handle without its world). */
static uint32_t churn_event(scene *sc, uint64_t step, uint64_t **leave,
                            uint32_t *nleave, throng_agent_def **arrive) {
    *nleave = 0;
    if (!sc->churn || step % CHURN_EVERY != CHURN_EVERY / 2)
        return 0;
    const uint64_t event = step / CHURN_EVERY;
    *leave = malloc(sc->next_key * sizeof **leave);
    for (uint64_t k = 1; k < sc->next_key; k++)
        if (sc->live[k] && k % CHURN_MOD == event % CHURN_MOD) {
            (*leave)[(*nleave)++] = k;
            sc->live[k] = 0;
        }
    const uint32_t n = *nleave;
    *arrive = calloc(n ? n : 1, sizeof **arrive);
    for (uint32_t i = 0; i < n; i++) {
        throng_agent_def d = throng_agent_def_default();
        const uint64_t key = sc->next_key++;
        d.host_key = key;
        d.position[0] = (float)(unit(key, 1) * (double)sc->box);
        d.position[1] = (float)(unit(key, 2) * (double)sc->box);
        d.velocity[0] = (float)(unit(key, 3) - 0.5);
        d.velocity[1] = (float)(unit(key, 4) - 0.5);
        d.group.id = sc->group_id;
        d.group.generation = sc->group_gen;
        (*arrive)[i] = d;
        if (key < sc->live_cap)
            sc->live[key] = 1;
    }
    return n;
}

static uint64_t reference(const char *name, uint32_t agents, uint32_t steps,
                          int state_only) {
    scene sc;
    throng_world *w = build_scene(&sc, name, agents, 1);
    if (!w)
        return 0;
    throng_world_set_canonical_order(w, true);
    for (uint64_t s = 0; s < steps; s++) {
        uint64_t *leave = NULL;
        throng_agent_def *arrive = NULL;
        uint32_t nleave = 0;
        uint32_t n = churn_event(&sc, s, &leave, &nleave, &arrive);
        for (uint32_t i = 0; i < nleave; i++) {
            throng_agent a;
            if (throng_agent_find(w, leave[i], &a) == THRONG_OK)
                throng_agent_remove(w, a);
        }
        for (uint32_t i = 0; i < n; i++) {
            throng_agent a;
            arrive[i].group.world = throng_world_id(w);
            EXPECT(throng_agent_add(w, &arrive[i], &a) == THRONG_OK, "add");
        }
        free(leave);
        free(arrive);
        if (sc.nav && s == steps / 2u) {
            float *costs = nav_costs(w, &sc);
            EXPECT(costs && throng_nav_field_set_costs(w, sc.stair_field,
                                                       costs) == THRONG_OK,
                   "costs: %s", throng_world_last_error(w));
            EXPECT(throng_nav_field_update(w, sc.stair_field) == THRONG_OK,
                   "update: %s", throng_world_last_error(w));
            free(costs);
        }
        EXPECT(throng_world_step(w, sc.dt) == THRONG_OK, "step: %s",
               throng_world_last_error(w));
        uint32_t na = 0;
        throng_world_nav_arrivals(w, NULL, 0, &na, NULL);
        throng_nav_arrival *got = calloc(na ? na : 1, sizeof *got);
        throng_world_nav_arrivals(w, got, na, &na, NULL);
        qsort(got, na, sizeof *got, cmp_arrival_key);
        digest_arrivals(&sc, got, na);
        free(got);
    }
    if (sc.nav)
        fprintf(stderr, "nav2d: %u arrivals, %u removed, %u agents left\n",
                sc.arrivals, sc.removed, throng_world_agent_count(w));
    uint64_t h = state_only ? throng_mpi_hash_world(w)
                            : run_hash(&sc, throng_mpi_hash_world(w));
    throng_world_destroy(w);
    free(sc.live);
    return h;
}

/* The churn of one step on a distributed world: every rank computes the
 * same event, rank 0 names the leavers, each rank adds the arrivals it
 * owns. */
static void distributed_churn(throng_mpi_world *dw, scene *sc, uint64_t step) {
    uint64_t *leave = NULL;
    throng_agent_def *arrive = NULL;
    uint32_t nleave = 0;
    uint32_t n = churn_event(sc, step, &leave, &nleave, &arrive);
    if (!sc->churn || step % CHURN_EVERY != CHURN_EVERY / 2)
        return;
    throng_mpi_agent *gone = calloc(nleave ? nleave : 1, sizeof *gone);
    for (uint32_t i = 0; i < nleave; i++)
        gone[i].key = leave[i];
    throng_status st =
        throng_mpi_agents_remove(dw, rank_ == 0 ? nleave : 0, gone);
    EXPECT(st == THRONG_OK, "remove: %s", throng_mpi_world_last_error(dw));
    const throng_world *local = throng_mpi_world_local(dw);
    uint32_t mine = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (throng_mpi_world_rank_of(dw, arrive[i].position) != rank_)
            continue;
        arrive[i].group.world = throng_world_id(local);
        arrive[mine++] = arrive[i];
    }
    st = throng_mpi_agents_add(dw, mine, arrive, NULL, NULL);
    EXPECT(st == THRONG_OK, "add: %s", throng_mpi_world_last_error(dw));
    free(gone);
    free(leave);
    free(arrive);
}

static int run(int argc, char **argv) {
    if (argc < 6)
        return 2;
    const char *name = argv[2];
    const uint32_t agents = (uint32_t)strtoul(argv[3], NULL, 10);
    const uint32_t steps = (uint32_t)strtoul(argv[4], NULL, 10);
    const int threads = atoi(argv[5]);
    uint64_t expect = 0;
    uint32_t rebalance = 0, save_at = 0;
    const char *save = NULL, *load = NULL;
    int state_only = 0;
    for (int i = 6; i < argc; i++) {
        if (!strcmp(argv[i], "--expect") && i + 1 < argc)
            expect = strtoull(argv[++i], NULL, 16);
        else if (!strcmp(argv[i], "--rebalance") && i + 1 < argc)
            rebalance = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--save-at") && i + 2 < argc) {
            save_at = (uint32_t)strtoul(argv[++i], NULL, 10);
            save = argv[++i];
        } else if (!strcmp(argv[i], "--load") && i + 1 < argc)
            load = argv[++i];
        else if (!strcmp(argv[i], "--state-only"))
            state_only = 1;
    }
    scene sc;
    throng_world *w = build_scene(&sc, name, agents, threads);
    if (!w)
        return 1;
    throng_mpi_def def = throng_mpi_def_default();
    def.threads = threads;
    def.template_is_whole = true;
    def.poll_sleep_us = polite_wait(def.threads);
    def.rebalance_every = rebalance;
    throng_mpi_world *dw = NULL;
    throng_status st;
    uint64_t first = 0;
    if (load) {
        st = throng_mpi_world_load(MPI_COMM_WORLD, load, &def, &dw);
        if (st == THRONG_OK)
            first = throng_world_step_count(throng_mpi_world_local(dw));
        /* The scene's churn record, up to the saved step. */
        for (uint64_t s = 0; s < first; s++) {
            uint64_t *leave = NULL;
            throng_agent_def *arrive = NULL;
            uint32_t nleave = 0;
            churn_event(&sc, s, &leave, &nleave, &arrive);
            free(leave);
            free(arrive);
        }
    } else {
        st = throng_mpi_world_create(MPI_COMM_WORLD, w, &def, &dw);
    }
    throng_world_destroy(w);
    EXPECT(st == THRONG_OK, "create: %s", throng_status_string(st));
    if (st != THRONG_OK)
        return 1;
    /* (nav2d's walkers leave: a continued run starts with fewer.) */
    EXPECT((load && sc.nav) || throng_mpi_world_agent_count(dw) == agents,
           "agent count");
    for (uint64_t s = first; s < steps; s++) {
        if (save && s == save_at) {
            st = throng_mpi_world_save(dw, save);
            EXPECT(st == THRONG_OK, "save: %s",
                   throng_mpi_world_last_error(dw));
        }
        distributed_churn(dw, &sc, s);
        if (sc.nav && s == steps / 2u) {
            float *costs = nav_costs(throng_mpi_world_local(dw), &sc);
            EXPECT(costs, "no costs");
            st = throng_mpi_nav_field_set_costs(dw, sc.stair_field, costs);
            EXPECT(st == THRONG_OK, "costs: %s",
                   throng_mpi_world_last_error(dw));
            st = throng_mpi_nav_field_update(dw, sc.stair_field);
            EXPECT(st == THRONG_OK, "update: %s",
                   throng_mpi_world_last_error(dw));
            free(costs);
        }
        st = throng_mpi_world_step(dw, sc.dt);
        if (st != THRONG_OK) {
            EXPECT(0, "step %" PRIu64 ": %s", s,
                   throng_mpi_world_last_error(dw));
            break;
        }
        uint32_t na = 0;
        throng_mpi_world_nav_arrivals(dw, NULL, 0, &na, NULL);
        throng_nav_arrival *got = calloc(na ? na : 1, sizeof *got);
        throng_mpi_world_nav_arrivals(dw, got, na, &na, NULL);
        digest_arrivals(&sc, got, na);
        free(got);
    }
    if (sc.nav && !load)
        EXPECT(sc.arrivals > 0 && sc.removed == sc.arrivals &&
                   throng_mpi_world_agent_count(dw) == agents - sc.removed,
               "nav2d: %u arrivals, %u removed, %" PRIu64 " agents left",
               sc.arrivals, sc.removed, throng_mpi_world_agent_count(dw));
    uint64_t h = state_only ? throng_mpi_world_hash(dw)
                            : run_hash(&sc, throng_mpi_world_hash(dw));
    throng_mpi_stats stats;
    throng_mpi_world_stats(dw, &stats);
    if (rebalance) {
        /* The boxes follow the crowd: after the last rebalance (at most
         * K steps ago) no rank holds much more than its share. */
        uint32_t most = 0, owned = stats.owned;
        MPI_Allreduce(&owned, &most, 1, MPI_UINT32_T, MPI_MAX, MPI_COMM_WORLD);
        const double share = (double)agents / size_;
        EXPECT(most <= 1.25 * share + 8.0,
               "unbalanced: a rank holds %u agents, the share is %.0f", most,
               share);
    }
    if (expect)
        EXPECT(h == expect, "hash %016" PRIx64 ", expected %016" PRIx64, h,
               expect);
    /* Contact passes read only ghosts the layer holds (their travel in a
     * tick stayed within the ghosts' reach). */
    EXPECT(stats.contact_inexact_ticks == 0,
           "%" PRIu64 " ticks' contact passes may differ from one world's",
           stats.contact_inexact_ticks);
    if (rank_ == 0)
        printf("%s %s ranks %d threads %d steps %u: hash %016" PRIx64
               " (%s), rebalances %u, arrivals %u\n",
               failures ? "FAIL" : "ok", name, size_, threads, steps, h,
               expect ? (h == expect ? "equal to the single process"
                                     : "DIFFERS from the single process")
                      : "no reference",
               stats.rebalances, sc.arrivals);
    throng_mpi_world_destroy(dw);
    free(sc.live);
    return 0;
}

/* The navigation calls' refusals: on every rank, nothing changed. */
static void nav_errors(void) {
    scene sc;
    throng_world *w = build_scene(&sc, "nav2d", 300, 1);
    if (!w)
        return;
    throng_mpi_def def = throng_mpi_def_default();
    def.template_is_whole = true;
    def.poll_sleep_us = polite_wait(def.threads);
    throng_mpi_world *dw = NULL;
    throng_status st = throng_mpi_world_create(MPI_COMM_WORLD, w, &def, &dw);
    EXPECT(st == THRONG_OK, "create nav2d");
    if (st != THRONG_OK) {
        throng_world_destroy(w);
        free(sc.live);
        return;
    }
    for (int s = 0; s < 5; s++)
        throng_mpi_world_step(dw, sc.dt);
    const throng_world *local = throng_mpi_world_local(dw);
    const uint64_t before = throng_mpi_world_hash(dw),
                   def_before = throng_world_definition_hash(local);
    float *costs = nav_costs(local, &sc);
    throng_nav_field_info info;
    throng_object f = sc.stair_field;
    f.world = throng_world_id(local);
    EXPECT(costs && throng_nav_field_get(local, f, &info) == THRONG_OK,
           "the stairwell field");
    const size_t cells = costs ? (size_t)info.cells : 0u;
    /* A field that is not one: an unknown id, on rank 0 only. */
    throng_object none = sc.stair_field;
    if (rank_ == 0)
        none.id = 999;
    st = throng_mpi_nav_field_set_costs(dw, none, costs);
    EXPECT(st == THRONG_ERR_STALE_HANDLE &&
               strncmp(throng_mpi_world_last_error(dw), "rank 0: ", 8) == 0,
           "set_costs on an unknown field: %s (%s)", throng_status_string(st),
           throng_mpi_world_last_error(dw));
    st = throng_mpi_nav_field_update(dw, none);
    EXPECT(st == THRONG_ERR_STALE_HANDLE, "update of an unknown field: %s",
           throng_status_string(st));
    /* Costs that differ on the last rank. */
    float *odd = malloc((cells ? cells : 1) * sizeof *odd);
    if (odd && cells)
        memcpy(odd, costs, cells * sizeof *odd);
    if (odd && cells && rank_ == size_ - 1)
        odd[cells / 2] = 2.0f;
    if (size_ > 1) {
        st = throng_mpi_nav_field_set_costs(dw, sc.stair_field, odd);
        EXPECT(st == THRONG_ERR_OUT_OF_RANGE &&
                   strstr(throng_mpi_world_last_error(dw), "costs differ"),
               "costs differing between ranks: %s (%s)",
               throng_status_string(st), throng_mpi_world_last_error(dw));
    }
    /* The same bad costs everywhere: the core's refusal, on every rank. */
    if (odd && cells) {
        memcpy(odd, costs, cells * sizeof *odd);
        odd[1] = NAN;
    }
    st = throng_mpi_nav_field_set_costs(dw, sc.stair_field, odd);
    EXPECT(st == THRONG_ERR_NOT_FINITE, "NaN costs accepted: %s",
           throng_status_string(st));
    uint32_t n = 7;
    EXPECT(throng_mpi_world_nav_arrivals(dw, NULL, 0, NULL, NULL) ==
                   THRONG_ERR_NULL &&
               throng_mpi_world_nav_arrivals(dw, NULL, 4, &n, NULL) ==
                   THRONG_ERR_NULL &&
               n == 7,
           "nav_arrivals without out_count or out");
    EXPECT(throng_mpi_world_hash(dw) == before &&
               throng_world_definition_hash(local) == def_before,
           "a refusal changed the world");
    /* The good costs are taken, on every rank alike. */
    st = throng_mpi_nav_field_set_costs(dw, sc.stair_field, costs);
    EXPECT(st == THRONG_OK && throng_world_definition_hash(local) != def_before,
           "good costs: %s", throng_mpi_world_last_error(dw));
    uint64_t mine = throng_world_definition_hash(local), lo = 0, hi = 0;
    MPI_Allreduce(&mine, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    EXPECT(lo == hi, "the ranks' definitions differ after set_costs");
    free(odd);
    free(costs);
    throng_mpi_world_destroy(dw);
    throng_world_destroy(w);
    free(sc.live);
}

/* Every refusal reaches every rank, with a sentence naming the rank. */
static int errors(void) {
    nav_errors();
    scene sc;
    throng_world *w = build_scene(&sc, "flock2d", 400, 1);
    if (!w)
        return 1;
    throng_mpi_def def = throng_mpi_def_default();
    def.template_is_whole = true;
    def.poll_sleep_us = polite_wait(def.threads);
    throng_mpi_world *dw = NULL;
    /* Mismatched definitions: the last rank's world has one more group. */
    throng_world *odd = NULL;
    {
        scene sc2;
        odd = build_scene(&sc2, "flock2d", 400, 1);
        free(sc2.live);
        if (rank_ == size_ - 1 && size_ > 1) {
            throng_group g;
            throng_group_def gd = throng_group_def_default();
            throng_group_create(odd, &gd, &g);
        }
    }
    throng_status st = throng_mpi_world_create(MPI_COMM_WORLD, odd, &def, &dw);
    if (size_ > 1) {
        EXPECT(st == THRONG_ERR_OUT_OF_RANGE && dw == NULL,
               "mismatched definitions accepted: %s", throng_status_string(st));
    }
    throng_mpi_world_destroy(dw);
    dw = NULL;
    throng_world_destroy(odd);
    /* An agent without a key. */
    {
        throng_world *nokey = NULL;
        scene sc3;
        nokey = build_scene(&sc3, "flock2d", 400, 1);
        free(sc3.live);
        throng_agent a;
        throng_agent_at(nokey, 3, &a);
        throng_agent_set_host_key(nokey, a, 0);
        st = throng_mpi_world_create(MPI_COMM_WORLD, nokey, &def, &dw);
        EXPECT(st == THRONG_ERR_OUT_OF_RANGE && dw == NULL,
               "an agent without a key accepted");
        throng_world_destroy(nokey);
    }
    st = throng_mpi_world_create(MPI_COMM_WORLD, w, &def, &dw);
    EXPECT(st == THRONG_OK, "create");
    if (st != THRONG_OK)
        return 1;
    const uint64_t before = throng_mpi_world_hash(dw);
    /* An agent on a rank that does not own its position: the last rank
     * adds an agent in rank 0's box. */
    double lo[3], hi[3];
    throng_mpi_world_region(dw, lo, hi);
    double box0[6];
    memcpy(box0, lo, sizeof lo);
    memcpy(box0 + 3, hi, sizeof hi);
    MPI_Bcast(box0, 6, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    throng_agent_def d = throng_agent_def_default();
    d.host_key = 1000000;
    d.position[0] = (float)(0.5 * (box0[0] + box0[3]));
    d.position[1] = (float)(0.5 * (box0[1] + box0[4]));
    d.group.id = sc.group_id;
    d.group.generation = sc.group_gen;
    d.group.world = throng_world_id(throng_mpi_world_local(dw));
    if (size_ > 1) {
        st = throng_mpi_agents_add(dw, rank_ == size_ - 1 ? 1 : 0, &d, NULL,
                                   NULL);
        EXPECT(st == THRONG_ERR_OUT_OF_RANGE, "a foreign agent accepted");
        EXPECT(strstr(throng_mpi_world_last_error(dw), "rank 0's region") &&
                   strncmp(throng_mpi_world_last_error(dw), "rank ", 5) == 0,
               "sentence: %s", throng_mpi_world_last_error(dw));
    }
    /* A NaN position, on rank 0 only: every rank hears of it. */
    throng_agent_def bad = d;
    bad.position[1] = NAN;
    st = throng_mpi_agents_add(dw, rank_ == 0 ? 1 : 0, &bad, NULL, NULL);
    EXPECT(st == THRONG_ERR_NOT_FINITE, "a NaN position accepted");
    EXPECT(strstr(throng_mpi_world_last_error(dw), "rank 0: ") ==
               throng_mpi_world_last_error(dw),
           "sentence: %s", throng_mpi_world_last_error(dw));
    /* A key held on another rank, and one given twice. */
    d.host_key = 7;
    st = throng_mpi_agents_add(dw, rank_ == 0 ? 1 : 0, &d, NULL, NULL);
    EXPECT(st == THRONG_ERR_DUPLICATE_KEY, "a held key accepted");
    throng_mpi_agent nobody = { 99999999 };
    st = throng_mpi_agents_remove(dw, rank_ == 0 ? 1 : 0, &nobody);
    EXPECT(st == THRONG_ERR_STALE_HANDLE, "removing nobody accepted");
    st = throng_mpi_world_step(dw, NAN);
    EXPECT(st == THRONG_ERR_OUT_OF_RANGE, "a NaN dt accepted");
    EXPECT(throng_mpi_world_hash(dw) == before, "a refusal changed the world");
    EXPECT(throng_mpi_world_agent_count(dw) == 400, "count changed");
    /* A good add in rank 0's box from rank 0. */
    d.host_key = 1000001;
    st = throng_mpi_agents_add(dw, rank_ == 0 ? 1 : 0, &d, NULL, NULL);
    EXPECT(st == THRONG_OK, "a good add refused: %s",
           throng_mpi_world_last_error(dw));
    EXPECT(throng_mpi_world_agent_count(dw) == 401, "count after add");
    throng_mpi_world_destroy(dw);
    throng_world_destroy(w);
    free(sc.live);
    if (rank_ == 0)
        printf("%s errors ranks %d\n", failures ? "FAIL" : "ok", size_);
    return 0;
}

/* A handle names its agent from every rank, through migrations. */
static int lookup(void) {
    scene sc;
    throng_world *w = build_scene(&sc, "flock2d", 1500, 1);
    if (!w)
        return 1;
    throng_mpi_def def = throng_mpi_def_default();
    def.template_is_whole = true;
    def.poll_sleep_us = polite_wait(def.threads);
    throng_mpi_world *dw = NULL;
    throng_status st = throng_mpi_world_create(MPI_COMM_WORLD, w, &def, &dw);
    EXPECT(st == THRONG_OK, "create");
    if (st != THRONG_OK)
        return 1;
    uint32_t moved = 0;
    int last_owner = -1;
    for (int s = 0; s < 300; s++) {
        throng_mpi_world_step(dw, sc.dt);
        throng_mpi_stats stats;
        throng_mpi_world_stats(dw, &stats);
        moved += stats.migrated;
        /* Each rank asks for another agent; all must find it. */
        throng_mpi_agent a = { (uint64_t)(1 + (s * 37 + rank_ * 101) % 1500) };
        int owner = -1;
        throng_agent_state state;
        st = throng_mpi_agent_lookup(dw, a, &owner, &state);
        EXPECT(st == THRONG_OK && owner >= 0 && owner < size_ &&
                   state.host_key == a.key,
               "lookup of %" PRIu64, a.key);
        EXPECT(owner == throng_mpi_world_rank_of(dw, state.position),
               "the owner is the position's rank");
        if (a.key == 1)
            last_owner = owner;
    }
    (void)last_owner;
    throng_mpi_agent none = { 5000000 };
    st = throng_mpi_agent_lookup(dw, none, NULL, NULL);
    EXPECT(st == THRONG_ERR_NOT_FOUND, "a missing agent found");
    uint32_t all = 0;
    MPI_Allreduce(&moved, &all, 1, MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD);
    if (size_ > 1)
        EXPECT(all > 0, "no agent migrated in 300 steps");
    throng_mpi_world_destroy(dw);
    throng_world_destroy(w);
    free(sc.live);
    if (rank_ == 0)
        printf("%s lookup ranks %d (%u migrations)\n", failures ? "FAIL" : "ok",
               size_, all);
    return 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    int usage = 0;
    if (argc >= 5 && !strcmp(argv[1], "reference")) {
        uint64_t h = reference(argv[2], (uint32_t)strtoul(argv[3], NULL, 10),
                               (uint32_t)strtoul(argv[4], NULL, 10),
                               argc >= 6 && !strcmp(argv[5], "--state-only"));
        if (rank_ == 0)
            printf("%016" PRIx64 "\n", h);
    } else if (argc >= 6 && !strcmp(argv[1], "run")) {
        usage = run(argc, argv) == 2;
    } else if (argc >= 2 && !strcmp(argv[1], "errors")) {
        errors();
    } else if (argc >= 2 && !strcmp(argv[1], "lookup")) {
        lookup();
    } else {
        usage = 1;
    }
    if (usage && rank_ == 0)
        fprintf(stderr, "usage: throng-mpi-tests reference|run|errors|lookup "
                        "... (see mpi/test_mpi.c)\n");
    int mine = failures || usage, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? 1 : 0;
}
