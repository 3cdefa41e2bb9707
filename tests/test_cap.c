/* SPDX-License-Identifier: MIT */
/*
 * The neighbour cap's selection (steer_cap.c) against the full scan and
 * against brute force: for every agent of knots, clusters, uniform crowds
 * and lattices (where equal distances make the slot decide), in periodic
 * and unbounded worlds, 2D and 3D, the K nearest found through the fine
 * grids are the full scan's, entry for entry (key bits, slot, row, range,
 * in walk order), and the K nearest by (squared distance, slot) among all
 * agents within the radius, images included, measured naively.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "core.h"
#include "grid.h"
#include "grid_query.h"
#include "kernel_paths.h"
#include "runner.h"
#include "steer_cap.h"
#include "steer_flock.h"

enum {
    CAP_LAYOUT_KNOT,
    CAP_LAYOUT_CLUSTER,
    CAP_LAYOUT_UNIFORM,
    CAP_LAYOUT_LATTICE
};

static const char *const cap_layout_name[] = { "knot", "cluster", "uniform",
                                               "lattice" };

/* One position of a layout, in [0, box) on each axis. */
static void cap_place(int layout, int dims, float box, test_rng *rng,
                      uint32_t i, float p[3]) {
    p[0] = p[1] = p[2] = 0.0f;
    for (int a = 0; a < dims; a++) {
        float x = 0.0f;
        switch (layout) {
        case CAP_LAYOUT_KNOT:
            /* A fifth of a radius wide, against the low corner so a
             * periodic box sees it across the seam. */
            x = 0.2f * test_rng_unit(rng);
            break;
        case CAP_LAYOUT_CLUSTER: {
            /* Roughly Gaussian (a sum of three uniforms), sigma about
             * 0.6 radii, around the box centre; every tenth agent uniform
             * over the box. */
            if (i % 10u == 0u) {
                x = test_rng_range(rng, 0.0f, box);
                break;
            }
            float s = test_rng_unit(rng) + test_rng_unit(rng) +
                      test_rng_unit(rng) - 1.5f;
            x = 0.5f * box + 1.2f * s;
            break;
        }
        case CAP_LAYOUT_UNIFORM:
            x = test_rng_range(rng, 0.0f, box);
            break;
        default:
            /* A lattice of step 0.125 radii near the corner, and every
             * third agent a copy of another's spot: equal distances. */
            x = 0.125f * (float)test_rng_below(rng, dims == 2 ? 12u : 6u);
            break;
        }
        x = x < 0.0f ? 0.0f : x;
        p[a] = x < box ? x : 0.0f;
    }
}

/* The kernel paths a selection is checked on (those this machine and
 * build lack are passed over). */
static const throng_simd cap_test_paths[] = {
    THRONG_SIMD_SCALAR, THRONG_SIMD_SSE2, THRONG_SIMD_AVX2,
    THRONG_SIMD_AVX512, THRONG_SIMD_NEON, THRONG_SIMD_WASM
};
#define CAP_TEST_PATHS ((int)(sizeof cap_test_paths / sizeof cap_test_paths[0]))

/* The most agents a case holds. */
#define CAP_TEST_AGENTS_MAX 1024u

typedef struct cap_pair {
    float d2;
    uint32_t slot;
} cap_pair;

static int cap_pair_cmp(const void *pa, const void *pb) {
    const cap_pair *a = pa, *b = pb;
    if (a->d2 != b->d2)
        return a->d2 < b->d2 ? -1 : 1;
    return a->slot < b->slot ? -1 : a->slot > b->slot;
}

/* The K nearest of row t by brute force over every row and, in a periodic
 * box, every image: fills out sorted by (d2, slot), returns how many. */
static uint32_t cap_brute(const throng_world *w, uint32_t t, uint32_t cap,
                          cap_pair *all, cap_pair *out) {
    const agent_columns *c = &w->col;
    const int dims = w->dims;
    const float R2 = w->neighbour_radius * w->neighbour_radius;
    const int periodic = w->boundary == THRONG_BOUNDARY_PERIODIC;
    const int reach = periodic ? 1 : 0;
    uint32_t n = 0;
    for (uint32_t j = 0; j < w->count; j++) {
        if (j == t)
            continue;
        float best = INFINITY;
        for (int sz = dims == 3 ? -reach : 0; sz <= (dims == 3 ? reach : 0);
             sz++)
            for (int sy = -reach; sy <= reach; sy++)
                for (int sx = -reach; sx <= reach; sx++) {
                    const float shift[3] = { (float)sx * w->box[0],
                                             (float)sy * w->box[1],
                                             (float)sz * w->box[2] };
                    float dx = c->px[j] - (c->px[t] - shift[0]);
                    float dy = c->py[j] - (c->py[t] - shift[1]);
                    float d2 = dx * dx + dy * dy;
                    if (dims == 3) {
                        float dz = c->pz[j] - (c->pz[t] - shift[2]);
                        d2 = d2 + dz * dz;
                    }
                    best = d2 < best ? d2 : best;
                }
        if (best <= R2)
            all[n++] = (cap_pair){ best, c->slot[j] };
    }
    qsort(all, n, sizeof all[0], cap_pair_cmp);
    const uint32_t keep = n < cap ? n : cap;
    memcpy(out, all, keep * sizeof all[0]);
    return keep;
}

typedef struct cap_case_result {
    uint32_t selected; /* agents chosen through the fine grids */
    uint32_t scanned;  /* agents whose block kept the full scan */
} cap_case_result;

/* One world: every agent's selection against the scan and brute force. */
static void cap_case(int dims, int periodic, int layout, uint32_t cap,
                     uint32_t agents, uint64_t seed, cap_case_result *res) {
    const float R = 1.0f, box = periodic ? (dims == 2 ? 8.0f : 4.0f) : 8.0f;
    throng_world_def d = ts_world_def(dims, 1, NULL);
    d.neighbour_radius = R;
    if (periodic)
        ts_world_def_periodic(&d, box);
    throng_world *w = ts_world_make(&d);
    REQUIRE(w != NULL);
    throng_group_def g = throng_group_def_default();
    g.flocking.cohesion_weight = 1.0f;
    g.flocking.max_neighbours = cap;
    throng_group gid = THRONG_NULL_GROUP;
    REQUIRE_OK(throng_group_create(w, &g, &gid));
    test_rng rng = test_rng_make(seed);
    float spot[3] = { 0, 0, 0 };
    for (uint32_t i = 0; i < agents; i++) {
        throng_agent_def a = throng_agent_def_default();
        if (layout == CAP_LAYOUT_LATTICE && i % 3u == 2u)
            memcpy(a.position, spot, sizeof spot);
        else
            cap_place(layout, dims, box, &rng, i, a.position);
        memcpy(spot, a.position, sizeof spot);
        a.group = gid;
        throng_agent h;
        REQUIRE_OK(throng_agent_add(w, &a, &h));
    }
    parallel_sched sched = world_scheduler(w);
    REQUIRE(grid_build(w, &sched, 1) == 0);
    cap_index_build(w, &sched);
    const cap_index *ix = w->cap_index;
    REQUIRE(ix != NULL && ix->valid);
    if (layout == CAP_LAYOUT_KNOT)
        CHECK(ix->fine_count > 0u);

    /* Static: large, and a failed REQUIRE leaks nothing. */
    static cell_range ranges[GRID_MAX_RANGES];
    static cap_block blk_store;
    static kept_neighbour scan[THRONG_MAX_NEIGHBOUR_CAP];
    static kept_neighbour pick[THRONG_MAX_NEIGHBOUR_CAP];
    static cap_pair all[CAP_TEST_AGENTS_MAX];
    static cap_pair brute[THRONG_MAX_NEIGHBOUR_CAP];
    static cap_pair mine[THRONG_MAX_NEIGHBOUR_CAP];
    cap_block *blk = &blk_store;
    REQUIRE(agents <= CAP_TEST_AGENTS_MAX);
    uint32_t wrong = 0;
    for (uint32_t t = 0; t < w->count; t++) {
        int32_t c[3];
        flock_cell_of(w, t, c);
        flock_run run = {
            .w = w, .ranges = ranges, .begin = t, .end = t + 1, .dt = 0.1f
        };
        run.range_count = grid_ranges(&w->grid, c[0], c[1], c[2], ranges);
        flock_counts counts = { 0, 0 };
        uint32_t ns = flock_cap_scan_scalar(&run, t, cap, scan, &counts);
        cap_walk_order(scan, ns);
        uint32_t nb = cap_brute(w, t, cap, all, brute);
        /* The scan against brute force, as a set. */
        for (uint32_t i = 0; i < ns; i++)
            mine[i] = (cap_pair){ scan[i].d2, scan[i].slot };
        qsort(mine, ns, sizeof mine[0], cap_pair_cmp);
        int same = ns == nb;
        for (uint32_t i = 0; same && i < ns; i++)
            same = mine[i].slot == brute[i].slot &&
                   memcmp(&mine[i].d2, &brute[i].d2, sizeof(float)) == 0;
        const float carried = blk->last_far;
        blk->prepared = 0;
        cap_block_prepare(&run, blk);
        if (blk->scan) {
            res->scanned++;
        } else {
            res->selected++;
            /* No guess of the cap-th distance (a fresh block), the
             * previous agent's (as the run's next agent would have it),
             * and one far too small (widened until it holds cap). */
            const float R2 = w->neighbour_radius * w->neighbour_radius;
            const float guesses[3] = { 0.0f, carried, R2 * 1e-9f };
            /* On every path this machine runs: they cut the held
             * candidates back by counting in their lanes, the scalar
             * one by a quickselect. */
            for (int pi = 0; pi < CAP_TEST_PATHS * 3; pi++) {
                const int gi = pi % 3;
                if (!throng_simd_supported(cap_test_paths[pi / 3]) ||
                    world_use_simd(w, cap_test_paths[pi / 3]) != 0)
                    continue;
                blk->last_far = guesses[gi];
                flock_counts pc = { 0, 0 };
                uint32_t np = cap_select(&run, blk, t, cap, pick, &pc);
                same = same && np == ns;
                for (uint32_t i = 0; same && i < np; i++)
                    same =
                        memcmp(&pick[i].d2, &scan[i].d2, sizeof(float)) == 0 &&
                        pick[i].slot == scan[i].slot &&
                        pick[i].row == scan[i].row &&
                        pick[i].range == scan[i].range;
                /* Without a guess, never more candidates than the scan
                 * measures. */
                same = same && (gi > 0 || pc.candidates <= counts.candidates);
            }
        }
        if (!same && wrong++ < 3)
            runner_fail(__FILE__, __LINE__,
                        "%dD %s %s cap %u agent %u: %u kept by the scan, %u "
                        "by brute force, selection %s",
                        dims, periodic ? "periodic" : "unbounded",
                        cap_layout_name[layout], cap, t, ns, nb,
                        blk->scan ? "not used" : "differs");
    }
    CHECK_EQ_U64(wrong, 0u);
    cap_index_drop(w);
    throng_world_destroy(w);
}

/* Each vector path's count_below() against the count done naively, for
 * every length up to the counted selection's largest, with runs of
 * equal values (coincident agents) and values at both ends of the
 * range. */
TEST(cap_count_below_matches_naive) {
    int32_t v[64], below[64];
    test_rng rng = test_rng_make(7u);
    uint32_t paths_run = 0;
    for (int pi = 0; pi < CAP_TEST_PATHS; pi++) {
        if (!throng_simd_supported(cap_test_paths[pi]))
            continue;
        throng_world_def d = ts_world_def(2, 1, NULL);
        throng_world *w = ts_world_make(&d);
        REQUIRE(w != NULL);
        if (world_use_simd(w, cap_test_paths[pi]) != 0 || !w->count_below) {
            throng_world_destroy(w);
            continue;
        }
        paths_run++;
        uint32_t wrong = 0;
        for (uint32_t m = 0; m <= 64u; m++) {
            const uint32_t padded =
                (m + FLOCK_COUNT_PAD - 1u) & ~(FLOCK_COUNT_PAD - 1u);
            for (uint32_t i = 0; i < padded; i++) {
                const uint32_t kind = test_rng_below(&rng, 8u);
                v[i] = i >= m       ? INT32_MAX
                       : kind == 0u ? 0
                       : kind == 1u ? INT32_MAX - 1
                       : kind < 4u  ? (int32_t)test_rng_below(&rng, 4u)
                                    : (int32_t)(test_rng_below(&rng, 1u << 30));
            }
            w->count_below(v, m, padded, below);
            for (uint32_t i = 0; i < m; i++) {
                int32_t naive = 0;
                for (uint32_t j = 0; j < m; j++)
                    naive += v[j] < v[i];
                wrong += below[i] != naive;
            }
        }
        CHECK_EQ_U64(wrong, 0u);
        throng_world_destroy(w);
    }
    /* Some vector path runs on any machine with SIMD kernels. */
#if defined(THRONG_HAVE_SIMD_KERNELS)
    CHECK(paths_run > 0u);
#endif
}

/* Caps 1, 16, 64, and one above every agent's neighbour count (which
 * must keep them all). */
TEST(cap_select_matches_scan_and_brute_force) {
    const uint32_t caps[] = { 1u, 16u, 64u, CAP_SELECT_MAX };
    for (int dims = 2; dims <= 3; dims++)
        for (int periodic = 0; periodic < 2; periodic++)
            for (int layout = 0; layout < 4; layout++) {
                uint32_t selected = 0;
                for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
                    cap_case_result r = { 0, 0 };
                    cap_case(dims, periodic, layout, caps[k], 700u,
                             101u +
                                 (uint64_t)(dims * 16 + periodic * 4 + layout),
                             &r);
                    selected += r.selected;
                }
                /* The fine grids served (a test that cannot fail is not
                 * one). */
                CHECK(selected > 0u);
            }
}

/* A block in which some rows lie in two ranges (as they would in a
 * periodic box narrower than the block, with two shifts) keeps the full
 * scan; the same block without the copy is served by the fine grids. */
TEST(cap_select_overlap_scans) {
    throng_world_def d = ts_world_def(2, 1, NULL);
    d.neighbour_radius = 1.0f;
    ts_world_def_periodic(&d, 3.0f);
    throng_world *w = ts_world_make(&d);
    REQUIRE(w != NULL);
    throng_group_def g = throng_group_def_default();
    g.flocking.cohesion_weight = 1.0f;
    g.flocking.max_neighbours = 4u;
    throng_group gid = THRONG_NULL_GROUP;
    REQUIRE_OK(throng_group_create(w, &g, &gid));
    test_rng rng = test_rng_make(3u);
    for (int i = 0; i < 400; i++) {
        throng_agent_def a = throng_agent_def_default();
        a.position[0] = test_rng_range(&rng, 0.0f, 3.0f);
        a.position[1] = test_rng_range(&rng, 0.0f, 3.0f);
        a.group = gid;
        throng_agent h;
        REQUIRE_OK(throng_agent_add(w, &a, &h));
    }
    parallel_sched sched = world_scheduler(w);
    REQUIRE(grid_build(w, &sched, 1) == 0);
    cap_index_build(w, &sched);
    static cell_range ranges[GRID_MAX_RANGES];
    static cap_block blk_store;
    cap_block *blk = &blk_store;
    int32_t c[3];
    flock_cell_of(w, 0, c);
    flock_run run = { .w = w, .ranges = ranges, .begin = 0, .end = 1 };
    run.range_count = grid_ranges(&w->grid, c[0], c[1], c[2], ranges);
    REQUIRE(run.range_count >= 1 && run.range_count < GRID_MAX_RANGES);
    blk->prepared = 0;
    cap_block_prepare(&run, blk);
    CHECK(!blk->scan && blk->count > 0u);
    ranges[run.range_count] = ranges[0];
    ranges[run.range_count].shift[0] += 3.0f;
    run.range_count++;
    blk->prepared = 0;
    cap_block_prepare(&run, blk);
    CHECK(blk->scan);
    cap_index_drop(w);
    throng_world_destroy(w);
}

/* The walk order: by range, then row, for any count. */
TEST(cap_walk_order_sorts) {
    static kept_neighbour k[THRONG_MAX_NEIGHBOUR_CAP];
    test_rng rng = test_rng_make(5u);
    const uint32_t counts[] = { 0u,  1u,  2u,   15u,
                                16u, 17u, 100u, THRONG_MAX_NEIGHBOUR_CAP };
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        uint32_t n = counts[c];
        for (uint32_t i = 0; i < n; i++) {
            k[i].range = test_rng_below(&rng, 9u);
            k[i].row = i * 7919u % 100003u; /* distinct */
            k[i].d2 = 0.0f;
            k[i].slot = i;
        }
        cap_walk_order(k, n);
        int sorted = 1;
        for (uint32_t i = 1; i < n; i++)
            sorted &= k[i - 1].range < k[i].range ||
                      (k[i - 1].range == k[i].range && k[i - 1].row < k[i].row);
        CHECK(sorted);
    }
}

/* Capped crowds step to the same bits on every kernel path and thread
 * count, in a knot (fine grids) and a cluster. */
static uint64_t cap_knot_hash(int dims, int layout, uint32_t cap, int threads,
                              const char *simd) {
    throng_world_def d = ts_world_def(dims, threads, NULL);
    d.neighbour_radius = 1.0f;
    ts_world_def_periodic(&d, 8.0f);
    throng_world *w = ts_world_make(&d);
    if (!w)
        return 0;
    if (simd && world_select_kernel(w, simd) != 0) {
        throng_world_destroy(w);
        return 1;
    }
    throng_group_def g = throng_group_def_default();
    g.flocking.separation_weight = 2.0f;
    g.flocking.alignment_weight = 1.0f;
    g.flocking.cohesion_weight = 1.0f;
    g.flocking.max_neighbours = cap;
    throng_group gid = THRONG_NULL_GROUP;
    if (throng_group_create(w, &g, &gid) != THRONG_OK) {
        throng_world_destroy(w);
        return 0;
    }
    test_rng rng = test_rng_make(17u);
    for (uint32_t i = 0; i < 2000u; i++) {
        throng_agent_def a = throng_agent_def_default();
        cap_place(layout, dims, 8.0f, &rng, i, a.position);
        for (int k = 0; k < dims; k++)
            a.velocity[k] = test_rng_range(&rng, -0.5f, 0.5f);
        a.group = gid;
        throng_agent h;
        if (throng_agent_add(w, &a, &h) != THRONG_OK) {
            throng_world_destroy(w);
            return 0;
        }
    }
    for (int s = 0; s < 10; s++)
        if (throng_world_step(w, 1.0f / 30.0f) != THRONG_OK) {
            throng_world_destroy(w);
            return 0;
        }
    uint64_t h = throng_world_hash(w);
    throng_world_destroy(w);
    return h;
}

TEST(cap_select_deterministic) {
    const char *paths[] = { "sse2", "avx2", "avx512", "neon", "wasm" };
    for (int dims = 2; dims <= 3; dims++)
        for (int layout = CAP_LAYOUT_KNOT; layout <= CAP_LAYOUT_CLUSTER;
             layout++) {
            uint64_t base = cap_knot_hash(dims, layout, 16u, 1, "scalar");
            CHECK(base > 1u);
            CHECK_EQ_U64(cap_knot_hash(dims, layout, 16u, 2, NULL), base);
            for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
                uint64_t h = cap_knot_hash(dims, layout, 16u, 2, paths[p]);
                if (h != 1u)
                    CHECK_EQ_U64(h, base);
            }
        }
}

void register_cap_tests(void) {
    REGISTER(cap_select_matches_scan_and_brute_force);
    REGISTER(cap_count_below_matches_naive);
    REGISTER(cap_select_overlap_scans);
    REGISTER(cap_walk_order_sorts);
    REGISTER(cap_select_deterministic);
}
