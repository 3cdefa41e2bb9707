/* SPDX-License-Identifier: MIT */
/*
 * The uniform spatial grid.
 *
 * Why a uniform grid. Steering neighbourhoods have one radius per world, and
 * crowds fill space at a roughly even density, so cells of one size, at least
 * the neighbour radius wide, put every neighbour of an agent within the
 * (2 reach + 1)^d block of cells around its own. Trees adapt better to
 * wildly uneven densities, but cost a pointer chase per level and rebuild
 * poorly in parallel; a grid rebuilds in a few linear passes.
 *
 * How cells become buckets. A periodic box is a finite lattice, so its
 * cells are numbered densely, x fastest: bucket = (cz ny + cy) nx + cx, a
 * perfect hash, and neighbouring cells in a row are neighbouring buckets.
 * Unbounded space has no fixed lattice. When the agents' bounding box of
 * cells holds at most about two cells per agent, that box is numbered
 * densely in the same way (each build measures it again), and a walk gets
 * the same contiguous rows and lane packing as in a periodic box. A crowd
 * too spread out for that, but with few rows of cells (a ring, a road,
 * scattered clumps: at most n + 4096 rows of the box, y and z), is
 * numbered sparsely: the rows are numbered densely, and within a row only
 * the occupied cells, x ascending. The agents are counting-sorted by row,
 * each row is then ordered by cell x (it mostly is already: last step
 * left the rows in this order) and cut into its cells. That is exactly
 * the order a dense numbering of the box would give, empty cells left
 * out, so a row of cells of a neighbourhood is again one run of rows and
 * the kernels pack lanes as in a dense grid; only finding a cell takes a
 * search of its row (or a step on from the last one). When even the rows
 * are too many, a cell's integer coordinates
 * are hashed into a power-of-two table of about half as many buckets as
 * agents. Two cells may then share a bucket. That costs candidates (the
 * distance test throws out strangers) but never correctness, as long as a
 * bucket shared by two cells of the same neighbourhood is walked once:
 * grid_ranges() drops repeated buckets. The numbering depends only on the
 * agents' positions and count, never on history, so equal states sort
 * equally.
 *
 * Why a counting sort. Agents are sorted by bucket with a stable counting
 * sort: one pass counts agents per bucket, a prefix sum turns the counts
 * into each bucket's first row (cell_start), and a second pass places every
 * agent. It is linear, needs no comparisons, and its output is unique: a
 * stable sort by key has exactly one result, so the rows are the same
 * however the work was split. In parallel, each of P parts of the agent
 * range counts into its own histogram row; the prefix sum runs bucket-major,
 * part-minor, so part p's agents of bucket b land after those of parts
 * before p, which is exactly the stable order. No atomics, no races.
 *
 * Why the rows move. After the sort, a step permutes every agent column
 * into cell order (a gather per column into a spare buffer, then the two
 * swap), except the columns whose rows all hold one value (columns.c keeps
 * track: a crowd's mass, limits, radius, group and target are often one
 * value for everyone, and reordering equal values changes nothing). The dense rows are then in cell order: a neighbour walk reads
 * each neighbouring cell as one contiguous run of memory (a row of adjacent
 * cells is even one run), which lets the kernels stream candidates through
 * vector registers, and every per-agent stage after it (forces,
 * integration) reads and writes rows in order. Agents move little between
 * steps, so the permutation is close to the identity and its gathers are
 * close to sequential. Copying only the columns the neighbour walk reads
 * would leave integration scattering into rows in insertion order, which
 * at a million agents is a cache miss per agent. The price is that dense
 * rows (and column pointers) change at every step; handles do not.
 * Kernels read the rows and write only their own agent's output: they
 * gather, and never scatter.
 */
#include "grid.h"
#include "busy.h"

#include <string.h>

#include "internal.h"
#include "check.h"
#include "parallel.h"
#include "columns.h"
#include "core.h"

/* Below this many agents per part the sort runs in fewer parts: a part's
 * histogram row costs as much to clear and scan as its agents to count. */
#define GRID_MIN_AGENTS_PER_PART 8192u

/* Rows per chunk of the gather. */
#define GRID_GATHER_GRAIN 16384u

/* Rows whose buckets are computed and then counted in one go: 16 KiB of
 * buckets, which stay in the first-level cache between the two. */
#define GRID_COUNT_BLOCK 4096u

/* The permutation copies a block of this many rows run by run when its
 * runs of consecutive source rows average at least GRID_PERMUTE_RUN_MIN
 * rows, and gathers it row by row otherwise. */
#define GRID_PERMUTE_BLOCK 2048u
#define GRID_PERMUTE_RUN_MIN 4u

/* Each part of the bucket prefix sum covers at least this many buckets. */
#define GRID_SCAN_GRAIN 16384u

#define GRID_MAX_PARTS 64u

static void free_arrays(throng_world *w, grid *g) {
    size_t na = g->agent_capacity;
    world_free(w, g->bucket_of, na * sizeof(uint32_t));
    world_free(w, g->sorted, na * sizeof(uint32_t));
    g->bucket_of = g->sorted = NULL;
    g->agent_capacity = 0;
}

static void free_sparse(throng_world *w, grid *g) {
    size_t cells = g->sparse_capacity;
    world_free(w, g->cell_x, cells * sizeof(int32_t));
    world_free(w, g->row_first,
               (cells + GRID_SPARSE_SPARE_ROWS + 1) * sizeof(uint32_t));
    g->cell_x = NULL;
    g->row_first = NULL;
    g->sparse_capacity = 0;
}

void grid_release(throng_world *w, grid *g) {
    free_arrays(w, g);
    free_sparse(w, g);
    world_free(w, g->cell_start,
               ((size_t)g->bucket_capacity + 1) * sizeof(uint32_t));
    world_free(w, g->hist, (size_t)g->hist_capacity * sizeof(uint32_t));
    g->cell_start = g->hist = NULL;
    g->bucket_capacity = g->hist_capacity = 0;
}

size_t grid_bytes(const grid *g) {
    return (size_t)g->agent_capacity * 2 * sizeof(uint32_t) +
           ((size_t)g->bucket_capacity + 1) * sizeof(uint32_t) +
           (size_t)g->hist_capacity * sizeof(uint32_t) +
           (g->row_first ? ((size_t)g->sparse_capacity * 2 +
                            GRID_SPARSE_SPARE_ROWS + 1) *
                               sizeof(uint32_t)
                         : 0);
}

/* Grows a sparse numbering's arrays to `agents` occupied cells and
 * agents + GRID_SPARSE_SPARE_ROWS rows; all or nothing. */
static int reserve_sparse(throng_world *w, grid *g, uint32_t agents) {
    agents = agents > 0 ? agents : 1; /* a world of no agents yet */
    if (agents <= g->sparse_capacity && g->row_first)
        return 0;
    size_t cells = (size_t)agents * sizeof(int32_t);
    size_t rows =
        ((size_t)agents + GRID_SPARSE_SPARE_ROWS + 1) * sizeof(uint32_t);
    int32_t *cell_x = world_alloc(w, cells);
    uint32_t *row_first = world_alloc(w, rows);
    if (!cell_x || !row_first) {
        world_free(w, cell_x, cells);
        world_free(w, row_first, rows);
        return 1;
    }
    free_sparse(w, g);
    g->cell_x = cell_x;
    g->row_first = row_first;
    g->sparse_capacity = agents;
    return 0;
}

/* Grows the per-agent arrays to `agents` rows; all or nothing. */
static int reserve_agents(throng_world *w, grid *g, uint32_t agents) {
    if (agents <= g->agent_capacity)
        return 0;
    size_t n4 = (size_t)agents * 4u;
    uint32_t *bucket_of = world_alloc(w, n4);
    uint32_t *sorted = world_alloc(w, n4);
    if (!bucket_of || !sorted) {
        world_free(w, bucket_of, n4);
        world_free(w, sorted, n4);
        return 1;
    }
    free_arrays(w, g);
    g->bucket_of = bucket_of;
    g->sorted = sorted;
    g->agent_capacity = agents;
    return 0;
}

static int reserve_buckets(throng_world *w, grid *g, uint32_t buckets,
                           uint32_t hist_entries) {
    if (buckets > g->bucket_capacity) {
        size_t size = ((size_t)buckets + 1) * sizeof(uint32_t);
        uint32_t *start = world_alloc(w, size);
        if (!start)
            return 1;
        world_free(w, g->cell_start,
                   ((size_t)g->bucket_capacity + 1) * sizeof(uint32_t));
        g->cell_start = start;
        g->bucket_capacity = buckets;
    }
    if (hist_entries > g->hist_capacity) {
        uint32_t *hist =
            world_alloc(w, (size_t)hist_entries * sizeof(uint32_t));
        if (!hist)
            return 1;
        world_free(w, g->hist, (size_t)g->hist_capacity * sizeof(uint32_t));
        g->hist = hist;
        g->hist_capacity = hist_entries;
    }
    return 0;
}

static uint32_t next_pow2(uint32_t x) {
    uint32_t p = 1;
    while (p < x && p < (1u << 31))
        p <<= 1;
    return p;
}

typedef struct sort_ctx {
    throng_world *w;
    grid *g;
    uint32_t buckets;
    uint32_t parts;
    uint32_t scan_parts;
    uint32_t scan_total[GRID_MAX_PARTS];
    uint32_t scan_occupied[GRID_MAX_PARTS];
} sort_ctx;

/* Scan part `part`'s row of the bucket histogram: its counts, then its
 * next free sorted row per bucket. */
static inline uint32_t *part_hist(const sort_ctx *s, uint32_t part) {
    return s->g->hist + (size_t)part * s->buckets;
}

static uint32_t agent_bucket(const grid *g, const agent_columns *c,
                             uint32_t i) {
    int32_t cx = grid_coord(g, 0, c->px[i]);
    int32_t cy = grid_coord(g, 1, c->py[i]);
    int32_t cz = g->dims == 3 ? grid_coord(g, 2, c->pz[i]) : 0;
    return grid_bucket(g, cx, cy, cz);
}

/* A periodic box's cell coordinate, as grid_coord() computes it. */
static inline int32_t periodic_coord(double inv_edge, int32_t n, float x) {
    double t = (double)x * inv_edge;
    int32_t c = t > 0.0 ? (int32_t)t : 0;
    return c < n ? c : n - 1;
}

/* A periodic box's buckets for rows [begin, end), grid_bucket() of
 * grid_coord() with the grid's constants in registers. The loop is pure
 * IEEE double arithmetic and truncation, exact on every instruction set,
 * so on x86-64 it is also compiled for AVX2 and AVX-512 (eight doubles a
 * vector) and the widest the CPU runs is called: the same buckets,
 * faster. The choice is made per call with __builtin_cpu_supports rather
 * than by the loader (target_clones): a loader-time resolver runs before
 * the sanitizers' runtimes are ready and crashes their builds. */
static inline __attribute__((always_inline)) void
periodic_buckets_body(const grid *g, const agent_columns *c,
                      uint32_t *restrict bucket_of, uint32_t begin,
                      uint32_t end) {
    const double ix = g->inv_edge[0], iy = g->inv_edge[1];
    const int32_t nx = g->n[0], ny = g->n[1];
    const float *restrict px = c->px, *restrict py = c->py;
    if (g->dims == 2) {
#pragma omp simd
        for (uint32_t i = begin; i < end; i++)
            bucket_of[i] =
                (uint32_t)periodic_coord(iy, ny, py[i]) * (uint32_t)nx +
                (uint32_t)periodic_coord(ix, nx, px[i]);
        return;
    }
    const double iz = g->inv_edge[2];
    const int32_t nz = g->n[2];
    const float *restrict pz = c->pz;
#pragma omp simd
    for (uint32_t i = begin; i < end; i++)
        bucket_of[i] = ((uint32_t)periodic_coord(iz, nz, pz[i]) * (uint32_t)ny +
                        (uint32_t)periodic_coord(iy, ny, py[i])) *
                           (uint32_t)nx +
                       (uint32_t)periodic_coord(ix, nx, px[i]);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx512f"))) static void
periodic_buckets_avx512(const grid *g, const agent_columns *c,
                        uint32_t *restrict bucket_of, uint32_t begin,
                        uint32_t end) {
    periodic_buckets_body(g, c, bucket_of, begin, end);
}

__attribute__((target("avx2"))) static void
periodic_buckets_avx2(const grid *g, const agent_columns *c,
                      uint32_t *restrict bucket_of, uint32_t begin,
                      uint32_t end) {
    periodic_buckets_body(g, c, bucket_of, begin, end);
}
#endif

static void periodic_buckets(const grid *g, const agent_columns *c,
                             uint32_t *restrict bucket_of, uint32_t begin,
                             uint32_t end) {
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        periodic_buckets_avx512(g, c, bucket_of, begin, end);
        return;
    }
    if (__builtin_cpu_supports("avx2")) {
        periodic_buckets_avx2(g, c, bucket_of, begin, end);
        return;
    }
#endif
    periodic_buckets_body(g, c, bucket_of, begin, end);
}

/* A dense numbering's buckets for n rows (pz NULL in the plane):
 * grid_bucket() of grid_coord(), in wrapping unsigned arithmetic.
 * Compiled for AVX2 and AVX-512 too, as periodic_buckets_body() is:
 * orca_dense2d's grid build at 100,000 agents took 1.1 ms a step on one
 * thread with the scalar loop (grid_coord() a row), 0.8 ms with this. */
static inline __attribute__((always_inline)) void
dense_buckets_body(const grid *g, const float *restrict px,
                   const float *restrict py, const float *restrict pz,
                   uint32_t *restrict out, size_t n) {
    const double ix = g->inv_edge[0], iy = g->inv_edge[1], iz = g->inv_edge[2];
    const uint32_t ox = (uint32_t)g->origin[0], oy = (uint32_t)g->origin[1],
                   oz = (uint32_t)g->origin[2];
    const uint32_t nx = (uint32_t)g->n[0], ny = (uint32_t)g->n[1];
    if (!pz) {
        const uint32_t z = (0u - oz) * ny;
#pragma omp simd
        for (size_t i = 0; i < n; i++)
            out[i] = (z + ((uint32_t)grid_coord_floor(iy, py[i]) - oy)) * nx +
                     ((uint32_t)grid_coord_floor(ix, px[i]) - ox);
        return;
    }
#pragma omp simd
    for (size_t i = 0; i < n; i++)
        out[i] = (((uint32_t)grid_coord_floor(iz, pz[i]) - oz) * ny +
                  ((uint32_t)grid_coord_floor(iy, py[i]) - oy)) *
                     nx +
                 ((uint32_t)grid_coord_floor(ix, px[i]) - ox);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx512f"))) static void
dense_buckets_avx512(const grid *g, const float *restrict px,
                     const float *restrict py, const float *restrict pz,
                     uint32_t *restrict out, size_t n) {
    dense_buckets_body(g, px, py, pz, out, n);
}

__attribute__((target("avx2"))) static void
dense_buckets_avx2(const grid *g, const float *restrict px,
                   const float *restrict py, const float *restrict pz,
                   uint32_t *restrict out, size_t n) {
    dense_buckets_body(g, px, py, pz, out, n);
}
#endif

static void dense_buckets(const grid *g, const float *restrict px,
                          const float *restrict py, const float *restrict pz,
                          uint32_t *restrict out, size_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        dense_buckets_avx512(g, px, py, pz, out, n);
        return;
    }
    if (__builtin_cpu_supports("avx2")) {
        dense_buckets_avx2(g, px, py, pz, out, n);
        return;
    }
#endif
    dense_buckets_body(g, px, py, pz, out, n);
}

/* A dense or sparse unbounded numbering's buckets for rows [begin, end):
 * grid_bucket() of grid_coord() (dense_buckets()), or a sparse one's
 * grid_sparse_row(), the row of cells the sort orders by, with the axes
 * and the grid's constants settled once outside the loop rather than
 * per row (about 37 instructions a row in 2D against 52). */
static void unbounded_buckets(const grid *g, const agent_columns *c,
                              uint32_t *restrict bucket_of, uint32_t begin,
                              uint32_t end) {
    const size_t n = end - begin;
    const float *restrict px = c->px + begin, *restrict py = c->py + begin;
    const float *restrict pz = g->dims == 3 ? c->pz + begin : NULL;
    uint32_t *restrict out = bucket_of + begin;
    if (g->sparse) {
        const double iy = g->inv_edge[1], iz = g->inv_edge[2];
        const int64_t oy = g->origin[1], oz = g->origin[2];
        const int64_t ny = g->n[1], nz = g->n[2];
        if (!pz) {
            const int64_t z = -oz;
            const int z_out = z < 0 || z >= nz;
            for (size_t i = 0; i < n; i++) {
                const int64_t y = (int64_t)grid_coord_unbounded(iy, py[i]) - oy;
                out[i] = z_out || y < 0 || y >= ny ? UINT32_MAX
                                                   : (uint32_t)(z * ny + y);
            }
            return;
        }
        for (size_t i = 0; i < n; i++) {
            const int64_t y = (int64_t)grid_coord_unbounded(iy, py[i]) - oy;
            const int64_t z = (int64_t)grid_coord_unbounded(iz, pz[i]) - oz;
            out[i] = y < 0 || y >= ny || z < 0 || z >= nz
                         ? UINT32_MAX
                         : (uint32_t)(z * ny + y);
        }
        return;
    }
    dense_buckets(g, px, py, pz, out, n);
}

/* bucket_of for rows [begin, end). A sparse numbering first sorts by
 * row of cells (sort_sparse_rows then orders each row by x). */
static void buckets_of(const grid *g, const agent_columns *c,
                       uint32_t *restrict bucket_of, uint32_t begin,
                       uint32_t end) {
    if (g->periodic) {
        periodic_buckets(g, c, bucket_of, begin, end);
        return;
    }
    if (g->dense || g->sparse) {
        unbounded_buckets(g, c, bucket_of, begin, end);
        return;
    }
    for (uint32_t i = begin; i < end; i++)
        bucket_of[i] = agent_bucket(g, c, i);
}

static void count_part(void *ctx, uint32_t part, uint32_t begin, uint32_t end,
                       int thread) {
    (void)thread;
    sort_ctx *s = ctx;
    uint32_t *restrict hist = part_hist(s, part);
    uint32_t *restrict bucket_of = s->g->bucket_of;
    memset(hist, 0, (size_t)s->buckets * sizeof(uint32_t));
    /* Block by block, so the buckets are counted while still in cache. The
     * rows are still in last step's cell order, so equal buckets come in
     * runs: one add per run, instead of a chain of increments of one
     * counter, each waiting for the last. A run cut at a block's edge adds
     * in two parts; the count is the same. */
    for (uint32_t first = begin; first < end; first += GRID_COUNT_BLOCK) {
        const uint32_t last =
            end - first > GRID_COUNT_BLOCK ? first + GRID_COUNT_BLOCK : end;
        buckets_of(s->g, &s->w->col, bucket_of, first, last);
        uint32_t i = first;
        while (i < last) {
            uint32_t b = bucket_of[i], j = i + 1;
            INVARIANT(b < s->buckets, "an agent's bucket is in the table");
            while (j < last && bucket_of[j] == b)
                j++;
            hist[b] += j - i;
            i = j;
        }
    }
}

/* First half of the prefix sum: each scan part totals its buckets. */
static void scan_totals(void *ctx, uint32_t part, uint32_t begin, uint32_t end,
                        int thread) {
    (void)thread;
    sort_ctx *s = ctx;
    const uint32_t *hist = s->g->hist;
    uint32_t total = 0, occupied = 0;
    for (uint32_t b = begin; b < end; b++) {
        uint32_t in_bucket = 0;
        for (uint32_t p = 0; p < s->parts; p++)
            in_bucket += hist[(size_t)p * s->buckets + b];
        total += in_bucket;
        occupied += in_bucket != 0;
    }
    s->scan_total[part] = total;
    s->scan_occupied[part] = occupied;
}

/* Second half: turn counts into each (part, bucket)'s first sorted row. */
static void scan_offsets(void *ctx, uint32_t part, uint32_t begin, uint32_t end,
                         int thread) {
    (void)thread;
    sort_ctx *s = ctx;
    uint32_t *hist = s->g->hist;
    uint32_t *cell_start = s->g->cell_start;
    uint32_t running = s->scan_total[part]; /* exclusive prefix, see below */
    for (uint32_t b = begin; b < end; b++) {
        cell_start[b] = running;
        for (uint32_t p = 0; p < s->parts; p++) {
            uint32_t *h = &hist[(size_t)p * s->buckets + b];
            uint32_t c = *h;
            *h = running;
            running += c;
        }
    }
}

static void place_part(void *ctx, uint32_t part, uint32_t begin, uint32_t end,
                       int thread) {
    (void)thread;
    sort_ctx *s = ctx;
    uint32_t *restrict next = part_hist(s, part);
    const uint32_t *restrict bucket_of = s->g->bucket_of;
    uint32_t *restrict sorted = s->g->sorted;
    for (uint32_t i = begin; i < end; i++) {
        INVARIANT(next[bucket_of[i]] < s->w->count,
                  "a placed row lies below the agent count");
        sorted[next[bucket_of[i]]++] = i;
    }
}

/* One batch of the permutation: up to GRID_PERMUTE_BATCH 4-byte columns,
 * each gathered into its own spare (spare[r] = column[sorted[r]]). Batching keeps the parallel loops of a step few: each
 * one ends when its last item does, and on a shared machine that may be
 * an item whose thread was descheduled (parallel.c). */
typedef struct permute_ctx {
    throng_world *w;
    int count;
    const uint32_t *from[GRID_PERMUTE_BATCH];
    uint32_t *to[GRID_PERMUTE_BATCH];
} permute_ctx;

/* run_len rows from `from` to `to`: short runs (most, in a crowd on the
 * move) copied inline, where a call to memcpy would cost as much as the
 * copy. */
static inline void copy_run(uint32_t *restrict to,
                            const uint32_t *restrict from, uint32_t len) {
    if (len >= 64u) {
        memcpy(to, from, (size_t)len * 4u);
        return;
    }
    for (uint32_t i = 0; i < len; i++)
        to[i] = from[i];
}

/* Rows [begin, end) of every column of the batch. Agents seldom change
 * cells between steps, so `sorted` is mostly runs of consecutive rows
 * (one break per hundred rows in a flowing flock, per twenty or thirty
 * in a dense crowd walking to random goals): a block whose runs are not
 * too short is copied run by run, and only a block of many short runs
 * (the first steps of a crowd added in random order) is gathered row by
 * row. Either way to[r] = from[sorted[r]]. */
static void permute_block(const permute_ctx *p, const uint32_t *sorted,
                          uint32_t begin, uint32_t end) {
    uint32_t run_src[GRID_PERMUTE_BLOCK / GRID_PERMUTE_RUN_MIN];
    uint32_t run_len[GRID_PERMUTE_BLOCK / GRID_PERMUTE_RUN_MIN];
    const uint32_t most_runs = (end - begin) / GRID_PERMUTE_RUN_MIN;
    uint32_t runs = 0, covered = 0;
    while (begin + covered < end && runs < most_runs) {
        const uint32_t r = begin + covered, from = sorted[r];
        uint32_t len = 1;
        while (r + len < end && sorted[r + len] == from + len)
            len++;
        run_src[runs] = from;
        run_len[runs] = len;
        runs++;
        covered += len;
    }
    const int by_runs = begin + covered == end;
    for (int k = 0; k < p->count; k++) {
        const uint32_t *restrict from = p->from[k];
        uint32_t *restrict to = p->to[k];
        if (!by_runs) {
            for (uint32_t r = begin; r < end; r++)
                to[r] = from[sorted[r]];
            continue;
        }
        uint32_t r = begin;
        for (uint32_t q = 0; q < runs; q++) {
            copy_run(to + r, from + run_src[q], run_len[q]);
            r += run_len[q];
        }
    }
}

static void permute_rows(void *ctx, uint32_t begin, uint32_t end, int thread) {
    (void)thread;
    const permute_ctx *p = ctx;
    throng_world *w = p->w;
    const uint32_t *restrict sorted = w->grid.sorted;
    for (uint32_t b = begin; b < end; b += GRID_PERMUTE_BLOCK) {
        uint32_t e =
            end - b > GRID_PERMUTE_BLOCK ? b + GRID_PERMUTE_BLOCK : end;
        permute_block(p, sorted, b, e);
    }
}

/* The stable columns of a batch, each copied back from its spare:
 * to[r] = from[r]. */
typedef struct copy_back_ctx {
    int count;
    const uint32_t *from[GRID_PERMUTE_BATCH];
    uint32_t *to[GRID_PERMUTE_BATCH];
} copy_back_ctx;

static void copy_back_rows(void *ctx, uint32_t begin, uint32_t end,
                           int thread) {
    (void)thread;
    const copy_back_ctx *c = ctx;
    for (int k = 0; k < c->count; k++)
        memcpy(c->to[k] + begin, c->from[k] + begin,
               (size_t)(end - begin) * 4u);
}

/* 1 when `col` is one of the columns throng_world_columns shows. */
static int column_shown(const throng_world *w, void *const *col) {
    const agent_columns *c = &w->col;
    const void *const shown[] = { &c->px, &c->py, &c->pz,   &c->vx, &c->vy,
                                  &c->vz, &c->fx, &c->fy,   &c->fz, &c->ux,
                                  &c->uy, &c->uz, &c->group };
    for (size_t k = 0; k < sizeof shown / sizeof shown[0]; k++)
        if (shown[k] == (const void *)col)
            return 1;
    return 0;
}

/* Reorders every column by `sorted`, batch by batch through the world's
 * spare buffers: each column is gathered into a spare, and the spare and
 * the column trade places. With stable columns, the shown ones are
 * copied back from their spares instead, a second pass over them, so
 * their pointers do not change (a host may hold views of them). */
static void permute_columns(throng_world *w, parallel_sched *sched) {
    uint32_t n = w->count;
    void **cols[COLUMN4_MAX];
    int count = world_columns4(w, cols); /* the slot column comes last */
    INVARIANT(!w->col.slot ||
                  (count >= 1 && *cols[count - 1] == (void *)w->col.slot),
              "the slot column (once there is one) is permuted, and last");
    for (int first = 0; first < count; first += GRID_PERMUTE_BATCH) {
        permute_ctx p = { .w = w };
        for (int k = first; k < count && p.count < GRID_PERMUTE_BATCH; k++) {
            p.from[p.count] = *cols[k];
            p.to[p.count] = w->spare4[p.count];
            p.count++;
        }
        parallel_rows(sched, n, GRID_GATHER_GRAIN, permute_rows, &p);
        if (sched->failed)
            return; /* the spares hold no complete column */
        copy_back_ctx back = { .count = 0 };
        for (int b = 0; b < p.count; b++) {
            if (w->stable_columns && column_shown(w, cols[first + b])) {
                back.from[back.count] = w->spare4[b];
                back.to[back.count] = *cols[first + b];
                back.count++;
                continue;
            }
            void *old = *cols[first + b];
            *cols[first + b] = w->spare4[b];
            w->spare4[b] = old;
        }
        if (back.count > 0) {
            parallel_rows(sched, n, GRID_GATHER_GRAIN, copy_back_rows, &back);
            if (sched->failed)
                return;
        }
    }
    /* The slots' links to their rows, and the rows' copy of the host
     * keys, are now out of date; they are rewritten when something next
     * reads them (world_links, throng_world_columns). */
    if (n > 0) {
        w->links_stale = 1;
        w->keys_stale = 1;
    }
}

/* The bounding box of the agents' cells, per part of the agent range. */
typedef struct bounds_ctx {
    throng_world *w;
    const grid *g;
    int32_t lo[GRID_MAX_PARTS][3], hi[GRID_MAX_PARTS][3];
} bounds_ctx;

/* A cell coordinate does not decrease as the position grows (a product
 * by a positive factor, a floor, a clamp), so the cells of the least and
 * the greatest position bound every agent's: two compares an agent and
 * axis rather than a cell each. NaN, which grid_coord() sends to the
 * lowest cell, is passed over by the compares and counted apart. */
static void bounds_part(void *ctx, uint32_t part, uint32_t begin, uint32_t end,
                        int thread) {
    (void)thread;
    bounds_ctx *b = ctx;
    const grid *g = b->g;
    const agent_columns *c = &b->w->col;
    int32_t lo[3] = { INT32_MAX, INT32_MAX, 0 },
            hi[3] = { INT32_MIN, INT32_MIN, 0 };
    if (g->dims == 3) {
        lo[2] = INT32_MAX;
        hi[2] = INT32_MIN;
    }
    if (begin < end) {
        const float *column[3] = { c->px, c->py, c->pz };
        /* On whole vectors (a size_t index from the part's start, so the
         * compiler need not fear a 32-bit index wrapping). The lanes'
         * least and most are combined in any order: a least or most is
         * one value whatever the order, but for the sign of a zero, and
         * 0 and -0 have the one cell. */
        const size_t n = end - begin;
        for (int a = 0; a < g->dims; a++) {
            const float *restrict x = column[a] + begin;
            float least = INFINITY, most = -INFINITY;
            int nan = 0;
/* GCC vectorises the reductions; clang will not without fast-math (a
 * float min is not associative to it) and warns that the pragma failed,
 * so it is GCC's alone. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma omp simd reduction(min : least) reduction(max : most) reduction(| : nan)
#endif
            for (size_t i = 0; i < n; i++) {
                least = x[i] < least ? x[i] : least;
                most = x[i] > most ? x[i] : most;
                nan |= x[i] != x[i];
            }
            /* Where every position is NaN, `most` stays -inf, whose cell
             * is NaN's: the lowest. */
            lo[a] = nan ? grid_coord(g, a, NAN) : grid_coord(g, a, least);
            hi[a] = grid_coord(g, a, most);
        }
    }
    memcpy(b->lo[part], lo, sizeof lo);
    memcpy(b->hi[part], hi, sizeof hi);
}

/* Unbounded space: numbers the agents' bounding box of cells densely when
 * it holds at most 2 n + 4096 cells; else sparsely when it holds at most
 * n + GRID_SPARSE_SPARE_ROWS rows of cells; else hashes. Min and max do
 * not depend on how the range was split. */
static void plan_unbounded(throng_world *w, grid *g, parallel_sched *sched,
                           uint32_t parts) {
    uint32_t n = w->count;
    g->dense = 0;
    g->sparse = 0;
    if (n > 0) {
        bounds_ctx b;
        b.w = w;
        b.g = g;
        parallel_parts(sched, n, parts, bounds_part, &b);
        if (sched->failed)
            return;
        int64_t lo[3], hi[3];
        for (int a = 0; a < 3; a++) {
            lo[a] = b.lo[0][a];
            hi[a] = b.hi[0][a];
            for (uint32_t p = 1; p < parts; p++) {
                lo[a] = b.lo[p][a] < lo[a] ? b.lo[p][a] : lo[a];
                hi[a] = b.hi[p][a] > hi[a] ? b.hi[p][a] : hi[a];
            }
        }
        double cells = 1.0;
        for (int a = 0; a < 3; a++)
            cells *= (double)(hi[a] - lo[a] + 1);
        if (cells <= 2.0 * n + 4096.0 && cells <= (double)GRID_MAX_CELLS) {
            g->dense = 1;
            for (int a = 0; a < 3; a++) {
                g->origin[a] = (int32_t)lo[a];
                g->n[a] = (int32_t)(hi[a] - lo[a] + 1);
            }
            g->bucket_count = (uint32_t)cells;
            return;
        }
        const double rows =
            (double)(hi[1] - lo[1] + 1) * (double)(hi[2] - lo[2] + 1);
        if (rows <= (double)n + (double)GRID_SPARSE_SPARE_ROWS) {
            g->sparse = 1;
            for (int a = 0; a < 3; a++) {
                g->origin[a] = (int32_t)lo[a];
                /* x spans up to 2^31 + 1 cells; nothing reads n[0] of a
                 * sparse numbering but this record. */
                int64_t cells_a = hi[a] - lo[a] + 1;
                g->n[a] = cells_a > INT32_MAX ? INT32_MAX : (int32_t)cells_a;
            }
            g->row_count = (uint32_t)rows;
            /* The sort's buckets are the rows; the build then cuts them
             * into cells. */
            g->bucket_count = g->row_count;
            return;
        }
    }
    uint32_t want = n / 2 > 64 ? n / 2 : 64;
    g->bucket_count = next_pow2(want);
}

/* ------------------------------------------------------------------------ */
/* Sparse numbering: rows of cells sorted, then cut into cells              */
/* ------------------------------------------------------------------------ */

/* Sorted position a comes after b: by cell x, then by source row. */
static inline int sparse_after(const int32_t *key, const uint32_t *sorted,
                               uint32_t a, uint32_t b) {
    return key[a] > key[b] || (key[a] == key[b] && sorted[a] > sorted[b]);
}

static inline void sparse_swap(int32_t *key, uint32_t *sorted, uint32_t a,
                               uint32_t b) {
    int32_t k = key[a];
    uint32_t s = sorted[a];
    key[a] = key[b];
    sorted[a] = sorted[b];
    key[b] = k;
    sorted[b] = s;
}

/* Heap sort of positions [first, first + len) by (key, sorted row): the
 * fallback for a row far out of order, in place and O(len log len). */
static void sparse_heap_sort(int32_t *key, uint32_t *sorted, uint32_t first,
                             uint32_t len) {
    int32_t *k = key + first;
    uint32_t *s = sorted + first;
    for (uint32_t end = len, start = len / 2; end > 1;) {
        uint32_t root;
        if (start > 0) {
            root = --start;
        } else {
            end--;
            sparse_swap(k, s, 0, end);
            root = 0;
        }
        for (;;) {
            uint32_t child = 2 * root + 1;
            if (child >= end)
                break;
            if (child + 1 < end && sparse_after(k, s, child + 1, child))
                child++;
            if (!sparse_after(k, s, child, root))
                break;
            sparse_swap(k, s, root, child);
            root = child;
        }
    }
}

/* Orders one row's sorted positions [begin, end) by cell x, keeping the
 * source order among agents of one cell: the counting sort placed them in
 * source order, so ordering by (x, source row) is the stable sort, and
 * its result is unique whatever algorithm reaches it. The rows were put
 * in cell order by the last step, so a row is nearly always in order
 * already, and an insertion sort costs a pass; one far out of order (the
 * first steps of a crowd added in random order) goes to a heap sort. */
static void sort_row(int32_t *key, uint32_t *sorted, uint32_t begin,
                     uint32_t end) {
    uint64_t budget = 8u * (uint64_t)(end - begin) + 64u;
    for (uint32_t r = begin + 1; r < end; r++) {
        if (!sparse_after(key, sorted, r - 1, r))
            continue;
        const int32_t k = key[r];
        const uint32_t from = sorted[r];
        uint32_t j = r;
        while (j > begin &&
               (key[j - 1] > k || (key[j - 1] == k && sorted[j - 1] > from))) {
            key[j] = key[j - 1];
            sorted[j] = sorted[j - 1];
            j--;
            budget--;
            if (budget == 0)
                break;
        }
        key[j] = k;
        sorted[j] = from;
        if (budget == 0) {
            sparse_heap_sort(key, sorted, begin, end - begin);
            return;
        }
    }
}

typedef struct sparse_ctx {
    throng_world *w;
    grid *g;
    uint32_t first_cell[GRID_MAX_PARTS]; /* per part: cells, then the first */
} sparse_ctx;

/* First pass over a part of the rows of cells: each row's agents ordered
 * by cell x (bucket_of, free once the rows are placed, holds each sorted
 * position's cell x), the rows' first sorted positions kept in hist (free
 * too) for the second pass, and the part's cells counted. */
static void sparse_sort_part(void *ctx, uint32_t part, uint32_t begin,
                             uint32_t end, int thread) {
    (void)thread;
    sparse_ctx *s = ctx;
    grid *g = s->g;
    const float *px = s->w->col.px;
    int32_t *key = (int32_t *)g->bucket_of;
    uint32_t *sorted = g->sorted;
    uint32_t cells = 0;
    for (uint32_t q = begin; q < end; q++) {
        const uint32_t first = g->cell_start[q], last = g->cell_start[q + 1];
        g->hist[q] = first;
        for (uint32_t r = first; r < last; r++)
            key[r] = grid_coord(g, 0, px[sorted[r]]);
        sort_row(key, sorted, first, last);
        for (uint32_t r = first; r < last; r++)
            cells += r == first || key[r] != key[r - 1];
    }
    s->first_cell[part] = cells;
}

/* Second pass: the part's cells, their first rows and x, and each row's
 * first cell. */
static void sparse_cells_part(void *ctx, uint32_t part, uint32_t begin,
                              uint32_t end, int thread) {
    (void)thread;
    sparse_ctx *s = ctx;
    grid *g = s->g;
    const int32_t *key = (const int32_t *)g->bucket_of;
    uint32_t c = s->first_cell[part];
    for (uint32_t q = begin; q < end; q++) {
        const uint32_t first = g->hist[q], last = g->hist[q + 1];
        g->row_first[q] = c;
        for (uint32_t r = first; r < last; r++)
            if (r == first || key[r] != key[r - 1]) {
                g->cell_start[c] = r;
                g->cell_x[c] = key[r];
                c++;
            }
    }
}

/* Turns the counting sort by row of cells into the sparse numbering:
 * each row ordered by x, then cut into its occupied cells. Returns the
 * number of cells. */
static uint32_t sparse_cut(throng_world *w, grid *g, parallel_sched *sched,
                           uint32_t parts) {
    const uint32_t rows = g->row_count, n = w->count;
    INVARIANT((uint64_t)rows + 1 <= g->hist_capacity &&
                  n <= g->sparse_capacity &&
                  (uint64_t)rows <=
                      (uint64_t)g->sparse_capacity + GRID_SPARSE_SPARE_ROWS,
              "the rows' starts fit the histogram, the cells and rows their "
              "arrays");
    sparse_ctx s = { .w = w, .g = g };
    parallel_parts(sched, rows, parts, sparse_sort_part, &s);
    if (sched->failed)
        return 0;
    uint32_t cells = 0;
    for (uint32_t p = 0; p < parts; p++) {
        uint32_t in_part = s.first_cell[p];
        s.first_cell[p] = cells;
        cells += in_part;
    }
    g->hist[rows] = n;
    parallel_parts(sched, rows, parts, sparse_cells_part, &s);
    g->row_first[rows] = cells;
    g->cell_start[cells] = n;
    return cells;
}

/* ------------------------------------------------------------------------ */
/* Canonical order: each cell's rows by host key                            */
/* ------------------------------------------------------------------------ */

/* The order of the rows inside a cell is the order the neighbour walk
 * meets them in, and the walk's floating-point sums depend on it. The
 * stable sort keeps them in their previous row order, which depends on
 * the order the agents were added in and on which other agents share the
 * world. A canonical world (throng_world_set_canonical_order) orders each
 * cell's rows by host key instead (ties, agents without a key, by their
 * previous row), a total order that depends on the cell's agents alone:
 * two worlds holding the same agents near a cell, whatever else they
 * hold, walk it in the same order. That is what lets a world split over
 * several processes, each holding its agents and copies of its
 * neighbours', give the bits of the whole (libthrong_mpi). It holds for a
 * periodic box and for unbounded grids numbered densely or sparsely; a
 * hashed table puts cells together that the numbering of another world
 * would keep apart.
 *
 * The rows were left in this order by the last step, and agents seldom
 * change cells, so a cell is nearly always in order: an insertion sort
 * costs a pass over its keys. */
typedef struct canon_ctx {
    const throng_world *w;
    const grid *g;
} canon_ctx;

static void canon_part(void *ctx, uint32_t part, uint32_t begin, uint32_t end,
                       int thread) {
    (void)part;
    (void)thread;
    const canon_ctx *c = ctx;
    const uint32_t *cell_start = c->g->cell_start;
    uint32_t *sorted = c->g->sorted;
    const uint32_t *slot = c->w->col.slot;
    const uint64_t *keys = c->w->slot_keys;
    for (uint32_t b = begin; b < end; b++) {
        const uint32_t first = cell_start[b], last = cell_start[b + 1];
        for (uint32_t r = first + 1; r < last; r++) {
            const uint32_t row = sorted[r];
            const uint64_t key = keys[slot[row]];
            uint32_t j = r;
            while (j > first) {
                const uint32_t before = sorted[j - 1];
                const uint64_t k = keys[slot[before]];
                if (k < key || (k == key && before < row))
                    break;
                sorted[j] = before;
                j--;
            }
            sorted[j] = row;
        }
    }
}

static void canonical_cells(const throng_world *w, grid *g,
                            parallel_sched *sched, uint32_t parts) {
    if (!w->slot_keys || w->count < 2)
        return; /* no keys: the previous row order is all there is */
    canon_ctx c = { .w = w, .g = g };
    parallel_parts(sched, g->bucket_count, parts, canon_part, &c);
}

/* The most buckets, and histogram entries, that any build of up to `room`
 * agents on up to `threads` threads can ask for. The storage is reserved
 * for that at once, so a crowd that spreads out (its bounding box of
 * cells, and so the dense numbering, grows step by step until it turns
 * into a hashed table) never makes a step allocate: only a step after the
 * columns grew (more agents than ever before) or the thread count rose
 * may. Unbounded: a dense numbering holds at most 2 room + 4096 cells (and
 * at most GRID_MAX_CELLS), a sparse one room + GRID_SPARSE_SPARE_ROWS
 * rows, a hashed one next_pow2(room / 2) buckets;
 * periodic: the box's cells. The histograms hold a row per part, parts *
 * buckets <= 4 room + buckets when there is more than one part (see
 * grid_build). */
static void storage_room(const grid *g, uint32_t room, int threads,
                         uint32_t *bucket_room, uint32_t *hist_room) {
    uint64_t buckets = g->bucket_count;
    if (!g->periodic) {
        uint64_t dense = 2ull * room + 4096u;
        dense = dense > GRID_MAX_CELLS ? GRID_MAX_CELLS : dense;
        uint64_t hashed = next_pow2(room / 2 > 64 ? room / 2 : 64);
        /* A sparse numbering's sort counts rows of cells, and its cells
         * and the rows' first positions then reuse these arrays. */
        uint64_t sparse = (uint64_t)room + GRID_SPARSE_SPARE_ROWS + 1u;
        buckets = dense > hashed ? dense : hashed;
        buckets = buckets > sparse ? buckets : sparse;
    }
    uint64_t parts = threads > 0 ? (uint64_t)threads : 1u;
    parts = parts > GRID_MAX_PARTS ? GRID_MAX_PARTS : parts;
    uint64_t by_size = room / GRID_MIN_AGENTS_PER_PART;
    parts = parts > by_size ? by_size : parts;
    uint64_t hist = buckets;
    if (parts > 1) {
        hist = parts * buckets;
        if (hist > 4ull * room + buckets)
            hist = 4ull * room + buckets;
    }
    /* Both fit 32 bits: buckets <= 2^31, room <= 2^28. */
    *bucket_room = (uint32_t)buckets;
    *hist_room = hist > UINT32_MAX ? UINT32_MAX : (uint32_t)hist;
}

int grid_build(throng_world *w, parallel_sched *sched, int permute) {
    return grid_build_into(w, &w->grid, sched, permute);
}

int grid_build_into(throng_world *w, grid *g, parallel_sched *sched,
                    int permute) {
    INVARIANT(!permute || g == &w->grid,
              "only the world's own grid moves the rows");
    uint32_t n = w->count;
    int threads = sched->threads;

    uint32_t parts = (uint32_t)threads;
    if (parts > GRID_MAX_PARTS)
        parts = GRID_MAX_PARTS;
    uint32_t by_size = n / GRID_MIN_AGENTS_PER_PART;
    if (parts > by_size)
        parts = by_size;
    if (parts < 1)
        parts = 1;
    if (!g->periodic)
        plan_unbounded(w, g, sched, parts);
    uint32_t buckets = g->bucket_count;
    INVARIANT(buckets >= 1 &&
                  (g->dense || g->sparse || (buckets & (buckets - 1)) == 0),
              "a dense numbering has its cells, a hashed table a power of "
              "two of buckets");

    /* Keep the histograms within about 16 bytes per agent (or one row). */
    while (parts > 1 && (uint64_t)parts * buckets > 4ull * n + buckets)
        parts--;

    const uint32_t room = w->capacity > n ? w->capacity : n;
    uint32_t bucket_room, hist_room;
    storage_room(g, room,
                 threads > world_thread_count(w) ? threads
                                                 : world_thread_count(w),
                 &bucket_room, &hist_room);
    if (bucket_room < buckets)
        bucket_room = buckets;
    if (hist_room < parts * buckets)
        hist_room = parts * buckets;
    if (reserve_agents(w, g, room) ||
        reserve_buckets(w, g, bucket_room, hist_room) ||
        (!g->periodic && reserve_sparse(w, g, room)))
        return 1;
    INVARIANT(parts >= 1 && parts <= GRID_MAX_PARTS &&
                  (uint64_t)parts * buckets <= g->hist_capacity &&
                  buckets <= g->bucket_capacity && n <= g->agent_capacity,
              "the sort's parts fit the grid's storage");

    sort_ctx s = { .w = w, .g = g, .buckets = buckets, .parts = parts };
    parallel_parts(sched, n, parts, count_part, &s);

    uint32_t scan_parts = buckets / GRID_SCAN_GRAIN;
    if (scan_parts > (uint32_t)threads)
        scan_parts = (uint32_t)threads;
    if (scan_parts > GRID_MAX_PARTS)
        scan_parts = GRID_MAX_PARTS;
    if (scan_parts < 1)
        scan_parts = 1;
    s.scan_parts = scan_parts;
    parallel_parts(sched, buckets, scan_parts, scan_totals, &s);
    uint32_t running = 0, occupied = 0;
    for (uint32_t p = 0; p < scan_parts; p++) {
        uint32_t t = s.scan_total[p];
        s.scan_total[p] = running; /* now the part's exclusive prefix */
        running += t;
        occupied += s.scan_occupied[p];
    }
    /* The prefix sum, as counted: every agent in some bucket. (Unless
     * the host's hooks skipped an item, which the step then refuses.) */
    INVARIANT(sched->failed || (running == n && occupied <= buckets),
              "the buckets' counts add up to the agent count");
    parallel_parts(sched, buckets, scan_parts, scan_offsets, &s);
    INVARIANT(sched->failed || g->cell_start[0] == 0,
              "the first bucket starts at row 0");
    g->cell_start[buckets] = n;

    parallel_parts(sched, n, parts, place_part, &s);
    if (g->sparse && !sched->failed) {
        uint32_t row_parts = g->row_count / 64u;
        row_parts = row_parts < parts ? row_parts : parts;
        occupied = sparse_cut(w, g, sched, row_parts > 0 ? row_parts : 1);
        g->bucket_count = occupied;
    }
    if (w->canonical_order && !sched->failed)
        canonical_cells(w, g, sched, parts);
    if (permute)
        permute_columns(w, sched);
    if (sched->failed) {
        g->valid = 0;
        return 0;
    }

    g->count = n;
    g->occupied = occupied;
    g->valid = 1;
    g->permuted = permute;
    return 0;
}
